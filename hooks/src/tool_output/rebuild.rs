//! Rebuilding a tool's result with every string contained, in the shape Claude Code
//! accepts for that tool (cli/TOOL_OUTPUT.md): the same JSON with each string — keys
//! included — replaced, so a built-in tool's output still matches its output schema
//! (a replacement that does not is silently ignored and the original goes to the model).

use serde_json::{Map, Value};

use super::contain::{Refusal, contain};
use super::{Deadline, Withhold};

/// `value` with every string contained; `None` when nothing changed.
pub(crate) fn contain_value(
    value: &Value,
    cap: Option<usize>,
    deadline: &Deadline,
) -> Result<Option<Value>, Withhold> {
    deadline.check()?;
    Ok(match value {
        Value::String(s) => contain_str(s, cap)?.map(Value::String),
        Value::Array(items) => {
            let mut changed: Option<Vec<Value>> = None;
            for (i, item) in items.iter().enumerate() {
                if let Some(new) = contain_value(item, cap, deadline)? {
                    let list = changed.get_or_insert_with(|| items.clone());
                    if let Some(slot) = list.get_mut(i) {
                        *slot = new;
                    }
                }
            }
            changed.map(Value::Array)
        }
        Value::Object(map) => {
            let mut any = false;
            let mut out = Map::new();
            for (key, item) in map {
                let new_key = contain_str(key, None)?;
                let new_item = contain_value(item, cap, deadline)?;
                any |= new_key.is_some() || new_item.is_some();
                out.insert(
                    new_key.unwrap_or_else(|| key.clone()),
                    new_item.unwrap_or_else(|| item.clone()),
                );
            }
            any.then_some(Value::Object(out))
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => None,
    })
}

fn contain_str(s: &str, cap: Option<usize>) -> Result<Option<String>, Withhold> {
    contain(s, cap).map_err(|Refusal::Allocation| Withhold::Allocation)
}

/// Where each built-in tool keeps the text the model reads, for the withheld notice.
fn primary_path(tool: &str) -> &'static [&'static str] {
    match tool {
        "Bash" | "BashOutput" => &["stdout"],
        "Read" => &["file", "content"],
        "WebFetch" => &["result"],
        "Grep" => &["content"],
        _ => &[],
    }
}

/// Tools whose result shape a notice is known to be accepted in (checked end to end
/// with the real client, or the MCP content-block shape that every MCP tool takes).
pub(crate) fn shape_is_known(tool: Option<&str>) -> bool {
    tool.is_some_and(|t| is_mcp(t) || matches!(t, "Bash" | "Read" | "WebFetch" | "Grep" | "Glob"))
}

/// An MCP tool (`mcp__server__tool`): its result is a list of content blocks.
pub(crate) fn is_mcp(tool: &str) -> bool {
    tool.starts_with("mcp__")
}

/// Keys whose string values are enum-like (`"type": "text"`): kept in a withheld shape,
/// since schemas hold them to a fixed list; every other string is emptied.
const LABEL_KEYS: [&str; 6] = ["type", "mode", "kind", "subtype", "mimeType", "media_type"];

/// The withheld notice in the shape of `response` for `tool`: MCP tools get one text
/// block; other shapes keep their structure, label values and non-string values, with the
/// tool's text field (or the first other string) holding the notice and every other
/// string emptied.
pub(crate) fn withheld_shape(tool: Option<&str>, response: Option<&Value>, notice: &str) -> Value {
    if tool.is_some_and(is_mcp) || response.is_none() {
        return mcp_notice(tool, notice);
    }
    let Some(response) = response else {
        return Value::String(notice.to_owned());
    };
    let mut placed = false;
    let path = tool.map(primary_path).unwrap_or_default();
    let mut shaped = blank(response, path, notice, &mut placed, true, false);
    if !placed {
        place_first(&mut shaped, notice, &mut placed);
    }
    if placed {
        shaped
    } else {
        Value::String(notice.to_owned())
    }
}

fn mcp_notice(tool: Option<&str>, notice: &str) -> Value {
    if tool.is_some_and(is_mcp) {
        serde_json::json!([{ "type": "text", "text": notice }])
    } else {
        Value::String(notice.to_owned())
    }
}

/// `value` with strings emptied except labels; the string at `path` becomes the notice.
fn blank(
    value: &Value,
    path: &[&str],
    notice: &str,
    placed: &mut bool,
    on_path: bool,
    label: bool,
) -> Value {
    match value {
        Value::String(_) if on_path && path.is_empty() => {
            *placed = true;
            Value::String(notice.to_owned())
        }
        Value::String(s) if label => Value::String(s.clone()),
        Value::String(_) => Value::String(String::new()),
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|v| blank(v, &[], notice, placed, false, false))
                .collect(),
        ),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| {
                    let next = on_path && path.first() == Some(&k.as_str());
                    let rest = if next {
                        path.get(1..).unwrap_or_default()
                    } else {
                        &[]
                    };
                    let label = LABEL_KEYS.contains(&k.as_str());
                    (k.clone(), blank(v, rest, notice, placed, next, label))
                })
                .collect(),
        ),
        other => other.clone(),
    }
}

/// Puts the notice in the first emptied string (pre-order), or the first list of them.
fn place_first(value: &mut Value, notice: &str, placed: &mut bool) {
    if *placed {
        return;
    }
    match value {
        Value::String(s) if s.is_empty() => {
            notice.clone_into(s);
            *placed = true;
        }
        Value::Array(items) if items.is_empty() => {
            items.push(Value::String(notice.to_owned()));
            *placed = true;
        }
        Value::Array(items) => items
            .iter_mut()
            .for_each(|v| place_first(v, notice, placed)),
        Value::Object(map) => map
            .values_mut()
            .for_each(|v| place_first(v, notice, placed)),
        _ => {}
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn withheld_bash_keeps_its_shape() {
        let r = json!({"stdout": "x", "stderr": "y", "interrupted": false, "isImage": false});
        assert_eq!(
            withheld_shape(Some("Bash"), Some(&r), "N"),
            json!({"stdout": "N", "stderr": "", "interrupted": false, "isImage": false})
        );
    }

    #[test]
    fn withheld_read_puts_the_notice_in_the_content() {
        let r =
            json!({"type": "text", "file": {"filePath": "/p", "content": "secret", "numLines": 1}});
        assert_eq!(
            withheld_shape(Some("Read"), Some(&r), "N"),
            json!({"type": "text", "file": {"filePath": "", "content": "N", "numLines": 1}})
        );
    }

    #[test]
    fn withheld_mcp_and_unknown() {
        assert_eq!(
            withheld_shape(Some("mcp__m__t"), Some(&json!("x")), "N"),
            json!([{"type": "text", "text": "N"}])
        );
        assert_eq!(withheld_shape(None, None, "N"), json!("N"));
        assert_eq!(
            withheld_shape(
                Some("Glob"),
                Some(&json!({"filenames": ["a", "b"], "numFiles": 2})),
                "N"
            ),
            json!({"filenames": ["N", ""], "numFiles": 2})
        );
        assert_eq!(withheld_shape(Some("X"), Some(&json!(3)), "N"), json!("N"));
    }
}
