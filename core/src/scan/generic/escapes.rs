//! Step 1's stops (`scan/escapes.rs`) over a [`Vector`]: ESC, or 0xC2 followed by
//! 0x90–0x9F, 64 positions a step, the block compared with itself loaded one byte
//! further for the introducers' second bytes.

use super::vector::Vector;

/// `Ok` with the first position at or after `from` holding ESC or 0xC2 then
/// 0x90–0x9F, found 64 positions a step; `Err` with where the steps ended (under 65
/// bytes before the end), for the caller's scalar tail.
#[inline(always)]
pub(in crate::scan) fn next_escape<V: Vector>(bytes: &[u8], from: usize) -> Result<usize, usize> {
    let (esc, c2) = (V::splat(0x1B), V::splat(0xC2));
    let mut p = from;
    while let Some(w) = bytes.get(p..p.saturating_add(65)) {
        let (Some(first), Some(second)) = (w.first_chunk::<64>(), w.last_chunk::<64>()) else {
            break;
        };
        let (a, b) = (V::load(first), V::load(second));
        let stops = a.eq(esc).or(a.eq(c2).and(b.within(0x90, 0x9F)));
        if stops.any() {
            // Under 64, so the sum is in range.
            let k = usize::try_from(stops.movemask().trailing_zeros()).unwrap_or(0);
            return Ok(p.saturating_add(k));
        }
        p = p.saturating_add(64);
    }
    Err(p)
}

#[cfg(test)]
mod tests {
    use super::super::emulated::Bytes;
    use super::*;
    use crate::scan::escapes::next_escape_swar;
    use proptest::prelude::*;

    fn found(bytes: &[u8], from: usize) -> Option<usize> {
        next_escape::<Bytes>(bytes, from).map_or_else(|p| next_escape_swar(bytes, p), Some)
    }

    fn naive(bytes: &[u8], from: usize) -> Option<usize> {
        (from..bytes.len()).find(|&i| {
            bytes[i] == 0x1B || (bytes[i] == 0xC2 && matches!(bytes.get(i + 1), Some(0x90..=0x9F)))
        })
    }

    #[test]
    fn each_pair_at_every_position_around_the_step() {
        for len in [1usize, 63, 64, 65, 66, 127, 128, 129, 130, 200] {
            for pair in [
                &[0x1B][..],
                &[0xC2, 0x9B],
                &[0xC2, 0x90],
                &[0xC2, 0x9F],
                &[0xC2, 0x8F],
                &[0xC2, 0xA0],
            ] {
                for at in 0..len {
                    let mut text = std::vec![b'a'; len];
                    for (k, &b) in pair.iter().enumerate() {
                        if let Some(slot) = text.get_mut(at + k) {
                            *slot = b;
                        }
                    }
                    for from in [0, at.saturating_sub(1), at, at + 1] {
                        assert_eq!(
                            found(&text, from),
                            naive(&text, from),
                            "{len} {at} {from} {pair:x?}"
                        );
                    }
                }
            }
        }
    }

    proptest! {
        #[test]
        fn matches_naive(bytes in proptest::collection::vec(
            prop_oneof![Just(0x1Bu8), Just(0xC2u8), 0x80u8..=0xBF, any::<u8>()],
            0..300,
        ), from in 0usize..310) {
            prop_assert_eq!(found(&bytes, from), naive(&bytes, from));
        }
    }
}
