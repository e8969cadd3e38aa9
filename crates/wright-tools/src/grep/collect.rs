//! What Grep keeps while it searches: one [`FileSink`] per searched file, and the shared
//! [`Collector`] the walker threads hand their files to.
//!
//! Memory stays bounded by the output cap, not by the corpus: a file keeps at most as many
//! lines as could ever be shown, and in content mode the collector drops the files that sort
//! after the cap (their matches are still counted). Only `head_limit: 0` keeps everything.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use wright_protocol::text::take_chars;

use crate::walk::StopFlag;
use grep_searcher::{Searcher, Sink, SinkContext, SinkFinish, SinkMatch};

use super::OutputMode;

/// Characters of a line shown before it is cut (minified files, data dumps).
pub(super) const MAX_LINE_CHARS: usize = 500;

/// What a line of content output is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum LineKind {
    /// A line the pattern matched (`path:N:text`).
    Match,
    /// A line of `-A`/`-B`/`-C` context around a match (`path-N-text`).
    Context,
    /// A gap between two groups of non-adjacent lines (`--`).
    Break,
}

/// One line of content output, before the path is put in front.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Line {
    pub kind: LineKind,
    /// 1-based; 0 for a break.
    pub number: u64,
    /// The line without its terminator, cut at [`MAX_LINE_CHARS`].
    pub text: String,
}

/// The result of searching one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct FileHits {
    pub path: PathBuf,
    /// Files mode only: for newest-first ordering.
    pub mtime: Option<SystemTime>,
    /// Matching lines.
    pub count: u64,
    /// Content mode only: the output lines kept.
    pub lines: Vec<Line>,
    /// Whether the file had more output lines than it could keep.
    pub lines_dropped: bool,
}

/// Receives one file's matches from the searcher.
#[derive(Debug)]
pub(super) struct FileSink<'c> {
    mode: OutputMode,
    /// Output lines this file may keep (content mode).
    line_cap: usize,
    stop: &'c StopFlag,
    count: u64,
    lines: Vec<Line>,
    lines_dropped: bool,
    binary: bool,
}

impl<'c> FileSink<'c> {
    /// A sink for one file; `line_cap` bounds the lines kept in content mode.
    pub fn new(mode: OutputMode, line_cap: usize, stop: &'c StopFlag) -> Self {
        Self {
            mode,
            line_cap,
            stop,
            count: 0,
            lines: Vec::new(),
            lines_dropped: false,
            binary: false,
        }
    }

    /// The file's hits, or `None` when it had no match or turned out to be binary (skipped
    /// whole, as ripgrep does, even if a match came before the first NUL byte).
    pub fn into_hits(self, path: &Path) -> Option<FileHits> {
        if self.binary || self.count == 0 {
            return None;
        }
        let mtime = match self.mode {
            OutputMode::FilesWithMatches => std::fs::metadata(path)
                .and_then(|meta| meta.modified())
                .ok(),
            OutputMode::Content | OutputMode::Count => None,
        };
        Some(FileHits {
            path: path.to_path_buf(),
            mtime,
            count: self.count,
            lines: self.lines,
            lines_dropped: self.lines_dropped,
        })
    }

    fn keep(&mut self, kind: LineKind, number: u64, bytes: &[u8]) {
        if self.lines.len() < self.line_cap {
            self.lines.push(Line {
                kind,
                number,
                text: clip(bytes),
            });
        } else {
            self.lines_dropped = true;
        }
    }
}

impl Sink for FileSink<'_> {
    type Error = std::io::Error;

    fn matched(&mut self, searcher: &Searcher, found: &SinkMatch<'_>) -> Result<bool, Self::Error> {
        if self.stop.is_raised() {
            return Ok(false);
        }
        match self.mode {
            OutputMode::FilesWithMatches => {
                self.count = 1;
                // One match is all this mode needs to know.
                return Ok(false);
            }
            // Without multiline a match is one line; no need to scan it for more.
            OutputMode::Count if !searcher.multi_line() => self.count += 1,
            OutputMode::Count => self.count += found.lines().count() as u64,
            OutputMode::Content => {
                let first = found.line_number().unwrap_or(0);
                for (offset, line) in (0u64..).zip(found.lines()) {
                    self.count += 1;
                    self.keep(LineKind::Match, first + offset, line);
                }
            }
        }
        Ok(true)
    }

    fn context(&mut self, _: &Searcher, context: &SinkContext<'_>) -> Result<bool, Self::Error> {
        let number = context.line_number().unwrap_or(0);
        self.keep(LineKind::Context, number, context.bytes());
        Ok(!self.stop.is_raised())
    }

    fn context_break(&mut self, _: &Searcher) -> Result<bool, Self::Error> {
        if self
            .lines
            .last()
            .is_some_and(|line| line.kind != LineKind::Break)
        {
            self.keep(LineKind::Break, 0, b"--");
        }
        Ok(true)
    }

    fn binary_data(&mut self, _: &Searcher, _: u64) -> Result<bool, Self::Error> {
        self.binary = true;
        Ok(false)
    }

    fn finish(&mut self, _: &Searcher, _: &SinkFinish) -> Result<(), Self::Error> {
        // A group cut off by the line cap can leave a dangling break.
        if self.lines.last().is_some_and(|l| l.kind == LineKind::Break) {
            self.lines.pop();
        }
        Ok(())
    }
}

/// A line as text: terminator removed, invalid UTF-8 shown as U+FFFD, cut at
/// [`MAX_LINE_CHARS`] with a marker giving its length.
pub(super) fn clip(bytes: &[u8]) -> String {
    let bytes = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    let bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
    let line = String::from_utf8_lossy(bytes);
    let kept = take_chars(&line, MAX_LINE_CHARS);
    if kept.len() == line.len() {
        return line.into_owned();
    }
    format!("{kept} … [line truncated: {} chars]", line.chars().count())
}

/// The files with matches, gathered from all walker threads.
#[derive(Debug)]
pub(super) struct Collector {
    mode: OutputMode,
    /// Content mode: output lines that can be shown; `None` for no cap.
    line_cap: Option<usize>,
    files: Vec<FileHits>,
    /// Lines held in `files` (content mode).
    held_lines: usize,
    /// Content mode, once the held lines fill the cap: the last path that can still be shown.
    /// Files sorting after it are only counted.
    last_shown: Option<PathBuf>,
    /// Files with matches, including those dropped from `files`.
    pub total_files: usize,
    /// Matching lines in all files, including those dropped from `files`.
    pub total_matches: u64,
}

impl Collector {
    /// An empty collector; `line_cap` is the content-mode output cap.
    pub fn new(mode: OutputMode, line_cap: Option<usize>) -> Self {
        Self {
            mode,
            line_cap,
            files: Vec::new(),
            held_lines: 0,
            last_shown: None,
            total_files: 0,
            total_matches: 0,
        }
    }

    /// Whether lines of the file at `path` can still be shown (content mode); a searcher need
    /// not keep the lines of a file that cannot.
    pub fn shows(&self, path: &Path) -> bool {
        self.last_shown.as_deref().is_none_or(|last| path <= last)
    }

    /// Takes one file's hits.
    pub fn add(&mut self, hits: FileHits) {
        self.total_files += 1;
        self.total_matches += hits.count;
        if !self.shows(&hits.path) {
            return;
        }
        self.held_lines += hits.lines.len();
        self.files.push(hits);
        if let (OutputMode::Content, Some(cap)) = (self.mode, self.line_cap)
            && self.held_lines > cap.saturating_mul(2).max(cap + 1)
        {
            self.drop_past(cap);
        }
    }

    /// Content mode: keeps only the files (in path order) that start before output line `cap`.
    /// Runs when twice the cap is held, so its sorting is paid once per `cap` lines.
    fn drop_past(&mut self, cap: usize) {
        self.files.sort_unstable_by(|a, b| a.path.cmp(&b.path));
        let mut before = 0;
        let keep = self
            .files
            .iter()
            .take_while(|file| {
                let starts_before_cap = before < cap;
                before += file.lines.len();
                starts_before_cap
            })
            .count();
        self.files.truncate(keep);
        self.held_lines = self.files.iter().map(|f| f.lines.len()).sum();
        if self.held_lines >= cap {
            self.last_shown = self.files.last().map(|f| f.path.clone());
        }
    }

    /// The files kept, in no particular order.
    pub fn into_files(self) -> Vec<FileHits> {
        self.files
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn hits(path: &str, lines: usize) -> FileHits {
        FileHits {
            path: PathBuf::from(path),
            mtime: None,
            count: lines as u64,
            lines: (1..=lines as u64)
                .map(|number| Line {
                    kind: LineKind::Match,
                    number,
                    text: "x".into(),
                })
                .collect(),
            lines_dropped: false,
        }
    }

    #[test]
    fn clip_drops_the_terminator_and_cuts_long_lines() {
        assert_eq!(clip(b"let x = 1;\r\n"), "let x = 1;");
        let long = "y".repeat(MAX_LINE_CHARS + 1);
        assert_eq!(
            clip(long.as_bytes()),
            format!(
                "{} … [line truncated: 501 chars]",
                "y".repeat(MAX_LINE_CHARS)
            )
        );
    }

    #[test]
    fn content_collector_drops_files_that_sort_past_the_cap_but_counts_them() {
        let mut collector = Collector::new(OutputMode::Content, Some(3));
        for path in ["d", "a", "c", "b"] {
            collector.add(hits(path, 2));
        }
        assert_eq!(collector.total_files, 4);
        assert_eq!(collector.total_matches, 8);
        let mut kept: Vec<_> = collector
            .into_files()
            .into_iter()
            .map(|f| f.path.to_string_lossy().into_owned())
            .collect();
        kept.sort();
        assert_eq!(kept, vec!["a", "b"], "c would start at output line 5");
    }

    #[test]
    fn files_past_the_last_shown_one_are_only_counted() {
        let mut collector = Collector::new(OutputMode::Content, Some(2));
        for path in ["b", "c", "d"] {
            collector.add(hits(path, 2));
        }
        assert!(collector.shows(Path::new("a")));
        assert!(!collector.shows(Path::new("c")));
        collector.add(hits("e", 2));
        assert_eq!(collector.total_matches, 8);
        assert_eq!(collector.into_files().len(), 1);
    }

    #[test]
    fn uncapped_collector_keeps_everything() {
        let mut collector = Collector::new(OutputMode::Content, None);
        for path in ["a", "b", "c"] {
            collector.add(hits(path, 5));
        }
        assert_eq!(collector.into_files().len(), 3);
    }
}
