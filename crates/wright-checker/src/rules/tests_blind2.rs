//! The classes a second blind corpus (written without seeing the checker) found missing,
//! through the public [`check`](crate::check): unknown text run as code, computed deletes in
//! interpreter code, listings fed to deletes, removing system packages, downloads run in the
//! same command, and the peer suites' other classes — and the false alarms it found.

use std::path::Path;

use pretty_assertions::assert_eq;

use crate::{CommandPolicy, Decision, check};

const ROOT: &str = "/home/ann/proj";
const HOME: &str = "/home/ann";

/// The decision and the rule for `command` in the (lexical) project at [`ROOT`].
fn judged(command: &str) -> (Decision, &'static str) {
    let verdict = check(
        command,
        Path::new(ROOT),
        Some(Path::new(HOME)),
        &CommandPolicy::default(),
    );
    (verdict.decision, verdict.rule)
}

fn assert_judged(decision: Decision, rule: &str, commands: &[&str]) {
    for command in commands {
        assert_eq!(judged(command), (decision, rule), "{command}");
    }
}

fn assert_asked(rule: &str, commands: &[&str]) {
    assert_judged(Decision::Ask, rule, commands);
}

fn assert_allowed(commands: &[&str]) {
    assert_judged(Decision::Allow, "none", commands);
}

#[test]
fn an_unknown_value_run_as_code_is_asked_about() {
    assert_asked(
        "unknown-code",
        &[
            "eval \"$X\"",
            "eval $X",
            "bash -c \"$X\"",
            "sh -c \"$c\"",
            "f() { bash -c \"$1\"; }; f ls",
            "eval \"eval \\\"\\$X\\\"\"",
        ],
    );
}

#[test]
fn text_read_from_a_file_or_input_run_as_code_is_asked_about() {
    assert_asked(
        "unknown-code",
        &[
            "c=$(cat cmd.txt); $c",
            "c=\"$(head -1 cmds)\"; \"$c\" --now",
            "read -r c < f; eval \"$c\"",
            "read -r c; $c",
            "read; $REPLY",
            "mapfile -t cmds < jobs.txt; \"${cmds[0]}\"",
            "eval \"$(cat cmd.txt)\"",
            "eval `cat f`",
            "bash -c \"$(cat cmd.txt)\"",
            "$(cat cmd.txt)",
            "$(< cmd.txt)",
            "xargs -I{} sh -c '{}' < cmds.txt",
            "cat cmds.txt | parallel",
            "cat urls.txt | xargs -I{} {}",
        ],
    );
}

#[test]
fn awk_running_a_computed_command_is_asked_about() {
    assert_asked(
        "unknown-code",
        &[
            "awk '{system($0)}' f",
            "awk '{ cmd = \"wc -l \" $1; system(cmd) }' f",
        ],
    );
    // A literal followed by a computed value keeps the value unknown.
    assert_asked(
        "recursive-delete",
        &["echo ~ | awk '{system(\"rm -rf \" $0)}'"],
    );
    assert_allowed(&[
        "awk 'BEGIN{system(\"make\")}'",
        "awk '{system(\"echo \" $1)}' f",
    ]);
}

#[test]
fn a_command_made_by_printf_v_is_judged_as_the_text_it_makes() {
    assert_judged(
        Decision::Refuse,
        "catastrophic-delete",
        &["printf -v c 'rm -rf %s' ~; eval \"$c\""],
    );
    assert_allowed(&["printf -v c 'ls %s' src; eval \"$c\""]);
    assert_asked("unknown-code", &["printf -v c '%s' \"$X\"; $c"]);
}

#[test]
fn programs_named_by_the_environment_or_printed_by_a_program_are_trusted() {
    assert_allowed(&[
        "eval \"$(ssh-agent -s)\"",
        "eval \"$(pyenv init -)\"",
        "eval \"$(direnv hook bash)\"",
        "eval \"$(starship init bash)\"",
        "eval \"$(/opt/homebrew/bin/brew shellenv)\"",
        "$CC -o x x.c",
        "$EDITOR file",
        "\"$PYTHON\" script.py",
        "${PYTHON:-python3} -m pytest",
        "bash -c '$CC -o x x.c'",
        "cmd=\"ls -la\"; eval \"$cmd\"",
        "ls | xargs -I{} echo {}",
        "echo 'make test' | parallel",
        "read -r name; echo \"$name\"",
    ]);
}

#[test]
fn interpreter_code_deleting_computed_paths_in_a_dangerous_place_is_asked_about() {
    assert_asked(
        "recursive-delete",
        &[
            "python3 -c \"import os; [os.remove(os.path.join(r,f)) for r,d,fs in os.walk('/etc') for f in fs]\"",
            "python3 -c 'import pathlib; [p.unlink() for p in pathlib.Path.home().rglob(\"*\") if p.is_file()]'",
            "perl -e 'unlink glob \"$ENV{HOME}/.ssh/*\"'",
            "lua -e 'os.remove(os.getenv(\"HOME\")..\"/.bashrc\")'",
            "node -e 'for (const f of fs.readdirSync(os.homedir())) fs.unlinkSync(f)'",
            "python3 -c \"import os,shutil; [shutil.rmtree(d) for d in os.listdir(os.environ['HOME'])]\"",
        ],
    );
    assert_allowed(&[
        "python3 -c \"import pathlib; [p.unlink() for p in pathlib.Path('build').rglob('*.o')]\"",
        "python3 -c \"import os; [os.remove(f) for f in os.listdir('.') if f.endswith('.pyc')]\"",
        "python3 -c \"import os; os.remove(os.path.join('build', 'x.o'))\"",
    ]);
}

#[test]
fn deno_and_lua_code_is_read_like_other_interpreters() {
    assert_judged(
        Decision::Refuse,
        "catastrophic-delete",
        &[
            "deno eval 'Deno.removeSync(Deno.env.get(\"HOME\"), {recursive: true})'",
            "echo 'Deno.removeSync(\"/etc\", {recursive: true})' | deno run -",
            "echo 'os.execute(\"rm -rf /\")' | lua -",
        ],
    );
    assert_allowed(&[
        "deno eval \"console.log(Deno.version)\"",
        "deno run --allow-read main.ts",
    ]);
}

#[test]
fn listings_outside_the_project_or_of_all_of_it_fed_to_a_delete_are_asked_about() {
    assert_asked(
        "file-destroy",
        &[
            "find ~ -name '*.db' | parallel rm",
            "find ~ -type f | xargs rm -f",
            "ls ../other | xargs rm",
        ],
    );
    assert_asked(
        "recursive-delete",
        &[
            "find . -name '*' | xargs -n 100 rm -rf",
            "find . -type f -print0 | parallel -0 rm",
            "find ~/Downloads -mtime +30 | xargs rm -rf",
            "find . | xargs -I{} rm -rf {}",
        ],
    );
    assert_allowed(&[
        "find . -name '*.pyc' | parallel rm",
        "find . -name '*.o' | xargs rm -f",
        "git ls-files --others | xargs rm",
        "find /tmp/build -name '*.o' | xargs rm",
        "echo build | xargs -I{} rm -rf {}",
    ]);
}
