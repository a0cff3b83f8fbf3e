//! Threading-header hygiene: `In-Reply-To` and `References` values.
//!
//! A reply whose threading header does not name a real message orphans in
//! every strict RFC 5322 client. The two ways agents break it in practice are
//! HTML-escaping the brackets (`&lt;id@host&gt;`) and dropping one bracket;
//! both match no message. This module checks the shape only (RFC 5322
//! `msg-id`, simplified to `<left@right>` with no whitespace, brackets or a
//! second `@` inside), allocation-free and without panicking on any input.

use core::fmt;

/// What was wrong with a threading header value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum HeaderErrorKind {
    /// The value holds no message id at all (empty or only whitespace).
    Empty,
    /// An HTML entity (`&lt;`, `&gt;`, `&amp;`, or a numeric `&#…`): the
    /// value was escaped for a web page, not written into a header.
    HtmlEntity,
    /// A message id does not start with `<`.
    MissingOpeningBracket,
    /// A message id does not end with `>`.
    MissingClosingBracket,
    /// A `<` or `>` inside a message id.
    StrayBracket,
    /// `<>`: brackets with nothing between them.
    EmptyId,
    /// No `@` between the brackets.
    MissingAt,
    /// A second `@` between the brackets.
    ExtraAt,
    /// Nothing between `<` and `@`.
    EmptyLeft,
    /// Nothing between `@` and `>`.
    EmptyRight,
    /// A control character (Cc) inside the value.
    ControlCharacter,
    /// More than one message id where exactly one is allowed (`In-Reply-To`).
    MultipleIds,
}

impl HeaderErrorKind {
    fn describe(self) -> &'static str {
        match self {
            Self::Empty => "no message id",
            Self::HtmlEntity => "html entity instead of a literal character",
            Self::MissingOpeningBracket => "message id missing its opening angle bracket",
            Self::MissingClosingBracket => "message id missing its closing angle bracket",
            Self::StrayBracket => "stray angle bracket inside a message id",
            Self::EmptyId => "empty message id",
            Self::MissingAt => "message id missing its @",
            Self::ExtraAt => "second @ inside a message id",
            Self::EmptyLeft => "message id with nothing before its @",
            Self::EmptyRight => "message id with nothing after its @",
            Self::ControlCharacter => "control character in a message id",
            Self::MultipleIds => "more than one message id where one is allowed",
        }
    }
}

/// A malformed threading header: what was wrong and the byte offset where.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HeaderError {
    kind: HeaderErrorKind,
    offset: usize,
}

impl HeaderError {
    /// What was wrong.
    #[must_use]
    pub fn kind(&self) -> HeaderErrorKind {
        self.kind
    }

    /// Byte offset into the checked value where the problem is.
    #[must_use]
    pub fn offset(&self) -> usize {
        self.offset
    }
}

impl fmt::Display for HeaderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at byte {}", self.kind.describe(), self.offset)
    }
}

impl core::error::Error for HeaderError {}

/// Checks a threading header value.
///
/// `multiple = false` is `In-Reply-To`: exactly one `<left@right>`.
/// `multiple = true` is `References`: one or more, separated by whitespace.
/// Leading and trailing whitespace is allowed (header folding leaves it).
///
/// # Errors
/// The first problem found, scanning left to right; an HTML entity anywhere
/// in the value is reported before any shape problem, because it explains
/// the bracket errors it causes.
pub fn check_message_ids(value: &str, multiple: bool) -> Result<(), HeaderError> {
    if let Some(offset) = find_html_entity(value.as_bytes()) {
        return Err(HeaderError {
            kind: HeaderErrorKind::HtmlEntity,
            offset,
        });
    }
    let mut ids = 0usize;
    for (start, token) in tokens(value) {
        if ids > 0 && !multiple {
            return Err(HeaderError {
                kind: HeaderErrorKind::MultipleIds,
                offset: start,
            });
        }
        check_one(token, start)?;
        ids = ids.saturating_add(1);
    }
    if ids == 0 {
        return Err(HeaderError {
            kind: HeaderErrorKind::Empty,
            offset: 0,
        });
    }
    Ok(())
}

fn is_separator(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\r' | b'\n')
}

/// Whitespace-separated tokens with their byte offsets. Only ASCII
/// whitespace separates: header folding uses SP, HTAB and CRLF, nothing else.
fn tokens(value: &str) -> impl Iterator<Item = (usize, &str)> {
    let bytes = value.as_bytes();
    let mut pos = 0usize;
    core::iter::from_fn(move || {
        while bytes.get(pos).is_some_and(|&b| is_separator(b)) {
            pos = pos.saturating_add(1);
        }
        let start = pos;
        while bytes.get(pos).is_some_and(|&b| !is_separator(b)) {
            pos = pos.saturating_add(1);
        }
        // Separators are ASCII, so both ends are char boundaries.
        value
            .get(start..pos)
            .filter(|t| !t.is_empty())
            .map(|t| (start, t))
    })
}

fn check_one(token: &str, base: usize) -> Result<(), HeaderError> {
    let at = |kind, rel: usize| HeaderError {
        kind,
        offset: base.saturating_add(rel),
    };
    let bytes = token.as_bytes();
    let last = bytes.len().saturating_sub(1);
    if bytes.first() != Some(&b'<') {
        return Err(at(HeaderErrorKind::MissingOpeningBracket, 0));
    }
    // A stray bracket before the end explains a missing closing one better
    // than the missing bracket itself (`<a@b><c@d>` glued together).
    let mut at_sign: Option<usize> = None;
    for (i, &b) in bytes.iter().enumerate().skip(1) {
        match b {
            b'>' if i == last => {}
            b'<' | b'>' => return Err(at(HeaderErrorKind::StrayBracket, i)),
            b'@' => {
                if at_sign.is_some() {
                    return Err(at(HeaderErrorKind::ExtraAt, i));
                }
                at_sign = Some(i);
            }
            0x00..=0x1f | 0x7f => return Err(at(HeaderErrorKind::ControlCharacter, i)),
            _ => {}
        }
    }
    // C1 controls are two-byte UTF-8 sequences; look for them by char.
    if let Some((i, _)) = token
        .char_indices()
        .find(|&(_, c)| ('\u{80}'..='\u{9f}').contains(&c))
    {
        return Err(at(HeaderErrorKind::ControlCharacter, i));
    }
    if bytes.len() < 2 || bytes.last() != Some(&b'>') {
        return Err(at(HeaderErrorKind::MissingClosingBracket, bytes.len()));
    }
    if bytes.len() == 2 {
        return Err(at(HeaderErrorKind::EmptyId, 0));
    }
    match at_sign {
        None => Err(at(HeaderErrorKind::MissingAt, 1)),
        Some(1) => Err(at(HeaderErrorKind::EmptyLeft, 1)),
        Some(i) if i.saturating_add(1) == last => Err(at(HeaderErrorKind::EmptyRight, i)),
        Some(_) => Ok(()),
    }
}

/// Offset of the first `&lt;`, `&gt;`, `&amp;` (any case) or numeric
/// `&#<digit>` / `&#x<hex>` entity. A bare `&` is legal `atext` and passes.
fn find_html_entity(bytes: &[u8]) -> Option<usize> {
    bytes
        .iter()
        .enumerate()
        .filter(|&(_, &b)| b == b'&')
        .find_map(|(i, _)| {
            let rest = bytes.get(i.saturating_add(1)..).unwrap_or_default();
            let named = [&b"lt;"[..], b"gt;", b"amp;"].iter().any(|name| {
                rest.get(..name.len())
                    .is_some_and(|r| r.eq_ignore_ascii_case(name))
            });
            let numeric = match rest {
                [b'#', d, ..] if d.is_ascii_digit() => true,
                [b'#', b'x' | b'X', h, ..] if h.is_ascii_hexdigit() => true,
                _ => false,
            };
            (named || numeric).then_some(i)
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::string::ToString;

    fn kind(value: &str, multiple: bool) -> (HeaderErrorKind, usize) {
        let e = check_message_ids(value, multiple).unwrap_err();
        (e.kind(), e.offset())
    }

    #[test]
    fn well_formed_single() {
        for v in [
            "<a@b>",
            "<CAF=x+y.z@mail.gmail.com>",
            "  <a@b>\r\n",
            "<ü@例え.jp>",
            "<a&b@c>",
        ] {
            assert_eq!(check_message_ids(v, false), Ok(()), "{v:?}");
        }
    }

    #[test]
    fn well_formed_references() {
        assert_eq!(check_message_ids("<a@b> <c@d>\r\n\t<e@f>", true), Ok(()));
        assert_eq!(check_message_ids("<a@b>", true), Ok(()));
    }

    #[test]
    fn html_entities_any_case() {
        assert_eq!(kind("&lt;a@b&gt;", false), (HeaderErrorKind::HtmlEntity, 0));
        assert_eq!(kind("<a@b&GT;", false), (HeaderErrorKind::HtmlEntity, 4));
        assert_eq!(
            kind("<a@b> <c&Amp;d@e>", true),
            (HeaderErrorKind::HtmlEntity, 8)
        );
        assert_eq!(
            kind("&#60;a@b&#62;", false),
            (HeaderErrorKind::HtmlEntity, 0)
        );
        assert_eq!(kind("&#x3C;a@b>", false), (HeaderErrorKind::HtmlEntity, 0));
    }

    #[test]
    fn brackets() {
        assert_eq!(
            kind("a@b>", false),
            (HeaderErrorKind::MissingOpeningBracket, 0)
        );
        assert_eq!(
            kind("<a@b", false),
            (HeaderErrorKind::MissingClosingBracket, 4)
        );
        assert_eq!(
            kind("<a@b> <c@d", true),
            (HeaderErrorKind::MissingClosingBracket, 10)
        );
        assert_eq!(kind("<a@b><c@d>", true), (HeaderErrorKind::StrayBracket, 4));
        assert_eq!(kind("<a<b@c>", false), (HeaderErrorKind::StrayBracket, 2));
        assert_eq!(
            kind("<", false),
            (HeaderErrorKind::MissingClosingBracket, 1)
        );
        assert_eq!(
            kind(">", false),
            (HeaderErrorKind::MissingOpeningBracket, 0)
        );
        assert_eq!(
            kind("<a@b> >", true),
            (HeaderErrorKind::MissingOpeningBracket, 6)
        );
    }

    #[test]
    fn empty_parts() {
        assert_eq!(kind("", false), (HeaderErrorKind::Empty, 0));
        assert_eq!(kind(" \t ", true), (HeaderErrorKind::Empty, 0));
        assert_eq!(kind("<>", false), (HeaderErrorKind::EmptyId, 0));
        assert_eq!(kind("<@b>", false), (HeaderErrorKind::EmptyLeft, 1));
        assert_eq!(kind("<a@>", false), (HeaderErrorKind::EmptyRight, 2));
        assert_eq!(kind("<ab>", false), (HeaderErrorKind::MissingAt, 1));
        assert_eq!(kind("<a@b@c>", false), (HeaderErrorKind::ExtraAt, 4));
    }

    #[test]
    fn whitespace_and_controls() {
        assert_eq!(
            kind("<a b@c>", false),
            (HeaderErrorKind::MissingClosingBracket, 2)
        );
        assert_eq!(
            kind("<a b@c>", true),
            (HeaderErrorKind::MissingClosingBracket, 2)
        );
        assert_eq!(
            kind("<a@b> <c@d>", false),
            (HeaderErrorKind::MultipleIds, 6)
        );
        assert_eq!(
            kind("<a\u{0}@b>", false),
            (HeaderErrorKind::ControlCharacter, 2)
        );
        assert_eq!(
            kind("<a\u{85}@b>", false),
            (HeaderErrorKind::ControlCharacter, 2)
        );
        assert_eq!(
            kind("<a\u{7f}@b>", false),
            (HeaderErrorKind::ControlCharacter, 2)
        );
    }

    #[test]
    fn display_is_lower_case_without_period() {
        let e = check_message_ids("&lt;a@b&gt;", false).unwrap_err();
        assert_eq!(
            e.to_string(),
            "html entity instead of a literal character at byte 0"
        );
        let e = check_message_ids("<a@b", false).unwrap_err();
        assert_eq!(
            e.to_string(),
            "message id missing its closing angle bracket at byte 4"
        );
    }

    #[test]
    fn never_panics_on_odd_input() {
        for v in [
            "&",
            "&#",
            "&#x",
            "<@>",
            "<<>>",
            "@",
            "<\u{10ffff}@\u{10ffff}>",
            "&l",
            "\u{e9}&lt",
        ] {
            let _ = check_message_ids(v, true);
            let _ = check_message_ids(v, false);
        }
    }
}
