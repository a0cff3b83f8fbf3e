//! The module's operations as safe functions over byte slices. Each returns a
//! [`Status`] and writes its lengths into an [`Outcome`]; `abi` hands both to
//! JavaScript. Inputs arrive as bytes (the loader's `TextEncoder` output, so valid
//! UTF-8; checked all the same, a failed check is [`Status::InvalidUtf8`]).

use core::fmt::{self, Write};

use airlock_core::forgery::LiteralSet;
use airlock_core::frontmatter::{self, Gate, MetaKey, MetaValue};
use airlock_core::lint::strict::strict_findings;
use airlock_core::lint::{Finding, Lint};
use airlock_core::{Profile, ProseError, Rejection, Shape};

/// What a call ended with. The values are the loader's; never reuse one.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// Done; the outputs are written.
    Ok = 0,
    /// A rejection; its message is in the message buffer when it fits.
    Rejected = 1,
    /// An output buffer is too small; [`Outcome::len`] is the size that suffices.
    BufferTooSmall = 2,
    /// A frontmatter document does not parse; the message is the parser's error.
    ParseError = 3,
    /// An input is not UTF-8.
    InvalidUtf8 = 4,
    /// An argument has no meaning (a profile, shape, gate or check number).
    InvalidArg = 5,
}

/// The lengths a call reports beside its status.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// The output's length (or, on [`Status::BufferTooSmall`], the room needed).
    pub len: usize,
    /// The message's whole length (it was written only if it fits).
    pub msg_len: usize,
}

/// A message buffer: writes what fits, counts the whole length.
struct Sink<'a> {
    buf: &'a mut [u8],
    len: usize,
}

impl Write for Sink<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let end = self.len.saturating_add(s.len());
        if let Some(dst) = self.buf.get_mut(self.len..end) {
            dst.copy_from_slice(s.as_bytes());
        }
        self.len = end;
        Ok(())
    }
}

/// Writes `message` into `msg` (when it fits) and returns `status` with its length.
fn report(
    message: &dyn fmt::Display,
    msg: &mut [u8],
    status: Status,
    outcome: &mut Outcome,
) -> Status {
    let mut sink = Sink { buf: msg, len: 0 };
    // Sink never fails; a Display that does leaves what it wrote counted.
    let _ = write!(sink, "{message}");
    outcome.msg_len = sink.len;
    status
}

fn text(bytes: &[u8]) -> Result<&str, Status> {
    core::str::from_utf8(bytes).map_err(|_| Status::InvalidUtf8)
}

/// The profile numbered `value`: 0 reference, 1 strict.
pub fn profile(value: u32) -> Result<Profile, Status> {
    match value {
        0 => Ok(Profile::Reference),
        1 => Ok(Profile::Strict),
        _ => Err(Status::InvalidArg),
    }
}

/// Runs `f`, turning an early `Err(status)` into that status.
fn run(f: impl FnOnce() -> Result<Status, Status>) -> Status {
    f().unwrap_or_else(|status| status)
}

/// The output room that always suffices for [`sanitize`] (saturating).
pub fn worst_case_len(profile_id: u32, text_len: usize, max_bytes: usize) -> usize {
    profile(profile_id).map_or(usize::MAX, |p| p.worst_case_len(text_len, max_bytes))
}

/// `sanitizeProse(text, { field, maxBytes, profile })` into `out`; `out` is written
/// only on [`Status::Ok`].
pub fn sanitize(
    profile_id: u32,
    text_bytes: &[u8],
    field: &[u8],
    max_bytes: usize,
    out: &mut [u8],
    msg: &mut [u8],
    outcome: &mut Outcome,
) -> Status {
    run(|| {
        let p = profile(profile_id)?;
        let input = text(text_bytes)?;
        let field = text(field)?;
        let set = &LiteralSet::DEFAULT;
        if p == Profile::Strict {
            // Strict writes as it goes: a first pass into no room decides the verdict
            // and the size, so that `out` holds nothing of a rejected text.
            match p.sanitize_prose_with(input, field, max_bytes, set, &mut []) {
                Err(ProseError::Rejected(r)) => {
                    return Ok(report(&r, msg, Status::Rejected, outcome));
                }
                Err(ProseError::BufferTooSmall(small)) if small.needed > out.len() => {
                    outcome.len = small.needed;
                    return Ok(Status::BufferTooSmall);
                }
                _ => {}
            }
        }
        Ok(
            match p.sanitize_prose_with(input, field, max_bytes, set, out) {
                Ok(prose) => {
                    outcome.len = prose.text.len();
                    Status::Ok
                }
                Err(ProseError::BufferTooSmall(small)) => {
                    outcome.len = small.needed;
                    Status::BufferTooSmall
                }
                Err(ProseError::Rejected(r)) => report(&r, msg, Status::Rejected, outcome),
            },
        )
    })
}

/// `stripDangerousInvisibles(text, { profile })` into `out` (room: the text's length).
pub fn strip(profile_id: u32, text_bytes: &[u8], out: &mut [u8], outcome: &mut Outcome) -> Status {
    run(|| {
        let p = profile(profile_id)?;
        let input = text(text_bytes)?;
        Ok(match p.strip_into(input, out) {
            Ok(clean) => {
                outcome.len = clean.len();
                Status::Ok
            }
            Err(small) => {
                outcome.len = small.needed;
                Status::BufferTooSmall
            }
        })
    })
}

/// `truncateToBytes`: the byte length of the longest whole-code-point prefix of at
/// most `max_bytes` bytes.
pub fn truncate(text_bytes: &[u8], max_bytes: usize, outcome: &mut Outcome) -> Status {
    run(|| {
        outcome.len = airlock_core::truncate_to_bytes(text(text_bytes)?, max_bytes)
            .text
            .len();
        Ok(Status::Ok)
    })
}

/// Room [`fence`] needs.
pub const FENCE_MAX_LEN: usize = 64;

/// `deriveFenceToken(payload)` into `out` (at least [`FENCE_MAX_LEN`] bytes).
pub fn fence(payload: &[u8], out: &mut [u8], outcome: &mut Outcome) -> Status {
    let token = airlock_core::fence_token(payload);
    let bytes = token.as_bytes();
    match out.get_mut(..bytes.len()) {
        Some(dst) => {
            dst.copy_from_slice(bytes);
            outcome.len = bytes.len();
            Status::Ok
        }
        None => {
            outcome.len = bytes.len();
            Status::BufferTooSmall
        }
    }
}

/// Which check [`check`] runs.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Check {
    /// `assertMachineToken` (`arg`: the shape, 1–4 as in `airlock_shape`).
    MachineToken = 0,
    /// `assertNoControlChars` under the profile.
    NoControl = 1,
    /// `assertSafeDescription` under the profile.
    SafeDescription = 2,
    /// `assertSafeGlob` under the profile.
    SafeGlob = 3,
    /// `assertNoWrapperForgery`.
    NoForgery = 4,
}

fn shape(value: u32) -> Result<Shape, Status> {
    match value {
        1 => Ok(Shape::HostClass),
        2 => Ok(Shape::LearningKey),
        3 => Ok(Shape::ExpiresAt),
        4 => Ok(Shape::Provenance),
        _ => Err(Status::InvalidArg),
    }
}

/// One of the value checks: [`Status::Ok`], or [`Status::Rejected`] with the
/// reference's message.
pub fn check(
    which: u32,
    profile_id: u32,
    arg: u32,
    value: &[u8],
    field: &[u8],
    msg: &mut [u8],
    outcome: &mut Outcome,
) -> Status {
    run(|| {
        let p = profile(profile_id)?;
        let value = text(value)?;
        let field = text(field)?;
        let verdict: Result<(), Rejection<'_>> = match which {
            w if w == Check::MachineToken as u32 => {
                airlock_core::check_machine_token(value, field, shape(arg)?).map(drop)
            }
            w if w == Check::NoControl as u32 => p.check_no_control(value, field).map(drop),
            w if w == Check::SafeDescription as u32 => p.check_safe_description(value).map(drop),
            w if w == Check::SafeGlob as u32 => p.check_safe_glob(value).map(drop),
            w if w == Check::NoForgery as u32 => {
                airlock_core::check_no_forgery(value, field, &LiteralSet::DEFAULT)
            }
            _ => return Err(Status::InvalidArg),
        };
        Ok(match verdict {
            Ok(()) => Status::Ok,
            Err(r) => report(&r, msg, Status::Rejected, outcome),
        })
    })
}

/// Words [`frontmatter_read`] writes before the globs.
const FM_HEADER_WORDS: usize = 3;
/// Words per glob (start, length) and per meta entry (key, kind, two value words).
const FM_GLOB_WORDS: usize = 2;
const FM_META_WORDS: usize = 4;

/// A word writer over a byte buffer that counts past its end.
struct Words<'a> {
    buf: &'a mut [u8],
    at: usize,
}

impl Words<'_> {
    fn push(&mut self, word: u32) {
        let end = self.at.saturating_add(4);
        if let Some(dst) = self.buf.get_mut(self.at..end) {
            dst.copy_from_slice(&word.to_le_bytes());
        }
        self.at = end;
    }

    fn push_len(&mut self, n: usize) -> Result<(), Status> {
        self.push(u32::try_from(n).map_err(|_| Status::InvalidArg)?);
        Ok(())
    }
}

/// Where `part`, a sub-slice of `doc`, starts in it.
fn offset_in(doc: &str, part: &str) -> Result<usize, Status> {
    let at = (part.as_ptr() as usize).wrapping_sub(doc.as_ptr() as usize);
    if at
        .checked_add(part.len())
        .is_some_and(|end| end <= doc.len())
    {
        Ok(at)
    } else {
        Err(Status::InvalidArg)
    }
}

/// `parseGlobsFrontmatter(doc)` as words in `out`: `has_globs`, `glob_count`,
/// `meta_count`, then each glob's (start, length) in `doc`, then each kept meta key
/// in the reference's order as (key, kind, a, b): kind 0 a string at (a, b), 1 a
/// boolean `a`, 2 a number whose bits are `b << 32 | a`. A parse error is
/// [`Status::ParseError`] with the parser's message.
pub fn frontmatter_read(
    doc: &[u8],
    out: &mut [u8],
    msg: &mut [u8],
    outcome: &mut Outcome,
) -> Status {
    run(|| {
        let doc = text(doc)?;
        let fm = match frontmatter::parse(doc) {
            Ok(fm) => fm,
            Err(e) => return Ok(report(&e, msg, Status::ParseError, outcome)),
        };
        let mut w = Words { buf: out, at: 0 };
        let globs = fm.globs();
        w.push(u32::from(globs.is_some()));
        w.push_len(globs.clone().map_or(0, Iterator::count))?;
        w.push_len(fm.meta().len())?;
        for g in globs.into_iter().flatten() {
            w.push_len(offset_in(doc, g)?)?;
            w.push_len(g.len())?;
        }
        for (key, value) in fm.meta().iter() {
            w.push(key as u32);
            match value {
                MetaValue::Str(s) => {
                    w.push(0);
                    w.push_len(offset_in(doc, s)?)?;
                    w.push_len(s.len())?;
                }
                MetaValue::Bool(b) => {
                    w.push(1);
                    w.push(u32::from(b));
                    w.push(0);
                }
                MetaValue::Number(n) => {
                    let bits = n.to_bits();
                    w.push(2);
                    w.push(bits as u32);
                    w.push((bits >> 32) as u32);
                }
            }
        }
        outcome.len = w.at;
        Ok(if w.at > w.buf.len() {
            Status::BufferTooSmall
        } else {
            Status::Ok
        })
    })
}

/// The bytes [`frontmatter_read`] writes for `globs` globs and `meta` meta entries.
pub fn frontmatter_words_len(globs: usize, meta: usize) -> usize {
    FM_HEADER_WORDS
        .saturating_add(globs.saturating_mul(FM_GLOB_WORDS))
        .saturating_add(meta.saturating_mul(FM_META_WORDS))
        .saturating_mul(4)
}

/// The gate numbered `value`: 0 is 3.20.0, 1 is 3.21.0.
fn gate(value: u32) -> Result<Gate, Status> {
    match value {
        0 => Ok(Gate::V3_20),
        1 => Ok(Gate::V3_21),
        _ => Err(Status::InvalidArg),
    }
}

/// `frontmatterRefusalReason(doc, { gate })`: [`Status::Ok`] when the document may be
/// written, else [`Status::Rejected`] with the reason as the message.
pub fn refusal(doc: &[u8], gate_id: u32, msg: &mut [u8], outcome: &mut Outcome) -> Status {
    run(|| {
        let doc = text(doc)?;
        Ok(
            match frontmatter::refusal_reason_with(doc, gate(gate_id)?) {
                None => Status::Ok,
                Some(reason) => report(&reason, msg, Status::Rejected, outcome),
            },
        )
    })
}

/// The string numbered `which`: 0 the version, 1 the Unicode version, 2 and 3 the
/// envelope's markers, 16 + k the name of meta key k. Empty for any other number.
pub fn info(which: u32) -> &'static str {
    match which {
        0 => airlock_core::VERSION,
        1 => airlock_core::UNICODE_VERSION,
        2 => airlock_core::UNTRUSTED_BEGIN,
        3 => airlock_core::UNTRUSTED_END,
        k => k
            .checked_sub(16)
            .and_then(|k| MetaKey::ALL.get(k as usize))
            .map_or("", |key| key.name()),
    }
}

/// Whether `cp` is a dangerous invisible (the reference's table).
pub fn is_dangerous_invisible(cp: u32) -> bool {
    char::from_u32(cp).is_some_and(airlock_core::is_dangerous_invisible)
}

/// Whether the reference's strip drops `cp` after `prev` (a value above U+10FFFF: no
/// predecessor).
pub fn is_stripped(cp: u32, prev: u32) -> bool {
    char::from_u32(cp).is_some_and(|c| airlock_core::class::is_stripped(c, char::from_u32(prev)))
}

/// Words per finding [`findings`] writes: kind, byte start, byte length, code point.
pub const FINDING_WORDS: usize = 4;
/// Kind numbers of [`findings`]: the reference lint's kinds in `Kind::ALL` order
/// (0–4), then strict's in `StrictKind::ALL` order from this base.
pub const STRICT_KIND_BASE: u32 = 16;

/// What a text holds that containment acts on, as [`FINDING_WORDS`] words each in
/// `out`, in byte order: the reference lint's findings (invisibles, Tag runs, orphan
/// selectors, controls, unpaired bidi) then strict's (what it drops, escape
/// sequences, controls, forgery literals, envelope markers, special tokens, hidden
/// comments). [`Outcome::len`] is the bytes needed; [`Status::BufferTooSmall`] when
/// they do not fit.
pub fn findings(text_bytes: &[u8], out: &mut [u8], outcome: &mut Outcome) -> Status {
    run(|| {
        let input = text(text_bytes)?;
        let mut w = Words { buf: out, at: 0 };
        let mut lint = Lint::new();
        let mut reference = |f: &Finding<'_>| -> Result<(), Status> {
            let kind = airlock_core::lint::Kind::ALL
                .iter()
                .position(|&k| k == f.kind)
                .ok_or(Status::InvalidArg)?;
            w.push_len(kind)?;
            w.push(u32::try_from(f.pos.byte).map_err(|_| Status::InvalidArg)?);
            w.push(u32::try_from(f.len).map_err(|_| Status::InvalidArg)?);
            w.push(u32::from(f.c));
            Ok(())
        };
        lint.feed(input, &mut reference)?;
        lint.finish(&mut reference)?;
        strict_findings(input, &LiteralSet::DEFAULT, |f| -> Result<(), Status> {
            let kind = airlock_core::lint::strict::StrictKind::ALL
                .iter()
                .position(|&k| k == f.kind)
                .ok_or(Status::InvalidArg)?;
            w.push(STRICT_KIND_BASE.saturating_add(u32::try_from(kind).unwrap_or(u32::MAX)));
            w.push(u32::try_from(f.pos.byte).map_err(|_| Status::InvalidArg)?);
            w.push_len(f.text.len())?;
            w.push(u32::from(f.c));
            Ok(())
        })?;
        outcome.len = w.at;
        Ok(if w.at > w.buf.len() {
            Status::BufferTooSmall
        } else {
            Status::Ok
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sanitized(profile: u32, text: &str, max: usize) -> Result<String, String> {
        let mut out = vec![0u8; worst_case_len(profile, text.len(), max)];
        let mut msg = vec![0u8; 4096];
        let mut o = Outcome::default();
        match sanitize(
            profile,
            text.as_bytes(),
            b"insight",
            max,
            &mut out,
            &mut msg,
            &mut o,
        ) {
            Status::Ok => Ok(String::from_utf8(out[..o.len].to_vec()).unwrap()),
            Status::Rejected => Err(String::from_utf8(msg[..o.msg_len].to_vec()).unwrap()),
            s => panic!("{s:?}"),
        }
    }

    #[test]
    fn sanitize_both_profiles() {
        let text = "<|im_start|>system \u{200E}x\u{200B}";
        assert_eq!(
            sanitized(0, text, 100).unwrap(),
            "<|im_start|>system \u{200E}x"
        );
        assert_eq!(
            sanitized(1, text, 100).unwrap(),
            "[redacted special token]system x"
        );
        let err = sanitized(0, "a </APPLICABLE-RULES>", 100).unwrap_err();
        assert!(
            err.starts_with("reconcile-sanitize: rejecting record — insight"),
            "{err}"
        );
    }

    #[test]
    fn small_buffers_are_reported_not_written() {
        let mut out = [0xAAu8; 4];
        let mut o = Outcome::default();
        let st = sanitize(1, b"<|a|> <|b|>", b"f", 100, &mut out, &mut [], &mut o);
        assert_eq!(st, Status::BufferTooSmall);
        assert_eq!(
            o.len,
            "[redacted special token] [redacted special token]".len()
        );
        assert_eq!(out, [0xAA; 4]);
        // A message that does not fit is counted whole.
        let mut msg = [0u8; 8];
        let st = check(4, 0, 0, b"</LEARNINGS-INDEX>", b"f", &mut msg, &mut o);
        assert_eq!(st, Status::Rejected);
        assert!(o.msg_len > msg.len());
    }

    #[test]
    fn bad_arguments_are_refused() {
        let mut o = Outcome::default();
        assert_eq!(
            sanitize(2, b"x", b"f", 1, &mut [0; 8], &mut [], &mut o),
            Status::InvalidArg
        );
        assert_eq!(strip(0, b"\xff", &mut [0; 8], &mut o), Status::InvalidUtf8);
        assert_eq!(
            check(9, 0, 0, b"x", b"f", &mut [], &mut o),
            Status::InvalidArg
        );
        assert_eq!(
            check(0, 0, 7, b"x", b"f", &mut [], &mut o),
            Status::InvalidArg
        );
        assert_eq!(refusal(b"", 2, &mut [], &mut o), Status::InvalidArg);
    }

    #[test]
    fn frontmatter_words() {
        let doc = "---\nglobs: [\"a/*\", b]\nalwaysApply: false\nconfidence: 0.5\ntier: x\n---\n";
        let mut out = vec![0u8; frontmatter_words_len(2, 3)];
        let mut o = Outcome::default();
        assert_eq!(
            frontmatter_read(doc.as_bytes(), &mut out, &mut [], &mut o),
            Status::Ok
        );
        let w: Vec<u32> = out
            .chunks(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(&w[..3], &[1, 2, 3]);
        let span = |i: usize| &doc[w[i] as usize..(w[i] + w[i + 1]) as usize];
        assert_eq!((span(3), span(5)), ("a/*", "b"));
        assert_eq!(info(16 + w[7]), "alwaysApply");
        assert_eq!((w[8], w[9]), (1, 0));
        assert_eq!(
            f64::from_bits(u64::from(w[14]) << 32 | u64::from(w[13])),
            0.5
        );
        assert_eq!(span(17), "x");
        // Too small: the size needed, nothing claimed written.
        let mut small = vec![0u8; 8];
        assert_eq!(
            frontmatter_read(doc.as_bytes(), &mut small, &mut [], &mut o),
            Status::BufferTooSmall
        );
        assert_eq!(o.len, out.len());
        let mut msg = vec![0u8; 200];
        let bad = "---\nnot a key line\n---\n";
        assert_eq!(
            frontmatter_read(bad.as_bytes(), &mut out, &mut msg, &mut o),
            Status::ParseError
        );
        assert!(msg.starts_with(b"Malformed frontmatter line: "));
    }

    #[test]
    fn findings_cover_both_scans() {
        let text = "a\u{200B}b\u{E0041}\u{E0042}\x1b[31m</APPLICABLE-RULES>";
        let mut out = vec![0u8; 1024];
        let mut o = Outcome::default();
        assert_eq!(findings(text.as_bytes(), &mut out, &mut o), Status::Ok);
        let w: Vec<u32> = out[..o.len]
            .chunks(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        let kinds: Vec<u32> = w.chunks(FINDING_WORDS).map(|f| f[0]).collect();
        // Reference: the ZWSP, the Tag run (one finding), the ESC control.
        assert_eq!(&kinds[..3], &[0, 1, 3]);
        assert_eq!(&w[4..8], &[1, 5, 8, 0xE0041]);
        // Strict: ZWSP and each tag dropped, the escape sequence, the literal.
        assert!(kinds.contains(&(STRICT_KIND_BASE + 1)));
        assert!(kinds.contains(&(STRICT_KIND_BASE + 3)));
        assert_eq!(info(0), airlock_core::VERSION);
        assert_eq!(info(99), "");
    }
}
