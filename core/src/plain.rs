//! strip and sanitize_prose written as plainly as SPEC.md reads: one `chars()` walk,
//! a lower-cased copy searched literal by literal, markers replaced left to right,
//! a cut. Slow and obviously right — the oracle the property tests and the fuzz
//! targets hold every fast path against. Needs `std` (feature `plain`); never part
//! of a product build.
#![allow(
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::unwrap_used,
    reason = "a test oracle, written for obviousness over the no-panic style"
)]

use std::string::String;
use std::vec::Vec;

use crate::class::{is_control, is_stripped};
use crate::forgery::{ENVELOPE_MARKERS, MARKER_REDACTION};

/// `stripDangerousInvisibles`: drop table members and orphan selectors, judging each
/// selector by the code point before it in the original input.
pub fn strip(text: &str) -> String {
    keep(text, |_| true)
}

/// `sanitizeProse` with the given literals: `Err(literal)` names the first literal,
/// in list order, that occurs in the cleaned text.
pub fn sanitize<'l>(text: &str, max_bytes: usize, literals: &[&'l str]) -> Result<String, &'l str> {
    let cleaned = keep(text, |c| !is_control(c) || c == '\t' || c == '\n');
    let lower = cleaned.to_ascii_lowercase();
    if let Some(lit) = literals
        .iter()
        .find(|l| lower.contains(&l.to_ascii_lowercase()))
    {
        return Err(lit);
    }
    let (bytes, low) = (cleaned.as_bytes(), lower.as_bytes());
    let mut framed = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match ENVELOPE_MARKERS
            .iter()
            .find(|m| low[i..].starts_with(m.as_bytes()))
        {
            Some(marker) => {
                framed.extend_from_slice(MARKER_REDACTION.as_bytes());
                i += marker.len();
            }
            None => {
                framed.push(bytes[i]);
                i += 1;
            }
        }
    }
    let framed = String::from_utf8(framed).unwrap();
    if framed.len() <= max_bytes {
        return Ok(framed);
    }
    let mut cut = max_bytes;
    while !framed.is_char_boundary(cut) {
        cut -= 1;
    }
    Ok(std::format!(
        "{} […truncated by the reconciliation engine: {} bytes exceeded the {}-byte cap]",
        &framed[..cut],
        framed.len(),
        max_bytes
    ))
}

/// The code points strip keeps and `also` accepts, in order.
fn keep(text: &str, also: impl Fn(char) -> bool) -> String {
    let mut out = String::with_capacity(text.len());
    let mut prev = None;
    for c in text.chars() {
        if !is_stripped(c, prev) && also(c) {
            out.push(c);
        }
        prev = Some(c);
    }
    out
}
