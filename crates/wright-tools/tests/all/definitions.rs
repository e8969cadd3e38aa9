use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use wright_protocol::{ErrorCode, ToolCall, ToolResult};
use wright_tools::{DefinitionsData, DefinitionsTool, ToolContext, ToolRegistry, compress};

use crate::common::{code, project, write};

async fn definitions(ctx: &ToolContext, args: Value) -> ToolResult {
    let mut registry = ToolRegistry::new();
    registry.register(Box::new(DefinitionsTool));
    let call = ToolCall {
        tool: "Definitions".into(),
        args,
    };
    registry.run(&call, ctx).await
}

fn data(result: &ToolResult) -> DefinitionsData {
    assert!(result.error.is_none(), "{result:?}");
    serde_json::from_value(result.data.clone()).unwrap()
}

fn names(data: &DefinitionsData) -> Vec<(String, String, String, usize)> {
    data.definitions
        .iter()
        .map(|d| (d.file.clone(), d.name.clone(), d.kind.clone(), d.line))
        .collect()
}

fn n(file: &str, name: &str, kind: &str, line: usize) -> (String, String, String, usize) {
    (file.into(), name.into(), kind.into(), line)
}

#[tokio::test]
async fn a_file_lists_its_definitions_with_signatures_in_text_and_data() {
    let (_dir, ctx) = project();
    write(
        &ctx,
        "src/lib.rs",
        "pub struct Ast;\n\npub fn parse(input: &str) -> Result<Ast> {\n    todo!()\n}\n",
    );
    let result = definitions(&ctx, json!({"path": "src/lib.rs"})).await;
    let got = data(&result);
    assert_eq!(
        names(&got),
        vec![
            n("src/lib.rs", "Ast", "struct", 1),
            n("src/lib.rs", "parse", "function", 3)
        ]
    );
    assert!(
        result.text.contains(
            "src/lib.rs\n    1 pub struct Ast;\n    3 pub fn parse(input: &str) -> Result<Ast>\n"
        ),
        "{}",
        result.text
    );
}

#[tokio::test]
async fn a_directory_is_walked_in_order_and_gitignore_is_honoured() {
    let (_dir, ctx) = project();
    write(&ctx, ".gitignore", "target/\n");
    write(&ctx, "README.md", "# fn not_code() {}\n");
    write(&ctx, "b.py", "def b():\n    pass\n");
    write(&ctx, "a/x.go", "package a\n\nfunc X() {}\n");
    write(&ctx, "target/gen.rs", "fn hidden() {}\n");
    write(
        &ctx,
        "web/app.ts",
        "interface I { x: number }\nfunction f(): void {}\n",
    );
    write(&ctx, "Main.java", "class Main {\n  void run() {}\n}\n");
    let got = data(&definitions(&ctx, json!({"path": "."})).await);
    assert_eq!(
        names(&got),
        vec![
            n("Main.java", "Main", "class", 1),
            n("Main.java", "run", "method", 2),
            n("a/x.go", "X", "function", 3),
            n("b.py", "b", "function", 1),
            n("web/app.ts", "I", "interface", 1),
            n("web/app.ts", "f", "function", 2),
        ]
    );
    assert_eq!(got.files, 4);
    // README.md (.gitignore is hidden, so not walked).
    assert_eq!(got.skipped.unknown_language, 1);
}

#[tokio::test]
async fn kinds_filter_the_definitions() {
    let (_dir, ctx) = project();
    write(&ctx, "a.rs", "struct S;\nenum E { A }\nfn f() {}\n");
    let got = data(
        &definitions(
            &ctx,
            json!({"path": "a.rs", "kinds": ["struct", "Function"]}),
        )
        .await,
    );
    assert_eq!(
        names(&got),
        vec![n("a.rs", "S", "struct", 1), n("a.rs", "f", "function", 3)]
    );
}

#[tokio::test]
async fn binary_huge_and_unknown_files_are_skipped_with_counts() {
    let (_dir, ctx) = project();
    write(&ctx, "ok.c", "int main(void) { return 0; }\n");
    write(&ctx, "bin.c", b"int x;\0\x01\x02");
    write(&ctx, "huge.js", "var x = 1;\n".repeat(100_000));
    write(&ctx, "notes.txt", "fn not_code() {}\n");
    write(&ctx, "a.md", "# a\n");
    write(&ctx, "b.md", "# b\n");
    write(&ctx, "Makefile", "all:\n");
    let result = definitions(&ctx, json!({"path": "."})).await;
    let got = data(&result);
    assert_eq!(names(&got), vec![n("ok.c", "main", "function", 1)]);
    assert_eq!(got.skipped.binary, 1);
    assert_eq!(got.skipped.too_large, 1);
    assert_eq!(got.skipped.unknown_language, 4);
    assert!(result.text.contains("skipped 1 binary"), "{}", result.text);
    assert!(
        result
            .text
            .contains("skipped 4 of unknown language (.md 2, (no extension) 1, .txt 1)"),
        "{}",
        result.text
    );
}

#[tokio::test]
async fn a_broken_file_is_reported_partial_not_an_error() {
    let (_dir, ctx) = project();
    write(&ctx, "bad.rs", "fn good() {}\nfn broken( {\n");
    let result = definitions(&ctx, json!({"path": "bad.rs"})).await;
    let got = data(&result);
    assert_eq!(got.partial, vec!["bad.rs".to_string()]);
    assert!(names(&got).contains(&n("bad.rs", "good", "function", 1)));
    assert!(
        result.text.contains("bad.rs (partial: parse errors)"),
        "{}",
        result.text
    );
}

#[tokio::test]
async fn a_path_outside_the_project_is_refused() {
    let (_dir, ctx) = project();
    let result = definitions(&ctx, json!({"path": "../"})).await;
    assert_eq!(code(&result), Some(ErrorCode::PathOutsideProject));
    let result = definitions(&ctx, json!({"path": "/etc"})).await;
    assert_eq!(code(&result), Some(ErrorCode::PathOutsideProject));
}

#[tokio::test]
async fn history_keeps_counts_and_the_first_definitions_and_is_stable() {
    let (_dir, ctx) = project();
    let source: String = (0..30).map(|i| format!("fn f{i}() {{}}\n")).collect();
    write(&ctx, "many.rs", source);
    let result = definitions(&ctx, json!({"path": "many.rs"})).await;
    let once = compress("Definitions", &result);
    let data = once["data"].clone();
    assert_eq!(data["total"], json!(30));
    assert_eq!(data["files"], json!(1));
    assert_eq!(data["more"], json!(20));
    assert_eq!(data["definitions"][0], json!("many.rs:1 function f0"));
    assert_eq!(data["definitions"].as_array().unwrap().len(), 10);
    let again = ToolResult {
        data: data.clone(),
        ..result.clone()
    };
    let twice = compress("Definitions", &again);
    assert_eq!(twice["data"], data);
}

#[tokio::test]
async fn a_tree_past_the_cap_lists_the_first_definitions_in_order_and_kinds_count_alone() {
    let (_dir, ctx) = project();
    // 60 files of a struct and 99 functions each: 6,000 definitions, 5,000 shown at most.
    for i in 0..60 {
        let mut source = format!("struct S{i};\n");
        source.extend((0..99).map(|j| format!("fn f{i}_{j}() {{}}\n")));
        if i == 55 {
            source.push_str("fn broken( {\n");
        }
        write(&ctx, &format!("m{i:02}.rs"), &source);
    }
    let result = definitions(&ctx, json!({"path": "."})).await;
    let got = data(&result);
    assert_eq!(got.definitions.len(), 5_000);
    let last = &got.definitions[4_999];
    assert_eq!(
        (last.file.as_str(), last.name.as_str()),
        ("m49.rs", "f49_98")
    );
    assert_eq!(got.files, 50);
    assert!(got.truncated);
    // The broken file is past the cap: not listed.
    assert!(got.partial.is_empty(), "{:?}", got.partial);
    assert!(result.text.contains("cut at"), "{}", result.text);

    // Only the kinds asked for count towards the cap: every file's struct is listed.
    let got = data(&definitions(&ctx, json!({"path": ".", "kinds": ["struct"]})).await);
    let structs: Vec<String> = got.definitions.iter().map(|d| d.name.clone()).collect();
    let expected: Vec<String> = (0..60).map(|i| format!("S{i}")).collect();
    assert_eq!(structs, expected);
    assert_eq!(got.files, 60);
    assert!(!got.truncated);
    assert_eq!(got.partial, vec!["m55.rs".to_string()]);
}
