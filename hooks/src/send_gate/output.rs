//! What the hook says to Claude Code, exactly once.
//!
//! A block is said twice over: the `BLOCKED` line on stderr with exit 2, and
//! a JSON deny (`hookSpecificOutput.permissionDecision: "deny"`) on stdout,
//! so a wrapper that swallows the exit code (`… || true`) still blocks.
//! Warnings of a pass go out as `additionalContext`, which the model reads
//! (stderr on exit 0 never reaches it).
//!
//! Each is a [`Reply`]; the binary writes it, and keeps the hook's deadline.

use serde::Serialize;

use crate::Reply;

use super::BLOCKED;
use super::decide::describe_hits;
use super::scan::Hit;

#[derive(Serialize)]
struct HookOutput<'a> {
    #[serde(rename = "hookSpecificOutput")]
    specific: Specific<'a>,
}

#[derive(Serialize)]
struct Specific<'a> {
    #[serde(rename = "hookEventName")]
    event: &'static str,
    #[serde(rename = "permissionDecision", skip_serializing_if = "Option::is_none")]
    decision: Option<&'static str>,
    #[serde(
        rename = "permissionDecisionReason",
        skip_serializing_if = "Option::is_none"
    )]
    reason: Option<&'a str>,
    #[serde(rename = "additionalContext", skip_serializing_if = "Option::is_none")]
    context: Option<&'a str>,
}

/// The reason on one line: a multi-line regex error would otherwise split
/// the reason from its remedy in a reader that keeps the first line.
fn one_line(reason: &str) -> String {
    reason
        .split(['\n', '\r'])
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The block for `reason`: exit 2 with the `BLOCKED` line on stderr and the JSON deny
/// on stdout; under Codex exit 0 once stdout took the deny
/// (`codex::pre_tool_use_reply`).
pub(crate) fn block(client: crate::Client, reason: &str) -> Reply {
    // The reason quotes what the call carried (a matched run, a key, a
    // tool name); the model reads it, so it is contained first.
    let line = crate::words::contained(&format!("{BLOCKED} {}", one_line(reason)));
    let json = serde_json::to_string(&HookOutput {
        specific: Specific {
            event: "PreToolUse",
            decision: Some("deny"),
            reason: Some(&line),
            context: None,
        },
    })
    .unwrap_or_default();
    if client == crate::Client::Codex {
        return crate::codex::pre_tool_use_reply(&json);
    }
    Reply {
        stdout: format!("{json}\n"),
        stderr: format!("{line}\n"),
        exit: 2,
        if_stdout_fails: None,
    }
}

/// Exit 0, warnings said as context for the model and on stderr.
pub(crate) fn pass(client: crate::Client, warnings: &[Hit]) -> Reply {
    if warnings.is_empty() {
        return Reply::silent();
    }
    let line = crate::words::contained(&format!(
        "airlock send-gate advisory (allowed): {}",
        describe_hits(warnings)
    ));
    let json = match client {
        crate::Client::Codex => crate::codex::pre_tool_use_context(&line),
        crate::Client::ClaudeCode => serde_json::to_string(&HookOutput {
            specific: Specific {
                event: "PreToolUse",
                decision: None,
                reason: None,
                context: Some(&line),
            },
        })
        .unwrap_or_default(),
    };
    Reply {
        stdout: format!("{json}\n"),
        stderr: format!("{line}\n"),
        exit: 0,
        if_stdout_fails: None,
    }
}

/// The `timeout` (seconds) `--print-config` registers: above the hook's own
/// deadline, so the hook always answers before Claude Code gives up on it.
pub(crate) const SETTINGS_TIMEOUT_SECONDS: u64 = 30;

// The matcher `--print-config` registers lives beside the verbs it is built from.
use super::config::SETTINGS_MATCHER;

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
    command: &'static str,
    timeout: u64,
    /// Claude Code 2.1.x: a hook that cannot start, times out, exits with a
    /// code other than 0 or 2, or prints invalid JSON counts as exit 2.
    #[serde(rename = "onFailure")]
    on_failure: &'static str,
}

/// The `settings.json` snippet registering the gate.
pub(crate) fn settings_snippet() -> String {
    let snippet = Settings {
        hooks: Hooks {
            pre_tool_use: vec![MatcherGroup {
                matcher: SETTINGS_MATCHER,
                hooks: vec![CommandHook {
                    kind: "command",
                    command: "airlock hook send-gate",
                    timeout: SETTINGS_TIMEOUT_SECONDS,
                    on_failure: "block",
                }],
            }],
        },
    };
    serde_json::to_string_pretty(&snippet).unwrap_or_default()
}

/// Codex's wiring of the gate (`--print-config --client codex`), both forms.
pub(crate) fn codex_wiring() -> String {
    crate::codex::wiring(&[crate::codex::Entry {
        event: "PreToolUse",
        matcher: SETTINGS_MATCHER,
        command: "airlock hook send-gate --client codex".into(),
        timeout: SETTINGS_TIMEOUT_SECONDS,
    }])
}

/// `airlock hook send-gate --print-config`.
pub(crate) fn print_config(client: crate::Client) -> Reply {
    let text = match client {
        crate::Client::ClaudeCode => settings_snippet(),
        crate::Client::Codex => codex_wiring(),
    };
    Reply::text(&text, 2)
}
