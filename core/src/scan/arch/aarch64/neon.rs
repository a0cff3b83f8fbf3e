//! NEON (Advanced SIMD, in every AArch64 CPU): the generic kernels' [`Vector`] as
//! four 128-bit registers.

use core::arch::aarch64::{
    uint8x16_t, vandq_u8, vbslq_u8, vceqq_u8, vcgeq_u8, vcleq_u8, vcltzq_s8, vdupq_n_u8,
    vgetq_lane_u64, vld1q_u8, vmaxvq_u8, vorrq_u8, vpaddq_u8, vqtbl1q_u8, vreinterpretq_s8_u8,
    vreinterpretq_u64_u8, vshrq_n_u8, vtstq_u8,
};

use crate::scan::finder::Finder;
use crate::scan::generic::{blocks, escapes, vector::Vector};

/// Proof that the CPU runs NEON. AArch64 makes it part of the base ISA, and this
/// module is compiled only where the target enables it, so [`neon`] always finds it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Neon(());

/// NEON, on every target this module is compiled for.
pub(in crate::scan) const fn neon() -> Option<Neon> {
    Some(Neon(()))
}

/// 64 bytes in four NEON registers.
#[derive(Clone, Copy)]
pub(in crate::scan) struct V([uint8x16_t; 4]);

impl V {
    #[inline(always)]
    fn map(self, f: impl Fn(uint8x16_t) -> uint8x16_t) -> V {
        let [a, b, c, d] = self.0;
        V([f(a), f(b), f(c), f(d)])
    }

    #[inline(always)]
    fn zip(self, other: V, f: impl Fn(uint8x16_t, uint8x16_t) -> uint8x16_t) -> V {
        let ([a, b, c, d], [e, g, h, i]) = (self.0, other.0);
        V([f(a, e), f(b, g), f(c, h), f(d, i)])
    }
}

impl Vector for V {
    #[inline(always)]
    fn load(bytes: &[u8; 64]) -> V {
        let p = bytes.as_ptr();
        // SAFETY: `bytes` is 64 readable bytes; each load reads 16 of them at
        // offsets 0, 16, 32 and 48, and `vld1q_u8` has no alignment requirement;
        // NEON is enabled for the target.
        unsafe {
            V([
                vld1q_u8(p),
                vld1q_u8(p.add(16)),
                vld1q_u8(p.add(32)),
                vld1q_u8(p.add(48)),
            ])
        }
    }
    #[inline(always)]
    fn splat(b: u8) -> V {
        // SAFETY: NEON is enabled for the target (this module is compiled only
        // then), so its intrinsics are sound to call.
        unsafe {
            let v = vdupq_n_u8(b);
            V([v; 4])
        }
    }
    #[inline(always)]
    fn table(t: [u8; 16]) -> V {
        // SAFETY: `t` is 16 readable bytes, and NEON is enabled for the target.
        let v = unsafe { vld1q_u8(t.as_ptr()) };
        V([v; 4])
    }
    #[inline(always)]
    fn eq(self, other: V) -> V {
        // SAFETY: NEON is enabled for the target (this module is compiled only
        // then), so its intrinsics are sound to call.
        unsafe { self.zip(other, |a, b| vceqq_u8(a, b)) }
    }
    #[inline(always)]
    fn within(self, lo: u8, hi: u8) -> V {
        // SAFETY: NEON is enabled for the target (this module is compiled only
        // then), so its intrinsics are sound to call.
        unsafe {
            let (lo, hi) = (vdupq_n_u8(lo), vdupq_n_u8(hi));
            self.map(|a| vandq_u8(vcgeq_u8(a, lo), vcleq_u8(a, hi)))
        }
    }
    #[inline(always)]
    fn test(self, bits: V) -> V {
        // SAFETY: NEON is enabled for the target (this module is compiled only
        // then), so its intrinsics are sound to call.
        unsafe { self.zip(bits, |a, b| vtstq_u8(a, b)) }
    }
    #[inline(always)]
    fn high_bit(self) -> V {
        // SAFETY: NEON is enabled for the target (this module is compiled only
        // then), so its intrinsics are sound to call.
        unsafe { self.map(|a| vcltzq_s8(vreinterpretq_s8_u8(a))) }
    }
    #[inline(always)]
    fn and(self, other: V) -> V {
        // SAFETY: NEON is enabled for the target (this module is compiled only
        // then), so its intrinsics are sound to call.
        unsafe { self.zip(other, |a, b| vandq_u8(a, b)) }
    }
    #[inline(always)]
    fn or(self, other: V) -> V {
        // SAFETY: NEON is enabled for the target (this module is compiled only
        // then), so its intrinsics are sound to call.
        unsafe { self.zip(other, |a, b| vorrq_u8(a, b)) }
    }
    #[inline(always)]
    fn high_nibble(self) -> V {
        // SAFETY: NEON is enabled for the target (this module is compiled only
        // then), so its intrinsics are sound to call.
        unsafe { self.map(|a| vshrq_n_u8::<4>(a)) }
    }
    #[inline(always)]
    fn lookup(self, idx: V) -> V {
        // SAFETY: NEON is enabled for the target (this module is compiled only
        // then), so its intrinsics are sound to call.
        unsafe {
            // `tbl` answers 0 for an index of 16 and up; every index here is below.
            self.zip(idx, |t, i| vqtbl1q_u8(t, i))
        }
    }
    #[inline(always)]
    fn select(self, yes: V, no: V) -> V {
        // SAFETY: NEON is enabled for the target (this module is compiled only
        // then), so its intrinsics are sound to call.
        unsafe {
            let ([m0, m1, m2, m3], [y0, y1, y2, y3], [n0, n1, n2, n3]) = (self.0, yes.0, no.0);
            V([
                vbslq_u8(m0, y0, n0),
                vbslq_u8(m1, y1, n1),
                vbslq_u8(m2, y2, n2),
                vbslq_u8(m3, y3, n3),
            ])
        }
    }
    #[inline(always)]
    fn movemask(self) -> u64 {
        // SAFETY: NEON is enabled for the target (this module is compiled only
        // then), so its intrinsics are sound to call.
        unsafe {
            // Each byte keeps its bit within its group of eight (1, 2, 4, … 128), then
            // three rounds of pairwise adds sum each group into one byte: 64 masks
            // become the 8 bytes of the low lane, byte `k` for bytes 8k..8k+8.
            let weights = vld1q_bits();
            let [a, b, c, d] = self.and(V([weights; 4])).0;
            let ab = vpaddq_u8(a, b);
            let cd = vpaddq_u8(c, d);
            let abcd = vpaddq_u8(ab, cd);
            let sum = vpaddq_u8(abcd, abcd);
            vgetq_lane_u64::<0>(vreinterpretq_u64_u8(sum))
        }
    }
    #[inline(always)]
    fn any(self) -> bool {
        // SAFETY: NEON is enabled for the target (this module is compiled only
        // then), so its intrinsics are sound to call.
        unsafe {
            let [a, b, c, d] = self.0;
            vmaxvq_u8(vorrq_u8(vorrq_u8(a, b), vorrq_u8(c, d))) != 0
        }
    }
}

/// 1, 2, 4, … 128 in each half: the weight of each byte's bit in [`V::movemask`].
#[inline(always)]
fn vld1q_bits() -> uint8x16_t {
    const BITS: [u8; 16] = [1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128];
    // SAFETY: `BITS` is 16 readable bytes, and NEON is enabled for the target.
    unsafe { vld1q_u8(BITS.as_ptr()) }
}

/// The first 64-byte block of the first `whole` bytes of `data` with a candidate of
/// `f` (the generic block scan on NEON). For a refined finder `data` holds two more
/// bytes after the blocks.
#[inline]
pub(in crate::scan) fn blocks(
    data: &[u8],
    whole: usize,
    f: &Finder,
    _cpu: Neon,
) -> Option<(usize, u64)> {
    let tables = blocks::Tables {
        lo: f.lo,
        hi: f.hi,
        refined: f.refined.then_some(f.refinement),
    };
    blocks::blocks::<V>(data, whole, tables)
}

/// Step 1's next stop at or after `from` (the generic escape finder on NEON).
#[inline]
pub(in crate::scan) fn next_escape(bytes: &[u8], from: usize, _cpu: Neon) -> Option<usize> {
    escapes::next_escape::<V>(bytes, from)
        .map_or_else(|p| crate::scan::escapes::next_escape_swar(bytes, p), Some)
}
