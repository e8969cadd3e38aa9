//! What a background command printed, in bounded memory: its last [`MAX_JOB_OUTPUT_BYTES`]
//! bytes (stdout and stderr together, in the order they came), and how far BashOutput has read.

use std::collections::VecDeque;

/// The most bytes [`OutputBuffer::last_lines`] looks at, from the end.
const MAX_LAST_LINES_BYTES: usize = 4_000;
/// The longest line [`OutputBuffer::last_lines`] gives whole.
const MAX_LAST_LINE_CHARS: usize = 300;

/// Bytes of output kept per job; older bytes are dropped, and a read that missed some says so.
pub(crate) const MAX_JOB_OUTPUT_BYTES: usize = 1 << 20;

/// The most bytes an incomplete UTF-8 character at the end can hold back.
const MAX_CHAR_BYTES: usize = 4;

/// One job's output.
#[derive(Debug)]
pub(crate) struct OutputBuffer {
    bytes: VecDeque<u8>,
    /// At most this many bytes are kept.
    limit: usize,
    /// Where `bytes[0]` is in the whole output (bytes before it were dropped).
    start: u64,
    /// How far the output has been read (possibly before `start`).
    read: u64,
}

impl Default for OutputBuffer {
    fn default() -> Self {
        Self::with_limit(MAX_JOB_OUTPUT_BYTES)
    }
}

/// Output not read before, as [`OutputBuffer::take_unread`] gives it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Unread {
    /// The text (undecodable bytes as U+FFFD).
    pub(crate) text: String,
    /// Bytes printed since the last read that were dropped before this one.
    pub(crate) dropped_bytes: u64,
}

impl OutputBuffer {
    /// A buffer keeping at most `limit` bytes.
    pub(crate) fn with_limit(limit: usize) -> Self {
        Self {
            bytes: VecDeque::new(),
            limit,
            start: 0,
            read: 0,
        }
    }

    /// Lets go of everything kept (a long-finished job's), as if it had been dropped for
    /// newer output: a later read says how much went.
    pub(crate) fn release(&mut self) {
        self.start += self.bytes.len() as u64;
        self.bytes = VecDeque::new();
    }

    /// Appends a chunk, dropping the oldest bytes beyond the limit.
    pub(crate) fn push(&mut self, chunk: &[u8]) {
        self.bytes.extend(chunk);
        let excess = self.bytes.len().saturating_sub(self.limit);
        if excess > 0 {
            self.bytes.drain(..excess);
            self.start += excess as u64;
        }
    }

    /// The output not read yet, and marks it read. While the command runs (`ended` false) a
    /// character whose bytes have not all come yet is left for the next read; once it has
    /// ended everything is taken.
    pub(crate) fn take_unread(&mut self, ended: bool) -> Unread {
        let from = self.read.max(self.start);
        let mut dropped_bytes = from - self.read;
        let offset = usize::try_from(from - self.start).unwrap_or(usize::MAX);
        let mut unread: Vec<u8> = self.bytes.iter().skip(offset).copied().collect();
        // Reading on from bytes that were dropped may start inside a character.
        let mut skip = 0;
        if dropped_bytes > 0 {
            skip = unread
                .iter()
                .take(MAX_CHAR_BYTES - 1)
                .take_while(|b| is_continuation(**b))
                .count();
            unread.drain(..skip);
            dropped_bytes += skip as u64;
        }
        if !ended {
            unread.truncate(complete_prefix(&unread));
        }
        self.read = from + (skip + unread.len()) as u64;
        Unread {
            text: String::from_utf8_lossy(&unread).into_owned(),
            dropped_bytes,
        }
    }

    /// The last `lines` lines of the output kept (read or not), for a report of what the
    /// command printed last.
    ///
    /// At most [`MAX_LAST_LINES_BYTES`] are looked at, and each line is cut to
    /// [`MAX_LAST_LINE_CHARS`]: a job that printed a megabyte without a newline (a minified
    /// bundle) gives a short tail, not all of it.
    pub(crate) fn last_lines(&self, lines: usize) -> String {
        if lines == 0 {
            return String::new();
        }
        // Lines are found from the end, so only the bytes they span are decoded. A last
        // newline ends the last line; it does not start another.
        let newlines_inside = lines - 1 + usize::from(self.bytes.back() == Some(&b'\n'));
        let (front, back) = self.bytes.as_slices();
        let mut newlines = 0;
        let mut taken = 0;
        for &byte in back.iter().rev().chain(front.iter().rev()) {
            if byte == b'\n' {
                newlines += 1;
                if newlines > newlines_inside {
                    break;
                }
            }
            if taken == MAX_LAST_LINES_BYTES {
                break;
            }
            taken += 1;
        }
        let skip = self.bytes.len() - taken;
        let tail: Vec<u8> = self.bytes.iter().skip(skip).copied().collect();
        let text = String::from_utf8_lossy(&tail);
        let text = text.trim_start_matches('\u{FFFD}');
        let text = text.strip_suffix('\n').unwrap_or(text);
        text.split('\n')
            .map(|line| match line.char_indices().nth(MAX_LAST_LINE_CHARS) {
                None => line.to_string(),
                Some((cut, _)) => {
                    let dropped = line[cut..].chars().count();
                    format!("{}… [+{dropped} chars]", &line[..cut])
                }
            })
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// Whether `byte` continues a UTF-8 character rather than starting one.
fn is_continuation(byte: u8) -> bool {
    byte & 0xC0 == 0x80
}

/// The length of `bytes` without a last character whose bytes have not all come yet.
fn complete_prefix(bytes: &[u8]) -> usize {
    match std::str::from_utf8(bytes) {
        Err(err) if err.error_len().is_none() => err.valid_up_to(),
        // Valid, or invalid in a way more bytes cannot fix: shown as U+FFFD.
        _ => bytes.len(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn each_read_takes_what_came_since_the_last() {
        let mut buffer = OutputBuffer::default();
        buffer.push(b"one\ntwo\n");
        assert_eq!(buffer.take_unread(false).text, "one\ntwo\n");
        assert_eq!(buffer.take_unread(false), Unread::default());
        buffer.push(b"three\n");
        assert_eq!(buffer.take_unread(false).text, "three\n");
    }

    #[test]
    fn the_oldest_bytes_go_first_and_a_read_that_missed_them_counts_them() {
        let mut buffer = OutputBuffer::with_limit(8);
        buffer.push(b"abcd");
        assert_eq!(buffer.take_unread(false).text, "abcd");
        buffer.push(b"efghijkl");
        assert_eq!(
            buffer.take_unread(false),
            Unread {
                text: "efghijkl".into(),
                dropped_bytes: 0
            }
        );
        buffer.push(b"0123456789");
        assert_eq!(
            buffer.take_unread(false),
            Unread {
                text: "23456789".into(),
                dropped_bytes: 2
            }
        );
    }

    #[test]
    fn a_character_split_across_chunks_waits_for_its_last_byte() {
        let mut buffer = OutputBuffer::default();
        let e = "é".as_bytes();
        buffer.push(&[b'a', e[0]]);
        assert_eq!(buffer.take_unread(false).text, "a");
        buffer.push(&[e[1], b'b']);
        assert_eq!(buffer.take_unread(false).text, "éb");
    }

    #[test]
    fn once_the_command_ended_an_incomplete_character_is_shown_as_it_is() {
        let mut buffer = OutputBuffer::default();
        buffer.push(&[b'a', "é".as_bytes()[0]]);
        assert_eq!(buffer.take_unread(true).text, "a\u{FFFD}");
    }

    #[test]
    fn a_read_after_a_drop_does_not_start_inside_a_character() {
        let mut buffer = OutputBuffer::with_limit(3);
        buffer.push("xxéé".as_bytes());
        // "é" is two bytes: both "x" and the first "é" were dropped, its second byte skipped.
        assert_eq!(
            buffer.take_unread(false),
            Unread {
                text: "é".into(),
                dropped_bytes: 4
            }
        );
    }

    #[test]
    fn last_lines_stay_short_however_long_the_lines() {
        let mut buffer = OutputBuffer::default();
        buffer.push(&vec![b'x'; 900_000]);
        let tail = buffer.last_lines(5);
        assert!(tail.len() < 1_000, "{}", tail.len());
        assert!(tail.ends_with(" chars]"), "{tail}");
        buffer.push(b"\nshort\n");
        assert!(buffer.last_lines(2).ends_with("\nshort"));
    }

    #[test]
    fn last_lines_are_the_end_of_everything_kept() {
        let mut buffer = OutputBuffer::default();
        buffer.push(b"1\n2\n3\n4\n");
        let _ = buffer.take_unread(false);
        assert_eq!(buffer.last_lines(2), "3\n4");
        buffer.push(b"5 no newline");
        assert_eq!(buffer.last_lines(2), "4\n5 no newline");
        assert_eq!(buffer.last_lines(10), "1\n2\n3\n4\n5 no newline");
        assert_eq!(OutputBuffer::default().last_lines(5), "");
    }
}
