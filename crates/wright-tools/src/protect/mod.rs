//! What the agent may not change even where it may write (issue 12): the files through which a
//! change would run code outside the sandbox later, or widen what wright may do.
//!
//! - the project's `.git/config` and `.git/hooks/` (git runs `core.fsmonitor`, aliases and
//!   hooks the next time anyone uses git), with `.git/config.worktree` and `.git/commondir`
//!   (which point git at other settings), the same of every submodule's and linked
//!   worktree's git directory, a `.git` file and what it names, and what git's settings point
//!   at: included settings, `core.hooksPath`, project files a setting runs (see [`git`]);
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

mod git;

pub(crate) use git::global_configs;

use std::path::{Path, PathBuf};

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

/// Why `.wright/` is protected.
const WRIGHT_WHY: &str = "wright's own settings for this project (allow rules, hooks, the \
                          sandbox)";

/// The protected paths of the project at `root` (canonical), existing or not, followed by
/// `extra` (the front end's). `home` is the user's home directory (`~` in git's settings) and
/// `git_globals` the user's global git settings files. Extras that hold the project (a
/// `$WRIGHT_HOME` above it) are dropped: protecting them would protect the whole project.
/// Each path is listed once, canonical (where a link leads), for the binds and the file tools.
pub(crate) fn protected_paths(
    root: &Path,
    home: Option<&Path>,
    git_globals: &[PathBuf],
    extra: &[ProtectedPath],
) -> Vec<ProtectedPath> {
    listed(root, home, git_globals, extra, |path, why| {
        ProtectedPath::new(&path, why)
    })
}

/// The same paths as [`protected_paths`], named as they are reached rather than where they
/// lead: a protected path that is a symbolic link (`.git/hooks -> ../githooks`) is the link
/// here, the target there. For the guard ([`crate::guard`]), which watches the links
/// themselves.
pub(crate) fn named_protected_paths(
    root: &Path,
    home: Option<&Path>,
    git_globals: &[PathBuf],
    extra: &[ProtectedPath],
) -> Vec<ProtectedPath> {
    listed(root, home, git_globals, extra, |path, why| ProtectedPath {
        path,
        why: why.into(),
    })
}

/// The project's protected paths, each made a [`ProtectedPath`] by `name`, then the front
/// end's `extra`, without those that hold the project, each once.
fn listed(
    root: &Path,
    home: Option<&Path>,
    git_globals: &[PathBuf],
    extra: &[ProtectedPath],
    name: impl Fn(PathBuf, &'static str) -> ProtectedPath,
) -> Vec<ProtectedPath> {
    let mut paths: Vec<ProtectedPath> = project_paths(root, home, git_globals)
        .into_iter()
        .map(|(path, why)| name(path, why))
        .collect();
    paths.extend(extra.iter().cloned());
    paths.retain(|p| !root.starts_with(&p.path));
    let mut seen = std::collections::HashSet::new();
    paths.retain(|p| seen.insert(p.path.clone()));
    paths
}

/// The project's own protected paths with the reason for each, as named: `root` is canonical
/// and so is every git directory found, so mostly only a last component can be a link.
fn project_paths(
    root: &Path,
    home: Option<&Path>,
    git_globals: &[PathBuf],
) -> Vec<(PathBuf, &'static str)> {
    let mut paths = Vec::new();
    git::project_git_paths(root, home, git_globals, &mut paths);
    paths.push((root.join(".wright"), WRIGHT_WHY));
    paths
}

/// What a command's mount namespace does: the directories to pin (bind onto themselves, so
/// they cannot be renamed or removed), then the paths to make read-only, parents before
/// children. Only paths that exist can be bound; the caller leaves the others out. Each
/// directory between the outermost writable root that holds a protected path and that path is
/// pinned, the project root included. A protected
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
        // From the outermost writable root holding it, so that no directory above it that a
        // command could rename is left unpinned (a project inside the temporary directory).
        let Some(root) = writable_roots
            .iter()
            .filter(|root| path.starts_with(root))
            .min_by_key(|root| root.components().count())
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
    use super::git::GIT_CONTROL_FILES;
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
        assert_eq!(paths_of(&protected_paths(&root, None, &[], &[])), expected);
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
        expected.extend(control_files(&main_git));
        expected.extend(control_files(&linked));
        expected.push(root.join(".wright"));
        assert_eq!(paths_of(&protected_paths(&root, None, &[], &[])), expected);
    }

    #[test]
    fn submodules_git_settings_are_protected_too() {
        let (_dir, root) = project();
        let module = root.join(".git/modules/lib");
        std::fs::create_dir_all(module.join("hooks")).unwrap();
        std::fs::write(module.join("config"), "").unwrap();
        std::fs::write(module.join("HEAD"), "ref: refs/heads/main\n").unwrap();
        let paths = paths_of(&protected_paths(&root, None, &[], &[]));
        for file in control_files(&module) {
            assert!(paths.contains(&file), "{paths:?}");
        }
    }

    #[test]
    fn submodules_with_slashed_names_and_linked_worktrees_are_found() {
        let (_dir, root) = project();
        let nested = root.join(".git/modules/vendor/lib");
        let deeper = nested.join("modules/third_party/x");
        let worktree = root.join(".git/worktrees/topic");
        for dir in [&nested, &deeper, &worktree] {
            std::fs::create_dir_all(dir).unwrap();
            std::fs::write(dir.join("HEAD"), "ref: refs/heads/main\n").unwrap();
        }
        let paths = paths_of(&protected_paths(&root, None, &[], &[]));
        for dir in [&nested, &deeper, &worktree] {
            for file in control_files(dir) {
                assert!(paths.contains(&file), "{file:?} not in {paths:?}");
            }
        }
        // `vendor` is not a git directory, only on the way to one.
        assert!(!paths.contains(&root.join(".git/modules/vendor/config")));
    }

    #[test]
    fn submodule_checkouts_git_files_are_protected() {
        let (_dir, root) = project();
        std::fs::write(
            root.join(".gitmodules"),
            "[submodule \"lib\"]\n\tpath = vendor/lib\n\turl = ../lib\n",
        )
        .unwrap();
        let paths = paths_of(&protected_paths(&root, None, &[], &[]));
        assert!(paths.contains(&root.join("vendor/lib/.git")), "{paths:?}");
    }

    #[test]
    fn what_git_settings_name_is_protected() {
        let (dir, root) = project();
        let home = dir.path().canonicalize().unwrap().join("home");
        std::fs::create_dir_all(root.join("tools")).unwrap();
        std::fs::write(root.join("tools/watch.sh"), "").unwrap();
        std::fs::write(
            root.join("shared.gitconfig"),
            "[alias]\n\tx = !sh tools/x.sh\n",
        )
        .unwrap();
        std::fs::write(root.join("tools/x.sh"), "").unwrap();
        std::fs::write(
            root.join(".git/config"),
            "[core]\n\thooksPath = .husky\n\tfsmonitor = ./tools/watch.sh\n\
             [include]\n\tpath = ../shared.gitconfig\n\
             [includeIf \"gitdir:~/\"]\n\tpath = ~/extra.gitconfig\n\
             [remote \"origin\"]\n\turl = ../elsewhere\n",
        )
        .unwrap();
        let global = home.join(".gitconfig");
        let paths = paths_of(&protected_paths(
            &root,
            Some(&home),
            std::slice::from_ref(&global),
            &[],
        ));
        for expected in [
            root.join(".husky"),
            root.join("tools/watch.sh"),
            root.join("shared.gitconfig"),
            root.join("tools/x.sh"),
            home.join("extra.gitconfig"),
            global,
        ] {
            assert!(paths.contains(&expected), "{expected:?} not in {paths:?}");
        }
        assert!(!paths.iter().any(|p| p.ends_with("elsewhere")), "{paths:?}");
    }

    #[test]
    fn a_git_file_is_protected_itself() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        // It names no directory that exists: only the file itself is protected.
        std::fs::write(root.join(".git"), "gitdir: ../elsewhere\n").unwrap();
        assert_eq!(
            paths_of(&protected_paths(&root, None, &[], &[])),
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
        assert_eq!(
            paths_of(&protected_paths(&root, None, &[], &[extra])),
            expected
        );
    }

    #[test]
    fn an_extra_path_holding_the_project_is_not_protected() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().canonicalize().unwrap();
        let root = home.join("proj");
        std::fs::create_dir(&root).unwrap();
        let extra = ProtectedPath::existing(&home, "x").unwrap();
        assert_eq!(
            protected_paths(&root, None, &[], &[extra]).len(),
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
    fn the_plan_pins_from_the_outermost_writable_root_the_project_included() {
        let protected = [ProtectedPath {
            path: "/tmp/x/proj/.git/config".into(),
            why: "x".into(),
        }];
        let roots = [PathBuf::from("/tmp/x/proj"), PathBuf::from("/tmp")];
        assert_eq!(
            mount_plan(&protected, &roots),
            (
                vec![
                    PathBuf::from("/tmp/x"),
                    PathBuf::from("/tmp/x/proj"),
                    PathBuf::from("/tmp/x/proj/.git")
                ],
                vec![PathBuf::from("/tmp/x/proj/.git/config")]
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
