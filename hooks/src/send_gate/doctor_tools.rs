//! The doctor's reading of every MCP server Claude Code is configured to start: each one
//! is started the way the client starts it, asked `initialize` and `tools/list` (every
//! page), and stopped. The names are then spelt as the client spells them
//! (`mcp__SERVER__TOOL`, both parts with every character outside `[A-Za-z0-9_-]` turned
//! into `_`; 2.1.332's `ur`/`Hn`), so the routing check sees the names the hook will see.
//!
//! Where the servers come from (2.1.332): `$CLAUDE_CONFIG_DIR/.claude.json`, else
//! `~/.claude.json`: `mcpServers` (user scope) and `projects[DIR].mcpServers` (local scope)
//! for the working directory and each directory above it; and `.mcp.json` in those
//! directories (project scope), only the servers approved there (`enabledMcpjsonServers`
//! or `enableAllProjectMcpServers`): a server the client would not start, the doctor does
//! not start either, since it runs whatever command a cloned repository names.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::super::config::{Class, Config, names_a_send_verb};
use super::super::store::{Links, Paths, read_capped};
use super::{REQUIRED_HOOKS, Report, clients, gate_matchers, matcher_matches};

/// How long one server may take to start and list its tools before the doctor gives up on
/// it (the client's own default for a stdio start is 30 s; a doctor run should stay short).
pub(crate) const LIST_TIMEOUT: Duration = Duration::from_secs(10);
/// Shortens [`LIST_TIMEOUT`] (milliseconds), so the suite can prove a server that never
/// answers is reported; it can never lengthen it.
pub(crate) const LIST_TIMEOUT_VAR: &str = "AIRLOCK_SEND_GATE_MCP_TIMEOUT_MS";
/// Pages of `tools/list` followed before a server that never stops paginating is refused.
const MAX_PAGES: usize = 100;
/// A server's whole answer, in bytes, beyond which it is refused.
const MAX_ANSWER_BYTES: usize = 16 * 1024 * 1024;
/// The protocol version asked for; servers answer with the one they speak.
const PROTOCOL_VERSION: &str = "2025-06-18";

/// One configured server.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Server {
    pub(crate) name: String,
    /// The file (and scope) it was configured in, for the report.
    pub(crate) source: String,
    pub(crate) transport: Transport,
}

/// How the client reaches a server.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Transport {
    Stdio {
        command: String,
        args: Vec<String>,
        env: BTreeMap<String, String>,
    },
    /// `http`, `sse` and anything else: the doctor does not speak it.
    Remote { kind: String, url: String },
}

/// The servers configured for the working directory `cwd`, and the project servers found
/// but not approved (the client will not start those).
#[derive(Debug, Default)]
pub(crate) struct Configured {
    pub(crate) servers: Vec<Server>,
    pub(crate) unapproved: Vec<(String, String)>,
    /// Files read, for the report.
    pub(crate) files: Vec<PathBuf>,
}

/// The client's global configuration file.
pub(crate) fn claude_json(home: Option<&Path>) -> Option<PathBuf> {
    match std::env::var_os("CLAUDE_CONFIG_DIR").filter(|v| !v.is_empty()) {
        Some(dir) => Some(PathBuf::from(dir).join(".claude.json")),
        None => home.map(|h| h.join(".claude.json")),
    }
}

fn read_json(path: &Path) -> Result<Option<Value>, String> {
    if !path.exists() {
        return Ok(None);
    }
    let bytes = read_capped(
        path,
        super::super::MAX_CONFIG_BYTES.saturating_mul(16),
        Links::Follow,
    )
    .map_err(|e| format!("{}: {e}", path.display()))?;
    serde_json::from_slice(&bytes)
        .map(Some)
        .map_err(|e| format!("{}: not JSON ({e})", path.display()))
}

/// Reads every place the client takes servers from. A file that exists but cannot be read
/// or parsed is an error: the doctor cannot say what it would start.
pub(crate) fn configured(home: Option<&Path>, cwd: &Path) -> Result<Configured, String> {
    let mut out = Configured::default();
    let dirs: Vec<&Path> = cwd.ancestors().collect();
    let global = match claude_json(home) {
        Some(path) => {
            let value = read_json(&path)?;
            if value.is_some() {
                out.files.push(path.clone());
            }
            value.map(|v| (path, v))
        }
        None => None,
    };
    let mut approved_all = false;
    let mut approved: Vec<String> = Vec::new();
    let mut disabled: Vec<String> = Vec::new();
    if let Some((path, value)) = &global {
        let shown = path.display();
        servers_of(value, &format!("{shown} (user)"), &mut out.servers)?;
        for dir in &dirs {
            let Some(project) = value
                .get("projects")
                .and_then(|p| p.get(dir.to_string_lossy().as_ref()))
            else {
                continue;
            };
            servers_of(
                project,
                &format!("{shown} projects[{}] (local)", dir.display()),
                &mut out.servers,
            )?;
            approved_all |= project.get("enableAllProjectMcpServers") == Some(&Value::Bool(true));
            approved.extend(strings(project.get("enabledMcpjsonServers")));
            disabled.extend(strings(project.get("disabledMcpjsonServers")));
        }
    }
    for dir in &dirs {
        let path = dir.join(".mcp.json");
        let Some(value) = read_json(&path)? else {
            continue;
        };
        out.files.push(path.clone());
        let mut found = Vec::new();
        servers_of(&value, &format!("{} (project)", path.display()), &mut found)?;
        for server in found {
            let on = !disabled.contains(&server.name)
                && (approved_all || approved.contains(&server.name));
            if on {
                out.servers.push(server);
            } else {
                out.unapproved
                    .push((server.name, path.display().to_string()));
            }
        }
    }
    Ok(out)
}

fn strings(value: Option<&Value>) -> Vec<String> {
    value
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

/// The `mcpServers` of `value`, appended to `out`. A server of a shape the doctor cannot
/// read is an error, not a skip.
fn servers_of(value: &Value, source: &str, out: &mut Vec<Server>) -> Result<(), String> {
    let Some(servers) = value.get("mcpServers") else {
        return Ok(());
    };
    let servers = servers
        .as_object()
        .ok_or_else(|| format!("{source}: mcpServers is not an object"))?;
    for (name, spec) in servers {
        let field = |key: &str| spec.get(key).and_then(Value::as_str).map(str::to_owned);
        let kind = field("type").unwrap_or_else(|| {
            if spec.get("url").is_some() {
                "http".into()
            } else {
                "stdio".into()
            }
        });
        let transport = if kind == "stdio" {
            let command = field("command")
                .filter(|c| !c.is_empty())
                .ok_or_else(|| format!("{source}: server {name:?} has no command"))?;
            let args = match spec.get("args") {
                None => Vec::new(),
                Some(Value::Array(a)) => a
                    .iter()
                    .map(|v| {
                        v.as_str().map(str::to_owned).ok_or_else(|| {
                            format!("{source}: server {name:?}: an arg is not a string")
                        })
                    })
                    .collect::<Result<_, _>>()?,
                Some(_) => return Err(format!("{source}: server {name:?}: args is not a list")),
            };
            let mut env = BTreeMap::new();
            if let Some(vars) = spec.get("env") {
                let vars = vars
                    .as_object()
                    .ok_or_else(|| format!("{source}: server {name:?}: env is not an object"))?;
                for (k, v) in vars {
                    let v = v.as_str().ok_or_else(|| {
                        format!("{source}: server {name:?}: env {k:?} is not a string")
                    })?;
                    env.insert(k.clone(), v.to_owned());
                }
            }
            Transport::Stdio { command, args, env }
        } else {
            Transport::Remote {
                kind,
                url: field("url").unwrap_or_default(),
            }
        };
        out.push(Server {
            name: name.clone(),
            source: source.to_owned(),
            transport,
        });
    }
    Ok(())
}

/// `${VAR}` and `${VAR:-default}` expanded as the client expands them in a server's
/// command, args and env; a variable that is unset and has no default is an error.
fn expand(text: &str, env: &dyn Fn(&str) -> Option<String>) -> Result<String, String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        let (before, after) = rest.split_at(start);
        out.push_str(before);
        let body = after.get(2..).unwrap_or_default();
        let Some(end) = body.find('}') else {
            out.push_str(after);
            return Ok(out);
        };
        let (inner, tail) = body.split_at(end);
        let (name, default) = match inner.split_once(":-") {
            Some((n, d)) => (n, Some(d)),
            None => (inner, None),
        };
        match env(name).or_else(|| default.map(str::to_owned)) {
            Some(value) => out.push_str(&value),
            None => return Err(format!("${{{name}}} is not set")),
        }
        rest = tail.get(1..).unwrap_or_default();
    }
    out.push_str(rest);
    Ok(out)
}

/// A tool name as the client spells a server's or tool's part of `mcp__SERVER__TOOL`.
pub(crate) fn client_part(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The full tool name the hook sees for `tool` of server `server`.
pub(crate) fn full_name(server: &str, tool: &str) -> String {
    let mut server_part = client_part(server);
    // The client collapses the runs of `_` of a claude.ai connector's name.
    if server.starts_with("claude.ai ") {
        let mut collapsed = String::new();
        for c in server_part.chars() {
            if !(c == '_' && collapsed.ends_with('_')) {
                collapsed.push(c);
            }
        }
        server_part = collapsed.trim_matches('_').to_owned();
    }
    format!("mcp__{server_part}__{}", client_part(tool))
}

/// The effective timeout: [`LIST_TIMEOUT`], or shorter from [`LIST_TIMEOUT_VAR`].
pub(crate) fn timeout() -> Duration {
    std::env::var(LIST_TIMEOUT_VAR)
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .map(Duration::from_millis)
        .map_or(LIST_TIMEOUT, |d| d.min(LIST_TIMEOUT))
}

/// The tool names `server` lists, or why they could not be read.
pub(crate) fn list_tools(server: &Server, timeout: Duration) -> Result<Vec<String>, String> {
    match &server.transport {
        Transport::Stdio { command, args, env } => {
            let lookup = |name: &str| std::env::var(name).ok();
            let command = expand(command, &lookup)?;
            let args = args
                .iter()
                .map(|a| expand(a, &lookup))
                .collect::<Result<Vec<_>, _>>()?;
            let mut vars = Vec::new();
            for (k, v) in env {
                vars.push((k.clone(), expand(v, &lookup)?));
            }
            let mut child = Command::new(&command)
                .args(&args)
                .envs(vars)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::null())
                .spawn()
                .map_err(|e| format!("cannot start {command:?}: {e}"))?;
            let result = converse(&mut child, timeout);
            // Stopped whatever it answered: the doctor only wanted the list.
            let _ = child.kill();
            let _ = child.wait();
            result
        }
        Transport::Remote { kind, url } => Err(format!(
            "a {kind} server ({url}): the doctor reads stdio servers only, so its tools' routing is unchecked"
        )),
    }
}

/// `initialize`, `notifications/initialized`, then `tools/list` until no `nextCursor`.
fn converse(child: &mut Child, timeout: Duration) -> Result<Vec<String>, String> {
    let deadline = Instant::now()
        .checked_add(timeout)
        .unwrap_or_else(Instant::now);
    let mut stdin = child.stdin.take().ok_or("no stdin")?;
    let stdout = child.stdout.take().ok_or("no stdout")?;
    let (lines_tx, lines) = mpsc::channel::<Result<String, String>>();
    // A reader thread, so a server that never answers cannot outlast the deadline.
    std::thread::Builder::new()
        .name("doctor-mcp-reader".into())
        .spawn(move || {
            let mut reader =
                BufReader::new(stdout.take(u64::try_from(MAX_ANSWER_BYTES).unwrap_or(u64::MAX)));
            loop {
                let mut line = String::new();
                match reader.read_line(&mut line) {
                    Ok(0) => {
                        let _ = lines_tx.send(Err("the server closed its output".into()));
                        return;
                    }
                    Ok(_) => {
                        if lines_tx.send(Ok(line)).is_err() {
                            return;
                        }
                    }
                    Err(e) => {
                        let _ = lines_tx.send(Err(format!("unreadable output ({e})")));
                        return;
                    }
                }
            }
        })
        .map_err(|e| format!("cannot start a reader thread: {e}"))?;
    let mut send = |message: &Value| -> Result<(), String> {
        let mut line = message.to_string();
        line.push('\n');
        stdin
            .write_all(line.as_bytes())
            .and_then(|()| stdin.flush())
            .map_err(|e| format!("the server does not read its input ({e})"))
    };
    let answer = |id: u64| -> Result<Value, String> {
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = match lines.recv_timeout(left) {
                Ok(line) => line?,
                Err(_) => {
                    return Err(format!("no answer within {} ms", timeout.as_millis()));
                }
            };
            let Ok(message) = serde_json::from_str::<Value>(line.trim()) else {
                // The client too skips lines that are not JSON-RPC (a server's log line).
                continue;
            };
            if message.get("id") != Some(&json!(id)) || message.get("method").is_some() {
                continue;
            }
            if let Some(error) = message.get("error") {
                return Err(format!("the server answered with an error: {error}"));
            }
            return message
                .get("result")
                .cloned()
                .ok_or_else(|| "an answer with neither result nor error".to_owned());
        }
    };
    send(
        &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": PROTOCOL_VERSION,
            "capabilities": {},
            "clientInfo": {"name": "airlock-guard-doctor", "version": env!("CARGO_PKG_VERSION")},
        }}),
    )?;
    let init = answer(1).map_err(|e| format!("initialize: {e}"))?;
    if init
        .get("capabilities")
        .and_then(|c| c.get("tools"))
        .is_none()
    {
        // The client lists no tools of a server that does not advertise them.
        return Ok(Vec::new());
    }
    send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))?;
    let mut names = Vec::new();
    let mut cursor: Option<Value> = None;
    for page in 0..MAX_PAGES {
        let id = u64::try_from(page).unwrap_or(u64::MAX).saturating_add(2);
        let params = match &cursor {
            Some(c) => json!({"cursor": c}),
            None => json!({}),
        };
        send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/list", "params": params}))?;
        let result = answer(id).map_err(|e| format!("tools/list: {e}"))?;
        let tools = result
            .get("tools")
            .and_then(Value::as_array)
            .ok_or("tools/list: the answer has no tools array")?;
        for tool in tools {
            let name = tool
                .get("name")
                .and_then(Value::as_str)
                .ok_or("tools/list: a tool without a name")?;
            names.push(name.to_owned());
        }
        cursor = result.get("nextCursor").filter(|c| !c.is_null()).cloned();
        if cursor.is_none() {
            return Ok(names);
        }
    }
    Err(format!(
        "tools/list: still paginating after {MAX_PAGES} pages"
    ))
}

/// The doctor's check: every tool of every configured server that can send (a gated
/// pattern names it, or its name holds a send verb and no pattern classifies it) must be
/// routed by Claude Code's PreToolUse send-gate matchers. A server whose list cannot be
/// read fails the check: the doctor cannot vouch for tools it has not seen.
pub(super) fn check(paths: &Paths, config: &Config, report: &mut Report) {
    let label = "MCP servers Claude Code starts";
    let cwd = match std::env::current_dir() {
        Ok(cwd) => cwd,
        Err(e) => {
            report.routing(
                false,
                label,
                &format!("the working directory is unknown ({e})"),
            );
            return;
        }
    };
    let found = match configured(paths.home.as_deref(), &cwd) {
        Ok(found) => found,
        Err(e) => {
            report.routing(false, label, &format!("configuration unreadable: {e}"));
            return;
        }
    };
    for (name, file) in &found.unapproved {
        report.note(
            &format!("MCP server {name:?} of {file}"),
            "not approved, so Claude Code does not start it and the doctor did not either; run the doctor again once it is approved",
        );
    }
    if found.servers.is_empty() {
        let read: Vec<String> = found
            .files
            .iter()
            .map(|f| f.display().to_string())
            .collect();
        report.note(
            label,
            &if read.is_empty() {
                "none configured (no ~/.claude.json or .mcp.json)".to_owned()
            } else {
                format!("none configured in {}", read.join(", "))
            },
        );
        return;
    }
    let matchers = clients(paths)
        .into_iter()
        .find(|c| c.name == "Claude Code")
        .and_then(|c| c.settings().ok())
        .map(|settings| {
            REQUIRED_HOOKS
                .iter()
                .flat_map(|hook| gate_matchers(&settings, hook))
                .collect::<Vec<_>>()
        })
        .unwrap_or_default();
    let wait = timeout();
    let listed: Vec<Result<Vec<String>, String>> = std::thread::scope(|scope| {
        let jobs: Vec<_> = found
            .servers
            .iter()
            .map(|server| scope.spawn(move || list_tools(server, wait)))
            .collect();
        jobs.into_iter()
            .map(|job| {
                job.join()
                    .unwrap_or_else(|_| Err("the listing panicked".into()))
            })
            .collect()
    });
    for (server, tools) in found.servers.iter().zip(listed) {
        let label = format!(
            "MCP server {:?} ({}): every tool that can send reaches the gate",
            server.name, server.source
        );
        let tools = match tools {
            Ok(tools) => tools,
            Err(e) => {
                report.routing(
                    false,
                    &label,
                    &format!("its tool list could not be read ({e}); the doctor cannot tell whether its send tools reach the gate"),
                );
                continue;
            }
        };
        let mut sends = 0usize;
        let mut missed = Vec::new();
        let mut blocked = Vec::new();
        let mut exempt = Vec::new();
        for tool in &tools {
            let name = full_name(&server.name, tool);
            let class = config.classify(&name);
            let peer = config.peer.as_ref().is_some_and(|p| p.tool.is_match(&name));
            let verb = names_a_send_verb(&name);
            let routed = matchers.iter().any(|m| matcher_matches(m, &name));
            if peer || class == Class::Gated || (verb && class == Class::Unclassified) {
                sends = sends.saturating_add(1);
                if !routed {
                    missed.push(name.clone());
                }
            }
            if routed && class == Class::Unclassified && !peer {
                blocked.push(name);
            } else if verb && class == Class::Exempt && !peer {
                exempt.push(name);
            }
        }
        report.routing(
            missed.is_empty(),
            &label,
            &if missed.is_empty() {
                format!("{} tools, {sends} that can send, all routed", tools.len())
            } else {
                format!(
                    "NOT routed to the gate, so their calls go out unchecked: {} (`airlock hook send-gate --print-config` prints a matcher that catches them)",
                    missed.join(", ")
                )
            },
        );
        if !blocked.is_empty() {
            report.note(
                &format!(
                    "MCP server {:?}: unclassified, so the gate blocks them",
                    server.name
                ),
                &format!(
                    "{} (classify each in gated_tool_patterns or exempt_tool_patterns)",
                    blocked.join(", ")
                ),
            );
        }
        if !exempt.is_empty() {
            report.note(
                &format!(
                    "MCP server {:?}: exempt although the name says it may send",
                    server.name
                ),
                &exempt.join(", "),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_spelt_as_the_client_spells_them() {
        assert_eq!(full_name("mail", "send_email"), "mcp__mail__send_email");
        assert_eq!(
            full_name("my.server", "Send Mail"),
            "mcp__my_server__Send_Mail"
        );
        assert_eq!(
            full_name("claude.ai Gmail  Box", "send"),
            "mcp__claude_ai_Gmail_Box__send"
        );
    }

    #[test]
    fn variables_expand_as_the_client_expands_them() {
        let env = |name: &str| (name == "A").then(|| "x".to_owned());
        assert_eq!(expand("${A}/b", &env).unwrap(), "x/b");
        assert_eq!(expand("${B:-d}", &env).unwrap(), "d");
        assert!(expand("${B}", &env).is_err());
        assert_eq!(expand("plain $A", &env).unwrap(), "plain $A");
    }

    #[test]
    fn server_shapes_are_read_or_refused() {
        let value = json!({"mcpServers": {
            "a": {"command": "node", "args": ["s.js"], "env": {"K": "v"}},
            "b": {"type": "http", "url": "https://x"},
            "c": {"url": "https://y"},
        }});
        let mut out = Vec::new();
        servers_of(&value, "t", &mut out).unwrap();
        assert_eq!(out.len(), 3);
        assert!(matches!(&out[0].transport, Transport::Stdio { command, .. } if command == "node"));
        assert!(matches!(&out[2].transport, Transport::Remote { kind, .. } if kind == "http"));
        for bad in [
            json!({"mcpServers": []}),
            json!({"mcpServers": {"a": {"args": []}}}),
            json!({"mcpServers": {"a": {"command": "x", "args": [1]}}}),
            json!({"mcpServers": {"a": {"command": "x", "env": {"K": 1}}}}),
        ] {
            assert!(servers_of(&bad, "t", &mut Vec::new()).is_err(), "{bad}");
        }
    }
}
