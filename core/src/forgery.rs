//! Wrapper-forgery literals (rejected) and the envelope's own markers (redacted),
//! both matched ASCII-case-insensitively (SPEC §4, §3 step 4).
//!
//! Every literal of a set and both markers are matched together by one Aho–Corasick
//! automaton over ASCII-lower-cased bytes. For the default set (and the empty one)
//! the automaton is a dense DFA built at compile time: one table lookup per byte,
//! bytes mapped to a small class alphabet first. Custom sets keep the trie with
//! failure links (built by the `const fn` [`LiteralSet::new`]), which is linear too:
//! each byte costs at most as many failure steps as earlier bytes deepened the state.

use core::fmt;

use crate::reject::Rejection;
use crate::scan::{ByteSet, Finder, Scanner};

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

/// Trie nodes the markers need at most (their common part once, then each ending).
const MARKER_NODES: usize = "untrusted-content:".len() + "start".len() + "end".len();
/// Most trie nodes of a set: every literal byte, the markers, the root.
const MAX_NODES: usize = MAX_LITERALS * MAX_LITERAL_LEN + MARKER_NODES + 1;

/// The per-state facts the engines read, packed: bits 0–7 the literals (by index)
/// that end here, bits 8–14 how many of the last bytes are the beginning of a
/// marker (they may still become one), bit 15 a marker ends here.
pub(crate) const INFO_LITERALS: u16 = 0x00FF;
const INFO_DEPTH_SHIFT: u32 = 8;
const INFO_DEPTH_MASK: u16 = 0x7F;
/// A marker ends at this state.
pub(crate) const INFO_MARKER_END: u16 = 1 << 15;

/// The held marker beginning (bytes) an info word describes.
#[inline(always)]
pub(crate) const fn info_marker_depth(info: u16) -> usize {
    ((info >> INFO_DEPTH_SHIFT) & INFO_DEPTH_MASK) as usize
}

/// An Aho–Corasick automaton over ASCII-lower-cased bytes; state 0 is the root.
pub(crate) trait Automaton {
    /// The state after `b`.
    fn step(&self, state: u16, b: u8) -> u16;
    /// The state's [info word](INFO_LITERALS).
    fn info(&self, state: u16) -> u16;

    /// Skips along the state's chain (see [`Dense`]): when the bytes at `at` spell
    /// the beginning of the unique path of trie edges the state's chain records —
    /// kept ASCII, no state on it reporting a literal or a marker end — returns the
    /// state at the end of the matched part and the position after it. Unchanged
    /// when nothing matches or the automaton keeps no chains.
    #[inline(always)]
    fn chain(&self, state: u16, _bytes: &[u8], at: usize) -> (u16, usize) {
        (state, at)
    }
}

impl<T: Automaton + ?Sized> Automaton for &T {
    #[inline(always)]
    fn step(&self, state: u16, b: u8) -> u16 {
        (**self).step(state, b)
    }
    #[inline(always)]
    fn info(&self, state: u16) -> u16 {
        (**self).info(state)
    }
    #[inline(always)]
    fn chain(&self, state: u16, bytes: &[u8], at: usize) -> (u16, usize) {
        (**self).chain(state, bytes, at)
    }
}

/// The trie of the literals and markers with failure links and per-node info.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Trie {
    /// The lower-cased byte on the edge into each node.
    label: [u8; MAX_NODES],
    /// First child and next sibling of each node; 0 is none (the root is no child).
    first_child: [u16; MAX_NODES],
    sibling: [u16; MAX_NODES],
    /// Node of the longest proper suffix that is also in the trie.
    fail: [u16; MAX_NODES],
    info: [u16; MAX_NODES],
    len: usize,
}

// The builders below are `const fn`s: they index arrays whose bounds are checked by
// the loop conditions (`get` is not const), and their arithmetic stays far below
// the types' limits (at most MAX_NODES nodes).
#[allow(clippy::indexing_slicing, clippy::arithmetic_side_effects)]
impl Trie {
    /// The trie of `literals` (literal `i` reports bit `i`) and, when `markers`, the
    /// envelope markers. `None` when it does not fit (callers check the limits first).
    const fn build(literals: &[&str], markers: bool) -> Option<Trie> {
        let mut t = Trie {
            label: [0; MAX_NODES],
            first_child: [0; MAX_NODES],
            sibling: [0; MAX_NODES],
            fail: [0; MAX_NODES],
            info: [0; MAX_NODES],
            len: 1,
        };
        let mut i = 0;
        while i < literals.len() && i < MAX_LITERALS {
            let Some(node) = t.insert(literals[i].as_bytes(), false) else {
                return None;
            };
            t.info[node] |= 1 << i;
            i += 1;
        }
        if markers {
            let mut m = 0;
            while m < ENVELOPE_MARKERS.len() {
                let Some(node) = t.insert(ENVELOPE_MARKERS[m].as_bytes(), true) else {
                    return None;
                };
                t.info[node] |= INFO_MARKER_END;
                m += 1;
            }
        }
        t.link();
        Some(t)
    }

    /// The child of `node` along `b` (lower-cased), or 0.
    #[inline]
    const fn child(&self, node: usize, b: u8) -> usize {
        let mut c = self.first_child[node] as usize;
        while c != 0 {
            if self.label[c] == b {
                return c;
            }
            c = self.sibling[c] as usize;
        }
        0
    }

    /// Adds a path for `pat`; marker paths record their depth as the held length.
    const fn insert(&mut self, pat: &[u8], marker: bool) -> Option<usize> {
        let mut node = 0;
        let mut k = 0;
        while k < pat.len() {
            let b = pat[k].to_ascii_lowercase();
            let mut next = self.child(node, b);
            if next == 0 {
                if self.len >= MAX_NODES {
                    return None;
                }
                next = self.len;
                self.len += 1;
                self.label[next] = b;
                self.sibling[next] = self.first_child[node];
                self.first_child[node] = next as u16;
            }
            node = next;
            k += 1;
            if marker {
                // The depth (at most a marker's length, < 128) replaces any other.
                self.info[node] = (self.info[node] & !(INFO_DEPTH_MASK << INFO_DEPTH_SHIFT))
                    | ((k as u16) << INFO_DEPTH_SHIFT);
            }
        }
        Some(node)
    }

    /// Failure links in breadth-first order, and the info each node inherits from
    /// its failure node (literals and marker ends that are suffixes, and the held
    /// marker beginning when the node itself is on no marker's path).
    const fn link(&mut self) {
        let mut queue = [0u16; MAX_NODES];
        let (mut head, mut tail) = (0, 0);
        let mut c = self.first_child[0] as usize;
        while c != 0 {
            self.fail[c] = 0;
            queue[tail] = c as u16;
            tail += 1;
            c = self.sibling[c] as usize;
        }
        while head < tail {
            let u = queue[head] as usize;
            head += 1;
            let mut v = self.first_child[u] as usize;
            while v != 0 {
                let b = self.label[v];
                let mut f = self.fail[u] as usize;
                let target = loop {
                    let g = self.child(f, b);
                    if g != 0 {
                        break g;
                    }
                    if f == 0 {
                        break 0;
                    }
                    f = self.fail[f] as usize;
                };
                self.fail[v] = target as u16;
                let inherited = self.info[target];
                let own = self.info[v];
                let mut info = own | (inherited & (INFO_LITERALS | INFO_MARKER_END));
                if info_marker_depth(own) == 0 {
                    info |= inherited & (INFO_DEPTH_MASK << INFO_DEPTH_SHIFT);
                }
                self.info[v] = info;
                queue[tail] = v as u16;
                tail += 1;
                v = self.sibling[v] as usize;
            }
        }
    }

    /// One automaton step: follow failure links until a child matches.
    const fn next(&self, state: usize, b: u8) -> usize {
        let b = b.to_ascii_lowercase();
        let mut s = state;
        loop {
            let c = self.child(s, b);
            if c != 0 {
                return c;
            }
            if s == 0 {
                return 0;
            }
            s = self.fail[s] as usize;
        }
    }
}

impl Automaton for Trie {
    #[inline]
    fn step(&self, state: u16, b: u8) -> u16 {
        let s = usize::from(state);
        if s >= self.len {
            return 0;
        }
        // Infallible: node numbers are below MAX_NODES < 2^16.
        u16::try_from(self.next(s, b)).unwrap_or(0)
    }
    #[inline]
    fn info(&self, state: u16) -> u16 {
        self.info.get(usize::from(state)).copied().unwrap_or(0)
    }
}

/// Byte classes of a dense DFA (class 0: bytes in no literal or marker).
const DENSE_CLASSES: usize = 32;

/// Longest chain a state keeps (one 16-byte compare).
const CHAIN: usize = 16;

/// The automaton as a full transition table: at most 256 states and 32 classes.
///
/// Each state also keeps a chain for the counting pass of sanitize: the trie's
/// nodes are numbered in insertion order, so along a literal's own part the child
/// of node `s` is node `s + 1`. The chain of `s` is the labels of `s + 1`, `s + 2`,
/// … while each is the child of the one before, a kept ASCII byte, and reports no
/// literal or marker end (at most [`CHAIN`]). Text spelling `k` bytes of it takes
/// the automaton from `s` to `s + k`, exactly as `k` steps would; one compare of 16
/// bytes replaces those steps, whose table loads form a dependency chain.
#[derive(Debug)]
pub(crate) struct Dense {
    class: [u8; 256],
    next: [[u8; DENSE_CLASSES]; 256],
    info: [u16; 256],
    /// Each state's chain, lower case and upper case (equal for non-letters).
    chain_lo: [[u8; CHAIN]; 256],
    chain_up: [[u8; CHAIN]; 256],
    chain_len: [u8; 256],
}

#[allow(clippy::indexing_slicing, clippy::arithmetic_side_effects)]
impl Dense {
    /// The DFA of `trie`, or `None` when it has too many states or byte classes.
    const fn build(trie: &Trie) -> Option<Dense> {
        if trie.len > 256 {
            return None;
        }
        let mut d = Dense {
            class: [0; 256],
            next: [[0; DENSE_CLASSES]; 256],
            info: [0; 256],
            chain_lo: [[0; CHAIN]; 256],
            chain_up: [[0; CHAIN]; 256],
            chain_len: [0; 256],
        };
        // One class per distinct (lower-cased) label, its representative byte kept.
        let mut ids = [0u8; 256];
        let mut rep = [0u8; DENSE_CLASSES];
        let mut classes = 1;
        let mut n = 1;
        while n < trie.len {
            let b = trie.label[n] as usize;
            if ids[b] == 0 {
                if classes >= DENSE_CLASSES {
                    return None;
                }
                ids[b] = classes as u8;
                rep[classes] = b as u8;
                classes += 1;
            }
            n += 1;
        }
        let mut b = 0;
        while b < 256 {
            d.class[b] = ids[(b as u8).to_ascii_lowercase() as usize];
            b += 1;
        }
        let mut s = 0;
        while s < trie.len {
            d.info[s] = trie.info[s];
            let mut k = 1;
            while k < classes {
                d.next[s][k] = trie.next(s, rep[k]) as u8;
                k += 1;
            }
            // Class 0 bytes lead every state to the root (already 0).
            s += 1;
        }
        // Chains (the root keeps none: it is left through the scan).
        let mut s = 1;
        while s < trie.len {
            let mut k = 0;
            while k < CHAIN && s + k + 1 < trie.len {
                let (node, child) = (s + k, s + k + 1);
                let b = trie.label[child];
                let kept = matches!(b, b'\t' | b'\n' | 0x20..=0x7E);
                if !kept
                    || trie.child(node, b) != child
                    || trie.info[child] & (INFO_LITERALS | INFO_MARKER_END) != 0
                {
                    break;
                }
                d.chain_lo[s][k] = b;
                d.chain_up[s][k] = b.to_ascii_uppercase();
                k += 1;
            }
            d.chain_len[s] = k as u8;
            s += 1;
        }
        Some(d)
    }
}

impl Automaton for Dense {
    #[inline(always)]
    #[allow(clippy::indexing_slicing)]
    fn step(&self, state: u16, b: u8) -> u16 {
        // In bounds by construction of the indexes: a `u8` into 256 entries, a
        // class masked below 32, a state masked below 256.
        let class = usize::from(self.class[usize::from(b)]) & (DENSE_CLASSES - 1);
        u16::from(self.next[usize::from(state) & 0xFF][class])
    }
    #[inline(always)]
    #[allow(clippy::indexing_slicing)]
    fn info(&self, state: u16) -> u16 {
        // In bounds: the state is masked below 256.
        self.info[usize::from(state) & 0xFF]
    }

    #[inline(always)]
    #[allow(clippy::indexing_slicing)]
    fn chain(&self, state: u16, bytes: &[u8], at: usize) -> (u16, usize) {
        // In bounds: the state is masked below 256.
        let s = usize::from(state) & 0xFF;
        let len = usize::from(self.chain_len[s]);
        let (lo, up) = (&self.chain_lo[s], &self.chain_up[s]);
        let Some(&b) = bytes.get(at) else {
            return (state, at);
        };
        if len == 0 || (b != lo[0] && b != up[0]) {
            return (state, at);
        }
        let k = match bytes.get(at..at.saturating_add(CHAIN)) {
            Some(w) => {
                let mut x = [0u8; CHAIN];
                x.copy_from_slice(w);
                let x = u128::from_le_bytes(x);
                let eq = zero_bytes(x ^ u128::from_le_bytes(*lo))
                    | zero_bytes(x ^ u128::from_le_bytes(*up));
                // The matched prefix: the bytes below the first unequal one.
                ((!eq & HI128).trailing_zeros() / 8) as usize
            }
            None => bytes
                .get(at..)
                .unwrap_or_default()
                .iter()
                .zip(lo.iter().zip(up))
                .take_while(|&(&x, (&l, &u))| x == l || x == u)
                .count(),
        };
        let k = k.min(len);
        // `s + k` is a node of the chain, below 256 (the chain stays in the trie).
        (
            u16::try_from(s.saturating_add(k)).unwrap_or(0),
            at.saturating_add(k),
        )
    }
}

const LO7_128: u128 = u128::from_le_bytes([0x7F; 16]);
const HI128: u128 = u128::from_le_bytes([0x80; 16]);

/// 0x80 in each zero byte of `t`, 0 elsewhere; exact per byte (no carry crosses a
/// byte: each sum stays below 0x100).
#[inline(always)]
const fn zero_bytes(t: u128) -> u128 {
    !((t & LO7_128).wrapping_add(LO7_128) | t) & HI128
}

/// Either automaton of a set, for the streaming engine (one type for every set).
#[derive(Clone, Copy, Debug)]
pub(crate) enum AnyAutomaton<'s> {
    Dense(&'static Dense),
    Trie(&'s Trie),
}

impl Automaton for AnyAutomaton<'_> {
    #[inline(always)]
    fn step(&self, state: u16, b: u8) -> u16 {
        match self {
            AnyAutomaton::Dense(d) => d.step(state, b),
            AnyAutomaton::Trie(t) => t.step(state, b),
        }
    }
    #[inline(always)]
    fn info(&self, state: u16) -> u16 {
        match self {
            AnyAutomaton::Dense(d) => d.info(state),
            AnyAutomaton::Trie(t) => t.info(state),
        }
    }
    #[inline]
    fn chain(&self, state: u16, bytes: &[u8], at: usize) -> (u16, usize) {
        match self {
            AnyAutomaton::Dense(d) => d.chain(state, bytes, at),
            AnyAutomaton::Trie(_) => (state, at),
        }
    }
}

const fn dense_of(literals: &[&str], markers: bool) -> Dense {
    let empty = Dense {
        class: [0; 256],
        next: [[0; DENSE_CLASSES]; 256],
        info: [0; 256],
        chain_lo: [[0; CHAIN]; 256],
        chain_up: [[0; CHAIN]; 256],
        chain_len: [0; 256],
    };
    match Trie::build(literals, markers) {
        Some(trie) => match Dense::build(&trie) {
            Some(d) => d,
            None => empty,
        },
        None => empty,
    }
}

/// The default literals and the markers, as a DFA built at compile time.
static DEFAULT_DENSE: Dense = dense_of(&WRAPPER_FORGERY_LITERALS, true);
/// The markers alone (the empty set, and the writing pass of sanitize).
pub(crate) static MARKER_DENSE: Dense = dense_of(&[], true);

/// The byte every marker has at [`MARKER_ANCHOR_OFFSET`]. It is rare in prose (unlike
/// the markers' first byte `u`), so the fast path stops on it instead and recovers
/// a marker's beginning from the bytes before it.
pub(crate) const MARKER_ANCHORS: ByteSet = ByteSet::EMPTY.with(b':');

/// Where the anchor sits in each marker; a partial marker without it is shorter.
const MARKER_ANCHOR_OFFSET: usize = "untrusted-content".len();

/// The longest run end that can still be a marker's beginning: the part before the
/// anchor.
pub(crate) const MARKER_RESYNC_LEN: usize = MARKER_ANCHOR_OFFSET;

/// The markers' first byte (lower case).
pub(crate) const MARKER_FIRST: u8 = b'u';

/// A checked set of forgery literals with its automaton, built once.
#[derive(Clone, Copy, Debug)]
pub struct LiteralSet<'a> {
    literals: [&'a str; MAX_LITERALS],
    count: usize,
    /// The literals and the markers (used when no dense DFA is precomputed).
    trie: Trie,
    /// The precomputed DFA when the set is the default one or the empty one.
    dense: Option<&'static Dense>,
    /// Bytes that may begin an occurrence of any literal.
    first_bytes: ByteSet,
    /// Where prose stops while idle: attention bytes, literal first bytes, the
    /// markers' anchor (built once here so each sanitize does not rebuild it).
    prose_stops: Finder,
    /// Where the forgery search stops while idle: literal first bytes.
    forgery_stops: Finder,
    /// Bytes on which the automaton leaves its root: literal first bytes and both
    /// cases of the markers' first byte.
    leaves_root: Finder,
}

impl LiteralSet<'static> {
    /// The reference's literals, [`WRAPPER_FORGERY_LITERALS`].
    pub const DEFAULT: LiteralSet<'static> = match LiteralSet::new(&WRAPPER_FORGERY_LITERALS) {
        Ok(set) => set,
        Err(_) => LiteralSet::EMPTY,
    };
}

/// Whether two lists hold the same literals in the same order, ignoring ASCII case.
#[allow(clippy::indexing_slicing, clippy::arithmetic_side_effects)]
const fn same_literals(a: &[&str], b: &[&str]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        let (x, y) = (a[i].as_bytes(), b[i].as_bytes());
        if x.len() != y.len() {
            return false;
        }
        let mut k = 0;
        while k < x.len() {
            if !x[k].eq_ignore_ascii_case(&y[k]) {
                return false;
            }
            k += 1;
        }
        i += 1;
    }
    true
}

const EMPTY_TRIE: Trie = match Trie::build(&[], true) {
    Some(t) => t,
    None => Trie {
        label: [0; MAX_NODES],
        first_child: [0; MAX_NODES],
        sibling: [0; MAX_NODES],
        fail: [0; MAX_NODES],
        info: [0; MAX_NODES],
        len: 1,
    },
};

impl<'a> LiteralSet<'a> {
    /// The set with no literals: nothing forges.
    pub const EMPTY: LiteralSet<'a> = LiteralSet {
        literals: [""; MAX_LITERALS],
        count: 0,
        trie: EMPTY_TRIE,
        dense: Some(&MARKER_DENSE),
        first_bytes: ByteSet::EMPTY,
        prose_stops: Finder::new(ByteSet::PROSE_ATTENTION.union(MARKER_ANCHORS)).refined(),
        forgery_stops: Finder::new(ByteSet::EMPTY),
        leaves_root: Finder::new(ByteSet::EMPTY.with_both_cases(MARKER_FIRST)),
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
            i += 1;
        }
        set.count = literals.len();
        // Within the limits checked above the trie always fits.
        if let Some(trie) = Trie::build(literals, true) {
            set.trie = trie;
        }
        set.dense = if literals.is_empty() {
            Some(&MARKER_DENSE)
        } else if same_literals(literals, &WRAPPER_FORGERY_LITERALS) {
            Some(&DEFAULT_DENSE)
        } else {
            None
        };
        let stops = Finder::new(
            ByteSet::PROSE_ATTENTION
                .union(set.first_bytes)
                .union(MARKER_ANCHORS),
        );
        // The multi-byte refinement only knows attention code points: a literal that
        // begins with a non-ASCII byte keeps every such byte a stop.
        set.prose_stops = if set.first_bytes.has_non_ascii() {
            stops
        } else {
            stops.refined()
        };
        set.forgery_stops = Finder::new(set.first_bytes);
        set.leaves_root = Finder::new(set.first_bytes.with_both_cases(MARKER_FIRST));
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

    /// Bytes where prose leaves its fast path while the automaton is idle.
    pub(crate) const fn prose_stops(&self) -> &Finder {
        &self.prose_stops
    }

    /// Bytes on which the automaton leaves its root.
    pub(crate) const fn leaves_root(&self) -> &Finder {
        &self.leaves_root
    }

    /// The automaton of the literals and the markers.
    pub(crate) fn automaton(&self) -> AnyAutomaton<'_> {
        match self.dense {
            Some(d) => AnyAutomaton::Dense(d),
            None => AnyAutomaton::Trie(&self.trie),
        }
    }

    /// Whether the first literal is among `found` (or there is none): later text
    /// cannot change the verdict.
    pub(crate) const fn is_decided(&self, found: u8) -> bool {
        self.count == 0 || found & 1 != 0
    }

    /// The first literal, in checking order, among the `found` mask.
    pub(crate) fn first_of(&self, found: u8) -> Option<&'a str> {
        if found == 0 {
            return None;
        }
        self.literals()
            .get(found.trailing_zeros() as usize)
            .copied()
    }
}

/// The literals (as a mask) of `set` occurring in `bytes`, stopping once decided.
fn search<A: Automaton>(auto: &A, set: &LiteralSet<'_>, bytes: &[u8]) -> u8 {
    let mut scanner = Scanner::new(&set.forgery_stops, crate::Backend::best());
    let mut state = 0u16;
    let mut found = 0u8;
    let mut at = 0;
    while at < bytes.len() {
        if state == 0 {
            // Idle: an occurrence can only begin on a literal's first byte.
            at = scanner.next(bytes, at, |_, _| true);
        }
        let Some(&b) = bytes.get(at) else {
            break;
        };
        state = auto.step(state, b);
        // The low byte of the info word is the literal mask.
        found |= (auto.info(state) & INFO_LITERALS) as u8;
        if set.is_decided(found) {
            break;
        }
        at = at.saturating_add(1);
    }
    found
}

/// The first literal of `set`, in checking order, that occurs in `text`.
pub fn find_forgery<'s>(text: &str, set: &'s LiteralSet<'s>) -> Option<&'s str> {
    if set.count == 0 {
        return None;
    }
    let found = match set.dense {
        Some(d) => search(d, set, text.as_bytes()),
        None => search(&set.trie, set, text.as_bytes()),
    };
    set.first_of(found)
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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::string::String;
    use std::vec::Vec;

    #[test]
    fn default_set_is_the_reference_census() {
        assert_eq!(LiteralSet::DEFAULT.literals(), &WRAPPER_FORGERY_LITERALS);
        assert!(LiteralSet::DEFAULT.dense.is_some());
        let trie = Trie::build(&WRAPPER_FORGERY_LITERALS, true).unwrap();
        assert!(trie.len <= 256, "{}", trie.len);
        assert!(Dense::build(&trie).is_some());
        assert!(Dense::build(&Trie::build(&[], true).unwrap()).is_some());
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
    fn handles_self_overlap() {
        let lits = ["aab"];
        let set = LiteralSet::new(&lits).unwrap();
        assert!(set.dense.is_none());
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
        // The largest set fits: eight distinct 64-byte literals.
        let lits: Vec<String> = (0..8u8)
            .map(|i| {
                (0..64u8)
                    .map(|k| char::from(b'!' + (i * 7 + k) % 90))
                    .collect()
            })
            .collect();
        let refs: Vec<&str> = lits.iter().map(String::as_str).collect();
        let set = LiteralSet::new(&refs).unwrap();
        assert!(Trie::build(&refs, true).is_some());
        assert_eq!(
            find_forgery(&std::format!("zz{}", lits[5]), &set),
            Some(refs[5])
        );
    }

    /// Every literal of `lits` occurring in `text`, by lower-cased `contains`.
    fn naive_mask(text: &[u8], lits: &[&str]) -> u8 {
        let low = text.to_ascii_lowercase();
        let mut mask = 0;
        for (i, l) in lits.iter().enumerate() {
            let l = l.as_bytes().to_ascii_lowercase();
            if low.windows(l.len()).any(|w| w == l.as_slice()) {
                mask |= 1 << i;
            }
        }
        mask
    }

    /// Every literal found, by feeding every byte to the automaton.
    fn automaton_mask<A: Automaton>(auto: &A, text: &[u8]) -> u8 {
        let mut s = 0;
        let mut found = 0;
        for &b in text {
            s = auto.step(s, b);
            found |= (auto.info(s) & INFO_LITERALS) as u8;
        }
        found
    }

    /// Marker ends and held lengths, by the automaton and by the plain definition.
    fn check_markers<A: Automaton>(auto: &A, text: &[u8]) {
        let low = text.to_ascii_lowercase();
        let mut s = 0;
        for end in 1..=text.len() {
            s = auto.step(s, text[end - 1]);
            let info = auto.info(s);
            let seen = &low[..end];
            let ends = ENVELOPE_MARKERS
                .iter()
                .any(|m| seen.ends_with(m.as_bytes()));
            assert_eq!(info & INFO_MARKER_END != 0, ends, "{:?}", seen);
            let held = (1..=seen.len().min(23))
                .rev()
                .find(|&k| {
                    ENVELOPE_MARKERS
                        .iter()
                        .any(|m| m.as_bytes().starts_with(&seen[seen.len() - k..]))
                })
                .unwrap_or(0);
            assert_eq!(info_marker_depth(info), held, "{:?}", seen);
        }
    }

    fn text_over(alphabet: &'static str) -> impl Strategy<Value = Vec<u8>> {
        proptest::collection::vec(
            proptest::sample::select(alphabet.as_bytes().to_vec()),
            0..120,
        )
    }

    #[test]
    fn chains_follow_the_literals() {
        // After `<`, the chain spells the rest of the first literal up to (not
        // including) its reporting last byte.
        let s = DEFAULT_DENSE.step(0, b'<');
        let text = b"/APPLICABLE-RULES>";
        let (t, at) = DEFAULT_DENSE.chain(s, text, 0);
        assert_eq!(at, 16);
        let mut u = s;
        for &b in &text[..16] {
            u = DEFAULT_DENSE.step(u, b);
        }
        assert_eq!(t, u);
        assert_eq!(DEFAULT_DENSE.chain(s, b"/Appl\x1B", 0).1, 5);
        assert_eq!(DEFAULT_DENSE.chain(s, b"x", 0), (s, 0));
    }

    proptest! {
        #[test]
        fn chains_equal_steps(
            states in proptest::collection::vec(any::<u8>(), 1..8),
            parts in proptest::collection::vec(proptest::sample::select(std::vec![
                "</APPLICABLE-RULES>", "/applicable-rule", "pplicable", "## Applicable Rules (scoped",
                "learnings index (selected", "LEARNINGS-INDEX>", "ntrusted-content:start",
                "untrusted-content:end", "nd", "tart", "\u{1B}", "\r", "é", "<", "x", "-", " ",
            ]), 0..6),
        ) {
            let text = parts.concat();
            let bytes = text.as_bytes();
            for dense in [&DEFAULT_DENSE, &MARKER_DENSE] {
                for &s in &states {
                    let trie_len = if core::ptr::eq(dense, &DEFAULT_DENSE) {
                        Trie::build(&WRAPPER_FORGERY_LITERALS, true).unwrap().len
                    } else {
                        Trie::build(&[], true).unwrap().len
                    };
                    let s = u16::from(s) % trie_len as u16;
                    for from in 0..bytes.len().min(24) {
                        let (t, at) = dense.chain(s, bytes, from);
                        let mut u = s;
                        for &b in &bytes[from..at] {
                            prop_assert!(matches!(b, b'\t' | b'\n' | 0x20..=0x7E));
                            u = dense.step(u, b);
                            prop_assert_eq!(dense.info(u) & (INFO_LITERALS | INFO_MARKER_END), 0);
                        }
                        prop_assert_eq!(t, u);
                    }
                }
            }
        }

        #[test]
        fn default_dfa_matches_plain_search(
            parts in proptest::collection::vec(prop_oneof![
                proptest::sample::select(std::vec![
                    "</APPLICABLE-RULES>", "</applicable-rules", "## Applicable Rules (scoped",
                    "## learnings index (selected", "</LEARNINGS-INDEX>", "</learnings-", "<", "#",
                    "untrusted-content:", "start", "END", "untrusted", " ", "x",
                ]).prop_map(String::from),
                "[a-zA-Z<>/#: ()-]{0,6}",
            ], 0..12)
        ) {
            let text = parts.concat();
            let lits = &WRAPPER_FORGERY_LITERALS;
            let expected = naive_mask(text.as_bytes(), lits);
            let trie = Trie::build(lits, true).unwrap();
            prop_assert_eq!(automaton_mask(&DEFAULT_DENSE, text.as_bytes()), expected);
            prop_assert_eq!(automaton_mask(&trie, text.as_bytes()), expected);
            check_markers(&DEFAULT_DENSE, text.as_bytes());
            check_markers(&MARKER_DENSE, text.as_bytes());
            let first = lits.iter().enumerate().find(|(i, _)| expected & (1 << i) != 0).map(|(_, l)| *l);
            prop_assert_eq!(find_forgery(&text, &LiteralSet::DEFAULT), first);
        }

        #[test]
        fn custom_sets_match_plain_search(
            lits in proptest::collection::vec("[abAB:u]{1,5}|aab|abab|untrusted-c|t:end", 1..=8),
            text in text_over("abAB:uUntrusedcot-: "),
        ) {
            let refs: Vec<&str> = lits.iter().map(String::as_str).collect();
            let set = LiteralSet::new(&refs).unwrap();
            let expected = naive_mask(&text, &refs);
            let trie = Trie::build(&refs, true).unwrap();
            prop_assert_eq!(automaton_mask(&trie, &text), expected);
            check_markers(&trie, &text);
            if let Some(dense) = Dense::build(&trie) {
                prop_assert_eq!(automaton_mask(&dense, &text), expected);
            }
            let text = String::from_utf8(text).unwrap();
            let first = refs.iter().enumerate().find(|(i, _)| expected & (1 << i) != 0).map(|(_, l)| *l);
            prop_assert_eq!(find_forgery(&text, &set), first);
        }
    }
}
