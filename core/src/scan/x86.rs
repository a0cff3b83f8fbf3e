//! x86-64 block backends: SSE2 (always present on x86-64) and AVX2 (picked at run
//! time with `cpufeatures`, which works without `std`). The only unsafe code of the
//! crate: unaligned vector loads from slices, and the call into AVX2 code once the
//! CPU is known to have it.

use core::arch::x86_64::{
    __m128i, __m256i, _mm_cmpeq_epi8, _mm_cmpgt_epi8, _mm_loadu_si128, _mm_movemask_epi8,
    _mm_or_si128, _mm_set_epi64x, _mm_set1_epi8, _mm_setzero_si128, _mm256_and_si256,
    _mm256_broadcastsi128_si256, _mm256_cmpeq_epi8, _mm256_cmpgt_epi8, _mm256_loadu_si256,
    _mm256_min_epu8, _mm256_movemask_epi8, _mm256_or_si256, _mm256_set1_epi8, _mm256_shuffle_epi8,
    _mm256_srli_epi16, _mm256_storeu_si256, _mm256_sub_epi8, _mm256_testz_si256, _mm256_xor_si256,
};

use super::{Backend, Finder};

cpufeatures::new!(cpuid_avx2, "avx2");

/// AVX2 when the CPU has it, else SSE2. AVX-512 is not used: the scan is bound by
/// memory bandwidth at 32 bytes a vector already, and valgrind cannot run it.
#[inline]
pub(super) fn detect() -> Backend {
    if cpuid_avx2::get() {
        Backend::Avx2
    } else {
        Backend::Sse2
    }
}

/// A 16-byte table as a vector.
#[inline]
#[target_feature(enable = "sse2")]
fn table(t: [u8; 16]) -> __m128i {
    let v = u128::from_le_bytes(t);
    // Truncating casts split the 128 bits into the two 64-bit lanes.
    _mm_set_epi64x((v >> 64) as u64 as i64, v as u64 as i64)
}

/// Candidate bits of one 16-byte vector: a superset of the set's members.
#[inline]
#[target_feature(enable = "sse2")]
fn sse2_vector(v: __m128i, f: &Finder) -> u64 {
    if f.every {
        return 0xFFFF;
    }
    let mut acc = if f.non_ascii { v } else { _mm_setzero_si128() };
    if f.controls {
        // Signed: bytes below 0x20 and every byte from 0x80 up (a superset).
        acc = _mm_or_si128(acc, _mm_cmpgt_epi8(_mm_set1_epi8(0x20), v));
    }
    for &c in f.eq_bytes() {
        acc = _mm_or_si128(acc, _mm_cmpeq_epi8(v, _mm_set1_epi8(c as i8)));
    }
    // The mask has 16 bits.
    u64::from(_mm_movemask_epi8(acc) as u32 & 0xFFFF)
}

/// The first 64-byte block of `blocks` (a multiple of 64 bytes) with a candidate, by
/// 16-byte SSE2 vectors.
#[inline]
pub(super) fn sse2_blocks(blocks: &[u8], f: &Finder) -> Option<(usize, u64)> {
    // SAFETY: SSE2 is part of the x86-64 baseline; every x86-64 CPU has it.
    unsafe { sse2_blocks_unchecked(blocks, f) }
}

/// [`sse2_blocks`] without the CPU check.
///
/// # Safety
///
/// * The CPU must support SSE2 (every x86-64 CPU does).
#[target_feature(enable = "sse2")]
unsafe fn sse2_blocks_unchecked(blocks: &[u8], f: &Finder) -> Option<(usize, u64)> {
    for (k, chunk) in blocks.chunks_exact(64).enumerate() {
        let mut mask = 0u64;
        for (j, part) in chunk.chunks_exact(16).enumerate() {
            // SAFETY: `part` is 16 readable bytes and `loadu` has no alignment
            // requirement.
            let v = unsafe { _mm_loadu_si128(part.as_ptr().cast()) };
            mask |= sse2_vector(v, f) << ((j & 3) << 4);
        }
        if mask != 0 {
            return Some((k.saturating_mul(64), mask));
        }
    }
    None
}

/// The first 64-byte block of the first `whole` bytes of `data` with a member of the
/// set, by 32-byte AVX2 vectors; SSE2 when the CPU lacks AVX2. For a refined finder
/// `data` holds two more bytes after the blocks (read as the last lanes' next bytes).
#[inline]
pub(super) fn avx2_blocks(data: &[u8], whole: usize, f: &Finder) -> Option<(usize, u64)> {
    if cpuid_avx2::get() {
        // SAFETY: the CPU has AVX2 (checked just above).
        unsafe { avx2_blocks_unchecked(data, whole, f) }
    } else {
        sse2_blocks(data.get(..whole).unwrap_or_default(), f)
    }
}

/// `x == c` per byte.
#[inline]
#[target_feature(enable = "avx2")]
fn eq(x: __m256i, c: u8) -> __m256i {
    _mm256_cmpeq_epi8(x, _mm256_set1_epi8(c as i8))
}

/// `lo <= x <= hi` per byte, unsigned.
#[inline]
#[target_feature(enable = "avx2")]
fn within(x: __m256i, lo: u8, hi: u8) -> __m256i {
    let d = _mm256_sub_epi8(x, _mm256_set1_epi8(lo as i8));
    _mm256_cmpeq_epi8(
        _mm256_min_epu8(d, _mm256_set1_epi8(hi.wrapping_sub(lo) as i8)),
        d,
    )
}

/// 0xFF where byte `v` is an attention lead byte whose next bytes `s`, `t` (the same
/// lanes of the vectors loaded one and two bytes further) pass `lead_may_attend`.
#[inline]
#[target_feature(enable = "avx2")]
fn lead_pairs(v: __m256i, s: __m256i, t: __m256i) -> __m256i {
    let or = _mm256_or_si256;
    let and = _mm256_and_si256;
    let c2 = and(eq(v, 0xC2), or(within(s, 0x80, 0x9F), eq(s, 0xAD)));
    let e1 = and(eq(v, 0xE1), or(eq(s, 0x85), eq(s, 0xA0)));
    let t80 = or(within(t, 0x8B, 0x8D), within(t, 0xAA, 0xAE));
    let e2 = and(
        eq(v, 0xE2),
        or(
            and(eq(s, 0x80), t80),
            and(eq(s, 0x81), within(t, 0xA0, 0xA9)),
        ),
    );
    let e3 = and(eq(v, 0xE3), eq(s, 0x85));
    let ef = and(eq(v, 0xEF), or(eq(s, 0xB8), eq(s, 0xBB)));
    let f3 = and(eq(v, 0xF3), eq(s, 0xA0));
    or(or(or(c2, e1), or(e2, e3)), or(ef, f3))
}

/// Exact membership of each byte of `v` (0xFF where a member): the low nibble picks a
/// byte of the half table for the byte's top bit, the high nibble picks a bit of it.
#[inline]
#[target_feature(enable = "avx2")]
fn truffle(v: __m256i, lo: __m256i, hi: __m256i, bits: __m256i) -> __m256i {
    // A shuffle index with bit 7 set yields 0, so each table answers for its half.
    let m_lo = _mm256_shuffle_epi8(lo, v);
    let m_hi = _mm256_shuffle_epi8(hi, _mm256_xor_si256(v, _mm256_set1_epi8(i8::MIN)));
    let m = _mm256_or_si256(m_lo, m_hi);
    let nibble = _mm256_and_si256(_mm256_srli_epi16::<4>(v), _mm256_set1_epi8(0x0F));
    let bit = _mm256_shuffle_epi8(bits, nibble);
    _mm256_cmpeq_epi8(_mm256_and_si256(m, bit), bit)
}

/// [`avx2_blocks`] without the CPU check.
///
/// # Safety
///
/// * The CPU must support AVX2.
#[target_feature(enable = "avx2")]
unsafe fn avx2_blocks_unchecked(data: &[u8], whole: usize, f: &Finder) -> Option<(usize, u64)> {
    let lo = _mm256_broadcastsi128_si256(table(f.lo));
    let hi = _mm256_broadcastsi128_si256(table(f.hi));
    let bits = _mm256_broadcastsi128_si256(table([
        1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128,
    ]));
    let ahead = if f.refined { 2 } else { 0 };
    let mut p = 0usize;
    while p < whole {
        let end = p.saturating_add(64);
        let Some(w) = data.get(p..end.saturating_add(ahead)) else {
            break;
        };
        // SAFETY: `w` has at least 64 readable bytes and `loadu` has no alignment
        // requirement.
        let (va, vb) = unsafe {
            (
                _mm256_loadu_si256(w.as_ptr().cast()),
                _mm256_loadu_si256(w.as_ptr().add(32).cast()),
            )
        };
        let mut ha = truffle(va, lo, hi, bits);
        let mut hb = truffle(vb, lo, hi, bits);
        let any = _mm256_or_si256(ha, hb);
        if _mm256_testz_si256(any, any) == 0 {
            if f.refined {
                let non_ascii = _mm256_or_si256(va, vb);
                let lead = _mm256_and_si256(any, non_ascii);
                if _mm256_movemask_epi8(lead) != 0 {
                    // SAFETY: a refined finder's `w` has 66 readable bytes, so the
                    // loads at offsets 1, 2, 33 and 34 read 32 bytes each within it.
                    let (sa, ta, sb, tb) = unsafe {
                        let at = w.as_ptr();
                        (
                            _mm256_loadu_si256(at.add(1).cast()),
                            _mm256_loadu_si256(at.add(2).cast()),
                            _mm256_loadu_si256(at.add(33).cast()),
                            _mm256_loadu_si256(at.add(34).cast()),
                        )
                    };
                    let minus_one = _mm256_set1_epi8(-1);
                    // Keep ASCII members, and non-ASCII ones whose pair passes.
                    let keep_a =
                        _mm256_or_si256(_mm256_cmpgt_epi8(va, minus_one), lead_pairs(va, sa, ta));
                    let keep_b =
                        _mm256_or_si256(_mm256_cmpgt_epi8(vb, minus_one), lead_pairs(vb, sb, tb));
                    ha = _mm256_and_si256(ha, keep_a);
                    hb = _mm256_and_si256(hb, keep_b);
                }
            }
            let ma = u64::from(_mm256_movemask_epi8(ha) as u32);
            let mb = u64::from(_mm256_movemask_epi8(hb) as u32);
            let mask = ma | (mb << 32);
            if mask != 0 {
                return Some((p, mask));
            }
        }
        p = end;
    }
    None
}

/// `bytes` as text when the CPU has AVX2 and `bytes` is UTF-8, by simdutf8's AVX2
/// validator (its own run-time selection needs `std`). `None` otherwise: the caller
/// falls back to `core::str::from_utf8`, which also locates an error.
#[inline]
pub(super) fn validate_utf8(bytes: &[u8]) -> Option<&str> {
    if !cpuid_avx2::get() {
        return None;
    }
    // SAFETY: the CPU has AVX2 (checked just above), which the validator requires.
    let valid = unsafe { simdutf8::basic::imp::x86::avx2::validate_utf8(bytes) };
    match valid {
        // SAFETY: simdutf8 validated `bytes` as UTF-8 just above.
        Ok(()) => Some(unsafe { core::str::from_utf8_unchecked(bytes) }),
        Err(_) => None,
    }
}

/// Copies `src` to the start of `dst` by 32-byte AVX2 moves, which keep their speed
/// whatever the two alignments (the `rep movsb` of memcpy does not on some CPUs).
/// `false`, copying nothing, when the CPU lacks AVX2 or `dst` is too short.
#[inline]
pub(super) fn copy(dst: &mut [u8], src: &[u8]) -> bool {
    let Some(dst) = dst.get_mut(..src.len()) else {
        return false;
    };
    if !cpuid_avx2::get() {
        return false;
    }
    // SAFETY: the CPU has AVX2 (checked just above).
    unsafe { copy_unchecked(dst, src) };
    true
}

/// [`copy`] without the checks; `dst` and `src` have the same length.
///
/// # Safety
///
/// * The CPU must support AVX2.
#[target_feature(enable = "avx2")]
unsafe fn copy_unchecked(dst: &mut [u8], src: &[u8]) {
    let mut d = dst.chunks_exact_mut(128);
    let mut s = src.chunks_exact(128);
    for (dc, sc) in (&mut d).zip(&mut s) {
        // SAFETY: both chunks are 128 bytes; `loadu`/`storeu` have no alignment
        // requirement, and the loads complete before the stores (no overlap anyway:
        // `dst` is borrowed mutably apart from `src`).
        unsafe {
            let sp = sc.as_ptr();
            let dp = dc.as_mut_ptr();
            let v0 = _mm256_loadu_si256(sp.cast());
            let v1 = _mm256_loadu_si256(sp.add(32).cast());
            let v2 = _mm256_loadu_si256(sp.add(64).cast());
            let v3 = _mm256_loadu_si256(sp.add(96).cast());
            _mm256_storeu_si256(dp.cast(), v0);
            _mm256_storeu_si256(dp.add(32).cast(), v1);
            _mm256_storeu_si256(dp.add(64).cast(), v2);
            _mm256_storeu_si256(dp.add(96).cast(), v3);
        }
    }
    let (dr, sr) = (d.into_remainder(), s.remainder());
    let mut d = dr.chunks_exact_mut(32);
    let mut s = sr.chunks_exact(32);
    for (dc, sc) in (&mut d).zip(&mut s) {
        // SAFETY: both chunks are 32 bytes; no alignment requirement.
        unsafe {
            _mm256_storeu_si256(
                dc.as_mut_ptr().cast(),
                _mm256_loadu_si256(sc.as_ptr().cast()),
            )
        };
    }
    let dr = d.into_remainder();
    dr.copy_from_slice(s.remainder().get(..dr.len()).unwrap_or_default());
}
