//! Word nodes evaluated in the walk: their substitutions' commands walked, variables looked up
//! in the scope.

use tree_sitter::Node;

use super::{Walker, children, named_children};
use crate::script::{Cwd, Scope, Word};
use crate::words::{
    MAX_ALTERNATIVES, Part, ansi_c, expand_braces, strip, unescape_double_quoted, unquoted,
};

/// What `$TMPDIR` is taken to be when the command cannot have changed it: the system
/// temporary directory (its real value differs from machine to machine, but it is always
/// scratch space the sandbox lets commands write to).
const TMPDIR_PLACE: &str = "/tmp";

/// What `$(mktemp)` is taken to print: a fresh entry of the temporary directory.
const MKTEMP_PLACE: &str = "/tmp/tmp.XXXXXXXXXX";

/// Whether `command` (the text of a command substitution) is `mktemp` making its file or
/// directory in `$TMPDIR`: no `-p DIR`/`--tmpdir=DIR` and no template with a directory in it.
fn makes_temp_in_tmpdir(command: &str) -> bool {
    let mut words = command.split_whitespace();
    if words.next() != Some("mktemp") {
        return false;
    }
    words.all(|word| {
        let elsewhere = word == "-p" || word.starts_with("--tmpdir=") || word.contains('/');
        let plain = word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-._".contains(c));
        plain && !elsewhere
    })
}

impl Walker<'_> {
    /// Evaluates one word node (walking the commands of its substitutions).
    pub(super) fn word(&mut self, node: Node<'_>, scope: &mut Scope) -> Word {
        let start = self.next_index();
        let part = self.part(node, scope, true);
        let raw = self.text(node).to_string();
        let mut values = part.values;
        let mut dynamic = part.dynamic;
        // A quoted word is never brace-expanded (`'{ print $1, $2 }'`).
        let quoted = matches!(node.kind(), "raw_string" | "string" | "ansi_c_string");
        if !quoted && raw.contains('{') && raw.contains(',') && raw.contains('}') {
            values = values.iter().flat_map(|v| expand_braces(v)).collect();
            // Braces expand before tildes: `{dist,~}` holds the home directory.
            for value in &mut values {
                let tilde = unquoted(value, true, self.env.home);
                if value.starts_with('~') {
                    dynamic |= tilde.dynamic;
                    *value = tilde.values.into_iter().next().unwrap_or_default();
                }
            }
        }
        if values.len() > MAX_ALTERNATIVES {
            values.truncate(MAX_ALTERNATIVES);
            dynamic = true;
        }
        Word {
            raw,
            values,
            dynamic,
            glob: part.glob,
            split: part.split,
            subs: start..self.next_index(),
        }
    }

    fn part(&mut self, node: Node<'_>, scope: &mut Scope, first: bool) -> Part {
        if !self.descend() {
            return Part::unknown(self.text(node));
        }
        let mut part = self.part_at_depth(node, scope, first);
        self.depth -= 1;
        // An expansion splits unless quoted; a string's parts are reset by the string.
        part.split |= matches!(
            node.kind(),
            "simple_expansion" | "expansion" | "command_substitution" | "arithmetic_expansion"
        );
        part
    }

    fn part_at_depth(&mut self, node: Node<'_>, scope: &mut Scope, first: bool) -> Part {
        let text = self.text(node);
        match node.kind() {
            "word" => unquoted(text, first, self.env.home),
            "number" | "brace_expression" | "string_content" | "heredoc_content" => {
                Part::known(text.to_string())
            }
            "raw_string" => Part::known(strip(text, "'", "'").to_string()),
            "ansi_c_string" => Part::known(ansi_c(strip(text, "$'", "'"))),
            "string" | "translated_string" => {
                let mut part = Part::known(String::new());
                for child in named_children(node) {
                    let inner = if child.kind() == "string_content" {
                        Part::known(unescape_double_quoted(self.text(child)))
                    } else {
                        self.part(child, scope, false)
                    };
                    part = part.then(inner);
                }
                part.glob = false;
                part.split = false;
                part
            }
            "concatenation" => {
                let mut part = Part::known(String::new());
                for (i, child) in named_children(node).into_iter().enumerate() {
                    let inner = self.part(child, scope, first && i == 0);
                    part = part.then(inner);
                }
                part
            }
            "simple_expansion" => {
                let name = named_children(node).first().map_or("", |n| self.text(*n));
                self.variable(name, text, scope)
            }
            "expansion" => {
                let inner = named_children(node);
                let plain = inner.len() == 1
                    && inner[0].kind() == "variable_name"
                    && children(node).len() == 3;
                let list = text
                    .strip_prefix("${")
                    .and_then(|t| t.strip_suffix("[@]}").or(t.strip_suffix("[*]}")))
                    .filter(|name| name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'));
                let temp_default = ["${TMPDIR:-/tmp}", "${TMPDIR-/tmp}", "${TMPDIR:-/var/tmp}"]
                    .contains(&text)
                    && self.env.tmpdir
                    && !scope.vars.contains_key("TMPDIR");
                // `${NAME:=value}` and `${NAME=value}` assign NAME when it is unset.
                let assigns = children(node)
                    .iter()
                    .any(|c| matches!(c.kind(), ":=" | "="));
                if let (true, Some(name)) = (assigns, inner.first()) {
                    self.assigned(self.text(*name), None);
                }
                if plain {
                    self.variable(self.text(inner[0]), text, scope)
                } else if temp_default {
                    // The temporary directory, whether `TMPDIR` is set or not.
                    Part::known(TMPDIR_PLACE.to_string())
                } else if let Some(name) = list {
                    self.sequence(node, &mut scope.clone());
                    match scope.vars.get(&format!("{name}[@]")) {
                        Some(Some(values)) => Part::any(values.iter().cloned()),
                        _ => Part::unknown(text),
                    }
                } else {
                    self.sequence(node, &mut scope.clone());
                    Part::unknown(text)
                }
            }
            "command_substitution" => {
                let inner = strip(strip(text, "$(", ")"), "`", "`").trim();
                // `git rev-parse --show-toplevel` run in the project prints its root (the
                // checker is given the repository's root as the project's).
                let in_project = matches!(
                    &scope.cwd,
                    Cwd::Known(dirs) if dirs.iter().all(|d| d.starts_with(self.env.root))
                );
                let toplevel = in_project
                    && inner.split_whitespace().collect::<Vec<_>>()
                        == ["git", "rev-parse", "--show-toplevel"];
                if toplevel {
                    self.sequence(node, &mut scope.clone());
                    return Part::known(self.env.root.display().to_string());
                }
                let pwd = inner == "pwd";
                self.sequence(node, &mut scope.clone());
                match (&scope.cwd, pwd) {
                    (Cwd::Known(dirs), true) => {
                        Part::any(dirs.iter().map(|d| d.display().to_string()))
                    }
                    _ if self.env.tmpdir && makes_temp_in_tmpdir(inner) => {
                        Part::known(MKTEMP_PLACE.to_string())
                    }
                    _ => Part::unknown(text),
                }
            }
            _ => {
                self.sequence(node, &mut scope.clone());
                Part::unknown(text)
            }
        }
    }

    /// `$NAME`: assigned earlier in the script, `HOME`, `PWD`, or unknown.
    fn variable(&self, name: &str, text: &str, scope: &Scope) -> Part {
        match scope.vars.get(name) {
            Some(Some(values)) => return Part::any(values.iter().cloned()),
            Some(None) => return Part::unknown(text),
            None => {}
        }
        match (name, self.env.home, &scope.cwd) {
            ("HOME", Some(home), _) => Part::known(home.display().to_string()),
            ("TMPDIR", _, _) if self.env.tmpdir => Part::known(TMPDIR_PLACE.to_string()),
            ("PWD", _, Cwd::Known(dirs)) => Part::any(dirs.iter().map(|d| d.display().to_string())),
            _ => Part::unknown(text),
        }
    }
}
