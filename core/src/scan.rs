//! The byte scan that finds the next position needing attention.
//!
//! Every operation walks text as runs of bytes it keeps untouched, separated by the
//! few positions that need a decision. This module finds those positions; the
//! operations never decode a code point they do not have to.
//!
//! A `Finder` describes a set of bytes; `Scanner::next` looks at 64 bytes at a
//! time, hands each byte of the set to the caller's exact test, and returns the first
//! one the test confirms. The 64-byte candidate masks come from the instruction sets
//! a [`Backend`] names (SSE2, AVX2 or AVX-512 on x86-64, modules `x86*`; NEON on
//! aarch64, the generic kernels of `generic/` over `arch/aarch64/neon.rs`) or from
//! the portable SWAR code here, which is always compiled and is tested against the
//! others.

// SIMD intrinsics need unsafe loads and calls; nowhere else in the crate does.
#[cfg(all(target_arch = "x86_64", not(feature = "portable-only")))]
#[allow(unsafe_code)]
mod x86;

// The portable backend's one unsafe line: a copy of a `str` is a `str`.
#[allow(unsafe_code)]
mod portable;

// UTF-8 validation with AVX-512 BW: vector loads.
#[cfg(all(target_arch = "x86_64", not(feature = "portable-only")))]
#[allow(unsafe_code)]
mod x86_utf8;

// The block scan with AVX-512 BW: vector loads.
#[cfg(all(target_arch = "x86_64", not(feature = "portable-only")))]
#[allow(unsafe_code)]
mod x86_scan512;

// The strict dense blocks with AVX-512 BW/VBMI2 or AVX2/BMI2: vector loads.
#[cfg(all(target_arch = "x86_64", not(feature = "portable-only")))]
#[allow(unsafe_code)]
mod strict_dense_x86;

// Step 1's stops with AVX2: vector loads.
#[cfg(all(target_arch = "x86_64", not(feature = "portable-only")))]
#[allow(unsafe_code)]
mod escapes_x86;

mod arch;
mod backend;
mod byteset;
mod drop;
mod escapes;
mod finder;
// The kernels over a vector trait: NEON's block scan; in tests, on every target, over
// a plain-Rust vector.
#[cfg(any(
    test,
    all(
        target_arch = "aarch64",
        target_feature = "neon",
        not(feature = "portable-only")
    )
))]
mod generic;
// The lead refinement's tables (every target: the scalar confirm reads them), and the
// AVX2 scan's nibble lookups (no unsafe: AVX2 callers only).
mod pairs;
mod scanner;
mod strict_dense;
mod strict_patterns;
mod swar;
mod words;

pub(crate) use backend::next_escape;
pub use backend::{Backend, backend_name};
pub(crate) use byteset::ByteSet;
pub(crate) use drop::{DropBlock, DropPlan, DropRule, Dropper};
pub(crate) use finder::{ATTENTION, Finder, Recorded, char_at};
#[cfg(test)]
pub(crate) use pairs::tests as refinement_tests;
pub(crate) use pairs::{Builder as RefinementBuilder, Refinement};
pub(crate) use scanner::Scanner;
pub use scanner::{first_attention, first_attention_on};
pub(crate) use strict_dense::StrictKernel;
pub(crate) use strict_patterns::{DenseSets, StrictMasks};
#[cfg(test)]
use {backend::*, finder::*, scanner::*};

/// Whether `c` is a control, a table member or a variation selector.
#[inline]
pub(crate) fn needs_attention(c: char) -> bool {
    crate::class::is_control(c)
        || crate::class::is_dangerous_invisible(c)
        || crate::class::is_variation_selector(c)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::vec::Vec;

    #[test]
    fn attention_set_matches_class() {
        // The lead bytes of every attention code point, by the class functions.
        let mut leads = [false; 256];
        for c in '\0'..=char::MAX {
            if needs_attention(c) {
                let mut buf = [0u8; 4];
                leads[usize::from(c.encode_utf8(&mut buf).as_bytes()[0])] = true;
            }
        }
        for b in 0..=255u8 {
            assert_eq!(
                ByteSet::ATTENTION.contains(b),
                leads[usize::from(b)],
                "{b:#x}"
            );
        }
    }

    #[test]
    fn next_in_set_finds_first() {
        let set = Finder::new(ByteSet::EMPTY.with(b'x').with(0xE2));
        assert_eq!(next_in_set(b"abcxdx", 0, &set), 3);
        assert_eq!(next_in_set(b"abcxdx", 4, &set), 5);
        assert_eq!(next_in_set(b"abc", 0, &set), 3);
        assert_eq!(next_in_set(b"abc", 9, &set), 3);
        assert!(ByteSet::EMPTY.with_both_cases(b'u').contains(b'U'));
        assert!(
            Finder::new(set.set.union(ByteSet::EMPTY.with(1)))
                .set
                .contains(1)
        );
    }

    /// Every position the finder reports, by the plain definition.
    fn naive_all(bytes: &[u8], f: &Finder) -> Vec<usize> {
        (0..bytes.len())
            .filter(|&i| {
                f.set.contains(bytes[i])
                    && (bytes[i] < 0x80 || !f.refined || lead_may_attend(bytes, i))
            })
            .collect()
    }

    /// Each set as it is and refined.
    fn finders() -> Vec<Finder> {
        sets()
            .into_iter()
            .flat_map(|s| [Finder::new(s), Finder::new(s).refined()])
            .collect()
    }

    #[test]
    fn every_attention_code_point_passes_the_lead_rule() {
        for c in '\0'..=char::MAX {
            if needs_attention(c) {
                let mut buf = [0u8; 4];
                let enc = c.encode_utf8(&mut buf).as_bytes();
                assert!(lead_may_attend(enc, 0), "{:X}", u32::from(c));
            }
        }
        assert!(!lead_may_attend("—".as_bytes(), 0));
        assert!(!lead_may_attend("\u{A0}".as_bytes(), 0));
        assert!(lead_may_attend(&[0xE2, 0x80], 0));
        assert!(lead_may_attend(&[0xE2], 0));
    }

    /// Every position of the set, by repeated scans on one backend and one scanner.
    fn scanned_all(bytes: &[u8], f: &Finder, backend: Blocks) -> Vec<usize> {
        let mut out = Vec::new();
        let mut scanner = Scanner::with_blocks(f, backend);
        let mut at = 0;
        loop {
            at = scanner.next(bytes, at, |_, _| true);
            if at >= bytes.len() {
                return out;
            }
            out.push(at);
            at += 1;
        }
    }

    fn sets() -> Vec<ByteSet> {
        let strip = ByteSet::EMPTY
            .with(0xC2)
            .with(0xE1)
            .with(0xE2)
            .with(0xE3)
            .with(0xEF)
            .with(0xF3);
        let prose = ByteSet::ATTENTION
            .with(b'<')
            .with(b'#')
            .with(b':')
            .with_both_cases(b'u');
        let mut many = ByteSet::EMPTY;
        for b in b'a'..=b'z' {
            many = many.with(b);
        }
        std::vec![
            ByteSet::ATTENTION,
            strip,
            prose,
            many,
            ByteSet::EMPTY,
            ByteSet::EMPTY.with(0).with(0xFF).with(0x7F).with(0x80),
        ]
    }

    #[test]
    fn every_length_and_alignment() {
        // Each byte value, at each position of each length, at each alignment.
        let mut buf = [b'a'; 64 * 4 + 64];
        for f in finders() {
            for backend in Blocks::available() {
                for align in 0..64 {
                    for len in 0..=(64 * 3) {
                        let hay = &mut buf[align..align + len];
                        hay.fill(b'.');
                        assert_eq!(scanned_all(hay, &f, backend), naive_all(hay, &f));
                        if len == 0 {
                            continue;
                        }
                        const VALUES: [u8; 9] = [0, 0x1F, b'a', b'<', 0x7F, 0x80, 0xC2, 0xE2, 0xF3];
                        let pos = (align * 7 + len * 3) % len;
                        hay[pos] = VALUES[(align + len) % VALUES.len()];
                        hay[len - 1] = VALUES[(align + 2 * len) % VALUES.len()];
                        assert_eq!(
                            scanned_all(hay, &f, backend),
                            naive_all(hay, &f),
                            "{backend:?} align {align} len {len} pos {pos}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn every_byte_value_in_every_lane() {
        for f in finders() {
            for backend in Blocks::available() {
                for lane in 0..64 {
                    for v in 0..=255u8 {
                        let mut hay = [b'.'; 130];
                        hay[lane] = v;
                        hay[lane + 64] = v;
                        assert_eq!(scanned_all(&hay, &f, backend), naive_all(&hay, &f));
                    }
                }
            }
        }
    }

    /// Text dense with code points to drop: invisibles, controls, selectors after
    /// ASCII and after emoji, tags, multi-byte neighbours.
    fn dense_text() -> impl Strategy<Value = std::string::String> {
        proptest::collection::vec(
            proptest::sample::select(std::vec![
                "a",
                "b",
                "u",
                "<",
                "\t",
                "\n",
                "\r",
                "\u{0}",
                "\u{1B}",
                "\u{7F}",
                "\u{85}",
                "\u{9F}",
                "\u{A0}",
                "\u{AD}",
                "\u{115F}",
                "\u{1160}",
                "\u{180E}",
                "\u{200B}",
                "\u{200D}",
                "\u{200E}",
                "\u{202A}",
                "\u{202E}",
                "\u{2060}",
                "\u{2065}",
                "\u{2066}",
                "\u{2069}",
                "\u{3164}",
                "\u{FE00}",
                "\u{FE0E}",
                "\u{FE0F}",
                "\u{FEFF}",
                "\u{FFFE}",
                "\u{E0000}",
                "\u{E0041}",
                "\u{E007F}",
                "\u{E0080}",
                "\u{E0100}",
                "\u{E01EF}",
                "\u{E01F0}",
                "😀",
                "😀\u{FE0F}",
                "❤\u{FE0F}",
                "1\u{FE0F}",
                "—",
                "é",
                "中",
                "\u{10FFFF}",
            ]),
            0..200,
        )
        .prop_map(|v| v.concat())
    }

    /// The bits of `x` where `m` has ones, packed to the bottom.
    fn portable_pext(x: u64, m: u64) -> u64 {
        let mut r = 0;
        let mut k = 0;
        for i in 0..64 {
            if m >> i & 1 == 1 {
                r |= (x >> i & 1) << k;
                k += 1;
            }
        }
        r
    }

    /// Whether `c`, after `prev` in the original text, is dropped by `rule`.
    fn naive_drops(rule: DropRule, c: char, prev: Option<char>) -> bool {
        crate::class::is_stripped(c, prev)
            || (rule == DropRule::Prose && crate::class::is_control(c) && c != '\t' && c != '\n')
    }

    /// Every code point through every compactor's blocks under both rules, against
    /// the plain rule: once packed with its neighbours in code-point order, once after
    /// an ASCII letter. Blocks a compactor declines (U+FE0F after a non-ASCII code
    /// point, the end of the text) are stepped over one code point at a time.
    #[test]
    fn every_code_point_through_every_dropper() {
        let mut packed = std::string::String::from("a");
        let mut spaced = std::string::String::new();
        for c in '\0'..=char::MAX {
            packed.push(c);
            spaced.push('a');
            spaced.push(c);
        }
        for text in [packed, spaced] {
            let bytes = text.as_bytes();
            for compactor in Dropper::available().into_iter().flatten() {
                for rule in [DropRule::Strip, DropRule::Prose] {
                    let dropper = Dropper::with_compactor(rule, Some(compactor));
                    let mut at = 1;
                    let mut blocks = 0usize;
                    while at < bytes.len() {
                        let mut out = [0u8; 64];
                        let Some(DropBlock { consumed, kept, .. }) =
                            dropper.block(bytes, at, &mut out)
                        else {
                            at += text[at..].chars().next().unwrap().len_utf8();
                            continue;
                        };
                        blocks += 1;
                        let mut expected = Vec::new();
                        let mut prev = text[..at].chars().next_back();
                        for c in text[at..at + consumed].chars() {
                            if !naive_drops(rule, c, prev) {
                                let mut buf = [0u8; 4];
                                expected.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                            }
                            prev = Some(c);
                        }
                        assert!(
                            out[..kept] == expected[..],
                            "{compactor:?} {rule:?} at U+{:04X}",
                            u32::from(text[at..].chars().next().unwrap())
                        );
                        at += consumed;
                    }
                    // Nearly all of the text went through blocks.
                    assert!(blocks > bytes.len() / 64 - 100, "{compactor:?} {blocks}");
                }
            }
        }
    }

    proptest! {
        #[test]
        fn dropper_blocks_match_naive(text in dense_text(), start in 1usize..64, prose: bool) {
            let rule = if prose { DropRule::Prose } else { DropRule::Strip };
            let bytes = text.as_bytes();
            let mut at = start.min(text.len());
            while !text.is_char_boundary(at) {
                at += 1;
            }
            for compactor in Dropper::available() {
                let dropper = Dropper::with_compactor(rule, compactor);
                let mut out = [0u8; 64];
                let Some(DropBlock { consumed, kept, .. }) = dropper.block(bytes, at, &mut out) else {
                    continue;
                };
                prop_assert!(compactor.is_some());
                prop_assert!((61..=64).contains(&consumed));
                prop_assert!(text.is_char_boundary(at + consumed));
                let mut expected = std::vec::Vec::new();
                let mut prev = text[..at].chars().next_back();
                for c in text[at..at + consumed].chars() {
                    if !naive_drops(rule, c, prev) {
                        let mut buf = [0u8; 4];
                        expected.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                    }
                    prev = Some(c);
                }
                prop_assert_eq!(&out[..kept], &expected[..], "{:?}", compactor);
                // A short output buffer is declined, not overrun.
                if kept > 0 {
                    let mut short = [0u8; 64];
                    prop_assert_eq!(dropper.block(bytes, at, &mut short[..kept - 1]), None);
                }
            }
        }

        #[test]
        fn dropper_compactors_agree(text in dense_text(), start in 1usize..64, prose: bool, odd: bool) {
            // Marks as prose's automaton uses them, or a set with a continuation
            // byte (the portable dropper's slow path).
            let marks = if odd {
                Finder::new(ByteSet::EMPTY.with(0x80).with(0x9F).with(b'a'))
            } else {
                Finder::new(ByteSet::EMPTY.with(b'<').with_both_cases(b'u'))
            };
            let rule = if prose { DropRule::Prose } else { DropRule::Strip };
            let bytes = text.as_bytes();
            let mut at = start.min(text.len());
            while !text.is_char_boundary(at) {
                at += 1;
            }
            type Seen = (Option<(usize, usize, u64, Vec<u8>)>, Option<(usize, u64, u64)>);
            let mut seen: Option<Seen> = None;
            for compactor in Dropper::available().into_iter().flatten() {
                let dropper = Dropper::with_compactor(rule, Some(compactor));
                let mut out = [0u8; 64];
                let block = dropper
                    .marked_block(bytes, at, Some(&marks), &mut out)
                    .map(|b| (b.consumed, b.kept, b.marks, out[..b.kept].to_vec()));
                let plan = dropper
                    .plan(bytes, at, Some(&marks))
                    .map(|p| (p.consumed, p.keep, p.marked));
                prop_assert_eq!(block.is_some(), plan.is_some());
                if let (Some((c, k, m, _)), Some((pc, keep, marked))) = (&block, plan) {
                    prop_assert_eq!(*c, pc);
                    prop_assert_eq!(*k, keep.count_ones() as usize);
                    prop_assert_eq!(*m, portable_pext(marked, keep));
                }
                // A U+FE0F after non-ASCII just past the block's cut declines the
                // SIMD blocks only: compare the blocks every compactor takes.
                match &seen {
                    _ if block.is_none() => {}
                    None => seen = Some((block, plan)),
                    Some(first) => prop_assert_eq!(first, &(block, plan), "{:?}", compactor),
                }
            }
        }

        #[test]
        fn backends_agree_on_random_bytes(
            bytes in proptest::collection::vec(any::<u8>(), 0..600),
            set_index in 0usize..12,
            from in 0usize..700,
        ) {
            let f = finders()[set_index];
            let naive = naive_all(&bytes, &f);
            for backend in Blocks::available() {
                prop_assert_eq!(&scanned_all(&bytes, &f, backend), &naive);
                let first = naive.iter().copied().find(|&i| i >= from).unwrap_or(bytes.len());
                prop_assert_eq!(Scanner::with_blocks(&f, backend).next(&bytes, from, |_, _| true), first);
            }
        }

        #[test]
        fn refined_backends_agree_on_lead_byte_soup(
            bytes in proptest::collection::vec(proptest::sample::select(std::vec![
                0xC2u8, 0xE1, 0xE2, 0xE3, 0xEF, 0xF3, 0x80, 0x81, 0x85, 0x8B, 0x8D, 0x8E, 0x94,
                0x9F, 0xA0, 0xA5, 0xA6, 0xA9, 0xAA, 0xAE, 0xAF, 0xAD, 0xB8, 0xBB, 0xBF, b'a', b':',
            ]), 0..400),
            set_index in 0usize..6,
            from in 0usize..420,
        ) {
            let f = Finder::new(sets()[set_index]).refined();
            let naive = naive_all(&bytes, &f);
            for backend in Blocks::available() {
                prop_assert_eq!(&scanned_all(&bytes, &f, backend), &naive);
                let first = naive.iter().copied().find(|&i| i >= from).unwrap_or(bytes.len());
                prop_assert_eq!(Scanner::with_blocks(&f, backend).next(&bytes, from, |_, _| true), first);
            }
        }

        #[test]
        fn first_attention_is_the_first_such_char(s in "\\PC*|[a-z\u{0}-\u{1f}\u{7f}-\u{a0}\u{ad}\u{200b}-\u{2070}\u{fe00}-\u{feff}\u{e0000}-\u{e01ef}]{0,200}") {
            let naive = s.char_indices().find(|&(_, c)| needs_attention(c));
            prop_assert_eq!(first_attention(&s), naive);
        }
    }
}
