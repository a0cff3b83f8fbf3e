//! What the generic kernels need of an instruction set: 64 bytes as one value,
//! whatever number of registers the ISA holds them in.

/// 64 bytes, operated on per byte. "Mask" values hold 0xFF or 0x00 in each byte.
/// Every method is a handful of instructions, inlined into the generic kernel.
pub(in crate::scan) trait Vector: Copy {
    /// The 64 bytes of `bytes`.
    fn load(bytes: &[u8; 64]) -> Self;
    /// `b` in every byte.
    fn splat(b: u8) -> Self;
    /// `t` in each 16-byte lane, as [`Vector::lookup`]'s table.
    fn table(t: [u8; 16]) -> Self;
    /// 0xFF where `self == other`.
    fn eq(self, other: Self) -> Self;
    /// 0xFF where `lo <= self <= hi`, unsigned.
    fn within(self, lo: u8, hi: u8) -> Self;
    /// 0xFF where `self & bits` is not zero.
    fn test(self, bits: Self) -> Self;
    /// 0xFF where the byte has bit 7 set (0x80 and up).
    fn high_bit(self) -> Self;
    /// Bytewise AND.
    fn and(self, other: Self) -> Self;
    /// Bytewise OR.
    fn or(self, other: Self) -> Self;
    /// Each byte shifted right by four (its high nibble).
    fn high_nibble(self) -> Self;
    /// `table[idx]` per byte, `self` being a [`Vector::table`]; each `idx` is below 16.
    fn lookup(self, idx: Self) -> Self;
    /// `yes` where `self` (a mask) is 0xFF, `no` elsewhere.
    fn select(self, yes: Self, no: Self) -> Self;
    /// Bit `i` set when byte `i` of a mask is 0xFF.
    fn movemask(self) -> u64;
    /// Whether any byte is not zero.
    fn any(self) -> bool;
}
