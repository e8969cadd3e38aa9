//! The Read tool: a numbered window of a text file, with the spec A8 mtime note.
//!
//! The file is streamed, never loaded whole: one pass over it keeps the lines of the requested
//! window (each cut to [`MAX_LINE_CHARS`]) and only counts the others, so memory stays flat
//! however large the file is, and a 5 GB log costs about what `wc -l` does.

use std::borrow::Cow;
use std::fs::File;
use std::io::{ErrorKind, Read};
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use wright_protocol::{ErrorCode, ToolError, ToolResult};

use crate::args::{Typed, invalid, schema_of};
use crate::data::{ReadData, to_value};
use crate::walk::{StopFlag, run_blocking};
use crate::{Prepared, Tool, ToolContext, ToolKind, failure};

/// Lines shown when the model gives no `limit`.
const DEFAULT_LIMIT: usize = 2000;
/// Characters of one line shown before it is cut (minified files, data dumps).
const MAX_LINE_CHARS: usize = 2000;
/// How much of the file is searched for a NUL byte to call it binary.
const BINARY_SNIFF_BYTES: usize = 8 * 1024;
/// A file with more undecodable bytes than this share (1 in N) is binary, not text with a few
/// stray Latin-1 bytes (which are shown as U+FFFD instead).
const MAX_INVALID_UTF8_ONE_IN: usize = 100;
/// Bytes Read takes from the file at a time; Ctrl-C is noticed between two blocks.
///
/// The first block is also all Read looks at to call a file binary ([`decode`]'s rules applied
/// to it alone), so a huge binary file is refused at once instead of after a full pass. A file
/// up to this size is judged whole, exactly as the edit tools judge it; a larger one whose
/// undecodable bytes only start later is shown as text, each bad sequence as U+FFFD.
const BLOCK_BYTES: usize = 64 * 1024;
/// The UTF-8 byte order mark, hidden from the model (Write keeps it, DESIGN §5).
pub(crate) const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

const SHAPE: &str = r#"{"file_path": string, "offset"?: integer, "limit"?: integer}"#;

/// Reads a text file as numbered lines (`cat -n` style), a window at a time.
#[derive(Debug, Clone, Copy, Default)]
pub struct ReadTool;

#[derive(Debug, Deserialize, JsonSchema)]
struct ReadArgs {
    file_path: String,
    /// 1-based first line; 0 is taken as 1.
    offset: Option<u64>,
    limit: Option<u64>,
}

impl Tool for ReadTool {
    fn name(&self) -> &'static str {
        "Read"
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Read
    }

    fn description(&self) -> &'static str {
        include_str!("../../../prompts/tools/read.md")
    }

    fn schema(&self) -> Value {
        schema_of::<ReadArgs>()
    }

    fn prepare(&self, args: Value, _: &ToolContext) -> Result<Box<dyn Prepared>, ToolError> {
        Typed::prepare("Read", args, SHAPE, |args, ctx| Box::pin(read(args, ctx)))
    }
}

async fn read(args: ReadArgs, ctx: &ToolContext) -> Result<ToolResult, ToolError> {
    let offset = usize::try_from(args.offset.unwrap_or(1).max(1)).unwrap_or(usize::MAX);
    let limit = match args.limit {
        None => DEFAULT_LIMIT,
        Some(0) => return Err(invalid("Read", "`limit` must be at least 1", SHAPE)),
        Some(n) => usize::try_from(n).unwrap_or(usize::MAX),
    };
    let abs = ctx.resolve(&args.file_path)?;
    let shown = ctx.display_path(&abs);
    let io_error = |err: std::io::Error| match err.kind() {
        ErrorKind::NotFound => failure(
            ErrorCode::NotFound,
            format!(
                "file not found: {}; paths are relative to the project root",
                args.file_path
            ),
        ),
        _ => failure(ErrorCode::Io, format!("cannot read {shown}: {err}")),
    };

    let meta = tokio::fs::metadata(&abs).await.map_err(io_error)?;
    if meta.is_dir() {
        return Err(failure(
            ErrorCode::IsDirectory,
            format!("{shown} is a directory, not a file; use the LS tool to list it"),
        ));
    }
    if !meta.is_file() {
        // A FIFO would block the read forever; devices and sockets are no better.
        return Err(failure(
            ErrorCode::Other,
            format!("{shown} is not a regular file (a pipe, socket or device); Read shows files"),
        ));
    }
    // Taken before reading: if the file changes in between, the next read reports it.
    let mtime = meta.modified().ok();
    let path = abs.clone();
    let scanned = run_blocking("Read", ctx.cancellation(), move |stop| {
        Ok(scan_file(&path, offset, limit, stop))
    })
    .await?
    .map_err(io_error)?;
    let Some(Scanned {
        listing,
        invalid_bytes,
    }) = scanned
    else {
        return Err(failure(
            ErrorCode::BinaryFile,
            format!("{shown} is a binary file, not text; Read shows only text files"),
        ));
    };

    let mut notes = Vec::new();
    let listing = if listing.total == 0 {
        notes.push(format!("{shown} is empty (0 lines)."));
        Listing::empty()
    } else if offset > listing.total {
        let total = listing.total;
        return Err(failure(
            ErrorCode::InvalidArguments,
            format!(
                "`offset` {offset} is past the end of {shown}, which has {total} lines; \
                 use an offset from 1 to {total}"
            ),
        ));
    } else {
        notes.push(listing.range_note());
        listing
    };
    if invalid_bytes > 0 {
        notes.push(format!(
            "Note: {shown} is not valid UTF-8; its {invalid_bytes} undecodable bytes are shown \
             as \u{FFFD}."
        ));
    }
    let modified = mtime.is_some_and(|mtime| ctx.observe_mtime(&abs, mtime));
    if modified {
        notes.push(format!("Note: {shown} was modified externally."));
    }
    let mut data = ReadData {
        file_path: shown,
        offset: listing.first,
        limit,
        lines_shown: listing.last + 1 - listing.first,
        total_lines: listing.total,
        content: String::new(),
        mtime: mtime.map(epoch_seconds),
        truncated: listing.truncated(),
        long_lines_cut: listing.long_lines_cut,
        invalid_utf8_bytes: (invalid_bytes > 0).then_some(invalid_bytes),
        modified_externally: modified,
    };

    let mut text = listing.content.clone();
    data.content = listing.content;
    if !text.is_empty() {
        text.push('\n');
    }
    text.push_str(&notes.join("\n"));
    Ok(ToolResult::success(text, to_value(&data)))
}

/// The file as text and its count of undecodable bytes, or `None` for a binary file: a NUL in
/// the first [`BINARY_SNIFF_BYTES`], or more than one undecodable byte in
/// [`MAX_INVALID_UTF8_ONE_IN`]. A few bad bytes (a Latin-1 `é` in a comment) are decoded
/// lossily so the rest of the file stays readable. A UTF-8 BOM is dropped.
///
/// The edit tools pass a whole file; Read passes its first [`BLOCK_BYTES`].
pub(crate) fn decode(bytes: &[u8]) -> Option<(Cow<'_, str>, usize)> {
    if bytes[..bytes.len().min(BINARY_SNIFF_BYTES)].contains(&0) {
        return None;
    }
    let bytes = bytes.strip_prefix(UTF8_BOM).unwrap_or(bytes);
    match std::str::from_utf8(bytes) {
        Ok(text) => Some((Cow::Borrowed(text), 0)),
        Err(_) => {
            let invalid: usize = bytes.utf8_chunks().map(|c| c.invalid().len()).sum();
            (invalid.saturating_mul(MAX_INVALID_UTF8_ONE_IN) <= bytes.len())
                .then(|| (String::from_utf8_lossy(bytes), invalid))
        }
    }
}

/// Streams the file at `path` through a [`LineScan`] of lines `offset..offset + limit`, or
/// `None` if its first block says it is binary. Stops early once `stop` is raised.
fn scan_file(
    path: &Path,
    offset: usize,
    limit: usize,
    stop: &StopFlag,
) -> std::io::Result<Option<Scanned>> {
    let mut file = File::open(path)?;
    let mut block = vec![0; BLOCK_BYTES];
    let mut filled = fill(&mut file, &mut block)?;
    let head = &block[..filled];
    if decode(head).is_none() {
        return Ok(None);
    }
    let mut scan = LineScan::new(offset, limit);
    scan.push(head.strip_prefix(UTF8_BOM).unwrap_or(head));
    // A block read short is the end of the file.
    while filled == block.len() {
        if stop.is_raised() {
            // `run_blocking` reports the interruption.
            return Err(ErrorKind::Interrupted.into());
        }
        filled = fill(&mut file, &mut block)?;
        scan.push(&block[..filled]);
    }
    Ok(Some(scan.finish()))
}

/// Reads from `file` until `buf` is full or the file ends; returns the bytes read.
fn fill(file: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match file.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(err) if err.kind() == ErrorKind::Interrupted => {}
            Err(err) => return Err(err),
        }
    }
    Ok(filled)
}

/// Seconds since the Unix epoch, to the millisecond.
fn epoch_seconds(time: SystemTime) -> f64 {
    let since = time
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or_else(|before| -before.duration().as_secs_f64());
    (since * 1000.0).round() / 1000.0
}

/// What one pass over a text file found.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Scanned {
    /// The window's lines; `last` is `first - 1` when the file ends before `first`.
    listing: Listing,
    /// Undecodable bytes in the whole file (each run of them is shown as one U+FFFD).
    invalid_bytes: usize,
}

/// A numbered window of a file's lines.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Listing {
    /// `cat -n` lines: number right-aligned in 6 columns, a tab, the text; `\n`-separated.
    content: String,
    /// First and last line shown, 1-based, inclusive.
    first: usize,
    last: usize,
    /// Lines in the whole file.
    total: usize,
    /// Lines longer than [`MAX_LINE_CHARS`] that were cut.
    long_lines_cut: usize,
}

impl Listing {
    /// The listing of an empty file.
    fn empty() -> Self {
        Self {
            content: String::new(),
            first: 1,
            last: 0,
            total: 0,
            long_lines_cut: 0,
        }
    }

    /// Whether the model saw less than the rest of the file from `first`.
    fn truncated(&self) -> bool {
        self.last < self.total || self.long_lines_cut > 0
    }

    /// `[lines 1-2000 of 5000; use offset=2001 to read more]`.
    fn range_note(&self) -> String {
        let mut note = format!("[lines {}-{} of {}", self.first, self.last, self.total);
        if self.last < self.total {
            note.push_str(&format!("; use offset={} to read more", self.last + 1));
        }
        match self.long_lines_cut {
            0 => {}
            1 => note.push_str("; 1 long line cut"),
            n => note.push_str(&format!("; {n} long lines cut")),
        }
        note.push(']');
        note
    }
}

/// One pass over a file's bytes (BOM already dropped), fed in blocks of any size: numbers the
/// lines of a window `cat -n` style (CRLF shown as LF) and counts all lines and undecodable
/// bytes.
///
/// It holds the window and at most [`MAX_LINE_CHARS`] of the line being read, never more: lines
/// outside the window are only counted, a long line inside it only measured past its cut.
#[derive(Debug)]
struct LineScan {
    /// The window: lines `first..end`, 1-based.
    first: usize,
    end: usize,
    /// The number of the line the next byte belongs to.
    line: usize,
    /// Whether the last byte was a `\n` (or none came yet): the file has no unfinished line.
    at_line_start: bool,
    /// The window line being read.
    current: LineHead,
    /// The window so far, as in [`Listing`].
    content: String,
    last: usize,
    long_lines_cut: usize,
    /// Undecodable bytes in the file so far.
    invalid_bytes: usize,
    /// The start of a character cut by the block boundary, completed by the next block.
    carry: Vec<u8>,
}

/// The start of a line: its first [`MAX_LINE_CHARS`] characters and its length.
#[derive(Debug, Default)]
struct LineHead {
    text: String,
    chars: usize,
    /// Whether the last character so far is `\r` (part of a CRLF if a `\n` follows).
    ends_with_cr: bool,
}

impl LineHead {
    /// Adds the next piece of the line (no `\n` in it).
    fn push(&mut self, piece: &str) {
        if piece.is_empty() {
            return;
        }
        if let Some(room) = MAX_LINE_CHARS.checked_sub(self.chars) {
            let cut = piece
                .char_indices()
                .nth(room)
                .map_or(piece.len(), |(i, _)| i);
            self.text.push_str(&piece[..cut]);
        }
        self.chars += piece.chars().count();
        self.ends_with_cr = piece.ends_with('\r');
    }
}

impl LineScan {
    /// A scan keeping lines `offset..offset + limit` (1-based; `offset` at least 1).
    fn new(offset: usize, limit: usize) -> Self {
        Self {
            first: offset,
            end: offset.saturating_add(limit),
            line: 1,
            at_line_start: true,
            current: LineHead::default(),
            content: String::new(),
            last: offset.saturating_sub(1),
            long_lines_cut: 0,
            invalid_bytes: 0,
            carry: Vec::new(),
        }
    }

    /// Takes the next bytes of the file.
    fn push(&mut self, bytes: &[u8]) {
        if self.carry.is_empty() {
            self.push_whole_chars(bytes);
        } else {
            let mut joined = std::mem::take(&mut self.carry);
            joined.extend_from_slice(bytes);
            self.push_whole_chars(&joined);
        }
    }

    /// The window and the counts, once the file has ended.
    fn finish(mut self) -> Scanned {
        if !self.carry.is_empty() {
            // A character the file ends in the middle of.
            self.invalid_bytes += std::mem::take(&mut self.carry).len();
            self.push_text("\u{FFFD}");
        }
        if !self.at_line_start {
            // The last line, without a final `\n`.
            if self.in_window() {
                self.end_line();
            } else {
                self.line += 1;
            }
        }
        Scanned {
            listing: Listing {
                content: self.content,
                first: self.first,
                last: self.last,
                total: self.line - 1,
                long_lines_cut: self.long_lines_cut,
            },
            invalid_bytes: self.invalid_bytes,
        }
    }

    /// Decodes `bytes` but for a character cut at their end, which is kept for the next push.
    fn push_whole_chars(&mut self, bytes: &[u8]) {
        let (whole, cut) = bytes.split_at(bytes.len() - unfinished_char_len(bytes));
        match std::str::from_utf8(whole) {
            Ok(text) => self.push_text(text),
            // The same U+FFFD per bad sequence as `String::from_utf8_lossy` over the whole file.
            Err(_) => {
                for chunk in whole.utf8_chunks() {
                    self.push_text(chunk.valid());
                    if !chunk.invalid().is_empty() {
                        self.invalid_bytes += chunk.invalid().len();
                        self.push_text("\u{FFFD}");
                    }
                }
            }
        }
        self.carry.extend_from_slice(cut);
    }

    /// Takes the next decoded text: skips lines before the window, keeps those in it and
    /// counts those after it.
    fn push_text(&mut self, text: &str) {
        let Some(&last_byte) = text.as_bytes().last() else {
            return;
        };
        let mut rest = text;
        if self.line < self.first {
            let (skipped, after) = skip_lines(rest, self.first - self.line);
            self.line += skipped;
            rest = after;
        }
        while self.in_window() && !rest.is_empty() {
            match rest.find('\n') {
                Some(newline) => {
                    self.current.push(&rest[..newline]);
                    self.end_line();
                    rest = &rest[newline + 1..];
                }
                None => {
                    self.current.push(rest);
                    rest = "";
                }
            }
        }
        self.line += count_newlines(rest.as_bytes());
        self.at_line_start = last_byte == b'\n';
    }

    /// Whether the line being read is one the window keeps.
    fn in_window(&self) -> bool {
        (self.first..self.end).contains(&self.line)
    }

    /// Adds the window line just read to the listing.
    fn end_line(&mut self) {
        let LineHead {
            mut text,
            chars,
            ends_with_cr,
        } = std::mem::take(&mut self.current);
        // The `\r` of a CRLF (or one ending the file) is not shown or counted.
        let chars = chars - usize::from(ends_with_cr);
        if ends_with_cr && chars < MAX_LINE_CHARS {
            text.pop();
        }
        if !self.content.is_empty() {
            self.content.push('\n');
        }
        self.content.push_str(&format!("{:>6}\t{text}", self.line));
        if chars > MAX_LINE_CHARS {
            self.long_lines_cut += 1;
            self.content
                .push_str(&format!(" … [line truncated: {chars} chars]"));
        }
        self.last = self.line;
        self.line += 1;
    }
}

/// Skips up to `lines` lines of `text`: how many it skipped and the text after them.
fn skip_lines(text: &str, lines: usize) -> (usize, &str) {
    let newlines = count_newlines(text.as_bytes());
    if newlines < lines {
        return (newlines, "");
    }
    match text.match_indices('\n').nth(lines - 1) {
        Some((newline, _)) => (lines, &text[newline + 1..]),
        None => (newlines, ""),
    }
}

/// The number of `\n` in `bytes`.
///
/// Counted in runs of 255 bytes into a `u8` (which cannot overflow), a loop the compiler turns
/// into wide vector compares: about 3 times as fast as a plain filter-and-count, which widens
/// every match to a `usize`.
fn count_newlines(bytes: &[u8]) -> usize {
    let mut runs = bytes.chunks_exact(usize::from(u8::MAX));
    let mut newlines = 0;
    for run in &mut runs {
        let in_run = run.iter().fold(0u8, |n, &byte| n + u8::from(byte == b'\n'));
        newlines += usize::from(in_run);
    }
    let rest = runs.remainder();
    newlines + rest.iter().filter(|&&byte| byte == b'\n').count()
}

/// The length of the valid but unfinished UTF-8 character `bytes` end with (0 to 3): the next
/// block may finish it.
fn unfinished_char_len(bytes: &[u8]) -> usize {
    // A character is at most 4 bytes, so an unfinished one starts in the last 3.
    for back in 1..=bytes.len().min(3) {
        let start = bytes.len() - back;
        // Continuation bytes are 0b10xx_xxxx; anything else starts a character.
        if bytes[start] & 0xC0 != 0x80 {
            return match std::str::from_utf8(&bytes[start..]) {
                Err(err) if err.error_len().is_none() => back,
                _ => 0,
            };
        }
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    /// The scan of `bytes` fed in pieces of `piece` bytes.
    fn scan_in_pieces(bytes: &[u8], offset: usize, limit: usize, piece: usize) -> Scanned {
        let mut scan = LineScan::new(offset, limit);
        for chunk in bytes.chunks(piece) {
            scan.push(chunk);
        }
        scan.finish()
    }

    fn scan(text: &str, offset: usize, limit: usize) -> Listing {
        scan_in_pieces(text.as_bytes(), offset, limit, usize::MAX).listing
    }

    fn listing_of(text: &str) -> String {
        scan(text, 1, DEFAULT_LIMIT).content
    }

    #[test]
    fn lines_are_numbered_cat_n_style() {
        assert_eq!(
            listing_of("fn main() {\n    println!();\n}\n"),
            "     1\tfn main() {\n     2\t    println!();\n     3\t}"
        );
    }

    #[test]
    fn a_missing_final_newline_changes_nothing() {
        assert_eq!(scan("a\nb", 1, 10), scan("a\nb\n", 1, 10));
    }

    #[test]
    fn total_counts_every_line_with_or_without_a_final_newline() {
        let totals: Vec<usize> = ["", "\n", "a", "a\n", "a\nb", "a\nb\n", "\n\n"]
            .iter()
            .map(|text| scan(text, 1, 1).total)
            .collect();
        assert_eq!(totals, [0, 1, 1, 1, 2, 2, 2]);
    }

    #[test]
    fn crlf_is_shown_as_lf() {
        assert_eq!(listing_of("a\r\nb\r\n"), "     1\ta\n     2\tb");
    }

    #[test]
    fn window_reports_its_range_and_how_to_read_on() {
        let text: String = (1..=10).map(|n| format!("line {n}\n")).collect();
        let listing = scan(&text, 4, 3);
        assert_eq!(
            listing.content,
            "     4\tline 4\n     5\tline 5\n     6\tline 6"
        );
        assert_eq!(
            listing.range_note(),
            "[lines 4-6 of 10; use offset=7 to read more]"
        );
        assert!(listing.truncated());
    }

    #[test]
    fn window_reaching_the_end_says_nothing_more_remains() {
        let listing = scan("a\nb\nc\n", 2, 100);
        assert_eq!(listing.range_note(), "[lines 2-3 of 3]");
        assert!(!listing.truncated());
    }

    #[test]
    fn window_past_the_end_shows_nothing() {
        assert_eq!(
            scan("a\nb\n", 3, 10),
            Listing {
                content: String::new(),
                first: 3,
                last: 2,
                total: 2,
                long_lines_cut: 0,
            }
        );
    }

    #[test]
    fn long_line_is_cut_with_its_length() {
        let line = "x".repeat(MAX_LINE_CHARS + 5);
        let listing = scan(&line, 1, 10);
        let expected = format!(
            "     1\t{} … [line truncated: {} chars]",
            "x".repeat(MAX_LINE_CHARS),
            MAX_LINE_CHARS + 5
        );
        assert_eq!(listing.content, expected);
        assert_eq!(listing.range_note(), "[lines 1-1 of 1; 1 long line cut]");
    }

    #[test]
    fn long_line_of_multibyte_chars_is_cut_on_a_char_boundary() {
        let line = "é".repeat(MAX_LINE_CHARS + 1);
        let listing = scan(&line, 1, 1);
        assert!(listing.content.contains(&"é".repeat(MAX_LINE_CHARS)));
        assert!(
            listing
                .content
                .ends_with(&format!("[line truncated: {} chars]", MAX_LINE_CHARS + 1))
        );
    }

    #[test]
    fn the_cr_of_a_crlf_does_not_make_a_line_too_long() {
        let line = "x".repeat(MAX_LINE_CHARS);
        let listing = scan(&format!("{line}\r\n"), 1, 1);
        assert_eq!(listing.content, format!("     1\t{line}"));
        assert_eq!(listing.long_lines_cut, 0);
    }

    #[test]
    fn a_long_line_is_measured_not_held() {
        let mut head = LineHead::default();
        for _ in 0..1000 {
            head.push(&"x".repeat(1000));
        }
        assert_eq!(head.text, "x".repeat(MAX_LINE_CHARS));
        assert_eq!(head.chars, 1_000_000);
    }

    #[test]
    fn feeding_in_pieces_matches_feeding_whole() {
        let texts: [&[u8]; 5] = [
            b"one\r\ntwo\r\nthree",
            "caf\u{e9} \u{1F600}\r\n\u{65E5}\u{672C}\n\n\u{1F600}".as_bytes(),
            b"caf\xe9 ok\n\xff\xfe stray\r\n\xf0\x9f\x98",
            b"\xe2\x82\n\xc3\n\xed\xa0\x80 surrogate\n",
            b"x\ny\nz\n",
        ];
        for text in texts {
            for (offset, limit) in [(1, 2000), (2, 1), (3, 5)] {
                let whole = scan_in_pieces(text, offset, limit, usize::MAX);
                for piece in 1..=5 {
                    assert_eq!(
                        scan_in_pieces(text, offset, limit, piece),
                        whole,
                        "{text:?} in pieces of {piece}"
                    );
                }
            }
        }
    }

    #[test]
    fn undecodable_bytes_are_counted_and_shown_as_replacement_chars() {
        let scanned = scan_in_pieces(b"caf\xe9\n\xff\xfe!\n", 1, 10, usize::MAX);
        assert_eq!(scanned.invalid_bytes, 3);
        assert_eq!(
            scanned.listing.content,
            "     1\tcaf\u{FFFD}\n     2\t\u{FFFD}\u{FFFD}!"
        );
    }

    #[test]
    fn a_character_the_file_ends_inside_is_one_replacement_char() {
        let scanned = scan_in_pieces(b"ok\xf0\x9f", 1, 10, usize::MAX);
        assert_eq!(scanned.invalid_bytes, 2);
        assert_eq!(scanned.listing.content, "     1\tok\u{FFFD}");
    }

    #[test]
    fn unfinished_char_len_finds_only_valid_starts() {
        let lens: Vec<usize> = [
            &b"ab"[..],
            b"a\xc3",
            b"a\xf0\x9f\x98",
            b"a\xf0\x9f\x98\x80",
            b"a\xe0\x80",
            b"\x80\x80\x80",
        ]
        .iter()
        .map(|bytes| unfinished_char_len(bytes))
        .collect();
        assert_eq!(lens, [0, 1, 3, 0, 0, 0]);
    }

    #[test]
    fn nul_byte_means_binary() {
        assert_eq!(decode(b"abc\0def"), None);
    }

    #[test]
    fn mostly_invalid_utf8_means_binary() {
        assert_eq!(decode(&[0xff, 0xfe, b'a', 0xc3]), None);
    }

    #[test]
    fn a_stray_latin1_byte_is_decoded_lossily() {
        let mut bytes = b"// caf".to_vec();
        bytes.push(0xe9);
        bytes.extend(std::iter::repeat_n(b'x', 200));
        let (text, invalid) = decode(&bytes).unwrap();
        assert_eq!(invalid, 1);
        assert!(text.starts_with("// caf\u{FFFD}x"));
    }

    #[test]
    fn bom_is_hidden() {
        assert_eq!(
            decode(b"\xEF\xBB\xBFhi\n"),
            Some((Cow::Borrowed("hi\n"), 0))
        );
    }

    #[test]
    fn epoch_seconds_keep_milliseconds() {
        let time = UNIX_EPOCH + std::time::Duration::from_micros(1_500_250);
        assert_eq!(epoch_seconds(time), 1.5);
    }
}
