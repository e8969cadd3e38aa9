//! The Grep tool: ripgrep's engine in-process (CRATES.md 5a) over the project walk.
//!
//! grep-regex compiles the pattern, grep-searcher reads each file (binary files, those with a NUL
//! byte, are skipped), and the walk honours `.gitignore` and skips hidden files like `rg` does
//! (see [`crate::walk`]). Files are searched in parallel, one searcher per walker thread.
//!
//! Ordering: `files_with_matches` lists files newest first (like Claude Code: the files being
//! worked on come first, and the cap cuts old ones); `content` and `count` go by path, so the
//! output reads like `rg --sort path` and is the same on every run.

mod collect;

use std::path::Path;
use std::sync::{Mutex, PoisonError};

use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{BinaryDetection, MmapChoice, SearcherBuilder};
use ignore::WalkBuilder;
use ignore::overrides::OverrideBuilder;
use ignore::types::TypesBuilder;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use wright_protocol::{ErrorCode, ToolError, ToolResult};

use crate::args::{Typed, invalid, schema_of};
use crate::data::{GrepCount, GrepData, GrepMatch, to_value};
use crate::walk::{
    Found, StopFlag, project_walker, resolve_existing, run_blocking, sort_newest_first, visit_files,
};
use crate::{Prepared, Tool, ToolContext, ToolKind, failure};
use collect::{Collector, FileHits, FileSink, Line, LineKind};

/// Files listed by default in `files_with_matches` mode.
const DEFAULT_FILES_LIMIT: usize = 200;
/// Output lines shown by default in `content` mode.
const DEFAULT_CONTENT_LIMIT: usize = 500;
/// Files listed by default in `count` mode.
const DEFAULT_COUNT_LIMIT: usize = 200;

const SHAPE: &str = r#"{"pattern": string, "path"?: string, "glob"?: string, "type"?: string, "output_mode"?: "files_with_matches"|"content"|"count", "-i"?: bool, "-n"?: bool, "-A"?: int, "-B"?: int, "-C"?: int, "multiline"?: bool, "head_limit"?: int}"#;

/// Searches file contents with a regular expression.
#[derive(Debug, Clone, Copy, Default)]
pub struct GrepTool;

/// What Grep reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum OutputMode {
    /// The paths of the files with a match.
    #[default]
    FilesWithMatches,
    /// The matching lines (and context), `rg`-style.
    Content,
    /// Matching lines per file.
    Count,
}

impl OutputMode {
    fn as_str(self) -> &'static str {
        match self {
            OutputMode::FilesWithMatches => "files_with_matches",
            OutputMode::Content => "content",
            OutputMode::Count => "count",
        }
    }

    fn default_limit(self) -> usize {
        match self {
            OutputMode::FilesWithMatches => DEFAULT_FILES_LIMIT,
            OutputMode::Content => DEFAULT_CONTENT_LIMIT,
            OutputMode::Count => DEFAULT_COUNT_LIMIT,
        }
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
struct GrepArgs {
    pattern: String,
    path: Option<String>,
    glob: Option<String>,
    #[serde(rename = "type")]
    file_type: Option<String>,
    #[serde(default)]
    output_mode: OutputMode,
    #[serde(rename = "-i", default)]
    case_insensitive: bool,
    #[serde(rename = "-n")]
    line_numbers: Option<bool>,
    #[serde(rename = "-A")]
    after: Option<u64>,
    #[serde(rename = "-B")]
    before: Option<u64>,
    #[serde(rename = "-C")]
    context: Option<u64>,
    #[serde(default)]
    multiline: bool,
    /// 0 means no cap.
    head_limit: Option<u64>,
}

impl GrepArgs {
    /// The output cap (lines in content mode, files otherwise); `None` for no cap.
    fn limit(&self) -> Option<usize> {
        match self.head_limit {
            None => Some(self.output_mode.default_limit()),
            Some(0) => None,
            Some(n) => Some(usize::try_from(n).unwrap_or(usize::MAX)),
        }
    }

    /// Lines of context before and after each match; `-A`/`-B` win over `-C`, as in `rg`.
    fn context(&self) -> (usize, usize) {
        if self.output_mode != OutputMode::Content {
            return (0, 0);
        }
        let lines = |n: Option<u64>| usize::try_from(n.or(self.context).unwrap_or(0)).unwrap_or(0);
        (lines(self.before), lines(self.after))
    }
}

impl Tool for GrepTool {
    fn name(&self) -> &'static str {
        "Grep"
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Read
    }

    fn description(&self) -> &'static str {
        include_str!("../../../prompts/tools/grep.md")
    }

    fn schema(&self) -> Value {
        schema_of::<GrepArgs>()
    }

    fn prepare(&self, args: Value, _: &ToolContext) -> Result<Box<dyn Prepared>, ToolError> {
        Typed::prepare("Grep", args, SHAPE, |args, ctx| Box::pin(grep(args, ctx)))
    }
}

async fn grep(args: GrepArgs, ctx: &ToolContext) -> Result<ToolResult, ToolError> {
    if args.pattern.is_empty() {
        return Err(invalid("Grep", "`pattern` is empty", SHAPE));
    }
    let matcher = compile(&args.pattern, args.case_insensitive, args.multiline)?;
    let (target, _) = resolve_existing(ctx, args.path.as_deref())?;
    let walker = walker(ctx, &target, &args)?;
    let (before, after) = args.context();
    let mut searcher = SearcherBuilder::new();
    searcher
        // Counting lines costs time on every match; only content mode shows them.
        .line_number(args.output_mode == OutputMode::Content)
        .multi_line(args.multiline)
        .before_context(before)
        .after_context(after)
        .binary_detection(BinaryDetection::quit(b'\0'))
        .memory_map(MmapChoice::never());

    let (mode, limit) = (args.output_mode, args.limit());
    let collector = run_blocking("Grep", ctx.cancellation(), move |stop| {
        Ok(search(&walker, &searcher, &matcher, mode, limit, stop))
    })
    .await?;

    let report = Report {
        total_files: collector.total_files,
        total_matches: collector.total_matches,
        files: collector.into_files(),
        limit,
    };
    let display = |path: &Path| ctx.display_path(path);
    let (text, mut data) = match mode {
        OutputMode::FilesWithMatches => report.files_with_matches(&display),
        OutputMode::Count => report.count(&display),
        OutputMode::Content => report.content(
            &display,
            args.line_numbers.unwrap_or(true),
            before + after > 0,
        ),
    };
    data.pattern = args.pattern;
    data.mode = mode.as_str().to_string();
    Ok(ToolResult::success(text, to_value(&data)))
}

/// The project walk over `target` with the `glob` and `type` filters. Globs are matched
/// relative to the project root, as `rg -g` run there would.
fn walker(ctx: &ToolContext, target: &Path, args: &GrepArgs) -> Result<WalkBuilder, ToolError> {
    let mut walker = project_walker(target, false);
    if let Some(glob) = args
        .glob
        .as_deref()
        .map(str::trim)
        .filter(|g| !g.is_empty())
    {
        let overrides = OverrideBuilder::new(ctx.root())
            .add(glob)
            .and_then(|builder| builder.build())
            .map_err(|err| {
                failure(
                    ErrorCode::InvalidPattern,
                    format!(
                        "invalid `glob`: {err}; use a glob such as \"*.rs\" or \"src/**/*.ts\""
                    ),
                )
            })?;
        walker.overrides(overrides);
    }
    if let Some(name) = args.file_type.as_deref() {
        let types = TypesBuilder::new()
            .add_defaults()
            .select(name)
            .build()
            .map_err(|err| {
                let problem = format!(
                    "`type`: {err} (known types include rust, py, js, ts, go, java, c, cpp, md, \
                     json, toml, yaml)"
                );
                invalid("Grep", &problem, SHAPE)
            })?;
        walker.types(types);
    }
    Ok(walker)
}

/// Searches every file of the walk in parallel, one searcher per walker thread, and gathers
/// the files with matches. Stops early (with partial results) once `stop` is raised.
fn search(
    walker: &WalkBuilder,
    searcher: &SearcherBuilder,
    matcher: &RegexMatcher,
    mode: OutputMode,
    limit: Option<usize>,
    stop: &StopFlag,
) -> Collector {
    let collector = Mutex::new(Collector::new(mode, limit));
    // A file can never show more lines than the whole output may hold.
    let line_cap = match mode {
        OutputMode::Content => limit.unwrap_or(usize::MAX),
        OutputMode::FilesWithMatches | OutputMode::Count => 0,
    };
    visit_files(walker, stop, || {
        let mut searcher = searcher.build();
        let matcher = matcher.clone();
        let collector = &collector;
        move |entry: &ignore::DirEntry| {
            let shown = mode != OutputMode::Content || lock(collector).shows(entry.path());
            let mut sink = FileSink::new(mode, if shown { line_cap } else { 0 }, stop);
            // An unreadable file is skipped, as ripgrep does (it only warns on stderr).
            if searcher
                .search_path(&matcher, entry.path(), &mut sink)
                .is_ok()
                && let Some(hits) = sink.into_hits(entry.path())
            {
                lock(collector).add(hits);
            }
        }
    });
    collector
        .into_inner()
        .unwrap_or_else(PoisonError::into_inner)
}

/// The collector, even if a walker thread panicked while holding it.
fn lock(collector: &Mutex<Collector>) -> std::sync::MutexGuard<'_, Collector> {
    collector.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Compiles the pattern as `rg` does: `^`/`$` match at line boundaries, and unless `multiline`
/// is set no match can span a line (which lets the searcher skip line-by-line matching).
fn compile(
    pattern: &str,
    case_insensitive: bool,
    multiline: bool,
) -> Result<RegexMatcher, ToolError> {
    let mut builder = RegexMatcherBuilder::new();
    builder.multi_line(true).case_insensitive(case_insensitive);
    if multiline {
        builder.dot_matches_new_line(true);
    } else {
        builder.line_terminator(Some(b'\n'));
    }
    builder.build(pattern).map_err(|err| {
        let hint = if !multiline && pattern.contains("\\n") {
            "; to match across lines set \"multiline\": true"
        } else {
            "; escape regex characters such as ( [ { . * + ? | with \\ to search for them literally"
        };
        failure(
            ErrorCode::InvalidPattern,
            format!(
                "invalid regex `{pattern}`: {}{hint}",
                err.to_string().trim_end()
            ),
        )
    })
}

/// The files with matches and the totals, ready to render.
struct Report {
    files: Vec<FileHits>,
    total_files: usize,
    total_matches: u64,
    /// The output cap; `None` for no cap.
    limit: Option<usize>,
}

/// "No matches found", the text of every mode when nothing matched.
const NO_MATCHES: &str = "No matches found";

/// Advice appended when the output is cut.
const NARROW: &str = "narrow with path, glob or type, or set head_limit";

impl Report {
    fn shown_files(&self) -> usize {
        self.limit
            .map_or(self.files.len(), |cap| cap.min(self.files.len()))
    }

    /// Files mode: `Found N files` and the paths, newest first.
    fn files_with_matches(mut self, display: &dyn Fn(&Path) -> String) -> (String, GrepData) {
        let mut found: Vec<Found> = self
            .files
            .drain(..)
            .map(|f| Found {
                path: f.path,
                mtime: f.mtime,
            })
            .collect();
        sort_newest_first(&mut found);
        let shown = self.limit.map_or(found.len(), |cap| cap.min(found.len()));
        let paths: Vec<String> = found[..shown].iter().map(|f| display(&f.path)).collect();
        let truncated = shown < self.total_files;
        let text = if self.total_files == 0 {
            NO_MATCHES.to_string()
        } else {
            let mut header = format!("Found {} (newest first)", files_phrase(self.total_files));
            if truncated {
                header.push_str(&format!("; showing the first {shown} — {NARROW}"));
            }
            format!("{header}\n{}", paths.join("\n"))
        };
        let data = GrepData {
            files: Some(paths),
            total_files: self.total_files,
            truncated,
            ..GrepData::default()
        };
        (text, data)
    }

    /// Count mode: `path:count` lines by path, then the totals.
    fn count(mut self, display: &dyn Fn(&Path) -> String) -> (String, GrepData) {
        self.files.sort_unstable_by(|a, b| a.path.cmp(&b.path));
        let shown = self.shown_files();
        let counts: Vec<(String, u64)> = self.files[..shown]
            .iter()
            .map(|f| (display(&f.path), f.count))
            .collect();
        let truncated = shown < self.total_files;
        let text = if self.total_files == 0 {
            NO_MATCHES.to_string()
        } else {
            let mut text: String = counts
                .iter()
                .map(|(file, count)| format!("{file}:{count}\n"))
                .collect();
            text.push_str(&format!(
                "Found {} in {}",
                lines_phrase(self.total_matches),
                files_phrase(self.total_files)
            ));
            if truncated {
                text.push_str(&format!("; showing the first {shown} files — {NARROW}"));
            }
            text
        };
        let data = GrepData {
            counts: Some(
                counts
                    .into_iter()
                    .map(|(file, count)| GrepCount { file, count })
                    .collect(),
            ),
            total_matches: Some(self.total_matches),
            total_files: self.total_files,
            truncated,
            ..GrepData::default()
        };
        (text, data)
    }

    /// Content mode: `path:N:text` for matches, `path-N-text` for context, `--` between
    /// groups that are not adjacent, cut at the line cap.
    fn content(
        mut self,
        display: &dyn Fn(&Path) -> String,
        line_numbers: bool,
        with_context: bool,
    ) -> (String, GrepData) {
        self.files.sort_unstable_by(|a, b| a.path.cmp(&b.path));
        let cap = self.limit.unwrap_or(usize::MAX);
        let mut out: Vec<String> = Vec::new();
        let mut matches = Vec::new();
        let mut cut = false;
        'files: for (index, file) in self.files.iter().enumerate() {
            let shown = display(&file.path);
            if with_context && index > 0 {
                if out.len() >= cap {
                    cut = true;
                    break;
                }
                out.push("--".to_string());
            }
            for line in &file.lines {
                if out.len() >= cap {
                    cut = true;
                    break 'files;
                }
                out.push(render_line(&shown, line, line_numbers));
                if line.kind == LineKind::Match {
                    matches.push(GrepMatch {
                        file: shown.clone(),
                        line: line.number,
                        text: line.text.clone(),
                    });
                }
            }
        }
        // Files dropped while collecting, and lines a file could not keep, lay past the cap.
        let truncated = cut
            || self.files.len() < self.total_files
            || self.files.iter().any(|f| f.lines_dropped);
        let text = if self.total_files == 0 {
            NO_MATCHES.to_string()
        } else {
            let mut text = out.join("\n");
            if truncated {
                text.push_str(&format!(
                    "\n[output cut at {} lines; {} in {} in all — {NARROW}]",
                    out.len(),
                    lines_phrase(self.total_matches),
                    files_phrase(self.total_files)
                ));
            }
            text
        };
        let data = GrepData {
            matches: Some(matches),
            total_matches: Some(self.total_matches),
            total_files: self.total_files,
            truncated,
            ..GrepData::default()
        };
        (text, data)
    }
}

/// One line of content output: `path:N:text`, `path-N-text` (context) or `--`.
fn render_line(shown: &str, line: &Line, line_numbers: bool) -> String {
    let (number, text) = (line.number, &line.text);
    match (line.kind, line_numbers) {
        (LineKind::Break, _) => "--".to_string(),
        (LineKind::Match, true) => format!("{shown}:{number}:{text}"),
        (LineKind::Match, false) => format!("{shown}:{text}"),
        (LineKind::Context, true) => format!("{shown}-{number}-{text}"),
        (LineKind::Context, false) => format!("{shown}-{text}"),
    }
}

/// `1 file`, `3 files`.
fn files_phrase(n: usize) -> String {
    if n == 1 {
        "1 file".into()
    } else {
        format!("{n} files")
    }
}

/// `1 matching line`, `3 matching lines`.
fn lines_phrase(n: u64) -> String {
    if n == 1 {
        "1 matching line".into()
    } else {
        format!("{n} matching lines")
    }
}
