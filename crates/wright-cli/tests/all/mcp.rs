//! `wright mcp list|add|remove` (issue 15): servers in the user's settings file, a project's
//! own servers only when it is trusted.

use crate::common::Project;

fn wright(project: &Project, args: &[&str]) -> (Option<i32>, String, String) {
    let output = project.bare_command().args(args).output().unwrap();
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn servers_are_added_to_the_user_settings_listed_and_removed_keeping_the_file() {
    let project = Project::new();
    let settings = project.home.path().join(".config/wright/config.toml");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    std::fs::write(&settings, "# my settings\nmodel = \"mine\" # keep this\n").unwrap();

    let (code, out, err) = wright(
        &project,
        &[
            "mcp",
            "add",
            "files",
            "--env",
            "LOG=1",
            "--",
            "npx",
            "-y",
            "server-fs",
            ".",
        ],
    );
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("Added the MCP server \"files\""), "{out}");
    let (code, _, err) = wright(
        &project,
        &[
            "mcp",
            "add",
            "web",
            "--url",
            "https://example.invalid/mcp",
            "--header",
            "X-Team=core",
            "--bearer-token-env-var",
            "WEB_TOKEN",
        ],
    );
    assert_eq!(code, Some(0), "{err}");
    let text = std::fs::read_to_string(&settings).unwrap();
    assert!(
        text.starts_with("# my settings\nmodel = \"mine\" # keep this\n"),
        "{text}"
    );
    assert!(text.contains("[mcp_servers.files]"), "{text}");
    assert!(text.contains("command = \"npx\""), "{text}");

    let (code, out, err) = wright(&project, &["mcp", "list"]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(
        out,
        "files  command: npx -y server-fs .\nweb  url: https://example.invalid/mcp\n"
    );

    // A name taken, a bad name, neither command nor url: usage errors, the file unchanged.
    let before = std::fs::read_to_string(&settings).unwrap();
    for bad in [
        vec!["mcp", "add", "files", "--", "other"],
        vec!["mcp", "add", "bad name", "--", "x"],
        vec!["mcp", "add", "empty"],
    ] {
        let (code, _, err) = wright(&project, &bad);
        assert_eq!(code, Some(2), "{bad:?}: {err}");
    }
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), before);

    let (code, _, err) = wright(&project, &["mcp", "remove", "files"]);
    assert_eq!(code, Some(0), "{err}");
    let (_, out, _) = wright(&project, &["mcp", "list"]);
    assert_eq!(out, "web  url: https://example.invalid/mcp\n");
    let (code, _, err) = wright(&project, &["mcp", "remove", "files"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("has no server called \"files\""), "{err}");
    assert!(
        std::fs::read_to_string(&settings)
            .unwrap()
            .starts_with("# my settings\nmodel = \"mine\" # keep this\n")
    );
}

#[test]
fn a_projects_own_servers_are_used_only_when_it_is_trusted() {
    let project = Project::new();
    project.write(
        ".wright/config.toml",
        "retry_base_delay_ms = 5\n[mcp_servers.repo]\ncommand = \"./serve-mcp\"\n",
    );
    let (code, out, err) = wright(&project, &["mcp", "list"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.starts_with("No MCP servers are configured."), "{out}");
    assert!(
        err.contains("[mcp_servers]"),
        "the user is told what was ignored: {err}"
    );

    project.trust();
    let (code, out, err) = wright(&project, &["mcp", "list"]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(out, "repo  command: ./serve-mcp\n");
}

#[test]
fn a_server_that_cannot_be_started_is_an_error_naming_the_file() {
    let project = Project::new();
    project.trust();
    project.write(
        ".wright/config.toml",
        "[mcp_servers.both]\ncommand = \"x\"\nurl = \"http://127.0.0.1:1/mcp\"\n",
    );
    let (code, _, err) = wright(&project, &["mcp", "list"]);
    assert_eq!(code, Some(2));
    assert!(
        err.contains("invalid `mcp_servers`")
            && err.contains("[mcp_servers.both]: give `command` or `url`, not both"),
        "{err}"
    );
}
