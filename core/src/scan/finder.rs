//! A byte set prepared for the block backends, and the candidate blocks a fused
//! pass records: data the kernels read, so this file imports no kernel and no
//! dispatch (the cursor that walks a text with them is `scanner.rs`).

use super::byteset::ByteSet;
use super::pairs::{ATTENTION_REFINEMENT, Refinement};

/// ASCII bytes (0x20 and up) the portable and SSE2 backends compare one by one;
/// a set with more of them makes every byte a candidate there.
pub(super) const MAX_EQ: usize = 24;

/// A byte set prepared for the block backends. Each backend reports a superset of
/// the set's members (the AVX2 one reports the set's ASCII members exactly and, for a
/// refined finder, its lead bytes by the refinement's nibble tables, the AVX-512 one
/// by its byte tables; `pairs.rs`); [`super::scanner::Scanner`] filters candidates through the set
/// and the refinement's exact scalar test before the caller's test sees them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Finder {
    pub(super) set: ByteSet,
    /// Nibble tables (Hyperscan's "truffle"): bit `h` of `lo[l]` is set when the byte
    /// `h << 4 | l` is in the set (h < 8); `hi` likewise for `(h + 8) << 4 | l`.
    pub(super) lo: [u8; 16],
    pub(super) hi: [u8; 16],
    /// The set has a byte of 0x80 and up: all of them are candidates.
    pub(super) non_ascii: bool,
    /// The set has a byte below 0x20: all of them are candidates.
    pub(super) controls: bool,
    /// The set's ASCII members from 0x20 up, compared one by one.
    pub(super) eq: [u8; MAX_EQ],
    pub(super) eq_len: usize,
    /// Too many bytes to compare one by one: every byte is a candidate.
    pub(super) every: bool,
    /// Non-ASCII members are lead bytes of [`Finder::refinement`]'s code points and
    /// count only where [`Refinement::may_begin`] holds (the next two bytes are
    /// tested too).
    pub(super) refined: bool,
    /// The tables a refined finder's lead bytes are tested with (the attention
    /// code points' unless [`Finder::refined_by`] named others).
    pub(super) refinement: &'static Refinement,
}

impl Finder {
    /// Prepares `set` (at compile time for the fixed sets).
    #[allow(clippy::indexing_slicing, clippy::arithmetic_side_effects)]
    pub(crate) const fn new(set: ByteSet) -> Finder {
        // Indexes are nibbles (< 16) and `eq_len < MAX_EQ`, checked before use; const
        // fns cannot use `get`.
        let mut f = Finder {
            set,
            lo: [0; 16],
            hi: [0; 16],
            non_ascii: false,
            controls: false,
            eq: [0; MAX_EQ],
            eq_len: 0,
            every: false,
            refined: false,
            refinement: &ATTENTION_REFINEMENT,
        };
        let mut b = 0u8;
        loop {
            if set.contains(b) {
                let (h, l) = ((b >> 4) as usize, (b & 0xF) as usize);
                if h < 8 {
                    f.lo[l] |= 1 << h;
                } else {
                    f.hi[l] |= 1 << (h - 8);
                }
                if b >= 0x80 {
                    f.non_ascii = true;
                } else if b < 0x20 {
                    f.controls = true;
                } else if f.eq_len < MAX_EQ {
                    f.eq[f.eq_len] = b;
                    f.eq_len += 1;
                } else {
                    f.every = true;
                }
            }
            if b == u8::MAX {
                break;
            }
            b += 1;
        }
        f
    }

    /// This finder, reporting a non-ASCII member only where it may begin an
    /// attention code point. Unchanged when the set has non-ASCII bytes other than
    /// attention lead bytes.
    pub(crate) const fn refined(self) -> Finder {
        self.refined_by(&ATTENTION_REFINEMENT)
    }

    /// This finder, reporting a non-ASCII member only where it may begin one of
    /// `r`'s code points ([`Refinement::may_begin`]). Unchanged when the set has
    /// non-ASCII bytes that begin none of them.
    pub(crate) const fn refined_by(self, r: &'static Refinement) -> Finder {
        let mut f = self;
        let non_ascii = ByteSet([0, 0, f.set.0[2], f.set.0[3]]);
        if non_ascii.is_subset(&r.leads) {
            f.refined = true;
            f.refinement = r;
        }
        f
    }

    /// Whether the byte at `i` of `bytes`, a member of the set, is reported.
    #[inline(always)]
    pub(super) fn reports(&self, bytes: &[u8], i: usize, b: u8) -> bool {
        self.set.contains(b) && (b < 0x80 || !self.refined || self.refinement.may_begin(bytes, i))
    }

    /// Whether the finder is refined (for tests outside the scan).
    #[cfg(test)]
    pub(crate) fn is_refined(&self) -> bool {
        self.refined
    }

    /// Whether the byte at `i` of `bytes` is reported (for tests outside the scan).
    #[cfg(test)]
    pub(crate) fn stops_at(&self, bytes: &[u8], i: usize) -> bool {
        bytes.get(i).is_some_and(|&b| self.reports(bytes, i, b))
    }

    /// The set's ASCII members compared one by one.
    pub(super) fn eq_bytes(&self) -> &[u8] {
        self.eq.get(..self.eq_len).unwrap_or_default()
    }
}

/// Blocks a pass over a whole text can record (issue 17): enough for the stops of a
/// 256 KiB read of mixed prose (about one block in a thousand holds one); a text
/// with more is scanned block by block from where the list filled.
pub(crate) const RECORDED_BLOCKS: usize = 256;

/// One 64-byte block with candidates, as a fused pass recorded it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct RecordedBlock {
    /// Offset of the block in the text.
    pub(super) base: usize,
    /// Bit `i` for byte `base + i`, as [`super::backend::Blocks::candidates`] reports it.
    pub(super) mask: u64,
}

/// The candidate blocks of a text's start, found by the pass that validated it
/// ([`super::Backend::validate_find`]): every block before [`Recorded::covered`] with
/// a candidate is in the list, in order, so a [`super::scanner::Scanner`] reads them instead of
/// scanning those bytes again.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Recorded {
    pub(super) blocks: [RecordedBlock; RECORDED_BLOCKS],
    pub(super) len: usize,
    /// The list is complete for `text[..covered]`.
    pub(super) covered: usize,
}

impl Recorded {
    /// An empty list that covers nothing.
    pub(crate) const fn new() -> Recorded {
        Recorded {
            blocks: [RecordedBlock { base: 0, mask: 0 }; RECORDED_BLOCKS],
            len: 0,
            covered: 0,
        }
    }

    /// Appends a block; `false` (and nothing recorded) when the list is full.
    #[inline]
    #[cfg_attr(
        not(all(target_arch = "x86_64", not(feature = "portable-only"))),
        allow(dead_code)
    )]
    pub(super) fn push(&mut self, base: usize, mask: u64) -> bool {
        let Some(slot) = self.blocks.get_mut(self.len) else {
            return false;
        };
        *slot = RecordedBlock { base, mask };
        self.len = self.len.saturating_add(1);
        true
    }

    /// The recorded blocks.
    pub(super) fn list(&self) -> &[RecordedBlock] {
        self.blocks.get(..self.len).unwrap_or_default()
    }
}

impl Default for Recorded {
    fn default() -> Self {
        Recorded::new()
    }
}

/// The code point starting at byte `i` of `text`, if `i` is a boundary inside it.
#[inline]
pub(crate) fn char_at(text: &str, i: usize) -> Option<char> {
    text.get(i..).and_then(|s| s.chars().next())
}

/// Lead bytes of controls, table members and variation selectors.
pub(crate) static ATTENTION: Finder = Finder::new(ByteSet::ATTENTION).refined();

/// Whether the byte at `i`, if it is a multi-byte attention lead byte, is followed
/// by bytes that can make an attention code point (the first three bytes of one of
/// [`crate::rules::ATTENTION_LEADS`]' patterns). Other bytes, and bytes whose
/// continuation lies past the end of `bytes`, answer `true` (conservative). The
/// scan's own test is the refinement's ([`Refinement::may_begin`]); this one, by the
/// rules' table, is what the tests compare it with.
#[cfg(test)]
pub(crate) fn lead_may_attend(bytes: &[u8], i: usize) -> bool {
    use crate::rules::LEADS;
    let (Some(&b0), Some(&b1)) = (bytes.get(i), bytes.get(i.wrapping_add(1))) else {
        return true;
    };
    let row = usize::from(LEADS.row.get(usize::from(b0)).copied().unwrap_or(0));
    if row == 0 {
        return true;
    }
    let is_cont = |b: u8| (0x80..0xC0).contains(&b);
    if !is_cont(b1) {
        return false;
    }
    let row = row.wrapping_sub(1);
    let word = row.wrapping_mul(64).wrapping_add(usize::from(b1 & 63));
    let bits = LEADS.bits.get(word).copied().unwrap_or(u64::MAX);
    if !LEADS.third.get(row).copied().unwrap_or(true) {
        return bits != 0;
    }
    match bytes.get(i.wrapping_add(2)) {
        Some(&b2) => is_cont(b2) && (bits >> (b2 & 63)) & 1 != 0,
        None => bits != 0,
    }
}
