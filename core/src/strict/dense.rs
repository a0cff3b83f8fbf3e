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

/// Kept bytes gathered for a sink that takes copies ([`KeepSink::GATHER`]); a piece
/// this long goes to the matcher whole, without its batch.
const GATHER: usize = 256;

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

/// Kept text on its way to the sink: slices of the text, or copies gathered.
struct Kept {
    buf: [u8; GATHER],
    len: usize,
}

impl Kept {
    #[inline(always)]
    fn run<S: KeepSink>(&mut self, run: &str, sink: &mut S) {
        if !S::GATHER || run.len() > GATHER / 2 {
            self.flush(sink);
            sink.text(run);
            return;
        }
        if self.len.saturating_add(run.len()) > GATHER {
            self.flush(sink);
        }
        let end = self.len.saturating_add(run.len());
        if let Some(dst) = self.buf.get_mut(self.len..end) {
            // Short runs (a byte or two between dense drops): byte by byte, not a
            // call to `memcpy`.
            for (d, &b) in dst.iter_mut().zip(run.as_bytes()) {
                *d = b;
            }
            self.len = end;
        }
    }

    #[inline(always)]
    fn flush<S: KeepSink>(&mut self, sink: &mut S) {
        if !S::GATHER || self.len == 0 {
            return;
        }
        // Whole code points of a `str` were gathered, so this always holds.
        if let Ok(s) = core::str::from_utf8(self.buf.get(..self.len).unwrap_or_default()) {
            sink.text(s);
        }
        self.len = 0;
    }
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
    let len = (!at(0)).leading_zeros() as usize;
    // Payloads: five lead bits (a 4-byte lead's fifth is masked off below), then six
    // bits per continuation byte, as if the code point had four bytes.
    let payload = (w & 0x3F) | (w >> 2 & 0xFC0) | (w >> 4 & 0x3_F000) | (w >> 6 & 0x7C_0000);
    // `len` is 2 to 4: drop the bits of the bytes past the code point, and keep the
    // 11, 16 or 21 bits a code point of that length has.
    let shift = 6u32.saturating_mul(4u32.saturating_sub(len as u32));
    let bits = 1u32.saturating_add(5u32.saturating_mul(len as u32));
    let mask = 1u32.checked_shl(bits).unwrap_or(0).wrapping_sub(1);
    Decoded {
        cp: payload.checked_shr(shift).unwrap_or(0) & mask,
        len,
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
    let mut kept = Kept {
        buf: [0; GATHER],
        len: 0,
    };
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
                kept.run(text.get(run..i).unwrap_or_default(), sink);
            }
            if S::DROPS {
                kept.flush(sink);
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
        kept.run(text.get(run..i).unwrap_or_default(), sink);
    }
    kept.flush(sink);
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
