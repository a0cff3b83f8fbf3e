//! Dense drop regions without SIMD: the same blocks as the x86 dropper (a code
//! point at a time over a 64-byte block, no scanner restart per dropped code point),
//! for every target and for x86 CPUs without AVX2 and BMI2. Safe code but for
//! `copy_str`'s one line (built where the x86 copies are not).
//!
//! Each code point of the block is classified without branches: a 256-entry table
//! of its lead byte gives its length and a row; the row's 64-bit word for the
//! second byte is a bitmap over the third byte (rows of 2-byte leads hold all ones
//! or nothing, the row of ASCII controls prose drops all ones). Its bytes are
//! written to a small buffer whatever the verdict, and the write position advances
//! only over kept ones.

use super::{ByteSet, Finder};

/// A code point's length (low 3 bits) and row (the rest) by lead byte, and the rows.
struct Tables {
    class: [u8; 256],
    /// `ROWS` rows of 64 words.
    rows: [u64; ROWS * 64],
}

const ROWS: usize = 8;
/// Rows: never dropped, always dropped (ASCII controls of prose), then one per lead
/// byte that can begin a dropped code point.
const ROW_NEVER: u8 = 0;
const ROW_ALWAYS: u8 = 1;
const ROW_C2: u8 = 2;
const ROW_F3: u8 = 7;
/// Leads of 3-byte code points with rows 3 to 6: those of the rules' patterns.
const LEADS3: [u8; 4] = leads_of_len(3);

/// The first four distinct lead bytes (in order) of the prose rule's `len`-byte
/// patterns; a rule needing more rows, or two- and four-byte leads other than the
/// rows below, fails to compile here rather than drop the wrong code points.
#[allow(clippy::indexing_slicing, clippy::arithmetic_side_effects)]
const fn leads_of_len(len: usize) -> [u8; 4] {
    let seqs = crate::rules::PROSE_SEQS.as_slice();
    let mut out = [0u8; 4];
    let mut n = 0;
    let mut i = 0;
    while i < seqs.len() {
        let s = seqs[i];
        i += 1;
        assert!(
            s.lo[0] == s.hi[0] || s.enc_len == 1,
            "portable: a range of lead bytes"
        );
        match s.enc_len {
            2 => assert!(s.lo[0] == 0xC2, "portable: a two-byte lead other than C2"),
            4 => assert!(
                s.lo[0] == 0xF3 && s.lo[1] == 0xA0 && s.hi[1] == 0xA0,
                "portable: a four-byte pattern outside F3 A0"
            ),
            _ => {}
        }
        if s.enc_len != len || (n > 0 && out[n - 1] == s.lo[0]) {
            continue;
        }
        assert!(n < 4, "portable: more than four three-byte leads");
        out[n] = s.lo[0];
        n += 1;
    }
    assert!(n == 4, "portable: fewer than four three-byte leads");
    out
}

/// Copies `text` to the start of `dst` and returns the copy as text (`None` when
/// `dst` is shorter). A byte-for-byte copy of a `str` is UTF-8, so it is not
/// validated again.
#[cfg(not(all(target_arch = "x86_64", not(feature = "portable-only"))))]
pub(super) fn copy_str<'o>(dst: &'o mut [u8], text: &str) -> Option<&'o str> {
    let dst = dst.get_mut(..text.len())?;
    dst.copy_from_slice(text.as_bytes());
    let copied: &'o [u8] = dst;
    // SAFETY: `copied` holds exactly the bytes of `text` (copied just above into a
    // buffer of its length), and `text` is a `str`, so they are valid UTF-8.
    Some(unsafe { core::str::from_utf8_unchecked(copied) })
}

/// Whether `rule` drops `c` (U+FE0F counted as dropped: the caller decides it).
const fn drops(c: char, prose: bool) -> bool {
    use crate::rules::{DropSet, EMOJI_SELECTOR};
    let set = if prose {
        DropSet::Prose
    } else {
        DropSet::Strip
    };
    set.drops(c as u32) || c as u32 == EMOJI_SELECTOR
}

/// The tables of one rule, at compile time.
#[allow(clippy::indexing_slicing, clippy::arithmetic_side_effects)]
const fn tables(prose: bool) -> Tables {
    // Indexes: bytes (< 256), rows (< ROWS), continuation payloads (< 64).
    let mut t = Tables {
        class: [0; 256],
        rows: [0; ROWS * 64],
    };
    let mut k = 0;
    while k < 64 {
        t.rows[ROW_ALWAYS as usize * 64 + k] = u64::MAX;
        k += 1;
    }
    let mut b = 0usize;
    while b < 256 {
        let len: u8 = if b < 0x80 {
            1
        } else if b < 0xE0 {
            2
        } else if b < 0xF0 {
            3
        } else {
            4
        };
        let mut row = ROW_NEVER;
        if b < 0x80 {
            if let Some(c) = char::from_u32(b as u32)
                && drops(c, prose)
            {
                row = ROW_ALWAYS;
            }
        } else if b == 0xC2 {
            row = ROW_C2;
        } else if b == 0xF3 {
            row = ROW_F3;
        } else {
            let mut k = 0;
            while k < LEADS3.len() {
                if LEADS3[k] as usize == b {
                    row = 3 + k as u8;
                }
                k += 1;
            }
        }
        t.class[b] = len | row << 3;
        b += 1;
    }
    // U+0080 to U+00BF.
    let mut s = 0u32;
    while s < 64 {
        if let Some(c) = char::from_u32(0x80 | s)
            && drops(c, prose)
        {
            t.rows[ROW_C2 as usize * 64 + s as usize] = u64::MAX;
        }
        s += 1;
    }
    let mut k = 0;
    while k < LEADS3.len() {
        let top = (LEADS3[k] & 0x0F) as u32;
        let mut s = 0u32;
        while s < 64 {
            let mut u = 0u32;
            while u < 64 {
                if let Some(c) = char::from_u32(top << 12 | s << 6 | u)
                    && drops(c, prose)
                {
                    t.rows[(3 + k) * 64 + s as usize] |= 1 << u;
                }
                u += 1;
            }
            s += 1;
        }
        k += 1;
    }
    // F3 A0 xx yy is U+E0000 + xx << 6 + yy: a third byte whose whole 64 code points
    // are dropped, or U+E01C0-U+E01EF (third byte 0x87, fourth up to 0xAF), which
    // the block loop decides from the fourth byte. Only planes 14 and up have F3.
    let mut u = 0u32;
    while u < 64 {
        let base = 0xE0000 | u << 6;
        let (first, last) = (char::from_u32(base), char::from_u32(base | 0x2F));
        if let (Some(first), Some(last)) = (first, last)
            && drops(first, prose)
            && drops(last, prose)
        {
            t.rows[ROW_F3 as usize * 64 + 0x20] |= 1 << u;
        }
        u += 1;
    }
    t
}

static STRIP: Tables = tables(false);
static PROSE: Tables = tables(true);

/// The plan of the block `w[1..65]` (`w`: the byte before, the block, four after;
/// at least 69 bytes): bytes consumed, keep mask, kept bytes in `marks` (in text
/// positions), and when `out` is given the kept bytes packed there and the marks in
/// output positions. `None`, writing nothing, as the x86 dropper.
#[inline(always)]
#[allow(clippy::indexing_slicing, clippy::arithmetic_side_effects)]
fn run(
    w: &[u8],
    prose: bool,
    marks: Option<&Finder>,
    out: Option<&mut [u8]>,
) -> Option<(usize, u64, u64, usize, u64)> {
    // Indexing below is into fixed arrays with indexes in range; positions are
    // below 69 and lengths at most 4, so no sum or shift overflows.
    // Read in place: a copy to the stack would be read back by loads spanning its
    // stores, which the CPU cannot forward (a stall per code point).
    let blk: &[u8; 69] = w.get(..69)?.try_into().ok()?;
    let t = if prose { &PROSE } else { &STRIP };
    // Code-point starts: bytes that are not 0x80..=0xBF.
    let mut starts = 0u64;
    for k in 0..8usize {
        let mut b = [0u8; 8];
        b.copy_from_slice(&blk[(1 + 8 * k)..(9 + 8 * k)]);
        let x = u64::from_le_bytes(b);
        let cont = x & !(x << 1) & 0x8080_8080_8080_8080;
        let flags = (!cont & 0x8080_8080_8080_8080) >> 7;
        starts |= (flags.wrapping_mul(0x0102_0408_1020_4080) >> 56) << (8 * k);
    }
    // The block ends before a code point crossing its end (as the x86 dropper).
    let consumed = if (0x80..0xC0).contains(&blk[65]) {
        if starts == 0 {
            return None;
        }
        let last = 63 - starts.leading_zeros() as usize;
        starts &= !(u64::MAX << last);
        last
    } else {
        64
    };
    let slow_marks = marks.is_some_and(|f| f.set.0[2] != 0);
    let mark_set = marks.map_or(ByteSet::EMPTY, |f| f.set);
    let mut buf = [0u8; 128];
    let (keep, mut marked, n, mut marked_out, decline) = match (out.is_some(), marks.is_some()) {
        (true, false) => code_points::<true, false>(blk, starts, t, &mut buf, &mark_set),
        (true, true) => code_points::<true, true>(blk, starts, t, &mut buf, &mark_set),
        (false, false) => code_points::<false, false>(blk, starts, t, &mut buf, &mark_set),
        (false, true) => code_points::<false, true>(blk, starts, t, &mut buf, &mark_set),
    };
    if decline {
        return None;
    }
    if slow_marks {
        for j in 0..consumed.min(64) {
            if keep >> j & 1 != 0 && mark_set.contains(blk[(j & 63) + 1]) {
                marked |= 1 << j;
            }
        }
        marked_out = pext(marked, keep);
    }
    if let Some(out) = out {
        out.get_mut(..n)?.copy_from_slice(&buf[..n & 127]);
    }
    Some((consumed, keep, marked, n, marked_out))
}

/// The loop over the code points starting at `starts` (bit `i`: block byte `i`,
/// `blk[i + 1]`): the keep mask, the kept bytes in `marks` (text positions; with
/// `MARKS`), the kept length, the marks in output positions, and whether a U+FE0F
/// follows a non-ASCII code point. With `PACK` the kept bytes go to `buf`.
#[inline(always)]
#[allow(clippy::indexing_slicing, clippy::arithmetic_side_effects)]
fn code_points<const PACK: bool, const MARKS: bool>(
    blk: &[u8; 69],
    starts: u64,
    t: &Tables,
    buf: &mut [u8; 128],
    marks: &ByteSet,
) -> (u64, u64, usize, u64, bool) {
    // Indexes are masked to the arrays' lengths; `i < 64`, `n < 64` before a kept
    // code point, lengths at most 4: no sum or shift overflows.
    let (mut keep, mut marked, mut n, mut marked_out) = (0u64, 0u64, 0usize, 0u64);
    let mut decline = 0u64;
    let mut rest = starts;
    while rest != 0 {
        let i = rest.trailing_zeros() as usize;
        rest &= rest.wrapping_sub(1);
        let mut four = [0u8; 4];
        four.copy_from_slice(&blk[(i & 63) + 1..(i & 63) + 5]);
        let x = u32::from_le_bytes(four);
        let class = t.class[(x & 0xFF) as usize];
        let len = (class & 7) as usize;
        // Row * 64 + the second byte's payload; bit: the third byte's payload.
        let word = t.rows[(((class & 0x38) as usize) << 3 | (x >> 8 & 63) as usize) & 511];
        let low = x & 0xFF_FFFF;
        // No branches on the bytes (they are as unpredictable as the text): `&`
        // and `|` of flags. F3 A0 87: only a fourth byte up to 0xAF is a selector.
        // Integer flags: LLVM turns a `bool` `&&` here into a branch.
        let partial = u64::from(low == 0x87_A0F3) & u64::from(x >> 24 > 0xAF);
        let dropped = (word >> (x >> 16 & 63)) & 1 & !partial;
        // U+FE0F after a non-ASCII code point: the exact path decides.
        decline |= u64::from(low == 0x8F_B8EF) & u64::from(blk[i & 63] >= 0x80);
        // All ones when kept.
        let kept_all = dropped.wrapping_sub(1);
        if !PACK || MARKS {
            keep |= (((1u64 << len) - 1) & kept_all) << i;
        }
        if MARKS {
            let m = kept_all & u64::from(marks.contains(x as u8));
            marked |= m << i;
            marked_out |= m << (n & 63);
        }
        if PACK {
            buf[n & 63..(n & 63) + 4].copy_from_slice(&four);
        }
        n += len & kept_all as usize;
    }
    (keep, marked, n, marked_out, decline != 0)
}

/// The bits of `x` where `m` has ones, packed to the bottom (rare path only).
fn pext(x: u64, m: u64) -> u64 {
    let (mut r, mut k, mut rest) = (0u64, 0u32, m);
    while rest != 0 {
        let bit = rest & rest.wrapping_neg();
        if x & bit != 0 {
            r |= 1u64.checked_shl(k).unwrap_or(0);
        }
        k = k.wrapping_add(1);
        rest &= rest.wrapping_sub(1);
    }
    r
}

/// The x86 `drop_block` contract, without SIMD.
#[inline]
pub(super) fn drop_block(
    w: &[u8],
    prose: bool,
    marks: Option<&Finder>,
    out: &mut [u8],
) -> Option<(usize, usize, u64)> {
    let (consumed, _, _, n, marked_out) = run(w, prose, marks, Some(out))?;
    Some((consumed, n, marked_out))
}

/// The x86 `plan_block` contract, without SIMD.
#[inline]
pub(super) fn plan_block(
    w: &[u8],
    prose: bool,
    marks: Option<&Finder>,
) -> Option<(usize, u64, u64)> {
    let (consumed, keep, marked, _, _) = run(w, prose, marks, None)?;
    Some((consumed, keep, marked))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every code point, after ASCII and after a non-ASCII one, under both rules.
    #[test]
    fn every_code_point_is_classified_exactly() {
        for prose in [false, true] {
            // Every code point of planes 0, 1 and 14, a sample of the others.
            for c in ('\0'..=char::MAX).filter(|&c| {
                let cp = u32::from(c);
                cp < 0x20000 || (0xE0000..0xF0000).contains(&cp) || cp % 61 == 0
            }) {
                let mut w = [b'a'; 69];
                let mut enc = [0u8; 4];
                let e = c.encode_utf8(&mut enc).as_bytes();
                w[1..1 + e.len()].copy_from_slice(e);
                let mut out = [0u8; 64];
                let (consumed, kept, _) = drop_block(&w, prose, None, &mut out).unwrap();
                assert_eq!(consumed, 64);
                let dropped = crate::class::is_stripped(c, Some('a'))
                    || (prose && crate::class::is_control(c) && c != '\t' && c != '\n');
                let expect = 64 - if dropped { e.len() } else { 0 };
                assert_eq!(kept, expect, "{:X} prose {prose}", u32::from(c));
                if !dropped {
                    assert_eq!(&out[..e.len()], e);
                }
                // After a non-ASCII code point (the last byte of `é`) U+FE0F is
                // declined.
                let mut v = [b'a'; 69];
                v[0] = 0xA9;
                v[1..1 + e.len()].copy_from_slice(e);
                let r = drop_block(&v, prose, None, &mut out);
                assert_eq!(r.is_none(), c == '\u{FE0F}', "{:X}", u32::from(c));
            }
        }
    }
}
