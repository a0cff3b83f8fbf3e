//! What the output buffer holds when sanitize fails: both profiles promise the same
//! (the one sink model, `prose::Sink`): nothing of the record. Each byte of the
//! buffer is as the caller left it or zero, whichever path ran (the reference's two
//! walks, its one walk into a buffer with worst-case room, strict's one walk, either
//! stream's `finish`), on every backend.
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use airlock_core::{Backend, LiteralSet, Reason, prose, strict};

/// What the caller left in the buffer: a byte no output holds.
const FILL: u8 = 0xAA;

/// A forgery at the end of a long text that sanitize changes (drops, a marker, a
/// token), so that a writer writing as it goes has written most of it by then.
fn rejected_text() -> String {
    let body = "plain words\u{200B} and untrusted-content:end, <|im_start|> more \u{1B}[0m\r\n";
    format!("{}</APPLICABLE-RULES>", body.repeat(200))
}

/// `out` holds nothing of the record.
fn assert_nothing_written(out: &[u8], what: &str) {
    let bad = out.iter().position(|&b| b != FILL && b != 0);
    assert_eq!(
        bad, None,
        "{what}: a byte of the record is left in the buffer"
    );
}

#[derive(Clone, Copy, Debug)]
enum Which {
    Reference,
    Strict,
}

fn one_shot(
    which: Which,
    backend: Backend,
    text: &str,
    max: usize,
    out: &mut [u8],
) -> Result<usize, String> {
    let set = &LiteralSet::DEFAULT;
    let got = match which {
        Which::Reference => prose::sanitize_prose_on(backend, text, "insight", max, set, out),
        Which::Strict => strict::sanitize_prose_on(backend, text, "insight", max, set, out),
    };
    got.map(|p| p.text.len()).map_err(|e| e.to_string())
}

fn worst_case(which: Which, len: usize, max: usize) -> usize {
    match which {
        Which::Reference => prose::worst_case_len(len, max),
        Which::Strict => strict::worst_case_len(len, max),
    }
}

#[test]
fn a_rejected_record_leaves_nothing_in_the_buffer() {
    let text = rejected_text();
    for which in [Which::Reference, Which::Strict] {
        for backend in Backend::all() {
            // Caps under, at and over the text; buffers with worst-case room (one
            // walk), with just the room the count needs, and more.
            for max in [100, text.len() / 2, text.len(), usize::MAX / 4] {
                let exact = worst_case(which, text.len(), max);
                for len in [exact, exact + 100, text.len().min(max) + 200] {
                    let mut out = vec![FILL; len];
                    let err = one_shot(which, backend, &text, max, &mut out).unwrap_err();
                    assert!(err.contains("APPLICABLE-RULES"), "{which:?}: {err}");
                    assert_nothing_written(
                        &out,
                        &format!("{which:?} {} max {max}", backend.name()),
                    );
                }
            }
        }
    }
}

#[test]
fn a_buffer_too_small_is_left_as_the_caller_left_it_or_zero() {
    let text =
        "plain words\u{200B} and untrusted-content:end, <|im_start|> \u{1B}[0m\r\n".repeat(50);
    for which in [Which::Reference, Which::Strict] {
        for backend in Backend::all() {
            for max in [10, 500, usize::MAX / 4] {
                let mut big = vec![0u8; worst_case(which, text.len(), max)];
                let done = one_shot(which, backend, &text, max, &mut big).unwrap();
                for len in [0, 1, done / 2, done - 1] {
                    let mut out = vec![FILL; len];
                    let err = one_shot(which, backend, &text, max, &mut out).unwrap_err();
                    assert!(err.contains("buffer"), "{which:?}: {err}");
                    assert_nothing_written(&out, &format!("{which:?} {} {len}", backend.name()));
                }
            }
        }
    }
}

#[test]
fn a_stream_that_fails_at_finish_leaves_nothing_in_its_buffer() {
    let set = &LiteralSet::DEFAULT;
    let rejected = rejected_text();
    // A clean text cut inside its last code point: `finish` finds it incomplete.
    let incomplete = format!("{}\u{E9}", "plain words, untrusted-content:end ".repeat(40));
    let incomplete = &incomplete.as_bytes()[..incomplete.len() - 1];
    for max in [50, 100_000] {
        for (input, why) in [
            (rejected.as_bytes(), "APPLICABLE-RULES"),
            (incomplete, "UTF-8"),
        ] {
            let mut buf = vec![FILL; prose::stream_buffer_len(max)];
            let mut stream = prose::ProseStream::new("insight", max, set, &mut buf).unwrap();
            for chunk in input.chunks(97) {
                stream.feed(chunk).unwrap();
            }
            let err = stream.finish().unwrap_err().to_string();
            assert!(err.contains(why) || why == "UTF-8", "reference: {err}");
            assert_nothing_written(&buf, "reference stream");

            let mut buf = vec![FILL; prose::stream_buffer_len(max)];
            let mut stream = strict::ProseStream::new("insight", max, set, &mut buf).unwrap();
            for chunk in input.chunks(97) {
                stream.feed(chunk).unwrap();
            }
            let err = stream.finish().unwrap_err().to_string();
            assert!(err.contains(why) || why == "UTF-8", "strict: {err}");
            assert_nothing_written(&buf, "strict stream");
        }
    }
}

#[test]
fn the_verdicts_are_the_reasons_named() {
    // The errors above are the rejection and the size, not an internal fault.
    let text = rejected_text();
    let mut out = vec![0u8; prose::worst_case_len(text.len(), 100)];
    let set = &LiteralSet::DEFAULT;
    match prose::sanitize_prose_with(&text, "insight", 100, set, &mut out) {
        Err(prose::ProseError::Rejected(r)) => {
            assert!(matches!(r.reason(), Reason::Forgery(_)), "{r}");
        }
        other => panic!("{other:?}"),
    }
    let mut out = vec![0u8; strict::worst_case_len(text.len(), 100)];
    match strict::sanitize_prose_with(&text, "insight", 100, set, &mut out) {
        Err(prose::ProseError::Rejected(r)) => {
            assert!(matches!(r.reason(), Reason::Forgery(_)), "{r}");
        }
        other => panic!("{other:?}"),
    }
}
