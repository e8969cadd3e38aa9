//! Redirections, heredocs and here-strings: output targets to check, and the stdin text a
//! shell might run.

use tree_sitter::Node;

use super::{Ends, Walker, children, is_redirect, named_children};
use crate::script::{Redirect, Scope, Word};

impl Walker<'_> {
    /// A statement with redirections. tree-sitter puts whatever follows a heredoc's start on
    /// its line (`| sh`, `&& next`, `> file`) inside the heredoc node; it is walked here as the
    /// pipeline or list it is.
    pub(super) fn redirected(&mut self, node: Node<'_>, scope: &mut Scope) -> Ends {
        let mut ends = Ends::default();
        let mut redirects = Vec::new();
        for child in named_children(node) {
            if is_redirect(child.kind()) {
                redirects.push(child);
            } else if child.kind() != "comment" {
                ends = self.statement(child, scope);
            }
        }
        let mut continuation = Vec::new();
        for redirect in redirects {
            continuation.extend(self.redirect(redirect, scope, ends.first));
        }
        for (operator, next) in continuation {
            match (operator, next.kind()) {
                (None, "pipeline") => {
                    let text = self.text(node);
                    ends = self.pipeline(text, ends, named_children(next), scope);
                }
                (Some("||"), _) => {
                    let mut inner = scope.clone();
                    self.statement(next, &mut inner);
                    scope.merge(&inner);
                }
                _ => {
                    let these = self.statement(next, scope);
                    ends.last = these.last.or(ends.last);
                }
            }
        }
        ends
    }

    /// Records a file redirection (on `target` too, when known) or the stdin a heredoc/here-string gives `target`.
    /// Returns the statements tree-sitter nested in a heredoc node, with the operator before
    /// each (`None` for a pipeline).
    pub(super) fn redirect<'t>(
        &mut self,
        node: Node<'t>,
        scope: &mut Scope,
        target: Option<usize>,
    ) -> Vec<(Option<&'static str>, Node<'t>)> {
        let mut continuation = Vec::new();
        match node.kind() {
            "file_redirect" => {
                let operator = children(node)
                    .into_iter()
                    .find(|c| !c.is_named())
                    .map_or("", |c| c.kind());
                let writes = operator.contains('>');
                for destination in named_children(node) {
                    if matches!(destination.kind(), "file_descriptor" | "ERROR") {
                        continue;
                    }
                    let word = self.word(destination, scope);
                    let duplicates_fd =
                        operator.ends_with('&') && (destination.kind() == "number" || word.is("-"));
                    if duplicates_fd {
                        continue;
                    }
                    let command = target.and_then(|i| self.script.commands.get_mut(i));
                    if let Some(command) = command {
                        if operator.contains('<') {
                            command.inputs.push(word.clone());
                        }
                        if writes {
                            command.outputs.push(word.clone());
                        }
                    }
                    if writes {
                        self.script.redirects.push(Redirect {
                            target: word,
                            cwd: scope.cwd.clone(),
                            text: self.text(node).to_string(),
                        });
                    }
                }
            }
            "herestring_redirect" => {
                for child in named_children(node) {
                    let word = self.word(child, scope);
                    self.set_stdin(target, word);
                }
            }
            "heredoc_redirect" => {
                let mut operator = None;
                for child in children(node) {
                    match child.kind() {
                        "&&" | "||" | ";" | "|" => {
                            operator = match child.kind() {
                                "&&" => Some("&&"),
                                "||" => Some("||"),
                                _ => Some(";"),
                            };
                        }
                        "heredoc_body" => {
                            let body = self.heredoc_body(child, scope);
                            self.set_stdin(target, body);
                        }
                        "file_redirect" | "herestring_redirect" => {
                            self.redirect(child, scope, target);
                        }
                        "pipeline" => continuation.push((None, child)),
                        kind if child.is_named()
                            && !matches!(kind, "heredoc_start" | "heredoc_end" | "comment") =>
                        {
                            continuation.push((operator.or(Some("&&")), child));
                        }
                        _ => {}
                    }
                }
            }
            _ => {}
        }
        continuation
    }

    fn set_stdin(&mut self, target: Option<usize>, word: Word) {
        if let Some(command) = target.and_then(|i| self.script.commands.get_mut(i)) {
            command.stdin = Some(word);
        }
    }

    /// A heredoc's text, as written (an inner shell expands what the outer one did not); the
    /// substitutions of an unquoted heredoc run in the outer shell, so they are walked.
    fn heredoc_body(&mut self, node: Node<'_>, scope: &mut Scope) -> Word {
        let start = self.next_index();
        let mut dynamic = false;
        for child in named_children(node) {
            if child.kind() != "heredoc_content" {
                dynamic = true;
                self.word(child, scope);
            }
        }
        let text = self.text(node).to_string();
        Word {
            raw: text.clone(),
            values: vec![text],
            dynamic,
            glob: false,
            split: false,
            subs: start..self.next_index(),
        }
    }
}
