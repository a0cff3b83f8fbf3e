//! Which containment profile an operation applies: the reference (the default,
//! byte-identical with `sanitize.mjs` 3.20.0) or strict (`docs/PROFILE-STRICT.md`).

use crate::forgery::LiteralSet;
use crate::prose::{Prose, ProseError};
use crate::reject::Rejection;
use crate::strip::BufferTooSmall;

/// A containment profile, chosen per call.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Profile {
    /// SPEC.md: the drop-in contract.
    #[default]
    Reference,
    /// PROFILE-STRICT.md: complete invisibles, joiners kept where they spell, folded
    /// literals, special tokens, escapes, hidden comments.
    Strict,
}

impl Profile {
    /// Both profiles.
    pub const ALL: [Profile; 2] = [Profile::Reference, Profile::Strict];

    /// The profile's name in option values (`reference`, `strict`).
    pub const fn name(self) -> &'static str {
        match self {
            Profile::Reference => "reference",
            Profile::Strict => "strict",
        }
    }

    /// The profile named `name`.
    pub fn from_name(name: &str) -> Option<Profile> {
        Profile::ALL.into_iter().find(|p| p.name() == name)
    }

    /// `stripDangerousInvisibles` under this profile, into `out`.
    pub fn strip_into<'o>(self, text: &str, out: &'o mut [u8]) -> Result<&'o str, BufferTooSmall> {
        match self {
            Profile::Reference => crate::strip::strip_into(text, out),
            Profile::Strict => crate::strict::strip_into(text, out),
        }
    }

    /// The length of `text` after this profile's strip.
    pub fn stripped_len(self, text: &str) -> usize {
        match self {
            Profile::Reference => crate::strip::stripped_len(text),
            Profile::Strict => crate::strict::stripped_len(text),
        }
    }

    /// `sanitizeProse` under this profile (see [`crate::sanitize_prose_with`]).
    pub fn sanitize_prose_with<'a, 'o>(
        self,
        text: &str,
        field: &'a str,
        max_bytes: usize,
        literals: &'a LiteralSet<'a>,
        out: &'o mut [u8],
    ) -> Result<Prose<'o>, ProseError<'a>> {
        match self {
            Profile::Reference => {
                crate::prose::sanitize_prose_with(text, field, max_bytes, literals, out)
            }
            Profile::Strict => {
                crate::strict::sanitize_prose_with(text, field, max_bytes, literals, out)
            }
        }
    }

    /// A buffer size for which this profile's sanitize never reports a short buffer.
    pub fn worst_case_len(self, input_len: usize, max_bytes: usize) -> usize {
        match self {
            Profile::Reference => crate::prose::worst_case_len(input_len, max_bytes),
            Profile::Strict => crate::strict::worst_case_len(input_len, max_bytes),
        }
    }

    /// `assertNoControlChars` under this profile.
    pub fn check_no_control<'a>(
        self,
        value: &'a str,
        field: &'a str,
    ) -> Result<&'a str, Rejection<'a>> {
        match self {
            Profile::Reference => crate::token::check_no_control(value, field),
            Profile::Strict => crate::strict::check_no_control(value, field),
        }
    }

    /// `assertSafeGlob` under this profile.
    pub fn check_safe_glob(self, value: &str) -> Result<&str, Rejection<'_>> {
        match self {
            Profile::Reference => crate::token::check_safe_glob(value),
            Profile::Strict => crate::strict::check_safe_glob(value),
        }
    }

    /// `assertSafeDescription` under this profile.
    pub fn check_safe_description(self, value: &str) -> Result<&str, Rejection<'_>> {
        match self {
            Profile::Reference => crate::token::check_safe_description(value),
            Profile::Strict => crate::strict::check_safe_description(value),
        }
    }

    /// `assertNoWrapperForgery` under this profile (strict: on the folded view).
    pub fn find_forgery<'s>(self, text: &str, set: &'s LiteralSet<'s>) -> Option<&'s str> {
        match self {
            Profile::Reference => crate::forgery::find_forgery(text, set),
            Profile::Strict => crate::strict::find_forgery(text, set),
        }
    }

    /// The scan classification: whether this profile's strip drops the code point at
    /// byte `i` of `text` (with its context: the predecessor for the reference's
    /// orphan selectors, joiners and sequences for strict).
    pub fn is_dropped_at(self, text: &str, i: usize) -> bool {
        match self {
            Profile::Reference => {
                let Some(c) = text.get(i..).and_then(|s| s.chars().next()) else {
                    return false;
                };
                let prev = text.get(..i).and_then(|s| s.chars().next_back());
                crate::class::is_stripped(c, prev)
            }
            Profile::Strict => crate::strict::is_dropped_at(text, i),
        }
    }
}
