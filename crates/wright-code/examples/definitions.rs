//! Prints the definitions under a directory, one a line: `file<TAB>line<TAB>kind<TAB>name`.
//! Used by `bench/definitions.sh` to compare with ctags; hidden directories are skipped, files
//! over 1 MiB too. Files are parsed on every core, as the Definitions tool does.

mod common;

use common::files;
use std::path::{Path, PathBuf};

use std::sync::atomic::AtomicBool;

use wright_code::{Indexed, Need, Scope, index_files};

fn main() {
    let mut args = std::env::args().skip(1);
    let dir = args.next().unwrap_or_else(|| ".".to_owned());
    // `--cache DIR`: use and update the tag cache there (a second run is then warm).
    let cache = match (args.next().as_deref(), args.next()) {
        (Some("--cache"), Some(cache)) => Some(PathBuf::from(cache)),
        _ => None,
    };
    let root = Path::new(&dir)
        .canonicalize()
        .unwrap_or_else(|_| PathBuf::from(&dir));
    let mut all = Vec::new();
    files(&root, &mut all);
    let stop = AtomicBool::new(false);
    let (indexed, _) = index_files(
        &root,
        &all,
        cache.as_deref(),
        Scope::Part,
        Need::Definitions,
        &stop,
    );
    let mut out = String::new();
    for (path, indexed) in all.iter().zip(indexed) {
        let Indexed::Tags(tags) = indexed else {
            continue;
        };
        for d in &tags.definitions {
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
