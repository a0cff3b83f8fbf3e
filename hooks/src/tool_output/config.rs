//! The settings.json entry `--print-config` prints, through serde types.

use serde::Serialize;

/// The `timeout` (seconds) `--print-config` registers.
const SETTINGS_TIMEOUT_SECS: u64 = 30;

#[derive(Serialize)]
struct Settings {
    hooks: SettingsHooks,
}

#[derive(Serialize)]
struct SettingsHooks {
    /// Denies every tool call of a session quarantined after a hostile failure; and
    /// re-anchors edits made against the contained view onto the file's real bytes.
    #[serde(rename = "PreToolUse")]
    pre_tool_use: [Matcher; 2],
    #[serde(rename = "PostToolUse")]
    post_tool_use: [Matcher; 1],
    /// A failed tool's error reaches the model without a PostToolUse call: the hook
    /// quarantines the session when that text is not contained.
    #[serde(rename = "PostToolUseFailure")]
    post_tool_use_failure: [Matcher; 1],
}

#[derive(Serialize)]
struct Matcher {
    matcher: &'static str,
    hooks: [Command; 1],
}

#[derive(Serialize)]
struct Command {
    #[serde(rename = "type")]
    kind: &'static str,
    command: String,
    timeout: u64,
}

/// The tools whose input names text the model read through the contained view.
pub(crate) const REANCHORED_TOOLS: &str = "Edit|MultiEdit|Write|NotebookEdit";

/// `airlock hook tool-output` with the flags given.
fn command_words(max_bytes: Option<usize>, tools: &[String]) -> Vec<String> {
    let mut command = vec!["airlock".to_owned(), "hook".into(), "tool-output".into()];
    if let Some(n) = max_bytes {
        command.extend(["--max-bytes".to_owned(), n.to_string()]);
    }
    for t in tools {
        command.extend(["--tool".to_owned(), shell_quote(t)]);
    }
    command
}

/// Codex's wiring (`--print-config --client codex`), both forms: the PostToolUse entry only.
/// Codex 0.171.0 has no PostToolUseFailure event: a failed shell command's output comes
/// through PostToolUse, where it is withheld like any other, and a failed MCP call (isError)
/// gets no hook call at all (`tests/codex`), so no hook marks a session and no quarantine
/// gate is printed; and Codex edits files with `apply_patch`, not the tools `--reanchor` maps.
pub(crate) fn codex_wiring(max_bytes: Option<usize>, tools: &[String]) -> String {
    let mut command = command_words(max_bytes, tools);
    command.extend(["--client".to_owned(), "codex".into()]);
    crate::codex::wiring(&[crate::codex::Entry {
        event: "PostToolUse",
        matcher: "*",
        command: command.join(" "),
        timeout: SETTINGS_TIMEOUT_SECS,
    }])
}

/// The settings.json entry: every tool, the flags given, a timeout well over the deadline.
pub(crate) fn settings_snippet(
    max_bytes: Option<usize>,
    tools: &[String],
) -> Result<String, serde_json::Error> {
    let command = command_words(max_bytes, tools).join(" ");
    let on = |matcher: &'static str, command: String| Matcher {
        matcher,
        hooks: [Command {
            kind: "command",
            command,
            timeout: SETTINGS_TIMEOUT_SECS,
        }],
    };
    serde_json::to_string_pretty(&Settings {
        hooks: SettingsHooks {
            pre_tool_use: [
                on("*", "airlock hook tool-output --quarantine-gate".to_owned()),
                on(
                    REANCHORED_TOOLS,
                    "airlock hook tool-output --reanchor".to_owned(),
                ),
            ],
            post_tool_use: [on("*", command.clone())],
            post_tool_use_failure: [on("*", command)],
        },
    })
}

/// Single-quoted for a POSIX shell when it holds anything but safe characters.
fn shell_quote(s: &str) -> String {
    if !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_-=.,/:".contains(&b))
    {
        return s.to_owned();
    }
    format!("'{}'", s.replace('\'', "'\\''"))
}
