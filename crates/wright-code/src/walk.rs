//! Definitions found by one `TreeCursor` walk over the syntax tree, matching node kinds, in
//! place of running the tag query (issue 18: the query was a third of a cold index's CPU). The rules restate the
//! query's definition patterns, in the query's order: a node that several patterns match is
//! tagged by the first (as `tree_sitter_tags` keeps the tag of the lowest pattern per name),
//! and each tag's line is computed as `tree_sitter_tags` does. Rust, Go, Python and Java have
//! rules here; `STAGES_WHOLE=1 examples/stages.rs --compare` checks that a tree gives the
//! same definitions both ways (Python 3.11's library, 667 files, and two OpenJDK 17 modules,
//! 1,801 files: no difference), and tests do so over this workspace's Rust and Python files.

use std::ops::Range;
use std::sync::OnceLock;

use tree_sitter::{Language, Node, Tree};

use crate::Lang;

/// `tree_sitter_tags`' longest line (its `MAX_LINE_LEN`).
const MAX_LINE_LEN: usize = 180;

/// One definition pattern of a tag query.
struct Rule {
    /// The definition node's kind.
    kind: &'static str,
    /// The kind its parent must have.
    parent: Option<&'static str>,
    /// The field under which the parent must sit in its own parent (`""`: any child), and
    /// that one's kind.
    grandparent: Option<(&'static str, &'static str)>,
    /// The field naming the definition, and the kinds the name may have.
    name: (&'static str, &'static [&'static str]),
    /// The query's syntax type (`@definition.<syntax>`).
    syntax: &'static str,
}

const fn rule(
    kind: &'static str,
    name: (&'static str, &'static [&'static str]),
    syntax: &'static str,
) -> Rule {
    Rule {
        kind,
        parent: None,
        grandparent: None,
        name,
        syntax,
    }
}

const fn under(parent: &'static str, rule: Rule) -> Rule {
    Rule {
        parent: Some(parent),
        ..rule
    }
}

const IDENT: &[&str] = &["identifier"];
const TYPE_IDENT: &[&str] = &["type_identifier"];
const FIELD_IDENT: &[&str] = &["field_identifier"];

/// `tree_sitter_rust::TAGS_QUERY`'s definition patterns, then `RUST_SIGNATURES`'.
const RUST: &[Rule] = &[
    rule("struct_item", ("name", TYPE_IDENT), "class"),
    rule("enum_item", ("name", TYPE_IDENT), "class"),
    rule("union_item", ("name", TYPE_IDENT), "class"),
    rule("type_item", ("name", TYPE_IDENT), "class"),
    under(
        "declaration_list",
        rule("function_item", ("name", IDENT), "method"),
    ),
    rule("function_item", ("name", IDENT), "function"),
    rule("trait_item", ("name", TYPE_IDENT), "interface"),
    rule("mod_item", ("name", IDENT), "module"),
    rule("macro_definition", ("name", IDENT), "macro"),
    Rule {
        grandparent: Some(("body", "foreign_mod_item")),
        ..under(
            "declaration_list",
            rule("function_signature_item", ("name", IDENT), "function"),
        )
    },
    under(
        "declaration_list",
        rule("function_signature_item", ("name", IDENT), "method"),
    ),
];

/// `tree_sitter_go::TAGS_QUERY`'s definition patterns, then `GO_EXTRA`'s.
const GO: &[Rule] = &[
    rule("function_declaration", ("name", IDENT), "function"),
    rule("method_declaration", ("name", FIELD_IDENT), "method"),
    rule("type_spec", ("name", TYPE_IDENT), "type"),
    rule("type_alias", ("name", TYPE_IDENT), "type"),
    rule("method_elem", ("name", FIELD_IDENT), "method"),
];

/// `tree_sitter_python::TAGS_QUERY`'s definition patterns.
const PYTHON: &[Rule] = &[
    Rule {
        grandparent: Some(("", "module")),
        ..under(
            "expression_statement",
            rule("assignment", ("left", IDENT), "constant"),
        )
    },
    rule("class_definition", ("name", IDENT), "class"),
    rule("function_definition", ("name", IDENT), "function"),
];

/// `tree_sitter_java::TAGS_QUERY`'s definition patterns, then `JAVA_EXTRA`'s.
const JAVA: &[Rule] = &[
    rule("class_declaration", ("name", IDENT), "class"),
    rule("method_declaration", ("name", IDENT), "method"),
    rule("interface_declaration", ("name", IDENT), "interface"),
    rule("enum_declaration", ("name", IDENT), "enum"),
    rule("record_declaration", ("name", IDENT), "class"),
    rule("annotation_type_declaration", ("name", IDENT), "interface"),
    rule(
        "annotation_type_element_declaration",
        ("name", IDENT),
        "method",
    ),
    rule("constructor_declaration", ("name", IDENT), "method"),
    rule("compact_constructor_declaration", ("name", IDENT), "method"),
];

/// A rule with its field ids resolved.
struct Compiled {
    parent: Option<&'static str>,
    /// The field (0: any child) and kind of the grandparent.
    grandparent: Option<(u16, &'static str)>,
    name_field: u16,
    name_kinds: &'static [&'static str],
    syntax: &'static str,
}

/// A language's rules, by node kind id.
pub(crate) struct Walker {
    pub(crate) language: Language,
    by_kind: Vec<Vec<Compiled>>,
    /// By kind id: whether a node of the kind may hold a definition below it, by the
    /// grammar's `node-types.json` (a node whose subtree has an error is entered anyway).
    descend: Vec<bool>,
}

/// A definition the walk found.
pub(crate) struct RawTag {
    pub(crate) name_range: Range<usize>,
    pub(crate) line_range: Range<usize>,
    pub(crate) row: usize,
    pub(crate) syntax: &'static str,
}

/// The language's walker, built once per process; `None` for a language without rules (or
/// whose rules name a field its grammar lacks).
pub(crate) fn walker(lang: Lang) -> Option<&'static Walker> {
    static WALKERS: [OnceLock<Option<Walker>>; 4] = [const { OnceLock::new() }; 4];
    let (slot, build): (usize, fn() -> Option<Walker>) = match lang {
        Lang::Rust => (0, || {
            Walker::new(
                tree_sitter_rust::LANGUAGE.into(),
                RUST,
                tree_sitter_rust::NODE_TYPES,
            )
        }),
        Lang::Go => (1, || {
            Walker::new(
                tree_sitter_go::LANGUAGE.into(),
                GO,
                tree_sitter_go::NODE_TYPES,
            )
        }),
        Lang::Python => (2, || {
            Walker::new(
                tree_sitter_python::LANGUAGE.into(),
                PYTHON,
                tree_sitter_python::NODE_TYPES,
            )
        }),
        Lang::Java => (3, || {
            Walker::new(
                tree_sitter_java::LANGUAGE.into(),
                JAVA,
                tree_sitter_java::NODE_TYPES,
            )
        }),
        _ => return None,
    };
    WALKERS[slot].get_or_init(build).as_ref()
}

impl Walker {
    fn new(language: Language, rules: &'static [Rule], node_types: &str) -> Option<Self> {
        let count = language.node_kind_count();
        let mut by_kind: Vec<Vec<Compiled>> = (0..count).map(|_| Vec::new()).collect();
        for rule in rules {
            let compiled = || -> Option<Compiled> {
                Some(Compiled {
                    parent: rule.parent,
                    grandparent: match rule.grandparent {
                        Some(("", kind)) => Some((0, kind)),
                        Some((field, kind)) => {
                            Some((language.field_id_for_name(field)?.get(), kind))
                        }
                        None => None,
                    },
                    name_field: language.field_id_for_name(rule.name.0)?.get(),
                    name_kinds: rule.name.1,
                    syntax: rule.syntax,
                })
            };
            // Every id a kind has (a grammar may give one name several symbols, aliases).
            let mut found = false;
            for (id, of_kind) in by_kind.iter_mut().enumerate() {
                let Ok(id16) = u16::try_from(id) else { break };
                if language.node_kind_is_named(id16)
                    && language.node_kind_for_id(id16) == Some(rule.kind)
                {
                    of_kind.push(compiled()?);
                    found = true;
                }
            }
            if !found {
                return None;
            }
        }
        let descend = descend(&language, rules, node_types);
        Some(Self {
            language,
            by_kind,
            descend,
        })
    }

    /// The definitions in `tree`, ordered as `tree_sitter_tags` orders its tags (by the end,
    /// then the start, of the name).
    pub(crate) fn tags(&self, tree: &Tree, source: &[u8]) -> Vec<RawTag> {
        let mut out = Vec::new();
        let mut cursor = tree.walk();
        // The nodes above the cursor.
        let mut ancestors: Vec<Node<'_>> = Vec::new();
        loop {
            let node = cursor.node();
            if let Some(rules) = self.by_kind.get(usize::from(node.kind_id()))
                && !rules.is_empty()
                && let Some(tag) = Self::matched(rules, node, &ancestors, source)
            {
                out.push(tag);
            }
            let enter = self
                .descend
                .get(usize::from(node.kind_id()))
                .is_none_or(|d| *d)
                || node.has_error();
            if enter && cursor.goto_first_child() {
                ancestors.push(node);
                continue;
            }
            loop {
                if cursor.goto_next_sibling() {
                    break;
                }
                if !cursor.goto_parent() {
                    out.sort_by_key(|t| (t.name_range.end, t.name_range.start));
                    return out;
                }
                ancestors.pop();
            }
        }
    }

    /// The tag of the first rule matching `node`, if any.
    fn matched(
        rules: &[Compiled],
        node: Node<'_>,
        ancestors: &[Node<'_>],
        source: &[u8],
    ) -> Option<RawTag> {
        let parent = ancestors.last();
        for rule in rules {
            if let Some(kind) = rule.parent
                && parent.is_none_or(|p| p.kind() != kind)
            {
                continue;
            }
            if let Some((field, kind)) = rule.grandparent {
                // The parent must be the grandparent's child under `field`.
                let grandparent = ancestors.len().checked_sub(2).map(|i| ancestors[i]);
                if grandparent.is_none_or(|g| {
                    g.kind() != kind || field != 0 && g.child_by_field_id(field) != parent.copied()
                }) {
                    continue;
                }
            }
            let Some(name) = node.child_by_field_id(rule.name_field) else {
                continue;
            };
            if !rule.name_kinds.contains(&name.kind()) {
                continue;
            }
            // As `tree_sitter_tags`: a name with an error in it is no tag (and no other
            // pattern's either, the name being the same).
            if name.has_error() {
                return None;
            }
            let name_range = name.byte_range();
            let start = name.start_position();
            return Some(RawTag {
                line_range: line_range(source, name_range.start, start.column),
                name_range,
                row: start.row,
                syntax: rule.syntax,
            });
        }
        None
    }
}

/// By kind id: whether a node of the kind may hold one of the rules' kinds below it, from the
/// grammar's node types (the kinds of each kind's children and fields, supertypes expanded,
/// to a fixed point). Kinds the node types do not describe (`ERROR`) are entered.
fn descend(language: &Language, rules: &[Rule], node_types: &str) -> Vec<bool> {
    use std::collections::{HashMap, HashSet};
    let count = language.node_kind_count();
    let Ok(serde_json::Value::Array(types)) = serde_json::from_str(node_types) else {
        return vec![true; count];
    };
    let named = |v: &serde_json::Value| -> Option<String> {
        if v.get("named")?.as_bool()? {
            v.get("type")?.as_str().map(str::to_owned)
        } else {
            None
        }
    };
    // Each named kind's possible named children (fields' and others'), and each supertype's
    // subtypes.
    let mut children: HashMap<String, HashSet<String>> = HashMap::new();
    for t in &types {
        let Some(kind) = named(t) else { continue };
        let entry = children.entry(kind).or_default();
        if let Some(subtypes) = t.get("subtypes").and_then(|s| s.as_array()) {
            entry.extend(subtypes.iter().filter_map(named));
        }
        let mut lists: Vec<&serde_json::Value> = Vec::new();
        if let Some(fields) = t.get("fields").and_then(|f| f.as_object()) {
            lists.extend(fields.values());
        }
        if let Some(c) = t.get("children") {
            lists.push(c);
        }
        for list in lists {
            if let Some(ts) = list.get("types").and_then(|x| x.as_array()) {
                entry.extend(ts.iter().filter_map(named));
            }
        }
    }
    // Kinds that are, or may hold, a definition.
    let mut holds: HashSet<String> = rules.iter().map(|r| r.kind.to_owned()).collect();
    loop {
        let before = holds.len();
        for (kind, kids) in &children {
            if !holds.contains(kind) && kids.iter().any(|k| holds.contains(k)) {
                holds.insert(kind.clone());
            }
        }
        if holds.len() == before {
            break;
        }
    }
    (0..count)
        .map(|id| {
            let Ok(id16) = u16::try_from(id) else {
                return true;
            };
            match language.node_kind_for_id(id16) {
                Some(kind) if language.node_kind_is_named(id16) && children.contains_key(kind) => {
                    holds.contains(kind)
                }
                _ => true,
            }
        })
        .collect()
}

/// The line holding `start_byte` (at `column`), trimmed, at most [`MAX_LINE_LEN`] bytes and
/// cut before invalid UTF-8: `tree_sitter_tags`' `line_range`.
fn line_range(text: &[u8], start_byte: usize, column: usize) -> Range<usize> {
    let mut line_start = start_byte.saturating_sub(column);
    while line_start < text.len() && text[line_start].is_ascii_whitespace() {
        line_start += 1;
    }
    let max_len = MAX_LINE_LEN.min(text.len() - line_start);
    let after = &text[line_start..line_start + max_len];
    let len = if let Some(len) = after.iter().position(|&b| b == b'\n') {
        len
    } else if let Err(e) = std::str::from_utf8(after) {
        e.valid_up_to()
    } else {
        max_len
    };
    let mut line_end = line_start + len;
    while line_end > line_start && text[line_end - 1].is_ascii_whitespace() {
        line_end -= 1;
    }
    line_start..line_end
}
