//! Where indexing a tree spends its CPU time, stage by stage (issue 18's speed work; not a
//! tool). Every stage runs over all files on one thread, one stage after the other, and is
//! timed by the thread's own CPU time (`/proc/thread-self/schedstat`), so that another
//! process busy on the machine does not count:
//!
//! - `walk`: listing the tree (`read_dir`, sorted, hidden entries skipped);
//! - `read`: reading every source file;
//! - `parse`: tree-sitter parsing alone (one `Parser` reused);
//! - `tags`: `Extractor::definitions` (its own parse, the tag query, the signatures and
//!   kinds); `tags - parse` is the query stage;
//! - `ranges`: the skeletons' included ranges (`skeleton.rs`), and `skelparse`: parsing them;
//! - `index`: the definitions as the index finds them (the tree walk where the language has
//!   one, else the query) over skeletons, or whole files with `STAGES_WHOLE=1`;
//! - `refs`: lexing the names each file mentions;
//! - then `index_files` as the tools call it, without a cache and with a fresh one (process CPU
//!   time, all threads): the difference is the cache's JSON, and `rank` over the result.
//!
//! Usage: `cargo run --release -p wright-code --example stages -- DIR [--compare]`;
//! `--compare` checks that the index's (name, kind, line, signature) equal the query's over
//! whole files, in the same order, and prints the first differences. `-- --skeleton=FILE`
//! prints what a skeleton parse reads of one file.

mod common;

use common::files;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use wright_code::{
    Extractor, FileTags, Focus, Indexed, Lang, Need, Parse, Scope, index_files, rank,
};

/// This thread's CPU time so far, in nanoseconds.
fn thread_cpu_ns() -> u64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

/// The process's CPU time so far (user and system, every thread, finished ones too), in ms.
fn process_cpu_ms() -> u64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return 0;
    };
    // Fields after the command's `)`: state is field 3, utime 14, stime 15.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: u64 = fields.get(11).and_then(|f| f.parse().ok()).unwrap_or(0)
        + fields.get(12).and_then(|f| f.parse().ok()).unwrap_or(0);
    // USER_HZ is 100 on Linux.
    ticks * 10
}

fn stage<T>(name: &str, f: impl FnOnce() -> T) -> T {
    let t0 = thread_cpu_ns();
    let w0 = std::time::Instant::now();
    let out = f();
    let cpu = thread_cpu_ns() - t0;
    eprintln!(
        "{name:<8} cpu {:>7.1} ms   wall {:>7.1} ms",
        cpu as f64 / 1e6,
        w0.elapsed().as_secs_f64() * 1e3
    );
    out
}

fn main() {
    let mut args = std::env::args().skip(1);
    let dir = args.next().unwrap_or_else(|| ".".to_owned());
    if let Some(file) = dir.strip_prefix("--skeleton=") {
        // What a skeleton parse reads of one file.
        let source = std::fs::read(file).unwrap_or_default();
        let lang = Lang::of_path(Path::new(file)).unwrap_or(Lang::Rust);
        for range in wright_code::profile::skeleton_ranges(lang, &source) {
            print!(
                "{}",
                String::from_utf8_lossy(&source[range.start_byte..range.end_byte])
            );
        }
        return;
    }
    let compare = args.next().as_deref() == Some("--compare");
    let root = Path::new(&dir)
        .canonicalize()
        .unwrap_or_else(|_| PathBuf::from(&dir));
    let all = stage("walk", || {
        let mut all = Vec::new();
        files(&root, &mut all);
        all
    });
    let sources: Vec<(Lang, Vec<u8>)> = stage("read", || {
        all.iter()
            .filter_map(|p| {
                let lang = Lang::of_path(p)?;
                let bytes = std::fs::read(p).ok()?;
                (bytes.len() as u64 <= wright_code::MAX_FILE_BYTES).then_some((lang, bytes))
            })
            .collect()
    });
    let bytes: usize = sources.iter().map(|(_, b)| b.len()).sum();
    eprintln!(
        "{} source files, {:.1} MB",
        sources.len(),
        bytes as f64 / 1e6
    );
    stage("parse", || {
        let mut parser = tree_sitter::Parser::new();
        let mut nodes = 0usize;
        for (lang, source) in &sources {
            let _ = parser.set_language(&wright_code::profile::language(*lang));
            if let Some(tree) = parser.parse(source, None) {
                nodes += tree.root_node().descendant_count();
            }
        }
        nodes
    });
    let ranges: Vec<_> = stage("ranges", || {
        sources
            .iter()
            .map(|(lang, source)| wright_code::profile::skeleton_ranges(*lang, source))
            .collect()
    });
    let kept: usize = ranges
        .iter()
        .flatten()
        .map(|r| r.end_byte - r.start_byte)
        .sum();
    eprintln!(
        "skeletons: {} files, {} ranges, {:.1} MB kept",
        ranges.iter().filter(|r| !r.is_empty()).count(),
        ranges.iter().map(Vec::len).sum::<usize>(),
        kept as f64 / 1e6
    );
    stage("skelparse", || {
        let mut parser = tree_sitter::Parser::new();
        let mut nodes = 0usize;
        for ((lang, source), ranges) in sources.iter().zip(&ranges) {
            let _ = parser.set_language(&wright_code::profile::language(*lang));
            let _ = parser.set_included_ranges(ranges);
            if let Some(tree) = parser.parse(source, None) {
                nodes += tree.root_node().descendant_count();
            }
        }
        eprintln!("{nodes} nodes");
        nodes
    });
    let by_query = stage("tags", || {
        let mut extractor = Extractor::new();
        sources
            .iter()
            .map(|(lang, source)| extractor.definitions(*lang, source))
            .collect::<Vec<_>>()
    });
    let parse = if std::env::var_os("STAGES_WHOLE").is_some() {
        Parse::Whole
    } else {
        Parse::Skeleton
    };
    // As the index finds them: the walk where the language has one, else the query; over
    // skeletons (`STAGES_WHOLE=1`: whole files, to compare the walker alone with the query).
    let by_index = stage("index", || {
        let mut extractor = Extractor::new();
        sources
            .iter()
            .map(|(lang, source)| {
                extractor
                    .definitions_walked(*lang, source, parse)
                    .unwrap_or_else(|| extractor.definitions_parsed(*lang, source, parse))
            })
            .collect::<Vec<_>>()
    });
    let defs: usize = by_query.iter().map(|f| f.definitions.len()).sum();
    eprintln!("{defs} definitions by the query");
    if compare {
        let mut same = 0;
        let mut differ = 0;
        let mut compared_defs = 0;
        let (mut only_query, mut only_index) = (0, 0);
        for (((lang, _), q), w) in sources.iter().zip(&by_query).zip(&by_index) {
            let mut a = q.definitions.clone();
            let mut b = w.definitions.clone();
            a.sort_by(|x, y| (x.line, &x.name, &x.kind).cmp(&(y.line, &y.name, &y.kind)));
            b.sort_by(|x, y| (x.line, &x.name, &x.kind).cmp(&(y.line, &y.name, &y.kind)));
            compared_defs += a.len();
            only_query += a.iter().filter(|d| !b.contains(d)).count();
            only_index += b.iter().filter(|d| !a.contains(d)).count();
            if a == b && q.partial == w.partial && q.truncated == w.truncated {
                if q.definitions == w.definitions {
                    same += 1;
                    continue;
                }
                // The same definitions, in another order (within a line).
                differ += 1;
                if differ <= 5 {
                    eprintln!(
                        "DIFF ({}): order: query {:?}\n  index {:?}",
                        lang.name(),
                        q.definitions.iter().map(|d| &d.name).collect::<Vec<_>>(),
                        w.definitions.iter().map(|d| &d.name).collect::<Vec<_>>()
                    );
                }
            } else {
                differ += 1;
                if differ <= 5 {
                    let only_q: Vec<_> = a.iter().filter(|d| !b.contains(d)).take(5).collect();
                    let only_w: Vec<_> = b.iter().filter(|d| !a.contains(d)).take(5).collect();
                    eprintln!(
                        "DIFF ({}): query only {only_q:?}\n  index only {only_w:?}\n  partial {} / {}, truncated {} / {}",
                        lang.name(),
                        q.partial,
                        w.partial,
                        q.truncated,
                        w.truncated
                    );
                }
            }
        }
        eprintln!(
            "index vs query: {same} files equal, {differ} differ ({compared_defs} definitions compared, {only_query} by the query only, {only_index} by the index only)"
        );
    }
    stage("refs", || {
        sources
            .iter()
            .map(|(lang, source)| wright_code::profile::references(*lang, source).len())
            .sum::<usize>()
    });
    let stop = AtomicBool::new(false);
    let cache = std::env::temp_dir().join(format!("wright-stages-{}", std::process::id()));
    let timed = |label: &str, cache: Option<&Path>| {
        let c0 = process_cpu_ms();
        let w0 = std::time::Instant::now();
        let (indexed, _) = index_files(&root, &all, cache, Scope::Whole, Need::References, &stop);
        eprintln!(
            "index_files, {label:<12} process cpu {:>5} ms  wall {:>6.1} ms",
            process_cpu_ms() - c0,
            w0.elapsed().as_secs_f64() * 1e3
        );
        indexed
    };
    timed("no cache:", None);
    let indexed = timed("fresh cache:", Some(&cache));
    timed("warm cache:", Some(&cache));
    let _ = std::fs::remove_dir_all(&cache);
    let tags: Vec<(String, std::sync::Arc<FileTags>)> = all
        .iter()
        .zip(indexed)
        .filter_map(|(p, i)| match i {
            Indexed::Tags(t) => Some((wright_code::relative_path(&root, p)?, t)),
            _ => None,
        })
        .collect();
    let view: Vec<(&str, &FileTags)> = tags.iter().map(|(p, t)| (p.as_str(), t.as_ref())).collect();
    stage("rank", || rank(&view, &Focus::default()).len());
}
