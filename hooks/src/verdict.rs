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

/// Every command of `settings.hooks` (any event) that runs airlock, with its wrapper's hazard.
pub(crate) fn hazards(settings: &Value, client: Client) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let Some(events) = settings.get("hooks").and_then(Value::as_object) else {
        return out;
    };
    for entries in events.values().filter_map(Value::as_array) {
        for hook in entries
            .iter()
            .filter_map(|e| e.get("hooks").and_then(Value::as_array))
            .flatten()
        {
            let Some(command) = hook.get("command").and_then(Value::as_str) else {
                continue;
            };
            if !command.contains("airlock") {
                continue;
            }
            if let Some(why) = wrapper_hazard(command, client) {
                out.push((command.to_owned(), why));
            }
        }
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
}
