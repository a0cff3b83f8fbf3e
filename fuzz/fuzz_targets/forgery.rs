//! The forgery check against a plain lower-case search, with the default and a fuzzed set.
#![no_main]

use airlock_core::{LiteralSet, WRAPPER_FORGERY_LITERALS, find_forgery};
use libfuzzer_sys::fuzz_target;

fn plain<'a>(text: &str, literals: &[&'a str]) -> Option<&'a str> {
    let hay = text.to_ascii_lowercase();
    literals
        .iter()
        .copied()
        .find(|l| hay.contains(&l.to_ascii_lowercase()))
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    assert_eq!(
        find_forgery(text, &LiteralSet::DEFAULT),
        plain(text, &WRAPPER_FORGERY_LITERALS)
    );
    // The text's own first words as a custom set: exercises self-overlapping literals.
    let custom: Vec<&str> = text
        .split(' ')
        .filter(|w| !w.is_empty() && w.len() <= 64)
        .take(8)
        .collect();
    if let Ok(set) = LiteralSet::new(&custom) {
        let tail = text.get(text.len() / 2..).unwrap_or("");
        assert_eq!(find_forgery(tail, &set), plain(tail, &custom));
    }
});
