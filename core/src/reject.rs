//! The rejection of a record: a small `Copy` value whose exact reference message
//! (SPEC §5) is written on demand, so the hot path never formats.

use core::fmt::{self, Write};

pub use crate::json::JsonString;
use crate::shape::Shape;

/// The reference limits a rejection's preview to this many UTF-16 code units.
pub const PREVIEW_UTF16_UNITS: usize = 120;

/// Why a value was rejected.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Reason<'a> {
    /// The value is empty (or, in bindings, not a string): "must be a non-empty string".
    Empty,
    /// A binding passed something other than a string where a string is required.
    NotString,
    /// The value does not have the machine-token shape.
    Mismatch(Shape),
    /// A control character in a frontmatter scalar.
    Control,
    /// A control character in a glob.
    GlobControl,
    /// A dangerous invisible in a frontmatter scalar.
    Invisible(char),
    /// A dangerous invisible in a glob.
    GlobInvisible(char),
    /// A double quote in a glob.
    DoubleQuote,
    /// A description over its byte budget.
    TooLong {
        /// The value's UTF-8 length.
        bytes: usize,
        /// The budget it exceeds.
        max: usize,
    },
    /// The text contains a delivery-wrapper literal (the one given, as declared).
    Forgery(&'a str),
    /// An internal consistency check failed (the passes over the text disagreed):
    /// the record is refused rather than returned with a hole.
    Internal,
}

/// A rejected record: which field, why, and the value the message previews.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rejection<'a> {
    field: &'a str,
    reason: Reason<'a>,
    value: &'a str,
}

impl<'a> Rejection<'a> {
    /// A rejection of `value` in `field` for `reason`.
    pub const fn new(field: &'a str, reason: Reason<'a>, value: &'a str) -> Self {
        Rejection {
            field,
            reason,
            value,
        }
    }

    /// The refusal of a record an internal check failed on; it previews nothing.
    pub(crate) const fn internal(field: &'a str) -> Self {
        Rejection::new(field, Reason::Internal, "")
    }

    /// A forgery rejection previews the literal it found, not the text.
    pub(crate) const fn forgery(field: &'a str, literal: &'a str) -> Self {
        Rejection::new(field, Reason::Forgery(literal), literal)
    }

    /// The field the message names.
    pub const fn field(&self) -> &'a str {
        self.field
    }

    /// Why the value was rejected.
    pub const fn reason(&self) -> Reason<'a> {
        self.reason
    }

    /// The value the message previews (its first 120 UTF-16 units are shown).
    pub const fn value(&self) -> &'a str {
        self.value
    }

    /// The exact length in bytes of the message `Display` writes.
    pub fn message_len(&self) -> usize {
        let mut counter = Counter(0);
        // Counter::write_str never fails.
        let _ = write!(counter, "{self}");
        counter.0
    }
}

struct Counter(usize);

impl Write for Counter {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.0 = self.0.saturating_add(s.len());
        Ok(())
    }
}

impl fmt::Display for Rejection<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "reconcile-sanitize: rejecting record — {} ", self.field)?;
        match self.reason {
            Reason::Empty => f.write_str("must be a non-empty string")?,
            Reason::NotString => f.write_str("must be a string")?,
            Reason::Mismatch(shape) => write!(f, "must match {}", shape.pattern())?,
            Reason::Control => {
                f.write_str("must not contain control characters (frontmatter escape)")?
            }
            Reason::GlobControl => {
                f.write_str("must not contain control characters (ends the sequence block)")?
            }
            Reason::Invisible(c) => write!(
                f,
                "must not contain the dangerous invisible {} (invisible to a reviewer, text to a model)",
                CodePoint(c)
            )?,
            Reason::GlobInvisible(c) => write!(
                f,
                "must not contain the dangerous invisible {}",
                CodePoint(c)
            )?,
            Reason::DoubleQuote => {
                f.write_str("must not contain a double quote (closes the quoted scalar)")?
            }
            Reason::TooLong { bytes, max } => {
                write!(f, "must not exceed {max} bytes (got {bytes})")?
            }
            Reason::Forgery(literal) => write!(
                f,
                "must not contain the delivery-wrapper literal {}",
                JsonString::whole(literal)
            )?,
            Reason::Internal => {
                f.write_str("could not be sanitized (internal consistency check failed)")?
            }
        }
        write!(
            f,
            " (got {})",
            JsonString::preview(self.value, PREVIEW_UTF16_UNITS)
        )
    }
}

impl core::error::Error for Rejection<'_> {}

/// A code point as `U+XXXX`: upper-case hex, at least four digits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CodePoint(pub char);

impl fmt::Display for CodePoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "U+{:04X}", u32::from(self.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::string::ToString;

    #[test]
    fn code_point_pads_to_four() {
        assert_eq!(CodePoint('\u{AD}').to_string(), "U+00AD");
        assert_eq!(CodePoint('\u{E0061}').to_string(), "U+E0061");
    }

    #[test]
    fn message_len_matches_display() {
        let r = Rejection::new(
            "f",
            Reason::TooLong {
                bytes: 600,
                max: 512,
            },
            "x€",
        );
        assert_eq!(r.message_len(), r.to_string().len());
    }
}
