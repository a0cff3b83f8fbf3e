//! What the strict dense blocks compare and return, shared by the dispatch
//! (`strict_dense.rs`) and the x86 kernels (`strict_dense_x86.rs`) so that neither
//! imports the other for it: the block's window, its masks, and the interface by
//! which the strict profile hands its code point sets down ([`DenseSets`]). The
//! sets themselves are strict's (`strict::class::StrictSets`, built by
//! `rules::Seqs`): scan names nothing of strict.

// Without the x86 kernels (`portable-only`, other targets) only the tests read the
// patterns.
#![cfg_attr(
    not(all(target_arch = "x86_64", not(feature = "portable-only"))),
    allow(dead_code)
)]

use crate::rules::Seq;

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
    /// The first byte of a code point of [`DenseSets::DROPS`] (strict's: the
    /// members of D).
    pub(crate) drop_lead: u64,
    /// Every byte of a code point of [`DenseSets::INERTS`] (strict's: the non-ASCII
    /// inert code points, kept, and ending every context).
    pub(crate) inert: u64,
    /// 0x80–0xBF.
    pub(crate) cont: u64,
    /// Every byte of a control strict sanitize's step 3 drops — C0 but TAB and LF,
    /// DEL, C1 (`C2 80`–`C2 9F`) — when asked for (`masks::<true>`), else 0. The
    /// zeros past a short text are NULs here (ASCII above): no block takes them.
    pub(crate) ctrl: u64,
}

/// Most patterns of a set a kernel expands (`each_pattern!`); checked at compile
/// time for every set a kernel is given ([`check_sets`]).
pub(crate) const MAX_EXPANDED: usize = 24;

/// The two sets of code points a strict dense block classifies, as UTF-8 patterns
/// (each code point of a set in exactly one), given as a type so each pattern is
/// compiled into the kernels' compares as immediates. The strict profile implements
/// it and passes it down (`StrictKernel::masks::<S, _>`).
pub(crate) trait DenseSets {
    /// The code points whose first byte a block marks ([`StrictMasks::drop_lead`]).
    const DROPS: &'static [Seq];
    /// The non-ASCII code points each of whose bytes a block marks
    /// ([`StrictMasks::inert`]).
    const INERTS: &'static [Seq];
}

/// Fails the build (at the kernel's monomorphisation) when a set has more patterns
/// than the kernels expand.
pub(crate) const fn check_sets<S: DenseSets>() {
    assert!(
        S::DROPS.len() <= MAX_EXPANDED && S::INERTS.len() <= MAX_EXPANDED,
        "strict dense: expand more patterns"
    );
}
