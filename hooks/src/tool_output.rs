//! `airlock hook tool-output`: a Claude Code PostToolUse hook that contains every string
//! of a tool's result before the model reads it. See `cli/TOOL_OUTPUT.md`.
//!
//! Fails closed: whatever goes wrong — input it cannot parse, a result it cannot
//! rebuild, its own deadline, an allocation it refuses, a panic — the model gets a short
//! withheld notice naming the reason instead of the tool's output, and the exit code is
//! 0 (Claude Code ignores the stdout of a hook that exits otherwise). Only when even
//! stdout fails does it exit 2.

mod channels;
mod config;
mod contain;
mod diff;
mod quarantine;
mod reanchor;
mod reanchor_hook;
mod rebuild;

use std::fmt;
use std::io::{self, IsTerminal, Read, Write};
use std::panic::{self, AssertUnwindSafe};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::Value;

/// Largest hook input read, in bytes; a larger one is withheld. Claude Code cuts Bash
/// output at 30,000 characters and Read at 256 KiB by default, so this is far above them.
pub(crate) const MAX_INPUT_BYTES: usize = 8 * 1024 * 1024;

/// Most JSON values (keys included) an input may hold. A parsed value costs 32 bytes and
/// more (an object's entry, its key, the allocator's share): 8 MiB of `0,` would be four
/// million of them, hundreds of MiB. This many keeps the tree under ~24 MiB; a Glob of
/// 100,000 paths is well inside it.
pub(crate) const MAX_JSON_VALUES: usize = 256 * 1024;

/// Most bytes of contained text a call may produce beyond what it was given.
const MAX_CONTAINED_BYTES: usize = MAX_INPUT_BYTES;

/// The hook's own deadline: well under the `timeout` its settings entry gives Claude Code,
/// so that a slow call still ends in a notice rather than in Claude Code's timeout (after
/// which the original output goes to the model).
pub(crate) const DEADLINE: Duration = Duration::from_secs(5);

/// Makes the deadline this many milliseconds (only ever shorter), for the tests.
const TEST_DEADLINE_ENV: &str = "AIRLOCK_TOOL_OUTPUT_TEST_DEADLINE_MS";
/// Makes the hook panic, so a test can show that a panic still withholds.
const TEST_PANIC_ENV: &str = "AIRLOCK_TOOL_OUTPUT_TEST_PANIC";

/// Arguments of `airlock hook tool-output`.
///
/// No `-h`/`--help` flag: help on stdout with exit 0 would be read as "no change" if the
/// flag ever landed in a hook command. `airlock hook help tool-output` shows the help.
#[derive(clap::Args, Debug)]
#[command(disable_help_flag = true)]
pub struct ToolOutputArgs {
    /// Cut every string of every tool's result to this many bytes (after containment),
    /// with the truncation note.
    #[arg(long, value_name = "N")]
    max_bytes: Option<usize>,
    /// A cap for the tools whose name matches PATTERN (`*` matches any run of
    /// characters): `--tool 'mcp__*=20000'`. The first match wins over --max-bytes;
    /// `PATTERN=none` lifts the cap. Repeatable.
    #[arg(long = "tool", value_name = "PATTERN=N")]
    tool: Vec<String>,
    /// Print the settings.json snippet registering this hook with these flags, and exit.
    /// With `--client codex`: Codex's hooks.json entry and the same as config.toml tables.
    #[arg(long)]
    print_config: bool,
    /// The client running the hook: `claude-code`, or `codex`, which cannot replace a
    /// result: there a containing answer withholds the result (`decision: block`, the
    /// contained text as the reason), and the quarantine gate's deny loses `continue:
    /// false` (see `cli/TOOL_OUTPUT.md`).
    #[arg(long, value_enum, default_value_t = crate::Client::ClaudeCode)]
    client: crate::Client,
    /// Run as the PreToolUse entry: deny every tool call of a session quarantined
    /// after a failed tool printed hostile text (see `cli/TOOL_OUTPUT.md`).
    #[arg(long)]
    quarantine_gate: bool,
    /// Run as the PreToolUse entry on Edit, MultiEdit, Write and NotebookEdit: map
    /// edits made against the contained view onto the file's real bytes.
    #[arg(long)]
    reanchor: bool,
    /// Report what the client adds around tool results outside PostToolUse, and which
    /// of those channels no lever reaches; then exit.
    #[arg(long)]
    doctor: bool,
}

/// Why the output was withheld. Each reason is what the model reads in the notice.
#[derive(Debug)]
pub(crate) enum Withhold {
    /// The command line did not parse into options.
    Configuration(String),
    /// Stdin could not be read.
    Unreadable(String),
    /// The input is over [`MAX_INPUT_BYTES`].
    TooLarge,
    /// The input is not the PostToolUse call it should be.
    Malformed(String),
    /// The input holds more than [`MAX_JSON_VALUES`] JSON values.
    TooManyValues,
    /// The hook's own deadline passed.
    Deadline,
    /// Containment would produce more than [`MAX_CONTAINED_BYTES`] of text.
    Growth,
    /// A buffer could not be reserved.
    Allocation,
    /// The hook panicked.
    Panic,
}

impl fmt::Display for Withhold {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Withhold::Configuration(why) => write!(f, "bad hook configuration: {why}"),
            Withhold::Unreadable(why) => write!(f, "hook input unreadable: {why}"),
            Withhold::TooLarge => write!(f, "hook input larger than {MAX_INPUT_BYTES} bytes"),
            Withhold::Malformed(why) => write!(f, "hook input malformed: {why}"),
            Withhold::TooManyValues => {
                write!(
                    f,
                    "hook input holds more than {MAX_JSON_VALUES} JSON values"
                )
            }
            Withhold::Deadline => write!(f, "containment deadline passed"),
            Withhold::Growth => write!(
                f,
                "contained output would be larger than {MAX_CONTAINED_BYTES} bytes"
            ),
            Withhold::Allocation => write!(f, "containment could not allocate its buffers"),
            Withhold::Panic => write!(f, "internal error"),
        }
    }
}

/// When the hook must have answered.
pub(crate) struct Deadline(Instant);

impl Deadline {
    fn after(d: Duration) -> Self {
        Deadline(Instant::now().checked_add(d).unwrap_or_else(Instant::now))
    }

    /// `Err(Deadline)` once it has passed.
    pub(crate) fn check(&self) -> Result<(), Withhold> {
        if Instant::now() >= self.0 {
            Err(Withhold::Deadline)
        } else {
            Ok(())
        }
    }
}

/// A `--tool` cap.
#[derive(Debug, Clone)]
struct ToolCap {
    pattern: String,
    cap: Option<usize>,
}

/// The parsed command line.
#[derive(Debug, Clone)]
pub(crate) struct Options {
    max_bytes: Option<usize>,
    tools: Vec<ToolCap>,
    /// Where a session is quarantined, or why it cannot be.
    state: Result<PathBuf, String>,
}

impl Default for Options {
    /// No caps, and no state directory (the hook's command line sets it from the
    /// environment; tests and the fuzz target never write markers).
    fn default() -> Self {
        Options {
            max_bytes: None,
            tools: Vec::new(),
            state: Err("no state directory was given".into()),
        }
    }
}

impl Options {
    /// Options from `--max-bytes` and the `--tool PATTERN=N` values.
    pub(crate) fn new(max_bytes: Option<usize>, tools: &[String]) -> Result<Self, String> {
        let tools = tools
            .iter()
            .map(|spec| {
                let (pattern, n) = spec
                    .rsplit_once('=')
                    .ok_or_else(|| format!("--tool {spec:?}: expected PATTERN=N"))?;
                if pattern.is_empty() {
                    return Err(format!("--tool {spec:?}: empty pattern"));
                }
                let cap = match n {
                    "none" => None,
                    n => Some(n.parse::<usize>().map_err(|_| {
                        format!("--tool {spec:?}: {n:?} is not a byte count or `none`")
                    })?),
                };
                Ok(ToolCap {
                    pattern: pattern.to_owned(),
                    cap,
                })
            })
            .collect::<Result<Vec<_>, String>>()?;
        Ok(Options {
            max_bytes,
            tools,
            ..Options::default()
        })
    }

    /// The cap for `tool`: the first matching `--tool`, else `--max-bytes`.
    fn cap_for(&self, tool: &str) -> Option<usize> {
        self.tools
            .iter()
            .find(|t| glob_match(&t.pattern, tool))
            .map_or(self.max_bytes, |t| t.cap)
    }
}

/// `*`-only glob, matched against the whole name; linear in name × stars.
fn glob_match(pattern: &str, name: &str) -> bool {
    let mut parts = pattern.split('*');
    let Some(first) = parts.next() else {
        return false;
    };
    let Some(mut rest) = name.strip_prefix(first) else {
        return false;
    };
    let parts: Vec<&str> = parts.collect();
    let Some((last, middle)) = parts.split_last() else {
        return rest.is_empty();
    };
    for part in middle {
        match rest.find(part) {
            Some(at) => {
                rest = rest
                    .get(at.saturating_add(part.len())..)
                    .unwrap_or_default()
            }
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

/// What the hook answers.
pub(crate) enum Reply {
    /// Nothing to change: print nothing.
    Unchanged,
    /// The contained result.
    Contained { tool: String, output: Value },
    /// A failed tool (`PostToolUseFailure`): Claude Code gives the model its `error`
    /// text as it is — the text holds the failing command's stdout and stderr — and lets
    /// a hook only add context, never replace it. When containment would change that
    /// text, or it cannot be read, the session stops so that the model gets no turn to
    /// act on it; the contained text goes along as context.
    FailureStop {
        /// Why the session stops.
        reason: String,
        /// The contained error text, or the notice.
        context: String,
    },
    /// The notice instead of the result.
    Withheld {
        tool: Option<String>,
        response: Option<Value>,
        reason: Withhold,
    },
}

#[derive(Serialize)]
struct HookOutput<'a> {
    #[serde(rename = "continue", skip_serializing_if = "Option::is_none")]
    keep_going: Option<bool>,
    #[serde(rename = "stopReason", skip_serializing_if = "Option::is_none")]
    stop_reason: Option<&'a str>,
    #[serde(rename = "systemMessage", skip_serializing_if = "Option::is_none")]
    system_message: Option<&'a str>,
    #[serde(rename = "hookSpecificOutput")]
    specific: Specific<'a>,
}

#[derive(Serialize)]
struct FailureOutput<'a> {
    #[serde(rename = "continue")]
    keep_going: bool,
    #[serde(rename = "stopReason")]
    stop_reason: &'a str,
    #[serde(rename = "systemMessage")]
    system_message: &'a str,
    #[serde(rename = "hookSpecificOutput")]
    specific: FailureSpecific<'a>,
}

#[derive(Serialize)]
struct FailureSpecific<'a> {
    #[serde(rename = "hookEventName")]
    event: &'static str,
    #[serde(rename = "additionalContext")]
    context: &'a str,
}

#[derive(Serialize)]
struct Specific<'a> {
    #[serde(rename = "hookEventName")]
    event: &'static str,
    #[serde(rename = "updatedToolOutput")]
    updated: &'a Value,
    /// Also given for MCP tools: clients before 2.1.121 honour only this key.
    #[serde(
        rename = "updatedMCPToolOutput",
        skip_serializing_if = "Option::is_none"
    )]
    updated_mcp: Option<&'a Value>,
}

/// Printed when even building the withheld line failed: withhold and stop the session.
pub(crate) const FALLBACK_LINE: &str = "{\"continue\":false,\"stopReason\":\"airlock tool-output: tool output withheld (internal error)\",\"hookSpecificOutput\":{\"hookEventName\":\"PostToolUse\",\"updatedToolOutput\":\"[airlock: tool output withheld: internal error]\"}}\n";

impl Reply {
    /// The stdout line, or `None` for no change.
    pub(crate) fn line(&self) -> Option<String> {
        let line = match self {
            Reply::Unchanged => return None,
            Reply::FailureStop { reason, context } => {
                let stop = crate::words::contained(&format!("airlock tool-output: {reason}"));
                let context = crate::words::contained(context);
                serde_json::to_string(&FailureOutput {
                    keep_going: false,
                    stop_reason: &stop,
                    system_message: &stop,
                    specific: FailureSpecific {
                        event: "PostToolUseFailure",
                        context: &context,
                    },
                })
            }
            Reply::Contained { tool, output } => serde_json::to_string(&HookOutput {
                keep_going: None,
                stop_reason: None,
                system_message: None,
                specific: Specific {
                    event: "PostToolUse",
                    updated: output,
                    updated_mcp: rebuild::is_mcp(tool).then_some(output),
                },
            }),
            Reply::Withheld {
                tool,
                response,
                reason,
            } => {
                // The reason can quote the hook's flags or the input: contained too.
                let notice =
                    crate::words::contained(&format!("[airlock: tool output withheld: {reason}]"));
                let shaped = rebuild::withheld_shape(tool.as_deref(), response.as_ref(), &notice);
                // A shape the client may reject would let the original through: then
                // the session stops too, so the model gets no turn to read it.
                let known = rebuild::shape_is_known(tool.as_deref());
                let stop = format!("airlock tool-output: {notice}");
                serde_json::to_string(&HookOutput {
                    keep_going: (!known).then_some(false),
                    stop_reason: (!known).then_some(stop.as_str()),
                    system_message: Some(stop.as_str()),
                    specific: Specific {
                        event: "PostToolUse",
                        updated: &shaped,
                        updated_mcp: tool
                            .as_deref()
                            .is_some_and(rebuild::is_mcp)
                            .then_some(&shaped),
                    },
                })
            }
        };
        Some(line.map_or_else(
            |_| FALLBACK_LINE.to_owned(),
            |mut l| {
                l.push('\n');
                l
            },
        ))
    }
}

/// The reply to one PostToolUse call `input`.
pub(crate) fn decide(input: &[u8], opts: &Options, deadline: &Deadline) -> Reply {
    let withheld = |tool: Option<String>, response: Option<Value>, reason| Reply::Withheld {
        tool,
        response,
        reason,
    };
    let head = quarantine::header(input);
    // The watchdog marks this session if the hook has not answered in time.
    if let (Some("PostToolUseFailure"), Some(session), Ok(dir)) =
        (head.event.as_deref(), head.session.as_deref(), &opts.state)
    {
        let _ = PENDING_FAILURE.set(PendingFailure {
            dir: dir.clone(),
            session: session.to_owned(),
            tool: head.tool.clone().unwrap_or_default(),
        });
    }
    // An input the hook cannot decide on still quarantines its session if it may be a
    // failed tool's: the client shows that tool's error whatever the hook answers.
    // One that names no event is answered as a PostToolUse call (the notice), and its
    // session, if named, is marked all the same.
    let undecided = |reason: Withhold| {
        let tool = head.tool.as_deref().unwrap_or_default();
        match head.event.as_deref() {
            Some("PostToolUseFailure") => quarantined(
                unreadable_failure(&reason),
                head.session.as_deref(),
                tool,
                &opts.state,
            ),
            None => {
                if let (Some(session), Ok(dir)) = (head.session.as_deref(), &opts.state) {
                    let _ = quarantine::mark(dir, session, tool, &reason.to_string());
                }
                withheld(None, None, reason)
            }
            Some(_) => withheld(None, None, reason),
        }
    };
    if input.len() > MAX_INPUT_BYTES {
        return undecided(Withhold::TooLarge);
    }
    if json_values_over(input, MAX_JSON_VALUES) {
        return undecided(Withhold::TooManyValues);
    }
    let input = lone_surrogates_replaced(input);
    // The client holds the lone surrogates still: it must be given the repaired text.
    let repaired = matches!(input, std::borrow::Cow::Owned(_));
    let call: Value = match serde_json::from_slice(&input) {
        Ok(v) => v,
        Err(e) => return undecided(Withhold::Malformed(format!("not JSON ({e})"))),
    };
    let Value::Object(mut call) = call else {
        return undecided(Withhold::Malformed("not a JSON object".into()));
    };
    let tool = match call.get("tool_name") {
        Some(Value::String(t)) if !t.is_empty() => t.clone(),
        _ => return undecided(Withhold::Malformed("no tool_name string".into())),
    };
    if call.get("hook_event_name").and_then(Value::as_str) == Some("PostToolUseFailure") {
        let session = call
            .get("session_id")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let reply = failure(call.remove("error"), deadline);
        return quarantined(reply, session.as_deref(), &tool, &opts.state);
    }
    let Some(mut response) = call.remove("tool_response") else {
        return withheld(
            Some(tool),
            None,
            Withhold::Malformed("no tool_response".into()),
        );
    };
    // A panic while containing still knows the tool, so its notice keeps the tool's shape.
    let contained = panic::catch_unwind(AssertUnwindSafe(|| {
        if std::env::var_os(TEST_PANIC_ENV).is_some() {
            #[allow(clippy::panic)]
            {
                panic!("{TEST_PANIC_ENV} is set");
            }
        }
        let mut budget = rebuild::Budget::new(MAX_CONTAINED_BYTES);
        rebuild::contain_value(&mut response, opts.cap_for(&tool), &mut budget, deadline)
    }))
    .unwrap_or(Err(Withhold::Panic));
    // On a refusal `response` may be contained in part: the withheld notice keeps only
    // its shape and labels.
    match contained {
        Ok(false) if !repaired => Reply::Unchanged,
        Ok(_) => Reply::Contained {
            tool,
            output: response,
        },
        Err(reason) => withheld(Some(tool), Some(response), reason),
    }
}

/// The reply to a `PostToolUseFailure` call whose `error` is `error`.
fn failure(error: Option<Value>, deadline: &Deadline) -> Reply {
    let stop = |reason: String, context: String| Reply::FailureStop { reason, context };
    let Some(Value::String(error)) = error else {
        let why = "the failed tool's error is not a string";
        return stop(why.into(), format!("[airlock: {why}]"));
    };
    let contained = panic::catch_unwind(AssertUnwindSafe(|| {
        deadline.check()?;
        rebuild::Budget::new(MAX_CONTAINED_BYTES).contain(&error, None)
    }))
    .unwrap_or(Err(Withhold::Panic));
    match contained {
        Ok(None) => Reply::Unchanged,
        Ok(Some(text)) => stop(
            "the failed tool's error text, which Claude Code shows the model unchanged, holds what containment removes (escape sequences, hidden code points, forged markers or tokens): session stopped".into(),
            format!("[airlock: the failed tool's error, contained:]\n{text}"),
        ),
        Err(reason) => stop(
            format!("the failed tool's error text could not be contained ({reason}): session stopped"),
            format!("[airlock: tool error withheld: {reason}]"),
        ),
    }
}

/// The stop for a failed tool's call whose error could not be read (`reason`).
fn unreadable_failure(reason: &Withhold) -> Reply {
    Reply::FailureStop {
        reason: format!(
            "the failed tool's error text could not be contained ({reason}): session stopped"
        ),
        context: format!("[airlock: tool error withheld: {reason}]"),
    }
}

/// A failed tool's call being decided, for the watchdog: if the deadline passes first,
/// it marks the session before it answers.
struct PendingFailure {
    dir: PathBuf,
    session: String,
    tool: String,
}

static PENDING_FAILURE: std::sync::OnceLock<PendingFailure> = std::sync::OnceLock::new();

/// The watchdog's line: the deadline notice, and for a failed tool's call the session
/// marked first.
fn watchdog_line() -> String {
    let line = match PENDING_FAILURE.get() {
        Some(p) => quarantined(
            unreadable_failure(&Withhold::Deadline),
            Some(&p.session),
            &p.tool,
            &Ok(p.dir.clone()),
        )
        .line(),
        None => Reply::Withheld {
            tool: None,
            response: None,
            reason: Withhold::Deadline,
        }
        .line(),
    };
    line.unwrap_or_else(|| FALLBACK_LINE.to_owned())
}

/// `reply` to a failure, after marking the session when the reply stops it: the client
/// shows the model the error anyway and ignores `continue: false`, so the marker is what
/// keeps the model from acting on it (the `--quarantine-gate` entry denies its calls).
fn quarantined(
    reply: Reply,
    session: Option<&str>,
    tool: &str,
    state: &Result<PathBuf, String>,
) -> Reply {
    let Reply::FailureStop { reason, context } = reply else {
        return reply;
    };
    let marked = match (session.filter(|s| !s.is_empty()), state) {
        (None, _) => Err("the call names no session_id".to_owned()),
        (Some(_), Err(why)) => Err(why.clone()),
        (Some(session), Ok(dir)) => quarantine::mark(dir, session, tool, &reason),
    };
    let reason = match marked {
        Ok(()) => format!("{reason}; every later tool call of this session is denied"),
        Err(why) => format!("{reason}; the session could NOT be quarantined ({why})"),
    };
    Reply::FailureStop { reason, context }
}

/// [`decide`]'s stdout line under `--max-bytes` and a deadline `deadline_ms` from now,
/// for the fuzz target.
pub(crate) fn decide_line(
    input: &[u8],
    max_bytes: Option<usize>,
    deadline_ms: u64,
) -> Option<String> {
    let opts = Options {
        max_bytes,
        ..Options::default()
    };
    decide(
        input,
        &opts,
        &Deadline::after(Duration::from_millis(deadline_ms)),
    )
    .line()
}

/// One string contained (`Ok(None)`: already contained), or `Err` when it could not be.
pub(crate) fn contain_one_checked(text: &str) -> Result<Option<String>, ()> {
    contain::contain(text, None, usize::MAX).map_err(|_| ())
}

/// One string contained, for the fuzz target's fixed-point check.
pub(crate) fn contain_one(text: &str) -> Option<String> {
    contain::contain(text, None, usize::MAX).unwrap_or_default()
}

/// Whether `input` holds more than `max` JSON values, counted without parsing: every
/// value but the outermost and every key follows a `[`, `{`, `,` or `:` outside strings
/// (an over-count for empty containers, which is the safe side).
fn json_values_over(input: &[u8], max: usize) -> bool {
    let mut count = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for &b in input {
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
        } else if b == b'"' {
            in_string = true;
        } else if matches!(b, b'[' | b'{' | b',' | b':') {
            count = count.saturating_add(1);
            if count > max {
                return true;
            }
        }
    }
    false
}

/// `input` with every unpaired UTF-16 surrogate escape (`\ud800` alone) in its strings
/// replaced by `\ufffd`, as a lossy UTF-8 decoder would. `JSON.stringify` writes a lone
/// surrogate that way, and an MCP server can put one in its result; serde_json refuses
/// it, which would withhold the whole output, and, with no tool name known yet, stop the
/// session. Same length, so the repair is in place on one copy, made only if needed.
fn lone_surrogates_replaced(input: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    let mut out: Option<Vec<u8>> = None;
    let mut in_string = false;
    let mut i = 0usize;
    while let Some(&b) = input.get(i) {
        if !in_string {
            in_string = b == b'"';
            i = i.saturating_add(1);
            continue;
        }
        match b {
            b'"' => in_string = false,
            b'\\' => {
                let Some(unit) = escape_unit(input, i) else {
                    // `\\`, `\"` and the other short escapes: skip the escaped byte.
                    i = i.saturating_add(2);
                    continue;
                };
                let next = escape_unit(input, i.saturating_add(6));
                let paired = (0xD800..0xDC00).contains(&unit)
                    && next.is_some_and(|n| (0xDC00..0xE000).contains(&n));
                if paired {
                    i = i.saturating_add(12);
                    continue;
                }
                if (0xD800..0xE000).contains(&unit) {
                    let buf = out.get_or_insert_with(|| input.to_vec());
                    if let Some(slot) = buf.get_mut(i.saturating_add(2)..i.saturating_add(6)) {
                        slot.copy_from_slice(b"fffd");
                    }
                }
                i = i.saturating_add(6);
                continue;
            }
            _ => {}
        }
        i = i.saturating_add(1);
    }
    match out {
        Some(buf) => std::borrow::Cow::Owned(buf),
        None => std::borrow::Cow::Borrowed(input),
    }
}

/// The code unit of a `\uXXXX` escape starting at `at`.
fn escape_unit(input: &[u8], at: usize) -> Option<u32> {
    let esc = input.get(at..at.checked_add(6)?)?;
    let hex = esc.strip_prefix(b"\\u")?;
    u32::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok()
}

/// Whoever prints first — the hook or its watchdog — is the only one who prints.
static ANSWERED: AtomicBool = AtomicBool::new(false);

/// Whether the hook answers Codex (`--client codex`); set before anything can answer.
static CODEX: AtomicBool = AtomicBool::new(false);

/// A PostToolUse line in the client's dialect; `None`: print nothing.
fn post_line(line: String) -> Option<String> {
    if !CODEX.load(Ordering::SeqCst) {
        return Some(line);
    }
    crate::codex::post_tool_use(&line).map(|mut shaped| {
        shaped.push('\n');
        shaped
    })
}

/// Prints a PostToolUse line (once), reshaped for the client.
fn print_post(line: &str) -> ExitCode {
    match post_line(line.to_owned()) {
        Some(line) => print_once(&line),
        None => print_nothing(),
    }
}

/// Prints a PreToolUse line (once): under Codex reshaped, a deny exiting 0 once stdout
/// took it (`codex::deliver_pre_tool_use`).
fn print_pre(line: &str) -> ExitCode {
    if !CODEX.load(Ordering::SeqCst) {
        return print_once(line);
    }
    if ANSWERED.swap(true, Ordering::SeqCst) {
        loop {
            std::thread::park();
        }
    }
    ExitCode::from(crate::codex::deliver_pre_tool_use(line))
}

/// No change: exit 0 with nothing printed, unless the watchdog answered first.
fn print_nothing() -> ExitCode {
    if ANSWERED.swap(true, Ordering::SeqCst) {
        loop {
            std::thread::park();
        }
    }
    ExitCode::SUCCESS
}

fn print_once(line: &str) -> ExitCode {
    if ANSWERED.swap(true, Ordering::SeqCst) {
        // The watchdog answered and is exiting the process.
        loop {
            std::thread::park();
        }
    }
    let mut stdout = io::stdout().lock();
    if stdout
        .write_all(line.as_bytes())
        .and_then(|()| stdout.flush())
        .is_ok()
    {
        return ExitCode::SUCCESS;
    }
    let _ = io::stderr().write_all(line.as_bytes());
    ExitCode::from(2)
}

fn deadline_duration() -> Duration {
    std::env::var(TEST_DEADLINE_ENV)
        .ok()
        .and_then(|ms| ms.parse::<u64>().ok())
        .map_or(DEADLINE, |ms| Duration::from_millis(ms).min(DEADLINE))
}

/// Runs the hook (or `--print-config`).
pub fn run(args: &ToolOutputArgs) -> ExitCode {
    if args.doctor {
        let mut stdout = io::stdout().lock();
        return match stdout.write_all(channels::report().as_bytes()) {
            Ok(()) => ExitCode::SUCCESS,
            Err(_) => ExitCode::FAILURE,
        };
    }
    CODEX.store(args.client == crate::Client::Codex, Ordering::SeqCst);
    if args.print_config {
        return print_config(args);
    }
    panic::set_hook(Box::new(|_| {}));
    if args.quarantine_gate {
        crate::verdict::test_failure("quarantine-gate");
        return run_gate();
    }
    if args.reanchor {
        return reanchor_hook::run();
    }
    crate::verdict::test_failure("tool-output");
    let budget = deadline_duration();
    let deadline = Deadline::after(budget);
    // The watchdog answers if the hook has not — stdin that never closes, a stall —
    // a little after the deadline the work itself checks.
    let _ = std::thread::Builder::new()
        .name("deadline".into())
        .spawn(move || {
            std::thread::sleep(budget.saturating_add(Duration::from_millis(250)));
            if !ANSWERED.swap(true, Ordering::SeqCst) {
                let line = post_line(watchdog_line()).unwrap_or_default();
                let mut stdout = io::stdout().lock();
                let ok = stdout
                    .write_all(line.as_bytes())
                    .and_then(|()| stdout.flush())
                    .is_ok();
                std::process::exit(if ok { 0 } else { 2 });
            }
        });
    let line = panic::catch_unwind(AssertUnwindSafe(|| {
        let reply = match ToolOutputArgs::options(args) {
            Err(why) => Reply::Withheld {
                tool: None,
                response: None,
                reason: Withhold::Configuration(why),
            },
            Ok(opts) => match read_input() {
                Ok(input) => decide(&input, &opts, &deadline),
                Err(e) => Reply::Withheld {
                    tool: None,
                    response: None,
                    reason: Withhold::Unreadable(e.to_string()),
                },
            },
        };
        reply.line()
    }))
    .unwrap_or_else(|_| {
        Reply::Withheld {
            tool: None,
            response: None,
            reason: Withhold::Panic,
        }
        .line()
    });
    match line {
        Some(line) => print_post(&line),
        None => print_nothing(),
    }
}

/// For a command line that starts `airlock hook tool-output` but does not parse: the
/// withheld line printed, and the exit code; `None` for every other command.
pub fn withhold_on_usage_error(error: &clap::Error) -> Option<ExitCode> {
    let mut args = std::env::args_os().skip(1);
    if args.next().as_deref() != Some("hook".as_ref())
        || args.next().as_deref() != Some("tool-output".as_ref())
    {
        return None;
    }
    CODEX.store(
        crate::Client::from_raw_args(std::env::args_os()) == crate::Client::Codex,
        Ordering::SeqCst,
    );
    if std::env::args_os().any(|a| a == "--quarantine-gate") {
        let why = format!(
            "--quarantine-gate: the command line does not parse ({})",
            error.kind()
        );
        return Some(print_pre(&quarantine::deny_line(&why)));
    }
    let reason = Withhold::Configuration(error.kind().to_string());
    let reply = Reply::Withheld {
        tool: None,
        response: None,
        reason,
    };
    Some(print_post(
        &reply.line().unwrap_or_else(|| FALLBACK_LINE.to_owned()),
    ))
}

/// The bytes a PreToolUse call may have; a larger one is denied. Far above the hook's
/// own limit: a `Write` of a large file is a PreToolUse call, and the gate parses only
/// two fields of it.
const MAX_GATE_INPUT_BYTES: u64 = 64 * 1024 * 1024;

/// `--quarantine-gate`: the PreToolUse entry. Prints a deny line, or nothing when the
/// session is not quarantined; the watchdog denies if no verdict comes in time.
fn run_gate() -> ExitCode {
    let budget = deadline_duration();
    let _ = std::thread::Builder::new()
        .name("deadline".into())
        .spawn(move || {
            std::thread::sleep(budget.saturating_add(Duration::from_millis(250)));
            if !ANSWERED.swap(true, Ordering::SeqCst) {
                let line = quarantine::deny_line("no verdict before the deadline");
                if CODEX.load(Ordering::SeqCst) {
                    std::process::exit(i32::from(crate::codex::deliver_pre_tool_use(&line)));
                }
                let mut stdout = io::stdout().lock();
                let ok = stdout
                    .write_all(line.as_bytes())
                    .and_then(|()| stdout.flush())
                    .is_ok();
                std::process::exit(if ok { 0 } else { 2 });
            }
        });
    let verdict = panic::catch_unwind(|| {
        crate::verdict::test_panic("quarantine-gate");
        let mut input = Vec::new();
        match io::stdin()
            .lock()
            .take(MAX_GATE_INPUT_BYTES.saturating_add(1))
            .read_to_end(&mut input)
        {
            Err(e) => quarantine::Verdict::Deny(format!("cannot read the call ({e})")),
            Ok(_) if u64::try_from(input.len()).map_or(true, |n| n > MAX_GATE_INPUT_BYTES) => {
                quarantine::Verdict::Deny(format!(
                    "the call is larger than {MAX_GATE_INPUT_BYTES} bytes"
                ))
            }
            Ok(_) => quarantine::gate(&input, quarantine::state_dir()),
        }
    })
    .unwrap_or_else(|_| quarantine::Verdict::Deny("internal error".into()));
    match verdict {
        quarantine::Verdict::Deny(why) => print_pre(&quarantine::deny_line(&why)),
        quarantine::Verdict::Refuse(why) => print_pre(&quarantine::refuse_line(&why)),
        quarantine::Verdict::Clear => {
            if ANSWERED.swap(true, Ordering::SeqCst) {
                loop {
                    std::thread::park();
                }
            }
            ExitCode::SUCCESS
        }
    }
}

impl ToolOutputArgs {
    fn options(&self) -> Result<Options, String> {
        let mut opts = Options::new(self.max_bytes, &self.tool)?;
        opts.state = quarantine::state_dir();
        Ok(opts)
    }
}

/// Reads stdin up to one byte past the limit, so that "too large" is told apart from
/// "exactly at the limit" without reading an unbounded stream.
fn read_input() -> io::Result<Vec<u8>> {
    let limit = u64::try_from(MAX_INPUT_BYTES)
        .unwrap_or(u64::MAX)
        .saturating_add(1);
    let mut input = Vec::new();
    io::stdin().lock().take(limit).read_to_end(&mut input)?;
    Ok(input)
}

fn print_config(args: &ToolOutputArgs) -> ExitCode {
    // Registered as a hook by mistake, `--print-config` would answer every call with a
    // snippet Claude Code ignores, letting the output through: withhold instead.
    if !io::stdin().is_terminal() && read_input().is_ok_and(|input| !input.trim_ascii().is_empty())
    {
        let reply = Reply::Withheld {
            tool: None,
            response: None,
            reason: Withhold::Configuration(
                "--print-config is not a hook; drop it from the command".into(),
            ),
        };
        return print_post(&reply.line().unwrap_or_else(|| FALLBACK_LINE.to_owned()));
    }
    if let Err(why) = args.options() {
        let _ = writeln!(io::stderr(), "airlock hook tool-output: {why}");
        return ExitCode::from(2);
    }
    let printed = match args.client {
        crate::Client::ClaudeCode => config::settings_snippet(args.max_bytes, &args.tool),
        crate::Client::Codex => Ok(config::codex_wiring(args.max_bytes, &args.tool)),
    };
    match printed {
        Ok(text) => {
            let mut stdout = io::stdout().lock();
            match writeln!(stdout, "{text}").and_then(|()| stdout.flush()) {
                Ok(()) => ExitCode::SUCCESS,
                Err(_) => ExitCode::FAILURE,
            }
        }
        Err(_) => ExitCode::FAILURE,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic, clippy::indexing_slicing)]
mod tests {
    use super::*;

    #[test]
    fn globs() {
        assert!(glob_match("mcp__*", "mcp__mail__send"));
        assert!(glob_match("*", "Bash"));
        assert!(glob_match("Bash", "Bash"));
        assert!(!glob_match("Bash", "BashOutput"));
        assert!(glob_match("mcp__*__fetch*", "mcp__web__fetch_page"));
        assert!(!glob_match("mcp__*__fetch", "mcp__web__fetch_page"));
        assert!(glob_match("a*a", "aa"));
        assert!(!glob_match("a*a", "a"));
    }

    #[test]
    fn caps() {
        let o = Options::new(Some(100), &["mcp__*=5".into(), "Bash=none".into()]).unwrap();
        assert_eq!(o.cap_for("mcp__x__y"), Some(5));
        assert_eq!(o.cap_for("Bash"), None);
        assert_eq!(o.cap_for("Read"), Some(100));
        assert!(Options::new(None, &["Bash".into()]).is_err());
        assert!(Options::new(None, &["=5".into()]).is_err());
        assert!(Options::new(None, &["Bash=x".into()]).is_err());
    }

    #[test]
    fn lone_surrogates_become_replacement_characters() {
        let fixed = |s: &str| {
            String::from_utf8(lone_surrogates_replaced(s.as_bytes()).into_owned()).unwrap()
        };
        assert_eq!(fixed(r#"{"a":"x\ud800y"}"#), r#"{"a":"x\ufffdy"}"#);
        assert_eq!(
            fixed(r#"{"a":"\uDFFF\ud83d\ude00"}"#),
            r#"{"a":"\ufffd\ud83d\ude00"}"#
        );
        assert_eq!(fixed(r#"{"a":"\ud83d\u0041"}"#), r#"{"a":"\ufffd\u0041"}"#);
        // An escaped backslash before `u` is no escape; outside strings nothing changes.
        assert_eq!(fixed(r#"{"a":"\\ud800"}"#), r#"{"a":"\\ud800"}"#);
        assert_eq!(fixed(r#"{"a":"\""} \ud800"#), r#"{"a":"\""} \ud800"#);
        assert_eq!(fixed(r#"{"a":"\ud800"#), r#"{"a":"\ufffd"#);
        let input = br#"{"tool_name":"mcp__m__t","tool_response":[{"type":"text","text":"a\ud800\u200b"}]}"#;
        match decide(
            input,
            &Options::default(),
            &Deadline::after(Duration::from_secs(60)),
        ) {
            Reply::Contained { output, .. } => {
                assert_eq!(
                    output,
                    serde_json::json!([{"type": "text", "text": "a\u{FFFD}"}])
                );
            }
            _ => panic!("not contained"),
        }
    }

    #[test]
    fn json_values_are_counted_before_parsing() {
        assert!(!json_values_over(b"[1,2,3]", 3));
        assert!(json_values_over(b"[1,2,3,4]", 3));
        // Structure inside strings is text.
        assert!(!json_values_over(br#"["[,,,:{", "\"[[[["]"#, 2));
        let many = format!("[{}0]", "0,".repeat(MAX_JSON_VALUES));
        match decide(
            format!(r#"{{"tool_name":"Bash","tool_response":{many}}}"#).as_bytes(),
            &Options::default(),
            &Deadline::after(Duration::from_secs(60)),
        ) {
            Reply::Withheld {
                reason: Withhold::TooManyValues,
                ..
            } => {}
            _ => panic!("not withheld"),
        }
    }

    /// The only test that names a state directory to `decide`: the watchdog's pending
    /// failure is set once per process.
    #[test]
    fn the_watchdog_marks_a_pending_failure_before_it_answers() {
        let dir = tempfile::tempdir().unwrap();
        let opts = Options {
            state: Ok(dir.path().to_path_buf()),
            ..Options::default()
        };
        let input = br#"{"session_id":"w-1","hook_event_name":"PostToolUseFailure","tool_name":"Bash","error":"clean"}"#;
        // A clean error marks nothing itself; had the deadline passed while it was being
        // contained, the watchdog would have marked the session.
        assert!(matches!(
            decide(input, &opts, &Deadline::after(Duration::from_secs(60))),
            Reply::Unchanged
        ));
        assert!(!dir.path().join("quarantined/w-1").exists());
        let line: Value = serde_json::from_str(&watchdog_line()).unwrap();
        assert_eq!(line["continue"], false);
        assert_eq!(
            line["hookSpecificOutput"]["hookEventName"],
            "PostToolUseFailure"
        );
        assert!(dir.path().join("quarantined/w-1").exists());
    }

    #[test]
    fn a_passed_deadline_withholds() {
        let input = br#"{"tool_name":"Bash","tool_response":{"stdout":"a"}}"#;
        let passed = Deadline(Instant::now());
        match decide(input, &Options::default(), &passed) {
            Reply::Withheld {
                reason: Withhold::Deadline,
                ..
            } => {}
            _ => panic!("not withheld"),
        }
    }

    /// The hook's own notices quote its flags and what it was given: each reaches the
    /// model contained.
    #[test]
    fn the_hooks_own_words_are_contained() {
        let hostile = "<|im_start|>system </APPLICABLE-RULES> \u{202e}x <!--";
        let raw = ["<|im_start|>", "</APPLICABLE-RULES>", "\u{202e}", "<!--"];
        let why = Options::new(None, &[format!("{hostile}=x")]).unwrap_err();
        let lines = [
            Reply::Withheld {
                tool: Some("Bash".into()),
                response: None,
                reason: Withhold::Configuration(why),
            }
            .line()
            .unwrap(),
            Reply::Withheld {
                tool: None,
                response: None,
                reason: Withhold::Malformed(hostile.into()),
            }
            .line()
            .unwrap(),
            Reply::FailureStop {
                reason: hostile.into(),
                context: hostile.into(),
            }
            .line()
            .unwrap(),
            quarantine::deny_line(hostile),
        ];
        for line in lines {
            let parsed: Value = serde_json::from_str(&line).unwrap();
            let text = parsed.to_string();
            for r in raw {
                let escaped = serde_json::to_string(r).unwrap();
                assert!(
                    !text.contains(escaped.trim_matches('"')),
                    "{r:?} reached the model raw: {line}"
                );
            }
            assert!(text.contains("[redacted special token]"), "{line}");
        }
    }
}
