//! The cursor that walks a text from one confirmed position to the next: a
//! [`Finder`]'s candidates from the block backend a [`Backend`] names (or from a
//! fused pass's [`Recorded`] blocks), filtered by the finder's exact test and the
//! caller's. Above the dispatch, which imports the finder but not this.

use super::backend::{Backend, Blocks, Candidates};
use super::finder::{ATTENTION, Finder, Recorded, RecordedBlock, char_at};

impl Recorded {
    /// The first candidate block at or after `at` (one that ends past it): from the
    /// list before [`Recorded::covered`], by the block scan from there on. `next` is
    /// the caller's cursor into the list (the block after the one it had last), so
    /// a walk forward costs a step a block; a walk back searches.
    #[inline]
    fn candidates(
        &self,
        next: &mut usize,
        blocks: Blocks,
        bytes: &[u8],
        at: usize,
        f: &Finder,
    ) -> Option<Candidates> {
        if at >= self.covered {
            return blocks.candidates(bytes, at, f);
        }
        let list = self.list();
        let ends_past = |b: &RecordedBlock| b.base.saturating_add(64) > at;
        let mut i = *next;
        if i > list.len() || list.get(i.wrapping_sub(1)).is_some_and(ends_past) {
            i = list.partition_point(|b| !ends_past(b));
        }
        while list.get(i).is_some_and(|b| !ends_past(b)) {
            i = i.saturating_add(1);
        }
        match list.get(i) {
            Some(b) => {
                *next = i.saturating_add(1);
                Some(Candidates {
                    base: b.base,
                    mask: b.mask,
                })
            }
            None => {
                *next = i;
                blocks.candidates(bytes, at.max(self.covered), f)
            }
        }
    }
}

/// A cursor over one text that keeps the current block's candidates, so positions
/// close together cost one block computation.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Scanner<'f> {
    pub(super) finder: &'f Finder,
    pub(super) blocks: Blocks,
    /// Candidate blocks of the text's start, found while it was validated.
    pub(super) recorded: Option<&'f Recorded>,
    /// The cursor into `recorded`'s list.
    pub(super) next_recorded: usize,
    /// Start of the cached block and its candidate mask.
    pub(super) base: usize,
    pub(super) mask: u64,
    pub(super) cached: bool,
}

impl<'f> Scanner<'f> {
    /// A scanner for `finder` on `backend`.
    #[inline]
    pub(crate) const fn new(finder: &'f Finder, backend: Backend) -> Self {
        Scanner::with_blocks(finder, backend.blocks)
    }

    /// A scanner on a given block backend.
    #[inline]
    pub(crate) const fn with_blocks(finder: &'f Finder, blocks: Blocks) -> Self {
        Scanner {
            finder,
            blocks,
            recorded: None,
            next_recorded: 0,
            base: 0,
            mask: 0,
            cached: false,
        }
    }

    /// A scanner for `finder` on `backend` over a text whose start's candidate
    /// blocks `recorded` holds (found by the same finder while the text was
    /// validated).
    #[inline]
    pub(crate) const fn with_recorded(
        finder: &'f Finder,
        backend: Backend,
        recorded: &'f Recorded,
    ) -> Self {
        let mut s = Scanner::with_blocks(finder, backend.blocks);
        s.recorded = Some(recorded);
        s
    }

    /// The first index `i >= from` whose byte is in the set and for which
    /// `confirm(i, byte)` holds, or `bytes.len()`. Every call on one scanner must pass
    /// the same `bytes`.
    #[inline]
    pub(crate) fn next(
        &mut self,
        bytes: &[u8],
        from: usize,
        mut confirm: impl FnMut(usize, u8) -> bool,
    ) -> usize {
        let mut at = from;
        loop {
            let offset = at.wrapping_sub(self.base);
            if !(self.cached && offset < 64) {
                let found = match self.recorded {
                    Some(r) => {
                        r.candidates(&mut self.next_recorded, self.blocks, bytes, at, self.finder)
                    }
                    None => self.blocks.candidates(bytes, at, self.finder),
                };
                match found {
                    Some(Candidates { base, mask }) => {
                        self.base = base;
                        self.mask = mask;
                        self.cached = true;
                        at = at.max(base);
                    }
                    None => {
                        self.cached = false;
                        return bytes.len();
                    }
                }
            }
            // Bits below `at` were handed out already (or are before `from`).
            let offset = at.wrapping_sub(self.base) & 63;
            let mut mask = self.mask & (u64::MAX << offset);
            while mask != 0 {
                let i = self.base.saturating_add(mask.trailing_zeros() as usize);
                mask &= mask.wrapping_sub(1);
                if let Some(&b) = bytes.get(i)
                    && self.finder.reports(bytes, i, b)
                    && confirm(i, b)
                {
                    return i;
                }
            }
            at = self.base.saturating_add(64);
            self.cached = false;
        }
    }
}

/// The index of the first byte at or after `from` that is in `finder`'s set, or
/// `bytes.len()`.
#[cfg(test)]
pub(crate) fn next_in_set(bytes: &[u8], from: usize, finder: &Finder) -> usize {
    Scanner::new(finder, Backend::best()).next(bytes, from, |_, _| true)
}

/// The first code point of `text` needing attention — a control (Cc), a member of the
/// dangerous-invisible table, or a variation selector (U+FE00–U+FE0F) — as its byte
/// offset and the code point. Clean text is skipped many bytes at a time.
pub fn first_attention(text: &str) -> Option<(usize, char)> {
    first_attention_on(Backend::best(), text)
}

/// [`first_attention`] on a given backend.
#[doc(hidden)]
pub fn first_attention_on(backend: Backend, text: &str) -> Option<(usize, char)> {
    let mut found = None;
    Scanner::new(&ATTENTION, backend).next(text.as_bytes(), 0, |i, _| {
        let c = char_at(text, i);
        let hit = c.is_some_and(super::needs_attention);
        if hit {
            found = c.map(|c| (i, c));
        }
        hit
    });
    found
}
