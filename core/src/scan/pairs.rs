//! The lead refinement of the block scan (issue 17; generalised for strict, issue 14):
//! a [`Refinement`] says, for each lead byte of a set of code points, which two
//! bytes after it can continue one of them, as exact per-byte tables for the lead,
//! second and third byte (the AVX-512 scan's `vpermi2b`/`vpermb` lookups and the
//! scalar confirm) and as nibble tables for the AVX2 and NEON scans. Data only: the
//! vector code reading the tables is in `x86.rs` and `generic/blocks.rs`.
//!
//! Compared pattern by pattern it costs about a hundred vector operations per 32
//! bytes, and in mixed prose four blocks in ten hold a lead byte (the em dash, curly
//! quotes and the ellipsis begin with `E2`). Here each group of patterns sharing
//! their first two bytes is one bit (at most [`MAX_GROUPS`]), and a byte's bits are
//! the AND of three byte lookups (AVX-512) or six 16-entry nibble lookups — the high
//! and low nibble of the byte and of the next two (the Keiser–Lemire shape of a
//! UTF-8 validator): twelve shuffles for sixteen groups (AVX2).
//!
//! A group's byte tables are exact: its patterns share their lead and second byte
//! ranges, so the group is the product of those and the union of the third bytes.
//! The nibble tables test a product of nibble sets, so they may answer yes for a
//! few more triples (never fewer): the scanner checks every candidate with the
//! exact scalar test ([`Refinement::may_begin`]) before its caller sees it. The
//! tables are derived at compile time: the reference's from the rules
//! ([`ATTENTION_LEADS`]), strict's from D's generated ranges.

use super::byteset::ByteSet;
use crate::rules::{ATTENTION_LEADS, Seq, encode};

/// Groups the tables hold: two 8-bit halves.
pub(crate) const MAX_GROUPS: usize = 16;

/// The refinement's groups by whole bytes: one 128-entry table of the lead byte (by
/// its low seven bits, bytes 0x80 and up) and one 64-entry table of each of the next
/// two bytes (by their low six bits, continuation bytes), a group a bit. On valid
/// UTF-8 the two bytes after a lead byte are continuation bytes (or, after a
/// two-byte lead, a third byte every group of such leads accepts), so the six low
/// bits say all.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ByteTables {
    /// By lead byte minus 0x80.
    pub(super) lead: [u16; 128],
    /// By the second byte's low six bits.
    pub(super) second: [u16; 64],
    /// By the third byte's low six bits.
    pub(super) third: [u16; 64],
}

/// [`ByteTables`] split into byte tables: `[0]` for groups 0–7, `[1]` for groups
/// 8–15; the lead table in two 64-byte halves (bytes 0x80–0xBF, 0xC0–0xFF). The
/// AVX-512 scan loads them as vectors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ByteHalves {
    pub(super) lead: [[[u8; 64]; 2]; 2],
    pub(super) second: [[u8; 64]; 2],
    pub(super) third: [[u8; 64]; 2],
}

/// Which multi-byte code points a refined finder reports at their lead byte: every
/// view of the tables the backends use, built at compile time from one list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Refinement {
    /// The exact per-byte tables (the scalar confirm, and the source of the rest).
    pub(super) bytes: ByteTables,
    /// Groups of two-byte code points: any third byte passes (also a non-continuation).
    pub(super) any_third: u16,
    /// Groups in use.
    pub(super) groups: usize,
    /// The lead bytes some group has: a finder whose non-ASCII members are all here
    /// may be refined by these tables.
    pub(super) leads: ByteSet,
    /// Six nibble tables (byte `k` of a triple, high then low nibble) in two halves,
    /// `[0]` for groups 0–7, `[1]` for 8–15 (the AVX2 scan's shuffles).
    pub(super) nibbles: [[[u8; 16]; 6]; 2],
    /// The byte tables by halves (the AVX-512 scan's permutes).
    pub(super) halves: ByteHalves,
}

/// A refinement being built: the byte tables and the groups' heads.
pub(crate) struct Builder {
    bytes: ByteTables,
    any_third: u16,
    groups: usize,
    /// Lead and second byte range of each group (lo0, hi0, lo1, hi1).
    heads: [[u8; 4]; MAX_GROUPS],
    /// The heads are given ([`Builder::grouped`]): a code point goes to the first
    /// that covers its lead and second byte. Otherwise each new pair of them makes
    /// a group.
    fixed: bool,
}

impl Builder {
    const fn new() -> Builder {
        Builder {
            bytes: ByteTables {
                lead: [0; 128],
                second: [0; 64],
                third: [0; 64],
            },
            any_third: 0,
            groups: 0,
            heads: [[0; 4]; MAX_GROUPS],
            fixed: false,
        }
    }

    /// A builder whose groups are `heads` (lead byte range, second byte range; at
    /// most [`MAX_GROUPS`], two-byte leads in groups of their own): for a set with
    /// more lead and second byte pairs than groups. A group's tables are then the
    /// bytes its code points have, so it may pass a few more (the scalar confirm of
    /// the finder's caller decides those).
    #[allow(clippy::indexing_slicing, clippy::arithmetic_side_effects)]
    pub(crate) const fn grouped(heads: &[[u8; 4]]) -> Builder {
        // Index `g < heads.len() <= MAX_GROUPS` (checked).
        assert!(heads.len() <= MAX_GROUPS, "pairs: raise MAX_GROUPS");
        let mut t = Builder::new();
        let mut g = 0;
        while g < heads.len() {
            let [lo0, hi0, _, _] = heads[g];
            assert!(
                hi0 < 0xE0 || lo0 >= 0xE0,
                "pairs: a group of two-byte and longer leads"
            );
            t.heads[g] = heads[g];
            g += 1;
        }
        t.groups = heads.len();
        t.fixed = true;
        t
    }

    /// Adds the code points whose lead byte is in `lo0..=hi0`, second byte in
    /// `lo1..=hi1` and (`third`: `Some`) third byte in `lo2..=hi2`, or any third byte
    /// (`None`: two-byte code points).
    #[allow(clippy::indexing_slicing, clippy::arithmetic_side_effects)]
    const fn add(&mut self, head: [u8; 4], third: Option<(u8, u8)>) {
        // Indexes: groups below MAX_GROUPS (checked), bytes masked below the tables'
        // lengths; evaluated at compile time only.
        let [lo0, hi0, lo1, hi1] = head;
        assert!(lo0 >= 0xC2, "pairs: a lead byte below 0xC2");
        assert!(
            lo1 >= 0x80 && hi1 <= 0xBF,
            "pairs: a second byte that is not a continuation"
        );
        let mut g = 0;
        while g < self.groups {
            let h = self.heads[g];
            let found = if self.fixed {
                h[0] <= lo0 && hi0 <= h[1] && h[2] <= lo1 && hi1 <= h[3]
            } else {
                h[0] == lo0 && h[1] == hi0 && h[2] == lo1 && h[3] == hi1
            };
            if found {
                break;
            }
            g += 1;
        }
        if g == self.groups {
            assert!(!self.fixed, "pairs: a code point no group's head covers");
            assert!(self.groups < MAX_GROUPS, "pairs: raise MAX_GROUPS");
            self.heads[g] = head;
            self.groups += 1;
        }
        let bit = 1u16 << g;
        mark_bytes(&mut self.bytes.lead, lo0, hi0, bit);
        mark_bytes(&mut self.bytes.second, lo1, hi1, bit);
        match third {
            Some((lo2, hi2)) => {
                assert!(
                    lo2 >= 0x80 && hi2 <= 0xBF,
                    "pairs: a third byte that is not a continuation"
                );
                assert!(lo0 >= 0xE0, "pairs: a third byte after a two-byte lead");
                mark_bytes(&mut self.bytes.third, lo2, hi2, bit);
            }
            None => {
                assert!(hi0 < 0xE0, "pairs: no third byte after a longer lead");
                mark_bytes(&mut self.bytes.third, 0, 63, bit);
                self.any_third |= bit;
            }
        }
    }

    /// Adds the code point `cp` (ASCII and surrogates are ignored).
    pub(crate) const fn add_code_point(&mut self, cp: u32) {
        if cp < 0x80 || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10_FFFF {
            return;
        }
        let (e, len) = encode(cp);
        let [b0, b1, b2, _] = e;
        let third = if len >= 3 { Some((b2, b2)) } else { None };
        self.add([b0, b0, b1, b1], third);
    }

    /// Adds the code points `lo..=hi`.
    #[allow(clippy::arithmetic_side_effects)]
    pub(crate) const fn add_range(&mut self, lo: u32, hi: u32) {
        // `cp <= hi <= u32::MAX`: the loop ends before the increment can wrap.
        let mut cp = lo;
        while cp <= hi {
            self.add_code_point(cp);
            if cp == u32::MAX {
                break;
            }
            cp += 1;
        }
    }

    /// The refinement: the byte tables and the other views of them.
    #[allow(clippy::indexing_slicing, clippy::arithmetic_side_effects)]
    pub(crate) const fn finish(self) -> Refinement {
        // Indexes: bytes below 256 masked or shifted below 16, 64 and 128.
        let t = &self.bytes;
        let mut nib = [[0u16; 16]; 6];
        let mut leads = ByteSet::EMPTY;
        let mut b = 0x80usize;
        while b < 256 {
            let g = t.lead[b & 0x7F];
            if g != 0 {
                leads = leads.with(b as u8);
            }
            nib[0][b >> 4] |= g;
            nib[1][b & 15] |= g;
            // Second and third bytes are continuations (their low six bits index the
            // byte tables), but a two-byte group's third byte may be any byte.
            if b < 0xC0 {
                let s = t.second[b & 63];
                nib[2][b >> 4] |= s;
                nib[3][b & 15] |= s;
                let u = t.third[b & 63] & !self.any_third;
                nib[4][b >> 4] |= u;
                nib[5][b & 15] |= u;
            }
            b += 1;
        }
        let mut n = 0;
        while n < 16 {
            nib[4][n] |= self.any_third;
            nib[5][n] |= self.any_third;
            n += 1;
        }
        let mut nibbles = [[[0u8; 16]; 6]; 2];
        let mut k = 0;
        while k < 6 {
            let mut n = 0;
            while n < 16 {
                let [lo, hi] = nib[k][n].to_le_bytes();
                nibbles[0][k][n] = lo;
                nibbles[1][k][n] = hi;
                n += 1;
            }
            k += 1;
        }
        let [[s0], [s1]] = split::<64, 1>(&t.second);
        let [[t0], [t1]] = split::<64, 1>(&t.third);
        Refinement {
            bytes: self.bytes,
            any_third: self.any_third,
            groups: self.groups,
            leads,
            nibbles,
            halves: ByteHalves {
                lead: split::<128, 2>(&t.lead),
                second: [s0, s1],
                third: [t0, t1],
            },
        }
    }
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

impl Refinement {
    /// The refinement of `seqs`' multi-byte patterns (each truncated to its first
    /// three bytes or fewer): a group per lead and second byte range.
    #[allow(clippy::indexing_slicing, clippy::arithmetic_side_effects)]
    pub(crate) const fn of_seqs(seqs: &[Seq]) -> Refinement {
        // Index `i < seqs.len()`, byte positions below 3 of a pattern's 4.
        let mut t = Builder::new();
        let mut i = 0;
        while i < seqs.len() {
            let s = seqs[i];
            i += 1;
            if s.enc_len < 2 {
                continue;
            }
            let third = if s.len >= 3 {
                Some((s.lo[2], s.hi[2]))
            } else {
                None
            };
            t.add([s.lo[0], s.hi[0], s.lo[1], s.hi[1]], third);
        }
        t.finish()
    }

    /// The refinement of the multi-byte code points of `ranges` (inclusive, any
    /// order): a group per lead and second byte, exact to the third.
    #[allow(clippy::indexing_slicing, clippy::arithmetic_side_effects)]
    pub(crate) const fn of_ranges(ranges: &[(u32, u32)]) -> Refinement {
        // Index `r < ranges.len()`.
        let mut t = Builder::new();
        let mut r = 0;
        while r < ranges.len() {
            let (lo, hi) = ranges[r];
            t.add_range(lo, hi);
            r += 1;
        }
        t.finish()
    }

    /// The lead bytes some group has.
    pub(crate) const fn leads(&self) -> ByteSet {
        self.leads
    }

    /// Whether the non-ASCII byte at `i` of `bytes` and the two after it pass the
    /// tables: the scalar confirm of a refined finder, exact on UTF-8 (a byte whose
    /// continuation lies past the end of `bytes`, or that has no group, answers
    /// `true`: conservative; a lead followed by a non-continuation, `false`).
    #[inline]
    pub(crate) fn may_begin(&self, bytes: &[u8], i: usize) -> bool {
        let (Some(&b0), Some(&b1)) = (bytes.get(i), bytes.get(i.wrapping_add(1))) else {
            return true;
        };
        let t = &self.bytes;
        let lead = t
            .lead
            .get(usize::from(b0 & 0x7F))
            .copied()
            .unwrap_or(u16::MAX);
        if lead == 0 || b0 < 0x80 {
            return true;
        }
        let is_cont = |b: u8| b & 0xC0 == 0x80;
        if !is_cont(b1) {
            return false;
        }
        let g = lead & t.second.get(usize::from(b1 & 0x3F)).copied().unwrap_or(0);
        match bytes.get(i.wrapping_add(2)) {
            Some(&b2) if is_cont(b2) => {
                g & t.third.get(usize::from(b2 & 0x3F)).copied().unwrap_or(0) != 0
            }
            Some(_) => g & self.any_third != 0,
            None => g != 0,
        }
    }

    /// Whether the triple `b0 b1 b2` passes the byte tables (the scalar model of the
    /// AVX-512 lookups, for tests).
    #[cfg(test)]
    pub(super) fn passes_bytes(&self, b: [u8; 3]) -> bool {
        let t = &self.bytes;
        t.lead[usize::from(b[0] & 0x7F)]
            & t.second[usize::from(b[1] & 0x3F)]
            & t.third[usize::from(b[2] & 0x3F)]
            != 0
    }

    /// Whether the triple passes the nibble tables (the scalar model of
    /// the vector scans' nibble lookups, for tests).
    #[cfg(test)]
    pub(super) fn passes_nibbles(&self, b: [u8; 3]) -> bool {
        let mut any = false;
        for half in &self.nibbles {
            let mut acc = u8::MAX;
            for (k, &x) in b.iter().enumerate() {
                acc &= half[2 * k][usize::from(x >> 4)] & half[2 * k + 1][usize::from(x & 15)];
            }
            any |= acc != 0;
        }
        any
    }
}

/// The reference's refinement: the multi-byte attention code points (controls,
/// table members, variation selectors) by their first three bytes.
pub(crate) static ATTENTION_REFINEMENT: Refinement =
    Refinement::of_seqs(ATTENTION_LEADS.as_slice());

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::scan::finder::lead_may_attend;

    /// The refinement's byte tables and scalar test are exact on well-formed
    /// triples, the nibble tables a superset, and ASCII never passes.
    pub(crate) fn refinement_is_exact(r: &Refinement, ranges: &[(u32, u32)]) {
        // The exact answers by lead and second byte (a third-byte bitmap), once.
        let mut want = std::vec![[0u64; 64]; 128];
        for &(lo, hi) in ranges {
            for c in (lo.max(0x80)..=hi).filter_map(char::from_u32) {
                let mut buf = [0u8; 4];
                let e = c.encode_utf8(&mut buf).as_bytes();
                let third = if e.len() == 2 {
                    u64::MAX
                } else {
                    1 << (e[2] & 63)
                };
                want[usize::from(e[0] & 0x7F)][usize::from(e[1] & 63)] |= third;
            }
        }
        for b0 in 0..=255u8 {
            for b1 in 0..=255u8 {
                for b2 in 0..=255u8 {
                    let b = [b0, b1, b2];
                    if b0 < 0x80 {
                        assert!(!r.passes_nibbles(b), "{b:02X?}");
                        continue;
                    }
                    let two = (0xC2..0xE0).contains(&b0);
                    let cont = |x: u8| (0x80..0xC0).contains(&x);
                    let well_formed = (0xC2..0xF5).contains(&b0) && cont(b1) && (two || cont(b2));
                    let exact = well_formed
                        && want[usize::from(b0 & 0x7F)][usize::from(b1 & 63)] >> (b2 & 63) & 1 != 0;
                    if well_formed {
                        assert_eq!(r.passes_bytes(b), exact, "{b:02X?}");
                        // A byte no group has is not refined: conservative.
                        let scalar = exact || !r.leads.contains(b0);
                        assert_eq!(r.may_begin(&b, 0), scalar, "{b:02X?}");
                    }
                    if exact {
                        assert!(r.passes_nibbles(b), "{b:02X?}");
                    }
                    // Without a third byte: whether some third byte could pass.
                    if well_formed && b2 == 0x80 && r.leads.contains(b0) {
                        let some = want[usize::from(b0 & 0x7F)][usize::from(b1 & 63)] != 0;
                        assert_eq!(r.may_begin(&b[..2], 0), some, "{b:02X?}");
                    }
                }
            }
        }
        // The leads are exactly the lead bytes of the set's multi-byte code points.
        for b0 in 0x80..=255u8 {
            let any = want[usize::from(b0 & 0x7F)].iter().any(|&w| w != 0);
            assert_eq!(r.leads.contains(b0), any, "{b0:02X}");
        }
    }

    /// D (strict's drop set) and the attention set, as ranges.
    fn attention_ranges() -> std::vec::Vec<(u32, u32)> {
        let mut out: std::vec::Vec<(u32, u32)> = std::vec::Vec::new();
        for c in '\u{80}'..=char::MAX {
            if crate::scan::needs_attention(c) {
                let cp = u32::from(c);
                match out.last_mut() {
                    Some(last) if last.1 + 1 == cp => last.1 = cp,
                    _ => out.push((cp, cp)),
                }
            }
        }
        out
    }

    #[test]
    fn the_attention_refinement_is_exact_and_is_lead_may_attend() {
        let r = &ATTENTION_REFINEMENT;
        refinement_is_exact(r, &attention_ranges());
        // The scalar test is the rules' table on every triple and every short slice.
        for b0 in 0x80..=255u8 {
            if !crate::rules::is_attention_lead(b0) {
                continue;
            }
            for b1 in 0..=255u8 {
                assert_eq!(r.may_begin(&[b0, b1], 0), lead_may_attend(&[b0, b1], 0));
                for b2 in 0..=255u8 {
                    let b = [b0, b1, b2];
                    assert_eq!(r.may_begin(&b, 0), lead_may_attend(&b, 0), "{b:02X?}");
                }
            }
            assert_eq!(r.may_begin(&[b0], 0), lead_may_attend(&[b0], 0));
        }
    }

    #[test]
    fn common_prose_punctuation_passes_neither_refinement() {
        let d = SHAPES_REFINEMENT;
        for s in [
            "—", "–", "’", "“", "”", "…", "€", "é", "中", "°", "™", "→", "\u{A0}", "😀",
        ] {
            let e = s.as_bytes();
            let mut b = [0x80u8; 3];
            for (d, &x) in b.iter_mut().zip(e) {
                *d = x;
            }
            for r in [&ATTENTION_REFINEMENT, &d] {
                assert!(!r.passes_bytes(b), "{s}");
                assert!(!r.passes_nibbles(b), "{s}");
                assert!(!r.may_begin(e, 0) || !r.leads.contains(e[0]), "{s}");
            }
        }
    }

    /// Every position a refined finder reports, by repeated scans on one backend.
    fn scanned(
        bytes: &[u8],
        f: &crate::scan::Finder,
        blocks: crate::scan::backend::Blocks,
    ) -> std::vec::Vec<usize> {
        let mut out = std::vec::Vec::new();
        let mut scanner = crate::scan::Scanner::with_blocks(f, blocks);
        let mut at = 0;
        loop {
            at = scanner.next(bytes, at, |_, _| true);
            if at >= bytes.len() {
                return out;
            }
            out.push(at);
            at += 1;
        }
    }

    /// Whether a finder of `set` refined by `r` stops where its exact test says, on
    /// every backend (`bytes` need not be UTF-8).
    pub(crate) fn refined_scans_agree(bytes: &[u8], set: ByteSet, r: &'static Refinement) {
        let f = crate::scan::Finder::new(set).refined_by(r);
        assert!(f.refined);
        let naive: std::vec::Vec<usize> = (0..bytes.len())
            .filter(|&i| set.contains(bytes[i]) && (bytes[i] < 0x80 || r.may_begin(bytes, i)))
            .collect();
        for blocks in crate::scan::backend::Blocks::available() {
            assert_eq!(scanned(bytes, &f, blocks), naive, "{blocks:?} {bytes:02X?}");
        }
    }

    /// A set like D's shapes (two-, three- and four-byte members, several groups to
    /// a lead byte, sixteen groups), to test the scans on their own.
    static SHAPES: [(u32, u32); 8] = [
        (0xAD, 0xAD),
        (0x115F, 0x1160),
        (0x180B, 0x180F),
        (0x200B, 0x200F),
        (0x202A, 0x202E),
        (0xFE00, 0xFE0F),
        (0x1D173, 0x1D17A),
        (0xE0000, 0xE0FFF),
    ];
    static SHAPES_REFINEMENT: Refinement = Refinement::of_ranges(&SHAPES);

    #[test]
    fn a_refinement_of_ranges_is_exact() {
        refinement_is_exact(&SHAPES_REFINEMENT, &SHAPES);
    }

    proptest::proptest! {
        #[test]
        fn refined_backends_agree_on_lead_byte_soup(
            bytes in proptest::collection::vec(proptest::sample::select(std::vec![
                0xC2u8, 0xE1, 0xE2, 0xEF, 0xF0, 0xF3, 0x80, 0x81, 0x85, 0x8B, 0x8F, 0x94,
                0x9D, 0xA0, 0xAD, 0xAE, 0xB3, 0xB8, 0xBF, b'a', b':',
            ]), 0..400),
            with_ascii in proptest::bool::ANY,
        ) {
            let mut set = ByteSet::EMPTY.with(0xC2).with(0xE1).with(0xE2).with(0xEF).with(0xF0).with(0xF3);
            if with_ascii {
                set = set.with(b':');
            }
            refined_scans_agree(&bytes, set, &SHAPES_REFINEMENT);
        }
    }
}
