//! Step 2: drop D except what spells (PROFILE-STRICT §1–2).
//!
//! A member of D is decided by its neighbours in the input as given: up to
//! [`EMOJI_MAX_LEN`]` - 1` code points either side for the RGI sequences, the joining
//! context of RFC 5892 A.1 (at most [`JOIN_T_MAX`] transparent code points either side),
//! the code point before it for viramas and U+FE0E. Members of D that may be kept wait
//! in a window of at most [`WINDOW`] code points until their fate is known; the
//! others are decided on sight, and text without members of D passes in whole runs.

use super::class::DROP_LEADS;
use super::class::{
    EMOJI_MAX_LEN, JT_D, JT_L, JT_R, JT_T, emoji_child, emoji_terminal, in_drop_set,
    in_drop_set_fast, is_inert, is_keepable, is_keycap_base, is_text_base, is_virama, joining_type,
};
use super::dense::drop_dense;
use super::sink::Sink;
use crate::scan::{Backend, ByteSet, Finder, Refinement, Scanner};

/// The most transparent (Joining_Type T) code points RFC 5892 A.1's context may span on
/// either side of a ZWNJ; a longer run breaks it (no script needs more, and the
/// bound keeps the stream's memory constant).
pub const JOIN_T_MAX: usize = 32;

/// Code points before a member of D that an RGI sequence covering it may start at.
const LOOKBACK: usize = EMOJI_MAX_LEN.saturating_sub(1);

/// Capacity of the window of undecided code points.
pub(crate) const WINDOW: usize = 64;

const ZWNJ: u32 = 0x200C;
const ZWJ: u32 = 0x200D;
const VS15: u32 = 0xFE0E;
const VS16: u32 = 0xFE0F;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fate {
    Keep,
    Drop,
    /// Kept when an RGI sequence covers it (ZWJ, U+FE0F, tags).
    Covered,
    /// Kept when a joining context follows (ZWNJ after L|D T*).
    Zwnj,
}

#[derive(Clone, Copy, Debug)]
struct Entry {
    cp: u32,
    at: usize,
    fate: Fate,
}

const EMPTY: Entry = Entry {
    cp: 0,
    at: 0,
    fate: Fate::Keep,
};

/// The piece [`Keeper::push`] is in: a kept code point of the window that came from
/// it goes to the sink as the piece's own slice, so that a sink can join it to the
/// runs around it (strict sanitize's matcher then takes one slice, unvalidated, not
/// a code point copied into its batch).
#[derive(Clone, Copy)]
struct Piece<'t> {
    text: &'t str,
    /// The input's offset of `text`'s first byte.
    base: usize,
}

impl Piece<'_> {
    const NONE: Piece<'static> = Piece {
        text: "",
        base: usize::MAX,
    };

    /// The piece's slice holding the code point at `at` of the input, if it is there.
    #[inline]
    fn slice(&self, at: usize, len: usize) -> Option<&str> {
        let from = at.checked_sub(self.base)?;
        self.text.get(from..from.checked_add(len)?)
    }
}

/// Step 2 over a stream of text pieces.
#[derive(Clone, Debug)]
pub(crate) struct Keeper {
    /// The last code points before the window, oldest first.
    hist: [u32; LOOKBACK],
    hist_len: usize,
    /// The code point before the next one, as given.
    prev: Option<u32>,
    /// RFC 5892 A.1 lookbehind: an L|D then at most `JOIN_T_MAX` T, no member of D.
    left_ok: bool,
    t_run: usize,
    win: [Entry; WINDOW],
    start: usize,
    len: usize,
    /// Byte offset of the next code point in the input.
    pos: usize,
    /// The scan backend, picked on the first piece (`new` is `const`).
    backend: Option<Backend>,
    /// The last dense run ended at the end of its piece: the next piece starts in
    /// the dense path, not with a block scan that would stop at once.
    dense: bool,
    /// The last code point ends every context a keepable member of D needs (see
    /// `dense.rs`): the next member of D is dropped on sight.
    dead: bool,
}

impl Keeper {
    pub(crate) const fn new() -> Self {
        Keeper {
            hist: [0; LOOKBACK],
            hist_len: 0,
            prev: None,
            left_ok: false,
            t_run: 0,
            win: [EMPTY; WINDOW],
            start: 0,
            len: 0,
            pos: 0,
            backend: None,
            dense: false,
            // Nothing before the text keeps anything.
            dead: true,
        }
    }

    /// A keeper on `backend` (for tests and the hidden `*_on` entries; [`Keeper::new`]
    /// picks the best).
    pub(crate) const fn on(backend: Backend) -> Self {
        let mut k = Keeper::new();
        k.backend = Some(backend);
        k
    }

    /// Feeds `text` (whole code points).
    pub(crate) fn push(&mut self, text: &str, sink: &mut impl Sink) {
        let bytes = text.as_bytes();
        let mut i = 0usize;
        // One scanner per piece: members of D close together share a block's mask.
        let backend = *self.backend.get_or_insert_with(Backend::best);
        let mut scanner = Scanner::new(&DROP_FINDER, backend);
        let piece = Piece {
            text,
            base: self.pos,
        };
        while i < bytes.len() {
            if self.len == 0 {
                let j = if self.dense {
                    i
                } else {
                    next_drop(text, i, &mut scanner)
                };
                if j > i {
                    let run = text.get(i..j).unwrap_or_default();
                    sink.text(run);
                    self.absorb(run);
                    self.pos = self.pos.saturating_add(run.len());
                    i = j;
                }
                // A member of D with nothing waiting: what no rule can keep goes in
                // bulk, and the state is rebuilt from what was consumed.
                let run = drop_dense(text, i, self.pos, self.dead, sink, backend);
                self.dense = run.end >= bytes.len();
                if run.end > i {
                    let consumed = text.get(i..run.end).unwrap_or_default();
                    if run.dead {
                        self.forget(consumed);
                    } else {
                        self.absorb(consumed);
                    }
                    self.pos = self.pos.saturating_add(consumed.len());
                    self.dead = run.dead;
                    i = run.end;
                    continue;
                }
            }
            let Some(c) = text.get(i..).and_then(|s| s.chars().next()) else {
                break;
            };
            self.append(c, piece, sink);
            i = i.saturating_add(c.len_utf8());
        }
    }

    /// Ends the input: what still waits is decided with what was seen.
    pub(crate) fn finish(&mut self, sink: &mut impl Sink) {
        self.settle(true, Piece::NONE, sink);
    }

    /// Updates the history, the joining lookbehind and `prev` with a run of code
    /// points decided already (members of D among them, dropped), as if each had
    /// gone through [`Keeper::append`] with nothing waiting.
    fn absorb(&mut self, run: &str) {
        // Newest first.
        let mut tail = [0u32; LOOKBACK];
        let mut n = 0usize;
        // The joining lookbehind: T code points back to the first other one.
        let mut t = 0usize;
        let mut decided = false;
        for c in run.chars().rev() {
            let cp = u32::from(c);
            if let Some(slot) = tail.get_mut(n) {
                *slot = cp;
                n = n.saturating_add(1);
            }
            if !decided {
                // A member of D resets the lookbehind (`append`), whatever its
                // Joining_Type.
                let jt = if cp >= 0xAD && in_drop_set(c) {
                    0
                } else {
                    joining_type(cp)
                };
                match jt {
                    JT_T => t = t.saturating_add(1),
                    JT_L | JT_D => {
                        self.left_ok = t <= JOIN_T_MAX;
                        self.t_run = t;
                        decided = true;
                    }
                    _ => {
                        self.left_ok = false;
                        self.t_run = 0;
                        decided = true;
                    }
                }
                if t > JOIN_T_MAX {
                    self.left_ok = false;
                    decided = true;
                }
            }
            if decided && n >= LOOKBACK {
                break;
            }
        }
        if !decided {
            self.t_run = self.t_run.saturating_add(t);
            self.left_ok = self.left_ok && self.t_run <= JOIN_T_MAX;
        }
        let Some(&last) = tail.first().filter(|_| n > 0) else {
            return;
        };
        self.prev = Some(last);
        self.dead = if in_drop_set(char::from_u32(last).unwrap_or('\0')) {
            !is_keepable(last)
        } else {
            is_inert(last)
        };
        // The history: its last `LOOKBACK - n` code points, then the tail, oldest
        // first.
        let keep = self.hist_len.min(LOOKBACK.saturating_sub(n));
        let from = self.hist_len.saturating_sub(keep);
        self.hist.copy_within(from..self.hist_len, 0);
        for (k, &cp) in tail.iter().take(n).rev().enumerate() {
            if let Some(slot) = self.hist.get_mut(keep.saturating_add(k)) {
                *slot = cp;
            }
        }
        self.hist_len = keep.saturating_add(n);
    }

    /// [`Keeper::absorb`] for a run whose last code point is dead: no trie walk
    /// passes it and it breaks any joining context, so what came before no longer
    /// matters and the history can be that code point alone (`covered` finds the same
    /// walks: every walk from before it dies on it).
    fn forget(&mut self, run: &str) {
        let Some(last) = run.chars().next_back() else {
            return;
        };
        let cp = u32::from(last);
        self.prev = Some(cp);
        self.left_ok = false;
        self.t_run = 0;
        if let Some(slot) = self.hist.first_mut() {
            *slot = cp;
        }
        self.hist_len = 1;
    }

    fn remember(&mut self, cp: u32) {
        if self.hist_len < LOOKBACK {
            if let Some(slot) = self.hist.get_mut(self.hist_len) {
                *slot = cp;
            }
            self.hist_len = self.hist_len.saturating_add(1);
        } else {
            self.hist.rotate_left(1);
            if let Some(slot) = self.hist.last_mut() {
                *slot = cp;
            }
        }
    }

    /// One code point through the slow path.
    fn append(&mut self, c: char, piece: Piece<'_>, sink: &mut impl Sink) {
        let cp = u32::from(c);
        let prev = self.prev;
        let fate = if !in_drop_set(c) {
            Fate::Keep
        } else {
            match cp {
                ZWJ if prev.is_some_and(is_virama) => Fate::Keep,
                ZWJ => Fate::Covered,
                ZWNJ if prev.is_some_and(is_virama) => Fate::Keep,
                ZWNJ if self.left_ok => Fate::Zwnj,
                VS15 if prev.is_some_and(is_text_base) => Fate::Keep,
                VS16 | 0xE0020..=0xE007F => Fate::Covered,
                _ => Fate::Drop,
            }
        };
        // The joining lookbehind for what follows.
        if in_drop_set(c) {
            self.left_ok = false;
            self.t_run = 0;
        } else {
            match joining_type(cp) {
                JT_T => {
                    self.t_run = self.t_run.saturating_add(1);
                    if self.t_run > JOIN_T_MAX {
                        self.left_ok = false;
                    }
                }
                JT_L | JT_D => {
                    self.left_ok = true;
                    self.t_run = 0;
                }
                _ => {
                    self.left_ok = false;
                    self.t_run = 0;
                }
            }
        }
        self.prev = Some(cp);
        // Conservative: a keepable member of D may continue a sequence.
        self.dead = if in_drop_set(c) {
            !is_keepable(cp)
        } else {
            is_inert(cp)
        };
        let at = self.pos;
        self.pos = self.pos.saturating_add(c.len_utf8());
        if self.len == 0 && matches!(fate, Fate::Keep | Fate::Drop) {
            self.release(Entry { cp, at, fate }, piece, sink);
            return;
        }
        if self.start.saturating_add(self.len) >= WINDOW {
            // Compact: the live entries move to the front.
            self.win.copy_within(self.start.., 0);
            self.start = 0;
        }
        if self.len >= WINDOW {
            // Cannot happen (a fate is known within `JOIN_T_MAX + 1` code points);
            // decide the oldest with what is there rather than grow.
            self.settle_one(true, piece, sink);
        }
        let slot = self.start.saturating_add(self.len);
        if let Some(e) = self.win.get_mut(slot) {
            *e = Entry { cp, at, fate };
            self.len = self.len.saturating_add(1);
        }
        self.settle(false, piece, sink);
    }

    /// Emits or drops one decided code point and moves it to the history.
    fn release(&mut self, e: Entry, piece: Piece<'_>, sink: &mut impl Sink) {
        let c = char::from_u32(e.cp).unwrap_or('\u{FFFD}');
        if e.fate == Fate::Keep {
            // The piece's bytes at `e.at` are `c`'s (the input is the concatenation
            // of the pieces).
            if let Some(own) = piece.slice(e.at, c.len_utf8()) {
                sink.text(own);
            } else {
                let mut buf = [0u8; 4];
                sink.text(c.encode_utf8(&mut buf));
            }
        } else {
            sink.dropped(e.at, c);
        }
        self.remember(e.cp);
    }

    /// Decides and releases the oldest entries while their fate is known.
    fn settle(&mut self, last: bool, piece: Piece<'_>, sink: &mut impl Sink) {
        while self.len > 0 {
            if !self.settle_one(last, piece, sink) {
                return;
            }
        }
    }

    fn settle_one(&mut self, last: bool, piece: Piece<'_>, sink: &mut impl Sink) -> bool {
        let Some(mut e) = self.win.get(self.start).copied() else {
            return false;
        };
        let keep = match e.fate {
            Fate::Keep => true,
            Fate::Drop => false,
            Fate::Covered => match self.covered(last) {
                Some(k) => k,
                None => return false,
            },
            Fate::Zwnj => match self.joins_right(last) {
                Some(k) => k,
                None => return false,
            },
        };
        e.fate = if keep { Fate::Keep } else { Fate::Drop };
        self.start = self.start.saturating_add(1);
        self.len = self.len.saturating_sub(1);
        if self.len == 0 {
            self.start = 0;
        }
        self.release(e, piece, sink);
        true
    }

    /// The code point at `j` of history ++ window.
    fn seq(&self, j: usize) -> Option<u32> {
        if j < self.hist_len {
            return self.hist.get(j).copied();
        }
        let w = j.checked_sub(self.hist_len)?;
        if w >= self.len {
            return None;
        }
        self.win.get(self.start.checked_add(w)?).map(|e| e.cp)
    }

    /// Whether an RGI sequence covers the oldest entry; `None` while more text could
    /// still decide it. Decided as soon as every walk of the trie through it has ended
    /// inside the window or found a sequence: more text cannot change a walk that ended
    /// (the window only grows at its end), so deciding early gives the answer waiting
    /// would, without holding the text after it.
    fn covered(&self, last: bool) -> Option<bool> {
        let k = self.hist_len;
        // No RGI sequence has an ASCII code point after its first, and only keycap bases
        // begin one (tests: `ascii_only_begins_keycaps`): walks from before the last
        // ASCII code point ahead of the entry die on it, and other ASCII starts at once.
        let mut first = k.saturating_sub(LOOKBACK);
        if let Some(j) = (first..k)
            .rev()
            .find(|&j| self.seq(j).is_some_and(|cp| cp < 0x80))
        {
            first = j;
        }
        // A walk reached the end of the window still on the trie.
        let mut open = false;
        for s in first..=k {
            if self
                .seq(s)
                .is_some_and(|cp| cp < 0x80 && !is_keycap_base(cp))
            {
                continue;
            }
            let mut node = 0u16;
            let mut j = s;
            loop {
                let Some(cp) = self.seq(j) else {
                    open = true;
                    break;
                };
                let Some(next) = emoji_child(node, cp) else {
                    break;
                };
                node = next;
                if j >= k && emoji_terminal(node) {
                    return Some(true);
                }
                j = j.saturating_add(1);
            }
        }
        if open && !last { None } else { Some(false) }
    }

    /// RFC 5892 A.1's lookahead for the oldest entry, a ZWNJ: T* then R|D.
    fn joins_right(&self, last: bool) -> Option<bool> {
        let mut t = 0usize;
        for w in 1..self.len {
            let e = self.win.get(self.start.saturating_add(w))?;
            let Some(c) = char::from_u32(e.cp) else {
                return Some(false);
            };
            if in_drop_set(c) {
                return Some(false);
            }
            match joining_type(e.cp) {
                JT_T => {
                    t = t.saturating_add(1);
                    if t > JOIN_T_MAX {
                        return Some(false);
                    }
                }
                JT_R | JT_D => return Some(true),
                _ => return Some(false),
            }
        }
        if last { Some(false) } else { None }
    }
}

/// Lead bytes of members of D, for the block scan, refined by D's own tables: a lead
/// byte is a candidate only where its next two bytes are those of a member, so the
/// E2 of an em dash, a curly quote or an ellipsis (General Punctuation, like ZWSP
/// and the bidi controls) does not stop the scan, and a block of prose holding only
/// such code points stays inside the block loop.
static DROP_FINDER: Finder = Finder::new(DROP_LEAD_SET).refined_by(&DROP_REFINEMENT);

/// D's multi-byte members by their first three bytes.
static DROP_REFINEMENT: Refinement = Refinement::of_ranges(&super::tables::DROP);

/// [`DROP_LEADS`] as a byte set.
// Const evaluation: `b as usize` is below 256; a slip fails the build.
#[allow(clippy::indexing_slicing)]
const DROP_LEAD_SET: ByteSet = {
    let mut set = ByteSet::EMPTY;
    let mut b = 0u8;
    loop {
        if DROP_LEADS[b as usize] {
            set = set.with(b);
        }
        if b == u8::MAX {
            break;
        }
        b += 1;
    }
    set
};

/// Pieces shorter than this are scanned byte by byte (the block scan would pad them
/// into a block of its own).
const SHORT: usize = 64;

/// The offset of the first member of D in `text` at or after `from`, or its length.
#[inline]
fn next_drop(text: &str, from: usize, scanner: &mut Scanner<'_>) -> usize {
    let bytes = text.as_bytes();
    if bytes.len().saturating_sub(from) >= SHORT {
        return scanner.next(bytes, from, |i, b| drop_at(text, i, b));
    }
    let mut i = from;
    loop {
        let Some(off) = bytes.get(i..).and_then(|rest| {
            rest.iter()
                .position(|&b| DROP_LEADS.get(usize::from(b)) == Some(&true))
        }) else {
            return bytes.len();
        };
        i = i.saturating_add(off);
        if bytes.get(i).is_some_and(|&b| drop_at(text, i, b)) {
            return i;
        }
        i = i.saturating_add(1);
    }
}

/// Whether a member of D starts at byte `i` of `text`, whose byte is `b0`. Most
/// stops are E2 leads of General Punctuation that are not in D (dashes, quotes,
/// the ellipsis): a lead of two or three bytes is decoded from the bytes as they
/// are (`text` is UTF-8, so a lead is followed by its continuation bytes) and
/// looked up in D's bitmap of the BMP, without slicing the text or a range search.
#[inline(always)]
fn drop_at(text: &str, i: usize, b0: u8) -> bool {
    let bytes = text.as_bytes();
    let cont = |k: usize| u32::from(bytes.get(i.wrapping_add(k)).copied().unwrap_or(0) & 0x3F);
    match b0 {
        0xC2..=0xDF => in_drop_set_fast(u32::from(b0 & 0x1F) << 6 | cont(1)),
        0xE0..=0xEF => in_drop_set_fast(u32::from(b0 & 0x0F) << 12 | cont(1) << 6 | cont(2)),
        _ => text
            .get(i..)
            .and_then(|s| s.chars().next())
            .is_some_and(in_drop_set),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::string::String;
    use std::vec::Vec;

    struct Collect {
        out: String,
        drops: Vec<(usize, char)>,
    }
    impl Sink for Collect {
        fn text(&mut self, s: &str) {
            self.out.push_str(s);
        }
        fn dropped(&mut self, at: usize, c: char) {
            self.drops.push((at, c));
        }
    }

    fn keep(text: &str) -> String {
        let mut k = Keeper::new();
        let mut sink = Collect {
            out: String::new(),
            drops: Vec::new(),
        };
        k.push(text, &mut sink);
        k.finish(&mut sink);
        sink.out
    }

    #[test]
    fn ascii_only_begins_keycaps() {
        use super::super::tables::{EMOJI_EDGE_CP, EMOJI_EDGE_START};
        let root_end = usize::from(EMOJI_EDGE_START[1]);
        for (k, &cp) in EMOJI_EDGE_CP.iter().enumerate() {
            if cp < 0x80 {
                assert!(k < root_end, "ASCII {cp:X} after the first code point");
                assert!(is_keycap_base(cp), "{cp:X}");
            }
        }
        for cp in 0..0x80 {
            assert_eq!(emoji_child(0, cp).is_some(), is_keycap_base(cp), "{cp:X}");
        }
    }

    #[test]
    fn spells_are_kept() {
        for s in [
            "\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}\u{200D}\u{1F466}",
            "1\u{FE0F}\u{20E3}",
            "\u{2764}\u{FE0F}",
            "\u{2764}\u{FE0E}",
            "\u{1F3F4}\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}",
            "\u{915}\u{94D}\u{200D}\u{937}",
            "\u{645}\u{6CC}\u{200C}\u{62E}\u{648}\u{627}\u{647}\u{645}",
            "\u{915}\u{94D}\u{200C}\u{937}",
        ] {
            assert_eq!(keep(s), s);
        }
    }

    #[test]
    fn the_rest_goes() {
        assert_eq!(keep("a\u{200D}b"), "ab");
        assert_eq!(keep("a\u{200E}b\u{200B}"), "ab");
        assert_eq!(keep("\u{2764}\u{FE0F}\u{FE0F}"), "\u{2764}\u{FE0F}");
        assert_eq!(keep("\u{2764}\u{FE0E}\u{FE0E}"), "\u{2764}\u{FE0E}");
        assert_eq!(keep("a\u{FE0F}"), "a");
        assert_eq!(keep("a\u{E0061}"), "a");
        // An invisible inside a sequence breaks it.
        assert_eq!(
            keep("\u{1F468}\u{200B}\u{200D}\u{1F469}"),
            "\u{1F468}\u{1F469}"
        );
        // ZWNJ after a right-joining letter: no context.
        assert_eq!(keep("\u{627}\u{200C}\u{628}"), "\u{627}\u{628}");
        assert_eq!(keep("\u{628}\u{200C}"), "\u{628}");
    }

    #[test]
    fn split_anywhere() {
        let text = "x\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467} \u{628}\u{200C}\u{64E}\u{628} 1\u{FE0F}\u{20E3}\u{200E}";
        let whole = keep(text);
        for cut in 0..=text.len() {
            if !text.is_char_boundary(cut) {
                continue;
            }
            let mut k = Keeper::new();
            let mut sink = Collect {
                out: String::new(),
                drops: Vec::new(),
            };
            k.push(&text[..cut], &mut sink);
            k.push(&text[cut..], &mut sink);
            k.finish(&mut sink);
            assert_eq!(sink.out, whole, "cut {cut}");
        }
    }

    /// Kept code points of the window reach the sink as slices of the piece they came
    /// from (strict sanitize joins touching runs into one slice of its input); one
    /// held from an earlier piece is a copy, still the same text.
    #[test]
    fn window_runs_are_the_pieces_own_bytes() {
        struct Runs<'t> {
            text: &'t str,
            /// Byte offset in `text` and length of each run, offset `None` for a copy.
            runs: Vec<(Option<usize>, usize)>,
            out: String,
        }
        impl Sink for Runs<'_> {
            fn text(&mut self, s: &str) {
                let off = (s.as_ptr() as usize)
                    .checked_sub(self.text.as_ptr() as usize)
                    .filter(|&o| o + s.len() <= self.text.len());
                self.runs.push((off, s.len()));
                self.out.push_str(s);
            }
        }
        // Nothing dropped: emoji with U+FE0F, a ZWJ sequence, a kept ZWNJ, a keycap.
        let text = "ok \u{2764}\u{FE0F} \u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}\u{200D}\u{1F466} \u{645}\u{6CC}\u{200C}\u{62E} 1\u{FE0F}\u{20E3} end";
        let mut k = Keeper::new();
        let mut sink = Runs {
            text,
            runs: Vec::new(),
            out: String::new(),
        };
        k.push(text, &mut sink);
        k.finish(&mut sink);
        assert_eq!(sink.out, text);
        assert!(sink.runs.len() > 1, "the window was used");
        // Every run is the text's own and starts where the last one ended.
        let mut end = 0usize;
        for (k, &(at, len)) in sink.runs.iter().enumerate() {
            assert_eq!(at, Some(end), "run {k}");
            end += len;
        }
        assert_eq!(end, text.len());

        // Cut just after the first U+FE0F: what follows decides it, so it waits in
        // the window across the cut and comes out as a copy; the second piece's runs
        // are its own.
        let cut = text.find('\u{FE0F}').unwrap() + 3;
        let (first, second) = text.split_at(cut);
        let mut k = Keeper::new();
        let mut sink = Runs {
            text: second,
            runs: Vec::new(),
            out: String::new(),
        };
        k.push(first, &mut sink);
        k.push(second, &mut sink);
        k.finish(&mut sink);
        assert_eq!(sink.out, text);
        let held = sink.runs.iter().position(|&r| r == (None, 3)).unwrap();
        let mut end = 0usize;
        for &(at, len) in &sink.runs[held + 1..] {
            assert_eq!(at, Some(end));
            end += len;
        }
        assert_eq!(end, second.len());
    }
}

#[cfg(test)]
mod dense_tests {
    //! The dense path (`dense.rs`) against the keep rules.
    use super::super::class::{KEEPABLE, in_drop_set_cp, in_drop_set_fast};
    use super::super::tables::{EMOJI_EDGE_CP, EMOJI_EDGE_START, EMOJI_EDGE_TO, EMOJI_TERMINAL};
    use super::*;
    use std::string::String;
    use std::vec;
    use std::vec::Vec;

    struct Collect {
        out: String,
        drops: Vec<(usize, char)>,
    }
    impl Sink for Collect {
        const DROPS: bool = true;
        fn text(&mut self, s: &str) {
            self.out.push_str(s);
        }
        fn dropped(&mut self, at: usize, c: char) {
            self.drops.push((at, c));
        }
    }

    /// Output and drops of `pieces` fed in turn.
    fn keep_pieces(pieces: &[&str]) -> (String, Vec<(usize, char)>) {
        let mut k = Keeper::new();
        let mut sink = Collect {
            out: String::new(),
            drops: Vec::new(),
        };
        for p in pieces {
            k.push(p, &mut sink);
        }
        k.finish(&mut sink);
        (sink.out, sink.drops)
    }

    fn keep(text: &str) -> String {
        keep_pieces(&[text]).0
    }

    /// Every RGI sequence holding a member of D, from the trie.
    fn sequences() -> Vec<Vec<u32>> {
        let mut out = Vec::new();
        let mut stack: Vec<(u16, Vec<u32>)> = vec![(0, Vec::new())];
        while let Some((node, path)) = stack.pop() {
            let i = node as usize;
            if EMOJI_TERMINAL[i >> 6] >> (i & 63) & 1 == 1 {
                out.push(path.clone());
            }
            for e in EMOJI_EDGE_START[i] as usize..EMOJI_EDGE_START[i + 1] as usize {
                let mut p = path.clone();
                p.push(EMOJI_EDGE_CP[e]);
                stack.push((EMOJI_EDGE_TO[e], p));
            }
        }
        out
    }

    fn string(cps: &[u32]) -> String {
        cps.iter().map(|&c| char::from_u32(c).unwrap()).collect()
    }

    #[test]
    fn keepable_is_exactly_what_the_rules_may_keep() {
        // The derivation as printed: ZWNJ, ZWJ, the selectors, the flag tags.
        assert!(KEEPABLE.windows(2).all(|w| w[0] < w[1]), "{KEEPABLE:X?}");
        for cp in 0..=0x10FFFF {
            assert_eq!(is_keepable(cp), KEEPABLE.contains(&cp), "{cp:X}");
        }
        let seqs = sequences();
        for &cp in KEEPABLE {
            assert!(in_drop_set_cp(cp), "{cp:X}");
            // No RGI sequence begins with a member of D: a keepable one needs
            // something live before it.
            assert!(emoji_child(0, cp).is_none(), "{cp:X}");
            // Each is kept somewhere: the set is no larger than the rules allow.
            let c = char::from_u32(cp).unwrap();
            let kept = match cp {
                0x200C | 0x200D => {
                    let s = std::format!("\u{915}\u{94D}{c}\u{937}");
                    keep(&s) == s
                }
                0xFE0E => {
                    let s = std::format!("\u{2764}{c}");
                    keep(&s) == s
                }
                _ => false,
            } || seqs.iter().any(|q| {
                q.contains(&cp) && {
                    let s = string(q);
                    keep(&s) == s
                }
            });
            assert!(kept, "{cp:X} is never kept");
        }
        // Every other member of D: no rule names it and no RGI sequence holds it,
        // so it is dropped in every context that keeps something.
        let edges: std::collections::BTreeSet<u32> = EMOJI_EDGE_CP.iter().copied().collect();
        let mut never = 0;
        for c in '\0'..=char::MAX {
            let cp = u32::from(c);
            assert_eq!(in_drop_set_fast(cp), in_drop_set(c), "{cp:X}");
            if !in_drop_set(c) || is_keepable(cp) {
                continue;
            }
            never += 1;
            assert!(!edges.contains(&cp), "{cp:X}");
            assert!(!matches!(cp, ZWJ | ZWNJ | VS15), "{cp:X}");
            assert!(!is_virama(cp) && !is_text_base(cp), "{cp:X}");
            for ctx in [
                std::format!("\u{915}\u{94D}{c}\u{937}"),
                std::format!("\u{2764}{c}"),
                std::format!("\u{645}\u{6CC}{c}\u{62E}"),
                std::format!("\u{1F468}{c}\u{1F469}"),
                std::format!("1{c}\u{20E3}"),
                std::format!("\u{1F3F4}\u{E0067}\u{E0062}{c}\u{E0073}\u{E0063}\u{E0074}\u{E007F}"),
            ] {
                assert!(!keep(&ctx).contains(c), "{cp:X} kept in {ctx:?}");
            }
        }
        assert_eq!(never, 4174 - KEEPABLE.len());
        // No member of D is a virama or a text base (a dropped one is dead).
        for &cp in KEEPABLE {
            assert!(!is_virama(cp) && !is_text_base(cp), "{cp:X}");
        }
    }

    #[test]
    fn inert_code_points_end_every_context() {
        let edges: std::collections::BTreeSet<u32> = EMOJI_EDGE_CP.iter().copied().collect();
        for c in '\0'..=char::MAX {
            let cp = u32::from(c);
            if !is_inert(cp) {
                continue;
            }
            assert!(!in_drop_set(c), "{cp:X}");
            assert_eq!(joining_type(cp), 0, "{cp:X}");
            assert!(!is_virama(cp) && !is_text_base(cp), "{cp:X}");
            assert!(!edges.contains(&cp), "{cp:X}");
            // After it, no keepable member of D is kept.
            for &k in KEEPABLE {
                let s = std::format!("{c}{}", char::from_u32(k).unwrap());
                assert_eq!(keep(&s), String::from(c), "{cp:X} {k:X}");
            }
        }
        // The keycap bases are live: `1 U+FE0F U+20E3`.
        assert_eq!(keep("1\u{FE0F}\u{20E3}"), "1\u{FE0F}\u{20E3}");
    }

    /// Texts with long runs of members of D next to contexts that keep some.
    fn bordered() -> Vec<String> {
        let run: String = "\u{200B}\u{200E}\u{2060}\u{FEFF}\u{E0041}\u{200D}\u{200C}\u{FE0F}\u{FE0E}\u{E0100}\u{AD}\u{202E}"
            .repeat(6);
        vec![
            // Emoji with ZWJ inside runs: kept; runs dropped.
            std::format!("{run}\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}{run}x{run}"),
            // The run right after the emoji's last code point, and inside it.
            std::format!("a\u{1F468}\u{200D}{run}\u{1F469}{run}\u{2764}\u{FE0F}{run}"),
            // Persian ZWNJ, the run before and after the word.
            std::format!("{run}\u{645}\u{6CC}\u{200C}\u{62E}\u{648}\u{627}\u{647}\u{645}{run}"),
            // Devanagari virama + ZWJ / ZWNJ, runs around and between.
            std::format!(
                "{run}\u{915}\u{94D}\u{200D}\u{937}{run}\u{915}\u{94D}\u{200C}\u{937}{run}"
            ),
            // Keycap and flag tags after runs; text bases and U+FE0E.
            std::format!(
                "{run}1\u{FE0F}\u{20E3}{run}\u{1F3F4}\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}{run}\u{2764}\u{FE0E}"
            ),
            // Dense with letters between, like the gate's hostile text.
            "a\u{200B}b\u{200D}c\u{E0041}d\u{FE0F}e\u{200C}f\u{85}g\u{FE0E}h\u{E007F}".repeat(20),
        ]
    }

    #[test]
    fn runs_bordering_keepable_contexts() {
        let run = "\u{200B}\u{200E}\u{2060}\u{FEFF}\u{E0041}\u{200D}\u{200C}\u{FE0F}\u{FE0E}\u{E0100}\u{AD}\u{202E}";
        assert_eq!(keep(&run.repeat(40)), "");
        let t = bordered();
        assert_eq!(keep(&t[0]), "\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}x");
        assert_eq!(keep(&t[1]), "a\u{1F468}\u{1F469}\u{2764}\u{FE0F}");
        assert_eq!(
            keep(&t[2]),
            "\u{645}\u{6CC}\u{200C}\u{62E}\u{648}\u{627}\u{647}\u{645}"
        );
        assert_eq!(
            keep(&t[3]),
            "\u{915}\u{94D}\u{200D}\u{937}\u{915}\u{94D}\u{200C}\u{937}"
        );
        assert_eq!(
            keep(&t[4]),
            "1\u{FE0F}\u{20E3}\u{1F3F4}\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}\u{2764}\u{FE0E}"
        );
        assert_eq!(keep(&t[5]), "abcdef\u{85}gh".repeat(20));
    }

    #[test]
    fn long_runs_split_at_every_offset() {
        for text in bordered() {
            let whole = keep_pieces(&[&text]);
            // The drops are every member of D not in the output, at their offsets.
            let dropped: usize = whole.1.iter().map(|&(_, c)| c.len_utf8()).sum();
            assert_eq!(whole.0.len() + dropped, text.len());
            for &(at, c) in &whole.1 {
                assert_eq!(text[at..].chars().next(), Some(c));
            }
            let cuts: Vec<usize> = (0..=text.len())
                .filter(|&i| text.is_char_boundary(i))
                .collect();
            for &a in &cuts {
                let two = keep_pieces(&[&text[..a], &text[a..]]);
                assert_eq!(two, whole, "cut {a} of {text:?}");
            }
            // Three pieces: a cut and one 7 code points later.
            for (k, &a) in cuts.iter().enumerate() {
                let Some(&b) = cuts.get(k + 7) else { break };
                let three = keep_pieces(&[&text[..a], &text[a..b], &text[b..]]);
                assert_eq!(three, whole, "cuts {a} {b}");
            }
        }
    }
}

#[cfg(test)]
mod stop_tests {
    //! [`next_drop`] against D itself: every member found wherever it stands, the
    //! code points sharing a lead byte with one passed.
    use super::*;
    use std::string::String;
    use std::vec::Vec;

    /// `off` bytes of em dashes (E2 leads not in D, stops the scan must pass) and ASCII,
    /// `c`, then ASCII to make the text `len` bytes or more.
    fn text_with(off: usize, c: char, len: usize) -> String {
        let mut t = String::new();
        t.extend(core::iter::repeat_n('\u{2014}', off / 3));
        t.extend(core::iter::repeat_n('a', off % 3));
        t.push(c);
        while t.len() < len {
            t.push('a');
        }
        t
    }

    fn first_drop(text: &str, backend: Backend) -> usize {
        next_drop(text, 0, &mut Scanner::new(&DROP_FINDER, backend))
    }

    #[test]
    fn every_member_of_d_at_every_offset_of_a_block() {
        let members: Vec<char> = (0..=0x10_FFFFu32)
            .filter_map(char::from_u32)
            .filter(|&c| in_drop_set(c))
            .collect();
        assert!(members.len() > 4096, "D has the tags block and more");
        for backend in Backend::all() {
            for &c in &members {
                for off in 0..64 {
                    // The block scan (a text past SHORT bytes) and the short loop.
                    for len in [off + 70, 0] {
                        let text = text_with(off, c, len);
                        assert_eq!(
                            first_drop(&text, backend),
                            off,
                            "{:X} at {off}",
                            u32::from(c)
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn the_drop_finder_is_refined_by_d() {
        assert!(DROP_FINDER.is_refined());
        // The tables are exact for D's members' first three bytes.
        crate::scan::refinement_tests::refinement_is_exact(
            &DROP_REFINEMENT,
            &super::super::tables::DROP,
        );
        // The punctuation of prose that shares D's lead bytes passes.
        for s in [
            "\u{2014}",
            "\u{2013}",
            "\u{2019}",
            "\u{201C}",
            "\u{2026}",
            "\u{20AC}",
            "\u{A0}",
            "\u{B0}",
            "\u{2122}",
            "\u{1F600}",
            "\u{FE10}",
        ] {
            assert!(!DROP_REFINEMENT.may_begin(s.as_bytes(), 0), "{s}");
        }
    }

    /// Lengths that put the code point at `off` before the end of the text, across
    /// the block scan's two-byte look-ahead past its last whole block, and far from
    /// it; 0: the short loop.
    fn lengths(off: usize) -> [usize; 6] {
        [off + 70, 0, 64, 65, 66, 67]
    }

    #[test]
    fn every_member_of_d_at_the_end_of_a_text() {
        let members: Vec<char> = (0..=0x10_FFFFu32)
            .filter_map(char::from_u32)
            .filter(|&c| in_drop_set(c))
            .collect();
        for backend in Backend::all() {
            for &c in &members {
                for off in [0, 1, 2, 30, 31, 32, 33, 59, 60, 61, 62, 63] {
                    for len in lengths(off) {
                        let text = text_with(off, c, len);
                        assert_eq!(
                            first_drop(&text, backend),
                            off,
                            "{:X} at {off}",
                            u32::from(c)
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn code_points_sharing_a_lead_with_d_are_passed() {
        let mut passed = 0usize;
        for c in (0x80..=0x10_FFFFu32).filter_map(char::from_u32) {
            let mut buf = [0u8; 4];
            let lead = c.encode_utf8(&mut buf).as_bytes()[0];
            if !DROP_LEADS[usize::from(lead)] || in_drop_set(c) {
                continue;
            }
            passed += 1;
            // Every offset of a block for some, the block's edges for all.
            let offsets: &[usize] = if passed.is_multiple_of(61) {
                &[
                    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21,
                    22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41,
                    42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61,
                    62, 63,
                ]
            } else {
                &[0, 31, 61, 62, 63]
            };
            for backend in Backend::all() {
                for &off in offsets {
                    for len in lengths(off) {
                        let text = text_with(off, c, len);
                        assert_eq!(
                            first_drop(&text, backend),
                            text.len(),
                            "{:X} at {off}",
                            u32::from(c)
                        );
                    }
                }
            }
        }
        assert!(passed > 4 * 4096 - 1024, "{passed}");
    }

    /// Code points a random text is made of: ASCII, members of D of every lead, and
    /// code points sharing a lead (and often a second byte) with them.
    const PARTS: [&str; 40] = [
        "a",
        "bc",
        " ",
        ":",
        "\u{2014}",
        "\u{2019}",
        "\u{201C}",
        "\u{2026}",
        "\u{20AC}",
        "\u{E9}",
        "\u{A0}",
        "\u{B0}",
        "\u{4E2D}",
        "\u{1F600}",
        "\u{2764}",
        "\u{AD}",
        "\u{34F}",
        "\u{340}",
        "\u{61C}",
        "\u{61B}",
        "\u{115F}",
        "\u{1161}",
        "\u{17B4}",
        "\u{17B6}",
        "\u{180B}",
        "\u{1810}",
        "\u{200B}",
        "\u{200A}",
        "\u{202E}",
        "\u{2030}",
        "\u{2060}",
        "\u{2070}",
        "\u{3164}",
        "\u{3165}",
        "\u{FE0F}",
        "\u{FE10}",
        "\u{FEFF}",
        "\u{FFA0}",
        "\u{1BCA0}",
        "\u{E0041}",
    ];

    /// Every member of D in `text` from `from` on, a code point at a time.
    fn drops_by_chars(text: &str, from: usize) -> Vec<usize> {
        text.char_indices()
            .filter(|&(i, c)| i >= from && in_drop_set(c))
            .map(|(i, _)| i)
            .collect()
    }

    proptest::proptest! {
        /// The block scans refined by D's tables against its exact test, on bytes
        /// that need not be UTF-8: D's leads, the second and third bytes of members
        /// and of their neighbours.
        #[test]
        fn refined_by_d_backends_agree_on_lead_byte_soup(
            bytes in proptest::collection::vec(proptest::sample::select(std::vec![
                0xC2u8, 0xCD, 0xD8, 0xE1, 0xE2, 0xE3, 0xEF, 0xF0, 0xF3, 0x80, 0x81, 0x85, 0x8B,
                0x8F, 0x94, 0x9B, 0x9C, 0x9D, 0x9E, 0xA0, 0xA4, 0xAD, 0xAE, 0xB2, 0xB3, 0xB8,
                0xBB, 0xBE, 0xBF, b'a', b':',
            ]), 0..400),
        ) {
            crate::scan::refinement_tests::refined_scans_agree(&bytes, DROP_LEAD_SET, &DROP_REFINEMENT);
        }

        #[test]
        fn next_drop_finds_what_a_walk_by_code_points_does(
            parts in proptest::collection::vec(0usize..PARTS.len(), 0..300),
            extra in proptest::collection::vec(0usize..PARTS.len(), 0..8),
            from_part in 0usize..300,
        ) {
            // Mostly prose-like: ASCII and the punctuation with the leads of D.
            let mut text = String::new();
            for (k, &p) in parts.iter().enumerate() {
                text.push_str(PARTS[p]);
                if k % 4 != 0 {
                    text.push_str("xyz ");
                }
            }
            for &p in &extra {
                text.push_str(PARTS[p]);
            }
            let from = text
                .char_indices()
                .map(|(i, _)| i)
                .nth(from_part)
                .unwrap_or(text.len());
            let want = drops_by_chars(&text, from);
            for backend in Backend::all() {
                let mut scanner = Scanner::new(&DROP_FINDER, backend);
                let mut got = Vec::new();
                let mut at = from;
                loop {
                    at = next_drop(&text, at, &mut scanner);
                    if at >= text.len() {
                        break;
                    }
                    got.push(at);
                    at += text[at..].chars().next().map_or(1, char::len_utf8);
                }
                proptest::prop_assert_eq!(&got, &want, "{}", backend.name());
            }
        }
    }
}
