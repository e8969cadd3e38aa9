//! Ranking a repository's definitions by how much the rest of it uses them: a PageRank over the
//! graph whose nodes are files and whose edges go from a file to the files defining the names it
//! mentions (the approach of aider's repository map), personalised towards the files and names
//! in focus. A file's rank flows along its edges to the definitions they name.

use fnv::FnvHashMap;

use crate::FileTags;

const DAMPING: f64 = 0.85;
const MAX_ITERATIONS: usize = 100;
/// Edges the ranking makes at most (file, name, definer) — about a second of work.
const MAX_EDGE_WORK: usize = 20_000_000;
/// How much a file of the round is leaned towards, against a file asked about.
const RECENT_WEIGHT: f64 = 0.25;
/// The share of the teleport that goes to every file alike when there is a focus.
const BACKGROUND: f64 = 0.1;
/// A name defined in more files than this is common (`new`, `run`) and weighs less.
const COMMON_NAME_FILES: usize = 5;
/// A name defined in more files than this (`new`, `fmt`, `default` in a Rust workspace) says
/// nothing about which of them a mention means: it makes no edges (there would be one to every
/// definer from every file mentioning it).
const UBIQUITOUS_NAME_FILES: usize = 32;

/// What the ranking leans towards.
#[derive(Debug, Clone, Default)]
pub struct Focus {
    /// Files (paths relative to the root, `/`-separated) or directories (every file under
    /// them) asked about.
    pub paths: Vec<String>,
    /// Names of definitions asked about.
    pub names: Vec<String>,
    /// Files of the current round (read, written, mentioned): leaned towards less than
    /// `paths`.
    pub recent: Vec<String>,
}

impl Focus {
    fn covers(paths: &[String], file: &str) -> bool {
        paths.iter().any(|p| {
            let p = p.trim_end_matches('/');
            p.is_empty()
                || file == p
                || (file.len() > p.len() && file.starts_with(p) && file.as_bytes()[p.len()] == b'/')
        })
    }

    fn is_empty(&self) -> bool {
        self.paths.is_empty() && self.names.is_empty() && self.recent.is_empty()
    }
}

/// One definition's place in the ranking.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ranked {
    /// Index into the files given to [`rank`].
    pub file: usize,
    /// Index into that file's definitions.
    pub definition: usize,
    pub score: f64,
}

/// Every definition ranked, best first (ties by file order, then line);
/// modules are left out.
#[must_use]
pub fn rank(files: &[(&str, &FileTags)], focus: &Focus) -> Vec<Ranked> {
    let n = files.len();
    if n == 0 {
        return Vec::new();
    }
    // Each defined name once, by id, with the files defining it.
    let mut ids: FnvHashMap<&str, usize> = FnvHashMap::default();
    let mut definers: Vec<Vec<usize>> = Vec::new();
    for (i, (_, tags)) in files.iter().enumerate() {
        for d in tags.definitions.iter().filter(|d| ranks_kind(&d.kind)) {
            let id = *ids.entry(d.name.as_str()).or_insert_with(|| {
                definers.push(Vec::new());
                definers.len() - 1
            });
            if definers[id].last() != Some(&i) {
                definers[id].push(i);
            }
        }
    }
    let names: std::collections::HashSet<&str> = focus.names.iter().map(String::as_str).collect();
    // How much each file is leaned towards: one share for a file asked about or defining a
    // name asked about, a quarter for a file of the round.
    let leaning: Vec<f64> = files
        .iter()
        .map(|(path, tags)| {
            if Focus::covers(&focus.paths, path)
                || tags
                    .definitions
                    .iter()
                    .any(|d| names.contains(d.name.as_str()))
            {
                1.0
            } else if Focus::covers(&focus.recent, path) {
                RECENT_WEIGHT
            } else {
                0.0
            }
        })
        .collect();

    // Tests are where the code is used, not where it is: edges into them weigh less.
    let target: Vec<f64> = files
        .iter()
        .map(|(path, _)| {
            if is_test_file(path) {
                TEST_FILE_WEIGHT
            } else {
                1.0
            }
        })
        .collect();
    // Each file's mentions of names other files define, with their weight, by id.
    // What each file mentions of the names others define, in the order of its reference
    // lines, each with its weight (the files read on two threads at once: this is most of a
    // warm map's ranking).
    let weighed = per_file(files, |i, tags| {
        let mut found = Vec::new();
        // A file's own definitions of a name are among its mentions of it: they are no uses.
        let mut own: FnvHashMap<&str, u32> = FnvHashMap::default();
        for d in &tags.definitions {
            *own.entry(d.name.as_str()).or_default() += 1;
        }
        for line in tags.reference_lines() {
            let Some((name, count)) = line.rsplit_once(' ') else {
                continue;
            };
            // (Most names are defined nowhere: the count is read only for those that are.)
            let Some(&id) = ids.get(name) else {
                continue;
            };
            let Ok(count) = count.parse::<u32>() else {
                continue;
            };
            let list = &definers[id];
            let count = count.saturating_sub(own.get(name).copied().unwrap_or(0));
            if count == 0 || list.len() > UBIQUITOUS_NAME_FILES || list.iter().all(|&j| j == i) {
                continue;
            }
            let mut weight = f64::from(count).sqrt();
            if names.contains(name) {
                weight *= 10.0;
            }
            if is_distinctive(name) {
                weight *= 10.0;
            }
            if name.starts_with('_') {
                weight *= 0.1;
            }
            if list.len() > COMMON_NAME_FILES {
                weight *= 0.1;
            }
            // A mention means one of the files defining the name: they share it.
            weight /= list.len() as f64;
            found.push((id, weight));
        }
        found
    });
    // Each mention makes an edge to every definer: a hostile tree (thousands of files naming
    // thousands of names each defined 32 times) could ask for billions; past this budget the
    // remaining mentions are left out (the rest of a file's, then the next file's as far as
    // the budget goes).
    let mut budget = MAX_EDGE_WORK;
    let mentions: Vec<Vec<(usize, f64)>> = weighed
        .into_iter()
        .map(|found| {
            let mut kept = Vec::with_capacity(found.len());
            for (id, weight) in found {
                let edges = definers[id].len();
                if budget < edges {
                    break;
                }
                budget -= edges;
                kept.push((id, weight));
            }
            kept.sort_unstable_by_key(|m| m.0);
            kept
        })
        .collect();

    // Edges: from the file mentioning a name to each other file defining it, summed per pair
    // (in file order, so that the sums, and the ranking, are the same on every run).
    let mut out: Vec<Vec<(usize, f64)>> = Vec::with_capacity(n);
    let mut scratch = vec![0.0f64; n];
    let mut touched: Vec<usize> = Vec::new();
    for (i, list) in mentions.iter().enumerate() {
        for &(id, weight) in list {
            for &j in definers[id].iter().filter(|&&j| j != i) {
                if scratch[j] == 0.0 {
                    touched.push(j);
                }
                scratch[j] += weight * target[j];
            }
        }
        touched.sort_unstable();
        out.push(
            touched
                .drain(..)
                .map(|j| (j, std::mem::take(&mut scratch[j])))
                .collect(),
        );
    }

    let mut personal = leaning;
    let total: f64 = personal.iter().sum();
    let uniform = 1.0 / n as f64;
    if focus.is_empty() || total == 0.0 {
        personal = vec![uniform; n];
    } else {
        // Mostly towards the focus, a little everywhere: what the whole project leans on
        // still outranks the focus files' own unused definitions.
        for p in &mut personal {
            *p = (1.0 - BACKGROUND) * *p / total + BACKGROUND * uniform;
        }
    }
    let totals: Vec<f64> = out
        .iter()
        .map(|edges| edges.iter().map(|e| e.1).sum())
        .collect();
    let ranks = pagerank(&out, &totals, &personal);

    // What flows to a name from every file mentioning it; a definition gets it less what its
    // own file sends (a file has no edge to itself).
    let share = |i: usize, weight: f64| {
        if totals[i] > 0.0 {
            ranks[i] * weight / totals[i]
        } else {
            0.0
        }
    };
    let mut inflow = vec![0.0f64; definers.len()];
    for (i, list) in mentions.iter().enumerate() {
        for &(id, weight) in list {
            inflow[id] += share(i, weight);
        }
    }
    let flow = |j: usize, name: &str| {
        let Some(&id) = ids.get(name) else {
            return 0.0;
        };
        let own = mentions[j]
            .binary_search_by_key(&id, |m| m.0)
            .map_or(0.0, |k| share(j, mentions[j][k].1));
        (inflow[id] - own).max(0.0) * target[j]
    };
    let mut ranked = Vec::new();
    for (j, (_, tags)) in files.iter().enumerate() {
        for (k, d) in tags
            .definitions
            .iter()
            .enumerate()
            .filter(|(_, d)| ranks_kind(&d.kind))
        {
            let mut score = flow(j, &d.name);
            // Unused definitions of an important file before those of an unimportant one.
            score += ranks[j] * 1e-3;
            if names.contains(d.name.as_str()) {
                score += 1.0;
            }
            ranked.push(Ranked {
                file: j,
                definition: k,
                score,
            });
        }
    }
    ranked.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then(a.file.cmp(&b.file))
            .then(a.definition.cmp(&b.definition))
    });
    ranked
}

/// Edges into a test file are worth this much of an edge into other code.
const TEST_FILE_WEIGHT: f64 = 0.1;

/// Whether `path` (relative, `/`-separated) holds tests: under a `test`, `tests`,
/// `__tests__`, `spec` or `testdata` directory, or named so (`foo_test.go`, `test_foo.py`,
/// `foo.test.ts`, `foo.spec.js`, `FooTest.java`).
fn is_test_file(path: &str) -> bool {
    let mut parts = path.rsplit('/');
    let name = parts.next().unwrap_or_default();
    if parts.any(|dir| matches!(dir, "test" | "tests" | "__tests__" | "spec" | "testdata")) {
        return true;
    }
    let stem = name.split('.').next().unwrap_or_default();
    stem.starts_with("test_")
        || stem.ends_with("_test")
        || stem.ends_with("Test")
        || stem.ends_with("Tests")
        || name.contains(".test.")
        || name.contains(".spec.")
}

/// Files fewer than this are read on one thread ([`per_file`]).
const TWO_THREADS_FILES: usize = 64;

/// `work` of each file, in the files' order: on two threads, each with about half the names
/// the files mention, when there are many files (else, or when no thread can start, here).
fn per_file<T: Send>(
    files: &[(&str, &FileTags)],
    work: impl Fn(usize, &FileTags) -> T + Sync,
) -> Vec<T> {
    let run =
        |from: usize, to: usize| -> Vec<T> { (from..to).map(|i| work(i, files[i].1)).collect() };
    let n = files.len();
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    // A test compares the ranking on one thread with the ranking on two.
    #[cfg(test)]
    let cores = if tests::ONE_THREAD.get() { 1 } else { cores };
    if n < TWO_THREADS_FILES || cores < 2 {
        return run(0, n);
    }
    let size = |tags: &FileTags| tags.references.as_deref().map_or(0, str::len);
    let total: usize = files.iter().map(|(_, tags)| size(tags)).sum();
    let mut seen = 0;
    let half = files
        .iter()
        .position(|(_, tags)| {
            seen += size(tags);
            seen * 2 >= total
        })
        .map_or(n, |i| i + 1);
    std::thread::scope(|scope| {
        let second = std::thread::Builder::new()
            .name("rank".into())
            .spawn_scoped(scope, || run(half, n));
        let mut all = run(0, half);
        match second {
            Ok(handle) => match handle.join() {
                Ok(rest) => all.extend(rest),
                Err(panic) => std::panic::resume_unwind(panic),
            },
            Err(_) => all.extend(run(half, n)),
        }
        all
    })
}

/// Whether definitions of `kind` are ranked: modules are not (`mod io;` is not what a mention
/// of `io::` in every file is about, and a map lists their contents).
fn ranks_kind(kind: &str) -> bool {
    kind != "module"
}

/// A name long and specific enough that a mention is most likely a use of its definition:
/// `snake_case` or `camelCase` of eight characters or more.
fn is_distinctive(name: &str) -> bool {
    name.len() >= 8
        && (name.contains('_')
            || (name.bytes().any(|b| b.is_ascii_lowercase())
                && name.bytes().skip(1).any(|b| b.is_ascii_uppercase())))
}

/// PageRank by power iteration, teleporting (and spreading dangling files' rank) by `personal`.
fn pagerank(out: &[Vec<(usize, f64)>], totals: &[f64], personal: &[f64]) -> Vec<f64> {
    let n = out.len();
    let mut ranks = personal.to_vec();
    for _ in 0..MAX_ITERATIONS {
        let dangling: f64 = (0..n).filter(|&i| totals[i] <= 0.0).map(|i| ranks[i]).sum();
        let mut next: Vec<f64> = personal
            .iter()
            .map(|p| (1.0 - DAMPING) * p + DAMPING * dangling * p)
            .collect();
        for (i, edges) in out.iter().enumerate() {
            if totals[i] <= 0.0 {
                continue;
            }
            let share = DAMPING * ranks[i] / totals[i];
            for &(j, w) in edges {
                next[j] += share * w;
            }
        }
        let change: f64 = next.iter().zip(&ranks).map(|(a, b)| (a - b).abs()).sum();
        ranks = next;
        // networkx's test: the total change under `n × 1e-6`.
        if change < n as f64 * 1e-6 {
            break;
        }
    }
    ranks
}

#[cfg(test)]
mod tests;
