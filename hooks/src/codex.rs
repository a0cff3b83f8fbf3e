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

/// What a Codex entry's command ends in: a guard that dies without answering (a crash, an
/// out-of-memory kill, a missing binary) becomes exit 2 with a reason on stderr, the one
/// failure Codex blocks on (exit 2 with an empty stderr is a failed hook, and the call runs).
pub const FAIL_CLOSED: &str =
    "|| { echo 'airlock hook failed, so the call is blocked' >&2; exit 2; }";

/// The line `--print-config --client codex` puts before the hooks.json form.
pub const HOOKS_JSON_HEADING: &str = "# $CODEX_HOME/hooks.json:";
/// The line `--print-config --client codex` puts before the config.toml form.
pub const CONFIG_TOML_HEADING: &str = "# or the same entries inline in $CODEX_HOME/config.toml (use one form: an entry in both runs twice):";

/// One hook entry of Codex's wiring.
pub(crate) struct Entry {
    pub(crate) event: &'static str,
    pub(crate) matcher: &'static str,
    /// The command without its fallback; [`FAIL_CLOSED`] is appended.
    pub(crate) command: String,
    pub(crate) timeout: u64,
}

/// Codex's wiring of `entries` in both of its forms, headed by [`HOOKS_JSON_HEADING`] and
/// [`CONFIG_TOML_HEADING`]. No `onFailure`: Codex has no such key (hooks.json ignores it,
/// and a failed hook never blocks there, which is what [`FAIL_CLOSED`] is for).
pub(crate) fn wiring(entries: &[Entry]) -> String {
    let command = |e: &Entry| format!("{} {FAIL_CLOSED}", e.command);
    let mut events: Vec<(&str, Vec<Group>)> = Vec::new();
    for e in entries {
        let group = Group {
            matcher: e.matcher,
            hooks: [Command {
                kind: "command",
                command: command(e),
                timeout: e.timeout,
            }],
        };
        match events.iter_mut().find(|(name, _)| *name == e.event) {
            Some((_, groups)) => groups.push(group),
            None => events.push((e.event, vec![group])),
        }
    }
    // An ordered map, so that the keys keep the order people write them in.
    let hooks = Events(events);
    let json = serde_json::to_string_pretty(&HooksFile { hooks }).unwrap_or_default();
    // A JSON string is a TOML basic string: the same quotes and escapes (`\uXXXX` included).
    let quoted = |s: &str| Value::from(s).to_string();
    let mut toml = String::new();
    for e in entries {
        toml.push_str(&format!(
            "[[hooks.{event}]]\nmatcher = {matcher}\n\n[[hooks.{event}.hooks]]\ntype = \"command\"\ncommand = {command}\ntimeout = {timeout}\n\n",
            event = e.event,
            matcher = quoted(e.matcher),
            command = quoted(&command(e)),
            timeout = e.timeout,
        ));
    }
    format!(
        "{HOOKS_JSON_HEADING}\n{json}\n{CONFIG_TOML_HEADING}\n{}",
        toml.trim_end()
    )
}

#[derive(serde::Serialize)]
struct HooksFile<'a> {
    hooks: Events<'a>,
}

struct Events<'a>(Vec<(&'a str, Vec<Group>)>);

impl serde::Serialize for Events<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (event, groups) in &self.0 {
            map.serialize_entry(event, groups)?;
        }
        map.end()
    }
}

#[derive(serde::Serialize)]
struct Group {
    matcher: &'static str,
    hooks: [Command; 1],
}

#[derive(serde::Serialize)]
struct Command {
    #[serde(rename = "type")]
    kind: &'static str,
    command: String,
    timeout: u64,
}

/// A PreToolUse answer for Codex: `line` (the guard's Claude Code line) reshaped by
/// [`pre_tool_use`] on stdout, a deny's reason on stderr too. A deny exits 0 once stdout
/// took it: Codex reads a JSON deny at exit 0, and a wrapper's `||` never runs, so not
/// even `|| exit 1` (at which Codex ignores stdout) turns it into an allow. When stdout
/// cannot take the line, exit 2 with the reason on stderr still blocks.
pub(crate) fn pre_tool_use_reply(line: &str) -> crate::Reply {
    let shaped = pre_tool_use(line);
    let parsed: Value = serde_json::from_str(&shaped).unwrap_or_default();
    let reason = parsed
        .get("hookSpecificOutput")
        .filter(|s| s.get("permissionDecision").and_then(Value::as_str) == Some("deny"))
        .and_then(|s| s.get("permissionDecisionReason"))
        .and_then(Value::as_str);
    crate::Reply {
        stdout: format!("{shaped}\n"),
        stderr: reason.map(|r| format!("{r}\n")).unwrap_or_default(),
        exit: 0,
        if_stdout_fails: reason.map(|_| crate::reply::Fallback {
            stderr: String::new(),
            exit: 2,
        }),
    }
}

/// The Codex form of a pass that only adds context (the send gate's advisory): no decision,
/// so the call goes ahead.
pub(crate) fn pre_tool_use_context(context: &str) -> String {
    serde_json::json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": context}})
        .to_string()
}

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
    fn both_printed_forms_hold_the_same_entries() {
        let entries = [
            Entry {
                event: "PreToolUse",
                matcher: "^mcp__.*[Ss]end",
                command: "airlock hook send-gate --client codex".into(),
                timeout: 30,
            },
            Entry {
                event: "PostToolUse",
                matcher: "*",
                command: "airlock hook tool-output --tool 'a\"b=5' --client codex".into(),
                timeout: 30,
            },
        ];
        let text = wiring(&entries);
        let rest = text.strip_prefix(HOOKS_JSON_HEADING).unwrap();
        let (json, toml) = rest.split_once(CONFIG_TOML_HEADING).unwrap();
        let json = super::tests::json(json.trim());
        let toml: Value = toml::from_str(toml).unwrap();
        assert_eq!(json, toml);
        let command = json["hooks"]["PostToolUse"][0]["hooks"][0]["command"]
            .as_str()
            .unwrap();
        assert!(command.ends_with(FAIL_CLOSED), "{command}");
        assert!(command.starts_with("airlock hook tool-output --tool 'a\"b=5'"));
        assert_eq!(json["hooks"]["PreToolUse"][0]["matcher"], "^mcp__.*[Ss]end");
        assert!(
            crate::verdict::wrapper_hazard(command, crate::Client::Codex).is_none(),
            "the doctor must not flag the printed wrapper"
        );
    }

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
