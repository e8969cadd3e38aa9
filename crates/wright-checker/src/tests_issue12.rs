//! Issue 12: dangerous commands reached through wrappers and interpreters — interpreter code
//! on stdin and its command-running and deleting calls, command strings read from heredocs,
//! GNU `parallel`, `xargs` with a replace string, `builtin cd`, and word splitting of known
//! values — judged by the same rules as the plain command, through the public [`check`].

use super::*;
use crate::test_support::judged;
use pretty_assertions::assert_eq;

/// Each of `commands` is judged `expected`, a decision and its rule.
fn assert_judged(expected: (Decision, &str), commands: &[&str]) {
    for command in commands {
        assert_eq!(judged(command), expected, "{command}");
    }
}

fn assert_allowed(commands: &[&str]) {
    assert_judged((Decision::Allow, NO_RULE), commands);
}

const CATASTROPHIC: (Decision, &str) = (Decision::Refuse, "catastrophic-delete");

#[test]
fn a_shell_command_string_read_from_a_heredoc_is_checked() {
    assert_judged(
        CATASTROPHIC,
        &[
            "bash -c \"$(cat <<EOF\nrm -rf ~\nEOF\n)\"",
            "sh -c \"$(cat <<'EOF'\ncd / && rm -rf *\nEOF\n)\"",
            "eval \"$(cat <<EOF\nrm -rf /\nEOF\n)\"",
        ],
    );
    assert_allowed(&["bash -c \"$(cat <<'EOF'\ncargo test\nEOF\n)\""]);
}

#[test]
fn builtin_cd_and_command_cd_are_followed_like_cd() {
    assert_judged(
        CATASTROPHIC,
        &[
            "builtin cd / && rm -rf *",
            "command cd ~ && rm -rf *",
            "builtin cd /usr && rm -rf lib",
        ],
    );
    assert_allowed(&[
        "builtin cd build && rm -rf *",
        "command cd target && rm -rf debug",
    ]);
}

#[test]
fn a_known_value_split_into_a_command_is_judged_as_that_command() {
    assert_judged(
        CATASTROPHIC,
        &[
            "c=\"rm -rf /\"; $c",
            "IFS=_; c=rm_-rf_/; $c",
            "IFS=,; c=rm,-rf,/etc; $c",
            "c=\"rm -rf\"; $c ~",
            "for c in 'ls -la' 'rm -rf /'; do $c; done",
        ],
    );
    assert_judged(
        (Decision::Ask, "force-push"),
        &["c=\"git push --force origin main\"; $c"],
    );
    assert_allowed(&[
        "cmd=\"cargo test\"; $cmd",
        "c=\"rm -rf target\"; $c",
        "IFS=_; c=ls_-la; $c",
    ]);
}

#[test]
fn an_unknown_value_split_into_a_command_is_still_asked_about() {
    assert_judged(
        (Decision::Ask, "word-splitting"),
        &[
            "c=\"rm -rf\"; $c$TARGET",
            "IFS=$SEP; c=rm_-rf_x; $c",
            "IFS=, read -r a; c=x,y; $c",
        ],
    );
}

#[test]
fn interpreter_code_fed_on_stdin_is_checked_like_a_one_liner() {
    assert_judged(
        CATASTROPHIC,
        &[
            "python3 <<EOF\nimport os\nos.system('rm -rf ~')\nEOF",
            "python - <<'PY'\nimport shutil\nshutil.rmtree('/')\nPY",
            "python3 <<< \"import os; os.system('rm -rf /')\"",
            "echo \"import os; os.system('rm -rf ~')\" | python3",
            "cat <<'EOF' | node\nrequire('child_process').execSync('rm -rf /')\nEOF",
            "perl <<'EOF'\nsystem('rm -rf /');\nEOF",
            "ruby <<'EOF'\nFileUtils.rm_rf('/')\nEOF",
            "uv run python - <<'EOF'\nimport shutil\nshutil.rmtree('..')\nEOF",
        ],
    );
    assert_allowed(&[
        "python3 - <<EOF\nimport math\nprint(math.sqrt(2))\nEOF",
        "echo 'print(1)' | python3",
        "cat <<'EOF' | node\nconsole.log(process.version)\nEOF",
    ]);
}

#[test]
fn interpreter_calls_that_run_commands_are_checked_as_commands() {
    assert_judged(
        CATASTROPHIC,
        &[
            "python3 -c 'import subprocess; subprocess.run([\"rm\", \"-rf\", \"/\"])'",
            "python3 -c 'import subprocess; subprocess.call(\"rm -rf ~\", shell=True)'",
            "node -e \"require('child_process').spawnSync('rm', ['-rf', '/'])\"",
            "ruby -e 'system(\"rm\", \"-rf\", \"/\")'",
            "ruby -e '%x{rm -rf /}'",
            "perl -e 'qx{rm -rf ~}'",
            "perl -e 'system \"rm -rf /\"'",
        ],
    );
    assert_allowed(&[
        "python3 -c 'import subprocess; subprocess.run([\"pytest\", \"-q\"])'",
        "node -e \"require('child_process').execSync('npm run build')\"",
        "ruby -e 'system(\"bundle\", \"exec\", \"rspec\")'",
    ]);
}

#[test]
fn interpreter_calls_that_delete_are_judged_like_rm() {
    assert_judged(
        CATASTROPHIC,
        &[
            "python3 -c 'import shutil, os; shutil.rmtree(os.path.expanduser(\"~\"))'",
            "python3 -c 'import shutil; from pathlib import Path; shutil.rmtree(Path.home())'",
            "node -e \"require('fs').rmSync('/', {recursive: true})\"",
            "node -e \"require('fs').rmSync(require('os').homedir(), {recursive: true})\"",
            "ruby -e 'FileUtils.rm_rf Dir.home'",
            "perl -e 'use File::Path; remove_tree($ENV{HOME})'",
        ],
    );
    assert_judged(
        (Decision::Ask, "system-write"),
        &[
            "python3 -c \"import os; os.remove('/etc/passwd')\"",
            "perl -e 'unlink \"/etc/shadow\"'",
        ],
    );
    assert_allowed(&[
        "python3 -c \"import shutil; shutil.rmtree('build')\"",
        "node -e \"require('fs').rmSync('dist', {recursive: true, force: true})\"",
        "python3 -c \"import os; os.remove('out.txt')\"",
        "perl -e 'unlink @ARGV' a.txt",
    ]);
}

#[test]
fn gnu_parallel_puts_its_inputs_into_the_command() {
    assert_judged(
        CATASTROPHIC,
        &[
            "parallel rm -rf ::: ~ /",
            "parallel 'rm -rf {}' ::: /etc",
            "parallel bash -c {} ::: 'rm -rf ~'",
            "echo / | parallel rm -rf",
            "echo ~ | parallel rm -rf {}",
            "printf '%s\\n' 'rm -rf ~' | parallel",
        ],
    );
    assert_judged(
        (Decision::Ask, "recursive-delete"),
        &[
            "cat dirs.txt | parallel rm -rf",
            "parallel rm -rf :::: dirs.txt",
        ],
    );
    assert_allowed(&[
        "parallel gzip ::: *.log",
        "ls | parallel echo",
        "parallel rm -rf ::: target dist",
        "find . -name '*.orig' | parallel rm -rf",
        "parallel -j4 cargo test -p {} ::: a b",
    ]);
}

#[test]
fn xargs_with_a_replace_string_puts_its_input_into_the_command() {
    assert_judged(
        CATASTROPHIC,
        &[
            "echo ~ | xargs -I{} sh -c 'rm -rf {}'",
            "printf '/\\n' | xargs -I % bash -c \"rm -rf %\"",
            "echo / | xargs --replace=X sh -c 'rm -rf X'",
            "echo ~ | xargs -i rm -rf {}",
            "echo / | xargs -J % rm -rf %",
        ],
    );
    assert_judged(
        (Decision::Ask, "recursive-delete"),
        &["cat dirs.txt | xargs -I{} sh -c 'rm -rf {}'"],
    );
    assert_allowed(&[
        "find . -name '*.o' | xargs -I{} rm {}",
        "echo build | xargs -I{} rm -rf {}",
        "find . -type d -name node_modules | xargs -I{} rm -rf {}",
        "ls *.txt | xargs -I % sh -c 'wc -l %'",
    ]);
}
