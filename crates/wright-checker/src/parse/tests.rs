use std::path::PathBuf;

use super::*;
use crate::script::Word;
use pretty_assertions::assert_eq;

const ROOT: &str = "/work/proj";

fn script(text: &str) -> Script {
    let env = Env {
        root: Path::new(ROOT),
        home: Some(Path::new("/home/ann")),
        tmpdir: true,
    };
    let scope = Scope::at(Cwd::Known(vec![PathBuf::from(ROOT)]));
    parse(text, env, scope).unwrap()
}

fn argv(script: &Script, i: usize) -> Vec<String> {
    script.commands[i]
        .argv
        .iter()
        .map(|w| w.text().to_string())
        .collect()
}

#[test]
fn commands_are_found_in_lists_pipelines_subshells_and_substitutions() {
    let s = script("a && (b | c); echo $(d) `e` <(f)");
    let names: Vec<String> = s
        .commands
        .iter()
        .map(|c| c.argv[0].text().to_string())
        .collect();
    assert_eq!(names, vec!["a", "b", "c", "d", "e", "f", "echo"]);
    assert!(s.commands[1].piped && s.commands[2].piped);
    assert_eq!(s.commands[2].pipe_from, Some(1));
}

#[test]
fn quotes_escapes_and_ansi_c_strings_are_unquoted() {
    let s = script(r#"r""m -rf '/' \~ "a\"b" $'\x72m' $'\162'"#);
    assert_eq!(argv(&s, 0), vec!["rm", "-rf", "/", "~", "a\"b", "rm", "r"]);
}

#[test]
fn home_pwd_and_assigned_variables_are_expanded_others_are_dynamic() {
    let s = script("X=build; rm -rf ~/a $HOME \"${HOME}\"/b $PWD/c $X $Y");
    let words = &s.commands[0].argv;
    let texts: Vec<&str> = words.iter().map(Word::text).collect();
    assert_eq!(
        texts,
        vec![
            "rm",
            "-rf",
            "/home/ann/a",
            "/home/ann",
            "/home/ann/b",
            "/work/proj/c",
            "build",
            "$Y"
        ]
    );
    assert!(words[7].dynamic && !words[6].dynamic);
}

#[test]
fn cd_moves_later_commands_and_an_unchained_cd_keeps_both_directories() {
    let s = script("cd sub && a; cd /tmp; b");
    assert_eq!(
        s.commands[1].cwd,
        Cwd::Known(vec![PathBuf::from("/work/proj/sub")])
    );
    let dirs = ["/tmp", "/work/proj/sub", "/work/proj"];
    assert_eq!(
        s.commands[3].cwd,
        Cwd::Known(dirs.map(PathBuf::from).to_vec())
    );
    let s = script("cd \"$D\" && a");
    assert_eq!(s.commands[1].cwd, Cwd::Unknown);
}

#[test]
fn a_subshell_cd_does_not_leak() {
    let s = script("(cd /tmp && a) && b");
    assert_eq!(s.commands[2].cwd, Cwd::Known(vec![PathBuf::from(ROOT)]));
}

#[test]
fn loop_variables_take_every_listed_value() {
    let s = script("for d in target dist; do rm -rf \"$d\"; done");
    assert_eq!(s.commands[0].argv[2].values, vec!["target", "dist"]);
}

#[test]
fn redirects_heredocs_and_herestrings_are_recorded() {
    let s = script("cat > out.txt <<'EOF'\nhello\nEOF\nbash <<< 'ls' 2>&1 >/dev/null");
    let targets: Vec<&str> = s.redirects.iter().map(|r| r.target.text()).collect();
    assert_eq!(targets, vec!["out.txt", "/dev/null"]);
    assert_eq!(
        s.commands[0].stdin.as_ref().map(Word::text),
        Some("hello\n")
    );
    assert_eq!(s.commands[1].stdin.as_ref().map(Word::text), Some("ls"));
}

#[test]
fn a_heredoc_piped_on_its_first_line_is_a_pipeline() {
    let s = script("cat <<EOF | sh\nrm -rf /\nEOF");
    assert_eq!(argv(&s, 1), vec!["sh"]);
    assert_eq!(s.commands[1].pipe_from, Some(0));
}

#[test]
fn functions_loops_and_background_are_recorded() {
    let s = script(":(){ :|:& };:\nwhile true; do x & done");
    assert_eq!(s.functions[0].name, ":");
    assert_eq!(s.functions[0].body, 0..2);
    assert!(s.commands[0].background && s.commands[1].piped);
    assert!(s.loops[0].endless);
    assert_eq!(s.commands[4].argv[0].text(), "x");
    assert!(s.commands[4].background);
}
