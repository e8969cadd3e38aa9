//! The MultiEdit tool: several Edit replacements in one file, applied in order, all or nothing.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use wright_protocol::text::plural;
use wright_protocol::{ToolError, ToolResult};

use crate::args::{invalid, parse_args, schema_of};
use crate::data::{EditOutcome, to_value};
use crate::edit::{Applied, EditCall, EditSpec, Numbering, push_diff, push_ranges};
use crate::{Prepared, Tool, ToolContext, ToolKind};

const SHAPE: &str = r#"{"file_path": string, "edits": [{"old_string": string, "new_string": string, "replace_all"?: boolean}, ...]}"#;

/// Applies a list of replacements to one file and writes it once, or not at all.
#[derive(Debug, Clone, Copy, Default)]
pub struct MultiEditTool;

#[derive(Debug, Deserialize, JsonSchema)]
struct MultiEditArgs {
    file_path: String,
    edits: Vec<EditSpec>,
}

impl Tool for MultiEditTool {
    fn name(&self) -> &'static str {
        "MultiEdit"
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Edit
    }

    fn description(&self) -> &'static str {
        include_str!("../../../prompts/tools/multi_edit.md")
    }

    fn schema(&self) -> Value {
        schema_of::<MultiEditArgs>()
    }

    fn prepare(&self, args: Value, _: &ToolContext) -> Result<Box<dyn Prepared>, ToolError> {
        let args = multi_edit_args(args)?;
        Ok(Box::new(EditCall::new(
            args.file_path,
            args.edits,
            Numbering::Numbered,
            multi_edit_result,
        )))
    }
}

/// The arguments of a MultiEdit call, with at least one edit.
fn multi_edit_args(args: Value) -> Result<MultiEditArgs, ToolError> {
    let args: MultiEditArgs = parse_args("MultiEdit", args, SHAPE)?;
    if args.edits.is_empty() {
        return Err(invalid(
            "MultiEdit",
            "`edits` is empty; give at least one edit",
            SHAPE,
        ));
    }
    Ok(args)
}

/// The observation of a written MultiEdit.
fn multi_edit_result(applied: Applied) -> ToolResult {
    let replacements: usize = applied.outcomes.iter().map(|o| o.replacements).sum();
    let mut text = format!(
        "Edited {}: {}, {}",
        applied.shown,
        plural(applied.outcomes.len(), "edit"),
        plural(replacements, "replacement")
    );
    push_ranges(&mut text, &applied.report);
    for (index, outcome) in applied.outcomes.iter().enumerate() {
        if outcome.rung.fallback_name().is_some() {
            text.push_str(&format!(
                " Edit {} matched only {}.",
                index + 1,
                outcome.rung.describe()
            ));
        }
    }
    push_diff(&mut text, &applied.report);

    let mut data = applied.data();
    data.edits = Some(
        applied
            .outcomes
            .iter()
            .map(|o| EditOutcome {
                replacements: o.replacements,
                fallback: o.rung.fallback_name().map(str::to_string),
            })
            .collect(),
    );
    data.edits_applied = Some(applied.outcomes.len());
    ToolResult::success(text, to_value(&data))
}
