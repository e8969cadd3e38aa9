//! The stream decoders of both providers: any bytes, split anywhere, decode without a panic to
//! the same reply (or the same fault) as the same bytes in one piece.
#![no_main]

use libfuzzer_sys::fuzz_target;
use wright_llm::ProviderKind;
use wright_llm::fuzzing::decode_stream;

fuzz_target!(|data: &[u8]| {
    let Some((&seed, body)) = data.split_first() else {
        return;
    };
    let provider = if seed & 1 == 0 {
        ProviderKind::OpenAi
    } else {
        ProviderKind::Anthropic
    };
    let whole = decode_stream(provider, &[body]);
    let step = usize::from(seed >> 1) % 17 + 1;
    let pieces: Vec<&[u8]> = body.chunks(step).collect();
    let split = decode_stream(provider, &pieces);
    assert_eq!(whole, split, "split every {step} bytes");
});
