//! `wright context`: what the next request would contain, layer by layer, with token
//! estimates, the last reported usage, the compaction threshold, and whether the next input
//! would trigger compaction.

use std::fmt::Write as _;
use std::path::Path;

use wright_core::code_law;
use wright_core::compaction::{
    CHARS_PER_TOKEN, ContextSettings, check_trigger, estimate_tokens, round_starts,
};
use wright_core::context::{estimate_request, recap_text, system_text};
use wright_core::history::HistoryManager;
use wright_core::prompt::system_prompt;
use wright_core::tiers::HistoryView;
use wright_llm::ChatRole;
use wright_protocol::Message;
use wright_store::LoadedSession;
use wright_tools::ToolRegistry;

/// Where the next user input goes in `--full` output.
const NEXT_INPUT: &str = "<your next message>";

/// Renders the report for `session` (or a new session when there is none).
pub fn report(
    root: &Path,
    session: Option<&LoadedSession>,
    settings: &ContextSettings,
    full: bool,
) -> String {
    let tools = ToolRegistry::builtin();
    let l1 = system_prompt(&tools);
    let law = code_law::load(root);
    let history = session.map_or_else(
        || HistoryManager::new(None),
        |s| HistoryManager::replay(&s.records, None),
    );
    let retained: Vec<Message> = history
        .retained()
        .iter()
        .map(|stored| stored.message.clone())
        .collect();
    let view = HistoryView::new(&history);
    let recap = history
        .last_todo_list()
        .and_then(|todos| wright_tools::todo_recap(&todos));

    let l1_tokens = estimate_tokens(&l1);
    let law_ok = law.as_ref().ok().and_then(Option::as_ref);
    let l2_tokens = estimate_tokens(&system_text(&l1, law_ok)) - l1_tokens;
    let summary_tokens: u64 = history
        .summaries()
        .iter()
        .map(|s| estimate_tokens(&s.text))
        .sum();
    let l3_tokens = view.estimate("").saturating_sub(summary_tokens);
    let recap_tokens = recap
        .as_deref()
        .map_or(0, |r| estimate_tokens(&recap_text(r)));
    let request = view.request(&l1, law_ok, NEXT_INPUT, &[], recap.as_deref());
    let total = estimate_request(&request);

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
    row(
        &mut out,
        &format!("L1 system prompt + {} tools", tools.names().len()),
        l1_tokens,
    );
    let l2_label = match &law {
        Ok(Some(law)) if law.truncated => format!("L2 {} (cut at 64 KiB)", law.file_name),
        Ok(Some(law)) => format!("L2 {}", law.file_name),
        Ok(None) => "L2 CODE_LAW.md (none)".to_string(),
        Err(problem) => format!("L2 CODE_LAW.md (unreadable: {problem})"),
    };
    row(&mut out, &l2_label, l2_tokens);
    row(
        &mut out,
        &format!("L3 summaries ({})", history.summaries().len()),
        summary_tokens,
    );
    row(
        &mut out,
        &format!(
            "L3 retained history ({} rounds, {} messages)",
            round_starts(&retained).len(),
            retained.len()
        ),
        l3_tokens,
    );
    row(
        &mut out,
        if recap.is_some() {
            "todo recap"
        } else {
            "todo recap (no list)"
        },
        recap_tokens,
    );
    row(&mut out, "next request, before your input", total);
    let archived = history.all_messages().len() - history.retained().len();
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
            let cached = usage
                .cached_prompt_tokens
                .map(|n| format!(", {n} cached"))
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
    let trigger = check_trigger(last_total, "", retained.len(), settings);
    if trigger.compact {
        let _ = writeln!(
            out,
            "Next input triggers compaction: yes ({last_total} ≥ {threshold})"
        );
    } else if retained.len() < settings.min_messages {
        let _ = writeln!(
            out,
            "Next input triggers compaction: no (history has {} messages; at least {} needed)",
            retained.len(),
            settings.min_messages
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
        let _ = writeln!(out, "\n===== system =====\n{}", request.system);
        for message in &request.messages {
            let role = match message.role {
                ChatRole::User => "user",
                ChatRole::Assistant => "assistant",
            };
            let _ = writeln!(out, "\n===== {role} =====\n{}", message.content);
        }
    }
    out
}
