//! truncate: a prefix on a code-point boundary, the longest that fits.
#![no_main]

use airlock_core::truncate_to_bytes;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&cap, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let max = usize::from(cap);
    let t = truncate_to_bytes(text, max);
    assert!(text.starts_with(t.text));
    assert!(t.text.len() <= max);
    assert_eq!(t.bytes, text.len());
    assert_eq!(t.truncated, t.text.len() < text.len());
    if let Some(next) = text[t.text.len()..].chars().next() {
        assert!(
            t.text.len() + next.len_utf8() > max,
            "not the longest prefix"
        );
    }
});
