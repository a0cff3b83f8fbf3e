//! What reaches each client of a guard's verdict once a shell wrapper has had its say.
//!
//! A guard answers a deny twice: a JSON deny on stdout and exit 2 with the reason on stderr.
//! A hook command is run by a shell, and people wrap it (`airlock hook … || exit 1`) so that
//! a missing binary fails the way they expect. The wrapper rewrites the exit code of every
//! outcome, including a crash, a timeout kill and an out-of-memory kill, which leave nothing
//! on stdout. What each client then does was measured end to end (`tests/codex/run.sh
//! --full`, the matrix in `cli/CLIENTS.md`):
//!
//! * Codex 0.171.0 blocks on a JSON deny at exit 0, or on exit 2 with text on stderr. Exit 2
//!   with an empty stderr, any other code, a signal or a timeout is a failed hook, and the call
//!   runs; at exit 1 a JSON deny on stdout is ignored.
//! * Claude Code blocks on exit 2, and reads a JSON deny at any exit code; any other failure is
//!   a non-blocking error.
//!
//! The doctor flags a wrapper form that lets a call through in some cell, with the reason.
//! `|| exit 2` (what write-scope's `--print-config` prints) is not flagged: under Codex it
//! blocks whenever the failure leaves text on stderr, which every failure measured did.

use serde_json::Value;

/// The client a hook answers (`--client`), and whose settings the doctor reads: it decides
/// the dialect of the printed line, the exit code of a deny and what `--print-config` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Client {
    /// Claude Code (the default).
    #[default]
    ClaudeCode,
    /// Codex CLI: lines reshaped to its closed schema (`airlock_hooks::codex`).
    Codex,
}

impl Client {
    /// The client a raw command line names, for the paths that answer before (or instead
    /// of) the parser: `--client codex` or `--client=codex` anywhere is Codex.
    pub fn from_raw_args<I, S>(args: I) -> Client
    where
        I: IntoIterator<Item = S>,
        S: AsRef<std::ffi::OsStr>,
    {
        let mut after_flag = false;
        for arg in args {
            let arg = arg.as_ref();
            if (after_flag && arg == "codex") || arg == "--client=codex" {
                return Client::Codex;
            }
            after_flag = arg == "--client";
        }
        Client::ClaudeCode
    }
}

/// Debug builds only: makes a guard fail the ways no answer can help, so that the e2e matrix
/// (`tests/codex/run.sh --full`) runs airlock's real binary in those cells. The variable
/// names the guard and the failure, `GUARD:HOW` (`write-scope`, `send-gate`, `tool-output`,
/// `quarantine-gate`; `sigkill`, `stall`, `panic`), so that a run with several guards fails
/// only one:
///
/// * `sigkill`: the process kills itself with SIGKILL before it answers, as an out-of-memory
///   kill would;
/// * `stall`: it sleeps before its own deadline is armed (20 s, then exit 1 in silence), so
///   the client's `timeout` ends it;
/// * `panic`: it panics inside the guard's own `catch_unwind`, so the panic is the guard's
///   to answer.
///
/// The `airlock` binary acts on it (the library does no process I/O); [`test_failure_of`]
/// reads it. A no-op in release builds, and whenever the variable names another guard.
pub const TEST_FAILURE_VAR: &str = "AIRLOCK_HOOK_TEST_FAILURE";

/// How [`TEST_FAILURE_VAR`] in `env` says `guard` must fail (`sigkill`, `stall`, `panic`),
/// if it names `guard` in a debug build.
pub fn test_failure_of(env: &dyn crate::env::Env, guard: &str) -> Option<String> {
    if !cfg!(debug_assertions) {
        return None;
    }
    let value = env.var_os(TEST_FAILURE_VAR)?;
    let value = value.to_string_lossy();
    let (named, how) = value.split_once(':')?;
    (named == guard).then(|| how.to_owned())
}

/// What a wrapper's fallback does when the guard fails.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Fallback {
    /// No `||`: the guard's own exit reaches the client.
    Bare,
    /// Exit 0 (`true`, `:`, `exit 0`, an `echo`).
    Swallow,
    /// `exit N` for N other than 0 and 2.
    ExitOther(String),
    /// `exit 2` with nothing more written to stderr.
    ExitTwo,
    /// A message to stderr, then exit 2: blocks in every client.
    ExitTwoWithReason,
    /// Anything else, which the doctor cannot vouch for.
    Unknown(String),
}

/// The fallback of the first `||` after the word `airlock`, if the command has one.
fn fallback(command: &str) -> Fallback {
    let after = command
        .find("airlock")
        .map_or(command, |at| command.get(at..).unwrap_or(""));
    let Some((_, tail)) = after.split_once("||") else {
        return Fallback::Bare;
    };
    let tail = tail.trim();
    let words: Vec<&str> = tail
        .trim_start_matches('{')
        .trim_end_matches('}')
        .split(';')
        .map(str::trim)
        .filter(|w| !w.is_empty())
        .collect();
    let is_exit = |w: &str, code: &str| w.split_whitespace().collect::<Vec<_>>() == ["exit", code];
    match words.as_slice() {
        [one]
            if matches!(*one, "true" | ":")
                || is_exit(one, "0")
                || (one.starts_with("echo ") && !one.contains(">&2")) =>
        {
            Fallback::Swallow
        }
        [one] if is_exit(one, "2") => Fallback::ExitTwo,
        [one] if one.starts_with("exit ") => Fallback::ExitOther(one.to_string()),
        [say, last]
            if is_exit(last, "2")
                && (say.starts_with("echo ") || say.starts_with("printf "))
                && say.contains(">&2") =>
        {
            Fallback::ExitTwoWithReason
        }
        _ => Fallback::Unknown(tail.to_string()),
    }
}

/// Why `command`'s wrapper lets a call through in `client` in some cell; `None` when it blocks
/// in every cell it can.
pub(crate) fn wrapper_hazard(command: &str, client: Client) -> Option<String> {
    match (fallback(command), client) {
        (Fallback::Bare | Fallback::ExitTwoWithReason, _) => None,
        (Fallback::Swallow, _) => Some(
            "`|| true` turns a crash, a timeout or an out-of-memory kill into exit 0 with nothing on stdout, which the client takes as no objection: the call runs (end the command with `|| { echo 'airlock hook failed' >&2; exit 2; }` instead)".into(),
        ),
        (Fallback::ExitOther(exit), Client::Codex) => Some(format!(
            "`|| {exit}` turns every deny (exit 2) into that exit code, at which Codex ignores the JSON deny on stdout and runs the call; use `|| {{ echo 'airlock hook failed' >&2; exit 2; }}`"
        )),
        (Fallback::ExitOther(exit), Client::ClaudeCode) => Some(format!(
            "`|| {exit}` turns a crash or an out-of-memory kill into a non-blocking error, and the call runs (before 2.1.295, or without `onFailure: \"block\"`); use `|| {{ echo 'airlock hook failed' >&2; exit 2; }}`"
        )),
        // Under Codex exit 2 blocks only with text on stderr; every death measured leaves some
        // (the shell's "Killed", "not found", the allocator's abort message), so `--print-config`'s
        // own `|| exit 2` is not flagged. A guard exiting non-zero in silence would run the call.
        (Fallback::ExitTwo, _) => None,
        (Fallback::Unknown(tail), _) => Some(format!(
            "the fallback `|| {tail}` is not one whose outcome was measured; end the command with `|| {{ echo 'airlock hook failed' >&2; exit 2; }}` or nothing"
        )),
    }
}

/// One hook object of `settings.hooks` whose command runs airlock.
struct AirlockHook<'a> {
    event: &'a str,
    hook: &'a serde_json::Map<String, Value>,
    command: &'a str,
}

/// Every hook object of `settings.hooks` (any event) whose command runs airlock.
fn airlock_hooks(settings: &Value) -> Vec<AirlockHook<'_>> {
    let mut out = Vec::new();
    let Some(events) = settings.get("hooks").and_then(Value::as_object) else {
        return out;
    };
    for (event, entries) in events
        .iter()
        .filter_map(|(event, entries)| Some((event.as_str(), entries.as_array()?)))
    {
        for hook in entries
            .iter()
            .filter_map(|e| e.get("hooks").and_then(Value::as_array))
            .flatten()
            .filter_map(Value::as_object)
        {
            if let Some(command) = hook.get("command").and_then(Value::as_str)
                && command.contains("airlock")
            {
                out.push(AirlockHook {
                    event,
                    hook,
                    command,
                });
            }
        }
    }
    out
}

/// The guard a hook command runs and its own deadline: the time after which it answers a
/// deny (or withholds) whatever it is doing.
fn guard_deadline(command: &str) -> Option<(&'static str, std::time::Duration)> {
    if command.contains("hook write-scope") {
        Some(("write-scope", crate::write_scope::DEADLINE))
    } else if command.contains("hook send-gate") {
        Some(("send-gate", crate::send_gate::DEADLINE))
    } else if command.contains("hook tool-output") {
        Some(("tool-output", crate::tool_output::DEADLINE))
    } else {
        None
    }
}

/// Why `hook`'s `timeout` (seconds, as both clients read it) keeps the guard's own deadline
/// from answering: a guard still deciding at the timeout is killed, and a killed hook blocks
/// in neither client (no wrapper runs after the kill). A second is left for the process to
/// start and the answer to be read.
fn timeout_hazard(hook: &serde_json::Map<String, Value>, command: &str) -> Option<String> {
    let (guard, deadline) = guard_deadline(command)?;
    let timeout = hook.get("timeout").and_then(Value::as_f64)?;
    let needed = deadline.as_secs_f64() + 1.0;
    (timeout < needed).then(|| {
        format!(
            "`timeout: {timeout}` does not leave {guard}'s own {} s deadline time to answer: a guard still deciding at {timeout} s is killed, and a killed hook lets the call run in both clients; give it at least {needed} s (`--print-config` prints 30)",
            deadline.as_secs()
        )
    })
}

/// Every command of `settings.hooks` (any event) that runs airlock with a hazard the doctor
/// fails: a wrapper that lets a deny or a failure through where another form would not, or a
/// `timeout` that cuts off the guard's own deadline.
pub(crate) fn hazards(settings: &Value, client: Client) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for AirlockHook { hook, command, .. } in airlock_hooks(settings) {
        if let Some(why) = wrapper_hazard(command, client) {
            out.push((command.to_owned(), why));
        }
        if let Some(why) = timeout_hazard(hook, command) {
            out.push((command.to_owned(), why));
        }
    }
    out
}

/// The label of [`cautions`]' note on timeouts, one a client.
const TIMEOUTS_LABEL: &str = "hook timeouts";

/// What the doctor notes (without failing) of the airlock commands in `settings.hooks`: cells
/// of the matrix in `cli/CLIENTS.md` where the call runs that the entry's form leaves open,
/// with the form that closes them, and the one no form closes. Each is labelled "hook" and
/// the command in backticks, or [`TIMEOUTS_LABEL`].
pub(crate) fn cautions(settings: &Value, client: Client) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let hooks = airlock_hooks(settings);
    for AirlockHook {
        event,
        hook,
        command,
    } in &hooks
    {
        // Claude Code shows a PostToolUse hook's exit 2 beside the result, not in its place:
        // a tool-output that dies lets the result through whatever the wrapper.
        if *event == "PostToolUse" && client == Client::ClaudeCode {
            out.push((
                format!("hook `{command}`"),
                "a crash, an out-of-memory kill or a timeout of tool-output lets the result reach the model uncontained whatever the wrapper: Claude Code shows a PostToolUse hook's exit 2 beside the result, not in its place (under Codex the fail-closed wrapper withholds it); the guard's own deadline and panic handling withhold in every other case".into(),
            ));
            continue;
        }
        if fallback(command) != Fallback::Bare {
            continue;
        }
        let blocks_on_failure = hook.get("onFailure").and_then(Value::as_str) == Some("block");
        match client {
            Client::Codex => out.push((
                format!("hook `{command}`"),
                format!(
                    "no fallback: a crash or an out-of-memory kill of the guard is a failed hook to Codex, and the call runs (a tool-output result reaches the model); end the command with `{}` (what `--print-config --client codex` prints)",
                    crate::codex::FAIL_CLOSED
                ),
            )),
            Client::ClaudeCode if !blocks_on_failure => out.push((
                format!("hook `{command}`"),
                "no fallback and no `\"onFailure\": \"block\"`: a crash or an out-of-memory kill of the guard is a non-blocking error to Claude Code, and the call runs; add `\"onFailure\": \"block\"` (Claude Code 2.1.295 and later) and end the command with `|| exit 2` (which 2.1.87 needs)".into(),
            )),
            Client::ClaudeCode => {}
        }
    }
    if !hooks.is_empty() {
        let why = match client {
            Client::Codex => {
                "a guard the client kills at its `timeout` lets the call run whatever the wrapper (no `||` runs after a kill, and Codex has no `onFailure`); only a guard that hangs before its own deadline is armed gets there, since the deadline answers well before the printed 30 s"
            }
            Client::ClaudeCode => {
                "a guard the client kills at its `timeout` lets the call run whatever the wrapper on Claude Code before 2.1.295, or without `\"onFailure\": \"block\"`; only a guard that hangs before its own deadline is armed gets there, since the deadline answers well before the printed 30 s"
            }
        };
        out.push((TIMEOUTS_LABEL.to_owned(), why.to_owned()));
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;

    const RECOMMENDED: &str =
        "airlock hook send-gate || { echo 'airlock hook failed' >&2; exit 2; }";

    #[test]
    fn each_measured_wrapper_gets_its_verdict() {
        for client in [Client::ClaudeCode, Client::Codex] {
            assert_eq!(
                wrapper_hazard("airlock hook write-scope --allow a", client),
                None
            );
            assert_eq!(wrapper_hazard(RECOMMENDED, client), None);
            for swallow in [" || true", " || :", " || exit 0", " || echo failed"] {
                let why = wrapper_hazard(&format!("airlock hook send-gate{swallow}"), client);
                assert!(why.unwrap().contains("the call runs"), "{swallow}");
            }
            let why = wrapper_hazard("airlock hook x || exit 1", client).unwrap();
            assert!(why.contains("`|| exit 1`"), "{why}");
            let why = wrapper_hazard("airlock hook x || sh fallback.sh", client).unwrap();
            assert!(why.contains("not one whose outcome was measured"), "{why}");
        }
        assert!(
            wrapper_hazard("airlock hook x || exit 1", Client::Codex)
                .unwrap()
                .contains("ignores the JSON deny")
        );
        for client in [Client::ClaudeCode, Client::Codex] {
            assert_eq!(wrapper_hazard("airlock hook x || exit 2", client), None);
        }
    }

    #[test]
    fn a_fallback_before_airlock_is_not_its_wrapper() {
        assert_eq!(
            wrapper_hazard(
                "test -x /bin/sh || exit 1; airlock hook send-gate",
                Client::Codex
            ),
            None
        );
    }

    #[test]
    fn hazards_walk_every_event_and_skip_other_commands() {
        let settings = serde_json::json!({"hooks": {
            "PreToolUse": [{"matcher": "*", "hooks": [
                {"type": "command", "command": "airlock hook write-scope || exit 1"},
                {"type": "command", "command": "other-tool || true"},
            ]}],
            "PostToolUse": [{"hooks": [{"type": "command", "command": "airlock hook tool-output || true"}]}],
        }});
        let found = hazards(&settings, Client::Codex);
        let mut commands: Vec<&str> = found.iter().map(|(c, _)| c.as_str()).collect();
        commands.sort_unstable();
        assert_eq!(
            commands,
            [
                "airlock hook tool-output || true",
                "airlock hook write-scope || exit 1"
            ]
        );
    }

    #[test]
    fn a_timeout_that_cuts_off_the_guards_deadline_fails() {
        let settings = |command: &str, timeout: f64| {
            serde_json::json!({"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [
                {"type": "command", "command": command, "timeout": timeout},
            ]}]}})
        };
        for (command, deadline) in [
            ("airlock hook write-scope --allow a", 5),
            ("airlock hook send-gate", 10),
            ("airlock hook tool-output --quarantine-gate", 5),
        ] {
            for client in [Client::ClaudeCode, Client::Codex] {
                let found = hazards(&settings(command, 5.0), client);
                let why = &found.iter().find(|(c, _)| c == command).unwrap().1;
                assert!(why.contains(&format!("own {deadline} s deadline")), "{why}");
                // The printed 30 s leaves every deadline room.
                assert!(
                    hazards(&settings(command, 30.0), client).is_empty(),
                    "{command}"
                );
            }
        }
        // No timeout: the client's default (minutes) is far above every deadline.
        let none = serde_json::json!({"hooks": {"PreToolUse": [{"hooks": [
            {"type": "command", "command": "airlock hook send-gate"}]}]}});
        assert!(hazards(&none, Client::Codex).is_empty());
    }

    #[test]
    fn a_bare_entry_is_noted_where_a_crash_runs_the_call() {
        let entry = |command: &str, on_failure: Option<&str>| {
            let mut hook =
                serde_json::json!({"type": "command", "command": command, "timeout": 30});
            if let Some(v) = on_failure {
                hook["onFailure"] = v.into();
            }
            serde_json::json!({"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [hook]}]}})
        };
        let bare = "airlock hook send-gate";
        let noted = |settings: &Value, client| {
            cautions(settings, client)
                .into_iter()
                .filter(|(c, _)| c != TIMEOUTS_LABEL)
                .map(|(_, why)| why)
                .collect::<Vec<_>>()
        };
        // Codex: no onFailure, so bare is noted whatever the entry says.
        let why = noted(&entry(bare, Some("block")), Client::Codex);
        assert!(why[0].contains(crate::codex::FAIL_CLOSED), "{why:?}");
        // Claude Code: noted only without onFailure.
        let why = noted(&entry(bare, None), Client::ClaudeCode);
        assert!(why[0].contains("onFailure"), "{why:?}");
        assert!(noted(&entry(bare, Some("block")), Client::ClaudeCode).is_empty());
        // The printed wrappers are not noted.
        let printed = format!("{bare} {}", crate::codex::FAIL_CLOSED);
        assert!(noted(&entry(&printed, None), Client::Codex).is_empty());
        assert!(
            noted(
                &entry(&format!("{bare} || exit 2"), None),
                Client::ClaudeCode
            )
            .is_empty()
        );
        // A timeout kill is noted once a client, since no form closes it.
        for client in [Client::ClaudeCode, Client::Codex] {
            let timeouts: Vec<_> = cautions(&entry(&printed, Some("block")), client)
                .into_iter()
                .filter(|(c, _)| c == TIMEOUTS_LABEL)
                .collect();
            assert_eq!(timeouts.len(), 1, "{timeouts:?}");
            assert!(
                timeouts[0].1.contains("whatever the wrapper"),
                "{timeouts:?}"
            );
        }
        assert!(cautions(&serde_json::json!({}), Client::Codex).is_empty());
    }

    #[test]
    fn tool_output_dying_under_claude_code_is_noted_whatever_the_wrapper() {
        let command = format!("airlock hook tool-output {}", crate::codex::FAIL_CLOSED);
        let settings = serde_json::json!({"hooks": {"PostToolUse": [{"matcher": "*", "hooks": [
            {"type": "command", "command": command, "timeout": 30},
        ]}]}});
        let noted = cautions(&settings, Client::ClaudeCode);
        assert!(
            noted
                .iter()
                .any(|(_, why)| why.contains("whatever the wrapper")
                    && why.contains("beside the result")),
            "{noted:?}"
        );
        // Under Codex the printed wrapper withholds: nothing but the timeout note.
        let noted = cautions(&settings, Client::Codex);
        assert_eq!(noted.len(), 1, "{noted:?}");
        assert_eq!(noted[0].0, TIMEOUTS_LABEL);
    }
}
