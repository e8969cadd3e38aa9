//! The Write tool: create or overwrite a whole file, atomically (DESIGN §5, §9.4).

use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use futures::future::BoxFuture;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use tokio::io::AsyncReadExt;
use wright_protocol::{ErrorCode, ToolError, ToolResult};

use wright_protocol::text::{plural, take_chars};

use crate::args::{parse_args, schema_of};
use crate::context::Freshness;
use crate::data::{WriteAction, WriteData, to_value};
use crate::diff::DiffReport;
use crate::read::decode;
use crate::text_file::{TextFormat, to_lf};
use crate::{Prepared, Tool, ToolContext, ToolKind, error_result, failure};

const SHAPE: &str = r#"{"file_path": string, "content": string}"#;
/// Spec A3: the written content is kept in history as its first lines only.
const HEAD_LINES: usize = 50;
/// Characters of one line kept in the head (minified files must not bloat history).
const MAX_HEAD_LINE_CHARS: usize = 500;
/// How much of an existing file is looked at to keep its BOM and line endings.
const FORMAT_SNIFF_BYTES: u64 = 64 * 1024;

/// Creates a file, or replaces an existing file's whole content.
#[derive(Debug, Clone, Copy, Default)]
pub struct WriteTool;

#[derive(Debug, Deserialize, JsonSchema)]
struct WriteArgs {
    file_path: String,
    content: String,
}

impl Tool for WriteTool {
    fn name(&self) -> &'static str {
        "Write"
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Edit
    }

    fn description(&self) -> &'static str {
        include_str!("../../../prompts/tools/write.md")
    }

    fn schema(&self) -> Value {
        schema_of::<WriteArgs>()
    }

    fn prepare(&self, args: Value, _: &ToolContext) -> Result<Box<dyn Prepared>, ToolError> {
        let args: WriteArgs = parse_args("Write", args, SHAPE)?;
        Ok(Box::new(WriteCall(args)))
    }
}

/// A Write call. Its checks run again when it runs (they are cheap, and whether the file
/// exists may have changed while the user looked at the preview).
struct WriteCall(WriteArgs);

impl Prepared for WriteCall {
    fn writes(&self) -> Option<&str> {
        Some(&self.0.file_path)
    }

    /// The unified diff from the file on disk (nothing, for a new file) to the new content.
    fn preview<'a>(&'a mut self, ctx: &'a ToolContext) -> BoxFuture<'a, Option<String>> {
        Box::pin(async move {
            let args = &self.0;
            let planned = plan_write(args, ctx).await.ok()?;
            let old = match planned.existing {
                false => Some(String::new()),
                true => {
                    let bytes = tokio::fs::read(&planned.abs).await.ok()?;
                    decode(&bytes).map(|(text, _)| to_lf(&text).into_owned())
                }
            };
            let new = to_lf(&args.content);
            let report = DiffReport::new(old.as_deref().unwrap_or(""), &new, &planned.shown);
            Some(match old {
                Some(_) => report.diff,
                None => format!(
                    "{} is a binary file; all of it would be replaced by:\n{}",
                    planned.shown, report.diff
                ),
            })
        })
    }

    fn run<'a>(self: Box<Self>, ctx: &'a ToolContext) -> BoxFuture<'a, ToolResult> {
        Box::pin(async move { write(self.0, ctx).await.unwrap_or_else(error_result) })
    }
}

/// A Write whose checks passed, not yet done.
#[derive(Debug, Clone)]
struct PlannedWrite {
    abs: PathBuf,
    shown: String,
    /// Whether a file is there to overwrite.
    existing: bool,
    /// The BOM and line endings the written file gets.
    format: TextFormat,
}

async fn write(args: WriteArgs, ctx: &ToolContext) -> Result<ToolResult, ToolError> {
    let PlannedWrite {
        abs,
        shown,
        existing,
        format,
    } = plan_write(&args, ctx).await?;

    // What the file held, for the diff shown to the user (not to the model: `data.diff` is
    // dropped from history); a binary file gets none.
    let old = match existing {
        false => Some(String::new()),
        true => tokio::fs::read(&abs)
            .await
            .ok()
            .and_then(|bytes| decode(&bytes).map(|(text, _)| to_lf(&text).into_owned())),
    };
    let content = format.endings(&args.content);
    let bytes = format.encode(&content);
    let byte_count = bytes.len();
    // Creates missing directories; a symlink swapped in since plan_write is not followed.
    ctx.write_file_atomically(&abs, bytes)
        .await
        .map_err(|err| failure(ErrorCode::Io, format!("cannot write {shown}: {err}")))?;
    ctx.record_mtime(&abs);

    let action = if existing {
        WriteAction::Overwritten
    } else {
        WriteAction::Created
    };
    let lines = args.content.lines().count();
    let mut text = format!(
        "{} {shown} ({}, {}).",
        if existing { "Overwrote" } else { "Created" },
        plural(lines, "line"),
        plural(byte_count, "byte"),
    );
    match (format.crlf, format.bom) {
        (true, true) => text.push_str(" Kept its CRLF line endings and UTF-8 BOM."),
        (true, false) => text.push_str(" Kept its CRLF line endings."),
        (false, true) => text.push_str(" Kept its UTF-8 BOM."),
        (false, false) => {}
    }
    let (head, truncated) = head(&args.content);
    let diff = old.map(|old| {
        let report = DiffReport::new(&old, &to_lf(&args.content), &shown);
        capped_lines(&report.diff, MAX_DIFF_LINES)
    });
    let data = WriteData {
        file_path: shown,
        action,
        lines,
        bytes: byte_count,
        head,
        truncated,
        diff,
    };
    Ok(ToolResult::success(text, to_value(&data)))
}

/// Lines of a Write's diff kept in its result: enough for any screen, not a whole large file.
const MAX_DIFF_LINES: usize = 400;

/// The first `max` lines of `text`, and a line saying how many more there were.
fn capped_lines(text: &str, max: usize) -> String {
    let total = text.lines().count();
    if total <= max {
        return text.to_string();
    }
    let mut kept: String = text
        .lines()
        .take(max)
        .flat_map(|line| [line, "\n"])
        .collect();
    kept.push_str(&format!("… {} more lines of diff\n", total - max));
    kept
}

/// Every check of a Write, without writing: the path is inside the project and not a
/// directory, an existing file is a regular, writable file that has not changed since the
/// agent last saw it; and the format to keep.
async fn plan_write(args: &WriteArgs, ctx: &ToolContext) -> Result<PlannedWrite, ToolError> {
    let abs = ctx.resolve(&args.file_path)?;
    let shown = ctx.display_path(&abs);
    let is_directory = || {
        failure(
            ErrorCode::IsDirectory,
            format!("{shown} is a directory; give the path of a file to write"),
        )
    };
    if args.file_path.ends_with(['/', '\\']) {
        return Err(is_directory());
    }
    let existing = match tokio::fs::metadata(&abs).await {
        Ok(meta) => Some(meta),
        Err(err) if err.kind() == ErrorKind::NotFound => None,
        Err(err) => {
            return Err(failure(
                ErrorCode::Io,
                format!("cannot look at {shown}: {err}"),
            ));
        }
    };
    let format = match &existing {
        None => TextFormat::default(),
        Some(meta) if meta.is_dir() => return Err(is_directory()),
        Some(meta) if !meta.is_file() => {
            return Err(failure(
                ErrorCode::Other,
                format!("{shown} is not a regular file (a pipe, socket or device)"),
            ));
        }
        Some(meta) if meta.permissions().readonly() => {
            return Err(failure(
                ErrorCode::Io,
                format!("{shown} is read-only; it was left unchanged"),
            ));
        }
        Some(meta) => {
            if let Ok(mtime) = meta.modified()
                && ctx.freshness(&abs, mtime) == Freshness::Modified
            {
                return Err(failure(
                    ErrorCode::StaleFile,
                    format!(
                        "{shown} was modified since you last read it. Read it again before \
                         writing."
                    ),
                ));
            }
            sniff_format(&abs).await
        }
    };
    Ok(PlannedWrite {
        abs,
        shown,
        existing: existing.is_some(),
        format,
    })
}

/// The BOM and line endings of the existing file at `abs`, judged from its first bytes. A file
/// that cannot be read, or is binary, has the default format.
async fn sniff_format(abs: &Path) -> TextFormat {
    let mut prefix = Vec::new();
    let read = match tokio::fs::File::open(abs).await {
        Ok(file) => file.take(FORMAT_SNIFF_BYTES).read_to_end(&mut prefix).await,
        Err(err) => Err(err),
    };
    if read.is_err() || prefix.contains(&0) {
        return TextFormat::default();
    }
    TextFormat::of(&prefix)
}

/// The first [`HEAD_LINES`] lines of `content`, long lines cut, and whether anything was left
/// out.
fn head(content: &str) -> (String, bool) {
    let mut truncated = content.lines().nth(HEAD_LINES).is_some();
    let lines: Vec<&str> = content
        .lines()
        .take(HEAD_LINES)
        .map(|line| {
            let kept = take_chars(line, MAX_HEAD_LINE_CHARS);
            truncated |= kept.len() < line.len();
            kept
        })
        .collect();
    (lines.join("\n"), truncated)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn head_keeps_the_first_lines_and_says_when_more_exist() {
        let content: String = (1..=60).map(|n| format!("{n}\n")).collect();
        let (head, truncated) = super::head(&content);
        assert_eq!(head.lines().count(), HEAD_LINES);
        assert!(head.ends_with("\n50"));
        assert!(truncated);
        assert_eq!(super::head("a\nb\n"), ("a\nb".to_string(), false));
    }

    #[test]
    fn head_cuts_long_lines() {
        let (head, truncated) = super::head(&"x".repeat(MAX_HEAD_LINE_CHARS + 1));
        assert_eq!(head.len(), MAX_HEAD_LINE_CHARS);
        assert!(truncated);
    }
}
