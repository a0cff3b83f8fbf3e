//! `strict::cut_into`, the strict cut on its own, is the text part of strict sanitize's
//! truncated output: the same bytes at every cap, for text that needs no other change.
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use airlock_core::{LiteralSet, Profile, strict};

#[test]
fn cut_into_is_strict_sanitizes_cut() {
    let texts = [
        "plain words, caf\u{e9} \u{2014} \u{65E5}\u{672C}",
        "\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467} and \u{1F469}\u{1F3FB}\u{200D}\u{2764}\u{FE0F}\u{200D}\u{1F48B}\u{200D}\u{1F468}\u{1F3FC}",
        "\u{628}\u{64E}\u{651}\u{200C}\u{64E}\u{651}\u{627} \u{645}\u{6CC}\u{200C}\u{62E}\u{648}\u{627}\u{647}\u{645}",
        "\u{915}\u{94D}\u{200D}\u{937} 1\u{FE0F}\u{20E3} \u{1F3F4}\u{E0067}\u{E0062}\u{E0065}\u{E006E}\u{E0067}\u{E007F}",
    ];
    for text in texts {
        let whole = Profile::Strict
            .strip_into(text, &mut vec![0; text.len()])
            .unwrap()
            .to_owned();
        assert_eq!(whole, text, "the samples need no other change");
        for max in 0..=text.len() {
            let mut out = vec![0; max];
            let cut = strict::cut_into(text, max, &mut out).unwrap().to_owned();
            let mut buf = vec![0; Profile::Strict.worst_case_len(text.len(), max)];
            let prose = Profile::Strict
                .sanitize_prose_with(text, "t", max, &LiteralSet::EMPTY, &mut buf)
                .unwrap();
            let expected = if prose.truncated {
                prose
                    .text
                    .split(" [\u{2026}truncated")
                    .next()
                    .unwrap()
                    .to_owned()
            } else {
                prose.text.to_owned()
            };
            assert_eq!(cut, expected, "{text:?} at {max}");
            assert_eq!(strict::first_dropped(&cut), None, "{cut:?}");
            assert!(cut.len() <= max);
        }
    }
    // Too small a buffer is an error, not a shorter cut.
    assert!(strict::cut_into("abcdef", 4, &mut [0; 3]).is_err());
}
