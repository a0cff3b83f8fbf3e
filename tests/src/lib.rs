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

/// The vectors file, copied from the reference so a fresh clone tests on its own.
pub const VECTORS: &str = include_str!("../conformance/reference-vectors.jsonl");

/// One line of the vectors: a call and what the reference did.
#[derive(Debug, Clone)]
pub struct Vector {
    /// 1-based line number in the file.
    pub line: usize,
    /// The reference function's name.
    pub function: String,
    /// Its arguments.
    pub args: Vec<Value>,
    /// `Ok(result)` or `Err(message)` when the call threw.
    pub expected: Result<Value, String>,
}

/// Every vector, in file order.
pub fn vectors() -> Vec<Vector> {
    VECTORS
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, line)| {
            let v: Value = serde_json::from_str(line).expect("vector line is JSON");
            let expected = match (v.get("ok"), v.get("throws")) {
                (Some(ok), None) => Ok(ok.clone()),
                (None, Some(Value::String(msg))) => Err(msg.clone()),
                _ => panic!("line {}: neither ok nor throws", i + 1),
            };
            Vector {
                line: i + 1,
                function: v["fn"].as_str().expect("fn").to_owned(),
                args: v["args"].as_array().expect("args").clone(),
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
