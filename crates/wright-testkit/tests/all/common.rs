//! A raw HTTP/1.1 client for the tests: it reads the server's bytes as they are, so tests
//! can see chunk boundaries and truncated bodies that a real HTTP client would hide.

use std::net::SocketAddr;
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// How long a test waits for a whole response before failing.
pub const RESPONSE_TIMEOUT: Duration = Duration::from_secs(10);

/// A response as it came off the wire.
#[derive(Debug)]
pub struct RawResponse {
    pub status: u16,
    /// Header names lower-cased.
    pub headers: Vec<(String, String)>,
    /// The body with chunked framing removed.
    pub body: String,
    /// Each chunk of a chunked body, in order (empty for a `Content-Length` body).
    pub chunks: Vec<String>,
    /// Whether a chunked body ended with the terminating `0\r\n\r\n`.
    pub terminated: bool,
}

impl RawResponse {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(header, _)| header == name)
            .map(|(_, value)| value.as_str())
    }

    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).expect("response body is JSON")
    }

    /// The body split into SSE events (each without its blank-line terminator).
    pub fn sse_events(&self) -> Vec<String> {
        self.body
            .split("\n\n")
            .filter(|event| !event.is_empty())
            .map(str::to_string)
            .collect()
    }

    /// The JSON of every `data:` line except `[DONE]`.
    pub fn sse_data(&self) -> Vec<Value> {
        self.body
            .lines()
            .filter_map(|line| line.strip_prefix("data: "))
            .filter(|data| *data != "[DONE]")
            .map(|data| serde_json::from_str(data).expect("SSE data is JSON"))
            .collect()
    }

    /// The `event:` names, in order.
    pub fn sse_event_names(&self) -> Vec<String> {
        self.body
            .lines()
            .filter_map(|line| line.strip_prefix("event: "))
            .map(str::to_string)
            .collect()
    }
}

/// The bytes of a POST request with a JSON body.
pub fn post_bytes(path: &str, headers: &[(&str, &str)], body: &str) -> Vec<u8> {
    let mut request = format!(
        "POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(body);
    request.into_bytes()
}

/// POSTs `body` to `path` and reads the response until the server closes the connection.
pub async fn post(addr: SocketAddr, path: &str, body: &str) -> RawResponse {
    send(addr, &post_bytes(path, &[], body)).await
}

/// GETs `path` and reads the response until the server closes the connection.
pub async fn get(addr: SocketAddr, path: &str) -> RawResponse {
    let request = format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    send(addr, request.as_bytes()).await
}

/// Sends raw request bytes and reads the whole response.
pub async fn send(addr: SocketAddr, request: &[u8]) -> RawResponse {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream.write_all(request).await.unwrap();
    let mut bytes = Vec::new();
    tokio::time::timeout(RESPONSE_TIMEOUT, stream.read_to_end(&mut bytes))
        .await
        .expect("the server closes the connection after responding")
        .unwrap();
    parse_response(&bytes)
}

/// Parses a complete or truncated response.
pub fn parse_response(bytes: &[u8]) -> RawResponse {
    let mut headers = [httparse::EMPTY_HEADER; 64];
    let mut response = httparse::Response::new(&mut headers);
    let head_len = match response.parse(bytes).unwrap() {
        httparse::Status::Complete(len) => len,
        httparse::Status::Partial => panic!("incomplete response head: {bytes:?}"),
    };
    let headers: Vec<(String, String)> = response
        .headers
        .iter()
        .map(|header| {
            (
                header.name.to_ascii_lowercase(),
                String::from_utf8(header.value.to_vec()).unwrap(),
            )
        })
        .collect();
    let status = response.code.unwrap();
    let rest = &bytes[head_len..];
    let chunked = headers
        .iter()
        .any(|(name, value)| name == "transfer-encoding" && value == "chunked");
    if !chunked {
        return RawResponse {
            status,
            headers,
            body: String::from_utf8(rest.to_vec()).unwrap(),
            chunks: Vec::new(),
            terminated: false,
        };
    }
    let (chunks, terminated) = decode_chunks(rest);
    RawResponse {
        status,
        headers,
        body: chunks.concat(),
        chunks,
        terminated,
    }
}

/// Splits a chunked body into its chunks; `true` if it ended with the last-chunk marker.
fn decode_chunks(mut rest: &[u8]) -> (Vec<String>, bool) {
    let mut chunks = Vec::new();
    loop {
        let Some(line_end) = rest.windows(2).position(|pair| pair == b"\r\n") else {
            assert!(rest.is_empty(), "partial chunk-size line: {rest:?}");
            return (chunks, false);
        };
        let size_text = std::str::from_utf8(&rest[..line_end]).unwrap();
        let size = usize::from_str_radix(size_text, 16).unwrap();
        rest = &rest[line_end + 2..];
        if size == 0 {
            assert_eq!(rest, b"\r\n", "last chunk is followed by the final CRLF");
            return (chunks, true);
        }
        assert!(
            rest.len() >= size + 2,
            "chunk shorter than its size line says"
        );
        chunks.push(String::from_utf8(rest[..size].to_vec()).unwrap());
        assert_eq!(&rest[size..size + 2], b"\r\n");
        rest = &rest[size + 2..];
    }
}
