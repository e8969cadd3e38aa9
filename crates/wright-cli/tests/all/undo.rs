//! Checkpoints, `wright undo` and `wright diff` (issue 13): a round's file changes — file
//! tools and shell commands alike — are taken back exactly, and the conversation with them.

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Stdio;

use pretty_assertions::assert_eq;
use wright_store::{CheckpointKind, Record, SessionStore};
use wright_testkit::ScriptedResponse;

use crate::common::{Project, Run, reply, serve};

/// One entry of a captured tree: a directory with its mode, or a file with its mode and bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Node {
    Dir(u32),
    File(u32, Vec<u8>),
}

/// Every entry under `root` but `.git`, by relative path: what "the same tree" means here.
fn tree(root: &Path) -> BTreeMap<String, Node> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, Node>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let relative = path.strip_prefix(root).unwrap().display().to_string();
            if relative == ".git" {
                continue;
            }
            let meta = std::fs::symlink_metadata(&path).unwrap();
            let mode = meta.permissions().mode() & 0o7777;
            if meta.is_dir() {
                out.insert(relative, Node::Dir(mode));
                walk(root, &path, out);
            } else {
                out.insert(relative, Node::File(mode, std::fs::read(&path).unwrap()));
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(root, root, &mut out);
    out
}

/// A project with an `old.txt` to delete, a `run.sh` to make executable, and two files to edit.
fn project(git: bool) -> Project {
    let project = Project::new();
    project.write("old.txt", "old\n");
    project.write("run.sh", "echo run\n");
    project.write("src/lib.rs", "fn a() {}\n");
    project.write("notes.md", "one\ntwo\n");
    if git {
        let run = |args: &[&str]| {
            let status = std::process::Command::new("git")
                .args(args)
                .current_dir(project.path())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .unwrap();
            assert!(status.success(), "git {args:?}");
        };
        run(&["init", "-q"]);
        run(&["add", "-A"]);
        run(&[
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "commit",
            "-qm",
            "init",
        ]);
    }
    project
}

fn step(action: &str) -> ScriptedResponse {
    reply(&format!("Thought: go\nAction: {action}"))
}

/// The round of the issue: Write (new file), Edit, MultiEdit, Bash (delete, chmod, mkdir,
/// a binary file), then the answer.
fn changing_round() -> Vec<ScriptedResponse> {
    vec![
        step(r#"Write[{"file_path": "src/new.rs", "content": "fn new() {}\n"}]"#),
        step(r#"Read[{"file_path": "src/lib.rs"}]"#),
        step(
            r#"Edit[{"file_path": "src/lib.rs", "old_string": "fn a() {}", "new_string": "fn b() {}"}]"#,
        ),
        step(r#"Read[{"file_path": "notes.md"}]"#),
        step(
            r#"MultiEdit[{"file_path": "notes.md", "edits": [{"old_string": "one", "new_string": "uno"}, {"old_string": "two", "new_string": "dos"}]}]"#,
        ),
        step(
            r#"Bash[{"command": "rm old.txt; chmod +x run.sh; mkdir -p newdir/sub; printf '\\x00\\x01' > bin.dat"}]"#,
        ),
        reply("Thought: done\nAction: Finish[changed]"),
    ]
}

fn records(project: &Project) -> Vec<Record> {
    let store = SessionStore::new(
        &project.home.path().join("state"),
        &project.path().canonicalize().unwrap(),
    );
    store.latest().unwrap().unwrap().records
}

fn checkpoint_kinds(records: &[Record]) -> Vec<(u32, u32, CheckpointKind)> {
    records
        .iter()
        .filter_map(|r| match r {
            Record::Checkpoint(c) => Some((c.round, c.step, c.kind)),
            _ => None,
        })
        .collect()
}

#[test]
fn each_file_changing_step_and_the_end_of_the_round_are_checkpointed() {
    let project = project(false);
    let server = serve(changing_round());
    let run = project.exec(&server, "openai", &["--session", "work"], "change things");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(
        tree(project.path()).get("bin.dat"),
        Some(&Node::File(0o644, vec![0, 1]))
    );
    assert_eq!(
        checkpoint_kinds(&records(&project)),
        vec![
            (1, 1, CheckpointKind::BeforeStep),
            (1, 3, CheckpointKind::BeforeStep),
            (1, 5, CheckpointKind::BeforeStep),
            (1, 6, CheckpointKind::BeforeStep),
            (1, 7, CheckpointKind::EndOfRound),
        ]
    );
}

#[test]
fn checkpoints_can_be_turned_off() {
    let project = project(false);
    project.write(
        ".wright/config.toml",
        "retry_base_delay_ms = 5\n[checkpoints]\nenabled = false\n",
    );
    let server = serve(changing_round());
    let run = project.exec(&server, "openai", &[], "change things");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(checkpoint_kinds(&records(&project)), vec![]);
}

#[test]
fn a_snapshot_that_fails_warns_once_and_the_round_goes_on() {
    let project = project(false);
    let server = serve(changing_round());
    // No `git` on PATH: every snapshot fails.
    let run = Run::from(
        project
            .command(&server, "openai")
            .env("PATH", "/nonexistent")
            .args(["exec", "change things"])
            .output()
            .unwrap(),
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(
        run.stderr.matches("could not checkpoint").count(),
        1,
        "{}",
        run.stderr
    );
    assert!(project.path().join("src/new.rs").exists());
}
