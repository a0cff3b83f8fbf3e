//! The portable block scan: SWAR over `u64` words.

use super::finder::Finder;
use super::words::{HI, LO7};

/// 0x80 in each byte of `x` that is a candidate of `f`, 0 elsewhere. Exact per byte:
/// no carry crosses a byte (each sum stays below 0x100).
#[inline(always)]
pub(super) fn word_candidates(x: u64, f: &Finder) -> u64 {
    if f.every {
        return HI;
    }
    let mut acc = if f.non_ascii { x & HI } else { 0 };
    if f.controls {
        // (b & 0x7F) + 0x60 < 0x80 exactly when b & 0x7F < 0x20.
        acc |= !((x & LO7).wrapping_add(0x6060_6060_6060_6060) | x) & HI;
    }
    for &c in f.eq_bytes() {
        let t = x ^ u64::from_ne_bytes([c; 8]);
        // A byte of t is zero exactly when (t & 0x7F) + 0x7F and t both lack bit 7.
        acc |= !((t & LO7).wrapping_add(LO7) | t) & HI;
    }
    acc
}

/// One bit per byte of a 64-byte block, from the portable word test.
#[inline]
pub(super) fn portable_block(block: &[u8; 64], f: &Finder) -> u64 {
    let mut mask = 0u64;
    for (k, word) in block.chunks_exact(8).enumerate() {
        let mut w = [0u8; 8];
        w.copy_from_slice(word);
        let flags = word_candidates(u64::from_le_bytes(w), f) >> 7;
        // Gathers bit 8i of `flags` into bit 56 + i; no two terms collide.
        let bits = flags.wrapping_mul(0x0102_0408_1020_4080) >> 56;
        mask |= bits << ((k & 7) << 3);
    }
    mask
}

/// The first block of `blocks` (a multiple of 64 bytes) with a candidate.
pub(super) fn portable_blocks(blocks: &[u8], f: &Finder) -> Option<(usize, u64)> {
    for (k, chunk) in blocks.chunks_exact(64).enumerate() {
        // Word-level test first: most blocks of clean text have no candidate.
        let mut any = 0u64;
        for word in chunk.chunks_exact(8) {
            let mut w = [0u8; 8];
            w.copy_from_slice(word);
            any |= word_candidates(u64::from_le_bytes(w), f);
        }
        if any != 0 {
            let mut block = [0u8; 64];
            block.copy_from_slice(chunk);
            return Some((k.saturating_mul(64), portable_block(&block, f)));
        }
    }
    None
}
