//! `--print-config`: the `settings.json` snippet that registers exactly this guard.
//!
//! What the snippet relies on was read in the Claude Code packages themselves (2.1.87's
//! `cli.js`, 2.1.332's bundled CLI): a command hook runs through a shell with
//! `CLAUDE_PROJECT_DIR` set; `timeout` is in seconds (default 600); stdout JSON is read whatever
//! the exit code; exit 2 blocks; any other exit code, a signal or a timeout goes ahead.
//! 2.1.332 also takes `onFailure: "block"`, which turns those failures into a block; 2.1.87
//! ignores the key, so the command ends in `|| exit 2`, turning a crash into a block there too.

use serde::Serialize;

use super::options::Options;

/// Seconds Claude Code waits for the hook; the guard's own deadline (5 s) is well under it.
pub(crate) const HOOK_TIMEOUT_SECONDS: u32 = 30;

/// The root when `--root` is not given: the project directory Claude Code exports to hooks,
/// expanded by the hook's shell. Unset, it expands to an empty `--root`, which denies every call.
const PROJECT_DIR_ROOT: &str = "\"$CLAUDE_PROJECT_DIR\"";

/// The command Claude Code runs; the flags are the validated ones, in a fixed order.
pub(crate) fn command_line(opts: &Options) -> String {
    let root = match &opts.root {
        Some(root) => shell_quote(&root.to_string_lossy()),
        None => PROJECT_DIR_ROOT.to_owned(),
    };
    let mut words = flag_words(opts, Some(root));
    // A crash (signal, abort) is no objection to Claude Code; the shell turns it into exit 2.
    words.push("||".into());
    words.push("exit".into());
    words.push("2".into());
    words.join(" ")
}

/// Codex's wiring (`--print-config --client codex`): both forms, the command answering in
/// Codex's dialect. Codex exports no project directory to hooks, so without `--root` the
/// guard takes its default (the git top level of the call's cwd, below $HOME, else the cwd).
pub(crate) fn codex_wiring(opts: &Options) -> String {
    let root = opts
        .root
        .as_ref()
        .map(|root| shell_quote(&root.to_string_lossy()));
    let mut words = flag_words(opts, root);
    words.push("--client".into());
    words.push("codex".into());
    crate::codex::wiring(&[crate::codex::Entry {
        event: "PreToolUse",
        matcher: "*",
        command: words.join(" "),
        timeout: u64::from(HOOK_TIMEOUT_SECONDS),
    }])
}

/// `airlock hook write-scope`, the root when there is one, then the flags.
fn flag_words(opts: &Options, root: Option<String>) -> Vec<String> {
    let mut words = vec!["airlock".to_owned(), "hook".into(), "write-scope".into()];
    if let Some(root) = root {
        words.push("--root".into());
        words.push(root);
    }
    let flag = |words: &mut Vec<String>, name: &str, value: &str| {
        words.push(name.to_owned());
        words.push(shell_quote(value));
    };
    for file in &opts.allow_files {
        flag(&mut words, "--allow", file);
    }
    for dir in &opts.allow_dirs {
        flag(&mut words, "--allow-dir", dir);
    }
    for tool in &opts.allow_tools {
        flag(&mut words, "--allow-tool", tool);
    }
    for entry in &opts.unprotected {
        flag(&mut words, "--unprotect", entry.path);
    }
    words
}

/// The snippet, pretty-printed. The matcher is `*` because the guard also denies every tool not
/// named with `--allow-tool`; a narrower matcher would let those through unseen.
pub(crate) fn settings_snippet(opts: &Options) -> String {
    let snippet = Settings {
        hooks: Hooks {
            pre_tool_use: vec![MatcherGroup {
                matcher: "*",
                hooks: vec![CommandHook {
                    kind: "command",
                    command: command_line(opts),
                    timeout: HOOK_TIMEOUT_SECONDS,
                    on_failure: "block",
                }],
            }],
        },
    };
    serde_json::to_string_pretty(&snippet).unwrap_or_default()
}

// Structs rather than `json!` so that the keys keep the order people write them in.
#[derive(Serialize)]
struct Settings {
    hooks: Hooks,
}

#[derive(Serialize)]
struct Hooks {
    #[serde(rename = "PreToolUse")]
    pre_tool_use: Vec<MatcherGroup>,
}

#[derive(Serialize)]
struct MatcherGroup {
    matcher: &'static str,
    hooks: Vec<CommandHook>,
}

#[derive(Serialize)]
struct CommandHook {
    #[serde(rename = "type")]
    kind: &'static str,
    command: String,
    timeout: u32,
    #[serde(rename = "onFailure")]
    on_failure: &'static str,
}

/// POSIX shell quoting: bare when only safe characters appear, else single quotes with each `'`
/// written as `'\''`. Single quotes stop every expansion, globbing included.
pub(crate) fn shell_quote(value: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "_-./=:@%+,".contains(c);
    if !value.is_empty() && value.chars().all(safe) {
        return value.to_owned();
    }
    format!("'{}'", value.replace('\'', r"'\''"))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic, clippy::indexing_slicing)]
mod tests {
    use super::*;

    #[test]
    fn quotes_only_when_needed() {
        assert_eq!(shell_quote("tmp/audit"), "tmp/audit");
        assert_eq!(shell_quote(""), "''");
        assert_eq!(shell_quote("a b"), "'a b'");
        assert_eq!(shell_quote("*.md"), "'*.md'");
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
        assert_eq!(shell_quote("$HOME"), "'$HOME'");
        assert_eq!(shell_quote("~/x"), "'~/x'");
    }

    #[test]
    fn command_line_reproduces_the_flags() {
        let opts = Options::new(
            Some("/my repo".into()),
            vec!["AUDIT.md".into()],
            vec!["tmp/audit".into(), "out dir".into()],
            vec!["Read".into()],
            vec![".VSCODE".into()],
        )
        .unwrap();
        assert_eq!(
            command_line(&opts),
            "airlock hook write-scope --root '/my repo' --allow AUDIT.md --allow-dir tmp/audit --allow-dir 'out dir' --allow-tool Read --unprotect .vscode || exit 2"
        );
        let default_root = Options::new(None, vec!["A.md".into()], vec![], vec![], vec![]).unwrap();
        assert_eq!(
            command_line(&default_root),
            "airlock hook write-scope --root \"$CLAUDE_PROJECT_DIR\" --allow A.md || exit 2"
        );
    }
}
