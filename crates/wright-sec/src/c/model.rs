//! The facts of one function, gathered in one walk of its tree: the variables it declares
//! (with array sizes and element types), and the events in source order — assignments,
//! writes through pointers, calls (through macros), NULL checks, uses, frees and jumps —
//! each placed in a *frame* (the branch, loop body or case it runs in) so the rules can ask
//! whether one event can reach another without a full control-flow graph.

use std::collections::HashMap;

use tree_sitter::Node;

use super::macros::Macros;
use super::parse::text;
use super::values;

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
    /// `var` in arithmetic: `op` is `+`, `-` or `*` (may wrap), or `/` when it is the divisor.
    Arith {
        var: String,
        op: char,
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
                Kind::Arith { var, .. }
                | Kind::Check { var, .. }
                | Kind::Use { var, .. }
                | Kind::Delete { var } => vars.push(var),
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
    pub(super) fn declare(
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
        let mut pointer_elems = false;
        let mut size_expr = None;
        for _ in 0..32 {
            match node.kind() {
                "identifier" => {
                    let known = values::type_size(type_text);
                    let elem_size = if pointer_elems { 8 } else { known.unwrap_or(1) };
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
                    } else if !matches!(shape, Shape::Array(_)) {
                        // `T *a[4]` is an array (of pointers), whatever came before.
                        pointer_elems = shape == Shape::Pointer;
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

    pub(super) fn push_frame(
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

    pub(super) fn event(&mut self, node: Node<'t>, frame: usize, kind: Kind<'t>) {
        self.events.push(Event {
            at: node.start_byte(),
            end: node.end_byte(),
            frame,
            node,
            kind,
        });
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
pub(super) fn names_in<'s>(node: Node<'_>, source: &'s str, out: &mut Vec<&'s str>) {
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
