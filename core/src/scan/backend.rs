//! The capability token: which instruction sets the block scan, the dense drops
//! and the byte helpers use, detected once.

use core::sync::atomic::{AtomicU8, Ordering};

#[cfg(all(
    target_arch = "aarch64",
    target_feature = "neon",
    not(feature = "portable-only")
))]
use super::arch::aarch64::neon;
use super::finder::{Finder, Recorded};
use super::swar::{portable_block, portable_blocks};
#[cfg(all(target_arch = "x86_64", not(feature = "portable-only")))]
use super::x86::{self, SimdCompactor};

/// Which block code computes candidate masks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Blocks {
    /// SWAR over `u64` words; every target.
    Portable,
    /// 16-byte vectors (x86 baseline).
    #[cfg(all(target_arch = "x86_64", not(feature = "portable-only")))]
    Sse2,
    /// 32-byte vectors with exact nibble-table membership.
    #[cfg(all(target_arch = "x86_64", not(feature = "portable-only")))]
    Avx2(x86::Avx2),
    /// 64-byte vectors, the AVX2 tests on mask registers (AVX-512 BW).
    #[cfg(all(target_arch = "x86_64", not(feature = "portable-only")))]
    Avx512(x86::Vbmi2),
    /// 4 × 16-byte NEON vectors, the generic block scan (`scan/generic/blocks.rs`).
    #[cfg(all(
        target_arch = "aarch64",
        target_feature = "neon",
        not(feature = "portable-only")
    ))]
    Neon(neon::Neon),
}

impl Blocks {
    /// Every block backend this CPU runs (for tests).
    #[cfg(test)]
    pub(crate) fn available() -> std::vec::Vec<Blocks> {
        let mut all: std::vec::Vec<Blocks> = Backend::all().map(|b| b.blocks).collect();
        all.dedup();
        all
    }

    /// The first 64-byte block at or after `from` (blocks start at `from`) with a
    /// candidate.
    #[inline]
    pub(super) fn candidates(self, bytes: &[u8], from: usize, f: &Finder) -> Option<Candidates> {
        let rest = bytes.get(from..)?;
        // A refined finder looks two bytes past each block.
        let ahead = if f.refined { 2 } else { 0 };
        let whole = rest.len().saturating_sub(ahead) & !63;
        let blocks = rest.get(..whole).unwrap_or_default();
        let found = match self {
            Blocks::Portable => portable_blocks(blocks, f),
            #[cfg(all(target_arch = "x86_64", not(feature = "portable-only")))]
            Blocks::Sse2 => x86::sse2_blocks(blocks, f),
            #[cfg(all(target_arch = "x86_64", not(feature = "portable-only")))]
            Blocks::Avx2(cpu) => {
                let data = rest.get(..whole.saturating_add(ahead)).unwrap_or_default();
                x86::avx2_blocks(data, whole, f, cpu)
            }
            #[cfg(all(target_arch = "x86_64", not(feature = "portable-only")))]
            Blocks::Avx512(cpu) => {
                let data = rest.get(..whole.saturating_add(ahead)).unwrap_or_default();
                super::x86_scan512::avx512_blocks(data, whole, f, cpu)
            }
            #[cfg(all(
                target_arch = "aarch64",
                target_feature = "neon",
                not(feature = "portable-only")
            ))]
            Blocks::Neon(cpu) => {
                let data = rest.get(..whole.saturating_add(ahead)).unwrap_or_default();
                neon::blocks(data, whole, f, cpu)
            }
        };
        if let Some((offset, mask)) = found {
            return Some(Candidates {
                base: from.saturating_add(offset),
                mask,
            });
        }
        // The rest (under 66 bytes) goes through padded copies with the portable
        // test; bits past its end are masked off.
        let mut base = whole;
        while let Some(tail) = rest.get(base..).filter(|t| !t.is_empty()) {
            let n = tail.len().min(64);
            let mut block = [0u8; 64];
            if let (Some(dst), Some(src)) = (block.get_mut(..n), tail.get(..n)) {
                dst.copy_from_slice(src);
            }
            let mut mask = portable_block(&block, f);
            if n < 64 {
                // n < 64, so the shift is in range.
                mask &= (1u64 << n).wrapping_sub(1);
            }
            if mask != 0 {
                return Some(Candidates {
                    base: from.saturating_add(base),
                    mask,
                });
            }
            base = base.saturating_add(64);
        }
        None
    }
}

/// How a dense drop region packs the bytes it keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Compactor {
    /// SIMD masks and packing.
    #[cfg(all(target_arch = "x86_64", not(feature = "portable-only")))]
    Simd(SimdCompactor),
    /// No SIMD: a code point at a time over the block, classified by tables.
    Portable,
}

impl Compactor {
    /// The name of the compactor, for reports.
    pub(crate) const fn name(self) -> &'static str {
        match self {
            #[cfg(all(target_arch = "x86_64", not(feature = "portable-only")))]
            Compactor::Simd(SimdCompactor::Avx512(_)) => "AVX-512 (vpcompressb)",
            #[cfg(all(target_arch = "x86_64", not(feature = "portable-only")))]
            Compactor::Simd(SimdCompactor::Bmi2(_)) => "AVX2 + BMI2 (pext)",
            Compactor::Portable => "portable (tables)",
        }
    }
}

/// A 64-byte block with candidates: where it starts, and bit `i` for byte `base + i`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Candidates {
    pub(super) base: usize,
    pub(super) mask: u64,
}

/// The instruction sets every fast path of one call uses: a capability token. One
/// exists only for instruction sets the CPU has (the fields are private and filled
/// by detection), so code holding one never asks the CPU again. [`Backend::best`]
/// is detected once and cached; tests, benchmarks and fuzz targets name a backend
/// explicitly with the `*_on` entry points (there is no global switch).
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Backend {
    pub(super) blocks: Blocks,
    pub(super) drops: Compactor,
    /// AVX2 for UTF-8 validation and long copies.
    #[cfg(all(target_arch = "x86_64", not(feature = "portable-only")))]
    pub(super) avx2: Option<x86::Avx2>,
}

impl Default for Backend {
    /// [`Backend::best`].
    fn default() -> Self {
        Backend::best()
    }
}

/// [`Backend::best`]'s index into [`Backend::all`] plus one; 0 before detection.
pub(super) static BEST: AtomicU8 = AtomicU8::new(0);

impl Backend {
    /// SWAR scan, table-driven dense drops, `core`'s UTF-8 validation: what every
    /// target runs.
    pub const PORTABLE: Backend = Backend {
        blocks: Blocks::Portable,
        drops: Compactor::Portable,
        #[cfg(all(target_arch = "x86_64", not(feature = "portable-only")))]
        avx2: None,
    };

    /// Every backend this CPU runs, portable first, best last.
    pub fn all() -> impl Iterator<Item = Backend> {
        #[cfg_attr(
            not(any(
                all(target_arch = "x86_64", not(feature = "portable-only")),
                all(
                    target_arch = "aarch64",
                    target_feature = "neon",
                    not(feature = "portable-only")
                )
            )),
            allow(unused_mut)
        )]
        let mut all = [Some(Backend::PORTABLE), None, None, None];
        #[cfg(all(target_arch = "x86_64", not(feature = "portable-only")))]
        {
            let avx2 = x86::avx2();
            if let Some(slot) = all.get_mut(1) {
                *slot = Some(Backend {
                    blocks: Blocks::Sse2,
                    drops: Compactor::Portable,
                    avx2: None,
                });
            }
            if let (Some(cpu), Some(slot)) = (avx2, all.get_mut(2)) {
                let drops = match x86::bmi2() {
                    Some(bmi2) => Compactor::Simd(SimdCompactor::Bmi2(bmi2)),
                    None => Compactor::Portable,
                };
                *slot = Some(Backend {
                    blocks: Blocks::Avx2(cpu),
                    drops,
                    avx2: Some(cpu),
                });
            }
            if let (Some(cpu), Some(vbmi2), Some(slot)) = (avx2, x86::vbmi2(), all.get_mut(3)) {
                *slot = Some(Backend {
                    blocks: Blocks::Avx512(vbmi2),
                    drops: Compactor::Simd(SimdCompactor::Avx512(vbmi2)),
                    avx2: Some(cpu),
                });
            }
        }
        #[cfg(all(
            target_arch = "aarch64",
            target_feature = "neon",
            not(feature = "portable-only")
        ))]
        if let (Some(cpu), Some(slot)) = (neon::neon(), all.get_mut(1)) {
            *slot = Some(Backend {
                blocks: Blocks::Neon(cpu),
                drops: Compactor::Portable,
            });
        }
        all.into_iter().flatten()
    }

    /// The fastest backend this CPU runs, detected on the first call.
    #[inline]
    pub fn best() -> Backend {
        let cached = BEST.load(Ordering::Relaxed);
        if cached != 0
            && let Some(best) = Backend::all().nth(usize::from(cached).wrapping_sub(1))
        {
            return best;
        }
        Backend::detect()
    }

    #[cold]
    fn detect() -> Backend {
        let mut best = Backend::PORTABLE;
        let mut index = 0usize;
        for (i, backend) in Backend::all().enumerate() {
            best = backend;
            index = i;
        }
        BEST.store(
            u8::try_from(index.saturating_add(1)).unwrap_or(0),
            Ordering::Relaxed,
        );
        best
    }

    /// The backend of this name (`portable`, `sse2`, `avx2`, `avx512`, `neon`) if the CPU
    /// runs it.
    pub fn named(name: &str) -> Option<Backend> {
        Backend::all().find(|b| b.name() == name)
    }

    /// The backend's short name.
    pub const fn name(self) -> &'static str {
        match (self.blocks, self.drops) {
            (Blocks::Portable, _) => "portable",
            #[cfg(all(target_arch = "x86_64", not(feature = "portable-only")))]
            (Blocks::Sse2, _) => "sse2",
            #[cfg(all(target_arch = "x86_64", not(feature = "portable-only")))]
            (Blocks::Avx2(_) | Blocks::Avx512(_), Compactor::Simd(SimdCompactor::Avx512(_))) => {
                "avx512"
            }
            #[cfg(all(target_arch = "x86_64", not(feature = "portable-only")))]
            (Blocks::Avx512(_), _) => "avx512",
            #[cfg(all(target_arch = "x86_64", not(feature = "portable-only")))]
            (Blocks::Avx2(_), _) => "avx2",
            #[cfg(all(
                target_arch = "aarch64",
                target_feature = "neon",
                not(feature = "portable-only")
            ))]
            (Blocks::Neon(_), _) => "neon",
        }
    }

    /// What the block scan runs on, for reports.
    pub const fn scan_name(self) -> &'static str {
        match self.blocks {
            Blocks::Portable => "portable (SWAR)",
            #[cfg(all(target_arch = "x86_64", not(feature = "portable-only")))]
            Blocks::Sse2 => "SSE2",
            #[cfg(all(target_arch = "x86_64", not(feature = "portable-only")))]
            Blocks::Avx2(_) => "AVX2",
            #[cfg(all(target_arch = "x86_64", not(feature = "portable-only")))]
            Blocks::Avx512(_) => "AVX-512",
            #[cfg(all(
                target_arch = "aarch64",
                target_feature = "neon",
                not(feature = "portable-only")
            ))]
            Blocks::Neon(_) => "NEON",
        }
    }

    /// What dense drop regions run on, for reports.
    pub const fn dense_drop_name(self) -> &'static str {
        self.drops.name()
    }

    /// `bytes` as text, validated with SIMD where this backend has it; the error is
    /// `core::str::from_utf8`'s, so offsets are exact.
    #[inline]
    pub(crate) fn to_str(self, bytes: &[u8]) -> Result<&str, core::str::Utf8Error> {
        #[cfg(all(target_arch = "x86_64", not(feature = "portable-only")))]
        if let Compactor::Simd(SimdCompactor::Avx512(cpu)) = self.drops {
            // AVX-512 BW: 64 bytes a step (issue 17), any length.
            return match super::x86_utf8::validate_utf8(bytes, cpu) {
                Some(text) => Ok(text),
                None => core::str::from_utf8(bytes),
            };
        }
        #[cfg(all(target_arch = "x86_64", not(feature = "portable-only")))]
        if bytes.len() >= 64
            && let Some(cpu) = self.avx2
            && let Some(text) = x86::validate_utf8(bytes, cpu)
        {
            return Ok(text);
        }
        core::str::from_utf8(bytes)
    }

    /// `bytes` as text when it is UTF-8 (`None` otherwise), and `rec` filled with
    /// `f`'s candidate blocks of the text's start, found in the same pass where this
    /// backend has one (AVX-512: each block loaded once for both). Elsewhere the text
    /// is validated alone and `rec` covers nothing, so a scanner reading it scans as
    /// before. On invalid input `rec` says nothing.
    #[inline]
    #[cfg_attr(
        not(all(target_arch = "x86_64", not(feature = "portable-only"))),
        allow(unused_variables)
    )]
    pub(crate) fn validate_find<'t>(
        self,
        bytes: &'t [u8],
        f: &Finder,
        rec: &mut Recorded,
    ) -> Option<&'t str> {
        rec.len = 0;
        rec.covered = 0;
        #[cfg(all(target_arch = "x86_64", not(feature = "portable-only")))]
        if let (Blocks::Avx512(cpu), Compactor::Simd(SimdCompactor::Avx512(_))) =
            (self.blocks, self.drops)
        {
            return super::x86_scan512::validate_find_str(bytes, f, rec, cpu);
        }
        self.to_str(bytes).ok()
    }

    /// Copies `src` to the start of `dst`; nothing when `dst` is shorter. Long copies
    /// use vector moves that do not depend on the two buffers' relative alignment.
    #[inline]
    pub(crate) fn copy(self, dst: &mut [u8], src: &[u8]) {
        #[cfg(all(target_arch = "x86_64", not(feature = "portable-only")))]
        if src.len() >= 256
            && let Some(cpu) = self.avx2
            && x86::copy(dst, src, cpu)
        {
            return;
        }
        if let Some(dst) = dst.get_mut(..src.len()) {
            dst.copy_from_slice(src);
        }
    }

    /// Copies `text` to the start of `dst` and returns the copy as text (`None` when
    /// `dst` is shorter), without validating it again.
    #[inline]
    pub(crate) fn copy_str<'o>(self, dst: &'o mut [u8], text: &str) -> Option<&'o str> {
        #[cfg(all(target_arch = "x86_64", not(feature = "portable-only")))]
        {
            x86::copy_str(dst, text, self.avx2)
        }
        #[cfg(not(all(target_arch = "x86_64", not(feature = "portable-only"))))]
        {
            super::portable::copy_str(dst, text)
        }
    }
}

/// Step 1's stops (`escapes.rs`): the first position at or after `from` holding ESC,
/// or 0xC2 followed by a byte in 0x90–0x9F (a superset of step 1's introducers; the
/// caller tells them apart).
/// `None` when there is none. A 0xC2 that is the last byte is not reported (it
/// introduces nothing).
#[inline]
pub(crate) fn next_escape(bytes: &[u8], from: usize, backend: Backend) -> Option<usize> {
    #[cfg(all(target_arch = "x86_64", not(feature = "portable-only")))]
    if let Some(cpu) = backend.avx2 {
        return super::escapes_x86::next_escape_avx2(bytes, from, cpu);
    }
    #[cfg(all(
        target_arch = "aarch64",
        target_feature = "neon",
        not(feature = "portable-only")
    ))]
    if let Blocks::Neon(cpu) = backend.blocks {
        return super::arch::aarch64::neon::next_escape(bytes, from, cpu);
    }
    #[cfg(not(any(
        all(target_arch = "x86_64", not(feature = "portable-only")),
        all(
            target_arch = "aarch64",
            target_feature = "neon",
            not(feature = "portable-only")
        )
    )))]
    let _ = backend;
    super::escapes::next_escape_memchr(bytes, from)
}

/// The scan backend this CPU uses (for benchmark reports).
pub fn backend_name() -> &'static str {
    Backend::best().scan_name()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// On aarch64 every per-backend test runs on NEON too: it is in `all()`, and
    /// the best.
    #[cfg(all(
        target_arch = "aarch64",
        target_feature = "neon",
        not(feature = "portable-only")
    ))]
    #[test]
    fn aarch64_runs_neon() {
        let names: std::vec::Vec<&str> = Backend::all().map(Backend::name).collect();
        assert_eq!(names, ["portable", "neon"]);
        assert_eq!(Backend::best().scan_name(), "NEON");
        assert_eq!(Backend::named("neon").map(Backend::name), Some("neon"));
    }

    #[test]
    fn portable_is_first_and_every_name_round_trips() {
        assert_eq!(Backend::all().next(), Some(Backend::PORTABLE));
        for b in Backend::all() {
            assert_eq!(Backend::named(b.name()), Some(b));
        }
    }
}
