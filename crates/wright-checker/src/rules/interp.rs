//! Interpreter code (`python -c`, `node <<EOF`, `ruby -e`, `perl` fed on stdin, …) read for
//! what it does to the machine: the shell commands it runs (`os.system('…')`,
//! `subprocess.run(["rm", "-rf", "/"])`, backquotes, `%x{}`) and the paths it deletes
//! (`shutil.rmtree('/')`, `fs.rmSync(p, {recursive: true})`, `unlink "/etc/passwd"`).
//!
//! The code is not parsed as its language: it is cut into string literals, names and
//! punctuation, and calls of known functions are read from that. Arguments that are not
//! literals (a variable, a computed path) are not followed.

/// The language of interpreter code, for its comments and quoting forms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Language {
    /// Python: `#` comments.
    Python,
    /// JavaScript or TypeScript: `//` and `/* */` comments.
    Node,
    /// Ruby: `#` comments, `%x{…}` commands, calls without parentheses.
    Ruby,
    /// Perl: `#` comments, `qx{…}` commands, calls without parentheses.
    Perl,
    /// PHP: `#` and `//` comments.
    Php,
    /// Lua: `--` comments.
    Lua,
}

impl Language {
    /// The language `program` runs, if it is an interpreter the checker reads.
    pub(super) fn of(program: &str) -> Option<Language> {
        match program {
            p if p.starts_with("python") || p.starts_with("pypy") => Some(Language::Python),
            "node" | "nodejs" | "bun" | "deno" | "ts-node" | "tsx" => Some(Language::Node),
            "ruby" | "irb" => Some(Language::Ruby),
            "perl" => Some(Language::Perl),
            "php" => Some(Language::Php),
            "lua" | "luajit" => Some(Language::Lua),
            _ => None,
        }
    }

    /// The options that take code (`python -c`, `perl -e`).
    pub(super) fn code_options(self) -> &'static [&'static str] {
        match self {
            Language::Python => &["-c", "-m"],
            Language::Ruby | Language::Perl => &["-e", "-E"],
            Language::Node => &["-e", "--eval", "-p", "--print"],
            Language::Php => &["-r"],
            Language::Lua => &["-e"],
        }
    }

    /// Whether a call may leave out its parentheses (`system "ls"`, `FileUtils.rm_rf dir`).
    fn bare_calls(self) -> bool {
        matches!(self, Language::Ruby | Language::Perl)
    }
}

/// Calls that run a shell command given as a string, or a program and its arguments.
const COMMAND_RUNNERS: &[&str] = &[
    "system",
    "popen",
    "exec",
    "execSync",
    "execFile",
    "execFileSync",
    "spawn",
    "spawnSync",
    "run",
    "call",
    "check_call",
    "check_output",
    "Popen",
    "getoutput",
    "getstatusoutput",
    "shell_exec",
    "passthru",
    "proc_open",
    "execute",
    "capture2",
    "capture2e",
    "capture3",
    "popen2",
    "popen3",
    "execa",
    "execaSync",
    "execv",
    "execvp",
    "execvpe",
    "execl",
    "execlp",
    "spawnv",
    "spawnvp",
];

/// Calls that delete a directory tree given as their first argument.
const TREE_DELETERS: &[&str] = &[
    "rmtree",
    "rm_rf",
    "rm_r",
    "remove_tree",
    "remove_dir",
    "remove_entry",
    "remove_entry_secure",
    "rimraf",
    "remove_dir_all",
];

/// Calls that delete a tree only when told to be recursive (`fs.rmSync(p, {recursive: true})`),
/// and a file otherwise.
const MAYBE_TREE_DELETERS: &[&str] =
    &["rmSync", "rm", "rmdirSync", "rmdir", "removeSync", "remove"];

/// Calls that delete the files given as their arguments.
const FILE_DELETERS: &[&str] = &[
    "unlink",
    "unlinkSync",
    "remove",
    "removeSync",
    "rm_f",
    "delete",
];

/// Calls that delete the path they are called on when given no argument (`p.unlink()`).
const METHOD_DELETERS: &[&str] = &["unlink", "rmdir", "rmtree", "delete"];

/// Places a computed delete must not reach: `/` and the system's directories (as the start of
/// a string literal), the home directory (`~`, `$HOME`, Perl's `$ENV{HOME}` in a string).
const DANGEROUS_PLACES: &[&str] = &[
    "/etc", "/usr", "/bin", "/sbin", "/lib", "/boot", "/var", "/opt", "/root", "/home", "/sys",
    "/dev", "/srv", "/Library", "/System", "/Users",
];

/// Calls whose value is the path given as their only argument (`Path('/etc')`,
/// `os.path.expanduser('~')`), or the paths a pattern matches (`glob("/etc/*.conf")`).
const PATH_WRAPPERS: &[&str] = &[
    "Path",
    "PurePath",
    "expanduser",
    "expand_path",
    "abspath",
    "realpath",
    "resolve",
    "normpath",
    "new",
    "glob",
    "iglob",
];

/// What one call of interpreter code does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Effect {
    /// Runs this shell command.
    Runs(String),
    /// Deletes the tree at this path (`~` for the home directory).
    DeletesTree(String),
    /// Deletes the file at this path.
    DeletesFile(String),
    /// Deletes paths it computes (`os.remove(os.path.join(r, f))`, `p.unlink()`) in code that
    /// names this dangerous place (`/etc`, `Path.home()`), or walks it.
    DeletesComputedIn(String),
}

/// One piece of interpreter code.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    /// A string literal's text.
    Str(String),
    /// A command in backquotes, `%x{…}` or `qx{…}`.
    Command(String),
    /// A name, with the names it is reached through (`os.path.join`).
    Name(String),
    /// Any other character (newlines included; other blanks are dropped).
    Punct(char),
}

/// `code` cut into tokens; comments dropped.
fn tokens(code: &str, language: Language) -> Vec<Token> {
    let chars: Vec<char> = code.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        let next = chars.get(i + 1).copied();
        let comment = match (language, c, next) {
            (Language::Python | Language::Ruby | Language::Perl | Language::Php, '#', _) => {
                i == 0 || chars[i - 1].is_whitespace() || chars[i - 1] == ';'
            }
            (Language::Node | Language::Php, '/', Some('/')) => {
                i == 0 || chars[i - 1].is_whitespace() || chars[i - 1] == ';'
            }
            (Language::Lua, '-', Some('-')) => true,
            _ => false,
        };
        if comment {
            while chars.get(i).is_some_and(|&c| c != '\n') {
                i += 1;
            }
            continue;
        }
        if language == Language::Node && c == '/' && next == Some('*') {
            i += 2;
            while i < chars.len() && !(chars[i] == '*' && chars.get(i + 1) == Some(&'/')) {
                i += 1;
            }
            i += 2;
            continue;
        }
        if matches!(c, '\'' | '"' | '`') {
            let (text, end) = quoted(&chars, i + 1, c);
            out.push(if c == '`' && language != Language::Python {
                Token::Command(text)
            } else {
                Token::Str(text)
            });
            i = end;
            continue;
        }
        if c.is_alphanumeric() || c == '_' || c == '$' {
            let start = i;
            while chars
                .get(i)
                .is_some_and(|&c| c.is_alphanumeric() || c == '_' || c == '$')
            {
                i += 1;
            }
            let name: String = chars[start..i].iter().collect();
            let opener = chars.get(i).copied().and_then(closer);
            // Quoting forms: a command (`%x{…}`, `qx{…}`) or a string (`%q{…}`, `%Q{…}`,
            // `q{…}`, `qq{…}`).
            let percent = start > 0 && chars[start - 1] == '%';
            let quoting = match (language, name.as_str()) {
                (Language::Ruby, "x") if percent => Some(true),
                (Language::Ruby, "q" | "Q") if percent => Some(false),
                (Language::Perl, "qx") => Some(true),
                (Language::Perl, "q" | "qq") => Some(false),
                _ => None,
            };
            if let (Some(runs), Some(close)) = (quoting, opener) {
                let (text, end) = quoted(&chars, i + 1, close);
                if language == Language::Ruby {
                    out.pop();
                }
                out.push(match runs {
                    true => Token::Command(text),
                    false => Token::Str(text),
                });
                i = end;
                continue;
            }
            match out.last_mut() {
                Some(Token::Name(before))
                    if before.ends_with('.')
                        || before.ends_with("::")
                        || before.ends_with("->") =>
                {
                    before.push_str(&name)
                }
                _ => out.push(Token::Name(name)),
            }
            continue;
        }
        if c.is_whitespace() && c != '\n' {
            i += 1;
            continue;
        }
        let joins = match (c, next) {
            ('.', _) => Some("."),
            (':', Some(':')) => Some("::"),
            ('-', Some('>')) => Some("->"),
            _ => None,
        };
        if let (Some(joiner), Some(Token::Name(before))) = (joins, out.last_mut()) {
            before.push_str(joiner);
            i += joiner.len();
            continue;
        }
        out.push(Token::Punct(c));
        i += 1;
    }
    out
}

/// The closing character of a quoting form opened by `open` (`{` → `}`, `/` → `/`).
fn closer(open: char) -> Option<char> {
    match open {
        '{' => Some('}'),
        '(' => Some(')'),
        '[' => Some(']'),
        '<' => Some('>'),
        '|' | '!' | '/' => Some(open),
        _ => None,
    }
}

/// The text from `start` up to the unescaped `close`, with `\x` read as `x`, and the index
/// after `close`.
fn quoted(chars: &[char], start: usize, close: char) -> (String, usize) {
    let mut text = String::new();
    let mut i = start;
    while let Some(&c) = chars.get(i) {
        if c == '\\' {
            if let Some(&escaped) = chars.get(i + 1) {
                text.push(match escaped {
                    'n' => '\n',
                    't' => '\t',
                    other => other,
                });
            }
            i += 2;
            continue;
        }
        if c == close {
            return (text, i + 1);
        }
        text.push(c);
        i += 1;
    }
    (text, i)
}

/// One argument of a call, as far as it can be read.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Arg {
    /// A string (or a path built from strings).
    Str(String),
    /// A list of strings (`["rm", "-rf", "/"]`); `None` for an element that is not a string.
    List(Vec<Option<String>>),
    /// Something else, as its tokens.
    Other(Vec<Token>),
}

/// Everything the calls in `code` run or delete.
pub(super) fn effects(code: &str, language: Language) -> Vec<Effect> {
    let tokens = tokens(code, language);
    let mut out = Vec::new();
    let mut computed = false;
    for (i, token) in tokens.iter().enumerate() {
        match token {
            Token::Command(text) => out.push(Effect::Runs(text.clone())),
            Token::Name(name) => {
                let rest = &tokens[i + 1..];
                let args = match rest.first() {
                    Some(Token::Punct('(')) => arguments(&rest[1..], &[')']),
                    Some(Token::Str(_) | Token::Punct('[')) | Some(Token::Name(_))
                        if language.bare_calls() =>
                    {
                        arguments(rest, &[';', '\n', '}', ')'])
                    }
                    _ => continue,
                };
                let effects = effect(name, &args);
                if effects.is_empty() && deletes_computed(name, &args) {
                    computed = true;
                }
                out.extend(effects);
            }
            Token::Str(_) | Token::Punct(_) => {}
        }
    }
    if let Some(place) = dangerous_place(&tokens).filter(|_| computed) {
        out.push(Effect::DeletesComputedIn(place));
    }
    out
}

/// Whether calling `name` with `args` deletes a path that is not a literal: a deleting call
/// given a computed argument, or a deleting method called on a value (`p.unlink()`).
fn deletes_computed(name: &str, args: &[Arg]) -> bool {
    let short = short_name(name);
    let deleter = TREE_DELETERS.contains(&short)
        || MAYBE_TREE_DELETERS.contains(&short)
        || FILE_DELETERS.contains(&short)
        || METHOD_DELETERS.contains(&short);
    if !deleter {
        return false;
    }
    match args.first() {
        None => METHOD_DELETERS.contains(&short) && name != short,
        Some(Arg::Str(_)) => false,
        Some(_) => true,
    }
}

/// The first dangerous place the code names: a string literal that is `/` or starts with a
/// system directory or `~` or holds `$HOME`/`$ENV{HOME}`, or an expression for the home
/// directory (`Path.home()`, `os.environ['HOME']`, `os.getenv("HOME")`, `os.homedir()`).
fn dangerous_place(tokens: &[Token]) -> Option<String> {
    for (i, token) in tokens.iter().enumerate() {
        match token {
            Token::Str(text) => {
                let system = text == "/"
                    || DANGEROUS_PLACES.iter().any(|place| {
                        text.strip_prefix(place)
                            .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
                    });
                let home = text.starts_with('~')
                    || ["$HOME", "${HOME}", "$ENV{HOME}", "$ENV{'HOME'}"]
                        .iter()
                        .any(|h| text.contains(h));
                if system || home {
                    return Some(text.clone());
                }
            }
            // A home expression is a name and at most three tokens after it (`os.getenv("HOME")`).
            Token::Name(_) if (1..=4).any(|n| tokens.get(i..i + n).is_some_and(is_home)) => {
                return Some("~".to_string());
            }
            _ => {}
        }
    }
    None
}

/// The last part of a dotted name (`shutil.rmtree` → `rmtree`).
fn short_name(name: &str) -> &str {
    name.rsplit(['.', ':', '>']).next().unwrap_or(name)
}

/// What calling `name` with `args` does.
fn effect(name: &str, args: &[Arg]) -> Vec<Effect> {
    let short = short_name(name);
    let recursive = args.iter().any(|a| match a {
        Arg::Other(tokens) => tokens
            .iter()
            .any(|t| matches!(t, Token::Name(n) if n.eq_ignore_ascii_case("recursive"))),
        _ => false,
    });
    let path = |arg: Option<&Arg>| match arg {
        Some(Arg::Str(path)) => Some(path.clone()),
        _ => None,
    };
    if COMMAND_RUNNERS.contains(&short) {
        return command(args).into_iter().map(Effect::Runs).collect();
    }
    if TREE_DELETERS.contains(&short) || MAYBE_TREE_DELETERS.contains(&short) && recursive {
        return path(args.first())
            .map(Effect::DeletesTree)
            .into_iter()
            .collect();
    }
    let qualified = name != short;
    let file_deleter = FILE_DELETERS.contains(&short)
        && (qualified || matches!(short, "unlink" | "unlinkSync"))
        || matches!(short, "rmSync" | "rm") && qualified;
    if file_deleter {
        return args
            .iter()
            .filter_map(|a| path(Some(a)))
            .map(Effect::DeletesFile)
            .collect();
    }
    Vec::new()
}

/// The shell command a runner's arguments make: a command string, a list of words, or a
/// program followed by its arguments as strings or as a list.
fn command(args: &[Arg]) -> Option<String> {
    let words = |list: &[Option<String>]| -> Option<Vec<String>> {
        list.iter()
            .map(|w| w.as_deref().map(crate::words::shell_quoted))
            .collect()
    };
    match args {
        [Arg::List(list), ..] => words(list).map(|w| w.join(" ")),
        [Arg::Str(program), Arg::List(list), ..] => {
            let mut all = vec![crate::words::shell_quoted(program)];
            all.extend(words(list)?);
            Some(all.join(" "))
        }
        [Arg::Str(_), Arg::Str(_), ..] => {
            let strings: Vec<String> = args
                .iter()
                .map_while(|a| match a {
                    Arg::Str(s) => Some(crate::words::shell_quoted(s)),
                    _ => None,
                })
                .collect();
            Some(strings.join(" "))
        }
        [Arg::Str(text), ..] => Some(text.clone()),
        [Arg::Other(tokens), ..] => match tokens.as_slice() {
            // `"rm -rf " + path`: the literal, then the home directory or an unknown value.
            [Token::Str(text), Token::Punct('+'), rest @ ..] if is_home(rest) => {
                Some(format!("{text}~"))
            }
            [Token::Str(text), Token::Punct('+'), ..] => Some(format!("{text}\"$VALUE\"")),
            // `"rm -rf /".split()`: the literal.
            [Token::Str(text), ..] => Some(text.clone()),
            _ => None,
        },
        [] => None,
    }
}

/// The arguments of a call, read from `tokens` up to the first of `ends` outside brackets.
fn arguments(tokens: &[Token], ends: &[char]) -> Vec<Arg> {
    let mut args = Vec::new();
    let mut current = Vec::new();
    let mut depth = 0usize;
    for token in tokens {
        match token {
            Token::Punct(c) if depth == 0 && ends.contains(c) => break,
            Token::Punct(',') if depth == 0 => {
                args.push(argument(std::mem::take(&mut current)));
                continue;
            }
            Token::Punct('(' | '[' | '{') => depth += 1,
            Token::Punct(')' | ']' | '}') => depth = depth.saturating_sub(1),
            _ => {}
        }
        current.push(token.clone());
    }
    if !current.is_empty() {
        args.push(argument(current));
    }
    args
}

/// One argument's tokens read as a string, a path, a list, or something else.
fn argument(tokens: Vec<Token>) -> Arg {
    match tokens.as_slice() {
        [Token::Str(text)] => return Arg::Str(text.clone()),
        [Token::Punct('[' | '('), inner @ .., Token::Punct(']' | ')')] => {
            let list = arguments(inner, &[])
                .into_iter()
                .map(|a| match a {
                    Arg::Str(s) => Some(s),
                    _ => None,
                })
                .collect();
            return Arg::List(list);
        }
        [
            Token::Name(name),
            Token::Punct('('),
            inner @ ..,
            Token::Punct(')'),
        ] => {
            let short = short_name(name);
            let args = arguments(inner, &[]);
            if let (true, [Arg::Str(path)]) = (PATH_WRAPPERS.contains(&short), args.as_slice()) {
                return Arg::Str(path.clone());
            }
            if short == "join" {
                // `os.path.join('/etc', f)`: a literal start and a computed leaf is a path
                // somewhere under the start, which stands in as a glob (`/etc/*`).
                let parts: Vec<String> = args
                    .iter()
                    .map(|a| match a {
                        Arg::Str(s) => s.clone(),
                        _ => "*".to_string(),
                    })
                    .collect();
                if matches!(args.first(), Some(Arg::Str(_))) {
                    return Arg::Str(parts.join("/"));
                }
            }
        }
        _ => {}
    }
    if is_home(&tokens) {
        return Arg::Str("~".to_string());
    }
    Arg::Other(tokens)
}

/// Whether the tokens name the home directory: `Path.home()`, `os.homedir()`, `Dir.home`,
/// `os.environ['HOME']`, `process.env.HOME`, `$ENV{HOME}`, `os.getenv("HOME")`, ….
fn is_home(tokens: &[Token]) -> bool {
    let text: String = tokens
        .iter()
        .map(|t| match t {
            Token::Str(s) => format!("'{s}'"),
            Token::Command(_) => "`".to_string(),
            Token::Name(n) => n.clone(),
            Token::Punct(c) => c.to_string(),
        })
        .collect();
    const HOMES: &[&str] = &[
        "home()",
        "homedir()",
        "Dir.home",
        "env.HOME",
        "['HOME']",
        "('HOME')",
        "{HOME}",
        "{'HOME'}",
    ];
    HOMES.iter().any(|h| text.ends_with(h)) && !text.contains(['+', ','])
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn runs(code: &str, language: Language) -> Vec<Effect> {
        effects(code, language)
    }

    #[test]
    fn a_list_argv_is_joined_into_one_command() {
        assert_eq!(
            runs(
                r#"subprocess.run(["rm", "-rf", "my dir"], check=True)"#,
                Language::Python
            ),
            vec![Effect::Runs("rm -rf 'my dir'".into())]
        );
        assert_eq!(
            runs(
                "cp.spawnSync('rm', ['-rf', '/'], {stdio: 'inherit'})",
                Language::Node
            ),
            vec![Effect::Runs("rm -rf /".into())]
        );
        assert_eq!(
            runs(r#"system "rm", "-rf", "/";"#, Language::Perl),
            vec![Effect::Runs("rm -rf /".into())]
        );
    }

    #[test]
    fn backquotes_and_percent_x_run_commands_but_not_in_python() {
        assert_eq!(
            runs("puts `ls`; %x{rm -rf /}", Language::Ruby),
            vec![Effect::Runs("ls".into()), Effect::Runs("rm -rf /".into())]
        );
        assert_eq!(
            runs("my $x = qx(id);", Language::Perl),
            vec![Effect::Runs("id".into())]
        );
        assert_eq!(runs("print(`x`)", Language::Python), vec![]);
    }

    #[test]
    fn quoting_forms_are_strings() {
        assert_eq!(
            runs("system(q{rm -rf /}); system qq(ls);", Language::Perl),
            vec![Effect::Runs("rm -rf /".into()), Effect::Runs("ls".into())]
        );
        assert_eq!(
            runs("system(%q{rm -rf /})", Language::Ruby),
            vec![Effect::Runs("rm -rf /".into())]
        );
    }

    #[test]
    fn deleted_paths_are_read_from_literals_and_home_expressions() {
        assert_eq!(
            runs(
                "shutil.rmtree(os.path.expanduser('~/x')); shutil.rmtree(Path.home()); \
                 os.remove('/etc/passwd'); shutil.rmtree(tmp)",
                Language::Python
            ),
            vec![
                Effect::DeletesTree("~/x".into()),
                Effect::DeletesTree("~".into()),
                Effect::DeletesFile("/etc/passwd".into()),
                // `rmtree(tmp)` deletes a computed path in code that names the home directory.
                Effect::DeletesComputedIn("~/x".into()),
            ]
        );
        assert_eq!(
            runs(
                "fs.rmSync('dist', { recursive: true }); fs.rmSync('a.txt'); \
                 fs.rmSync(os.homedir(), {recursive: true})",
                Language::Node
            ),
            vec![
                Effect::DeletesTree("dist".into()),
                Effect::DeletesFile("a.txt".into()),
                Effect::DeletesTree("~".into()),
            ]
        );
        assert_eq!(
            runs("FileUtils.rm_rf Dir.home", Language::Ruby),
            vec![Effect::DeletesTree("~".into())]
        );
    }

    #[test]
    fn a_command_string_ending_in_a_value_keeps_it_unknown_or_home() {
        assert_eq!(
            runs(
                "cp.exec('rm -rf ' + dir); cp.exec('rm -rf ' + os.homedir())",
                Language::Node
            ),
            vec![
                Effect::Runs("rm -rf \"$VALUE\"".into()),
                Effect::Runs("rm -rf ~".into())
            ]
        );
    }

    #[test]
    fn comments_are_not_read() {
        assert_eq!(
            runs("# don't os.system('x')\nprint(1)", Language::Python),
            vec![]
        );
        assert_eq!(runs("x = a // 2  # it's fine", Language::Python), vec![]);
        assert_eq!(runs("// don't\n/* it's */ f()", Language::Node), vec![]);
    }
}
