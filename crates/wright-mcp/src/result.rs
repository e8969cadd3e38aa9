//! An MCP `tools/call` result, as JSON, turned into the [`ToolResult`] the model reads
//! (issue 15): text joined, `structuredContent` as data, images, audio and resources
//! described rather than dumped, `isError` as an error, everything bounded.

use serde_json::{Value, json};
use wright_protocol::{ErrorCode, ToolResult};

/// The most text one result shows the model; longer text is cut in the middle.
pub const MAX_TEXT_BYTES: usize = 100 * 1024;

/// The largest `structuredContent` (as compact JSON) kept as data.
pub const MAX_STRUCTURED_BYTES: usize = 100 * 1024;

/// The result of calling `tool` of `server` with the MCP result `result` (a `CallToolResult`
/// as JSON; anything else is read as leniently as possible).
pub fn to_tool_result(server: &str, tool: &str, result: &Value) -> ToolResult {
    let mut parts = Vec::new();
    let blocks = result.get("content").and_then(Value::as_array);
    for block in blocks.into_iter().flatten() {
        parts.push(describe(block));
    }
    let mut data = json!({"server": server, "tool": tool});
    match result.get("structuredContent") {
        None | Some(Value::Null) => {}
        Some(structured) => {
            let compact = structured.to_string();
            if compact.len() <= MAX_STRUCTURED_BYTES {
                data["structured_content"] = structured.clone();
                if parts.is_empty() {
                    parts.push(compact);
                }
            } else {
                parts.push(format!(
                    "[structured content of {} bytes left out: over the {MAX_STRUCTURED_BYTES}-byte limit]",
                    compact.len()
                ));
            }
        }
    }
    let text = cut_middle(&parts.join("\n"), MAX_TEXT_BYTES);
    // What history keeps of it (its head, by the compressor's rule for MCP tools).
    data["content"] = Value::String(text.clone());
    if result.get("isError").and_then(Value::as_bool) == Some(true) {
        let message = if text.is_empty() {
            format!("the MCP server `{server}` reported an error from `{tool}` without a message")
        } else {
            format!("the MCP server `{server}` reported an error from `{tool}`: {text}")
        };
        let mut error = ToolResult::error(ErrorCode::ServerError, message);
        error.data = data;
        return error;
    }
    ToolResult::success(text, data)
}

/// One content block as text: text as is, anything else as a one-line description.
fn describe(block: &Value) -> String {
    let field = |name: &str| block.get(name).and_then(Value::as_str);
    match field("type") {
        Some("text") => field("text").unwrap_or_default().to_string(),
        Some(kind @ ("image" | "audio")) => format!(
            "[{kind}: {}, {}]",
            field("mimeType").unwrap_or("unknown type"),
            size(base64_len(field("data").unwrap_or_default()))
        ),
        Some("resource") => {
            let resource = block.get("resource").unwrap_or(&Value::Null);
            let get = |name: &str| resource.get(name).and_then(Value::as_str);
            let bytes = match (get("text"), get("blob")) {
                (Some(text), _) => text.len(),
                (None, Some(blob)) => base64_len(blob),
                (None, None) => 0,
            };
            format!(
                "[resource: {} ({}, {})]",
                get("uri").unwrap_or("no uri"),
                get("mimeType").unwrap_or("unknown type"),
                size(bytes)
            )
        }
        Some("resource_link") => {
            let mut line = format!("[resource link: {}", field("uri").unwrap_or("no uri"));
            if let Some(mime) = field("mimeType") {
                line += &format!(" ({mime})");
            }
            if let Some(bytes) = block.get("size").and_then(Value::as_u64) {
                line += &format!(", {}", size(usize::try_from(bytes).unwrap_or(usize::MAX)));
            }
            line + "]"
        }
        Some(other) => format!("[{} content]", cut_middle(other, 40)),
        None => "[content of unknown type]".to_string(),
    }
}

/// How many bytes base64 text of this length decodes to.
fn base64_len(data: &str) -> usize {
    let padding = data.bytes().rev().take_while(|&b| b == b'=').count();
    (data.len() / 4 * 3).saturating_sub(padding.min(2))
}

/// A size for people: `812 bytes`, `12.3 KB`, `4.0 MB`.
fn size(bytes: usize) -> String {
    const KB: f64 = 1024.0;
    let b = bytes as f64;
    if b < KB {
        format!("{bytes} bytes")
    } else if b < KB * KB {
        format!("{:.1} KB", b / KB)
    } else {
        format!("{:.1} MB", b / KB / KB)
    }
}

/// `text` cut to at most `max` bytes (plus a note) by removing its middle, on character
/// boundaries: the start says what it is, the end often how it ended.
pub fn cut_middle(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let mut head = max / 2;
    while !text.is_char_boundary(head) {
        head -= 1;
    }
    let mut tail = text.len() - max / 2;
    while !text.is_char_boundary(tail) {
        tail += 1;
    }
    format!(
        "{}\n[… {} bytes cut from the middle …]\n{}",
        &text[..head],
        tail - head,
        &text[tail..]
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use wright_protocol::ToolStatus;

    #[test]
    fn text_is_joined_and_structured_content_is_data() {
        let result = to_tool_result(
            "s",
            "t",
            &json!({
                "content": [{"type": "text", "text": "one"}, {"type": "text", "text": "two"}],
                "structuredContent": {"n": 2},
            }),
        );
        assert_eq!(result.status, ToolStatus::Success);
        assert_eq!(result.text, "one\ntwo");
        assert_eq!(
            result.data,
            json!({"server": "s", "tool": "t", "structured_content": {"n": 2}, "content": "one\ntwo"})
        );
    }

    #[test]
    fn binary_content_is_described_not_dumped() {
        let png = "iVBORw0KGgo=".repeat(1000);
        let result = to_tool_result(
            "s",
            "t",
            &json!({"content": [
                {"type": "image", "data": png, "mimeType": "image/png"},
                {"type": "audio", "data": "AAAA", "mimeType": "audio/wav"},
                {"type": "resource", "resource": {"uri": "file:///a.txt", "mimeType": "text/plain", "text": "hello"}},
                {"type": "resource_link", "uri": "file:///b", "name": "b", "size": 2048},
            ]}),
        );
        assert_eq!(
            result.text,
            "[image: image/png, 8.8 KB]\n[audio: audio/wav, 3 bytes]\n\
             [resource: file:///a.txt (text/plain, 5 bytes)]\n[resource link: file:///b, 2.0 KB]"
        );
    }

    #[test]
    fn is_error_gives_an_error_naming_the_server() {
        let result = to_tool_result(
            "github",
            "create_issue",
            &json!({"content": [{"type": "text", "text": "no such repo"}], "isError": true}),
        );
        assert_eq!(result.status, ToolStatus::Error);
        assert_eq!(
            result.error.unwrap().message,
            "the MCP server `github` reported an error from `create_issue`: no such repo"
        );
    }

    #[test]
    fn long_text_is_cut_in_the_middle_on_character_boundaries() {
        let text = "é".repeat(MAX_TEXT_BYTES);
        let result = to_tool_result(
            "s",
            "t",
            &json!({"content": [{"type": "text", "text": text}]}),
        );
        assert!(result.text.len() < MAX_TEXT_BYTES + 100);
        assert!(result.text.contains("bytes cut from the middle"));
        assert!(result.text.starts_with("éé") && result.text.ends_with("éé"));
    }
}
