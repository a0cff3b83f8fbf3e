//! The one rule for hidden code points in outgoing text: core's strict
//! classification (`airlock_core::strict`, PROFILE-STRICT §2).
//!
//! A code point is hidden when the strict profile drops it — a member of D
//! (Default_Ignorable_Code_Point ∪ Bidi_Control, Unicode 18.0) that does not
//! spell: ZWJ, U+FE0F and tag characters are kept only inside an occurrence of
//! an RGI emoji sequence (exact membership, pinned Unicode 18 data), ZWJ and
//! ZWNJ after a virama or in a joining script — or it is a control (Cc) other
//! than TAB, LF and CR. D holds every dangerous invisible of the reference
//! table and every variation selector, so an orphan selector is hidden here
//! exactly as `scan` and `strip` treat it. `👨‍💻`, `🏳️‍🌈`, `👨‍👩‍👧`, `1️⃣`
//! pass; a ZWJ between two letters, a lone tag run, a selector after a letter
//! do not.
//!
//! The gate then forgives three kinds of dropped code point that a reader's
//! keyboard or word processor writes, each for a stated reason
//! (`cli/SEND_GATE.md`, "Hidden code points"):
//! * a ZWJ or U+FE0F inside a minimally qualified or unqualified emoji ZWJ
//!   sequence of emoji-test.txt (`emoji_zwj`, generated): `❤‍🔥` and `🏳‍🌈`
//!   without U+FE0F are what some keyboards send;
//! * one soft hyphen (U+00AD) between two letters: a hyphenation point, as
//!   word processors write them;
//! * one LRM, RLM or ALM (U+200E, U+200F, U+061C) in a string that holds a
//!   right-to-left letter, and not next to another hidden code point: the
//!   marks right-to-left mail needs for its punctuation and numbers.
//!
//! None of them can split a blocked word, since block patterns also run on
//! the folded view, which drops every member of D.

use super::emoji_zwj::{LONGEST, NOT_FULLY_QUALIFIED};

/// One hidden code point: where it is (byte offset and code point index).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct HiddenAt {
    pub(crate) code_point: char,
    pub(crate) byte_offset: usize,
    pub(crate) char_index: usize,
}

/// Counts code points up to each offset asked for, in increasing order, so
/// that placing every hit costs one walk of the text.
struct CharIndex<'t> {
    text: &'t str,
    byte: usize,
    chars: usize,
}

impl CharIndex<'_> {
    fn at(&mut self, byte_offset: usize) -> usize {
        let between = self
            .text
            .get(self.byte..byte_offset)
            .map_or(0, |s| s.chars().count());
        self.chars = self.chars.saturating_add(between);
        self.byte = byte_offset;
        self.chars
    }
}

/// Calls `found` for every hidden code point of `text`: first the members of
/// D that strict drops, then the controls, each in order. Linear in the
/// length of `text` and allocation-free.
pub(crate) fn for_each_hidden(text: &str, mut found: impl FnMut(HiddenAt)) {
    let mut index = CharIndex {
        text,
        byte: 0,
        chars: 0,
    };
    let rtl = text.chars().any(super::css::is_rtl_letter);
    airlock_core::strict::for_each_dropped(text, |d| {
        if forgiven(text, d.at, d.ch, rtl) {
            return true;
        }
        found(HiddenAt {
            code_point: d.ch,
            byte_offset: d.at,
            char_index: index.at(d.at),
        });
        true
    });
    let mut index = CharIndex {
        text,
        byte: 0,
        chars: 0,
    };
    for (byte_offset, b) in text.bytes().enumerate() {
        // Every control is ASCII (C0, DEL) or a two-byte C1 (0xC2 0x80–0x9F).
        let code_point = if b.is_ascii_control() && !matches!(b, b'\t' | b'\n' | b'\r') {
            char::from(b)
        } else if b == 0xC2 {
            match text.get(byte_offset..).and_then(|s| s.chars().next()) {
                Some(c) if airlock_core::is_control(c) => c,
                _ => continue,
            }
        } else {
            continue;
        };
        found(HiddenAt {
            code_point,
            byte_offset,
            char_index: index.at(byte_offset),
        });
    }
}

/// Whether the dropped `ch` at byte `at` of `text` is one the gate lets pass
/// (the module's three kinds).
fn forgiven(text: &str, at: usize, ch: char, rtl: bool) -> bool {
    let before = text.get(..at).and_then(|s| s.chars().next_back());
    let after = text
        .get(at.saturating_add(ch.len_utf8())..)
        .and_then(|s| s.chars().next());
    match ch {
        '\u{200D}' | '\u{FE0F}' => in_listed_sequence(text, at),
        '\u{AD}' => {
            before.is_some_and(char::is_alphabetic) && after.is_some_and(char::is_alphabetic)
        }
        '\u{200E}' | '\u{200F}' | '\u{61C}' => {
            let lone = |c: Option<char>| !c.is_some_and(airlock_core::strict::in_drop_set);
            rtl && lone(before) && lone(after)
        }
        _ => false,
    }
}

/// Whether the code point at byte `at` lies inside an occurrence of a
/// sequence of [`NOT_FULLY_QUALIFIED`]: every start at most [`LONGEST`] code
/// points back, every length up to [`LONGEST`], so at most LONGEST² binary
/// searches, and only for a ZWJ or U+FE0F that strict drops.
fn in_listed_sequence(text: &str, at: usize) -> bool {
    let head = text.get(..at).unwrap_or_default();
    let starts = head
        .char_indices()
        .rev()
        .map(|(i, _)| i)
        .take(LONGEST.saturating_sub(1));
    std::iter::once(at).chain(starts).any(|start| {
        let rest = text.get(start..).unwrap_or_default();
        rest.char_indices()
            .map(|(i, c)| i.saturating_add(c.len_utf8()))
            .take(LONGEST)
            .filter(|&len| start.saturating_add(len) > at)
            .any(|len| {
                rest.get(..len)
                    .is_some_and(|s| NOT_FULLY_QUALIFIED.binary_search(&s).is_ok())
            })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hidden(text: &str) -> Vec<char> {
        let mut v = Vec::new();
        for_each_hidden(text, |h| v.push(h.code_point));
        v
    }

    #[test]
    fn emoji_sequences_pass() {
        for ok in [
            "👨\u{200D}💻",
            "🏳\u{FE0F}\u{200D}🌈",
            "👨\u{200D}👩\u{200D}👧",
            "🧑🏽\u{200D}💻",
            "❤\u{FE0F}\u{200D}🔥",
            "1\u{FE0F}\u{20E3}",
            "🏴\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}",
            "plain, tab\t and\r\nnewlines",
        ] {
            assert_eq!(hidden(ok), Vec::<char>::new(), "{ok:?}");
        }
    }

    #[test]
    fn emoji_sequences_of_every_status_pass() {
        for ok in [
            "\u{2764}\u{200D}\u{1F525}",
            "\u{1F3F3}\u{200D}\u{1F308}",
            "\u{1F441}\u{200D}\u{1F5E8}",
            "\u{1F468}\u{200D}\u{2764}\u{200D}\u{1F468}",
            "x \u{1F3F3}\u{200D}\u{1F308} y \u{2764}\u{200D}\u{1F525}",
        ] {
            assert_eq!(hidden(ok), Vec::<char>::new(), "{ok:?}");
        }
        // A joiner after a sequence, or between two that make none, still blocks.
        assert_eq!(hidden("\u{2764}\u{200D}\u{1F525}\u{200D}"), ['\u{200D}']);
        assert_eq!(hidden("\u{1F3F3}\u{200D}\u{1F525}"), ['\u{200D}']);
    }

    #[test]
    fn soft_hyphens_and_bidi_marks_pass_only_where_they_mean_something() {
        assert_eq!(hidden("Silben\u{AD}trennung"), Vec::<char>::new());
        assert_eq!(hidden("a\u{AD}\u{AD}b"), ['\u{AD}', '\u{AD}']);
        assert_eq!(hidden("\u{AD}lead"), ['\u{AD}']);
        assert_eq!(hidden("4 \u{AD} 5"), ['\u{AD}']);
        assert_eq!(
            hidden("\u{5E9}\u{5DC}\u{5D5}\u{5DD} (1)\u{200F}"),
            Vec::<char>::new()
        );
        assert_eq!(hidden("\u{627}\u{61C}1"), Vec::<char>::new());
        assert_eq!(hidden("plain\u{200F} latin"), ['\u{200F}']);
        assert_eq!(hidden("\u{5E9}\u{200F}\u{200F}"), ['\u{200F}', '\u{200F}']);
        assert_eq!(hidden("\u{5E9}\u{202E}x"), ['\u{202E}']);
    }

    #[test]
    fn the_sequence_table_is_sorted() {
        assert!(NOT_FULLY_QUALIFIED.windows(2).all(|w| w[0] < w[1]));
        assert!(
            NOT_FULLY_QUALIFIED
                .iter()
                .all(|s| s.chars().count() <= LONGEST)
        );
    }

    #[test]
    fn everything_else_is_hidden() {
        assert_eq!(hidden("a\u{200D}b"), ['\u{200D}']);
        assert_eq!(hidden("👨\u{200D}"), ['\u{200D}']);
        assert_eq!(hidden("a\u{FE0F}"), ['\u{FE0F}']);
        assert_eq!(hidden("a\u{FE0E}"), ['\u{FE0E}']);
        assert_eq!(hidden("\u{E0100}x\u{2066}"), ['\u{E0100}', '\u{2066}']);
        assert_eq!(hidden("\u{E0041}"), ['\u{E0041}']);
        assert_eq!(hidden("🏴\u{E0067}"), ['\u{E0067}']);
        assert_eq!(
            hidden("x\u{202E}y\u{0}\u{7F}\u{85}"),
            ['\u{202E}', '\0', '\u{7F}', '\u{85}']
        );
        assert_eq!(hidden("\u{200B}".repeat(3).as_str()).len(), 3);
    }

    #[test]
    fn positions_are_bytes_and_code_points() {
        let mut at = Vec::new();
        for_each_hidden("é\u{200B}", |h| at.push(h));
        assert_eq!(
            at,
            [HiddenAt {
                code_point: '\u{200B}',
                byte_offset: 2,
                char_index: 1
            }]
        );
    }
}
