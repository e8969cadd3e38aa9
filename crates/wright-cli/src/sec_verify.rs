//! `wright sec scan --verify` (issue 16, part 2): each cluster of the direct scan's findings
//! (per file, at most `--cluster-limit`) goes to a read-only agent — Read, Grep, Glob, LS and
//! read-only Bash, nothing that writes — which confirms or rejects each candidate and ends
//! with a JSON verdict list. An answer without a valid list is asked again (twice), then the
//! cluster is failed and its candidates reported unverified. Anything an agent changed in the
//! tree anyway is put back from the snapshot taken before the first agent. Progress goes to
//! `.wright/sec/progress.jsonl`; `--resume` takes every cluster that finished from it and asks
//! the model nothing for them.
//!
//! The agents' sessions are stored as the children of one session of the run's own (its id
//! is printed at the end), so `wright sessions show ID` shows what each was given and did.

use std::path::Path;
use std::sync::Arc;

use futures::StreamExt;
use tokio_util::sync::CancellationToken;
use wright_core::RoundOutcome;
use wright_core::approval::ApprovalMode;
use wright_core::checkpoint::Checkpoints;
use wright_core::cost::session_cost;
use wright_core::session::{AgentBuilder, Session, Sessions};
use wright_core::subagent::AgentProfile;
use wright_protocol::text::plural;
use wright_sec::scan::Scan;
use wright_sec::verify::{
    self, Cluster, ClusterRecord, ClusterStatus, ProgressLog, Restoration, Verdict, VerifiedReport,
};
use wright_store::SessionStore;

use std::io::Write;

use wright_sec::Issue;
use wright_sec::report::sarif;

use crate::config::{self, Flags};
use crate::sec_cmd::{
    EXIT_CLEAN, EXIT_ISSUES, EXIT_USAGE, ScanArgs, issue_line, write_outputs, write_report,
};
use crate::terminal;

/// Where the progress log is, under the project root.
pub const PROGRESS_LOG: &str = ".wright/sec/progress.jsonl";

/// The agent the clusters are verified by, as its sessions name it.
const VERIFIER: &str = "sec-verifier";

/// The tools a verifier may use: reading only. No Bash: where the sandbox does not confine
/// it, a command the checker judges read-only would run unconfined, and reading needs none.
const VERIFIER_TOOLS: [&str; 4] = ["Read", "Grep", "Glob", "LS"];

/// How verification runs.
#[derive(Debug, Clone)]
pub struct VerifyOptions {
    /// Clusters verified at once (`-j`).
    pub jobs: usize,
    /// The most candidates one agent is given (`--cluster-limit`).
    pub cluster_limit: usize,
    /// Take finished clusters from the progress log (`--resume`).
    pub resume: bool,
}

/// What verification came to.
pub struct Verification {
    pub report: VerifiedReport,
    /// Tokens and cost of the agents' model calls this run.
    pub tokens: u64,
    pub cost_usd: Option<f64>,
    /// The session whose children are the agents' sessions.
    pub session: String,
    /// Ctrl-C stopped it: the report covers the clusters that finished before.
    pub interrupted: bool,
}

/// How one cluster ended.
struct Ended {
    cluster: Cluster,
    verdicts: Option<Vec<Verdict>>,
    resumed: bool,
    tokens: u64,
    cost_usd: Option<f64>,
}

/// Verifies `scan`'s findings in the project at `root`, reporting progress on stderr.
pub async fn verify(
    root: &Path,
    scan: &Scan,
    options: &VerifyOptions,
    cancel: CancellationToken,
) -> Result<Verification, String> {
    let mut settings = config::load(root, &Flags::default()).map_err(|e| e.to_string())?;
    config::learn_context_window(&mut settings).await;
    let env = |name: &str| std::env::var(name).ok();
    let home = config::wright_home(&env).map_err(|e| e.to_string())?;
    // The snapshot around the agents is taken here, once; the agents take none (they
    // change nothing), and their verdicts come from the code alone.
    let setup = settings
        .agent_setup(root, &home, ApprovalMode::Auto)
        .into_reader(AgentProfile::read_only(
            &VERIFIER_TOOLS,
            verify::INSTRUCTIONS,
        ));
    let builder = AgentBuilder::new(setup).map_err(|e| e.to_string())?;
    let sessions = Sessions::new(SessionStore::new(&home, root), builder);
    let parent = sessions.create(None).map_err(|e| e.to_string())?;

    let clusters = verify::clusters(&scan.issues, options.cluster_limit);
    let log_path = root.join(PROGRESS_LOG);
    let finished = if options.resume {
        verify::finished_clusters(&log_path)
    } else {
        Default::default()
    };
    let log = ProgressLog::open(root, &log_path, options.resume)
        .map_err(|e| format!("cannot write {}: {e}", log_path.display()))?;
    let _ = log.append(&serde_json::json!({
        "event": "scan_start",
        "root": scan.summary.scanned_root,
        "candidates": scan.issues.len(),
        "clusters": clusters.len(),
        "resume": options.resume,
        "session": parent.id(),
    }));

    let checkpoints = crate::checkpoints::for_undo(&home, root, &settings.checkpoints);
    let before = {
        let checkpoints = checkpoints.clone();
        tokio::task::spawn_blocking(move || checkpoints.snapshot("before wright sec scan --verify"))
            .await
            .map_err(|e| e.to_string())
            .and_then(|taken| taken.map_err(|e| e.to_string()))
    };
    if let Err(why) = &before {
        eprintln!(
            "wright: warning: no snapshot of the project could be taken ({why}); a change an \
             agent makes cannot be put back"
        );
    }
    let total = clusters.len();
    let context = Context {
        sessions: &sessions,
        parent: parent.id(),
        scan,
        log: &log,
        checkpoints: &checkpoints,
        before: before.as_ref().ok().map(String::as_str),
        model: &settings.llm.model,
        prices: &settings.prices,
        cancel: &cancel,
        total,
    };
    let store = sessions.store();
    let mut trusted_children: std::collections::HashMap<String, Vec<String>> = Default::default();
    let mut untrusted = 0;
    let resumable: Vec<Option<Vec<Verdict>>> = clusters
        .iter()
        .map(|cluster| {
            let record = finished.get(&cluster.key)?;
            let (Some(parent), Some(session)) = (&record.parent, &record.session) else {
                untrusted += 1;
                return None;
            };
            let children = trusted_children.entry(parent.clone()).or_insert_with(|| {
                store
                    .children(parent)
                    .map(|list| list.into_iter().map(|c| c.meta.id).collect())
                    .unwrap_or_default()
            });
            if !children.contains(session) {
                untrusted += 1;
                return None;
            }
            record.verdicts_for(cluster)
        })
        .collect();
    if untrusted > 0 {
        eprintln!(
            "wright: warning: {} of {} did not come from a run of yours (no such verifier \
             session in your store); verified again",
            plural(untrusted, "finished cluster"),
            log_path.display()
        );
    }
    let all_clusters = clusters.clone();
    let ended: Vec<Ended> =
        futures::stream::iter(clusters.into_iter().zip(resumable).map(|(cluster, done)| {
            let context = &context;
            async move {
                match done {
                    Some(verdicts) => {
                        eprintln!(
                            "[{}/{total}] {}: taken from the earlier run",
                            cluster.index, cluster.file
                        );
                        Some(Ended {
                            verdicts: Some(verdicts),
                            cluster,
                            resumed: true,
                            tokens: 0,
                            cost_usd: Some(0.0),
                        })
                    }
                    None => context.run(cluster).await,
                }
            }
        }))
        .buffer_unordered(options.jobs.max(1))
        .filter_map(std::future::ready)
        .collect()
        .await;

    let interrupted = cancel.is_cancelled();
    let mut ended = ended;
    // Clusters Ctrl-C stopped, or never started: their findings are reported unverified.
    for cluster in all_clusters {
        if !ended.iter().any(|e| e.cluster.index == cluster.index) {
            ended.push(Ended {
                cluster,
                verdicts: None,
                resumed: false,
                tokens: 0,
                cost_usd: Some(0.0),
            });
        }
    }
    ended.sort_by_key(|e| e.cluster.index);
    let resumed = ended.iter().filter(|e| e.resumed).count();
    let tokens = ended.iter().map(|e| e.tokens).sum();
    let cost_usd = ended
        .iter()
        .try_fold(0.0, |sum, e| e.cost_usd.map(|c| sum + c));
    let outcomes: Vec<(Cluster, Option<Vec<Verdict>>)> =
        ended.into_iter().map(|e| (e.cluster, e.verdicts)).collect();
    let report = VerifiedReport::build(scan, &outcomes, resumed);
    let _ = log.append(&serde_json::json!({
        "event": if interrupted { "interrupted" } else { "finished" },
        "confirmed": report.summary.confirmed,
        "rejected": report.summary.rejected,
        "unverified": report.summary.unverified,
    }));
    Ok(Verification {
        report,
        tokens,
        cost_usd,
        session: parent.id().to_string(),
        interrupted,
    })
}

/// What every cluster's run shares.
struct Context<'a> {
    sessions: &'a Sessions,
    parent: &'a str,
    scan: &'a Scan,
    log: &'a ProgressLog,
    checkpoints: &'a Arc<dyn Checkpoints>,
    /// The snapshot taken before the first agent, if one could be.
    before: Option<&'a str>,
    model: &'a str,
    prices: &'a std::collections::HashMap<String, wright_core::cost::Price>,
    cancel: &'a CancellationToken,
    total: usize,
}

impl Context<'_> {
    /// Runs `cluster`'s agent, asking again while its answer holds no valid verdict list;
    /// `None` when Ctrl-C stopped it (it is left for `--resume`).
    async fn run(&self, cluster: Cluster) -> Option<Ended> {
        if self.cancel.is_cancelled() {
            return None;
        }
        let total = self.total;
        eprintln!(
            "[{}/{total}] {}: verifying {}…",
            cluster.index,
            cluster.file,
            plural(cluster.gids.len(), "candidate")
        );
        let _ = self.log.append(&ClusterRecord::new(
            cluster.index,
            &cluster.file,
            &cluster.key,
            ClusterStatus::Running,
        ));
        let task = format!(
            "verify {} ({})",
            cluster.file,
            plural(cluster.gids.len(), "candidate")
        );
        let mut record = ClusterRecord::new(
            cluster.index,
            &cluster.file,
            &cluster.key,
            ClusterStatus::Failed,
        );
        let mut session = match self.sessions.create_child(self.parent, VERIFIER, &task) {
            Ok(session) => session,
            Err(e) => {
                record.error = Some(e.to_string());
                let _ = self.log.append(&record);
                eprintln!("[{}/{total}] {}: failed: {e}", cluster.index, cluster.file);
                return Some(self.ended(cluster, None, None));
            }
        };
        record.session = Some(session.id().to_string());
        record.parent = Some(self.parent.to_string());
        record.gids = cluster.gids.clone();
        let mut prompt = verify::task_prompt(&cluster, &self.scan.issues);
        let mut verdicts = None;
        let mut error = None;
        for attempt in 1..=1 + verify::RETRIES {
            record.attempts = attempt;
            let outcome = session
                .run_round(&prompt, self.cancel.clone(), &mut |_| {})
                .await;
            match outcome {
                RoundOutcome::Finished { answer, .. } => {
                    match verify::parse_verdicts(&answer, &cluster.gids) {
                        Ok(found) => {
                            verdicts = Some(found);
                            break;
                        }
                        Err(problem) => {
                            error = Some(format!("no valid verdict list: {problem}"));
                            prompt = verify::retry_prompt(&problem);
                        }
                    }
                }
                RoundOutcome::Failed { message, .. } => {
                    error = Some(message);
                    break;
                }
            }
        }
        record.restored = self.put_back().await;
        if self.cancel.is_cancelled() && verdicts.is_none() {
            // Not failed: stopped. `--resume` runs it again.
            return None;
        }
        let line = match &verdicts {
            Some(found) => {
                let confirmed = found.iter().filter(|v| v.has_risk).count();
                record.status = ClusterStatus::Done;
                record.verdicts = found.clone();
                format!(
                    "{confirmed} confirmed, {} rejected",
                    cluster.gids.len() - confirmed
                )
            }
            None => {
                record.error = error.clone();
                format!(
                    "failed after {}: {}",
                    plural(record.attempts as usize, "attempt"),
                    error.as_deref().unwrap_or("no answer")
                )
            }
        };
        if let Some(restored) = &record.restored {
            if restored.performed {
                eprintln!(
                    "[{}/{total}] {}: {} changed while the agent worked; put back ({}; \
                     the files as they were before it: snapshot {})",
                    cluster.index,
                    cluster.file,
                    plural(restored.changed_files, "file"),
                    restored.action,
                    restored.previous.as_deref().unwrap_or("none")
                );
            } else if restored.action.starts_with("could not") {
                eprintln!(
                    "[{}/{total}] {}: warning: {}",
                    cluster.index, cluster.file, restored.action
                );
            }
        }
        let _ = self.log.append(&record);
        eprintln!("[{}/{total}] {}: {line}", cluster.index, cluster.file);
        Some(self.ended(cluster, verdicts, Some(&session)))
    }

    fn ended(
        &self,
        cluster: Cluster,
        verdicts: Option<Vec<Verdict>>,
        session: Option<&Session>,
    ) -> Ended {
        let cost = session.map(|session| {
            session_cost(
                session.agent().history().usage_records(),
                self.model,
                self.prices,
            )
        });
        Ended {
            cluster,
            verdicts,
            resumed: false,
            tokens: cost.as_ref().map_or(0, |c| c.total.usage.total_tokens),
            cost_usd: cost.map_or(Some(0.0), |c| c.total.cost_usd),
        }
    }

    /// Puts back whatever changed in the tree since the snapshot taken before the agents
    /// (the progress log and wright's own state excepted).
    async fn put_back(&self) -> Option<Restoration> {
        let before = self.before?.to_string();
        let checkpoints = self.checkpoints.clone();
        let outcome = tokio::task::spawn_blocking(move || {
            let changed: Vec<String> = checkpoints
                .changed_files(&before, None)?
                .into_iter()
                .map(|path| path.to_string_lossy().replace('\\', "/"))
                .filter(|path| {
                    path != PROGRESS_LOG && !path.starts_with(".wright/sec/progress.jsonl")
                })
                .collect();
            if changed.is_empty() {
                return Ok::<_, wright_core::checkpoint::CheckpointFailure>(Restoration {
                    performed: false,
                    changed_files: 0,
                    action: "nothing changed".into(),
                    previous: None,
                });
            }
            let restored = checkpoints.restore_only(&before, &changed)?;
            Ok(Restoration {
                performed: true,
                changed_files: changed.len(),
                action: "checkpoint restore".into(),
                previous: Some(restored.previous),
            })
        })
        .await;
        Some(match outcome {
            Ok(Ok(restoration)) => restoration,
            Ok(Err(e)) => Restoration {
                performed: false,
                changed_files: 0,
                action: format!("could not compare or restore: {e}"),
                previous: None,
            },
            Err(e) => Restoration {
                performed: false,
                changed_files: 0,
                action: format!("could not compare or restore: {e}"),
                previous: None,
            },
        })
    }
}

/// `wright sec scan --verify`: `scan` (of `target`, inside the project `root`) verified,
/// then its reports; the exit status — 1 while anything is confirmed or unverified.
pub async fn verify_and_report(root: &Path, target: &Path, scan: Scan, args: &ScanArgs) -> u8 {
    // The agents work in the project, and the findings must name its files.
    let Ok(inside) = target.strip_prefix(root) else {
        eprintln!(
            "wright: --verify checks findings in the project ({}); {} is outside it — run \
             from that project (or -C it)",
            root.display(),
            target.display()
        );
        return EXIT_USAGE;
    };
    let direct = scan.clone();
    let scan = relative_to_root(scan, inside, target.is_dir());
    if scan.issues.is_empty() {
        eprintln!("wright sec: nothing to verify.");
        return match write_verified(&VerifiedReport::build(&scan, &[], 0), target, args) {
            Ok(()) => EXIT_CLEAN,
            Err(message) => {
                eprintln!("wright: {message}");
                EXIT_USAGE
            }
        };
    }
    let cancel = CancellationToken::new();
    {
        let cancel = cancel.clone();
        tokio::spawn(async move {
            if tokio::signal::ctrl_c().await.is_ok() {
                cancel.cancel();
            }
        });
    }
    let options = VerifyOptions {
        jobs: args.jobs,
        cluster_limit: args.cluster_limit,
        resume: args.resume,
    };
    let verification = match verify(root, &scan, &options, cancel).await {
        Ok(verification) => verification,
        Err(message) => {
            // Nothing could be verified: the direct scan's report, said to be that.
            eprintln!("wright: {message}");
            eprintln!(
                "wright sec: the findings could not be verified; the report is the direct \
                 scan's, unverified."
            );
            if let Err(message) = write_outputs(&direct, target, args) {
                eprintln!("wright: {message}");
                return EXIT_USAGE;
            }
            return EXIT_ISSUES;
        }
    };
    if let Err(message) = write_verified(&verification.report, root, args) {
        eprintln!("wright: {message}");
        return EXIT_USAGE;
    }
    let s = &verification.report.summary;
    let cost = verification
        .cost_usd
        .map_or_else(String::new, |usd| format!(" · ${usd:.4}"));
    eprintln!(
        "wright sec: {} verified: {} confirmed, {} rejected, {} unverified · {} tokens{cost} · \
         agents' sessions under `wright sessions show {}`",
        plural(s.candidates, "candidate"),
        s.confirmed,
        s.rejected,
        s.unverified,
        verification.tokens,
        verification.session
    );
    if s.fallback {
        eprintln!(
            "wright sec: every cluster's verification failed: the report holds the direct \
             scan's findings, unverified."
        );
    }
    if verification.interrupted {
        eprintln!("wright sec: stopped; `--resume` goes on from where it stopped.");
        return 130;
    }
    if s.confirmed + s.unverified > 0 {
        EXIT_ISSUES
    } else {
        EXIT_CLEAN
    }
}

/// `scan`'s findings named from the project root rather than from `inside` (the scanned
/// path, relative to the root; a file when `!is_dir`).
fn relative_to_root(mut scan: Scan, inside: &Path, is_dir: bool) -> Scan {
    let base = if is_dir {
        Some(inside)
    } else {
        inside.parent()
    };
    let prefix = base
        .map(|p| p.to_string_lossy().replace('\\', "/"))
        .filter(|p| !p.is_empty());
    if let Some(prefix) = prefix {
        for issue in &mut scan.issues {
            issue.finding.file = format!("{prefix}/{}", issue.finding.file);
        }
    }
    scan
}

/// The verified report's outputs: the reports asked for, or a line per confirmed and
/// unverified issue on standard output.
fn write_verified(report: &VerifiedReport, root: &Path, args: &ScanArgs) -> Result<(), String> {
    let mut wrote_any = false;
    if let Some(path) = &args.json {
        let mut text = serde_json::to_string_pretty(report).map_err(|e| e.to_string())?;
        text.push('\n');
        write_report(path, &text)?;
        wrote_any = true;
    }
    if let Some(path) = &args.md {
        write_report(path, &verify::verified_markdown(report))?;
        wrote_any = true;
    }
    let reported: Vec<Issue> = report
        .issues
        .iter()
        .map(|v| v.issue.clone())
        .chain(report.unverified.iter().cloned())
        .collect();
    if let Some(path) = &args.sarif {
        let text = sarif::render(&reported, Some(root)).map_err(|e| e.to_string())?;
        write_report(path, &text)?;
        wrote_any = true;
    }
    if !wrote_any {
        let mut out = std::io::stdout().lock();
        for verified in &report.issues {
            let line = format!(
                "{} — {}",
                issue_line(&verified.issue),
                verified.trigger_path.replace('\n', " ")
            );
            if writeln!(out, "{}", terminal::for_stdout(&line)).is_err() {
                return Ok(());
            }
        }
        for issue in &report.unverified {
            let line = format!("{} (unverified)", issue_line(issue));
            if writeln!(out, "{}", terminal::for_stdout(&line)).is_err() {
                return Ok(());
            }
        }
    }
    Ok(())
}
