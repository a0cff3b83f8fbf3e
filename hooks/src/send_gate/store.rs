//! Where configuration and state live, and the file operations on them.
//!
//! Ledgers are filed by digest so two messages composed at once never share
//! a slot, written through a temporary file and a rename so a reader never
//! sees half a ledger, and claimed by a rename before they are checked so
//! two sends of the same message cannot both spend one ledger.

use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use serde_json::Value;
use sha2::{Digest, Sha256};

use super::digest::is_digest;
use super::input::parse_limited_json;

/// A ledger larger than this is not a ledger.
pub(crate) const MAX_LEDGER_BYTES: usize = 1024 * 1024;
/// Ledgers older than this many freshness windows are swept.
pub(crate) const SWEEP_WINDOWS: f64 = 4.0;

/// The paths the gate reads and writes.
#[derive(Debug, Clone)]
pub(crate) struct Paths {
    pub(crate) config: PathBuf,
    pub(crate) state: PathBuf,
    pub(crate) home: Option<PathBuf>,
}

impl Paths {
    /// From `$AIRLOCK_SEND_GATE_CONFIG`, `$AIRLOCK_SEND_GATE_STATE` and `$HOME` in `env`.
    pub(crate) fn from_env(env: &dyn crate::Env) -> Result<Self, String> {
        let home = crate::env::path(env, "HOME");
        let under_home = |rel: &str, var: &str| {
            home.as_ref()
                .map(|h| h.join(rel))
                .ok_or_else(|| format!("neither ${var} nor $HOME is set"))
        };
        let config = match crate::env::path(env, "AIRLOCK_SEND_GATE_CONFIG") {
            Some(p) => p,
            None => under_home(".config/airlock/send-gate.json", "AIRLOCK_SEND_GATE_CONFIG")?,
        };
        let state = match crate::env::path(env, "AIRLOCK_SEND_GATE_STATE") {
            Some(p) => p,
            None => under_home(".local/state/airlock/send-gate", "AIRLOCK_SEND_GATE_STATE")?,
        };
        Ok(Self {
            config,
            state,
            home,
        })
    }

    pub(crate) fn ledger_dir(&self) -> PathBuf {
        self.state.join("ledger")
    }

    pub(crate) fn ledger_path(&self, digest: &str) -> PathBuf {
        self.ledger_dir().join(format!("{digest}.json"))
    }

    /// Markers of the ledgers that passed, one per digest and `created_at`.
    pub(crate) fn spent_dir(&self) -> PathBuf {
        self.state.join("spent")
    }

    pub(crate) fn spent_path(&self, digest: &str, created_at: &str) -> PathBuf {
        let moment = super::digest::hex(&Sha256::digest(created_at.as_bytes()));
        self.spent_dir().join(format!("{digest}-{moment}"))
    }

    pub(crate) fn log_path(&self) -> PathBuf {
        self.state.join("log.jsonl")
    }
}

/// Whether an open may follow a symbolic link at the last component.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Links {
    /// The user's own files (configuration, board, settings): a dotfile
    /// manager links them.
    Follow,
    /// The gate's state (ledgers, log): a link there is never the gate's own.
    Refuse,
}

/// Opens an existing regular file for reading without ever blocking: a FIFO,
/// a device or a socket in its place is refused, not waited on.
pub(crate) fn open_regular(path: &Path, links: Links) -> Result<fs::File, String> {
    let mut options = fs::OpenOptions::new();
    options.read(true);
    no_block(&mut options, links);
    let file = options
        .open(path)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    regular(file, path)
}

/// `O_NONBLOCK` (and `O_NOFOLLOW` for state) on Unix; elsewhere nothing.
fn no_block(options: &mut fs::OpenOptions, links: Links) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        let follow = match links {
            Links::Follow => 0,
            Links::Refuse => libc::O_NOFOLLOW,
        };
        options.custom_flags(libc::O_NONBLOCK | libc::O_CLOEXEC | follow);
    }
    #[cfg(not(unix))]
    let _ = (options, links);
}

/// The open file when `fstat` says it is a regular file.
fn regular(file: fs::File, path: &Path) -> Result<fs::File, String> {
    let meta = file
        .metadata()
        .map_err(|e| format!("{}: {e}", path.display()))?;
    if meta.is_file() {
        Ok(file)
    } else {
        Err(format!("{}: not a regular file", path.display()))
    }
}

/// Reads at most `limit` bytes of a regular file; more is an error.
pub(crate) fn read_capped(path: &Path, limit: usize, links: Links) -> Result<Vec<u8>, String> {
    let file = open_regular(path, links)?;
    read_all_capped(file, limit).map_err(|e| format!("{}: {e}", path.display()))
}

/// Reads a stream to its end, refusing more than `limit` bytes.
pub(crate) fn read_all_capped(reader: impl Read, limit: usize) -> Result<Vec<u8>, String> {
    let mut buf = Vec::new();
    let cap = u64::try_from(limit).unwrap_or(u64::MAX).saturating_add(1);
    reader
        .take(cap)
        .read_to_end(&mut buf)
        .map_err(|e| format!("read failed: {e}"))?;
    if buf.len() > limit {
        return Err(format!("larger than {limit} bytes"));
    }
    Ok(buf)
}

/// Creates a private directory (0700) and everything above it.
fn private_dir(dir: &Path) -> Result<(), String> {
    let mut builder = fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder
        .create(dir)
        .map_err(|e| format!("cannot create {}: {e}", dir.display()))
}

/// Files a ledger under its own `message_sha256`, atomically; returns the path.
pub(crate) fn write_ledger(paths: &Paths, ledger: &Value) -> Result<PathBuf, String> {
    let digest = ledger
        .get("message_sha256")
        .and_then(Value::as_str)
        .unwrap_or_default();
    if !is_digest(digest) {
        return Err(
            "message_sha256 must be 64 lower-case hex digits (the output of `airlock guard sha`)"
                .into(),
        );
    }
    let dir = paths.ledger_dir();
    private_dir(&dir)?;
    let target = paths.ledger_path(digest);
    // tempfile creates the file 0600 in the same directory, so the rename
    // below is atomic and the ledger is never world-readable.
    let mut tmp = tempfile::Builder::new()
        .prefix(".tmp-")
        .tempfile_in(&dir)
        .map_err(|e| format!("cannot create a temporary file in {}: {e}", dir.display()))?;
    let mut text = serde_json::to_string_pretty(ledger).map_err(|e| e.to_string())?;
    text.push('\n');
    tmp.write_all(text.as_bytes())
        .and_then(|()| tmp.as_file().sync_all())
        .map_err(|e| format!("cannot write the ledger: {e}"))?;
    tmp.persist(&target)
        .map_err(|e| format!("cannot file the ledger at {}: {e}", target.display()))?;
    Ok(target)
}

/// A ledger taken out of circulation for one check.
pub(crate) struct Claimed {
    pub(crate) original: PathBuf,
    pub(crate) claimed: PathBuf,
}

/// Claims the ledger for `digest` by renaming it aside; `Ok(None)` when
/// there is none. Only one of two racing sends wins the rename.
pub(crate) fn claim_ledger(paths: &Paths, digest: &str) -> Result<Option<Claimed>, String> {
    let original = paths.ledger_path(digest);
    let nanos = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    let claimed = paths
        .ledger_dir()
        .join(format!(".claimed-{digest}-{}-{nanos}", std::process::id()));
    match fs::rename(&original, &claimed) {
        Ok(()) => Ok(Some(Claimed { original, claimed })),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!(
            "cannot claim the ledger {}: {e}",
            original.display()
        )),
    }
}

impl Claimed {
    pub(crate) fn read(&self) -> Result<Value, String> {
        let bytes = read_capped(&self.claimed, MAX_LEDGER_BYTES, Links::Refuse)?;
        parse_limited_json(&bytes)
    }

    /// Puts a ledger that failed its check back, unless a new ledger for the
    /// same digest was filed meanwhile (a hard link never overwrites).
    pub(crate) fn release(self) {
        match fs::hard_link(&self.claimed, &self.original) {
            Ok(()) => {
                let _ = fs::remove_file(&self.claimed);
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                let _ = fs::remove_file(&self.claimed);
            }
            // A file system without hard links: a rename still restores it.
            Err(_) => {
                let _ = fs::rename(&self.claimed, &self.original);
            }
        }
    }

    /// Spends the ledger.
    pub(crate) fn consume(self) -> Result<(), String> {
        fs::remove_file(&self.claimed).map_err(|e| {
            format!(
                "cannot delete the spent ledger {}: {e}",
                self.claimed.display()
            )
        })
    }
}

/// Whether a ledger with this digest and `created_at` already passed once:
/// a consumed ledger filed again (from `log.jsonl`, say) is refused.
pub(crate) fn is_spent(paths: &Paths, digest: &str, created_at: &str) -> bool {
    // Anything at that name counts, whatever it is: refusing is the safe side.
    fs::symlink_metadata(paths.spent_path(digest, created_at)).is_ok()
}

/// The marker of one passing ledger, created before the send passes.
pub(crate) struct SpentMark(PathBuf);

/// Marks the ledger spent; only one of two racing sends can create the
/// marker, so the other is refused.
pub(crate) fn mark_spent(
    paths: &Paths,
    digest: &str,
    created_at: &str,
) -> Result<SpentMark, String> {
    let dir = paths.spent_dir();
    private_dir(&dir)?;
    let path = paths.spent_path(digest, created_at);
    let mut options = fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    no_block(&mut options, Links::Refuse);
    options.open(&path).map(|_| SpentMark(path)).map_err(|e| {
        if e.kind() == std::io::ErrorKind::AlreadyExists {
            "this ledger (same message_sha256 and created_at) already passed once; a ledger is spent by one send, ground the message again and write a new one".to_owned()
        } else {
            format!("cannot mark the ledger spent in {}: {e}", dir.display())
        }
    })
}

impl SpentMark {
    /// Takes the marker back when the send does not pass after all.
    pub(crate) fn undo(self) {
        let _ = fs::remove_file(&self.0);
    }
}

/// Appends one line to the log, creating the state directory if needed.
pub(crate) fn append_log(paths: &Paths, record: &Value) -> Result<(), String> {
    private_dir(&paths.state)?;
    let mut line = serde_json::to_string(record).map_err(|e| e.to_string())?;
    line.push('\n');
    let mut options = fs::OpenOptions::new();
    options.create(true).append(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    no_block(&mut options, Links::Refuse);
    let path = paths.log_path();
    let mut file = options
        .open(&path)
        .map_err(|e| format!("cannot append to {}: {e}", path.display()))
        .and_then(|f| regular(f, &path))?;
    // One write call of one line: appends from concurrent gates do not interleave.
    file.write_all(line.as_bytes())
        .map_err(|e| format!("cannot append to {}: {e}", path.display()))
}

/// Deletes ledger-directory files older than [`SWEEP_WINDOWS`] windows, by
/// modification time or by their own `created_at`. Returns how many went.
pub(crate) fn sweep(paths: &Paths, window_minutes: f64, now: time::OffsetDateTime) -> usize {
    let Ok(entries) = fs::read_dir(paths.ledger_dir()) else {
        return 0;
    };
    let max_age =
        Duration::try_from_secs_f64(window_minutes * 60.0 * SWEEP_WINDOWS).unwrap_or(Duration::MAX);
    let cutoff = SystemTime::now().checked_sub(max_age);
    let created_cutoff = now.checked_sub(time::Duration::seconds_f64(
        window_minutes * 60.0 * SWEEP_WINDOWS,
    ));
    let mut removed = 0usize;
    for entry in entries.flatten() {
        // Only regular files are the gate's: a FIFO, socket, device or link
        // placed here is skipped, never opened (a FIFO would block a read).
        if !entry.file_type().is_ok_and(|t| t.is_file()) {
            continue;
        }
        let path = entry.path();
        let old_by_mtime = match (entry.metadata().and_then(|m| m.modified()), cutoff) {
            (Ok(modified), Some(cutoff)) => modified < cutoff,
            _ => false,
        };
        let old_by_content = !old_by_mtime
            && read_capped(&path, MAX_LEDGER_BYTES, Links::Refuse)
                .ok()
                .and_then(|b| parse_limited_json(&b).ok())
                .and_then(|v| v.get("created_at").and_then(super::ledger::parse_timestamp))
                .zip(created_cutoff)
                .is_some_and(|(created, cutoff)| created < cutoff);
        if (old_by_mtime || old_by_content) && fs::remove_file(&path).is_ok() {
            removed = removed.saturating_add(1);
        }
    }
    // A marker outlives every ledger it could refuse: a ledger older than
    // one window is stale anyway.
    if let (Ok(markers), Some(cutoff)) = (fs::read_dir(paths.spent_dir()), cutoff) {
        for entry in markers.flatten() {
            let old = entry
                .metadata()
                .and_then(|m| m.modified())
                .is_ok_and(|m| m < cutoff);
            if old && fs::remove_file(entry.path()).is_ok() {
                removed = removed.saturating_add(1);
            }
        }
    }
    removed
}
