//! The `airlock` command: filters for pipes, a repository scanner and Claude Code hooks.
//!
//! Work in progress: each subcommand lands with its issue; until then it says so and fails.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod send_gate;
mod write_scope;

#[derive(Parser)]
#[command(name = "airlock", version, about = "Contain untrusted text before it reaches a model's prompt")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Claude Code hooks.
    #[command(subcommand)]
    Hook(HookCommand),
    /// Helpers for the send gate.
    #[command(subcommand)]
    Guard(send_gate::GuardCommand),
}

#[derive(Subcommand)]
enum HookCommand {
    /// PreToolUse guard: writes only to allowed paths.
    WriteScope(write_scope::WriteScopeArgs),
    /// PreToolUse guard: outgoing messages need a clean scan and a fresh ledger.
    SendGate(send_gate::SendGateArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Hook(HookCommand::WriteScope(args)) => write_scope::run(&args),
        Command::Hook(HookCommand::SendGate(args)) => send_gate::run_hook(&args),
        Command::Guard(cmd) => send_gate::run_guard(&cmd),
    }
}
