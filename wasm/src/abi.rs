//! The module's exports: offsets into linear memory in, a status out, lengths in the
//! result words ([`aw_result`]). Only this file touches raw memory.
//!
//! Memory: everything above `__heap_base` is the caller's arena. `aw_reserve(n)`
//! grows the memory until the arena holds `n` bytes and returns its start; the
//! loader lays each call's buffers out in it. Every region a call is handed is
//! checked to lie inside the arena, and each output to share no byte with any other
//! region, before a slice is made of it: a wrong offset is [`Status::InvalidArg`],
//! never a write into the module's own data or stack.
#![allow(unsafe_code)]
#![deny(
    clippy::undocumented_unsafe_blocks,
    clippy::multiple_unsafe_ops_per_block
)]

use core::sync::atomic::{AtomicU32, Ordering};

use crate::ops::{self, Outcome, Status};

const PAGE: usize = 65536;

// SAFETY: `__heap_base` is defined by wasm-ld for every module; only its address is
// taken, never its value.
unsafe extern "C" {
    static __heap_base: u8;
}

fn heap_base() -> usize {
    core::ptr::addr_of!(__heap_base) as usize
}

fn memory_end() -> usize {
    core::arch::wasm32::memory_size::<0>().saturating_mul(PAGE)
}

/// The result words: `[0]` the output length (or room needed), `[1]` the message
/// length.
static RESULT: [AtomicU32; 2] = [AtomicU32::new(0), AtomicU32::new(0)];

/// The address of the two result words (little-endian `u32`s).
#[unsafe(no_mangle)]
pub extern "C" fn aw_result() -> *const AtomicU32 {
    RESULT.as_ptr()
}

fn finish(status: Status, outcome: Outcome) -> u32 {
    let word = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    let [len, msg] = &RESULT;
    len.store(word(outcome.len), Ordering::Relaxed);
    msg.store(word(outcome.msg_len), Ordering::Relaxed);
    status as u32
}

/// Grows the memory so that the arena holds at least `bytes` bytes; returns the
/// arena's start, or 0 when the memory cannot grow that far.
#[unsafe(no_mangle)]
pub extern "C" fn aw_reserve(bytes: usize) -> usize {
    let base = heap_base();
    let Some(end) = base.checked_add(bytes) else {
        return 0;
    };
    let have = memory_end();
    if end > have {
        let pages = (end.wrapping_sub(have)).div_ceil(PAGE);
        if core::arch::wasm32::memory_grow::<0>(pages) == usize::MAX {
            return 0;
        }
    }
    base
}

/// A region of the arena, checked.
#[derive(Clone, Copy)]
struct Region {
    at: usize,
    len: usize,
}

impl Region {
    fn new(at: usize, len: usize) -> Result<Region, Status> {
        if len == 0 {
            return Ok(Region { at: 0, len: 0 });
        }
        let end = at.checked_add(len).ok_or(Status::InvalidArg)?;
        if at < heap_base() || end > memory_end() {
            return Err(Status::InvalidArg);
        }
        Ok(Region { at, len })
    }

    fn overlaps(self, other: Region) -> bool {
        self.len != 0
            && other.len != 0
            && self.at < other.at.saturating_add(other.len)
            && other.at < self.at.saturating_add(self.len)
    }

    fn input<'a>(self) -> &'a [u8] {
        if self.len == 0 {
            return &[];
        }
        // SAFETY: `new` checked that the region lies inside linear memory, above the
        // module's data and stack; wasm memory is always readable, and no output of
        // the same call overlaps an input (`outputs`).
        unsafe { core::slice::from_raw_parts(self.at as *const u8, self.len) }
    }

    fn output<'a>(self) -> &'a mut [u8] {
        if self.len == 0 {
            return &mut [];
        }
        // SAFETY: as for `input`; `outputs` checked that this region shares no byte
        // with any other region of the call, so this is the only reference to it.
        unsafe { core::slice::from_raw_parts_mut(self.at as *mut u8, self.len) }
    }
}

/// Checks that each output region shares no byte with any other region of the call.
fn outputs(outs: &[Region], ins: &[Region]) -> Result<(), Status> {
    for (i, o) in outs.iter().enumerate() {
        let others = outs.iter().skip(i.saturating_add(1)).chain(ins);
        if others.clone().any(|r| o.overlaps(*r)) {
            return Err(Status::InvalidArg);
        }
    }
    Ok(())
}

/// Runs an export over checked regions.
fn call(f: impl FnOnce(&mut Outcome) -> Result<Status, Status>) -> u32 {
    let mut outcome = Outcome::default();
    let status = f(&mut outcome).unwrap_or_else(|s| s);
    finish(status, outcome)
}

/// The output room that always suffices for `aw_sanitize` (saturating).
#[unsafe(no_mangle)]
pub extern "C" fn aw_worst_case_len(profile: u32, text_len: usize, max_bytes: usize) -> usize {
    ops::worst_case_len(profile, text_len, max_bytes)
}

/// `sanitizeProse`; see [`ops::sanitize`].
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub extern "C" fn aw_sanitize(
    profile: u32,
    text: usize,
    text_len: usize,
    field: usize,
    field_len: usize,
    max_bytes: usize,
    out: usize,
    out_cap: usize,
    msg: usize,
    msg_cap: usize,
) -> u32 {
    call(|o| {
        let (t, f) = (Region::new(text, text_len)?, Region::new(field, field_len)?);
        let (w, m) = (Region::new(out, out_cap)?, Region::new(msg, msg_cap)?);
        outputs(&[w, m], &[t, f])?;
        Ok(ops::sanitize(
            profile,
            t.input(),
            f.input(),
            max_bytes,
            w.output(),
            m.output(),
            o,
        ))
    })
}

/// `stripDangerousInvisibles`; see [`ops::strip`].
#[unsafe(no_mangle)]
pub extern "C" fn aw_strip(
    profile: u32,
    text: usize,
    text_len: usize,
    out: usize,
    out_cap: usize,
) -> u32 {
    call(|o| {
        let (t, w) = (Region::new(text, text_len)?, Region::new(out, out_cap)?);
        outputs(&[w], &[t])?;
        Ok(ops::strip(profile, t.input(), w.output(), o))
    })
}

/// `truncateToBytes`; see [`ops::truncate`].
#[unsafe(no_mangle)]
pub extern "C" fn aw_truncate(text: usize, text_len: usize, max_bytes: usize) -> u32 {
    call(|o| {
        Ok(ops::truncate(
            Region::new(text, text_len)?.input(),
            max_bytes,
            o,
        ))
    })
}

/// `deriveFenceToken`; see [`ops::fence`].
#[unsafe(no_mangle)]
pub extern "C" fn aw_fence(text: usize, text_len: usize, out: usize, out_cap: usize) -> u32 {
    call(|o| {
        let (t, w) = (Region::new(text, text_len)?, Region::new(out, out_cap)?);
        outputs(&[w], &[t])?;
        Ok(ops::fence(t.input(), w.output(), o))
    })
}

/// The value checks; see [`ops::check`].
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub extern "C" fn aw_check(
    which: u32,
    profile: u32,
    arg: u32,
    value: usize,
    value_len: usize,
    field: usize,
    field_len: usize,
    msg: usize,
    msg_cap: usize,
) -> u32 {
    call(|o| {
        let (v, f) = (
            Region::new(value, value_len)?,
            Region::new(field, field_len)?,
        );
        let m = Region::new(msg, msg_cap)?;
        outputs(&[m], &[v, f])?;
        Ok(ops::check(
            which,
            profile,
            arg,
            v.input(),
            f.input(),
            m.output(),
            o,
        ))
    })
}

/// `parseGlobsFrontmatter`; see [`ops::frontmatter_read`].
#[unsafe(no_mangle)]
pub extern "C" fn aw_frontmatter(
    doc: usize,
    doc_len: usize,
    out: usize,
    out_cap: usize,
    msg: usize,
    msg_cap: usize,
) -> u32 {
    call(|o| {
        let d = Region::new(doc, doc_len)?;
        let (w, m) = (Region::new(out, out_cap)?, Region::new(msg, msg_cap)?);
        outputs(&[w, m], &[d])?;
        Ok(ops::frontmatter_read(d.input(), w.output(), m.output(), o))
    })
}

/// `frontmatterRefusalReason`; see [`ops::refusal`].
#[unsafe(no_mangle)]
pub extern "C" fn aw_refusal(
    doc: usize,
    doc_len: usize,
    gate: u32,
    msg: usize,
    msg_cap: usize,
) -> u32 {
    call(|o| {
        let (d, m) = (Region::new(doc, doc_len)?, Region::new(msg, msg_cap)?);
        outputs(&[m], &[d])?;
        Ok(ops::refusal(d.input(), gate, m.output(), o))
    })
}

/// The findings of a text; see [`ops::findings`].
#[unsafe(no_mangle)]
pub extern "C" fn aw_findings(text: usize, text_len: usize, out: usize, out_cap: usize) -> u32 {
    call(|o| {
        let (t, w) = (Region::new(text, text_len)?, Region::new(out, out_cap)?);
        outputs(&[w], &[t])?;
        Ok(ops::findings(t.input(), w.output(), o))
    })
}

/// The static string numbered `which` (see [`ops::info`]): its address; its length
/// is in result word 0.
#[unsafe(no_mangle)]
pub extern "C" fn aw_info(which: u32) -> *const u8 {
    let s = ops::info(which);
    finish(
        Status::Ok,
        Outcome {
            len: s.len(),
            msg_len: 0,
        },
    );
    s.as_ptr()
}

/// Whether `cp` is in the reference's dangerous-invisible table.
#[unsafe(no_mangle)]
pub extern "C" fn aw_is_dangerous_invisible(cp: u32) -> u32 {
    u32::from(ops::is_dangerous_invisible(cp))
}

/// Whether the reference's strip drops `cp` after `prev` (above U+10FFFF: none).
#[unsafe(no_mangle)]
pub extern "C" fn aw_is_stripped(cp: u32, prev: u32) -> u32 {
    u32::from(ops::is_stripped(cp, prev))
}
