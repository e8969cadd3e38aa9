//! The walk that gathers a function's facts ([`Function`]): one pass over its tree with an
//! explicit stack (no recursion, so no depth overflows it), placing each event in its frame.

use tree_sitter::Node;

use super::macros::Macros;
use super::model::{Call, Event, Function, Jump, Kind, names_in};
use super::parse::{self, text};
use super::values;

/// Calls after which the function does not go on.
const NORETURN: &[&str] = &[
    "exit",
    "_exit",
    "_Exit",
    "abort",
    "quick_exit",
    "longjmp",
    "siglongjmp",
    "err",
    "errx",
    "pthread_exit",
    "ExitProcess",
    "__assert_fail",
    "usage",
    "die",
    "fatal",
    "panic",
    "error_exit",
    "fatal_error",
    "g_error",
    "Py_FatalError",
];

/// Calls whose arguments are conditions (a pointer named in one is checked).
const ASSERTS: &[&str] = &[
    "assert", "ASSERT", "g_assert", "BUG_ON", "WARN_ON", "likely", "unlikely",
];

/// One item of the walk's stack.
struct Item<'t> {
    node: Node<'t>,
    frame: usize,
    condition: bool,
    /// The node it was reached from (asking tree-sitter for a parent costs the depth).
    parent: Option<Node<'t>>,
    /// How deep in the function's tree it is.
    depth: usize,
    /// Whether its value is dropped: a statement of its own (1), or cast to void there (2).
    dropped: u8,
    /// Whether it is inside a comparison with a bound (`abs((long)n) <= LIMIT`).
    bound: bool,
}

impl<'t> Item<'t> {
    fn new(node: Node<'t>, frame: usize, condition: bool, parent: Node<'t>) -> Item<'t> {
        Item {
            node,
            frame,
            condition,
            parent: Some(parent),
            depth: 0,
            dropped: 0,
            bound: false,
        }
    }
}

impl<'t> Function<'t> {
    /// The one walk: an explicit stack, children pushed in reverse so they come out in
    /// source order.
    pub(super) fn walk(&mut self, body: Node<'t>, source: &str, macros: &Macros) {
        let mut stack = vec![Item {
            node: body,
            frame: 0,
            condition: false,
            parent: None,
            depth: 0,
            dropped: 0,
            bound: false,
        }];
        while let Some(Item {
            node,
            frame,
            condition,
            parent,
            depth,
            dropped,
            bound,
        }) = stack.pop()
        {
            self.depth = self.depth.max(depth);
            let mut children: Vec<Item<'t>> = Vec::new();
            let plain = |n: Node<'t>| Item::new(n, frame, condition, node);
            match node.kind() {
                "comment"
                | "string_literal"
                | "concatenated_string"
                | "char_literal"
                | "number_literal"
                | "sizeof_expression"
                | "alignof_expression"
                | "offsetof_expression"
                | "type_descriptor"
                | "primitive_type"
                | "field_identifier"
                | "preproc_def"
                | "preproc_function_def"
                | "preproc_include"
                | "raw_string_literal" => continue,
                "preproc_if" | "preproc_elif"
                    if parse::is_dead_preprocessor_branch(node, source) =>
                {
                    if let Some(alt) = parse::live_alternative(node) {
                        children.push(plain(alt));
                    }
                }
                // `#if A … #else … #endif`: one arm is compiled, so the arms exclude each other.
                "preproc_if" | "preproc_ifdef" | "preproc_elif" | "preproc_elifdef" => {
                    let id = node.id();
                    let alternative = node.child_by_field_name("alternative");
                    let then = self.push_frame(frame, node, Some((id, 0)), false, false);
                    let mut cursor = node.walk();
                    for child in node.named_children(&mut cursor) {
                        let is_condition = node
                            .child_by_field_name("condition")
                            .or_else(|| node.child_by_field_name("name"))
                            .is_some_and(|c| c.id() == child.id());
                        if is_condition || alternative.is_some_and(|a| a.id() == child.id()) {
                            continue;
                        }
                        children.push(Item::new(child, then, condition, node));
                    }
                    if let Some(alt) = alternative {
                        let other = self.push_frame(frame, alt, Some((id, 1)), false, false);
                        children.push(Item::new(alt, other, condition, node));
                    }
                }
                "if_statement" => {
                    let cond = node.child_by_field_name("condition");
                    let constant = cond.and_then(|c| values::constant_condition(c, source, macros));
                    if let Some(c) = cond {
                        children.push(Item::new(c, frame, true, node));
                    }
                    let id = node.id();
                    if let Some(then) = node.child_by_field_name("consequence")
                        && constant != Some(false)
                    {
                        let f = self.push_frame(
                            frame,
                            then,
                            Some((id, 0)),
                            constant != Some(true),
                            false,
                        );
                        children.push(Item::new(then, f, false, node));
                    }
                    if let Some(alt) = node.child_by_field_name("alternative")
                        && constant != Some(true)
                    {
                        let f = self.push_frame(
                            frame,
                            alt,
                            Some((id, 1)),
                            constant != Some(false),
                            false,
                        );
                        children.push(Item::new(alt, f, false, node));
                    }
                }
                "conditional_expression" => {
                    let id = node.id();
                    if let Some(c) = node.child_by_field_name("condition") {
                        children.push(Item::new(c, frame, true, node));
                    }
                    for (arm, field) in ["consequence", "alternative"].into_iter().enumerate() {
                        if let Some(n) = node.child_by_field_name(field) {
                            let f = self.push_frame(frame, n, Some((id, arm)), true, false);
                            children.push(Item::new(n, f, condition, node));
                        }
                    }
                }
                "while_statement" | "for_statement" | "do_statement" | "for_range_loop" => {
                    let cond = node.child_by_field_name("condition");
                    let constant = cond.and_then(|c| values::constant_condition(c, source, macros));
                    if constant == Some(false) && node.kind() != "do_statement" {
                        continue;
                    }
                    if let Some(init) = node.child_by_field_name("initializer") {
                        children.push(plain(init));
                    }
                    let runs_once = node.kind() == "do_statement" || constant == Some(true);
                    let f = self.push_frame(frame, node, None, !runs_once, true);
                    if let Some(c) = cond {
                        children.push(Item::new(c, frame, true, node));
                    }
                    if let Some(b) = node.child_by_field_name("body") {
                        children.push(Item::new(b, f, false, node));
                    }
                    if let Some(u) = node.child_by_field_name("update") {
                        children.push(Item::new(u, f, false, node));
                    }
                }
                "switch_statement" => {
                    if let Some(c) = node.child_by_field_name("condition") {
                        children.push(Item::new(c, frame, true, node));
                    }
                    let id = node.id();
                    let sw = self.push_frame(frame, node, None, false, true);
                    if let Some(body) = node.child_by_field_name("body") {
                        let mut cursor = body.walk();
                        for (arm, case) in body.named_children(&mut cursor).enumerate() {
                            let f = self.push_frame(sw, case, Some((id, arm)), true, false);
                            children.push(Item::new(case, f, false, node));
                        }
                    }
                }
                "return_statement" | "break_statement" | "continue_statement"
                | "goto_statement" => {
                    let jump = match node.kind() {
                        "return_statement" => Jump::Return,
                        "break_statement" => Jump::Break,
                        "continue_statement" => Jump::Continue,
                        _ => Jump::Goto,
                    };
                    self.events.push(Event {
                        at: node.end_byte().saturating_sub(1),
                        end: node.end_byte(),
                        frame,
                        node,
                        kind: Kind::Jump(jump),
                    });
                    if jump == Jump::Return {
                        push_named_children(node, &mut children, frame, condition);
                    }
                }
                "declaration" => {
                    let scope = parent.map_or((0, usize::MAX), |p| (p.start_byte(), p.end_byte()));
                    let mut cursor = node.walk();
                    let declarators: Vec<Node<'t>> = node
                        .children_by_field_name("declarator", &mut cursor)
                        .collect();
                    for d in declarators {
                        if d.kind() == "init_declarator" {
                            let inner = d.child_by_field_name("declarator");
                            self.declare(node, inner, source, false, true, scope);
                            if let (Some(name), Some(value)) = (
                                inner.and_then(|n| values::declared_name(n)),
                                d.child_by_field_name("value"),
                            ) {
                                if inner.is_some_and(|n| n.kind() == "reference_declarator") {
                                    // `T &r = x;` binds to x: from here x may be set through r.
                                    let mut names = Vec::new();
                                    names_in(value, source, &mut names);
                                    for var in names {
                                        let var = var.to_string();
                                        self.event(d, frame, Kind::AddressOf { var });
                                    }
                                }
                                self.event(
                                    d,
                                    frame,
                                    Kind::Assign {
                                        var: text(name, source).to_string(),
                                        value,
                                        compound: false,
                                    },
                                );
                                children.push(plain(value));
                            }
                        } else {
                            self.declare(node, Some(d), source, false, false, scope);
                            if let Some(size) = self.array_size_node(d) {
                                children.push(plain(size));
                            }
                        }
                    }
                }
                "assignment_expression" => {
                    let (Some(left), Some(right)) = (
                        node.child_by_field_name("left"),
                        node.child_by_field_name("right"),
                    ) else {
                        continue;
                    };
                    let compound = node
                        .child_by_field_name("operator")
                        .is_some_and(|op| text(op, source) != "=");
                    if left.kind() == "identifier" {
                        let var = text(left, source).to_string();
                        if compound {
                            self.event(
                                left,
                                frame,
                                Kind::Use {
                                    var: var.clone(),
                                    deref: false,
                                    in_condition: condition,
                                },
                            );
                        }
                        self.event(
                            node,
                            frame,
                            Kind::Assign {
                                var,
                                value: right,
                                compound,
                            },
                        );
                        if condition {
                            self.event(
                                left,
                                frame,
                                Kind::Check {
                                    var: text(left, source).to_string(),
                                    bound: false,
                                },
                            );
                        }
                    } else {
                        if let Some((root, through)) = values::root_of(left, source) {
                            let index = (left.kind() == "subscript_expression")
                                .then(|| left.child_by_field_name("index"))
                                .flatten();
                            self.event(
                                left,
                                frame,
                                Kind::Store {
                                    var: root.to_string(),
                                    value: right,
                                    index,
                                },
                            );
                            if through {
                                self.event(
                                    left,
                                    frame,
                                    Kind::Use {
                                        var: root.to_string(),
                                        deref: true,
                                        in_condition: condition,
                                    },
                                );
                            }
                        }
                        // Index expressions and the like are still read.
                        push_named_children(left, &mut children, frame, condition);
                        children.retain(|item| {
                            item.node.kind() != "identifier"
                                || item.node.id()
                                    != left.named_child(0).map_or(usize::MAX, |n| n.id())
                        });
                    }
                    children.push(plain(right));
                }
                "binary_expression" => {
                    let op = node
                        .child_by_field_name("operator")
                        .map_or("", |o| text(o, source));
                    let (left, right) = (
                        node.child_by_field_name("left"),
                        node.child_by_field_name("right"),
                    );
                    // A comparison with a bound; one with 0 only checks the sign.
                    let relational = matches!(op, "<" | ">" | "<=" | ">=")
                        && ![left, right]
                            .iter()
                            .flatten()
                            .any(|s| matches!(text(*s, source).trim(), "0" | "-1" | "0U" | "0u"));
                    let arithmetic = matches!(op, "+" | "-" | "*" | "/" | "%");
                    for (side, operand) in [(0, left), (1, right)] {
                        let Some(operand) = operand else { continue };
                        let bare = values::strip(operand);
                        if arithmetic
                            && bare.kind() == "identifier"
                            && (side == 1 || !matches!(op, "/" | "%"))
                        {
                            let op = if side == 1 && matches!(op, "/" | "%") {
                                '/'
                            } else {
                                op.chars().next().unwrap_or('+')
                            };
                            self.event(
                                bare,
                                frame,
                                Kind::Arith {
                                    var: text(bare, source).to_string(),
                                    op,
                                },
                            );
                        }
                        let mut item = plain(operand);
                        item.bound = relational;
                        children.push(item);
                    }
                }
                "update_expression" => {
                    if let Some(arg) = node.child_by_field_name("argument") {
                        if arg.kind() == "identifier" {
                            let var = text(arg, source).to_string();
                            self.event(
                                arg,
                                frame,
                                Kind::Arith {
                                    var: var.clone(),
                                    op: '+',
                                },
                            );
                            self.event(
                                arg,
                                frame,
                                Kind::Use {
                                    var: var.clone(),
                                    deref: false,
                                    in_condition: condition,
                                },
                            );
                            self.event(
                                node,
                                frame,
                                Kind::Assign {
                                    var,
                                    value: node,
                                    compound: true,
                                },
                            );
                        } else {
                            children.push(plain(arg));
                        }
                    }
                }
                "call_expression" => {
                    let function = node.child_by_field_name("function");
                    let name = function
                        .and_then(|f| callee_name(f, source))
                        .map(|n| macros.resolve(n).to_string());
                    let args: Vec<Node<'t>> = node
                        .child_by_field_name("arguments")
                        .map(|a| {
                            let mut cursor = a.walk();
                            a.named_children(&mut cursor)
                                .filter(|n| n.kind() != "comment")
                                .collect()
                        })
                        .unwrap_or_default();
                    let arg_condition =
                        condition || name.as_deref().is_some_and(|n| ASSERTS.contains(&n));
                    if let Some(name) = name {
                        let (discarded, voided) = (dropped > 0, dropped == 2);
                        if NORETURN.contains(&name.as_str()) {
                            self.events.push(Event {
                                at: node.end_byte().saturating_sub(1),
                                end: node.end_byte(),
                                frame,
                                node,
                                kind: Kind::Jump(Jump::Exit),
                            });
                        }
                        self.event(
                            node,
                            frame,
                            Kind::Call(Call {
                                name,
                                args: args.clone(),
                                node,
                                discarded,
                                voided,
                            }),
                        );
                    } else if let Some(f) = function {
                        children.push(plain(f));
                    }
                    for arg in args {
                        children.push(Item::new(arg, frame, arg_condition, node));
                    }
                }
                "delete_expression" => {
                    if let Some((root, _)) =
                        node.named_child(0).and_then(|n| values::root_of(n, source))
                    {
                        self.event(
                            node,
                            frame,
                            Kind::Delete {
                                var: root.to_string(),
                            },
                        );
                    }
                }
                "pointer_expression" => {
                    let op = node.child(0).map_or("", |o| text(o, source));
                    if let Some(arg) = node.child_by_field_name("argument") {
                        if op == "&" {
                            if let Some((root, _)) = values::root_of(arg, source) {
                                self.event(
                                    node,
                                    frame,
                                    Kind::AddressOf {
                                        var: root.to_string(),
                                    },
                                );
                            }
                            push_named_children(arg, &mut children, frame, condition);
                        } else if arg.kind() == "identifier" {
                            self.event(
                                arg,
                                frame,
                                Kind::Use {
                                    var: text(arg, source).to_string(),
                                    deref: true,
                                    in_condition: condition,
                                },
                            );
                        } else {
                            children.push(plain(arg));
                        }
                    }
                }
                "field_expression" | "subscript_expression" => {
                    let arg = node.child_by_field_name("argument");
                    let deref = node.kind() == "subscript_expression"
                        || node
                            .child_by_field_name("operator")
                            .is_some_and(|o| text(o, source) == "->")
                        || text(node, source).contains("->");
                    match arg {
                        Some(a) if a.kind() == "identifier" => {
                            self.event(
                                a,
                                frame,
                                Kind::Use {
                                    var: text(a, source).to_string(),
                                    deref,
                                    in_condition: condition,
                                },
                            );
                        }
                        Some(a) => children.push(plain(a)),
                        None => {}
                    }
                    if let Some(index) = node.child_by_field_name("index") {
                        children.push(plain(index));
                    } else if node.kind() == "subscript_expression" {
                        // Newer grammars wrap the index in a subscript_argument_list.
                        let mut cursor = node.walk();
                        for c in node.named_children(&mut cursor).skip(1) {
                            children.push(plain(c));
                        }
                    }
                }
                "identifier" => {
                    let var = text(node, source).to_string();
                    if condition {
                        self.event(
                            node,
                            frame,
                            Kind::Check {
                                var: var.clone(),
                                bound,
                            },
                        );
                    }
                    self.event(
                        node,
                        frame,
                        Kind::Use {
                            var,
                            deref: false,
                            in_condition: condition,
                        },
                    );
                }
                "expression_statement" => {
                    let mut cursor = node.walk();
                    for child in node.named_children(&mut cursor) {
                        let mut item = plain(child);
                        item.dropped = 1;
                        children.push(item);
                    }
                }
                "cast_expression" if dropped == 1 => {
                    let to_void = node
                        .child_by_field_name("type")
                        .is_some_and(|t| text(t, source).trim() == "void");
                    if let Some(value) = node.child_by_field_name("value") {
                        let mut item = plain(value);
                        item.dropped = if to_void { 2 } else { 1 };
                        children.push(item);
                    }
                }
                "gnu_asm_expression" | "asm_statement" => {
                    // Inline assembly's operands may all be written.
                    let mut names = Vec::new();
                    names_in(node, source, &mut names);
                    for var in names {
                        let var = var.to_string();
                        self.event(node, frame, Kind::AddressOf { var });
                    }
                }
                "lambda_expression" | "function_definition" => continue,
                _ => push_named_children(node, &mut children, frame, condition),
            }
            stack.extend(children.into_iter().rev().map(|mut child| {
                child.depth = depth + 1;
                child.bound |= bound;
                child
            }));
        }
    }

    fn array_size_node(&self, declarator: Node<'t>) -> Option<Node<'t>> {
        (declarator.kind() == "array_declarator")
            .then(|| declarator.child_by_field_name("size"))
            .flatten()
    }
}

fn push_named_children<'t>(
    node: Node<'t>,
    children: &mut Vec<Item<'t>>,
    frame: usize,
    condition: bool,
) {
    let mut cursor = node.walk();
    for child in node.named_children(&mut cursor) {
        children.push(Item::new(child, frame, condition, node));
    }
}

/// The name a call is to: `f`, `std::f`, `::f`; `None` for method calls and pointers.
pub fn callee_name<'a>(function: Node<'_>, source: &'a str) -> Option<&'a str> {
    match function.kind() {
        "identifier" => Some(text(function, source)),
        "qualified_identifier" => {
            let t = text(function, source);
            let scope = t.rsplit_once("::").map_or("", |(s, _)| s).trim();
            (scope.is_empty() || scope == "std")
                .then(|| {
                    function
                        .child_by_field_name("name")
                        .map(|n| text(n, source))
                })
                .flatten()
        }
        "parenthesized_expression" => function.named_child(0).and_then(|f| callee_name(f, source)),
        _ => None,
    }
}
