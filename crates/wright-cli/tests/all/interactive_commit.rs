//! `/commit` in the interactive session (issue 13): the real `wright` in a pseudo-terminal
//! commits exactly the files the agent changed with the model's subject, and on a protected
//! branch asks first.

use pretty_assertions::assert_eq;

use crate::commit::{git, head, repository, writing_round};
use crate::common::{Project, reply, serve};
use crate::interactive::pty::Session;

/// Starts wright (approving every tool) and runs the round that writes `a.txt`.
fn after_the_writing_round(project: &Project, server: &wright_testkit::TestServer) -> Session {
    let mut session = Session::start(project, server, &["--approval", "auto"]);
    session.expect("/help for commands");
    session.type_text("write a.txt");
    session.enter();
    session.expect("wrote a.txt");
    assert!(project.path().join("a.txt").exists());
    session
}

#[test]
fn commit_commits_exactly_the_agents_file_with_the_models_subject() {
    let project = repository("work", "auto_commit = false\n");
    let before = head(&project);
    let mut script = writing_round();
    script.push(reply("Add a greeting file"));
    let server = serve(script);
    let mut session = after_the_writing_round(&project, &server);
    assert_eq!(head(&project), before, "auto_commit is off");
    session.type_text("/commit");
    session.enter();
    session.expect("committed 1 file on work as ");
    assert_eq!(git(&project, &["rev-parse", "HEAD~1"]).trim(), before);
    assert_eq!(
        git(&project, &["log", "-1", "--format=%s"]).trim(),
        "Add a greeting file"
    );
    assert_eq!(
        git(&project, &["show", "--name-only", "--format=", "HEAD"]),
        "a.txt\n"
    );
    session.ctrl_d();
    assert_eq!(session.wait(), 0);
}

#[test]
fn commit_on_a_protected_branch_asks_and_n_makes_no_commit() {
    let project = repository("main", "auto_commit = false\n");
    let before = head(&project);
    let mut script = writing_round();
    script.push(reply("Add a greeting file"));
    let server = serve(script);
    let mut session = after_the_writing_round(&project, &server);
    session.type_text("/commit");
    session.enter();
    session.expect("Allow git commit?");
    session.expect("main is a protected branch");
    session.type_text("n");
    session.expect("Tell the model why");
    session.enter();
    session.expect("not committing on the protected branch main");
    assert_eq!(head(&project), before);
    assert_eq!(
        git(&project, &["status", "--porcelain", "a.txt"]),
        "?? a.txt\n"
    );
    session.ctrl_d();
    assert_eq!(session.wait(), 0);
}
