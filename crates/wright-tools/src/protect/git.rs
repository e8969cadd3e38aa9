//! The files through which git runs programs, found for a project (issue 12): the control
//! files of its git directories — the project's own, each submodule's under `.git/modules`
//! (any depth, slashed names included), each linked worktree's under `.git/worktrees`, the
//! directory a `.git` file names and its common one — the `.git` files of submodule
//! checkouts, and what git's settings point at: included settings files (`include.path`,
//! `includeIf.*.path`), the hooks directory (`core.hooksPath`, e.g. husky's `.husky`) and any
//! file of the project a setting names (`core.fsmonitor = ./watch.sh`, a filter or diff
//! driver, a `!` alias). The user's global git settings are read and protected too.
//!
//! Everything is read the way wright reads a repository's files: bounded, regular files only,
//! without following a last link or blocking, and with a limit on how many files are read.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use crate::project_file::read_project_file;

/// The files of a git directory that decide what git runs: its settings, the per-worktree
/// settings, the pointer to the directory whose settings it shares, and the hooks.
pub(super) const GIT_CONTROL_FILES: [&str; 4] = ["config", "config.worktree", "commondir", "hooks"];

/// Why git's files are protected.
pub(super) const GIT_WHY: &str = "git's settings and hooks, which run programs outside the \
                                  sandbox the next time anyone uses git";

/// Why the user's global git settings are protected.
const GLOBAL_WHY: &str = "your git settings";

/// Why a file git's settings name is protected.
const NAMED_WHY: &str = "a file git's settings name (an included settings file, the hooks \
                         directory or a program git runs)";

/// The most read of a `.git` file, a `commondir` file or `.gitmodules`.
const MAX_POINTER_BYTES: u64 = 64 * 1024;

/// The most read of one git settings file.
const MAX_CONFIG_BYTES: u64 = 1024 * 1024;

/// At most this many settings files are read (git's own include depth limit is 10).
const MAX_CONFIG_FILES: usize = 32;

/// At most this many directories are looked at under `.git/modules` and `.git/worktrees`.
const MAX_GIT_DIR_ENTRIES: usize = 1024;

/// How deep `.git/modules` is walked (slashed submodule names and nested submodules).
const MAX_MODULE_DEPTH: usize = 8;

/// Adds the protected git paths of the project at `root` (canonical) to `paths`. `home` is the
/// user's home directory, for `~` in settings; `globals` are the user's global git settings
/// files ([`global_configs`]).
pub(super) fn project_git_paths(
    root: &Path,
    home: Option<&Path>,
    globals: &[PathBuf],
    paths: &mut Vec<(PathBuf, &'static str)>,
) {
    let mut git_dirs = Vec::new();
    let dot_git = root.join(".git");
    match std::fs::symlink_metadata(&dot_git) {
        // A `.git` file names the git directory: rewritten, it points git at settings of the
        // command's choosing. A link is protected where it leads.
        Ok(meta) if !meta.is_dir() => {
            paths.push((dot_git.clone(), GIT_WHY));
            if let Some(git_dir) = pointed_dir(root, &dot_git, root, "gitdir:") {
                if let Some(common) =
                    pointed_dir(&git_dir, &git_dir.join("commondir"), &git_dir, "")
                {
                    git_dirs.push(common);
                }
                git_dirs.push(git_dir);
            }
        }
        _ => git_dirs.push(dot_git),
    }
    let mut budget = MAX_GIT_DIR_ENTRIES;
    let mut all_dirs = Vec::new();
    for git_dir in git_dirs {
        collect_git_dirs(&git_dir, 0, &mut budget, &mut all_dirs);
    }
    let mut configs = Vec::new();
    for git_dir in &all_dirs {
        for name in GIT_CONTROL_FILES {
            paths.push((git_dir.join(name), GIT_WHY));
        }
        configs.push(git_dir.join("config"));
        configs.push(git_dir.join("config.worktree"));
    }
    submodule_checkouts(root, paths);
    for global in globals {
        paths.push((global.clone(), GLOBAL_WHY));
        configs.push(global.clone());
    }
    named_by_settings(&configs, root, home, paths);
}

/// `git_dir` and the git directories under it: submodules' under `modules/` (a directory with
/// a `HEAD` is one; any other is walked, for slashed names) and linked worktrees' under
/// `worktrees/`, within `budget` directories.
fn collect_git_dirs(git_dir: &Path, depth: usize, budget: &mut usize, out: &mut Vec<PathBuf>) {
    out.push(git_dir.to_path_buf());
    for worktree in subdirectories(&git_dir.join("worktrees"), budget) {
        out.push(worktree);
    }
    walk_modules(&git_dir.join("modules"), depth, budget, out);
}

/// The git directories under a `modules/` directory (see [`collect_git_dirs`]).
fn walk_modules(dir: &Path, depth: usize, budget: &mut usize, out: &mut Vec<PathBuf>) {
    if depth >= MAX_MODULE_DEPTH {
        return;
    }
    for sub in subdirectories(dir, budget) {
        if sub.join("HEAD").is_file() {
            collect_git_dirs(&sub, depth + 1, budget, out);
        } else {
            walk_modules(&sub, depth + 1, budget, out);
        }
    }
}

/// The directories (not links) in `dir`, taking one from `budget` each.
fn subdirectories(dir: &Path, budget: &mut usize) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut dirs = Vec::new();
    for entry in entries.flatten() {
        if *budget == 0 {
            break;
        }
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            *budget -= 1;
            dirs.push(entry.path());
        }
    }
    dirs.sort();
    dirs
}

/// The `.git` files of the submodule checkouts `.gitmodules` lists (`path = lib`): rewritten,
/// one points git at settings of the command's choosing when it recurses into the submodule.
fn submodule_checkouts(root: &Path, paths: &mut Vec<(PathBuf, &'static str)>) {
    let Ok(bytes) = read_project_file(root, &root.join(".gitmodules"), MAX_POINTER_BYTES) else {
        return;
    };
    let text = String::from_utf8_lossy(&bytes);
    for line in text.lines() {
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        if key.trim().eq_ignore_ascii_case("path") {
            let path = value.trim().trim_matches('"');
            if !path.is_empty() {
                paths.push((root.join(path).join(".git"), GIT_WHY));
            }
        }
    }
}

/// The user's global git settings files: `$XDG_CONFIG_HOME/git/config` (or
/// `~/.config/git/config`) and `~/.gitconfig`, given `$XDG_CONFIG_HOME` and the home directory.
pub(crate) fn global_configs(xdg_config_home: Option<&Path>, home: Option<&Path>) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let xdg = xdg_config_home
        .filter(|dir| !dir.as_os_str().is_empty())
        .map(Path::to_path_buf)
        .or_else(|| home.map(|home| home.join(".config")));
    if let Some(dir) = xdg {
        files.push(dir.join("git/config"));
    }
    if let Some(home) = home {
        files.push(home.join(".gitconfig"));
    }
    files
}

/// Protects what the settings files `configs` (and the files they include) point at: included
/// files, the hooks directory, and existing files of the project their values name.
fn named_by_settings(
    configs: &[PathBuf],
    root: &Path,
    home: Option<&Path>,
    paths: &mut Vec<(PathBuf, &'static str)>,
) {
    let mut pending: Vec<PathBuf> = configs.to_vec();
    let mut seen: HashSet<PathBuf> = HashSet::new();
    while let Some(config) = pending.pop() {
        if seen.len() >= MAX_CONFIG_FILES || !seen.insert(config.clone()) {
            continue;
        }
        let Some(dir) = config.parent() else {
            continue;
        };
        let Ok(bytes) = read_project_file(dir, &config, MAX_CONFIG_BYTES) else {
            continue;
        };
        for setting in settings(&String::from_utf8_lossy(&bytes)) {
            match setting.kind() {
                SettingKind::Include => {
                    let included = expand(&setting.value, dir, home);
                    paths.push((included.clone(), NAMED_WHY));
                    pending.push(included);
                }
                SettingKind::HooksPath => {
                    let hooks = expand(&setting.value, root, home);
                    paths.push((hooks, NAMED_WHY));
                }
                SettingKind::Other => {
                    for word in shlex::split(&setting.value).unwrap_or_default() {
                        let word = word.strip_prefix('!').unwrap_or(&word);
                        let named = expand(word, root, home).canonicalize();
                        if let Ok(named) = named
                            && named.starts_with(root)
                            && named.is_file()
                        {
                            paths.push((named, NAMED_WHY));
                        }
                    }
                }
            }
        }
    }
}

/// A path from a setting: `~/…` from `home`, a relative one from `base`.
fn expand(value: &str, base: &Path, home: Option<&Path>) -> PathBuf {
    match (value.strip_prefix("~/"), home) {
        (Some(rest), Some(home)) => home.join(rest),
        _ => base.join(value),
    }
}

/// One `key = value` of a git settings file, with its section.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Setting {
    /// The section name, lowercased, without its subsection (`includeif` for
    /// `[includeIf "gitdir:~/work/"]`).
    section: String,
    /// The key, lowercased.
    key: String,
    /// The value, unquoted.
    value: String,
}

/// What a setting is to the protection.
enum SettingKind {
    /// `include.path`, `includeIf.*.path`: another settings file.
    Include,
    /// `core.hooksPath`: the hooks directory.
    HooksPath,
    /// Anything else: a value that may name a program.
    Other,
}

impl Setting {
    fn kind(&self) -> SettingKind {
        match (self.section.as_str(), self.key.as_str()) {
            ("include" | "includeif", "path") => SettingKind::Include,
            ("core", "hookspath") => SettingKind::HooksPath,
            _ => SettingKind::Other,
        }
    }
}

/// The settings of a git settings file, read leniently: sections `[name]`, `[name "sub"]` and
/// `[name.sub]`, `key = value` lines with `#`/`;` comments and double quotes. A key without a
/// value (a boolean) is skipped.
fn settings(text: &str) -> Vec<Setting> {
    let mut section = String::new();
    let mut out = Vec::new();
    for line in text.lines() {
        let mut line = line.trim();
        if let Some(rest) = line.strip_prefix('[') {
            let Some((header, after)) = rest.split_once(']') else {
                continue;
            };
            section = header
                .split(['.', ' ', '\t', '"'])
                .next()
                .unwrap_or("")
                .to_ascii_lowercase();
            line = after.trim();
        }
        if line.is_empty() || line.starts_with(['#', ';']) {
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        out.push(Setting {
            section: section.clone(),
            key: key.trim().to_ascii_lowercase(),
            value: unquote(value.trim()),
        });
    }
    out
}

/// A settings value as git reads it: double quotes removed, `\"` and `\\` unescaped, and a
/// `#` or `;` outside quotes ending it.
fn unquote(value: &str) -> String {
    let mut out = String::new();
    let mut quoted = false;
    let mut chars = value.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => quoted = !quoted,
            '\\' => out.extend(chars.next()),
            '#' | ';' if !quoted => break,
            c => out.push(c),
        }
    }
    out.trim_end().to_string()
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

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn settings_are_read_with_sections_quotes_and_comments() {
        let text = "[core]\n\thooksPath = .husky # husky\n[includeIf \"gitdir:~/w/\"]\n\
                    path = \"../shared.gitconfig\"\n[alias.x]\n  st = !\"sh ./s.sh\" ; c\n\
                    [filter \"lfs\"] clean = git-lfs clean -- %f\n  bare\n";
        let got: Vec<(String, String, String)> = settings(text)
            .into_iter()
            .map(|s| (s.section, s.key, s.value))
            .collect();
        let want = [
            ("core", "hookspath", ".husky"),
            ("includeif", "path", "../shared.gitconfig"),
            ("alias", "st", "!sh ./s.sh"),
            ("filter", "clean", "git-lfs clean -- %f"),
        ]
        .map(|(a, b, c)| (a.to_string(), b.to_string(), c.to_string()));
        assert_eq!(got, want);
    }
}
