//! The containment rules as data (SPEC §2, §3), and the byte tables every backend
//! derives from them at compile time.
//!
//! A code point is added to or removed from a rule here, in one line; the scalar
//! classification ([`crate::class`]), the scan's lead refinement (scalar and AVX2),
//! the dense-drop classification (AVX2, AVX-512, portable) all read tables computed
//! from these ranges by `const fn`s below, and the exhaustive tests compare each of
//! them with the ranges for every code point.

/// Inclusive ranges of code points.
pub(crate) type Ranges = &'static [(u32, u32)];

/// A table of code-point ranges, written once: the slice every derivation reads, and
/// a `matches!` test of the same ranges (what the scalar checks compile best).
macro_rules! ranges {
    ($(#[$doc:meta])* $table:ident, $test:ident: $($lo:literal ..= $hi:literal),* $(,)?) => {
        $(#[$doc])*
        pub(crate) const $table: Ranges = &[$(($lo, $hi)),*];
        /// Whether a code point is in the table of the same name.
        #[inline]
        pub(crate) const fn $test(cp: u32) -> bool {
            matches!(cp, $($lo..=$hi)|*)
        }
    };
}

ranges! {
    /// The dangerous-invisible table (SPEC §2): stripped from prose, rejected in
    /// machine values. Sorted, non-overlapping.
    DANGEROUS_INVISIBLES, is_invisible:
    0xAD..=0xAD,
    0x115F..=0x1160,
    0x180E..=0x180E,
    0x200B..=0x200D,
    0x202A..=0x202E,
    0x2060..=0x2064,
    0x2066..=0x2069,
    0x3164..=0x3164,
    0xFEFF..=0xFEFF,
    0xE0000..=0xE007F,
    0xE0100..=0xE01EF,
}

ranges! {
    /// Unicode controls, general category Cc.
    CONTROLS, is_control: 0x0..=0x1F, 0x7F..=0x9F
}

ranges! {
    /// The variation selectors of the basic block; U+FE0F is kept after an
    /// Extended_Pictographic code point, the others are always orphans.
    VARIATION_SELECTORS, is_selector: 0xFE00..=0xFE0F
}

/// The one selector whose fate depends on its predecessor.
pub(crate) const EMOJI_SELECTOR: u32 = 0xFE0F;

/// Controls prose keeps (TAB, LF); every other control is dropped.
pub(crate) const PROSE_KEPT_CONTROLS: [u32; 2] = [0x09, 0x0A];

/// Whether `cp` is in `ranges`.
#[inline]
pub(crate) const fn contains(ranges: Ranges, cp: u32) -> bool {
    let mut rest = ranges;
    while let [(lo, hi), tail @ ..] = rest {
        if *lo <= cp && cp <= *hi {
            return true;
        }
        rest = tail;
    }
    false
}

/// What a dense-drop block removes without looking at the predecessor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum DropSet {
    /// Strip: table members and the selectors that are always orphans.
    Strip,
    /// Prose: those and the controls but TAB and LF.
    Prose,
}

impl DropSet {
    /// Whether this rule drops `cp` whatever precedes it (U+FE0F is not: it depends
    /// on its predecessor).
    pub(crate) const fn drops(self, cp: u32) -> bool {
        if cp == EMOJI_SELECTOR {
            return false;
        }
        if contains(DANGEROUS_INVISIBLES, cp) || contains(VARIATION_SELECTORS, cp) {
            return true;
        }
        matches!(self, DropSet::Prose)
            && contains(CONTROLS, cp)
            && cp != PROSE_KEPT_CONTROLS[0]
            && cp != PROSE_KEPT_CONTROLS[1]
    }
}

/// Whether a scanner must stop at `cp`: a control, a table member or a selector.
pub(crate) const fn needs_attention(cp: u32) -> bool {
    contains(CONTROLS, cp)
        || contains(DANGEROUS_INVISIBLES, cp)
        || contains(VARIATION_SELECTORS, cp)
}

/// A UTF-8 byte sequence pattern: `len` bytes, byte `k` in `lo[k]..=hi[k]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Seq {
    /// Bytes of the encoding the pattern tests (a prefix of it when truncated).
    pub(crate) len: usize,
    /// Length of the whole encoding (1 to 4).
    pub(crate) enc_len: usize,
    pub(crate) lo: [u8; 4],
    pub(crate) hi: [u8; 4],
}

#[cfg_attr(
    not(all(target_arch = "x86_64", not(feature = "portable-only"))),
    allow(dead_code)
)]
impl Seq {
    /// The pattern as one number, for a const generic parameter (so SIMD code is
    /// compiled once per pattern, its bytes immediate operands); 0 is no pattern.
    #[allow(clippy::indexing_slicing, clippy::arithmetic_side_effects)]
    pub(crate) const fn code(self) -> u128 {
        // Indexes and shifts: `k < 4`, so shifts stay below 88.
        let mut c = 1u128 | (self.len as u128) << 8 | (self.enc_len as u128) << 16;
        let mut k = 0;
        while k < 4 {
            c |= (self.lo[k] as u128) << (24 + 8 * k) | (self.hi[k] as u128) << (56 + 8 * k);
            k += 1;
        }
        c
    }

    /// The pattern [`Seq::code`] encoded (`None` for 0).
    pub(crate) const fn from_code(c: u128) -> Option<Seq> {
        if c == 0 {
            return None;
        }
        Some(Seq {
            len: byte_of(c, 8) as usize,
            enc_len: byte_of(c, 16) as usize,
            lo: [
                byte_of(c, 24),
                byte_of(c, 32),
                byte_of(c, 40),
                byte_of(c, 48),
            ],
            hi: [
                byte_of(c, 56),
                byte_of(c, 64),
                byte_of(c, 72),
                byte_of(c, 80),
            ],
        })
    }

    /// The code of pattern `i` of `seqs`, 0 past its end.
    pub(crate) const fn nth_code(seqs: &[Seq], i: usize) -> u128 {
        match seqs.split_at_checked(i) {
            Some((_, [seq, ..])) => seq.code(),
            _ => 0,
        }
    }
}

/// The byte of `c` at bit `shift`.
#[cfg_attr(
    not(all(target_arch = "x86_64", not(feature = "portable-only"))),
    allow(dead_code)
)]
const fn byte_of(c: u128, shift: u32) -> u8 {
    (c >> shift) as u8
}

/// Most patterns a set of the reference's rules needs; checked at compile time.
const MAX_SEQS: usize = 24;

/// A set of code points as UTF-8 byte patterns, each code point in exactly one, with
/// room for `N` while it is built. The one pattern compiler: the reference's sets
/// here and strict's dense blocks (`strict::class::StrictSets`) are built by it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Seqs<const N: usize = MAX_SEQS> {
    seqs: [Seq; N],
    n: usize,
}

const EMPTY_SEQ: Seq = Seq {
    len: 0,
    enc_len: 0,
    lo: [0; 4],
    hi: [0; 4],
};

/// A continuation byte carrying the low six bits of `x`.
const fn cont(x: u32) -> u8 {
    (0x80 | (x & 0x3F)) as u8
}

/// The UTF-8 encoding of `cp` (a scalar value) and its length; `char::encode_utf8` is
/// not a `const fn` on a `u32`, and the tables are built at compile time.
#[allow(clippy::arithmetic_side_effects)]
pub(crate) const fn encode(cp: u32) -> ([u8; 4], usize) {
    // Each byte is masked to its payload; the shifts are below 32.
    if cp < 0x80 {
        ([cp as u8, 0, 0, 0], 1)
    } else if cp < 0x800 {
        ([(0xC0 | (cp >> 6)) as u8, cont(cp), 0, 0], 2)
    } else if cp < 0x1_0000 {
        ([(0xE0 | (cp >> 12)) as u8, cont(cp >> 6), cont(cp), 0], 3)
    } else {
        (
            [
                (0xF0 | (cp >> 18)) as u8,
                cont(cp >> 12),
                cont(cp >> 6),
                cont(cp),
            ],
            4,
        )
    }
}

impl<const N: usize> Seqs<N> {
    /// The patterns of every code point `member` accepts among those of `ranges`
    /// (sorted, disjoint), each truncated to its first `prefix` bytes.
    #[allow(clippy::indexing_slicing, clippy::arithmetic_side_effects)]
    pub(crate) const fn of(ranges: Ranges, member: Member, prefix: usize) -> Seqs<N> {
        // Indexes: `n < N` (checked), byte positions below 4.
        let mut s = Seqs {
            seqs: [EMPTY_SEQ; N],
            n: 0,
        };
        let mut r = 0;
        while r < ranges.len() {
            let (lo, hi) = ranges[r];
            let mut cp = lo;
            while cp <= hi {
                if member.test(cp) {
                    let (e, enc_len) = encode(cp);
                    let len = if enc_len < prefix { enc_len } else { prefix };
                    s.add(e, len, enc_len);
                }
                cp += 1;
            }
            r += 1;
        }
        // Merge neighbours differing in one position, from the last position up:
        // `F3 A0 80 80..BF` and `F3 A0 81 80..BF` become `F3 A0 80..81 80..BF`.
        let mut p = 3;
        while p > 0 {
            p -= 1;
            s.merge_at(p);
        }
        s
    }

    /// Adds the encoding `e` (its first `len` bytes), extending the last pattern
    /// when `e` continues its last position.
    #[allow(clippy::indexing_slicing, clippy::arithmetic_side_effects)]
    const fn add(&mut self, e: [u8; 4], len: usize, enc_len: usize) {
        if self.n > 0 {
            let last = &mut self.seqs[self.n - 1];
            if last.len == len && last.enc_len == enc_len && len > 0 {
                let mut same = true;
                let mut k = 0;
                while k + 1 < len {
                    same = same && last.lo[k] == e[k] && last.hi[k] == e[k];
                    k += 1;
                }
                let end = last.hi[len - 1];
                if same && (end == e[len - 1] || end as u32 + 1 == e[len - 1] as u32) {
                    last.hi[len - 1] = e[len - 1];
                    return;
                }
            }
        }
        assert!(
            self.n < N,
            "rules: a pattern set needs more room (raise its N)"
        );
        let mut lo = [0u8; 4];
        let mut k = 0;
        while k < len {
            lo[k] = e[k];
            k += 1;
        }
        self.seqs[self.n] = Seq {
            len,
            enc_len,
            lo,
            hi: lo,
        };
        self.n += 1;
    }

    /// Merges neighbouring patterns equal everywhere but at position `p`, where
    /// they are adjacent.
    #[allow(clippy::indexing_slicing, clippy::arithmetic_side_effects)]
    const fn merge_at(&mut self, p: usize) {
        let mut out = 0;
        let mut i = 0;
        while i < self.n {
            let cur = self.seqs[i];
            if out > 0 {
                let prev = self.seqs[out - 1];
                let mut mergeable =
                    prev.len == cur.len && prev.enc_len == cur.enc_len && p < cur.len;
                let mut k = 0;
                while mergeable && k < cur.len {
                    if k == p {
                        mergeable = prev.hi[k] as u32 + 1 == cur.lo[k] as u32;
                    } else {
                        mergeable = prev.lo[k] == cur.lo[k] && prev.hi[k] == cur.hi[k];
                    }
                    k += 1;
                }
                if mergeable {
                    self.seqs[out - 1].hi[p] = cur.hi[p];
                    i += 1;
                    continue;
                }
            }
            self.seqs[out] = cur;
            out += 1;
            i += 1;
        }
        self.n = out;
    }

    /// The patterns.
    #[inline(always)]
    pub(crate) const fn as_slice(&self) -> &[Seq] {
        let (head, _) = self.seqs.split_at(self.n);
        head
    }
}

/// Which code points of the universe a pattern set holds (an enum: `const fn`s
/// cannot call trait methods or closures).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Member {
    /// What a drop set removes whatever precedes it.
    Drops(DropSet),
    /// Code points needing attention.
    Attention,
    /// Every code point of the ranges.
    All,
}

impl Member {
    /// Whether `cp` is a member.
    const fn test(self, cp: u32) -> bool {
        match self {
            Member::Drops(d) => d.drops(cp),
            Member::Attention => needs_attention(cp),
            Member::All => true,
        }
    }
}

/// Every range any rule names, sorted and merged (the universe the patterns are
/// computed over).
#[allow(clippy::indexing_slicing, clippy::arithmetic_side_effects)]
const fn universe() -> ([(u32, u32); 16], usize) {
    // Insertion of each rule's ranges into a sorted list; indexes below 16 (checked).
    let mut out = [(0u32, 0u32); 16];
    let mut n = 0;
    let all: [Ranges; 3] = [CONTROLS, DANGEROUS_INVISIBLES, VARIATION_SELECTORS];
    let mut a = 0;
    while a < all.len() {
        let mut r = 0;
        while r < all[a].len() {
            let (lo, hi) = all[a][r];
            assert!(n < 16, "rules: raise the universe size");
            let mut i = n;
            while i > 0 && out[i - 1].0 > lo {
                out[i] = out[i - 1];
                i -= 1;
            }
            out[i] = (lo, hi);
            n += 1;
            r += 1;
        }
        a += 1;
    }
    // Merge touching ranges.
    let mut m = 0;
    let mut i = 0;
    while i < n {
        if m > 0 && out[m - 1].1 + 1 >= out[i].0 {
            if out[i].1 > out[m - 1].1 {
                out[m - 1].1 = out[i].1;
            }
        } else {
            out[m] = out[i];
            m += 1;
        }
        i += 1;
    }
    (out, m)
}

const UNIVERSE_PARTS: ([(u32, u32); 16], usize) = universe();

/// Every code point any rule names, as sorted, disjoint ranges.
pub(crate) const UNIVERSE: Ranges = UNIVERSE_PARTS.0.split_at(UNIVERSE_PARTS.1).0;

/// The patterns of the code points each drop set removes, whole.
#[cfg_attr(
    not(all(target_arch = "x86_64", not(feature = "portable-only"))),
    allow(dead_code)
)]
pub(crate) const STRIP_SEQS: Seqs = Seqs::of(UNIVERSE, Member::Drops(DropSet::Strip), 4);
/// The prose drop set's patterns.
pub(crate) const PROSE_SEQS: Seqs = Seqs::of(UNIVERSE, Member::Drops(DropSet::Prose), 4);
/// The multi-byte attention code points' first three bytes: the scan's lead
/// refinement (a lead byte is reported only where one of these can follow).
pub(crate) const ATTENTION_LEADS: Seqs = Seqs::of(UNIVERSE, Member::Attention, 3);

/// The pattern of U+FE0F, whose fate the dense-drop blocks leave to the exact path
/// after a non-ASCII code point.
#[cfg_attr(
    not(all(target_arch = "x86_64", not(feature = "portable-only"))),
    allow(dead_code)
)]
pub(crate) const EMOJI_SELECTOR_SEQ: Seq = {
    let (e, len) = encode(EMOJI_SELECTOR);
    Seq {
        len,
        enc_len: len,
        lo: e,
        hi: e,
    }
};

/// The lead refinement as a table for the scalar test: by lead byte, a row; by row
/// and second byte's payload, a bitmap over the third byte's payload (all ones for
/// two-byte patterns). The scan's own test is `scan::Refinement::may_begin`; the
/// tests compare it with this one.
#[cfg(test)]
pub(crate) struct LeadTable {
    /// Row + 1 of each lead byte, 0 when no multi-byte attention code point has it.
    pub(crate) row: [u8; 256],
    /// 64 words per row.
    pub(crate) bits: [u64; LEAD_ROWS * 64],
    /// Whether a row's patterns test a third byte (leads of 3- and 4-byte code
    /// points).
    pub(crate) third: [bool; LEAD_ROWS],
}

/// Distinct multi-byte attention lead bytes the table can hold.
#[cfg(test)]
pub(crate) const LEAD_ROWS: usize = 8;

/// [`LeadTable`] of [`ATTENTION_LEADS`].
#[cfg(test)]
#[allow(clippy::indexing_slicing, clippy::arithmetic_side_effects)]
pub(crate) static LEADS: LeadTable = {
    // Indexes: bytes (< 256), rows (< LEAD_ROWS, checked), payloads (< 64).
    let mut t = LeadTable {
        row: [0; 256],
        bits: [0; LEAD_ROWS * 64],
        third: [false; LEAD_ROWS],
    };
    let seqs = ATTENTION_LEADS.as_slice();
    let mut rows = 0usize;
    let mut i = 0;
    while i < seqs.len() {
        let s = seqs[i];
        i += 1;
        if s.enc_len < 2 {
            continue;
        }
        let mut b0 = s.lo[0] as usize;
        while b0 <= s.hi[0] as usize {
            if t.row[b0] == 0 {
                assert!(rows < LEAD_ROWS, "rules: raise LEAD_ROWS");
                rows += 1;
                t.row[b0] = rows as u8;
            }
            let base = (t.row[b0] as usize - 1) * 64;
            t.third[t.row[b0] as usize - 1] = s.len >= 3;
            let mut b1 = s.lo[1] as usize;
            while b1 <= s.hi[1] as usize {
                let word = if s.len >= 3 {
                    let mut w = 0u64;
                    let mut b2 = s.lo[2] as usize;
                    while b2 <= s.hi[2] as usize {
                        w |= 1 << (b2 & 63);
                        b2 += 1;
                    }
                    w
                } else {
                    u64::MAX
                };
                t.bits[base + (b1 & 63)] |= word;
                b1 += 1;
            }
            b0 += 1;
        }
    }
    t
};

/// Whether `b` begins the encoding of some attention code point.
pub(crate) const fn is_attention_lead(b: u8) -> bool {
    let mut rest = ATTENTION_LEADS.as_slice();
    while let [seq, tail @ ..] = rest {
        if seq.lo[0] <= b && b <= seq.hi[0] {
            return true;
        }
        rest = tail;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether `bytes` (a whole encoding) matches one of `seqs`, and how many do.
    fn matches(seqs: &Seqs, bytes: &[u8]) -> usize {
        seqs.as_slice()
            .iter()
            .filter(|s| {
                s.enc_len == bytes.len()
                    && (0..s.len).all(|k| s.lo[k] <= bytes[k] && bytes[k] <= s.hi[k])
            })
            .count()
    }

    #[test]
    fn patterns_cover_exactly_their_sets() {
        for c in '\0'..=char::MAX {
            let cp = u32::from(c);
            let mut buf = [0u8; 4];
            let e = c.encode_utf8(&mut buf).as_bytes();
            assert_eq!(encode(cp).0[..e.len()], *e);
            assert_eq!(
                matches(&STRIP_SEQS, e),
                usize::from(DropSet::Strip.drops(cp)),
                "{cp:X}"
            );
            assert_eq!(
                matches(&PROSE_SEQS, e),
                usize::from(DropSet::Prose.drops(cp)),
                "{cp:X}"
            );
            if needs_attention(cp) {
                assert!(is_attention_lead(e[0]), "{cp:X}");
                assert!(matches(&ATTENTION_LEADS, &e[..e.len()]) <= 1 || e.len() == 4);
            }
        }
        // The patterns are few: each costs a few vector compares per block.
        assert!(STRIP_SEQS.as_slice().len() <= 14, "{STRIP_SEQS:?}");
        assert!(PROSE_SEQS.as_slice().len() <= 18, "{PROSE_SEQS:?}");
    }

    #[test]
    fn universe_is_sorted_and_disjoint() {
        for w in UNIVERSE.windows(2) {
            assert!(w[0].1 + 1 < w[1].0, "{UNIVERSE:?}");
        }
        for c in '\0'..=char::MAX {
            let cp = u32::from(c);
            assert_eq!(contains(UNIVERSE, cp), needs_attention(cp), "{cp:X}");
        }
    }
}
