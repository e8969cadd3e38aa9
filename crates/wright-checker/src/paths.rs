//! Where a path points, judged lexically: inside the project, outside it, or somewhere whose loss
//! is a disaster (the file system root, home, a system directory).
//!
//! Paths are judged as text (`..` applied to the text); [`resolve`] alone touches the disk, to
//! find where the symlinks of a delete target lead, and the checker judges a target by the
//! worse of the two. A symlinked alias of the project therefore looks like "outside", which
//! errs on the side of refusing.

use std::path::{Component, Path, PathBuf};

/// Directories that belong to the operating system: writing into them is refused (spec issue
/// 6: "writes to /etc, /boot, /dev/sd*"), deleting them or their direct children is a disaster.
const SYSTEM_DIRS: &[&str] = &[
    "/etc",
    "/boot",
    "/bin",
    "/sbin",
    "/lib",
    "/lib32",
    "/lib64",
    "/libx32",
    "/usr",
    "/sys",
    "/proc",
    "/dev",
    "/System",
    "/private/etc",
];

/// Directories where the system keeps its data and logs: writing or deleting there (even one
/// file, `rm /var/log/syslog`) is a system write, but deleting them is not a disaster on the
/// scale of [`SYSTEM_DIRS`].
const SYSTEM_DATA_DIRS: &[&str] = &["/var/log", "/var/lib", "/var/spool", "/var/mail"];

/// Top-level directories whose loss is not a disaster: scratch space.
const SCRATCH_DIRS: &[&str] = &["/tmp"];

/// The system's temporary directories (macOS's `/tmp` is `/private/tmp`). The Bash tool's
/// sandbox lets commands write there, so deleting inside them is allowed (issue 12); deleting
/// one of them, or everything in it (`/tmp/*`, other programs' sockets and files), is not.
const TEMP_DIRS: &[&str] = &["/tmp", "/private/tmp"];

/// Where macOS keeps each user's temporary directory (`$TMPDIR`):
/// `/var/folders/XX/YYYY/T`, also seen as `/private/var/folders/…`.
const MACOS_TEMP_PARENTS: &[&str] = &["/var/folders", "/private/var/folders"];

/// Device files that are safe to write to.
const HARMLESS_DEVICES: &[&str] = &[
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/random",
    "/dev/urandom",
    "/dev/stdin",
    "/dev/stdout",
    "/dev/stderr",
    "/dev/tty",
];

/// Device directories whose entries are safe to write to (file descriptors, terminals, shared
/// memory).
const HARMLESS_DEVICE_DIRS: &[&str] = &["/dev/fd", "/dev/pts", "/dev/shm"];

/// Name prefixes of disks, partitions and raw memory under `/dev`: writing to one destroys what
/// it holds.
const DISK_PREFIXES: &[&str] = &[
    "sd", "hd", "vd", "xvd", "nvme", "mmcblk", "disk", "rdisk", "md", "dm-", "loop", "sr", "mem",
    "kmem", "port", "root", "mapper",
];

/// `path` applied to `base` without touching the disk: relative paths are joined to `base`,
/// `.` is dropped and `..` removes the last component (never above `/`).
pub(crate) fn normalize(base: &Path, path: &str) -> PathBuf {
    let mut out = if Path::new(path).is_absolute() {
        PathBuf::from("/")
    } else {
        base.to_path_buf()
    };
    for component in Path::new(path).components() {
        match component {
            Component::Prefix(_) | Component::RootDir => out.push(component),
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(name) => out.push(name),
        }
    }
    out
}

/// Where the absolute `path` (as written, `..` and all) really leads on disk: the longest
/// part of it that exists is resolved with its symlinks followed, and the rest appended as
/// written. The last component is itself followed only when `follow_last` (`rm -rf link`
/// removes the link, `rm -rf link/` what it points to). `None` when nothing of it exists.
///
/// Only `canonicalize` is used: it opens nothing, so a FIFO or a device cannot block it, and it
/// is tried at most once per component.
pub(crate) fn resolve(path: &Path, follow_last: bool) -> Option<PathBuf> {
    let components: Vec<Component<'_>> = path.components().collect();
    let (walked, last) = match components.split_last() {
        Some((Component::Normal(name), rest)) if !follow_last => (rest, Some(name)),
        _ => (&components[..], None),
    };
    let mut resolved = None;
    for len in (1..=walked.len()).rev() {
        let prefix: PathBuf = walked[..len].iter().collect();
        if let Ok(real) = std::fs::canonicalize(&prefix) {
            let rest: PathBuf = walked[len..].iter().collect();
            resolved = Some(normalize(&real, &rest.to_string_lossy()));
            break;
        }
    }
    let mut resolved = resolved?;
    if let Some(name) = last {
        resolved.push(name);
    }
    Some(resolved)
}

/// How many components follow `/` (`/` is 0, `/usr` is 1).
fn depth(path: &Path) -> usize {
    path.components()
        .filter(|c| matches!(c, Component::Normal(_)))
        .count()
}

/// What deleting (or recursively changing) a path would hit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Place {
    /// Strictly inside the project (but not its `.git`).
    Inside,
    /// The project root itself.
    ProjectRoot,
    /// The project's `.git` directory: its whole history.
    GitDir,
    /// Strictly inside the system's temporary directory (`/tmp/build-1`), and not in the home
    /// directory or the project.
    Temp,
    /// Outside the project, somewhere ordinary (`/tmp`, `../other/target`).
    Outside,
    /// Somewhere whose loss is a disaster; the text says what it is.
    Vital(String),
}

/// Classifies an absolute, normalised path for a delete (see [`Place`]).
pub(crate) fn place(path: &Path, root: &Path, home: Option<&Path>) -> Place {
    if let Some(vital) = vital(path, root, home) {
        return Place::Vital(vital);
    }
    if path == root {
        Place::ProjectRoot
    } else if path == root.join(".git") {
        Place::GitDir
    } else if path.starts_with(root) {
        Place::Inside
    } else if in_temp_dir(path) && !home.is_some_and(|home| path.starts_with(home)) {
        Place::Temp
    } else {
        Place::Outside
    }
}

/// Whether `path` lies strictly inside a system temporary directory (see [`TEMP_DIRS`]).
pub(crate) fn in_temp_dir(path: &Path) -> bool {
    let inside = |dir: &Path| path.starts_with(dir) && path != dir;
    TEMP_DIRS.iter().any(|dir| inside(Path::new(dir)))
        || MACOS_TEMP_PARENTS.iter().any(|parent| {
            let Ok(rest) = path.strip_prefix(parent) else {
                return false;
            };
            let parts: Vec<Component<'_>> = rest.components().collect();
            parts.len() > 3 && parts[2] == Component::Normal("T".as_ref())
        })
}

/// Why losing `path` would be a disaster, if it would.
fn vital(path: &Path, root: &Path, home: Option<&Path>) -> Option<String> {
    let shown = path.display();
    if depth(path) == 0 {
        return Some("the whole file system (/)".into());
    }
    if let Some(home) = home {
        if path == home {
            return Some(format!("your home directory ({shown})"));
        }
        if home.starts_with(path) {
            return Some(format!("{shown}, which holds your home directory"));
        }
    }
    if root.starts_with(path) && path != root {
        return Some(format!("{shown}, which holds the project"));
    }
    if depth(path) == 1 && !SCRATCH_DIRS.iter().any(|s| path == Path::new(s)) {
        return Some(format!("the top-level directory {shown}"));
    }
    SYSTEM_DIRS
        .iter()
        .map(Path::new)
        .find(|dir| path.starts_with(dir) && depth(path) <= depth(dir) + 1)
        .map(|_| format!("the system directory {shown}"))
}

/// The system directory `path` lies in, if any (`/` itself counts: `chmod 777 /`).
pub(crate) fn system_dir(path: &Path) -> Option<&'static str> {
    if depth(path) == 0 {
        return Some("/");
    }
    SYSTEM_DIRS
        .iter()
        .chain(SYSTEM_DATA_DIRS)
        .find(|dir| path.starts_with(dir))
        .copied()
}

/// Whether writing to `path` goes straight to a disk, partition or raw memory.
pub(crate) fn is_disk_device(path: &Path) -> bool {
    let Ok(rest) = path.strip_prefix("/dev") else {
        return false;
    };
    let name = rest.to_string_lossy();
    DISK_PREFIXES.iter().any(|prefix| name.starts_with(prefix))
}

/// Whether `path` is a device or descriptor that is fine to write to (`/dev/null`, `/dev/fd/2`).
pub(crate) fn is_harmless_device(path: &Path) -> bool {
    HARMLESS_DEVICES.iter().any(|d| path == Path::new(d))
        || HARMLESS_DEVICE_DIRS
            .iter()
            .any(|d| path.starts_with(d) && path != Path::new(d))
        || is_loopback_socket(path)
}

/// Whether `path` is bash's `/dev/tcp/HOST/PORT` (or `/dev/udp/…`) to this machine: a
/// connection to a local server, not a file. Other hosts are for the exfiltration rule.
fn is_loopback_socket(path: &Path) -> bool {
    let text = path.to_string_lossy();
    let Some(rest) = text
        .strip_prefix("/dev/tcp/")
        .or_else(|| text.strip_prefix("/dev/udp/"))
    else {
        return false;
    };
    is_loopback_host(rest.split('/').next().unwrap_or(""))
}

/// Whether `host` names this machine: `localhost`, `127.x.x.x`, `::1`.
pub(crate) fn is_loopback_host(host: &str) -> bool {
    host.eq_ignore_ascii_case("localhost")
        || host.starts_with("127.")
        || host == "::1"
        || host == "[::1]"
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    const ROOT: &str = "/home/ann/proj";
    const HOME: &str = "/home/ann";

    fn place_of(path: &str) -> Place {
        place(
            &normalize(Path::new(ROOT), path),
            Path::new(ROOT),
            Some(Path::new(HOME)),
        )
    }

    #[test]
    fn normalize_joins_relative_paths_and_applies_dot_dot() {
        let root = Path::new(ROOT);
        assert_eq!(
            normalize(root, "target"),
            PathBuf::from("/home/ann/proj/target")
        );
        assert_eq!(
            normalize(root, "./a/../b/"),
            PathBuf::from("/home/ann/proj/b")
        );
        assert_eq!(normalize(root, "../.."), PathBuf::from("/home"));
        assert_eq!(normalize(root, "/../../etc"), PathBuf::from("/etc"));
        assert_eq!(normalize(root, "."), PathBuf::from(ROOT));
    }

    #[test]
    fn project_paths_are_inside_and_the_root_and_git_are_named() {
        assert_eq!(place_of("target"), Place::Inside);
        assert_eq!(place_of("src/../node_modules"), Place::Inside);
        assert_eq!(place_of("."), Place::ProjectRoot);
        assert_eq!(place_of(".git"), Place::GitDir);
    }

    #[test]
    fn root_home_ancestors_top_level_and_system_dirs_are_vital() {
        for path in [
            "/", "..", "../..", "~", "/home", "/usr", "/usr/lib", "/etc/ssl", "/opt",
        ] {
            let path = path.replace('~', HOME);
            assert!(
                matches!(place_of(&path), Place::Vital(_)),
                "{path}: {:?}",
                place_of(&path)
            );
        }
    }

    #[test]
    fn ordinary_places_outside_are_outside() {
        for path in [
            "/tmp",
            "/private/tmp",
            "../other/target",
            "/usr/local/lib/x",
            "/var/log/app",
        ] {
            assert_eq!(place_of(path), Place::Outside, "{path}");
        }
    }

    #[test]
    fn places_strictly_inside_the_temporary_directory_are_temp() {
        for path in [
            "/tmp/build",
            "/tmp/a/b",
            "/private/tmp/x",
            "/var/folders/zz/abc123/T/tmp.x",
        ] {
            assert_eq!(place_of(path), Place::Temp, "{path}");
        }
        for path in ["/tmp", "/var/folders/zz/abc123/T", "/var/tmp/x"] {
            assert_eq!(place_of(path), Place::Outside, "{path}");
        }
        let home_in_tmp = place(
            Path::new("/tmp/t/home/ann/docs"),
            Path::new("/tmp/t/home/ann/proj"),
            Some(Path::new("/tmp/t/home/ann")),
        );
        assert_eq!(
            home_in_tmp,
            Place::Outside,
            "a home under /tmp is not scratch"
        );
    }

    #[test]
    fn disks_and_harmless_devices_are_told_apart() {
        assert!(is_disk_device(Path::new("/dev/sda")));
        assert!(is_disk_device(Path::new("/dev/nvme0n1p2")));
        assert!(!is_disk_device(Path::new("/dev/null")));
        assert!(is_harmless_device(Path::new("/dev/null")));
        assert!(is_harmless_device(Path::new("/dev/fd/2")));
        assert!(!is_harmless_device(Path::new("/dev/sda")));
        assert_eq!(system_dir(Path::new("/etc/hosts")), Some("/etc"));
        assert_eq!(system_dir(Path::new("/home/ann/x")), None);
        assert_eq!(system_dir(Path::new("/var/log/syslog")), Some("/var/log"));
        assert_eq!(system_dir(Path::new("/var/www/index.html")), None);
    }
}
