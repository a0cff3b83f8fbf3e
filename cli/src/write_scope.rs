//! `airlock hook write-scope`: a Claude Code PreToolUse hook that lets file writes through only to
//! allowed paths and denies every other tool unless named. See `cli/WRITE_SCOPE.md`.
//!
//! Claude Code treats a hook that crashes or exits with an unexpected code as "no objection", so
//! every way this can go wrong ends in the deny line on stdout and exit 0; only when even stdout
//! fails does it fall back to exit 2, which Claude Code also reads as a block.

mod config;
mod decision;
mod options;
mod resolve;

use std::io::{self, IsTerminal, Read, Write};
use std::panic::{self, AssertUnwindSafe};
use std::process::ExitCode;

pub(crate) use decision::{Decision, decide};
pub(crate) use options::Options;

use decision::{FALLBACK_DENY_LINE, MAX_INPUT_BYTES, deny_line};

/// Arguments of `airlock hook write-scope`.
///
/// No `-h`/`--help` flag: clap would print help to stdout and exit 0, which Claude Code reads as
/// "no objection" if the flag ever lands in a hook command. `airlock hook help write-scope` still
/// shows the help.
#[derive(clap::Args, Debug)]
#[command(disable_help_flag = true)]
pub(crate) struct WriteScopeArgs {
    /// Directory the allowed paths are relative to [default: git top level of the call's cwd,
    /// else the cwd]. A relative root is taken from the call's cwd.
    #[arg(long, value_name = "DIR")]
    root: Option<String>,
    /// A file writes may go to (relative to the root, never glob-expanded). Repeatable.
    #[arg(long = "allow", value_name = "PATH")]
    allow: Vec<String>,
    /// A directory writes may go strictly inside (relative to the root). Repeatable.
    #[arg(long = "allow-dir", value_name = "DIR")]
    allow_dir: Vec<String>,
    /// A tool other than Write, Edit, MultiEdit and NotebookEdit to let through. Repeatable.
    #[arg(long = "allow-tool", value_name = "NAME")]
    allow_tool: Vec<String>,
    /// Print the settings.json snippet registering this guard with these flags, and exit.
    #[arg(long)]
    print_config: bool,
}

impl WriteScopeArgs {
    fn options(&self) -> Result<Options, String> {
        Options::new(
            self.root.clone(),
            self.allow.clone(),
            self.allow_dir.clone(),
            self.allow_tool.clone(),
        )
    }
}

/// Runs the hook (or `--print-config`).
pub(crate) fn run(args: &WriteScopeArgs) -> ExitCode {
    if args.print_config {
        return print_config(args);
    }
    // A panic message on stderr is noise to Claude Code; the deny line says what happened.
    panic::set_hook(Box::new(|_| {}));
    let line = match panic::catch_unwind(AssertUnwindSafe(|| hook_line(args))) {
        Ok(Some(line)) => line,
        Ok(None) => return ExitCode::SUCCESS,
        Err(_) => deny_line("airlock write-scope: internal error (panic)"),
    };
    let mut stdout = io::stdout().lock();
    if stdout
        .write_all(line.as_bytes())
        .and_then(|()| stdout.flush())
        .is_ok()
    {
        return ExitCode::SUCCESS;
    }
    // The deny cannot be delivered on stdout; exit 2 is Claude Code's other way to block.
    let _ = io::stderr().write_all(FALLBACK_DENY_LINE.as_bytes());
    ExitCode::from(2)
}

/// The line to print: `None` to allow, else the deny line.
fn hook_line(args: &WriteScopeArgs) -> Option<String> {
    let decision = match args.options() {
        Err(why) => Decision::Deny(format!("airlock write-scope: bad configuration: {why}")),
        Ok(opts) => match read_input() {
            Ok(input) => decide(&input, &opts),
            Err(error) => {
                Decision::Deny(format!("airlock write-scope: cannot read stdin: {error}"))
            }
        },
    };
    match decision {
        Decision::Allow => None,
        Decision::Deny(reason) => Some(deny_line(&reason)),
    }
}

/// Reads stdin up to one byte past the limit, so that `decide` can tell "too large" apart from
/// "exactly at the limit" without reading an unbounded stream.
fn read_input() -> io::Result<Vec<u8>> {
    let limit = u64::try_from(MAX_INPUT_BYTES)
        .unwrap_or(u64::MAX)
        .saturating_add(1);
    let mut input = Vec::new();
    io::stdin().lock().take(limit).read_to_end(&mut input)?;
    Ok(input)
}

fn print_config(args: &WriteScopeArgs) -> ExitCode {
    // Registered as a hook by mistake, `--print-config` would answer every call with a snippet
    // Claude Code ignores, letting it through; a call waiting on stdin gets the deny instead.
    if !io::stdin().is_terminal() && read_input().is_ok_and(|input| !input.trim_ascii().is_empty())
    {
        let line = deny_line(
            "airlock write-scope: --print-config is not a hook; drop it from the command",
        );
        let mut stdout = io::stdout().lock();
        return match stdout
            .write_all(line.as_bytes())
            .and_then(|()| stdout.flush())
        {
            Ok(()) => ExitCode::SUCCESS,
            Err(_) => ExitCode::from(2),
        };
    }
    match args.options() {
        Ok(opts) => {
            let mut stdout = io::stdout().lock();
            let text = config::settings_snippet(&opts);
            match writeln!(stdout, "{text}").and_then(|()| stdout.flush()) {
                Ok(()) => ExitCode::SUCCESS,
                Err(_) => ExitCode::FAILURE,
            }
        }
        Err(why) => {
            let _ = writeln!(io::stderr(), "airlock hook write-scope: {why}");
            ExitCode::from(2)
        }
    }
}
