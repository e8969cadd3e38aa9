//! Checkpoints, `wright undo` and `wright diff` (issue 13): a round's file changes — file
//! tools and shell commands alike — are taken back exactly, and the conversation with them.

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use pretty_assertions::assert_eq;
use wright_store::{CheckpointKind, Record, SessionStore};
use wright_testkit::ScriptedResponse;

use crate::common::{Project, Run, messages, reply, serve};

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
    // A trusted project's settings may turn them off (an untrusted one's may not).
    project.trust();
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
fn an_untrusted_project_cannot_turn_checkpoints_off() {
    let project = project(false);
    project.write(
        ".wright/config.toml",
        "retry_base_delay_ms = 5\n[checkpoints]\nenabled = false\n",
    );
    let server = serve(changing_round());
    let run = project.exec(&server, "openai", &[], "change things");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(
        run.stderr.contains("[checkpoints] enabled = false"),
        "{}",
        run.stderr
    );
    assert!(!checkpoint_kinds(&records(&project)).is_empty());
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

/// `wright ARGS...` without a provider (undo and diff need none).
fn wright(project: &Project, args: &[&str]) -> Run {
    Run::from(project.bare_command().args(args).output().unwrap())
}

fn undo_restores_the_tree_and_redo_brings_the_changes_back(git: bool) {
    let project = project(git);
    let before = tree(project.path());
    let server = serve(changing_round());
    let run = project.exec(&server, "openai", &[], "change things");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let after = tree(project.path());
    assert_ne!(after, before);

    let undo = wright(&project, &["undo"]);
    assert_eq!(undo.code, Some(0), "{}", undo.stderr);
    assert_eq!(tree(project.path()), before);
    assert!(
        undo.stdout.contains("Rounds from 1 on are undone"),
        "{}",
        undo.stdout
    );

    let redo = wright(&project, &["undo", "--redo"]);
    assert_eq!(redo.code, Some(0), "{}", redo.stderr);
    assert_eq!(tree(project.path()), after);
}

#[test]
fn undo_restores_the_tree_exactly_in_a_project_without_git() {
    undo_restores_the_tree_and_redo_brings_the_changes_back(false);
}

#[test]
fn undo_restores_the_tree_exactly_in_a_git_project() {
    undo_restores_the_tree_and_redo_brings_the_changes_back(true);
}

#[test]
fn an_undone_round_is_no_longer_sent_to_the_model() {
    let project = project(false);
    let mut script = vec![reply("Thought: ok\nAction: Finish[first answer]")];
    script.extend(changing_round());
    script.push(reply("Thought: ok\nAction: Finish[third answer]"));
    let server = serve(script);
    for prompt in ["first question", "change things"] {
        let run = project.exec(&server, "openai", &["--session", "work"], prompt);
        assert_eq!(run.code, Some(0), "{}", run.stderr);
    }
    let undo = wright(&project, &["undo", "--session", "work"]);
    assert_eq!(undo.code, Some(0), "{}", undo.stderr);
    let context = wright(&project, &["context", "--session", "work", "--full"]);
    assert!(
        !context.stdout.contains("change things"),
        "{}",
        context.stdout
    );

    let run = project.exec(&server, "openai", &["--session", "work"], "third question");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let sent = messages(&server.requests().pop().unwrap());
    let texts: Vec<&str> = sent.iter().map(|(_, text)| text.as_str()).collect();
    assert!(
        texts.iter().any(|t| t.contains("first question")),
        "{texts:?}"
    );
    assert!(
        !texts
            .iter()
            .any(|t| t.contains("change things") || t.contains("src/new.rs")),
        "{texts:?}"
    );
    let shown = wright(&project, &["sessions", "show", "work"]);
    assert!(shown.stdout.contains("(undone)"), "{}", shown.stdout);
}

#[test]
fn undo_after_wright_was_killed_mid_round_restores_the_files() {
    let project = project(false);
    let before = tree(project.path());
    let server = serve(vec![
        step(r#"Write[{"file_path": "src/new.rs", "content": "fn new() {}\n"}]"#),
        step(r#"Bash[{"command": "rm old.txt; touch started; sleep 30"}]"#),
    ]);
    let mut child = project
        .command(&server, "openai")
        .args(["exec", "change things"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let started = project.path().join("started");
    let deadline = Instant::now() + Duration::from_secs(30);
    while !started.exists() {
        assert!(Instant::now() < deadline, "the command never started");
        std::thread::sleep(Duration::from_millis(20));
    }
    // The checkpoint of the Bash step was recorded before the command ran.
    assert_eq!(checkpoint_kinds(&records(&project)).len(), 2);
    child.kill().unwrap();
    child.wait().unwrap();
    let undo = wright(&project, &["undo"]);
    assert_eq!(undo.code, Some(0), "{}", undo.stderr);
    assert_eq!(tree(project.path()), before);
}

#[test]
fn diff_shows_what_the_file_tools_and_the_commands_changed() {
    let project = project(false);
    let server = serve(changing_round());
    let run = project.exec(&server, "openai", &[], "change things");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let diff = wright(&project, &["diff"]);
    assert_eq!(diff.code, Some(0), "{}", diff.stderr);
    assert!(
        diff.stdout
            .contains("+++ b/src/new.rs\n@@ -0,0 +1 @@\n+fn new() {}"),
        "{}",
        diff.stdout
    );
    assert!(
        diff.stdout.contains("--- a/old.txt\n+++ /dev/null"),
        "{}",
        diff.stdout
    );
    assert!(
        diff.stdout.contains("old mode 100644\nnew mode 100755"),
        "{}",
        diff.stdout
    );
    assert!(diff.stderr.contains("to its end"), "{}", diff.stderr);
    let round = wright(&project, &["diff", "--round", "1"]);
    assert_eq!(round.stdout, diff.stdout);
}

#[test]
fn sessions_show_lists_the_files_each_round_added_modified_and_deleted() {
    let project = project(false);
    let server = serve(changing_round());
    let run = project.exec(&server, "openai", &["--session", "work"], "change things");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let shown = wright(&project, &["sessions", "show", "work"]);
    let line = shown
        .stdout
        .lines()
        .find(|line| line.starts_with("  files: "))
        .unwrap_or_else(|| panic!("{}", shown.stdout));
    for path in [
        "+src/new.rs",
        "~src/lib.rs",
        "~notes.md",
        "-old.txt",
        "+bin.dat",
        "mrun.sh",
    ] {
        assert!(line.split(' ').any(|word| word == path), "{path} in {line}");
    }
}

#[test]
fn undo_refuses_to_overwrite_a_file_the_user_changed_unless_forced() {
    let project = project(false);
    let before = tree(project.path());
    let server = serve(changing_round());
    let run = project.exec(&server, "openai", &[], "change things");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    project.write("src/new.rs", "my own edit\n");
    let refused = wright(&project, &["undo"]);
    assert_eq!(refused.code, Some(2), "{}", refused.stderr);
    assert!(refused.stderr.contains("~src/new.rs"), "{}", refused.stderr);
    assert!(refused.stderr.contains("--force"), "{}", refused.stderr);
    assert_eq!(
        std::fs::read_to_string(project.path().join("src/new.rs")).unwrap(),
        "my own edit\n"
    );

    let forced = wright(&project, &["undo", "--force"]);
    assert_eq!(forced.code, Some(0), "{}", forced.stderr);
    assert_eq!(tree(project.path()), before);
}

#[test]
fn undo_takes_back_only_what_the_agent_changed_and_leaves_the_users_other_edits() {
    let project = project(false);
    project.write("mine.md", "draft\n");
    let before = tree(project.path());
    let server = serve(changing_round());
    let run = project.exec(&server, "openai", &[], "change things");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    // After the round the user edits a file the round never touched and adds one.
    project.write("mine.md", "my edit\n");
    project.write("added-by-me.txt", "mine\n");

    // Neither overlaps what the round changed: nothing to ask about, nothing overwritten.
    let undone = wright(&project, &["undo"]);
    assert_eq!(undone.code, Some(0), "{}", undone.stderr);

    let mut expected = before;
    let mut after = tree(project.path());
    for mine in ["mine.md", "added-by-me.txt"] {
        expected.remove(mine);
        after.remove(mine);
    }
    assert_eq!(after, expected);
    assert_eq!(
        std::fs::read_to_string(project.path().join("mine.md")).unwrap(),
        "my edit\n"
    );
    assert_eq!(
        std::fs::read_to_string(project.path().join("added-by-me.txt")).unwrap(),
        "mine\n"
    );
}

#[test]
fn an_unknown_round_exits_2_with_the_rounds_to_choose_from() {
    let project = project(false);
    let server = serve(changing_round());
    let run = project.exec(&server, "openai", &[], "change things\nin detail");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let unknown = wright(&project, &["undo", "--round", "7"]);
    assert_eq!(unknown.code, Some(2), "{}", unknown.stderr);
    assert!(
        unknown.stderr.contains(
            "round 7 is not in this session; rounds to choose from:\n    1  change things\n"
        ),
        "{}",
        unknown.stderr
    );
}

#[test]
fn an_unknown_session_exits_2_with_the_sessions_to_choose_from() {
    let project = project(false);
    let server = serve(changing_round());
    let run = project.exec(&server, "openai", &["--session", "work"], "change things");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let unknown = wright(&project, &["undo", "--session", "nope"]);
    assert_eq!(unknown.code, Some(2), "{}", unknown.stderr);
    assert!(
        unknown
            .stderr
            .contains("no session \"nope\" in this project; its sessions are:"),
        "{}",
        unknown.stderr
    );
    assert!(
        unknown.stderr.contains("  work  (1 rounds)"),
        "{}",
        unknown.stderr
    );
}

#[test]
fn a_session_of_a_project_that_moved_is_a_clear_error() {
    let project = project(false);
    let server = serve(changing_round());
    let run = project.exec(&server, "openai", &["--session", "work"], "change things");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let old = project.path().canonicalize().unwrap();
    let moved = old.with_file_name(format!(
        "{}-moved",
        old.file_name().unwrap().to_string_lossy()
    ));
    std::fs::rename(&old, &moved).unwrap();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_wright"))
        .current_dir(&moved)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", project.home.path())
        .env("WRIGHT_HOME", project.home.path().join("state"))
        .args(["undo", "--session", "work"])
        .output()
        .unwrap();
    std::fs::rename(&moved, &old).unwrap();
    let run = Run::from(output);
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert!(
        run.stderr.contains(&format!(
            "session \"work\" was run in {}, which no longer exists",
            old.display()
        )),
        "{}",
        run.stderr
    );
}

#[test]
fn removing_the_projects_last_session_removes_its_checkpoints() {
    let project = project(false);
    for (name, file) in [("one", "a.txt"), ("two", "b.txt")] {
        let server = serve(vec![
            step(&format!(
                r#"Write[{{"file_path": "{file}", "content": "x\n"}}]"#
            )),
            reply("Thought: done\nAction: Finish[written]"),
        ]);
        let run = project.exec(&server, "openai", &["--session", name], "write");
        assert_eq!(run.code, Some(0), "{}", run.stderr);
    }
    let checkpoints = project.home.path().join("state").join("checkpoints");
    let stores = || std::fs::read_dir(&checkpoints).unwrap().count();
    assert_eq!(stores(), 1);
    let rm = |name: &str| {
        Run::from(
            project
                .bare_command()
                .args(["sessions", "rm", name])
                .output()
                .unwrap(),
        )
    };

    let first = rm("one");
    assert_eq!(first.code, Some(0), "{}", first.stderr);
    assert_eq!(stores(), 1, "session two may still undo with them");
    let last = rm("two");
    assert_eq!(last.code, Some(0), "{}", last.stderr);
    assert!(
        last.stdout
            .contains("The project has no session left; its checkpoints were removed too."),
        "{}",
        last.stdout
    );
    assert_eq!(stores(), 0);
}
