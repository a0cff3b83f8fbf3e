//! Static strings: the versions and the envelope text.

use core::ffi::c_char;

use airlock_core::{UNICODE_VERSION, UNTRUSTED_BEGIN, UNTRUSTED_END, VERSION};

/// `s` followed by a NUL, in an array of exactly `N = s.len() + 1` bytes (checked at
/// compile time: a wrong `N` fails the build).
#[allow(clippy::indexing_slicing, clippy::arithmetic_side_effects)]
const fn nul_terminated<const N: usize>(s: &str) -> [u8; N] {
    // Const fns cannot use `get`; the assertion bounds every index.
    let bytes = s.as_bytes();
    assert!(bytes.len() + 1 == N);
    let mut out = [0u8; N];
    let mut i = 0;
    while i < bytes.len() {
        assert!(bytes[i] != 0);
        out[i] = bytes[i];
        i += 1;
    }
    out
}

// Lengths are compile-time constants; the arithmetic cannot overflow.
#[allow(clippy::arithmetic_side_effects)]
mod strings {
    use super::*;

    pub(super) static VERSION_Z: [u8; VERSION.len() + 1] = nul_terminated(VERSION);
    pub(super) static UNICODE_VERSION_Z: [u8; UNICODE_VERSION.len() + 1] =
        nul_terminated(UNICODE_VERSION);
    pub(super) static BEGIN_Z: [u8; UNTRUSTED_BEGIN.len() + 1] = nul_terminated(UNTRUSTED_BEGIN);
    pub(super) static END_Z: [u8; UNTRUSTED_END.len() + 1] = nul_terminated(UNTRUSTED_END);
}

/// This library's version, e.g. `"0.1.0"`.
///
/// Returns a static NUL-terminated string: never NULL, never to be freed.
#[unsafe(no_mangle)]
pub extern "C" fn airlock_version() -> *const c_char {
    ffi_boundary!(on_panic: c"".as_ptr(), { strings::VERSION_Z.as_ptr().cast() })
}

/// The Unicode version of the Extended_Pictographic table, e.g. `"17.0.0"`.
///
/// Returns a static NUL-terminated string: never NULL, never to be freed.
#[unsafe(no_mangle)]
pub extern "C" fn airlock_unicode_version() -> *const c_char {
    ffi_boundary!(on_panic: c"".as_ptr(), { strings::UNICODE_VERSION_Z.as_ptr().cast() })
}

/// The line that opens an untrusted region (SPEC §7), UTF-8, without a newline.
///
/// Returns a static NUL-terminated string: never NULL, never to be freed.
#[unsafe(no_mangle)]
pub extern "C" fn airlock_envelope_begin() -> *const c_char {
    ffi_boundary!(on_panic: c"".as_ptr(), { strings::BEGIN_Z.as_ptr().cast() })
}

/// The line that closes an untrusted region (SPEC §7), without a newline.
///
/// Returns a static NUL-terminated string: never NULL, never to be freed.
#[unsafe(no_mangle)]
pub extern "C" fn airlock_envelope_end() -> *const c_char {
    ffi_boundary!(on_panic: c"".as_ptr(), { strings::END_Z.as_ptr().cast() })
}

#[cfg(test)]
mod tests {
    use super::*;
    use core::ffi::CStr;

    fn read(p: *const c_char) -> &'static str {
        // SAFETY: the exports return static NUL-terminated strings.
        unsafe { CStr::from_ptr(p) }.to_str().unwrap()
    }

    #[test]
    fn strings_match_core() {
        assert_eq!(read(airlock_version()), VERSION);
        assert_eq!(read(airlock_unicode_version()), UNICODE_VERSION);
        assert_eq!(read(airlock_envelope_begin()), UNTRUSTED_BEGIN);
        assert_eq!(read(airlock_envelope_end()), UNTRUSTED_END);
    }
}
