//! The sinks the walk writes into: the counting sink, the capped writer, and the
//! views of kept text (a piece, a dense-drop block) the walk hands them runs of.

use core::fmt::{self, Write};

use super::{Prose, TruncationNote};
use crate::scan::{Backend, DropBlock, DropPlan, Dropper, Finder};
use crate::truncate::floor_char_boundary;

/// Where a stage puts what it produces: the one sink model of both profiles, as
/// ripgrep's `Sink` is of its searcher. One trait, one method per event, a default
/// for every event a sink may ignore:
///
/// * the reference walk (`Engine`) hands kept text and redactions to its counting
///   sink ([`Count`]) and its writer ([`CapWriter`]), and dense-drop blocks through
///   the extension [`BlockSink`];
/// * strict step 2 (`strict::keep`, `strict::dense`) hands kept text, and the members
///   of D it drops, to strip's sinks and to sanitize's batch (`strict::prose`), and
///   writes dense runs into a sink's [`Sink::room`];
/// * strict steps 3–5 (`strict::matcher`) hand kept text and replacements to the
///   strict writer (`strict::prose::Writer`), and to the checks' sinks.
///
/// Every call carries whole code points, in output order.
///
/// # What a writing sink's buffer holds on an error
///
/// Both profiles promise the same, one-shot and at a stream's `finish`: when the call
/// returns an error (a rejected record, a buffer too small, a fault), the buffer
/// holds nothing of the record's output. Each of its bytes is either as the caller
/// left it or zero: what a writer wrote is zeroed before the error is returned
/// (`CapWriter::wipe`, `strict::prose::Writer::wipe`), so a caller that ignores the
/// error cannot pass on part of a refused record. (The reference's two-walk path
/// writes only after the verdict and the size check, so its refusals leave the buffer
/// untouched; the one-walk paths write first and wipe.) Output a draining stream has
/// already handed out (`ProseStream::feed_emitting`) is the caller's.
pub(crate) trait Sink {
    /// Whether the sink wants [`Sink::dropped`] calls (strict's dense path skips
    /// them otherwise).
    const DROPS: bool = false;
    /// Whether what the sink gathers ([`Sink::room`]) goes where strict step 3's
    /// controls (C0 but TAB and LF, DEL, C1) are dropped anyway (sanitize's matcher):
    /// strict's dense path then leaves them out of the gathered bytes.
    const DROPS_CONTROLS: bool = false;
    /// The next run of kept text.
    fn text(&mut self, s: &str);
    /// A replacement (a redacted envelope marker, a special token, a comment opener)
    /// in place of text that is gone; what follows it may lose members of D (strict:
    /// `strict::trail`).
    #[inline(always)]
    fn replacement(&mut self, s: &str) {
        self.text(s);
    }
    /// A code point dropped at byte `at` of the input (strict step 2's members of D).
    #[inline(always)]
    fn dropped(&mut self, at: usize, c: char) {
        let _ = (at, c);
    }
    /// Space for at least `need` kept bytes that a dense path may write into
    /// directly (then reports them with [`Sink::gathered`]), or `None` to be handed
    /// the kept runs with [`Sink::text`]. Between dense dropped code points the runs
    /// are a byte each, and a hand-off per byte costs more than the byte.
    #[inline(always)]
    fn room(&mut self, need: usize) -> Option<&mut [u8]> {
        let _ = need;
        None
    }
    /// `n` kept bytes (whole code points) were written at the start of the space
    /// [`Sink::room`] gave.
    #[inline(always)]
    fn gathered(&mut self, n: usize) {
        let _ = n;
    }
    /// Whether more input can change nothing the sink produces (a writer cut at its
    /// cap whose count is known already): the walk may stop.
    #[inline(always)]
    fn is_full(&self) -> bool {
        false
    }
}

/// A [`Sink`] the reference walk can hand dense-drop blocks: the walk is one piece of
/// code whatever the sink, so the counting pass, the writing pass and the stream see
/// the same runs in the same order, and what is written is what was counted.
pub(super) trait BlockSink: Sink {
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
    /// The kept bytes of `block` at positions `from..to`, in order.
    fn put_block(&mut self, block: &Self::Block, from: usize, to: usize);
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
    #[inline(always)]
    fn text(&mut self, s: &str) {
        self.len = self.len.saturating_add(s.len());
    }
}

impl BlockSink for Count {
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
    fn put_block(&mut self, block: &Planned, from: usize, to: usize) {
        let kept = (block.0.keep & bits(from, to)).count_ones() as usize;
        self.len = self.len.saturating_add(kept);
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
    /// The end of the furthest space handed to the dense kernel
    /// ([`BlockSink::take_block`] packs in place): it may write past what it keeps,
    /// and [`CapWriter::wipe`] zeroes up to here too.
    pub(super) reached: usize,
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
            reached: 0,
        }
    }

    /// Appends the note when the text of `original_bytes` was cut and returns
    /// the result; `None` after a fault (the caller refuses the record), with the
    /// buffer wiped ([`CapWriter::wipe`]).
    pub(super) fn conclude(mut self, original_bytes: usize) -> Option<Prose<'o>> {
        let truncated = original_bytes > self.cap;
        if truncated && !self.fault {
            let note = TruncationNote {
                original_bytes,
                max_bytes: self.cap,
            };
            let mut note_buf = NoteBuf::default();
            match write!(note_buf, "{note}")
                .ok()
                .and(note_buf.as_str(self.backend))
            {
                Some(note) => self.append(note),
                None => self.fault = true,
            }
        }
        if self.fault {
            self.wipe();
            return None;
        }
        let backend = self.backend;
        let CapWriter { out, len, .. } = self;
        // The last guard: the writer copied whole code points. Its refusal cannot
        // wipe what the borrow of the text holds (the one exception to [`Sink`]'s
        // promise, for a state no path reaches).
        let written: &'o [u8] = out.get(..len)?;
        Some(Prose {
            text: backend.to_str(written).ok()?,
            truncated,
            original_bytes,
        })
    }

    /// Writes the next run (whole code points) up to the cap.
    #[inline]
    pub(super) fn write(&mut self, s: &[u8]) {
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

    /// Zeroes every byte this writer may have written: on an error the buffer holds
    /// nothing of the record (see [`Sink`]).
    pub(super) fn wipe(&mut self) {
        let end = self.len.max(self.covered).max(self.reached);
        let end = end.min(self.out.len());
        if let Some(written) = self.out.get_mut(..end) {
            written.fill(0);
        }
        self.len = 0;
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
    #[inline(always)]
    fn text(&mut self, s: &str) {
        self.write(s.as_bytes());
    }

    #[inline(always)]
    fn is_full(&self) -> bool {
        self.stop_when_cut && self.cut
    }
}

impl BlockSink for CapWriter<'_> {
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
                self.reached = self.reached.max(end);
                self.len = self.len.saturating_add(block.kept);
                self.total = self.total.saturating_add(block.kept);
                return Some(Written::InPlace(block));
            }
        }
        let mut buf = [0u8; 64];
        let block = dropper.marked_block(text, at, marks, &mut buf)?;
        Some(Written::Packed(Packed { buf, block }))
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
        self.write(block.buf.get(from..to).unwrap_or_default());
    }
}

/// Kept text the walk addresses by position and hands to a sink in runs: a piece of
/// the input, or a dense-drop block.
pub(super) trait Kept<S: BlockSink + ?Sized> {
    /// Hands the kept bytes at positions `from..to` to `sink`; `false` when they are
    /// not whole code points (a position off a boundary: the walk faults).
    fn put_run(&self, from: usize, to: usize, sink: &mut S) -> bool;
    /// Where the last `n` kept bytes of positions `from..to` begin.
    fn back(&self, from: usize, to: usize, n: usize) -> Back;
    /// Copies the kept bytes at positions `from..to` to `dst`; returns how many.
    fn copy_kept(&self, from: usize, to: usize, dst: &mut [u8]) -> usize;
}

impl<S: BlockSink + ?Sized> Kept<S> for str {
    #[inline(always)]
    fn put_run(&self, from: usize, to: usize, sink: &mut S) -> bool {
        match self.get(from..to) {
            Some(run) => {
                sink.text(run);
                true
            }
            None => false,
        }
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
        let src = self.as_bytes().get(from..to).unwrap_or_default();
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

impl<S: BlockSink> Kept<S> for InBlock<'_, S::Block> {
    #[inline(always)]
    fn put_run(&self, from: usize, to: usize, sink: &mut S) -> bool {
        sink.put_block(self.block, from, to);
        true
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
pub(crate) struct NoteBuf {
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
    pub(crate) fn as_str(&self, backend: Backend) -> Option<&str> {
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
