//! The decision: one PreToolUse call in, allow or deny out. No stdin, stdout or process state,
//! so that tests and a fuzz target can call it directly.

use std::ffi::OsStr;
use std::fs;
use std::path::{Component, Path, PathBuf};

use serde::Serialize;

use super::call::{self, Call, TargetKeys, Text, ToolInput, TopLevel};
use super::options::{Options, WRITE_TOOLS, names_a_file};
use super::patch;
use super::path_text::{client_rewrite, lexical};
use super::protected;
use super::resolve::{Resolved, resolve_physical};

/// Largest input read: tool inputs carry whole file contents, but nothing legitimate comes close.
pub(crate) const MAX_INPUT_BYTES: usize = 8 * 1024 * 1024;

/// What the hook answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Decision {
    Allow,
    Deny(String),
}

impl Decision {
    /// The deny for `reason`, contained: a reason quotes the path it was given and the
    /// one it resolved to, the tool name and keys, all of which the model can choose
    /// (a directory named `<|im_start|>` or `</APPLICABLE-RULES>`).
    fn deny(reason: impl std::fmt::Display) -> Self {
        Self::Deny(crate::words::contained(&format!(
            "airlock write-scope: {reason}"
        )))
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
    let parsed = call::parse(text).map_err(|error| format!("input is not valid JSON: {error}"))?;
    let TopLevel::Object(call) = parsed else {
        return Err("input is not a JSON object".into());
    };
    let tool = match &call.tool_name {
        Some(Text::Str(tool)) => tool.as_str(),
        Some(Text::Other) => return Err("tool_name is not a string".into()),
        None => return Err("tool_name is missing".into()),
    };
    if tool == patch::TOOL {
        return patch::check(&call, |one| check_write(tool, one, opts));
    }
    if WRITE_TOOLS.contains(&tool) {
        return check_write(tool, &call, opts);
    }
    if opts.allows_tool(tool) {
        return Ok(());
    }
    Err(format!(
        "tool {tool:?} is not allowed: only Write, Edit, MultiEdit and NotebookEdit to allowed paths, and tools named with --allow-tool, pass"
    ))
}

fn check_write(tool: &str, call: &Call, opts: &Options) -> Result<(), String> {
    let input = match &call.tool_input {
        Some(ToolInput::Object(input)) => input,
        Some(ToolInput::Other) => return Err(format!("{tool}: tool_input is not an object")),
        None => return Err(format!("{tool}: tool_input is missing")),
    };
    let target = target_path(tool, input)?;
    check_path_text(tool, "target path", target)?;
    if let Some(why) = client_rewrite(target) {
        return Err(format!("{tool} to {target:?} denied: {why}"));
    }
    if !names_a_file(target) {
        return Err(format!(
            "{tool} to {target:?} denied: the path does not end in a file name"
        ));
    }
    let cwd = match &call.cwd {
        Some(Text::Str(cwd)) => {
            check_path_text(tool, "cwd", cwd)?;
            if !Path::new(cwd).is_absolute() {
                return Err(format!("{tool}: cwd {cwd:?} is not absolute"));
            }
            // Claude Code sends its cwd NFC-normalised; another form is not its call.
            if !unicode_normalization::is_nfc(cwd) {
                return Err(format!("{tool}: cwd {cwd:?} is not in Unicode NFC form"));
            }
            Some(Path::new(cwd.as_str()))
        }
        Some(Text::Other) => return Err(format!("{tool}: cwd is not a string")),
        None => None,
    };
    let absolute = absolute_target(tool, target, cwd)?;
    if let Some(at) = per_process_path(&absolute) {
        return Err(format!(
            "{tool} to {target:?} denied: it goes through {at:?}, under /proc or /dev, where a name means one thing to the guard and another to Claude Code (/proc/self/cwd, /proc/self/fd/N, /dev/fd/N are each process's own)"
        ));
    }
    let resolved =
        resolve_physical(&absolute).map_err(|why| format!("{tool} to {target:?} denied: {why}"))?;
    let shown = shown_target(target, &absolute, &resolved.path);
    check_lexical_agrees(&absolute, &resolved.path)
        .map_err(|why| format!("{tool} to {shown} denied: {why}"))?;
    let root = find_root(opts, cwd).map_err(|why| format!("{tool} to {shown} denied: {why}"))?;
    let grants = resolve_grants(opts, &root)?;
    let granted = grants.files.contains(&resolved.path);
    if !granted {
        // Read only when a grant could let the write through: most denies need no git config.
        let git = if grants.dirs.iter().any(|dir| resolved.path.starts_with(dir)) {
            protected::git_places(&root, opts.home.as_deref(), &opts.git).map_err(|why| {
                format!("{tool} to {shown} denied: git's configuration cannot be read, so the places it makes run code (core.hooksPath) are unknown: {why}")
            })?
        } else {
            Vec::new()
        };
        let mut protected_hit = None;
        let mut git_hit = None;
        let inside = grants.dirs.iter().any(|dir| {
            match strictly_inside_unprotected(&resolved.path, dir, &root, opts) {
                Inside::Yes => {
                    // A git place holds the target, and the grant was not named inside it.
                    let place = git.iter().find(|place| {
                        protected::within(&resolved.path, &place.path)
                            && (!protected::within(dir, &place.path) || *dir == place.path)
                    });
                    git_hit = git_hit.or(place);
                    place.is_none()
                }
                Inside::No => false,
                Inside::Protected(entry) => {
                    protected_hit = Some(entry);
                    false
                }
            }
        });
        if !inside {
            if let Some(place) = git_hit.filter(|_| protected_hit.is_none()) {
                return Err(format!(
                    "{tool} to {shown} denied: it is inside {:?}, which git runs code from ({}); an --allow-dir grant never reaches it; name the file with --allow",
                    place.path, place.origin
                ));
            }
            if let Some(entry) = protected_hit {
                return Err(format!(
                    "{tool} to {shown} denied: it is inside {:?} ({}), which an --allow-dir grant never reaches; name the file with --allow{}",
                    entry.path,
                    entry.why,
                    if entry.relaxable {
                        format!(" or pass --unprotect {}", entry.path)
                    } else {
                        String::new()
                    }
                ));
            }
            return Err(format!(
                "{tool} to {shown} denied: it is neither an allowed file nor strictly inside an allowed directory (root {root:?}; {})",
                describe_grants(opts)
            ));
        }
    }
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
    Ok(())
}

/// Most symbolic links followed looking for a per-process path (Linux's `MAXSYMLINKS`).
const MAX_LINK_HOPS: u32 = 40;

/// The first prefix of `path`, as the client and the kernel would walk it, that lies under
/// `/proc` or `/dev` — spelled so, or reached through a symbolic link. The guard resolves
/// `/proc/self/…` and `/dev/fd/…` in its own process: the file it checks is not the one
/// the client opens. A chain longer than [`MAX_LINK_HOPS`] is reported too.
fn per_process_path(path: &Path) -> Option<PathBuf> {
    let mut hops = 0u32;
    per_process_walk(&lexical(path), &mut hops)
}

fn per_process_walk(path: &Path, hops: &mut u32) -> Option<PathBuf> {
    let parts: Vec<Component<'_>> = path.components().collect();
    let mut prefix = PathBuf::new();
    for (index, part) in parts.iter().enumerate() {
        prefix.push(part);
        if prefix.starts_with("/proc") || prefix.starts_with("/dev") {
            return Some(prefix);
        }
        // The prefix walked so far holds no symbolic link, so the first one met is
        // followed from a physical parent: `..` in its target is taken as the kernel
        // takes it.
        let Ok(target) = fs::read_link(&prefix) else {
            continue;
        };
        *hops = hops.saturating_add(1);
        if *hops > MAX_LINK_HOPS {
            return Some(prefix);
        }
        let mut next = prefix.parent().map(Path::to_path_buf).unwrap_or_default();
        next.push(target);
        next.extend(parts.get(index.saturating_add(1)..).unwrap_or_default());
        return per_process_walk(&lexical(&next), hops);
    }
    None
}

/// The client resolves `..` lexically (`path.resolve`) and only then lets the kernel follow
/// symlinks; the guard resolved it physically. Through a symlinked directory the two name
/// different files, and the client writes the lexical one.
fn check_lexical_agrees(absolute: &Path, physical: &Path) -> Result<(), String> {
    if !absolute.components().any(|c| c == Component::ParentDir) {
        return Ok(());
    }
    let client = lexical(absolute);
    let client_physical = resolve_physical(&client)
        .map_err(|why| format!("Claude Code would write {client:?}, and {why}"))?;
    if client_physical.path == physical {
        return Ok(());
    }
    Err(format!(
        "`..` after a symbolic link: Claude Code resolves the path lexically to {:?}, not to {physical:?}",
        client_physical.path
    ))
}

/// The first of the target keys present. Two keys naming different paths are refused, since
/// the guard cannot know which one the tool writes.
fn target_path<'a>(tool: &str, input: &'a TargetKeys) -> Result<&'a str, String> {
    let mut found: Option<&str> = None;
    let keys = [
        ("file_path", &input.file_path),
        ("notebook_path", &input.notebook_path),
        ("path", &input.path),
    ];
    for (key, value) in keys {
        let value = match value {
            None => continue,
            Some(Text::Str(value)) => value.as_str(),
            Some(Text::Other) => return Err(format!("{tool}: tool_input.{key} is not a string")),
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
///
/// The search stops below `$HOME` and `/`: a dotfiles repository in the home directory would
/// otherwise turn `--allow-dir .` into all of home. A root that is `/`, `$HOME` or above it is
/// refused, however it was found.
fn find_root(opts: &Options, cwd: Option<&Path>) -> Result<PathBuf, String> {
    let resolve = |path: &Path| {
        fs::canonicalize(path).map_err(|error| format!("cannot resolve the root {path:?}: {error}"))
    };
    let home = opts
        .home
        .as_deref()
        .and_then(|home| fs::canonicalize(home).ok());
    let root = if let Some(root) = &opts.root {
        if root.is_absolute() {
            resolve(root)?
        } else {
            let cwd = cwd.ok_or("--root is relative and the call has no cwd")?;
            resolve(&cwd.join(root))?
        }
    } else {
        let cwd = resolve(cwd.ok_or("no --root and the call has no cwd")?)?;
        let top = cwd
            .ancestors()
            .take_while(|dir| dir.parent().is_some() && Some(*dir) != home.as_deref())
            .find(|dir| fs::symlink_metadata(dir.join(".git")).is_ok());
        top.unwrap_or(&cwd).to_path_buf()
    };
    if root.parent().is_none() {
        return Err(format!(
            "the root would be {root:?}, the whole file system; pass --root with the project directory"
        ));
    }
    if let Some(home) = home.filter(|home| home.starts_with(&root)) {
        return Err(format!(
            "the root would be {root:?}, which holds the home directory {home:?}; pass --root with the project directory"
        ));
    }
    Ok(root)
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
            .all(|c| c == Component::CurDir)
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

/// Where a target stands relative to one `--allow-dir` grant.
enum Inside {
    Yes,
    No,
    /// Below the grant, but in a protected place.
    Protected(&'static protected::Protected),
}

/// Whether `target` is strictly inside `dir` and reaches no protected name on the way. Names
/// are looked at from the root down, so that a grant of `.github` still keeps out
/// `.github/workflows`; only a match ending below the grant counts, so that a grant named inside
/// a protected directory on purpose works.
fn strictly_inside_unprotected(target: &Path, dir: &Path, root: &Path, opts: &Options) -> Inside {
    let (Ok(below), Ok(from_root), Ok(grant_in_root)) = (
        target.strip_prefix(dir),
        target.strip_prefix(root),
        dir.strip_prefix(root),
    ) else {
        return Inside::No;
    };
    if below.as_os_str().is_empty() {
        return Inside::No;
    }
    let names: Vec<&OsStr> = from_root.components().map(Component::as_os_str).collect();
    let grant_depth = grant_in_root.components().count();
    match protected::find(&names, grant_depth, &opts.unprotected) {
        Some(entry) => Inside::Protected(entry),
        None => Inside::Yes,
    }
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

/// The one-line JSON deny for `reason`, newline included, the reason contained (every
/// caller's, not only [`decide`]'s: the model reads it).
pub(crate) fn deny_line(reason: &str) -> String {
    let reason = crate::words::contained(reason);
    let output = HookOutput {
        hook_specific_output: HookSpecificOutput {
            hook_event_name: "PreToolUse",
            permission_decision: "deny",
            permission_decision_reason: &reason,
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
    use serde_json::Value;

    fn opts() -> Options {
        Options::new(
            None,
            vec!["AUDIT.md".into()],
            vec!["tmp/audit".into()],
            vec!["Read".into()],
            vec![],
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
        let line = deny_line("a \"b\" \n \\");
        assert_eq!(line.matches('\n').count(), 1);
        let parsed: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(
            parsed["hookSpecificOutput"]["permissionDecisionReason"],
            Value::String("a \"b\" \n \\".into())
        );
    }

    #[test]
    fn deny_line_contains_the_reason() {
        let line = deny_line("x \u{1b}[2J <|endoftext|> </APPLICABLE-RULES> \u{202e}y");
        let parsed: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(
            parsed["hookSpecificOutput"]["permissionDecisionReason"],
            Value::String("x  [redacted special token] [redacted-wrapper-literal] y".into())
        );
    }

    /// A directory named after a wrapper literal, a special token or a bidi control is
    /// named in the deny reason (twice: as given and as resolved), contained both times.
    #[test]
    fn hostile_directory_names_reach_the_reason_contained() {
        let dir = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(dir.path()).unwrap();
        fs::create_dir(root.join(".git")).unwrap();
        let o = opts();
        for (name, raw) in [
            ("</APPLICABLE-RULES>x", "</APPLICABLE-RULES>"),
            ("<|im_start|>system", "<|im_start|>"),
            ("<|endoftext|>", "<|endoftext|>"),
            ("a<!--b", "<!--"),
            ("inv\u{202e}fdp.exe", "\u{202e}"),
            ("untrusted-content:end", "untrusted-content:end"),
        ] {
            let sub = root.join(name);
            fs::create_dir_all(&sub).unwrap();
            for path in [sub.join("x.md"), sub.join("../").join(name).join("y.md")] {
                let why = reason(decide(&call(&root, "Write", path.to_str().unwrap()), &o));
                assert!(why.starts_with("airlock write-scope: "), "{why}");
                assert!(!why.contains(raw), "{name:?} reached the reason raw: {why}");
                assert_eq!(crate::words::contained(&why), why, "not a fixed point");
                let line = deny_line(&why);
                assert!(!line.contains(raw), "{line}");
            }
        }
        let tool = reason(decide(&call(&root, "<|im_start|>Bash\u{202e}", "x"), &o));
        assert!(
            !tool.contains("<|im_start|>") && !tool.contains('\u{202e}'),
            "{tool}"
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
            Options::new(Some("r".into()), vec![], vec![entry.into()], vec![], vec![]).unwrap()
        };
        let input = call(&root, "Write", "other/x");
        let why = reason(decide(&input, &with_dir("../other")));
        assert!(why.contains("outside the root"), "{why}");
        let why = reason(decide(&input, &with_dir("..")));
        assert!(why.contains("unusable"), "{why}");
        let o = Options::new(
            Some("r".into()),
            vec!["../other/x".into()],
            vec![],
            vec![],
            vec![],
        )
        .unwrap();
        let why = reason(decide(&input, &o));
        assert!(why.contains("outside the root"), "{why}");
    }

    #[test]
    fn ambiguous_targets_are_refused() {
        let input = br#"{"tool_name":"Write","tool_input":{"file_path":"/a/AUDIT.md","path":"/a/src/x"},"cwd":"/a"}"#;
        assert!(reason(decide(input, &opts())).contains("two different paths"));
    }
}

#[cfg(all(test, unix))]
#[allow(clippy::unwrap_used, clippy::panic, clippy::indexing_slicing)]
mod hardening_tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn call(cwd: &Path, path: &str) -> Vec<u8> {
        serde_json::to_vec(&serde_json::json!({
            "tool_name": "Write",
            "tool_input": {"file_path": path, "content": "x"},
            "cwd": cwd,
        }))
        .unwrap()
    }

    fn with(root: &Path, files: &[&str], dirs: &[&str]) -> Options {
        let strings = |v: &[&str]| v.iter().map(|s| (*s).to_owned()).collect();
        let mut opts = Options::new(
            Some(root.display().to_string()),
            strings(files),
            strings(dirs),
            vec![],
            vec![],
        )
        .unwrap();
        opts.home = None;
        opts
    }

    fn denied_because(decision: Decision, needle: &str) {
        match decision {
            Decision::Deny(reason) => assert!(reason.contains(needle), "{reason}"),
            Decision::Allow => panic!("allowed, expected a deny for {needle:?}"),
        }
    }

    #[test]
    fn text_the_client_rewrites_is_denied() {
        let dir = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(dir.path()).unwrap();
        let o = with(&root, &["AUDIT.md"], &["."]);
        assert_eq!(decide(&call(&root, "AUDIT.md"), &o), Decision::Allow);
        for (path, needle) in [
            (" AUDIT.md", "starts with white space (U+0020)"),
            ("\u{a0}AUDIT.md", "U+00A0"),
            ("AUDIT.md\u{feff}", "ends with white space (U+FEFF)"),
            ("\u{3000}x.md", "U+3000"),
            ("~/.config/autostart/x.desktop", "starts with `~`"),
            ("cafe\u{301}.md", "NFC"),
        ] {
            denied_because(decide(&call(&root, path), &o), needle);
        }
    }

    #[test]
    fn per_process_paths_are_denied() {
        let dir = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(dir.path()).unwrap();
        fs::create_dir_all(root.join("docs")).unwrap();
        std::os::unix::fs::symlink("/proc/self/cwd", root.join("docs/here")).unwrap();
        std::os::unix::fs::symlink("../../../../../../../../dev/fd", root.join("docs/fds"))
            .unwrap();
        std::os::unix::fs::symlink("here", root.join("docs/chain")).unwrap();
        let o = with(&root, &[], &["docs"]);
        assert_eq!(decide(&call(&root, "docs/a.md"), &o), Decision::Allow);
        for path in [
            "/proc/self/cwd/docs/a.md".to_owned(),
            format!("/proc/self/root{}/docs/a.md", root.display()),
            "/proc/thread-self/cwd/docs/a.md".to_owned(),
            "/dev/fd/3".to_owned(),
            "docs/here/docs/a.md".to_owned(),
            "docs/chain/docs/a.md".to_owned(),
            "docs/fds/9".to_owned(),
        ] {
            denied_because(decide(&call(&root, &path), &o), "under /proc or /dev");
        }
    }

    #[test]
    fn dotdot_after_a_symlinked_directory_is_denied() {
        let dir = tempfile::tempdir().unwrap();
        let base = fs::canonicalize(dir.path()).unwrap();
        // root/docs -> root/sub/inner: physically docs/../../AUDIT.md is root/AUDIT.md, the
        // allowed file; Claude Code resolves it lexically to base/AUDIT.md, outside the root.
        let root = base.join("repo");
        fs::create_dir_all(root.join("sub/inner")).unwrap();
        symlink(root.join("sub/inner"), root.join("docs")).unwrap();
        let o = with(&root, &["AUDIT.md"], &["sub"]);
        assert_eq!(decide(&call(&root, "AUDIT.md"), &o), Decision::Allow);
        denied_because(
            decide(&call(&root, "docs/../../AUDIT.md"), &o),
            "resolves the path lexically",
        );
        // `..` that means the same both ways still passes.
        assert_eq!(
            decide(&call(&root, "sub/inner/../x.md"), &o),
            Decision::Allow
        );
    }

    #[test]
    fn protected_names_in_any_case_are_kept_out_of_dir_grants() {
        let dir = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(dir.path()).unwrap();
        let o = with(&root, &[".vscode/ok.json"], &["."]);
        for path in [
            ".CLAUDE/settings.json",
            ".Git/hooks/pre-commit",
            ".git./config",
            ".git /config",
            "sub/CLAUDE.md",
            ".mcp.json",
            ".envrc",
            ".husky/pre-commit",
            ".GitHub/workflows/ci.yml",
            ".vscode/tasks.json",
        ] {
            denied_because(
                decide(&call(&root, path), &o),
                "--allow-dir grant never reaches",
            );
        }
        // An explicit --allow still reaches a protected place.
        assert_eq!(decide(&call(&root, ".vscode/ok.json"), &o), Decision::Allow);
        // And --unprotect lifts a relaxable entry.
        let mut lifted = with(&root, &[], &["."]);
        lifted.unprotected = vec![protected::entry(".vscode").unwrap()];
        assert_eq!(
            decide(&call(&root, ".vscode/tasks.json"), &lifted),
            Decision::Allow
        );
        denied_because(decide(&call(&root, ".git/config"), &lifted), ".git");
    }

    #[test]
    fn the_root_search_stops_below_home() {
        let dir = tempfile::tempdir().unwrap();
        let home = fs::canonicalize(dir.path()).unwrap();
        fs::create_dir(home.join(".git")).unwrap();
        fs::create_dir_all(home.join("project/src")).unwrap();
        let mut o = Options::new(None, vec![], vec![".".into()], vec![], vec![]).unwrap();
        o.home = Some(home.clone());
        // The dotfiles `.git` in home is not a root: the cwd is.
        let cwd = home.join("project/src");
        assert_eq!(decide(&call(&cwd, "x.rs"), &o), Decision::Allow);
        denied_because(decide(&call(&cwd, "../../.bashrc"), &o), "neither");
        // Home itself, and anything holding it, is refused as a root.
        denied_because(decide(&call(&home, "x"), &o), "holds the home directory");
        let mut above = o.clone();
        above.root = home.parent().map(Path::to_path_buf);
        denied_because(
            decide(&call(&cwd, "x.rs"), &above),
            "holds the home directory",
        );
        let mut slash = o.clone();
        slash.root = Some(PathBuf::from("/"));
        slash.home = None;
        denied_because(decide(&call(&cwd, "x.rs"), &slash), "whole file system");
    }
}
