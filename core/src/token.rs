//! Machine values: checked by exact shape, rejected, never repaired (SPEC §3).

use crate::class::{is_control, is_dangerous_invisible};
use crate::forgery::{self, LiteralSet};
use crate::reject::{Reason, Rejection};
use crate::scan::{ATTENTION, Scanner, char_at};

/// Largest accepted `description` scalar, in UTF-8 bytes (a reject bound, not a cut).
pub const DESCRIPTION_MAX_BYTES: usize = 512;

pub use crate::shape::Shape;

/// `assertMachineToken`: a non-empty value of the given shape.
pub fn check_machine_token<'a>(
    value: &'a str,
    field: &'a str,
    shape: Shape,
) -> Result<&'a str, Rejection<'a>> {
    if value.is_empty() {
        return Err(Rejection::new(field, Reason::Empty, value));
    }
    if !shape.matches(value) {
        return Err(Rejection::new(field, Reason::Mismatch(shape), value));
    }
    Ok(value)
}

/// `assertNoControlChars`: no control character anywhere, then no dangerous invisible.
/// Orphan variation selectors are not rejected here. Empty passes.
pub fn check_no_control<'a>(value: &'a str, field: &'a str) -> Result<&'a str, Rejection<'a>> {
    match first_control_or_invisible(value) {
        (true, _) => Err(Rejection::new(field, Reason::Control, value)),
        (false, Some(c)) => Err(Rejection::new(field, Reason::Invisible(c), value)),
        (false, None) => Ok(value),
    }
}

/// Whether `value` has a control, and its first dangerous invisible, by one block
/// scan over the attention lead bytes (clean text is skipped many bytes at a time).
fn first_control_or_invisible(value: &str) -> (bool, Option<char>) {
    let mut invisible = None;
    let mut control = false;
    Scanner::new(&ATTENTION, crate::Backend::best()).next(value.as_bytes(), 0, |i, _| {
        let Some(c) = char_at(value, i) else {
            return false;
        };
        if is_control(c) {
            control = true;
            return true;
        }
        if invisible.is_none() && is_dangerous_invisible(c) {
            invisible = Some(c);
        }
        false
    });
    (control, invisible)
}

/// `assertSafeDescription`: [`check_no_control`] as `description`, then the default
/// forgery check, then at most [`DESCRIPTION_MAX_BYTES`].
pub fn check_safe_description(value: &str) -> Result<&str, Rejection<'_>> {
    const FIELD: &str = "description";
    check_no_control(value, FIELD)?;
    forgery::check_no_forgery(value, FIELD, &LiteralSet::DEFAULT)?;
    if value.len() > DESCRIPTION_MAX_BYTES {
        return Err(Rejection::new(
            FIELD,
            Reason::TooLong {
                bytes: value.len(),
                max: DESCRIPTION_MAX_BYTES,
            },
            value,
        ));
    }
    Ok(value)
}

/// `assertSafeGlob`: non-empty, no `"`, no control character, no dangerous invisible.
pub fn check_safe_glob(value: &str) -> Result<&str, Rejection<'_>> {
    const FIELD: &str = "globs[]";
    if value.is_empty() {
        return Err(Rejection::new(FIELD, Reason::Empty, value));
    }
    if value.contains('"') {
        return Err(Rejection::new(FIELD, Reason::DoubleQuote, value));
    }
    match first_control_or_invisible(value) {
        (true, _) => Err(Rejection::new(FIELD, Reason::GlobControl, value)),
        (false, Some(c)) => Err(Rejection::new(FIELD, Reason::GlobInvisible(c), value)),
        (false, None) => Ok(value),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expires_at_is_exact() {
        assert!(Shape::ExpiresAt.matches("2026-08-18"));
        assert!(!Shape::ExpiresAt.matches("2026-08-18\n"));
        assert!(!Shape::ExpiresAt.matches("2026-08-1８"));
        assert!(!Shape::ExpiresAt.matches("20260-8-18"));
    }

    #[test]
    fn shapes_round_trip_their_pattern() {
        for shape in Shape::ALL {
            assert_eq!(Shape::from_pattern(shape.pattern()), Some(shape));
        }
        assert_eq!(Shape::from_pattern("^x$"), None);
    }

    proptest::proptest! {
        #[test]
        fn scans_match_char_walks(v in "[a-z\"\u{0}-\u{1f}\u{7f}-\u{a0}\u{ad}\u{200b}-\u{2070}\u{fe00}-\u{feff}\u{e0000}-\u{e01ef}—é]{0,80}") {
            let control = v.chars().any(is_control);
            let invisible = v.chars().find(|&c| is_dangerous_invisible(c));
            proptest::prop_assert_eq!(first_control_or_invisible(&v), (control, if control { first_control_or_invisible(&v).1 } else { invisible }));
            if !control {
                proptest::prop_assert_eq!(first_control_or_invisible(&v).1, invisible);
            }
        }
    }

    #[test]
    fn empty_value_is_rejected_before_shape() {
        let err = check_machine_token("", "host-class", Shape::HostClass).unwrap_err();
        assert_eq!(err.reason(), Reason::Empty);
    }
}
