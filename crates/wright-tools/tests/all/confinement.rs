//! The file tools stay inside the project (issue 6): `..`, absolute paths, symlinks pointing
//! out, and symlinks swapped in after a path was checked; `allow_outside_project` roots let
//! chosen directories in.
#![cfg(unix)]

use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use wright_protocol::{ErrorCode, ToolCall, ToolResult};
use wright_tools::{ToolContext, ToolRegistry};

use crate::common::{code, project};

/// A directory outside the project holding `secret.txt`.
fn outside() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("secret.txt"), "secret\n").unwrap();
    dir
}

async fn run(ctx: &ToolContext, tool: &str, args: Value) -> ToolResult {
    let call = ToolCall {
        tool: tool.into(),
        args,
    };
    ToolRegistry::builtin().run(&call, ctx).await
}

async fn read(ctx: &ToolContext, path: &str) -> ToolResult {
    run(ctx, "Read", json!({"file_path": path})).await
}

async fn write(ctx: &ToolContext, path: &str, content: &str) -> ToolResult {
    run(ctx, "Write", json!({"file_path": path, "content": content})).await
}

async fn edit(ctx: &ToolContext, path: &str) -> ToolResult {
    let args = json!({"file_path": path, "old_string": "secret", "new_string": "changed"});
    run(ctx, "Edit", args).await
}

fn secret_of(dir: &Path) -> String {
    std::fs::read_to_string(dir.join("secret.txt")).unwrap()
}

/// The names in `dir`, sorted.
fn entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[tokio::test]
async fn a_symlink_pointing_outside_is_refused_for_read_write_and_edit() {
    let (_dir, ctx) = project();
    let out = outside();
    symlink(out.path().join("secret.txt"), ctx.root().join("link.txt")).unwrap();
    let ctx = ctx.allowing_unread_edits();
    let outcomes = [
        code(&read(&ctx, "link.txt").await),
        code(&write(&ctx, "link.txt", "overwritten").await),
        code(&edit(&ctx, "link.txt").await),
    ];
    assert_eq!(outcomes, [Some(ErrorCode::PathOutsideProject); 3]);
    assert_eq!(secret_of(out.path()), "secret\n");
}

#[tokio::test]
async fn a_symlinked_directory_component_pointing_outside_is_refused() {
    let (_dir, ctx) = project();
    let out = outside();
    symlink(out.path(), ctx.root().join("linked")).unwrap();
    let read = read(&ctx, "linked/secret.txt").await;
    let written = write(&ctx, "linked/new.txt", "x").await;
    let nested = write(&ctx, "linked/deeper/new.txt", "x").await;
    assert_eq!(code(&read), Some(ErrorCode::PathOutsideProject));
    assert_eq!(code(&written), Some(ErrorCode::PathOutsideProject));
    assert_eq!(code(&nested), Some(ErrorCode::PathOutsideProject));
    assert_eq!(entries(out.path()), vec!["secret.txt"]);
}

#[tokio::test]
async fn dot_dot_escapes_are_refused() {
    let (dir, ctx) = project();
    std::fs::create_dir(ctx.root().join("src")).unwrap();
    let parent = dir.path().parent().unwrap();
    let name = format!("wright-escape-{}.txt", std::process::id());
    let outcomes = [
        code(&write(&ctx, &format!("../{name}"), "x").await),
        code(&write(&ctx, &format!("src/../../{name}"), "x").await),
        code(&write(&ctx, &format!("missing/../../{name}"), "x").await),
        code(&read(&ctx, "src/../../../../../../../etc/hostname").await),
        code(&run(&ctx, "LS", json!({"path": ".."})).await),
    ];
    assert_eq!(outcomes, [Some(ErrorCode::PathOutsideProject); 5]);
    assert!(!parent.join(&name).exists());
}

#[tokio::test]
async fn absolute_paths_outside_are_refused() {
    let (_dir, ctx) = project();
    let out = outside();
    let secret = out.path().join("secret.txt");
    let new = out.path().join("new.txt");
    let outcomes = [
        code(&read(&ctx, secret.to_str().unwrap()).await),
        code(&write(&ctx, secret.to_str().unwrap(), "x").await),
        code(&write(&ctx, new.to_str().unwrap(), "x").await),
    ];
    assert_eq!(outcomes, [Some(ErrorCode::PathOutsideProject); 3]);
    assert_eq!(secret_of(out.path()), "secret\n");
    assert_eq!(entries(out.path()), vec!["secret.txt"]);
}

#[tokio::test]
async fn a_dangling_symlink_to_outside_is_refused_as_a_write_target() {
    let (_dir, ctx) = project();
    let out = outside();
    let target = out.path().join("not-yet.txt");
    symlink(&target, ctx.root().join("later.txt")).unwrap();
    let result = write(&ctx, "later.txt", "planted").await;
    assert_eq!(code(&result), Some(ErrorCode::PathOutsideProject));
    assert!(!target.exists());
}

#[tokio::test]
async fn a_directory_swapped_for_a_symlink_after_the_check_is_not_written_through() {
    let (_dir, ctx) = project();
    let out = outside();
    std::fs::create_dir(ctx.root().join("sub")).unwrap();
    let abs = ctx.resolve("sub/file.txt").unwrap();
    // The race: between the check and the write, `sub` becomes a link to outside.
    std::fs::remove_dir(ctx.root().join("sub")).unwrap();
    symlink(out.path(), ctx.root().join("sub")).unwrap();
    let err = ctx
        .write_file_atomically(&abs, b"landed".to_vec())
        .await
        .unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::PermissionDenied);
    assert!(err.to_string().contains("symbolic link"), "{err}");
    assert_eq!(entries(out.path()), vec!["secret.txt"]);
}

#[tokio::test]
async fn a_missing_directory_swapped_for_a_symlink_is_not_created_through() {
    let (_dir, ctx) = project();
    let out = outside();
    let abs = ctx.resolve("new/deeper/file.txt").unwrap();
    symlink(out.path(), ctx.root().join("new")).unwrap();
    assert!(
        ctx.write_file_atomically(&abs, b"x".to_vec())
            .await
            .is_err()
    );
    assert_eq!(entries(out.path()), vec!["secret.txt"]);
}

#[tokio::test]
async fn a_file_swapped_for_a_symlink_after_the_check_is_replaced_not_followed() {
    let (_dir, ctx) = project();
    let out = outside();
    let abs = ctx.resolve("file.txt").unwrap();
    symlink(out.path().join("secret.txt"), ctx.root().join("file.txt")).unwrap();
    ctx.write_file_atomically(&abs, b"mine".to_vec())
        .await
        .unwrap();
    assert_eq!(secret_of(out.path()), "secret\n");
    let meta = std::fs::symlink_metadata(ctx.root().join("file.txt")).unwrap();
    assert!(meta.file_type().is_file());
    assert_eq!(
        std::fs::read_to_string(ctx.root().join("file.txt")).unwrap(),
        "mine"
    );
}

/// A thread that keeps swapping `link` between a real directory and a symlink to `target`.
fn swapping(link: PathBuf, target: PathBuf, stop: Arc<AtomicBool>) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        while !stop.load(Ordering::Relaxed) {
            let _ = std::fs::create_dir(&link);
            std::thread::yield_now();
            let _ = std::fs::remove_dir_all(&link);
            let _ = symlink(&target, &link);
            std::thread::yield_now();
            let _ = std::fs::remove_file(&link);
        }
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn writes_racing_a_symlink_swap_never_land_outside() {
    let (_dir, ctx) = project();
    let out = outside();
    let stop = Arc::new(AtomicBool::new(false));
    let swapper = swapping(
        ctx.root().join("flip"),
        out.path().to_path_buf(),
        stop.clone(),
    );
    for n in 0..200 {
        write(&ctx, &format!("flip/file-{n}.txt"), "x").await;
        edit(&ctx.clone().allowing_unread_edits(), "flip/secret.txt").await;
    }
    stop.store(true, Ordering::Relaxed);
    swapper.join().unwrap();
    assert_eq!(entries(out.path()), vec!["secret.txt"]);
    assert_eq!(secret_of(out.path()), "secret\n");
}

#[test]
fn a_missing_extra_root_is_an_error_naming_it() {
    let (dir, ctx) = project();
    let missing = dir.path().join("no-such-dir");
    let err = ctx.with_extra_roots(vec![missing.clone()]).unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::NotFound);
    assert!(
        err.to_string().contains(&missing.display().to_string()),
        "{err}"
    );
}

#[test]
fn extra_roots_are_canonicalised() {
    let (_dir, ctx) = project();
    let out = outside();
    let dotted = out
        .path()
        .join(".")
        .join("..")
        .join(out.path().file_name().unwrap());
    let ctx = ctx.with_extra_roots(vec![dotted]).unwrap();
    assert_eq!(ctx.extra_roots(), [out.path().canonicalize().unwrap()]);
}

#[tokio::test]
async fn an_extra_root_is_open_to_every_file_tool() {
    let (_dir, ctx) = project();
    let out = outside();
    let ctx = ctx
        .with_extra_roots(vec![out.path().to_path_buf()])
        .unwrap()
        .allowing_unread_edits();
    let shared = out.path().canonicalize().unwrap();
    let secret = shared.join("secret.txt");
    let secret = secret.to_str().unwrap();

    let read = read(&ctx, secret).await;
    assert!(read.is_success(), "{}", read.text);
    assert!(read.text.contains("secret"), "{}", read.text);
    let edited = edit(&ctx, secret).await;
    assert!(edited.is_success(), "{}", edited.text);
    let new = shared.join("dir/new.txt");
    let written = write(&ctx, new.to_str().unwrap(), "new\n").await;
    assert!(written.is_success(), "{}", written.text);
    assert_eq!(written.data["file_path"], new.to_str().unwrap());
    let dir = shared.to_str().unwrap();
    let listed = run(&ctx, "LS", json!({"path": dir})).await;
    assert!(listed.is_success(), "{}", listed.text);
    let globbed = run(&ctx, "Glob", json!({"pattern": "**/*.txt", "path": dir})).await;
    assert!(globbed.text.contains("new.txt"), "{}", globbed.text);
    let grepped = run(&ctx, "Grep", json!({"pattern": "changed", "path": dir})).await;
    assert!(grepped.text.contains("secret.txt"), "{}", grepped.text);

    assert_eq!(secret_of(&shared), "changed\n");
    assert_eq!(std::fs::read_to_string(&new).unwrap(), "new\n");
}

#[tokio::test]
async fn dot_dot_from_the_project_into_an_extra_root_is_allowed() {
    let parent = tempfile::tempdir().unwrap();
    std::fs::create_dir(parent.path().join("project")).unwrap();
    std::fs::create_dir(parent.path().join("shared")).unwrap();
    let ctx = ToolContext::new(&parent.path().join("project"))
        .unwrap()
        .with_extra_roots(vec![parent.path().join("shared")])
        .unwrap();
    let result = write(&ctx, "../shared/note.txt", "hi\n").await;
    assert!(result.is_success(), "{}", result.text);
    let sibling = write(&ctx, "../elsewhere.txt", "hi\n").await;
    assert_eq!(code(&sibling), Some(ErrorCode::PathOutsideProject));
    assert!(
        sibling
            .error
            .unwrap()
            .message
            .contains("allow_outside_project"),
        "the refusal names the setting"
    );
}

#[tokio::test]
async fn paths_outside_every_root_stay_refused_with_extra_roots() {
    let (_dir, ctx) = project();
    let allowed = outside();
    let other = outside();
    let ctx = ctx
        .with_extra_roots(vec![allowed.path().to_path_buf()])
        .unwrap();
    let secret = other.path().join("secret.txt");
    let outcomes = [
        code(&read(&ctx, secret.to_str().unwrap()).await),
        code(&write(&ctx, secret.to_str().unwrap(), "x").await),
    ];
    assert_eq!(outcomes, [Some(ErrorCode::PathOutsideProject); 2]);
    assert_eq!(secret_of(other.path()), "secret\n");
}

#[tokio::test]
async fn a_symlink_inside_an_extra_root_pointing_out_is_refused() {
    let (_dir, ctx) = project();
    let allowed = outside();
    let other = outside();
    symlink(other.path(), allowed.path().join("away")).unwrap();
    let ctx = ctx
        .with_extra_roots(vec![allowed.path().to_path_buf()])
        .unwrap();
    let path = allowed.path().join("away/secret.txt");
    let result = write(&ctx, path.to_str().unwrap(), "x").await;
    assert_eq!(code(&result), Some(ErrorCode::PathOutsideProject));
    assert_eq!(secret_of(other.path()), "secret\n");
}
