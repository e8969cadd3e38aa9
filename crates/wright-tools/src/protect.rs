//! What the agent may not change even where it may write (issue 12): the files through which a
//! change would run code outside the sandbox later, or widen what wright may do.
//!
//! - the project's `.git/config` and `.git/hooks/` (git runs `core.fsmonitor`, aliases and
//!   hooks the next time anyone uses git), with `.git/config.worktree` and `.git/commondir`
//!   (which point git at other settings); the same of each submodule under `.git/modules/`;
//!   and a `.git` that is a file (it names the git directory, as in a worktree or a
//!   submodule) together with the settings and hooks of the directory it names and of that
//!   directory's common one;
//! - the project's `.wright/` (its settings add hooks or turn the sandbox off);
//! - what the front end adds ([`crate::ToolContext::with_protected`]): the user's settings
//!   directory, `$WRIGHT_HOME` (sessions), the scripts hooks run.
//!
//! The file tools refuse to write them (code `protected`); Bash commands see them read-only
//! (the sandbox binds them read-only in a mount namespace of the command's own, see
//! [`crate::sandbox`]). So that a protected path cannot be swapped for another by renaming a
//! directory above it, each directory between a writable root and a protected path is pinned:
//! it stays writable but cannot be renamed or removed while the command runs.
//!
//! The file tools refuse these paths whether they exist or not. The binds cover only paths that
//! exist when a command starts, and of a path that is a symbolic link only its target: what a
//! command creates or swaps there, the guard ([`crate::guard`]) moves aside once it has ended.
//! A `.git` made by `git init` in a project without one is left alone (`docs/sandbox.md` says
//! so).

use std::path::{Path, PathBuf};

use crate::project_file::read_project_file;

/// The files of a git directory that decide what git runs: its settings, the per-worktree
/// settings, the pointer to the directory whose settings it shares, and the hooks.
const GIT_CONTROL_FILES: [&str; 4] = ["config", "config.worktree", "commondir", "hooks"];

/// The most read of a `.git` file or a `commondir` file (each holds one path).
const MAX_POINTER_BYTES: u64 = 4096;

/// How deep submodules are looked for under `.git/modules` (a submodule of a submodule is
/// `.git/modules/a/modules/b`).
const MAX_SUBMODULE_DEPTH: usize = 3;

/// At most this many submodules are protected; past it the rest are left as they are.
const MAX_SUBMODULES: usize = 64;

/// One path the agent may not change, with the reason given when a write is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProtectedPath {
    /// The canonical path: a file, or a directory protected with all it holds.
    pub path: PathBuf,
    /// What it is, for the refusal: "git's settings and hooks, which run code …".
    pub why: String,
}

impl ProtectedPath {
    /// `path` protected for `why`, whether it exists or not: its longest existing part is
    /// canonicalised (symlinks resolved) and the rest appended, so it compares with the paths
    /// the tools resolve.
    pub fn new(path: &Path, why: impl Into<String>) -> Self {
        let mut existing = path;
        let mut rest = Vec::new();
        let canonical = loop {
            if let Ok(canonical) = existing.canonicalize() {
                break canonical;
            }
            match (existing.parent(), existing.file_name()) {
                (Some(parent), Some(name)) => {
                    rest.push(name.to_os_string());
                    existing = parent;
                }
                _ => break existing.to_path_buf(),
            }
        };
        Self {
            path: rest
                .iter()
                .rev()
                .fold(canonical, |path, name| path.join(name)),
            why: why.into(),
        }
    }

    /// `path` (canonicalised) protected for `why`; `None` when it does not exist.
    pub fn existing(path: &Path, why: impl Into<String>) -> Option<Self> {
        Some(Self {
            path: path.canonicalize().ok()?,
            why: why.into(),
        })
    }

    /// Whether `target` (an absolute, resolved path) is this path or lies under it.
    pub fn covers(&self, target: &Path) -> bool {
        target.starts_with(&self.path)
    }
}

/// Why git's files are protected.
const GIT_WHY: &str = "git's settings and hooks, which run programs outside the sandbox the next \
                       time anyone uses git";
/// Why `.wright/` is protected.
const WRIGHT_WHY: &str = "wright's own settings for this project (allow rules, hooks, the \
                          sandbox)";

/// The protected paths of the project at `root` (canonical), existing or not, followed by
/// `extra` (the front end's). Extras that hold the project (a `$WRIGHT_HOME` above it) are
/// dropped: protecting them would protect the whole project.
pub(crate) fn protected_paths(root: &Path, extra: &[ProtectedPath]) -> Vec<ProtectedPath> {
    let mut paths: Vec<ProtectedPath> = project_paths(root)
        .into_iter()
        .map(|(path, why)| ProtectedPath::new(&path, why))
        .collect();
    paths.extend(extras(root, extra));
    paths
}

/// The same paths as [`protected_paths`], named as they are reached rather than where they
/// lead: the directories above each are resolved, its last component is not. A protected path
/// that is a symbolic link (`.git/hooks -> ../githooks`) is the link here, the target there.
/// For the guard ([`crate::guard`]), which watches the links themselves.
pub(crate) fn named_protected_paths(root: &Path, extra: &[ProtectedPath]) -> Vec<ProtectedPath> {
    let mut paths: Vec<ProtectedPath> = project_paths(root)
        .into_iter()
        .map(|(path, why)| ProtectedPath {
            path,
            why: why.to_string(),
        })
        .collect();
    paths.extend(extras(root, extra));
    paths
}

/// The front end's protected paths that do not hold the project.
fn extras<'a>(
    root: &'a Path,
    extra: &'a [ProtectedPath],
) -> impl Iterator<Item = ProtectedPath> + 'a {
    extra.iter().filter(|p| !root.starts_with(&p.path)).cloned()
}

/// The project's own protected paths with the reason for each, as named: `root` is canonical
/// and so is every git directory found, so only a last component can be a link.
fn project_paths(root: &Path) -> Vec<(PathBuf, &'static str)> {
    let mut paths = Vec::new();
    let dot_git = root.join(".git");
    match std::fs::symlink_metadata(&dot_git) {
        // A `.git` file names the git directory: rewritten, it points git at settings of the
        // command's choosing. A link is protected where it leads.
        Ok(meta) if !meta.is_dir() => {
            paths.push((dot_git.clone(), GIT_WHY));
            linked_git_dir_paths(root, &dot_git, &mut paths);
        }
        _ => git_dir_paths(&dot_git, 0, &mut paths),
    }
    paths.push((root.join(".wright"), WRIGHT_WHY));
    paths
}

/// The control files of the git directory a `.git` file names (`gitdir: …`, a worktree's or
/// a submodule's), and of the common directory that one names in its `commondir` (the main
/// repository of a worktree). Both files are read as the project's own files are: bounded,
/// regular files only, without following a last link or blocking.
fn linked_git_dir_paths(root: &Path, dot_git: &Path, paths: &mut Vec<(PathBuf, &'static str)>) {
    let Some(git_dir) = pointed_dir(root, dot_git, root, "gitdir:") else {
        return;
    };
    git_dir_paths(&git_dir, MAX_SUBMODULE_DEPTH, paths);
    if let Some(common) = pointed_dir(&git_dir, &git_dir.join("commondir"), &git_dir, "") {
        git_dir_paths(&common, MAX_SUBMODULE_DEPTH, paths);
    }
}

/// The directory a pointer file names: its first line, after `prefix`, taken from `base` when
/// relative. `None` when the file cannot be read as a file inside `within`, or names no
/// directory.
fn pointed_dir(within: &Path, file: &Path, base: &Path, prefix: &str) -> Option<PathBuf> {
    let bytes = read_project_file(within, file, MAX_POINTER_BYTES).ok()?;
    let text = String::from_utf8(bytes).ok()?;
    let named = text.lines().next()?.strip_prefix(prefix)?.trim();
    if named.is_empty() {
        return None;
    }
    base.join(named)
        .canonicalize()
        .ok()
        .filter(|dir| dir.is_dir())
}

/// The control files ([`GIT_CONTROL_FILES`]) of the git directory `git_dir`, and of its
/// submodules' (below `depth` levels of them).
fn git_dir_paths(git_dir: &Path, depth: usize, paths: &mut Vec<(PathBuf, &'static str)>) {
    for name in GIT_CONTROL_FILES {
        paths.push((git_dir.join(name), GIT_WHY));
    }
    if depth >= MAX_SUBMODULE_DEPTH {
        return;
    }
    let Ok(entries) = std::fs::read_dir(git_dir.join("modules")) else {
        return;
    };
    for entry in entries.flatten().take(MAX_SUBMODULES) {
        let path = entry.path();
        if entry.file_type().is_ok_and(|t| t.is_dir()) && path.join("HEAD").is_file() {
            git_dir_paths(&path, depth + 1, paths);
        }
    }
}

/// What a command's mount namespace does: the directories to pin (bind onto themselves, so
/// they cannot be renamed or removed), then the paths to make read-only, parents before
/// children. Only paths that exist can be bound; the caller leaves the others out. A protected
/// path outside every writable root needs nothing (the sandbox keeps commands from writing
/// there anyway); one that holds a writable root is skipped, since making it read-only would
/// make the root read-only too.
pub(crate) fn mount_plan(
    protected: &[ProtectedPath],
    writable_roots: &[PathBuf],
) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let mut pins: Vec<PathBuf> = Vec::new();
    let mut read_only: Vec<PathBuf> = Vec::new();
    for protected in protected {
        let path = &protected.path;
        if writable_roots.iter().any(|root| root.starts_with(path)) {
            continue;
        }
        let Some(root) = writable_roots
            .iter()
            .filter(|root| path.starts_with(root))
            .max_by_key(|root| root.components().count())
        else {
            continue;
        };
        let mut ancestor = path.parent();
        while let Some(dir) = ancestor.filter(|dir| dir.starts_with(root) && *dir != root) {
            pins.push(dir.to_path_buf());
            ancestor = dir.parent();
        }
        read_only.push(path.clone());
    }
    // A read-only path under another read-only path is covered by it.
    read_only.sort();
    read_only.dedup();
    let covered: Vec<PathBuf> = read_only
        .iter()
        .filter(|path| {
            read_only
                .iter()
                .any(|other| other != *path && path.starts_with(other))
        })
        .cloned()
        .collect();
    read_only.retain(|path| !covered.contains(path));
    pins.retain(|dir| !read_only.iter().any(|ro| dir.starts_with(ro)));
    pins.sort_by_key(|dir| dir.components().count());
    pins.dedup();
    read_only.sort_by_key(|path| path.components().count());
    (pins, read_only)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn project() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join(".git/hooks")).unwrap();
        std::fs::write(root.join(".git/config"), "[core]\n").unwrap();
        std::fs::write(root.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
        (dir, root)
    }

    fn paths_of(protected: &[ProtectedPath]) -> Vec<PathBuf> {
        protected.iter().map(|p| p.path.clone()).collect()
    }

    /// The control files of `git_dir`, in order.
    fn control_files(git_dir: &Path) -> Vec<PathBuf> {
        GIT_CONTROL_FILES.iter().map(|f| git_dir.join(f)).collect()
    }

    #[test]
    fn a_project_protects_git_config_hooks_and_its_wright_directory() {
        let (_dir, root) = project();
        std::fs::create_dir(root.join(".wright")).unwrap();
        let mut expected = control_files(&root.join(".git"));
        expected.push(root.join(".wright"));
        assert_eq!(paths_of(&protected_paths(&root, &[])), expected);
    }

    #[test]
    fn a_worktree_protects_its_git_dir_and_the_main_repositorys_settings() {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().canonicalize().unwrap();
        let main_git = base.join("main/.git");
        let linked = main_git.join("worktrees/topic");
        std::fs::create_dir_all(main_git.join("hooks")).unwrap();
        std::fs::create_dir_all(&linked).unwrap();
        std::fs::write(linked.join("commondir"), "../..\n").unwrap();
        let root = base.join("topic");
        std::fs::create_dir(&root).unwrap();
        std::fs::write(root.join(".git"), format!("gitdir: {}\n", linked.display())).unwrap();
        let mut expected = vec![root.join(".git")];
        expected.extend(control_files(&linked));
        expected.extend(control_files(&main_git));
        expected.push(root.join(".wright"));
        assert_eq!(paths_of(&protected_paths(&root, &[])), expected);
    }

    #[test]
    fn submodules_git_settings_are_protected_too() {
        let (_dir, root) = project();
        let module = root.join(".git/modules/lib");
        std::fs::create_dir_all(module.join("hooks")).unwrap();
        std::fs::write(module.join("config"), "").unwrap();
        std::fs::write(module.join("HEAD"), "ref: refs/heads/main\n").unwrap();
        let paths = paths_of(&protected_paths(&root, &[]));
        for file in control_files(&module) {
            assert!(paths.contains(&file), "{paths:?}");
        }
    }

    #[test]
    fn a_git_file_is_protected_itself() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        // It names no directory that exists: only the file itself is protected.
        std::fs::write(root.join(".git"), "gitdir: ../elsewhere\n").unwrap();
        assert_eq!(
            paths_of(&protected_paths(&root, &[])),
            vec![root.join(".git"), root.join(".wright")]
        );
    }

    #[test]
    fn missing_paths_are_protected_by_name_under_their_real_parent() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().canonicalize().unwrap();
        std::fs::create_dir(real.join("proj")).unwrap();
        std::os::unix::fs::symlink(real.join("proj"), real.join("alias")).unwrap();
        let root = real.join("proj");
        let extra = ProtectedPath::new(&real.join("alias/gone/deeper"), "x");
        assert_eq!(extra.path, root.join("gone/deeper"));
        let mut expected = control_files(&root.join(".git"));
        expected.extend([root.join(".wright"), root.join("gone/deeper")]);
        assert_eq!(paths_of(&protected_paths(&root, &[extra])), expected);
    }

    #[test]
    fn an_extra_path_holding_the_project_is_not_protected() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().canonicalize().unwrap();
        let root = home.join("proj");
        std::fs::create_dir(&root).unwrap();
        let extra = ProtectedPath::existing(&home, "x").unwrap();
        assert_eq!(
            protected_paths(&root, &[extra]).len(),
            GIT_CONTROL_FILES.len() + 1
        );
    }

    #[test]
    fn the_plan_pins_each_directory_between_the_root_and_a_protected_path() {
        let root = PathBuf::from("/p");
        let protected = [ProtectedPath {
            path: "/p/tools/hooks/vet.sh".into(),
            why: "x".into(),
        }];
        assert_eq!(
            mount_plan(&protected, &[root]),
            (
                vec![PathBuf::from("/p/tools"), PathBuf::from("/p/tools/hooks")],
                vec![PathBuf::from("/p/tools/hooks/vet.sh")]
            )
        );
    }

    #[test]
    fn the_plan_skips_paths_outside_writable_roots_and_paths_holding_one() {
        let protected = [
            ProtectedPath {
                path: "/home/ann/.config/wright".into(),
                why: "x".into(),
            },
            ProtectedPath {
                path: "/home/ann".into(),
                why: "x".into(),
            },
            ProtectedPath {
                path: "/tmp/wh".into(),
                why: "x".into(),
            },
        ];
        let roots = [PathBuf::from("/home/ann/p"), PathBuf::from("/tmp")];
        assert_eq!(
            mount_plan(&protected, &roots),
            (vec![], vec![PathBuf::from("/tmp/wh")])
        );
    }

    #[test]
    fn the_plan_binds_a_path_once_and_not_under_a_read_only_one() {
        let protected = [
            ProtectedPath {
                path: "/p/.wright".into(),
                why: "x".into(),
            },
            ProtectedPath {
                path: "/p/.wright/hooks/vet.sh".into(),
                why: "x".into(),
            },
            ProtectedPath {
                path: "/p/.git/config".into(),
                why: "x".into(),
            },
            ProtectedPath {
                path: "/p/.git/hooks".into(),
                why: "x".into(),
            },
        ];
        assert_eq!(
            mount_plan(&protected, &[PathBuf::from("/p")]),
            (
                vec![PathBuf::from("/p/.git")],
                vec![
                    PathBuf::from("/p/.wright"),
                    PathBuf::from("/p/.git/config"),
                    PathBuf::from("/p/.git/hooks"),
                ]
            )
        );
    }
}
