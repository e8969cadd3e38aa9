//! The retained history as one round sees it, and its harder-compressed tier (DESIGN §9.3):
//! when the retained rounds alone pass the compaction threshold, or a request would not fit
//! the window, their tool results are compressed again at the tight level of the
//! ToolResultCompressor.

use wright_llm::ChatRequest;
use wright_protocol::{HistoryResult, Message, MessageMetadata, Role, ToolResult};
use wright_tools::CompressionLevel;

use crate::context::{ContextBuilder, ScratchStep, estimate_request};
use crate::history::{HistoryManager, SummaryEntry};
use crate::instructions::Instructions;
use crate::round::ToolProtocol;

/// A history `tool` message holding a compressed result.
pub fn tool_message(compressed: &str) -> Message {
    Message {
        role: Role::Tool,
        content: compressed.to_string(),
        metadata: MessageMetadata::default(),
    }
}

/// L3 for the running round: a snapshot of the summaries and retained messages, taken when
/// the round opens (the round's own steps live in the scratchpad until it ends). The default
/// view is empty.
#[derive(Debug, Clone, Default)]
pub struct HistoryView {
    summaries: Vec<SummaryEntry>,
    messages: Vec<Message>,
    tight: bool,
}

impl HistoryView {
    /// Snapshots `history`'s L3.
    pub fn new(history: &HistoryManager) -> Self {
        Self {
            summaries: history.summaries().to_vec(),
            messages: history
                .retained()
                .iter()
                .map(|stored| stored.message.clone())
                .collect(),
            tight: false,
        }
    }

    /// The retained messages as this view renders them.
    pub fn messages(&self) -> &[Message] {
        &self.messages
    }

    /// Whether the tool results are at the tight tier.
    pub fn is_tight(&self) -> bool {
        self.tight
    }

    /// Re-compresses every tool result at the tight tier.
    pub fn tighten(&mut self) {
        for message in &mut self.messages {
            if message.role == Role::Tool
                && let Some(tight) = tighter(message)
            {
                message.content = tight;
            }
        }
        self.tight = true;
    }

    /// The ContextBuilder for a request with this view as L3 and the round's other parts, for
    /// the text protocol (set [`ContextBuilder::protocol`] for the native one).
    pub fn context<'a>(
        &'a self,
        system: &'a str,
        instructions: Option<&'a Instructions>,
        input: &'a str,
        scratchpad: &'a [ScratchStep],
        todo_recap: Option<&'a str>,
    ) -> ContextBuilder<'a> {
        ContextBuilder {
            system,
            instructions,
            summaries: &self.summaries,
            history: &self.messages,
            input,
            scratchpad,
            todo_recap,
            protocol: ToolProtocol::Text,
        }
    }

    /// The request for this view with the round's other parts (see [`context`](Self::context)).
    pub fn request(
        &self,
        system: &str,
        instructions: Option<&Instructions>,
        input: &str,
        scratchpad: &[ScratchStep],
        todo_recap: Option<&str>,
    ) -> ChatRequest {
        self.context(system, instructions, input, scratchpad, todo_recap)
            .request()
    }

    /// The token estimate of L1 and L3 alone.
    pub fn estimate(&self, system: &str) -> u64 {
        estimate_request(&self.request(system, None, "", &[], None))
    }
}

/// A stored `{status, data, error, checks?, jobs_ended?}` compressed again at the tight tier.
fn tighter(message: &Message) -> Option<String> {
    let stored: HistoryResult = serde_json::from_str(&message.content).ok()?;
    let result = ToolResult {
        status: stored.status,
        data: stored.data,
        error: stored.error,
        text: String::new(),
        stats: serde_json::Value::Null,
        context: serde_json::Value::Null,
        checks: stored.checks,
        jobs_ended: stored.jobs_ended,
    };
    let tool = message.metadata.tool_name.as_deref().unwrap_or("");
    Some(wright_tools::compress_to_string_with(
        tool,
        &result,
        CompressionLevel::Tight,
    ))
}
