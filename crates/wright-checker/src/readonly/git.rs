//! `git` read for whether it only reads: the subcommands that look at the repository, and of
//! those that can also change it (`branch`, `tag`, `remote`, `config`, `stash`, `reflog`, …)
//! only their listing and reading forms.

use super::options::{self, Arg, Grammar, exact, is_long, may_be_option};
use crate::script::Word;

/// git's own options before the subcommand that take a value: the next word, or after `=`.
const GLOBAL_VALUES: &[&str] = &[
    "-C",
    "--git-dir",
    "--work-tree",
    "--namespace",
    "--super-prefix",
    "--attr-source",
];

/// git's own options before the subcommand that take no value and change nothing a reading
/// subcommand does beyond what it reads. (`-p`/`--paginate` runs the configured pager, `-h`
/// and `--help` open `git help`; any option not listed is refused.)
const GLOBAL_FLAGS: &[&str] = &[
    "--no-pager",
    "-P",
    "--bare",
    "--no-replace-objects",
    "--literal-pathspecs",
    "--glob-pathspecs",
    "--noglob-pathspecs",
    "--icase-pathspecs",
    "--no-optional-locks",
    "--no-advice",
    "--no-lazy-fetch",
];

/// git's own options that print something and stop.
const GLOBAL_ANSWERS: &[&str] = &[
    "--version",
    "--html-path",
    "--man-path",
    "--info-path",
    "--exec-path",
    "--list-cmds",
];

/// Subcommands that only read (their `--output=FILE`, which some take, is refused apart).
const READERS: &[&str] = &[
    "status",
    "log",
    "diff",
    "show",
    "blame",
    "annotate",
    "ls-files",
    "ls-tree",
    "rev-parse",
    "describe",
    "shortlog",
    "cat-file",
    "rev-list",
    "merge-base",
    "name-rev",
    "for-each-ref",
    "show-ref",
    "show-branch",
    "check-ignore",
    "check-attr",
    "var",
    "cherry",
    "count-objects",
    "verify-commit",
    "verify-tag",
    "whatchanged",
    "diff-tree",
    "diff-files",
    "diff-index",
    "range-diff",
    "version",
    "grep",
];

/// The options of `git grep` that take the next word as their value (its `-n` does not).
const GREP_VALUES: Grammar = Grammar {
    short_values: "efABCm",
    long_values: &["--max-depth", "--max-count", "--threads"],
};

/// The options of the other reading subcommands that take the next word as their value (an
/// unknown value there cannot be an option).
const VALUES: Grammar = Grammar {
    short_values: "nSGL",
    long_values: &[
        "--author",
        "--committer",
        "--since",
        "--until",
        "--after",
        "--before",
        "--grep",
        "--format",
        "--pretty",
        "--max-count",
        "--skip",
        "--date",
        "--sort",
    ],
};

/// Judges `git ARGS`.
pub(super) fn judge(args: &[Word]) -> Result<(), String> {
    let mut i = 0;
    let subcommand = loop {
        let Some(word) = args.get(i) else {
            // `git` alone prints its usage.
            return Ok(());
        };
        let Some(text) = exact(word) else {
            return Err(super::programs::unknown("git", word));
        };
        i += 1;
        let name = text.split('=').next().unwrap_or(text);
        if name.starts_with("-c") || name == "--config-env" {
            return Err(format!(
                "`git {text}` sets a setting for the command, which can make git run programs"
            ));
        }
        if name == "--exec-path" && text.contains('=') {
            return Err("`git --exec-path=DIR` runs git's programs from another directory".into());
        }
        if matches!(name, "-h" | "--help") {
            return Err(format!(
                "`git {text}` opens git's manual, which runs a pager or browser"
            ));
        }
        if GLOBAL_ANSWERS.contains(&name) {
            return Ok(());
        }
        if GLOBAL_VALUES.contains(&text) {
            i += 1;
        } else if !text.starts_with('-') {
            break text;
        } else if !(GLOBAL_FLAGS.contains(&text)
            || (text.contains('=') && GLOBAL_VALUES.contains(&name)))
        {
            return Err(format!(
                "`git {text}` is not one of git's own options known to leave a reading \
                 subcommand reading"
            ));
        }
    };
    let args = &args[i..];
    refuse_output(subcommand, args)?;
    match subcommand {
        sub if READERS.contains(&sub) => Ok(()),
        "branch" => branch(args),
        "tag" => tag(args),
        "remote" => remote(args),
        "config" => config(args),
        "reflog" => match first_word(args) {
            None | Some("show" | "exists") => Ok(()),
            Some(option) if option.starts_with('-') => Ok(()),
            Some(other) => Err(format!("`git reflog {other}` changes the reflog")),
        },
        "stash" => only(subcommand, args, &["list", "show"], false),
        "worktree" => only(subcommand, args, &["list"], false),
        "submodule" => only(subcommand, args, &["status"], true),
        "notes" => only(subcommand, args, &["list", "show"], true),
        "bisect" => only(subcommand, args, &["log"], false),
        "symbolic-ref" => symbolic_ref(args),
        "ls-remote" | "fetch" | "pull" | "push" | "clone" => Err(format!(
            "`git {subcommand}` contacts another machine, which a read-only command may not do \
             without the user"
        )),
        other => Err(format!(
            "`git {other}` is not a git command known to only read"
        )),
    }
}

/// Refuses `--output=FILE` (which the diff and log family write to), `grep -O`/
/// `--open-files-in-pager` (which runs a program), and arguments only known when the command
/// runs that could be either.
fn refuse_output(subcommand: &str, args: &[Word]) -> Result<(), String> {
    let grammar = match subcommand {
        "grep" => GREP_VALUES,
        _ => VALUES,
    };
    for arg in options::parse(args, grammar) {
        match arg {
            Arg::Long(name, _) if is_long(name, "--output") => {
                return Err(format!("`git {subcommand} --output` writes to a file"));
            }
            Arg::Long(name, _)
                if subcommand == "grep" && is_long(name, "--open-files-in-pager") =>
            {
                return Err("`git grep --open-files-in-pager` runs a program".into());
            }
            Arg::Long("--help", _) => {
                return Err(format!(
                    "`git {subcommand} --help` opens the manual in another program; use `-h`"
                ));
            }
            Arg::Short('O', _) if subcommand == "grep" => {
                return Err("`git grep -O` runs a program".into());
            }
            Arg::Unknown(word) => return Err(super::programs::unknown("git", word)),
            _ => {}
        }
    }
    Ok(())
}

/// The first of `args`, when known.
fn first_word(args: &[Word]) -> Option<&str> {
    args.first().and_then(exact)
}

/// A subcommand allowed only in its reading forms `allowed` (and, if `bare`, without one).
fn only(subcommand: &str, args: &[Word], allowed: &[&str], bare: bool) -> Result<(), String> {
    match first_word(args) {
        None if bare => Ok(()),
        Some(form) if allowed.contains(&form) => Ok(()),
        form => Err(format!(
            "`git {subcommand}{}` changes the repository (only `git {subcommand} {}` may run here)",
            form.map(|f| format!(" {f}")).unwrap_or_default(),
            allowed.join("`/`")
        )),
    }
}

/// `git branch` when it lists: no operand unless a listing option makes the operands
/// patterns, and none of the options that create, delete, rename or track.
fn branch(args: &[Word]) -> Result<(), String> {
    let listing_flags = "arvlqi";
    let listing_long = [
        "--all",
        "--remotes",
        "--verbose",
        "--list",
        "--quiet",
        "--show-current",
        "--contains",
        "--no-contains",
        "--merged",
        "--no-merged",
        "--points-at",
        "--sort",
        "--format",
        "--color",
        "--no-color",
        "--column",
        "--no-column",
        "--abbrev",
        "--no-abbrev",
        "--ignore-case",
        "--omit-empty",
    ];
    let grammar = Grammar {
        short_values: "",
        long_values: &["--points-at", "--sort", "--format"],
    };
    let parsed = options::parse(args, grammar);
    let mut lists = false;
    for arg in &parsed {
        match arg {
            Arg::Short(flag, _) if listing_flags.contains(*flag) => {
                // `-v`, `-a` and `-r` change how branches are listed, but with a name `git
                // branch` still creates it; only `-l` makes the names patterns.
                lists |= *flag == 'l';
            }
            Arg::Long(name, _) if listing_long.contains(name) => {
                lists |= !matches!(
                    *name,
                    "--all"
                        | "--remotes"
                        | "--verbose"
                        | "--quiet"
                        | "--sort"
                        | "--format"
                        | "--color"
                        | "--no-color"
                        | "--column"
                        | "--no-column"
                        | "--abbrev"
                        | "--no-abbrev"
                        | "--ignore-case"
                        | "--omit-empty"
                );
            }
            Arg::Short(flag, _) => {
                return Err(format!("`git branch -{flag}` changes branches"));
            }
            Arg::Long(name, _) => return Err(format!("`git branch {name}` changes branches")),
            Arg::Operand(_) | Arg::Unknown(_) => {}
        }
    }
    match (options::operands(&parsed).first(), lists) {
        (Some(name), false) => Err(format!("`git branch {}` creates a branch", name.raw)),
        _ => Ok(()),
    }
}

/// `git tag` when it lists: `git tag`, or `-l`/`--list` with patterns and listing options.
fn tag(args: &[Word]) -> Result<(), String> {
    let grammar = Grammar {
        short_values: "",
        long_values: &["--points-at", "--sort", "--format"],
    };
    let parsed = options::parse(args, grammar);
    let mut lists = false;
    for arg in &parsed {
        match arg {
            Arg::Short('l' | 'n', _) => lists = true,
            Arg::Short('i', _) => {}
            Arg::Short(c, _) if c.is_ascii_digit() => {}
            Arg::Long(name, _)
                if is_long(name, "--list")
                    || [
                        "--contains",
                        "--no-contains",
                        "--merged",
                        "--no-merged",
                        "--points-at",
                    ]
                    .contains(name) =>
            {
                lists = true;
            }
            Arg::Long(name, _)
                if [
                    "--sort",
                    "--format",
                    "--color",
                    "--column",
                    "--no-column",
                    "--ignore-case",
                    "--omit-empty",
                ]
                .contains(name) => {}
            Arg::Short(flag, _) => return Err(format!("`git tag -{flag}` changes tags")),
            Arg::Long(name, _) => return Err(format!("`git tag {name}` changes tags")),
            Arg::Operand(_) | Arg::Unknown(_) => {}
        }
    }
    match (options::operands(&parsed).first(), lists) {
        (Some(name), false) => Err(format!("`git tag {}` creates a tag", name.raw)),
        _ => Ok(()),
    }
}

/// `git remote`: listing, `show -n` (without asking the remote), `get-url`.
fn remote(args: &[Word]) -> Result<(), String> {
    let first = args
        .iter()
        .find(|w| exact(w).is_none_or(|t| !t.starts_with('-')));
    match first.map(|w| exact(w)) {
        None => {
            let only_verbose = args
                .iter()
                .all(|w| exact(w).is_some_and(|t| matches!(t, "-v" | "--verbose")));
            match only_verbose {
                true => Ok(()),
                false => Err("`git remote` with options other than `-v` changes remotes".into()),
            }
        }
        Some(Some("get-url")) => Ok(()),
        Some(Some("show")) => {
            // An option only before `--`: after it, `-n` is a remote's name.
            let offline = args
                .iter()
                .map(exact)
                .take_while(|t| *t != Some("--"))
                .any(|t| t == Some("-n"));
            match offline {
                true => Ok(()),
                false => Err(
                    "`git remote show` asks the remote, contacting another machine, which a \
                     read-only command may not do without the user; `git remote show -n` does not"
                        .into(),
                ),
            }
        }
        Some(form) => Err(format!(
            "`git remote {}` changes remotes (only `git remote -v`, `show -n` and `get-url` may \
             run here)",
            form.unwrap_or("…")
        )),
    }
}

/// `git config` when it reads: `--get*`, `--list`, `get`, `list`, or one name alone.
fn config(args: &[Word]) -> Result<(), String> {
    let reading_modes = [
        "--get",
        "--get-all",
        "--get-regexp",
        "--get-urlmatch",
        "--get-color",
        "--get-colorbool",
        "--list",
    ];
    let harmless = [
        "--show-origin",
        "--show-scope",
        "--name-only",
        "--null",
        "--global",
        "--system",
        "--local",
        "--worktree",
        "--file",
        "--blob",
        "--type",
        "--bool",
        "--int",
        "--bool-or-int",
        "--path",
        "--expiry-date",
        "--default",
        "--includes",
        "--no-includes",
        "--fixed-value",
        "--all",
        "--regexp",
        "--value",
    ];
    let grammar = Grammar {
        short_values: "f",
        long_values: &["--file", "--blob", "--type", "--default", "--value"],
    };
    let parsed = options::parse(args, grammar);
    let mut mode = None;
    for arg in &parsed {
        match arg {
            Arg::Short('l', _) => mode = Some("--list"),
            Arg::Short('z' | 'f', _) => {}
            Arg::Long(name, _) if reading_modes.contains(name) => mode = Some(*name),
            Arg::Long(name, _) if harmless.contains(name) => {}
            Arg::Short(flag, _) => return Err(format!("`git config -{flag}` changes settings")),
            Arg::Long(name, _) => return Err(format!("`git config {name}` changes settings")),
            Arg::Unknown(word) => return Err(super::programs::unknown("git", word)),
            Arg::Operand(_) => {}
        }
    }
    let mut operands = options::operands(&parsed);
    if mode.is_none() {
        match operands.first().and_then(|w| exact(w)) {
            Some("get") => {
                mode = Some("--get");
                operands.remove(0);
            }
            Some("list") => {
                mode = Some("--list");
                operands.remove(0);
            }
            _ => {}
        }
    }
    let reads = match mode {
        Some("--list") => operands.is_empty(),
        Some(_) => operands.len() <= 2,
        None => operands.len() == 1 && operands[0].raw.contains('.'),
    };
    match reads
        && !operands
            .iter()
            .any(|w| may_be_option(w) && exact(w).is_none())
    {
        true => Ok(()),
        false => Err(format!(
            "`git config {}` changes settings (only `--get`, `--list` or one name alone may run \
             here)",
            operands
                .iter()
                .map(|w| w.raw.as_str())
                .collect::<Vec<_>>()
                .join(" ")
        )),
    }
}

/// `git symbolic-ref NAME` reads where a ref points; with a second operand or `-d` it changes
/// it.
fn symbolic_ref(args: &[Word]) -> Result<(), String> {
    let parsed = options::parse(args, Grammar::default());
    for arg in &parsed {
        match arg {
            Arg::Short('q', _) => {}
            Arg::Long("--quiet" | "--short" | "--no-recurse" | "--recurse", _) => {}
            Arg::Short(flag, _) => return Err(format!("`git symbolic-ref -{flag}` changes a ref")),
            Arg::Long(name, _) => return Err(format!("`git symbolic-ref {name}` changes a ref")),
            _ => {}
        }
    }
    match options::operands(&parsed).len() {
        0 | 1 => Ok(()),
        _ => Err("`git symbolic-ref NAME REF` points a ref elsewhere".into()),
    }
}
