//! `airlock scan`: the repository linter.
//!
//! Reports every dangerous invisible (SPEC §2), orphan variation selector and control
//! character other than TAB, LF and CR, with path, line, column (in code points, from
//! 1), byte offset (from 0), `U+XXXX` and name. A run of Tag-block code points is one
//! finding that spells out the ASCII it hides. Bidi embeddings, overrides and isolates
//! are also checked for pairing within their paragraph (line): an opener never closed,
//! or a closer with nothing to close, is an extra finding. The rules and the scan are
//! core's ([`airlock_core::lint`]); this module walks files (in parallel, with the
//! `ignore` crate's walker), names code points and formats findings through serde
//! types. Each input streams through in constant memory; its findings are kept until
//! it is done, and inputs are reported in a fixed order (sorted paths), whatever the
//! order the walker's threads finish in.

use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use airlock_core::lint::strict::{StrictFinding, StrictKind, strict_findings};
use airlock_core::lint::{Finding, Kind, Lint, Pos, is_isolate};
use airlock_core::reject::CodePoint;
use airlock_core::{LiteralSet, StripStream, is_control};
use clap::{Args, ValueEnum};
use serde::Serialize;

use crate::Outcome;
use crate::filters::ProfileArg;
use crate::io::{self, Error, Input, Result, TextChunks};
use crate::names;

/// Output formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum Format {
    /// `path:line:column: U+XXXX NAME: message (byte N)`, one finding a line.
    Human,
    /// A JSON array of finding objects, one a line.
    Json,
    /// SARIF 2.1.0, for code-scanning tools.
    Sarif,
}

/// Arguments of `airlock scan`.
#[derive(Args)]
pub(crate) struct ScanArgs {
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
    /// Remove what is reported, in place (atomically; read-only files are refused).
    #[arg(long)]
    fix: bool,
    /// Containment profile: strict reports what strict would change (its own rule
    /// ids), and `--fix` applies strict strip.
    #[arg(long, value_enum, default_value_t = ProfileArg::Reference)]
    profile: ProfileArg,
    /// Files and directories (walked honouring .gitignore); standard input when none.
    paths: Vec<PathBuf>,
}

/// Files with a NUL in their first bytes are binary and skipped.
const BINARY_SNIFF: usize = 8 * 1024;

/// What the reports say about each kind of finding.
struct Rule {
    id: &'static str,
    name: &'static str,
    slug: &'static str,
    description: &'static str,
}

/// The rule of `kind`.
const fn rule(kind: Kind) -> Rule {
    match kind {
        Kind::Invisible => Rule {
            id: "AIRLOCK001",
            name: "DangerousInvisible",
            slug: "dangerous-invisible",
            description: "A dangerous invisible code point: invisible to a reviewer, text to a model.",
        },
        Kind::TagRun => Rule {
            id: "AIRLOCK002",
            name: "HiddenTagText",
            slug: "tag-run",
            description: "Tag-block code points spell hidden ASCII text (ASCII smuggling).",
        },
        Kind::OrphanSelector => Rule {
            id: "AIRLOCK003",
            name: "OrphanVariationSelector",
            slug: "orphan-variation-selector",
            description: "A variation selector with nothing to select (not after an emoji).",
        },
        Kind::Control => Rule {
            id: "AIRLOCK004",
            name: "ControlCharacter",
            slug: "control-character",
            description: "A control character other than TAB, LF and CR.",
        },
        Kind::UnpairedBidi => Rule {
            id: "AIRLOCK005",
            name: "UnpairedBidiControl",
            slug: "unpaired-bidi",
            description: "A bidi embedding, override or isolate not closed on its line, or a closer with nothing to close (Trojan Source).",
        },
    }
}

/// The index of `kind` among the SARIF rules.
fn rule_index(kind: Kind) -> usize {
    Kind::ALL.iter().position(|&k| k == kind).unwrap_or(0)
}

/// The rule of a strict `kind`: ids of their own, so a code-scanning history of one
/// profile is never read as the other's.
const fn strict_rule(kind: StrictKind) -> Rule {
    match kind {
        StrictKind::Dropped => Rule {
            id: "AIRLOCK101",
            name: "StrictDroppedInvisible",
            slug: "strict-invisible",
            description: "A Default_Ignorable or Bidi_Control code point outside the contexts where it spells (strict drops it).",
        },
        StrictKind::EscapeSequence => Rule {
            id: "AIRLOCK102",
            name: "EscapeSequence",
            slug: "escape-sequence",
            description: "An ECMA-48 escape sequence (terminal control: screen clearing, OSC-8 links, titles).",
        },
        StrictKind::Control => Rule {
            id: "AIRLOCK103",
            name: "StrictControlCharacter",
            slug: "strict-control-character",
            description: "A control character other than TAB, LF and CR, outside an escape sequence.",
        },
        StrictKind::ForgeryLiteral => Rule {
            id: "AIRLOCK104",
            name: "FoldedForgeryLiteral",
            slug: "forgery-literal",
            description: "A wrapper forgery literal, matched on the folded view (case, compatibility forms, look-alikes, invisibles).",
        },
        StrictKind::EnvelopeMarker => Rule {
            id: "AIRLOCK105",
            name: "FoldedEnvelopeMarker",
            slug: "envelope-marker",
            description: "An envelope marker, matched on the folded view.",
        },
        StrictKind::SpecialToken => Rule {
            id: "AIRLOCK106",
            name: "SpecialToken",
            slug: "special-token",
            description: "A chat-template special token (<|name|>, [INST], <<SYS>>, ...), matched on the folded view.",
        },
        StrictKind::HiddenComment => Rule {
            id: "AIRLOCK107",
            name: "HiddenComment",
            slug: "hidden-comment",
            description: "An HTML comment opener: text a renderer hides from a reviewer.",
        },
    }
}

/// The index of a strict `kind` among the SARIF rules.
fn strict_rule_index(kind: StrictKind) -> usize {
    StrictKind::ALL.iter().position(|&k| k == kind).unwrap_or(0)
}

/// A strict finding's message.
fn strict_message(f: &StrictFinding<'_>) -> Result<String> {
    let quoted = || to_json(&f.text);
    Ok(match f.kind {
        StrictKind::Dropped => "invisible strict drops (outside its keep contexts)".to_owned(),
        StrictKind::EscapeSequence => format!("escape sequence {}", quoted()?),
        StrictKind::Control => "control character".to_owned(),
        StrictKind::ForgeryLiteral => format!("forgery literal on the folded view: {}", quoted()?),
        StrictKind::EnvelopeMarker => format!("envelope marker on the folded view: {}", quoted()?),
        StrictKind::SpecialToken => format!("special token on the folded view: {}", quoted()?),
        StrictKind::HiddenComment => format!("hidden comment opener: {}", quoted()?),
    })
}

/// The Unicode name (or control alias) of `c`.
fn name_of(c: char) -> String {
    names::name(c).map_or_else(|| "<unnamed>".to_owned(), |n| n.into_owned())
}

/// The finding's message.
fn message(f: &Finding<'_>) -> Result<String> {
    Ok(match f.kind {
        Kind::Invisible => "dangerous invisible".to_owned(),
        Kind::OrphanSelector => "orphan variation selector".to_owned(),
        Kind::Control => "control character".to_owned(),
        Kind::TagRun => {
            let (count, hidden) = f.tag.map_or((1, ""), |t| (t.count, t.hidden));
            format!(
                "Tag-block run of {count} code point{} hiding {}",
                if count == 1 { "" } else { "s" },
                serde_json::to_string(hidden).map_err(|e| Error::Other(e.to_string()))?
            )
        }
        Kind::UnpairedBidi if f.unclosed => {
            let closer = if is_isolate(f.c) { "U+2069" } else { "U+202C" };
            format!("unpaired bidi control: not closed by {closer} on its line")
        }
        Kind::UnpairedBidi => "unpaired bidi control: closes nothing".to_owned(),
    })
}

/// A finding as JSON.
#[derive(Serialize)]
struct JsonFinding<'a> {
    path: &'a str,
    line: u64,
    column: u64,
    byte: u64,
    codepoint: String,
    name: String,
    kind: &'static str,
    message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    length: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    hidden: Option<&'a str>,
    /// Strict: the text the finding covers, as written.
    #[serde(skip_serializing_if = "Option::is_none")]
    text: Option<&'a str>,
}

/// SARIF: a rule of the driver.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifRule {
    id: &'static str,
    name: &'static str,
    short_description: SarifText,
    default_configuration: SarifLevel,
}

#[derive(Serialize)]
struct SarifText {
    text: String,
}

#[derive(Serialize)]
struct SarifLevel {
    level: &'static str,
}

/// SARIF: the tool, all but its rules (written one a line after it). No
/// `informationUri`: it is optional in SARIF 2.1.0's `toolComponent` and the project has no
/// public address to give.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifDriver {
    name: &'static str,
    version: &'static str,
    semantic_version: &'static str,
}

/// SARIF: one result.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifResult {
    rule_id: &'static str,
    rule_index: usize,
    level: &'static str,
    message: SarifText,
    locations: [SarifLocation; 1],
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifLocation {
    physical_location: SarifPhysical,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifPhysical {
    artifact_location: SarifArtifact,
    region: SarifRegion,
}

#[derive(Serialize)]
struct SarifArtifact {
    uri: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifRegion {
    start_line: u64,
    start_column: u64,
    byte_offset: u64,
    byte_length: u64,
}

fn to_json(value: &impl Serialize) -> Result<String> {
    serde_json::to_string(value).map_err(|e| Error::Other(e.to_string()))
}

/// A finding of either profile, as the formats show it.
struct View<'a> {
    rule: Rule,
    rule_index: usize,
    pos: Pos,
    c: char,
    len: u64,
    message: String,
    length: Option<u64>,
    hidden: Option<&'a str>,
    text: Option<&'a str>,
    /// A name for a code point the names table lacks.
    name: Option<String>,
}

/// One finding, formatted as one item of the report (a line, or a JSON value).
fn format_finding(format: Format, path: &str, f: &Finding<'_>) -> Result<String> {
    format_view(
        format,
        path,
        &View {
            rule: rule(f.kind),
            rule_index: rule_index(f.kind),
            pos: f.pos,
            c: f.c,
            len: f.len,
            message: message(f)?,
            length: f.tag.map(|t| t.count),
            hidden: f.tag.map(|t| t.hidden),
            text: None,
            name: None,
        },
    )
}

/// One strict finding, formatted as one item of the report.
fn format_strict(format: Format, path: &str, f: &StrictFinding<'_>) -> Result<String> {
    format_view(
        format,
        path,
        &View {
            rule: strict_rule(f.kind),
            rule_index: strict_rule_index(f.kind),
            pos: f.pos,
            c: f.c,
            len: f.text.len() as u64,
            message: strict_message(f)?,
            length: None,
            hidden: None,
            text: Some(f.text),
            // A pattern starts with a visible character the names table (of what
            // hides) lacks: show it.
            name: (!f.kind.stripped() && names::name(f.c).is_none())
                .then(|| to_json(&f.c.to_string()))
                .transpose()?,
        },
    )
}

fn format_view(format: Format, path: &str, f: &View<'_>) -> Result<String> {
    let name = f.name.clone().unwrap_or_else(|| name_of(f.c));
    let message = &f.message;
    match format {
        Format::Human => Ok(format!(
            "{path}:{}:{}: {} {name}: {message} (byte {})",
            f.pos.line,
            f.pos.column,
            CodePoint(f.c),
            f.pos.byte
        )),
        Format::Json => to_json(&JsonFinding {
            path,
            line: f.pos.line,
            column: f.pos.column,
            byte: f.pos.byte,
            codepoint: CodePoint(f.c).to_string(),
            name,
            kind: f.rule.slug,
            message: message.clone(),
            length: f.length,
            hidden: f.hidden,
            text: f.text,
        }),
        Format::Sarif => to_json(&SarifResult {
            rule_id: f.rule.id,
            rule_index: f.rule_index,
            level: "error",
            message: SarifText {
                text: format!("{} {name}: {message}", CodePoint(f.c)),
            },
            locations: [SarifLocation {
                physical_location: SarifPhysical {
                    artifact_location: SarifArtifact { uri: uri(path) },
                    region: SarifRegion {
                        start_line: f.pos.line,
                        start_column: f.pos.column,
                        byte_offset: f.pos.byte,
                        byte_length: f.len,
                    },
                },
            }],
        }),
    }
}

/// Writes the report: the format's framing around the items, one a line.
struct Reporter {
    format: Format,
    out: std::io::BufWriter<std::io::StdoutLock<'static>>,
    count: u64,
}

impl Reporter {
    fn begin(format: Format, strict: bool) -> Result<Reporter> {
        let mut out = io::stdout();
        match format {
            Format::Human => {}
            Format::Json => out.write_all(b"[")?,
            Format::Sarif => {
                let driver = to_json(&SarifDriver {
                    name: "airlock",
                    version: env!("CARGO_PKG_VERSION"),
                    semantic_version: env!("CARGO_PKG_VERSION"),
                })?;
                let all: Vec<Rule> = if strict {
                    StrictKind::ALL.into_iter().map(strict_rule).collect()
                } else {
                    Kind::ALL.into_iter().map(rule).collect()
                };
                let mut rules = Vec::new();
                for rule in all {
                    rules.push(to_json(&SarifRule {
                        id: rule.id,
                        name: rule.name,
                        short_description: SarifText {
                            text: rule.description.to_owned(),
                        },
                        default_configuration: SarifLevel { level: "error" },
                    })?);
                }
                // The driver object, its rules one a line, then the open results.
                let driver = driver.strip_suffix('}').unwrap_or(&driver);
                write!(
                    out,
                    "{{\"$schema\":\"https://json.schemastore.org/sarif-2.1.0.json\",\"version\":\"2.1.0\",\"runs\":[{{\"tool\":{{\"driver\":{driver},\"rules\":[\n{}\n]}}}},\"columnKind\":\"unicodeCodePoints\",\"results\":[",
                    rules.join(",\n"),
                )?;
            }
        }
        Ok(Reporter {
            format,
            out,
            count: 0,
        })
    }

    fn item(&mut self, item: &str) -> std::io::Result<()> {
        let first = self.count == 0;
        self.count = self.count.saturating_add(1);
        match self.format {
            Format::Human => writeln!(self.out, "{item}"),
            Format::Json | Format::Sarif => {
                let sep = if first { "\n" } else { ",\n" };
                write!(self.out, "{sep}{item}")
            }
        }
    }

    fn end(mut self) -> Result<u64> {
        let close = if self.count == 0 { "" } else { "\n" };
        match self.format {
            Format::Human => {}
            Format::Json => writeln!(self.out, "{close}]")?,
            Format::Sarif => writeln!(self.out, "{close}]}}]}}")?,
        }
        self.out.flush()?;
        Ok(self.count)
    }
}

/// A relative path as a URI reference: `/` separators, anything but unreserved
/// characters percent-encoded.
fn uri(path: &str) -> String {
    use std::fmt::Write as _;
    let path = path.strip_prefix("./").unwrap_or(path);
    let mut out = String::new();
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'/') {
            out.push(char::from(b));
        } else if b == b'\\' && cfg!(windows) {
            out.push('/');
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}

/// Lints one input, handing each formatted finding to `item`; returns how many.
fn scan_input(
    input: &Input,
    mut reader: Box<dyn Read>,
    format: Format,
    strict: bool,
    item: &mut dyn FnMut(String) -> Result<()>,
) -> Result<u64> {
    let name = input.name();
    if strict {
        // Strict reads each input whole: its classification runs strict strip itself
        // and looks ahead across it. One input at a time is held.
        let mut bytes = Vec::new();
        reader
            .read_to_end(&mut bytes)
            .map_err(|e| input.read_error(e))?;
        let text = io::into_text(bytes, &name)?;
        return strict_findings(&text, &LiteralSet::DEFAULT, |f| {
            item(format_strict(format, &name, f)?)
        });
    }
    let mut chunks = TextChunks::from_reader(input, reader);
    let mut lint = Lint::new();
    let mut report = |f: &Finding<'_>| item(format_finding(format, &name, f)?);
    while let Some(piece) = chunks.next_piece()? {
        lint.feed(piece, &mut report)?;
    }
    lint.finish(&mut report)?;
    Ok(lint.findings())
}

/// What scanning one file of a walk produced, reported once every file before it is.
struct FileReport {
    path: PathBuf,
    items: Vec<String>,
    findings: u64,
    /// Lines for stderr: errors, and the files `--fix` rewrote.
    notes: Vec<String>,
    failed: bool,
}

/// Scans (and with `fix`, fixes) one file of a walk.
fn scan_file(path: &Path, format: Format, fix: bool, strict: bool) -> FileReport {
    let input = Input::File(path.to_path_buf());
    let mut report = FileReport {
        path: path.to_path_buf(),
        items: Vec::new(),
        findings: 0,
        notes: Vec::new(),
        failed: false,
    };
    let items = &mut report.items;
    let scanned = open_text_file(&input, path).and_then(|reader| match reader {
        Some(r) => scan_input(&input, r, format, strict, &mut |item| {
            items.push(item);
            Ok(())
        }),
        None => Ok(0),
    });
    match scanned {
        Ok(n) => {
            report.findings = n;
            if n > 0 && fix {
                match fix_file(&input, path, strict) {
                    // Which files were rewritten, on stderr: stdout is the report.
                    Ok(()) => report
                        .notes
                        .push(format!("airlock: fixed {}", input.name())),
                    Err(e) => {
                        report.notes.push(format!("airlock: {e}"));
                        report.failed = true;
                    }
                }
            }
        }
        Err(e) => {
            report.notes.push(format!("airlock: {e}"));
            report.failed = true;
        }
    }
    report
}

/// Opens a file for scanning: `None` when it is binary (a NUL in its first bytes).
fn open_text_file(input: &Input, path: &Path) -> Result<Option<Box<dyn Read>>> {
    let mut file = fs::File::open(path).map_err(|e| input.read_error(e))?;
    let mut head = Vec::with_capacity(BINARY_SNIFF);
    (&mut file)
        .take(BINARY_SNIFF as u64)
        .read_to_end(&mut head)
        .map_err(|e| input.read_error(e))?;
    if head.contains(&0) {
        return Ok(None);
    }
    Ok(Some(Box::new(std::io::Cursor::new(head).chain(file))))
}

/// Rewrites `path` without what scan reports: what `strip` removes (strict strip under
/// strict: the folded patterns stay, to be reviewed) and the controls but TAB, LF and
/// CR. The new text goes to a temporary file beside it, which gets
/// the file's owner, group and mode (less setuid and setgid) and is renamed over it
/// only once the whole file was read and found valid, so a failure leaves the file
/// untouched. Symbolic links, hard-linked files and anything but a regular file are
/// refused: rewriting them would change another file, or split the links.
fn fix_file(input: &Input, path: &Path, strict: bool) -> Result<()> {
    let refuse = |why: String| Error::Other(format!("{}: not fixed: {why}", input.name()));
    let before = fs::symlink_metadata(path).map_err(|e| input.read_error(e))?;
    if before.file_type().is_symlink() {
        return Err(refuse(
            "a symbolic link (name the file it points to, if that is the one to fix)".to_owned(),
        ));
    }
    if !before.is_file() {
        return Err(refuse("not a regular file".to_owned()));
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if before.nlink() > 1 {
            return Err(refuse(format!(
                "hard-linked ({} names): rewriting it would split the links",
                before.nlink()
            )));
        }
    }
    if before.permissions().readonly() {
        return Err(Error::Other(format!(
            "{}: read-only, not fixed (make it writable to let --fix rewrite it)",
            input.name()
        )));
    }
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let fix_error = |e: std::io::Error| Error::Other(format!("{}: fix failed: {e}", input.name()));
    let temp = tempfile::Builder::new()
        .prefix(".airlock-fix")
        .tempfile_in(dir)
        .map_err(fix_error)?;
    let mut out = std::io::BufWriter::with_capacity(io::CHUNK, temp.as_file());
    let mut chunks = TextChunks::open(&Input::File(path.to_path_buf()))?;
    let mut stream = Fixer::new(strict);
    while let Some(piece) = chunks.next_piece()? {
        let mut written = Ok(());
        stream
            .feed(piece.as_bytes(), &mut |run| {
                if written.is_ok() {
                    written = write_without_controls(&mut out, run);
                }
            })
            .map_err(|e| Error::Other(e.to_string()))?;
        written.map_err(fix_error)?;
    }
    let mut written = Ok(());
    stream
        .finish(&mut |run| {
            if written.is_ok() {
                written = write_without_controls(&mut out, run);
            }
        })
        .map_err(|e| Error::Other(e.to_string()))?;
    written.map_err(fix_error)?;
    out.flush().map_err(fix_error)?;
    drop(out);
    keep_owner_and_mode(temp.as_file(), &before)
        .map_err(|e| refuse(format!("cannot keep its owner, group and mode: {e}")))?;
    temp.as_file().sync_all().map_err(fix_error)?;
    // The name must still be the file that was read.
    let now = fs::symlink_metadata(path).map_err(|e| input.read_error(e))?;
    if !same_file(&before, &now) {
        return Err(refuse("it changed while being fixed".to_owned()));
    }
    temp.persist(path).map_err(|e| fix_error(e.error))?;
    Ok(())
}

/// The strip `--fix` applies: the reference's, or strict's.
enum Fixer {
    Reference(StripStream),
    Strict(Box<airlock_core::strict::StripStream>),
}

impl Fixer {
    fn new(strict: bool) -> Fixer {
        if strict {
            Fixer::Strict(Box::new(airlock_core::strict::StripStream::new()))
        } else {
            Fixer::Reference(StripStream::new())
        }
    }

    fn feed(
        &mut self,
        chunk: &[u8],
        emit: &mut dyn FnMut(&str),
    ) -> std::result::Result<(), airlock_core::Utf8Error> {
        match self {
            Fixer::Reference(s) => s.feed(chunk, emit),
            Fixer::Strict(s) => s.feed(chunk, emit),
        }
    }

    fn finish(
        self,
        emit: &mut dyn FnMut(&str),
    ) -> std::result::Result<(), airlock_core::Utf8Error> {
        match self {
            // The reference's stream holds nothing back.
            Fixer::Reference(s) => s.finish(),
            Fixer::Strict(s) => s.finish(emit),
        }
    }
}

/// Gives `file` the owner and group of `meta` and its mode without setuid and setgid
/// (a rewritten file must not gain rights, nor keep a privilege meant for other bytes).
#[cfg(unix)]
fn keep_owner_and_mode(file: &fs::File, meta: &fs::Metadata) -> std::io::Result<()> {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    std::os::unix::fs::fchown(file, Some(meta.uid()), Some(meta.gid()))?;
    file.set_permissions(fs::Permissions::from_mode(meta.mode() & 0o1777))
}

#[cfg(not(unix))]
fn keep_owner_and_mode(file: &fs::File, meta: &fs::Metadata) -> std::io::Result<()> {
    file.set_permissions(meta.permissions())
}

/// Whether two metadata describe the same file.
#[cfg(unix)]
fn same_file(a: &fs::Metadata, b: &fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    a.dev() == b.dev() && a.ino() == b.ino() && b.nlink() == 1 && b.is_file()
}

#[cfg(not(unix))]
fn same_file(a: &fs::Metadata, b: &fs::Metadata) -> bool {
    a.len() == b.len() && b.is_file()
}

/// Writes `run` without its control characters but TAB, LF and CR.
fn write_without_controls(out: &mut impl Write, run: &str) -> std::io::Result<()> {
    let mut start = 0;
    for (i, c) in run.char_indices() {
        if is_control(c) && !matches!(c, '\t' | '\n' | '\r') {
            out.write_all(run.get(start..i).unwrap_or_default().as_bytes())?;
            start = i.saturating_add(c.len_utf8());
        }
    }
    out.write_all(run.get(start..).unwrap_or_default().as_bytes())
}

/// `airlock scan`.
pub(crate) fn run(args: &ScanArgs) -> Result<Outcome> {
    if args.fix && args.paths.is_empty() {
        return Err(Error::Usage(
            "scan --fix rewrites files in place: give it paths (standard input cannot be fixed)"
                .to_owned(),
        ));
    }
    let strict = matches!(args.profile, ProfileArg::Strict);
    let mut reporter = Reporter::begin(args.format, strict)?;
    let mut findings = 0u64;
    let mut failed = false;
    if args.paths.is_empty() {
        let input = Input::Stdin;
        let scanned = input.open().and_then(|r| {
            scan_input(&input, r, args.format, strict, &mut |item| {
                Ok(reporter.item(&item)?)
            })
        });
        match scanned {
            Ok(n) => findings = findings.saturating_add(n),
            Err(e @ Error::Write(_)) => return Err(e),
            Err(e) => {
                eprintln!("airlock: {e}");
                failed = true;
            }
        }
    }
    for root in &args.paths {
        for file in walk(root, args.format, args.fix, strict) {
            for item in &file.items {
                reporter.item(item)?;
            }
            for note in &file.notes {
                eprintln!("{note}");
            }
            findings = findings.saturating_add(file.findings);
            failed |= file.failed;
        }
    }
    reporter.end()?;
    Ok(if failed {
        Outcome::Failed
    } else if findings > 0 {
        Outcome::Findings
    } else {
        Outcome::Success
    })
}

/// Scans every file under `root` (honouring ignore files; `.git` skipped; links not
/// followed) on every core, returning the reports sorted by path: the order a
/// sequential walk with sorted directory entries visits them.
fn walk(root: &Path, format: Format, fix: bool, strict: bool) -> Vec<FileReport> {
    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    let reports = Mutex::new(Vec::new());
    let mut builder = ignore::WalkBuilder::new(root);
    builder
        .hidden(false)
        .require_git(false)
        .threads(threads)
        .filter_entry(|e| e.file_name() != ".git");
    builder.build_parallel().run(|| {
        let reports = &reports;
        Box::new(move |entry| {
            let report = match entry {
                Ok(entry) => {
                    let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
                    let is_file = entry.file_type().is_some_and(|t| t.is_file());
                    // A root named on the command line is scanned even when it is a
                    // link (and --fix then refuses it); links met while walking are not.
                    if is_dir || (!is_file && entry.depth() > 0) {
                        return ignore::WalkState::Continue;
                    }
                    // Walking "." names files "./x"; show them as "x".
                    let path = entry.path();
                    let path = path.strip_prefix("./").unwrap_or(path);
                    scan_file(path, format, fix, strict)
                }
                Err(e) => FileReport {
                    path: error_path(&e).unwrap_or_else(|| root.to_path_buf()),
                    items: Vec::new(),
                    findings: 0,
                    notes: vec![format!("airlock: {e}")],
                    failed: true,
                },
            };
            match reports.lock() {
                Ok(mut all) => all.push(report),
                // A worker panicked holding the lock: the walk fails closed below.
                Err(poisoned) => poisoned.into_inner().push(report),
            }
            ignore::WalkState::Continue
        })
    });
    let mut reports = reports.into_inner().unwrap_or_else(|p| p.into_inner());
    // Component-wise order: a directory's files come right after its name.
    reports.sort_by(|a, b| a.path.cmp(&b.path));
    reports
}

/// The path an error of the walk is about, if it names one.
fn error_path(e: &ignore::Error) -> Option<PathBuf> {
    match e {
        ignore::Error::WithPath { path, .. } => Some(path.clone()),
        ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => {
            error_path(err)
        }
        _ => None,
    }
}
