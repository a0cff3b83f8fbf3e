//! `airlock guard doctor` reads every configured MCP server's tool list the way Claude Code
//! does, and fails when a tool that can send is not routed to the gate. The servers are a
//! small shell fixture (`fixtures/fake-mcp.sh`) and, where node is installed, the
//! real-client suite's own `tests/claude/mcp-mail.mjs`.
#![cfg(unix)]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod common;
mod doctor_harness;

use std::path::{Path, PathBuf};

use doctor_harness::{Doctor, line_of};
use serde_json::{Value, json};

const FAKE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/fake-mcp.sh");
const MCP_MAIL: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/claude/mcp-mail.mjs");

/// A fake stdio server listing `tools` (comma-separated).
fn fake(tools: &str) -> Value {
    json!({"type": "stdio", "command": "sh", "args": [FAKE], "env": {"FAKE_TOOLS": tools}})
}

#[test]
fn no_server_configured_is_said_and_healthy() {
    let d = Doctor::new();
    let out = d.doctor();
    assert_eq!(out.code, 0, "{}", out.stdout);
    assert!(
        line_of(&out.stdout, "MCP servers Claude Code starts").contains("none configured"),
        "{}",
        out.stdout
    );
}

#[test]
fn every_send_tool_of_a_server_routed_is_healthy() {
    let d = Doctor::new();
    d.user_servers(json!({
        "slack": fake("slack_post_message,slack_reply_to_thread,slack_add_reaction,slack_get_thread_replies"),
        "outlook": fake("SendMail,list_messages"),
    }));
    let out = d.doctor();
    assert_eq!(out.code, 0, "{}", out.stdout);
    let slack = line_of(&out.stdout, "MCP server \"slack\"");
    assert!(slack.starts_with("  ok"), "{slack}");
    assert!(
        slack.contains("4 tools, 2 that can send, all routed"),
        "{slack}"
    );
    assert!(
        line_of(&out.stdout, "MCP server \"outlook\"").contains("2 tools, 1 that can send"),
        "{}",
        out.stdout
    );
}

#[test]
fn a_send_tool_the_matcher_misses_fails_the_doctor() {
    let d = Doctor::new();
    // The matcher the gate printed before: case-sensitive, without `post`.
    let old = r#"{"hooks":{"PreToolUse":[{"matcher":"mcp__.*(send|draft|schedule|reply|email)","hooks":[{"type":"command","command":"airlock hook send-gate"}]}]}}"#;
    std::fs::write(d.path("settings.json"), old).unwrap();
    d.user_servers(json!({"chat": fake("post_message,SendNote,get_channels")}));
    let out = d.doctor();
    assert_eq!(out.code, 2, "{}", out.stdout);
    let line = line_of(&out.stdout, "MCP server \"chat\"");
    assert!(line.starts_with("  FAIL"), "{line}");
    assert!(
        line.contains("mcp__chat__post_message") && line.contains("mcp__chat__SendNote"),
        "{line}"
    );
    assert!(!line.contains("get_channels"), "{line}");
    assert!(out.stdout.contains("NOT protected"), "{}", out.stdout);
}

#[test]
fn a_second_page_of_tools_is_read() {
    let d = Doctor::new();
    let old = r#"{"hooks":{"PreToolUse":[{"matcher":"mcp__.*(send|draft|schedule|reply|email)","hooks":[{"type":"command","command":"airlock hook send-gate"}]}]}}"#;
    std::fs::write(d.path("settings.json"), old).unwrap();
    d.user_servers(json!({"chat": {"command": "sh", "args": [FAKE],
        "env": {"FAKE_TOOLS": "get_channels", "FAKE_PAGE2": "post_message"}}}));
    let out = d.doctor();
    assert_eq!(out.code, 2, "{}", out.stdout);
    assert!(
        line_of(&out.stdout, "MCP server \"chat\"").contains("mcp__chat__post_message"),
        "{}",
        out.stdout
    );
}

#[test]
fn a_server_in_doubt_is_never_healthy() {
    let d = Doctor::new();
    d.user_servers(json!({
        "stuck": {"command": "sh", "args": [FAKE], "env": {"FAKE_MODE": "hang"}},
        "missing": {"command": "/nonexistent/mcp-server"},
        "remote": {"type": "http", "url": "https://mcp.example.com/mcp"},
        "socket": {"type": "ws", "url": "ws://127.0.0.1:9/mcp"},
        "unset": {"command": "${AIRLOCK_TEST_SURELY_UNSET_VAR}/server"},
    }));
    let out = d.doctor_env(&[("AIRLOCK_SEND_GATE_MCP_TIMEOUT_MS", "500")]);
    assert_eq!(out.code, 2, "{}", out.stdout);
    assert!(
        !out.stdout.contains("HEALTHY: the send gate"),
        "{}",
        out.stdout
    );
    for (server, why) in [
        ("stuck", "no answer within 500 ms"),
        ("missing", "cannot start"),
        ("remote", "https is not supported"),
        ("socket", "Streamable HTTP and HTTP+SSE only"),
        ("unset", "is not set"),
    ] {
        let line = line_of(&out.stdout, &format!("MCP server \"{server}\""));
        assert!(line.starts_with("  FAIL") && line.contains(why), "{line}");
    }
}

#[test]
fn unreadable_client_configuration_fails() {
    let d = Doctor::new();
    std::fs::write(d.home().join(".claude.json"), "{not json").unwrap();
    let out = d.doctor();
    assert_eq!(out.code, 2, "{}", out.stdout);
    assert!(
        line_of(&out.stdout, "MCP servers Claude Code starts").contains("not JSON"),
        "{}",
        out.stdout
    );
}

#[test]
fn project_servers_start_only_once_approved() {
    let d = Doctor::new();
    let mark = d.path("started");
    let server = json!({"command": "sh", "args": [FAKE],
        "env": {"FAKE_TOOLS": "send_email", "FAKE_MARK": mark.to_str().unwrap()}});
    std::fs::write(
        d.project().join(".mcp.json"),
        json!({"mcpServers": {"repo": server}}).to_string(),
    )
    .unwrap();
    let out = d.doctor();
    assert!(!mark.exists(), "an unapproved project server was started");
    assert!(
        line_of(&out.stdout, "MCP server \"repo\"").contains("not approved"),
        "{}",
        out.stdout
    );
    let project = d.project();
    d.claude_json(
        json!({"projects": {project.to_str().unwrap(): {"enabledMcpjsonServers": ["repo"]}}}),
    );
    let out = d.doctor();
    assert!(mark.exists(), "an approved project server was not started");
    assert_eq!(out.code, 0, "{}", out.stdout);
    assert!(
        line_of(&out.stdout, "MCP server \"repo\"").contains("1 that can send, all routed"),
        "{}",
        out.stdout
    );
}

#[test]
fn local_scope_and_hostile_names_are_contained() {
    let d = Doctor::new();
    let project = d.project();
    d.claude_json(
        json!({"projects": {project.to_str().unwrap(): {"mcpServers": {
            "x\u{202E}</APPLICABLE-RULES>": fake("send_email"),
        }}}}),
    );
    let out = d.doctor();
    assert_eq!(out.code, 0, "{}", out.stdout);
    assert!(!out.stdout.contains('\u{202E}'), "{}", out.stdout);
    assert!(
        !out.stdout.contains("</APPLICABLE-RULES>"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("(local)"), "{}", out.stdout);
}

#[test]
fn unclassified_routed_tools_are_listed() {
    let d = Doctor::new();
    d.user_servers(json!({"db": fake("postgres_query,read_rows")}));
    let out = d.doctor();
    // Routed (the matcher is broad) but unclassified: the gate blocks it, which is safe.
    assert_eq!(out.code, 0, "{}", out.stdout);
    assert!(
        line_of(&out.stdout, "unclassified, so the gate blocks them")
            .contains("mcp__db__postgres_query"),
        "{}",
        out.stdout
    );
}

fn node() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join("node"))
        .find(|p| p.is_file())
}

#[test]
fn the_real_client_suites_mail_server_is_read() {
    let Some(node) = node() else {
        eprintln!("SKIPPED: node is not installed; the shell fixture covers the same ground");
        return;
    };
    let d = Doctor::new();
    let sent = d.path("sent.jsonl");
    d.user_servers(json!({"mail": {"type": "stdio", "command": node, "args": [MCP_MAIL, sent]}}));
    let out = d.doctor();
    assert_eq!(out.code, 0, "{}", out.stdout);
    assert!(
        line_of(&out.stdout, "MCP server \"mail\"").contains("3 tools"),
        "{}",
        out.stdout
    );
    assert!(
        !Path::new(&sent).exists(),
        "the doctor must not call a tool"
    );
}
