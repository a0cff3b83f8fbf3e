//! `airlock hook send-gate` and `airlock guard …`: not built yet (issue 7). Until then every call blocks.

use std::process::ExitCode;

/// Arguments of `airlock hook send-gate`.
#[derive(clap::Args)]
pub(crate) struct SendGateArgs {}

/// `airlock guard …` subcommands.
#[derive(clap::Subcommand)]
pub(crate) enum GuardCommand {
    /// Scan text on stdin for block patterns.
    Scan,
}

/// Blocks every call: the gate is not implemented yet, and a gate fails closed.
pub(crate) fn run_hook(_args: &SendGateArgs) -> ExitCode {
    eprintln!("airlock send-gate BLOCKED: the send gate is not implemented yet");
    ExitCode::from(2)
}

/// Not implemented yet.
pub(crate) fn run_guard(_cmd: &GuardCommand) -> ExitCode {
    eprintln!("airlock guard: not implemented yet");
    ExitCode::from(2)
}
