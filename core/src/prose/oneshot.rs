//! `sanitize_prose` over a whole text: the counting walk, then the writing walk (or a
//! copy) into the caller's buffer.

use super::engine::{DROP_STOPS, Engine, NoPatterns};
use super::sink::{CapWriter, Count, Sink};
use super::{Prose, ProseError, TruncationNote, worst_case_len};
use crate::forgery::{AnyAutomaton, Automaton, LiteralSet};
use crate::reject::Rejection;
use crate::scan::{Backend, ByteSet};
use crate::strip::BufferTooSmall;
use crate::truncate::floor_char_boundary;

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
    if ONE_WALK && out.len() >= worst_case_len(text.len(), max_bytes) {
        return one_walk(walk(), text, field, max_bytes, literals, out, backend);
    }
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
        writer.text(text.get(..end).unwrap_or_default());
    }
    writer.conclude(original_bytes).ok_or_else(internal)
}

/// Whether a buffer with worst-case room takes the one-walk path (measured against
/// the two walks: core/DESIGN.md, "The sanitize path").
const ONE_WALK: bool = option_env!("AIRLOCK_TWO_WALKS").is_none();

/// One walk into a writer that counts to the end (as the stream's): `out` has room
/// for any result ([`worst_case_len`]), so no count is needed to size it, and the
/// verdict comes after the writing. A refused record's bytes are wiped.
fn one_walk<'a, 'o, A: Automaton>(
    mut walk: Engine<'a, A>,
    text: &str,
    field: &'a str,
    max_bytes: usize,
    literals: &'a LiteralSet<'a>,
    out: &'o mut [u8],
    backend: Backend,
) -> Result<Prose<'o>, ProseError<'a>> {
    let mut writer = CapWriter::new(out, max_bytes, false, backend);
    walk.push_str(text, &mut writer);
    walk.finish(&mut writer);
    writer.fault |= walk.fault;
    if !writer.fault {
        if let Some(literal) = literals.first_of(walk.found) {
            writer.wipe();
            return Err(ProseError::Rejected(Rejection::forgery(field, literal)));
        }
    }
    let original_bytes = writer.total;
    writer
        .conclude(original_bytes)
        .ok_or_else(|| ProseError::Rejected(Rejection::internal(field)))
}
