//! The doctor's reading of every MCP server Claude Code (and Codex, when installed) is
//! configured to start: each one is started or reached the way the client does it (stdio,
//! or by URL over Streamable HTTP or the older HTTP+SSE, `doctor_http.rs`), asked
//! `initialize` and `tools/list` (every page), and stopped. The names are then spelt as the client spells them
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
use std::process::{ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::super::config::{Class, Config, names_a_send_verb};
use super::super::store::{Links, Paths, read_capped};
use super::{REQUIRED_HOOKS, Report, clients, gate_matchers, matcher_matches};
use crate::verdict::Client;

#[path = "doctor_http.rs"]
mod doctor_http;
use doctor_http::{Budget, LegacySse, Rpc, Streamable, Url};

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
    /// The client that starts it, whose hooks must route its send tools.
    pub(crate) client: Client,
    /// Codex's `enabled_tools`: when set, only these tools reach the model.
    pub(crate) enabled_tools: Option<Vec<String>>,
    /// Codex's `disabled_tools`: these never reach the model.
    pub(crate) disabled_tools: Vec<String>,
}

impl Server {
    /// Whether the client offers `tool` of this server to the model at all.
    fn offers(&self, tool: &str) -> bool {
        self.enabled_tools
            .as_ref()
            .is_none_or(|on| on.iter().any(|t| t == tool))
            && !self.disabled_tools.iter().any(|t| t == tool)
    }
}

/// One configured HTTP header's value, as its client spells where it comes from.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum HeaderValue {
    /// Claude Code's `headers`: `${VAR}` and `${VAR:-default}` expanded.
    Expand(String),
    /// Codex's `http_headers`: as written.
    Literal(String),
    /// Codex's `bearer_token_env_var` (`Bearer ` + the variable, which must be set) and
    /// `env_http_headers` (the variable, skipped when unset or empty, as Codex skips it).
    Env { var: String, bearer: bool },
}

/// How the client reaches a server.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Transport {
    Stdio {
        command: String,
        args: Vec<String>,
        env: BTreeMap<String, String>,
        /// Claude Code expands `${VAR}` in command, args and env; Codex does not.
        expand: bool,
        /// Codex's `cwd`.
        cwd: Option<PathBuf>,
    },
    /// Streamable HTTP (`http`; Codex's `url`), or with `legacy_sse` the HTTP+SSE
    /// transport (`sse`).
    Http {
        legacy_sse: bool,
        url: String,
        headers: Vec<(String, HeaderValue)>,
        /// Claude Code's `headersHelper`: a shell command printing a JSON object of
        /// headers, which override the static ones.
        helper: Option<String>,
    },
    /// Anything else (`ws`, an IDE's transports): the doctor does not speak it.
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
            Transport::Stdio {
                command,
                args,
                env,
                expand: true,
                cwd: None,
            }
        } else if kind == "http" || kind == "sse" {
            let url = field("url")
                .filter(|u| !u.is_empty())
                .ok_or_else(|| format!("{source}: server {name:?} has no url"))?;
            let mut headers = Vec::new();
            if let Some(map) = spec.get("headers") {
                let map = map.as_object().ok_or_else(|| {
                    format!("{source}: server {name:?}: headers is not an object")
                })?;
                for (k, v) in map {
                    let v = v.as_str().ok_or_else(|| {
                        format!("{source}: server {name:?}: header {k:?} is not a string")
                    })?;
                    headers.push((k.clone(), HeaderValue::Expand(v.to_owned())));
                }
            }
            let helper = match spec.get("headersHelper") {
                None => None,
                Some(Value::String(h)) => Some(h.clone()),
                Some(_) => {
                    return Err(format!(
                        "{source}: server {name:?}: headersHelper is not a string"
                    ));
                }
            };
            Transport::Http {
                legacy_sse: kind == "sse",
                url,
                headers,
                helper,
            }
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
            client: Client::ClaudeCode,
            enabled_tools: None,
            disabled_tools: Vec::new(),
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
    let deadline = Instant::now()
        .checked_add(timeout)
        .unwrap_or_else(Instant::now);
    let lookup = |name: &str| std::env::var(name).ok();
    match &server.transport {
        Transport::Stdio {
            command,
            args,
            env,
            expand: expands,
            cwd,
        } => {
            let expand_one = |text: &str| {
                if *expands {
                    expand(text, &lookup)
                } else {
                    Ok(text.to_owned())
                }
            };
            let command = expand_one(command)?;
            let args = args
                .iter()
                .map(|a| expand_one(a))
                .collect::<Result<Vec<_>, _>>()?;
            let mut vars = Vec::new();
            for (k, v) in env {
                vars.push((k.clone(), expand_one(v)?));
            }
            let mut cmd = Command::new(&command);
            cmd.args(&args)
                .envs(vars)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::null());
            if let Some(cwd) = cwd {
                cmd.current_dir(cwd);
            }
            let mut child = cmd
                .spawn()
                .map_err(|e| format!("cannot start {command:?}: {e}"))?;
            let result = match (child.stdin.take(), child.stdout.take()) {
                (Some(stdin), Some(stdout)) => StdioRpc::new(stdin, stdout, deadline, timeout)
                    .and_then(|mut rpc| list_over(&mut rpc)),
                _ => Err("no pipe to the server".into()),
            };
            // Stopped whatever it answered: the doctor only wanted the list.
            let _ = child.kill();
            let _ = child.wait();
            result
        }
        Transport::Http {
            legacy_sse,
            url,
            headers,
            helper,
        } => {
            let url_text = if server.client == Client::ClaudeCode {
                expand(url, &lookup)?
            } else {
                url.clone()
            };
            // Named as configured: the expanded URL may carry a secret.
            let url = Url::parse(&url_text).map_err(|e| format!("{url:?}: {e}"))?;
            let mut sent = Vec::new();
            for (name, value) in headers {
                let value = match value {
                    HeaderValue::Expand(v) => {
                        Some(expand(v, &lookup).map_err(|e| format!("header {name:?}: {e}"))?)
                    }
                    HeaderValue::Literal(v) => Some(v.clone()),
                    HeaderValue::Env { var, bearer: true } => Some(format!(
                        "Bearer {}",
                        lookup(var)
                            .filter(|v| !v.is_empty())
                            .ok_or_else(|| format!("bearer_token_env_var {var:?} is not set"))?
                    )),
                    HeaderValue::Env { var, bearer: false } => {
                        lookup(var).filter(|v| !v.trim().is_empty())
                    }
                };
                if let Some(value) = value {
                    sent.push((name.clone(), value));
                }
            }
            if let Some(helper) = helper {
                for (name, value) in run_headers_helper(helper, &server.name, &url_text, deadline)?
                {
                    sent.retain(|(n, _)| !n.eq_ignore_ascii_case(&name));
                    sent.push((name, value));
                }
            }
            let budget = Budget {
                deadline,
                max_bytes: u64::try_from(MAX_ANSWER_BYTES).unwrap_or(u64::MAX),
            };
            let legacy = *legacy_sse;
            // On a thread of its own, so not even a name lookup that hangs can outlast the
            // deadline: past it the doctor reports and moves on.
            let (tx, rx) = mpsc::channel();
            std::thread::Builder::new()
                .name("doctor-mcp-http".into())
                .spawn(move || {
                    let listed = if legacy {
                        LegacySse::open(&url, sent, budget).and_then(|mut rpc| list_over(&mut rpc))
                    } else {
                        let mut rpc = Streamable::new(url, sent, budget);
                        let listed = list_over(&mut rpc);
                        rpc.end();
                        listed
                    };
                    let _ = tx.send(listed);
                })
                .map_err(|e| format!("cannot start a thread: {e}"))?;
            match rx.recv_timeout(timeout.saturating_add(Duration::from_millis(500))) {
                Ok(listed) => listed.map_err(|e| {
                    if e.contains("no answer in time") || e.contains("out of time") {
                        format!("{e} (within {} ms)", timeout.as_millis())
                    } else {
                        e
                    }
                }),
                Err(_) => Err(format!("no answer within {} ms", timeout.as_millis())),
            }
        }
        Transport::Remote { kind, url } => Err(format!(
            "a {kind:?} server ({url}): the doctor speaks stdio, Streamable HTTP and HTTP+SSE only, so its tools' routing is unchecked"
        )),
    }
}

/// Claude Code's `headersHelper`: run in a shell with the server's name and URL in its
/// environment; its output is a JSON object of string headers. It is a configured command
/// like a stdio server's, run only for a server the client would start.
fn run_headers_helper(
    helper: &str,
    server: &str,
    url: &str,
    deadline: Instant,
) -> Result<Vec<(String, String)>, String> {
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(helper)
        .env("CLAUDE_CODE_MCP_SERVER_NAME", server)
        .env("CLAUDE_CODE_MCP_SERVER_URL", url)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("headersHelper cannot start: {e}"))?;
    let stdout = child.stdout.take().ok_or("headersHelper: no stdout")?;
    let (tx, rx) = mpsc::channel();
    std::thread::Builder::new()
        .name("doctor-headers-helper".into())
        .spawn(move || {
            let mut out = Vec::new();
            let read = stdout.take(1024 * 1024).read_to_end(&mut out);
            let _ = tx.send(read.map(|_| out));
        })
        .map_err(|e| format!("cannot start a thread: {e}"))?;
    let left = deadline.saturating_duration_since(Instant::now());
    let out = rx.recv_timeout(left);
    // Its output is complete; now its exit, within the same deadline.
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if out.is_ok() && Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(5));
            }
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
        }
    };
    let out = match out {
        Ok(Ok(out)) => out,
        Ok(Err(e)) => return Err(format!("headersHelper: unreadable output ({e})")),
        Err(_) => return Err("headersHelper: no output in time".into()),
    };
    if !status.is_some_and(|s| s.success()) {
        return Err("headersHelper failed (a non-zero exit, or no exit in time)".into());
    }
    let value: Value = serde_json::from_slice(&out)
        .map_err(|e| format!("headersHelper: its output is not JSON ({e})"))?;
    let map = value
        .as_object()
        .ok_or("headersHelper: its output is not a JSON object")?;
    map.iter()
        .map(|(k, v)| {
            v.as_str()
                .map(|v| (k.clone(), v.to_owned()))
                .ok_or_else(|| format!("headersHelper: header {k:?} is not a string"))
        })
        .collect()
}

/// The JSON-RPC answer's `result`, or its error as the doctor reports it.
fn result_of(message: &Value) -> Result<Value, String> {
    if let Some(error) = message.get("error") {
        return Err(format!("the server answered with an error: {error}"));
    }
    message
        .get("result")
        .cloned()
        .ok_or_else(|| "an answer with neither result nor error".to_owned())
}

/// `initialize`, `notifications/initialized`, then `tools/list` until no `nextCursor`,
/// over any transport.
fn list_over(rpc: &mut dyn Rpc) -> Result<Vec<String>, String> {
    let init = rpc
        .call(
            1,
            &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": PROTOCOL_VERSION,
                "capabilities": {},
                "clientInfo": {"name": "airlock-guard-doctor", "version": env!("CARGO_PKG_VERSION")},
            }}),
        )
        .and_then(|m| result_of(&m))
        .map_err(|e| format!("initialize: {e}"))?;
    if init
        .get("capabilities")
        .and_then(|c| c.get("tools"))
        .is_none()
    {
        // The client lists no tools of a server that does not advertise them.
        return Ok(Vec::new());
    }
    rpc.notify(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .map_err(|e| format!("notifications/initialized: {e}"))?;
    let mut names = Vec::new();
    let mut cursor: Option<Value> = None;
    for page in 0..MAX_PAGES {
        let id = u64::try_from(page).unwrap_or(u64::MAX).saturating_add(2);
        let params = match &cursor {
            Some(c) => json!({"cursor": c}),
            None => json!({}),
        };
        let result = rpc
            .call(
                id,
                &json!({"jsonrpc": "2.0", "id": id, "method": "tools/list", "params": params}),
            )
            .and_then(|m| result_of(&m))
            .map_err(|e| format!("tools/list: {e}"))?;
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

/// A stdio server: one JSON-RPC message a line each way.
struct StdioRpc {
    stdin: ChildStdin,
    lines: mpsc::Receiver<Result<String, String>>,
    deadline: Instant,
    timeout: Duration,
}

impl StdioRpc {
    fn new(
        stdin: ChildStdin,
        stdout: std::process::ChildStdout,
        deadline: Instant,
        timeout: Duration,
    ) -> Result<Self, String> {
        let (lines_tx, lines) = mpsc::channel::<Result<String, String>>();
        // A reader thread, so a server that never answers cannot outlast the deadline.
        std::thread::Builder::new()
            .name("doctor-mcp-reader".into())
            .spawn(move || {
                let mut reader = BufReader::new(
                    stdout.take(u64::try_from(MAX_ANSWER_BYTES).unwrap_or(u64::MAX)),
                );
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
        Ok(Self {
            stdin,
            lines,
            deadline,
            timeout,
        })
    }
}

impl Rpc for StdioRpc {
    fn call(&mut self, id: u64, message: &Value) -> Result<Value, String> {
        self.notify(message)?;
        loop {
            let left = self.deadline.saturating_duration_since(Instant::now());
            let line = match self.lines.recv_timeout(left) {
                Ok(line) => line?,
                Err(_) => {
                    return Err(format!("no answer within {} ms", self.timeout.as_millis()));
                }
            };
            let Ok(message) = serde_json::from_str::<Value>(line.trim()) else {
                // The client too skips lines that are not JSON-RPC (a server's log line).
                continue;
            };
            if message.get("id") != Some(&json!(id)) || message.get("method").is_some() {
                continue;
            }
            return Ok(message);
        }
    }

    fn notify(&mut self, message: &Value) -> Result<(), String> {
        let mut line = message.to_string();
        line.push('\n');
        self.stdin
            .write_all(line.as_bytes())
            .and_then(|()| self.stdin.flush())
            .map_err(|e| format!("the server does not read its input ({e})"))
    }
}

/// The `[mcp_servers.NAME]` tables of Codex's `config.toml` (absent file: none), and the
/// names of those switched off (`enabled = false`). Codex refuses a table with both or
/// neither of `command` and `url`, or an inline `bearer_token`; so does the doctor.
pub(crate) fn codex_servers(path: &Path) -> Result<(Vec<Server>, Vec<String>), String> {
    let mut servers = Vec::new();
    let mut off = Vec::new();
    if !path.exists() {
        return Ok((servers, off));
    }
    let bytes = read_capped(path, super::super::MAX_CONFIG_BYTES, Links::Follow)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let text =
        std::str::from_utf8(&bytes).map_err(|e| format!("{}: not UTF-8 ({e})", path.display()))?;
    let value: Value =
        toml::from_str(text).map_err(|e| format!("{}: not TOML ({e})", path.display()))?;
    let source = format!("{} (Codex)", path.display());
    let Some(tables) = value.get("mcp_servers") else {
        return Ok((servers, off));
    };
    let tables = tables
        .as_object()
        .ok_or_else(|| format!("{source}: mcp_servers is not a table"))?;
    for (name, spec) in tables {
        let fail = |what: &str| format!("{source}: mcp_servers.{name}: {what}");
        if spec.get("enabled") == Some(&Value::Bool(false)) {
            off.push(name.clone());
            continue;
        }
        let text = |key: &str| -> Result<Option<String>, String> {
            match spec.get(key) {
                None => Ok(None),
                Some(Value::String(s)) => Ok(Some(s.clone())),
                Some(_) => Err(fail(&format!("{key} is not a string"))),
            }
        };
        let list = |key: &str| -> Result<Option<Vec<String>>, String> {
            match spec.get(key) {
                None => Ok(None),
                Some(Value::Array(a)) => a
                    .iter()
                    .map(|v| {
                        v.as_str()
                            .map(str::to_owned)
                            .ok_or_else(|| fail(&format!("{key} holds a non-string")))
                    })
                    .collect::<Result<Vec<_>, _>>()
                    .map(Some),
                Some(_) => Err(fail(&format!("{key} is not a list"))),
            }
        };
        let table = |key: &str| -> Result<Vec<(String, String)>, String> {
            match spec.get(key) {
                None => Ok(Vec::new()),
                Some(Value::Object(m)) => m
                    .iter()
                    .map(|(k, v)| {
                        v.as_str()
                            .map(|v| (k.clone(), v.to_owned()))
                            .ok_or_else(|| fail(&format!("{key}.{k} is not a string")))
                    })
                    .collect(),
                Some(_) => Err(fail(&format!("{key} is not a table"))),
            }
        };
        let transport = match (text("command")?, text("url")?) {
            (Some(_), Some(_)) => return Err(fail("both command and url")),
            (None, None) => return Err(fail("neither command nor url")),
            (Some(command), None) => Transport::Stdio {
                command,
                args: list("args")?.unwrap_or_default(),
                env: table("env")?.into_iter().collect(),
                expand: false,
                cwd: text("cwd")?.map(PathBuf::from),
            },
            (None, Some(url)) => {
                if spec.get("bearer_token").is_some() {
                    return Err(fail(
                        "an inline bearer_token (Codex refuses it; name a variable in bearer_token_env_var)",
                    ));
                }
                let mut headers: Vec<(String, HeaderValue)> = table("http_headers")?
                    .into_iter()
                    .map(|(k, v)| (k, HeaderValue::Literal(v)))
                    .collect();
                for (k, var) in table("env_http_headers")? {
                    headers.push((k, HeaderValue::Env { var, bearer: false }));
                }
                if let Some(var) = text("bearer_token_env_var")? {
                    headers.push((
                        "Authorization".into(),
                        HeaderValue::Env { var, bearer: true },
                    ));
                }
                Transport::Http {
                    legacy_sse: false,
                    url,
                    headers,
                    helper: None,
                }
            }
        };
        servers.push(Server {
            name: name.clone(),
            source: source.clone(),
            transport,
            client: Client::Codex,
            enabled_tools: list("enabled_tools")?,
            disabled_tools: list("disabled_tools")?.unwrap_or_default(),
        });
    }
    Ok((servers, off))
}

/// The send-gate matchers of the client called `name`, none when it is not installed or
/// its settings do not read (their own check already failed then).
fn matchers_of(paths: &Paths, name: &str) -> Vec<String> {
    clients(paths)
        .into_iter()
        .find(|c| c.name == name)
        .and_then(|c| c.settings().ok())
        .map(|settings| {
            REQUIRED_HOOKS
                .iter()
                .flat_map(|hook| gate_matchers(&settings, hook))
                .collect::<Vec<_>>()
        })
        .unwrap_or_default()
}

/// The doctor's check: every tool of every configured server that can send (a gated
/// pattern names it, or its name holds a send verb and no pattern classifies it) must be
/// routed by its client's PreToolUse send-gate matchers. A server whose list cannot be
/// read fails the check: the doctor cannot vouch for tools it has not seen.
pub(super) fn check(paths: &Paths, config: &Config, report: &mut Report) {
    claude_code(paths, config, report);
    if let Some(codex) = clients(paths).into_iter().find(|c| c.name == "Codex") {
        let label = "MCP servers Codex starts";
        let Some(file) = codex.toml.as_deref() else {
            return;
        };
        match codex_servers(file) {
            Err(e) => report.routing(false, label, &format!("configuration unreadable: {e}")),
            Ok((servers, off)) => {
                for name in off {
                    report.note(
                        &format!("MCP server {name:?} of {}", file.display()),
                        "enabled = false, so Codex does not start it and the doctor did not either",
                    );
                }
                if servers.is_empty() {
                    report.note(label, &format!("none configured in {}", file.display()));
                } else {
                    vet(&servers, &matchers_of(paths, "Codex"), config, report);
                }
            }
        }
    }
}

fn claude_code(paths: &Paths, config: &Config, report: &mut Report) {
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
    vet(
        &found.servers,
        &matchers_of(paths, "Claude Code"),
        config,
        report,
    );
}

/// Lists every server's tools (in parallel) and reports, per server, the send tools
/// `matchers` leave unrouted.
fn vet(servers: &[Server], matchers: &[String], config: &Config, report: &mut Report) {
    let wait = timeout();
    let listed: Vec<Result<Vec<String>, String>> = std::thread::scope(|scope| {
        let jobs: Vec<_> = servers
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
    for (server, tools) in servers.iter().zip(listed) {
        let label = format!(
            "MCP server {:?} ({}): every tool that can send reaches the gate",
            server.name, server.source
        );
        let tools = match tools {
            Ok(tools) => tools
                .into_iter()
                .filter(|t| server.offers(t))
                .collect::<Vec<_>>(),
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
        assert!(
            matches!(&out[1].transport, Transport::Http { legacy_sse: false, url, .. } if url == "https://x")
        );
        assert!(matches!(
            &out[2].transport,
            Transport::Http {
                legacy_sse: false,
                ..
            }
        ));
        for bad in [
            json!({"mcpServers": []}),
            json!({"mcpServers": {"a": {"args": []}}}),
            json!({"mcpServers": {"a": {"command": "x", "args": [1]}}}),
            json!({"mcpServers": {"a": {"command": "x", "env": {"K": 1}}}}),
            json!({"mcpServers": {"a": {"type": "sse"}}}),
            json!({"mcpServers": {"a": {"type": "http", "url": "http://h", "headers": {"A": 1}}}}),
            json!({"mcpServers": {"a": {"type": "http", "url": "http://h", "headersHelper": []}}}),
        ] {
            assert!(servers_of(&bad, "t", &mut Vec::new()).is_err(), "{bad}");
        }
    }

    #[test]
    fn codex_tables_are_read_or_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        assert!(codex_servers(&path).unwrap().0.is_empty());
        std::fs::write(
            &path,
            r#"
[mcp_servers.mail]
command = "node"
args = ["s.js", "${NOT_EXPANDED}"]
disabled_tools = ["send_email"]
[mcp_servers.remote]
url = "http://127.0.0.1:9/mcp"
bearer_token_env_var = "TOKEN"
http_headers = { "X-A" = "1" }
env_http_headers = { "X-B" = "B_VAR" }
[mcp_servers.off]
command = "x"
enabled = false
"#,
        )
        .unwrap();
        let (servers, off) = codex_servers(&path).unwrap();
        assert_eq!(off, ["off"]);
        assert_eq!(servers.len(), 2);
        assert!(!servers[0].offers("send_email") && servers[0].offers("list"));
        assert!(matches!(
            &servers[0].transport,
            Transport::Stdio { expand: false, .. }
        ));
        let Transport::Http { headers, .. } = &servers[1].transport else {
            panic!("{:?}", servers[1]);
        };
        assert_eq!(headers.len(), 3);
        for bad in [
            "[mcp_servers.a]\ncommand = \"x\"\nurl = \"http://h\"\n",
            "[mcp_servers.a]\nargs = []\n",
            "[mcp_servers.a]\nurl = \"http://h\"\nbearer_token = \"t\"\n",
            "[mcp_servers.a]\ncommand = 1\n",
            "mcp_servers = 1\n",
            "not toml [",
        ] {
            std::fs::write(&path, bad).unwrap();
            assert!(codex_servers(&path).is_err(), "{bad}");
        }
    }
}
