//! `airlock hook send-gate` and `airlock guard …`: outgoing messages pass
//! only with a clean scan and a fresh, single-use grounding ledger.
//!
//! The decision is pure (`input`, `decide`, `ledger`, `scan`, `digest`); this
//! file and `store` do the I/O, and every failure on the hook path, a panic
//! included, becomes a block.
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

use std::io::{IsTerminal, Read, Write};
use std::process::ExitCode;

use serde_json::{Value, json};
use time::OffsetDateTime;

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
pub(crate) use input::parse_tool_call;
use input::{MAX_INPUT_BYTES, parse_limited_json};
use scan::Hit;
use store::{Links, Paths, read_all_capped, read_capped};

/// Arguments of `airlock hook send-gate`. `--help` is no flag here and any
/// other argument is collected rather than refused by the parser: a hook
/// whose command line is wrong must still block the call waiting on its
/// stdin, never print help and exit 0.
#[derive(clap::Args)]
#[command(disable_help_flag = true, disable_version_flag = true)]
pub struct SendGateArgs {
    /// Print the settings.json snippet registering this hook, and exit. With `--client
    /// codex`: Codex's hooks.json entry and the same as config.toml tables.
    #[arg(long)]
    print_config: bool,
    /// The client running the hook: `claude-code` (the default), or `codex`, whose closed
    /// schema the printed line then follows, a block exiting 0 (see `cli/CLIENTS.md`). Read
    /// as text so that a wrong value blocks with the gate's own reason.
    #[arg(long, value_name = "CLIENT")]
    client: Option<String>,
    /// Anything else on the command line: the hook blocks.
    #[arg(
        trailing_var_arg = true,
        allow_hyphen_values = true,
        hide = true,
        value_name = "ARGS"
    )]
    rest: Vec<String>,
}

/// `airlock guard …` subcommands.
#[derive(clap::Subcommand)]
pub enum GuardCommand {
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
const TEST_PANIC_VAR: &str = "AIRLOCK_SEND_GATE_TEST_PANIC";

fn say(line: &str) {
    // A closed stderr must not turn into a panic; the exit code still speaks.
    let _ = writeln!(std::io::stderr(), "{line}");
}

fn print(text: &str) {
    let _ = writeln!(std::io::stdout(), "{text}");
}

/// How long the hook may take before it blocks on its own: well under
/// Claude Code's hook timeout (the `timeout` of `--print-config`, and the
/// client's default of 60 s), since a hook that times out lets the call run.
pub(crate) const DEADLINE: std::time::Duration = std::time::Duration::from_secs(10);
/// Shortens [`DEADLINE`] (milliseconds) so the suite can prove it; it can
/// never lengthen it.
const DEADLINE_VAR: &str = "AIRLOCK_SEND_GATE_DEADLINE_MS";

/// The hook: exit 0 to pass (warnings as `additionalContext` on stdout),
/// exit 2 with the `BLOCKED` line on stderr and a JSON deny on stdout
/// otherwise.
pub fn run_hook(args: &SendGateArgs) -> ExitCode {
    // The default hook would print a backtrace banner; the BLOCKED line
    // below is the one message the agent should read.
    std::panic::set_hook(Box::new(|_| {}));
    let client = match args.client.as_deref() {
        None | Some("claude-code") => Ok(crate::Client::ClaudeCode),
        Some("codex") => Ok(crate::Client::Codex),
        Some(other) => Err(other.to_owned()),
    };
    let verdict = output::Verdict::new(*client.as_ref().unwrap_or(&crate::Client::ClaudeCode));
    crate::verdict::test_failure("send-gate");
    watchdog(&verdict);
    if let Err(other) = client {
        let shown: String = other.chars().take(40).collect();
        return verdict.block(&format!(
            "--client {} is not a client this hook answers (`claude-code` or `codex`)",
            serde_json::to_string(&shown).unwrap_or_default()
        ));
    }
    if args.print_config && args.rest.is_empty() {
        // Registered as a hook by mistake, `--print-config` would answer a
        // call with a snippet and exit 0; a call waiting on stdin is blocked.
        let stdin = std::io::stdin();
        let waiting = !stdin.is_terminal()
            && read_all_capped(stdin.lock(), MAX_INPUT_BYTES)
                .map_or(true, |b| !b.trim_ascii().is_empty());
        if waiting {
            return verdict.block(
                "--print-config is not a hook: register `airlock hook send-gate` with no arguments",
            );
        }
        return output::print_config(verdict.client());
    }
    let outcome = std::panic::catch_unwind(|| {
        if !args.rest.is_empty() {
            return Err(format!(
                "the hook was started with arguments it does not take ({}); register it as `airlock hook send-gate` with no arguments (see `airlock hook send-gate --print-config`)",
                shown_args(args)
            ));
        }
        let stdin = read_all_capped(std::io::stdin().lock(), MAX_INPUT_BYTES)
            .map_err(|e| format!("the tool call on stdin is unusable ({e}); the gate reads one JSON object of at most 8 MiB"))?;
        let paths =
            Paths::from_env().map_err(|e| format!("cannot locate configuration and state: {e}"))?;
        hook_decision(&stdin, &paths, OffsetDateTime::now_utc())
    });
    let _ = std::panic::take_hook();
    match outcome {
        Ok(Ok(warnings)) => verdict.pass(&warnings),
        Ok(Err(reason)) => verdict.block(&reason),
        Err(payload) => {
            let what = payload
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            verdict.block(&format!(
                "internal error (panic: {what}); the gate cannot verify this send, so it does not pass; run `airlock guard doctor`"
            ))
        }
    }
}

fn shown_args(args: &SendGateArgs) -> String {
    let mut words: Vec<&str> = args.rest.iter().map(String::as_str).collect();
    if args.print_config {
        words.insert(0, "--print-config");
    }
    let joined = words.join(" ");
    let cut: String = joined.chars().take(120).collect();
    serde_json::to_string(&cut).unwrap_or_default()
}

/// Blocks and exits once the deadline passes, whatever the hook is doing.
fn watchdog(verdict: &output::Verdict) {
    let deadline = std::env::var(DEADLINE_VAR)
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .map(std::time::Duration::from_millis)
        .map_or(DEADLINE, |d| d.min(DEADLINE));
    let verdict = verdict.clone();
    // If the thread cannot be started the hook runs without its deadline;
    // everything it reads is bounded and non-blocking, stdin aside.
    let _ = std::thread::Builder::new()
        .name("send-gate-deadline".into())
        .stack_size(64 * 1024)
        .spawn(move || {
            std::thread::sleep(deadline);
            if let Some(code) = verdict.block_first(&format!(
                "the gate did not decide within {} ms (stdin never closed, or the state directory is stuck); a call the gate cannot check does not pass",
                deadline.as_millis()
            )) {
                std::process::exit(i32::from(code));
            }
        });
}

/// The whole hook for one stdin, given paths and the clock: the warnings
/// of a pass, or the block reason.
fn hook_decision(stdin: &[u8], paths: &Paths, now: OffsetDateTime) -> Result<Vec<Hit>, String> {
    if std::env::var_os(TEST_PANIC_VAR).is_some() {
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
    hook_decision(stdin, &paths, OffsetDateTime::now_utc())
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

/// `airlock guard …`.
pub fn run_guard(cmd: &GuardCommand) -> ExitCode {
    let result = match cmd {
        GuardCommand::Scan => guard_scan(),
        GuardCommand::Sha => read_call().map(|call| {
            print(&digest::message_digest(&call));
            ExitCode::SUCCESS
        }),
        GuardCommand::LedgerTemplate => {
            // The branding field is listed when the configuration adopts the lane.
            let config = Paths::from_env().ok().and_then(|p| load_config(&p).ok());
            let field = config
                .as_ref()
                .and_then(|c| c.branding.as_ref())
                .map(|b| b.ledger_field.as_str());
            serde_json::to_string_pretty(&ledger::template(OffsetDateTime::now_utc(), field))
                .map_err(|e| e.to_string())
                .map(|t| {
                    print(&t);
                    ExitCode::SUCCESS
                })
        }
        GuardCommand::WriteLedger => guard_write_ledger(),
        GuardCommand::LedgerPath => read_call().and_then(|call| {
            let paths = Paths::from_env()?;
            print(
                &paths
                    .ledger_path(&digest::message_digest(&call))
                    .display()
                    .to_string(),
            );
            Ok(ExitCode::SUCCESS)
        }),
        GuardCommand::Doctor => Paths::from_env().map(|paths| doctor::run(&paths)),
    };
    result.unwrap_or_else(|e| {
        say(&format!("airlock guard: {e}"));
        ExitCode::from(2)
    })
}

fn read_stdin() -> Result<Vec<u8>, String> {
    read_all_capped(std::io::stdin().lock(), MAX_INPUT_BYTES).map_err(|e| format!("stdin: {e}"))
}

fn read_call() -> Result<input::ToolCall, String> {
    parse_tool_call(&read_stdin()?)
}

fn guard_scan() -> Result<ExitCode, String> {
    let bytes = read_stdin()?;
    let text = String::from_utf8(bytes).map_err(|_| "stdin is not UTF-8".to_owned())?;
    let config = load_config(&Paths::from_env()?)?;
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
        return Ok(ExitCode::from(2));
    }
    print("clean");
    Ok(ExitCode::SUCCESS)
}

fn guard_write_ledger() -> Result<ExitCode, String> {
    let mut bytes = Vec::new();
    std::io::stdin()
        .lock()
        .take(
            u64::try_from(store::MAX_LEDGER_BYTES)
                .unwrap_or(u64::MAX)
                .saturating_add(1),
        )
        .read_to_end(&mut bytes)
        .map_err(|e| format!("stdin: {e}"))?;
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
    let paths = Paths::from_env()?;
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
    Ok(ExitCode::SUCCESS)
}
