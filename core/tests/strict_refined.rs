//! The refined scans of the strict profile, checked from outside (issue 14): strict
//! step 2 stops only at leads D's byte tables pass (`keep::DROP_FINDER`), the
//! matcher's idle scan only at leads of code points that may not be inert
//! (`matcher::MAY_STOP`). Were either table not a superset of what must be looked at,
//! a member of D or a folded forgery would pass silently. Each test places a code
//! point at every offset around a 64-byte block edge (and its 2-byte look-ahead),
//! after prose whose non-ASCII code points share D's lead bytes, and runs every
//! backend the CPU has; the expected answers come from `strict::fold_of` and
//! `strict::in_drop_set`, one code point at a time, never from the scans.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    missing_docs
)]

use airlock_core::strict::{
    SPECIAL_TOKENS, fold_of, in_drop_set, sanitize_prose_on, strip_into_on, worst_case_len,
};
use airlock_core::{Backend, LiteralSet, WRAPPER_FORGERY_LITERALS};

const BIG: usize = 1 << 20;

/// Strict sanitize on `backend`: the text, or the error's message.
fn sanitize(backend: Backend, text: &str) -> Result<String, String> {
    let mut out = vec![0u8; worst_case_len(text.len(), BIG)];
    sanitize_prose_on(
        backend,
        text,
        "insight",
        BIG,
        &LiteralSet::DEFAULT,
        &mut out,
    )
    .map(|p| String::from(p.text))
    .map_err(|e| e.to_string())
}

fn strip(backend: Backend, text: &str) -> String {
    let mut out = vec![0u8; text.len()];
    String::from(strip_into_on(backend, text, &mut out).unwrap())
}

/// `n` bytes of prose whose non-ASCII code points share D's lead bytes (E2 80, E2 81,
/// C2) but are not in D, ending on a code-point boundary (ASCII pads the rest).
fn prose(n: usize) -> String {
    const PIECES: [&str; 8] = [
        "a", "\u{2014}", "b ", "\u{201C}", "\u{20AC}", "\u{A0}", "\u{2026}", "\u{4E2D}",
    ];
    let mut s = String::new();
    let mut k = 0;
    while s.len() < n {
        let p = PIECES[k % PIECES.len()];
        if s.len() + p.len() > n {
            s.push('x');
        } else {
            s.push_str(p);
        }
        k += 1;
    }
    s
}

/// Prefix lengths that put the code point after them at each offset from 60 to 67 of
/// the text: the last bytes of the first block, the look-ahead, the next block.
const OFFSETS: std::ops::RangeInclusive<usize> = 58..=67;

/// The members of D §2 can keep.
fn keepable(c: char) -> bool {
    matches!(
        c,
        '\u{200C}' | '\u{200D}' | '\u{FE0E}' | '\u{FE0F}' | '\u{E0020}'..='\u{E007F}'
    )
}

fn members_of_d() -> Vec<char> {
    (0..=0x10_FFFFu32)
        .filter_map(char::from_u32)
        .filter(|&c| in_drop_set(c))
        .collect()
}

/// Every member of D, at every offset around a block edge, after prose: strict strip
/// drops it (after `x`, no rule keeps one) on every backend.
#[test]
fn every_member_of_d_is_dropped_at_a_block_edge_on_every_backend() {
    let members = members_of_d();
    assert_eq!(members.len(), 4174);
    for at in OFFSETS {
        let head = prose(at);
        let tail = prose(80);
        for &c in &members {
            let text = format!("{head}{c}{tail}");
            let want = format!("{head}{tail}");
            for backend in Backend::all() {
                assert_eq!(
                    strip(backend, &text),
                    want,
                    "U+{:04X} at {at} on {}",
                    u32::from(c),
                    backend.name()
                );
            }
        }
    }
}

/// Every member of D inside a literal, at every offset around a block edge: the
/// literal is still seen (D folds to nothing) on every backend; and the same member
/// with nothing around it that keeps it is gone from an accepted text.
#[test]
fn every_member_of_d_inside_a_literal_at_a_block_edge_is_seen_through() {
    let members = members_of_d();
    for at in OFFSETS {
        // The member lands at `at`, inside `</APPLI|CABLE-RULES>`.
        let head = prose(at - "</APPLI".len());
        let tail = prose(80);
        for &c in &members {
            let text = format!("{head}</APPLI{c}CABLE-RULES>{tail}");
            let accepted = format!("{head}</APPLI{c}CABLE-RULEZ>{tail}");
            for backend in Backend::all() {
                let got = sanitize(backend, &text);
                assert!(
                    got.as_ref()
                        .is_err_and(|e| e.contains("</APPLICABLE-RULES>")),
                    "U+{:04X} at {at} on {}: {got:?}",
                    u32::from(c),
                    backend.name()
                );
                let out = sanitize(backend, &accepted).unwrap();
                assert!(
                    !out.contains(c),
                    "U+{:04X} at {at} on {} kept: {out:?}",
                    u32::from(c),
                    backend.name()
                );
            }
        }
    }
}

/// What must be found in the folded view of a text: a literal (the text is
/// rejected) or a pattern (it is replaced, so gone from the output's folded view).
fn patterns() -> Vec<(String, bool)> {
    let mut all: Vec<(String, bool)> = WRAPPER_FORGERY_LITERALS
        .iter()
        .map(|l| (l.to_ascii_lowercase(), true))
        .collect();
    for p in [
        "untrusted-content:start",
        "untrusted-content:end",
        "<!--",
        "<|ab|>",
    ]
    .into_iter()
    .chain(SPECIAL_TOKENS)
    {
        all.push((p.to_ascii_lowercase(), false));
    }
    all
}

/// The folded view (§4), one code point at a time; a barrier is a NUL.
fn folded(text: &str) -> String {
    text.chars()
        .filter(|&c| !c.is_control() || c == '\t' || c == '\n')
        .map(|c| fold_of(c).unwrap_or("\0"))
        .collect()
}

/// Every non-ASCII code point whose fold occurs in a literal or a pattern, spelling
/// its part there (a multi-character fold too, wherever it lies in the pattern: `⒮`
/// is `(s` of `(scoped`), placed at every offset around a block edge after prose:
/// the literal is found (rejected) and the pattern replaced, on every backend. The
/// idle scan must stop at each such code point even when only its second folded byte,
/// or its place after a marker's stem, makes it matter.
#[test]
fn every_folded_spelling_at_a_block_edge_is_found_on_every_backend() {
    let patterns = patterns();
    let mut checked = 0usize;
    for c in (0x80..=0x10_FFFFu32).filter_map(char::from_u32) {
        let Some(f) = fold_of(c) else { continue };
        if f.is_empty() {
            continue;
        }
        for (pattern, literal) in &patterns {
            let Some(p) = pattern.find(f) else { continue };
            let spelt = format!("{}{c}{}", &pattern[..p], &pattern[p + f.len()..]);
            // Where `c` lands: at the offsets around the block edge.
            for at in OFFSETS.step_by(3) {
                let Some(n) = at.checked_sub(p) else { continue };
                let text = format!("{} {spelt} {}", prose(n.saturating_sub(1)), prose(80));
                for backend in Backend::all() {
                    let got = sanitize(backend, &text);
                    if *literal {
                        assert!(
                            got.is_err(),
                            "U+{:04X} in {pattern:?} at {at} on {}: {got:?}",
                            u32::from(c),
                            backend.name()
                        );
                    } else {
                        let out = got.unwrap_or_else(|e| {
                            panic!("U+{:04X} in {pattern:?}: {e}", u32::from(c))
                        });
                        assert!(
                            !folded(&out).contains(pattern.as_str()),
                            "U+{:04X} in {pattern:?} at {at} on {}: {out:?}",
                            u32::from(c),
                            backend.name()
                        );
                    }
                }
                checked += 1;
            }
        }
    }
    // Fullwidth and mathematical letters alone give thousands.
    assert!(checked > 5000, "{checked}");
}

/// The keepable members of D at a block edge in their keep contexts (a ZWJ inside an
/// RGI sequence, after a virama; a ZWNJ between joining letters; U+FE0F after an
/// emoji base; tags of a flag): kept on every backend, and gone once the context is
/// broken by a letter.
#[test]
fn keepable_members_at_a_block_edge_keep_only_in_context() {
    let cases = [
        ("\u{1F468}", '\u{200D}', "\u{1F4BB}"),
        ("\u{0915}\u{094D}", '\u{200D}', "\u{0937}"),
        ("\u{0645}", '\u{200C}', "\u{062E}"),
        ("\u{2764}", '\u{FE0F}', " "),
        ("\u{263A}", '\u{FE0E}', " "),
        (
            "\u{1F3F4}",
            '\u{E0067}',
            "\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}",
        ),
    ];
    for (before, c, after) in cases {
        assert!(keepable(c));
        for at in OFFSETS {
            let Some(n) = at.checked_sub(before.len()) else {
                continue;
            };
            let head = prose(n);
            let tail = prose(80);
            let kept = format!("{head}{before}{c}{after}{tail}");
            let broken = format!("{head}x{c}{after}{tail}");
            for backend in Backend::all() {
                assert_eq!(
                    strip(backend, &kept),
                    kept,
                    "U+{:04X} at {at}",
                    u32::from(c)
                );
                assert!(
                    !strip(backend, &broken).contains(c),
                    "U+{:04X} at {at} on {}",
                    u32::from(c),
                    backend.name()
                );
            }
        }
    }
}

/// Strict sanitize fed in two chunks, cut at `cut` (which may fall inside a code
/// point).
fn sanitize_cut(text: &str, cut: usize) -> Result<String, String> {
    let mut buf = vec![0u8; airlock_core::prose::stream_buffer_len(BIG)];
    let mut s =
        airlock_core::strict::ProseStream::new("insight", BIG, &LiteralSet::DEFAULT, &mut buf)
            .unwrap();
    let (a, b) = text.as_bytes().split_at(cut);
    s.feed(a).map_err(|e| e.to_string())?;
    s.feed(b).map_err(|e| e.to_string())?;
    s.finish()
        .map(|p| String::from(p.text))
        .map_err(|e| e.to_string())
}

/// A member of D, a folded literal and a folded marker near a block edge, streamed
/// with a cut at every byte (so a piece ends inside the 2 bytes a refined block scan
/// reads past its block, or inside the code point it tests): the one-shot answer, on
/// every backend.
#[test]
fn a_cut_at_every_byte_near_a_block_edge_changes_nothing() {
    let texts = [
        format!("{}\u{200B}{}\u{E0041}{}", prose(62), prose(63), prose(70)),
        format!(
            "{}\u{FF1C}/APPLICABLE-RULES\u{FF1E}{}",
            prose(61),
            prose(70)
        ),
        format!("{}untrusted-conte\u{FF4E}t:end{}", prose(50), prose(70)),
        format!("{}\u{226A}SYS\u{226B}{}", prose(63), prose(70)),
        format!("{}<|im\u{2060}_start|>{}", prose(60), prose(70)),
    ];
    for text in &texts {
        let want = sanitize(Backend::PORTABLE, text);
        for backend in Backend::all() {
            assert_eq!(
                sanitize(backend, text),
                want,
                "{text:?} on {}",
                backend.name()
            );
        }
        for cut in 0..=text.len() {
            assert_eq!(sanitize_cut(text, cut), want, "{text:?} cut at {cut}");
        }
    }
}
