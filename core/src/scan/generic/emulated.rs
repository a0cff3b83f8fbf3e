//! A [`Vector`] in plain Rust, byte by byte: the generic kernels run on every
//! target's test suite, so an x86 build checks the code NEON runs.

use super::vector::Vector;

/// 64 bytes in an array.
#[derive(Clone, Copy, Debug)]
pub(in crate::scan) struct Bytes([u8; 64]);

impl Bytes {
    fn map(self, f: impl Fn(u8) -> u8) -> Bytes {
        Bytes(self.0.map(f))
    }

    fn zip(self, other: Bytes, f: impl Fn(u8, u8) -> u8) -> Bytes {
        let mut out = [0u8; 64];
        for ((o, &a), &b) in out.iter_mut().zip(&self.0).zip(&other.0) {
            *o = f(a, b);
        }
        Bytes(out)
    }
}

/// 0xFF for `true`.
fn mask(yes: bool) -> u8 {
    if yes { 0xFF } else { 0 }
}

impl Vector for Bytes {
    fn load(bytes: &[u8; 64]) -> Bytes {
        Bytes(*bytes)
    }
    fn splat(b: u8) -> Bytes {
        Bytes([b; 64])
    }
    fn table(t: [u8; 16]) -> Bytes {
        let mut out = [0u8; 64];
        for (o, &b) in out.iter_mut().zip(t.iter().cycle()) {
            *o = b;
        }
        Bytes(out)
    }
    fn eq(self, other: Bytes) -> Bytes {
        self.zip(other, |a, b| mask(a == b))
    }
    fn within(self, lo: u8, hi: u8) -> Bytes {
        self.map(|a| mask((lo..=hi).contains(&a)))
    }
    fn test(self, bits: Bytes) -> Bytes {
        self.zip(bits, |a, b| mask(a & b != 0))
    }
    fn high_bit(self) -> Bytes {
        self.map(|a| mask(a >= 0x80))
    }
    fn and(self, other: Bytes) -> Bytes {
        self.zip(other, |a, b| a & b)
    }
    fn or(self, other: Bytes) -> Bytes {
        self.zip(other, |a, b| a | b)
    }
    fn high_nibble(self) -> Bytes {
        self.map(|a| a >> 4)
    }
    fn lookup(self, idx: Bytes) -> Bytes {
        // A table repeats every 16 bytes, so lane 0's copy answers for all.
        idx.map(|i| {
            assert!(i < 16, "lookup index {i}");
            self.0.get(usize::from(i)).copied().unwrap_or(0)
        })
    }
    fn select(self, yes: Bytes, no: Bytes) -> Bytes {
        let mut out = [0u8; 64];
        for (i, o) in out.iter_mut().enumerate() {
            *o = if self.0[i] == 0xFF { yes.0[i] } else { no.0[i] };
        }
        Bytes(out)
    }
    fn movemask(self) -> u64 {
        self.0
            .iter()
            .enumerate()
            .fold(0, |m, (i, &b)| m | u64::from(b == 0xFF) << i)
    }
    fn any(self) -> bool {
        self.0.iter().any(|&b| b != 0)
    }
}
