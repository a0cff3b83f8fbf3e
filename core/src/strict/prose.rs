//! Strict `strip` (steps 1–2) and strict `sanitize_prose` (steps 1–6), one-shot and
//! streaming (PROFILE-STRICT §7). Both forms run the same stages over pieces of text,
//! so they compute the same bytes; each stage keeps a bounded hold, so the stream's
//! memory is constant.

use core::fmt::Write;

use super::check::{RULE_REACH, is_dropped_at};
use super::escape::Escapes;
use super::keep::Keeper;
use super::matcher::Matcher;
use super::sink::Sink;
use super::trail::Trail;
use crate::forgery::LiteralSet;
use crate::prose::{NoteBuf, Prose, ProseError, StreamError, TruncationNote, stream_buffer_len};
use crate::reject::Rejection;
use crate::scan::Backend;
use crate::strip::BufferTooSmall;
use crate::truncate::floor_char_boundary;
use crate::utf8::{Utf8Error, Utf8Stream};

/// Steps 1–2 handing their runs to `emit`.
struct StripSink<F: FnMut(&str)>(F);

impl<F: FnMut(&str)> Sink for StripSink<F> {
    #[inline]
    fn text(&mut self, s: &str) {
        (self.0)(s);
    }
}

/// Strict strip over a stream of pieces of whole code points.
#[derive(Clone, Debug)]
pub(crate) struct StripEngine {
    escapes: Escapes,
    keeper: Keeper,
}

impl StripEngine {
    pub(crate) const fn new() -> Self {
        StripEngine {
            escapes: Escapes::new(),
            keeper: Keeper::new(),
        }
    }

    pub(crate) fn push(&mut self, text: &str, emit: impl FnMut(&str)) {
        let mut sink = StripSink(emit);
        let keeper = &mut self.keeper;
        self.escapes.push(text, &mut |s| keeper.push(s, &mut sink));
    }

    /// Steps 1–2 with both stages on `backend`.
    const fn on(backend: Backend) -> Self {
        StripEngine {
            escapes: Escapes::on(backend),
            keeper: Keeper::on(backend),
        }
    }

    /// [`StripEngine::push`] into a sink of its own.
    fn push_into(&mut self, text: &str, sink: &mut impl Sink) {
        let keeper = &mut self.keeper;
        self.escapes.push(text, &mut |s| keeper.push(s, sink));
    }

    /// [`StripEngine::finish`] into a sink of its own.
    fn finish_into(&mut self, sink: &mut impl Sink) {
        let keeper = &mut self.keeper;
        self.escapes.finish(&mut |s| keeper.push(s, sink));
        keeper.finish(sink);
    }

    pub(crate) fn finish(&mut self, emit: impl FnMut(&str)) {
        let mut sink = StripSink(emit);
        let keeper = &mut self.keeper;
        self.escapes.finish(&mut |s| keeper.push(s, &mut sink));
        keeper.finish(&mut sink);
    }
}

/// Strict strip of `text`, handing the kept runs to `emit` in order.
pub fn strip_each(text: &str, mut emit: impl FnMut(&str)) {
    let mut engine = StripEngine::new();
    engine.push(text, &mut emit);
    engine.finish(&mut emit);
}

/// The UTF-8 length of `text` after strict strip.
pub fn stripped_len(text: &str) -> usize {
    let mut n = 0usize;
    strip_each(text, |run| n = n.saturating_add(run.len()));
    n
}

/// Strict strip of `text` into `out`, returning the written text. Nothing is written
/// when `out` is too small; a buffer of `text.len()` bytes always suffices (strict
/// strip only removes).
pub fn strip_into<'o>(text: &str, out: &'o mut [u8]) -> Result<&'o str, BufferTooSmall> {
    strip_into_with(StripEngine::new(), Backend::best(), text, out)
}

/// [`strip_into`] with every stage on `backend` (tests and fuzz targets compare the
/// backends; the public entry picks the best).
#[doc(hidden)]
pub fn strip_into_on<'o>(
    backend: Backend,
    text: &str,
    out: &'o mut [u8],
) -> Result<&'o str, BufferTooSmall> {
    strip_into_with(StripEngine::on(backend), backend, text, out)
}

fn strip_into_with<'o>(
    mut engine: StripEngine,
    backend: Backend,
    text: &str,
    out: &'o mut [u8],
) -> Result<&'o str, BufferTooSmall> {
    if out.len() < text.len() {
        let needed = stripped_len(text);
        if out.len() < needed {
            return Err(BufferTooSmall { needed });
        }
    }
    let mut sink = IntoSink { out, len: 0 };
    engine.push_into(text, &mut sink);
    engine.finish_into(&mut sink);
    let IntoSink { out, len } = sink;
    let written = out.get(..len).unwrap_or_default();
    // Whole runs of a `str` were copied; checked with the backend's validator (the
    // scalar one cost 1.2 instructions a byte over dense members of D).
    Ok(backend.to_str(written).unwrap_or_default())
}

/// Copies `src` into `dst` (of the same length). Between dense members of D step 2
/// keeps runs of one byte (the letter between two of them), and `copy_from_slice` of
/// a length not known here is a call to `memcpy` (a third of strict strip's
/// instructions on such text, BENCHMARKS.md).
#[inline(always)]
fn copy_run(dst: &mut [u8], src: &[u8]) {
    if let ([d], [s]) = (&mut *dst, src) {
        *d = *s;
        return;
    }
    dst.copy_from_slice(src);
}

/// Steps 1–2 writing into a buffer: the dense path writes its kept bytes there
/// directly (`strip_each`'s runs stay slices of the text, the strict lint locates
/// them by address).
struct IntoSink<'o> {
    out: &'o mut [u8],
    len: usize,
}

impl Sink for IntoSink<'_> {
    #[inline]
    fn text(&mut self, s: &str) {
        let end = self.len.saturating_add(s.len());
        if let Some(dst) = self.out.get_mut(self.len..end) {
            copy_run(dst, s.as_bytes());
            self.len = end;
        }
    }

    #[inline]
    fn room(&mut self, need: usize) -> Option<&mut [u8]> {
        self.out
            .get_mut(self.len..)
            .filter(|room| room.len() >= need)
    }

    #[inline]
    fn gathered(&mut self, n: usize) {
        self.len = self.len.saturating_add(n).min(self.out.len());
    }
}

/// Strict strip over a byte stream fed in chunks of any size, in constant memory.
#[derive(Clone, Debug)]
pub struct StripStream {
    utf8: Utf8Stream,
    engine: StripEngine,
}

impl Default for StripStream {
    fn default() -> Self {
        Self::new()
    }
}

impl StripStream {
    /// A stream at its start.
    pub const fn new() -> Self {
        StripStream {
            utf8: Utf8Stream::new(),
            engine: StripEngine::new(),
        }
    }

    /// Strips the next chunk, handing each kept run to `emit` in order (a run may be
    /// held back until later input decides it).
    pub fn feed(&mut self, chunk: &[u8], mut emit: impl FnMut(&str)) -> Result<(), Utf8Error> {
        let engine = &mut self.engine;
        self.utf8.feed(chunk, |piece| engine.push(piece, &mut emit))
    }

    /// Ends the stream, handing the runs still held to `emit`; an incomplete code
    /// point at the end is an error.
    pub fn finish(mut self, emit: impl FnMut(&str)) -> Result<(), Utf8Error> {
        self.utf8.finish()?;
        self.engine.finish(emit);
        Ok(())
    }
}

/// Writes up to `cap` bytes (cut on a code-point boundary) and counts them all.
struct Writer<'o> {
    out: &'o mut [u8],
    cap: usize,
    len: usize,
    total: usize,
    cut: bool,
    /// What the last replacement leaves to drop after it.
    trail: Trail,
    /// A piece could not be placed where the walk put it (impossible by construction):
    /// the record is refused with `Reason::Internal`, never returned with a hole.
    fault: bool,
    /// The longest the output was before a cut trimmed it: [`Writer::wipe`] zeroes up
    /// to here.
    reached: usize,
}

impl Sink for Writer<'_> {
    #[inline]
    fn text(&mut self, s: &str) {
        if self.trail == Trail::Clear {
            self.write(s);
            return;
        }
        let mut trail = self.trail;
        trail.filter(s, |piece| self.write(piece));
        self.trail = trail;
    }

    fn replacement(&mut self, s: &str) {
        self.write(s);
        self.trail = Trail::REPLACED;
    }
}

impl Writer<'_> {
    #[inline]
    fn write(&mut self, s: &str) {
        self.total = self.total.saturating_add(s.len());
        if self.cut {
            return;
        }
        let room = self.cap.min(self.out.len()).saturating_sub(self.len);
        let take = if s.len() <= room {
            s.len()
        } else {
            self.cut = true;
            floor_char_boundary(s, room)
        };
        let end = self.len.saturating_add(take);
        if let (Some(dst), Some(src)) = (self.out.get_mut(self.len..end), s.as_bytes().get(..take))
        {
            dst.copy_from_slice(src);
            self.len = end;
        } else {
            self.fault = true;
        }
        if self.cut {
            self.trim_joiners();
        }
    }
}

impl Writer<'_> {
    /// A cut may split an emoji sequence or a conjunct: see [`trim_dangling`].
    fn trim_joiners(&mut self) {
        self.reached = self.reached.max(self.len);
        match trim_dangling(self.out, self.len) {
            Some(len) => self.len = len,
            None => self.fault = true,
        }
    }
}

/// The end of `out[..len]`, a text just cut, once the joiners and selectors the cut left
/// dangling are gone, so no kept member of D outlives its context: first the members
/// of D at its end, then every member of D that §2 no longer keeps in it (a ZWJ of an
/// emoji sequence whose end was cut, a ZWNJ whose right joining context was, behind
/// transparent marks), until neither changes. Only the last [`RULE_REACH`] code points
/// can have lost a context; each round drops at least one code point. `None` when
/// `out[..len]` is not text (impossible by construction).
fn trim_dangling(out: &mut [u8], mut len: usize) -> Option<usize> {
    loop {
        let text = core::str::from_utf8(out.get(..len)?).ok()?;
        let mut end = text.len();
        for c in text.chars().rev() {
            if !super::class::in_drop_set(c) {
                break;
            }
            end = end.saturating_sub(c.len_utf8());
        }
        let kept = text.get(..end)?;
        let tail = kept
            .char_indices()
            .rev()
            .take(RULE_REACH)
            .last()
            .map_or(end, |(k, _)| k);
        // What goes, by the tail's code points (at most RULE_REACH < 64 of them).
        let mut widths = [0u8; 64];
        let mut gone = 0u64;
        for (k, (i, c)) in kept.get(tail..)?.char_indices().enumerate() {
            if let Some(w) = widths.get_mut(k) {
                *w = c.len_utf8() as u8;
            }
            if super::class::in_drop_set(c) && is_dropped_at(kept, tail.saturating_add(i)) {
                gone |= 1u64.checked_shl(k as u32).unwrap_or(0);
            }
        }
        if gone == 0 {
            return Some(end);
        }
        // Close the gaps in place.
        let mut write = tail;
        let mut read = tail;
        for (k, &w) in widths.iter().enumerate() {
            if read >= end || w == 0 {
                break;
            }
            let next = read.saturating_add(usize::from(w));
            if gone.checked_shr(k as u32).unwrap_or(0) & 1 == 0 {
                if next > out.len() {
                    return None;
                }
                out.copy_within(read..next, write);
                write = write.saturating_add(usize::from(w));
            }
            read = next;
        }
        len = write;
    }
}

/// The strict cut (§7) of a text that is already contained: `text` cut to at most
/// `max_bytes` on a code-point boundary, minus the joiners and selectors the cut leaves
/// dangling, written into `out` (which needs `min(text.len(), max_bytes)` bytes).
/// The note is the caller's. A text within the cap is copied whole. (Were the kept
/// bytes ever not text — impossible, whole code points are copied and removed — the
/// result would be empty rather than hold a dangling member of D.)
pub fn cut_into<'o>(
    text: &str,
    max_bytes: usize,
    out: &'o mut [u8],
) -> Result<&'o str, BufferTooSmall> {
    let take = floor_char_boundary(text, max_bytes.min(text.len()));
    let (Some(dst), Some(src)) = (out.get_mut(..take), text.as_bytes().get(..take)) else {
        return Err(BufferTooSmall { needed: take });
    };
    dst.copy_from_slice(src);
    let len = if take < text.len() {
        trim_dangling(out, take).unwrap_or(0)
    } else {
        take
    };
    // Whole code points of a `str` were kept.
    Ok(core::str::from_utf8(out.get(..len).unwrap_or_default()).unwrap_or_default())
}

impl Writer<'_> {
    /// Zeroes every byte this writer wrote: on an error the buffer holds nothing of
    /// the record (the promise of [`Sink`], which both profiles keep).
    fn wipe(&mut self) {
        let end = self.len.max(self.reached).min(self.out.len());
        if let Some(written) = self.out.get_mut(..end) {
            written.fill(0);
        }
        self.len = 0;
    }

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

/// Kept runs shorter than this are gathered before steps 3–5 see them: between
/// dense members of D step 2 keeps runs of a byte or two, and each piece costs the
/// matcher a scan set-up (and a `u` at a piece's end a hold, as a marker may go on in
/// the next piece). The matcher computes the same bytes however its input is cut.
/// The dense path gathers a whole piece of step 1 into the batch when it fits
/// (`MatchSink::room`); at 256 bytes the gate's hostile-invisible text, cut by ESCs
/// at random, had enough longer pieces that go a run at a time to cost 4 Ir/byte
/// (callgrind 48.7 → 44.7 at 512; 1,024 gains 0.7 more for twice the zeroing on
/// every push).
const BATCH: usize = 512;

/// Steps 3–5 fed by step 2.
struct MatchSink<'t, 'm, 's, 'w, 'o> {
    matcher: &'m mut Matcher<'s>,
    writer: &'w mut Writer<'o>,
    /// The piece step 1 was given: step 2's runs are mostly slices of it, and runs
    /// that touch are handed on as one slice of it, which needs no validation (over
    /// mixed prose, with a kept U+FE0F or a window of step 2 every ~80 bytes, the
    /// batch's validation was 17 % of strict sanitize's time).
    parent: &'t str,
    /// `parent[span_start..span_end]`: touching runs not yet handed on.
    span_start: usize,
    span_end: usize,
    /// Short kept runs not yet handed to the matcher, in order (what the dense path
    /// gathers here lacks step 3's controls: [`Sink::DROPS_CONTROLS`]).
    batch: [u8; BATCH],
    batch_len: usize,
}

impl<'t> MatchSink<'t, '_, '_, '_, '_> {
    fn new<'m, 's, 'w, 'o>(
        parent: &'t str,
        matcher: &'m mut Matcher<'s>,
        writer: &'w mut Writer<'o>,
    ) -> MatchSink<'t, 'm, 's, 'w, 'o> {
        MatchSink {
            matcher,
            writer,
            parent,
            span_start: 0,
            span_end: 0,
            batch: [0; BATCH],
            batch_len: 0,
        }
    }

    /// Where `s` starts in [`MatchSink::parent`], when it is a slice of it.
    #[inline]
    fn offset_in_parent(&self, s: &str) -> Option<usize> {
        let off = s.as_ptr().addr().checked_sub(self.parent.as_ptr().addr())?;
        (off <= self.parent.len() && s.len() <= self.parent.len().saturating_sub(off))
            .then_some(off)
    }

    /// Hands the pending span on: a long one as the parent's own slice, a short one
    /// (between members of D that step 2 dropped, its cost is the matcher's set-up)
    /// into the batch.
    fn flush_span(&mut self) {
        if self.span_end <= self.span_start {
            return;
        }
        let (from, to) = (self.span_start, self.span_end);
        self.span_start = 0;
        self.span_end = 0;
        let parent = self.parent;
        match parent.get(from..to) {
            Some(run) => self.gather(run),
            None => self.writer.fault = true,
        }
    }

    /// Hands everything held to the matcher, in order.
    fn flush(&mut self) {
        self.flush_span();
        self.flush_batch();
    }

    /// Hands the gathered runs to the matcher.
    fn flush_batch(&mut self) {
        if self.batch_len == 0 {
            return;
        }
        let len = self.batch_len;
        self.batch_len = 0;
        let gathered = self.batch.get(..len).unwrap_or_default();
        // Whole code points of `str`s were gathered, so this always holds. (Checked
        // with the backend's validator: the scalar one was 8 % of strict sanitize's
        // time over dense members of D.)
        match crate::scan::Backend::best().to_str(gathered) {
            Ok(text) => self.matcher.push(text, self.writer),
            Err(_) => self.writer.fault = true,
        }
    }
}

impl MatchSink<'_, '_, '_, '_, '_> {
    /// A run to the matcher: a long one at once, a short one into the batch. The
    /// span is empty here.
    #[inline]
    fn gather(&mut self, s: &str) {
        if s.len() >= BATCH / 2 {
            self.flush_batch();
            self.matcher.push(s, self.writer);
            return;
        }
        if self.batch_len.saturating_add(s.len()) > BATCH {
            self.flush_batch();
        }
        let end = self.batch_len.saturating_add(s.len());
        if let Some(dst) = self.batch.get_mut(self.batch_len..end) {
            copy_run(dst, s.as_bytes());
            self.batch_len = end;
        } else {
            self.writer.fault = true;
        }
    }
}

impl Sink for MatchSink<'_, '_, '_, '_, '_> {
    /// Step 3 drops them next: the matcher passes over a dropped control as no code
    /// point (its neighbours meet; neither the literal search nor the hold sees it),
    /// so text without them gives the same bytes, literals and `replaced` flag.
    const DROPS_CONTROLS: bool = true;

    #[inline]
    fn text(&mut self, s: &str) {
        match self.offset_in_parent(s) {
            Some(off) if off == self.span_end && self.span_end > self.span_start => {
                self.span_end = off.saturating_add(s.len());
            }
            Some(off) => {
                self.flush_span();
                self.span_start = off;
                self.span_end = off.saturating_add(s.len());
            }
            None => {
                self.flush_span();
                self.gather(s);
            }
        }
    }

    #[inline]
    fn room(&mut self, need: usize) -> Option<&mut [u8]> {
        if need > BATCH {
            return None;
        }
        self.flush_span();
        if self.batch_len.saturating_add(need) > BATCH {
            self.flush_batch();
        }
        self.batch.get_mut(self.batch_len..)
    }

    #[inline]
    fn gathered(&mut self, n: usize) {
        self.batch_len = self.batch_len.saturating_add(n).min(BATCH);
    }
}

/// Steps 1–5 over a stream of pieces.
#[derive(Clone, Debug)]
struct Engine<'s> {
    escapes: Escapes,
    keeper: Keeper,
    matcher: Matcher<'s>,
}

impl<'s> Engine<'s> {
    fn new(set: &'s LiteralSet<'s>) -> Self {
        Engine {
            escapes: Escapes::new(),
            keeper: Keeper::new(),
            matcher: Matcher::new(set),
        }
    }

    /// Steps 1–5 with every stage on `backend`.
    fn on(set: &'s LiteralSet<'s>, backend: Backend) -> Self {
        Engine {
            escapes: Escapes::on(backend),
            keeper: Keeper::on(backend),
            matcher: Matcher::on(set, backend),
        }
    }

    fn push(&mut self, text: &str, writer: &mut Writer<'_>) {
        let keeper = &mut self.keeper;
        let mut sink = MatchSink::new(text, &mut self.matcher, writer);
        self.escapes.push(text, &mut |s| keeper.push(s, &mut sink));
        sink.flush();
    }

    fn finish(&mut self, writer: &mut Writer<'_>) {
        let keeper = &mut self.keeper;
        let mut sink = MatchSink::new("", &mut self.matcher, writer);
        self.escapes.finish(&mut |s| keeper.push(s, &mut sink));
        keeper.finish(&mut sink);
        sink.flush();
        self.matcher.finish(writer);
    }
}

/// Appends the note when the text was cut and returns the result; a fault anywhere
/// (a piece that did not fit, a note that could not be written, output that is not
/// whole code points) refuses the record for `field` instead of returning a hole.
fn conclude<'a, 'o>(mut writer: Writer<'o>, field: &'a str) -> Result<Prose<'o>, Rejection<'a>> {
    let original_bytes = writer.total;
    let truncated = original_bytes > writer.cap;
    if truncated {
        let note = TruncationNote {
            original_bytes,
            max_bytes: writer.cap,
        };
        let mut buf = NoteBuf::default();
        match write!(buf, "{note}").ok().and(buf.as_str(Backend::best())) {
            Some(note) => writer.append(note),
            None => writer.fault = true,
        }
    }
    if writer.fault {
        writer.wipe();
        return Err(Rejection::internal(field));
    }
    let Writer { out, len, .. } = writer;
    // The last guard: its refusal cannot wipe what the borrow of the text holds (the
    // one exception to [`Sink`]'s promise, for a state no path reaches).
    let written: &'o [u8] = out.get(..len).ok_or(Rejection::internal(field))?;
    // Public validation (SIMD where the CPU has it): whole code points were written.
    let text = crate::utf8::validate(written).map_err(|_| Rejection::internal(field))?;
    Ok(Prose {
        text,
        truncated,
        original_bytes,
    })
}

/// The most bytes strict sanitize can write for `input_len` bytes and a cap of
/// `max_bytes`: a replacement may be longer than what it replaces (`<|a|>`, 5 bytes,
/// becomes `[redacted special token]`, 24), and a cut appends the note.
pub fn worst_case_len(input_len: usize, max_bytes: usize) -> usize {
    // No pattern is spelt in fewer than 4 bytes and no replacement exceeds 24.
    let grown = input_len.saturating_mul(6);
    if grown <= max_bytes {
        grown
    } else {
        stream_buffer_len(max_bytes)
    }
}

/// Strict `sanitizeProse(text, {field, maxBytes})` with forgery literals `literals`,
/// into `out`. On an error `out` holds nothing of the record: each byte is as the
/// caller left it or zero (the reference's promise too); [`worst_case_len`] sizes a
/// buffer that always suffices.
pub fn sanitize_prose_with<'a, 'o>(
    text: &str,
    field: &'a str,
    max_bytes: usize,
    literals: &'a LiteralSet<'a>,
    out: &'o mut [u8],
) -> Result<Prose<'o>, ProseError<'a>> {
    sanitize_with(Engine::new(literals), text, field, max_bytes, literals, out)
}

/// [`sanitize_prose_with`] with every stage on `backend` (tests and fuzz targets
/// compare the backends; the public entry picks the best).
#[doc(hidden)]
pub fn sanitize_prose_on<'a, 'o>(
    backend: Backend,
    text: &str,
    field: &'a str,
    max_bytes: usize,
    literals: &'a LiteralSet<'a>,
    out: &'o mut [u8],
) -> Result<Prose<'o>, ProseError<'a>> {
    let engine = Engine::on(literals, backend);
    sanitize_with(engine, text, field, max_bytes, literals, out)
}

fn sanitize_with<'a, 'o>(
    mut engine: Engine<'a>,
    text: &str,
    field: &'a str,
    max_bytes: usize,
    literals: &'a LiteralSet<'a>,
    out: &'o mut [u8],
) -> Result<Prose<'o>, ProseError<'a>> {
    let mut writer = Writer {
        out,
        cap: max_bytes,
        len: 0,
        total: 0,
        cut: false,
        trail: Trail::Clear,
        fault: false,
        reached: 0,
    };
    engine.push(text, &mut writer);
    engine.finish(&mut writer);
    if let Some(literal) = literals.first_of(engine.matcher.found()) {
        writer.wipe();
        return Err(ProseError::Rejected(Rejection::forgery(field, literal)));
    }
    let truncated = writer.total > max_bytes;
    let needed = if truncated {
        let note = TruncationNote {
            original_bytes: writer.total,
            max_bytes,
        };
        max_bytes.saturating_add(note.len())
    } else {
        writer.total
    };
    if writer.out.len() < needed {
        writer.wipe();
        return Err(ProseError::BufferTooSmall(BufferTooSmall { needed }));
    }
    conclude(writer, field).map_err(ProseError::Rejected)
}

/// Strict sanitize over a byte stream fed in chunks of any size: constant memory (the
/// capped output in the caller's buffer and bounded holds); the result is known once
/// the whole input is seen.
pub struct ProseStream<'a, 'o> {
    field: &'a str,
    literals: &'a LiteralSet<'a>,
    engine: Engine<'a>,
    utf8: Utf8Stream,
    writer: Writer<'o>,
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
        let needed = stream_buffer_len(max_bytes);
        if buf.len() < needed {
            return Err(BufferTooSmall { needed });
        }
        Ok(ProseStream {
            field,
            literals,
            engine: Engine::new(literals),
            utf8: Utf8Stream::new(),
            writer: Writer {
                out: buf,
                cap: max_bytes,
                len: 0,
                total: 0,
                cut: false,
                trail: Trail::Clear,
                fault: false,
                reached: 0,
            },
        })
    }

    /// Feeds the next chunk.
    pub fn feed(&mut self, chunk: &[u8]) -> Result<(), StreamError<'a>> {
        let engine = &mut self.engine;
        let writer = &mut self.writer;
        self.utf8
            .feed(chunk, |piece| engine.push(piece, writer))
            .map_err(StreamError::Utf8)
    }

    /// Ends the input and returns the sanitized text. On an error the buffer holds
    /// nothing of the record (what the stream wrote is zeroed).
    pub fn finish(mut self) -> Result<Prose<'o>, StreamError<'a>> {
        if let Err(e) = self.utf8.finish() {
            self.writer.wipe();
            return Err(StreamError::Utf8(e));
        }
        self.engine.finish(&mut self.writer);
        if let Some(literal) = self.literals.first_of(self.engine.matcher.found()) {
            self.writer.wipe();
            return Err(StreamError::Rejected(Rejection::forgery(
                self.field, literal,
            )));
        }
        conclude(self.writer, self.field).map_err(StreamError::Rejected)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::Reason;
    use std::string::String;

    fn writer(out: &mut [u8], cap: usize) -> Writer<'_> {
        Writer {
            out,
            cap,
            len: 0,
            total: 0,
            cut: false,
            trail: Trail::Clear,
            fault: false,
            reached: 0,
        }
    }

    /// Text like the gate's hostile rows: a letter and a dangerous code point (the
    /// members of D, ESC, the controls step 3 drops), with literal and pattern
    /// beginnings, whole ones, escape sequences and long runs of letters mixed in.
    fn hostile_text(seed: u64, len: usize, literals: bool, escapes: bool) -> String {
        const DANGEROUS: &[&str] = &[
            "\u{200B}",
            "\u{200C}",
            "\u{200D}",
            "\u{202A}",
            "\u{202E}",
            "\u{2060}",
            "\u{2066}",
            "\u{2069}",
            "\u{FEFF}",
            "\u{AD}",
            "\u{115F}",
            "\u{180E}",
            "\u{3164}",
            "\u{E0041}",
            "\u{E007F}",
            "\u{FE0E}",
            "\u{FE0F}",
            "\u{E0100}",
            "\u{1B}",
            "\u{0}",
            "\r",
            "\u{7F}",
            "\u{85}",
            "\u{9B}",
            "\t",
            "\n",
        ];
        const WORDS: &[&str] = &[
            "</APPLICABLE-RULE",
            "</APPLICABLE-RULES>",
            "## Applicable Rules (scoped",
            "untrusted-content:end",
            "untrusted-con",
            "u",
            "<",
            "<|im_start|>",
            "<|",
            "|>",
            "<!--",
            "[INST]",
            "\u{1b}[2J",
            "\u{1b}]8;;x\u{7}",
            "\u{2764}\u{FE0F}",
            "1\u{FE0F}\u{20E3}",
            "\u{915}\u{94D}\u{200D}",
            "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz",
        ];
        let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let mut next = |n: usize| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 20) as usize % n
        };
        let mut t = String::new();
        // Without ESCs, long dense runs too: few words.
        let odds = if escapes { 9 } else { 80 };
        while t.len() < len {
            if next(odds) == 0 {
                let word = WORDS[next(WORDS.len())];
                // A whole literal rejects the text: only in some of them.
                if (literals || !word.ends_with(['>', 'd']) || word.contains('|'))
                    && (escapes || !word.contains(['\u{1b}', '\u{9b}']))
                {
                    t.push_str(word);
                }
            } else {
                t.push(char::from(b'a' + next(26) as u8));
                let d = DANGEROUS[next(DANGEROUS.len())];
                // Without ESCs and CSIs step 1 hands on one long piece.
                if escapes || !matches!(d, "\u{1B}" | "\u{9B}") {
                    t.push_str(d);
                }
            }
        }
        t
    }

    /// The plain path's sanitize: steps 1–2 handing on runs (no gathering), then the
    /// matcher over the whole kept text (controls and all), then the writer.
    fn plain_sanitize(text: &str, max: usize) -> String {
        let mut kept = String::new();
        strip_each(text, |r| kept.push_str(r));
        let set = &LiteralSet::DEFAULT;
        let mut m = Matcher::new(set);
        let mut buf = std::vec![0u8; worst_case_len(text.len(), max)];
        let mut w = writer(&mut buf, max);
        m.push(&kept, &mut w);
        m.finish(&mut w);
        match set.first_of(m.found()) {
            Some(literal) => std::format!("rejected {literal}"),
            None => String::from(conclude(w, "f").unwrap().text),
        }
    }

    /// Strict sanitize of `text`, one-shot, or streamed in two chunks cut at `cut`.
    fn fast_sanitize(text: &str, max: usize, cut: Option<usize>) -> String {
        let set = &LiteralSet::DEFAULT;
        let rejected = |literal: &str| std::format!("rejected {literal}");
        let Some(cut) = cut else {
            let mut out = std::vec![0u8; worst_case_len(text.len(), max)];
            return match sanitize_prose_with(text, "f", max, set, &mut out) {
                Ok(p) => String::from(p.text),
                Err(ProseError::Rejected(r)) => match r.reason() {
                    crate::Reason::Forgery(literal) => rejected(literal),
                    _ => panic!("{r}"),
                },
                Err(e) => panic!("{e}"),
            };
        };
        let mut buf = std::vec![0u8; stream_buffer_len(max)];
        let mut s = ProseStream::new("f", max, set, &mut buf).unwrap();
        let (a, b) = text.as_bytes().split_at(cut);
        s.feed(a).unwrap();
        s.feed(b).unwrap();
        match s.finish() {
            Ok(p) => String::from(p.text),
            Err(StreamError::Rejected(r)) => match r.reason() {
                crate::Reason::Forgery(literal) => rejected(literal),
                _ => panic!("{r}"),
            },
            Err(e) => panic!("{e}"),
        }
    }

    /// The fast paths over hostile text (the dense path gathering without step 3's
    /// controls, the batch, the matcher's feeding) compute what the plain path
    /// computes, one-shot and streamed in two chunks split at every byte.
    #[test]
    fn hostile_text_fast_equals_plain_at_every_split() {
        let mut rejected = 0;
        for seed in 0..48u64 {
            // Some long and without ESCs: step 2 gathers the piece in parts.
            let (len, escapes) = match seed % 5 {
                4 => (600 + (seed as usize * 131) % 1500, false),
                _ => (40 + (seed as usize * 53) % 700, true),
            };
            let text = hostile_text(seed, len, seed % 3 == 0, escapes);
            let max = if seed % 4 == 3 {
                text.len() / 2
            } else {
                1 << 20
            };
            let want = plain_sanitize(&text, max);
            rejected += usize::from(want.starts_with("rejected "));
            assert_eq!(fast_sanitize(&text, max, None), want, "{text:?}");
            for cut in 0..=text.len() {
                assert_eq!(
                    fast_sanitize(&text, max, Some(cut)),
                    want,
                    "{text:?} cut at {cut}"
                );
            }
        }
        // Both outcomes are compared.
        assert!((4..40).contains(&rejected), "{rejected}");
    }

    /// A fault refuses the record: never `Ok` with a hole.
    #[test]
    fn a_fault_is_an_internal_rejection_not_a_hole() {
        let mut buf = [0u8; 64];
        let mut w = writer(&mut buf, 64);
        w.text("kept text");
        let ok = conclude(w, "f").unwrap();
        assert_eq!(ok.text, "kept text");

        let mut buf = [0u8; 64];
        let mut w = writer(&mut buf, 64);
        w.text("kept text");
        w.fault = true;
        let err = conclude(w, "f").unwrap_err();
        assert!(matches!(err.reason(), Reason::Internal));

        // A cut whose note has no room (the callers size the buffer; here it is not).
        let mut buf = [0u8; 8];
        let mut w = writer(&mut buf, 8);
        w.text("0123456789abcdef");
        let err = conclude(w, "f").unwrap_err();
        assert!(matches!(err.reason(), Reason::Internal));

        // Output that is not whole code points (a cut inside one cannot happen).
        let mut buf = [0u8; 8];
        buf[0] = 0xE2;
        let mut w = writer(&mut buf, 8);
        w.len = 1;
        w.total = 1;
        let err = conclude(w, "f").unwrap_err();
        assert!(matches!(err.reason(), Reason::Internal));
    }
}
