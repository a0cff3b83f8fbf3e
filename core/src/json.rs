//! JSON strings written as JavaScript writes them: a leaf formatter the rejection
//! messages and the frontmatter report share.

use core::fmt::{self, Write};

/// A string written as JavaScript's `JSON.stringify` writes it, optionally cut after a
/// number of UTF-16 code units the way `String.prototype.slice` cuts (a surrogate pair
/// cut in half leaves its high surrogate, escaped as `\udxxx`).
#[derive(Clone, Copy, Debug)]
pub struct JsonString<'a> {
    text: &'a str,
    max_units: usize,
}

impl<'a> JsonString<'a> {
    /// The whole of `text`.
    pub const fn whole(text: &'a str) -> Self {
        JsonString {
            text,
            max_units: usize::MAX,
        }
    }

    /// At most the first `max_units` UTF-16 code units of `text`.
    pub const fn preview(text: &'a str, max_units: usize) -> Self {
        JsonString { text, max_units }
    }
}

impl fmt::Display for JsonString<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_char('"')?;
        let mut units_left = self.max_units;
        let mut run_start = 0;
        for (at, c) in self.text.char_indices() {
            let units = c.len_utf16();
            let escape = matches!(c, '"' | '\\' | '\0'..='\u{1F}');
            if units > units_left || escape {
                f.write_str(self.text.get(run_start..at).unwrap_or_default())?;
                run_start = at.saturating_add(c.len_utf8());
            }
            if units > units_left {
                if units_left > 0 {
                    // Only half a surrogate pair fits: JavaScript keeps the high surrogate.
                    let high = 0xD800 | ((u32::from(c).saturating_sub(0x1_0000)) >> 10);
                    write!(f, "\\u{high:04x}")?;
                }
                return f.write_char('"');
            }
            units_left = units_left.saturating_sub(units);
            if escape {
                match c {
                    '"' => f.write_str("\\\"")?,
                    '\\' => f.write_str("\\\\")?,
                    '\u{8}' => f.write_str("\\b")?,
                    '\u{C}' => f.write_str("\\f")?,
                    '\n' => f.write_str("\\n")?,
                    '\r' => f.write_str("\\r")?,
                    '\t' => f.write_str("\\t")?,
                    _ => write!(f, "\\u{:04x}", u32::from(c))?,
                }
            }
        }
        f.write_str(self.text.get(run_start..).unwrap_or_default())?;
        f.write_char('"')
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::format;
    use std::string::ToString;

    #[test]
    fn json_escapes_like_javascript() {
        let s = JsonString::whole("a\"b\\c\u{8}\u{C}\n\r\t\u{1}\u{1F}\u{7F}\u{85}\u{2028}😀");
        assert_eq!(
            s.to_string(),
            "\"a\\\"b\\\\c\\b\\f\\n\\r\\t\\u0001\\u001f\u{7F}\u{85}\u{2028}😀\""
        );
    }

    #[test]
    fn preview_cuts_utf16_units_and_keeps_high_surrogate() {
        let text = format!("{}😀zz", "y".repeat(119));
        let shown = JsonString::preview(&text, 120).to_string();
        assert_eq!(shown, format!("\"{}\\ud83d\"", "y".repeat(119)));
        let exact = format!("{}😀", "y".repeat(118));
        assert_eq!(
            JsonString::preview(&exact, 120).to_string(),
            format!("\"{exact}\"")
        );
    }
}
