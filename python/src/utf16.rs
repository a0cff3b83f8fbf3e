//! A `str` with lone surrogates, read as JavaScript's UTF-16 string: its code units go
//! through libairlock's UTF-16 entry points (the ones the Node drop-in calls), and the
//! result comes back through `utf-16-le` with `surrogatepass`, which joins two halves
//! the strip brought together into one code point, exactly as JavaScript sees them.
#![allow(unsafe_code)]

use airlock::{
    airlock_encoding, airlock_fence_token_utf16, airlock_sanitize_prose_utf16,
    airlock_sanitize_prose_utf16_out_len, airlock_sanitize_prose_utf16_scratch_len, airlock_status,
    airlock_text16_result,
};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};

use crate::{RejectionError, internal};

/// The UTF-16 code units of `s` (surrogates included, as `surrogatepass` writes them).
pub(crate) fn units_of(s: &Bound<'_, PyString>) -> PyResult<Vec<u16>> {
    let encoded = s.call_method1("encode", ("utf-16-le", "surrogatepass"))?;
    let bytes = encoded.cast::<PyBytes>()?.as_bytes();
    Ok(bytes
        .chunks_exact(2)
        .map(|p| match p {
            [a, b] => u16::from_le_bytes([*a, *b]),
            _ => 0,
        })
        .collect())
}

/// A `str` from `len` Latin-1 bytes or UTF-16 units of `out`.
fn decoded<'py>(
    py: Python<'py>,
    original: &Bound<'py, PyString>,
    out: &[u8],
    r: &airlock_text16_result,
) -> PyResult<Py<PyString>> {
    let (codec, bytes) = match r.encoding {
        e if e == airlock_encoding::Unchanged as u32 => return Ok(original.clone().unbind()),
        e if e == airlock_encoding::Latin1 as u32 => ("latin-1", out.get(..r.len)),
        e if e == airlock_encoding::Utf16 as u32 => {
            ("utf-16-le", r.len.checked_mul(2).and_then(|n| out.get(..n)))
        }
        _ => return Err(internal("UTF-16 result encoding")),
    };
    let bytes = bytes.ok_or_else(|| internal("UTF-16 result length"))?;
    let s = PyBytes::new(py, bytes).call_method1("decode", (codec, "surrogatepass"))?;
    Ok(s.cast_into::<PyString>()?.unbind())
}

/// `airlock_sanitize_prose_utf16` on `text`'s code units.
pub(crate) fn sanitize(
    py: Python<'_>,
    text: &Bound<'_, PyString>,
    field: &str,
    max_bytes: usize,
) -> PyResult<Py<PyString>> {
    let units = units_of(text)?;
    let n = units.len();
    let bytes: Vec<u8> = units.iter().flat_map(|u| u.to_le_bytes()).collect();
    let mut scratch = vec![0u8; airlock_sanitize_prose_utf16_scratch_len(n, max_bytes)];
    let mut out = vec![0u8; airlock_sanitize_prose_utf16_out_len(n, max_bytes)];
    let mut r = airlock_text16_result {
        len: 0,
        scratch_len: 0,
        encoding: 0,
    };
    // SAFETY: every pointer is a live buffer of the length passed beside it, none
    // overlaps another, and `r` is a valid result struct; the call borrows them only
    // for its duration.
    let status = unsafe {
        airlock_sanitize_prose_utf16(
            bytes.as_ptr(),
            n,
            field.as_ptr(),
            field.len(),
            max_bytes,
            scratch.as_mut_ptr(),
            scratch.len(),
            out.as_mut_ptr(),
            out.len(),
            &mut r,
        )
    };
    match status {
        airlock_status::Ok => decoded(py, text, &out, &r),
        airlock_status::Rejected => {
            let msg = out.get(..r.len).ok_or_else(|| internal("message length"))?;
            Err(RejectionError::new_err(
                String::from_utf8_lossy(msg).into_owned(),
            ))
        }
        other => Err(internal(&format!(
            "status {other:?} from the UTF-16 sanitize"
        ))),
    }
}

/// `airlock_fence_token_utf16` on `payload`'s code units.
pub(crate) fn fence(py: Python<'_>, payload: &Bound<'_, PyString>) -> PyResult<String> {
    let units = units_of(payload)?;
    let n = units.len();
    let bytes: Vec<u8> = units.iter().flat_map(|u| u.to_le_bytes()).collect();
    let mut scratch = vec![0u8; n.saturating_mul(3)];
    let mut out = vec![0u8; 256];
    let mut r = airlock_text16_result {
        len: 0,
        scratch_len: 0,
        encoding: 0,
    };
    // SAFETY: as in `sanitize`: live, disjoint buffers of the lengths passed.
    let status = unsafe {
        airlock_fence_token_utf16(
            bytes.as_ptr(),
            n,
            scratch.as_mut_ptr(),
            scratch.len(),
            out.as_mut_ptr(),
            out.len(),
            &mut r,
        )
    };
    if status != airlock_status::Ok {
        return Err(internal(&format!(
            "status {status:?} from the UTF-16 fence token"
        )));
    }
    let s = decoded(py, payload, &out, &r)?;
    s.bind(py).to_cow().map(|c| c.into_owned())
}
