//! Scan kernels written once over a [`Vector`] of 64 bytes, the way memchr's
//! `arch/generic` and simdutf's `src/generic` are: each ISA says how to splat,
//! compare, look up and gather one bit per byte, and the algorithm is the same on
//! all of them. A kernel only one ISA does well (AVX-512 VBMI permutes and
//! compress) stays in that ISA's file; DESIGN.md says which and why.
//!
//! No `unsafe` here: loads take a `&[u8; 64]` and each ISA's file holds its own.

pub(super) mod blocks;
pub(super) mod escapes;
pub(super) mod vector;

#[cfg(test)]
pub(super) mod emulated;
