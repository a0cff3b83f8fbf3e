//! `<style>` sheets, resolved as a mail client resolves them for the
//! properties [`super`] reads (display, visibility, opacity, font size,
//! colours, offsets, clipping, direction): type, universal, class, id and
//! attribute selectors, descendant and child combinators, selector lists,
//! `!important`, specificity and source order, `@media` for a desktop screen,
//! comments and escapes.
//!
//! What is not resolved is left out, never guessed: a selector with a
//! pseudo-class, a pseudo-element, a sibling combinator or a namespace is
//! dropped from its list (the text it would style is read as unstyled, so the
//! scan still reads all of it); a selector list with an invalid selector is
//! dropped whole, as a browser drops it. Declarations of other properties
//! are not kept, so a sheet of fonts and paddings costs nothing to match.
//!
//! Matching is bounded: rules are bucketed by the id, class or type of their
//! rightmost compound, and every compound test spends one unit of a budget
//! linear in the text; a text whose sheets exhaust it is reported, so the
//! gate blocks it rather than read it half-styled.

use std::collections::HashMap;

/// The properties [`super::Inherited::child`] reads; other declarations are
/// dropped at parse time. Sorted (a unit test holds it to it).
const PROPERTIES: [&str; 23] = [
    "background",
    "background-color",
    "background-image",
    "clip",
    "clip-path",
    "color",
    "direction",
    "display",
    "font-size",
    "height",
    "left",
    "margin-left",
    "margin-top",
    "max-height",
    "max-width",
    "mso-hide",
    "opacity",
    "overflow",
    "text-indent",
    "top",
    "transform",
    "unicode-bidi",
    "visibility",
];

/// The width and height of the viewport `@media` is evaluated for, in CSS
/// pixels: a desktop mail client's reading pane. A rule only a narrower (a
/// phone's) or wider screen applies is not applied, so what it hides counts
/// as visible (a human on a desktop sees it) and is scanned as such.
const VIEWPORT: (f64, f64) = (1024.0, 768.0);

/// Compounds in one selector beyond which it is dropped as unsupported.
const MAX_COMPOUNDS: usize = 32;

/// How deep `@media` / `@supports` blocks nest before the inner ones are skipped.
const MAX_AT_NESTING: usize = 16;

/// One declaration: property and value lower-cased, comments removed,
/// escapes decoded, white space collapsed, `!important` taken off.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Decl {
    pub(crate) name: String,
    pub(crate) value: String,
    pub(crate) important: bool,
}

/// How a compound relates to the one on its left.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Combinator {
    Descendant,
    Child,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum AttrOp {
    Exists,
    Equals,
    Includes,
    Dash,
    Prefix,
    Suffix,
    Substring,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct AttrSel {
    name: String,
    op: AttrOp,
    value: String,
    insensitive: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Compound {
    /// The relation to the compound on the left (unused on the first).
    combinator: Option<Combinator>,
    tag: Option<String>,
    ids: Vec<String>,
    classes: Vec<String>,
    attrs: Vec<AttrSel>,
}

#[derive(Debug, Clone)]
struct Rule {
    compounds: Vec<Compound>,
    /// (ids, classes and attributes, types), packed for comparison.
    specificity: u32,
    block: usize,
}

/// The rules of every `<style>` sheet of one text, in source order.
#[derive(Debug, Default)]
pub(crate) struct Sheet {
    rules: Vec<Rule>,
    blocks: Vec<Vec<Decl>>,
    by_id: HashMap<String, Vec<usize>>,
    by_class: HashMap<String, Vec<usize>>,
    by_tag: HashMap<String, Vec<usize>>,
    universal: Vec<usize>,
}

/// An element as a selector sees it.
pub(crate) trait Element {
    /// Its lower-case name.
    fn name(&self) -> &[u8];
    /// The value of its attribute `name` (lower case), if it has one.
    fn attr(&self, name: &[u8]) -> Option<&[u8]>;
}

/// The matching budget ran out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Exhausted;

/// The declarations of the matching rules, in cascade order (the later one
/// wins): normal ones, then important ones, each by specificity and order.
pub(crate) struct Matched<'s> {
    pub(crate) normal: Vec<&'s Decl>,
    pub(crate) important: Vec<&'s Decl>,
}

impl Sheet {
    /// Parses the concatenated sheets.
    pub(crate) fn parse(source: &str) -> Self {
        let mut sheet = Self::default();
        let mut p = Parser {
            s: source.as_bytes(),
            at: 0,
        };
        sheet.rule_list(&mut p, false, 0);
        sheet
    }

    /// Whether no rule can change anything.
    pub(crate) fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    fn rule_list(&mut self, p: &mut Parser<'_>, nested: bool, depth: usize) {
        loop {
            p.skip_blank(true);
            match p.peek() {
                None => return,
                Some(b'}') if nested => {
                    p.bump();
                    return;
                }
                Some(b'}') => p.bump(),
                Some(b'@') => {
                    p.bump();
                    let name = p.ident().unwrap_or_default().to_ascii_lowercase();
                    let prelude = p.until(b"{;");
                    match p.peek() {
                        Some(b'{') => {
                            p.bump();
                            let applies = match name.as_str() {
                                "media" => media_applies(&clean(prelude, true)),
                                // Conditions a current client meets; a layer
                                // is read as unlayered (see SEND_GATE.md).
                                "supports" => !clean(prelude, true).trim_start().starts_with("not"),
                                "layer" => true,
                                _ => false,
                            };
                            if applies && depth < MAX_AT_NESTING {
                                self.rule_list(p, true, depth.saturating_add(1));
                            } else {
                                p.skip_block();
                            }
                        }
                        Some(b';') => p.bump(),
                        // The end of the enclosing block, or of the sheet: the loop reads it.
                        _ => {}
                    }
                }
                Some(_) => {
                    let prelude = p.until(b"{");
                    match p.peek() {
                        Some(b'{') => p.bump(),
                        Some(_) => continue,
                        None => return,
                    }
                    let start = p.at;
                    let end = if p.skip_block() {
                        p.at.saturating_sub(1)
                    } else {
                        p.at
                    };
                    let body = p.s.get(start..end).unwrap_or_default();
                    self.rule(prelude, body);
                }
            }
        }
    }

    fn rule(&mut self, prelude: &[u8], body: &[u8]) {
        let Ok(selectors) = selector_list(&clean(prelude, false)) else {
            return;
        };
        if selectors.is_empty() {
            return;
        }
        let decls = declarations(&String::from_utf8_lossy(body));
        if decls.is_empty() {
            return;
        }
        let block = self.blocks.len();
        self.blocks.push(decls);
        for compounds in selectors {
            let index = self.rules.len();
            let key = compounds.last();
            let bucket = match key {
                Some(c) if !c.ids.is_empty() => c
                    .ids
                    .first()
                    .map(|id| self.by_id.entry(id.to_ascii_lowercase()).or_default()),
                Some(c) if !c.classes.is_empty() => c
                    .classes
                    .first()
                    .map(|cl| self.by_class.entry(cl.to_ascii_lowercase()).or_default()),
                Some(Compound { tag: Some(t), .. }) => {
                    Some(self.by_tag.entry(t.clone()).or_default())
                }
                _ => None,
            };
            match bucket {
                Some(b) => b.push(index),
                None => self.universal.push(index),
            }
            let specificity = specificity(&compounds);
            self.rules.push(Rule {
                compounds,
                specificity,
                block,
            });
        }
    }

    /// The declarations that apply to the last element of `path` (its
    /// ancestors before it), each compound test spending one unit of
    /// `budget`. `quirks`: class and id match regardless of ASCII case, as in
    /// a document without a doctype.
    pub(crate) fn matched<E: Element>(
        &self,
        path: &[E],
        quirks: bool,
        budget: &mut usize,
    ) -> Result<Matched<'_>, Exhausted> {
        let mut found: Vec<usize> = Vec::new();
        let Some(subject) = path.last() else {
            return Ok(Matched {
                normal: Vec::new(),
                important: Vec::new(),
            });
        };
        let mut candidates: Vec<&[usize]> = vec![&self.universal];
        if let Some(rules) = std::str::from_utf8(subject.name())
            .ok()
            .and_then(|n| self.by_tag.get(n))
        {
            candidates.push(rules);
        }
        if let Some(id) = subject.attr(b"id")
            && let Some(rules) = self
                .by_id
                .get(&String::from_utf8_lossy(id).to_ascii_lowercase())
        {
            candidates.push(rules);
        }
        if let Some(class) = subject.attr(b"class") {
            for name in class.split(|b| b.is_ascii_whitespace()) {
                if let Some(rules) = self
                    .by_class
                    .get(&String::from_utf8_lossy(name).to_ascii_lowercase())
                {
                    candidates.push(rules);
                }
            }
        }
        let last = path.len().saturating_sub(1);
        for list in candidates {
            for &i in list {
                let Some(rule) = self.rules.get(i) else {
                    continue;
                };
                let top = rule.compounds.len().saturating_sub(1);
                if matches(&rule.compounds, top, path, last, quirks, budget)? {
                    found.push(i);
                }
            }
        }
        // Cascade order: specificity, then source order (the rule index).
        found.sort_unstable_by_key(|&i| (self.rules.get(i).map_or(0, |r| r.specificity), i));
        found.dedup();
        let mut out = Matched {
            normal: Vec::new(),
            important: Vec::new(),
        };
        for i in found {
            let Some(block) = self.rules.get(i).and_then(|r| self.blocks.get(r.block)) else {
                continue;
            };
            for d in block {
                if d.important {
                    out.important.push(d);
                } else {
                    out.normal.push(d);
                }
            }
        }
        Ok(out)
    }
}

/// Whether `compounds[..=k]` matches with compound `k` on `path[pos]`.
/// Backtracks over descendant combinators; every compound test spends one
/// unit of `budget`.
fn matches<E: Element>(
    compounds: &[Compound],
    k: usize,
    path: &[E],
    pos: usize,
    quirks: bool,
    budget: &mut usize,
) -> Result<bool, Exhausted> {
    let (Some(compound), Some(element)) = (compounds.get(k), path.get(pos)) else {
        return Ok(false);
    };
    *budget = budget.checked_sub(1).ok_or(Exhausted)?;
    if !compound_matches(compound, element, quirks) {
        return Ok(false);
    }
    let Some(left) = k.checked_sub(1) else {
        return Ok(true);
    };
    match compound.combinator {
        Some(Combinator::Child) => match pos.checked_sub(1) {
            Some(parent) => matches(compounds, left, path, parent, quirks, budget),
            None => Ok(false),
        },
        _ => {
            for ancestor in (0..pos).rev() {
                if matches(compounds, left, path, ancestor, quirks, budget)? {
                    return Ok(true);
                }
            }
            Ok(false)
        }
    }
}

fn compound_matches<E: Element>(c: &Compound, e: &E, quirks: bool) -> bool {
    if let Some(tag) = &c.tag
        && !e.name().eq_ignore_ascii_case(tag.as_bytes())
    {
        return false;
    }
    let same = |a: &[u8], b: &str| {
        if quirks {
            a.eq_ignore_ascii_case(b.as_bytes())
        } else {
            a == b.as_bytes()
        }
    };
    if !c.ids.is_empty() {
        let Some(id) = e.attr(b"id") else {
            return false;
        };
        if !c.ids.iter().all(|want| same(id, want)) {
            return false;
        }
    }
    if !c.classes.is_empty() {
        let Some(class) = e.attr(b"class") else {
            return false;
        };
        let has = |want: &String| {
            class
                .split(|b| b.is_ascii_whitespace())
                .any(|name| same(name, want))
        };
        if !c.classes.iter().all(has) {
            return false;
        }
    }
    c.attrs.iter().all(|a| attr_matches(a, e))
}

fn attr_matches<E: Element>(a: &AttrSel, e: &E) -> bool {
    let Some(value) = e.attr(a.name.as_bytes()) else {
        return false;
    };
    let (value, want) = if a.insensitive {
        (
            String::from_utf8_lossy(value).to_ascii_lowercase(),
            a.value.to_ascii_lowercase(),
        )
    } else {
        (String::from_utf8_lossy(value).into_owned(), a.value.clone())
    };
    match a.op {
        AttrOp::Exists => true,
        AttrOp::Equals => value == want,
        AttrOp::Includes => !want.is_empty() && value.split_ascii_whitespace().any(|w| w == want),
        AttrOp::Dash => value == want || value.starts_with(&format!("{want}-")),
        AttrOp::Prefix => !want.is_empty() && value.starts_with(&want),
        AttrOp::Suffix => !want.is_empty() && value.ends_with(&want),
        AttrOp::Substring => !want.is_empty() && value.contains(&want),
    }
}

/// (ids, classes + attributes, types), each saturated at 255.
fn specificity(compounds: &[Compound]) -> u32 {
    let (mut a, mut b, mut c) = (0usize, 0usize, 0usize);
    for x in compounds {
        a = a.saturating_add(x.ids.len());
        b = b
            .saturating_add(x.classes.len())
            .saturating_add(x.attrs.len());
        c = c.saturating_add(usize::from(x.tag.is_some()));
    }
    let cap = |n: usize| u32::try_from(n.min(255)).unwrap_or(255);
    (cap(a) << 16) | (cap(b) << 8) | cap(c)
}

/// A cursor over CSS source.
struct Parser<'s> {
    s: &'s [u8],
    at: usize,
}

impl<'s> Parser<'s> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.at).copied()
    }

    fn bump(&mut self) {
        self.at = self.at.saturating_add(1).min(self.s.len());
    }

    fn rest(&self) -> &'s [u8] {
        self.s.get(self.at..).unwrap_or_default()
    }

    /// Skips a comment at the cursor, if there is one.
    fn comment(&mut self) -> bool {
        if !self.rest().starts_with(b"/*") {
            return false;
        }
        let body = self.s.get(self.at.saturating_add(2)..).unwrap_or_default();
        self.at = match body.windows(2).position(|w| w == b"*/") {
            Some(end) => self.at.saturating_add(end).saturating_add(4),
            None => self.s.len(),
        };
        true
    }

    /// Skips white space, comments, and (at the top of a sheet) `<!--` `-->`.
    fn skip_blank(&mut self, cdo: bool) {
        loop {
            if self.comment() {
                continue;
            }
            if cdo && (self.rest().starts_with(b"<!--") || self.rest().starts_with(b"-->")) {
                let len = if self.rest().starts_with(b"<!--") {
                    4
                } else {
                    3
                };
                self.at = self.at.saturating_add(len);
                continue;
            }
            match self.peek() {
                Some(b) if b.is_ascii_whitespace() => self.bump(),
                _ => return,
            }
        }
    }

    /// Skips a string whose quote is at the cursor.
    fn string(&mut self) {
        let Some(quote) = self.peek() else { return };
        self.bump();
        while let Some(b) = self.peek() {
            self.bump();
            match b {
                b'\\' => self.bump(),
                b'\n' => return,
                _ if b == quote => return,
                _ => {}
            }
        }
    }

    /// The source up to the first of `stops` outside strings, comments and
    /// brackets (the cursor is left on it, or at the end).
    fn until(&mut self, stops: &[u8]) -> &'s [u8] {
        let start = self.at;
        let mut depth = 0usize;
        while let Some(b) = self.peek() {
            if depth == 0 && stops.contains(&b) {
                break;
            }
            if self.comment() {
                continue;
            }
            match b {
                b'"' | b'\'' => {
                    self.string();
                    continue;
                }
                b'\\' => self.bump(),
                b'(' | b'[' | b'{' => depth = depth.saturating_add(1),
                b')' | b']' | b'}' => {
                    if depth == 0 && b == b'}' {
                        // The end of an enclosing block.
                        break;
                    }
                    depth = depth.saturating_sub(1);
                }
                _ => {}
            }
            self.bump();
        }
        self.s.get(start..self.at).unwrap_or_default()
    }

    /// Skips to just after the `}` that closes the block the cursor is in;
    /// false when the source ends first.
    fn skip_block(&mut self) -> bool {
        let mut depth = 0usize;
        while let Some(b) = self.peek() {
            if self.comment() {
                continue;
            }
            match b {
                b'"' | b'\'' => {
                    self.string();
                    continue;
                }
                b'\\' => self.bump(),
                b'{' => depth = depth.saturating_add(1),
                b'}' => {
                    if depth == 0 {
                        self.bump();
                        return true;
                    }
                    depth = depth.saturating_sub(1);
                }
                _ => {}
            }
            self.bump();
        }
        false
    }

    /// An identifier at the cursor, escapes decoded.
    fn ident(&mut self) -> Option<String> {
        let rest = self.rest();
        if !starts_ident(rest) {
            return None;
        }
        let mut out = String::new();
        while let Some(b) = self.peek() {
            if b == b'\\' {
                match escape(self.rest()) {
                    Some((c, len)) => {
                        out.push(c);
                        self.at = self.at.saturating_add(len);
                        continue;
                    }
                    None => break,
                }
            }
            if !(b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b >= 0x80) {
                break;
            }
            // A whole code point, so `out` stays UTF-8.
            let len = utf8_len(b);
            out.push_str(&String::from_utf8_lossy(
                self.s
                    .get(self.at..self.at.saturating_add(len))
                    .unwrap_or_default(),
            ));
            self.at = self.at.saturating_add(len);
        }
        Some(out)
    }
}

fn utf8_len(lead: u8) -> usize {
    match lead {
        0x00..=0x7F => 1,
        0xC0..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF7 => 4,
        _ => 1,
    }
}

/// Whether an identifier starts here (CSS Syntax §4.3.9).
fn starts_ident(s: &[u8]) -> bool {
    let valid_escape =
        |s: &[u8]| s.first() == Some(&b'\\') && s.get(1).is_some_and(|b| *b != b'\n');
    let start = |b: u8| b.is_ascii_alphabetic() || b == b'_' || b >= 0x80;
    match s.first() {
        Some(b'-') => {
            let next = s.get(1..).unwrap_or_default();
            next.first().is_some_and(|b| start(*b) || *b == b'-') || valid_escape(next)
        }
        Some(b) if start(*b) => true,
        Some(b'\\') => valid_escape(s),
        _ => false,
    }
}

/// The escape at the start of `s` (`\` then 1–6 hex digits and one optional
/// white space, or any other character): the character and the length.
fn escape(s: &[u8]) -> Option<(char, usize)> {
    let body = s.strip_prefix(b"\\")?;
    let hex = body
        .iter()
        .take(6)
        .take_while(|b| b.is_ascii_hexdigit())
        .count();
    if hex > 0 {
        let digits = std::str::from_utf8(body.get(..hex)?).ok()?;
        let n = u32::from_str_radix(digits, 16).ok()?;
        let c = char::from_u32(n)
            .filter(|c| *c != '\0')
            .unwrap_or('\u{FFFD}');
        let blank = usize::from(body.get(hex).is_some_and(u8::is_ascii_whitespace));
        return Some((c, hex.saturating_add(1).saturating_add(blank)));
    }
    let lead = *body.first()?;
    if lead == b'\n' {
        return None;
    }
    let len = utf8_len(lead);
    let c = std::str::from_utf8(body.get(..len)?).ok()?.chars().next()?;
    Some((c, len.saturating_add(1)))
}

/// `raw` with comments removed (each becomes a space, as it separates
/// tokens) and white space collapsed; for a value or a media query
/// (`value`), escapes outside strings decoded and ASCII lower-cased too. A
/// selector keeps its case and its escapes, which its parser decodes (an
/// escaped `\.` is part of a name, never a class).
fn clean(raw: &[u8], value: bool) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut p = Parser { s: raw, at: 0 };
    let mut blank = false;
    while let Some(b) = p.peek() {
        if p.comment() {
            blank = true;
            continue;
        }
        if b.is_ascii_whitespace() {
            blank = true;
            p.bump();
            continue;
        }
        if blank && !out.is_empty() {
            out.push(' ');
        }
        blank = false;
        match b {
            b'"' | b'\'' => {
                let start = p.at;
                p.string();
                out.push_str(&String::from_utf8_lossy(
                    raw.get(start..p.at).unwrap_or_default(),
                ));
            }
            b'\\' if value => match escape(p.rest()) {
                Some((c, len)) => {
                    out.extend(c.to_lowercase());
                    p.at = p.at.saturating_add(len);
                }
                None => p.bump(),
            },
            _ => {
                // An escape of a selector is copied whole, so the character
                // it escapes is not read as white space or syntax here.
                let len = if b == b'\\' {
                    escape(p.rest()).map_or(1, |(_, len)| len)
                } else {
                    utf8_len(b)
                };
                let piece = String::from_utf8_lossy(
                    raw.get(p.at..p.at.saturating_add(len)).unwrap_or_default(),
                );
                if value {
                    out.push_str(&piece.to_ascii_lowercase());
                } else {
                    out.push_str(&piece);
                }
                p.at = p.at.saturating_add(len);
            }
        }
    }
    out
}

/// The declarations of a `style` attribute or a rule's block that
/// [`PROPERTIES`] lists, in order.
pub(crate) fn declarations(src: &str) -> Vec<Decl> {
    let mut out = Vec::new();
    let mut p = Parser {
        s: src.as_bytes(),
        at: 0,
    };
    loop {
        p.skip_blank(false);
        match p.peek() {
            None => return out,
            Some(b';') => {
                p.bump();
                continue;
            }
            _ => {}
        }
        let name = p.ident();
        p.skip_blank(false);
        let colon = p.peek() == Some(b':');
        if colon {
            p.bump();
        }
        let value = p.until(b";");
        if p.peek() == Some(b'}') {
            // A nested rule's block, or a stray brace: skip past it.
            p.bump();
        }
        let (Some(name), true) = (name, colon) else {
            continue;
        };
        let name = name.to_ascii_lowercase();
        if PROPERTIES.binary_search(&name.as_str()).is_err() || value.contains(&b'{') {
            continue;
        }
        let mut value = clean(value, true);
        let important = match value.rfind('!') {
            Some(bang)
                if value
                    .get(bang.saturating_add(1)..)
                    .is_some_and(|t| t.trim() == "important") =>
            {
                value.truncate(bang);
                true
            }
            _ => false,
        };
        let value = value.trim().to_owned();
        if value.is_empty() {
            continue;
        }
        out.push(Decl {
            name,
            value,
            important,
        });
    }
}

/// The selectors of a list (already [`clean`]ed): `Ok` with the supported
/// ones, `Err` when one is invalid (a browser then drops the whole rule).
fn selector_list(list: &str) -> Result<Vec<Vec<Compound>>, ()> {
    let mut out = Vec::new();
    for selector in split_top(list, b',') {
        if let Some(s) = selector_of(selector.trim())? {
            out.push(s);
        }
    }
    Ok(out)
}

/// `s` split at `sep` outside brackets, parentheses and strings.
fn split_top(s: &str, sep: u8) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut depth = 0usize;
    let mut quote: Option<u8> = None;
    let mut start = 0usize;
    for (i, b) in s.bytes().enumerate() {
        match (quote, b) {
            (Some(q), _) if b == q => quote = None,
            (Some(_), _) => {}
            (None, b'"' | b'\'') => quote = Some(b),
            (None, b'(' | b'[') => depth = depth.saturating_add(1),
            (None, b')' | b']') => depth = depth.saturating_sub(1),
            (None, _) if b == sep && depth == 0 => {
                parts.push(s.get(start..i).unwrap_or_default());
                start = i.saturating_add(1);
            }
            _ => {}
        }
    }
    parts.push(s.get(start..).unwrap_or_default());
    parts
}

/// Pseudo-classes and pseudo-elements a browser knows: a selector with one is
/// valid but not resolved here (dropped from its list); any other name makes
/// the selector invalid, and the rule with it.
const KNOWN_PSEUDO: [&str; 44] = [
    "active",
    "after",
    "any-link",
    "backdrop",
    "before",
    "checked",
    "default",
    "defined",
    "dir",
    "disabled",
    "empty",
    "enabled",
    "first-child",
    "first-letter",
    "first-line",
    "first-of-type",
    "focus",
    "focus-visible",
    "focus-within",
    "has",
    "hover",
    "in-range",
    "indeterminate",
    "invalid",
    "is",
    "lang",
    "last-child",
    "last-of-type",
    "link",
    "marker",
    "not",
    "nth-child",
    "nth-last-child",
    "nth-last-of-type",
    "nth-of-type",
    "only-child",
    "only-of-type",
    "placeholder",
    "required",
    "root",
    "selection",
    "target",
    "valid",
    "visited",
];

/// One selector: `Ok(Some)` resolved, `Ok(None)` valid but not resolved
/// here, `Err` invalid.
fn selector_of(s: &str) -> Result<Option<Vec<Compound>>, ()> {
    if s.is_empty() {
        return Err(());
    }
    let mut p = Parser {
        s: s.as_bytes(),
        at: 0,
    };
    let mut compounds: Vec<Compound> = Vec::new();
    let mut current = Compound::default();
    let mut empty = true;
    let mut pending: Option<Combinator> = None;
    let mut unsupported = false;
    let finish = |compounds: &mut Vec<Compound>,
                  current: &mut Compound,
                  pending: &mut Option<Combinator>| {
        let mut c = std::mem::take(current);
        c.combinator = pending.take();
        compounds.push(c);
    };
    while let Some(b) = p.peek() {
        match b {
            b' ' | b'>' | b'+' | b'~' => {
                if !empty {
                    finish(&mut compounds, &mut current, &mut pending);
                    empty = true;
                    pending = Some(Combinator::Descendant);
                }
                if b != b' ' {
                    if compounds.is_empty() {
                        return Err(());
                    }
                    if matches!(pending, Some(Combinator::Child)) && b != b' ' {
                        return Err(());
                    }
                    pending = Some(Combinator::Child);
                    // `+` and `~` need the siblings, which the open-element stack does not keep.
                    unsupported |= b != b'>';
                }
                p.bump();
            }
            b'*' => {
                if !empty {
                    return Err(());
                }
                p.bump();
                empty = false;
            }
            b'|' => {
                // A namespace prefix (`svg|a`, `*|p`).
                unsupported = true;
                p.bump();
            }
            b'.' | b'#' => {
                p.bump();
                let Some(name) = p
                    .ident()
                    .or_else(|| (b == b'#').then(|| hash_name(&mut p)).flatten())
                else {
                    return Err(());
                };
                if b == b'.' {
                    current.classes.push(name);
                } else {
                    current.ids.push(name);
                }
                empty = false;
            }
            b'[' => {
                p.bump();
                let inner = p.until(b"]");
                if p.peek() != Some(b']') {
                    return Err(());
                }
                p.bump();
                current.attrs.push(attr_selector(inner)?);
                empty = false;
            }
            b':' => {
                p.bump();
                if p.peek() == Some(b':') {
                    p.bump();
                }
                let Some(name) = p.ident().map(|n| n.to_ascii_lowercase()) else {
                    return Err(());
                };
                if p.peek() == Some(b'(') {
                    p.bump();
                    p.until(b")");
                    if p.peek() != Some(b')') {
                        return Err(());
                    }
                    p.bump();
                }
                if !name.starts_with('-') && KNOWN_PSEUDO.binary_search(&name.as_str()).is_err() {
                    return Err(());
                }
                unsupported = true;
                empty = false;
            }
            _ => {
                if !empty && current.tag.is_some() {
                    return Err(());
                }
                let Some(name) = p.ident() else {
                    return Err(());
                };
                if !empty {
                    // A type after a class or attribute (`.a p` without the space).
                    return Err(());
                }
                current.tag = Some(name.to_ascii_lowercase());
                empty = false;
            }
        }
    }
    if empty {
        // A trailing combinator (`p >`), or a blank selector.
        if matches!(pending, Some(Combinator::Child)) || compounds.is_empty() {
            return Err(());
        }
    } else {
        finish(&mut compounds, &mut current, &mut pending);
    }
    if unsupported || compounds.len() > MAX_COMPOUNDS {
        return Ok(None);
    }
    Ok(Some(compounds))
}

/// An id that is not an identifier (`#123`), as a hash token allows.
fn hash_name(p: &mut Parser<'_>) -> Option<String> {
    let start = p.at;
    while p
        .peek()
        .is_some_and(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b >= 0x80)
    {
        p.bump();
    }
    (p.at > start)
        .then(|| String::from_utf8_lossy(p.s.get(start..p.at).unwrap_or_default()).into_owned())
}

/// The inside of `[…]`: `name`, `name op value`, with an optional `i` or `s`.
fn attr_selector(inner: &[u8]) -> Result<AttrSel, ()> {
    let mut p = Parser { s: inner, at: 0 };
    p.skip_blank(false);
    let name = p.ident().ok_or(())?.to_ascii_lowercase();
    p.skip_blank(false);
    let op = match p.peek() {
        None => {
            return Ok(AttrSel {
                name,
                op: AttrOp::Exists,
                value: String::new(),
                insensitive: false,
            });
        }
        Some(b'=') => AttrOp::Equals,
        Some(b'~') => AttrOp::Includes,
        Some(b'|') => AttrOp::Dash,
        Some(b'^') => AttrOp::Prefix,
        Some(b'$') => AttrOp::Suffix,
        Some(b'*') => AttrOp::Substring,
        Some(_) => return Err(()),
    };
    p.bump();
    if op != AttrOp::Equals {
        if p.peek() != Some(b'=') {
            return Err(());
        }
        p.bump();
    }
    p.skip_blank(false);
    let value = match p.peek() {
        Some(q @ (b'"' | b'\'')) => {
            let start = p.at.saturating_add(1);
            p.string();
            let end = p.at.saturating_sub(1).max(start);
            let raw = inner.get(start..end).unwrap_or_default();
            if p.s.get(end) != Some(&q) {
                return Err(());
            }
            unescape(raw)
        }
        _ => p.ident().ok_or(())?,
    };
    p.skip_blank(false);
    let insensitive = match p.ident().map(|f| f.to_ascii_lowercase()).as_deref() {
        None => false,
        Some("i") => true,
        Some("s") => false,
        Some(_) => return Err(()),
    };
    p.skip_blank(false);
    if p.peek().is_some() {
        return Err(());
    }
    Ok(AttrSel {
        name,
        op,
        value,
        insensitive,
    })
}

/// The inside of a quoted string, escapes decoded.
fn unescape(raw: &[u8]) -> String {
    let mut out = String::new();
    let mut i = 0usize;
    while let Some(&b) = raw.get(i) {
        if b == b'\\'
            && let Some((c, len)) = escape(raw.get(i..).unwrap_or_default())
        {
            out.push(c);
            i = i.saturating_add(len);
            continue;
        }
        let len = utf8_len(b);
        out.push_str(&String::from_utf8_lossy(
            raw.get(i..i.saturating_add(len)).unwrap_or_default(),
        ));
        i = i.saturating_add(len);
    }
    out
}

/// Whether a media query list (already [`clean`]ed) applies to a desktop
/// screen of [`VIEWPORT`]: any query that does. A type other than `screen`
/// or `all`, or a feature not evaluated here, makes its query not apply.
fn media_applies(list: &str) -> bool {
    if list.trim().is_empty() {
        return true;
    }
    split_top(list, b',')
        .into_iter()
        .any(|q| query_applies(q.trim()) == Some(true))
}

fn query_applies(query: &str) -> Option<bool> {
    let (negated, rest) = match query.strip_prefix("not ") {
        Some(r) => (true, r.trim_start()),
        None => (
            false,
            query.strip_prefix("only ").unwrap_or(query).trim_start(),
        ),
    };
    let mut result = true;
    for (i, part) in rest.split(" and ").enumerate() {
        let part = part.trim();
        let holds = if let Some(feature) = part.strip_prefix('(').and_then(|f| f.strip_suffix(')'))
        {
            feature_holds(feature.trim())?
        } else if i == 0 {
            match part {
                "all" | "screen" => true,
                "print" | "speech" | "tv" | "handheld" | "projection" | "tty" | "braille"
                | "embossed" | "aural" => false,
                _ => return None,
            }
        } else {
            return None;
        };
        result &= holds;
    }
    Some(result != negated)
}

/// One media feature, `name: value` or `name op value`, for [`VIEWPORT`].
fn feature_holds(feature: &str) -> Option<bool> {
    let (width, height) = VIEWPORT;
    if let Some((name, value)) = feature.split_once(':') {
        let (name, value) = (name.trim(), value.trim());
        let px = || length(value);
        return match name {
            "min-width" | "min-device-width" => Some(width >= px()?),
            "max-width" | "max-device-width" => Some(width <= px()?),
            "width" | "device-width" => Some(width == px()?),
            "min-height" | "min-device-height" => Some(height >= px()?),
            "max-height" | "max-device-height" => Some(height <= px()?),
            "orientation" => Some(value == "landscape"),
            "prefers-color-scheme" => Some(value == "light"),
            "-webkit-min-device-pixel-ratio" | "min-resolution" => {
                Some(number(value.trim_end_matches("dppx"))? <= 1.0)
            }
            "-webkit-max-device-pixel-ratio" | "max-resolution" => {
                Some(number(value.trim_end_matches("dppx"))? >= 1.0)
            }
            _ => None,
        };
    }
    // Range syntax: `width >= 600px`, `600px < width`.
    for op in [">=", "<=", ">", "<", "="] {
        if let Some((l, r)) = feature.split_once(op) {
            let (l, r) = (l.trim(), r.trim());
            let size = |n: &str| match n {
                "width" | "device-width" => Some(width),
                "height" | "device-height" => Some(height),
                _ => None,
            };
            let (value, limit, flipped) = match (size(l), size(r)) {
                (Some(v), None) => (v, length(r)?, false),
                (None, Some(v)) => (v, length(l)?, true),
                _ => return None,
            };
            let (a, b) = if flipped {
                (limit, value)
            } else {
                (value, limit)
            };
            return Some(match op {
                ">=" => a >= b,
                "<=" => a <= b,
                ">" => a > b,
                "<" => a < b,
                _ => a == b,
            });
        }
    }
    None
}

fn number(v: &str) -> Option<f64> {
    v.trim().parse::<f64>().ok()
}

/// A media query length in CSS pixels (`em` as 16px).
fn length(v: &str) -> Option<f64> {
    let v = v.trim();
    let digits = v
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-' || c == '+'))
        .unwrap_or(v.len());
    let n: f64 = v.get(..digits)?.parse().ok()?;
    Some(match v.get(digits..)?.trim() {
        "px" => n,
        "" if n == 0.0 => 0.0,
        "em" | "rem" => n * 16.0,
        "pt" => n * 4.0 / 3.0,
        "in" => n * 96.0,
        "cm" => n * 96.0 / 2.54,
        "mm" => n * 96.0 / 25.4,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    struct E(&'static str, Vec<(&'static str, &'static str)>);

    impl Element for E {
        fn name(&self) -> &[u8] {
            self.0.as_bytes()
        }
        fn attr(&self, name: &[u8]) -> Option<&[u8]> {
            self.1
                .iter()
                .find(|(n, _)| n.as_bytes() == name)
                .map(|(_, v)| v.as_bytes())
        }
    }

    fn applied(sheet: &str, path: &[E]) -> Vec<(String, String, bool)> {
        let mut budget = 1_000_000;
        let sheet = Sheet::parse(sheet);
        let m = sheet.matched(path, false, &mut budget).unwrap();
        m.normal
            .iter()
            .chain(m.important.iter())
            .map(|d| (d.name.clone(), d.value.clone(), d.important))
            .collect()
    }

    fn display(sheet: &str, path: &[E]) -> Option<String> {
        applied(sheet, path)
            .into_iter()
            .rfind(|(n, _, _)| n == "display")
            .map(|(_, v, _)| v)
    }

    #[test]
    fn tables_are_sorted() {
        assert!(PROPERTIES.windows(2).all(|w| w[0] < w[1]));
        assert!(KNOWN_PSEUDO.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn declarations_parse_like_a_browser() {
        let d = declarations(
            "color: Red; /* x */ DISPLAY : none !IMPORTANT; font-family: a; dis\\70 lay: block",
        );
        let got: Vec<_> = d
            .iter()
            .map(|d| (d.name.as_str(), d.value.as_str(), d.important))
            .collect();
        assert_eq!(
            got,
            [
                ("color", "red", false),
                ("display", "none", true),
                ("display", "block", false)
            ]
        );
        // A comment inside a value separates, never joins.
        assert_eq!(declarations("display:/**/none")[0].value, "none");
        assert_eq!(declarations("display:n\\6f ne")[0].value, "none");
        assert!(declarations("display none; : none").is_empty());
    }

    #[test]
    fn selectors_match_by_type_class_id_attribute_and_ancestry() {
        let body = E("body", vec![]);
        let div = E("div", vec![("class", "Wrap outer"), ("id", "main")]);
        let span = E("span", vec![("class", "h x"), ("data-k", "a-b")]);
        let path = [body, div, span];
        for (sheet, want) in [
            ("span{display:none}", Some("none")),
            (".h{display:none}", Some("none")),
            (".h.x{display:none}", Some("none")),
            (".h.y{display:none}", None),
            ("#main span{display:none}", Some("none")),
            ("#main > span{display:none}", Some("none")),
            ("body > span{display:none}", None),
            ("body span{display:none}", Some("none")),
            ("div.Wrap .h{display:none}", Some("none")),
            ("div.wrap .h{display:none}", None),
            ("[data-k]{display:none}", Some("none")),
            ("[data-k|=a]{display:none}", Some("none")),
            ("[data-k^=\"a-\"]{display:none}", Some("none")),
            ("[data-k=A-B i]{display:none}", Some("none")),
            ("[data-k=A-B]{display:none}", None),
            ("p, .h{display:none}", Some("none")),
            ("*{display:none}", Some("none")),
            ("\\.h, .\\68{display:none}", Some("none")),
            ("@media screen{.h{display:none}}", Some("none")),
            (
                "@media only screen and (min-width: 600px){.h{display:none}}",
                Some("none"),
            ),
            ("@media (max-width: 600px){.h{display:none}}", None),
            ("@media print{.h{display:none}}", None),
            ("@media (width >= 600px){.h{display:none}}", Some("none")),
            ("@media not print{.h{display:none}}", Some("none")),
            (
                "@media (prefers-color-scheme: dark){.h{display:none}}",
                None,
            ),
            ("@font-face{font-family:x} .h{display:none}", Some("none")),
            ("<!-- .h{display:none} -->", Some("none")),
            // Specificity, then order, then importance.
            (".h{display:none} span{display:block}", Some("none")),
            ("span{display:block} span{display:none}", Some("none")),
            (
                "#main .h{display:none !important} .h.x.x{display:block}",
                Some("none"),
            ),
            // Unresolved selectors are dropped (the text stays unstyled), and
            // an invalid one drops its whole list, as a browser drops it.
            (".h:first-child{display:none}", None),
            ("div + span{display:none}", None),
            ("span, .h:first-child{display:none}", Some("none")),
            ("span, .h:bogus{display:none}", None),
            ("span, p..x{display:none}", None),
        ] {
            assert_eq!(display(sheet, &path).as_deref(), want, "{sheet}");
        }
    }

    #[test]
    fn quirks_mode_matches_classes_in_any_case() {
        let path = [E("div", vec![("class", "Hide")])];
        let sheet = Sheet::parse(".hide{display:none}");
        let mut budget = 100;
        assert!(
            sheet
                .matched(&path, false, &mut budget)
                .unwrap()
                .normal
                .is_empty()
        );
        assert_eq!(
            sheet
                .matched(&path, true, &mut budget)
                .unwrap()
                .normal
                .len(),
            1
        );
    }

    #[test]
    fn matching_is_bounded_by_the_budget() {
        let sheet = Sheet::parse("a a a a a a a a a b{display:none}");
        let path: Vec<E> = (0..200)
            .map(|_| E("a", vec![]))
            .chain([E("c", vec![])])
            .collect();
        let mut budget = 1000;
        // `b` never matches `c`: the bucket keeps it from being tried at all.
        assert!(sheet.matched(&path, false, &mut budget).is_ok());
        let sheet = Sheet::parse("b a a a a a a a a *{display:none}");
        let mut budget = 1000;
        assert_eq!(
            sheet.matched(&path, false, &mut budget).err(),
            Some(Exhausted)
        );
    }
}
