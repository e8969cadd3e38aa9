//! Times the direct scan of a tree, for comparing with flawfinder on the same files:
//! `cargo run --release -p wright-sec --example scan_timing -- DIR [--show]`.
//! Prints the wall time, the files scanned and skipped, and the issues by severity; with
//! `--show`, every issue at medium or above.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use wright_sec::finding::Severity;
use wright_sec::scan::{ScanOptions, scan};

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let Some(root) = args.next().map(PathBuf::from) else {
        eprintln!("usage: scan_timing DIR [--show]");
        return ExitCode::from(2);
    };
    let show = args.any(|a| a == "--show");
    let started = Instant::now();
    let result = match scan(&root, &ScanOptions::default(), &|_, _| {}) {
        Ok(result) => result,
        Err(error) => {
            eprintln!("{error}");
            return ExitCode::from(2);
        }
    };
    let elapsed = started.elapsed();
    let count = |s: Severity| result.issues.iter().filter(|i| i.severity == s).count();
    println!(
        "{}: {:.3} s, {} files scanned, {} skipped, {} issues (high {}, medium {}, low {})",
        root.display(),
        elapsed.as_secs_f64(),
        result.summary.scanned_files,
        result.skipped.len(),
        result.issues.len(),
        count(Severity::High),
        count(Severity::Medium),
        count(Severity::Low),
    );
    for (file, why) in &result.skipped {
        println!("  skipped {file}: {why}");
    }
    if show {
        for issue in result
            .issues
            .iter()
            .filter(|i| i.severity >= Severity::Medium)
        {
            let f = &issue.finding;
            println!(
                "  {}:{} {} {:.2} | {}",
                f.file, f.line, f.pattern, f.confidence, f.evidence
            );
        }
    }
    ExitCode::SUCCESS
}
