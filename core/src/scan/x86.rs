//! x86-64 block backends: SSE2 (always present on x86-64) and AVX2 (picked at run
//! time with `cpufeatures`, which works without `std`). The only unsafe code of the
//! crate: unaligned vector loads from slices, and the call into AVX2 code once the
//! CPU is known to have it.

use core::arch::x86_64::{
    __m128i, __m256i, _mm_cmpeq_epi8, _mm_cmpgt_epi8, _mm_loadu_si128, _mm_movemask_epi8,
    _mm_or_si128, _mm_set_epi64x, _mm_set1_epi8, _mm_setzero_si128, _mm256_and_si256,
    _mm256_broadcastsi128_si256, _mm256_cmpeq_epi8, _mm256_loadu_si256, _mm256_movemask_epi8,
    _mm256_or_si256, _mm256_set1_epi8, _mm256_shuffle_epi8, _mm256_srli_epi16, _mm256_testz_si256,
    _mm256_xor_si256,
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

/// The first 64-byte block of `blocks` with a member of the set, by 32-byte AVX2
/// vectors; SSE2 when the CPU lacks AVX2.
#[inline]
pub(super) fn avx2_blocks(blocks: &[u8], f: &Finder) -> Option<(usize, u64)> {
    if cpuid_avx2::get() {
        // SAFETY: the CPU has AVX2 (checked just above).
        unsafe { avx2_blocks_unchecked(blocks, f) }
    } else {
        sse2_blocks(blocks, f)
    }
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
unsafe fn avx2_blocks_unchecked(blocks: &[u8], f: &Finder) -> Option<(usize, u64)> {
    let lo = _mm256_broadcastsi128_si256(table(f.lo));
    let hi = _mm256_broadcastsi128_si256(table(f.hi));
    let bits = _mm256_broadcastsi128_si256(table([
        1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128,
    ]));
    for (k, chunk) in blocks.chunks_exact(64).enumerate() {
        let (a, b) = chunk.split_at(32);
        // SAFETY: `a` and `b` are 32 readable bytes each and `loadu` has no alignment
        // requirement.
        let (va, vb) = unsafe {
            (
                _mm256_loadu_si256(a.as_ptr().cast()),
                _mm256_loadu_si256(b.as_ptr().cast()),
            )
        };
        let ha = truffle(va, lo, hi, bits);
        let hb = truffle(vb, lo, hi, bits);
        let any = _mm256_or_si256(ha, hb);
        if _mm256_testz_si256(any, any) == 0 {
            let ma = u64::from(_mm256_movemask_epi8(ha) as u32);
            let mb = u64::from(_mm256_movemask_epi8(hb) as u32);
            return Some((k.saturating_mul(64), ma | (mb << 32)));
        }
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
