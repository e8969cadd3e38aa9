//! Text from a model, a tool or a session file, on its way to the user's terminal (issue 12):
//! control characters are shown escaped there, so they cannot move the cursor, retitle the
//! window or write the clipboard. Written to a pipe or a file, text stays as it is.

use std::borrow::Cow;
use std::io::IsTerminal;

use wright_protocol::text::escape_controls;

/// `text` as it may go to standard output.
pub fn for_stdout(text: &str) -> Cow<'_, str> {
    for_stream(text, std::io::stdout().is_terminal())
}

/// `text` as it may go to a stream that `is_terminal` or not.
pub fn for_stream(text: &str, is_terminal: bool) -> Cow<'_, str> {
    if is_terminal {
        escape_controls(text)
    } else {
        Cow::Borrowed(text)
    }
}
