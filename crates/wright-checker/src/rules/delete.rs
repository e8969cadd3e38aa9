//! Recursive deletes (`rm -r`, `find -delete`, `rsync --delete`, `mv` of a vital directory)
//! and recursive permission changes, judged by where their targets are.

use std::path::{Path, PathBuf};

use super::globs::{first_wildcard, glob_base, holds_matching};
use super::{Report, Rule, Site, quote};
use crate::argv::{self, split};
use crate::paths::{Place, normalize, place, resolve, system_dir};
use crate::script::{Cwd, Env, Word};
use crate::words::unquoted;

/// Find predicates that narrow what `find … -delete` removes, so that it no longer deletes
/// its starting points wholesale.
const NARROWING_PREDICATES: &[&str] = &[
    "-name",
    "-iname",
    "-path",
    "-ipath",
    "-wholename",
    "-iwholename",
    "-regex",
    "-iregex",
    "-newer",
    "-mtime",
    "-mmin",
    "-atime",
    "-amin",
    "-ctime",
    "-cmin",
    "-size",
    "-empty",
    "-user",
    "-group",
    "-perm",
    "-inum",
    "-samefile",
    "-links",
    "-lname",
    "-ilname",
];

/// Programs whose output lists paths under their arguments (`find . | xargs rm -rf`).
const LISTERS: &[&str] = &["find", "fd", "fdfind", "ls", "git", "rg", "grep"];

/// Where one target of a delete (or permission change) lands.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Target {
    /// A known place.
    At(Place, PathBuf),
    /// Cannot be known; the text says why.
    Unknown(String),
}

/// Values that cannot hold a `/`: a user's name or id, a process id, a number, a host name.
const NAME_VALUES: &[&str] = &[
    "$USER",
    "${USER}",
    "$LOGNAME",
    "${LOGNAME}",
    "$UID",
    "${UID}",
    "$EUID",
    "${EUID}",
    "$$",
    "$PPID",
    "${PPID}",
    "$BASHPID",
    "$RANDOM",
    "${RANDOM}",
    "$SECONDS",
    "$HOSTNAME",
    "${HOSTNAME}",
    "$(id -u)",
    "$(id -un)",
    "$(whoami)",
];

/// An entry of the temporary directory named by a literal start and values that cannot hold a
/// `/` (`/tmp/pytest-of-$USER`, `"${TMPDIR:-/tmp}/build-$$"`): strictly inside it, whatever the
/// values are. `/tmp/$X` is not: `X` could be empty, or hold `..`.
fn temp_entry(word: &Word, env: Env<'_>) -> Option<PathBuf> {
    if !word.dynamic || word.glob || word.values.len() != 1 {
        return None;
    }
    let value = word.text();
    let (dir, name) = value.rsplit_once('/')?;
    let entry = place(&Path::new(dir).join("x"), env.root, env.home);
    if entry != Place::Temp || dir.contains(['$', '`']) {
        return None;
    }
    let literal_start = name.chars().next().is_some_and(|c| !matches!(c, '$' | '`'));
    let mut rest = name.to_string();
    for value in NAME_VALUES {
        rest = rest.replace(value, "x");
    }
    let known = !rest.contains(['$', '`']) && rest != "." && rest != "..";
    (literal_start && known && !dir.contains("..")).then(|| PathBuf::from(value))
}

/// Whether the text names the home directory (`~`, `$HOME`, `${HOME}`).
fn mentions_home(raw: &str) -> bool {
    raw.starts_with('~') || raw.contains("$HOME") || raw.contains("${HOME}")
}

/// Whether the text is `~user` (or `~user/`): someone's home directory.
fn names_a_users_home(raw: &str) -> bool {
    raw.strip_prefix('~')
        .map(|user| user.trim_end_matches('/'))
        .is_some_and(|user| {
            !user.is_empty()
                && user
                    .chars()
                    .all(|c| c.is_alphanumeric() || "._-".contains(c))
        })
}

/// Where `word` lands when used as a delete target from `cwd`.
fn targets(word: &Word, cwd: &Cwd, env: Env<'_>) -> Vec<Target> {
    if let Some(path) = temp_entry(word, env) {
        return vec![Target::At(Place::Temp, path)];
    }
    if word.dynamic {
        if names_a_users_home(&word.raw) {
            return vec![Target::At(
                Place::Vital(format!("the home directory {}", word.raw)),
                PathBuf::from(&word.raw),
            )];
        }
        if mentions_home(&word.raw) && env.home.is_none() {
            return vec![Target::At(
                Place::Vital("your home directory".into()),
                PathBuf::from("~"),
            )];
        }
        return vec![Target::Unknown(format!(
            "`{}` depends on a value that is only known when it runs",
            word.raw
        ))];
    }
    let mut out = Vec::new();
    for value in word.values.iter().filter(|v| !v.is_empty()) {
        let (path, everything) = if word.glob {
            glob_base(value)
        } else {
            (value.clone(), true)
        };
        let pattern = (word.glob && !everything)
            .then(|| first_wildcard(value))
            .flatten();
        // Each place as written (`..` applied to the text) and as joined for the disk.
        let bases: Vec<(PathBuf, PathBuf)> = match cwd {
            _ if path.starts_with('/') => {
                vec![(normalize(Path::new("/"), &path), PathBuf::from(&path))]
            }
            Cwd::Known(dirs) => dirs
                .iter()
                .map(|d| (normalize(d, &path), d.join(&path)))
                .collect(),
            Cwd::Unknown => {
                out.push(Target::Unknown(format!(
                    "`{value}` is relative and it runs in a directory that cannot be told"
                )));
                continue;
            }
        };
        // A path that ends in `/` or `/.`, or a glob, follows a symlink at its end.
        let follow_last = word.glob || value.ends_with('/') || value.ends_with("/.");
        for (base, joined) in bases {
            let lexical = judge_place(&base, everything, pattern, env);
            let real = resolve(&joined, follow_last)
                .filter(|real| *real != base)
                .map(|real| (judge_place(&real, everything, pattern, env), real));
            match real {
                Some((place, real)) if severity(&place) > severity(&lexical) => {
                    out.push(Target::At(place, real));
                }
                _ => out.push(Target::At(lexical, base)),
            }
        }
    }
    out
}

/// Where a delete of `base` lands: `everything` when the whole of it goes, `pattern` the glob
/// component that picks some of its entries (`/tmp/wright-*`).
fn judge_place(base: &Path, everything: bool, pattern: Option<&str>, env: Env<'_>) -> Place {
    match (place(base, env.root, env.home), pattern) {
        (Place::ProjectRoot | Place::GitDir, _) if !everything => Place::Inside,
        // `/tmp/wright-*`, `/home/b*`: only some entries of the base, which cannot be the way
        // to the home directory or the project: judged as one such entry.
        (Place::Outside | Place::Vital(_), Some(pattern))
            if !holds_matching(base, pattern, env.home)
                && !holds_matching(base, pattern, Some(env.root)) =>
        {
            place(&base.join(pattern), env.root, env.home)
        }
        (other, _) => other,
    }
}

/// How bad losing a place is, to judge a target by the worse of where it is written to be and
/// where its symlinks lead.
fn severity(place: &Place) -> u8 {
    match place {
        Place::Inside => 0,
        Place::Temp => 1,
        Place::Outside => 2,
        Place::ProjectRoot | Place::GitDir => 3,
        Place::Vital(_) => 4,
    }
}

/// What a recursive operation does to its targets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Action {
    Delete,
    Permissions,
}

/// Reports the targets of a recursive `action` that are not strictly inside the project.
/// `narrowed`: only some entries under the target are hit (`find X -name '*.o' -delete`), so
/// a vital target is merely outside and the project root is fine.
fn judge(site: &Site<'_>, word: &Word, action: Action, narrowed: bool, report: &mut Report) {
    let quoted = site.quoted();
    let root = site.env.root.display();
    for target in targets(word, &site.command.cwd, site.env) {
        let (rule, reason, instead) = match (target, action) {
            (Target::At(Place::Inside | Place::Temp, _), _) => continue,
            (Target::At(Place::ProjectRoot | Place::GitDir, _), _) if narrowed => continue,
            (Target::At(Place::ProjectRoot | Place::GitDir, _), Action::Permissions) => continue,
            (Target::At(Place::Vital(what), path), action) if narrowed => (
                action.overridable_rule(),
                format!(
                    "{quoted} would {} files under {} ({what}), outside the project ({root}).",
                    action.verb(),
                    path.display()
                ),
                None,
            ),
            (Target::At(Place::Vital(what), _), Action::Delete) => (
                Rule::CatastrophicDelete,
                format!("{quoted} would delete {what}."),
                None,
            ),
            (Target::At(Place::Vital(what), _), Action::Permissions) => (
                Rule::SystemPermissions,
                format!("{quoted} would change the permissions of everything in {what}."),
                None,
            ),
            (Target::At(Place::ProjectRoot, _), Action::Delete) => (
                Rule::RecursiveDelete,
                format!("{quoted} would delete the whole project ({root})."),
                Some("name what to delete inside the project (e.g. `rm -rf target dist`)"),
            ),
            (Target::At(Place::GitDir, _), Action::Delete) => (
                Rule::RecursiveDelete,
                format!("{quoted} would delete the project's git history (.git)."),
                Some("leave .git alone; change the work tree with git itself (e.g. `git clean`)"),
            ),
            (Target::At(Place::Outside, path), action) => (
                action.overridable_rule(),
                format!(
                    "{quoted} would {} {}, which is outside the project ({root}).",
                    action.verb(),
                    path.display()
                ),
                Some(
                    "touch only paths inside the project; if something outside it must change, \
                     ask the user",
                ),
            ),
            (Target::Unknown(why), action) => (
                action.overridable_rule(),
                format!("cannot tell what {quoted} would {}: {why}.", action.verb()),
                Some(
                    "write the path out literally (e.g. `rm -rf target/tmp`) so it can be checked",
                ),
            ),
        };
        let mut finding = super::Finding::new(rule, reason, site.sources());
        if let Some(instead) = instead {
            finding = finding.instead(instead);
        }
        report.findings.push(finding);
    }
}

impl Action {
    /// The overridable rule for an outside or unknown target.
    fn overridable_rule(self) -> Rule {
        match self {
            Action::Delete => Rule::RecursiveDelete,
            Action::Permissions => Rule::RecursivePermissions,
        }
    }

    fn verb(self) -> &'static str {
        match self {
            Action::Delete => "delete",
            Action::Permissions => "change the permissions of",
        }
    }
}

/// A literal path that interpreter code deletes recursively (`shutil.rmtree('/')`); a leading
/// `~` is taken as the home directory (`os.path.expanduser('~')`).
pub(super) fn deletes_tree(site: &Site<'_>, path: &str, report: &mut Report) {
    let home = unquoted(&path.replace('\\', "\\\\"), true, site.env.home);
    let word = Word {
        dynamic: home.dynamic,
        ..Word::synthetic(home.values.into_iter().next().unwrap_or_default(), false)
    };
    judge(site, &word, Action::Delete, false, report);
}

/// `rm -r TARGET…`.
pub(super) fn rm(site: &Site<'_>, report: &mut Report) {
    let args = split(site.args(), &[]);
    if args.has("--no-preserve-root", None) {
        site.find(
            report,
            Rule::CatastrophicDelete,
            format!("{} turns off rm's guard against deleting /.", site.quoted()),
        );
    }
    let recursive = args.has("--recursive", Some('r')) || args.has("--recursive", Some('R'));
    if !recursive {
        if site.invocation.args_from_stdin {
            listed_files(site, report);
        }
        return;
    }
    // With a replace string (`xargs -I{}`, `parallel`), the inputs are also put in and checked
    // by the fan-out rule; what the listing holds is deleted either way.
    if site.invocation.args_from_stdin {
        match listing(site) {
            Listing::Inside => {}
            Listing::Outside(producer) => site.find(
                report,
                Rule::RecursiveDelete,
                format!(
                    "{} deletes what {} lists outside the project.",
                    site.quoted(),
                    quote(&producer)
                ),
            ),
            Listing::WholeProject(producer) => site.find(
                report,
                Rule::RecursiveDelete,
                format!(
                    "{} would delete the whole project ({}): {} lists all of it.",
                    site.quoted(),
                    site.env.root.display(),
                    quote(&producer)
                ),
            ),
            Listing::System(producer, dir) => listed_system_files(site, &producer, dir, report),
            Listing::Unknown if site.invocation.fan_out.is_some() => {}
            Listing::Unknown => site.find(
                report,
                Rule::RecursiveDelete,
                format!(
                    "cannot tell what {} would delete: it takes its targets from its input.",
                    site.quoted()
                ),
            ),
        }
    }
    for word in args.operands {
        judge(site, word, Action::Delete, false, report);
    }
}

/// A non-recursive `rm` fed a listing (`find . -type f | xargs rm -f`): every file of the
/// project, or files in a system directory, are as lost as with `rm -r`; other listings are
/// left alone (`git ls-files --others | xargs rm`).
fn listed_files(site: &Site<'_>, report: &mut Report) {
    match listing(site) {
        Listing::WholeProject(producer) => site.find(
            report,
            Rule::RecursiveDelete,
            format!(
                "{} would delete every file of the project ({}): {} lists all of them.",
                site.quoted(),
                site.env.root.display(),
                quote(&producer)
            ),
        ),
        Listing::System(producer, dir) => listed_system_files(site, &producer, dir, report),
        Listing::Outside(producer) => site.find(
            report,
            Rule::FileDestroy,
            format!(
                "{} deletes the files {} lists outside the project.",
                site.quoted(),
                quote(&producer)
            ),
        ),
        Listing::Inside | Listing::Unknown => {}
    }
}

/// A delete fed a listing of a system directory (`find /etc -name '*.conf' | xargs rm`).
fn listed_system_files(site: &Site<'_>, producer: &str, dir: &str, report: &mut Report) {
    site.find(
        report,
        Rule::SystemWrite,
        format!(
            "{} deletes what {} lists in the system directory {dir}.",
            site.quoted(),
            quote(producer)
        ),
    );
}

/// Whether the command reads its arguments from a `find`/`ls`/`git ls-files` listing of
/// places inside the project (`find . -name '*.o' | xargs rm -rf`), not of all of it.
pub(super) fn fed_by_project_listing(site: &Site<'_>) -> bool {
    listing(site) == Listing::Inside
}

/// What the listing a command reads its arguments from (`find … | xargs rm -rf`) holds.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Listing {
    /// Only places inside the project (`find . -name '*.o'`, `git ls-files --others`).
    Inside,
    /// The whole project: `find .` (with no test that narrows it) or `ls` of its root lists the
    /// root itself or everything in it; the text is the listing command.
    WholeProject(String),
    /// A listing of places in a system directory (`find /etc -name '*.conf'`): the listing
    /// command and the directory.
    System(String, &'static str),
    /// A listing of places outside the project and the temporary directory (`find ~ -type
    /// f`, `ls ../other`): the listing command.
    Outside(String),
    /// Anything else: not a listing, or one whose places cannot be told.
    Unknown,
}

/// What the command reads its arguments from: a `find`/`ls`/`git ls-files` listing of places
/// inside the project (`find . -name '*.o' | xargs rm -rf`), of the whole project
/// (`find . -print0 | xargs -0 rm -rf`), or something else.
fn listing(site: &Site<'_>) -> Listing {
    let Some(producer) = site
        .command
        .pipe_from
        .and_then(|i| site.script.commands.get(i))
    else {
        return Listing::Unknown;
    };
    let invocation = argv::unwrap(&producer.argv);
    let Some(program) = invocation.argv.first().and_then(argv::program) else {
        return Listing::Unknown;
    };
    if !LISTERS.contains(&program) {
        return Listing::Unknown;
    }
    let args = &invocation.argv[1..];
    let (operands, narrowed): (Vec<&Word>, bool) = match program {
        "find" => {
            let command = find_command(args);
            let narrowed = find_expression(command.expression).narrowed;
            (command.starts, narrowed)
        }
        // What `ls` lists is what a glob of its operands would match: `ls` is `*`.
        "ls" => (
            args.iter()
                .filter(|w| w.dynamic || !w.text().starts_with('-'))
                .collect(),
            false,
        ),
        // git, grep, rg and fd list what matches a pattern, or tracked files.
        _ => (
            args.iter()
                .filter(|w| w.dynamic || !w.text().starts_with('-'))
                .collect(),
            true,
        ),
    };
    let dot = Word::synthetic(".".into(), false);
    let operands = if operands.is_empty() && matches!(program, "find" | "ls") {
        vec![&dot]
    } else {
        operands
    };
    let mut whole = false;
    for word in operands {
        for target in targets(word, &producer.cwd, site.env) {
            if let Target::At(_, path) = &target
                && let Some(dir) = system_dir(path)
            {
                return Listing::System(producer.text.clone(), dir);
            }
            match target {
                Target::At(Place::Inside, _) => {}
                Target::At(Place::ProjectRoot | Place::GitDir, _) => whole |= !narrowed,
                Target::At(Place::Outside | Place::Vital(_), _) => {
                    return Listing::Outside(producer.text.clone());
                }
                _ => return Listing::Unknown,
            }
        }
    }
    let in_project = matches!(
        &producer.cwd,
        Cwd::Known(dirs) if dirs.iter().all(|d| d.starts_with(site.env.root))
    );
    match (in_project, whole) {
        (false, _) => Listing::Unknown,
        (true, true) => Listing::WholeProject(producer.text.clone()),
        (true, false) => Listing::Inside,
    }
}

/// `find`'s words split into its start points and its expression.
struct FindCommand<'w> {
    /// The start points (`.` when none is given).
    starts: Vec<&'w Word>,
    /// The expression: tests, actions, operators.
    expression: &'w [Word],
}

/// Splits `find`'s arguments, skipping its leading options (`-H`, `-L`, `-P`, `-D`, `-O3`).
fn find_command(args: &[Word]) -> FindCommand<'_> {
    let mut i = 0;
    while let Some(word) = args.get(i) {
        match word.text() {
            "-H" | "-L" | "-P" => i += 1,
            "-D" => i += 2,
            text if text.starts_with("-O") => i += 1,
            _ => break,
        }
    }
    let rest = args.get(i..).unwrap_or(&[]);
    let starts: Vec<&Word> = rest
        .iter()
        .take_while(|w| w.dynamic || !w.text().starts_with(['-', '(', '!', ')']))
        .collect();
    FindCommand {
        expression: &rest[starts.len()..],
        starts,
    }
}

/// What a find expression does, read at find's own level: the words of an `-exec … ;`
/// command are that command's arguments (`-exec echo -delete \;` deletes nothing).
#[derive(Debug, Default)]
struct FindExpression<'w> {
    /// Whether it has `-delete`.
    deletes: bool,
    /// Whether a test narrows what it matches (`-name`, `-mtime`, …).
    narrowed: bool,
    /// The commands of its `-exec`/`-execdir`/`-ok`/`-okdir` actions.
    commands: Vec<&'w [Word]>,
}

fn find_expression(expression: &[Word]) -> FindExpression<'_> {
    let mut out = FindExpression::default();
    let mut at = 0;
    while let Some(word) = expression.get(at) {
        let text = word.text();
        at += 1;
        if text == "-delete" {
            out.deletes = true;
        } else if NARROWING_PREDICATES.contains(&text) {
            // `-name '*'` matches everything: it narrows nothing.
            let everything = text.ends_with("name") || text.ends_with("path");
            let everything = everything && expression.get(at).is_some_and(|w| w.is("*"));
            out.narrowed |= !everything;
        } else if matches!(text, "-exec" | "-execdir" | "-ok" | "-okdir") {
            let rest = &expression[at..];
            let len = rest
                .iter()
                .position(|w| w.is(";") || w.is("+"))
                .unwrap_or(rest.len());
            out.commands.push(&rest[..len]);
            at += len + 1;
        }
    }
    out
}

/// `find START… EXPRESSION` with `-delete` or `-exec rm …`.
pub(super) fn find(site: &Site<'_>, report: &mut Report) {
    let command = find_command(site.args());
    let expression = find_expression(command.expression);
    let mut deletes = expression.deletes;
    for words in &expression.commands {
        let inner = argv::unwrap(words);
        match inner.argv.first().and_then(argv::program) {
            Some("rm" | "unlink" | "shred" | "rmdir") => deletes = true,
            // `find / -exec chmod 777 {} +` changes the whole tree, as `chmod -R` does.
            Some("chmod" | "chown" | "chgrp") => {
                let dot = Word::synthetic(".".into(), false);
                let starts = match command.starts.is_empty() {
                    true => vec![&dot],
                    false => command.starts.clone(),
                };
                for start in starts {
                    judge(
                        site,
                        start,
                        Action::Permissions,
                        expression.narrowed,
                        report,
                    );
                }
            }
            _ => super::exec::shell_scripts(site, inner.argv, report),
        }
    }
    if !deletes {
        return;
    }
    let dot = Word::synthetic(".".into(), false);
    let starts = if command.starts.is_empty() {
        vec![&dot]
    } else {
        command.starts
    };
    for start in starts {
        judge(site, start, Action::Delete, expression.narrowed, report);
    }
}

/// `rsync --delete SRC DEST`: deletes whatever in DEST is not in SRC.
pub(super) fn rsync(site: &Site<'_>, report: &mut Report) {
    let args = split(
        site.args(),
        &["-e", "--rsh", "-f", "--filter", "--exclude", "--include"],
    );
    if !args.has_prefix("--delete") && !args.has_prefix("--del") {
        return;
    }
    let Some(destination) = args.operands.last().filter(|_| args.operands.len() > 1) else {
        return;
    };
    let remote = destination
        .text()
        .split_once(':')
        .is_some_and(|(host, _)| !host.contains('/'));
    if !remote {
        judge(site, destination, Action::Delete, false, report);
    }
}

/// `mv SOURCE… DEST` where a source is `/`, home, a directory holding the project, or a
/// system directory: moving it away breaks the machine as surely as deleting it.
pub(super) fn mv(site: &Site<'_>, report: &mut Report) {
    let args = split(site.args(), &["-t", "--target-directory", "-S", "--suffix"]);
    let sources = match args.value_of(&["-t", "--target-directory"]) {
        Some(_) => &args.operands[..],
        None => &args.operands[..args.operands.len().saturating_sub(1)],
    };
    for source in sources {
        for target in targets(source, &site.command.cwd, site.env) {
            match target {
                Target::At(Place::Vital(what), _) => site.find(
                    report,
                    Rule::CatastrophicDelete,
                    format!("{} would move away {what}.", site.quoted()),
                ),
                Target::At(Place::ProjectRoot | Place::GitDir, path) => site.find(
                    report,
                    Rule::RecursiveDelete,
                    format!(
                        "{} would move away {}, the project (or its history) itself.",
                        site.quoted(),
                        path.display()
                    ),
                ),
                _ => {}
            }
        }
    }
}

/// `chmod -R` / `chown -R` / `chgrp -R`.
pub(super) fn permissions(site: &Site<'_>, report: &mut Report) {
    let args = split(site.args(), &["--from"]);
    let recursive = args.has("--recursive", Some('R'));
    if !recursive {
        return;
    }
    for word in permission_targets(&args) {
        judge(site, word, Action::Permissions, false, report);
    }
}

/// The files `chmod`/`chown`/`chgrp` change: the mode or owner comes first, unless it is taken
/// from a reference file. A chmod mode like `-w` reads as a flag, and then there is no mode
/// operand to skip.
pub(super) fn permission_targets<'w>(args: &crate::argv::Args<'w>) -> Vec<&'w Word> {
    let mode_as_flag = args
        .flags
        .iter()
        .any(|f| f.len() > 1 && f[1..].chars().all(|c| "rwxXst".contains(c)) && *f != "-R");
    let skip = usize::from(!(args.has_prefix("--reference") || mode_as_flag));
    args.operands.iter().skip(skip).copied().collect()
}

/// A command whose name is not known (`$CMD -rf /`), aimed at a vital place.
pub(super) fn unknown_program(site: &Site<'_>, program: &Word, report: &mut Report) {
    for word in site.args() {
        if word.text().starts_with('-') && !word.dynamic {
            continue;
        }
        let vital = targets(word, &site.command.cwd, site.env)
            .into_iter()
            .find_map(|t| match t {
                Target::At(Place::Vital(what), _) => Some(what),
                _ => None,
            });
        if let Some(what) = vital {
            site.find(
                report,
                Rule::RecursiveDelete,
                format!(
                    "{} runs a command whose name is only known when it runs ({}) on {what}.",
                    site.quoted(),
                    quote(&program.raw)
                ),
            );
        }
    }
}
