//! The transcoders' 16-unit steps: copy a block as if it were all ASCII and say how
//! many of its leading units really were. The caller keeps that many and handles the
//! next unit on its own, so each step is a fixed-size load and store, with no branch
//! per unit. SSE2 on x86-64 (part of the architecture: no detection needed), plain
//! loops elsewhere.

/// UTF-16LE units to bytes: `dst[k]` is the low byte of unit `k`; returns the number
/// of leading units below U+0080 — with `KEPT`, of leading units that sanitize's
/// step 2 keeps too (U+0020–U+007E, TAB, LF: no control).
#[inline]
pub(super) fn narrow<const KEPT: bool>(src: &[u8; 32], dst: &mut [u8; 16]) -> usize {
    #[cfg(target_arch = "x86_64")]
    {
        x86::narrow::<KEPT>(src, dst)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        portable::narrow::<KEPT>(src, dst)
    }
}

/// Whether an ASCII unit is one step 2 keeps (not a control, or TAB or LF).
#[cfg(any(not(target_arch = "x86_64"), test))]
const fn kept_ascii(u: u16) -> bool {
    matches!(u, 0x20..=0x7E | 0x09 | 0x0A)
}

/// Bytes to UTF-16LE units (each byte zero-extended); returns the number of leading
/// bytes below 0x80.
#[inline]
pub(super) fn widen(src: &[u8; 16], dst: &mut [u8; 32]) -> usize {
    #[cfg(target_arch = "x86_64")]
    {
        x86::widen(src, dst)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        portable::widen(src, dst)
    }
}

/// Copies the bytes; returns the number of leading bytes below 0x80.
#[inline]
pub(super) fn copy(src: &[u8; 16], dst: &mut [u8; 16]) -> usize {
    *dst = *src;
    ascii_prefix(src)
}

/// The number of leading bytes below 0x80.
#[inline]
fn ascii_prefix(src: &[u8; 16]) -> usize {
    let word = u128::from_le_bytes(*src) & 0x8080_8080_8080_8080_8080_8080_8080_8080;
    // The lowest set bit is bit 7 of the first non-ASCII byte.
    (word.trailing_zeros() / 8) as usize
}

#[cfg(any(not(target_arch = "x86_64"), test))]
mod portable {
    pub(super) fn narrow<const KEPT: bool>(src: &[u8; 32], dst: &mut [u8; 16]) -> usize {
        let mut prefix = 16;
        for (k, (d, pair)) in dst.iter_mut().zip(src.chunks_exact(2)).enumerate() {
            let (lo, hi) = (
                pair.first().copied().unwrap_or(0),
                pair.get(1).copied().unwrap_or(0),
            );
            *d = lo;
            let unit = u16::from_le_bytes([lo, hi]);
            let ok = if KEPT {
                super::kept_ascii(unit)
            } else {
                unit < 0x80
            };
            if prefix == 16 && !ok {
                prefix = k;
            }
        }
        prefix
    }

    pub(super) fn widen(src: &[u8; 16], dst: &mut [u8; 32]) -> usize {
        for (pair, &b) in dst.chunks_exact_mut(2).zip(src) {
            pair.copy_from_slice(&[b, 0]);
        }
        super::ascii_prefix(src)
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use core::arch::x86_64::{
        __m128i, _mm_add_epi16, _mm_and_si128, _mm_cmpeq_epi16, _mm_cmplt_epi16, _mm_loadu_si128,
        _mm_movemask_epi8, _mm_or_si128, _mm_packs_epi16, _mm_packus_epi16, _mm_set1_epi16,
        _mm_setzero_si128, _mm_storeu_si128, _mm_unpackhi_epi8, _mm_unpacklo_epi8,
    };

    #[inline]
    fn load(src: &[u8; 16]) -> __m128i {
        // SAFETY: `src` is 16 readable bytes; `loadu` has no alignment requirement.
        unsafe { _mm_loadu_si128(src.as_ptr().cast()) }
    }

    #[inline]
    fn store(dst: &mut [u8; 16], v: __m128i) {
        // SAFETY: `dst` is 16 writable bytes; `storeu` has no alignment requirement.
        unsafe { _mm_storeu_si128(dst.as_mut_ptr().cast(), v) }
    }

    pub(super) fn narrow<const KEPT: bool>(src: &[u8; 32], dst: &mut [u8; 16]) -> usize {
        let (a, b) = src.split_at(16);
        let (Ok(a), Ok(b)) = (<&[u8; 16]>::try_from(a), <&[u8; 16]>::try_from(b)) else {
            return 0;
        };
        // Unsigned saturation: a unit of U+0080 or above becomes a byte of 0x80 or
        // above, so the sign bits of the packed bytes mark the non-ASCII units.
        let (a, b) = (load(a), load(b));
        // The low bytes, exact for units below U+0100 (the only ones kept).
        // SAFETY: SSE2 is part of x86-64: every x86-64 CPU has it.
        let packed = unsafe { _mm_packus_epi16(a, b) };
        store(dst, packed);
        let (a_ok, b_ok) = if KEPT {
            (kept_ascii(a), kept_ascii(b))
        } else {
            (ascii(a), ascii(b))
        };
        // 0xFFFF per counted unit, packed with signed saturation to 0xFF.
        // SAFETY: SSE2 is part of x86-64: every x86-64 CPU has it.
        let ascii = unsafe { _mm_packs_epi16(a_ok, b_ok) };
        // SAFETY: SSE2 is part of x86-64: every x86-64 CPU has it.
        let non_ascii = !(unsafe { _mm_movemask_epi8(ascii) } as u32) | 0x1_0000;
        non_ascii.trailing_zeros() as usize
    }

    /// 0xFFFF for each unit below U+0080 (bits 7-15 clear), else 0.
    #[inline]
    fn ascii(v: __m128i) -> __m128i {
        // SAFETY: SSE2 is part of x86-64: every x86-64 CPU has it.
        let high = unsafe { _mm_set1_epi16(0xFF80_u16.cast_signed()) };
        // SAFETY: SSE2 is part of x86-64: every x86-64 CPU has it.
        let zero = unsafe { _mm_setzero_si128() };
        // SAFETY: SSE2 is part of x86-64: every x86-64 CPU has it.
        let masked = unsafe { _mm_and_si128(v, high) };
        // SAFETY: SSE2 is part of x86-64: every x86-64 CPU has it.
        unsafe { _mm_cmpeq_epi16(masked, zero) }
    }

    /// 0xFFFF for each unit in U+0020–U+007E, TAB or LF, else 0.
    #[inline]
    fn kept_ascii(v: __m128i) -> __m128i {
        // `u - 0x20 < 0x5F` unsigned, as a signed compare of both sides biased by
        // 0x8000: `u + 0x7FE0 < 0x805F`.
        let splat = |x: u16| {
            // SAFETY: SSE2 is part of x86-64: every x86-64 CPU has it.
            unsafe { _mm_set1_epi16(x.cast_signed()) }
        };
        // SAFETY: SSE2 is part of x86-64: every x86-64 CPU has it.
        let biased = unsafe { _mm_add_epi16(v, splat(0x7FE0)) };
        // SAFETY: SSE2 is part of x86-64: every x86-64 CPU has it.
        let printable = unsafe { _mm_cmplt_epi16(biased, splat(0x805F)) };
        // SAFETY: SSE2 is part of x86-64: every x86-64 CPU has it.
        let tab = unsafe { _mm_cmpeq_epi16(v, splat(0x09)) };
        // SAFETY: SSE2 is part of x86-64: every x86-64 CPU has it.
        let lf = unsafe { _mm_cmpeq_epi16(v, splat(0x0A)) };
        // SAFETY: SSE2 is part of x86-64: every x86-64 CPU has it.
        let tab_or_lf = unsafe { _mm_or_si128(tab, lf) };
        // SAFETY: SSE2 is part of x86-64: every x86-64 CPU has it.
        unsafe { _mm_or_si128(printable, tab_or_lf) }
    }

    pub(super) fn widen(src: &[u8; 16], dst: &mut [u8; 32]) -> usize {
        let v = load(src);
        // SAFETY: SSE2 is part of x86-64: every x86-64 CPU has it.
        let zero = unsafe { _mm_setzero_si128() };
        let (lo, hi) = dst.split_at_mut(16);
        if let (Ok(lo), Ok(hi)) = (<&mut [u8; 16]>::try_from(lo), <&mut [u8; 16]>::try_from(hi)) {
            // SAFETY: SSE2 is part of x86-64: every x86-64 CPU has it.
            store(lo, unsafe { _mm_unpacklo_epi8(v, zero) });
            // SAFETY: SSE2 is part of x86-64: every x86-64 CPU has it.
            store(hi, unsafe { _mm_unpackhi_epi8(v, zero) });
        }
        // SAFETY: SSE2 is part of x86-64: every x86-64 CPU has it.
        let non_ascii = unsafe { _mm_movemask_epi8(v) } as u32 | 0x1_0000;
        non_ascii.trailing_zeros() as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn simd_and_portable_agree() {
        let mut seed = 7u32;
        for _ in 0..2000 {
            let mut src = [0u8; 32];
            for b in src.iter_mut() {
                seed ^= seed << 13;
                seed ^= seed >> 17;
                seed ^= seed << 5;
                // Mostly ASCII, sometimes a high byte or a non-zero high half.
                *b = if seed.is_multiple_of(9) {
                    (seed >> 8) as u8
                } else {
                    (seed >> 8) as u8 & 0x7F
                };
            }
            for (k, pair) in src.chunks_exact_mut(2).enumerate() {
                if k % 3 == 0 {
                    pair[1] = 0;
                }
            }
            let (mut a, mut b) = ([0u8; 16], [0u8; 16]);
            let (n, m) = (
                narrow::<false>(&src, &mut a),
                portable::narrow::<false>(&src, &mut b),
            );
            assert_eq!(n, m);
            assert_eq!(a[..n], b[..m]);
            let (n, m) = (
                narrow::<true>(&src, &mut a),
                portable::narrow::<true>(&src, &mut b),
            );
            assert_eq!(n, m);
            assert_eq!(a[..n], b[..m]);
            let want = src
                .chunks_exact(2)
                .position(|p| !kept_ascii(u16::from_le_bytes([p[0], p[1]])))
                .unwrap_or(16);
            assert_eq!(n, want);
            let half: [u8; 16] = src[..16].try_into().unwrap();
            let (mut a, mut b) = ([0u8; 32], [0u8; 32]);
            assert_eq!(widen(&half, &mut a), portable::widen(&half, &mut b));
            assert_eq!(a, b);
            let mut c = [0u8; 16];
            assert_eq!(copy(&half, &mut c), portable::widen(&half, &mut b));
            assert_eq!(c, half);
        }
        let mut ascii = [0u8; 32];
        ascii.iter_mut().step_by(2).for_each(|b| *b = b'a');
        let mut d = [0u8; 16];
        assert_eq!(narrow::<false>(&ascii, &mut d), 16);
        assert_eq!(narrow::<true>(&ascii, &mut d), 16);
        assert_eq!(d, [b'a'; 16]);
        ascii[31] = 1; // unit 15 is U+0161
        assert_eq!(narrow::<false>(&ascii, &mut d), 15);
        ascii[31] = 0;
        for (unit, kept) in [
            (0x09u8, true),
            (0x0A, true),
            (0x0D, false),
            (0x00, false),
            (0x1F, false),
            (0x20, true),
            (0x7E, true),
            (0x7F, false),
        ] {
            ascii[20] = unit;
            assert_eq!(
                narrow::<true>(&ascii, &mut d),
                if kept { 16 } else { 10 },
                "{unit:#x}"
            );
            assert_eq!(narrow::<false>(&ascii, &mut d), 16);
        }
    }
}
