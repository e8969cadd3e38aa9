//! A command's words read the way its program reads them: wrappers (`sudo`, `env`, `xargs`, …)
//! peeled off to find the command that really runs, and options told apart from operands.

use super::script::Word;

/// Most wrappers peeled off one command (`sudo env nice timeout 5 rm …`).
const MAX_WRAPPERS: usize = 8;

/// The program a word names (`/usr/bin/rm` → `rm`), or `None` when it cannot be known.
pub(crate) fn program(word: &Word) -> Option<&str> {
    if word.dynamic {
        return None;
    }
    let text = word.text();
    Some(text.rsplit('/').next().unwrap_or(text))
}

/// The command that runs once wrappers are peeled off.
#[derive(Debug, Clone)]
pub(crate) struct Invocation<'w> {
    /// Its words, the program first; empty when the wrapper runs nothing we can see
    /// (`sudo -i`, `command -v rm`).
    pub argv: &'w [Word],
    /// The privilege wrapper in front of it (`sudo`, `doas`, `su`, …), if any.
    pub privileged: Option<String>,
    /// Whether `xargs` adds arguments read from standard input.
    pub args_from_stdin: bool,
    /// Command strings a wrapper hands to a shell (`su -c`, `env -S`, `flock -c`, `watch`).
    pub scripts: Vec<Word>,
    /// How `xargs -I`/`-J` or GNU `parallel` puts each input into the command, if they run it.
    pub fan_out: Option<FanOut<'w>>,
}

/// How `xargs -I R`, `xargs -J R` or GNU `parallel` runs its command once per input.
#[derive(Debug, Clone)]
pub(crate) struct FanOut<'w> {
    /// The strings replaced by the input (`{}`); the input is appended where none occurs, or
    /// (`xargs -I`) not used at all.
    pub replace: Vec<String>,
    /// Whether an input is appended to a command without a replace string (`parallel`).
    pub appends: bool,
    /// Whether the command's words are joined into one shell command line (`parallel`).
    pub joined: bool,
    /// The inputs given on the command line (`parallel CMD ::: a b`); `None` when they are read
    /// from standard input. A dynamic word stands for inputs read from a file (`::::`).
    pub inputs: Option<Vec<&'w Word>>,
}

/// How one wrapper command reads its own arguments before the command it runs.
struct Wrapper {
    name: &'static str,
    /// Options that take the next word as their value.
    value_options: &'static [&'static str],
    /// Options whose value is a shell command string.
    script_options: &'static [&'static str],
    /// Operands the wrapper takes before the command (`timeout DURATION`, `flock FILE`).
    leading_operands: usize,
    /// Whether the command runs as another user (root).
    privileged: bool,
}

const fn wrapper(name: &'static str, value_options: &'static [&'static str]) -> Wrapper {
    Wrapper {
        name,
        value_options,
        script_options: &[],
        leading_operands: 0,
        privileged: false,
    }
}

const SUDO_VALUES: &[&str] = &[
    "-u",
    "-g",
    "-p",
    "-C",
    "-h",
    "-r",
    "-t",
    "-U",
    "-D",
    "-T",
    "-R",
    "--user",
    "--group",
    "--prompt",
    "--close-from",
    "--host",
    "--role",
    "--type",
    "--other-user",
    "--chdir",
    "--command-timeout",
];

const XARGS_VALUES: &[&str] = &[
    "-I",
    "-n",
    "-L",
    "-l",
    "-P",
    "-s",
    "-d",
    "-E",
    "-e",
    "-a",
    "-J",
    "--arg-file",
    "--delimiter",
    "--max-args",
    "--max-procs",
    "--max-lines",
    "--max-chars",
    "--eof",
];

const PARALLEL_VALUES: &[&str] = &[
    "-j",
    "--jobs",
    "-P",
    "--max-procs",
    "-N",
    "-n",
    "--max-args",
    "-L",
    "--max-lines",
    "-S",
    "--sshlogin",
    "-a",
    "--arg-file",
    "-d",
    "--delimiter",
    "-I",
    "-C",
    "--colsep",
    "-E",
    "--joblog",
    "--results",
    "--delay",
    "--timeout",
    "--tmpdir",
    "--workdir",
    "--wd",
    "--tag-string",
    "--halt",
    "--memfree",
    "--load",
    "--env",
    "--retries",
    "--sshloginfile",
    "--slf",
];

/// Where GNU parallel's own command line arguments start (`:::`), or read from files (`::::`).
const PARALLEL_SEPARATORS: &[&str] = &[":::", "::::", ":::+", "::::+"];

/// The wrappers known to run a command given as their remaining arguments.
const WRAPPERS: &[Wrapper] = &[
    Wrapper {
        privileged: true,
        ..wrapper("sudo", SUDO_VALUES)
    },
    Wrapper {
        privileged: true,
        ..wrapper("doas", &["-u", "-C"])
    },
    Wrapper {
        privileged: true,
        ..wrapper("pkexec", &["--user"])
    },
    Wrapper {
        privileged: true,
        ..wrapper(
            "run0",
            &[
                "-u", "--user", "-g", "--group", "-D", "--chdir", "--setenv", "--unit",
            ],
        )
    },
    Wrapper {
        script_options: &["-S", "--split-string"],
        ..wrapper("env", &["-u", "--unset", "-C", "--chdir"])
    },
    wrapper("nice", &["-n", "--adjustment"]),
    wrapper(
        "ionice",
        &["-c", "-n", "-p", "-P", "-u", "--class", "--classdata"],
    ),
    Wrapper {
        leading_operands: 1,
        ..wrapper("chrt", &[])
    },
    Wrapper {
        leading_operands: 1,
        ..wrapper("taskset", &[])
    },
    wrapper("stdbuf", &["-i", "-o", "-e"]),
    wrapper("nohup", &[]),
    wrapper("setsid", &[]),
    wrapper("unbuffer", &[]),
    wrapper("builtin", &[]),
    wrapper("busybox", &[]),
    wrapper("toybox", &[]),
    wrapper("time", &["-f", "-o", "--format", "--output"]),
    wrapper("exec", &["-a"]),
    wrapper("caffeinate", &["-t", "-w"]),
    wrapper(
        "strace",
        &[
            "-o", "-e", "-p", "-s", "-u", "-E", "-P", "-a", "-b", "-O", "-S", "-X", "-I",
        ],
    ),
    wrapper("ltrace", &["-o", "-e", "-p", "-s", "-u", "-n", "-a"]),
    wrapper("proxychains", &["-f"]),
    wrapper("proxychains4", &["-f"]),
    wrapper("torsocks", &[]),
    Wrapper {
        leading_operands: 1,
        ..wrapper("timeout", &["-s", "-k", "--signal", "--kill-after"])
    },
    Wrapper {
        leading_operands: 1,
        script_options: &["-c", "--command"],
        ..wrapper("flock", &["-w", "--timeout", "-E", "--conflict-exit-code"])
    },
    Wrapper {
        leading_operands: 1,
        ..wrapper("chroot", &["--userspec", "--groups"])
    },
    wrapper("xargs", XARGS_VALUES),
];

/// Peels the wrappers off `argv` (see [`Invocation`]).
pub(crate) fn unwrap(argv: &[Word]) -> Invocation<'_> {
    let mut invocation = Invocation {
        argv,
        privileged: None,
        args_from_stdin: false,
        scripts: Vec::new(),
        fan_out: None,
    };
    for _ in 0..MAX_WRAPPERS {
        let Some(name) = invocation.argv.first().and_then(program) else {
            break;
        };
        if matches!(name, "su" | "runuser" | "sudoedit") {
            invocation
                .privileged
                .get_or_insert_with(|| name.to_string());
        }
        if matches!(name, "su" | "runuser" | "script") {
            // Their operands are a user or a file; the command comes with -c.
            let args = split(
                &invocation.argv[1..],
                &["-c", "--command", "-s", "--shell", "-g", "--group", "-G"],
            );
            invocation
                .scripts
                .extend(args.value_of(&["-c", "--command"]).cloned());
            invocation.argv = &[];
            break;
        }
        if name == "watch" {
            // watch runs its arguments, joined, with `sh -c`.
            let spec = wrapper("watch", &["-n", "--interval", "-q", "--equexit"]);
            let (command, _) = peel(&spec, &invocation.argv[1..]);
            let text: Vec<&str> = command.iter().map(Word::text).collect();
            let dynamic = command.iter().any(|w| w.dynamic);
            invocation
                .scripts
                .push(Word::synthetic(text.join(" "), dynamic));
            invocation.argv = &[];
            break;
        }
        let runs_subcommand = match name {
            "uv" | "poetry" | "pipenv" | "pdm" | "rye" | "hatch" => Some("run"),
            "bundle" => Some("exec"),
            _ => None,
        };
        if let Some(subcommand) = runs_subcommand {
            // `uv run [OPTIONS] COMMAND…`: the command runs in the project's environment.
            if !invocation.argv.get(1).is_some_and(|w| w.is(subcommand)) {
                break;
            }
            invocation.argv = skip_options(&invocation.argv[2..]);
            continue;
        }
        if name == "parallel" {
            let (command, fan_out) = parallel(&invocation.argv[1..]);
            invocation.args_from_stdin |= fan_out.inputs.is_none();
            invocation.fan_out = Some(fan_out);
            invocation.argv = command;
            continue;
        }
        if name == "command" {
            let lookup_only = invocation.argv[1..]
                .iter()
                .take_while(|w| w.text().starts_with('-'))
                .any(|w| w.is("-v") || w.is("-V"));
            invocation.argv = if lookup_only {
                &[]
            } else {
                skip_options(&invocation.argv[1..])
            };
            continue;
        }
        let Some(spec) = WRAPPERS.iter().find(|w| w.name == name) else {
            break;
        };
        if spec.privileged {
            invocation
                .privileged
                .get_or_insert_with(|| name.to_string());
        }
        invocation.args_from_stdin |= spec.name == "xargs";
        let options = &invocation.argv[1..];
        let (rest, scripts) = peel(spec, options);
        invocation.scripts.extend(scripts);
        invocation.argv = rest;
        if spec.name == "xargs" {
            let replace = xargs_replace(&options[..options.len() - rest.len()]);
            invocation.fan_out = replace.map(|replace| FanOut {
                replace: vec![replace],
                appends: false,
                joined: false,
                inputs: None,
            });
        }
    }
    invocation
}

/// The replace string of `xargs -I R`, `-IR`, `-i`, `--replace[=R]` or BSD `-J R`.
fn xargs_replace(options: &[Word]) -> Option<String> {
    let mut words = options.iter();
    let mut replace = None;
    while let Some(word) = words.next() {
        let text = word.text();
        replace = match text {
            "-I" | "-J" => words.next().map(|w| w.text().to_string()),
            "-i" | "--replace" => Some("{}".to_string()),
            _ => match text.strip_prefix("--replace=") {
                Some(value) => Some(value.to_string()),
                None if text.starts_with("-I") || text.starts_with("-i") => {
                    Some(text[2..].to_string())
                }
                None => {
                    if XARGS_VALUES.contains(&text) {
                        words.next();
                    }
                    continue;
                }
            },
        };
    }
    replace
}

/// GNU `parallel [OPTIONS] COMMAND… [::: ARGS…]`: its command and how inputs go into it.
fn parallel(args: &[Word]) -> (&[Word], FanOut<'_>) {
    let spec = wrapper("parallel", PARALLEL_VALUES);
    let (rest, _) = peel(&spec, args);
    let options = &args[..args.len() - rest.len()];
    let mut replace: Vec<String> = ["{}", "{.}", "{/}", "{//}", "{/.}", "{1}", "{2}"]
        .map(String::from)
        .to_vec();
    let mut words = options.iter();
    while let Some(word) = words.next() {
        if word.is("-I") || word.is("--replace") {
            replace.extend(words.next().map(|w| w.text().to_string()));
        }
    }
    let cut = rest
        .iter()
        .position(|w| PARALLEL_SEPARATORS.contains(&w.text()))
        .unwrap_or(rest.len());
    let inputs = (cut < rest.len()).then(|| {
        let mut from_file = false;
        let mut inputs = Vec::new();
        for word in &rest[cut..] {
            if PARALLEL_SEPARATORS.contains(&word.text()) {
                from_file = word.text().starts_with("::::");
            } else if from_file {
                inputs.push(&UNKNOWN_INPUT);
            } else {
                inputs.push(word);
            }
        }
        inputs
    });
    let fan_out = FanOut {
        replace,
        appends: true,
        joined: true,
        inputs,
    };
    (&rest[..cut], fan_out)
}

/// An input that cannot be known (read from a file).
static UNKNOWN_INPUT: Word = Word {
    raw: String::new(),
    values: Vec::new(),
    dynamic: true,
    glob: false,
    split: true,
    subs: 0..0,
};

/// What follows `command`'s own options.
fn skip_options(args: &[Word]) -> &[Word] {
    let skip = args
        .iter()
        .take_while(|w| !w.dynamic && w.text().starts_with('-'))
        .count();
    &args[skip..]
}

/// The words after `spec`'s own options and operands, and the scripts its options carry.
fn peel<'w>(spec: &Wrapper, args: &'w [Word]) -> (&'w [Word], Vec<Word>) {
    let mut scripts = Vec::new();
    let mut operands = spec.leading_operands;
    let mut i = 0;
    while let Some(word) = args.get(i) {
        let text = word.text();
        if word.dynamic {
            break;
        }
        if text == "--" {
            i += 1;
            break;
        }
        if text.starts_with('-') && text.len() > 1 {
            if spec.script_options.contains(&text) {
                scripts.extend(args.get(i + 1).cloned());
                i += 2;
            } else if let Some(script) = spec
                .script_options
                .iter()
                .find_map(|o| text.strip_prefix(o).and_then(|rest| rest.strip_prefix('=')))
            {
                scripts.push(Word::synthetic(script.to_string(), false));
                i += 1;
            } else if spec.value_options.contains(&text) {
                i += 2;
            } else {
                i += 1;
            }
            continue;
        }
        if spec.name == "env" && is_assignment(text) {
            i += 1;
            continue;
        }
        if operands > 0 {
            operands -= 1;
            i += 1;
            continue;
        }
        break;
    }
    (args.get(i..).unwrap_or(&[]), scripts)
}

/// `NAME=value`.
fn is_assignment(text: &str) -> bool {
    text.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty()
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !name.starts_with(|c: char| c.is_ascii_digit())
    })
}

/// A command's arguments sorted into options and operands.
#[derive(Debug, Clone, Default)]
pub(crate) struct Args<'w> {
    /// Options without a value, as written (`-rf`, `--force`).
    pub flags: Vec<&'w str>,
    /// Options with a value: `-o FILE` and `--output=FILE` alike.
    pub values: Vec<(String, Word)>,
    /// Everything else, in order (all words after `--`).
    pub operands: Vec<&'w Word>,
}

impl Args<'_> {
    /// Whether the flag `long` or the short flag `short` is given, alone or in a cluster
    /// (`-rf` holds `r`).
    pub fn has(&self, long: &str, short: Option<char>) -> bool {
        self.flags.iter().any(|flag| {
            *flag == long
                || short.is_some_and(|s| {
                    !flag.starts_with("--") && flag.starts_with('-') && flag[1..].contains(s)
                })
        })
    }

    /// Whether any flag starts with `prefix` (`--delete` matches `--delete-after`).
    pub fn has_prefix(&self, prefix: &str) -> bool {
        self.flags.iter().any(|f| f.starts_with(prefix))
            || self.values.iter().any(|(name, _)| name.starts_with(prefix))
    }

    /// The value of the first of `names` that is given.
    pub fn value_of(&self, names: &[&str]) -> Option<&Word> {
        self.values
            .iter()
            .find(|(name, _)| names.contains(&name.as_str()))
            .map(|(_, value)| value)
    }
}

/// Sorts `args` (the words after the program) into flags, valued options and operands.
/// `value_options` take the next word as their value; `--name=value` always carries one.
pub(crate) fn split<'w>(args: &'w [Word], value_options: &[&str]) -> Args<'w> {
    let mut out = Args::default();
    let mut words = args.iter();
    while let Some(word) = words.next() {
        let text = word.text();
        if word.dynamic || !text.starts_with('-') || text == "-" {
            out.operands.push(word);
        } else if text == "--" {
            out.operands.extend(words.by_ref());
        } else if let Some((name, value)) = text.split_once('=').filter(|_| text.starts_with("--"))
        {
            out.values
                .push((name.to_string(), Word::synthetic(value.to_string(), false)));
        } else if value_options.contains(&text) {
            if let Some(value) = words.next() {
                out.values.push((text.to_string(), value.clone()));
            }
        } else {
            out.flags.push(text);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::words::synthetic_words as words;
    use pretty_assertions::assert_eq;

    fn texts(words: &[Word]) -> Vec<&str> {
        words.iter().map(Word::text).collect()
    }

    #[test]
    fn wrappers_are_peeled_to_the_command_that_runs() {
        let argv = words("sudo -u root env FOO=1 nice -n 5 timeout -s KILL 10 /bin/rm -rf /");
        let invocation = unwrap(&argv);
        assert_eq!(texts(invocation.argv), vec!["/bin/rm", "-rf", "/"]);
        assert_eq!(invocation.privileged.as_deref(), Some("sudo"));
    }

    #[test]
    fn xargs_marks_arguments_from_stdin() {
        let argv = words("xargs -0 -n 1 rm -rf");
        let invocation = unwrap(&argv);
        assert_eq!(texts(invocation.argv), vec!["rm", "-rf"]);
        assert!(invocation.args_from_stdin);
    }

    #[test]
    fn script_carrying_wrappers_hand_over_their_command_strings() {
        let argv = vec![
            Word::synthetic("su".into(), false),
            Word::synthetic("-c".into(), false),
            Word::synthetic("rm -rf /".into(), false),
        ];
        let invocation = unwrap(&argv);
        assert!(invocation.argv.is_empty());
        assert_eq!(texts(&invocation.scripts), vec!["rm -rf /"]);
        let argv = words("watch -n 1 ls -la");
        assert_eq!(texts(&unwrap(&argv).scripts), vec!["ls -la"]);
    }

    #[test]
    fn project_runners_run_their_command() {
        let argv = words("uv run python -");
        assert_eq!(texts(unwrap(&argv).argv), vec!["python", "-"]);
        let argv = words("bundle exec ruby -e x");
        assert_eq!(texts(unwrap(&argv).argv), vec!["ruby", "-e", "x"]);
        assert!(unwrap(&words("uv sync")).argv.len() == 2);
    }

    #[test]
    fn command_v_runs_nothing() {
        assert!(unwrap(&words("command -v rm")).argv.is_empty());
        assert_eq!(texts(unwrap(&words("command rm x")).argv), vec!["rm", "x"]);
    }

    #[test]
    fn options_values_and_operands_are_told_apart() {
        let argv = words("-rf --output=out -o file a -- -b");
        let args = split(&argv, &["-o"]);
        assert_eq!(args.flags, vec!["-rf"]);
        assert!(args.has("--recursive", Some('r')));
        assert_eq!(args.value_of(&["--output"]).map(Word::text), Some("out"));
        assert_eq!(args.value_of(&["-o"]).map(Word::text), Some("file"));
        let operands: Vec<&str> = args.operands.iter().map(|w| w.text()).collect();
        assert_eq!(operands, vec!["a", "-b"]);
    }
}
