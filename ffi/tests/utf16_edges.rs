//! The UTF-16 exports at every length to 130 units (the AVX-512 blocks are 32 units,
//! the SSE2 steps 16) with one special unit (a lone half, a pair split across the
//! position, a control, an invisible, a selector, non-ASCII) at every position, on
//! ASCII and on all-multibyte filler, with buffers of exactly the sizes the length
//! functions give and the text at an odd address; each result against a plain
//! scalar model (steps 1-2 with `char::decode_utf16`, core's sanitize on the lossy
//! string, each U+FFFD given back as the unit it stands for).
#![allow(unsafe_code)] // the exports are called as C calls them
#![allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::panic
)]

use airlock::{
    AIRLOCK_FENCE_TOKEN_MAX_LEN, airlock_encoding, airlock_fence_token_utf16,
    airlock_sanitize_prose_utf16, airlock_sanitize_prose_utf16_out_len,
    airlock_sanitize_prose_utf16_scratch_len, airlock_status, airlock_text16_result,
};
use airlock_core::class::{is_control, is_stripped};
use airlock_core::{ProseError, fence_token, sanitize_prose, worst_case_len};

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

/// The model's result as UTF-16 units, or the rejection message.
fn model(units: &[u16], max: usize) -> Result<Vec<u16>, String> {
    let kept = kept_units(units);
    let lossy = String::from_utf16_lossy(&kept);
    let mut work = vec![0u8; worst_case_len(lossy.len(), max)];
    match sanitize_prose(&lossy, "insight", max, &mut work) {
        Ok(prose) => {
            let mut stand_ins = char::decode_utf16(kept.iter().copied()).filter_map(|e| match e {
                Ok('\u{FFFD}') => Some(0xFFFD),
                Ok(_) => None,
                Err(lone) => Some(lone.unpaired_surrogate()),
            });
            Ok(prose
                .text
                .encode_utf16()
                .map(|u| {
                    if u == 0xFFFD {
                        stand_ins.next().unwrap()
                    } else {
                        u
                    }
                })
                .collect())
        }
        Err(ProseError::Rejected(r)) => Err(r.to_string()),
        Err(ProseError::BufferTooSmall(b)) => panic!("worst_case_len too small: {b}"),
    }
}

/// The text's bytes at an odd offset of a buffer with nothing after them.
fn odd_copy(units: &[u16]) -> (Vec<u8>, usize) {
    let mut buf = vec![0u8; 1];
    buf.extend(units.iter().flat_map(|u| u.to_le_bytes()));
    buf.shrink_to_fit();
    (buf, 1)
}

fn sanitize16(units: &[u16], max: usize) -> Result<Vec<u16>, String> {
    let (buf, at) = odd_copy(units);
    let text = &buf[at..];
    let mut scratch = vec![0u8; airlock_sanitize_prose_utf16_scratch_len(units.len(), max)];
    let mut out = vec![0u8; airlock_sanitize_prose_utf16_out_len(units.len(), max)];
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
            units.len(),
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
    match status {
        airlock_status::Ok => {}
        airlock_status::Rejected => {
            return Err(String::from_utf8(out[..result.len].to_vec()).unwrap());
        }
        other => panic!("{other:?} on {units:x?}"),
    }
    Ok(match result.encoding {
        e if e == airlock_encoding::Unchanged as u32 => units.to_vec(),
        e if e == airlock_encoding::Latin1 as u32 => {
            out[..result.len].iter().map(|&b| u16::from(b)).collect()
        }
        e if e == airlock_encoding::Utf16 as u32 => out[..result.len * 2]
            .chunks_exact(2)
            .map(|p| u16::from_le_bytes([p[0], p[1]]))
            .collect(),
        e => panic!("encoding {e}"),
    })
}

fn token16(units: &[u16]) -> Vec<u8> {
    let (buf, at) = odd_copy(units);
    let text = &buf[at..];
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
    out[..result.len].to_vec()
}

/// Special units, each placed at a position (a pair's halves at `p` and `p + 1`).
const SPECIALS: &[&[u16]] = &[
    &[0xD83D],
    &[0xDE00],
    &[0xD83D, 0xDE00],
    &[0xD83D, 0x200B, 0xDE00],
    &[0x07],
    &[0x200B],
    &[0x2764, 0xFE0F],
    &[0x85],
    &[0xFFFD],
    &[0xDB40, 0xDC01],
];

#[test]
fn every_length_and_position_matches_the_scalar_model() {
    for filler in [0x61u16, 0x4E2D] {
        for len in 0..=130usize {
            let base = vec![filler; len];
            assert_eq!(sanitize16(&base, usize::MAX), model(&base, usize::MAX));
            for special in SPECIALS {
                for p in 0..len {
                    let mut units = base.clone();
                    for (k, &s) in special.iter().enumerate() {
                        if let Some(u) = units.get_mut(p + k) {
                            *u = s;
                        }
                    }
                    let want = model(&units, usize::MAX);
                    assert_eq!(sanitize16(&units, usize::MAX), want, "{units:x?}");
                    assert_eq!(
                        token16(&units),
                        fence_token(String::from_utf16_lossy(&units).as_bytes())
                            .as_bytes()
                            .to_vec(),
                        "{units:x?}"
                    );
                }
            }
            // A cap inside the text: the truncated result and its note.
            if len > 0 {
                let mut units = base.clone();
                units[len / 2] = 0xD83D;
                let max = len;
                assert_eq!(sanitize16(&units, max), model(&units, max), "{units:x?}");
            }
        }
    }
}

/// A `BUFFER_TOO_SMALL` leaves `out` as it was (the crate's contract: outputs are
/// written only on success), also when `out` could take the input's kept units.
#[test]
fn an_out_too_small_for_the_result_is_not_written() {
    // Truncated all-multibyte text: the note makes the result longer than the input.
    for len in [1usize, 16, 31, 32, 33, 40, 64, 100] {
        for unit in [0x4E2Du16, 0xE9, 0x61] {
            let units = vec![unit; len];
            let text: Vec<u8> = units.iter().flat_map(|u| u.to_le_bytes()).collect();
            let max = String::from_utf16(&units).unwrap().len() - 1;
            let mut scratch = vec![0u8; airlock_sanitize_prose_utf16_scratch_len(len, max)];
            for out_cap in [text.len(), text.len() + 1, 2 * text.len()] {
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
                        len,
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
                if status == airlock_status::BufferTooSmall {
                    assert!(result.len > out_cap);
                    assert!(
                        out.iter().all(|&b| b == 0xAA),
                        "written on BUFFER_TOO_SMALL: {unit:x} x{len}, out {out_cap}"
                    );
                } else {
                    assert_eq!(status, airlock_status::Ok, "{unit:x} x{len}");
                }
            }
        }
    }
}

/// The UTF-16 fence token on texts long enough for the AVX-512 step's groups of
/// four 32-unit blocks (up to 1200 units, past the 130 of the tests above): runs
/// of blocks of one kind (ASCII, below U+0800, three bytes a unit, pairs) so that
/// whole groups take each of the group's ways, and one special unit (a lone half,
/// a pair split at a block's end, U+0080, U+07FF, U+0800, U+D7FF, U+E000, U+FFFF)
/// at a random place; each token against core's token of the lossy UTF-8, with a
/// scratch buffer of exactly three bytes a unit and the text at an odd address.
#[test]
fn long_texts_of_each_kind_of_group_give_the_token_of_their_lossy_utf8() {
    // A block's worth of each kind, repeated; a pair is never split by them.
    const KINDS: [&[u16]; 5] = [
        &[0x61, 0x20, 0x7A, 0x0A],
        &[0xE9, 0x80, 0x7FF, 0x3B1],
        &[0x800, 0xD7FF, 0xE000, 0xFFFF, 0x65E5],
        &[0xD83D, 0xDE00, 0xDBFF, 0xDFFF],
        &[0x61, 0xE9, 0x2014, 0xD83D, 0xDE00],
    ];
    const SPECIALS: [&[u16]; 9] = [
        &[0xD800],
        &[0xDFFF],
        &[0xDBFF, 0xDC00],
        &[0x80],
        &[0x7FF],
        &[0x800],
        &[0xD7FF],
        &[0xE000],
        &[0xFFFF],
    ];
    let mut seed = 41u32;
    let mut next = |n: u32| {
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        seed % n
    };
    for case in 0..1500 {
        let mut units: Vec<u16> = Vec::new();
        let len = 128 + next(1073) as usize;
        while units.len() < len {
            let kind = KINDS[next(5) as usize];
            // Runs of one to twelve blocks of the kind.
            let run = 32 * (1 + next(12) as usize);
            units.extend(kind.iter().cycle().take(run));
        }
        units.truncate(len);
        if case % 4 != 0 {
            let special = SPECIALS[next(9) as usize];
            // Often at a block's last unit (a pair split by its end), or at the
            // last of its first half (a pair across the halves).
            let at = next(len as u32) as usize;
            let at = match next(3) {
                0 => at | 31,
                1 => at & !31 | 15,
                _ => at,
            };
            for (k, &u) in special.iter().enumerate() {
                if let Some(slot) = units.get_mut(at + k) {
                    *slot = u;
                }
            }
        }
        let lossy = String::from_utf16_lossy(&units);
        assert_eq!(
            token16(&units),
            fence_token(lossy.as_bytes()).as_bytes().to_vec(),
            "case {case}: {units:x?}"
        );
    }
}
