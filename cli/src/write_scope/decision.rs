//! The decision: one PreToolUse call in, allow or deny out. No stdin, stdout or process state,
//! so that tests and a fuzz target can call it directly.

use std::ffi::OsStr;
use std::fs;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::{Map, Value};

use super::options::{Options, WRITE_TOOLS, names_a_file};
use super::resolve::{Resolved, resolve_physical};

/// Largest input read: tool inputs carry whole file contents, but nothing legitimate comes close.
pub(crate) const MAX_INPUT_BYTES: usize = 8 * 1024 * 1024;

/// Keys naming a write's target, in order of precedence.
const TARGET_KEYS: [&str; 3] = ["file_path", "notebook_path", "path"];

/// Directory names a `--allow-dir` grant never reaches into: a write under `.git` can plant a
/// hook or config that runs code, and one under `.claude` can rewrite the hooks, this one
/// included. Naming such a file with `--allow` still works.
const PROTECTED_NAMES: [&str; 2] = [".git", ".claude"];

/// What the hook answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Decision {
    Allow,
    Deny(String),
}

impl Decision {
    fn deny(reason: impl std::fmt::Display) -> Self {
        Self::Deny(format!("airlock write-scope: {reason}"))
    }
}

/// Decides one PreToolUse call given as raw bytes. Every failure to understand the input is a
/// deny: a hook that errors out lets the call through.
pub(crate) fn decide(input: &[u8], opts: &Options) -> Decision {
    match decide_inner(input, opts) {
        Ok(()) => Decision::Allow,
        Err(reason) => Decision::deny(reason),
    }
}

fn decide_inner(input: &[u8], opts: &Options) -> Result<(), String> {
    if input.len() > MAX_INPUT_BYTES {
        return Err(format!("input is larger than {MAX_INPUT_BYTES} bytes"));
    }
    let text = simdutf8::basic::from_utf8(input).map_err(|_| "input is not valid UTF-8")?;
    if text.trim().is_empty() {
        return Err("input is empty".into());
    }
    // Duplicate keys keep the last value, as JSON.parse does in Claude Code itself.
    let call: Value =
        serde_json::from_str(text).map_err(|error| format!("input is not valid JSON: {error}"))?;
    let call = call.as_object().ok_or("input is not a JSON object")?;
    let tool = match call.get("tool_name") {
        Some(Value::String(tool)) => tool.as_str(),
        Some(_) => return Err("tool_name is not a string".into()),
        None => return Err("tool_name is missing".into()),
    };
    if WRITE_TOOLS.contains(&tool) {
        return check_write(tool, call, opts);
    }
    if opts.allows_tool(tool) {
        return Ok(());
    }
    Err(format!(
        "tool {tool:?} is not allowed: only Write, Edit, MultiEdit and NotebookEdit to allowed paths, and tools named with --allow-tool, pass"
    ))
}

fn check_write(tool: &str, call: &Map<String, Value>, opts: &Options) -> Result<(), String> {
    let input = match call.get("tool_input") {
        Some(Value::Object(input)) => input,
        Some(_) => return Err(format!("{tool}: tool_input is not an object")),
        None => return Err(format!("{tool}: tool_input is missing")),
    };
    let target = target_path(tool, input)?;
    check_path_text(tool, "target path", target)?;
    if !names_a_file(target) {
        return Err(format!(
            "{tool} to {target:?} denied: the path does not end in a file name"
        ));
    }
    let cwd = match call.get("cwd") {
        Some(Value::String(cwd)) => {
            check_path_text(tool, "cwd", cwd)?;
            if !Path::new(cwd).is_absolute() {
                return Err(format!("{tool}: cwd {cwd:?} is not absolute"));
            }
            Some(Path::new(cwd.as_str()))
        }
        Some(_) => return Err(format!("{tool}: cwd is not a string")),
        None => None,
    };
    let absolute = absolute_target(tool, target, cwd)?;
    let resolved =
        resolve_physical(&absolute).map_err(|why| format!("{tool} to {target:?} denied: {why}"))?;
    let shown = shown_target(target, &absolute, &resolved.path);
    let root = find_root(opts, cwd).map_err(|why| format!("{tool} to {shown} denied: {why}"))?;
    let grants = resolve_grants(opts, &root)?;
    let granted = grants.files.contains(&resolved.path)
        || grants
            .dirs
            .iter()
            .any(|dir| strictly_inside_unprotected(&resolved.path, dir));
    if granted {
        // A granted name can still hold something a write must not go through.
        if let Some(meta) = &resolved.existing {
            if !meta.is_file() {
                return Err(format!(
                    "{tool} to {shown} denied: it exists and is not a regular file"
                ));
            }
            if let Some(links) = extra_hard_links(meta) {
                return Err(format!(
                    "{tool} to {shown} denied: the file has {links} hard links, so the write would also change another path"
                ));
            }
        }
        return Ok(());
    }
    Err(format!(
        "{tool} to {shown} denied: it is neither an allowed file nor strictly inside an allowed directory (root {root:?}; {})",
        describe_grants(opts)
    ))
}

/// The first of `TARGET_KEYS` present. Two keys naming different paths are refused, since the
/// guard cannot know which one the tool writes.
fn target_path<'a>(tool: &str, input: &'a Map<String, Value>) -> Result<&'a str, String> {
    let mut found: Option<&str> = None;
    for key in TARGET_KEYS {
        let value = match input.get(key) {
            None => continue,
            Some(Value::String(value)) => value.as_str(),
            Some(_) => return Err(format!("{tool}: tool_input.{key} is not a string")),
        };
        match found {
            None => found = Some(value),
            Some(first) if first == value => {}
            Some(first) => {
                return Err(format!(
                    "{tool}: tool_input names two different paths, {first:?} and {value:?}"
                ));
            }
        }
    }
    found.ok_or_else(|| format!("{tool}: tool_input has no file_path, notebook_path or path"))
}

fn check_path_text(tool: &str, what: &str, text: &str) -> Result<(), String> {
    if text.is_empty() {
        return Err(format!("{tool}: {what} is empty"));
    }
    if text.chars().any(char::is_control) {
        return Err(format!(
            "{tool}: {what} {text:?} contains a control character"
        ));
    }
    Ok(())
}

fn absolute_target(tool: &str, target: &str, cwd: Option<&Path>) -> Result<PathBuf, String> {
    let target = Path::new(target);
    if target.is_absolute() {
        return Ok(target.to_path_buf());
    }
    cwd.map(|cwd| cwd.join(target))
        .ok_or_else(|| format!("{tool} to {target:?} denied: relative path and no cwd"))
}

/// How the reason names the target: as given, plus where it really lands when that differs.
fn shown_target(given: &str, absolute: &Path, resolved: &Path) -> String {
    if resolved == Path::new(given) {
        format!("{given:?}")
    } else if resolved == absolute {
        format!("{given:?} ({resolved:?})")
    } else {
        format!("{given:?} (resolves to {resolved:?})")
    }
}

#[cfg(unix)]
fn extra_hard_links(meta: &fs::Metadata) -> Option<u64> {
    use std::os::unix::fs::MetadataExt;
    (meta.nlink() > 1).then_some(meta.nlink())
}

#[cfg(not(unix))]
fn extra_hard_links(_meta: &fs::Metadata) -> Option<u64> {
    None
}

/// The root, resolved: `--root`, else the nearest directory above `cwd` holding `.git` (a
/// directory, or a file in worktrees and submodules), else `cwd`. Found by looking, not by
/// running git, which would cost a process per call.
fn find_root(opts: &Options, cwd: Option<&Path>) -> Result<PathBuf, String> {
    let resolve = |path: &Path| {
        fs::canonicalize(path).map_err(|error| format!("cannot resolve the root {path:?}: {error}"))
    };
    if let Some(root) = &opts.root {
        if root.is_absolute() {
            return resolve(root);
        }
        let cwd = cwd.ok_or("--root is relative and the call has no cwd")?;
        return resolve(&cwd.join(root));
    }
    let cwd = resolve(cwd.ok_or("no --root and the call has no cwd")?)?;
    let top = cwd
        .ancestors()
        .find(|dir| fs::symlink_metadata(dir.join(".git")).is_ok());
    Ok(top.unwrap_or(&cwd).to_path_buf())
}

struct Grants {
    files: Vec<PathBuf>,
    dirs: Vec<PathBuf>,
}

/// Resolves the allowed paths under `root` the way targets are resolved. An allowed path that
/// cannot be resolved, or that lands outside the root, is a broken configuration: it denies every
/// write rather than being skipped silently.
fn resolve_grants(opts: &Options, root: &Path) -> Result<Grants, String> {
    let resolve = |flag: &str, entry: &str| -> Result<PathBuf, String> {
        let Resolved { path, .. } = resolve_physical(&root.join(entry))
            .map_err(|why| format!("{flag} {entry:?} is unusable: {why}"))?;
        Ok(path)
    };
    let mut files = Vec::with_capacity(opts.allow_files.len());
    for entry in &opts.allow_files {
        let path = resolve("--allow", entry)?;
        if path == root || !path.starts_with(root) {
            return Err(format!(
                "--allow {entry:?} resolves to {path:?}, outside the root {root:?}"
            ));
        }
        files.push(path);
    }
    let mut dirs = Vec::with_capacity(opts.allow_dirs.len());
    for entry in &opts.allow_dirs {
        // `.` names the root itself; `resolve_physical` wants a last name to look at.
        let path = if Path::new(entry)
            .components()
            .all(|c| c == std::path::Component::CurDir)
        {
            root.to_path_buf()
        } else {
            resolve("--allow-dir", entry)?
        };
        if !path.starts_with(root) {
            return Err(format!(
                "--allow-dir {entry:?} resolves to {path:?}, outside the root {root:?}"
            ));
        }
        dirs.push(path);
    }
    Ok(Grants { files, dirs })
}

fn strictly_inside_unprotected(target: &Path, dir: &Path) -> bool {
    let Ok(below) = target.strip_prefix(dir) else {
        return false;
    };
    let mut names = below.components().map(|part| part.as_os_str());
    let first = names.next();
    first.is_some()
        && !first
            .into_iter()
            .chain(names)
            .any(|name| PROTECTED_NAMES.map(OsStr::new).contains(&name))
}

fn describe_grants(opts: &Options) -> String {
    if opts.allow_files.is_empty() && opts.allow_dirs.is_empty() {
        return "no path is allowed".into();
    }
    let files = opts.allow_files.iter().map(|file| format!("{file:?}"));
    let dirs = opts.allow_dirs.iter().map(|dir| format!("inside {dir:?}"));
    format!(
        "allowed: {}",
        files.chain(dirs).collect::<Vec<_>>().join(", ")
    )
}

/// The deny line Claude Code reads from stdout.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct HookOutput<'a> {
    hook_specific_output: HookSpecificOutput<'a>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct HookSpecificOutput<'a> {
    hook_event_name: &'a str,
    permission_decision: &'a str,
    permission_decision_reason: &'a str,
}

/// The one-line JSON deny for `reason`, newline included.
pub(crate) fn deny_line(reason: &str) -> String {
    let output = HookOutput {
        hook_specific_output: HookSpecificOutput {
            hook_event_name: "PreToolUse",
            permission_decision: "deny",
            permission_decision_reason: reason,
        },
    };
    match serde_json::to_string(&output) {
        Ok(mut line) => {
            line.push('\n');
            line
        }
        // Serializing plain strings cannot fail; if it ever did, a fixed deny still blocks.
        Err(_) => FALLBACK_DENY_LINE.to_owned(),
    }
}

/// Deny line with a fixed reason, for when even building a reason went wrong.
pub(crate) const FALLBACK_DENY_LINE: &str = "{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"deny\",\"permissionDecisionReason\":\"airlock write-scope: internal error\"}}\n";

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic, clippy::indexing_slicing)]
mod tests {
    use super::*;

    fn opts() -> Options {
        Options::new(
            None,
            vec!["AUDIT.md".into()],
            vec!["tmp/audit".into()],
            vec!["Read".into()],
        )
        .unwrap()
    }

    fn call(root: &Path, tool: &str, path: &str) -> Vec<u8> {
        serde_json::to_vec(&serde_json::json!({
            "tool_name": tool,
            "tool_input": {"file_path": path},
            "cwd": root,
        }))
        .unwrap()
    }

    fn reason(decision: Decision) -> String {
        match decision {
            Decision::Deny(reason) => reason,
            Decision::Allow => panic!("allowed"),
        }
    }

    #[test]
    fn fallback_line_matches_the_serialized_form() {
        assert_eq!(
            deny_line("airlock write-scope: internal error"),
            FALLBACK_DENY_LINE
        );
    }

    #[test]
    fn deny_line_escapes_the_reason() {
        let line = deny_line("a \"b\" \u{1b} \\");
        assert_eq!(line.matches('\n').count(), 1);
        let parsed: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(
            parsed["hookSpecificOutput"]["permissionDecisionReason"],
            Value::String("a \"b\" \u{1b} \\".into())
        );
    }

    #[test]
    fn allows_only_the_granted_paths() {
        let dir = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(dir.path()).unwrap();
        fs::create_dir(root.join(".git")).unwrap();
        let o = opts();
        assert_eq!(
            decide(&call(&root, "Write", "AUDIT.md"), &o),
            Decision::Allow
        );
        assert_eq!(
            decide(&call(&root, "Edit", "tmp/audit/a/b.md"), &o),
            Decision::Allow
        );
        assert!(reason(decide(&call(&root, "Write", "src/x.ts"), &o)).contains("neither"));
        assert!(reason(decide(&call(&root, "Write", "tmp/audit"), &o)).contains("neither"));
        assert!(reason(decide(&call(&root, "Bash", "x"), &o)).contains("\"Bash\""));
        assert_eq!(
            decide(&call(&root, "Read", "/etc/passwd"), &o),
            Decision::Allow
        );
    }

    #[test]
    fn root_is_the_git_top_level_of_cwd() {
        let dir = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(dir.path()).unwrap();
        fs::create_dir(root.join(".git")).unwrap();
        fs::create_dir_all(root.join("sub/deeper")).unwrap();
        let input = call(&root.join("sub/deeper"), "Write", "../../AUDIT.md");
        assert_eq!(decide(&input, &opts()), Decision::Allow);
        // Without `.git` the root is cwd itself, where AUDIT.md is not the allowed one.
        fs::remove_dir(root.join(".git")).unwrap();
        assert!(matches!(decide(&input, &opts()), Decision::Deny(_)));
    }

    #[test]
    fn dir_grants_skip_protected_directories() {
        let dir = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(dir.path()).unwrap();
        let o = Options::new(
            Some(root.display().to_string()),
            vec![],
            vec![".".into()],
            vec![],
        )
        .unwrap();
        assert_eq!(
            decide(&call(&root, "Write", "src/x.ts"), &o),
            Decision::Allow
        );
        assert!(matches!(
            decide(&call(&root, "Write", ".git/hooks/pre-commit"), &o),
            Decision::Deny(_)
        ));
        assert!(matches!(
            decide(&call(&root, "Write", ".claude/settings.json"), &o),
            Decision::Deny(_)
        ));
        assert!(matches!(
            decide(&call(&root, "Write", "AUDIT.md"), &Options::default()),
            Decision::Deny(_)
        ));
    }

    #[test]
    fn grants_outside_the_root_deny_everything() {
        let dir = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(dir.path()).unwrap();
        fs::create_dir(root.join("r")).unwrap();
        fs::create_dir(root.join("other")).unwrap();
        let with_dir = |entry: &str| {
            Options::new(Some("r".into()), vec![], vec![entry.into()], vec![]).unwrap()
        };
        let input = call(&root, "Write", "other/x");
        let why = reason(decide(&input, &with_dir("../other")));
        assert!(why.contains("outside the root"), "{why}");
        let why = reason(decide(&input, &with_dir("..")));
        assert!(why.contains("unusable"), "{why}");
        let o = Options::new(Some("r".into()), vec!["../other/x".into()], vec![], vec![]).unwrap();
        let why = reason(decide(&input, &o));
        assert!(why.contains("outside the root"), "{why}");
    }

    #[test]
    fn ambiguous_targets_are_refused() {
        let input = br#"{"tool_name":"Write","tool_input":{"file_path":"/a/AUDIT.md","path":"/a/src/x"},"cwd":"/a"}"#;
        assert!(reason(decide(input, &opts())).contains("two different paths"));
    }
}
