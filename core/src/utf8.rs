//! UTF-8 at the byte-level entry points: validation with the offset of the first bad
//! byte, and a chunk decoder for streams that split code points anywhere.

use core::fmt;

/// Invalid UTF-8: the byte offset where the first invalid sequence starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Utf8Error {
    offset: usize,
}

impl Utf8Error {
    /// The byte offset (from the start of the whole input) of the first invalid sequence.
    pub const fn offset(&self) -> usize {
        self.offset
    }
}

impl fmt::Display for Utf8Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid UTF-8 at byte offset {}", self.offset)
    }
}

impl core::error::Error for Utf8Error {}

/// `bytes` as text, or the offset of its first invalid sequence.
pub fn validate(bytes: &[u8]) -> Result<&str, Utf8Error> {
    validate_on(crate::Backend::best(), bytes)
}

/// [`validate`] on a given backend.
#[doc(hidden)]
pub fn validate_on(backend: crate::Backend, bytes: &[u8]) -> Result<&str, Utf8Error> {
    backend.to_str(bytes).map_err(|e| Utf8Error {
        offset: e.valid_up_to(),
    })
}

/// Decodes a stream of byte chunks into whole-code-point text pieces. A code point
/// split across chunks is carried (at most three bytes) until it completes.
#[derive(Clone, Debug, Default)]
pub struct Utf8Stream {
    carry: [u8; 4],
    carry_len: usize,
    /// Bytes of the stream before the current chunk.
    consumed: usize,
}

impl Utf8Stream {
    /// A decoder at the start of a stream.
    pub const fn new() -> Self {
        Utf8Stream {
            carry: [0; 4],
            carry_len: 0,
            consumed: 0,
        }
    }

    /// Total bytes fed so far.
    pub const fn position(&self) -> usize {
        self.consumed
    }

    /// Decodes `chunk`, handing each complete piece of text to `piece` in order.
    /// On invalid UTF-8 the pieces before the error have been handed over and the
    /// stream must not be fed again.
    pub fn feed(&mut self, chunk: &[u8], mut piece: impl FnMut(&str)) -> Result<(), Utf8Error> {
        let mut rest = chunk;
        let mut base = self.consumed;
        if self.carry_len > 0 {
            let carry_start = base.saturating_sub(self.carry_len);
            let lead = self.carry.first().copied().unwrap_or(0);
            let need = sequence_len(lead);
            while self.carry_len < need {
                let Some((&b, tail)) = rest.split_first() else {
                    self.consumed = base;
                    return Ok(());
                };
                if let Some(slot) = self.carry.get_mut(self.carry_len) {
                    *slot = b;
                }
                self.carry_len = self.carry_len.saturating_add(1);
                rest = tail;
                base = base.saturating_add(1);
                let so_far = self.carry.get(..self.carry_len).unwrap_or_default();
                if let Err(e) = core::str::from_utf8(so_far)
                    && e.error_len().is_some()
                {
                    return Err(Utf8Error {
                        offset: carry_start,
                    });
                }
            }
            let whole = self.carry.get(..self.carry_len).unwrap_or_default();
            match core::str::from_utf8(whole) {
                Ok(s) => piece(s),
                Err(_) => {
                    return Err(Utf8Error {
                        offset: carry_start,
                    });
                }
            }
            self.carry_len = 0;
        }
        match core::str::from_utf8(rest) {
            Ok(s) => {
                if !s.is_empty() {
                    piece(s);
                }
            }
            Err(e) => {
                let (valid, tail) = rest.split_at(e.valid_up_to());
                if !valid.is_empty() {
                    // Infallible: `valid_up_to` bytes are valid UTF-8.
                    piece(core::str::from_utf8(valid).unwrap_or_default());
                }
                if e.error_len().is_some() || tail.len() > 3 {
                    return Err(Utf8Error {
                        offset: base.saturating_add(e.valid_up_to()),
                    });
                }
                for (slot, &b) in self.carry.iter_mut().zip(tail) {
                    *slot = b;
                }
                self.carry_len = tail.len();
            }
        }
        self.consumed = base.saturating_add(rest.len());
        Ok(())
    }

    /// Ends the stream: a code point still incomplete is an error at its start.
    pub fn finish(&self) -> Result<(), Utf8Error> {
        if self.carry_len == 0 {
            Ok(())
        } else {
            Err(Utf8Error {
                offset: self.consumed.saturating_sub(self.carry_len),
            })
        }
    }
}

/// The length of the sequence a lead byte announces (1 for anything invalid, so the
/// validator reports it).
const fn sequence_len(lead: u8) -> usize {
    match lead {
        0xC2..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF4 => 4,
        _ => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::string::String;
    use std::vec::Vec;

    fn decode_in_chunks(bytes: &[u8], size: usize) -> Result<String, Utf8Error> {
        let mut stream = Utf8Stream::new();
        let mut out = String::new();
        for chunk in bytes.chunks(size.max(1)) {
            stream.feed(chunk, |s| out.push_str(s))?;
        }
        stream.finish()?;
        Ok(out)
    }

    #[test]
    fn every_chunking_matches_one_shot() {
        let text = "a€😀b\u{E0061}ü";
        for size in 1..=text.len() {
            assert_eq!(decode_in_chunks(text.as_bytes(), size).unwrap(), text);
        }
    }

    #[test]
    fn offsets_agree_with_one_shot_validation() {
        let cases: [&[u8]; 6] = [
            b"ab\xFFcd",
            b"a\xE2\x82",
            b"\xE2\x82X",
            b"ok\xF0\x9F\x98",
            b"\xC0\x80",
            b"abc\xED\xA0\x80",
        ];
        for bytes in cases {
            let expected = validate(bytes).unwrap_err().offset();
            for size in 1..=bytes.len() {
                let got = decode_in_chunks(bytes, size).unwrap_err().offset();
                assert_eq!(got, expected, "{bytes:?} size {size}");
            }
        }
        let v: Vec<u8> = Vec::new();
        assert_eq!(decode_in_chunks(&v, 1).unwrap(), "");
    }
}
