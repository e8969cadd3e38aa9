//! Whether a command line can only read (issue 14): what plan mode and read-only sub-agents
//! may run with Bash. See [`read_only`].

mod awk;
mod evaluation;
mod git;
mod names;
mod options;
mod programs;
mod sed;

use std::path::Path;

use crate::parse;
use crate::rules::quote;
use crate::script::{Assignment, Cwd, Env, Redirect, Scope, SimpleCommand, Word};
use options::{exact, wrapped};

/// Where output may be redirected by a command that only reads.
const HARMLESS_OUTPUTS: &[&str] = &["/dev/null", "/dev/stdout", "/dev/stderr"];

/// Directories a program named by its path may be run from: the system's own programs.
const SYSTEM_BIN_DIRS: &[&str] = &["/bin/", "/usr/bin/", "/usr/local/bin/"];

/// Upper-case variables a command that only reads may set: they change how programs format
/// what they print, never what they run or write. Other upper-case names (`PATH`,
/// `LD_PRELOAD`, `GIT_*`, `PAGER`, `HOME`, …) can make a reading program run or load other
/// code, or write (`GIT_TRACE=file`); names with a lower-case letter are the script's own.
const HARMLESS_VARIABLES: &[&str] = &[
    "LANG",
    "LANGUAGE",
    "TZ",
    "COLUMNS",
    "LINES",
    "NO_COLOR",
    "CLICOLOR",
    "CLICOLOR_FORCE",
    "FORCE_COLOR",
    "TERM",
    "POSIXLY_CORRECT",
    "REPLY",
    "MAPFILE",
    "OPTIND",
    "GREP_COLOR",
    "GREP_COLORS",
    "LS_COLORS",
    "TIME_STYLE",
    "BLOCK_SIZE",
    "BLOCKSIZE",
    "QUOTING_STYLE",
];

/// Pagers wright already sets to `cat`; setting them to `cat` again changes nothing.
const PAGER_VARIABLES: &[&str] = &["PAGER", "GIT_PAGER", "MANPAGER"];

/// How many wrappers (`time timeout 5 nice env …`) are peeled off one command.
const MAX_WRAPPERS: usize = 8;

/// Judges whether `command`, a whole Bash command line, can only read — and contacts no other
/// machine, since a read-only command runs without the user's approval: `Ok` when every
/// program it runs — in pipelines, lists, subshells, loops, functions, command and process
/// substitutions, and behind wrappers such as `time`, `timeout`, `nice`, `env`, `command` and
/// `xargs` — is one known to only read, with arguments that keep it so, and its output goes
/// nowhere but the pipe, the terminal or `/dev/null`. `Err` names the first part that may
/// write or whose effect is not known, for the model (e.g. "`sed -i` edits files in place").
///
/// Conservative: an allowlist. Programs not on it (`rm`, `cargo`, `python script.py`, `bash
/// -c …`) are refused, and so are arguments only known when the command runs where they could
/// turn a reader into a writer (`sort $X f` could be `sort -o f`), output redirections to
/// files, and variables that change what programs run (`PATH`, `GIT_*`, `LD_PRELOAD`).
/// Reading files anywhere, secrets included, is reading: whether a command may run at all is
/// still [`crate::check`]'s to say.
pub fn read_only(command: &str) -> Result<(), String> {
    let env = Env {
        root: Path::new("/"),
        home: None,
        tmpdir: false,
    };
    let script = parse::parse(command, env, Scope::at(Cwd::Unknown))
        .map_err(|error| format!("{} cannot be judged: {error}", quote(command)))?;
    if script.has_error {
        return Err(format!(
            "{} does not parse as a complete shell command, so what it runs cannot be told",
            quote(command)
        ));
    }
    if script.too_deep {
        return Err(format!("{} nests too deeply to be judged", quote(command)));
    }
    evaluation::check(command)?;
    for command in &script.commands {
        inputs(command)?;
        judge(&command.argv, 0).map_err(|reason| match reason.contains(&quote(&command.text)) {
            true => reason,
            false => format!("{}: {reason}", quote(&command.text)),
        })?;
    }
    for redirect in &script.redirects {
        output(redirect)?;
    }
    for assignment in &script.assigned {
        variable(assignment)?;
    }
    Ok(())
}

/// A variable the script sets: harmless unless programs read it to decide what to run, load
/// or write.
fn variable(assignment: &Assignment) -> Result<(), String> {
    let name = assignment.name.as_str();
    let value = assignment.value.as_ref().and_then(exact);
    if assignment.nameref {
        // What the nameref names is what its later assignments set.
        let target = value.filter(|target| {
            !target.is_empty()
                && target
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_')
                && variable(&Assignment {
                    name: target.to_string(),
                    value: None,
                    nameref: false,
                })
                .is_ok()
        });
        if target.is_none() {
            return Err(format!(
                "it makes `{name}` a reference to a variable that is not known to be harmless"
            ));
        }
    }
    if name == "IFS" {
        // Splitting words at other characters could turn part of one into an option.
        return match value.is_some_and(|v| v.chars().all(char::is_whitespace)) {
            true => Ok(()),
            false => Err(
                "it sets `IFS` to split words at characters other than blanks, which could turn \
                 part of a word into an option"
                    .to_string(),
            ),
        };
    }
    let harmless = name.chars().any(|c| c.is_ascii_lowercase())
        || name.starts_with("LC_")
        || HARMLESS_VARIABLES.contains(&name)
        || (PAGER_VARIABLES.contains(&name) && matches!(value, Some("" | "cat")));
    match harmless {
        true => Ok(()),
        false => Err(format!(
            "it sets `{name}`, which programs may read to decide what to run, load or write \
             (`PATH`, `GIT_*`, `LD_PRELOAD`, `PAGER`, …); for the script's own values use a \
             name with lower-case letters"
        )),
    }
}

/// Where bash opens a network connection for a redirection.
const NETWORK_PATHS: &[&str] = &["/dev/tcp/", "/dev/udp/"];

/// A file the command reads by redirection: anything but a network connection, which could
/// carry what the command read away (in the host name it looks up); a path only known when the
/// command runs could be one.
fn inputs(command: &SimpleCommand) -> Result<(), String> {
    for input in &command.inputs {
        let network = input.values.iter().any(|value| {
            let known = match input.dynamic {
                true => value.split(['$', '`']).next().unwrap_or(""),
                false => value.as_str(),
            };
            NETWORK_PATHS
                .iter()
                .any(|path| known.starts_with(path) || (input.dynamic && path.starts_with(known)))
        });
        if network {
            return Err(format!(
                "`< {}` may open a network connection (`/dev/tcp/…`)",
                input.raw
            ));
        }
    }
    Ok(())
}

/// An output redirection: only to `/dev/null` (or the terminal's own streams).
fn output(redirect: &Redirect) -> Result<(), String> {
    match exact(&redirect.target) {
        Some(target) if HARMLESS_OUTPUTS.contains(&target) => Ok(()),
        _ => Err(format!(
            "{} writes to a file; only `> /dev/null` and duplications such as `2>&1` may be \
             used",
            quote(&redirect.text)
        )),
    }
}

/// Judges one simple command: its program, wrappers peeled off, with its arguments.
/// `wrappers` counts the wrappers peeled so far.
fn judge(argv: &[Word], wrappers: usize) -> Result<(), String> {
    let Some(first) = argv.first() else {
        return Ok(());
    };
    let Some(name) = exact(first) else {
        return Err(format!(
            "the command name `{}` is only known when it runs",
            first.raw
        ));
    };
    let program = program_name(name)?;
    let args = &argv[1..];
    if wrappers >= MAX_WRAPPERS {
        return Err(format!("`{program}` is wrapped in too many other commands"));
    }
    match program {
        "time" => wrapper(program, args, &["-f", "--format"], wrappers, |options| {
            options_without(
                program,
                options,
                &["-o", "--output"],
                "writes its report to a file",
            )
        }),
        "timeout" => {
            let (_, rest) = wrapped(args, &["-s", "--signal", "-k", "--kill-after"])
                .map_err(unknown_option(program))?;
            // The duration, then the command.
            judge(rest.get(1..).unwrap_or(&[]), wrappers + 1)
        }
        "nice" => wrapper(program, args, &["-n", "--adjustment"], wrappers, |_| Ok(())),
        "stdbuf" => wrapper(
            program,
            args,
            &["-i", "-o", "-e", "--input", "--output", "--error"],
            wrappers,
            |_| Ok(()),
        ),
        "command" => {
            let (options, rest) = wrapped(args, &[]).map_err(unknown_option(program))?;
            let lookup = options
                .iter()
                .any(|o| o.values.iter().any(|v| v.contains(['v', 'V'])));
            match lookup {
                true => Ok(()),
                false => judge(rest, wrappers + 1),
            }
        }
        "builtin" => judge(args, wrappers + 1),
        "exec" => wrapper(program, args, &["-a"], wrappers, |_| Ok(())),
        "env" => env(args, wrappers),
        "xargs" => xargs(args, wrappers),
        _ => programs::judge(program, args, |inner| judge(inner, wrappers + 1)),
    }
}

/// The program `name` runs: a bare name, or a path into the system's program directories.
fn program_name(name: &str) -> Result<&str, String> {
    if !name.contains('/') {
        return Ok(name);
    }
    let system = SYSTEM_BIN_DIRS
        .iter()
        .find_map(|dir| name.strip_prefix(dir))
        .filter(|rest| !rest.contains('/') && !rest.is_empty());
    system.ok_or_else(|| {
        format!(
            "`{name}` is a program from outside the system's directories, whose effect is not known"
        )
    })
}

/// A wrapper that takes `value_options` and then runs a command; `check` judges its own
/// options.
fn wrapper(
    program: &str,
    args: &[Word],
    value_options: &[&str],
    wrappers: usize,
    check: impl FnOnce(&[Word]) -> Result<(), String>,
) -> Result<(), String> {
    let (options, rest) = wrapped(args, value_options).map_err(unknown_option(program))?;
    check(options)?;
    judge(rest, wrappers + 1)
}

/// Refuses the options `refused` (also shortened, also `--output=FILE`) among a wrapper's.
fn options_without(
    program: &str,
    options: &[Word],
    refused: &[&str],
    why: &str,
) -> Result<(), String> {
    for option in options {
        let text = option.text();
        let name = text.split('=').next().unwrap_or(text);
        let cluster = text.strip_prefix('-').filter(|rest| !rest.starts_with('-'));
        let hit = refused
            .iter()
            .any(|r| match (r.strip_prefix("--"), r.strip_prefix('-')) {
                (Some(_), _) => options::is_long(name, r),
                (None, Some(short)) => cluster.is_some_and(|c| c.contains(short)),
                (None, None) => false,
            });
        if hit {
            return Err(format!("`{program} {text}` {why}"));
        }
    }
    Ok(())
}

/// [`programs::unknown`] for `program`, as a `map_err` takes it.
fn unknown_option(program: &str) -> impl Fn(&Word) -> String + '_ {
    move |word| programs::unknown(program, word)
}

/// `env [OPTIONS] [NAME=VALUE…] [COMMAND…]`: prints the environment, or runs the command with
/// the variables set.
fn env(args: &[Word], wrappers: usize) -> Result<(), String> {
    let (options, rest) =
        wrapped(args, &["-u", "--unset", "-C", "--chdir"]).map_err(unknown_option("env"))?;
    options_without(
        "env",
        options,
        &["-S", "--split-string"],
        "runs a command string",
    )?;
    let mut command = rest;
    let mut assignments = Vec::new();
    while let Some((word, after)) = command.split_first() {
        let Some((name, _)) = exact(word).and_then(|text| text.split_once('=')) else {
            break;
        };
        let value = Word::synthetic(word.text()[name.len() + 1..].to_string(), word.dynamic);
        assignments.push(Assignment {
            name: name.to_string(),
            value: Some(value),
            nameref: false,
        });
        command = after;
    }
    judge(command, wrappers + 1)?;
    assignments.iter().try_for_each(variable)
}

/// The stand-in for what `xargs` reads from its input and puts into the command: unknown, and
/// able to start with `-`.
fn xargs_input(split: bool) -> Word {
    Word {
        split,
        ..Word::synthetic(XARGS_INPUT.to_string(), true)
    }
}

/// How [`xargs_input`] is written.
const XARGS_INPUT: &str = "$XARGS_INPUT";

/// `xargs [OPTIONS] [COMMAND…]`: runs the command (`echo` when none) with arguments read from
/// its input — appended, or put where `-I R` names — which could be anything, options
/// included.
fn xargs(args: &[Word], wrappers: usize) -> Result<(), String> {
    let values = [
        "-I",
        "-J",
        "-n",
        "-L",
        "-P",
        "-s",
        "-d",
        "-E",
        "-a",
        "--arg-file",
        "--delimiter",
        "--max-args",
        "--max-procs",
        "--max-lines",
        "--max-chars",
        "--eof",
        "--process-slot-var",
    ];
    let (options, command) = wrapped(args, &values).map_err(unknown_option("xargs"))?;
    if command.is_empty() {
        return Ok(());
    }
    let mut replace = None;
    let mut words = options.iter();
    while let Some(option) = words.next() {
        let text = option.text();
        replace = match text {
            "-I" | "-J" => words.next().map(|w| w.text().to_string()),
            "-i" | "--replace" => Some("{}".to_string()),
            _ if text.starts_with("--replace=") => Some(text["--replace=".len()..].to_string()),
            _ if text.starts_with("-I") || text.starts_with("-i") => Some(text[2..].to_string()),
            _ => continue,
        };
    }
    let mut inner: Vec<Word> = match &replace {
        Some(replace) if !replace.is_empty() => command
            .iter()
            .map(|word| match word.text().contains(replace.as_str()) {
                true => xargs_input(false),
                false => word.clone(),
            })
            .collect(),
        _ => command.to_vec(),
    };
    if replace.is_none() {
        inner.push(xargs_input(true));
    }
    judge(&inner, wrappers + 1).map_err(|reason| match reason.contains(XARGS_INPUT) {
        true => format!(
            "`xargs` gives `{}` arguments read from its input, which could be options that make \
             it write; run it on files named in the command instead",
            command[0].raw
        ),
        false => format!("`xargs` runs a command that may write: {reason}"),
    })
}

#[cfg(test)]
mod tests;
