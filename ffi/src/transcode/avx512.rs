//! UTF-16 → UTF-8 thirty-two units at a time with AVX-512 (BW and VL for the
//! compares and the narrowing, VBMI for `vpmultishiftqb`, VBMI2 for `vpcompressb`),
//! on CPUs that have it. An ASCII block is narrowed; a block below U+0800 is
//! encoded in its 16-bit lanes; any other is widened to 32-bit lanes, each encoded
//! there as one, two or three bytes (four from a surrogate pair's high half, none
//! from its low half). The bytes are packed together by a compress with the lanes'
//! byte mask. A block holding a lone surrogate or a pair split by its end (or, for
//! sanitize, any surrogate or an ASCII control) is left to the caller's unit-wise
//! path. The SSE2 steps (`blocks.rs`) remain for every other CPU.

use core::arch::x86_64::{
    __m256i, __m512i, _mm256_storeu_si256, _mm512_add_epi32, _mm512_alignr_epi32, _mm512_and_si512,
    _mm512_castsi512_si256, _mm512_cmpeq_epi16_mask, _mm512_cmpge_epu8_mask,
    _mm512_cmpge_epu16_mask, _mm512_cmplt_epu16_mask, _mm512_cvtepi16_epi8, _mm512_cvtepu16_epi32,
    _mm512_extracti64x4_epi64, _mm512_loadu_si512, _mm512_mask_add_epi16, _mm512_mask_add_epi32,
    _mm512_mask_mov_epi32, _mm512_mask_storeu_epi8, _mm512_maskz_compress_epi8,
    _mm512_multishift_epi64_epi8, _mm512_or_si512, _mm512_set1_epi16, _mm512_set1_epi32,
    _mm512_set1_epi64, _mm512_setzero_si512, _mm512_slli_epi16, _mm512_slli_epi32,
    _mm512_srai_epi32, _mm512_srli_epi16, _mm512_sub_epi32, _mm512_ternarylogic_epi32,
};

cpufeatures::new!(
    cpuid_vbmi2,
    "avx512f",
    "avx512bw",
    "avx512vl",
    "avx512vbmi",
    "avx512vbmi2",
    "popcnt"
);

/// Proof that the CPU has AVX-512 F, BW, VL, VBMI, VBMI2 and POPCNT: only [`detect`] makes
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

    /// [`Avx512::encode_run`] without a `keep` test (the fence's transcoding):
    /// four blocks at a time — all ASCII narrowed, all below U+0800 each in its
    /// 16-bit lanes, any other four each the one way that takes every kind of
    /// unit — with no branch on one block's kind.
    #[inline]
    pub(crate) fn encode_run_plain(self, src: &[u8], dst: &mut [u8]) -> Run {
        // SAFETY: `self` proves the CPU features.
        unsafe { encode_run_plain(src, dst) }
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
/// The CPU must support AVX-512 F, BW, VL, VBMI, VBMI2 and POPCNT.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,popcnt")]
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

/// [`Avx512::encode_run_plain`].
///
/// # Safety
///
/// The CPU must support AVX-512 F, BW, VL, VBMI, VBMI2 and POPCNT.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,popcnt")]
unsafe fn encode_run_plain(src: &[u8], dst: &mut [u8]) -> Run {
    // In prose about two blocks in three are ASCII, at random: a branch a block on
    // its kind mispredicts at every change, and that cost more than the encoding.
    // Four blocks at a time instead: all ASCII (one group in five of such prose),
    // all below U+0800, or else each the way that takes every kind of unit.
    let mut blocks = 0usize;
    let mut len = 0usize;
    let mut rest = src;
    loop {
        if let Some((group, tail)) = rest.split_first_chunk::<256>()
            && let Some(d) = dst.get_mut(len..).and_then(|d| d.first_chunk_mut::<384>())
        {
            let mut wide = [_mm512_setzero_si512(); 4];
            for (w, block) in wide.iter_mut().zip(group.chunks_exact(64)) {
                *w = load(block);
            }
            let any = _mm512_or_si512(
                _mm512_or_si512(wide[0], wide[1]),
                _mm512_or_si512(wide[2], wide[3]),
            );
            let mut written = Some(0usize);
            if _mm512_cmpge_epu16_mask(any, _mm512_set1_epi16(0x80)) == 0 {
                for (units, out) in wide.into_iter().zip(d.chunks_exact_mut(32)) {
                    let bytes: __m256i = _mm512_cvtepi16_epi8(units);
                    // SAFETY: `out` is 32 writable bytes; no alignment requirement.
                    unsafe { _mm256_storeu_si256(out.as_mut_ptr().cast(), bytes) };
                }
                written = Some(128);
            } else {
                // All below U+0800 (Latin, Greek, Cyrillic… prose), or not.
                let short = _mm512_cmpge_epu16_mask(any, _mm512_set1_epi16(0x800)) == 0;
                let mut o = 0usize;
                for units in wide {
                    // `d` has room for 96 bytes a block.
                    let Some(room) = d.get_mut(o..).and_then(|r| r.first_chunk_mut::<96>()) else {
                        written = None;
                        break;
                    };
                    let n = if short {
                        let non_ascii = _mm512_cmpge_epu16_mask(units, _mm512_set1_epi16(0x80));
                        Some(short32(units, non_ascii, room))
                    } else {
                        any32::<true>(units, room)
                    };
                    let Some(n) = n else {
                        written = None;
                        break;
                    };
                    o = o.wrapping_add(n);
                }
                if written.is_some() {
                    written = Some(o);
                }
            }
            // A group that holds a lone surrogate, or a pair split by a block's end,
            // goes one block at a time below.
            if let Some(n) = written {
                rest = tail;
                blocks = blocks.wrapping_add(4);
                len = len.wrapping_add(n);
                continue;
            }
        }
        let Some((block, tail)) = rest.split_first_chunk::<64>() else {
            break;
        };
        let Some(room) = dst.get_mut(len..).and_then(|d| d.first_chunk_mut::<96>()) else {
            break;
        };
        let Some(n) = any32::<true>(load(block), room) else {
            break;
        };
        rest = tail;
        blocks = blocks.wrapping_add(1);
        len = len.wrapping_add(n);
    }
    let last = blocks
        .checked_mul(64)
        .and_then(|end| src.get(end.checked_sub(2)?..end))
        .and_then(|u| u.first_chunk::<2>());
    Run {
        units: blocks.saturating_mul(32),
        len,
        last_non_ascii: last.is_some_and(|&u| u16::from_le_bytes(u) >= 0x80),
    }
}

/// The 32 units of a 64-byte block (of a shorter slice, none: never called so).
#[target_feature(enable = "avx512f")]
#[inline]
fn load(block: &[u8]) -> __m512i {
    match block.first_chunk::<64>() {
        // SAFETY: 64 readable bytes; `loadu` has no alignment requirement.
        Some(b) => unsafe { _mm512_loadu_si512(b.as_ptr().cast()) },
        None => _mm512_setzero_si512(),
    }
}

/// Any block whose surrogates all pair within it, whatever its units, with no
/// branch on their kind: each unit in a 32-bit lane, sixteen at a time, as one to
/// three bytes (a pair as four from its high half's lane, none from its low
/// half's), the masks and markers of each lane derived from its value by
/// arithmetic. Returns the bytes written; `None` for a lone surrogate or a pair
/// split by the block's end. Without `PAIRS` the caller knows the block holds no
/// surrogate, and it is not looked for.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,popcnt")]
#[inline]
fn any32<const PAIRS: bool>(units: __m512i, dst: &mut [u8; 96]) -> Option<usize> {
    let mut lanes = [
        _mm512_cvtepu16_epi32(_mm512_castsi512_si256(units)),
        _mm512_cvtepu16_epi32(_mm512_extracti64x4_epi64::<1>(units)),
    ];
    // Per half: the lanes of a pair's high half (four bytes), and the least value
    // each byte of a lane must have to be written (a pair's low half: none is).
    let mut fours = [0u16; 2];
    let mut least = [_mm512_set1_epi32(0x0001_0101); 2];
    let surrogate = PAIRS
        && _mm512_cmpeq_epi16_mask(
            _mm512_and_si512(units, _mm512_set1_epi16(0xF800_u16.cast_signed())),
            _mm512_set1_epi16(0xD800_u16.cast_signed()),
        ) != 0;
    if surrogate {
        let (high, low) = pairs(units)?;
        // A pair's code point in its high half's lane, from that lane and the next
        // (the low half): the last lane's successor is the other half's first
        // lane, and unit 31 is no high half, so what it would read is never used.
        let next = [
            _mm512_alignr_epi32::<1>(lanes[1], lanes[0]),
            _mm512_alignr_epi32::<1>(lanes[0], lanes[1]),
        ];
        let halves = lanes.iter_mut().zip(&mut fours).zip(&mut least);
        for (((lane, four), least), (next, shift)) in halves.zip(next.into_iter().zip([0, 16])) {
            let (pair_high, pair_low) = ((high >> shift) as u16, (low >> shift) as u16);
            let offset = _mm512_add_epi32(next, _mm512_set1_epi32(PAIR_OFFSET));
            *lane = _mm512_mask_add_epi32(*lane, pair_high, _mm512_slli_epi32::<10>(*lane), offset);
            *least = _mm512_mask_mov_epi32(*least, pair_low, _mm512_set1_epi32(-1));
            *four = pair_high;
        }
    }
    // Bytes written so far: at most 49 after the first half (fifteen three-byte
    // units and a pair's four bytes; the second half then starts with that pair's
    // low half), and at most 96 in all.
    let mut len = 0usize;
    for ((x, four), least) in lanes.into_iter().zip(fours).zip(least) {
        // All ones in a lane of U+0080 or above; of U+0800 or above.
        let wide1 = _mm512_srai_epi32::<31>(_mm512_sub_epi32(_mm512_set1_epi32(0x7F), x));
        let wide2 = _mm512_srai_epi32::<31>(_mm512_sub_epi32(_mm512_set1_epi32(0x7FF), x));
        // An ASCII lane keeps its seven bits in byte 3 (the others are zero), any
        // other six bits a byte, under the markers of its length.
        let bits = _mm512_ternarylogic_epi32::<0xCA>(
            wide1,
            _mm512_set1_epi32(0x3F3F_3F3F),
            _mm512_set1_epi32(0x7F00_0000),
        );
        let tag = _mm512_ternarylogic_epi32::<0xCA>(
            wide2,
            _mm512_set1_epi32(TAG3),
            _mm512_and_si512(wide1, _mm512_set1_epi32(TAG2)),
        );
        let tag = _mm512_mask_mov_epi32(tag, four, _mm512_set1_epi32(TAG4));
        let payloads = _mm512_multishift_epi64_epi8(_mm512_set1_epi64(PAYLOAD_SHIFTS), x);
        // (payloads & bits) | tag.
        let encoded = _mm512_ternarylogic_epi32::<0xEA>(payloads, bits, tag);
        // A lane's byte 3 always counts, bytes 0–2 when not zero (the tag makes
        // every byte of a sequence non-zero); a pair's low half writes none (no
        // byte of its lane reaches 0xFF).
        let keep = _mm512_cmpge_epu8_mask(encoded, least);
        let n = keep.count_ones();
        let packed = _mm512_maskz_compress_epi8(keep, encoded);
        let (_, room) = dst.split_at_mut(len.min(49));
        if room.len() < n as usize {
            return None;
        }
        // SAFETY: the masked store writes only the first `n` bytes, which `room`
        // holds (checked above); masked-off lanes are neither written nor faulted on.
        unsafe { _mm512_mask_storeu_epi8(room.as_mut_ptr().cast(), first(n), packed) };
        len = len.wrapping_add(n as usize);
    }
    Some(len)
}

/// Per 64-bit lane, the bit offsets `vpmultishiftqb` reads each output byte from:
/// for each of the lane's two code points (bytes 0–3 and 4–7), bits 18, 12, 6 and 0,
/// so that, masked to six bits, the bytes hold the payloads of a four-byte sequence
/// in order (of a shorter one, its last bytes).
const PAYLOAD_SHIFTS: i64 = 0x2026_2C32_0006_0C12;

/// Per 32-bit lane, the marker bits OR-ed into those bytes: a three-byte sequence
/// (`1110xxxx 10xxxxxx 10xxxxxx` in bytes 1–3), a two-byte one (bytes 2–3), a
/// four-byte one (bytes 0–3). Byte 0 of a three-byte lane and bytes 0–1 of a
/// two-byte lane stay zero: the keep test drops them.
const TAG3: i32 = 0x8080_E000_u32.cast_signed();
const TAG2: i32 = 0x80C0_0000_u32.cast_signed();
const TAG4: i32 = 0x8080_80F0_u32.cast_signed();

/// What a pair's low half plus this must add to `high << 10` for the code point:
/// `0x10000 - (0xD800 << 10) - 0xDC00`, modulo 2^32.
const PAIR_OFFSET: i32 = 0xFCA0_2400_u32.cast_signed();

/// [`Avx512::encode32`].
///
/// # Safety
///
/// The CPU must support AVX-512 F, BW, VL, VBMI, VBMI2 and POPCNT.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,popcnt")]
#[inline]
unsafe fn encode32<const KEPT: bool>(src: &[u8; 64], dst: &mut [u8; 96]) -> Option<Block32> {
    // SAFETY: `src` is 64 readable bytes; `loadu` has no alignment requirement.
    let units: __m512i = unsafe { _mm512_loadu_si512(src.as_ptr().cast()) };
    if KEPT && refused_by_sanitize(units) {
        return None;
    }
    let non_ascii = _mm512_cmpge_epu16_mask(units, _mm512_set1_epi16(0x80));
    // Three ways, by the widest unit: in mixed prose about two blocks in three are
    // ASCII and one in ten needs at most two bytes a unit. The widest way alone is
    // no faster on such prose (the branches mispredict, but the work they skip is
    // more) and five times slower on ASCII.
    if non_ascii == 0 {
        ascii32(units, dst);
        return Some(Block32 { len: 32, non_ascii });
    }
    let short = _mm512_cmplt_epu16_mask(units, _mm512_set1_epi16(0x800));
    if short == u32::MAX {
        let len = short32(units, non_ascii, dst);
        return Some(Block32 { len, non_ascii });
    }
    // With `KEPT` the block holds no surrogate (refused above).
    let len = if KEPT {
        any32::<false>(units, dst)
    } else {
        any32::<true>(units, dst)
    }?;
    Some(Block32 { len, non_ascii })
}

/// Whether sanitize decides the block unit-wise: it holds a surrogate (pairing
/// across drops, U+FE0F after a pictographic pair) or a control that step 2 drops
/// (below U+0020 but TAB and LF, and DEL).
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,popcnt")]
#[inline]
fn refused_by_sanitize(units: __m512i) -> bool {
    let surrogate = _mm512_cmpeq_epi16_mask(
        _mm512_and_si512(units, _mm512_set1_epi16(0xF800_u16.cast_signed())),
        _mm512_set1_epi16(0xD800_u16.cast_signed()),
    );
    let control = _mm512_cmplt_epu16_mask(units, _mm512_set1_epi16(0x20))
        & !_mm512_cmpeq_epi16_mask(units, _mm512_set1_epi16(0x09))
        & !_mm512_cmpeq_epi16_mask(units, _mm512_set1_epi16(0x0A));
    surrogate | control | _mm512_cmpeq_epi16_mask(units, _mm512_set1_epi16(0x7F)) != 0
}

/// The block's high and low surrogate halves, when every one is half of a pair
/// within the block: every low half right after a high one, and no high half in
/// the last unit (its low half, if any, is in the next block). `None` when one is
/// lone, or its partner is in another block.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,popcnt")]
#[inline]
fn pairs(units: __m512i) -> Option<(u32, u32)> {
    let ten_bits = _mm512_and_si512(units, _mm512_set1_epi16(0xFC00_u16.cast_signed()));
    let high = _mm512_cmpeq_epi16_mask(ten_bits, _mm512_set1_epi16(0xD800_u16.cast_signed()));
    let low = _mm512_cmpeq_epi16_mask(ten_bits, _mm512_set1_epi16(0xDC00_u16.cast_signed()));
    (u64::from(high) << 1 == u64::from(low)).then_some((high, low))
}

/// An all-ASCII block: the low bytes, 32 of them.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,popcnt")]
#[inline]
fn ascii32(units: __m512i, dst: &mut [u8; 96]) {
    let bytes: __m256i = _mm512_cvtepi16_epi8(units);
    // SAFETY: `dst` has at least 32 writable bytes; no alignment requirement.
    unsafe { _mm256_storeu_si256(dst.as_mut_ptr().cast(), bytes) };
}

/// A block of units below U+0800 (`non_ascii`: those of U+0080 or above): one or
/// two bytes a unit (ASCII, Latin, Greek, Cyrillic, Hebrew, Arabic…), encoded in
/// the unit's own 16-bit lane — `110xxxxx` from bits 6–10 in the low byte,
/// `10xxxxxx` from bits 0–5 in the high one, ASCII units as they are — and packed
/// by one compress. Returns the bytes written (32 to 64).
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,popcnt")]
#[inline]
fn short32(units: __m512i, non_ascii: u32, dst: &mut [u8; 96]) -> usize {
    let payloads = _mm512_ternarylogic_epi32::<0xA8>(
        _mm512_slli_epi16::<8>(units),
        _mm512_srli_epi16::<6>(units),
        _mm512_set1_epi16(0x3F3F),
    );
    let encoded = _mm512_mask_add_epi16(
        units,
        non_ascii,
        payloads,
        _mm512_set1_epi16(0x80C0_u16.cast_signed()),
    );
    // Every low byte, and the high byte of a two-byte lane (at least 0x80; an
    // ASCII lane's is zero).
    let keep = _mm512_cmpge_epu8_mask(encoded, _mm512_set1_epi16(0x0800));
    let n = keep.count_ones();
    let packed = _mm512_maskz_compress_epi8(keep, encoded);
    // SAFETY: the masked store writes only the first `n <= 64` bytes, which `dst`
    // holds; masked-off lanes are neither written nor faulted on.
    unsafe { _mm512_mask_storeu_epi8(dst.as_mut_ptr().cast(), first(n), packed) };
    n as usize
}

/// A byte mask of the first `n` lanes (`n` at most 64).
#[inline]
fn first(n: u32) -> u64 {
    u64::MAX.checked_shr(64u32.saturating_sub(n)).unwrap_or(0)
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

    /// `units` as UTF-16LE bytes.
    fn le(units: &[u16; 32]) -> [u8; 64] {
        let mut src = [0u8; 64];
        for (pair, u) in src.chunks_exact_mut(2).zip(units) {
            pair.copy_from_slice(&u.to_le_bytes());
        }
        src
    }

    /// `encode32` against std on `units` (which hold no lone surrogate), both ways.
    fn check(cpu: Avx512, units: &[u16; 32]) {
        let src = le(units);
        let want = String::from_utf16(units).unwrap();
        let non_ascii = units
            .iter()
            .enumerate()
            .filter(|(_, u)| **u >= 0x80)
            .fold(0u32, |m, (k, _)| m | 1 << k);
        let mut dst = [0xA5u8; 96];
        let got = cpu.encode32::<false>(&src, &mut dst).unwrap();
        assert_eq!(&dst[..got.len], want.as_bytes(), "{units:x?}");
        assert_eq!(got.non_ascii, non_ascii, "{units:x?}");
        // Nothing written past the encoding.
        assert!(dst[got.len..].iter().all(|&b| b == 0xA5), "{units:x?}");
    }

    #[test]
    fn every_unit_at_every_place_in_each_kind_of_block() {
        let Some(cpu) = detect() else {
            return; // nothing to compare on this CPU
        };
        // The three ways a block is encoded — all ASCII, all below U+0800, any
        // other — each entered with every BMP scalar value at a few places: an
        // ASCII block, a two-byte block, and a block with a three-byte unit and a
        // pair elsewhere.
        let backgrounds: [[u16; 32]; 3] = [
            [0x61; 32],
            core::array::from_fn(|k| if k % 3 == 0 { 0xE9 } else { 0x3B1 + k as u16 }),
            core::array::from_fn(|k| match k {
                20 => 0xD83D,
                21 => 0xDE00,
                9 => 0x2014,
                _ => 0x6F,
            }),
        ];
        for background in backgrounds {
            for u in (0..=0xFFFFu16).filter(|u| !(0xD800..0xE000).contains(u)) {
                for at in [0, 15, 16, 31] {
                    if (20..22).contains(&at) && background[20] == 0xD83D {
                        continue;
                    }
                    let mut units = background;
                    units[at] = u;
                    check(cpu, &units);
                }
            }
        }
    }

    #[test]
    fn pairs_at_every_place_and_blocks_of_only_pairs() {
        let Some(cpu) = detect() else {
            return; // nothing to compare on this CPU
        };
        for (hi, lo) in [
            (0xD800, 0xDC00),
            (0xD83D, 0xDE00),
            (0xDBFF, 0xDFFF),
            (0xD835, 0xDC9C),
        ] {
            // One pair at each place, in ASCII and in CJK.
            for fill in [0x61u16, 0x65E5] {
                for at in 0..31 {
                    let mut units = [fill; 32];
                    units[at] = hi;
                    units[at + 1] = lo;
                    check(cpu, &units);
                }
            }
            // Sixteen pairs: 64 bytes, the most a block writes.
            let units: [u16; 32] = core::array::from_fn(|k| if k % 2 == 0 { hi } else { lo });
            check(cpu, &units);
            // A high half last (its low half in the next block), or a low half
            // first: the block is refused.
            let mut units = [0x61u16; 32];
            units[31] = hi;
            assert_eq!(cpu.encode32::<false>(&le(&units), &mut [0u8; 96]), None);
            let mut units = [0x61u16; 32];
            units[0] = lo;
            assert_eq!(cpu.encode32::<false>(&le(&units), &mut [0u8; 96]), None);
        }
        // Three bytes a unit, 96 in all: the most room a block needs.
        check(cpu, &[0xFFFF; 32]);
        check(cpu, &[0x800; 32]);
        check(cpu, &[0x7FF; 32]);
    }

    /// Whether a block is one `encode_run_plain` must stop before: a lone
    /// surrogate in it, or a pair split by its end.
    fn refused(block: &[u16]) -> bool {
        let high = |u: u16| (0xD800..0xDC00).contains(&u);
        let low = |u: u16| (0xDC00..0xE000).contains(&u);
        block.iter().enumerate().any(|(k, &u)| {
            (high(u) && !block.get(k + 1).is_some_and(|&n| low(n)))
                || (low(u) && !(k > 0 && high(block[k - 1])))
        })
    }

    #[test]
    fn plain_runs_match_std_and_stop_where_they_must() {
        let Some(cpu) = detect() else {
            return; // nothing to compare on this CPU
        };
        // Words of each kind, so that groups of four blocks come out all ASCII, all
        // below U+0800, or mixed, and lone halves now and then.
        const WORDS: [&[u16]; 10] = [
            &[0x61, 0x62, 0x20],
            &[0x74, 0x68, 0x65, 0x20, 0x67, 0x61, 0x74, 0x65, 0x20],
            &[0xE9, 0x3B1, 0x20],
            &[0x436, 0x7FF, 0x80],
            // Three bytes from U+0800, not only from U+1000.
            &[0x905, 0x800, 0xFFF],
            &[0x2014, 0x65E5, 0xFFFF],
            &[0xD83D, 0xDE00],
            &[0x0A, 0x00, 0x7F],
            &[0xD800],
            &[0xDFFF],
        ];
        let mut seed = 7u32;
        let mut next = |n: u32| {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            seed % n
        };
        let mut stops = 0;
        for round in 0..3000 {
            // Long ASCII or long Latin stretches in some rounds, mixed in others;
            // lone halves in one round in three.
            let (kinds, lone) = match round % 6 {
                0 => (2, false),
                1 => (4, false),
                2 => (5, false),
                3 => (10, true),
                _ => (8, round % 2 == 0),
            };
            let mut units = Vec::new();
            let target = 32 * (1 + next(40) as usize) + next(32) as usize;
            while units.len() < target {
                let w = WORDS[next(if lone { kinds } else { kinds.min(8) }) as usize];
                units.extend_from_slice(w);
            }
            units.truncate(target);
            let src: Vec<u8> = units.iter().flat_map(|u| u.to_le_bytes()).collect();
            let blocks = units.len() / 32;
            let stop = (0..blocks)
                .find(|&b| refused(&units[32 * b..32 * b + 32]))
                .unwrap_or(blocks);
            stops += usize::from(stop < blocks);
            // Room for every block, or for fewer than `stop` of them.
            let room_blocks = if round % 5 == 4 {
                next(blocks as u32 + 1) as usize
            } else {
                blocks
            };
            let mut dst = vec![0u8; 96 * room_blocks];
            let run = cpu.encode_run_plain(&src, &mut dst);
            // Up to the refused block, or until `dst` has no room for another
            // block's worst case (96 bytes).
            assert!(run.units <= 32 * stop, "{round}");
            assert!(
                run.units == 32 * stop || dst.len() - run.len < 96,
                "{round}: stopped at block {} of {stop} with {} bytes of room",
                run.units / 32,
                dst.len() - run.len
            );
            assert!(run.units.is_multiple_of(32));
            let want = String::from_utf16(&units[..run.units]).unwrap();
            assert_eq!(&dst[..run.len], want.as_bytes(), "{round}");
            if run.units > 0 {
                assert_eq!(run.last_non_ascii, units[run.units - 1] >= 0x80, "{round}");
            }
            if room_blocks == blocks {
                assert_eq!(run.units, 32 * stop, "{round}");
            }
        }
        assert!(stops > 300, "{stops} runs stopped early");
    }

    #[test]
    fn plain_runs_at_every_size_of_room_write_within_it_and_stop_only_when_they_must() {
        let Some(cpu) = detect() else {
            return; // nothing to compare on this CPU
        };
        // Blocks of each kind: ASCII; below U+0800 with its edges; three bytes
        // a unit with the edges around the surrogates (96 bytes, the most); sixteen
        // pairs; pairs across the halves' boundary and at the end; a high half last
        // with its low half first in the next block (both refused); a lone half.
        let kinds: [[u16; 32]; 8] = [
            core::array::from_fn(|k| 0x41 + k as u16),
            core::array::from_fn(|k| [0x80, 0x7FF, 0x61, 0x3B1][k % 4]),
            core::array::from_fn(|k| [0x800, 0xD7FF, 0xE000, 0xFFFF][k % 4]),
            core::array::from_fn(|k| if k % 2 == 0 { 0xDBFF } else { 0xDC00 }),
            core::array::from_fn(|k| match k {
                15 | 29 => 0xD83D,
                16 | 30 => 0xDE00,
                31 => 0x7FF,
                _ => 0xFFFF,
            }),
            // (Its other units short enough that a wrong pair's four bytes would
            // fit in 96: the room check in `any32` must not be what refuses it.)
            core::array::from_fn(|k| match k {
                31 => 0xD800,
                _ if k % 2 == 0 => 0x65E5,
                _ => 0x61,
            }),
            core::array::from_fn(|k| if k == 0 { 0xDFFF } else { 0xE9 }),
            core::array::from_fn(|k| if k == 7 { 0xDC00 } else { 0x61 }),
        ];
        let mut seed = 3u32;
        let mut next = |n: u32| {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            seed % n
        };
        for source in 0..80 {
            let blocks = 1 + next(10) as usize;
            // Mostly the kinds that encode, so that runs reach the end of the room.
            let units: Vec<u16> = (0..blocks)
                .flat_map(|_| {
                    let kind = if source % 2 == 0 { next(5) } else { next(8) };
                    kinds[kind as usize]
                })
                .collect();
            let src: Vec<u8> = units.iter().flat_map(|u| u.to_le_bytes()).collect();
            let stop = (0..blocks)
                .find(|&b| refused(&units[32 * b..32 * b + 32]))
                .unwrap_or(blocks);
            let whole = String::from_utf16_lossy(&units).len();
            for room in 0..=whole + 100 {
                let mut out = vec![0xA5u8; room + 128];
                let run = cpu.encode_run_plain(&src, &mut out[..room]);
                let at = format!("source {source}, room {room}: {run:?} of {stop}");
                assert!(out[room..].iter().all(|&b| b == 0xA5), "{at}");
                assert!(
                    run.units.is_multiple_of(32) && run.units <= 32 * stop,
                    "{at}"
                );
                // Stopped at the refused block (or the end), or with no room for
                // another block's worst case.
                assert!(run.units == 32 * stop || room - run.len < 96, "{at}");
                let want = String::from_utf16(&units[..run.units]).unwrap();
                assert_eq!(&out[..run.len], want.as_bytes(), "{at}");
                let last = run.units.checked_sub(1).map(|k| units[k]);
                assert_eq!(run.last_non_ascii, last.is_some_and(|u| u >= 0x80), "{at}");
            }
        }
    }
}
