//! Every strict-profile vector through the C ABI's `*_profile` functions, called as C
//! calls them.

use std::ptr;

use airlock::{
    airlock_check_no_control_profile, airlock_profile, airlock_sanitize_prose_profile,
    airlock_status, airlock_strip_profile, airlock_worst_case_len_profile,
};
use serde_json::Value;

const VECTORS: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/conformance/strict-vectors.jsonl"
));

const STRICT: u32 = airlock_profile::Strict as u32;

fn message(status: airlock_status, msg: &[u8], len: usize) -> Result<String, String> {
    assert_eq!(status, airlock_status::Rejected);
    Err(String::from_utf8(msg[..len].to_vec()).unwrap())
}

/// The vector kinds this layer runs; other kinds are skipped.
const RUN_KINDS: [&str; 3] = [
    "stripDangerousInvisibles",
    "sanitizeProse",
    "assertNoControlChars",
];

#[test]
fn strict_vectors_through_the_c_abi() {
    let mut failures = Vec::new();
    let mut ran = 0usize;
    for raw in VECTORS.lines() {
        let v: Value = serde_json::from_str(raw).unwrap();
        // Kinds another layer added (glob, description checks) are not this one's.
        if !RUN_KINDS.contains(&v["fn"].as_str().unwrap()) {
            continue;
        }
        ran += 1;
        let args = v["args"].as_array().unwrap();
        let text = args[0].as_str().unwrap();
        let want = match (v.get("ok"), v.get("throws")) {
            (Some(ok), _) => Ok(ok.as_str().unwrap().to_owned()),
            (None, Some(t)) => Err(t.as_str().unwrap().to_owned()),
            _ => panic!("{raw}"),
        };
        let mut msg = vec![0u8; 1024];
        let mut msg_len = 0usize;
        let got = match v["fn"].as_str().unwrap() {
            "stripDangerousInvisibles" => {
                let mut out = vec![0u8; text.len()];
                let mut len = 0usize;
                // SAFETY: every pointer is to a live buffer of the stated size.
                let status = unsafe {
                    airlock_strip_profile(
                        STRICT,
                        text.as_ptr(),
                        text.len(),
                        out.as_mut_ptr(),
                        out.len(),
                        &mut len,
                        ptr::null_mut(),
                    )
                };
                assert_eq!(status, airlock_status::Ok);
                Ok(String::from_utf8(out[..len].to_vec()).unwrap())
            }
            "sanitizeProse" => {
                let field = args[1]["field"].as_str().unwrap();
                let max = args[1]["maxBytes"].as_u64().unwrap() as usize;
                let mut out = vec![0u8; airlock_worst_case_len_profile(STRICT, text.len(), max)];
                let mut len = 0usize;
                // SAFETY: every pointer is to a live buffer of the stated size.
                let status = unsafe {
                    airlock_sanitize_prose_profile(
                        STRICT,
                        text.as_ptr(),
                        text.len(),
                        field.as_ptr(),
                        field.len(),
                        max,
                        out.as_mut_ptr(),
                        out.len(),
                        &mut len,
                        msg.as_mut_ptr(),
                        msg.len(),
                        &mut msg_len,
                        ptr::null_mut(),
                    )
                };
                if status == airlock_status::Ok {
                    Ok(String::from_utf8(out[..len].to_vec()).unwrap())
                } else {
                    message(status, &msg, msg_len)
                }
            }
            "assertNoControlChars" => {
                let field = args[1].as_str().unwrap();
                // SAFETY: every pointer is to a live buffer of the stated size.
                let status = unsafe {
                    airlock_check_no_control_profile(
                        STRICT,
                        text.as_ptr(),
                        text.len(),
                        field.as_ptr(),
                        field.len(),
                        msg.as_mut_ptr(),
                        msg.len(),
                        &mut msg_len,
                        ptr::null_mut(),
                    )
                };
                if status == airlock_status::Ok {
                    Ok(text.to_owned())
                } else {
                    message(status, &msg, msg_len)
                }
            }
            other => unreachable!("{other} is not in RUN_KINDS"),
        };
        if got != want && failures.len() < 10 {
            failures.push(format!("{raw}\n  got {got:?}"));
        }
    }
    assert!(ran > 0, "no vector of a kind this layer runs");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
