//! A hook's answer as data: what goes to stdout and stderr, and the exit code.
//!
//! The hooks decide; the `airlock` binary writes. Whether stdout took its bytes is the
//! one thing only the writer knows, and some answers depend on it (a deny that blocks
//! through a JSON line on stdout must block through exit 2 when that line is lost), so
//! the answer carries what to do then as well.

/// What to do when stdout did not take [`Reply::stdout`] in full (a write or the flush
/// failed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fallback {
    /// Written to stderr after [`Reply::stderr`].
    pub stderr: String,
    /// The exit code instead of [`Reply::exit`].
    pub exit: u8,
}

/// One answer of a hook or guard command, written in this order: `stdout` (then
/// flushed), `stderr`, and, if stdout failed and there is a [`Fallback`], its `stderr`;
/// then the process exits with `exit` (or the fallback's).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Reply {
    /// Bytes for stdout (empty: nothing is written).
    pub stdout: String,
    /// Bytes for stderr, written whatever happened to stdout; a failure here is ignored.
    pub stderr: String,
    /// The exit code when stdout took its bytes.
    pub exit: u8,
    /// When stdout failed: more for stderr and another exit code; `None` keeps
    /// [`Reply::exit`].
    pub if_stdout_fails: Option<Fallback>,
}

impl Reply {
    /// Exit 0 with nothing written.
    pub fn silent() -> Reply {
        Reply::default()
    }

    /// `text` on stdout (a newline added), exit 0; exit `on_failure` when stdout fails.
    pub(crate) fn text(text: &str, on_failure: u8) -> Reply {
        Reply {
            stdout: format!("{text}\n"),
            if_stdout_fails: Some(Fallback {
                stderr: String::new(),
                exit: on_failure,
            }),
            ..Reply::default()
        }
    }

    /// `message` on stderr (a newline added), and exit `exit`.
    pub(crate) fn error(message: &str, exit: u8) -> Reply {
        Reply {
            stderr: format!("{message}\n"),
            exit,
            ..Reply::default()
        }
    }
}
