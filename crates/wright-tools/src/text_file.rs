//! A text file as Write and Edit change it: its UTF-8 content plus the BOM and line endings to
//! keep when it is written back (DESIGN §5).
//!
//! The model always sees and writes `\n` line endings and no BOM (Read hides both); this module
//! translates between that view and the bytes on disk.

use std::borrow::Cow;
use std::io::ErrorKind;
use std::path::Path;
use std::time::SystemTime;

use wright_protocol::{ErrorCode, ToolError};

use crate::failure;
use crate::read::{UTF8_BOM, decode};

/// Larger files are refused rather than loaded whole to be edited (Read streams any size).
const MAX_FILE_BYTES: u64 = 256 * 1024 * 1024;

/// A UTF-8 text file loaded for editing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TextFile {
    /// The content without the BOM, with the line endings as they are on disk.
    pub(crate) text: String,
    /// The file's format, kept when it is written back.
    pub(crate) format: TextFormat,
    /// The mtime when the file was loaded (`None` where the platform has none).
    pub(crate) mtime: Option<SystemTime>,
}

/// What of a file's encoding is kept across a rewrite.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct TextFormat {
    /// The file starts with a UTF-8 byte order mark.
    pub(crate) bom: bool,
    /// Most of the file's lines end with `\r\n`.
    pub(crate) crlf: bool,
}

impl TextFile {
    /// Loads the file at `abs` (shown to the model as `shown`) for editing.
    ///
    /// Refused: a missing file (`not_found`), a directory, anything but a regular file, a file
    /// over [`MAX_FILE_BYTES`], a binary file, and a file that is not valid UTF-8 (writing it
    /// back through a lossy decoding would corrupt its undecodable bytes).
    pub(crate) async fn load(abs: &Path, shown: &str) -> Result<Self, ToolError> {
        let io_error = |err: std::io::Error| match err.kind() {
            ErrorKind::NotFound => failure(
                ErrorCode::NotFound,
                format!(
                    "file not found: {shown}; paths are relative to the project root. Use Write \
                     to create a new file"
                ),
            ),
            _ => failure(ErrorCode::Io, format!("cannot read {shown}: {err}")),
        };
        let meta = tokio::fs::metadata(abs).await.map_err(io_error)?;
        if meta.is_dir() {
            return Err(failure(
                ErrorCode::IsDirectory,
                format!("{shown} is a directory, not a file"),
            ));
        }
        if !meta.is_file() {
            return Err(failure(
                ErrorCode::Other,
                format!("{shown} is not a regular file (a pipe, socket or device)"),
            ));
        }
        if meta.len() > MAX_FILE_BYTES {
            return Err(failure(
                ErrorCode::Other,
                format!(
                    "{shown} is {} bytes, more than can be edited ({MAX_FILE_BYTES}); change it \
                     with Bash (sed) instead",
                    meta.len()
                ),
            ));
        }
        let mtime = meta.modified().ok();
        let bytes = tokio::fs::read(abs).await.map_err(io_error)?;
        let format = TextFormat::of(&bytes);
        let text = match decode(&bytes) {
            None => {
                return Err(failure(
                    ErrorCode::BinaryFile,
                    format!("{shown} is a binary file, not text; only text files can be edited"),
                ));
            }
            Some((_, invalid)) if invalid > 0 => {
                return Err(failure(
                    ErrorCode::Other,
                    format!(
                        "{shown} is not valid UTF-8 ({invalid} undecodable bytes), and editing \
                         it here would corrupt them; change it with Bash (sed) instead"
                    ),
                ));
            }
            Some((text, _)) => text.into_owned(),
        };
        Ok(Self {
            text,
            format,
            mtime,
        })
    }
}

impl TextFormat {
    /// The format of a file's raw bytes.
    pub(crate) fn of(bytes: &[u8]) -> Self {
        let crlf = bytes.windows(2).filter(|pair| pair == b"\r\n").count();
        let lf = bytes.iter().filter(|&&b| b == b'\n').count();
        Self {
            bom: bytes.starts_with(UTF8_BOM),
            crlf: crlf > 0 && crlf * 2 >= lf,
        }
    }

    /// The model's `\n`-terminated `text` with this file's line endings.
    pub(crate) fn endings<'a>(&self, text: &'a str) -> Cow<'a, str> {
        if !self.crlf || !text.contains('\n') {
            return Cow::Borrowed(text);
        }
        Cow::Owned(to_lf(text).replace('\n', "\r\n"))
    }

    /// The bytes of `text` (already in this format's line endings) as they go on disk.
    pub(crate) fn encode(&self, text: &str) -> Vec<u8> {
        let mut bytes = Vec::with_capacity(text.len() + UTF8_BOM.len());
        if self.bom && !text.starts_with('\u{FEFF}') {
            bytes.extend_from_slice(UTF8_BOM);
        }
        bytes.extend_from_slice(text.as_bytes());
        bytes
    }
}

/// `text` with `\r\n` line endings turned into `\n`, as Read shows it.
pub(crate) fn to_lf(text: &str) -> Cow<'_, str> {
    if text.contains("\r\n") {
        Cow::Owned(text.replace("\r\n", "\n"))
    } else {
        Cow::Borrowed(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn format_detects_bom_and_mostly_crlf_endings() {
        assert_eq!(TextFormat::of(b"a\nb\n"), TextFormat::default());
        assert_eq!(
            TextFormat::of(b"\xEF\xBB\xBFa\r\nb\r\nc\n"),
            TextFormat {
                bom: true,
                crlf: true
            }
        );
        assert!(!TextFormat::of(b"a\r\nb\nc\nd\n").crlf);
    }

    #[test]
    fn endings_turn_model_newlines_into_crlf_once() {
        let crlf = TextFormat {
            bom: false,
            crlf: true,
        };
        assert_eq!(crlf.endings("a\nb\r\nc"), "a\r\nb\r\nc");
        assert_eq!(TextFormat::default().endings("a\nb"), "a\nb");
    }

    #[test]
    fn encode_adds_the_bom_back() {
        let bom = TextFormat {
            bom: true,
            crlf: false,
        };
        assert_eq!(bom.encode("hi"), b"\xEF\xBB\xBFhi".to_vec());
        assert_eq!(bom.encode("\u{FEFF}hi"), b"\xEF\xBB\xBFhi".to_vec());
    }
}
