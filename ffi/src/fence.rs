//! The fence token of a payload.

use crate::airlock_status;
use crate::buf::{self, copy_out};

/// The longest fence token: 64 hex characters (the fallback when all 64 salted
/// 8-character tokens occur in the payload). A buffer of this size always suffices.
pub const AIRLOCK_FENCE_TOKEN_MAX_LEN: usize = 64;

/// `deriveFenceToken(payload)` (SPEC §6): 8 lower-case hex characters derived from the
/// payload and provably absent from it (64 in the pathological fallback), so the
/// payload cannot spell its own closing fence.
///
/// * `payload`/`payload_len`: UTF-8, borrowed for the call; `(NULL, 0)` is empty.
/// * `out`/`out_cap`: the caller's buffer, written only on `OK` (ASCII, not
///   NUL-terminated); `AIRLOCK_FENCE_TOKEN_MAX_LEN` bytes always suffice. Must not
///   overlap `payload`.
/// * `out_len`: required; on `OK` the token's length, on `BUFFER_TOO_SMALL` the size
///   needed.
/// * `err_offset`: NULL, or where the offset of the first invalid sequence is written
///   on `INVALID_UTF8`.
///
/// Returns `OK`; `BUFFER_TOO_SMALL`; `INVALID_UTF8`; `NULL_ARG` (`out_len` NULL, or a
/// `(NULL, n > 0)` buffer); `INVALID_ARG` (a length above `PTRDIFF_MAX`, overlapping
/// buffers); `PANIC`.
///
/// # Safety
/// Every non-NULL pointer must point to memory of the stated size, valid for the call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn airlock_fence_token(
    payload: *const u8,
    payload_len: usize,
    out: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
    err_offset: *mut usize,
) -> airlock_status {
    ffi_boundary!({
        check_null!(out_ptr out_len);
        check_null!(input payload, payload_len);
        check_null!(output out, out_cap, disjoint[payload]);
        check_null!(pointers [out_len, err_offset] outside [&*out, payload]);
        // SAFETY: `err_offset` is NULL or writable, by this function's contract.
        let payload = unsafe { buf::utf8(payload, err_offset) }?;
        let token = airlock_core::fence_token(payload.as_bytes());
        // SAFETY: `out_len` was checked non-NULL and is writable by the contract.
        Ok(unsafe { copy_out(token.as_bytes(), out, out_len) })
    })
}
