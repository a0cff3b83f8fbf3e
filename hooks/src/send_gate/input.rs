//! Step 1: the hook's stdin, parsed under hard limits.
//!
//! The parser is a pure function of the bytes so a fuzz target can drive it.
//! Limits are enforced while parsing, not after, so a hostile document never
//! gets built in full; duplicate keys are refused because the gate and the
//! tool that finally sends could each pick a different one of them.

use std::cell::Cell;
use std::fmt;

use serde::de::{DeserializeSeed, Error as _, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

/// Largest accepted input, in bytes.
pub(crate) const MAX_INPUT_BYTES: usize = 8 * 1024 * 1024;
/// Most JSON values (objects, arrays, strings, numbers, booleans, nulls) in one document.
pub(crate) const MAX_NODES: usize = 4096;
/// Deepest nesting of objects and arrays; the top-level object is depth 1.
pub(crate) const MAX_DEPTH: usize = 32;

/// One tool call: what the gate decides about.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ToolCall {
    pub(crate) tool_name: String,
    pub(crate) tool_input: Map<String, Value>,
}

/// Parses the hook's stdin into a tool call, or says why not.
pub(crate) fn parse_tool_call(bytes: &[u8]) -> Result<ToolCall, String> {
    let value = parse_limited_json(bytes)?;
    let Value::Object(mut top) = value else {
        return Err("the tool call is not a JSON object".into());
    };
    let tool_name = match top.remove("tool_name") {
        Some(Value::String(name)) if !name.is_empty() => name,
        Some(Value::String(_)) => return Err("tool_name is empty".into()),
        Some(_) => return Err("tool_name is not a string".into()),
        None => return Err("the tool call has no tool_name".into()),
    };
    let tool_input = match top.remove("tool_input") {
        Some(Value::Object(input)) => input,
        Some(_) => return Err("tool_input is not a JSON object".into()),
        None => return Err("the tool call has no tool_input".into()),
    };
    Ok(ToolCall {
        tool_name,
        tool_input,
    })
}

/// Parses one JSON document of at most [`MAX_INPUT_BYTES`], [`MAX_NODES`]
/// values and [`MAX_DEPTH`] levels, with no duplicate keys and nothing after it.
pub(crate) fn parse_limited_json(bytes: &[u8]) -> Result<Value, String> {
    if bytes.len() > MAX_INPUT_BYTES {
        return Err(format!(
            "input is larger than {MAX_INPUT_BYTES} bytes (8 MiB)"
        ));
    }
    let text = std::str::from_utf8(bytes).map_err(|e| format!("input is not UTF-8 ({e})"))?;
    let nodes = Cell::new(0usize);
    let mut de = serde_json::Deserializer::from_str(text);
    let value = LimitedValue {
        nodes: &nodes,
        depth: 0,
    }
    .deserialize(&mut de)
    .map_err(|e| format!("input is not acceptable JSON: {e}"))?;
    de.end()
        .map_err(|e| format!("input has data after the JSON document: {e}"))?;
    Ok(value)
}

#[derive(Clone, Copy)]
struct LimitedValue<'a> {
    nodes: &'a Cell<usize>,
    /// Containers enclosing this value.
    depth: usize,
}

impl LimitedValue<'_> {
    fn count<E: serde::de::Error>(&self) -> Result<(), E> {
        let n = self.nodes.get().saturating_add(1);
        if n > MAX_NODES {
            return Err(E::custom(format_args!("more than {MAX_NODES} JSON values")));
        }
        self.nodes.set(n);
        Ok(())
    }

    fn child<E: serde::de::Error>(&self) -> Result<Self, E> {
        let depth = self.depth.saturating_add(1);
        if depth > MAX_DEPTH {
            return Err(E::custom(format_args!(
                "nested deeper than {MAX_DEPTH} levels"
            )));
        }
        Ok(Self {
            nodes: self.nodes,
            depth,
        })
    }
}

impl<'de> DeserializeSeed<'de> for LimitedValue<'_> {
    type Value = Value;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for LimitedValue<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E: serde::de::Error>(self, v: bool) -> Result<Value, E> {
        self.count()?;
        Ok(Value::Bool(v))
    }
    fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Value, E> {
        self.count()?;
        Ok(Value::from(v))
    }
    fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Value, E> {
        self.count()?;
        Ok(Value::from(v))
    }
    fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Value, E> {
        self.count()?;
        serde_json::Number::from_f64(v)
            .map(Value::Number)
            .ok_or_else(|| E::custom("a number that is not finite"))
    }
    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Value, E> {
        self.count()?;
        Ok(Value::String(v.to_owned()))
    }
    fn visit_string<E: serde::de::Error>(self, v: String) -> Result<Value, E> {
        self.count()?;
        Ok(Value::String(v))
    }
    fn visit_unit<E: serde::de::Error>(self) -> Result<Value, E> {
        self.count()?;
        Ok(Value::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        self.count()?;
        let child = self.child()?;
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(child)? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        self.count()?;
        let child = self.child()?;
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if out.contains_key(&key) {
                return Err(A::Error::custom(format_args!("duplicate key {key:?}")));
            }
            let value = map.next_value_seed(child)?;
            out.insert(key, value);
        }
        Ok(Value::Object(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_a_tool_call() {
        let call =
            parse_tool_call(br#"{"tool_name":"t","tool_input":{"a":[1,2.5,null,true]},"x":1}"#)
                .unwrap();
        assert_eq!(call.tool_name, "t");
        assert_eq!(call.tool_input.len(), 1);
    }

    #[test]
    fn refuses_bad_shapes() {
        for bad in [
            &b"[]"[..],
            br#"{"tool_name":1,"tool_input":{}}"#,
            br#"{"tool_name":"t","tool_input":[]}"#,
            br#"{"tool_name":"t"}"#,
            br#"{"tool_input":{}}"#,
            br#"{"tool_name":"","tool_input":{}}"#,
            br#"{"tool_name":"t","tool_input":{}} x"#,
            br#"{"tool_name":"t","tool_name":"u","tool_input":{}}"#,
            b"\xff",
        ] {
            assert!(
                parse_tool_call(bad).is_err(),
                "{:?}",
                String::from_utf8_lossy(bad)
            );
        }
    }

    #[test]
    fn depth_limit_is_exact() {
        let ok = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
        assert!(parse_limited_json(ok.as_bytes()).is_ok());
        let deep = format!("{}{}", "[".repeat(MAX_DEPTH + 1), "]".repeat(MAX_DEPTH + 1));
        assert!(
            parse_limited_json(deep.as_bytes())
                .unwrap_err()
                .contains("deeper")
        );
    }

    #[test]
    fn node_limit_is_exact() {
        let ok = format!("[{}]", vec!["0"; MAX_NODES - 1].join(","));
        assert!(parse_limited_json(ok.as_bytes()).is_ok());
        let big = format!("[{}]", vec!["0"; MAX_NODES].join(","));
        assert!(
            parse_limited_json(big.as_bytes())
                .unwrap_err()
                .contains("values")
        );
    }
}
