//! The write-scope guard's decision on arbitrary stdin: malformed input always denies,
//! and an allow is only ever for an allowed tool or an allowed place.
#![no_main]

use std::path::PathBuf;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use serde_json::Value;

/// A real directory tree, made once: root/AUDIT.md and root/tmp/audit/.
fn root() -> &'static PathBuf {
    static ROOT: OnceLock<PathBuf> = OnceLock::new();
    ROOT.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("airlock-fuzz-ws-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("tmp/audit")).unwrap();
        std::fs::create_dir_all(dir.join("src")).unwrap();
        std::fs::write(dir.join("AUDIT.md"), "report\n").unwrap();
        dir
    })
}

fuzz_target!(|data: &[u8]| {
    let root = root();
    let verdict = airlock_cli::decoders::write_scope(
        data,
        Some(root.to_string_lossy().into_owned()),
        vec!["AUDIT.md".into()],
        vec!["tmp/audit".into()],
        vec!["Read".into()],
    );
    if verdict.is_err() {
        return;
    }
    // Allowed: the input must be a well-formed call.
    let call: Value = serde_json::from_slice(data).expect("allowed unparsable input");
    let tool = call["tool_name"]
        .as_str()
        .expect("allowed without a string tool_name");
    if tool == "Read" {
        return;
    }
    assert!(
        matches!(tool, "Write" | "Edit" | "MultiEdit" | "NotebookEdit"),
        "allowed tool {tool:?}"
    );
    let input = &call["tool_input"];
    let target = ["file_path", "notebook_path", "path"]
        .iter()
        .find_map(|k| input[k].as_str())
        .expect("allowed without a target path");
    assert!(
        !target.chars().any(char::is_control),
        "control in allowed path"
    );
    let allowed = target.ends_with("AUDIT.md") || target.contains("tmp/audit/");
    assert!(allowed, "allowed write to {target:?}");
});
