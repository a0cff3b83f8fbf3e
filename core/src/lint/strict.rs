//! The strict scan classification: what strict would change in a text, with where.
//!
//! * What strict strip removes (steps 1–2): each member of D it drops (outside its keep
//!   contexts) and each escape sequence, found by running strict strip itself and
//!   reading the gaps between the runs it keeps, so the classification cannot drift
//!   from the transform.
//! * Controls but TAB, LF and CR left by strip (sanitize's step 3 drops them; CR is
//!   left out as the reference scan leaves it, line ends being no hiding place).
//! * On the folded view ([`crate::strict::fold_of`]): forgery literals, envelope
//!   markers, the fixed and the generic (`<|name|>`) special tokens and `<!--`.
//!   Matches start at the first byte of a code point's fold; members of D and controls
//!   fold to nothing, as sanitize removes them before matching; a barrier ends a match
//!   (but counts as a name code point of a generic token). A literal split by a whole
//!   escape sequence is reported as that escape sequence: the next scan after a fix
//!   sees the literal.
//!
//! One pass in byte order, no allocation: findings are handed to a callback as they are
//! found, each pattern attempt looks at a bounded window.

use crate::class::is_control;
use crate::forgery::{ENVELOPE_MARKERS, LiteralSet};
use crate::strict::{NAME_MAX, SPECIAL_TOKENS, fold_of, in_drop_set, strip_each};

use super::Pos;

/// What a strict finding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StrictKind {
    /// A member of D (Default_Ignorable_Code_Point ∪ Bidi_Control) strict drops.
    Dropped,
    /// An ECMA-48 escape sequence strict removes whole.
    EscapeSequence,
    /// A control but TAB, LF and CR.
    Control,
    /// A forgery literal on the folded view.
    ForgeryLiteral,
    /// An envelope marker on the folded view.
    EnvelopeMarker,
    /// A chat-template special token on the folded view.
    SpecialToken,
    /// `<!--`, a hidden comment's opener.
    HiddenComment,
}

impl StrictKind {
    /// Every kind, in rule order.
    pub const ALL: [StrictKind; 7] = [
        StrictKind::Dropped,
        StrictKind::EscapeSequence,
        StrictKind::Control,
        StrictKind::ForgeryLiteral,
        StrictKind::EnvelopeMarker,
        StrictKind::SpecialToken,
        StrictKind::HiddenComment,
    ];

    /// Whether strict strip (and so `scan --fix --profile strict`) removes it.
    pub const fn stripped(self) -> bool {
        matches!(
            self,
            StrictKind::Dropped | StrictKind::EscapeSequence | StrictKind::Control
        )
    }
}

/// One strict finding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StrictFinding<'t> {
    /// What it is.
    pub kind: StrictKind,
    /// Where it starts.
    pub pos: Pos,
    /// Its first code point.
    pub c: char,
    /// The text it covers, as written.
    pub text: &'t str,
    /// For a pattern: the pattern as the profile spells it (a generic token: `<|…|>`).
    pub pattern: Option<&'static str>,
}

/// Counts lines and columns up to increasing byte offsets.
struct Lines<'t> {
    text: &'t str,
    at: usize,
    line: u64,
    col: u64,
}

impl Lines<'_> {
    fn pos(&mut self, i: usize) -> Pos {
        let gap = self.text.get(self.at..i).unwrap_or_default();
        for c in gap.chars() {
            if c == '\n' {
                self.line = self.line.saturating_add(1);
                self.col = 0;
            } else {
                self.col = self.col.saturating_add(1);
            }
        }
        self.at = i.max(self.at);
        Pos {
            line: self.line,
            column: self.col.saturating_add(1),
            byte: i as u64,
        }
    }
}

/// Most patterns looked for: the literals, the markers, the fixed tokens, `<!--`.
const MAX_PATTERNS: usize = crate::forgery::MAX_LITERALS
    .saturating_add(ENVELOPE_MARKERS.len())
    .saturating_add(SPECIAL_TOKENS.len())
    .saturating_add(1);

/// A pattern: its bytes, its spelling in reports (empty: a literal, reported as
/// written), what it is.
#[derive(Clone, Copy)]
struct Pattern<'p> {
    bytes: &'p [u8],
    spelling: &'static str,
    kind: StrictKind,
}

/// The patterns looked for.
struct Patterns<'p> {
    list: [Pattern<'p>; MAX_PATTERNS],
    len: usize,
}

impl<'p> Patterns<'p> {
    fn new(literals: &'p LiteralSet<'_>) -> Patterns<'p> {
        let empty = Pattern {
            bytes: &[],
            spelling: "",
            kind: StrictKind::HiddenComment,
        };
        let mut p = Patterns {
            list: [empty; MAX_PATTERNS],
            len: 0,
        };
        let literals = literals
            .literals()
            .iter()
            .map(|l| (l.as_bytes(), "", StrictKind::ForgeryLiteral));
        let markers = ENVELOPE_MARKERS
            .iter()
            .map(|&m| (m.as_bytes(), m, StrictKind::EnvelopeMarker));
        let tokens = SPECIAL_TOKENS
            .iter()
            .map(|&t| (t.as_bytes(), t, StrictKind::SpecialToken));
        let comment = core::iter::once(("<!--".as_bytes(), "<!--", StrictKind::HiddenComment));
        for (bytes, spelling, kind) in literals.chain(markers).chain(tokens).chain(comment) {
            if let Some(slot) = p.list.get_mut(p.len)
                && !bytes.is_empty()
            {
                *slot = Pattern {
                    bytes,
                    spelling,
                    kind,
                };
                p.len = p.len.saturating_add(1);
            }
        }
        p
    }

    fn all(&self) -> &[Pattern<'p>] {
        self.list.get(..self.len).unwrap_or_default()
    }
}

/// The fold of `c` as matching sees it: controls (but TAB and LF) fold to nothing, as
/// sanitize removes them first; `None` is a barrier.
fn fold_bytes(c: char, one: &mut [u8; 1]) -> Option<&[u8]> {
    if is_control(c) && !matches!(c, '\t' | '\n') {
        return Some(&[]);
    }
    if c.is_ascii() {
        *one = [(c as u8).to_ascii_lowercase()];
        return Some(one.as_slice());
    }
    fold_of(c).map(str::as_bytes)
}

/// The raw end of a generic token `<|name|>` starting at `from` (whose fold starts
/// with `<|`): 1–[`NAME_MAX`] name code points, none folding to white space, `<`, `>`
/// or `|`, then `|>`.
fn generic_token_end(text: &str, from: usize) -> Option<usize> {
    let rest = text.get(from..).unwrap_or_default();
    // The fold of the raw text as (byte, raw end), skipping what folds to nothing;
    // a barrier is a name code point (`None`).
    let mut stage = 0u8; // 0: want '<', 1: want '|', 2: name, 3: want '>'
    let mut names = 0usize;
    for (k, c) in rest.char_indices() {
        let end = from.saturating_add(k).saturating_add(c.len_utf8());
        let fold = if is_control(c) && !matches!(c, '\t' | '\n') {
            Some("")
        } else {
            fold_of(c)
        };
        let Some(fold) = fold else {
            if stage != 2 || names >= NAME_MAX {
                return None;
            }
            names = names.saturating_add(1);
            continue;
        };
        if fold.is_empty() {
            // Members of D count as name code points.
            if stage == 2 && in_drop_set(c) {
                if names >= NAME_MAX {
                    return None;
                }
                names = names.saturating_add(1);
            }
            continue;
        }
        let mut counted = false;
        for b in fold.bytes() {
            match (stage, b) {
                (0, b'<') => stage = 1,
                (1, b'|') => stage = 2,
                (2, b'|') if names > 0 => stage = 3,
                (2, b) if b.is_ascii_whitespace() || b == b'<' || b == b'>' || b == b'|' => {
                    return None;
                }
                (2, _) => {
                    if !counted {
                        if names >= NAME_MAX {
                            return None;
                        }
                        names = names.saturating_add(1);
                        counted = true;
                    }
                }
                (3, b'>') => return Some(end),
                _ => return None,
            }
        }
    }
    None
}

/// The pattern matching at `from`, if any: its kind, spelling and raw end. Walks the
/// folded view only while some pattern still matches it.
fn pattern_at(
    text: &str,
    from: usize,
    patterns: &Patterns<'_>,
) -> Option<(StrictKind, &'static str, usize)> {
    let all = patterns.all();
    // Pattern `j` matches the folded bytes so far (one flag each: there are hundreds).
    let mut alive = [false; MAX_PATTERNS];
    for flag in alive.iter_mut().take(all.len()) {
        *flag = true;
    }
    let mut k = 0usize;
    let mut one = [0u8; 1];
    let rest = text.get(from..).unwrap_or_default();
    'walk: for (off, c) in rest.char_indices() {
        let end = from.saturating_add(off).saturating_add(c.len_utf8());
        let Some(fold) = fold_bytes(c, &mut one) else {
            break;
        };
        for &b in fold {
            let mut any = false;
            for (flag, p) in alive.iter_mut().zip(all) {
                if *flag && !p.bytes.get(k).is_some_and(|q| q.eq_ignore_ascii_case(&b)) {
                    *flag = false;
                }
                any |= *flag;
            }
            k = k.saturating_add(1);
            if !any {
                break 'walk;
            }
            // Prefix-free: a pattern complete here is the match.
            for (&flag, p) in alive.iter().zip(all) {
                if flag && p.bytes.len() == k {
                    return Some((p.kind, p.spelling, end));
                }
            }
        }
    }
    generic_token_end(text, from).map(|end| (StrictKind::SpecialToken, "<|…|>", end))
}

/// Where `run` (a run strict strip kept) starts in `text`, looked for from `cursor`.
fn run_start(text: &str, run: &str, cursor: usize) -> Option<usize> {
    let base = text.as_ptr() as usize;
    // A run borrowed from the text itself: its place, exactly.
    if let Some(off) = (run.as_ptr() as usize).checked_sub(base)
        && off >= cursor
        && off.checked_add(run.len()).is_some_and(|e| e <= text.len())
    {
        return Some(off);
    }
    // A run handed back from a stage's hold: the next place its bytes occur (strip
    // only removes, so they do).
    let rest = text.get(cursor..)?;
    rest.find(run).map(|k| cursor.saturating_add(k))
}

/// The state of one classification.
struct Walk<'t, 'p, F> {
    text: &'t str,
    lines: Lines<'t>,
    patterns: Patterns<'p>,
    /// The first bytes of the patterns' folds (lower case).
    firsts: [bool; 256],
    /// Patterns are not looked for before this byte (matches do not overlap).
    next: usize,
    count: u64,
    report: F,
}

impl<'t, E, F: FnMut(&StrictFinding<'t>) -> Result<(), E>> Walk<'t, '_, F> {
    fn emit(
        &mut self,
        kind: StrictKind,
        at: usize,
        end: usize,
        pattern: Option<&'static str>,
    ) -> Result<(), E> {
        let covered = self.text.get(at..end).unwrap_or_default();
        let Some(c) = covered.chars().next() else {
            return Ok(());
        };
        self.count = self.count.saturating_add(1);
        let pos = self.lines.pos(at);
        (self.report)(&StrictFinding {
            kind,
            pos,
            c,
            text: covered,
            pattern,
        })
    }

    /// What strip removed between two kept runs: members of D one by one, the rest
    /// (escape sequences) in stretches.
    fn gap(&mut self, from: usize, to: usize) -> Result<(), E> {
        let removed = self.text.get(from..to).unwrap_or_default();
        let mut escape: Option<usize> = None;
        for (k, c) in removed.char_indices() {
            let at = from.saturating_add(k);
            if in_drop_set(c) {
                if let Some(s) = escape.take() {
                    self.emit(StrictKind::EscapeSequence, s, at, None)?;
                }
                self.emit(
                    StrictKind::Dropped,
                    at,
                    at.saturating_add(c.len_utf8()),
                    None,
                )?;
            } else if escape.is_none() {
                escape = Some(at);
            }
        }
        match escape {
            Some(s) => self.emit(StrictKind::EscapeSequence, s, to, None),
            None => Ok(()),
        }
    }

    /// A run strip kept: its controls and the patterns starting in it.
    fn kept(&mut self, from: usize, to: usize) -> Result<(), E> {
        let run = self.text.get(from..to).unwrap_or_default();
        for (k, c) in run.char_indices() {
            let at = from.saturating_add(k);
            if is_control(c) && !matches!(c, '\t' | '\n' | '\r') {
                self.emit(
                    StrictKind::Control,
                    at,
                    at.saturating_add(c.len_utf8()),
                    None,
                )?;
                continue;
            }
            if at < self.next || !self.starts_pattern(c) {
                continue;
            }
            if let Some((kind, spelling, end)) = pattern_at(self.text, at, &self.patterns) {
                let spelling = (!spelling.is_empty()).then_some(spelling);
                self.emit(kind, at, end, spelling)?;
                self.next = end;
            }
        }
        Ok(())
    }

    /// Whether a pattern may start at `c`: its fold starts with a pattern's first byte.
    fn starts_pattern(&self, c: char) -> bool {
        let first = if c.is_ascii() {
            Some(c as u8)
        } else {
            fold_of(c).and_then(|f| f.bytes().next())
        };
        first.is_some_and(|b| {
            self.firsts
                .get(usize::from(b.to_ascii_lowercase()))
                .copied()
                .unwrap_or(false)
        })
    }
}

/// Hands each strict finding of `text` to `report`, in byte order; `literals` are the
/// forgery literals looked for. Returns how many were reported, or `report`'s error.
pub fn strict_findings<'t, E>(
    text: &'t str,
    literals: &LiteralSet<'_>,
    report: impl FnMut(&StrictFinding<'t>) -> Result<(), E>,
) -> Result<u64, E> {
    let patterns = Patterns::new(literals);
    let mut firsts = [false; 256];
    for p in patterns.all() {
        if let Some(&b) = p.bytes.first()
            && let Some(slot) = firsts.get_mut(usize::from(b.to_ascii_lowercase()))
        {
            *slot = true;
        }
    }
    let mut walk = Walk {
        text,
        lines: Lines {
            text,
            at: 0,
            line: 1,
            col: 0,
        },
        patterns,
        firsts,
        next: 0,
        count: 0,
        report,
    };
    let mut result = Ok(());
    // Bytes before `cursor` are classified.
    let mut cursor = 0usize;
    strip_each(text, |run| {
        if run.is_empty() || result.is_err() {
            return;
        }
        let Some(start) = run_start(text, run, cursor) else {
            return;
        };
        let end = start.saturating_add(run.len());
        result = walk.gap(cursor, start).and_then(|()| walk.kept(start, end));
        cursor = end;
    });
    result?;
    walk.gap(cursor, text.len())?;
    Ok(walk.count)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]
mod tests {
    extern crate std;
    use std::vec::Vec;

    use super::*;

    fn kinds(text: &str) -> Vec<(StrictKind, u64, u64, &str)> {
        let mut out = Vec::new();
        strict_findings(text, &LiteralSet::DEFAULT, |f| {
            out.push((f.kind, f.pos.line, f.pos.byte, f.text));
            Ok::<(), ()>(())
        })
        .unwrap();
        out
    }

    #[test]
    fn clean_text_and_kept_joiners_have_no_finding() {
        assert!(kinds("plain text\nwith lines\r\n").is_empty());
        // RGI family emoji and a Persian half-space: joiners that spell.
        assert!(kinds("\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}").is_empty());
        assert!(kinds("\u{645}\u{6CC}\u{200C}\u{62E}\u{648}\u{627}\u{647}\u{645}").is_empty());
    }

    #[test]
    fn dropped_members_escapes_and_controls() {
        let f = kinds("a\u{200E}b\x1b[2Jc\x07\nd\u{E0041}");
        assert_eq!(
            f,
            [
                (StrictKind::Dropped, 1, 1, "\u{200E}"),
                (StrictKind::EscapeSequence, 1, 5, "\x1b[2J"),
                (StrictKind::Control, 1, 10, "\x07"),
                (StrictKind::Dropped, 2, 13, "\u{E0041}"),
            ]
        );
    }

    #[test]
    fn folded_patterns() {
        let f = kinds("x <\u{200B}/applicable-rules> y");
        assert_eq!(
            f[0],
            (
                StrictKind::ForgeryLiteral,
                1,
                2,
                "<\u{200B}/applicable-rules>"
            )
        );
        assert_eq!(f[1].0, StrictKind::Dropped);
        // Fullwidth spelling of a special token, a generic token, a comment, a marker.
        let f = kinds("\u{FF3B}INST\u{FF3D} <|im_end|> <!-- x --> untrusted-content:end");
        let got: Vec<_> = f.iter().map(|f| (f.0, f.3)).collect();
        assert_eq!(
            got,
            [
                (StrictKind::SpecialToken, "\u{FF3B}INST\u{FF3D}"),
                (StrictKind::SpecialToken, "<|im_end|>"),
                (StrictKind::HiddenComment, "<!--"),
                (StrictKind::EnvelopeMarker, "untrusted-content:end"),
            ]
        );
        // Not tokens: an empty name, white space in the name.
        assert!(kinds("<||> <|a b|>").is_empty());
        // Every fixed token is looked for, not only the first few: the client's tags
        // (opening, with attributes, closing) and Mistral's brackets, far down the list;
        // the closing wrapper is the literal it also is.
        let f = kinds(
            "<system-reminder>x</SYSTEM-REMINDER> <user_claude_md a> [TOOL_CALLS] </applicable-rules>",
        );
        let got: Vec<_> = f.iter().map(|f| (f.0, f.3)).collect();
        assert_eq!(
            got,
            [
                (StrictKind::SpecialToken, "<system-reminder>"),
                (StrictKind::SpecialToken, "</SYSTEM-REMINDER>"),
                (StrictKind::SpecialToken, "<user_claude_md "),
                (StrictKind::SpecialToken, "[TOOL_CALLS]"),
                (StrictKind::ForgeryLiteral, "</applicable-rules>"),
            ]
        );
    }

    #[test]
    fn every_stripped_byte_is_reported() {
        // What strip removes is exactly what the stripped kinds cover.
        for text in [
            "a\u{200B}\u{200B}b\x1b]8;;http://x\x07link\x1b]8;;\x07",
            "\u{202E}evil\u{202C} \u{FE0F} \u{1F3F3}\u{FE0F}\u{200D}\u{1F308}",
            "\u{9B}31mred\x1b[0m\u{E0001}\u{E0068}\u{E007F}",
        ] {
            let mut removed = 0usize;
            strict_findings(text, &LiteralSet::DEFAULT, |f| {
                if matches!(f.kind, StrictKind::Dropped | StrictKind::EscapeSequence) {
                    removed += f.text.len();
                }
                Ok::<(), ()>(())
            })
            .unwrap();
            assert_eq!(
                text.len() - removed,
                crate::strict::stripped_len(text),
                "{text:?}"
            );
        }
    }

    /// Every strip vector: the stripped kinds cover exactly the bytes strict strip
    /// removes, and the kept bytes, in order, are strip's output.
    #[test]
    fn stripped_kinds_are_what_strip_removes_on_every_strip_vector() {
        let vectors = include_str!("../../../tests/conformance/strict-vectors.jsonl");
        let mut ran = 0;
        for line in vectors.lines() {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            if v["fn"] != "stripDangerousInvisibles" {
                continue;
            }
            let text = v["args"][0].as_str().unwrap();
            let mut kept = std::string::String::new();
            let mut at = 0usize;
            strict_findings(text, &LiteralSet::DEFAULT, |f| {
                if matches!(f.kind, StrictKind::Dropped | StrictKind::EscapeSequence) {
                    let start = f.pos.byte as usize;
                    assert!(start >= at, "{line}");
                    kept.push_str(&text[at..start]);
                    at = start + f.text.len();
                }
                Ok::<(), ()>(())
            })
            .unwrap();
            kept.push_str(&text[at..]);
            assert_eq!(kept, v["ok"].as_str().unwrap(), "{line}");
            ran += 1;
        }
        assert!(ran > 5000, "{ran}");
    }
}
