//! The block scan over a [`Vector`]: a finder's set by nibble tables (Hyperscan's
//! "truffle"), a refined finder's lead bytes by the refinement's six nibble lookups
//! (`pairs.rs`), one bit per byte of the first block holding a candidate.

use super::vector::Vector;
use crate::scan::pairs::Refinement;

/// What the block scan reads of a finder (`scan/finder.rs`): its nibble tables and,
/// for a refined one, its refinement. Passed by value so this file imports no
/// scanner code.
#[derive(Clone, Copy)]
pub(in crate::scan) struct Tables<'r> {
    pub(in crate::scan) lo: [u8; 16],
    pub(in crate::scan) hi: [u8; 16],
    pub(in crate::scan) refined: Option<&'r Refinement>,
}

/// Bit `h` of entry `h` (mod 8): the high-nibble row a byte's bit is read from.
const ROW_BITS: [u8; 16] = [1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128];

/// 0xFF where a byte of `v` is in the finder's set (exact, every byte value).
#[inline(always)]
fn members<V: Vector>(v: V, lo: V, hi: V, bits: V) -> V {
    let low = v.and(V::splat(0x0F));
    let row = v.high_bit().select(hi.lookup(low), lo.lookup(low));
    row.test(bits.lookup(v.high_nibble()))
}

/// The AND of one half's six lookups.
#[inline(always)]
fn lookups<V: Vector>(nibbles: &[V; 6], tables: &[[u8; 16]; 6]) -> V {
    let mut acc = V::splat(0xFF);
    for (&t, &n) in tables.iter().zip(nibbles) {
        acc = acc.and(V::table(t).lookup(n));
    }
    acc
}

/// 0xFF where byte `v` and its next bytes `s`, `t` (loaded one and two bytes
/// further) may begin a multi-byte code point of `r`: a superset of its groups, 0
/// for every ASCII byte (`pairs.rs`'s nibble tables).
#[inline(always)]
fn lead_pairs<V: Vector>(v: V, s: V, t: V, r: &Refinement) -> V {
    let low = V::splat(0x0F);
    let nibbles = [
        v.high_nibble(),
        v.and(low),
        s.high_nibble(),
        s.and(low),
        t.high_nibble(),
        t.and(low),
    ];
    let [low_groups, high_groups] = &r.nibbles;
    let mut any = lookups(&nibbles, low_groups);
    if r.groups > 8 {
        any = any.or(lookups(&nibbles, high_groups));
    }
    any.test(V::splat(0xFF))
}

/// The first 64-byte block of the first `whole` bytes of `data` (a multiple of 64)
/// with a candidate of `f`, and its mask: the set's members, a refined finder's
/// non-ASCII ones only where the refinement's nibble tables pass (a superset of
/// [`Refinement::may_begin`]). For a refined finder `data` holds two more bytes
/// after the blocks (the last lanes' next bytes).
#[inline(always)]
pub(in crate::scan) fn blocks<V: Vector>(
    data: &[u8],
    whole: usize,
    f: Tables<'_>,
) -> Option<(usize, u64)> {
    let lo = V::table(f.lo);
    let hi = V::table(f.hi);
    let bits = V::table(ROW_BITS);
    let ahead = if f.refined.is_some() { 2 } else { 0 };
    let mut p = 0usize;
    while p < whole {
        let end = p.saturating_add(64);
        let Some(w) = data.get(p..end.saturating_add(ahead)) else {
            break;
        };
        let Some(block) = w.first_chunk::<64>() else {
            break;
        };
        let v = V::load(block);
        let mut hits = members(v, lo, hi, bits);
        if hits.any() {
            if let Some(r) = f.refined {
                let lead = hits.and(v.high_bit());
                if lead.any()
                    && let (Some(s), Some(t)) = (
                        w.get(1..).and_then(<[u8]>::first_chunk::<64>),
                        w.get(2..).and_then(<[u8]>::first_chunk::<64>),
                    )
                {
                    // Keep ASCII members, and non-ASCII ones whose triple passes.
                    let (s, t) = (V::load(s), V::load(t));
                    let keep = v.high_bit().select(lead_pairs(v, s, t, r), V::splat(0xFF));
                    hits = hits.and(keep);
                }
            }
            let mask = hits.movemask();
            if mask != 0 {
                return Some((p, mask));
            }
        }
        p = end;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::super::emulated::Bytes;
    use super::*;
    use crate::scan::ByteSet;
    use crate::scan::finder::Finder;
    use proptest::prelude::*;
    use std::vec::Vec;

    /// The generic scan over the plain-Rust vector, with the tail the backend pads.
    fn first_block(bytes: &[u8], f: &Finder) -> Option<(usize, u64)> {
        let ahead = if f.refined { 2 } else { 0 };
        let whole = bytes.len().saturating_sub(ahead) & !63;
        let tables = Tables {
            lo: f.lo,
            hi: f.hi,
            refined: f.refined.then_some(f.refinement),
        };
        blocks::<Bytes>(
            &bytes[..whole + ahead.min(bytes.len() - whole)],
            whole,
            tables,
        )
    }

    /// The block and the set's members in it, the refined ones by `may_begin`.
    fn exact(bytes: &[u8], f: &Finder) -> Option<(usize, u64)> {
        let ahead = if f.refined { 2 } else { 0 };
        let whole = bytes.len().saturating_sub(ahead) & !63;
        (0..whole).step_by(64).find_map(|p| {
            let mask = (0..64)
                .filter(|&i| f.reports(bytes, p + i, bytes[p + i]))
                .fold(0u64, |m, i| m | 1 << i);
            (mask != 0).then_some((p, mask))
        })
    }

    fn finders() -> Vec<Finder> {
        let sets = [
            ByteSet::ATTENTION,
            ByteSet::EMPTY.with(b'<').with(b':').with(0x1B),
            ByteSet::EMPTY.with(0).with(0x7F).with(0x80).with(0xFF),
        ];
        sets.iter()
            .flat_map(|&s| [Finder::new(s), Finder::new(s).refined()])
            .collect()
    }

    /// Unrefined, the generic scan reports exactly the set's members. Refined, a
    /// superset of the exact test: every byte it reports is in the set, and no block
    /// before the one it reports holds a member the exact test confirms.
    fn agrees(bytes: &[u8]) {
        for f in finders() {
            let got = first_block(bytes, &f);
            let want = exact(bytes, &f);
            if !f.refined {
                assert_eq!(got, want, "{f:?}");
                continue;
            }
            match (got, want) {
                (None, None) | (Some(_), None) => {}
                (Some((p, m)), Some((q, n))) => {
                    assert!(p <= q, "{f:?} {p} {q}");
                    if p == q {
                        assert_eq!(m & n, n, "{f:?} block {p}");
                    }
                }
                (None, Some(w)) => panic!("{f:?}: missed {w:?}"),
            }
            if let Some((p, m)) = got {
                for i in (0..64).filter(|i| m >> i & 1 == 1) {
                    assert!(f.set.contains(bytes[p + i]), "{f:?} byte {}", p + i);
                }
            }
        }
    }

    #[test]
    fn every_byte_value_in_every_lane() {
        for lane in 0..64 {
            for v in 0..=255u8 {
                let mut hay = [b'.'; 130];
                hay[lane] = v;
                hay[lane + 64] = v;
                agrees(&hay);
            }
        }
    }

    #[test]
    fn every_lead_triple_of_the_refinement() {
        // Each lead byte with each continuation pair of its patterns' first bytes.
        for b0 in 0xC2..=0xF4u8 {
            for b1 in 0x80..=0xBFu8 {
                for b2 in [0x80u8, 0x84, 0x8B, 0x8F, 0xA0, 0xAF, 0xBF, b'a'] {
                    let mut hay = [b'.'; 130];
                    hay[62..65].copy_from_slice(&[b0, b1, b2]);
                    agrees(&hay);
                }
            }
        }
    }

    proptest! {
        #[test]
        fn agrees_on_random_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
            agrees(&bytes);
        }
    }
}
