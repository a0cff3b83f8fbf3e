//! The quarantine of a session whose failed tool printed hostile text.
//!
//! A failed tool makes no PostToolUse call. Claude Code puts the tool's `error` text
//! (stdout and stderr of a failing command, an MCP error) in front of the model as it
//! is, and a PostToolUseFailure hook may only add context. It also ignores that hook's
//! `continue: false`: the end-to-end run (`tests/claude`, group `tool-output-failure`)
//! shows 2.1.87 and 2.1.332 both giving the model its next turn and running its next
//! tool call. So the hook cannot keep the text from the model, and cannot stop the
//! session either. What it can do is make sure the model never *acts* on the text: it
//! marks the session, and the PreToolUse entry (`airlock hook tool-output
//! --quarantine-gate`) denies every later tool call of a marked session and asks the
//! client to stop (`continue: false` beside the deny: 2.1.332 stops, 2.1.87 keeps
//! denying; a `continue: false` without the deny lets the call run in both).
//!
//! A marker is a file named after the session in the state directory
//! (`$AIRLOCK_TOOL_OUTPUT_STATE`, else `$HOME/.local/state/airlock/tool-output`). A
//! resumed session is still marked: its transcript still holds the text. Removing the
//! file releases it.
//!
//! The gate fails closed: input it cannot read, no session id, a state directory it
//! cannot name or look into, or one where no marker could be written now (a hostile
//! failure there could not quarantine its session) — each denies.
//!
//! A failed tool's call the hook cannot decide on (over its input limit, past its
//! deadline) still names its session: [`header`] reads it from the input's top level
//! without parsing, and the session is marked all the same.

use std::fmt::Write as _;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// Where the markers live, when set (and not empty).
pub(crate) const STATE_ENV: &str = "AIRLOCK_TOOL_OUTPUT_STATE";

/// The state directory's default, under `$HOME`.
const STATE_UNDER_HOME: &str = ".local/state/airlock/tool-output";

/// The markers' subdirectory.
const MARKED: &str = "quarantined";

/// The state directory `env` names, or why it has none.
pub(crate) fn state_dir(env: &dyn crate::Env) -> Result<PathBuf, String> {
    if let Some(dir) = crate::env::path(env, STATE_ENV) {
        return Ok(dir);
    }
    crate::env::path(env, "HOME")
        .map(|h| h.join(STATE_UNDER_HOME))
        .ok_or_else(|| format!("neither ${STATE_ENV} nor $HOME is set"))
}

/// A marker's file name: the session id itself when it is a plain name (Claude Code's are
/// UUIDs), else a digest of it, so that no id can name a path outside the directory.
fn marker_name(session: &str) -> String {
    let plain = (1..=128).contains(&session.len())
        && !session.starts_with('.')
        && session
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b'.');
    if plain {
        return session.to_owned();
    }
    let mut name = String::from("sha256-");
    for b in Sha256::digest(session.as_bytes()) {
        // Writing to a String cannot fail.
        let _ = write!(name, "{b:02x}");
    }
    name
}

fn marker_path(dir: &Path, session: &str) -> PathBuf {
    dir.join(MARKED).join(marker_name(session))
}

/// What a marker holds: why the session is quarantined (for whoever looks).
#[derive(Serialize)]
struct Marker<'a> {
    session_id: &'a str,
    tool_name: &'a str,
    reason: &'a str,
}

/// Marks `session` in `dir`. The marker is whole or absent: written to a temporary file
/// beside it, then renamed into place.
pub(crate) fn mark(dir: &Path, session: &str, tool: &str, reason: &str) -> Result<(), String> {
    let marked = dir.join(MARKED);
    let failed = |what: &str, e: io::Error| format!("{what} {}: {e}", marked.display());
    fs::create_dir_all(&marked).map_err(|e| failed("cannot create", e))?;
    let mut tmp =
        tempfile::NamedTempFile::new_in(&marked).map_err(|e| failed("cannot write in", e))?;
    let body = serde_json::to_string(&Marker {
        session_id: session,
        tool_name: tool,
        reason,
    })
    .map_err(|e| format!("cannot encode the marker: {e}"))?;
    tmp.write_all(body.as_bytes())
        .and_then(|()| tmp.write_all(b"\n"))
        .and_then(|()| tmp.as_file().sync_all())
        .map_err(|e| failed("cannot write in", e))?;
    tmp.persist(marker_path(dir, session))
        .map_err(|e| failed("cannot rename into", e.error))?;
    Ok(())
}

/// What a hook input says about itself, read without parsing it: its top-level
/// `hook_event_name`, `session_id` and `tool_name` strings. For an input the hook cannot
/// decide on (over its size limit, so cut; too many values; not the call it should be),
/// this is still enough to tell a failed tool's call and quarantine its session.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Header {
    pub(crate) event: Option<String>,
    pub(crate) session: Option<String>,
    pub(crate) tool: Option<String>,
}

/// Reads `input`'s [`Header`] with a scan of its top level: strings, nesting and the
/// key/value position are tracked; nothing is parsed or kept but the three values. A
/// key given twice counts by its last value, as the parser's map does. Works on a cut
/// input (the values seen so far).
pub(crate) fn header(input: &[u8]) -> Header {
    let mut head = Header::default();
    let mut depth = 0usize;
    let mut at_key = false;
    let mut key: Option<(usize, usize)> = None;
    let mut value_due = false;
    let mut i = 0usize;
    while let Some(&b) = input.get(i) {
        if b == b'"' {
            let start = i;
            let end = string_end(input, i.saturating_add(1));
            let Some(end) = end else { break };
            if depth == 1 && at_key {
                key = Some((start, end));
                at_key = false;
            } else if depth == 1 && value_due {
                let name = key.and_then(|(ks, ke)| {
                    serde_json::from_slice::<String>(input.get(ks..=ke)?).ok()
                });
                if let Some(slot) = name.and_then(|n| head.slot(&n)) {
                    *slot = input
                        .get(start..=end)
                        .and_then(|raw| serde_json::from_slice::<String>(raw).ok());
                }
            }
            value_due = false;
            i = end.saturating_add(1);
            continue;
        }
        match b {
            b'{' | b'[' => {
                depth = depth.saturating_add(1);
                at_key = depth == 1 && b == b'{';
                value_due = false;
            }
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                value_due = false;
            }
            b',' if depth == 1 => {
                at_key = true;
                key = None;
                value_due = false;
            }
            b':' if depth == 1 => value_due = true,
            b' ' | b'\t' | b'\n' | b'\r' => {}
            _ => value_due = false,
        }
        i = i.saturating_add(1);
    }
    head
}

impl Header {
    /// The field a key names, if it is one of the three.
    fn slot(&mut self, key: &str) -> Option<&mut Option<String>> {
        match key {
            "hook_event_name" => Some(&mut self.event),
            "session_id" => Some(&mut self.session),
            "tool_name" => Some(&mut self.tool),
            _ => None,
        }
    }
}

/// The index of the `"` closing the string whose text starts at `from`, or `None` when
/// the input ends first.
fn string_end(input: &[u8], from: usize) -> Option<usize> {
    let mut i = from;
    loop {
        match input.get(i)? {
            b'\\' => i = i.saturating_add(2),
            b'"' => return Some(i),
            _ => i = i.saturating_add(1),
        }
    }
}

/// The gate's verdict on one PreToolUse call.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// Not quarantined: the call goes ahead (the gate prints nothing).
    Clear,
    /// Denied, and the session asked to stop; the reason names why.
    Deny(String),
    /// Refused by the channel policy (`channels.rs`): this call only; the session goes
    /// on, and the reason says what to do instead.
    Refuse(String),
}

/// The part of a PreToolUse call the gate reads; everything else is skipped unparsed.
#[derive(Deserialize)]
struct GateCall {
    hook_event_name: Option<String>,
    session_id: Option<String>,
    tool_name: Option<String>,
    tool_input: Option<super::channels::PolicyInput>,
}

/// The verdict on the PreToolUse call `input`, with markers in `dir` (or why there is no
/// state directory).
pub(crate) fn gate(input: &[u8], dir: Result<PathBuf, String>) -> Verdict {
    let call: GateCall = match serde_json::from_slice(input) {
        Ok(c) => c,
        Err(e) => return Verdict::Deny(format!("the PreToolUse call is not JSON ({e})")),
    };
    match call.hook_event_name.as_deref() {
        Some("PreToolUse") => {}
        other => {
            return Verdict::Deny(format!(
                "--quarantine-gate is a PreToolUse hook, but it was called for {}",
                other.map_or_else(|| "no hook_event_name".to_owned(), |e| format!("{e:?}"))
            ));
        }
    }
    let Some(session) = call.session_id.filter(|s| !s.is_empty()) else {
        return Verdict::Deny("the PreToolUse call names no session_id".into());
    };
    let dir = match dir {
        Ok(d) => d,
        Err(why) => return Verdict::Deny(format!("no state directory to look in ({why})")),
    };
    let path = marker_path(&dir, &session);
    match fs::symlink_metadata(&path) {
        Ok(_) => Verdict::Deny(format!(
            "this session is quarantined: a failed tool printed text that containment \
             removes, and Claude Code showed it to the model unchanged; no tool runs for \
             this session again (the marker is {})",
            path.display()
        )),
        Err(e) if e.kind() == io::ErrorKind::NotFound => match writable(&dir) {
            Verdict::Clear => call
                .tool_name
                .as_deref()
                .and_then(|tool| super::channels::refusal(tool, call.tool_input.as_ref()))
                .map_or(Verdict::Clear, Verdict::Refuse),
            denied => denied,
        },
        Err(e) => Verdict::Deny(format!("cannot look for {} ({e})", path.display())),
    }
}

/// `Clear` only if a marker could be written in `dir` now: a session whose hostile
/// failure could not be marked would never be stopped, so no call runs where marking
/// fails (an unwritable or read-only directory, a dangling symlink or a file in the
/// way). Costs a directory check and an empty file created and removed per call.
fn writable(dir: &Path) -> Verdict {
    let marked = dir.join(MARKED);
    let probe = fs::create_dir_all(&marked)
        .and_then(|()| tempfile::NamedTempFile::new_in(&marked))
        .and_then(|f| f.close());
    match probe {
        Ok(()) => Verdict::Clear,
        Err(e) => Verdict::Deny(format!(
            "no quarantine marker can be written in {} ({e}), so a failed tool's hostile \
             text could not stop this session; no tool runs until it can",
            marked.display()
        )),
    }
}

#[derive(Serialize)]
struct DenyOutput<'a> {
    #[serde(rename = "continue")]
    keep_going: bool,
    #[serde(rename = "stopReason")]
    stop_reason: &'a str,
    #[serde(rename = "systemMessage")]
    system_message: &'a str,
    #[serde(rename = "hookSpecificOutput")]
    specific: DenySpecific<'a>,
}

#[derive(Serialize)]
struct DenySpecific<'a> {
    #[serde(rename = "hookEventName")]
    event: &'static str,
    #[serde(rename = "permissionDecision")]
    decision: &'static str,
    #[serde(rename = "permissionDecisionReason")]
    reason: &'a str,
}

/// Printed when even building the deny line failed.
pub(crate) const FALLBACK_DENY: &str = "{\"continue\":false,\"stopReason\":\"airlock tool-output: denied (internal error)\",\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"deny\",\"permissionDecisionReason\":\"airlock tool-output: denied (internal error)\"}}\n";

/// The stdout line for a deny naming `why`, contained: it can quote a tool name, an
/// event name or a path.
pub(crate) fn deny_line(why: &str) -> String {
    let text = crate::words::contained(&format!("airlock tool-output: {why}"));
    serde_json::to_string(&DenyOutput {
        keep_going: false,
        stop_reason: &text,
        system_message: &text,
        specific: DenySpecific {
            event: "PreToolUse",
            decision: "deny",
            reason: &text,
        },
    })
    .map_or_else(
        |_| FALLBACK_DENY.to_owned(),
        |mut l| {
            l.push('\n');
            l
        },
    )
}

#[derive(Serialize)]
struct RefuseOutput<'a> {
    #[serde(rename = "hookSpecificOutput")]
    specific: DenySpecific<'a>,
}

/// The stdout line for a policy refusal naming `why`: a deny of this call, contained,
/// the session going on.
pub(crate) fn refuse_line(why: &str) -> String {
    let text = crate::words::contained(&format!("airlock tool-output: {why}"));
    serde_json::to_string(&RefuseOutput {
        specific: DenySpecific {
            event: "PreToolUse",
            decision: "deny",
            reason: &text,
        },
    })
    .map_or_else(
        |_| FALLBACK_DENY.to_owned(),
        |mut l| {
            l.push('\n');
            l
        },
    )
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic, clippy::indexing_slicing)]
mod tests {
    use super::*;

    fn call(session: &str) -> Vec<u8> {
        serde_json::json!({"hook_event_name": "PreToolUse", "session_id": session,
            "tool_name": "Bash", "tool_input": {"command": "ls"}})
        .to_string()
        .into_bytes()
    }

    #[test]
    fn the_channel_policy_refuses_without_stopping() {
        let dir = tempfile::tempdir().unwrap();
        let state = || Ok(dir.path().to_path_buf());
        let with = |tool: &str, input: serde_json::Value| {
            serde_json::json!({"hook_event_name": "PreToolUse", "session_id": "p-1",
                "tool_name": tool, "tool_input": input})
            .to_string()
            .into_bytes()
        };
        let monitor = with("Monitor", serde_json::json!({"command": "tail -f log"}));
        assert!(matches!(gate(&monitor, state()), Verdict::Refuse(w) if w.contains("Monitor")));
        let bg = with(
            "Bash",
            serde_json::json!({"command": "x", "run_in_background": true}),
        );
        assert!(matches!(gate(&bg, state()), Verdict::Refuse(_)));
        let pdf = with("Read", serde_json::json!({"file_path": "/a/b.pdf"}));
        assert!(matches!(gate(&pdf, state()), Verdict::Refuse(_)));
        // The refusal is a deny of this call: no `continue: false`.
        let line: serde_json::Value = serde_json::from_str(&refuse_line("x")).unwrap();
        assert_eq!(line["hookSpecificOutput"]["permissionDecision"], "deny");
        assert!(line.get("continue").is_none());
        // A quarantined session is still stopped, whatever the call.
        mark(dir.path(), "p-1", "Bash", "hostile error").unwrap();
        assert!(matches!(gate(&monitor, state()), Verdict::Deny(w) if w.contains("quarantined")));
    }

    #[test]
    fn a_marked_session_is_denied_and_others_are_not() {
        let dir = tempfile::tempdir().unwrap();
        let state = || Ok(dir.path().to_path_buf());
        assert_eq!(gate(&call("s-1"), state()), Verdict::Clear);
        mark(dir.path(), "s-1", "Bash", "hostile error").unwrap();
        assert!(
            matches!(gate(&call("s-1"), state()), Verdict::Deny(w) if w.contains("quarantined"))
        );
        assert_eq!(gate(&call("s-2"), state()), Verdict::Clear);
        // Marking twice is fine (a second hostile failure in the same session).
        mark(dir.path(), "s-1", "Bash", "again").unwrap();
        let left: Vec<_> = fs::read_dir(dir.path().join(MARKED)).unwrap().collect();
        assert_eq!(left.len(), 1, "no temporary file left behind");
    }

    #[test]
    fn session_ids_cannot_name_paths() {
        let dir = tempfile::tempdir().unwrap();
        for id in [
            "../../etc/x",
            "a/b",
            ".hidden",
            "",
            "x".repeat(129).as_str(),
        ] {
            let name = marker_name(id);
            assert!(
                name.starts_with("sha256-") && name.len() == 71,
                "{id:?} -> {name}"
            );
        }
        assert_eq!(
            marker_name("4dd6a23a-4750-4ccf-a7d4-9787c207b8f1"),
            "4dd6a23a-4750-4ccf-a7d4-9787c207b8f1"
        );
        mark(dir.path(), "../../escape", "Bash", "x").unwrap();
        assert!(!dir.path().join("../escape").exists());
        assert!(matches!(
            gate(&call("../../escape"), Ok(dir.path().to_path_buf())),
            Verdict::Deny(_)
        ));
    }

    #[test]
    fn the_gate_fails_closed() {
        let dir = tempfile::tempdir().unwrap();
        let state = || Ok(dir.path().to_path_buf());
        let deny = |v: Verdict, what: &str| {
            assert!(
                matches!(v, Verdict::Deny(ref w) if w.contains(what)),
                "{v:?}"
            )
        };
        deny(gate(b"{", state()), "not JSON");
        deny(
            gate(br#"{"hook_event_name":"PreToolUse"}"#, state()),
            "no session_id",
        );
        deny(
            gate(
                br#"{"hook_event_name":"PostToolUse","session_id":"s"}"#,
                state(),
            ),
            "PostToolUse",
        );
        deny(
            gate(&call("s"), Err("neither set".into())),
            "no state directory",
        );
        // A state path that is a file: looking under it fails with NotADirectory.
        let file = dir.path().join("file");
        fs::write(&file, b"x").unwrap();
        deny(gate(&call("s"), Ok(file.clone())), "cannot look");
        assert!(mark(&file, "s", "Bash", "x").is_err());
    }

    #[test]
    fn the_header_is_read_from_the_top_level_only() {
        let h = header(
            br#"{"session_id":"s\u002d1","tool_input":{"hook_event_name":"PreToolUse","session_id":"inner"},
              "x":["tool_name","Bash"], "hook_event_name" : "PostToolUseFailure","tool_name":"mcp__a__b","error":"\"session_id\":\"no\""}"#,
        );
        assert_eq!(
            h,
            Header {
                event: Some("PostToolUseFailure".into()),
                session: Some("s-1".into()),
                tool: Some("mcp__a__b".into()),
            }
        );
        // A cut input: what came before the cut.
        let h = header(
            br#"{"session_id":"s","hook_event_name":"PostToolUseFailure","error":"\u001b[2J aaaa"#,
        );
        assert_eq!(h.session.as_deref(), Some("s"));
        assert_eq!(h.event.as_deref(), Some("PostToolUseFailure"));
        // A later duplicate wins, as in the parsed map; a non-string value is none.
        let h = header(br#"{"session_id":"a","session_id":"b","tool_name":7}"#);
        assert_eq!(h.session.as_deref(), Some("b"));
        assert_eq!(h.tool, None);
        assert_eq!(header(b"[\"session_id\",\"x\"]"), Header::default());
        assert_eq!(header(b""), Header::default());
    }

    #[test]
    fn the_gate_denies_where_no_marker_can_be_written() {
        let dir = tempfile::tempdir().unwrap();
        // `quarantined/` a dangling symlink: mark fails, so the gate must not clear.
        std::os::unix::fs::symlink(dir.path().join("nowhere"), dir.path().join(MARKED)).unwrap();
        assert!(mark(dir.path(), "s", "Bash", "x").is_err());
        assert!(matches!(
            gate(&call("s"), Ok(dir.path().to_path_buf())),
            Verdict::Deny(w) if w.contains("no quarantine marker can be written")
        ));
        // A FIFO in its place: the same.
        let fifo_dir = tempfile::tempdir().unwrap();
        let made = std::process::Command::new("mkfifo")
            .arg(fifo_dir.path().join(MARKED))
            .status()
            .unwrap();
        assert!(made.success());
        assert!(matches!(
            gate(&call("s"), Ok(fifo_dir.path().to_path_buf())),
            Verdict::Deny(_)
        ));
        // A usable directory is made on first use and clears, leaving nothing behind.
        let fresh = tempfile::tempdir().unwrap();
        assert_eq!(
            gate(&call("s"), Ok(fresh.path().to_path_buf())),
            Verdict::Clear
        );
        assert_eq!(fs::read_dir(fresh.path().join(MARKED)).unwrap().count(), 0);
    }

    #[test]
    fn the_deny_line_is_a_pre_tool_use_deny() {
        let v: serde_json::Value = serde_json::from_str(&deny_line("why")).unwrap();
        assert_eq!(v["continue"], false);
        assert_eq!(v["hookSpecificOutput"]["hookEventName"], "PreToolUse");
        assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "deny");
        let fallback: serde_json::Value = serde_json::from_str(FALLBACK_DENY).unwrap();
        assert_eq!(fallback["hookSpecificOutput"]["permissionDecision"], "deny");
    }
}
