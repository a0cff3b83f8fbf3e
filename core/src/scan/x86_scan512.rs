//! The block scan with AVX-512 BW (issue 17): one 64-byte vector a block, its
//! candidate mask straight from a mask register. The same tests as the AVX2 scan
//! (`x86::avx2_blocks`): exact set membership by nibble tables ("truffle"), and for
//! a refined finder the lead refinement by the nibble tables of `pairs.rs`.

use core::arch::x86_64::{
    __m512i, _mm512_and_si512, _mm512_broadcast_i32x4, _mm512_loadu_si512, _mm512_movepi8_mask,
    _mm512_or_si512, _mm512_set1_epi8, _mm512_shuffle_epi8, _mm512_srli_epi16,
    _mm512_test_epi8_mask, _mm512_xor_si512,
};

use super::Finder;
use super::pairs::{HALVES, PAIRS};
use super::x86::{Vbmi2, table};

/// The first 64-byte block of the first `whole` bytes of `data` with a candidate
/// (as `x86::avx2_blocks`); for a refined finder `data` holds two more bytes after
/// the blocks.
#[inline]
pub(super) fn avx512_blocks(
    data: &[u8],
    whole: usize,
    f: &Finder,
    _cpu: Vbmi2,
) -> Option<(usize, u64)> {
    // SAFETY: the CPU has AVX-512 F and BW (a `Vbmi2` exists only once detected).
    unsafe { avx512_blocks_unchecked(data, whole, f) }
}

/// A 16-byte table in every 128-bit lane.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn lanes(t: [u8; 16]) -> __m512i {
    _mm512_broadcast_i32x4(table(t))
}

/// Bit `i` set where byte `i` of `v` and the same bytes of `s`, `t` (loaded one and
/// two bytes further) pass the lead refinement's tables.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn lead_pairs64(v: __m512i, s: __m512i, t: __m512i) -> u64 {
    let low = _mm512_set1_epi8(0x0F);
    let hi = |x: __m512i| _mm512_and_si512(_mm512_srli_epi16::<4>(x), low);
    let lo = |x: __m512i| _mm512_and_si512(x, low);
    let nibbles = [hi(v), lo(v), hi(s), lo(s), hi(t), lo(t)];
    let lookups = |tables: &[[u8; 16]; 6]| {
        let mut acc = _mm512_set1_epi8(-1);
        for (&tb, &n) in tables.iter().zip(&nibbles) {
            acc = _mm512_and_si512(acc, _mm512_shuffle_epi8(lanes(tb), n));
        }
        acc
    };
    let [low_groups, high_groups] = &HALVES;
    let mut any = lookups(low_groups);
    if const { PAIRS.groups > 8 } {
        any = _mm512_or_si512(any, lookups(high_groups));
    }
    _mm512_test_epi8_mask(any, any)
}

/// [`avx512_blocks`] without the CPU check.
///
/// # Safety
///
/// * The CPU must support AVX-512 F and BW.
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn avx512_blocks_unchecked(data: &[u8], whole: usize, f: &Finder) -> Option<(usize, u64)> {
    let lo = lanes(f.lo);
    let hi = lanes(f.hi);
    let bits = lanes([1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128]);
    let ahead = if f.refined { 2 } else { 0 };
    let mut p = 0usize;
    while p < whole {
        let end = p.saturating_add(64);
        let Some(w) = data.get(p..end.saturating_add(ahead)) else {
            break;
        };
        // SAFETY: `w` has at least 64 readable bytes; `loadu` has no alignment
        // requirement.
        let v = unsafe { _mm512_loadu_si512(w.as_ptr().cast()) };
        // Truffle: the low nibble picks a byte of the half table for the byte's
        // top bit (a shuffle index with bit 7 set yields 0), the high nibble a bit.
        let m = _mm512_or_si512(
            _mm512_shuffle_epi8(lo, v),
            _mm512_shuffle_epi8(hi, _mm512_xor_si512(v, _mm512_set1_epi8(i8::MIN))),
        );
        let bit = _mm512_shuffle_epi8(
            bits,
            _mm512_and_si512(_mm512_srli_epi16::<4>(v), _mm512_set1_epi8(0x0F)),
        );
        let mut mask = _mm512_test_epi8_mask(m, bit);
        if mask != 0 && f.refined {
            let non_ascii = _mm512_movepi8_mask(v);
            if mask & non_ascii != 0 {
                // SAFETY: a refined finder's `w` has 66 readable bytes, so the loads
                // at offsets 1 and 2 read 64 bytes each within it.
                let (s, t) = unsafe {
                    (
                        _mm512_loadu_si512(w.as_ptr().add(1).cast()),
                        _mm512_loadu_si512(w.as_ptr().add(2).cast()),
                    )
                };
                // Keep ASCII members, and non-ASCII ones whose triple passes.
                mask &= !non_ascii | lead_pairs64(v, s, t);
            }
        }
        if mask != 0 {
            return Some((p, mask));
        }
        p = end;
    }
    None
}
