use super::*;
use pretty_assertions::assert_eq;
use std::path::Path;
use wright_protocol::{ToolCall, ToolStatus};
use wright_tools::ToolRegistry;

struct Fixture {
    home: tempfile::TempDir,
    project: tempfile::TempDir,
    session: SessionMemory,
}

impl Fixture {
    fn new() -> Self {
        Self {
            home: tempfile::tempdir().unwrap(),
            project: tempfile::tempdir().unwrap(),
            session: SessionMemory::default(),
        }
    }

    fn paths(&self) -> MemoryPaths {
        MemoryPaths::new(self.home.path(), self.project.path(), None)
    }

    fn registry(&self) -> ToolRegistry {
        let mut tools = ToolRegistry::new();
        tools.register(Box::new(MemoryTool::new(
            self.paths(),
            self.session.clone(),
            &SecretMasker::default(),
        )));
        tools
    }

    fn ctx(&self) -> ToolContext {
        ToolContext::new(self.project.path()).unwrap()
    }

    async fn call(&self, args: Value) -> ToolResult {
        self.call_in(args, &self.ctx()).await
    }

    async fn call_in(&self, args: Value, ctx: &ToolContext) -> ToolResult {
        let call = ToolCall {
            tool: MEMORY.into(),
            args,
        };
        self.registry().run(&call, ctx).await
    }
}

fn ids(result: &ToolResult) -> Vec<String> {
    result.data["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["id"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn a_save_is_retrieved_by_words_and_by_tags() {
    let f = Fixture::new();
    let saved = f
        .call(json!({"action": "save", "tags": ["Tests"], "content": "use cargo nextest"}))
        .await;
    assert_eq!(saved.status, ToolStatus::Success, "{}", saved.text);
    let id = saved.data["id"].as_str().unwrap().to_string();
    let by_words = f
        .call(json!({"action": "retrieve", "query": "nextest"}))
        .await;
    assert_eq!(ids(&by_words), std::slice::from_ref(&id));
    assert!(
        by_words.text.contains("project · tests ·"),
        "{}",
        by_words.text
    );
    let by_tag = f
        .call(json!({"action": "retrieve", "tags": ["tests"]}))
        .await;
    assert_eq!(ids(&by_tag), [id]);
    let none = f
        .call(json!({"action": "retrieve", "query": "docker"}))
        .await;
    assert_eq!(none.text, "No memory entry matches.");
}

#[tokio::test]
async fn session_memory_stays_in_the_process() {
    let f = Fixture::new();
    let saved = f
        .call(json!({"action": "save", "scope": "session", "content": "scratch note"}))
        .await;
    assert_eq!(saved.status, ToolStatus::Success, "{}", saved.text);
    assert_eq!(f.session.entries().len(), 1);
    assert!(!f.home.path().join("memory").exists());
}

#[tokio::test]
async fn clear_by_id_and_by_tags() {
    let f = Fixture::new();
    let a = f
        .call(json!({"action": "save", "tags": ["a"], "content": "one"}))
        .await;
    f.call(json!({"action": "save", "scope": "global", "tags": ["b"], "content": "two"}))
        .await;
    f.call(json!({"action": "save", "scope": "session", "tags": ["b"], "content": "three"}))
        .await;
    let id = a.data["id"].as_str().unwrap();
    let cleared = f.call(json!({"action": "clear", "id": id})).await;
    assert_eq!(cleared.status, ToolStatus::Success, "{}", cleared.text);
    let cleared = f.call(json!({"action": "clear", "tags": ["b"]})).await;
    assert_eq!(cleared.data["cleared"].as_array().unwrap().len(), 2);
    let left = f.call(json!({"action": "retrieve"})).await;
    assert_eq!(left.text, "No memory entry matches.");
    let again = f.call(json!({"action": "clear", "id": id})).await;
    assert_eq!(again.status, ToolStatus::Error);
}

#[tokio::test]
async fn a_secret_is_refused() {
    let f = Fixture::new();
    let key = format!("sk-proj-{}", "a1B2".repeat(8));
    let result = f
        .call(json!({"action": "save", "content": format!("the key is {key}")}))
        .await;
    assert_eq!(result.status, ToolStatus::Error);
    assert!(result.text.contains("credential"), "{}", result.text);
    assert!(!result.text.contains(&key));
    assert!(!f.home.path().join("memory").exists());
}

#[tokio::test]
async fn a_read_only_agent_retrieves_but_does_not_save() {
    let f = Fixture::new();
    let ctx = f.ctx().with_read_only(true);
    let saved = f
        .call_in(json!({"action": "save", "content": "x"}), &ctx)
        .await;
    assert_eq!(saved.status, ToolStatus::Error);
    assert!(saved.text.contains("may only retrieve"), "{}", saved.text);
    let read = f.call_in(json!({"action": "retrieve"}), &ctx).await;
    assert_eq!(read.status, ToolStatus::Success);
}

#[tokio::test]
async fn a_note_too_long_and_a_bad_action_are_invalid() {
    let f = Fixture::new();
    let long = f
        .call(json!({"action": "save", "content": "x".repeat(MAX_CONTENT_BYTES + 1)}))
        .await;
    assert_eq!(long.status, ToolStatus::Error);
    let bad = f.call(json!({"action": "forget"})).await;
    assert_eq!(bad.status, ToolStatus::Error);
    let scope = f
        .call(json!({"action": "save", "scope": "team", "content": "x"}))
        .await;
    assert_eq!(scope.status, ToolStatus::Error);
}

#[tokio::test]
async fn a_damaged_file_is_reported_and_the_rest_still_found() {
    let f = Fixture::new();
    f.call(json!({"action": "save", "scope": "global", "content": "global note"}))
        .await;
    let project = f.paths().file(MemoryScope::Project).unwrap();
    std::fs::create_dir_all(project.path().parent().unwrap()).unwrap();
    std::fs::write(project.path(), "garbage\n").unwrap();
    let found = f.call(json!({"action": "retrieve", "query": "note"})).await;
    assert_eq!(found.status, ToolStatus::Success);
    assert_eq!(ids(&found).len(), 1);
    assert!(found.text.contains("is damaged"), "{}", found.text);
    assert!(memory_index(&f.paths()).contains("project: cannot be read"));
}

#[test]
fn saves_of_lasting_memory_are_asked_about_and_the_rest_are_reads() {
    let f = Fixture::new();
    let tools = f.registry();
    let ctx = f.ctx();
    let kind = |args: Value| {
        tools
            .prepare(
                &ToolCall {
                    tool: MEMORY.into(),
                    args,
                },
                &ctx,
            )
            .map(|p| p.kind())
            .ok()
    };
    assert_eq!(
        kind(json!({"action": "save", "content": "x"})),
        Some(ToolKind::Edit)
    );
    assert_eq!(
        kind(json!({"action": "save", "scope": "session", "content": "x"})),
        Some(ToolKind::Read)
    );
    assert_eq!(kind(json!({"action": "retrieve"})), Some(ToolKind::Read));
    // A clear of every scope reaches global memory: asked about in auto-edit too.
    assert_eq!(
        kind(json!({"action": "clear", "tags": ["x"]})),
        Some(ToolKind::External)
    );
    assert_eq!(
        kind(json!({"action": "clear", "scope": "project", "tags": ["x"]})),
        Some(ToolKind::Edit)
    );
    assert_eq!(
        kind(json!({"action": "save", "scope": "global", "content": "x"})),
        Some(ToolKind::External)
    );
}

#[test]
fn the_index_lists_project_and_global_tags() {
    let f = Fixture::new();
    let paths = f.paths();
    paths
        .file(MemoryScope::Global)
        .unwrap()
        .add(vec!["style".into()], "x".into())
        .unwrap();
    let index = memory_index(&paths);
    assert!(index.ends_with("- global, 1 entry: style (1)"), "{index}");
    assert_eq!(
        memory_index(&MemoryPaths::new(
            Path::new("/nonexistent"),
            Path::new("/p"),
            None
        )),
        ""
    );
}

#[tokio::test]
async fn the_approval_sees_the_note_added_or_the_entries_removed_as_a_diff() {
    let f = Fixture::new();
    let saved = f
        .call(json!({"action": "save", "tags": ["ops"], "content": "Deploy with make.\nThen tag."}))
        .await;
    let id = saved.data["id"].as_str().unwrap().to_string();
    let tools = f.registry();
    let ctx = f.ctx();
    let preview = |args: Value| {
        let call = ToolCall {
            tool: MEMORY.into(),
            args,
        };
        let tools = &tools;
        let ctx = &ctx;
        async move {
            let mut prepared = tools.prepare(&call, ctx).map_err(|_| ()).unwrap();
            prepared.preview(ctx).await
        }
    };
    let save =
        preview(json!({"action": "save", "scope": "global", "tags": ["x"], "content": "A.\nB."}))
            .await
            .unwrap();
    let global = f.paths().file(MemoryScope::Global).unwrap();
    assert_eq!(
        save,
        format!(
            "+++ global memory ({})\n+tags: x\n+A.\n+B.\n",
            global.path().display()
        )
    );
    let clear = preview(json!({"action": "clear", "tags": ["ops"]}))
        .await
        .unwrap();
    assert!(
        clear.starts_with(&format!("--- memory\n-[{id}] project · ops · "))
            && clear.ends_with("\n-Deploy with make.\n-Then tag.\n"),
        "{clear}"
    );
    assert_eq!(preview(json!({"action": "retrieve"})).await, None);
}

#[tokio::test]
async fn a_retrieve_shows_whole_entries_up_to_a_bound_and_the_rest_shortened() {
    let f = Fixture::new();
    for i in 0..3 {
        let content = format!("note {i} {}", "word ".repeat(1_500));
        f.call(json!({"action": "save", "tags": ["big"], "content": content}))
            .await;
    }
    let found = f.call(json!({"action": "retrieve", "tags": ["big"]})).await;
    assert_eq!(ids(&found).len(), 3);
    assert_eq!(
        found
            .text
            .matches("a narrower query shows it whole")
            .count(),
        2
    );
    assert!(found.text.chars().count() < MAX_RETRIEVED_CHARS + 2 * SHORTENED_CHARS + 500);
    assert!(found.data["entries"][0]["content"].as_str().unwrap().len() > 7_000);
}

#[test]
fn the_schema_names_the_actions_and_scopes() {
    let f = Fixture::new();
    let schema = f.registry().get(MEMORY).unwrap().schema().to_string();
    for name in ["save", "retrieve", "clear", "project", "global", "session"] {
        assert!(schema.contains(&format!("\"{name}\"")), "{name}: {schema}");
    }
}
