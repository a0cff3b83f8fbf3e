//! Raw pointers in, safe slices out: the only place that turns caller memory into
//! Rust references, and the writers for outputs and rejection messages.

use core::fmt::{self, Write};

use crate::airlock_status;

/// The largest length a Rust slice may have.
const MAX_LEN: usize = isize::MAX.unsigned_abs();

/// An input buffer: `(NULL, 0)` is empty, `(NULL, n > 0)` is `NULL_ARG`.
///
/// # Safety
/// Unless `ptr` is NULL or `len` is 0, `ptr` must point to `len` readable bytes that
/// stay valid and unmodified for `'a`.
pub(crate) unsafe fn input<'a>(ptr: *const u8, len: usize) -> Result<&'a [u8], airlock_status> {
    if len == 0 {
        return Ok(&[]);
    }
    if ptr.is_null() {
        return Err(airlock_status::NullArg);
    }
    if len > MAX_LEN {
        return Err(airlock_status::InvalidArg);
    }
    // SAFETY: non-NULL, `len` ≤ isize::MAX, and the caller guarantees `len` readable
    // bytes valid for 'a; u8 has no alignment or validity requirement.
    Ok(unsafe { core::slice::from_raw_parts(ptr, len) })
}

/// An output buffer: `(NULL, 0)` has no room, `(NULL, n > 0)` is `NULL_ARG`; a buffer
/// overlapping any of `others` is `INVALID_ARG` (Rust may not alias it).
///
/// # Safety
/// Unless `ptr` is NULL or `cap` is 0, `ptr` must point to `cap` writable bytes that
/// nothing else reads or writes for `'a`, except the ranges of `others`, which are
/// checked.
pub(crate) unsafe fn output<'a>(
    ptr: *mut u8,
    cap: usize,
    others: &[&[u8]],
) -> Result<&'a mut [u8], airlock_status> {
    if cap == 0 {
        return Ok(&mut []);
    }
    if ptr.is_null() {
        return Err(airlock_status::NullArg);
    }
    if cap > MAX_LEN {
        return Err(airlock_status::InvalidArg);
    }
    let start = ptr.addr();
    let end = start.saturating_add(cap);
    let overlaps = others.iter().any(|o| {
        let o_start = o.as_ptr().addr();
        !o.is_empty() && o_start < end && start < o_start.saturating_add(o.len())
    });
    if overlaps {
        return Err(airlock_status::InvalidArg);
    }
    // SAFETY: non-NULL, `cap` ≤ isize::MAX, the caller guarantees `cap` writable bytes
    // used by no one else for 'a, and we just checked they are disjoint from the
    // slices this call borrows.
    Ok(unsafe { core::slice::from_raw_parts_mut(ptr, cap) })
}

/// The optional `(msg, msg_cap, msg_len)` triple of a rejecting call.
pub(crate) struct Message<'a> {
    buf: &'a mut [u8],
    len: *mut usize,
}

/// Builds a [`Message`]; `msg` follows [`output`]'s rules, `len` may be NULL.
///
/// # Safety
/// As [`output`] for `(msg, cap)`; `len` is NULL or points to a writable `size_t`.
pub(crate) unsafe fn message<'a>(
    msg: *mut u8,
    cap: usize,
    len: *mut usize,
    others: &[&[u8]],
) -> Result<Message<'a>, airlock_status> {
    // SAFETY: forwarded from the caller.
    let buf = unsafe { output(msg, cap, others) }?;
    Ok(Message { buf, len })
}

impl Message<'_> {
    /// The message buffer, for overlap checks.
    pub(crate) fn bytes(&self) -> &[u8] {
        self.buf
    }

    /// Reports `message`: its length in `*msg_len` (when not NULL), and its bytes in
    /// `msg` when they all fit. Returns `status`, so a rejecting export ends with
    /// `Ok(msg.report(&rejection, REJECTED))`.
    pub(crate) fn report(
        self,
        message: &dyn fmt::Display,
        status: airlock_status,
    ) -> airlock_status {
        if self.len.is_null() {
            return status;
        }
        let needed = write_whole(message, self.buf);
        // SAFETY: `len` is non-NULL and, by the contract taken in `message`, points to
        // a writable `size_t`.
        unsafe { put(self.len, needed) };
        status
    }
}

/// Writes what `value` displays into `buf` when all of it fits (else nothing);
/// returns its length.
pub(crate) fn write_whole(value: &dyn fmt::Display, buf: &mut [u8]) -> usize {
    let needed = display_len(value);
    if needed <= buf.len() {
        let mut w = SliceWriter { buf, len: 0 };
        // Cannot fail: the buffer holds `needed` bytes.
        let _ = write!(w, "{value}");
    }
    needed
}

/// The length of what `value` displays.
pub(crate) fn display_len(value: &dyn fmt::Display) -> usize {
    struct Counter(usize);
    impl Write for Counter {
        fn write_str(&mut self, s: &str) -> fmt::Result {
            self.0 = self.0.saturating_add(s.len());
            Ok(())
        }
    }
    let mut c = Counter(0);
    let _ = write!(c, "{value}");
    c.0
}

/// Writes into a byte slice, failing instead of overflowing.
struct SliceWriter<'a> {
    buf: &'a mut [u8],
    len: usize,
}

impl Write for SliceWriter<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let end = self.len.checked_add(s.len()).ok_or(fmt::Error)?;
        let dst = self.buf.get_mut(self.len..end).ok_or(fmt::Error)?;
        dst.copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

/// The bytes an out pointer (`out_len`, `msg_len`, `err_offset`, a result struct)
/// writes, as a start address and a size; `None` for NULL, which writes nothing.
pub(crate) fn target_of<T>(ptr: *mut T) -> Option<(usize, usize)> {
    (!ptr.is_null()).then(|| (ptr.addr(), core::mem::size_of::<T>()))
}

/// The address range of a buffer (start, length in bytes), for overlap checks; `None`
/// when it is empty, which overlaps nothing.
pub(crate) trait Extent {
    fn extent(&self) -> Option<(usize, usize)>;
}

impl Extent for [u8] {
    fn extent(&self) -> Option<(usize, usize)> {
        (!self.is_empty()).then(|| (self.as_ptr().addr(), self.len()))
    }
}

fn overlap(a: (usize, usize), b: (usize, usize)) -> bool {
    a.0 < b.0.saturating_add(b.1) && b.0 < a.0.saturating_add(a.1)
}

/// `INVALID_ARG` when an out pointer's target overlaps any of `buffers` (the call's
/// output buffers and inputs). Written through, it would corrupt an output the call
/// reports as complete, or change an input while the call reads it; so the call is
/// refused before anything is written. Two out pointers naming the same variable are
/// left alone: each write is whole, and callers do pass one scratch variable twice.
pub(crate) fn pointers_outside(
    targets: &[Option<(usize, usize)>],
    buffers: &[Option<(usize, usize)>],
) -> Result<(), airlock_status> {
    let overlaps = targets.iter().flatten().any(|&target| {
        buffers
            .iter()
            .flatten()
            .any(|&buffer| overlap(target, buffer))
    });
    if overlaps {
        return Err(airlock_status::InvalidArg);
    }
    Ok(())
}

/// `INVALID_ARG` when two of the call's output buffers overlap each other.
pub(crate) fn outputs_disjoint(buffers: &[Option<(usize, usize)>]) -> Result<(), airlock_status> {
    let clash = buffers.iter().enumerate().any(|(i, a)| {
        buffers
            .iter()
            .skip(i.saturating_add(1))
            .any(|b| a.zip(*b).is_some_and(|(a, b)| overlap(a, b)))
    });
    if clash {
        return Err(airlock_status::InvalidArg);
    }
    Ok(())
}

/// Writes `value` through `ptr` unless it is NULL.
///
/// # Safety
/// `ptr` is NULL or points to a writable, aligned `T`.
pub(crate) unsafe fn put<T>(ptr: *mut T, value: T) {
    if !ptr.is_null() {
        // SAFETY: non-NULL, and the caller guarantees it is writable and aligned.
        unsafe { ptr.write(value) };
    }
}

/// `bytes` as UTF-8 text, or `INVALID_UTF8` with the offset of the first invalid
/// sequence written to `err_offset` (unless NULL).
///
/// # Safety
/// `err_offset` is NULL or points to a writable `size_t`.
pub(crate) unsafe fn utf8(bytes: &[u8], err_offset: *mut usize) -> Result<&str, airlock_status> {
    airlock_core::utf8::validate(bytes).map_err(|e| {
        // SAFETY: forwarded from the caller.
        unsafe { put(err_offset, e.offset()) };
        airlock_status::InvalidUtf8
    })
}

/// A field name as UTF-8, or `INVALID_FIELD`.
pub(crate) fn field(bytes: &[u8]) -> Result<&str, airlock_status> {
    core::str::from_utf8(bytes).map_err(|_| airlock_status::InvalidField)
}

/// Copies `src` into `out`: `BUFFER_TOO_SMALL` with the size needed in `*out_len` when
/// it does not fit, else the bytes and their length.
///
/// # Safety
/// `out_len` points to a writable `size_t`.
pub(crate) unsafe fn copy_out(src: &[u8], out: &mut [u8], out_len: *mut usize) -> airlock_status {
    let Some(dst) = out.get_mut(..src.len()) else {
        // SAFETY: forwarded from the caller.
        unsafe { put(out_len, src.len()) };
        return airlock_status::BufferTooSmall;
    };
    dst.copy_from_slice(src);
    // SAFETY: forwarded from the caller.
    unsafe { put(out_len, src.len()) };
    airlock_status::Ok
}

/// The position of `part`, a sub-slice of `whole`, as `(start, len)`; `None` when it is
/// not inside `whole` (an empty `part` is `(0, 0)` wherever it points).
pub(crate) fn span(whole: &str, part: &str) -> Option<(usize, usize)> {
    if part.is_empty() {
        return Some((0, 0));
    }
    let start = part.as_ptr().addr().checked_sub(whole.as_ptr().addr())?;
    let end = start.checked_add(part.len())?;
    (end <= whole.len()).then_some((start, part.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn input_rules() {
        // SAFETY: NULL with length 0 is never read.
        assert_eq!(unsafe { input(core::ptr::null(), 0) }, Ok(&[][..]));
        // SAFETY: NULL with a length is rejected before any read.
        let refused = unsafe { input(core::ptr::null(), 3) };
        assert_eq!(refused, Err(airlock_status::NullArg));
    }

    #[test]
    fn output_must_not_overlap() {
        let mut buf = [0u8; 8];
        let p = buf.as_mut_ptr();
        // SAFETY: test-only aliasing check; the input slice is never used after the
        // call fails.
        let inp: &[u8] = unsafe { core::slice::from_raw_parts(p.wrapping_add(2), 2) };
        // SAFETY: the call must refuse before building the slice.
        let r = unsafe { output(p, 8, &[inp]) };
        assert!(matches!(r, Err(airlock_status::InvalidArg)));
    }

    #[test]
    fn out_pointers_must_lie_outside_the_buffers() {
        let buf = [0u8; 32];
        let inside = buf.as_ptr().wrapping_add(8).cast_mut().cast::<usize>();
        let straddling = buf.as_ptr().wrapping_add(28).cast_mut().cast::<usize>();
        let mut elsewhere = 0usize;
        let outside: *mut usize = &mut elsewhere;
        let refused = Err(airlock_status::InvalidArg);
        let whole = [buf.extent()];
        assert_eq!(pointers_outside(&[target_of(inside)], &whole), refused);
        assert_eq!(pointers_outside(&[target_of(straddling)], &whole), refused);
        assert_eq!(pointers_outside(&[target_of(outside)], &whole), Ok(()));
        let null: *mut usize = core::ptr::null_mut();
        assert_eq!(pointers_outside(&[target_of(null)], &whole), Ok(()));
        // Just past the end, or an empty buffer, is no overlap.
        let after = buf.as_ptr().wrapping_add(32).cast_mut().cast::<usize>();
        assert_eq!(pointers_outside(&[target_of(after)], &whole), Ok(()));
        let empty = [buf[8..8].extent()];
        assert_eq!(pointers_outside(&[target_of(inside)], &empty), Ok(()));
        // Two output buffers sharing a byte are refused; touching ones are not.
        assert_eq!(
            outputs_disjoint(&[buf[..16].extent(), buf[16..].extent()]),
            Ok(())
        );
        assert_eq!(
            outputs_disjoint(&[buf[..17].extent(), None, buf[16..].extent()]),
            refused
        );
    }

    #[test]
    fn spans() {
        let doc = "abc def";
        assert_eq!(span(doc, &doc[4..]), Some((4, 3)));
        assert_eq!(span(doc, ""), Some((0, 0)));
        assert_eq!(span(doc, "zz"), None);
    }
}
