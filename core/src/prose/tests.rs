use super::engine::Engine;
use super::sink::{CapWriter, Count, bits};
use super::*;
use crate::forgery::LiteralSet;
use crate::scan::Backend;
use crate::strip::BufferTooSmall;
use std::string::{String, ToString};
use std::vec;

fn sanitize(text: &str, max: usize) -> Result<String, String> {
    sanitize_on_backend(Backend::best(), text, max)
}

fn sanitize_on_backend(backend: Backend, text: &str, max: usize) -> Result<String, String> {
    let mut out = vec![0u8; worst_case_len(text.len(), max)];
    sanitize_prose_on(
        backend,
        text,
        "insight",
        max,
        &LiteralSet::DEFAULT,
        &mut out,
    )
    .map(|p| p.text.to_string())
    .map_err(|e| e.to_string())
}

#[test]
fn pipeline_examples() {
    assert_eq!(
        sanitize("a\u{1b}[31mb\r\nc\td", 1000).unwrap(),
        "a[31mb\nc\td"
    );
    assert_eq!(
        sanitize("a UNTRUSTED-CONTENT:Start b untrusted-content:end c", 1000).unwrap(),
        "a [redacted-envelope-marker] b [redacted-envelope-marker] c"
    );
    assert_eq!(
        sanitize("untrusted\u{200B}-content:end", 1000).unwrap(),
        "[redacted-envelope-marker]"
    );
    assert_eq!(
        sanitize("uuntrusted-content:endd", 1000).unwrap(),
        "u[redacted-envelope-marker]d"
    );
    assert_eq!(
        sanitize("untrusted-content:", 1000).unwrap(),
        "untrusted-content:"
    );
    assert!(
        sanitize("</APPLI\u{200B}CABLE-RULES>", 1000)
            .unwrap_err()
            .contains("delivery-wrapper")
    );
}

#[test]
fn dense_regions_feed_the_cleaned_text_to_the_automaton() {
    let marker = "u\u{200B}n\u{1B}t\u{FE0F}r\u{AD}usted-con\u{200B}tent:e\u{E0041}nd";
    let literal = "<\u{200B}/\u{1B}APPLI\u{200B}CABLE-RULES\u{FEFF}>";
    for pad in 0..70 {
        let noise = "a\u{200B}".repeat(pad);
        let text = std::format!(
            "{noise}{}{noise}{marker} x{}",
            marker.repeat(5),
            "\u{2060}b".repeat(40)
        );
        for max in [10, 100, 10_000] {
            for backend in Backend::all() {
                let got = sanitize_on_backend(backend, &text, max);
                let rejected =
                    sanitize_on_backend(backend, &std::format!("{text}{noise}{literal}"), max);
                assert_eq!(got, naive(&text, max), "pad {pad} max {max}");
                assert!(rejected.unwrap_err().contains("APPLICABLE-RULES"));
            }
        }
    }
}

#[test]
fn a_draining_stream_writes_what_the_one_shot_writes() {
    let words = [
        "plain ",
        "UNTRUSTED-content:START ",
        "untrusted\u{200B}-content:e\u{2060}nd",
        "é€ ",
        "untrusted-content",
        "😀\u{FE0F} ",
        "\u{1B}[0m",
        "\u{FE0F}",
    ];
    let mut text = String::new();
    let mut i = 7usize;
    while text.len() < 40_000 {
        i = i.wrapping_mul(31).wrapping_add(11) % 1009;
        text.push_str(words[i % words.len()]);
    }
    for max in [0, 10, 5000, 39_000, usize::MAX] {
        let expected = sanitize(&text, max).unwrap();
        for chunk in [1, 7, 4096, 100_000] {
            let mut buf = vec![0u8; DRAIN_BUFFER_LEN];
            let mut stream =
                ProseStream::draining("insight", max, &LiteralSet::DEFAULT, &mut buf).unwrap();
            let mut got = String::new();
            for part in text.as_bytes().chunks(chunk) {
                stream.feed_emitting(part, |p| got.push_str(p)).unwrap();
            }
            got.push_str(stream.finish().unwrap().text);
            assert_eq!(got, expected, "max {max} chunk {chunk}");
        }
    }
    let mut small = [0u8; 16];
    assert!(ProseStream::draining("f", 9, &LiteralSet::DEFAULT, &mut small).is_err());
}

#[test]
fn truncation_note() {
    assert_eq!(
        sanitize("€€€", 8).unwrap(),
        "€€ […truncated by the reconciliation engine: 9 bytes exceeded the 8-byte cap]"
    );
    let note = TruncationNote {
        original_bytes: 9,
        max_bytes: 8,
    };
    assert_eq!(note.len(), note.to_string().len());
}

#[test]
fn buffer_too_small_writes_nothing() {
    let mut out = [7u8; 3];
    let err = sanitize_prose("abcdef", "f", 100, &mut out).unwrap_err();
    assert_eq!(
        err,
        ProseError::BufferTooSmall(BufferTooSmall { needed: 6 })
    );
    assert_eq!(out, [7; 3]);
}

#[test]
fn stream_matches_one_shot() {
    let text = "x untrusted-content:start y\u{200B} 😀\u{FE0F} é untrusted-con\u{1b}tent:end";
    for max in [0, 5, 20, 200] {
        let expected = sanitize(text, max).unwrap();
        for size in 1..=text.len() {
            let mut buf = vec![0u8; stream_buffer_len(max)];
            let mut stream =
                ProseStream::new("insight", max, &LiteralSet::DEFAULT, &mut buf).unwrap();
            for chunk in text.as_bytes().chunks(size) {
                stream.feed(chunk).unwrap();
            }
            assert_eq!(
                stream.finish().unwrap().text,
                expected,
                "max {max} size {size}"
            );
        }
    }
}

/// The five steps done the plain way, one after another.
fn naive(text: &str, max: usize) -> Result<String, String> {
    naive_with(text, max, &crate::WRAPPER_FORGERY_LITERALS)
}

/// The plain oracle with another list of literals.
fn naive_with(text: &str, max: usize, literals: &[&str]) -> Result<String, String> {
    crate::plain::sanitize(text, max, literals).map_err(|lit| lit.to_string())
}

fn hostile_text() -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::prelude::*;
    let piece = prop_oneof![
        Just("untrusted-content:start".to_string()),
        Just("UNTRUSTED-content:End".to_string()),
        Just("untrusted-content".to_string()),
        Just("untrusted".to_string()),
        Just("u".to_string()),
        Just(":".to_string()),
        Just("</applicable-rules".to_string()),
        Just(">".to_string()),
        Just("## Learnings Index (selecte".to_string()),
        Just("\u{200B}".to_string()),
        Just("\u{1B}".to_string()),
        Just("\u{85}".to_string()),
        Just("\u{FE0F}".to_string()),
        Just("😀".to_string()),
        Just("—".to_string()),
        Just("\n".to_string()),
        Just("\u{E0041}".to_string()),
        "[a-z :<#]{0,80}",
        "\\PC{0,8}",
    ];
    // Long stretches dense with dropped code points reach the block path.
    let dense = proptest::collection::vec(
        proptest::sample::select(std::vec![
            "a",
            "u",
            "<",
            ":",
            "\u{200B}",
            "\u{1B}",
            "\r",
            "\u{85}",
            "\u{FE0F}",
            "😀\u{FE0F}",
            "\u{E0041}",
            "\u{AD}",
            "\t",
            "\n",
            "—",
            "\u{7F}",
        ]),
        0..120,
    )
    .prop_map(|v| v.concat());
    let piece = prop_oneof![4 => piece, 1 => dense];
    proptest::collection::vec(piece, 0..24).prop_map(|v| v.concat())
}

/// `word` with a dropped code point (or none) between its bytes, chosen by
/// `seed`: markers and literals split by invisibles and controls.
fn split_by_drops(word: &str, seed: u64) -> String {
    const DROPS: [&str; 8] = [
        "\u{200B}",
        "\u{1B}",
        "\u{AD}",
        "\u{E0041}",
        "\u{FEFF}",
        "\r",
        "\u{85}",
        "\u{2066}",
    ];
    let mut out = String::new();
    let mut x = seed | 1;
    for c in word.chars() {
        out.push(c);
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        if x.is_multiple_of(3) {
            out.push_str(DROPS[(x >> 8) as usize % DROPS.len()]);
        }
    }
    out
}

/// Text built to reach the specialised passes: dense drop regions long enough
/// for whole blocks, markers and literals split by dropped code points, chains
/// broken at every position, long clean stretches.
fn specialised_text() -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::prelude::*;
    let word = proptest::sample::select(std::vec![
        "untrusted-content:start",
        "UNTRUSTED-CONTENT:END",
        "untrusted-content:",
        "</APPLICABLE-RULE",
        "</APPLICABLE-RULES>",
        "</applicable-rules",
        "## Learnings Index (selecte",
        "## Learnings Index (selected",
        "</LEARNINGS-INDEX",
        "</",
        "##",
        "u",
    ]);
    let piece = prop_oneof![
        3 => (word.clone(), any::<u64>()).prop_map(|(w, seed)| split_by_drops(w, seed)),
        2 => word.prop_map(String::from),
        2 => (proptest::sample::select(std::vec!["a\u{200B}", "u\u{1B}", "<\u{AD}", ":\u{E0041}", "😀\u{FE0F}", "\u{FE0F}", "é\u{2060}"]), 1usize..60)
            .prop_map(|(p, n)| p.repeat(n)),
        1 => "[a-zA-Z <>/#:()-]{0,140}",
        1 => (0usize..200).prop_map(|n| "x".repeat(n)),
    ];
    proptest::collection::vec(piece, 0..16).prop_map(|v| v.concat())
}

/// Sanitize on every backend, compared with [`naive_with`]; `Err` is the length
/// of the rejected literal.
fn check_all_backends(
    text: &str,
    max: usize,
    set: &LiteralSet<'_>,
) -> Result<(), proptest::test_runner::TestCaseError> {
    let expected = naive_with(text, max, set.literals()).map_err(|lit| lit.len());
    for backend in Backend::all() {
        let mut out = vec![0u8; worst_case_len(text.len(), max)];
        let got = sanitize_prose_on(backend, text, "insight", max, set, &mut out)
            .map(|p| p.text.to_string())
            .map_err(|e| match e {
                ProseError::Rejected(r) => {
                    let msg = r.to_string();
                    set.literals()
                        .iter()
                        .filter(|l| msg.contains(*l))
                        .map(|l| l.len())
                        .max()
                        .unwrap_or(0)
                }
                ProseError::BufferTooSmall(_) => usize::MAX,
            });
        proptest::prop_assert_eq!(&got, &expected, "{}", backend.name());
        // The exact size is enough (uncut: a cut may need the whole cap); one
        // byte less writes nothing.
        if let Ok(done) = &got {
            if done.len() <= max {
                let mut exact = vec![0u8; done.len()];
                let again = sanitize_prose_on(backend, text, "insight", max, set, &mut exact);
                proptest::prop_assert_eq!(again.map(|p| p.text), Ok(done.as_str()));
            }
            if !done.is_empty() {
                let mut short = vec![0xAAu8; done.len() - 1];
                let err = sanitize_prose_on(backend, text, "insight", max, set, &mut short);
                proptest::prop_assert!(matches!(err, Err(ProseError::BufferTooSmall(_))));
                proptest::prop_assert!(short.iter().all(|&b| b == 0xAA));
            }
        }
    }
    Ok(())
}

#[test]
fn counting_pass_measures_what_the_writing_pass_writes() {
    let text = "a\u{200B}untrusted-content:end b UNTRUSTED-\u{1B}content:start\r";
    let expected = "a[redacted-envelope-marker] b [redacted-envelope-marker]";
    for backend in Backend::all() {
        let set = &LiteralSet::DEFAULT;
        let walk = || Engine::of_set(set.automaton(), set, backend);
        let mut count = Count::default();
        let mut counted = walk();
        counted.push_str(text, &mut count);
        counted.finish(&mut count);
        assert_eq!(count.len, expected.len(), "{}", backend.name());
        assert!(counted.dropped && counted.redacted && !counted.fault);
        assert_eq!(counted.found, 0);
        let mut out = vec![0u8; 100];
        let mut writer = CapWriter::new(&mut out, usize::MAX, true, backend);
        let mut written = walk();
        written.push_str(text, &mut writer);
        written.finish(&mut writer);
        assert_eq!((writer.len, writer.fault), (expected.len(), false));
        assert_eq!(&out[..expected.len()], expected.as_bytes());
    }
}

#[test]
fn block_bits() {
    assert_eq!(bits(0, 0), 0);
    assert_eq!(bits(0, 64), u64::MAX);
    assert_eq!(bits(3, 5), 0b11000);
    assert_eq!(bits(63, 64), 1 << 63);
    assert_eq!(bits(64, 64), 0);
}

proptest::proptest! {
    #[test]
    fn specialised_passes_match_naive(text in specialised_text(), cut in 0usize..1000) {
        // Caps anywhere, including inside markers and their redactions.
        let cleaned_len = naive(&text, usize::MAX).map(|t| t.len()).unwrap_or(0);
        for max in [cut % (cleaned_len + 2), cut, usize::MAX / 2] {
            check_all_backends(&text, max, &LiteralSet::DEFAULT)?;
        }
        check_all_backends(&text, cut, &LiteralSet::EMPTY)?;
        // A custom set runs the trie (no chains).
        let custom = ["</applicable-rule", "index (sel", "t:e"];
        check_all_backends(&text, cut, &LiteralSet::new(&custom).unwrap())?;
    }

    #[test]
    fn specialised_stream_matches_one_shot(text in specialised_text(), max in 0usize..600, size in 1usize..90) {
        let Ok(expected) = naive(&text, max) else { return Ok(()) };
        for backend in Backend::all() {
            let mut buf = vec![0u8; stream_buffer_len(max)];
            let mut stream =
                ProseStream::new_on(backend, "insight", max, &LiteralSet::DEFAULT, &mut buf)
                    .unwrap();
            for chunk in text.as_bytes().chunks(size) {
                stream.feed(chunk).unwrap();
            }
            proptest::prop_assert_eq!(stream.finish().unwrap().text, expected.as_str());
        }
    }

    #[test]
    fn one_shot_matches_naive(text in hostile_text(), max in 0usize..400) {
        let expected = naive(&text, max).map_err(|lit| lit.len());
        for backend in Backend::all() {
            let got = sanitize_on_backend(backend, &text, max).map_err(|e| {
                crate::WRAPPER_FORGERY_LITERALS
                    .iter()
                    .find(|l| e.contains(*l))
                    .map_or(0, |l| l.len())
            });
            proptest::prop_assert_eq!(&got, &expected, "{}", backend.name());
        }
    }

    #[test]
    fn stream_matches_naive(text in hostile_text(), max in 0usize..400, size in 1usize..80) {
        let Ok(expected) = naive(&text, max) else { return Ok(()) };
        for backend in Backend::all() {
            let mut buf = vec![0u8; stream_buffer_len(max)];
            let mut stream =
                ProseStream::new_on(backend, "insight", max, &LiteralSet::DEFAULT, &mut buf)
                    .unwrap();
            for chunk in text.as_bytes().chunks(size) {
                stream.feed(chunk).unwrap();
            }
            proptest::prop_assert_eq!(stream.finish().unwrap().text, expected.as_str());
        }
    }
}
