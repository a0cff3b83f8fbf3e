//! Machine-value checks and the wrapper-forgery check: accept, or reject with the
//! reference's exact message.

use core::ffi::{CStr, c_char};

use airlock_core::forgery::LiteralSet;
use airlock_core::{
    Rejection, Shape, check_machine_token, check_no_control, check_no_forgery,
    check_safe_description, check_safe_glob,
};

use crate::airlock_status;
use crate::buf::{self, Message};

/// The machine-token shapes, for `airlock_check_machine_token`. 0 is no shape.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum airlock_shape {
    /// `host-class`: `^[A-Za-z0-9._-]+$`.
    HostClass = 1,
    /// `learning-key`: `^[a-z0-9/-]+$`.
    LearningKey = 2,
    /// `expires-at`: `^\d{4}-\d{2}-\d{2}$` (ASCII digits, nothing after).
    ExpiresAt = 3,
    /// `learning-id`, `source-session`: `^[A-Za-z0-9._:-]+$`.
    Provenance = 4,
}

impl airlock_shape {
    const ALL: [airlock_shape; 4] = [
        airlock_shape::HostClass,
        airlock_shape::LearningKey,
        airlock_shape::ExpiresAt,
        airlock_shape::Provenance,
    ];

    fn from_u32(value: u32) -> Option<Shape> {
        Self::ALL
            .into_iter()
            .find(|s| *s as u32 == value)
            .map(|s| match s {
                airlock_shape::HostClass => Shape::HostClass,
                airlock_shape::LearningKey => Shape::LearningKey,
                airlock_shape::ExpiresAt => Shape::ExpiresAt,
                airlock_shape::Provenance => Shape::Provenance,
            })
    }
}

/// Static NUL-terminated pattern sources, as the reference spells them.
const PATTERNS: [&CStr; 4] = [
    c"^[A-Za-z0-9._-]+$",
    c"^[a-z0-9/-]+$",
    c"^\\d{4}-\\d{2}-\\d{2}$",
    c"^[A-Za-z0-9._:-]+$",
];

/// The pattern source of a shape exactly as rejection messages spell it (e.g.
/// `"^\d{4}-\d{2}-\d{2}$"`), or NULL for a value that is no `airlock_shape`.
///
/// Returns a static NUL-terminated string: never to be freed.
#[unsafe(no_mangle)]
pub extern "C" fn airlock_shape_pattern(shape: u32) -> *const c_char {
    ffi_boundary!(on_panic: core::ptr::null(), {
        match airlock_shape::from_u32(shape) {
            Some(s) => PATTERNS
                .into_iter()
                .find(|p| p.to_bytes() == s.pattern().as_bytes())
                .map_or(core::ptr::null(), CStr::as_ptr),
            None => core::ptr::null(),
        }
    })
}

/// The common end of a check: OK, or REJECTED with the message reported.
fn verdict<T>(result: Result<T, Rejection<'_>>, msg: Message<'_>) -> airlock_status {
    match result {
        Ok(_) => airlock_status::Ok,
        Err(rejection) => msg.report(&rejection, airlock_status::Rejected),
    }
}

/// `assertMachineToken(value, {field, pattern})`: `value` must be non-empty and have
/// `shape` (an `airlock_shape`), or the record is rejected, never repaired.
///
/// * `value`/`value_len`: UTF-8, borrowed for the call; `(NULL, 0)` is empty (and
///   rejected: "must be a non-empty string").
/// * `field`/`field_len`: UTF-8 field name for the message; `(NULL, 0)` is empty.
/// * `shape`: an `airlock_shape` value.
/// * `msg`/`msg_cap`/`msg_len`: the rejection message. `msg_len` NULL means "not
///   wanted". Otherwise, on `REJECTED`, `*msg_len` receives the message's length and
///   the message (UTF-8, not NUL-terminated) is written to `msg` only if it fits in
///   `msg_cap`; a too-small `msg` still returns `REJECTED`. Untouched on any other
///   status.
/// * `err_offset`: NULL, or where the offset of the first invalid sequence of `value`
///   is written on `INVALID_UTF8`.
///
/// Returns `OK` (accepted); `REJECTED`; `INVALID_UTF8` (`value`); `INVALID_FIELD`;
/// `INVALID_ARG` (unknown `shape`, a length above `PTRDIFF_MAX`, `msg` overlapping an
/// input); `NULL_ARG` (a `(NULL, n > 0)` buffer); `PANIC`.
///
/// # Safety
/// Every non-NULL pointer must point to memory of the stated size, valid for the call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn airlock_check_machine_token(
    value: *const u8,
    value_len: usize,
    field: *const u8,
    field_len: usize,
    shape: u32,
    msg: *mut u8,
    msg_cap: usize,
    msg_len: *mut usize,
    err_offset: *mut usize,
) -> airlock_status {
    ffi_boundary!({
        check_null!(input value, value_len);
        check_null!(input field, field_len);
        check_null!(message msg, msg_cap, msg_len, disjoint[value, field]);
        check_null!(pointers [msg_len, err_offset] outside [msg.bytes(), value, field]);
        let shape = airlock_shape::from_u32(shape).ok_or(airlock_status::InvalidArg)?;
        // SAFETY: `err_offset` is NULL or writable, by this function's contract.
        let value = unsafe { buf::utf8(value, err_offset) }?;
        let field = buf::field(field)?;
        Ok(verdict(check_machine_token(value, field, shape), msg))
    })
}

/// `assertNoControlChars(value, field)`: no control character (Cc), then no dangerous
/// invisible. Orphan variation selectors pass. Empty passes.
///
/// Arguments, message triple and statuses as `airlock_check_machine_token`, without
/// `shape`.
///
/// # Safety
/// Every non-NULL pointer must point to memory of the stated size, valid for the call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn airlock_check_no_control(
    value: *const u8,
    value_len: usize,
    field: *const u8,
    field_len: usize,
    msg: *mut u8,
    msg_cap: usize,
    msg_len: *mut usize,
    err_offset: *mut usize,
) -> airlock_status {
    ffi_boundary!({
        check_null!(input value, value_len);
        check_null!(input field, field_len);
        check_null!(message msg, msg_cap, msg_len, disjoint[value, field]);
        check_null!(pointers [msg_len, err_offset] outside [msg.bytes(), value, field]);
        // SAFETY: `err_offset` is NULL or writable, by this function's contract.
        let value = unsafe { buf::utf8(value, err_offset) }?;
        let field = buf::field(field)?;
        Ok(verdict(check_no_control(value, field), msg))
    })
}

/// `assertSafeDescription(value)`: the no-control check as `description`, then the
/// wrapper-forgery check, then at most `AIRLOCK_DESCRIPTION_MAX_BYTES` bytes.
///
/// Arguments, message triple and statuses as `airlock_check_machine_token`, without
/// `field` and `shape` (never `INVALID_FIELD`).
///
/// # Safety
/// Every non-NULL pointer must point to memory of the stated size, valid for the call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn airlock_check_safe_description(
    value: *const u8,
    value_len: usize,
    msg: *mut u8,
    msg_cap: usize,
    msg_len: *mut usize,
    err_offset: *mut usize,
) -> airlock_status {
    ffi_boundary!({
        check_null!(input value, value_len);
        check_null!(message msg, msg_cap, msg_len, disjoint[value]);
        check_null!(pointers [msg_len, err_offset] outside [msg.bytes(), value]);
        // SAFETY: `err_offset` is NULL or writable, by this function's contract.
        let value = unsafe { buf::utf8(value, err_offset) }?;
        Ok(verdict(check_safe_description(value), msg))
    })
}

/// `assertSafeGlob(value)`: non-empty, no `"`, no control character, no dangerous
/// invisible. The message names the field `globs[]`.
///
/// Arguments, message triple and statuses as `airlock_check_machine_token`, without
/// `field` and `shape` (never `INVALID_FIELD`).
///
/// # Safety
/// Every non-NULL pointer must point to memory of the stated size, valid for the call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn airlock_check_safe_glob(
    value: *const u8,
    value_len: usize,
    msg: *mut u8,
    msg_cap: usize,
    msg_len: *mut usize,
    err_offset: *mut usize,
) -> airlock_status {
    ffi_boundary!({
        check_null!(input value, value_len);
        check_null!(message msg, msg_cap, msg_len, disjoint[value]);
        check_null!(pointers [msg_len, err_offset] outside [msg.bytes(), value]);
        // SAFETY: `err_offset` is NULL or writable, by this function's contract.
        let value = unsafe { buf::utf8(value, err_offset) }?;
        Ok(verdict(check_safe_glob(value), msg))
    })
}

/// `assertNoWrapperForgery(text, field)`: rejects `text` when it contains one of the
/// reference's delivery-wrapper literals, compared ASCII-case-insensitively (no
/// stripping first: `airlock_sanitize_prose` strips before it checks).
///
/// Arguments, message triple and statuses as `airlock_check_machine_token`, without
/// `shape`.
///
/// # Safety
/// Every non-NULL pointer must point to memory of the stated size, valid for the call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn airlock_check_no_forgery(
    text: *const u8,
    text_len: usize,
    field: *const u8,
    field_len: usize,
    msg: *mut u8,
    msg_cap: usize,
    msg_len: *mut usize,
    err_offset: *mut usize,
) -> airlock_status {
    ffi_boundary!({
        check_null!(input text, text_len);
        check_null!(input field, field_len);
        check_null!(message msg, msg_cap, msg_len, disjoint[text, field]);
        check_null!(pointers [msg_len, err_offset] outside [msg.bytes(), text, field]);
        // SAFETY: `err_offset` is NULL or writable, by this function's contract.
        let text = unsafe { buf::utf8(text, err_offset) }?;
        let field = buf::field(field)?;
        Ok(verdict(
            check_no_forgery(text, field, &LiteralSet::DEFAULT),
            msg,
        ))
    })
}

/// Threading-header hygiene for outgoing mail: `In-Reply-To` (`multiple` false:
/// exactly one `<left@right>` message id) or `References` (`multiple` true: one or
/// more, separated by whitespace). HTML entities (`&lt;`, `&gt;`, `&amp;`, any case),
/// missing or stray angle brackets, empty ids and empty id parts are rejected.
///
/// * `value`/`value_len`: UTF-8, borrowed for the call; `(NULL, 0)` is empty (and
///   rejected).
/// * `msg`/`msg_cap`/`msg_len`: the reason, naming what was wrong and its byte offset,
///   as for `airlock_check_machine_token`.
/// * `err_offset`: NULL, or where the offset of the first invalid sequence of `value`
///   is written on `INVALID_UTF8`.
///
/// Returns `OK` (well formed), `REJECTED`, `NULL_ARG`, `INVALID_ARG` (overlapping
/// buffers), `INVALID_UTF8` or `PANIC`.
///
/// # Safety
/// Every non-NULL pointer must point to memory of the stated size, valid for the call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn airlock_check_message_ids(
    value: *const u8,
    value_len: usize,
    multiple: bool,
    msg: *mut u8,
    msg_cap: usize,
    msg_len: *mut usize,
    err_offset: *mut usize,
) -> airlock_status {
    ffi_boundary!({
        check_null!(input value, value_len);
        check_null!(message msg, msg_cap, msg_len, disjoint[value]);
        check_null!(pointers [msg_len, err_offset] outside [msg.bytes(), value]);
        // SAFETY: `err_offset` is NULL or writable, by this function's contract.
        let value = unsafe { buf::utf8(value, err_offset) }?;
        Ok(
            match airlock_core::header::check_message_ids(value, multiple) {
                Ok(()) => airlock_status::Ok,
                Err(e) => msg.report(&e, airlock_status::Rejected),
            },
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_match_core() {
        for s in airlock_shape::ALL {
            let p = airlock_shape_pattern(s as u32);
            assert!(!p.is_null());
            // SAFETY: a static NUL-terminated string.
            let p = unsafe { CStr::from_ptr(p) };
            let core = airlock_shape::from_u32(s as u32).unwrap();
            assert_eq!(p.to_str().unwrap(), core.pattern());
        }
        assert!(airlock_shape_pattern(0).is_null());
        assert!(airlock_shape_pattern(5).is_null());
    }
}
