//! A guard's answer, reshaped for Codex.
//!
//! Codex 0.171.0 validates a hook's stdout against a closed schema (`additionalProperties:
//! false`): a field it does not know, or a value it does not support (`ask`, `continue: false`
//! on PreToolUse, `updatedMCPToolOutput`), fails the hook, and a failed hook lets the call run.
//! The guards speak Claude Code's dialect, so their lines are reshaped here before Codex reads
//! them. What Codex does with each shape was measured by `tests/codex/run.sh` (the `protocol:`
//! cases; the table in `cli/CLIENTS.md`):
//!
//! * PreToolUse: `hookSpecificOutput` with `permissionDecision` `deny` (and a non-empty
//!   reason) or `allow`, `systemMessage` at the top. Nothing else.
//! * PostToolUse: Codex cannot replace a result (`updatedMCPToolOutput` is unsupported, there is
//!   no `updatedToolOutput`), but `decision: "block"` puts its `reason` where the result was,
//!   so the model reads the reason and never the result. A containing answer becomes that.

use serde_json::{Map, Value};

/// Said when the line to reshape is not one a guard prints: the call is still blocked.
const UNREADABLE: &str = "airlock: the guard's answer could not be read; blocked";

/// The Codex form of a guard's PreToolUse line: a deny or an allow with only the fields Codex
/// accepts. Anything that is not a clear allow is a deny, so a reshaping mistake blocks.
pub fn pre_tool_use(line: &str) -> String {
    let parsed: Option<Value> = serde_json::from_str(line.trim()).ok();
    let specific = parsed.as_ref().and_then(|v| v.get("hookSpecificOutput"));
    let decision = specific
        .and_then(|s| s.get("permissionDecision"))
        .and_then(Value::as_str);
    let reason = specific
        .and_then(|s| s.get("permissionDecisionReason"))
        .and_then(Value::as_str)
        .filter(|r| !r.trim().is_empty());
    let mut out = Map::new();
    if let Some(message) = parsed
        .as_ref()
        .and_then(|v| v.get("systemMessage"))
        .and_then(Value::as_str)
    {
        out.insert("systemMessage".into(), message.into());
    }
    let mut inner = Map::new();
    inner.insert("hookEventName".into(), "PreToolUse".into());
    if decision == Some("allow") {
        inner.insert("permissionDecision".into(), "allow".into());
    } else {
        // `ask`, `defer`, no decision or no line: Codex supports none of them as a block.
        let said = reason.map_or_else(
            || match decision {
                Some(other) => format!("airlock: the guard answered {other:?}; blocked"),
                None => UNREADABLE.to_owned(),
            },
            str::to_owned,
        );
        inner.insert("permissionDecision".into(), "deny".into());
        inner.insert("permissionDecisionReason".into(), said.into());
    }
    if let Some(context) = specific
        .and_then(|s| s.get("additionalContext"))
        .and_then(Value::as_str)
    {
        inner.insert("additionalContext".into(), context.into());
    }
    out.insert("hookSpecificOutput".into(), Value::Object(inner));
    Value::Object(out).to_string()
}

/// The text a replaced result stands for: a string as is; MCP content blocks' text joined.
fn result_text(updated: &Value) -> String {
    match updated {
        Value::String(text) => text.clone(),
        Value::Object(map) if map.get("content").is_some_and(Value::is_array) => {
            result_text(map.get("content").unwrap_or(&Value::Null))
        }
        Value::Array(blocks) => blocks
            .iter()
            .map(|b| match b.get("text").and_then(Value::as_str) {
                Some(text) => text.to_owned(),
                None => "[airlock: a non-text block was withheld]".to_owned(),
            })
            .collect::<Vec<_>>()
            .join("\n"),
        other => other.to_string(),
    }
}

/// The Codex form of a guard's PostToolUse line, or `None` when the guard leaves the result
/// alone (an empty line). A replaced result becomes `decision: block` with the replacement as the
/// reason; a stop becomes the same with the stop reason; a line that cannot be read withholds.
pub fn post_tool_use(line: &str) -> Option<String> {
    if line.trim().is_empty() {
        return None;
    }
    let parsed: Option<Value> = serde_json::from_str(line.trim()).ok();
    let specific = parsed.as_ref().and_then(|v| v.get("hookSpecificOutput"));
    let updated = specific.and_then(|s| {
        s.get("updatedToolOutput")
            .or_else(|| s.get("updatedMCPToolOutput"))
    });
    let stopped = parsed
        .as_ref()
        .and_then(|v| v.get("continue"))
        .and_then(Value::as_bool)
        == Some(false);
    let reason = match (updated, parsed.as_ref()) {
        (Some(updated), _) => result_text(updated),
        (None, Some(v)) if stopped => v
            .get("stopReason")
            .and_then(Value::as_str)
            .unwrap_or("airlock: stopped")
            .to_owned(),
        (None, Some(v)) => {
            // Only added context: Codex takes it as is, beside the unchanged result.
            let context = specific
                .and_then(|s| s.get("additionalContext"))
                .and_then(Value::as_str);
            if let (Some(context), true) = (context, v.as_object().is_some()) {
                return Some(
                    serde_json::json!({"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": context}})
                        .to_string(),
                );
            }
            "[airlock: tool output withheld: the guard's answer could not be read]".to_owned()
        }
        (None, None) => {
            "[airlock: tool output withheld: the guard's answer could not be read]".to_owned()
        }
    };
    Some(serde_json::json!({"decision": "block", "reason": reason}).to_string())
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;

    fn json(text: &str) -> Value {
        serde_json::from_str(text).unwrap()
    }

    /// The only keys Codex 0.171.0's schemas accept, by level.
    fn only_known_keys(v: &Value, top: &[&str], inner: &[&str]) {
        for key in v.as_object().unwrap().keys() {
            assert!(top.contains(&key.as_str()), "unknown top-level key {key}");
        }
        if let Some(s) = v.get("hookSpecificOutput") {
            for key in s.as_object().unwrap().keys() {
                assert!(inner.contains(&key.as_str()), "unknown key {key}");
            }
        }
    }

    const PRE_TOP: &[&str] = &["hookSpecificOutput", "systemMessage"];
    const PRE_INNER: &[&str] = &[
        "hookEventName",
        "permissionDecision",
        "permissionDecisionReason",
        "additionalContext",
    ];

    #[test]
    fn a_deny_keeps_its_reason_and_loses_what_codex_refuses() {
        // The quarantine gate's deny carries continue:false, which fails the hook in Codex.
        let line = r#"{"continue":false,"stopReason":"s","hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"airlock: no"}}"#;
        let out = json(&pre_tool_use(line));
        only_known_keys(&out, PRE_TOP, PRE_INNER);
        assert_eq!(out["hookSpecificOutput"]["permissionDecision"], "deny");
        assert_eq!(
            out["hookSpecificOutput"]["permissionDecisionReason"],
            "airlock: no"
        );
    }

    #[test]
    fn anything_but_a_clear_allow_denies() {
        for line in [
            "",
            "not json",
            r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask"}}"#,
            r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny"}}"#,
        ] {
            let out = json(&pre_tool_use(line));
            only_known_keys(&out, PRE_TOP, PRE_INNER);
            assert_eq!(
                out["hookSpecificOutput"]["permissionDecision"], "deny",
                "{line}"
            );
            let reason = out["hookSpecificOutput"]["permissionDecisionReason"]
                .as_str()
                .unwrap();
            assert!(!reason.trim().is_empty(), "{line}");
        }
        let allow = r#"{"systemMessage":"m","hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","additionalContext":"c"}}"#;
        let out = json(&pre_tool_use(allow));
        only_known_keys(&out, PRE_TOP, PRE_INNER);
        assert_eq!(out["hookSpecificOutput"]["permissionDecision"], "allow");
        assert_eq!(out["hookSpecificOutput"]["additionalContext"], "c");
    }

    #[test]
    fn a_replaced_result_becomes_a_block_whose_reason_is_the_replacement() {
        let line = r#"{"hookSpecificOutput":{"hookEventName":"PostToolUse","updatedToolOutput":"[airlock: withheld]"}}"#;
        assert_eq!(
            json(&post_tool_use(line).unwrap()),
            serde_json::json!({"decision": "block", "reason": "[airlock: withheld]"})
        );
        let mcp = r#"{"hookSpecificOutput":{"hookEventName":"PostToolUse","updatedMCPToolOutput":{"content":[{"type":"text","text":"a"},{"type":"image","data":"x"}]}}}"#;
        let out = json(&post_tool_use(mcp).unwrap());
        assert_eq!(out["reason"], "a\n[airlock: a non-text block was withheld]");
        let stop = r#"{"continue":false,"stopReason":"airlock: stop"}"#;
        assert_eq!(
            json(&post_tool_use(stop).unwrap())["reason"],
            "airlock: stop"
        );
    }

    #[test]
    fn context_passes_and_unreadable_lines_withhold() {
        assert_eq!(post_tool_use("  \n"), None);
        let ctx =
            r#"{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"note"}}"#;
        let out = json(&post_tool_use(ctx).unwrap());
        assert_eq!(out["hookSpecificOutput"]["additionalContext"], "note");
        assert!(out.get("decision").is_none());
        for bad in ["{", "[1]", r#"{"x":1}"#] {
            let out = json(&post_tool_use(bad).unwrap());
            assert_eq!(out["decision"], "block", "{bad}");
        }
    }
}
