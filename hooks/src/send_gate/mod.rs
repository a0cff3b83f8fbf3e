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

use std::io::{Read, Write};
use std::process::ExitCode;

use serde_json::{Value, json};
use time::OffsetDateTime;

mod config;
mod decide;
mod digest;
mod doctor;
mod input;
mod ledger;
mod scan;
mod store;

use config::{Config, parse_config};
use decide::{Route, board_has_active_ref, describe_hits};
pub(crate) use input::parse_tool_call;
use input::{MAX_INPUT_BYTES, parse_limited_json};
use scan::Hit;
use store::{Paths, read_all_capped, read_capped};

/// Arguments of `airlock hook send-gate`.
#[derive(clap::Args)]
pub struct SendGateArgs {}

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

/// The hook: exit 0 to pass, exit 2 with one `BLOCKED` line otherwise.
pub fn run_hook(_args: &SendGateArgs) -> ExitCode {
    // The default hook would print a backtrace banner; the BLOCKED line
    // below is the one message the agent should read.
    std::panic::set_hook(Box::new(|_| {}));
    let outcome = std::panic::catch_unwind(|| {
        let stdin = read_all_capped(std::io::stdin().lock(), MAX_INPUT_BYTES)
            .map_err(|e| format!("the tool call on stdin is unusable ({e}); the gate reads one JSON object of at most 8 MiB"))?;
        let paths =
            Paths::from_env().map_err(|e| format!("cannot locate configuration and state: {e}"))?;
        hook_decision(&stdin, &paths, OffsetDateTime::now_utc())
    });
    let _ = std::panic::take_hook();
    match outcome {
        Ok(Ok(warnings)) => {
            if !warnings.is_empty() {
                say(&format!(
                    "airlock send-gate advisory (allowed): {}",
                    describe_hits(&warnings)
                ));
            }
            ExitCode::SUCCESS
        }
        Ok(Err(reason)) => block(&reason),
        Err(payload) => {
            let what = payload
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            block(&format!(
                "internal error (panic: {what}); the gate cannot verify this send, so it does not pass; run `airlock guard doctor`"
            ))
        }
    }
}

fn block(reason: &str) -> ExitCode {
    // One line, always: a multi-line regex error would otherwise split the
    // reason from its remedy in a reader that keeps the first line.
    let one_line = reason
        .split(['\n', '\r'])
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    say(&format!("{BLOCKED} {one_line}"));
    ExitCode::from(2)
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
            let text = read_capped(&board, MAX_INPUT_BYTES)
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
            let fails = ledger::validate_ledger(&ledger, &prepared.digest, &config, now);
            if !fails.is_empty() {
                claimed.release();
                return Err(format!("ledger invalid: {}", fails.join(" | ")));
            }
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
                claimed.release();
                return Err(format!("{e}; a send that cannot be logged does not pass"));
            }
            claimed.consume()?;
            Ok(prepared.warnings)
        }
    }
}

/// Loads the configuration, with the remedy in the error.
fn load_config(paths: &Paths) -> Result<Config, String> {
    let shown = paths.config.display();
    let bytes = match read_capped(&paths.config, MAX_CONFIG_BYTES) {
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
            serde_json::to_string_pretty(&ledger::template(OffsetDateTime::now_utc()))
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
    let fails = ledger::validate_ledger(&ledger, digest, &config, OffsetDateTime::now_utc());
    if !fails.is_empty() {
        return Err(format!(
            "refused, the gate would not accept this ledger: {}",
            fails.join(" | ")
        ));
    }
    let path = store::write_ledger(&paths, &ledger)?;
    print(&path.display().to_string());
    Ok(ExitCode::SUCCESS)
}
