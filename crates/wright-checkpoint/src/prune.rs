//! Which chains of snapshots a prune drops: by age (`keep`), then by the store's size on disk,
//! oldest first, never the newest chain. Pure helpers over git's output; the store runs git.

/// What [`crate::CheckpointStore::prune`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pruned {
    /// Chains of snapshots dropped, for their age or for the size cap.
    pub chains_dropped: usize,
    /// The store's size on disk afterwards, in bytes, when a size cap was given.
    pub store_bytes: Option<u64>,
    /// Whether the store is still over the size cap: then only the newest chain (the latest
    /// snapshots, those of the running session) is left, and it alone is larger than the cap.
    pub over_cap: bool,
}

/// One chain of snapshots, as `git for-each-ref` lists its ref.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Chain {
    /// The ref that keeps it (the current chain's, or a segment's).
    pub(crate) refname: String,
    /// Its last snapshot's commit.
    pub(crate) tip: String,
    /// Its last snapshot's committer date (Unix seconds); `None` when git's output was not a
    /// number.
    pub(crate) date: Option<u64>,
}

impl Chain {
    /// Whether its last snapshot was taken at or before `cutoff` (Unix seconds); a chain of
    /// unknown date counts as expired, as nothing says it is recent.
    pub(crate) fn expired(&self, cutoff: u64) -> bool {
        self.date.is_none_or(|date| date <= cutoff)
    }
}

/// The chains in `git for-each-ref --format='%(objectname) %(committerdate:unix) %(refname)'`
/// output; lines of another shape are left out.
pub(crate) fn parse_chains(listing: &str) -> Vec<Chain> {
    listing
        .lines()
        .filter_map(|line| {
            let mut fields = line.splitn(3, ' ');
            let (tip, date, refname) = (fields.next()?, fields.next()?, fields.next()?);
            Some(Chain {
                refname: refname.to_string(),
                tip: tip.to_string(),
                date: date.parse().ok(),
            })
        })
        .collect()
}

/// The chains a size cap may drop, oldest first: all but the newest, which holds the latest
/// snapshots (those of the running session). The newest is `current`'s chain when it is among
/// `chains`, else the one with the latest date, and of chains with the same date (seconds) the
/// one closed last, whose ref name sorts last.
pub(crate) fn droppable_oldest_first(mut chains: Vec<Chain>, current: Option<&str>) -> Vec<Chain> {
    chains.sort_by(|a, b| {
        let newest_key = |c: &Chain| (Some(c.refname.as_str()) == current, c.date);
        newest_key(a)
            .cmp(&newest_key(b))
            .then_with(|| a.refname.cmp(&b.refname))
    });
    chains.pop();
    chains
}

/// The repository's size on disk in bytes from `git count-objects -v` output: loose objects
/// (`size`) plus packs (`size-pack`), both in KiB. `None` when either line is missing.
pub(crate) fn parse_store_size(count_objects: &str) -> Option<u64> {
    let kib = |key: &str| {
        count_objects.lines().find_map(|line| {
            let (name, value) = line.split_once(": ")?;
            (name == key).then(|| value.trim().parse::<u64>().ok())?
        })
    };
    Some(
        kib("size")?
            .saturating_add(kib("size-pack")?)
            .saturating_mul(1024),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn chain(refname: &str, date: u64) -> Chain {
        Chain {
            refname: refname.to_string(),
            tip: "a".repeat(40),
            date: Some(date),
        }
    }

    #[test]
    fn chains_are_read_from_for_each_ref_and_odd_lines_left_out() {
        let listing = format!(
            "{tip} 1700000000 refs/wright/segments/{tip}\n{tip} soon refs/wright/checkpoints\nnonsense\n",
            tip = "a".repeat(40)
        );
        assert_eq!(
            parse_chains(&listing),
            vec![
                chain(
                    &format!("refs/wright/segments/{}", "a".repeat(40)),
                    1_700_000_000
                ),
                Chain {
                    refname: "refs/wright/checkpoints".to_string(),
                    tip: "a".repeat(40),
                    date: None,
                },
            ]
        );
    }

    #[test]
    fn a_chain_expires_at_the_cutoff_and_an_undated_one_always() {
        assert!(chain("r", 100).expired(100));
        assert!(!chain("r", 101).expired(100));
        let undated = Chain {
            date: None,
            ..chain("r", 0)
        };
        assert!(undated.expired(0));
    }

    #[test]
    fn the_size_cap_drops_oldest_first_and_never_the_newest() {
        let chains = vec![chain("b", 200), chain("c", 300), chain("a", 100)];
        assert_eq!(
            droppable_oldest_first(chains, None),
            vec![chain("a", 100), chain("b", 200)]
        );
    }

    #[test]
    fn the_current_chain_is_kept_even_when_dated_earlier() {
        let chains = vec![chain("current", 100), chain("b", 200)];
        assert_eq!(
            droppable_oldest_first(chains, Some("current")),
            vec![chain("b", 200)]
        );
    }

    #[test]
    fn a_single_chain_is_never_droppable() {
        assert_eq!(droppable_oldest_first(vec![chain("a", 1)], None), vec![]);
    }

    #[test]
    fn store_size_is_loose_plus_packed_in_bytes() {
        let output = "count: 3\nsize: 12\nin-pack: 40\npacks: 1\nsize-pack: 100\nprune-packable: 0\ngarbage: 0\nsize-garbage: 0\n";
        assert_eq!(parse_store_size(output), Some(112 * 1024));
        assert_eq!(parse_store_size("count: 3\nsize: 12\n"), None);
    }
}
