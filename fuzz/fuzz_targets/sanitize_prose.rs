//! sanitize_prose with random caps: clean output, within cap + note, never a panic.
#![no_main]

use airlock_core::{
    ProseError, is_control, is_dangerous_invisible, sanitize_prose, worst_case_len,
};
use libfuzzer_sys::fuzz_target;

const NOTE_START: &str = " […truncated by the reconciliation engine: ";

fuzz_target!(|data: &[u8]| {
    let Some((&cap, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let max = usize::from(cap) * 3;
    let mut out = vec![0u8; worst_case_len(text.len(), max)];
    match sanitize_prose(text, "insight", max, &mut out) {
        Ok(prose) => {
            let body = match prose.text.find(NOTE_START) {
                Some(at) if prose.truncated => &prose.text[..at],
                _ => prose.text,
            };
            assert!(body.len() <= max, "body over cap");
            assert_eq!(prose.truncated, prose.original_bytes > max);
            for c in prose.text.chars() {
                assert!(!is_dangerous_invisible(c), "table member survived: {c:?}");
                assert!(
                    !is_control(c) || c == '\t' || c == '\n',
                    "control survived: {c:?}"
                );
            }
            let lower = prose.text.to_ascii_lowercase();
            assert!(!lower.contains("untrusted-content:start"));
            assert!(!lower.contains("untrusted-content:end"));
        }
        Err(ProseError::Rejected(r)) => {
            assert!(
                r.to_string()
                    .starts_with("reconcile-sanitize: rejecting record — insight ")
            );
        }
        Err(ProseError::BufferTooSmall(b)) => panic!("worst_case_len too small: {b}"),
    }
    // A buffer one byte short of the result is refused, and nothing is written to it.
    let mut exact = vec![0u8; worst_case_len(text.len(), max)];
    if let Ok(p) = sanitize_prose(text, "insight", max, &mut exact)
        && !p.text.is_empty()
    {
        let mut short = vec![0xAAu8; p.text.len() - 1];
        let result = sanitize_prose(text, "insight", max, &mut short);
        assert!(matches!(result, Err(ProseError::BufferTooSmall(_))));
        assert!(short.iter().all(|&b| b == 0xAA), "written on failure");
    }
});
