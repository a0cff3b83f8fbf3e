//! What follows a replacement (PROFILE-STRICT §5–6, "after a replacement"): step 2
//! judged it next to the code point the match ended in, and a second pass judges it
//! next to the replacement's `]`. So the members of D that code point kept go with it.
//!
//! A replacement ends in `]`: ASCII, Joining_Type U, no virama, no emoji base, and no
//! RGI sequence holds it. Step 2 on a second pass would therefore keep, of the members
//! of D up to the first code point that is neither one of them nor of Joining_Type T,
//! only a ZWJ or ZWNJ right after a virama (a sequence never begins with a member of D
//! or a mark; `gen-strict-vectors.mjs` checks both); the rest go here, on the first.
//! Matches can end in a context code point: `™` (U+2122, `tm`, before U+FE0F or U+FE0E)
//! ends `untrusted-content:start`, the Batak virama U+1BF3 (`-`) ends `<!--`, the dual
//! joining N'Ko letter U+07E0 (`t`) keeps a ZWNJ after marks.

use super::class::{JT_T, in_drop_set, is_virama, joining_type};

/// Where the output stands with respect to the last replacement.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Trail {
    /// Past the first code point after it that is neither a member of D nor a mark.
    #[default]
    Clear,
    /// Right after it, or after members of D and marks only; whether the last of them
    /// was a virama.
    After { virama: bool },
}

impl Trail {
    /// The state right after a replacement.
    pub(crate) const REPLACED: Trail = Trail::After { virama: false };

    /// Hands on `s` as it should be output after the current state, in pieces.
    #[inline]
    pub(crate) fn filter<'t>(&mut self, s: &'t str, mut emit: impl FnMut(&'t str)) {
        let Trail::After { mut virama } = *self else {
            emit(s);
            return;
        };
        // Start of the piece not yet handed on.
        let mut from = 0usize;
        for (i, c) in s.char_indices() {
            if in_drop_set(c) {
                if virama && matches!(c, '\u{200C}' | '\u{200D}') {
                    virama = false;
                    continue;
                }
                if let Some(kept) = s.get(from..i) {
                    emit(kept);
                }
                from = i.saturating_add(c.len_utf8());
                virama = false;
                continue;
            }
            let cp = u32::from(c);
            if joining_type(cp) == JT_T {
                virama = is_virama(cp);
                continue;
            }
            *self = Trail::Clear;
            if let Some(rest) = s.get(from..) {
                emit(rest);
            }
            return;
        }
        *self = Trail::After { virama };
        if let Some(rest) = s.get(from..)
            && !rest.is_empty()
        {
            emit(rest);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::string::String;

    fn after(pieces: &[&str]) -> String {
        let mut t = Trail::REPLACED;
        let mut out = String::new();
        for p in pieces {
            t.filter(p, |s| out.push_str(s));
        }
        out
    }

    #[test]
    fn members_of_d_after_a_replacement_go() {
        assert_eq!(after(&["\u{FE0F}x\u{FE0F}"]), "x\u{FE0F}");
        assert_eq!(after(&["\u{FE0E}", "\u{200D}", "a"]), "a");
        // Through marks: a ZWNJ whose left context was the match.
        assert_eq!(after(&["\u{7EB}\u{200C}\u{7E0}"]), "\u{7EB}\u{7E0}");
        assert_eq!(
            after(&["\u{7EB}", "\u{200C}", "\u{7E0}\u{200C}"]),
            "\u{7EB}\u{7E0}\u{200C}"
        );
        // A virama keeps its joiner, as step 2 would next to the `]`; only the first.
        assert_eq!(after(&["\u{94D}\u{200D}\u{200D}k"]), "\u{94D}\u{200D}k");
        assert_eq!(after(&["\u{94D}", "\u{200C}"]), "\u{94D}\u{200C}");
        // Anything else ends it.
        assert_eq!(after(&["a\u{FE0F}"]), "a\u{FE0F}");
        assert_eq!(after(&["\u{1BF3}"]), "\u{1BF3}");
        let mut t = Trail::Clear;
        let mut out = String::new();
        t.filter("\u{FE0F}", |s| out.push_str(s));
        assert_eq!(out, "\u{FE0F}");
    }
}
