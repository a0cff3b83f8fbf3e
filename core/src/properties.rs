//! Property tests: the invariants of every operation, and each fast form against a
//! plainly written version of the same rule.

use std::string::{String, ToString};
use std::vec::Vec;
use std::{format, vec};

use proptest::prelude::*;

use crate::Backend;
use crate::class::{is_control, is_dangerous_invisible};
use crate::forgery::{ENVELOPE_MARKERS, LiteralSet, WRAPPER_FORGERY_LITERALS};
use crate::prose::{
    ProseStream, sanitize_prose, sanitize_prose_on, stream_buffer_len, worst_case_len,
};
use crate::strip::{StripStream, strip_into_on, strip_invisibles, strip_invisibles_on};
use crate::{fence_token, truncate_to_bytes};

/// Fragments that exercise every rule: literals and markers whole and cut, invisibles,
/// controls, selectors next to emoji and not, multi-byte text.
fn fragment() -> impl Strategy<Value = String> {
    let pieces: Vec<&'static str> = vec![
        "a",
        "b",
        "U",
        "u",
        " ",
        "\n",
        "\t",
        "\r",
        "-",
        ":",
        "<",
        "/",
        "#",
        "(",
        "é",
        "€",
        "—",
        "😀",
        "❤",
        "©",
        "\u{FE0F}",
        "\u{FE0E}",
        "\u{200B}",
        "\u{200D}",
        "\u{202E}",
        "\u{2066}",
        "\u{AD}",
        "\u{FEFF}",
        "\u{E0041}",
        "\u{E0100}",
        "\u{1B}",
        "\u{0}",
        "\u{7F}",
        "\u{85}",
        "\u{9F}",
        "\u{200E}",
        "\u{A0}",
        "\u{2028}",
        "untrusted-content",
        "UNTRUSTED-CONTENT",
        "untrusted-content:",
        "start",
        "end",
        "END",
        "</APPLICABLE-RULES",
        "</applicable-rules>",
        "## Applicable Rules (scoped",
        "</LEARNINGS-INDEX>",
        "## Learnings Index (selected",
        "## Learnings",
        "\u{1F3F4}",
    ];
    prop_oneof![
        4 => proptest::sample::select(pieces).prop_map(str::to_string),
        1 => any::<char>().prop_map(|c| c.to_string()),
    ]
}

fn text() -> impl Strategy<Value = String> {
    proptest::collection::vec(fragment(), 0..60).prop_map(|v| v.concat())
}

fn sanitize(backend: Backend, text: &str, max: usize) -> Result<String, &'static str> {
    let mut out = vec![0u8; worst_case_len(text.len(), max)];
    match sanitize_prose_on(
        backend,
        text,
        "insight",
        max,
        &LiteralSet::DEFAULT,
        &mut out,
    ) {
        Ok(p) => Ok(p.text.to_string()),
        Err(crate::ProseError::Rejected(r)) => match r.reason() {
            crate::Reason::Forgery(lit) => Err(WRAPPER_FORGERY_LITERALS
                .into_iter()
                .find(|l| *l == lit)
                .unwrap()),
            other => panic!("unexpected rejection {other:?}"),
        },
        Err(e) => panic!("{e}"),
    }
}

fn chunk_sizes() -> impl Strategy<Value = Vec<usize>> {
    proptest::collection::vec(1usize..17, 1..8)
}

fn chunks<'a>(bytes: &'a [u8], sizes: &[usize]) -> Vec<&'a [u8]> {
    let mut out = Vec::new();
    let mut at = 0;
    let mut i = 0;
    while at < bytes.len() {
        let n = sizes[i % sizes.len()].min(bytes.len() - at);
        out.push(&bytes[at..at + n]);
        at += n;
        i += 1;
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn sanitize_equals_plain_pipeline(t in text(), max in 0usize..300) {
        let plain = crate::plain::sanitize(&t, max, &WRAPPER_FORGERY_LITERALS);
        for backend in Backend::all() {
            prop_assert_eq!(sanitize(backend, &t, max), plain.clone(), "{}", backend.name());
        }
    }

    #[test]
    fn sanitized_prose_is_clean_and_capped(t in text(), max in 0usize..300) {
        if let Ok(out) = sanitize(Backend::best(), &t, max) {
            let body_len = match out.find(" […truncated by the reconciliation engine: ") {
                Some(at) => at,
                None => out.len(),
            };
            prop_assert!(body_len <= max);
            prop_assert!(out.len() <= worst_case_len(t.len(), max));
            for c in out.chars() {
                prop_assert!(!is_dangerous_invisible(c), "{:?}", c);
                prop_assert!(!is_control(c) || c == '\t' || c == '\n', "{:?}", c);
            }
            let lower = out.to_ascii_lowercase();
            for m in ENVELOPE_MARKERS {
                prop_assert!(!lower.contains(m));
            }
        }
    }

    #[test]
    fn truncation_is_a_code_point_prefix(t in text(), max in 0usize..400) {
        let cut = truncate_to_bytes(&t, max);
        prop_assert!(t.starts_with(cut.text));
        prop_assert!(cut.text.len() <= max);
        prop_assert_eq!(cut.truncated, cut.text.len() < t.len());
        prop_assert_eq!(cut.bytes, t.len());
        if cut.truncated {
            let next = t[cut.text.len()..].chars().next().unwrap();
            prop_assert!(cut.text.len() + next.len_utf8() > max);
        }
    }

    #[test]
    fn strip_equals_plain_walk_and_is_idempotent(t in text()) {
        let plain = crate::plain::strip(&t);
        for backend in Backend::all() {
            let once = strip_invisibles_on(backend, &t).to_string();
            prop_assert_eq!(&once, &plain, "{}", backend.name());
            prop_assert_eq!(strip_invisibles_on(backend, &once).to_string(), once.clone());
            let mut buf = vec![0u8; t.len()];
            prop_assert_eq!(strip_into_on(backend, &t, &mut buf).unwrap(), once.as_str());
        }
    }

    #[test]
    fn fence_token_is_absent_from_its_payload(t in text()) {
        let token = fence_token(t.as_bytes());
        prop_assert!(!t.contains(token.as_str()));
    }

    #[test]
    fn fence_token_is_absent_even_when_planted(t in text(), at in 0usize..60) {
        // Plant the first token the payload would get into the payload itself.
        let first = fence_token(t.as_bytes()).to_string();
        let cut = crate::truncate::floor_char_boundary(&t, at.min(t.len()));
        let planted = format!("{}{first}{}", &t[..cut], &t[cut..]);
        let token = fence_token(planted.as_bytes());
        prop_assert!(!planted.contains(token.as_str()));
    }

    #[test]
    fn strip_stream_equals_one_shot(t in text(), sizes in chunk_sizes()) {
        let mut stream = StripStream::new();
        let mut out = String::new();
        for chunk in chunks(t.as_bytes(), &sizes) {
            stream.feed(chunk, |run| out.push_str(run)).unwrap();
        }
        stream.finish().unwrap();
        prop_assert_eq!(out, strip_invisibles(&t).to_string());
    }

    #[test]
    fn prose_stream_equals_one_shot(t in text(), max in 0usize..300, sizes in chunk_sizes()) {
        let mut out = vec![0u8; worst_case_len(t.len(), max)];
        let one_shot = sanitize_prose(&t, "insight", max, &mut out)
            .map(|p| p.text.to_string())
            .map_err(|e| e.to_string());
        for backend in Backend::all() {
            let mut buf = vec![0u8; stream_buffer_len(max)];
            let mut stream =
                ProseStream::new_on(backend, "insight", max, &LiteralSet::DEFAULT, &mut buf).unwrap();
            for chunk in chunks(t.as_bytes(), &sizes) {
                stream.feed(chunk).unwrap();
            }
            let streamed = stream.finish().map(|p| p.text.to_string()).map_err(|e| e.to_string());
            prop_assert_eq!(streamed, one_shot.clone(), "{}", backend.name());
        }
    }
}

/// Every code point, on every backend: alone between ASCII letters, and packed
/// together (neighbours of every kind, dense enough for the block paths), through
/// strip and sanitize, against the plain oracle.
#[test]
fn every_code_point_on_every_backend() {
    let mut spaced = String::new();
    let mut packed = String::new();
    for c in '\0'..=char::MAX {
        spaced.push('a');
        spaced.push(c);
        packed.push(c);
    }
    // Pieces of a few thousand code points, so one bug names a small region.
    let pieces = |text: &String| -> Vec<String> {
        let chars: Vec<char> = text.chars().collect();
        chars.chunks(4096).map(|c| c.iter().collect()).collect()
    };
    for text in [pieces(&spaced), pieces(&packed)] {
        for piece in &text {
            let strip = crate::plain::strip(piece);
            let prose =
                crate::plain::sanitize(piece, usize::MAX / 2, &WRAPPER_FORGERY_LITERALS).unwrap();
            for backend in Backend::all() {
                let mut out = vec![0u8; piece.len()];
                let got = strip_into_on(backend, piece, &mut out).unwrap();
                assert!(
                    got == strip,
                    "strip on {} near {:?}",
                    backend.name(),
                    piece.chars().next()
                );
                let got = sanitize(backend, piece, usize::MAX / 2).unwrap();
                assert!(
                    got == prose,
                    "sanitize on {} near {:?}",
                    backend.name(),
                    piece.chars().next()
                );
            }
        }
    }
}
