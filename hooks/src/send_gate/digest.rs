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
pub(crate) fn canonical_message(call: &ToolCall) -> String {
    let mut envelope = Map::new();
    envelope.insert("schema".into(), Value::String(SCHEMA.into()));
    envelope.insert("tool_name".into(), Value::String(call.tool_name.clone()));
    envelope.insert("tool_input".into(), Value::Object(call.tool_input.clone()));
    let mut out = String::new();
    write_canonical(&Value::Object(envelope), &mut out);
    out
}

/// Lower-case hex SHA-256 of [`canonical_message`].
pub(crate) fn message_digest(call: &ToolCall) -> String {
    hex(&Sha256::digest(canonical_message(call).as_bytes()))
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
fn write_canonical(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort_unstable_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
            out.push('{');
            for (i, key) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_string(key, out);
                out.push(':');
                if let Some(v) = map.get(key) {
                    write_canonical(v, out);
                }
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(item, out);
            }
            out.push(']');
        }
        Value::String(s) => write_string(s, out),
        Value::Number(n) => out.push_str(&n.to_string()),
        Value::Bool(true) => out.push_str("true"),
        Value::Bool(false) => out.push_str("false"),
        Value::Null => out.push_str("null"),
    }
}

fn write_string(s: &str, out: &mut String) {
    // Serializing a &str cannot fail; the fallback keeps this total anyway.
    match serde_json::to_string(s) {
        Ok(quoted) => out.push_str(&quoted),
        Err(_) => out.push_str("\"\""),
    }
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
    fn key_order_and_whitespace_do_not_matter() {
        let a = call(r#"{"tool_name":"t","tool_input":{"b":1,"a":2}}"#);
        let b = call("{ \"tool_input\" : { \"a\" : 2 , \"b\" : 1 } , \"tool_name\" : \"t\" }");
        assert_eq!(message_digest(&a), message_digest(&b));
        assert!(is_digest(&message_digest(&a)));
    }
}
