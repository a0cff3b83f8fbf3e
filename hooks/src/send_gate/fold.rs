//! The folded view block and warn patterns also run on, so that a blocked word
//! spelt with a letter of another script (Cyrillic `о`), a fullwidth letter
//! (`ｓｏｒｒｙ`) or a combining mark inside it (`so\u{301}rry`) still matches.
//!
//! Each code point is decomposed canonically (NFD), its combining marks are
//! dropped, and each remaining code point is folded as core's strict profile
//! folds it (`airlock_core::strict::fold_of`, PROFILE-STRICT §4: NFKC_Casefold,
//! then the UTS #39 skeleton, to printable ASCII; a member of D folds to
//! nothing). A code point with no ASCII fold (a barrier: Chinese, Hebrew…) is
//! kept, lower-cased, so a pattern written in that script still matches.
//!
//! A match on the folded view is reported in the reader's spelling: its span
//! is mapped back to the code points that produced it by folding again up to
//! the match, so the view carries no offset table (its memory is the folded
//! text only).

use unicode_normalization::char::{decompose_canonical, is_combining_mark};

/// The folded view of `text`, or `None` when it would add nothing: ASCII text
/// folds to its lower case, and the patterns are case-insensitive already.
pub(crate) fn folded(text: &str) -> Option<String> {
    if text.is_ascii() {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        fold_char(c, &mut |s| out.push_str(s));
    }
    (out != text).then_some(out)
}

/// Calls `emit` with the folded pieces of one code point of the original.
fn fold_char(c: char, emit: &mut impl FnMut(&str)) {
    if c.is_ascii() {
        let lower = c.to_ascii_lowercase();
        emit(lower.encode_utf8(&mut [0; 4]));
        return;
    }
    decompose_canonical(c, |d| {
        if is_combining_mark(d) {
            return;
        }
        match airlock_core::strict::fold_of(d) {
            Some(ascii) => emit(ascii),
            None => {
                for lower in d.to_lowercase() {
                    emit(lower.encode_utf8(&mut [0; 4]));
                }
            }
        }
    });
}

/// The span of `text` (the original) whose fold holds the folded bytes
/// `start..end`: from the first code point whose fold reaches past `start` to
/// the last one whose fold starts before `end`.
pub(crate) fn original_span(text: &str, start: usize, end: usize) -> &str {
    let mut folded_at = 0usize;
    let mut from = None;
    let mut to = text.len();
    for (i, c) in text.char_indices() {
        let mut len = 0usize;
        fold_char(c, &mut |s| len = len.saturating_add(s.len()));
        let next = folded_at.saturating_add(len);
        if from.is_none() && next > start {
            from = Some(i);
        }
        if folded_at >= end && from.is_some() {
            to = i;
            break;
        }
        folded_at = next;
    }
    text.get(from.unwrap_or(text.len())..to).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(text: &str) -> String {
        folded(text).unwrap_or_else(|| text.to_owned())
    }

    #[test]
    fn other_scripts_fullwidth_and_marks_fold_to_ascii() {
        // Cyrillic о (U+043E), fullwidth ｓｏｒｒｙ, a combining acute, é precomposed.
        assert_eq!(view("s\u{43E}rry"), "sorry");
        assert_eq!(view("\u{FF33}\u{FF4F}\u{FF52}\u{FF52}\u{FF59}"), "sorry");
        assert_eq!(view("so\u{301}rry"), "sorry");
        assert_eq!(view("d\u{E9}lai"), "delai");
        assert_eq!(view("sor\u{200B}ry"), "sorry");
        // No ASCII fold: kept as written.
        assert_eq!(view("\u{4F60}\u{597D}"), "\u{4F60}\u{597D}");
        assert!(folded("plain ascii").is_none());
    }

    #[test]
    fn a_folded_match_maps_back_to_the_readers_spelling() {
        let text = "we are s\u{43E}rr\u{FF59} f\u{301}or it";
        let f = view(text);
        let at = f.find("sorry").unwrap();
        assert_eq!(original_span(text, at, at + 5), "s\u{43E}rr\u{FF59}");
        let at = f.find("for").unwrap();
        assert_eq!(original_span(text, at, at + 3), "f\u{301}or");
        assert_eq!(original_span("\u{2163}x", 0, 2), "\u{2163}");
    }
}
