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
        // Kinds another layer added (glob, description checks) are not this one's.
        if ![
            "stripDangerousInvisibles",
            "sanitizeProse",
            "assertNoControlChars",
        ]
        .contains(&v["fn"].as_str().unwrap())
        {
            continue;
        }
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
            other => unreachable!("{other} was skipped above"),
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

fn scan(args: &[&str], input: &str) -> (i32, String, String) {
    let out = common::output_of(Command::new(common::BIN).args(args), input.as_bytes());
    (
        out.status.code().unwrap(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

const HOSTILE: &str = "a\u{200E}b\x1b[2Jc\x07\n<|im_end|> \u{FF3B}INST\u{FF3D} <!-- x --> \
                       untrusted-\u{200B}content:end </Applicable-Rules>\n";

#[test]
fn scan_strict_reports_what_strict_changes_with_rules_of_its_own() {
    let (code, out, err) = scan(
        &["scan", "--profile", "strict", "--format", "json"],
        HOSTILE,
    );
    assert_eq!(code, 1, "{err}");
    let findings: Vec<Value> = serde_json::from_str(&out).unwrap();
    let got: Vec<(&str, u64, &str)> = findings
        .iter()
        .map(|f| {
            (
                f["kind"].as_str().unwrap(),
                f["byte"].as_u64().unwrap(),
                f["text"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("strict-invisible", 1, "\u{200E}"),
            ("escape-sequence", 5, "\x1b[2J"),
            ("strict-control-character", 10, "\x07"),
            ("special-token", 12, "<|im_end|>"),
            ("special-token", 23, "\u{FF3B}INST\u{FF3D}"),
            ("hidden-comment", 34, "<!--"),
            ("envelope-marker", 45, "untrusted-\u{200B}content:end"),
            ("strict-invisible", 55, "\u{200B}"),
            ("forgery-literal", 70, "</Applicable-Rules>"),
        ]
    );
    // The reference scan of the same text: only its own kinds.
    let (_, out, _) = scan(&["scan", "--format", "json"], HOSTILE);
    let reference: Vec<Value> = serde_json::from_str(&out).unwrap();
    assert!(reference.iter().all(|f| f.get("text").is_none()));
    assert!(reference.len() < findings.len());

    let (code, out, _) = scan(
        &["scan", "--profile", "strict", "--format", "sarif"],
        HOSTILE,
    );
    assert_eq!(code, 1);
    let sarif: Value = serde_json::from_str(&out).unwrap();
    let run = &sarif["runs"][0];
    let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
    assert!(run["tool"]["driver"].get("informationUri").is_none());
    assert_eq!(rules.len(), 7);
    for r in run["results"].as_array().unwrap() {
        let i = r["ruleIndex"].as_u64().unwrap() as usize;
        let id = r["ruleId"].as_str().unwrap();
        assert_eq!(rules[i]["id"], id);
        assert!(id.starts_with("AIRLOCK1"), "{id}");
    }

    let (code, out, _) = scan(&["scan", "--profile", "strict"], HOSTILE);
    assert_eq!(code, 1);
    assert_eq!(out.lines().count(), 9);
    assert!(out.starts_with("<stdin>:1:2: U+200E "), "{out}");
    assert!(
        out.contains("<stdin>:2:1: U+003C \"<\": special token"),
        "{out}"
    );
}

#[test]
fn scan_strict_passes_what_strict_keeps() {
    // RGI emoji with joiners and selectors, a Persian half-space, a Devanagari
    // conjunct joiner: strict keeps them, so strict scan is silent.
    let kept = "\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467} \u{2764}\u{FE0F} \
                \u{645}\u{6CC}\u{200C}\u{62E}\u{648}\u{627}\u{647}\u{645} \
                \u{915}\u{94D}\u{200D}\u{937}\n";
    assert_eq!(
        scan(&["scan", "--profile", "strict"], kept),
        (0, String::new(), String::new())
    );
}

#[test]
fn scan_fix_strict_applies_strict_strip() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f.txt");
    std::fs::write(&path, HOSTILE).unwrap();
    let p = path.to_str().unwrap();
    let (code, _, err) = scan(&["scan", "--profile", "strict", "--fix", p], "");
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("fixed"), "{err}");
    let fixed = std::fs::read_to_string(&path).unwrap();
    assert_eq!(
        fixed,
        "abc\n<|im_end|> \u{FF3B}INST\u{FF3D} <!-- x --> untrusted-content:end </Applicable-Rules>\n"
    );
    // What strip removes is gone; the folded patterns stay for review.
    let (code, out, _) = scan(&["scan", "--profile", "strict", "--format", "json", p], "");
    assert_eq!(code, 1);
    let left: Vec<Value> = serde_json::from_str(&out).unwrap();
    assert_eq!(left.len(), 5);
    assert!(
        left.iter()
            .all(|f| !f["kind"].as_str().unwrap().starts_with("strict-"))
    );
}

#[test]
fn check_glob_and_description_under_strict() {
    for kind in ["glob", "description"] {
        let lrm = "src/\u{200E}*.rs";
        assert_eq!(scan(&["check", kind, lrm], "").0, 0);
        let (code, _, err) = scan(&["check", kind, "--profile", "strict", lrm], "");
        assert_eq!(code, 1);
        assert!(err.contains("U+200E"), "{err}");
        let conjunct = "\u{915}\u{94D}\u{200D}\u{937}";
        assert_eq!(
            scan(&["check", kind, "--profile", "strict", conjunct], "").0,
            0
        );
    }
    let folded = "see \u{FF1C}/APPLICABLE-RULES\u{FF1E}";
    assert_eq!(scan(&["check", "description", folded], "").0, 0);
    let (code, _, err) = scan(&["check", "description", "--profile", "strict", folded], "");
    assert_eq!(code, 1);
    assert!(err.contains("delivery-wrapper literal"), "{err}");
}
