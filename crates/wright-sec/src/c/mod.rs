//! The C and C++ rules (jarvis-sec's `c_checker`, issue 16), on tree-sitter's trees.
//!
//! Each file is parsed once ([`parse`]); its macros and constants are read ([`macros`]);
//! each function's facts ([`model`]) are gathered in one walk ([`walk`]) and asked about by
//! the rules ([`rules`]) through [`values`] (sizes, origins) and [`content`] (how far data
//! can be trusted). Comments, strings and `#if 0` code are never looked at.

mod content;
mod lengths;
mod macros;
mod model;
mod parse;
mod rules;
mod values;
mod walk;

use std::collections::{HashMap, HashSet};

use tree_sitter::Node;

use crate::finding::{self, Finding};
use crate::scan::SourceFile;

/// The findings of the C/C++ rules in `file`.
pub fn check(file: &SourceFile) -> Vec<Finding> {
    let grammar = parse::Grammar::of(file.language, &file.path, &file.text);
    let Some(tree) = parse::parse(&file.text, grammar) else {
        return Vec::new();
    };
    let source = file.text.as_str();
    let root = tree.root_node();
    let macros = macros::Macros::collect(root, source);
    let mut report = Report::new(file);
    let mut functions = Vec::new();
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        match node.kind() {
            "function_definition" => {
                functions.push(model::Function::build(node, source, &macros));
                continue;
            }
            "comment" | "string_literal" | "preproc_def" | "preproc_function_def" => continue,
            _ => {}
        }
        if parse::is_dead_preprocessor_branch(node, source) {
            if let Some(alt) = parse::live_alternative(node) {
                stack.push(alt);
            }
            continue;
        }
        let mut cursor = node.walk();
        for child in node.named_children(&mut cursor) {
            stack.push(child);
        }
    }
    let facts = param_facts(&functions, source, &macros);
    let effects: HashMap<String, Vec<values::ParamEffect>> = functions
        .iter()
        .map(|f| (f.name.clone(), rules::param_effects(f, source)))
        .collect();
    let none = Vec::new();
    for function in &functions {
        let values = values::Values {
            f: function,
            source,
            macros: &macros,
            params: facts.get(function.name.as_str()).unwrap_or(&none),
            is_c: grammar == parse::Grammar::C,
            effects: &effects,
        };
        rules::check_function(&values, &mut report);
    }
    rules::check_file(&functions, source, &mut report);
    report.findings
}

/// What the file's calls to each of its functions pass, by parameter: data that flows
/// into a sink function (`badSink(data)`) is judged by what its callers give it.
fn param_facts<'s>(
    functions: &'s [model::Function<'_>],
    source: &str,
    macros: &macros::Macros,
) -> HashMap<&'s str, Vec<values::ParamFact>> {
    let defined: HashSet<&str> = functions.iter().map(|f| f.name.as_str()).collect();
    let mut facts: HashMap<&'s str, Vec<values::ParamFact>> = HashMap::new();
    for caller in functions {
        let values = values::Values {
            f: caller,
            source,
            macros,
            params: &[],
            is_c: false,
            effects: &HashMap::new(),
        };
        for (event, call) in caller.calls() {
            let Some(name) = defined.get(call.name.as_str()) else {
                continue;
            };
            if call.name == caller.name {
                continue;
            }
            let site: Vec<values::ParamFact> = call
                .args
                .iter()
                .map(|arg| {
                    values::ParamFact::of(values.content(*arg, event), values.capacity(*arg, event))
                })
                .collect();
            facts
                .entry(name)
                .and_modify(|known| {
                    *known = known.iter().zip(&site).map(|(a, b)| a.join(b)).collect();
                })
                .or_insert(site);
        }
    }
    facts
}

/// The findings of one file, at most one per line and pattern.
pub(crate) struct Report<'a> {
    file: &'a SourceFile,
    seen: HashSet<(u32, String)>,
    findings: Vec<Finding>,
}

/// What a rule says of what it found.
pub(crate) struct Rule {
    pub category: &'static str,
    pub pattern: &'static str,
    pub description: &'static str,
    pub suggestion: &'static str,
}

impl<'a> Report<'a> {
    fn new(file: &'a SourceFile) -> Report<'a> {
        Report {
            file,
            seen: HashSet::new(),
            findings: Vec::new(),
        }
    }

    /// Reports `rule` at `node` with `confidence`; `detail` (when not empty) is added to
    /// the rule's description.
    pub fn add(&mut self, node: Node<'_>, rule: &Rule, confidence: f32, detail: &str) {
        let line = u32::try_from(node.start_position().row + 1).unwrap_or(u32::MAX);
        if !self.seen.insert((line, rule.pattern.to_string())) {
            return;
        }
        let description = if detail.is_empty() {
            rule.description.to_string()
        } else {
            format!("{} {}", rule.description, detail)
        };
        self.findings.push(Finding {
            language: self.file.language,
            category: rule.category.to_string(),
            pattern: rule.pattern.to_string(),
            file: self.file.path.clone(),
            line,
            evidence: line_at(&self.file.text, node.start_byte()),
            description,
            suggestion: rule.suggestion.to_string(),
            confidence: confidence.clamp(0.0, 1.0),
        });
    }
}

/// The evidence for the line holding byte `at` of `text`: found from the byte, not by
/// counting lines from the start, so a file with thousands of findings stays linear.
fn line_at(text: &str, at: usize) -> String {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let end = text[at..].find('\n').map_or(text.len(), |i| at + i);
    text.get(start..end)
        .unwrap_or("")
        .trim()
        .chars()
        .take(finding::MAX_EVIDENCE_CHARS)
        .collect()
}

#[cfg(test)]
mod tests;
