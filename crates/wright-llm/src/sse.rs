//! Reading a server-sent event stream: bytes to events (eventsource-stream), the limits that
//! keep an untrusted server from hanging or flooding wright (an idle timeout that only content
//! resets, a cap on the reply and on the bytes read), and the rule for when a stream counts as
//! complete. What the events mean is up to each provider's [`StreamDecoder`].

use std::fmt;
use std::pin::pin;
use std::time::Duration;

use tokio::time::Instant;

use eventsource_stream::{Event, EventStreamError, Eventsource};
use futures::{Stream, StreamExt};
use wright_protocol::{NativeToolCall, Usage};

use crate::error::{StreamFault, root_cause};
use crate::retry::describe_duration;
use crate::tool_calls::{ToolCallAssembler, ToolCallFragment};
use crate::{FinishReason, StreamEvent};

/// Why a stream that ended early is retried.
pub(crate) const CUT_STREAM_REASON: &str = "stream ended before its final event";

/// A piece of the reply carried by one event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Delta {
    /// Visible reply text.
    Text(String),
    /// Reasoning output.
    Reasoning(String),
    /// A piece of a native tool call.
    ToolCall(ToolCallFragment),
    /// Something that moves the reply along without text: usage or a finish reason. Like
    /// text, it resets the idle timeout; keep-alives and empty events do not.
    Progress,
}

/// The reply of one successful request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Piece {
    pub(crate) text: String,
    pub(crate) reasoning: String,
    pub(crate) usage: Option<Usage>,
    pub(crate) finish_reason: FinishReason,
    /// The native tool calls, in order, arguments as sent.
    pub(crate) tool_calls: Vec<NativeToolCall>,
}

impl Piece {
    /// Sends the piece's reasoning, then its text, each as one event (used when a reply did
    /// not stream, and to replay finished pieces after a retry).
    pub(crate) fn emit_whole(
        text: &str,
        reasoning: &str,
        on_event: &mut (dyn FnMut(StreamEvent) + Send),
    ) {
        if !reasoning.is_empty() {
            on_event(StreamEvent::Reasoning(reasoning.to_string()));
        }
        if !text.is_empty() {
            on_event(StreamEvent::Text(text.to_string()));
        }
    }
}

/// One provider's reading of its event stream.
pub(crate) trait StreamDecoder {
    /// Reads one event and returns the deltas it carries.
    fn on_event(&mut self, event: &Event) -> Result<Vec<Delta>, StreamFault>;
    /// Whether the final event has arrived: nothing after it matters.
    fn is_finished(&self) -> bool;
    /// Whether the reply is complete even if the stream stops now without a final event.
    fn may_end_here(&self) -> bool;
    /// The usage and finish reason gathered from the events.
    fn outcome(self) -> (Option<Usage>, FinishReason);
}

/// Why reading the body stopped early.
#[derive(Debug)]
enum ReadError<E> {
    /// The body grew past this many bytes.
    TooLarge(usize),
    /// The connection failed.
    Transport(E),
}

impl<E: fmt::Display> fmt::Display for ReadError<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::TooLarge(limit) => write!(f, "the response passed {limit} bytes"),
            ReadError::Transport(error) => error.fmt(f),
        }
    }
}

/// How much an event stream may hold and how long it may dawdle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct StreamLimits {
    /// How long the stream may go without content (text, reasoning, usage, a finish reason)
    /// before the attempt counts as stalled. Keep-alive comments, `ping` events and empty
    /// deltas do not reset it: a server sending only those is stalled.
    pub(crate) idle_timeout: Duration,
    /// The most reply text and reasoning, in bytes, the stream may carry.
    pub(crate) max_reply_bytes: usize,
    /// The most bytes read from the body, events' framing included: bounds what one endless
    /// event (no blank line ever) can make the parser hold.
    pub(crate) max_body_bytes: usize,
}

/// Reads `bytes` as an event stream through `decoder`, passing each delta to `on_event` as it
/// arrives, until the final event. A stream without content for `limits.idle_timeout` ends the
/// attempt (a transient fault), so a stalled server cannot hang the call; one whose reply or
/// body grows past its cap ends it with [`StreamFault::TooLarge`].
pub(crate) async fn read_event_stream<S, B, E, D>(
    bytes: S,
    limits: StreamLimits,
    mut decoder: D,
    on_event: &mut (dyn FnMut(StreamEvent) + Send),
) -> Result<Piece, StreamFault>
where
    S: Stream<Item = Result<B, E>>,
    B: AsRef<[u8]>,
    E: std::error::Error + 'static,
    D: StreamDecoder,
{
    let mut events = pin!(with_size_cap(bytes, limits.max_body_bytes).eventsource());
    let mut text = String::new();
    let mut reasoning = String::new();
    let mut tool_calls = ToolCallAssembler::default();
    // Tool-call ids, names and arguments count against the reply cap with the text, and each
    // fragment at least one byte, so a flood of empty fragments ends there too.
    let mut tool_call_bytes = 0usize;
    let mut idle_deadline = Instant::now() + limits.idle_timeout;
    while !decoder.is_finished() {
        let next = match tokio::time::timeout_at(idle_deadline, events.next()).await {
            Ok(next) => next,
            Err(_) if decoder.may_end_here() => break,
            Err(_) => {
                return Err(StreamFault::Transient(format!(
                    "no content for {}",
                    describe_duration(limits.idle_timeout)
                )));
            }
        };
        let event = match next {
            Some(Ok(event)) => event,
            Some(Err(EventStreamError::Transport(ReadError::TooLarge(limit)))) => {
                return Err(StreamFault::TooLarge { limit });
            }
            Some(Err(_)) | None if decoder.may_end_here() => break,
            None if text.is_empty() && reasoning.is_empty() && tool_calls.is_empty() => {
                return Err(StreamFault::CutBeforeContent(CUT_STREAM_REASON.to_string()));
            }
            None => return Err(StreamFault::Transient(CUT_STREAM_REASON.to_string())),
            Some(Err(error))
                if text.is_empty()
                    && reasoning.is_empty()
                    && tool_calls.is_empty()
                    && is_cut(&error) =>
            {
                return Err(StreamFault::CutBeforeContent(describe_read_error(&error)));
            }
            Some(Err(error)) => return Err(StreamFault::Transient(describe_read_error(&error))),
        };
        for delta in decoder.on_event(&event)? {
            match delta {
                Delta::Text(delta) if !delta.is_empty() => {
                    text.push_str(&delta);
                    on_event(StreamEvent::Text(delta));
                }
                Delta::Reasoning(delta) if !delta.is_empty() => {
                    reasoning.push_str(&delta);
                    on_event(StreamEvent::Reasoning(delta));
                }
                Delta::ToolCall(fragment) => {
                    tool_call_bytes = tool_call_bytes
                        .saturating_add(fragment.arguments.len().max(1))
                        .saturating_add(fragment.id.as_ref().map_or(0, String::len))
                        .saturating_add(fragment.name.as_ref().map_or(0, String::len));
                    tool_calls.push(fragment);
                }
                Delta::Progress => {}
                // Empty text or reasoning: no progress.
                Delta::Text(_) | Delta::Reasoning(_) => continue,
            }
            idle_deadline = Instant::now() + limits.idle_timeout;
            if text.len() + reasoning.len() + tool_call_bytes > limits.max_reply_bytes {
                return Err(StreamFault::TooLarge {
                    limit: limits.max_reply_bytes,
                });
            }
        }
    }
    let (usage, finish_reason) = decoder.outcome();
    Ok(Piece {
        text,
        reasoning,
        usage,
        finish_reason,
        tool_calls: tool_calls.finish(),
    })
}

/// Whether a read failed because the connection broke (not a stall or a garbled stream).
fn is_cut<E>(error: &EventStreamError<ReadError<E>>) -> bool {
    matches!(error, EventStreamError::Transport(ReadError::Transport(_)))
}

/// The retry reason for a stream that failed while being read.
fn describe_read_error<E>(error: &EventStreamError<ReadError<E>>) -> String
where
    E: std::error::Error + 'static,
{
    match error {
        EventStreamError::Transport(ReadError::TooLarge(limit)) => {
            format!("the response passed {limit} bytes")
        }
        EventStreamError::Transport(ReadError::Transport(error)) => {
            format!("{CUT_STREAM_REASON} ({})", root_cause(error))
        }
        EventStreamError::Utf8(_) => "the stream was not valid UTF-8".to_string(),
        EventStreamError::Parser(error) => {
            format!("the stream was not valid server-sent events ({error})")
        }
    }
}

/// `bytes`, failing with [`ReadError::TooLarge`] once more than `limit` bytes arrived. The
/// stream ends after its first error.
fn with_size_cap<S, B, E>(bytes: S, limit: usize) -> impl Stream<Item = Result<B, ReadError<E>>>
where
    S: Stream<Item = Result<B, E>>,
    B: AsRef<[u8]>,
{
    futures::stream::unfold(Some((Box::pin(bytes), 0usize)), move |state| async move {
        let (mut bytes, read) = state?;
        match bytes.next().await? {
            Ok(chunk) => {
                let read = read.saturating_add(chunk.as_ref().len());
                if read > limit {
                    Some((Err(ReadError::TooLarge(limit)), None))
                } else {
                    Some((Ok(chunk), Some((bytes, read))))
                }
            }
            Err(error) => Some((Err(ReadError::Transport(error)), None)),
        }
    })
}

#[cfg(test)]
pub(crate) mod test_support {
    //! Feeding scripted byte chunks to a decoder, for the providers' unit tests.

    use super::*;

    /// A transport error for tests.
    #[derive(Debug)]
    pub(crate) struct Broken;

    impl fmt::Display for Broken {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("connection reset")
        }
    }

    impl std::error::Error for Broken {}

    /// Limits no test stream comes near.
    pub(crate) const LIMITS: StreamLimits = StreamLimits {
        idle_timeout: Duration::from_secs(5),
        max_reply_bytes: 1 << 20,
        max_body_bytes: 1 << 24,
    };

    /// Reads `chunks` (then a clean end) through `decoder`, returning the piece and the events.
    pub(crate) async fn decode<D: StreamDecoder>(
        decoder: D,
        chunks: &[&[u8]],
    ) -> (Result<Piece, StreamFault>, Vec<StreamEvent>) {
        let items: Vec<Result<Vec<u8>, Broken>> = chunks.iter().map(|c| Ok(c.to_vec())).collect();
        decode_items(decoder, items).await
    }

    /// Reads `items` through `decoder`.
    pub(crate) async fn decode_items<D: StreamDecoder>(
        decoder: D,
        items: Vec<Result<Vec<u8>, Broken>>,
    ) -> (Result<Piece, StreamFault>, Vec<StreamEvent>) {
        let mut events = Vec::new();
        let result = read_event_stream(
            futures::stream::iter(items),
            LIMITS,
            decoder,
            &mut |event| events.push(event),
        )
        .await;
        (result, events)
    }
}

#[cfg(test)]
mod tests {
    use super::test_support::*;
    use super::*;
    use pretty_assertions::assert_eq;

    /// Treats every `data` as text and `end` as the final event.
    #[derive(Default)]
    struct EchoDecoder {
        finished: bool,
    }

    impl StreamDecoder for EchoDecoder {
        fn on_event(&mut self, event: &Event) -> Result<Vec<Delta>, StreamFault> {
            if event.data == "end" {
                self.finished = true;
                return Ok(Vec::new());
            }
            Ok(vec![Delta::Text(event.data.clone())])
        }
        fn is_finished(&self) -> bool {
            self.finished
        }
        fn may_end_here(&self) -> bool {
            false
        }
        fn outcome(self) -> (Option<Usage>, FinishReason) {
            (None, FinishReason::Stop)
        }
    }

    #[tokio::test]
    async fn crlf_lines_comments_and_split_characters_are_read() {
        let emoji = "😀".as_bytes();
        let chunks: &[&[u8]] = &[
            b": keep-alive\r\n\r\ndata: caf",
            &[0xC3],
            &[0xA9, b' '],
            &emoji[..1],
            &emoji[1..3],
            &emoji[3..],
            b"\r\n\r\ndata: end\r\n\r\n",
        ];
        let (piece, events) = decode(EchoDecoder::default(), chunks).await;
        assert_eq!(piece.unwrap().text, "café 😀");
        assert_eq!(events, vec![StreamEvent::Text("café 😀".into())]);
    }

    #[tokio::test]
    async fn a_stream_that_ends_before_its_final_event_is_cut() {
        let (piece, _) = decode(EchoDecoder::default(), &[b"data: partial\n\n"]).await;
        assert_eq!(piece, Err(StreamFault::Transient(CUT_STREAM_REASON.into())));
    }

    #[tokio::test]
    async fn a_stream_that_ends_before_any_content_is_cut_before_content() {
        let (piece, _) = decode(EchoDecoder::default(), &[b": keep-alive\n\n"]).await;
        assert_eq!(
            piece,
            Err(StreamFault::CutBeforeContent(CUT_STREAM_REASON.into()))
        );
        let (piece, _) = decode_items(EchoDecoder::default(), vec![Err(Broken)]).await;
        assert_eq!(
            piece,
            Err(StreamFault::CutBeforeContent(format!(
                "{CUT_STREAM_REASON} (connection reset)"
            )))
        );
    }

    #[tokio::test]
    async fn a_broken_connection_is_a_cut_stream_naming_the_cause() {
        let items = vec![Ok(b"data: partial\n\n".to_vec()), Err(Broken)];
        let (piece, _) = decode_items(EchoDecoder::default(), items).await;
        assert_eq!(
            piece,
            Err(StreamFault::Transient(format!(
                "{CUT_STREAM_REASON} (connection reset)"
            )))
        );
    }

    #[tokio::test]
    async fn events_after_the_final_event_are_not_read() {
        let (piece, _) = decode(
            EchoDecoder::default(),
            &[b"data: a\n\ndata: end\n\ndata: b\n\n"],
        )
        .await;
        assert_eq!(piece.unwrap().text, "a");
    }

    #[tokio::test]
    async fn a_silent_stream_fails_after_the_idle_timeout() {
        let stalled = futures::stream::iter(vec![Ok::<_, Broken>(b"data: a\n\n".to_vec())])
            .chain(futures::stream::pending());
        let mut events = Vec::new();
        let result = read_event_stream(
            stalled,
            StreamLimits {
                idle_timeout: Duration::from_millis(50),
                ..LIMITS
            },
            EchoDecoder::default(),
            &mut |event| events.push(event),
        )
        .await;
        assert_eq!(
            result,
            Err(StreamFault::Transient("no content for 50 ms".into()))
        );
        assert_eq!(events, vec![StreamEvent::Text("a".into())]);
    }

    /// An endless stream of `item` after one text event.
    /// Each item waits for the runtime once, as a socket does, so timers get to run.
    fn endless(item: &'static [u8]) -> impl Stream<Item = Result<Vec<u8>, Broken>> {
        let rest = futures::stream::unfold((), move |()| async move {
            tokio::task::yield_now().await;
            Some((Ok(item.to_vec()), ()))
        });
        futures::stream::iter(vec![Ok::<_, Broken>(b"data: a\n\n".to_vec())]).chain(rest)
    }

    /// Reads `bytes` through an [`EchoDecoder`] under `limits`.
    async fn read_with(
        bytes: impl Stream<Item = Result<Vec<u8>, Broken>>,
        limits: StreamLimits,
    ) -> Result<Piece, StreamFault> {
        read_event_stream(bytes, limits, EchoDecoder::default(), &mut |_| {}).await
    }

    #[tokio::test]
    async fn keep_alive_comments_alone_do_not_keep_a_stream_alive() {
        let limits = StreamLimits {
            idle_timeout: Duration::from_millis(50),
            max_body_bytes: usize::MAX,
            ..LIMITS
        };
        let result = read_with(endless(b": keep-alive\n\n"), limits).await;
        assert_eq!(
            result,
            Err(StreamFault::Transient("no content for 50 ms".into()))
        );
    }

    #[tokio::test]
    async fn empty_deltas_alone_do_not_keep_a_stream_alive() {
        let limits = StreamLimits {
            idle_timeout: Duration::from_millis(50),
            max_body_bytes: usize::MAX,
            ..LIMITS
        };
        let result = read_with(endless(b"data:\n\n"), limits).await;
        assert_eq!(
            result,
            Err(StreamFault::Transient("no content for 50 ms".into()))
        );
    }

    #[tokio::test]
    async fn a_reply_past_its_cap_ends_the_stream() {
        let limits = StreamLimits {
            max_reply_bytes: 1000,
            max_body_bytes: usize::MAX,
            ..LIMITS
        };
        let result = read_with(endless(b"data: flood\n\n"), limits).await;
        assert_eq!(result, Err(StreamFault::TooLarge { limit: 1000 }));
    }

    /// Treats every `data` as a piece of one tool call's arguments.
    struct ToolArgumentsDecoder;

    impl StreamDecoder for ToolArgumentsDecoder {
        fn on_event(&mut self, event: &Event) -> Result<Vec<Delta>, StreamFault> {
            Ok(vec![Delta::ToolCall(ToolCallFragment {
                arguments: event.data.clone(),
                ..ToolCallFragment::default()
            })])
        }
        fn is_finished(&self) -> bool {
            false
        }
        fn may_end_here(&self) -> bool {
            false
        }
        fn outcome(self) -> (Option<Usage>, FinishReason) {
            (None, FinishReason::Stop)
        }
    }

    #[tokio::test]
    async fn tool_call_arguments_count_against_the_reply_cap() {
        let limits = StreamLimits {
            max_reply_bytes: 1000,
            max_body_bytes: usize::MAX,
            ..LIMITS
        };
        let bytes = endless(b"data: flood\n\n");
        let result = read_event_stream(bytes, limits, ToolArgumentsDecoder, &mut |_| {}).await;
        assert_eq!(result, Err(StreamFault::TooLarge { limit: 1000 }));
    }

    #[tokio::test]
    async fn a_body_past_its_cap_ends_the_stream_even_without_events() {
        let limits = StreamLimits {
            max_body_bytes: 1000,
            ..LIMITS
        };
        // One event that never ends: no blank line, ever.
        let result = read_with(endless(b"data: xxxxxxxx"), limits).await;
        assert_eq!(result, Err(StreamFault::TooLarge { limit: 1000 }));
    }
}
