//! strip: no table member or orphan selector survives, idempotent, buffer form equal.
#![no_main]

use airlock_core::{is_dangerous_invisible, strip_into, strip_invisibles};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let once: String = strip_invisibles(text).collect();
    assert!(once.len() <= text.len());
    assert!(!once.chars().any(is_dangerous_invisible));
    let twice: String = strip_invisibles(&once).collect();
    assert_eq!(once, twice, "strip is not idempotent");
    let mut buf = vec![0u8; text.len()];
    assert_eq!(strip_into(text, &mut buf).ok(), Some(once.as_str()));
    // Every kept code point is kept in order: the output is a subsequence.
    let mut rest = text.chars();
    for c in once.chars() {
        assert!(rest.any(|d| d == c));
    }
});
