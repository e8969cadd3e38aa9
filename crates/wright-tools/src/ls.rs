//! The LS tool: the entries of one directory, directories first, with kinds and sizes.

use std::cmp::Ordering;
use std::fs::Metadata;
use std::path::Path;

use globset::{Glob, GlobSet, GlobSetBuilder};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use wright_protocol::{ErrorCode, ToolError, ToolResult};

use crate::args::{Typed, schema_of};
use crate::data::{EntryKind, LsData, LsEntry, to_value};
use crate::walk::{GIT_DIR, StopFlag, resolve_existing, run_blocking};
use crate::{Prepared, Tool, ToolContext, ToolKind, failure};

/// Entries shown at most; the rest are counted and `truncated` is set.
const MAX_ENTRIES: usize = 1000;

const SHAPE: &str = r#"{"path"?: string, "ignore"?: [glob]}"#;

/// Lists one directory: subdirectories, files and symlinks with their sizes.
#[derive(Debug, Clone, Copy, Default)]
pub struct LsTool;

#[derive(Debug, Deserialize, JsonSchema)]
struct LsArgs {
    path: Option<String>,
    #[serde(default)]
    ignore: Vec<String>,
}

/// A directory entry (`data.entries`): a symlink is not followed, so a link to a directory is
/// a `symlink`, not a `dir`.
type Entry = LsEntry;
/// What a directory entry is.
type Kind = EntryKind;

impl Tool for LsTool {
    fn name(&self) -> &'static str {
        "LS"
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Read
    }

    fn description(&self) -> &'static str {
        include_str!("../../../prompts/tools/ls.md")
    }

    fn schema(&self) -> Value {
        schema_of::<LsArgs>()
    }

    fn prepare(&self, args: Value, _: &ToolContext) -> Result<Box<dyn Prepared>, ToolError> {
        Typed::prepare("LS", args, SHAPE, |args, ctx| Box::pin(ls(args, ctx)))
    }
}

async fn ls(args: LsArgs, ctx: &ToolContext) -> Result<ToolResult, ToolError> {
    let ignore = ignore_set(&args.ignore)?;
    let (dir, meta) = resolve_existing(ctx, args.path.as_deref())?;
    let shown = ctx.display_path(&dir);
    if !meta.is_dir() {
        return Err(failure(
            ErrorCode::InvalidArguments,
            format!("{shown} is a file, not a directory; use the Read tool to see its content"),
        ));
    }
    let error_name = shown.clone();
    let mut entries = run_blocking("LS", ctx.cancellation(), move |stop| {
        list(&dir, &error_name, &ignore, stop)
    })
    .await?;
    entries.sort_by(directories_first);

    let total = entries.len();
    let dirs = entries.iter().filter(|e| e.kind == Kind::Dir).count();
    let truncated = total > MAX_ENTRIES;
    entries.truncate(MAX_ENTRIES);
    let text = render(&shown, &entries, total, dirs);
    let data = LsData {
        path: shown,
        entries,
        total,
        dirs,
        files: total - dirs,
        truncated,
    };
    Ok(ToolResult::success(text, to_value(&data)))
}

/// The `ignore` globs as one set, matched against entry names.
fn ignore_set(globs: &[String]) -> Result<GlobSet, ToolError> {
    let mut set = GlobSetBuilder::new();
    for glob in globs {
        let glob = Glob::new(glob.trim_end_matches('/')).map_err(|err| {
            failure(
                ErrorCode::InvalidPattern,
                format!("{err}; `ignore` takes globs such as \"*.log\" or \"node_modules\""),
            )
        })?;
        set.add(glob);
    }
    set.build()
        .map_err(|err| failure(ErrorCode::InvalidPattern, err.to_string()))
}

/// Reads `dir` (`shown` in messages), leaving out `.git` and names matching `ignore`.
fn list(
    dir: &Path,
    shown: &str,
    ignore: &GlobSet,
    stop: &StopFlag,
) -> Result<Vec<Entry>, ToolError> {
    let io_error =
        |err: std::io::Error| failure(ErrorCode::Io, format!("cannot list {shown}: {err}"));
    let mut entries = Vec::new();
    for item in std::fs::read_dir(dir).map_err(io_error)? {
        if stop.is_raised() {
            // `run_blocking` reports the interruption.
            break;
        }
        // An entry deleted while we read is simply not listed.
        let Ok(item) = item else { continue };
        let name = item.file_name().to_string_lossy().into_owned();
        if name == GIT_DIR || ignore.is_match(&name) {
            continue;
        }
        let Ok(meta) = item.metadata() else { continue };
        entries.push(entry(name, &item.path(), &meta));
    }
    Ok(entries)
}

/// The entry for `path`, whose metadata (not following symlinks) is `meta`.
fn entry(name: String, path: &Path, meta: &Metadata) -> Entry {
    let kind = if meta.is_symlink() {
        Kind::Symlink
    } else if meta.is_dir() {
        Kind::Dir
    } else {
        Kind::File
    };
    let target = (kind == Kind::Symlink)
        .then(|| std::fs::read_link(path).ok())
        .flatten()
        .map(|target| target.to_string_lossy().into_owned());
    Entry {
        name,
        kind,
        size: (kind == Kind::File).then_some(meta.len()),
        target,
    }
}

/// Directories first, then everything else; alphabetical within each, ignoring case (ties by
/// exact bytes, so the order is total).
fn directories_first(a: &Entry, b: &Entry) -> Ordering {
    let is_file = |e: &Entry| e.kind != Kind::Dir;
    is_file(a)
        .cmp(&is_file(b))
        .then_with(|| a.name.to_lowercase().cmp(&b.name.to_lowercase()))
        .then_with(|| a.name.cmp(&b.name))
}

/// The header line and one line per entry: `name/` for directories, `name (1.2 KB)` for files,
/// `name -> target` for symlinks.
fn render(shown: &str, entries: &[Entry], total: usize, dirs: usize) -> String {
    let files = total - dirs;
    let mut text = format!(
        "{}/ ({} {}, {} {})",
        shown.trim_end_matches('/'),
        dirs,
        if dirs == 1 { "dir" } else { "dirs" },
        files,
        if files == 1 { "file" } else { "files" },
    );
    if entries.is_empty() {
        text.push_str("\n(empty directory)");
    }
    for entry in entries {
        text.push('\n');
        text.push_str(&entry.name);
        match (entry.kind, entry.size, &entry.target) {
            (Kind::Dir, _, _) => text.push('/'),
            (Kind::File, Some(size), _) => {
                text.push_str(&format!(" ({})", human_size(size)));
            }
            (Kind::Symlink, _, Some(target)) => text.push_str(&format!(" -> {target}")),
            _ => {}
        }
    }
    if entries.len() < total {
        text.push_str(&format!(
            "\n[showing the first {} of {total} entries; pass `ignore` globs or list a \
             subdirectory to see the rest]",
            entries.len()
        ));
    }
    text
}

/// `512 B`, `1.5 KB`, `3.0 MB`: powers of 1024, one decimal from KB up.
fn human_size(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["KB", "MB", "GB", "TB", "PB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    // Precision loss above 2^53 bytes does not matter for one decimal.
    #[allow(clippy::cast_precision_loss)]
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn file(name: &str, size: u64) -> Entry {
        Entry {
            name: name.into(),
            kind: Kind::File,
            size: Some(size),
            target: None,
        }
    }

    fn dir(name: &str) -> Entry {
        Entry {
            name: name.into(),
            kind: Kind::Dir,
            size: None,
            target: None,
        }
    }

    #[test]
    fn sizes_are_human_readable() {
        assert_eq!(human_size(0), "0 B");
        assert_eq!(human_size(1023), "1023 B");
        assert_eq!(human_size(1536), "1.5 KB");
        assert_eq!(human_size(3 * 1024 * 1024), "3.0 MB");
    }

    #[test]
    fn directories_come_first_then_names_ignoring_case() {
        let mut entries = [file("b.rs", 1), dir("src"), file("A.md", 1), dir("Docs")];
        entries.sort_by(directories_first);
        let names: Vec<_> = entries.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, vec!["Docs", "src", "A.md", "b.rs"]);
    }

    #[test]
    fn render_marks_directories_and_sizes_files() {
        let entries = vec![dir("src"), file("Cargo.toml", 2048)];
        assert_eq!(
            render(".", &entries, 2, 1),
            "./ (1 dir, 1 file)\nsrc/\nCargo.toml (2.0 KB)"
        );
    }

    #[test]
    fn render_says_when_the_list_is_cut() {
        let entries = vec![file("a", 1)];
        assert_eq!(
            render("src", &entries, 3, 0),
            "src/ (0 dirs, 3 files)\na (1 B)\n[showing the first 1 of 3 entries; pass `ignore` \
             globs or list a subdirectory to see the rest]"
        );
    }
}
