//! The doctor's MCP transport for servers reached by URL: Streamable HTTP (Claude Code's
//! `"type": "http"`, Codex's `url =`) and the older HTTP+SSE transport (`"type": "sse"`),
//! spoken as HTTP/1.1 over std's `TcpStream`, one connection a request.
//!
//! Plain `http://` only: `https://` is refused with a message saying so (and the doctor's
//! check fails), since a TLS stack (rustls and a crypto provider) would be the largest
//! dependency of the crate for one diagnostic. Everything is bounded: one deadline for the
//! whole conversation, checked before every read and write; [`MAX_HEADER_BYTES`] of
//! status line and headers; the caller's cap on all bytes read.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{Shutdown, TcpStream, ToSocketAddrs};
use std::sync::mpsc;
use std::time::Instant;

use serde_json::Value;

/// Status line and headers of one answer, in bytes, beyond which it is refused.
const MAX_HEADER_BYTES: u64 = 64 * 1024;
/// Lines of one answer's headers beyond which it is refused.
const MAX_HEADERS: usize = 200;

/// An `http://` URL, split as a request needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Url {
    host: String,
    port: u16,
    /// Path and query, never empty (`/` at least); the fragment is dropped.
    target: String,
}

impl Url {
    /// Parses `text`, refusing what the doctor cannot or should not reach: another scheme
    /// (`https` included), credentials in the URL, spaces or control characters.
    pub(crate) fn parse(text: &str) -> Result<Self, String> {
        if text.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err("the URL holds white space or a control character".into());
        }
        let (scheme, rest) = text
            .split_once("://")
            .ok_or("the URL has no scheme (http://…)")?;
        if scheme.eq_ignore_ascii_case("https") {
            return Err("https is not supported: the doctor speaks plain http only (it carries no TLS stack), so this server's tools are unchecked".into());
        }
        if !scheme.eq_ignore_ascii_case("http") {
            return Err(format!("the scheme {scheme:?} is not http"));
        }
        let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
        let (authority, tail) = rest.split_at(end);
        if authority.contains('@') {
            return Err("credentials in the URL are refused; configure a header".into());
        }
        let (host, port) = match authority.strip_prefix('[') {
            Some(v6) => {
                let (host, after) = v6.split_once(']').ok_or("an unclosed [ in the host")?;
                (host, after.strip_prefix(':'))
            }
            None => match authority.rsplit_once(':') {
                Some((host, port)) => (host, Some(port)),
                None => (authority, None),
            },
        };
        if host.is_empty() {
            return Err("the URL has no host".into());
        }
        let port = match port {
            None | Some("") => 80,
            Some(p) => p
                .parse::<u16>()
                .map_err(|_| format!("the port {p:?} is not a number up to 65535"))?,
        };
        let tail = tail.split('#').next().unwrap_or_default();
        let target = if tail.starts_with('/') {
            tail.to_owned()
        } else {
            format!("/{tail}")
        };
        Ok(Self {
            host: host.to_owned(),
            port,
            target,
        })
    }

    /// Where an HTTP+SSE server's `endpoint` event points: a path, a relative reference or
    /// an absolute URL. It must stay on this URL's host and port (the transport's own rule),
    /// so a server cannot make the doctor post elsewhere.
    fn join(&self, reference: &str) -> Result<Self, String> {
        if reference.contains("://") {
            let url = Self::parse(reference)?;
            if !url.host.eq_ignore_ascii_case(&self.host) || url.port != self.port {
                return Err(format!(
                    "the endpoint {reference:?} is on another host than the event stream"
                ));
            }
            return Ok(url);
        }
        if reference.starts_with("//") {
            return Err(format!("the endpoint {reference:?} names another host"));
        }
        if reference
            .chars()
            .any(|c| c.is_whitespace() || c.is_control())
        {
            return Err("the endpoint holds white space or a control character".into());
        }
        let target = if reference.starts_with('/') {
            reference.to_owned()
        } else {
            let path = self.target.split('?').next().unwrap_or_default();
            let dir = path.rsplit_once('/').map_or("", |(dir, _)| dir);
            format!("{dir}/{reference}")
        };
        Ok(Self {
            host: self.host.clone(),
            port: self.port,
            target,
        })
    }

    /// The `Host` header's value.
    fn authority(&self) -> String {
        let host = if self.host.contains(':') {
            format!("[{}]", self.host)
        } else {
            self.host.clone()
        };
        if self.port == 80 {
            host
        } else {
            format!("{host}:{}", self.port)
        }
    }
}

/// What a conversation may spend: a deadline and a byte budget, shared by every request.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Budget {
    pub(crate) deadline: Instant,
    /// Bytes one answer may hold (status line, headers and body).
    pub(crate) max_bytes: u64,
}

impl Budget {
    fn left(&self) -> io::Result<std::time::Duration> {
        let left = self.deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            Err(io::Error::new(io::ErrorKind::TimedOut, "out of time"))
        } else {
            Ok(left)
        }
    }
}

/// A socket whose every read is held to the deadline and the byte budget.
struct Timed {
    stream: TcpStream,
    budget: Budget,
    read: u64,
}

impl Read for Timed {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.stream.set_read_timeout(Some(self.budget.left()?))?;
        let n = self.stream.read(buf)?;
        self.read = self
            .read
            .saturating_add(u64::try_from(n).unwrap_or(u64::MAX));
        if self.read > self.budget.max_bytes {
            return Err(io::Error::other(format!(
                "the answer is larger than {} bytes",
                self.budget.max_bytes
            )));
        }
        Ok(n)
    }
}

/// How an answer's body ends.
#[derive(Debug, Clone, Copy)]
enum Framing {
    Length(u64),
    /// `left` bytes of the current chunk remain; `started` once a chunk was read, so its
    /// closing CRLF is due before the next size line.
    Chunked {
        left: u64,
        started: bool,
        done: bool,
    },
    Close,
}

/// An answer's body, decoded from its framing.
pub(crate) struct Body {
    inner: BufReader<Timed>,
    framing: Framing,
}

fn bad(what: impl Into<String>) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what.into())
}

impl Body {
    fn line(&mut self) -> io::Result<String> {
        let mut line = Vec::new();
        self.inner.read_until(b'\n', &mut line)?;
        if !line.ends_with(b"\n") {
            return Err(bad("the answer ended inside a chunk's framing"));
        }
        String::from_utf8(line)
            .map(|l| l.trim_end().to_owned())
            .map_err(|_| bad("a chunk's framing is not text"))
    }
}

impl Read for Body {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let want = u64::try_from(buf.len()).unwrap_or(u64::MAX);
        match &mut self.framing {
            Framing::Close => self.inner.read(buf),
            Framing::Length(left) => {
                if *left == 0 {
                    return Ok(0);
                }
                let cap = usize::try_from((*left).min(want)).unwrap_or(buf.len());
                let n = self.inner.read(buf.get_mut(..cap).unwrap_or_default())?;
                if n == 0 {
                    return Err(bad("the answer ended before its Content-Length"));
                }
                *left = left.saturating_sub(u64::try_from(n).unwrap_or(u64::MAX));
                Ok(n)
            }
            Framing::Chunked { .. } => self.read_chunked(buf),
        }
    }
}

impl Body {
    fn read_chunked(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            let Framing::Chunked {
                left,
                started,
                done,
            } = self.framing
            else {
                return Ok(0);
            };
            if done {
                return Ok(0);
            }
            if left > 0 {
                let want = u64::try_from(buf.len()).unwrap_or(u64::MAX);
                let cap = usize::try_from(left.min(want)).unwrap_or(buf.len());
                let n = self.inner.read(buf.get_mut(..cap).unwrap_or_default())?;
                if n == 0 {
                    return Err(bad("the answer ended inside a chunk"));
                }
                self.framing = Framing::Chunked {
                    left: left.saturating_sub(u64::try_from(n).unwrap_or(u64::MAX)),
                    started,
                    done,
                };
                return Ok(n);
            }
            if started && !self.line()?.is_empty() {
                return Err(bad("a chunk is longer than its size"));
            }
            let size_line = self.line()?;
            let size = size_line.split(';').next().unwrap_or_default().trim();
            let size = u64::from_str_radix(size, 16)
                .map_err(|_| bad(format!("a chunk size {size:?} is not hex")))?;
            if size == 0 {
                // Trailer fields, then the blank line that ends the body.
                while !self.line()?.is_empty() {}
            }
            self.framing = Framing::Chunked {
                left: size,
                started: true,
                done: size == 0,
            };
        }
    }
}

/// One answer: its status, headers (names lower-cased) and body.
pub(crate) struct Response {
    pub(crate) status: u16,
    headers: Vec<(String, String)>,
    pub(crate) body: Body,
    /// The socket, to close an event stream the server would keep open.
    closer: TcpStream,
}

impl Response {
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// Whether the body is of media type `kind` (parameters such as `charset` aside).
    pub(crate) fn is(&self, kind: &str) -> bool {
        self.header("content-type").is_some_and(|t| {
            t.split(';')
                .next()
                .is_some_and(|t| t.trim().eq_ignore_ascii_case(kind))
        })
    }

    /// The whole body (within the budget).
    pub(crate) fn text(mut self) -> Result<Vec<u8>, String> {
        let mut out = Vec::new();
        self.body
            .read_to_end(&mut out)
            .map_err(|e| format!("the answer's body is unreadable ({e})"))?;
        Ok(out)
    }

    pub(crate) fn close(&self) {
        let _ = self.closer.shutdown(Shutdown::Both);
    }
}

/// A header name is an HTTP token; a value holds no CR, LF or NUL (so a configured value
/// cannot add a header or a request of its own).
fn valid_header(name: &str, value: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
        && !value.bytes().any(|b| matches!(b, b'\r' | b'\n' | 0))
}

/// Sends one request and reads the answer's status line and headers.
pub(crate) fn request(
    url: &Url,
    method: &str,
    headers: &[(String, String)],
    body: Option<&[u8]>,
    budget: Budget,
) -> Result<Response, String> {
    let io_err = |what: &str, e: io::Error| {
        if e.kind() == io::ErrorKind::TimedOut || e.kind() == io::ErrorKind::WouldBlock {
            format!("{what}: no answer in time")
        } else {
            format!("{what}: {e}")
        }
    };
    let addrs: Vec<_> = (url.host.as_str(), url.port)
        .to_socket_addrs()
        .map_err(|e| format!("cannot resolve {}: {e}", url.host))?
        .collect();
    let mut last = format!("{} resolves to no address", url.host);
    let mut stream = None;
    for addr in addrs {
        let left = budget.left().map_err(|e| io_err("connect", e))?;
        match TcpStream::connect_timeout(&addr, left) {
            Ok(s) => {
                stream = Some(s);
                break;
            }
            Err(e) => last = io_err(&format!("cannot connect to {addr}"), e),
        }
    }
    let mut stream = stream.ok_or(last)?;
    let mut head = format!(
        "{method} {} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\nUser-Agent: airlock-guard-doctor/{}\r\n",
        url.target,
        url.authority(),
        env!("CARGO_PKG_VERSION")
    );
    for (name, value) in headers {
        if !valid_header(name, value) {
            return Err(format!(
                "the header {name:?} is not a valid HTTP header (a name that is not a token, or a line break in its value)"
            ));
        }
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    if let Some(body) = body {
        head.push_str(&format!("Content-Length: {}\r\n", body.len()));
    }
    head.push_str("\r\n");
    let mut out = head.into_bytes();
    out.extend_from_slice(body.unwrap_or_default());
    stream
        .set_write_timeout(Some(budget.left().map_err(|e| io_err("send", e))?))
        .and_then(|()| stream.write_all(&out))
        .and_then(|()| stream.flush())
        .map_err(|e| io_err("send", e))?;
    let closer = stream
        .try_clone()
        .map_err(|e| format!("the socket cannot be shared ({e})"))?;
    let mut reader = BufReader::new(Timed {
        stream,
        budget,
        read: 0,
    });
    loop {
        let (status, headers) = read_head(&mut reader).map_err(|e| io_err("answer", e))?;
        // An interim answer (100 Continue and the like) comes before the real one.
        if (100..200).contains(&status) && status != 101 {
            continue;
        }
        let value = |name: &str| {
            headers
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, v)| v.as_str())
        };
        let framing = if method == "HEAD" || status == 204 || status == 304 {
            Framing::Length(0)
        } else if value("transfer-encoding").is_some_and(|t| {
            t.rsplit(',')
                .next()
                .is_some_and(|t| t.trim().eq_ignore_ascii_case("chunked"))
        }) {
            Framing::Chunked {
                left: 0,
                started: false,
                done: false,
            }
        } else if let Some(length) = value("content-length") {
            Framing::Length(
                length
                    .trim()
                    .parse()
                    .map_err(|_| format!("answer: Content-Length {length:?} is not a number"))?,
            )
        } else {
            Framing::Close
        };
        return Ok(Response {
            status,
            headers,
            body: Body {
                inner: reader,
                framing,
            },
            closer,
        });
    }
}

type Head = (u16, Vec<(String, String)>);

fn read_head(reader: &mut BufReader<Timed>) -> io::Result<Head> {
    let mut limited = reader.by_ref().take(MAX_HEADER_BYTES);
    let mut line = |what: &str| -> io::Result<String> {
        let mut bytes = Vec::new();
        limited.read_until(b'\n', &mut bytes)?;
        if !bytes.ends_with(b"\n") {
            return Err(bad(if bytes.is_empty() {
                format!("the server closed the connection before its {what}")
            } else {
                format!("its {what} is cut short or longer than {MAX_HEADER_BYTES} bytes")
            }));
        }
        String::from_utf8(bytes)
            .map(|l| l.trim_end_matches(['\r', '\n']).to_owned())
            .map_err(|_| bad(format!("its {what} is not text")))
    };
    let status_line = line("status line")?;
    let mut parts = status_line.splitn(3, ' ');
    let version = parts.next().unwrap_or_default();
    let code = parts.next().unwrap_or_default();
    if !version.starts_with("HTTP/1.") || code.len() != 3 {
        return Err(bad(format!(
            "not an HTTP/1 answer: {:?}",
            status_line.chars().take(80).collect::<String>()
        )));
    }
    let status = code
        .parse::<u16>()
        .map_err(|_| bad(format!("the status {code:?} is not a number")))?;
    let mut headers = Vec::new();
    loop {
        let field = line("headers")?;
        if field.is_empty() {
            return Ok((status, headers));
        }
        if field.starts_with([' ', '\t']) {
            return Err(bad("a folded header line (obsolete, refused)"));
        }
        let (name, value) = field
            .split_once(':')
            .ok_or_else(|| bad("a header line without a colon"))?;
        headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
        if headers.len() > MAX_HEADERS {
            return Err(bad(format!("more than {MAX_HEADERS} headers")));
        }
    }
}

/// One server-sent event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Event {
    /// `event:`, else `message`.
    pub(crate) kind: String,
    /// The `data:` lines, joined by line feeds.
    pub(crate) data: String,
}

/// A `text/event-stream` reader (the WHATWG rules): lines end at CR, LF or CRLF; a blank
/// line dispatches; `:` starts a comment; an event without data is not dispatched.
pub(crate) struct Events<R> {
    inner: R,
    /// A CR ended the last line, so an LF that follows belongs to it.
    after_cr: bool,
}

impl<R: BufRead> Events<R> {
    pub(crate) fn new(inner: R) -> Self {
        Self {
            inner,
            after_cr: false,
        }
    }

    /// The next line, or `None` at the end of the stream (a line the end cuts short is
    /// dropped with its event, as the rules say).
    fn line(&mut self) -> io::Result<Option<Vec<u8>>> {
        let mut line = Vec::new();
        loop {
            let buf = self.inner.fill_buf()?;
            if buf.is_empty() {
                return Ok(None);
            }
            if self.after_cr {
                self.after_cr = false;
                if buf.first() == Some(&b'\n') {
                    self.inner.consume(1);
                    continue;
                }
            }
            match buf.iter().position(|b| matches!(b, b'\n' | b'\r')) {
                Some(at) => {
                    let (text, rest) = buf.split_at(at);
                    line.extend_from_slice(text);
                    self.after_cr = rest.first() == Some(&b'\r');
                    self.inner.consume(at.saturating_add(1));
                    return Ok(Some(line));
                }
                None => {
                    let n = buf.len();
                    line.extend_from_slice(buf);
                    self.inner.consume(n);
                }
            }
        }
    }

    /// The next event, `Ok(None)` at the end of the stream.
    pub(crate) fn next_event(&mut self) -> Result<Option<Event>, String> {
        let mut kind = String::new();
        let mut data = String::new();
        let mut any_data = false;
        loop {
            let line = self
                .line()
                .map_err(|e| format!("the event stream is unreadable ({e})"))?;
            let Some(line) = line else {
                return Ok(None);
            };
            let line = String::from_utf8(line)
                .map_err(|_| "the event stream is not UTF-8 text".to_owned())?;
            if line.is_empty() {
                if any_data {
                    if data.ends_with('\n') {
                        data.pop();
                    }
                    let kind = if kind.is_empty() {
                        "message".to_owned()
                    } else {
                        kind
                    };
                    return Ok(Some(Event { kind, data }));
                }
                kind.clear();
                continue;
            }
            if line.starts_with(':') {
                continue;
            }
            let (field, value) = line.split_once(':').unwrap_or((line.as_str(), ""));
            let value = value.strip_prefix(' ').unwrap_or(value);
            match field {
                "event" => value.clone_into(&mut kind),
                "data" => {
                    data.push_str(value);
                    data.push('\n');
                    any_data = true;
                }
                _ => {}
            }
        }
    }
}

/// A JSON-RPC message of an event or a body; garbage is an error, not a skip: a server
/// that answers it cannot be vouched for.
fn json_of(text: &[u8], what: &str) -> Result<Value, String> {
    serde_json::from_slice(text).map_err(|e| {
        let shown: String = String::from_utf8_lossy(text).chars().take(60).collect();
        format!("{what} is not JSON ({e}): {shown:?}")
    })
}

/// The answer to request `id` among `message` (a message or a batch), if it is one.
fn answer_in(message: Value, id: u64) -> Option<Value> {
    let is_answer = |m: &Value| m.get("id") == Some(&Value::from(id)) && m.get("method").is_none();
    match message {
        Value::Array(batch) => batch.into_iter().find(is_answer),
        m => is_answer(&m).then_some(m),
    }
}

fn status_error(status: u16) -> String {
    match status {
        401 | 403 => format!(
            "HTTP {status}: the server wants authorization; the doctor sends the configured headers only (it does not run OAuth), so configure a token header or check this server's tools by hand"
        ),
        _ => format!("HTTP {status}"),
    }
}

/// One side of a conversation: requests answered by id, notifications unanswered.
pub(crate) trait Rpc {
    /// Sends request `id` and returns the answering message (result or error inside).
    fn call(&mut self, id: u64, message: &Value) -> Result<Value, String>;
    /// Sends a notification.
    fn notify(&mut self, message: &Value) -> Result<(), String>;
}

/// Streamable HTTP: every message is POSTed to the one URL; an answer comes back as JSON
/// or as an event stream; the session id the server hands out with `initialize` goes with
/// every later request, with the protocol version agreed.
pub(crate) struct Streamable {
    pub(crate) url: Url,
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) budget: Budget,
    session: Option<String>,
    protocol: Option<String>,
}

impl Streamable {
    pub(crate) fn new(url: Url, headers: Vec<(String, String)>, budget: Budget) -> Self {
        Self {
            url,
            headers,
            budget,
            session: None,
            protocol: None,
        }
    }

    fn post(&mut self, message: &Value) -> Result<Response, String> {
        let mut headers = self.headers.clone();
        headers.push(("Content-Type".into(), "application/json".into()));
        headers.push((
            "Accept".into(),
            "application/json, text/event-stream".into(),
        ));
        if let Some(session) = &self.session {
            headers.push(("Mcp-Session-Id".into(), session.clone()));
        }
        if let Some(version) = &self.protocol {
            headers.push(("MCP-Protocol-Version".into(), version.clone()));
        }
        let body = message.to_string();
        let response = request(
            &self.url,
            "POST",
            &headers,
            Some(body.as_bytes()),
            self.budget,
        )?;
        if !(200..300).contains(&response.status) {
            if response.status == 404 && self.session.is_some() {
                return Err("HTTP 404: the server dropped the session".into());
            }
            return Err(status_error(response.status));
        }
        Ok(response)
    }

    /// Ends the session, as a client should; what the server answers changes nothing.
    pub(crate) fn end(&mut self) {
        if let Some(session) = self.session.take() {
            let mut headers = self.headers.clone();
            headers.push(("Mcp-Session-Id".into(), session));
            if let Ok(response) = request(&self.url, "DELETE", &headers, None, self.budget) {
                response.close();
            }
        }
    }
}

impl Rpc for Streamable {
    fn call(&mut self, id: u64, message: &Value) -> Result<Value, String> {
        let mut response = self.post(message)?;
        if let Some(session) = response.header("mcp-session-id") {
            if session.is_empty() || !session.bytes().all(|b| (0x21..=0x7e).contains(&b)) {
                return Err(
                    "the server's Mcp-Session-Id holds characters outside visible ASCII".into(),
                );
            }
            self.session = Some(session.to_owned());
        }
        let answer = if response.is("text/event-stream") {
            let found = {
                let mut events = Events::new(BufReader::new(&mut response.body));
                loop {
                    let Some(event) = events.next_event()? else {
                        break Err("the event stream ended before the answer".to_owned());
                    };
                    if event.kind != "message" {
                        continue;
                    }
                    if let Some(answer) = answer_in(json_of(event.data.as_bytes(), "an event")?, id)
                    {
                        break Ok(answer);
                    }
                }
            };
            // The server may hold the stream open for more; the doctor has its answer.
            response.close();
            found?
        } else if response.is("application/json") {
            let body = response.text()?;
            answer_in(json_of(&body, "the answer")?, id)
                .ok_or("the answer does not answer the request (another id)")?
        } else {
            let kind = response.header("content-type").unwrap_or("none").to_owned();
            response.close();
            return Err(format!(
                "an answer of type {kind:?} (neither JSON nor an event stream)"
            ));
        };
        if message.get("method").and_then(Value::as_str) == Some("initialize") {
            self.protocol = answer
                .get("result")
                .and_then(|r| r.get("protocolVersion"))
                .and_then(Value::as_str)
                .map(str::to_owned);
        }
        Ok(answer)
    }

    fn notify(&mut self, message: &Value) -> Result<(), String> {
        let response = self.post(message)?;
        response.close();
        Ok(())
    }
}

/// HTTP+SSE (protocol 2024-11-05): a GET opens the event stream, whose first `endpoint`
/// event names where to POST; every answer arrives on the stream as a `message` event.
pub(crate) struct LegacySse {
    post_to: Url,
    headers: Vec<(String, String)>,
    budget: Budget,
    events: mpsc::Receiver<Result<Event, String>>,
    stream: TcpStream,
}

impl LegacySse {
    pub(crate) fn open(
        url: &Url,
        headers: Vec<(String, String)>,
        budget: Budget,
    ) -> Result<Self, String> {
        let mut get = headers.clone();
        get.push(("Accept".into(), "text/event-stream".into()));
        let response = request(url, "GET", &get, None, budget)?;
        if response.status != 200 {
            return Err(status_error(response.status));
        }
        if !response.is("text/event-stream") {
            let kind = response.header("content-type").unwrap_or("none").to_owned();
            return Err(format!("the GET answer is not an event stream ({kind:?})"));
        }
        let stream = response
            .closer
            .try_clone()
            .map_err(|e| format!("the socket cannot be shared ({e})"))?;
        let (tx, events) = mpsc::channel();
        let body = response.body;
        std::thread::Builder::new()
            .name("doctor-mcp-sse".into())
            .spawn(move || {
                let mut events = Events::new(BufReader::new(body));
                loop {
                    let next = events.next_event();
                    let end = !matches!(next, Ok(Some(_)));
                    let item = next.and_then(|e| e.ok_or_else(|| "the event stream ended".into()));
                    if tx.send(item).is_err() || end {
                        return;
                    }
                }
            })
            .map_err(|e| format!("cannot start a reader thread: {e}"))?;
        let mut sse = Self {
            post_to: url.clone(),
            headers,
            budget,
            events,
            stream,
        };
        let endpoint = loop {
            let event = sse
                .next_event()
                .map_err(|e| format!("before its endpoint: {e}"))?;
            if event.kind == "endpoint" {
                break event.data;
            }
        };
        sse.post_to = url.join(endpoint.trim())?;
        Ok(sse)
    }

    fn next_event(&self) -> Result<Event, String> {
        let left = self.budget.left().map_err(|_| "no answer in time")?;
        match self.events.recv_timeout(left) {
            Ok(event) => event,
            Err(mpsc::RecvTimeoutError::Timeout) => Err("no answer in time".into()),
            Err(mpsc::RecvTimeoutError::Disconnected) => Err("the event stream ended".into()),
        }
    }

    fn post(&self, message: &Value) -> Result<(), String> {
        let mut headers = self.headers.clone();
        headers.push(("Content-Type".into(), "application/json".into()));
        let body = message.to_string();
        let response = request(
            &self.post_to,
            "POST",
            &headers,
            Some(body.as_bytes()),
            self.budget,
        )?;
        response.close();
        if (200..300).contains(&response.status) {
            Ok(())
        } else {
            Err(status_error(response.status))
        }
    }
}

impl Drop for LegacySse {
    fn drop(&mut self) {
        let _ = self.stream.shutdown(Shutdown::Both);
    }
}

impl Rpc for LegacySse {
    fn call(&mut self, id: u64, message: &Value) -> Result<Value, String> {
        self.post(message)?;
        loop {
            let event = self.next_event()?;
            if event.kind != "message" {
                continue;
            }
            if let Some(answer) = answer_in(json_of(event.data.as_bytes(), "an event")?, id) {
                return Ok(answer);
            }
        }
    }

    fn notify(&mut self, message: &Value) -> Result<(), String> {
        self.post(message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_read_or_refused() {
        let u = Url::parse("http://127.0.0.1:8080/mcp?x=1#frag").unwrap();
        assert_eq!(
            (u.host.as_str(), u.port, u.target.as_str()),
            ("127.0.0.1", 8080, "/mcp?x=1")
        );
        let u = Url::parse("HTTP://[::1]/").unwrap();
        assert_eq!((u.host.as_str(), u.port), ("::1", 80));
        assert_eq!(u.authority(), "[::1]");
        assert_eq!(Url::parse("http://h").unwrap().target, "/");
        for bad in [
            "https://h/mcp",
            "ftp://h",
            "h/mcp",
            "http://u:p@h/",
            "http://h:99999/",
            "http:///x",
            "http://h/a b",
        ] {
            assert!(Url::parse(bad).is_err(), "{bad}");
        }
        assert!(
            Url::parse("https://h")
                .unwrap_err()
                .contains("https is not supported")
        );
    }

    #[test]
    fn an_endpoint_stays_on_the_streams_host() {
        let base = Url::parse("http://h:81/a/sse").unwrap();
        assert_eq!(base.join("/messages?s=1").unwrap().target, "/messages?s=1");
        assert_eq!(base.join("messages").unwrap().target, "/a/messages");
        assert_eq!(
            base.join("http://H:81/m").unwrap().target,
            "/m",
            "same host, other case"
        );
        assert!(base.join("http://evil:81/m").is_err());
        assert!(base.join("http://h:82/m").is_err());
        assert!(base.join("//evil/m").is_err());
    }

    fn events(text: &str) -> Result<Vec<Event>, String> {
        let mut reader = Events::new(BufReader::with_capacity(3, text.as_bytes()));
        let mut out = Vec::new();
        while let Some(event) = reader.next_event()? {
            out.push(event);
        }
        Ok(out)
    }

    #[test]
    fn event_streams_follow_the_rules() {
        let got = events(
            ": comment\r\nevent: endpoint\r\ndata: /m?s=1\r\n\r\ndata:a\rdata: b\r\rid: 7\n\ndata: cut",
        )
        .unwrap();
        assert_eq!(
            got,
            [
                Event {
                    kind: "endpoint".into(),
                    data: "/m?s=1".into()
                },
                Event {
                    kind: "message".into(),
                    data: "a\nb".into()
                },
            ]
        );
        assert!(events("data: \u{0}ok\n\n").is_ok());
        assert!(Events::new(&b"data: \xff\n\n"[..]).next_event().is_err());
    }

    #[test]
    fn garbage_is_an_error() {
        assert!(json_of(b"<html>", "the answer").is_err());
        assert_eq!(
            answer_in(
                serde_json::json!([{"id": 1, "method": "x"}, {"id": 1, "result": {}}]),
                1
            ),
            Some(serde_json::json!({"id": 1, "result": {}}))
        );
        assert_eq!(
            answer_in(serde_json::json!({"id": 2, "result": {}}), 1),
            None
        );
    }

    #[test]
    fn headers_cannot_smuggle_lines() {
        assert!(valid_header("Authorization", "Bearer x"));
        assert!(!valid_header("X-A", "v\r\nX-B: w"));
        assert!(!valid_header("X A", "v"));
        assert!(!valid_header("", "v"));
    }
}
