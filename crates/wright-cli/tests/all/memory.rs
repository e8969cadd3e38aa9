//! Memory across sessions (issue 17, items 4–5): the Memory tool in `wright exec` rounds, the
//! index of memory in L1, and `wright memory list|search|rm`.

use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;
use wright_testkit::TestServer;

use crate::common::{Project, Run, last_message, reply, serve};

fn system_prompt(server: &TestServer, request: usize) -> String {
    let body: Value = server.requests()[request].json().unwrap();
    body["messages"][0]["content"].as_str().unwrap().to_string()
}

fn memory_call(args: &str) -> String {
    format!("Thought: memory\nAction: Memory[{args}]")
}

fn save(scope: &str, tags: &str, content: &str) -> String {
    memory_call(&format!(
        r#"{{"action": "save", "scope": "{scope}", "tags": [{tags}], "content": "{content}"}}"#
    ))
}

fn retrieve(query: &str) -> String {
    memory_call(&format!(r#"{{"action": "retrieve", "query": "{query}"}}"#))
}

/// `wright memory ARGS…` in `project`.
fn memory(project: &Project, args: &[&str]) -> Run {
    Run::from(
        project
            .bare_command()
            .arg("memory")
            .args(args)
            .output()
            .unwrap(),
    )
}

/// `project`'s command run as another project of the same user: `other`'s home and state.
fn as_user_of(mut command: Command, other: &Project) -> Command {
    command
        .env("HOME", other.home.path())
        .env("WRIGHT_HOME", other.home.path().join("state"));
    command
}

/// The files of project memory under `project`'s state directory.
fn project_memory_files(project: &Project) -> Vec<PathBuf> {
    let dir = project.home.path().join("state/memory/projects");
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .map(|e| e.unwrap().path())
                .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn project_memory_saved_in_one_session_is_retrieved_in_a_later_one() {
    let project = Project::new();
    let server = serve(vec![
        reply(&save(
            "project",
            r#""tests""#,
            "Run the tests with cargo nextest.",
        )),
        reply("Action: Finish[saved]"),
    ]);
    let run = project.exec(&server, "openai", &[], "remember how to test");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(
        last_message(&server.requests()[1]).contains("Saved to project memory as"),
        "{}",
        last_message(&server.requests()[1])
    );
    // Kept under $WRIGHT_HOME, not in the repository.
    assert_eq!(project_memory_files(&project).len(), 1);
    assert!(!project.path().join(".wright/memory").exists());

    let server = serve(vec![
        reply(&retrieve("nextest")),
        reply("Action: Finish[ok]"),
    ]);
    let run = project.exec(&server, "openai", &[], "how do I test?");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let observation = last_message(&server.requests()[1]);
    assert!(
        observation.contains("Run the tests with cargo nextest.")
            && observation.contains("project · tests ·"),
        "{observation}"
    );
    // The later session knows what to look for.
    let system = system_prompt(&server, 0);
    assert!(
        system.contains("# Memory\n") && system.contains("- project, 1 entry: tests (1)"),
        "{system}"
    );
}

#[test]
fn project_memory_stays_with_its_project_and_global_memory_is_seen_from_both() {
    let first = Project::new();
    let server = serve(vec![
        reply(&save("project", r#""db""#, "Only in the first project.")),
        reply(&save(
            "global",
            r#""prefs""#,
            "The user likes short answers.",
        )),
        reply("Action: Finish[saved]"),
    ]);
    let run = first.exec(&server, "openai", &[], "remember");
    assert_eq!(run.code, Some(0), "{}", run.stderr);

    let second = Project::new();
    let server = serve(vec![
        reply(&memory_call(r#"{"action": "retrieve"}"#)),
        reply("Action: Finish[ok]"),
    ]);
    let output = as_user_of(second.command(&server, "openai"), &first)
        .args(["exec", "what do you know?"])
        .output()
        .unwrap();
    let run = Run::from(output);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let observation = last_message(&server.requests()[1]);
    assert!(
        observation.contains("The user likes short answers."),
        "{observation}"
    );
    assert!(
        !observation.contains("Only in the first project."),
        "{observation}"
    );
    let system = system_prompt(&server, 0);
    assert!(
        system.contains("- global, 1 entry: prefs (1)") && !system.contains("- project"),
        "{system}"
    );
}

#[test]
fn session_memory_is_gone_in_the_next_session() {
    let project = Project::new();
    let server = serve(vec![
        reply(&save(
            "session",
            r#""scratch""#,
            "Halfway through the parser.",
        )),
        reply(&retrieve("parser")),
        reply("Action: Finish[ok]"),
    ]);
    let run = project.exec(&server, "openai", &[], "note it");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let observation = last_message(&server.requests()[2]);
    assert!(
        observation.contains("Halfway through the parser."),
        "{observation}"
    );
    assert!(project_memory_files(&project).is_empty());

    let server = serve(vec![
        reply(&retrieve("parser")),
        reply("Action: Finish[ok]"),
    ]);
    let run = project.exec(&server, "openai", &[], "again");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(
        last_message(&server.requests()[1]),
        "Observation: No memory entry matches."
    );
}

#[test]
fn a_secret_is_not_saved() {
    let project = Project::new();
    let key = format!("sk-proj-{}", "Zx9".repeat(10));
    let server = serve(vec![
        reply(&save(
            "project",
            r#""deploy""#,
            &format!("The deploy key is {key}"),
        )),
        reply("Action: Finish[ok]"),
    ]);
    let run = project.exec(&server, "openai", &[], "remember the key");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let observation = last_message(&server.requests()[1]);
    assert!(
        observation.contains("memory never keeps secrets"),
        "{observation}"
    );
    let list = memory(&project, &["list"]);
    assert_eq!(list.code, Some(0), "{}", list.stderr);
    assert!(!list.stdout.contains("deploy"), "{}", list.stdout);
}

#[test]
fn the_index_in_l1_stays_the_same_for_the_whole_session_after_a_save() {
    let project = Project::new();
    let server = serve(vec![
        reply(&save("project", r#""style""#, "No unwrap outside tests.")),
        reply("Action: Finish[saved]"),
    ]);
    let run = project.exec(&server, "openai", &[], "first");
    assert_eq!(run.code, Some(0), "{}", run.stderr);

    // A named session starts with one entry in its index ...
    let server = serve(vec![
        reply(&save(
            "project",
            r#""build""#,
            "Build with cargo build --release.",
        )),
        reply("Action: Finish[saved]"),
        reply("Action: Finish[again]"),
    ]);
    let run = project.exec(&server, "openai", &["--session", "work"], "second");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let started = system_prompt(&server, 0);
    assert!(
        started.contains("- project, 1 entry: style (1)"),
        "{started}"
    );
    // ... and keeps it after saving, in the same round and when it is continued.
    assert_eq!(system_prompt(&server, 1), started);
    let run = project.exec(&server, "openai", &["--session", "work"], "third");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(system_prompt(&server, 2), started);

    // A new session sees both.
    let server = serve(vec![reply("Action: Finish[ok]")]);
    let run = project.exec(&server, "openai", &[], "fourth");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let system = system_prompt(&server, 0);
    assert!(
        system.contains("- project, 2 entries: build (1), style (1)"),
        "{system}"
    );
}

#[test]
fn a_damaged_memory_file_is_reported_and_the_round_goes_on() {
    let project = Project::new();
    let server = serve(vec![
        reply(&save("project", r#""x""#, "A note.")),
        reply("Action: Finish[saved]"),
    ]);
    let run = project.exec(&server, "openai", &[], "save");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let file = project_memory_files(&project).pop().unwrap();
    std::fs::write(&file, "this is not memory\n").unwrap();

    let server = serve(vec![reply(&retrieve("note")), reply("Action: Finish[ok]")]);
    let run = project.exec(&server, "openai", &[], "look");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let system = system_prompt(&server, 0);
    assert!(system.contains("- project: cannot be read"), "{system}");
    let observation = last_message(&server.requests()[1]);
    assert!(observation.contains("is damaged"), "{observation}");
    // Never overwritten.
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        "this is not memory\n"
    );

    let list = memory(&project, &["list"]);
    assert_eq!(list.code, Some(1));
    assert!(
        list.stderr.contains("is damaged (line 1"),
        "{}",
        list.stderr
    );
    assert!(list.stdout.contains("project ("), "{}", list.stdout);
}

#[test]
fn plan_mode_retrieves_but_does_not_save() {
    let project = Project::new();
    let server = serve(vec![
        reply(&save("project", r#""x""#, "From a plan.")),
        reply("Action: Finish[plan]"),
    ]);
    let run = project.exec(&server, "openai", &["--plan"], "plan");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(system_prompt(&server, 0).contains("## Memory\n"));
    let observation = last_message(&server.requests()[1]);
    assert!(observation.contains("may only retrieve"), "{observation}");
    assert!(project_memory_files(&project).is_empty());
}

#[test]
fn wright_memory_lists_searches_and_removes() {
    let project = Project::new();
    let server = serve(vec![
        reply(&save(
            "project",
            r#""tests", "ci""#,
            "CI runs cargo nextest on every push.",
        )),
        reply(&save(
            "project",
            r#""style""#,
            "Prefer iterators to index loops.",
        )),
        reply(&save("global", r#""prefs""#, "Answer in English.")),
        reply("Action: Finish[saved]"),
    ]);
    let run = project.exec(&server, "openai", &[], "remember");
    assert_eq!(run.code, Some(0), "{}", run.stderr);

    let list = memory(&project, &["list"]);
    assert_eq!(list.code, Some(0), "{}", list.stderr);
    let lines: Vec<&str> = list.stdout.lines().collect();
    assert_eq!(lines.len(), 5, "{}", list.stdout);
    assert!(lines[0].starts_with("project (") && lines[0].ends_with("): 2 entries"));
    assert!(lines[1].contains("  [tests,ci]  CI runs cargo nextest on every push."));
    assert!(lines[3].starts_with("global (") && lines[3].ends_with("): 1 entry"));
    let only_global = memory(&project, &["list", "--scope", "global"]);
    assert_eq!(
        only_global.stdout.lines().count(),
        2,
        "{}",
        only_global.stdout
    );

    let search = memory(&project, &["search", "nextest", "push"]);
    assert_eq!(search.code, Some(0), "{}", search.stderr);
    assert!(
        search.stdout.contains("project · tests, ci ·")
            && search
                .stdout
                .contains("CI runs cargo nextest on every push.")
            && !search.stdout.contains("iterators"),
        "{}",
        search.stdout
    );
    let tagged = memory(&project, &["search", "--tags", "prefs,style"]);
    assert!(
        tagged.stdout.contains("iterators") && tagged.stdout.contains("English"),
        "{}",
        tagged.stdout
    );

    let id = lines[1].split_whitespace().next().unwrap();
    let rm = memory(&project, &["rm", id]);
    assert_eq!(rm.code, Some(0), "{}", rm.stderr);
    assert_eq!(rm.stdout, format!("removed {id} (project)\n"));
    let rm = memory(&project, &["rm", "--tags", "prefs"]);
    assert_eq!(rm.code, Some(0), "{}", rm.stderr);
    assert!(rm.stdout.ends_with("(global)\n"), "{}", rm.stdout);
    let again = memory(&project, &["rm", id]);
    assert_eq!(again.code, Some(1));
    assert!(
        again.stderr.contains("no entry matches"),
        "{}",
        again.stderr
    );
    let list = memory(&project, &["list"]);
    assert_eq!(list.stdout.lines().count(), 3, "{}", list.stdout);
}

#[test]
fn memory_dir_in_the_users_settings_keeps_project_memory_there() {
    let project = Project::new();
    project.trust();
    project.write(
        ".wright/config.toml",
        "retry_base_delay_ms = 5\nmemory_dir = \".wright/memory\"\n",
    );
    let server = serve(vec![
        reply(&save("project", r#""x""#, "In the repository.")),
        reply("Action: Finish[saved]"),
    ]);
    let run = project.exec(&server, "openai", &[], "save");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let kept = std::fs::read_to_string(project.path().join(".wright/memory/memory.jsonl")).unwrap();
    assert!(kept.contains("In the repository."), "{kept}");
    assert!(project_memory_files(&project).is_empty());
}

#[test]
fn an_untrusted_project_cannot_move_its_memory() {
    let project = Project::new();
    project.write(
        ".wright/config.toml",
        "retry_base_delay_ms = 5\nmemory_dir = \".wright/memory\"\n",
    );
    let list = memory(&project, &["list"]);
    assert_eq!(list.code, Some(0), "{}", list.stderr);
    assert!(list.stderr.contains("memory_dir"), "{}", list.stderr);
    assert!(!list.stdout.contains(".wright/memory"), "{}", list.stdout);
}

#[test]
fn wright_context_shows_the_memory_tool_and_the_index() {
    let project = Project::new();
    let server = serve(vec![
        reply(&save(
            "project",
            r#""ops""#,
            "Deploys go through make release.",
        )),
        reply("Action: Finish[saved]"),
    ]);
    let run = project.exec(&server, "openai", &[], "save");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    // The session that saved started before the entry: its L1 has no index.
    let context = Run::from(
        project
            .bare_command()
            .args(["context", "--full"])
            .output()
            .unwrap(),
    );
    assert_eq!(context.code, Some(0), "{}", context.stderr);
    assert!(context.stdout.contains("## Memory\n"), "{}", context.stdout);
    assert!(
        !context.stdout.contains("# Memory\n\nNotes saved"),
        "{}",
        context.stdout
    );
}

#[test]
fn memory_in_the_interactive_session_lists_searches_and_removes_session_memory_too() {
    use crate::interactive::pty::Session;
    let project = Project::new();
    let server = serve(vec![
        reply(&save("session", r#""wip""#, "Parser half done.")),
        reply("Thought: done\nAction: Finish[noted]"),
    ]);
    let mut session = Session::start(&project, &server, &[]);
    session.expect("/help for commands");
    session.type_text("note where we are");
    session.enter();
    session.expect("noted");
    session.type_text("/memory");
    session.enter();
    session.expect("session (this session only): 1 entry");
    session.expect("[wip]  Parser half done.");
    session.type_text("/memory search parser");
    session.enter();
    session.expect("session · wip ·");
    session.type_text("/memory rm 00000000");
    session.enter();
    session.expect("no entry matches; nothing was removed");
    session.ctrl_d();
    assert_eq!(session.wait(), 0);
}
