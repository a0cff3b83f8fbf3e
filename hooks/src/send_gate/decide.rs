//! Steps 2 to 5: what the gate decides from the call and the configuration
//! alone, with no I/O. The ledger (step 6) and the board read are the
//! caller's; everything here is a pure function a fuzz target can drive.

use serde_json::{Map, Value};

use super::config::{Class, Config};
use super::digest::message_digest;
use super::input::ToolCall;
use super::scan::{Hit, ScanReport, outgoing_fields, scan_input};

/// The header fields checked for message-id hygiene, and whether each holds
/// several ids (`References`) or one.
pub(crate) const THREADING_FIELDS: [(&str, bool); 4] = [
    ("in_reply_to", false),
    ("references", true),
    ("inReplyTo", false),
    ("in_reply_to_id", false),
];

/// Fields that put a message into an existing thread besides the
/// message-id headers: Gmail's thread id, Slack's `thread_ts`.
const THREAD_FIELDS: [&str; 4] = ["thread_id", "threadId", "thread_ts", "threadTs"];

/// Where a call goes after the checks that need no I/O.
#[derive(Debug, PartialEq)]
pub(crate) enum Route {
    /// An exempt tool: passes untouched.
    Exempt,
    /// The peer-session lane: passes when `target` is active on the board.
    Peer { target: String },
    /// A gated message: passes when the ledger for `digest` is valid.
    Message(Prepared),
}

/// A gated message that passed every check before the ledger.
#[derive(Debug, PartialEq)]
pub(crate) struct Prepared {
    pub(crate) digest: String,
    pub(crate) fields: Vec<String>,
    pub(crate) warnings: Vec<Hit>,
    /// The call replies into a thread: the ledger must say `is_reply: true`.
    pub(crate) threaded: bool,
    /// A string of the call matches a currency-claim pattern.
    pub(crate) currency_text: bool,
    /// The ledger attestation the branding lane requires, if any.
    pub(crate) branding_field: Option<String>,
}

/// Steps 2 to 5. `Err` is the block reason and its remedy.
pub(crate) fn route(call: &ToolCall, config: &Config) -> Result<Route, String> {
    let name = call.tool_name.as_str();
    // The peer lane runs before the exempt list (as in the anchor): once
    // adopted, it owns those tools and an old exemption cannot bypass it.
    if let Some(peer) = config.peer.as_ref().filter(|p| p.tool.is_match(name)) {
        let target = match call.tool_input.get(&peer.target_field) {
            Some(Value::String(s)) if !s.trim().is_empty() => s.trim().to_owned(),
            _ => {
                return Err(format!(
                    "peer-session send carries no {:?} target; unknown shape fails closed, address the exact session ref from the coordination board",
                    peer.target_field
                ));
            }
        };
        hidden_check(&scan_input(&call.tool_input, config))?;
        return Ok(Route::Peer { target });
    }
    match config.classify(name) {
        Class::Gated => {}
        Class::Exempt => return Ok(Route::Exempt),
        Class::Unclassified => {
            return Err(format!(
                "unclassified tool {name:?}: it reached the gate but matches no gated_tool_patterns or exempt_tool_patterns; classify it in the configuration deliberately rather than send through it"
            ));
        }
    }
    let fields = outgoing_fields(&call.tool_input, &config.text_fields)?;
    if fields.is_empty() {
        return Err(format!(
            "no outgoing text found in tool_input (looked for: {}); unknown shape fails closed, add the field to text_field_candidates deliberately",
            config.text_fields.join(", ")
        ));
    }
    let report = scan_input(&call.tool_input, config);
    hidden_check(&report)?;
    if !report.concealed.is_empty() {
        return Err(format!(
            "{}; a reader does not see it as the recipient's assistant reads it, so remove it or make it visible",
            report.concealed.join("; ")
        ));
    }
    if !report.unscannable.is_empty() {
        return Err(format!(
            "cannot scan {}: an encoded body the gate cannot decode to text (a part that is not text, an unknown charset) hides its text from the gate; send the text in a text field ({})",
            report.unscannable.join(", "),
            config.text_fields.join(", ")
        ));
    }
    if !report.blocks.is_empty() {
        return Err(format!(
            "register scan failed: {}; rewrite the thought, not the wording around the pattern (check drafts with `airlock guard scan`)",
            describe_hits(&report.blocks)
        ));
    }
    header_check(&call.tool_input)?;
    Ok(Route::Message(Prepared {
        digest: message_digest(call),
        fields: fields.iter().map(|f| (*f).to_owned()).collect(),
        warnings: report.warnings,
        threaded: is_threaded(call),
        currency_text: report.currency,
        branding_field: config.branding_field(name).map(str::to_owned),
    }))
}

/// A reply tool, or a call that carries a threading header or thread id.
fn is_threaded(call: &ToolCall) -> bool {
    let present = |key: &str| match call.tool_input.get(key) {
        None | Some(Value::Null) => false,
        Some(Value::String(s)) => !s.trim().is_empty(),
        Some(Value::Array(items)) => !items.is_empty(),
        Some(_) => true,
    };
    call.tool_name.to_ascii_lowercase().contains("reply")
        || THREADING_FIELDS.iter().any(|(key, _)| present(key))
        || THREAD_FIELDS.iter().any(|key| present(key))
}

pub(crate) fn describe_hits(hits: &[Hit]) -> String {
    hits.iter()
        .map(|h| format!("[{}] matched {:?}", h.name, h.matched))
        .collect::<Vec<_>>()
        .join("; ")
}

fn hidden_check(report: &ScanReport) -> Result<(), String> {
    if report.hidden_total == 0 {
        return Ok(());
    }
    let mut listed: Vec<String> = report.hidden.iter().map(ToString::to_string).collect();
    if let Some(more) = report
        .hidden_total
        .checked_sub(report.hidden.len())
        .filter(|&n| n > 0)
    {
        listed.push(format!("and {more} more"));
    }
    Err(format!(
        "hidden or control code point in outgoing text: {}; a reader cannot see it and a model reads it, so remove it (TAB, LF and CR are allowed, and emoji sequences)",
        listed.join(", ")
    ))
}

/// Step 4: message-id hygiene on the threading headers.
pub(crate) fn header_check(input: &Map<String, Value>) -> Result<(), String> {
    let mut fails = Vec::new();
    for (key, multiple) in THREADING_FIELDS {
        match input.get(key) {
            None | Some(Value::Null) => {}
            Some(Value::String(s)) if s.trim().is_empty() => {}
            Some(Value::String(s)) => {
                if let Err(e) = airlock_core::header::check_message_ids(s, multiple) {
                    fails.push(format!("{key} {}: {e}", preview(s)));
                }
            }
            Some(Value::Array(items)) if multiple || items.len() <= 1 => {
                for (i, item) in items.iter().enumerate() {
                    match item
                        .as_str()
                        .map(|s| airlock_core::header::check_message_ids(s, false))
                    {
                        Some(Ok(())) => {}
                        Some(Err(e)) => fails.push(format!(
                            "{key}[{i}] {}: {e}",
                            preview(item.as_str().unwrap_or_default())
                        )),
                        None => fails.push(format!("{key}[{i}] is not a string")),
                    }
                }
            }
            Some(Value::Array(_)) => fails.push(format!("{key} holds more than one message id")),
            Some(_) => fails.push(format!("{key} is neither a string nor a list of strings")),
        }
    }
    if fails.is_empty() {
        return Ok(());
    }
    Err(format!(
        "threading header malformed: {}; a message id is written with literal angle brackets, <id@host>, never &lt;id@host&gt;, ids in references separated by spaces",
        fails.join(" | ")
    ))
}

/// The value as JSON, cut to 80 code points, for a block message.
fn preview(s: &str) -> String {
    let cut: String = s.chars().take(80).collect();
    serde_json::to_string(&cut).unwrap_or_default()
}

/// Whether the coordination board lists `target` (or `ccd:<target>`, the
/// anchor's client-ref prefix) in a non-terminal row of `## Active sessions`.
pub(crate) fn board_has_active_ref(board: &str, target: &str) -> bool {
    const TERMINAL: [&str; 4] = ["released", "complete", "completed", "closed"];
    let prefixed = format!("ccd:{target}");
    let mut in_table = false;
    for line in board.lines() {
        if line.trim() == "## Active sessions" {
            in_table = true;
            continue;
        }
        if in_table && line.starts_with("## ") {
            break;
        }
        if !in_table || !line.starts_with('|') {
            continue;
        }
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        // `| a | b |` splits into ["", "a", "b", ""]: drop the outer two.
        let cells = cells
            .get(1..cells.len().saturating_sub(1))
            .unwrap_or_default();
        let Some(first) = cells.first() else { continue };
        if matches!(*first, "id" | "session uuid") || first.chars().all(|c| c == '-' || c == ':') {
            continue;
        }
        let status = cells.last().map(|s| s.to_lowercase()).unwrap_or_default();
        if cells.iter().any(|c| *c == target || *c == prefixed)
            && !TERMINAL.contains(&status.as_str())
        {
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn board_rows() {
        let board = "## Active sessions\n| id | ref | status |\n| --- | --- | --- |\n| 1 | ccd:a | owner |\n| 2 | ccd:b | released |\n## Other\n| 3 | ccd:c | owner |\n";
        assert!(board_has_active_ref(board, "a"));
        assert!(board_has_active_ref(board, "ccd:a"));
        assert!(!board_has_active_ref(board, "b"));
        assert!(!board_has_active_ref(board, "c"));
        assert!(!board_has_active_ref("", "a"));
    }
}
