//! Step 1's stops (`escapes.rs`) with AVX2: 32 positions a step, the block compared
//! with itself loaded one byte further for the introducers' second bytes.

use core::arch::x86_64::{
    _mm256_and_si256, _mm256_cmpeq_epi8, _mm256_loadu_si256, _mm256_movemask_epi8, _mm256_or_si256,
    _mm256_set1_epi8,
};

use super::escapes::next_escape_swar;
use super::x86::Avx2;

/// [`super::backend::next_escape`] with AVX2.
#[inline]
pub(super) fn next_escape_avx2(bytes: &[u8], from: usize, _cpu: Avx2) -> Option<usize> {
    // SAFETY: the CPU has AVX2 (an `Avx2` exists only once detected).
    unsafe { next_escape_unchecked(bytes, from) }
}

/// # Safety
///
/// * The CPU must support AVX2.
#[target_feature(enable = "avx2")]
unsafe fn next_escape_unchecked(bytes: &[u8], from: usize) -> Option<usize> {
    let esc = _mm256_set1_epi8(0x1B);
    let c2 = _mm256_set1_epi8(0xC2_u8.cast_signed());
    let high = _mm256_set1_epi8(0xF0_u8.cast_signed());
    let c1 = _mm256_set1_epi8(0x90_u8.cast_signed());
    let mut p = from;
    // Each step reads bytes p..p + 33: the block and its second bytes.
    while let Some(w) = bytes.get(p..p.saturating_add(33)) {
        // SAFETY: `w` is 33 bytes, so both 32-byte loads (at 0 and 1) are within it;
        // `loadu` has no alignment requirement.
        let (a, b) = unsafe {
            (
                _mm256_loadu_si256(w.as_ptr().cast()),
                _mm256_loadu_si256(w.as_ptr().add(1).cast()),
            )
        };
        let introducer = _mm256_and_si256(
            _mm256_cmpeq_epi8(a, c2),
            _mm256_cmpeq_epi8(_mm256_and_si256(b, high), c1),
        );
        let stops = _mm256_or_si256(_mm256_cmpeq_epi8(a, esc), introducer);
        let bits = _mm256_movemask_epi8(stops).cast_unsigned();
        if bits != 0 {
            // Under 32, so the sum is in range.
            let k = usize::try_from(bits.trailing_zeros()).unwrap_or(0);
            return Some(p.saturating_add(k));
        }
        p = p.saturating_add(32);
    }
    next_escape_swar(bytes, p)
}
