//! Making the project's files exactly as a snapshot has them, touching nothing else.
//!
//! The project was snapshotted just before (`now`), so every difference is known: entries
//! `to` lacks are removed, directories `to` lacks are removed when empty, `to`'s directories
//! are made, files whose content differs are written (a temporary file beside them, then a
//! rename), and permission bits are set last (directories deepest first, so a read-only
//! directory is made read-only after it was written into). Every directory on the way is
//! checked to be a real directory, so no write follows a symbolic link out of the project.
//! Files the snapshot left out (over the size cap) are never removed or overwritten.

use std::collections::HashSet;
use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::CheckpointError;
use crate::git::{self, Git};
use crate::manifest::MODE_BITS;
use crate::tree::{Entry, State};

/// Turns the project at `root`, whose files are `now`, into `to`.
pub(crate) fn apply(
    git: &Git,
    root: &Path,
    now: &State,
    to: &State,
) -> Result<(), CheckpointError> {
    let kept = &now.manifest.skipped;
    let mut project = Project {
        root,
        verified: HashSet::new(),
    };

    for path in now.entries.keys() {
        if !to.entries.contains_key(path) && !kept.contains(path) {
            project.remove_file(path)?;
        }
    }
    for path in now.manifest.dirs.keys().rev() {
        if !to.manifest.dirs.contains_key(path) {
            project.remove_empty_dir(path)?;
        }
    }
    for path in to.manifest.dirs.keys() {
        project.dir(path, true)?;
    }

    let mut writes = Vec::new();
    for (path, entry) in &to.entries {
        if kept.contains(path) {
            continue;
        }
        let same = now.entries.get(path).is_some_and(|before| {
            before.oid() == entry.oid()
                && matches!(before, Entry::Symlink { .. }) == matches!(entry, Entry::Symlink { .. })
        });
        let mode = match entry {
            Entry::File { executable, .. } => Some(to.manifest.file_mode(path, *executable)),
            Entry::Symlink { .. } => None,
        };
        if !same {
            writes.push((path.as_path(), entry, mode));
        } else if let (Some(mode), Entry::File { .. }) = (mode, entry) {
            project.set_file_mode(path, mode)?;
        }
    }
    write_blobs(git, &mut project, &writes)?;

    for (path, mode) in to.manifest.dirs.iter().rev() {
        project.set_dir_mode(path, *mode)?;
    }
    Ok(())
}

/// Writes each `(path, entry, mode)` with its blob's content, read through one
/// `git cat-file --batch`.
fn write_blobs(
    git: &Git,
    project: &mut Project<'_>,
    writes: &[(&Path, &Entry, Option<u32>)],
) -> Result<(), CheckpointError> {
    if writes.is_empty() {
        return Ok(());
    }
    let mut child = git.spawn_piped(["cat-file", "--batch"])?;
    let (Some(mut stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
        return Err(output_error("no pipes to git"));
    };
    let oids: Vec<String> = writes
        .iter()
        .map(|(_, entry, _)| entry.oid().to_string())
        .collect();
    let feeder = std::thread::spawn(move || -> std::io::Result<()> {
        for oid in oids {
            stdin.write_all(oid.as_bytes())?;
            stdin.write_all(b"\n")?;
        }
        Ok(())
    });
    let mut reader = BufReader::new(stdout);
    let mut written = Ok(());
    for (path, entry, mode) in writes {
        let content = match read_blob(&mut reader, entry.oid()) {
            Ok(content) => content,
            Err(err) => {
                written = Err(err);
                break;
            }
        };
        if let Err(err) = project.write(path, &content, *mode) {
            written = Err(err);
            break;
        }
    }
    drop(reader);
    let _ = feeder.join();
    let stderr = child.stderr.take().map(git::read_all).transpose();
    let status = child
        .wait()
        .map_err(CheckpointError::io("waiting for", "git cat-file"))?;
    written?;
    if !status.success() {
        let stderr = stderr.ok().flatten().unwrap_or_default();
        return Err(git::failure("cat-file --batch", &status, &stderr));
    }
    Ok(())
}

/// Reads one `OID TYPE SIZE\n<content>\n` answer of `cat-file --batch`.
fn read_blob(reader: &mut impl BufRead, oid: &str) -> Result<Vec<u8>, CheckpointError> {
    let mut header = String::new();
    reader
        .read_line(&mut header)
        .map_err(CheckpointError::io("reading from", "git cat-file"))?;
    let mut fields = header.trim_end().split(' ');
    let size = match (fields.next(), fields.next(), fields.next()) {
        (Some(found), Some("blob"), Some(size)) if found == oid => size.parse::<usize>().ok(),
        _ => None,
    }
    .ok_or_else(|| {
        output_error(&format!(
            "expected blob {oid}, read `{}`",
            header.trim_end()
        ))
    })?;
    let mut content = vec![0; size + 1];
    reader
        .read_exact(&mut content)
        .map_err(CheckpointError::io("reading from", "git cat-file"))?;
    content.pop();
    Ok(content)
}

fn output_error(detail: &str) -> CheckpointError {
    CheckpointError::GitOutput {
        command: "cat-file --batch".into(),
        detail: detail.into(),
    }
}

/// The project's files, reached only through directories checked to be real ones.
struct Project<'a> {
    root: &'a Path,
    /// Directories (relative) already checked or made on this restore.
    verified: HashSet<PathBuf>,
}

impl Project<'_> {
    /// Checks that every directory of `dir` (relative) is a real directory, making missing
    /// ones when `create`; `Ok(false)` when one is missing and not made.
    fn dir(&mut self, dir: &Path, create: bool) -> Result<bool, CheckpointError> {
        check_relative(dir)?;
        let mut partial = PathBuf::new();
        for component in dir.components() {
            partial.push(component);
            if self.verified.contains(&partial) {
                continue;
            }
            let full = self.root.join(&partial);
            match fs::symlink_metadata(&full) {
                Ok(meta) if meta.file_type().is_dir() => {}
                Ok(_) => {
                    return Err(CheckpointError::UnsafePath {
                        path: partial,
                        reason: "a symbolic link or a file not in the snapshot is where it needs a directory",
                    });
                }
                Err(err) if err.kind() == std::io::ErrorKind::NotFound && create => {
                    fs::create_dir(&full).map_err(CheckpointError::io("creating", &full))?;
                }
                Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(false),
                Err(err) => return Err(CheckpointError::io("examining", full)(err)),
            }
            self.verified.insert(partial.clone());
        }
        Ok(true)
    }

    /// Checks the directories above `path` without making any; `Ok(false)` if one is missing.
    fn parent(&mut self, path: &Path, create: bool) -> Result<bool, CheckpointError> {
        check_relative(path)?;
        match path.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => self.dir(parent, create),
            _ => Ok(true),
        }
    }

    fn remove_file(&mut self, path: &Path) -> Result<(), CheckpointError> {
        if !self.parent(path, false)? {
            return Ok(());
        }
        let full = self.root.join(path);
        match fs::remove_file(&full) {
            Err(err) if err.kind() != std::io::ErrorKind::NotFound => {
                Err(CheckpointError::io("removing", full)(err))
            }
            _ => Ok(()),
        }
    }

    /// Removes the directory `path` if it is empty: one holding files the snapshots do not
    /// capture (ignored, too large) stays.
    fn remove_empty_dir(&mut self, path: &Path) -> Result<(), CheckpointError> {
        if !self.parent(path, false)? {
            return Ok(());
        }
        let full = self.root.join(path);
        match fs::symlink_metadata(&full) {
            Ok(meta) if meta.file_type().is_dir() => {}
            _ => return Ok(()),
        }
        match fs::remove_dir(&full) {
            Ok(()) => {
                self.verified.remove(path);
                Ok(())
            }
            Err(err)
                if matches!(
                    err.kind(),
                    std::io::ErrorKind::NotFound | std::io::ErrorKind::DirectoryNotEmpty
                ) =>
            {
                Ok(())
            }
            Err(err) => Err(CheckpointError::io("removing", full)(err)),
        }
    }

    /// Writes `content` at `path`: a regular file with `mode`, or (no mode) a symbolic link
    /// to `content`. A temporary file beside it, then a rename, so a reader never sees half.
    fn write(
        &mut self,
        path: &Path,
        content: &[u8],
        mode: Option<u32>,
    ) -> Result<(), CheckpointError> {
        self.parent(path, true)?;
        let full = self.root.join(path);
        let temp = temporary_beside(&full);
        let made = match mode {
            Some(mode) => write_new_file(&temp, content, mode),
            None => {
                use std::os::unix::ffi::OsStrExt;
                let target = std::ffi::OsStr::from_bytes(content);
                std::os::unix::fs::symlink(target, &temp)
            }
        };
        let renamed = made.and_then(|()| fs::rename(&temp, &full));
        if let Err(err) = renamed {
            let _ = fs::remove_file(&temp);
            return Err(CheckpointError::io("writing", full)(err));
        }
        Ok(())
    }

    fn set_file_mode(&mut self, path: &Path, mode: u32) -> Result<(), CheckpointError> {
        if !self.parent(path, false)? {
            return Ok(());
        }
        let full = self.root.join(path);
        set_mode_if(&full, mode, |meta| meta.file_type().is_file())
    }

    fn set_dir_mode(&mut self, path: &Path, mode: u32) -> Result<(), CheckpointError> {
        if !self.parent(path, false)? {
            return Ok(());
        }
        let full = self.root.join(path);
        set_mode_if(&full, mode, |meta| meta.file_type().is_dir())
    }
}

/// Sets `full`'s permission bits to `mode` when it is there, passes `is_kind` (never
/// through a symbolic link), and has other bits.
fn set_mode_if(
    full: &Path,
    mode: u32,
    is_kind: impl Fn(&fs::Metadata) -> bool,
) -> Result<(), CheckpointError> {
    match fs::symlink_metadata(full) {
        Ok(meta) if is_kind(&meta) && meta.permissions().mode() & MODE_BITS != mode => {
            fs::set_permissions(full, fs::Permissions::from_mode(mode))
                .map_err(CheckpointError::io("setting the mode of", full))
        }
        _ => Ok(()),
    }
}

fn write_new_file(path: &Path, content: &[u8], mode: u32) -> std::io::Result<()> {
    use std::os::unix::fs::OpenOptionsExt;
    let mut file = fs::OpenOptions::new()
        .write(true)
        // O_CREAT | O_EXCL: never an existing file, nor a symbolic link placed there.
        .create_new(true)
        .mode(0o600)
        .open(path)?;
    file.write_all(content)?;
    // Set after writing, and explicitly: the umask must not decide, and a read-only mode
    // must not stop the write.
    file.set_permissions(fs::Permissions::from_mode(mode))
}

fn temporary_beside(full: &Path) -> PathBuf {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let name = format!(
        ".wright-restore-{}-{}.tmp",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    );
    full.with_file_name(name)
}

/// Refuses a path that is absolute, climbs with `..`, or enters a `.git` directory.
fn check_relative(path: &Path) -> Result<(), CheckpointError> {
    for component in path.components() {
        let reason = match component {
            Component::Normal(name) if name.eq_ignore_ascii_case(".git") => {
                "it is inside a .git directory"
            }
            Component::Normal(_) => continue,
            _ => "it is not a plain path inside the project",
        };
        return Err(CheckpointError::UnsafePath {
            path: path.to_path_buf(),
            reason,
        });
    }
    Ok(())
}
