//! The ReAct parser: any reply parses without a panic, and streaming it in pieces split
//! anywhere shows exactly the text before the action line as thought, and parses the same.
#![no_main]

use libfuzzer_sys::fuzz_target;
use wright_core::react::{ReplyStream, action_start, parse_reply};

fuzz_target!(|data: &[u8]| {
    // The first byte picks where the reply is cut into pieces; the rest is the reply.
    let Some((&seed, rest)) = data.split_first() else {
        return;
    };
    let reply = String::from_utf8_lossy(rest);
    let whole = parse_reply(&reply);

    let mut stream = ReplyStream::new();
    let mut shown = String::new();
    let mut at = 0;
    let step = usize::from(seed % 13) + 1;
    while at < reply.len() {
        let mut end = (at + step).min(reply.len());
        while !reply.is_char_boundary(end) {
            end += 1;
        }
        if let Some(thought) = stream.push(&reply[at..end]) {
            shown.push_str(thought);
        }
        at = end;
    }
    if let Some(rest) = stream.finish() {
        shown.push_str(rest);
    }
    assert_eq!(stream.text(), reply.as_ref());
    assert_eq!(parse_reply(stream.text()), whole);
    match action_start(&reply) {
        Some(start) => {
            // The action line starts at its line's start (it may be indented).
            let line_start = reply[..start].rfind('\n').map_or(0, |nl| nl + 1);
            assert_eq!(
                shown,
                reply[..line_start],
                "thought is the text before the action line"
            );
        }
        None => assert_eq!(
            shown,
            reply.as_ref(),
            "a reply without action is all thought"
        ),
    }
});
