//! `airlock hook write-scope`: a Claude Code PreToolUse hook that lets file writes through only to
//! allowed paths and denies every other tool unless named. See `cli/WRITE_SCOPE.md`.
//!
//! Claude Code treats a hook that crashes, times out, or exits with a code other than 0 or 2 as
//! "no objection". So a deny is said twice: the JSON deny line on stdout (read even when a
//! wrapper swallows the exit code) and exit 2 with the reason on stderr (read even when stdout
//! is lost). Every way this can go wrong — a panic, unreadable stdin, a bad flag, a stall past
//! the guard's own deadline — ends in that deny.
//!
//! Each answer is a [`Reply`]; the `airlock` binary reads stdin, keeps the deadline and
//! writes the answer.

mod call;
mod config;
mod decision;
mod options;
mod patch;
mod path_text;
mod protected;
mod resolve;

use std::ffi::OsString;
use std::panic::{self, AssertUnwindSafe};
use std::time::Duration;

use crate::{Client, Env, Reply};
pub(crate) use decision::{Decision, decide};
pub use options::Options;

use decision::{FALLBACK_DENY_LINE, deny_line};

/// Largest input read: tool inputs carry whole file contents, but nothing legitimate comes
/// close. The binary reads one byte more, so that "too large" is told apart from "exactly
/// at the limit" without reading an unbounded stream.
pub const MAX_INPUT_BYTES: usize = decision::MAX_INPUT_BYTES;

/// The guard's own deadline. Claude Code lets a hook run for its `timeout` (the printed config
/// says 30 s; the default is 600 s) and then goes ahead with the call, so the guard must answer
/// well before: a call takes about a millisecond, and anything still running after this is stuck
/// (a stdin that never ends, a hung file system) and is denied.
pub const DEADLINE: Duration = Duration::from_secs(5);

/// Environment variable that can shorten (never lengthen) the deadline, in milliseconds; for
/// tests that check a stall ends in a deny.
pub const DEADLINE_ENV: &str = "AIRLOCK_WRITE_SCOPE_DEADLINE_MS";

/// Environment variable that makes a debug build panic, so that the tests prove a panic
/// ends in a deny.
pub const TEST_PANIC_ENV: &str = "AIRLOCK_WRITE_SCOPE_TEST_PANIC";

/// Where to read about the hook; named in every argument error.
const HELP_COMMAND: &str = "airlock help hook write-scope";

/// The flags of `airlock hook write-scope`, as the command line gave them.
#[derive(Debug, Clone, Default)]
pub struct Flags {
    /// `--root`.
    pub root: Option<String>,
    /// `--allow`.
    pub allow: Vec<String>,
    /// `--allow-dir`.
    pub allow_dir: Vec<String>,
    /// `--allow-tool`.
    pub allow_tool: Vec<String>,
    /// `--unprotect`.
    pub unprotect: Vec<String>,
    /// `--client`.
    pub client: Client,
}

impl Flags {
    fn checked(&self) -> Result<Options, String> {
        Options::new(
            self.root.clone(),
            self.allow.clone(),
            self.allow_dir.clone(),
            self.allow_tool.clone(),
            self.unprotect.clone(),
        )
    }
}

/// The deny line in the client's dialect, the reason on stderr: exit 2, or under Codex
/// exit 0 once stdout took the deny (`codex::pre_tool_use_reply`).
fn deny_reply(client: Client, line: &str, reason: &str) -> Reply {
    if client == Client::Codex {
        return crate::codex::pre_tool_use_reply(line);
    }
    Reply {
        stdout: line.to_owned(),
        stderr: format!("{reason}\n"),
        exit: 2,
        if_stdout_fails: None,
    }
}

/// The deny for `reason`: on stdout as JSON and on stderr, which the client hands the
/// model on exit 2, both contained.
fn deny(client: Client, reason: &str) -> Reply {
    let reason = crate::words::contained(reason);
    deny_reply(client, &deny_line(&reason), &reason)
}

/// The deny of a panic: the fixed line, which building cannot fail.
fn panic_deny(client: Client) -> Reply {
    deny_reply(
        client,
        FALLBACK_DENY_LINE,
        "airlock write-scope: internal error (panic)",
    )
}

/// The deadline, shortened to `shorten_ms` (the value of [`DEADLINE_ENV`]) when that is
/// a number of milliseconds below it.
pub fn deadline(shorten_ms: Option<&str>) -> Duration {
    shorten_ms
        .and_then(|text| text.parse::<u64>().ok())
        .map_or(DEADLINE, |ms| DEADLINE.min(Duration::from_millis(ms)))
}

/// The deny once `limit` passed with no decision.
pub fn deadline_reply(client: Client, limit: Duration) -> Reply {
    let reason = format!(
        "airlock write-scope: no decision within {} ms (stalled input or file system)",
        limit.as_millis()
    );
    deny_reply(client, &deny_line(&reason), &reason)
}

/// The deny when the deadline cannot be kept (its thread did not start): nothing would
/// stop a stall, so the call is denied now.
pub fn no_deadline_reply(client: Client) -> Reply {
    deny(
        client,
        "airlock write-scope: cannot start the deadline thread; denying",
    )
}

/// Step one of a call: the options from `flags` and `env` (`$HOME`, and the variables
/// that move git's configuration), or, when the flags
/// are bad, the deny (stdin is not read then). `test_panic` (debug builds only) panics,
/// which denies like any panic.
pub fn options(flags: &Flags, env: &dyn Env, test_panic: bool) -> Result<Options, Reply> {
    let checked = panic::catch_unwind(AssertUnwindSafe(|| {
        #[cfg(debug_assertions)]
        #[allow(clippy::panic)]
        if test_panic {
            panic!("{TEST_PANIC_ENV} is set");
        }
        #[cfg(not(debug_assertions))]
        let _ = test_panic;
        flags.checked()
    }));
    match checked {
        Ok(Ok(mut opts)) => {
            opts.home = crate::env::path(env, "HOME");
            opts.git = protected::GitEnv::from(env);
            Ok(opts)
        }
        Ok(Err(why)) => Err(deny(
            flags.client,
            &format!("airlock write-scope: bad configuration: {why}"),
        )),
        Err(_) => Err(panic_deny(flags.client)),
    }
}

/// Step two: the answer to the call `input` (stdin, or why it could not be read).
pub fn answer(client: Client, opts: &Options, input: Result<Vec<u8>, String>) -> Reply {
    let decided = panic::catch_unwind(AssertUnwindSafe(|| match input {
        Ok(input) => decide(&input, opts),
        Err(error) => Decision::Deny(format!("airlock write-scope: cannot read stdin: {error}")),
    }));
    match decided {
        Ok(Decision::Allow) => Reply::silent(),
        Ok(Decision::Deny(reason)) => deny(client, &reason),
        Err(_) => panic_deny(client),
    }
}

/// The deny of a panic outside [`options`] and [`answer`] (reading stdin).
pub fn panic_reply(client: Client) -> Reply {
    panic_deny(client)
}

/// Answers an argument error of `airlock hook write-scope` (`--help` included): a deny on
/// stdout and exit 2, pointing at the help. `None` when the error is not this hook's, so the
/// caller reports it as usual. `args` is the whole command line, program name first;
/// `rendered` the parser's message.
pub fn usage_error(args: &[OsString], rendered: &str) -> Option<Reply> {
    let is_this_hook = args.get(1).is_some_and(|word| word == "hook")
        && args.get(2).is_some_and(|word| word == "write-scope");
    if !is_this_hook {
        return None;
    }
    let client = Client::from_raw_args(args);
    let first = rendered
        .lines()
        .find(|line| !line.trim().is_empty())
        .unwrap_or("invalid arguments")
        .trim_start_matches("error: ");
    let reason = format!(
        "airlock write-scope: bad arguments, so every call is denied: {first}; see `{HELP_COMMAND}`"
    );
    Some(deny(client, &reason))
}

/// `--print-config`: the snippet registering the guard with `flags`, given stdin (`None`:
/// a terminal, not read). Registered as a hook by mistake, `--print-config` would answer
/// every call with a snippet Claude Code ignores, letting it through; a call read on stdin
/// is denied.
pub fn print_config(flags: &Flags, stdin: Option<Result<Vec<u8>, String>>) -> Reply {
    if stdin.is_some_and(|read| read.is_ok_and(|input| !input.trim_ascii().is_empty())) {
        return deny(
            flags.client,
            "airlock write-scope: --print-config is not a hook; drop it from the command",
        );
    }
    match flags.checked() {
        Ok(opts) => {
            let text = match flags.client {
                Client::ClaudeCode => config::settings_snippet(&opts),
                Client::Codex => config::codex_wiring(&opts),
            };
            Reply::text(&text, 1)
        }
        Err(why) => Reply::error(&format!("airlock hook write-scope: {why}"), 2),
    }
}
