//! The UTF-16 exports (`airlock_sanitize_prose_utf16`, `airlock_fence_token_utf16`)
//! against a plain scalar model: steps 1–2 on the units with `char::decode_utf16`
//! (halves that end up adjacent pair, as `String::from_utf16_lossy` pairs them), then
//! core's sanitize on the lossy string, and each U+FFFD of the result given back as
//! the lone surrogate (or U+FFFD) it stands for. Buffers are exactly the sizes the
//! length functions give, so a SIMD store past the end is an ASan report.
#![no_main]

use airlock::{
    AIRLOCK_FENCE_TOKEN_MAX_LEN, airlock_encoding, airlock_fence_token_utf16,
    airlock_sanitize_prose_utf16, airlock_sanitize_prose_utf16_out_len,
    airlock_sanitize_prose_utf16_scratch_len, airlock_status, airlock_text16_result,
};
use airlock_core::class::{is_control, is_stripped};
use airlock_core::{ProseError, fence_token, sanitize_prose, worst_case_len};
use libfuzzer_sys::fuzz_target;

/// Units the transcoder's blocks and unit-wise paths treat differently.
const ALPHABET: [u16; 32] = [
    0x61, 0x20, 0x09, 0x0A, 0x0D, 0x00, 0x1F, 0x7F, 0x80, 0xE9, 0xFF, 0x100, 0x7FF, 0x800, 0x200B,
    0x200D, 0x2066, 0xFE0F, 0xFEFF, 0xFFFD, 0xFFFF, 0xD83D, 0xDE00, 0xDB40, 0xDC01, 0xD800, 0xDFFF,
    0x2764, 0x3C, 0x2D, 0x55, 0x3A,
];

fn units_of(data: &[u8]) -> Vec<u16> {
    match data.split_first() {
        // Raw units, any value.
        Some((&mode, rest)) if mode & 1 == 0 => rest
            .chunks_exact(2)
            .map(|p| u16::from_le_bytes([p[0], p[1]]))
            .collect(),
        // One byte per unit: mostly ASCII letters, else an interesting unit.
        Some((_, rest)) => rest
            .iter()
            .map(|&b| {
                if b < 0xC0 {
                    u16::from(b'a' + b % 26)
                } else {
                    ALPHABET[usize::from(b) % 32]
                }
            })
            .collect(),
        None => Vec::new(),
    }
}

/// Steps 1–2 on the units, as the reference walks them (each lone surrogate its own
/// element, seen as U+FFFD by the predecessor rule).
fn kept_units(units: &[u16]) -> Vec<u16> {
    let mut kept = Vec::new();
    let mut prev = None;
    for e in char::decode_utf16(units.iter().copied()) {
        match e {
            Ok(c) => {
                let drop = is_stripped(c, prev) || (is_control(c) && c != '\t' && c != '\n');
                prev = Some(c);
                if !drop {
                    let mut b = [0u16; 2];
                    kept.extend_from_slice(c.encode_utf16(&mut b));
                }
            }
            Err(lone) => {
                prev = Some('\u{FFFD}');
                kept.push(lone.unpaired_surrogate());
            }
        }
    }
    kept
}

fn le(units: &[u16]) -> Vec<u8> {
    units.iter().flat_map(|u| u.to_le_bytes()).collect()
}

fn call(
    text: &[u8],
    max: usize,
    scratch_cap: usize,
    out_cap: usize,
) -> (airlock_status, airlock_text16_result, Vec<u8>) {
    let mut scratch = vec![0u8; scratch_cap];
    let mut out = vec![0xAAu8; out_cap];
    let mut result = airlock_text16_result {
        len: 0,
        scratch_len: 0,
        encoding: 9,
    };
    let field = b"insight";
    // SAFETY: every buffer is a live Vec of the stated size.
    let status = unsafe {
        airlock_sanitize_prose_utf16(
            text.as_ptr(),
            text.len() / 2,
            field.as_ptr(),
            field.len(),
            max,
            scratch.as_mut_ptr(),
            scratch.len(),
            out.as_mut_ptr(),
            out.len(),
            &mut result,
        )
    };
    (status, result, out)
}

fuzz_target!(|data: &[u8]| {
    let Some((&cap, rest)) = data.split_first() else {
        return;
    };
    let units = units_of(rest);
    let text = le(&units);
    let max = if cap == 0xFF {
        usize::MAX
    } else {
        usize::from(cap) * 4
    };

    // The model.
    let kept = kept_units(&units);
    let lossy = String::from_utf16_lossy(&kept);
    let mut work = vec![0u8; worst_case_len(lossy.len(), max)];
    let want = sanitize_prose(&lossy, "insight", max, &mut work);

    let scratch_cap = airlock_sanitize_prose_utf16_scratch_len(units.len(), max);
    let out_len = airlock_sanitize_prose_utf16_out_len(units.len(), max);
    // The binding's sizes, and an `out` too small to take the kept units.
    for out_cap in [out_len, out_len.min(text.len().saturating_sub(1))] {
        let (status, result, out) = call(&text, max, scratch_cap, out_cap);
        match &want {
            Ok(prose) => {
                if status == airlock_status::BufferTooSmall && out_cap < out_len {
                    assert!(result.len > out_cap);
                    // Outputs are written only on success.
                    assert!(
                        out.iter().all(|&b| b == 0xAA),
                        "written on BUFFER_TOO_SMALL"
                    );
                    continue;
                }
                assert_eq!(status, airlock_status::Ok, "{units:x?}");
                let got: Vec<u16> = match result.encoding {
                    e if e == airlock_encoding::Unchanged as u32 => units.clone(),
                    e if e == airlock_encoding::Latin1 as u32 => {
                        out[..result.len].iter().map(|&b| u16::from(b)).collect()
                    }
                    e if e == airlock_encoding::Utf16 as u32 => out[..result.len * 2]
                        .chunks_exact(2)
                        .map(|p| u16::from_le_bytes([p[0], p[1]]))
                        .collect(),
                    e => panic!("encoding {e}"),
                };
                // Each U+FFFD of core's result is the k-th U+FFFD or lone surrogate.
                let mut stand_ins =
                    char::decode_utf16(kept.iter().copied()).filter_map(|e| match e {
                        Ok('\u{FFFD}') => Some(0xFFFD),
                        Ok(_) => None,
                        Err(lone) => Some(lone.unpaired_surrogate()),
                    });
                let expected: Vec<u16> = prose
                    .text
                    .encode_utf16()
                    .map(|u| {
                        if u == 0xFFFD {
                            stand_ins.next().unwrap()
                        } else {
                            u
                        }
                    })
                    .collect();
                assert_eq!(got, expected, "{units:x?}");
            }
            Err(ProseError::Rejected(r)) => {
                assert_eq!(status, airlock_status::Rejected, "{units:x?}");
                let message = r.to_string();
                assert_eq!(result.len, message.len());
                if out_cap >= message.len() {
                    assert_eq!(&out[..message.len()], message.as_bytes());
                }
            }
            Err(ProseError::BufferTooSmall(b)) => panic!("worst_case_len too small: {b}"),
        }
    }

    // The fence token: the UTF-8 of the text, each lone surrogate as U+FFFD.
    let mut scratch = vec![0u8; units.len() * 3];
    let mut out = vec![0u8; AIRLOCK_FENCE_TOKEN_MAX_LEN];
    let mut result = airlock_text16_result {
        len: 0,
        scratch_len: 0,
        encoding: 9,
    };
    // SAFETY: every buffer is a live Vec of the stated size.
    let status = unsafe {
        airlock_fence_token_utf16(
            text.as_ptr(),
            units.len(),
            scratch.as_mut_ptr(),
            scratch.len(),
            out.as_mut_ptr(),
            out.len(),
            &mut result,
        )
    };
    assert_eq!(status, airlock_status::Ok);
    let token = fence_token(String::from_utf16_lossy(&units).as_bytes());
    assert_eq!(&out[..result.len], token.as_bytes(), "{units:x?}");
});
