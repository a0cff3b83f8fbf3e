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

mod engine;
mod oneshot;
mod sink;
mod stream;

use core::fmt;

use crate::forgery::MARKER_REDACTION;
use crate::reject::Rejection;
use crate::strip::BufferTooSmall;

#[doc(hidden)]
pub use oneshot::sanitize_prose_on;
pub use oneshot::{sanitize_prose, sanitize_prose_with};
pub(crate) use sink::{NoteBuf, Sink};
pub use stream::{DRAIN_BUFFER_LEN, ProseStream, StreamError, stream_buffer_len};

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

#[cfg(test)]
mod tests;
