//! The strict profile (`docs/PROFILE-STRICT.md`): containment beyond the reference.
//!
//! * D = Default_Ignorable_Code_Point ∪ Bidi_Control (Unicode 17.0) is dropped,
//!   except joiners and selectors that spell: RGI emoji sequences (exact membership),
//!   joiners after viramas, ZWNJ in joining scripts (RFC 5892 A.1).
//! * ECMA-48 escape sequences are removed whole, never unbounded text.
//! * Forgery literals, envelope markers and chat-template special tokens are matched
//!   on a folded view (NFKC_Casefold, then UTS #39 skeletons, to printable ASCII), and
//!   `<!--` is made visible.
//!
//! Everything is `no_std`, allocation-free and linear; the streams run in constant
//! memory and compute the same bytes as the one-shot forms. Select the profile per
//! call with [`crate::Profile`].

mod check;
pub(crate) mod class;
mod dense;
mod escape;
mod keep;
mod matcher;
mod prose;
mod sink;
// Generated (scripts/gen-tables.sh): left as the generator writes it.
#[rustfmt::skip]
mod tables;
mod trail;

pub use check::{
    Dropped, check_no_control, check_safe_description, check_safe_glob, find_forgery,
    first_dropped, for_each_dropped, is_dropped_at,
};
pub use class::in_drop_set;
pub use escape::STRING_MAX;
pub use keep::JOIN_T_MAX;
pub use matcher::{COMMENT_REDACTION, NAME_MAX, SPECIAL_TOKENS, TOKEN_REDACTION};
pub use prose::{
    ProseStream, StripStream, cut_into, sanitize_prose_with, strip_each, strip_into, stripped_len,
    worst_case_len,
};
/// Strict strip and sanitize with every stage on a named backend: tests and fuzz
/// targets compare the backends (`Backend::all`); the public entries pick the best.
#[doc(hidden)]
pub use prose::{sanitize_prose_on, strip_into_on};
pub use tables::{CONFUSABLES_VERSION, UNICODE_VERSION};

/// The fold of `c` on the strict folded view (§4): `Some(ascii)` (empty for a member of
/// D), or `None` for a barrier.
pub fn fold_of(c: char) -> Option<&'static str> {
    match class::fold(c) {
        // Folds are printable ASCII.
        class::Fold::Chars(b) => core::str::from_utf8(b).ok(),
        class::Fold::Barrier => None,
    }
}

#[cfg(test)]
mod tests;
