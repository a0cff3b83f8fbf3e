//! `airlock scan`: the repository linter.
//!
//! Reports every dangerous invisible (SPEC §2), orphan variation selector and control
//! character other than TAB, LF and CR, with path, line, column (in code points, from
//! 1), byte offset (from 0), `U+XXXX` and name. A run of Tag-block code points is one
//! finding that spells out the ASCII it hides. Bidi embeddings, overrides and isolates
//! are also checked for pairing within their paragraph (line): an opener never closed,
//! or a closer with nothing to close, is an extra finding. Input streams through in
//! constant memory and findings are written as they are found, in every format.

use std::fmt::Write as _;
use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use airlock_core::reject::CodePoint;
use airlock_core::{StripStream, is_control, is_dangerous_invisible, is_orphan_selector};
use clap::{Args, ValueEnum};

use crate::Outcome;
use crate::io::{self, Error, Input, Result, TextChunks};
use crate::json;
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
    /// Files and directories (walked honouring .gitignore); standard input when none.
    paths: Vec<PathBuf>,
}

/// Files with a NUL in their first bytes are binary and skipped.
const BINARY_SNIFF: usize = 8 * 1024;
/// Most hidden Tag-block characters a finding spells out (the count stays exact).
const MAX_HIDDEN: usize = 256;
/// Deepest bidi nesting tracked, as UAX #9's `max_depth`; deeper openers are reported.
const MAX_BIDI_DEPTH: usize = 125;

/// What a finding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Invisible,
    TagRun,
    OrphanSelector,
    Control,
    UnpairedBidi,
}

impl Kind {
    const ALL: [Kind; 5] = [
        Kind::Invisible,
        Kind::TagRun,
        Kind::OrphanSelector,
        Kind::Control,
        Kind::UnpairedBidi,
    ];

    fn index(self) -> usize {
        self as usize
    }

    fn rule_id(self) -> &'static str {
        match self {
            Kind::Invisible => "AIRLOCK001",
            Kind::TagRun => "AIRLOCK002",
            Kind::OrphanSelector => "AIRLOCK003",
            Kind::Control => "AIRLOCK004",
            Kind::UnpairedBidi => "AIRLOCK005",
        }
    }

    fn slug(self) -> &'static str {
        match self {
            Kind::Invisible => "dangerous-invisible",
            Kind::TagRun => "tag-run",
            Kind::OrphanSelector => "orphan-variation-selector",
            Kind::Control => "control-character",
            Kind::UnpairedBidi => "unpaired-bidi",
        }
    }

    fn rule_name(self) -> &'static str {
        match self {
            Kind::Invisible => "DangerousInvisible",
            Kind::TagRun => "HiddenTagText",
            Kind::OrphanSelector => "OrphanVariationSelector",
            Kind::Control => "ControlCharacter",
            Kind::UnpairedBidi => "UnpairedBidiControl",
        }
    }

    fn description(self) -> &'static str {
        match self {
            Kind::Invisible => {
                "A dangerous invisible code point: invisible to a reviewer, text to a model."
            }
            Kind::TagRun => "Tag-block code points spell hidden ASCII text (ASCII smuggling).",
            Kind::OrphanSelector => {
                "A variation selector with nothing to select (not after an emoji)."
            }
            Kind::Control => "A control character other than TAB, LF and CR.",
            Kind::UnpairedBidi => {
                "A bidi embedding, override or isolate not closed on its line, or a closer with nothing to close (Trojan Source)."
            }
        }
    }
}

/// Where a finding starts.
#[derive(Clone, Copy, Debug)]
struct Pos {
    line: u64,
    column: u64,
    byte: u64,
}

/// One finding.
struct Finding<'a> {
    path: &'a str,
    pos: Pos,
    c: char,
    kind: Kind,
    /// Bytes covered (a Tag run covers all its code points).
    len: u64,
    /// For a Tag run: how many code points and the ASCII they spell.
    run: Option<(u64, &'a str)>,
    /// For unpaired bidi: whether it is an opener left open (else a stray closer).
    unclosed: bool,
}

impl Finding<'_> {
    fn name(&self) -> String {
        names::name(self.c).map_or_else(|| "<unnamed>".to_owned(), |n| n.into_owned())
    }

    fn message(&self) -> String {
        match self.kind {
            Kind::Invisible => "dangerous invisible".to_owned(),
            Kind::OrphanSelector => "orphan variation selector".to_owned(),
            Kind::Control => "control character".to_owned(),
            Kind::TagRun => {
                let (count, hidden) = self.run.unwrap_or((1, ""));
                format!(
                    "Tag-block run of {count} code point{} hiding {}",
                    if count == 1 { "" } else { "s" },
                    json::string(hidden)
                )
            }
            Kind::UnpairedBidi if self.unclosed => {
                let closer = if is_isolate(self.c) {
                    "U+2069"
                } else {
                    "U+202C"
                };
                format!("unpaired bidi control: not closed by {closer} on its line")
            }
            Kind::UnpairedBidi => "unpaired bidi control: closes nothing".to_owned(),
        }
    }
}

fn is_isolate(c: char) -> bool {
    matches!(c, '\u{2066}'..='\u{2068}')
}

/// A Tag-block run being collected.
struct TagRun {
    pos: Pos,
    first: char,
    count: u64,
    /// Stream offset just after the run.
    end: u64,
    hidden: String,
}

/// The pairing state of bidi openers in the current paragraph.
#[derive(Clone, Copy)]
struct Opener {
    pos: Pos,
    c: char,
}

/// Writes findings in the chosen format, as they come.
struct Reporter {
    format: Format,
    out: std::io::BufWriter<std::io::StdoutLock<'static>>,
    count: u64,
}

impl Reporter {
    fn begin(format: Format) -> Result<Reporter> {
        let mut out = io::stdout();
        match format {
            Format::Human => {}
            Format::Json => out.write_all(b"[")?,
            Format::Sarif => {
                let mut rules = Vec::new();
                for kind in Kind::ALL {
                    rules.push(format!(
                        "{{\"id\":\"{}\",\"name\":\"{}\",\"shortDescription\":{{\"text\":{}}},\"defaultConfiguration\":{{\"level\":\"error\"}}}}",
                        kind.rule_id(),
                        kind.rule_name(),
                        json::string(kind.description())
                    ));
                }
                write!(
                    out,
                    "{{\"$schema\":\"https://json.schemastore.org/sarif-2.1.0.json\",\"version\":\"2.1.0\",\"runs\":[{{\"tool\":{{\"driver\":{{\"name\":\"airlock\",\"version\":\"{v}\",\"semanticVersion\":\"{v}\",\"informationUri\":\"https://example.invalid/airlock\",\"rules\":[\n{}\n]}}}},\"columnKind\":\"unicodeCodePoints\",\"results\":[",
                    rules.join(",\n"),
                    v = env!("CARGO_PKG_VERSION"),
                )?;
            }
        }
        Ok(Reporter {
            format,
            out,
            count: 0,
        })
    }

    fn report(&mut self, f: &Finding<'_>) -> std::io::Result<()> {
        let first = self.count == 0;
        self.count = self.count.saturating_add(1);
        let sep = if first { "\n" } else { ",\n" };
        match self.format {
            Format::Human => writeln!(
                self.out,
                "{}:{}:{}: {} {}: {} (byte {})",
                f.path,
                f.pos.line,
                f.pos.column,
                CodePoint(f.c),
                f.name(),
                f.message(),
                f.pos.byte
            ),
            Format::Json => {
                let mut obj = format!(
                    "{{\"path\":{},\"line\":{},\"column\":{},\"byte\":{},\"codepoint\":\"{}\",\"name\":{},\"kind\":\"{}\",\"message\":{}",
                    json::string(f.path),
                    f.pos.line,
                    f.pos.column,
                    f.pos.byte,
                    CodePoint(f.c),
                    json::string(&f.name()),
                    f.kind.slug(),
                    json::string(&f.message())
                );
                if let Some((count, hidden)) = f.run {
                    let _ = write!(
                        obj,
                        ",\"length\":{count},\"hidden\":{}",
                        json::string(hidden)
                    );
                }
                write!(self.out, "{sep}{obj}}}")
            }
            Format::Sarif => write!(
                self.out,
                "{sep}{{\"ruleId\":\"{}\",\"ruleIndex\":{},\"level\":\"error\",\"message\":{{\"text\":{}}},\"locations\":[{{\"physicalLocation\":{{\"artifactLocation\":{{\"uri\":{}}},\"region\":{{\"startLine\":{},\"startColumn\":{},\"byteOffset\":{},\"byteLength\":{}}}}}}}]}}",
                f.kind.rule_id(),
                f.kind.index(),
                json::string(&format!("{} {}: {}", CodePoint(f.c), f.name(), f.message())),
                json::string(&uri(f.path)),
                f.pos.line,
                f.pos.column,
                f.pos.byte,
                f.len
            ),
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

/// The scanning state of one input.
struct Scanner<'p> {
    path: &'p str,
    /// Stream offset of the current piece.
    offset: u64,
    line: u64,
    /// Code points of the current line before the counting position.
    col: u64,
    /// The last code point of the previous piece.
    prev: Option<char>,
    tag: Option<TagRun>,
    bidi: Vec<Opener>,
    findings: u64,
}

/// Lead bytes of every code point scan may report, and the line ends.
const fn needs_look(b: u8) -> bool {
    matches!(
        b,
        0x00..=0x1F | 0x7F | 0xC2 | 0xE1 | 0xE2 | 0xE3 | 0xEF | 0xF3
    )
}

/// Code points in `bytes` (which start and end on boundaries).
fn count_chars(bytes: &[u8]) -> u64 {
    bytes.iter().filter(|&&b| (b as i8) >= -0x40).count() as u64
}

impl<'p> Scanner<'p> {
    fn new(path: &'p str) -> Self {
        Scanner {
            path,
            offset: 0,
            line: 1,
            col: 0,
            prev: None,
            tag: None,
            bidi: Vec::new(),
            findings: 0,
        }
    }

    fn emit(
        &mut self,
        report: &mut dyn FnMut(&Finding<'_>) -> std::io::Result<()>,
        pos: Pos,
        c: char,
        kind: Kind,
        unclosed: bool,
    ) -> std::io::Result<()> {
        self.findings = self.findings.saturating_add(1);
        report(&Finding {
            path: self.path,
            pos,
            c,
            kind,
            len: c.len_utf8() as u64,
            run: None,
            unclosed,
        })
    }

    fn flush_tag(
        &mut self,
        report: &mut dyn FnMut(&Finding<'_>) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        let Some(run) = self.tag.take() else {
            return Ok(());
        };
        self.findings = self.findings.saturating_add(1);
        report(&Finding {
            path: self.path,
            pos: run.pos,
            c: run.first,
            kind: Kind::TagRun,
            len: run.count.saturating_mul(4),
            run: Some((run.count, &run.hidden)),
            unclosed: false,
        })
    }

    /// The end of a bidi paragraph: every opener still open is unpaired.
    fn paragraph_end(
        &mut self,
        report: &mut dyn FnMut(&Finding<'_>) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        let open = std::mem::take(&mut self.bidi);
        for o in open {
            self.emit(report, o.pos, o.c, Kind::UnpairedBidi, true)?;
        }
        Ok(())
    }

    fn bidi(
        &mut self,
        report: &mut dyn FnMut(&Finding<'_>) -> std::io::Result<()>,
        pos: Pos,
        c: char,
    ) -> std::io::Result<()> {
        match c {
            '\u{202A}' | '\u{202B}' | '\u{202D}' | '\u{202E}' | '\u{2066}'..='\u{2068}' => {
                if self.bidi.len() < MAX_BIDI_DEPTH {
                    self.bidi.push(Opener { pos, c });
                } else {
                    self.emit(report, pos, c, Kind::UnpairedBidi, true)?;
                }
            }
            '\u{202C}' => {
                // PDF closes the innermost embedding, never across an isolate.
                if self.bidi.last().is_some_and(|o| !is_isolate(o.c)) {
                    self.bidi.pop();
                } else {
                    self.emit(report, pos, c, Kind::UnpairedBidi, false)?;
                }
            }
            '\u{2069}' => {
                // PDI closes the innermost isolate and the embeddings opened inside it,
                // which were themselves never closed.
                if let Some(i) = self.bidi.iter().rposition(|o| is_isolate(o.c)) {
                    let inner = self.bidi.split_off(i);
                    for o in inner.iter().skip(1) {
                        self.emit(report, o.pos, o.c, Kind::UnpairedBidi, true)?;
                    }
                } else {
                    self.emit(report, pos, c, Kind::UnpairedBidi, false)?;
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn feed(
        &mut self,
        piece: &str,
        report: &mut dyn FnMut(&Finding<'_>) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        let bytes = piece.as_bytes();
        let mut col_pos = 0;
        let mut at = 0;
        while at < bytes.len() {
            match bytes
                .get(at..)
                .and_then(|rest| rest.iter().position(|&b| needs_look(b)))
            {
                Some(i) => at = at.saturating_add(i),
                None => break,
            }
            let Some(c) = piece.get(at..).and_then(|s| s.chars().next()) else {
                break;
            };
            self.col = self
                .col
                .saturating_add(count_chars(bytes.get(col_pos..at).unwrap_or_default()));
            let pos = Pos {
                line: self.line,
                column: self.col.saturating_add(1),
                byte: self.offset.saturating_add(at as u64),
            };
            let prev = if at == 0 {
                self.prev
            } else {
                piece.get(..at).and_then(|s| s.chars().next_back())
            };
            let is_tag = matches!(c, '\u{E0000}'..='\u{E007F}');
            if self
                .tag
                .as_ref()
                .is_some_and(|run| !is_tag || run.end != pos.byte)
            {
                self.flush_tag(report)?;
            }
            let width = c.len_utf8();
            let next = at.saturating_add(width);
            if matches!(c, '\n' | '\r' | '\u{1C}'..='\u{1E}' | '\u{85}' | '\u{2029}') {
                self.paragraph_end(report)?;
            }
            if c == '\n' {
                self.line = self.line.saturating_add(1);
                self.col = 0;
                col_pos = next;
                at = next;
                continue;
            }
            if is_tag {
                let end = pos.byte.saturating_add(width as u64);
                let run = self.tag.get_or_insert_with(|| TagRun {
                    pos,
                    first: c,
                    count: 0,
                    end,
                    hidden: String::new(),
                });
                run.count = run.count.saturating_add(1);
                run.end = end;
                if let Some(a) = names::tag_ascii(c)
                    && run.hidden.len() < MAX_HIDDEN
                {
                    run.hidden.push(a);
                }
            } else if is_control(c) {
                if !matches!(c, '\t' | '\r') {
                    self.emit(report, pos, c, Kind::Control, false)?;
                }
            } else if is_dangerous_invisible(c) {
                self.emit(report, pos, c, Kind::Invisible, false)?;
                self.bidi(report, pos, c)?;
            } else if is_orphan_selector(c, prev) {
                self.emit(report, pos, c, Kind::OrphanSelector, false)?;
            }
            self.col = self.col.saturating_add(1);
            col_pos = next;
            at = next;
        }
        self.col = self
            .col
            .saturating_add(count_chars(bytes.get(col_pos..).unwrap_or_default()));
        if let Some(last) = piece.chars().next_back() {
            self.prev = Some(last);
        }
        self.offset = self.offset.saturating_add(bytes.len() as u64);
        Ok(())
    }

    fn finish(
        &mut self,
        report: &mut dyn FnMut(&Finding<'_>) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        self.flush_tag(report)?;
        self.paragraph_end(report)
    }
}

/// Scans one input, writing its findings; returns how many.
fn scan_input(input: &Input, reader: Box<dyn Read>, reporter: &mut Reporter) -> Result<u64> {
    let name = input.name();
    let mut chunks = TextChunks::from_reader(input, reader);
    let mut scanner = Scanner::new(&name);
    let mut written = Ok(());
    let mut report = |f: &Finding<'_>| reporter.report(f);
    while let Some(piece) = chunks.next_piece()? {
        written = scanner.feed(piece, &mut report);
        if written.is_err() {
            break;
        }
    }
    written?;
    scanner.finish(&mut report)?;
    Ok(scanner.findings)
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

/// Rewrites `path` without what scan reports: what `strip` removes and the controls
/// but TAB, LF and CR. The new text goes to a temporary file beside it, which gets
/// the file's owner, group and mode (less setuid and setgid) and is renamed over it
/// only once the whole file was read and found valid, so a failure leaves the file
/// untouched. Symbolic links, hard-linked files and anything but a regular file are
/// refused: rewriting them would change another file, or split the links.
fn fix_file(input: &Input, path: &Path) -> Result<()> {
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
    let mut stream = StripStream::new();
    while let Some(piece) = chunks.next_piece()? {
        let mut written = Ok(());
        stream
            .feed(piece.as_bytes(), |run| {
                if written.is_ok() {
                    written = write_without_controls(&mut out, run);
                }
            })
            .map_err(|e| Error::Other(e.to_string()))?;
        written.map_err(fix_error)?;
    }
    stream.finish().map_err(|e| Error::Other(e.to_string()))?;
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
    let mut reporter = Reporter::begin(args.format)?;
    let mut findings = 0u64;
    let mut failed = false;
    let mut fail = |e: Error| -> Result<()> {
        if matches!(e, Error::Write(_)) {
            return Err(e);
        }
        eprintln!("airlock: {e}");
        failed = true;
        Ok(())
    };
    if args.paths.is_empty() {
        let input = Input::Stdin;
        match input
            .open()
            .and_then(|r| scan_input(&input, r, &mut reporter))
        {
            Ok(n) => findings = findings.saturating_add(n),
            Err(e) => fail(e)?,
        }
    } else {
        let mut paths = args.paths.iter();
        let mut walk = ignore::WalkBuilder::new(paths.next().map_or(Path::new("."), |p| p));
        for p in paths {
            walk.add(p);
        }
        walk.hidden(false)
            .require_git(false)
            .sort_by_file_name(|a, b| a.cmp(b))
            .filter_entry(|e| e.file_name() != ".git");
        for entry in walk.build() {
            let entry = match entry {
                Ok(entry) => entry,
                Err(e) => {
                    fail(Error::Other(e.to_string()))?;
                    continue;
                }
            };
            if !entry.file_type().is_some_and(|t| t.is_file()) && entry.depth() > 0 {
                continue;
            }
            if entry.file_type().is_some_and(|t| t.is_dir()) {
                continue;
            }
            // Walking "." names files "./x"; show them as "x".
            let path = entry.path();
            let path = path.strip_prefix("./").unwrap_or(path);
            let input = Input::File(path.to_path_buf());
            let scanned = open_text_file(&input, path).and_then(|reader| match reader {
                Some(r) => scan_input(&input, r, &mut reporter),
                None => Ok(0),
            });
            match scanned {
                Ok(n) => {
                    findings = findings.saturating_add(n);
                    if n > 0 && args.fix {
                        match fix_file(&input, path) {
                            // Which files were rewritten, on stderr: stdout is the report.
                            Ok(()) => eprintln!("airlock: fixed {}", input.name()),
                            Err(e) => fail(e)?,
                        }
                    }
                }
                Err(e) => fail(e)?,
            }
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
