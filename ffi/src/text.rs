//! Prose: strip, truncate, sanitize, and the size a sanitize output needs.

use airlock_core::{ProseError, strip_into, truncate_to_bytes};

use crate::airlock_status;
use crate::buf::{self, put};

/// The reference's byte cap for an `insight`.
pub const AIRLOCK_INSIGHT_MAX_BYTES: usize = 2000;
/// The reference's byte cap for one evidence item.
pub const AIRLOCK_EVIDENCE_ITEM_MAX_BYTES: usize = 2000;
/// The reference's byte cap for the whole evidence region.
pub const AIRLOCK_EVIDENCE_MAX_BYTES: usize = 5000;
/// The reference's byte cap for a title.
pub const AIRLOCK_TITLE_MAX_BYTES: usize = 256;
/// The largest accepted `description`, in bytes (a reject bound, not a cut).
pub const AIRLOCK_DESCRIPTION_MAX_BYTES: usize = 512;

/// Checks that `text` is UTF-8.
///
/// `text`/`text_len`: the bytes, borrowed for the call; `(NULL, 0)` is empty (and
/// valid). `err_offset`: NULL, or where the offset of the first invalid sequence is
/// written on `INVALID_UTF8`.
///
/// Returns `OK`; `INVALID_UTF8`; `NULL_ARG` for `(NULL, n > 0)`; `INVALID_ARG` for a
/// length above `PTRDIFF_MAX`; `PANIC`.
///
/// # Safety
/// Every non-NULL pointer must point to memory of the stated size, valid for the call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn airlock_utf8_validate(
    text: *const u8,
    text_len: usize,
    err_offset: *mut usize,
) -> airlock_status {
    ffi_boundary!({
        check_null!(input text, text_len);
        check_null!(pointers [err_offset] outside [text]);
        // SAFETY: `err_offset` is NULL or writable, by this function's contract.
        unsafe { buf::utf8(text, err_offset) }?;
        Ok(airlock_status::Ok)
    })
}

/// Strips dangerous invisibles and orphan variation selectors (SPEC §3
/// `stripDangerousInvisibles`; controls are kept).
///
/// * `text`/`text_len`: UTF-8, borrowed for the call; `(NULL, 0)` is empty.
/// * `out`/`out_cap`: the caller's buffer, written only on `OK`; `text_len` bytes
///   always suffice. `(NULL, 0)` only asks for the size. Must not overlap `text`.
/// * `out_len`: required; on `OK` the bytes written, on `BUFFER_TOO_SMALL` the size
///   needed.
/// * `err_offset`: NULL, or where the offset of the first invalid sequence is written
///   on `INVALID_UTF8`.
///
/// Returns `OK`; `BUFFER_TOO_SMALL` (nothing written to `out`); `INVALID_UTF8`;
/// `NULL_ARG` (`out_len` NULL, or a `(NULL, n > 0)` buffer); `INVALID_ARG` (a length
/// above `PTRDIFF_MAX`, `out` overlapping `text`); `PANIC`.
///
/// # Safety
/// Every non-NULL pointer must point to memory of the stated size, valid for the call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn airlock_strip(
    text: *const u8,
    text_len: usize,
    out: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
    err_offset: *mut usize,
) -> airlock_status {
    ffi_boundary!({
        check_null!(out_ptr out_len);
        check_null!(input text, text_len);
        check_null!(output out, out_cap, disjoint[text]);
        check_null!(pointers [out_len, err_offset] outside [&*out, text]);
        // SAFETY: `err_offset` is NULL or writable, by this function's contract.
        let text = unsafe { buf::utf8(text, err_offset) }?;
        let (status, len) = match strip_into(text, out) {
            Ok(clean) => (airlock_status::Ok, clean.len()),
            Err(small) => (airlock_status::BufferTooSmall, small.needed),
        };
        // SAFETY: `out_len` was checked non-NULL and is writable by the contract.
        unsafe { put(out_len, len) };
        Ok(status)
    })
}

/// The longest prefix of `text` made of whole code points whose UTF-8 length is at
/// most `max_bytes` (SPEC §3 `truncateToBytes`). The prefix is `text[0..*out_len]`, so
/// nothing is copied: it was cut iff `*out_len < text_len`, and the original length
/// is `text_len`. A `max_bytes` of 0 gives the empty prefix.
///
/// * `text`/`text_len`: UTF-8, borrowed for the call; `(NULL, 0)` is empty.
/// * `out_len`: required; receives the prefix length on `OK`.
/// * `err_offset`: NULL, or where the offset of the first invalid sequence is written
///   on `INVALID_UTF8`.
///
/// Returns `OK`; `INVALID_UTF8`; `NULL_ARG` (`out_len` NULL, or `(NULL, n > 0)`);
/// `INVALID_ARG` (a length above `PTRDIFF_MAX`); `PANIC`.
///
/// # Safety
/// Every non-NULL pointer must point to memory of the stated size, valid for the call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn airlock_truncate(
    text: *const u8,
    text_len: usize,
    max_bytes: usize,
    out_len: *mut usize,
    err_offset: *mut usize,
) -> airlock_status {
    ffi_boundary!({
        check_null!(out_ptr out_len);
        check_null!(input text, text_len);
        check_null!(pointers [out_len, err_offset] outside [text]);
        // SAFETY: `err_offset` is NULL or writable, by this function's contract.
        let text = unsafe { buf::utf8(text, err_offset) }?;
        let cut = truncate_to_bytes(text, max_bytes);
        // SAFETY: `out_len` was checked non-NULL and is writable by the contract.
        unsafe { put(out_len, cut.text.len()) };
        Ok(airlock_status::Ok)
    })
}

/// The most bytes `airlock_sanitize_prose` can write for an input of `text_len` bytes
/// and a cap of `max_bytes` (redaction lengthens text; a cut appends the note). A
/// buffer of this size never gives `BUFFER_TOO_SMALL`. Saturates at `SIZE_MAX`.
#[unsafe(no_mangle)]
pub extern "C" fn airlock_worst_case_len(text_len: usize, max_bytes: usize) -> usize {
    ffi_boundary!(on_panic: usize::MAX, {
        airlock_core::worst_case_len(text_len, max_bytes)
    })
}

/// Sanitizes prose (SPEC §3 `sanitizeProse(text, {field, maxBytes})`): strips
/// invisibles, drops controls but TAB and LF, rejects wrapper forgeries naming
/// `field`, redacts envelope markers, cuts to `max_bytes` and appends the
/// reference's truncation note.
///
/// * `text`/`text_len`: UTF-8, borrowed for the call; `(NULL, 0)` is empty.
/// * `field`/`field_len`: UTF-8 field name used in the rejection message (any name,
///   e.g. `"insight"`); `(NULL, 0)` is the empty name.
/// * `max_bytes`: the cap (the note is outside it).
/// * `out`/`out_cap`: the caller's buffer, written only on `OK`;
///   `airlock_worst_case_len(text_len, max_bytes)` bytes always suffice. `(NULL, 0)`
///   only asks for the size. Must not overlap any input.
/// * `out_len`: required; on `OK` the bytes written, on `BUFFER_TOO_SMALL` a size
///   that suffices (when the text is cut inside a multi-byte code point the result
///   is up to 3 bytes shorter than that).
/// * `msg`/`msg_cap`/`msg_len`: the rejection message. `msg_len` NULL means "not
///   wanted". Otherwise, on `REJECTED`, `*msg_len` receives the message's length in
///   bytes and the message (UTF-8, not NUL-terminated) is written to `msg` only if
///   `msg_len <= msg_cap`; a too-small `msg` still returns `REJECTED`, so retry with
///   `*msg_len` bytes. `(NULL, 0)` is a buffer with no room. Untouched on any other
///   status.
/// * `err_offset`: NULL, or where the offset of the first invalid sequence of `text`
///   is written on `INVALID_UTF8`.
///
/// Returns `OK`; `REJECTED` (a wrapper forgery; nothing written to `out`);
/// `BUFFER_TOO_SMALL` (nothing written to `out`); `INVALID_UTF8` (`text`);
/// `INVALID_FIELD` (`field` is not UTF-8); `NULL_ARG` (`out_len` NULL, or a
/// `(NULL, n > 0)` buffer); `INVALID_ARG` (a length above `PTRDIFF_MAX`, overlapping
/// buffers); `PANIC`.
///
/// # Safety
/// Every non-NULL pointer must point to memory of the stated size, valid for the call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn airlock_sanitize_prose(
    text: *const u8,
    text_len: usize,
    field: *const u8,
    field_len: usize,
    max_bytes: usize,
    out: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
    msg: *mut u8,
    msg_cap: usize,
    msg_len: *mut usize,
    err_offset: *mut usize,
) -> airlock_status {
    ffi_boundary!({
        check_null!(out_ptr out_len);
        check_null!(input text, text_len);
        check_null!(input field, field_len);
        check_null!(output out, out_cap, disjoint[text, field]);
        check_null!(message msg, msg_cap, msg_len, disjoint[text, field, &*out]);
        check_null!(pointers [out_len, msg_len, err_offset] outside [&*out, msg.bytes(), text, field]);
        // SAFETY: `err_offset` is NULL or writable, by this function's contract.
        let text = unsafe { buf::utf8(text, err_offset) }?;
        let field = buf::field(field)?;
        let (status, len) = match airlock_core::sanitize_prose(text, field, max_bytes, out) {
            Ok(prose) => (airlock_status::Ok, prose.text.len()),
            Err(ProseError::BufferTooSmall(small)) => {
                (airlock_status::BufferTooSmall, small.needed)
            }
            Err(ProseError::Rejected(rejection)) => {
                return Ok(msg.report(&rejection, airlock_status::Rejected));
            }
        };
        // SAFETY: `out_len` was checked non-NULL and is writable by the contract.
        unsafe { put(out_len, len) };
        Ok(status)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constants_match_core() {
        assert_eq!(
            AIRLOCK_INSIGHT_MAX_BYTES,
            airlock_core::prose::INSIGHT_MAX_BYTES
        );
        assert_eq!(
            AIRLOCK_EVIDENCE_ITEM_MAX_BYTES,
            airlock_core::prose::EVIDENCE_ITEM_MAX_BYTES
        );
        assert_eq!(
            AIRLOCK_EVIDENCE_MAX_BYTES,
            airlock_core::prose::EVIDENCE_MAX_BYTES
        );
        assert_eq!(
            AIRLOCK_TITLE_MAX_BYTES,
            airlock_core::prose::TITLE_MAX_BYTES
        );
        assert_eq!(
            AIRLOCK_DESCRIPTION_MAX_BYTES,
            airlock_core::token::DESCRIPTION_MAX_BYTES
        );
    }
}
