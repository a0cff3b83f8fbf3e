//! The lead refinement of the AVX2 block scan as nibble tables, and of the AVX-512
//! one as byte tables (issue 17).
//!
//! The refinement asks, for each attention lead byte of a block, whether the two
//! bytes after it can continue one of [`ATTENTION_LEADS`]' patterns. Compared
//! pattern by pattern it costs about a hundred vector operations per 32 bytes,
//! and in mixed prose four blocks in ten hold a lead byte (the em dash, curly
//! quotes and the ellipsis begin with `E2`). Here each group of patterns sharing
//! their first two bytes is one bit, and a byte's bits are the AND of six 16-entry
//! lookups — the high and low nibble of the byte and of the next two (the
//! Keiser–Lemire shape of a UTF-8 validator): twelve shuffles for sixteen groups.
//!
//! A group's test is the product of its bytes' nibble sets, so it may answer yes
//! for a few more triples than its patterns hold (never fewer): the scanner checks
//! every candidate with the exact scalar test ([`super::finder::lead_may_attend`])
//! before its caller sees it. The tables are derived at compile time from the rules.

use core::arch::x86_64::{
    __m256i, _mm256_and_si256, _mm256_broadcastsi128_si256, _mm256_cmpeq_epi8, _mm256_or_si256,
    _mm256_set1_epi8, _mm256_setzero_si256, _mm256_shuffle_epi8, _mm256_srli_epi16,
    _mm256_xor_si256,
};

use crate::rules::{ATTENTION_LEADS, Seq};

/// Groups the tables hold: two 8-bit halves.
const MAX_GROUPS: usize = 16;

/// Six nibble tables (byte `k` of a triple, high then low nibble), a group a bit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct PairTables {
    /// `nib[2 * k]` by the high nibble of byte `k`, `nib[2 * k + 1]` by the low one.
    pub(super) nib: [[u16; 16]; 6],
    /// Groups in use.
    pub(super) groups: usize,
}

/// The first two bytes' ranges of a pattern: what makes a group.
const fn same_head(a: &Seq, b: &Seq) -> bool {
    a.lo[0] == b.lo[0] && a.hi[0] == b.hi[0] && a.lo[1] == b.lo[1] && a.hi[1] == b.hi[1]
}

/// Sets `bit` in `t[hi]` and `t[lo + 1]` for every byte of `lo..=hi` (both nibble
/// tables of one byte position).
#[allow(clippy::indexing_slicing, clippy::arithmetic_side_effects)]
const fn mark(t: &mut [[u16; 16]; 6], k: usize, lo: u8, hi: u8, bit: u16) {
    // `k < 3`, nibbles below 16.
    let mut b = lo as usize;
    while b <= hi as usize {
        t[2 * k][b >> 4] |= bit;
        t[2 * k + 1][b & 15] |= bit;
        b += 1;
    }
}

/// The tables of [`ATTENTION_LEADS`]' multi-byte patterns.
#[allow(clippy::indexing_slicing, clippy::arithmetic_side_effects)]
pub(super) const PAIRS: PairTables = {
    // Indexes: groups below MAX_GROUPS (checked), byte positions below 3.
    let seqs = ATTENTION_LEADS.as_slice();
    let mut t = PairTables {
        nib: [[0; 16]; 6],
        groups: 0,
    };
    let mut heads = [0usize; MAX_GROUPS];
    let mut i = 0;
    while i < seqs.len() {
        let s = seqs[i];
        if s.enc_len >= 2 {
            let mut g = 0;
            while g < t.groups && !same_head(&seqs[heads[g]], &s) {
                g += 1;
            }
            if g == t.groups {
                assert!(t.groups < MAX_GROUPS, "pairs: raise MAX_GROUPS");
                heads[g] = i;
                t.groups += 1;
            }
            let bit = 1u16 << g;
            mark(&mut t.nib, 0, s.lo[0], s.hi[0], bit);
            mark(&mut t.nib, 1, s.lo[1], s.hi[1], bit);
            if s.len >= 3 {
                mark(&mut t.nib, 2, s.lo[2], s.hi[2], bit);
            } else {
                // A two-byte pattern: any third byte.
                mark(&mut t.nib, 2, 0, 0xFF, bit);
            }
        }
        i += 1;
    }
    t
};

impl PairTables {
    /// Whether the triple `b0 b1 b2` passes the tables (the scalar model of
    /// [`lead_pairs`], for tests).
    #[cfg(test)]
    pub(super) fn passes(&self, b: [u8; 3]) -> bool {
        let mut acc = u16::MAX;
        for (k, &x) in b.iter().enumerate() {
            acc &= self.nib[2 * k][usize::from(x >> 4)] & self.nib[2 * k + 1][usize::from(x & 15)];
        }
        acc != 0
    }
}

/// The tables split into byte tables: `[0]` for groups 0–7, `[1]` for groups 8–15.
#[allow(clippy::indexing_slicing)]
pub(super) const HALVES: [[[u8; 16]; 6]; 2] = {
    // Indexes below 6, 16 and 2.
    let mut h = [[[0u8; 16]; 6]; 2];
    let mut k = 0;
    while k < 6 {
        let mut n = 0;
        while n < 16 {
            let [lo, hi] = PAIRS.nib[k][n].to_le_bytes();
            h[0][k][n] = lo;
            h[1][k][n] = hi;
            n += 1;
        }
        k += 1;
    }
    h
};

/// The refinement's groups by whole bytes (issue 17), for the AVX-512 VBMI lookups
/// of the fused pass: one 128-entry lookup of the lead byte (by its low seven bits,
/// bytes 0x80 and up) and one 64-entry lookup of each of the next two bytes (by
/// their low six bits, continuation bytes). A byte table is exact per byte where
/// the nibble tables test a product of nibble sets, so a byte passes the byte
/// tables only if it passes the nibble ones (fewer false stops). On valid UTF-8 the
/// two bytes after a lead byte are continuation bytes (or, after a two-byte lead,
/// a third byte every group of such leads accepts), so the six low bits say all.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct ByteTables {
    /// By lead byte minus 0x80.
    pub(super) lead: [u16; 128],
    /// By the second byte's low six bits.
    pub(super) second: [u16; 64],
    /// By the third byte's low six bits.
    pub(super) third: [u16; 64],
}

/// Sets `bit` in `t[b & mask]` for every byte `b` of `lo..=hi`.
#[allow(clippy::indexing_slicing, clippy::arithmetic_side_effects)]
const fn mark_bytes<const N: usize>(t: &mut [u16; N], lo: u8, hi: u8, bit: u16) {
    // Indexes masked below N (a power of two).
    let mut b = lo as usize;
    while b <= hi as usize {
        t[b & (N - 1)] |= bit;
        b += 1;
    }
}

/// [`ByteTables`] of [`ATTENTION_LEADS`]' multi-byte patterns, the groups of
/// [`PAIRS`].
#[allow(clippy::indexing_slicing, clippy::arithmetic_side_effects)]
pub(super) const BYTES: ByteTables = {
    // Indexes: groups below MAX_GROUPS (as in PAIRS), byte positions below 3.
    let seqs = ATTENTION_LEADS.as_slice();
    let mut t = ByteTables {
        lead: [0; 128],
        second: [0; 64],
        third: [0; 64],
    };
    let mut heads = [0usize; MAX_GROUPS];
    let mut groups = 0;
    let mut i = 0;
    while i < seqs.len() {
        let s = seqs[i];
        if s.enc_len >= 2 {
            assert!(s.lo[0] >= 0xC2, "pairs: a lead byte below 0xC2");
            assert!(
                s.lo[1] >= 0x80 && s.hi[1] <= 0xBF,
                "pairs: a second byte that is not a continuation"
            );
            let mut g = 0;
            while g < groups && !same_head(&seqs[heads[g]], &s) {
                g += 1;
            }
            if g == groups {
                assert!(groups < MAX_GROUPS, "pairs: raise MAX_GROUPS");
                heads[g] = i;
                groups += 1;
            }
            let bit = 1u16 << g;
            mark_bytes(&mut t.lead, s.lo[0], s.hi[0], bit);
            mark_bytes(&mut t.second, s.lo[1], s.hi[1], bit);
            if s.len >= 3 {
                assert!(
                    s.lo[2] >= 0x80 && s.hi[2] <= 0xBF,
                    "pairs: a third byte that is not a continuation"
                );
                mark_bytes(&mut t.third, s.lo[2], s.hi[2], bit);
            } else {
                mark_bytes(&mut t.third, 0, 63, bit);
            }
        }
        i += 1;
    }
    assert!(
        groups == PAIRS.groups,
        "pairs: the byte tables' groups are PAIRS'"
    );
    t
};

impl ByteTables {
    /// Whether the lead byte `b[0]` (0x80 and up) and the two bytes after it pass
    /// (the scalar model of the fused pass's lookups, for tests).
    #[cfg(test)]
    pub(super) fn passes(&self, b: [u8; 3]) -> bool {
        self.lead[usize::from(b[0] & 0x7F)]
            & self.second[usize::from(b[1] & 0x3F)]
            & self.third[usize::from(b[2] & 0x3F)]
            != 0
    }
}

/// [`BYTES`] split into byte tables: `[0]` for groups 0–7, `[1]` for groups 8–15;
/// the lead table in two 64-byte halves (bytes 0x80–0xBF, 0xC0–0xFF).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct ByteHalves {
    pub(super) lead: [[[u8; 64]; 2]; 2],
    pub(super) second: [[u8; 64]; 2],
    pub(super) third: [[u8; 64]; 2],
}

/// The low (`[0]`) and high (`[1]`) bytes of `t`, in 64-byte rows.
#[allow(clippy::indexing_slicing, clippy::arithmetic_side_effects)]
const fn split<const N: usize, const ROWS: usize>(t: &[u16; N]) -> [[[u8; 64]; ROWS]; 2] {
    // Indexes below N = 64 * ROWS (checked).
    assert!(N == 64 * ROWS, "pairs: a table of whole rows");
    let mut out = [[[0u8; 64]; ROWS]; 2];
    let mut i = 0;
    while i < N {
        let [lo, hi] = t[i].to_le_bytes();
        out[0][i / 64][i % 64] = lo;
        out[1][i / 64][i % 64] = hi;
        i += 1;
    }
    out
}

/// [`BYTES`] by halves: a `static`, so the vector code loads the rows where they
/// are rather than from a copy of a constant.
pub(super) static BYTE_HALVES: ByteHalves = {
    let [[s0], [s1]] = split::<64, 1>(&BYTES.second);
    let [[t0], [t1]] = split::<64, 1>(&BYTES.third);
    ByteHalves {
        lead: split::<128, 2>(&BYTES.lead),
        second: [s0, s1],
        third: [t0, t1],
    }
};

/// The AND of one half's six lookups.
#[inline]
#[target_feature(enable = "avx2")]
fn lookups(nibbles: &[__m256i; 6], tables: &[[u8; 16]; 6]) -> __m256i {
    let mut acc = _mm256_set1_epi8(-1);
    for (&t, &n) in tables.iter().zip(nibbles) {
        let t = _mm256_broadcastsi128_si256(super::x86::table(t));
        acc = _mm256_and_si256(acc, _mm256_shuffle_epi8(t, n));
    }
    acc
}

/// 0xFF where byte `v` and its next bytes `s`, `t` (the same lanes of the vectors
/// loaded one and two bytes further) may begin a multi-byte attention code point:
/// a superset of the patterns (see the module's text), 0 for every ASCII byte.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn lead_pairs(v: __m256i, s: __m256i, t: __m256i) -> __m256i {
    let low = _mm256_set1_epi8(0x0F);
    let hi = |x: __m256i| _mm256_and_si256(_mm256_srli_epi16::<4>(x), low);
    let lo = |x: __m256i| _mm256_and_si256(x, low);
    let nibbles = [hi(v), lo(v), hi(s), lo(s), hi(t), lo(t)];
    let [low_groups, high_groups] = &HALVES;
    let mut any = lookups(&nibbles, low_groups);
    if const { PAIRS.groups > 8 } {
        any = _mm256_or_si256(any, lookups(&nibbles, high_groups));
    }
    let zero = _mm256_setzero_si256();
    // 0xFF where `any` is not zero.
    _mm256_xor_si256(_mm256_cmpeq_epi8(any, zero), _mm256_set1_epi8(-1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scan::finder::lead_may_attend;

    #[test]
    fn the_byte_tables_pass_fewer_triples_than_the_nibble_ones_and_every_pattern() {
        for b0 in 0x80..=255u8 {
            for b1 in 0..=255u8 {
                for b2 in 0..=255u8 {
                    let b = [b0, b1, b2];
                    let passes = BYTES.passes(b);
                    // A superset of the exact test on any input (the block scan
                    // runs it on text, but the claim holds without that).
                    if crate::rules::is_attention_lead(b0) && lead_may_attend(&b, 0) {
                        assert!(passes, "{b:02X?}");
                    }
                    if !(0x80..0xC0).contains(&b1) {
                        continue;
                    }
                    // A valid sequence's third byte: a continuation, or anything
                    // after a two-byte lead.
                    let valid = (0x80..0xC0).contains(&b2) || (0xC2..0xE0).contains(&b0);
                    if valid && passes {
                        assert!(PAIRS.passes(b), "{b:02X?}");
                    }
                    if valid && crate::rules::is_attention_lead(b0) && lead_may_attend(&b, 0) {
                        assert!(passes, "{b:02X?}");
                    }
                }
            }
        }
        for s in ["—", "–", "’", "“", "”", "…", "€", "é", "中", "°", "™", "→"]
        {
            let e = s.as_bytes();
            let mut b = [0x80u8; 3];
            for (d, &x) in b.iter_mut().zip(e) {
                *d = x;
            }
            assert!(!BYTES.passes(b), "{s}");
        }
    }

    #[test]
    fn the_tables_are_a_superset_of_the_patterns_and_ascii_never_passes() {
        for b0 in 0..=255u8 {
            for b1 in 0..=255u8 {
                for b2 in 0..=255u8 {
                    let b = [b0, b1, b2];
                    let passes = PAIRS.passes(b);
                    if b0 < 0x80 {
                        assert!(!passes, "{b:02X?}");
                    }
                    if b0 >= 0x80 && crate::rules::is_attention_lead(b0) && lead_may_attend(&b, 0) {
                        assert!(passes, "{b:02X?}");
                    }
                }
            }
        }
        // The common non-attention punctuation of prose does not pass.
        for s in ["—", "–", "’", "“", "”", "…", "€", "é", "中", "°", "™", "→"]
        {
            let e = s.as_bytes();
            let mut b = [0u8; 3];
            for (d, &x) in b.iter_mut().zip(e) {
                *d = x;
            }
            assert!(!PAIRS.passes(b), "{s}");
        }
    }
}
