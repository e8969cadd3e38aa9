//! The little HTTP/1.1 the server needs: read one request, write one response, close.

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

/// Most headers a request may carry.
const MAX_HEADERS: usize = 100;

/// Largest request head accepted.
const MAX_HEAD_BYTES: usize = 64 * 1024;

/// Largest request body accepted.
const MAX_BODY_BYTES: usize = 64 * 1024 * 1024;

/// How many bytes each socket read asks for.
const READ_SIZE: usize = 8 * 1024;

/// One request the server received.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedRequest {
    /// `POST`, `GET`, ...
    pub method: String,
    /// The request target as sent, including any query string.
    pub path: String,
    /// Headers in the order received; names lower-cased.
    pub headers: Vec<(String, String)>,
    /// The raw body (lossily decoded as UTF-8).
    pub body: String,
}

impl RecordedRequest {
    /// The first header named `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(header, _)| header.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }

    /// The body parsed as JSON.
    pub fn json(&self) -> Result<serde_json::Value, serde_json::Error> {
        serde_json::from_str(&self.body)
    }
}

/// Why a request could not be read.
#[derive(Debug, thiserror::Error)]
pub(crate) enum RequestError {
    /// The client closed the connection without sending a request.
    #[error("connection closed before a request arrived")]
    NoRequest,
    /// The socket failed.
    #[error("reading the request: {0}")]
    Io(#[from] std::io::Error),
    /// The head is not valid HTTP/1.x.
    #[error("malformed request head: {0}")]
    Malformed(#[from] httparse::Error),
    /// The head did not end within the size limit.
    #[error("request head longer than {MAX_HEAD_BYTES} bytes")]
    HeadTooLarge,
    /// `Content-Length` is missing a number or too large.
    #[error("bad Content-Length {0:?} (expected a number up to {MAX_BODY_BYTES})")]
    BadContentLength(String),
    /// The connection closed before the whole body arrived.
    #[error("connection closed after {received} of {expected} body bytes")]
    TruncatedBody {
        /// Bytes received.
        received: usize,
        /// Bytes promised by `Content-Length`.
        expected: usize,
    },
}

/// Reads one request: the head (however many reads it takes), then exactly
/// `Content-Length` body bytes.
pub(crate) async fn read_request<S: AsyncRead + Unpin>(
    stream: &mut S,
) -> Result<RecordedRequest, RequestError> {
    let mut buffer = Vec::new();
    loop {
        let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
        let mut parsed = httparse::Request::new(&mut headers);
        if let httparse::Status::Complete(head_len) = parsed.parse(&buffer)? {
            let mut request = RecordedRequest {
                method: parsed.method.unwrap_or_default().to_string(),
                path: parsed.path.unwrap_or_default().to_string(),
                headers: parsed
                    .headers
                    .iter()
                    .map(|header| {
                        (
                            header.name.to_ascii_lowercase(),
                            String::from_utf8_lossy(header.value).into_owned(),
                        )
                    })
                    .collect(),
                body: String::new(),
            };
            let body_len = content_length(&request)?;
            let mut body = buffer.split_off(head_len);
            read_to_len(stream, &mut body, body_len).await?;
            body.truncate(body_len);
            request.body = String::from_utf8_lossy(&body).into_owned();
            return Ok(request);
        }
        if buffer.len() > MAX_HEAD_BYTES {
            return Err(RequestError::HeadTooLarge);
        }
        let read = read_more(stream, &mut buffer).await?;
        if read == 0 {
            return Err(RequestError::NoRequest);
        }
    }
}

/// The declared body length; 0 when there is no `Content-Length`.
fn content_length(request: &RecordedRequest) -> Result<usize, RequestError> {
    let Some(value) = request.header("content-length") else {
        return Ok(0);
    };
    match value.trim().parse::<usize>() {
        Ok(len) if len <= MAX_BODY_BYTES => Ok(len),
        _ => Err(RequestError::BadContentLength(value.to_string())),
    }
}

async fn read_to_len<S: AsyncRead + Unpin>(
    stream: &mut S,
    body: &mut Vec<u8>,
    expected: usize,
) -> Result<(), RequestError> {
    while body.len() < expected {
        if read_more(stream, body).await? == 0 {
            return Err(RequestError::TruncatedBody {
                received: body.len(),
                expected,
            });
        }
    }
    Ok(())
}

async fn read_more<S: AsyncRead + Unpin>(
    stream: &mut S,
    buffer: &mut Vec<u8>,
) -> std::io::Result<usize> {
    let mut chunk = [0u8; READ_SIZE];
    let read = stream.read(&mut chunk).await?;
    buffer.extend_from_slice(&chunk[..read]);
    Ok(read)
}

/// The body framing of a response.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Framing {
    /// `Content-Length`, body sent in one piece.
    Length(usize),
    /// `Transfer-Encoding: chunked`, body sent chunk by chunk.
    Chunked,
}

/// Writes the status line and headers (always with `Connection: close`).
pub(crate) async fn write_head<S: AsyncWrite + Unpin>(
    stream: &mut S,
    status: u16,
    content_type: &str,
    framing: Framing,
    extra_headers: &[(String, String)],
) -> std::io::Result<()> {
    let mut head = format!(
        "HTTP/1.1 {status} {}\r\nContent-Type: {content_type}\r\nConnection: close\r\n",
        reason_phrase(status)
    );
    match framing {
        Framing::Length(len) => head.push_str(&format!("Content-Length: {len}\r\n")),
        Framing::Chunked => {
            head.push_str("Transfer-Encoding: chunked\r\nCache-Control: no-cache\r\n")
        }
    }
    for (name, value) in extra_headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).await?;
    stream.flush().await
}

/// Writes a complete response with a `Content-Length` body.
pub(crate) async fn write_full_response<S: AsyncWrite + Unpin>(
    stream: &mut S,
    status: u16,
    content_type: &str,
    extra_headers: &[(String, String)],
    body: &str,
) -> std::io::Result<()> {
    write_head(
        stream,
        status,
        content_type,
        Framing::Length(body.len()),
        extra_headers,
    )
    .await?;
    stream.write_all(body.as_bytes()).await?;
    stream.flush().await
}

/// Writes one chunk of a chunked body and flushes it. Empty data is skipped, since an
/// empty chunk would end the body.
pub(crate) async fn write_chunk<S: AsyncWrite + Unpin>(
    stream: &mut S,
    data: &[u8],
) -> std::io::Result<()> {
    if data.is_empty() {
        return Ok(());
    }
    stream
        .write_all(format!("{:x}\r\n", data.len()).as_bytes())
        .await?;
    stream.write_all(data).await?;
    stream.write_all(b"\r\n").await?;
    stream.flush().await
}

/// Ends a chunked body.
pub(crate) async fn write_last_chunk<S: AsyncWrite + Unpin>(stream: &mut S) -> std::io::Result<()> {
    stream.write_all(b"0\r\n\r\n").await?;
    stream.flush().await
}

/// The standard reason phrase for `status`.
fn reason_phrase(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        408 => "Request Timeout",
        413 => "Payload Too Large",
        422 => "Unprocessable Entity",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        529 => "Site Overloaded",
        _ => "Status",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use tokio::io::AsyncWriteExt;

    #[tokio::test]
    async fn a_head_split_across_reads_is_reassembled() {
        let (mut client, mut server) = tokio::io::duplex(64);
        let writer = tokio::spawn(async move {
            for part in [
                "POST /v1/mes",
                "sages HTTP/1.1\r\nX-Api-",
                "Key: k\r\nContent-Length: 2\r\n",
                "\r\n{",
                "}",
            ] {
                client.write_all(part.as_bytes()).await.unwrap();
                client.flush().await.unwrap();
                tokio::task::yield_now().await;
            }
            client
        });
        let request = read_request(&mut server).await.unwrap();
        drop(writer.await.unwrap());
        assert_eq!(
            request,
            RecordedRequest {
                method: "POST".to_string(),
                path: "/v1/messages".to_string(),
                headers: vec![
                    ("x-api-key".to_string(), "k".to_string()),
                    ("content-length".to_string(), "2".to_string()),
                ],
                body: "{}".to_string(),
            }
        );
    }

    #[tokio::test]
    async fn a_body_shorter_than_content_length_is_an_error() {
        let (mut client, mut server) = tokio::io::duplex(1024);
        client
            .write_all(b"POST / HTTP/1.1\r\nContent-Length: 10\r\n\r\nabc")
            .await
            .unwrap();
        drop(client);
        let error = read_request(&mut server).await.unwrap_err();
        assert!(matches!(
            error,
            RequestError::TruncatedBody {
                received: 3,
                expected: 10
            }
        ));
    }

    #[test]
    fn header_lookup_ignores_case() {
        let request = RecordedRequest {
            method: "POST".to_string(),
            path: "/".to_string(),
            headers: vec![("authorization".to_string(), "Bearer x".to_string())],
            body: String::new(),
        };
        assert_eq!(request.header("Authorization"), Some("Bearer x"));
        assert_eq!(request.header("x-missing"), None);
    }
}
