//! The pipe filters: `sanitize`, `strip`, `truncate`, `fence`, `wrap`, `check` and
//! `frontmatter`. Every rule is core's; this module reads, writes and maps outcomes.

use std::io::{Seek, Write};
use std::path::PathBuf;

use airlock_core::frontmatter::{self, MetaValue};
use airlock_core::prose::{ProseError, StreamError, stream_buffer_len};
use airlock_core::reject::JsonString;
use airlock_core::utf8::Utf8Stream;
use airlock_core::{
    LiteralSet, Profile, ProseStream, Shape, StripStream, UNTRUSTED_BEGIN, UNTRUSTED_END,
    check_machine_token, check_no_control, check_safe_description, check_safe_glob, fence_token,
    sanitize_prose, truncate_to_bytes, worst_case_len,
};
use clap::{Args, ValueEnum};

use crate::Outcome;
use crate::io::{self, Error, Input, RawChunks, Result, TextChunks};
use crate::json;

/// The containment profile of a command (`docs/PROFILE-STRICT.md`).
#[derive(Clone, Copy, Debug, Default, ValueEnum)]
pub(crate) enum ProfileArg {
    /// SPEC.md, byte-identical with `sanitize.mjs` 3.20.0.
    #[default]
    Reference,
    /// Complete invisibles, joiners kept where they spell, folded literals, special
    /// tokens, escape sequences, hidden comments.
    Strict,
}

impl ProfileArg {
    fn profile(self) -> Profile {
        match self {
            ProfileArg::Reference => Profile::Reference,
            ProfileArg::Strict => Profile::Strict,
        }
    }
}

/// Arguments of `airlock sanitize` and `airlock wrap`.
#[derive(Args)]
pub(crate) struct ProseArgs {
    /// Containment profile.
    #[arg(long, value_enum, default_value_t = ProfileArg::Reference)]
    profile: ProfileArg,
    /// Field name the rejection message names.
    #[arg(long, default_value = "insight", value_name = "NAME")]
    field: String,
    /// Byte budget of the text (the truncation note comes on top).
    #[arg(long, default_value_t = 2000, value_name = "N")]
    max_bytes: usize,
    /// Input file; standard input when absent or `-`.
    file: Option<PathBuf>,
}

/// Arguments of `airlock strip`.
#[derive(Args)]
pub(crate) struct StripArgs {
    /// Containment profile.
    #[arg(long, value_enum, default_value_t = ProfileArg::Reference)]
    profile: ProfileArg,
    /// Input file; standard input when absent or `-`.
    file: Option<PathBuf>,
}

/// Arguments of `airlock fence`.
#[derive(Args)]
pub(crate) struct FileArg {
    /// Input file; standard input when absent or `-`.
    file: Option<PathBuf>,
}

/// Arguments of `airlock truncate`.
#[derive(Args)]
pub(crate) struct TruncateArgs {
    /// Byte budget: the longest prefix of whole code points within it is kept.
    #[arg(long, value_name = "N")]
    max_bytes: usize,
    /// Print `{"text":…,"truncated":…,"bytes":…}` (and a newline) instead of the text.
    #[arg(long)]
    json: bool,
    /// Input file; standard input when absent or `-`.
    file: Option<PathBuf>,
}

/// What `airlock check` checks.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub(crate) enum CheckKind {
    /// `^[A-Za-z0-9._-]+$` (field `host-class`).
    HostClass,
    /// `^[a-z0-9/-]+$` (field `learning-key`).
    LearningKey,
    /// `^\d{4}-\d{2}-\d{2}$` (field `expires-at`).
    ExpiresAt,
    /// `^[A-Za-z0-9._:-]+$` (field `learning-id`; `source-session` with --field).
    Provenance,
    /// A rule glob (field always `globs[]`).
    Glob,
    /// A one-line description (field always `description`).
    Description,
    /// No control character, no dangerous invisible (field `value` by default).
    NoControl,
}

/// Arguments of `airlock check`.
#[derive(Args)]
pub(crate) struct CheckArgs {
    /// The check to run.
    kind: CheckKind,
    /// Containment profile (strict rejects every invisible strict would drop).
    #[arg(long, value_enum, default_value_t = ProfileArg::Reference)]
    profile: ProfileArg,
    /// Field name the rejection message names (not for `glob` and `description`,
    /// whose names are fixed).
    #[arg(long, value_name = "NAME")]
    field: Option<String>,
    /// The value; standard input, byte for byte (a trailing newline included), when absent.
    value: Option<std::ffi::OsString>,
}

/// Arguments of `airlock frontmatter`.
#[derive(Args)]
pub(crate) struct FrontmatterArgs {
    /// One JSON object per file: the parse result and the refusal.
    #[arg(long)]
    json: bool,
    /// Which release of the reference's writer gate to apply: `3.20` (session-orchestrator
    /// 3.20.0, only `auto-generated: true` rules are checked) or `3.21` (3.21.0:
    /// `alwaysApply: true` is refused on every document, and the invariant binds on any
    /// document with a provenance marker).
    #[arg(long, value_name = "RELEASE", default_value = "3.20", value_parser = gate_release)]
    gate: frontmatter::Gate,
    /// Rule files (`-` for standard input).
    #[arg(required = true)]
    files: Vec<PathBuf>,
}

/// `--gate`: a release the core knows (`3.20`, `3.21`, a trailing `.0` accepted).
fn gate_release(name: &str) -> std::result::Result<frontmatter::Gate, String> {
    frontmatter::Gate::from_name(name).ok_or_else(|| {
        let known: Vec<&str> = frontmatter::Gate::ALL.iter().map(|g| g.name()).collect();
        format!("unknown gate release (known: {})", known.join(", "))
    })
}

/// The sanitized text, or the rejection message.
type Sanitized = std::result::Result<String, String>;

/// Input a sanitize holds in memory to sanitize it in one shot; a cap whose stream
/// buffer fits this too is streamed in one pass. Past both, two passes.
const HOLD: usize = 8 << 20;

/// The bytes of a draining stream's buffer (two-pass sanitize).
const DRAIN_BUFFER: usize = 1 << 20;

/// What frames the sanitized text on stdout (`wrap`'s envelope lines).
struct Frame<'f> {
    before: &'f str,
    after: &'f str,
}

/// `sanitize_prose` over an input of any size in constant memory (at most about
/// [`HOLD`] twice), writing the framed result to stdout, or nothing when the record
/// is rejected.
///
/// An input no longer than [`HOLD`] (and than the cap's stream buffer) is kept and
/// sanitized in one shot. Past that, with a cap whose stream buffer fits in
/// [`HOLD`], a [`ProseStream`] holding the capped output streams it in one pass.
/// With a larger cap the output can be as large as the input, so it is not held:
/// a first pass finds the verdict (a forgery anywhere rejects the record) with a
/// draining stream that discards its output, and only an accepted record is read
/// a second time, its output written as it comes. A regular file (or stdin
/// redirected from one) is read twice; a pipe is spooled to a temporary file
/// during the first pass. Each byte is validated once per pass, by core.
/// The strict profile keeps its own stream (its buffer of [`stream_buffer_len`]).
fn sanitize_to(
    input: &Input,
    field: &str,
    max_bytes: usize,
    profile: Profile,
    frame: &Frame<'_>,
) -> Result<Outcome> {
    if profile == Profile::Strict {
        return match sanitize_strict(input, field, max_bytes)? {
            Ok(text) => write_framed(frame, &text),
            Err(message) => Ok(Outcome::Rejected(message)),
        };
    }
    let stream_len = stream_buffer_len(max_bytes);
    let mut rereadable = if stream_len > HOLD {
        input.rereadable()?
    } else {
        None
    };
    let mut chunks = RawChunks::open(input)?;
    let mut pending = Vec::new();
    loop {
        let Some(chunk) = chunks.next_chunk()? else {
            let text = io::text_of(&pending, &input.name())?;
            let mut out = vec![0u8; worst_case_len(text.len(), max_bytes)];
            return match sanitize_prose(text, field, max_bytes, &mut out) {
                Ok(prose) => write_framed(frame, prose.text),
                Err(ProseError::Rejected(r)) => Ok(Outcome::Rejected(r.to_string())),
                Err(e) => Err(Error::Other(e.to_string())),
            };
        };
        pending.extend_from_slice(chunk);
        if pending.len() > stream_len.min(HOLD) {
            break;
        }
    }
    if stream_len <= HOLD {
        return sanitize_one_pass(chunks, pending, field, max_bytes, frame);
    }
    // The first pass: the verdict; a pipe is spooled as it is read.
    let mut spool = match rereadable {
        Some(_) => None,
        None => Some(tempfile::tempfile().map_err(|e| Error::Other(format!("spool: {e}")))?),
    };
    let spool_error = |e: std::io::Error| Error::Other(format!("spool: {e}"));
    let mut buf = vec![0u8; DRAIN_BUFFER];
    let mut verdict = ProseStream::draining(field, max_bytes, &LiteralSet::DEFAULT, &mut buf)
        .map_err(|e| Error::Other(e.to_string()))?;
    let discard = |_: &str| {};
    verdict
        .feed_emitting(&pending, discard)
        .map_err(|e| stream_error(&chunks, e))?;
    if let Some(spool) = spool.as_mut() {
        spool.write_all(&pending).map_err(spool_error)?;
    }
    drop(pending);
    let mut read = 0usize;
    while let Some(chunk) = chunks.next_chunk()? {
        read = read.saturating_add(chunk.len());
        if let Err(e) = verdict.feed_emitting(chunk, discard) {
            return Err(stream_error(&chunks, e));
        }
        if let Some(spool) = spool.as_mut() {
            spool.write_all(chunk).map_err(spool_error)?;
        }
    }
    let expected = match verdict.finish() {
        Ok(prose) => prose.original_bytes,
        Err(StreamError::Rejected(r)) => return Ok(Outcome::Rejected(r.to_string())),
        Err(e) => return Err(stream_error(&chunks, e)),
    };
    drop(chunks);
    // The second pass: the same stream again, its output written as it comes.
    let reader: Box<dyn std::io::Read> = match (rereadable.as_mut(), spool) {
        (Some(file), _) => file.reader().map_err(|e| input.read_error(e))?,
        (None, Some(mut spool)) => {
            spool
                .seek(std::io::SeekFrom::Start(0))
                .map_err(spool_error)?;
            Box::new(spool)
        }
        (None, None) => return Err(Error::Other("sanitize: no second pass".to_owned())),
    };
    let mut chunks = RawChunks::from_reader(input, reader);
    let mut output = ProseStream::draining(field, max_bytes, &LiteralSet::DEFAULT, &mut buf)
        .map_err(|e| Error::Other(e.to_string()))?;
    let mut out = io::stdout();
    out.write_all(frame.before.as_bytes())?;
    let mut written = Ok(());
    while let Some(chunk) = chunks.next_chunk()? {
        let fed = output.feed_emitting(chunk, |piece| {
            if written.is_ok() {
                written = out.write_all(piece.as_bytes());
            }
        });
        std::mem::replace(&mut written, Ok(()))?;
        fed.map_err(|e| stream_error(&chunks, e))?;
    }
    match output.finish() {
        // The input changed between the passes: what is written is not the record
        // the verdict was for, and the run fails.
        Ok(prose) if prose.original_bytes != expected => Err(Error::Other(format!(
            "{}: changed while being read",
            input.name()
        ))),
        Ok(prose) => {
            out.write_all(prose.text.as_bytes())?;
            out.write_all(frame.after.as_bytes())?;
            out.flush()?;
            Ok(Outcome::Success)
        }
        Err(_) => Err(Error::Other(format!(
            "{}: changed while being read",
            input.name()
        ))),
    }
}

/// The rest of [`sanitize_to`] when the capped output fits in memory: one stream,
/// its output written at the end.
fn sanitize_one_pass(
    mut chunks: RawChunks,
    pending: Vec<u8>,
    field: &str,
    max_bytes: usize,
    frame: &Frame<'_>,
) -> Result<Outcome> {
    let mut buf = vec![0u8; stream_buffer_len(max_bytes)];
    let mut stream = ProseStream::new(field, max_bytes, &LiteralSet::DEFAULT, &mut buf)
        .map_err(|e| Error::Other(e.to_string()))?;
    stream
        .feed(&pending)
        .map_err(|e| stream_error(&chunks, e))?;
    drop(pending);
    while let Some(chunk) = chunks.next_chunk()? {
        if let Err(e) = stream.feed(chunk) {
            return Err(stream_error(&chunks, e));
        }
    }
    match stream.finish() {
        Ok(prose) => write_framed(frame, prose.text),
        Err(StreamError::Rejected(r)) => Ok(Outcome::Rejected(r.to_string())),
        Err(e) => Err(stream_error(&chunks, e)),
    }
}

/// Writes `text` framed, flushed.
fn write_framed(frame: &Frame<'_>, text: &str) -> Result<Outcome> {
    let mut out = io::stdout();
    out.write_all(frame.before.as_bytes())?;
    out.write_all(text.as_bytes())?;
    out.write_all(frame.after.as_bytes())?;
    out.flush()?;
    Ok(Outcome::Success)
}

/// A stream's error as the command's: invalid UTF-8 names the input and offset.
fn stream_error(chunks: &RawChunks, e: StreamError<'_>) -> Error {
    match e {
        StreamError::Utf8(e) => chunks.utf8_error(e.offset()),
        e => Error::Other(e.to_string()),
    }
}

/// [`sanitize_to`] under the strict profile: its stream, buffer of
/// [`stream_buffer_len`], from the start.
fn sanitize_strict(input: &Input, field: &str, max_bytes: usize) -> Result<Sanitized> {
    use airlock_core::strict;
    let mut chunks = TextChunks::open(input)?;
    let mut buf = vec![0u8; stream_buffer_len(max_bytes)];
    let mut stream = strict::ProseStream::new(field, max_bytes, &LiteralSet::DEFAULT, &mut buf)
        .map_err(|e| Error::Other(e.to_string()))?;
    let stream_error = |e: StreamError<'_>| Error::Other(e.to_string());
    while let Some(piece) = chunks.next_piece()? {
        stream.feed(piece.as_bytes()).map_err(stream_error)?;
    }
    match stream.finish() {
        Ok(prose) => Ok(Ok(prose.text.to_owned())),
        Err(StreamError::Rejected(r)) => Ok(Err(r.to_string())),
        Err(e) => Err(stream_error(e)),
    }
}

/// `airlock sanitize`.
pub(crate) fn sanitize(args: &ProseArgs) -> Result<Outcome> {
    let input = Input::from_arg(args.file.as_deref());
    let frame = Frame {
        before: "",
        after: "",
    };
    sanitize_to(
        &input,
        &args.field,
        args.max_bytes,
        args.profile.profile(),
        &frame,
    )
}

/// `airlock wrap`: sanitize, then frame with the envelope lines.
pub(crate) fn wrap(args: &ProseArgs) -> Result<Outcome> {
    let input = Input::from_arg(args.file.as_deref());
    let before = format!("{UNTRUSTED_BEGIN}\n");
    let after = format!("\n{UNTRUSTED_END}\n");
    let frame = Frame {
        before: &before,
        after: &after,
    };
    sanitize_to(
        &input,
        &args.field,
        args.max_bytes,
        args.profile.profile(),
        &frame,
    )
}

/// `airlock strip`: streams, writing each chunk's clean runs once the chunk is
/// known to be UTF-8 (core's stream decoder validates each byte once), so nothing
/// of a chunk holding invalid UTF-8 is written.
pub(crate) fn strip(args: &StripArgs) -> Result<Outcome> {
    let input = Input::from_arg(args.file.as_deref());
    if let ProfileArg::Strict = args.profile {
        return strip_strict(&input);
    }
    let mut chunks = RawChunks::open(&input)?;
    let mut stream = StripStream::new();
    // Runs are written as they come (a run of a clean chunk is the chunk: written
    // from the input's buffer, not copied), short ones gathered by the buffer.
    let mut out = io::stdout();
    let mut written = Ok(());
    while let Some(chunk) = chunks.next_chunk()? {
        let fed = stream.feed_whole(chunk, |run| {
            if written.is_ok() {
                written = out.write_all(run.as_bytes());
            }
        });
        std::mem::replace(&mut written, Ok(()))?;
        if let Err(e) = fed {
            return Err(chunks.utf8_error(e.offset()));
        }
    }
    stream.finish().map_err(|e| chunks.utf8_error(e.offset()))?;
    out.flush()?;
    Ok(Outcome::Success)
}

/// `airlock strip --profile strict`: strict's stream (runs may be held back until
/// later input decides them).
fn strip_strict(input: &Input) -> Result<Outcome> {
    let mut chunks = TextChunks::open(input)?;
    let mut stream = airlock_core::strict::StripStream::new();
    let mut out = io::stdout();
    let mut written = Ok(());
    let mut emit = |run: &str| {
        if written.is_ok() {
            written = out.write_all(run.as_bytes());
        }
    };
    while let Some(piece) = chunks.next_piece()? {
        stream
            .feed(piece.as_bytes(), &mut emit)
            .map_err(|e| Error::Other(e.to_string()))?;
    }
    stream
        .finish(&mut emit)
        .map_err(|e| Error::Other(e.to_string()))?;
    written?;
    out.flush()?;
    Ok(Outcome::Success)
}

/// `airlock truncate`: streams the kept prefix (or holds it, at most the cap, for
/// `--json`) and reads to the end to count the bytes and validate them.
pub(crate) fn truncate(args: &TruncateArgs) -> Result<Outcome> {
    let input = Input::from_arg(args.file.as_deref());
    let mut chunks = TextChunks::open(&input)?;
    let mut out = io::stdout();
    let mut kept = String::new();
    let mut room = args.max_bytes;
    let mut cut = false;
    while let Some(piece) = chunks.next_piece()? {
        if cut {
            continue;
        }
        // Pieces are whole code points, so a cut inside one is a cut of the text.
        let t = truncate_to_bytes(piece, room);
        room = room.saturating_sub(t.text.len());
        cut = t.truncated;
        if args.json {
            kept.push_str(t.text);
        } else {
            out.write_all(t.text.as_bytes())?;
        }
    }
    if args.json {
        writeln!(
            out,
            "{{\"text\":{},\"truncated\":{},\"bytes\":{}}}",
            JsonString::whole(&kept),
            cut,
            chunks.position()
        )?;
    }
    out.flush()?;
    Ok(Outcome::Success)
}

/// `airlock fence`: the token of the input's exact bytes.
pub(crate) fn fence(args: &FileArg) -> Result<Outcome> {
    let input = Input::from_arg(args.file.as_deref());
    // Up to HOLD bytes are held and fenced in one shot; past that the input is
    // validated once while a pipe is spooled, then replayed from the file (core
    // hashes one replay and looks for the token in the next), in constant memory.
    let mut rereadable = input.rereadable()?;
    let mut chunks = RawChunks::open(&input)?;
    let mut pending = Vec::new();
    loop {
        let Some(chunk) = chunks.next_chunk()? else {
            let text = io::text_of(&pending, &input.name())?;
            io::print(&format!("{}\n", fence_token(text.as_bytes())))?;
            return Ok(Outcome::Success);
        };
        pending.extend_from_slice(chunk);
        if pending.len() > HOLD {
            break;
        }
    }
    let spool_error = |e: std::io::Error| Error::Other(format!("spool: {e}"));
    let mut spool = match rereadable {
        Some(_) => None,
        None => Some(tempfile::tempfile().map_err(spool_error)?),
    };
    let mut utf8 = Utf8Stream::new();
    let mut validated = 0usize;
    if let Err(e) = utf8.feed(&pending, |_| {}) {
        return Err(chunks.utf8_error(e.offset()));
    }
    validated = validated.saturating_add(pending.len());
    if let Some(spool) = spool.as_mut() {
        spool.write_all(&pending).map_err(spool_error)?;
    }
    drop(pending);
    while let Some(chunk) = chunks.next_chunk()? {
        if let Err(e) = utf8.feed(chunk, |_| {}) {
            return Err(chunks.utf8_error(e.offset()));
        }
        validated = validated.saturating_add(chunk.len());
        if let Some(spool) = spool.as_mut() {
            spool.write_all(chunk).map_err(spool_error)?;
        }
    }
    utf8.finish().map_err(|e| chunks.utf8_error(e.offset()))?;
    drop(chunks);
    let mut source = match (rereadable.take(), spool) {
        (Some(file), _) => file,
        (None, Some(spool)) => io::Rereadable::spool(spool),
        (None, None) => return Err(Error::Other("fence: no replay".to_owned())),
    };
    let changed = || Error::Other(format!("{}: changed while being read", input.name()));
    let token = airlock_core::fence::fence_token_replayed(|sink| -> Result<()> {
        let reader = source.reader().map_err(|e| input.read_error(e))?;
        let mut replay = RawChunks::from_reader(&input, reader);
        let mut len = 0usize;
        while let Some(chunk) = replay.next_chunk()? {
            len = len.saturating_add(chunk.len());
            sink(chunk);
        }
        if len == validated {
            Ok(())
        } else {
            Err(changed())
        }
    })?;
    io::print(&format!("{token}\n"))?;
    Ok(Outcome::Success)
}

/// `airlock check`.
pub(crate) fn check(args: &CheckArgs) -> Result<Outcome> {
    let value = match &args.value {
        Some(v) => os_text(v)?,
        None => Input::Stdin.read_text()?,
    };
    let field = args.field.as_deref();
    if field.is_some() && matches!(args.kind, CheckKind::Glob | CheckKind::Description) {
        return Err(Error::Usage(
            "--field does not apply to glob and description: their field names are fixed"
                .to_owned(),
        ));
    }
    let token = |shape: Shape, default: &'static str| {
        check_machine_token(&value, field.unwrap_or(default), shape).map(|_| ())
    };
    let verdict = match args.kind {
        CheckKind::HostClass => token(Shape::HostClass, "host-class"),
        CheckKind::LearningKey => token(Shape::LearningKey, "learning-key"),
        CheckKind::ExpiresAt => token(Shape::ExpiresAt, "expires-at"),
        CheckKind::Provenance => token(Shape::Provenance, "learning-id"),
        CheckKind::Glob | CheckKind::Description | CheckKind::NoControl
            if matches!(args.profile, ProfileArg::Strict) =>
        {
            let strict = args.profile.profile();
            match args.kind {
                CheckKind::Glob => strict.check_safe_glob(&value).map(|_| ()),
                CheckKind::Description => strict.check_safe_description(&value).map(|_| ()),
                _ => strict
                    .check_no_control(&value, field.unwrap_or("value"))
                    .map(|_| ()),
            }
        }
        CheckKind::Glob => check_safe_glob(&value).map(|_| ()),
        CheckKind::Description => check_safe_description(&value).map(|_| ()),
        CheckKind::NoControl => check_no_control(&value, field.unwrap_or("value")).map(|_| ()),
    };
    Ok(match verdict {
        Ok(()) => Outcome::Success,
        Err(r) => Outcome::Rejected(r.to_string()),
    })
}

/// An argument as text, or the offset of its first invalid byte.
fn os_text(value: &std::ffi::OsStr) -> Result<String> {
    match value.to_str() {
        Some(s) => Ok(s.to_owned()),
        None => {
            #[cfg(unix)]
            let bytes = std::os::unix::ffi::OsStrExt::as_bytes(value).to_vec();
            #[cfg(not(unix))]
            let bytes = value.to_string_lossy().into_owned().into_bytes();
            io::into_text(bytes, "<argument>")
        }
    }
}

/// `airlock frontmatter`: the writer's gate per file.
pub(crate) fn frontmatter(args: &FrontmatterArgs) -> Result<Outcome> {
    let mut out = io::stdout();
    let mut refused = false;
    let mut failed = None;
    for path in &args.files {
        let input = Input::from_arg(Some(path));
        let name = input.name();
        let doc = match input.read_text() {
            Ok(doc) => doc,
            Err(e) => {
                // Report and go on with the other files; the run still fails (exit 2).
                eprintln!("airlock: {e}");
                failed = Some(e);
                continue;
            }
        };
        let refusal = frontmatter::refusal_reason_with(&doc, args.gate).map(|r| r.to_string());
        refused |= refusal.is_some();
        if args.json {
            let parsed = match frontmatter::parse(&doc) {
                Ok(fm) => format!("\"parsed\":{}", parsed_json(&fm)),
                Err(e) => format!("\"error\":{}", json::string(&e.to_string())),
            };
            let refusal = refusal.as_deref().map_or("null".to_owned(), json::string);
            writeln!(
                out,
                "{{\"file\":{},{parsed},\"refusal\":{refusal}}}",
                json::string(&name)
            )?;
        } else if let Some(reason) = refusal {
            writeln!(out, "{name}: {reason}")?;
        }
    }
    out.flush()?;
    match failed {
        Some(_) => Ok(Outcome::Failed),
        None if refused => Ok(Outcome::Refused),
        None => Ok(Outcome::Success),
    }
}

/// `{"globs":[…]|null,"meta":{…}}`, meta in insertion order.
fn parsed_json(fm: &frontmatter::Frontmatter<'_>) -> String {
    let globs = match fm.globs() {
        Some(items) => {
            let items: Vec<String> = items.map(json::string).collect();
            format!("[{}]", items.join(","))
        }
        None => "null".to_owned(),
    };
    let meta: Vec<String> = fm
        .meta()
        .iter()
        .map(|(key, value)| {
            let value = match value {
                MetaValue::Str(s) => json::string(s),
                MetaValue::Bool(b) => b.to_string(),
                MetaValue::Number(n) => json::number(n),
            };
            format!("{}:{value}", json::string(key.name()))
        })
        .collect();
    format!("{{\"globs\":{globs},\"meta\":{{{}}}}}", meta.join(","))
}
