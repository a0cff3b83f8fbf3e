//! What the strict dense blocks compare and return, shared by the dispatch
//! (`strict_dense.rs`) and the x86 kernels (`strict_dense_x86.rs`) so that neither
//! imports the other for it: the block's window, its masks, and the UTF-8 patterns
//! derived at compile time from D's generated ranges and the inert ranges
//! (`strict::class`).

// Without the x86 kernels (`portable-only`, other targets) only the tests read the
// patterns.
#![cfg_attr(
    not(all(target_arch = "x86_64", not(feature = "portable-only"))),
    allow(dead_code)
)]

use crate::rules::Seq;
use crate::strict::class::{DROP_RANGES, INERT_RANGES};

/// Bytes of text a block reads: its 64 and the 3 after it a 4-byte pattern may
/// reach, rounded up so the 32-byte loads at offset 35 stay within it. A shorter
/// text reads as if zeros (ASCII) followed it.
pub(crate) const WINDOW: usize = 68;

/// What a block's bytes are, bit `i` for byte `i` of the block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct StrictMasks {
    /// Below 0x80.
    pub(crate) ascii: u64,
    /// `#`, `*` and the digits (an RGI keycap may begin with them).
    pub(crate) keycap: u64,
    /// The first byte of a member of D.
    pub(crate) drop_lead: u64,
    /// Every byte of a non-ASCII inert code point (kept, and ends every context).
    pub(crate) inert: u64,
    /// 0x80–0xBF.
    pub(crate) cont: u64,
    /// Every byte of a control strict sanitize's step 3 drops — C0 but TAB and LF,
    /// DEL, C1 (`C2 80`–`C2 9F`) — when asked for (`masks::<true>`), else 0. The
    /// zeros past a short text are NULs here (ASCII above): no block takes them.
    pub(crate) ctrl: u64,
}

/// Most patterns a set may hold while it is built (the tags block is 64 before the
/// merge); checked at compile time.
const MAX_PATTERNS: usize = 96;

/// Most patterns a kernel expands (`each_pattern!`); checked at compile time.
pub(super) const MAX_EXPANDED: usize = 24;

/// A set of code points as UTF-8 byte patterns ([`Seq`]), each code point in one.
#[derive(Clone, Copy, Debug)]
pub(super) struct Patterns {
    seqs: [Seq; MAX_PATTERNS],
    n: usize,
}

const NO_SEQ: Seq = Seq {
    len: 0,
    enc_len: 0,
    lo: [0; 4],
    hi: [0; 4],
};

/// A continuation byte carrying the low six bits of `x`.
const fn c(x: u32) -> u8 {
    (0x80 | (x & 0x3F)) as u8
}

/// The UTF-8 encoding of the scalar value `cp` and its length.
#[allow(clippy::arithmetic_side_effects)]
const fn utf8_of(cp: u32) -> ([u8; 4], usize) {
    // Every byte is masked to its payload; the shifts are below 32.
    if cp < 0x80 {
        ([cp as u8, 0, 0, 0], 1)
    } else if cp < 0x800 {
        ([(0xC0 | (cp >> 6)) as u8, c(cp), 0, 0], 2)
    } else if cp < 0x1_0000 {
        ([(0xE0 | (cp >> 12)) as u8, c(cp >> 6), c(cp), 0], 3)
    } else {
        (
            [(0xF0 | (cp >> 18)) as u8, c(cp >> 12), c(cp >> 6), c(cp)],
            4,
        )
    }
}

impl Patterns {
    /// The patterns of the code points of `ranges` (sorted, disjoint, no ASCII):
    /// one per code point first, extended along its last byte, then neighbours
    /// that differ at one position merged, from the last position up (the tags
    /// block becomes `F3 A0 80..BF 80..BF`).
    #[allow(clippy::indexing_slicing, clippy::arithmetic_side_effects)]
    const fn of(ranges: &[(u32, u32)]) -> Patterns {
        // Indexes: `n < MAX_PATTERNS` (checked), byte positions below 4.
        let mut s = Patterns {
            seqs: [NO_SEQ; MAX_PATTERNS],
            n: 0,
        };
        let mut r = 0;
        while r < ranges.len() {
            let (lo, hi) = ranges[r];
            let mut cp = lo;
            while cp <= hi {
                let (e, len) = utf8_of(cp);
                let mut extended = false;
                if s.n > 0 {
                    let last = &mut s.seqs[s.n - 1];
                    let mut same = last.len == len;
                    let mut k = 0;
                    while same && k + 1 < len {
                        same = last.lo[k] == e[k] && last.hi[k] == e[k];
                        k += 1;
                    }
                    if same && last.hi[len - 1] as u32 + 1 == e[len - 1] as u32 {
                        last.hi[len - 1] = e[len - 1];
                        extended = true;
                    }
                }
                if !extended {
                    assert!(s.n < MAX_PATTERNS, "strict dense: raise MAX_PATTERNS");
                    s.seqs[s.n] = Seq {
                        len,
                        enc_len: len,
                        lo: e,
                        hi: e,
                    };
                    s.n += 1;
                }
                cp += 1;
            }
            r += 1;
        }
        let mut p = 3;
        while p > 0 {
            p -= 1;
            s.merge_at(p);
        }
        assert!(s.n <= MAX_EXPANDED, "strict dense: expand more patterns");
        s
    }

    /// Merges neighbouring patterns equal everywhere but at position `p`, where
    /// they are adjacent.
    #[allow(clippy::indexing_slicing, clippy::arithmetic_side_effects)]
    const fn merge_at(&mut self, p: usize) {
        let mut out = 0;
        let mut i = 0;
        while i < self.n {
            let cur = self.seqs[i];
            let mut merged = false;
            if out > 0 {
                let prev = self.seqs[out - 1];
                let mut ok = prev.len == cur.len && p < cur.len;
                let mut k = 0;
                while ok && k < cur.len {
                    ok = if k == p {
                        prev.hi[k] as u32 + 1 == cur.lo[k] as u32
                    } else {
                        prev.lo[k] == cur.lo[k] && prev.hi[k] == cur.hi[k]
                    };
                    k += 1;
                }
                if ok {
                    self.seqs[out - 1].hi[p] = cur.hi[p];
                    merged = true;
                }
            }
            if !merged {
                self.seqs[out] = cur;
                out += 1;
            }
            i += 1;
        }
        self.n = out;
    }

    /// The patterns.
    pub(super) const fn as_slice(&self) -> &[Seq] {
        self.seqs.split_at(self.n).0
    }
}

/// The members of D as patterns.
pub(super) const DROP_PATTERNS: Patterns = Patterns::of(DROP_RANGES);
/// The non-ASCII inert code points as patterns.
pub(super) const INERT_PATTERNS: Patterns = Patterns::of(INERT_RANGES);
