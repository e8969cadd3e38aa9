//! Verification of a direct scan's findings by read-only agents (issue 16, part 2): the
//! findings grouped into clusters per file, the task each cluster's agent is given, the
//! verdicts its answer must hold, the progress log that makes a run resumable, and the
//! verified report. Running the agents is the CLI's (it has the agent machinery); everything
//! here is plain data, so it is tested without a model.

mod progress;
mod report;
mod verdict;

pub use progress::{ClusterRecord, ClusterStatus, ProgressLog, Restoration, finished_clusters};
pub use report::{VerifiedIssue, VerifiedReport, VerifiedSummary, verified_markdown};
pub use verdict::{MAX_FIELD_CHARS, Verdict, parse_verdicts};

use crate::finding::Issue;

/// The most candidates one agent is given (`--cluster-limit`'s default).
pub const DEFAULT_CLUSTER_LIMIT: usize = 50;

/// How many more times an agent is asked when its answer holds no valid verdict list.
pub const RETRIES: u32 = 2;

/// Candidates of one file, given to one agent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cluster {
    /// 1.., in report order.
    pub index: usize,
    pub file: String,
    /// The candidates' gids, in report order.
    pub gids: Vec<usize>,
    /// What identifies the cluster across runs: its candidates' signatures
    /// (`language|file|line|pattern`), one per line. `--resume` skips a cluster whose key a
    /// finished record has.
    pub key: String,
}

/// The clusters of `issues`: per file, in report order, at most `limit` candidates each.
pub fn clusters(issues: &[Issue], limit: usize) -> Vec<Cluster> {
    let limit = limit.max(1);
    let mut clusters: Vec<Cluster> = Vec::new();
    let mut current: Vec<&Issue> = Vec::new();
    let flush = |current: &mut Vec<&Issue>, clusters: &mut Vec<Cluster>| {
        if let Some(first) = current.first() {
            clusters.push(Cluster {
                index: clusters.len() + 1,
                file: first.finding.file.clone(),
                gids: current.iter().map(|issue| issue.gid).collect(),
                key: current
                    .iter()
                    .map(|issue| issue.finding.signature())
                    .collect::<Vec<_>>()
                    .join("\n"),
            });
        }
        current.clear();
    };
    for issue in issues {
        let same_file = current
            .first()
            .is_some_and(|first| first.finding.file == issue.finding.file);
        if !same_file || current.len() >= limit {
            flush(&mut current, &mut clusters);
        }
        current.push(issue);
    }
    flush(&mut current, &mut clusters);
    clusters
}

/// What the verifying agent is told, after wright's own L1: its role and its rules.
pub const INSTRUCTIONS: &str = include_str!("instructions.md");

/// The task of `cluster`'s agent: its candidates, and the answer it must end with.
pub fn task_prompt(cluster: &Cluster, issues: &[Issue]) -> String {
    let mut text = format!(
        "Verify these {} candidate security issues found by a pattern scan of `{}`. For each, \
         read the code around it (about 50 lines either side), trace how the flagged line can \
         be reached and with what data, check the callers and the preconditions, and decide \
         whether it is a real risk. Judge neighbouring candidates together.\n\nCandidates:\n",
        cluster.gids.len(),
        cluster.file
    );
    for gid in &cluster.gids {
        let Some(issue) = issues.iter().find(|issue| issue.gid == *gid) else {
            continue;
        };
        let f = &issue.finding;
        text.push_str(&format!(
            "- gid {gid}: {}:{} [{} / {}] {}\n  evidence: {}\n",
            f.file,
            f.line,
            f.category,
            f.pattern,
            f.description,
            f.evidence.replace('\n', " ")
        ));
    }
    text.push_str(
        "\nEnd with Finish[<JSON list>]: one object per candidate you judged, \
         [{\"gid\": 1, \"has_risk\": true, \"preconditions\": \"…\", \"trigger_path\": \"…\", \
         \"consequences\": \"…\", \"suggestions\": \"…\"}]. Use only the gids above. Candidates \
         you leave out count as no risk; an empty list [] is allowed.",
    );
    text
}

/// The follow-up when an answer held no valid verdict list.
pub fn retry_prompt(problem: &str) -> String {
    format!(
        "Your answer is not a valid verdict list: {problem}. Answer again with only \
         Finish[<JSON list>], each object {{\"gid\": <one of the gids given>, \"has_risk\": \
         true|false, \"preconditions\": \"…\", \"trigger_path\": \"…\", \"consequences\": \"…\", \
         \"suggestions\": \"…\"}}."
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::finding::{Finding, Language, Severity};
    use pretty_assertions::assert_eq;

    pub(crate) fn issue(gid: usize, file: &str, line: u32) -> Issue {
        Issue {
            gid,
            finding: Finding {
                language: Language::C,
                category: "unsafe_api".into(),
                pattern: "strcpy".into(),
                file: file.into(),
                line,
                evidence: "strcpy(d, s);".into(),
                description: "strcpy does not bound the copy".into(),
                suggestion: "use snprintf".into(),
                confidence: 0.9,
            },
            severity: Severity::High,
        }
    }

    #[test]
    fn clusters_are_per_file_and_at_most_the_limit() {
        let issues = vec![
            issue(1, "a.c", 1),
            issue(2, "a.c", 5),
            issue(3, "a.c", 9),
            issue(4, "b.c", 2),
        ];
        let clusters = clusters(&issues, 2);
        let shape: Vec<(usize, &str, Vec<usize>)> = clusters
            .iter()
            .map(|c| (c.index, c.file.as_str(), c.gids.clone()))
            .collect();
        assert_eq!(
            shape,
            vec![
                (1, "a.c", vec![1, 2]),
                (2, "a.c", vec![3]),
                (3, "b.c", vec![4])
            ]
        );
        assert_eq!(clusters[0].key, "c|a.c|1|strcpy\nc|a.c|5|strcpy");
    }

    #[test]
    fn the_task_lists_each_candidate_and_the_answer_format() {
        let issues = vec![issue(7, "src/x.c", 12)];
        let cluster = &clusters(&issues, 50)[0];
        let task = task_prompt(cluster, &issues);
        assert!(
            task.contains("- gid 7: src/x.c:12 [unsafe_api / strcpy]"),
            "{task}"
        );
        assert!(task.contains("evidence: strcpy(d, s);"), "{task}");
        assert!(task.contains("Finish[<JSON list>]"), "{task}");
    }
}
