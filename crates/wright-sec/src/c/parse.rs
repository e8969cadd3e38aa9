//! Parsing: one tree-sitter parser per grammar per thread, a time budget so no input can
//! hang the scan, the grammar for a `.h` (C unless it reads as C++), and the dead code the
//! preprocessor would drop (`#if 0`).

use std::cell::RefCell;
use std::ops::ControlFlow;
use std::time::{Duration, Instant};

use tree_sitter::{Node, Parser, Tree};

use crate::finding::Language;

/// The time one file may take to parse before it is given up (and reported on nothing):
/// tree-sitter is linear, so only a pathological input gets near it.
const PARSE_BUDGET: Duration = Duration::from_secs(5);

/// Words that only C++ has: a `.h` holding one of them is parsed as C++.
const CPP_MARKERS: &[&str] = &[
    "namespace ",
    "template<",
    "template <",
    "class ",
    "public:",
    "private:",
    "::",
    "nullptr",
];

thread_local! {
    static PARSERS: RefCell<(Option<Parser>, Option<Parser>)> = const { RefCell::new((None, None)) };
}

/// The grammar a file is read with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Grammar {
    C,
    Cpp,
}

impl Grammar {
    /// The grammar for `language`; a C header that uses C++ words is C++.
    pub fn of(language: Language, path: &str, text: &str) -> Grammar {
        match language {
            Language::Cpp => Grammar::Cpp,
            _ if path.ends_with(".h") && CPP_MARKERS.iter().any(|m| text.contains(m)) => {
                Grammar::Cpp
            }
            _ => Grammar::C,
        }
    }
}

/// `text` parsed with `grammar`, or `None` when the parser gave up (over budget, or a
/// grammar that failed to load).
pub fn parse(text: &str, grammar: Grammar) -> Option<Tree> {
    PARSERS.with(|cell| {
        let mut parsers = cell.borrow_mut();
        let slot = match grammar {
            Grammar::C => &mut parsers.0,
            Grammar::Cpp => &mut parsers.1,
        };
        if slot.is_none() {
            let mut parser = Parser::new();
            let language: tree_sitter::Language = match grammar {
                Grammar::C => tree_sitter_c::LANGUAGE.into(),
                Grammar::Cpp => tree_sitter_cpp::LANGUAGE.into(),
            };
            parser.set_language(&language).ok()?;
            *slot = Some(parser);
        }
        let parser = slot.as_mut()?;
        let started = Instant::now();
        let mut over_budget = |_: &tree_sitter::ParseState| {
            if started.elapsed() > PARSE_BUDGET {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        };
        let options = tree_sitter::ParseOptions::new().progress_callback(&mut over_budget);
        let bytes = text.as_bytes();
        let tree = parser.parse_with_options(
            &mut |offset, _| bytes.get(offset..).unwrap_or(&[]),
            None,
            Some(options),
        );
        // A cancelled parse leaves state behind; the next file starts afresh.
        parser.reset();
        tree
    })
}

/// The text of `node`, or `""` when it is not on character boundaries.
pub fn text<'a>(node: Node<'_>, source: &'a str) -> &'a str {
    source.get(node.byte_range()).unwrap_or("")
}

/// Whether `node` is code the preprocessor drops: the body of `#if 0` (or `#if false`),
/// and the `#else` branch of `#if 1`.
pub fn is_dead_preprocessor_branch(node: Node<'_>, source: &str) -> bool {
    match node.kind() {
        "preproc_if" | "preproc_elif" => node
            .child_by_field_name("condition")
            .is_some_and(|c| is_false_literal(text(c, source))),
        _ => false,
    }
}

/// Whether an `#if` condition is the literal false.
fn is_false_literal(condition: &str) -> bool {
    matches!(
        condition
            .trim()
            .trim_start_matches('(')
            .trim_end_matches(')'),
        "0" | "false" | "0L" | "0U"
    )
}

/// The children of a dead `#if 0` that still run: its `#else`/`#elif` branch.
pub fn live_alternative(node: Node<'_>) -> Option<Node<'_>> {
    node.child_by_field_name("alternative")
}
