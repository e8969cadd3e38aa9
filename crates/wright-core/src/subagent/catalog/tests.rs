use super::*;
use pretty_assertions::assert_eq;

const TOOLS: &[&str] = &[
    "Read", "Write", "Edit", "LS", "Glob", "Grep", "Bash", "Task",
];

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn the_builtins_come_first_and_file_agents_follow_by_name() {
    let (project, user) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let agents = project.path().join(".wright/agents");
    write(
        &agents,
        "zeta.md",
        "---\nname: zeta\ndescription: Last one\n---\nZ.",
    );
    write(
        &agents,
        "reviewer.md",
        "---\nname: reviewer\ndescription: Reviews diffs\ntools: Read, Grep\nmodel: small-model\nmax_steps: 7\ncolor: blue\n---\n\nReview only.\n",
    );
    let (catalog, problems) = AgentCatalog::load(project.path(), Some(user.path()), TOOLS, true);
    assert_eq!(problems, vec![]);
    assert_eq!(
        catalog.names(),
        vec!["general", "explore", "reviewer", "zeta"]
    );
    let reviewer = catalog.get("reviewer").unwrap();
    assert_eq!(
        reviewer.tools,
        Some(vec!["Read".to_string(), "Grep".to_string()])
    );
    assert_eq!(reviewer.model.as_deref(), Some("small-model"));
    assert_eq!(reviewer.max_steps, Some(7));
    assert_eq!(reviewer.instructions, "Review only.");
    assert!(!reviewer.read_only);
    assert!(matches!(reviewer.source, AgentSource::Project(_)));
    let explore = catalog.get("explore").unwrap();
    assert!(explore.read_only);
    assert_eq!(explore.source, AgentSource::Builtin);
}

#[test]
fn the_projects_agent_wins_over_the_users_and_the_builtin() {
    let (project, user) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    write(
        user.path(),
        "helper.md",
        "---\nname: helper\ndescription: The user's\n---\nuser",
    );
    write(
        &project.path().join(".wright/agents"),
        "helper.md",
        "---\nname: helper\ndescription: The project's\n---\nproject",
    );
    write(
        &project.path().join(".wright/agents"),
        "explore.md",
        "---\nname: explore\ndescription: A project's explorer\nread_only: true\n---\nlook",
    );
    let (catalog, problems) = AgentCatalog::load(project.path(), Some(user.path()), TOOLS, true);
    assert_eq!(problems, vec![]);
    assert_eq!(catalog.names(), vec!["general", "explore", "helper"]);
    assert_eq!(catalog.get("helper").unwrap().instructions, "project");
    let explore = catalog.get("explore").unwrap();
    assert_eq!(explore.description, "A project's explorer");
    assert!(explore.read_only);
}

#[test]
fn a_bad_file_is_skipped_with_its_file_and_line_named() {
    let project = tempfile::tempdir().unwrap();
    let agents = project.path().join(".wright/agents");
    let unknown_tool = write(
        &agents,
        "a.md",
        "---\nname: a\ndescription: d\ntools: Read, Teleport\n---\n",
    );
    let no_description = write(&agents, "b.md", "---\nname: b\n---\nbody");
    let bad_steps = write(
        &agents,
        "c.md",
        "---\nname: c\ndescription: d\nmax_steps: 9999\n---\n",
    );
    let bad_name = write(
        &agents,
        "d.md",
        "---\nname: Big Name\ndescription: d\n---\n",
    );
    write(&agents, "ok.md", "---\nname: ok\ndescription: fine\n---\n");
    write(&agents, "notes.txt", "not an agent");
    let (catalog, problems) = AgentCatalog::load(project.path(), None, TOOLS, true);
    assert_eq!(catalog.names(), vec!["general", "explore", "ok"]);
    let seen: Vec<(PathBuf, Option<usize>)> =
        problems.iter().map(|p| (p.path.clone(), p.line)).collect();
    assert_eq!(
        seen,
        vec![
            (unknown_tool.clone(), Some(4)),
            (no_description, Some(3)),
            (bad_steps, Some(4)),
            (bad_name, Some(2)),
        ]
    );
    let message = problems[0].to_string();
    assert!(
        message.starts_with(&format!(
            "{}:4: unknown tool `Teleport`",
            unknown_tool.display()
        )),
        "{message}"
    );
    assert!(message.ends_with("the agent is skipped"), "{message}");
}

#[cfg(unix)]
#[test]
fn a_project_agent_file_linking_out_of_the_project_is_not_read() {
    let (project, outside) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let secret = write(
        outside.path(),
        "x.md",
        "---\nname: sneaky\ndescription: from outside\n---\n",
    );
    let agents = project.path().join(".wright/agents");
    std::fs::create_dir_all(&agents).unwrap();
    std::os::unix::fs::symlink(&secret, agents.join("sneaky.md")).unwrap();
    let (catalog, problems) = AgentCatalog::load(project.path(), None, TOOLS, true);
    assert_eq!(catalog.names(), vec!["general", "explore"]);
    assert_eq!(problems.len(), 1);
    assert!(
        problems[0].to_string().contains("leads out of the project"),
        "{}",
        problems[0]
    );
}

#[test]
fn an_oversized_file_is_skipped() {
    let project = tempfile::tempdir().unwrap();
    let mut text = String::from("---\nname: big\ndescription: d\n---\n");
    text.push_str(&"x".repeat(MAX_AGENT_FILE_BYTES as usize));
    write(&project.path().join(".wright/agents"), "big.md", &text);
    let (catalog, problems) = AgentCatalog::load(project.path(), None, TOOLS, true);
    assert_eq!(catalog.names(), vec!["general", "explore"]);
    assert!(
        problems[0].message.contains("longer than 64 KiB"),
        "{:?}",
        problems
    );
}

#[test]
fn an_untrusted_projects_agents_add_but_do_not_widen() {
    let project = tempfile::tempdir().unwrap();
    let agents = project.path().join(".wright/agents");
    let explore = write(
        &agents,
        "explore.md",
        "---\nname: explore\ndescription: Writes everything\nread_only: false\n---\n",
    );
    let pricey = write(
        &agents,
        "pricey.md",
        "---\nname: pricey\ndescription: Costs a lot\nmodel: very-expensive\nmax_steps: 200\n---\n",
    );
    let (catalog, problems) = AgentCatalog::load(project.path(), None, TOOLS, false);
    assert_eq!(catalog.names(), vec!["general", "explore", "pricey"]);
    assert_eq!(catalog.get("explore").unwrap().source, AgentSource::Builtin);
    assert!(catalog.get("explore").unwrap().read_only);
    let pricey_agent = catalog.get("pricey").unwrap();
    assert_eq!(pricey_agent.model, None);
    assert_eq!(pricey_agent.max_steps, None);
    let seen: Vec<(PathBuf, bool)> = problems
        .iter()
        .map(|p| (p.path.clone(), p.skipped))
        .collect();
    assert_eq!(
        seen,
        vec![(explore, true), (pricey.clone(), false), (pricey, false)]
    );
    assert!(
        problems[0].to_string().ends_with("the agent is skipped"),
        "{}",
        problems[0]
    );
    assert!(
        problems[1]
            .message
            .contains("`model: very-expensive` ignored"),
        "{}",
        problems[1]
    );

    // Trusted, the same files are taken as written.
    let (catalog, problems) = AgentCatalog::load(project.path(), None, TOOLS, true);
    assert_eq!(problems, vec![]);
    assert!(!catalog.get("explore").unwrap().read_only);
    assert_eq!(
        catalog.get("pricey").unwrap().model.as_deref(),
        Some("very-expensive")
    );
}

#[test]
fn a_name_given_twice_in_one_directory_is_reported_and_the_later_file_wins() {
    let project = tempfile::tempdir().unwrap();
    let agents = project.path().join(".wright/agents");
    write(
        &agents,
        "a.md",
        "---\nname: twin\ndescription: first\n---\n",
    );
    let second = write(
        &agents,
        "b.md",
        "---\nname: twin\ndescription: second\n---\n",
    );
    let (catalog, problems) = AgentCatalog::load(project.path(), None, TOOLS, true);
    assert_eq!(catalog.get("twin").unwrap().description, "second");
    assert_eq!(problems.len(), 1);
    assert_eq!(problems[0].path, second);
    assert!(!problems[0].skipped);
    assert!(
        problems[0].message.contains("also defined in"),
        "{}",
        problems[0]
    );
}

#[test]
fn an_empty_tool_list_or_name_is_an_error_and_a_star_means_every_tool() {
    let project = tempfile::tempdir().unwrap();
    let agents = project.path().join(".wright/agents");
    write(
        &agents,
        "a.md",
        "---\nname: a\ndescription: d\ntools: []\n---\n",
    );
    write(&agents, "b.md", "---\nname:\ndescription: d\n---\n");
    write(
        &agents,
        "c.md",
        "---\nname: c\ndescription: d\ntools: \"*\"\n---\n",
    );
    let (catalog, problems) = AgentCatalog::load(project.path(), None, TOOLS, true);
    assert_eq!(catalog.names(), vec!["general", "explore", "c"]);
    assert_eq!(catalog.get("c").unwrap().tools, None);
    let messages: Vec<String> = problems.iter().map(|p| p.message.clone()).collect();
    assert!(
        messages[0].starts_with("`tools` names no tool"),
        "{messages:?}"
    );
    assert_eq!(messages[1], "`name` has no value");
}
