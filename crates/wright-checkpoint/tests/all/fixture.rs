//! Projects to snapshot, and a capture of a tree precise enough to say "byte for byte and mode
//! for mode".

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::{Path, PathBuf};
use std::process::Command;

use tempfile::TempDir;
use wright_checkpoint::{CheckpointSettings, CheckpointStore};

/// The size cap of the tests' stores.
pub const CAP: u64 = 1024;

/// One path of a captured tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Node {
    File { bytes: Vec<u8>, mode: u32 },
    Link(PathBuf),
    Dir { mode: u32 },
}

/// Every path under `root` except inside `.git`: content, permission bits, link targets,
/// directories.
pub fn capture(root: &Path) -> BTreeMap<PathBuf, Node> {
    let mut tree = BTreeMap::new();
    capture_into(root, Path::new(""), &mut tree);
    tree
}

fn capture_into(root: &Path, rel: &Path, tree: &mut BTreeMap<PathBuf, Node>) {
    for entry in fs::read_dir(root.join(rel)).unwrap() {
        let entry = entry.unwrap();
        if entry.file_name() == ".git" {
            continue;
        }
        let path = rel.join(entry.file_name());
        let full = root.join(&path);
        let meta = fs::symlink_metadata(&full).unwrap();
        let mode = meta.permissions().mode() & 0o7777;
        if meta.file_type().is_symlink() {
            tree.insert(path, Node::Link(fs::read_link(&full).unwrap()));
        } else if meta.is_dir() {
            tree.insert(path.clone(), Node::Dir { mode });
            capture_into(root, &path, tree);
        } else {
            let bytes = fs::read(&full).unwrap();
            tree.insert(path, Node::File { bytes, mode });
        }
    }
}

/// A project and the state directory of its store.
pub struct Fixture {
    pub project: TempDir,
    pub state: TempDir,
    pub store: CheckpointStore,
}

impl Fixture {
    /// An empty project, with its own git repository or without.
    pub fn new(with_git: bool) -> Fixture {
        let project = TempDir::new().unwrap();
        let state = TempDir::new().unwrap();
        if with_git {
            git(project.path(), &["init", "--quiet"]);
        }
        let store = CheckpointStore::open(
            &state.path().join("checkpoints/key"),
            project.path(),
            CheckpointSettings {
                max_file_bytes: CAP,
            },
        )
        .unwrap();
        Fixture {
            project,
            state,
            store,
        }
    }

    /// The store's state directory.
    pub fn state_dir(&self) -> PathBuf {
        self.state.path().join("checkpoints/key")
    }

    /// Opens the store again, as a new wright process would.
    pub fn reopen(&mut self) {
        self.store = CheckpointStore::open(
            &self.state_dir(),
            self.project.path(),
            CheckpointSettings {
                max_file_bytes: CAP,
            },
        )
        .unwrap();
    }

    pub fn root(&self) -> &Path {
        self.project.path()
    }

    pub fn write(&self, path: &str, bytes: &[u8]) {
        let full = self.root().join(path);
        fs::create_dir_all(full.parent().unwrap()).unwrap();
        fs::write(full, bytes).unwrap();
    }

    pub fn chmod(&self, path: &str, mode: u32) {
        fs::set_permissions(self.root().join(path), fs::Permissions::from_mode(mode)).unwrap();
    }

    pub fn mkdir(&self, path: &str) {
        fs::create_dir_all(self.root().join(path)).unwrap();
    }

    pub fn link(&self, target: &str, path: &str) {
        symlink(target, self.root().join(path)).unwrap();
    }

    pub fn remove(&self, path: &str) {
        let full = self.root().join(path);
        if fs::symlink_metadata(&full).unwrap().is_dir() {
            fs::remove_dir_all(full).unwrap();
        } else {
            fs::remove_file(full).unwrap();
        }
    }

    /// The project as the tests start it: sources, a script, a private file, a binary file, a
    /// link, an empty directory, a nested directory, and ignored files.
    pub fn with_typical_files(self) -> Fixture {
        self.write(".gitignore", b"target/\n*.log\n");
        self.write("src/main.rs", b"fn main() {\n    println!(\"hello\");\n}\n");
        self.write("src/util/mod.rs", b"pub fn helper() {}\n");
        self.write("run.sh", b"#!/bin/sh\necho run\n");
        self.chmod("run.sh", 0o755);
        self.write("secret.env", b"TOKEN=1\n");
        self.chmod("secret.env", 0o600);
        self.write("data.bin", &[0, 159, 146, 150, 0, 1, 2, 255]);
        self.link("src/main.rs", "main-link");
        self.mkdir("keep_empty");
        self.write("old_dir/old.txt", b"old\n");
        self.write("target/build.out", b"artefact\n");
        self.write("debug.log", b"log line\n");
        self
    }

    /// Every kind of change: created, modified, deleted, chmod (+x, 600 -> 700), a new empty
    /// directory, a removed one, links changed and added, binary content, a file over the cap,
    /// and an ignored file changed.
    pub fn change_everything(&self) {
        self.write("new.txt", b"created\n");
        self.write("src/main.rs", b"fn main() {}\n");
        self.remove("old_dir");
        self.write("tool.py", b"print(1)\n");
        self.chmod("tool.py", 0o755);
        self.chmod("run.sh", 0o644);
        self.chmod("secret.env", 0o700);
        self.mkdir("new_empty/deeper");
        self.remove("keep_empty");
        self.remove("main-link");
        self.link("run.sh", "main-link");
        self.link("../outside", "new-link");
        self.write("data.bin", &[255, 254, 0, 0, 7]);
        self.write("big.bin", &vec![b'x'; CAP as usize + 1]);
        self.write("target/build.out", b"rebuilt\n");
        self.write("src/util/extra.rs", b"// more\n");
    }
}

/// Runs git in `dir` (the project's own repository) with a configuration of its own.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let output = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@t")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@t")
        .output()
        .unwrap();
    assert!(output.status.success(), "git {args:?}: {output:?}");
    String::from_utf8(output.stdout).unwrap()
}

/// The bytes of every file of the project's `.git` that names its state: index, HEAD, refs.
pub fn own_repository_state(root: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut state = BTreeMap::new();
    for name in ["index", "HEAD", "config", "packed-refs"] {
        if let Ok(bytes) = fs::read(root.join(".git").join(name)) {
            state.insert(name.to_string(), bytes);
        }
    }
    state.insert(
        "refs".to_string(),
        git(root, &["for-each-ref"]).into_bytes(),
    );
    state
}
