//! Step 5: the message digest that binds a ledger to one exact tool call.
//!
//! The anchor hashed the message text only, so a ledger written for one
//! recipient or thread also passed the same words sent elsewhere. The digest
//! here covers the whole `tool_input`. Keys are sorted by this code, not by
//! trusting serde_json's map type: a `preserve_order` feature switched on by
//! any crate in the build would otherwise change every digest silently.

use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use super::input::ToolCall;

/// Names the canonical form, so a future form can never collide with this one.
pub(crate) const SCHEMA: &str = "airlock-message-v1";

/// The canonical JSON of `{"schema", "tool_input", "tool_name"}` (see SEND_GATE.md).
#[cfg(test)]
pub(crate) fn canonical_message(call: &ToolCall) -> String {
    let mut out = String::new();
    write_envelope(call, &mut out);
    out
}

/// Lower-case hex SHA-256 of [`canonical_message`], hashed as it is written
/// so that an 8 MiB call is never copied whole once more.
pub(crate) fn message_digest(call: &ToolCall) -> String {
    let mut hasher = Hashing(Sha256::new());
    write_envelope(call, &mut hasher);
    hex(&hasher.0.finalize())
}

/// Where canonical JSON goes: a string (to show it) or a hash (to digest it).
trait Sink {
    fn put(&mut self, s: &str);
}

impl Sink for String {
    fn put(&mut self, s: &str) {
        self.push_str(s);
    }
}

struct Hashing(Sha256);

impl Sink for Hashing {
    fn put(&mut self, s: &str) {
        self.0.update(s.as_bytes());
    }
}

fn write_envelope(call: &ToolCall, out: &mut impl Sink) {
    // The envelope's keys are written in their sorted order by hand, so the
    // (possibly large) input is never cloned into a wrapper object.
    out.put("{\"schema\":");
    write_string(SCHEMA, out);
    out.put(",\"tool_input\":");
    write_object(&call.tool_input, out);
    out.put(",\"tool_name\":");
    write_string(&call.tool_name, out);
    out.put("}");
}

pub(crate) fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    bytes.iter().fold(String::with_capacity(64), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

/// Whether `s` is a digest as this gate writes it: 64 lower-case hex digits.
pub(crate) fn is_digest(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// Sorted keys (by UTF-8 bytes, which is code point order), no whitespace,
/// strings escaped exactly as serde_json escapes them.
fn write_object(map: &Map<String, Value>, out: &mut impl Sink) {
    let mut keys: Vec<&String> = map.keys().collect();
    keys.sort_unstable_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
    out.put("{");
    for (i, key) in keys.into_iter().enumerate() {
        if i > 0 {
            out.put(",");
        }
        write_string(key, out);
        out.put(":");
        if let Some(v) = map.get(key) {
            write_canonical(v, out);
        }
    }
    out.put("}");
}

fn write_canonical(value: &Value, out: &mut impl Sink) {
    match value {
        Value::Object(map) => write_object(map, out),
        Value::Array(items) => {
            out.put("[");
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.put(",");
                }
                write_canonical(item, out);
            }
            out.put("]");
        }
        Value::String(s) => write_string(s, out),
        Value::Number(n) => out.put(&canonical_number(n)),
        Value::Bool(true) => out.put("true"),
        Value::Bool(false) => out.put("false"),
        Value::Null => out.put("null"),
    }
}

/// Integers exactly as parsed; every other number as JavaScript's
/// `JSON.stringify` writes the double nearest to it (the parser rounds
/// correctly: serde_json's `float_roundtrip`). Two numbers get one form
/// exactly when every consumer of the call, the MCP client's JSON.parse
/// included, reads them as one value.
pub(crate) fn canonical_number(n: &serde_json::Number) -> String {
    if n.is_u64() || n.is_i64() {
        return n.to_string();
    }
    n.as_f64()
        .map_or_else(|| n.to_string(), crate::json::number)
}

fn write_string(s: &str, out: &mut impl Sink) {
    out.put("\"");
    let mut run_start = 0usize;
    for (i, b) in s.bytes().enumerate() {
        let escape: Option<&str> = match b {
            b'"' => Some("\\\""),
            b'\\' => Some("\\\\"),
            b'\n' => Some("\\n"),
            b'\r' => Some("\\r"),
            b'\t' => Some("\\t"),
            0x08 => Some("\\b"),
            0x0C => Some("\\f"),
            0x00..=0x1F => Some(""),
            _ => None,
        };
        let Some(escape) = escape else { continue };
        out.put(s.get(run_start..i).unwrap_or_default());
        if escape.is_empty() {
            out.put(&format!("\\u{b:04x}"));
        } else {
            out.put(escape);
        }
        run_start = i.saturating_add(1);
    }
    out.put(s.get(run_start..).unwrap_or_default());
    out.put("\"");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(json: &str) -> ToolCall {
        super::super::input::parse_tool_call(json.as_bytes()).unwrap()
    }

    #[test]
    fn canonical_form_sorts_and_escapes() {
        let c = call(
            r#"{"tool_name":"mcp__x__send","tool_input":{"z":1,"a":"\u0001\t\"\\é\u007f","m":[true,null,1.5,-2]}}"#,
        );
        assert_eq!(
            canonical_message(&c),
            "{\"schema\":\"airlock-message-v1\",\"tool_input\":{\"a\":\"\\u0001\\t\\\"\\\\é\u{7f}\",\"m\":[true,null,1.5,-2],\"z\":1},\"tool_name\":\"mcp__x__send\"}"
        );
    }

    #[test]
    fn strings_are_escaped_as_serde_json_escapes_them() {
        let all: String = (0u32..0x80)
            .chain([0x7F, 0x85, 0x2028, 0xE9, 0x1F600])
            .filter_map(char::from_u32)
            .collect();
        let mut ours = String::new();
        write_string(&all, &mut ours);
        assert_eq!(ours, serde_json::to_string(&all).unwrap());
    }

    #[test]
    fn key_order_and_whitespace_do_not_matter() {
        let a = call(r#"{"tool_name":"t","tool_input":{"b":1,"a":2}}"#);
        let b = call("{ \"tool_input\" : { \"a\" : 2 , \"b\" : 1 } , \"tool_name\" : \"t\" }");
        assert_eq!(message_digest(&a), message_digest(&b));
        assert!(is_digest(&message_digest(&a)));
    }
}
