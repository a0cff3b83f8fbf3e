//! airlock's Claude Code guards, as a library the `airlock` binary wires:
//!
//! * [`write_scope`] — a PreToolUse hook that lets file writes through only to
//!   allowed paths (`cli/WRITE_SCOPE.md`);
//! * [`send_gate`] — a PreToolUse hook that lets a message out only with a clean
//!   scan and a fresh, single-use grounding ledger, and `guard doctor`
//!   (`cli/SEND_GATE.md`);
//! * [`tool_output`] — a PostToolUse hook that contains every string of a tool's
//!   result through core's strict profile (`cli/TOOL_OUTPUT.md`).
//!
//! Each hook maps every failure — bad input, a panic, an I/O error, its own
//! deadline — to a deny (or, for tool output, a withheld notice): Claude Code lets a
//! call through on any other exit code.
//!
//! A library of decisions: each hook takes its flags, the bytes of its stdin and an
//! [`Env`], and returns a [`Reply`] (what to write to stdout and stderr, and the exit
//! code). It parses no command line and touches no stdin, stdout, stderr, exit code or
//! environment variable; the `airlock` binary does, and keeps each hook's deadline (the
//! constants and deadline answers are here). The file system a decision needs (the paths
//! a write resolves to, the send gate's configuration and state, the quarantine markers)
//! it reads itself.

pub mod codex;
mod env;
pub use env::{Empty, Env};
pub mod json;
mod reply;
pub use reply::{Fallback, Reply};
pub mod send_gate;
pub mod tool_output;
mod verdict;
pub use verdict::Client;
pub mod words;
pub mod write_scope;

/// The hook decisions as pure functions of their input, for fuzz targets: no stdin,
/// no stdout, no process state beyond the file system the decision reads.
pub mod decoders {
    /// The write-scope verdict for one PreToolUse call on `input`, under the given
    /// flags, with no `$HOME`: `Ok(())` allows; `Err(reason)` denies (bad flags deny
    /// too).
    pub fn write_scope(
        input: &[u8],
        root: Option<String>,
        allow_files: Vec<String>,
        allow_dirs: Vec<String>,
        allow_tools: Vec<String>,
        unprotect: Vec<String>,
    ) -> Result<(), String> {
        let opts = crate::write_scope::Options::new(
            root,
            allow_files,
            allow_dirs,
            allow_tools,
            unprotect,
        )?;
        match crate::write_scope::decide(input, &opts) {
            crate::write_scope::Decision::Allow => Ok(()),
            crate::write_scope::Decision::Deny(reason) => Err(reason),
        }
    }

    /// The tool-output hook's whole decision on one PostToolUse call `input`: the line
    /// it prints (`None`: nothing changed), under `--max-bytes max_bytes`, with a
    /// deadline of `deadline_ms`.
    pub fn tool_output(input: &[u8], max_bytes: Option<usize>, deadline_ms: u64) -> Option<String> {
        crate::tool_output::decide_line(input, max_bytes, deadline_ms)
    }

    /// Strict containment of one string as the tool-output hook does it, with no cap and
    /// no budget: `None` when `text` is already contained.
    pub fn tool_output_contain(text: &str) -> Option<String> {
        crate::tool_output::contain_one(text)
    }

    /// The send gate's first step: `Ok(tool_name)` when `input` is a JSON object with a
    /// string `tool_name` and an object `tool_input` within the size, node and depth
    /// limits; otherwise the reason it blocks.
    pub fn send_gate_tool_call(input: &[u8]) -> Result<String, String> {
        crate::send_gate::parse_tool_call(input).map(|call| call.tool_name)
    }

    /// The send gate's whole decision for one hook stdin, against the configuration
    /// file `config` and the state directory `state`: `Ok(warning names)` passes
    /// (the ledger is spent and the send logged), `Err(reason)` blocks.
    pub fn send_gate_decision(
        input: &[u8],
        config: &std::path::Path,
        state: &std::path::Path,
    ) -> Result<Vec<String>, String> {
        crate::send_gate::decide_with_state(input, config, state)
    }

    /// The message digest of a tool call (`airlock guard sha`).
    pub fn send_gate_digest(input: &[u8]) -> Result<String, String> {
        crate::send_gate::digest_of(input)
    }
}
