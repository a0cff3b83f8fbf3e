//! airlock-benches: the inputs, baselines and operations shared by the criterion
//! benches (`benches/ops.rs`) and the ratio gate (`src/bin/gate.rs`), issue 9.
//!
//! Inputs are generated (deterministically) into pools of 16 MiB; a measurement takes
//! pieces from a pool in turn, so the text is fresh each time and the branch
//! predictor cannot memorise it.
#![allow(
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic
)]

use airlock_core::class::is_stripped;
use airlock_core::{
    ENVELOPE_MARKERS, LiteralSet, MARKER_REDACTION, WRAPPER_FORGERY_LITERALS, is_control,
};

/// Bytes in each pool.
pub const POOL_BYTES: usize = 16 << 20;

/// The kinds of input text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// English-like ASCII prose in one paragraph: words, punctuation, a few `:`.
    Clean,
    /// Clean prose with about 1% multi-byte code points (em dashes, curly quotes, é…).
    Mixed,
    /// Mixed prose with about 0.1% dangerous code points (invisibles, controls, tags).
    Dirty,
    /// Every other code point dangerous.
    HostileInvisible,
    /// `</APPLICABLE-RULE` repeated: a wrapper-literal prefix that never completes.
    HostileLiteralPrefix,
    /// `untrusted-content` repeated: an envelope-marker prefix that never completes.
    HostileMarkerPrefix,
}

impl Kind {
    /// Every kind.
    pub const ALL: [Kind; 6] = [
        Kind::Clean,
        Kind::Mixed,
        Kind::Dirty,
        Kind::HostileInvisible,
        Kind::HostileLiteralPrefix,
        Kind::HostileMarkerPrefix,
    ];

    /// The hostile kinds.
    pub const HOSTILE: [Kind; 3] = [
        Kind::HostileInvisible,
        Kind::HostileLiteralPrefix,
        Kind::HostileMarkerPrefix,
    ];

    /// The kind named `name` (see [`Kind::name`]).
    pub fn named(name: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.name() == name)
    }

    /// A short name for reports.
    pub const fn name(self) -> &'static str {
        match self {
            Kind::Clean => "clean-ascii",
            Kind::Mixed => "mixed",
            Kind::Dirty => "dirty",
            Kind::HostileInvisible => "hostile-invisible",
            Kind::HostileLiteralPrefix => "hostile-literal-prefix",
            Kind::HostileMarkerPrefix => "hostile-marker-prefix",
        }
    }
}

/// A small deterministic PRNG (xorshift64*).
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator from a seed.
    pub fn new(seed: u64) -> Self {
        Rng(seed | 1)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number below `n`.
    pub fn below(&mut self, n: usize) -> usize {
        ((self.next_u64() >> 32) as usize * n) >> 32
    }
}

const WORDS: &[&str] = &[
    "the",
    "of",
    "and",
    "to",
    "in",
    "is",
    "that",
    "for",
    "it",
    "as",
    "was",
    "with",
    "be",
    "by",
    "on",
    "not",
    "he",
    "this",
    "are",
    "or",
    "his",
    "from",
    "at",
    "which",
    "but",
    "have",
    "an",
    "had",
    "they",
    "you",
    "were",
    "their",
    "one",
    "all",
    "we",
    "can",
    "her",
    "has",
    "there",
    "been",
    "if",
    "more",
    "when",
    "will",
    "would",
    "who",
    "so",
    "no",
    "rule",
    "agent",
    "learning",
    "session",
    "build",
    "test",
    "cache",
    "value",
    "record",
    "should",
    "before",
    "after",
    "always",
    "never",
    "because",
    "output",
    "input",
    "file",
    "config",
    "reviewer",
    "changes",
    "commit",
    "branch",
    "merge",
    "release",
    "during",
    "through",
    "between",
    "without",
    "under",
    "about",
    "usually",
    "quickly",
    "function",
    "returns",
    "error",
    "message",
    "unused",
    "useful",
    "understand",
    "run",
    "runs",
    "user",
    "update",
];

const MULTI: &[&str] = &[
    "—",
    "—",
    "—",
    "’",
    "’",
    "“",
    "”",
    "é",
    "ü",
    "ñ",
    "€",
    "…",
    "\u{A0}",
    "°",
    "–",
    "😀",
    "❤\u{FE0F}",
    "中",
];

const DANGEROUS: &[&str] = &[
    "\u{200B}",
    "\u{200C}",
    "\u{200D}",
    "\u{202A}",
    "\u{202E}",
    "\u{2060}",
    "\u{2066}",
    "\u{2069}",
    "\u{FEFF}",
    "\u{AD}",
    "\u{115F}",
    "\u{180E}",
    "\u{3164}",
    "\u{E0041}",
    "\u{E007F}",
    "\u{FE0E}",
    "\u{FE0F}",
    "\u{E0100}",
    "\u{1B}",
    "\u{0}",
    "\r",
    "\u{7F}",
    "\u{85}",
];

/// Generates about `bytes` bytes of text of `kind`.
pub fn generate(kind: Kind, bytes: usize, seed: u64) -> String {
    let mut rng = Rng::new(seed ^ (kind as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let mut s = String::with_capacity(bytes + 64);
    match kind {
        Kind::HostileInvisible => {
            while s.len() < bytes {
                s.push((b'a' + rng.below(26) as u8) as char);
                s.push_str(DANGEROUS[rng.below(DANGEROUS.len())]);
            }
        }
        Kind::HostileLiteralPrefix => {
            while s.len() < bytes {
                s.push_str("</APPLICABLE-RULE");
            }
        }
        Kind::HostileMarkerPrefix => {
            while s.len() < bytes {
                s.push_str("untrusted-content");
            }
        }
        Kind::Clean | Kind::Mixed | Kind::Dirty => {
            let multi = kind != Kind::Clean;
            let dirty = kind == Kind::Dirty;
            let mut words_in_sentence = 0;
            let mut sentences = 0;
            while s.len() < bytes {
                let word = WORDS[rng.below(WORDS.len())];
                if words_in_sentence == 0 {
                    let mut cs = word.chars();
                    if let Some(c) = cs.next() {
                        s.push(c.to_ascii_uppercase());
                        s.push_str(cs.as_str());
                    }
                } else {
                    s.push_str(word);
                }
                words_in_sentence += 1;
                // Roughly one code point in a hundred multi-byte, one in a thousand
                // dangerous (a word plus its space is about six code points).
                if multi && rng.below(17) == 0 {
                    s.push_str(MULTI[rng.below(MULTI.len())]);
                }
                if dirty && rng.below(170) == 0 {
                    s.push_str(DANGEROUS[rng.below(DANGEROUS.len())]);
                }
                let r = rng.below(1000);
                if words_in_sentence > 6 && r < 120 {
                    s.push_str(if rng.below(12) == 0 { ": " } else { ". " });
                    words_in_sentence = 0;
                    sentences += 1;
                    // Clean prose is one paragraph (an `insight`): no control at all,
                    // so finding the first code point needing attention reads it all.
                    if multi && sentences % 6 == 0 {
                        s.push('\n');
                        if rng.below(8) == 0 {
                            s.push_str("\n## Notes on the ");
                            s.push_str(WORDS[rng.below(WORDS.len())]);
                            s.push_str("\n\n");
                        }
                        if rng.below(16) == 0 {
                            s.push_str("See <code>value</code> below. ");
                        }
                    }
                } else if r < 180 {
                    s.push_str(", ");
                } else {
                    s.push(' ');
                }
            }
        }
    }
    s
}

/// A pool of text and a cursor that hands out pieces of it in turn.
#[derive(Clone, Debug)]
pub struct Pool {
    text: String,
    next: usize,
}

impl Pool {
    /// A pool of [`POOL_BYTES`] of `kind`.
    pub fn new(kind: Kind) -> Self {
        Pool::with_len(kind, POOL_BYTES)
    }

    /// A pool of `bytes` of `kind`.
    pub fn with_len(kind: Kind, bytes: usize) -> Self {
        Pool {
            text: generate(kind, bytes, 0x5EED),
            next: 0,
        }
    }

    /// The next piece of about `size` bytes (whole code points), wrapping around.
    pub fn piece(&mut self, size: usize) -> &str {
        let range = self.next_range(size);
        &self.text[range]
    }

    /// Where the next piece of about `size` bytes lies in [`Pool::text`].
    pub fn next_range(&mut self, size: usize) -> core::ops::Range<usize> {
        if self.next + size > self.text.len() {
            self.next = 0;
        }
        let start = floor_boundary(&self.text, self.next);
        let end = floor_boundary(&self.text, (start + size).min(self.text.len()));
        self.next = start + size;
        start..end
    }

    /// The whole pool.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The same piece every time: the first `size` bytes (the "reused buffer" case).
    pub fn first(&self, size: usize) -> &str {
        &self.text[..floor_boundary(&self.text, size.min(self.text.len()))]
    }
}

fn floor_boundary(s: &str, mut i: usize) -> usize {
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// The operations measured, each writing into (or reading) the same kind of buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// Baseline: copy the bytes into a buffer.
    Memcpy,
    /// Baseline: `core::str::from_utf8`.
    FromUtf8,
    /// `first_attention`: the first code point needing attention.
    Scan,
    /// `strip_into` a caller buffer.
    Strip,
    /// Baseline: a plain per-char strip into a `String`.
    NaiveStrip,
    /// `truncate_to_bytes` to half the length.
    Truncate,
    /// UTF-8 validation, then `sanitize_prose` into a buffer, cap = input length.
    Sanitize,
    /// Baseline: a plain per-char sanitize into `String`s.
    NaiveSanitize,
    /// `fence_token`.
    Fence,
    /// The writer's frontmatter gate on a rule file whose body is the text.
    Frontmatter,
    /// `strip_into` under the strict profile.
    StrictStrip,
    /// UTF-8 validation, then `sanitize_prose` under the strict profile, cap = input length.
    StrictSanitize,
}

impl Op {
    /// The operation named `name` among `ops` (see [`Op::name`]).
    pub fn named(name: &str, ops: &[Op]) -> Option<Op> {
        ops.iter().copied().find(|o| o.name() == name)
    }

    /// A short name for reports.
    pub const fn name(self) -> &'static str {
        match self {
            Op::Memcpy => "memcpy",
            Op::FromUtf8 => "from_utf8",
            Op::Scan => "scan",
            Op::Strip => "strip",
            Op::NaiveStrip => "naive-strip",
            Op::Truncate => "truncate",
            Op::Sanitize => "sanitize_prose",
            Op::NaiveSanitize => "naive-sanitize",
            Op::Fence => "fence",
            Op::Frontmatter => "frontmatter",
            Op::StrictStrip => "strict-strip",
            Op::StrictSanitize => "strict-sanitize",
        }
    }
}

/// The backend the bench tools run core on: the portable one (`--portable`,
/// `AIRLOCK_FORCE_PORTABLE=1`), AVX2 without AVX-512 (`--avx2`, `AIRLOCK_FORCE_AVX2=1`;
/// the best one where the CPU lacks AVX2), or the CPU's best.
pub fn backend_for(portable: bool, avx2: bool) -> airlock_core::Backend {
    use airlock_core::Backend;
    if portable {
        Backend::PORTABLE
    } else if avx2 {
        Backend::named("avx2").unwrap_or_else(Backend::best)
    } else {
        Backend::best()
    }
}

/// Buffers reused across runs of an operation, and the backend core runs on.
#[derive(Debug, Default)]
pub struct Scratch {
    /// The instruction sets core's operations use (default: the CPU's best).
    pub backend: airlock_core::Backend,
    out: Vec<u8>,
    s1: String,
    s2: String,
    doc: String,
}

const FRONTMATTER: &str = "---\ndescription: a generated rule\nglobs: [\"src/**/*.rs\", \"*.toml\"]\nauto-generated: true\nlearning-key: build/cache\nexpires-at: 2026-08-18\nalwaysApply: false\n---\n";

impl Scratch {
    /// Empty buffers, with core on `backend`.
    pub fn on(backend: airlock_core::Backend) -> Self {
        Scratch {
            backend,
            ..Scratch::default()
        }
    }

    /// Runs `op` over `text`, returning something derived from the result so the
    /// work cannot be optimised away.
    pub fn run(&mut self, op: Op, text: &str) -> usize {
        let bytes = text.as_bytes();
        match op {
            Op::Memcpy => {
                // The destination gets the source's alignment within a cache line:
                // `rep movsb` copies with mismatched alignments several times slower
                // on some CPUs (seen: 3 GB/s instead of 14 on pieces of mixed text,
                // whose starts move by the few bytes of a split code point).
                self.out.resize((bytes.len() + 64).max(self.out.len()), 0);
                let src = bytes.as_ptr() as usize % 64;
                let dst = self.out.as_ptr() as usize % 64;
                let off = (src + 64 - dst) % 64;
                self.out[off..off + bytes.len()].copy_from_slice(bytes);
                self.out[off + bytes.len() / 2] as usize
            }
            Op::FromUtf8 => core::str::from_utf8(bytes).map_or(0, str::len),
            Op::Scan => airlock_core::scan::first_attention_on(self.backend, text)
                .map_or(usize::MAX, |(i, _)| i),
            Op::Strip => {
                self.out.resize(bytes.len().max(self.out.len()), 0);
                airlock_core::strip::strip_into_on(self.backend, text, &mut self.out)
                    .map_or(0, str::len)
            }
            Op::NaiveStrip => {
                naive_strip(text, &mut self.s1);
                self.s1.len()
            }
            Op::Truncate => airlock_core::truncate_to_bytes(text, text.len() / 2)
                .text
                .len(),
            Op::Sanitize => {
                let n = airlock_core::worst_case_len(bytes.len(), bytes.len());
                self.out.resize(n.max(self.out.len()), 0);
                let Ok(text) = airlock_core::utf8::validate_on(self.backend, bytes) else {
                    return 0;
                };
                match airlock_core::prose::sanitize_prose_on(
                    self.backend,
                    text,
                    "insight",
                    bytes.len(),
                    &airlock_core::LiteralSet::DEFAULT,
                    &mut self.out,
                ) {
                    Ok(p) => p.text.len(),
                    Err(_) => 1,
                }
            }
            Op::NaiveSanitize => {
                let Ok(text) = core::str::from_utf8(bytes) else {
                    return 0;
                };
                naive_sanitize(text, usize::MAX, &mut self.s1, &mut self.s2)
                    .map_or(1, |()| self.s2.len())
            }
            Op::Fence => airlock_core::fence_token(bytes).as_bytes()[0] as usize,
            Op::Frontmatter => {
                self.doc.clear();
                self.doc.push_str(FRONTMATTER);
                self.doc.push_str(text);
                usize::from(airlock_core::frontmatter::refusal_reason(&self.doc).is_some())
            }
            Op::StrictStrip => {
                self.out.resize(bytes.len().max(self.out.len()), 0);
                airlock_core::Profile::Strict
                    .strip_into(text, &mut self.out)
                    .map_or(0, str::len)
            }
            Op::StrictSanitize => {
                let strict = airlock_core::Profile::Strict;
                let n = strict.worst_case_len(bytes.len(), bytes.len());
                self.out.resize(n.max(self.out.len()), 0);
                let Ok(text) = airlock_core::utf8::validate(bytes) else {
                    return 0;
                };
                let set = &LiteralSet::DEFAULT;
                match strict.sanitize_prose_with(text, "insight", bytes.len(), set, &mut self.out) {
                    Ok(p) => p.text.len(),
                    Err(_) => 1,
                }
            }
        }
    }
}

/// The plain per-char strip: one `chars()` walk, pushing what is kept.
pub fn naive_strip(text: &str, out: &mut String) {
    out.clear();
    let mut prev = None;
    for c in text.chars() {
        if !is_stripped(c, prev) {
            out.push(c);
        }
        prev = Some(c);
    }
}

/// The plain per-char sanitize: strip and drop controls in one `chars()` walk, look
/// for each literal in a lower-cased copy, redact markers, cut. `Err` on a forgery.
pub fn naive_sanitize(
    text: &str,
    max: usize,
    cleaned: &mut String,
    out: &mut String,
) -> Result<(), &'static str> {
    cleaned.clear();
    let mut prev = None;
    for c in text.chars() {
        let control = is_control(c) && c != '\t' && c != '\n';
        if !is_stripped(c, prev) && !control {
            cleaned.push(c);
        }
        prev = Some(c);
    }
    cleaned.make_ascii_lowercase();
    for lit in WRAPPER_FORGERY_LITERALS {
        if cleaned.contains(lit.to_ascii_lowercase().as_str()) {
            return Err(lit);
        }
    }
    // Lower-casing lost the original case; walk the original again for the output.
    out.clear();
    let mut prev = None;
    for c in text.chars() {
        let control = is_control(c) && c != '\t' && c != '\n';
        if !is_stripped(c, prev) && !control {
            out.push(c);
        }
        prev = Some(c);
    }
    if cleaned.contains("untrusted-content:") {
        let mut redacted = String::with_capacity(out.len());
        let low = cleaned.as_bytes();
        let mut i = 0;
        while i < out.len() {
            if let Some(m) = ENVELOPE_MARKERS
                .iter()
                .find(|m| low[i..].starts_with(m.as_bytes()))
            {
                redacted.push_str(MARKER_REDACTION);
                i += m.len();
            } else {
                let c = out[i..].chars().next().unwrap();
                redacted.push(c);
                i += c.len_utf8();
            }
        }
        *out = redacted;
    }
    if out.len() > max {
        let mut cut = max;
        while !out.is_char_boundary(cut) {
            cut -= 1;
        }
        let n = out.len();
        out.truncate(cut);
        out.push_str(&format!(
            " […truncated by the reconciliation engine: {n} bytes exceeded the {max}-byte cap]"
        ));
    }
    Ok(())
}

/// The clock the gate times samples with: the calling thread's CPU time where the
/// platform has one (a thread waiting for a core on a busy machine is not running,
/// so a wall clock would charge the wait to whichever side was sampled then), else
/// the monotonic wall clock.
#[derive(Clone, Copy, Debug)]
pub struct ThreadClock {
    #[cfg_attr(unix, allow(dead_code))]
    wall: std::time::Instant,
}

/// A reading of a [`ThreadClock`], in seconds.
#[derive(Clone, Copy, Debug)]
pub struct Reading(f64);

impl Default for ThreadClock {
    fn default() -> Self {
        ThreadClock::new()
    }
}

impl ThreadClock {
    /// A clock for the calling thread.
    pub fn new() -> Self {
        ThreadClock {
            wall: std::time::Instant::now(),
        }
    }

    /// What the clock measures, for reports.
    pub const fn name(&self) -> &'static str {
        if cfg!(unix) { "thread CPU" } else { "wall" }
    }

    /// Now.
    pub fn now(&self) -> Reading {
        #[cfg(unix)]
        {
            let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
            Reading(t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9)
        }
        #[cfg(not(unix))]
        {
            Reading(self.wall.elapsed().as_secs_f64())
        }
    }

    /// Seconds since `start`.
    pub fn since(&self, start: Reading) -> f64 {
        self.now().0 - start.0
    }
}

/// The default literal set, for benches that want it explicitly.
pub const LITERALS: LiteralSet<'static> = LiteralSet::DEFAULT;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn naive_sanitize_agrees_with_core() {
        for kind in Kind::ALL {
            let pool = Pool::with_len(kind, 1 << 16);
            for size in [64, 2048, 60_000] {
                let text = pool.first(size);
                let (mut a, mut b) = (String::new(), String::new());
                let naive = naive_sanitize(text, 1000, &mut a, &mut b).map(|()| b.clone());
                let mut out = vec![0u8; airlock_core::worst_case_len(text.len(), 1000)];
                let fast = airlock_core::sanitize_prose(text, "insight", 1000, &mut out)
                    .map(|p| p.text.to_string())
                    .map_err(|_| "rejected");
                assert_eq!(naive.is_ok(), fast.is_ok(), "{kind:?}");
                if let (Ok(n), Ok(f)) = (naive, fast) {
                    assert_eq!(n, f, "{kind:?} {size}");
                }
                let mut s = String::new();
                naive_strip(text, &mut s);
                assert_eq!(s, airlock_core::strip_invisibles(text).to_string());
            }
        }
    }

    #[test]
    fn mixed_is_about_one_percent_multibyte() {
        let text = generate(Kind::Mixed, 1 << 20, 1);
        let chars = text.chars().count();
        let multi = text.chars().filter(|c| !c.is_ascii()).count();
        let pct = multi as f64 * 100.0 / chars as f64;
        assert!((0.5..2.0).contains(&pct), "{pct}");
        let dirty = generate(Kind::Dirty, 1 << 20, 1);
        let bad = dirty
            .chars()
            .filter(|&c| airlock_core::is_dangerous_invisible(c) || (is_control(c) && c != '\n'))
            .count();
        let pct = bad as f64 * 100.0 / dirty.chars().count() as f64;
        assert!((0.05..0.3).contains(&pct), "{pct}");
    }
}
