//! The Rust rules (jarvis-sec's `rust_checker`, issue 16), on tree-sitter-rust's tree.
//!
//! Because the file is parsed, comments, strings and doc examples never match. The rules:
//! unsafe blocks, raw pointer dereferences and types, `mem::transmute`, `MaybeUninit` /
//! `assume_init`, `unwrap()` / `expect()`, `extern "C"` blocks and functions, `unsafe impl
//! Send/Sync`, results thrown away (`let _ = …`, `.ok();`) and `mem::forget`. Confidence
//! follows what the tree shows — an unsafe block that dereferences a raw pointer is surer than
//! one that calls an FFI function — and drops near a `// SAFETY:` comment, after a null check
//! or `is_some()` test of the same value, and in test code.

mod comments;
mod facts;
pub mod rules;

use std::collections::HashMap;
use std::ops::ControlFlow;
use std::time::{Duration, Instant};

use tree_sitter::{ParseOptions, ParseState, Parser, Tree};

use crate::finding::{Finding, Language, MAX_EVIDENCE_CHARS};
use crate::scan::SourceFile;

use facts::{Candidate, Facts, Kind};
use rules::RustRule;

/// The longest one file may take to parse; past it the file is given up on (no findings)
/// rather than holding the scan.
const PARSE_BUDGET: Duration = Duration::from_secs(10);

/// The findings of the Rust rules in `file`.
pub fn check(file: &SourceFile) -> Vec<Finding> {
    let Some(tree) = parse(&file.text) else {
        return Vec::new();
    };
    let facts = facts::gather(&tree, &file.text);
    let lines: Vec<&str> = file.text.lines().collect();
    let scorer = Scorer {
        facts: &facts,
        lines: &lines,
        test_file: comments::is_test_path(&file.path),
    };
    let mut best: HashMap<(u32, &'static str), Scored> = HashMap::new();
    for scored in scorer.all() {
        let key = (scored.row, scored.rule.pattern);
        match best.get(&key) {
            Some(kept) if kept.confidence >= scored.confidence => {}
            _ => {
                best.insert(key, scored);
            }
        }
    }
    let mut findings: Vec<Finding> = best
        .into_values()
        .map(|scored| {
            let line = scored.row.saturating_add(1);
            Finding {
                language: Language::Rust,
                category: scored.rule.category.to_string(),
                pattern: scored.rule.pattern.to_string(),
                file: file.path.clone(),
                line,
                evidence: evidence(&lines, scored.row),
                description: scored.description,
                suggestion: scored.rule.suggestion.to_string(),
                confidence: scored.confidence,
            }
        })
        .collect();
    findings.sort_by(|a, b| (a.line, &a.pattern).cmp(&(b.line, &b.pattern)));
    findings
}

/// The evidence for 0-based `row`, as [`crate::finding::evidence`] makes it but from the
/// file's lines split once: a file with thousands of findings is not rescanned for each.
fn evidence(lines: &[&str], row: u32) -> String {
    lines
        .get(row as usize)
        .map(|line| line.trim().chars().take(MAX_EVIDENCE_CHARS).collect())
        .unwrap_or_default()
}

/// `text` parsed as Rust, or `None` if the grammar cannot load or the parse runs past
/// [`PARSE_BUDGET`]. A file with syntax errors still parses (with error nodes).
fn parse(text: &str) -> Option<Tree> {
    let mut parser = Parser::new();
    parser
        .set_language(&tree_sitter_rust::LANGUAGE.into())
        .ok()?;
    let started = Instant::now();
    let mut progress = |_: &ParseState| {
        if started.elapsed() > PARSE_BUDGET {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    };
    let options = ParseOptions::new().progress_callback(&mut progress);
    let bytes = text.as_bytes();
    parser.parse_with_options(
        &mut |offset, _| bytes.get(offset..).unwrap_or_default(),
        None,
        Some(options),
    )
}

/// A candidate with its rule and confidence.
struct Scored {
    rule: RustRule,
    row: u32,
    confidence: f32,
    description: String,
}

struct Scorer<'a> {
    facts: &'a Facts,
    lines: &'a [&'a str],
    test_file: bool,
}

impl Scorer<'_> {
    fn all(&self) -> Vec<Scored> {
        let mut out = Vec::new();
        // Regions made dangerous by a dereference of a known raw pointer (only known once
        // every pointer declaration in the file has been seen).
        let mut dangerous: Vec<bool> = self
            .facts
            .unsafe_regions
            .iter()
            .map(|r| r.dangerous)
            .collect();
        for candidate in &self.facts.candidates {
            if let Some(scored) = self.candidate(candidate) {
                if candidate_is_raw_deref(candidate, self.facts)
                    && let Some(flag) = candidate
                        .frame
                        .unsafe_region
                        .and_then(|i| dangerous.get_mut(i))
                {
                    *flag = true;
                }
                out.push(scored);
            }
        }
        for (region, dangerous) in self.facts.unsafe_regions.iter().zip(dangerous) {
            let base = if dangerous {
                rules::UNSAFE_BLOCK_DANGEROUS
            } else {
                rules::UNSAFE_BLOCK_PLAIN
            };
            let safety = self.facts.comments.safety_near(region.row, self.lines);
            let mut confidence = base;
            if safety {
                confidence -= rules::SAFETY_DISCOUNT;
            }
            if region.frame.test || self.test_file {
                confidence -= rules::TEST_DISCOUNT;
            }
            let mut description = if region.is_fn {
                "the body of an `unsafe fn`: the compiler no longer checks memory, aliasing and lifetime safety there".to_string()
            } else {
                rules::UNSAFE_BLOCK.description.to_string()
            };
            if dangerous {
                description.push_str(
                    "; it dereferences raw pointers, transmutes or makes unchecked calls",
                );
            }
            if !safety {
                description.push_str(" (no `// SAFETY:` comment says why it is sound)");
            }
            out.push(scored(
                rules::UNSAFE_BLOCK,
                region.row,
                confidence,
                description,
            ));
        }
        for function in &self.facts.functions {
            let Some(extern_fn) = &function.extern_fn else {
                continue;
            };
            let mut unchecked: Vec<&str> = extern_fn
                .used
                .iter()
                .filter(|(name, byte)| {
                    function
                        .null_checked
                        .get(name)
                        .is_none_or(|checked| checked > byte)
                })
                .map(|(name, _)| name.as_str())
                .collect();
            unchecked.sort_unstable();
            unchecked.dedup();
            let mut confidence = if unchecked.is_empty() {
                rules::EXTERN_FN
            } else if extern_fn.is_unsafe {
                rules::UNSAFE_EXTERN_FN_UNCHECKED
            } else {
                rules::EXTERN_FN_UNCHECKED
            };
            if extern_fn.frame.test || self.test_file {
                confidence -= rules::TEST_DISCOUNT;
            }
            let description = if unchecked.is_empty() {
                format!(
                    "an `extern \"C\" fn` callable from C: {}",
                    rules::EXTERN_C.description
                )
            } else {
                format!(
                    "an `extern \"C\" fn` uses its raw pointer parameter{} `{}` without a null check: a C caller passing NULL makes it undefined behaviour",
                    if unchecked.len() > 1 { "s" } else { "" },
                    unchecked.join("`, `")
                )
            };
            out.push(scored(
                rules::EXTERN_C,
                extern_fn.row,
                confidence,
                description,
            ));
        }
        out
    }

    fn candidate(&self, candidate: &Candidate) -> Option<Scored> {
        let facts = self.facts;
        let test = candidate.frame.test || self.test_file;
        let function = candidate
            .frame
            .function
            .and_then(|i| facts.functions.get(i));
        let before = |map: Option<&HashMap<String, usize>>, name: &Option<String>| {
            name.as_ref()
                .and_then(|name| map.and_then(|m| m.get(name)))
                .is_some_and(|byte| *byte < candidate.byte)
        };
        let safety = || {
            facts.comments.safety_near(candidate.row, self.lines)
                || candidate
                    .frame
                    .unsafe_region
                    .and_then(|i| facts.unsafe_regions.get(i))
                    .is_some_and(|r| facts.comments.safety_near(r.row, self.lines))
        };
        let (rule, mut confidence, mut description) = match &candidate.kind {
            Kind::Deref { name, null, .. } => {
                let raw = candidate_is_raw_deref(candidate, facts);
                let mut confidence = if *null {
                    rules::DEREF_NULL
                } else if raw {
                    rules::DEREF_KNOWN_RAW
                } else {
                    rules::DEREF_UNKNOWN
                };
                let mut description = rules::RAW_POINTER_DEREF.description.to_string();
                if before(function.map(|f| &f.null_checked), name) {
                    confidence -= rules::NULL_CHECKED_DISCOUNT;
                    description.push_str(" (it was checked for null before)");
                } else if !raw {
                    description.push_str(" (if the operand is a raw pointer)");
                }
                if safety() {
                    confidence -= rules::SAFETY_DISCOUNT;
                }
                (rules::RAW_POINTER_DEREF, confidence, description)
            }
            Kind::RawPointerType => (rules::RAW_POINTER, rules::RAW_POINTER_TYPE, String::new()),
            Kind::Transmute => {
                let mut confidence = rules::TRANSMUTE_CALL;
                if safety() {
                    confidence -= rules::SAFETY_DISCOUNT;
                }
                (rules::TRANSMUTE, confidence, String::new())
            }
            Kind::MaybeUninit {
                receiver,
                unwritten,
                zeroed,
            } => {
                let mut confidence = if *unwritten {
                    rules::ASSUME_INIT_UNWRITTEN
                } else if *zeroed {
                    rules::ZEROED
                } else {
                    rules::ASSUME_INIT
                };
                let mut description = rules::MAYBE_UNINIT.description.to_string();
                if *unwritten {
                    description = "memory that was never written is assumed initialised: undefined behaviour for almost every type".into();
                } else if *zeroed {
                    description = "`mem::zeroed()`: undefined behaviour for types where all-zero is not valid (references, `NonNull`, `Box`, enums)".into();
                }
                let written_before = receiver
                    .as_ref()
                    .and_then(|name| function.and_then(|f| f.written.get(name)))
                    .is_some_and(|writes| {
                        writes.iter().any(|(byte, conditional)| {
                            *byte < candidate.byte && *conditional <= candidate.frame.conditional
                        })
                    });
                if written_before {
                    confidence -= rules::WRITTEN_DISCOUNT;
                }
                if safety() {
                    confidence -= rules::SAFETY_DISCOUNT;
                }
                (rules::MAYBE_UNINIT, confidence, description)
            }
            Kind::Unwrap {
                receiver,
                poison,
                expect,
            } => {
                let rule = if *expect {
                    rules::EXPECT
                } else {
                    rules::UNWRAP
                };
                let mut confidence = if *poison {
                    rules::UNWRAP_POISON
                } else if *expect {
                    rules::EXPECT_CALL
                } else {
                    rules::UNWRAP_CALL
                };
                if before(function.map(|f| &f.tested), receiver) {
                    confidence -= rules::TESTED_DISCOUNT;
                }
                (rule, confidence, String::new())
            }
            Kind::ExternBlock => (rules::EXTERN_C, rules::EXTERN_BLOCK, String::new()),
            Kind::UnsafeImpl => {
                let mut confidence = rules::UNSAFE_IMPL;
                if safety() {
                    confidence -= rules::SAFETY_DISCOUNT;
                }
                (rules::UNSAFE_IMPL_SEND_SYNC, confidence, String::new())
            }
            Kind::IgnoredResult { callee } => {
                let io = callee
                    .as_deref()
                    .is_some_and(|c| rules::IO_CALLS.contains(&c));
                let mut confidence = if io {
                    rules::IGNORED_IO_CALL
                } else {
                    rules::IGNORED_CALL
                };
                if facts.comments.explained(candidate.row) {
                    confidence -= rules::EXPLAINED_DISCOUNT;
                }
                let description = match callee {
                    Some(callee) => format!(
                        "the result of `{callee}` is discarded: if it fails, nothing notices"
                    ),
                    None => String::new(),
                };
                (rules::IGNORED_RESULT, confidence, description)
            }
            Kind::Forget => {
                let mut confidence = rules::FORGET_CALL;
                if facts.comments.explained(candidate.row) {
                    confidence -= rules::EXPLAINED_DISCOUNT;
                }
                (rules::MEM_FORGET, confidence, String::new())
            }
        };
        if test {
            confidence -= rules::TEST_DISCOUNT;
        }
        if description.is_empty() {
            description = rule.description.to_string();
        }
        Some(scored(rule, candidate.row, confidence, description))
    }
}

/// Whether a candidate is the dereference of something known to be a raw pointer.
fn candidate_is_raw_deref(candidate: &Candidate, facts: &Facts) -> bool {
    match &candidate.kind {
        Kind::Deref {
            name,
            raw,
            null,
            callee,
        } => {
            *raw || *null
                || name
                    .as_ref()
                    .is_some_and(|name| facts.pointer_names.contains(name))
                || callee
                    .as_ref()
                    .is_some_and(|callee| facts.pointer_fns.contains(callee))
        }
        _ => false,
    }
}

fn scored(rule: RustRule, row: u32, confidence: f32, description: String) -> Scored {
    Scored {
        rule,
        row,
        confidence: round(confidence.clamp(rules::MIN_CONFIDENCE, 1.0)),
        description,
    }
}

/// Two decimals, so that 0.9 − 0.3 is 0.6 (medium) and reports show round numbers.
pub(crate) fn round(confidence: f32) -> f32 {
    (confidence * 100.0).round() / 100.0
}
