//! Places where bash evaluates a variable's value as code: arithmetic (`$((x))`, `(( x ))`,
//! `${a[x]}`, `${s:x}`, `[[ x -eq 0 ]]`, `declare -i`), where a name's value `a[$(cmd)]` runs
//! `cmd`; indirection (`${!x}`); and prompt expansion (`${x@P}`). A command that only reads
//! may hold none of them unless what is evaluated is written out in the command itself.

use tree_sitter::{Node, Parser};

/// The characters of an arithmetic expression that names no variable and runs nothing: numbers
/// and operators.
const LITERAL_ARITHMETIC: &str = "0123456789 \t\n+-*/%<>=!&|^~?:(),";

/// `${x@OP}` transformations that only quote or change case; `P` expands the value as a prompt
/// (running its command substitutions), and the others are not needed to read.
const HARMLESS_TRANSFORMS: &[char] = &['Q', 'U', 'u', 'L', 'a'];

/// `[[ … ]]`'s operators that evaluate their operands as arithmetic.
const ARITHMETIC_TESTS: &[&str] = &["-eq", "-ne", "-lt", "-le", "-gt", "-ge"];

/// Builtins that declare variables, whose `-i` makes every later assignment arithmetic.
const DECLARATIONS: &[&str] = &["declare", "typeset", "local", "export", "readonly"];

/// Refuses `command` when bash would evaluate part of a variable's value as code in it.
pub(super) fn check(command: &str) -> Result<(), String> {
    let mut parser = Parser::new();
    parser
        .set_language(&tree_sitter_bash::LANGUAGE.into())
        .map_err(|e| format!("the bash parser could not be started: {e}"))?;
    let tree = parser
        .parse(command, None)
        .ok_or_else(|| "the command could not be parsed".to_string())?;
    // Walked without recursion: the nesting depth is the command's to choose.
    let mut cursor = tree.root_node().walk();
    loop {
        node(cursor.node(), command)?;
        if cursor.goto_first_child() || cursor.goto_next_sibling() {
            continue;
        }
        loop {
            if !cursor.goto_parent() {
                return Ok(());
            }
            if cursor.goto_next_sibling() {
                break;
            }
        }
    }
}

/// Whether `expression` is arithmetic on numbers alone.
pub(super) fn literal_arithmetic(expression: &str) -> bool {
    expression.chars().all(|c| LITERAL_ARITHMETIC.contains(c))
}

/// Whether a variable name written for a builtin to assign or test (`printf -v NAME`, `test
/// -v NAME`, `unset NAME`) names an array element whose index is evaluated:
/// `a[$(cmd)]`. Only a literal index (`a[1]`, `a[@]`) is harmless.
pub(super) fn evaluated_name(name: &str) -> bool {
    match name.split_once('[') {
        Some((_, index)) => {
            let index = index.strip_suffix(']').unwrap_or(index);
            !(matches!(index, "@" | "*") || (literal_arithmetic(index) && !index.contains('[')))
        }
        None => false,
    }
}

/// Judges one node of the syntax tree.
fn node(node: Node<'_>, src: &str) -> Result<(), String> {
    let text = src.get(node.byte_range()).unwrap_or("");
    let refuse = |why: &str| Err(format!("`{text}` {why}"));
    const ARITHMETIC: &str = "evaluates a variable's value as arithmetic, which can run the \
                              commands hidden in it (`a[$(cmd)]`); only numbers may be used";
    match node.kind() {
        "arithmetic_expansion" => {
            let inner = text
                .strip_prefix("$((")
                .and_then(|t| t.strip_suffix("))"))
                .or_else(|| text.strip_prefix("$[").and_then(|t| t.strip_suffix(']')))
                .unwrap_or(text);
            match literal_arithmetic(inner) {
                true => Ok(()),
                false => refuse(ARITHMETIC),
            }
        }
        // tree-sitter reads `$((x))` inside `${…}` and here-documents as a command
        // substitution; bash reads it as arithmetic.
        "command_substitution" if text.starts_with("$((") => {
            let inner = text.trim_start_matches("$((").trim_end_matches("))");
            match literal_arithmetic(inner) {
                true => Ok(()),
                false => refuse(ARITHMETIC),
            }
        }
        "word" | "string_content" | "heredoc_content" | "heredoc_body"
            if text.contains("$[") || text.contains("$((") =>
        {
            refuse(ARITHMETIC)
        }
        // `(( … ))`.
        "compound_statement" if text.starts_with("((") => {
            let inner = text.trim_start_matches("((").trim_end_matches("))");
            match literal_arithmetic(inner) {
                true => Ok(()),
                false => refuse(ARITHMETIC),
            }
        }
        "c_style_for_statement" => {
            let header = node
                .child_by_field_name("body")
                .and_then(|body| src.get(node.start_byte()..body.start_byte()))
                .unwrap_or(text);
            let inner = header
                .split_once("((")
                .and_then(|(_, rest)| rest.rsplit_once("))"))
                .map_or(header, |(inner, _)| inner);
            match literal_arithmetic(&inner.replace(';', "")) {
                true => Ok(()),
                false => refuse(ARITHMETIC),
            }
        }
        "subscript" => {
            let index = node
                .child_by_field_name("index")
                .and_then(|index| src.get(index.byte_range()))
                .unwrap_or(text);
            match matches!(index, "@" | "*") || literal_arithmetic(index) {
                true => Ok(()),
                false => refuse(ARITHMETIC),
            }
        }
        "expansion" => expansion(text),
        "array" => {
            // `a=([INDEX]=value …)`.
            let hidden = text
                .trim_start_matches('(')
                .split_whitespace()
                .filter_map(|element| element.strip_prefix('['))
                .filter_map(|element| element.split_once("]="))
                .any(|(index, _)| !literal_arithmetic(index));
            match hidden {
                true => refuse(ARITHMETIC),
                false => Ok(()),
            }
        }
        "test_command" if text.starts_with("[[") => Ok(()),
        "test_command" => single_bracket(text),
        "binary_expression" | "unary_expression" => match in_test(node, src) {
            Some(double) => test_operands(node, src, double).map_or(Ok(()), &refuse),
            None => Ok(()),
        },
        "declaration_command" => declaration(node, src, text),
        "unset_command" => {
            let hidden = named_children(node)
                .iter()
                .filter_map(|child| src.get(child.byte_range()))
                .any(|name| evaluated_name(name.trim_matches(['\'', '"'])));
            match hidden {
                true => refuse(ARITHMETIC),
                false => Ok(()),
            }
        }
        _ => Ok(()),
    }
}

fn named_children(node: Node<'_>) -> Vec<Node<'_>> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor).collect()
}

/// Whether `node` sits inside a test: `Some(true)` in `[[ … ]]`, `Some(false)` in `[ … ]`.
fn in_test(node: Node<'_>, src: &str) -> Option<bool> {
    let mut at = node.parent();
    while let Some(parent) = at {
        match parent.kind() {
            "test_command" => {
                return Some(src.get(parent.byte_range())?.starts_with("[["));
            }
            "binary_expression" | "unary_expression" | "parenthesized_expression" => {
                at = parent.parent();
            }
            _ => return None,
        }
    }
    None
}

/// Whether `operand` of `-v` names a variable written out, without an evaluated index.
fn literal_name(operand: &str) -> bool {
    let name = operand.trim_matches(['\'', '"']);
    !name.is_empty() && !name.contains(['$', '`', '\\']) && !evaluated_name(name)
}

/// `[ … ]`: an operator only known when it runs could be `-v` (`[ $op $name ]`), testing a
/// name only known then. (tree-sitter reads the words, not the operators, of `[ … ]`.)
fn single_bracket(text: &str) -> Result<(), String> {
    let inner = text.trim_start_matches('[').trim_end_matches(']');
    let mut words: Vec<&str> = inner.split_whitespace().collect();
    while words.first() == Some(&"!") {
        words.remove(0);
    }
    let unknown = |word: &str| word.trim_start_matches('"').starts_with(['$', '`']);
    let connective = |word: Option<&&str>| word.is_none_or(|w| matches!(*w, "-a" | "-o" | ")"));
    for (at, word) in words.iter().enumerate() {
        let Some(next) = words.get(at + 1) else {
            break;
        };
        let tests_name = matches!(*word, "-v" | "-R")
            || (unknown(word)
                && connective(words.get(at + 2))
                && (at == 0 || connective(words.get(at.wrapping_sub(1)))));
        if tests_name && !literal_name(next) {
            return Err(format!(
                "`{text}` may test a variable whose name is only known when it runs or whose \
                 index is evaluated as arithmetic, which can run commands (`a[$(cmd)]`)"
            ));
        }
    }
    Ok(())
}

/// Why a `[[ … ]]` test evaluates a variable's value: an arithmetic comparison of anything but
/// numbers (`[[ x -eq 0 ]]` evaluates `x`), or `-v` of an array element (`-v 'a[$(cmd)]'`).
fn test_operands(node: Node<'_>, src: &str, double: bool) -> Option<&'static str> {
    let text = |n: Node<'_>| src.get(n.byte_range()).unwrap_or("");
    let operator = node
        .child_by_field_name("operator")
        .map(text)
        .unwrap_or_default();
    let operands: Vec<&str> = named_children(node)
        .into_iter()
        .filter(|child| child.kind() != "test_operator")
        .map(text)
        .collect();
    if double && ARITHMETIC_TESTS.contains(&operator) {
        let numbers = operands.iter().all(|operand| {
            let operand = operand.trim_matches(['\'', '"']);
            let digits = operand.strip_prefix(['-', '+']).unwrap_or(operand);
            (!digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit()))
                || matches!(operand, "$#" | "$?" | "${#}")
        });
        if !numbers {
            return Some(
                "compares as arithmetic, which evaluates a variable's value and can run the \
                 commands hidden in it (`a[$(cmd)]`); compare numbers written out, or use `[ … ]`",
            );
        }
    }
    if matches!(operator, "-v" | "-R") && !operands.iter().all(|o| literal_name(o)) {
        return Some(
            "tests an array element whose index is evaluated as arithmetic, which can run \
             commands (`a[$(cmd)]`)",
        );
    }
    None
}

/// `declare`, `local`, … : not `-i` (every assignment to the variable is then evaluated as
/// arithmetic), nor a quoted name with an evaluated index (`'a[$(cmd)]=1'`).
fn declaration(node: Node<'_>, src: &str, text: &str) -> Result<(), String> {
    let words: Vec<&str> = named_children(node)
        .iter()
        .map(|child| src.get(child.byte_range()).unwrap_or(""))
        .collect();
    let builtin = text.split_whitespace().next().unwrap_or("");
    if !DECLARATIONS.contains(&builtin) {
        return Ok(());
    }
    for word in words {
        let integer = word
            .strip_prefix(['-', '+'])
            .is_some_and(|flags| flags.contains('i'));
        if integer {
            return Err(format!(
                "`{builtin} {word}` makes the variable an integer, whose every assignment is \
                 evaluated as arithmetic and can run commands hidden in the value"
            ));
        }
        let name = word.trim_matches(['\'', '"']);
        let name = name.split_once('=').map_or(name, |(name, _)| name);
        if evaluated_name(name) {
            return Err(format!(
                "`{text}` names an array element whose index is evaluated as arithmetic, which \
                 can run commands (`a[$(cmd)]`)"
            ));
        }
    }
    Ok(())
}

/// `${…}`: not indirection (`${!x}`), a prompt expansion (`${x@P}`), nor an index or substring
/// offset that is not a number.
fn expansion(text: &str) -> Result<(), String> {
    let inner = text
        .strip_prefix("${")
        .and_then(|t| t.strip_suffix('}'))
        .unwrap_or(text);
    if let Some(indirect) = inner.strip_prefix('!') {
        // `${!a[@]}` lists an array's indices and `${!prefix*}` variables' names; anything
        // else takes the value of the variable named by the value.
        let names = indirect.ends_with("[@]")
            || indirect.ends_with("[*]")
            || indirect.ends_with('*')
            || indirect.ends_with('@');
        let plain = indirect
            .trim_end_matches("[@]")
            .trim_end_matches("[*]")
            .trim_end_matches(['*', '@'])
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_');
        return match names && plain {
            true => Ok(()),
            false => Err(format!(
                "`{text}` takes the value of the variable a value names, which can run the \
                 commands hidden in that name (`a[$(cmd)]`)"
            )),
        };
    }
    // `${#name…}` is the length of `${name…}`.
    let body = match inner.strip_prefix('#') {
        Some(rest) if rest.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') => rest,
        _ => inner,
    };
    let name_len = match body.chars().next() {
        Some(c) if c.is_ascii_alphabetic() || c == '_' => body
            .find(|c: char| !c.is_ascii_alphanumeric() && c != '_')
            .unwrap_or(body.len()),
        Some(c) => c.len_utf8(),
        None => 0,
    };
    let mut rest = &body[name_len..];
    if let Some(after) = rest.strip_prefix('[') {
        let Some((index, after)) = after.split_once(']') else {
            return Err(format!("`{text}` has an index that cannot be read"));
        };
        if !(matches!(index, "@" | "*") || literal_arithmetic(index)) {
            return Err(format!(
                "`{text}` has an index evaluated as arithmetic, which can run the commands \
                 hidden in a variable's value (`a[$(cmd)]`); only numbers may be used"
            ));
        }
        rest = after;
    }
    if let Some(transform) = rest.strip_prefix('@') {
        return match transform.chars().all(|c| HARMLESS_TRANSFORMS.contains(&c)) {
            true => Ok(()),
            false => Err(format!(
                "`{text}` transforms the value in a way that may evaluate it (`@P` runs the \
                 commands in it); only `@Q`, `@U`, `@u`, `@L` and `@a` may be used"
            )),
        };
    }
    if let Some(substring) = rest.strip_prefix(':')
        && !substring.starts_with(['-', '=', '+', '?'])
        && !literal_arithmetic(substring)
    {
        return Err(format!(
            "`{text}` takes a substring at an offset evaluated as arithmetic, which can run \
             the commands hidden in a variable's value; only numbers may be used"
        ));
    }
    Ok(())
}
