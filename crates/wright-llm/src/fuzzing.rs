//! Entry points for the fuzz targets under `fuzz/` (issue 6, "Robustness"): the stream
//! decoding of both providers, fed from bytes without a server. Not part of the API.

use std::time::Duration;

use crate::sse::{StreamDecoder, StreamLimits, read_event_stream};
use crate::{ProviderKind, StreamEvent, anthropic, openai};

/// A transport that never fails: the fuzzer controls only the bytes.
#[derive(Debug)]
pub struct NeverFails;

impl std::fmt::Display for NeverFails {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("never")
    }
}

impl std::error::Error for NeverFails {}

/// Decodes `chunks`, in order, as a streamed reply of `provider`; everything that came out
/// (the reply or the fault, and every event), written out so that two runs can be compared.
pub fn decode_stream(provider: ProviderKind, chunks: &[&[u8]]) -> String {
    let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
    else {
        return "no runtime".to_string();
    };
    runtime.block_on(async {
        match provider {
            ProviderKind::OpenAi => decode(openai::ChunkDecoder::default(), chunks).await,
            ProviderKind::Anthropic => decode(anthropic::EventDecoder::default(), chunks).await,
        }
    })
}

async fn decode<D: StreamDecoder>(decoder: D, chunks: &[&[u8]]) -> String {
    let items: Vec<Result<Vec<u8>, NeverFails>> = chunks.iter().map(|c| Ok(c.to_vec())).collect();
    let mut events: Vec<StreamEvent> = Vec::new();
    let result = read_event_stream(
        futures::stream::iter(items),
        StreamLimits {
            idle_timeout: Duration::from_secs(60),
            max_reply_bytes: 1 << 20,
            max_body_bytes: 1 << 24,
        },
        decoder,
        &mut |event| events.push(event),
    )
    .await;
    let text: String = events
        .iter()
        .filter_map(|event| match event {
            StreamEvent::Text(piece) => Some(piece.as_str()),
            _ => None,
        })
        .collect();
    format!("{result:?}\ntext: {text:?}")
}
