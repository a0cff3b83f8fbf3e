//! Wrapper-forgery literals (rejected) and the envelope's own markers (redacted),
//! both matched ASCII-case-insensitively (SPEC §4, §3 step 4).

use core::fmt;

use crate::reject::Rejection;
use crate::scan::{ByteSet, Finder};

/// The reference's wrapper literals, in the order they are checked.
pub const WRAPPER_FORGERY_LITERALS: [&str; 4] = [
    "</APPLICABLE-RULES>",
    "## Applicable Rules (scoped",
    "</LEARNINGS-INDEX>",
    "## Learnings Index (selected",
];

/// The envelope's own markers, neutralised in prose.
pub const ENVELOPE_MARKERS: [&str; 2] = ["untrusted-content:start", "untrusted-content:end"];

/// What each envelope marker is replaced with.
pub const MARKER_REDACTION: &str = "[redacted-envelope-marker]";

/// Most literals a [`LiteralSet`] holds.
pub const MAX_LITERALS: usize = 8;
/// Longest literal, in bytes, a [`LiteralSet`] holds.
pub const MAX_LITERAL_LEN: usize = 64;

/// Why a literal set could not be built.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LiteralSetError {
    /// More than [`MAX_LITERALS`] literals.
    TooMany,
    /// The literal at this index is empty.
    Empty(usize),
    /// The literal at this index is longer than [`MAX_LITERAL_LEN`] bytes.
    TooLong(usize),
}

impl fmt::Display for LiteralSetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LiteralSetError::TooMany => write!(f, "more than {MAX_LITERALS} forgery literals"),
            LiteralSetError::Empty(i) => write!(f, "forgery literal {i} is empty"),
            LiteralSetError::TooLong(i) => {
                write!(
                    f,
                    "forgery literal {i} is longer than {MAX_LITERAL_LEN} bytes"
                )
            }
        }
    }
}

impl core::error::Error for LiteralSetError {}

/// A checked set of forgery literals with their matching tables, built once.
#[derive(Clone, Copy, Debug)]
pub struct LiteralSet<'a> {
    literals: [&'a str; MAX_LITERALS],
    count: usize,
    /// Per literal, the KMP failure function over its ASCII-lower-cased bytes.
    borders: [[u8; MAX_LITERAL_LEN]; MAX_LITERALS],
    /// Bytes that may begin an occurrence of any literal.
    first_bytes: ByteSet,
    /// Where prose stops while idle: attention bytes, literal first bytes, the
    /// markers' anchor (built once here so each sanitize does not rebuild it).
    prose_stops: Finder,
}

impl LiteralSet<'static> {
    /// The reference's literals, [`WRAPPER_FORGERY_LITERALS`].
    pub const DEFAULT: LiteralSet<'static> = match LiteralSet::new(&WRAPPER_FORGERY_LITERALS) {
        Ok(set) => set,
        Err(_) => LiteralSet::EMPTY,
    };
}

impl<'a> LiteralSet<'a> {
    /// The set with no literals: nothing forges.
    pub const EMPTY: LiteralSet<'a> = LiteralSet {
        literals: [""; MAX_LITERALS],
        count: 0,
        borders: [[0; MAX_LITERAL_LEN]; MAX_LITERALS],
        first_bytes: ByteSet::EMPTY,
        prose_stops: Finder::new(PROSE_ATTENTION.union(MARKER_ANCHORS)),
    };

    /// A set of up to [`MAX_LITERALS`] non-empty literals of at most [`MAX_LITERAL_LEN`]
    /// bytes, checked in the order given. Matching is ASCII-case-insensitive.
    #[allow(clippy::indexing_slicing, clippy::arithmetic_side_effects)]
    pub const fn new(literals: &[&'a str]) -> Result<Self, LiteralSetError> {
        // Indexes below are bounded by the length checks made first; const fns cannot
        // use `get`.
        if literals.len() > MAX_LITERALS {
            return Err(LiteralSetError::TooMany);
        }
        let mut set = LiteralSet::EMPTY;
        let mut i = 0;
        while i < literals.len() {
            let pat = literals[i].as_bytes();
            if pat.is_empty() {
                return Err(LiteralSetError::Empty(i));
            }
            if pat.len() > MAX_LITERAL_LEN {
                return Err(LiteralSetError::TooLong(i));
            }
            set.literals[i] = literals[i];
            set.first_bytes = set.first_bytes.with_both_cases(pat[0]);
            // borders[q] = length of the longest proper border of pat[..=q].
            let mut k = 0usize;
            let mut q = 1;
            while q < pat.len() {
                while k > 0 && !eq_ignore_case(pat[q], pat[k]) {
                    k = set.borders[i][k - 1] as usize;
                }
                if eq_ignore_case(pat[q], pat[k]) {
                    k += 1;
                }
                set.borders[i][q] = k as u8;
                q += 1;
            }
            i += 1;
        }
        set.count = literals.len();
        set.prose_stops = Finder::new(PROSE_ATTENTION.union(set.first_bytes).union(MARKER_ANCHORS));
        Ok(set)
    }

    /// The literals, in checking order.
    pub fn literals(&self) -> &[&'a str] {
        self.literals.get(..self.count).unwrap_or_default()
    }

    /// Bytes that may begin an occurrence of a literal.
    pub(crate) const fn first_bytes(&self) -> ByteSet {
        self.first_bytes
    }

    /// Bytes where prose leaves its fast path while the matchers are idle.
    pub(crate) const fn prose_stops(&self) -> &Finder {
        &self.prose_stops
    }

    /// The literal at `index` and its border table.
    fn literal(&self, index: usize) -> (&[u8], &[u8; MAX_LITERAL_LEN]) {
        let lit = self.literals.get(index).map_or(&[][..], |l| l.as_bytes());
        let borders = self.borders.get(index).unwrap_or(&[0; MAX_LITERAL_LEN]);
        (lit, borders)
    }
}

const fn eq_ignore_case(a: u8, b: u8) -> bool {
    a.eq_ignore_ascii_case(&b)
}

/// One KMP step: the matched length after `b`, given `k` bytes matched before it.
#[inline]
fn kmp_step(pat: &[u8], borders: &[u8], mut k: usize, b: u8) -> usize {
    loop {
        if pat.get(k).is_some_and(|&p| eq_ignore_case(p, b)) {
            return k.saturating_add(1);
        }
        if k == 0 {
            return 0;
        }
        k = borders
            .get(k.saturating_sub(1))
            .map_or(0, |&n| usize::from(n));
    }
}

/// Streaming search for every literal of a set: which literals occur, in one pass.
#[derive(Clone, Copy, Debug)]
pub(crate) struct LiteralMatcher<'s> {
    set: &'s LiteralSet<'s>,
    states: [u8; MAX_LITERALS],
    found: u16,
}

impl<'s> LiteralMatcher<'s> {
    pub(crate) const fn new(set: &'s LiteralSet<'s>) -> Self {
        LiteralMatcher {
            set,
            states: [0; MAX_LITERALS],
            found: 0,
        }
    }

    /// Whether no literal is partly matched: the next byte can only start one.
    #[inline]
    pub(crate) fn is_idle(&self) -> bool {
        self.states.iter().all(|&s| s == 0)
    }

    /// Feeds one byte of the text.
    #[inline]
    pub(crate) fn push(&mut self, b: u8) {
        for (i, state) in self.states.iter_mut().enumerate().take(self.set.count) {
            if self.found & (1 << i) != 0 {
                continue;
            }
            let (pat, borders) = self.set.literal(i);
            let k = kmp_step(pat, borders, usize::from(*state), b);
            if k >= pat.len() {
                self.found |= 1 << i;
                *state = 0;
            } else {
                // Infallible: k < pat.len() <= MAX_LITERAL_LEN.
                *state = u8::try_from(k).unwrap_or(0);
            }
        }
    }

    /// Whether no later byte can change the verdict: the first literal is found, or
    /// there are none.
    pub(crate) fn is_decided(&self) -> bool {
        self.set.count == 0 || self.found & 1 != 0
    }

    /// The first literal, in checking order, that occurred.
    pub(crate) fn first_found(&self) -> Option<&'s str> {
        if self.found == 0 {
            return None;
        }
        let index = self.found.trailing_zeros() as usize;
        self.set.literals().get(index).copied()
    }
}

/// The first literal of `set`, in checking order, that occurs in `text`.
pub fn find_forgery<'s>(text: &str, set: &'s LiteralSet<'s>) -> Option<&'s str> {
    let mut matcher = LiteralMatcher::new(set);
    for &b in text.as_bytes() {
        matcher.push(b);
        if matcher.is_decided() {
            break;
        }
    }
    matcher.first_found()
}

/// `assertNoWrapperForgery`: a rejection naming `field` when `text` contains a literal.
pub fn check_no_forgery<'a>(
    text: &str,
    field: &'a str,
    set: &'a LiteralSet<'a>,
) -> Result<(), Rejection<'a>> {
    match find_forgery(text, set) {
        Some(literal) => Err(Rejection::forgery(field, literal)),
        None => Ok(()),
    }
}

/// Streaming redaction of the envelope markers: bytes that may still turn out to be
/// part of a marker are held back (at most one marker's length) until decided.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct MarkerRedactor {
    states: [u8; 2],
    held: [u8; 32],
    held_len: usize,
    released: [u8; 32],
}

/// Border tables of the two markers (computed at compile time).
const MARKER_BORDERS: [[u8; MAX_LITERAL_LEN]; 2] = {
    match LiteralSet::new(&ENVELOPE_MARKERS) {
        Ok(set) => [set.borders[0], set.borders[1]],
        Err(_) => [[0; MAX_LITERAL_LEN]; 2],
    }
};

/// Lead bytes of code points prose may drop: TAB and LF are kept, and frequent.
const PROSE_ATTENTION: ByteSet = ByteSet::ATTENTION.without(b'\t').without(b'\n');

/// The byte every marker has at [`MARKER_ANCHOR_OFFSET`]. It is rare in prose (unlike
/// the markers' first byte `u`), so the fast path stops on it instead and recovers
/// a marker's beginning from the bytes before it ([`MarkerRedactor::resync`]).
pub(crate) const MARKER_ANCHORS: ByteSet = ByteSet::EMPTY.with(b':');

/// Where the anchor sits in each marker; a partial marker without it is shorter.
const MARKER_ANCHOR_OFFSET: usize = "untrusted-content".len();

/// The longest run end that can still be a marker's beginning: the part before the
/// anchor.
pub(crate) const MARKER_RESYNC_LEN: usize = MARKER_ANCHOR_OFFSET;

/// What the redactor decided about one byte.
pub(crate) enum MarkerStep<'h> {
    /// Emit these held bytes, then the byte itself belongs to the caller's run.
    Pass(&'h [u8]),
    /// Emit these held bytes; the byte is now held.
    Hold(&'h [u8]),
    /// A marker completed: emit the redaction instead of the held bytes and the byte.
    Redact,
}

impl MarkerRedactor {
    /// Whether nothing is held: the next byte can only start a marker.
    #[inline]
    pub(crate) fn is_idle(&self) -> bool {
        self.held_len == 0
    }

    /// Feeds one byte of the cleaned text.
    #[inline]
    pub(crate) fn push(&mut self, b: u8) -> MarkerStep<'_> {
        let mut keep = 0;
        for (i, state) in self.states.iter_mut().enumerate() {
            let pat = ENVELOPE_MARKERS.get(i).map_or(&[][..], |m| m.as_bytes());
            let borders = MARKER_BORDERS.get(i).map_or(&[][..], |b| &b[..]);
            let k = kmp_step(pat, borders, usize::from(*state), b);
            if k >= pat.len() {
                self.states = [0, 0];
                self.held_len = 0;
                return MarkerStep::Redact;
            }
            *state = u8::try_from(k).unwrap_or(0);
            keep = keep.max(k);
        }
        if keep == 0 {
            let len = self.held_len;
            self.held_len = 0;
            return MarkerStep::Pass(self.held.get(..len).unwrap_or_default());
        }
        // The bytes matched so far are the last `keep` bytes of (held + b); the ones
        // before them can no longer be part of a marker and are released.
        let release = self.held_len.saturating_add(1).saturating_sub(keep);
        let release = release.min(self.held_len);
        if let (Some(dst), Some(src)) = (self.released.get_mut(..release), self.held.get(..release))
        {
            dst.copy_from_slice(src);
        }
        self.held.copy_within(release..self.held_len, 0);
        self.held_len = self.held_len.saturating_sub(release);
        if let Some(slot) = self.held.get_mut(self.held_len) {
            *slot = b;
            self.held_len = self.held_len.saturating_add(1);
        }
        MarkerStep::Hold(self.released.get(..release).unwrap_or_default())
    }

    /// Re-enters the state after an idle redactor saw `run` (cleaned text without the
    /// anchor byte, so no marker completes in it), given at least its last
    /// [`MARKER_RESYNC_LEN`] bytes. Returns how many of its last bytes are now held
    /// as a possible marker beginning; the caller emits the rest.
    pub(crate) fn resync(&mut self, run: &[u8]) -> usize {
        let tail = run
            .get(run.len().saturating_sub(MARKER_RESYNC_LEN)..)
            .unwrap_or_default();
        // Both markers begin with the same anchor-free part; the longest suffix of
        // the run that begins it is held. It starts with `u`, so only those are tried.
        let common = ENVELOPE_MARKERS
            .first()
            .and_then(|m| m.as_bytes().get(..MARKER_RESYNC_LEN))
            .unwrap_or_default();
        let keep = (0..tail.len())
            .filter(|&j| tail.get(j).is_some_and(|&b| b | 0x20 == b'u'))
            .map(|j| tail.get(j..).unwrap_or_default())
            .find(|suffix| {
                common
                    .get(..suffix.len())
                    .is_some_and(|p| p.eq_ignore_ascii_case(suffix))
            })
            .map_or(0, <[u8]>::len);
        if keep == 0 {
            return 0;
        }
        // Infallible: keep <= MARKER_RESYNC_LEN < 256.
        self.states = [u8::try_from(keep).unwrap_or(0); 2];
        let held = tail
            .get(tail.len().saturating_sub(keep)..)
            .unwrap_or_default();
        if let Some(dst) = self.held.get_mut(..held.len()) {
            dst.copy_from_slice(held);
            self.held_len = held.len();
        }
        self.held_len
    }

    /// The bytes still held at the end of the text: they were no marker.
    pub(crate) fn flush(&mut self) -> &[u8] {
        let len = self.held_len;
        self.held_len = 0;
        self.states = [0, 0];
        self.held.get(..len).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_set_is_the_reference_census() {
        assert_eq!(LiteralSet::DEFAULT.literals(), &WRAPPER_FORGERY_LITERALS);
    }

    #[test]
    fn finds_case_insensitively_in_checking_order() {
        let set = LiteralSet::DEFAULT;
        assert_eq!(
            find_forgery("x </applicable-rules> y", &set),
            Some("</APPLICABLE-RULES>")
        );
        assert_eq!(
            find_forgery("</LEARNINGS-INDEX> then </APPLICABLE-RULES>", &set),
            Some("</APPLICABLE-RULES>")
        );
        assert_eq!(find_forgery("## Applicable\u{A0}Rules (scoped", &set), None);
        assert_eq!(find_forgery("</APPLICABLE-RULES", &set), None);
    }

    #[test]
    fn kmp_handles_self_overlap() {
        let lits = ["aab"];
        let set = LiteralSet::new(&lits).unwrap();
        assert_eq!(find_forgery("aaab", &set), Some("aab"));
        assert_eq!(find_forgery("aaba", &set), Some("aab"));
        assert_eq!(find_forgery("abab", &set), None);
    }

    #[test]
    fn set_limits() {
        assert_eq!(
            LiteralSet::new(&[""; 9]).unwrap_err(),
            LiteralSetError::TooMany
        );
        assert_eq!(
            LiteralSet::new(&["a", ""]).unwrap_err(),
            LiteralSetError::Empty(1)
        );
        let long = "x".repeat(65);
        assert_eq!(
            LiteralSet::new(&[long.as_str()]).unwrap_err(),
            LiteralSetError::TooLong(0)
        );
    }
}
