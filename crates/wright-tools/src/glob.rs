//! The Glob tool: files whose path matches a glob, newest first, over a `.gitignore`-aware walk.
//!
//! The pattern is matched against each file's path relative to the search directory with the
//! usual glob rules: `*` and `?` stay within one path component, `**` spans directories, `{a,b}`
//! alternates. So `*.rs` finds top-level files only and `**/*.rs` finds them at any depth.
//! Hidden files and directories are skipped as ripgrep and fd skip them, unless a component of
//! the pattern itself starts with `.` (`.github/**/*.yml`, `**/.env*`): naming a dot-file is
//! asking for it. `.git` is never listed.

use std::path::Path;
use std::sync::{Mutex, PoisonError};

use globset::{GlobBuilder, GlobMatcher};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use wright_protocol::{ErrorCode, ToolError, ToolResult};

use crate::args::{Typed, invalid, schema_of};
use crate::data::{GlobData, to_value};
use crate::walk::{
    Found, StopFlag, project_walker, resolve_existing, run_blocking, sort_newest_first, visit_files,
};
use crate::{Prepared, Tool, ToolContext, ToolKind, failure};

/// Files shown at most (the newest); the rest are counted and `truncated` is set.
const MAX_FILES: usize = 100;

const SHAPE: &str = r#"{"pattern": string, "path"?: string}"#;

/// Finds files by glob pattern, newest first.
#[derive(Debug, Clone, Copy, Default)]
pub struct GlobTool;

#[derive(Debug, Deserialize, JsonSchema)]
struct GlobArgs {
    pattern: String,
    path: Option<String>,
}

impl Tool for GlobTool {
    fn name(&self) -> &'static str {
        "Glob"
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Read
    }

    fn description(&self) -> &'static str {
        include_str!("../../../prompts/tools/glob.md")
    }

    fn schema(&self) -> Value {
        schema_of::<GlobArgs>()
    }

    fn prepare(&self, args: Value, _: &ToolContext) -> Result<Box<dyn Prepared>, ToolError> {
        Typed::prepare("Glob", args, SHAPE, |args, ctx| Box::pin(glob(args, ctx)))
    }
}

async fn glob(args: GlobArgs, ctx: &ToolContext) -> Result<ToolResult, ToolError> {
    let pattern = normalise(&args.pattern);
    if pattern.is_empty() {
        return Err(invalid("Glob", "`pattern` is empty", SHAPE));
    }
    let matcher = compile(pattern)?;
    let (dir, meta) = resolve_existing(ctx, args.path.as_deref())?;
    let shown_dir = ctx.display_path(&dir);
    if !meta.is_dir() {
        return Err(failure(
            ErrorCode::InvalidArguments,
            format!(
                "`path` {shown_dir} is a file, not a directory; give the directory to search in"
            ),
        ));
    }
    let absolute = Path::new(pattern).is_absolute();
    let include_hidden = names_a_hidden_file(pattern);
    let mut files = run_blocking("Glob", ctx.cancellation(), move |stop| {
        Ok(find(&dir, &matcher, absolute, include_hidden, stop))
    })
    .await?;
    sort_newest_first(&mut files);

    let total = files.len();
    let truncated = total > MAX_FILES;
    let shown: Vec<String> = files
        .iter()
        .take(MAX_FILES)
        .map(|f| ctx.display_path(&f.path))
        .collect();
    let text = render(pattern, &shown, total);
    let data = GlobData {
        pattern: args.pattern,
        path: shown_dir,
        files: shown,
        total,
        truncated,
    };
    Ok(ToolResult::success(text, to_value(&data)))
}

/// The pattern without surrounding space or a leading `./` (which the paths matched never have).
fn normalise(pattern: &str) -> &str {
    let mut pattern = pattern.trim();
    while let Some(rest) = pattern.strip_prefix("./") {
        pattern = rest;
    }
    pattern
}

/// Compiles the glob with path-aware rules (`*` does not cross `/`).
fn compile(pattern: &str) -> Result<GlobMatcher, ToolError> {
    GlobBuilder::new(pattern)
        .literal_separator(true)
        .build()
        .map(|glob| glob.compile_matcher())
        .map_err(|err| {
            failure(
                ErrorCode::InvalidPattern,
                format!(
                    "{err}; Glob takes patterns such as \"**/*.rs\" or \"src/**/*.{{ts,tsx}}\""
                ),
            )
        })
}

/// Whether a component of the pattern starts with `.` (other than `.` and `..`), which asks
/// for hidden files.
fn names_a_hidden_file(pattern: &str) -> bool {
    pattern
        .split(['/', '\\'])
        .any(|part| part.starts_with('.') && part != "." && part != "..")
}

/// Walks `dir` and returns the files whose path (relative to `dir`, or absolute when the pattern
/// is absolute) matches, with their mtimes.
fn find(
    dir: &Path,
    matcher: &GlobMatcher,
    absolute: bool,
    include_hidden: bool,
    stop: &StopFlag,
) -> Vec<Found> {
    let found = Mutex::new(Vec::new());
    let walker = project_walker(dir, include_hidden);
    visit_files(&walker, stop, || {
        |entry: &ignore::DirEntry| {
            let path = entry.path();
            let subject = if absolute {
                path
            } else {
                path.strip_prefix(dir).unwrap_or(path)
            };
            if matcher.is_match(subject) {
                let file = Found::stat(path.to_path_buf());
                found
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .push(file);
            }
        }
    });
    found.into_inner().unwrap_or_else(PoisonError::into_inner)
}

/// The paths one per line, with a last line saying how many there were when some are not shown.
fn render(pattern: &str, shown: &[String], total: usize) -> String {
    if total == 0 {
        let mut text = String::from("No files matched");
        if !pattern.contains('/') && !pattern.starts_with("**") {
            text.push_str(&format!(
                " (`*` does not cross directories: use \"**/{pattern}\" to match at any depth)"
            ));
        }
        return text;
    }
    let mut text = shown.join("\n");
    if shown.len() < total {
        text.push_str(&format!(
            "\n[showing the {} newest of {total} matching files; narrow the pattern or path to \
             see the rest]",
            shown.len()
        ));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn leading_dot_slash_and_space_are_dropped() {
        assert_eq!(normalise(" ./././src/*.rs "), "src/*.rs");
        assert_eq!(normalise("**/*.rs"), "**/*.rs");
    }

    #[test]
    fn star_stays_within_one_directory() {
        let matcher = compile("*.rs").unwrap();
        assert!(matcher.is_match("main.rs"));
        assert!(!matcher.is_match("src/main.rs"));
        assert!(compile("**/*.rs").unwrap().is_match("src/bin/main.rs"));
    }

    #[test]
    fn dot_components_ask_for_hidden_files() {
        assert!(names_a_hidden_file(".github/**/*.yml"));
        assert!(names_a_hidden_file("**/.env*"));
        assert!(!names_a_hidden_file("./src/*.rs"));
        assert!(!names_a_hidden_file("../x/*.rs"));
        assert!(!names_a_hidden_file("**/*.rs"));
    }

    #[test]
    fn no_match_hints_at_double_star_for_a_bare_pattern() {
        assert_eq!(
            render("*.rs", &[], 0),
            "No files matched (`*` does not cross directories: use \"**/*.rs\" to match at any \
             depth)"
        );
        assert_eq!(render("src/*.rs", &[], 0), "No files matched");
    }
}
