//! What the client adds around tool results, outside any PostToolUse call, and the
//! lever airlock has on each (`cli/TOOL_OUTPUT.md`, "What the client adds").
//!
//! The policy half runs in the `--quarantine-gate` PreToolUse entry, which sees every
//! call: a call that would open a channel no hook can contain is refused with a reason
//! that says what to do instead. The catalog half is what `--doctor` prints.

use serde::Deserialize;
use serde_json::Value;

/// The part of a tool call's input the policy reads; everything else is skipped.
#[derive(Deserialize, Default)]
pub(crate) struct PolicyInput {
    #[serde(default)]
    run_in_background: Option<Value>,
    #[serde(default)]
    file_path: Option<Value>,
}

/// Why the call `tool` with `input` is refused while containment is on, or `None`.
///
/// * Monitor streams each new line of a command as a notification of its own, outside
///   any tool result: no hook sees those lines.
/// * A background run (`run_in_background`) reports through task notifications —
///   a stall waiting on a prompt, its completion — that no hook sees either.
/// * Read of a PDF hands the model a document block, which the client renders itself;
///   the PostToolUse hook sees only its base64 bytes.
pub(crate) fn refusal(tool: &str, input: Option<&PolicyInput>) -> Option<String> {
    if tool == "Monitor" {
        return Some(
            "the Monitor tool is refused while airlock's containment is on: its per-line \
             notifications reach the model outside any tool result, where no hook can \
             contain them. Run the command in the foreground with Bash (its output is \
             contained), polling with `tail` or `sleep` if you need to wait"
                .into(),
        );
    }
    let input = input?;
    if input
        .run_in_background
        .as_ref()
        .is_some_and(|v| v != &Value::Bool(false) && v != &Value::Null)
    {
        return Some(format!(
            "run_in_background is refused while airlock's containment is on: a background \
             {tool} reports through task notifications (a stall waiting on a prompt, its \
             end) that reach the model outside any tool result. Make the same call \
             without run_in_background; for a long command, redirect its output to a \
             file and Read it"
        ));
    }
    if tool == "Read"
        && input
            .file_path
            .as_ref()
            .and_then(Value::as_str)
            .is_some_and(is_pdf)
    {
        return Some(
            "Read of a PDF is refused while airlock's containment is on: the client hands \
             the model the PDF as a document block, which no hook can contain. Extract \
             its text with Bash instead (`pdftotext FILE -`), whose output is contained"
                .into(),
        );
    }
    None
}

/// Whether `path` names a PDF as the client decides it: by its extension.
fn is_pdf(path: &str) -> bool {
    path.trim_end()
        .rsplit_once('.')
        .is_some_and(|(_, ext)| ext.eq_ignore_ascii_case("pdf"))
}

/// How a channel is reached.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Lever {
    /// The `--quarantine-gate` entry refuses the call that would open it.
    Refused,
    /// A client setting turns it off; airlock does not set it for you.
    Setting(&'static str),
    /// No hook event, setting or policy reaches it.
    None,
}

/// One path by which text reaches the model outside a tool result's PostToolUse.
pub(crate) struct Channel {
    pub(crate) name: &'static str,
    /// What carries it, in the client's words.
    pub(crate) what: &'static str,
    pub(crate) lever: Lever,
}

/// The client build this catalog was read from.
pub(crate) const CLIENT: &str = "Claude Code 2.1.332";

/// Every channel found in the client's bundle, with its lever.
pub(crate) const CHANNELS: &[Channel] = &[
    Channel {
        name: "Monitor notifications",
        what: "each new line of a monitored command, as its own notification",
        lever: Lever::Refused,
    },
    Channel {
        name: "background task notifications",
        what: "task_status / queued_command attachments of a run_in_background call: a stall waiting on a prompt, its output file, its end",
        lever: Lever::Refused,
    },
    Channel {
        name: "PDF read as a document block",
        what: "Read of a .pdf: a document block the client renders for the model",
        lever: Lever::Refused,
    },
    Channel {
        name: "nested CLAUDE.md",
        what: "nested_memory attachment: a CLAUDE.md in the directory of a file the model Reads, appended after the result",
        lever: Lever::Setting("claudeMdExcludes (glob patterns of CLAUDE.md files not to load)"),
    },
    Channel {
        name: "change on disk",
        what: "edited_text_file attachment: a snippet of a file the model read or wrote, after something else changed it (a command, a formatter)",
        lever: Lever::None,
    },
    Channel {
        name: "other attachments",
        what: "teammate_mailbox, mcp_resource, mcp_instructions_delta (an MCP server's instructions), relevant_memories, plan_file_reference, selected_lines_in_ide",
        lever: Lever::None,
    },
];

/// `--doctor`'s report: one line per channel, what reaches it. The channels no lever
/// reaches come last, marked `UNREACHED`.
pub(crate) fn report() -> String {
    let mut out = format!(
        "airlock tool-output doctor: what {CLIENT} adds outside a tool result's PostToolUse\n"
    );
    let mut ordered: Vec<&Channel> = CHANNELS.iter().collect();
    ordered.sort_by_key(|c| c.lever == Lever::None);
    for c in ordered {
        let (tag, lever) = match c.lever {
            Lever::Refused => (
                "refused  ",
                "the --quarantine-gate entry refuses the call, with a reason".to_owned(),
            ),
            Lever::Setting(s) => ("setting  ", format!("off only if you set {s}")),
            Lever::None => (
                "UNREACHED",
                "no hook, setting or policy reaches it: the text goes to the model raw".to_owned(),
            ),
        };
        out.push_str(&format!("{tag} {}: {} — {lever}\n", c.name, c.what));
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn input(json: &str) -> PolicyInput {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn refuses_the_calls_that_open_unreached_channels() {
        assert!(refusal("Monitor", None).unwrap().contains("Monitor"));
        let bg = refusal(
            "Bash",
            Some(&input(r#"{"command":"x","run_in_background":true}"#)),
        );
        assert!(bg.unwrap().contains("without run_in_background"));
        assert!(refusal("Agent", Some(&input(r#"{"run_in_background":"yes"}"#))).is_some());
        assert!(refusal("Read", Some(&input(r#"{"file_path":"/a/Report.PDF"}"#))).is_some());
    }

    #[test]
    fn lets_the_others_through() {
        assert_eq!(refusal("Bash", Some(&input(r#"{"command":"x"}"#))), None);
        assert_eq!(
            refusal("Bash", Some(&input(r#"{"run_in_background":false}"#))),
            None
        );
        assert_eq!(
            refusal("Read", Some(&input(r#"{"file_path":"/a/pdf.txt"}"#))),
            None
        );
        assert_eq!(refusal("Read", Some(&input(r#"{"file_path":7}"#))), None);
        assert_eq!(refusal("Write", None), None);
    }

    #[test]
    fn the_report_names_every_unreached_channel() {
        let r = report();
        for c in CHANNELS.iter().filter(|c| c.lever == Lever::None) {
            assert!(r.contains(&format!("UNREACHED {}", c.name)), "{r}");
        }
        assert!(r.contains(CLIENT));
    }
}
