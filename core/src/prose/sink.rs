//! The sinks the walk writes into: the counting sink, the capped writer, and the
//! views of kept text (a piece, a dense-drop block) the walk hands them runs of.

use core::fmt::{self, Write};

use super::{Prose, TruncationNote};
use crate::scan::{Backend, DropBlock, DropPlan, Dropper, Finder};
use crate::truncate::floor_char_boundary;

/// Where the walk puts its output. The walk is one piece of code whatever the sink:
/// the counting pass, the writing pass and the stream see the same runs in the same
/// order, so what is written is what was counted.
pub(super) trait Sink {
    /// How the sink takes a dense-drop block: planned (it needs only the kept
    /// length) or packed (it needs the kept bytes).
    type Block: Block;
    /// The dense-drop block of `text` at `at` (see [`Dropper::marked_block`]), or
    /// `None` when it must go the exact way. Whether a block is taken depends on
    /// the text alone, never on the sink.
    fn take_block(
        &mut self,
        dropper: &Dropper,
        text: &[u8],
        at: usize,
        marks: Option<&Finder>,
    ) -> Option<Self::Block>;
    /// The next run of output (kept text or a redaction).
    fn put(&mut self, s: &[u8]);
    /// The kept bytes of `block` at positions `from..to`, in order.
    fn put_block(&mut self, block: &Self::Block, from: usize, to: usize);
    /// Whether more text can change nothing the sink produces.
    fn is_full(&self) -> bool;
}

/// A dense-drop block as the walk steps over it: 64 positions, some holding kept
/// bytes. The walk feeds the kept bytes to the automaton (from its root, only those
/// that leave it) and hands runs of positions to the sink; how the positions map to
/// bytes is the block's business.
pub(super) trait Block: Sized {
    /// Bytes of text consumed.
    fn consumed(&self) -> usize;
    /// Bit `i`: position `i` holds a kept byte.
    fn keep(&self) -> u64;
    /// Bit `i`: position `i` holds a kept byte that leaves the automaton's root.
    fn marks(&self) -> u64;
    /// The kept byte at position `i`; `window` is the text from the block's start.
    fn byte(&self, window: &[u8], i: usize) -> Option<u8>;

    /// Where the last `n` kept bytes of positions `from..to` begin, and how many
    /// there are (fewer than `n` when the positions hold fewer).
    #[inline]
    fn back(&self, from: usize, to: usize, n: usize) -> Back {
        let mut m = self.keep() & bits(from, to);
        let mut back = Back { at: to, taken: 0 };
        while back.taken < n && m != 0 {
            let top = 63usize.saturating_sub(m.leading_zeros() as usize);
            m &= !(1u64 << (top & 63));
            back = Back {
                at: top,
                taken: back.taken.saturating_add(1),
            };
        }
        back
    }

    /// Copies the kept bytes at positions `from..to` to the start of `dst`
    /// (as many as fit); returns how many.
    #[inline]
    fn copy_kept(&self, window: &[u8], from: usize, to: usize, dst: &mut [u8]) -> usize {
        let mut m = self.keep() & bits(from, to);
        let mut n = 0;
        while m != 0 {
            let i = m.trailing_zeros() as usize;
            m &= m.wrapping_sub(1);
            if let (Some(slot), Some(b)) = (dst.get_mut(n), self.byte(window, i)) {
                *slot = b;
                n = n.saturating_add(1);
            }
        }
        n
    }
}

/// The last few kept bytes of a run: they begin at position `at`, and there are
/// `taken` of them.
#[derive(Clone, Copy, Debug)]
pub(super) struct Back {
    pub(super) at: usize,
    pub(super) taken: usize,
}

/// Bits `from..to` (both at most 64).
#[inline(always)]
pub(super) fn bits(from: usize, to: usize) -> u64 {
    let below = |n: usize| match u32::try_from(n) {
        Ok(n) if n < 64 => (1u64 << n).wrapping_sub(1),
        _ => u64::MAX,
    };
    below(to) & !below(from)
}

/// A block planned, not packed: positions are the text's own bytes, and the kept
/// length is a popcount. What the counting sink takes — packing bytes nobody reads
/// costs the counting pass about a sixth of its instructions on dense dirty text.
pub(super) struct Planned(DropPlan);

impl Block for Planned {
    #[inline(always)]
    fn consumed(&self) -> usize {
        self.0.consumed
    }
    #[inline(always)]
    fn keep(&self) -> u64 {
        self.0.keep
    }
    #[inline(always)]
    fn marks(&self) -> u64 {
        self.0.marked
    }
    #[inline(always)]
    fn byte(&self, window: &[u8], i: usize) -> Option<u8> {
        window.get(i).copied()
    }
}

/// A block packed: positions `0..kept` are the kept bytes, in a small buffer.
pub(super) struct Packed {
    buf: [u8; 64],
    block: DropBlock,
}

/// A block the writer took: packed into a buffer (the automaton reads its marked
/// bytes), or, when no byte can move the automaton (the walk without patterns),
/// packed straight into the output, where reading it back from a buffer just
/// written word by word would stall on store forwarding.
pub(super) enum Written {
    InPlace(DropBlock),
    Packed(Packed),
}

impl Block for Written {
    #[inline(always)]
    fn consumed(&self) -> usize {
        match self {
            Written::InPlace(b) => b.consumed,
            Written::Packed(p) => p.block.consumed,
        }
    }
    #[inline(always)]
    fn keep(&self) -> u64 {
        match self {
            Written::InPlace(b) => bits(0, b.kept),
            Written::Packed(p) => bits(0, p.block.kept),
        }
    }
    #[inline(always)]
    fn marks(&self) -> u64 {
        match self {
            // Taken without marks.
            Written::InPlace(_) => 0,
            Written::Packed(p) => p.block.marks,
        }
    }
    #[inline(always)]
    fn byte(&self, _: &[u8], i: usize) -> Option<u8> {
        match self {
            // The automaton of no pattern stays at its root: it reads no byte.
            Written::InPlace(_) => None,
            Written::Packed(p) => p.buf.get(i).copied(),
        }
    }
}

/// Counts the output and writes nothing: the counting pass. Its `put` adds a
/// length, so the walk it drives costs what a count costs.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Count {
    pub(super) len: usize,
}

impl Sink for Count {
    type Block = Planned;
    #[inline(always)]
    fn take_block(
        &mut self,
        dropper: &Dropper,
        text: &[u8],
        at: usize,
        marks: Option<&Finder>,
    ) -> Option<Planned> {
        dropper.plan(text, at, marks).map(Planned)
    }
    #[inline(always)]
    fn put(&mut self, s: &[u8]) {
        self.len = self.len.saturating_add(s.len());
    }
    #[inline(always)]
    fn put_block(&mut self, block: &Planned, from: usize, to: usize) {
        let kept = (block.0.keep & bits(from, to)).count_ones() as usize;
        self.len = self.len.saturating_add(kept);
    }
    #[inline(always)]
    fn is_full(&self) -> bool {
        false
    }
}

/// Writes up to `cap` bytes, cutting on a code-point boundary, and counts all bytes.
pub(super) struct CapWriter<'o> {
    pub(super) out: &'o mut [u8],
    pub(super) cap: usize,
    pub(super) len: usize,
    pub(super) total: usize,
    pub(super) cut: bool,
    /// Report full once cut (the writing pass, whose count is known already); the
    /// stream keeps counting to the end instead.
    pub(super) stop_when_cut: bool,
    /// A piece did not fit the buffer or was not whole code points: the output has
    /// a hole, and the caller must refuse it.
    pub(super) fault: bool,
    pub(super) backend: Backend,
    /// Output bytes already handed out of `out` by [`ProseStream::feed_emitting`];
    /// they count against the cap.
    pub(super) drained: usize,
    /// Positions of `out` below this are covered by the final output (known from
    /// the count): a block may be copied whole there, its unkept tail written over
    /// later. 0 when unknown (the stream).
    pub(super) covered: usize,
}

impl<'o> CapWriter<'o> {
    pub(super) fn new(
        out: &'o mut [u8],
        cap: usize,
        stop_when_cut: bool,
        backend: Backend,
    ) -> Self {
        CapWriter {
            out,
            cap,
            len: 0,
            total: 0,
            cut: false,
            stop_when_cut,
            fault: false,
            backend,
            drained: 0,
            covered: 0,
        }
    }

    /// Appends the note when the text of `original_bytes` was cut and returns
    /// the result; `None` after a fault (the caller refuses the record).
    pub(super) fn conclude(mut self, original_bytes: usize) -> Option<Prose<'o>> {
        if self.fault {
            return None;
        }
        let truncated = original_bytes > self.cap;
        if truncated {
            let note = TruncationNote {
                original_bytes,
                max_bytes: self.cap,
            };
            let mut note_buf = NoteBuf::default();
            write!(note_buf, "{note}").ok()?;
            self.append(note_buf.as_str(self.backend)?);
            if self.fault {
                return None;
            }
        }
        let backend = self.backend;
        let CapWriter { out, len, .. } = self;
        let written: &'o [u8] = out.get(..len)?;
        Some(Prose {
            text: backend.to_str(written).ok()?,
            truncated,
            original_bytes,
        })
    }

    /// Appends text that is not subject to the cap (the note).
    pub(super) fn append(&mut self, s: &str) {
        let end = self.len.saturating_add(s.len());
        if let Some(dst) = self.out.get_mut(self.len..end) {
            dst.copy_from_slice(s.as_bytes());
            self.len = end;
        } else {
            self.fault = true;
        }
    }
}

impl Sink for CapWriter<'_> {
    type Block = Written;

    #[inline(always)]
    fn take_block(
        &mut self,
        dropper: &Dropper,
        text: &[u8],
        at: usize,
        marks: Option<&Finder>,
    ) -> Option<Written> {
        if marks.is_none() && !self.cut {
            // Within the cap; a block that does not fit goes through the buffer
            // (and is cut there).
            let room = self
                .cap
                .saturating_sub(self.drained.saturating_add(self.len));
            let end = self.len.saturating_add(room).min(self.out.len());
            if let Some(block) = self
                .out
                .get_mut(self.len..end)
                .and_then(|out| dropper.block(text, at, out))
            {
                self.len = self.len.saturating_add(block.kept);
                self.total = self.total.saturating_add(block.kept);
                return Some(Written::InPlace(block));
            }
        }
        let mut buf = [0u8; 64];
        let block = dropper.marked_block(text, at, marks, &mut buf)?;
        Some(Written::Packed(Packed { buf, block }))
    }

    #[inline]
    fn put(&mut self, s: &[u8]) {
        self.total = self.total.saturating_add(s.len());
        if self.cut {
            return;
        }
        let room = self
            .cap
            .saturating_sub(self.drained.saturating_add(self.len));
        let take = if s.len() <= room {
            s.len()
        } else {
            self.cut = true;
            // The pieces the walk puts are whole code points, so a boundary of the
            // piece is a boundary of the text.
            match core::str::from_utf8(s) {
                Ok(piece) => floor_char_boundary(piece, room),
                Err(_) => {
                    self.fault = true;
                    return;
                }
            }
        };
        let end = self.len.saturating_add(take);
        if let (Some(dst), Some(src)) = (self.out.get_mut(self.len..end), s.get(..take)) {
            if take <= 8 {
                // Dense dirty text puts many tiny runs: skip the memcpy call.
                for (d, &b) in dst.iter_mut().zip(src) {
                    *d = b;
                }
            } else {
                self.backend.copy(dst, src);
            }
            self.len = end;
        } else {
            // The buffer was sized from the count of this same walk: a piece that
            // does not fit is a buffer fault.
            self.fault = true;
        }
    }

    #[inline(always)]
    fn put_block(&mut self, block: &Written, from: usize, to: usize) {
        let block = match block {
            // Output when taken.
            Written::InPlace(_) => return,
            Written::Packed(p) => p,
        };
        let to = to.min(block.block.kept);
        if from >= to {
            return;
        }
        let whole = self.len.saturating_add(block.buf.len());
        if from == 0 && !self.cut && whole <= self.covered {
            // The whole block in a few vector moves instead of a copy of `to`
            // bytes: what lies past them is written over by the rest of the output
            // (`covered` is at most the cap, so nothing is cut here).
            if let Some(dst) = self.out.get_mut(self.len..whole) {
                dst.copy_from_slice(&block.buf);
                self.len = self.len.saturating_add(to);
                self.total = self.total.saturating_add(to);
                return;
            }
        }
        self.put(block.buf.get(from..to).unwrap_or_default());
    }

    #[inline(always)]
    fn is_full(&self) -> bool {
        self.stop_when_cut && self.cut
    }
}

/// Kept text the walk addresses by position and hands to a sink in runs: a piece of
/// the input, or a dense-drop block.
pub(super) trait Kept<S: Sink + ?Sized> {
    /// Hands the kept bytes at positions `from..to` to `sink`.
    fn put_run(&self, from: usize, to: usize, sink: &mut S);
    /// Where the last `n` kept bytes of positions `from..to` begin.
    fn back(&self, from: usize, to: usize, n: usize) -> Back;
    /// Copies the kept bytes at positions `from..to` to `dst`; returns how many.
    fn copy_kept(&self, from: usize, to: usize, dst: &mut [u8]) -> usize;
}

impl<S: Sink + ?Sized> Kept<S> for [u8] {
    #[inline(always)]
    fn put_run(&self, from: usize, to: usize, sink: &mut S) {
        sink.put(self.get(from..to).unwrap_or_default());
    }
    #[inline]
    fn back(&self, from: usize, to: usize, n: usize) -> Back {
        let at = to.saturating_sub(n).max(from);
        Back {
            at,
            taken: to.saturating_sub(at),
        }
    }
    #[inline]
    fn copy_kept(&self, from: usize, to: usize, dst: &mut [u8]) -> usize {
        let src = self.get(from..to).unwrap_or_default();
        match dst.get_mut(..src.len()) {
            Some(dst) => {
                dst.copy_from_slice(src);
                src.len()
            }
            None => 0,
        }
    }
}

/// A block taken by the sink's own rule, and the text from the block's start.
pub(super) struct InBlock<'b, B> {
    pub(super) block: &'b B,
    pub(super) window: &'b [u8],
}

impl<S: Sink> Kept<S> for InBlock<'_, S::Block> {
    #[inline(always)]
    fn put_run(&self, from: usize, to: usize, sink: &mut S) {
        sink.put_block(self.block, from, to);
    }
    #[inline]
    fn back(&self, from: usize, to: usize, n: usize) -> Back {
        self.block.back(from, to, n)
    }
    #[inline]
    fn copy_kept(&self, from: usize, to: usize, dst: &mut [u8]) -> usize {
        self.block.copy_kept(self.window, from, to, dst)
    }
}

/// A fixed buffer large enough for any truncation note.
pub(super) struct NoteBuf {
    buf: [u8; 128],
    len: usize,
}

impl Default for NoteBuf {
    fn default() -> Self {
        NoteBuf {
            buf: [0; 128],
            len: 0,
        }
    }
}

impl NoteBuf {
    /// The note written; `None` if it is not text (it always is).
    pub(super) fn as_str(&self, backend: Backend) -> Option<&str> {
        backend.to_str(self.buf.get(..self.len)?).ok()
    }
}

impl Write for NoteBuf {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let end = self.len.saturating_add(s.len());
        let dst = self.buf.get_mut(self.len..end).ok_or(fmt::Error)?;
        dst.copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}
