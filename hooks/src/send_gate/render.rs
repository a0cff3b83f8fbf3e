//! The text as a reader sees it, through a real HTML5 tokenizer.
//!
//! Character references are decoded exactly as a browser decodes them (the
//! WHATWG tokenizer of `html5gum`, with the full named-reference table,
//! legacy names without `;`, numeric references without `;`, any number of
//! leading zeros, `&#X…`): `s&#111rry` renders `sorry`, `&shy` renders
//! U+00AD, `&#x202E ` the override.
//!
//! Tags are markup only in a string that is HTML: one with a comment, a
//! doctype, or a tag of a known HTML element. There every tag is removed, as
//! a browser removes it (an unknown `<x>` inside HTML is not shown either).
//! In plain text (`use <word> here`, `3 < 4 > 2`, `x<y and y>z`) nothing is
//! removed: a tag-like run is kept as written, so rendering never deletes
//! text that a reader sees, and never pulls two distant words together.

use html5gum::emitters::callback::{CallbackEmitter, CallbackEvent};
use html5gum::{Span, Tokenizer};

/// Elements after which a browser starts a new line; other tags render as nothing,
/// so that `sor<b></b>ry` reads `sorry`.
const BREAKING: [&[u8]; 24] = [
    b"address",
    b"article",
    b"aside",
    b"blockquote",
    b"br",
    b"dd",
    b"div",
    b"dl",
    b"dt",
    b"figcaption",
    b"footer",
    b"h1",
    b"h2",
    b"h3",
    b"h4",
    b"h5",
    b"h6",
    b"header",
    b"hr",
    b"li",
    b"p",
    b"pre",
    b"td",
    b"tr",
];

/// The HTML element names (WHATWG HTML, current and obsolete): a tag with one
/// of these names makes the string HTML.
const ELEMENTS: [&[u8]; 143] = [
    b"a",
    b"abbr",
    b"acronym",
    b"address",
    b"applet",
    b"area",
    b"article",
    b"aside",
    b"audio",
    b"b",
    b"base",
    b"basefont",
    b"bdi",
    b"bdo",
    b"bgsound",
    b"big",
    b"blink",
    b"blockquote",
    b"body",
    b"br",
    b"button",
    b"canvas",
    b"caption",
    b"center",
    b"cite",
    b"code",
    b"col",
    b"colgroup",
    b"data",
    b"datalist",
    b"dd",
    b"del",
    b"details",
    b"dfn",
    b"dialog",
    b"dir",
    b"div",
    b"dl",
    b"dt",
    b"em",
    b"embed",
    b"fieldset",
    b"figcaption",
    b"figure",
    b"font",
    b"footer",
    b"form",
    b"frame",
    b"frameset",
    b"h1",
    b"h2",
    b"h3",
    b"h4",
    b"h5",
    b"h6",
    b"head",
    b"header",
    b"hgroup",
    b"hr",
    b"html",
    b"i",
    b"iframe",
    b"img",
    b"input",
    b"ins",
    b"isindex",
    b"kbd",
    b"keygen",
    b"label",
    b"legend",
    b"li",
    b"link",
    b"listing",
    b"main",
    b"map",
    b"mark",
    b"marquee",
    b"math",
    b"menu",
    b"menuitem",
    b"meta",
    b"meter",
    b"multicol",
    b"nav",
    b"nextid",
    b"nobr",
    b"noembed",
    b"noframes",
    b"noscript",
    b"object",
    b"ol",
    b"optgroup",
    b"option",
    b"output",
    b"p",
    b"param",
    b"picture",
    b"plaintext",
    b"pre",
    b"progress",
    b"q",
    b"rb",
    b"rp",
    b"rt",
    b"rtc",
    b"ruby",
    b"s",
    b"samp",
    b"script",
    b"search",
    b"section",
    b"select",
    b"slot",
    b"small",
    b"source",
    b"spacer",
    b"span",
    b"strike",
    b"strong",
    b"style",
    b"sub",
    b"summary",
    b"sup",
    b"svg",
    b"table",
    b"tbody",
    b"td",
    b"template",
    b"textarea",
    b"tfoot",
    b"th",
    b"thead",
    b"time",
    b"title",
    b"tr",
    b"track",
    b"tt",
    b"u",
    b"ul",
    b"var",
    b"video",
    b"wbr",
    b"xmp",
];

/// Both readings of a text, built by one pass of the tokenizer.
#[derive(Default)]
struct Readings {
    markup: bool,
    has_tags: bool,
    as_html: Vec<u8>,
    as_plain: Vec<u8>,
    attributes: Vec<u8>,
    /// Where the tag being read starts, for its source in the plain reading.
    tag_start: usize,
}

impl Readings {
    fn tag_name(&mut self, name: &[u8]) {
        // Both tables are sorted (a unit test holds them to it).
        if !self.markup && ELEMENTS.binary_search(&name).is_ok() {
            // HTML after all: the plain reading is not needed any more.
            self.markup = true;
            self.as_plain = Vec::new();
        }
        if BREAKING.binary_search(&name).is_ok() {
            self.as_html.push(b'\n');
        }
    }

    fn tag_source(&mut self, text: &str, end: usize) {
        if !self.markup {
            self.as_plain
                .extend_from_slice(source(text, self.tag_start, end));
        }
    }

    fn event(&mut self, text: &str, event: CallbackEvent<'_>, span: Span<usize>) {
        match event {
            CallbackEvent::String { value } => {
                self.as_html.extend_from_slice(value);
                if self.has_tags && !self.markup {
                    self.as_plain.extend_from_slice(value);
                }
            }
            CallbackEvent::OpenStartTag { name } => {
                self.tag_start = span.start;
                self.tag_name(name);
            }
            CallbackEvent::AttributeValue { value } => {
                self.attributes.push(b'\n');
                self.attributes.extend_from_slice(value);
            }
            CallbackEvent::CloseStartTag { .. } => self.tag_source(text, span.end),
            CallbackEvent::EndTag { name } => {
                self.tag_start = span.start;
                self.tag_name(name);
                self.tag_source(text, span.end);
            }
            CallbackEvent::Comment { .. } | CallbackEvent::Doctype { .. } => {
                self.markup = true;
                self.as_plain = Vec::new();
            }
            CallbackEvent::AttributeName { .. } | CallbackEvent::Error(_) => {}
        }
    }
}

/// The rendered text: references decoded, and in HTML the tags removed with
/// their attribute values appended after the text (an `alt` or `title` is
/// read too), and every white space but TAB, LF and CR written as a space.
/// Returns `None` when rendering changes nothing.
///
/// One pass of the tokenizer, through its allocation-free callback emitter,
/// builds both readings, as HTML and as plain text; which one is the
/// rendered form is known only at the end.
pub(crate) fn render(text: &str) -> Option<String> {
    if !text.contains(['&', '<']) {
        return None;
    }
    let mut readings = Readings {
        has_tags: text.contains('<'),
        as_html: Vec::with_capacity(text.len()),
        ..Readings::default()
    };
    {
        let callback = |event: CallbackEvent<'_>, span: Span<usize>| -> Option<()> {
            readings.event(text, event, span);
            None
        };
        let mut emitter = CallbackEmitter::new(callback);
        // `<script>`, `<style>`, `<title>`, `<textarea>` switch the tokenizer's
        // state as a browser's tree builder would, so their content stays text.
        emitter.naively_switch_states(true);
        for _ in Tokenizer::new_with_emitter(text, emitter) {}
    }
    let out = if readings.markup || !readings.has_tags {
        let mut html = readings.as_html;
        html.reserve_exact(readings.attributes.len());
        html.extend_from_slice(&readings.attributes);
        html
    } else {
        readings.as_plain
    };
    let rendered = spaces_in_place(out);
    (rendered != text).then_some(rendered)
}

/// The bytes as text, every white space but TAB, LF and CR written as a
/// space (a reader sees `&nbsp;` and U+2009 as spaces, so patterns must
/// too), rewritten in place: a space is never longer than what it replaces.
fn spaces_in_place(mut bytes: Vec<u8>) -> String {
    // The tokenizer writes UTF-8; a lossy conversion keeps this total
    // should that ever not hold.
    let text = match std::str::from_utf8(&bytes) {
        Ok(_) => None,
        Err(_) => Some(String::from_utf8_lossy(&bytes).into_owned()),
    };
    if let Some(text) = text {
        bytes = text.into_bytes();
    }
    let mut read = 0usize;
    let mut write = 0usize;
    // Valid UTF-8 now, so each step decodes one whole code point.
    while let Some(c) = first_char(bytes.get(read..).unwrap_or_default()) {
        let len = c.len_utf8();
        if c.is_whitespace() && !matches!(c, '\n' | '\t' | '\r') {
            if let Some(b) = bytes.get_mut(write) {
                *b = b' ';
            }
            write = write.saturating_add(1);
        } else {
            bytes.copy_within(read..read.saturating_add(len), write);
            write = write.saturating_add(len);
        }
        read = read.saturating_add(len);
    }
    bytes.truncate(write);
    String::from_utf8(bytes).unwrap_or_default()
}

/// The first code point of UTF-8 `bytes`, without validating the rest.
fn first_char(bytes: &[u8]) -> Option<char> {
    let width = match bytes.first()? {
        0x00..=0x7F => 1,
        0xC0..=0xDF => 2,
        0xE0..=0xEF => 3,
        _ => 4,
    };
    std::str::from_utf8(bytes.get(..width)?)
        .ok()?
        .chars()
        .next()
}

/// The source bytes of a tag, as written.
fn source(text: &str, start: usize, end: usize) -> &[u8] {
    text.as_bytes().get(start..end).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(text: &str) -> String {
        render(text).unwrap_or_else(|| text.to_owned())
    }

    #[test]
    fn references_decode_as_html5_decodes_them() {
        assert_eq!(r("s&#111rry"), "sorry");
        assert_eq!(r("s&#0000111;rry"), "sorry");
        assert_eq!(r("&#X202E;x"), "\u{202E}x");
        assert_eq!(r("&#x202E x"), "\u{202E} x");
        assert_eq!(r("a&ZeroWidthSpace;b"), "a\u{200B}b");
        assert_eq!(r("a&shy b"), "a\u{AD} b");
        assert_eq!(r("&copy 2026 &notit; &amp"), "\u{A9} 2026 \u{AC}it; &");
        assert_eq!(r("&#x80;"), "\u{20AC}");
        assert_eq!(r("&#0;"), "\u{FFFD}");
        assert_eq!(r("AT&T & co"), "AT&T & co");
    }

    #[test]
    fn element_tables_are_sorted() {
        assert!(ELEMENTS.windows(2).all(|w| w[0] < w[1]));
        assert!(BREAKING.windows(2).all(|w| w[0] < w[1]));
        assert!(BREAKING.iter().all(|b| ELEMENTS.contains(b)));
    }

    #[test]
    fn only_markup_is_removed() {
        assert_eq!(r("<p>sor<b></b>ry</p>"), "\nsorry\n");
        assert_eq!(r("<p>sor<x></x>ry</p>"), "\nsorry\n");
        assert_eq!(r("use <word> here"), "use <word> here");
        assert_eq!(r("3 < 4 > 2"), "3 < 4 > 2");
        assert_eq!(r("if x<y and y>z &amp; more"), "if x<y and y>z & more");
        assert_eq!(r("a<!-- sorry -->b"), "ab");
        assert_eq!(r("<img alt=\"sorr&#121;\" src=x>hi"), "hi\nsorry\nx");
        assert!(render("plain words").is_none());
    }
}
