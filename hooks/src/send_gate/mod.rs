//! `airlock hook send-gate` and `airlock guard …`: outgoing messages pass
//! only with a clean scan and a fresh, single-use grounding ledger.
//!
//! The decision is pure (`input`, `decide`, `ledger`, `scan`, `digest`); `store`
//! does the file I/O, this file turns each outcome into a [`Reply`] (the binary reads
//! stdin, keeps the deadline and writes the reply), and every failure on the hook path,
//! a panic included, becomes a block.
#![cfg_attr(
    test,
    allow(
        clippy::indexing_slicing,
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::arithmetic_side_effects
    )
)]

use std::cell::RefCell;

use serde_json::{Value, json};
use time::OffsetDateTime;

use crate::{Client, Env, Reply};

mod config;
mod css;
mod decide;
mod decode;
mod digest;
mod doctor;
// Generated (scripts/unicode/gen-emoji-zwj.mjs): left as the generator writes it.
#[rustfmt::skip]
mod emoji_zwj;
mod fold;
mod hidden;
mod input;
mod ledger;
mod output;
mod render;
mod scan;
mod store;

use config::{Config, parse_config};
use decide::{Route, board_has_active_ref};
use input::parse_limited_json;
pub(crate) use input::parse_tool_call;

/// Largest tool call (or draft, for `guard scan`) read; a larger one blocks. The binary
/// reads one byte more, so that "too large" is told apart from "exactly at the limit".
pub const MAX_INPUT_BYTES: usize = input::MAX_INPUT_BYTES;
use scan::Hit;
use store::{Links, Paths, read_capped};

/// The flags of `airlock hook send-gate`, as the command line gave them. `--help` is no
/// flag there and any other argument is collected rather than refused by the parser: a
/// hook whose command line is wrong must still block the call waiting on its stdin,
/// never print help and exit 0.
#[derive(Debug, Clone, Default)]
pub struct Flags {
    /// `--print-config`.
    pub print_config: bool,
    /// `--client`, as text, so that a wrong value blocks with the gate's own reason.
    pub client: Option<String>,
    /// Anything else on the command line: the hook blocks.
    pub rest: Vec<String>,
}

/// `airlock guard …` subcommands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Guard {
    /// Scan draft text on stdin; exit 2 when it would be blocked.
    Scan,
    /// Print the message digest of a tool call on stdin.
    Sha,
    /// Print a ledger skeleton.
    LedgerTemplate,
    /// File the ledger JSON on stdin under its own message_sha256.
    WriteLedger,
    /// Print where the ledger of a tool call on stdin belongs.
    LedgerPath,
    /// Check configuration, patterns, controls, wiring and state.
    Doctor,
}

const BLOCKED: &str = "airlock send-gate BLOCKED:";
/// The configuration is small; a huge file is a mistake, not a policy.
const MAX_CONFIG_BYTES: usize = 1024 * 1024;
/// Proves the panic path in tests: it can only ever cause a block.
pub const TEST_PANIC_VAR: &str = "AIRLOCK_SEND_GATE_TEST_PANIC";

thread_local! {
    /// What a guard command printed so far: its stdout, as the reply will carry it.
    static PRINTED: RefCell<String> = const { RefCell::new(String::new()) };
}

/// One line of a guard command's stdout.
fn print(text: &str) {
    PRINTED.with(|out| {
        let mut out = out.borrow_mut();
        out.push_str(text);
        out.push('\n');
    });
}

/// The lines [`print`] gathered on this thread, and none left.
fn take_printed() -> String {
    PRINTED.with(|out| std::mem::take(&mut *out.borrow_mut()))
}

/// How long the hook may take before it blocks on its own: well under
/// Claude Code's hook timeout (the `timeout` of `--print-config`, and the
/// client's default of 60 s), since a hook that times out lets the call run.
pub const DEADLINE: std::time::Duration = std::time::Duration::from_secs(10);
/// Shortens [`DEADLINE`] (milliseconds) so the suite can prove it; it can
/// never lengthen it.
pub const DEADLINE_VAR: &str = "AIRLOCK_SEND_GATE_DEADLINE_MS";

/// The deadline, shortened to `shorten_ms` (the value of [`DEADLINE_VAR`]) when that
/// is a number of milliseconds below it.
pub fn deadline(shorten_ms: Option<&str>) -> std::time::Duration {
    shorten_ms
        .and_then(|v| v.trim().parse::<u64>().ok())
        .map(std::time::Duration::from_millis)
        .map_or(DEADLINE, |d| d.min(DEADLINE))
}

/// What the hook does next, after its flags.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// Answer this, reading nothing.
    Answer(Reply),
    /// `--print-config`: answer [`Hook::print_config`] with stdin, unless stdin is a
    /// terminal.
    PrintConfig,
    /// Read stdin (at most [`MAX_INPUT_BYTES`], one byte more to tell) and answer
    /// [`Hook::answer`].
    Decide,
}

/// One run of the hook: exit 0 to pass (warnings as `additionalContext` on stdout),
/// exit 2 with the `BLOCKED` line on stderr and a JSON deny on stdout otherwise.
#[derive(Debug, Clone)]
pub struct Hook {
    client: Client,
    flags: Flags,
}

impl Hook {
    /// The hook under `flags`; a client it does not know is answered as Claude Code
    /// (and blocked, by [`Hook::first_step`]).
    pub fn new(flags: &Flags) -> Hook {
        let client = match flags.client.as_deref() {
            Some("codex") => Client::Codex,
            _ => Client::ClaudeCode,
        };
        Hook {
            client,
            flags: flags.clone(),
        }
    }

    /// The client the hook answers.
    pub fn client(&self) -> Client {
        self.client
    }

    /// The block once `limit` passed with no decision.
    pub fn deadline_reply(&self, limit: std::time::Duration) -> Reply {
        output::block(
            self.client,
            &format!(
                "the gate did not decide within {} ms (stdin never closed, or the state directory is stuck); a call the gate cannot check does not pass",
                limit.as_millis()
            ),
        )
    }

    /// What to do first: a bad `--client` or stray arguments block before stdin is read.
    pub fn first_step(&self) -> Step {
        if let Some(other) = self
            .flags
            .client
            .as_deref()
            .filter(|c| !matches!(*c, "claude-code" | "codex"))
        {
            let shown: String = other.chars().take(40).collect();
            return Step::Answer(output::block(
                self.client,
                &format!(
                    "--client {} is not a client this hook answers (`claude-code` or `codex`)",
                    serde_json::to_string(&shown).unwrap_or_default()
                ),
            ));
        }
        if self.flags.print_config && self.flags.rest.is_empty() {
            return Step::PrintConfig;
        }
        if !self.flags.rest.is_empty() {
            return Step::Answer(output::block(
                self.client,
                &format!(
                    "the hook was started with arguments it does not take ({}); register it as `airlock hook send-gate` with no arguments (see `airlock hook send-gate --print-config`)",
                    shown_args(&self.flags)
                ),
            ));
        }
        Step::Decide
    }

    /// `--print-config`, given stdin (`None`: a terminal, not read). Registered as a hook
    /// by mistake, `--print-config` would answer a call with a snippet and exit 0; a call
    /// waiting on stdin (or a stdin that cannot be read) is blocked.
    pub fn print_config(&self, stdin: Option<Result<Vec<u8>, String>>) -> Reply {
        let waiting = stdin.is_some_and(|read| {
            capped(read, MAX_INPUT_BYTES).map_or(true, |b| !b.trim_ascii().is_empty())
        });
        if waiting {
            return output::block(
                self.client,
                "--print-config is not a hook: register `airlock hook send-gate` with no arguments",
            );
        }
        output::print_config(self.client)
    }

    /// The answer to the call on stdin (`input`: what was read, or why it could not be),
    /// with configuration and state where `env` says, now. `test_panic` panics, which
    /// can only block.
    pub fn answer(&self, input: Result<Vec<u8>, String>, env: &dyn Env, test_panic: bool) -> Reply {
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let stdin = capped(input, MAX_INPUT_BYTES)
                .map_err(|e| format!("the tool call on stdin is unusable ({e}); the gate reads one JSON object of at most 8 MiB"))?;
            let paths = Paths::from_env(env)
                .map_err(|e| format!("cannot locate configuration and state: {e}"))?;
            hook_decision(&stdin, &paths, OffsetDateTime::now_utc(), test_panic)
        }));
        match outcome {
            Ok(Ok(warnings)) => output::pass(self.client, &warnings),
            Ok(Err(reason)) => output::block(self.client, &reason),
            Err(payload) => self.panic_reply(
                payload
                    .downcast_ref::<&str>()
                    .map(|s| (*s).to_owned())
                    .or_else(|| payload.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "unknown panic".into()),
            ),
        }
    }

    /// The block of a panic whose message is `what`.
    pub fn panic_reply(&self, what: String) -> Reply {
        output::block(
            self.client,
            &format!(
                "internal error (panic: {what}); the gate cannot verify this send, so it does not pass; run `airlock guard doctor`"
            ),
        )
    }
}

/// What was read up to one byte past `limit` (`read`), as `store::read_all_capped`
/// words a failure.
fn capped(read: Result<Vec<u8>, String>, limit: usize) -> Result<Vec<u8>, String> {
    let buf = read.map_err(|e| format!("read failed: {e}"))?;
    if buf.len() > limit {
        return Err(format!("larger than {limit} bytes"));
    }
    Ok(buf)
}

fn shown_args(flags: &Flags) -> String {
    let mut words: Vec<&str> = flags.rest.iter().map(String::as_str).collect();
    if flags.print_config {
        words.insert(0, "--print-config");
    }
    let joined = words.join(" ");
    let cut: String = joined.chars().take(120).collect();
    serde_json::to_string(&cut).unwrap_or_default()
}

/// The whole hook for one stdin, given paths and the clock: the warnings
/// of a pass, or the block reason.
fn hook_decision(
    stdin: &[u8],
    paths: &Paths,
    now: OffsetDateTime,
    test_panic: bool,
) -> Result<Vec<Hit>, String> {
    if test_panic {
        #[allow(
            clippy::panic,
            reason = "the test of the panic path; a panic here can only block"
        )]
        {
            panic!("{TEST_PANIC_VAR} is set");
        }
    }
    let call = parse_tool_call(stdin).map_err(|e| format!("{e}; unknown shape fails closed"))?;
    let config = load_config(paths)?;
    match decide::route(&call, &config)? {
        Route::Exempt => Ok(Vec::new()),
        Route::Peer { target } => {
            let board = config
                .peer
                .as_ref()
                .map(|p| p.board.clone())
                .unwrap_or_default();
            let text = read_capped(&board, MAX_INPUT_BYTES, Links::Follow)
                .and_then(|b| String::from_utf8(b).map_err(|_| "not UTF-8".into()))
                .map_err(|e| {
                    format!("coordination board unreadable, so the target cannot be verified: {e}")
                })?;
            if !board_has_active_ref(&text, &target) {
                return Err(format!(
                    "peer-session target {target:?} is not an active session ref on the coordination board ({}); resolve the exact ref from the board or deliver through the board's message bus, never guess a session by title",
                    board.display()
                ));
            }
            store::append_log(
                paths,
                &json!({"at": ledger::format_timestamp(now), "kind": "peer-send", "tool": call.tool_name, "target": target}),
            )?;
            Ok(Vec::new())
        }
        Route::Message(prepared) => {
            store::sweep(paths, config.ledger_max_age_minutes, now);
            let path = paths.ledger_path(&prepared.digest);
            let Some(claimed) = store::claim_ledger(paths, &prepared.digest)? else {
                return Err(format!(
                    "no grounding ledger for this exact tool call (digest {}) at {}: read the whole thread, search prior correspondence, map every claim to a source, then pipe the ledger (`airlock guard ledger-template`) to `airlock guard write-ledger`; a ledger is spent by one send",
                    prepared.digest,
                    path.display()
                ));
            };
            let ledger = match claimed.read() {
                Ok(v) => v,
                Err(e) => {
                    claimed.release();
                    return Err(format!(
                        "the ledger at {} is unreadable ({e}); rewrite it",
                        path.display()
                    ));
                }
            };
            let expect = ledger::Expect {
                digest: &prepared.digest,
                threaded: Some(prepared.threaded),
                currency_text: prepared.currency_text,
                branding_field: prepared.branding_field.as_deref(),
            };
            let fails = ledger::validate_ledger(&ledger, &expect, &config, now);
            if !fails.is_empty() {
                claimed.release();
                return Err(format!("ledger invalid: {}", fails.join(" | ")));
            }
            let created_at = ledger
                .get("created_at")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let mark = match store::mark_spent(paths, &prepared.digest, created_at) {
                Ok(mark) => mark,
                Err(e) => {
                    // A replayed ledger is not put back: it is spent already.
                    let _ = claimed.consume();
                    return Err(e);
                }
            };
            let record = json!({
                "at": ledger::format_timestamp(now),
                "kind": "send",
                "tool": call.tool_name,
                "digest": prepared.digest,
                "fields": prepared.fields,
                "warnings": prepared.warnings.iter().map(|h| json!({"name": h.name, "match": h.matched})).collect::<Vec<_>>(),
                "ledger": ledger,
            });
            if let Err(e) = store::append_log(paths, &record) {
                mark.undo();
                claimed.release();
                return Err(format!("{e}; a send that cannot be logged does not pass"));
            }
            claimed.consume()?;
            Ok(prepared.warnings)
        }
    }
}

/// The hook's whole decision for one stdin, with the configuration at
/// `config` and the state directory `state` (ledgers, spent markers, log),
/// at the current time: the warnings of a pass, or the block reason. The
/// fuzz target drives this; the hook adds only stdin, the environment, the
/// deadline and the output around it.
pub(crate) fn decide_with_state(
    stdin: &[u8],
    config: &std::path::Path,
    state: &std::path::Path,
) -> Result<Vec<String>, String> {
    let paths = Paths {
        config: config.to_owned(),
        state: state.to_owned(),
        home: None,
    };
    hook_decision(stdin, &paths, OffsetDateTime::now_utc(), false)
        .map(|hits| hits.into_iter().map(|h| h.name).collect())
}

/// The digest `airlock guard sha` prints for a tool call.
pub(crate) fn digest_of(stdin: &[u8]) -> Result<String, String> {
    parse_tool_call(stdin).map(|call| digest::message_digest(&call))
}

/// Loads the configuration, with the remedy in the error.
fn load_config(paths: &Paths) -> Result<Config, String> {
    let shown = paths.config.display();
    let bytes = match read_capped(&paths.config, MAX_CONFIG_BYTES, Links::Follow) {
        Ok(b) => b,
        Err(_) if !paths.config.exists() => {
            return Err(format!(
                "no configuration at {shown}: copy cli/send-gate.example.json there (or point $AIRLOCK_SEND_GATE_CONFIG at one), adapt its patterns, then run `airlock guard doctor`"
            ));
        }
        Err(e) => return Err(format!("configuration unreadable ({e})")),
    };
    let text =
        String::from_utf8(bytes).map_err(|_| format!("configuration {shown} is not UTF-8"))?;
    parse_config(&text, paths.home.as_deref()).map_err(|e| {
        format!("configuration {shown} is invalid: {e}; fix it and run `airlock guard doctor`")
    })
}

impl Guard {
    /// How much of stdin the command reads: its limit and one byte more, to tell "too
    /// large"; `None` when it reads none.
    pub fn stdin_limit(self) -> Option<u64> {
        let limit = match self {
            Guard::Scan | Guard::Sha | Guard::LedgerPath => MAX_INPUT_BYTES,
            Guard::WriteLedger => store::MAX_LEDGER_BYTES,
            Guard::LedgerTemplate | Guard::Doctor => return None,
        };
        Some(u64::try_from(limit).unwrap_or(u64::MAX).saturating_add(1))
    }
}

/// `airlock guard …`, given what was read of stdin ([`Guard::stdin_limit`]; `None` when
/// nothing was) and the environment.
pub fn guard(cmd: Guard, stdin: Option<Result<Vec<u8>, String>>, env: &dyn Env) -> Reply {
    let _ = take_printed();
    let stdin = stdin.unwrap_or_else(|| Ok(Vec::new()));
    let read_call = |stdin| {
        capped(stdin, MAX_INPUT_BYTES)
            .map_err(|e| format!("stdin: {e}"))
            .and_then(|bytes| parse_tool_call(&bytes))
    };
    let result = match cmd {
        Guard::Scan => guard_scan(stdin, env),
        Guard::Sha => read_call(stdin).map(|call| {
            print(&digest::message_digest(&call));
            0
        }),
        Guard::LedgerTemplate => {
            // The branding field is listed when the configuration adopts the lane.
            let config = Paths::from_env(env).ok().and_then(|p| load_config(&p).ok());
            let field = config
                .as_ref()
                .and_then(|c| c.branding.as_ref())
                .map(|b| b.ledger_field.as_str());
            serde_json::to_string_pretty(&ledger::template(OffsetDateTime::now_utc(), field))
                .map_err(|e| e.to_string())
                .map(|t| {
                    print(&t);
                    0
                })
        }
        Guard::WriteLedger => guard_write_ledger(stdin, env),
        Guard::LedgerPath => read_call(stdin).and_then(|call| {
            let paths = Paths::from_env(env)?;
            print(
                &paths
                    .ledger_path(&digest::message_digest(&call))
                    .display()
                    .to_string(),
            );
            Ok(0)
        }),
        Guard::Doctor => Paths::from_env(env).map(|paths| doctor::run(&paths)),
    };
    let (stderr, exit) = match result {
        Ok(code) => (String::new(), code),
        Err(e) => (format!("airlock guard: {e}\n"), 2),
    };
    Reply {
        stdout: take_printed(),
        stderr,
        exit,
        if_stdout_fails: None,
    }
}

fn guard_scan(stdin: Result<Vec<u8>, String>, env: &dyn Env) -> Result<u8, String> {
    let bytes = capped(stdin, MAX_INPUT_BYTES).map_err(|e| format!("stdin: {e}"))?;
    let text = String::from_utf8(bytes).map_err(|_| "stdin is not UTF-8".to_owned())?;
    let config = load_config(&Paths::from_env(env)?)?;
    let report = scan::scan_text(&text, "text", &config);
    for hit in &report.blocks {
        print(&format!("BLOCK [{}] matched {:?}", hit.name, hit.matched));
    }
    for hidden in &report.hidden {
        print(&format!("BLOCK hidden {hidden}"));
    }
    if let Some(more) = report
        .hidden_total
        .checked_sub(report.hidden.len())
        .filter(|&n| n > 0)
    {
        print(&format!("BLOCK hidden: {more} more"));
    }
    for place in &report.unscannable {
        print(&format!("BLOCK unscannable {place}"));
    }
    for concealed in &report.concealed {
        print(&format!("BLOCK {concealed}"));
    }
    for hit in &report.warnings {
        print(&format!("WARN [{}] matched {:?}", hit.name, hit.matched));
    }
    if report.blocked() {
        return Ok(2);
    }
    print("clean");
    Ok(0)
}

fn guard_write_ledger(stdin: Result<Vec<u8>, String>, env: &dyn Env) -> Result<u8, String> {
    let bytes = stdin.map_err(|e| format!("stdin: {e}"))?;
    if bytes.len() > store::MAX_LEDGER_BYTES {
        return Err(format!(
            "the ledger is larger than {} bytes",
            store::MAX_LEDGER_BYTES
        ));
    }
    let ledger: Value = parse_limited_json(&bytes)?;
    let digest = ledger
        .get("message_sha256")
        .and_then(Value::as_str)
        .unwrap_or_default();
    if !digest::is_digest(digest) {
        return Err("refused: message_sha256 must be 64 lower-case hex digits (the output of `airlock guard sha`)".into());
    }
    let paths = Paths::from_env(env)?;
    let config = load_config(&paths)?;
    // Checked now against its own digest, so a ledger that the gate would
    // refuse is refused while the composer can still fix it.
    let expect = ledger::Expect {
        digest,
        ..ledger::Expect::default()
    };
    let fails = ledger::validate_ledger(&ledger, &expect, &config, OffsetDateTime::now_utc());
    if !fails.is_empty() {
        return Err(format!(
            "refused, the gate would not accept this ledger: {}",
            fails.join(" | ")
        ));
    }
    let created_at = ledger
        .get("created_at")
        .and_then(Value::as_str)
        .unwrap_or_default();
    if store::is_spent(&paths, digest, created_at) {
        return Err("refused: this ledger (same message_sha256 and created_at) already passed once; a ledger is spent by one send, ground the message again and write a new one".into());
    }
    let path = store::write_ledger(&paths, &ledger)?;
    print(&path.display().to_string());
    Ok(0)
}
