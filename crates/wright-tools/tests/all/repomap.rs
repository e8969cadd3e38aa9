use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use wright_protocol::{ToolCall, ToolResult};
use wright_tools::{RepoMapData, RepoMapTool, ToolContext, ToolRegistry, compress};

use crate::common::{project, write};

async fn repo_map(ctx: &ToolContext, args: Value) -> ToolResult {
    let mut registry = ToolRegistry::new();
    registry.register(Box::new(RepoMapTool));
    let call = ToolCall {
        tool: "RepoMap".into(),
        args,
    };
    registry.run(&call, ctx).await
}

fn data(result: &ToolResult) -> RepoMapData {
    assert!(result.error.is_none(), "{result:?}");
    serde_json::from_value(result.data.clone()).unwrap()
}

/// A small project: `core` is used by three files, `special` by one.
fn small(ctx: &ToolContext) {
    write(
        ctx,
        "src/core.rs",
        "pub struct Config {\n    pub depth: usize,\n}\n\npub fn load_config(path: &str) -> Config {\n    Config { depth: path.len() }\n}\n",
    );
    write(
        ctx,
        "src/a.rs",
        "use crate::core::load_config;\nfn a() { load_config(\"a\"); }\n",
    );
    write(ctx, "src/b.rs", "fn b() -> Config { load_config(\"b\") }\n");
    write(ctx, "src/c.py", "def c():\n    return load_config('c')\n");
    write(ctx, "src/special.rs", "pub fn special_helper() {}\n");
    write(ctx, "src/x.rs", "fn x() { special_helper(); }\n");
    write(ctx, "README.md", "# not code\n");
    write(ctx, "logo.rs", b"\x00\x01binary".as_slice());
}

#[tokio::test]
async fn the_most_used_definitions_come_first_with_their_signatures() {
    let (_dir, ctx) = project();
    small(&ctx);
    let result = repo_map(&ctx, json!({})).await;
    let got = data(&result);
    assert_eq!(got.files, 6);
    assert_eq!(got.skipped.binary, 1);
    assert_eq!(got.skipped.unknown_language, 1);
    assert_eq!(got.max_tokens, 2000);
    assert_eq!(got.shown, got.total, "a small project fits whole");
    assert_eq!(got.map[0].file, "src/core.rs");
    let core: Vec<(&str, &str, usize)> = got.map[0]
        .definitions
        .iter()
        .map(|d| (d.name.as_str(), d.kind.as_str(), d.line))
        .collect();
    assert_eq!(
        core,
        vec![("Config", "struct", 1), ("load_config", "function", 5)]
    );
    assert!(
        result.text.contains(
            "src/core.rs\n    1 pub struct Config\n    5 pub fn load_config(path: &str) -> Config\n"
        ),
        "{}",
        result.text
    );
    assert!(
        result.text.starts_with("Repository map: "),
        "{}",
        result.text
    );
    assert!(result.text.contains("skipped 1 binary"), "{}", result.text);
}

#[tokio::test]
async fn focus_and_the_rounds_files_lean_the_ranking() {
    let (_dir, ctx) = project();
    small(&ctx);
    let plain = data(&repo_map(&ctx, json!({})).await);
    assert_ne!(plain.map[0].file, "src/special.rs");

    let focused = data(&repo_map(&ctx, json!({"focus": ["src/x.rs"]})).await);
    assert_eq!(focused.map[0].file, "src/special.rs", "{focused:?}");
    assert_eq!(focused.focus, vec!["src/x.rs"]);

    let by_name =
        data(&repo_map(&ctx, json!({"focus": ["special_helper", "no_such_thing"]})).await);
    assert_eq!(by_name.map[0].file, "src/special.rs");
    assert_eq!(by_name.unknown_focus, vec!["no_such_thing"]);

    // A file read in this round counts as focus; a new round forgets it.
    ctx.start_round(Vec::new());
    let read = crate::common::run(&ctx, "Read", json!({"file_path": "src/x.rs"})).await;
    assert!(read.error.is_none(), "{read:?}");
    let round = repo_map(&ctx, json!({})).await;
    let round_data = data(&round);
    assert_eq!(round_data.focus, Vec::<String>::new());
    assert_eq!(round_data.recent, 1);
    assert_eq!(round_data.map[0].file, "src/special.rs");
    assert!(
        round
            .text
            .contains("leaning towards the 1 file of this round"),
        "{}",
        round.text
    );
    ctx.start_round(Vec::new());
    assert_eq!(data(&repo_map(&ctx, json!({})).await).recent, 0);
}

#[tokio::test]
async fn a_long_focus_is_not_a_path_and_cannot_blow_the_budget() {
    let (_dir, ctx) = project();
    small(&ctx);
    let long = "x".repeat(4_000);
    let many: Vec<String> = (0..40).map(|i| format!("missing_name_{i}")).collect();
    let result = repo_map(&ctx, json!({"focus": [long], "max_tokens": 1000})).await;
    assert!(
        result.text.chars().count() <= 3_000,
        "{}",
        result.text.chars().count()
    );
    assert_eq!(data(&result).unknown_focus.len(), 1);
    let result = repo_map(&ctx, json!({"focus": many, "max_tokens": 1000})).await;
    assert!(
        result.text.chars().count() <= 3_000,
        "{}",
        result.text.chars().count()
    );
    assert!(result.text.contains("and 32 more"), "{}", result.text);
    assert!(data(&result).shown > 0);
}

#[tokio::test]
async fn a_focus_outside_the_project_is_not_followed() {
    let (_dir, ctx) = project();
    small(&ctx);
    let got = data(&repo_map(&ctx, json!({"focus": ["../", "/etc/passwd"]})).await);
    // Not paths in the project: taken for names, which nothing defines.
    assert_eq!(got.unknown_focus, vec!["../", "/etc/passwd"]);
    assert_eq!(got.files, 6);
}

#[tokio::test]
async fn the_map_fits_its_token_budget() {
    let (_dir, ctx) = project();
    for i in 0..120 {
        let body: String = (0..10)
            .map(|j| {
                format!("pub fn function_number_{i}_{j}(argument: usize) -> usize {{ argument }}\n")
            })
            .collect();
        write(&ctx, &format!("src/m{i:03}.rs"), body);
    }
    let small = repo_map(&ctx, json!({"max_tokens": 1000})).await;
    let small_data = data(&small);
    assert_eq!(small_data.total, 1200);
    assert!(
        small_data.shown > 10 && small_data.shown < 1200,
        "{}",
        small_data.shown
    );
    assert!(
        small.text.chars().count() <= 3 * 1000,
        "{}",
        small.text.chars().count()
    );
    assert!(small.text.contains("more not shown"), "{}", small.text);

    let big = repo_map(&ctx, json!({"max_tokens": 8000})).await;
    let big_data = data(&big);
    assert!(big_data.shown > small_data.shown);
    assert!(big.text.chars().count() <= 3 * 8000);

    // Out of range: held to the bounds.
    assert_eq!(
        data(&repo_map(&ctx, json!({"max_tokens": 5})).await).max_tokens,
        1000
    );
    assert_eq!(
        data(&repo_map(&ctx, json!({"max_tokens": 99999})).await).max_tokens,
        8000
    );
}

#[tokio::test]
async fn a_second_map_of_an_unchanged_tree_parses_nothing() {
    let (_dir, ctx) = project();
    let cache = tempfile::tempdir().unwrap();
    let ctx = ctx.with_code_cache(Some(cache.path().join("code")));
    small(&ctx);
    let first = data(&repo_map(&ctx, json!({})).await);
    assert_eq!(first.cached, 0);
    let second = data(&repo_map(&ctx, json!({})).await);
    assert_eq!(second.cached, 6);
    assert_eq!(second.map, first.map);

    write(
        &ctx,
        "src/special.rs",
        "pub fn special_helper() {}\npub fn renamed_helper() {}\n",
    );
    let third = data(&repo_map(&ctx, json!({})).await);
    assert_eq!(third.cached, 5);
    assert_eq!(third.total, first.total + 1);

    // A file gone is forgotten by the next map of the whole tree.
    std::fs::remove_file(ctx.root().join("src/x.rs")).unwrap();
    let fourth = data(&repo_map(&ctx, json!({})).await);
    assert_eq!((fourth.files, fourth.cached), (5, 5));
    let cache_text: String = std::fs::read_dir(cache.path().join("code"))
        .unwrap()
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
        .collect();
    assert!(!cache_text.contains("src/x.rs"), "{cache_text}");
    assert!(cache_text.contains("src/special.rs"));
}

#[tokio::test]
async fn history_keeps_the_counts_and_the_files_names_and_is_stable() {
    let (_dir, ctx) = project();
    small(&ctx);
    let result = repo_map(&ctx, json!({})).await;
    let once = compress("RepoMap", &result);
    let data = once["data"].clone();
    assert_eq!(data["files"], json!(6));
    assert_eq!(data["map"][0], json!("src/core.rs: Config, load_config"));
    assert!(data.get("cached").is_none(), "{data}");
    let again = ToolResult {
        data: data.clone(),
        ..result.clone()
    };
    assert_eq!(compress("RepoMap", &again)["data"], data);
}

#[tokio::test]
async fn an_empty_project_says_so() {
    let (_dir, ctx) = project();
    write(&ctx, "notes.txt", "nothing to parse\n");
    let result = repo_map(&ctx, json!({})).await;
    let got = data(&result);
    assert_eq!((got.files, got.total, got.shown), (0, 0, 0));
    assert!(
        result
            .text
            .starts_with("Repository map: 0 of 0 definitions in 0 files"),
        "{}",
        result.text
    );
}
