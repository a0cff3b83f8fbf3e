//! Code point classifiers (SPEC §2).

/// "No code point": pass as `prev` to `airlock_is_orphan_selector` for the first code
/// point of an input. Any value that is not a Unicode scalar value means the same.
pub const AIRLOCK_NO_CODE_POINT: u32 = u32::MAX;

/// A Unicode scalar value, or `None` for surrogates and values above U+10FFFF.
fn scalar(cp: u32) -> Option<char> {
    char::from_u32(cp)
}

/// Whether `cp` is a control (general category Cc): U+0000–U+001F, U+007F–U+009F.
/// False for anything that is not a Unicode scalar value.
#[unsafe(no_mangle)]
pub extern "C" fn airlock_is_control(cp: u32) -> bool {
    ffi_boundary!(on_panic: false, {
        scalar(cp).is_some_and(airlock_core::is_control)
    })
}

/// Whether `cp` is in the dangerous-invisible table (SPEC §2): stripped from prose,
/// rejected in machine values. False for anything that is not a Unicode scalar value.
#[unsafe(no_mangle)]
pub extern "C" fn airlock_is_dangerous_invisible(cp: u32) -> bool {
    ffi_boundary!(on_panic: false, {
        scalar(cp).is_some_and(airlock_core::is_dangerous_invisible)
    })
}

/// Whether `cp` has the Unicode property Extended_Pictographic (of the version
/// `airlock_unicode_version` names). False for anything that is not a Unicode scalar
/// value.
#[unsafe(no_mangle)]
pub extern "C" fn airlock_is_extended_pictographic(cp: u32) -> bool {
    ffi_boundary!(on_panic: false, {
        scalar(cp).is_some_and(airlock_core::is_extended_pictographic)
    })
}

/// Whether `cp` is a basic variation selector, U+FE00–U+FE0F.
#[unsafe(no_mangle)]
pub extern "C" fn airlock_is_variation_selector(cp: u32) -> bool {
    ffi_boundary!(on_panic: false, {
        scalar(cp).is_some_and(airlock_core::class::is_variation_selector)
    })
}

/// Whether `cp` is an orphan variation selector: U+FE00–U+FE0E always, U+FE0F unless
/// `prev` — the code point immediately before it in the original input, dropped or
/// not — is Extended_Pictographic. `prev` = `AIRLOCK_NO_CODE_POINT` (or any
/// non-scalar value) means `cp` starts the input.
#[unsafe(no_mangle)]
pub extern "C" fn airlock_is_orphan_selector(cp: u32, prev: u32) -> bool {
    ffi_boundary!(on_panic: false, {
        scalar(cp).is_some_and(|c| airlock_core::is_orphan_selector(c, scalar(prev)))
    })
}

/// Whether strip drops `cp` after `prev` (a dangerous invisible or an orphan
/// selector); `prev` as for `airlock_is_orphan_selector`.
#[unsafe(no_mangle)]
pub extern "C" fn airlock_is_stripped(cp: u32, prev: u32) -> bool {
    ffi_boundary!(on_panic: false, {
        scalar(cp).is_some_and(|c| airlock_core::class::is_stripped(c, scalar(prev)))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_point_agrees_with_core() {
        for c in '\0'..=char::MAX {
            let cp = u32::from(c);
            assert_eq!(airlock_is_control(cp), airlock_core::is_control(c));
            assert_eq!(
                airlock_is_dangerous_invisible(cp),
                airlock_core::is_dangerous_invisible(c)
            );
            assert_eq!(
                airlock_is_extended_pictographic(cp),
                airlock_core::is_extended_pictographic(c)
            );
            assert_eq!(
                airlock_is_orphan_selector(cp, AIRLOCK_NO_CODE_POINT),
                airlock_core::is_orphan_selector(c, None)
            );
        }
        assert!(!airlock_is_control(0xD800));
        assert!(!airlock_is_control(0x11_0000));
        assert!(!airlock_is_orphan_selector(0xFE0F, 0x2764));
        assert!(airlock_is_orphan_selector(0xFE0F, u32::from('1')));
        assert!(airlock_is_orphan_selector(0xFE0F, 0xD800));
    }
}
