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

use crate::rules::{Member, Seqs};
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

/// Most patterns a kernel expands (`each_pattern!`).
pub(super) const MAX_EXPANDED: usize = 24;

/// A set of code points as UTF-8 byte patterns, built by the one pattern compiler.
pub(super) type Patterns = Seqs<MAX_PATTERNS>;

/// The members of D as patterns.
pub(super) const DROP_PATTERNS: Patterns = Patterns::of(DROP_RANGES, Member::All, 4);
/// The non-ASCII inert code points as patterns.
pub(super) const INERT_PATTERNS: Patterns = Patterns::of(INERT_RANGES, Member::All, 4);

// The kernels expand each pattern into code (`each_pattern!`), up to MAX_EXPANDED.
const _: () = assert!(
    DROP_PATTERNS.as_slice().len() <= MAX_EXPANDED
        && INERT_PATTERNS.as_slice().len() <= MAX_EXPANDED,
    "strict dense: expand more patterns"
);
