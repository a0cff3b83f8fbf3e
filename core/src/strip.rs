//! Removing dangerous invisibles and orphan variation selectors (SPEC §3). Controls
//! are kept: this is the reference's `stripDangerousInvisibles`.

use core::fmt;

use crate::class::{is_control, is_dangerous_invisible, is_stripped, is_variation_selector};
use crate::scan::{
    Backend, ByteSet, DropBlock, DropRule, Dropper, Finder, Recorded, Scanner, char_at,
};
use crate::truncate::floor_char_boundary;
use crate::utf8::{Utf8Error, Utf8Stream};

/// Lead bytes of code points strip may drop (controls never are).
const STRIP_ATTENTION: ByteSet = ByteSet::EMPTY
    .with(0xC2)
    .with(0xE1)
    .with(0xE2)
    .with(0xE3)
    .with(0xEF)
    .with(0xF3);

/// [`STRIP_ATTENTION`] prepared for the block scan.
static STRIP_FINDER: Finder = Finder::new(STRIP_ATTENTION).refined();

/// Lead bytes of code points prose may drop: strip's and the controls but TAB and LF.
static PROSE_FINDER: Finder = Finder::new(ByteSet::PROSE_ATTENTION).refined();

/// Whether the code point at `i` may be dropped (a table member or a selector).
#[inline]
fn may_strip_at(text: &str, i: usize) -> bool {
    char_at(text, i).is_some_and(|c| is_dangerous_invisible(c) || is_variation_selector(c))
}

/// The clean runs of `text` after stripping, in order, borrowed from `text`.
pub fn strip_invisibles(text: &str) -> StripRuns<'_> {
    strip_invisibles_on(Backend::best(), text)
}

/// [`strip_invisibles`] on a given backend.
#[doc(hidden)]
pub fn strip_invisibles_on(backend: Backend, text: &str) -> StripRuns<'_> {
    StripRuns::after(text, None, backend)
}

/// An iterator over the kept runs of a text; `Display` writes them all.
#[derive(Clone, Debug)]
pub struct StripRuns<'a> {
    text: &'a str,
    pos: usize,
    /// The code point before `pos` in the original input (dropped or not).
    prev: Option<char>,
    scanner: Scanner<'a>,
}

impl<'a> StripRuns<'a> {
    /// Runs of `text`, where `prev` is the code point the input had just before `text`.
    pub(crate) fn after(text: &'a str, prev: Option<char>, backend: Backend) -> Self {
        StripRuns {
            text,
            pos: 0,
            prev,
            scanner: Scanner::new(&STRIP_FINDER, backend),
        }
    }

    /// [`StripRuns::after`] over a text whose start's candidate blocks `recorded`
    /// holds (the strip finder's, found while the text was validated).
    fn after_recorded(
        text: &'a str,
        prev: Option<char>,
        backend: Backend,
        recorded: &'a Recorded,
    ) -> Self {
        StripRuns {
            text,
            pos: 0,
            prev,
            scanner: Scanner::with_recorded(&STRIP_FINDER, backend, recorded),
        }
    }

    /// The last code point of the input seen so far (dropped or not).
    pub(crate) fn last_char(&self) -> Option<char> {
        self.text.chars().next_back().or(self.prev)
    }
}

impl<'a> Iterator for StripRuns<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        let bytes = self.text.as_bytes();
        let mut start = self.pos;
        let mut at = start;
        loop {
            let text = self.text;
            at = self.scanner.next(bytes, at, |i, _| may_strip_at(text, i));
            let Some(c) = self.text.get(at..).and_then(|s| s.chars().next()) else {
                self.pos = bytes.len();
                return self.text.get(start..).filter(|run| !run.is_empty());
            };
            let prev = if at == 0 {
                self.prev
            } else {
                self.text.get(..at).and_then(|s| s.chars().next_back())
            };
            if is_stripped(c, prev) {
                let run_end = at;
                at = at.saturating_add(c.len_utf8());
                self.pos = at;
                if run_end > start {
                    return self.text.get(start..run_end);
                }
                // A dropped code point right at the start of the run: the run
                // begins after it.
                start = at;
                continue;
            }
            at = at.saturating_add(c.len_utf8());
        }
    }
}

impl fmt::Display for StripRuns<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.clone().try_for_each(|run| f.write_str(run))
    }
}

/// The UTF-8 length of `text` after stripping.
pub fn stripped_len(text: &str) -> usize {
    strip_invisibles(text)
        .map(str::len)
        .fold(0, usize::saturating_add)
}

/// The output buffer was too small; `needed` bytes would have been enough.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BufferTooSmall {
    /// The size that suffices.
    pub needed: usize,
}

impl fmt::Display for BufferTooSmall {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "output buffer too small: {} bytes needed", self.needed)
    }
}

impl core::error::Error for BufferTooSmall {}

/// Strips `text` into `out`, returning the written text. Nothing is written when `out`
/// is too small; a buffer of `text.len()` bytes always suffices.
pub fn strip_into<'o>(text: &str, out: &'o mut [u8]) -> Result<&'o str, BufferTooSmall> {
    strip_into_on(Backend::best(), text, out)
}

/// [`strip_into`] on a given backend.
#[doc(hidden)]
pub fn strip_into_on<'o>(
    backend: Backend,
    text: &str,
    out: &'o mut [u8],
) -> Result<&'o str, BufferTooSmall> {
    if out.len() < text.len() {
        let needed = strip_invisibles_on(backend, text)
            .map(str::len)
            .fold(0, usize::saturating_add);
        if out.len() < needed {
            return Err(BufferTooSmall { needed });
        }
    }
    match drop_into(text, out, usize::MAX, DropRule::Strip, backend) {
        Some(len) => {
            let written = out.get(..len).unwrap_or_default();
            // Infallible: whole runs of a `str` were copied.
            Ok(backend.to_str(written).unwrap_or_default())
        }
        // Nothing dropped: the result is the text, copied.
        None => Ok(backend.copy_str(out, text).unwrap_or_default()),
    }
}

/// Writes the code points of `text` that `rule` keeps to `out`, at most `cap` bytes
/// of them (cut on a code-point boundary); returns the length written, or `None`,
/// writing nothing, when `text` drops nothing. Dense drop regions are packed a block
/// at a time. Writes nothing past `out[..cap]`; a short `out` cuts like the cap.
pub(crate) fn drop_into(
    text: &str,
    out: &mut [u8],
    cap: usize,
    rule: DropRule,
    backend: Backend,
) -> Option<usize> {
    let room = cap.min(out.len());
    let out = out.get_mut(..room).unwrap_or_default();
    let bytes = text.as_bytes();
    let prose = rule == DropRule::Prose;
    let mut scanner = Scanner::new(if prose { &PROSE_FINDER } else { &STRIP_FINDER }, backend);
    let dropper = Dropper::new(rule, backend);
    let (mut len, mut run_start, mut at) = (0usize, 0usize, 0usize);
    loop {
        at = scanner.next(bytes, at, |i, b| {
            if prose {
                // ASCII stops are controls prose drops.
                b < 0x80
                    || char_at(text, i).is_some_and(|c| {
                        is_control(c) || is_dangerous_invisible(c) || is_variation_selector(c)
                    })
            } else {
                may_strip_at(text, i)
            }
        });
        let Some(c) = char_at(text, at) else {
            break;
        };
        let end = at.saturating_add(c.len_utf8());
        let prev = || text.get(..at).and_then(|s| s.chars().next_back());
        let dropped = (prose && is_control(c) && c != '\t' && c != '\n')
            || is_stripped(c, if c == '\u{FE0F}' { prev() } else { None });
        if dropped {
            let run = text.get(run_start..at).unwrap_or_default();
            match push_capped(out, len, run, backend) {
                Ok(n) => len = n,
                Err(n) => return Some(n),
            }
            run_start = end;
        }
        at = end;
        if dropped {
            // Dropped code points often come in crowds: take whole blocks while
            // they keep dropping something (a block whose kept bytes do not fit is
            // declined and goes the exact way, which cuts).
            while let Some(DropBlock { consumed, kept, .. }) =
                dropper.block(bytes, at, out.get_mut(len..).unwrap_or_default())
            {
                at = at.saturating_add(consumed);
                len = len.saturating_add(kept);
                run_start = at;
                if kept == consumed {
                    break;
                }
            }
        }
    }
    if run_start == 0 {
        return None;
    }
    let run = text.get(run_start..).unwrap_or_default();
    Some(push_capped(out, len, run, backend).unwrap_or_else(|n| n))
}

/// Appends `run` to `out` at `len` when it fits (`Ok`, the new length), else the
/// part of it that does, cut on a code-point boundary (`Err`, the new length).
#[inline(always)]
fn push_capped(out: &mut [u8], len: usize, run: &str, backend: Backend) -> Result<usize, usize> {
    let room = out.len().saturating_sub(len);
    if run.len() <= room {
        return Ok(push_run(out, len, run.as_bytes(), backend));
    }
    let cut = floor_char_boundary(run, room);
    Err(push_run(
        out,
        len,
        run.as_bytes().get(..cut).unwrap_or_default(),
        backend,
    ))
}

/// Appends `run` to `out` at `len`; returns the new length. Short runs (dense dirty
/// text) are copied byte by byte, without a call per run.
#[inline(always)]
fn push_run(out: &mut [u8], len: usize, run: &[u8], backend: Backend) -> usize {
    let end = len.saturating_add(run.len());
    if let Some(dst) = out.get_mut(len..end) {
        if run.len() <= 16 {
            for (d, &b) in dst.iter_mut().zip(run) {
                *d = b;
            }
        } else {
            backend.copy(dst, run);
        }
    }
    end
}

/// Strip over a byte stream fed in chunks of any size, in constant memory.
#[derive(Clone, Debug, Default)]
pub struct StripStream {
    utf8: Utf8Stream,
    prev: Option<char>,
}

impl StripStream {
    /// A stream at its start.
    pub const fn new() -> Self {
        StripStream {
            utf8: Utf8Stream::new(),
            prev: None,
        }
    }

    /// Strips the next chunk, handing each clean run to `emit` in order.
    pub fn feed(&mut self, chunk: &[u8], mut emit: impl FnMut(&str)) -> Result<(), Utf8Error> {
        let prev = &mut self.prev;
        let backend = Backend::best();
        self.utf8.feed(chunk, |piece| {
            let mut runs = StripRuns::after(piece, *prev, backend);
            *prev = runs.last_char();
            runs.by_ref().for_each(&mut emit);
        })
    }

    /// [`StripStream::feed`], handing out nothing of a chunk that holds invalid
    /// UTF-8 (the whole chunk is validated before its first run is emitted), so a
    /// caller may write runs as they come and still write nothing of a bad chunk.
    pub fn feed_whole(&mut self, chunk: &[u8], emit: impl FnMut(&str)) -> Result<(), Utf8Error> {
        self.feed_whole_on(Backend::best(), chunk, emit)
    }

    /// [`StripStream::feed_whole`] on a given backend.
    #[doc(hidden)]
    pub fn feed_whole_on(
        &mut self,
        backend: Backend,
        chunk: &[u8],
        mut emit: impl FnMut(&str),
    ) -> Result<(), Utf8Error> {
        // One pass validates the chunk and finds its stops where the backend can
        // (issue 17: two passes, the validator's and the scan's, each read it all).
        let mut recorded = Recorded::new();
        let decoded = self.utf8.decode_by(chunk, |head| {
            match backend.validate_find(head, &STRIP_FINDER, &mut recorded) {
                Some(text) => Ok(text),
                // The offset, from the validator that reports it.
                None => crate::utf8::validate_on(backend, head),
            }
        });
        if let Some(e) = decoded.error {
            return Err(e);
        }
        if !decoded.carried.is_empty() {
            let mut runs = StripRuns::after(decoded.carried, self.prev, backend);
            self.prev = runs.last_char();
            runs.by_ref().for_each(&mut emit);
        }
        if !decoded.text.is_empty() {
            let mut runs = StripRuns::after_recorded(decoded.text, self.prev, backend, &recorded);
            self.prev = runs.last_char();
            runs.by_ref().for_each(&mut emit);
        }
        Ok(())
    }

    /// Ends the stream: an incomplete code point at the end is an error.
    pub fn finish(&self) -> Result<(), Utf8Error> {
        self.utf8.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::string::{String, ToString};

    fn strip(text: &str) -> String {
        strip_invisibles(text).to_string()
    }

    #[test]
    fn spec_examples() {
        assert_eq!(strip("1\u{FE0F}\u{20E3}"), "1\u{20E3}");
        assert_eq!(strip("👨\u{200D}👩\u{200D}👧"), "👨👩👧");
        assert_eq!(
            strip("🏴\u{E0067}\u{E0062}\u{E0065}\u{E006E}\u{E0067}\u{E007F}"),
            "🏴"
        );
        assert_eq!(strip("😀\u{200B}\u{FE0F}"), "😀");
        assert_eq!(strip("❤\u{FE0F}"), "❤\u{FE0F}");
        assert_eq!(strip("\u{FE0F}a"), "a");
        assert_eq!(strip("a\u{0}\u{1B}b"), "a\u{0}\u{1B}b");
    }

    #[test]
    fn strip_into_reports_exact_need() {
        let text = "a\u{200B}b";
        let mut small = [0u8; 1];
        assert_eq!(
            strip_into(text, &mut small),
            Err(BufferTooSmall { needed: 2 })
        );
        let mut exact = [0u8; 2];
        assert_eq!(strip_into(text, &mut exact).unwrap(), "ab");
    }

    #[test]
    fn stream_keeps_predecessor_across_chunks() {
        let text = "❤\u{FE0F} 1\u{FE0F}";
        for size in 1..=text.len() {
            let mut s = StripStream::new();
            let mut out = String::new();
            for chunk in text.as_bytes().chunks(size) {
                s.feed(chunk, |r| out.push_str(r)).unwrap();
            }
            s.finish().unwrap();
            assert_eq!(out, "❤\u{FE0F} 1", "chunk size {size}");
        }
    }

    proptest::proptest! {
        #[test]
        fn runs_match_naive(text in "(\\PC|[\u{200b}-\u{200d}\u{fe00}-\u{fe0f}\u{e0000}-\u{e0080}\u{ad}a-z😀❤]){0,300}") {
            let mut expected = String::new();
            let mut prev = None;
            for c in text.chars() {
                if !is_stripped(c, prev) {
                    expected.push(c);
                }
                prev = Some(c);
            }
            for backend in Backend::all() {
                let got = strip_invisibles_on(backend, &text).to_string();
                proptest::prop_assert_eq!(&got, &expected, "{}", backend.name());
            }
        }

        #[test]
        fn strip_into_matches_naive_on_dense_text(
            parts in proptest::collection::vec(proptest::sample::select(std::vec![
                "a", "b", "\u{1B}", "\u{85}", "\u{AD}", "\u{200B}", "\u{200E}", "\u{2066}",
                "\u{3164}", "\u{FE00}", "\u{FE0E}", "\u{FE0F}", "\u{FEFF}", "\u{E0041}",
                "\u{E0080}", "\u{E0100}", "\u{E01F0}", "😀\u{FE0F}", "❤\u{FE0F}", "1\u{FE0F}",
                "—", "é", "\u{180E}", "\u{1160}",
            ]), 0..400),
            clean in 0usize..200,
        ) {
            // Dense drops after a clean stretch, so blocks start anywhere.
            let text = std::format!("{}{}", "x".repeat(clean), parts.concat());
            let mut expected = String::new();
            let mut prev = None;
            for c in text.chars() {
                if !is_stripped(c, prev) {
                    expected.push(c);
                }
                prev = Some(c);
            }
            for backend in Backend::all() {
                let mut out = std::vec![0u8; text.len()];
                let got = strip_into_on(backend, &text, &mut out).map(str::to_string);
                let mut exact = std::vec![0u8; expected.len()];
                let got_exact = strip_into_on(backend, &text, &mut exact).map(str::to_string);
                proptest::prop_assert_eq!(got.as_deref(), Ok(expected.as_str()));
                proptest::prop_assert_eq!(got_exact.as_deref(), Ok(expected.as_str()));
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn feed_whole_on_every_backend_matches_one_shot(
            parts in proptest::collection::vec(proptest::sample::select(std::vec![
                "a", "bb", " ", "\n", "—", "’", "…", "€", "é", "中", "😀", "\u{200B}",
                "\u{FE0F}", "❤", "1", "\u{AD}", "\u{A0}", "\u{85}", "\u{E0041}",
                "\u{3164}", "\u{2060}", "\u{FE00}", "\u{E01EF}", "°",
            ]), 0..600),
            clean in 0usize..400,
            size in 1usize..700,
        ) {
            let text = std::format!("{}{}", "x".repeat(clean), parts.concat());
            let expected = strip_invisibles(&text).to_string();
            for backend in Backend::all() {
                let mut s = StripStream::new();
                let mut out = String::new();
                for chunk in text.as_bytes().chunks(size) {
                    s.feed_whole_on(backend, chunk, |r| out.push_str(r)).unwrap();
                }
                s.finish().unwrap();
                proptest::prop_assert_eq!(&out, &expected, "{}", backend.name());
            }
        }
    }

    #[test]
    fn feed_whole_with_more_stops_than_one_pass_records() {
        // A kept selector every 30 bytes and a drop every 60: a 256 KiB chunk has
        // more blocks with stops than the fused pass records.
        let text = "a ❤\u{FE0F} b — c 1\u{FE0F}\u{20E3} d\u{200B}e ".repeat(9000);
        let expected = strip_invisibles(&text).to_string();
        for backend in Backend::all() {
            for size in [256 << 10, 65536, 1000] {
                let mut s = StripStream::new();
                let mut out = String::new();
                for chunk in text.as_bytes().chunks(size) {
                    s.feed_whole_on(backend, chunk, |r| out.push_str(r))
                        .unwrap();
                }
                s.finish().unwrap();
                assert_eq!(out, expected, "{} {size}", backend.name());
            }
        }
    }

    #[test]
    fn feed_whole_on_every_backend_writes_nothing_of_a_bad_chunk() {
        let clean = "ok — ❤\u{FE0F} \u{200B}text ".repeat(50);
        for backend in Backend::all() {
            for at in [0, 1, 63, 64, 65, 300, clean.len()] {
                let mut bad = clean.as_bytes().to_vec();
                bad.insert(at, 0xFF);
                let mut s = StripStream::new();
                let mut out = String::new();
                s.feed_whole_on(backend, b"head ", |r| out.push_str(r))
                    .unwrap();
                let e = s
                    .feed_whole_on(backend, &bad, |r| out.push_str(r))
                    .unwrap_err();
                assert_eq!(out, "head ", "{}", backend.name());
                assert_eq!(e.offset(), 5 + at, "{}", backend.name());
            }
        }
    }

    #[test]
    fn feed_whole_matches_feed_and_hands_out_nothing_of_a_bad_chunk() {
        let text = "a\u{200B}b❤\u{FE0F}c\u{FE0F}—\u{E0041}😀 ".repeat(40);
        for size in [1, 2, 3, 5, 64, 100, 1000] {
            let (mut a, mut b) = (StripStream::new(), StripStream::new());
            let (mut out_a, mut out_b) = (String::new(), String::new());
            for chunk in text.as_bytes().chunks(size) {
                a.feed(chunk, |r| out_a.push_str(r)).unwrap();
                b.feed_whole(chunk, |r| out_b.push_str(r)).unwrap();
            }
            assert_eq!(out_a, out_b, "size {size}");
            assert_eq!(out_b, strip_invisibles(&text).to_string());
        }
        let mut s = StripStream::new();
        let mut out = String::new();
        s.feed_whole(b"ok \xE2\x80", |r| out.push_str(r)).unwrap();
        let e = s
            .feed_whole(b"\x8Bmore clean text\xFFtail", |r| out.push_str(r))
            .unwrap_err();
        // The bad chunk's text (the carried U+200B, dropped, and `more clean
        // text`) is not handed out; the offset is the stream's.
        assert_eq!(out, "ok ");
        assert_eq!(e.offset(), 21);
    }
}
