//! The Memory tool (issue 17, items 4–5): the model saves notes with tags in project, global
//! or session memory, retrieves them by tags and words, and clears them by id or tags.
//!
//! Project and global memory are files in `wright-store` ([`wright_store::memory`]); session
//! memory is kept here, in the process, shared by a session's agent and its sub-agents and
//! gone with the session. The tool checks what the model may save: nothing the secret masker
//! would mask (a credential saved would reach every later session's requests), within the
//! store's bounds. At session start [`memory_index`] gives the short index of tags that ends
//! L1, fixed for the session like the environment block (DESIGN §9.10).

pub mod commands;
pub mod insights;

use std::sync::{Arc, Mutex, PoisonError};

use futures::future::BoxFuture;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use wright_protocol::{ErrorCode, ToolError, ToolResult};
use wright_store::memory::{
    self, MAX_CONTENT_BYTES, MAX_ENTRIES, MemoryEntry, MemoryError, MemoryPaths, MemoryScope,
    SEARCH_LIMIT,
};
use wright_tools::secrets::SecretMasker;
use wright_tools::{Prepared, Tool, ToolContext, ToolKind};

/// Most characters of whole entries a retrieve shows (10 full notes would be ~27k tokens);
/// entries past it are [`shortened`].
const MAX_RETRIEVED_CHARS: usize = 12_000;

/// Characters of an entry kept when it is shortened.
const SHORTENED_CHARS: usize = 300;

/// The tool's name, as the model writes it after `Action:`.
pub const MEMORY: &str = "Memory";

const SHAPE: &str = r#"{"action": "save", "scope"?: "project"|"global"|"session", "tags"?: [string], "content": string} | {"action": "retrieve", "tags"?: [string], "query"?: string} | {"action": "clear", "id": string} | {"action": "clear", "tags": [string], "scope"?: string}"#;

/// Session memory: the entries saved with `"scope": "session"`, in this process only. Clones
/// share the entries (a session's agent, its sub-agents, and the agent rebuilt when its tools
/// are reloaded).
#[derive(Debug, Clone, Default)]
pub struct SessionMemory {
    entries: Arc<Mutex<Vec<MemoryEntry>>>,
}

impl SessionMemory {
    /// Its entries, oldest first.
    pub fn entries(&self) -> Vec<MemoryEntry> {
        self.lock().clone()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<MemoryEntry>> {
        // The entries stay whole whatever panicked while holding them: a Vec push or retain.
        self.entries.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn add(&self, tags: Vec<String>, content: String) -> Result<MemoryEntry, MemoryError> {
        let mut entries = self.lock();
        if entries.len() >= MAX_ENTRIES {
            return Err(MemoryError::Full {
                scope: MemoryScope::Session,
            });
        }
        let entry = MemoryEntry::new(MemoryScope::Session, tags, content, &entries);
        entries.push(entry.clone());
        Ok(entry)
    }

    fn remove(&self, matches: &dyn Fn(&MemoryEntry) -> bool) -> Vec<MemoryEntry> {
        let mut entries = self.lock();
        let (removed, kept) = std::mem::take(&mut *entries)
            .into_iter()
            .partition(|entry| matches(entry));
        *entries = kept;
        removed
    }
}

/// The memory of every scope as one agent sees it, with what could not be read.
pub struct Recalled {
    /// The entries, project's first, then global's, then the session's.
    pub entries: Vec<MemoryEntry>,
    /// The files that could not be read, and why.
    pub problems: Vec<(MemoryScope, MemoryError)>,
}

/// Every entry of project and global memory under `paths` and of `session`.
pub fn recall(paths: &MemoryPaths, session: Option<&SessionMemory>) -> Recalled {
    let mut entries = Vec::new();
    let mut problems = Vec::new();
    for file in paths.files() {
        match file.load() {
            Ok(loaded) => entries.extend(loaded),
            Err(e) => problems.push((file.scope(), e)),
        }
    }
    if let Some(session) = session {
        entries.extend(session.entries());
    }
    Recalled { entries, problems }
}

/// The index of the memory under `paths` as it is now: what a session starting now ends
/// its L1 with ([`wright_store::memory::index`]); empty when there is none.
pub fn memory_index(paths: &MemoryPaths) -> String {
    let Recalled { entries, problems } = recall(paths, None);
    let of = |scope: MemoryScope| -> Vec<MemoryEntry> {
        entries
            .iter()
            .filter(|e| e.scope == scope)
            .cloned()
            .collect()
    };
    let (project, global) = (of(MemoryScope::Project), of(MemoryScope::Global));
    let unreadable: Vec<MemoryScope> = problems.iter().map(|(scope, _)| *scope).collect();
    memory::index(
        &[
            (MemoryScope::Project, &project),
            (MemoryScope::Global, &global),
        ],
        &unreadable,
    )
}

/// The Memory tool of one agent.
pub struct MemoryTool {
    paths: MemoryPaths,
    session: SessionMemory,
    masker: SecretMasker,
}

impl MemoryTool {
    /// The tool over the files at `paths` and the session's `session` memory, refusing to
    /// save what `masker` masks (and, when masking is turned off, what the built-in patterns
    /// would: `[secrets] mask = false` is about showing output, not about keeping secrets).
    pub fn new(paths: MemoryPaths, session: SessionMemory, masker: &SecretMasker) -> Self {
        Self {
            paths,
            session,
            masker: saving_masker(masker),
        }
    }
}

/// The masker whose patterns memory refuses to keep: `masker`, or the built-in one when
/// masking is turned off (`[secrets] mask = false` is about showing output, not about
/// keeping secrets).
pub(crate) fn saving_masker(masker: &SecretMasker) -> SecretMasker {
    if masker.is_enabled() {
        masker.clone()
    } else {
        SecretMasker::default()
    }
}

/// Whether a note of `content` with `tags` holds what `masker` would mask: a credential saved
/// would reach every later session's requests.
pub(crate) fn holds_secret(masker: &SecretMasker, tags: &[String], content: &str) -> bool {
    let tags_text = tags.join(" ");
    masker.mask(content) != content || masker.mask(&tags_text) != tags_text
}

/// What a call does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Action {
    /// Keep a new note.
    Save,
    /// Find notes by tags and words.
    Retrieve,
    /// Remove notes by id or tags.
    Clear,
}

/// A scope as the model names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum ScopeArg {
    /// This project's, kept across sessions.
    Project,
    /// The user's, in every project.
    Global,
    /// This session's only.
    Session,
}

impl From<ScopeArg> for MemoryScope {
    fn from(scope: ScopeArg) -> Self {
        match scope {
            ScopeArg::Project => MemoryScope::Project,
            ScopeArg::Global => MemoryScope::Global,
            ScopeArg::Session => MemoryScope::Session,
        }
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct MemoryArgs {
    /// `save`, `retrieve` or `clear`.
    action: Action,
    /// `project` (the default for a save), `global` or `session`.
    #[serde(default)]
    scope: Option<ScopeArg>,
    /// A save's tags; the tags a retrieve or clear picks entries by (any of them).
    #[serde(default)]
    tags: Vec<String>,
    /// What a save keeps.
    #[serde(default)]
    content: Option<String>,
    /// A retrieve's words, to rank entries by.
    #[serde(default)]
    query: Option<String>,
    /// The entry a clear removes.
    #[serde(default)]
    id: Option<String>,
}

/// One checked call.
#[derive(Debug, Clone, PartialEq, Eq)]
enum MemoryCall {
    Save {
        scope: MemoryScope,
        tags: Vec<String>,
        content: String,
    },
    Retrieve {
        tags: Vec<String>,
        query: String,
    },
    ClearId {
        id: String,
        scope: Option<MemoryScope>,
    },
    ClearTags {
        tags: Vec<String>,
        scope: Option<MemoryScope>,
    },
}

impl Tool for MemoryTool {
    fn name(&self) -> &str {
        MEMORY
    }

    /// Saving or clearing project or global memory writes a file outside the project that
    /// every later session reads (its index is in their L1, its notes in their answers): it is
    /// asked about as a file change is, and `auto-edit` lets a project save run; one that
    /// touches global memory is asked about in `auto-edit` too (`External`). A retrieve, and a save or
    /// clear of session memory (the agent's own state, as TodoWrite's list is), is a read:
    /// see [`Prepared::kind`] of the calls.
    fn kind(&self) -> ToolKind {
        ToolKind::Edit
    }

    fn description(&self) -> &str {
        include_str!("../../../prompts/tools/memory.md")
    }

    fn schema(&self) -> Value {
        wright_tools::schema_of::<MemoryArgs>()
    }

    /// Offered in plan mode and to read-only agents, which may only retrieve: a save or clear
    /// is refused there ([`Tool::prepare`]).
    fn usable_read_only(&self) -> bool {
        true
    }

    fn concurrency_safe(&self) -> bool {
        false
    }

    fn prepare(&self, args: Value, ctx: &ToolContext) -> Result<Box<dyn Prepared>, ToolError> {
        let args: MemoryArgs = wright_tools::parse_args(MEMORY, args, SHAPE)?;
        let call = self.check(args)?;
        if ctx.is_read_only() && !matches!(call, MemoryCall::Retrieve { .. }) {
            return Err(ToolError {
                code: ErrorCode::Refused,
                message: "nothing may be changed here (plan mode or a read-only agent): Memory \
                          may only retrieve"
                    .into(),
            });
        }
        Ok(Box::new(MemoryRun {
            call,
            paths: self.paths.clone(),
            session: self.session.clone(),
        }))
    }
}

impl MemoryTool {
    /// The call `args` ask for, or why they will not do.
    fn check(&self, args: MemoryArgs) -> Result<MemoryCall, ToolError> {
        let invalid = |problem: &str| wright_tools::invalid(MEMORY, problem, SHAPE);
        let scope = args.scope.map(MemoryScope::from);
        let tags = memory::normalize_tags(&args.tags).map_err(|e| invalid(&e))?;
        match args.action {
            Action::Save => {
                let content = args.content.unwrap_or_default().trim().to_string();
                if content.is_empty() {
                    return Err(invalid("a save needs `content`"));
                }
                if content.len() > MAX_CONTENT_BYTES {
                    return Err(invalid(&format!(
                        "`content` is {} bytes; a note keeps at most {MAX_CONTENT_BYTES}: save \
                         the gist, or several notes",
                        content.len()
                    )));
                }
                if holds_secret(&self.masker, &tags, &content) {
                    return Err(ToolError {
                        code: ErrorCode::Refused,
                        message: "the note holds what looks like a credential (a key, token or \
                                  password); memory never keeps secrets. Save it without the \
                                  value, e.g. say which variable or file holds it."
                            .into(),
                    });
                }
                Ok(MemoryCall::Save {
                    scope: scope.unwrap_or(MemoryScope::Project),
                    tags,
                    content,
                })
            }
            Action::Retrieve => Ok(MemoryCall::Retrieve {
                tags,
                query: args.query.unwrap_or_default(),
            }),
            Action::Clear => match args.id.map(|id| id.trim().to_string()) {
                Some(id) if !id.is_empty() => Ok(MemoryCall::ClearId { id, scope }),
                _ if !tags.is_empty() => Ok(MemoryCall::ClearTags { tags, scope }),
                _ => Err(invalid("a clear needs `id` or `tags`")),
            },
        }
    }
}

impl MemoryCall {
    /// Whether a clear removes `entry` (its id, or any of its tags); never for other calls.
    fn clears(&self, entry: &MemoryEntry) -> bool {
        match self {
            MemoryCall::ClearId { id, .. } => entry.id == *id,
            MemoryCall::ClearTags { tags, .. } => entry.tags.iter().any(|t| tags.contains(t)),
            MemoryCall::Save { .. } | MemoryCall::Retrieve { .. } => false,
        }
    }
}

/// A checked call, ready to run.
struct MemoryRun {
    call: MemoryCall,
    paths: MemoryPaths,
    session: SessionMemory,
}

impl Prepared for MemoryRun {
    fn kind(&self) -> Option<ToolKind> {
        let session_only = match &self.call {
            MemoryCall::Retrieve { .. } => true,
            MemoryCall::Save { scope, .. } => *scope == MemoryScope::Session,
            MemoryCall::ClearId { scope, .. } | MemoryCall::ClearTags { scope, .. } => {
                *scope == Some(MemoryScope::Session)
            }
        };
        if session_only {
            return Some(ToolKind::Read);
        }
        // Global memory reaches every project's sessions: asked about in `auto-edit` too (as
        // a tool from outside is), so a model steered by one repository cannot plant a note
        // in all the others unasked.
        let global = match &self.call {
            MemoryCall::Retrieve { .. } => false,
            MemoryCall::Save { scope, .. } => *scope == MemoryScope::Global,
            MemoryCall::ClearId { scope, .. } | MemoryCall::ClearTags { scope, .. } => {
                *scope != Some(MemoryScope::Project)
            }
        };
        global.then_some(ToolKind::External)
    }

    /// What a lasting save or clear would change, as a diff of memory (the approval shows a
    /// file change as one): the note added, or the entries removed.
    fn preview<'a>(&'a mut self, _: &'a ToolContext) -> BoxFuture<'a, Option<String>> {
        let text = match &self.call {
            MemoryCall::Save {
                scope,
                tags,
                content,
            } => {
                let place = self
                    .paths
                    .file(*scope)
                    .map(|file| format!(" ({})", file.path().display()))
                    .unwrap_or_default();
                let mut diff = format!("+++ {scope} memory{place}\n");
                if !tags.is_empty() {
                    diff.push_str(&format!("+tags: {}\n", tags.join(", ")));
                }
                for line in content.lines() {
                    diff.push_str(&format!("+{line}\n"));
                }
                Some(diff)
            }
            MemoryCall::ClearId { scope, .. } | MemoryCall::ClearTags { scope, .. } => {
                let Recalled { entries, .. } = recall(&self.paths, Some(&self.session));
                let mut diff = "--- memory\n".to_string();
                for entry in entries
                    .iter()
                    .filter(|e| scope.is_none_or(|s| s == e.scope) && self.call.clears(e))
                {
                    for line in entry_text(entry).lines() {
                        diff.push_str(&format!("-{line}\n"));
                    }
                }
                Some(diff)
            }
            MemoryCall::Retrieve { .. } => None,
        };
        Box::pin(std::future::ready(text))
    }

    fn run<'a>(self: Box<Self>, _: &'a ToolContext) -> BoxFuture<'a, ToolResult> {
        Box::pin(async move {
            let MemoryRun {
                call,
                paths,
                session,
            } = *self;
            match call {
                MemoryCall::Save {
                    scope,
                    tags,
                    content,
                } => save(&paths, &session, scope, tags, content),
                MemoryCall::Retrieve { tags, query } => retrieve(&paths, &session, &tags, &query),
                MemoryCall::ClearId { scope, .. } | MemoryCall::ClearTags { scope, .. } => {
                    clear(&paths, &session, scope, &|e: &MemoryEntry| call.clears(e))
                }
            }
        })
    }
}

fn tags_note(tags: &[String]) -> String {
    if tags.is_empty() {
        String::new()
    } else {
        format!(" (tags: {})", tags.join(", "))
    }
}

fn store_failure(error: &MemoryError) -> ToolResult {
    let code = match error {
        MemoryError::Full { .. } => ErrorCode::Refused,
        _ => ErrorCode::Io,
    };
    ToolResult::error(code, error.to_string())
}

fn save(
    paths: &MemoryPaths,
    session: &SessionMemory,
    scope: MemoryScope,
    tags: Vec<String>,
    content: String,
) -> ToolResult {
    let saved = match paths.file(scope) {
        Some(file) => file.add(tags, content),
        None => session.add(tags, content),
    };
    match saved {
        Ok(entry) => ToolResult::success(
            format!(
                "Saved to {scope} memory as {}{}.",
                entry.id,
                tags_note(&entry.tags)
            ),
            json!({ "id": entry.id, "scope": scope, "tags": entry.tags }),
        ),
        Err(e) => store_failure(&e),
    }
}

/// One entry as a retrieve shows it: a header line, then its content.
pub fn entry_text(entry: &MemoryEntry) -> String {
    format!(
        "[{}] {} · {} · {}\n{}",
        entry.id,
        entry.scope,
        if entry.tags.is_empty() {
            "no tags".to_string()
        } else {
            entry.tags.join(", ")
        },
        entry.created_at.format("%Y-%m-%d"),
        entry.content
    )
}

/// The header line of an entry's text and the start of its content, with a note of the rest.
fn shortened(whole: &str) -> String {
    let kept: String = whole.chars().take(SHORTENED_CHARS).collect();
    let left = whole.chars().count() - kept.chars().count();
    format!("{kept}… [{left} more characters; a narrower query shows it whole]")
}

fn retrieve(
    paths: &MemoryPaths,
    session: &SessionMemory,
    tags: &[String],
    query: &str,
) -> ToolResult {
    let Recalled { entries, problems } = recall(paths, Some(session));
    let found = memory::search(&entries, tags, query, SEARCH_LIMIT);
    let mut text = if found.is_empty() {
        "No memory entry matches.".to_string()
    } else {
        let mut budget = MAX_RETRIEVED_CHARS;
        let shown: Vec<String> = found
            .iter()
            .map(|entry| {
                let whole = entry_text(entry);
                let length = whole.chars().count();
                if length <= budget {
                    budget -= length;
                    return whole;
                }
                budget = 0;
                shortened(&whole)
            })
            .collect();
        format!(
            "{} of {} entries:\n\n{}",
            found.len(),
            entries.len(),
            shown.join("\n\n")
        )
    };
    for (_, problem) in &problems {
        text.push_str(&format!("\n\nWarning: {problem}"));
    }
    let data: Vec<Value> = found
        .iter()
        .map(|e| {
            json!({
                "id": e.id,
                "scope": e.scope,
                "tags": e.tags,
                "created_at": e.created_at,
                "content": e.content,
            })
        })
        .collect();
    ToolResult::success(text, json!({ "entries": data }))
}

fn clear(
    paths: &MemoryPaths,
    session: &SessionMemory,
    scope: Option<MemoryScope>,
    matches: &dyn Fn(&MemoryEntry) -> bool,
) -> ToolResult {
    let mut removed: Vec<MemoryEntry> = Vec::new();
    let mut problems: Vec<String> = Vec::new();
    for each in MemoryScope::ALL {
        if scope.is_some_and(|s| s != each) {
            continue;
        }
        match paths.file(each) {
            Some(file) => match file.remove(matches) {
                Ok(gone) => removed.extend(gone),
                Err(e) => problems.push(e.to_string()),
            },
            None => removed.extend(session.remove(matches)),
        }
    }
    let ids: Vec<&str> = removed.iter().map(|e| e.id.as_str()).collect();
    if removed.is_empty() {
        let mut message = "No memory entry matches; nothing was cleared.".to_string();
        for problem in &problems {
            message.push_str(&format!("\n{problem}"));
        }
        return ToolResult::error(ErrorCode::NotFound, message);
    }
    let mut text = format!(
        "Cleared {} {}: {}.",
        removed.len(),
        if removed.len() == 1 {
            "entry"
        } else {
            "entries"
        },
        ids.join(", ")
    );
    for problem in &problems {
        text.push_str(&format!("\nWarning: {problem}"));
    }
    ToolResult::success(text, json!({ "cleared": ids }))
}

#[cfg(test)]
mod tests;
