//! Steps 3–5 of strict sanitize (PROFILE-STRICT §4–§7): controls but TAB and LF go,
//! forgery literals are found and markers, special tokens and `<!--` replaced, all on
//! the folded view.
//!
//! Replacement is leftmost-longest over a hold of at most [`HOLD`] code points: the
//! patterns are prefix-free (at most one matches at a position), so the hold keeps the
//! text from the leftmost position where a pattern may still match until it matches
//! or fails. Text that folds to no pattern's first byte passes in whole runs.

use super::class::{Fold, fold};
use super::sink::Sink;
use crate::forgery::{
    AnyAutomaton, Automaton, ENVELOPE_MARKERS, INFO_LITERALS, LiteralSet, MARKER_REDACTION,
};
use crate::scan::{Backend, ByteSet, Finder, Refinement, RefinementBuilder, Scanner};

/// What a special token is replaced with (§5).
pub const TOKEN_REDACTION: &str = "[redacted special token]";
/// What `<!--` is replaced with (§6).
pub const COMMENT_REDACTION: &str = "[html-comment]";

#[path = "tokens.rs"]
mod tokens;

pub use tokens::SPECIAL_TOKENS;
use tokens::{FIXED, PATTERN_MAX};

/// Whether `a` sorts before `b` bytewise, or `a` is a prefix of `b` (`prefix`).
#[allow(clippy::indexing_slicing, clippy::arithmetic_side_effects)]
const fn order(a: &str, b: &str) -> (bool, bool) {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    // Const evaluation: `i` is below both lengths; a slip fails the build.
    let mut i = 0;
    while i < a.len() && i < b.len() {
        if a[i] != b[i] {
            return (a[i] < b[i], false);
        }
        i += 1;
    }
    (a.len() < b.len(), a.len() <= b.len())
}

// What the matcher's walk rests on, checked at build time as the generator checks it: the
// table is sorted and prefix-free (a prefix is a neighbour once sorted), and holds the
// envelope's markers and `<!--` with their replacements.
#[allow(clippy::indexing_slicing, clippy::arithmetic_side_effects)]
const _: () = {
    let mut i = 0;
    while i + 1 < FIXED.len() {
        let (before, prefix) = order(FIXED[i].0, FIXED[i + 1].0);
        assert!(before && !prefix, "FIXED is not sorted and prefix-free");
        i += 1;
    }
    let wanted = [
        (ENVELOPE_MARKERS[0], Kind::Marker),
        (ENVELOPE_MARKERS[1], Kind::Marker),
        ("<!--", Kind::Comment),
    ];
    let mut w = 0;
    while w < wanted.len() {
        let mut found = false;
        let mut i = 0;
        while i < FIXED.len() {
            let (lt, prefix) = order(FIXED[i].0, wanted[w].0);
            let (gt, _) = order(wanted[w].0, FIXED[i].0);
            if !lt && !gt && prefix {
                assert!(
                    FIXED[i].1 as u8 == wanted[w].1 as u8,
                    "a fixed pattern's kind"
                );
                found = true;
            }
            i += 1;
        }
        assert!(found, "FIXED lacks a marker or `<!--`");
        w += 1;
    }
};

/// The most code points a generic token's name may have (§5).
pub const NAME_MAX: usize = 64;

/// Code points the replacement hold keeps at most: the longest pattern's span.
pub(crate) const HOLD: usize = NAME_MAX.saturating_add(16);

// A fixed pattern spans at most two code points per byte (one that folds to it, and a
// member of D it kept after it), so every one fits the hold.
const _: () = assert!(PATTERN_MAX.saturating_mul(2) <= HOLD);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Marker,
    Token,
    Comment,
}

/// Whether a folded byte may begin a pattern.
#[inline]
const fn starts_pattern(b: u8) -> bool {
    matches!(b, b'<' | b'[' | b'u')
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Outcome {
    NoMatch,
    NeedMore,
    /// A match ending with the code point at this hold index.
    Match(usize, Kind),
}

/// The forgery literals of a set, searched on the folded view with the set's own
/// automaton (ASCII-case-insensitive; the folded view is lower-case ASCII).
#[derive(Clone, Debug)]
struct Detector<'s> {
    auto: AnyAutomaton<'s>,
    state: u16,
    /// Bit `i`: literal `i` was found.
    found: u8,
    /// The automaton is off its root.
    busy: bool,
    /// Both cases of each literal's first byte.
    firsts: [bool; 128],
    /// Per automaton state, where a pattern's first byte lies in the bytes its chain
    /// matched ([`Detector::chain_starts`]): bits 0–15 the positions, bits 16 and up
    /// how many positions are known.
    chain_firsts: [u32; 256],
}

impl<'s> Detector<'s> {
    fn new(set: &'s LiteralSet<'s>) -> Self {
        let mut firsts = [false; 128];
        for literal in set.literals() {
            if let Some(&b) = literal.as_bytes().first() {
                for v in [b.to_ascii_lowercase(), b.to_ascii_uppercase()] {
                    if let Some(f) = firsts.get_mut(usize::from(v)) {
                        *f = true;
                    }
                }
            }
        }
        Detector {
            auto: set.automaton(),
            state: 0,
            found: 0,
            busy: false,
            firsts,
            chain_firsts: [0; 256],
        }
    }

    /// The positions in `bytes[from..end]` (at most 16 bytes, which the chain of
    /// `state` matched) holding a pattern's first byte (`<`, `[`, `u`, either case),
    /// as bits. What a chain matches is its own label up to ASCII case, so the
    /// positions are the state's, found once: along `</APPLICABLE-RULE` repeated,
    /// the chains are met again every 17 bytes, each a 16-byte test before.
    #[inline]
    fn chain_starts(&mut self, state: u16, bytes: &[u8], from: usize, end: usize) -> u32 {
        let n = end.saturating_sub(from);
        let Some(entry) = self.chain_firsts.get_mut(usize::from(state) & 0xFF) else {
            return 0;
        };
        let below = 1u32.checked_shl(n as u32).unwrap_or(0).wrapping_sub(1) & 0xFFFF;
        if (*entry >> 16) as usize >= n {
            return *entry & below;
        }
        let mut bits = 0u32;
        for (k, &b) in bytes.get(from..end).unwrap_or_default().iter().enumerate() {
            if starts_pattern(b.to_ascii_lowercase()) {
                bits |= 1u32.checked_shl(k as u32).unwrap_or(0);
            }
        }
        bits &= below;
        *entry = bits | (n.min(16) as u32) << 16;
        bits
    }

    #[inline]
    fn feed(&mut self, f: Fold) {
        match f {
            Fold::Chars(bytes) => {
                for &b in bytes {
                    self.feed_byte(b);
                }
            }
            Fold::Barrier => {
                self.state = 0;
                self.busy = false;
            }
        }
    }

    /// Feeds the plain ASCII from `from` on while the search is under way: printable
    /// bytes, TAB and LF, but not a pattern's first byte where a pattern may begin
    /// (the caller decides those); returns where it stopped. The caller's
    /// byte-at-a-time path would do the same.
    #[inline]
    fn feed_plain(&mut self, bytes: &[u8], from: usize) -> usize {
        let mut i = from;
        // Locals, not fields, in the loop: no store and reload per byte.
        let (mut state, mut found) = (self.state, self.found);
        while state != 0 {
            // Along a literal's own part the automaton keeps a chain: the bytes that
            // spell it go in one compare, exactly as their steps would (chain labels
            // are plain ASCII and report nothing, so `found` stays). Only a pattern's
            // beginning among them is left to the caller.
            let (next, end) = self.auto.chain(state, bytes, i);
            if end > i {
                let mut starts = self.chain_starts(state, bytes, i, end);
                let mut first = None;
                while starts != 0 {
                    let k = i.saturating_add(starts.trailing_zeros() as usize);
                    starts &= starts.wrapping_sub(1);
                    if may_start(bytes.get(k..).unwrap_or_default()) {
                        first = Some(k);
                        break;
                    }
                }
                match first {
                    None => {
                        state = next;
                        i = end;
                        continue;
                    }
                    Some(k) => {
                        // The chain up to that byte (fewer than its length: the
                        // byte-by-byte compare of what matched already).
                        let upto = bytes.get(..k).unwrap_or_default();
                        (state, i) = self.auto.chain(state, upto, i);
                        break;
                    }
                }
            }
            let Some(&b) = bytes.get(i) else { break };
            let l = b.to_ascii_lowercase();
            let plain = (0x20..0x7F).contains(&b) || b == b'\t' || b == b'\n';
            if !plain || (starts_pattern(l) && may_start(bytes.get(i..).unwrap_or_default())) {
                break;
            }
            state = self.auto.step(state, l);
            // The low byte of the info word is the literal mask.
            found |= (self.auto.info(state) & INFO_LITERALS) as u8;
            i = i.saturating_add(1);
        }
        self.state = state;
        self.found = found;
        self.busy = state != 0;
        i
    }

    /// One folded byte. Idle, only a literal's first byte moves the search: the
    /// automaton's marker states matter to redaction, which is not done here.
    #[inline]
    fn feed_byte(&mut self, b: u8) {
        if !self.busy && self.firsts.get(usize::from(b)) != Some(&true) {
            return;
        }
        self.state = self.auto.step(self.state, b);
        // The low byte of the info word is the literal mask.
        self.found |= (self.auto.info(self.state) & INFO_LITERALS) as u8;
        self.busy = self.state != 0;
    }
}

/// Steps 3–5 over a stream of text pieces.
#[derive(Clone, Debug)]
pub(crate) struct Matcher<'s> {
    detector: Detector<'s>,
    hold: [char; HOLD],
    /// The held code points are `hold[head..head + hold_len]`.
    head: usize,
    hold_len: usize,
    /// Where the next candidate start is looked for: a fold offset in `hold[0]`.
    scan_off: usize,
    /// Bytes that leave the fast path: controls but TAB/LF, DEL, pattern and literal
    /// first bytes (both cases), non-ASCII bytes; found by the crate's block scan.
    stops: Finder,
    /// The same bytes, for short pieces (under a block), where a block scan costs more
    /// than it skips.
    stop_set: ByteSet,
    /// Whether a marker, token or comment was replaced.
    pub(crate) replaced: bool,
    /// Folds of recent non-ASCII code points, by the low bits of the code point: prose
    /// repeats a few (dashes, quotes), and each fold is otherwise a table search.
    fold_cache: [(u32, Fold); FOLD_CACHE],
    /// The scan backend.
    backend: Backend,
    /// Whether the idle scan passes over inert non-ASCII code points ([`is_inert`]);
    /// off only in the tests that compare both ways.
    skip_inert: bool,
}

/// Entries of [`Matcher`]'s fold cache (a power of two).
const FOLD_CACHE: usize = 64;

/// [`fold`], through `cache` (by the low bits of the code point) for non-ASCII code
/// points.
#[inline]
fn fold_through(cache: &mut [(u32, Fold); FOLD_CACHE], c: char) -> Fold {
    let cp = u32::from(c);
    if cp < 0x80 {
        return fold(c);
    }
    let slot = (cp as usize) & (FOLD_CACHE - 1);
    if let Some(&(k, f)) = cache.get(slot)
        && k == cp
    {
        return f;
    }
    let f = fold(c);
    if let Some(e) = cache.get_mut(slot) {
        *e = (cp, f);
    }
    f
}

/// Whether the stop byte `b` at `at` (the idle scan began at `from`: nothing held,
/// the literal search at its root) begins a code point the main loop would pass over
/// unchanged: a non-ASCII code point that is no control step 3 drops, whose fold is
/// a barrier or has neither a literal's first byte nor a pattern's first byte (so the
/// search stays idle and no pattern begins), and which no marker beginning just before
/// it may continue into. Stopping there would only hand it back to the scan;
/// continuation bytes of a code point passed over are inert too. Whatever the scan
/// stops at next is decided as before (the runs between are passed on whole either
/// way), so the output is the same.
#[inline]
fn is_inert(
    text: &str,
    from: usize,
    at: usize,
    b: u8,
    cache: &mut [(u32, Fold); FOLD_CACHE],
    firsts: &[bool; 128],
) -> bool {
    if b < 0x80 {
        return false;
    }
    if b < 0xC0 {
        return true;
    }
    let Some(c) = text.get(at..).and_then(|s| s.chars().next()) else {
        return false;
    };
    if is_dropped_control(c) {
        return false;
    }
    match fold_through(cache, c) {
        Fold::Barrier => true,
        Fold::Chars(folded) => {
            let starts = folded
                .iter()
                .any(|&f| starts_pattern(f) || firsts.get(usize::from(f)).copied().unwrap_or(true));
            // A marker beginning ends right before `at` only after a byte of the stem.
            let after_stem = at
                .checked_sub(1)
                .and_then(|k| text.as_bytes().get(k))
                .is_some_and(|&p| in_stem(p));
            // Only a fold that is empty or goes on with a marker's byte may continue one.
            let may_continue = folded.first().is_none_or(|&f| in_stem(f) || f == b':');
            let continues_marker = may_continue
                && after_stem
                && marker_start_before(text.as_bytes(), from, at).is_some();
            !(starts || continues_marker)
        }
    }
}

impl<'s> Matcher<'s> {
    pub(crate) fn new(set: &'s LiteralSet<'s>) -> Self {
        let detector = Detector::new(set);
        let stop_set = stop_set(&detector.firsts);
        let stops = stop_finder(stop_set);
        Matcher {
            stop_set,
            // Code point 0 is ASCII, never looked up here.
            fold_cache: [(0, Fold::Barrier); FOLD_CACHE],
            backend: Backend::best(),
            detector,
            hold: ['\0'; HOLD],
            head: 0,
            hold_len: 0,
            scan_off: 0,
            stops,
            replaced: false,
            skip_inert: true,
        }
    }

    /// A matcher scanning on `backend` ([`Matcher::new`] picks the best; for the hidden
    /// `*_on` entries that tests and fuzz targets call).
    pub(crate) fn on(set: &'s LiteralSet<'s>, backend: Backend) -> Self {
        let mut m = Matcher::new(set);
        m.backend = backend;
        m
    }

    /// A matcher that stops at every non-ASCII code point (the tests compare it with
    /// [`Matcher::new`]).
    #[cfg(test)]
    pub(crate) fn stopping_everywhere(set: &'s LiteralSet<'s>) -> Self {
        let m = Matcher::new(set);
        Matcher {
            skip_inert: false,
            // Every lead byte, not only those of code points that may stop.
            stops: Finder::new(m.stop_set),
            ..m
        }
    }

    /// The literals found so far (bit `i`: literal `i` of the set).
    pub(crate) fn found(&self) -> u8 {
        self.detector.found
    }

    /// Feeds text (whole code points) that steps 1–2 kept.
    pub(crate) fn push(&mut self, text: &str, out: &mut impl Sink) {
        let bytes = text.as_bytes();
        let mut i = 0usize;
        // Start of the run of `text` passed on unchanged, not yet handed over.
        let mut run = 0usize;
        // One scanner per piece: stops close together share a block's mask.
        let stops = self.stops;
        let mut scanner = Scanner::new(&stops, self.backend);
        while i < bytes.len() {
            if self.hold_len == 0 {
                if self.detector.busy {
                    i = self.detector.feed_plain(bytes, i);
                }
                if !self.detector.busy {
                    let from = i;
                    let (cache, firsts) = (&mut self.fold_cache, &self.detector.firsts);
                    let skip_inert = self.skip_inert;
                    i = skip_plain(bytes, i, &mut scanner, &self.stop_set, |at, b| {
                        !(skip_inert && is_inert(text, from, at, b, cache, firsts))
                    });
                }
            }
            let Some(&b) = bytes.get(i) else { break };
            if b < 0x80
                && self.hold_len == 0
                && !is_dropped_control(char::from(b))
                && !(starts_pattern(b.to_ascii_lowercase())
                    && may_start(bytes.get(i..).unwrap_or_default()))
            {
                // An ASCII byte that begins no pattern here: only the literals look.
                self.detector.feed_byte(b.to_ascii_lowercase());
                i = i.saturating_add(1);
                continue;
            }
            let Some(c) = text.get(i..).and_then(|s| s.chars().next()) else {
                break;
            };
            let here = i;
            i = i.saturating_add(c.len_utf8());
            if is_dropped_control(c) {
                put_run(text, run, here, out);
                run = i;
                continue;
            }
            let f = self.fold_cached(c);
            self.detector.feed(f);
            if self.hold_len == 0 {
                let candidate = match f {
                    Fold::Chars(b) => b.iter().any(|&b| starts_pattern(b)),
                    Fold::Barrier => false,
                };
                if !candidate {
                    continue;
                }
            }
            put_run(text, run, here, out);
            run = i;
            self.hold_push(c, out);
            // Deciding later gives the same bytes (a match or a mismatch found with
            // fewer code points stands with more; the held text is emitted in order),
            // so a growing hold is decided when its length doubles, and always before
            // it fills: a long token opening costs a linear number of walks, not a
            // quadratic one.
            if self.hold_len.is_power_of_two() || self.hold_len >= HOLD.saturating_sub(1) {
                self.resolve(false, out);
            }
        }
        if self.hold_len == 0 {
            put_run(text, run, bytes.len(), out);
        }
    }

    /// [`fold`], through the cache for non-ASCII code points.
    #[inline]
    fn fold_cached(&mut self, c: char) -> Fold {
        fold_through(&mut self.fold_cache, c)
    }

    fn hold_push(&mut self, c: char, out: &mut impl Sink) {
        if self.hold_len >= HOLD {
            // Cannot happen (no pattern spans `HOLD` code points): decide what is
            // held rather than grow.
            self.resolve(true, out);
        }
        if self.head.saturating_add(self.hold_len) >= HOLD {
            self.hold
                .copy_within(self.head..self.head.saturating_add(self.hold_len), 0);
            self.head = 0;
        }
        if let Some(slot) = self.hold.get_mut(self.head.saturating_add(self.hold_len)) {
            *slot = c;
            self.hold_len = self.hold_len.saturating_add(1);
        }
    }

    fn held(&self) -> &[char] {
        self.hold
            .get(self.head..self.head.saturating_add(self.hold_len))
            .unwrap_or_default()
    }

    /// Ends the input.
    pub(crate) fn finish(&mut self, out: &mut impl Sink) {
        self.resolve(true, out);
    }

    /// Emits the first `n` held code points and drops them from the hold.
    fn emit_held(&mut self, n: usize, out: &mut impl Sink) {
        let n = n.min(self.hold_len);
        for &c in self.held().get(..n).unwrap_or_default() {
            let mut buf = [0u8; 4];
            out.text(c.encode_utf8(&mut buf));
        }
        self.drop_held(n);
    }

    fn drop_held(&mut self, n: usize) {
        let n = n.min(self.hold_len);
        self.head = self.head.saturating_add(n);
        self.hold_len = self.hold_len.saturating_sub(n);
        if self.hold_len == 0 {
            self.head = 0;
        }
        self.scan_off = 0;
    }

    /// Replaces, emits and keeps held text until a pattern waits for more input (or,
    /// when `last`, until nothing is held).
    fn resolve(&mut self, last: bool, out: &mut impl Sink) {
        loop {
            let Some((i, off)) = self.next_candidate() else {
                self.emit_held(self.hold_len, out);
                return;
            };
            if i > 0 {
                self.emit_held(i, out);
            }
            self.scan_off = off;
            match self.match_at(off, last) {
                Outcome::NeedMore => return,
                Outcome::NoMatch => self.scan_off = off.saturating_add(1),
                Outcome::Match(end, kind) => {
                    out.replacement(match kind {
                        Kind::Marker => MARKER_REDACTION,
                        Kind::Token => TOKEN_REDACTION,
                        Kind::Comment => COMMENT_REDACTION,
                    });
                    self.replaced = true;
                    self.drop_held(end.saturating_add(1));
                }
            }
        }
    }

    /// The first held position, from `scan_off` in `hold[0]` on, whose folded byte may
    /// begin a pattern: `(code point index, fold offset)`.
    fn next_candidate(&self) -> Option<(usize, usize)> {
        for (i, &c) in self.held().iter().enumerate() {
            if let Fold::Chars(bytes) = fold(c) {
                let from = if i == 0 { self.scan_off } else { 0 };
                if let Some(k) = bytes
                    .get(from..)
                    .unwrap_or_default()
                    .iter()
                    .position(|&b| starts_pattern(b))
                {
                    return Some((i, from.saturating_add(k)));
                }
            }
        }
        None
    }

    /// The folded view of the hold from fold offset `off` of `hold[0]`.
    fn cursor(&self, off: usize) -> Cursor<'_> {
        Cursor {
            hold: self.held(),
            i: 0,
            off,
        }
    }

    fn match_at(&self, off: usize, last: bool) -> Outcome {
        // The first two folded bytes rule out most patterns before any is walked: every
        // pattern has at least two bytes, and a barrier second ends them all.
        let mut head = self.cursor(off);
        let Some(Item::Char(b0, _)) = head.next() else {
            return Outcome::NoMatch;
        };
        let b1 = match head.next() {
            Some(Item::Char(b, _)) => Some(b),
            Some(Item::Barrier(_)) => return Outcome::NoMatch,
            None => None,
        };
        let mut more = false;
        match fixed_match(self.cursor(off)) {
            Outcome::NoMatch => {}
            Outcome::NeedMore => more = true,
            matched => return matched,
        }
        if b0 == b'<' && b1.is_none_or(|b| b == b'|') {
            match generic_at(self.cursor(off)) {
                Outcome::Match(end, _) => return Outcome::Match(end, Kind::Token),
                Outcome::NeedMore => more = true,
                Outcome::NoMatch => {}
            }
        }
        if more && !last {
            Outcome::NeedMore
        } else {
            Outcome::NoMatch
        }
    }
}

/// What the envelope markers share before their first byte that is a stop (`:`).
/// Only they begin with `u`; the block scan does not stop at `u`, so a marker is found
/// by looking back from the next stop (see [`marker_start_before`]).
const MARKER_STEM: &str = "untrusted-content";

/// The fixed stops: lead bytes of non-ASCII code points (every scan begins on a
/// boundary, so a continuation byte follows a lead byte already decided), controls but
/// TAB and LF, DEL, `<` and `[`, and the byte after [`MARKER_STEM`].
const BASE_STOPS: ByteSet = {
    let mut set = ByteSet::EMPTY;
    let mut b = 0u8;
    loop {
        if b >= 0xC0
            || (b < 0x20 && b != b'\t' && b != b'\n')
            || b == 0x7F
            || b == b'<'
            || b == b'['
            || b == b':'
        {
            set = set.with(b);
        }
        if b == u8::MAX {
            break;
        }
        b += 1;
    }
    set
};

/// The stops for the default literals (whose first bytes are `<` and `#`), prepared
/// at compile time: [`BASE_STOPS`]' ASCII bytes and `#`, and of the lead bytes only
/// those of code points that may not be inert ([`MAY_STOP`]), each refined by
/// [`MAY_STOP`]'s tables. A code point outside [`MAY_STOP`] is inert wherever it
/// stands ([`is_inert`] passes over it; a test checks every code point), so not
/// stopping at it leaves the stops the scan confirms as they were, while a block of
/// prose whose non-ASCII code points are dashes, quotes, accented letters, CJK or
/// emoji stays inside the block loop instead of returning to ask for each of them.
static DEFAULT_STOPS: Finder =
    Finder::new(DEFAULT_ASCII_STOPS.union(MAY_STOP.leads())).refined_by(&MAY_STOP);

/// The ASCII stops of the default literals.
const DEFAULT_ASCII_STOPS: ByteSet = {
    let set = BASE_STOPS.with(b'#');
    let mut ascii = ByteSet::EMPTY;
    let mut b = 0u8;
    while b < 0x80 {
        if set.contains(b) {
            ascii = ascii.with(b);
        }
        b += 1;
    }
    ascii
};

/// Whether a code point folding to `folded` may be a stop [`is_inert`] does not
/// pass over, for any set of literals [`DEFAULT_STOPS`] serves (their first bytes
/// are among [`DEFAULT_ASCII_STOPS`]) and in any context: its fold is empty or may
/// go on with a marker (a byte of [`MARKER_STEM`] or `:` first), or has a
/// pattern's or such a literal's first byte.
#[allow(clippy::indexing_slicing, clippy::arithmetic_side_effects)]
const fn may_stop(folded: &[u8]) -> bool {
    // Index `k < folded.len()`.
    if folded.is_empty() || in_stem(folded[0]) || folded[0] == b':' {
        return true;
    }
    let mut k = 0;
    while k < folded.len() {
        let f = folded[k];
        if starts_pattern(f) || (f < 0x80 && DEFAULT_ASCII_STOPS.contains(f)) {
            return true;
        }
        k += 1;
    }
    false
}

/// The lead and second byte ranges of [`MAY_STOP`]'s groups (the scan's tables hold
/// 16): exact where prose's common non-ASCII code points are (General Punctuation
/// `E2 80`, the currency signs `E2 82`, emoji `F0 9F`, Latin-1 `C2`/`C3`), coarse
/// elsewhere.
const MAY_STOP_HEADS: [[u8; 4]; 16] = [
    [0xC2, 0xC3, 0x80, 0xBF],
    [0xC4, 0xCF, 0x80, 0xBF],
    [0xD0, 0xDF, 0x80, 0xBF],
    [0xE0, 0xE0, 0x80, 0xBF],
    [0xE1, 0xE1, 0x80, 0xBF],
    [0xE2, 0xE2, 0x80, 0x80],
    [0xE2, 0xE2, 0x81, 0x81],
    [0xE2, 0xE2, 0x82, 0x83],
    [0xE2, 0xE2, 0x84, 0x86],
    [0xE2, 0xE2, 0x87, 0xBF],
    [0xE3, 0xE3, 0x80, 0xBF],
    [0xE4, 0xE9, 0x80, 0xBF],
    [0xEA, 0xEE, 0x80, 0xBF],
    [0xEF, 0xEF, 0x80, 0xBF],
    [0xF0, 0xF0, 0x9F, 0x9F],
    [0xF0, 0xF4, 0x80, 0xBF],
];

/// The non-ASCII code points the idle scan may have to stop at, by their first
/// three bytes: the controls step 3 drops (U+0080–U+009F), D (folds to nothing), and
/// every code point of the fold table whose fold [`may_stop`]. Every other
/// non-ASCII code point folds to a barrier or to bytes that begin nothing and
/// continue no marker.
static MAY_STOP: Refinement = {
    use super::tables::{DROP, FOLD, FOLD_TEXT};
    let mut b = RefinementBuilder::grouped(&MAY_STOP_HEADS);
    b.add_range(0x80, 0x9F);
    let mut r = 0;
    while r < DROP.len() {
        // Const evaluation: `r < DROP.len()`; a slip fails the build.
        #[allow(clippy::indexing_slicing)]
        let (lo, hi) = DROP[r];
        b.add_range(lo, hi);
        r = r.saturating_add(1);
    }
    let text = FOLD_TEXT.as_bytes();
    let mut i = 0;
    while i < FOLD.len() {
        // Const evaluation: `i < FOLD.len()`, and each entry's text lies in
        // FOLD_TEXT (the generator's); a slip fails the build.
        #[allow(clippy::indexing_slicing)]
        let (cp, off, len) = FOLD[i];
        let (_, rest) = text.split_at(off as usize);
        let (folded, _) = rest.split_at(len as usize);
        if may_stop(folded) {
            b.add_code_point(cp);
        }
        i = i.saturating_add(1);
    }
    b.finish()
};

/// The stops for a set whose literals begin with the bytes in `firsts`.
fn stop_set(firsts: &[bool; 128]) -> ByteSet {
    let mut set = BASE_STOPS;
    for (b, &first) in (0u8..).zip(firsts.iter()) {
        if first {
            set = set.with(b);
        }
    }
    set
}

/// [`stop_set`] prepared for the block scan.
fn stop_finder(set: ByteSet) -> Finder {
    if set == BASE_STOPS.with(b'#') {
        DEFAULT_STOPS
    } else {
        Finder::new(set)
    }
}

/// The first position at or after `from` where the plain run ends: the first stop, or
/// before it the start of a run of [`MARKER_STEM`]'s first bytes that reaches it (the
/// stop may continue a marker: `:`, a byte that folds to anything, a control that
/// vanishes, or the end of the piece). A `u` anywhere else begins nothing: the old
/// one-byte-at-a-time rule (`u` before `n`, then the ASCII after it) decides the same.
#[inline]
fn skip_plain(
    bytes: &[u8],
    from: usize,
    scanner: &mut Scanner<'_>,
    set: &ByteSet,
    mut confirm: impl FnMut(usize, u8) -> bool,
) -> usize {
    let rest = bytes.get(from..).unwrap_or_default();
    let stop = if rest.len() >= SHORT {
        scanner.next(bytes, from, confirm)
    } else {
        let mut at = from;
        for &b in rest {
            if set.contains(b) && confirm(at, b) {
                break;
            }
            at = at.saturating_add(1);
        }
        at
    };
    marker_start_before(bytes, from, stop).unwrap_or(stop)
}

/// The first `u` in `from..stop` (either case) from which the bytes up to `stop` spell
/// a prefix of [`MARKER_STEM`].
#[inline]
fn marker_start_before(bytes: &[u8], from: usize, stop: usize) -> Option<usize> {
    let mut lo = from.max(stop.saturating_sub(MARKER_STEM.len()));
    // Every byte from the `u` to `stop` is a byte of the stem: the `u` lies in the run
    // of such bytes that ends at `stop`, found walking back (usually a word's end).
    let mut k = stop;
    while k > lo {
        let prev = k.saturating_sub(1);
        if !bytes.get(prev).is_some_and(|&b| in_stem(b)) {
            lo = k;
            break;
        }
        k = prev;
    }
    let window = bytes.get(lo..stop)?;
    for (k, &b) in window.iter().enumerate() {
        if b | 0x20 == b'u' {
            let tail = window.get(k..).unwrap_or_default();
            if MARKER_STEM
                .as_bytes()
                .get(..tail.len())
                .is_some_and(|p| p.eq_ignore_ascii_case(tail))
            {
                return Some(lo.saturating_add(k));
            }
        }
    }
    None
}

/// Whether `b` is a byte of [`MARKER_STEM`] (either case).
#[inline]
const fn in_stem(b: u8) -> bool {
    // Bit `b` for each byte of the stem, both cases (all are below 128).
    const STEM: u128 = {
        let stem = MARKER_STEM.as_bytes();
        let mut bits = 0u128;
        let mut i = 0;
        while i < stem.len() {
            // Const evaluation: `i < stem.len()`; a slip fails the build.
            #[allow(clippy::indexing_slicing)]
            let c = stem[i];
            bits |= 1 << c.to_ascii_lowercase();
            bits |= 1 << c.to_ascii_uppercase();
            i = i.saturating_add(1);
        }
        bits
    };
    b < 0x80 && (STEM >> (b & 0x7F)) & 1 != 0
}

/// Pieces shorter than this are scanned byte by byte (the block scan would pad them
/// into a block of its own).
const SHORT: usize = 64;

/// [`skip_plain`] for the tests, with the default stops.
#[cfg(test)]
pub(crate) fn skip_plain_for_test(bytes: &[u8], from: usize, backend: Backend) -> usize {
    // Every lead byte a stop: the test's model stops at each.
    let every = Finder::new(BASE_STOPS.with(b'#'));
    let mut scanner = Scanner::new(&every, backend);
    skip_plain(bytes, from, &mut scanner, &BASE_STOPS.with(b'#'), |_, _| {
        true
    })
}

/// Every fixed pattern, folded (the tests look for each in sanitized text).
#[cfg(test)]
pub(crate) fn fixed_patterns_for_test() -> impl Iterator<Item = &'static str> {
    FIXED.iter().map(|&(p, _)| p)
}

/// [`MARKER_STEM`], for the tests.
#[cfg(test)]
pub(crate) const MARKER_STEM_FOR_TEST: &str = MARKER_STEM;

/// [`may_start`] of `rest` (which begins with a pattern's first byte), and what a walk
/// of every pattern alone decides, for the tests.
#[cfg(test)]
pub(crate) fn may_start_and_walk(rest: &[u8]) -> (bool, bool) {
    let first = rest.first().map_or(0, u8::to_ascii_lowercase);
    (may_start(rest), may_start_walk(rest, first))
}

/// Controls step 3 drops: every Cc but TAB and LF.
#[inline]
fn is_dropped_control(c: char) -> bool {
    crate::class::is_control(c) && c != '\t' && c != '\n'
}

#[inline]
fn put_run(text: &str, from: usize, to: usize, out: &mut impl Sink) {
    if from < to
        && let Some(s) = text.get(from..to)
    {
        out.text(s);
    }
}

/// Whether ASCII byte `b` leaves a pattern undecided when it follows a pattern's
/// beginning: a non-ASCII byte (it may fold to anything) or a control step 3 drops
/// (its neighbours meet).
#[inline(always)]
const fn undecided(b: u8) -> bool {
    b >= 0x80 || (b < 0x20 && b != b'\t' && b != b'\n') || b == 0x7F
}

/// What the first two bytes of a pattern say, by row (the first byte: `u`, `[`, `<`)
/// and the second byte as it is: `0` no pattern begins with them, [`UNDECIDED`] the
/// second byte is `|` (`<|` is the generic token's whole opening) or leaves every
/// pattern undecided ([`undecided`]), otherwise `2 + j`, `thirds[j]` the third bytes
/// (as they are: both cases, and the undecided ones) after which a fixed pattern
/// beginning with the two may go on.
#[derive(Clone, Copy, Debug)]
struct Prefixes {
    pairs: [[u8; 256]; 3],
    /// Bit `b % 64` of word `b / 64`: third byte `b` may go on.
    thirds: [[u64; 4]; PAIRS],
    /// The same for the fourth byte, whatever the third (every pattern has four).
    fourths: [[u64; 4]; PAIRS],
    /// `FIXED[lo..hi]`: the patterns beginning with the pair (one run: the table is
    /// sorted), where a walk of the table starts at its third byte.
    runs: [(u16, u16); PAIRS],
}

/// Pairs of first bytes [`Prefixes::thirds`] has room for (the fixed patterns have 30).
const PAIRS: usize = 48;

/// [`Prefixes::pairs`] where the first two bytes decide nothing.
const UNDECIDED: u8 = 1;

/// The row of [`Prefixes::pairs`] for a pattern's (folded) first byte.
#[inline(always)]
const fn row_of(first: u8) -> Option<usize> {
    match first {
        b'u' => Some(0),
        b'[' => Some(1),
        b'<' => Some(2),
        _ => None,
    }
}

// Const evaluation: the indexes are bounded by the loops, the lengths (every fixed
// pattern has at least three bytes, all ASCII) and the asserts; a slip fails the build.
#[allow(clippy::indexing_slicing, clippy::arithmetic_side_effects)]
const PREFIXES: Prefixes = {
    let mut p = Prefixes {
        pairs: [[0; 256]; 3],
        thirds: [[0; 4]; PAIRS],
        fourths: [[0; 4]; PAIRS],
        runs: [(0, 0); PAIRS],
    };
    let mut n = 0usize;
    let mut i = 0;
    while i < FIXED.len() {
        let pat = FIXED[i].0.as_bytes();
        let Some(r) = row_of(pat[0]) else {
            panic!("a fixed pattern begins with a byte `starts_pattern` does not know");
        };
        assert!(
            !(pat[0] == b'<' && pat[1] == b'|'),
            "`<|` is the generic token's"
        );
        let second = pat[1];
        if p.pairs[r][second as usize] == 0 {
            assert!(
                n < PAIRS,
                "more pairs of first bytes than `Prefixes::thirds`"
            );
            p.pairs[r][second as usize] = 2 + n as u8;
            p.pairs[r][second.to_ascii_uppercase() as usize] = 2 + n as u8;
            p.runs[n] = (i as u16, i as u16);
            n += 1;
        }
        let j = (p.pairs[r][second as usize] - 2) as usize;
        assert!(
            p.runs[j].1 as usize == i,
            "a pair's patterns are not one run"
        );
        p.runs[j].1 = i as u16 + 1;
        let mut b = 0usize;
        while b < 256 {
            let third = b as u8;
            if undecided(third) || third.to_ascii_lowercase() == pat[2] {
                p.thirds[j][b >> 6] |= 1 << (b & 63);
            }
            assert!(pat.len() >= 4, "a fixed pattern has fewer than four bytes");
            if undecided(third) || third.to_ascii_lowercase() == pat[3] {
                p.fourths[j][b >> 6] |= 1 << (b & 63);
            }
            b += 1;
        }
        i += 1;
    }
    let mut r = 0;
    while r < 3 {
        let mut b = 0usize;
        while b < 256 {
            if undecided(b as u8) {
                p.pairs[r][b] = UNDECIDED;
            }
            b += 1;
        }
        r += 1;
    }
    p.pairs[2][b'|' as usize] = UNDECIDED;
    p
};

/// Whether a pattern may begin at the start of `rest` (an ASCII pattern first byte),
/// judged by the ASCII after it. Undecided, and so `true`, at the end of `rest`, at a
/// non-ASCII byte (it may fold to anything) and at a control step 3 drops (its
/// neighbours meet). Most candidates end on their second or third byte here, by a
/// table lookup each (the bytes as they are), without a walk of the patterns.
#[inline]
fn may_start(rest: &[u8]) -> bool {
    let Some(&second) = rest.get(1) else {
        return true;
    };
    let first = rest.first().map_or(0, u8::to_ascii_lowercase);
    let Some(row) = row_of(first).and_then(|r| PREFIXES.pairs.get(r)) else {
        return undecided(second);
    };
    let pair = row.get(usize::from(second)).copied().unwrap_or(UNDECIDED);
    match pair {
        0 => return false,
        UNDECIDED => return true,
        _ => {}
    }
    let Some(&third) = rest.get(2) else {
        return true;
    };
    let words = PREFIXES
        .thirds
        .get(usize::from(pair.wrapping_sub(2)))
        .copied()
        .unwrap_or([u64::MAX; 4]);
    let word = words
        .get(usize::from(third >> 6))
        .copied()
        .unwrap_or(u64::MAX);
    if (word >> (third & 63)) & 1 == 0 {
        return false;
    }
    // The fourth byte likewise: `</` begins dozens of closing tags, and `</a` is met at
    // every `<` of `</APPLICABLE-RULE` repeated.
    // (After an undecided third byte the fourth may be the third: walk.)
    let Some(&fourth) = rest.get(3).filter(|_| !undecided(third)) else {
        return rest.len() < 4 || may_start_walk(rest, first);
    };
    let words = PREFIXES
        .fourths
        .get(usize::from(pair.wrapping_sub(2)))
        .copied()
        .unwrap_or([u64::MAX; 4]);
    let word = words
        .get(usize::from(fourth >> 6))
        .copied()
        .unwrap_or(u64::MAX);
    if (word >> (fourth & 63)) & 1 == 0 {
        return false;
    }
    may_start_walk(rest, first)
}

/// The run of [`FIXED`] whose patterns begin with `first` (folded) and `second` (either
/// case), from [`PREFIXES`].
#[inline]
fn run_of(first: u8, second: u8) -> Option<(usize, usize)> {
    let pair = PREFIXES
        .pairs
        .get(row_of(first)?)?
        .get(usize::from(second))
        .copied()?;
    let &(lo, hi) = PREFIXES.runs.get(usize::from(pair.checked_sub(2)?))?;
    Some((usize::from(lo), usize::from(hi)))
}

/// [`may_start`] past the third byte: the sorted table walked down by the bytes of
/// `rest` (lower-cased) from the run of its first two, and the generic opening `<|`.
fn may_start_walk(rest: &[u8], first: u8) -> bool {
    let Some(&second) = rest.get(1) else {
        return true;
    };
    if undecided(second) || (first == b'<' && second == b'|') {
        return true;
    }
    let Some((mut lo, mut hi)) = run_of(first, second) else {
        return false;
    };
    for (depth, &b) in rest.iter().enumerate().skip(2) {
        if undecided(b) {
            return true;
        }
        (lo, hi) = narrow(lo, hi, depth, b.to_ascii_lowercase());
        match FIXED.get(lo) {
            _ if lo >= hi => return false,
            Some(&(pat, _)) if pat.len() == depth.saturating_add(1) => return true,
            _ => {}
        }
    }
    // `rest` ended inside a pattern.
    true
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Item {
    Char(u8, usize),
    Barrier(usize),
}

/// Walks the folded view of held code points.
#[derive(Clone, Copy, Debug)]
struct Cursor<'h> {
    hold: &'h [char],
    i: usize,
    off: usize,
}

impl Iterator for Cursor<'_> {
    type Item = Item;

    fn next(&mut self) -> Option<Item> {
        loop {
            let &c = self.hold.get(self.i)?;
            match fold(c) {
                Fold::Barrier => {
                    let at = self.i;
                    self.i = self.i.saturating_add(1);
                    self.off = 0;
                    return Some(Item::Barrier(at));
                }
                Fold::Chars(bytes) => {
                    if let Some(&b) = bytes.get(self.off) {
                        self.off = self.off.saturating_add(1);
                        return Some(Item::Char(b, self.i));
                    }
                    self.i = self.i.saturating_add(1);
                    self.off = 0;
                }
            }
        }
    }
}

/// The byte of `pat` at `depth`, 0 past its end (no pattern holds a 0, so a pattern
/// sorts before the longer ones it is a prefix of, as bytewise order has it).
#[inline]
fn byte_at(pat: &str, depth: usize) -> u8 {
    pat.as_bytes().get(depth).copied().unwrap_or(0)
}

/// Narrows `FIXED[lo..hi]`, whose patterns share their first `depth` bytes, to those whose
/// byte at `depth` is `b` (a run, the table being sorted).
#[inline]
fn narrow(lo: usize, hi: usize, depth: usize, b: u8) -> (usize, usize) {
    let run = FIXED.get(lo..hi).unwrap_or_default();
    if run.len() <= 4 {
        // A few patterns (a long prefix narrows to one): a scan costs less than two
        // searches.
        let start = run
            .iter()
            .position(|(p, _)| byte_at(p, depth) >= b)
            .unwrap_or(run.len());
        let len = run
            .get(start..)
            .unwrap_or_default()
            .iter()
            .take_while(|(p, _)| byte_at(p, depth) == b)
            .count();
        return (
            lo.saturating_add(start),
            lo.saturating_add(start).saturating_add(len),
        );
    }
    let start = run.partition_point(|(p, _)| byte_at(p, depth) < b);
    let end = run.partition_point(|(p, _)| byte_at(p, depth) <= b);
    (lo.saturating_add(start), lo.saturating_add(end))
}

/// The fixed pattern (at most one: they are prefix-free) the folded view under `cur`
/// begins with: a walk down the sorted table, one binary search per byte, instead of a
/// walk of each pattern.
fn fixed_match(mut cur: Cursor<'_>) -> Outcome {
    // The first two bytes choose a run of the table ([`PREFIXES`]); every pattern is
    // longer.
    let Some(Item::Char(first, _)) = cur.next() else {
        return Outcome::NoMatch;
    };
    let second = match cur.next() {
        // Only a byte some pattern begins with waits for more.
        None if row_of(first).is_some() => return Outcome::NeedMore,
        None | Some(Item::Barrier(_)) => return Outcome::NoMatch,
        Some(Item::Char(b, _)) => b,
    };
    let Some((mut lo, mut hi)) = run_of(first, second) else {
        return Outcome::NoMatch;
    };
    let mut depth = 2usize;
    loop {
        let (b, at) = match cur.next() {
            // Patterns in `lo..hi` go on past what is held.
            None => return Outcome::NeedMore,
            Some(Item::Barrier(_)) => return Outcome::NoMatch,
            Some(Item::Char(b, at)) => (b, at),
        };
        (lo, hi) = narrow(lo, hi, depth, b);
        depth = depth.saturating_add(1);
        match FIXED.get(lo) {
            _ if lo >= hi => return Outcome::NoMatch,
            // The run's first pattern is the shortest: when it ends here it is the only one.
            Some(&(pat, kind)) if pat.len() == depth => return Outcome::Match(at, kind),
            _ => {}
        }
    }
}

fn fixed_at(mut cur: Cursor<'_>, pat: &[u8]) -> Outcome {
    let mut end = 0;
    for &p in pat {
        match cur.next() {
            None => return Outcome::NeedMore,
            Some(Item::Char(b, at)) if b == p.to_ascii_lowercase() => end = at,
            Some(_) => return Outcome::NoMatch,
        }
    }
    Outcome::Match(end, Kind::Token)
}

/// The name code points a `<!--` inside a generic token's name counts for: those of
/// its replacement (ASCII, so its byte length), which a second pass would see there.
const COMMENT_NAME_LEN: usize = COMMENT_REDACTION.len();

/// `<|` name `|>` (§5). The name counts every code point between the `|`s, members of
/// D (which fold to nothing) included, so a token spans at most [`HOLD`] code points.
/// A `<!--` in the name counts as its replacement, [`COMMENT_NAME_LEN`] name code
/// points: replaced alone, `[html-comment]` (no space, `<`, `>` or `|`) would form the
/// token with the `<|` and `|>` around it on a second pass, so one pass takes the
/// whole token.
fn generic_at(mut cur: Cursor<'_>) -> Outcome {
    // The code point after the opening `|`: where the name begins.
    let mut uncounted = 0usize;
    for p in [b'<', b'|'] {
        match cur.next() {
            None => return Outcome::NeedMore,
            Some(Item::Char(b, at)) if b == p => uncounted = at.saturating_add(1),
            Some(_) => return Outcome::NoMatch,
        }
    }
    // Name code points counted, those before `uncounted`.
    let mut names = 0usize;
    loop {
        let (b, at) = match cur.next() {
            None => return Outcome::NeedMore,
            Some(Item::Barrier(at)) => (None, at),
            Some(Item::Char(b, at)) => (Some(b), at),
        };
        match b {
            Some(b'|') => {
                // Members of D before the `|` are name code points too.
                names = names.saturating_add(at.saturating_sub(uncounted));
                if names == 0 || names > NAME_MAX {
                    return Outcome::NoMatch;
                }
                return match cur.next() {
                    None => Outcome::NeedMore,
                    Some(Item::Char(b'>', end)) => Outcome::Match(end, Kind::Token),
                    Some(_) => Outcome::NoMatch,
                };
            }
            Some(b' ' | b'\t' | b'\n' | b'\r' | 0x0B | 0x0C | b'<' | b'>') => {
                // The byte just read is at fold offset `cur.off - 1` of code point `at`.
                let here = Cursor {
                    hold: cur.hold,
                    i: at,
                    off: cur.off.saturating_sub(1),
                };
                let end = match comment_in(here) {
                    Outcome::Match(end, _) => end,
                    other => return other,
                };
                // The replacement covers the whole code point the comment begins in
                // (counted already when its fold began with name bytes).
                if at < uncounted {
                    names = names.saturating_sub(1);
                } else {
                    names = names.saturating_add(at.saturating_sub(uncounted));
                }
                names = names.saturating_add(COMMENT_NAME_LEN);
                if names > NAME_MAX {
                    return Outcome::NoMatch;
                }
                // And the whole code point it ends in: the name goes on after it.
                uncounted = end.saturating_add(1);
                cur = Cursor {
                    hold: cur.hold,
                    i: uncounted,
                    off: 0,
                };
            }
            _ => {
                if at >= uncounted {
                    names = names.saturating_add(at.saturating_add(1).saturating_sub(uncounted));
                    uncounted = at.saturating_add(1);
                    if names > NAME_MAX {
                        return Outcome::NoMatch;
                    }
                }
            }
        }
    }
}

/// A `<!--` beginning in the code point under `cur`, at its fold offset or later (a
/// fold such as `≪`'s `<<` or `⪥`'s `><` holds the `<` after a byte no name may hold;
/// the comment's replacement covers the whole code point, that byte included).
fn comment_in(cur: Cursor<'_>) -> Outcome {
    let Some(Fold::Chars(bytes)) = cur.hold.get(cur.i).map(|&c| fold(c)) else {
        return Outcome::NoMatch;
    };
    for (off, &b) in bytes.iter().enumerate().skip(cur.off) {
        if b != b'<' {
            continue;
        }
        match fixed_at(Cursor { off, ..cur }, b"<!--") {
            Outcome::NoMatch => {}
            // Any later `<` in this fold would need still more input.
            decided => return decided,
        }
    }
    Outcome::NoMatch
}

#[cfg(test)]
mod idle_tests {
    //! The idle scan's refined stops against [`is_inert`]: every code point that may
    //! stop it is a candidate, and with the refinement the scan stops where it did
    //! without it.
    use super::*;
    use std::string::String;
    use std::vec::Vec;

    /// The first bytes of any literal set [`DEFAULT_STOPS`] serves, all at once (the
    /// widest `firsts`: [`is_inert`] says "inert" less often with more).
    fn widest_firsts() -> [bool; 128] {
        let mut firsts = [false; 128];
        for (b, f) in (0u8..).zip(firsts.iter_mut()) {
            *f = DEFAULT_ASCII_STOPS.contains(b);
        }
        firsts
    }

    #[test]
    fn the_default_literals_use_the_refined_stops() {
        let detector = Detector::new(&LiteralSet::DEFAULT);
        assert_eq!(stop_finder(stop_set(&detector.firsts)), DEFAULT_STOPS);
        assert!(DEFAULT_STOPS.is_refined());
        for (b, &first) in (0u8..).zip(detector.firsts.iter()) {
            assert!(!first || DEFAULT_ASCII_STOPS.contains(b), "{b:02X}");
        }
    }

    #[test]
    fn every_code_point_that_may_stop_the_scan_is_a_candidate() {
        let mut cache = [(0u32, Fold::Barrier); FOLD_CACHE];
        let firsts = [widest_firsts(), Detector::new(&LiteralSet::DEFAULT).firsts];
        let mut passed = 0usize;
        for c in '\u{80}'..=char::MAX {
            // The context where the most code points stop: just after the stem's
            // start (a marker may go on), the scan started before it.
            let mut text = String::from("untrusted");
            let at = text.len();
            text.push(c);
            text.push('x');
            let bytes = text.as_bytes();
            let candidate = DEFAULT_STOPS.stops_at(bytes, at);
            for f in &firsts {
                for from in [0, at] {
                    if !is_inert(&text, from, at, bytes[at], &mut cache, f) {
                        assert!(candidate, "U+{:04X} may stop the scan", u32::from(c));
                    }
                }
            }
            passed += usize::from(!candidate);
        }
        // Most code points are passed over by the block scan itself.
        assert!(passed > 1_000_000, "{passed}");
        // Prose's common non-ASCII code points among them.
        for c in [
            '\u{2014}', '\u{2019}', '\u{201C}', '\u{201D}', '\u{2026}', '\u{20AC}', 'é', 'ü', 'ñ',
            '\u{A0}', '°', '中', '😀', '\u{2022}', '«', '©',
        ] {
            let mut buf = [0u8; 8];
            let e = c.encode_utf8(&mut buf[..4]).len();
            assert!(!DEFAULT_STOPS.stops_at(&buf[..e + 2], 0), "{c}");
        }
    }

    /// Pieces of idle-scan text: ASCII, the stem and the stops, code points that may
    /// stop (controls, D, folds to the stem or a pattern byte) and that may not.
    const PARTS: [&str; 36] = [
        "a",
        "plain words ",
        "untrusted",
        "unt",
        "-content",
        ":",
        "<",
        "[",
        "#",
        "u",
        "\u{7}",
        "\u{85}",
        "\u{9F}",
        "\u{AD}",
        "\u{200B}",
        "\u{FE0F}",
        "\u{E0041}",
        "\u{2013}",
        "\u{2010}",
        "\u{FF55}",
        "\u{FF1A}",
        "\u{FF1C}",
        "\u{435}",
        "\u{43E}",
        "\u{DF}",
        "\u{2122}",
        "\u{2014}",
        "\u{2019}",
        "\u{201C}",
        "\u{2026}",
        "\u{20AC}",
        "é",
        "\u{A0}",
        "中",
        "😀",
        "\u{1D42E}",
    ];

    proptest::proptest! {
        #[test]
        fn the_refined_scan_stops_where_every_lead_byte_would(
            parts in proptest::collection::vec(0usize..PARTS.len(), 0..200),
            from_part in 0usize..200,
        ) {
            let text: String = parts.iter().map(|&p| PARTS[p]).collect();
            let bytes = text.as_bytes();
            let every = Finder::new(BASE_STOPS.with(b'#'));
            let firsts = Detector::new(&LiteralSet::DEFAULT).firsts;
            let starts: Vec<usize> = text.char_indices().map(|(i, _)| i).collect();
            let from = starts.get(from_part).copied().unwrap_or(text.len());
            for backend in Backend::all() {
                let mut cache = [(0u32, Fold::Barrier); FOLD_CACHE];
                let mut stops = [Vec::new(), Vec::new()];
                for (k, f) in [&DEFAULT_STOPS, &every].into_iter().enumerate() {
                    let mut scanner = Scanner::new(f, backend);
                    let mut at = from;
                    while at < bytes.len() {
                        let stop = skip_plain(bytes, at, &mut scanner, &BASE_STOPS.with(b'#'), |i, b| {
                            !is_inert(&text, from, i, b, &mut cache, &firsts)
                        });
                        stops[k].push(stop);
                        // On past the stop's code point.
                        at = text[stop..].chars().next().map_or(bytes.len(), |c| stop + c.len_utf8()).max(at + 1);
                        while at < bytes.len() && !text.is_char_boundary(at) {
                            at += 1;
                        }
                    }
                }
                proptest::prop_assert_eq!(&stops[0], &stops[1], "{}", backend.name());
            }
        }
    }
}

#[cfg(test)]
mod table_tests {
    //! The sorted-table walks against a plain walk of every fixed pattern.
    use super::*;
    use std::string::String;
    use std::vec::Vec;

    /// The fixed pattern `held` (folded, no barrier) begins with, by trying each.
    fn naive(held: &[u8]) -> Outcome {
        let mut more = false;
        for &(pat, kind) in FIXED.iter() {
            let p = pat.as_bytes();
            if held.starts_with(p) {
                return Outcome::Match(p.len() - 1, kind);
            }
            more |= p.starts_with(held);
        }
        if more {
            Outcome::NeedMore
        } else {
            Outcome::NoMatch
        }
    }

    fn walk(held: &str) -> Outcome {
        let chars: Vec<char> = held.chars().collect();
        let cur = Cursor {
            hold: &chars,
            i: 0,
            off: 0,
        };
        fixed_match(cur)
    }

    #[test]
    fn every_pattern_and_its_prefixes() {
        for &(pat, kind) in FIXED.iter() {
            assert_eq!(walk(pat), Outcome::Match(pat.len() - 1, kind), "{pat:?}");
            let longer = String::from(pat) + "x";
            assert_eq!(
                walk(&longer),
                Outcome::Match(pat.len() - 1, kind),
                "{pat:?}"
            );
            for k in 1..pat.len() {
                assert_eq!(walk(&pat[..k]), Outcome::NeedMore, "{pat:?} {k}");
                let mut miss = String::from(&pat[..k]);
                miss.push('\u{1}');
                assert_eq!(walk(&miss), naive(miss.as_bytes()), "{miss:?}");
            }
        }
        // The cursor folds: upper case meets the lower-case table.
        assert_eq!(walk("[TOOL_CALLS]"), Outcome::Match(11, Kind::Token));
    }

    /// Pieces of pattern text: the beginnings the tables share.
    const PARTS: [&str; 16] = [
        "<",
        "[",
        "/",
        "s",
        "system",
        "-reminder",
        "tool",
        "_call",
        "s]",
        ">",
        " ",
        "\n",
        "inst",
        "]",
        "think",
        "untrusted-content:end",
    ];

    proptest::proptest! {
        #[test]
        fn the_table_walk_is_the_plain_walk(parts in proptest::collection::vec(0usize..PARTS.len(), 1..12)) {
            let held: String = parts.iter().map(|&p| PARTS[p]).collect();
            proptest::prop_assert_eq!(walk(&held), naive(held.as_bytes()), "{:?}", held);
        }
    }
}
