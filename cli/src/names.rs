//! Names of the code points `airlock scan` can report: the dangerous-invisible table
//! of SPEC §2, the basic variation selectors, the controls (Cc, by their Unicode
//! name aliases, since Cc code points have no `Name`) and, for `--profile strict`,
//! every member of D: the assigned ones by name, the 3,738 reserved ones by their
//! code point label (`<reserved-E0080>`, UAX #44 §4.8). Unicode 17.0.

use std::borrow::Cow;

/// C0 controls U+0000–U+001F.
const C0: [&str; 32] = [
    "NULL",
    "START OF HEADING",
    "START OF TEXT",
    "END OF TEXT",
    "END OF TRANSMISSION",
    "ENQUIRY",
    "ACKNOWLEDGE",
    "ALERT",
    "BACKSPACE",
    "CHARACTER TABULATION",
    "LINE FEED",
    "LINE TABULATION",
    "FORM FEED",
    "CARRIAGE RETURN",
    "SHIFT OUT",
    "SHIFT IN",
    "DATA LINK ESCAPE",
    "DEVICE CONTROL ONE",
    "DEVICE CONTROL TWO",
    "DEVICE CONTROL THREE",
    "DEVICE CONTROL FOUR",
    "NEGATIVE ACKNOWLEDGE",
    "SYNCHRONOUS IDLE",
    "END OF TRANSMISSION BLOCK",
    "CANCEL",
    "END OF MEDIUM",
    "SUBSTITUTE",
    "ESCAPE",
    "INFORMATION SEPARATOR FOUR",
    "INFORMATION SEPARATOR THREE",
    "INFORMATION SEPARATOR TWO",
    "INFORMATION SEPARATOR ONE",
];

/// DEL and the C1 controls, U+007F–U+009F.
const C1: [&str; 33] = [
    "DELETE",
    "PADDING CHARACTER",
    "HIGH OCTET PRESET",
    "BREAK PERMITTED HERE",
    "NO BREAK HERE",
    "INDEX",
    "NEXT LINE",
    "START OF SELECTED AREA",
    "END OF SELECTED AREA",
    "CHARACTER TABULATION SET",
    "CHARACTER TABULATION WITH JUSTIFICATION",
    "LINE TABULATION SET",
    "PARTIAL LINE FORWARD",
    "PARTIAL LINE BACKWARD",
    "REVERSE LINE FEED",
    "SINGLE SHIFT TWO",
    "SINGLE SHIFT THREE",
    "DEVICE CONTROL STRING",
    "PRIVATE USE ONE",
    "PRIVATE USE TWO",
    "SET TRANSMIT STATE",
    "CANCEL CHARACTER",
    "MESSAGE WAITING",
    "START OF GUARDED AREA",
    "END OF GUARDED AREA",
    "START OF STRING",
    "SINGLE GRAPHIC CHARACTER INTRODUCER",
    "SINGLE CHARACTER INTRODUCER",
    "CONTROL SEQUENCE INTRODUCER",
    "STRING TERMINATOR",
    "OPERATING SYSTEM COMMAND",
    "PRIVACY MESSAGE",
    "APPLICATION PROGRAM COMMAND",
];

/// Printable ASCII U+0020–U+007E, whose Tag-block twins are "TAG " + the name.
const ASCII: [&str; 95] = [
    "SPACE",
    "EXCLAMATION MARK",
    "QUOTATION MARK",
    "NUMBER SIGN",
    "DOLLAR SIGN",
    "PERCENT SIGN",
    "AMPERSAND",
    "APOSTROPHE",
    "LEFT PARENTHESIS",
    "RIGHT PARENTHESIS",
    "ASTERISK",
    "PLUS SIGN",
    "COMMA",
    "HYPHEN-MINUS",
    "FULL STOP",
    "SOLIDUS",
    "DIGIT ZERO",
    "DIGIT ONE",
    "DIGIT TWO",
    "DIGIT THREE",
    "DIGIT FOUR",
    "DIGIT FIVE",
    "DIGIT SIX",
    "DIGIT SEVEN",
    "DIGIT EIGHT",
    "DIGIT NINE",
    "COLON",
    "SEMICOLON",
    "LESS-THAN SIGN",
    "EQUALS SIGN",
    "GREATER-THAN SIGN",
    "QUESTION MARK",
    "COMMERCIAL AT",
    "LATIN CAPITAL LETTER A",
    "LATIN CAPITAL LETTER B",
    "LATIN CAPITAL LETTER C",
    "LATIN CAPITAL LETTER D",
    "LATIN CAPITAL LETTER E",
    "LATIN CAPITAL LETTER F",
    "LATIN CAPITAL LETTER G",
    "LATIN CAPITAL LETTER H",
    "LATIN CAPITAL LETTER I",
    "LATIN CAPITAL LETTER J",
    "LATIN CAPITAL LETTER K",
    "LATIN CAPITAL LETTER L",
    "LATIN CAPITAL LETTER M",
    "LATIN CAPITAL LETTER N",
    "LATIN CAPITAL LETTER O",
    "LATIN CAPITAL LETTER P",
    "LATIN CAPITAL LETTER Q",
    "LATIN CAPITAL LETTER R",
    "LATIN CAPITAL LETTER S",
    "LATIN CAPITAL LETTER T",
    "LATIN CAPITAL LETTER U",
    "LATIN CAPITAL LETTER V",
    "LATIN CAPITAL LETTER W",
    "LATIN CAPITAL LETTER X",
    "LATIN CAPITAL LETTER Y",
    "LATIN CAPITAL LETTER Z",
    "LEFT SQUARE BRACKET",
    "REVERSE SOLIDUS",
    "RIGHT SQUARE BRACKET",
    "CIRCUMFLEX ACCENT",
    "LOW LINE",
    "GRAVE ACCENT",
    "LATIN SMALL LETTER A",
    "LATIN SMALL LETTER B",
    "LATIN SMALL LETTER C",
    "LATIN SMALL LETTER D",
    "LATIN SMALL LETTER E",
    "LATIN SMALL LETTER F",
    "LATIN SMALL LETTER G",
    "LATIN SMALL LETTER H",
    "LATIN SMALL LETTER I",
    "LATIN SMALL LETTER J",
    "LATIN SMALL LETTER K",
    "LATIN SMALL LETTER L",
    "LATIN SMALL LETTER M",
    "LATIN SMALL LETTER N",
    "LATIN SMALL LETTER O",
    "LATIN SMALL LETTER P",
    "LATIN SMALL LETTER Q",
    "LATIN SMALL LETTER R",
    "LATIN SMALL LETTER S",
    "LATIN SMALL LETTER T",
    "LATIN SMALL LETTER U",
    "LATIN SMALL LETTER V",
    "LATIN SMALL LETTER W",
    "LATIN SMALL LETTER X",
    "LATIN SMALL LETTER Y",
    "LATIN SMALL LETTER Z",
    "LEFT CURLY BRACKET",
    "VERTICAL LINE",
    "RIGHT CURLY BRACKET",
    "TILDE",
];

/// The single members of the table.
const TABLE: [(char, &str); 23] = [
    ('\u{AD}', "SOFT HYPHEN"),
    ('\u{115F}', "HANGUL CHOSEONG FILLER"),
    ('\u{1160}', "HANGUL JUNGSEONG FILLER"),
    ('\u{180E}', "MONGOLIAN VOWEL SEPARATOR"),
    ('\u{200B}', "ZERO WIDTH SPACE"),
    ('\u{200C}', "ZERO WIDTH NON-JOINER"),
    ('\u{200D}', "ZERO WIDTH JOINER"),
    ('\u{202A}', "LEFT-TO-RIGHT EMBEDDING"),
    ('\u{202B}', "RIGHT-TO-LEFT EMBEDDING"),
    ('\u{202C}', "POP DIRECTIONAL FORMATTING"),
    ('\u{202D}', "LEFT-TO-RIGHT OVERRIDE"),
    ('\u{202E}', "RIGHT-TO-LEFT OVERRIDE"),
    ('\u{2060}', "WORD JOINER"),
    ('\u{2061}', "FUNCTION APPLICATION"),
    ('\u{2062}', "INVISIBLE TIMES"),
    ('\u{2063}', "INVISIBLE SEPARATOR"),
    ('\u{2064}', "INVISIBLE PLUS"),
    ('\u{2066}', "LEFT-TO-RIGHT ISOLATE"),
    ('\u{2067}', "RIGHT-TO-LEFT ISOLATE"),
    ('\u{2068}', "FIRST STRONG ISOLATE"),
    ('\u{2069}', "POP DIRECTIONAL ISOLATE"),
    ('\u{3164}', "HANGUL FILLER"),
    ('\u{FEFF}', "ZERO WIDTH NO-BREAK SPACE"),
];

/// The Unicode name (or control alias) of a reportable code point; other code points
/// get `None`.
pub(crate) fn name(c: char) -> Option<Cow<'static, str>> {
    let cp = u32::from(c);
    let index = |base: u32| usize::try_from(cp.wrapping_sub(base)).unwrap_or(usize::MAX);
    match cp {
        0x00..=0x1F => C0.get(index(0)).map(|&n| Cow::Borrowed(n)),
        0x7F..=0x9F => C1.get(index(0x7F)).map(|&n| Cow::Borrowed(n)),
        0xFE00..=0xFE0F => Some(Cow::Owned(format!(
            "VARIATION SELECTOR-{}",
            cp.wrapping_sub(0xFE00).wrapping_add(1)
        ))),
        0xE0100..=0xE01EF => Some(Cow::Owned(format!(
            "VARIATION SELECTOR-{}",
            cp.wrapping_sub(0xE0100).wrapping_add(17)
        ))),
        0xE0001 => Some(Cow::Borrowed("LANGUAGE TAG")),
        0xE007F => Some(Cow::Borrowed("CANCEL TAG")),
        0xE0020..=0xE007E => ASCII
            .get(index(0xE0020))
            .map(|n| Cow::Owned(format!("TAG {n}"))),
        // E0000 and E0002–E001F are unassigned: they have no name.
        0xE0000..=0xE001F => Some(Cow::Borrowed("<unassigned tag>")),
        _ => TABLE
            .iter()
            .chain(STRICT_TABLE.iter())
            .find(|&&(t, _)| t == c)
            .map(|&(_, n)| Cow::Borrowed(n))
            // Every other member of D is reserved (the test below checks the count).
            .or_else(|| {
                airlock_core::strict::in_drop_set(c)
                    .then(|| Cow::Owned(format!("<reserved-{cp:04X}>")))
            }),
    }
}

/// The assigned members of the strict profile's D that neither [`TABLE`] nor a range
/// above names (`unicodedata2` 17.0.0's names).
const STRICT_TABLE: [(char, &str); 29] = [
    ('\u{34F}', "COMBINING GRAPHEME JOINER"),
    ('\u{61C}', "ARABIC LETTER MARK"),
    ('\u{17B4}', "KHMER VOWEL INHERENT AQ"),
    ('\u{17B5}', "KHMER VOWEL INHERENT AA"),
    ('\u{180B}', "MONGOLIAN FREE VARIATION SELECTOR ONE"),
    ('\u{180C}', "MONGOLIAN FREE VARIATION SELECTOR TWO"),
    ('\u{180D}', "MONGOLIAN FREE VARIATION SELECTOR THREE"),
    ('\u{180F}', "MONGOLIAN FREE VARIATION SELECTOR FOUR"),
    ('\u{200E}', "LEFT-TO-RIGHT MARK"),
    ('\u{200F}', "RIGHT-TO-LEFT MARK"),
    ('\u{206A}', "INHIBIT SYMMETRIC SWAPPING"),
    ('\u{206B}', "ACTIVATE SYMMETRIC SWAPPING"),
    ('\u{206C}', "INHIBIT ARABIC FORM SHAPING"),
    ('\u{206D}', "ACTIVATE ARABIC FORM SHAPING"),
    ('\u{206E}', "NATIONAL DIGIT SHAPES"),
    ('\u{206F}', "NOMINAL DIGIT SHAPES"),
    ('\u{FFA0}', "HALFWIDTH HANGUL FILLER"),
    ('\u{1BCA0}', "SHORTHAND FORMAT LETTER OVERLAP"),
    ('\u{1BCA1}', "SHORTHAND FORMAT CONTINUING OVERLAP"),
    ('\u{1BCA2}', "SHORTHAND FORMAT DOWN STEP"),
    ('\u{1BCA3}', "SHORTHAND FORMAT UP STEP"),
    ('\u{1D173}', "MUSICAL SYMBOL BEGIN BEAM"),
    ('\u{1D174}', "MUSICAL SYMBOL END BEAM"),
    ('\u{1D175}', "MUSICAL SYMBOL BEGIN TIE"),
    ('\u{1D176}', "MUSICAL SYMBOL END TIE"),
    ('\u{1D177}', "MUSICAL SYMBOL BEGIN SLUR"),
    ('\u{1D178}', "MUSICAL SYMBOL END SLUR"),
    ('\u{1D179}', "MUSICAL SYMBOL BEGIN PHRASE"),
    ('\u{1D17A}', "MUSICAL SYMBOL END PHRASE"),
];

#[cfg(test)]
mod tests {
    use super::*;
    use airlock_core::{is_control, is_dangerous_invisible};

    #[test]
    fn every_reportable_code_point_has_a_name() {
        let mut reserved = 0;
        for c in '\0'..=char::MAX {
            let reportable = is_control(c)
                || is_dangerous_invisible(c)
                || airlock_core::class::is_variation_selector(c)
                || airlock_core::strict::in_drop_set(c);
            let n = name(c);
            assert_eq!(n.is_some(), reportable, "U+{:04X}", u32::from(c));
            reserved += usize::from(n.is_some_and(|n| n.starts_with("<reserved-")));
        }
        // PROFILE-STRICT §1: 3,738 of D's 4,174 code points are reserved; a name
        // missing from the tables would show up as one more.
        assert_eq!(reserved, 3738);
    }

    #[test]
    fn known_names() {
        assert_eq!(
            name('\u{E0061}').as_deref(),
            Some("TAG LATIN SMALL LETTER A")
        );
        assert_eq!(name('\u{FE0F}').as_deref(), Some("VARIATION SELECTOR-16"));
        assert_eq!(name('\u{E01EF}').as_deref(), Some("VARIATION SELECTOR-256"));
        assert_eq!(name('\u{1B}').as_deref(), Some("ESCAPE"));
        assert_eq!(name('\u{85}').as_deref(), Some("NEXT LINE"));
        assert_eq!(name('\u{200B}').as_deref(), Some("ZERO WIDTH SPACE"));
        assert_eq!(name('\u{200E}').as_deref(), Some("LEFT-TO-RIGHT MARK"));
        assert_eq!(name('\u{E0080}').as_deref(), Some("<reserved-E0080>"));
        assert_eq!(name('\u{2065}').as_deref(), Some("<reserved-2065>"));
    }
}
