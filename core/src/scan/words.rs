//! Word-at-a-time (SWAR) constants, shared by the portable block scan (`swar.rs`)
//! and step 1's portable stops (`escapes.rs`) so that neither imports the other
//! for them.

/// The low seven bits of each byte of a `u64`.
pub(super) const LO7: u64 = 0x7F7F_7F7F_7F7F_7F7F;
/// The high bit of each byte of a `u64`.
pub(super) const HI: u64 = 0x8080_8080_8080_8080;
