//! `ProseStream`: the walk over a byte stream fed in chunks, in constant memory.

use core::fmt;

use super::engine::Engine;
use super::sink::CapWriter;
use super::{Prose, TruncationNote};
use crate::forgery::{AnyAutomaton, LiteralSet};
use crate::reject::Rejection;
use crate::scan::Backend;
use crate::strip::BufferTooSmall;
use crate::utf8::{Utf8Error, Utf8Stream};

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
pub(super) const DRAIN_SLACK: usize = 1024;

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

    /// Ends the input and returns the sanitized text. On an error the buffer holds
    /// nothing of the record (what the stream wrote is zeroed; output already handed
    /// out by [`ProseStream::feed_emitting`] is the caller's).
    pub fn finish(mut self) -> Result<Prose<'o>, StreamError<'a>> {
        if let Err(e) = self.utf8.finish() {
            self.writer.wipe();
            return Err(StreamError::Utf8(e));
        }
        self.engine.finish(&mut self.writer);
        let internal = StreamError::Rejected(Rejection::internal(self.field));
        if self.engine.fault || self.writer.fault {
            self.writer.wipe();
            return Err(internal);
        }
        if let Some(literal) = self.literals.first_of(self.engine.found) {
            self.writer.wipe();
            return Err(StreamError::Rejected(Rejection::forgery(
                self.field, literal,
            )));
        }
        let original_bytes = self.writer.total;
        self.writer.conclude(original_bytes).ok_or(internal)
    }
}
