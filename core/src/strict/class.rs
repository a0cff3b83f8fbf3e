//! Lookups in the strict profile's generated tables (PROFILE-STRICT §1, §2, §4).

use super::tables::{
    DROP, EMOJI_EDGE_CP, EMOJI_EDGE_START, EMOJI_EDGE_TO, EMOJI_TERMINAL, FOLD, FOLD_TEXT, JOINING,
    TEXT_BASES, VIRAMA,
};
pub(crate) use super::tables::{EMOJI_MAX_LEN, JT_D, JT_L, JT_R, JT_T};
use crate::rules::{Member, Seq, Seqs, encode};
use crate::scan::DenseSets;

/// D's generated ranges (sorted, disjoint), for the dense blocks' patterns.
const DROP_RANGES: &[(u32, u32)] = &DROP;

/// The non-ASCII code points [`is_inert`] holds: C1 controls, Latin-1 punctuation
/// and symbols before U+00A9 (©, a text base); the dashes and quotes of General
/// Punctuation.
const INERT_RANGES: &[(u32, u32)] = &[(0x80, 0xA8), (0x2010, 0x2027)];

/// Most patterns a set may hold while it is built (the tags block is 64 before the
/// merge); checked at compile time by the compiler.
const MAX_PATTERNS: usize = 96;

/// The members of D as UTF-8 patterns (17), built by the one pattern compiler.
const DROP_PATTERNS: Seqs<MAX_PATTERNS> = Seqs::of(DROP_RANGES, Member::All, 4);

/// The non-ASCII inert code points as UTF-8 patterns (2).
const INERT_PATTERNS: Seqs<MAX_PATTERNS> = Seqs::of(INERT_RANGES, Member::All, 4);

/// The sets the strict dense blocks classify (step 2's `gather_dense`), passed down
/// to the scan's kernels as a type: D's members, whose first byte a block marks, and
/// the non-ASCII inert code points. Defined here, so the scan imports nothing of the
/// strict profile.
#[derive(Clone, Copy, Debug)]
pub(crate) struct StrictSets;

impl DenseSets for StrictSets {
    const DROPS: &'static [Seq] = DROP_PATTERNS.as_slice();
    const INERTS: &'static [Seq] = INERT_PATTERNS.as_slice();
}

/// Whether `cp` is in the drop set D (Default_Ignorable_Code_Point ∪ Bidi_Control).
#[inline]
pub fn in_drop_set(c: char) -> bool {
    in_drop_set_cp(u32::from(c))
}

/// [`in_drop_set`] of a scalar value.
#[inline]
pub(crate) fn in_drop_set_cp(cp: u32) -> bool {
    // D starts at U+00AD.
    if cp < 0xAD {
        return false;
    }
    // The General Punctuation block, where most members met in text are: D holds
    // exactly these of it (the census test checks against the table).
    if (0x2000..=0x206F).contains(&cp) {
        return matches!(cp, 0x200B..=0x200F | 0x202A..=0x202E | 0x2060..=0x206F);
    }
    // The selectors and the BOM (U+FE00–U+FEFF), and the tags block and what
    // follows it (D ends with U+E0000–U+E0FFF): the other members met in attacks.
    if (0xFE00..=0xFEFF).contains(&cp) {
        return matches!(cp, 0xFE00..=0xFE0F | 0xFEFF);
    }
    if cp >= 0xE0000 {
        return cp <= 0xE0FFF;
    }
    in_ranges(&DROP, cp)
}

fn in_ranges(table: &[(u32, u32)], cp: u32) -> bool {
    table
        .binary_search_by(|&(lo, hi)| {
            if hi < cp {
                core::cmp::Ordering::Less
            } else if lo > cp {
                core::cmp::Ordering::Greater
            } else {
                core::cmp::Ordering::Equal
            }
        })
        .is_ok()
}

/// The Joining_Type of `cp` (one of the `JT_*` codes), 0 for U (Non_Joining).
#[inline]
pub(crate) fn joining_type(cp: u32) -> u8 {
    // Nothing below U+00AD joins.
    if cp < 0xAD {
        return 0;
    }
    match JOINING.binary_search_by(|&(lo, hi, _)| {
        if hi < cp {
            core::cmp::Ordering::Less
        } else if lo > cp {
            core::cmp::Ordering::Greater
        } else {
            core::cmp::Ordering::Equal
        }
    }) {
        Ok(i) => JOINING.get(i).map_or(0, |&(_, _, t)| t),
        Err(_) => 0,
    }
}

/// Canonical_Combining_Class 9.
#[inline]
pub(crate) fn is_virama(cp: u32) -> bool {
    cp >= 0x094D && VIRAMA.binary_search(&cp).is_ok()
}

/// Whether `P U+FE0F` is Basic_Emoji for `P = cp`.
#[inline]
pub(crate) fn is_text_base(cp: u32) -> bool {
    TEXT_BASES.binary_search(&cp).is_ok()
}

/// The emoji trie's child of `node` on `cp`.
#[inline]
pub(crate) fn emoji_child(node: u16, cp: u32) -> Option<u16> {
    let n = usize::from(node);
    let lo = usize::from(*EMOJI_EDGE_START.get(n)?);
    let hi = usize::from(*EMOJI_EDGE_START.get(n.checked_add(1)?)?);
    let edges = EMOJI_EDGE_CP.get(lo..hi)?;
    let k = edges.binary_search(&cp).ok()?;
    EMOJI_EDGE_TO.get(lo.checked_add(k)?).copied()
}

/// Whether `node` ends an RGI sequence.
#[inline]
pub(crate) fn emoji_terminal(node: u16) -> bool {
    let n = usize::from(node);
    EMOJI_TERMINAL
        .get(n >> 6)
        .is_some_and(|w| w >> (n & 63) & 1 == 1)
}

/// D over the Basic Multilingual Plane as a bitmap: bit `cp & 63` of word `cp >> 6`.
// Const evaluation: indexes bounded by the loops (`cp < 0x10000`).
#[allow(clippy::indexing_slicing, clippy::arithmetic_side_effects)]
static BMP_DROP: [u64; 1024] = {
    let mut t = [0u64; 1024];
    let mut r = 0;
    while r < DROP.len() {
        let (lo, hi) = DROP[r];
        r += 1;
        let mut cp = lo;
        while cp <= hi && cp < 0x10000 {
            t[(cp >> 6) as usize] |= 1 << (cp & 63);
            cp += 1;
        }
    }
    t
};

/// [`in_drop_set_cp`] without branches on the BMP (the dense path's test).
#[inline(always)]
pub(crate) fn in_drop_set_fast(cp: u32) -> bool {
    if cp < 0x10000 {
        let word = BMP_DROP.get((cp >> 6) as usize).copied().unwrap_or(0);
        return word >> (cp & 63) & 1 == 1;
    }
    in_drop_set_cp(cp)
}

/// The most members of D some rule of §2 may keep.
const KEEPABLE_MAX: usize = 32;

/// Whether `cp` is in D, over the generated ranges (`const`).
#[allow(clippy::indexing_slicing, clippy::arithmetic_side_effects)]
const fn in_drop_ranges(cp: u32) -> bool {
    // Index and increment: `r < DROP.len()`.
    let mut r = 0;
    while r < DROP.len() {
        if DROP[r].0 <= cp && cp <= DROP[r].1 {
            return true;
        }
        r += 1;
    }
    false
}

/// The members of D that some rule of §2 may keep, sorted: ZWJ and ZWNJ (after a
/// virama; ZWNJ in a joining context), U+FE0E (after a text base), and every member
/// of D an RGI sequence holds (an edge of the emoji trie: ZWJ, U+FE0F, the tags of
/// the subdivision flags). Every other member of D is dropped whatever surrounds it
/// (`tests::keepable_is_exactly_what_the_rules_may_keep`).
// Const evaluation: indexes bounded by the loops and by `KEEPABLE_MAX` (checked).
#[allow(clippy::indexing_slicing, clippy::arithmetic_side_effects)]
const KEEPABLE_PARTS: ([u32; KEEPABLE_MAX], usize) = {
    let mut out = [0u32; KEEPABLE_MAX];
    let mut n = 0;
    let rules = [0x200C, 0x200D, 0xFE0E];
    let mut k = 0;
    while k < rules.len() {
        out[n] = rules[k];
        n += 1;
        k += 1;
    }
    let mut e = 0;
    while e < EMOJI_EDGE_CP.len() {
        let cp = EMOJI_EDGE_CP[e];
        e += 1;
        if !in_drop_ranges(cp) {
            continue;
        }
        // Insert into the sorted prefix unless there already.
        let mut i = 0;
        while i < n && out[i] < cp {
            i += 1;
        }
        if i < n && out[i] == cp {
            continue;
        }
        assert!(n < KEEPABLE_MAX, "strict: raise KEEPABLE_MAX");
        let mut j = n;
        while j > i {
            out[j] = out[j - 1];
            j -= 1;
        }
        out[i] = cp;
        n += 1;
    }
    // The three rule members were pushed unsorted: sort the whole prefix.
    let mut a = 0;
    while a < n {
        let mut b = a + 1;
        while b < n {
            if out[b] < out[a] {
                let t = out[a];
                out[a] = out[b];
                out[b] = t;
            }
            b += 1;
        }
        a += 1;
    }
    (out, n)
};

/// [`KEEPABLE_PARTS`] as a slice.
pub(crate) const KEEPABLE: &[u32] = KEEPABLE_PARTS.0.split_at(KEEPABLE_PARTS.1).0;

/// Pages of 128 code points holding the keepable members.
const KEEP_PAGES_MAX: usize = 4;

/// [`KEEPABLE`] as `(page, bitmap)` pairs: bit `cp & 127` of the bitmap of page
/// `cp >> 7`. Unused pairs have a page no code point has.
// Const evaluation: indexes bounded by the loops and `KEEP_PAGES_MAX` (checked);
// shifts below 128.
#[allow(clippy::indexing_slicing, clippy::arithmetic_side_effects)]
static KEEP_PAGES: [(u32, u128); KEEP_PAGES_MAX] = {
    let mut pages = [(u32::MAX, 0u128); KEEP_PAGES_MAX];
    let mut n = 0;
    let mut k = 0;
    while k < KEEPABLE.len() {
        let cp = KEEPABLE[k];
        k += 1;
        let page = cp >> 7;
        let mut i = 0;
        while i < n && pages[i].0 != page {
            i += 1;
        }
        if i == n {
            assert!(n < KEEP_PAGES_MAX, "strict: raise KEEP_PAGES_MAX");
            pages[n].0 = page;
            n += 1;
        }
        pages[i].1 |= 1u128 << (cp & 127);
    }
    pages
};

/// Whether `cp` is a member of D some rule of §2 may keep ([`KEEPABLE`]); every
/// other member of D is dropped on sight.
#[inline]
pub(crate) fn is_keepable(cp: u32) -> bool {
    let page = cp >> 7;
    let mut bits = 0u128;
    for &(p, b) in &KEEP_PAGES {
        if p == page {
            bits = b;
        }
    }
    bits >> (cp & 127) & 1 == 1
}

/// Whether a code point outside D ends every context a keepable member of D needs:
/// after it, no rule of §2 can keep the next code point, whatever came before. It
/// continues no RGI sequence (not an edge of the emoji trie), is no virama, no text
/// base, and of Joining_Type U (`tests::inert_code_points_end_every_context`).
/// Conservative: ASCII but the keycap bases, and a few ranges common in prose.
#[inline]
pub(crate) fn is_inert(cp: u32) -> bool {
    if cp < 0x80 {
        return !is_keycap_base(cp);
    }
    INERT_RANGES.iter().any(|&(lo, hi)| lo <= cp && cp <= hi)
}

/// The ASCII code points an RGI sequence may begin with (keycaps: `#`, `*`, digits).
#[inline(always)]
pub(crate) fn is_keycap_base(cp: u32) -> bool {
    const BASES: u128 = 1 << 0x23 | 1 << 0x2A | 0x3FF << 0x30;
    cp < 0x80 && BASES >> cp & 1 == 1
}

/// What a code point is on the folded view (§4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fold {
    /// Folds to these ASCII bytes (empty for a member of D).
    Chars(&'static [u8]),
    /// A barrier no literal crosses.
    Barrier,
}

/// Lower-case ASCII, one byte each, for the folds of ASCII code points.
// Const evaluation: the indexes are bounded by the loop; a slip fails the build.
#[allow(clippy::indexing_slicing, clippy::arithmetic_side_effects)]
static ASCII_LOWER: [u8; 128] = {
    let mut t = [0u8; 128];
    let mut i = 0;
    while i < 128 {
        t[i] = (i as u8).to_ascii_lowercase();
        i += 1;
    }
    t
};

/// The fold of `c` (§4).
#[inline]
pub(crate) fn fold(c: char) -> Fold {
    let cp = u32::from(c);
    if cp < 0x80 {
        let i = cp as usize;
        return Fold::Chars(ASCII_LOWER.get(i..=i).unwrap_or_default());
    }
    if in_drop_set(c) {
        return Fold::Chars(&[]);
    }
    match FOLD.binary_search_by_key(&cp, |&(k, _, _)| k) {
        Ok(i) => match FOLD.get(i) {
            Some(&(_, off, len)) => {
                let start = usize::from(off);
                let end = start.saturating_add(usize::from(len));
                Fold::Chars(FOLD_TEXT.as_bytes().get(start..end).unwrap_or_default())
            }
            None => Fold::Barrier,
        },
        Err(_) => Fold::Barrier,
    }
}

/// First bytes of the UTF-8 encodings of members of D.
// Const evaluation: the indexes are bounded by the loop; a slip fails the build.
#[allow(clippy::indexing_slicing, clippy::arithmetic_side_effects)]
pub(crate) static DROP_LEADS: [bool; 256] = {
    let mut t = [false; 256];
    let mut r = 0;
    while r < DROP.len() {
        let (lo, hi) = DROP[r];
        let mut cp = lo;
        while cp <= hi {
            t[encode(cp).0[0] as usize] = true;
            cp += 1;
        }
        r += 1;
    }
    t
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drop_set_is_the_pinned_census() {
        let mut n = 0;
        for c in '\0'..=char::MAX {
            if in_drop_set(c) {
                n += 1;
                let mut buf = [0u8; 4];
                let lead = c.encode_utf8(&mut buf).as_bytes()[0];
                assert!(DROP_LEADS[lead as usize], "{:X}", u32::from(c));
            }
        }
        assert_eq!(n, 4174);
        // The shortcut agrees with the table.
        for c in '\0'..=char::MAX {
            assert_eq!(
                in_drop_set(c),
                in_ranges(&DROP, u32::from(c)),
                "{:X}",
                u32::from(c)
            );
        }
        // Every member of the reference table is in D.
        for c in '\0'..=char::MAX {
            if crate::class::is_dangerous_invisible(c) {
                assert!(in_drop_set(c), "{:X}", u32::from(c));
            }
        }
        for c in [
            '\u{200E}',
            '\u{61C}',
            '\u{34F}',
            '\u{180F}',
            '\u{1D173}',
            '\u{E0FFF}',
        ] {
            assert!(in_drop_set(c));
        }
        for c in ['a', '\u{A0}', '\u{2028}', '\u{FFF9}', '\u{20E3}'] {
            assert!(!in_drop_set(c));
        }
    }

    /// Each set passed down to the dense blocks holds exactly its ranges: every code
    /// point in one pattern, if in the ranges, else in none.
    #[test]
    fn dense_sets_hold_their_ranges() {
        for (ranges, pats) in [
            (DROP_RANGES, StrictSets::DROPS),
            (INERT_RANGES, StrictSets::INERTS),
        ] {
            for c in '\u{80}'..=char::MAX {
                let mut buf = [0u8; 4];
                let e = c.encode_utf8(&mut buf).as_bytes();
                let hits = pats
                    .iter()
                    .filter(|s| {
                        s.len == e.len() && (0..s.len).all(|k| s.lo[k] <= e[k] && e[k] <= s.hi[k])
                    })
                    .count();
                let cp = u32::from(c);
                let want = ranges.iter().any(|&(lo, hi)| lo <= cp && cp <= hi);
                assert_eq!(hits, usize::from(want), "{cp:X}");
            }
        }
        assert_eq!(StrictSets::DROPS.len(), 17, "{:?}", StrictSets::DROPS);
        assert_eq!(StrictSets::INERTS.len(), 2, "{:?}", StrictSets::INERTS);
        // The sets are disjoint (a block's byte is a drop's lead or inert).
        for &(lo, hi) in INERT_RANGES {
            assert!((lo..=hi).all(|cp| !in_drop_set_cp(cp)), "{lo:X}..{hi:X}");
        }
    }

    #[test]
    fn folds() {
        assert_eq!(fold('A'), Fold::Chars(b"a"));
        assert_eq!(fold('\u{FF21}'), Fold::Chars(b"a"));
        assert_eq!(fold('\u{410}'), Fold::Chars(b"a"));
        assert_eq!(fold('\u{FF5C}'), Fold::Chars(b"|"));
        assert_eq!(fold('\u{A0}'), Fold::Chars(b" "));
        assert_eq!(fold('\u{200D}'), Fold::Chars(b""));
        assert_eq!(fold('é'), Fold::Barrier);
        assert_eq!(fold('\u{2581}'), Fold::Barrier);
    }

    #[test]
    fn joining_and_viramas() {
        assert_eq!(joining_type(0x628), JT_D); // BEH
        assert_eq!(joining_type(0x627), JT_R); // ALEF
        assert_eq!(joining_type(0x64E), JT_T); // FATHA
        assert_eq!(joining_type(u32::from('a')), 0);
        assert!(is_virama(0x94D));
        assert!(!is_virama(0x915));
        assert!(is_text_base(0x2764));
    }
}
