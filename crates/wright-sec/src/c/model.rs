//! The facts of one function, gathered in one walk of its tree: the variables it declares
//! (with array sizes and element types), and the events in source order — assignments,
//! writes through pointers, calls (through macros), NULL checks, uses, frees and jumps —
//! each placed in a *frame* (the branch, loop body or case it runs in) so the rules can ask
//! whether one event can reach another without a full control-flow graph.

use std::collections::HashMap;

use tree_sitter::Node;

use super::macros::Macros;
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
];

/// Calls whose arguments are conditions (a pointer named in one is checked).
const ASSERTS: &[&str] = &[
    "assert", "ASSERT", "g_assert", "BUG_ON", "WARN_ON", "likely", "unlikely",
];

/// How many earlier events of a variable a question looks back at (a bound on the work
/// for a variable assigned thousands of times).
pub const MAX_LOOKBACK: usize = 64;

/// How many branches deep frames are kept apart.
const MAX_FRAME_LEVEL: usize = 48;

/// How deep a function's tree may be for the rules that look up the tree to run: asking
/// tree-sitter for a parent costs the depth.
pub const MAX_TREE_DEPTH: usize = 400;

/// How a variable is declared.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Shape {
    /// `T name[N]`: `N` elements when constant; `None` for a variable-length array.
    Array(Option<i64>),
    Pointer,
    Scalar,
}

/// A declared variable (or parameter).
#[derive(Debug, Clone)]
pub struct Var<'t> {
    pub shape: Shape,
    /// Bytes per element of an array, or of what a pointer points to.
    pub elem_size: i64,
    pub is_param: bool,
    pub is_static: bool,
    /// The declaration, for its line.
    pub node: Node<'t>,
    /// The array declarator's size expression (for VLAs).
    pub size_expr: Option<Node<'t>>,
    pub initialised: bool,
    /// The bytes of the block the variable lives in (the function for parameters).
    pub scope: (usize, usize),
    /// Whether its elements (or what it points to) are bytes: `char`, `uint8_t`.
    pub bytes: bool,
    /// Whether the type is `const` (what a `const char *` points to is not written through it).
    pub constant: bool,
    /// Whether the type is a C scalar type (a class object may be set by its constructor).
    pub primitive: bool,
}

/// Where an event runs: a branch of an `if` or `?:`, a loop body or a `switch` case.
#[derive(Debug, Clone)]
pub struct Frame {
    pub parent: Option<usize>,
    /// The `if`/`switch` this is an arm of (its node id), and which arm.
    pub owner: Option<(usize, usize)>,
    /// Whether the code in it may not run when the code around it does.
    pub conditional: bool,
    /// Whether it is a loop or `switch` body (where `break` goes out of).
    pub breakable: bool,
    pub start: usize,
    pub end: usize,
    /// How many frames it is inside.
    pub level: usize,
}

/// What happened.
#[derive(Debug, Clone)]
pub enum Kind<'t> {
    /// `var = value` (or a declaration's initialiser); `compound` for `+=`, `++`, ….
    Assign {
        var: String,
        value: Node<'t>,
        compound: bool,
    },
    /// A write through `var`: `var[i] = value`, `*var = value`, `var->f = value`, `var.f = value`.
    Store {
        var: String,
        value: Node<'t>,
        index: Option<Node<'t>>,
    },
    Call(Call<'t>),
    /// `var` is named in a condition; `bound` when compared with `<`, `>`, `<=`, `>=`.
    Check {
        var: String,
        bound: bool,
    },
    /// `var` is read; `deref` when through `*`, `->` or `[]`.
    Use {
        var: String,
        deref: bool,
        in_condition: bool,
    },
    /// `&var`.
    AddressOf {
        var: String,
    },
    /// C++ `delete var` / `delete[] var`.
    Delete {
        var: String,
    },
    /// `return` (`value` its expression), `break`, `continue`, `goto`, or a call that does not return.
    Jump(Jump),
}

/// The ways control leaves the straight line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Jump {
    Return,
    Break,
    Continue,
    Goto,
    Exit,
}

/// A call, named by the API it reaches (through macros).
#[derive(Debug, Clone)]
pub struct Call<'t> {
    pub name: String,
    pub args: Vec<Node<'t>>,
    pub node: Node<'t>,
    /// The call is a statement of its own: its result is dropped.
    pub discarded: bool,
    /// `(void)call(…)`: dropped on purpose.
    pub voided: bool,
}

/// One event: what, where (byte offset; the end for jumps) and in which frame.
#[derive(Debug, Clone)]
pub struct Event<'t> {
    pub at: usize,
    pub end: usize,
    pub frame: usize,
    pub node: Node<'t>,
    pub kind: Kind<'t>,
}

/// A function's facts.
#[derive(Debug)]
pub struct Function<'t> {
    pub name: String,
    pub node: Node<'t>,
    pub variadic: bool,
    /// The parameters' names, in order (empty for an unnamed one).
    pub params: Vec<String>,
    pub vars: HashMap<String, Var<'t>>,
    pub frames: Vec<Frame>,
    pub events: Vec<Event<'t>>,
    /// The depth of its deepest node.
    pub depth: usize,
    /// Each variable's assignments (indexes into `events`), in order.
    assigns: HashMap<String, Vec<usize>>,
    /// Each variable's events (indexes into `events`): the rules look at one variable's
    /// events, not the whole function's, so a huge function stays linear.
    by_var: HashMap<String, Vec<usize>>,
    /// The jumps (indexes into `events`).
    jumps: Vec<usize>,
}

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
        }
    }
}

impl<'t> Function<'t> {
    /// The facts of `node`, a `function_definition`.
    pub fn build(node: Node<'t>, source: &str, macros: &Macros) -> Function<'t> {
        let mut function = Function {
            name: String::new(),
            node,
            variadic: false,
            params: Vec::new(),
            vars: HashMap::new(),
            frames: vec![Frame {
                parent: None,
                owner: None,
                conditional: false,
                breakable: false,
                start: node.start_byte(),
                end: node.end_byte(),
                level: 0,
            }],
            events: Vec::new(),
            depth: 0,
            assigns: HashMap::new(),
            by_var: HashMap::new(),
            jumps: Vec::new(),
        };
        if let Some(declarator) = node.child_by_field_name("declarator") {
            function.read_signature(declarator, source);
        }
        if let Some(body) = node.child_by_field_name("body") {
            function.walk(body, source, macros);
        }
        function.events.sort_by_key(|e| e.at);
        function.index(source);
        function.size_arrays(source, macros);
        function
    }

    /// Builds the per-variable indexes of the (sorted) events.
    fn index(&mut self, source: &str) {
        for (i, e) in self.events.iter().enumerate() {
            let mut vars: Vec<&str> = Vec::new();
            match &e.kind {
                Kind::Assign { var, value, .. } => {
                    self.assigns.entry(var.clone()).or_default().push(i);
                    vars.push(var);
                    names_in(*value, source, &mut vars);
                }
                Kind::AddressOf { var } => {
                    self.assigns.entry(var.clone()).or_default().push(i);
                    vars.push(var);
                }
                Kind::Store { var, value, .. } => {
                    vars.push(var);
                    names_in(*value, source, &mut vars);
                }
                Kind::Check { var, .. } | Kind::Use { var, .. } | Kind::Delete { var } => {
                    vars.push(var)
                }
                Kind::Call(call) => {
                    for arg in &call.args {
                        if let Some((root, _)) = values::root_of(*arg, source)
                            && !vars.contains(&root)
                        {
                            vars.push(root);
                        }
                    }
                }
                Kind::Jump(jump) => {
                    self.jumps.push(i);
                    if *jump == Jump::Return
                        && let Some(value) = e.node.named_child(0)
                    {
                        names_in(value, source, &mut vars);
                    }
                }
            }
            for var in vars {
                let list = self.by_var.entry(var.to_string()).or_default();
                if list.last() != Some(&i) {
                    list.push(i);
                }
            }
        }
    }

    /// The events that name `var` (as assigned, stored through, checked, used, freed, or
    /// an argument's root), in source order.
    pub fn events_of<'a>(&'a self, var: &str) -> impl Iterator<Item = &'a Event<'t>> + 'a {
        self.by_var
            .get(var)
            .into_iter()
            .flatten()
            .filter_map(|i| self.events.get(*i))
    }

    /// The events of `var` at or after byte `at`, in source order.
    pub fn events_of_after<'a>(
        &'a self,
        var: &str,
        at: usize,
    ) -> impl Iterator<Item = &'a Event<'t>> + 'a {
        let list = self.by_var.get(var).map_or(&[][..], |l| l.as_slice());
        let first = list.partition_point(|i| self.events.get(*i).is_some_and(|e| e.at < at));
        list.get(first..)
            .unwrap_or(&[])
            .iter()
            .filter_map(|i| self.events.get(*i))
    }

    /// The events of `var` before byte `at`, nearest first.
    pub fn events_of_before<'a>(
        &'a self,
        var: &str,
        at: usize,
    ) -> impl Iterator<Item = &'a Event<'t>> + 'a {
        let list = self.by_var.get(var).map_or(&[][..], |l| l.as_slice());
        let end = list.partition_point(|i| self.events.get(*i).is_some_and(|e| e.at < at));
        list.get(..end)
            .unwrap_or(&[])
            .iter()
            .rev()
            .filter_map(|i| self.events.get(*i))
    }

    /// The `return`s, exits, `break`s, `continue`s and `goto`s, in source order.
    pub fn jumps<'a>(&'a self) -> impl Iterator<Item = &'a Event<'t>> + 'a {
        self.jumps.iter().filter_map(|i| self.events.get(*i))
    }

    /// Gives arrays their element counts: a constant size (`buf[N + 1]`), or the length of
    /// the string that initialises `buf[]`.
    fn size_arrays(&mut self, source: &str, macros: &Macros) {
        // `const int n = 4; char b[n];`: a constant, not a variable length.
        let locals: HashMap<String, i64> = self
            .events
            .iter()
            .filter_map(|e| match &e.kind {
                Kind::Assign {
                    var,
                    value,
                    compound: false,
                } if self.vars.get(var).is_some_and(|v| v.constant) => {
                    values::constant_int(*value, source, macros).map(|n| (var.clone(), n))
                }
                _ => None,
            })
            .collect();
        for (name, var) in self.vars.iter_mut() {
            if var.shape != Shape::Array(None) {
                continue;
            }
            let count = match var.size_expr {
                Some(size) => values::constant_int(size, source, macros).or_else(|| {
                    values::constant_with(size, source, &|name| locals.get(name).copied())
                }),
                None => self.events.iter().find_map(|e| match &e.kind {
                    Kind::Assign { var: v, value, .. } if v == name => {
                        super::macros::literal_length(text(*value, source))
                            .and_then(|n| i64::try_from(n + 1).ok())
                    }
                    _ => None,
                }),
            };
            var.shape = Shape::Array(count);
        }
    }

    fn read_signature(&mut self, declarator: Node<'t>, source: &str) {
        // The function_declarator may sit under pointer declarators (`char *f(void)`).
        let mut stack = vec![declarator];
        while let Some(node) = stack.pop() {
            if node.kind() == "function_declarator" {
                if let Some(name) = node.child_by_field_name("declarator") {
                    self.name = text(name, source).to_string();
                }
                if let Some(params) = node.child_by_field_name("parameters") {
                    let mut cursor = params.walk();
                    for param in params.named_children(&mut cursor) {
                        if param.kind() == "variadic_parameter" || text(param, source) == "..." {
                            self.variadic = true;
                        } else if param.kind() == "parameter_declaration" {
                            self.declare(param, None, source, true, false, (0, usize::MAX));
                            let name = param
                                .child_by_field_name("declarator")
                                .and_then(values::declared_name)
                                .map_or_else(String::new, |n| text(n, source).to_string());
                            self.params.push(name);
                        }
                    }
                }
                return;
            }
            if let Some(inner) = node.child_by_field_name("declarator") {
                stack.push(inner);
            }
        }
    }

    /// Declares the variable of `declarator` (a parameter, or one declarator of a declaration).
    fn declare(
        &mut self,
        decl: Node<'t>,
        declarator: Option<Node<'t>>,
        source: &str,
        is_param: bool,
        initialised: bool,
        scope: (usize, usize),
    ) {
        let mut initialised = initialised;
        let type_text = decl
            .child_by_field_name("type")
            .map_or("", |t| text(t, source));
        let is_static = text(decl, source).starts_with("static");
        let Some(mut node) = declarator.or_else(|| decl.child_by_field_name("declarator")) else {
            return;
        };
        let mut shape = Shape::Scalar;
        let mut size_expr = None;
        for _ in 0..32 {
            match node.kind() {
                "identifier" => {
                    let known = values::type_size(type_text);
                    let elem_size = known.unwrap_or(1);
                    self.vars.insert(
                        text(node, source).to_string(),
                        Var {
                            shape,
                            elem_size,
                            is_param,
                            is_static,
                            node: decl,
                            size_expr,
                            initialised,
                            primitive: known.is_some() || shape == Shape::Pointer,
                            bytes: known == Some(1),
                            scope,
                            constant: text(decl, source)
                                .trim_start_matches("static ")
                                .starts_with("const"),
                        },
                    );
                    return;
                }
                // `size_t n(len);` in C++: a variable initialised, not a function.
                "function_declarator" => initialised = true,
                "pointer_declarator" | "reference_declarator" if shape == Shape::Scalar => {
                    shape = Shape::Pointer;
                }
                "array_declarator" => {
                    if is_param {
                        shape = Shape::Pointer;
                    } else if shape == Shape::Scalar {
                        size_expr = node.child_by_field_name("size");
                        shape = Shape::Array(None);
                    }
                }
                _ => {}
            }
            match node
                .child_by_field_name("declarator")
                .or_else(|| node.named_child(0))
            {
                Some(inner) => node = inner,
                None => return,
            }
        }
    }

    fn push_frame(
        &mut self,
        parent: usize,
        node: Node<'t>,
        owner: Option<(usize, usize)>,
        conditional: bool,
        breakable: bool,
    ) -> usize {
        let level = self.frames.get(parent).map_or(0, |p| p.level + 1);
        if level > MAX_FRAME_LEVEL {
            // Deeper branches share their parent's frame: the questions stay cheap.
            return parent;
        }
        self.frames.push(Frame {
            level,
            parent: Some(parent),
            owner,
            conditional,
            breakable,
            start: node.start_byte(),
            end: node.end_byte(),
        });
        self.frames.len() - 1
    }

    fn event(&mut self, node: Node<'t>, frame: usize, kind: Kind<'t>) {
        self.events.push(Event {
            at: node.start_byte(),
            end: node.end_byte(),
            frame,
            node,
            kind,
        });
    }

    /// The one walk: an explicit stack, children pushed in reverse so they come out in
    /// source order.
    fn walk(&mut self, body: Node<'t>, source: &str, macros: &Macros) {
        let mut stack = vec![Item {
            node: body,
            frame: 0,
            condition: false,
            parent: None,
            depth: 0,
            dropped: 0,
        }];
        while let Some(Item {
            node,
            frame,
            condition,
            parent,
            depth,
            dropped,
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
                "update_expression" => {
                    if let Some(arg) = node.child_by_field_name("argument") {
                        if arg.kind() == "identifier" {
                            let var = text(arg, source).to_string();
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
                        // A comparison with a bound; one with 0 only checks the sign.
                        let bound = parent.is_some_and(|p| {
                            p.kind() == "binary_expression"
                                && p.child_by_field_name("operator").is_some_and(|o| {
                                    matches!(text(o, source), "<" | ">" | "<=" | ">=")
                                })
                                && !["left", "right"].iter().any(|side| {
                                    p.child_by_field_name(side).is_some_and(|s| {
                                        matches!(text(s, source).trim(), "0" | "-1" | "0U" | "0u")
                                    })
                                })
                        });
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
                child
            }));
        }
    }

    fn array_size_node(&self, declarator: Node<'t>) -> Option<Node<'t>> {
        (declarator.kind() == "array_declarator")
            .then(|| declarator.child_by_field_name("size"))
            .flatten()
    }

    /// The frames `frame` sits in, innermost first.
    pub fn frames_of(&self, frame: usize) -> impl Iterator<Item = &Frame> {
        let mut next = Some(frame);
        std::iter::from_fn(move || {
            let f = self.frames.get(next?)?;
            next = f.parent;
            Some(f)
        })
    }

    /// Whether `a` and `b` are in different arms of one `if`, `?:` or `switch`.
    pub fn exclusive(&self, a: &Event<'_>, b: &Event<'_>) -> bool {
        self.frames_of(a.frame).any(|fa| {
            fa.owner.is_some_and(|(owner, arm)| {
                self.frames_of(b.frame).any(|fb| {
                    fb.owner
                        .is_some_and(|(o, other)| o == owner && other != arm)
                })
            })
        })
    }

    /// Whether every branch `x` runs in also holds `b`: when `b` runs (after `x`), `x` did.
    pub fn dominates(&self, x: &Event<'_>, b: &Event<'_>) -> bool {
        self.frames_of(x.frame)
            .filter(|f| f.conditional)
            .all(|f| f.start <= b.at && b.at < f.end)
    }

    /// Whether control cannot get from `a` to the later `b`: they are exclusive, or a
    /// `return`, exit or (within the loop `b` is in) a `break` comes between on every path.
    pub fn unreachable(&self, a: &Event<'_>, b: &Event<'_>) -> bool {
        if self.exclusive(a, b) {
            return true;
        }
        let first = self
            .jumps
            .partition_point(|i| self.events.get(*i).is_some_and(|j| j.at <= a.end));
        self.jumps
            .get(first..)
            .unwrap_or(&[])
            .iter()
            .filter_map(|i| self.events.get(*i))
            .take_while(|j| j.at < b.at)
            .any(|j| {
                let Kind::Jump(kind) = j.kind else {
                    return false;
                };
                let follows_a = self
                    .frames_of(j.frame)
                    .filter(|f| f.conditional)
                    .all(|f| f.start <= a.at && a.at < f.end);
                let b_after = match kind {
                    Jump::Return | Jump::Exit => true,
                    Jump::Break | Jump::Continue => self
                        .frames_of(j.frame)
                        .find(|f| f.breakable)
                        .is_some_and(|f| f.start <= b.at && b.at < f.end),
                    Jump::Goto => false,
                };
                follows_a && b_after
            })
    }

    /// The assignment to `var` that `before` sees: the last one before it not in another
    /// arm (`&var` passed somewhere counts as one).
    pub fn last_assign(&self, var: &str, before: &Event<'_>) -> Option<&Event<'t>> {
        let list = self.assigns.get(var)?;
        let end = list.partition_point(|i| self.events.get(*i).is_some_and(|e| e.at < before.at));
        list.get(..end)?
            .iter()
            .rev()
            .take(MAX_LOOKBACK)
            .filter_map(|i| self.events.get(*i))
            .find(|e| !self.exclusive(e, before))
    }

    /// Whether the function is too deep for the rules that walk up the tree.
    pub fn deep(&self) -> bool {
        self.depth > MAX_TREE_DEPTH
    }

    /// The calls, in source order.
    pub fn calls(&self) -> impl Iterator<Item = (&Event<'t>, &Call<'t>)> {
        self.events.iter().filter_map(|e| match &e.kind {
            Kind::Call(call) => Some((e, call)),
            _ => None,
        })
    }
}

/// The names in an expression (a few, from its first nodes): the variables a value is made of.
fn names_in<'s>(node: Node<'_>, source: &'s str, out: &mut Vec<&'s str>) {
    const MAX_NODES: usize = 64;
    let mut stack = vec![node];
    let mut seen = 0;
    while let Some(n) = stack.pop() {
        seen += 1;
        if seen > MAX_NODES {
            break;
        }
        match n.kind() {
            "identifier" => {
                let name = text(n, source);
                if !out.contains(&name) {
                    out.push(name);
                }
            }
            "sizeof_expression" | "string_literal" => {}
            _ => {
                let mut cursor = n.walk();
                stack.extend(n.named_children(&mut cursor));
            }
        }
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
