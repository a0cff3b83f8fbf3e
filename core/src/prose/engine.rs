//! The walk (`Engine`): the five steps over pieces of whole code points, generic
//! over its sink.

use super::sink::{Back, Block, BlockSink, InBlock, Kept};
use crate::class::{is_control, is_dangerous_invisible, is_stripped, is_variation_selector};
use crate::forgery::{
    Automaton, INFO_LITERALS, INFO_MARKER_END, LiteralSet, MARKER_FIRST, MARKER_REDACTION,
    MARKER_RESYNC_LEN, info_marker_depth,
};
use crate::scan::{Backend, ByteSet, DropRule, Dropper, Finder, Scanner, char_at};

/// ASCII bytes prose keeps (all but the controls other than TAB and LF).
pub(super) const KEPT_ASCII: ByteSet = {
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
pub(super) const fn is_dropped_ascii(b: u8) -> bool {
    (b < 0x20 && b != b'\t' && b != b'\n') || b == 0x7F
}

/// Whether prose drops the non-ASCII code point `c`; `prev` yields its predecessor
/// in the original input (needed for U+FE0F only).
#[inline]
pub(super) fn drops_non_ascii(c: char, prev: impl FnOnce() -> Option<char>) -> bool {
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
pub(super) struct NoPatterns;

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
pub(super) static DROP_STOPS: Finder = Finder::new(ByteSet::PROSE_ATTENTION).refined();

/// The five steps over text arriving in pieces of whole code points: drops code
/// points, feeds the kept bytes to the automaton of literals and markers, holds the
/// bytes that may still become a marker, and reports runs of kept text to a sink.
#[derive(Clone, Debug)]
pub(super) struct Engine<'l, A: Automaton> {
    pub(super) auto: A,
    pub(super) state: u16,
    /// Literals found so far (bit `i`: literal `i`).
    pub(super) found: u8,
    /// Kept bytes of earlier pieces and blocks not yet emitted: those that may
    /// begin a marker, and those before them not yet released (see [`Engine::flush`]).
    pub(super) held: [u8; 32],
    pub(super) held_len: usize,
    /// The code point before the current piece in the original input.
    pub(super) prev: Option<char>,
    /// Bytes where the idle scan stops: droppable lead bytes, literal first bytes, the
    /// marker anchor.
    pub(super) stops: &'l Finder,
    /// Literal first bytes (a non-ASCII one is a stop even when no attention).
    pub(super) first_bytes: ByteSet,
    /// Whether any code point was dropped, any marker redacted.
    pub(super) dropped: bool,
    pub(super) redacted: bool,
    /// Dense drop regions.
    pub(super) dropper: Dropper,
    /// Bytes on which the automaton leaves its root: literal first bytes and the
    /// markers' first byte; `None` for an automaton without patterns.
    pub(super) leaves_root: Option<&'l Finder>,
    /// The walk met a state it treats as impossible (a position off a code-point
    /// boundary): its output must be refused.
    pub(super) fault: bool,
    pub(super) backend: Backend,
}

impl<'l, A: Automaton> Engine<'l, A> {
    /// The walk of `set`'s literals and the markers.
    pub(super) fn of_set(auto: A, set: &'l LiteralSet<'l>, backend: Backend) -> Self {
        Engine::new(
            auto,
            set.prose_stops(),
            set.first_bytes(),
            Some(set.leaves_root()),
            backend,
        )
    }

    pub(super) fn new(
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
    fn feed<S: BlockSink, K: Kept<S> + ?Sized>(
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
    fn report<S: BlockSink, K: Kept<S> + ?Sized>(
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
        sink.replacement(MARKER_REDACTION);
        self.held_len = 0;
        self.redacted = true;
        *run_start = here.saturating_add(1);
    }

    /// Emits the held bytes and the pending run `run_start..end` except their last
    /// `keep` bytes; returns those of the run (where they begin, how many). The
    /// kept ones of `held` stay at its start.
    #[inline]
    fn release<S: BlockSink, K: Kept<S> + ?Sized>(
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
            self.put_held(release, sink);
            self.held.copy_within(release..self.held_len, 0);
            self.held_len = from_held;
        }
        if *run_start < back.at {
            self.fault |= !kept.put_run(*run_start, back.at, sink);
        }
        *run_start = back.at;
        back
    }

    /// The pending run ends at `end` (a dropped code point, the end of a piece or
    /// a block): emits it, with the held bytes, except the bytes that may still
    /// begin a marker (the state's depth), which are copied to `held`.
    #[inline(always)]
    fn flush<S: BlockSink, K: Kept<S> + ?Sized>(
        &mut self,
        kept: &K,
        end: usize,
        run_start: &mut usize,
        sink: &mut S,
    ) {
        let depth = info_marker_depth(self.auto.info(self.state));
        if depth == 0 && self.held_len == 0 {
            if *run_start < end {
                self.fault |= !kept.put_run(*run_start, end, sink);
            }
            *run_start = end;
            return;
        }
        self.flush_held(kept, end, depth, run_start, sink);
    }

    #[inline(never)]
    fn flush_held<S: BlockSink, K: Kept<S> + ?Sized>(
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
    fn dense<S: BlockSink>(
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
    pub(super) fn push_str<S: BlockSink>(&mut self, piece: &str, sink: &mut S) {
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
                    self.flush(piece, at, &mut run_start, sink);
                    self.dropped = true;
                    at = at.saturating_add(1);
                    run_start = at;
                    self.dense(bytes, &mut at, &mut run_start, sink);
                    continue;
                }
                self.feed(piece, b, at, &mut run_start, sink);
                at = at.saturating_add(1);
                while self.state != 0 {
                    // Busy on kept ASCII: along a literal's chain (nothing reported
                    // on it) in one compare, then one byte where it ends.
                    let (state, next) = self.auto.chain(self.state, bytes, at);
                    self.state = state;
                    at = next;
                    match bytes.get(at) {
                        Some(&b) if KEPT_ASCII.contains(b) => {
                            self.feed(piece, b, at, &mut run_start, sink);
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
                    self.flush(piece, at, &mut run_start, sink);
                    self.dropped = true;
                    run_start = end;
                } else {
                    for (k, &b) in bytes.get(at..end).unwrap_or_default().iter().enumerate() {
                        self.feed(piece, b, at.saturating_add(k), &mut run_start, sink);
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
        self.flush(piece, at.min(len), &mut run_start, sink);
        if let Some(last) = piece.chars().next_back() {
            self.prev = Some(last);
        }
    }

    /// Hands the first `n` held bytes to `sink`: a marker's beginning (ASCII), so
    /// whole code points; anything else is a fault.
    #[inline(never)]
    fn put_held<S: BlockSink>(&mut self, n: usize, sink: &mut S) {
        match self.held.get(..n).map(core::str::from_utf8) {
            Some(Ok(held)) => sink.text(held),
            _ => self.fault = true,
        }
    }

    /// Ends the text: held bytes were no marker.
    pub(super) fn finish<S: BlockSink>(&mut self, sink: &mut S) {
        if self.held_len > 0 {
            self.put_held(self.held_len, sink);
            self.held_len = 0;
        }
    }
}
