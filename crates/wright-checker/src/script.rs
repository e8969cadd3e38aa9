//! What a command line runs, as the checker's rules see it: simple commands with evaluated
//! words, where each runs, how they are piped, and the functions, loops and redirections
//! around them. [`super::parse`] builds it from bash source.

use std::collections::HashMap;
use std::ops::Range;
use std::path::{Path, PathBuf};

use super::words::MAX_ALTERNATIVES;
pub(crate) use super::words::Word;

/// What `~` means and where the project is.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Env<'a> {
    /// The canonical project root.
    pub root: &'a Path,
    /// The user's home directory, if known.
    pub home: Option<&'a Path>,
    /// Whether `$TMPDIR` and `$(mktemp)` may be read as places in the system temporary
    /// directory: false when the command could set `TMPDIR` (see [`trusts_tmpdir`]).
    pub tmpdir: bool,
}

/// Words that, in a command, could set `TMPDIR` without naming it plainly (`export`,
/// `declare`, `printf -v`, `read`, sourcing a file, `$'…'` escapes): with any of them,
/// `$TMPDIR` is not trusted to be the temporary directory.
const TMPDIR_SETTERS: &[&str] = &[
    "export", "declare", "typeset", "local", "readonly", "printf", "read", "source", "eval", "let",
    "mapfile", "$'",
];

/// Whether `command` leaves `TMPDIR` as the environment set it: the name appears only as
/// `$TMPDIR`/`${TMPDIR…}` and nothing that could assign it indirectly is present.
pub(crate) fn trusts_tmpdir(command: &str) -> bool {
    let plain_name = command.match_indices("TMPDIR").any(|(at, _)| {
        let before = &command[..at];
        !(before.ends_with('$') || before.ends_with("${"))
    });
    let sources = command
        .split(|c: char| c.is_whitespace() || ";&|(".contains(c))
        .any(|word| word == ".");
    !plain_name && !sources && !TMPDIR_SETTERS.iter().any(|word| command.contains(word))
}

/// The directories a command may run in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Cwd {
    /// One of these (usually exactly one).
    Known(Vec<PathBuf>),
    /// Somewhere that cannot be told (`cd "$DIR"`, `cd -`).
    Unknown,
}

impl Cwd {
    /// Every directory either `self` or `other` may be.
    pub(super) fn union(&self, other: &Cwd) -> Cwd {
        match (self, other) {
            (Cwd::Known(a), Cwd::Known(b)) => {
                let mut all = a.clone();
                all.extend(b.iter().filter(|d| !a.contains(d)).cloned());
                if all.len() > MAX_ALTERNATIVES {
                    Cwd::Unknown
                } else {
                    Cwd::Known(all)
                }
            }
            _ => Cwd::Unknown,
        }
    }
}

/// What the shell knows at one point of a script: where it is and which variables it set.
#[derive(Debug, Clone)]
pub(crate) struct Scope {
    /// The working directory.
    pub cwd: Cwd,
    /// Variables assigned in the script: their possible values, `None` when not known.
    pub(super) vars: HashMap<String, Option<Vec<String>>>,
}

impl Scope {
    /// A fresh shell in `cwd` that has set no variables.
    pub fn at(cwd: Cwd) -> Self {
        Self {
            cwd,
            vars: HashMap::new(),
        }
    }

    /// Keeps everything that `self` or `other` may be (after a branch that may not have run).
    pub(super) fn merge(&mut self, other: &Scope) {
        self.cwd = self.cwd.union(&other.cwd);
        for (name, value) in &other.vars {
            let merged = match (self.vars.get(name), value) {
                (Some(Some(a)), Some(b)) => Some(union_values(a.clone(), b)),
                (Some(None), _) | (_, None) | (None, _) => None,
            };
            self.vars.insert(name.clone(), merged);
        }
    }
}

pub(super) fn union_values(mut a: Vec<String>, b: &[String]) -> Vec<String> {
    for value in b {
        if !a.contains(value) {
            a.push(value.clone());
        }
    }
    a
}

/// The field separators of a shell that has not set `IFS`: space, tab and newline.
pub(crate) const DEFAULT_IFS: &str = " \t\n";

/// Standard input given in the script itself: a heredoc or a here-string.
pub(crate) type Stdin = Word;

/// One simple command as it would run.
#[derive(Debug, Clone)]
pub(crate) struct SimpleCommand {
    /// Its words, the command name first (prefix assignments left out).
    pub argv: Vec<Word>,
    /// Where it runs.
    pub cwd: Cwd,
    /// Its source text.
    pub text: String,
    /// A heredoc or here-string it reads.
    pub stdin: Option<Stdin>,
    /// The files it reads by redirection (`< FILE`, `<> FILE`).
    pub inputs: Vec<Word>,
    /// The files its output is redirected to (`> FILE`, `>& FILE`), also kept in
    /// [`Script::redirects`].
    pub outputs: Vec<Word>,
    /// The commands of the earlier stages of its pipeline, when it reads a pipe.
    pub upstream: Option<Range<usize>>,
    /// The command whose output it reads directly, when that is a simple command.
    pub pipe_from: Option<usize>,
    /// The pipeline it is a stage of (index into [`Script::pipelines`]).
    pub pipeline: Option<usize>,
    /// Whether it is part of a pipeline.
    pub piped: bool,
    /// Whether it runs in the background (`&`).
    pub background: bool,
    /// The characters unquoted expansions in its words are split at (`IFS`), when known.
    pub ifs: Option<String>,
}

/// Programs that print the files they are given, or their input, more or less as they are:
/// what they print is text read from input.
const INPUT_PRINTERS: &[&str] = &[
    "cat", "tac", "head", "tail", "sed", "awk", "gawk", "mawk", "cut", "grep", "egrep", "fgrep",
    "rg", "sort", "uniq", "tr", "jq", "yq", "nl", "paste", "column", "strings", "less", "more",
    "xargs", "shuf", "fold", "fmt", "rev",
];

impl SimpleCommand {
    /// Whether it prints text read from a file or its input (`cat cmd.txt`, `head -1 f`,
    /// `echo "$X"`) rather than text a program makes (`pyenv init -`): run as code, that text
    /// is unknown code. `cat` of a heredoc prints known text, which is checked where it is run.
    pub(crate) fn prints_input(&self) -> bool {
        let invocation = super::argv::unwrap(&self.argv);
        let Some(first) = invocation.argv.first() else {
            return false;
        };
        let Some(program) = super::argv::program(first) else {
            return true;
        };
        let args = &invocation.argv[1..];
        match program {
            "cat" if self.stdin.is_some() && args.iter().all(|w| w.text().starts_with('-')) => {
                false
            }
            "echo" | "printf" => args.iter().any(|w| w.dynamic),
            _ => INPUT_PRINTERS.contains(&program),
        }
    }
}

/// An output redirection (`> file`, `>> file`, `&> file`).
#[derive(Debug, Clone)]
pub(crate) struct Redirect {
    /// Where the output goes.
    pub target: Word,
    /// The directory a relative target is taken from.
    pub cwd: Cwd,
    /// The redirection's source text.
    pub text: String,
}

/// A pipeline, for its source text.
#[derive(Debug, Clone)]
pub(crate) struct Pipeline {
    /// Its source text.
    pub text: String,
}

/// A shell function definition.
#[derive(Debug, Clone)]
pub(crate) struct Function {
    /// Its name.
    pub name: String,
    /// Its source text.
    pub text: String,
    /// The commands of its body.
    pub body: Range<usize>,
}

/// A `while`, `until` or C-style `for` loop.
#[derive(Debug, Clone)]
pub(crate) struct Loop {
    /// Its source text.
    pub text: String,
    /// Whether its condition never ends it (`while true`, `until false`, `for ((;;))`).
    pub endless: bool,
    /// The commands of its body.
    pub body: Range<usize>,
}

/// Everything a command line runs.
#[derive(Debug, Clone, Default)]
pub(crate) struct Script {
    /// Every simple command, in the order they were found (a command after the commands of the
    /// substitutions in its words).
    pub commands: Vec<SimpleCommand>,
    /// Every output redirection.
    pub redirects: Vec<Redirect>,
    /// Every pipeline.
    pub pipelines: Vec<Pipeline>,
    /// Every function definition.
    pub functions: Vec<Function>,
    /// Every `while`/`until`/C-style `for` loop.
    pub loops: Vec<Loop>,
    /// Whether tree-sitter had to recover from a syntax error.
    pub has_error: bool,
    /// Whether the command nests deeper than the walk follows; what lies deeper was not seen.
    pub too_deep: bool,
    /// Whether it sets `IFS`, changing how unquoted expansions split into words.
    pub sets_ifs: bool,
    /// The unknown values (`$X`) the shell that handed over this script pasted into its text
    /// (`eval "$X"`, `bash -c "$c"`), as written: run as a command, they are unknown code.
    pub spliced: Vec<String>,
    /// The variables that hold text read from a file or input (`read -r c`, `c=$(cat f)`,
    /// `mapfile -t lines`), or computed from such text: run as a command, unknown code.
    pub input_vars: Vec<String>,
    /// The assignments and `unset`s that turn the shell's history off (`HISTFILE=/dev/null`,
    /// `unset HISTFILE`, `HISTSIZE=0`), as written.
    pub history_off: Vec<String>,
    /// Every variable the script sets or unsets, wherever: assignments (also `X=1 cmd`, which
    /// sets it for one command), `read`, `mapfile`, `printf -v`, `for` loops, `unset`, and the
    /// targets of namerefs (`declare -n r=PATH`).
    pub assigned: Vec<Assignment>,
}

/// A variable the script sets (or unsets), with the value when it is one word.
#[derive(Debug, Clone)]
pub(crate) struct Assignment {
    /// The variable's name (`PATH`, `line`; an array's name without `[…]`).
    pub name: String,
    /// The value assigned, when it is one word (`None` for `read`, loops, arrays, `unset`).
    pub value: Option<Word>,
    /// Whether it is declared a nameref (`declare -n NAME=TARGET`): assigning it later assigns
    /// the variable its value names.
    pub nameref: bool,
}
