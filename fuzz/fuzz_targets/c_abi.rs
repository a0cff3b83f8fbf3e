//! The C ABI with random lengths and buffer sizes: a status for every input, outputs
//! written only on success, the reported size honoured, results equal to core's.
#![no_main]

use std::ptr;

use airlock::{
    airlock_fence_token, airlock_frontmatter_refusal, airlock_sanitize_prose, airlock_status,
    airlock_strip,
};
use libfuzzer_sys::fuzz_target;

const POISON: u8 = 0xA5;

fuzz_target!(|data: &[u8]| {
    if data.len() < 3 {
        return;
    }
    let (head, text) = data.split_at(3);
    let out_cap = usize::from(head[0]) * 4 + usize::from(head[1] & 3);
    let max_bytes = usize::from(head[2]) * 2;
    let valid = std::str::from_utf8(text).ok();

    // sanitize_prose
    let mut out = vec![POISON; out_cap];
    let mut out_len = usize::MAX;
    let mut msg = vec![POISON; 64];
    let mut msg_len = usize::MAX;
    let mut err_offset = usize::MAX;
    // SAFETY: every pointer refers to a live buffer of the stated length.
    let status = unsafe {
        airlock_sanitize_prose(
            text.as_ptr(),
            text.len(),
            b"insight".as_ptr(),
            7,
            max_bytes,
            out.as_mut_ptr(),
            out.len(),
            &mut out_len,
            msg.as_mut_ptr(),
            msg.len(),
            &mut msg_len,
            &mut err_offset,
        )
    };
    match status {
        airlock_status::Ok => {
            let text = valid.expect("OK on invalid UTF-8");
            let mut expect = vec![0u8; airlock_core::worst_case_len(text.len(), max_bytes)];
            let p = airlock_core::sanitize_prose(text, "insight", max_bytes, &mut expect).unwrap();
            assert_eq!(&out[..out_len], p.text.as_bytes());
        }
        airlock_status::BufferTooSmall => {
            assert!(out_len > out_cap, "needed size not reported");
            assert!(out.iter().all(|&b| b == POISON), "written on failure");
            let mut bigger = vec![0u8; out_len];
            let mut len2 = 0usize;
            // SAFETY: as above.
            let again = unsafe {
                airlock_sanitize_prose(
                    text.as_ptr(),
                    text.len(),
                    b"insight".as_ptr(),
                    7,
                    max_bytes,
                    bigger.as_mut_ptr(),
                    bigger.len(),
                    &mut len2,
                    ptr::null_mut(),
                    0,
                    ptr::null_mut(),
                    ptr::null_mut(),
                )
            };
            assert_eq!(
                again,
                airlock_status::Ok,
                "the reported size did not suffice"
            );
        }
        airlock_status::Rejected => {
            assert!(valid.is_some());
            assert!(out.iter().all(|&b| b == POISON), "written on rejection");
            assert!(msg_len > 0);
        }
        airlock_status::InvalidUtf8 => {
            assert!(valid.is_none());
            assert_eq!(
                err_offset,
                std::str::from_utf8(text).unwrap_err().valid_up_to()
            );
            assert!(out.iter().all(|&b| b == POISON));
        }
        other => panic!("unexpected status {other:?}"),
    }

    // strip
    let mut out = vec![POISON; out_cap];
    let mut out_len = 0usize;
    // SAFETY: as above.
    let status = unsafe {
        airlock_strip(
            text.as_ptr(),
            text.len(),
            out.as_mut_ptr(),
            out.len(),
            &mut out_len,
            ptr::null_mut(),
        )
    };
    match (status, valid) {
        (airlock_status::Ok, Some(t)) => {
            assert_eq!(
                &out[..out_len],
                airlock_core::strip_invisibles(t)
                    .collect::<String>()
                    .as_bytes()
            );
        }
        (airlock_status::BufferTooSmall, Some(_)) => {
            assert!(out_len > out_cap && out.iter().all(|&b| b == POISON));
        }
        (airlock_status::InvalidUtf8, None) => {}
        (s, v) => panic!("strip: {s:?} for valid={}", v.is_some()),
    }

    // fence: works on bytes, valid UTF-8 or not is its caller's business
    let mut token = [POISON; 64];
    let mut token_len = 0usize;
    // SAFETY: as above.
    let status = unsafe {
        airlock_fence_token(
            text.as_ptr(),
            text.len(),
            token.as_mut_ptr(),
            token.len(),
            &mut token_len,
            ptr::null_mut(),
        )
    };
    if status == airlock_status::Ok {
        let t = &token[..token_len];
        assert!(!text.windows(t.len()).any(|w| w == t));
    }

    // frontmatter gate
    let mut reason = vec![POISON; out_cap];
    let mut reason_len = usize::MAX;
    // SAFETY: as above.
    let status = unsafe {
        airlock_frontmatter_refusal(
            text.as_ptr(),
            text.len(),
            reason.as_mut_ptr(),
            reason.len(),
            &mut reason_len,
            ptr::null_mut(),
        )
    };
    assert_ne!(status, airlock_status::Panic);
});
