//! `airlock guard doctor`: a gate nobody checks is already broken.
//!
//! It proves the scanner still matches (known-bad texts block, known-clean
//! texts pass), that Claude Code routes the gated tools to the gate, and that
//! the state directory works. Exit 0 healthy, 2 otherwise.

use std::path::{Path, PathBuf};

use regex::Regex;
use serde_json::Value;

use super::config::{Class, Config};
use super::digest::is_digest;
use super::scan::scan_text;
use super::store::{Links, Paths, read_capped};
use super::{load_config, print};
use crate::verdict::Client::{ClaudeCode, Codex};

#[path = "doctor_tools.rs"]
mod doctor_tools;

/// What a sample tool stands for: the wiring must cover every kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Send,
    Email,
    Draft,
    Schedule,
    Reply,
}

const KINDS: [(Kind, &str); 5] = [
    (Kind::Send, "direct sends"),
    (Kind::Email, "email"),
    (Kind::Draft, "drafts"),
    (Kind::Schedule, "scheduled sends"),
    (Kind::Reply, "replies"),
];

/// Tool names of the usual send, email, draft, schedule and reply tools; the
/// configuration must gate at least one of each kind, and every one it
/// gates must reach the gate in every installed client.
const SAMPLE_TOOLS: [(&str, Kind); 17] = [
    ("mcp__slack__slack_send_message", Kind::Send),
    // The reference Slack server's (`@modelcontextprotocol/server-slack`) two senders.
    ("mcp__slack__slack_post_message", Kind::Send),
    ("mcp__slack__slack_reply_to_thread", Kind::Reply),
    ("mcp__outlook__SendMail", Kind::Email),
    ("mcp__mail__send_message", Kind::Send),
    ("mcp__apple-mail__send_email", Kind::Email),
    ("mcp__workspace-mcp__send_gmail_message", Kind::Email),
    ("mcp__outlook__send_mail", Kind::Email),
    ("mcp__slack__slack_send_message_draft", Kind::Draft),
    ("mcp__workspace-mcp__draft_gmail_message", Kind::Draft),
    ("mcp__gmail__create_draft", Kind::Draft),
    ("mcp__gmail__update_draft", Kind::Draft),
    ("mcp__slack__slack_schedule_message", Kind::Schedule),
    ("mcp__slack__schedule_message", Kind::Schedule),
    ("mcp__mail__reply_to_message", Kind::Reply),
    ("mcp__gmail__reply_to_email", Kind::Reply),
    ("mcp__slack__reply_thread", Kind::Reply),
];

/// One hook a client must run, and the tools it must see.
struct RequiredHook {
    event: &'static str,
    /// A hook command runs it when it names `airlock` and this subcommand.
    subcommand: &'static str,
}

const REQUIRED_HOOKS: [RequiredHook; 1] = [RequiredHook {
    event: "PreToolUse",
    subcommand: "hook send-gate",
}];

/// Environment override of the Claude Code settings file (tests use it).
const CLAUDE_SETTINGS_VAR: &str = "AIRLOCK_SEND_GATE_CLAUDE_SETTINGS";
/// Codex's own home override; else `~/.codex`.
const CODEX_HOME_VAR: &str = "CODEX_HOME";

struct Report {
    healthy: bool,
    /// A gated tool may reach its MCP server without passing the gate.
    unprotected: bool,
}

impl Report {
    fn line(&mut self, good: bool, label: &str, detail: &str) {
        let mark = if good { "ok  " } else { "FAIL" };
        let sep = if detail.is_empty() { "" } else { ": " };
        // Labels and details quote paths, patterns and servers' tool names.
        print(&crate::words::contained(&format!(
            "  {mark} {label}{sep}{detail}"
        )));
        self.healthy &= good;
    }

    /// A line that informs without judging: an optional hook that is absent.
    fn note(&mut self, label: &str, detail: &str) {
        print(&crate::words::contained(&format!(
            "  info {label}: {detail}"
        )));
    }

    fn routing(&mut self, good: bool, label: &str, detail: &str) {
        self.line(good, label, detail);
        self.unprotected |= !good;
    }
}

pub(crate) fn run(paths: &Paths) -> u8 {
    print("airlock send-gate doctor");
    let mut report = Report {
        healthy: true,
        unprotected: false,
    };
    let config = match load_config(paths) {
        Ok(c) => c,
        Err(e) => {
            report.line(false, "configuration", &e);
            print("UNHEALTHY: the gate blocks every gated send until the configuration loads");
            return 2;
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
    doctor_tools::check(paths, &config, &mut report);
    state(paths, &mut report);
    if report.healthy {
        print("HEALTHY: the send gate is operational");
        0
    } else if report.unprotected {
        print(
            "UNHEALTHY: fix the failures above; a gated tool that is not routed to the gate is NOT protected: its calls go out unchecked",
        );
        2
    } else {
        print(
            "UNHEALTHY: fix the failures above; the gate fails closed (non-blocking state reads, its own deadline), so until then it blocks the sends it cannot check",
        );
        2
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
            let readable = read_capped(&peer.board, super::MAX_INPUT_BYTES, Links::Follow).is_ok();
            report.line(
                readable,
                "peer-session board readable",
                &peer.board.display().to_string(),
            );
        }
        None => print("  info peer-session lane not adopted (peer_send_resolution)"),
    }
    for (kind, label) in KINDS {
        let covered: Vec<&str> = SAMPLE_TOOLS
            .iter()
            .filter(|(t, k)| *k == kind && is_gated(config, t))
            .map(|(t, _)| *t)
            .collect();
        report.line(
            !covered.is_empty(),
            &format!("gated_tool_patterns cover {label}"),
            &if covered.is_empty() {
                format!(
                    "none of {} is gated",
                    SAMPLE_TOOLS
                        .iter()
                        .filter(|(_, k)| *k == kind)
                        .map(|(t, _)| *t)
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            } else {
                covered.join(", ")
            },
        );
    }
    let unclassified: Vec<&str> = SAMPLE_TOOLS
        .iter()
        .map(|(t, _)| *t)
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

/// Whether a call of `tool` is decided by the gate (peer lane or gated).
fn is_gated(config: &Config, tool: &str) -> bool {
    let peer = config.peer.as_ref().is_some_and(|p| p.tool.is_match(tool));
    peer || config.classify(tool) == Class::Gated
}

/// A client whose hook configuration the doctor reads.
struct Client {
    name: &'static str,
    file: PathBuf,
    /// Codex also reads inline `[hooks]` tables of `config.toml` (the same entries as
    /// `hooks.json`, in TOML), and runs the hooks of both.
    toml: Option<PathBuf>,
}

impl Client {
    /// The `hooks` of every file the client reads, merged per event: an entry in either
    /// file routes a tool. A file that is absent is skipped when the other exists; one
    /// that cannot be read or parsed is an error (the doctor cannot vouch for it).
    fn settings(&self) -> Result<Value, String> {
        let read = |path: &PathBuf| read_capped(path, super::MAX_CONFIG_BYTES, Links::Follow);
        let Some(toml_path) = &self.toml else {
            return read(&self.file)
                .and_then(|b| serde_json::from_slice::<Value>(&b).map_err(|e| e.to_string()));
        };
        let mut found = Vec::new();
        if self.file.exists() {
            let bytes = read(&self.file)?;
            found.push(
                serde_json::from_slice::<Value>(&bytes)
                    .map_err(|e| format!("{}: {e}", self.file.display()))?,
            );
        }
        if toml_path.exists() {
            let bytes = read(toml_path)?;
            let text = std::str::from_utf8(&bytes)
                .map_err(|e| format!("{}: not UTF-8 ({e})", toml_path.display()))?;
            found.push(
                toml::from_str::<Value>(text)
                    .map_err(|e| format!("{}: {e}", toml_path.display()))?,
            );
        }
        if found.is_empty() {
            return Err(format!(
                "neither {} nor {} exists",
                self.file.display(),
                toml_path.display()
            ));
        }
        let mut hooks = serde_json::Map::new();
        for settings in found {
            let Some(Value::Object(events)) = settings.get("hooks").cloned() else {
                continue;
            };
            for (event, entries) in events {
                if let (Value::Array(entries), Value::Array(all)) = (
                    entries,
                    hooks
                        .entry(event)
                        .or_insert_with(|| Value::Array(Vec::new())),
                ) {
                    all.extend(entries);
                }
            }
        }
        let mut merged = serde_json::Map::new();
        merged.insert("hooks".into(), Value::Object(hooks));
        Ok(Value::Object(merged))
    }

    /// The files, as the doctor names them.
    fn shown(&self) -> String {
        match &self.toml {
            None => self.file.display().to_string(),
            Some(t) => format!("{} + {}", self.file.display(), t.display()),
        }
    }
}

/// Claude Code always (it is the client the gate is for); Codex when it is
/// installed (`$CODEX_HOME`, else `~/.codex`, exists).
fn clients(paths: &Paths) -> Vec<Client> {
    let mut out = Vec::new();
    let claude = match std::env::var_os(CLAUDE_SETTINGS_VAR).filter(|v| !v.is_empty()) {
        Some(p) => Some(PathBuf::from(p)),
        None => paths.home.as_ref().map(|h| h.join(".claude/settings.json")),
    };
    if let Some(file) = claude {
        out.push(Client {
            name: "Claude Code",
            file,
            toml: None,
        });
    }
    let codex_home = match std::env::var_os(CODEX_HOME_VAR).filter(|v| !v.is_empty()) {
        Some(p) => Some(PathBuf::from(p)),
        None => paths.home.as_ref().map(|h| h.join(".codex")),
    };
    if let Some(home) = codex_home.filter(|h| h.is_dir()) {
        out.push(Client {
            name: "Codex",
            file: home.join("hooks.json"),
            toml: Some(home.join("config.toml")),
        });
    }
    out
}

fn wiring(paths: &Paths, config: &Config, report: &mut Report) {
    let mut gated: Vec<&str> = SAMPLE_TOOLS
        .iter()
        .map(|(t, _)| *t)
        .filter(|t| is_gated(config, t))
        .collect();
    gated.extend(
        config
            .sample_tools
            .iter()
            .map(String::as_str)
            .filter(|t| is_gated(config, t)),
    );
    // A gated pattern no sample name exercises: its routing cannot be
    // checked, so the doctor cannot call the gate healthy.
    let unexercised: Vec<&str> = config
        .gated_sources
        .iter()
        .zip(&config.gated)
        .filter(|(_, r)| !gated.iter().any(|t| r.is_match(t)))
        .map(|(src, _)| src.as_str())
        .collect();
    report.routing(
        unexercised.is_empty(),
        "every gated pattern has a sample tool whose routing is checked",
        &if unexercised.is_empty() {
            String::new()
        } else {
            format!(
                "add the real tool names to doctor_sample_tools for: {}",
                unexercised.join(", ")
            )
        },
    );
    let clients = clients(paths);
    if clients.is_empty() {
        report.routing(false, "Claude Code settings", "$HOME is not set");
    }
    for client in &clients {
        for hook in &REQUIRED_HOOKS {
            client_wiring(client, hook, &gated, report);
        }
    }
    for client in &clients {
        if client.toml.is_some() {
            codex_dialect(client, report);
            codex_tool_output_wiring(client, report);
        } else {
            tool_output_wiring(client, report);
        }
    }
}

/// Whether a hook command answers Codex in its dialect.
fn speaks_codex(command: &str) -> bool {
    command.contains("--client codex") || command.contains("--client=codex")
}

/// Every airlock hook command of Codex's files without `--client codex` answers in Claude
/// Code's dialect. A PreToolUse guard's deny still blocks bare (JSON + stderr + exit 2), but
/// exits 2, so `|| exit 1` makes it an allow; tool-output's lines fail the hook in Codex (an
/// unknown field, `continue: false` on PreToolUse), and a failed hook lets everything through.
fn codex_dialect(client: &Client, report: &mut Report) {
    let Ok(settings) = client.settings() else {
        return;
    };
    let commands = settings
        .get("hooks")
        .and_then(Value::as_object)
        .into_iter()
        .flat_map(|events| events.values())
        .filter_map(Value::as_array)
        .flatten()
        .filter_map(|entry| entry.get("hooks").and_then(Value::as_array))
        .flatten()
        .filter_map(|hook| hook.get("command").and_then(Value::as_str))
        .filter(|c| c.contains("airlock") && c.contains("hook ") && !speaks_codex(c));
    for command in commands {
        let label = format!(
            "{} hook `{command}` answers in Claude Code's dialect",
            client.name
        );
        if command.contains("hook tool-output") {
            report.line(
                false,
                &label,
                "its lines fail the hook in Codex (updatedToolOutput, continue: false), and a failed hook lets the result or the call through; add `--client codex` (`airlock hook tool-output --print-config --client codex`)",
            );
        } else {
            report.note(
                &label,
                "its deny still blocks, but exits 2, so a `|| exit 1` wrapper would turn it into an allow; add `--client codex` (the deny then exits 0)",
            );
        }
    }
}

/// Tools whose results the model reads under Codex: its shell, its file edits, an MCP tool.
const CODEX_TOOL_OUTPUT_SAMPLES: [&str; 3] = ["Bash", "apply_patch", "mcp__server__tool"];

/// tool-output under Codex: optional, like under Claude Code. Codex cannot replace a tool's
/// output (no `updatedToolOutput`; `updatedMCPToolOutput` is refused), so with `--client
/// codex` the hook withholds a result containment changes: `decision: block` puts the
/// contained text in the result's place. Codex has no PostToolUseFailure event (a failed
/// shell command comes through PostToolUse; a failed MCP call through no hook at all), so
/// there is no companion to require.
fn codex_tool_output_wiring(client: &Client, report: &mut Report) {
    let label = format!("{} PostToolUse tool-output containment", client.name);
    let Ok(settings) = client.settings() else {
        return;
    };
    report.note(
        &format!("{} tool results", client.name),
        "Codex cannot replace a tool's output; tool-output with `--client codex` withholds a result that containment changes, the contained text in its place (decision: block); a failed MCP call's result gets no hook call in Codex 0.171.0 and reaches the model uncontained",
    );
    let matchers = gate_matchers(&settings, &TOOL_OUTPUT_HOOK);
    if matchers.is_empty() {
        report.note(
            &label,
            "not wired: tool results reach the model uncontained (`airlock hook tool-output --print-config --client codex` prints the entry)",
        );
        return;
    }
    let left: Vec<&str> = CODEX_TOOL_OUTPUT_SAMPLES
        .iter()
        .copied()
        .filter(|tool| !matchers.iter().any(|m| matcher_matches(m, tool)))
        .collect();
    report.line(
        left.is_empty(),
        &label,
        &if left.is_empty() {
            "every tool's result is withheld when containment would change it".to_owned()
        } else {
            format!("the matcher leaves out: {}", left.join(", "))
        },
    );
}

/// The PostToolUse `tool-output` hook (issue 16) is optional: absent, tool results
/// reach the model uncontained, which the doctor says without failing; wired for
/// some tools only, it is a misconfiguration, which fails.
const TOOL_OUTPUT_HOOK: RequiredHook = RequiredHook {
    event: "PostToolUse",
    subcommand: "hook tool-output",
};

/// Tools whose results the model reads; a `tool-output` matcher must cover all.
const TOOL_OUTPUT_SAMPLES: [&str; 6] = [
    "Bash",
    "Read",
    "WebFetch",
    "Grep",
    "Glob",
    "mcp__server__tool",
];

fn tool_output_wiring(client: &Client, report: &mut Report) {
    let label = format!("{} PostToolUse tool-output containment", client.name);
    let Ok(settings) = client.settings() else {
        // Unreadable settings already failed the send-gate wiring line above.
        return;
    };
    let matchers = gate_matchers(&settings, &TOOL_OUTPUT_HOOK);
    if matchers.is_empty() {
        report.note(
            &label,
            "not wired: tool results reach the model uncontained (`airlock hook tool-output --print-config` prints the entry)",
        );
        return;
    }
    let missed = |matchers: &[String]| -> Vec<&str> {
        TOOL_OUTPUT_SAMPLES
            .iter()
            .copied()
            .filter(|tool| !matchers.iter().any(|m| matcher_matches(m, tool)))
            .collect()
    };
    let left = missed(&matchers);
    report.line(
        left.is_empty(),
        &label,
        &if left.is_empty() {
            "every tool's result is contained".to_owned()
        } else {
            format!("the matcher leaves out: {}", left.join(", "))
        },
    );
    // Wired for results, the hook needs its two companions: a failed tool's error
    // reaches the model through PostToolUseFailure only, and what quarantines a session
    // after it is the PreToolUse gate.
    for (companion, why) in TOOL_OUTPUT_COMPANIONS {
        let label = format!(
            "{} {} `airlock {}`",
            client.name, companion.event, companion.subcommand
        );
        let matchers = gate_matchers(&settings, &companion);
        let left = missed(&matchers);
        report.line(
            !matchers.is_empty() && left.is_empty(),
            &label,
            &if matchers.is_empty() {
                format!("not wired: {why} (`airlock hook tool-output --print-config` prints it)")
            } else if left.is_empty() {
                "covers every tool".to_owned()
            } else {
                format!("the matcher leaves out: {}", left.join(", "))
            },
        );
    }
}

/// The entries `airlock hook tool-output --print-config` prints beside PostToolUse.
const TOOL_OUTPUT_COMPANIONS: [(RequiredHook, &str); 2] = [
    (
        RequiredHook {
            event: "PostToolUseFailure",
            subcommand: "hook tool-output",
        },
        "a failed tool's error text reaches the model uncontained, and its session is never quarantined",
    ),
    (
        RequiredHook {
            event: "PreToolUse",
            subcommand: "hook tool-output --quarantine-gate",
        },
        "a session whose failed tool printed hostile text can still run tools",
    ),
];

fn client_wiring(client: &Client, hook: &RequiredHook, gated: &[&str], report: &mut Report) {
    let shown = client.shown();
    let label = format!(
        "{} {} wiring covers the gated tools",
        client.name, hook.event
    );
    let settings = match client.settings() {
        Ok(v) => v,
        Err(e) => {
            report.routing(false, &label, &format!("{shown} unreadable ({e})"));
            return;
        }
    };
    let kind = if client.toml.is_some() {
        Codex
    } else {
        ClaudeCode
    };
    for (command, why) in crate::verdict::hazards(&settings, kind) {
        let what = format!("{} hook wrapper `{command}`", client.name);
        report.routing(false, &what, &why);
    }
    let matchers = gate_matchers(&settings, hook);
    if matchers.is_empty() {
        report.routing(
            false,
            &label,
            &format!(
                "no {} hook in {shown} runs `airlock {}`",
                hook.event, hook.subcommand
            ),
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
    report.routing(missed.is_empty() && !gated.is_empty(), &label, &detail);
}

/// The matchers of the entries of `hook.event` whose hooks run the hook.
fn gate_matchers(settings: &Value, hook: &RequiredHook) -> Vec<String> {
    let entries = settings
        .get("hooks")
        .and_then(|h| h.get(hook.event))
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
                            .is_some_and(|c| c.contains("airlock") && c.contains(hook.subcommand))
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

/// Claude Code's matcher rules for PreToolUse (as its 2.1.332 build applies
/// them): empty or `*` matches every tool; a list of names made only of
/// ASCII letters, digits, `_`, `-`, spaces, split at `|` or `,` and trimmed,
/// matches those names exactly; anything else is a JavaScript regex
/// (`new RegExp(matcher)`, no flags), searched. A matcher JavaScript would not
/// compile matches nothing there (the client logs it and skips the hook).
pub(crate) fn matcher_matches(matcher: &str, tool: &str) -> bool {
    if matcher.is_empty() || matcher == "*" {
        return true;
    }
    if matcher
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '|' | ',' | ' ' | '-'))
    {
        return matcher
            .split(['|', ','])
            .map(str::trim)
            .any(|name| !name.is_empty() && name == tool);
    }
    js_compatible(matcher) && Regex::new(matcher).is_ok_and(|r| r.is_match(tool))
}

/// Whether `matcher` means the same to JavaScript's `RegExp` as to the `regex` crate, as
/// far as the doctor can tell: groups are only `(`, `(?:`, lookarounds (which `regex`
/// refuses to compile, so they route nothing here) and named groups `(?<n>…)`; escapes
/// only those both read alike; no nested class or class operator. Anything else (`(?i)`,
/// `(?P<n>…)`, `\A`, `\z`, `\p{…}`, `[[:alpha:]]`, `[a&&b]`) the doctor cannot vouch
/// for, so it counts as routing nothing.
fn js_compatible(matcher: &str) -> bool {
    let bytes = matcher.as_bytes();
    let at = |i: usize| bytes.get(i).copied();
    let mut in_class = false;
    let mut i = 0usize;
    while let Some(b) = at(i) {
        let next = at(i.saturating_add(1));
        match b {
            b'\\' => {
                let alike = next.is_some_and(|n| {
                    n.is_ascii_punctuation()
                        || matches!(n, b'd' | b'D' | b'w' | b'W' | b's' | b'S' | b'b' | b'B')
                });
                if !alike {
                    return false;
                }
                i = i.saturating_add(1);
            }
            b'[' if in_class => return false,
            b'[' => in_class = true,
            b']' if in_class => in_class = false,
            b'&' | b'-' | b'~' if in_class && next == Some(b) => return false,
            b'(' if !in_class
                && next == Some(b'?')
                && !matches!(at(i.saturating_add(2)), Some(b':' | b'=' | b'!' | b'<')) =>
            {
                return false;
            }
            _ => {}
        }
        i = i.saturating_add(1);
    }
    true
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
    let mut misnamed: Vec<String> = Vec::new();
    let mut strays: Vec<String> = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if !entry.file_type().is_ok_and(|t| t.is_file()) {
            strays.push(name);
        } else if !name.starts_with('.') && !name.strip_suffix(".json").is_some_and(is_digest) {
            misnamed.push(name);
        }
    }
    report.line(
        strays.is_empty(),
        "the ledger store holds only regular files",
        &if strays.is_empty() {
            String::new()
        } else {
            format!(
                "not regular files (links, FIFOs, sockets, directories; the gate never opens them, and a ledger in such a form is refused): {}",
                strays.join(", ")
            )
        },
    );
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
        assert!(matcher_matches(
            "Write, mcp__workspace-mcp__send_gmail_message",
            "mcp__workspace-mcp__send_gmail_message"
        ));
        assert!(!matcher_matches("mcp__a__send", "mcp__a__send_x"));
        assert!(!matcher_matches("Write", "WriteX"));
        assert!(matcher_matches("mcp__.*send", "mcp__a__send_x"));
        assert!(!matcher_matches("(", "("));
        // JavaScript rejects inline flags, so the client never runs such a hook.
        assert!(!matcher_matches("(?i)mcp__.*send", "mcp__a__send"));
        assert!(!matcher_matches("(?i:send)", "mcp__a__send"));
        assert!(!matcher_matches("\\Amcp__.*send", "mcp__a__send"));
        assert!(!matcher_matches("mcp__[[:alpha:]]+__send", "mcp__a__send"));
        assert!(!matcher_matches("mcp__[a&&b]", "mcp__a"));
        assert!(matcher_matches("^mcp__(?:a|b)__\\w+", "mcp__a__send"));
        assert!(matcher_matches("mcp__.*[Ss]end", "mcp__a__Send"));
        assert!(matcher_matches(
            super::super::config::SETTINGS_MATCHER,
            "mcp__outlook__SendMail"
        ));
    }
}
