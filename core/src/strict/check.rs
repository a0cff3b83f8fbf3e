//! Strict machine-value checks and the strict classification (PROFILE-STRICT §7): a
//! value is rejected for any member of D that §2 would not keep.

use super::keep::{JOIN_T_MAX, Keeper};
use super::matcher::Matcher;
use super::sink::Sink;
use crate::class::is_control;
use crate::forgery::LiteralSet;
use crate::reject::{Reason, Rejection};
use crate::token::DESCRIPTION_MAX_BYTES;

/// A member of D that strict drops, and where.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dropped {
    /// Its byte offset in the text.
    pub at: usize,
    /// The code point.
    pub ch: char,
}

struct Drops<F: FnMut(Dropped) -> bool> {
    f: F,
    done: bool,
}

impl<F: FnMut(Dropped) -> bool> Sink for Drops<F> {
    const DROPS: bool = true;
    fn text(&mut self, _s: &str) {}
    fn dropped(&mut self, at: usize, ch: char) {
        if !self.done {
            self.done = !(self.f)(Dropped { at, ch });
        }
    }
}

/// How many code points either way §2's rules look at to decide a member of D: the
/// decision for a code point depends on nothing farther.
pub(crate) const RULE_REACH: usize = JOIN_T_MAX.saturating_add(8);

/// Calls `f` for each member of D in `text` (as given: escape sequences are not
/// removed first) that strict drops, in order, while `f` returns `true`.
pub fn for_each_dropped(text: &str, f: impl FnMut(Dropped) -> bool) {
    let mut keeper = Keeper::new();
    let mut sink = Drops { f, done: false };
    keeper.push(text, &mut sink);
    keeper.finish(&mut sink);
}

/// The first member of D in `text` that strict drops.
pub fn first_dropped(text: &str) -> Option<Dropped> {
    let mut first = None;
    for_each_dropped(text, |d| {
        first = Some(d);
        false
    });
    first
}

/// Whether the code point at byte `i` of `text` is a member of D that strict drops,
/// decided by its context (joiners in emoji, after viramas, in joining scripts). Looks
/// at a bounded neighbourhood only, so a scan calling it at each position is linear.
pub fn is_dropped_at(text: &str, i: usize) -> bool {
    const REACH: usize = RULE_REACH;
    let Some(c) = text.get(i..).and_then(|s| s.chars().next()) else {
        return false;
    };
    if !super::class::in_drop_set(c) {
        return false;
    }
    let head = text.get(..i).unwrap_or_default();
    let start = head
        .char_indices()
        .rev()
        .take(REACH)
        .last()
        .map_or(i, |(k, _)| k);
    let tail = text.get(i..).unwrap_or_default();
    let end = tail
        .char_indices()
        .nth(REACH)
        .map_or(text.len(), |(k, _)| i.saturating_add(k));
    let window = text.get(start..end).unwrap_or_default();
    let target = i.saturating_sub(start);
    let mut hit = false;
    for_each_dropped(window, |d| {
        if d.at == target {
            hit = true;
        }
        d.at < target
    });
    hit
}

/// Whether `value` has a control, and the first member of D strict drops.
fn first_control_or_dropped(value: &str) -> (bool, Option<char>) {
    if value.chars().any(is_control) {
        return (true, None);
    }
    (false, first_dropped(value).map(|d| d.ch))
}

/// Strict `assertNoControlChars`: no control character, then no member of D that §2
/// would not keep.
pub fn check_no_control<'a>(value: &'a str, field: &'a str) -> Result<&'a str, Rejection<'a>> {
    match first_control_or_dropped(value) {
        (true, _) => Err(Rejection::new(field, Reason::Control, value)),
        (false, Some(c)) => Err(Rejection::new(field, Reason::Invisible(c), value)),
        (false, None) => Ok(value),
    }
}

/// Strict `assertSafeGlob`: non-empty, no `"`, no control, no member of D strict drops.
pub fn check_safe_glob(value: &str) -> Result<&str, Rejection<'_>> {
    const FIELD: &str = "globs[]";
    if value.is_empty() {
        return Err(Rejection::new(FIELD, Reason::Empty, value));
    }
    if value.contains('"') {
        return Err(Rejection::new(FIELD, Reason::DoubleQuote, value));
    }
    match first_control_or_dropped(value) {
        (true, _) => Err(Rejection::new(FIELD, Reason::GlobControl, value)),
        (false, Some(c)) => Err(Rejection::new(FIELD, Reason::GlobInvisible(c), value)),
        (false, None) => Ok(value),
    }
}

/// The first literal of `set` on the folded view (§4) of `text`.
pub fn find_forgery<'s>(text: &str, set: &'s LiteralSet<'s>) -> Option<&'s str> {
    struct Nothing;
    impl super::sink::Sink for Nothing {
        fn text(&mut self, _s: &str) {}
    }
    let mut matcher = Matcher::new(set);
    matcher.push(text, &mut Nothing);
    matcher.finish(&mut Nothing);
    set.first_of(matcher.found())
}

/// Strict `assertSafeDescription`: [`check_no_control`] as `description`, the default
/// literals on the folded view, then at most [`DESCRIPTION_MAX_BYTES`].
pub fn check_safe_description(value: &str) -> Result<&str, Rejection<'_>> {
    const FIELD: &str = "description";
    check_no_control(value, FIELD)?;
    if let Some(literal) = find_forgery(value, &LiteralSet::DEFAULT) {
        return Err(Rejection::forgery(FIELD, literal));
    }
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
