//! The write-scope guard's whole decision, against a real directory tree with symlinks,
//! protected directories and an outside sibling. Run it under the limits the guard
//! promises: `-rss_limit_mb=64 -timeout=1` (see fuzz/smoke.sh).
//!
//! The input is either raw stdin (first byte even) or, through a small grammar, a call
//! built from path pieces that matter here (`..`, symlinked directories, protected names
//! in other cases, the white space Claude Code trims, `~`, decomposed text) plus padding
//! up to the 8 MiB cap. Invariant: an allowed write lands — as Claude Code would open
//! it: trimmed, `~`-expanded, `..` taken lexically, NFC — on the allowed file or strictly
//! inside the allowed directory, outside `.git`/`.claude` in any spelling; an allowed
//! call is well-formed and names an allowed tool.
#![no_main]

use std::path::{Component, Path, PathBuf};
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use serde_json::Value;

struct Tree {
    root: PathBuf,
}

/// root/{AUDIT.md, src/, .git/, .claude/, tmp/audit/sub/deep/, docs -> tmp/audit/sub,
/// tmp/audit/up -> ../../src, tmp/audit/deep-link -> sub/deep, tmp/audit/out -> ../../..},
/// and root/../outside/ beside it. Made once per process.
fn tree() -> &'static Tree {
    static TREE: OnceLock<Tree> = OnceLock::new();
    TREE.get_or_init(|| {
        let base = std::env::temp_dir().join(format!("airlock-fuzz-ws-{}", std::process::id()));
        let root = base.join("root");
        for dir in ["tmp/audit/sub/deep", "src", ".git", ".claude"] {
            std::fs::create_dir_all(root.join(dir)).unwrap();
        }
        std::fs::create_dir_all(base.join("outside")).unwrap();
        std::fs::write(root.join("AUDIT.md"), "report\n").unwrap();
        std::fs::write(root.join("tmp/audit/existing.md"), "x\n").unwrap();
        let link = |target: &str, at: &str| {
            let _ = std::os::unix::fs::symlink(target, root.join(at));
        };
        link("tmp/audit/sub", "docs");
        link("../../src", "tmp/audit/up");
        link("sub/deep", "tmp/audit/deep-link");
        link("../../..", "tmp/audit/out");
        Tree {
            root: std::fs::canonicalize(&root).unwrap(),
        }
    })
}

/// Path pieces the grammar draws from.
const PIECES: &[&str] = &[
    "AUDIT.md",
    "tmp",
    "audit",
    "sub",
    "deep",
    "docs",
    "up",
    "deep-link",
    "out",
    "src",
    "x.md",
    "..",
    ".",
    "",
    ".git",
    ".GIT.",
    ".Claude ",
    ".claude",
    "hooks",
    "settings.json",
    "outside",
    "existing.md",
    "new",
    "CLAUDE.md",
    ".vscode",
    "~",
    " ",
    "\u{a0}",
    "\u{feff}",
    "\u{3000}",
    "e\u{301}",
    "\u{e9}",
    "audit.md",
    "AUDIT.md.",
    "root",
];

/// The call the grammar built: what the oracle checks an allow against, so that the
/// (possibly 8 MiB) input is never parsed a second time.
struct Built {
    tool: &'static str,
    path: String,
    cwd: PathBuf,
}

/// Builds a call from `data` into `input`, or `None` to use `data` as raw stdin.
fn generated(data: &[u8], root: &Path, input: &mut Vec<u8>) -> Option<Built> {
    let (&mode, rest) = data.split_first()?;
    if mode % 2 == 0 {
        return None;
    }
    let tool = ["Write", "Edit", "MultiEdit", "NotebookEdit", "Read", "Bash"]
        .get(usize::from(mode / 2) % 6)
        .copied()
        .unwrap_or("Write");
    let (&shape, rest) = rest.split_first().unwrap_or((&0, &[]));
    let mut path = String::new();
    if shape & 1 == 1 {
        path.push_str(&root.to_string_lossy());
        path.push('/');
    }
    for (i, byte) in rest.iter().take(24).enumerate() {
        if i > 0 {
            path.push('/');
        }
        match PIECES.get(usize::from(*byte)) {
            Some(piece) => path.push_str(piece),
            None => path.push(char::from(*byte)),
        }
    }
    let cwd = match (shape >> 1) & 3 {
        0 => root.to_path_buf(),
        1 => root.join("tmp/audit"),
        2 => root.join("docs"),
        _ => root.join("src"),
    };
    let key = ["file_path", "notebook_path", "path"][usize::from(shape >> 3) % 3];
    let head = serde_json::json!({
        "tool_name": tool,
        "tool_input": {key: path},
        "cwd": cwd,
    })
    .to_string();
    input.clear();
    input.extend_from_slice(head.as_bytes());
    input.pop(); // the closing brace: padding goes in as one more key
    // Padding up to the input cap exercises the bounded parse: a string up to the cap, or
    // dense tiny values (the shape a JSON tree pays most for), which are slower to skip.
    match shape >> 5 {
        7 => pad_string(input, 8 * 1024 * 1024 - 4096),
        6 => pad_string(input, 1024 * 1024),
        5 => pad_dense(input, 256 * 1024),
        4 => pad_dense(input, 4096),
        _ => {}
    }
    input.push(b'}');
    Some(Built { tool, path, cwd })
}

fn pad_string(input: &mut Vec<u8>, len: usize) {
    input.extend_from_slice(b",\"pad\":\"");
    input.resize(input.len() + len, b'a');
    input.push(b'"');
}

fn pad_dense(input: &mut Vec<u8>, len: usize) {
    input.extend_from_slice(b",\"pad\":[");
    for _ in 0..len / 2 {
        input.extend_from_slice(b"0,");
    }
    input.extend_from_slice(b"0]");
}

/// What Claude Code opens for `text` from `cwd`: `path.resolve`, then NFC.
fn client_path(text: &str, cwd: &Path) -> Option<PathBuf> {
    let trimmed = text.trim_matches(|c: char| {
        c.is_whitespace() || matches!(c, '\u{feff}' | '\u{a0}' | '\u{2028}' | '\u{2029}')
    });
    if trimmed != text || text.starts_with('~') {
        return None; // The guard must have denied: checked by the caller.
    }
    let mut out = PathBuf::new();
    for part in cwd.join(text).components() {
        match part {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    Some(out)
}

/// Where the kernel lands a write to `path`: the longest existing prefix resolved, the
/// rest appended.
fn physical(path: &Path) -> PathBuf {
    let mut missing = Vec::new();
    let mut probe = path.to_path_buf();
    loop {
        if let Ok(real) = std::fs::canonicalize(&probe) {
            let mut out = real;
            out.extend(missing.iter().rev());
            return out;
        }
        match (probe.file_name().map(|n| n.to_owned()), probe.parent()) {
            (Some(name), Some(parent)) => {
                missing.push(name);
                probe = parent.to_path_buf();
            }
            _ => return path.to_path_buf(),
        }
    }
}

fn protected(name: &std::ffi::OsStr) -> bool {
    let folded = name.to_string_lossy().to_lowercase();
    let folded = folded.trim_end_matches(['.', ' ']);
    matches!(folded, ".git" | ".claude")
}

thread_local! {
    /// One input buffer for the whole run: an 8 MiB allocation per input would fill the
    /// sanitizer's quarantine and trip the 64 MiB limit for memory the guard never uses.
    static INPUT: std::cell::RefCell<Vec<u8>> = std::cell::RefCell::new(Vec::with_capacity(9 << 20));
}

fuzz_target!(|data: &[u8]| {
    INPUT.with(|buffer| check(data, &mut buffer.borrow_mut()));
});

fn check(data: &[u8], buffer: &mut Vec<u8>) {
    let tree = tree();
    let root = &tree.root;
    let built = generated(data, root, buffer);
    let input: &[u8] = if built.is_some() { buffer } else { data };
    let verdict = airlock_hooks::decoders::write_scope(
        input,
        Some(root.to_string_lossy().into_owned()),
        vec!["AUDIT.md".into()],
        vec!["tmp/audit".into()],
        vec!["Read".into()],
        vec![],
    );
    if verdict.is_err() {
        return;
    }
    let (tool, target, cwd) = match &built {
        Some(built) => (built.tool.to_owned(), built.path.clone(), built.cwd.clone()),
        None => {
            // Allowed raw input (at most -max_len bytes) must be a well-formed call.
            let call: Value = serde_json::from_slice(input).expect("allowed unparsable input");
            let tool = call["tool_name"]
                .as_str()
                .expect("allowed without a string tool_name")
                .to_owned();
            let target = ["file_path", "notebook_path", "path"]
                .iter()
                .find_map(|k| call["tool_input"][k].as_str())
                .unwrap_or_default()
                .to_owned();
            // No cwd: the guard allows only an absolute target, which `join` keeps whole.
            let cwd = call["cwd"]
                .as_str()
                .map_or_else(|| root.clone(), PathBuf::from);
            (tool, target, cwd)
        }
    };
    if tool == "Read" {
        return;
    }
    assert!(
        matches!(
            tool.as_str(),
            "Write" | "Edit" | "MultiEdit" | "NotebookEdit"
        ),
        "allowed tool {tool:?}"
    );
    assert!(!target.is_empty(), "allowed without a target path");
    assert!(
        !target.chars().any(char::is_control),
        "control in allowed path {target:?}"
    );
    let opened = client_path(&target, &cwd)
        .unwrap_or_else(|| panic!("allowed a path Claude Code rewrites: {target:?}"));
    assert!(
        unicode_normalization::is_nfc(&target),
        "allowed a non-NFC path {target:?}"
    );
    let lands = physical(&opened);
    let audit = root.join("AUDIT.md");
    let dir = root.join("tmp/audit");
    let inside = lands
        .strip_prefix(&dir)
        .is_ok_and(|below| below.components().next().is_some());
    assert!(
        lands == audit || inside,
        "allowed write to {target:?} lands on {lands:?}"
    );
    let below_root = lands.strip_prefix(root).expect("inside the root");
    assert!(
        lands == audit || !below_root.components().any(|c| protected(c.as_os_str())),
        "allowed write into a protected place: {lands:?}"
    );
}
