//! Native tool calling (`tool_protocol = "native"`): the tools a model call offers through
//! the provider's own tool API, and the calls a model makes through it, in a form that names
//! neither provider. The ReAct text protocol (spec E1) needs none of this.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A tool as a model call offers it: what OpenAI sends as a `function` and Anthropic as a
/// tool with an `input_schema`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolDefinition {
    /// The tool's name, e.g. `Read`; the model's calls name it.
    pub name: String,
    /// What the tool does and when to use it, for the model.
    pub description: String,
    /// The JSON Schema of the arguments object (wright-tools' `Tool::schema()`).
    pub parameters: Value,
}

/// One tool call a model made through the provider's tool API.
///
/// `arguments` is kept as the model wrote it, not parsed: a model that writes malformed JSON
/// gets the same error observation as in text mode, and history keeps what it really sent.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct NativeToolCall {
    /// The provider's id for the call (OpenAI `call_...`, Anthropic `toolu_...`); the tool's
    /// result names it.
    pub id: String,
    /// The tool the model asked for.
    pub name: String,
    /// The arguments object as the model sent it: JSON text, possibly malformed.
    pub arguments: String,
}

impl NativeToolCall {
    /// A call of `name` with `arguments` (JSON text), known to the provider as `id`.
    pub fn new(
        id: impl Into<String>,
        name: impl Into<String>,
        arguments: impl Into<String>,
    ) -> Self {
        Self {
            id: id.into(),
            name: name.into(),
            arguments: arguments.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn a_native_call_keeps_malformed_arguments_as_text() {
        let call = NativeToolCall::new("call_1", "Read", r#"{"file_path": "a.rs""#);
        let json = serde_json::to_string(&call).unwrap();
        assert_eq!(
            json,
            r#"{"id":"call_1","name":"Read","arguments":"{\"file_path\": \"a.rs\""}"#
        );
        assert_eq!(serde_json::from_str::<NativeToolCall>(&json).unwrap(), call);
    }
}
