//! Repository lint findings, without allocating: every dangerous invisible, orphan
//! variation selector and control but TAB, LF and CR, with line, column (code points,
//! from 1) and byte offset; a run of Tag-block code points as one finding spelling
//! the ASCII it hides; bidi embeddings, overrides and isolates paired within their
//! paragraph (UAX #9's separators), an opener never closed or a closer with nothing
//! to close being an extra finding.
//!
//! [`Lint`] takes text in pieces of whole code points (a stream's decoder gives
//! them) and reports findings in order through a callback. Clean text is skipped by
//! the block scan; lines are counted only up to each finding (by `memchr`), so a
//! large clean file costs about two SIMD passes.

use crate::class::{is_control, is_dangerous_invisible, is_orphan_selector};
use crate::scan::{Backend, ByteSet, Finder, Scanner, char_at};

/// Most hidden Tag-block characters a finding spells out (the count stays exact).
pub const MAX_HIDDEN: usize = 256;
/// Deepest bidi nesting tracked, as UAX #9's `max_depth`; deeper openers are reported.
pub const MAX_BIDI_DEPTH: usize = 125;

/// What a finding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// A member of the dangerous-invisible table.
    Invisible,
    /// A run of Tag-block code points.
    TagRun,
    /// A variation selector with nothing to select.
    OrphanSelector,
    /// A control but TAB, LF and CR.
    Control,
    /// A bidi opener not closed on its line, or a closer with nothing to close.
    UnpairedBidi,
}

impl Kind {
    /// Every kind, in rule order.
    pub const ALL: [Kind; 5] = [
        Kind::Invisible,
        Kind::TagRun,
        Kind::OrphanSelector,
        Kind::Control,
        Kind::UnpairedBidi,
    ];
}

/// Where a finding starts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pos {
    /// Line, from 1.
    pub line: u64,
    /// Column in code points, from 1.
    pub column: u64,
    /// Byte offset in the input, from 0.
    pub byte: u64,
}

/// The text a Tag-block run spells.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TagText<'a> {
    /// Code points in the run.
    pub count: u64,
    /// The ASCII they spell (the first [`MAX_HIDDEN`]; tags outside U+E0020–U+E007E
    /// spell nothing).
    pub hidden: &'a str,
}

/// One finding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Finding<'a> {
    /// What it is.
    pub kind: Kind,
    /// Where it starts.
    pub pos: Pos,
    /// The (first) code point.
    pub c: char,
    /// Bytes it covers (a Tag run covers all its code points).
    pub len: u64,
    /// For a Tag run, what it spells.
    pub tag: Option<TagText<'a>>,
    /// For unpaired bidi: an opener left open (else a closer with nothing to close).
    pub unclosed: bool,
}

/// Whether `c` opens or closes an isolate (U+2066–U+2069).
pub const fn is_isolate(c: char) -> bool {
    matches!(c, '\u{2066}'..='\u{2068}')
}

/// Whether `c` ends a bidi paragraph (UAX #9 paragraph separators and line ends).
const fn ends_paragraph(c: char) -> bool {
    matches!(c, '\n' | '\r' | '\u{1C}'..='\u{1E}' | '\u{85}' | '\u{2029}')
}

/// The ASCII a Tag-block code point stands for.
const fn tag_ascii(c: char) -> Option<u8> {
    let cp = c as u32;
    if 0xE0020 <= cp && cp <= 0xE007E {
        Some(cp.wrapping_sub(0xE0000) as u8)
    } else {
        None
    }
}

/// Stops while no bidi opener is open: what may be reported (TAB, LF, CR never are).
static IDLE: Finder = Finder::new(
    ByteSet::ATTENTION
        .without(b'\t')
        .without(b'\n')
        .without(b'\r'),
)
.refined();

/// Stops while an opener is open: also every paragraph end (U+2029 has an E2 lead,
/// so the lead bytes are not refined here).
static IN_BIDI: Finder = Finder::new(ByteSet::ATTENTION);

#[derive(Clone, Copy, Debug, Default)]
struct Opener {
    pos: Pos,
    c: char,
}

#[derive(Clone, Copy, Debug)]
struct Run {
    pos: Pos,
    first: char,
    count: u64,
    /// Stream offset just after the run.
    end: u64,
}

/// The lint state of one input.
#[derive(Clone, Debug)]
pub struct Lint {
    backend: Backend,
    /// Stream offset of the current piece.
    offset: u64,
    line: u64,
    /// Bytes of the current piece whose line ends are counted.
    counted: usize,
    /// Offset in the piece up to which `col` counts code points of the line.
    col_at: usize,
    col: u64,
    /// The last code point of the previous piece.
    prev: Option<char>,
    run: Option<Run>,
    hidden: [u8; MAX_HIDDEN],
    hidden_len: usize,
    bidi: [Opener; MAX_BIDI_DEPTH],
    bidi_len: usize,
    findings: u64,
}

impl Default for Lint {
    fn default() -> Self {
        Lint::new()
    }
}

/// Code points in `bytes` (which start and end on boundaries).
fn count_chars(bytes: &[u8]) -> u64 {
    bytes.iter().filter(|&&b| (b as i8) >= -0x40).count() as u64
}

impl Lint {
    /// The state at the start of an input.
    pub fn new() -> Lint {
        Lint::on(Backend::best())
    }

    /// [`Lint::new`] on a given backend.
    #[doc(hidden)]
    pub fn on(backend: Backend) -> Lint {
        Lint {
            backend,
            offset: 0,
            line: 1,
            counted: 0,
            col_at: 0,
            col: 0,
            prev: None,
            run: None,
            hidden: [0; MAX_HIDDEN],
            hidden_len: 0,
            bidi: [Opener::default(); MAX_BIDI_DEPTH],
            bidi_len: 0,
            findings: 0,
        }
    }

    /// Findings reported so far.
    pub const fn findings(&self) -> u64 {
        self.findings
    }

    /// The position of byte `p` of `piece` (calls come in increasing `p`).
    fn pos(&mut self, piece: &[u8], p: usize) -> Pos {
        let gap = piece.get(self.counted..p).unwrap_or_default();
        if let Some(last) = memchr::memrchr(b'\n', gap) {
            let lines = memchr::memchr_iter(b'\n', gap).count() as u64;
            self.line = self.line.saturating_add(lines);
            self.col_at = self.counted.saturating_add(last).saturating_add(1);
            self.col = 0;
        }
        self.counted = p;
        let span = piece.get(self.col_at..p).unwrap_or_default();
        self.col = self.col.saturating_add(count_chars(span));
        self.col_at = p;
        Pos {
            line: self.line,
            column: self.col.saturating_add(1),
            byte: self.offset.saturating_add(p as u64),
        }
    }

    fn emit<E>(
        &mut self,
        report: &mut impl FnMut(&Finding<'_>) -> Result<(), E>,
        kind: Kind,
        pos: Pos,
        c: char,
        unclosed: bool,
    ) -> Result<(), E> {
        self.findings = self.findings.saturating_add(1);
        report(&Finding {
            kind,
            pos,
            c,
            len: c.len_utf8() as u64,
            tag: None,
            unclosed,
        })
    }

    fn flush_run<E>(
        &mut self,
        report: &mut impl FnMut(&Finding<'_>) -> Result<(), E>,
    ) -> Result<(), E> {
        let Some(run) = self.run.take() else {
            return Ok(());
        };
        self.findings = self.findings.saturating_add(1);
        let hidden = self.hidden.get(..self.hidden_len).unwrap_or_default();
        // Tag characters map to printable ASCII only.
        let hidden = core::str::from_utf8(hidden).unwrap_or_default();
        let result = report(&Finding {
            kind: Kind::TagRun,
            pos: run.pos,
            c: run.first,
            len: run.count.saturating_mul(4),
            tag: Some(TagText {
                count: run.count,
                hidden,
            }),
            unclosed: false,
        });
        self.hidden_len = 0;
        result
    }

    /// The end of a bidi paragraph: every opener still open is unpaired.
    fn paragraph_end<E>(
        &mut self,
        report: &mut impl FnMut(&Finding<'_>) -> Result<(), E>,
    ) -> Result<(), E> {
        let open = self.bidi_len;
        self.bidi_len = 0;
        for k in 0..open {
            if let Some(o) = self.bidi.get(k).copied() {
                self.emit(report, Kind::UnpairedBidi, o.pos, o.c, true)?;
            }
        }
        Ok(())
    }

    fn bidi<E>(
        &mut self,
        report: &mut impl FnMut(&Finding<'_>) -> Result<(), E>,
        pos: Pos,
        c: char,
    ) -> Result<(), E> {
        match c {
            '\u{202A}' | '\u{202B}' | '\u{202D}' | '\u{202E}' | '\u{2066}'..='\u{2068}' => {
                if let Some(slot) = self.bidi.get_mut(self.bidi_len) {
                    *slot = Opener { pos, c };
                    self.bidi_len = self.bidi_len.saturating_add(1);
                } else {
                    self.emit(report, Kind::UnpairedBidi, pos, c, true)?;
                }
            }
            '\u{202C}' => {
                // PDF closes the innermost embedding, never across an isolate.
                let top = self.bidi_len.checked_sub(1).and_then(|k| self.bidi.get(k));
                if top.is_some_and(|o| !is_isolate(o.c)) {
                    self.bidi_len = self.bidi_len.saturating_sub(1);
                } else {
                    self.emit(report, Kind::UnpairedBidi, pos, c, false)?;
                }
            }
            '\u{2069}' => {
                // PDI closes the innermost isolate and the embeddings opened inside it,
                // which were themselves never closed.
                let open = self.bidi.get(..self.bidi_len).unwrap_or_default();
                match open.iter().rposition(|o| is_isolate(o.c)) {
                    Some(i) => {
                        let end = self.bidi_len;
                        self.bidi_len = i;
                        for k in i.saturating_add(1)..end {
                            if let Some(o) = self.bidi.get(k).copied() {
                                self.emit(report, Kind::UnpairedBidi, o.pos, o.c, true)?;
                            }
                        }
                    }
                    None => self.emit(report, Kind::UnpairedBidi, pos, c, false)?,
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// Lints the next piece of whole code points, reporting its findings in order.
    /// A Tag run or an open bidi opener may be reported by a later piece or by
    /// [`Lint::finish`].
    pub fn feed<E>(
        &mut self,
        piece: &str,
        report: &mut impl FnMut(&Finding<'_>) -> Result<(), E>,
    ) -> Result<(), E> {
        let bytes = piece.as_bytes();
        let mut idle = Scanner::new(&IDLE, self.backend);
        let mut in_bidi = Scanner::new(&IN_BIDI, self.backend);
        let mut at = 0;
        while at < bytes.len() {
            let scanner = if self.bidi_len == 0 {
                &mut idle
            } else {
                &mut in_bidi
            };
            at = scanner.next(bytes, at, |_, _| true);
            let Some(c) = char_at(piece, at) else {
                break;
            };
            let next = at.saturating_add(c.len_utf8());
            let is_tag = matches!(c, '\u{E0000}'..='\u{E007F}');
            let byte = self.offset.saturating_add(at as u64);
            if self
                .run
                .as_ref()
                .is_some_and(|run| !is_tag || run.end != byte)
            {
                self.flush_run(report)?;
            }
            if ends_paragraph(c) {
                self.paragraph_end(report)?;
            }
            if matches!(c, '\n' | '\r' | '\t' | '\u{2029}') {
                at = next;
                continue;
            }
            let reported = is_tag
                || is_control(c)
                || is_dangerous_invisible(c)
                || is_orphan_selector(c, self.prev_of(piece, at));
            if !reported {
                at = next;
                continue;
            }
            let pos = self.pos(bytes, at);
            if is_tag {
                let end = byte.saturating_add(c.len_utf8() as u64);
                let run = self.run.get_or_insert(Run {
                    pos,
                    first: c,
                    count: 0,
                    end,
                });
                run.count = run.count.saturating_add(1);
                run.end = end;
                if let Some(a) = tag_ascii(c)
                    && let Some(slot) = self.hidden.get_mut(self.hidden_len)
                {
                    *slot = a;
                    self.hidden_len = self.hidden_len.saturating_add(1);
                }
            } else if is_control(c) {
                self.emit(report, Kind::Control, pos, c, false)?;
            } else if is_dangerous_invisible(c) {
                self.emit(report, Kind::Invisible, pos, c, false)?;
                self.bidi(report, pos, c)?;
            } else {
                self.emit(report, Kind::OrphanSelector, pos, c, false)?;
            }
            at = next;
        }
        // Carry the line and column to the next piece.
        let _ = self.pos(bytes, bytes.len());
        self.counted = 0;
        self.col_at = 0;
        if let Some(last) = piece.chars().next_back() {
            self.prev = Some(last);
        }
        self.offset = self.offset.saturating_add(bytes.len() as u64);
        Ok(())
    }

    /// The code point before byte `at` of `piece` in the input.
    fn prev_of(&self, piece: &str, at: usize) -> Option<char> {
        if at == 0 {
            self.prev
        } else {
            piece.get(..at).and_then(|s| s.chars().next_back())
        }
    }

    /// Ends the input: a pending Tag run and every opener still open are reported.
    pub fn finish<E>(
        &mut self,
        report: &mut impl FnMut(&Finding<'_>) -> Result<(), E>,
    ) -> Result<(), E> {
        self.flush_run(report)?;
        self.paragraph_end(report)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::string::String;
    use std::vec::Vec;

    /// Findings as `(kind, line, column, byte, code point, hidden, unclosed)`.
    type Row = (Kind, u64, u64, u64, u32, Option<String>, bool);

    fn lint_in_chunks(text: &str, size: usize, backend: Backend) -> Vec<Row> {
        let mut lint = Lint::on(backend);
        let mut out = Vec::new();
        let mut report = |f: &Finding<'_>| -> Result<(), ()> {
            out.push((
                f.kind,
                f.pos.line,
                f.pos.column,
                f.pos.byte,
                u32::from(f.c),
                f.tag.map(|t| String::from(t.hidden)),
                f.unclosed,
            ));
            Ok(())
        };
        let mut stream = crate::utf8::Utf8Stream::new();
        for chunk in text.as_bytes().chunks(size.max(1)) {
            stream
                .feed(chunk, |piece| lint.feed(piece, &mut report).unwrap())
                .unwrap();
        }
        lint.finish(&mut report).unwrap();
        out
    }

    /// The rules written plainly, one code point at a time.
    fn naive(text: &str) -> Vec<Row> {
        let mut out = Vec::new();
        let (mut line, mut col) = (1u64, 0u64);
        let mut prev = None;
        let mut run: Option<(Row, u64)> = None;
        let mut stack: Vec<(char, u64, u64, u64)> = Vec::new();
        for (i, c) in text.char_indices() {
            let byte = i as u64;
            let is_tag = ('\u{E0000}'..='\u{E007F}').contains(&c);
            if let Some((r, end)) = run.take() {
                if is_tag && end == byte {
                    run = Some((r, end));
                } else {
                    out.push(r);
                }
            }
            if ends_paragraph(c) {
                for (o, l, cl, b) in stack.drain(..) {
                    out.push((Kind::UnpairedBidi, l, cl, b, u32::from(o), None, true));
                }
            }
            col += 1;
            if c == '\n' {
                line += 1;
                col = 0;
            } else if is_tag {
                let end = byte + 4;
                let hidden = tag_ascii(c).map(char::from);
                match &mut run {
                    Some((r, e)) => {
                        *e = end;
                        if let (Some(h), Some(a)) = (&mut r.5, hidden)
                            && h.len() < MAX_HIDDEN
                        {
                            h.push(a);
                        }
                    }
                    None => {
                        let h = hidden.map(String::from).unwrap_or_default();
                        run = Some((
                            (Kind::TagRun, line, col, byte, u32::from(c), Some(h), false),
                            end,
                        ));
                    }
                }
            } else if is_control(c) && c != '\t' && c != '\r' {
                out.push((Kind::Control, line, col, byte, u32::from(c), None, false));
            } else if is_dangerous_invisible(c) {
                out.push((Kind::Invisible, line, col, byte, u32::from(c), None, false));
                match c {
                    '\u{202A}' | '\u{202B}' | '\u{202D}' | '\u{202E}' | '\u{2066}'..='\u{2068}' => {
                        if stack.len() < MAX_BIDI_DEPTH {
                            stack.push((c, line, col, byte));
                        } else {
                            out.push((
                                Kind::UnpairedBidi,
                                line,
                                col,
                                byte,
                                u32::from(c),
                                None,
                                true,
                            ));
                        }
                    }
                    '\u{202C}' => {
                        if stack.last().is_some_and(|o| !is_isolate(o.0)) {
                            stack.pop();
                        } else {
                            out.push((
                                Kind::UnpairedBidi,
                                line,
                                col,
                                byte,
                                u32::from(c),
                                None,
                                false,
                            ));
                        }
                    }
                    '\u{2069}' => match stack.iter().rposition(|o| is_isolate(o.0)) {
                        Some(k) => {
                            for (o, l, cl, b) in stack.split_off(k).into_iter().skip(1) {
                                out.push((Kind::UnpairedBidi, l, cl, b, u32::from(o), None, true));
                            }
                        }
                        None => out.push((
                            Kind::UnpairedBidi,
                            line,
                            col,
                            byte,
                            u32::from(c),
                            None,
                            false,
                        )),
                    },
                    _ => {}
                }
            } else if is_orphan_selector(c, prev) {
                out.push((
                    Kind::OrphanSelector,
                    line,
                    col,
                    byte,
                    u32::from(c),
                    None,
                    false,
                ));
            }
            prev = Some(c);
        }
        if let Some((r, _)) = run {
            out.push(r);
        }
        for (o, l, cl, b) in stack {
            out.push((Kind::UnpairedBidi, l, cl, b, u32::from(o), None, true));
        }
        out
    }

    #[test]
    fn examples() {
        let rows = lint_in_chunks(
            "ok\u{200B}\n\u{202E}x\n\u{E0041}\u{E0042}!\u{FE0F}",
            3,
            Backend::best(),
        );
        assert_eq!(
            rows,
            std::vec![
                (Kind::Invisible, 1, 3, 2, 0x200B, None, false),
                (Kind::Invisible, 2, 1, 6, 0x202E, None, false),
                (Kind::UnpairedBidi, 2, 1, 6, 0x202E, None, true),
                (
                    Kind::TagRun,
                    3,
                    1,
                    11,
                    0xE0041,
                    Some(String::from("AB")),
                    false
                ),
                (Kind::OrphanSelector, 3, 4, 20, 0xFE0F, None, false),
            ]
        );
    }

    proptest::proptest! {
        #[test]
        fn matches_the_plain_rules(
            text in "([a-z \n\r\t😀❤é—]|[\u{0}-\u{1f}\u{7f}-\u{a0}\u{ad}\u{200b}-\u{206f}\u{2029}\u{fe00}-\u{feff}\u{e0000}-\u{e0080}\u{e0100}]){0,200}",
            size in 1usize..40,
        ) {
            let expected = naive(&text);
            for backend in Backend::all() {
                proptest::prop_assert_eq!(&lint_in_chunks(&text, size, backend), &expected, "{}", backend.name());
            }
        }
    }
}

pub mod strict;
