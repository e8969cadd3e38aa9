//! The HTTP server: accepts connections, records each request and replays the next
//! scripted response in the wire format the request path selects.

use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;

use crate::http::{self, Framing, RecordedRequest, RequestError};
use crate::script::{Script, ScriptedResponse, ScriptedUsage};
use crate::wire::{EventKind, RequestInfo, Wire};

/// A stalled stream is held open at most this long.
const STALL_LIMIT: Duration = Duration::from_secs(300);

/// Pause after a failed `accept` (e.g. out of file descriptors) before trying again.
const ACCEPT_RETRY_DELAY: Duration = Duration::from_millis(10);

/// How long dropping a [`TestServer`] waits for its connections to wind down.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(1);

/// Tokio worker threads of each server's runtime.
const WORKER_THREADS: usize = 2;

const JSON: &str = "application/json";
const EVENT_STREAM: &str = "text/event-stream";

/// How to run a [`TestServer`] beyond its script.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ServerOptions {
    /// Port to bind on 127.0.0.1; 0 picks a free one.
    pub port: u16,
    /// Log each request (method, path, response index) on stderr.
    pub log_requests: bool,
}

/// A scripted provider listening on 127.0.0.1. Dropping it stops the server.
pub struct TestServer {
    addr: SocketAddr,
    state: Arc<Mutex<ServerState>>,
    shutdown: Option<oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl TestServer {
    /// Binds 127.0.0.1:0 and serves on a background thread with its own tokio runtime,
    /// so it works from plain `#[test]`s and from `#[tokio::test]`s alike.
    pub fn start(script: Script) -> std::io::Result<TestServer> {
        TestServer::start_with(script, ServerOptions::default())
    }

    /// Like [`TestServer::start`], with a chosen port and optional request logging.
    pub fn start_with(script: Script, options: ServerOptions) -> std::io::Result<TestServer> {
        let bind_addr = SocketAddrV4::new(Ipv4Addr::LOCALHOST, options.port);
        let std_listener = std::net::TcpListener::bind(bind_addr)?;
        std_listener.set_nonblocking(true)?;
        let addr = std_listener.local_addr()?;

        let state = Arc::new(Mutex::new(ServerState {
            script,
            next_response: 0,
            requests: Vec::new(),
            other_requests: Vec::new(),
            log_requests: options.log_requests,
        }));
        let (shutdown, shutdown_rx) = oneshot::channel();
        let (started_tx, started_rx) = std::sync::mpsc::sync_channel(1);
        let serving_state = Arc::clone(&state);
        // The runtime lives and dies on the server thread only: dropping a runtime on a
        // caller's thread panics when that thread is itself running async code.
        let thread = std::thread::Builder::new()
            .name("wright-testkit-server".to_string())
            .spawn(move || {
                let runtime = match tokio::runtime::Builder::new_multi_thread()
                    .worker_threads(WORKER_THREADS)
                    .thread_name("wright-testkit-worker")
                    .enable_io()
                    .enable_time()
                    .build()
                {
                    Ok(runtime) => runtime,
                    Err(error) => {
                        let _ = started_tx.send(Err(error));
                        return;
                    }
                };
                runtime.block_on(async move {
                    match TcpListener::from_std(std_listener) {
                        Ok(listener) => {
                            let _ = started_tx.send(Ok(()));
                            accept_loop(listener, serving_state, shutdown_rx).await;
                        }
                        Err(error) => {
                            let _ = started_tx.send(Err(error));
                        }
                    }
                });
                runtime.shutdown_timeout(SHUTDOWN_GRACE);
            })?;

        let started = started_rx.recv().unwrap_or_else(|_| {
            Err(std::io::Error::other(
                "wright-testkit: the server thread exited before it started serving",
            ))
        });
        if let Err(error) = started {
            let _ = thread.join();
            return Err(error);
        }
        Ok(TestServer {
            addr,
            state,
            shutdown: Some(shutdown),
            thread: Some(thread),
        })
    }

    /// The address the server listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://127.0.0.1:PORT`: the base URL for any provider (OpenAI clients append
    /// `/chat/completions`, Anthropic clients `/v1/messages`, Codex `/v1/responses`).
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Every request to a provider path (`/chat/completions`, `/v1/messages`, `/responses`)
    /// received so far, in order: the model calls.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        lock(&self.state).requests.clone()
    }

    /// Every request to another path (a scripted document or an unknown path), in order.
    pub fn other_requests(&self) -> Vec<RecordedRequest> {
        lock(&self.state).other_requests.clone()
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        if let Some(shutdown) = self.shutdown.take() {
            // The accept loop may already be gone; then there is nothing to stop.
            let _ = shutdown.send(());
        }
        if let Some(thread) = self.thread.take() {
            // A panic on the server thread has already been reported; don't panic in drop.
            let _ = thread.join();
        }
    }
}

impl std::fmt::Debug for TestServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TestServer")
            .field("addr", &self.addr)
            .finish_non_exhaustive()
    }
}

/// What the connection tasks share.
struct ServerState {
    script: Script,
    next_response: usize,
    requests: Vec<RecordedRequest>,
    other_requests: Vec<RecordedRequest>,
    log_requests: bool,
}

/// Locks the state, recovering it if a connection task panicked while holding it.
fn lock(state: &Mutex<ServerState>) -> MutexGuard<'_, ServerState> {
    state
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// What a request gets.
enum Reply {
    /// The path is neither provider's.
    UnknownPath,
    /// A scripted document.
    Document(String),
    /// Every scripted response has been handed out.
    ScriptExhausted { scripted: usize, wire: Wire },
    /// The next scripted response.
    Scripted {
        wire: Wire,
        response: Box<ScriptedResponse>,
    },
}

/// Bytes per token for `usage_from_request`.
const BYTES_PER_TOKEN: usize = 4;

/// Records `request` and picks its reply, consuming a scripted response if the path is a
/// provider's.
fn record_and_pick_reply(state: &Mutex<ServerState>, request: &RecordedRequest) -> Reply {
    let mut state = lock(state);
    let wire = Wire::for_path(&request.path);
    if wire.is_some() {
        state.requests.push(request.clone());
    } else {
        state.other_requests.push(request.clone());
    }
    let mut consumes = false;
    let path = request.path.split('?').next().unwrap_or(&request.path);
    let reply = match wire {
        None => match state.script.documents.iter().find(|d| d.path == path) {
            Some(document) => Reply::Document(document.body.clone()),
            None => Reply::UnknownPath,
        },
        Some(wire) => match routed(&state.script, request)
            .map(|response| (response, false))
            .or_else(|| {
                state
                    .script
                    .responses
                    .get(state.next_response)
                    .cloned()
                    .map(|response| (response, true))
            }) {
            Some((mut response, consumed)) => {
                consumes = consumed;
                if response.usage_from_request {
                    response.usage = Some(ScriptedUsage {
                        prompt_tokens: (request.body.len() / BYTES_PER_TOKEN) as u64,
                        completion_tokens: (response.reply_len() / BYTES_PER_TOKEN) as u64,
                        ..ScriptedUsage::default()
                    });
                }
                Reply::Scripted {
                    wire,
                    response: Box::new(response),
                }
            }
            None => Reply::ScriptExhausted {
                scripted: state.script.responses.len(),
                wire,
            },
        },
    };
    if state.log_requests {
        let outcome = match &reply {
            Reply::UnknownPath => "404 (unknown path)".to_string(),
            Reply::Document(_) => "document".to_string(),
            Reply::ScriptExhausted { .. } => "500 (script exhausted)".to_string(),
            Reply::Scripted { .. } if !consumes => "route".to_string(),
            Reply::Scripted { .. } => format!("responses[{}]", state.next_response),
        };
        eprintln!(
            "wright-testkit: {} {} -> {outcome}",
            request.method, request.path
        );
    }
    if consumes {
        state.next_response += 1;
    }
    reply
}

/// The standing answer of the first route the request matches.
fn routed(script: &Script, request: &RecordedRequest) -> Option<ScriptedResponse> {
    script
        .routes
        .iter()
        .find(|route| request.body.contains(&route.body_contains))
        .map(|route| route.response.clone())
}

async fn accept_loop(
    listener: TcpListener,
    state: Arc<Mutex<ServerState>>,
    mut shutdown: oneshot::Receiver<()>,
) {
    loop {
        tokio::select! {
            _ = &mut shutdown => return,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    tokio::spawn(serve_connection(stream, Arc::clone(&state)));
                }
                Err(_) => tokio::time::sleep(ACCEPT_RETRY_DELAY).await,
            },
        }
    }
}

/// Serves one request on `stream`, then closes it. Socket errors mean the client went
/// away, which ends the connection and nothing else.
async fn serve_connection(mut stream: TcpStream, state: Arc<Mutex<ServerState>>) {
    let request = match http::read_request(&mut stream).await {
        Ok(request) => request,
        Err(RequestError::NoRequest | RequestError::Io(_)) => return,
        Err(error) => {
            let message = format!("wright-testkit: {error}");
            let body = Wire::OpenAi.error_body(400, &message).to_string();
            let _ = http::write_full_response(&mut stream, 400, JSON, &[], &body).await;
            let _ = stream.shutdown().await;
            return;
        }
    };

    let outcome = match record_and_pick_reply(&state, &request) {
        Reply::UnknownPath => {
            let message = format!(
                "wright-testkit: no provider at {} {} (expected a path ending in \
                 /chat/completions, /v1/messages or /responses)",
                request.method, request.path
            );
            let body = Wire::OpenAi.error_body(404, &message).to_string();
            http::write_full_response(&mut stream, 404, JSON, &[], &body)
                .await
                .map(|()| Ending::Close)
        }
        Reply::Document(body) => http::write_full_response(&mut stream, 200, JSON, &[], &body)
            .await
            .map(|()| Ending::Close),
        Reply::ScriptExhausted { scripted, wire } => {
            let message =
                format!("wright-testkit: script exhausted ({scripted} responses scripted)");
            let body = wire.error_body(500, &message).to_string();
            http::write_full_response(&mut stream, 500, JSON, &[], &body)
                .await
                .map(|()| Ending::Close)
        }
        Reply::Scripted { wire, response } => {
            let info = RequestInfo::from_body(&request.body);
            send_scripted(&mut stream, wire, &response, &info).await
        }
    };

    match outcome {
        Ok(Ending::Close) => {
            let _ = stream.shutdown().await;
        }
        Ok(Ending::Cut) | Err(_) => {}
        Ok(Ending::Stall) => {
            let _ = tokio::time::timeout(STALL_LIMIT, wait_for_client_to_leave(&mut stream)).await;
        }
    }
}

/// How a response left the connection.
enum Ending {
    /// Complete: close it gracefully.
    Close,
    /// Cut mid-body: drop it as is.
    Cut,
    /// Stalled mid-body: hold it open.
    Stall,
}

/// Where a stream is interrupted, if at all.
#[derive(Clone, Copy)]
enum Interruption {
    Cut { after_deltas: usize },
    Stall { after_deltas: usize },
}

impl Interruption {
    fn of(response: &ScriptedResponse) -> Option<Interruption> {
        match (response.cut_after_chunks, response.stall_after_chunks) {
            (Some(after_deltas), _) => Some(Interruption::Cut { after_deltas }),
            (None, Some(after_deltas)) => Some(Interruption::Stall { after_deltas }),
            (None, None) => None,
        }
    }

    fn after_deltas(self) -> usize {
        match self {
            Interruption::Cut { after_deltas } | Interruption::Stall { after_deltas } => {
                after_deltas
            }
        }
    }

    fn ending(self) -> Ending {
        match self {
            Interruption::Cut { .. } => Ending::Cut,
            Interruption::Stall { .. } => Ending::Stall,
        }
    }
}

async fn send_scripted(
    stream: &mut TcpStream,
    wire: Wire,
    response: &ScriptedResponse,
    info: &RequestInfo,
) -> std::io::Result<Ending> {
    if response.delay_ms > 0 {
        tokio::time::sleep(Duration::from_millis(response.delay_ms)).await;
    }
    let headers = &response.headers;
    if let Some(repeated) = &response.repeat_sse {
        http::write_head(stream, 200, EVENT_STREAM, Framing::Chunked, headers).await?;
        if let Some(raw) = &response.raw_sse {
            http::write_chunk(stream, raw.as_bytes()).await?;
        }
        let started = tokio::time::Instant::now();
        // Ends when the client goes away: the write fails.
        while started.elapsed() < STALL_LIMIT {
            if response.chunk_delay_ms > 0 {
                tokio::time::sleep(Duration::from_millis(response.chunk_delay_ms)).await;
            }
            http::write_chunk(stream, repeated.as_bytes()).await?;
        }
        return Ok(Ending::Cut);
    }
    if let Some(raw) = &response.raw_sse {
        http::write_head(stream, 200, EVENT_STREAM, Framing::Chunked, headers).await?;
        http::write_chunk(stream, raw.as_bytes()).await?;
        http::write_last_chunk(stream).await?;
        return Ok(Ending::Close);
    }
    if response.cut_before_events {
        http::write_head(stream, 200, EVENT_STREAM, Framing::Chunked, headers).await?;
        return Ok(Ending::Cut);
    }
    if response.status != 200 {
        let body = match (&response.body, &response.error_message) {
            (Some(raw), _) => raw.clone(),
            (None, Some(message)) => wire.error_body(response.status, message).to_string(),
            (None, None) => {
                let message = format!("wright-testkit: scripted status {}", response.status);
                wire.error_body(response.status, &message).to_string()
            }
        };
        http::write_full_response(stream, response.status, JSON, headers, &body).await?;
        return Ok(Ending::Close);
    }
    if !info.stream {
        let body = wire.message_body(response, info).to_string();
        http::write_full_response(stream, 200, JSON, headers, &body).await?;
        return Ok(Ending::Close);
    }

    http::write_head(stream, 200, EVENT_STREAM, Framing::Chunked, headers).await?;
    let interruption = Interruption::of(response);
    let mut deltas_sent = 0;
    for (position, event) in wire.stream_events(response, info).iter().enumerate() {
        if let Some(interruption) = interruption {
            // Stop before the first delta past the limit, or before the end of the
            // message if the content ran out first.
            let stop_here = match event.kind {
                EventKind::ContentDelta => deltas_sent >= interruption.after_deltas(),
                EventKind::Final => true,
                EventKind::Frame => false,
            };
            if stop_here {
                return Ok(interruption.ending());
            }
        }
        if position > 0 && response.chunk_delay_ms > 0 {
            tokio::time::sleep(Duration::from_millis(response.chunk_delay_ms)).await;
        }
        http::write_chunk(stream, event.text.as_bytes()).await?;
        if event.kind == EventKind::ContentDelta {
            deltas_sent += 1;
        }
    }
    http::write_last_chunk(stream).await?;
    Ok(Ending::Close)
}

/// Returns once the client closes its side (or the socket fails).
async fn wait_for_client_to_leave(stream: &mut TcpStream) {
    let mut sink = [0u8; 1024];
    while let Ok(read) = stream.read(&mut sink).await {
        if read == 0 {
            return;
        }
    }
}
