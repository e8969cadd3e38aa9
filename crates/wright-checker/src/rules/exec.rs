//! Code run from text: command strings handed to another shell (`bash -c`, `eval`, heredocs),
//! downloads or decoded data piped into an interpreter (`curl … | sh`), and fork bombs.

use super::interp::{self, Effect, Language};
use super::{Finding, Report, Rule, Site, quote, words_text};
use crate::argv::{self, split};
use crate::script::{Script, Word};
use crate::words::shell_quoted;

/// Shells: they run a `-c` string, a script file, or their standard input.
pub(super) const SHELLS: &[&str] = &[
    "sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "csh", "tcsh", "yash",
];

/// Programs that fetch data from the network.
const DOWNLOADERS: &[&str] = &[
    "curl",
    "wget",
    "fetch",
    "http",
    "https",
    "xh",
    "aria2c",
    "lynx",
    "nc",
    "ncat",
    "netcat",
    "socat",
    "iwr",
    "irm",
    "invoke-webrequest",
    "invoke-restmethod",
];

/// Words of interpreter code that, next to `fork`, make a loop of forks.
const LOOP_WORDS: &[&str] = &[
    "while", "loop", "for ", "for(", "iter(", "until", "repeat", "each",
];

/// How a shell invocation gets its code.
#[derive(Debug)]
struct ShellUse<'w> {
    /// The `-c` command string.
    script: Option<&'w Word>,
    /// Whether it reads its code from standard input.
    reads_stdin: bool,
}

/// How `SHELL ARGS` gets its code: with `-c`, the first operand is the command string;
/// without, an operand is a script file, and none (or `-s`, or `-`) means standard input.
fn shell_use(args: &[Word]) -> ShellUse<'_> {
    let mut command_string = false;
    let mut stdin = false;
    let mut words = args.iter();
    while let Some(word) = words.next() {
        let text = word.text();
        if word.dynamic || text == "-" || !(text.starts_with('-') || text.starts_with('+')) {
            return match (command_string, text) {
                (true, _) => ShellUse {
                    script: Some(word),
                    reads_stdin: false,
                },
                (false, "-" | "/dev/stdin") => ShellUse {
                    script: None,
                    reads_stdin: true,
                },
                (false, _) => ShellUse {
                    script: None,
                    reads_stdin: stdin,
                },
            };
        }
        match text {
            "--" => break,
            "--rcfile" | "--init-file" => {
                words.next();
            }
            "--command" => command_string = true,
            _ if text.starts_with("--") => {}
            _ => {
                command_string |= text.contains('c');
                stdin |= text.contains('s');
                if text.contains('o') || text.contains('O') {
                    words.next();
                }
            }
        }
    }
    let rest: Vec<&Word> = words.collect();
    match (command_string, rest.first()) {
        (true, Some(word)) => ShellUse {
            script: Some(word),
            reads_stdin: false,
        },
        (_, None) => ShellUse {
            script: None,
            reads_stdin: !command_string,
        },
        (false, Some(_)) => ShellUse {
            script: None,
            reads_stdin: stdin,
        },
    }
}

/// Interpreter code (`python -c`, `perl -e`, a heredoc fed to `node`, …): the shell commands
/// it runs (`os.system('rm -rf ~')`, `subprocess.run(["rm", "-rf", "/"])`) are checked in turn,
/// the trees it deletes (`shutil.rmtree('/')`) are judged like `rm -rf PATH` and the files it
/// deletes (`os.remove('/etc/passwd')`) like `rm PATH`; code forking in a loop is a fork bomb.
fn interpreter_code(site: &Site<'_>, code: &Word, language: Language, report: &mut Report) {
    fork_loop(site, code, report);
    for value in &code.values {
        super::exfil::interpreter_code(site, value, report);
        for effect in interp::effects(value, language) {
            match effect {
                Effect::Runs(command) => {
                    site.nest(report, &Word::synthetic(command, code.dynamic));
                }
                Effect::DeletesTree(path) => super::delete::deletes_tree(site, &path, report),
                Effect::DeletesFile(path) => {
                    let command = format!("rm -- {}", shell_quoted(&path));
                    site.nest(report, &Word::synthetic(command, code.dynamic));
                }
                Effect::DeletesComputedIn(place) => site.find(
                    report,
                    Rule::RecursiveDelete,
                    format!(
                        "{} deletes paths it computes, in code that names `{place}`: what it \
                         deletes there is only known when it runs.",
                        site.quoted()
                    ),
                ),
            }
        }
    }
}

/// What runs the code a command reads from standard input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum StdinCode {
    /// Not code: the input is data.
    No,
    /// A shell (or `source /dev/stdin`): the input is bash, and can be checked as such.
    Shell,
    /// Another interpreter (`python3`, `perl`): the input is code in its language, read for
    /// the commands it runs and the paths it deletes.
    Interpreter(Language),
}

/// Whether `argv` runs code it reads from standard input, and in what language.
fn reads_code_from_stdin(argv: &[Word]) -> StdinCode {
    let invocation = argv::unwrap(argv);
    let argv = invocation.argv;
    let Some(program) = argv.first().and_then(argv::program) else {
        return StdinCode::No;
    };
    let args = &argv[1..];
    if invocation.args_from_stdin && SHELLS.contains(&program) {
        // `xargs sh -c` takes its script from the input, `xargs -I{} sh -c '{}'` too.
        let script = shell_use(args).script;
        if script.is_none_or(|s| s.text().contains("{}"))
            && args
                .iter()
                .any(|w| w.text().starts_with('-') && w.text().contains('c'))
        {
            return StdinCode::Shell;
        }
    }
    let shell = SHELLS.contains(&program) && shell_use(args).reads_stdin
        || matches!(program, "source" | ".")
            && args
                .first()
                .is_some_and(|w| w.is("/dev/stdin") || w.is("-"));
    if shell {
        return StdinCode::Shell;
    }
    let Some(language) = Language::of(program) else {
        return StdinCode::No;
    };
    let code = language.code_options();
    // `deno run -`: the script operand comes after the subcommand.
    let args = match (program, args.first()) {
        ("deno", Some(run)) if run.is("run") => &args[1..],
        _ => args,
    };
    let parsed = split(args, code);
    let reads = parsed.value_of(code).is_none()
        && parsed
            .operands
            .first()
            .is_none_or(|w| w.is("-") || w.is("/dev/stdin"));
    if reads {
        StdinCode::Interpreter(language)
    } else {
        StdinCode::No
    }
}

/// Whether the command fetches data from the network.
pub(super) fn downloads(argv: &[Word]) -> bool {
    let invocation = argv::unwrap(argv);
    invocation
        .argv
        .first()
        .and_then(argv::program)
        .is_some_and(|p| DOWNLOADERS.contains(&p.to_ascii_lowercase().as_str()))
}

/// Whether the command decodes hidden text (`base64 -d`, `xxd -r`, `rev`).
fn decodes(argv: &[Word]) -> bool {
    let invocation = argv::unwrap(argv);
    let Some(program) = invocation.argv.first().and_then(argv::program) else {
        return false;
    };
    let args = split(&invocation.argv[1..], &[]);
    match program {
        "base64" | "base32" | "basenc" => {
            args.has("--decode", Some('d')) || args.has("--decode", Some('D'))
        }
        "xxd" => args.has("-revert", Some('r')),
        "openssl" => args.has("-d", None) || args.has("-base64", None),
        "uudecode" | "rev" => true,
        _ => false,
    }
}

/// What a run of commands feeds into code: downloads, decoded text, or nothing suspicious.
fn feeds(script: &Script, commands: std::ops::Range<usize>) -> Option<&'static str> {
    let commands = script.commands.get(commands).unwrap_or(&[]);
    if commands.iter().any(|c| downloads(&c.argv)) {
        Some("runs what it downloads, which cannot be checked before it runs")
    } else if commands.iter().any(|c| decodes(&c.argv)) {
        Some("runs text it decodes, which cannot be checked before it runs")
    } else {
        None
    }
}

/// Command strings in `word` run by another shell: checked in turn, and refused outright when
/// they come from a download.
pub(super) fn nested(site: &Site<'_>, word: &Word, report: &mut Report) {
    if let Some(what) = feeds(site.script, word.subs.clone()) {
        site.find(
            report,
            Rule::PipeToShell,
            format!("{} {what}.", site.quoted()),
        );
    }
    site.nest(report, word);
    // `bash -c "$(cat <<EOF … EOF)"`: the command string is the heredoc's text.
    let subs = site.script.commands.get(word.subs.clone()).unwrap_or(&[]);
    for command in subs.iter().filter(|c| !c.piped) {
        let invocation = argv::unwrap(&command.argv);
        let bare_cat = invocation.argv.first().and_then(argv::program) == Some("cat")
            && invocation.argv[1..].iter().all(|w| w.is("-"));
        if let Some(stdin) = command.stdin.as_ref().filter(|_| bare_cat) {
            site.nest(report, stdin);
        }
    }
}

/// A command reading a pipe (or a heredoc) as code: `curl … | sh`, `echo 'rm -rf /' | bash`,
/// `bash <<EOF … EOF`.
pub(super) fn pipe_input(site: &Site<'_>, report: &mut Report) {
    let command = site.command;
    let language = reads_code_from_stdin(&command.argv);
    if language == StdinCode::No {
        return;
    }
    if let Some(stdin) = &command.stdin {
        run_code(site, language, stdin, report);
        return;
    }
    let Some(upstream) = command.upstream.clone() else {
        return;
    };
    if let Some(what) = feeds(site.script, upstream) {
        let pipeline = command
            .pipeline
            .and_then(|p| site.script.pipelines.get(p))
            .map_or(&command.text, |p| &p.text);
        report.findings.push(Finding::new(
            Rule::PipeToShell,
            format!("{} {what}.", quote(pipeline)),
            vec![pipeline.clone(), command.text.clone()],
        ));
        return;
    }
    // Text written by echo/printf or a heredoc into a shell (or an interpreter) is as good as a
    // command string (or a one-liner).
    let Some(producer) = command.pipe_from.and_then(|i| site.script.commands.get(i)) else {
        return;
    };
    let invocation = argv::unwrap(&producer.argv);
    match invocation.argv.first().and_then(argv::program) {
        Some("echo" | "printf") => {
            let words: Vec<&Word> = invocation.argv[1..]
                .iter()
                .skip_while(|w| matches!(w.text(), "-n" | "-e" | "-E" | "-ne" | "-en"))
                .collect();
            let text = words.iter().map(|w| w.text()).collect::<Vec<_>>().join(" ");
            let dynamic = words.iter().any(|w| w.dynamic);
            let text = Word::synthetic(text.replace("\\n", "\n"), dynamic);
            run_code(site, language, &text, report);
        }
        Some("cat") => {
            if let Some(stdin) = &producer.stdin {
                run_code(site, language, stdin, report);
            }
        }
        _ => {}
    }
}

/// Code read from standard input, checked as what runs it reads it.
fn run_code(site: &Site<'_>, language: StdinCode, code: &Word, report: &mut Report) {
    match language {
        StdinCode::No => {}
        StdinCode::Shell => nested(site, code, report),
        StdinCode::Interpreter(language) => interpreter_code(site, code, language, report),
    }
}

/// The rules of this module for one command, by program.
pub(super) fn command(site: &Site<'_>, program: &str, report: &mut Report) {
    let args = site.args();
    if SHELLS.contains(&program) {
        shell_scripts(site, site.invocation.argv, report);
    } else if program == "eval" {
        let text = words_text(args);
        let dynamic = args.iter().any(|w| w.dynamic);
        let start = args.first().map_or(0, |w| w.subs.start);
        let end = args.last().map_or(0, |w| w.subs.end);
        let mut joined = Word::synthetic(text, dynamic);
        joined.subs = start..end.max(start);
        nested(site, &joined, report);
    } else if program == "alias" {
        // An alias body is a command string, whenever it ends up being used.
        for word in args {
            if let Some((_, body)) = word.text().split_once('=') {
                site.nest(report, &Word::synthetic(body.to_string(), word.dynamic));
            }
        }
    } else if let Some(language) = Language::of(program) {
        let parsed = split(args, language.code_options());
        let code = match program {
            // `deno eval CODE`: the code is the subcommand's operand.
            "deno" if args.first().is_some_and(|w| w.is("eval")) => {
                split(&args[1..], &[]).operands.first().copied()
            }
            _ => parsed.value_of(language.code_options()),
        };
        if let Some(code) = code {
            interpreter_code(site, code, language, report);
        }
    }
    if matches!(program, "awk" | "gawk" | "mawk" | "nawk" | "busybox-awk") {
        super::awk::program(site, args, report);
    }
    let runs_files = SHELLS.contains(&program)
        || Language::of(program).is_some()
        || matches!(program, "source" | ".");
    if runs_files {
        // `bash <(curl …)`, `source <(wget -O- …)`, `python -c "$(curl …)"`.
        for word in args {
            if let Some(what) = feeds(site.script, word.subs.clone()) {
                site.find(
                    report,
                    Rule::PipeToShell,
                    format!("{} {what}.", site.quoted()),
                );
            }
        }
    }
}

/// The `-c` string of a shell command (`bash -c '…'`), checked in turn.
pub(super) fn shell_scripts(site: &Site<'_>, argv: &[Word], report: &mut Report) {
    let Some(program) = argv.first().and_then(argv::program) else {
        return;
    };
    if !SHELLS.contains(&program) {
        return;
    }
    if let Some(script) = shell_use(&argv[1..]).script {
        nested(site, script, report);
    }
}

/// Whether `raw` expands to a list of words, quoted or not: `"$@"`, `$*`, `"${cmd[@]}"`.
pub(super) fn list_expansion(raw: &str) -> bool {
    let inner = raw.trim_matches('"');
    matches!(inner, "$@" | "$*" | "${@}" | "${*}")
        || inner.starts_with("${@:")
        || inner.starts_with("${")
            && (inner.ends_with("[@]}") || inner.ends_with("[*]}"))
            && !inner.starts_with("${#")
}

/// The command's arguments as shell text, to follow a command word whose value is known:
/// known words quoted, unknown ones as written.
fn rest_as_written(site: &Site<'_>) -> Vec<String> {
    site.args()
        .iter()
        .map(|w| match w.dynamic {
            true => w.raw.clone(),
            false => shell_quoted(w.text()),
        })
        .collect()
}

/// A command word that is a list (`"$@"` after `set -- rm -rf /`, `"${cmd[@]}"` after
/// `cmd=(rm -rf ~)`): its words, when known, are checked as the command they make; an unknown
/// list is asked about, except `"$@"` in a function's body (`retry() { "$@"; }`), which runs
/// what the function is called with.
fn list_command_word(site: &Site<'_>, word: &Word, report: &mut Report) {
    let rest = rest_as_written(site);
    if !word.dynamic {
        for value in &word.values {
            let mut command = vec![value.clone()];
            command.extend(rest.iter().cloned());
            site.nest(report, &Word::synthetic(command.join(" "), false));
            // After `IFS=…` an unquoted list splits again; judged both ways to be safe.
            if let (true, Some(ifs)) = (site.script.sets_ifs, &site.command.ifs) {
                let mut fields: Vec<String> = value
                    .split(|c: char| ifs.contains(c))
                    .filter(|field| !field.is_empty())
                    .map(shell_quoted)
                    .collect();
                fields.extend(rest.iter().cloned());
                site.nest(report, &Word::synthetic(fields.join(" "), false));
            }
        }
        if !(site.script.sets_ifs && site.command.ifs.is_none()) {
            return;
        }
    }
    let index = site
        .script
        .commands
        .iter()
        .position(|c| std::ptr::eq(c, site.command));
    let in_function = site
        .script
        .functions
        .iter()
        .any(|f| index.is_some_and(|i| f.body.contains(&i)));
    let positional = word.raw.contains("$@") || word.raw.contains("$*") || word.raw.contains("${@");
    if in_function && positional {
        return;
    }
    site.find(
        report,
        Rule::WordSplitting,
        format!(
            "{} runs the command held in `{}`, which is only known when it runs.",
            site.quoted(),
            word.raw
        ),
    );
}

/// `$(curl …)` as the program: runs whatever the download says.
pub(super) fn unknown_program(site: &Site<'_>, program: &Word, report: &mut Report) {
    if let Some(what) = feeds(site.script, program.subs.clone()) {
        site.find(
            report,
            Rule::PipeToShell,
            format!("{} {what}.", site.quoted()),
        );
    }
}

/// A command word that is an unquoted expansion split into several words — by a value with
/// blanks in it (`c="rm -rf x"; $c`) or after the script set `IFS` (`IFS=_; c=rm_-rf_x; $c`):
/// the command that runs is not the word the checker sees. When the value and `IFS` are known,
/// the value is split as the shell would split it and the command it makes is checked in turn;
/// otherwise the command is asked about.
pub(super) fn split_command_word(site: &Site<'_>, word: &Word, report: &mut Report) {
    if list_expansion(&word.raw) {
        list_command_word(site, word, report);
        return;
    }
    let unquoted_expansion = word.raw.starts_with('$') && !word.raw.starts_with("$(");
    if !unquoted_expansion {
        return;
    }
    let splits = site.script.sets_ifs
        || word
            .values
            .iter()
            .any(|value| value.contains([' ', '\t', '\n']));
    if !splits {
        return;
    }
    if let (Some(ifs), false) = (&site.command.ifs, word.dynamic) {
        let rest = rest_as_written(site);
        for value in &word.values {
            let mut fields: Vec<String> = value
                .split(|c: char| ifs.contains(c))
                .filter(|field| !field.is_empty())
                .map(shell_quoted)
                .collect();
            fields.extend(rest.iter().cloned());
            site.nest(report, &Word::synthetic(fields.join(" "), false));
        }
    } else {
        site.find(
            report,
            Rule::WordSplitting,
            format!(
                "{} runs a command assembled by word splitting from `{}`; the checker cannot \
                 tell what it runs.",
                site.quoted(),
                word.raw
            ),
        );
    }
}

/// Interpreter code that forks in a loop (`perl -e 'fork while fork'`).
fn fork_loop(site: &Site<'_>, code: &Word, report: &mut Report) {
    let text = code.text().to_ascii_lowercase();
    if text.contains("fork") && LOOP_WORDS.iter().any(|w| text.contains(w)) {
        site.find(
            report,
            Rule::ForkBomb,
            format!(
                "{} forks in a loop: a fork bomb that can freeze the machine.",
                site.quoted()
            ),
        );
    }
}

/// Functions that start copies of themselves in a pipe or the background (`:(){ :|:& };:`),
/// and endless loops that start background processes.
pub(super) fn fork_bombs(script: &Script, report: &mut Report) {
    for function in &script.functions {
        let replicates = script
            .commands
            .get(function.body.clone())
            .unwrap_or(&[])
            .iter()
            .any(|c| {
                (c.piped || c.background) && c.argv.first().is_some_and(|w| w.is(&function.name))
            });
        if replicates {
            report.findings.push(Finding::new(
                Rule::ForkBomb,
                format!(
                    "{} defines `{}`, which starts copies of itself without end: a fork bomb \
                     that can freeze the machine.",
                    quote(&function.text),
                    function.name
                ),
                vec![function.text.clone()],
            ));
        }
    }
    for endless in script.loops.iter().filter(|l| l.endless) {
        let spawns = script
            .commands
            .get(endless.body.clone())
            .unwrap_or(&[])
            .iter()
            .any(|c| c.background);
        if spawns {
            report.findings.push(Finding::new(
                Rule::ForkBomb,
                format!(
                    "{} starts background processes in a loop that never ends: a fork bomb.",
                    quote(&endless.text)
                ),
                vec![endless.text.clone()],
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::words::synthetic_words as words;
    use pretty_assertions::assert_eq;

    #[test]
    fn shells_and_interpreters_read_code_from_stdin_only_without_a_script() {
        let reads = |command: &str| reads_code_from_stdin(&words(command));
        assert_eq!(reads("sh"), StdinCode::Shell);
        assert_eq!(reads("bash -s -- --yes"), StdinCode::Shell);
        assert_eq!(reads("bash -"), StdinCode::Shell);
        assert_eq!(reads("sudo -E bash"), StdinCode::Shell);
        assert_eq!(reads("source /dev/stdin"), StdinCode::Shell);
        assert_eq!(reads("bash -c ls"), StdinCode::No);
        assert_eq!(reads("bash script.sh"), StdinCode::No);
        assert_eq!(reads("python3"), StdinCode::Interpreter(Language::Python));
        assert_eq!(reads("python -"), StdinCode::Interpreter(Language::Python));
        assert_eq!(
            reads("node /dev/stdin"),
            StdinCode::Interpreter(Language::Node)
        );
        assert_eq!(
            reads("ruby -rfileutils"),
            StdinCode::Interpreter(Language::Ruby)
        );
        assert_eq!(reads("node app.js"), StdinCode::No);
        assert_eq!(reads("deno run -"), StdinCode::Interpreter(Language::Node));
        assert_eq!(reads("deno run main.ts"), StdinCode::No);
        assert_eq!(reads("lua -"), StdinCode::Interpreter(Language::Lua));
        assert_eq!(reads("python3 -m json.tool"), StdinCode::No);
        assert_eq!(reads("jq ."), StdinCode::No);
    }

    #[test]
    fn the_command_string_of_a_shell_is_found_after_its_options() {
        let argv = words("-euo pipefail -c ls");
        assert_eq!(shell_use(&argv).script.map(Word::text), Some("ls"));
        let argv = words("-lc ls");
        assert_eq!(shell_use(&argv).script.map(Word::text), Some("ls"));
        let argv = words("--login -c ls");
        assert_eq!(shell_use(&argv).script.map(Word::text), Some("ls"));
    }
}
