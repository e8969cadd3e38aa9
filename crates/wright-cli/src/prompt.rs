//! The prompt of `wright exec`: the argument, or the whole of standard input for `-` (or no
//! argument with a pipe on stdin), so tasks can be piped in and agents can run agents.

use std::io::Read;

/// The argument that asks for the prompt to be read from standard input (as `codex exec -`).
pub const FROM_STDIN: &str = "-";

/// The longest prompt read from standard input: 1 MiB. A larger one is almost certainly a file
/// piped by mistake, and would not fit a context window anyway.
pub const MAX_STDIN_PROMPT: usize = 1 << 20;

/// Why there is no prompt to run.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum PromptError {
    /// No argument, and standard input is a terminal.
    #[error(
        "no prompt: give it as an argument (`wright exec \"...\"`), or pipe it in \
         (`echo \"...\" | wright exec -`)"
    )]
    Missing,
    /// The prompt holds nothing but white space.
    #[error("the prompt {} is empty; say what you want done", source_name(*.from_stdin))]
    Empty {
        /// Whether it was read from standard input.
        from_stdin: bool,
    },
    /// Standard input holds more than [`MAX_STDIN_PROMPT`] bytes.
    #[error(
        "the prompt on standard input is longer than {} MiB; pass a shorter one, or put the \
         material in a file and mention it with @path",
        MAX_STDIN_PROMPT >> 20
    )]
    TooLong,
    /// Standard input is not UTF-8 text.
    #[error("the prompt on standard input is not UTF-8 text (invalid byte at offset {offset})")]
    NotUtf8 {
        /// The offset of the first byte that is not valid UTF-8.
        offset: usize,
    },
    /// Standard input could not be read.
    #[error("cannot read the prompt from standard input: {0}")]
    Read(String),
}

fn source_name(from_stdin: bool) -> &'static str {
    if from_stdin {
        "on standard input"
    } else {
        "given"
    }
}

/// The prompt `wright exec` runs: `argument` itself, or standard input (`stdin`) when the
/// argument is `-`, or when there is none and stdin is not a terminal.
pub fn exec_prompt(
    argument: Option<String>,
    stdin: impl Read,
    stdin_is_terminal: bool,
) -> Result<String, PromptError> {
    let (prompt, from_stdin) = match argument {
        Some(argument) if argument != FROM_STDIN => (argument, false),
        None if stdin_is_terminal => return Err(PromptError::Missing),
        _ => (read_prompt(stdin)?, true),
    };
    if prompt.trim().is_empty() {
        return Err(PromptError::Empty { from_stdin });
    }
    Ok(prompt)
}

/// Reads the whole of `input` as a prompt of at most [`MAX_STDIN_PROMPT`] bytes; the line
/// ends at its end (`echo` adds one) are dropped.
pub fn read_prompt(input: impl Read) -> Result<String, PromptError> {
    let mut bytes = Vec::new();
    // One byte more than allowed tells a prompt of exactly the limit from a longer one.
    input
        .take(MAX_STDIN_PROMPT as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| PromptError::Read(e.to_string()))?;
    if bytes.len() > MAX_STDIN_PROMPT {
        return Err(PromptError::TooLong);
    }
    let text = String::from_utf8(bytes).map_err(|e| PromptError::NotUtf8 {
        offset: e.utf8_error().valid_up_to(),
    })?;
    Ok(text.trim_end_matches(['\n', '\r']).to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn an_argument_is_the_prompt_and_stdin_is_not_read() {
        let stdin: &[u8] = b"not this";
        assert_eq!(
            exec_prompt(Some("fix it".into()), stdin, false),
            Ok("fix it".to_string())
        );
    }

    #[test]
    fn a_dash_reads_stdin_even_from_a_terminal() {
        let stdin: &[u8] = b"line one\nline two\n\n";
        assert_eq!(
            exec_prompt(Some("-".into()), stdin, true),
            Ok("line one\nline two".to_string())
        );
    }

    #[test]
    fn no_argument_reads_a_piped_stdin() {
        let stdin: &[u8] = b"piped task\r\n";
        assert_eq!(
            exec_prompt(None, stdin, false),
            Ok("piped task".to_string())
        );
    }

    #[test]
    fn no_argument_and_a_terminal_is_missing() {
        let stdin: &[u8] = b"";
        assert_eq!(exec_prompt(None, stdin, true), Err(PromptError::Missing));
    }

    #[test]
    fn an_empty_prompt_is_refused_from_either_source() {
        let stdin: &[u8] = b" \n\t\n";
        assert_eq!(
            exec_prompt(None, stdin, false),
            Err(PromptError::Empty { from_stdin: true })
        );
        assert_eq!(
            exec_prompt(Some("  ".into()), &b""[..], false),
            Err(PromptError::Empty { from_stdin: false })
        );
    }

    #[test]
    fn a_prompt_of_exactly_the_limit_is_read_and_one_byte_more_is_refused() {
        let limit = vec![b'a'; MAX_STDIN_PROMPT];
        assert_eq!(
            read_prompt(&limit[..]).map(|p| p.len()),
            Ok(MAX_STDIN_PROMPT)
        );
        let over = vec![b'a'; MAX_STDIN_PROMPT + 1];
        assert_eq!(read_prompt(&over[..]), Err(PromptError::TooLong));
    }

    #[test]
    fn bytes_that_are_not_utf8_are_refused_with_their_offset() {
        let stdin: &[u8] = b"caf\xe9 au lait";
        assert_eq!(read_prompt(stdin), Err(PromptError::NotUtf8 { offset: 3 }));
    }
}
