//! `airlock hook write-scope`: a Claude Code PreToolUse hook that lets file writes through only to
//! allowed paths and denies every other tool unless named. See `cli/WRITE_SCOPE.md`.
//!
//! Claude Code treats a hook that crashes, times out, or exits with a code other than 0 or 2 as
//! "no objection". So a deny is said twice: the JSON deny line on stdout (read even when a
//! wrapper swallows the exit code) and exit 2 with the reason on stderr (read even when stdout
//! is lost). Every way this can go wrong — a panic, unreadable stdin, a bad flag, a stall past
//! the guard's own deadline — ends in that deny.

mod call;
mod config;
mod decision;
mod options;
mod patch;
mod path_text;
mod protected;
mod resolve;

use std::ffi::OsString;
use std::io::{self, IsTerminal, Read, Write};
use std::panic::{self, AssertUnwindSafe};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, PoisonError};
use std::thread;
use std::time::Duration;

use crate::Client;
pub(crate) use decision::{Decision, decide};
pub(crate) use options::Options;

use decision::{FALLBACK_DENY_LINE, MAX_INPUT_BYTES, deny_line};

/// The guard's own deadline. Claude Code lets a hook run for its `timeout` (the printed config
/// says 30 s; the default is 600 s) and then goes ahead with the call, so the guard must answer
/// well before: a call takes about a millisecond, and anything still running after this is stuck
/// (a stdin that never ends, a hung file system) and is denied.
pub(crate) const DEADLINE: Duration = Duration::from_secs(5);

/// Environment variable that can shorten (never lengthen) the deadline, in milliseconds; for
/// tests that check a stall ends in a deny.
const DEADLINE_ENV: &str = "AIRLOCK_WRITE_SCOPE_DEADLINE_MS";

/// Where to read about the hook; named in every argument error.
const HELP_COMMAND: &str = "airlock help hook write-scope";

/// Arguments of `airlock hook write-scope`.
///
/// No `-h`/`--help` flag: clap would print help to stdout and exit 0, which Claude Code reads as
/// "no objection" if the flag ever lands in a hook command. `airlock help hook write-scope`
/// shows the help; `-h`/`--help` in a hook command deny like any other argument error.
#[derive(clap::Args, Debug)]
#[command(disable_help_flag = true)]
pub struct WriteScopeArgs {
    /// Directory the allowed paths are relative to [default: git top level of the call's cwd,
    /// below $HOME, else the cwd]. A relative root is taken from the call's cwd. A root that is
    /// `/`, $HOME or above it is refused.
    #[arg(long, value_name = "DIR")]
    root: Option<String>,
    /// A file writes may go to (relative to the root, never glob-expanded). Repeatable.
    #[arg(long = "allow", value_name = "PATH")]
    allow: Vec<String>,
    /// A directory writes may go strictly inside (relative to the root), protected places
    /// excepted. Repeatable.
    #[arg(long = "allow-dir", value_name = "DIR")]
    allow_dir: Vec<String>,
    /// A tool other than Write, Edit, MultiEdit and NotebookEdit to let through. Repeatable.
    #[arg(long = "allow-tool", value_name = "NAME")]
    allow_tool: Vec<String>,
    /// A protected entry (`.vscode`, `CLAUDE.md`, `.github/workflows`, … — see WRITE_SCOPE.md)
    /// that `--allow-dir` grants may reach after all. `.git` and `.claude` cannot be lifted.
    /// Repeatable.
    #[arg(long = "unprotect", value_name = "NAME")]
    unprotect: Vec<String>,
    /// Print the settings.json snippet registering this guard with these flags, and exit.
    /// With `--client codex`: Codex's hooks.json entry and the same as config.toml tables.
    #[arg(long)]
    print_config: bool,
    /// The client running the hook: `claude-code`, or `codex`, whose closed schema the
    /// printed line then follows, a deny exiting 0 (see `cli/CLIENTS.md`).
    #[arg(long, value_enum, default_value_t = Client::ClaudeCode)]
    client: Client,
}

impl WriteScopeArgs {
    fn options(&self) -> Result<Options, String> {
        Options::new(
            self.root.clone(),
            self.allow.clone(),
            self.allow_dir.clone(),
            self.allow_tool.clone(),
            self.unprotect.clone(),
        )
    }
}

/// Whether an answer is out: the main path and the deadline race for it, and only the first
/// one speaks.
static ANSWERED: Mutex<bool> = Mutex::new(false);

/// Whether the hook answers Codex (`--client codex`); set before anything can answer.
static CODEX: AtomicBool = AtomicBool::new(false);

/// Writes a deny line in the client's dialect, the reason on stderr; the exit code.
fn write_deny(line: &str, reason: &str) -> u8 {
    if CODEX.load(Ordering::SeqCst) {
        return crate::codex::deliver_pre_tool_use(line);
    }
    let mut stdout = io::stdout().lock();
    let _ = stdout
        .write_all(line.as_bytes())
        .and_then(|()| stdout.flush());
    let _ = writeln!(io::stderr().lock(), "{reason}");
    2
}

/// Writes the deny (stdout JSON line, stderr reason) unless something already answered.
/// Returns exit 2, which blocks whatever happened to stdout; under Codex, exit 0 once stdout
/// took the deny (`codex::deliver_pre_tool_use`).
fn deliver_deny(line: &str, reason: &str) -> ExitCode {
    let mut answered = ANSWERED.lock().unwrap_or_else(PoisonError::into_inner);
    if *answered {
        return ExitCode::from(2);
    }
    *answered = true;
    ExitCode::from(write_deny(line, reason))
}

/// Marks the call allowed unless the deadline already denied it.
fn deliver_allow() -> ExitCode {
    let mut answered = ANSWERED.lock().unwrap_or_else(PoisonError::into_inner);
    if *answered {
        return ExitCode::from(2);
    }
    *answered = true;
    ExitCode::SUCCESS
}

/// The deny for `reason`: on stdout as JSON and on stderr, which the client hands the
/// model on exit 2, both contained.
fn deny(reason: &str) -> ExitCode {
    let reason = crate::words::contained(reason);
    deliver_deny(&deny_line(&reason), &reason)
}

fn deadline() -> Duration {
    std::env::var(DEADLINE_ENV)
        .ok()
        .and_then(|text| text.parse::<u64>().ok())
        .map_or(DEADLINE, |ms| DEADLINE.min(Duration::from_millis(ms)))
}

/// Starts the watchdog that denies when the deadline passes; `false` when it cannot start, in
/// which case the call must be denied now, since nothing would stop a stall.
fn arm_deadline() -> bool {
    let limit = deadline();
    thread::Builder::new()
        .name("write-scope-deadline".into())
        .spawn(move || {
            thread::sleep(limit);
            let reason = format!(
                "airlock write-scope: no decision within {} ms (stalled input or file system)",
                limit.as_millis()
            );
            match ANSWERED.try_lock() {
                Ok(mut answered) => {
                    if *answered {
                        return;
                    }
                    *answered = true;
                    std::process::exit(i32::from(write_deny(&deny_line(&reason), &reason)));
                }
                // The main path is writing its deny and stuck there (a stdout nobody reads):
                // exit 2 is a deny on its own.
                Err(_) => thread::sleep(Duration::from_millis(100)),
            }
            std::process::exit(2);
        })
        .is_ok()
}

/// Runs the hook (or `--print-config`).
pub fn run(args: &WriteScopeArgs) -> ExitCode {
    // A panic message on stderr is noise to Claude Code; the deny line says what happened.
    panic::set_hook(Box::new(|_| {}));
    crate::verdict::test_failure("write-scope");
    CODEX.store(args.client == Client::Codex, Ordering::SeqCst);
    if !arm_deadline() {
        return deny("airlock write-scope: cannot start the deadline thread; denying");
    }
    if args.print_config {
        return print_config(args);
    }
    match panic::catch_unwind(AssertUnwindSafe(|| hook_decision(args))) {
        Ok(Decision::Allow) => deliver_allow(),
        Ok(Decision::Deny(reason)) => deny(&reason),
        Err(_) => deliver_deny(
            FALLBACK_DENY_LINE,
            "airlock write-scope: internal error (panic)",
        ),
    }
}

fn hook_decision(args: &WriteScopeArgs) -> Decision {
    // Debug builds only: lets the tests prove that a panic ends in a deny.
    #[cfg(debug_assertions)]
    #[allow(clippy::panic)]
    if std::env::var_os("AIRLOCK_WRITE_SCOPE_TEST_PANIC").is_some() {
        panic!("AIRLOCK_WRITE_SCOPE_TEST_PANIC is set");
    }
    match args.options() {
        Err(why) => Decision::Deny(format!("airlock write-scope: bad configuration: {why}")),
        Ok(opts) => match read_input() {
            Ok(input) => decide(&input, &opts),
            Err(error) => {
                Decision::Deny(format!("airlock write-scope: cannot read stdin: {error}"))
            }
        },
    }
}

/// Reads stdin up to one byte past the limit, so that `decide` can tell "too large" apart from
/// "exactly at the limit" without reading an unbounded stream.
fn read_input() -> io::Result<Vec<u8>> {
    let limit = u64::try_from(MAX_INPUT_BYTES)
        .unwrap_or(u64::MAX)
        .saturating_add(1);
    let mut input = Vec::new();
    input.try_reserve(64 * 1024).map_err(io::Error::other)?;
    io::stdin().lock().take(limit).read_to_end(&mut input)?;
    Ok(input)
}

/// Answers an argument error of `airlock hook write-scope` (`--help` included): a deny on stdout
/// and exit 2, pointing at the help. `None` when the error is not this hook's, so the caller
/// reports it as usual. `args` is the whole command line, program name first.
pub fn usage_error(args: &[OsString], error: &clap::Error) -> Option<ExitCode> {
    let is_this_hook = args.get(1).is_some_and(|word| word == "hook")
        && args.get(2).is_some_and(|word| word == "write-scope");
    if !is_this_hook {
        return None;
    }
    CODEX.store(
        Client::from_raw_args(args) == Client::Codex,
        Ordering::SeqCst,
    );
    let rendered = error.to_string();
    let first = rendered
        .lines()
        .find(|line| !line.trim().is_empty())
        .unwrap_or("invalid arguments")
        .trim_start_matches("error: ");
    let reason = format!(
        "airlock write-scope: bad arguments, so every call is denied: {first}; see `{HELP_COMMAND}`"
    );
    Some(deny(&reason))
}

fn print_config(args: &WriteScopeArgs) -> ExitCode {
    // Registered as a hook by mistake, `--print-config` would answer every call with a snippet
    // Claude Code ignores, letting it through; a call waiting on stdin gets the deny instead.
    if !io::stdin().is_terminal() && read_input().is_ok_and(|input| !input.trim_ascii().is_empty())
    {
        return deny("airlock write-scope: --print-config is not a hook; drop it from the command");
    }
    match args.options() {
        Ok(opts) => {
            let mut stdout = io::stdout().lock();
            let text = match args.client {
                Client::ClaudeCode => config::settings_snippet(&opts),
                Client::Codex => config::codex_wiring(&opts),
            };
            match writeln!(stdout, "{text}").and_then(|()| stdout.flush()) {
                Ok(()) => deliver_allow(),
                Err(_) => ExitCode::FAILURE,
            }
        }
        Err(why) => {
            let _ = writeln!(io::stderr(), "airlock hook write-scope: {why}");
            ExitCode::from(2)
        }
    }
}
