//! The two macros every export goes through: the panic boundary and the null checks.

/// Runs an export's body so that a panic never crosses into the caller.
///
/// * `ffi_boundary!({ ... })`: the body returns `Result<airlock_status, airlock_status>`
///   (so `?` works on a failed check); both arms become the returned status, and a
///   panic becomes `AIRLOCK_STATUS_PANIC`.
/// * `ffi_boundary!(on_panic: value, { ... })`: for exports that answer a plain value
///   (a flag, a size, a static string); a panic returns `value`.
macro_rules! ffi_boundary {
    ($body:block) => {
        match ::std::panic::catch_unwind(::std::panic::AssertUnwindSafe(
            || -> ::core::result::Result<$crate::airlock_status, $crate::airlock_status> { $body },
        )) {
            Ok(Ok(status)) | Ok(Err(status)) => status,
            Err(_) => $crate::airlock_status::Panic,
        }
    };
    (on_panic: $on_panic:expr, $body:block) => {
        match ::std::panic::catch_unwind(::std::panic::AssertUnwindSafe(|| $body)) {
            Ok(value) => value,
            Err(_) => $on_panic,
        }
    };
}

/// Turns each pointer argument into something safe to use, or returns the status
/// that says why not (with `?`, so only inside [`ffi_boundary!`]).
///
/// * `check_null!(out_ptr p)`: a pointer the call must write through; NULL is
///   `NULL_ARG`.
/// * `check_null!(input p, len)`: shadows `p` with `&[u8]`; `(NULL, 0)` is empty,
///   `(NULL, n > 0)` is `NULL_ARG`.
/// * `check_null!(output p, cap, disjoint [a, b])`: shadows `p` with `&mut [u8]`;
///   NULL with a capacity is `NULL_ARG`, and overlapping any of the listed byte
///   slices is `INVALID_ARG`.
/// * `check_null!(message msg, cap, len, disjoint [a, b])`: shadows `msg` with a
///   `buf::Message`, the optional message triple of a rejecting call.
/// * `check_null!(pointers [out_len, err_offset] outside [out, msg, text])`: an out
///   pointer whose target overlaps one of the listed byte slices (the call's outputs
///   and inputs) is `INVALID_ARG`; NULL pointers are skipped.
/// * `check_null!(outputs disjoint [msg, &globs, &meta])`: output buffers sharing a
///   byte are `INVALID_ARG`.
macro_rules! check_null {
    (out_ptr $p:ident) => {
        if $p.is_null() {
            return Err($crate::airlock_status::NullArg);
        }
    };
    (input $p:ident, $len:ident) => {
        // SAFETY: the header's contract for every input buffer: unless NULL, `$p`
        // points to `$len` readable bytes that stay valid and unmodified during the
        // call. `buf::input` handles NULL and oversized lengths.
        let $p: &[u8] = unsafe { $crate::buf::input($p, $len) }?;
    };
    (output $p:ident, $cap:ident, disjoint [$($other:expr),* $(,)?]) => {
        // SAFETY: the header's contract for every output buffer: unless NULL, `$p`
        // points to `$cap` writable bytes, valid during the call and not touched by
        // anyone else meanwhile. Overlap with the inputs is checked inside.
        let $p: &mut [u8] = unsafe { $crate::buf::output($p, $cap, &[$($other),*]) }?;
    };
    (message $p:ident, $cap:ident, $len:ident, disjoint [$($other:expr),* $(,)?]) => {
        let $p: $crate::buf::Message<'_> =
            // SAFETY: as for an output buffer; `$len` is NULL or points to a
            // writable `size_t`.
            unsafe { $crate::buf::message($p, $cap, $len, &[$($other),*]) }?;
    };
    (pointers [$($p:ident),* $(,)?] outside [$($buf:expr),* $(,)?]) => {
        $crate::buf::pointers_outside(
            &[$($crate::buf::target_of($p)),*],
            &[$($crate::buf::Extent::extent($buf)),*],
        )?;
    };
    (outputs disjoint [$($buf:expr),* $(,)?]) => {
        $crate::buf::outputs_disjoint(&[$($crate::buf::Extent::extent($buf)),*])?;
    };
}
