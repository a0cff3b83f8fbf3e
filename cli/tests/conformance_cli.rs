//! Every conformance vector that has a command-line form, through the built binary,
//! byte for byte: stdout, stderr and exit code.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    missing_docs
)]

mod common;

use std::process::Command;

use serde_json::Value;

/// Every vectors file every layer runs (see `tests/conformance/README.md`).
const VECTOR_FILES: [(&str, &str); 3] = [
    (
        "reference-vectors.jsonl",
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../tests/conformance/reference-vectors.jsonl"
        )),
    ),
    (
        "gate-3.21-vectors.jsonl",
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../tests/conformance/gate-3.21-vectors.jsonl"
        )),
    ),
    (
        "edge-vectors.jsonl",
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../tests/conformance/edge-vectors.jsonl"
        )),
    ),
];

struct Vector<'a> {
    /// `file:line`.
    line: String,
    raw: &'a str,
    function: String,
    args: Vec<Value>,
    /// The writer gate's release, when the line names one.
    gate: Option<String>,
    /// `Ok(result)` or `Err(message)`.
    expected: Result<Value, String>,
}

fn vectors(function: &str) -> Vec<Vector<'static>> {
    VECTOR_FILES
        .iter()
        .flat_map(|(name, text)| text.lines().enumerate().map(move |(i, raw)| (name, i, raw)))
        .filter(|(_, _, l)| !l.trim().is_empty())
        .map(|(name, i, raw)| {
            let v: Value = serde_json::from_str(raw).unwrap();
            let expected = match (v.get("ok"), v.get("throws")) {
                (Some(ok), None) => Ok(ok.clone()),
                (None, Some(Value::String(m))) => Err(m.clone()),
                _ => panic!("{name}:{}: neither ok nor throws", i + 1),
            };
            Vector {
                line: format!("{name}:{}", i + 1),
                gate: v.get("gate").map(|g| g.as_str().unwrap().to_owned()),
                raw,
                function: v["fn"].as_str().unwrap().to_owned(),
                args: v["args"].as_array().unwrap().clone(),
                expected,
            }
        })
        .filter(|v| v.function == function)
        .collect()
}

struct Run {
    code: i32,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
}

fn run(args: &[&str], stdin: &[u8]) -> Run {
    let out = common::output_of(Command::new(common::BIN).args(args), stdin);
    Run {
        code: out.status.code().unwrap(),
        stdout: out.stdout,
        stderr: out.stderr,
    }
}

/// What a call must print: exit 0 with `stdout`, or exit 1 with the message on stderr.
fn expect(v: &Vector<'_>, got: &Run, ok_stdout: impl FnOnce(&Value) -> String) -> Option<String> {
    let (code, stdout, stderr) = match &v.expected {
        Ok(value) => (0, ok_stdout(value), String::new()),
        Err(message) => (1, String::new(), format!("{message}\n")),
    };
    let got_out = String::from_utf8_lossy(&got.stdout);
    let got_err = String::from_utf8_lossy(&got.stderr);
    if got.code == code && got_out == stdout && got_err == stderr {
        None
    } else {
        Some(format!(
            "line {} {}({}):\n  expected exit {code} stdout {stdout:?} stderr {stderr:?}\n  got      exit {} stdout {got_out:?} stderr {got_err:?}",
            v.line,
            v.function,
            serde_json::to_string(&v.args).unwrap(),
            got.code
        ))
    }
}

fn check_all(function: &str, mut call: impl FnMut(&Vector<'_>) -> Option<String>) {
    let vs = vectors(function);
    assert!(!vs.is_empty(), "no vectors for {function}");
    let failures: Vec<String> = vs.iter().filter_map(&mut call).collect();
    assert!(
        failures.is_empty(),
        "{function}: {} of {} vectors differ:\n{}",
        failures.len(),
        vs.len(),
        failures
            .iter()
            .take(10)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

fn text<'a>(v: &'a Vector<'_>) -> &'a str {
    v.args[0].as_str().unwrap()
}

fn string_out(value: &Value) -> String {
    value.as_str().unwrap().to_owned()
}

#[test]
fn sanitize_prose() {
    check_all("sanitizeProse", |v| {
        let field = v.args[1]["field"].as_str().unwrap();
        let max = v.args[1]["maxBytes"].as_u64().unwrap().to_string();
        let got = run(
            &["sanitize", "--field", field, "--max-bytes", &max],
            text(v).as_bytes(),
        );
        expect(v, &got, string_out)
    });
}

#[test]
fn strip_dangerous_invisibles() {
    check_all("stripDangerousInvisibles", |v| {
        expect(v, &run(&["strip"], text(v).as_bytes()), string_out)
    });
}

#[test]
fn truncate_to_bytes_json() {
    check_all("truncateToBytes", |v| {
        let max = v.args[1].as_u64().unwrap().to_string();
        let got = run(
            &["truncate", "--max-bytes", &max, "--json"],
            text(v).as_bytes(),
        );
        // serde_json writes strings exactly as JSON.stringify does (no lone surrogates
        // can occur in Rust strings), so this is the reference's serialization.
        expect(v, &got, |o| {
            format!(
                "{{\"text\":{},\"truncated\":{},\"bytes\":{}}}\n",
                serde_json::to_string(&o["text"]).unwrap(),
                o["truncated"],
                o["bytes"]
            )
        })
    });
}

#[test]
fn derive_fence_token() {
    check_all("deriveFenceToken", |v| {
        expect(v, &run(&["fence"], text(v).as_bytes()), |t| {
            format!("{}\n", t.as_str().unwrap())
        })
    });
}

fn kind_of(pattern: &str) -> &'static str {
    match pattern {
        "HOST_CLASS_RE" => "host-class",
        "LEARNING_KEY_RE" => "learning-key",
        "EXPIRES_AT_RE" => "expires-at",
        "PROVENANCE_TOKEN_RE" => "provenance",
        other => panic!("unknown pattern {other}"),
    }
}

#[test]
fn assert_machine_token() {
    check_all("assertMachineToken", |v| {
        let field = v.args[1]["field"].as_str().unwrap();
        let kind = kind_of(v.args[1]["pattern"].as_str().unwrap());
        let got = run(&["check", kind, "--field", field], text(v).as_bytes());
        expect(v, &got, |_| String::new())
    });
}

#[test]
fn assert_no_control_chars() {
    check_all("assertNoControlChars", |v| {
        let field = v.args[1].as_str().unwrap();
        let got = run(
            &["check", "no-control", "--field", field],
            text(v).as_bytes(),
        );
        expect(v, &got, |_| String::new())
    });
}

#[test]
fn assert_safe_description_and_glob() {
    check_all("assertSafeDescription", |v| {
        let got = run(&["check", "description"], text(v).as_bytes());
        expect(v, &got, |_| String::new())
    });
    check_all("assertSafeGlob", |v| {
        let got = run(&["check", "glob"], text(v).as_bytes());
        expect(v, &got, |_| String::new())
    });
}

/// `airlock frontmatter [--gate RELEASE] [extra…] -` for a vector.
fn frontmatter_args<'a>(v: &'a Vector<'_>, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec!["frontmatter"];
    if let Some(gate) = v.gate.as_deref() {
        args.extend(["--gate", gate]);
    }
    args.extend(extra);
    args.push("-");
    args
}

#[test]
fn frontmatter_refusal_reason() {
    check_all("frontmatterRefusalReason", |v| {
        let got = run(&frontmatter_args(v, &[]), text(v).as_bytes());
        // The gate never throws: a refusal is exit 1 with `<file>: <reason>` on stdout.
        let (code, stdout) = match v.expected.as_ref().unwrap() {
            Value::Null => (0, String::new()),
            Value::String(reason) => (1, format!("<stdin>: {reason}\n")),
            other => panic!("unexpected {other}"),
        };
        let got_out = String::from_utf8_lossy(&got.stdout);
        (got.code != code || got_out != stdout || !got.stderr.is_empty()).then(|| {
            format!(
                "line {}: expected exit {code} {stdout:?}, got exit {} {got_out:?}",
                v.line, got.code
            )
        })
    });
}

#[test]
fn parse_globs_frontmatter_json() {
    check_all("parseGlobsFrontmatter", |v| {
        let got = run(&["frontmatter", "--json", "-"], text(v).as_bytes());
        let out = String::from_utf8(got.stdout.clone()).unwrap();
        let object: Value = serde_json::from_str(&out).unwrap();
        let refusal = serde_json::to_string(&object["refusal"]).unwrap();
        let expected_code = if object["refusal"].is_null() { 0 } else { 1 };
        // The reference's own text of the result (its key order included): the `ok`
        // member is the last one of the vector's line.
        let expected = match &v.expected {
            Ok(_) => {
                let at = v.raw.rfind(",\"ok\":").unwrap();
                format!("\"parsed\":{}", &v.raw[at + 6..v.raw.len() - 1])
            }
            Err(message) => format!("\"error\":{}", serde_json::to_string(message).unwrap()),
        };
        let expected = format!("{{\"file\":\"<stdin>\",{expected},\"refusal\":{refusal}}}\n");
        (got.code != expected_code || out != expected).then(|| {
            format!(
                "line {}:\n  expected {expected:?}\n  got      {out:?} (exit {})",
                v.line, got.code
            )
        })
    });
}

#[test]
fn refusal_agrees_between_plain_and_json_output() {
    for v in vectors("frontmatterRefusalReason") {
        let got = run(&frontmatter_args(&v, &["--json"]), text(&v).as_bytes());
        let object: Value = serde_json::from_slice(&got.stdout).unwrap();
        assert_eq!(
            object["refusal"],
            *v.expected.as_ref().unwrap(),
            "line {}",
            v.line
        );
    }
}
