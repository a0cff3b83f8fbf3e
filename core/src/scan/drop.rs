//! Dense drop regions: a 64-byte block at a time, classified by the rules'
//! patterns and packed.

use super::backend::{Backend, Compactor};
use super::finder::Finder;
use super::portable;
#[cfg(all(target_arch = "x86_64", not(feature = "portable-only")))]
use super::x86;

/// Which code points a [`Dropper`] removes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum DropRule {
    /// Table members and orphan selectors (strip; controls are kept).
    Strip,
    /// Those and controls but TAB and LF (prose).
    Prose,
}

/// Bytes of text after a dense drop region's 64-byte block that it reads.
pub(super) const DROP_AHEAD: usize = 4;

/// Dense drop regions: where dropped code points are close together, one 64-byte
/// block at a time gets a mask of the bytes to drop (by SIMD compares of each byte
/// and the three after it) and the kept bytes are packed, instead of one scanner stop,
/// decode and run copy per dropped code point.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Dropper {
    pub(super) rule: DropRule,
    pub(super) compactor: Option<Compactor>,
}

impl Dropper {
    /// A dropper for `rule` on `backend`'s compactor.
    #[inline]
    pub(crate) const fn new(rule: DropRule, backend: Backend) -> Self {
        Dropper {
            rule,
            compactor: Some(backend.drops),
        }
    }

    /// A dropper on a given compactor (for tests).
    #[cfg(test)]
    pub(crate) const fn with_compactor(rule: DropRule, compactor: Option<Compactor>) -> Self {
        Dropper { rule, compactor }
    }

    /// Every compactor this CPU runs, and none (for tests).
    #[cfg(test)]
    pub(crate) fn available() -> std::vec::Vec<Option<Compactor>> {
        let mut all = std::vec![None];
        for backend in Backend::all() {
            if !all.contains(&Some(backend.drops)) {
                all.push(Some(backend.drops));
            }
        }
        all
    }

    /// Processes the block of text starting at `at` (a code-point boundary after the
    /// first byte of `text`): writes its kept bytes to the start of `out` and returns
    /// how many bytes of text it consumed (61 to 64, ending on a code-point boundary)
    /// and how many it wrote. `None`, writing nothing, when the block cannot be decided
    /// here: too close to the end of `text`, a U+FE0F after a non-ASCII code point
    /// (whether it is kept depends on that code point), `out` too short, or no
    /// compactor.
    #[inline(always)]
    pub(crate) fn block(&self, text: &[u8], at: usize, out: &mut [u8]) -> Option<DropBlock> {
        self.marked_block(text, at, None, out)
    }

    /// [`Dropper::block`], also returning which of the written bytes are in the set
    /// of `marks` (bit `i`: byte `i` of `out`); 0 without `marks`.
    #[inline(always)]
    pub(crate) fn marked_block(
        &self,
        text: &[u8],
        at: usize,
        marks: Option<&Finder>,
        out: &mut [u8],
    ) -> Option<DropBlock> {
        let compactor = self.compactor?;
        let w = text.get(at.checked_sub(1)?..at.checked_add(64 + DROP_AHEAD)?)?;
        let (consumed, kept, marks) =
            drop_block(w, self.rule == DropRule::Prose, marks, out, compactor)?;
        Some(DropBlock {
            consumed,
            kept,
            marks,
        })
    }
}

impl Dropper {
    /// [`Dropper::marked_block`] without packing: the bytes consumed, the keep mask
    /// (bit `i`: byte `at + i` is kept) and the kept bytes in the set of `marks` (0
    /// without). For counting passes, which need the kept length and a few of the
    /// kept bytes, not the packed text.
    #[inline(always)]
    pub(crate) fn plan(&self, text: &[u8], at: usize, marks: Option<&Finder>) -> Option<DropPlan> {
        let compactor = self.compactor?;
        let w = text.get(at.checked_sub(1)?..at.checked_add(64 + DROP_AHEAD)?)?;
        let (consumed, keep, marked) =
            plan_block(w, self.rule == DropRule::Prose, marks, compactor)?;
        Some(DropPlan {
            consumed,
            keep,
            marked,
        })
    }
}

/// A dense-drop block packed into the output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct DropBlock {
    /// Bytes of text consumed (61 to 64, ending on a code-point boundary).
    pub(crate) consumed: usize,
    /// Bytes written (the kept ones).
    pub(crate) kept: usize,
    /// Bit `i`: byte `i` of the output is in the set of the marks asked for.
    pub(crate) marks: u64,
}

/// A dense-drop block planned, not packed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct DropPlan {
    /// Bytes of text consumed.
    pub(crate) consumed: usize,
    /// Bit `i`: byte `at + i` of the text is kept.
    pub(crate) keep: u64,
    /// Bit `i`: byte `at + i` is kept and in the set of the marks asked for.
    pub(crate) marked: u64,
}

/// One dense-drop block on `with` (see [`Dropper::marked_block`]).
#[inline(always)]
pub(super) fn drop_block(
    w: &[u8],
    prose: bool,
    marks: Option<&Finder>,
    out: &mut [u8],
    with: Compactor,
) -> Option<(usize, usize, u64)> {
    match with {
        Compactor::Portable => portable::drop_block(w, prose, marks, out),
        #[cfg(all(target_arch = "x86_64", not(feature = "portable-only")))]
        Compactor::Simd(simd) => x86::drop_block(w, prose, marks, out, simd),
    }
}

/// One dense-drop block's plan on `with` (see [`Dropper::plan`]).
#[inline(always)]
pub(super) fn plan_block(
    w: &[u8],
    prose: bool,
    marks: Option<&Finder>,
    with: Compactor,
) -> Option<(usize, u64, u64)> {
    match with {
        Compactor::Portable => portable::plan_block(w, prose, marks),
        #[cfg(all(target_arch = "x86_64", not(feature = "portable-only")))]
        Compactor::Simd(simd) => x86::plan_block(w, prose, marks, simd),
    }
}
