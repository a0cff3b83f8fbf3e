//! airlock-tests: integration tests across the layers (the tests live in `tests/`),
//! and the conformance vectors they share.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects
)]

use serde_json::Value;

/// The vectors files every layer runs, by name: the reference's 3.20.0 vectors and
/// 3.21.0 gate vectors (copied so a fresh clone tests on its own), and the edge cases
/// found since (each line the reference's own result; see `conformance/README.md`).
pub const VECTOR_FILES: [(&str, &str); 3] = [
    (
        "reference-vectors.jsonl",
        include_str!("../conformance/reference-vectors.jsonl"),
    ),
    (
        "gate-3.21-vectors.jsonl",
        include_str!("../conformance/gate-3.21-vectors.jsonl"),
    ),
    (
        "edge-vectors.jsonl",
        include_str!("../conformance/edge-vectors.jsonl"),
    ),
];

/// One line of the vectors: a call and what the reference did.
#[derive(Debug, Clone)]
pub struct Vector {
    /// Where the line is: `file:line` (1-based).
    pub line: String,
    /// The reference function's name.
    pub function: String,
    /// Its arguments.
    pub args: Vec<Value>,
    /// The writer gate's release (`"3.21"`), when the line names one; the default
    /// (3.20.0) otherwise.
    pub gate: Option<String>,
    /// `Ok(result)` or `Err(message)` when the call threw.
    pub expected: Result<Value, String>,
}

/// Every vector, in file order.
pub fn vectors() -> Vec<Vector> {
    VECTOR_FILES
        .iter()
        .flat_map(|(name, text)| parse_vectors(name, text))
        .collect()
}

/// The vectors of one file.
pub fn parse_vectors(name: &str, text: &str) -> Vec<Vector> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, line)| {
            let v: Value = serde_json::from_str(line).expect("vector line is JSON");
            let expected = match (v.get("ok"), v.get("throws")) {
                (Some(ok), None) => Ok(ok.clone()),
                (None, Some(Value::String(msg))) => Err(msg.clone()),
                _ => panic!("{name}:{}: neither ok nor throws", i + 1),
            };
            Vector {
                line: format!("{name}:{}", i + 1),
                function: v["fn"].as_str().expect("fn").to_owned(),
                args: v["args"].as_array().expect("args").clone(),
                gate: v.get("gate").map(|g| g.as_str().expect("gate").to_owned()),
                expected,
            }
        })
        .collect()
}

/// Runs every vector through `call`, collecting a description of each mismatch, and
/// panics listing them (up to 20) when there is any. Returns how many ran.
pub fn check_all(
    layer: &str,
    mut call: impl FnMut(&Vector) -> Option<Result<Value, String>>,
) -> usize {
    let mut failures = Vec::new();
    let mut ran = 0;
    for v in vectors() {
        let Some(got) = call(&v) else { continue };
        ran += 1;
        if got != v.expected {
            failures.push(format!(
                "line {} {}({}):\n  expected {:?}\n  got      {:?}",
                v.line,
                v.function,
                serde_json::to_string(&v.args).unwrap(),
                v.expected,
                got
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{layer}: {} of {ran} vectors differ:\n{}",
        failures.len(),
        failures
            .iter()
            .take(20)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
    ran
}

/// A number as the reference's `JSON.stringify` writes it and `serde_json` reads that
/// back: integral values as integers (`-0` as `0`), ±∞ and NaN as `null`.
pub fn js_number(n: f64) -> Value {
    if !n.is_finite() {
        return Value::Null;
    }
    if n.fract() == 0.0 && n.abs() < 9.2e18 {
        return Value::from(n as i64);
    }
    serde_json::Number::from_f64(n).map_or(Value::Null, Value::Number)
}
