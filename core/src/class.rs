//! What a code point is, for containment purposes (SPEC §2).

use crate::rules;
use crate::tables::EXTENDED_PICTOGRAPHIC;

/// A Unicode control (general category Cc): U+0000–U+001F and U+007F–U+009F.
#[inline]
pub const fn is_control(c: char) -> bool {
    rules::is_control(c as u32)
}

/// A member of the dangerous-invisible table: stripped from prose, rejected in machine values.
#[inline]
pub const fn is_dangerous_invisible(c: char) -> bool {
    rules::is_invisible(c as u32)
}

/// A variation selector of the basic block, U+FE00–U+FE0F.
#[inline]
pub const fn is_variation_selector(c: char) -> bool {
    rules::is_selector(c as u32)
}

/// Whether `c` has the Unicode property Extended_Pictographic (see [`crate::UNICODE_VERSION`]).
pub fn is_extended_pictographic(c: char) -> bool {
    let cp = u32::from(c);
    // ASCII and most text sit below the first range; skip the search for them.
    if cp < 0xA9 {
        return false;
    }
    EXTENDED_PICTOGRAPHIC
        .binary_search_by(|&(lo, hi)| {
            if hi < cp {
                core::cmp::Ordering::Less
            } else if lo > cp {
                core::cmp::Ordering::Greater
            } else {
                core::cmp::Ordering::Equal
            }
        })
        .is_ok()
}

/// A variation selector with nothing to select: U+FE00–U+FE0E always, U+FE0F unless
/// `prev` — the code point immediately before it in the *original* input, dropped
/// or not — is Extended_Pictographic.
#[inline]
pub fn is_orphan_selector(c: char, prev: Option<char>) -> bool {
    if u32::from(c) == rules::EMOJI_SELECTOR {
        !prev.is_some_and(is_extended_pictographic)
    } else {
        is_variation_selector(c)
    }
}

/// Whether strip drops `c` given its predecessor in the original input.
#[inline]
pub fn is_stripped(c: char, prev: Option<char>) -> bool {
    is_dangerous_invisible(c) || is_orphan_selector(c, prev)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reference_table(cp: u32) -> bool {
        [
            (0xAD, 0xAD),
            (0x115F, 0x1160),
            (0x180E, 0x180E),
            (0x200B, 0x200D),
            (0x202A, 0x202E),
            (0x2060, 0x2064),
            (0x2066, 0x2069),
            (0x3164, 0x3164),
            (0xFEFF, 0xFEFF),
            (0xE0000, 0xE007F),
            (0xE0100, 0xE01EF),
        ]
        .iter()
        .any(|&(lo, hi)| lo <= cp && cp <= hi)
    }

    #[test]
    fn every_code_point_against_plain_reference() {
        let mut table = 0;
        let mut controls = 0;
        let mut pictographic = 0;
        for c in '\0'..=char::MAX {
            let cp = u32::from(c);
            assert_eq!(is_dangerous_invisible(c), reference_table(cp), "{cp:X}");
            assert_eq!(
                is_control(c),
                cp <= 0x1F || (0x7F..=0x9F).contains(&cp),
                "{cp:X}"
            );
            assert_eq!(is_variation_selector(c), (0xFE00..=0xFE0F).contains(&cp));
            let pict = EXTENDED_PICTOGRAPHIC
                .iter()
                .any(|&(lo, hi)| lo <= cp && cp <= hi);
            assert_eq!(is_extended_pictographic(c), pict, "{cp:X}");
            if is_control(c) || is_dangerous_invisible(c) || is_variation_selector(c) {
                let mut buf = [0u8; 4];
                let first = c.encode_utf8(&mut buf).as_bytes()[0];
                assert!(
                    rules::is_attention_lead(first),
                    "{cp:X} lead byte {first:#x}"
                );
            }
            table += usize::from(is_dangerous_invisible(c));
            controls += usize::from(is_control(c));
            pictographic += usize::from(pict);
        }
        assert_eq!(controls, 65);
        assert_eq!(table, 1 + 2 + 1 + 3 + 5 + 5 + 4 + 1 + 1 + 128 + 240);
        let _ = pictographic;
    }

    #[test]
    fn orphan_rule_uses_the_predecessor() {
        assert!(is_orphan_selector('\u{FE0F}', None));
        assert!(is_orphan_selector('\u{FE0F}', Some('1')));
        assert!(!is_orphan_selector('\u{FE0F}', Some('\u{A9}')));
        assert!(is_orphan_selector('\u{FE0E}', Some('\u{A9}')));
        assert!(!is_orphan_selector('a', None));
    }

    #[test]
    fn kept_near_misses() {
        for c in [
            '\u{200E}', '\u{200F}', '\u{61C}', '\u{34F}', '\u{2028}', '\u{2029}', '\u{A0}',
            '\u{180B}', '\u{180F}', '\u{FFF9}', '\u{2065}',
        ] {
            assert!(!is_dangerous_invisible(c));
        }
    }
}
