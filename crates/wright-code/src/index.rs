//! Indexing files: each file's definitions and the names it mentions, read and parsed on every
//! core, cached on disk by (path, mtime, size) so that an unchanged tree is not parsed again.
//!
//! The cache is one JSON file per project under the directory the caller gives
//! (`$WRIGHT_HOME/cache/code/`), named by a hash of the project's root. It is keyed by the
//! file's path relative to the root and checked against the file's modification time and size;
//! a changed file is parsed again on its own. The cache names the extraction it came from (the
//! format and every grammar's query), so a new query invalidates it. A cache that is missing,
//! too large or unreadable is ignored and written anew; writing it is best effort (a temporary
//! file renamed into place, so a reader never sees half of one).

use std::collections::HashMap;
use std::hash::Hasher as _;
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::UNIX_EPOCH;

use serde::{Deserialize, Serialize};

use crate::{Definition, Extractor, Lang};

/// Larger files are skipped (generated code, bundles).
pub const MAX_FILE_BYTES: u64 = 1024 * 1024;
/// Bytes looked at for a NUL to tell a binary file.
const BINARY_SNIFF_BYTES: usize = 8 * 1024;
/// Distinct names recorded per file at most.
const MAX_REFERENCES_PER_FILE: usize = 5_000;
/// A cache file larger than this is not read (it is written anew).
const MAX_CACHE_BYTES: u64 = 256 * 1024 * 1024;
/// Files a project's cache holds at most; past it, the files this call did not touch go.
const MAX_CACHE_FILES: usize = 50_000;
/// Calls over fewer files than this neither read nor write the cache: parsing them costs less
/// than reading it.
const CACHE_MIN_FILES: usize = 4;
/// Calls over more files than this wait for each other (see [`index_files`]).
const SMALL_CALL_FILES: usize = 64;
/// Parsing threads at most.
const MAX_THREADS: usize = 8;
/// Bumped when the cache's layout changes or what is extracted from a file does (the queries
/// are hashed into the version; the Rust code reading their matches, the tree walks and the
/// skeletons are not: a change to `walk.rs` or `skeleton.rs` that changes what is found bumps
/// it).
const CACHE_FORMAT: u32 = 8;

/// What one source file holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileTags {
    pub lang: Lang,
    /// In source order.
    pub definitions: Vec<Definition>,
    /// The file did not parse cleanly; the definitions are what tree-sitter recovered.
    pub partial: bool,
    /// More definitions than [`crate::MAX_DEFINITIONS_PER_FILE`] were found.
    pub truncated: bool,
    /// The identifiers the file mentions and how often, `name count` lines (see
    /// [`FileTags::references`]); `None` when the call did not need them ([`Need`]).
    pub(crate) references: Option<String>,
}

impl FileTags {
    /// The identifiers the file's code mentions (not its comments or strings), each once, with
    /// how often; at most 5,000.
    pub fn references(&self) -> impl Iterator<Item = (&str, u32)> {
        self.reference_lines().filter_map(|line| {
            let (name, count) = line.rsplit_once(' ')?;
            Some((name, count.parse().ok()?))
        })
    }

    /// The `name count` lines [`FileTags::references`] reads.
    pub(crate) fn reference_lines(&self) -> std::str::Lines<'_> {
        self.references.as_deref().unwrap_or_default().lines()
    }
}

/// What became of one file.
#[derive(Debug, Clone)]
pub enum Indexed {
    Tags(Arc<FileTags>),
    Binary,
    TooLarge,
    Unreadable,
    UnknownLanguage,
}

/// How the files were indexed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct IndexStats {
    /// Files parsed in this call.
    pub parsed: usize,
    /// Files taken from the cache.
    pub cached: usize,
    /// Files whose definitions the cache held but not the names they mention, read again for
    /// those (not parsed).
    pub lexed: usize,
}

/// What a call needs of each file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Need {
    /// Its definitions (Definitions): the names it mentions are not lexed, which is an eighth
    /// of a cold index's time.
    Definitions,
    /// Its definitions and the names it mentions (RepoMap's ranking).
    References,
}

/// A file to parse, or to lex for the names it mentions when the cache held its definitions.
struct Todo {
    index: usize,
    lang: Lang,
    stamp: Option<Stamp>,
    size: u64,
    known: Option<Arc<FileTags>>,
}

/// Which part of the project a call indexes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Some of its files: the cache keeps what it holds of the others.
    Part,
    /// All of its source files: the cache forgets files no longer there.
    Whole,
}

/// Indexes `files` (absolute paths under `root`), in order, for what `need` says, using and
/// updating the cache under `cache_dir` when one is given (calls of fewer than
/// [`CACHE_MIN_FILES`] files parse without it). Stops early when `stop` is raised: the files
/// not reached are reported [`Indexed::Unreadable`].
pub fn index_files(
    root: &Path,
    files: &[PathBuf],
    cache_dir: Option<&Path>,
    scope: Scope,
    need: Need,
    stop: &AtomicBool,
) -> (Vec<Indexed>, IndexStats) {
    index_files_with(root, files, cache_dir, scope, need, stop, None)
}

/// When an index of files in order has read enough of them ([`index_files_until`]): when the
/// files before the first one not yet indexed hold `definitions` definitions that `counts`
/// accepts.
pub struct Enough<'a> {
    pub definitions: usize,
    pub counts: &'a (dyn Fn(&Definition) -> bool + Sync),
}

/// [`index_files`] of part of the project for its definitions, stopping once the files before
/// the first one not yet indexed hold what `enough` asks: a caller that shows the first
/// definitions in the files' order and no more (Definitions' cap) parses no file past them.
/// The files are taken in order, in runs of about an eighth of their bytes, each run's
/// largest first (so that no thread is left with one big file at the end); the files not
/// reached are reported [`Indexed::Unreadable`]. A file parsed past the point where `enough`
/// was met (one in the run under way) is reported as usual.
pub fn index_files_until(
    root: &Path,
    files: &[PathBuf],
    cache_dir: Option<&Path>,
    stop: &AtomicBool,
    enough: &Enough<'_>,
) -> (Vec<Indexed>, IndexStats) {
    index_files_with(
        root,
        files,
        cache_dir,
        Scope::Part,
        Need::Definitions,
        stop,
        Some(enough),
    )
}

fn index_files_with(
    root: &Path,
    files: &[PathBuf],
    cache_dir: Option<&Path>,
    scope: Scope,
    need: Need,
    stop: &AtomicBool,
    enough: Option<&Enough<'_>>,
) -> (Vec<Indexed>, IndexStats) {
    // A call over many files waits for the start-up indexing's chunk to end (one tree at a
    // time: it then finds the cache warm, rather than parsing the same files beside it).
    let _tree = if files.len() > SMALL_CALL_FILES {
        WAITING.fetch_add(1, Ordering::SeqCst);
        let tree = take_trees(stop);
        WAITING.fetch_sub(1, Ordering::SeqCst);
        match tree {
            Some(guard) => Some(guard),
            None => {
                return (
                    vec![Indexed::Unreadable; files.len()],
                    IndexStats::default(),
                );
            }
        }
    } else {
        None
    };
    let cache_path = cache_dir
        .filter(|_| files.len() >= CACHE_MIN_FILES)
        .map(|dir| cache_file(dir, root));
    let mut cache = cache_path.as_deref().map(Cache::load).unwrap_or_default();
    index_with(
        root,
        files,
        &mut cache,
        cache_path.as_deref(),
        scope,
        need,
        stop,
        enough,
    )
}

/// The start-up indexing: `files` in chunks of `chunk` files, for what `need` says, the cache
/// read once and written after each chunk (a short session keeps what it parsed). Between
/// chunks a call waiting for the tree goes first ([`index_files`]); the cache is read again
/// after one has written it.
pub fn index_in_chunks(
    root: &Path,
    files: &[PathBuf],
    cache_dir: &Path,
    chunk: usize,
    need: Need,
    stop: &AtomicBool,
) {
    let path = cache_file(cache_dir, root);
    let written = || std::fs::metadata(&path).and_then(|m| m.modified()).ok();
    // The cache as this call last wrote it, and the file's modification time then.
    let mut held: Option<(Cache, Option<std::time::SystemTime>)> = None;
    for part in files.chunks(chunk.max(1)) {
        while WAITING.load(Ordering::SeqCst) > 0 && !stop.load(Ordering::Relaxed) {
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        let Some(_tree) = take_trees(stop) else {
            return;
        };
        let mut cache = match held.take() {
            Some((cache, when)) if when == written() => cache,
            _ => Cache::load(&path),
        };
        index_with(
            root,
            part,
            &mut cache,
            Some(&path),
            Scope::Part,
            need,
            stop,
            None,
        );
        held = Some((cache, written()));
        if stop.load(Ordering::Relaxed) {
            return;
        }
    }
}

/// Calls waiting for [`TREES`].
static WAITING: AtomicUsize = AtomicUsize::new(0);
/// One tree at a time (see [`index_files`]).
static TREES: Mutex<()> = Mutex::new(());

/// The tree lock, waited for until `stop` is raised (`None` then).
fn take_trees(stop: &AtomicBool) -> Option<std::sync::MutexGuard<'static, ()>> {
    loop {
        match TREES.try_lock() {
            Ok(guard) => return Some(guard),
            Err(std::sync::TryLockError::Poisoned(poisoned)) => return Some(poisoned.into_inner()),
            Err(std::sync::TryLockError::WouldBlock) => {
                if stop.load(Ordering::Relaxed) {
                    return None;
                }
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
        }
    }
}

/// The cache file of the project at `root`.
fn cache_file(dir: &Path, root: &Path) -> PathBuf {
    dir.join(format!("{:016x}.json", hash(root)))
}

/// [`index_files`]' work, with the cache read (and written to `cache_path`, if any).
#[allow(clippy::too_many_arguments)]
fn index_with(
    root: &Path,
    files: &[PathBuf],
    cache: &mut Cache,
    cache_path: Option<&Path>,
    scope: Scope,
    need: Need,
    stop: &AtomicBool,
    enough: Option<&Enough<'_>>,
) -> (Vec<Indexed>, IndexStats) {
    let mut stats = IndexStats::default();
    let mut outcomes: Vec<Option<Indexed>> = vec![None; files.len()];
    let mut todo: Vec<Todo> = Vec::new();
    for (i, path) in files.iter().enumerate() {
        let Some(lang) = Lang::of_path(path) else {
            outcomes[i] = Some(Indexed::UnknownLanguage);
            continue;
        };
        let Ok(meta) = std::fs::metadata(path) else {
            outcomes[i] = Some(Indexed::Unreadable);
            continue;
        };
        if meta.len() > MAX_FILE_BYTES {
            outcomes[i] = Some(Indexed::TooLarge);
            continue;
        }
        let stamp = Stamp::of(&meta);
        let cached = stamp.and_then(|stamp| {
            let entry = cache.files.get(&relative_path(root, path)?)?;
            (entry.stamp == stamp && entry.tags.lang == lang).then(|| Arc::clone(&entry.tags))
        });
        match cached {
            Some(tags) if need == Need::Definitions || tags.references.is_some() => {
                stats.cached += 1;
                outcomes[i] = Some(Indexed::Tags(tags));
            }
            known => todo.push(Todo {
                index: i,
                lang,
                stamp,
                size: meta.len(),
                known,
            }),
        }
    }
    let prefix = enough.map(|enough| Prefix::new(enough, &outcomes));
    let parsed = parse_all(files, &todo, need, stop, prefix.as_ref());
    let mut changed = false;
    for (n, outcome) in parsed {
        let Todo {
            index: i, stamp, ..
        } = todo[n];
        if todo[n].known.is_some() {
            stats.lexed += 1;
        } else {
            stats.parsed += 1;
        }
        if let (Indexed::Tags(tags), Some(stamp), Some(key)) =
            (&outcome, stamp, relative_path(root, &files[i]))
        {
            cache.files.insert(
                key,
                Entry {
                    stamp,
                    tags: Arc::clone(tags),
                },
            );
            changed = true;
        }
        outcomes[i] = Some(outcome);
    }
    if (scope == Scope::Whole && !stop.load(Ordering::Relaxed))
        || cache.files.len() > MAX_CACHE_FILES
    {
        let touched: std::collections::HashSet<String> = files
            .iter()
            .filter_map(|p| relative_path(root, p))
            .collect();
        let before = cache.files.len();
        cache.files.retain(|k, _| touched.contains(k));
        changed |= cache.files.len() != before;
    }
    if changed && let Some(path) = cache_path {
        cache.save(path);
    }
    let outcomes = outcomes
        .into_iter()
        .map(|o| o.unwrap_or(Indexed::Unreadable))
        .collect();
    (outcomes, stats)
}

/// Parses (or lexes) the files `todo` names (in the files' order) on every core, until
/// `prefix` has enough when there is one; what each became, by index into `todo`.
fn parse_all(
    files: &[PathBuf],
    todo: &[Todo],
    need: Need,
    stop: &AtomicBool,
    prefix: Option<&Prefix<'_>>,
) -> Vec<(usize, Indexed)> {
    let threads = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .clamp(1, MAX_THREADS);
    // A test that needs to know which files are parsed sets one thread.
    #[cfg(test)]
    let threads = tests::THREADS.get().unwrap_or(threads);
    let threads = threads.min(todo.len());
    let mut order: Vec<usize> = (0..todo.len()).collect();
    match prefix {
        // The largest files first, so that no thread is left with one at the end while the
        // others wait (googletest's three largest files are a fifth of its bytes).
        None => order.sort_by_key(|&n| std::cmp::Reverse(todo[n].size)),
        Some(_) => in_runs(&mut order, todo),
    }
    let next = AtomicUsize::new(0);
    let done = Mutex::new(Vec::with_capacity(todo.len()));
    let work = || {
        let mut extractor = Extractor::new();
        let mut mine = Vec::new();
        loop {
            if stop.load(Ordering::Relaxed) || prefix.is_some_and(Prefix::reached) {
                break;
            }
            let Some(&n) = order.get(next.fetch_add(1, Ordering::Relaxed)) else {
                break;
            };
            let item = &todo[n];
            let path = &files[item.index];
            let outcome = match &item.known {
                Some(known) => lex_file(known, path),
                None => parse_file(&mut extractor, item.lang, path, need),
            };
            if let Some(prefix) = prefix {
                prefix.record(item.index, &outcome);
            }
            mine.push((n, outcome));
        }
        done.lock()
            .unwrap_or_else(PoisonError::into_inner)
            .extend(mine);
    };
    if threads <= 1 {
        work();
    } else {
        std::thread::scope(|scope| {
            for _ in 0..threads {
                scope.spawn(work);
            }
        });
    }
    done.into_inner().unwrap_or_else(PoisonError::into_inner)
}

/// Runs of about an eighth of the files' bytes each, in the files' order, each run's largest
/// files first: nearly the balance of all files largest first (within 1 % on the C++ trees of
/// `bench/definitions.sh`) while the files before the first not yet parsed grow run by run.
fn in_runs(order: &mut [usize], todo: &[Todo]) {
    const RUNS: u64 = 8;
    let total: u64 = todo.iter().map(|t| t.size).sum();
    let per_run = (total / RUNS).max(1);
    let mut rest = order;
    while !rest.is_empty() {
        let mut bytes = 0;
        let len = rest
            .iter()
            .position(|&n| {
                bytes += todo[n].size;
                bytes >= per_run
            })
            .map_or(rest.len(), |last| last + 1);
        let (run, after) = rest.split_at_mut(len);
        run.sort_by_key(|&n| std::cmp::Reverse(todo[n].size));
        rest = after;
    }
}

/// How far the files indexed so far reach in the files' order, for [`Enough`].
struct Prefix<'a> {
    enough: &'a Enough<'a>,
    state: Mutex<PrefixState>,
    reached: AtomicBool,
}

struct PrefixState {
    /// Per file, the definitions `enough` counts once it is indexed.
    counts: Vec<Option<usize>>,
    /// The first file not yet indexed, and what the files before it hold.
    next: usize,
    held: usize,
}

impl<'a> Prefix<'a> {
    /// With what is known of each file before parsing (`outcomes`: the cache's, skips).
    fn new(enough: &'a Enough<'a>, outcomes: &[Option<Indexed>]) -> Self {
        let prefix = Self {
            enough,
            state: Mutex::new(PrefixState {
                counts: outcomes
                    .iter()
                    .map(|o| o.as_ref().map(|o| enough.count(o)))
                    .collect(),
                next: 0,
                held: 0,
            }),
            reached: AtomicBool::new(false),
        };
        prefix.advance(&mut prefix.state.lock().unwrap_or_else(PoisonError::into_inner));
        prefix
    }

    fn reached(&self) -> bool {
        self.reached.load(Ordering::Relaxed)
    }

    /// File `index` became `outcome`.
    fn record(&self, index: usize, outcome: &Indexed) {
        let count = self.enough.count(outcome);
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(slot) = state.counts.get_mut(index) {
            *slot = Some(count);
        }
        self.advance(&mut state);
    }

    fn advance(&self, state: &mut PrefixState) {
        while let Some(&Some(count)) = state.counts.get(state.next) {
            state.held = state.held.saturating_add(count);
            state.next += 1;
        }
        if state.held >= self.enough.definitions {
            self.reached.store(true, Ordering::Relaxed);
        }
    }
}

impl Enough<'_> {
    fn count(&self, outcome: &Indexed) -> usize {
        match outcome {
            Indexed::Tags(tags) => tags.definitions.iter().filter(|d| (self.counts)(d)).count(),
            _ => 0,
        }
    }
}

fn parse_file(extractor: &mut Extractor, lang: Lang, path: &Path, need: Need) -> Indexed {
    let source = match read_source(path) {
        Ok(source) => source,
        Err(skipped) => return skipped,
    };
    // A tree walk in place of the tag query (the same definitions, see `walk.rs`; every
    // language has one, the query stays for a walker that would not build), over the file's
    // skeleton (see `skeleton.rs` for what it leaves out, per language).
    let found = extractor
        .definitions_walked(lang, &source, crate::Parse::Skeleton)
        .unwrap_or_else(|| extractor.definitions_parsed(lang, &source, crate::Parse::Skeleton));
    Indexed::Tags(Arc::new(FileTags {
        lang,
        definitions: found.definitions,
        partial: found.partial,
        truncated: found.truncated,
        references: (need == Need::References).then(|| references(lang, &source)),
    }))
}

/// The names a file mentions, added to the definitions the cache held of it.
fn lex_file(known: &FileTags, path: &Path) -> Indexed {
    match read_source(path) {
        Ok(source) => Indexed::Tags(Arc::new(FileTags {
            references: Some(references(known.lang, &source)),
            ..known.clone()
        })),
        Err(skipped) => skipped,
    }
}

/// A file's bytes, read no further than [`MAX_FILE_BYTES`]; binary files (a NUL near the start)
/// are refused.
fn read_source(path: &Path) -> Result<Vec<u8>, Indexed> {
    let file = std::fs::File::open(path).map_err(|_| Indexed::Unreadable)?;
    let mut bytes = Vec::new();
    file.take(MAX_FILE_BYTES.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|_| Indexed::Unreadable)?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(Indexed::TooLarge);
    }
    if bytes[..bytes.len().min(BINARY_SNIFF_BYTES)].contains(&0) {
        return Err(Indexed::Binary);
    }
    Ok(bytes)
}

/// The identifiers the code of `source` mentions (ASCII letters, digits, `_` and `$`, not
/// starting with a digit, at least two characters) with their counts, as `name count` lines,
/// most frequent first. Comments and string literals are skipped: the words of documentation
/// ("the task", "with") are not uses of the definitions that bear those names.
pub(crate) fn references(lang: Lang, source: &[u8]) -> String {
    let python = lang == Lang::Python;
    let quote_strings = matches!(
        lang,
        Lang::Python | Lang::JavaScript | Lang::TypeScript | Lang::Tsx
    );
    let backtick_strings = matches!(
        lang,
        Lang::Go | Lang::JavaScript | Lang::TypeScript | Lang::Tsx
    );
    // Sized for a file's distinct names (about one per 40 bytes of code), so that it is not
    // grown again and again.
    let mut counts: fnv::FnvHashMap<&[u8], u32> = fnv::FnvHashMap::with_capacity_and_hasher(
        (source.len() / 40).min(MAX_REFERENCES_PER_FILE * 4),
        fnv::FnvBuildHasher::default(),
    );
    let at = |i: usize| source.get(i).copied().unwrap_or(0);
    let mut i = 0;
    while i < source.len() {
        let b = source[i];
        if lang == Lang::Rust && b == b'r' && matches!(at(i + 1), b'"' | b'#') {
            // A raw string, `r"…"` or `r#"…"#`: it ends at a quote and as many `#`.
            let hashes = source[i + 1..].iter().take_while(|&&c| c == b'#').count();
            if at(i + 1 + hashes) == b'"' {
                let mut end = vec![b'"'];
                end.extend(std::iter::repeat_n(b'#', hashes));
                i = skip_past(source, i + 2 + hashes, &end);
                continue;
            }
        }
        if lang == Lang::Rust && b == b'#' && (at(i + 1) == b'[' || at(i + 1) == b'!') {
            // An attribute (`#[test]`, `#[cfg(feature = "x")]`) names no definition of the
            // project's.
            i = skip_brackets(source, i + 1);
            continue;
        }
        if b.is_ascii_alphabetic() || b == b'_' || b == b'$' {
            let start = i;
            while i < source.len()
                && (source[i].is_ascii_alphanumeric() || source[i] == b'_' || source[i] == b'$')
            {
                i += 1;
            }
            let word = &source[start..i];
            if word.len() >= 2 && word.len() <= 200 {
                *counts.entry(word).or_default() += 1;
            }
        } else if b.is_ascii_digit() {
            // A number's letters (`0x1f`, `10usize`) are not a name.
            while i < source.len() && (source[i].is_ascii_alphanumeric() || source[i] == b'_') {
                i += 1;
            }
        } else if python && b == b'#' || !python && b == b'/' && at(i + 1) == b'/' {
            i = skip_past(source, i, b"\n");
        } else if !python && b == b'/' && at(i + 1) == b'*' {
            i = skip_past(source, i + 2, b"*/");
        } else if python && (b == b'"' || b == b'\'') && at(i + 1) == b && at(i + 2) == b {
            i = skip_string(source, i + 3, &[b, b, b], true);
        } else if b == b'"' {
            // Rust's strings may span lines; the others end at the line's end at the latest,
            // so that a quote read wrongly costs one line, not the rest of the file.
            i = skip_string(source, i + 1, b"\"", lang == Lang::Rust);
        } else if b == b'\'' && quote_strings {
            i = skip_string(source, i + 1, b"'", false);
        } else if b == b'\'' {
            // A character literal (`'x'`, `'\n'`, `'\u{1F600}'`); otherwise a Rust lifetime.
            let end = if at(i + 1) == b'\\' {
                skip_string(source, i + 1, b"'", false)
            } else if at(i + 2) == b'\'' {
                i + 3
            } else {
                i + 1
            };
            i = end.min(i + 12).max(i + 1);
        } else if b == b'`' && backtick_strings {
            i = skip_string(source, i + 1, b"`", true);
        } else {
            i += 1;
        }
    }
    let mut counts: Vec<(&[u8], u32)> = counts.into_iter().collect();
    counts.sort_unstable_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    counts.truncate(MAX_REFERENCES_PER_FILE);
    let mut out = String::with_capacity(counts.len() * 12);
    for (word, count) in counts {
        use std::fmt::Write as _;
        // ASCII by construction.
        let _ = writeln!(out, "{} {count}", String::from_utf8_lossy(word));
    }
    out
}

/// The index just past the first `end` at or after `from` (the end of `source` if none).
fn skip_past(source: &[u8], from: usize, end: &[u8]) -> usize {
    source
        .get(from..)
        .and_then(|rest| rest.windows(end.len()).position(|w| w == end))
        .map_or(source.len(), |at| from + at + end.len())
}

/// The index just past the `[…]` that starts at or after `from` (nested brackets counted,
/// at most 4 KiB looked at); `from + 1` when there is none.
fn skip_brackets(source: &[u8], from: usize) -> usize {
    let mut depth = 0usize;
    for (i, &b) in source.iter().enumerate().skip(from).take(4096) {
        match b {
            b'[' => depth += 1,
            b']' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return i + 1;
                }
            }
            b'\n' if depth == 0 => break,
            _ => {}
        }
    }
    from + 1
}

/// The index just past a string literal's closing `quote`, from `from` (just inside it):
/// backslash escapes are skipped; a string that may not span lines ends at the line's end.
fn skip_string(source: &[u8], from: usize, quote: &[u8], multiline: bool) -> usize {
    let mut i = from;
    while i < source.len() {
        if source[i] == b'\\' {
            i += 2;
        } else if source[i..].starts_with(quote) {
            return i + quote.len();
        } else if source[i] == b'\n' && !multiline {
            return i + 1;
        } else {
            i += 1;
        }
    }
    source.len()
}

/// A file's modification time (nanoseconds since the epoch) and size, and on Unix its
/// status-change time and inode: a file rewritten with the same size and its old mtime put
/// back (`touch -d`, `cp -p`, `rsync -t`, an npm package's fixed 1985 mtime) still changes its
/// ctime, which no program can set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
struct Stamp {
    mtime_ns: u128,
    size: u64,
    #[serde(default)]
    ctime_ns: i128,
    #[serde(default)]
    inode: u64,
}

impl Stamp {
    fn of(meta: &std::fs::Metadata) -> Option<Self> {
        let mtime = meta.modified().ok()?.duration_since(UNIX_EPOCH).ok()?;
        #[cfg(unix)]
        let (ctime_ns, inode) = {
            use std::os::unix::fs::MetadataExt as _;
            (
                i128::from(meta.ctime()) * 1_000_000_000 + i128::from(meta.ctime_nsec()),
                meta.ino(),
            )
        };
        #[cfg(not(unix))]
        let (ctime_ns, inode) = (0, 0);
        Some(Self {
            mtime_ns: mtime.as_nanos(),
            size: meta.len(),
            ctime_ns,
            inode,
        })
    }
}

/// `path` relative to `root`, `/`-separated (the cache's key, and how the tools show a file);
/// `None` outside `root` or not UTF-8.
pub fn relative_path(root: &Path, path: &Path) -> Option<String> {
    let rel = path.strip_prefix(root).ok()?.to_str()?;
    Some(if std::path::MAIN_SEPARATOR == '/' {
        rel.to_owned()
    } else {
        rel.replace(std::path::MAIN_SEPARATOR, "/")
    })
}

fn hash(root: &Path) -> u64 {
    let mut hasher = fnv::FnvHasher::default();
    hasher.write(root.as_os_str().as_encoded_bytes());
    hasher.finish()
}

/// What the cache's contents were made by: the format and every grammar's query.
fn cache_version() -> &'static str {
    static VERSION: OnceLock<String> = OnceLock::new();
    VERSION.get_or_init(|| {
        let mut hasher = fnv::FnvHasher::default();
        for lang in crate::ALL {
            hasher.write(lang.grammar().1.as_bytes());
        }
        format!(
            "{CACHE_FORMAT}-{}-{:016x}",
            env!("CARGO_PKG_VERSION"),
            hasher.finish()
        )
    })
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct Cache {
    version: String,
    files: HashMap<String, Entry>,
}

/// What the cache holds of a file: its tags as the index hands them out (a warm call shares
/// them, not copies them: copying was a tenth of a warm RepoMap), written as [`Wire`].
#[derive(Debug, Deserialize)]
#[serde(try_from = "Wire<String>")]
struct Entry {
    stamp: Stamp,
    tags: Arc<FileTags>,
}

/// An [`Entry`] as the cache file holds it, its strings owned (read) or borrowed (written).
#[derive(Serialize, Deserialize)]
struct Wire<S> {
    stamp: Stamp,
    lang: S,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    partial: bool,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    truncated: bool,
    /// `[name, kind, line, signature]`.
    definitions: Vec<(S, S, usize, S)>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    references: Option<S>,
}

impl TryFrom<Wire<String>> for Entry {
    type Error = String;

    fn try_from(wire: Wire<String>) -> Result<Self, String> {
        let lang = crate::ALL
            .into_iter()
            .find(|lang| lang.name() == wire.lang)
            .ok_or_else(|| format!("unknown language {:?}", wire.lang))?;
        Ok(Self {
            stamp: wire.stamp,
            tags: Arc::new(FileTags {
                lang,
                definitions: wire
                    .definitions
                    .into_iter()
                    .map(|(name, kind, line, signature)| Definition {
                        name,
                        kind,
                        line,
                        signature,
                    })
                    .collect(),
                partial: wire.partial,
                truncated: wire.truncated,
                references: wire.references,
            }),
        })
    }
}

impl Serialize for Entry {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let tags = &self.tags;
        Wire {
            stamp: self.stamp,
            lang: tags.lang.name(),
            partial: tags.partial,
            truncated: tags.truncated,
            definitions: tags
                .definitions
                .iter()
                .map(|d| {
                    (
                        d.name.as_str(),
                        d.kind.as_str(),
                        d.line,
                        d.signature.as_str(),
                    )
                })
                .collect(),
            references: tags.references.as_deref(),
        }
        .serialize(serializer)
    }
}

impl Cache {
    /// The cache at `path`, or an empty one when it is missing, too large, unreadable or made
    /// by another version.
    fn load(path: &Path) -> Self {
        let empty = || Self {
            version: cache_version().to_owned(),
            files: HashMap::new(),
        };
        let Ok(file) = std::fs::File::open(path) else {
            return empty();
        };
        if !file
            .metadata()
            .is_ok_and(|meta| meta.is_file() && meta.len() <= MAX_CACHE_BYTES)
        {
            return empty();
        }
        let mut bytes = Vec::new();
        if file.take(MAX_CACHE_BYTES).read_to_end(&mut bytes).is_err() {
            return empty();
        }
        match serde_json::from_slice::<Self>(&bytes) {
            Ok(cache) if cache.version == cache_version() => cache,
            _ => empty(),
        }
    }

    /// Writes the cache to `path` through a temporary file of its own (unique, readable by the
    /// user only) renamed into place; failures are ignored (the next call parses again).
    fn save(&self, path: &Path) {
        use std::io::Write as _;
        let Some(dir) = path.parent() else { return };
        if std::fs::create_dir_all(dir).is_err() {
            return;
        }
        let Ok(bytes) = serde_json::to_vec(self) else {
            return;
        };
        let Ok(mut tmp) = tempfile::NamedTempFile::new_in(dir) else {
            return;
        };
        if tmp.write_all(&bytes).is_ok() {
            let _ = tmp.persist(path);
        }
    }
}

#[cfg(test)]
mod tests;
