//! `wright sec scan` (issue 16): the security scanner's direct scan of C, C++ and Rust code
//! (`wright_sec`), printed as one line per issue or written as JSON, Markdown and SARIF
//! reports; the exit status says whether anything at or above `--min-severity` was found.
//!
//! The verification of each finding by a read-only agent (`--verify`, `-j`,
//! `--cluster-limit`, `--resume`: issue 16 part 2) comes after the direct scan, on its
//! [`Scan`]: see [`scan`], where it slots in between [`direct_scan`] and [`write_outputs`].

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use clap::{Args, Subcommand};
use wright_protocol::text::plural;
use wright_sec::report::{json, markdown, sarif};
use wright_sec::{Issue, Language, Scan, ScanOptions, Severity, Summary};

use crate::terminal;

/// Exit status: nothing at or above `--min-severity`.
pub(crate) const EXIT_CLEAN: u8 = 0;
/// Exit status: an issue at or above `--min-severity`.
pub(crate) const EXIT_ISSUES: u8 = 1;
/// Exit status: a usage error (bad flag value, missing path, unwritable report).
pub(crate) const EXIT_USAGE: u8 = 2;
/// How often the progress line on a terminal is redrawn at most.
const PROGRESS_EVERY: Duration = Duration::from_millis(100);
/// The output path that means standard output.
const STDOUT: &str = "-";

#[derive(Debug, Args)]
pub struct SecArgs {
    #[command(subcommand)]
    command: SecCommand,
}

#[derive(Debug, Subcommand)]
enum SecCommand {
    /// Scan C, C++ and Rust files for memory, buffer, error-handling, concurrency and API
    /// misuse problems. Exit 0 when nothing at or above --min-severity is found, 1 otherwise,
    /// 2 on a usage error.
    Scan(ScanArgs),
}

/// `wright sec scan`'s flags.
#[derive(Debug, Args)]
pub struct ScanArgs {
    /// The directory (or file) to scan. Vendored and generated directories (.git build out
    /// target third_party vendor node_modules) and .gitignore'd files are skipped.
    #[arg(value_name = "PATH", default_value = ".")]
    pub path: PathBuf,
    /// Only these languages, comma-separated: c, cpp, rust (default: all three).
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = parse_language)]
    pub lang: Vec<Language>,
    /// Write the JSON report to FILE (`-`: standard output).
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Write the Markdown report to FILE (`-`: standard output).
    #[arg(long, value_name = "FILE")]
    pub md: Option<PathBuf>,
    /// Write the SARIF 2.1.0 report to FILE (`-`: standard output), for GitHub code scanning
    /// and IDEs.
    #[arg(long, value_name = "FILE")]
    pub sarif: Option<PathBuf>,
    /// Report, and fail on, only issues of this severity or above: low, medium or high. Low
    /// findings are hints (an `unwrap`, a raw pointer type, `rand` outside secrets): shown
    /// with `--min-severity low`.
    #[arg(long, value_name = "S", default_value = "medium", value_parser = parse_severity)]
    pub min_severity: Severity,
    /// Have a read-only agent verify each file's findings (the model of the settings): only
    /// what an agent confirms is reported, with how it is triggered; what no agent could
    /// judge is reported unverified. Progress goes to .wright/sec/progress.jsonl.
    #[arg(long)]
    pub verify: bool,
    /// Agents at once (with --verify).
    #[arg(
        short = 'j',
        long = "jobs",
        value_name = "N",
        default_value_t = 4,
        requires = "verify"
    )]
    pub jobs: usize,
    /// The most findings one agent is given (with --verify).
    #[arg(long, value_name = "N", default_value_t = wright_sec::verify::DEFAULT_CLUSTER_LIMIT, requires = "verify")]
    pub cluster_limit: usize,
    /// Take the clusters a killed or stopped run finished from its progress log, asking the
    /// model nothing for them (with --verify).
    #[arg(long, requires = "verify")]
    pub resume: bool,
}

fn parse_language(name: &str) -> Result<Language, String> {
    Language::parse(name)
        .ok_or_else(|| format!("unknown language {name:?}: expected c, cpp or rust"))
}

fn parse_severity(name: &str) -> Result<Severity, String> {
    Severity::parse(name)
        .ok_or_else(|| format!("unknown severity {name:?}: expected low, medium or high"))
}

/// Runs `wright sec …` in the project `root`; the exit status.
pub async fn run(root: &Path, args: &SecArgs) -> u8 {
    match &args.command {
        SecCommand::Scan(args) => scan(root, args).await,
    }
}

/// `wright sec scan`: the direct scan, then (`--verify`) its verification, then the reports.
pub async fn scan(root: &Path, args: &ScanArgs) -> u8 {
    let outputs = [&args.json, &args.md, &args.sarif];
    if outputs
        .iter()
        .filter(|o| o.as_deref() == Some(Path::new(STDOUT)))
        .count()
        > 1
    {
        eprintln!(
            "wright: only one of --json, --md and --sarif can write to standard output (`-`)"
        );
        return EXIT_USAGE;
    }
    let target = root.join(&args.path);
    let target = match target.canonicalize() {
        Ok(target) => target,
        Err(e) => {
            eprintln!("wright: cannot scan {}: {e}", args.path.display());
            return EXIT_USAGE;
        }
    };
    let scan = match direct_scan(&target, &args.lang) {
        Ok(scan) => scan,
        Err(e) => {
            eprintln!("wright: {e}");
            return EXIT_USAGE;
        }
    };
    let scan = at_least(scan, args.min_severity);
    if args.verify {
        return crate::sec_verify::verify_and_report(root, &target, scan, args).await;
    }
    if let Err(message) = write_outputs(&scan, &target, args) {
        eprintln!("wright: {message}");
        return EXIT_USAGE;
    }
    if scan.issues.is_empty() {
        EXIT_CLEAN
    } else {
        EXIT_ISSUES
    }
}

/// The direct scan of `target`, with a progress line on standard error when it is a terminal.
pub fn direct_scan(target: &Path, languages: &[Language]) -> Result<Scan, wright_sec::ScanError> {
    let options = ScanOptions {
        languages: if languages.is_empty() {
            ScanOptions::default().languages
        } else {
            languages.to_vec()
        },
    };
    let progress = Progress::new(std::io::stderr().is_terminal());
    let result = wright_sec::scan(target, &options, &|done, total| progress.show(done, total));
    progress.clear();
    result
}

/// `scan` with only the issues at `min` or above, numbered again 1..N, and its summary
/// recounted.
fn at_least(scan: Scan, min: Severity) -> Scan {
    if min == Severity::Low {
        return scan;
    }
    let issues: Vec<Issue> = scan
        .issues
        .into_iter()
        .filter(|issue| issue.severity >= min)
        .enumerate()
        .map(|(i, issue)| Issue {
            gid: i + 1,
            ..issue
        })
        .collect();
    let summary = Summary::of(
        &issues,
        scan.summary.scanned_files,
        &scan.summary.scanned_root,
    );
    Scan {
        issues,
        summary,
        skipped: scan.skipped,
    }
}

/// Writes the reports asked for; without any, the human listing on standard output.
pub(crate) fn write_outputs(scan: &Scan, target: &Path, args: &ScanArgs) -> Result<(), String> {
    let src_root = if target.is_dir() {
        Some(target)
    } else {
        target.parent()
    };
    let mut wrote_any = false;
    if let Some(path) = &args.json {
        let text = json::render(&scan.issues, &scan.summary).map_err(|e| e.to_string())?;
        write_report(path, &text)?;
        wrote_any = true;
    }
    if let Some(path) = &args.md {
        write_report(path, &markdown::render(&scan.issues, &scan.summary))?;
        wrote_any = true;
    }
    if let Some(path) = &args.sarif {
        let text = sarif::render(&scan.issues, src_root).map_err(|e| e.to_string())?;
        write_report(path, &text)?;
        wrote_any = true;
    }
    let summary = summary_line(scan);
    if wrote_any {
        eprintln!("{summary}");
    } else {
        let mut out = std::io::stdout().lock();
        for issue in &scan.issues {
            let line = issue_line(issue);
            if writeln!(out, "{}", terminal::for_stdout(&line)).is_err() {
                return Ok(());
            }
        }
        let _ = writeln!(out, "{}", terminal::for_stdout(&summary));
    }
    for (file, why) in &scan.skipped {
        let line = format!("wright: skipped {file}: {why}");
        eprintln!(
            "{}",
            terminal::for_stream(&line, std::io::stderr().is_terminal())
        );
    }
    Ok(())
}

pub(crate) fn write_report(path: &Path, text: &str) -> Result<(), String> {
    if path == Path::new(STDOUT) {
        let mut out = std::io::stdout().lock();
        return out
            .write_all(text.as_bytes())
            .and_then(|()| out.flush())
            .map_err(|e| format!("cannot write the report to standard output: {e}"));
    }
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// `file:line: severity category/pattern: description`.
pub(crate) fn issue_line(issue: &Issue) -> String {
    let f = &issue.finding;
    format!(
        "{}:{}: {} {}/{}: {}",
        f.file,
        f.line,
        issue.severity.name(),
        f.category,
        f.pattern,
        f.description
    )
}

/// `wright sec: 12 files scanned in ROOT: 3 issues (1 high, 1 medium, 1 low)`.
fn summary_line(scan: &Scan) -> String {
    let count = |s: Severity| scan.issues.iter().filter(|i| i.severity == s).count();
    let breakdown = if scan.issues.is_empty() {
        String::new()
    } else {
        format!(
            " ({} high, {} medium, {} low)",
            count(Severity::High),
            count(Severity::Medium),
            count(Severity::Low)
        )
    };
    format!(
        "wright sec: {} scanned in {}: {}{breakdown}",
        plural(scan.summary.scanned_files, "file"),
        scan.summary.scanned_root,
        plural(scan.summary.total, "issue"),
    )
}

/// The `\r`-redrawn progress line on standard error (only on a terminal).
struct Progress {
    enabled: bool,
    last: Mutex<Option<Instant>>,
}

impl Progress {
    fn new(enabled: bool) -> Self {
        Self {
            enabled,
            last: Mutex::new(None),
        }
    }

    fn show(&self, done: usize, total: usize) {
        if !self.enabled {
            return;
        }
        let mut last = self
            .last
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let now = Instant::now();
        if done < total && last.is_some_and(|t| now.duration_since(t) < PROGRESS_EVERY) {
            return;
        }
        *last = Some(now);
        eprint!("\r{}", progress_line(done, total));
        let _ = std::io::stderr().flush();
    }

    fn clear(&self) {
        if self.enabled && self.last.lock().map(|l| l.is_some()).unwrap_or(true) {
            eprint!("\r{}\r", " ".repeat(progress_line(0, 0).len() + 24));
        }
    }
}

/// `wright sec: [#########           ] 45/100 files`.
fn progress_line(done: usize, total: usize) -> String {
    const WIDTH: usize = 20;
    let filled = (done * WIDTH)
        .checked_div(total)
        .unwrap_or(WIDTH)
        .min(WIDTH);
    format!(
        "wright sec: [{}{}] {done}/{total} files",
        "#".repeat(filled),
        " ".repeat(WIDTH - filled)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use wright_sec::Finding;

    #[test]
    fn an_issue_line_names_place_severity_rule_and_problem() {
        let finding = Finding {
            language: Language::C,
            category: "unsafe_api".into(),
            pattern: "strcpy".into(),
            file: "src/a.c".into(),
            line: 7,
            evidence: "strcpy(d, s);".into(),
            description: "no bound".into(),
            suggestion: "use snprintf".into(),
            confidence: 0.9,
        };
        let issue = Issue {
            gid: 1,
            severity: finding.severity(),
            finding,
        };
        assert_eq!(
            issue_line(&issue),
            "src/a.c:7: high unsafe_api/strcpy: no bound"
        );
    }

    #[test]
    fn the_progress_bar_fills_with_the_files_done() {
        assert_eq!(
            progress_line(0, 4),
            "wright sec: [                    ] 0/4 files"
        );
        assert_eq!(
            progress_line(2, 4),
            "wright sec: [##########          ] 2/4 files"
        );
        assert_eq!(
            progress_line(0, 0),
            "wright sec: [####################] 0/0 files"
        );
    }
}
