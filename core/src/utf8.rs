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

/// The chunk step of [`Utf8Stream`], for readers that carry an incomplete end
/// themselves: `bytes` as text up to an incomplete code point at its end (at most
/// three bytes, left out), or the offset of the first invalid sequence. Validates
/// with SIMD where the CPU has it; each byte once.
pub fn validate_chunk(bytes: &[u8]) -> Result<&str, Utf8Error> {
    let head = bytes.get(..complete_len(bytes)).unwrap_or_default();
    validate(head)
}

/// Decodes a stream of byte chunks into whole-code-point text pieces. A code point
/// split across chunks is carried (at most three bytes) until it completes. Each
/// byte is validated once: a chunk's whole code points by the SIMD validator where
/// the CPU has one, a carried code point on its own when it completes.
#[derive(Clone, Debug, Default)]
pub struct Utf8Stream {
    carry: [u8; 4],
    carry_len: usize,
    /// The code point the last chunk completed (handed out as [`Decoded::carried`]).
    whole: [u8; 4],
    /// Bytes of the stream before the current chunk.
    consumed: usize,
}

/// What one chunk decodes to: the code point it completes, carried over from the
/// chunks before, then its own whole code points, then, on invalid UTF-8, where
/// the first invalid sequence starts (the text before it is still handed out).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decoded<'s, 'c> {
    /// The code point split across the previous chunk(s) and this one; empty when
    /// none completed here.
    pub carried: &'s str,
    /// The chunk's whole code points after `carried`, up to the first invalid
    /// sequence; an incomplete code point at its end is carried to the next chunk.
    pub text: &'c str,
    /// The first invalid sequence: the stream must not be fed again.
    pub error: Option<Utf8Error>,
}

impl Utf8Stream {
    /// A decoder at the start of a stream.
    pub const fn new() -> Self {
        Utf8Stream {
            carry: [0; 4],
            carry_len: 0,
            whole: [0; 4],
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
        let decoded = self.decode(chunk);
        if !decoded.carried.is_empty() {
            piece(decoded.carried);
        }
        if !decoded.text.is_empty() {
            piece(decoded.text);
        }
        decoded.error.map_or(Ok(()), Err)
    }

    /// Decodes `chunk`: the pieces of text it completes, borrowed from the decoder
    /// (the carried code point) and from `chunk`.
    pub fn decode<'s, 'c>(&'s mut self, chunk: &'c [u8]) -> Decoded<'s, 'c> {
        self.decode_by(chunk, validate)
    }

    /// [`Utf8Stream::decode`], validating the chunk's whole code points (after the
    /// carried one, before an incomplete end) with `validate`, which must answer as
    /// [`validate`] does: a caller's pass that does more work on the same bytes (the
    /// strip stream's fused validation and scan) while each byte is validated once.
    pub(crate) fn decode_by<'s, 'c>(
        &'s mut self,
        chunk: &'c [u8],
        validate: impl FnOnce(&'c [u8]) -> Result<&'c str, Utf8Error>,
    ) -> Decoded<'s, 'c> {
        let mut rest = chunk;
        let mut base = self.consumed;
        let mut whole_len = 0;
        let failed = |offset| Decoded {
            carried: "",
            text: "",
            error: Some(Utf8Error { offset }),
        };
        if self.carry_len > 0 {
            let carry_start = base.saturating_sub(self.carry_len);
            let lead = self.carry.first().copied().unwrap_or(0);
            let need = sequence_len(lead);
            while self.carry_len < need {
                let Some((&b, tail)) = rest.split_first() else {
                    self.consumed = base;
                    return Decoded {
                        carried: "",
                        text: "",
                        error: None,
                    };
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
                    return failed(carry_start);
                }
            }
            let whole = self.carry.get(..self.carry_len).unwrap_or_default();
            if core::str::from_utf8(whole).is_err() {
                return failed(carry_start);
            }
            self.whole = self.carry;
            whole_len = self.carry_len;
            self.carry_len = 0;
        }
        // An incomplete code point at the end waits for the next chunk, so the SIMD
        // validator sees only whole code points and answers the common case alone.
        let head = rest.get(..complete_len(rest)).unwrap_or_default();
        let (text, error) = match validate(head) {
            Ok(text) => (text, None),
            Err(e) => {
                // The error path only: the valid text before the error, validated
                // again (the stream ends here).
                let valid = rest.get(..e.offset).unwrap_or_default();
                let text = core::str::from_utf8(valid).unwrap_or_default();
                let offset = base.saturating_add(e.offset);
                (text, Some(Utf8Error { offset }))
            }
        };
        let tail = rest.get(text.len()..).unwrap_or_default();
        if error.is_none() {
            for (slot, &b) in self.carry.iter_mut().zip(tail) {
                *slot = b;
            }
            self.carry_len = tail.len();
        }
        self.consumed = base.saturating_add(rest.len());
        let carried = self.whole.get(..whole_len).unwrap_or_default();
        Decoded {
            // Validated when it completed, above.
            carried: core::str::from_utf8(carried).unwrap_or_default(),
            text,
            error,
        }
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

/// The length of `bytes` without an incomplete code point at its end (one whose
/// lead byte announces more bytes than follow it; at most three bytes are cut).
fn complete_len(bytes: &[u8]) -> usize {
    let len = bytes.len();
    for back in 1..=len.min(3) {
        let at = len.saturating_sub(back);
        let b = bytes.get(at).copied().unwrap_or(0);
        if b & 0xC0 != 0x80 {
            return if sequence_len(b) > back { at } else { len };
        }
    }
    len
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
    use std::borrow::ToOwned;
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

    #[test]
    fn text_before_an_error_is_handed_out() {
        let mut stream = Utf8Stream::new();
        let first = stream.decode(b"ab\xE2\x82");
        assert_eq!((first.carried, first.text, first.error), ("", "ab", None));
        let second = stream.decode(b"\xACcd\xFFef");
        assert_eq!(second.carried, "€");
        assert_eq!(second.text, "cd");
        assert_eq!(second.error.map(|e| e.offset()), Some(7));
    }

    proptest::proptest! {
        #[test]
        fn any_bytes_any_chunking_match_one_shot(
            bytes in proptest::collection::vec(
                proptest::sample::select(std::vec![
                    b'a', b'\n', 0x80, 0x82, 0xAC, 0xBF, 0xC2, 0xC3, 0xE0, 0xE2, 0xED,
                    0xF0, 0xF4, 0xF5, 0xFF, 0x9F, 0xA0,
                ]),
                0..200,
            ),
            sizes in proptest::collection::vec(1usize..80, 1..8),
        ) {
            // Long valid runs too, so the SIMD validator (64 bytes and more) is used.
            let mut input = "é€😀 long enough for the vector validator, ".repeat(3).into_bytes();
            input.extend_from_slice(&bytes);
            let expected = validate(&input).map(str::to_owned).map_err(|e| e.offset());
            let mut stream = Utf8Stream::new();
            let mut out = String::new();
            let mut got = Ok(());
            let mut rest = &input[..];
            let mut i = 0;
            while !rest.is_empty() && got.is_ok() {
                let (chunk, tail) = rest.split_at(sizes[i % sizes.len()].min(rest.len()));
                got = stream.feed(chunk, |s| out.push_str(s));
                rest = tail;
                i += 1;
            }
            let got = got.and_then(|()| stream.finish()).map(|()| out.clone()).map_err(|e| e.offset());
            proptest::prop_assert_eq!(&got, &expected);
            if let Err(offset) = expected {
                // Everything before the error was handed out, nothing after it.
                proptest::prop_assert_eq!(out.as_bytes(), &input[..offset]);
            }
        }
    }
}
