//! The strict profile's dense blocks (`strict/dense.rs`): which bytes of a 64-byte
//! block are ASCII, keycap bases, leads of members of D, bytes of kept inert
//! code points, continuation bytes — as masks — and the packing of the kept ones.
//!
//! The masks come from UTF-8 patterns the strict profile builds at compile time
//! from D's generated ranges and the inert ranges and passes down as a type
//! ([`DenseSets`]: `strict::class::StrictSets`), compared as immediates on x86
//! (`strict_dense_x86.rs`, the approach of the reference's dense-drop kernels with
//! strict's own table). What the masks mean (which bytes go, where a block
//! stops, the Keeper's state after it) is decided once, in `strict/dense.rs`, for
//! every backend. Without SIMD there is no kernel and the scalar gathering runs.

// Without the x86 kernels (`portable-only`, other targets) `StrictKernel` has no
// value.
#![cfg_attr(
    not(all(target_arch = "x86_64", not(feature = "portable-only"))),
    allow(dead_code, unused_variables)
)]

use super::backend::Backend;
use super::strict_patterns::{DenseSets, StrictMasks, check_sets};

/// A SIMD kernel for the strict dense blocks, holding the proof that the CPU runs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum StrictKernel {
    /// 64-byte compares into masks, `vpcompressb` (AVX-512 BW and VBMI2).
    #[cfg(all(target_arch = "x86_64", not(feature = "portable-only")))]
    Avx512(super::x86::Vbmi2),
    /// Two 32-byte halves, movemasks, `pext` per 8-byte word (AVX2 and BMI2).
    #[cfg(all(target_arch = "x86_64", not(feature = "portable-only")))]
    Avx2(super::x86::Bmi2),
}

impl StrictKernel {
    /// The kernel of `backend`'s dense-drop compactor; `None` for the portable one
    /// (the scalar gathering is the portable path).
    #[inline]
    pub(crate) fn of(backend: Backend) -> Option<StrictKernel> {
        match backend.drops {
            #[cfg(all(target_arch = "x86_64", not(feature = "portable-only")))]
            super::backend::Compactor::Simd(super::x86::SimdCompactor::Avx512(cpu)) => {
                Some(StrictKernel::Avx512(cpu))
            }
            #[cfg(all(target_arch = "x86_64", not(feature = "portable-only")))]
            super::backend::Compactor::Simd(super::x86::SimdCompactor::Bmi2(cpu)) => {
                Some(StrictKernel::Avx2(cpu))
            }
            super::backend::Compactor::Portable => None,
        }
    }

    /// The masks of the block `text[..64]` (zeros past the end of `text`) for the
    /// sets `S`; the controls' mask only with `CTRL` (strict strip keeps them).
    #[inline(always)]
    pub(crate) fn masks<S: DenseSets, const CTRL: bool>(self, w: &[u8]) -> StrictMasks {
        const { check_sets::<S>() };
        match self {
            #[cfg(all(target_arch = "x86_64", not(feature = "portable-only")))]
            StrictKernel::Avx512(cpu) => super::strict_dense_x86::masks512::<S, CTRL>(w, cpu),
            #[cfg(all(target_arch = "x86_64", not(feature = "portable-only")))]
            StrictKernel::Avx2(cpu) => super::strict_dense_x86::masks256::<S, CTRL>(w, cpu),
        }
    }

    /// Writes the bytes of `w[..64]` whose bit is set in `keep` (all within `w`) to
    /// the start of `out`, in order, and returns how many; nothing when `out` is
    /// shorter.
    #[inline(always)]
    pub(crate) fn compact(self, w: &[u8], keep: u64, out: &mut [u8]) -> usize {
        match self {
            #[cfg(all(target_arch = "x86_64", not(feature = "portable-only")))]
            StrictKernel::Avx512(cpu) => super::strict_dense_x86::compress512(w, keep, out, cpu),
            #[cfg(all(target_arch = "x86_64", not(feature = "portable-only")))]
            StrictKernel::Avx2(cpu) => super::strict_dense_x86::compress_pext(w, keep, out, cpu),
        }
    }

    /// Every kernel this CPU runs (for tests).
    #[cfg(test)]
    pub(crate) fn available() -> std::vec::Vec<StrictKernel> {
        let mut all = std::vec::Vec::new();
        for backend in Backend::all() {
            if let Some(k) = StrictKernel::of(backend)
                && !all.contains(&k)
            {
                all.push(k);
            }
        }
        all
    }
}

/// The masks a kernel computes, a code point at a time (the tests' reference), the
/// controls' mask included.
#[cfg(test)]
pub(crate) fn reference_masks(text: &[u8]) -> StrictMasks {
    use super::strict_patterns::WINDOW;
    use crate::strict::class::{in_drop_set_cp, is_inert, is_keycap_base};
    let mut w = [0u8; WINDOW];
    for (d, &s) in w.iter_mut().zip(text) {
        *d = s;
    }
    let mut m = StrictMasks {
        ascii: 0,
        keycap: 0,
        drop_lead: 0,
        inert: 0,
        cont: 0,
        ctrl: 0,
    };
    for (i, &b) in w.iter().take(64).enumerate() {
        let bit = 1u64 << i;
        if b < 0x80 {
            m.ascii |= bit;
            if (b < 0x20 && b != b'\t' && b != b'\n') || b == 0x7F {
                m.ctrl |= bit;
            }
            if is_keycap_base(u32::from(b)) {
                m.keycap |= bit;
            }
            continue;
        }
        if b < 0xC0 {
            m.cont |= bit;
            continue;
        }
        // A lead: decode what the window holds of it (a code point cut by the
        // window's end is neither).
        let Some(c) = w
            .get(i..)
            .and_then(|s| s.utf8_chunks().next())
            .and_then(|c| c.valid().chars().next())
        else {
            continue;
        };
        let cp = u32::from(c);
        if (0x80..0xA0).contains(&cp) {
            for k in i..(i + c.len_utf8()).min(64) {
                m.ctrl |= 1 << k;
            }
        }
        if in_drop_set_cp(cp) {
            m.drop_lead |= bit;
        } else if is_inert(cp) {
            for k in i..(i + c.len_utf8()).min(64) {
                m.inert |= 1 << k;
            }
        }
    }
    m
}

#[cfg(test)]
mod tests {
    use super::super::strict_patterns::WINDOW;
    use super::*;
    // The sets the strict profile passes down, and its scalar tests as the reference:
    // what the kernels must compute for them.
    use crate::strict::class::StrictSets;

    /// Deterministic windows of code points from a pool that has every kind of byte.
    fn windows() -> std::vec::Vec<[u8; WINDOW]> {
        const POOL: &[char] = &[
            'a',
            '#',
            '*',
            '0',
            '9',
            ' ',
            '\u{1}',
            '\t',
            '\n',
            '\u{1F}',
            '\u{7F}',
            '\u{80}',
            '\u{85}',
            '\u{9F}',
            '\u{A0}',
            '\u{A8}',
            '\u{A9}',
            '\u{AD}',
            '\u{34F}',
            '\u{61C}',
            '\u{E9}',
            '\u{115F}',
            '\u{1160}',
            '\u{17B4}',
            '\u{180E}',
            '\u{200B}',
            '\u{200C}',
            '\u{200D}',
            '\u{200F}',
            '\u{2010}',
            '\u{2027}',
            '\u{2028}',
            '\u{202A}',
            '\u{202E}',
            '\u{2060}',
            '\u{206F}',
            '\u{3164}',
            '\u{4E2D}',
            '\u{FE00}',
            '\u{FE0F}',
            '\u{FEFF}',
            '\u{FFA0}',
            '\u{FFF8}',
            '\u{FFF9}',
            '\u{1BCA0}',
            '\u{1D173}',
            '\u{1F600}',
            '\u{E0000}',
            '\u{E0041}',
            '\u{E007F}',
            '\u{E0100}',
            '\u{E0FFF}',
            '\u{E1000}',
        ];
        let mut out = std::vec::Vec::new();
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..4000 {
            let mut s = std::string::String::new();
            while s.len() < WINDOW + 4 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                s.push(POOL[(x >> 20) as usize % POOL.len()]);
            }
            // Every offset, continuation bytes included.
            let skip = (x >> 40) as usize % 4;
            let mut w = [0u8; WINDOW];
            w.copy_from_slice(&s.as_bytes()[skip..skip + WINDOW]);
            out.push(w);
        }
        out
    }

    #[test]
    fn every_kernel_computes_the_reference_masks() {
        for kernel in StrictKernel::available() {
            for (k, w) in windows().iter().enumerate() {
                // The whole window, and cut short on a code-point boundary (the
                // text is whole code points; zeros after it).
                let cuts = [
                    WINDOW,
                    67,
                    65,
                    64,
                    63,
                    40,
                    33,
                    32,
                    31,
                    17,
                    8,
                    3,
                    1,
                    k % WINDOW,
                ];
                for n in cuts {
                    if n < WINDOW && (0x80..0xC0).contains(&w[n]) {
                        continue;
                    }
                    // An allocation of exactly the text, so a load past its end
                    // is an AddressSanitizer report, not a read of the window.
                    let exact: std::boxed::Box<[u8]> = w[..n].into();
                    let text = &*exact;
                    let want = reference_masks(text);
                    assert_eq!(
                        kernel.masks::<StrictSets, true>(text),
                        want,
                        "{kernel:?} {text:X?}"
                    );
                    let want = StrictMasks { ctrl: 0, ..want };
                    assert_eq!(
                        kernel.masks::<StrictSets, false>(text),
                        want,
                        "{kernel:?} {text:X?}"
                    );
                }
            }
        }
    }

    #[test]
    fn every_kernel_packs_the_kept_bytes() {
        let mut x = 1u64;
        for kernel in StrictKernel::available() {
            for w in windows() {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let keep = x & x.rotate_left(17);
                let want: std::vec::Vec<u8> = (0..64)
                    .filter(|&i| keep >> i & 1 == 1)
                    .map(|i| w[i])
                    .collect();
                // Room for exactly the kept bytes, and more.
                for extra in [0usize, 7, 64] {
                    let mut out = std::vec![0xEEu8; want.len() + extra];
                    let n = kernel.compact(&w, keep, &mut out);
                    assert_eq!(n, want.len(), "{kernel:?}");
                    assert_eq!(&out[..n], &want[..], "{kernel:?}");
                }
                // A text ending after the last kept byte.
                let end = 64 - keep.leading_zeros() as usize;
                let mut out = std::vec![0xEEu8; want.len()];
                let exact: std::boxed::Box<[u8]> = w[..end].into();
                let n = kernel.compact(&exact, keep, &mut out);
                assert_eq!(&out[..n], &want[..], "{kernel:?} short");
            }
        }
    }
}
