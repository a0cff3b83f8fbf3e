//! The status every fallible export returns, and its static name.

use core::ffi::{CStr, c_char};

/// What happened. Values are explicit and never reused: a removed status leaves a
/// gap, a new one takes a new number.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum airlock_status {
    /// Success: the outputs are written.
    Ok = 0,
    /// The value or record is rejected (a check failed, prose forges a wrapper, the
    /// frontmatter gate refuses); the message is available through the call's
    /// `msg`/`msg_cap`/`msg_len` triple.
    Rejected = 1,
    /// A required pointer is NULL, or a buffer is `(NULL, n > 0)`.
    NullArg = 2,
    /// The output buffer is too small; `*out_len` holds the size needed.
    BufferTooSmall = 3,
    /// The text is not UTF-8; `*err_offset` (when not NULL) holds the byte offset of
    /// the first invalid sequence.
    InvalidUtf8 = 4,
    /// The field name is not UTF-8.
    InvalidField = 5,
    /// An argument is out of its domain: an unknown shape, a length above
    /// `PTRDIFF_MAX`, an output buffer overlapping an input, an out pointer
    /// (`out_len`, `msg_len`, `err_offset`, a result struct) inside an output buffer
    /// or an input.
    InvalidArg = 6,
    /// The frontmatter does not parse; the message is available through the call's
    /// message triple (`airlock_frontmatter_parse`).
    ParseError = 7,
    /// An index is past the end of the list it reads.
    OutOfRange = 8,
    /// airlock panicked; nothing was written. A bug: please report it.
    Panic = 9,
    /// An internal invariant does not hold; nothing was written. A bug: please
    /// report it.
    Internal = 10,
}

/// Every status, in value order.
const ALL: [airlock_status; 11] = [
    airlock_status::Ok,
    airlock_status::Rejected,
    airlock_status::NullArg,
    airlock_status::BufferTooSmall,
    airlock_status::InvalidUtf8,
    airlock_status::InvalidField,
    airlock_status::InvalidArg,
    airlock_status::ParseError,
    airlock_status::OutOfRange,
    airlock_status::Panic,
    airlock_status::Internal,
];

impl airlock_status {
    /// The C name of the status.
    pub const fn name(self) -> &'static CStr {
        match self {
            airlock_status::Ok => c"AIRLOCK_STATUS_OK",
            airlock_status::Rejected => c"AIRLOCK_STATUS_REJECTED",
            airlock_status::NullArg => c"AIRLOCK_STATUS_NULL_ARG",
            airlock_status::BufferTooSmall => c"AIRLOCK_STATUS_BUFFER_TOO_SMALL",
            airlock_status::InvalidUtf8 => c"AIRLOCK_STATUS_INVALID_UTF8",
            airlock_status::InvalidField => c"AIRLOCK_STATUS_INVALID_FIELD",
            airlock_status::InvalidArg => c"AIRLOCK_STATUS_INVALID_ARG",
            airlock_status::ParseError => c"AIRLOCK_STATUS_PARSE_ERROR",
            airlock_status::OutOfRange => c"AIRLOCK_STATUS_OUT_OF_RANGE",
            airlock_status::Panic => c"AIRLOCK_STATUS_PANIC",
            airlock_status::Internal => c"AIRLOCK_STATUS_INTERNAL",
        }
    }
}

/// The name of a status, e.g. `"AIRLOCK_STATUS_BUFFER_TOO_SMALL"`, or
/// `"AIRLOCK_STATUS_UNKNOWN"` for a value that is no status.
///
/// Returns a static NUL-terminated string: never NULL, never to be freed.
#[unsafe(no_mangle)]
pub extern "C" fn airlock_status_name(status: u32) -> *const c_char {
    ffi_boundary!(on_panic: c"AIRLOCK_STATUS_UNKNOWN".as_ptr(), {
        ALL
            .into_iter()
            .find(|s| *s as u32 == status)
            .map_or(c"AIRLOCK_STATUS_UNKNOWN", airlock_status::name)
            .as_ptr()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_dense_and_named() {
        for (i, s) in ALL.into_iter().enumerate() {
            assert_eq!(s as u32, i as u32);
            // SAFETY: the export returns a static NUL-terminated string.
            let name = unsafe { CStr::from_ptr(airlock_status_name(s as u32)) };
            assert_eq!(name, s.name());
        }
        // SAFETY: as above.
        let unknown = unsafe { CStr::from_ptr(airlock_status_name(999)) };
        assert_eq!(unknown, c"AIRLOCK_STATUS_UNKNOWN");
    }

    #[test]
    fn panic_becomes_a_status() {
        let s: airlock_status = ffi_boundary!({
            if ALL.len() > 1 {
                panic!("boom");
            }
            Ok(airlock_status::Ok)
        });
        assert_eq!(s, airlock_status::Panic);
        let v: usize = ffi_boundary!(on_panic: 7, {
            let v: Vec<usize> = Vec::new();
            v[3]
        });
        assert_eq!(v, 7);
    }
}
