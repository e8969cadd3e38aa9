//! The Edit tool, and the edit pipeline it shares with MultiEdit: load, check freshness, replace
//! in memory, write once atomically, report the diff (DESIGN §5, §9.4).

use std::path::PathBuf;

use futures::future::BoxFuture;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use wright_protocol::text::plural;
use wright_protocol::{ErrorCode, ToolError, ToolResult};

use crate::args::{parse_args, schema_of};
use crate::closest::closest_region;
use crate::data::{EditData, to_value};
use crate::diff::DiffReport;
use crate::matching::{MatchError, Rung, replace};
use crate::text_file::{TextFile, to_lf};
use crate::{Prepared, Tool, ToolContext, ToolKind, error_result, failure};

const SHAPE: &str =
    r#"{"file_path": string, "old_string": string, "new_string": string, "replace_all"?: boolean}"#;
/// Line numbers of an ambiguous match listed at most.
const MAX_LISTED_LINES: usize = 20;

/// Replaces one string in a text file (or every occurrence, with `replace_all`).
#[derive(Debug, Clone, Copy, Default)]
pub struct EditTool;

#[derive(Debug, Deserialize, JsonSchema)]
struct EditArgs {
    file_path: String,
    old_string: String,
    new_string: String,
    #[serde(default)]
    replace_all: bool,
}

impl Tool for EditTool {
    fn name(&self) -> &'static str {
        "Edit"
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Edit
    }

    fn description(&self) -> &'static str {
        include_str!("../../../prompts/tools/edit.md")
    }

    fn schema(&self) -> Value {
        schema_of::<EditArgs>()
    }

    fn prepare(&self, args: Value, _: &ToolContext) -> Result<Box<dyn Prepared>, ToolError> {
        let args: EditArgs = parse_args("Edit", args, SHAPE)?;
        let spec = EditSpec {
            old_string: args.old_string,
            new_string: args.new_string,
            replace_all: args.replace_all,
        };
        Ok(Box::new(EditCall::new(
            args.file_path,
            vec![spec],
            Numbering::Single,
            edit_result,
        )))
    }
}

/// The observation of a written Edit.
fn edit_result(applied: Applied) -> ToolResult {
    let outcome = applied.outcomes.first().copied().unwrap_or(Outcome {
        replacements: 0,
        rung: Rung::Exact,
    });
    let mut text = format!(
        "Edited {}: {}",
        applied.shown,
        plural(outcome.replacements, "replacement")
    );
    push_ranges(&mut text, &applied.report);
    if outcome.rung != Rung::Exact {
        text.push_str(&format!(
            " old_string matched only {}.",
            outcome.rung.describe()
        ));
    }
    push_diff(&mut text, &applied.report);
    ToolResult::success(text, to_value(&applied.data()))
}

/// An Edit or MultiEdit call: the file, its replacements, and — once a preview has worked
/// them out — the planned new content, which is what gets written if the file is still as it
/// was then, so the user approves exactly what happens.
pub(crate) struct EditCall {
    file_path: String,
    edits: Vec<EditSpec>,
    numbering: Numbering,
    planned: Option<Planned>,
    /// Turns the written edits into the tool's observation.
    observe: fn(Applied) -> ToolResult,
}

impl EditCall {
    pub(crate) fn new(
        file_path: String,
        edits: Vec<EditSpec>,
        numbering: Numbering,
        observe: fn(Applied) -> ToolResult,
    ) -> Self {
        Self {
            file_path,
            edits,
            numbering,
            planned: None,
            observe,
        }
    }
}

impl Prepared for EditCall {
    fn writes(&self) -> Option<&str> {
        Some(&self.file_path)
    }

    /// The unified diff the edits would make.
    fn preview<'a>(&'a mut self, ctx: &'a ToolContext) -> BoxFuture<'a, Option<String>> {
        Box::pin(async move {
            let planned = plan_edits(ctx, &self.file_path, &self.edits, self.numbering)
                .await
                .ok()?;
            let diff = planned.report().diff;
            self.planned = Some(planned);
            Some(diff)
        })
    }

    fn run<'a>(self: Box<Self>, ctx: &'a ToolContext) -> BoxFuture<'a, ToolResult> {
        Box::pin(async move {
            let observe = self.observe;
            apply_edits(
                ctx,
                &self.file_path,
                &self.edits,
                self.numbering,
                self.planned,
            )
            .await
            .map_or_else(error_result, observe)
        })
    }
}

/// One replacement of an Edit or a MultiEdit.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub(crate) struct EditSpec {
    pub(crate) old_string: String,
    pub(crate) new_string: String,
    #[serde(default)]
    pub(crate) replace_all: bool,
}

/// Whether error messages number the edits (`edit 2 of 3: …`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Numbering {
    /// Edit: one edit, no numbers.
    Single,
    /// MultiEdit: every message names its edit, and says nothing was applied.
    Numbered,
}

/// How one edit matched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Outcome {
    pub(crate) replacements: usize,
    pub(crate) rung: Rung,
}

/// A successful, written set of edits.
#[derive(Debug, Clone)]
pub(crate) struct Applied {
    /// The file as shown to the model.
    pub(crate) shown: String,
    /// Per edit, in order.
    pub(crate) outcomes: Vec<Outcome>,
    pub(crate) report: DiffReport,
}

impl Applied {
    /// Edit's `data`; MultiEdit adds its per-edit fields.
    pub(crate) fn data(&self) -> EditData {
        let replacements: usize = self.outcomes.iter().map(|o| o.replacements).sum();
        let fallback = self.outcomes.iter().find_map(|o| o.rung.fallback_name());
        EditData {
            file_path: self.shown.clone(),
            replacements,
            fallback: fallback.map(str::to_string),
            applied: true,
            changed_ranges: self.report.changed_ranges.clone(),
            diff: self.report.diff.clone(),
            diff_lines: self.report.diff_lines,
            added: self.report.added,
            removed: self.report.removed,
            edits: None,
            edits_applied: None,
        }
    }
}

/// Edits worked out in memory and not yet written: what a dry run gives.
#[derive(Debug, Clone)]
pub(crate) struct Planned {
    abs: PathBuf,
    shown: String,
    file: TextFile,
    /// The new content, in the file's line endings.
    text: String,
    outcomes: Vec<Outcome>,
}

impl Planned {
    /// Whether the file on disk is still exactly what this plan was worked out from.
    async fn is_current(&self) -> bool {
        TextFile::load(&self.abs, &self.shown)
            .await
            .is_ok_and(|now| {
                now.text == self.file.text
                    && now.format == self.file.format
                    && now.mtime == self.file.mtime
            })
    }

    /// The diff from the file on disk to the planned content.
    pub(crate) fn report(&self) -> DiffReport {
        DiffReport::new(&to_lf(&self.file.text), &to_lf(&self.text), &self.shown)
    }
}

/// Applies `edits` in order to the file at `file_path` and writes the result once: the
/// `planned` content when the file is still exactly as it was planned against, else a fresh
/// plan.
///
/// All or nothing: the file must exist, be UTF-8 text the agent has read and that has not
/// changed since, and every edit must match; otherwise nothing is written and the error names
/// the failing edit. The BOM and CRLF line endings are kept (the model's `\n` become `\r\n`).
pub(crate) async fn apply_edits(
    ctx: &ToolContext,
    file_path: &str,
    edits: &[EditSpec],
    numbering: Numbering,
    planned: Option<Planned>,
) -> Result<Applied, ToolError> {
    let planned = match planned {
        Some(planned) if planned.is_current().await => planned,
        _ => plan_edits(ctx, file_path, edits, numbering).await?,
    };
    let Planned {
        abs,
        shown,
        file,
        text,
        outcomes,
    } = planned;
    ctx.write_file_atomically(&abs, file.format.encode(&text))
        .await
        .map_err(|err| failure(ErrorCode::Io, format!("cannot write {shown}: {err}")))?;
    ctx.record_mtime(&abs);
    let report = DiffReport::new(&to_lf(&file.text), &to_lf(&text), &shown);
    Ok(Applied {
        shown,
        outcomes,
        report,
    })
}

/// Everything [`apply_edits`] does but the write: the same checks and refusals, and the new
/// content in memory. Nothing on disk changes.
pub(crate) async fn plan_edits(
    ctx: &ToolContext,
    file_path: &str,
    edits: &[EditSpec],
    numbering: Numbering,
) -> Result<Planned, ToolError> {
    let label = |index: usize, error: ToolError| match numbering {
        Numbering::Single => error,
        Numbering::Numbered => failure(
            error.code,
            format!(
                "edit {} of {}: {} No edits were applied.",
                index + 1,
                edits.len(),
                error.message
            ),
        ),
    };
    for (index, edit) in edits.iter().enumerate() {
        validate(edit).map_err(|error| label(index, error))?;
    }
    let abs = ctx.resolve(file_path)?;
    let shown = ctx.display_path(&abs);
    let file = TextFile::load(&abs, &shown).await?;
    if let Some(mtime) = file.mtime {
        ctx.check_fresh(&abs, mtime, &shown)?;
    }

    let mut text = file.text.clone();
    let mut outcomes = Vec::with_capacity(edits.len());
    for (index, edit) in edits.iter().enumerate() {
        let old = file.format.endings(&edit.old_string);
        let new = file.format.endings(&edit.new_string);
        let replaced = replace(&text, &old, &new, edit.replace_all)
            .map_err(|err| label(index, match_failure(err, &text, edit, &shown)))?;
        outcomes.push(Outcome {
            replacements: replaced.replacements,
            rung: replaced.rung,
        });
        text = replaced.text;
    }
    if text == file.text {
        return Err(failure(
            ErrorCode::NoChange,
            format!(
                "{} {shown} as it is; nothing was written",
                match numbering {
                    Numbering::Single => "the edit leaves",
                    Numbering::Numbered => "together the edits leave",
                }
            ),
        ));
    }
    Ok(Planned {
        abs,
        shown,
        file,
        text,
        outcomes,
    })
}

/// Refuses an edit that cannot mean anything before the file is touched.
fn validate(edit: &EditSpec) -> Result<(), ToolError> {
    if edit.old_string.is_empty() {
        return Err(failure(
            ErrorCode::InvalidArguments,
            "old_string is empty; give the exact text to replace (use Write to create a file or \
             replace all of it)",
        ));
    }
    if edit.old_string == edit.new_string {
        return Err(failure(
            ErrorCode::NoChange,
            "old_string and new_string are the same, so the edit would change nothing",
        ));
    }
    Ok(())
}

/// The message for an edit whose `old_string` is not found once in `text`.
fn match_failure(err: MatchError, text: &str, edit: &EditSpec, shown: &str) -> ToolError {
    match err {
        MatchError::Ambiguous { rung, lines } => {
            let (count, lines) = (lines.len(), list_lines(&lines));
            let message = if rung == Rung::Exact {
                format!(
                    "old_string matches {count} places in {shown} (lines {lines}); add surrounding lines to old_string \
                     so that it matches one place, or set replace_all to true to change every one"
                )
            } else {
                format!(
                    "old_string is not in {shown} exactly, and {} it matches {count} places \
                     (lines {lines}); Read the \
                     file again and copy old_string exactly, with enough surrounding lines to \
                     match one place",
                    rung.describe()
                )
            };
            failure(ErrorCode::AmbiguousMatch, message)
        }
        MatchError::NoMatch => {
            let mut message = format!(
                "old_string was not found in {shown}, not even ignoring whitespace and Unicode \
                 quotes/dashes."
            );
            if has_line_number_prefixes(&edit.old_string) {
                message.push_str(
                    " It seems to include Read's line-number prefixes (`    12\t`); they are not \
                     part of the file.",
                );
            }
            if let Some(region) = closest_region(&to_lf(text), &edit.old_string) {
                let lines = match region.first == region.last {
                    true => format!("line {}", region.first),
                    false => format!("lines {}-{}", region.first, region.last),
                };
                message.push_str(&format!(
                    " The closest region is {lines}:\n{}\n",
                    region.listing
                ));
            } else {
                message.push(' ');
            }
            message.push_str("Read the file again and copy old_string exactly from it.");
            failure(ErrorCode::NoMatch, message)
        }
    }
}

/// `3, 9, 12`, or the first [`MAX_LISTED_LINES`] and how many more.
fn list_lines(lines: &[usize]) -> String {
    let shown: Vec<String> = lines
        .iter()
        .take(MAX_LISTED_LINES)
        .map(usize::to_string)
        .collect();
    match lines.len().checked_sub(MAX_LISTED_LINES) {
        Some(more) if more > 0 => format!("{} and {more} more", shown.join(", ")),
        _ => shown.join(", "),
    }
}

/// Whether every non-blank line of `old` starts like a line of Read's output (`    12\t`).
fn has_line_number_prefixes(old: &str) -> bool {
    let numbered = |line: &str| {
        let rest = line
            .trim_start()
            .trim_start_matches(|c: char| c.is_ascii_digit());
        rest.len() < line.trim_start().len() && rest.starts_with('\t')
    };
    let mut lines = old.lines().filter(|l| !l.trim().is_empty()).peekable();
    lines.peek().is_some() && lines.all(numbered)
}

/// Appends `, lines 10-14 changed.` (or just `.`) to the summary line.
pub(crate) fn push_ranges(text: &mut String, report: &DiffReport) {
    let ranges = report.describe_ranges();
    if !ranges.is_empty() {
        text.push_str(", ");
        text.push_str(&ranges);
    }
    text.push('.');
}

/// Appends the (capped) diff on the lines after the summary.
pub(crate) fn push_diff(text: &mut String, report: &DiffReport) {
    text.push('\n');
    text.push_str(&report.capped());
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn line_number_prefixes_are_recognised() {
        assert!(has_line_number_prefixes("    12\tfn a() {\n    13\t}"));
        assert!(!has_line_number_prefixes("fn a() {\n}"));
        assert!(!has_line_number_prefixes("\t12"));
    }

    #[test]
    fn long_line_lists_are_cut() {
        let lines: Vec<usize> = (1..=25).collect();
        assert_eq!(
            list_lines(&lines),
            "1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20 and 5 more"
        );
    }

    #[test]
    fn counts_are_pluralised() {
        assert_eq!(plural(1usize, "edit"), "1 edit");
        assert_eq!(plural(3usize, "edit"), "3 edits");
    }
}
