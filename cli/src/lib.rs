//! The `airlock` command: filters for pipes, a repository scanner and Claude Code hooks.
//!
//! Exit codes, for every command but the hooks: 0 success (clean, valid, sound),
//! 1 the input was rejected, refused or has findings, 2 usage error, unreadable
//! input, invalid UTF-8 or any other failure. A closed stdout pipe exits 0.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod filters;
mod hooks;
mod io;
mod json;
mod names;
mod scan;

/// `airlock X.Y.Z (Unicode A.B.C, reference profile D.E.F)`: the strict profile's and the
/// names' Unicode version, then the reference profile's (its Extended_Pictographic, the
/// JavaScript engine's data). Both literals are held against core's constants in a test.
const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (Unicode 18.0.0, reference profile 17.0.0)"
);

#[derive(Parser)]
#[command(
    name = "airlock",
    version = VERSION,
    about = "Contain untrusted text before it reaches a model's prompt",
    after_help = "Exit codes: 0 ok, 1 rejected/refused/findings, 2 usage or input error.\n\
                  Example: printf 'a\\u200bb' | airlock strip"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Sanitize prose: strip invisibles and controls, reject wrapper forgeries,
    /// redact envelope markers, cut to a byte budget.
    #[command(
        after_help = "Example:\n  airlock sanitize --field insight --max-bytes 2000 note.txt\n\n\
                            Exit 0 with the text on stdout; 1 with the reference's rejection \
                            message on stderr and nothing on stdout; 2 on input errors."
    )]
    Sanitize(filters::ProseArgs),
    /// Remove dangerous invisibles and orphan variation selectors (controls are kept).
    #[command(after_help = "Example:\n  airlock strip < notes.md > clean.md")]
    Strip(filters::StripArgs),
    /// Cut to a byte budget on a code-point boundary.
    #[command(
        after_help = "Example:\n  airlock truncate --max-bytes 256 --json title.txt\n  \
                            {\"text\":\"…\",\"truncated\":true,\"bytes\":300}"
    )]
    Truncate(filters::TruncateArgs),
    /// Print the fence token of the input's exact bytes.
    #[command(after_help = "Example:\n  printf hello | airlock fence\n  f6c5c364")]
    Fence(filters::FileArg),
    /// Sanitize, then frame the result with the untrusted-content envelope lines.
    #[command(after_help = "Example:\n  airlock wrap --field insight learning.txt >> rule.md")]
    Wrap(filters::ProseArgs),
    /// Check a machine value; exit 0 valid, 1 rejected (message on stderr).
    #[command(after_help = "Examples:\n  airlock check expires-at 2026-08-18\n  \
                            airlock check provenance --field source-session \"$SESSION\"\n  \
                            printf '%s' \"$GLOB\" | airlock check glob")]
    Check(filters::CheckArgs),
    /// The writer's gate on rule files: print `<file>: <reason>` for each refused file.
    #[command(after_help = "Examples:\n  airlock frontmatter .claude/rules/*.md\n  \
                            airlock frontmatter --json rule.md")]
    Frontmatter(filters::FrontmatterArgs),
    /// Lint files for invisible characters, orphan selectors, controls and unpaired bidi.
    #[command(
        after_help = "Examples:\n  airlock scan .\n  airlock scan --format sarif > airlock.sarif\n  \
                            airlock scan --fix src/ docs/\n\n\
                            Exit 0 clean, 1 findings (also when --fix fixed them), 2 error."
    )]
    Scan(scan::ScanArgs),
    /// Claude Code hooks.
    #[command(subcommand)]
    Hook(HookCommand),
    /// Helpers for the send gate.
    #[command(subcommand)]
    Guard(hooks::GuardCommand),
}

#[derive(Subcommand)]
enum HookCommand {
    /// PreToolUse guard: writes only to allowed paths.
    WriteScope(hooks::WriteScopeArgs),
    /// PreToolUse guard: outgoing messages need a clean scan and a fresh ledger.
    SendGate(hooks::SendGateArgs),
    /// PostToolUse filter: every string of a tool's result contained before the model reads it.
    ToolOutput(hooks::ToolOutputArgs),
}

/// How a filter command ended, short of an error.
pub(crate) enum Outcome {
    /// Exit 0.
    Success,
    /// Exit 1, with the reference's rejection message for stderr.
    Rejected(String),
    /// Exit 1; the refusals are already on stdout.
    Refused,
    /// Exit 1; the findings are already on stdout.
    Findings,
    /// Exit 2; the errors are already on stderr.
    Failed,
}

const EXIT_OK: u8 = 0;
const EXIT_REJECTED: u8 = 1;
const EXIT_ERROR: u8 = 2;

/// Runs the `airlock` command line: parses the arguments, runs the command, and maps
/// its outcome to the process exit code.
pub fn run() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // A hook's argument error must still answer the call waiting on stdin.
            if let Some(code) = hooks::usage_error(&e) {
                return code;
            }
            // --help and --version print to stdout and succeed; usage errors exit 2.
            let code = if e.use_stderr() { EXIT_ERROR } else { EXIT_OK };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    let result = match cli.command {
        Command::Hook(HookCommand::WriteScope(args)) => return hooks::write_scope(&args),
        Command::Hook(HookCommand::SendGate(args)) => return hooks::send_gate(&args),
        Command::Hook(HookCommand::ToolOutput(args)) => return hooks::tool_output(&args),
        Command::Guard(cmd) => return hooks::guard(&cmd),
        Command::Sanitize(args) => filters::sanitize(&args),
        Command::Strip(args) => filters::strip(&args),
        Command::Truncate(args) => filters::truncate(&args),
        Command::Fence(args) => filters::fence(&args),
        Command::Wrap(args) => filters::wrap(&args),
        Command::Check(args) => filters::check(&args),
        Command::Frontmatter(args) => filters::frontmatter(&args),
        Command::Scan(args) => scan::run(&args),
    };
    ExitCode::from(exit_code(result))
}

/// The one mapping of outcomes to exit codes.
fn exit_code(result: io::Result<Outcome>) -> u8 {
    match result {
        Ok(Outcome::Success) => EXIT_OK,
        Ok(Outcome::Rejected(message)) => {
            eprintln!("{message}");
            EXIT_REJECTED
        }
        Ok(Outcome::Refused | Outcome::Findings) => EXIT_REJECTED,
        Ok(Outcome::Failed) => EXIT_ERROR,
        Err(e) if e.is_broken_pipe() => EXIT_OK,
        Err(e) => {
            eprintln!("airlock: {e}");
            EXIT_ERROR
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn version_names_core_unicode() {
        assert_eq!(
            super::VERSION,
            format!(
                "{} (Unicode {}, reference profile {})",
                airlock_core::VERSION,
                airlock_core::strict::UNICODE_VERSION,
                airlock_core::UNICODE_VERSION
            )
        );
    }
}
