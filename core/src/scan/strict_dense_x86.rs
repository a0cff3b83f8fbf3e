//! The strict dense blocks on x86-64 (`strict_dense.rs`): AVX-512 BW compares into
//! masks and `vpcompressb`, or AVX2 compares, movemasks and `pext`. Each pattern of
//! the sets the strict profile passes down ([`DenseSets`]: D and the inert code
//! points) is compiled into compares of immediates (its set and index const
//! generics, as the reference's dense-drop kernels in `x86.rs`).

use core::arch::x86_64::{
    __m256i, __m512i, _mm256_and_si256, _mm256_andnot_si256, _mm256_cmpeq_epi8, _mm256_cmpgt_epi8,
    _mm256_loadu_si256, _mm256_min_epu8, _mm256_movemask_epi8, _mm256_or_si256, _mm256_set1_epi8,
    _mm256_setzero_si256, _mm256_sub_epi8, _mm512_cmpeq_epi8_mask, _mm512_cmple_epu8_mask,
    _mm512_mask_storeu_epi8, _mm512_maskz_compress_epi8, _mm512_maskz_loadu_epi8,
    _mm512_movepi8_mask, _mm512_set1_epi8, _mm512_sub_epi8, _pdep_u64, _pext_u64,
};

use super::strict_patterns::{DenseSets, StrictMasks, WINDOW};
use super::x86::{Bmi2, Vbmi2};
use crate::rules::Seq;

/// The code of pattern `I` of `S`'s inert set (`INERT`) or drop set, 0 past its end
/// ([`Seq::code`]).
const fn code_of<S: DenseSets, const INERT: bool, const I: usize>() -> u128 {
    Seq::nth_code(if INERT { S::INERTS } else { S::DROPS }, I)
}

/// Expands `$body` once per pattern of `$S`'s inert set (`$inert` true) or drop
/// set, with `$i` a constant naming its index (for [`code_of`]).
macro_rules! each_pattern {
    ($S:ident, $inert:literal, |$i:ident| $body:block) => {
        each_pattern!(@ $S, $inert, $i, $body,
            0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23);
    };
    (@ $S:ident, $inert:literal, $i:ident, $body:block, $($n:literal)*) => {
        $(
            {
                const $i: usize = $n;
                if const { code_of::<$S, $inert, $n>() != 0 } $body
            }
        )*
    };
}

/// The encoded length of the pattern coded `code`.
const fn enc_len(code: u128) -> usize {
    match Seq::from_code(code) {
        Some(seq) => seq.enc_len,
        None => 0,
    }
}

/// The bytes position `k` of the pattern coded `code` compares (lo, hi); `None`
/// past its length and at continuation positions allowing every continuation byte
/// (the text is UTF-8, so a lead is followed by its continuation bytes).
#[allow(clippy::indexing_slicing)]
const fn range_at(code: u128, k: usize) -> Option<(u8, u8)> {
    let Some(seq) = Seq::from_code(code) else {
        return None;
    };
    if k >= seq.len || k >= 4 {
        return None;
    }
    // `k < 4`, checked above; evaluated at compile time only.
    let (lo, hi) = (seq.lo[k], seq.hi[k]);
    if k > 0 && lo == 0x80 && hi == 0xBF {
        return None;
    }
    Some((lo, hi))
}

/// [`range_at`] of each of the four positions.
const fn ranges(code: u128) -> [Option<(u8, u8)>; 4] {
    [
        range_at(code, 0),
        range_at(code, 1),
        range_at(code, 2),
        range_at(code, 3),
    ]
}

/// `x == c` per byte, as a mask.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn eq64(x: __m512i, c: u8) -> u64 {
    _mm512_cmpeq_epi8_mask(x, _mm512_set1_epi8(c as i8))
}

/// `lo <= x <= hi` per byte, unsigned, as a mask.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn within64(x: __m512i, lo: u8, hi: u8) -> u64 {
    let d = _mm512_sub_epi8(x, _mm512_set1_epi8(lo as i8));
    _mm512_cmple_epu8_mask(d, _mm512_set1_epi8(hi.wrapping_sub(lo) as i8))
}

/// The lanes of `v[0]` where pattern `I` of a set of `S` begins (`v[k]`: the
/// lanes loaded `k` bytes further).
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn starts64<S: DenseSets, const INERT: bool, const I: usize>(v: &[__m512i; 4]) -> u64 {
    let ranges = const { ranges(code_of::<S, INERT, I>()) };
    let mut m = u64::MAX;
    for (&lanes, range) in v.iter().zip(ranges) {
        if let Some((lo, hi)) = range {
            m &= if lo == hi {
                eq64(lanes, lo)
            } else {
                within64(lanes, lo, hi)
            };
        }
    }
    m
}

/// The bytes of the code points whose leads are `lead`, each `len` bytes long.
#[inline(always)]
const fn spread(lead: u64, len: usize) -> u64 {
    let mut m = lead;
    let mut k = 1;
    while k < len && k < 4 {
        m |= lead << k;
        k = k.wrapping_add(1);
    }
    m
}

/// [`super::strict_dense::StrictKernel::masks`] with 64-byte vectors.
#[inline]
pub(super) fn masks512<S: DenseSets, const CTRL: bool>(w: &[u8], _cpu: Vbmi2) -> StrictMasks {
    // SAFETY: the CPU has AVX-512 F and BW (a `Vbmi2` exists only once detected).
    unsafe { masks512_on::<S, CTRL>(w) }
}

/// The lanes of `w` from `k` (zeros past its end), with a masked load: a short
/// text needs no padded copy (whose stores a full load could not forward from).
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn load64(w: &[u8], k: usize) -> __m512i {
    let n = w.len().saturating_sub(k);
    let mask = if n >= 64 {
        u64::MAX
    } else {
        (1u64 << n).wrapping_sub(1)
    };
    // SAFETY: the mask enables only lanes `k..k + n` of `w`, which exist; masked-off
    // lanes are neither read nor faulted on, and the pointer is not dereferenced
    // outside them (`wrapping_add`).
    unsafe { _mm512_maskz_loadu_epi8(mask, w.as_ptr().wrapping_add(k).cast()) }
}

#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn masks512_on<S: DenseSets, const CTRL: bool>(w: &[u8]) -> StrictMasks {
    let v = [load64(w, 0), load64(w, 1), load64(w, 2), load64(w, 3)];
    let [v0, v1, ..] = v;
    let mut drop_lead = 0u64;
    each_pattern!(S, false, |I| {
        drop_lead |= starts64::<S, false, I>(&v);
    });
    let mut inert = 0u64;
    each_pattern!(S, true, |I| {
        inert |= spread(
            starts64::<S, true, I>(&v),
            const { enc_len(code_of::<S, true, I>()) },
        );
    });
    StrictMasks {
        ascii: !_mm512_movepi8_mask(v0),
        keycap: eq64(v0, b'#') | eq64(v0, b'*') | within64(v0, b'0', b'9'),
        drop_lead,
        inert,
        cont: within64(v0, 0x80, 0xBF),
        ctrl: if CTRL {
            let c0 = (_mm512_cmple_epu8_mask(v0, _mm512_set1_epi8(0x1F))
                & !eq64(v0, b'\t')
                & !eq64(v0, b'\n'))
                | eq64(v0, 0x7F);
            let c1 = eq64(v0, 0xC2) & within64(v1, 0x80, 0x9F);
            c0 | c1 | c1 << 1
        } else {
            0
        },
    }
}

/// `x == c` per byte (0xFF where equal).
#[inline]
#[target_feature(enable = "avx2")]
fn eq32(x: __m256i, c: u8) -> __m256i {
    _mm256_cmpeq_epi8(x, _mm256_set1_epi8(c as i8))
}

/// `lo <= x <= hi` per byte, unsigned (0xFF where within).
#[inline]
#[target_feature(enable = "avx2")]
fn within32(x: __m256i, lo: u8, hi: u8) -> __m256i {
    let d = _mm256_sub_epi8(x, _mm256_set1_epi8(lo as i8));
    _mm256_cmpeq_epi8(
        _mm256_min_epu8(d, _mm256_set1_epi8(hi.wrapping_sub(lo) as i8)),
        d,
    )
}

/// [`starts64`] with 32-byte vectors (0xFF where a pattern begins).
#[inline]
#[target_feature(enable = "avx2")]
fn starts32<S: DenseSets, const INERT: bool, const I: usize>(v: &[__m256i; 4]) -> __m256i {
    let ranges = const { ranges(code_of::<S, INERT, I>()) };
    let mut m = _mm256_set1_epi8(-1);
    for (&lanes, range) in v.iter().zip(ranges) {
        if let Some((lo, hi)) = range {
            let hit = if lo == hi {
                eq32(lanes, lo)
            } else {
                within32(lanes, lo, hi)
            };
            m = _mm256_and_si256(m, hit);
        }
    }
    m
}

/// The masks of 32 bytes: `[ascii, keycap, drop_lead, inert leads by length 2 and
/// 3 and 4, cont, C0 controls and DEL, C1 leads]`, movemasked (no closure: closures
/// do not inherit the target features); the last two only with `CTRL`.
#[inline]
#[target_feature(enable = "avx2")]
fn half32<S: DenseSets, const CTRL: bool>(v: &[__m256i; 4]) -> [u32; 9] {
    let [v0, v1, ..] = *v;
    let zero = _mm256_setzero_si256();
    let mut drop_lead = zero;
    each_pattern!(S, false, |I| {
        drop_lead = _mm256_or_si256(drop_lead, starts32::<S, false, I>(v));
    });
    let mut inert = [zero; 3];
    each_pattern!(S, true, |I| {
        let len = const { enc_len(code_of::<S, true, I>()) };
        if let Some(l) = inert.get_mut(len.wrapping_sub(2)) {
            *l = _mm256_or_si256(*l, starts32::<S, true, I>(v));
        }
    });
    let keycap = _mm256_or_si256(
        _mm256_or_si256(eq32(v0, b'#'), eq32(v0, b'*')),
        within32(v0, b'0', b'9'),
    );
    // Signed: 0x80..=0xBF are the bytes below -0x40.
    let cont = _mm256_cmpgt_epi8(_mm256_set1_epi8(-0x40), v0);
    let [i2, i3, i4] = inert;
    let (c0, c1) = if CTRL {
        // Signed: the bytes 0x00..=0x1F are the ones above -1 and below 0x20.
        let below_20 = _mm256_and_si256(
            _mm256_cmpgt_epi8(v0, _mm256_set1_epi8(-1)),
            _mm256_cmpgt_epi8(_mm256_set1_epi8(0x20), v0),
        );
        let tab_lf = _mm256_or_si256(eq32(v0, b'\t'), eq32(v0, b'\n'));
        let c0 = _mm256_or_si256(_mm256_andnot_si256(tab_lf, below_20), eq32(v0, 0x7F));
        let c1 = _mm256_and_si256(eq32(v0, 0xC2), within32(v1, 0x80, 0x9F));
        (
            _mm256_movemask_epi8(c0) as u32,
            _mm256_movemask_epi8(c1) as u32,
        )
    } else {
        (0, 0)
    };
    [
        !(_mm256_movemask_epi8(v0) as u32),
        _mm256_movemask_epi8(keycap) as u32,
        _mm256_movemask_epi8(drop_lead) as u32,
        _mm256_movemask_epi8(i2) as u32,
        _mm256_movemask_epi8(i3) as u32,
        _mm256_movemask_epi8(i4) as u32,
        _mm256_movemask_epi8(cont) as u32,
        c0,
        c1,
    ]
}

/// `w` as a whole window: itself when long enough, else a copy padded with zeros.
#[inline(always)]
fn window<'a>(w: &'a [u8], pad: &'a mut [u8; WINDOW]) -> &'a [u8; WINDOW] {
    match w.first_chunk::<WINDOW>() {
        Some(whole) => whole,
        None => {
            for (d, &s) in pad.iter_mut().zip(w) {
                *d = s;
            }
            pad
        }
    }
}

/// [`super::strict_dense::StrictKernel::masks`] with two 32-byte halves (one for a
/// text of at most 32 bytes).
#[inline]
pub(super) fn masks256<S: DenseSets, const CTRL: bool>(w: &[u8], _cpu: Bmi2) -> StrictMasks {
    let mut pad = [0u8; WINDOW];
    // SAFETY: the CPU has AVX2 (a `Bmi2` exists only once detected).
    unsafe { masks256_on::<S, CTRL>(window(w, &mut pad), w.len() > 32) }
}

#[inline]
#[target_feature(enable = "avx2")]
fn masks256_on<S: DenseSets, const CTRL: bool>(w: &[u8; WINDOW], two: bool) -> StrictMasks {
    let at = w.as_ptr();
    // SAFETY: `w` has 68 bytes, so the 32-byte loads at offsets 0 to 3 and 32 to 35
    // stay within it; `loadu` has no alignment requirement.
    let (a, b) = unsafe {
        (
            [
                _mm256_loadu_si256(at.cast()),
                _mm256_loadu_si256(at.add(1).cast()),
                _mm256_loadu_si256(at.add(2).cast()),
                _mm256_loadu_si256(at.add(3).cast()),
            ],
            [
                _mm256_loadu_si256(at.add(32).cast()),
                _mm256_loadu_si256(at.add(33).cast()),
                _mm256_loadu_si256(at.add(34).cast()),
                _mm256_loadu_si256(at.add(35).cast()),
            ],
        )
    };
    // The barrier keeps LLVM from turning the mask shifts below back into byte
    // shuffles of the vectors (as in the reference's `drop_plan`).
    let lo = half32::<S, CTRL>(&a);
    // A text of at most 32 bytes (the end of a piece) has zeros there: ASCII, and
    // NULs for the controls' mask (as the AVX-512 kernel's zeroed lanes are).
    let hi = if two {
        half32::<S, CTRL>(&b)
    } else {
        [
            u32::MAX,
            0,
            0,
            0,
            0,
            0,
            0,
            if CTRL { u32::MAX } else { 0 },
            0,
        ]
    };
    let [a0, a1, a2, a3, a4, a5, a6, a7, a8] = lo;
    let [b0, b1, b2, b3, b4, b5, b6, b7, b8] = hi;
    let join = |l: u32, h: u32| u64::from(l) | u64::from(h) << 32;
    StrictMasks {
        ascii: join(a0, b0),
        keycap: join(a1, b1),
        drop_lead: join(a2, b2),
        inert: spread(join(a3, b3), 2) | spread(join(a4, b4), 3) | spread(join(a5, b5), 4),
        cont: join(a6, b6),
        ctrl: join(a7, b7) | spread(join(a8, b8), 2),
    }
}

/// [`super::strict_dense::StrictKernel::compact`] with `vpcompressb`.
#[inline]
pub(super) fn compress512(w: &[u8], keep: u64, out: &mut [u8], _cpu: Vbmi2) -> usize {
    let n = keep.count_ones() as usize;
    // `keep` selects bytes of `w` only.
    let within = if w.len() >= 64 {
        u64::MAX
    } else {
        (1u64 << w.len()).wrapping_sub(1)
    };
    if out.len() < n || keep & !within != 0 {
        return 0;
    }
    // SAFETY: the CPU has AVX-512 F, BW and VBMI2 (a `Vbmi2` exists only once
    // detected), and `out` holds the `n` bytes written (checked above).
    unsafe { compress512_on(w, keep, n, out) };
    n
}

/// Writes the kept bytes of `w[..64]` to `out`.
///
/// # Safety
///
/// * `out` must hold at least `n` bytes, `n` the bits set in `keep`.
/// * `keep` must select bytes of `w` only.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi2")]
unsafe fn compress512_on(w: &[u8], keep: u64, n: usize, out: &mut [u8]) {
    let store = if n >= 64 {
        u64::MAX
    } else {
        (1u64 << n).wrapping_sub(1)
    };
    // SAFETY: the masked load reads only the kept bytes, which `w` holds (the
    // caller's guarantee); the masked store writes only the first `n` bytes, which
    // `out` holds (the caller's guarantee); masked-off lanes are neither read,
    // written nor faulted on.
    unsafe {
        let v = _mm512_maskz_loadu_epi8(keep, w.as_ptr().cast());
        let packed = _mm512_maskz_compress_epi8(keep, v);
        _mm512_mask_storeu_epi8(out.as_mut_ptr().cast(), store, packed);
    }
}

/// [`super::strict_dense::StrictKernel::compact`] with `pext` per 8-byte word.
#[inline]
pub(super) fn compress_pext(w: &[u8], keep: u64, out: &mut [u8], _cpu: Bmi2) -> usize {
    let mut pad = [0u8; WINDOW];
    // SAFETY: the CPU has BMI2 (a `Bmi2` exists only once detected).
    unsafe { compress_pext_on(window(w, &mut pad), keep, out) }
}

#[inline]
#[target_feature(enable = "bmi1,bmi2,popcnt")]
fn compress_pext_on(w: &[u8; WINDOW], keep: u64, out: &mut [u8]) -> usize {
    let total = keep.count_ones() as usize;
    if out.len() < total {
        return 0;
    }
    // Word `k` is written at `n <= 8 k`, so 64 bytes of room take every word whole;
    // less room (the last kept bytes of a text) goes through a staging buffer.
    let mut staged = [0u8; 64];
    let whole = out.len() >= 64;
    let dst: &mut [u8; 64] = match out.first_chunk_mut::<64>() {
        Some(d) => d,
        None => &mut staged,
    };
    let mut n = 0usize;
    // The words up to the last kept byte (a block at the end of a piece is short).
    let used = (64usize.wrapping_sub(keep.leading_zeros() as usize)).div_ceil(8);
    let words = w.first_chunk::<64>().map(|b| b.as_chunks::<8>().0);
    for (k, word) in words.unwrap_or_default().iter().take(used).enumerate() {
        let bits = (keep >> ((k & 7) << 3)) & 0xFF;
        // Each kept byte's bit spread over its whole byte.
        let select = _pdep_u64(bits, 0x0101_0101_0101_0101).wrapping_mul(0xFF);
        let packed = _pext_u64(u64::from_le_bytes(*word), select).to_le_bytes();
        // Bytes past the kept ones are overwritten by the next word or lie past
        // the written length.
        if let Some(d) = dst.get_mut(n..n.wrapping_add(8)) {
            d.copy_from_slice(&packed);
        }
        // At most 64 in all.
        n = n.wrapping_add(bits.count_ones() as usize);
    }
    if !whole && let (Some(d), Some(s)) = (out.get_mut(..total), staged.get(..total)) {
        d.copy_from_slice(s);
    }
    n
}
