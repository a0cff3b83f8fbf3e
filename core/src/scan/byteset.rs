//! Sets of byte values as 256-bit masks, built at compile time.

/// A set of byte values, as a 256-bit mask.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ByteSet(pub(super) [u64; 4]);

impl ByteSet {
    /// The empty set.
    pub(crate) const EMPTY: ByteSet = ByteSet([0; 4]);

    /// Lead bytes of every code point strip or the control filter may remove.
    pub(crate) const ATTENTION: ByteSet = {
        let mut set = ByteSet::EMPTY;
        let mut b = 0u8;
        loop {
            if crate::rules::is_attention_lead(b) {
                set = set.with(b);
            }
            if b == u8::MAX {
                break;
            }
            b += 1;
        }
        set
    };

    /// Lead bytes of code points prose may drop: TAB and LF are kept, and frequent.
    pub(crate) const PROSE_ATTENTION: ByteSet = ByteSet::ATTENTION.without(b'\t').without(b'\n');

    /// This set with `b` added.
    pub(crate) const fn with(self, b: u8) -> ByteSet {
        let [w0, w1, w2, w3] = self.0;
        let bit = 1u64 << (b & 63);
        ByteSet(match b >> 6 {
            0 => [w0 | bit, w1, w2, w3],
            1 => [w0, w1 | bit, w2, w3],
            2 => [w0, w1, w2 | bit, w3],
            _ => [w0, w1, w2, w3 | bit],
        })
    }

    /// This set without `b`.
    pub(crate) const fn without(self, b: u8) -> ByteSet {
        let [w0, w1, w2, w3] = self.0;
        let bit = !(1u64 << (b & 63));
        ByteSet(match b >> 6 {
            0 => [w0 & bit, w1, w2, w3],
            1 => [w0, w1 & bit, w2, w3],
            2 => [w0, w1, w2 & bit, w3],
            _ => [w0, w1, w2, w3 & bit],
        })
    }

    /// This set with both ASCII cases of `b` added.
    pub(crate) const fn with_both_cases(self, b: u8) -> ByteSet {
        self.with(b.to_ascii_lowercase())
            .with(b.to_ascii_uppercase())
    }

    /// The union of two sets.
    pub(crate) const fn union(self, other: ByteSet) -> ByteSet {
        let [a0, a1, a2, a3] = self.0;
        let [b0, b1, b2, b3] = other.0;
        ByteSet([a0 | b0, a1 | b1, a2 | b2, a3 | b3])
    }

    /// Whether the set has a byte of 0x80 or above.
    pub(crate) const fn has_non_ascii(&self) -> bool {
        self.0[2] != 0 || self.0[3] != 0
    }

    /// Whether every member of `self` is in `other`.
    pub(crate) const fn is_subset(&self, other: &ByteSet) -> bool {
        let [a0, a1, a2, a3] = self.0;
        let [b0, b1, b2, b3] = other.0;
        a0 & !b0 == 0 && a1 & !b1 == 0 && a2 & !b2 == 0 && a3 & !b3 == 0
    }

    /// Whether `b` is in the set.
    #[inline(always)]
    #[allow(clippy::indexing_slicing)]
    pub(crate) const fn contains(&self, b: u8) -> bool {
        // An index (0 to 3) rather than a `match`, which may become a jump table.
        let word = self.0[(b >> 6) as usize & 3];
        word & (1u64 << (b & 63)) != 0
    }
}
