//! The block scan with AVX-512 BW and VBMI (issue 17): one 64-byte vector a block,
//! its candidate mask straight from a mask register. Set membership as in the AVX2
//! scan (`x86::avx2_blocks`): exact, by nibble tables ("truffle"); for a refined
//! finder the lead refinement by the byte tables of `pairs.rs` (three byte
//! permutes, exact per byte), computed for every block without a branch.
//!
//! And the fused pass ([`validate_find`]): UTF-8 validation (`x86_utf8`'s block
//! test) and the block scan over the same loads, recording the blocks with
//! candidates for a [`Recorded`] scanner, so a chunk of the strip stream is read
//! once, not once by the validator and again by the scan.

use core::arch::x86_64::{
    __m512i, _mm512_and_si512, _mm512_broadcast_i32x4, _mm512_loadu_si512, _mm512_movepi8_mask,
    _mm512_movm_epi8, _mm512_or_si512, _mm512_permutex2var_epi8, _mm512_permutexvar_epi8,
    _mm512_set1_epi8, _mm512_setzero_si512, _mm512_shuffle_epi8, _mm512_srli_epi16,
    _mm512_ternarylogic_epi64, _mm512_test_epi8_mask, _mm512_xor_si512,
};

use super::Finder;
use super::finder::Recorded;
use super::pairs::{ByteHalves, Refinement};
use super::x86::{Vbmi2, table};
use super::x86_utf8::{BEFORE, Tables, block_errors};

/// The first 64-byte block of the first `whole` bytes of `data` with a candidate
/// (as `x86::avx2_blocks`); for a refined finder `data` holds two more bytes after
/// the blocks.
#[inline]
pub(super) fn avx512_blocks(
    data: &[u8],
    whole: usize,
    f: &Finder,
    _cpu: Vbmi2,
) -> Option<(usize, u64)> {
    // SAFETY: the CPU has AVX-512 F, BW and VBMI (a `Vbmi2` exists only once
    // detected).
    unsafe { avx512_blocks_unchecked(data, whole, f) }
}

/// A 16-byte table in every 128-bit lane.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn lanes(t: [u8; 16]) -> __m512i {
    _mm512_broadcast_i32x4(table(t))
}

/// Bit `i` set where lead byte `i` of `v` and the same bytes of `s`, `u` (loaded one
/// and two bytes further) pass the lead refinement's byte tables
/// ([`Refinement::halves`], `groups` of them in use): the lead by its low seven bits,
/// the next two by their low six. Meaningful for non-ASCII bytes of `v` only. A
/// superset of the exact test (`Refinement::may_begin`) on any input: where that
/// test passes, the next bytes are continuation bytes, which their low six bits name
/// exactly (or a two-byte lead's third byte, which its groups accept whatever it is).
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
fn lead_bytes64(
    v: __m512i,
    s: __m512i,
    u: __m512i,
    halves: &[HalfTables; 2],
    groups: usize,
) -> u64 {
    let lookups = |h: &HalfTables| {
        let lead = _mm512_permutex2var_epi8(h.lead_lo, v, h.lead_hi);
        let second = _mm512_permutexvar_epi8(s, h.second);
        let third = _mm512_permutexvar_epi8(u, h.third);
        // lead & second & third.
        _mm512_ternarylogic_epi64::<0x80>(lead, second, third)
    };
    let [low_groups, high_groups] = halves;
    let mut any = lookups(low_groups);
    if groups > 8 {
        any = _mm512_or_si512(any, lookups(high_groups));
    }
    _mm512_test_epi8_mask(any, any)
}

/// [`avx512_blocks`] without the CPU check.
///
/// # Safety
///
/// * The CPU must support AVX-512 F, BW and VBMI.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
unsafe fn avx512_blocks_unchecked(data: &[u8], whole: usize, f: &Finder) -> Option<(usize, u64)> {
    let lo = lanes(f.lo);
    let hi = lanes(f.hi);
    let bits = lanes([1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128]);
    let halves = half_tables(f.refinement);
    let groups = f.refinement.groups;
    let ahead = if f.refined { 2 } else { 0 };
    let ascii_members = f.controls || f.eq_len > 0 || f.every;
    // The candidates of the block at `w` (64 bytes, and 2 more for a refined
    // finder); `refine`: the block may hold a non-ASCII byte.
    let block = |w: &[u8], refine: bool| {
        // SAFETY: `w` has at least 64 readable bytes; `loadu` has no alignment
        // requirement.
        let v = unsafe { _mm512_loadu_si512(w.as_ptr().cast()) };
        // Truffle: the low nibble picks a byte of the half table for the byte's
        // top bit (a shuffle index with bit 7 set yields 0), the high nibble a bit.
        let m = _mm512_or_si512(
            _mm512_shuffle_epi8(lo, v),
            _mm512_shuffle_epi8(hi, _mm512_xor_si512(v, _mm512_set1_epi8(i8::MIN))),
        );
        let bit = _mm512_shuffle_epi8(
            bits,
            _mm512_and_si512(_mm512_srli_epi16::<4>(v), _mm512_set1_epi8(0x0F)),
        );
        let mut mask = _mm512_test_epi8_mask(m, bit);
        if refine && w.len() >= 64 + 2 {
            // SAFETY: `w` has 66 readable bytes, so the loads at offsets 1 and 2
            // read 64 bytes each within it.
            let (s, u) = unsafe {
                (
                    _mm512_loadu_si512(w.as_ptr().add(1).cast()),
                    _mm512_loadu_si512(w.as_ptr().add(2).cast()),
                )
            };
            // Keep ASCII members, and non-ASCII ones whose triple passes.
            mask &= !_mm512_movepi8_mask(v) | lead_bytes64(v, s, u, &halves, groups);
        }
        mask
    };
    let mut p = 0usize;
    while p < whole {
        // Four blocks at a time are tested for a non-ASCII byte together, and the
        // refinement runs on each block of a group that has one, without a branch
        // a block: in prose whether a block has a lead byte is a coin toss (a
        // mispredicted branch every other block), whether four blocks have one is
        // almost always yes, and in ASCII text almost always no (issue 17).
        let group_end = p.saturating_add(GROUP);
        if let Some(g) = data.get(p..group_end.saturating_add(ahead))
            && group_end <= whole
        {
            let q = g.as_ptr();
            // SAFETY: `g` holds GROUP readable bytes.
            let any = unsafe {
                let a = _mm512_or_si512(
                    _mm512_loadu_si512(q.cast()),
                    _mm512_loadu_si512(q.add(64).cast()),
                );
                let b = _mm512_or_si512(
                    _mm512_loadu_si512(q.add(128).cast()),
                    _mm512_loadu_si512(q.add(192).cast()),
                );
                _mm512_movepi8_mask(_mm512_or_si512(a, b))
            };
            if any != 0 || ascii_members {
                let refine = f.refined && any != 0;
                for k in 0..4usize {
                    let at = k.wrapping_mul(64);
                    let w = g.get(at..).unwrap_or_default();
                    let mask = block(w, refine);
                    if mask != 0 {
                        return Some((p.saturating_add(at), mask));
                    }
                }
            }
            p = group_end;
            continue;
        }
        let end = p.saturating_add(64);
        let Some(w) = data.get(p..end.saturating_add(ahead)) else {
            break;
        };
        let mask = block(w, f.refined);
        if mask != 0 {
            return Some((p, mask));
        }
        p = end;
    }
    None
}

/// Bytes a fused block reads after its 64: the lead refinement's two.
const AFTER: usize = 2;

/// Blocks whose ASCII test is one branch: mixed prose's blocks are ASCII or not at
/// random (a branch a block mispredicts about every other block, which cost more
/// than the work it skipped), while four blocks together are almost never all
/// ASCII in prose and almost always in ASCII text (a branch that predicts well).
const GROUP: usize = 4 * 64;

/// One half (eight groups) of a refinement's byte tables as byte vectors.
struct HalfTables {
    lead_lo: __m512i,
    lead_hi: __m512i,
    second: __m512i,
    third: __m512i,
}

/// The finder's and the refinement's vectors for the fused pass.
struct ScanTables {
    lo: __m512i,
    hi: __m512i,
    bits: __m512i,
    halves: [HalfTables; 2],
    groups: usize,
}

/// 64 table bytes as a vector.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn vector(t: &[u8; 64]) -> __m512i {
    // SAFETY: `t` holds 64 readable bytes; `loadu` has no alignment requirement.
    unsafe { _mm512_loadu_si512(t.as_ptr().cast()) }
}

/// Both halves (groups 0–7, 8–15) of `r`'s byte tables as vectors.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn half_tables(r: &Refinement) -> [HalfTables; 2] {
    let ByteHalves {
        lead: [[l0, h0], [l1, h1]],
        second: [s0, s1],
        third: [t0, t1],
    } = &r.halves;
    [
        HalfTables {
            lead_lo: vector(l0),
            lead_hi: vector(h0),
            second: vector(s0),
            third: vector(t0),
        },
        HalfTables {
            lead_lo: vector(l1),
            lead_hi: vector(h1),
            second: vector(s1),
            third: vector(t1),
        },
    ]
}

/// What one block of the fused pass found.
struct Fused {
    /// Validation error bits (zero: the block's byte pairs are valid).
    errors: __m512i,
    /// Candidate bits (a subset of what [`avx512_blocks`] reports, a superset of
    /// what the scanner's exact test confirms).
    candidates: u64,
    /// Bit `i` set where byte `i` is not ASCII.
    non_ascii: u64,
}

/// Validates `bytes` as UTF-8 and, in the same pass over each 64-byte block (one
/// load shared), records the blocks with `f`'s candidates in `rec` (issue 17: the
/// CLI's strip validated a chunk, then scanned it again). Blocks start at offset 0;
/// a lead byte is a candidate when it is in `f`'s set and it and the two bytes after
/// it pass the byte tables of its refinement (exact per byte, so
/// the em dash, quotes and the ellipsis do not stop the scan); bits past the end
/// are cleared. When the list fills, recording stops there
/// ([`Recorded::covered`]) and the rest is only validated. Returns whether `bytes`
/// is UTF-8 (the same answer as `x86_utf8::is_utf8`); on invalid input `rec` says
/// nothing (the refinement assumed valid input).
#[inline]
pub(super) fn validate_find(bytes: &[u8], f: &Finder, rec: &mut Recorded, _cpu: Vbmi2) -> bool {
    // SAFETY: the CPU has AVX-512 F, BW and VBMI (a `Vbmi2` exists only once
    // detected).
    unsafe { validate_find_unchecked(bytes, f, rec) }
}

/// `bytes` as text when [`validate_find`] accepts it.
#[inline]
pub(super) fn validate_find_str<'t>(
    bytes: &'t [u8],
    f: &Finder,
    rec: &mut Recorded,
    cpu: Vbmi2,
) -> Option<&'t str> {
    if validate_find(bytes, f, rec, cpu) {
        // SAFETY: `validate_find` accepts exactly the UTF-8 inputs: its validation is
        // `x86_utf8`'s block test over the same blocks (the tests compare it with
        // `core::str::from_utf8` on every short sequence, at every block position,
        // and on random inputs).
        Some(unsafe { core::str::from_utf8_unchecked(bytes) })
    } else {
        rec.len = 0;
        rec.covered = 0;
        None
    }
}

/// One block of the fused pass, the 64 bytes at `p`, without a branch.
///
/// # Safety
///
/// * The CPU must support AVX-512 F, BW and VBMI.
/// * `p.sub(BEFORE)` to `p.add(64 + AFTER)` must be readable.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
unsafe fn fused_block<const LEADS_ONLY: bool>(p: *const u8, t: &Tables, st: &ScanTables) -> Fused {
    // SAFETY: `p - 3` to `p + 66` is readable (the caller's contract); `loadu` has
    // no alignment requirement.
    let (v, s, u, errors) = unsafe {
        (
            _mm512_loadu_si512(p.cast()),
            _mm512_loadu_si512(p.add(1).cast()),
            _mm512_loadu_si512(p.add(2).cast()),
            block_errors(p, t),
        )
    };
    let non_ascii = _mm512_movepi8_mask(v);
    let leads = lead_bytes64(v, s, u, &st.halves, st.groups);
    if LEADS_ONLY {
        // The lead tables hold only the set's lead bytes: no membership test.
        return Fused {
            errors,
            candidates: non_ascii & leads,
            non_ascii,
        };
    }
    // Truffle, as in `avx512_blocks_unchecked`.
    let m = _mm512_or_si512(
        _mm512_shuffle_epi8(st.lo, v),
        _mm512_shuffle_epi8(st.hi, _mm512_xor_si512(v, _mm512_set1_epi8(i8::MIN))),
    );
    let bit = _mm512_shuffle_epi8(
        st.bits,
        _mm512_and_si512(_mm512_srli_epi16::<4>(v), _mm512_set1_epi8(0x0F)),
    );
    let members = _mm512_test_epi8_mask(m, bit);
    Fused {
        errors,
        // ASCII members as they are; non-ASCII ones where the refinement passes.
        candidates: members & (!non_ascii | leads),
        non_ascii,
    }
}

/// [`validate_find`] without the CPU check.
///
/// # Safety
///
/// * The CPU must support AVX-512 F, BW and VBMI.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
unsafe fn validate_find_unchecked(bytes: &[u8], f: &Finder, rec: &mut Recorded) -> bool {
    // A finder with ASCII members (or non-ASCII ones that are not all attention lead
    // bytes) tests membership by truffle and looks at every block; strip's set is
    // lead bytes only: its lead tables are masked to the set, ASCII groups skipped.
    if !(f.controls || f.eq_len > 0 || f.every) && f.refined {
        let mut st = scan_tables(f);
        let set = |word: usize| _mm512_movm_epi8(f.set.0.get(word).copied().unwrap_or(0));
        for h in &mut st.halves {
            h.lead_lo = _mm512_and_si512(h.lead_lo, set(2));
            h.lead_hi = _mm512_and_si512(h.lead_hi, set(3));
        }
        // SAFETY: the caller's contract.
        unsafe { validate_find_with::<true>(bytes, rec, &st) }
    } else {
        // SAFETY: the caller's contract.
        unsafe { validate_find_with::<false>(bytes, rec, &scan_tables(f)) }
    }
}

/// The fused pass's vectors for `f`.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn scan_tables(f: &Finder) -> ScanTables {
    ScanTables {
        lo: lanes(f.lo),
        hi: lanes(f.hi),
        bits: lanes([1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128]),
        halves: half_tables(f.refinement),
        groups: f.refinement.groups,
    }
}

/// [`validate_find_unchecked`] with its tables; `LEADS_ONLY`: the finder's set is
/// lead bytes, and `st`'s lead tables hold only its own.
///
/// # Safety
///
/// * The CPU must support AVX-512 F, BW and VBMI.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
unsafe fn validate_find_with<const LEADS_ONLY: bool>(
    bytes: &[u8],
    rec: &mut Recorded,
    st: &ScanTables,
) -> bool {
    let t = Tables::load();
    let skip_ascii = LEADS_ONLY;
    let len = bytes.len();
    rec.len = 0;
    rec.covered = 0;
    let mut err = _mm512_setzero_si512();
    let mut scan = true;
    let record = |rec: &mut Recorded, scan: &mut bool, base: usize, mask: u64| {
        if *scan && mask != 0 && !rec.push(base, mask) {
            // Full: the list covers the text before this block.
            *scan = false;
            rec.covered = base;
        }
    };
    // The first block, and the blocks too close to the end to be read in place, go
    // through a copy padded with zeros (ASCII): before the start, and after the end,
    // where an incomplete sequence then fails like one followed by ASCII.
    let padded = |at: usize| {
        let mut pad = [0u8; BEFORE + 64 + AFTER];
        let from = at.saturating_sub(BEFORE);
        let skip = BEFORE.saturating_sub(at);
        let src = bytes
            .get(from..len.min(at.saturating_add(64 + AFTER)))
            .unwrap_or_default();
        for (d, &b) in pad.iter_mut().skip(skip).zip(src) {
            *d = b;
        }
        // SAFETY: `pad` holds BEFORE bytes before offset BEFORE and 64 + AFTER from
        // it; AVX-512 BW and VBMI are enabled here.
        let mut block = unsafe { fused_block::<LEADS_ONLY>(pad.as_ptr().add(BEFORE), &t, st) };
        let n = len.saturating_sub(at);
        if n < 64 {
            // n < 64, so the shift is in range.
            block.candidates &= (1u64 << n).wrapping_sub(1);
        }
        block
    };
    let first = padded(0);
    err = _mm512_or_si512(err, first.errors);
    record(rec, &mut scan, 0, first.candidates);
    // Whether the block before held a non-ASCII byte (a sequence it began may
    // continue into the next block).
    let mut open = first.non_ascii != 0;
    let mut p = 64usize;
    while let Some(w) = bytes.get(p..p.saturating_add(GROUP + AFTER)) {
        if skip_ascii && !open {
            // SAFETY: `w` holds GROUP (four blocks) readable bytes.
            let any = unsafe {
                let q = w.as_ptr();
                let a = _mm512_or_si512(
                    _mm512_loadu_si512(q.cast()),
                    _mm512_loadu_si512(q.add(64).cast()),
                );
                let b = _mm512_or_si512(
                    _mm512_loadu_si512(q.add(128).cast()),
                    _mm512_loadu_si512(q.add(192).cast()),
                );
                _mm512_movepi8_mask(_mm512_or_si512(a, b))
            };
            if any == 0 {
                // Four ASCII blocks after an ASCII one: valid, and no candidate.
                p = p.saturating_add(GROUP);
                continue;
            }
        }
        for k in 0..4usize {
            let at = k.wrapping_mul(64);
            // SAFETY: `p >= 64`, so the 3 bytes before `w` are in `bytes`, and `w`
            // holds GROUP + 2 bytes: block `k` and the 2 after it.
            let block = unsafe { fused_block::<LEADS_ONLY>(w.as_ptr().add(at), &t, st) };
            err = _mm512_or_si512(err, block.errors);
            record(rec, &mut scan, p.saturating_add(at), block.candidates);
            open = block.non_ascii != 0;
        }
        p = p.saturating_add(GROUP);
        // Every 4 KiB (p is 64 past a multiple of GROUP), invalid input stops early.
        if p & 4095 == 64 && _mm512_test_epi8_mask(err, err) != 0 {
            return false;
        }
    }
    // The last blocks (possibly an empty one, to test that the input does not end
    // inside a sequence), padded.
    while p <= len {
        let block = padded(p);
        err = _mm512_or_si512(err, block.errors);
        record(rec, &mut scan, p, block.candidates);
        p = p.saturating_add(64);
    }
    if scan {
        rec.covered = len;
    }
    _mm512_test_epi8_mask(err, err) == 0
}

#[cfg(test)]
mod tests {
    use super::super::byteset::ByteSet;
    use super::super::finder::{ATTENTION, Recorded};
    use super::super::scanner::Scanner;
    use super::super::{Backend, x86};
    use super::*;
    use std::vec::Vec;

    /// Strip's set (lead bytes only: the fused pass skips ASCII groups).
    static LEADS_ONLY: Finder = Finder::new(
        ByteSet::EMPTY
            .with(0xC2)
            .with(0xE1)
            .with(0xE2)
            .with(0xE3)
            .with(0xEF)
            .with(0xF3),
    )
    .refined();

    fn backend() -> Option<Backend> {
        Backend::named("avx512")
    }

    /// Every position the scanner reports (each confirmed), from the start.
    fn stops(text: &[u8], scanner: &mut Scanner<'_>) -> Vec<usize> {
        let mut out = Vec::new();
        let mut at = 0;
        loop {
            at = scanner.next(text, at, |_, _| true);
            if at >= text.len() {
                return out;
            }
            out.push(at);
            at += 1;
        }
    }

    fn agrees(text: &str, f: &Finder) {
        let (Some(b), Some(cpu)) = (backend(), x86::vbmi2()) else {
            return;
        };
        // An allocation of exactly the text (no capacity after it), so a read past
        // the end is an AddressSanitizer report, not a read of slack.
        let exact: std::boxed::Box<str> = text.into();
        let text = &*exact;
        let mut rec = Recorded::new();
        assert!(validate_find(text.as_bytes(), f, &mut rec, cpu));
        let plain = stops(text.as_bytes(), &mut Scanner::new(f, b));
        let mut scanner = Scanner::with_recorded(f, b, &rec);
        let fused = stops(text.as_bytes(), &mut scanner);
        assert_eq!(fused, plain, "{text:?}");
        // The same scanner walked back: each stop is found again from itself.
        for &at in plain.iter().rev() {
            assert_eq!(scanner.next(text.as_bytes(), at, |_, _| true), at);
        }
    }

    #[test]
    fn recorded_stops_are_the_scanners_at_every_length_and_offset() {
        let pieces = [
            "a",
            "—",
            "’",
            "…",
            "€",
            "é",
            "中",
            "😀",
            "\u{200B}",
            "\u{FE0F}",
            "\u{FE0E}",
            "❤\u{FE0F}",
            "\u{AD}",
            "\u{85}",
            "\u{1B}",
            "\u{E0041}",
            "\u{3164}",
            "\u{180E}",
            "\u{2066}",
            "\u{FEFF}",
            "\u{E0100}",
            "\n",
        ];
        for (i, p) in pieces.iter().enumerate() {
            for len in 0..200usize {
                for at in [0, 1, 2, 3, 60, 61, 62, 63, 64, 65, 127, 128, 190] {
                    if at > len {
                        continue;
                    }
                    let mut t = "x".repeat(at);
                    t.push_str(p);
                    t.push_str(&"y".repeat(len - at));
                    agrees(&t, &LEADS_ONLY);
                    if i % 4 == 0 {
                        agrees(&t, &ATTENTION);
                    }
                }
            }
        }
    }

    #[test]
    fn a_full_list_hands_over_to_the_block_scan() {
        // A stop every 40 bytes: more blocks with stops than the list holds.
        let text = "prose — with a keycap 1\u{FE0F} and \u{200B}. ".repeat(2000);
        agrees(&text, &LEADS_ONLY);
        agrees(&text, &ATTENTION);
        let Some(cpu) = x86::vbmi2() else { return };
        let mut rec = Recorded::new();
        assert!(validate_find(text.as_bytes(), &LEADS_ONLY, &mut rec, cpu));
        assert!(rec.covered < text.len());
    }

    #[test]
    fn a_list_filled_exactly_or_by_one_block_more() {
        use super::super::finder::RECORDED_BLOCKS;
        let Some(cpu) = x86::vbmi2() else { return };
        for blocks in [RECORDED_BLOCKS - 1, RECORDED_BLOCKS, RECORDED_BLOCKS + 1] {
            // A stop in each block, at its start or across its end, then text to a
            // block's end, past it by one, or by a partial group.
            for at in [0usize, 1, 61, 62, 63] {
                for tail in [0usize, 1, 2, 3, 63, 64, 65, 200] {
                    // A ZWSP at `at` of each block (period 64).
                    let mut t = "x".repeat(at);
                    for _ in 0..blocks {
                        t.push('\u{200B}');
                        t.push_str(&"y".repeat(61));
                    }
                    t.push_str(&"z".repeat(tail));
                    agrees(&t, &LEADS_ONLY);
                    let exact: std::boxed::Box<str> = t.as_str().into();
                    let mut rec = Recorded::new();
                    assert!(validate_find(exact.as_bytes(), &LEADS_ONLY, &mut rec, cpu));
                    let at = std::format!("{blocks} blocks, stops at {at}, tail {tail}");
                    assert_eq!(rec.len, blocks.min(RECORDED_BLOCKS), "{at}");
                    if blocks > RECORDED_BLOCKS {
                        // Covered up to the block that did not fit.
                        assert_eq!(rec.covered, RECORDED_BLOCKS * 64, "{at}");
                    } else {
                        assert_eq!(rec.covered, exact.len(), "{at}");
                    }
                }
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn random_texts_stop_where_the_scanner_does(
            parts in proptest::collection::vec(proptest::sample::select(std::vec![
                "a", "bb", " ", "—", "’", "…", "€", "é", "中", "😀", "\u{200B}", "\u{FE0F}",
                "❤", "\u{AD}", "\u{A0}", "\u{85}", "\u{1B}", "\u{E0041}", "\u{E007F}",
                "\u{3164}", "\u{2060}", "\u{202E}", "\u{FE00}", "\u{1160}", "\u{E01EF}",
                "\u{2028}", "\u{FFA0}", "\u{115F}", "°",
            ]), 0..400),
            clean in 0usize..300,
        ) {
            let text = std::format!("{}{}", "x".repeat(clean), parts.concat());
            agrees(&text, &LEADS_ONLY);
            agrees(&text, &ATTENTION);
        }
    }
}
