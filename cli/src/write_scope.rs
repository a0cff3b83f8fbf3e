//! `airlock hook write-scope`: not built yet (issue 6). Until it is, every call is denied.

use std::process::ExitCode;

/// Arguments of `airlock hook write-scope`.
#[derive(clap::Args)]
pub(crate) struct WriteScopeArgs {}

/// Denies every call: the guard is not implemented yet, and a guard fails closed.
pub(crate) fn run(_args: &WriteScopeArgs) -> ExitCode {
    println!(
        r#"{{"hookSpecificOutput":{{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"airlock write-scope is not implemented yet"}}}}"#
    );
    ExitCode::SUCCESS
}
