//! The one rule for hidden code points in outgoing text: core's strict
//! classification (`airlock_core::strict`, PROFILE-STRICT §2).
//!
//! A code point is hidden when the strict profile drops it — a member of D
//! (Default_Ignorable_Code_Point ∪ Bidi_Control, Unicode 17.0) that does not
//! spell: ZWJ, U+FE0F and tag characters are kept only inside an occurrence of
//! an RGI emoji sequence (exact membership, pinned Unicode 17 data), ZWJ and
//! ZWNJ after a virama or in a joining script — or it is a control (Cc) other
//! than TAB, LF and CR. D holds every dangerous invisible of the reference
//! table and every variation selector, so an orphan selector is hidden here
//! exactly as `scan` and `strip` treat it. `👨‍💻`, `🏳️‍🌈`, `👨‍👩‍👧`, `1️⃣`
//! pass; a ZWJ between two letters, a lone tag run, a selector after a letter
//! do not.

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
    airlock_core::strict::for_each_dropped(text, |d| {
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
