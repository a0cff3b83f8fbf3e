//! Every conformance vector through the Rust API of airlock-core.

use airlock_core::frontmatter::{self, Gate, MetaValue};
use airlock_core::{
    LiteralSet, Shape, check_machine_token, check_no_control, check_no_forgery,
    check_safe_description, check_safe_glob, fence_token, sanitize_prose, strip_invisibles,
    truncate_to_bytes, worst_case_len,
};
use airlock_tests::{Vector, check_all};
use serde_json::{Value, json};

fn str_arg(v: &Vector, i: usize) -> &str {
    v.args[i].as_str().expect("string argument")
}

fn pattern_shape(name: &str) -> Shape {
    match name {
        "HOST_CLASS_RE" => Shape::HostClass,
        "LEARNING_KEY_RE" => Shape::LearningKey,
        "EXPIRES_AT_RE" => Shape::ExpiresAt,
        "PROVENANCE_TOKEN_RE" => Shape::Provenance,
        other => panic!("unknown pattern {other}"),
    }
}

/// The parse result as the reference's object.
pub(crate) fn frontmatter_json(doc: &str) -> Result<Value, String> {
    let fm = frontmatter::parse(doc).map_err(|e| e.to_string())?;
    let globs = fm
        .globs()
        .map(|g| Value::Array(g.map(|s| Value::String(s.to_owned())).collect()))
        .unwrap_or(Value::Null);
    let mut meta = serde_json::Map::new();
    for (key, value) in fm.meta().iter() {
        let v = match value {
            MetaValue::Str(s) => json!(s),
            MetaValue::Bool(b) => json!(b),
            MetaValue::Number(n) => airlock_tests::js_number(n),
        };
        meta.insert(key.name().to_owned(), v);
    }
    Ok(json!({"globs": globs, "meta": meta}))
}

fn call(v: &Vector) -> Option<Result<Value, String>> {
    let result = match v.function.as_str() {
        "sanitizeProse" => {
            let text = str_arg(v, 0);
            let field = v.args[1]["field"].as_str().unwrap();
            let max = v.args[1]["maxBytes"].as_u64().unwrap() as usize;
            let mut out = vec![0u8; worst_case_len(text.len(), max)];
            sanitize_prose(text, field, max, &mut out)
                .map(|p| json!(p.text))
                .map_err(|e| e.to_string())
        }
        "truncateToBytes" => {
            let t = truncate_to_bytes(str_arg(v, 0), v.args[1].as_u64().unwrap() as usize);
            Ok(json!({"text": t.text, "truncated": t.truncated, "bytes": t.bytes}))
        }
        "stripDangerousInvisibles" => Ok(json!(strip_invisibles(str_arg(v, 0)).to_string())),
        "assertNoControlChars" => check_no_control(str_arg(v, 0), str_arg(v, 1))
            .map(|s| json!(s))
            .map_err(|e| e.to_string()),
        "assertSafeDescription" => check_safe_description(str_arg(v, 0))
            .map(|s| json!(s))
            .map_err(|e| e.to_string()),
        "assertSafeGlob" => check_safe_glob(str_arg(v, 0))
            .map(|s| json!(s))
            .map_err(|e| e.to_string()),
        "assertNoWrapperForgery" => {
            check_no_forgery(str_arg(v, 0), str_arg(v, 1), &LiteralSet::DEFAULT)
                .map(|()| Value::Null)
                .map_err(|e| e.to_string())
        }
        "assertMachineToken" => {
            let field = v.args[1]["field"].as_str().unwrap();
            let shape = pattern_shape(v.args[1]["pattern"].as_str().unwrap());
            check_machine_token(str_arg(v, 0), field, shape)
                .map(|s| json!(s))
                .map_err(|e| e.to_string())
        }
        "deriveFenceToken" => Ok(json!(fence_token(str_arg(v, 0).as_bytes()).as_str())),
        "parseGlobsFrontmatter" => frontmatter_json(str_arg(v, 0)),
        "frontmatterRefusalReason" => {
            let gate = v.gate.as_deref().map_or(Gate::default(), |g| {
                Gate::from_name(g).unwrap_or_else(|| panic!("{}: unknown gate {g}", v.line))
            });
            Ok(frontmatter::refusal_reason_with(str_arg(v, 0), gate)
                .map_or(Value::Null, |r| json!(r.to_string())))
        }
        other => panic!("{}: unknown function {other}", v.line),
    };
    Some(result)
}

#[test]
fn every_vector_through_core() {
    let ran = check_all("core", call);
    assert_eq!(ran, airlock_tests::vectors().len());
}
