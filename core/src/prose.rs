//! `sanitize_prose`: strip, drop controls but TAB and LF, reject forgeries, redact
//! envelope markers, cut to the budget with the reference's note (SPEC §3).
//!
//! One walk (`Engine`), generic over its sink, does the five steps: the counting
//! pass runs it into a sink that only adds lengths (`Count`) for the verdict and
//! the exact output length, the writing pass runs the same code into a writer
//! (`CapWriter`) that stops at the cap, and the stream runs it into a writer that
//! counts to the end. Count and output cannot disagree: they are one piece of
//! code over the same text. What can still go wrong is the buffer (a piece that
//! does not fit, a position off a code-point boundary), and that refuses the
//! record with [`Reason::Internal`]: never `Ok` with a hole. See `core/DESIGN.md`.
//!
//! [`Reason::Internal`]: crate::Reason::Internal

use core::fmt::{self, Write};

use crate::class::{is_control, is_dangerous_invisible, is_stripped, is_variation_selector};
use crate::forgery::{
    AnyAutomaton, Automaton, INFO_LITERALS, INFO_MARKER_END, LiteralSet, MARKER_FIRST,
    MARKER_REDACTION, MARKER_RESYNC_LEN, info_marker_depth,
};
use crate::reject::Rejection;
use crate::scan::{
    Backend, ByteSet, DropBlock, DropPlan, DropRule, Dropper, Finder, Scanner, char_at,
};
use crate::strip::BufferTooSmall;
use crate::truncate::floor_char_boundary;
use crate::utf8::{Utf8Error, Utf8Stream};

/// Byte budget of the reference for an `insight`.
pub const INSIGHT_MAX_BYTES: usize = 2000;
/// Byte budget of the reference for one evidence item.
pub const EVIDENCE_ITEM_MAX_BYTES: usize = 2000;
/// Byte budget of the reference for the whole evidence region.
pub const EVIDENCE_MAX_BYTES: usize = 5000;
/// Byte budget of the reference for a title.
pub const TITLE_MAX_BYTES: usize = 256;

/// The note appended after a cut: `N` bytes (after redaction) exceeded the `M`-byte cap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TruncationNote {
    /// Length of the text after redaction, before the cut.
    pub original_bytes: usize,
    /// The cap.
    pub max_bytes: usize,
}

impl TruncationNote {
    /// The note's exact length in bytes.
    pub fn len(&self) -> usize {
        const FIXED: usize = " […truncated by the reconciliation engine: ".len()
            + " bytes exceeded the ".len()
            + "-byte cap]".len();
        FIXED
            .saturating_add(decimal_len(self.original_bytes))
            .saturating_add(decimal_len(self.max_bytes))
    }

    /// A note is never empty; present for the `len`/`is_empty` convention.
    pub fn is_empty(&self) -> bool {
        false
    }
}

impl fmt::Display for TruncationNote {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            " […truncated by the reconciliation engine: {} bytes exceeded the {}-byte cap]",
            self.original_bytes, self.max_bytes
        )
    }
}

const fn decimal_len(n: usize) -> usize {
    match n.checked_ilog10() {
        Some(log) => (log as usize).saturating_add(1),
        None => 1,
    }
}

/// The most bytes [`sanitize_prose`] can write for an input of `input_len` bytes and a
/// cap of `max_bytes`: redaction may lengthen text (21 bytes become 26), and a cut
/// appends the note.
pub fn worst_case_len(input_len: usize, max_bytes: usize) -> usize {
    // The shorter marker grows most: "untrusted-content:end" (21) becomes 26 bytes.
    const SHORTEST_MARKER: usize = "untrusted-content:end".len();
    const GROWTH: usize = MARKER_REDACTION.len().abs_diff(SHORTEST_MARKER);
    let markers = input_len.checked_div(SHORTEST_MARKER).unwrap_or(0);
    let grown = input_len.saturating_add(markers.saturating_mul(GROWTH));
    if grown <= max_bytes {
        grown
    } else {
        let note = TruncationNote {
            original_bytes: grown,
            max_bytes,
        };
        max_bytes.saturating_add(note.len())
    }
}

/// The outcome of a successful sanitize.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Prose<'o> {
    /// The sanitized text, including the truncation note when cut.
    pub text: &'o str,
    /// Whether the text was cut (and the note appended).
    pub truncated: bool,
    /// The length after redaction, before the cut (the note's `N`).
    pub original_bytes: usize,
}

/// Why [`sanitize_prose`] produced nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProseError<'a> {
    /// The record is rejected (a wrapper forgery); the message is the reference's.
    Rejected(Rejection<'a>),
    /// The output buffer is smaller than the result; `needed` bytes suffice.
    BufferTooSmall(BufferTooSmall),
}

impl fmt::Display for ProseError<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProseError::Rejected(r) => r.fmt(f),
            ProseError::BufferTooSmall(b) => b.fmt(f),
        }
    }
}

impl core::error::Error for ProseError<'_> {}

/// Where the walk puts its output. The walk is one piece of code whatever the sink:
/// the counting pass, the writing pass and the stream see the same runs in the same
/// order, so what is written is what was counted.
trait Sink {
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
trait Block: Sized {
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
struct Back {
    at: usize,
    taken: usize,
}

/// Bits `from..to` (both at most 64).
#[inline(always)]
fn bits(from: usize, to: usize) -> u64 {
    let below = |n: usize| match u32::try_from(n) {
        Ok(n) if n < 64 => (1u64 << n).wrapping_sub(1),
        _ => u64::MAX,
    };
    below(to) & !below(from)
}

/// A block planned, not packed: positions are the text's own bytes, and the kept
/// length is a popcount. What the counting sink takes — packing bytes nobody reads
/// costs the counting pass about a sixth of its instructions on dense dirty text.
struct Planned(DropPlan);

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
struct Packed {
    buf: [u8; 64],
    block: DropBlock,
}

/// A block the writer took: packed into a buffer (the automaton reads its marked
/// bytes), or, when no byte can move the automaton (the walk without patterns),
/// packed straight into the output, where reading it back from a buffer just
/// written word by word would stall on store forwarding.
enum Written {
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
struct Count {
    len: usize,
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
struct CapWriter<'o> {
    out: &'o mut [u8],
    cap: usize,
    len: usize,
    total: usize,
    cut: bool,
    /// Report full once cut (the writing pass, whose count is known already); the
    /// stream keeps counting to the end instead.
    stop_when_cut: bool,
    /// A piece did not fit the buffer or was not whole code points: the output has
    /// a hole, and the caller must refuse it.
    fault: bool,
    backend: Backend,
    /// Output bytes already handed out of `out` by [`ProseStream::feed_emitting`];
    /// they count against the cap.
    drained: usize,
    /// Positions of `out` below this are covered by the final output (known from
    /// the count): a block may be copied whole there, its unkept tail written over
    /// later. 0 when unknown (the stream).
    covered: usize,
}

impl<'o> CapWriter<'o> {
    fn new(out: &'o mut [u8], cap: usize, stop_when_cut: bool, backend: Backend) -> Self {
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
    fn conclude(mut self, original_bytes: usize) -> Option<Prose<'o>> {
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
    fn append(&mut self, s: &str) {
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
trait Kept<S: Sink + ?Sized> {
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
struct InBlock<'b, B> {
    block: &'b B,
    window: &'b [u8],
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

/// ASCII bytes prose keeps (all but the controls other than TAB and LF).
const KEPT_ASCII: ByteSet = {
    let mut set = ByteSet::EMPTY;
    let mut b = 0u8;
    while b < 0x80 {
        if !is_dropped_ascii(b) {
            set = set.with(b);
        }
        b += 1;
    }
    set
};

/// Prose drops these ASCII bytes (controls but TAB and LF).
const fn is_dropped_ascii(b: u8) -> bool {
    (b < 0x20 && b != b'\t' && b != b'\n') || b == 0x7F
}

/// Whether prose drops the non-ASCII code point `c`; `prev` yields its predecessor
/// in the original input (needed for U+FE0F only).
#[inline]
fn drops_non_ascii(c: char, prev: impl FnOnce() -> Option<char>) -> bool {
    if is_control(c) || is_dangerous_invisible(c) {
        return true;
    }
    is_variation_selector(c) && is_stripped(c, if c == '\u{FE0F}' { prev() } else { None })
}

/// The automaton of no pattern: it never leaves its root.
///
/// The writing pass runs it when the counting pass found no marker (and no
/// literal, or there would be no writing pass): the automaton's only effect on the
/// output is a redaction (holding a marker's beginning only delays bytes), so over
/// such a text the walk with it writes what the walk with the set's automaton
/// counted, and it skips the stepping and the marks the text does not need.
#[derive(Clone, Copy, Debug)]
struct NoPatterns;

impl Automaton for NoPatterns {
    #[inline(always)]
    fn step(&self, _: u16, _: u8) -> u16 {
        0
    }
    #[inline(always)]
    fn info(&self, _: u16) -> u16 {
        0
    }
}

/// Where the walk of [`NoPatterns`] stops while idle: the code points prose may
/// drop.
static DROP_STOPS: Finder = Finder::new(ByteSet::PROSE_ATTENTION).refined();

/// The five steps over text arriving in pieces of whole code points: drops code
/// points, feeds the kept bytes to the automaton of literals and markers, holds the
/// bytes that may still become a marker, and reports runs of kept text to a sink.
#[derive(Clone, Debug)]
struct Engine<'l, A: Automaton> {
    auto: A,
    state: u16,
    /// Literals found so far (bit `i`: literal `i`).
    found: u8,
    /// Kept bytes of earlier pieces and blocks not yet emitted: those that may
    /// begin a marker, and those before them not yet released (see [`Engine::flush`]).
    held: [u8; 32],
    held_len: usize,
    /// The code point before the current piece in the original input.
    prev: Option<char>,
    /// Bytes where the idle scan stops: droppable lead bytes, literal first bytes, the
    /// marker anchor.
    stops: &'l Finder,
    /// Literal first bytes (a non-ASCII one is a stop even when no attention).
    first_bytes: ByteSet,
    /// Whether any code point was dropped, any marker redacted.
    dropped: bool,
    redacted: bool,
    /// Dense drop regions.
    dropper: Dropper,
    /// Bytes on which the automaton leaves its root: literal first bytes and the
    /// markers' first byte; `None` for an automaton without patterns.
    leaves_root: Option<&'l Finder>,
    /// The walk met a state it treats as impossible (a position off a code-point
    /// boundary): its output must be refused.
    fault: bool,
    backend: Backend,
}

impl<'l, A: Automaton> Engine<'l, A> {
    /// The walk of `set`'s literals and the markers.
    fn of_set(auto: A, set: &'l LiteralSet<'l>, backend: Backend) -> Self {
        Engine::new(
            auto,
            set.prose_stops(),
            set.first_bytes(),
            Some(set.leaves_root()),
            backend,
        )
    }

    fn new(
        auto: A,
        stops: &'l Finder,
        first_bytes: ByteSet,
        leaves_root: Option<&'l Finder>,
        backend: Backend,
    ) -> Self {
        Engine {
            auto,
            state: 0,
            found: 0,
            held: [0; 32],
            held_len: 0,
            prev: None,
            stops,
            first_bytes,
            dropped: false,
            redacted: false,
            dropper: Dropper::new(DropRule::Prose, backend),
            leaves_root,
            fault: false,
            backend,
        }
    }

    /// Feeds one kept byte at position `here` of `kept`. The kept bytes from
    /// `run_start` to `here` are the pending run: not emitted, the last of them
    /// (the state's marker depth) held by position, not copied (see
    /// [`Engine::flush`]). Only a literal or a marker's end needs more than the
    /// step, so the fast path costs what a count costs.
    #[inline(always)]
    fn feed<S: Sink, K: Kept<S> + ?Sized>(
        &mut self,
        kept: &K,
        b: u8,
        here: usize,
        run_start: &mut usize,
        sink: &mut S,
    ) {
        let before = self.state;
        let state = self.auto.step(before, b);
        self.state = state;
        let info = self.auto.info(state);
        if info & (INFO_LITERALS | INFO_MARKER_END) == 0 {
            return;
        }
        self.report(kept, before, here, info, run_start, sink);
    }

    /// A literal found, or a marker ending at `here` (`before` the state before it).
    #[inline(never)]
    fn report<S: Sink, K: Kept<S> + ?Sized>(
        &mut self,
        kept: &K,
        before: u16,
        here: usize,
        info: u16,
        run_start: &mut usize,
        sink: &mut S,
    ) {
        // The low byte of the info word is the literal mask.
        self.found |= (info & INFO_LITERALS) as u8;
        if info & INFO_MARKER_END == 0 {
            return;
        }
        // The marker is this byte and the bytes held before it: the last
        // `depth` of the held bytes and the pending run.
        let depth = info_marker_depth(self.auto.info(before));
        self.release(kept, here, depth, run_start, sink);
        sink.put(MARKER_REDACTION.as_bytes());
        self.held_len = 0;
        self.redacted = true;
        *run_start = here.saturating_add(1);
    }

    /// Emits the held bytes and the pending run `run_start..end` except their last
    /// `keep` bytes; returns those of the run (where they begin, how many). The
    /// kept ones of `held` stay at its start.
    #[inline]
    fn release<S: Sink, K: Kept<S> + ?Sized>(
        &mut self,
        kept: &K,
        end: usize,
        keep: usize,
        run_start: &mut usize,
        sink: &mut S,
    ) -> Back {
        let back = kept.back(*run_start, end, keep);
        let from_held = keep.saturating_sub(back.taken).min(self.held_len);
        let release = self.held_len.saturating_sub(from_held);
        if release > 0 {
            sink.put(self.held.get(..release).unwrap_or_default());
            self.held.copy_within(release..self.held_len, 0);
            self.held_len = from_held;
        }
        if *run_start < back.at {
            kept.put_run(*run_start, back.at, sink);
        }
        *run_start = back.at;
        back
    }

    /// The pending run ends at `end` (a dropped code point, the end of a piece or
    /// a block): emits it, with the held bytes, except the bytes that may still
    /// begin a marker (the state's depth), which are copied to `held`.
    #[inline(always)]
    fn flush<S: Sink, K: Kept<S> + ?Sized>(
        &mut self,
        kept: &K,
        end: usize,
        run_start: &mut usize,
        sink: &mut S,
    ) {
        let depth = info_marker_depth(self.auto.info(self.state));
        if depth == 0 && self.held_len == 0 {
            if *run_start < end {
                kept.put_run(*run_start, end, sink);
            }
            *run_start = end;
            return;
        }
        self.flush_held(kept, end, depth, run_start, sink);
    }

    #[inline(never)]
    fn flush_held<S: Sink, K: Kept<S> + ?Sized>(
        &mut self,
        kept: &K,
        end: usize,
        depth: usize,
        run_start: &mut usize,
        sink: &mut S,
    ) {
        let back = self.release(kept, end, depth, run_start, sink);
        let spare = self.held.get_mut(self.held_len..).unwrap_or_default();
        let copied = kept.copy_kept(back.at, end, spare);
        // At most a marker's beginning is held (23 bytes of 32): a byte left out
        // would be a hole, and the record is refused.
        self.fault |= copied != back.taken;
        self.held_len = self.held_len.saturating_add(copied);
        *run_start = end;
    }

    /// Re-enters the automaton after the idle scan skipped `bytes[from..at]`: kept
    /// text without a literal's first byte or the marker anchor, so only a marker's
    /// beginning (at most [`MARKER_RESYNC_LEN`] bytes) can be in progress. The
    /// skipped bytes are in the pending run, so the state alone says what is held.
    #[inline]
    fn resync(&mut self, bytes: &[u8], from: usize, at: usize) {
        if self.auto.step(0, MARKER_FIRST) == 0 {
            // An automaton without markers ([`NoPatterns`]) has none to resume.
            return;
        }
        let start = at.saturating_sub(MARKER_RESYNC_LEN).max(from);
        let tail = bytes.get(start..at).unwrap_or_default();
        let Some(first) = tail.iter().position(|&b| b | 0x20 == MARKER_FIRST) else {
            return;
        };
        let mut state = 0u16;
        for &b in tail.get(first..).unwrap_or_default() {
            state = self.auto.step(state, b);
        }
        // The tail holds no literal's first byte and no anchor: no marker ends in
        // it, and no literal.
        self.found |= (self.auto.info(state) & INFO_LITERALS) as u8;
        self.state = state;
    }

    /// After a dropped code point at `*at` (with nothing of the piece pending:
    /// `*run_start == *at`), takes whole blocks while they keep dropping something.
    /// The automaton steps over each block's kept bytes (from its root, only over
    /// those that leave it) and the sink sees the kept text, as it would have one
    /// code point at a time; the sink's block rule decides whether the bytes are
    /// packed or only measured.
    #[inline]
    fn dense<S: Sink>(
        &mut self,
        bytes: &[u8],
        at: &mut usize,
        run_start: &mut usize,
        sink: &mut S,
    ) {
        while !sink.is_full() {
            let Some(block) = sink.take_block(&self.dropper, bytes, *at, self.leaves_root) else {
                return;
            };
            let window = bytes.get(*at..).unwrap_or_default();
            let keep = block.keep();
            let marks = block.marks();
            let kept = InBlock {
                block: &block,
                window,
            };
            let mut start = 0;
            let mut rest = keep;
            while rest != 0 {
                if self.state == 0 {
                    // The automaton stays at its root on bytes that begin nothing:
                    // go to the next marked one.
                    let next = marks & rest;
                    if next == 0 {
                        break;
                    }
                    rest &= u64::MAX << (next.trailing_zeros() & 63);
                }
                let i = rest.trailing_zeros() as usize;
                rest &= rest.wrapping_sub(1);
                let Some(b) = block.byte(window, i) else {
                    // A kept position is inside the block: unreachable, and
                    // refused if reached.
                    self.fault = true;
                    return;
                };
                self.feed(&kept, b, i, &mut start, sink);
            }
            // The block's buffer does not outlive this step.
            self.flush(&kept, 64, &mut start, sink);
            let consumed = block.consumed();
            *at = at.saturating_add(consumed);
            *run_start = *at;
            if keep.count_ones() as usize == consumed {
                return;
            }
            self.dropped = true;
        }
    }

    /// Processes one piece of whole code points.
    fn push_str<S: Sink>(&mut self, piece: &str, sink: &mut S) {
        let bytes = piece.as_bytes();
        let len = bytes.len();
        let mut run_start = 0;
        let mut at = 0;
        // A scanner caches blocks of one piece, so each piece gets its own.
        let mut scanner = Scanner::new(self.stops, self.backend);
        while at < len {
            if self.state == 0 {
                let from = at;
                let first_bytes = self.first_bytes;
                at = scanner.next(bytes, at, |i, b| {
                    // ASCII stops are all decisions (a dropped control, a literal's
                    // first byte, the anchor); a multi-byte one may be kept.
                    b < 0x80
                        || first_bytes.contains(b)
                        || char_at(piece, i).is_some_and(|c| {
                            is_dangerous_invisible(c) || is_variation_selector(c) || is_control(c)
                        })
                });
                if at > from {
                    self.resync(bytes, from, at);
                }
                if at >= len {
                    break;
                }
            }
            // A decision at `at`; then kept ASCII while the automaton is busy.
            let Some(&b) = bytes.get(at) else {
                // `at < len`: unreachable, and refused if reached.
                self.fault = true;
                break;
            };
            if b < 0x80 {
                if is_dropped_ascii(b) {
                    self.flush(bytes, at, &mut run_start, sink);
                    self.dropped = true;
                    at = at.saturating_add(1);
                    run_start = at;
                    self.dense(bytes, &mut at, &mut run_start, sink);
                    continue;
                }
                self.feed(bytes, b, at, &mut run_start, sink);
                at = at.saturating_add(1);
                while self.state != 0 {
                    // Busy on kept ASCII: along a literal's chain (nothing reported
                    // on it) in one compare, then one byte where it ends.
                    let (state, next) = self.auto.chain(self.state, bytes, at);
                    self.state = state;
                    at = next;
                    match bytes.get(at) {
                        Some(&b) if KEPT_ASCII.contains(b) => {
                            self.feed(bytes, b, at, &mut run_start, sink);
                            at = at.saturating_add(1);
                        }
                        _ => break,
                    }
                }
            } else {
                let Some(c) = char_at(piece, at) else {
                    // Every stop is a code-point boundary: unreachable, and refused
                    // if reached.
                    self.fault = true;
                    break;
                };
                let end = at.saturating_add(c.len_utf8());
                let prev = self.prev;
                let dropped = drops_non_ascii(c, || {
                    if at == 0 {
                        prev
                    } else {
                        piece.get(..at).and_then(|s| s.chars().next_back())
                    }
                });
                if dropped {
                    self.flush(bytes, at, &mut run_start, sink);
                    self.dropped = true;
                    run_start = end;
                } else {
                    for (k, &b) in bytes.get(at..end).unwrap_or_default().iter().enumerate() {
                        self.feed(bytes, b, at.saturating_add(k), &mut run_start, sink);
                    }
                }
                at = end;
                if dropped {
                    self.dense(bytes, &mut at, &mut run_start, sink);
                }
            }
            if sink.is_full() {
                break;
            }
        }
        // The piece's bytes do not outlive this call: what may still begin a
        // marker is copied to `held`.
        self.flush(bytes, at.min(len), &mut run_start, sink);
        if let Some(last) = piece.chars().next_back() {
            self.prev = Some(last);
        }
    }

    /// Ends the text: held bytes were no marker.
    fn finish<S: Sink>(&mut self, sink: &mut S) {
        if self.held_len > 0 {
            sink.put(self.held.get(..self.held_len).unwrap_or_default());
            self.held_len = 0;
        }
    }
}

/// `sanitizeProse(text, {field, maxBytes})` with the default wrapper literals, into
/// `out`. Nothing is written unless the whole result fits; [`worst_case_len`] sizes
/// a buffer that always does.
pub fn sanitize_prose<'a, 'o>(
    text: &str,
    field: &'a str,
    max_bytes: usize,
    out: &'o mut [u8],
) -> Result<Prose<'o>, ProseError<'a>> {
    sanitize_prose_with(text, field, max_bytes, &LiteralSet::DEFAULT, out)
}

/// [`sanitize_prose`] with another set of forgery literals.
pub fn sanitize_prose_with<'a, 'o>(
    text: &str,
    field: &'a str,
    max_bytes: usize,
    literals: &'a LiteralSet<'a>,
    out: &'o mut [u8],
) -> Result<Prose<'o>, ProseError<'a>> {
    sanitize_prose_on(Backend::best(), text, field, max_bytes, literals, out)
}

/// [`sanitize_prose_with`] on a given backend.
#[doc(hidden)]
pub fn sanitize_prose_on<'a, 'o>(
    backend: Backend,
    text: &str,
    field: &'a str,
    max_bytes: usize,
    literals: &'a LiteralSet<'a>,
    out: &'o mut [u8],
) -> Result<Prose<'o>, ProseError<'a>> {
    match literals.automaton() {
        AnyAutomaton::Dense(d) => sanitize_on(d, text, field, max_bytes, literals, out, backend),
        AnyAutomaton::Trie(t) => sanitize_on(t, text, field, max_bytes, literals, out, backend),
    }
}

fn sanitize_on<'a, 'o, A: Automaton + Copy>(
    auto: A,
    text: &str,
    field: &'a str,
    max_bytes: usize,
    literals: &'a LiteralSet<'a>,
    out: &'o mut [u8],
    backend: Backend,
) -> Result<Prose<'o>, ProseError<'a>> {
    let internal = || ProseError::Rejected(Rejection::internal(field));
    let walk = || Engine::of_set(auto, literals, backend);
    // First pass: the walk into a counting sink, for the verdict and the length
    // after redaction.
    let mut count = Count::default();
    let mut counted = walk();
    counted.push_str(text, &mut count);
    counted.finish(&mut count);
    if counted.fault {
        return Err(internal());
    }
    if let Some(literal) = literals.first_of(counted.found) {
        return Err(ProseError::Rejected(Rejection::forgery(field, literal)));
    }
    let original_bytes = count.len;
    let truncated = original_bytes > max_bytes;
    let note = TruncationNote {
        original_bytes,
        max_bytes,
    };
    let needed = if truncated {
        max_bytes.saturating_add(note.len())
    } else {
        original_bytes
    };
    if out.len() < needed {
        return Err(ProseError::BufferTooSmall(BufferTooSmall { needed }));
    }
    let changed = counted.dropped || counted.redacted;
    if !(changed || truncated) {
        // The walk kept every byte and redacted nothing: the text is its own
        // result, copied.
        return backend
            .copy_str(out, text)
            .map(|text| Prose {
                text,
                truncated,
                original_bytes,
            })
            .ok_or_else(internal);
    }
    let mut writer = CapWriter::new(out, max_bytes, true, backend);
    if changed {
        // Second pass: the same walk into the writing sink, which stops at the cap.
        // Both passes are this code over the same text, so the writer is handed
        // the runs the count added up (all of them, or those up to the cut); what
        // can still go wrong is the buffer, which the writer reports as a fault.
        // The final output covers the body up to the cut (at most three bytes short
        // of the cap) or all of it.
        writer.covered = if truncated {
            max_bytes.saturating_sub(3)
        } else {
            original_bytes
        };
        if counted.redacted {
            let mut written = walk();
            written.push_str(text, &mut writer);
            written.finish(&mut writer);
            writer.fault |= written.fault;
        } else {
            // No marker: the walk without patterns (see [`NoPatterns`]).
            let mut written = Engine::new(NoPatterns, &DROP_STOPS, ByteSet::EMPTY, None, backend);
            written.push_str(text, &mut writer);
            written.finish(&mut writer);
            writer.fault |= written.fault;
        }
    } else {
        let end = floor_char_boundary(text, max_bytes);
        writer.put(text.as_bytes().get(..end).unwrap_or_default());
    }
    writer.conclude(original_bytes).ok_or_else(internal)
}

/// A fixed buffer large enough for any truncation note.
struct NoteBuf {
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
    fn as_str(&self, backend: Backend) -> Option<&str> {
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

/// The buffer size [`ProseStream`] needs for a cap of `max_bytes`: the cap plus the
/// longest possible note.
pub fn stream_buffer_len(max_bytes: usize) -> usize {
    let note = TruncationNote {
        original_bytes: usize::MAX,
        max_bytes,
    };
    max_bytes.saturating_add(note.len())
}

/// Bytes a draining [`ProseStream`] keeps free beside one slice's output: what
/// the engine holds back (a marker's or literal's prefix), a carried code point
/// and the truncation note.
const DRAIN_SLACK: usize = 1024;

/// The smallest buffer of a draining [`ProseStream`] ([`ProseStream::draining`]).
pub const DRAIN_BUFFER_LEN: usize = 4 * DRAIN_SLACK;

/// Errors of [`ProseStream`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StreamError<'a> {
    /// The input is not UTF-8.
    Utf8(Utf8Error),
    /// The record is rejected.
    Rejected(Rejection<'a>),
}

impl fmt::Display for StreamError<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StreamError::Utf8(e) => e.fmt(f),
            StreamError::Rejected(r) => r.fmt(f),
        }
    }
}

impl core::error::Error for StreamError<'_> {}

/// `sanitize_prose` over a byte stream fed in chunks of any size. It keeps at most the
/// capped output (in the caller's buffer) and a few bytes of state, so input of any
/// size runs in constant memory; the result is known once the whole input is seen,
/// because a forgery anywhere rejects the record.
pub struct ProseStream<'a, 'o> {
    field: &'a str,
    literals: &'a LiteralSet<'a>,
    engine: Engine<'a, AnyAutomaton<'a>>,
    utf8: Utf8Stream,
    writer: CapWriter<'o>,
}

impl<'a, 'o> ProseStream<'a, 'o> {
    /// A stream for `field` with cap `max_bytes`, keeping its output in `buf`.
    /// Fails when `buf` is shorter than [`stream_buffer_len`]`(max_bytes)`.
    pub fn new(
        field: &'a str,
        max_bytes: usize,
        literals: &'a LiteralSet<'a>,
        buf: &'o mut [u8],
    ) -> Result<Self, BufferTooSmall> {
        ProseStream::new_on(Backend::best(), field, max_bytes, literals, buf)
    }

    /// [`ProseStream::new`] on a given backend.
    #[doc(hidden)]
    pub fn new_on(
        backend: Backend,
        field: &'a str,
        max_bytes: usize,
        literals: &'a LiteralSet<'a>,
        buf: &'o mut [u8],
    ) -> Result<Self, BufferTooSmall> {
        let needed = stream_buffer_len(max_bytes);
        if buf.len() < needed {
            return Err(BufferTooSmall { needed });
        }
        Ok(ProseStream::with(backend, field, max_bytes, literals, buf))
    }

    fn with(
        backend: Backend,
        field: &'a str,
        max_bytes: usize,
        literals: &'a LiteralSet<'a>,
        buf: &'o mut [u8],
    ) -> Self {
        ProseStream {
            field,
            literals,
            engine: Engine::of_set(literals.automaton(), literals, backend),
            utf8: Utf8Stream::new(),
            writer: CapWriter::new(buf, max_bytes, false, backend),
        }
    }

    /// Feeds the next chunk.
    pub fn feed(&mut self, chunk: &[u8]) -> Result<(), StreamError<'a>> {
        let engine = &mut self.engine;
        let writer = &mut self.writer;
        self.utf8
            .feed(chunk, |piece| engine.push_str(piece, writer))
            .map_err(StreamError::Utf8)
    }

    /// Feeds the next chunk and hands the output it completes to `emit` as it goes,
    /// so the stream's buffer holds a slice of the output, not all of it: a stream
    /// fed only this way runs in constant memory whatever the cap, with a buffer
    /// of [`DRAIN_BUFFER_LEN`] bytes or more (created with
    /// [`ProseStream::draining`]). The output is final when handed out, but the
    /// verdict comes at [`ProseStream::finish`] (whose text is then what followed
    /// the last piece handed out, and the note): a caller that must write nothing
    /// of a rejected record runs the input twice, discarding the first run's output.
    pub fn feed_emitting(
        &mut self,
        chunk: &[u8],
        mut emit: impl FnMut(&str),
    ) -> Result<(), StreamError<'a>> {
        // Input slices whose worst-case output (redaction grows 21 bytes to 26)
        // fits the buffer beside what the engine holds back and the note.
        let room = self.writer.out.len().saturating_sub(DRAIN_SLACK);
        let step = (room / 26).saturating_mul(21).max(1);
        for part in chunk.chunks(step) {
            self.feed(part)?;
            let written = self.writer.out.get(..self.writer.len).unwrap_or_default();
            if !written.is_empty() {
                // The writer copies whole code points: anything else is a fault,
                // and the record is refused.
                let Ok(text) = self.writer.backend.to_str(written) else {
                    return Err(StreamError::Rejected(Rejection::internal(self.field)));
                };
                emit(text);
            }
            self.writer.drained = self.writer.drained.saturating_add(self.writer.len);
            self.writer.len = 0;
        }
        Ok(())
    }

    /// A stream for `field` with cap `max_bytes` to be fed with
    /// [`ProseStream::feed_emitting`] only; `buf` needs [`DRAIN_BUFFER_LEN`] bytes
    /// whatever the cap (more makes fewer, larger pieces).
    pub fn draining(
        field: &'a str,
        max_bytes: usize,
        literals: &'a LiteralSet<'a>,
        buf: &'o mut [u8],
    ) -> Result<Self, BufferTooSmall> {
        if buf.len() < DRAIN_BUFFER_LEN {
            return Err(BufferTooSmall {
                needed: DRAIN_BUFFER_LEN,
            });
        }
        Ok(ProseStream::with(
            Backend::best(),
            field,
            max_bytes,
            literals,
            buf,
        ))
    }

    /// Ends the input and returns the sanitized text.
    pub fn finish(mut self) -> Result<Prose<'o>, StreamError<'a>> {
        self.utf8.finish().map_err(StreamError::Utf8)?;
        self.engine.finish(&mut self.writer);
        let internal = StreamError::Rejected(Rejection::internal(self.field));
        if self.engine.fault || self.writer.fault {
            return Err(internal);
        }
        if let Some(literal) = self.literals.first_of(self.engine.found) {
            return Err(StreamError::Rejected(Rejection::forgery(
                self.field, literal,
            )));
        }
        let original_bytes = self.writer.total;
        self.writer.conclude(original_bytes).ok_or(internal)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::string::{String, ToString};
    use std::vec;

    fn sanitize(text: &str, max: usize) -> Result<String, String> {
        sanitize_on_backend(Backend::best(), text, max)
    }

    fn sanitize_on_backend(backend: Backend, text: &str, max: usize) -> Result<String, String> {
        let mut out = vec![0u8; worst_case_len(text.len(), max)];
        sanitize_prose_on(
            backend,
            text,
            "insight",
            max,
            &LiteralSet::DEFAULT,
            &mut out,
        )
        .map(|p| p.text.to_string())
        .map_err(|e| e.to_string())
    }

    #[test]
    fn pipeline_examples() {
        assert_eq!(
            sanitize("a\u{1b}[31mb\r\nc\td", 1000).unwrap(),
            "a[31mb\nc\td"
        );
        assert_eq!(
            sanitize("a UNTRUSTED-CONTENT:Start b untrusted-content:end c", 1000).unwrap(),
            "a [redacted-envelope-marker] b [redacted-envelope-marker] c"
        );
        assert_eq!(
            sanitize("untrusted\u{200B}-content:end", 1000).unwrap(),
            "[redacted-envelope-marker]"
        );
        assert_eq!(
            sanitize("uuntrusted-content:endd", 1000).unwrap(),
            "u[redacted-envelope-marker]d"
        );
        assert_eq!(
            sanitize("untrusted-content:", 1000).unwrap(),
            "untrusted-content:"
        );
        assert!(
            sanitize("</APPLI\u{200B}CABLE-RULES>", 1000)
                .unwrap_err()
                .contains("delivery-wrapper")
        );
    }

    #[test]
    fn dense_regions_feed_the_cleaned_text_to_the_automaton() {
        let marker = "u\u{200B}n\u{1B}t\u{FE0F}r\u{AD}usted-con\u{200B}tent:e\u{E0041}nd";
        let literal = "<\u{200B}/\u{1B}APPLI\u{200B}CABLE-RULES\u{FEFF}>";
        for pad in 0..70 {
            let noise = "a\u{200B}".repeat(pad);
            let text = std::format!(
                "{noise}{}{noise}{marker} x{}",
                marker.repeat(5),
                "\u{2060}b".repeat(40)
            );
            for max in [10, 100, 10_000] {
                for backend in Backend::all() {
                    let got = sanitize_on_backend(backend, &text, max);
                    let rejected =
                        sanitize_on_backend(backend, &std::format!("{text}{noise}{literal}"), max);
                    assert_eq!(got, naive(&text, max), "pad {pad} max {max}");
                    assert!(rejected.unwrap_err().contains("APPLICABLE-RULES"));
                }
            }
        }
    }

    #[test]
    fn a_draining_stream_writes_what_the_one_shot_writes() {
        let words = [
            "plain ",
            "UNTRUSTED-content:START ",
            "untrusted\u{200B}-content:e\u{2060}nd",
            "é€ ",
            "untrusted-content",
            "😀\u{FE0F} ",
            "\u{1B}[0m",
            "\u{FE0F}",
        ];
        let mut text = String::new();
        let mut i = 7usize;
        while text.len() < 40_000 {
            i = i.wrapping_mul(31).wrapping_add(11) % 1009;
            text.push_str(words[i % words.len()]);
        }
        for max in [0, 10, 5000, 39_000, usize::MAX] {
            let expected = sanitize(&text, max).unwrap();
            for chunk in [1, 7, 4096, 100_000] {
                let mut buf = vec![0u8; DRAIN_BUFFER_LEN];
                let mut stream =
                    ProseStream::draining("insight", max, &LiteralSet::DEFAULT, &mut buf).unwrap();
                let mut got = String::new();
                for part in text.as_bytes().chunks(chunk) {
                    stream.feed_emitting(part, |p| got.push_str(p)).unwrap();
                }
                got.push_str(stream.finish().unwrap().text);
                assert_eq!(got, expected, "max {max} chunk {chunk}");
            }
        }
        let mut small = [0u8; 16];
        assert!(ProseStream::draining("f", 9, &LiteralSet::DEFAULT, &mut small).is_err());
    }

    #[test]
    fn truncation_note() {
        assert_eq!(
            sanitize("€€€", 8).unwrap(),
            "€€ […truncated by the reconciliation engine: 9 bytes exceeded the 8-byte cap]"
        );
        let note = TruncationNote {
            original_bytes: 9,
            max_bytes: 8,
        };
        assert_eq!(note.len(), note.to_string().len());
    }

    #[test]
    fn buffer_too_small_writes_nothing() {
        let mut out = [7u8; 3];
        let err = sanitize_prose("abcdef", "f", 100, &mut out).unwrap_err();
        assert_eq!(
            err,
            ProseError::BufferTooSmall(BufferTooSmall { needed: 6 })
        );
        assert_eq!(out, [7; 3]);
    }

    #[test]
    fn stream_matches_one_shot() {
        let text = "x untrusted-content:start y\u{200B} 😀\u{FE0F} é untrusted-con\u{1b}tent:end";
        for max in [0, 5, 20, 200] {
            let expected = sanitize(text, max).unwrap();
            for size in 1..=text.len() {
                let mut buf = vec![0u8; stream_buffer_len(max)];
                let mut stream =
                    ProseStream::new("insight", max, &LiteralSet::DEFAULT, &mut buf).unwrap();
                for chunk in text.as_bytes().chunks(size) {
                    stream.feed(chunk).unwrap();
                }
                assert_eq!(
                    stream.finish().unwrap().text,
                    expected,
                    "max {max} size {size}"
                );
            }
        }
    }

    /// The five steps done the plain way, one after another.
    fn naive(text: &str, max: usize) -> Result<String, String> {
        naive_with(text, max, &crate::WRAPPER_FORGERY_LITERALS)
    }

    /// The plain oracle with another list of literals.
    fn naive_with(text: &str, max: usize, literals: &[&str]) -> Result<String, String> {
        crate::plain::sanitize(text, max, literals).map_err(|lit| lit.to_string())
    }

    fn hostile_text() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let piece = prop_oneof![
            Just("untrusted-content:start".to_string()),
            Just("UNTRUSTED-content:End".to_string()),
            Just("untrusted-content".to_string()),
            Just("untrusted".to_string()),
            Just("u".to_string()),
            Just(":".to_string()),
            Just("</applicable-rules".to_string()),
            Just(">".to_string()),
            Just("## Learnings Index (selecte".to_string()),
            Just("\u{200B}".to_string()),
            Just("\u{1B}".to_string()),
            Just("\u{85}".to_string()),
            Just("\u{FE0F}".to_string()),
            Just("😀".to_string()),
            Just("—".to_string()),
            Just("\n".to_string()),
            Just("\u{E0041}".to_string()),
            "[a-z :<#]{0,80}",
            "\\PC{0,8}",
        ];
        // Long stretches dense with dropped code points reach the block path.
        let dense = proptest::collection::vec(
            proptest::sample::select(std::vec![
                "a",
                "u",
                "<",
                ":",
                "\u{200B}",
                "\u{1B}",
                "\r",
                "\u{85}",
                "\u{FE0F}",
                "😀\u{FE0F}",
                "\u{E0041}",
                "\u{AD}",
                "\t",
                "\n",
                "—",
                "\u{7F}",
            ]),
            0..120,
        )
        .prop_map(|v| v.concat());
        let piece = prop_oneof![4 => piece, 1 => dense];
        proptest::collection::vec(piece, 0..24).prop_map(|v| v.concat())
    }

    /// `word` with a dropped code point (or none) between its bytes, chosen by
    /// `seed`: markers and literals split by invisibles and controls.
    fn split_by_drops(word: &str, seed: u64) -> String {
        const DROPS: [&str; 8] = [
            "\u{200B}",
            "\u{1B}",
            "\u{AD}",
            "\u{E0041}",
            "\u{FEFF}",
            "\r",
            "\u{85}",
            "\u{2066}",
        ];
        let mut out = String::new();
        let mut x = seed | 1;
        for c in word.chars() {
            out.push(c);
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            if x.is_multiple_of(3) {
                out.push_str(DROPS[(x >> 8) as usize % DROPS.len()]);
            }
        }
        out
    }

    /// Text built to reach the specialised passes: dense drop regions long enough
    /// for whole blocks, markers and literals split by dropped code points, chains
    /// broken at every position, long clean stretches.
    fn specialised_text() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let word = proptest::sample::select(std::vec![
            "untrusted-content:start",
            "UNTRUSTED-CONTENT:END",
            "untrusted-content:",
            "</APPLICABLE-RULE",
            "</APPLICABLE-RULES>",
            "</applicable-rules",
            "## Learnings Index (selecte",
            "## Learnings Index (selected",
            "</LEARNINGS-INDEX",
            "</",
            "##",
            "u",
        ]);
        let piece = prop_oneof![
            3 => (word.clone(), any::<u64>()).prop_map(|(w, seed)| split_by_drops(w, seed)),
            2 => word.prop_map(String::from),
            2 => (proptest::sample::select(std::vec!["a\u{200B}", "u\u{1B}", "<\u{AD}", ":\u{E0041}", "😀\u{FE0F}", "\u{FE0F}", "é\u{2060}"]), 1usize..60)
                .prop_map(|(p, n)| p.repeat(n)),
            1 => "[a-zA-Z <>/#:()-]{0,140}",
            1 => (0usize..200).prop_map(|n| "x".repeat(n)),
        ];
        proptest::collection::vec(piece, 0..16).prop_map(|v| v.concat())
    }

    /// Sanitize on every backend, compared with [`naive_with`]; `Err` is the length
    /// of the rejected literal.
    fn check_all_backends(
        text: &str,
        max: usize,
        set: &LiteralSet<'_>,
    ) -> Result<(), proptest::test_runner::TestCaseError> {
        let expected = naive_with(text, max, set.literals()).map_err(|lit| lit.len());
        for backend in Backend::all() {
            let mut out = vec![0u8; worst_case_len(text.len(), max)];
            let got = sanitize_prose_on(backend, text, "insight", max, set, &mut out)
                .map(|p| p.text.to_string())
                .map_err(|e| match e {
                    ProseError::Rejected(r) => {
                        let msg = r.to_string();
                        set.literals()
                            .iter()
                            .filter(|l| msg.contains(*l))
                            .map(|l| l.len())
                            .max()
                            .unwrap_or(0)
                    }
                    ProseError::BufferTooSmall(_) => usize::MAX,
                });
            proptest::prop_assert_eq!(&got, &expected, "{}", backend.name());
            // The exact size is enough (uncut: a cut may need the whole cap); one
            // byte less writes nothing.
            if let Ok(done) = &got {
                if done.len() <= max {
                    let mut exact = vec![0u8; done.len()];
                    let again = sanitize_prose_on(backend, text, "insight", max, set, &mut exact);
                    proptest::prop_assert_eq!(again.map(|p| p.text), Ok(done.as_str()));
                }
                if !done.is_empty() {
                    let mut short = vec![0xAAu8; done.len() - 1];
                    let err = sanitize_prose_on(backend, text, "insight", max, set, &mut short);
                    proptest::prop_assert!(matches!(err, Err(ProseError::BufferTooSmall(_))));
                    proptest::prop_assert!(short.iter().all(|&b| b == 0xAA));
                }
            }
        }
        Ok(())
    }

    #[test]
    fn counting_pass_measures_what_the_writing_pass_writes() {
        let text = "a\u{200B}untrusted-content:end b UNTRUSTED-\u{1B}content:start\r";
        let expected = "a[redacted-envelope-marker] b [redacted-envelope-marker]";
        for backend in Backend::all() {
            let set = &LiteralSet::DEFAULT;
            let walk = || Engine::of_set(set.automaton(), set, backend);
            let mut count = Count::default();
            let mut counted = walk();
            counted.push_str(text, &mut count);
            counted.finish(&mut count);
            assert_eq!(count.len, expected.len(), "{}", backend.name());
            assert!(counted.dropped && counted.redacted && !counted.fault);
            assert_eq!(counted.found, 0);
            let mut out = vec![0u8; 100];
            let mut writer = CapWriter::new(&mut out, usize::MAX, true, backend);
            let mut written = walk();
            written.push_str(text, &mut writer);
            written.finish(&mut writer);
            assert_eq!((writer.len, writer.fault), (expected.len(), false));
            assert_eq!(&out[..expected.len()], expected.as_bytes());
        }
    }

    #[test]
    fn block_bits() {
        assert_eq!(bits(0, 0), 0);
        assert_eq!(bits(0, 64), u64::MAX);
        assert_eq!(bits(3, 5), 0b11000);
        assert_eq!(bits(63, 64), 1 << 63);
        assert_eq!(bits(64, 64), 0);
    }

    proptest::proptest! {
        #[test]
        fn specialised_passes_match_naive(text in specialised_text(), cut in 0usize..1000) {
            // Caps anywhere, including inside markers and their redactions.
            let cleaned_len = naive(&text, usize::MAX).map(|t| t.len()).unwrap_or(0);
            for max in [cut % (cleaned_len + 2), cut, usize::MAX / 2] {
                check_all_backends(&text, max, &LiteralSet::DEFAULT)?;
            }
            check_all_backends(&text, cut, &LiteralSet::EMPTY)?;
            // A custom set runs the trie (no chains).
            let custom = ["</applicable-rule", "index (sel", "t:e"];
            check_all_backends(&text, cut, &LiteralSet::new(&custom).unwrap())?;
        }

        #[test]
        fn specialised_stream_matches_one_shot(text in specialised_text(), max in 0usize..600, size in 1usize..90) {
            let Ok(expected) = naive(&text, max) else { return Ok(()) };
            for backend in Backend::all() {
                let mut buf = vec![0u8; stream_buffer_len(max)];
                let mut stream =
                    ProseStream::new_on(backend, "insight", max, &LiteralSet::DEFAULT, &mut buf)
                        .unwrap();
                for chunk in text.as_bytes().chunks(size) {
                    stream.feed(chunk).unwrap();
                }
                proptest::prop_assert_eq!(stream.finish().unwrap().text, expected.as_str());
            }
        }

        #[test]
        fn one_shot_matches_naive(text in hostile_text(), max in 0usize..400) {
            let expected = naive(&text, max).map_err(|lit| lit.len());
            for backend in Backend::all() {
                let got = sanitize_on_backend(backend, &text, max).map_err(|e| {
                    crate::WRAPPER_FORGERY_LITERALS
                        .iter()
                        .find(|l| e.contains(*l))
                        .map_or(0, |l| l.len())
                });
                proptest::prop_assert_eq!(&got, &expected, "{}", backend.name());
            }
        }

        #[test]
        fn stream_matches_naive(text in hostile_text(), max in 0usize..400, size in 1usize..80) {
            let Ok(expected) = naive(&text, max) else { return Ok(()) };
            for backend in Backend::all() {
                let mut buf = vec![0u8; stream_buffer_len(max)];
                let mut stream =
                    ProseStream::new_on(backend, "insight", max, &LiteralSet::DEFAULT, &mut buf)
                        .unwrap();
                for chunk in text.as_bytes().chunks(size) {
                    stream.feed(chunk).unwrap();
                }
                proptest::prop_assert_eq!(stream.finish().unwrap().text, expected.as_str());
            }
        }
    }
}
