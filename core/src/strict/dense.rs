//! Step 2 over dense members of D: a code point at a time, without the window.
//!
//! Most members of D no rule of §2 can keep ([`super::class::is_keepable`]): they
//! are dropped on sight, and so is a keepable one after a code point that ends
//! every context ("dead": a member of D, or [`super::class::is_inert`]). Such runs
//! are decided here with a byte or two of state instead of one trip per code point
//! through the keep rules (decode, window, trie walks, history). Kept runs are handed
//! on as slices of the text (the strict lint locates them by address). What this cannot decide (a keepable member
//! after a live code point) goes back to [`super::keep::Keeper`], which rebuilds its
//! history and joining state from the text it consumed. Every backend runs this
//! same code, so they compute the same bytes.

use super::class::{in_drop_set_cp, is_inert, is_keepable};
use super::keep::KeepSink;

/// Kept bytes after the last dropped code point at which the run gives the text
/// back to the block scan (the members of D are no longer dense).
const SPARSE: usize = 48;

/// Where a dense run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct DenseRun {
    /// Offset in the text of the first code point not consumed.
    pub(super) end: usize,
    /// Whether the last code point consumed ends every context (see the module).
    pub(super) dead: bool,
}

/// Decides the code points of `text` from `from` (a code-point boundary; the window
/// is empty) while no rule of §2 can keep them: keeps what is outside D, drops the
/// members of D that cannot be kept there. `pos` is the stream offset of `from`,
/// `dead` whether the code point before it ends every context. Stops at the end of
/// the text, before a keepable member of D after a live code point, or once the
/// members of D thin out.
#[inline]
pub(super) fn drop_dense<S: KeepSink>(
    text: &str,
    from: usize,
    pos: usize,
    mut dead: bool,
    sink: &mut S,
) -> DenseRun {
    let bytes = text.as_bytes();
    let mut i = from;
    // Start of the kept run not yet handed on, and the end of the last drop.
    let mut run = from;
    let mut last_drop = from;
    while let Some(&b) = bytes.get(i) {
        if b < 0x80 {
            dead = is_inert(u32::from(b));
            i = i.saturating_add(1);
            if i.saturating_sub(last_drop) > SPARSE {
                break;
            }
            continue;
        }
        let b1 = u32::from(bytes.get(i.saturating_add(1)).copied().unwrap_or(0) & 0x3F);
        let b2 = u32::from(bytes.get(i.saturating_add(2)).copied().unwrap_or(0) & 0x3F);
        let b3 = u32::from(bytes.get(i.saturating_add(3)).copied().unwrap_or(0) & 0x3F);
        let lead = u32::from(b);
        let (cp, len) = if b < 0xE0 {
            ((lead & 0x1F) << 6 | b1, 2usize)
        } else if b < 0xF0 {
            ((lead & 0x0F) << 12 | b1 << 6 | b2, 3)
        } else {
            ((lead & 0x07) << 18 | b1 << 12 | b2 << 6 | b3, 4)
        };
        let next = i.saturating_add(len);
        if in_drop_set_cp(cp) {
            if !dead && is_keepable(cp) {
                break;
            }
            if i > run {
                sink.text(text.get(run..i).unwrap_or_default());
            }
            if S::DROPS {
                let at = pos.saturating_add(i.saturating_sub(from));
                sink.dropped(at, char::from_u32(cp).unwrap_or('\u{FFFD}'));
            }
            dead = true;
            run = next;
            last_drop = next;
        } else {
            dead = is_inert(cp);
            if next.saturating_sub(last_drop) > SPARSE {
                i = next;
                break;
            }
        }
        i = next;
    }
    if i > run {
        sink.text(text.get(run..i).unwrap_or_default());
    }
    DenseRun { end: i, dead }
}
