//! The programs known to only read, and the arguments that keep them so.

use super::options::{self, Arg, Grammar, exact, is_long, may_be_option, may_be_several, operands};
use super::{awk, git, names, sed};
use crate::script::Word;

/// Programs that only read whatever their arguments: no option or operand makes them write a
/// file, run another program or contact another machine (a read-only command runs without
/// the user's approval, so nothing here may send what it reads away). (`cd`, `read`, `set` and the like change only the shell's
/// own state.)
const READERS: &[&str] = &[
    // Files and directories.
    "ls",
    "dir",
    "vdir",
    "eza",
    "exa",
    "stat",
    "du",
    "df",
    "pwd",
    "realpath",
    "readlink",
    "basename",
    "dirname",
    "test",
    "[",
    // File contents.
    "cat",
    "head",
    "tail",
    "wc",
    "nl",
    "od",
    "hexdump",
    "hd",
    "strings",
    "tac",
    "rev",
    "column",
    "cut",
    "tr",
    "paste",
    "fold",
    "fmt",
    "expand",
    "unexpand",
    "comm",
    "join",
    "cmp",
    "diff",
    "diff3",
    "jq",
    "zcat",
    "bzcat",
    "xzcat",
    "zgrep",
    "look",
    "tsort",
    "numfmt",
    // Searching.
    "grep",
    "egrep",
    "fgrep",
    // Checksums.
    "md5sum",
    "sha1sum",
    "sha224sum",
    "sha256sum",
    "sha384sum",
    "sha512sum",
    "b2sum",
    "cksum",
    "sum",
    "shasum",
    "md5",
    // Printing.
    "echo",
    "printf",
    "true",
    "false",
    ":",
    "seq",
    "sleep",
    // The environment and the machine.
    "printenv",
    "which",
    "whereis",
    "type",
    "whoami",
    "id",
    "groups",
    "uname",
    "arch",
    "nproc",
    "uptime",
    "tty",
    "locale",
    "getconf",
    "cal",
    "logname",
    "ps",
    "pgrep",
    "free",
    "lscpu",
    "lsblk",
    // The shell's own state.
    "cd",
    "pushd",
    "popd",
    "dirs",
    "read",
    "set",
    "shopt",
    "wait",
    "exit",
    "return",
    "break",
    "continue",
    "shift",
    "help",
];

/// Programs that may be asked for their version and nothing else (`python3 --version`): build
/// tools and interpreters run code or write (`target/`, `node_modules/`), so they are out.
const VERSION_ONLY: &[&str] = &[
    "python",
    "python3",
    "python2",
    "node",
    "npm",
    "npx",
    "pnpm",
    "yarn",
    "bun",
    "deno",
    "cargo",
    "rustc",
    "rustup",
    "go",
    "java",
    "javac",
    "ruby",
    "perl",
    "php",
    "gcc",
    "g++",
    "cc",
    "clang",
    "clang++",
    "make",
    "cmake",
    "pip",
    "pip3",
    "uv",
    "poetry",
    "docker",
    "kubectl",
    "terraform",
    "tsc",
    "dotnet",
    "swift",
    "ghc",
    "zig",
    "gh",
];

/// The word that asks any of [`VERSION_ONLY`] for its version.
const VERSION_WORDS: &[&str] = &["--version"];

/// The programs asked for their version with a word of their own (`go version`, `java
/// -version`, `python3 -V`): a short option means different things to each (`python3 -v` is
/// verbose and then runs the script it reads; `ruby -v` is verbose too). (`yarn version` and
/// `npm version patch` change the project's version.)
const OWN_VERSION_WORDS: &[(&str, &str)] = &[
    ("python", "-V"),
    ("python3", "-V"),
    ("python2", "-V"),
    ("cargo", "-V"),
    ("rustc", "-V"),
    ("rustup", "-V"),
    ("deno", "-V"),
    ("pip", "-V"),
    ("pip3", "-V"),
    ("uv", "-V"),
    ("poetry", "-V"),
    ("node", "-v"),
    ("npm", "-v"),
    ("npx", "-v"),
    ("pnpm", "-v"),
    ("yarn", "-v"),
    ("bun", "-v"),
    ("perl", "-v"),
    ("php", "-v"),
    ("docker", "-v"),
    ("tsc", "-v"),
    ("go", "version"),
    ("docker", "version"),
    ("kubectl", "version"),
    ("terraform", "version"),
    ("gh", "version"),
    ("java", "-version"),
    ("javac", "-version"),
];

/// Judges `program` run with `args`; `inner` judges a command it runs (`find -exec`).
pub(super) fn judge(
    program: &str,
    args: &[Word],
    inner: impl Fn(&[Word]) -> Result<(), String>,
) -> Result<(), String> {
    if READERS.contains(&program) {
        return names::check(program, args);
    }
    if VERSION_ONLY.contains(&program) {
        let asks_version = |word: &str| {
            VERSION_WORDS.contains(&word) || OWN_VERSION_WORDS.contains(&(program, word))
        };
        let version = matches!(args, [only] if exact(only).is_some_and(asks_version));
        return match version {
            true => Ok(()),
            false => Err(format!(
                "`{program}` may run code or write files (here it may only be asked for its \
                 version, e.g. `{program} --version`)"
            )),
        };
    }
    match program {
        "git" => git::judge(args),
        "sed" => sed::judge(args),
        "awk" | "gawk" | "mawk" | "nawk" => awk::judge(program, args),
        "find" => find(args, inner),
        "sort" => sort(args),
        "mapfile" | "readarray" => {
            refused_options(program, args, "dnOsuc", &[], "C", &[])?;
            names::check(program, args)
        }
        "uniq" => uniq(args),
        "tee" => tee(args),
        "date" => date(args),
        "hostname" => hostname(args),
        "tree" => refused_options(program, args, "LPIoHTX", &[], "oR", &[]),
        "file" => refused_options(program, args, "mfFeP", &[], "C", &["--compile"]),
        "shuf" => refused_options(program, args, "nioe", &[], "o", &["--output"]),
        "base64" => refused_options(program, args, "wio", &[], "o", &["--output"]),
        "yq" => refused_options(
            program,
            args,
            "I",
            &[],
            "is",
            &["--inplace", "--in-place", "--split-exp"],
        ),
        "rg" => refused_options(
            program,
            args,
            "efgtTmABCMjEdr",
            &[],
            "",
            &["--pre", "--hostname-bin"],
        ),
        "ag" => refused_options(program, args, "ABCGgm", &[], "", &["--pager"]),
        "fd" | "fdfind" => refused_options(
            program,
            args,
            "edtETcj",
            &[],
            "xX",
            &["--exec", "--exec-batch"],
        ),
        "xxd" => xxd(args),
        // binutils load a plugin, a shared library, with `--plugin`.
        "nm" | "objdump" | "readelf" | "size" => {
            refused_options(program, args, "", &[], "", &["--plugin"])
        }
        "less" | "more" | "most" | "man" => Err(format!(
            "`{program}` is a pager, which can run commands; print the text with `cat`, \
             `head` or `sed -n` instead"
        )),
        "bash" | "sh" | "zsh" | "dash" | "ksh" | "fish" | "eval" | "source" | "." => Err(format!(
            "`{program}` runs a shell's command text, which is not judged here; run the \
             commands themselves"
        )),
        _ => Err(format!(
            "`{program}` is not one of the commands known to only read"
        )),
    }
}

/// A program that only reads unless given one of `refused_short` (in any cluster) or
/// `refused_long` (also shortened). `short_values` and `long_values` say which options take a
/// value. An argument only known when it runs that could be an option is refused.
fn refused_options(
    program: &str,
    args: &[Word],
    short_values: &'static str,
    long_values: &'static [&'static str],
    refused_short: &str,
    refused_long: &[&str],
) -> Result<(), String> {
    let grammar = Grammar {
        short_values,
        long_values,
    };
    for arg in options::parse(args, grammar) {
        match arg {
            Arg::Short(flag, _) if refused_short.contains(flag) => {
                return Err(format!("`{program} -{flag}` writes files or runs commands"));
            }
            Arg::Long(name, _) if refused_long.iter().any(|l| is_long(name, l)) => {
                return Err(format!("`{program} {name}` writes files or runs commands"));
            }
            Arg::Unknown(word) => return Err(unknown(program, word)),
            _ => {}
        }
    }
    Ok(())
}

/// The refusal of an argument only known when the command runs that could be an option.
pub(super) fn unknown(program: &str, word: &Word) -> String {
    format!(
        "`{program}` is given `{}`, which is only known when it runs and could be an option \
         that writes",
        word.raw
    )
}

/// `find`: its tests and actions, but not those that delete, write lists to files, or run
/// commands other than ones that only read (`-exec grep -l x {} +`); `-ok` asks a question no
/// one is there to answer.
fn find(args: &[Word], inner: impl Fn(&[Word]) -> Result<(), String>) -> Result<(), String> {
    let mut i = 0;
    while let Some(word) = args.get(i) {
        i += 1;
        let Some(text) = exact(word) else {
            if may_be_option(word) {
                return Err(unknown("find", word));
            }
            continue;
        };
        match text {
            "-delete" => return Err("`find -delete` deletes files".to_string()),
            "-fprint" | "-fprint0" | "-fprintf" | "-fls" => {
                return Err(format!("`find {text}` writes to a file"));
            }
            "-ok" | "-okdir" => {
                return Err(format!(
                    "`find {text}` asks before running a command, and no one can answer"
                ));
            }
            "-exec" | "-execdir" => {
                let end = args[i..]
                    .iter()
                    .position(|w| exact(w).is_some_and(|t| t == ";" || t == "+"))
                    .map_or(args.len(), |at| i + at);
                inner(&args[i..end]).map_err(|reason| {
                    format!("`find {text}` runs a command that may write: {reason}")
                })?;
                i = end + 1;
            }
            _ => {}
        }
    }
    Ok(())
}

/// `sort`: not with `-o FILE` (it writes its output there) or `--compress-program` (it runs
/// one).
fn sort(args: &[Word]) -> Result<(), String> {
    let grammar = Grammar {
        short_values: "kotST",
        long_values: &[
            "--key",
            "--output",
            "--field-separator",
            "--buffer-size",
            "--temporary-directory",
            "--compress-program",
            "--files0-from",
            "--random-source",
            "--parallel",
            "--batch-size",
        ],
    };
    for arg in options::parse(args, grammar) {
        match arg {
            Arg::Short('o', _) => return Err("`sort -o` writes its output to a file".into()),
            Arg::Short('T', _) => return Err("`sort -T` writes temporary files there".into()),
            Arg::Long(name, _) if is_long(name, "--temporary-directory") => {
                return Err("`sort --temporary-directory` writes temporary files there".into());
            }
            Arg::Long(name, _) if is_long(name, "--output") => {
                return Err("`sort --output` writes its output to a file".into());
            }
            Arg::Long(name, _) if name.len() > 3 && is_long(name, "--compress-program") => {
                return Err("`sort --compress-program` runs a program".into());
            }
            Arg::Unknown(word) => return Err(unknown("sort", word)),
            _ => {}
        }
    }
    Ok(())
}

/// `uniq [INPUT [OUTPUT]]`: not with a second operand, which it writes to.
fn uniq(args: &[Word]) -> Result<(), String> {
    let grammar = Grammar {
        short_values: "fsw",
        long_values: &["--skip-fields", "--skip-chars", "--check-chars"],
    };
    let parsed = options::parse(args, grammar);
    if let Some(word) = parsed.iter().find_map(|arg| match arg {
        Arg::Unknown(word) => Some(*word),
        _ => None,
    }) {
        return Err(unknown("uniq", word));
    }
    let operands = operands(&parsed);
    if let Some(word) = operands.iter().find(|w| may_be_several(w)) {
        return Err(format!(
            "`uniq` is given `{}`, which may be several files: the second is written to",
            word.raw
        ));
    }
    match operands.get(1) {
        Some(output) => Err(format!(
            "`uniq` writes its output to `{}`, its second operand",
            output.raw
        )),
        None => Ok(()),
    }
}

/// `tee`: only with no file (or `/dev/null`): it copies its input to the files it is given.
fn tee(args: &[Word]) -> Result<(), String> {
    for arg in options::parse(args, Grammar::default()) {
        match arg {
            Arg::Operand(word)
                if exact(word).is_some_and(|t| super::HARMLESS_OUTPUTS.contains(&t)) => {}
            Arg::Operand(word) | Arg::Unknown(word) => {
                return Err(format!("`tee` writes its input to `{}`", word.raw));
            }
            _ => {}
        }
    }
    Ok(())
}

/// `date`: prints the date, but does not set it (`-s`, `--set`, or an operand that does not
/// start with `+`).
fn date(args: &[Word]) -> Result<(), String> {
    let grammar = Grammar {
        short_values: "dfrs",
        long_values: &["--date", "--file", "--reference", "--set"],
    };
    for arg in options::parse(args, grammar) {
        match arg {
            Arg::Short('s', _) => return Err("`date -s` sets the system clock".into()),
            Arg::Long(name, _) if is_long(name, "--set") => {
                return Err("`date --set` sets the system clock".into());
            }
            Arg::Operand(word) if exact(word).is_some_and(|t| t.starts_with('+')) => {}
            Arg::Operand(word) | Arg::Unknown(word) => {
                return Err(format!(
                    "`date {}` may set the system clock (only a `+FORMAT` operand prints)",
                    word.raw
                ));
            }
            _ => {}
        }
    }
    Ok(())
}

/// `hostname`: prints the host's names, but does not set them (an operand, `-F FILE`).
fn hostname(args: &[Word]) -> Result<(), String> {
    for arg in options::parse(args, Grammar::default()) {
        match arg {
            Arg::Short('F' | 'b', _) => return Err("`hostname -F` sets the host name".into()),
            Arg::Long(name, _) if is_long(name, "--file") || is_long(name, "--boot") => {
                return Err("`hostname --file` sets the host name".into());
            }
            Arg::Operand(word) | Arg::Unknown(word) => {
                return Err(format!("`hostname {}` sets the host name", word.raw));
            }
            _ => {}
        }
    }
    Ok(())
}

/// `xxd [OPTIONS] [INFILE [OUTFILE]]`: not with a second operand, which it writes to.
fn xxd(args: &[Word]) -> Result<(), String> {
    let values = [
        "-c",
        "-cols",
        "-g",
        "-groupsize",
        "-l",
        "-len",
        "-o",
        "-s",
        "-seek",
        "-n",
        "-name",
    ];
    let mut files = 0;
    let mut words = args.iter();
    while let Some(word) = words.next() {
        let Some(text) = exact(word) else {
            return Err(unknown("xxd", word));
        };
        if values.contains(&text) {
            words.next();
        } else if !text.starts_with('-') || text == "-" {
            files += match may_be_several(word) {
                true => 2,
                false => 1,
            };
        }
    }
    match files > 1 {
        true => Err("`xxd` writes to its second file operand".into()),
        false => Ok(()),
    }
}
