//! What the hook says to Claude Code, exactly once.
//!
//! A block is said twice over: the `BLOCKED` line on stderr with exit 2, and
//! a JSON deny (`hookSpecificOutput.permissionDecision: "deny"`) on stdout,
//! so a wrapper that swallows the exit code (`… || true`) still blocks.
//! Warnings of a pass go out as `additionalContext`, which the model reads
//! (stderr on exit 0 never reaches it).
//!
//! The hook's own deadline runs on another thread; whichever of the two
//! speaks first is the verdict, and the other stays silent.

use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use serde::Serialize;

use super::BLOCKED;
use super::decide::describe_hits;
use super::scan::Hit;

/// The one verdict of a run, shared with the deadline thread.
#[derive(Clone)]
pub(crate) struct Verdict {
    spoken: Arc<AtomicBool>,
    client: crate::Client,
}

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

fn write_out(stream: &mut dyn Write, text: &str) {
    // A closed pipe must not turn into a panic; the exit code still speaks.
    let _ = stream
        .write_all(text.as_bytes())
        .and_then(|()| stream.write_all(b"\n"))
        .and_then(|()| stream.flush());
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

impl Verdict {
    pub(crate) fn new(client: crate::Client) -> Self {
        Self {
            spoken: Arc::new(AtomicBool::new(false)),
            client,
        }
    }

    /// The client the verdict is said to.
    pub(crate) fn client(&self) -> crate::Client {
        self.client
    }

    fn claim(&self) -> bool {
        !self.spoken.swap(true, Ordering::SeqCst)
    }

    /// Blocks, if nothing was said yet: the exit code when this call said it. Exit 2;
    /// under Codex 0 once stdout took the deny (`codex::deliver_pre_tool_use`).
    pub(crate) fn block_first(&self, reason: &str) -> Option<u8> {
        if !self.claim() {
            return None;
        }
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
        if self.client == crate::Client::Codex {
            return Some(crate::codex::deliver_pre_tool_use(&json));
        }
        write_out(&mut std::io::stdout().lock(), &json);
        write_out(&mut std::io::stderr().lock(), &line);
        Some(2)
    }

    /// Exit 2 with the block said; if the deadline spoke first, waits for
    /// it to end the process with its own block.
    pub(crate) fn block(&self, reason: &str) -> ExitCode {
        match self.block_first(reason) {
            Some(code) => ExitCode::from(code),
            None => {
                wait_for_the_deadline();
                ExitCode::from(2)
            }
        }
    }

    /// Exit 0, warnings said as context for the model and on stderr.
    pub(crate) fn pass(&self, warnings: &[Hit]) -> ExitCode {
        if !self.claim() {
            wait_for_the_deadline();
            return ExitCode::from(2);
        }
        if !warnings.is_empty() {
            let line = crate::words::contained(&format!(
                "airlock send-gate advisory (allowed): {}",
                describe_hits(warnings)
            ));
            let json = match self.client {
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
            write_out(&mut std::io::stdout().lock(), &json);
            write_out(&mut std::io::stderr().lock(), &line);
        }
        ExitCode::SUCCESS
    }
}

/// The deadline thread has said the block and is about to exit the process.
fn wait_for_the_deadline() {
    loop {
        std::thread::park();
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
pub(crate) fn print_config(client: crate::Client) -> ExitCode {
    let text = match client {
        crate::Client::ClaudeCode => settings_snippet(),
        crate::Client::Codex => codex_wiring(),
    };
    let mut stdout = std::io::stdout().lock();
    match writeln!(stdout, "{text}").and_then(|()| stdout.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(_) => ExitCode::from(2),
    }
}
