//! The guard around each Bash command (issue 12): it undoes the changes to protected paths that
//! the sandbox's read-only binds cannot stop.
//!
//! A bind mount covers only a path that exists, so a command can create a protected path that
//! was missing when it started (`echo /tmp/evil > .git/commondir` makes git read
//! `/tmp/evil/config`, whose `core.fsmonitor` runs on the user's next `git status`); and where a
//! protected path is a symbolic link (`.git/hooks -> ../githooks`) only its target is bound, so
//! the command can remove the link and put a directory of hooks in its place.
//!
//! So before a command starts, the state of each protected path under a writable directory is
//! recorded without following a last link: absent; a link and where it points; or what else it
//! is, with its device and inode. Once the command has ended, however it ended, each is looked
//! at again. What appeared, and what replaced or re-pointed a link, is renamed aside to `<name>.refused-by-wright` (nothing is deleted), a
//! link is put back as it was, and the result says so. The last record is kept in the context,
//! and the same look is taken before the next command: a process the command left running may
//! have made the change after it returned.
//!
//! A path whose directory is missing is not watched: a `.git` made by `git init` is the user's
//! new repository. A path that was there is never moved (git replaces `.git/config` itself when
//! it changes a setting). With the sandbox turned off the guard does nothing: the user lets
//! commands do anything. `docs/sandbox.md` says what it cannot do.

use std::collections::HashMap;
use std::io;
use std::path::{Path, PathBuf};

use crate::ToolContext;
use crate::protect::ProtectedPath;

/// What a refused path is renamed to: `<name>` followed by this (then `-2`, `-3`, … if taken).
const REFUSED_SUFFIX: &str = ".refused-by-wright";
/// The most names tried for one refused path; past them it is left where it is, and the note
/// says so.
const MAX_ASIDE_NAMES: u32 = 100;

/// What a path is when it is not a symbolic link.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    File,
    Directory,
    /// A FIFO, a socket, a device.
    Other,
}

/// What a path was when looked at, without following a last link.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum PathState {
    /// Nothing there.
    Absent,
    /// A symbolic link to `target` (as written in the link).
    Link { target: PathBuf },
    /// Something else, told apart from a replacement by its device and inode.
    Entry { kind: Kind, dev: u64, ino: u64 },
}

/// One watched protected path and its state when the record was made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Watched {
    /// The path as named ([`crate::protect::named_protected_paths`]): a link is the link.
    pub(crate) path: PathBuf,
    /// Why it is protected, for the note.
    pub(crate) why: String,
    pub(crate) state: PathState,
    /// Whether commands see it read-only (bound in their namespace): a replacement of it then
    /// came from outside them (the user, another program) and is left alone.
    pub(crate) read_only: bool,
}

/// The states of the watched paths at one moment.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Snapshot {
    watched: Vec<Watched>,
}

/// How a watched path changed in a way the read-only binds could not prevent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Change {
    /// It was absent and is there now.
    Appeared,
    /// It was a link to `target` and is gone.
    LinkRemoved { target: PathBuf },
    /// It was a link to `target`; something else is there now.
    LinkReplaced { target: PathBuf },
    /// It was a link to `target` and points to `now` instead.
    LinkRetargeted { target: PathBuf, now: PathBuf },
}

/// What was done about a change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Repair {
    /// Where the new thing was moved.
    pub(crate) moved_to: Option<PathBuf>,
    /// Whether the recorded link was made again.
    pub(crate) link_restored: bool,
}

/// When the guard looks, for the note.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Moment {
    /// Before a command starts: changes made since the last one returned.
    BeforeCommand,
    /// Once the command has ended: its own changes.
    AfterCommand,
}

/// A change found, and the repair or why there was none.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Finding {
    pub(crate) path: PathBuf,
    pub(crate) why: String,
    pub(crate) change: Change,
    pub(crate) repair: Result<Repair, String>,
}

/// Compares the context's last record with the disk, undoes what changed, records the paths
/// anew for the command about to run (or the next one), and returns a note for each change.
/// The first call of a context only records.
pub(crate) fn check(ctx: &ToolContext, moment: Moment) -> Vec<String> {
    // With the sandbox off the user lets commands do anything; the file tools still refuse.
    if !ctx.sandbox_policy().enabled {
        return Vec::new();
    }
    let writable = ctx.writable_roots();
    let binds = ctx.sandbox().binds_protected_paths();
    let mut last = ctx.last_guard_snapshot();
    let findings = look_again(&mut last, || ctx.named_protected_paths(), &writable, binds);
    drop(last);
    findings
        .iter()
        .map(|finding| note(finding, moment, |path| ctx.display_path(path)))
        .collect()
}

/// Undoes what changed since `last` and replaces it with a record of `paths` (called once the
/// old paths have been looked at).
///
/// A path already watched is recorded in the state it was seen in, or the one its repair left
/// it in, never looked at a second time: a background job runs on while the guard looks, and
/// what it made between the two looks would go into the record without ever being found.
fn look_again(
    last: &mut Option<Snapshot>,
    paths: impl FnOnce() -> Vec<ProtectedPath>,
    writable: &[PathBuf],
    binds: bool,
) -> Vec<Finding> {
    let (findings, known) = last.as_ref().map(find_and_repair).unwrap_or_default();
    *last = Some(snapshot(&paths(), writable, binds, &known));
    findings
}

/// Records `paths` that a command could change: those under one of `writable` that hold none
/// of them, and whose directory exists. `binds` says whether commands see the existing ones
/// read-only. A path in `known` is recorded in the state given there, the others as they are
/// now.
pub(crate) fn snapshot(
    paths: &[ProtectedPath],
    writable: &[PathBuf],
    binds: bool,
    known: &HashMap<PathBuf, PathState>,
) -> Snapshot {
    let mut watched: Vec<Watched> = Vec::new();
    for protected in paths {
        let path = &protected.path;
        let writable_here = writable.iter().any(|root| path.starts_with(root))
            && !writable.iter().any(|root| root.starts_with(path));
        let parent_is_dir = path
            .parent()
            .and_then(|parent| std::fs::symlink_metadata(parent).ok())
            .is_some_and(|meta| meta.is_dir());
        if !writable_here || !parent_is_dir || watched.iter().any(|w| &w.path == path) {
            continue;
        }
        let state = known.get(path).cloned().unwrap_or_else(|| state_of(path));
        watched.push(Watched {
            path: path.clone(),
            why: protected.why.clone(),
            read_only: binds && matches!(state, PathState::Entry { .. }),
            state,
        });
    }
    Snapshot { watched }
}

/// The state of `path`, without following a last link. A path that cannot be looked at
/// (its directory unreadable) counts as absent.
pub(crate) fn state_of(path: &Path) -> PathState {
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return PathState::Absent;
    };
    if meta.is_symlink() {
        return match std::fs::read_link(path) {
            Ok(target) => PathState::Link { target },
            // Gone between the two calls.
            Err(_) => PathState::Absent,
        };
    }
    let kind = match meta.file_type() {
        t if t.is_file() => Kind::File,
        t if t.is_dir() => Kind::Directory,
        _ => Kind::Other,
    };
    let (dev, ino) = identity(&meta);
    PathState::Entry { kind, dev, ino }
}

#[cfg(unix)]
fn identity(meta: &std::fs::Metadata) -> (u64, u64) {
    use std::os::unix::fs::MetadataExt;
    (meta.dev(), meta.ino())
}

/// Elsewhere only the kind of a path tells a replacement.
#[cfg(not(unix))]
fn identity(_: &std::fs::Metadata) -> (u64, u64) {
    (0, 0)
}

/// How `before` changed, now that its path is `now`; `None` when it did not, or changed only
/// in a way that is not undone: a path that was there and is gone (nothing runs from it, and
/// there is nothing to put back), and a replacement of a path commands saw read-only.
pub(crate) fn change(before: &Watched, now: &PathState) -> Option<Change> {
    match (&before.state, now) {
        (PathState::Absent, PathState::Absent) => None,
        (PathState::Absent, _) => Some(Change::Appeared),
        (PathState::Link { target }, PathState::Absent) => Some(Change::LinkRemoved {
            target: target.clone(),
        }),
        (PathState::Link { target }, PathState::Link { target: now }) if now == target => None,
        (PathState::Link { target }, PathState::Link { target: now }) => {
            Some(Change::LinkRetargeted {
                target: target.clone(),
                now: now.clone(),
            })
        }
        (PathState::Link { target }, PathState::Entry { .. }) => Some(Change::LinkReplaced {
            target: target.clone(),
        }),
        // A path that was there is never moved: where commands see it read-only, a
        // replacement came from outside them (the user's own `git config`); where they do not,
        // git itself replaces `.git/config` whenever it changes a setting.
        (PathState::Entry { .. }, _) => None,
    }
}

/// Looks at each path of `before` again and undoes what changed. Also gives the state each
/// path is known to be in now: as it was seen, or as the repair left it.
fn find_and_repair(before: &Snapshot) -> (Vec<Finding>, HashMap<PathBuf, PathState>) {
    let mut findings = Vec::new();
    let mut known = HashMap::new();
    for watched in &before.watched {
        let now = state_of(&watched.path);
        let Some(change) = change(watched, &now) else {
            known.insert(watched.path.clone(), now);
            continue;
        };
        let repair = repair(&watched.path, &change).map_err(|err| err.to_string());
        let after = match &repair {
            Ok(done) if done.link_restored => watched.state.clone(),
            Ok(_) => PathState::Absent,
            // Half undone, or not at all: recorded as it is now, so that a link moved aside
            // but not made again is not "put back" to where the command pointed it. The note
            // asks the user to look.
            Err(_) => state_of(&watched.path),
        };
        known.insert(watched.path.clone(), after);
        findings.push(Finding {
            path: watched.path.clone(),
            why: watched.why.clone(),
            change,
            repair,
        });
    }
    (findings, known)
}

/// Moves what is at `path` aside (unless the change removed it) and makes a removed or
/// replaced link again.
fn repair(path: &Path, change: &Change) -> io::Result<Repair> {
    let moved_to = match change {
        Change::LinkRemoved { .. } => None,
        _ => Some(move_aside(path)?),
    };
    let link_restored = match change {
        Change::Appeared => false,
        Change::LinkRemoved { target }
        | Change::LinkReplaced { target }
        | Change::LinkRetargeted { target, .. } => {
            make_link(target, path)?;
            true
        }
    };
    Ok(Repair {
        moved_to,
        link_restored,
    })
}

/// The names tried, in order, for what is refused at `path`: `<name>.refused-by-wright`, then
/// `-2`, `-3`, …
pub(crate) fn aside_names(path: &Path) -> impl Iterator<Item = PathBuf> + '_ {
    (1..=MAX_ASIDE_NAMES).map(move |n| {
        let mut name = path.file_name().unwrap_or_default().to_os_string();
        name.push(REFUSED_SUFFIX);
        if n > 1 {
            name.push(format!("-{n}"));
        }
        path.with_file_name(name)
    })
}

/// Renames `path` itself (a link is not followed) to the first free name of [`aside_names`],
/// never over something there.
fn move_aside(path: &Path) -> io::Result<PathBuf> {
    for aside in aside_names(path) {
        match rename_no_replace(path, &aside) {
            Ok(()) => return Ok(aside),
            Err(err) if err.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(err) => return Err(err),
        }
    }
    Err(io::Error::new(
        io::ErrorKind::AlreadyExists,
        format!("{MAX_ASIDE_NAMES} names beside it are taken"),
    ))
}

/// `rename` that fails with `AlreadyExists` rather than replace `to`. On Linux the kernel
/// checks (`RENAME_NOREPLACE`); elsewhere `to` is looked at first.
#[cfg(target_os = "linux")]
fn rename_no_replace(from: &Path, to: &Path) -> io::Result<()> {
    use nix::fcntl::{AT_FDCWD, RenameFlags, renameat2};
    match renameat2(AT_FDCWD, from, AT_FDCWD, to, RenameFlags::RENAME_NOREPLACE) {
        Ok(()) => Ok(()),
        // File systems without RENAME_NOREPLACE.
        Err(nix::errno::Errno::EINVAL) => rename_if_free(from, to),
        Err(errno) => Err(io::Error::from(errno)),
    }
}

#[cfg(not(target_os = "linux"))]
fn rename_no_replace(from: &Path, to: &Path) -> io::Result<()> {
    rename_if_free(from, to)
}

fn rename_if_free(from: &Path, to: &Path) -> io::Result<()> {
    if std::fs::symlink_metadata(to).is_ok() {
        return Err(io::ErrorKind::AlreadyExists.into());
    }
    std::fs::rename(from, to)
}

#[cfg(unix)]
fn make_link(target: &Path, path: &Path) -> io::Result<()> {
    std::os::unix::fs::symlink(target, path)
}

/// Links are not made again elsewhere (on Windows making one needs a privilege); the note says
/// so.
#[cfg(not(unix))]
fn make_link(_: &Path, _: &Path) -> io::Result<()> {
    Err(io::Error::new(
        io::ErrorKind::Unsupported,
        "symbolic links are put back only on Unix",
    ))
}

/// The note for the model: what changed, why the path matters, what wright did, and that the
/// user is the one to ask. `display` shows a path as the model knows it.
pub(crate) fn note(finding: &Finding, moment: Moment, display: impl Fn(&Path) -> String) -> String {
    let path = display(&finding.path);
    let what = match &finding.change {
        Change::Appeared => format!("created {path}"),
        Change::LinkRemoved { target } => {
            format!("removed the symbolic link {path} (to {})", target.display())
        }
        Change::LinkReplaced { target } => {
            format!(
                "replaced the symbolic link {path} (to {})",
                target.display()
            )
        }
        Change::LinkRetargeted { target, now } => format!(
            "pointed the symbolic link {path} to {} instead of {}",
            now.display(),
            target.display()
        ),
    };
    let who = match moment {
        Moment::AfterCommand => "this command",
        Moment::BeforeCommand => {
            "after the last command returned, something it left running (or someone else)"
        }
    };
    let done = match &finding.repair {
        Ok(Repair {
            moved_to,
            link_restored,
        }) => {
            let moved = moved_to
                .as_deref()
                .map(|aside| format!("moved it to {}", display(aside)));
            let link = link_restored.then(|| "put the link back".to_string());
            let done: Vec<String> = moved.into_iter().chain(link).collect();
            format!("wright {}", done.join(" and "))
        }
        Err(err) => format!(
            "wright could not undo it ({err}), so tell the user before anyone uses git or \
             wright here again"
        ),
    };
    format!(
        "Note: {who} {what}; {done}. Commands may not create or change {path} ({}); ask the \
         user to.",
        finding.why
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn watched(state: PathState, read_only: bool) -> Watched {
        Watched {
            path: "/p/.git/hooks".into(),
            why: "git's hooks".into(),
            state,
            read_only,
        }
    }

    fn link(target: &str) -> PathState {
        PathState::Link {
            target: target.into(),
        }
    }

    fn entry(kind: Kind, ino: u64) -> PathState {
        PathState::Entry { kind, dev: 1, ino }
    }

    fn protected(path: &Path) -> ProtectedPath {
        ProtectedPath {
            path: path.to_path_buf(),
            why: "x".into(),
        }
    }

    #[test]
    fn a_path_that_appears_is_a_change() {
        let before = watched(PathState::Absent, false);
        assert_eq!(change(&before, &PathState::Absent), None);
        assert_eq!(
            change(&before, &entry(Kind::File, 7)),
            Some(Change::Appeared)
        );
        assert_eq!(change(&before, &link("/tmp")), Some(Change::Appeared));
    }

    #[test]
    fn a_link_removed_replaced_or_re_pointed_is_a_change() {
        let before = watched(link("../githooks"), false);
        let target = PathBuf::from("../githooks");
        assert_eq!(change(&before, &link("../githooks")), None);
        assert_eq!(
            change(&before, &PathState::Absent),
            Some(Change::LinkRemoved {
                target: target.clone()
            })
        );
        assert_eq!(
            change(&before, &entry(Kind::Directory, 9)),
            Some(Change::LinkReplaced {
                target: target.clone()
            })
        );
        assert_eq!(
            change(&before, &link("/tmp/evil")),
            Some(Change::LinkRetargeted {
                target,
                now: "/tmp/evil".into()
            })
        );
    }

    #[test]
    fn a_path_that_was_there_is_never_moved() {
        // Not bound: git's own `git config` renames a new file over `.git/config`.
        let writable = watched(entry(Kind::File, 7), false);
        assert_eq!(change(&writable, &entry(Kind::File, 7)), None);
        assert_eq!(change(&writable, &entry(Kind::File, 8)), None);
        // Bound read-only: the user's own `git config` in another terminal.
        let read_only = watched(entry(Kind::File, 7), true);
        assert_eq!(change(&read_only, &entry(Kind::File, 8)), None);
    }

    #[test]
    fn a_removed_file_or_directory_is_not_undone() {
        let before = watched(entry(Kind::Directory, 7), false);
        assert_eq!(change(&before, &PathState::Absent), None);
    }

    #[test]
    fn aside_names_add_the_suffix_then_a_number() {
        let names: Vec<PathBuf> = aside_names(Path::new("/p/.git/commondir"))
            .take(3)
            .collect();
        assert_eq!(
            names,
            vec![
                PathBuf::from("/p/.git/commondir.refused-by-wright"),
                PathBuf::from("/p/.git/commondir.refused-by-wright-2"),
                PathBuf::from("/p/.git/commondir.refused-by-wright-3"),
            ]
        );
    }

    #[test]
    fn the_snapshot_watches_paths_a_command_could_reach_whose_directory_exists() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir(root.join(".git")).unwrap();
        std::fs::write(root.join(".git/config"), "").unwrap();
        let paths = [
            protected(&root.join(".git/config")),
            protected(&root.join(".git/commondir")),
            protected(&root.join(".git/config")),
            // Its directory is missing: a `git init` to come.
            protected(&root.join("sub/.git/config")),
            // Outside every writable root, or holding one.
            protected(Path::new("/elsewhere/x")),
            protected(&root),
        ];
        let snapshot = snapshot(&paths, std::slice::from_ref(&root), true, &HashMap::new());
        let seen: Vec<(PathBuf, bool, bool)> = snapshot
            .watched
            .iter()
            .map(|w| (w.path.clone(), w.state == PathState::Absent, w.read_only))
            .collect();
        assert_eq!(
            seen,
            vec![
                (root.join(".git/config"), false, true),
                (root.join(".git/commondir"), true, false),
            ]
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_replaced_link_is_put_back_and_the_replacement_moved_aside() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("githooks")).unwrap();
        std::fs::create_dir(root.join(".git")).unwrap();
        let hooks = root.join(".git/hooks");
        std::os::unix::fs::symlink("../githooks", &hooks).unwrap();
        let before = snapshot(
            &[protected(&hooks)],
            std::slice::from_ref(&root),
            true,
            &HashMap::new(),
        );
        std::fs::remove_file(&hooks).unwrap();
        std::fs::create_dir(&hooks).unwrap();
        std::fs::write(hooks.join("pre-commit"), "evil").unwrap();
        // Taken already: the next name is used.
        std::fs::write(root.join(".git/hooks.refused-by-wright"), "").unwrap();
        let (findings, known) = find_and_repair(&before);
        let aside = root.join(".git/hooks.refused-by-wright-2");
        // Recorded as put back, without a second look.
        assert_eq!(known.get(&hooks), Some(&link("../githooks")));
        assert_eq!(
            findings,
            vec![Finding {
                path: hooks.clone(),
                why: "x".into(),
                change: Change::LinkReplaced {
                    target: "../githooks".into()
                },
                repair: Ok(Repair {
                    moved_to: Some(aside.clone()),
                    link_restored: true
                }),
            }]
        );
        assert_eq!(
            std::fs::read_link(&hooks).unwrap(),
            Path::new("../githooks")
        );
        assert_eq!(
            std::fs::read_to_string(aside.join("pre-commit")).unwrap(),
            "evil"
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_link_that_appears_is_moved_itself_not_its_target() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir(root.join("elsewhere")).unwrap();
        let wright = root.join(".wright");
        let before = snapshot(
            &[protected(&wright)],
            std::slice::from_ref(&root),
            true,
            &HashMap::new(),
        );
        std::os::unix::fs::symlink("elsewhere", &wright).unwrap();
        let (findings, _) = find_and_repair(&before);
        assert_eq!(findings.len(), 1);
        assert!(root.join("elsewhere").is_dir());
        let aside = root.join(".wright.refused-by-wright");
        assert_eq!(std::fs::read_link(aside).unwrap(), Path::new("elsewhere"));
        assert_eq!(state_of(&wright), PathState::Absent);
    }

    /// A background job runs while the guard looks (BashOutput, the next Bash): what it creates
    /// after a path was looked at but before the new record is made must not slip into the
    /// record unseen (a flaky `what_a_job_created_among_the_protected_paths_…` test on busy
    /// cores).
    #[test]
    fn a_path_created_while_the_guard_looks_is_found_by_the_next_look() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir(root.join(".git")).unwrap();
        let commondir = root.join(".git/commondir");
        let paths = vec![protected(&commondir)];
        let writable = std::slice::from_ref(&root);
        let mut last = None;
        assert_eq!(look_again(&mut last, || paths.clone(), writable, true), []);
        // The job writes in the middle of the next look: after `commondir` was found absent.
        let during = look_again(
            &mut last,
            || {
                std::fs::write(&commondir, "/tmp/evil\n").unwrap();
                paths.clone()
            },
            writable,
            true,
        );
        assert_eq!(during, []);
        let after = look_again(&mut last, || paths.clone(), writable, true);
        assert_eq!(
            after.iter().map(|f| &f.change).collect::<Vec<_>>(),
            [&Change::Appeared]
        );
        assert_eq!(state_of(&commondir), PathState::Absent);
        assert!(root.join(".git/commondir.refused-by-wright").is_file());
    }

    #[test]
    fn the_note_says_what_changed_why_it_matters_and_what_was_done() {
        let finding = Finding {
            path: "/p/.git/commondir".into(),
            why: "git's settings".into(),
            change: Change::Appeared,
            repair: Ok(Repair {
                moved_to: Some("/p/.git/commondir.refused-by-wright".into()),
                link_restored: false,
            }),
        };
        let display = |path: &Path| path.strip_prefix("/p").unwrap().display().to_string();
        assert_eq!(
            note(&finding, Moment::AfterCommand, display),
            "Note: this command created .git/commondir; wright moved it to \
             .git/commondir.refused-by-wright. Commands may not create or change \
             .git/commondir (git's settings); ask the user to."
        );
        let removed = Finding {
            change: Change::LinkRemoved {
                target: "../githooks".into(),
            },
            repair: Ok(Repair {
                moved_to: None,
                link_restored: true,
            }),
            ..finding
        };
        assert_eq!(
            note(&removed, Moment::BeforeCommand, display),
            "Note: after the last command returned, something it left running (or someone \
             else) removed the symbolic link .git/commondir (to ../githooks); wright put the \
             link back. Commands may not create or change .git/commondir (git's settings); ask \
             the user to."
        );
    }
}
