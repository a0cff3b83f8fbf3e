//! `airlock guard doctor`: a gate nobody checks is already broken.
//!
//! It proves the scanner still matches (known-bad texts block, known-clean
//! texts pass), that Claude Code routes the gated tools to the gate, and that
//! the state directory works. Exit 0 healthy, 2 otherwise.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use regex::Regex;
use serde_json::Value;

use super::config::Config;
use super::digest::is_digest;
use super::scan::scan_text;
use super::store::{Paths, read_capped};
use super::{load_config, print};

/// Tool names of the usual send and draft tools; the wiring check asks
/// whether every one of them that the configuration gates reaches the gate.
pub(crate) const SAMPLE_TOOLS: [&str; 8] = [
    "mcp__slack__slack_send_message",
    "mcp__slack__slack_send_message_draft",
    "mcp__slack__slack_schedule_message",
    "mcp__workspace-mcp__send_gmail_message",
    "mcp__workspace-mcp__draft_gmail_message",
    "mcp__gmail__create_draft",
    "mcp__apple-mail__send_email",
    "mcp__mail__send_message",
];

/// Environment override of the Claude Code settings file (tests use it).
const CLAUDE_SETTINGS_VAR: &str = "AIRLOCK_SEND_GATE_CLAUDE_SETTINGS";
/// A hook command runs the gate when it names the binary and the subcommand.
const GATE_COMMAND: &str = "hook send-gate";

struct Report {
    healthy: bool,
}

impl Report {
    fn line(&mut self, good: bool, label: &str, detail: &str) {
        let mark = if good { "ok  " } else { "FAIL" };
        let sep = if detail.is_empty() { "" } else { ": " };
        print(&format!("  {mark} {label}{sep}{detail}"));
        self.healthy &= good;
    }
}

pub(crate) fn run(paths: &Paths) -> ExitCode {
    print("airlock send-gate doctor");
    let mut report = Report { healthy: true };
    let config = match load_config(paths) {
        Ok(c) => c,
        Err(e) => {
            report.line(false, "configuration", &e);
            print("UNHEALTHY: the gate blocks every gated send until the configuration loads");
            return ExitCode::from(2);
        }
    };
    report.line(
        true,
        "configuration loads and every pattern compiles",
        &format!(
            "{} ({} block, {} warn, {} gated, {} exempt)",
            paths.config.display(),
            config.block.len(),
            config.warn.len(),
            config.gated.len(),
            config.exempt.len()
        ),
    );
    controls(&config, &mut report);
    lanes(&config, &mut report);
    wiring(paths, &config, &mut report);
    state(paths, &mut report);
    if report.healthy {
        print("HEALTHY: the send gate is operational");
        ExitCode::SUCCESS
    } else {
        print(
            "UNHEALTHY: fix the failures above; the gate fails closed, so sends are blocked, not unprotected",
        );
        ExitCode::from(2)
    }
}

fn controls(config: &Config, report: &mut Report) {
    let hidden = scan_text("a\u{202E}b", "control", config);
    report.line(
        hidden.blocked(),
        "built-in control: a bidi override blocks",
        "",
    );
    report.line(
        !config.block_controls.is_empty(),
        "doctor_block_controls configured",
        if config.block_controls.is_empty() {
            "add known-bad texts that must block, so a pattern that stops matching is noticed"
        } else {
            ""
        },
    );
    for (i, text) in config.block_controls.iter().enumerate() {
        let r = scan_text(text, "control", config);
        report.line(
            r.blocked(),
            &format!("doctor_block_controls[{i}] blocks"),
            &preview(text),
        );
    }
    report.line(
        !config.clean_controls.is_empty(),
        "doctor_clean_controls configured",
        if config.clean_controls.is_empty() {
            "add canonical legitimate messages that must pass, so a pattern that blocks real traffic is noticed"
        } else {
            ""
        },
    );
    for (i, text) in config.clean_controls.iter().enumerate() {
        let r = scan_text(text, "control", config);
        let why = r
            .blocks
            .iter()
            .map(|h| h.name.as_str())
            .collect::<Vec<_>>()
            .join(", ");
        report.line(
            !r.blocked(),
            &format!("doctor_clean_controls[{i}] passes"),
            &format!("{} {why}", preview(text)),
        );
    }
    let untested: Vec<&str> = config
        .block
        .iter()
        .filter(|rule| !config.block_controls.iter().any(|t| rule.regex.is_match(t)))
        .map(|rule| rule.name.as_str())
        .collect();
    if !untested.is_empty() {
        print(&format!(
            "  info block patterns no control exercises: {}",
            untested.join(", ")
        ));
    }
}

fn lanes(config: &Config, report: &mut Report) {
    match &config.currency {
        Some(lane) => {
            let probe = lane
                .patterns
                .iter()
                .any(|p| p.is_match("still unanswered by the recipient"));
            report.line(
                probe,
                "currency-claim lane adopted and matches \"still unanswered\"",
                &format!("read_at at most {} min old", lane.max_age_minutes),
            );
        }
        None => print("  info currency-claim lane not adopted (currency_claim_patterns)"),
    }
    match &config.peer {
        Some(peer) => {
            let readable = read_capped(&peer.board, super::MAX_INPUT_BYTES).is_ok();
            report.line(
                readable,
                "peer-session board readable",
                &peer.board.display().to_string(),
            );
        }
        None => print("  info peer-session lane not adopted (peer_send_resolution)"),
    }
    let unclassified: Vec<&str> = SAMPLE_TOOLS
        .iter()
        .copied()
        .filter(|t| {
            !config
                .gated
                .iter()
                .chain(&config.exempt)
                .any(|r| r.is_match(t))
        })
        .collect();
    if !unclassified.is_empty() {
        print(&format!(
            "  info sample tools the configuration does not classify (blocked if wired): {}",
            unclassified.join(", ")
        ));
    }
}

fn settings_path(paths: &Paths) -> Option<PathBuf> {
    match std::env::var_os(CLAUDE_SETTINGS_VAR).filter(|v| !v.is_empty()) {
        Some(p) => Some(PathBuf::from(p)),
        None => paths.home.as_ref().map(|h| h.join(".claude/settings.json")),
    }
}

fn wiring(paths: &Paths, config: &Config, report: &mut Report) {
    let gated: Vec<&str> = SAMPLE_TOOLS
        .iter()
        .copied()
        .filter(|t| {
            let peer = config.peer.as_ref().is_some_and(|p| p.tool.is_match(t));
            peer || (!config.exempt.iter().any(|r| r.is_match(t))
                && config.gated.iter().any(|r| r.is_match(t)))
        })
        .collect();
    let Some(path) = settings_path(paths) else {
        report.line(false, "Claude Code settings", "$HOME is not set");
        return;
    };
    let shown = path.display().to_string();
    let settings = match read_capped(&path, super::MAX_CONFIG_BYTES)
        .and_then(|b| serde_json::from_slice::<Value>(&b).map_err(|e| e.to_string()))
    {
        Ok(v) => v,
        Err(e) => {
            report.line(
                false,
                "Claude Code registers the gate",
                &format!("{shown} unreadable ({e})"),
            );
            return;
        }
    };
    let matchers = gate_matchers(&settings);
    if matchers.is_empty() {
        report.line(
            false,
            "Claude Code registers the gate",
            &format!("no PreToolUse hook in {shown} runs `airlock {GATE_COMMAND}`"),
        );
        return;
    }
    let missed: Vec<&str> = gated
        .iter()
        .copied()
        .filter(|t| !matchers.iter().any(|m| matcher_matches(m, t)))
        .collect();
    let detail = if missed.is_empty() {
        format!("{shown} routes {} gated sample tools", gated.len())
    } else {
        format!("{shown} does not route: {}", missed.join(", "))
    };
    report.line(
        missed.is_empty() && !gated.is_empty(),
        "Claude Code PreToolUse wiring covers the gated tools",
        &detail,
    );
}

/// The matchers of the PreToolUse entries whose hooks run the gate.
fn gate_matchers(settings: &Value) -> Vec<String> {
    let entries = settings
        .pointer("/hooks/PreToolUse")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    entries
        .iter()
        .filter(|entry| {
            entry
                .get("hooks")
                .and_then(Value::as_array)
                .is_some_and(|hooks| {
                    hooks.iter().any(|h| {
                        h.get("command")
                            .and_then(Value::as_str)
                            .is_some_and(|c| c.contains("airlock") && c.contains(GATE_COMMAND))
                    })
                })
        })
        .map(|entry| {
            entry
                .get("matcher")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned()
        })
        .collect()
}

/// Claude Code's matcher rules: empty or `*` matches every tool; a plain
/// word list (`A|B`) matches those names exactly; anything else is a regex.
fn matcher_matches(matcher: &str, tool: &str) -> bool {
    if matcher.is_empty() || matcher == "*" {
        return true;
    }
    if matcher
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '|')
    {
        return matcher.split('|').any(|name| name == tool);
    }
    Regex::new(matcher).is_ok_and(|r| r.is_match(tool))
}

fn state(paths: &Paths, report: &mut Report) {
    let probe = paths.state.join(".doctor-probe");
    let writable = std::fs::create_dir_all(&paths.state)
        .and_then(|()| std::fs::write(&probe, b"probe"))
        .and_then(|()| std::fs::remove_file(&probe));
    report.line(
        writable.is_ok(),
        "state directory writable",
        &match writable {
            Ok(()) => paths.state.display().to_string(),
            Err(e) => format!("{}: {e}", paths.state.display()),
        },
    );
    let dir = paths.ledger_dir();
    let Ok(entries) = std::fs::read_dir(&dir) else {
        print("  info ledger store not created yet (normal before the first write-ledger)");
        return;
    };
    let misnamed: Vec<String> = entries
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with('.') && !n.strip_suffix(".json").is_some_and(is_digest))
        .collect();
    report.line(
        misnamed.is_empty(),
        "every ledger is filed under a digest",
        &if misnamed.is_empty() {
            String::new()
        } else {
            format!(
                "hand-placed files no send can match: {}",
                misnamed.join(", ")
            )
        },
    );
    private(&dir, report);
}

#[cfg(unix)]
fn private(dir: &Path, report: &mut Report) {
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(dir)
        .map(|m| m.permissions().mode() & 0o777)
        .unwrap_or(0);
    report.line(
        mode & 0o077 == 0,
        "ledger store is private",
        &format!("{} mode {mode:o}", dir.display()),
    );
}

#[cfg(not(unix))]
fn private(_dir: &Path, _report: &mut Report) {}

fn preview(text: &str) -> String {
    let cut: String = text.chars().take(60).collect();
    serde_json::to_string(&cut).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matcher_rules() {
        assert!(matcher_matches("", "x"));
        assert!(matcher_matches("*", "x"));
        assert!(matcher_matches("Write|Edit", "Edit"));
        assert!(!matcher_matches("Write", "WriteX"));
        assert!(matcher_matches("mcp__.*send", "mcp__a__send_x"));
        assert!(!matcher_matches("(", "("));
    }
}
