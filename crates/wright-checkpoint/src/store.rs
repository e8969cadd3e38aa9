//! The checkpoint store of one project: opening it, snapshots, changes, diffs, restores and
//! pruning.

use std::collections::HashSet;
use std::ffi::OsStr;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::error::CheckpointError;
use crate::git::Git;
use crate::manifest::{Manifest, exact_pattern};
use crate::prune::{self, Pruned};
use crate::restore;
use crate::stat_cache::{self, Changed, StatCache, Stats};
use crate::tree::{self, FileChange, State};

/// The ref that keeps the current chain of snapshots reachable (so `git gc` keeps them).
const HEAD_REF: &str = "refs/wright/checkpoints";
/// Where [`CheckpointStore::prune`] keeps earlier chains, one ref per chain's last snapshot,
/// named `<nanoseconds since the epoch when closed>-<tip>`.
const SEGMENT_REFS: &str = "refs/wright/segments/";

/// The shadow's attributes, ahead of any `.gitattributes` of the project: no line-ending
/// conversion, no filters, no `$Id$` expansion, no re-encoding, so the stored bytes are the
/// file's bytes (and a project's filter settings are not even looked for).
const ATTRIBUTES: &str = "* -text -eol -filter -ident -working-tree-encoding\n";

/// How checkpoints are taken.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckpointSettings {
    /// Files larger than this many bytes are not captured; each snapshot lists them as skipped.
    pub max_file_bytes: u64,
}

impl CheckpointSettings {
    /// The default size cap: 16 MiB, above any source file and below most build artefacts,
    /// datasets and media (issue 13: "a size cap for huge files, stated in the docs").
    pub const DEFAULT_MAX_FILE_BYTES: u64 = 16 * 1024 * 1024;
}

impl Default for CheckpointSettings {
    fn default() -> Self {
        Self {
            max_file_bytes: Self::DEFAULT_MAX_FILE_BYTES,
        }
    }
}

/// A snapshot's id: the hash of its commit in the shadow repository.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CheckpointId(String);

impl CheckpointId {
    /// Reads an id (for example from a session record): 40 or 64 hexadecimal digits.
    pub fn parse(text: &str) -> Result<Self, CheckpointError> {
        let hex = text.len() == 40 || text.len() == 64;
        if hex && text.bytes().all(|b| b.is_ascii_hexdigit()) {
            Ok(Self(text.to_ascii_lowercase()))
        } else {
            Err(CheckpointError::BadId(text.to_string()))
        }
    }

    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for CheckpointId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// A snapshot just taken.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Snapshot {
    /// Its id; the previous snapshot's id when nothing changed since.
    pub id: CheckpointId,
    /// Files not captured (over [`CheckpointSettings::max_file_bytes`], or unreadable),
    /// relative to the project, in path order.
    pub skipped: Vec<PathBuf>,
}

/// What a restore did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Restore {
    /// The snapshot of the project taken just before the restore: restoring it undoes the
    /// restore.
    pub previous: CheckpointId,
    /// What the restore changed, from the project as it was to the restored snapshot.
    pub changed: Vec<FileChange>,
    /// Files left as they were because the snapshots do not capture them (over the size cap).
    pub skipped: Vec<PathBuf>,
}

/// The snapshots of one project, kept in a shadow git repository under a state directory.
#[derive(Debug)]
pub struct CheckpointStore {
    git: Git,
    state_dir: PathBuf,
    project_root: PathBuf,
    settings: CheckpointSettings,
    /// The last snapshot's walk, so that the next one hands git only what changed
    /// (`stat_cache.rs`); also kept in the state directory for the next process.
    stat_cache: Mutex<Option<StatCache>>,
}

/// The last snapshot taken, remembered so that an unchanged project costs no git objects.
struct Last {
    commit: String,
    files_tree: String,
    manifest_blob: String,
    manifest: Vec<u8>,
}

impl CheckpointStore {
    /// Opens the store of the project at `project_root` kept in `state_dir` (for wright,
    /// `$WRIGHT_HOME/checkpoints/<project-key>/`), making the shadow repository on first use.
    pub fn open(
        state_dir: &Path,
        project_root: &Path,
        settings: CheckpointSettings,
    ) -> Result<Self, CheckpointError> {
        let project_root = fs::canonicalize(project_root)
            .ok()
            .filter(|root| root.is_dir())
            .ok_or_else(|| CheckpointError::ProjectMissing {
                path: project_root.to_path_buf(),
            })?;
        fs::create_dir_all(state_dir).map_err(CheckpointError::io("creating", state_dir))?;
        let state_dir =
            fs::canonicalize(state_dir).map_err(CheckpointError::io("opening", state_dir))?;
        let git = Git::new(
            state_dir.join("repo"),
            project_root.clone(),
            state_dir.clone(),
        );
        let store = Self {
            git,
            state_dir,
            project_root,
            settings,
            stat_cache: Mutex::new(None),
        };
        let _lock = store.lock()?;
        if !store.git.git_dir().join("HEAD").is_file() {
            store.git.init()?;
        }
        let info = store.git.git_dir().join("info");
        fs::create_dir_all(&info).map_err(CheckpointError::io("creating", &info))?;
        write_if_changed(&info.join("attributes"), ATTRIBUTES.as_bytes())?;
        Ok(store)
    }

    /// The project this store snapshots (canonical).
    pub fn project_root(&self) -> &Path {
        &self.project_root
    }

    /// Records the project's files as they are now, with `label` as the commit's subject.
    /// When nothing changed since the last snapshot, returns the last one's id.
    pub fn snapshot(&self, label: &str) -> Result<Snapshot, CheckpointError> {
        let _lock = self.lock()?;
        self.snapshot_locked(label)
    }

    /// What changed from `from` to `to` (`None`: the project as it is now, snapshotted first).
    pub fn changes(
        &self,
        from: &CheckpointId,
        to: Option<&CheckpointId>,
    ) -> Result<Vec<FileChange>, CheckpointError> {
        let _lock = self.lock()?;
        let before = self.state(from)?;
        let to = self.target(to)?;
        Ok(tree::compare(&before, &self.state(&to)?))
    }

    /// The git blob id each of `paths` (relative to the project root) had in snapshot `at`:
    /// the content of a regular file, or a symbolic link's target; `None` for a path the
    /// snapshot does not hold as a file. The ids are git's (SHA-1 of the raw content), so they
    /// compare with the project's own repository when it stores the content unconverted.
    pub fn blob_ids(
        &self,
        at: &CheckpointId,
        paths: &[PathBuf],
    ) -> Result<Vec<Option<String>>, CheckpointError> {
        let _lock = self.lock()?;
        let state = self.state(at)?;
        Ok(paths
            .iter()
            .map(|path| state.entries.get(path).map(|e| e.oid().to_string()))
            .collect())
    }

    /// The unified diff from `from` to `to` (`None`: the project now, snapshotted first), paths
    /// relative to the project as `a/PATH` and `b/PATH`, binary files as "Binary files ...
    /// differ". Permission bits beyond git's and empty directories show in
    /// [`CheckpointStore::changes`], not here.
    pub fn diff(
        &self,
        from: &CheckpointId,
        to: Option<&CheckpointId>,
    ) -> Result<String, CheckpointError> {
        let _lock = self.lock()?;
        self.state(from)?;
        let to = self.target(to)?;
        let output = self.git.run([
            "diff".to_string(),
            "--no-color".into(),
            "--no-ext-diff".into(),
            "--no-textconv".into(),
            "--no-renames".into(),
            format!("{from}:files"),
            format!("{to}:files"),
        ])?;
        Ok(String::from_utf8_lossy(&output).into_owned())
    }

    /// Makes the project's captured files exactly as in `to`, after snapshotting them as they
    /// are (see [`Restore::previous`]). Ignored files, `.git` and files over the size cap are
    /// left as they are.
    pub fn restore(&self, to: &CheckpointId) -> Result<Restore, CheckpointError> {
        self.restore_within(to, None)
    }

    /// Like [`restore`](Self::restore), but only `paths` (relative to the project; a directory
    /// with all it holds) are made as in `to`: everything else stays as it is now. For taking
    /// back what the agent changed without undoing what the user changed elsewhere since.
    pub fn restore_only(
        &self,
        to: &CheckpointId,
        paths: &[PathBuf],
    ) -> Result<Restore, CheckpointError> {
        let only: std::collections::BTreeSet<PathBuf> = paths.iter().cloned().collect();
        self.restore_within(to, Some(&only))
    }

    /// The restore of `to`, over every captured path or over `only` (and what lies under it).
    fn restore_within(
        &self,
        to: &CheckpointId,
        only: Option<&std::collections::BTreeSet<PathBuf>>,
    ) -> Result<Restore, CheckpointError> {
        let _lock = self.lock()?;
        let narrow = |state: tree::State| match only {
            Some(only) => state.only(only),
            None => state,
        };
        let target = narrow(self.state(to)?);
        let previous = self.snapshot_locked(&format!("before restoring {to}"))?;
        let now = narrow(self.state(&previous.id)?);
        let changed = tree::compare(&now, &target);
        restore::apply(&self.git, &self.project_root, &now, &target)?;
        Ok(Restore {
            previous: previous.id,
            changed,
            skipped: previous.skipped,
        })
    }

    /// Drops snapshots older than `keep`, then, with `max_bytes`, the oldest chains of
    /// snapshots until the store's size on disk is at most `max_bytes`; and the objects only
    /// the dropped snapshots used.
    ///
    /// Snapshots form chains; each call closes the current chain (the next snapshot starts a
    /// new one) and drops every chain whose last snapshot is older than `keep`, so a snapshot
    /// lives at least `keep`, and at most `keep` plus the time between two calls. The size cap
    /// never drops the newest chain — the one the current chain was, which holds the running
    /// session's latest snapshots — so when that chain alone is over the cap, it is all that is
    /// kept and [`Pruned::over_cap`] says so. Each chain dropped for size costs a `git gc`
    /// (only then is the space it held known to be freed).
    pub fn prune(&self, keep: Duration, max_bytes: Option<u64>) -> Result<Pruned, CheckpointError> {
        let _lock = self.lock()?;
        let cutoff = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default()
            .saturating_sub(keep)
            .as_secs();
        let listing = self.git.run([
            "for-each-ref",
            "--format=%(objectname) %(committerdate:unix) %(refname)",
            "refs/wright/",
        ])?;
        let mut chains_dropped = 0;
        let mut kept = Vec::new();
        let mut current = None;
        for mut chain in prune::parse_chains(&String::from_utf8_lossy(&listing)) {
            if chain.expired(cutoff) {
                self.git.run(["update-ref", "-d", chain.refname.as_str()])?;
                chains_dropped += 1;
                continue;
            }
            if chain.refname == HEAD_REF {
                // Named by when it was closed, so that chains closed within the same second
                // (dates have seconds only) still sort oldest first by name.
                let closed = SystemTime::now()
                    .duration_since(UNIX_EPOCH)
                    .map_or(0, |since| since.as_nanos());
                let segment = format!("{SEGMENT_REFS}{closed:020}-{}", chain.tip);
                self.git
                    .run(["update-ref", segment.as_str(), chain.tip.as_str()])?;
                self.git.run(["update-ref", "-d", HEAD_REF])?;
                chain.refname = segment.clone();
                current = Some(segment);
            }
            kept.push(chain);
        }
        // The next snapshot starts a new chain, so it must not take the last one as parent.
        let last = self.last_path();
        if last.exists() {
            fs::remove_file(&last).map_err(CheckpointError::io("removing", &last))?;
        }
        if chains_dropped > 0 {
            self.gc()?;
        }
        let Some(max_bytes) = max_bytes else {
            return Ok(Pruned {
                chains_dropped,
                store_bytes: None,
                over_cap: false,
            });
        };
        let mut size = self.size_on_disk()?;
        for chain in prune::droppable_oldest_first(kept, current.as_deref()) {
            if size <= max_bytes {
                break;
            }
            self.git.run(["update-ref", "-d", chain.refname.as_str()])?;
            chains_dropped += 1;
            self.gc()?;
            size = self.size_on_disk()?;
        }
        Ok(Pruned {
            chains_dropped,
            store_bytes: Some(size),
            over_cap: size > max_bytes,
        })
    }

    /// Deletes the objects no kept snapshot uses.
    fn gc(&self) -> Result<(), CheckpointError> {
        self.git.run(["gc", "--quiet", "--prune=now"]).map(|_| ())
    }

    /// The shadow repository's size on disk, in bytes: loose objects and packs.
    fn size_on_disk(&self) -> Result<u64, CheckpointError> {
        let output = self.git.run(["count-objects", "-v"])?;
        prune::parse_store_size(&String::from_utf8_lossy(&output)).ok_or_else(|| {
            CheckpointError::GitOutput {
                command: "count-objects -v".to_string(),
                detail: "no size or size-pack line".to_string(),
            }
        })
    }

    /// Deletes the whole store (for example when the project's sessions are all removed).
    pub fn remove(self) -> Result<(), CheckpointError> {
        fs::remove_dir_all(&self.state_dir)
            .map_err(CheckpointError::io("removing", &self.state_dir))
    }

    fn snapshot_locked(&self, label: &str) -> Result<Snapshot, CheckpointError> {
        if !self.project_root.is_dir() {
            return Err(CheckpointError::ProjectMissing {
                path: self.project_root.clone(),
            });
        }
        let walked_at = stat_cache::now();
        let (manifest, stats) = Manifest::walk(&self.project_root, self.settings.max_file_bytes);
        let skipped: Vec<PathBuf> = manifest.skipped.iter().cloned().collect();
        let manifest_bytes = manifest.to_bytes();
        let last = self.read_last();
        let cache = self.take_stat_cache(last.as_ref().map(|last| last.commit.as_str()));
        let changed = cache.as_ref().map(|cache| cache.changes(&stats));
        if let (Some(last), Some(cache), Some(changed)) = (&last, cache, &changed)
            && changed.is_empty()
            && last.manifest == manifest_bytes
        {
            let id = CheckpointId(last.commit.clone());
            *self.stat_cache_slot() = Some(cache);
            return Ok(Snapshot { id, skipped });
        }
        // The index changes now: the walk is trusted again only once this snapshot is
        // committed, so a failure or a crash from here on leaves none to compare with.
        self.forget_stored_stat_cache()?;
        match &changed {
            Some(changed) => self.update_index(changed)?,
            None => self.add_all(&skipped, &stats)?,
        }
        let files_tree = trimmed(self.git.run(["write-tree"])?);
        let manifest_blob = match &last {
            Some(last) if last.manifest == manifest_bytes => last.manifest_blob.clone(),
            _ => trimmed(
                self.git
                    .run_with_input(["hash-object", "-w", "--stdin"], Some(&manifest_bytes))?,
            ),
        };
        if let Some(last) = &last
            && last.files_tree == files_tree
            && last.manifest_blob == manifest_blob
        {
            self.keep_stat_cache(StatCache {
                commit: last.commit.clone(),
                walked_at,
                stats,
            });
            return Ok(Snapshot {
                id: CheckpointId(last.commit.clone()),
                skipped,
            });
        }

        let listing =
            format!("040000 tree {files_tree}\tfiles\n100644 blob {manifest_blob}\tmanifest\n");
        let top = trimmed(
            self.git
                .run_with_input(["mktree"], Some(listing.as_bytes()))?,
        );
        let parent = match &last {
            Some(last) => Some(last.commit.clone()),
            None => self.head()?,
        };
        let mut args = vec!["commit-tree".to_string(), top];
        if let Some(parent) = &parent {
            args.extend(["-p".to_string(), parent.clone()]);
        }
        let message = format!("{label}\n\nwright-manifest: {manifest_blob}\n");
        args.extend(["-m".to_string(), message]);
        let commit = trimmed(self.git.run(&args)?);
        let mut update = vec![
            "update-ref".to_string(),
            HEAD_REF.to_string(),
            commit.clone(),
        ];
        update.extend(parent);
        self.git.run(&update)?;
        self.write_last(&Last {
            commit: commit.clone(),
            files_tree,
            manifest_blob,
            manifest: manifest_bytes,
        })?;
        self.keep_stat_cache(StatCache {
            commit: commit.clone(),
            walked_at,
            stats,
        });
        Ok(Snapshot {
            id: CheckpointId(commit),
            skipped,
        })
    }

    /// `to`, or a snapshot of the project as it is now.
    fn target(&self, to: Option<&CheckpointId>) -> Result<CheckpointId, CheckpointError> {
        match to {
            Some(to) => {
                self.state(to)?;
                Ok(to.clone())
            }
            None => Ok(self.snapshot_locked("the project as it was compared")?.id),
        }
    }

    /// The snapshot `id` read back: its files and manifest.
    fn state(&self, id: &CheckpointId) -> Result<State, CheckpointError> {
        let unknown = |_| CheckpointError::UnknownCheckpoint(id.to_string());
        let manifest_bytes = self
            .git
            .run(["cat-file", "blob", &format!("{id}:manifest")])
            .map_err(|err| match err {
                CheckpointError::Git { .. } => unknown(()),
                other => other,
            })?;
        let manifest =
            Manifest::parse(&manifest_bytes).map_err(|detail| CheckpointError::BadManifest {
                id: id.to_string(),
                detail,
            })?;
        let listing =
            self.git
                .run(["ls-tree", "-r", "-z", "--full-tree", &format!("{id}:files")])?;
        let entries =
            tree::parse_ls_tree(&listing).map_err(|detail| CheckpointError::GitOutput {
                command: format!("ls-tree -r {id}:files"),
                detail,
            })?;
        Ok(State { entries, manifest })
    }

    /// The current chain's last commit, if there is one.
    fn head(&self) -> Result<Option<String>, CheckpointError> {
        let output = self
            .git
            .run(["for-each-ref", "--format=%(objectname)", HEAD_REF])?;
        let head = trimmed(output);
        Ok((!head.is_empty()).then_some(head))
    }

    /// Brings the index to the walk's `stats` with no earlier walk to compare with: `git add
    /// --all` (which stat-checks every file and looks for new ones), then the index made the
    /// walk's exactly — git keeps files it tracks once they are ignored, and its ignore rules
    /// may differ from the walk's at the edges — so the next snapshots, which hand git only
    /// what the walk saw change, start from the walk's view.
    fn add_all(&self, skipped: &[PathBuf], stats: &Stats) -> Result<(), CheckpointError> {
        if self.write_exclude(skipped)? && !skipped.is_empty() {
            // A file that grew past the cap may be in the index from an earlier snapshot; the
            // exclude file keeps untracked ones out, this takes tracked ones out before
            // `add` would read them.
            self.git.run_with_input(
                ["update-index", "--force-remove", "-z", "--stdin"],
                Some(&nul_separated(skipped)),
            )?;
        }
        self.git.run(["add", "--all"])?;
        let listing = self.git.run(["ls-files", "-z"])?;
        let indexed: HashSet<&Path> = listing
            .split(|&byte| byte == 0)
            .filter(|path| !path.is_empty())
            .map(|path| Path::new(OsStr::from_bytes(path)))
            .collect();
        let mut changed = Changed {
            removed: indexed
                .iter()
                .filter(|path| !stats.contains_key(**path))
                .map(|path| path.to_path_buf())
                .collect(),
            updated: stats
                .keys()
                .filter(|path| !indexed.contains(path.as_path()))
                .cloned()
                .collect(),
        };
        changed.removed.sort_unstable();
        changed.updated.sort_unstable();
        self.update_index(&changed)
    }

    /// Hands git the paths the walk saw change: those gone from the walk taken out of the index
    /// whatever is on disk, the others added, updated or removed as they are on disk.
    fn update_index(&self, changed: &Changed) -> Result<(), CheckpointError> {
        if !changed.removed.is_empty() {
            self.git.run_with_input(
                ["update-index", "--force-remove", "-z", "--stdin"],
                Some(&nul_separated(&changed.removed)),
            )?;
        }
        if !changed.updated.is_empty() {
            self.git.run_with_input(
                [
                    "update-index",
                    "--add",
                    "--remove",
                    "--replace",
                    "-z",
                    "--stdin",
                ],
                Some(&nul_separated(&changed.updated)),
            )?;
        }
        Ok(())
    }

    fn stat_cache_slot(&self) -> std::sync::MutexGuard<'_, Option<StatCache>> {
        self.stat_cache
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    fn stat_cache_path(&self) -> PathBuf {
        self.state_dir.join("stat-cache")
    }

    /// The last snapshot's walk if it belongs to `last_commit` (the store's last snapshot):
    /// this process's, or else the one kept in the state directory. It is no longer kept in
    /// memory; [`CheckpointStore::forget_stored_stat_cache`] forgets the stored one.
    fn take_stat_cache(&self, last_commit: Option<&str>) -> Option<StatCache> {
        let last_commit = last_commit?;
        let in_memory = self.stat_cache_slot().take();
        in_memory
            .filter(|cache| cache.commit == last_commit)
            .or_else(|| {
                let bytes = fs::read(self.stat_cache_path()).ok()?;
                StatCache::parse(&bytes).filter(|cache| cache.commit == last_commit)
            })
    }

    /// Removes the walk kept in the state directory, before the index changes under it.
    fn forget_stored_stat_cache(&self) -> Result<(), CheckpointError> {
        let path = self.stat_cache_path();
        match fs::remove_file(&path) {
            Err(err) if err.kind() != std::io::ErrorKind::NotFound => {
                Err(CheckpointError::io("removing", path)(err))
            }
            _ => Ok(()),
        }
    }

    /// Keeps `cache`, the walk of the snapshot just committed, in memory and in the state
    /// directory.
    fn keep_stat_cache(&self, cache: StatCache) {
        let path = self.stat_cache_path();
        let temp = path.with_extension("tmp");
        // Only a speed-up: when it cannot be written, the next process's first snapshot runs
        // `git add --all` as if there were none.
        if fs::write(&temp, cache.to_bytes()).is_ok() {
            let _ = fs::rename(&temp, &path);
        }
        *self.stat_cache_slot() = Some(cache);
    }

    /// Writes the shadow's `info/exclude`: the project's own `.git/info/exclude`, then the
    /// skipped files. Returns whether it changed.
    fn write_exclude(&self, skipped: &[PathBuf]) -> Result<bool, CheckpointError> {
        let mut exclude = fs::read(self.project_root.join(".git/info/exclude")).unwrap_or_default();
        exclude.extend_from_slice(b"\n# wright: files over the size cap\n");
        for pattern in skipped.iter().filter_map(|path| exact_pattern(path)) {
            exclude.extend_from_slice(&pattern);
            exclude.push(b'\n');
        }
        write_if_changed(&self.git.git_dir().join("info/exclude"), &exclude)
    }

    fn lock(&self) -> Result<fs::File, CheckpointError> {
        let path = self.state_dir.join("lock");
        let file = fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(CheckpointError::io("opening", &path))?;
        file.lock().map_err(CheckpointError::io("locking", &path))?;
        Ok(file)
    }

    fn last_path(&self) -> PathBuf {
        self.state_dir.join("last-snapshot")
    }

    /// The last snapshot, or `None` when there is none or the file is damaged (the next
    /// snapshot then asks git).
    fn read_last(&self) -> Option<Last> {
        let bytes = fs::read(self.last_path()).ok()?;
        let newline = bytes.iter().position(|&b| b == b'\n')?;
        let head = std::str::from_utf8(&bytes[..newline]).ok()?;
        let mut fields = head.split(' ');
        let (commit, files_tree, manifest_blob) = (fields.next()?, fields.next()?, fields.next()?);
        Some(Last {
            commit: commit.to_string(),
            files_tree: files_tree.to_string(),
            manifest_blob: manifest_blob.to_string(),
            manifest: bytes[newline + 1..].to_vec(),
        })
    }

    fn write_last(&self, last: &Last) -> Result<(), CheckpointError> {
        let mut bytes = format!(
            "{} {} {}\n",
            last.commit, last.files_tree, last.manifest_blob
        )
        .into_bytes();
        bytes.extend_from_slice(&last.manifest);
        let path = self.last_path();
        let temp = path.with_extension("tmp");
        fs::write(&temp, &bytes).map_err(CheckpointError::io("writing", &temp))?;
        fs::rename(&temp, &path).map_err(CheckpointError::io("writing", &path))
    }
}

/// Writes `bytes` to `path` unless it holds them already; returns whether it wrote.
fn write_if_changed(path: &Path, bytes: &[u8]) -> Result<bool, CheckpointError> {
    if fs::read(path).is_ok_and(|old| old == bytes) {
        return Ok(false);
    }
    fs::write(path, bytes).map_err(CheckpointError::io("writing", path))?;
    Ok(true)
}

/// `paths` as `git ... -z --stdin` reads them.
fn nul_separated(paths: &[PathBuf]) -> Vec<u8> {
    let mut list = Vec::with_capacity(paths.len() * 32);
    for path in paths {
        list.extend_from_slice(path.as_os_str().as_bytes());
        list.push(0);
    }
    list
}

fn trimmed(output: Vec<u8>) -> String {
    String::from_utf8_lossy(&output).trim().to_string()
}
