//! UTF-8 validation with AVX-512 BW (issue 17): 64 bytes a step, the lookup
//! algorithm of Keiser and Lemire ("Validating UTF-8 in less than one instruction
//! per byte", 2021; simdjson, simdutf8 and simdutf use it), written here from the
//! paper's tables. A block of ASCII after a block of ASCII costs one compare; any
//! other block three nibble lookups on the byte pairs and a test of the bytes that
//! must continue a three- or four-byte sequence.
//!
//! It answers only valid or not: an invalid input's offset comes from
//! `core::str::from_utf8`, so the offsets the callers report do not change.

use core::arch::x86_64::{
    __m512i, _mm512_and_si512, _mm512_broadcast_i32x4, _mm512_cmpge_epu8_mask, _mm512_loadu_si512,
    _mm512_movepi8_mask, _mm512_movm_epi8, _mm512_or_si512, _mm512_set1_epi8, _mm512_setzero_si512,
    _mm512_shuffle_epi8, _mm512_srli_epi16, _mm512_test_epi8_mask, _mm512_xor_si512,
};

use super::x86::{Vbmi2, table};

// The error classes of a byte pair (the byte before, the byte): one bit each.
/// A lead byte not followed by a continuation byte.
const TOO_SHORT: u8 = 1 << 0;
/// A continuation byte after an ASCII byte.
const TOO_LONG: u8 = 1 << 1;
/// `E0 80..9F`.
const OVERLONG_3: u8 = 1 << 2;
/// `F4 90..BF` and every lead from `F5` up.
const TOO_LARGE: u8 = 1 << 3;
/// `ED A0..BF`.
const SURROGATE: u8 = 1 << 4;
/// `C0` and `C1`.
const OVERLONG_2: u8 = 1 << 5;
/// `F0 80..8F`, and the part of `TOO_LARGE` with a second byte `80..8F`.
const TOO_LARGE_1000: u8 = 1 << 6;
const OVERLONG_4: u8 = 1 << 6;
/// Two continuation bytes: valid only where a three- or four-byte sequence needs it.
const TWO_CONTS: u8 = 1 << 7;
/// What any byte before the low nibble test allows through.
const CARRY: u8 = TOO_SHORT | TOO_LONG | TWO_CONTS;

/// By the high nibble of the byte before.
const BYTE_1_HIGH: [u8; 16] = [
    TOO_LONG,
    TOO_LONG,
    TOO_LONG,
    TOO_LONG,
    TOO_LONG,
    TOO_LONG,
    TOO_LONG,
    TOO_LONG,
    TWO_CONTS,
    TWO_CONTS,
    TWO_CONTS,
    TWO_CONTS,
    TOO_SHORT | OVERLONG_2,
    TOO_SHORT,
    TOO_SHORT | OVERLONG_3 | SURROGATE,
    TOO_SHORT | TOO_LARGE | TOO_LARGE_1000 | OVERLONG_4,
];

/// By the low nibble of the byte before.
const BYTE_1_LOW: [u8; 16] = [
    CARRY | OVERLONG_3 | OVERLONG_2 | OVERLONG_4,
    CARRY | OVERLONG_2,
    CARRY,
    CARRY,
    CARRY | TOO_LARGE,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000 | SURROGATE,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
];

/// By the high nibble of the byte.
const BYTE_2_HIGH: [u8; 16] = [
    TOO_SHORT,
    TOO_SHORT,
    TOO_SHORT,
    TOO_SHORT,
    TOO_SHORT,
    TOO_SHORT,
    TOO_SHORT,
    TOO_SHORT,
    TOO_LONG | OVERLONG_2 | TWO_CONTS | OVERLONG_3 | TOO_LARGE_1000 | OVERLONG_4,
    TOO_LONG | OVERLONG_2 | TWO_CONTS | OVERLONG_3 | TOO_LARGE,
    TOO_LONG | OVERLONG_2 | TWO_CONTS | SURROGATE | TOO_LARGE,
    TOO_LONG | OVERLONG_2 | TWO_CONTS | SURROGATE | TOO_LARGE,
    TOO_SHORT,
    TOO_SHORT,
    TOO_SHORT,
    TOO_SHORT,
];

/// Bytes a block reads before its start (the three bytes before each byte).
pub(super) const BEFORE: usize = 3;

/// Whether `bytes` is UTF-8.
#[inline]
pub(super) fn is_utf8(bytes: &[u8], _cpu: Vbmi2) -> bool {
    // SAFETY: the CPU has AVX-512 F and BW (a `Vbmi2` exists only once detected).
    unsafe { is_utf8_unchecked(bytes) }
}

/// The error bits of the 64 bytes at `p` (`p[-3..64]` readable): non-zero where
/// a byte pair is invalid or a byte that must continue a sequence does not.
///
/// # Safety
///
/// * The CPU must support AVX-512 F and BW.
/// * `p.sub(3)` to `p.add(64)` must be readable.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
pub(super) unsafe fn block_errors(p: *const u8, t: &Tables) -> __m512i {
    // SAFETY: the caller guarantees the 67 bytes from `p - 3` are readable;
    // `loadu` has no alignment requirement.
    let (cur, prev1, prev2, prev3) = unsafe {
        (
            _mm512_loadu_si512(p.cast()),
            _mm512_loadu_si512(p.sub(1).cast()),
            _mm512_loadu_si512(p.sub(2).cast()),
            _mm512_loadu_si512(p.sub(3).cast()),
        )
    };
    let low = _mm512_set1_epi8(0x0F);
    let b1h = _mm512_shuffle_epi8(
        t.byte_1_high,
        _mm512_and_si512(_mm512_srli_epi16::<4>(prev1), low),
    );
    let b1l = _mm512_shuffle_epi8(t.byte_1_low, _mm512_and_si512(prev1, low));
    let b2h = _mm512_shuffle_epi8(
        t.byte_2_high,
        _mm512_and_si512(_mm512_srli_epi16::<4>(cur), low),
    );
    let special = _mm512_and_si512(_mm512_and_si512(b1h, b1l), b2h);
    // Bytes two after a lead of three or more bytes, or three after one of four,
    // must be continuations: there TWO_CONTS is required, elsewhere forbidden.
    let must = _mm512_cmpge_epu8_mask(prev2, _mm512_set1_epi8(0xE0u8 as i8))
        | _mm512_cmpge_epu8_mask(prev3, _mm512_set1_epi8(0xF0u8 as i8));
    let must80 = _mm512_and_si512(_mm512_movm_epi8(must), _mm512_set1_epi8(TWO_CONTS as i8));
    _mm512_xor_si512(special, must80)
}

/// The three lookup tables, in every 128-bit lane.
pub(super) struct Tables {
    byte_1_high: __m512i,
    byte_1_low: __m512i,
    byte_2_high: __m512i,
}

impl Tables {
    /// The tables in vector registers.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw")]
    pub(super) fn load() -> Tables {
        Tables {
            byte_1_high: _mm512_broadcast_i32x4(table(BYTE_1_HIGH)),
            byte_1_low: _mm512_broadcast_i32x4(table(BYTE_1_LOW)),
            byte_2_high: _mm512_broadcast_i32x4(table(BYTE_2_HIGH)),
        }
    }
}

/// [`is_utf8`] without the CPU check.
///
/// # Safety
///
/// * The CPU must support AVX-512 F and BW.
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn is_utf8_unchecked(bytes: &[u8]) -> bool {
    let t = Tables::load();
    let len = bytes.len();
    let mut err = _mm512_setzero_si512();
    // Whether the block before held a non-ASCII byte (a sequence it began may
    // continue into the next block).
    let mut open = false;
    // Blocks read from the input itself: each needs three bytes before it.
    let mut p = 64usize;
    // The first block and the tail go through a copy padded with zeros (ASCII):
    // zeros before the start, and after the end, where an incomplete sequence
    // then fails like one followed by ASCII.
    let mut padded = [0u8; BEFORE + 64];
    let head = len.min(64);
    if let (Some(dst), Some(src)) = (
        padded.get_mut(BEFORE..BEFORE.saturating_add(head)),
        bytes.get(..head),
    ) {
        dst.copy_from_slice(src);
    }
    // SAFETY: `padded` holds 3 bytes before offset 3 and 64 from it.
    err = _mm512_or_si512(err, unsafe {
        block_errors(padded.as_ptr().add(BEFORE), &t)
    });
    if len < 64 {
        // The zeros after the end test that no sequence is left incomplete.
        return _mm512_test_epi8_mask(err, err) == 0;
    }
    open |= head > 0;
    // Four blocks at a time, tested for ASCII together: whether one block of mixed
    // prose is ASCII is a coin toss (a mispredicted branch every other block cost
    // more than the lookups it skipped), four blocks of prose almost never are, and
    // four of ASCII text almost always (issue 17).
    while let Some(group) = bytes.get(p..p.saturating_add(4 * 64)) {
        let q = group.as_ptr();
        // SAFETY: AVX-512 BW is enabled here; `group` holds 256 readable bytes.
        let (a, b, c, d) = unsafe {
            (
                _mm512_loadu_si512(q.cast()),
                _mm512_loadu_si512(q.add(64).cast()),
                _mm512_loadu_si512(q.add(128).cast()),
                _mm512_loadu_si512(q.add(192).cast()),
            )
        };
        let any = _mm512_or_si512(_mm512_or_si512(a, b), _mm512_or_si512(c, d));
        if open || _mm512_movepi8_mask(any) != 0 {
            // SAFETY: `p >= 64`, so the 3 bytes before `group` are in `bytes`, and
            // `group` holds the four blocks.
            unsafe {
                err = _mm512_or_si512(err, block_errors(q, &t));
                err = _mm512_or_si512(err, block_errors(q.add(64), &t));
                err = _mm512_or_si512(err, block_errors(q.add(128), &t));
                err = _mm512_or_si512(err, block_errors(q.add(192), &t));
            }
            open = _mm512_movepi8_mask(d) != 0;
        }
        p = p.saturating_add(4 * 64);
        // Every 4 KiB (p is 64 past a multiple of 256), invalid input stops early.
        if p & 4095 == 64 && _mm512_test_epi8_mask(err, err) != 0 {
            return false;
        }
    }
    while let Some(block) = bytes.get(p..p.saturating_add(64)) {
        // SAFETY: AVX-512 BW is enabled here; `block` holds 64 readable bytes.
        let ascii = _mm512_movepi8_mask(unsafe { _mm512_loadu_si512(block.as_ptr().cast()) }) == 0;
        if !ascii || open {
            // SAFETY: `p >= 64`, so the 3 bytes before `block` are in `bytes`,
            // and `block` holds 64.
            err = _mm512_or_si512(err, unsafe { block_errors(block.as_ptr(), &t) });
        }
        open = !ascii;
        p = p.saturating_add(64);
    }
    // The tail: the last under 64 bytes (possibly none, to test that the input
    // does not end inside a sequence), padded with zeros after the end.
    let mut tail = [0u8; BEFORE + 64];
    // `p >= 64` and `p <= len` here, so both ranges are inside `bytes`.
    let before = bytes.get(p.saturating_sub(BEFORE)..p).unwrap_or_default();
    let rest = bytes.get(p..).unwrap_or_default();
    for (d, &b) in tail.iter_mut().zip(before.iter().chain(rest)) {
        *d = b;
    }
    // SAFETY: `tail` holds 3 bytes before offset 3 and 64 from it.
    err = _mm512_or_si512(err, unsafe { block_errors(tail.as_ptr().add(BEFORE), &t) });
    _mm512_test_epi8_mask(err, err) == 0
}

/// `bytes` as text when it is UTF-8 (by [`is_utf8`]); `None` otherwise.
#[inline]
pub(super) fn validate_utf8(bytes: &[u8], cpu: Vbmi2) -> Option<&str> {
    if is_utf8(bytes, cpu) {
        // SAFETY: `is_utf8` accepts exactly the UTF-8 inputs (the tests below
        // compare it with `core::str::from_utf8` on every short sequence, at
        // every block position, and on random inputs).
        Some(unsafe { core::str::from_utf8_unchecked(bytes) })
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::vec::Vec;

    fn cpu() -> Option<Vbmi2> {
        super::super::x86::vbmi2()
    }

    /// The fused validation and scan's answer, with strip-like and control finders.
    fn fused(cpu: Vbmi2, bytes: &[u8]) -> bool {
        let mut rec = super::super::finder::Recorded::new();
        let a = super::super::x86_scan512::validate_find(
            bytes,
            &super::super::finder::ATTENTION,
            &mut rec,
            cpu,
        );
        let b = super::super::x86_scan512::validate_find(bytes, &LEADS, &mut rec, cpu);
        assert_eq!(a, b, "{bytes:02X?}");
        a
    }

    static LEADS: super::super::Finder =
        super::super::Finder::new(super::super::ByteSet::EMPTY.with(0xE2).with(0xEF)).refined();

    fn agrees(cpu: Vbmi2, bytes: &[u8]) {
        // An allocation of exactly the input (no capacity after it), so a read past
        // the end is an AddressSanitizer report, not a read of slack.
        let exact: std::boxed::Box<[u8]> = bytes.into();
        let bytes = &*exact;
        assert_eq!(
            is_utf8(bytes, cpu),
            core::str::from_utf8(bytes).is_ok(),
            "{bytes:02X?}"
        );
        // The fused validation and scan answers the same (issue 17).
        assert_eq!(
            fused(cpu, bytes),
            core::str::from_utf8(bytes).is_ok(),
            "fused {bytes:02X?}"
        );
    }

    #[test]
    fn every_sequence_of_up_to_three_bytes_alone_and_across_a_block_edge() {
        let Some(cpu) = cpu() else { return };
        let mut ctx = std::vec![b'a'; 140];

        for b0 in 0..=255u8 {
            agrees(cpu, &[b0]);
            for b1 in 0..=255u8 {
                agrees(cpu, &[b0, b1]);
                for b2 in 0..=255u8 {
                    let seq = [b0, b1, b2];
                    agrees(cpu, &seq);
                    // Bytes 63..66: the pair tests straddle the first block's end.
                    ctx[63..66].copy_from_slice(&seq);
                    let expected = core::str::from_utf8(&ctx).is_ok();
                    assert_eq!(is_utf8(&ctx, cpu), expected, "{seq:02X?}");
                    assert_eq!(fused(cpu, &ctx), expected, "fused {seq:02X?}");
                }
            }
        }
    }

    #[test]
    fn four_byte_sequences_at_every_block_position() {
        let Some(cpu) = cpu() else { return };
        let leads = [
            0x80, 0xC2, 0xE0, 0xED, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF,
        ];
        let thirds = [
            0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xFF,
        ];
        for &b0 in &leads {
            for b1 in 0..=255u8 {
                for &b2 in &thirds {
                    for b3 in 0..=255u8 {
                        agrees(cpu, &[b0, b1, b2, b3]);
                    }
                }
            }
        }
        // A valid and an invalid four-byte sequence, and an incomplete one, at
        // every offset of inputs of every length around the block sizes.
        for len in 0..200usize {
            for at in 0..len {
                for seq in [
                    &b"\xF0\x9F\x98\x80"[..],
                    b"\xF4\x90\x80\x80",
                    b"\xE2\x82",
                    b"\xED\xA0\x80",
                ] {
                    let mut v = std::vec![b'x'; len];
                    for (k, &b) in seq.iter().enumerate() {
                        if let Some(slot) = v.get_mut(at + k) {
                            *slot = b;
                        }
                    }
                    agrees(cpu, &v);
                }
            }
        }
    }

    #[test]
    fn the_fused_pass_across_its_groups_and_after_ascii_ones() {
        let Some(cpu) = cpu() else { return };
        let seqs: [&[u8]; 12] = [
            b"\xF0\x9F\x98\x80",
            b"\xF4\x90\x80\x80",
            b"\xE2\x82",
            b"\xE2\x82\xAC",
            b"\xED\xA0\x80",
            b"\xC3",
            b"\xC3\xA9",
            b"\x80",
            b"\xBF\xBF",
            b"\xE0\x80\x80",
            b"\xF0\x80\x80\x80",
            b"\xFF",
        ];
        // ASCII groups (skipped), one with a non-ASCII byte, and the blocks after.
        for lead in [None, Some(10usize), Some(316)] {
            for at in 0..1100usize {
                for seq in seqs {
                    let mut v = std::vec![b'a'; 1100];
                    if let Some(l) = lead {
                        v[l..l + 2].copy_from_slice("é".as_bytes());
                    }
                    if lead.is_some_and(|l| at < l + 2 && at + seq.len() > l) {
                        continue;
                    }
                    for (k, &b) in seq.iter().enumerate() {
                        if let Some(slot) = v.get_mut(at + k) {
                            *slot = b;
                        }
                    }
                    agrees(cpu, &v);
                    agrees(cpu, &v[..at.min(v.len())]);
                }
            }
        }
    }

    #[test]
    fn invalid_at_every_position_of_mixed_text() {
        let Some(cpu) = cpu() else { return };
        let text = "Prose — with “quotes”, €, ü, 中文, 😀 and ❤️… ".repeat(8);
        agrees(cpu, text.as_bytes());
        let bad: [&[u8]; 6] = [
            b"\xFF",
            b"\x80",
            b"\xC0\x80",
            b"\xED\xA0\x80",
            b"\xE2",
            b"\xF0\x9F\x98",
        ];
        for at in 0..=text.len() {
            for b in bad {
                let mut v: Vec<u8> = text.as_bytes()[..at].to_vec();
                v.extend_from_slice(b);
                v.extend_from_slice(&text.as_bytes()[at..]);
                agrees(cpu, &v);
                // And the input cut right after it.
                agrees(cpu, &v[..at + b.len()]);
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn random_inputs_agree_with_std(
            bytes in proptest::collection::vec(
                proptest::sample::select(std::vec![
                    b'a', b'\n', 0x00, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1,
                    0xC2, 0xDF, 0xE0, 0xE2, 0xED, 0xEF, 0xF0, 0xF3, 0xF4, 0xF5, 0xFF,
                ]),
                0..400,
            ),
            prefix in 0usize..130,
        ) {
            let Some(cpu) = cpu() else { return Ok(()) };
            let mut v = "é€😀 mixed ".repeat(12).into_bytes();
            v.truncate(prefix);
            while core::str::from_utf8(&v).is_err() {
                v.pop();
            }
            v.extend_from_slice(&bytes);
            proptest::prop_assert_eq!(is_utf8(&v, cpu), core::str::from_utf8(&v).is_ok());
        }
    }
}
