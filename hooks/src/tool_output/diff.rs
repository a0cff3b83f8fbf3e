//! A line diff (Myers' O(ND) greedy algorithm) for the re-anchor's Write: which lines of
//! the contained view the model kept, and which it replaced. Bounded: past [`MAX_EDITS`]
//! the middle is one replaced run, which is still exact, only coarser.

use std::ops::Range;

/// Most line edits the diff searches; beyond, the run between the common head and tail
/// is one replacement. Memory is quadratic in this bound (~8 MB at 1,000).
const MAX_EDITS: usize = 1000;

/// One run of the diff, as byte ranges of the old and the new text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Op {
    /// The same lines on both sides.
    Equal {
        old: Range<usize>,
        new: Range<usize>,
    },
    /// Old lines replaced by new ones (either side may be empty).
    Replace {
        old: Range<usize>,
        new: Range<usize>,
    },
}

/// The byte range of each line of `text`, the `\n` included.
pub(crate) fn lines(text: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start = 0usize;
    for (i, b) in text.bytes().enumerate() {
        if b == b'\n' {
            let end = i.saturating_add(1);
            out.push(start..end);
            start = end;
        }
    }
    if start < text.len() {
        out.push(start..text.len());
    }
    out
}

/// The byte range of each run of `text` that is all whitespace or all not: the tokens
/// of the diff inside a replaced run of lines.
pub(crate) fn tokens(text: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start = 0usize;
    let mut kind: Option<bool> = None;
    for (i, c) in text.char_indices() {
        let space = c.is_whitespace();
        // A newline is a token of its own, so lines stay apart.
        if kind.is_some_and(|k| k != space || c == '\n') {
            out.push(start..i);
            start = i;
        }
        kind = Some(space);
    }
    if start < text.len() {
        out.push(start..text.len());
    }
    out
}

/// Each code point of `text`: the tokens of the alignment of a changed run with its view.
pub(crate) fn chars(text: &str) -> Vec<Range<usize>> {
    text.char_indices()
        .map(|(i, c)| i..i.saturating_add(c.len_utf8()))
        .collect()
}

/// The diff of `old` against `new`, line by line, as alternating runs covering both.
pub(crate) fn diff_lines(old: &str, new: &str) -> Vec<Op> {
    diff_by(old, new, lines)
}

/// The diff of `old` against `new` over the tokens `split` cuts them into.
pub(crate) fn diff_by(old: &str, new: &str, split: fn(&str) -> Vec<Range<usize>>) -> Vec<Op> {
    let a = split(old);
    let b = split(new);
    let la = |i: usize| a.get(i).and_then(|r| old.get(r.clone()));
    let lb = |j: usize| b.get(j).and_then(|r| new.get(r.clone()));
    // Pairs of equal line indices, in order.
    let mut pairs: Vec<(usize, usize)> = Vec::new();
    let mut head = 0usize;
    while head < a.len() && head < b.len() && la(head) == lb(head) {
        pairs.push((head, head));
        head = head.saturating_add(1);
    }
    let mut tail = 0usize;
    while tail < a.len().saturating_sub(head)
        && tail < b.len().saturating_sub(head)
        && la(a.len().saturating_sub(tail).saturating_sub(1))
            == lb(b.len().saturating_sub(tail).saturating_sub(1))
    {
        tail = tail.saturating_add(1);
    }
    let (a_end, b_end) = (a.len().saturating_sub(tail), b.len().saturating_sub(tail));
    pairs.extend(myers(head, a_end, head, b_end, &la, &lb));
    for t in (0..tail).rev() {
        pairs.push((
            a.len().saturating_sub(t).saturating_sub(1),
            b.len().saturating_sub(t).saturating_sub(1),
        ));
    }
    // Runs from the pairs: equal lines between replaced ones.
    let start_a = |i: usize| a.get(i).map_or(old.len(), |r| r.start);
    let start_b = |j: usize| b.get(j).map_or(new.len(), |r| r.start);
    let mut ops: Vec<Op> = Vec::new();
    let (mut i, mut j) = (0usize, 0usize);
    let mut push = |op: Op| {
        let merged = match (ops.last_mut(), &op) {
            (Some(Op::Equal { old: o, new: n }), Op::Equal { old: o2, new: n2 })
            | (Some(Op::Replace { old: o, new: n }), Op::Replace { old: o2, new: n2 }) => {
                o.end = o2.end;
                n.end = n2.end;
                true
            }
            _ => false,
        };
        if !merged {
            ops.push(op);
        }
    };
    for (pi, pj) in pairs {
        if pi > i || pj > j {
            push(Op::Replace {
                old: start_a(i)..start_a(pi),
                new: start_b(j)..start_b(pj),
            });
        }
        push(Op::Equal {
            old: start_a(pi)..start_a(pi.saturating_add(1)),
            new: start_b(pj)..start_b(pj.saturating_add(1)),
        });
        i = pi.saturating_add(1);
        j = pj.saturating_add(1);
    }
    if i < a.len() || j < b.len() {
        push(Op::Replace {
            old: start_a(i)..old.len(),
            new: start_b(j)..new.len(),
        });
    }
    ops
}

/// The equal pairs of lines `a0..a1` against `b0..b1`, by Myers' greedy search; none
/// (one replacement) when more than [`MAX_EDITS`] edits would be needed.
fn myers<'t>(
    a0: usize,
    a1: usize,
    b0: usize,
    b1: usize,
    la: &impl Fn(usize) -> Option<&'t str>,
    lb: &impl Fn(usize) -> Option<&'t str>,
) -> Vec<(usize, usize)> {
    let n = a1.saturating_sub(a0);
    let m = b1.saturating_sub(b0);
    if n == 0 || m == 0 {
        return Vec::new();
    }
    let max = n.saturating_add(m).min(MAX_EDITS);
    // Diagonal k = x - y is stored at k + offset.
    let offset = max.saturating_add(1);
    let width = offset.saturating_mul(2).saturating_add(1);
    let mut v: Vec<usize> = vec![0; width];
    let mut trace: Vec<Vec<usize>> = Vec::new();
    let at = |v: &[usize], k: isize| -> usize {
        usize::try_from(k.saturating_add_unsigned(offset))
            .ok()
            .and_then(|i| v.get(i).copied())
            .unwrap_or(0)
    };
    let set = |v: &mut [usize], k: isize, x: usize| {
        if let Some(slot) = usize::try_from(k.saturating_add_unsigned(offset))
            .ok()
            .and_then(|i| v.get_mut(i))
        {
            *slot = x;
        }
    };
    let Ok(max_i) = isize::try_from(max) else {
        return Vec::new();
    };
    for d in 0..=max_i {
        trace.push(v.clone());
        let mut k = d.saturating_neg();
        while k <= d {
            let down = k == d.saturating_neg()
                || (k != d && at(&v, k.saturating_sub(1)) < at(&v, k.saturating_add(1)));
            let mut x = if down {
                at(&v, k.saturating_add(1))
            } else {
                at(&v, k.saturating_sub(1)).saturating_add(1)
            };
            let mut y = usize::try_from(isize::try_from(x).unwrap_or(isize::MAX).saturating_sub(k))
                .unwrap_or(0);
            while x < n && y < m && la(a0.saturating_add(x)) == lb(b0.saturating_add(y)) {
                x = x.saturating_add(1);
                y = y.saturating_add(1);
            }
            set(&mut v, k, x);
            if x >= n && y >= m {
                return backtrack(&trace, d, k, n, m, a0, b0, offset);
            }
            k = k.saturating_add(2);
        }
    }
    Vec::new()
}

/// The snakes of the path ending on diagonal `k` at step `d`, as equal line pairs.
#[allow(clippy::too_many_arguments)]
fn backtrack(
    trace: &[Vec<usize>],
    d: isize,
    k: isize,
    n: usize,
    m: usize,
    a0: usize,
    b0: usize,
    offset: usize,
) -> Vec<(usize, usize)> {
    let at = |v: &[usize], k: isize| -> usize {
        usize::try_from(k.saturating_add_unsigned(offset))
            .ok()
            .and_then(|i| v.get(i).copied())
            .unwrap_or(0)
    };
    let mut pairs = Vec::new();
    let (mut x, mut y) = (n, m);
    let mut k = k;
    let mut d = d;
    while d >= 0 {
        let Some(v) = usize::try_from(d).ok().and_then(|i| trace.get(i)) else {
            break;
        };
        let down = k == d.saturating_neg()
            || (k != d && at(v, k.saturating_sub(1)) < at(v, k.saturating_add(1)));
        let prev_k = if down {
            k.saturating_add(1)
        } else {
            k.saturating_sub(1)
        };
        let prev_x = if d == 0 { 0 } else { at(v, prev_k) };
        let prev_y = if d == 0 {
            0
        } else {
            usize::try_from(
                isize::try_from(prev_x)
                    .unwrap_or(isize::MAX)
                    .saturating_sub(prev_k),
            )
            .unwrap_or(0)
        };
        // The snake: from the end of the previous step's move to (x, y).
        let (sx, sy) = if d == 0 {
            (0, 0)
        } else if down {
            (prev_x, prev_y.saturating_add(1))
        } else {
            (prev_x.saturating_add(1), prev_y)
        };
        while x > sx && y > sy {
            x = x.saturating_sub(1);
            y = y.saturating_sub(1);
            pairs.push((a0.saturating_add(x), b0.saturating_add(y)));
        }
        x = prev_x;
        y = prev_y;
        k = prev_k;
        d = d.saturating_sub(1);
    }
    pairs.reverse();
    pairs
}

#[cfg(test)]
#[allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects
)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Rebuilds `new` from the ops and `old`: every Equal run must be the same text.
    fn check(old: &str, new: &str) {
        let ops = diff_lines(old, new);
        let (mut ao, mut an) = (0, 0);
        for op in &ops {
            match op {
                Op::Equal { old: o, new: n } => {
                    assert_eq!(&old[o.clone()], &new[n.clone()]);
                    assert_eq!((o.start, n.start), (ao, an));
                    (ao, an) = (o.end, n.end);
                }
                Op::Replace { old: o, new: n } => {
                    assert_eq!((o.start, n.start), (ao, an));
                    (ao, an) = (o.end, n.end);
                }
            }
        }
        assert_eq!((ao, an), (old.len(), new.len()));
    }

    #[test]
    fn small_diffs() {
        check("a\nb\nc\n", "a\nB\nc\n");
        check("", "x\n");
        check("x\n", "");
        check("a\nb\n", "b\na\n");
        let ops = diff_lines("a\nb\nc\n", "a\nX\nc\n");
        assert_eq!(ops.len(), 3);
        assert!(matches!(&ops[1], Op::Replace { old, new } if *old == (2..4) && *new == (2..4)));
    }

    proptest! {
        #[test]
        fn ops_tile_both_texts(a in proptest::collection::vec("[abc]{0,2}\n?", 0..30),
                               b in proptest::collection::vec("[abc]{0,2}\n?", 0..30)) {
            check(&a.concat(), &b.concat());
        }
    }
}
