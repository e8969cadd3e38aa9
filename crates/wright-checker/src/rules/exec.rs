//! Code run from text: command strings handed to another shell (`bash -c`, `eval`, heredocs),
//! downloads or decoded data piped into an interpreter (`curl … | sh`), and fork bombs.

use super::interp::{self, Effect, Language};
use super::{Finding, Report, Rule, Site, quote, words_text};
use crate::argv::{self, split};
use crate::script::{Script, Word};
use crate::words::shell_quoted;

/// Shells: they run a `-c` string, a script file, or their standard input.
const SHELLS: &[&str] = &[
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
fn downloads(argv: &[Word]) -> bool {
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
        awk(site, args, report);
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

/// awk's program text: the commands `system("…")`, `print … | "…"` and `"…" | getline` run are
/// checked as shell commands, like other interpreters'.
fn awk(site: &Site<'_>, args: &[Word], report: &mut Report) {
    let parsed = split(
        args,
        &["-F", "-v", "-f", "--file", "--assign", "--field-separator"],
    );
    if parsed.value_of(&["-f", "--file"]).is_some() {
        return;
    }
    let Some(program) = parsed.operands.first() else {
        return;
    };
    for code in &program.values {
        for command in awk_commands(code) {
            site.nest(report, &Word::synthetic(command, program.dynamic));
        }
        for command in awk_computed_commands(code) {
            site.nest(report, &Word::synthetic(command, true));
        }
    }
}

/// What stands for a value awk computes (a field, a variable) in a command it runs.
const AWK_VALUE: &str = "\"$AWK_VALUE\"";

/// The commands `system(…)` runs when its argument is not one string literal: the literals
/// kept and every computed value (`$0`, `x`) an unknown value, so `system("rm -rf " $0)` is
/// `rm -rf "$AWK_VALUE"` and `system($0)` runs unknown code.
fn awk_computed_commands(code: &str) -> Vec<String> {
    let chars: Vec<char> = code.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let mut in_string = false;
    while i < chars.len() {
        let c = chars[i];
        if c == '\\' {
            i += 2;
            continue;
        }
        if c == '"' {
            in_string = !in_string;
        }
        let call = !in_string
            && chars[i..].starts_with(&['s', 'y', 's', 't', 'e', 'm'])
            && (i == 0 || !chars[i - 1].is_alphanumeric() && chars[i - 1] != '_');
        if !call {
            i += 1;
            continue;
        }
        let mut j = i + 6;
        while chars.get(j).is_some_and(|c| c.is_whitespace()) {
            j += 1;
        }
        if chars.get(j) != Some(&'(') {
            i += 1;
            continue;
        }
        let (pieces, end) = awk_argument(&chars, j + 1);
        i = end;
        let literal_only = matches!(pieces.as_slice(), [Some(_)]);
        if pieces.is_empty() || literal_only {
            continue;
        }
        let mut command = String::new();
        for piece in pieces {
            match piece {
                Some(text) => command.push_str(&text),
                None if command.ends_with(AWK_VALUE) => {}
                None => command.push_str(AWK_VALUE),
            }
        }
        out.push(command);
    }
    out
}

/// The pieces of an awk call's argument from `start` up to its closing parenthesis: string
/// literals as `Some(text)`, each computed value as `None`; and the index after it.
fn awk_argument(chars: &[char], start: usize) -> (Vec<Option<String>>, usize) {
    let mut pieces = Vec::new();
    let mut depth = 0usize;
    let mut i = start;
    while let Some(&c) = chars.get(i) {
        match c {
            '"' => {
                let mut text = String::new();
                i += 1;
                while let Some(&c) = chars.get(i) {
                    match c {
                        '\\' => {
                            text.extend(chars.get(i + 1));
                            i += 2;
                            continue;
                        }
                        '"' => break,
                        _ => text.push(c),
                    }
                    i += 1;
                }
                pieces.push(Some(text));
            }
            '(' => depth += 1,
            ')' if depth == 0 => return (pieces, i + 1),
            ')' => depth -= 1,
            c if c.is_alphanumeric() || c == '$' || c == '_' => {
                if pieces.last().is_none_or(Option::is_some) {
                    pieces.push(None);
                }
                while chars
                    .get(i + 1)
                    .is_some_and(|c| c.is_alphanumeric() || *c == '_' || *c == '$')
                {
                    i += 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    (pieces, i)
}

/// The string literals awk code runs as commands: the argument of `system(…)`, the target of
/// `| "…"` (output piped to a command) and the source of `"…" | getline`.
fn awk_commands(code: &str) -> Vec<String> {
    let mut literals: Vec<(usize, usize, String)> = Vec::new();
    let mut chars = code.char_indices().peekable();
    while let Some((start, c)) = chars.next() {
        if c != '"' {
            continue;
        }
        let mut text = String::new();
        let mut end = code.len();
        while let Some((i, c)) = chars.next() {
            match c {
                '\\' => text.extend(chars.next().map(|(_, c)| c)),
                '"' => {
                    end = i + 1;
                    break;
                }
                _ => text.push(c),
            }
        }
        literals.push((start, end, text));
    }
    literals
        .into_iter()
        .filter(|(start, end, _)| {
            let before: String = code[..*start]
                .chars()
                .filter(|c| !c.is_whitespace())
                .collect();
            let after: String = code[*end..]
                .chars()
                .filter(|c| !c.is_whitespace())
                .collect();
            before.ends_with("system(") || before.ends_with('|') || after.starts_with("|getline")
        })
        .map(|(_, _, text)| text)
        .collect()
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
fn list_expansion(raw: &str) -> bool {
    let inner = raw.trim_matches('"');
    matches!(inner, "$@" | "$*" | "${@}" | "${*}")
        || inner.starts_with("${@:")
        || inner.starts_with("${")
            && (inner.ends_with("[@]}") || inner.ends_with("[*]}"))
            && !inner.starts_with("${#")
}

/// A command word that is a list (`"$@"` after `set -- rm -rf /`, `"${cmd[@]}"` after
/// `cmd=(rm -rf ~)`): its words, when known, are checked as the command they make; an unknown
/// list is asked about, except `"$@"` in a function's body (`retry() { "$@"; }`), which runs
/// what the function is called with.
fn list_command_word(site: &Site<'_>, word: &Word, report: &mut Report) {
    let rest: Vec<String> = site
        .args()
        .iter()
        .map(|w| {
            if w.dynamic {
                w.raw.clone()
            } else {
                shell_quoted(w.text())
            }
        })
        .collect();
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
        let rest: Vec<String> = site
            .args()
            .iter()
            .map(|w| {
                if w.dynamic {
                    w.raw.clone()
                } else {
                    shell_quoted(w.text())
                }
            })
            .collect();
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

/// The variable expansions (`$X`, `${c}`, `$1`) in `raw` outside single quotes, as written:
/// what a shell pastes into a command string it hands over (`bash -c "$X"`). Command
/// substitutions are left out: the nested script reads them again, and judges what they print.
pub(super) fn spliced_variables(raw: &str) -> Vec<String> {
    let chars: Vec<char> = raw.chars().collect();
    let mut out: Vec<String> = Vec::new();
    let mut double = false;
    let mut i = 0;
    // The index just after the bracket closing the one opened at `i` (`{`→`}`, `(`→`)`).
    let closing = |i: usize, open: char, close: char| -> usize {
        let mut depth = 0usize;
        let mut j = i;
        while let Some(&c) = chars.get(j) {
            if c == open {
                depth += 1;
            } else if c == close {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return j + 1;
                }
            }
            j += 1;
        }
        chars.len()
    };
    while let Some(&c) = chars.get(i) {
        match c {
            '\\' => i += 2,
            '\'' if !double => {
                i += 1;
                while chars.get(i).is_some_and(|&c| c != '\'') {
                    i += 1;
                }
                i += 1;
            }
            '"' => {
                double = !double;
                i += 1;
            }
            '`' => {
                i += 1;
                while chars.get(i).is_some_and(|&c| c != '`') {
                    i += 1;
                }
                i += 1;
            }
            '$' => {
                let end = match chars.get(i + 1) {
                    Some('{') => closing(i + 1, '{', '}'),
                    Some('(') => {
                        i = closing(i + 1, '(', ')');
                        continue;
                    }
                    Some(c) if c.is_ascii_alphabetic() || *c == '_' => {
                        let mut j = i + 1;
                        while chars
                            .get(j)
                            .is_some_and(|c| c.is_ascii_alphanumeric() || *c == '_')
                        {
                            j += 1;
                        }
                        j
                    }
                    Some(c) if c.is_ascii_digit() || "@*#?$!-".contains(*c) => i + 2,
                    _ => i + 1,
                };
                let text: String = chars[i..end].iter().collect();
                if end > i + 1 && !out.contains(&text) {
                    out.push(text);
                }
                i = end;
            }
            _ => i += 1,
        }
    }
    out
}

/// Whether `raw` starts with the expansion `expansion` (`$c` in `$c -x` but not in `$cmd`).
fn starts_with_expansion(raw: &str, expansion: &str) -> bool {
    raw.strip_prefix(expansion).is_some_and(|rest| {
        expansion.ends_with('}')
            || !rest
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

/// A command word that is text only known when it runs, run as code: an unknown value pasted
/// into a command string (`eval "$X"`, `bash -c "$c"`), a variable holding text read from a
/// file or input (`read -r c; $c`, `c=$(cat cmd.txt); $c`), or a substitution printing such
/// text (`$(cat cmd.txt)`). A program named by the environment (`$CC -o x x.c`, `"$EDITOR"
/// f`) or printed by a program (`eval "$(pyenv init -)"`) is trusted like running it.
pub(super) fn unknown_code(site: &Site<'_>, word: &Word, report: &mut Report) {
    if !word.dynamic || list_expansion(&word.raw) {
        return;
    }
    let raw = word.raw.trim_start_matches('"');
    let spliced = site
        .script
        .spliced
        .iter()
        .find(|s| starts_with_expansion(raw, s));
    let input = site.script.input_vars.iter().find(|name| {
        starts_with_expansion(raw, &format!("${name}"))
            || starts_with_expansion(raw, &format!("${{{name}}}"))
            || raw.starts_with(&format!("${{{name}["))
    });
    let commands = site.script.commands.get(word.subs.clone()).unwrap_or(&[]);
    let printed = (raw.starts_with("$(") || raw.starts_with('`'))
        && (raw.starts_with("$(<") || commands.iter().any(|c| c.prints_input()));
    let reason = if let Some(value) = spliced {
        format!(
            "{} runs `{value}` as code, a value only known when it runs.",
            site.quoted()
        )
    } else if let Some(name) = input {
        format!(
            "{} runs the text `${name}` holds, read from a file or input: what runs is only \
             known when it runs.",
            site.quoted()
        )
    } else if printed {
        format!(
            "{} runs the text `{}` prints, read from a file or input: what runs is only known \
             when it runs.",
            site.quoted(),
            word.raw
        )
    } else {
        return;
    };
    site.find(report, Rule::UnknownCode, reason);
}

/// The files a download command writes: `curl -o F`/`--output F`, `curl -O URL` (the URL's
/// last part), `wget -O F`/`--output-document=F`, `wget URL` (the URL's last part), and its
/// output redirected (`curl URL > F`).
fn downloaded_files(command: &crate::script::SimpleCommand) -> Vec<String> {
    if !downloads(&command.argv) {
        return Vec::new();
    }
    let invocation = argv::unwrap(&command.argv);
    let program = invocation
        .argv
        .first()
        .and_then(argv::program)
        .unwrap_or("");
    let args = &invocation.argv[1..];
    let values: &[&str] = match program {
        "wget" => &["-O", "--output-document", "-P", "--header"],
        _ => &[
            "-o", "--output", "-H", "--header", "-d", "--data", "-X", "-u",
        ],
    };
    let parsed = split(args, values);
    let url_leaf = || {
        parsed
            .operands
            .iter()
            .find(|w| w.text().contains("://"))
            .and_then(|w| w.text().rsplit('/').next())
            .filter(|leaf| !leaf.is_empty())
            .map(str::to_string)
    };
    let mut files: Vec<String> = command
        .outputs
        .iter()
        .map(|w| w.text().to_string())
        .collect();
    match program {
        "curl" => {
            files.extend(
                parsed
                    .value_of(&["-o", "--output"])
                    .map(|w| w.text().to_string()),
            );
            if parsed.has("--remote-name", Some('O')) {
                files.extend(url_leaf());
            }
        }
        "wget" => match parsed.value_of(&["-O", "--output-document"]) {
            Some(file) => files.push(file.text().to_string()),
            None => files.extend(url_leaf()),
        },
        _ => {}
    }
    files.retain(|f| f != "-" && f != "/dev/null");
    files
}

/// The same file as written two ways (`./x.sh`, `x.sh`).
fn same_file(a: &str, b: &str) -> bool {
    a.trim_start_matches("./") == b.trim_start_matches("./")
}

/// A file downloaded and then run in the same command (`curl -o x.sh URL && bash x.sh`,
/// `wget URL -O b && chmod +x b && ./b`): the download runs as code unchecked, as with
/// `curl … | sh`.
pub(super) fn downloaded_then_run(script: &Script, report: &mut Report) {
    let mut downloaded: Vec<String> = Vec::new();
    for command in &script.commands {
        let invocation = argv::unwrap(&command.argv);
        if let Some(first) = invocation.argv.first() {
            let program = argv::program(first).unwrap_or("");
            let runs_file = SHELLS.contains(&program)
                || Language::of(program).is_some()
                || matches!(program, "source" | ".");
            let mut run: Vec<&str> = vec![first.text()];
            if runs_file {
                run.extend(
                    invocation.argv[1..]
                        .iter()
                        .find(|w| !w.text().starts_with('-'))
                        .map(Word::text),
                );
            }
            let ran = downloaded
                .iter()
                .find(|file| run.iter().any(|r| same_file(r, file)));
            if let Some(file) = ran {
                report.findings.push(Finding::new(
                    Rule::PipeToShell,
                    format!(
                        "{} runs `{file}`, which the same command downloads: it cannot be \
                         checked before it runs.",
                        quote(&command.text)
                    ),
                    vec![command.text.clone()],
                ));
            }
        }
        downloaded.extend(downloaded_files(command));
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
