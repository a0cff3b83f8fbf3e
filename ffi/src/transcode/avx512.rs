//! UTF-16 → UTF-8 thirty-two units at a time with AVX-512 (BW and VL for the
//! compares and the narrowing, VBMI2 for `vpcompressb`), on CPUs that have it: each unit is
//! widened to a 32-bit lane, encoded there as one, two or three bytes (four from a
//! surrogate pair's high half, none from its low half), and the bytes are packed
//! together by a compress with the lanes' byte mask. A block holding a lone
//! surrogate or a pair split by its end (or, for sanitize, any surrogate or an ASCII
//! control) is left to the caller's unit-wise path. The SSE2 steps (`blocks.rs`) remain for every other CPU.

use core::arch::x86_64::{
    __m256i, __m512i, _mm256_storeu_si256, _mm512_add_epi32, _mm512_and_si512,
    _mm512_castsi512_si256, _mm512_cmpeq_epi16_mask, _mm512_cmplt_epu16_mask,
    _mm512_cmplt_epu32_mask, _mm512_cvtepi16_epi8, _mm512_cvtepu16_epi32,
    _mm512_extracti64x4_epi64, _mm512_loadu_si512, _mm512_mask_mov_epi32, _mm512_mask_storeu_epi8,
    _mm512_maskz_compress_epi8, _mm512_movepi8_mask, _mm512_or_si512, _mm512_permutexvar_epi16,
    _mm512_set1_epi16, _mm512_set1_epi32, _mm512_setzero_si512, _mm512_slli_epi32,
    _mm512_srli_epi32,
};

cpufeatures::new!(
    cpuid_vbmi2,
    "avx512f",
    "avx512bw",
    "avx512vl",
    "avx512vbmi2",
    "popcnt"
);

/// Proof that the CPU has AVX-512 F, BW, VL, VBMI2 and POPCNT: only [`detect`] makes
/// one, after asking the CPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Avx512 {
    _detected: (),
}

/// The CPU's AVX-512, when it has what the encoder uses.
#[inline]
pub(crate) fn detect() -> Option<Avx512> {
    cpuid_vbmi2::get().then_some(Avx512 { _detected: () })
}

/// What [`Avx512::encode32`] wrote.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Block32 {
    /// UTF-8 bytes written.
    pub len: usize,
    /// Bit `k` set: unit `k` is U+0080 or above.
    pub non_ascii: u32,
}

/// What [`Avx512::encode_run`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Run {
    /// Code units consumed (a multiple of 32).
    pub units: usize,
    /// UTF-8 bytes written.
    pub len: usize,
    /// Whether the last unit consumed is U+0080 or above.
    pub last_non_ascii: bool,
}

impl Avx512 {
    /// [`Avx512::encode32`] over `src`'s 32-unit blocks in turn, into `dst`, while
    /// each is encoded and `keep` accepts it (`keep(block, non_ascii)`), and `src`
    /// and `dst` have room for another: one call for a run of blocks, so the loop
    /// runs with the CPU features enabled.
    #[inline]
    pub(crate) fn encode_run<const KEPT: bool>(
        self,
        src: &[u8],
        dst: &mut [u8],
        keep: impl Fn(&[u8; 64], u32) -> bool,
    ) -> Run {
        // SAFETY: `self` proves the CPU features.
        unsafe { encode_run::<KEPT>(src, dst, keep) }
    }

    /// The 32 units of `src` (UTF-16LE) as UTF-8 at the start of `dst`, when every
    /// surrogate among them is half of a pair within the block and — with `KEPT` —
    /// none is a surrogate or an ASCII control but TAB and LF; `None` (and `dst`
    /// holds garbage) otherwise.
    #[cfg(test)]
    pub(crate) fn encode32<const KEPT: bool>(
        self,
        src: &[u8; 64],
        dst: &mut [u8; 96],
    ) -> Option<Block32> {
        // SAFETY: `self` proves the CPU features; the sizes are in the types.
        unsafe { encode32::<KEPT>(src, dst) }
    }
}

/// [`Avx512::encode_run`].
///
/// # Safety
///
/// The CPU must support AVX-512 F, BW, VL, VBMI2 and POPCNT.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi2,popcnt")]
unsafe fn encode_run<const KEPT: bool>(
    src: &[u8],
    dst: &mut [u8],
    keep: impl Fn(&[u8; 64], u32) -> bool,
) -> Run {
    // Plain locals, not a `Run` updated in place: LLVM keeps a struct's pair of
    // counters in a vector register spilled to the stack each block, and the
    // reload waits on the store.
    let mut blocks = 0usize;
    let mut len = 0usize;
    let mut last_non_ascii = false;
    let mut rest = src;
    while let Some((block, tail)) = rest.split_first_chunk::<64>()
        && let Some(d) = dst.get_mut(len..).and_then(|d| d.first_chunk_mut::<96>())
    {
        // SAFETY: the caller guarantees the CPU features.
        let Some(b) = (unsafe { encode32::<KEPT>(block, d) }) else {
            break;
        };
        if !keep(block, b.non_ascii) {
            break;
        }
        rest = tail;
        blocks = blocks.wrapping_add(1);
        // At most 96 bytes per block, within `dst` (checked above).
        len = len.wrapping_add(b.len);
        last_non_ascii = b.non_ascii >> 31 != 0;
    }
    Run {
        units: blocks.saturating_mul(32),
        len,
        last_non_ascii,
    }
}

/// Lane `k` of a word permutation takes word `k + 1` (the last, itself).
static NEXT_UNIT: [u16; 32] = [
    1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26,
    27, 28, 29, 30, 31, 31,
];

/// Sixteen units of a block, with what [`encode32`] knows of them.
#[derive(Clone, Copy)]
struct Half {
    units: __m256i,
    /// Each unit's successor in the block.
    next: __m256i,
    high: u32,
    low: u32,
}

/// [`Avx512::encode32`].
///
/// # Safety
///
/// The CPU must support AVX-512 F, BW, VL, VBMI2 and POPCNT.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi2,popcnt")]
#[inline]
unsafe fn encode32<const KEPT: bool>(src: &[u8; 64], dst: &mut [u8; 96]) -> Option<Block32> {
    // SAFETY: `src` is 64 readable bytes; `loadu` has no alignment requirement.
    let units: __m512i = unsafe { _mm512_loadu_si512(src.as_ptr().cast()) };
    let ten_bits = _mm512_set1_epi16(0xFC00_u16.cast_signed());
    let high = _mm512_cmpeq_epi16_mask(
        _mm512_and_si512(units, ten_bits),
        _mm512_set1_epi16(0xD800_u16.cast_signed()),
    );
    let low = _mm512_cmpeq_epi16_mask(
        _mm512_and_si512(units, ten_bits),
        _mm512_set1_epi16(0xDC00_u16.cast_signed()),
    );
    let non_ascii = !_mm512_cmplt_epu16_mask(units, _mm512_set1_epi16(0x80));
    let mut refused = 0u32;
    if KEPT {
        // Sanitize decides surrogates unit-wise (pairing across drops, U+FE0F
        // after a pictographic pair).
        refused |= high | low;
        // Below U+0020 but TAB and LF, and DEL.
        let control = _mm512_cmplt_epu16_mask(units, _mm512_set1_epi16(0x20))
            & !_mm512_cmpeq_epi16_mask(units, _mm512_set1_epi16(0x09))
            & !_mm512_cmpeq_epi16_mask(units, _mm512_set1_epi16(0x0A));
        refused |= control | _mm512_cmpeq_epi16_mask(units, _mm512_set1_epi16(0x7F));
    }
    // Without `KEPT`, surrogates in pairs within the block are encoded here (four
    // bytes from the high half's lane, none from the low half's): every low half
    // right after a high one, and no high half in the last unit (its low half, if
    // any, is in the next block). A lone surrogate refuses the block.
    if refused != 0 || u64::from(high) << 1 != u64::from(low) {
        return None;
    }
    if non_ascii == 0 {
        // All ASCII: the low bytes.
        let bytes: __m256i = _mm512_cvtepi16_epi8(units);
        // SAFETY: `dst` has at least 32 writable bytes; no alignment requirement.
        unsafe { _mm256_storeu_si256(dst.as_mut_ptr().cast(), bytes) };
        return Some(Block32 { len: 32, non_ascii });
    }
    // The halves from the register, not loaded again (a second load of each half
    // compiled to scalar loads and word inserts).
    // Each unit's successor (the last unit's is itself: it is no high half), for
    // the low halves of pairs; only when there are pairs.
    let next = if high != 0 {
        // SAFETY: 32 words, readable; `loadu` has no alignment requirement.
        let to_next: __m512i = unsafe { _mm512_loadu_si512(NEXT_UNIT.as_ptr().cast()) };
        _mm512_permutexvar_epi16(to_next, units)
    } else {
        units
    };
    let halves = [
        Half {
            units: _mm512_castsi512_si256(units),
            next: _mm512_castsi512_si256(next),
            high: high & 0xFFFF,
            low: low & 0xFFFF,
        },
        Half {
            units: _mm512_extracti64x4_epi64::<1>(units),
            next: _mm512_extracti64x4_epi64::<1>(next),
            high: high >> 16,
            low: low >> 16,
        },
    ];
    // Bytes written so far: at most 49 after the first half (fifteen three-byte
    // units and a pair's four bytes), and at most 96 in all (three per unit, four
    // per pair), so every store below stays within the 96 bytes of `dst`.
    let mut len = 0usize;
    // No shortcut for an ASCII half: in mixed prose whether a half is ASCII is a
    // coin toss, and the mispredicted branch cost more than the encoding it skipped
    // (fence 64 KiB A/B 81.5 -> 78.7 µs).
    for half in halves {
        let (_, room) = dst.split_at_mut(len.min(49));
        let x = _mm512_cvtepu16_epi32(half.units);
        let low6 = _mm512_set1_epi32(0x3F);
        let cont = _mm512_set1_epi32(0x80);
        // Three bytes: 1110xxxx 10xxxxxx 10xxxxxx, lowest lane byte first.
        let b0 = _mm512_or_si512(_mm512_srli_epi32::<12>(x), _mm512_set1_epi32(0xE0));
        let b1 = _mm512_or_si512(_mm512_and_si512(_mm512_srli_epi32::<6>(x), low6), cont);
        let b2 = _mm512_or_si512(_mm512_and_si512(x, low6), cont);
        let three = _mm512_or_si512(
            _mm512_or_si512(b0, _mm512_slli_epi32::<8>(b1)),
            _mm512_slli_epi32::<16>(b2),
        );
        // Two bytes: 110xxxxx 10xxxxxx.
        let c0 = _mm512_or_si512(_mm512_srli_epi32::<6>(x), _mm512_set1_epi32(0xC0));
        let two = _mm512_or_si512(c0, _mm512_slli_epi32::<8>(b2));
        let is_one = _mm512_cmplt_epu32_mask(x, _mm512_set1_epi32(0x80));
        let is_two = _mm512_cmplt_epu32_mask(x, _mm512_set1_epi32(0x800));
        let mut encoded =
            _mm512_mask_mov_epi32(_mm512_mask_mov_epi32(three, is_two, two), is_one, x);
        // 0xFF in each byte a lane keeps: one, two or three.
        let mut keep = _mm512_mask_mov_epi32(
            _mm512_mask_mov_epi32(
                _mm512_set1_epi32(0x00FF_FFFF),
                is_two,
                _mm512_set1_epi32(0xFFFF),
            ),
            is_one,
            _mm512_set1_epi32(0xFF),
        );
        // The masks' halves fit 16 bits (shifted or masked above).
        let (pair_high, pair_low) = (half.high as u16, half.low as u16);
        if pair_high | pair_low != 0 {
            // 11110xxx 10xxxxxx 10xxxxxx 10xxxxxx from the high half's lane.
            let hi = _mm512_and_si512(x, _mm512_set1_epi32(0x3FF));
            let lo = _mm512_and_si512(_mm512_cvtepu16_epi32(half.next), _mm512_set1_epi32(0x3FF));
            let cp = _mm512_add_epi32(
                _mm512_or_si512(_mm512_slli_epi32::<10>(hi), lo),
                _mm512_set1_epi32(0x10000),
            );
            let d0 = _mm512_or_si512(_mm512_srli_epi32::<18>(cp), _mm512_set1_epi32(0xF0));
            let d1 = _mm512_or_si512(_mm512_and_si512(_mm512_srli_epi32::<12>(cp), low6), cont);
            let d2 = _mm512_or_si512(_mm512_and_si512(_mm512_srli_epi32::<6>(cp), low6), cont);
            let d3 = _mm512_or_si512(_mm512_and_si512(cp, low6), cont);
            let four = _mm512_or_si512(
                _mm512_or_si512(d0, _mm512_slli_epi32::<8>(d1)),
                _mm512_or_si512(_mm512_slli_epi32::<16>(d2), _mm512_slli_epi32::<24>(d3)),
            );
            encoded = _mm512_mask_mov_epi32(encoded, pair_high, four);
            keep = _mm512_mask_mov_epi32(keep, pair_high, _mm512_set1_epi32(-1));
            keep = _mm512_mask_mov_epi32(keep, pair_low, _mm512_setzero_si512());
        }
        let mask = _mm512_movepi8_mask(keep);
        let packed = _mm512_maskz_compress_epi8(mask, encoded);
        // Up to 64 bytes: one to three per lane, four per pair's lanes (so at most
        // 49 for the first half, 48 after it: `room` holds them).
        let n = mask.count_ones();
        if room.len() < n as usize {
            return None;
        }
        let first_n = u64::MAX >> 64u32.saturating_sub(n);
        // SAFETY: the masked store writes only the first `n` bytes, which `room`
        // holds (checked above); masked-off lanes are neither written nor faulted on.
        unsafe { _mm512_mask_storeu_epi8(room.as_mut_ptr().cast(), first_n, packed) };
        len = len.wrapping_add(n as usize);
    }
    Some(Block32 { len, non_ascii })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodes_like_std_pairs_included_and_refuses_what_it_must() {
        let Some(cpu) = detect() else {
            return; // nothing to compare on this CPU
        };
        const UNITS: [u16; 16] = [
            0x61, 0x20, 0x7F, 0x07, 0x09, 0x0A, 0xE9, 0x7FF, 0x800, 0x2014, 0xFFFF, 0xD83D, 0xDE00,
            0xFEFF, 0xD7FF, 0xE000,
        ];
        let mut seed = 11u32;
        let mut encoded_pairs = 0;
        for _ in 0..20_000 {
            let mut units = [0x61u16; 32];
            for u in units.iter_mut() {
                seed ^= seed << 13;
                seed ^= seed >> 17;
                seed ^= seed << 5;
                if seed.is_multiple_of(5) {
                    *u = UNITS[(seed >> 8) as usize % 16];
                }
            }
            // Pairs too (the draws above make mostly lone halves): 😀 or U+10FFFF
            // at a random place, the last unit's included (its low half would be in
            // the next block).
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            if seed.is_multiple_of(2) {
                let at = (seed >> 4) as usize % 32;
                let pair = if seed & 8 == 0 {
                    [0xD83D, 0xDE00]
                } else {
                    [0xDBFF, 0xDFFF]
                };
                units[at] = pair[0];
                if let Some(u) = units.get_mut(at + 1) {
                    *u = pair[1];
                }
            }
            let mut src = [0u8; 64];
            for (pair, u) in src.chunks_exact_mut(2).zip(units) {
                pair.copy_from_slice(&u.to_le_bytes());
            }
            let surrogate = units.iter().any(|u| (0xD800..0xE000).contains(u));
            let lone = char::decode_utf16(units).any(|c| c.is_err());
            let mut pairs = 0;
            let control = units
                .iter()
                .any(|&u| (u < 0x20 && u != 9 && u != 10) || u == 0x7F);
            let mut dst = [0u8; 96];
            for kept in [false, true] {
                let got = if kept {
                    cpu.encode32::<true>(&src, &mut dst)
                } else {
                    cpu.encode32::<false>(&src, &mut dst)
                };
                if lone || (kept && (surrogate || control)) {
                    assert_eq!(got, None, "{units:x?}");
                    continue;
                }
                pairs += usize::from(surrogate);
                let want = String::from_utf16(&units).unwrap();
                let got = got.unwrap();
                assert_eq!(&dst[..got.len], want.as_bytes(), "{units:x?}");
                let non_ascii = units
                    .iter()
                    .enumerate()
                    .filter(|(_, u)| **u >= 0x80)
                    .fold(0u32, |m, (k, _)| m | 1 << k);
                assert_eq!(got.non_ascii, non_ascii);
            }
            encoded_pairs += pairs;
        }
        assert!(
            encoded_pairs > 1000,
            "{encoded_pairs} blocks with pairs encoded"
        );
    }
}
