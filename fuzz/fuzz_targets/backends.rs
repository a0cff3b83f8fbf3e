//! Fast path equals plain path: strip and sanitize_prose on every backend (the best
//! the CPU has, AVX2 without AVX-512, portable) equal a plainly written per-code-point
//! version of the rule.
#![no_main]

use airlock_core::class::{is_control, is_dangerous_invisible, is_extended_pictographic};
use airlock_core::scan::{force_avx2, force_portable};
use airlock_core::{ENVELOPE_MARKERS, MARKER_REDACTION, WRAPPER_FORGERY_LITERALS};
use airlock_core::{sanitize_prose, strip_into, truncate_to_bytes, worst_case_len};
use libfuzzer_sys::fuzz_target;

fn plain_strip(text: &str) -> String {
    let mut out = String::new();
    let mut prev = None;
    for c in text.chars() {
        let orphan = match c {
            '\u{FE00}'..='\u{FE0E}' => true,
            '\u{FE0F}' => !prev.is_some_and(is_extended_pictographic),
            _ => false,
        };
        if !is_dangerous_invisible(c) && !orphan {
            out.push(c);
        }
        prev = Some(c);
    }
    out
}

fn plain_sanitize(text: &str, max: usize) -> Result<String, &'static str> {
    let cleaned: String = plain_strip(text)
        .chars()
        .filter(|&c| !is_control(c) || c == '\t' || c == '\n')
        .collect();
    let lower = cleaned.to_ascii_lowercase();
    if let Some(lit) = WRAPPER_FORGERY_LITERALS
        .iter()
        .find(|l| lower.contains(&l.to_ascii_lowercase()))
    {
        return Err(lit);
    }
    let mut framed = String::new();
    let mut i = 0;
    while i < cleaned.len() {
        if let Some(m) = ENVELOPE_MARKERS.iter().find(|m| lower[i..].starts_with(*m)) {
            framed.push_str(MARKER_REDACTION);
            i += m.len();
        } else {
            let c = cleaned[i..].chars().next().unwrap();
            framed.push(c);
            i += c.len_utf8();
        }
    }
    let t = truncate_to_bytes(&framed, max);
    Ok(if t.truncated {
        format!(
            "{} […truncated by the reconciliation engine: {} bytes exceeded the {}-byte cap]",
            t.text, t.bytes, max
        )
    } else {
        framed
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&cap, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let max = usize::from(cap) * 8;
    let want_strip = plain_strip(text);
    let want_prose = plain_sanitize(text, max);
    for (portable, avx2) in [(false, false), (false, true), (true, false)] {
        force_portable(portable);
        force_avx2(avx2);
        let mut buf = vec![0u8; text.len()];
        assert_eq!(
            strip_into(text, &mut buf).ok(),
            Some(want_strip.as_str()),
            "strip, portable={portable} avx2={avx2}"
        );
        let mut out = vec![0u8; worst_case_len(text.len(), max)];
        let got = match sanitize_prose(text, "insight", max, &mut out) {
            Ok(p) => Ok(p.text.to_owned()),
            Err(airlock_core::ProseError::Rejected(r)) => match r.reason() {
                airlock_core::Reason::Forgery(lit) => Err(*WRAPPER_FORGERY_LITERALS
                    .iter()
                    .find(|l| **l == lit)
                    .unwrap()),
                other => panic!("unexpected rejection {other:?}"),
            },
            Err(e) => panic!("{e}"),
        };
        assert_eq!(got, want_prose, "sanitize, portable={portable} avx2={avx2}");
    }
    force_portable(false);
    force_avx2(false);
});
