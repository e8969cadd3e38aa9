//! One walk over a Rust file's tree: the places a rule may fire (candidates) and the facts that
//! decide how sure it is — which code is unsafe or test code, which names are raw pointers,
//! which pointers were checked for null and which values tested or written before use.
//!
//! The walk is iterative (a tree cursor, no recursion) and stops descending past
//! [`MAX_DEPTH`], so hostile nesting cannot overflow the stack.

use std::collections::{HashMap, HashSet};

use tree_sitter::{Node, Tree};

use super::comments::{self, Comments};
use super::rules;

/// Nodes deeper than this are not looked into (no real code nests so deep).
pub const MAX_DEPTH: usize = 1_000;
/// How many wrappers (parentheses, casts, method receivers) a name is looked for through.
const MAX_NAME_STEPS: usize = 32;

/// The context a node sits in, inherited by what it contains.
#[derive(Debug, Clone, Copy, Default)]
pub struct Frame {
    /// The innermost unsafe block or `unsafe fn` around it, an index into [`Facts::unsafe_regions`].
    pub unsafe_region: Option<usize>,
    /// Inside `#[cfg(test)]`, `#[test]` and the like.
    pub test: bool,
    /// The innermost function around it, an index into [`Facts::functions`].
    pub function: Option<usize>,
    /// Inside an `extern { … }` block: raw pointers there are the FFI's own.
    pub foreign: bool,
    /// How many branches and loops (`if`, `match`, `while`, `for`, `loop`, closures) it sits
    /// in, within its function: a write at a lower count than a read happens before it on
    /// every path (roughly: an `if` and its `else` count alike).
    pub conditional: u16,
}

/// An unsafe block or the body of an `unsafe fn`.
#[derive(Debug, Clone)]
pub struct UnsafeRegion {
    /// The row of its `unsafe`.
    pub row: u32,
    pub frame: Frame,
    /// Whether it dereferences a raw pointer, transmutes or calls an unchecked operation.
    pub dangerous: bool,
    pub is_fn: bool,
}

/// What is known within one function.
#[derive(Debug, Clone, Default)]
pub struct Function {
    /// Names checked for null (`p.is_null()`, `NonNull::new(p)`, `p.as_ref()`), with the byte
    /// offset of the first check.
    pub null_checked: HashMap<String, usize>,
    /// Names tested before an unwrap (`x.is_some()`, `x.is_ok()`), first test's offset.
    pub tested: HashMap<String, usize>,
    /// `MaybeUninit` values written (`x.write(…)`, `x.as_mut_ptr()`): each write's offset
    /// and [`Frame::conditional`].
    pub written: HashMap<String, Vec<(usize, u16)>>,
    /// For an `extern "C" fn`: its row, raw pointer parameters and those it uses.
    pub extern_fn: Option<ExternFn>,
}

/// An `extern "C" fn` defined in Rust, callable from C.
#[derive(Debug, Clone, Default)]
pub struct ExternFn {
    pub row: u32,
    pub frame: Frame,
    pub pointer_params: Vec<String>,
    /// `unsafe extern "C" fn`: its callers are told to pass valid pointers.
    pub is_unsafe: bool,
    /// Pointer parameters dereferenced or handed to an unchecked call, with the byte offset.
    pub used: Vec<(String, usize)>,
}

/// A place a rule may fire.
#[derive(Debug, Clone)]
pub struct Candidate {
    pub kind: Kind,
    pub row: u32,
    pub byte: usize,
    pub frame: Frame,
}

/// Which rule, with what the walk saw there.
#[derive(Debug, Clone)]
pub enum Kind {
    /// `*operand` inside unsafe code.
    Deref {
        /// The pointer's name, for the null-check and declared-pointer facts.
        name: Option<String>,
        /// Known raw from the expression itself (a cast, pointer arithmetic).
        raw: bool,
        /// A null pointer made on the spot.
        null: bool,
        /// The function called, for `*f()`: a pointer if `f` returns one.
        callee: Option<String>,
    },
    RawPointerType,
    Transmute,
    /// `assume_init*` (or `mem::uninitialized`, `mem::zeroed`).
    MaybeUninit {
        receiver: Option<String>,
        unwritten: bool,
        zeroed: bool,
    },
    Unwrap {
        receiver: Option<String>,
        poison: bool,
        expect: bool,
    },
    ExternBlock,
    UnsafeImpl,
    IgnoredResult {
        callee: Option<String>,
    },
    Forget,
}

/// All a walk found.
#[derive(Debug, Default)]
pub struct Facts {
    pub candidates: Vec<Candidate>,
    pub unsafe_regions: Vec<UnsafeRegion>,
    pub functions: Vec<Function>,
    /// Names declared with a raw pointer type, or bound to one, anywhere in the file.
    pub pointer_names: HashSet<String>,
    /// Functions of the file (and of its `extern` blocks) that return a raw pointer.
    pub pointer_fns: HashSet<String>,
    /// `let name = f(…)`: pointers too when `f` turns out to return one.
    bound_to_calls: Vec<(String, String)>,
    pub comments: Comments,
}

impl Facts {
    /// What can only be known once the whole file is seen: names bound to calls of
    /// functions (defined anywhere in it) that return raw pointers.
    fn settle(mut self) -> Facts {
        for (name, function) in std::mem::take(&mut self.bound_to_calls) {
            if self.pointer_fns.contains(&function) {
                self.pointer_names.insert(name);
            }
        }
        self
    }
}

/// Walks `tree` (parsed from `text`).
pub fn gather(tree: &Tree, text: &str) -> Facts {
    let mut walk = Walk {
        text,
        facts: Facts::default(),
    };
    let mut cursor = tree.walk();
    // frames[d]: the context of the node at depth d; pending[d]: what test attributes seen
    // among the siblings at depth d say of the nodes after them.
    let mut frames: Vec<Frame> = vec![Frame::default()];
    let mut pending: Vec<Mark> = vec![Mark::default()];
    let mut depth = 0usize;
    loop {
        let node = cursor.node();
        let parent = if depth == 0 {
            Frame::default()
        } else {
            frames.get(depth - 1).copied().unwrap_or_default()
        };
        frames.truncate(depth);
        let (frame, descend) = walk.visit(node, parent, &mut pending, depth);
        frames.push(frame);
        if descend && depth < MAX_DEPTH && cursor.goto_first_child() {
            depth += 1;
            pending.push(Mark::default());
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return walk.facts.settle();
            }
            depth -= 1;
            pending.pop();
        }
    }
}

/// What test attributes among a node's earlier siblings say of it.
#[derive(Debug, Clone, Copy, Default)]
struct Mark {
    /// `#[test]`, `#[cfg(test)]`: the next item is test code.
    next_item: bool,
    /// `#![cfg(test)]`: everything after it is.
    rest: bool,
}

struct Walk<'t> {
    text: &'t str,
    facts: Facts,
}

impl<'t> Walk<'t> {
    fn text(&self, node: Node) -> &'t str {
        self.text.get(node.byte_range()).unwrap_or("")
    }

    fn candidate(&mut self, kind: Kind, node: Node, frame: Frame) {
        self.facts.candidates.push(Candidate {
            kind,
            row: row(node),
            byte: node.start_byte(),
            frame,
        });
    }

    fn function(&mut self, frame: Frame) -> Option<&mut Function> {
        frame.function.and_then(|i| self.facts.functions.get_mut(i))
    }

    fn mark_dangerous(&mut self, frame: Frame) {
        if let Some(region) = frame
            .unsafe_region
            .and_then(|i| self.facts.unsafe_regions.get_mut(i))
        {
            region.dangerous = true;
        }
    }

    /// Looks at one node; returns its frame and whether to look inside it.
    fn visit(
        &mut self,
        node: Node,
        parent: Frame,
        pending: &mut [Mark],
        depth: usize,
    ) -> (Frame, bool) {
        let mut frame = parent;
        let kind = node.kind();
        match kind {
            "line_comment" | "block_comment" => {
                let text = self.text(node);
                // A line comment's node takes its newline, so it ends at column 0 of the next row.
                let end = node.end_position();
                let last = if end.column == 0 && end.row > node.start_position().row {
                    end.row - 1
                } else {
                    end.row
                };
                let last = u32::try_from(last).unwrap_or(u32::MAX);
                self.facts.comments.add(row(node), last, text);
                return (frame, false);
            }
            "attribute_item" => {
                if comments::is_test_attribute(self.text(node))
                    && let Some(mark) = pending.get_mut(depth)
                {
                    mark.next_item = true;
                }
                return (frame, false);
            }
            "inner_attribute_item" => {
                // `#![cfg(test)]` makes the rest of the enclosing module test code.
                if comments::is_test_attribute(self.text(node))
                    && let Some(mark) = pending.get_mut(depth)
                {
                    mark.rest = true;
                }
                return (frame, false);
            }
            "string_literal" | "raw_string_literal" | "char_literal" => return (frame, false),
            _ => {}
        }
        if node.is_named()
            && let Some(mark) = pending.get_mut(depth)
        {
            frame.test |= mark.next_item || mark.rest;
            mark.next_item = false;
        }
        if matches!(kind, "function_item" | "function_signature_item")
            && node
                .child_by_field_name("return_type")
                .is_some_and(|t| t.kind() == "pointer_type")
            && let Some(name) = node.child_by_field_name("name")
        {
            self.facts.pointer_fns.insert(self.text(name).to_string());
        }
        match kind {
            "function_item" => {
                frame.conditional = 0;
                self.function_item(node, &mut frame);
            }
            "if_expression" | "match_expression" | "while_expression" | "for_expression"
            | "loop_expression" | "closure_expression" => {
                frame.conditional = frame.conditional.saturating_add(1);
            }
            "unsafe_block" => {
                self.facts.unsafe_regions.push(UnsafeRegion {
                    row: row(node),
                    frame,
                    dangerous: false,
                    is_fn: false,
                });
                frame.unsafe_region = Some(self.facts.unsafe_regions.len() - 1);
            }
            "foreign_mod_item" => {
                if abi_is_foreign(self.text(node)) {
                    self.candidate(Kind::ExternBlock, node, frame);
                }
                frame.foreign = true;
            }
            "impl_item" => self.impl_item(node, frame),
            "pointer_type" if !frame.foreign => {
                self.candidate(Kind::RawPointerType, node, frame);
            }
            "parameter" | "field_declaration" | "let_declaration" => {
                self.declaration(node, frame);
            }
            "unary_expression" => self.unary(node, frame),
            "call_expression" => self.call(node, frame),
            "expression_statement" => self.statement(node, frame),
            "assignment_expression" => {
                if node
                    .child_by_field_name("left")
                    .is_some_and(|left| self.text(left) == "_")
                    && let Some(right) = node.child_by_field_name("right")
                    && let Some(callee) = self.callee(right)
                {
                    self.candidate(
                        Kind::IgnoredResult {
                            callee: Some(callee),
                        },
                        node,
                        frame,
                    );
                }
            }
            "token_tree" => self.token_tree(node, frame),
            _ => {}
        }
        (frame, true)
    }

    fn function_item(&mut self, node: Node, frame: &mut Frame) {
        let mut function = Function::default();
        let mut is_unsafe = false;
        let mut is_extern = false;
        if let Some(modifiers) = child_of_kind(node, "function_modifiers") {
            let text = self.text(modifiers);
            is_unsafe = has_token(text, "unsafe");
            if let Some(abi) = child_of_kind(modifiers, "extern_modifier") {
                is_extern = abi_is_foreign(self.text(abi));
            }
        }
        if is_extern {
            let mut pointer_params = Vec::new();
            if let Some(params) = node.child_by_field_name("parameters") {
                let mut cursor = params.walk();
                for param in params.named_children(&mut cursor) {
                    if param
                        .child_by_field_name("type")
                        .is_some_and(|t| t.kind() == "pointer_type")
                        && let Some(pattern) = param.child_by_field_name("pattern")
                    {
                        pointer_params
                            .push(self.text(pattern).trim_start_matches("mut ").to_string());
                    }
                }
            }
            function.extern_fn = Some(ExternFn {
                row: row(node),
                frame: *frame,
                pointer_params,
                is_unsafe,
                used: Vec::new(),
            });
        }
        self.facts.functions.push(function);
        frame.function = Some(self.facts.functions.len() - 1);
        if is_unsafe {
            self.facts.unsafe_regions.push(UnsafeRegion {
                row: row(node),
                frame: *frame,
                dangerous: false,
                is_fn: true,
            });
            frame.unsafe_region = Some(self.facts.unsafe_regions.len() - 1);
        }
    }

    fn impl_item(&mut self, node: Node, frame: Frame) {
        let is_unsafe = node.child(0).is_some_and(|first| first.kind() == "unsafe");
        let Some(trait_node) = node.child_by_field_name("trait") else {
            return;
        };
        let name = self
            .text(trait_node)
            .rsplit("::")
            .next()
            .unwrap_or("")
            .trim();
        if is_unsafe && matches!(name, "Send" | "Sync") {
            self.candidate(Kind::UnsafeImpl, node, frame);
        }
    }

    /// `p: *const T` (a parameter or field), `let p: *mut T = …`, `let p = x as *const T`,
    /// `let p = v.as_ptr()`; and `let _ = call()`.
    fn declaration(&mut self, node: Node, frame: Frame) {
        let name_node = node
            .child_by_field_name("pattern")
            .or_else(|| node.child_by_field_name("name"));
        let name = name_node.map(|n| self.text(n).trim_start_matches("mut ").trim().to_string());
        let typed_pointer = node
            .child_by_field_name("type")
            .is_some_and(|t| t.kind() == "pointer_type");
        let value = node.child_by_field_name("value");
        let bound_pointer = value.is_some_and(|v| self.gives_pointer(v));
        if let Some(name) = &name
            && (typed_pointer || bound_pointer)
            && is_identifier(name)
        {
            self.facts.pointer_names.insert(name.clone());
        }
        if let Some(name) = &name
            && is_identifier(name)
            && let Some(callee) = value.and_then(|v| self.callee(v))
        {
            self.facts.bound_to_calls.push((name.clone(), callee));
        }
        if node.kind() == "let_declaration"
            && name.as_deref() == Some("_")
            && let Some(value) = value
            && let Some(callee) = self.callee(value)
        {
            self.candidate(
                Kind::IgnoredResult {
                    callee: Some(callee),
                },
                node,
                frame,
            );
        }
    }

    /// Whether an expression's value is a raw pointer, by its form alone.
    fn gives_pointer(&self, node: Node) -> bool {
        let node = unwrap_parens(node);
        match node.kind() {
            "type_cast_expression" => node
                .child_by_field_name("type")
                .is_some_and(|t| t.kind() == "pointer_type"),
            "call_expression" => {
                let name = self.call_name(node).unwrap_or_default();
                rules::POINTER_METHODS.contains(&name.as_str())
                    || matches!(
                        name.as_str(),
                        "null" | "null_mut" | "addr_of" | "addr_of_mut"
                    )
            }
            _ => false,
        }
    }

    /// The last segment of a call's callee: `unwrap` in `x.unwrap()`, `transmute` in
    /// `mem::transmute::<A, B>(x)`.
    fn call_name(&self, call: Node) -> Option<String> {
        let mut function = call.child_by_field_name("function")?;
        if function.kind() == "generic_function" {
            function = function.child_by_field_name("function")?;
        }
        let name = match function.kind() {
            "field_expression" => function.child_by_field_name("field")?,
            "scoped_identifier" => function.child_by_field_name("name")?,
            "identifier" => function,
            _ => return None,
        };
        Some(self.text(name).to_string())
    }

    /// The full path of a call's callee (`std::mem::forget`), for path calls.
    fn call_path(&self, call: Node) -> Option<&'t str> {
        let mut function = call.child_by_field_name("function")?;
        if function.kind() == "generic_function" {
            function = function.child_by_field_name("function")?;
        }
        matches!(function.kind(), "scoped_identifier" | "identifier").then(|| self.text(function))
    }

    /// The receiver of a method call (`x` in `x.unwrap()`), if it is a call of a method.
    fn receiver(call: Node) -> Option<Node> {
        let function = call.child_by_field_name("function")?;
        (function.kind() == "field_expression")
            .then(|| function.child_by_field_name("value"))
            .flatten()
    }

    /// The name a value goes by: `x`, `ptr` in `self.ptr`, `p` in `(p as *const u8)` or
    /// `p.add(1)`. Looks through at most [`MAX_NAME_STEPS`] wrappers.
    fn name_of(&self, node: Node) -> Option<String> {
        let mut node = node;
        for _ in 0..MAX_NAME_STEPS {
            let next = match node.kind() {
                "identifier" => return Some(self.text(node).to_string()),
                "field_expression" => {
                    return node
                        .child_by_field_name("field")
                        .map(|f| self.text(f).to_string());
                }
                "parenthesized_expression" | "reference_expression" => node.named_child(0),
                "type_cast_expression" => node.child_by_field_name("value"),
                "call_expression" => Self::receiver(node),
                _ => None,
            };
            node = next?;
        }
        None
    }

    /// The called function or method whose result `value` is (looking through `.await` and
    /// `unsafe { … }`).
    fn callee(&self, value: Node) -> Option<String> {
        let mut value = value;
        for _ in 0..MAX_NAME_STEPS {
            match value.kind() {
                "call_expression" => return self.call_name(value),
                "await_expression" => value = value.named_child(0)?,
                // `unsafe { f() }`: the block's value, its last expression.
                "unsafe_block" => {
                    let block = value.named_child(0)?;
                    let last = block.named_child_count().checked_sub(1)?;
                    value = block.named_child(u32::try_from(last).ok()?)?;
                }
                _ => return None,
            }
        }
        None
    }

    fn unary(&mut self, node: Node, frame: Frame) {
        let is_deref = node.child(0).is_some_and(|op| op.kind() == "*");
        if !is_deref || frame.unsafe_region.is_none() {
            return;
        }
        let Some(operand) = node.named_child(0) else {
            return;
        };
        let raw = self.gives_pointer(operand);
        let null = operand.kind() == "call_expression"
            && matches!(
                self.call_name(operand).as_deref(),
                Some("null" | "null_mut")
            );
        let name = self.name_of(operand);
        let callee = self.callee(unwrap_parens(operand));
        self.note_pointer_use(name.as_deref(), node.start_byte(), frame);
        self.candidate(
            Kind::Deref {
                name,
                raw,
                null,
                callee,
            },
            node,
            frame,
        );
    }

    /// A pointer parameter of the `extern "C" fn` around is used here.
    fn note_pointer_use(&mut self, name: Option<&str>, byte: usize, frame: Frame) {
        let Some(name) = name else { return };
        if let Some(extern_fn) = self
            .function(frame)
            .and_then(|f| f.extern_fn.as_mut())
            .filter(|e| e.pointer_params.iter().any(|p| p == name))
        {
            extern_fn.used.push((name.to_string(), byte));
        }
    }

    fn call(&mut self, node: Node, frame: Frame) {
        let Some(name) = self.call_name(node) else {
            return;
        };
        let receiver = Self::receiver(node);
        let receiver_name = receiver.and_then(|r| self.name_of(r));
        let args = node.child_by_field_name("arguments");
        let arg_count = args.map_or(0, |a| a.named_child_count());
        let byte = node.start_byte();
        match name.as_str() {
            "is_null" | "as_ref" | "as_mut" => {
                self.note(receiver_name.clone(), byte, frame, Fact::NullChecked)
            }
            "is_some" | "is_ok" | "is_none" | "is_err" => {
                self.note(receiver_name.clone(), byte, frame, Fact::Tested)
            }
            "write" | "as_mut_ptr" if receiver.is_some() => {
                self.note(receiver_name.clone(), byte, frame, Fact::Written)
            }
            _ => {}
        }
        if name == "new" && self.call_path(node).is_some_and(|p| p.contains("NonNull")) {
            let first = args
                .and_then(|a| a.named_child(0))
                .and_then(|a| self.name_of(a));
            self.note(first, byte, frame, Fact::NullChecked);
        }
        if rules::UNCHECKED_CALLS.contains(&name.as_str()) && frame.unsafe_region.is_some() {
            // `ptr::read(p)`, `slice::from_raw_parts(p, n)`, `CStr::from_ptr(p)`, `p.add(1)`.
            self.mark_dangerous(frame);
            let mut used: Vec<Option<String>> = vec![receiver_name.clone()];
            if let Some(args) = args {
                let mut cursor = args.walk();
                used.extend(args.named_children(&mut cursor).map(|a| self.name_of(a)));
            }
            for name in used {
                self.note_pointer_use(name.as_deref(), byte, frame);
            }
        }
        let path = self.call_path(node);
        match name.as_str() {
            "unwrap" if receiver.is_some() && arg_count == 0 => {
                let poison = receiver.is_some_and(|r| {
                    matches!(
                        self.call_name(r).as_deref(),
                        Some("lock" | "read" | "write" | "join")
                    )
                });
                self.candidate(
                    Kind::Unwrap {
                        receiver: receiver_name,
                        poison,
                        expect: false,
                    },
                    node,
                    frame,
                );
            }
            "expect" if receiver.is_some() && arg_count == 1 => {
                let poison = receiver.is_some_and(|r| {
                    matches!(
                        self.call_name(r).as_deref(),
                        Some("lock" | "read" | "write")
                    )
                });
                self.candidate(
                    Kind::Unwrap {
                        receiver: receiver_name,
                        poison,
                        expect: true,
                    },
                    node,
                    frame,
                );
            }
            "transmute" | "transmute_copy" if path.is_some() => {
                self.mark_dangerous(frame);
                self.candidate(Kind::Transmute, node, frame);
            }
            "assume_init" | "assume_init_read" | "assume_init_ref" | "assume_init_mut"
            | "assume_init_drop" | "array_assume_init" => {
                self.mark_dangerous(frame);
                let unwritten = receiver.is_some_and(|r| {
                    r.kind() == "call_expression"
                        && matches!(
                            self.call_name(r).as_deref(),
                            Some("uninit" | "uninit_array")
                        )
                });
                self.candidate(
                    Kind::MaybeUninit {
                        receiver: receiver_name,
                        unwritten,
                        zeroed: false,
                    },
                    node,
                    frame,
                );
            }
            "uninitialized" | "zeroed" if path.is_some_and(|p| p.contains("mem")) => {
                self.mark_dangerous(frame);
                self.candidate(
                    Kind::MaybeUninit {
                        receiver: None,
                        unwritten: name == "uninitialized",
                        zeroed: name == "zeroed",
                    },
                    node,
                    frame,
                );
            }
            "forget" if path.is_some_and(|p| p == "forget" || p.ends_with("mem::forget")) => {
                self.candidate(Kind::Forget, node, frame);
            }
            _ => {}
        }
    }

    fn note(&mut self, name: Option<String>, byte: usize, frame: Frame, fact: Fact) {
        let Some(name) = name else { return };
        if let Some(function) = self.function(frame) {
            let map = match fact {
                Fact::NullChecked => &mut function.null_checked,
                Fact::Tested => &mut function.tested,
                Fact::Written => {
                    function
                        .written
                        .entry(name)
                        .or_default()
                        .push((byte, frame.conditional));
                    return;
                }
            };
            map.entry(name).or_insert(byte);
        }
    }

    /// `call().ok();` as a whole statement: the result is thrown away.
    fn statement(&mut self, node: Node, frame: Frame) {
        let Some(call) = node
            .named_child(0)
            .filter(|c| c.kind() == "call_expression")
        else {
            return;
        };
        let no_args = call
            .child_by_field_name("arguments")
            .is_some_and(|a| a.named_child_count() == 0);
        if self.call_name(call).as_deref() == Some("ok") && no_args {
            let callee = Self::receiver(call).and_then(|r| self.callee(r));
            self.candidate(Kind::IgnoredResult { callee }, node, frame);
        }
    }

    /// Inside a macro's arguments the tree is only tokens: `x . unwrap ( )`, `transmute (`,
    /// `x . is_null ( )` are found by their token sequence.
    fn token_tree(&mut self, node: Node, frame: Frame) {
        let mut cursor = node.walk();
        let children: Vec<Node> = node.children(&mut cursor).collect();
        for (i, child) in children.iter().enumerate() {
            if child.kind() != "identifier" {
                continue;
            }
            let word = self.text(*child);
            let next = children.get(i + 1);
            let called =
                next.is_some_and(|n| n.kind() == "token_tree" && self.text(*n).starts_with('('));
            let after_dot = i >= 1 && children.get(i - 1).is_some_and(|p| p.kind() == ".");
            let receiver = (i >= 2 && after_dot)
                .then(|| children.get(i - 2))
                .flatten()
                .filter(|r| r.kind() == "identifier")
                .map(|r| self.text(*r).to_string());
            let empty_call = next.is_some_and(|n| {
                self.text(*n)
                    .trim_start_matches('(')
                    .trim_end_matches(')')
                    .trim()
                    .is_empty()
            });
            match word {
                "unwrap" if after_dot && called && empty_call => self.candidate(
                    Kind::Unwrap {
                        receiver,
                        poison: false,
                        expect: false,
                    },
                    *child,
                    frame,
                ),
                "expect" if after_dot && called && !empty_call => self.candidate(
                    Kind::Unwrap {
                        receiver,
                        poison: false,
                        expect: true,
                    },
                    *child,
                    frame,
                ),
                "is_null" if after_dot => {
                    self.note(receiver, child.start_byte(), frame, Fact::NullChecked)
                }
                "is_some" | "is_ok" if after_dot => {
                    self.note(receiver, child.start_byte(), frame, Fact::Tested)
                }
                "transmute" if !after_dot && (called || next.is_some_and(|n| n.kind() == "::")) => {
                    self.mark_dangerous(frame);
                    self.candidate(Kind::Transmute, *child, frame);
                }
                _ => {}
            }
        }
    }
}

enum Fact {
    NullChecked,
    Tested,
    Written,
}

/// The 0-based row a node starts on.
pub fn row(node: Node) -> u32 {
    u32::try_from(node.start_position().row).unwrap_or(u32::MAX)
}

/// `x` for `((x))`, through at most [`MAX_NAME_STEPS`] parentheses.
fn unwrap_parens(node: Node) -> Node {
    let mut node = node;
    for _ in 0..MAX_NAME_STEPS {
        match node.named_child(0) {
            Some(inner) if node.kind() == "parenthesized_expression" => node = inner,
            _ => break,
        }
    }
    node
}

fn child_of_kind<'a>(node: Node<'a>, kind: &str) -> Option<Node<'a>> {
    let mut cursor = node.walk();
    node.children(&mut cursor).find(|c| c.kind() == kind)
}

/// Whether an `extern …` names a foreign ABI: `extern`, `extern "C"`, `"system"`, … — not
/// `extern "Rust"`.
fn abi_is_foreign(text: &str) -> bool {
    let head = text.split('{').next().unwrap_or(text);
    !head.contains("\"Rust\"")
}

fn has_token(text: &str, token: &str) -> bool {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .any(|part| part == token)
}

fn is_identifier(text: &str) -> bool {
    !text.is_empty() && text.chars().all(|c| c.is_alphanumeric() || c == '_')
}
