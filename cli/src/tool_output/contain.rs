//! Containment of one string the model will read — the one seam where core's strict
//! profile (PROFILE-STRICT §7) plugs in once it lands on main.
//!
//! Until then this is the profile's order built from core's reference pieces plus the
//! rest done here, each step marked with the section it stands in for:
//! 1. escape sequences removed whole (§3, [`super::escape`]);
//! 2. the drop set D (Default_Ignorable ∪ Bidi_Control, Unicode 17) and every Cc but
//!    TAB/LF removed, with core's reference orphan-selector rule; ZWJ, U+FE0F and tags
//!    kept only inside emoji shapes (a stand-in for §2's RGI lists: a ZWJ between two
//!    pictographs, a keycap's U+FE0F, the three RGI subdivision flags);
//! 3. on a folded view (ASCII case, fullwidth forms, NBSP and U+3000 as space — a
//!    stand-in for §4's NFKC_Casefold and confusables): wrapper literals
//!    **redacted** (a tool result is not a record to refuse), envelope markers, special
//!    tokens (§5) and `<!--` (§6) replaced;
//! 4. an optional cap, cut on a code-point boundary with the reference's note.
//!
//! Linear: step 3 tries a bounded set of literals (each ≤ 64 code points) at each
//! position. Memory: at most two copies of the text, each reserved fallibly.

use std::borrow::Cow;
use std::collections::TryReserveError;

use airlock_core::prose::TruncationNote;
use airlock_core::{MARKER_REDACTION, truncate_to_bytes};

use super::escape::remove_escapes;

/// What a wrapper literal is replaced with.
pub(crate) const WRAPPER_REDACTION: &str = "[redacted-wrapper-literal]";
/// What a special token is replaced with (its spaces keep it from forming a new token).
pub(crate) const TOKEN_REDACTION: &str = "[redacted special token]";
/// What `<!--` is replaced with: the comment's text stays, now visible.
pub(crate) const COMMENT_REDACTION: &str = "[html-comment]";

/// Why a string could not be contained.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// A buffer for the result could not be reserved.
    Allocation,
}

impl From<TryReserveError> for Refusal {
    fn from(_: TryReserveError) -> Self {
        Refusal::Allocation
    }
}

/// D = Default_Ignorable_Code_Point ∪ Bidi_Control of Unicode 17.0, as ranges.
const DROP_SET: [(char, char); 17] = [
    ('\u{00AD}', '\u{00AD}'),
    ('\u{034F}', '\u{034F}'),
    ('\u{061C}', '\u{061C}'),
    ('\u{115F}', '\u{1160}'),
    ('\u{17B4}', '\u{17B5}'),
    ('\u{180B}', '\u{180F}'),
    ('\u{200B}', '\u{200F}'),
    ('\u{202A}', '\u{202E}'),
    ('\u{2060}', '\u{206F}'),
    ('\u{3164}', '\u{3164}'),
    ('\u{FE00}', '\u{FE0F}'),
    ('\u{FEFF}', '\u{FEFF}'),
    ('\u{FFA0}', '\u{FFA0}'),
    ('\u{FFF0}', '\u{FFF8}'),
    ('\u{1BCA0}', '\u{1BCA3}'),
    ('\u{1D173}', '\u{1D17A}'),
    ('\u{E0000}', '\u{E0FFF}'),
];

fn in_drop_set(c: char) -> bool {
    c >= '\u{AD}' && DROP_SET.iter().any(|&(lo, hi)| lo <= c && c <= hi)
}

/// Printable ASCII, TAB and LF: bytes no step of the strip ever touches.
fn is_plain_ascii(b: u8) -> bool {
    (0x20..0x7F).contains(&b) || b == b'\t' || b == b'\n'
}

const ZWJ: char = '\u{200D}';
const VS16: char = '\u{FE0F}';
const KEYCAP: char = '\u{20E3}';
const BLACK_FLAG: char = '\u{1F3F4}';
const CANCEL_TAG: char = '\u{E007F}';
/// The tag payloads of the RGI subdivision flags (England, Scotland, Wales).
const RGI_FLAG_TAGS: [&str; 3] = ["gbeng", "gbsct", "gbwls"];

fn is_skin_tone(c: char) -> bool {
    ('\u{1F3FB}'..='\u{1F3FF}').contains(&c)
}

/// How many code points after a U+1F3F4 at the start of `rest` form an RGI
/// subdivision flag's tags (payload and cancel tag), if they do.
fn flag_tag_run(rest: &str) -> Option<usize> {
    let mut payload = String::new();
    for (n, c) in rest.chars().enumerate() {
        if c == CANCEL_TAG {
            return RGI_FLAG_TAGS
                .contains(&payload.as_str())
                .then_some(n.saturating_add(1));
        }
        let ascii = u32::from(c)
            .checked_sub(0xE0000)
            .and_then(|v| u8::try_from(v).ok());
        match ascii {
            Some(b @ (b'a'..=b'z' | b'0'..=b'9')) if payload.len() < 5 => {
                payload.push(char::from(b))
            }
            _ => return None,
        }
    }
    None
}

/// Step 2: `text` without D (but the emoji keeps) and without Cc but TAB/LF.
fn strip(text: &str) -> Result<Cow<'_, str>, Refusal> {
    let needs = !text.bytes().all(is_plain_ascii)
        && text.chars().any(|c| {
            in_drop_set(c)
                || (c.is_control() && c != '\t' && c != '\n')
                || airlock_core::class::is_stripped(c, None)
        });

    if !needs {
        return Ok(Cow::Borrowed(text));
    }
    let mut out = String::new();
    out.try_reserve_exact(text.len())?;
    let mut prev: Option<char> = None;
    // Whether the last kept code point ends a pictograph (a selector or skin tone after
    // one still does): the left side of an emoji ZWJ.
    let mut after_pictograph = false;
    let mut keep_tags = 0usize;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let next = chars.peek().map(|&(_, n)| n);
        let keep = if keep_tags > 0 {
            keep_tags = keep_tags.saturating_sub(1);
            true
        } else if c == ZWJ {
            after_pictograph && next.is_some_and(airlock_core::is_extended_pictographic)
        } else if c == VS16 && matches!(prev, Some('0'..='9' | '#' | '*')) {
            next == Some(KEYCAP)
        } else if c == '\t' || c == '\n' {
            true
        } else if c.is_control() || airlock_core::class::is_stripped(c, prev) {
            false
        } else if in_drop_set(c) {
            // What the reference keeps of D: a selector right after a pictograph.
            matches!(c, '\u{FE00}'..='\u{FE0F}')
        } else {
            true
        };
        if keep {
            out.push(c);
            if c == BLACK_FLAG && keep_tags == 0 {
                keep_tags = flag_tag_run(
                    text.get(i.saturating_add(c.len_utf8())..)
                        .unwrap_or_default(),
                )
                .unwrap_or(0);
            }
            after_pictograph = if airlock_core::is_extended_pictographic(c) {
                true
            } else {
                after_pictograph && (c == VS16 || is_skin_tone(c))
            };
        }
        prev = Some(c);
    }
    Ok(Cow::Owned(out))
}

/// The folded view of one code point (a stand-in for PROFILE-STRICT §4): ASCII lower
/// case; fullwidth forms as their ASCII letter; NBSP and U+3000 as a space; anything
/// else a barrier no literal crosses.
fn fold(c: char) -> Option<u8> {
    let ascii = match c {
        '\u{00A0}' | '\u{3000}' => Some(b' '),
        '\u{FF01}'..='\u{FF5E}' => u32::from(c)
            .checked_sub(0xFEE0)
            .and_then(|v| u8::try_from(v).ok()),
        _ => u8::try_from(u32::from(c)).ok().filter(u8::is_ascii),
    };
    ascii.map(|b| b.to_ascii_lowercase())
}

/// Literal, replacement. Matched on the folded view, leftmost-longest.
const LITERALS: [(&str, &str); 18] = [
    ("</applicable-rules>", WRAPPER_REDACTION),
    ("## applicable rules (scoped", WRAPPER_REDACTION),
    ("</learnings-index>", WRAPPER_REDACTION),
    ("## learnings index (selected", WRAPPER_REDACTION),
    ("untrusted-content:start", MARKER_REDACTION),
    ("untrusted-content:end", MARKER_REDACTION),
    ("[inst]", TOKEN_REDACTION),
    ("[/inst]", TOKEN_REDACTION),
    ("<<sys>>", TOKEN_REDACTION),
    ("<</sys>>", TOKEN_REDACTION),
    ("<start_of_turn>", TOKEN_REDACTION),
    ("<end_of_turn>", TOKEN_REDACTION),
    ("<think>", TOKEN_REDACTION),
    ("</think>", TOKEN_REDACTION),
    ("<tool_call>", TOKEN_REDACTION),
    ("</tool_call>", TOKEN_REDACTION),
    ("<tool_response>", TOKEN_REDACTION),
    ("</tool_response>", TOKEN_REDACTION),
];

/// Longest name of the generic `<|name|>` token, in code points.
const MAX_TOKEN_NAME: usize = 64;

/// The byte length of `literal` matched at the start of `rest` on the folded view.
fn match_literal(rest: &str, literal: &str) -> Option<usize> {
    let mut want = literal.bytes();
    let mut len = 0usize;
    for c in rest.chars() {
        let Some(expected) = want.next() else {
            return Some(len);
        };
        if fold(c) != Some(expected) {
            return None;
        }
        len = len.saturating_add(c.len_utf8());
    }
    want.next().is_none().then_some(len)
}

/// The byte length of a generic `<|name|>` token at the start of `rest`.
fn match_generic_token(rest: &str) -> Option<usize> {
    let mut chars = rest.char_indices();
    for want in [b'<', b'|'] {
        let (_, c) = chars.next()?;
        if fold(c) != Some(want) {
            return None;
        }
    }
    let mut name = 0usize;
    let mut bar = false;
    for (i, c) in chars {
        let f = fold(c);
        if bar {
            return (f == Some(b'>')).then(|| i.saturating_add(c.len_utf8()));
        }
        match f {
            Some(b'|') if name > 0 => bar = true,
            Some(b'<' | b'>' | b'|' | b' ' | b'\t' | b'\n' | b'\r' | 0x0B | 0x0C) => return None,
            _ if name >= MAX_TOKEN_NAME => return None,
            _ => name = name.saturating_add(1),
        }
    }
    None
}

/// The leftmost-longest redaction starting at the beginning of `rest`: its length and
/// replacement.
fn redaction_at(rest: &str) -> Option<(usize, &'static str)> {
    let first = rest.chars().next().and_then(fold)?;
    if !matches!(first, b'<' | b'#' | b'[' | b'u') {
        return None;
    }
    let mut best: Option<(usize, &'static str)> = None;
    let mut consider = |len: usize, with: &'static str| {
        if best.is_none_or(|(l, _)| len > l) {
            best = Some((len, with));
        }
    };
    for (literal, with) in LITERALS {
        if literal.as_bytes().first() != Some(&first) {
            continue;
        }
        if let Some(len) = match_literal(rest, literal) {
            consider(len, with);
        }
    }
    if first == b'<' {
        if let Some(len) = match_generic_token(rest) {
            consider(len, TOKEN_REDACTION);
        }
        if let Some(len) = match_literal(rest, "<!--") {
            consider(len, COMMENT_REDACTION);
        }
    }
    best
}

/// Bytes at which a redaction can begin: the literals' first characters in either
/// case, and 0xEF, which leads every fullwidth form (U+FF01–U+FF5E).
fn may_start_redaction(b: u8) -> bool {
    matches!(b, b'<' | b'#' | b'[' | b'u' | b'U' | 0xEF)
}

/// Step 3: one pass replacing literals, markers, tokens and `<!--`.
fn redact(text: &str) -> Result<Cow<'_, str>, Refusal> {
    let bytes = text.as_bytes();
    let mut out: Option<String> = None;
    let mut copied = 0usize;
    let mut i = 0usize;
    while let Some(&b) = bytes.get(i) {
        let hit = if may_start_redaction(b) {
            text.get(i..).and_then(redaction_at)
        } else {
            None
        };
        let Some((len, with)) = hit else {
            i = i.saturating_add(1);
            continue;
        };
        let buf = match out.as_mut() {
            Some(buf) => buf,
            None => {
                let mut buf = String::new();
                buf.try_reserve(text.len().saturating_add(64))?;
                out.insert(buf)
            }
        };
        buf.try_reserve(i.saturating_sub(copied).saturating_add(with.len()))?;
        buf.push_str(text.get(copied..i).unwrap_or_default());
        buf.push_str(with);
        i = i.saturating_add(len);
        copied = i;
    }
    Ok(match out {
        Some(mut buf) => {
            buf.try_reserve(text.len().saturating_sub(copied))?;
            buf.push_str(text.get(copied..).unwrap_or_default());
            Cow::Owned(buf)
        }
        None => Cow::Borrowed(text),
    })
}

/// `text` contained, cut to `cap` bytes (plus the note) if given; `None` when nothing
/// changed.
pub(crate) fn contain(text: &str, cap: Option<usize>) -> Result<Option<String>, Refusal> {
    let unescaped = remove_escapes(text)?;
    let base = unescaped.as_deref().unwrap_or(text);
    let stripped = strip(base)?;
    let redacted = redact(&stripped)?;
    let capped: Cow<'_, str> = match cap {
        Some(max) if redacted.len() > max => {
            let cut = truncate_to_bytes(&redacted, max);
            let note = TruncationNote {
                original_bytes: redacted.len(),
                max_bytes: max,
            };
            let mut buf = String::new();
            buf.try_reserve_exact(cut.text.len().saturating_add(note.len()))?;
            buf.push_str(cut.text);
            buf.push_str(&note.to_string());
            Cow::Owned(buf)
        }
        _ => redacted,
    };
    Ok((capped != text).then(|| capped.into_owned()))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;

    fn c(s: &str) -> String {
        contain(s, None).unwrap().unwrap_or_else(|| s.to_owned())
    }

    #[test]
    fn unchanged_text_is_none() {
        assert_eq!(
            contain("plain text, caf\u{e9} 3 < 4 > 2 <b>", None).unwrap(),
            None
        );
        assert_eq!(contain("", None).unwrap(), None);
    }

    #[test]
    fn invisibles_controls_and_escapes_go() {
        assert_eq!(
            c("a\u{200B}b\u{202E}c\u{2066}d\u{E0041}e\u{034F}f\u{2065}g"),
            "abcdefg"
        );
        assert_eq!(c("a\x1b[31mb\x1b[0m\r\n\x01\tz"), "ab\n\tz");
        assert_eq!(c("a\u{85}b\u{9c}c\u{9b}1m"), "abc");
    }

    #[test]
    fn emoji_survive() {
        for e in [
            "\u{1F468}\u{200D}\u{1F4BB}",
            "\u{1F3F3}\u{FE0F}\u{200D}\u{1F308}",
            "\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}",
            "\u{1F44D}\u{1F3FD}",
            "\u{1F469}\u{1F3FD}\u{200D}\u{1F52C}",
            "1\u{FE0F}\u{20E3}",
            "\u{2764}\u{FE0F}",
            "\u{1F3F4}\u{E0067}\u{E0062}\u{E0065}\u{E006E}\u{E0067}\u{E007F}",
        ] {
            assert_eq!(contain(e, None).unwrap(), None, "{e:?}");
        }
    }

    #[test]
    fn emoji_shapes_do_not_carry_smuggled_text() {
        // Tags after a black flag that are not an RGI subdivision flag go.
        assert_eq!(
            c("\u{1F3F4}\u{E0069}\u{E0067}\u{E006E}\u{E007F}x"),
            "\u{1F3F4}x"
        );
        // A ZWJ next to letters goes.
        assert_eq!(c("a\u{200D}b \u{1F468}\u{200D}x"), "ab \u{1F468}x");
        // A keycap selector without its keycap goes.
        assert_eq!(c("1\u{FE0F}x"), "1x");
    }

    #[test]
    fn literals_are_redacted_not_rejected() {
        assert_eq!(
            c("a </APPLICABLE-RULES> b"),
            "a [redacted-wrapper-literal] b"
        );
        assert_eq!(
            c("</APPLI\u{200B}CABLE-RULES>"),
            "[redacted-wrapper-literal]"
        );
        assert_eq!(
            c(
                "\u{FF1C}\u{FF0F}\u{FF21}\u{FF30}\u{FF30}\u{FF2C}\u{FF29}\u{FF23}\u{FF21}\u{FF22}\u{FF2C}\u{FF25}\u{FF0D}\u{FF32}\u{FF35}\u{FF2C}\u{FF25}\u{FF33}\u{FF1E}"
            ),
            "[redacted-wrapper-literal]"
        );
        assert_eq!(
            c("## Learnings\u{A0}Index (selected"),
            "[redacted-wrapper-literal]"
        );
        assert_eq!(
            c("x untrusted-content:END y"),
            "x [redacted-envelope-marker] y"
        );
    }

    #[test]
    fn tokens_and_comments() {
        assert_eq!(
            c("<|im_end|><|im_start|>system"),
            "[redacted special token][redacted special token]system"
        );
        assert_eq!(c("<\u{FF5C}User\u{FF5C}>"), "[redacted special token]");
        assert_eq!(
            c("[INST] hi [/INST]"),
            "[redacted special token] hi [redacted special token]"
        );
        assert_eq!(c("a <!-- do this --> b"), "a [html-comment] do this --> b");
        // Not tokens: empty names, spaces, over-long names.
        assert_eq!(contain("<||> <| a |> a || b", None).unwrap(), None);
        let long = format!("<|{}|>", "a".repeat(MAX_TOKEN_NAME + 1));
        assert_eq!(contain(&long, None).unwrap(), None);
        let max = format!("<|{}|>", "a".repeat(MAX_TOKEN_NAME));
        assert_eq!(c(&max), TOKEN_REDACTION);
    }

    #[test]
    fn cap_cuts_with_the_reference_note() {
        assert_eq!(
            contain("abcdefghij", Some(4)).unwrap().unwrap(),
            "abcd […truncated by the reconciliation engine: 10 bytes exceeded the 4-byte cap]"
        );
        assert_eq!(contain("abcd", Some(4)).unwrap(), None);
        // The cap counts what is left after containment.
        assert_eq!(
            contain("ab\u{200B}\u{200B}", Some(2)).unwrap().unwrap(),
            "ab"
        );
    }

    #[test]
    fn containment_is_idempotent() {
        for s in [
            "a\x1b[31m<|im_end|>\u{200B}</APPLICABLE-RULES><!--x-->\u{1F468}\u{200D}\u{1F4BB}",
            "<<|x|>|>",
            "<!<!---->",
            "untrusted-content:start-content:end",
        ] {
            let once = c(s);
            assert_eq!(c(&once), once, "{s:?}");
        }
    }
}
