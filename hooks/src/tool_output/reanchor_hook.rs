//! The hook side of `--reanchor`: the call and the file it names in, one answer out (the
//! binary reads stdin and keeps the deadline). Fails closed: a call it cannot read, a file
//! it cannot read, a panic or the deadline each deny, with a reason the model reads.

use std::io::{self, Read};
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

use super::reanchor::{self, Answer, FileText};
use super::{once, watchdog_reply};

/// Largest call read: a Write of a large file is a PreToolUse call. The binary reads one
/// byte more.
pub const MAX_CALL_BYTES: u64 = 64 * 1024 * 1024;

/// Largest file the map is built for; a larger one is denied (its view was cut anyway).
const MAX_FILE_BYTES: u64 = 16 * 1024 * 1024;

#[derive(Serialize)]
struct Output<'a> {
    #[serde(rename = "hookSpecificOutput")]
    specific: Specific<'a>,
}

#[derive(Serialize)]
struct Specific<'a> {
    #[serde(rename = "hookEventName")]
    event: &'static str,
    #[serde(rename = "permissionDecision", skip_serializing_if = "Option::is_none")]
    decision: Option<&'static str>,
    #[serde(
        rename = "permissionDecisionReason",
        skip_serializing_if = "Option::is_none"
    )]
    reason: Option<&'a str>,
    #[serde(rename = "updatedInput", skip_serializing_if = "Option::is_none")]
    updated: Option<&'a Value>,
}

/// Printed when even the deny line cannot be built.
const FALLBACK: &str = "{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"deny\",\"permissionDecisionReason\":\"airlock re-anchor: denied (internal error)\"}}\n";

/// The stdout line for `answer`, or `None` for no change.
pub(crate) fn line(answer: &Answer) -> Option<String> {
    let reason;
    let out = match answer {
        Answer::Unchanged => return None,
        Answer::Rewrite(v) => Output {
            specific: Specific {
                event: "PreToolUse",
                decision: None,
                reason: None,
                updated: Some(v),
            },
        },
        Answer::Deny(why) => {
            reason = crate::words::contained(&format!("airlock re-anchor: {why}"));
            Output {
                specific: Specific {
                    event: "PreToolUse",
                    decision: Some("deny"),
                    reason: Some(&reason),
                    updated: None,
                },
            }
        }
    };
    Some(serde_json::to_string(&out).map_or_else(
        |_| FALLBACK.to_owned(),
        |mut l| {
            l.push('\n');
            l
        },
    ))
}

/// Reads the file a tool call names, as the re-anchor needs it.
fn read_file(path: &Path) -> Result<FileText, String> {
    let file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(FileText::Missing),
        Err(e) => {
            return Err(format!(
                "cannot read the file to map your edit onto it ({e})"
            ));
        }
    };
    let mut bytes = Vec::new();
    file.take(MAX_FILE_BYTES.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read the file to map your edit onto it ({e})"))?;
    if u64::try_from(bytes.len()).map_or(true, |n| n > MAX_FILE_BYTES) {
        return Err(format!(
            "the file is larger than {MAX_FILE_BYTES} bytes, too large to map your edit onto its real text"
        ));
    }
    Ok(match String::from_utf8(bytes) {
        Ok(s) => FileText::Text(s),
        Err(_) => FileText::Binary,
    })
}

/// The answer to one call's bytes.
pub(crate) fn decide(input: &[u8]) -> Answer {
    let Ok(Value::Object(call)) = serde_json::from_slice::<Value>(input) else {
        return Answer::Deny("the tool call is not a JSON object".into());
    };
    let Some(tool) = call.get("tool_name").and_then(Value::as_str) else {
        return Answer::Deny("the tool call names no tool_name".into());
    };
    if !matches!(tool, "Edit" | "MultiEdit" | "Write" | "NotebookEdit") {
        return Answer::Unchanged;
    }
    let Some(Value::Object(input)) = call.get("tool_input") else {
        return Answer::Deny("the tool call has no tool_input object".into());
    };
    let key = if tool == "NotebookEdit" {
        "notebook_path"
    } else {
        "file_path"
    };
    let Some(path) = input.get(key).and_then(Value::as_str) else {
        return Answer::Deny(format!("{tool} needs a {key} string"));
    };
    let mut full = PathBuf::from(path);
    if let Some(cwd) = call
        .get("cwd")
        .and_then(Value::as_str)
        .filter(|_| full.is_relative())
    {
        full = Path::new(cwd).join(full);
    }
    match read_file(&full) {
        Ok(file) => reanchor::decide(tool, input, &file),
        Err(why) => Answer::Deny(why),
    }
}

/// `--reanchor`: the PreToolUse entry's answer on Edit, MultiEdit, Write and
/// NotebookEdit, to `input` (stdin, or why it could not be read). Not reshaped for Codex:
/// the line is the same for every client.
pub fn answer(input: Result<Vec<u8>, String>) -> crate::Reply {
    let answer = panic::catch_unwind(AssertUnwindSafe(|| match input {
        Err(e) => Answer::Deny(format!("cannot read the tool call ({e})")),
        Ok(input) if u64::try_from(input.len()).map_or(true, |n| n > MAX_CALL_BYTES) => {
            Answer::Deny(format!(
                "the tool call is larger than {MAX_CALL_BYTES} bytes"
            ))
        }
        Ok(input) => decide(&input),
    }))
    .unwrap_or_else(|_| Answer::Deny("internal error".into()));
    line(&answer).map_or_else(crate::Reply::silent, once)
}

/// The deny when no answer came in time.
pub fn deadline_reply() -> crate::Reply {
    watchdog_reply(
        line(&Answer::Deny(
            "no answer before the deadline; try a smaller edit".into(),
        ))
        .unwrap_or_else(|| FALLBACK.to_owned()),
    )
}

/// The deny of a panic outside [`answer`] (reading stdin).
pub fn panic_reply() -> crate::Reply {
    line(&Answer::Deny("internal error".into())).map_or_else(crate::Reply::silent, once)
}
