//! What an element's style and attributes make of the text in it, as far as
//! the reader can see it: hidden or not, its colours, its bidi override.
//! What a mail client applies is read: the `hidden`, `dir`, `color` and
//! `bgcolor` attributes, then the rules of the mail's `<style>` sheets
//! ([`sheet`]) and the inline `style`, in cascade order (presentational
//! attributes first, then normal declarations, sheet before inline, then
//! `!important` ones, sheet before inline).
//!
//! Which properties hide text, and how they inherit (CSS 2.2 and CSS Color 4):
//! * `display: none`, the `hidden` attribute, `mso-hide: all` (Outlook),
//!   `opacity` at most 0.05, `transform: scale(0)`, an off-screen offset
//!   (`left`, `top`, `text-indent`, `margin-left`, `margin-top` at or beyond
//!   -500px), a zero `height`/`width`/`max-height`/`max-width` with
//!   `overflow: hidden`, a `clip`/`clip-path` to nothing: final, no
//!   descendant shows;
//! * `visibility: hidden | collapse`: inherited, a descendant with
//!   `visibility: visible` shows;
//! * `font-size` at most 2px (or 2pt; 0.15em, 15% of a parent's): inherited,
//!   a descendant with an absolute size shows;
//! * `color` within 24 per channel of the background (a mail's background is
//!   white unless an ancestor sets one; an image background is unknown and
//!   hides nothing), or `transparent` / an alpha of 0.

pub(crate) mod sheet;

use sheet::{Decl, Matched};

/// A colour, or `None` where it cannot be known (an image, a name not in
/// the table).
type Rgb = Option<[u8; 3]>;

/// Largest difference per channel at which text is taken for its
/// background's colour.
const SAME_COLOUR: u8 = 24;

/// The state a text inherits from its open elements.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Inherited {
    /// Final: why nothing below shows.
    gone: Option<&'static str>,
    visibility_hidden: bool,
    font_zero: bool,
    transparent: bool,
    color: Rgb,
    background: Rgb,
    /// Text a client neither shows nor counts as hidden mail text: a
    /// `<style>` sheet, a `<title>`.
    pub(crate) inert: bool,
    /// The inherited `direction` is right-to-left.
    pub(crate) rtl: bool,
}

impl Default for Inherited {
    fn default() -> Self {
        Self {
            gone: None,
            visibility_hidden: false,
            font_zero: false,
            transparent: false,
            color: Some([0, 0, 0]),
            background: Some([255, 255, 255]),
            inert: false,
            rtl: false,
        }
    }
}

/// What one start tag declares.
#[derive(Debug, Default, Clone)]
pub(crate) struct Declared {
    hidden_attribute: bool,
    dir_rtl: Option<bool>,
    color: Option<Rgb>,
    bgcolor: Option<Rgb>,
    /// The inline `style` declarations.
    inline: Vec<Decl>,
    /// Every declaration that applies, lowest precedence first ([`Self::cascade`]).
    style: Vec<Decl>,
}

/// What an element does to the order of the text in it, when that text is
/// inside an override.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Bidi {
    /// Nothing: the text is ordered with its parent's.
    Inline,
    /// An override (`<bdo>`, `unicode-bidi: bidi-override | isolate-override`)
    /// of this direction (true: right-to-left).
    Override(bool),
    /// A new isolated run (an element with `dir`, `<bdi>`, `unicode-bidi:
    /// isolate | embed | plaintext`, a block): an override outside does not
    /// reach its text (UAX #9 X5a–X5c; CSS Writing Modes §2.4).
    Isolate,
}

/// Elements a browser lays out as blocks (HTML's rendering section): the text
/// in one is a paragraph of its own, which an inline override around it does
/// not reach. Sorted.
const BLOCKS: [&[u8]; 41] = [
    b"address",
    b"article",
    b"aside",
    b"bdi",
    b"blockquote",
    b"body",
    b"caption",
    b"center",
    b"dd",
    b"details",
    b"dialog",
    b"div",
    b"dl",
    b"dt",
    b"fieldset",
    b"figcaption",
    b"figure",
    b"footer",
    b"form",
    b"h1",
    b"h2",
    b"h3",
    b"h4",
    b"h5",
    b"h6",
    b"header",
    b"hgroup",
    b"hr",
    b"legend",
    b"li",
    b"main",
    b"nav",
    b"ol",
    b"output",
    b"p",
    b"pre",
    b"section",
    b"summary",
    b"table",
    b"td",
    b"ul",
];

impl Declared {
    /// Records one attribute (`value` empty for a bare attribute name).
    pub(crate) fn attribute(&mut self, name: &[u8], value: &[u8]) {
        let value = String::from_utf8_lossy(value);
        match name {
            b"hidden" => self.hidden_attribute = true,
            b"dir" => {
                let v = value.trim().to_ascii_lowercase();
                self.dir_rtl = match v.as_str() {
                    "rtl" => Some(true),
                    "ltr" => Some(false),
                    _ => self.dir_rtl,
                };
            }
            b"color" if !value.is_empty() => self.color = Some(colour(&value)),
            b"bgcolor" if !value.is_empty() => self.bgcolor = Some(colour(&value)),
            b"style" => self.inline = sheet::declarations(&value),
            _ => {}
        }
    }

    /// Orders the declarations that apply, from the sheets (`matched`) and
    /// inline, lowest precedence first: sheet, inline, sheet `!important`,
    /// inline `!important` (CSS Cascade 4 §6.1: importance, then the style
    /// attribute over selectors, then specificity and order, which
    /// `matched` already follows).
    pub(crate) fn cascade(&mut self, matched: Option<&Matched<'_>>) {
        let inline = std::mem::take(&mut self.inline);
        let (important, normal): (Vec<Decl>, Vec<Decl>) =
            inline.into_iter().partition(|d| d.important);
        let mut style = Vec::new();
        if let Some(m) = matched {
            style.extend(m.normal.iter().map(|d| (*d).clone()));
        }
        style.extend(normal);
        if let Some(m) = matched {
            style.extend(m.important.iter().map(|d| (*d).clone()));
        }
        style.extend(important);
        self.style = style;
    }

    fn style(&self, property: &str) -> Option<&str> {
        // The last declaration wins, as in CSS.
        self.style
            .iter()
            .rev()
            .find(|d| d.name == property)
            .map(|d| d.value.as_str())
    }

    /// What element `name` does to the order of the text in it; `rtl`: its
    /// computed direction ([`Inherited::rtl`] of its state).
    pub(crate) fn bidi(&self, name: &[u8], rtl: bool) -> Bidi {
        if self.overrides(name) {
            return Bidi::Override(rtl);
        }
        let isolates = matches!(
            self.style("unicode-bidi"),
            Some("isolate" | "embed" | "plaintext")
        );
        let block = match self.style("display") {
            Some(d) => d != "inline" && d != "contents" && d != "none",
            None => BLOCKS.binary_search(&name).is_ok(),
        };
        if isolates || block || self.dir_rtl.is_some() {
            Bidi::Isolate
        } else {
            Bidi::Inline
        }
    }

    /// Whether this element starts an override: `<bdo>`, or `unicode-bidi:
    /// bidi-override | isolate-override`.
    fn overrides(&self, name: &[u8]) -> bool {
        name == b"bdo"
            || matches!(
                self.style("unicode-bidi"),
                Some("bidi-override" | "isolate-override")
            )
    }
}

impl Inherited {
    /// Why text here is hidden from the reader, if it is.
    pub(crate) fn hidden(&self) -> Option<&'static str> {
        if let Some(why) = self.gone {
            return Some(why);
        }
        if self.visibility_hidden {
            return Some("visibility: hidden");
        }
        if self.font_zero {
            return Some("font-size 0");
        }
        if self.transparent {
            return Some("a transparent colour");
        }
        if let (Some(c), Some(b)) = (self.color, self.background)
            && c.iter()
                .zip(b.iter())
                .all(|(x, y)| x.abs_diff(*y) <= SAME_COLOUR)
        {
            return Some("its colour is its background's");
        }
        None
    }

    /// The state inside element `name` with `declared` on it.
    pub(crate) fn child(self, name: &[u8], declared: &Declared) -> Self {
        let mut s = self;
        let gone = |s: &mut Self, why: &'static str| {
            if s.gone.is_none() {
                s.gone = Some(why);
            }
        };
        match name {
            b"script" => gone(&mut s, "a script"),
            b"template" => gone(&mut s, "a template"),
            b"style" | b"title" => s.inert = true,
            _ => {}
        }
        if declared.hidden_attribute {
            gone(&mut s, "the hidden attribute");
        }
        if let Some(c) = declared.color {
            s.color = c;
            s.transparent = false;
        }
        if let Some(b) = declared.bgcolor {
            s.background = b;
        }
        let d = |p: &str| declared.style(p);
        if let Some(rtl) = declared.dir_rtl {
            s.rtl = rtl;
        }
        match d("direction") {
            Some("rtl") => s.rtl = true,
            Some("ltr") => s.rtl = false,
            _ => {}
        }
        if d("display") == Some("none") {
            gone(&mut s, "display: none");
        }
        if d("mso-hide") == Some("all") {
            gone(&mut s, "mso-hide: all");
        }
        match d("visibility") {
            Some("hidden" | "collapse") => s.visibility_hidden = true,
            Some("visible") => s.visibility_hidden = false,
            _ => {}
        }
        if let Some(o) = d("opacity").and_then(number_or_percent)
            && o <= 0.05
        {
            gone(&mut s, "opacity 0");
        }
        if let Some(t) = d("transform")
            && (t.contains("scale(0)")
                || t.contains("scale(0,")
                || t.contains("scalex(0)")
                || t.contains("scaley(0)"))
        {
            gone(&mut s, "scaled to 0");
        }
        if let Some(size) = d("font-size") {
            s.font_zero = font_zero(size, s.font_zero);
        }
        if let Some(v) = d("color") {
            if is_transparent(v) {
                s.transparent = true;
            } else {
                s.color = colour(v);
                s.transparent = false;
            }
        }
        if let Some(v) = d("background-color") {
            s.background = if is_transparent(v) {
                s.background
            } else {
                colour(v)
            };
        }
        if let Some(v) = d("background") {
            s.background = if v.contains("url(") || v.contains("gradient(") {
                None
            } else {
                v.split_whitespace()
                    .map(colour)
                    .find(Option::is_some)
                    .unwrap_or(s.background)
            };
        }
        if d("background-image").is_some_and(|v| v != "none") {
            s.background = None;
        }
        if ["left", "top", "text-indent", "margin-left", "margin-top"]
            .iter()
            .any(|p| d(p).and_then(pixels).is_some_and(|px| px <= -500.0))
        {
            gone(&mut s, "off-screen");
        }
        if matches!(d("overflow"), Some("hidden" | "clip"))
            && ["height", "max-height", "width", "max-width"]
                .iter()
                .any(|p| d(p).and_then(pixels).is_some_and(|px| px <= 0.0))
        {
            gone(&mut s, "zero size with overflow hidden");
        }
        let clipped_rect = d("clip").is_some_and(|c| {
            c.starts_with("rect(")
                && c.trim_start_matches("rect(")
                    .trim_end_matches(')')
                    .split([',', ' '])
                    .filter(|n| !n.is_empty())
                    .all(|n| pixels(n) == Some(0.0))
        });
        let clipped_path = d("clip-path").is_some_and(|c| {
            c.replace(' ', "").starts_with("inset(50%")
                || c.replace(' ', "").starts_with("circle(0")
        });
        if clipped_rect || clipped_path {
            gone(&mut s, "clipped");
        }
        s
    }
}

/// A length in CSS pixels (em and rem as 16px), or `None`.
fn pixels(v: &str) -> Option<f64> {
    let v = v.trim();
    let (n, unit) = split_number(v)?;
    let px = match unit {
        "" | "px" => n,
        "pt" => n * 4.0 / 3.0,
        "pc" => n * 16.0,
        "in" => n * 96.0,
        "cm" => n * 96.0 / 2.54,
        "mm" => n * 96.0 / 25.4,
        "em" | "rem" => n * 16.0,
        "%" | "vw" | "vh" if n == 0.0 => 0.0,
        _ => return None,
    };
    Some(px)
}

/// `0.5`, `50%` as a fraction.
fn number_or_percent(v: &str) -> Option<f64> {
    match split_number(v.trim())? {
        (n, "") => Some(n),
        (n, "%") => Some(n / 100.0),
        _ => None,
    }
}

/// Whether a `font-size` leaves the text too small to read, given whether
/// the parent's already was.
fn font_zero(v: &str, parent: bool) -> bool {
    match v.trim() {
        "xx-small" | "x-small" | "small" | "medium" | "large" | "x-large" | "xx-large"
        | "xxx-large" => return false,
        "smaller" | "larger" | "inherit" => return parent,
        _ => {}
    }
    match split_number(v.trim()) {
        Some((n, "em" | "ex" | "ch")) => parent || n <= 0.15,
        Some((n, "%")) => parent || n <= 15.0,
        Some((n, "rem")) => n <= 0.15,
        Some((_, "" | "px" | "pt" | "pc" | "in" | "cm" | "mm")) => {
            pixels(v).is_some_and(|px| px <= 2.0)
        }
        _ => parent,
    }
}

/// A number at the start of `v` and the unit after it.
fn split_number(v: &str) -> Option<(f64, &str)> {
    let end = v
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-' || c == '+'))
        .unwrap_or(v.len());
    let n = v.get(..end)?.parse::<f64>().ok()?;
    Some((n, v.get(end..)?.trim()))
}

fn is_transparent(v: &str) -> bool {
    let v = v.trim();
    if v == "transparent" {
        return true;
    }
    // rgba(…, 0) / hsla(…, 0) / #rrggbb00
    if let Some(args) = v
        .strip_prefix("rgba(")
        .or_else(|| v.strip_prefix("hsla("))
        .or_else(|| v.strip_prefix("rgb("))
        .and_then(|a| a.strip_suffix(')'))
    {
        let alpha = args.rsplit([',', '/']).next().unwrap_or_default();
        let parts = args
            .split([',', '/', ' '])
            .filter(|p| !p.is_empty())
            .count();
        return parts == 4 && number_or_percent(alpha).is_some_and(|a| a <= 0.05);
    }
    v.len() == 9 && v.starts_with('#') && v.ends_with("00")
}

/// A CSS or HTML colour: `#rgb`, `#rrggbb`, `rgb(r, g, b)`, or a name of
/// the table.
fn colour(v: &str) -> Rgb {
    let v = v.trim().to_ascii_lowercase();
    if let Some(hex) = v.strip_prefix('#').or_else(|| {
        // HTML's legacy colour parsing takes bare hex in `bgcolor=ffffff`.
        (v.len() == 6 && v.bytes().all(|b| b.is_ascii_hexdigit())).then_some(v.as_str())
    }) {
        let digits: Vec<u8> = hex
            .chars()
            .filter_map(|c| c.to_digit(16))
            .filter_map(|d| u8::try_from(d).ok())
            .collect();
        return match digits.as_slice() {
            // Hex digits are below 16, so neither step can overflow.
            [r, g, b] | [r, g, b, _] => Some([*r, *g, *b].map(|d| d.saturating_mul(17))),
            [r1, r2, g1, g2, b1, b2] | [r1, r2, g1, g2, b1, b2, _, _] => Some(
                [(r1, r2), (g1, g2), (b1, b2)]
                    .map(|(hi, lo)| hi.saturating_mul(16).saturating_add(*lo)),
            ),
            _ => None,
        };
    }
    if let Some(args) = v
        .strip_prefix("rgb(")
        .or_else(|| v.strip_prefix("rgba("))
        .and_then(|a| a.strip_suffix(')'))
    {
        let channels: Vec<u8> = args
            .split([',', ' ', '/'])
            .filter(|p| !p.is_empty())
            .take(3)
            .filter_map(|p| {
                let n = match split_number(p)? {
                    (n, "") => n,
                    (n, "%") => n * 2.55,
                    _ => return None,
                };
                // Clamped to 0..=255 first, so the cast is exact.
                #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
                Some(n.clamp(0.0, 255.0).round() as u8)
            })
            .collect();
        return match channels.as_slice() {
            [r, g, b] => Some([*r, *g, *b]),
            _ => None,
        };
    }
    NAMED
        .binary_search_by_key(&v.as_str(), |(n, _)| n)
        .ok()
        .and_then(|i| NAMED.get(i))
        .map(|(_, rgb)| *rgb)
}

/// CSS named colours that mail uses for text and backgrounds: the sixteen of
/// HTML 4 and the near-white ones (CSS Color 4 values), sorted.
const NAMED: [(&str, [u8; 3]); 30] = [
    ("aliceblue", [240, 248, 255]),
    ("aqua", [0, 255, 255]),
    ("azure", [240, 255, 255]),
    ("black", [0, 0, 0]),
    ("blue", [0, 0, 255]),
    ("cyan", [0, 255, 255]),
    ("floralwhite", [255, 250, 240]),
    ("fuchsia", [255, 0, 255]),
    ("ghostwhite", [248, 248, 255]),
    ("gray", [128, 128, 128]),
    ("green", [0, 128, 0]),
    ("grey", [128, 128, 128]),
    ("honeydew", [240, 255, 240]),
    ("ivory", [255, 255, 240]),
    ("lime", [0, 255, 0]),
    ("magenta", [255, 0, 255]),
    ("maroon", [128, 0, 0]),
    ("mintcream", [245, 255, 250]),
    ("navy", [0, 0, 128]),
    ("olive", [128, 128, 0]),
    ("orange", [255, 165, 0]),
    ("purple", [128, 0, 128]),
    ("red", [255, 0, 0]),
    ("seashell", [255, 245, 238]),
    ("silver", [192, 192, 192]),
    ("snow", [255, 250, 250]),
    ("teal", [0, 128, 128]),
    ("white", [255, 255, 255]),
    ("whitesmoke", [245, 245, 245]),
    ("yellow", [255, 255, 0]),
];

/// A letter of a right-to-left script: the blocks whose default Bidi_Class is
/// R or AL (DerivedBidiClass.txt's defaults: Hebrew, Arabic, Syriac, Thaana,
/// NKo, Samaritan, Mandaic and their extensions and presentation forms, and
/// the right-to-left ranges of the SMP).
pub(crate) fn is_rtl_letter(c: char) -> bool {
    c.is_alphabetic()
        && matches!(u32::from(c),
            0x0590..=0x08FF | 0xFB1D..=0xFDFF | 0xFE70..=0xFEFF | 0x1_0800..=0x1_0FFF | 0x1_E800..=0x1_EFFF)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_parse() {
        assert_eq!(colour("#FFF"), Some([255, 255, 255]));
        assert_eq!(colour("#003366"), Some([0, 0x33, 0x66]));
        assert_eq!(colour("ffffff"), Some([255, 255, 255]));
        assert_eq!(colour("rgb(255, 255, 255)"), Some([255, 255, 255]));
        assert_eq!(colour("rgb(100%,0%,0%)"), Some([255, 0, 0]));
        assert_eq!(colour("White"), Some([255, 255, 255]));
        assert_eq!(colour("papayawhip"), None);
        assert!(is_transparent("rgba(0,0,0,0)"));
        assert!(!is_transparent("rgba(0,0,0,0.8)"));
        assert!(NAMED.windows(2).all(|w| w[0].0 < w[1].0));
        assert!(BLOCKS.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn font_sizes() {
        assert!(font_zero("0", false));
        assert!(font_zero("1px", false));
        assert!(font_zero("0.1em", false));
        assert!(!font_zero("12px", true));
        assert!(font_zero("1.2em", true));
        assert!(!font_zero("small", true));
    }
}
