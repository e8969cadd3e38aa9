//! The session indexes the project's code in the background when its first round starts, so
//! that the model's first RepoMap finds the tag cache warm; a setting turns it off.

use std::path::Path;

use crate::common::{Project, reply, serve};

fn project_with_code() -> Project {
    let project = Project::new();
    project.write(".wright/config.toml", "retry_base_delay_ms = 5\n");
    project.write("src/core.rs", "pub fn widely_used() {}\n");
    project.write("src/a.rs", "fn a() { widely_used(); }\n");
    project.write("app.py", "def main():\n    pass\n");
    project.write("web/app.js", "function start() { main(); }\n");
    project
}

/// The cache files under the project's `$WRIGHT_HOME/cache/code`.
fn cache_files(project: &Project) -> Vec<String> {
    let dir = project.home.path().join("state/cache/code");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .map(|e| std::fs::read_to_string(e.path()).unwrap_or_default())
        .collect()
}

/// One round whose model takes `delay_ms` to answer, as a real one does: the start-up indexing
/// runs meanwhile.
fn one_slow_round(project: &Project, delay_ms: u64) {
    let mut slow = reply("Thought: done.\nAction: Finish[ok]");
    slow.delay_ms = delay_ms;
    let server = serve(vec![slow]);
    let run = project.exec(&server, "openai", &[], "hello");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
}

fn repo_map(project: &Project) -> serde_json::Value {
    let output = project
        .bare_command()
        .args(["tool", "--json", "RepoMap", "{}"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    serde_json::from_slice(&output.stdout).unwrap()
}

#[test]
fn the_first_round_warms_the_tag_cache_for_the_first_map() {
    let project = project_with_code();
    one_slow_round(&project, 1_500);
    let caches = cache_files(&project);
    assert_eq!(caches.len(), 1, "one cache file for the project");
    for file in ["src/core.rs", "src/a.rs", "app.py", "web/app.js"] {
        assert!(
            caches[0].contains(&format!("\"{file}\"")),
            "{file}: {}",
            caches[0]
        );
    }
    let map = repo_map(&project);
    assert_eq!(map["data"]["files"], 4, "{map}");
    assert_eq!(map["data"]["cached"], 4, "nothing parsed again: {map}");
}

#[test]
fn a_project_cannot_turn_the_start_up_indexing_back_on() {
    let project = project_with_code();
    let user = project.home.path().join(".config/wright");
    std::fs::create_dir_all(&user).unwrap();
    std::fs::write(user.join("config.toml"), "index_code_on_start = false\n").unwrap();
    project.write(
        ".wright/config.toml",
        "retry_base_delay_ms = 5\nindex_code_on_start = true\n",
    );
    one_slow_round(&project, 1_000);
    assert_eq!(cache_files(&project), Vec::<String>::new());
}

#[test]
fn index_code_on_start_false_leaves_the_code_alone() {
    let project = project_with_code();
    project.write(
        ".wright/config.toml",
        "retry_base_delay_ms = 5\nindex_code_on_start = false\n",
    );
    one_slow_round(&project, 1_000);
    assert_eq!(cache_files(&project), Vec::<String>::new());
    // The tool itself still caches what it parses.
    assert_eq!(repo_map(&project)["data"]["cached"], 0);
    assert_eq!(repo_map(&project)["data"]["cached"], 4);
    assert!(Path::new(&project.home.path().join("state/cache/code")).is_dir());
}
