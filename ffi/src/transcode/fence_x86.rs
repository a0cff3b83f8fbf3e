//! The fence token of UTF-16 text with the transcoding fused into the hash, on CPUs
//! with SHA-NI and the AVX-512 the encoder uses.
//!
//! SHA-256's rounds are one long dependency chain (`sha256rnds2` after
//! `sha256rnds2`, a few hundred cycles per 64-byte block at an IPC well under one),
//! so vector work that does not depend on it, issued in the same loop, runs in its
//! shadow. One loop here does both: it encodes the text's next 32 UTF-16 units (the
//! encoder's block step, [`super::avx512`]) into a small buffer a few blocks ahead
//! of the hash, and compresses the next 64 bytes of that buffer with the state kept
//! in two registers from block to block. The UTF-8 is never written out whole: the
//! caller's scratch goes unused. Calling a block function per block instead (the
//! `sha2` crate's) loses the overlap: each call loads, reshuffles and stores the
//! state (BENCHMARKS.md, the fence's "third round").
//!
//! The token's absence check then runs on the UTF-16 units themselves: the token is
//! eight ASCII hex characters, an ASCII byte of UTF-8 is exactly an ASCII code unit,
//! and no byte of a multi-byte sequence is ASCII, so the token occurs in the UTF-8
//! exactly when its eight characters occur as eight consecutive code units, i.e. as
//! a 16-byte pattern at an *even* byte offset of the input (at an odd offset the
//! pattern's bytes straddle units, such as U+3000's `00 30`, and mean nothing).

use core::arch::x86_64::{
    __m128i, _mm_add_epi32, _mm_alignr_epi8, _mm_and_si128, _mm_cmpeq_epi16_mask,
    _mm_cmplt_epu16_mask, _mm_cmplt_epu32_mask, _mm_cvtepu16_epi32, _mm_extract_epi32,
    _mm_loadu_si128, _mm_mask_mov_epi32, _mm_maskz_compress_epi8, _mm_movepi8_mask, _mm_or_si128,
    _mm_packus_epi16, _mm_set_epi32, _mm_set_epi64x, _mm_set1_epi16, _mm_set1_epi32,
    _mm_setzero_si128, _mm_sha256msg1_epu32, _mm_sha256msg2_epu32, _mm_sha256rnds2_epu32,
    _mm_shuffle_epi8, _mm_shuffle_epi32, _mm_slli_epi32, _mm_srli_epi32, _mm_storeu_si128,
    _mm_unpackhi_epi64, _mm512_cmpeq_epi16_mask, _mm512_loadu_si512, _mm512_set1_epi16,
};

use super::{avx512, encode_units};

cpufeatures::new!(
    cpuid_fence,
    "avx512f",
    "avx512bw",
    "avx512vl",
    "avx512vbmi2",
    "popcnt",
    "sha",
    "sse2",
    "ssse3",
    "sse4.1"
);

/// Proof that the CPU has SHA-NI, SSE2, SSSE3, SSE4.1 and what the AVX-512 encoder
/// needs (F, BW, VL, VBMI2, POPCNT): only [`detect`] makes one, after asking the CPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct FusedFence {
    _detected: (),
}

/// The CPU's fused fence, when it has what the loop uses.
#[inline]
pub(crate) fn detect() -> Option<FusedFence> {
    cpuid_fence::get().then_some(FusedFence { _detected: () })
}

/// A fence token: 8 lower-case hex characters, or 64 in the fallback.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Token16 {
    hex: [u8; 64],
    len: usize,
}

impl Token16 {
    /// The token's ASCII bytes.
    pub(crate) fn as_bytes(&self) -> &[u8] {
        self.hex.get(..self.len).unwrap_or_default()
    }
}

impl FusedFence {
    /// SPEC §6's token of the UTF-8 of `units` (UTF-16LE, each lone surrogate as
    /// U+FFFD): the first salt's 8 hex characters that are not in the text, else the
    /// full digest of salt 64. Each salt is one fused pass and one search of the
    /// units. `None` only when `units` has an odd length.
    pub(crate) fn fence_token(self, units: &[u8]) -> Option<Token16> {
        self.fence_token_by(units, |token| self.contains_token(units, token))
    }

    /// [`FusedFence::fence_token`] with the absence check given (tests force
    /// retries with it).
    fn fence_token_by(
        self,
        units: &[u8],
        mut present: impl FnMut(&[u8; 8]) -> bool,
    ) -> Option<Token16> {
        if !units.len().is_multiple_of(2) {
            return None;
        }
        for salt in 0..airlock_core::fence::FENCE_SALTS {
            let hex = hex_of(&self.digest(units, salt));
            let mut token = [0u8; 8];
            token.copy_from_slice(hex.get(..8)?);
            if !present(&token) {
                return Some(Token16 { hex, len: 8 });
            }
        }
        Some(Token16 {
            hex: hex_of(&self.digest(units, airlock_core::fence::FENCE_SALTS)),
            len: 64,
        })
    }

    /// SHA-256 of `"<salt>\n"` followed by the UTF-8 of `units` (UTF-16LE; each lone
    /// surrogate as U+FFFD; an odd last byte is ignored), in one fused pass.
    pub(crate) fn digest(self, units: &[u8], salt: u32) -> [u8; 32] {
        let prefix = SaltPrefix::new(salt);
        // SAFETY: `self` proves the CPU features.
        unsafe { fused_digest(units, prefix.as_bytes()) }
    }

    /// Whether the ASCII `token` occurs as consecutive code units of `units`
    /// (UTF-16LE): the 16-byte pattern at an even byte offset.
    pub(crate) fn contains_token(self, units: &[u8], token: &[u8; 8]) -> bool {
        // SAFETY: `self` proves the CPU features.
        unsafe { contains_token(units, token) }
    }
}

/// `"<salt>\n"`: at most ten digits and the newline.
struct SaltPrefix {
    bytes: [u8; 11],
    start: usize,
}

impl SaltPrefix {
    fn new(salt: u32) -> Self {
        let mut bytes = [0u8; 11];
        let mut start = 10usize;
        if let Some(nl) = bytes.get_mut(10) {
            *nl = b'\n';
        }
        let mut n = salt;
        loop {
            start = start.saturating_sub(1);
            if let Some(slot) = bytes.get_mut(start) {
                // `n % 10` is a single digit.
                *slot = b'0'.saturating_add((n % 10) as u8);
            }
            n /= 10;
            if n == 0 {
                break;
            }
        }
        SaltPrefix { bytes, start }
    }

    fn as_bytes(&self) -> &[u8] {
        self.bytes.get(self.start..).unwrap_or_default()
    }
}

/// A digest in lower-case hex.
fn hex_of(digest: &[u8; 32]) -> [u8; 64] {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut hex = [0u8; 64];
    for (pair, byte) in hex.chunks_exact_mut(2).zip(digest) {
        if let [hi, lo] = pair {
            *hi = HEX.get(usize::from(byte >> 4)).copied().unwrap_or(b'0');
            *lo = HEX.get(usize::from(byte & 0xF)).copied().unwrap_or(b'0');
        }
    }
    hex
}

/// SHA-256's state as SHA-NI wants it: words A, B, E, F in one register (A in the
/// top lane) and C, D, G, H in the other.
#[derive(Clone, Copy)]
struct State {
    abef: __m128i,
    cdgh: __m128i,
}

/// SHA-256's initial hash value, as [`State`].
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi2,popcnt,sha,sse2,ssse3,sse4.1")]
#[inline]
fn initial_state() -> State {
    const H: [u32; 8] = [
        0x6a09_e667,
        0xbb67_ae85,
        0x3c6e_f372,
        0xa54f_f53a,
        0x510e_527f,
        0x9b05_688c,
        0x1f83_d9ab,
        0x5be0_cd19,
    ];
    let [a, b, c, d, e, f, g, h] = H.map(u32::cast_signed);
    // `_mm_set_epi32` takes the top lane first.
    State {
        abef: _mm_set_epi32(a, b, e, f),
        cdgh: _mm_set_epi32(c, d, g, h),
    }
}

/// The digest's 32 bytes (the eight state words, big-endian).
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi2,popcnt,sha,sse2,ssse3,sse4.1")]
#[inline]
fn digest_bytes(s: State) -> [u8; 32] {
    let words = [
        _mm_extract_epi32::<3>(s.abef),
        _mm_extract_epi32::<2>(s.abef),
        _mm_extract_epi32::<3>(s.cdgh),
        _mm_extract_epi32::<2>(s.cdgh),
        _mm_extract_epi32::<1>(s.abef),
        _mm_extract_epi32::<0>(s.abef),
        _mm_extract_epi32::<1>(s.cdgh),
        _mm_extract_epi32::<0>(s.cdgh),
    ];
    let mut out = [0u8; 32];
    for (dst, w) in out.chunks_exact_mut(4).zip(words) {
        dst.copy_from_slice(&w.cast_unsigned().to_be_bytes());
    }
    out
}

/// Four rounds: message words `w` (with the round constants `k0..k3` added) into
/// the state, two rounds per `sha256rnds2`.
macro_rules! rounds4 {
    ($s:ident, $w:expr, $k0:literal, $k1:literal, $k2:literal, $k3:literal) => {{
        let k = _mm_set_epi32(
            u32::cast_signed($k3),
            u32::cast_signed($k2),
            u32::cast_signed($k1),
            u32::cast_signed($k0),
        );
        let wk = _mm_add_epi32($w, k);
        $s.cdgh = _mm_sha256rnds2_epu32($s.cdgh, $s.abef, wk);
        // The other two words in the low half for the second pair of rounds.
        $s.abef = _mm_sha256rnds2_epu32($s.abef, $s.cdgh, _mm_shuffle_epi32::<0x0E>(wk));
    }};
}

/// The next four message words from the sixteen before them: σ0 terms by
/// `sha256msg1` over W[t-16..t-12], W[t-7..t-3] added (an `alignr` of the two
/// groups before), σ1 terms by `sha256msg2` from W[t-4..t].
macro_rules! schedule {
    ($w0:ident, $w1:ident, $w2:ident, $w3:ident) => {{
        let next = _mm_sha256msg2_epu32(
            _mm_add_epi32(
                _mm_sha256msg1_epu32($w0, $w1),
                _mm_alignr_epi8::<4>($w3, $w2),
            ),
            $w3,
        );
        $w0 = $w1;
        $w1 = $w2;
        $w2 = $w3;
        $w3 = next;
        next
    }};
}

/// Whole 64-byte blocks of `blocks` into the state.
#[target_feature(enable = "sha,sse2,ssse3,sse4.1")]
#[inline(never)]
fn compress_blocks(mut state: State, blocks: &[u8]) -> State {
    for block in blocks.chunks_exact(64) {
        if let Ok(block) = <&[u8; 64]>::try_from(block) {
            state = compress(state, block);
        }
    }
    state
}

/// Whole 64-byte blocks into the state, inlined into the caller (which must keep
/// the upper state clean itself).
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi2,popcnt,sha,sse2,ssse3,sse4.1")]
#[inline]
fn compress_inline(mut state: State, blocks: &[u8]) -> State {
    for block in blocks.chunks_exact(64) {
        if let Ok(block) = <&[u8; 64]>::try_from(block) {
            state = compress(state, block);
        }
    }
    state
}

/// One 64-byte block into the state.
#[target_feature(enable = "sha,sse2,ssse3,sse4.1")]
#[inline]
fn compress(state: State, block: &[u8; 64]) -> State {
    // Big-endian words: each 32-bit lane's bytes reversed.
    let swap = _mm_set_epi64x(0x0c0d_0e0f_0809_0a0b, 0x0405_0607_0001_0203);
    let load = |at: usize| -> __m128i {
        let part = block.get(at..).and_then(|b| b.first_chunk::<16>());
        // `at` is 0, 16, 32 or 48, so the chunk is always there.
        let part = part.unwrap_or(&[0; 16]);
        // SAFETY: `part` is 16 readable bytes; `loadu` has no alignment requirement.
        _mm_shuffle_epi8(unsafe { _mm_loadu_si128(part.as_ptr().cast()) }, swap)
    };
    let mut s = state;
    let mut w0 = load(0);
    let mut w1 = load(16);
    let mut w2 = load(32);
    let mut w3 = load(48);
    rounds4!(s, w0, 0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5);
    rounds4!(s, w1, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5);
    rounds4!(s, w2, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3);
    rounds4!(s, w3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174);
    rounds4!(
        s,
        schedule!(w0, w1, w2, w3),
        0xe49b69c1,
        0xefbe4786,
        0x0fc19dc6,
        0x240ca1cc
    );
    rounds4!(
        s,
        schedule!(w0, w1, w2, w3),
        0x2de92c6f,
        0x4a7484aa,
        0x5cb0a9dc,
        0x76f988da
    );
    rounds4!(
        s,
        schedule!(w0, w1, w2, w3),
        0x983e5152,
        0xa831c66d,
        0xb00327c8,
        0xbf597fc7
    );
    rounds4!(
        s,
        schedule!(w0, w1, w2, w3),
        0xc6e00bf3,
        0xd5a79147,
        0x06ca6351,
        0x14292967
    );
    rounds4!(
        s,
        schedule!(w0, w1, w2, w3),
        0x27b70a85,
        0x2e1b2138,
        0x4d2c6dfc,
        0x53380d13
    );
    rounds4!(
        s,
        schedule!(w0, w1, w2, w3),
        0x650a7354,
        0x766a0abb,
        0x81c2c92e,
        0x92722c85
    );
    rounds4!(
        s,
        schedule!(w0, w1, w2, w3),
        0xa2bfe8a1,
        0xa81a664b,
        0xc24b8b70,
        0xc76c51a3
    );
    rounds4!(
        s,
        schedule!(w0, w1, w2, w3),
        0xd192e819,
        0xd6990624,
        0xf40e3585,
        0x106aa070
    );
    rounds4!(
        s,
        schedule!(w0, w1, w2, w3),
        0x19a4c116,
        0x1e376c08,
        0x2748774c,
        0x34b0bcb5
    );
    rounds4!(
        s,
        schedule!(w0, w1, w2, w3),
        0x391c0cb3,
        0x4ed8aa4a,
        0x5b9cca4f,
        0x682e6ff3
    );
    rounds4!(
        s,
        schedule!(w0, w1, w2, w3),
        0x748f82ee,
        0x78a5636f,
        0x84c87814,
        0x8cc70208
    );
    rounds4!(
        s,
        schedule!(w0, w1, w2, w3),
        0x90befffa,
        0xa4506ceb,
        0xbef9a3f7,
        0xc67178f2
    );
    // The last schedule's shifts are dead; keep the compiler from warning of them.
    let _ = (w0, w1, w2, w3);
    State {
        abef: _mm_add_epi32(s.abef, state.abef),
        cdgh: _mm_add_epi32(s.cdgh, state.cdgh),
    }
}

/// The 32 units of `src` (UTF-16LE) as UTF-8 at the start of `dst`, with 128-bit
/// vectors only (so the upper halves of the vector registers stay zero and SHA-NI's
/// legacy-SSE instructions beside it pay no transition, and port 1 stays open to
/// vector work): the encoder's algorithm four units at a time. `None` when a
/// surrogate is not half of a pair within the block; the bytes written then are
/// garbage. Up to 16 bytes past the result may be written.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi2,popcnt,sha,sse2,ssse3,sse4.1")]
#[inline]
fn encode32_xmm(src: &[u8; 64], dst: &mut [u8; 112]) -> Option<usize> {
    let load = |at: usize| -> __m128i {
        let part = src.get(at..).and_then(|b| b.first_chunk::<16>());
        let part = part.unwrap_or(&[0; 16]);
        // SAFETY: `part` is 16 readable bytes; `loadu` has no alignment requirement.
        unsafe { _mm_loadu_si128(part.as_ptr().cast()) }
    };
    let u = [
        opaque(load(0)),
        opaque(load(16)),
        opaque(load(32)),
        opaque(load(48)),
    ];
    let ten_bits = _mm_set1_epi16(0xFC00_u16.cast_signed());
    let mut high = 0u32;
    let mut low = 0u32;
    let mut non_ascii = 0u32;
    for (k, &v) in u.iter().enumerate() {
        let t = _mm_and_si128(v, ten_bits);
        let at = (k as u32).wrapping_mul(8);
        let h = _mm_cmpeq_epi16_mask(t, _mm_set1_epi16(0xD800_u16.cast_signed()));
        let l = _mm_cmpeq_epi16_mask(t, _mm_set1_epi16(0xDC00_u16.cast_signed()));
        let a = !_mm_cmplt_epu16_mask(v, _mm_set1_epi16(0x80));
        high |= opaque_bits(u32::from(h)) << at;
        low |= opaque_bits(u32::from(l)) << at;
        non_ascii |= opaque_bits(u32::from(a)) << at;
    }
    if u64::from(high) << 1 != u64::from(low) {
        return None;
    }
    let [u0, u1, u2, u3] = u;
    let store = |dst: &mut [u8; 112], at: usize, v: __m128i| {
        if let Some(d) = dst.get_mut(at..).and_then(|d| d.first_chunk_mut::<16>()) {
            // SAFETY: `d` is 16 writable bytes; `storeu` has no alignment requirement.
            unsafe { _mm_storeu_si128(d.as_mut_ptr().cast(), v) };
        }
    };
    if non_ascii == 0 {
        store(dst, 0, _mm_packus_epi16(u0, u1));
        store(dst, 16, _mm_packus_epi16(u2, u3));
        return Some(32);
    }
    // Each unit's successor (for pairs' low halves): the units shifted by one, the
    // next vector's first unit coming in.
    let zero = _mm_setzero_si128();
    let next = [
        _mm_alignr_epi8::<2>(u1, u0),
        _mm_alignr_epi8::<2>(u2, u1),
        _mm_alignr_epi8::<2>(u3, u2),
        _mm_alignr_epi8::<2>(zero, u3),
    ];
    let low6 = _mm_set1_epi32(0x3F);
    let cont = _mm_set1_epi32(0x80);
    let mut len = 0usize;
    let mut group = 0u32;
    for (v, n) in u.into_iter().zip(next) {
        for (x, xn) in [
            (_mm_cvtepu16_epi32(v), _mm_cvtepu16_epi32(n)),
            (
                _mm_cvtepu16_epi32(_mm_unpackhi_epi64(v, v)),
                _mm_cvtepu16_epi32(_mm_unpackhi_epi64(n, n)),
            ),
        ] {
            let b0 = _mm_or_si128(_mm_srli_epi32::<12>(x), _mm_set1_epi32(0xE0));
            let b1 = _mm_or_si128(_mm_and_si128(_mm_srli_epi32::<6>(x), low6), cont);
            let b2 = _mm_or_si128(_mm_and_si128(x, low6), cont);
            let three = _mm_or_si128(
                _mm_or_si128(b0, _mm_slli_epi32::<8>(b1)),
                _mm_slli_epi32::<16>(b2),
            );
            let c0 = _mm_or_si128(_mm_srli_epi32::<6>(x), _mm_set1_epi32(0xC0));
            let two = _mm_or_si128(c0, _mm_slli_epi32::<8>(b2));
            let is_one = _mm_cmplt_epu32_mask(x, _mm_set1_epi32(0x80));
            let is_two = _mm_cmplt_epu32_mask(x, _mm_set1_epi32(0x800));
            let mut encoded = _mm_mask_mov_epi32(_mm_mask_mov_epi32(three, is_two, two), is_one, x);
            let mut keep = _mm_mask_mov_epi32(
                _mm_mask_mov_epi32(_mm_set1_epi32(0x00FF_FFFF), is_two, _mm_set1_epi32(0xFFFF)),
                is_one,
                _mm_set1_epi32(0xFF),
            );
            // Four bits: this group's units.
            let shift = group.wrapping_mul(4);
            let (pair_high, pair_low) = ((high >> shift & 0xF) as u8, (low >> shift & 0xF) as u8);
            group = group.wrapping_add(1);
            if pair_high | pair_low != 0 {
                let hi = _mm_and_si128(x, _mm_set1_epi32(0x3FF));
                let lo = _mm_and_si128(xn, _mm_set1_epi32(0x3FF));
                let cp = _mm_add_epi32(
                    _mm_or_si128(_mm_slli_epi32::<10>(hi), lo),
                    _mm_set1_epi32(0x10000),
                );
                let d0 = _mm_or_si128(_mm_srli_epi32::<18>(cp), _mm_set1_epi32(0xF0));
                let d1 = _mm_or_si128(_mm_and_si128(_mm_srli_epi32::<12>(cp), low6), cont);
                let d2 = _mm_or_si128(_mm_and_si128(_mm_srli_epi32::<6>(cp), low6), cont);
                let d3 = _mm_or_si128(_mm_and_si128(cp, low6), cont);
                let four = _mm_or_si128(
                    _mm_or_si128(d0, _mm_slli_epi32::<8>(d1)),
                    _mm_or_si128(_mm_slli_epi32::<16>(d2), _mm_slli_epi32::<24>(d3)),
                );
                encoded = _mm_mask_mov_epi32(encoded, pair_high, four);
                keep = _mm_mask_mov_epi32(keep, pair_high, _mm_set1_epi32(-1));
                keep = _mm_mask_mov_epi32(keep, pair_low, _mm_setzero_si128());
            }
            let mask = _mm_movepi8_mask(keep);
            // At most 12 bytes per group, so at most 84 before the last: its 16-byte
            // store stays within the 112 bytes of `dst`.
            store(dst, len, _mm_maskz_compress_epi8(mask, encoded));
            len = len.wrapping_add(mask.count_ones() as usize);
        }
    }
    Some(len)
}

/// `v`, which the compiler cannot see into: it keeps each 128-bit vector a 128-bit
/// register (it would otherwise join two into a 256-bit one, dirtying the upper
/// state that SHA-NI's legacy-SSE instructions must find clean).
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi2,popcnt,sha,sse2,ssse3,sse4.1")]
#[inline]
fn opaque(mut v: __m128i) -> __m128i {
    // SAFETY: an empty template: no instruction, no memory, no flags.
    unsafe {
        core::arch::asm!("/* {0} */", inout(xmm_reg) v, options(pure, nomem, nostack, preserves_flags));
    }
    v
}

/// `m`, which the compiler cannot see into (see [`opaque`]: joined masks would let
/// it join the compares).
#[inline(always)]
fn opaque_bits(mut m: u32) -> u32 {
    // SAFETY: an empty template: no instruction, no memory, no flags.
    unsafe {
        core::arch::asm!("/* {0:e} */", inout(reg) m, options(pure, nomem, nostack, preserves_flags));
    }
    m
}

/// The stream buffer: the encoder writes at most 97 bytes per step (32 units, or 31
/// and a pair crossing the block's end) at the write position, the hash reads 64 at
/// the read position. When a step could pass the end, the unread bytes move to the
/// front (fewer than `AHEAD + 97`, once every few KiB).
const BUF: usize = 8192;
/// Room a step needs in front of the write position.
const STEP_ROOM: usize = 128;
/// How far the encoder runs ahead of the hash, in bytes: a few blocks, so the bytes a
/// block's message loads read were stored long before (no wait on a store in flight).
const AHEAD: usize = 640;
/// Blocks hashed per call of the SHA-NI function (a clean upper state each time).
const BURST: usize = 4;

/// [`FusedFence::digest`] with the prefix given.
///
/// # Safety
///
/// The CPU must support the features of [`FusedFence`].
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi2,popcnt,sha,sse2,ssse3,sse4.1")]
unsafe fn fused_digest(units: &[u8], prefix: &[u8]) -> [u8; 32] {
    // SAFETY: this function's caller guarantees the CPU features.
    unsafe { fused_digest_with::<AHEAD, BURST, false>(units, prefix) }
}

/// The fused loop, in the shapes measured (BENCHMARKS.md, "Fourth round"): the
/// encoder kept `AHEAD` bytes in front of the hash, `BURST` blocks hashed per
/// clean-state call of the SHA-NI function with the AVX-512 encoder (`XMM` false),
/// or every block inline with a 128-bit-only encoder (`XMM` true: no transition at
/// all, no call).
///
/// # Safety
///
/// The CPU must support the features of [`FusedFence`].
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi2,popcnt,sha,sse2,ssse3,sse4.1")]
unsafe fn fused_digest_with<const AHEAD: usize, const BURST: usize, const XMM: bool>(
    units: &[u8],
    prefix: &[u8],
) -> [u8; 32] {
    let mut buf = [0u8; BUF];
    let mut state = initial_state();
    // The prefix is at most 11 bytes.
    let mut w = prefix.len().min(16);
    if let Some(dst) = buf.get_mut(..w) {
        dst.copy_from_slice(prefix.get(..w).unwrap_or_default());
    }
    let mut r = 0usize;
    clean_upper();
    // Bytes hashed so far (whole blocks).
    let mut hashed = 0u64;
    let mut rest = units;
    loop {
        // Encode until the buffer holds `AHEAD` bytes beyond the hash (or the text
        // ends). Positions: `r <= w`, `w - r < AHEAD + 97`, `w + STEP_ROOM <= BUF`
        // before each step.
        while w.wrapping_sub(r) < AHEAD && rest.len() >= 2 {
            if w.wrapping_add(STEP_ROOM) > BUF {
                buf.copy_within(r..w, 0);
                w = w.wrapping_sub(r);
                r = 0;
            }
            if XMM {
                if let Some((block, tail)) = rest.split_first_chunk::<64>()
                    && let Some(dst) = buf.get_mut(w..).and_then(|d| d.first_chunk_mut::<112>())
                    && let Some(n) = encode32_xmm(block, dst)
                {
                    w = w.wrapping_add(n);
                    rest = tail;
                    continue;
                }
            } else if let Some((block, tail)) = rest.split_first_chunk::<64>()
                && let Some(dst) = buf.get_mut(w..).and_then(|d| d.first_chunk_mut::<96>())
                // SAFETY: this function's caller guarantees the CPU features.
                && let Some(b) = unsafe { avx512::encode32::<false>(block, dst) }
            {
                // At most 96 bytes, within the room checked above.
                w = w.wrapping_add(b.len);
                rest = tail;
                continue;
            }
            // A block the step refuses (a lone surrogate, or a pair split by its
            // end), or the last units: unit by unit, into the same stream.
            let Some(step) = buf.get_mut(w..).and_then(|d| encode_units(rest, 32, d)) else {
                // Cannot happen (97 bytes fit the room); stop rather than spin.
                break;
            };
            w = w.wrapping_add(step.len);
            rest = rest.get(step.units.saturating_mul(2)..).unwrap_or_default();
        }
        let n = (w.wrapping_sub(r) / 64).min(BURST).wrapping_mul(64);
        if n == 0 {
            break;
        }
        let Some(blocks) = buf.get(r..r.wrapping_add(n)) else {
            break;
        };
        if XMM {
            state = compress_inline(state, blocks);
        } else {
            clean_upper();
            state = compress_blocks(state, blocks);
        }
        r = r.wrapping_add(n);
        hashed = hashed.wrapping_add(n as u64);
    }
    // The padding: 0x80, zeros, the length in bits (big-endian) at the end of the
    // last block; one block or two after the fewer than 64 bytes left.
    let left = buf.get(r..w).unwrap_or_default();
    let total = hashed.wrapping_add(left.len() as u64);
    let mut tail = [0u8; 128];
    if let Some(dst) = tail.get_mut(..left.len()) {
        dst.copy_from_slice(left);
    }
    if let Some(mark) = tail.get_mut(left.len()) {
        *mark = 0x80;
    }
    let end: usize = if left.len() < 56 { 64 } else { 128 };
    if let Some(len) = tail.get_mut(end.saturating_sub(8)..end) {
        len.copy_from_slice(&total.wrapping_mul(8).to_be_bytes());
    }
    clean_upper();
    state = compress_blocks(state, tail.get(..end).unwrap_or_default());
    digest_bytes(state)
}

/// Zeroes the upper halves of every vector register, ZMM16-31 included (which
/// `vzeroupper` leaves alone): SHA-NI's instructions are legacy SSE, and on this
/// machine each one issued while any upper half is dirty costs a state transition
/// (a first build that did not clean ran at 9.4 ms a call instead of ~85 µs).
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi2,popcnt,sha,sse2,ssse3,sse4.1")]
#[inline]
fn clean_upper() {
    // SAFETY: register-only instructions, every register they write declared
    // clobbered; no memory, no stack, no flags.
    unsafe {
        core::arch::asm!(
            "vzeroupper",
            "vpxord xmm16, xmm16, xmm16", "vpxord xmm17, xmm17, xmm17",
            "vpxord xmm18, xmm18, xmm18", "vpxord xmm19, xmm19, xmm19",
            "vpxord xmm20, xmm20, xmm20", "vpxord xmm21, xmm21, xmm21",
            "vpxord xmm22, xmm22, xmm22", "vpxord xmm23, xmm23, xmm23",
            "vpxord xmm24, xmm24, xmm24", "vpxord xmm25, xmm25, xmm25",
            "vpxord xmm26, xmm26, xmm26", "vpxord xmm27, xmm27, xmm27",
            "vpxord xmm28, xmm28, xmm28", "vpxord xmm29, xmm29, xmm29",
            "vpxord xmm30, xmm30, xmm30", "vpxord xmm31, xmm31, xmm31",
            out("xmm0") _, out("xmm1") _, out("xmm2") _, out("xmm3") _,
            out("xmm4") _, out("xmm5") _, out("xmm6") _, out("xmm7") _,
            out("xmm8") _, out("xmm9") _, out("xmm10") _, out("xmm11") _,
            out("xmm12") _, out("xmm13") _, out("xmm14") _, out("xmm15") _,
            out("xmm16") _, out("xmm17") _, out("xmm18") _, out("xmm19") _,
            out("xmm20") _, out("xmm21") _, out("xmm22") _, out("xmm23") _,
            out("xmm24") _, out("xmm25") _, out("xmm26") _, out("xmm27") _,
            out("xmm28") _, out("xmm29") _, out("xmm30") _, out("xmm31") _,
            options(nomem, nostack, preserves_flags)
        );
    }
}

/// [`FusedFence::contains_token`].
///
/// # Safety
///
/// The CPU must support the features of [`FusedFence`].
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi2,popcnt,sha,sse2,ssse3,sse4.1")]
unsafe fn contains_token(units: &[u8], token: &[u8; 8]) -> bool {
    let mut pattern = [0u8; 16];
    for (pair, &c) in pattern.chunks_exact_mut(2).zip(token) {
        pair.copy_from_slice(&[c, 0]);
    }
    let [t0, .., t7] = token.map(|c| u16::from(c).cast_signed());
    let first = _mm512_set1_epi16(t0);
    let last = _mm512_set1_epi16(t7);
    let matches_at = |at: usize| {
        at.checked_add(16)
            .and_then(|end| units.get(at..end))
            .is_some_and(|w| w == pattern)
    };
    // Thirty-two starting units at a time: those whose first unit is the token's
    // first and whose eighth is its last (the 64 bytes at unit 7 are loaded too, so
    // the block needs 39 units), each candidate then compared whole.
    let mut at = 0usize;
    while let Some(window) = units.get(at..at.saturating_add(78)) {
        let (Some(head), Some(tail)) = (
            window.first_chunk::<64>(),
            window.get(14..).and_then(|t| t.first_chunk::<64>()),
        ) else {
            break;
        };
        // SAFETY: `head` is 64 readable bytes; `loadu` has no alignment requirement.
        let head = unsafe { _mm512_loadu_si512(head.as_ptr().cast()) };
        // SAFETY: as for `head`.
        let tail = unsafe { _mm512_loadu_si512(tail.as_ptr().cast()) };
        let mut candidates =
            _mm512_cmpeq_epi16_mask(head, first) & _mm512_cmpeq_epi16_mask(tail, last);
        while candidates != 0 {
            let k = candidates.trailing_zeros() as usize;
            candidates &= candidates.wrapping_sub(1);
            if matches_at(at.wrapping_add(k.wrapping_mul(2))) {
                return true;
            }
        }
        at = at.wrapping_add(64);
    }
    // Fewer than 39 units left: each even offset.
    while at.saturating_add(16) <= units.len() {
        if matches_at(at) {
            return true;
        }
        at = at.wrapping_add(2);
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use sha2::{Digest, Sha256};

    fn le(s: &[u16]) -> Vec<u8> {
        s.iter().flat_map(|u| u.to_le_bytes()).collect()
    }

    struct Rng(u64);
    impl Rng {
        fn next(&mut self, n: u64) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0 % n
        }
    }

    /// Units of every kind the encoder and the unit-wise path tell apart.
    const UNITS: [u16; 18] = [
        0x61, 0x20, 0x0A, 0x00, 0x7F, 0x80, 0xE9, 0x7FF, 0x800, 0x2014, 0x3000, 0xFFFD, 0xFFFF,
        0xD83D, 0xDE00, 0xDBFF, 0xDFFF, 0xD800,
    ];

    fn random_units(rng: &mut Rng, len: usize) -> Vec<u16> {
        let density = 1 + rng.next(8);
        (0..len)
            .map(|_| {
                if rng.next(density) == 0 {
                    UNITS[rng.next(UNITS.len() as u64) as usize]
                } else {
                    0x61 + rng.next(26) as u16
                }
            })
            .collect()
    }

    fn want_digest(units: &[u16], salt: u32) -> [u8; 32] {
        let mut h = Sha256::new();
        h.update(format!("{salt}\n"));
        h.update(String::from_utf16_lossy(units));
        h.finalize().into()
    }

    #[test]
    fn digest_matches_sha2_at_every_length_and_salt() {
        let Some(cpu) = detect() else {
            return; // nothing to compare on this CPU
        };
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        for len in 0..=300 {
            let units = random_units(&mut rng, len);
            let salt = rng.next(65) as u32;
            assert_eq!(
                cpu.digest(&le(&units), salt),
                want_digest(&units, salt),
                "{len} {salt} {units:x?}"
            );
        }
        // Every salt, two-digit ones included, and one past the fallback's.
        let units: Vec<u16> = "a — b 😀".encode_utf16().collect();
        for salt in (0..=64).chain([99, 100, 4_294_967_295]) {
            assert_eq!(cpu.digest(&le(&units), salt), want_digest(&units, salt));
        }
        // Big ones, across the stream buffer's moves many times.
        for _ in 0..40 {
            let len = rng.next(40_000) as usize;
            let units = random_units(&mut rng, len);
            assert_eq!(cpu.digest(&le(&units), 0), want_digest(&units, 0), "{len}");
        }
        // An odd last byte is ignored.
        let mut text = le(&units);
        text.push(0x41);
        assert_eq!(cpu.digest(&text, 3), want_digest(&units, 3));
    }

    #[test]
    fn lone_surrogates_and_split_pairs_at_every_block_edge() {
        let Some(cpu) = detect() else {
            return;
        };
        // Mixed prose, 200 units, with a pair or a lone half put at each position
        // around the 32-unit edges (the encoder refuses those blocks).
        let base: Vec<u16> = "word — “quoted” café 日本語 "
            .encode_utf16()
            .cycle()
            .take(200)
            .collect();
        for at in 0..200 {
            for insert in [
                &[0xD83D, 0xDE00][..],
                &[0xD800],
                &[0xDFFF],
                &[0xDBFF, 0xDBFF],
                &[0xDE00, 0xD83D],
            ] {
                let mut units = base.clone();
                for (k, &u) in insert.iter().enumerate() {
                    if let Some(slot) = units.get_mut(at + k) {
                        *slot = u;
                    }
                }
                for salt in [0, 7, 42] {
                    assert_eq!(
                        cpu.digest(&le(&units), salt),
                        want_digest(&units, salt),
                        "{at} {insert:x?}"
                    );
                }
            }
        }
    }

    fn plain_contains(units: &[u16], token: &[u8; 8]) -> bool {
        let want: Vec<u16> = token.iter().map(|&c| u16::from(c)).collect();
        units.windows(8).any(|w| w == want)
    }

    #[test]
    fn token_search_is_the_plain_search_at_even_offsets() {
        let Some(cpu) = detect() else {
            return;
        };
        let token = *b"3a0f9c1e";
        let wide: Vec<u16> = token.iter().map(|&c| u16::from(c)).collect();
        // The pattern's bytes at an odd offset: units whose high byte is the token's
        // character and whose low byte is zero, like U+3000 (`00 30`).
        // U+3000 after them gives the pattern its last zero byte.
        let odd: Vec<u16> = token
            .iter()
            .map(|&c| u16::from(c) << 8)
            .chain([0x3000])
            .collect();
        let mut rng = Rng(7);
        let mut found = 0;
        for round in 0..3000 {
            let len = rng.next(200) as usize;
            let mut units: Vec<u16> = (0..len)
                .map(|_| match rng.next(4) {
                    0 => u16::from(token[rng.next(8) as usize]),
                    1 => u16::from(token[rng.next(8) as usize]) << 8,
                    _ => 0x61 + rng.next(26) as u16,
                })
                .collect();
            // The odd-offset false hit always, the token itself in half the rounds.
            let at = rng.next(len as u64 + 1) as usize;
            units.splice(at..at, odd.iter().copied());
            if round % 2 == 0 {
                let at = rng.next(units.len() as u64 + 1) as usize;
                units.splice(at..at, wide.iter().copied());
            }
            let mut text = le(&units);
            let plain = plain_contains(&units, &token);
            assert_eq!(cpu.contains_token(&text, &token), plain, "{units:x?}");
            found += usize::from(plain);
            // Trailing odd byte ignored.
            text.push(b'3');
            assert_eq!(cpu.contains_token(&text, &token), plain);
        }
        assert!(found >= 1500);
        // The false hit really is in the bytes.
        let text = le(&[&[0x41][..], &odd].concat());
        let pattern: Vec<u8> = wide.iter().flat_map(|u| u.to_le_bytes()).collect();
        assert!(text.windows(16).any(|w| w == pattern));
        assert!(!cpu.contains_token(&text, &token));
    }

    fn token_of(cpu: FusedFence, units: &[u16]) -> String {
        let t = cpu.fence_token(&le(units)).unwrap();
        String::from_utf8(t.as_bytes().to_vec()).unwrap()
    }

    #[test]
    fn token_matches_core_known_answers_and_retries() {
        let Some(cpu) = detect() else {
            return;
        };
        let u = |s: &str| s.encode_utf16().collect::<Vec<_>>();
        for (payload, token) in [
            ("", "9a271f2a"),
            ("- a", "20faed25"),
            ("- b", "d391e7d4"),
            ("hello", "f6c5c364"),
            ("€", "f415df34"),
        ] {
            assert_eq!(token_of(cpu, &u(payload)), token);
        }
        // SPEC §6's forced retries.
        let mut h = String::new();
        for i in 0..16384u32 {
            for b in Sha256::digest(i.to_string()) {
                h.push_str(&format!("{b:02x}"));
            }
        }
        assert_eq!(token_of(cpu, &u(&format!("{h}\n374"))), "003dfc6c");
        assert_eq!(token_of(cpu, &u(&format!("{h}\n28142297"))), "5c4f6438");
        let mut rng = Rng(3);
        for _ in 0..300 {
            let len = rng.next(3000) as usize;
            let units = random_units(&mut rng, len);
            let want = airlock_core::fence_token(String::from_utf16_lossy(&units).as_bytes());
            assert_eq!(token_of(cpu, &units), want.as_str(), "{units:x?}");
        }
    }

    #[test]
    fn each_salt_present_moves_to_the_next_and_all_present_gives_salt_64() {
        let Some(cpu) = detect() else {
            return;
        };
        let units: Vec<u16> = "a — b 😀 ".encode_utf16().chain([0xD800]).collect();
        let text = le(&units);
        for taken in [1, 2, 63, 64] {
            let mut asked = Vec::new();
            let t = cpu
                .fence_token_by(&text, |token| {
                    asked.push(*token);
                    asked.len() <= taken
                })
                .unwrap();
            let salt = taken.min(64) as u32;
            let hex = hex_of(&want_digest(&units, salt));
            let want = if taken < 64 { &hex[..8] } else { &hex[..] };
            assert_eq!(t.as_bytes(), want, "{taken}");
            // Each salt's token was the one looked for.
            for (salt, token) in asked.iter().enumerate() {
                assert_eq!(&token[..], &hex_of(&want_digest(&units, salt as u32))[..8]);
            }
            assert_eq!(asked.len(), (taken + 1).min(64));
        }
    }
}
