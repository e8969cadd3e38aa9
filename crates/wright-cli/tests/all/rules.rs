//! L2 beyond CODE_LAW.md, end to end (issue 17): AGENTS.md and CLAUDE.md, the git root above a
//! subdirectory start, the user-wide AGENTS.md, and rule files (always, glob, on request, bad
//! front matter), as the requests the scripted provider records show them.

use pretty_assertions::assert_eq;
use wright_testkit::{RecordedRequest, ScriptedResponse, TestServer};

use crate::common::{Project, Run, reply, serve};

const SESSION: &str = "work";

fn exec(project: &Project, server: &TestServer, prompt: &str) -> Run {
    project.exec(server, "openai", &["--session", SESSION], prompt)
}

fn system(request: &RecordedRequest) -> String {
    request.json().unwrap()["messages"][0]["content"]
        .as_str()
        .unwrap()
        .to_string()
}

fn finish(answer: &str) -> ScriptedResponse {
    reply(&format!("Thought: done\nAction: Finish[{answer}]"))
}

fn read(path: &str) -> ScriptedResponse {
    reply(&format!(
        "Thought: read\nAction: Read[{{\"file_path\": \"{path}\"}}]"
    ))
}

/// Where each marker first appears in `text`, in the order given; panics on a missing one.
fn positions(text: &str, markers: &[&str]) -> Vec<usize> {
    markers
        .iter()
        .map(|m| {
            text.find(m)
                .unwrap_or_else(|| panic!("{m} missing in\n{text}"))
        })
        .collect()
}

fn session_files(project: &Project) -> String {
    std::fs::read_dir(project.home.path().join("state/sessions"))
        .unwrap()
        .flat_map(|d| std::fs::read_dir(d.unwrap().path()).unwrap())
        .map(|f| std::fs::read_to_string(f.unwrap().path()).unwrap())
        .collect()
}

#[test]
fn agents_md_and_claude_md_follow_code_law_are_reread_each_round_and_never_stored() {
    let project = Project::new();
    project.write("CLAUDE.md", "CLAUDE-MARK");
    project.write("AGENTS.md", "AGENTS-MARK-1");
    project.write("CODE_LAW.md", "LAW-MARK");
    let server = serve(vec![finish("one"), finish("two")]);
    assert_eq!(exec(&project, &server, "round one").code, Some(0));
    project.write("AGENTS.md", "AGENTS-MARK-2");
    assert_eq!(exec(&project, &server, "round two").code, Some(0));
    let requests = server.requests();
    let first = system(&requests[0]);
    let order = positions(&first, &["LAW-MARK", "AGENTS-MARK-1", "CLAUDE-MARK"]);
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{first}");
    assert!(first.contains("# Project rules (AGENTS.md)\n"), "{first}");
    assert!(first.contains("# Project rules (CLAUDE.md)\n"), "{first}");
    let second = system(&requests[1]);
    assert!(second.contains("AGENTS-MARK-2") && !second.contains("AGENTS-MARK-1"));
    // L1, the part before L2, is the same in both.
    let l1 = |s: &str| s.split("\n\n# Project rules").next().unwrap().to_string();
    assert_eq!(l1(&first), l1(&second));
    let stored = session_files(&project);
    for marker in ["LAW-MARK", "AGENTS-MARK", "CLAUDE-MARK"] {
        assert!(!stored.contains(marker), "{marker} stored in history");
    }
}

#[test]
fn agents_md_of_every_directory_from_the_git_root_down_to_a_subdirectory_start() {
    let project = Project::new();
    std::fs::create_dir_all(project.path().join(".git")).unwrap();
    project.write("AGENTS.md", "ROOT-MARK");
    project.write("app/CLAUDE.md", "APP-MARK");
    project.write("app/web/AGENTS.md", "WEB-MARK");
    let user = project.home.path().join(".config/wright");
    std::fs::create_dir_all(&user).unwrap();
    std::fs::write(user.join("AGENTS.md"), "USER-MARK").unwrap();
    let server = serve(vec![finish("one")]);
    let run = Run::from(
        project
            .command(&server, "openai")
            .args(["-C", "app/web", "exec", "hello"])
            .output()
            .unwrap(),
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let sent = system(&server.requests()[0]);
    let order = positions(&sent, &["USER-MARK", "ROOT-MARK", "APP-MARK", "WEB-MARK"]);
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{sent}");
    assert!(sent.contains("# Project rules (../../AGENTS.md)"), "{sent}");
    assert!(sent.contains("# Project rules (../CLAUDE.md)"), "{sent}");
    assert!(
        sent.contains("# User-wide instructions (AGENTS.md)"),
        "{sent}"
    );
}

#[test]
fn a_glob_rule_comes_only_in_rounds_that_touch_matching_files_once_per_round() {
    let project = Project::new();
    project.write(
        ".wright/rules/rust.md",
        "---\ndescription: Rust style\nglobs: [\"*.rs\"]\n---\nRUST-RULE-MARK",
    );
    project.write("a.txt", "alpha\n");
    project.write("src/lib.rs", "pub fn a() {}\n");
    project.write("src/main.rs", "fn main() {}\n");
    let server = serve(vec![
        read("a.txt"),
        finish("one"),
        read("src/lib.rs"),
        read("src/main.rs"),
        finish("two"),
        finish("three"),
    ]);
    for prompt in ["round one", "round two", "round three"] {
        let run = exec(&project, &server, prompt);
        assert_eq!(run.code, Some(0), "{}", run.stderr);
    }
    let counts: Vec<usize> = server
        .requests()
        .iter()
        .map(|r| r.body.matches("RUST-RULE-MARK").count())
        .collect();
    // Round one: 2 requests, no .rs file. Round two: before any read, after lib.rs (the
    // reminder), after main.rs (still once: once per round). Round three: not carried over.
    assert_eq!(counts, vec![0, 0, 0, 1, 1, 0]);
    let after = server.requests()[3].body.clone();
    assert!(
        after.contains("<system-reminder>\\nRule .wright/rules/rust.md applies to src/lib.rs:"),
        "{after}"
    );
    // Never in L2 and never in history.
    assert!(!system(&server.requests()[3]).contains("RUST-RULE-MARK"));
    assert!(!session_files(&project).contains("RUST-RULE-MARK"));
}

#[test]
fn always_rules_join_l2_and_description_rules_are_listed_by_path() {
    let project = Project::new();
    project.write("AGENTS.md", "AGENTS-MARK");
    project.write(
        ".wright/rules/always.md",
        "---\nalways_apply: true\n---\nALWAYS-MARK",
    );
    project.write(
        ".wright/rules/release.md",
        "---\ndescription: How to cut a release\n---\nRELEASE-BODY-MARK",
    );
    let user_rules = project.home.path().join(".config/wright/rules");
    std::fs::create_dir_all(&user_rules).unwrap();
    std::fs::write(
        user_rules.join("mine.md"),
        "---\ndescription: My habits\n---\nUSER-RULE-MARK",
    )
    .unwrap();
    let server = serve(vec![finish("one")]);
    assert_eq!(exec(&project, &server, "hello").code, Some(0));
    let sent = system(&server.requests()[0]);
    let order = positions(
        &sent,
        &[
            "AGENTS-MARK",
            "USER-RULE-MARK",
            "ALWAYS-MARK",
            "- `.wright/rules/release.md`: How to cut a release",
        ],
    );
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{sent}");
    assert!(!sent.contains("RELEASE-BODY-MARK"), "listed, not sent");
    assert!(
        sent.contains("# Project rule (.wright/rules/always.md)"),
        "{sent}"
    );
}

#[test]
fn bad_front_matter_in_a_rule_is_reported_naming_the_file_and_the_rule_skipped() {
    let project = Project::new();
    project.write(
        ".wright/rules/broken.md",
        "---\nalways: yes\n---\nBROKEN-MARK",
    );
    project.write(
        ".wright/rules/good.md",
        "---\nalways_apply: true\n---\nGOOD-MARK",
    );
    let server = serve(vec![finish("one")]);
    let run = exec(&project, &server, "hello");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(
        run.stderr.contains("broken.md:2: unknown key `always`"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("the rule is skipped"), "{}", run.stderr);
    let sent = system(&server.requests()[0]);
    assert!(sent.contains("GOOD-MARK") && !sent.contains("BROKEN-MARK"));
}

#[test]
fn wright_context_lists_each_l2_source_with_its_tokens() {
    let project = Project::new();
    project.write("CODE_LAW.md", "Be brief.");
    project.write("AGENTS.md", &"Run cargo test. ".repeat(30));
    project.write(
        ".wright/rules/always.md",
        "---\nalways_apply: true\n---\nNo unsafe.",
    );
    project.write(".wright/rules/bad.md", "no front matter");
    let run = Run::from(project.bare_command().arg("context").output().unwrap());
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let row = |label: &str| -> u64 {
        let line = run
            .stdout
            .lines()
            .find(|l| l.starts_with(label))
            .unwrap_or_else(|| panic!("no row {label:?} in\n{}", run.stdout));
        line.split_whitespace().last().unwrap().parse().unwrap()
    };
    assert!(row("L2 CODE_LAW.md") > 0);
    assert!(row("L2 AGENTS.md") > row("L2 CODE_LAW.md"));
    assert!(row("L2 rule .wright/rules/always.md") > 0);
    assert!(
        run.stdout.contains("warning: rule ") && run.stdout.contains("bad.md:1"),
        "{}",
        run.stdout
    );
}
