//! The strict profile's vectors through the built binary (`--profile strict`): every
//! hand-written vector and a sample of the generated bulk, byte for byte.
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

const VECTORS: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../tests/conformance/strict-vectors.jsonl"
));

/// Generated families with thousands of lines: every 40th is run.
const BULK: [&str; 5] = [
    "rgi",
    "rgi-broken",
    "rgi-sanitize",
    "drop-set",
    "drop-set-in-marker",
];

#[test]
fn strict_vectors_through_the_cli() {
    let mut failures = Vec::new();
    let mut ran = 0;
    for (i, raw) in VECTORS.lines().enumerate() {
        let v: Value = serde_json::from_str(raw).unwrap();
        let why = v["why"].as_str().unwrap_or("");
        if BULK.contains(&why) && i % 40 != 0 {
            continue;
        }
        let args = v["args"].as_array().unwrap();
        let input = args[0].as_str().unwrap();
        let (cmd, field): (Vec<String>, Option<String>) = match v["fn"].as_str().unwrap() {
            "stripDangerousInvisibles" => (vec!["strip".into()], None),
            "sanitizeProse" => (
                vec![
                    "sanitize".into(),
                    "--field".into(),
                    args[1]["field"].as_str().unwrap().into(),
                    "--max-bytes".into(),
                    args[1]["maxBytes"].to_string(),
                ],
                None,
            ),
            "assertNoControlChars" => (
                vec!["check".into(), "no-control".into(), "--field".into()],
                Some(args[1].as_str().unwrap().into()),
            ),
            other => panic!("unknown fn {other}"),
        };
        let mut argv = cmd;
        argv.push("--profile".into());
        argv.push("strict".into());
        if let Some(f) = field {
            argv.insert(3, f);
        }
        let out = common::output_of(Command::new(common::BIN).args(&argv), input.as_bytes());
        let code = out.status.code().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        let ok = match (v.get("ok"), v.get("throws")) {
            (Some(ok), _) if v["fn"] == "assertNoControlChars" => {
                let _ = ok;
                code == 0 && stderr.is_empty()
            }
            (Some(ok), _) => code == 0 && stdout == ok.as_str().unwrap() && stderr.is_empty(),
            (None, Some(t)) => {
                code == 1 && stdout.is_empty() && stderr == format!("{}\n", t.as_str().unwrap())
            }
            _ => panic!("{raw}"),
        };
        if !ok && failures.len() < 10 {
            failures.push(format!(
                "{raw}\n  got exit {code} stdout {stdout:?} stderr {stderr:?}"
            ));
        }
        ran += 1;
    }
    assert!(ran > 500, "{ran}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
