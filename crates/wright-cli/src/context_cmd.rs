//! `wright context`: what the next request would contain, layer by layer, with token
//! estimates, the last reported usage, the compaction threshold, and whether the next input
//! would trigger compaction.

use std::fmt::Write as _;
use std::path::Path;

use wright_core::ToolProtocol;
use wright_core::compaction::{
    CHARS_PER_TOKEN, ContextSettings, check_trigger, estimate_tokens, round_starts,
};
use wright_core::context::{Layer, TOKENS_PER_MESSAGE, estimate_messages, estimate_request};
use wright_core::cost::cache_note;
use wright_core::session::SessionContext;
use wright_llm::ChatRole;
use wright_store::LoadedSession;
use wright_store::memory::MemoryPaths;

/// Where the next user input goes in `--full` output.
const NEXT_INPUT: &str = "<your next message>";

/// Renders the report for `session` (or a new session when there is none), its agent having
/// the Memory tool over `memory`, L2 read with the user's settings directory `user_config`,
/// the request built for the tool `protocol`.
pub fn report(
    root: &Path,
    session: Option<&LoadedSession>,
    settings: &ContextSettings,
    memory: Option<&MemoryPaths>,
    user_config: Option<&Path>,
    protocol: ToolProtocol,
    full: bool,
) -> String {
    let next = SessionContext::load(root, session, memory, user_config, protocol);
    let builder = next.builder(NEXT_INPUT);
    let request = builder.request();
    let total = estimate_request(&request) + next.offered_estimate();
    let history = next.history();

    let mut out = String::new();
    match session {
        Some(s) => {
            let name = s
                .meta
                .name
                .as_deref()
                .map(|n| format!(" \"{n}\""))
                .unwrap_or_default();
            let _ = writeln!(out, "Session {}{name}", s.meta.id);
            let _ = writeln!(out, "  file: {}", s.path.display());
            for warning in &s.warnings {
                let _ = writeln!(out, "  warning: {warning}");
            }
        }
        None => {
            let _ = writeln!(
                out,
                "No session yet in this project; a new one would start with:"
            );
        }
    }
    let _ = writeln!(out);
    let _ = writeln!(out, "{:<52}{:>10}", "Layer", "~tokens");
    let row = |out: &mut String, label: &str, tokens: u64| {
        let _ = writeln!(out, "{label:<52}{tokens:>10}");
    };
    // What each system part adds to the system prompt's estimate, joins included.
    let mut system_parts: Vec<String> = Vec::new();
    let mut added_to_system = |layer: &Layer| {
        let before = estimate_tokens(&system_parts.join("\n\n"));
        system_parts.extend(layer.system_text());
        estimate_tokens(&system_parts.join("\n\n")) - before
    };
    for layer in builder.layers() {
        match layer {
            Layer::System(_) => {
                let tokens = added_to_system(&layer);
                match next.protocol() {
                    ToolProtocol::Text => {
                        let label = format!("L1 system prompt + {} tools", next.tool_count());
                        row(&mut out, &label, tokens);
                    }
                    ToolProtocol::Native => {
                        row(&mut out, "L1 system prompt", tokens);
                        let label = format!(
                            "L1 tool definitions ({} tools, native protocol)",
                            next.offered().len()
                        );
                        row(&mut out, &label, next.offered_estimate());
                    }
                }
            }
            Layer::Instructions(_) => {
                // One row per source, each with its own estimate; the layer's joins are
                // counted in the total.
                added_to_system(&layer);
                let instructions = next.instructions();
                if instructions.parts.is_empty() {
                    row(&mut out, "L2 CODE_LAW.md / AGENTS.md / CLAUDE.md (none)", 0);
                }
                for part in &instructions.parts {
                    let cut = if part.truncated {
                        " (cut at 64 KiB)"
                    } else {
                        ""
                    };
                    let label = format!("L2 {}{cut}", part.label);
                    row(&mut out, &label, estimate_tokens(&part.text));
                }
                for problem in &instructions.problems {
                    let _ = writeln!(out, "  warning: {problem}");
                }
            }
            Layer::Summaries(summaries) => {
                let label = format!("L3 summaries ({})", summaries.len());
                let tokens = added_to_system(&layer);
                row(&mut out, &label, tokens);
            }
            Layer::History(messages, _) => {
                // The row holds the input message's framing too.
                let framed = estimate_messages(&layer.messages()) + TOKENS_PER_MESSAGE;
                let label = format!(
                    "L3 retained history ({} rounds, {} messages)",
                    round_starts(messages).len(),
                    messages.len()
                );
                row(&mut out, &label, framed);
            }
            Layer::Input(_) | Layer::Scratchpad(..) => {}
            Layer::TodoRecap(recap) => {
                let label = if recap.is_some() {
                    "todo recap"
                } else {
                    "todo recap (no list)"
                };
                let tokens = layer
                    .appended_text()
                    .map_or(0, |text| estimate_tokens(&text));
                row(&mut out, label, tokens);
            }
        }
    }
    row(&mut out, "next request, before your input", total);
    let retained = history.retained().len();
    let archived = history.all_messages().len() - retained;
    let _ = writeln!(
        out,
        "\nArchived messages (kept on disk, not sent): {archived}"
    );

    let threshold = settings.threshold();
    let _ = writeln!(
        out,
        "Context window {} tokens; compaction threshold {threshold} ({} × window); keeps at least {} rounds",
        settings.context_window, settings.compact_threshold, settings.retain_rounds
    );
    let last_total = match history.last_usage() {
        Some(usage) => {
            let cached = cache_note(usage, |n| n.to_string())
                .map(|note| format!(", {note}"))
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "Last reported usage: {} tokens ({} prompt{cached} + {} completion)",
                usage.total_tokens, usage.prompt_tokens, usage.completion_tokens
            );
            usage.total_tokens
        }
        None => {
            let _ = writeln!(
                out,
                "Last reported usage: none yet; using the local estimate {total}"
            );
            total
        }
    };
    let trigger = check_trigger(last_total, "", retained, settings);
    if trigger.compact {
        let _ = writeln!(
            out,
            "Next input triggers compaction: yes ({last_total} ≥ {threshold})"
        );
    } else if retained < settings.min_messages {
        let _ = writeln!(
            out,
            "Next input triggers compaction: no (history has {} messages; at least {} needed)",
            retained, settings.min_messages
        );
    } else {
        let room = threshold - last_total;
        let _ = writeln!(
            out,
            "Next input triggers compaction: only if longer than about {} characters ({room} tokens of room)",
            room * CHARS_PER_TOKEN
        );
    }
    if full {
        let _ = writeln!(out, "\n===== system =====\n{}", request.system_text());
        if !next.offered().is_empty() {
            let tools = serde_json::to_string_pretty(next.offered()).unwrap_or_default();
            let _ = writeln!(out, "\n===== tools =====\n{tools}");
        }
        for message in &request.messages {
            let role = match (message.role, &message.tool_call_id) {
                (ChatRole::User, Some(id)) => format!("tool result {id}"),
                (ChatRole::User, None) => "user".to_string(),
                (ChatRole::Assistant, _) => "assistant".to_string(),
            };
            let _ = writeln!(out, "\n===== {role} =====\n{}", message.content);
            for call in &message.tool_calls {
                let _ = writeln!(
                    out,
                    "[tool call {}] {} {}",
                    call.id,
                    call.name,
                    call.arguments.trim()
                );
            }
        }
    }
    out
}
