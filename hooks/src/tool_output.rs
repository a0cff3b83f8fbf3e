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

use std::ffi::OsString;
use std::fmt;
use std::panic::{self, AssertUnwindSafe};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::Value;

use crate::{Client, Env};

/// Largest hook input read, in bytes; a larger one is withheld. Claude Code cuts Bash
/// output at 30,000 characters and Read at 256 KiB by default, so this is far above them.
/// The binary reads one byte more, so that "too large" is told apart from "exactly at
/// the limit" without reading an unbounded stream.
pub const MAX_INPUT_BYTES: usize = 8 * 1024 * 1024;

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
pub const DEADLINE: Duration = Duration::from_secs(5);

/// Makes the deadline this many milliseconds (only ever shorter), for the tests.
pub const TEST_DEADLINE_ENV: &str = "AIRLOCK_TOOL_OUTPUT_TEST_DEADLINE_MS";
/// Makes the hook panic, so a test can show that a panic still withholds.
pub const TEST_PANIC_ENV: &str = "AIRLOCK_TOOL_OUTPUT_TEST_PANIC";

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
pub struct Deadline(Instant);

impl Deadline {
    /// `d` from now.
    pub fn after(d: Duration) -> Self {
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

/// The parsed command line, with the state directory.
#[derive(Debug, Clone)]
pub struct Options {
    max_bytes: Option<usize>,
    tools: Vec<ToolCap>,
    /// Where a session is quarantined, or why it cannot be.
    state: Result<PathBuf, String>,
    /// Containment panics ([`TEST_PANIC_ENV`]).
    test_panic: bool,
}

impl Default for Options {
    /// No caps, and no state directory (the hook's command line sets it from the
    /// environment; tests and the fuzz target never write markers).
    fn default() -> Self {
        Options {
            max_bytes: None,
            tools: Vec::new(),
            state: Err("no state directory was given".into()),
            test_panic: false,
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
pub(crate) fn decide(input: &[u8], opts: &Options, deadline: &Deadline, watch: &Watch) -> Reply {
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
        let _ = watch.0.set(PendingFailure {
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
        if opts.test_panic {
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

/// The watchdog's line: the deadline notice, and for a failed tool's call the session
/// marked first.
fn watchdog_line(watch: &Watch) -> String {
    let line = match watch.0.get() {
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
        &Watch::default(),
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

/// A PostToolUse line in the client's dialect; `None`: print nothing.
fn post_line(client: Client, line: String) -> Option<String> {
    if client != Client::Codex {
        return Some(line);
    }
    crate::codex::post_tool_use(&line).map(|mut shaped| {
        shaped.push('\n');
        shaped
    })
}

/// `line` on stdout and exit 0; when stdout fails, the line on stderr and exit 2.
fn once(line: String) -> crate::Reply {
    crate::Reply {
        if_stdout_fails: Some(crate::Fallback {
            stderr: line.clone(),
            exit: 2,
        }),
        stdout: line,
        stderr: String::new(),
        exit: 0,
    }
}

/// A watchdog's `line` on stdout: exit 0, or 2 when stdout fails.
fn watchdog_reply(line: String) -> crate::Reply {
    crate::Reply {
        stdout: line,
        stderr: String::new(),
        exit: 0,
        if_stdout_fails: Some(crate::Fallback {
            stderr: String::new(),
            exit: 2,
        }),
    }
}

/// A PostToolUse line, reshaped for the client.
fn post(client: Client, line: &str) -> crate::Reply {
    post_line(client, line.to_owned()).map_or_else(crate::Reply::silent, once)
}

/// A PreToolUse line: under Codex reshaped, a deny exiting 0 once stdout took it
/// (`codex::pre_tool_use_reply`).
fn pre(client: Client, line: &str) -> crate::Reply {
    if client == Client::Codex {
        return crate::codex::pre_tool_use_reply(line);
    }
    once(line.to_owned())
}

/// The flags of `airlock hook tool-output` that shape its answers.
#[derive(Debug, Clone, Default)]
pub struct Flags {
    /// `--max-bytes`.
    pub max_bytes: Option<usize>,
    /// `--tool PATTERN=N`.
    pub tool: Vec<String>,
    /// `--client`.
    pub client: Client,
}

/// The deadline, shortened to `shorten_ms` (the value of [`TEST_DEADLINE_ENV`]) when
/// that is a number of milliseconds below it.
pub fn deadline(shorten_ms: Option<&str>) -> Duration {
    shorten_ms
        .and_then(|ms| ms.parse::<u64>().ok())
        .map_or(DEADLINE, |ms| Duration::from_millis(ms).min(DEADLINE))
}

/// How long after the deadline the watchdog answers: the work checks the deadline
/// itself, and its own notice is the better answer.
pub const WATCHDOG_GRACE: Duration = Duration::from_millis(250);

/// `--doctor`: what the client adds around tool results outside PostToolUse.
pub fn doctor() -> crate::Reply {
    crate::Reply {
        stdout: channels::report(),
        if_stdout_fails: Some(crate::Fallback {
            stderr: String::new(),
            exit: 1,
        }),
        ..crate::Reply::default()
    }
}

/// What the watchdog shares with the hook: a failed tool's call being decided, whose
/// session the watchdog marks if the deadline passes first.
#[derive(Default)]
pub struct Watch(std::sync::OnceLock<PendingFailure>);

/// The options of a PostToolUse call from `flags`, the state directory from `env`; when
/// the flags are bad, the withheld answer (stdin is not read then). `test_panic` makes
/// containment panic, so that the tests show a panic still withholds.
pub fn options(flags: &Flags, env: &dyn Env, test_panic: bool) -> Result<Options, crate::Reply> {
    let built = panic::catch_unwind(AssertUnwindSafe(|| {
        Options::new(flags.max_bytes, &flags.tool).map(|mut opts| {
            opts.state = quarantine::state_dir(env);
            opts.test_panic = test_panic;
            opts
        })
    }));
    let reason = match built {
        Ok(Ok(opts)) => return Ok(opts),
        Ok(Err(why)) => Withhold::Configuration(why),
        Err(_) => Withhold::Panic,
    };
    let reply = Reply::Withheld {
        tool: None,
        response: None,
        reason,
    };
    Err(post(
        flags.client,
        &reply.line().unwrap_or_else(|| FALLBACK_LINE.to_owned()),
    ))
}

/// The answer to one PostToolUse call `input` (stdin, or why it could not be read), by
/// `deadline`; `watch` is shared with the watchdog ([`deadline_reply`]).
pub fn answer(
    client: Client,
    opts: &Options,
    input: Result<Vec<u8>, String>,
    deadline: &Deadline,
    watch: &Watch,
) -> crate::Reply {
    let line = panic::catch_unwind(AssertUnwindSafe(|| {
        let reply = match input {
            Ok(input) => decide(&input, opts, deadline, watch),
            Err(e) => Reply::Withheld {
                tool: None,
                response: None,
                reason: Withhold::Unreadable(e),
            },
        };
        reply.line()
    }))
    .unwrap_or_else(|_| panic_line());
    match line {
        Some(line) => post(client, &line),
        None => crate::Reply::silent(),
    }
}

fn panic_line() -> Option<String> {
    Reply::Withheld {
        tool: None,
        response: None,
        reason: Withhold::Panic,
    }
    .line()
}

/// The withheld answer of a panic outside [`answer`] (reading stdin).
pub fn panic_reply(client: Client) -> crate::Reply {
    post(
        client,
        &panic_line().unwrap_or_else(|| FALLBACK_LINE.to_owned()),
    )
}

/// The watchdog's answer: the deadline notice, and for a failed tool's call the session
/// marked first.
pub fn deadline_reply(client: Client, watch: &Watch) -> crate::Reply {
    watchdog_reply(post_line(client, watchdog_line(watch)).unwrap_or_default())
}

/// For a command line that starts `airlock hook tool-output` but does not parse: the
/// withheld line (or the gate's deny); `None` for every other command. `args` is the whole
/// command line, program name first; `kind` names the parser's error.
pub fn usage_error(args: &[OsString], kind: &str) -> Option<crate::Reply> {
    let mut words = args.iter().skip(1);
    if words.next().map(OsString::as_os_str) != Some("hook".as_ref())
        || words.next().map(OsString::as_os_str) != Some("tool-output".as_ref())
    {
        return None;
    }
    let client = Client::from_raw_args(args);
    if args.iter().any(|a| a == "--quarantine-gate") {
        let why = format!("--quarantine-gate: the command line does not parse ({kind})");
        return Some(pre(client, &quarantine::deny_line(&why)));
    }
    let reply = Reply::Withheld {
        tool: None,
        response: None,
        reason: Withhold::Configuration(kind.to_owned()),
    };
    Some(post(
        client,
        &reply.line().unwrap_or_else(|| FALLBACK_LINE.to_owned()),
    ))
}

/// The bytes a PreToolUse call may have; a larger one is denied. Far above the hook's
/// own limit: a `Write` of a large file is a PreToolUse call, and the gate parses only
/// two fields of it. The binary reads one byte more.
pub const MAX_GATE_INPUT_BYTES: u64 = 64 * 1024 * 1024;

/// `--quarantine-gate`: the PreToolUse entry's answer to `input`, against the state
/// directory `env` names: a deny line, or nothing when the session is not quarantined.
pub fn gate(client: Client, input: Result<Vec<u8>, String>, env: &dyn Env) -> crate::Reply {
    let verdict = panic::catch_unwind(AssertUnwindSafe(|| match input {
        Err(e) => quarantine::Verdict::Deny(format!("cannot read the call ({e})")),
        Ok(input) if u64::try_from(input.len()).map_or(true, |n| n > MAX_GATE_INPUT_BYTES) => {
            quarantine::Verdict::Deny(format!(
                "the call is larger than {MAX_GATE_INPUT_BYTES} bytes"
            ))
        }
        Ok(input) => quarantine::gate(&input, quarantine::state_dir(env)),
    }))
    .unwrap_or_else(|_| quarantine::Verdict::Deny("internal error".into()));
    match verdict {
        quarantine::Verdict::Deny(why) => pre(client, &quarantine::deny_line(&why)),
        quarantine::Verdict::Refuse(why) => pre(client, &quarantine::refuse_line(&why)),
        quarantine::Verdict::Clear => crate::Reply::silent(),
    }
}

/// The gate's deny when no verdict came in time.
pub fn gate_deadline_reply(client: Client) -> crate::Reply {
    let line = quarantine::deny_line("no verdict before the deadline");
    if client == Client::Codex {
        return crate::codex::pre_tool_use_reply(&line);
    }
    watchdog_reply(line)
}

/// The gate's deny of a panic outside [`gate`] (reading stdin).
pub fn gate_panic_reply(client: Client) -> crate::Reply {
    pre(client, &quarantine::deny_line("internal error"))
}

pub use reanchor_hook::{
    MAX_CALL_BYTES as MAX_REANCHOR_CALL_BYTES, answer as reanchor,
    deadline_reply as reanchor_deadline_reply, panic_reply as reanchor_panic_reply,
};

impl Options {
    /// The `--max-bytes` and `--tool` checks alone, for `--print-config`.
    fn check(flags: &Flags) -> Result<(), String> {
        Options::new(flags.max_bytes, &flags.tool).map(|_| ())
    }
}

/// `--print-config`: the snippet registering the hook with `flags`, given stdin (`None`:
/// a terminal, not read). Registered as a hook by mistake, `--print-config` would answer
/// every call with a snippet Claude Code ignores, letting the output through; the output
/// of a call read on stdin is withheld instead.
pub fn print_config(flags: &Flags, stdin: Option<Result<Vec<u8>, String>>) -> crate::Reply {
    if stdin.is_some_and(|read| read.is_ok_and(|input| !input.trim_ascii().is_empty())) {
        let reply = Reply::Withheld {
            tool: None,
            response: None,
            reason: Withhold::Configuration(
                "--print-config is not a hook; drop it from the command".into(),
            ),
        };
        return post(
            flags.client,
            &reply.line().unwrap_or_else(|| FALLBACK_LINE.to_owned()),
        );
    }
    if let Err(why) = Options::check(flags) {
        return crate::Reply::error(&format!("airlock hook tool-output: {why}"), 2);
    }
    let printed = match flags.client {
        Client::ClaudeCode => config::settings_snippet(flags.max_bytes, &flags.tool),
        Client::Codex => Ok(config::codex_wiring(flags.max_bytes, &flags.tool)),
    };
    match printed {
        Ok(text) => crate::Reply::text(&text, 1),
        Err(_) => crate::Reply {
            exit: 1,
            ..crate::Reply::default()
        },
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
            &Watch::default(),
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
            &Watch::default(),
        ) {
            Reply::Withheld {
                reason: Withhold::TooManyValues,
                ..
            } => {}
            _ => panic!("not withheld"),
        }
    }

    /// The watchdog's pending failure is set once per watch.
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
        let watch = Watch::default();
        assert!(matches!(
            decide(
                input,
                &opts,
                &Deadline::after(Duration::from_secs(60)),
                &watch
            ),
            Reply::Unchanged
        ));
        assert!(!dir.path().join("quarantined/w-1").exists());
        let line: Value = serde_json::from_str(&watchdog_line(&watch)).unwrap();
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
        match decide(input, &Options::default(), &passed, &Watch::default()) {
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
