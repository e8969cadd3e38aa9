//! Turning the model's JSON arguments into a tool's typed argument struct, once per call.
//! [`parse_args`], [`invalid`] and [`schema_of`] are public for tools defined outside this
//! crate (the core's AskUser).

use futures::future::BoxFuture;
use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde::de::DeserializeOwned;
use serde_json::Value;
use wright_protocol::{ErrorCode, ToolError, ToolResult};

use crate::{Prepared, ToolContext, error_result, failure};

/// The JSON Schema of the argument type `A`: draft 2020-12, every subschema inline (providers'
/// function schemas take no `$ref`), without the `$schema` and `title` keys.
pub fn schema_of<A: JsonSchema>() -> Value {
    let generator = SchemaSettings::draft2020_12()
        .with(|settings| settings.inline_subschemas = true)
        .into_generator();
    let mut schema = generator.into_root_schema_for::<A>();
    schema.remove("$schema");
    schema.remove("title");
    schema.to_value()
}

/// How a tool with nothing to check or preview runs its typed arguments.
pub(crate) type RunTyped<A> =
    for<'a> fn(A, &'a ToolContext) -> BoxFuture<'a, Result<ToolResult, ToolError>>;

/// A call of a tool with nothing to check or preview beyond its arguments: the arguments,
/// read once, and the function that runs them.
pub(crate) struct Typed<A> {
    args: A,
    run: RunTyped<A>,
}

impl<A: DeserializeOwned + Send + Sync + 'static> Typed<A> {
    /// Reads `args` for `tool` (see [`parse_args`]) into a prepared call that runs with `run`.
    pub(crate) fn prepare(
        tool: &str,
        args: Value,
        shape: &str,
        run: RunTyped<A>,
    ) -> Result<Box<dyn Prepared>, ToolError> {
        let args = parse_args(tool, args, shape)?;
        Ok(Box::new(Self { args, run }))
    }
}

impl<A: Send + Sync + 'static> Prepared for Typed<A> {
    fn run<'a>(self: Box<Self>, ctx: &'a ToolContext) -> BoxFuture<'a, ToolResult> {
        let future = (self.run)(self.args, ctx);
        Box::pin(async move { future.await.unwrap_or_else(error_result) })
    }
}

/// Deserialises `args` into `T`, or returns the `invalid_arguments` error the model sees.
///
/// The message names the offending field (through `serde_path_to_error`) and restates the
/// expected `shape`, e.g. `{"file_path": string, "offset"?: integer}`. Unknown fields are
/// ignored: models add stray fields often, and refusing them would only cost a step.
pub fn parse_args<T: DeserializeOwned>(
    tool: &str,
    args: Value,
    shape: &str,
) -> Result<T, ToolError> {
    if !args.is_object() {
        return Err(invalid(
            tool,
            &format!("the arguments must be a JSON object, not {}", kind(&args)),
            shape,
        ));
    }
    serde_path_to_error::deserialize(args).map_err(|err| {
        let path = err.path().to_string();
        let inner = err.into_inner();
        let problem = if path == "." {
            // A missing field: serde already names it ("missing field `file_path`").
            inner.to_string()
        } else {
            format!("field `{path}`: {inner}")
        };
        invalid(tool, &problem, shape)
    })
}

/// The `invalid_arguments` error for `tool`, with the expected shape.
pub fn invalid(tool: &str, problem: &str, shape: &str) -> ToolError {
    failure(
        ErrorCode::InvalidArguments,
        format!("invalid arguments for {tool}: {problem}. Expected: {tool}[{shape}]"),
    )
}

/// A JSON value's kind, for messages: `null`, `a string`, `an object`, ….
pub fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde::Deserialize;
    use serde_json::json;

    #[derive(Debug, Deserialize, PartialEq)]
    struct Args {
        file_path: String,
        limit: Option<u64>,
    }

    const SHAPE: &str = r#"{"file_path": string, "limit"?: integer}"#;

    fn message(error: ToolError) -> String {
        assert_eq!(error.code, ErrorCode::InvalidArguments);
        error.message
    }

    #[test]
    fn unknown_fields_are_ignored() {
        let args: Args =
            parse_args("Read", json!({"file_path": "a", "colour": "blue"}), SHAPE).unwrap();
        assert_eq!(
            args,
            Args {
                file_path: "a".into(),
                limit: None
            }
        );
    }

    #[test]
    fn missing_field_is_named_with_the_expected_shape() {
        let err = parse_args::<Args>("Read", json!({}), SHAPE).unwrap_err();
        assert_eq!(
            message(err),
            r#"invalid arguments for Read: missing field `file_path`. Expected: Read[{"file_path": string, "limit"?: integer}]"#
        );
    }

    #[test]
    fn mistyped_field_is_named() {
        let err = parse_args::<Args>("Read", json!({"file_path": "a", "limit": "ten"}), SHAPE)
            .unwrap_err();
        let message = message(err);
        assert!(
            message.contains("field `limit`: invalid type: string \"ten\""),
            "{message}"
        );
    }

    #[test]
    fn non_object_arguments_are_refused() {
        let err = parse_args::<Args>("Read", json!("src/main.rs"), SHAPE).unwrap_err();
        assert!(message(err).contains("must be a JSON object, not a string"));
    }
}
