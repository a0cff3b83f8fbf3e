//! The hooks' process side: their command lines, stdin, the deadline each keeps, and the
//! writing of each [`Reply`] the hooks library decides (`airlock_hooks`).
//!
//! A hook answers exactly once: its main path and its watchdog race for the answer, and
//! the loser stays silent (the watchdog's winner ends the process itself).

use std::ffi::OsString;
use std::io::{self, IsTerminal, Read, Write};
use std::panic::AssertUnwindSafe;
use std::process::ExitCode;
use std::sync::{Arc, Mutex, PoisonError};
use std::thread;
use std::time::Duration;

use airlock_hooks::{Client, Reply, send_gate, tool_output, write_scope};

/// `--client`, as the parser takes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub(crate) enum ClientArg {
    /// Claude Code (the default).
    #[default]
    #[value(name = "claude-code")]
    ClaudeCode,
    /// Codex CLI: lines reshaped to its closed schema (`airlock_hooks::codex`).
    Codex,
}

impl From<ClientArg> for Client {
    fn from(arg: ClientArg) -> Client {
        match arg {
            ClientArg::ClaudeCode => Client::ClaudeCode,
            ClientArg::Codex => Client::Codex,
        }
    }
}

/// Arguments of `airlock hook write-scope`.
///
/// No `-h`/`--help` flag: clap would print help to stdout and exit 0, which Claude Code reads as
/// "no objection" if the flag ever lands in a hook command. `airlock help hook write-scope`
/// shows the help; `-h`/`--help` in a hook command deny like any other argument error.
#[derive(clap::Args, Debug)]
#[command(disable_help_flag = true)]
pub(crate) struct WriteScopeArgs {
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
    #[arg(long, value_enum, default_value_t = ClientArg::ClaudeCode)]
    client: ClientArg,
}

/// Arguments of `airlock hook send-gate`. `--help` is no flag here and any
/// other argument is collected rather than refused by the parser: a hook
/// whose command line is wrong must still block the call waiting on its
/// stdin, never print help and exit 0.
#[derive(clap::Args)]
#[command(disable_help_flag = true, disable_version_flag = true)]
pub(crate) struct SendGateArgs {
    /// Print the settings.json snippet registering this hook, and exit. With `--client
    /// codex`: Codex's hooks.json entry and the same as config.toml tables.
    #[arg(long)]
    print_config: bool,
    /// The client running the hook: `claude-code` (the default), or `codex`, whose closed
    /// schema the printed line then follows, a block exiting 0 (see `cli/CLIENTS.md`). Read
    /// as text so that a wrong value blocks with the gate's own reason.
    #[arg(long, value_name = "CLIENT")]
    client: Option<String>,
    /// Anything else on the command line: the hook blocks.
    #[arg(
        trailing_var_arg = true,
        allow_hyphen_values = true,
        hide = true,
        value_name = "ARGS"
    )]
    rest: Vec<String>,
}

/// `airlock guard …` subcommands.
#[derive(clap::Subcommand)]
pub(crate) enum GuardCommand {
    /// Scan draft text on stdin; exit 2 when it would be blocked.
    Scan,
    /// Print the message digest of a tool call on stdin.
    Sha,
    /// Print a ledger skeleton.
    LedgerTemplate,
    /// File the ledger JSON on stdin under its own message_sha256.
    WriteLedger,
    /// Print where the ledger of a tool call on stdin belongs.
    LedgerPath,
    /// Check configuration, patterns, controls, wiring and state.
    Doctor,
}

/// Arguments of `airlock hook tool-output`.
///
/// No `-h`/`--help` flag: help on stdout with exit 0 would be read as "no change" if the
/// flag ever landed in a hook command. `airlock hook help tool-output` shows the help.
#[derive(clap::Args, Debug)]
#[command(disable_help_flag = true)]
pub(crate) struct ToolOutputArgs {
    /// Cut every string of every tool's result to this many bytes (after containment),
    /// with the truncation note.
    #[arg(long, value_name = "N")]
    max_bytes: Option<usize>,
    /// A cap for the tools whose name matches PATTERN (`*` matches any run of
    /// characters): `--tool 'mcp__*=20000'`. The first match wins over --max-bytes;
    /// `PATTERN=none` lifts the cap. Repeatable.
    #[arg(long = "tool", value_name = "PATTERN=N")]
    tool: Vec<String>,
    /// Print the settings.json snippet registering this hook with these flags, and exit.
    /// With `--client codex`: Codex's hooks.json entry and the same as config.toml tables.
    #[arg(long)]
    print_config: bool,
    /// The client running the hook: `claude-code`, or `codex`, which cannot replace a
    /// result: there a containing answer withholds the result (`decision: block`, the
    /// contained text as the reason), and the quarantine gate's deny loses `continue:
    /// false` (see `cli/TOOL_OUTPUT.md`).
    #[arg(long, value_enum, default_value_t = ClientArg::ClaudeCode)]
    client: ClientArg,
    /// Run as the PreToolUse entry: deny every tool call of a session quarantined
    /// after a failed tool printed hostile text (see `cli/TOOL_OUTPUT.md`).
    #[arg(long)]
    quarantine_gate: bool,
    /// Run as the PreToolUse entry on Edit, MultiEdit, Write and NotebookEdit: map
    /// edits made against the contained view onto the file's real bytes.
    #[arg(long)]
    reanchor: bool,
    /// Report what the client adds around tool results outside PostToolUse, and which
    /// of those channels no lever reaches; then exit.
    #[arg(long)]
    doctor: bool,
}

/// The process's environment, as the hooks read it.
fn process_env(name: &str) -> Option<OsString> {
    std::env::var_os(name)
}

/// Whether `name` is set (to anything).
fn is_set(name: &str) -> bool {
    std::env::var_os(name).is_some()
}

/// Who has answered: the main path and the watchdog race for it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Stage {
    /// Nobody yet.
    Open,
    /// One side is writing its answer.
    Writing,
    /// The main path has answered.
    Done,
}

static STAGE: Mutex<Stage> = Mutex::new(Stage::Open);

/// Writes `reply` (stdout, flushed; stderr; the fallback's stderr if stdout failed) and
/// returns its exit code. A failing stderr is ignored: the exit code still speaks.
fn write(reply: &Reply) -> u8 {
    let mut stdout = io::stdout().lock();
    let written = stdout
        .write_all(reply.stdout.as_bytes())
        .and_then(|()| stdout.flush())
        .is_ok();
    drop(stdout);
    let mut stderr = io::stderr().lock();
    let _ = stderr.write_all(reply.stderr.as_bytes());
    match &reply.if_stdout_fails {
        Some(fallback) if !written => {
            let _ = stderr.write_all(fallback.stderr.as_bytes());
            fallback.exit
        }
        _ => reply.exit,
    }
}

/// The main path's answer: written unless the watchdog answered first, in which case
/// this thread waits for the watchdog to end the process.
fn speak(reply: &Reply) -> ExitCode {
    {
        let mut stage = STAGE.lock().unwrap_or_else(PoisonError::into_inner);
        if *stage != Stage::Open {
            drop(stage);
            loop {
                thread::park();
            }
        }
        *stage = Stage::Writing;
    }
    let code = write(reply);
    *STAGE.lock().unwrap_or_else(PoisonError::into_inner) = Stage::Done;
    ExitCode::from(code)
}

/// A hook's watchdog: after `after`, unless the main path answered, it writes `answer()`
/// and ends the process with its code.
struct Watchdog {
    name: &'static str,
    after: Duration,
    stack_size: Option<usize>,
    /// When the main path is stuck writing its answer (a stdout nobody reads): exit 2,
    /// which denies on its own, rather than wait.
    exit_if_stuck: bool,
}

impl Watchdog {
    /// Starts it; `false` when the thread cannot start.
    fn arm(self, answer: impl FnOnce() -> Reply + Send + 'static) -> bool {
        let mut builder = thread::Builder::new().name(self.name.into());
        if let Some(size) = self.stack_size {
            builder = builder.stack_size(size);
        }
        builder
            .spawn(move || {
                thread::sleep(self.after);
                let mut stage = STAGE.lock().unwrap_or_else(PoisonError::into_inner);
                match *stage {
                    Stage::Open => {
                        *stage = Stage::Writing;
                        drop(stage);
                        std::process::exit(i32::from(write(&answer())));
                    }
                    Stage::Writing if self.exit_if_stuck => {
                        drop(stage);
                        thread::sleep(Duration::from_millis(100));
                        std::process::exit(2);
                    }
                    Stage::Writing | Stage::Done => {}
                }
            })
            .is_ok()
    }
}

/// Stdin up to `limit` bytes, after reserving `reserve` (an allocation refused is a
/// read error too); the error as text.
fn read_stdin(limit: u64, reserve: usize) -> Result<Vec<u8>, String> {
    let mut input = Vec::new();
    input
        .try_reserve(reserve)
        .map_err(|e| io::Error::other(e).to_string())?;
    io::stdin()
        .lock()
        .take(limit)
        .read_to_end(&mut input)
        .map_err(|e| e.to_string())?;
    Ok(input)
}

/// One byte past `limit`, so that "too large" is told apart from "exactly at the limit".
fn past(limit: usize) -> u64 {
    u64::try_from(limit).unwrap_or(u64::MAX).saturating_add(1)
}

/// Stdin for `--print-config`, which must notice a call waiting there; `None` when stdin
/// is a terminal (not read).
fn stdin_unless_terminal(limit: usize) -> Option<Result<Vec<u8>, String>> {
    (!io::stdin().is_terminal()).then(|| read_stdin(past(limit), 0))
}

/// A panic message on stderr is noise to the client; the hook's answer says what happened.
fn silence_panics() {
    std::panic::set_hook(Box::new(|_| {}));
}

/// `airlock hook write-scope`.
pub(crate) fn write_scope(args: &WriteScopeArgs) -> ExitCode {
    silence_panics();
    let flags = write_scope::Flags {
        root: args.root.clone(),
        allow: args.allow.clone(),
        allow_dir: args.allow_dir.clone(),
        allow_tool: args.allow_tool.clone(),
        unprotect: args.unprotect.clone(),
        client: args.client.into(),
    };
    let client = flags.client;
    let limit = write_scope::deadline(std::env::var(write_scope::DEADLINE_ENV).ok().as_deref());
    let armed = Watchdog {
        name: "write-scope-deadline",
        after: limit,
        stack_size: None,
        exit_if_stuck: true,
    }
    .arm(move || write_scope::deadline_reply(client, limit));
    if !armed {
        return speak(&write_scope::no_deadline_reply(client));
    }
    if args.print_config {
        let stdin = stdin_unless_terminal(write_scope::MAX_INPUT_BYTES);
        return speak(&write_scope::print_config(&flags, stdin));
    }
    let reply = std::panic::catch_unwind(AssertUnwindSafe(|| {
        match write_scope::options(&flags, &process_env, is_set(write_scope::TEST_PANIC_ENV)) {
            Err(deny) => deny,
            Ok(opts) => {
                let input = read_stdin(past(write_scope::MAX_INPUT_BYTES), 64 * 1024);
                write_scope::answer(client, &opts, input)
            }
        }
    }))
    .unwrap_or_else(|_| write_scope::panic_reply(client));
    speak(&reply)
}

/// `airlock hook send-gate`.
pub(crate) fn send_gate(args: &SendGateArgs) -> ExitCode {
    // The default hook would print a backtrace banner; the BLOCKED line is the one
    // message the agent should read.
    silence_panics();
    let hook = send_gate::Hook::new(&send_gate::Flags {
        print_config: args.print_config,
        client: args.client.clone(),
        rest: args.rest.clone(),
    });
    let limit = send_gate::deadline(std::env::var(send_gate::DEADLINE_VAR).ok().as_deref());
    let watched = hook.clone();
    // If the thread cannot be started the hook runs without its deadline; everything it
    // reads is bounded and non-blocking, stdin aside.
    let _ = Watchdog {
        name: "send-gate-deadline",
        after: limit,
        stack_size: Some(64 * 1024),
        exit_if_stuck: false,
    }
    .arm(move || watched.deadline_reply(limit));
    let reply = match hook.first_step() {
        send_gate::Step::Answer(reply) => reply,
        send_gate::Step::PrintConfig => {
            hook.print_config(stdin_unless_terminal(send_gate::MAX_INPUT_BYTES))
        }
        send_gate::Step::Decide => {
            let reply = std::panic::catch_unwind(AssertUnwindSafe(|| {
                let input = read_stdin(past(send_gate::MAX_INPUT_BYTES), 0);
                hook.answer(input, &process_env, is_set(send_gate::TEST_PANIC_VAR))
            }))
            .unwrap_or_else(|_| hook.panic_reply("unknown panic".into()));
            let _ = std::panic::take_hook();
            reply
        }
    };
    speak(&reply)
}

/// `airlock guard …`.
pub(crate) fn guard(cmd: &GuardCommand) -> ExitCode {
    let cmd = match cmd {
        GuardCommand::Scan => send_gate::Guard::Scan,
        GuardCommand::Sha => send_gate::Guard::Sha,
        GuardCommand::LedgerTemplate => send_gate::Guard::LedgerTemplate,
        GuardCommand::WriteLedger => send_gate::Guard::WriteLedger,
        GuardCommand::LedgerPath => send_gate::Guard::LedgerPath,
        GuardCommand::Doctor => send_gate::Guard::Doctor,
    };
    let stdin = cmd.stdin_limit().map(|limit| read_stdin(limit, 0));
    ExitCode::from(write(&send_gate::guard(cmd, stdin, &process_env)))
}

/// `airlock hook tool-output`.
pub(crate) fn tool_output(args: &ToolOutputArgs) -> ExitCode {
    if args.doctor {
        return ExitCode::from(write(&tool_output::doctor()));
    }
    let flags = tool_output::Flags {
        max_bytes: args.max_bytes,
        tool: args.tool.clone(),
        client: args.client.into(),
    };
    let client = flags.client;
    if args.print_config {
        let stdin = stdin_unless_terminal(tool_output::MAX_INPUT_BYTES);
        return speak(&tool_output::print_config(&flags, stdin));
    }
    silence_panics();
    let budget = tool_output::deadline(
        std::env::var(tool_output::TEST_DEADLINE_ENV)
            .ok()
            .as_deref(),
    );
    // The watchdog answers if the hook has not — stdin that never closes, a stall — a
    // little after the deadline the work itself checks.
    let watchdog = Watchdog {
        name: "deadline",
        after: budget.saturating_add(tool_output::WATCHDOG_GRACE),
        stack_size: None,
        exit_if_stuck: false,
    };
    if args.quarantine_gate {
        let _ = watchdog.arm(move || tool_output::gate_deadline_reply(client));
        let reply = std::panic::catch_unwind(AssertUnwindSafe(|| {
            let input = read_stdin(past_u64(tool_output::MAX_GATE_INPUT_BYTES), 0);
            tool_output::gate(client, input, &process_env)
        }))
        .unwrap_or_else(|_| tool_output::gate_panic_reply(client));
        return speak(&reply);
    }
    if args.reanchor {
        let _ = watchdog.arm(tool_output::reanchor_deadline_reply);
        let reply = std::panic::catch_unwind(AssertUnwindSafe(|| {
            tool_output::reanchor(read_stdin(
                past_u64(tool_output::MAX_REANCHOR_CALL_BYTES),
                0,
            ))
        }))
        .unwrap_or_else(|_| tool_output::reanchor_panic_reply());
        return speak(&reply);
    }
    let deadline = tool_output::Deadline::after(budget);
    let watch = Arc::new(tool_output::Watch::default());
    let watched = Arc::clone(&watch);
    let _ = watchdog.arm(move || tool_output::deadline_reply(client, &watched));
    let reply = std::panic::catch_unwind(AssertUnwindSafe(|| {
        match tool_output::options(&flags, &process_env, is_set(tool_output::TEST_PANIC_ENV)) {
            Err(withheld) => withheld,
            Ok(opts) => {
                let input = read_stdin(past(tool_output::MAX_INPUT_BYTES), 0);
                tool_output::answer(client, &opts, input, &deadline, &watch)
            }
        }
    }))
    .unwrap_or_else(|_| tool_output::panic_reply(client));
    speak(&reply)
}

fn past_u64(limit: u64) -> u64 {
    limit.saturating_add(1)
}

/// A command line that does not parse but names a hook still answers that hook's call:
/// tool-output withholds (a PostToolUse hook's exit 2 leaves the tool's output as it
/// was), write-scope denies. `None` for every other command.
pub(crate) fn usage_error(error: &clap::Error) -> Option<ExitCode> {
    let args: Vec<OsString> = std::env::args_os().collect();
    let reply = tool_output::usage_error(&args, &error.kind().to_string())
        .or_else(|| write_scope::usage_error(&args, &error.to_string()))?;
    Some(speak(&reply))
}
