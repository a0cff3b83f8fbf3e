//! Step 1: ECMA-48 escape sequences, removed whole (PROFILE-STRICT §3).
//!
//! A byte-level state machine over text arriving in pieces of whole code points.
//! Only a string sequence (OSC, DCS, SOS, PM, APC) holds text, at most
//! [`STRING_MAX`] bytes of its content, until its terminator decides that the content
//! goes too; every other state drops what it read whatever comes next, so it holds
//! nothing.

/// The most content bytes a string sequence may have; a longer one loses only its
/// introducer.
pub const STRING_MAX: usize = 4096;

use crate::scan::{Backend, next_escape};

const ESC: u8 = 0x1B;
const BEL: u8 = 0x07;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Text,
    /// After ESC.
    Esc,
    /// After ESC and intermediate bytes 0x20–0x2F.
    EscInter,
    /// In a CSI; `inter`: intermediate bytes began.
    Csi {
        inter: bool,
    },
    /// In the content of a string sequence; `osc`: BEL terminates it too.
    Str {
        osc: bool,
    },
    /// After an ESC in the content of a string sequence.
    StrEsc {
        osc: bool,
    },
}

/// What a byte (or a C1 control, as its second byte) does in the text state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum C1 {
    Csi,
    Osc,
    /// DCS, SOS, PM, APC.
    Str,
    /// ST alone: removed by itself.
    St,
}

/// The C1 introducer a code point U+0080–U+009F is, by its second UTF-8 byte.
#[inline]
fn c1_of(second: u8) -> Option<C1> {
    match second {
        0x9B => Some(C1::Csi),
        0x9D => Some(C1::Osc),
        0x90 | 0x98 | 0x9E | 0x9F => Some(C1::Str),
        0x9C => Some(C1::St),
        _ => None,
    }
}

/// How the text state finds its next stop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stops {
    /// The best backend, picked on the first piece (`new` is `const`).
    Best,
    /// ESC and the 0xC2 of a C1 introducer, by `scan::next_escape` on a backend.
    On(Backend),
    /// Every ESC and 0xC2 by `memchr2` (the finder before `scan::next_escape`; the
    /// tests compare the two).
    #[cfg(test)]
    Memchr,
}

/// Step 1 over a stream of text pieces.
#[derive(Clone, Debug)]
pub(crate) struct Escapes {
    state: State,
    stops: Stops,
    held: [u8; STRING_MAX],
    held_len: usize,
}

impl Escapes {
    pub(crate) const fn new() -> Self {
        Escapes {
            state: State::Text,
            stops: Stops::Best,
            held: [0; STRING_MAX],
            held_len: 0,
        }
    }

    /// Step 1 finding its stops on `backend` (for the hidden `*_on` entries).
    pub(crate) const fn on(backend: Backend) -> Self {
        let mut e = Escapes::new();
        e.stops = Stops::On(backend);
        e
    }

    /// Step 1 finding its stops with `stops` (for tests).
    #[cfg(test)]
    const fn with(stops: Stops) -> Self {
        let mut e = Escapes::new();
        e.stops = stops;
        e
    }

    /// Hands the held content of a broken string sequence on as text.
    fn release(&mut self, out: &mut impl FnMut(&str)) {
        let held = self.held.get(..self.held_len).unwrap_or_default();
        // The held bytes are whole code points of a `str`.
        if let Ok(s) = core::str::from_utf8(held)
            && !s.is_empty()
        {
            out(s);
        }
        self.held_len = 0;
    }

    fn hold(&mut self, bytes: &[u8]) -> bool {
        let end = self.held_len.saturating_add(bytes.len());
        match self.held.get_mut(self.held_len..end) {
            Some(dst) => {
                dst.copy_from_slice(bytes);
                self.held_len = end;
                true
            }
            None => false,
        }
    }

    /// Feeds `text`, handing the text that survives to `out` in runs.
    pub(crate) fn push(&mut self, text: &str, out: &mut impl FnMut(&str)) {
        let bytes = text.as_bytes();
        let mut i = 0usize;
        // Start of the text run not yet handed on (text state only).
        let mut run = 0usize;
        if self.stops == Stops::Best {
            self.stops = Stops::On(Backend::best());
        }
        let stops = self.stops;
        while i < bytes.len() {
            match self.state {
                State::Text => {
                    let Some(at) = next_stop(bytes, i, stops) else {
                        break;
                    };
                    let Some(&b) = bytes.get(at) else { break };
                    if b == ESC {
                        emit(text, run, at, out);
                        self.state = State::Esc;
                        i = at.saturating_add(1);
                        run = i;
                        continue;
                    }
                    // 0xC2: U+0080–U+00BF; its second byte says which.
                    let second = bytes.get(at.saturating_add(1)).copied().unwrap_or(0);
                    let next = at.saturating_add(2);
                    match c1_of(second) {
                        None => i = next,
                        Some(kind) => {
                            emit(text, run, at, out);
                            self.state = match kind {
                                C1::Csi => State::Csi { inter: false },
                                C1::Osc => State::Str { osc: true },
                                C1::Str => State::Str { osc: false },
                                C1::St => State::Text,
                            };
                            i = next;
                            run = i;
                        }
                    }
                }
                State::Esc => {
                    let b = bytes.get(i).copied().unwrap_or(0);
                    self.state = match b {
                        b'[' => State::Csi { inter: false },
                        b']' => State::Str { osc: true },
                        b'P' | b'X' | b'^' | b'_' => State::Str { osc: false },
                        0x20..=0x2F => State::EscInter,
                        0x30..=0x7E => State::Text,
                        // A lone ESC: removed; the byte is read as text.
                        _ => {
                            self.state = State::Text;
                            run = i;
                            continue;
                        }
                    };
                    i = i.saturating_add(1);
                    run = i;
                }
                State::EscInter => {
                    let b = bytes.get(i).copied().unwrap_or(0);
                    match b {
                        0x20..=0x2F => {}
                        0x30..=0x7E => self.state = State::Text,
                        _ => {
                            // Broken: what was read goes, the byte is read as text.
                            self.state = State::Text;
                            run = i;
                            continue;
                        }
                    }
                    i = i.saturating_add(1);
                    run = i;
                }
                State::Csi { inter } => {
                    let b = bytes.get(i).copied().unwrap_or(0);
                    match b {
                        0x30..=0x3F if !inter => {}
                        0x20..=0x2F => self.state = State::Csi { inter: true },
                        0x40..=0x7E => self.state = State::Text,
                        _ => {
                            self.state = State::Text;
                            run = i;
                            continue;
                        }
                    }
                    i = i.saturating_add(1);
                    run = i;
                }
                State::Str { osc } => {
                    let rest = bytes.get(i..).unwrap_or_default();
                    let stop = memchr::memchr3(BEL, ESC, 0xC2, rest).unwrap_or(rest.len());
                    let content = rest.get(..stop).unwrap_or_default();
                    if !self.hold(content) {
                        // Over the bound: only the introducer goes. The held content
                        // has no ESC or C1 introducer, so it is plain text.
                        let room = STRING_MAX.saturating_sub(self.held_len);
                        let fits = floor_boundary(text, i, room);
                        self.hold(bytes.get(i..fits).unwrap_or_default());
                        self.release(out);
                        self.state = State::Text;
                        i = fits;
                        run = i;
                        continue;
                    }
                    i = i.saturating_add(stop);
                    run = i;
                    let Some(&b) = bytes.get(i) else { break };
                    match b {
                        BEL if osc => {
                            self.held_len = 0;
                            self.state = State::Text;
                            i = i.saturating_add(1);
                        }
                        BEL => {
                            if !self.hold(&[BEL]) {
                                self.release(out);
                                self.state = State::Text;
                                run = i;
                                continue;
                            }
                            i = i.saturating_add(1);
                        }
                        ESC => {
                            self.state = State::StrEsc { osc };
                            i = i.saturating_add(1);
                        }
                        _ => {
                            // 0xC2: ST ends the sequence, another introducer breaks it,
                            // anything else is content.
                            let second = bytes.get(i.saturating_add(1)).copied().unwrap_or(0);
                            match c1_of(second) {
                                Some(C1::St) => {
                                    self.held_len = 0;
                                    self.state = State::Text;
                                    i = i.saturating_add(2);
                                }
                                Some(_) => {
                                    self.release(out);
                                    self.state = State::Text;
                                }
                                None => {
                                    let pair =
                                        bytes.get(i..i.saturating_add(2)).unwrap_or_default();
                                    if !self.hold(pair) {
                                        self.release(out);
                                        self.state = State::Text;
                                        run = i;
                                        continue;
                                    }
                                    i = i.saturating_add(2);
                                }
                            }
                        }
                    }
                    run = i;
                }
                State::StrEsc { .. } => {
                    let b = bytes.get(i).copied().unwrap_or(0);
                    if b == b'\\' {
                        self.held_len = 0;
                        self.state = State::Text;
                        i = i.saturating_add(1);
                    } else {
                        // Broken by another escape: the introducer goes, the content is
                        // text, and the ESC starts afresh on this byte.
                        self.release(out);
                        self.state = State::Esc;
                    }
                    run = i;
                }
            }
        }
        if self.state == State::Text {
            emit(text, run, bytes.len(), out);
        }
    }

    /// Ends the input: an open string sequence loses only its introducer.
    pub(crate) fn finish(&mut self, out: &mut impl FnMut(&str)) {
        if let State::Str { .. } | State::StrEsc { .. } = self.state {
            self.release(out);
        }
        self.state = State::Text;
        self.held_len = 0;
    }
}

/// The first position at or after `from` that may need the text state: an ESC or
/// a 0xC2 (for `Stops::On`, only one followed by 0x90–0x9F: the second byte of a
/// U+0085 or U+00AD never begins a sequence, so those do not stop the search).
#[inline]
fn next_stop(bytes: &[u8], from: usize, stops: Stops) -> Option<usize> {
    match stops {
        Stops::On(backend) => next_escape(bytes, from, backend),
        Stops::Best => next_escape(bytes, from, Backend::best()),
        #[cfg(test)]
        Stops::Memchr => memchr::memchr2(ESC, 0xC2, bytes.get(from..).unwrap_or_default())
            .map(|off| from.saturating_add(off)),
    }
}

#[inline]
fn emit(text: &str, from: usize, to: usize, out: &mut impl FnMut(&str)) {
    if from < to
        && let Some(s) = text.get(from..to)
    {
        out(s);
    }
}

/// The largest code-point boundary of `text` in `from..=from + room`.
fn floor_boundary(text: &str, from: usize, room: usize) -> usize {
    let mut end = from.saturating_add(room).min(text.len());
    while end > from && !text.is_char_boundary(end) {
        end = end.saturating_sub(1);
    }
    end
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::string::String;

    fn run(text: &str) -> String {
        let mut e = Escapes::new();
        let mut out = String::new();
        e.push(text, &mut |s| out.push_str(s));
        e.finish(&mut |s| out.push_str(s));
        out
    }

    #[test]
    fn sequences_go_whole() {
        assert_eq!(run("a\x1b[2Jb"), "ab");
        assert_eq!(run("a\x1b[1;31mred\x1b[0m"), "ared");
        assert_eq!(run("\x1b]8;;http://x\x07link\x1b]8;;\x1b\\"), "link");
        assert_eq!(run("a\u{9B}2Jb"), "ab");
        assert_eq!(run("a\u{9D}0;t\u{9C}b"), "ab");
        assert_eq!(run("a\x1bPq#0\x1b\\b"), "ab");
        assert_eq!(run("a\x1b(Bb"), "ab");
        assert_eq!(run("a\x1b7b"), "ab");
        assert_eq!(run("a\x1b"), "a");
        assert_eq!(run("a\u{9C}b"), "ab");
    }

    #[test]
    fn never_unbounded() {
        // No terminator: only the introducer goes.
        assert_eq!(run("a\x1b]0;title"), "a0;title");
        let long = "x".repeat(STRING_MAX + 10);
        let text = std::format!("\x1b]{long}\x07");
        assert_eq!(run(&text), std::format!("{long}\x07"));
        // A CSI broken by a byte outside its grammar: the byte is text.
        assert_eq!(run("\x1b[12\u{E9}x"), "\u{E9}x");
        assert_eq!(run("\x1b[1;2\x1b[3mz"), "z");
        // A lone ESC before text.
        assert_eq!(run("\x1b\u{E9}"), "\u{E9}");
        // A string broken by another escape keeps its content.
        assert_eq!(run("\x1b]abc\x1b[1mz"), "abcz");
        // Other C1 controls are not step 1's.
        assert_eq!(run("a\u{85}b\u{A0}"), "a\u{85}b\u{A0}");
    }

    /// `text` through step 1 finding stops with `stops`, cut at each of `cuts`.
    fn run_cut(text: &str, cuts: &[usize], stops: Stops) -> String {
        let mut e = Escapes::with(stops);
        let mut out = String::new();
        let mut from = 0;
        for &cut in cuts.iter().chain([&text.len()]) {
            e.push(&text[from..cut], &mut |s| out.push_str(s));
            from = cut;
        }
        e.finish(&mut |s| out.push_str(s));
        out
    }

    /// The pieces step 1 hands on, one string each.
    fn pieces(text: &str, stops: Stops) -> std::vec::Vec<String> {
        let mut e = Escapes::with(stops);
        let mut out = std::vec::Vec::new();
        e.push(text, &mut |s| out.push(String::from(s)));
        e.finish(&mut |s| out.push(String::from(s)));
        out
    }

    /// Code points step 1 acts on or must look past, and filler.
    const ATOMS: [&str; 20] = [
        "\x1b", "[", "]", "P", "\\", "\x07", "1", ";", " ", "m", "a", "\u{85}", "\u{AD}", "\u{9B}",
        "\u{9C}", "\u{9D}", "\u{90}", "\u{99}", "\u{A0}", "\u{200B}",
    ];

    #[test]
    fn new_finder_equals_memchr_at_every_block_edge() {
        // ESC, an introducer or a decoy C2 at every offset around the 8/32/64-byte
        // steps, in text full of U+00AD and U+0085; the same pieces as memchr2's.
        for len in [7usize, 8, 9, 31, 32, 33, 34, 63, 64, 65, 66, 95, 130] {
            for atom in [
                "\x1b[1m",
                "\x1b",
                "\u{9B}2J",
                "\u{9D}t\u{9C}",
                "\u{9C}",
                "\u{99}",
            ] {
                for at in 0..=len {
                    let mut text = String::new();
                    for k in 0..len {
                        text.push(match k % 4 {
                            0 => 'x',
                            1 => '\u{AD}',
                            2 => 'y',
                            _ => '\u{85}',
                        });
                        if k + 1 == at {
                            text.push_str(atom);
                        }
                    }
                    if at == 0 {
                        text.insert_str(0, atom);
                    }
                    let old = pieces(&text, Stops::Memchr);
                    for backend in Backend::all() {
                        assert_eq!(
                            pieces(&text, Stops::On(backend)),
                            old,
                            "{backend:?} {text:?}"
                        );
                    }
                }
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn new_finder_equals_memchr_streamed(
            picks in proptest::collection::vec(0usize..ATOMS.len(), 0..120),
            cuts in proptest::collection::vec(0usize..600, 0..6),
        ) {
            let text: String = picks.iter().map(|&k| ATOMS[k]).collect();
            let mut cuts: std::vec::Vec<usize> = cuts
                .into_iter()
                .map(|c| c.min(text.len()))
                .filter(|&c| text.is_char_boundary(c))
                .collect();
            cuts.sort_unstable();
            let old = run_cut(&text, &cuts, Stops::Memchr);
            proptest::prop_assert_eq!(&old, &run(&text));
            for backend in Backend::all() {
                proptest::prop_assert_eq!(&run_cut(&text, &cuts, Stops::On(backend)), &old);
                proptest::prop_assert_eq!(
                    pieces(&text, Stops::On(backend)),
                    pieces(&text, Stops::Memchr)
                );
            }
        }
    }

    #[test]
    fn cut_between_c2_and_its_second_byte_is_not_a_piece() {
        // Pieces are whole code points, so a cut never splits C2 from its second
        // byte; cuts just before and after each C2 pair, on every backend.
        let text = "ab\u{AD}\u{9B}1m\u{85}c\u{9D}0;t\u{9C}d\u{AD}\x1b[2Je\u{85}";
        let whole = run_cut(text, &[], Stops::Memchr);
        for cut in (0..=text.len()).filter(|&c| text.is_char_boundary(c)) {
            for backend in Backend::all() {
                assert_eq!(
                    run_cut(text, &[cut], Stops::On(backend)),
                    whole,
                    "{backend:?} {cut}"
                );
            }
        }
    }

    #[test]
    fn chunked_equals_whole() {
        let text = "a\x1b]8;;u\x07b\x1b[3;4mc\u{9D}x\u{9C}d\x1b]q";
        let whole = run(text);
        for cut in 0..=text.len() {
            if !text.is_char_boundary(cut) {
                continue;
            }
            let mut e = Escapes::new();
            let mut out = String::new();
            e.push(&text[..cut], &mut |s| out.push_str(s));
            e.push(&text[cut..], &mut |s| out.push_str(s));
            e.finish(&mut |s| out.push_str(s));
            assert_eq!(out, whole, "cut {cut}");
        }
    }
}
