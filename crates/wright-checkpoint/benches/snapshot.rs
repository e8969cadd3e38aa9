//! What a checkpoint costs a step (issue 13: ~20 ms, at most 40 ms, for an unchanged
//! 10,000-file project): a snapshot when nothing changed, and when 10 files changed.
//!
//! The project: 10,000 files of 100 B to 24 KiB in 500 directories three levels deep, with
//! a `.gitignore` and an ignored build directory, as a mid-sized repository looks.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fs;
use std::path::Path;
use std::time::Duration;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use wright_checkpoint::{CheckpointSettings, CheckpointStore};

/// Files in the project.
const FILES: usize = 10_000;
/// Files per directory: 500 directories.
const FILES_PER_DIR: usize = 20;

/// A deterministic pseudo-random sequence (xorshift), so every run builds the same project.
struct Sequence(u64);

impl Sequence {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

fn file_path(index: usize) -> String {
    let dir = index / FILES_PER_DIR;
    format!(
        "pkg{}/mod{}/part{}/file{index}.rs",
        dir / 50,
        (dir / 10) % 5,
        dir % 10
    )
}

fn build_project(root: &Path) {
    let mut sequence = Sequence(0x9e37_79b9_7f4a_7c15);
    fs::write(root.join(".gitignore"), "target/\n*.tmp\n").unwrap();
    for index in 0..FILES {
        let path = root.join(file_path(index));
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        let size = 100 + (sequence.next() % (24 * 1024)) as usize;
        let line = format!("// line of file {index}: {}\n", sequence.next());
        let content = line.repeat(size / line.len() + 1);
        fs::write(path, &content.as_bytes()[..size]).unwrap();
    }
    fs::create_dir_all(root.join("target/debug")).unwrap();
    for index in 0..200 {
        fs::write(
            root.join(format!("target/debug/artefact{index}.o")),
            [0u8; 4096],
        )
        .unwrap();
    }
}

fn snapshots(c: &mut Criterion) {
    let project = tempfile::TempDir::new().unwrap();
    let state = tempfile::TempDir::new().unwrap();
    build_project(project.path());
    let store =
        CheckpointStore::open(state.path(), project.path(), CheckpointSettings::default()).unwrap();
    store.snapshot("first").unwrap();

    let mut group = c.benchmark_group("snapshot of 10,000 files");
    group.sample_size(30);
    group.measurement_time(Duration::from_secs(5));
    group.bench_function("unchanged", |b| {
        b.iter(|| store.snapshot("unchanged").unwrap())
    });
    let mut round = 0usize;
    group.bench_function("10 files changed", |b| {
        b.iter_batched(
            || {
                round += 1;
                for index in 0..10 {
                    let path = project.path().join(file_path(index * 997 % FILES));
                    fs::write(path, format!("// round {round}\n")).unwrap();
                }
            },
            |()| store.snapshot("changed").unwrap(),
            BatchSize::PerIteration,
        )
    });
    // A new process: the store opened again, with the last walk read from the state
    // directory, and without it (git then stat-checks every file itself).
    let open = || {
        CheckpointStore::open(state.path(), project.path(), CheckpointSettings::default()).unwrap()
    };
    open().snapshot("settled").unwrap();
    group.bench_function("unchanged, store opened again", |b| {
        b.iter(|| open().snapshot("unchanged").unwrap())
    });
    group.bench_function("unchanged, store opened again without the kept walk", |b| {
        b.iter_batched(
            || {
                let _ = fs::remove_file(state.path().join("stat-cache"));
            },
            |()| open().snapshot("unchanged").unwrap(),
            BatchSize::PerIteration,
        )
    });
    group.finish();
}

criterion_group!(benches, snapshots);
criterion_main!(benches);
