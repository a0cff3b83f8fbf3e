//! The strict profile on every backend: strict strip and strict sanitize on each
//! backend the CPU runs (`Backend::all`) equal the portable backend's result; sanitize
//! streamed at fuzzed split points equals one-shot; an `Ok` sanitize is contained (no
//! member of D outside its keep contexts, no folded forgery literal) and a fixed point.
//! The lead refinements (`keep::DROP_FINDER`, the matcher's `MAY_STOP`) decide which
//! bytes strict looks at, on every backend (the portable one confirms its candidates
//! with the same tables). So the containment checks here do not lean on them: strict
//! fed in pieces under 64 bytes never runs a block scan (short pieces are scanned byte
//! by byte at every lead byte), no member of D that no rule can keep may survive, and
//! the folded view is rebuilt here from `strict::fold_of`, one code point at a time.
#![no_main]

use airlock_core::prose::stream_buffer_len;
use airlock_core::strict::{
    ProseStream, SPECIAL_TOKENS, StripStream, find_forgery, first_dropped, fold_of, in_drop_set,
    sanitize_prose_on, sanitize_prose_with, strip_into_on, worst_case_len,
};
use airlock_core::{Backend, LiteralSet, ProseError, Reason, WRAPPER_FORGERY_LITERALS};
use libfuzzer_sys::fuzz_target;

/// Chunk sizes around the block scans' edges (64-byte blocks, 2 bytes of look-ahead)
/// and small ones that split code points.
const SIZES: [usize; 12] = [1, 2, 3, 5, 7, 13, 31, 62, 63, 64, 65, 130];

/// `bytes` cut into pieces whose sizes a xorshift seeded by `seed` picks from `SIZES`.
fn pieces(bytes: &[u8], seed: u8) -> Vec<&[u8]> {
    let mut state = u32::from(seed) | 0x100;
    let mut out = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        let n = SIZES[state as usize % SIZES.len()];
        let end = (at + n).min(bytes.len());
        out.push(&bytes[at..end]);
        at = end;
    }
    out
}

/// A sanitize result as comparable text: the output, or the error's message.
fn sanitize(backend: Option<Backend>, text: &str, max: usize) -> Result<(String, bool), String> {
    let mut out = vec![0u8; worst_case_len(text.len(), max)];
    let got = match backend {
        Some(b) => sanitize_prose_on(b, text, "insight", max, &LiteralSet::DEFAULT, &mut out),
        None => sanitize_prose_with(text, "insight", max, &LiteralSet::DEFAULT, &mut out),
    };
    match got {
        Ok(p) => Ok((p.text.to_owned(), p.truncated)),
        Err(ProseError::Rejected(r)) if !matches!(r.reason(), Reason::Forgery(_)) => {
            panic!("strict sanitize rejected {text:?} for {r}")
        }
        Err(e) => Err(e.to_string()),
    }
}

/// Strict sanitize fed one chunk of `size` bytes at a time.
fn sanitize_streamed(
    text: &str,
    max: usize,
    sizes: &mut dyn Iterator<Item = usize>,
) -> Result<(String, bool), String> {
    let mut buf = vec![0u8; stream_buffer_len(max)];
    let mut stream = ProseStream::new("insight", max, &LiteralSet::DEFAULT, &mut buf)
        .expect("stream_buffer_len suffices");
    let bytes = text.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        let end = (at + sizes.next().unwrap_or(1)).min(bytes.len());
        stream.feed(&bytes[at..end]).map_err(|e| e.to_string())?;
        at = end;
    }
    stream
        .finish()
        .map(|p| (p.text.to_owned(), p.truncated))
        .map_err(|e| e.to_string())
}

/// The members of D §2 can keep: ZWNJ, ZWJ, the two emoji selectors, the tags.
fn keepable(c: char) -> bool {
    matches!(
        c,
        '\u{200C}' | '\u{200D}' | '\u{FE0E}' | '\u{FE0F}' | '\u{E0020}'..='\u{E007F}'
    )
}

/// The folded view (§4) of `text` after step 3, one code point at a time: the
/// controls step 3 drops are gone, a barrier is a NUL (no literal holds one).
fn folded(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if c.is_control() && c != '\t' && c != '\n' {
            continue;
        }
        out.push_str(fold_of(c).unwrap_or("\0"));
    }
    out
}

fn strip(backend: Backend, text: &str) -> String {
    let mut buf = vec![0u8; text.len()];
    strip_into_on(backend, text, &mut buf)
        .expect("a buffer of the text's length suffices")
        .to_owned()
}

fuzz_target!(|data: &[u8]| {
    let [cap, seed, rest @ ..] = data else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    // 255: no cut (6x the input always fits); otherwise a cap that often cuts.
    let unlimited = text.len().saturating_mul(6).max(64);
    let max = if *cap == 255 {
        unlimited
    } else {
        usize::from(*cap) * 8
    };

    let want_strip = strip(Backend::PORTABLE, text);
    // Strip in chunks of 1–7 bytes: pieces this short are scanned byte by byte, at
    // every lead byte of D, without the refinement.
    let mut short = StripStream::new();
    let mut streamed_strip = String::new();
    for (k, chunk) in text
        .as_bytes()
        .chunks(1 + usize::from(*seed) % 7)
        .enumerate()
    {
        short
            .feed(chunk, |run| streamed_strip.push_str(run))
            .unwrap_or_else(|e| panic!("chunk {k}: {e}"));
    }
    short
        .finish(|run| streamed_strip.push_str(run))
        .expect("whole code points");
    assert_eq!(streamed_strip, want_strip, "strict strip in short chunks");
    for c in want_strip.chars() {
        assert!(
            !in_drop_set(c) || keepable(c),
            "strip kept U+{:04X}",
            u32::from(c)
        );
    }

    let want = sanitize(Some(Backend::PORTABLE), text, max);
    for backend in Backend::all() {
        let name = backend.name();
        assert_eq!(strip(backend, text), want_strip, "strict strip on {name}");
        assert_eq!(
            sanitize(Some(backend), text, max),
            want,
            "strict sanitize on {name}"
        );
    }
    // The public entry (the best backend) is the same code.
    assert_eq!(
        sanitize(None, text, max),
        want,
        "strict sanitize, public entry"
    );

    // Strip: contained and idempotent.
    assert_eq!(
        first_dropped(&want_strip),
        None,
        "strip left a member of D: {want_strip:?}"
    );
    assert_eq!(
        strip(Backend::PORTABLE, &want_strip),
        want_strip,
        "strip twice"
    );

    // Streamed at the fuzzer's split points, and in chunks under 64 bytes (no block
    // scan at all).
    let mut sizes = pieces(text.as_bytes(), *seed).into_iter().map(<[u8]>::len);
    assert_eq!(
        sanitize_streamed(text, max, &mut sizes),
        want,
        "streamed at seed {seed}"
    );
    let n = 1 + usize::from(*seed) % 5;
    let mut sizes = std::iter::repeat(n);
    assert_eq!(
        sanitize_streamed(text, max, &mut sizes),
        want,
        "streamed by {n} bytes"
    );

    // Forgery literals, by a plain search of the folded view rebuilt here.
    let view = folded(&want_strip);
    let forged = WRAPPER_FORGERY_LITERALS
        .iter()
        .any(|l| view.contains(&l.to_ascii_lowercase()));
    assert_eq!(
        want.is_err(),
        forged,
        "a forgery on the folded view {view:?}"
    );

    if let Ok((out, _truncated)) = &want {
        assert_eq!(
            first_dropped(out),
            None,
            "sanitize left a member of D: {out:?}"
        );
        for c in out.chars() {
            assert!(
                !in_drop_set(c) || keepable(c),
                "sanitize kept U+{:04X}",
                u32::from(c)
            );
            assert!(
                !c.is_control() || c == '\t' || c == '\n',
                "sanitize kept a control"
            );
        }
        assert_eq!(
            find_forgery(out, &LiteralSet::DEFAULT),
            None,
            "sanitize left a folded literal: {out:?}"
        );
        let view = folded(out);
        for pattern in ["untrusted-content:start", "untrusted-content:end", "<!--"]
            .into_iter()
            .chain(SPECIAL_TOKENS)
            .chain(WRAPPER_FORGERY_LITERALS)
        {
            let pattern = pattern.to_ascii_lowercase();
            assert!(
                !view.contains(&pattern),
                "{pattern:?} left on the folded view {view:?}"
            );
        }
        // A fixed point: a second pass with no cut changes nothing.
        let again_max = out.len().saturating_mul(6).max(64);
        let again = sanitize(Some(Backend::PORTABLE), out, again_max);
        assert_eq!(
            again.as_ref().map(|(t, _)| t.as_str()),
            Ok(out.as_str()),
            "sanitize twice"
        );
    }
});
