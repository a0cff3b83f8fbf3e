//! Step 1's stops (`strict/escape.rs`): where in text its state machine may act.
//!
//! Step 1 acts in text only on ESC and on the C1 introducers U+0090, U+0098 and
//! U+009B–U+009F, whose UTF-8 is 0xC2 and a second byte 0x90–0x9F. A search for
//! every 0xC2 stops at each U+0085 and U+00AD as well, which dense hostile text is
//! full of; this one looks at the pair, so only ESC and 0xC2 0x90–0x9F stop it. The
//! x86 form is `escapes_x86.rs` (AVX2, its last bytes by SWAR), the NEON form the generic
//! one (`generic/escapes.rs`, 64 positions a step); the portable form is
//! `memchr2` passing over the other 0xC2s. All are tested against the definition.
//! The choice among them is `backend.rs`'s (`next_escape`); this file holds the
//! definition and the portable forms, and imports no kernel.

use super::words::{HI, LO7};

const ESC: u8 = 0x1B;

/// Step 1's stops by `memchr2` on ESC and 0xC2, passing over the 0xC2s that begin
/// no introducer: the portable form. The SWAR form ([`next_escape_swar`], eight
/// positions a step) is a third as fast as `memchr`'s own vectors over clean text
/// (`--features portable-only`, strict strip clean 4.2 → 1.3 GB/s), so it only
/// finishes the vector forms' last bytes.
pub(super) fn next_escape_memchr(bytes: &[u8], from: usize) -> Option<usize> {
    let mut p = from;
    loop {
        let at = p.saturating_add(memchr::memchr2(ESC, 0xC2, bytes.get(p..)?)?);
        if stop_at(bytes, at) {
            return Some(at);
        }
        // A 0xC2 that begins no introducer (in a `str` the byte after it is a
        // continuation byte, but this takes any bytes).
        p = at.saturating_add(1);
    }
}

/// 0x80 in each byte of `x` equal to `c`, 0 elsewhere (exact: no carry crosses a
/// byte).
#[cfg_attr(
    not(any(
        test,
        all(target_arch = "x86_64", not(feature = "portable-only")),
        all(
            target_arch = "aarch64",
            target_feature = "neon",
            not(feature = "portable-only")
        )
    )),
    allow(dead_code)
)]
#[inline(always)]
fn eq_bytes(x: u64, c: u8) -> u64 {
    let t = x ^ u64::from_ne_bytes([c; 8]);
    !((t & LO7).wrapping_add(LO7) | t) & HI
}

/// Whether the byte at `at` is a stop, by the plain definition.
#[inline(always)]
fn stop_at(bytes: &[u8], at: usize) -> bool {
    match bytes.get(at) {
        Some(&ESC) => true,
        Some(&0xC2) => matches!(bytes.get(at.saturating_add(1)), Some(0x90..=0x9F)),
        _ => false,
    }
}

/// Step 1's stops by SWAR: eight positions a step, each word paired with the word
/// one byte further (its second bytes).
#[cfg_attr(
    not(any(
        test,
        all(target_arch = "x86_64", not(feature = "portable-only")),
        all(
            target_arch = "aarch64",
            target_feature = "neon",
            not(feature = "portable-only")
        )
    )),
    allow(dead_code)
)]
pub(super) fn next_escape_swar(bytes: &[u8], from: usize) -> Option<usize> {
    let mut p = from;
    while let Some(w) = bytes.get(p..p.saturating_add(9)) {
        let (Some(first), Some(second)) = (w.first_chunk::<8>(), w.last_chunk::<8>()) else {
            break;
        };
        let x = u64::from_le_bytes(*first);
        let y = u64::from_le_bytes(*second);
        let stops =
            eq_bytes(x, ESC) | (eq_bytes(x, 0xC2) & eq_bytes(y & 0xF0F0_F0F0_F0F0_F0F0, 0x90));
        if stops != 0 {
            // Bit 8k + 7 for byte k; under 64, so the sum is in range.
            let k = usize::try_from(stops.trailing_zeros() >> 3).unwrap_or(0);
            return Some(p.saturating_add(k));
        }
        p = p.saturating_add(8);
    }
    next_escape_tail(bytes, p)
}

/// Step 1's stops a byte at a time, for the last few bytes.
#[cfg_attr(
    not(any(
        test,
        all(target_arch = "x86_64", not(feature = "portable-only")),
        all(
            target_arch = "aarch64",
            target_feature = "neon",
            not(feature = "portable-only")
        )
    )),
    allow(dead_code)
)]
#[inline]
fn next_escape_tail(bytes: &[u8], from: usize) -> Option<usize> {
    (from..bytes.len()).find(|&at| stop_at(bytes, at))
}

#[cfg(test)]
mod tests {
    use super::super::backend::{Backend, next_escape};
    use super::*;
    use std::vec::Vec;

    /// Every stop of `bytes` at or after `from`, by the plain definition.
    fn naive(bytes: &[u8], from: usize) -> Option<usize> {
        (from..bytes.len()).find(|&i| {
            bytes[i] == ESC
                || (bytes[i] == 0xC2
                    && i + 1 < bytes.len()
                    && (0x90..=0x9F).contains(&bytes[i + 1]))
        })
    }

    fn check_all_offsets(bytes: &[u8]) {
        for from in 0..=bytes.len() + 1 {
            for backend in Backend::all() {
                assert_eq!(
                    next_escape(bytes, from, backend),
                    naive(bytes, from),
                    "{backend:?} from {from} in {bytes:x?}"
                );
            }
            assert_eq!(
                next_escape_swar(bytes, from),
                naive(bytes, from),
                "SWAR from {from}"
            );
            assert_eq!(
                next_escape_memchr(bytes, from),
                naive(bytes, from),
                "memchr from {from}"
            );
        }
    }

    #[test]
    fn finds_each_stop_at_every_offset_and_block_edge() {
        // One candidate pair at every position of texts around the 8-, 32- and
        // 64-byte steps, with decoys (C2 85, C2 AD, C2 A0, 9B alone) before it.
        let pairs: [&[u8]; 8] = [
            &[ESC],
            &[0xC2, 0x9B],
            &[0xC2, 0x90],
            &[0xC2, 0x9F],
            &[0xC2, 0x85],
            &[0xC2, 0xAD],
            &[0xC2, 0x8F],
            &[0xC2, 0xA0],
        ];
        for len in [1usize, 2, 7, 8, 9, 31, 32, 33, 34, 63, 64, 65, 66, 97, 130] {
            for pair in pairs {
                for at in 0..len {
                    let mut text: Vec<u8> = (0..len).map(|i| b'a' + (i % 26) as u8).collect();
                    for (k, &b) in pair.iter().enumerate() {
                        if let Some(slot) = text.get_mut(at + k) {
                            *slot = b;
                        }
                    }
                    check_all_offsets(&text);
                }
            }
        }
    }

    #[test]
    fn c2_as_last_byte_and_dense_decoys() {
        // 0xC2 with no second byte: not a stop, wherever the text ends.
        for len in 1..80usize {
            let mut text = std::vec![b'x'; len];
            *text.last_mut().unwrap() = 0xC2;
            check_all_offsets(&text);
        }
        // Dense decoys, stops between them.
        let mut text = Vec::new();
        for i in 0..300u32 {
            text.extend_from_slice(match i % 7 {
                0 => "\u{AD}".as_bytes(),
                1 => "\u{85}".as_bytes(),
                2 => b"q",
                3 if i % 3 == 0 => b"\x1b",
                4 if i % 5 == 0 => "\u{9B}".as_bytes(),
                5 => "\u{9C}".as_bytes(),
                _ => "\u{200B}".as_bytes(),
            });
        }
        check_all_offsets(&text);
    }

    proptest::proptest! {
        #[test]
        fn matches_naive(bytes in proptest::collection::vec(
            proptest::prop_oneof![
                proptest::strategy::Just(ESC),
                proptest::strategy::Just(0xC2u8),
                0x80u8..=0xBF,
                proptest::num::u8::ANY,
            ],
            0..200,
        ), from in 0usize..210) {
            for backend in Backend::all() {
                proptest::prop_assert_eq!(next_escape(&bytes, from, backend), naive(&bytes, from));
            }
            proptest::prop_assert_eq!(next_escape_swar(&bytes, from), naive(&bytes, from));
            proptest::prop_assert_eq!(next_escape_memchr(&bytes, from), naive(&bytes, from));
        }
    }
}
