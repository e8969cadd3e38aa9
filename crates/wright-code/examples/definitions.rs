//! Prints the definitions under a directory, one a line: `file<TAB>line<TAB>kind<TAB>name`.
//! Used by `bench/definitions.sh` to compare with ctags; hidden directories are skipped, files
//! over 1 MiB too.

use std::path::{Path, PathBuf};

use wright_code::{Extractor, Lang};

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.filter_map(Result::ok).collect();
    entries.sort_by_key(std::fs::DirEntry::file_name);
    for entry in entries {
        if entry.file_name().to_string_lossy().starts_with('.') {
            continue;
        }
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            files(&entry.path(), out);
        } else if kind.is_file() {
            out.push(entry.path());
        }
    }
}

fn main() {
    let dir = std::env::args().nth(1).unwrap_or_else(|| ".".to_owned());
    let mut all = Vec::new();
    files(Path::new(&dir), &mut all);
    let mut extractor = Extractor::new();
    let mut out = String::new();
    for path in all {
        let Some(lang) = Lang::of_path(&path) else {
            continue;
        };
        let Ok(source) = std::fs::read(&path) else {
            continue;
        };
        if source.len() > 1024 * 1024 {
            continue;
        }
        for d in extractor.definitions(lang, &source).definitions {
            out.push_str(&format!(
                "{}\t{}\t{}\t{}\n",
                path.display(),
                d.line,
                d.kind,
                d.name
            ));
        }
    }
    print!("{out}");
}
