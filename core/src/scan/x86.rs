//! x86-64 block backends: SSE2 (always present on x86-64) and AVX2 (picked at run
//! time with `cpufeatures`, which works without `std`). The only unsafe code of the
//! crate: unaligned vector loads from slices, and the call into AVX2 code once the
//! CPU is known to have it.

use core::sync::atomic::{AtomicU8, Ordering};

use core::arch::x86_64::{
    __cpuid, __m128i, __m256i, __m512i, _mm_cmpeq_epi8, _mm_cmpgt_epi8, _mm_loadu_si128,
    _mm_movemask_epi8, _mm_or_si128, _mm_set_epi64x, _mm_set1_epi8, _mm_setzero_si128,
    _mm256_and_si256, _mm256_broadcastsi128_si256, _mm256_cmpeq_epi8, _mm256_cmpgt_epi8,
    _mm256_loadu_si256, _mm256_min_epu8, _mm256_movemask_epi8, _mm256_or_si256, _mm256_set1_epi8,
    _mm256_setzero_si256, _mm256_shuffle_epi8, _mm256_srli_epi16, _mm256_storeu_si256,
    _mm256_sub_epi8, _mm256_testz_si256, _mm256_xor_si256, _mm512_and_si512,
    _mm512_broadcast_i32x4, _mm512_cmpeq_epi8_mask, _mm512_cmple_epu8_mask, _mm512_loadu_si512,
    _mm512_mask_storeu_epi8, _mm512_maskz_compress_epi8, _mm512_movepi8_mask, _mm512_or_si512,
    _mm512_set1_epi8, _mm512_shuffle_epi8, _mm512_srli_epi16, _mm512_sub_epi8, _mm512_xor_si512,
    _pdep_u64, _pext_u64,
};

use super::Finder;
use super::pairs;
use crate::rules::{EMOJI_SELECTOR_SEQ, PROSE_SEQS, STRIP_SEQS, Seq};

/// The rules' patterns as constant slices: the unrolled loops below fold each
/// pattern's bytes into immediate operands.
const PROSE_DROPS: &[Seq] = PROSE_SEQS.as_slice();
const STRIP_DROPS: &[Seq] = STRIP_SEQS.as_slice();

/// Expands `$body` once per pattern of `$seqs` (a constant slice of
/// [`crate::rules::Seq`]), with `$code` a constant naming it ([`Seq::code`]), so each
/// pattern is compiled into its own few compares of immediates, as if written by hand.
macro_rules! for_each_seq {
    ($seqs:path, |$code:ident| $body:block) => {
        for_each_seq!(@ $seqs, $code, $body,
            0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23);
    };
    (@ $seqs:path, $code:ident, $body:block, $($i:literal)*) => {
        $(
            {
                const $code: u128 = Seq::nth_code($seqs, $i);
                if $code != 0 $body
            }
        )*
    };
}

cpufeatures::new!(cpuid_avx2, "avx2");
cpufeatures::new!(cpuid_drop, "avx2", "bmi1", "bmi2", "popcnt");
cpufeatures::new!(
    cpuid_compress,
    "avx2",
    "bmi1",
    "bmi2",
    "popcnt",
    "avx512f",
    "avx512bw",
    "avx512vbmi",
    "avx512vbmi2"
);

/// Proof that the CPU has AVX2: only [`avx2`] makes one, after asking the CPU, so
/// code holding one may call AVX2 code without asking again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Avx2 {
    _detected: (),
}

/// Proof that the CPU has AVX2, BMI1, BMI2, POPCNT and LZCNT: every feature the
/// kernels it gates enable. Real CPUs with AVX2 and BMI2 have the others, but a
/// hypervisor may mask CPUID bits one by one, and without LZCNT or BMI1 `lzcnt` and
/// `tzcnt` run as `bsr` and `bsf` (other answers, no fault), so each is asked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Bmi2 {
    _detected: (),
}

/// Proof that the CPU has what [`Bmi2`] proves and AVX-512 F, BW, VBMI and VBMI2 (the
/// fused validation and scan uses VBMI's byte permutes; each is asked, as for `Bmi2`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Vbmi2 {
    _detected: (),
}

/// The SIMD packings of dense drop regions, each holding the proof that the CPU
/// runs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SimdCompactor {
    /// `vpcompressb`: a 64-byte block in one instruction (AVX-512 VBMI2).
    Avx512(Vbmi2),
    /// `pext` over 8-byte words (BMI2); the masks still come from AVX2.
    Bmi2(Bmi2),
}

/// AVX2, when the CPU has it. (The `avx512` backend scans with AVX-512 BW,
/// `x86_scan512.rs`; valgrind cannot run it, so `instr` forces AVX2.)
#[inline]
pub(super) fn avx2() -> Option<Avx2> {
    cpuid_avx2::get().then_some(Avx2 { _detected: () })
}

/// The features [`Bmi2`] proves, when the CPU has them.
#[inline]
pub(super) fn bmi2() -> Option<Bmi2> {
    (cpuid_drop::get() && lzcnt()).then_some(Bmi2 { _detected: () })
}

/// The features [`Vbmi2`] proves, when the CPU has them.
#[inline]
pub(super) fn vbmi2() -> Option<Vbmi2> {
    (cpuid_compress::get() && lzcnt()).then_some(Vbmi2 { _detected: () })
}

/// LZCNT, asked once (cpufeatures 0.2 does not name it): 0 not asked yet, 1 absent,
/// 2 present.
static LZCNT: AtomicU8 = AtomicU8::new(0);

/// Whether the CPU has LZCNT (CPUID leaf 0x8000_0001, ECX bit 5).
#[inline]
fn lzcnt() -> bool {
    match LZCNT.load(Ordering::Relaxed) {
        0 => {
            let has =
                __cpuid(0x8000_0000).eax >= 0x8000_0001 && __cpuid(0x8000_0001).ecx >> 5 & 1 == 1;
            LZCNT.store(if has { 2 } else { 1 }, Ordering::Relaxed);
            has
        }
        seen => seen == 2,
    }
}

/// A 16-byte table as a vector.
#[inline]
#[target_feature(enable = "sse2")]
pub(super) fn table(t: [u8; 16]) -> __m128i {
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
/// set, by 32-byte AVX2 vectors. For a refined finder `data` holds two more bytes
/// after the blocks (read as the last lanes' next bytes).
#[inline]
pub(super) fn avx2_blocks(
    data: &[u8],
    whole: usize,
    f: &Finder,
    _cpu: Avx2,
) -> Option<(usize, u64)> {
    // SAFETY: the CPU has AVX2 (an `Avx2` exists only once detected).
    unsafe { avx2_blocks_unchecked(data, whole, f) }
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

/// The encoded length of the pattern coded `code`.
const fn seq_enc_len(code: u128) -> usize {
    match Seq::from_code(code) {
        Some(seq) => seq.enc_len,
        None => 0,
    }
}

/// The bytes position `k` of the pattern coded `CODE` compares (lo, hi), `None`
/// where it compares nothing: past its length, or with `UTF8` a continuation
/// position allowing every continuation byte (the text is UTF-8).
#[allow(clippy::indexing_slicing)]
const fn seq_range<const CODE: u128, const UTF8: bool>(k: usize) -> Option<(u8, u8)> {
    let Some(seq) = Seq::from_code(CODE) else {
        return None;
    };
    if k >= seq.len || k >= 4 {
        return None;
    }
    // `k < 4`, checked above; evaluated at compile time only.
    let (lo, hi) = (seq.lo[k], seq.hi[k]);
    if UTF8 && k > 0 && lo == 0x80 && hi == 0xBF {
        return None;
    }
    Some((lo, hi))
}

/// 0xFF where the bytes of `v` (`v[k]`: the lanes loaded `k` bytes further) match
/// the pattern coded `CODE`; with `UTF8` (the dense-drop blocks, which read text)
/// continuation positions allowing every continuation byte are not compared.
#[inline]
#[target_feature(enable = "avx2")]
fn seq_lanes<const CODE: u128, const UTF8: bool>(v: &[__m256i; 4]) -> __m256i {
    let ranges = const {
        [
            seq_range::<CODE, UTF8>(0),
            seq_range::<CODE, UTF8>(1),
            seq_range::<CODE, UTF8>(2),
            seq_range::<CODE, UTF8>(3),
        ]
    };
    let mut m = _mm256_set1_epi8(-1);
    for (&lanes, range) in v.iter().zip(ranges) {
        if let Some((lo, hi)) = range {
            let hit = if lo == hi {
                eq(lanes, lo)
            } else {
                within(lanes, lo, hi)
            };
            m = _mm256_and_si256(m, hit);
        }
    }
    m
}

/// [`seq_lanes`] with 64-byte vectors, as a mask.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn seq_mask64<const CODE: u128, const UTF8: bool>(v: &[__m512i; 4]) -> u64 {
    let ranges = const {
        [
            seq_range::<CODE, UTF8>(0),
            seq_range::<CODE, UTF8>(1),
            seq_range::<CODE, UTF8>(2),
            seq_range::<CODE, UTF8>(3),
        ]
    };
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
    // The reference's refinement by a type of its own, so in that copy its tables
    // are constants (shuffle operands, as before refinements were per finder)
    // rather than loaded through `f` and kept in registers and spills each call.
    if core::ptr::eq(f.refinement, &pairs::ATTENTION_REFINEMENT) {
        avx2_blocks_with(data, whole, f, AttentionTables)
    } else {
        avx2_blocks_with(data, whole, f, f.refinement)
    }
}

/// Where [`avx2_blocks_with`] reads a refinement from.
trait Tables: Copy {
    fn get(self) -> &'static pairs::Refinement;
}

/// The reference's refinement, a constant.
#[derive(Clone, Copy)]
struct AttentionTables;

impl Tables for AttentionTables {
    #[inline(always)]
    fn get(self) -> &'static pairs::Refinement {
        &pairs::ATTENTION_REFINEMENT
    }
}

impl Tables for &'static pairs::Refinement {
    #[inline(always)]
    fn get(self) -> &'static pairs::Refinement {
        self
    }
}

/// [`avx2_blocks_unchecked`] with the finder's refinement read from `r`.
#[inline]
#[target_feature(enable = "avx2")]
fn avx2_blocks_with(data: &[u8], whole: usize, f: &Finder, r: impl Tables) -> Option<(usize, u64)> {
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
                    let keep_a = _mm256_or_si256(
                        _mm256_cmpgt_epi8(va, minus_one),
                        lead_pairs(va, sa, ta, r.get()),
                    );
                    let keep_b = _mm256_or_si256(
                        _mm256_cmpgt_epi8(vb, minus_one),
                        lead_pairs(vb, sb, tb, r.get()),
                    );
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

/// The AND of one half's six lookups.
#[inline]
#[target_feature(enable = "avx2")]
fn lookups(nibbles: &[__m256i; 6], tables: &[[u8; 16]; 6]) -> __m256i {
    let mut acc = _mm256_set1_epi8(-1);
    for (&t, &n) in tables.iter().zip(nibbles) {
        let t = _mm256_broadcastsi128_si256(table(t));
        acc = _mm256_and_si256(acc, _mm256_shuffle_epi8(t, n));
    }
    acc
}

/// 0xFF where byte `v` and its next bytes `s`, `t` (the same lanes of the vectors
/// loaded one and two bytes further) may begin a multi-byte code point of `r`: a
/// superset of its groups (see the module's text), 0 for every ASCII byte.
#[inline]
#[target_feature(enable = "avx2")]
fn lead_pairs(v: __m256i, s: __m256i, t: __m256i, r: &pairs::Refinement) -> __m256i {
    let low = _mm256_set1_epi8(0x0F);
    let hi = |x: __m256i| _mm256_and_si256(_mm256_srli_epi16::<4>(x), low);
    let lo = |x: __m256i| _mm256_and_si256(x, low);
    let nibbles = [hi(v), lo(v), hi(s), lo(s), hi(t), lo(t)];
    let [low_groups, high_groups] = &r.nibbles;
    let mut any = lookups(&nibbles, low_groups);
    if r.groups > 8 {
        any = _mm256_or_si256(any, lookups(&nibbles, high_groups));
    }
    let zero = _mm256_setzero_si256();
    // 0xFF where `any` is not zero.
    _mm256_xor_si256(_mm256_cmpeq_epi8(any, zero), _mm256_set1_epi8(-1))
}

/// `bytes` as text when it is UTF-8, by simdutf8's AVX2 validator (its own run-time
/// selection needs `std`). `None` otherwise: the caller falls back to
/// `core::str::from_utf8`, which also locates an error.
#[inline]
pub(super) fn validate_utf8(bytes: &[u8], _cpu: Avx2) -> Option<&str> {
    // SAFETY: the CPU has AVX2 (an `Avx2` exists only once detected), which the
    // validator requires.
    let valid = unsafe { simdutf8::basic::imp::x86::avx2::validate_utf8(bytes) };
    match valid {
        // SAFETY: simdutf8 validated `bytes` as UTF-8 just above.
        Ok(()) => Some(unsafe { core::str::from_utf8_unchecked(bytes) }),
        Err(_) => None,
    }
}

/// Copies `src` to the start of `dst` by 32-byte AVX2 moves, which keep their speed
/// whatever the two alignments (the `rep movsb` of memcpy does not on some CPUs).
/// `false`, copying nothing, when `dst` is too short.
#[inline]
pub(super) fn copy(dst: &mut [u8], src: &[u8], _cpu: Avx2) -> bool {
    let Some(dst) = dst.get_mut(..src.len()) else {
        return false;
    };
    // SAFETY: the CPU has AVX2 (an `Avx2` exists only once detected).
    unsafe { copy_unchecked(dst, src) };
    true
}

/// Copies `text` to the start of `dst` and returns the copy as text (`None` when
/// `dst` is shorter). A byte-for-byte copy of a `str` is UTF-8, so it is not
/// validated again.
pub(super) fn copy_str<'o>(dst: &'o mut [u8], text: &str, cpu: Option<Avx2>) -> Option<&'o str> {
    let dst = dst.get_mut(..text.len())?;
    let copied = match cpu {
        Some(cpu) if text.len() >= 256 => copy(dst, text.as_bytes(), cpu),
        _ => false,
    };
    if !copied {
        dst.copy_from_slice(text.as_bytes());
    }
    let copied: &'o [u8] = dst;
    debug_assert_eq!(copied, text.as_bytes());
    // SAFETY: `copied` holds exactly the bytes of `text` (copied just above into a
    // buffer of its length), and `text` is a `str`, so they are valid UTF-8.
    Some(unsafe { core::str::from_utf8_unchecked(copied) })
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

/// The lead masks of 32 bytes `v0`, with `v1`, `v2`, `v3` the same lanes loaded one,
/// two and three bytes further: `[l1, l2, l3, l4, fe0f, cont]`, from the rule's
/// patterns ([`crate::rules::PROSE_SEQS`], [`crate::rules::STRIP_SEQS`]).
#[inline]
#[target_feature(enable = "avx2")]
fn drop_leads32<const PROSE: bool>(v0: __m256i, v1: __m256i, v2: __m256i, v3: __m256i) -> [u32; 6] {
    let v = [v0, v1, v2, v3];
    let zero = _mm256_setzero_si256();
    let mut lens = [zero; 4];
    if PROSE {
        for_each_seq!(PROSE_DROPS, |CODE| {
            if let Some(l) = lens.get_mut(const { seq_enc_len(CODE) }.wrapping_sub(1)) {
                *l = _mm256_or_si256(*l, seq_lanes::<CODE, true>(&v));
            }
        });
    } else {
        for_each_seq!(STRIP_DROPS, |CODE| {
            if let Some(l) = lens.get_mut(const { seq_enc_len(CODE) }.wrapping_sub(1)) {
                *l = _mm256_or_si256(*l, seq_lanes::<CODE, true>(&v));
            }
        });
    }
    let fe0f = seq_lanes::<{ EMOJI_SELECTOR_SEQ.code() }, true>(&v);
    // Signed: 0x80..=0xBF are the bytes below -0x40.
    let cont = _mm256_cmpgt_epi8(_mm256_set1_epi8(-0x40), v0);
    let [l1, l2, l3, l4] = lens;
    // No closure here: closures do not inherit the function's target features.
    [
        _mm256_movemask_epi8(l1) as u32,
        _mm256_movemask_epi8(l2) as u32,
        _mm256_movemask_epi8(l3) as u32,
        _mm256_movemask_epi8(l4) as u32,
        _mm256_movemask_epi8(fe0f) as u32,
        _mm256_movemask_epi8(cont) as u32,
    ]
}

/// The kept bytes of one dense-drop block, packed: `w` holds the byte before the
/// block, its 64 bytes and four after it (at least 69 bytes). Writes the block's kept
/// bytes to the start of `out` and returns the bytes consumed (the block up to its
/// last code-point boundary) and written; `None`, writing nothing, when the block
/// needs the exact path (see [`super::Dropper::block`]) or the CPU lacks the
/// compactor's instructions.
#[inline]
pub(super) fn drop_block(
    w: &[u8],
    prose: bool,
    marks: Option<&Finder>,
    out: &mut [u8],
    with: SimdCompactor,
) -> Option<(usize, usize, u64)> {
    if w.len() < 69 {
        return None;
    }
    match with {
        // SAFETY: the CPU has AVX2, BMI2 and AVX-512 F, BW, VBMI2 (a `Vbmi2` exists
        // only once detected; POPCNT and LZCNT come with them on every such CPU) and
        // `w` has 69 bytes.
        SimdCompactor::Avx512(_) => unsafe { drop_block_vbmi2(w, prose, marks, out) },
        // SAFETY: the CPU has AVX2 and BMI2 (a `Bmi2` exists only once detected;
        // POPCNT and LZCNT come with them) and `w` has 69 bytes.
        SimdCompactor::Bmi2(_) => unsafe { drop_block_pext(w, prose, marks, out) },
    }
}

/// The plan of one dense-drop block without packing it: the bytes consumed, the
/// keep mask (bit `i`: byte `i` of the block is kept) and the kept bytes in the set
/// of `marks`; `w` as for [`drop_block`]. `None` when the block needs the exact path.
#[inline]
pub(super) fn plan_block(
    w: &[u8],
    prose: bool,
    marks: Option<&Finder>,
    with: SimdCompactor,
) -> Option<(usize, u64, u64)> {
    if w.len() < 69 {
        return None;
    }
    match with {
        // SAFETY: as in `drop_block`.
        SimdCompactor::Avx512(_) => unsafe { drop_plan512(w, prose, marks) },
        // SAFETY: as in `drop_block`.
        SimdCompactor::Bmi2(_) => unsafe { drop_plan(w, prose, marks) },
    }
}

/// [`drop_block`] packing with `vpcompressb`.
///
/// # Safety
///
/// * The CPU must support AVX2, BMI2, POPCNT, LZCNT and AVX-512 F, BW and VBMI2.
/// * `w` must hold at least 69 bytes.
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt,lzcnt,avx512f,avx512bw,avx512vbmi2")]
unsafe fn drop_block_vbmi2(
    w: &[u8],
    prose: bool,
    marks: Option<&Finder>,
    out: &mut [u8],
) -> Option<(usize, usize, u64)> {
    // SAFETY: the caller guarantees the CPU features and the length of `w`.
    let (consumed, keep, marked) = unsafe { drop_plan512(w, prose, marks) }?;
    let n = keep.count_ones() as usize;
    if out.len() < n {
        return None;
    }
    let store = if n >= 64 {
        u64::MAX
    } else {
        (1u64 << n).wrapping_sub(1)
    };
    // SAFETY: `w[1..65]` is readable (69 bytes) and `loadu` has no alignment
    // requirement; the masked store writes only the first `n` bytes, which `out`
    // holds (checked above), and masked-off lanes are neither written nor faulted on.
    unsafe {
        let v = _mm512_loadu_si512(w.as_ptr().add(1).cast());
        let packed = _mm512_maskz_compress_epi8(keep, v);
        _mm512_mask_storeu_epi8(out.as_mut_ptr().cast(), store, packed);
    }
    Some((consumed, n, _pext_u64(marked, keep)))
}

/// [`drop_block`] packing with `pext` over each 8-byte word.
///
/// # Safety
///
/// * The CPU must support AVX2, BMI2, POPCNT and LZCNT.
/// * `w` must hold at least 69 bytes.
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt,lzcnt")]
unsafe fn drop_block_pext(
    w: &[u8],
    prose: bool,
    marks: Option<&Finder>,
    out: &mut [u8],
) -> Option<(usize, usize, u64)> {
    // SAFETY: the caller guarantees the CPU features and the length of `w`.
    let (consumed, keep, marked) = unsafe { drop_plan(w, prose, marks) }?;
    let total = keep.count_ones() as usize;
    if out.len() < total {
        return None;
    }
    let mut n = 0usize;
    for (k, word) in w.get(1..65)?.chunks_exact(8).enumerate() {
        let mut bytes = [0u8; 8];
        bytes.copy_from_slice(word);
        let bits = (keep >> ((k & 7) << 3)) & 0xFF;
        // Each kept byte's bit spread over its whole byte.
        let select = _pdep_u64(bits, 0x0101_0101_0101_0101).wrapping_mul(0xFF);
        let packed = _pext_u64(u64::from_le_bytes(bytes), select).to_le_bytes();
        let c = bits.count_ones() as usize;
        if let Some(dst) = out.get_mut(n..n.saturating_add(8)) {
            // Bytes past the `c` kept ones are overwritten by the next word or lie
            // past the written length.
            dst.copy_from_slice(&packed);
        } else if let (Some(dst), Some(src)) =
            (out.get_mut(n..n.saturating_add(c)), packed.get(..c))
        {
            dst.copy_from_slice(src);
        }
        n = n.saturating_add(c);
    }
    Some((consumed, total, _pext_u64(marked, keep)))
}

/// What the classification of a 64-byte block found, bit `i` for block byte `i`:
/// the leads of 1- to 4-byte code points to drop, U+FE0F leads, continuation bytes.
/// Both vector widths compute it; what it means is decided once, here.
struct DropLeads {
    len1: u64,
    len2: u64,
    len3: u64,
    len4: u64,
    fe0f: u64,
    cont: u64,
}

impl DropLeads {
    /// The bytes the block consumes (it ends before a code point that would cross its
    /// end) and the mask of those to keep; `None` when the exact path must decide: a
    /// U+FE0F after a non-ASCII byte (`prev_non_ascii`, bit `i`: the byte before block
    /// byte `i`), or no code-point start in the block.
    #[inline(always)]
    fn keep_mask(&self, w: &[u8], prev_non_ascii: u64) -> Option<(usize, u64)> {
        // U+FE0F is an orphan (dropped) after an ASCII code point.
        if self.fe0f & prev_non_ascii != 0 {
            return None;
        }
        let consumed = if w.get(65).is_some_and(|&b| (0x80..0xC0).contains(&b)) {
            let starts = !self.cont;
            if starts == 0 {
                return None;
            }
            63usize.saturating_sub(starts.leading_zeros() as usize)
        } else {
            64
        };
        let (l1, l2, l3, l4) = (self.len1, self.len2, self.len3 | self.fe0f, self.len4);
        let drop = l1 | l2 | l2 << 1 | l3 | l3 << 1 | l3 << 2 | l4 | l4 << 1 | l4 << 2 | l4 << 3;
        let range = if consumed >= 64 {
            u64::MAX
        } else {
            (1u64 << consumed).wrapping_sub(1)
        };
        Some((consumed, !drop & range))
    }
}

/// The bytes consumed, the keep mask of the block in `w` (see [`drop_block`]) and
/// the mask of its bytes in the set of `marks` (0 without).
///
/// # Safety
///
/// * The CPU must support AVX2, BMI2, POPCNT and LZCNT.
/// * `w` must hold at least 69 bytes.
#[inline]
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt,lzcnt")]
unsafe fn drop_plan(w: &[u8], prose: bool, marks: Option<&Finder>) -> Option<(usize, u64, u64)> {
    let at = w.as_ptr();
    // SAFETY: `w` has 69 readable bytes, so every 32-byte load at offsets 0 to 4 and
    // 32 to 36 stays within it; `loadu` has no alignment requirement.
    let (a, b) = unsafe {
        (
            [
                _mm256_loadu_si256(at.cast()),
                _mm256_loadu_si256(at.add(1).cast()),
                _mm256_loadu_si256(at.add(2).cast()),
                _mm256_loadu_si256(at.add(3).cast()),
                _mm256_loadu_si256(at.add(4).cast()),
            ],
            [
                _mm256_loadu_si256(at.add(32).cast()),
                _mm256_loadu_si256(at.add(33).cast()),
                _mm256_loadu_si256(at.add(34).cast()),
                _mm256_loadu_si256(at.add(35).cast()),
                _mm256_loadu_si256(at.add(36).cast()),
            ],
        )
    };
    // The opaque barrier keeps LLVM from turning the shifts of the masks below back
    // into byte shuffles of the vectors, which it lowers byte by byte.
    let (lo, hi) = if prose {
        (
            drop_leads32::<true>(a[1], a[2], a[3], a[4]),
            drop_leads32::<true>(b[1], b[2], b[3], b[4]),
        )
    } else {
        (
            drop_leads32::<false>(a[1], a[2], a[3], a[4]),
            drop_leads32::<false>(b[1], b[2], b[3], b[4]),
        )
    };
    let lo = core::hint::black_box(lo);
    let hi = core::hint::black_box(hi);
    let m = |k: usize| {
        let half = |h: &[u32; 6]| u64::from(h.get(k).copied().unwrap_or(0));
        half(&lo) | (half(&hi) << 32)
    };
    // Bytes before each block byte that are not ASCII.
    let prev_non_ascii = u64::from(_mm256_movemask_epi8(a[0]) as u32)
        | (u64::from(_mm256_movemask_epi8(b[0]) as u32) << 32);
    let leads = DropLeads {
        len1: m(0),
        len2: m(1),
        len3: m(2),
        len4: m(3),
        fe0f: m(4),
        cont: m(5),
    };
    let (consumed, keep) = leads.keep_mask(w, prev_non_ascii)?;
    let marked = match marks {
        Some(f) => {
            let lo = _mm256_broadcastsi128_si256(table(f.lo));
            let hi = _mm256_broadcastsi128_si256(table(f.hi));
            let bits = _mm256_broadcastsi128_si256(table([
                1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128,
            ]));
            u64::from(_mm256_movemask_epi8(truffle(a[1], lo, hi, bits)) as u32)
                | (u64::from(_mm256_movemask_epi8(truffle(b[1], lo, hi, bits)) as u32) << 32)
        }
        None => 0,
    };
    Some((consumed, keep, marked & keep))
}

/// The leads of 1- to 4-byte code points the rule drops, from its patterns, for the
/// 64 lanes of `lanes[0]` (`lanes[k]`: loaded `k` bytes further).
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn drop_lens64<const PROSE: bool>(lanes: &[__m512i; 4]) -> [u64; 4] {
    let mut lens = [0u64; 4];
    if PROSE {
        for_each_seq!(PROSE_DROPS, |CODE| {
            if let Some(l) = lens.get_mut(const { seq_enc_len(CODE) }.wrapping_sub(1)) {
                *l |= seq_mask64::<CODE, true>(lanes);
            }
        });
    } else {
        for_each_seq!(STRIP_DROPS, |CODE| {
            if let Some(l) = lens.get_mut(const { seq_enc_len(CODE) }.wrapping_sub(1)) {
                *l |= seq_mask64::<CODE, true>(lanes);
            }
        });
    }
    lens
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

/// [`drop_plan`] with 64-byte vectors and compares into masks.
///
/// # Safety
///
/// * The CPU must support AVX2, BMI2, POPCNT, LZCNT and AVX-512 F and BW.
/// * `w` must hold at least 69 bytes.
#[inline]
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt,lzcnt,avx512f,avx512bw")]
unsafe fn drop_plan512(w: &[u8], prose: bool, marks: Option<&Finder>) -> Option<(usize, u64, u64)> {
    let at = w.as_ptr();
    // SAFETY: `w` has 69 readable bytes, so every 64-byte load at offsets 0 to 4
    // stays within it; `loadu` has no alignment requirement.
    let (p, v, s, t, u) = unsafe {
        (
            _mm512_loadu_si512(at.cast()),
            _mm512_loadu_si512(at.add(1).cast()),
            _mm512_loadu_si512(at.add(2).cast()),
            _mm512_loadu_si512(at.add(3).cast()),
            _mm512_loadu_si512(at.add(4).cast()),
        )
    };
    let lanes = [v, s, t, u];
    let [len1, len2, len3, len4] = if prose {
        drop_lens64::<true>(&lanes)
    } else {
        drop_lens64::<false>(&lanes)
    };
    let leads = DropLeads {
        len1,
        len2,
        len3,
        len4,
        fe0f: seq_mask64::<{ EMOJI_SELECTOR_SEQ.code() }, true>(&lanes),
        cont: within64(v, 0x80, 0xBF),
    };
    let (consumed, keep) = leads.keep_mask(w, _mm512_movepi8_mask(p))?;
    let marked = match marks {
        Some(f) => {
            let lo = _mm512_broadcast_i32x4(table(f.lo));
            let hi = _mm512_broadcast_i32x4(table(f.hi));
            let bits = _mm512_broadcast_i32x4(table([
                1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128,
            ]));
            // As `truffle`: an index with bit 7 set yields 0 in each half table.
            let m = _mm512_or_si512(
                _mm512_shuffle_epi8(lo, v),
                _mm512_shuffle_epi8(hi, _mm512_xor_si512(v, _mm512_set1_epi8(i8::MIN))),
            );
            let nibble = _mm512_and_si512(_mm512_srli_epi16::<4>(v), _mm512_set1_epi8(0x0F));
            let bit = _mm512_shuffle_epi8(bits, nibble);
            _mm512_cmpeq_epi8_mask(_mm512_and_si512(m, bit), bit)
        }
        None => 0,
    };
    Some((consumed, keep, marked & keep))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each proof exists exactly when std's detection finds every feature the code
    /// it gates enables (`target_feature` on a CPU without one is undefined
    /// behaviour: `lzcnt` and `tzcnt` silently run as `bsr` and `bsf`).
    #[test]
    fn the_proofs_are_std_detection_of_every_enabled_feature() {
        use std::is_x86_feature_detected as has;
        let base = has!("avx2") && has!("bmi1") && has!("bmi2") && has!("popcnt");
        assert_eq!(lzcnt(), has!("lzcnt"));
        assert_eq!(bmi2().is_some(), base && has!("lzcnt"));
        let wide = has!("avx512f") && has!("avx512bw") && has!("avx512vbmi") && has!("avx512vbmi2");
        assert_eq!(vbmi2().is_some(), base && has!("lzcnt") && wide);
        assert_eq!(avx2().is_some(), has!("avx2"));
    }
}
