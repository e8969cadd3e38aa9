//! [`LlmClient`]: one model call from request to [`Completion`], with retries (DESIGN §6) and
//! continuation of replies cut by the output-token limit.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, SystemTime};

use bytes::Bytes;
use reqwest::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue};
use reqwest::{Response, Url};
use wright_protocol::{ToolDefinition, Usage};

use crate::error::{
    AttemptError, MAX_ERROR_MESSAGE_CHARS, StreamFault, provider_error_message, root_cause,
};
use crate::overflow::{self, Overflow};
use crate::retry::{backoff_delay, describe_duration, is_retryable_status, server_requested_delay};
use crate::sse::{CUT_STREAM_REASON, Piece, StreamLimits, read_event_stream};
use crate::{
    ChatMessage, ChatRequest, Completion, DEFAULT_OPENAI_BASE_URL, FinishReason, LlmConfig,
    LlmError, MAX_CONTINUATIONS, ProviderKind, StreamEvent, anthropic, openai, window,
};

/// How long connecting to the provider may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// A reply that is not streamed arrives only once the model is done, so it gets at least this
/// long, whatever the idle timeout.
const MIN_PLAIN_RESPONSE_TIMEOUT: Duration = Duration::from_secs(600);
/// The user message asking the model to go on after its reply hit the output-token limit.
const CONTINUE_PROMPT: &str = include_str!("prompts/continue.txt");
/// The most of an error body that is read; the rest is left unread.
const MAX_ERROR_BODY_BYTES: usize = 256 * 1024;
/// Bytes read from a response per byte of reply allowed: streamed JSON wraps each few
/// characters of text in a couple of hundred bytes of framing, so this is generous; it bounds
/// what a response that carries no reply (one endless event) can make wright read and hold.
const MAX_BODY_BYTES_PER_REPLY_BYTE: usize = 64;
/// Sent as `User-Agent`.
const USER_AGENT: &str = concat!("wright/", env!("CARGO_PKG_VERSION"));

/// A client for one model: build it once, then [`complete`](LlmClient::complete) calls.
///
/// Cloning is cheap and shares the connection pool.
#[derive(Debug, Clone)]
pub struct LlmClient {
    config: LlmConfig,
    http: reqwest::Client,
    /// The endpoint every request goes to.
    url: String,
    /// Content type, accept and credentials (marked sensitive, so `Debug` hides them).
    headers: HeaderMap,
    /// How an OpenAI-compatible server wants the request spelled, as learnt so far; shared by
    /// clones, so a lesson is learnt once per model.
    dialect: Arc<Mutex<openai::Dialect>>,
}

impl LlmClient {
    /// Checks `config` and prepares the HTTP client.
    ///
    /// Fails with [`LlmError::InvalidConfig`] for a base URL that is not an `http(s)` URL, an
    /// empty model name, zero attempts or output tokens, or an API key that cannot be sent in
    /// a header. A key that is empty after trimming counts as no key.
    pub fn new(config: LlmConfig) -> Result<Self, LlmError> {
        let base_url = checked_base_url(&config)?;
        if config.model.trim().is_empty() {
            return Err(LlmError::InvalidConfig {
                setting: "model",
                problem: "no model name given; set the model the provider should run".into(),
            });
        }
        if config.max_attempts == 0 {
            return Err(LlmError::InvalidConfig {
                setting: "max_attempts",
                problem: "must be at least 1 (the first attempt counts)".into(),
            });
        }
        if config.max_output_tokens == 0 {
            return Err(LlmError::InvalidConfig {
                setting: "max_output_tokens",
                problem: "must be at least 1".into(),
            });
        }
        let url = match config.provider {
            ProviderKind::OpenAi => openai::endpoint(base_url),
            ProviderKind::Anthropic => anthropic::endpoint(base_url),
        };
        let headers = request_headers(&config)?;
        // reqwest is built without a crypto provider; ring is wright's. Installing it a second
        // time (another client, another thread) fails harmlessly: one is installed.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let http = reqwest::Client::builder()
            .connect_timeout(CONNECT_TIMEOUT)
            .user_agent(USER_AGENT)
            .build()
            .map_err(|error| LlmError::InvalidConfig {
                setting: "provider",
                problem: format!("could not set up the HTTP client: {}", root_cause(&error)),
            })?;
        let dialect = Arc::new(Mutex::new(openai::Dialect::for_model(&config.model)));
        Ok(LlmClient {
            config,
            http,
            url,
            headers,
            dialect,
        })
    }

    /// The configuration this client was built with.
    pub fn config(&self) -> &LlmConfig {
        &self.config
    }

    /// Sends `request` and returns the whole reply, passing deltas, retries and continuations
    /// to `on_event` as they happen.
    ///
    /// Failures that may heal are retried (see [`StreamEvent::Retry`]); a reply cut by the
    /// output-token limit is continued up to [`MAX_CONTINUATIONS`] times (see
    /// [`StreamEvent::Continuation`]). Dropping the future cancels the call and closes the
    /// connection; nothing keeps running in the background.
    pub async fn complete(
        &self,
        request: &ChatRequest,
        on_event: &mut (dyn FnMut(StreamEvent) + Send),
    ) -> Result<Completion, LlmError> {
        self.complete_with_tools(request, &[], on_event).await
    }

    /// [`complete`](Self::complete), offering `tools` for native tool calling: they go to
    /// the provider as function schemas (OpenAI `tools`, Anthropic `tools` with an
    /// `input_schema`), and the calls the model makes come back in
    /// [`Completion::tool_calls`], arguments as sent. With no tools the request is exactly
    /// what [`complete`](Self::complete) sends.
    ///
    /// A reply that makes tool calls is never continued, even when cut by the output-token
    /// limit: arguments cut short are the caller's to answer, like any malformed call.
    pub async fn complete_with_tools(
        &self,
        request: &ChatRequest,
        tools: &[ToolDefinition],
        on_event: &mut (dyn FnMut(StreamEvent) + Send),
    ) -> Result<Completion, LlmError> {
        let mut text = String::new();
        let mut reasoning = String::new();
        let mut usage: Option<Usage> = None;
        let mut calls = Vec::new();
        let mut continuations = 0;
        loop {
            let continued;
            let piece_request = if continuations == 0 {
                request
            } else {
                continued = continuation_request(request, &text);
                &continued
            };
            let mut piece = loop {
                match self
                    .send(piece_request, tools, (&text, &reasoning), on_event)
                    .await
                {
                    // The server named a parameter it does not take: spell it its way. Each
                    // lesson is learnt once, so this ends.
                    Err(error) if self.learn_dialect(&error) => {}
                    other => break other?,
                }
            };
            if tools.is_empty() {
                // No tools offered, no calls: a stray one is ignored, as it always was.
                piece.tool_calls.clear();
            }
            text.push_str(&piece.text);
            reasoning.push_str(&piece.reasoning);
            if text.len() + reasoning.len() > self.config.max_reply_bytes() {
                return Err(self.reply_too_large());
            }
            if let Some(piece_usage) = &piece.usage {
                usage.get_or_insert_with(Usage::default).add(piece_usage);
                calls.push(*piece_usage);
            }
            // Without any text there is nothing to continue from (the limit went on reasoning).
            let continue_reply = piece.finish_reason == FinishReason::Length
                && continuations < MAX_CONTINUATIONS
                && !text.is_empty()
                && piece.tool_calls.is_empty();
            if !continue_reply {
                return Ok(Completion {
                    text,
                    reasoning,
                    usage,
                    calls,
                    finish_reason: piece.finish_reason,
                    tool_calls: piece.tool_calls,
                });
            }
            continuations += 1;
            on_event(StreamEvent::Continuation {
                attempt: continuations,
            });
        }
    }

    /// Asks the server how large the model's context window is, for an OpenAI-compatible
    /// server that says: llama.cpp (`GET /props`), vLLM (`GET /v1/models`) or Ollama
    /// (`POST /api/show`), next to the base URL. Only servers that look self-hosted are asked
    /// ([`looks_self_hosted`]): hosted APIs say nowhere, and asking would only slow every
    /// start. `None` for Anthropic, and whenever no answer gives a window within 2 s.
    pub async fn discover_context_window(&self) -> Option<u64> {
        let base_url = self.config.base_url.trim().trim_end_matches('/');
        if self.config.provider != ProviderKind::OpenAi
            || base_url == DEFAULT_OPENAI_BASE_URL
            || !looks_self_hosted(base_url)
        {
            return None;
        }
        window::discover(&self.http, &self.headers, base_url, &self.config.model).await
    }

    fn dialect(&self) -> std::sync::MutexGuard<'_, openai::Dialect> {
        self.dialect.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Whether `error` is an OpenAI-compatible server refusing a parameter it does not take
    /// in a way the dialect could adjust to (it has then adjusted).
    fn learn_dialect(&self, error: &LlmError) -> bool {
        match error {
            LlmError::Http {
                provider: ProviderKind::OpenAi,
                status: 400,
                message,
                ..
            } => self.dialect().learn(message),
            _ => false,
        }
    }

    /// The request body, built once per request so every attempt sends the same bytes;
    /// streamed as configured, or plain when `stream` is false.
    fn encode(
        &self,
        request: &ChatRequest,
        tools: &[ToolDefinition],
        stream: bool,
    ) -> Result<Bytes, LlmError> {
        let plain;
        let config = if stream == self.config.stream {
            &self.config
        } else {
            plain = LlmConfig {
                stream,
                ..self.config.clone()
            };
            &plain
        };
        let body = match config.provider {
            ProviderKind::OpenAi => {
                let dialect = *self.dialect();
                openai::request_body(config, request, tools, dialect)
            }
            ProviderKind::Anthropic => anthropic::request_body(config, request, tools),
        };
        body.map(Bytes::from).map_err(LlmError::Encode)
    }

    /// Sends one request, retrying failures that may heal. `finished` is the text and
    /// reasoning of earlier pieces of the reply, streamed again after each retry.
    ///
    /// A stream cut before any content is asked again once, at once, without streaming: a
    /// server that refuses a request it cannot fit (llama.cpp) may just close the stream, and
    /// only the plain answer carries its error.
    async fn send(
        &self,
        request: &ChatRequest,
        tools: &[ToolDefinition],
        finished: (&str, &str),
        on_event: &mut (dyn FnMut(StreamEvent) + Send),
    ) -> Result<Piece, LlmError> {
        let body = self.encode(request, tools, self.config.stream)?;
        let max_attempts = self.config.max_attempts;
        let mut attempt = 1;
        let mut plain_body: Option<Bytes> = None;
        let mut asked_plainly = false;
        loop {
            let outcome = match plain_body.take() {
                Some(plain) => self.attempt(plain, false, on_event).await,
                None => {
                    self.attempt(body.clone(), self.config.stream, on_event)
                        .await
                }
            };
            let (mut reason, retry_after, cut_before_content) = match outcome {
                Ok(piece) => return Ok(piece),
                Err(AttemptError::Fatal(error)) => return Err(self.redact_error(error)),
                Err(AttemptError::Retryable {
                    reason,
                    retry_after,
                    cut_before_content,
                }) => (self.redact(reason), retry_after, cut_before_content),
            };
            if attempt >= max_attempts {
                return Err(LlmError::RetriesExhausted {
                    provider: self.config.provider,
                    url: self.url.clone(),
                    attempts: attempt,
                    last_reason: reason,
                });
            }
            let ask_plainly = cut_before_content && self.config.stream && !asked_plainly;
            let delay = if ask_plainly {
                asked_plainly = true;
                plain_body = Some(self.encode(request, tools, false)?);
                reason.push_str("; asking once without streaming to see the server's error");
                Duration::ZERO
            } else {
                retry_after.unwrap_or_else(|| {
                    backoff_delay(self.config.retry_base_delay, attempt, fastrand::f64())
                })
            };
            attempt += 1;
            on_event(StreamEvent::Retry {
                attempt,
                max_attempts,
                reason,
                delay,
            });
            Piece::emit_whole(finished.0, finished.1, on_event);
            tokio::time::sleep(delay).await;
        }
    }

    /// `text` with the API key taken out, then clipped to [`MAX_ERROR_MESSAGE_CHARS`]: a
    /// provider or proxy that echoes the key in an error must not put it in events, logs or
    /// session files (issue 6), and one that sends a huge error must not flood them (issue 12).
    fn redact(&self, text: String) -> String {
        let text = match self.config.api_key.as_deref().map(str::trim) {
            Some(key) if key.len() >= 4 && text.contains(key) => {
                text.replace(key, "[REDACTED api key]")
            }
            _ => text,
        };
        wright_protocol::text::clip(&text, MAX_ERROR_MESSAGE_CHARS).into_owned()
    }

    /// The error with the API key taken out of every text the provider could have echoed.
    fn redact_error(&self, error: LlmError) -> LlmError {
        match error {
            LlmError::Http {
                provider,
                status,
                message,
                url,
            } => LlmError::Http {
                provider,
                status,
                message: self.redact(message),
                url,
            },
            LlmError::Provider {
                provider,
                kind,
                message,
                url,
            } => LlmError::Provider {
                provider,
                kind: self.redact(kind),
                message: self.redact(message),
                url,
            },
            LlmError::ContextOverflow {
                provider,
                url,
                window,
                prompt_tokens,
                completion_tokens,
                message,
            } => LlmError::ContextOverflow {
                provider,
                url,
                window,
                prompt_tokens,
                completion_tokens,
                message: self.redact(message),
            },
            LlmError::InvalidResponse {
                provider,
                url,
                detail,
            } => LlmError::InvalidResponse {
                provider,
                url,
                detail: self.redact(detail),
            },
            other => other,
        }
    }

    /// The error for a reply that grew past [`LlmConfig::max_reply_bytes`].
    fn reply_too_large(&self) -> LlmError {
        LlmError::ReplyTooLarge {
            provider: self.config.provider,
            url: self.url.clone(),
            limit: self.config.max_reply_bytes(),
        }
    }

    /// One HTTP exchange within `request_timeout`: past it, the attempt counts as stalled.
    async fn attempt(
        &self,
        body: Bytes,
        stream: bool,
        on_event: &mut (dyn FnMut(StreamEvent) + Send),
    ) -> Result<Piece, AttemptError> {
        let timeout = self.config.request_timeout;
        match tokio::time::timeout(timeout, self.exchange(body, stream, on_event)).await {
            Ok(outcome) => outcome,
            Err(_) => Err(AttemptError::retryable(format!(
                "no complete reply within {} (`request_timeout_secs`)",
                describe_duration(timeout)
            ))),
        }
    }

    /// One HTTP exchange, streamed or plain (`body` must say the same).
    async fn exchange(
        &self,
        body: Bytes,
        stream: bool,
        on_event: &mut (dyn FnMut(StreamEvent) + Send),
    ) -> Result<Piece, AttemptError> {
        let idle_timeout = self.config.stream_idle_timeout;
        let wait = if stream {
            idle_timeout
        } else {
            idle_timeout.max(MIN_PLAIN_RESPONSE_TIMEOUT)
        };
        let mut headers = self.headers.clone();
        if !stream {
            headers.insert(ACCEPT, HeaderValue::from_static("application/json"));
        }
        let sending = self.http.post(&self.url).headers(headers).body(body).send();
        let response = match tokio::time::timeout(wait, sending).await {
            Ok(Ok(response)) => response,
            Ok(Err(error)) => {
                return Err(AttemptError::retryable(format!(
                    "connection failed: {}",
                    root_cause(&error)
                )));
            }
            Err(_) => {
                return Err(AttemptError::retryable(format!(
                    "no response for {}",
                    describe_duration(wait)
                )));
            }
        };
        if !response.status().is_success() {
            return Err(self.refusal(response).await);
        }
        let limits = StreamLimits {
            idle_timeout,
            max_reply_bytes: self.config.max_reply_bytes(),
            max_body_bytes: self.max_body_bytes(),
        };
        let piece = if stream && !is_json(&response) {
            let bytes = response.bytes_stream();
            match self.config.provider {
                ProviderKind::OpenAi => {
                    let decoder = openai::ChunkDecoder::default();
                    read_event_stream(bytes, limits, decoder, on_event).await
                }
                ProviderKind::Anthropic => {
                    let decoder = anthropic::EventDecoder::default();
                    read_event_stream(bytes, limits, decoder, on_event).await
                }
            }
        } else {
            // Also taken when a server ignores `"stream": true` and answers in one piece.
            self.read_whole(response, wait).await.inspect(|piece| {
                Piece::emit_whole(&piece.text, &piece.reasoning, on_event);
            })
        };
        piece.map_err(|fault| self.fault_error(fault))
    }

    /// The most bytes read from one response: see [`MAX_BODY_BYTES_PER_REPLY_BYTE`].
    fn max_body_bytes(&self) -> usize {
        self.config
            .max_reply_bytes()
            .saturating_mul(MAX_BODY_BYTES_PER_REPLY_BYTE)
    }

    /// Reads and parses a reply that was not streamed, no larger than the body cap.
    async fn read_whole(&self, response: Response, wait: Duration) -> Result<Piece, StreamFault> {
        let limit = self.max_body_bytes();
        let body = match tokio::time::timeout(wait, read_up_to(response, limit)).await {
            Ok(Ok(Some(body))) => body,
            Ok(Ok(None)) => return Err(StreamFault::TooLarge { limit }),
            Ok(Err(error)) => {
                return Err(StreamFault::Transient(format!(
                    "{CUT_STREAM_REASON} ({})",
                    root_cause(&error)
                )));
            }
            Err(_) => {
                return Err(StreamFault::Transient(format!(
                    "no data for {}",
                    describe_duration(wait)
                )));
            }
        };
        let piece = match self.config.provider {
            ProviderKind::OpenAi => openai::parse_completion(&body),
            ProviderKind::Anthropic => anthropic::parse_message(&body),
        }?;
        let max_reply_bytes = self.config.max_reply_bytes();
        if piece.text.len() + piece.reasoning.len() > max_reply_bytes {
            return Err(StreamFault::TooLarge {
                limit: max_reply_bytes,
            });
        }
        Ok(piece)
    }

    /// What an HTTP error status means for the call.
    async fn refusal(&self, response: Response) -> AttemptError {
        let status = response.status();
        let retry_after = server_requested_delay(response.headers(), SystemTime::now());
        let body = read_capped(
            response,
            MAX_ERROR_BODY_BYTES,
            self.config.stream_idle_timeout,
        )
        .await
        .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
        .unwrap_or_default();
        let message = provider_error_message(
            &body,
            status.canonical_reason().unwrap_or("no details given"),
        );
        if let Some(overflow) = overflow::in_body(&body) {
            AttemptError::Fatal(self.overflow_error(overflow))
        } else if is_retryable_status(status.as_u16()) {
            AttemptError::Retryable {
                reason: format!("HTTP {}: {message}", status.as_u16()),
                retry_after,
                cut_before_content: false,
            }
        } else {
            AttemptError::Fatal(LlmError::Http {
                provider: self.config.provider,
                status: status.as_u16(),
                message,
                url: self.url.clone(),
            })
        }
    }

    /// The error for a request the server says does not fit the window.
    fn overflow_error(&self, overflow: Overflow) -> LlmError {
        LlmError::ContextOverflow {
            provider: self.config.provider,
            url: self.url.clone(),
            window: overflow.window,
            prompt_tokens: overflow.prompt_tokens,
            completion_tokens: overflow.completion_tokens,
            message: overflow.message,
        }
    }

    /// A decoding fault as an attempt failure, with the URL added. An error event saying the
    /// request does not fit is never retried, whatever its status.
    fn fault_error(&self, fault: StreamFault) -> AttemptError {
        let overflow = match &fault {
            StreamFault::Transient(text) | StreamFault::Provider { message: text, .. } => {
                overflow::in_message(text)
            }
            StreamFault::CutBeforeContent(_)
            | StreamFault::Invalid(_)
            | StreamFault::TooLarge { .. } => None,
        };
        if let Some(overflow) = overflow {
            return AttemptError::Fatal(self.overflow_error(overflow));
        }
        match fault {
            StreamFault::Transient(reason) => AttemptError::retryable(reason),
            StreamFault::CutBeforeContent(reason) => AttemptError::Retryable {
                reason,
                retry_after: None,
                cut_before_content: true,
            },
            StreamFault::Provider { kind, message } => AttemptError::Fatal(LlmError::Provider {
                provider: self.config.provider,
                kind,
                message,
                url: self.url.clone(),
            }),
            StreamFault::Invalid(detail) => AttemptError::Fatal(LlmError::InvalidResponse {
                provider: self.config.provider,
                url: self.url.clone(),
                detail,
            }),
            StreamFault::TooLarge { .. } => AttemptError::Fatal(self.reply_too_large()),
        }
    }
}

/// The request that continues a reply cut by the output-token limit: the conversation, the
/// reply so far as the model's message, and a user message asking it to go on.
fn continuation_request(request: &ChatRequest, partial_reply: &str) -> ChatRequest {
    let mut next = request.clone();
    next.messages.push(ChatMessage::assistant(partial_reply));
    next.messages
        .push(ChatMessage::user(CONTINUE_PROMPT.trim()));
    next
}

/// The base URL, trimmed, once it is known to be an `http(s)` URL.
fn checked_base_url(config: &LlmConfig) -> Result<&str, LlmError> {
    let base_url = config.base_url.trim();
    let example = config.provider.default_base_url();
    let url = Url::parse(base_url).map_err(|error| LlmError::InvalidConfig {
        setting: "base_url",
        problem: format!(
            "`{base_url}` is not a URL ({error}); expected something like `{example}`"
        ),
    })?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(LlmError::InvalidConfig {
            setting: "base_url",
            problem: format!(
                "`{base_url}` must start with `http://` or `https://`, like `{example}`"
            ),
        });
    }
    Ok(base_url)
}

/// The headers every request carries.
fn request_headers(config: &LlmConfig) -> Result<HeaderMap, LlmError> {
    let mut headers = HeaderMap::new();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    let accept = if config.stream {
        "text/event-stream"
    } else {
        "application/json"
    };
    headers.insert(ACCEPT, HeaderValue::from_static(accept));
    if let Some(key) = config
        .api_key
        .as_deref()
        .map(str::trim)
        .filter(|key| !key.is_empty())
    {
        let (name, value) = match config.provider {
            ProviderKind::OpenAi => (AUTHORIZATION, format!("Bearer {key}")),
            ProviderKind::Anthropic => (HeaderName::from_static("x-api-key"), key.to_string()),
        };
        let mut value = HeaderValue::from_str(&value).map_err(|_| LlmError::InvalidConfig {
            setting: "api_key",
            problem: "the key holds characters that cannot be sent in an HTTP header".into(),
        })?;
        value.set_sensitive(true);
        headers.insert(name, value);
    }
    if config.provider == ProviderKind::Anthropic {
        headers.insert(
            HeaderName::from_static("anthropic-version"),
            HeaderValue::from_static(anthropic::API_VERSION),
        );
    }
    Ok(headers)
}

/// Reads the first `limit` bytes of `response`'s body (all of it if shorter) within `wait`;
/// `None` if reading fails or takes longer. Error bodies and discovery documents come from
/// the server, which is not trusted to keep them small.
pub(crate) async fn read_capped(
    mut response: Response,
    limit: usize,
    wait: Duration,
) -> Option<Vec<u8>> {
    let reading = async {
        let mut body = Vec::new();
        while let Some(chunk) = response.chunk().await.ok()? {
            let room = limit - body.len();
            body.extend_from_slice(&chunk[..chunk.len().min(room)]);
            if body.len() == limit {
                break;
            }
        }
        Some(body)
    };
    tokio::time::timeout(wait, reading).await.ok().flatten()
}

/// The whole body of `response`, or `None` once it passes `limit` bytes (the rest is left
/// unread).
async fn read_up_to(mut response: Response, limit: usize) -> reqwest::Result<Option<Vec<u8>>> {
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await? {
        if body.len() + chunk.len() > limit {
            return Ok(None);
        }
        body.extend_from_slice(&chunk);
    }
    Ok(Some(body))
}

/// Whether the response is a JSON document rather than an event stream.
fn is_json(response: &Response) -> bool {
    response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value.trim_start().starts_with("application/json"))
}

/// Whether `base_url` names a server the user runs (llama.cpp, vLLM, Ollama, LM Studio, …)
/// rather than a hosted API: an IP address, `localhost`, a name without a dot, or one in a
/// local domain (`.local`, `.lan`, `.internal`, `.home.arpa`, …).
pub fn looks_self_hosted(base_url: &str) -> bool {
    let Ok(url) = reqwest::Url::parse(base_url) else {
        return false;
    };
    let Some(host) = url.host_str() else {
        return false;
    };
    let host = host.trim_start_matches('[').trim_end_matches(']');
    if host.parse::<std::net::IpAddr>().is_ok() {
        return true;
    }
    let name = host.trim_end_matches('.').to_ascii_lowercase();
    !name.contains('.')
        || [
            ".local",
            ".lan",
            ".internal",
            ".localdomain",
            ".home.arpa",
            ".localhost",
        ]
        .iter()
        .any(|suffix| name.ends_with(suffix))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_servers_that_look_self_hosted_are_asked_their_window() {
        for url in [
            "http://127.0.0.1:8080/v1",
            "http://localhost:11434/v1",
            "http://[::1]:8000/v1",
            "http://gpu-box:8000/v1",
            "http://llm.lan/v1",
            "http://10.0.0.7/v1",
        ] {
            assert!(looks_self_hosted(url), "{url}");
        }
        for url in [
            "https://openrouter.ai/api/v1",
            "https://api.deepseek.com/v1",
            "not a url",
        ] {
            assert!(!looks_self_hosted(url), "{url}");
        }
    }
    use pretty_assertions::assert_eq;

    fn config(base_url: &str) -> LlmConfig {
        LlmConfig::new(ProviderKind::OpenAi, base_url, "gpt-test")
    }

    #[test]
    fn a_client_for_an_https_endpoint_has_a_tls_provider() {
        // reqwest has no provider of its own; without ring installed this fails to build.
        let client = LlmClient::new(config("https://api.openai.com/v1")).unwrap();
        assert_eq!(client.url, "https://api.openai.com/v1/chat/completions");
        assert!(rustls::crypto::CryptoProvider::get_default().is_some());
    }

    #[test]
    fn a_base_url_that_is_not_a_url_is_a_config_error() {
        let error = LlmClient::new(config("api.openai.com/v1")).unwrap_err();
        assert_eq!(
            error.to_string(),
            "invalid `base_url` setting: `api.openai.com/v1` is not a URL (relative URL without \
             a base); expected something like `https://api.openai.com/v1`"
        );
    }

    #[test]
    fn a_base_url_must_be_http() {
        let error = LlmClient::new(config("ftp://example.com")).unwrap_err();
        assert!(
            matches!(
                error,
                LlmError::InvalidConfig {
                    setting: "base_url",
                    ..
                }
            ),
            "{error}"
        );
    }

    #[test]
    fn zero_attempts_is_a_config_error() {
        let mut config = config("http://127.0.0.1:1/v1");
        config.max_attempts = 0;
        let error = LlmClient::new(config).unwrap_err();
        assert!(
            matches!(
                error,
                LlmError::InvalidConfig {
                    setting: "max_attempts",
                    ..
                }
            ),
            "{error}"
        );
    }

    #[test]
    fn an_api_key_with_a_line_break_inside_is_a_config_error() {
        let mut config = config("http://127.0.0.1:1/v1");
        config.api_key = Some("sk-a\nb".into());
        let error = LlmClient::new(config).unwrap_err();
        assert!(
            matches!(
                error,
                LlmError::InvalidConfig {
                    setting: "api_key",
                    ..
                }
            ),
            "{error}"
        );
    }

    #[test]
    fn a_trailing_newline_on_the_api_key_is_trimmed() {
        let mut config = config("http://127.0.0.1:1/v1");
        config.api_key = Some("sk-test\n".into());
        let headers = request_headers(&config).unwrap();
        assert_eq!(headers[AUTHORIZATION], "Bearer sk-test");
    }

    #[test]
    fn debug_output_of_the_client_hides_the_api_key() {
        let mut config = config("http://127.0.0.1:1/v1");
        config.api_key = Some("sk-secret".into());
        let client = LlmClient::new(config).unwrap();
        let debug = format!("{client:?}");
        assert!(!debug.contains("sk-secret"), "{debug}");
    }

    #[test]
    fn a_continuation_carries_the_partial_reply_and_the_continue_prompt() {
        let request = ChatRequest {
            system: vec!["s".into()],
            messages: vec![ChatMessage::user("write a poem")],
            stop: vec![],
            max_output_tokens: None,
        };
        let next = continuation_request(&request, "Roses are");
        assert_eq!(
            next.messages,
            vec![
                ChatMessage::user("write a poem"),
                ChatMessage::assistant("Roses are"),
                ChatMessage::user(
                    "Your reply was cut off by the output token limit. Continue exactly where \
                     you stopped: no repetition, no preamble."
                ),
            ]
        );
    }

    #[test]
    fn a_call_can_move_between_threads() {
        fn assert_send<T: Send>(_: &T) {}
        let client = LlmClient::new(config("http://127.0.0.1:1/v1")).unwrap();
        let request = ChatRequest::default();
        let mut on_event = |_: StreamEvent| {};
        let call = client.complete(&request, &mut on_event);
        assert_send(&call);
    }
}
