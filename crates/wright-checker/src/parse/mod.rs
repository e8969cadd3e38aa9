//! Bash source turned into a [`Script`]: tree-sitter-bash's syntax tree walked into simple
//! commands whose words are evaluated as far as can be known without running anything.
//!
//! Every command is found wherever it sits: in lists, pipelines, subshells, `{ }` blocks, loops,
//! functions, command and process substitutions. Words are unquoted and unescaped; `~`, `$HOME`,
//! `$PWD`, `$(pwd)` and variables assigned earlier in the same script are expanded; anything
//! else (`$X`, `$(date)`) leaves the word marked as dynamic. `cd` is followed, so a later
//! relative path is resolved against the right directory; where it is uncertain whether a `cd`
//! happened (`cd x; rm -rf *`, `cd x || …`), both directories are kept as possibilities.

use std::path::Path;

use tree_sitter::{Node, Parser};

mod expand;
mod redirect;

use super::paths::normalize;
use super::script::{
    Assignment, Cwd, DEFAULT_IFS, Env, Function, Loop, Pipeline, Scope, Script, SimpleCommand,
    union_values,
};

/// How deeply nested (`((((…))))`, `$($($(…)))`) a command may be before the walk stops: deeper
/// recursion could overflow the stack of the thread the Bash tool runs on.
const MAX_TREE_DEPTH: usize = 100;

/// `read`'s options that take a value (`-a NAME` is read on its own).
const READ_VALUE_OPTIONS: &[&str] = &["-a", "-d", "-i", "-n", "-N", "-p", "-t", "-u"];

/// `mapfile`'s options that take a value.
const MAPFILE_VALUE_OPTIONS: &[&str] = &["-d", "-n", "-O", "-s", "-u", "-C", "-c"];

/// The parser could not be set up.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the bash parser could not be started: {0}")]
pub(crate) struct ParserUnavailable(String);

/// Parses `text` as bash, starting in `scope`.
pub(crate) fn parse(
    text: &str,
    env: Env<'_>,
    mut scope: Scope,
) -> Result<Script, ParserUnavailable> {
    let mut parser = Parser::new();
    parser
        .set_language(&tree_sitter_bash::LANGUAGE.into())
        .map_err(|e| ParserUnavailable(e.to_string()))?;
    let tree = parser
        .parse(text, None)
        .ok_or_else(|| ParserUnavailable("the parse was cancelled".into()))?;
    let root = tree.root_node();
    let mut walker = Walker {
        src: text,
        env,
        depth: 0,
        script: Script {
            has_error: root.has_error(),
            ..Script::default()
        },
    };
    walker.sequence(root, &mut scope);
    Ok(walker.script)
}

/// Which simple commands a statement starts and ends with: the one reading a pipe into it, and
/// the one whose output leaves it.
#[derive(Debug, Clone, Copy, Default)]
struct Ends {
    first: Option<usize>,
    last: Option<usize>,
}

impl Ends {
    fn one(index: usize) -> Self {
        Self {
            first: Some(index),
            last: Some(index),
        }
    }
}

fn named_children(node: Node<'_>) -> Vec<Node<'_>> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor).collect()
}

fn children(node: Node<'_>) -> Vec<Node<'_>> {
    let mut cursor = node.walk();
    node.children(&mut cursor).collect()
}

fn is_redirect(kind: &str) -> bool {
    matches!(
        kind,
        "file_redirect" | "heredoc_redirect" | "herestring_redirect"
    )
}

struct Walker<'a> {
    src: &'a str,
    env: Env<'a>,
    /// How deep the walk is in the syntax tree (see [`MAX_TREE_DEPTH`]).
    depth: usize,
    script: Script,
}

impl<'a> Walker<'a> {
    fn text(&self, node: Node<'_>) -> &'a str {
        self.src.get(node.byte_range()).unwrap_or("")
    }

    fn next_index(&self) -> usize {
        self.script.commands.len()
    }

    /// Records the variable an arithmetic expression assigns (`((X = 1))`, `$((Y++))`).
    fn arithmetic_assignment(&mut self, node: Node<'_>) {
        let parts = children(node);
        let assigns = parts.iter().any(|part| {
            !part.is_named()
                && matches!(
                    part.kind(),
                    "=" | "+="
                        | "-="
                        | "*="
                        | "/="
                        | "%="
                        | "<<="
                        | ">>="
                        | "&="
                        | "^="
                        | "|="
                        | "++"
                        | "--"
                        | "**="
                )
        });
        let name = parts.iter().find(|part| part.kind() == "variable_name");
        if let (true, Some(name)) = (assigns, name) {
            self.assigned(self.text(*name), None);
        }
    }

    /// Records that the script sets (or unsets) the variable `name` (an array element's
    /// `name[i]` as the array), to `value` when known to be one word.
    fn assigned(&mut self, name: &str, value: Option<crate::script::Word>) {
        let name = name.split('[').next().unwrap_or(name).to_string();
        self.script.assigned.push(Assignment {
            name,
            value,
            nameref: false,
        });
    }

    /// Runs the statements among `node`'s children in order: a program, a block, a subshell's
    /// body, a `do` group. A statement ended by `&` runs in the background; after one ended by
    /// `;` or a newline, a `cd` in it may or may not have happened.
    fn sequence(&mut self, node: Node<'_>, scope: &mut Scope) -> Ends {
        if !self.descend() {
            return Ends::default();
        }
        let ends = self.sequence_at_depth(node, scope);
        self.depth -= 1;
        ends
    }

    /// Goes one level deeper into the tree, unless that is too deep: then the script is marked
    /// and the walk goes no further down.
    fn descend(&mut self) -> bool {
        if self.depth >= MAX_TREE_DEPTH {
            self.script.too_deep = true;
            return false;
        }
        self.depth += 1;
        true
    }

    fn sequence_at_depth(&mut self, node: Node<'_>, scope: &mut Scope) -> Ends {
        let all = children(node);
        let mut ends = Ends::default();
        for (i, child) in all.iter().enumerate() {
            if !child.is_named() || child.kind() == "comment" {
                continue;
            }
            let start = self.next_index();
            let before = scope.clone();
            let these = self.statement(*child, scope);
            ends.first = ends.first.or(these.first);
            ends.last = these.last.or(ends.last);
            let backgrounded = all[i + 1..]
                .iter()
                .find(|n| n.kind() != "comment")
                .is_some_and(|n| n.kind() == "&");
            if backgrounded {
                for command in &mut self.script.commands[start..] {
                    command.background = true;
                }
                *scope = before;
            } else if scope.cwd != before.cwd {
                scope.cwd = scope.cwd.union(&before.cwd);
            }
        }
        ends
    }

    fn statement(&mut self, node: Node<'_>, scope: &mut Scope) -> Ends {
        match node.kind() {
            "command" => Ends::one(self.command(node, scope)),
            "redirected_statement" => self.redirected(node, scope),
            "pipeline" => {
                let text = self.text(node);
                self.pipeline(text, Ends::default(), named_children(node), scope)
            }
            "list" => self.list(node, scope),
            "subshell" => self.sequence(node, &mut scope.clone()),
            "compound_statement" | "do_group" | "negated_command" | "program" => {
                self.sequence(node, scope)
            }
            "variable_assignment" => {
                self.assign(node, scope);
                Ends::default()
            }
            "variable_assignments" | "declaration_command" => {
                // `declare -n r=PATH`: what `r` is later assigned goes to `PATH`.
                let nameref = named_children(node).iter().any(|c| {
                    let text = self.text(*c);
                    c.kind() == "word" && text.starts_with('-') && text.contains('n')
                });
                for child in named_children(node) {
                    let start = self.script.assigned.len();
                    if child.kind() == "variable_name" {
                        // `export NAME`: exported now, maybe with the value it was given.
                        self.assigned(self.text(child), None);
                    }
                    if child.kind() == "variable_assignment" {
                        self.assign(child, scope);
                    } else {
                        self.word(child, scope);
                    }
                    if let Some(assignment) = self.script.assigned.get_mut(start) {
                        assignment.nameref = nameref;
                    }
                }
                Ends::default()
            }
            "unset_command" => {
                if named_children(node)
                    .iter()
                    .any(|c| matches!(self.text(*c), "HISTFILE" | "HISTSIZE" | "HISTFILESIZE"))
                {
                    self.script.history_off.push(self.text(node).to_string());
                }
                for child in named_children(node) {
                    self.assigned(self.text(child), None);
                    scope.vars.insert(self.text(child).to_string(), None);
                }
                Ends::default()
            }
            "function_definition" => {
                self.function(node, scope);
                Ends::default()
            }
            "binary_expression" | "postfix_expression" | "unary_expression" => {
                self.arithmetic_assignment(node);
                self.sequence(node, scope)
            }
            "for_statement" => self.for_loop(node, scope),
            "while_statement" | "c_style_for_statement" => self.endless_loop(node, scope),
            "if_statement" | "case_statement" | "elif_clause" | "else_clause" | "case_item" => {
                let mut inner = scope.clone();
                let ends = self.sequence(node, &mut inner);
                scope.merge(&inner);
                ends
            }
            kind if is_redirect(kind) => {
                self.redirect(node, scope, None);
                Ends::default()
            }
            "word"
            | "string"
            | "raw_string"
            | "concatenation"
            | "simple_expansion"
            | "expansion"
            | "command_substitution"
            | "process_substitution"
            | "number"
            | "ansi_c_string"
            | "translated_string"
            | "arithmetic_expansion" => {
                self.word(node, scope);
                Ends::default()
            }
            _ => self.sequence(node, scope),
        }
    }

    /// `a && b`, `a || b`: with `&&`, `b` runs where `a` left off; with `||`, `b` runs only if
    /// `a` failed, so a `cd` in `a` may not have happened.
    fn list(&mut self, node: Node<'_>, scope: &mut Scope) -> Ends {
        let mut ends = Ends::default();
        let mut before = scope.clone();
        let mut operator = "";
        for child in children(node) {
            if !child.is_named() {
                operator = child.kind();
                continue;
            }
            if child.kind() == "comment" {
                continue;
            }
            if operator == "||" {
                scope.cwd = scope.cwd.union(&before.cwd);
            }
            before = scope.clone();
            let these = self.statement(child, scope);
            ends.first = ends.first.or(these.first);
            ends.last = these.last.or(ends.last);
        }
        ends
    }

    /// Each stage runs in its own subshell and reads the previous stage's output. `first` is a
    /// stage already walked (a heredoc's command whose pipeline tree-sitter nests inside it).
    fn pipeline(&mut self, text: &str, first: Ends, stages: Vec<Node<'_>>, scope: &Scope) -> Ends {
        let pipeline = self.script.pipelines.len();
        self.script.pipelines.push(Pipeline {
            text: text.to_string(),
        });
        let start = first.first.unwrap_or_else(|| self.next_index());
        let mut ends = first;
        let mut previous = first.last;
        let mut stage_start = self.next_index();
        for stage in stages {
            if stage.kind() == "comment" {
                continue;
            }
            let these = self.statement(stage, &mut scope.clone());
            if let Some(reader) = these.first.and_then(|i| self.script.commands.get_mut(i)) {
                reader.upstream = Some(start..stage_start);
                reader.pipe_from = previous;
                reader.pipeline = Some(pipeline);
            }
            ends.first = ends.first.or(these.first);
            ends.last = these.last.or(ends.last);
            previous = these.last;
            stage_start = self.next_index();
        }
        for command in &mut self.script.commands[start..] {
            command.piped = true;
        }
        ends
    }

    fn command(&mut self, node: Node<'_>, scope: &mut Scope) -> usize {
        let mut argv = Vec::new();
        let mut redirects = Vec::new();
        for child in named_children(node) {
            match child.kind() {
                "variable_assignment" => {
                    // `X=1 cmd` sets X for cmd only: evaluated for its substitutions, not kept.
                    let name = child
                        .child_by_field_name("name")
                        .map_or("", |name| self.text(name));
                    self.script.sets_ifs |= name == "IFS";
                    let value = match child.child_by_field_name("value") {
                        Some(value) => self.word(value, scope),
                        None => crate::script::Word::synthetic(String::new(), false),
                    };
                    self.assigned(name, Some(value));
                }
                "command_name" => {
                    if let Some(name) = child.named_child(0) {
                        argv.push(self.word(name, scope));
                    }
                }
                "comment" => {}
                kind if is_redirect(kind) => redirects.push(child),
                _ => argv.push(self.word(child, scope)),
            }
        }
        let index = self.next_index();
        let ifs = match scope.vars.get("IFS") {
            // Set where the walk does not follow (a prefix, a function): not known here.
            None if self.script.sets_ifs => None,
            None => Some(DEFAULT_IFS.to_string()),
            Some(Some(values)) if values.len() == 1 => values.first().cloned(),
            Some(_) => None,
        };
        self.script.commands.push(SimpleCommand {
            argv,
            cwd: scope.cwd.clone(),
            text: self.text(node).to_string(),
            stdin: None,
            inputs: Vec::new(),
            outputs: Vec::new(),
            upstream: None,
            pipe_from: None,
            pipeline: None,
            piped: false,
            background: false,
            ifs,
        });
        for redirect in redirects {
            self.redirect(redirect, scope, Some(index));
        }
        self.change_directory(index, scope);
        self.set_positional(index, scope);
        self.read_into_variables(index, scope);
        index
    }

    /// `read NAME…`, `read -a NAME`, `mapfile NAME`/`readarray NAME` and `printf -v NAME
    /// FORMAT ARGS…`: the variables they set hold text read from input (unknown, and unknown
    /// code when run) or, for `printf` with a known format and arguments, the text it makes.
    fn read_into_variables(&mut self, index: usize, scope: &mut Scope) {
        let argv = &self.script.commands[index].argv;
        let Some(program) = argv.first().filter(|w| !w.dynamic).map(|w| w.text()) else {
            return;
        };
        let args = &argv[1..];
        let (names, arrays, value): (Vec<String>, Vec<String>, Option<Vec<String>>) = match program
        {
            "read" => {
                let parsed = crate::argv::split(args, READ_VALUE_OPTIONS);
                let mut names: Vec<String> = parsed
                    .operands
                    .iter()
                    .map(|w| w.text().to_string())
                    .collect();
                if names.is_empty() {
                    names.push("REPLY".to_string());
                }
                let arrays = parsed
                    .value_of(&["-a"])
                    .map(|w| vec![w.text().to_string()])
                    .unwrap_or_default();
                if !arrays.is_empty() && parsed.operands.is_empty() {
                    names.clear();
                }
                (names, arrays, None)
            }
            "mapfile" | "readarray" => {
                let parsed = crate::argv::split(args, MAPFILE_VALUE_OPTIONS);
                let name = parsed
                    .operands
                    .last()
                    .map_or("MAPFILE".to_string(), |w| w.text().to_string());
                (Vec::new(), vec![name], None)
            }
            "printf" if args.first().is_some_and(|w| w.is("-v")) => {
                let Some(name) = args.get(1) else { return };
                let rest = &args[2..];
                let rest: Vec<&crate::script::Word> =
                    rest.iter().skip_while(|w| w.is("--")).collect();
                let known = !rest.is_empty() && rest.iter().all(|w| !w.dynamic);
                let value = known.then(|| {
                    let format = rest[0].text();
                    let args: Vec<&str> = rest[1..].iter().map(|w| w.text()).collect();
                    vec![crate::words::printf(format, &args)]
                });
                (vec![name.text().to_string()], Vec::new(), value)
            }
            _ => return,
        };
        for name in names {
            if value.is_none() {
                self.script.input_vars.push(name.clone());
            }
            self.assigned(&name, None);
            scope.vars.insert(name, value.clone());
        }
        for name in arrays {
            self.assigned(&name, None);
            self.script.input_vars.push(name.clone());
            scope.vars.insert(format!("{name}[@]"), None);
            scope.vars.insert(name, None);
        }
    }

    /// Whether `word` holds text read from input: a command substitution printing a file or
    /// its input (`$(cat f)`, `$(< f)`), or a variable that holds such text.
    fn reads_input(&self, word: &crate::script::Word) -> bool {
        let commands = self.script.commands.get(word.subs.clone()).unwrap_or(&[]);
        commands
            .iter()
            .any(crate::script::SimpleCommand::prints_input)
            || word.raw.contains("$(<")
            || self.script.input_vars.iter().any(|name| {
                word.raw.contains(&format!("${name}")) || word.raw.contains(&format!("${{{name}"))
            })
    }

    /// `set -- a b c` (or `set a b`): the positional parameters `"$@"` expands to, kept as one
    /// value of shell words under the name `@`.
    fn set_positional(&self, index: usize, scope: &mut Scope) {
        let argv = &self.script.commands[index].argv[..];
        if !argv.first().is_some_and(|w| w.is("set")) {
            return;
        }
        let args = &argv[1..];
        let start = match args.iter().position(|w| w.is("--")) {
            Some(dashes) => dashes + 1,
            None if args
                .first()
                .is_some_and(|w| !w.text().starts_with(['-', '+'])) =>
            {
                0
            }
            None => return,
        };
        let words = &args[start..];
        let value = (!words.iter().any(|w| w.dynamic)).then(|| {
            vec![
                words
                    .iter()
                    .map(|w| crate::words::shell_quoted(w.text()))
                    .collect::<Vec<_>>()
                    .join(" "),
            ]
        });
        scope.vars.insert("@".to_string(), value);
    }

    /// Follows `cd DIR` / `pushd DIR` / `popd` for the commands after it, also when run as
    /// `builtin cd` or `command cd`.
    fn change_directory(&self, index: usize, scope: &mut Scope) {
        let mut argv = &self.script.commands[index].argv[..];
        while argv
            .first()
            .is_some_and(|w| w.is("builtin") || w.is("command"))
            && argv.get(1).is_some_and(|w| !w.text().starts_with('-'))
        {
            argv = &argv[1..];
        }
        let Some(name) = argv.first().filter(|w| !w.dynamic) else {
            return;
        };
        match name.text() {
            "cd" | "pushd" => {}
            "popd" => {
                scope.cwd = Cwd::Unknown;
                return;
            }
            _ => return,
        }
        let target = argv[1..]
            .iter()
            .find(|w| w.dynamic || !w.text().starts_with('-') || w.text() == "-");
        scope.cwd = match (target, &scope.cwd) {
            (None, _) => match self.env.home {
                Some(home) => Cwd::Known(vec![home.to_path_buf()]),
                None => Cwd::Unknown,
            },
            (Some(word), _) if word.dynamic || word.is("-") || word.text().starts_with('+') => {
                Cwd::Unknown
            }
            (Some(word), _) if word.values.iter().all(|v| v.starts_with('/')) => Cwd::Known(
                word.values
                    .iter()
                    .map(|v| normalize(Path::new("/"), v))
                    .collect(),
            ),
            (Some(_), Cwd::Unknown) => Cwd::Unknown,
            (Some(word), Cwd::Known(bases)) => Cwd::Known(
                bases
                    .iter()
                    .flat_map(|base| word.values.iter().map(|v| normalize(base, v)))
                    .collect(),
            ),
        };
    }

    fn assign(&mut self, node: Node<'_>, scope: &mut Scope) {
        let Some(name) = node.child_by_field_name("name") else {
            return;
        };
        let name = self.text(name).to_string();
        self.script.sets_ifs |= name == "IFS";
        let appends = children(node).iter().any(|c| c.kind() == "+=");
        let start = self.script.assigned.len();
        self.assigned(&name, None);
        let value = match node.child_by_field_name("value") {
            None => {
                if let Some(assignment) = self.script.assigned.get_mut(start) {
                    assignment.value = Some(crate::script::Word::synthetic(String::new(), false));
                }
                Some(vec![String::new()])
            }
            Some(array) if array.kind() == "array" => {
                // `x=(rm -rf ~)`: `"${x[@]}"` is its elements as shell words, `$x` the first.
                let elements: Vec<crate::script::Word> = named_children(array)
                    .into_iter()
                    .filter(|c| c.kind() != "comment")
                    .map(|c| self.word(c, scope))
                    .collect();
                let known = !appends && !elements.iter().any(|w| w.dynamic);
                let joined = elements
                    .iter()
                    .map(|w| crate::words::shell_quoted(w.text()))
                    .collect::<Vec<_>>()
                    .join(" ");
                scope
                    .vars
                    .insert(format!("{name}[@]"), known.then(|| vec![joined]));
                elements
                    .first()
                    .filter(|_| known)
                    .map(|w| vec![w.text().to_string()])
            }
            Some(value) => {
                let word = self.word(value, scope);
                if word.dynamic && self.reads_input(&word) {
                    self.script.input_vars.push(name.clone());
                }
                let values = (!word.dynamic && !appends).then(|| word.values.clone());
                if let Some(assignment) = self.script.assigned.get_mut(start) {
                    assignment.value = Some(word);
                }
                values
            }
        };
        let history_off = match name.as_str() {
            "HISTFILE" => value
                .as_ref()
                .is_some_and(|v| v.iter().any(|v| v.is_empty() || v == "/dev/null")),
            "HISTSIZE" | "HISTFILESIZE" | "SAVEHIST" => {
                value.as_ref().is_some_and(|v| v.iter().any(|v| v == "0"))
            }
            _ => false,
        };
        if history_off {
            self.script.history_off.push(self.text(node).to_string());
        }
        scope.vars.insert(name, value);
    }

    fn function(&mut self, node: Node<'_>, scope: &Scope) {
        let name = node
            .child_by_field_name("name")
            .map(|n| self.text(n).to_string())
            .unwrap_or_default();
        let start = self.next_index();
        if let Some(body) = node.child_by_field_name("body") {
            self.statement(body, &mut scope.clone());
        }
        self.script.functions.push(Function {
            name,
            text: self.text(node).to_string(),
            body: start..self.next_index(),
        });
    }

    /// `for NAME in WORDS; do …; done`: the body sees NAME as each of the words.
    fn for_loop(&mut self, node: Node<'_>, scope: &mut Scope) -> Ends {
        let mut inner = scope.clone();
        let mut values: Option<Vec<String>> = Some(Vec::new());
        let mut name = None;
        let mut body = None;
        for (i, child) in children(node).into_iter().enumerate() {
            let field = u32::try_from(i)
                .ok()
                .and_then(|i| node.field_name_for_child(i));
            match field {
                Some("variable") => name = Some(self.text(child).to_string()),
                Some("value") => {
                    let word = self.word(child, &mut inner);
                    values = match values {
                        Some(known) if !word.dynamic && !word.glob => {
                            Some(union_values(known, &word.values))
                        }
                        _ => None,
                    };
                }
                Some("body") => body = Some(child),
                _ => {}
            }
        }
        if let Some(name) = name {
            self.assigned(&name, None);
            inner.vars.insert(name, values);
        }
        let ends = body.map_or_else(Ends::default, |b| self.statement(b, &mut inner));
        scope.merge(&inner);
        ends
    }

    /// `while`, `until` and C-style `for` loops, recorded with whether they never end by
    /// themselves.
    fn endless_loop(&mut self, node: Node<'_>, scope: &mut Scope) -> Ends {
        let text = self.text(node);
        let endless = match node.kind() {
            "c_style_for_statement" => {
                let header = text.split("))").next().unwrap_or("");
                header
                    .split(';')
                    .nth(1)
                    .is_some_and(|c| c.trim().is_empty())
            }
            _ => {
                let condition: String = children(node)
                    .into_iter()
                    .enumerate()
                    .filter(|(i, _)| {
                        u32::try_from(*i)
                            .ok()
                            .and_then(|i| node.field_name_for_child(i))
                            == Some("condition")
                    })
                    .map(|(_, c)| self.text(c).trim_end_matches(';').trim().to_string())
                    .collect::<Vec<_>>()
                    .join(" ");
                let until = text.trim_start().starts_with("until");
                if until {
                    matches!(condition.trim(), "false" | "[ 0 ]" | "((0))")
                } else {
                    matches!(
                        condition.trim(),
                        "true" | ":" | "[ 1 ]" | "[[ 1 ]]" | "((1))" | "(( 1 ))"
                    )
                }
            }
        };
        let start = self.next_index();
        let mut inner = scope.clone();
        let ends = self.sequence(node, &mut inner);
        scope.merge(&inner);
        self.script.loops.push(Loop {
            text: text.to_string(),
            endless,
            body: start..self.next_index(),
        });
        ends
    }
}

#[cfg(test)]
mod tests;
