//! Inputs, outputs and the errors every command shares.
//!
//! Input is read in [`CHUNK`]-byte chunks and validated as UTF-8 once, by core's
//! chunk decoder ([`airlock_core::utf8::validate_chunk`], SIMD where the CPU has
//! it), before any of it reaches a command, so a command only ever sees whole code
//! points and never writes anything derived from a chunk that holds invalid UTF-8.
//! Commands that feed one of core's streams read raw chunks ([`RawChunks`]) and let
//! the stream's decoder (the same code) validate them.

use std::fmt;
use std::fs::File;
use std::io::{self, Read, Seek, Write};
#[cfg(unix)]
use std::os::fd::AsFd;
use std::path::{Path, PathBuf};

/// Bytes read at a time.
pub(crate) const CHUNK: usize = 64 * 1024;

/// Bytes read at a time by the raw readers that feed core's streams: larger reads,
/// fewer system calls, still well inside the L2 cache.
pub(crate) const RAW_CHUNK: usize = 256 * 1024;

/// Why a command could not do its work (exit 2).
#[derive(Debug)]
pub(crate) enum Error {
    /// Arguments that make no sense together.
    Usage(String),
    /// An input could not be opened or read.
    Read { name: String, source: io::Error },
    /// An input is not UTF-8.
    Utf8 { name: String, offset: u64 },
    /// Standard output could not be written.
    Write(io::Error),
    /// Anything else, already worded.
    Other(String),
}

impl Error {
    /// A closed stdout pipe: the reader went away, which is not a failure.
    pub(crate) fn is_broken_pipe(&self) -> bool {
        matches!(self, Error::Write(e) if e.kind() == io::ErrorKind::BrokenPipe)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Usage(msg) | Error::Other(msg) => f.write_str(msg),
            Error::Read { name, source } => write!(f, "{name}: {source}"),
            Error::Utf8 { name, offset } => {
                write!(f, "{name}: invalid UTF-8 at byte offset {offset}")
            }
            Error::Write(e) => write!(f, "<stdout>: {e}"),
        }
    }
}

impl From<io::Error> for Error {
    /// Only for writes to standard output; reads carry their input's name.
    fn from(e: io::Error) -> Self {
        Error::Write(e)
    }
}

/// The result of a command.
pub(crate) type Result<T> = std::result::Result<T, Error>;

/// A named input: a file, or standard input.
#[derive(Clone, Debug)]
pub(crate) enum Input {
    Stdin,
    File(PathBuf),
}

impl Input {
    /// `FILE` or stdin when absent or `-`.
    pub(crate) fn from_arg(path: Option<&Path>) -> Input {
        match path {
            Some(p) if p != Path::new("-") => Input::File(p.to_path_buf()),
            _ => Input::Stdin,
        }
    }

    /// The name used in messages.
    pub(crate) fn name(&self) -> String {
        match self {
            Input::Stdin => "<stdin>".to_owned(),
            Input::File(p) => p.display().to_string(),
        }
    }

    /// Opens the input for reading.
    pub(crate) fn open(&self) -> Result<Box<dyn Read>> {
        match self {
            Input::Stdin => Ok(Box::new(io::stdin().lock())),
            Input::File(p) => File::open(p)
                .map(|f| Box::new(f) as Box<dyn Read>)
                .map_err(|source| self.read_error(source)),
        }
    }

    /// A read error on this input.
    pub(crate) fn read_error(&self, source: io::Error) -> Error {
        Error::Read {
            name: self.name(),
            source,
        }
    }

    /// The whole input as text (for commands that need all of it at once).
    pub(crate) fn read_text(&self) -> Result<String> {
        into_text(self.read_bytes()?, &self.name())
    }

    /// The whole input's bytes, unvalidated.
    pub(crate) fn read_bytes(&self) -> Result<Vec<u8>> {
        let mut bytes = Vec::new();
        self.open()?
            .read_to_end(&mut bytes)
            .map_err(|e| self.read_error(e))?;
        Ok(bytes)
    }
}

/// `bytes` as a `String`, or the offset of the first invalid sequence. One pass:
/// std's validator (an owned `String` cannot take core's verdict without `unsafe`);
/// for small inputs (values, rule files). Large inputs borrow with [`text_of`].
pub(crate) fn into_text(bytes: Vec<u8>, name: &str) -> Result<String> {
    String::from_utf8(bytes).map_err(|e| Error::Utf8 {
        name: name.to_owned(),
        offset: e.utf8_error().valid_up_to() as u64,
    })
}

/// `bytes` as text, validated once by core (SIMD where the CPU has it).
pub(crate) fn text_of<'b>(bytes: &'b [u8], name: &str) -> Result<&'b str> {
    airlock_core::utf8::validate(bytes).map_err(|e| Error::Utf8 {
        name: name.to_owned(),
        offset: e.offset() as u64,
    })
}

/// An input that can be read again from where it started: a named regular file, or
/// standard input redirected from one (not a pipe, terminal or socket).
pub(crate) struct Rereadable {
    file: File,
    start: u64,
}

impl Rereadable {
    /// A temporary file holding a copy of the input (a spool), from its start.
    pub(crate) fn spool(file: File) -> Rereadable {
        Rereadable { file, start: 0 }
    }

    /// A reader from where the input started.
    pub(crate) fn reader(&mut self) -> io::Result<Box<dyn Read>> {
        self.file.seek(io::SeekFrom::Start(self.start))?;
        Ok(Box::new(self.file.try_clone()?))
    }
}

impl Input {
    /// The input as a [`Rereadable`] file, when it is one; to be called before the
    /// input is first read.
    pub(crate) fn rereadable(&self) -> Result<Option<Rereadable>> {
        let file = match self {
            Input::File(p) => File::open(p).map_err(|e| self.read_error(e))?,
            #[cfg(unix)]
            Input::Stdin => {
                let Ok(fd) = io::stdin().as_fd().try_clone_to_owned() else {
                    return Ok(None);
                };
                File::from(fd)
            }
            #[cfg(not(unix))]
            Input::Stdin => return Ok(None),
        };
        if !file.metadata().is_ok_and(|m| m.is_file()) {
            return Ok(None);
        }
        let mut file = file;
        let Ok(start) = file.stream_position() else {
            return Ok(None);
        };
        Ok(Some(Rereadable { file, start }))
    }
}

/// Reads an input in raw chunks (for core's streams, which validate as they go).
pub(crate) struct RawChunks {
    input: Input,
    reader: Box<dyn Read>,
    buf: Box<[u8]>,
    /// Where the page-aligned [`RAW_CHUNK`] bytes of `buf` start.
    start: usize,
}

/// Alignment of the raw readers' buffer: the kernel copies a read into a page-aligned
/// buffer faster than into one 16 bytes past a page (what a large allocation gets).
const PAGE: usize = 4096;

impl RawChunks {
    /// Opens `input`.
    pub(crate) fn open(input: &Input) -> Result<RawChunks> {
        Ok(RawChunks::from_reader(input, input.open()?))
    }

    /// Reads `input` through `reader`, already open.
    pub(crate) fn from_reader(input: &Input, reader: Box<dyn Read>) -> RawChunks {
        let buf = vec![0u8; RAW_CHUNK.saturating_add(PAGE)].into_boxed_slice();
        // The address only picks the offset; no pointer is made from it.
        let misaligned = (buf.as_ptr() as usize) % PAGE;
        RawChunks {
            input: input.clone(),
            reader,
            buf,
            start: PAGE.saturating_sub(misaligned) % PAGE,
        }
    }

    /// The next chunk (never empty), or `None` at the end of the input. Fills the
    /// buffer unless the input ends first, so chunks are large even from a pipe.
    pub(crate) fn next_chunk(&mut self) -> Result<Option<&[u8]>> {
        let end = self.start.saturating_add(RAW_CHUNK);
        let buf = self.buf.get_mut(self.start..end).unwrap_or_default();
        let len = fill(&mut *self.reader, buf, 0).map_err(|e| self.input.read_error(e))?;
        Ok(buf.get(..len.filled).filter(|c| !c.is_empty()))
    }

    /// A UTF-8 error at stream offset `offset` of this input.
    pub(crate) fn utf8_error(&self, offset: usize) -> Error {
        Error::Utf8 {
            name: self.input.name(),
            offset: offset as u64,
        }
    }
}

/// How far [`fill`] got.
struct Filled {
    /// Bytes of the buffer holding data.
    filled: usize,
    /// The input ended.
    eof: bool,
}

/// Reads into `buf[from..]` until it is full or the input ends.
fn fill(reader: &mut dyn Read, buf: &mut [u8], from: usize) -> io::Result<Filled> {
    let mut end = from;
    while let Some(dst) = buf.get_mut(end..).filter(|d| !d.is_empty()) {
        match reader.read(dst) {
            Ok(0) => {
                return Ok(Filled {
                    filled: end,
                    eof: true,
                });
            }
            Ok(n) => end = end.saturating_add(n),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(Filled {
        filled: end,
        eof: false,
    })
}

/// Reads an input in chunks of whole, validated code points, in constant memory.
pub(crate) struct TextChunks {
    input: Input,
    reader: Box<dyn Read>,
    buf: Box<[u8]>,
    /// Bytes at `buf[start..end]` not yet handed out (an incomplete code point).
    start: usize,
    end: usize,
    /// Stream offset of `buf[start]`.
    offset: u64,
    eof: bool,
}

impl TextChunks {
    /// Opens `input`.
    pub(crate) fn open(input: &Input) -> Result<TextChunks> {
        Ok(TextChunks::from_reader(input, input.open()?))
    }

    /// Reads `input` through `reader`, already open.
    pub(crate) fn from_reader(input: &Input, reader: Box<dyn Read>) -> TextChunks {
        TextChunks {
            input: input.clone(),
            reader,
            buf: vec![0u8; CHUNK].into_boxed_slice(),
            start: 0,
            end: 0,
            offset: 0,
            eof: false,
        }
    }

    /// Bytes of the input handed out so far.
    pub(crate) fn position(&self) -> u64 {
        self.offset
    }

    /// The next piece of text (never empty), or `None` at the end of the input.
    pub(crate) fn next_piece(&mut self) -> Result<Option<&str>> {
        // Move the carried incomplete code point (at most 3 bytes) to the front.
        let carried = self.end.saturating_sub(self.start);
        self.buf.copy_within(self.start..self.end, 0);
        self.start = 0;
        self.end = carried;
        if self.eof {
            if carried > 0 {
                return Err(self.utf8_error(0));
            }
            return Ok(None);
        }
        let filled = fill(&mut *self.reader, &mut self.buf, self.end)
            .map_err(|e| self.input.read_error(e))?;
        self.end = filled.filled;
        self.eof = filled.eof;
        let data = self.buf.get(..self.end).unwrap_or_default();
        // Core's chunk decoder: whole code points, each byte validated once; an
        // incomplete code point at the very end waits for the next read. Unless the
        // input ended, the buffer is full (more than 3 bytes), so the piece is empty
        // only at the end of the input.
        match airlock_core::utf8::validate_chunk(data) {
            Ok(piece) if self.eof && piece.len() < data.len() => {
                let at = piece.len();
                Err(self.utf8_error(at))
            }
            Ok("") => Ok(None),
            Ok(piece) => {
                self.start = piece.len();
                self.offset = self.offset.saturating_add(piece.len() as u64);
                Ok(Some(piece))
            }
            Err(e) => {
                let at = e.offset();
                Err(self.utf8_error(at))
            }
        }
    }

    fn utf8_error(&self, at: usize) -> Error {
        Error::Utf8 {
            name: self.input.name(),
            offset: self.offset.saturating_add(at as u64),
        }
    }
}

/// Buffered standard output.
pub(crate) fn stdout() -> io::BufWriter<io::StdoutLock<'static>> {
    io::BufWriter::with_capacity(CHUNK, io::stdout().lock())
}

/// Writes `text` to stdout in one go and flushes.
pub(crate) fn print(text: &str) -> Result<()> {
    let mut out = stdout();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(())
}
