//! The Read tool: a numbered window of a text file, with the spec A8 mtime note.

use std::borrow::Cow;
use std::io::ErrorKind;
use std::time::{SystemTime, UNIX_EPOCH};

use futures::future::BoxFuture;
use serde::Deserialize;
use serde_json::{Value, json};
use wright_protocol::{ErrorCode, ToolError, ToolResult};

use crate::args::{invalid, parse_args};
use crate::{Tool, ToolContext, error_result, failure};

/// Lines shown when the model gives no `limit`.
const DEFAULT_LIMIT: usize = 2000;
/// Characters of one line shown before it is cut (minified files, data dumps).
const MAX_LINE_CHARS: usize = 2000;
/// How much of the file is searched for a NUL byte to call it binary.
const BINARY_SNIFF_BYTES: usize = 8 * 1024;
/// A file with more undecodable bytes than this share (1 in N) is binary, not text with a few
/// stray Latin-1 bytes (which are shown as U+FFFD instead).
const MAX_INVALID_UTF8_ONE_IN: usize = 100;
/// Larger files are refused rather than loaded whole to count their lines.
pub(crate) const MAX_FILE_BYTES: u64 = 256 * 1024 * 1024;
/// The UTF-8 byte order mark, hidden from the model (Write keeps it, DESIGN §5).
pub(crate) const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

const SHAPE: &str = r#"{"file_path": string, "offset"?: integer, "limit"?: integer}"#;

/// Reads a text file as numbered lines (`cat -n` style), a window at a time.
#[derive(Debug, Clone, Copy, Default)]
pub struct ReadTool;

#[derive(Debug, Deserialize)]
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

    fn description(&self) -> &'static str {
        include_str!("../../../prompts/tools/read.md")
    }

    fn run<'a>(&'a self, args: Value, ctx: &'a ToolContext) -> BoxFuture<'a, ToolResult> {
        Box::pin(async move { read(args, ctx).await.unwrap_or_else(error_result) })
    }
}

async fn read(args: Value, ctx: &ToolContext) -> Result<ToolResult, ToolError> {
    let args: ReadArgs = parse_args("Read", args, SHAPE)?;
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
    if meta.len() > MAX_FILE_BYTES {
        return Err(failure(
            ErrorCode::Other,
            format!(
                "{shown} is {} bytes, more than Read loads ({MAX_FILE_BYTES}); look at parts of \
                 it with Bash (head, tail, sed -n, grep)",
                meta.len()
            ),
        ));
    }
    // Taken before reading: if the file changes in between, the next read reports it.
    let mtime = meta.modified().ok();
    let bytes = tokio::fs::read(&abs).await.map_err(io_error)?;
    let Some((text, invalid_bytes)) = decode(&bytes) else {
        return Err(failure(
            ErrorCode::BinaryFile,
            format!("{shown} is a binary file, not text; Read shows only text files"),
        ));
    };

    let mut notes = Vec::new();
    let listing = if text.is_empty() {
        notes.push(format!("{shown} is empty (0 lines)."));
        Listing::empty()
    } else {
        let listing = number_lines(&text, offset, limit).ok_or_else(|| {
            let total = text.lines().count();
            failure(
                ErrorCode::InvalidArguments,
                format!(
                    "`offset` {offset} is past the end of {shown}, which has {total} lines; \
                     use an offset from 1 to {total}"
                ),
            )
        })?;
        notes.push(listing.range_note());
        listing
    };
    let mut data = json!({
        "file_path": shown,
        "offset": listing.first,
        "limit": limit,
        "lines_shown": listing.last + 1 - listing.first,
        "total_lines": listing.total,
        "content": listing.content,
        "mtime": mtime.map(epoch_seconds),
        "truncated": listing.truncated(),
        "long_lines_cut": listing.long_lines_cut,
    });
    if invalid_bytes > 0 {
        notes.push(format!(
            "Note: {shown} is not valid UTF-8; its {invalid_bytes} undecodable bytes are shown \
             as \u{FFFD}."
        ));
        data["invalid_utf8_bytes"] = json!(invalid_bytes);
    }
    let modified = mtime.is_some_and(|mtime| ctx.observe_mtime(&abs, mtime));
    if modified {
        notes.push(format!("Note: {shown} was modified externally."));
    }
    data["modified_externally"] = json!(modified);

    let mut text = listing.content;
    if !text.is_empty() {
        text.push('\n');
    }
    text.push_str(&notes.join("\n"));
    Ok(ToolResult::success(text, data))
}

/// The file as text and its count of undecodable bytes, or `None` for a binary file: a NUL in
/// the first [`BINARY_SNIFF_BYTES`], or more than one undecodable byte in
/// [`MAX_INVALID_UTF8_ONE_IN`]. A few bad bytes (a Latin-1 `é` in a comment) are decoded
/// lossily so the rest of the file stays readable. A UTF-8 BOM is dropped.
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

/// Seconds since the Unix epoch, to the millisecond.
fn epoch_seconds(time: SystemTime) -> f64 {
    let since = time
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or_else(|before| -before.duration().as_secs_f64());
    (since * 1000.0).round() / 1000.0
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

/// Numbers lines `offset..offset + limit` of `text` (1-based; CRLF shown as LF), or `None` if
/// `offset` is past the last line. `text` must not be empty.
fn number_lines(text: &str, offset: usize, limit: usize) -> Option<Listing> {
    let total = text.lines().count();
    if offset > total {
        return None;
    }
    let mut content = String::new();
    let mut last = offset;
    let mut long_lines_cut = 0;
    for (index, line) in text.lines().enumerate().skip(offset - 1).take(limit) {
        last = index + 1;
        if !content.is_empty() {
            content.push('\n');
        }
        // `lines()` keeps a `\r` that ends the file without a `\n`.
        let line = line.strip_suffix('\r').unwrap_or(line);
        content.push_str(&format!("{last:>6}\t"));
        match line.char_indices().nth(MAX_LINE_CHARS) {
            None => content.push_str(line),
            Some((cut, _)) => {
                long_lines_cut += 1;
                let chars = line.chars().count();
                content.push_str(&line[..cut]);
                content.push_str(&format!(" … [line truncated: {chars} chars]"));
            }
        }
    }
    Some(Listing {
        content,
        first: offset,
        last,
        total,
        long_lines_cut,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn listing_of(text: &str) -> Option<String> {
        number_lines(text, 1, DEFAULT_LIMIT).map(|l| l.content)
    }

    #[test]
    fn lines_are_numbered_cat_n_style() {
        assert_eq!(
            listing_of("fn main() {\n    println!();\n}\n").unwrap(),
            "     1\tfn main() {\n     2\t    println!();\n     3\t}"
        );
    }

    #[test]
    fn a_missing_final_newline_changes_nothing() {
        assert_eq!(listing_of("a\nb"), listing_of("a\nb\n"));
    }

    #[test]
    fn crlf_is_shown_as_lf() {
        assert_eq!(listing_of("a\r\nb\r\n").unwrap(), "     1\ta\n     2\tb");
    }

    #[test]
    fn window_reports_its_range_and_how_to_read_on() {
        let text: String = (1..=10).map(|n| format!("line {n}\n")).collect();
        let listing = number_lines(&text, 4, 3).unwrap();
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
        let listing = number_lines("a\nb\nc\n", 2, 100).unwrap();
        assert_eq!(listing.range_note(), "[lines 2-3 of 3]");
        assert!(!listing.truncated());
    }

    #[test]
    fn offset_past_the_end_is_none() {
        assert_eq!(number_lines("a\nb\n", 3, 10), None);
    }

    #[test]
    fn long_line_is_cut_with_its_length() {
        let line = "x".repeat(MAX_LINE_CHARS + 5);
        let listing = number_lines(&line, 1, 10).unwrap();
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
        let listing = number_lines(&line, 1, 1).unwrap();
        assert!(listing.content.contains(&"é".repeat(MAX_LINE_CHARS)));
        assert!(
            listing
                .content
                .ends_with(&format!("[line truncated: {} chars]", MAX_LINE_CHARS + 1))
        );
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
