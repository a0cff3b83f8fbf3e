//! Every conformance vector through the C ABI of airlock-ffi, called the way C calls
//! it: raw pointers, caller-owned buffers sized from the reported lengths.

use std::ffi::CStr;
use std::ptr;

use airlock::*;
use airlock_tests::{Vector, check_all};
use serde_json::{Map, Value, json};

const OK: airlock_status = airlock_status::Ok;
const REJECTED: airlock_status = airlock_status::Rejected;
const TOO_SMALL: airlock_status = airlock_status::BufferTooSmall;

fn str_arg(v: &Vector, i: usize) -> &str {
    v.args[i].as_str().expect("string argument")
}

fn utf8(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).expect("airlock writes UTF-8")
}

/// Runs a message-producing call twice: once with no room (to learn the length, and
/// to see that a too-small buffer keeps the verdict), then with exactly that room.
fn with_message(
    mut call: impl FnMut(*mut u8, usize, *mut usize) -> airlock_status,
) -> Result<(), (airlock_status, String)> {
    let mut need = usize::MAX;
    let first = call(ptr::null_mut(), 0, &mut need);
    if first == OK {
        assert_eq!(need, usize::MAX, "msg_len touched on OK");
        return Ok(());
    }
    assert_ne!(need, usize::MAX, "no msg_len on {first:?}");
    let mut msg = vec![0u8; need];
    let mut len = usize::MAX;
    let second = call(msg.as_mut_ptr(), msg.len(), &mut len);
    assert_eq!(second, first);
    assert_eq!(len, need);
    Err((second, utf8(&msg)))
}

/// A check's verdict: the value, or the rejection message.
fn verdict(
    value: &str,
    call: impl FnMut(*mut u8, usize, *mut usize) -> airlock_status,
) -> Result<Value, String> {
    match with_message(call) {
        Ok(()) => Ok(json!(value)),
        Err((status, msg)) => {
            assert_eq!(status, REJECTED);
            Err(msg)
        }
    }
}

fn sanitize(text: &str, field: &str, max: usize) -> Result<Value, String> {
    let t = text.as_bytes();
    let f = field.as_bytes();
    // First ask for the size with no buffer, then use exactly that size.
    let mut need = 0usize;
    let mut msg_len = usize::MAX;
    // SAFETY: every pointer is NULL with length 0 or points to a live buffer.
    let status = unsafe {
        airlock_sanitize_prose(
            t.as_ptr(),
            t.len(),
            f.as_ptr(),
            f.len(),
            max,
            ptr::null_mut(),
            0,
            &mut need,
            ptr::null_mut(),
            0,
            &mut msg_len,
            ptr::null_mut(),
        )
    };
    if status == REJECTED {
        let mut msg = vec![0u8; msg_len];
        let mut len = 0usize;
        let mut out_len = usize::MAX;
        // SAFETY: as above.
        let again = unsafe {
            airlock_sanitize_prose(
                t.as_ptr(),
                t.len(),
                f.as_ptr(),
                f.len(),
                max,
                ptr::null_mut(),
                0,
                &mut out_len,
                msg.as_mut_ptr(),
                msg.len(),
                &mut len,
                ptr::null_mut(),
            )
        };
        assert_eq!((again, len, out_len), (REJECTED, msg_len, usize::MAX));
        return Err(utf8(&msg));
    }
    if status == OK {
        assert_eq!(need, 0);
        return Ok(json!(""));
    }
    assert_eq!(status, TOO_SMALL);
    assert!(need <= airlock_worst_case_len(t.len(), max));
    let mut out = vec![0u8; need];
    let mut len = 0usize;
    // SAFETY: as above.
    let status = unsafe {
        airlock_sanitize_prose(
            t.as_ptr(),
            t.len(),
            f.as_ptr(),
            f.len(),
            max,
            out.as_mut_ptr(),
            out.len(),
            &mut len,
            ptr::null_mut(),
            0,
            ptr::null_mut(),
            ptr::null_mut(),
        )
    };
    // The size reported is sufficient; a cut inside a multi-byte code point makes the
    // result up to 3 bytes shorter.
    assert_eq!(status, OK);
    assert!(len <= need && need - len <= 3, "len {len} need {need}");
    Ok(json!(utf8(&out[..len])))
}

fn strip(text: &str) -> Value {
    let t = text.as_bytes();
    let mut out = vec![0u8; t.len()];
    let mut len = 0usize;
    // SAFETY: live buffers of the stated lengths.
    let status = unsafe {
        airlock_strip(
            t.as_ptr(),
            t.len(),
            out.as_mut_ptr(),
            out.len(),
            &mut len,
            ptr::null_mut(),
        )
    };
    assert_eq!(status, OK);
    json!(utf8(&out[..len]))
}

fn truncate(text: &str, max: usize) -> Value {
    let t = text.as_bytes();
    let mut len = usize::MAX;
    // SAFETY: a live buffer of the stated length.
    let status = unsafe { airlock_truncate(t.as_ptr(), t.len(), max, &mut len, ptr::null_mut()) };
    assert_eq!(status, OK);
    json!({"text": utf8(&t[..len]), "truncated": len < t.len(), "bytes": t.len()})
}

fn fence(payload: &str) -> Value {
    let p = payload.as_bytes();
    let mut out = [0u8; AIRLOCK_FENCE_TOKEN_MAX_LEN];
    let mut len = 0usize;
    // SAFETY: live buffers of the stated lengths.
    let status = unsafe {
        airlock_fence_token(
            p.as_ptr(),
            p.len(),
            out.as_mut_ptr(),
            out.len(),
            &mut len,
            ptr::null_mut(),
        )
    };
    assert_eq!(status, OK);
    json!(utf8(&out[..len]))
}

fn shape(name: &str) -> u32 {
    (match name {
        "HOST_CLASS_RE" => airlock_shape::HostClass,
        "LEARNING_KEY_RE" => airlock_shape::LearningKey,
        "EXPIRES_AT_RE" => airlock_shape::ExpiresAt,
        "PROVENANCE_TOKEN_RE" => airlock_shape::Provenance,
        other => panic!("unknown pattern {other}"),
    }) as u32
}

/// `{globs, meta}` rebuilt from the summary, the glob spans and the meta entries.
fn frontmatter(doc: &str) -> Result<Value, String> {
    let d = doc.as_bytes();
    let mut summary = airlock_frontmatter_summary {
        has_globs: false,
        glob_count: 0,
        meta_count: 0,
    };
    let parsed = with_message(|msg, cap, len| {
        // SAFETY: live buffers of the stated lengths.
        unsafe {
            airlock_frontmatter_parse(
                d.as_ptr(),
                d.len(),
                &mut summary,
                msg,
                cap,
                len,
                ptr::null_mut(),
            )
        }
    });
    if let Err((status, msg)) = parsed {
        assert_eq!(status, airlock_status::ParseError);
        return Err(msg);
    }
    let globs = if summary.has_globs {
        let mut items = Vec::new();
        for i in 0..=summary.glob_count {
            let (mut start, mut len) = (0usize, 0usize);
            // SAFETY: live buffers.
            let status = unsafe {
                airlock_frontmatter_glob(
                    d.as_ptr(),
                    d.len(),
                    i,
                    &mut start,
                    &mut len,
                    ptr::null_mut(),
                )
            };
            if i == summary.glob_count {
                assert_eq!(status, airlock_status::OutOfRange);
            } else {
                assert_eq!(status, OK);
                items.push(json!(utf8(&d[start..start + len])));
            }
        }
        Value::Array(items)
    } else {
        assert_eq!(summary.glob_count, 0);
        Value::Null
    };
    let mut meta = Map::new();
    for i in 0..=summary.meta_count {
        let mut e = NO_ENTRY;
        // SAFETY: live buffers.
        let status =
            unsafe { airlock_frontmatter_meta(d.as_ptr(), d.len(), i, &mut e, ptr::null_mut()) };
        if i == summary.meta_count {
            assert_eq!(status, airlock_status::OutOfRange);
            break;
        }
        assert_eq!(status, OK);
        let (name, value) = meta_json(d, &e);
        meta.insert(name, value);
    }
    Ok(json!({"globs": globs, "meta": meta}))
}

const NO_ENTRY: airlock_meta_entry = airlock_meta_entry {
    key: 0,
    kind: 0,
    str_start: 0,
    str_len: 0,
    bool_value: false,
    number_value: 0.0,
};

/// A kept key's name and value as the reference's `meta` holds them.
fn meta_json(d: &[u8], e: &airlock_meta_entry) -> (String, Value) {
    // SAFETY: a static NUL-terminated string for every key airlock reports.
    let name = unsafe { CStr::from_ptr(airlock_meta_key_name(e.key)) };
    let value = match e.kind {
        k if k == airlock_meta_kind::String as u32 => {
            json!(utf8(&d[e.str_start..e.str_start + e.str_len]))
        }
        k if k == airlock_meta_kind::Bool as u32 => json!(e.bool_value),
        k if k == airlock_meta_kind::Number as u32 => airlock_tests::js_number(e.number_value),
        other => panic!("unknown kind {other}"),
    };
    (name.to_str().unwrap().to_owned(), value)
}

/// The same object through `airlock_frontmatter_read`: first with no room (which
/// must say how much is needed), then with exactly that room.
fn frontmatter_read(doc: &str) -> Result<Value, String> {
    let d = doc.as_bytes();
    let mut summary = airlock_frontmatter_summary {
        has_globs: true,
        glob_count: usize::MAX,
        meta_count: usize::MAX,
    };
    let mut msg = vec![0u8; 64 * 1024];
    let mut msg_len = usize::MAX;
    let mut read = |summary: &mut airlock_frontmatter_summary,
                    globs: &mut [airlock_span],
                    meta: &mut [airlock_meta_entry]| {
        // SAFETY: live buffers of the stated lengths.
        unsafe {
            airlock_frontmatter_read(
                d.as_ptr(),
                d.len(),
                summary,
                globs.as_mut_ptr(),
                globs.len(),
                meta.as_mut_ptr(),
                meta.len(),
                msg.as_mut_ptr(),
                msg.len(),
                &mut msg_len,
                ptr::null_mut(),
            )
        }
    };
    let first = read(&mut summary, &mut [], &mut []);
    if first == airlock_status::ParseError {
        return Err(utf8(&msg[..msg_len]));
    }
    let mut globs = vec![airlock_span { start: 0, len: 0 }; summary.glob_count];
    let mut meta = vec![NO_ENTRY; summary.meta_count];
    if globs.is_empty() && meta.is_empty() {
        assert_eq!(first, OK);
    } else {
        assert_eq!(first, airlock_status::BufferTooSmall);
        assert_eq!(read(&mut summary, &mut globs, &mut meta), OK);
    }
    let glob_value = if summary.has_globs {
        Value::Array(
            globs
                .iter()
                .map(|g| json!(utf8(&d[g.start..g.start + g.len])))
                .collect(),
        )
    } else {
        Value::Null
    };
    let meta_value: Map<String, Value> = meta.iter().map(|e| meta_json(d, e)).collect();
    Ok(json!({"globs": glob_value, "meta": meta_value}))
}

fn refusal(doc: &str, gate: Option<&str>) -> Value {
    let d = doc.as_bytes();
    let gate = match gate {
        None => None,
        Some("3.20") => Some(airlock_gate::V3_20 as u32),
        Some("3.21") => Some(airlock_gate::V3_21 as u32),
        Some(other) => panic!("unknown gate {other}"),
    };
    match with_message(|msg, cap, len| match gate {
        // SAFETY: live buffers of the stated lengths.
        None => unsafe {
            airlock_frontmatter_refusal(d.as_ptr(), d.len(), msg, cap, len, ptr::null_mut())
        },
        // SAFETY: live buffers of the stated lengths.
        Some(g) => unsafe {
            airlock_frontmatter_refusal_gate(d.as_ptr(), d.len(), g, msg, cap, len, ptr::null_mut())
        },
    }) {
        Ok(()) => Value::Null,
        Err((status, msg)) => {
            assert_eq!(status, REJECTED);
            json!(msg)
        }
    }
}

fn call(v: &Vector) -> Option<Result<Value, String>> {
    let result = match v.function.as_str() {
        "sanitizeProse" => {
            let field = v.args[1]["field"].as_str().unwrap();
            let max = v.args[1]["maxBytes"].as_u64().unwrap() as usize;
            sanitize(str_arg(v, 0), field, max)
        }
        "truncateToBytes" => Ok(truncate(
            str_arg(v, 0),
            v.args[1].as_u64().unwrap() as usize,
        )),
        "stripDangerousInvisibles" => Ok(strip(str_arg(v, 0))),
        "assertNoControlChars" => {
            let (value, field) = (str_arg(v, 0), str_arg(v, 1));
            verdict(value, |msg, cap, len| {
                // SAFETY: live buffers of the stated lengths.
                unsafe {
                    airlock_check_no_control(
                        value.as_ptr(),
                        value.len(),
                        field.as_ptr(),
                        field.len(),
                        msg,
                        cap,
                        len,
                        ptr::null_mut(),
                    )
                }
            })
        }
        "assertSafeDescription" => {
            let value = str_arg(v, 0);
            verdict(value, |msg, cap, len| {
                // SAFETY: live buffers of the stated lengths.
                unsafe {
                    airlock_check_safe_description(
                        value.as_ptr(),
                        value.len(),
                        msg,
                        cap,
                        len,
                        ptr::null_mut(),
                    )
                }
            })
        }
        "assertSafeGlob" => {
            let value = str_arg(v, 0);
            verdict(value, |msg, cap, len| {
                // SAFETY: live buffers of the stated lengths.
                unsafe {
                    airlock_check_safe_glob(
                        value.as_ptr(),
                        value.len(),
                        msg,
                        cap,
                        len,
                        ptr::null_mut(),
                    )
                }
            })
        }
        "assertNoWrapperForgery" => {
            let (text, field) = (str_arg(v, 0), str_arg(v, 1));
            verdict(text, |msg, cap, len| {
                // SAFETY: live buffers of the stated lengths.
                unsafe {
                    airlock_check_no_forgery(
                        text.as_ptr(),
                        text.len(),
                        field.as_ptr(),
                        field.len(),
                        msg,
                        cap,
                        len,
                        ptr::null_mut(),
                    )
                }
            })
            .map(|_| Value::Null)
        }
        "assertMachineToken" => {
            let value = str_arg(v, 0);
            let field = v.args[1]["field"].as_str().unwrap();
            let shape = shape(v.args[1]["pattern"].as_str().unwrap());
            verdict(value, |msg, cap, len| {
                // SAFETY: live buffers of the stated lengths.
                unsafe {
                    airlock_check_machine_token(
                        value.as_ptr(),
                        value.len(),
                        field.as_ptr(),
                        field.len(),
                        shape,
                        msg,
                        cap,
                        len,
                        ptr::null_mut(),
                    )
                }
            })
        }
        "deriveFenceToken" => Ok(fence(str_arg(v, 0))),
        "parseGlobsFrontmatter" => {
            let by_index = frontmatter(str_arg(v, 0));
            assert_eq!(by_index, frontmatter_read(str_arg(v, 0)), "{}", v.line);
            by_index
        }
        "frontmatterRefusalReason" => Ok(refusal(str_arg(v, 0), v.gate.as_deref())),
        other => panic!("{}: unknown function {other}", v.line),
    };
    Some(result)
}

#[test]
fn every_vector_through_the_c_abi() {
    let ran = check_all("ffi", call);
    assert_eq!(ran, airlock_tests::vectors().len());
}

#[test]
fn invalid_utf8_reports_status_and_offset() {
    let bytes = b"ok \xE2\x82 then";
    let mut out = [0u8; 32];
    let mut len = usize::MAX;
    let mut offset = usize::MAX;
    // SAFETY: live buffers of the stated lengths.
    let status = unsafe {
        airlock_strip(
            bytes.as_ptr(),
            bytes.len(),
            out.as_mut_ptr(),
            out.len(),
            &mut len,
            &mut offset,
        )
    };
    assert_eq!(
        (status, offset, len),
        (airlock_status::InvalidUtf8, 3, usize::MAX)
    );
}

#[test]
fn null_arguments() {
    let mut len = 0usize;
    // SAFETY: NULL with a non-zero length must be refused before any read.
    let status = unsafe {
        airlock_strip(
            ptr::null(),
            4,
            ptr::null_mut(),
            0,
            &mut len,
            ptr::null_mut(),
        )
    };
    assert_eq!(status, airlock_status::NullArg);
    // SAFETY: (NULL, 0) is the empty input; out_len NULL is refused.
    let status = unsafe {
        airlock_strip(
            ptr::null(),
            0,
            ptr::null_mut(),
            0,
            ptr::null_mut(),
            ptr::null_mut(),
        )
    };
    assert_eq!(status, airlock_status::NullArg);
    // SAFETY: (NULL, 0) is the empty input.
    let status = unsafe {
        airlock_strip(
            ptr::null(),
            0,
            ptr::null_mut(),
            0,
            &mut len,
            ptr::null_mut(),
        )
    };
    assert_eq!((status, len), (OK, 0));
}
