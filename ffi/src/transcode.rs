//! UTF-16LE ↔ UTF-8 and UTF-8 → Latin-1, for runtimes whose strings are UTF-16 (Node):
//! their strings cross the ABI as code units, which the runtime copies at memcpy
//! speed, instead of as UTF-8, which it transcodes one character at a time.
//!
//! JavaScript strings may hold lone surrogates, which have no UTF-8 form. The
//! reference (sanitize.mjs) walks UTF-16: a lone surrogate is a code point of its own
//! that no rule matches (not a control, not an invisible, not pictographic, in no
//! literal), three bytes wide when counted as UTF-8 (U+FFFD, as `Buffer.byteLength`
//! counts it), and it stays in the result. U+FFFD has exactly those properties, so
//! a lone surrogate travels through core as U+FFFD ([`to_utf8`]) and comes back as
//! itself ([`Restorer`]): core never drops, inserts or reorders a U+FFFD, so the
//! k-th U+FFFD of core's output is the k-th U+FFFD-or-lone-surrogate of its input.
//! The one thing the reference does that U+FFFD cannot mimic is pairing: removing
//! what lies between a lone high and a lone low surrogate joins them into one code
//! point (`"\ud83d\u200b\ude00"` → `"😀"`). [`Kept`] walks the units as the
//! reference's steps 1–2 (strip, then controls but TAB and LF) see them and pairs
//! halves across what those steps drop; its output, already stripped, is what core
//! sanitizes (both steps are idempotent).

use airlock_core::class::{is_control, is_stripped};
#[cfg(target_arch = "x86_64")]
use airlock_core::class::{is_dangerous_invisible, is_variation_selector};

#[cfg(target_arch = "x86_64")]
mod avx512;
mod blocks;

/// The BMP units sanitize's steps 1–2 may drop, as a bitmap (bit `u & 63` of word
/// `u >> 6`): controls, dangerous invisibles, variation selectors (U+FE0F is kept
/// after a pictographic code point: the unit-wise path decides), and surrogates.
/// Derived from core's rules, so it follows them.
// Const evaluation: indexes bounded by the loop (`u < 0x10000`). Only the AVX-512 block
// check reads it, so other targets do not build it.
#[cfg(target_arch = "x86_64")]
#[allow(clippy::indexing_slicing, clippy::arithmetic_side_effects)]
static MAY_DROP: [u64; 1024] = {
    let mut t = [0u64; 1024];
    let mut u = 0u32;
    while u < 0x10000 {
        let drop = match char::from_u32(u) {
            Some(c) => is_control(c) || is_dangerous_invisible(c) || is_variation_selector(c),
            None => true,
        };
        if drop {
            t[(u >> 6) as usize] |= 1 << (u & 63);
        }
        u += 1;
    }
    t
};

/// Whether steps 1–2 may drop BMP unit `u` ([`MAY_DROP`]).
#[cfg(target_arch = "x86_64")]
#[inline]
fn may_drop(u: u16) -> bool {
    MAY_DROP
        .get(usize::from(u >> 6))
        .is_none_or(|w| w >> (u & 63) & 1 == 1)
}

/// Whether steps 1–2 keep every unit of a 32-unit block that `non_ascii` marks (the
/// others, ASCII, the block encoder has checked).
#[cfg(target_arch = "x86_64")]
#[inline]
fn keeps_non_ascii(src: &[u8; 64], mut non_ascii: u32) -> bool {
    while non_ascii != 0 {
        let k = non_ascii.trailing_zeros() as usize;
        non_ascii &= non_ascii.wrapping_sub(1);
        if unit(src, k).is_none_or(may_drop) {
            return false;
        }
    }
    true
}

/// U+FFFD in UTF-8.
const REPLACEMENT_UTF8: [u8; 3] = [0xEF, 0xBF, 0xBD];
/// U+FFFD as a UTF-16 code unit.
const REPLACEMENT_UNIT: u16 = 0xFFFD;

/// What [`to_utf8`] wrote.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Utf8Written {
    /// Bytes written.
    pub len: usize,
    /// Whether the units held a lone surrogate (written as U+FFFD).
    pub lone_surrogates: bool,
    /// Whether a code point was left out (`STRIP` only).
    pub dropped: bool,
    /// UTF-16 code units written to `kept` (`STRIP` with a `kept` buffer only): the
    /// input's units less the code points left out.
    pub kept_units: usize,
}

/// The `i`-th code unit of UTF-16LE bytes.
#[inline]
fn unit(units: &[u8], i: usize) -> Option<u16> {
    let at = i.checked_mul(2)?;
    let pair = units.get(at..at.checked_add(2)?)?;
    let pair: [u8; 2] = pair.try_into().ok()?;
    Some(u16::from_le_bytes(pair))
}

/// Writes `bytes` at `dst[at..]`, returning the new end.
#[inline(always)]
fn put(dst: &mut [u8], at: usize, bytes: &[u8]) -> Option<usize> {
    let end = at.checked_add(bytes.len())?;
    dst.get_mut(at..end)?.copy_from_slice(bytes);
    Some(end)
}

/// The scalar value of a surrogate pair.
#[inline]
fn pair_value(hi: u16, lo: u16) -> u32 {
    let hi = u32::from(hi & 0x3FF);
    let lo = u32::from(lo & 0x3FF);
    ((hi << 10) | lo).wrapping_add(0x10000)
}

const fn is_high(u: u16) -> bool {
    matches!(u, 0xD800..=0xDBFF)
}

const fn is_low(u: u16) -> bool {
    matches!(u, 0xDC00..=0xDFFF)
}

/// UTF-16LE `units` (`units.len() / 2` code units) as UTF-8 into `dst`, each lone
/// surrogate as U+FFFD. With `STRIP`, a code point that sanitize's steps 1–2 drop
/// (the invisibles, orphan selectors, controls but TAB and LF; decided on the
/// original sequence, as [`Kept`] does) is not written: core then finds nothing to
/// drop and stays on its copying path, and what it does is unchanged (both steps are
/// idempotent). With `STRIP` and a `kept` buffer (at least `units.len()` bytes), the
/// units of the code points written are also copied there: when core then changes
/// nothing more, that copy is the result, and the UTF-8 need not be transcoded back.
/// The result is valid only when `lone_surrogates` is false (else
/// [`stripped_to_utf8`] redoes the walk, pairing halves). `None` when `dst` is too
/// small (3 bytes per unit always suffice), `kept` is too small, or `units` has an
/// odd length.
pub(crate) fn to_utf8<const STRIP: bool>(
    units: &[u8],
    dst: &mut [u8],
    mut kept: Option<&mut [u8]>,
) -> Option<Utf8Written> {
    if !units.len().is_multiple_of(2) || kept.as_ref().is_some_and(|k| k.len() < units.len()) {
        return None;
    }
    // Bytes written to `kept`.
    let mut k = 0usize;
    let count = units.len() / 2;
    let mut i = 0usize;
    let mut o = 0usize;
    let mut lone = false;
    let mut dropped = false;
    // The code point before the next one in the original (an ASCII stand-in after a
    // block: only whether it is pictographic matters, and no ASCII code point is).
    let mut prev: Option<char> = None;
    #[cfg(target_arch = "x86_64")]
    let wide = avx512::detect();
    // After a block the wide step refused, the units up to here go the narrow way.
    #[cfg(target_arch = "x86_64")]
    let mut narrow_until = 0usize;
    while i < count {
        #[cfg(target_arch = "x86_64")]
        let from = i.checked_mul(2)?;
        // Thirty-two units at a time, ASCII or not, with AVX-512, for as many blocks
        // as it takes.
        #[cfg(target_arch = "x86_64")]
        if let Some(cpu) = wide
            && i >= narrow_until
        {
            let run = if STRIP {
                cpu.encode_run::<STRIP>(units.get(from..)?, dst.get_mut(o..)?, keeps_non_ascii)
            } else {
                cpu.encode_run_plain(units.get(from..)?, dst.get_mut(o..)?)
            };
            if run.units > 0 {
                if let Some(kept) = kept.as_deref_mut() {
                    // `k <= 2 * i`: the room is there.
                    k = put(
                        kept,
                        k,
                        units.get(from..from.checked_add(run.units.checked_mul(2)?)?)?,
                    )?;
                }
                i = i.checked_add(run.units)?;
                o = o.checked_add(run.len)?;
                // The last unit: with `STRIP` no surrogate (the wide step refuses
                // them there), so a code point of its own; without it a pair's low
                // half may end the run, and `prev`, which only `STRIP` reads, is
                // then `None`.
                prev = if run.last_non_ascii {
                    char::from_u32(u32::from(unit(units, i.checked_sub(1)?)?))
                } else {
                    Some('a')
                };
            }
            // The block after the run, refused or short: the narrow way.
            narrow_until = i.checked_add(32)?;
            if i >= count {
                break;
            }
        }
        let from = i.checked_mul(2)?;
        // Sixteen units at a time while they are ASCII, the common case of prose.
        if let (Some(src), Some(d)) = (
            units.get(from..from.checked_add(32)?),
            dst.get_mut(o..o.checked_add(16)?),
        ) {
            let n = blocks::narrow::<STRIP>(src.try_into().ok()?, d.try_into().ok()?);
            if let Some(kept) = kept.as_deref_mut() {
                // The whole block, of which the first `n` units count: `k <= 2 * i`,
                // so the room is there.
                put(kept, k, src)?;
                k = k.checked_add(n.checked_mul(2)?)?;
            }
            // A whole block advances by a constant, so the next load's address does
            // not wait for this block's mask (the branch is predicted instead).
            if n == 16 {
                i = i.checked_add(16)?;
                o = o.checked_add(16)?;
                prev = Some('a');
                continue;
            }
            if n > 0 {
                i = i.checked_add(n)?;
                o = o.checked_add(n)?;
                prev = Some('a');
            }
        }
        let u = unit(units, i)?;
        i = i.checked_add(1)?;
        if u < 0x80 {
            let [b, _] = u.to_le_bytes();
            let c = char::from(b);
            prev = Some(c);
            if STRIP && is_control(c) && c != '\t' && c != '\n' {
                dropped = true;
                continue;
            }
            o = put(dst, o, &[b])?;
            if let Some(kept) = kept.as_deref_mut() {
                k = put(kept, k, &u.to_le_bytes())?;
            }
            continue;
        }
        let c = if is_high(u) {
            match unit(units, i) {
                Some(next) if is_low(next) => {
                    i = i.checked_add(1)?;
                    char::from_u32(pair_value(u, next))
                }
                _ => None,
            }
        } else if is_low(u) {
            None
        } else {
            char::from_u32(u32::from(u))
        };
        let Some(c) = c else {
            lone = true;
            o = put(dst, o, &REPLACEMENT_UTF8)?;
            if let Some(kept) = kept.as_deref_mut() {
                k = put(kept, k, &u.to_le_bytes())?;
            }
            prev = Some('\u{FFFD}');
            continue;
        };
        if STRIP && (is_stripped(c, prev) || is_control(c)) {
            dropped = true;
            prev = Some(c);
            continue;
        }
        prev = Some(c);
        if let Some(kept) = kept.as_deref_mut() {
            let mut pair = [0u16; 2];
            for unit in c.encode_utf16(&mut pair) {
                k = put(kept, k, &unit.to_le_bytes())?;
            }
        }
        let [lo, hi] = u.to_le_bytes();
        o = if u < 0x800 {
            put(dst, o, &[0xC0 | (hi << 2) | (lo >> 6), 0x80 | (lo & 0x3F)])?
        } else if is_high(u) {
            let mut buf = [0u8; 4];
            put(dst, o, c.encode_utf8(&mut buf).as_bytes())?
        } else {
            put(
                dst,
                o,
                &[
                    0xE0 | (hi >> 4),
                    0x80 | ((hi & 0x0F) << 2) | (lo >> 6),
                    0x80 | (lo & 0x3F),
                ],
            )?
        };
    }
    Some(Utf8Written {
        len: o,
        lone_surrogates: lone,
        dropped,
        kept_units: k / 2,
    })
}

/// One element of a UTF-16 string as the reference walks it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Element {
    /// A scalar value (a BMP unit or a surrogate pair).
    Scalar(char),
    /// A lone surrogate.
    Lone(u16),
}

/// The elements of UTF-16LE units that the reference's steps 1–2 keep, with lone
/// halves that end up adjacent paired into one scalar value.
///
/// Step 1 (`stripDangerousInvisibles`) decides each element from it and the element
/// before it in the *original* string (a U+FE0F is kept only after a pictographic
/// code point); a lone surrogate is its own element, never pictographic, so U+FFFD
/// stands for it there. Step 2 removes the controls but TAB and LF from what step 1
/// kept; no control is in step 1's set, so one walk decides both. Pairing cannot
/// change either decision: a new pair's low half is never pictographic in the
/// original, and a control is never a surrogate.
pub(crate) struct Kept<'a> {
    units: &'a [u8],
    at: usize,
    prev: Option<char>,
    held: Option<Element>,
    /// Whether an element was dropped so far.
    pub dropped: bool,
}

impl<'a> Kept<'a> {
    pub(crate) fn new(units: &'a [u8]) -> Self {
        Kept {
            units,
            at: 0,
            prev: None,
            held: None,
            dropped: false,
        }
    }

    /// The next element of the original string.
    fn raw(&mut self) -> Option<Element> {
        let u = unit(self.units, self.at)?;
        self.at = self.at.saturating_add(1);
        if is_high(u) {
            if let Some(lo) = unit(self.units, self.at).filter(|&lo| is_low(lo)) {
                self.at = self.at.saturating_add(1);
                return Some(
                    char::from_u32(pair_value(u, lo)).map_or(Element::Lone(u), Element::Scalar),
                );
            }
            return Some(Element::Lone(u));
        }
        if is_low(u) {
            return Some(Element::Lone(u));
        }
        Some(char::from_u32(u32::from(u)).map_or(Element::Lone(u), Element::Scalar))
    }

    /// The next element steps 1–2 keep, before pairing.
    fn kept(&mut self) -> Option<Element> {
        if let Some(held) = self.held.take() {
            return Some(held);
        }
        loop {
            let e = self.raw()?;
            let (as_char, drop) = match e {
                Element::Scalar(c) => (
                    c,
                    is_stripped(c, self.prev) || (is_control(c) && c != '\t' && c != '\n'),
                ),
                Element::Lone(_) => ('\u{FFFD}', false),
            };
            self.prev = Some(as_char);
            if drop {
                self.dropped = true;
                continue;
            }
            return Some(e);
        }
    }
}

impl Iterator for Kept<'_> {
    type Item = Element;

    fn next(&mut self) -> Option<Element> {
        let e = self.kept()?;
        let Element::Lone(hi) = e else {
            return Some(e);
        };
        if !is_high(hi) {
            return Some(e);
        }
        match self.kept() {
            Some(Element::Lone(lo)) if is_low(lo) => {
                Some(char::from_u32(pair_value(hi, lo)).map_or(Element::Lone(hi), Element::Scalar))
            }
            next => {
                self.held = next;
                Some(e)
            }
        }
    }
}

/// What [`stripped_to_utf8`] wrote.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Stripped {
    /// Bytes written.
    pub len: usize,
    /// Whether steps 1–2 dropped anything.
    pub dropped: bool,
    /// UTF-16 code units written to `units_out` (when given).
    pub kept_units: usize,
}

/// The elements [`Kept`] yields, as UTF-8 into `dst` (a lone surrogate as U+FFFD)
/// and, with `units_out`, as UTF-16LE units there (a lone surrogate as itself, a
/// pair joined across a drop as the pair); `None` when a buffer is too small (3
/// bytes per unit always suffice for `dst`, 2 for `units_out`).
pub(crate) fn stripped_to_utf8(
    units: &[u8],
    dst: &mut [u8],
    mut units_out: Option<&mut [u8]>,
) -> Option<Stripped> {
    let mut kept = Kept::new(units);
    let mut o = 0usize;
    let mut k = 0usize;
    let mut buf = [0u8; 4];
    let mut pair = [0u16; 2];
    for e in kept.by_ref() {
        let (bytes, wide): (&[u8], &[u16]) = match e {
            Element::Scalar(c) => (
                c.encode_utf8(&mut buf).as_bytes(),
                c.encode_utf16(&mut pair),
            ),
            Element::Lone(u) => {
                pair = [u, 0];
                (&REPLACEMENT_UTF8, pair.get(..1)?)
            }
        };
        o = put(dst, o, bytes)?;
        if let Some(out) = units_out.as_deref_mut() {
            for u in wide {
                k = put(out, k, &u.to_le_bytes())?;
            }
        }
    }
    Some(Stripped {
        len: o,
        dropped: kept.dropped,
        kept_units: k / 2,
    })
}

/// The unit each U+FFFD of core's output stands for, in order: the U+FFFD or lone
/// surrogate of the input, as [`Kept`] yields them.
pub(crate) struct Restorer<'a> {
    kept: Kept<'a>,
}

impl<'a> Restorer<'a> {
    pub(crate) fn new(units: &'a [u8]) -> Self {
        Restorer {
            kept: Kept::new(units),
        }
    }

    /// The next replacement-class unit; `None` once the input has no more (core's
    /// output then holds a U+FFFD the input did not: an internal error).
    fn next_unit(&mut self) -> Option<u16> {
        self.kept.find_map(|e| match e {
            Element::Scalar('\u{FFFD}') => Some(REPLACEMENT_UNIT),
            Element::Lone(u) => Some(u),
            Element::Scalar(_) => None,
        })
    }
}

/// Whether every code point of `text` is at most U+00FF (its UTF-8 has no lead byte
/// above 0xC3).
pub(crate) fn fits_latin1(text: &str) -> bool {
    // Branch-free over blocks, so the compiler vectorises it.
    let mut chunks = text.as_bytes().chunks_exact(64);
    let blocks = chunks
        .by_ref()
        .all(|block| block.iter().fold(0u8, |m, &b| m.max(b)) < 0xC4);
    blocks && chunks.remainder().iter().all(|&b| b < 0xC4)
}

/// `text`, every code point at most U+00FF, as Latin-1 into `dst`; the bytes
/// written, `None` when `dst` is too small or a code point is above U+00FF.
pub(crate) fn to_latin1(text: &str, dst: &mut [u8]) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut i = 0usize;
    let mut o = 0usize;
    while i < bytes.len() {
        if let (Some(src), Some(d)) = (
            bytes.get(i..i.checked_add(16)?),
            dst.get_mut(o..o.checked_add(16)?),
        ) {
            let n = blocks::copy(src.try_into().ok()?, d.try_into().ok()?);
            if n == 16 {
                i = i.checked_add(16)?;
                o = o.checked_add(16)?;
                continue;
            }
            i = i.checked_add(n)?;
            o = o.checked_add(n)?;
        }
        let b = *bytes.get(i)?;
        let byte = if b < 0x80 {
            i = i.checked_add(1)?;
            b
        } else {
            let next = *bytes.get(i.checked_add(1)?)?;
            if b > 0xC3 {
                return None;
            }
            i = i.checked_add(2)?;
            ((b & 0x03) << 6) | (next & 0x3F)
        };
        o = put(dst, o, &[byte])?;
    }
    Some(o)
}

/// `text` as UTF-16LE into `dst`; the code units written. With a [`Restorer`], each
/// U+FFFD becomes the unit it stands for. `None` when `dst` is too small (2 bytes
/// per byte of `text` always suffice) or the restorer runs out.
pub(crate) fn to_utf16(
    text: &str,
    dst: &mut [u8],
    mut restore: Option<Restorer<'_>>,
) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut i = 0usize;
    let mut o = 0usize;
    while i < bytes.len() {
        if let (Some(src), Some(d)) = (
            bytes.get(i..i.checked_add(16)?),
            dst.get_mut(o..o.checked_add(32)?),
        ) {
            let n = blocks::widen(src.try_into().ok()?, d.try_into().ok()?);
            if n == 16 {
                i = i.checked_add(16)?;
                o = o.checked_add(32)?;
                continue;
            }
            i = i.checked_add(n)?;
            o = o.checked_add(n.checked_mul(2)?)?;
        }
        let c = text.get(i..)?.chars().next()?;
        i = i.checked_add(c.len_utf8())?;
        if c == '\u{FFFD}'
            && let Some(r) = restore.as_mut()
        {
            o = put(dst, o, &r.next_unit()?.to_le_bytes())?;
            continue;
        }
        let mut units = [0u16; 2];
        for u in c.encode_utf16(&mut units) {
            o = put(dst, o, &u.to_le_bytes())?;
        }
    }
    Some(o / 2)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn le(s: &[u16]) -> Vec<u8> {
        s.iter().flat_map(|u| u.to_le_bytes()).collect()
    }

    fn utf8_of(units: &[u16]) -> (String, bool) {
        let src = le(units);
        let mut dst = vec![0u8; units.len() * 3];
        let w = to_utf8::<false>(&src, &mut dst, None).unwrap();
        (
            String::from_utf8(dst[..w.len].to_vec()).unwrap(),
            w.lone_surrogates,
        )
    }

    #[test]
    fn to_utf8_matches_std_on_well_formed_text() {
        for s in [
            "",
            "a",
            "plain ascii prose that is longer than one block of eight units",
            "é€😀 mixed — text…\u{2028}\u{FEFF}\u{10FFFF}\u{FFFD}",
            "12345678é12345678😀123456781234567",
        ] {
            let units: Vec<u16> = s.encode_utf16().collect();
            assert_eq!(utf8_of(&units), (s.to_owned(), false), "{s:?}");
        }
    }

    #[test]
    fn lone_surrogates_become_replacement_at_every_position() {
        for lone in [0xD800u16, 0xDBFF, 0xDC00, 0xDFFF, 0xD83D, 0xDE00] {
            for at in 0..20 {
                let mut units: Vec<u16> = "abcdefghijklmnopqrs".encode_utf16().collect();
                units.insert(at, lone);
                let want = String::from_utf16_lossy(&units);
                assert_eq!(utf8_of(&units), (want, true), "{lone:x} at {at}");
            }
        }
        // A high half followed by a high half, and a pair after a lone low half.
        let units = [0xD83D, 0xD83D, 0xDE00, 0xDE00];
        assert_eq!(utf8_of(&units), ("\u{FFFD}😀\u{FFFD}".to_owned(), true));
    }

    #[test]
    fn generated_units_match_std_and_the_strip_walk() {
        const UNITS: [u16; 28] = [
            0x61, 0x20, 0x7A, 0xE9, 0xAD, 0x85, 0x7FF, 0x800, 0x2014, 0x200B, 0x202E, 0x2060,
            0xFE0E, 0xFE0F, 0xFEFF, 0x3164, 0xFFFD, 0xFFFF, 0x2764, 0xD83D, 0xDE00, 0xDB40, 0xDC61,
            0x180E, 0x07, 0x0D, 0x09, 0x0A,
        ];
        let mut seed = 5u32;
        let mut next = |n: u32| {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            seed % n
        };
        for _ in 0..5000 {
            let ascii_run = next(40) as usize;
            let mut units: Vec<u16> = Vec::new();
            for _ in 0..next(60) {
                if next(3) == 0 {
                    units.extend(std::iter::repeat_n(0x61, ascii_run));
                }
                units.push(UNITS[next(28) as usize]);
            }
            let src = le(&units);
            let mut dst = vec![0u8; units.len() * 3];
            let w = to_utf8::<false>(&src, &mut dst, None).unwrap();
            let lossy = String::from_utf16_lossy(&units);
            assert_eq!(&dst[..w.len], lossy.as_bytes(), "{units:x?}");
            let mut kept = vec![0u8; src.len()];
            let w = to_utf8::<true>(&src, &mut dst, Some(&mut kept)).unwrap();
            let mut walked = vec![0u8; units.len() * 3];
            let mut walked_units = vec![0u8; src.len()];
            let s = stripped_to_utf8(&src, &mut walked, Some(&mut walked_units)).unwrap();
            // The walk's units are its UTF-8, each lone surrogate for a U+FFFD.
            let wide: Vec<u16> = walked_units[..s.kept_units * 2]
                .chunks_exact(2)
                .map(|p| u16::from_le_bytes([p[0], p[1]]))
                .collect();
            assert_eq!(
                String::from_utf16_lossy(&wide).as_bytes(),
                &walked[..s.len],
                "{units:x?}"
            );
            if !w.lone_surrogates {
                assert_eq!(&dst[..w.len], &walked[..s.len], "{units:x?}");
                assert_eq!(w.dropped, s.dropped);
                assert_eq!(&kept[..w.kept_units * 2], &walked_units[..s.kept_units * 2]);
            }
        }
    }

    #[test]
    fn long_runs_of_blocks_match_std_and_the_strip_walk() {
        // Mostly prose, now and then a unit the wide step refuses or must check, so
        // runs of blocks end at every offset.
        const RARE: [u16; 10] = [
            0x07, 0x0D, 0x7F, 0x85, 0xAD, 0x200B, 0xFE0F, 0xD83D, 0xDE00, 0x2764,
        ];
        const COMMON: [u16; 8] = [0x61, 0x20, 0x2014, 0xE9, 0x65E5, 0x0A, 0x7FF, 0xFFFD];
        let mut seed = 17u32;
        let mut next = |n: u32| {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            seed % n
        };
        for _ in 0..400 {
            let len = next(700) as usize;
            let rare = 1 + next(200);
            let units: Vec<u16> = (0..len)
                .map(|_| {
                    if next(rare) == 0 {
                        RARE[next(10) as usize]
                    } else if next(6) == 0 {
                        COMMON[next(8) as usize]
                    } else {
                        0x61
                    }
                })
                .collect();
            let src = le(&units);
            let mut dst = vec![0u8; units.len() * 3];
            let w = to_utf8::<false>(&src, &mut dst, None).unwrap();
            assert_eq!(&dst[..w.len], String::from_utf16_lossy(&units).as_bytes());
            let mut kept = vec![0u8; src.len()];
            let w = to_utf8::<true>(&src, &mut dst, Some(&mut kept)).unwrap();
            let mut walked = vec![0u8; units.len() * 3];
            let mut walked_units = vec![0u8; src.len()];
            let s = stripped_to_utf8(&src, &mut walked, Some(&mut walked_units)).unwrap();
            if !w.lone_surrogates {
                assert_eq!(&dst[..w.len], &walked[..s.len], "{units:x?}");
                assert_eq!(w.dropped, s.dropped);
                assert_eq!(&kept[..w.kept_units * 2], &walked_units[..s.kept_units * 2]);
            }
        }
    }

    #[test]
    fn to_utf8_refuses_a_short_buffer() {
        let src = le(&[0x20AC, 0x20AC]);
        let mut dst = [0u8; 5];
        assert_eq!(to_utf8::<false>(&src, &mut dst, None), None);
        assert_eq!(to_utf8::<true>(&[1, 2, 3], &mut [0u8; 9], None), None);
        assert_eq!(
            to_utf8::<true>(&src, &mut [0u8; 9], Some(&mut [0u8; 3])),
            None
        );
    }

    /// One unit (two for a pair) of the class `k`: ASCII, two bytes, three bytes,
    /// a pair, a lone half, any `u16`; the edges of each class often.
    fn unit_of_class(k: usize, r: u32, out: &mut Vec<u16>) {
        const EDGES: [&[u16]; 5] = [
            &[0x00, 0x7F, 0x20],
            &[0x80, 0x7FF, 0xFF, 0x100],
            &[0x800, 0xFFFF, 0xD7FF, 0xE000, 0xFFFD, 0xFEFF],
            &[0xD800, 0xDBFF, 0xD83D],
            &[0xD800, 0xDBFF, 0xDC00, 0xDFFF],
        ];
        let pick = |lo: u32, span: u32| (lo + (r >> 3) % span) as u16;
        let edge = EDGES.get(k).filter(|_| r & 7 == 0);
        if let Some(edge) = edge.filter(|_| k != 3) {
            out.push(edge[(r >> 3) as usize % edge.len()]);
            return;
        }
        match k {
            0 => out.push(pick(0, 0x80)),
            1 => out.push(pick(0x80, 0x780)),
            2 => {
                let u = pick(0x800, 0xF800 - 0x800);
                out.push(if u >= 0xD800 { u + 0x800 } else { u });
            }
            3 => {
                let (hi, lo) = match r & 7 {
                    0 => (0xD800, 0xDC00),
                    1 => (0xDBFF, 0xDFFF),
                    _ => (pick(0xD800, 0x400), 0xDC00 + ((r >> 13) % 0x400) as u16),
                };
                out.extend([hi, lo]);
            }
            4 => out.push(pick(0xD800, 0x800)),
            _ => out.push((r >> 8) as u16),
        }
    }

    #[test]
    fn plain_transcoding_matches_lossy_std_at_every_phase_of_blocks_and_groups() {
        // Odds of each class (ASCII, two bytes, three bytes, pair, lone half, any
        // unit): one kind alone, so that whole groups of four blocks are one kind,
        // and mixtures, so that they are not.
        const MIXES: [[u32; 6]; 10] = [
            [1, 0, 0, 0, 0, 0],
            [0, 1, 0, 0, 0, 0],
            [0, 0, 1, 0, 0, 0],
            [0, 0, 0, 1, 0, 0],
            [6, 3, 0, 0, 0, 0],
            [60, 5, 5, 2, 0, 0],
            [10, 10, 10, 10, 0, 0],
            [400, 40, 40, 20, 1, 0],
            [0, 0, 30, 30, 1, 0],
            [0, 0, 0, 0, 0, 1],
        ];
        let mut seed = 0x2545_F491u32;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            seed
        };
        let mut wide_cases = 0;
        for case in 0..3000u32 {
            let mix = MIXES[case as usize % MIXES.len()];
            let total: u32 = mix.iter().sum();
            let len = next() as usize % 2001;
            // Every phase relative to a block (32 units) and a group (128 units):
            // `lead` ASCII units first; and the bytes at an odd address in one case
            // in two.
            let lead = (case / 10) as usize % 128;
            let mut units = vec![0x6Cu16; lead];
            while units.len() < lead + len {
                let r = next() % total;
                // The class whose share of `total` holds `r`.
                let k = (0..mix.len())
                    .find(|&k| r < mix[..=k].iter().sum())
                    .unwrap();
                unit_of_class(k, next(), &mut units);
            }
            units.truncate(lead + len);
            let odd = usize::from(case % 2 == 1);
            let mut bytes = vec![0u8; odd];
            bytes.extend(le(&units));
            let src = &bytes[odd..];
            // `dst` exactly three bytes a unit, in a larger buffer whose tail
            // shows any write past its end.
            let room = 3 * units.len();
            let mut out = vec![0xA5u8; room + 128];
            let w = to_utf8::<false>(src, &mut out[..room], None).unwrap();
            let want = String::from_utf16_lossy(&units);
            assert_eq!(&out[..w.len], want.as_bytes(), "case {case}: {units:x?}");
            let lone = char::decode_utf16(units.iter().copied()).any(|c| c.is_err());
            assert_eq!(w.lone_surrogates, lone, "case {case}");
            assert!(out[room..].iter().all(|&b| b == 0xA5), "case {case}");
            wide_cases += usize::from(units.len() >= 256 && !lone);
        }
        assert!(wide_cases > 1000, "{wide_cases}");
    }

    fn stripped(units: &[u16]) -> (String, bool) {
        let src = le(units);
        let mut dst = vec![0u8; units.len() * 3];
        let s = stripped_to_utf8(&src, &mut dst, None).unwrap();
        (String::from_utf8(dst[..s.len].to_vec()).unwrap(), s.dropped)
    }

    #[test]
    fn steps_one_and_two_pair_halves_across_what_they_drop() {
        let u = |s: &str| s.encode_utf16().collect::<Vec<u16>>();
        let mut v = vec![0xD83D];
        v.extend(u("\u{200B}"));
        v.push(0xDE00);
        assert_eq!(stripped(&v), ("😀".to_owned(), true));
        // A control between the halves, then an orphan selector after the pair (its
        // original predecessor is the lone low half, not pictographic).
        let v = [0xD83D, 0x0001, 0xDE00, 0xFE0F];
        assert_eq!(stripped(&v), ("😀".to_owned(), true));
        // Low then high never pair; TAB and LF are kept, so they keep halves apart.
        let v = [0xDE00, 0x200B, 0xD83D];
        assert_eq!(stripped(&v), ("\u{FFFD}\u{FFFD}".to_owned(), true));
        let v = [0xD83D, 0x0009, 0xDE00];
        assert_eq!(stripped(&v), ("\u{FFFD}\t\u{FFFD}".to_owned(), false));
        // A kept U+FE0F after a pictographic code point.
        let v = u("😀\u{FE0F}\u{FE0E}x");
        assert_eq!(stripped(&v), ("😀\u{FE0F}x".to_owned(), true));
    }

    #[test]
    fn restorer_gives_back_each_replacement_class_unit_in_order() {
        let v = [0xDE00, 0x200B, 0xFFFD, 0xD83D, 0x0001, 0xDE01, 0xD800];
        // Kept: lone DE00, U+FFFD, the pair D83D DE01, lone D800.
        let src = le(&v);
        let mut r = Restorer::new(&src);
        assert_eq!(r.next_unit(), Some(0xDE00));
        assert_eq!(r.next_unit(), Some(0xFFFD));
        assert_eq!(r.next_unit(), Some(0xD800));
        assert_eq!(r.next_unit(), None);
        let mut dst = [0u8; 64];
        let text = "\u{FFFD}\u{FFFD}\u{1F601}\u{FFFD}";
        let n = to_utf16(text, &mut dst, Some(Restorer::new(&src))).unwrap();
        assert_eq!(
            &dst[..n * 2],
            &le(&[0xDE00, 0xFFFD, 0xD83D, 0xDE01, 0xD800])[..]
        );
        // One U+FFFD more than the input has: refused.
        assert_eq!(
            to_utf16(
                "\u{FFFD}\u{FFFD}\u{FFFD}\u{FFFD}",
                &mut dst,
                Some(Restorer::new(&src))
            ),
            None
        );
    }

    #[test]
    fn to_utf16_and_latin1_match_std() {
        for s in [
            "",
            "x",
            "sixteen bytes!!!and then some more ascii than a block",
            "café naïve ÿ\u{80} and 0123456789abcdef0123456789",
            "— em dash, 😀, \u{10FFFF}, 0123456789abcdef0123456789abcdef",
        ] {
            let mut dst = vec![0u8; s.len() * 2];
            let n = to_utf16(s, &mut dst, None).unwrap();
            let want: Vec<u16> = s.encode_utf16().collect();
            assert_eq!(&dst[..n * 2], &le(&want)[..], "{s:?}");
            let latin1 = s.chars().all(|c| u32::from(c) <= 0xFF);
            assert_eq!(fits_latin1(s), latin1, "{s:?}");
            let mut dst = vec![0u8; s.len()];
            match to_latin1(s, &mut dst) {
                Some(n) => {
                    assert!(latin1);
                    let want: Vec<u8> = s.chars().map(|c| u32::from(c) as u8).collect();
                    assert_eq!(&dst[..n], &want[..]);
                }
                None => assert!(!latin1, "{s:?}"),
            }
        }
        let long = "é".repeat(100) + "Ā";
        assert!(!fits_latin1(&long));
        assert!(fits_latin1(&"é".repeat(100)));
    }
}
