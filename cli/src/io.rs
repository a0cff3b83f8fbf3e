//! Inputs, outputs and the errors every command shares.
//!
//! Input is read in [`CHUNK`]-byte chunks and validated as UTF-8 (with `simdutf8`)
//! before any of it reaches a command, so a command only ever sees whole code
//! points and never writes anything derived from a chunk that holds invalid UTF-8.

use std::fmt;
use std::fs::File;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

/// Bytes read at a time.
pub(crate) const CHUNK: usize = 64 * 1024;

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
        let mut bytes = Vec::new();
        self.open()?
            .read_to_end(&mut bytes)
            .map_err(|e| self.read_error(e))?;
        into_text(bytes, &self.name())
    }
}

/// `bytes` as a `String`, or the offset of the first invalid sequence.
pub(crate) fn into_text(bytes: Vec<u8>, name: &str) -> Result<String> {
    // The SIMD validator answers the common (valid) case; the exact offset of an
    // error comes from the slower compatible one.
    if simdutf8::basic::from_utf8(&bytes).is_err() {
        let offset = simdutf8::compat::from_utf8(&bytes)
            .err()
            .map_or(0, |e| e.valid_up_to());
        return Err(Error::Utf8 {
            name: name.to_owned(),
            offset: offset as u64,
        });
    }
    String::from_utf8(bytes).map_err(|e| Error::Utf8 {
        name: name.to_owned(),
        offset: e.utf8_error().valid_up_to() as u64,
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
        loop {
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
            self.fill()?;
            let data = self.buf.get(..self.end).unwrap_or_default();
            let valid = match simdutf8::basic::from_utf8(data) {
                Ok(_) => data.len(),
                Err(_) => match simdutf8::compat::from_utf8(data) {
                    Ok(_) => data.len(),
                    // An incomplete sequence at the very end waits for the next read.
                    Err(e) if e.error_len().is_none() && !self.eof => e.valid_up_to(),
                    Err(e) => return Err(self.utf8_error(e.valid_up_to())),
                },
            };
            if valid == 0 {
                continue;
            }
            self.start = valid;
            self.offset = self.offset.saturating_add(valid as u64);
            let piece = self.buf.get(..valid).unwrap_or_default();
            // Validated just above.
            return Ok(std::str::from_utf8(piece).ok());
        }
    }

    /// Reads until the buffer is full or the input ends.
    fn fill(&mut self) -> Result<()> {
        while self.end < self.buf.len() {
            let Some(dst) = self.buf.get_mut(self.end..) else {
                break;
            };
            match self.reader.read(dst) {
                Ok(0) => {
                    self.eof = true;
                    break;
                }
                Ok(n) => self.end = self.end.saturating_add(n),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(self.input.read_error(e)),
            }
        }
        Ok(())
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
