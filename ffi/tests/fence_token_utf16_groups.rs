//! The UTF-16 fence token on texts long enough for the AVX-512 step's groups of
//! four 32-unit blocks (up to 1200 units, past the 130 of `utf16_edges.rs`): runs
//! of blocks of one kind (ASCII, below U+0800, three bytes a unit, pairs) so that
//! whole groups take each of the group's ways, and one special unit (a lone half,
//! a pair split at a block's end, U+0080, U+07FF, U+0800, U+D7FF, U+E000, U+FFFF)
//! at a random place; each token against core's token of the lossy UTF-8, with a
//! scratch buffer of exactly three bytes a unit and the text at an odd address.
#![allow(unsafe_code)] // the export is called as C calls it
#![allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::panic
)]

use airlock::{
    AIRLOCK_FENCE_TOKEN_MAX_LEN, airlock_fence_token_utf16, airlock_status, airlock_text16_result,
};
use airlock_core::fence_token;

fn token16(units: &[u16]) -> Vec<u8> {
    let mut buf = vec![0u8; 1];
    buf.extend(units.iter().flat_map(|u| u.to_le_bytes()));
    let text = &buf[1..];
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
    assert_eq!(status, airlock_status::Ok, "{units:x?}");
    out[..result.len].to_vec()
}

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
