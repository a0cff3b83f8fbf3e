//! The byte scan that finds the next position needing attention.
//!
//! Every operation walks text as runs of bytes it keeps untouched, separated by the
//! few positions that need a decision. This module finds those positions; the
//! operations never decode a code point they do not have to.

/// A set of byte values, as a 256-bit mask.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ByteSet([u64; 4]);

impl ByteSet {
    /// The empty set.
    pub(crate) const EMPTY: ByteSet = ByteSet([0; 4]);

    /// Lead bytes of every code point strip or the control filter may remove.
    pub(crate) const ATTENTION: ByteSet = {
        let mut set = ByteSet::EMPTY;
        let mut b = 0u8;
        loop {
            if crate::class::may_need_attention(b) {
                set = set.with(b);
            }
            if b == u8::MAX {
                break;
            }
            b += 1;
        }
        set
    };

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

    /// Whether `b` is in the set.
    #[inline(always)]
    pub(crate) const fn contains(&self, b: u8) -> bool {
        let [w0, w1, w2, w3] = self.0;
        let word = match b >> 6 {
            0 => w0,
            1 => w1,
            2 => w2,
            _ => w3,
        };
        word & (1u64 << (b & 63)) != 0
    }
}

/// The index of the first byte at or after `from` that is in `set`, or `bytes.len()`.
#[inline]
pub(crate) fn next_in_set(bytes: &[u8], from: usize, set: &ByteSet) -> usize {
    let rest = bytes.get(from..).unwrap_or_default();
    match rest.iter().position(|&b| set.contains(b)) {
        Some(i) => from.saturating_add(i),
        None => bytes.len(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attention_set_matches_class() {
        for b in 0..=255u8 {
            assert_eq!(
                ByteSet::ATTENTION.contains(b),
                crate::class::may_need_attention(b)
            );
        }
    }

    #[test]
    fn next_in_set_finds_first() {
        let set = ByteSet::EMPTY.with(b'x').with(0xE2);
        assert_eq!(next_in_set(b"abcxdx", 0, &set), 3);
        assert_eq!(next_in_set(b"abcxdx", 4, &set), 5);
        assert_eq!(next_in_set(b"abc", 0, &set), 3);
        assert_eq!(next_in_set(b"abc", 9, &set), 3);
        assert!(ByteSet::EMPTY.with_both_cases(b'u').contains(b'U'));
        assert!(set.union(ByteSet::EMPTY.with(1)).contains(1));
    }
}
