//! `airlock hook tool-output --reanchor`: a PreToolUse hook on Edit, MultiEdit, Write and
//! NotebookEdit that maps what the model wrote against the contained view of a file back
//! onto the file's real bytes (`cli/TOOL_OUTPUT.md`, "Edits through the contained view").
//!
//! The model read the file through the PostToolUse hook, so it saw `[html-comment]` for
//! `<!--`, `[redacted special token]` for `<|endoftext|>`, nothing for a zero-width
//! space. Its edits name that view. Here the view of the file as it is now is rebuilt
//! with a map of segments — runs that containment left alone, and runs it changed — and:
//!
//! * an `old_string` found in the view is replaced by the real span it stands for;
//! * text the edit keeps (its common head and tail with `new_string`) keeps the real
//!   bytes, hidden ones included;
//! * a placeholder in the replaced middle is restored to the hidden text it stood for
//!   there, when that is unambiguous;
//! * a Write keeps the real bytes of every line the model did not change;
//! * anything else — an edit that cuts through a placeholder, a placeholder that stands
//!   for different texts, or for none at that place — is denied with a reason the model
//!   can act on. A placeholder is never written, nor any byte the model could not see
//!   except those already at that place.

use std::borrow::Cow;
use std::ops::Range;

use airlock_core::MARKER_REDACTION;
use airlock_core::strict::{COMMENT_REDACTION, TOKEN_REDACTION};
use serde_json::{Map, Value};

use super::contain::{self, WRAPPER_REDACTION};
use super::diff::{self, Op};

/// What containment puts in place of hidden text: none of them may be written.
pub(crate) const PLACEHOLDERS: [&str; 4] = [
    COMMENT_REDACTION,
    TOKEN_REDACTION,
    MARKER_REDACTION,
    WRAPPER_REDACTION,
];

/// Largest contained view the map builds, in bytes (special tokens grow fivefold).
const VIEW_LIMIT: usize = 256 * 1024 * 1024;

/// How a diff level cuts a text into tokens.
type Split = fn(&str) -> Vec<Range<usize>>;

/// Longest replaced run (old and new bytes) diffed code point by code point.
const CHAR_DIFF_MAX: usize = 16 * 1024;

/// Why an edit is denied: the text the model reads.
pub(crate) type Deny = String;

/// One run of the file: real bytes and the view bytes containment made of them.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Seg {
    real: Range<usize>,
    view: Range<usize>,
    /// Containment left the run as it was (real and view bytes equal).
    same: bool,
}

/// Where a view position falls.
enum Loc {
    /// On a boundary or inside an unchanged run: the real positions it may stand for,
    /// before and after hidden runs that show as nothing there.
    At { earliest: usize, latest: usize },
    /// Strictly inside a changed run's view (a placeholder cut in two): the run.
    Inside(Seg),
}

/// The contained view of a text and the map from it back to the text.
pub(crate) struct View<'r> {
    real: &'r str,
    view: String,
    segs: Vec<Seg>,
}

/// `text` contained as the PostToolUse hook contains it, with no cap.
fn contained(text: &str) -> Result<Cow<'_, str>, Deny> {
    match contain::contain(text, None, VIEW_LIMIT) {
        Ok(None) => Ok(Cow::Borrowed(text)),
        Ok(Some(s)) => Ok(Cow::Owned(s)),
        Err(_) => Err("airlock could not rebuild the contained view of the file (it is too large for memory); edit it with smaller steps".into()),
    }
}

/// `text` cut after each run of ASCII whitespace: the candidate runs of a line.
fn words(text: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start = 0usize;
    let mut in_space = false;
    for (i, b) in text.bytes().enumerate() {
        let space = matches!(b, b' ' | b'\t' | b'\n');
        if in_space && !space {
            out.push(start..i);
            start = i;
        }
        in_space = space;
    }
    if start < text.len() {
        out.push(start..text.len());
    }
    out
}

/// Bytes of the longest common prefix of `a` and `b`, on a code point boundary.
fn common_prefix(a: &str, b: &str) -> usize {
    a.char_indices()
        .zip(b.chars())
        .find(|((_, x), y)| x != y)
        .map_or_else(|| a.len().min(b.len()), |((i, _), _)| i)
}

/// Bytes of the longest common suffix of `a` and `b`, on a code point boundary.
fn common_suffix(a: &str, b: &str) -> usize {
    let mut n = 0usize;
    for (x, y) in a.chars().rev().zip(b.chars().rev()) {
        if x != y {
            break;
        }
        n = n.saturating_add(x.len_utf8());
    }
    n
}

/// The byte lengths of up to `n` code points off the end of `text`: 0, then the last
/// code point's length, then the last two's, …
fn back_offs(text: &str, from_end: bool, n: usize) -> Vec<usize> {
    let mut out = vec![0usize];
    let mut acc = 0usize;
    let chars: Box<dyn Iterator<Item = char>> = if from_end {
        Box::new(text.chars().rev())
    } else {
        Box::new(text.chars())
    };
    for c in chars.take(n) {
        acc = acc.saturating_add(c.len_utf8());
        out.push(acc);
    }
    out
}

impl<'r> View<'r> {
    /// The view of `real` and its map.
    pub(crate) fn of(real: &'r str) -> Result<Self, Deny> {
        let whole = contained(real)?;
        let mut segs = Vec::new();
        if let Cow::Borrowed(_) = whole {
            if !real.is_empty() {
                segs.push(Seg {
                    real: 0..real.len(),
                    view: 0..real.len(),
                    same: true,
                });
            }
            return Ok(View {
                real,
                view: real.to_owned(),
                segs,
            });
        }
        let whole = whole.into_owned();
        // Line by line, when the lines contained one by one give the same view: then
        // every line boundary is one of the view too (a read of some lines shows the
        // same text for them as a read of the whole file).
        let mut view = String::new();
        let mut at = 0usize;
        for line in real.split_inclusive('\n') {
            let v = contained(line)?;
            refine(line, at, &v, view.len(), &mut segs)?;
            view.push_str(&v);
            at = at.saturating_add(line.len());
        }
        if view != whole {
            // A run crosses a line (an escape sequence holding a newline): one block.
            segs.clear();
            refine(real, 0, &whole, 0, &mut segs)?;
            view = whole;
        }
        Ok(View { real, view, segs })
    }

    /// The contained view.
    #[cfg(test)]
    pub(crate) fn text(&self) -> &str {
        &self.view
    }

    /// Whether containment changed nothing.
    fn is_identity(&self) -> bool {
        self.segs.iter().all(|s| s.same)
    }

    fn locate(&self, p: usize) -> Loc {
        let first = self.segs.partition_point(|s| s.view.end < p);
        let (mut earliest, mut latest) = (usize::MAX, 0usize);
        for s in self.segs.get(first..).unwrap_or_default() {
            if s.view.start > p {
                break;
            }
            if s.view.start < p && p < s.view.end {
                if s.same {
                    let r = s.real.start.saturating_add(p.saturating_sub(s.view.start));
                    return Loc::At {
                        earliest: r,
                        latest: r,
                    };
                }
                return Loc::Inside(s.clone());
            }
            if s.view.end == p {
                earliest = earliest.min(s.real.end);
                latest = latest.max(s.real.end);
            }
            if s.view.start == p {
                earliest = earliest.min(s.real.start);
                latest = latest.max(s.real.start);
            }
        }
        if earliest == usize::MAX {
            // No runs (an empty text) or past the end.
            let end = self.real.len();
            return Loc::At {
                earliest: end,
                latest: end,
            };
        }
        Loc::At { earliest, latest }
    }

    /// The changed runs whose view lies within `range` (ends on boundaries).
    fn changed_within(&self, range: &Range<usize>) -> impl Iterator<Item = &Seg> {
        self.segs
            .iter()
            .filter(move |s| !s.same && s.view.start >= range.start && s.view.end <= range.end)
    }

    /// The real bytes for the view's `a..b` replaced by `new`, within the real bounds
    /// `ra..rb`: the tokens the two have in common (a word diff) keep their real bytes,
    /// and each replaced run is [`Self::splice`]d.
    fn splice_diff(
        &self,
        a: usize,
        b: usize,
        ra: usize,
        rb: usize,
        new: &str,
    ) -> Result<String, Deny> {
        // A pure insertion or deletion: one place, slid to keep hidden runs outside it.
        let old = self.view.get(a..b).unwrap_or_default();
        let pre = common_prefix(old, new);
        let suf = common_suffix(
            old.get(pre..).unwrap_or_default(),
            new.get(pre..).unwrap_or_default(),
        );
        if pre.saturating_add(suf) >= old.len().min(new.len()) {
            return self.splice(a, b, ra, rb, new);
        }
        // Code points align best (the longest common text keeps its real bytes); a
        // long run is cut into words first, to keep the search's cost down.
        let long = b.saturating_sub(a).saturating_add(new.len()) > CHAR_DIFF_MAX;
        let levels: &[Split] = if long {
            &[diff::tokens, diff::chars]
        } else {
            &[diff::chars]
        };
        self.splice_by(a, b, ra, rb, new, levels)
    }

    /// [`Self::splice_diff`] with the diff's levels: each replaced run of one level is
    /// diffed again by the next, and the last level's runs are [`Self::splice`]d.
    fn splice_by(
        &self,
        a: usize,
        b: usize,
        ra: usize,
        rb: usize,
        new: &str,
        levels: &[Split],
    ) -> Result<String, Deny> {
        let Some((split, finer)) = levels.split_first() else {
            return self.splice(a, b, ra, rb, new);
        };
        let old = self.view.get(a..b).unwrap_or_default();
        let mut ops = diff::diff_by(old, new, *split);
        merge_cut_runs(self, &mut ops, a);
        let earliest = |p: usize| match self.locate(p) {
            Loc::At { earliest, .. } => earliest.clamp(ra, rb),
            Loc::Inside(s) => s.real.start.clamp(ra, rb),
        };
        let mut out = String::new();
        let last = ops.len().saturating_sub(1);
        for (n, op) in ops.iter().enumerate() {
            let (o, w) = match op {
                Op::Equal { old, new } | Op::Replace { old, new } => (old, new),
            };
            let (va, vb) = (a.saturating_add(o.start), a.saturating_add(o.end));
            let r0 = if n == 0 { ra } else { earliest(va) };
            let r1 = if n == last { rb } else { earliest(vb).max(r0) };
            match op {
                Op::Equal { .. } => out.push_str(self.real.get(r0..r1).unwrap_or_default()),
                Op::Replace { .. } => {
                    let text = new.get(w.clone()).unwrap_or_default();
                    out.push_str(&self.splice_by(va, vb, r0, r1, text, finer)?);
                }
            }
        }
        if ops.is_empty() {
            out.push_str(self.real.get(ra..rb).unwrap_or_default());
        }
        Ok(out)
    }

    /// The real bytes for the view's `a..b` replaced by `new`, within the real bounds
    /// `ra..rb` the caller chose for `a` and `b`: the head and tail the edit keeps keep
    /// their real bytes, and the middle has its placeholders restored.
    fn splice(&self, a: usize, b: usize, ra: usize, rb: usize, new: &str) -> Result<String, Deny> {
        let old = self.view.get(a..b).unwrap_or_default();
        let pre = common_prefix(old, new);
        let suf = common_suffix(
            old.get(pre..).unwrap_or_default(),
            new.get(pre..).unwrap_or_default(),
        );
        // The middle's ends move out to whole runs: a placeholder is kept or replaced
        // whole.
        let (pre, suf) = self.slide(old, new, a, pre, suf);
        let mut m1 = a.saturating_add(pre);
        if let Loc::Inside(s) = self.locate(m1) {
            m1 = s.view.start.max(a);
        }
        let mut m2 = b.saturating_sub(suf).max(m1);
        if let Loc::Inside(s) = self.locate(m2) {
            m2 = s.view.end.min(b);
        }
        let new_mid = new
            .get(m1.saturating_sub(a)..new.len().saturating_sub(b.saturating_sub(m2)))
            .unwrap_or_default();
        let rm1 = match self.locate(m1) {
            Loc::At { latest, .. } => latest.clamp(ra, rb),
            Loc::Inside(_) => ra,
        };
        let rm2 = match self.locate(m2) {
            Loc::At { earliest, .. } => earliest.clamp(rm1, rb),
            Loc::Inside(_) => rb,
        };
        let restored = self.restore(&(m1..m2), new_mid)?;
        let mut out = String::new();
        out.push_str(self.real.get(ra..rm1).unwrap_or_default());
        out.push_str(&restored);
        out.push_str(self.real.get(rm2..rb).unwrap_or_default());
        Ok(out)
    }

    /// A pure insertion or deletion among repeated code points can sit at several
    /// places (`w2zw` → `w` deletes `w2z` or `2zw`): the place that leaves the most
    /// hidden runs outside it, so that they stay where they were.
    fn slide(&self, old: &str, new: &str, a: usize, pre: usize, suf: usize) -> (usize, usize) {
        let (short, long) = if old.len() < new.len() {
            (old, new)
        } else {
            (new, old)
        };
        let gap = long.len().saturating_sub(short.len());
        if short.len() != pre.saturating_add(suf) || !std::ptr::eq(long, old) || gap == 0 {
            return (pre, suf);
        }
        // A deletion of old's pre..pre+gap: it may move left while the code point
        // before it equals its last one.
        let hidden_inside = |p: usize| {
            let (m1, m2) = (a.saturating_add(p), a.saturating_add(p).saturating_add(gap));
            self.segs
                .iter()
                .filter(|s| {
                    !s.same
                        && s.view.start >= m1
                        && s.view.end <= m2
                        && !(s.view.is_empty() && (s.view.start == m1 || s.view.start == m2))
                })
                .count()
        };
        let mut best = (hidden_inside(pre), pre);
        let mut p = pre;
        while p > 0 {
            let (Some(before), Some(last)) = (
                old.get(..p).and_then(|t| t.chars().next_back()),
                old.get(..p.saturating_add(gap))
                    .and_then(|t| t.chars().next_back()),
            ) else {
                break;
            };
            if before != last {
                break;
            }
            p = p.saturating_sub(before.len_utf8());
            let h = hidden_inside(p);
            if h < best.0 {
                best = (h, p);
            }
        }
        let p = best.1;
        (p, old.len().saturating_sub(p).saturating_sub(gap))
    }

    /// `new` (what replaces the view's `range`) with each placeholder restored to the
    /// hidden text it stood for in that range; denied where that is ambiguous, or where
    /// a placeholder would be written as text it does not already stand for there.
    fn restore(&self, range: &Range<usize>, new: &str) -> Result<String, Deny> {
        let old_view = self.view.get(range.clone()).unwrap_or_default();
        // Each hidden run's view text and the real texts it stands for in the range.
        let mut keys: Vec<(&str, Vec<&str>)> = Vec::new();
        for s in self.changed_within(range) {
            let v = self.view.get(s.view.clone()).unwrap_or_default();
            if v.is_empty() {
                continue;
            }
            let r = self.real.get(s.real.clone()).unwrap_or_default();
            match keys.iter_mut().find(|(k, _)| *k == v) {
                Some((_, reals)) => reals.push(r),
                None => keys.push((v, vec![r])),
            }
        }
        keys.sort_by_key(|(k, _)| std::cmp::Reverse(k.len()));
        let mut out = String::new();
        let mut literal = String::new();
        let mut literals: Vec<String> = Vec::new();
        let mut i = 0usize;
        while let Some(rest) = new.get(i..) {
            let Some(c) = rest.chars().next() else {
                break;
            };
            if let Some((k, reals)) = keys.iter().find(|(k, _)| rest.starts_with(k)) {
                let first = reals.first().copied().unwrap_or_default();
                if reals.iter().any(|r| *r != first) {
                    return Err(format!(
                        "your text holds {k}, which airlock shows in place of hidden text; in the part you replace it stands for {} different hidden texts, so airlock cannot tell which you mean. Make old_string and new_string start after and end before the placeholders (edit the text around them), or edit one of them at a time",
                        reals.len()
                    ));
                }
                // A literal copy of the same text in the replaced range would be
                // indistinguishable from the hidden one.
                if old_view.matches(k).count() != reals.len() {
                    return Err(format!(
                        "your text holds {k}; in the part you replace it is both hidden text and literal text, so airlock cannot tell which you mean. Edit the text around it instead"
                    ));
                }
                out.push_str(first);
                literals.push(std::mem::take(&mut literal));
                i = i.saturating_add(k.len());
                continue;
            }
            out.push(c);
            literal.push(c);
            i = i.saturating_add(c.len_utf8());
        }
        literals.push(literal);
        for p in PLACEHOLDERS {
            let written: usize = literals.iter().map(|l| l.matches(p).count()).sum();
            // Literal copies only: those in runs containment left alone.
            let already: usize = self
                .segs
                .iter()
                .filter(|s| s.same && s.view.start < range.end && s.view.end > range.start)
                .filter_map(|s| {
                    self.view
                        .get(s.view.start.max(range.start)..s.view.end.min(range.end))
                })
                .map(|t| t.matches(p).count())
                .sum();
            if written > already {
                return Err(placeholder_denial(p));
            }
        }
        Ok(out)
    }
}

/// The denial for a placeholder that would be written as text.
fn placeholder_denial(p: &str) -> Deny {
    let hint = match p {
        COMMENT_REDACTION => {
            " To write an HTML comment opener, type its four characters (less-than sign, exclamation mark, two hyphens) yourself."
        }
        _ => "",
    };
    format!(
        "your text holds {p}, a placeholder airlock shows in place of hidden text, and at that place it stands for no hidden text: it would be written to the file as it is. Keep it inside text you copy unchanged from old_string, or leave it out.{hint}"
    )
}

/// Every known placeholder in `text` that `allowed` does not hold as often: the denial.
fn check_placeholders(text: &str, allowed: &str) -> Result<(), Deny> {
    for p in PLACEHOLDERS {
        if text.matches(p).count() > allowed.matches(p).count() {
            return Err(placeholder_denial(p));
        }
    }
    Ok(())
}

/// Refines `real` (at `real_at`), contained as `view` (at `view_at`), into runs.
fn refine(
    real: &str,
    real_at: usize,
    view: &str,
    view_at: usize,
    out: &mut Vec<Seg>,
) -> Result<(), Deny> {
    if real == view {
        push_seg(
            out,
            real_at..real_at.saturating_add(real.len()),
            view_at..view_at.saturating_add(view.len()),
            true,
        );
        return Ok(());
    }
    let parts = words(real);
    if parts.len() > 1 {
        let mut views = Vec::with_capacity(parts.len());
        let mut joined = String::new();
        for p in &parts {
            let v = contained(real.get(p.clone()).unwrap_or_default())?;
            joined.push_str(&v);
            views.push(v);
        }
        if joined == view {
            let mut v_at = view_at;
            for (p, v) in parts.iter().zip(&views) {
                split_ends(
                    real.get(p.clone()).unwrap_or_default(),
                    real_at.saturating_add(p.start),
                    v,
                    v_at,
                    out,
                )?;
                v_at = v_at.saturating_add(v.len());
            }
            return Ok(());
        }
    }
    split_ends(real, real_at, view, view_at, out)
}

/// One changed run between the longest head and tail that containment leaves alone on
/// their own and whose middle contains to the view's middle.
fn split_ends(
    real: &str,
    real_at: usize,
    view: &str,
    view_at: usize,
    out: &mut Vec<Seg>,
) -> Result<(), Deny> {
    if real == view {
        push_seg(
            out,
            real_at..real_at.saturating_add(real.len()),
            view_at..view_at.saturating_add(view.len()),
            true,
        );
        return Ok(());
    }
    let cp = common_prefix(real, view);
    let cs = common_suffix(
        real.get(cp..).unwrap_or_default(),
        view.get(cp..).unwrap_or_default(),
    );
    // A common head may have run into a placeholder (`[INST]` → `[redacted…`): back
    // off a few code points until the three pieces contain on their own as the view.
    let head = real.get(..cp).unwrap_or_default();
    let tail = real
        .get(real.len().saturating_sub(cs)..)
        .unwrap_or_default();
    let mut found = (0usize, 0usize);
    'search: for p in back_offs(head, true, 4)
        .into_iter()
        .map(|d| cp.saturating_sub(d))
    {
        for s in back_offs(tail, false, 4)
            .into_iter()
            .map(|d| cs.saturating_sub(d))
        {
            let (Some(h), Some(m), Some(t), Some(vm)) = (
                real.get(..p),
                real.get(p..real.len().saturating_sub(s)),
                real.get(real.len().saturating_sub(s)..),
                view.get(p..view.len().saturating_sub(s)),
            ) else {
                continue;
            };
            if contained(h)? == h && contained(t)? == t && contained(m)? == vm {
                found = (p, s);
                break 'search;
            }
        }
    }
    let (p, s) = found;
    let rm = real.len().saturating_sub(s);
    let vm = view.len().saturating_sub(s);
    push_seg(
        out,
        real_at..real_at.saturating_add(p),
        view_at..view_at.saturating_add(p),
        true,
    );
    align_middle(
        real.get(p..rm).unwrap_or_default(),
        real_at.saturating_add(p),
        view.get(p..vm).unwrap_or_default(),
        view_at.saturating_add(p),
        out,
    )?;
    push_seg(
        out,
        real_at.saturating_add(rm)..real_at.saturating_add(real.len()),
        view_at.saturating_add(vm)..view_at.saturating_add(view.len()),
        true,
    );
    Ok(())
}

/// A changed run (`real` contains to `view`) cut finer where a code-point alignment of
/// the two gives pieces that each contain to their own view: an escape sequence and the
/// text it colours become a hidden run and a kept one. Pieces that do not are merged
/// with their neighbours until every piece does (at worst, the one run).
fn align_middle(
    real: &str,
    real_at: usize,
    view: &str,
    view_at: usize,
    out: &mut Vec<Seg>,
) -> Result<(), Deny> {
    // Pieces: (real range, view range), relative.
    let mut pieces: Vec<(Range<usize>, Range<usize>)> = diff::diff_by(real, view, diff::chars)
        .into_iter()
        .map(|op| match op {
            Op::Equal { old, new } | Op::Replace { old, new } => (old, new),
        })
        .collect();
    let valid = |r: &Range<usize>, v: &Range<usize>| -> Result<bool, Deny> {
        let (Some(rt), Some(vt)) = (real.get(r.clone()), view.get(v.clone())) else {
            return Ok(false);
        };
        Ok(contained(rt)? == vt)
    };
    let mut i = 0usize;
    while i < pieces.len() {
        let Some((r, v)) = pieces.get(i).cloned() else {
            break;
        };
        if valid(&r, &v)? {
            i = i.saturating_add(1);
            continue;
        }
        // Merge with the previous piece when that makes a valid one (`[` + `INST]`),
        // else with the next (or the previous, at the end), and look again.
        let with_prev = match i.checked_sub(1).and_then(|p| pieces.get(p)) {
            Some((pr, pv)) => valid(&(pr.start..r.end), &(pv.start..v.end))?,
            None => false,
        };
        let j = if with_prev {
            i.saturating_sub(1)
        } else if i.saturating_add(1) < pieces.len() {
            i
        } else if i > 0 {
            i.saturating_sub(1)
        } else {
            break;
        };
        let (Some((r1, v1)), Some((r2, v2))) = (
            pieces.get(j).cloned(),
            pieces.get(j.saturating_add(1)).cloned(),
        ) else {
            break;
        };
        if let Some(slot) = pieces.get_mut(j) {
            *slot = (r1.start..r2.end, v1.start..v2.end);
        }
        pieces.remove(j.saturating_add(1));
        i = j;
    }
    for (r, v) in pieces {
        let same = real.get(r.clone()) == view.get(v.clone());
        push_seg(
            out,
            real_at.saturating_add(r.start)..real_at.saturating_add(r.end),
            view_at.saturating_add(v.start)..view_at.saturating_add(v.end),
            same,
        );
    }
    Ok(())
}

fn push_seg(out: &mut Vec<Seg>, real: Range<usize>, view: Range<usize>, same: bool) {
    if real.is_empty() && view.is_empty() {
        return;
    }
    if let Some(last) = out.last_mut().filter(|l| same && l.same) {
        last.real.end = real.end;
        last.view.end = view.end;
        return;
    }
    out.push(Seg { real, view, same });
}

/// An edit the client will apply to the real text: `old_string` → `new_string`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct RealEdit {
    pub(crate) old: String,
    pub(crate) new: String,
}

/// Re-anchors one Edit (`old` → `new`, all places when `all`) made against the view of
/// `real`: `Ok(None)` when the edit already says what it means on the real text.
pub(crate) fn edit(real: &str, old: &str, new: &str, all: bool) -> Result<Option<RealEdit>, Deny> {
    if old.is_empty() {
        // Creating a file: nothing to anchor on, and nothing hidden to restore.
        check_placeholders(new, "")?;
        return Ok(None);
    }
    let view = View::of(real)?;
    let hits: Vec<usize> = view.view.match_indices(old).map(|(i, _)| i).collect();
    if hits.is_empty() {
        // Not in the view: either real text the model knows (it wrote it itself), or
        // not there at all, which the client reports.
        check_placeholders(new, old)?;
        return Ok(None);
    }
    if hits.len() > 1 && !all {
        return Err(format!(
            "old_string matches {} places in the file as airlock showed it to you; add surrounding text to make it unique, or set replace_all",
            hits.len()
        ));
    }
    let mut mapped: Vec<(Range<usize>, String)> = Vec::with_capacity(hits.len());
    for &a in &hits {
        let b = a.saturating_add(old.len());
        let ra = match view.locate(a) {
            Loc::At { latest, .. } => latest,
            Loc::Inside(s) => return Err(cut_denial(&view, &s, "begins")),
        };
        let rb = match view.locate(b) {
            Loc::At { earliest, .. } => earliest.max(ra),
            Loc::Inside(s) => return Err(cut_denial(&view, &s, "ends")),
        };
        let rep = view.splice_diff(a, b, ra, rb, new)?;
        mapped.push((ra..rb, rep));
    }
    if !all {
        let Some((range, rep)) = mapped.pop() else {
            return Ok(None);
        };
        let (old_real, new_real) = unique(real, range, rep);
        if old_real == old && new_real == new {
            return Ok(None);
        }
        return Ok(Some(RealEdit {
            old: old_real,
            new: new_real,
        }));
    }
    // replace_all: one real text and one replacement for every place, and nowhere else.
    let Some((first_range, first_rep)) = mapped.first().cloned() else {
        return Ok(None);
    };
    let old_real = real.get(first_range).unwrap_or_default();
    let same = mapped
        .iter()
        .all(|(r, rep)| real.get(r.clone()) == Some(old_real) && *rep == first_rep);
    let real_hits: Vec<usize> = real.match_indices(old_real).map(|(i, _)| i).collect();
    let starts: Vec<usize> = mapped.iter().map(|(r, _)| r.start).collect();
    if !same || real_hits != starts {
        return Err("replace_all: the places old_string matches stand for different text in the file (hidden text airlock does not show you differs between them, or the same text appears where you cannot see it); edit them one at a time".into());
    }
    if old_real == old && first_rep == new {
        return Ok(None);
    }
    Ok(Some(RealEdit {
        old: old_real.to_owned(),
        new: first_rep,
    }))
}

fn cut_denial(view: &View<'_>, s: &Seg, which: &str) -> Deny {
    let shown = view.view.get(s.view.clone()).unwrap_or_default();
    format!(
        "old_string {which} inside {shown}, which airlock shows in place of hidden text in this file; make old_string start and end outside it, or include it whole"
    )
}

/// `range` of `real` grown by whole lines on both sides until its text occurs once in
/// `real`, and `rep` grown by the same bytes: the client requires a unique match.
fn unique(real: &str, mut range: Range<usize>, rep: String) -> (String, String) {
    let mut rep = rep;
    loop {
        let text = real.get(range.clone()).unwrap_or_default();
        if text.is_empty()
            || real.matches(text).nth(1).is_none()
            || (range.start == 0 && range.end == real.len())
        {
            return (text.to_owned(), rep);
        }
        let before = real
            .get(..range.start.saturating_sub(1))
            .unwrap_or_default();
        let start = if range.start == 0 {
            0
        } else {
            before.rfind('\n').map_or(0, |i| i.saturating_add(1))
        };
        let after = real.get(range.end.saturating_add(1)..).unwrap_or_default();
        let end = if range.end >= real.len() {
            real.len()
        } else {
            after.find('\n').map_or(real.len(), |i| {
                range
                    .end
                    .saturating_add(1)
                    .saturating_add(i)
                    .saturating_add(1)
            })
        };
        let mut grown = String::new();
        grown.push_str(real.get(start..range.start).unwrap_or_default());
        grown.push_str(&rep);
        grown.push_str(real.get(range.end..end).unwrap_or_default());
        rep = grown;
        range = start..end;
    }
}

/// Re-anchors a Write of `content` over the file whose real text is `real` (`None`: no
/// file): `Ok(None)` when the content is written as it is.
pub(crate) fn write(real: Option<&str>, content: &str) -> Result<Option<String>, Deny> {
    let Some(real) = real else {
        check_placeholders(content, "")?;
        return Ok(None);
    };
    let view = View::of(real)?;
    if view.is_identity() {
        check_placeholders(content, real)?;
        return Ok(None);
    }
    let mut ops = diff::diff_lines(&view.view, content);
    merge_cut_runs(&view, &mut ops, 0);
    let mut out = String::new();
    let earliest = |p: usize| match view.locate(p) {
        Loc::At { earliest, .. } => earliest,
        Loc::Inside(s) => s.real.start,
    };
    for op in &ops {
        match op {
            Op::Equal { old, .. } => {
                out.push_str(
                    real.get(earliest(old.start)..earliest(old.end))
                        .unwrap_or_default(),
                );
            }
            Op::Replace { old, new } => {
                let (ra, rb) = (
                    earliest(old.start),
                    earliest(old.end).max(earliest(old.start)),
                );
                let new_text = content.get(new.clone()).unwrap_or_default();
                out.push_str(&view.splice_diff(old.start, old.end, ra, rb, new_text)?);
            }
        }
    }
    // What follows the last run: hidden text at the very end.
    if let Some(end) = ops.last().map(|op| match op {
        Op::Equal { old, .. } | Op::Replace { old, .. } => old.end,
    }) {
        out.push_str(real.get(earliest(end)..).unwrap_or_default());
    } else {
        out.push_str(real);
    }
    Ok((out != content).then_some(out))
}

/// Merges the runs around every boundary that falls strictly inside a changed run (a
/// block of several lines): such a run is replaced or kept whole.
fn merge_cut_runs(view: &View<'_>, ops: &mut Vec<Op>, base: usize) {
    let mut i = 1usize;
    while i < ops.len() {
        let cut = ops.get(i).map(|op| match op {
            Op::Equal { old, .. } | Op::Replace { old, .. } => old.start.saturating_add(base),
        });
        let inside = cut.is_some_and(|p| matches!(view.locate(p), Loc::Inside(_)));
        if !inside {
            i = i.saturating_add(1);
            continue;
        }
        let (Some(a), Some(b)) = (ops.get(i.saturating_sub(1)).cloned(), ops.get(i).cloned())
        else {
            break;
        };
        let range = |op: &Op| match op {
            Op::Equal { old, new } | Op::Replace { old, new } => (old.clone(), new.clone()),
        };
        let ((ao, an), (bo, bn)) = (range(&a), range(&b));
        let merged = Op::Replace {
            old: ao.start..bo.end,
            new: an.start..bn.end,
        };
        if let Some(slot) = ops.get_mut(i.saturating_sub(1)) {
            *slot = merged;
        }
        ops.remove(i);
        // Two replaced runs side by side are one; the loop looks at the new boundary.
    }
}

/// The hook's answer to one PreToolUse call.
#[derive(Debug, PartialEq)]
pub(crate) enum Answer {
    /// The call stands as it is: print nothing.
    Unchanged,
    /// The tool input re-anchored.
    Rewrite(Value),
    /// The call is denied, with the reason the model reads.
    Deny(Deny),
}

/// What a file is, as the hook reads it.
pub(crate) enum FileText {
    /// No file at the path.
    Missing,
    /// Its bytes are UTF-8.
    Text(String),
    /// It is not UTF-8: the view the model got is not this hook's to rebuild.
    Binary,
}

/// The client compares `old_string` with the file's text after turning CRLF into LF
/// (measured on 2.1.87 and 2.1.332: an LF `old_string` edits a CRLF file, which keeps
/// its CRLF), and Read shows that text.
fn as_client_reads(text: &str) -> Cow<'_, str> {
    if text.contains("\r\n") {
        Cow::Owned(text.replace("\r\n", "\n"))
    } else {
        Cow::Borrowed(text)
    }
}

/// The answer for `tool` with `input`, given the file it names (read by the caller).
pub(crate) fn decide(tool: &str, input: &Map<String, Value>, file: &FileText) -> Answer {
    let text = |k: &str| input.get(k).and_then(Value::as_str);
    let result = match tool {
        "Edit" => {
            let (Some(old), Some(new)) = (text("old_string"), text("new_string")) else {
                return Answer::Deny("Edit needs old_string and new_string strings".into());
            };
            let all = input.get("replace_all").and_then(Value::as_bool) == Some(true);
            match file {
                FileText::Text(real) => edit(&as_client_reads(real), old, new, all).map(|e| {
                    e.map(|e| {
                        let mut out = input.clone();
                        out.insert("old_string".into(), Value::String(e.old));
                        out.insert("new_string".into(), Value::String(e.new));
                        Value::Object(out)
                    })
                }),
                FileText::Missing | FileText::Binary => check_placeholders(new, old).map(|()| None),
            }
        }
        "MultiEdit" => multi_edit(input, file),
        "Write" => {
            let Some(content) = text("content") else {
                return Answer::Deny("Write needs a content string".into());
            };
            let real = match file {
                FileText::Text(real) => Some(real.as_str()),
                FileText::Missing => None,
                FileText::Binary => {
                    return match check_placeholders(content, "") {
                        Ok(()) => Answer::Unchanged,
                        Err(why) => Answer::Deny(why),
                    };
                }
            };
            write(real, content).map(|w| {
                w.map(|w| {
                    let mut out = input.clone();
                    out.insert("content".into(), Value::String(w));
                    Value::Object(out)
                })
            })
        }
        "NotebookEdit" => notebook_edit(input, file),
        _ => Ok(None),
    };
    match result {
        Ok(None) => Answer::Unchanged,
        Ok(Some(v)) => Answer::Rewrite(v),
        Err(why) => Answer::Deny(why),
    }
}

/// MultiEdit: each edit re-anchored on the text the ones before it leave.
fn multi_edit(input: &Map<String, Value>, file: &FileText) -> Result<Option<Value>, Deny> {
    let Some(Value::Array(edits)) = input.get("edits") else {
        return Err("MultiEdit needs an edits list".into());
    };
    let mut current: Option<String> = match file {
        FileText::Text(real) => Some(as_client_reads(real).into_owned()),
        FileText::Missing | FileText::Binary => None,
    };
    let mut changed = false;
    let mut out_edits = Vec::with_capacity(edits.len());
    for (n, e) in edits.iter().enumerate() {
        let Value::Object(e) = e else {
            return Err(format!("MultiEdit: edit {n} is not an object"));
        };
        let (Some(old), Some(new)) = (
            e.get("old_string").and_then(Value::as_str),
            e.get("new_string").and_then(Value::as_str),
        ) else {
            return Err(format!(
                "MultiEdit: edit {n} needs old_string and new_string strings"
            ));
        };
        let all = e.get("replace_all").and_then(Value::as_bool) == Some(true);
        let real_edit = match current.as_deref() {
            Some(real) => {
                edit(real, old, new, all).map_err(|why| format!("MultiEdit: edit {n}: {why}"))?
            }
            None => {
                check_placeholders(new, old)?;
                None
            }
        };
        let (o, w) = match &real_edit {
            Some(r) => (r.old.as_str(), r.new.as_str()),
            None => (old, new),
        };
        if let Some(real) = current.as_mut() {
            *real = if old.is_empty() {
                w.to_owned()
            } else if all {
                real.replace(o, w)
            } else {
                real.replacen(o, w, 1)
            };
        }
        let mut e = e.clone();
        if let Some(r) = real_edit {
            changed = true;
            e.insert("old_string".into(), Value::String(r.old));
            e.insert("new_string".into(), Value::String(r.new));
        }
        out_edits.push(Value::Object(e));
    }
    if !changed {
        return Ok(None);
    }
    let mut out = input.clone();
    out.insert("edits".into(), Value::Array(out_edits));
    Ok(Some(Value::Object(out)))
}

/// NotebookEdit: a replaced cell's source re-anchored as a Write of that cell.
fn notebook_edit(input: &Map<String, Value>, file: &FileText) -> Result<Option<Value>, Deny> {
    let Some(source) = input.get("new_source").and_then(Value::as_str) else {
        return Err("NotebookEdit needs a new_source string".into());
    };
    let mode = input
        .get("edit_mode")
        .and_then(Value::as_str)
        .unwrap_or("replace");
    let cell_id = input.get("cell_id").and_then(Value::as_str);
    let current = match (file, mode, cell_id) {
        (FileText::Text(nb), "replace", Some(id)) => cell_source(nb, id),
        _ => None,
    };
    match write(current.as_deref(), source)? {
        None => Ok(None),
        Some(w) => {
            let mut out = input.clone();
            out.insert("new_source".into(), Value::String(w));
            Ok(Some(Value::Object(out)))
        }
    }
}

/// The source of the cell `id` (its `id`, or `cell-N` for the N-th) of notebook `nb`.
fn cell_source(nb: &str, id: &str) -> Option<String> {
    let nb: Value = serde_json::from_str(nb).ok()?;
    let cells = nb.get("cells")?.as_array()?;
    let cell = cells
        .iter()
        .find(|c| c.get("id").and_then(Value::as_str) == Some(id))
        .or_else(|| {
            let n: usize = id.strip_prefix("cell-")?.parse().ok()?;
            cells.get(n)
        })?;
    let text = match cell.get("source")? {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts.iter().filter_map(Value::as_str).collect(),
        _ => return None,
    };
    Some(text)
}

#[cfg(test)]
#[path = "reanchor_tests.rs"]
mod tests;
