//! Reading a session file line by line, each line to a bound: a line too long to be a record
//! wright writes is skipped without being held in memory.

use std::io::{self, BufRead, Read};

/// The longest record line wright writes or reads (issue 12: one 774 MB line made a session
/// unloadable). Longer records are refused when appended, longer lines skipped when loaded.
pub const MAX_RECORD_BYTES: usize = 16 * 1024 * 1024;

/// One line of a session file, without its line break.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Line {
    /// A line within the bound.
    Text(String),
    /// A line longer than the bound (skipped to its end), or not UTF-8.
    Unreadable(String),
}

/// The lines of `reader`, each at most `limit` bytes; a longer line is read past, not kept.
pub(crate) struct BoundedLines<R> {
    reader: R,
    limit: usize,
}

impl<R: BufRead> BoundedLines<R> {
    /// Lines of `reader` of at most `limit` bytes.
    pub(crate) fn new(reader: R, limit: usize) -> Self {
        Self { reader, limit }
    }
}

impl<R: BufRead> Iterator for BoundedLines<R> {
    type Item = io::Result<Line>;

    fn next(&mut self) -> Option<Self::Item> {
        let mut line = Vec::new();
        // One byte past the limit says the line is too long, whatever follows.
        let bound = u64::try_from(self.limit)
            .unwrap_or(u64::MAX)
            .saturating_add(1);
        match (&mut self.reader).take(bound).read_until(b'\n', &mut line) {
            Ok(0) => return None,
            Ok(_) => {}
            Err(e) => return Some(Err(e)),
        }
        if line.last() == Some(&b'\n') {
            line.pop();
            if line.last() == Some(&b'\r') {
                line.pop();
            }
        } else if line.len() > self.limit {
            if let Err(e) = self.reader.skip_until(b'\n') {
                return Some(Err(e));
            }
            return Some(Ok(Line::Unreadable(format!(
                "longer than {} bytes",
                self.limit
            ))));
        }
        Some(Ok(match String::from_utf8(line) {
            Ok(text) => Line::Text(text),
            Err(_) => Line::Unreadable("not valid UTF-8".into()),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn lines(text: &[u8], limit: usize) -> Vec<Line> {
        BoundedLines::new(text, limit)
            .collect::<io::Result<Vec<_>>>()
            .unwrap()
    }

    #[test]
    fn lines_within_the_bound_are_read_with_or_without_a_last_line_break() {
        assert_eq!(
            lines(b"one\r\ntwo\n\nthree", 5),
            vec![
                Line::Text("one".into()),
                Line::Text("two".into()),
                Line::Text(String::new()),
                Line::Text("three".into()),
            ]
        );
    }

    #[test]
    fn a_line_past_the_bound_is_skipped_and_the_next_one_read() {
        assert_eq!(
            lines(b"ok\n0123456789\nnext\n012345", 5),
            vec![
                Line::Text("ok".into()),
                Line::Unreadable("longer than 5 bytes".into()),
                Line::Text("next".into()),
                Line::Unreadable("longer than 5 bytes".into()),
            ]
        );
    }

    #[test]
    fn a_line_that_is_not_utf8_is_unreadable() {
        assert_eq!(
            lines(b"\xff\xfe\nok\n", 5),
            vec![
                Line::Unreadable("not valid UTF-8".into()),
                Line::Text("ok".into()),
            ]
        );
    }
}
