//! `airlock guard doctor` reads the tool lists of MCP servers reached by URL, Streamable
//! HTTP and the older HTTP+SSE, configured in Claude Code's `~/.claude.json` and in Codex's
//! `config.toml`, and fails when a tool that can send is not routed to the gate, or when a
//! server cannot be reached or answers garbage. The servers are mock MCP servers on
//! 127.0.0.1, port 0, in this file.
#![cfg(unix)]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::arithmetic_side_effects
)]

mod common;
mod doctor_harness;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};

use doctor_harness::{Doctor, line_of};
use serde_json::{Value, json};

/// How the mock answers.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Mode {
    /// Streamable HTTP, every answer a JSON body.
    Json,
    /// Streamable HTTP, every answer an event stream (chunked, a notification first, held
    /// open after the answer).
    Stream,
    /// Streamable HTTP whose event stream carries text that is not JSON.
    GarbageStream,
    /// Streamable HTTP that accepts and never answers.
    Silent,
    /// HTTP+SSE: GET /sse, then POST to the endpoint it names; answers on the stream.
    Legacy,
    /// HTTP+SSE whose stream ends without an `endpoint` event.
    LegacyNoEndpoint,
}

/// One request the mock received.
#[derive(Clone, Debug)]
struct Seen {
    method: String,
    target: String,
    headers: Vec<(String, String)>,
    body: Value,
}

impl Seen {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

struct Mock {
    port: u16,
    seen: Arc<Mutex<Vec<Seen>>>,
}

impl Mock {
    fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }
    fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

#[derive(Clone)]
struct Spec {
    mode: Mode,
    tools: &'static [&'static str],
    /// When set, every request must carry `Authorization: Bearer <token>`.
    token: Option<&'static str>,
}

/// Starts a mock MCP server on 127.0.0.1, port 0; it serves until the test ends.
fn mock(spec: Spec) -> Mock {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let stream_slot: Arc<Mutex<Option<TcpStream>>> = Arc::new(Mutex::new(None));
    let log = Arc::clone(&seen);
    std::thread::spawn(move || {
        for conn in listener.incoming() {
            let Ok(conn) = conn else { continue };
            let spec = spec.clone();
            let log = Arc::clone(&log);
            let slot = Arc::clone(&stream_slot);
            std::thread::spawn(move || serve(conn, &spec, &log, &slot));
        }
    });
    Mock { port, seen }
}

fn read_request(conn: &TcpStream) -> Option<Seen> {
    let mut reader = BufReader::new(conn.try_clone().ok()?);
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    let mut parts = line.split_whitespace();
    let method = parts.next()?.to_owned();
    let target = parts.next()?.to_owned();
    let mut headers = Vec::new();
    loop {
        let mut field = String::new();
        reader.read_line(&mut field).ok()?;
        let field = field.trim_end();
        if field.is_empty() {
            break;
        }
        let (name, value) = field.split_once(':')?;
        headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
    }
    let length: usize = headers
        .iter()
        .find(|(n, _)| n == "content-length")
        .map_or(0, |(_, v)| v.parse().unwrap());
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    Some(Seen {
        method,
        target,
        headers,
        body: serde_json::from_slice(&body).unwrap_or(Value::Null),
    })
}

fn respond(conn: &mut TcpStream, status: &str, headers: &[(&str, &str)], body: &[u8]) {
    let mut out = format!("HTTP/1.1 {status}\r\nContent-Length: {}\r\n", body.len());
    for (k, v) in headers {
        out.push_str(&format!("{k}: {v}\r\n"));
    }
    out.push_str("\r\n");
    let mut bytes = out.into_bytes();
    bytes.extend_from_slice(body);
    let _ = conn.write_all(&bytes);
}

/// The JSON-RPC answer to `request`, or `None` for a notification.
fn answer(request: &Value, tools: &[&str]) -> Option<Value> {
    let id = request.get("id")?.clone();
    let result = match request["method"].as_str().unwrap_or_default() {
        "initialize" => json!({"protocolVersion": "2025-06-18",
            "capabilities": {"tools": {}}, "serverInfo": {"name": "mock", "version": "1"}}),
        "tools/list" => json!({"tools": tools.iter().map(|t| json!({"name": t,
            "inputSchema": {"type": "object"}})).collect::<Vec<_>>()}),
        other => {
            return Some(json!({"jsonrpc": "2.0", "id": id,
            "error": {"code": -32601, "message": format!("the doctor must not call {other}")}}));
        }
    };
    Some(json!({"jsonrpc": "2.0", "id": id, "result": result}))
}

fn serve(
    mut conn: TcpStream,
    spec: &Spec,
    log: &Mutex<Vec<Seen>>,
    slot: &Mutex<Option<TcpStream>>,
) {
    let Some(req) = read_request(&conn) else {
        return;
    };
    log.lock().unwrap().push(req.clone());
    if let Some(token) = spec.token
        && req.header("authorization") != Some(&format!("Bearer {token}"))
    {
        respond(&mut conn, "401 Unauthorized", &[], b"");
        return;
    }
    match spec.mode {
        Mode::Legacy | Mode::LegacyNoEndpoint if req.method == "GET" => {
            let _ = conn.write_all(
                b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n\r\n: hello\n\n",
            );
            if spec.mode == Mode::LegacyNoEndpoint {
                let _ = conn.write_all(b"event: message\ndata: {\"jsonrpc\":\"2.0\"}\n\n");
                return;
            }
            // The stream is where answers go, so it is known before the endpoint is named.
            *slot.lock().unwrap() = Some(conn.try_clone().unwrap());
            let _ = conn.write_all(b"event: endpoint\ndata: /messages?sessionId=abc\n\n");
            // Held open until the doctor closes it.
            let _ = conn.read(&mut [0; 1]);
        }
        Mode::Legacy => {
            if req.target != "/messages?sessionId=abc" {
                respond(&mut conn, "404 Not Found", &[], b"");
                return;
            }
            respond(&mut conn, "202 Accepted", &[], b"Accepted");
            if let Some(reply) = answer(&req.body, spec.tools) {
                let event = format!("event: message\ndata: {reply}\n\n");
                if let Some(stream) = slot.lock().unwrap().as_mut() {
                    let _ = stream.write_all(event.as_bytes());
                }
            }
        }
        Mode::LegacyNoEndpoint => respond(&mut conn, "404 Not Found", &[], b""),
        _ if req.method == "DELETE" => respond(&mut conn, "200 OK", &[], b""),
        Mode::Silent => {
            let _ = conn.read(&mut [0; 1]);
        }
        Mode::Json | Mode::Stream | Mode::GarbageStream => {
            let initialize = req.body["method"] == "initialize";
            if !initialize
                && (req.header("mcp-session-id") != Some("sess-1")
                    || req.header("mcp-protocol-version") != Some("2025-06-18"))
            {
                respond(&mut conn, "400 Bad Request", &[], b"no session");
                return;
            }
            let session: &[(&str, &str)] = if initialize {
                &[("Mcp-Session-Id", "sess-1")]
            } else {
                &[]
            };
            let Some(reply) = answer(&req.body, spec.tools) else {
                respond(&mut conn, "202 Accepted", &[], b"");
                return;
            };
            if spec.mode == Mode::Json {
                let mut headers = vec![("Content-Type", "application/json; charset=utf-8")];
                headers.extend_from_slice(session);
                respond(&mut conn, "200 OK", &headers, reply.to_string().as_bytes());
                return;
            }
            let mut head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n".to_owned();
            for (k, v) in session {
                head.push_str(&format!("{k}: {v}\r\n"));
            }
            head.push_str("\r\n");
            let events = if spec.mode == Mode::GarbageStream {
                "event: message\ndata: this is not JSON-RPC\n\n".to_owned()
            } else {
                format!(
                    ": keep-alive\r\nevent: message\r\ndata: {}\r\n\r\nid: 1\r\ndata: {reply}\r\n\r\n",
                    json!({"jsonrpc": "2.0", "method": "notifications/message",
                        "params": {"level": "info", "data": "listing"}})
                )
            };
            let _ = conn.write_all(head.as_bytes());
            // Chunks that split lines and CRLFs, as a real stream may.
            for piece in events.as_bytes().chunks(7) {
                let _ = conn.write_all(format!("{:x}\r\n", piece.len()).as_bytes());
                let _ = conn.write_all(piece);
                let _ = conn.write_all(b"\r\n");
            }
            // Held open: the doctor must stop at its answer, not at the stream's end.
            let _ = conn.read(&mut [0; 1]);
        }
    }
}

const TOOLS: &[&str] = &["SendMail", "list_messages"];
/// The matcher the gate printed before: case-sensitive, so `SendMail` slips past it.
const OLD_MATCHER: &str = r#"{"hooks":{"PreToolUse":[{"matcher":"mcp__.*(send|draft|schedule|reply|email)","hooks":[{"type":"command","command":"airlock hook send-gate"}]}]}}"#;

fn spec(mode: Mode) -> Spec {
    Spec {
        mode,
        tools: TOOLS,
        token: None,
    }
}

fn server(kind: &str, url: &str) -> Value {
    json!({"type": kind, "url": url})
}

fn healthy(d: &Doctor, env: &[(&str, &str)]) -> String {
    let out = d.doctor_env(env);
    assert_eq!(out.code, 0, "{}", out.stdout);
    let line = line_of(&out.stdout, "MCP server \"remote\"").to_owned();
    assert!(
        line.starts_with("  ok") && line.contains("2 tools, 1 that can send, all routed"),
        "{line}"
    );
    out.stdout
}

fn fails(d: &Doctor, env: &[(&str, &str)], why: &str) -> String {
    let out = d.doctor_env(env);
    assert_eq!(out.code, 2, "{}", out.stdout);
    assert!(
        !out.stdout.contains("HEALTHY: the send gate"),
        "{}",
        out.stdout
    );
    let line = line_of(&out.stdout, "MCP server \"remote\"").to_owned();
    assert!(line.starts_with("  FAIL") && line.contains(why), "{line}");
    line
}

#[test]
fn streamable_http_routed_is_healthy_and_unrouted_fails() {
    for mode in [Mode::Json, Mode::Stream] {
        let m = mock(spec(mode));
        let d = Doctor::new();
        d.user_servers(json!({"remote": server("http", &m.url("/mcp"))}));
        healthy(&d, &[]);
        let seen = m.seen();
        let methods: Vec<&str> = seen
            .iter()
            .map(|s| s.body["method"].as_str().unwrap_or(s.method.as_str()))
            .collect();
        assert_eq!(
            methods,
            [
                "initialize",
                "notifications/initialized",
                "tools/list",
                "DELETE"
            ],
            "{mode:?}"
        );
        assert_eq!(seen[3].header("mcp-session-id"), Some("sess-1"));
        assert!(
            seen[0]
                .header("accept")
                .is_some_and(|a| a.contains("application/json") && a.contains("text/event-stream"))
        );
        std::fs::write(d.path("settings.json"), OLD_MATCHER).unwrap();
        let line = fails(&d, &[], "NOT routed to the gate");
        assert!(line.contains("mcp__remote__SendMail"), "{line}");
        assert!(!line.contains("list_messages"), "{line}");
    }
}

#[test]
fn legacy_sse_routed_is_healthy_and_unrouted_fails() {
    let m = mock(spec(Mode::Legacy));
    let d = Doctor::new();
    d.user_servers(json!({"remote": server("sse", &m.url("/sse"))}));
    healthy(&d, &[]);
    let posts: Vec<String> = m
        .seen()
        .iter()
        .filter(|s| s.method == "POST")
        .map(|s| s.target.clone())
        .collect();
    assert_eq!(posts.len(), 3, "{posts:?}");
    assert!(posts.iter().all(|t| t == "/messages?sessionId=abc"));
    std::fs::write(d.path("settings.json"), OLD_MATCHER).unwrap();
    let line = fails(&d, &[], "mcp__remote__SendMail");
    assert!(line.contains("NOT routed"), "{line}");
}

#[test]
fn an_unreachable_server_fails() {
    let port = {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let d = Doctor::new();
    for kind in ["http", "sse"] {
        d.user_servers(json!({"remote": server(kind, &format!("http://127.0.0.1:{port}/mcp"))}));
        let line = fails(&d, &[], "cannot connect");
        assert!(line.contains("could not be read"), "{line}");
    }
}

#[test]
fn garbage_and_silence_fail() {
    let d = Doctor::new();
    let garbage = mock(spec(Mode::GarbageStream));
    d.user_servers(json!({"remote": server("http", &garbage.url("/mcp"))}));
    fails(&d, &[], "not JSON");
    let no_endpoint = mock(spec(Mode::LegacyNoEndpoint));
    d.user_servers(json!({"remote": server("sse", &no_endpoint.url("/sse"))}));
    fails(&d, &[], "before its endpoint");
    // Not an MCP server at all: the legacy mock's 404 to a POST.
    d.user_servers(json!({"remote": server("http", &no_endpoint.url("/mcp"))}));
    fails(&d, &[], "HTTP 404");
    let silent = mock(spec(Mode::Silent));
    d.user_servers(json!({"remote": server("http", &silent.url("/mcp"))}));
    fails(
        &d,
        &[("AIRLOCK_SEND_GATE_MCP_TIMEOUT_MS", "500")],
        "no answer in time",
    );
}

#[test]
fn configured_headers_are_sent_and_missing_ones_fail() {
    let m = mock(Spec {
        mode: Mode::Json,
        tools: TOOLS,
        token: Some("tok-1"),
    });
    let d = Doctor::new();
    d.user_servers(json!({"remote": {"type": "http", "url": m.url("/mcp"),
        "headers": {"Authorization": "Bearer ${MOCK_TOKEN}"}}}));
    healthy(&d, &[("MOCK_TOKEN", "tok-1")]);
    fails(&d, &[("MOCK_TOKEN", "wrong")], "HTTP 401");
    fails(&d, &[], "${MOCK_TOKEN} is not set");
    // headersHelper's headers override the static ones.
    d.user_servers(json!({"remote": {"type": "http", "url": m.url("/mcp"),
        "headers": {"Authorization": "Bearer stale"},
        "headersHelper": "printf '{\"Authorization\": \"Bearer tok-%s\"}' 1"}}));
    healthy(&d, &[]);
    d.user_servers(json!({"remote": {"type": "http", "url": m.url("/mcp"),
        "headersHelper": "echo not json"}}));
    fails(&d, &[], "headersHelper");
    // A value that would add a header line of its own is refused before it is sent.
    d.user_servers(json!({"remote": {"type": "http", "url": m.url("/mcp"),
        "headers": {"X-A": "a\r\nAuthorization: Bearer tok-1"}}}));
    fails(&d, &[], "not a valid HTTP header");
}

/// Codex's hooks.json, the entry `--print-config --client codex` prints, with `matcher`.
fn codex_hooks(d: &Doctor, matcher: Option<&str>) {
    let home = d.path("codex");
    std::fs::create_dir_all(&home).unwrap();
    let printed = d.run_bare(&["hook", "send-gate", "--print-config", "--client", "codex"]);
    assert_eq!(printed.code, 0);
    // A heading line, then the hooks.json object, then the config.toml tables.
    let start = printed.stdout.find('{').expect("a JSON object");
    let end = printed.stdout.find("\n}\n").expect("a JSON object first") + 2;
    let mut hooks: Value = serde_json::from_str(&printed.stdout[start..end]).unwrap();
    if let Some(matcher) = matcher {
        hooks["hooks"]["PreToolUse"][0]["matcher"] = json!(matcher);
    }
    std::fs::write(home.join("hooks.json"), hooks.to_string()).unwrap();
}

#[test]
fn codex_url_servers_are_read_with_their_bearer_token() {
    let m = mock(Spec {
        mode: Mode::Stream,
        tools: TOOLS,
        token: Some("tok-2"),
    });
    let d = Doctor::new();
    codex_hooks(&d, None);
    let codex = d.path("codex");
    std::fs::write(
        codex.join("config.toml"),
        format!(
            "[mcp_servers.remote]\nurl = \"{}\"\nbearer_token_env_var = \"MOCK_TOKEN\"\n",
            m.url("/mcp")
        ),
    )
    .unwrap();
    let env = [
        ("CODEX_HOME", codex.to_str().unwrap()),
        ("MOCK_TOKEN", "tok-2"),
    ];
    let stdout = healthy(&d, &env);
    assert!(
        line_of(&stdout, "MCP server \"remote\"").contains("(Codex)"),
        "{stdout}"
    );
    fails(
        &d,
        &[("CODEX_HOME", codex.to_str().unwrap())],
        "bearer_token_env_var \"MOCK_TOKEN\" is not set",
    );
    codex_hooks(&d, Some("mcp__.*(send|draft|schedule|reply|email)"));
    fails(&d, &env, "mcp__remote__SendMail");
    // A tool Codex never offers (disabled_tools) needs no route.
    std::fs::write(
        codex.join("config.toml"),
        format!(
            "[mcp_servers.remote]\nurl = \"{}\"\nbearer_token_env_var = \"MOCK_TOKEN\"\ndisabled_tools = [\"SendMail\"]\n",
            m.url("/mcp")
        ),
    )
    .unwrap();
    let out = d.doctor_env(&env);
    assert!(
        line_of(&out.stdout, "MCP server \"remote\"").contains("1 tools, 0 that can send"),
        "{}",
        out.stdout
    );
}
