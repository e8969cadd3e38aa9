//! Definitions found by one `TreeCursor` walk over the syntax tree, matching node kinds, in
//! place of running the tag query (issue 18: the query was a third of a cold index's CPU, and
//! compiling C++'s or TypeScript's costs some 70 ms a process, more than `ctags -R` takes over
//! a small tree). The rules restate the queries' definition patterns, one table per query
//! file, in the query's order, and the walk keeps what `tree_sitter_tags` keeps: one tag per
//! name (its byte range), from the earliest pattern tagging it; none for a name with an error
//! in it, nor for one C++'s `@ignore` pattern takes; each tag's line as `tree_sitter_tags`
//! computes it (a tag on the row where the previous one's name ends takes that one's line).
//! The queries' reference patterns are turned off (`drop_references` in `lib.rs`): they cannot
//! shadow a definition. Doc captures do not matter (they are turned off too); the text
//! predicates deciding a definition (`#eq?`, `#not-eq?`) are restated.
//!
//! The tags come in `tree_sitter_tags`' order, which hands a tag out once a later name has
//! started: the walk replays its queue over the matches in the order the query finishes them,
//! at the last node the pattern reaches (`const f: { m(): void } = () => {}` finishes `f` at
//! its value, after `m`). Matches finishing on one node are taken in pattern order where
//! tree-sitter takes the pattern starting higher first: the same but for two names finishing
//! on one node, which none of these patterns do.
//!
//! Every language has rules here. `STAGES_WHOLE=1 examples/stages.rs DIR --compare` checks
//! that a tree gives the same definitions both ways, in the same order; no difference over
//! Python 3.11's library (667 files), two OpenJDK 17 modules (1,801), Go 1.19's tree (9,067,
//! its C included), googletest, nlohmann-json and fmt (448, C++), `/usr/include` read as C++
//! (7,520) and as C (renamed `.c`, with `/usr/share/doc`'s C examples: 7,494), tree-sitter's
//! and ring's sources (295, C and Rust), Node's global modules (1,216, JavaScript), rxjs, zod
//! and a TypeScript project (2,071), and those read as TSX (905). The tests do so over this
//! workspace's Rust and Python files, and over sources exercising every rule.

use std::collections::HashMap;
use std::ops::Range;
use std::sync::OnceLock;

use tree_sitter::{Language, Node, Point, Tree, TreeCursor};

use crate::Lang;
use crate::skeleton::Joined;

/// `tree_sitter_tags`' longest line (its `MAX_LINE_LEN`).
const MAX_LINE_LEN: usize = 180;

/// One definition pattern of a tag query, from the node it starts at (the walk looks rules up
/// by that node's kind): the nodes above it, the path down to the name, other children it must
/// have, a test of the name's text, and what it makes of the name.
struct Rule {
    /// The kind of the node the rule starts at.
    kind: &'static str,
    /// The nodes above it, nearest first: each one's kind, and the field under which the node
    /// below it sits (the query's `(parent field: (node ...))`).
    up: &'static [Up],
    /// The steps from the node down to its name (each step may match several children, as the
    /// query does: `typedef struct {..} A, *PA;` has two declarators).
    name: &'static [Down],
    /// Children the node must have besides (the query's `body: (_)`).
    with: &'static [Down],
    /// The query's `#eq?`/`#not-eq?` on the name.
    text: Option<NameIs>,
    /// What a match makes of the name.
    tag: Tag,
}

/// A step from a node up to its parent.
struct Up {
    /// The field under which the node sits in the parent (`None`: any child).
    field: Option<&'static str>,
    /// The parent's kind.
    kind: &'static str,
}

/// A step from a node down to a child.
#[derive(Clone, Copy)]
struct Down {
    /// The child's field (`None`: any child, with a field or not).
    field: Option<&'static str>,
    kinds: Kinds,
}

/// The kinds a child may have.
#[derive(Clone, Copy)]
enum Kinds {
    /// A named node of one of these kinds.
    Named(&'static [&'static str]),
    /// Any named node (the query's `(_)`).
    AnyNamed,
    /// An anonymous node, a token (`"new"`).
    Token(&'static str),
}

/// A test of a name's text.
#[derive(Clone, Copy)]
enum NameIs {
    Is(&'static str),
    IsNot(&'static str),
}

/// What a rule makes of the name it finds.
#[derive(Clone, Copy)]
enum Tag {
    /// A definition of the query's syntax type (`@definition.<syntax>`).
    Definition(&'static str),
    /// No definition, whatever a later pattern says (the query's `@ignore`).
    Ignore,
}

/// A rule starting at a `kind` node, whose name is found along `name`.
const fn def(kind: &'static str, name: &'static [Down], syntax: &'static str) -> Rule {
    Rule {
        kind,
        up: &[],
        name,
        with: &[],
        text: None,
        tag: Tag::Definition(syntax),
    }
}

/// A rule starting at a `kind` node whose name, found along `name`, no later rule may tag.
const fn ignore(kind: &'static str, name: &'static [Down]) -> Rule {
    Rule {
        tag: Tag::Ignore,
        ..def(kind, name, "")
    }
}

/// A child under `field`, of one of `kinds`.
const fn field(field: &'static str, kinds: &'static [&'static str]) -> Down {
    Down {
        field: Some(field),
        kinds: Kinds::Named(kinds),
    }
}

/// Any named child under `field`.
const fn any_in(field: &'static str) -> Down {
    Down {
        field: Some(field),
        kinds: Kinds::AnyNamed,
    }
}

/// A child, under a field or not, of one of `kinds`.
const fn child(kinds: &'static [&'static str]) -> Down {
    Down {
        field: None,
        kinds: Kinds::Named(kinds),
    }
}

/// A token child, under a field or not.
const fn token(text: &'static str) -> Down {
    Down {
        field: None,
        kinds: Kinds::Token(text),
    }
}

/// A parent of `kind`, holding the node under `field`.
const fn up(field: &'static str, kind: &'static str) -> Up {
    Up {
        field: Some(field),
        kind,
    }
}

/// A parent of `kind`, holding the node under any field or none.
const fn parent(kind: &'static str) -> Up {
    Up { field: None, kind }
}

const IDENT: &[&str] = &["identifier"];
const TYPE_IDENT: &[&str] = &["type_identifier"];
const FIELD_IDENT: &[&str] = &["field_identifier"];
/// The name steps of the many rules named by their `name` field.
const NAME: &[Down] = &[field("name", IDENT)];
const TYPE_NAME: &[Down] = &[field("name", TYPE_IDENT)];

/// `tree_sitter_rust::TAGS_QUERY`'s definition patterns, then `RUST_SIGNATURES`' (`lib.rs`).
const RUST: &[Rule] = &[
    def("struct_item", TYPE_NAME, "class"),
    def("enum_item", TYPE_NAME, "class"),
    def("union_item", TYPE_NAME, "class"),
    def("type_item", TYPE_NAME, "class"),
    Rule {
        up: &[parent("declaration_list")],
        ..def("function_item", NAME, "method")
    },
    def("function_item", NAME, "function"),
    def("trait_item", TYPE_NAME, "interface"),
    def("mod_item", NAME, "module"),
    def("macro_definition", NAME, "macro"),
    Rule {
        up: &[parent("declaration_list"), up("body", "foreign_mod_item")],
        ..def("function_signature_item", NAME, "function")
    },
    Rule {
        up: &[parent("declaration_list")],
        ..def("function_signature_item", NAME, "method")
    },
];

/// `tree_sitter_go::TAGS_QUERY`'s definition patterns, then `queries/go-extra.scm`'s.
const GO: &[Rule] = &[
    def("function_declaration", NAME, "function"),
    def(
        "method_declaration",
        &[field("name", FIELD_IDENT)],
        "method",
    ),
    def("type_spec", TYPE_NAME, "type"),
    def("type_alias", TYPE_NAME, "type"),
    def("method_elem", &[field("name", FIELD_IDENT)], "method"),
];

/// `tree_sitter_python::TAGS_QUERY`'s definition patterns.
const PYTHON: &[Rule] = &[
    Rule {
        up: &[parent("expression_statement"), parent("module")],
        ..def("assignment", &[field("left", IDENT)], "constant")
    },
    def("class_definition", NAME, "class"),
    def("function_definition", NAME, "function"),
];

/// `tree_sitter_java::TAGS_QUERY`'s definition patterns, then `queries/java-extra.scm`'s.
const JAVA: &[Rule] = &[
    def("class_declaration", NAME, "class"),
    def("method_declaration", NAME, "method"),
    def("interface_declaration", NAME, "interface"),
    def("enum_declaration", NAME, "enum"),
    def("record_declaration", NAME, "class"),
    def("annotation_type_declaration", NAME, "interface"),
    def("annotation_type_element_declaration", NAME, "method"),
    def("constructor_declaration", NAME, "method"),
    def("compact_constructor_declaration", NAME, "method"),
];

/// `typedef int (*F)(int);`: the name of a function pointer type (C and C++ alike).
const FUNCTION_POINTER_TYPE: &[Down] = &[
    field("declarator", &["function_declarator"]),
    field("declarator", &["parenthesized_declarator"]),
    child(&["pointer_declarator"]),
    field("declarator", TYPE_IDENT),
];

/// `tree_sitter_c::TAGS_QUERY`'s patterns, then `queries/c-extra.scm`'s.
const C: &[Rule] = &[
    Rule {
        with: &[any_in("body")],
        ..def("struct_specifier", TYPE_NAME, "class")
    },
    Rule {
        up: &[up("type", "declaration")],
        ..def("union_specifier", TYPE_NAME, "class")
    },
    def(
        "function_declarator",
        &[field("declarator", IDENT)],
        "function",
    ),
    def(
        "type_definition",
        &[field("declarator", TYPE_IDENT)],
        "type",
    ),
    def("enum_specifier", TYPE_NAME, "type"),
    // `c-extra.scm`'s one pattern, an alternation.
    def(
        "type_definition",
        &[
            field("declarator", &["pointer_declarator"]),
            field("declarator", TYPE_IDENT),
        ],
        "type",
    ),
    def(
        "type_definition",
        &[
            field("declarator", &["array_declarator"]),
            field("declarator", TYPE_IDENT),
        ],
        "type",
    ),
    def("type_definition", FUNCTION_POINTER_TYPE, "type"),
];

/// `class_specifier name: [(type_identifier) (template_type name: (type_identifier))]`.
const TEMPLATE_TYPE_NAME: &[Down] = &[field("name", &["template_type"]), field("name", TYPE_IDENT)];

/// `queries/cpp.scm`'s patterns (in place of tree-sitter-cpp's query); an alternation of
/// paths is one rule per path.
const CPP: &[Rule] = &[
    // `T x(a);` in a function body builds a variable (first: the function rules lose to it).
    Rule {
        up: &[
            up("declarator", "declaration"),
            parent("compound_statement"),
        ],
        ..ignore("function_declarator", &[field("declarator", IDENT)])
    },
    Rule {
        with: &[any_in("body")],
        ..def("class_specifier", TYPE_NAME, "class")
    },
    Rule {
        with: &[any_in("body")],
        ..def("class_specifier", TEMPLATE_TYPE_NAME, "class")
    },
    Rule {
        with: &[any_in("body")],
        ..def("struct_specifier", TYPE_NAME, "class")
    },
    Rule {
        with: &[any_in("body")],
        ..def("struct_specifier", TEMPLATE_TYPE_NAME, "class")
    },
    Rule {
        with: &[any_in("body")],
        ..def("union_specifier", TYPE_NAME, "class")
    },
    Rule {
        with: &[any_in("body")],
        ..def("union_specifier", TEMPLATE_TYPE_NAME, "class")
    },
    Rule {
        with: &[any_in("body")],
        ..def("enum_specifier", TYPE_NAME, "class")
    },
    def(
        "type_definition",
        &[field("declarator", TYPE_IDENT)],
        "type",
    ),
    def(
        "type_definition",
        &[
            field("declarator", &["pointer_declarator"]),
            field("declarator", TYPE_IDENT),
        ],
        "type",
    ),
    def(
        "type_definition",
        &[
            field("declarator", &["array_declarator"]),
            field("declarator", TYPE_IDENT),
        ],
        "type",
    ),
    def("type_definition", FUNCTION_POINTER_TYPE, "type"),
    def("alias_declaration", TYPE_NAME, "type"),
    def(
        "function_declarator",
        &[field("declarator", &["identifier", "operator_name"])],
        "function",
    ),
    def(
        "function_declarator",
        &[
            field("declarator", &["template_function"]),
            field("name", IDENT),
        ],
        "function",
    ),
    def(
        "function_declarator",
        &[field(
            "declarator",
            &["field_identifier", "destructor_name"],
        )],
        "method",
    ),
    def(
        "function_declarator",
        &[
            field("declarator", &["qualified_identifier"]),
            field(
                "name",
                &[
                    "identifier",
                    "field_identifier",
                    "destructor_name",
                    "operator_name",
                ],
            ),
        ],
        "method",
    ),
    def(
        "function_declarator",
        &[
            field("declarator", &["qualified_identifier"]),
            field("name", &["template_function"]),
            field("name", IDENT),
        ],
        "method",
    ),
    def(
        "function_declarator",
        &[
            field("declarator", &["qualified_identifier"]),
            field("name", &["qualified_identifier"]),
            field("name", &["identifier", "destructor_name", "operator_name"]),
        ],
        "method",
    ),
];

/// A value that makes a binding a function: `[(arrow_function) (function_expression)]`.
const FUNCTION_VALUE: &[Down] = &[field("value", &["arrow_function", "function_expression"])];

/// `tree_sitter_javascript::TAGS_QUERY`'s definition patterns (TypeScript's and TSX's walkers
/// start with them too).
const JAVASCRIPT_TAGS: &[Rule] = &[
    Rule {
        text: Some(NameIs::IsNot("constructor")),
        ..def(
            "method_definition",
            &[field("name", &["property_identifier"])],
            "method",
        )
    },
    def("class", &[any_in("name")], "class"),
    def("class_declaration", &[any_in("name")], "class"),
    def("function_expression", NAME, "function"),
    def("function_declaration", NAME, "function"),
    def("generator_function", NAME, "function"),
    def("generator_function_declaration", NAME, "function"),
    Rule {
        up: &[parent("lexical_declaration")],
        with: FUNCTION_VALUE,
        ..def("variable_declarator", NAME, "function")
    },
    Rule {
        up: &[parent("variable_declaration")],
        with: FUNCTION_VALUE,
        ..def("variable_declarator", NAME, "function")
    },
    Rule {
        with: &[field("right", &["arrow_function", "function_expression"])],
        ..def("assignment_expression", &[field("left", IDENT)], "function")
    },
    Rule {
        with: &[field("right", &["arrow_function", "function_expression"])],
        ..def(
            "assignment_expression",
            &[
                field("left", &["member_expression"]),
                field("property", &["property_identifier"]),
            ],
            "function",
        )
    },
    Rule {
        with: FUNCTION_VALUE,
        ..def(
            "pair",
            &[field("key", &["property_identifier"])],
            "function",
        )
    },
    // `export default x = 1`.
    Rule {
        up: &[up("value", "export_statement")],
        with: &[field(
            "right",
            &[
                "number",
                "string",
                "identifier",
                "undefined",
                "null",
                "new_expression",
                "binary_expression",
                "call_expression",
            ],
        )],
        ..def("assignment_expression", &[field("left", IDENT)], "constant")
    },
];

/// `queries/javascript-extra.scm`'s patterns (JavaScript, TypeScript and TSX).
const JAVASCRIPT_EXTRA: &[Rule] = &[
    Rule {
        text: Some(NameIs::Is("constructor")),
        ..def(
            "method_definition",
            &[field("name", &["property_identifier"])],
            "method",
        )
    },
    def(
        "method_definition",
        &[field(
            "name",
            &[
                "private_property_identifier",
                "computed_property_name",
                "number",
            ],
        )],
        "method",
    ),
    def(
        "method_definition",
        &[field("name", &["string"]), child(&["string_fragment"])],
        "method",
    ),
    Rule {
        with: FUNCTION_VALUE,
        ..def(
            "pair",
            &[field("key", &["string"]), child(&["string_fragment"])],
            "function",
        )
    },
    Rule {
        with: &[field("value", &["class"])],
        ..def("variable_declarator", NAME, "class")
    },
    Rule {
        with: &[field("value", &["generator_function"])],
        ..def("variable_declarator", NAME, "function")
    },
];

/// `queries/javascript-fields.scm`'s pattern (JavaScript only).
const JAVASCRIPT_FIELDS: &[Rule] = &[Rule {
    with: FUNCTION_VALUE,
    ..def(
        "field_definition",
        &[field(
            "property",
            &["property_identifier", "private_property_identifier"],
        )],
        "method",
    )
}];

/// `tree_sitter_typescript::TAGS_QUERY`'s definition patterns (TypeScript and TSX).
const TYPESCRIPT_TAGS: &[Rule] = &[
    def("function_signature", NAME, "function"),
    def(
        "method_signature",
        &[field("name", &["property_identifier"])],
        "method",
    ),
    def(
        "abstract_method_signature",
        &[field("name", &["property_identifier"])],
        "method",
    ),
    def("abstract_class_declaration", TYPE_NAME, "class"),
    def("module", NAME, "module"),
    def("interface_declaration", TYPE_NAME, "interface"),
];

/// `queries/typescript-extra.scm`'s patterns (TypeScript and TSX).
const TYPESCRIPT_EXTRA: &[Rule] = &[
    def("type_alias_declaration", TYPE_NAME, "type"),
    def("enum_declaration", NAME, "enum"),
    def("construct_signature", &[token("new")], "method"),
    Rule {
        with: FUNCTION_VALUE,
        ..def(
            "public_field_definition",
            &[field(
                "name",
                &["property_identifier", "private_property_identifier"],
            )],
            "method",
        )
    },
    def("internal_module", NAME, "module"),
];

/// Kinds the walk does not enter although the grammar lets a definition be below them: a
/// C or C++ parameter list (`void f(int g(int))` declares no function `g` that ctags or a
/// reader would list), a C++ qualified name (`A::B::f`, whose parts a rule reads from the
/// declarator above it). A sixth of a C++ header's nodes are below them.
fn opaque(lang: Lang) -> &'static [&'static str] {
    match lang {
        Lang::C => &["parameter_list"],
        Lang::Cpp => &["parameter_list", "qualified_identifier"],
        _ => &[],
    }
}

/// Each language's tables, in the order `Lang::grammar` (`lib.rs`) joins its queries.
fn tables(lang: Lang) -> (Language, &'static [&'static [Rule]], &'static str) {
    match lang {
        Lang::Rust => (
            tree_sitter_rust::LANGUAGE.into(),
            &[RUST],
            tree_sitter_rust::NODE_TYPES,
        ),
        Lang::Go => (
            tree_sitter_go::LANGUAGE.into(),
            &[GO],
            tree_sitter_go::NODE_TYPES,
        ),
        Lang::Python => (
            tree_sitter_python::LANGUAGE.into(),
            &[PYTHON],
            tree_sitter_python::NODE_TYPES,
        ),
        Lang::Java => (
            tree_sitter_java::LANGUAGE.into(),
            &[JAVA],
            tree_sitter_java::NODE_TYPES,
        ),
        Lang::C => (
            tree_sitter_c::LANGUAGE.into(),
            &[C],
            tree_sitter_c::NODE_TYPES,
        ),
        Lang::Cpp => (
            tree_sitter_cpp::LANGUAGE.into(),
            &[CPP],
            tree_sitter_cpp::NODE_TYPES,
        ),
        Lang::JavaScript => (
            tree_sitter_javascript::LANGUAGE.into(),
            &[JAVASCRIPT_TAGS, JAVASCRIPT_EXTRA, JAVASCRIPT_FIELDS],
            tree_sitter_javascript::NODE_TYPES,
        ),
        Lang::TypeScript => (
            tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
            &[
                JAVASCRIPT_TAGS,
                TYPESCRIPT_TAGS,
                JAVASCRIPT_EXTRA,
                TYPESCRIPT_EXTRA,
            ],
            tree_sitter_typescript::TYPESCRIPT_NODE_TYPES,
        ),
        Lang::Tsx => (
            tree_sitter_typescript::LANGUAGE_TSX.into(),
            &[
                JAVASCRIPT_TAGS,
                TYPESCRIPT_TAGS,
                JAVASCRIPT_EXTRA,
                TYPESCRIPT_EXTRA,
            ],
            tree_sitter_typescript::TSX_NODE_TYPES,
        ),
    }
}

/// A [`Down`] with its field's id (0: any child) and its kinds' ids (comparing the names
/// was a tenth of the walk).
#[derive(Clone)]
struct DownId {
    field: u16,
    kinds: KindIds,
}

/// [`Kinds`] by id: every id a kind's name has (a grammar may give one name several
/// symbols, aliases).
#[derive(Clone)]
enum KindIds {
    Named(Vec<u16>),
    AnyNamed,
    Token(Vec<u16>),
}

/// A grammar's kind ids by name, named nodes' and tokens' apart (a grammar may give one name
/// several symbols, aliases), built once per walker instead of a scan of every kind per name.
struct KindNames<'l> {
    named: HashMap<&'l str, Vec<u16>>,
    tokens: HashMap<&'l str, Vec<u16>>,
}

impl<'l> KindNames<'l> {
    fn new(language: &'l Language) -> Self {
        let mut names = Self {
            named: HashMap::new(),
            tokens: HashMap::new(),
        };
        for id in (0..language.node_kind_count()).filter_map(|id| u16::try_from(id).ok()) {
            let Some(kind) = language.node_kind_for_id(id) else {
                continue;
            };
            let map = if language.node_kind_is_named(id) {
                &mut names.named
            } else {
                &mut names.tokens
            };
            map.entry(kind).or_default().push(id);
        }
        names
    }

    /// The ids of the kinds named `names`, named nodes' or tokens', in id order.
    fn ids(&self, names: &[&str], named: bool) -> Vec<u16> {
        let map = if named { &self.named } else { &self.tokens };
        let mut ids: Vec<u16> = names
            .iter()
            .filter_map(|name| map.get(name))
            .flatten()
            .copied()
            .collect();
        ids.sort_unstable();
        ids.dedup();
        ids
    }
}

/// Sets the flags of the kinds `ids` to `value`.
fn set(flags: &mut [bool], ids: &[u16], value: bool) {
    for &id in ids {
        if let Some(flag) = flags.get_mut(usize::from(id)) {
            *flag = value;
        }
    }
}

/// A rule with its field ids resolved.
struct Compiled {
    /// Its place in the language's tables: the query's pattern order (a lower one wins).
    order: usize,
    /// [`Rule::up`], as (field id or 0, the kind's ids).
    up: Vec<(u16, Vec<u16>)>,
    name: Vec<DownId>,
    with: Vec<DownId>,
    text: Option<NameIs>,
    tag: Tag,
}

/// A language's rules, by node kind id.
pub(crate) struct Walker {
    pub(crate) language: Language,
    by_kind: Vec<Vec<Compiled>>,
    /// By kind id: whether a node of the kind may hold a definition below it, by the
    /// grammar's `node-types.json` (a node whose subtree has an error is entered anyway).
    descend: Vec<bool>,
    /// By kind id: whether a rule asks under which field a node of the kind sits (looking the
    /// field up for every node was some 10 % of the walk over Node's modules).
    needs_field: Vec<bool>,
}

/// A definition the walk found.
pub(crate) struct RawTag {
    pub(crate) name_range: Range<usize>,
    pub(crate) line_range: Range<usize>,
    pub(crate) row: usize,
    pub(crate) syntax: &'static str,
}

/// A name a rule matched, before the earliest rule per name is kept.
struct Found {
    name_range: Range<usize>,
    order: usize,
    /// Where the query would finish the match: the last node its pattern reaches (the name,
    /// or a child it must have after it, `value: (arrow_function)`).
    finish: Preorder,
    /// The name's first and last rows.
    rows: (usize, usize),
    column: usize,
    tag: Tag,
}

/// The text a tree was parsed from: the source, or a skeleton joined from it.
struct Text<'a> {
    source: &'a [u8],
    joined: Option<&'a Joined>,
}

impl Text<'_> {
    /// Where `node` is in the source: its bytes and its start.
    fn position(&self, node: Node<'_>) -> (Range<usize>, Point) {
        let range = node.byte_range();
        match self.joined {
            None => (range, node.start_position()),
            Some(joined) => {
                let (start, point) = joined.position(range.start, node.start_position());
                (start..start + range.len(), point)
            }
        }
    }
}

/// A node's place in a walk of the tree (start, then the larger node, then the deeper).
type Preorder = (usize, std::cmp::Reverse<usize>, usize);

fn preorder(node: Node<'_>, depth: usize) -> Preorder {
    (node.start_byte(), std::cmp::Reverse(node.end_byte()), depth)
}

/// The language's walker, built once per process; `None` if its rules name a kind or a field
/// its grammar lacks (which the tests rule out).
pub(crate) fn walker(lang: Lang) -> Option<&'static Walker> {
    static WALKERS: [OnceLock<Option<Walker>>; 9] = [const { OnceLock::new() }; 9];
    WALKERS
        .get(lang.index())?
        .get_or_init(|| {
            let (language, tables, node_types) = tables(lang);
            Walker::new(language, tables, node_types, opaque(lang))
        })
        .as_ref()
}

impl Walker {
    fn new(
        language: Language,
        tables: &[&'static [Rule]],
        node_types: &str,
        opaque: &[&str],
    ) -> Option<Self> {
        let count = language.node_kind_count();
        let mut by_kind: Vec<Vec<Compiled>> = (0..count).map(|_| Vec::new()).collect();
        let field_id = |field: Option<&str>| -> Option<u16> {
            match field {
                None => Some(0),
                Some(name) => Some(language.field_id_for_name(name)?.get()),
            }
        };
        let names = KindNames::new(&language);
        let known = |kind: &str| language.id_for_node_kind(kind, true) != 0;
        let down = |steps: &[Down]| -> Option<Vec<DownId>> {
            steps
                .iter()
                .map(|step| {
                    let ok = match step.kinds {
                        Kinds::Named(kinds) => kinds.iter().all(|k| known(k)),
                        Kinds::AnyNamed => true,
                        Kinds::Token(text) => language.id_for_node_kind(text, false) != 0,
                    };
                    ok.then_some(DownId {
                        field: field_id(step.field)?,
                        kinds: match step.kinds {
                            Kinds::Named(kinds) => KindIds::Named(names.ids(kinds, true)),
                            Kinds::AnyNamed => KindIds::AnyNamed,
                            Kinds::Token(text) => KindIds::Token(names.ids(&[text], false)),
                        },
                    })
                })
                .collect()
        };
        let rules = tables.iter().flat_map(|t| t.iter());
        for (order, rule) in rules.clone().enumerate() {
            let up = rule
                .up
                .iter()
                .map(|u| {
                    let ids = names.ids(&[u.kind], true);
                    Some((field_id(u.field)?, (!ids.is_empty()).then_some(ids)?))
                })
                .collect::<Option<Vec<_>>>()?;
            let (name, with) = (down(rule.name)?, down(rule.with)?);
            let ids = names.ids(&[rule.kind], true);
            if ids.is_empty() {
                return None;
            }
            for id in ids {
                by_kind.get_mut(usize::from(id))?.push(Compiled {
                    order,
                    up: up.clone(),
                    name: name.clone(),
                    with: with.clone(),
                    text: rule.text,
                    tag: rule.tag,
                });
            }
        }
        // The kinds whose field a rule asks: the starting node's if the first step up names a
        // field, an ancestor's if the step above it does.
        let mut fielded: Vec<&str> = Vec::new();
        for rule in rules.clone() {
            let below = std::iter::once(rule.kind).chain(rule.up.iter().map(|u| u.kind));
            for (kind, step) in below.zip(rule.up) {
                if step.field.is_some() {
                    fielded.push(kind);
                }
            }
        }
        let mut needs_field = vec![false; count];
        set(&mut needs_field, &names.ids(&fielded, true), true);
        let mut descend = descend(&language, rules.map(|r| r.kind), node_types);
        set(&mut descend, &names.ids(opaque, true), false);
        Some(Self {
            language,
            by_kind,
            descend,
            needs_field,
        })
    }

    /// The definitions in `tree`, in `tree_sitter_tags`' order (see [`kept`]); `tree` is of
    /// `source`, or of `joined` when it is given (a skeleton joined from `source`).
    pub(crate) fn tags(&self, tree: &Tree, source: &[u8], joined: Option<&Joined>) -> Vec<RawTag> {
        let text = Text { source, joined };
        let mut found = Vec::new();
        let mut cursor = tree.walk();
        // For the rules' steps down, not to disturb the walk.
        let mut scratch = tree.walk();
        // The children of the node the rules start at, each with its field id.
        let mut children: Vec<(Node<'_>, u16)> = Vec::new();
        // The nodes above the cursor, each with the field under which it sits in its parent.
        let mut ancestors: Vec<(Node<'_>, u16)> = Vec::new();
        loop {
            let node = cursor.node();
            // The field under which the node sits, where a rule asks (else 0, none).
            let field = if self
                .needs_field
                .get(usize::from(node.kind_id()))
                .is_some_and(|n| *n)
            {
                cursor.field_id().map_or(0, |f| f.get())
            } else {
                0
            };
            if let Some(rules) = self.by_kind.get(usize::from(node.kind_id()))
                && !rules.is_empty()
            {
                children.clear();
                scratch.reset(node);
                if scratch.goto_first_child() {
                    loop {
                        let field = scratch.field_id().map_or(0, |id| id.get());
                        children.push((scratch.node(), field));
                        if !scratch.goto_next_sibling() {
                            break;
                        }
                    }
                }
                for rule in rules {
                    let site = Site {
                        node,
                        field,
                        ancestors: &ancestors,
                        children: &children,
                    };
                    rule.find(&site, &mut scratch, &text, &mut found);
                }
            }
            let enter = self
                .descend
                .get(usize::from(node.kind_id()))
                .is_none_or(|d| *d)
                || node.has_error();
            if enter && cursor.goto_first_child() {
                ancestors.push((node, field));
                continue;
            }
            loop {
                if cursor.goto_next_sibling() {
                    break;
                }
                if !cursor.goto_parent() {
                    return kept(found, source);
                }
                ancestors.pop();
            }
        }
    }
}

/// A node the walk is at, where rules start.
struct Site<'a, 't> {
    node: Node<'t>,
    /// The field under which it sits in its parent (0: none).
    field: u16,
    /// The nodes above it, each with the field under which it sits in its parent.
    ancestors: &'a [(Node<'t>, u16)],
    /// Its children, each with its field.
    children: &'a [(Node<'t>, u16)],
}

impl Compiled {
    /// Adds to `found` the names this rule finds from the node at `site`.
    fn find<'t>(
        &self,
        site: &Site<'_, 't>,
        scratch: &mut TreeCursor<'t>,
        text: &Text<'_>,
        found: &mut Vec<Found>,
    ) {
        let Site {
            node,
            field,
            ancestors,
            children,
        } = *site;
        // Up: each ancestor's kind, and the field under which the node below sits in it.
        let mut below = field;
        let mut above = ancestors.iter().rev();
        for (want_field, ids) in &self.up {
            let Some(&(ancestor, its_field)) = above.next() else {
                return;
            };
            if *want_field != 0 && *want_field != below || !ids.contains(&ancestor.kind_id()) {
                return;
            }
            below = its_field;
        }
        let depth = ancestors.len();
        // The children it must have, the last of them where the query's match would finish.
        let mut finish = None;
        for step in &self.with {
            let first = children
                .iter()
                .find(|&&(child, field)| step.matches(child, field))
                .map(|&(child, _)| child);
            let Some(child) = first else {
                return;
            };
            finish = finish.max(Some(preorder(child, depth + 1)));
        }
        each_from(node, children, scratch, &self.name, &mut |name| {
            let (name_range, start) = text.position(name);
            let name_text = text.source.get(name_range.clone()).unwrap_or_default();
            match self.text {
                Some(NameIs::Is(want)) if name_text != want.as_bytes() => return,
                Some(NameIs::IsNot(not)) if name_text == not.as_bytes() => return,
                _ => {}
            }
            // As `tree_sitter_tags`: a name with an error in it is no tag (an ignored one
            // still hides the name).
            if matches!(self.tag, Tag::Definition(_)) && name.has_error() {
                return;
            }
            let at = preorder(name, depth + self.name.len());
            let end_row = start.row + name_text.iter().filter(|&&b| b == b'\n').count();
            found.push(Found {
                name_range,
                order: self.order,
                finish: finish.map_or(at, |f| f.max(at)),
                rows: (start.row, end_row),
                column: start.column,
                tag: self.tag,
            });
        });
    }
}

impl DownId {
    /// Whether `child`, under `field` (0: none), is one this step goes to.
    fn matches(&self, child: Node<'_>, field: u16) -> bool {
        (self.field == 0 || self.field == field)
            && match &self.kinds {
                KindIds::Named(ids) | KindIds::Token(ids) => ids.contains(&child.kind_id()),
                KindIds::AnyNamed => child.is_named(),
            }
    }
}

/// As [`each_along`] from `node`, whose children (each with its field id, 0: none) are
/// `children`: they are listed once for all of a node's rules (each rule going over them
/// again was a sixth of a C++ header's walk).
fn each_from<'t>(
    node: Node<'t>,
    children: &[(Node<'t>, u16)],
    cursor: &mut TreeCursor<'t>,
    steps: &[DownId],
    f: &mut impl FnMut(Node<'t>),
) {
    let Some((step, rest)) = steps.split_first() else {
        f(node);
        return;
    };
    for &(child, field) in children {
        if step.matches(child, field) {
            cursor.reset(child);
            each_along(cursor, rest, f);
        }
    }
}

/// Calls `f` with each node reached from the cursor's node along `steps`, each step to every
/// child that matches it (as the query tries them all: `typedef struct {..} A, *PA;`); leaves
/// the cursor where it was.
fn each_along<'t>(cursor: &mut TreeCursor<'t>, steps: &[DownId], f: &mut impl FnMut(Node<'t>)) {
    let Some((step, rest)) = steps.split_first() else {
        f(cursor.node());
        return;
    };
    if !cursor.goto_first_child() {
        return;
    }
    loop {
        let field = if step.field == 0 {
            0
        } else {
            cursor.field_id().map_or(0, |id| id.get())
        };
        if step.matches(cursor.node(), field) {
            each_along(cursor, rest, f);
        }
        if !cursor.goto_next_sibling() {
            break;
        }
    }
    cursor.goto_parent();
}

/// What `tree_sitter_tags` keeps of the names found, in its order. It takes the matches in the
/// order they finish, queues their tags by name (end, then start), one per name, from the
/// earliest pattern (an `@ignore` hides the name), and hands out the first queued tag once a
/// later name has started: so a match finishing after a later name (`const f: { m(): void } =
/// () => {}`, finished at its value) comes out after that name's tag.
fn kept(mut found: Vec<Found>, source: &[u8]) -> Vec<RawTag> {
    found.sort_by_key(|f| (f.finish, f.order));
    // Queued: each name's tag (`None`: ignored) and the pattern that made it.
    let mut queue: Vec<(Range<usize>, Option<RawTag>, usize)> = Vec::new();
    let mut out: Vec<RawTag> = Vec::new();
    // `tree_sitter_tags` gives a tag on the row where the previous tag's name ends that tag's
    // line (a multi-line name's first line).
    let mut previous: Option<(usize, Range<usize>)> = None;
    for f in found {
        while queue.len() > 1
            && queue
                .last()
                .is_some_and(|last| queue[0].0.end < last.0.start)
        {
            out.extend(queue.remove(0).1);
        }
        let tag = match f.tag {
            Tag::Ignore => None,
            Tag::Definition(syntax) => {
                let line_range = match &previous {
                    Some((row, line)) if *row == f.rows.0 => line.clone(),
                    _ => line_range(source, f.name_range.start, f.column),
                };
                previous = Some((f.rows.1, line_range.clone()));
                Some(RawTag {
                    name_range: f.name_range.clone(),
                    line_range,
                    row: f.rows.0,
                    syntax,
                })
            }
        };
        let key = (f.name_range.end, f.name_range.start);
        match queue.binary_search_by_key(&key, |(range, _, _)| (range.end, range.start)) {
            Ok(i) => {
                if queue[i].2 > f.order {
                    queue[i] = (f.name_range, tag, f.order);
                }
            }
            Err(i) => queue.insert(i, (f.name_range, tag, f.order)),
        }
    }
    out.extend(queue.into_iter().filter_map(|(_, tag, _)| tag));
    out
}

/// By kind id: whether a node of the kind may hold one of `kinds` (those rules start at) below it, from the
/// grammar's node types (the kinds of each kind's children and fields, supertypes expanded,
/// to a fixed point). Kinds the node types do not describe (`ERROR`) are entered.
fn descend<'a>(
    language: &Language,
    kinds: impl Iterator<Item = &'a str>,
    node_types: &str,
) -> Vec<bool> {
    use std::borrow::Cow;
    use std::collections::HashSet;
    /// A kind as `node-types.json` names it (borrowed from the text unless escaped).
    #[derive(serde::Deserialize)]
    struct KindRef<'t> {
        #[serde(rename = "type", borrow)]
        kind: Cow<'t, str>,
        named: bool,
    }
    #[derive(serde::Deserialize)]
    struct Children<'t> {
        #[serde(default, borrow)]
        types: Vec<KindRef<'t>>,
    }
    /// One entry of `node-types.json`; what the walk does not need is not read.
    #[derive(serde::Deserialize)]
    struct NodeType<'t> {
        #[serde(flatten, borrow)]
        this: KindRef<'t>,
        #[serde(default, borrow)]
        subtypes: Vec<KindRef<'t>>,
        #[serde(default, borrow)]
        fields: HashMap<Cow<'t, str>, Children<'t>>,
        #[serde(default, borrow)]
        children: Option<Children<'t>>,
    }
    let count = language.node_kind_count();
    let Ok(types) = serde_json::from_str::<Vec<NodeType<'_>>>(node_types) else {
        return vec![true; count];
    };
    fn named<'r>(r: &'r KindRef<'_>) -> Option<&'r str> {
        r.named.then_some(r.kind.as_ref())
    }
    // Each named kind's possible named children (fields' and others'), and each supertype's
    // subtypes.
    let mut children: HashMap<&str, HashSet<&str>> = HashMap::new();
    for t in &types {
        let Some(kind) = named(&t.this) else { continue };
        let entry = children.entry(kind).or_default();
        entry.extend(t.subtypes.iter().filter_map(named));
        for list in t.fields.values().chain(&t.children) {
            entry.extend(list.types.iter().filter_map(named));
        }
    }
    // Kinds that are, or may hold, a definition.
    let mut holds: HashSet<&str> = kinds.collect();
    loop {
        let before = holds.len();
        for (kind, kids) in &children {
            if !holds.contains(kind) && kids.iter().any(|k| holds.contains(k)) {
                holds.insert(kind);
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
