//! Streaming strip and sanitize, fed in fuzzed chunkings, equal the one-shot calls;
//! invalid UTF-8 is reported at the same offset as one-shot validation.
#![no_main]

use airlock_core::prose::{ProseStream, stream_buffer_len};
use airlock_core::utf8::validate;
use airlock_core::{LiteralSet, StripStream, sanitize_prose, strip_invisibles, worst_case_len};
use libfuzzer_sys::fuzz_target;

fn chunks<'a>(bytes: &'a [u8], sizes: &[u8]) -> Vec<&'a [u8]> {
    let mut out = Vec::new();
    let mut at = 0;
    let mut i = 0;
    while at < bytes.len() {
        let n = usize::from(sizes.get(i % sizes.len().max(1)).copied().unwrap_or(7) % 13 + 1);
        let end = (at + n).min(bytes.len());
        out.push(&bytes[at..end]);
        at = end;
        i += 1;
    }
    out
}

fuzz_target!(|data: &[u8]| {
    if data.len() < 3 {
        return;
    }
    let (head, input) = data.split_at(3);
    let max = usize::from(head[0]) * 2;
    let sizes = &head[1..];
    let pieces = chunks(input, sizes);

    let mut strip = StripStream::new();
    let mut stripped = String::new();
    let mut strip_result = Ok(());
    for p in &pieces {
        strip_result = strip.feed(p, |run| stripped.push_str(run));
        if strip_result.is_err() {
            break;
        }
    }
    let strip_result = strip_result.and_then(|()| strip.finish());

    let mut buf = vec![0u8; stream_buffer_len(max)];
    let mut prose = ProseStream::new("insight", max, &LiteralSet::DEFAULT, &mut buf).unwrap();
    let mut fed = Ok(());
    for p in &pieces {
        fed = prose.feed(p);
        if fed.is_err() {
            break;
        }
    }
    let streamed = match fed {
        Ok(()) => prose
            .finish()
            .map(|p| p.text.to_string())
            .map_err(|e| e.to_string()),
        Err(e) => Err(e.to_string()),
    };

    match validate(input) {
        Ok(text) => {
            strip_result.unwrap();
            assert_eq!(stripped, strip_invisibles(text).collect::<String>());
            let mut out = vec![0u8; worst_case_len(text.len(), max)];
            let one_shot = sanitize_prose(text, "insight", max, &mut out)
                .map(|p| p.text.to_string())
                .map_err(|e| e.to_string());
            assert_eq!(streamed, one_shot);
        }
        Err(e) => {
            assert_eq!(strip_result.unwrap_err().offset(), e.offset());
            assert_eq!(streamed, Err(e.to_string()));
        }
    }
});
