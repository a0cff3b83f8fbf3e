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

use super::class::{in_drop_set_fast, is_inert, is_keepable};
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

/// A code point decoded from UTF-8.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Decoded {
    cp: u32,
    len: usize,
}

/// The code point at `i` of `bytes` (valid UTF-8, a non-ASCII lead byte at `i`),
/// without branches on its length: the length from the lead byte, the bits from the
/// four bytes there read as one word.
#[inline(always)]
fn decode(bytes: &[u8], i: usize) -> Decoded {
    let at = |k: usize| bytes.get(i.saturating_add(k)).copied().unwrap_or(0);
    let w = match bytes
        .get(i..i.saturating_add(4))
        .and_then(|s| <[u8; 4]>::try_from(s).ok())
    {
        Some(word) => u32::from_be_bytes(word),
        None => u32::from_be_bytes([at(0), at(1), at(2), at(3)]),
    };
    // A lead byte of 2 to 4 bytes: its leading ones are the length.
    let len = (!w).leading_zeros();
    // Payloads: five lead bits (a 4-byte lead's fifth is masked off below), then six
    // bits per continuation byte, as if the code point had four bytes.
    let payload = (w & 0x3F) | (w >> 2 & 0xFC0) | (w >> 4 & 0x3_F000) | (w >> 6 & 0x7C_0000);
    // Drop the bits of the bytes past the code point, and keep the 11, 16 or 21 bits
    // a code point of that length has (`len` is 2 to 4: the wrapping operations
    // never wrap).
    let shift = 24u32.wrapping_sub(6u32.wrapping_mul(len));
    let mask = 1u32
        .checked_shl(5u32.wrapping_mul(len).wrapping_add(1))
        .unwrap_or(0)
        .wrapping_sub(1);
    Decoded {
        cp: payload.checked_shr(shift).unwrap_or(0) & mask,
        len: len as usize,
    }
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
    // Offsets below: `i` and `next` stay within the text (whole code points), and
    // `last_drop <= i`, so the wrapping operations never wrap.
    while let Some(&b) = bytes.get(i) {
        if b < 0x80 {
            dead = is_inert(u32::from(b));
            i = i.wrapping_add(1);
            if i.wrapping_sub(last_drop) > SPARSE {
                break;
            }
            continue;
        }
        let Decoded { cp, len } = decode(bytes, i);
        let next = i.wrapping_add(len);
        if in_drop_set_fast(cp) {
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
            if next.wrapping_sub(last_drop) > SPARSE {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_every_code_point() {
        for c in '\u{80}'..=char::MAX {
            let mut buf = [0u8; 8];
            let n = c.encode_utf8(&mut buf).len();
            // At the end of the text and followed by more bytes.
            for tail in [0usize, 1, 3] {
                let d = decode(&buf[..n + tail], 0);
                assert_eq!(
                    d,
                    Decoded {
                        cp: u32::from(c),
                        len: n
                    },
                    "{c:?} {tail}"
                );
            }
        }
    }
}
