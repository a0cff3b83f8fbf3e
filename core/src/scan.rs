//! The byte scan that finds the next position needing attention.
//!
//! Every operation walks text as runs of bytes it keeps untouched, separated by the
//! few positions that need a decision. This module finds those positions; the
//! operations never decode a code point they do not have to.
//!
//! A `Finder` describes a set of bytes; `Scanner::next` looks at 64 bytes at a
//! time, hands each byte of the set to the caller's exact test, and returns the first
//! one the test confirms. The 64-byte candidate masks come from the instruction sets
//! a [`Backend`] names (AVX2 or SSE2 on x86, module `x86`) or from the portable SWAR
//! code here, which is always compiled and is tested against the others.

// SIMD intrinsics need unsafe loads and calls; nowhere else in the crate does.
#[cfg(all(target_arch = "x86_64", not(feature = "portable-only")))]
#[allow(unsafe_code)]
mod x86;

// The portable backend's one unsafe line: a copy of a `str` is a `str`.
#[allow(unsafe_code)]
mod portable;

use core::sync::atomic::{AtomicU8, Ordering};

/// A set of byte values, as a 256-bit mask.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ByteSet([u64; 4]);

impl ByteSet {
    /// The empty set.
    pub(crate) const EMPTY: ByteSet = ByteSet([0; 4]);

    /// Lead bytes of every code point strip or the control filter may remove.
    pub(crate) const ATTENTION: ByteSet = {
        let mut set = ByteSet::EMPTY;
        let mut b = 0u8;
        loop {
            if crate::rules::is_attention_lead(b) {
                set = set.with(b);
            }
            if b == u8::MAX {
                break;
            }
            b += 1;
        }
        set
    };

    /// Lead bytes of code points prose may drop: TAB and LF are kept, and frequent.
    pub(crate) const PROSE_ATTENTION: ByteSet = ByteSet::ATTENTION.without(b'\t').without(b'\n');

    /// This set with `b` added.
    pub(crate) const fn with(self, b: u8) -> ByteSet {
        let [w0, w1, w2, w3] = self.0;
        let bit = 1u64 << (b & 63);
        ByteSet(match b >> 6 {
            0 => [w0 | bit, w1, w2, w3],
            1 => [w0, w1 | bit, w2, w3],
            2 => [w0, w1, w2 | bit, w3],
            _ => [w0, w1, w2, w3 | bit],
        })
    }

    /// This set without `b`.
    pub(crate) const fn without(self, b: u8) -> ByteSet {
        let [w0, w1, w2, w3] = self.0;
        let bit = !(1u64 << (b & 63));
        ByteSet(match b >> 6 {
            0 => [w0 & bit, w1, w2, w3],
            1 => [w0, w1 & bit, w2, w3],
            2 => [w0, w1, w2 & bit, w3],
            _ => [w0, w1, w2, w3 & bit],
        })
    }

    /// This set with both ASCII cases of `b` added.
    pub(crate) const fn with_both_cases(self, b: u8) -> ByteSet {
        self.with(b.to_ascii_lowercase())
            .with(b.to_ascii_uppercase())
    }

    /// The union of two sets.
    pub(crate) const fn union(self, other: ByteSet) -> ByteSet {
        let [a0, a1, a2, a3] = self.0;
        let [b0, b1, b2, b3] = other.0;
        ByteSet([a0 | b0, a1 | b1, a2 | b2, a3 | b3])
    }

    /// Whether the set has a byte of 0x80 or above.
    pub(crate) const fn has_non_ascii(&self) -> bool {
        self.0[2] != 0 || self.0[3] != 0
    }

    /// Whether every member of `self` is in `other`.
    pub(crate) const fn is_subset(&self, other: &ByteSet) -> bool {
        let [a0, a1, a2, a3] = self.0;
        let [b0, b1, b2, b3] = other.0;
        a0 & !b0 == 0 && a1 & !b1 == 0 && a2 & !b2 == 0 && a3 & !b3 == 0
    }

    /// Whether `b` is in the set.
    #[inline(always)]
    #[allow(clippy::indexing_slicing)]
    pub(crate) const fn contains(&self, b: u8) -> bool {
        // An index (0 to 3) rather than a `match`, which may become a jump table.
        let word = self.0[(b >> 6) as usize & 3];
        word & (1u64 << (b & 63)) != 0
    }
}

/// ASCII bytes (0x20 and up) the portable and SSE2 backends compare one by one;
/// a set with more of them makes every byte a candidate there.
const MAX_EQ: usize = 24;

/// A byte set prepared for the block backends. Each backend reports a superset of
/// the set's members (the AVX2 one reports exactly the set); [`Scanner`] filters
/// candidates through the set before the caller's test sees them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Finder {
    set: ByteSet,
    /// Nibble tables (Hyperscan's "truffle"): bit `h` of `lo[l]` is set when the byte
    /// `h << 4 | l` is in the set (h < 8); `hi` likewise for `(h + 8) << 4 | l`.
    lo: [u8; 16],
    hi: [u8; 16],
    /// The set has a byte of 0x80 and up: all of them are candidates.
    non_ascii: bool,
    /// The set has a byte below 0x20: all of them are candidates.
    controls: bool,
    /// The set's ASCII members from 0x20 up, compared one by one.
    eq: [u8; MAX_EQ],
    eq_len: usize,
    /// Too many bytes to compare one by one: every byte is a candidate.
    every: bool,
    /// Non-ASCII members are lead bytes of attention code points and count only
    /// where [`lead_may_attend`] holds (the next two bytes are tested too).
    refined: bool,
}

impl Finder {
    /// Prepares `set` (at compile time for the fixed sets).
    #[allow(clippy::indexing_slicing, clippy::arithmetic_side_effects)]
    pub(crate) const fn new(set: ByteSet) -> Finder {
        // Indexes are nibbles (< 16) and `eq_len < MAX_EQ`, checked before use; const
        // fns cannot use `get`.
        let mut f = Finder {
            set,
            lo: [0; 16],
            hi: [0; 16],
            non_ascii: false,
            controls: false,
            eq: [0; MAX_EQ],
            eq_len: 0,
            every: false,
            refined: false,
        };
        let mut b = 0u8;
        loop {
            if set.contains(b) {
                let (h, l) = ((b >> 4) as usize, (b & 0xF) as usize);
                if h < 8 {
                    f.lo[l] |= 1 << h;
                } else {
                    f.hi[l] |= 1 << (h - 8);
                }
                if b >= 0x80 {
                    f.non_ascii = true;
                } else if b < 0x20 {
                    f.controls = true;
                } else if f.eq_len < MAX_EQ {
                    f.eq[f.eq_len] = b;
                    f.eq_len += 1;
                } else {
                    f.every = true;
                }
            }
            if b == u8::MAX {
                break;
            }
            b += 1;
        }
        f
    }

    /// This finder, reporting a non-ASCII member only where it may begin an
    /// attention code point ([`lead_may_attend`]). Unchanged when the set has
    /// non-ASCII bytes other than attention lead bytes.
    pub(crate) const fn refined(self) -> Finder {
        let mut f = self;
        let non_ascii = ByteSet([0, 0, f.set.0[2], f.set.0[3]]);
        f.refined = non_ascii.is_subset(&ByteSet::ATTENTION);
        f
    }

    /// Whether the byte at `i` of `bytes`, a member of the set, is reported.
    #[inline(always)]
    fn reports(&self, bytes: &[u8], i: usize, b: u8) -> bool {
        self.set.contains(b) && (b < 0x80 || !self.refined || lead_may_attend(bytes, i))
    }

    /// The set's ASCII members compared one by one.
    fn eq_bytes(&self) -> &[u8] {
        self.eq.get(..self.eq_len).unwrap_or_default()
    }
}

/// Which block code computes candidate masks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Blocks {
    /// SWAR over `u64` words; every target.
    Portable,
    /// 16-byte vectors (x86 baseline).
    #[cfg(all(target_arch = "x86_64", not(feature = "portable-only")))]
    Sse2,
    /// 32-byte vectors with exact nibble-table membership.
    #[cfg(all(target_arch = "x86_64", not(feature = "portable-only")))]
    Avx2(x86::Avx2),
}

impl Blocks {
    /// Every block backend this CPU runs (for tests).
    #[cfg(test)]
    pub(crate) fn available() -> std::vec::Vec<Blocks> {
        let mut all: std::vec::Vec<Blocks> = Backend::all().map(|b| b.blocks).collect();
        all.dedup();
        all
    }

    /// The first 64-byte block at or after `from` (blocks start at `from`) with a
    /// candidate.
    #[inline]
    fn candidates(self, bytes: &[u8], from: usize, f: &Finder) -> Option<Candidates> {
        let rest = bytes.get(from..)?;
        // A refined finder looks two bytes past each block.
        let ahead = if f.refined { 2 } else { 0 };
        let whole = rest.len().saturating_sub(ahead) & !63;
        let blocks = rest.get(..whole).unwrap_or_default();
        let found = match self {
            Blocks::Portable => portable_blocks(blocks, f),
            #[cfg(all(target_arch = "x86_64", not(feature = "portable-only")))]
            Blocks::Sse2 => x86::sse2_blocks(blocks, f),
            #[cfg(all(target_arch = "x86_64", not(feature = "portable-only")))]
            Blocks::Avx2(cpu) => {
                let data = rest.get(..whole.saturating_add(ahead)).unwrap_or_default();
                x86::avx2_blocks(data, whole, f, cpu)
            }
        };
        if let Some((offset, mask)) = found {
            return Some(Candidates {
                base: from.saturating_add(offset),
                mask,
            });
        }
        // The rest (under 66 bytes) goes through padded copies with the portable
        // test; bits past its end are masked off.
        let mut base = whole;
        while let Some(tail) = rest.get(base..).filter(|t| !t.is_empty()) {
            let n = tail.len().min(64);
            let mut block = [0u8; 64];
            if let (Some(dst), Some(src)) = (block.get_mut(..n), tail.get(..n)) {
                dst.copy_from_slice(src);
            }
            let mut mask = portable_block(&block, f);
            if n < 64 {
                // n < 64, so the shift is in range.
                mask &= (1u64 << n).wrapping_sub(1);
            }
            if mask != 0 {
                return Some(Candidates {
                    base: from.saturating_add(base),
                    mask,
                });
            }
            base = base.saturating_add(64);
        }
        None
    }
}

/// A 64-byte block with candidates: where it starts, and bit `i` for byte `base + i`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Candidates {
    base: usize,
    mask: u64,
}

/// The instruction sets every fast path of one call uses: a capability token. One
/// exists only for instruction sets the CPU has (the fields are private and filled
/// by detection), so code holding one never asks the CPU again. [`Backend::best`]
/// is detected once and cached; tests, benchmarks and fuzz targets name a backend
/// explicitly with the `*_on` entry points (there is no global switch).
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Backend {
    blocks: Blocks,
    drops: Compactor,
    /// AVX2 for UTF-8 validation and long copies.
    #[cfg(all(target_arch = "x86_64", not(feature = "portable-only")))]
    avx2: Option<x86::Avx2>,
}

impl Default for Backend {
    /// [`Backend::best`].
    fn default() -> Self {
        Backend::best()
    }
}

/// [`Backend::best`]'s index into [`Backend::all`] plus one; 0 before detection.
static BEST: AtomicU8 = AtomicU8::new(0);

impl Backend {
    /// SWAR scan, table-driven dense drops, `core`'s UTF-8 validation: what every
    /// target runs.
    pub const PORTABLE: Backend = Backend {
        blocks: Blocks::Portable,
        drops: Compactor::Portable,
        #[cfg(all(target_arch = "x86_64", not(feature = "portable-only")))]
        avx2: None,
    };

    /// Every backend this CPU runs, portable first, best last.
    pub fn all() -> impl Iterator<Item = Backend> {
        #[cfg_attr(
            not(all(target_arch = "x86_64", not(feature = "portable-only"))),
            allow(unused_mut)
        )]
        let mut all = [Some(Backend::PORTABLE), None, None, None];
        #[cfg(all(target_arch = "x86_64", not(feature = "portable-only")))]
        {
            let avx2 = x86::avx2();
            if let Some(slot) = all.get_mut(1) {
                *slot = Some(Backend {
                    blocks: Blocks::Sse2,
                    drops: Compactor::Portable,
                    avx2: None,
                });
            }
            if let (Some(cpu), Some(slot)) = (avx2, all.get_mut(2)) {
                let drops = match x86::bmi2() {
                    Some(bmi2) => Compactor::Simd(SimdCompactor::Bmi2(bmi2)),
                    None => Compactor::Portable,
                };
                *slot = Some(Backend {
                    blocks: Blocks::Avx2(cpu),
                    drops,
                    avx2: Some(cpu),
                });
            }
            if let (Some(cpu), Some(vbmi2), Some(slot)) = (avx2, x86::vbmi2(), all.get_mut(3)) {
                *slot = Some(Backend {
                    blocks: Blocks::Avx2(cpu),
                    drops: Compactor::Simd(SimdCompactor::Avx512(vbmi2)),
                    avx2: Some(cpu),
                });
            }
        }
        all.into_iter().flatten()
    }

    /// The fastest backend this CPU runs, detected on the first call.
    #[inline]
    pub fn best() -> Backend {
        let cached = BEST.load(Ordering::Relaxed);
        if cached != 0
            && let Some(best) = Backend::all().nth(usize::from(cached).wrapping_sub(1))
        {
            return best;
        }
        Backend::detect()
    }

    #[cold]
    fn detect() -> Backend {
        let mut best = Backend::PORTABLE;
        let mut index = 0usize;
        for (i, backend) in Backend::all().enumerate() {
            best = backend;
            index = i;
        }
        BEST.store(
            u8::try_from(index.saturating_add(1)).unwrap_or(0),
            Ordering::Relaxed,
        );
        best
    }

    /// The backend of this name (`portable`, `sse2`, `avx2`, `avx512`) if the CPU
    /// runs it.
    pub fn named(name: &str) -> Option<Backend> {
        Backend::all().find(|b| b.name() == name)
    }

    /// The backend's short name.
    pub const fn name(self) -> &'static str {
        match (self.blocks, self.drops) {
            (Blocks::Portable, _) => "portable",
            #[cfg(all(target_arch = "x86_64", not(feature = "portable-only")))]
            (Blocks::Sse2, _) => "sse2",
            #[cfg(all(target_arch = "x86_64", not(feature = "portable-only")))]
            (Blocks::Avx2(_), Compactor::Simd(SimdCompactor::Avx512(_))) => "avx512",
            #[cfg(all(target_arch = "x86_64", not(feature = "portable-only")))]
            (Blocks::Avx2(_), _) => "avx2",
        }
    }

    /// What the block scan runs on, for reports.
    pub const fn scan_name(self) -> &'static str {
        match self.blocks {
            Blocks::Portable => "portable (SWAR)",
            #[cfg(all(target_arch = "x86_64", not(feature = "portable-only")))]
            Blocks::Sse2 => "SSE2",
            #[cfg(all(target_arch = "x86_64", not(feature = "portable-only")))]
            Blocks::Avx2(_) => "AVX2",
        }
    }

    /// What dense drop regions run on, for reports.
    pub const fn dense_drop_name(self) -> &'static str {
        self.drops.name()
    }

    /// `bytes` as text, validated with SIMD where this backend has it; the error is
    /// `core::str::from_utf8`'s, so offsets are exact.
    #[inline]
    pub(crate) fn to_str(self, bytes: &[u8]) -> Result<&str, core::str::Utf8Error> {
        #[cfg(all(target_arch = "x86_64", not(feature = "portable-only")))]
        if bytes.len() >= 64
            && let Some(cpu) = self.avx2
            && let Some(text) = x86::validate_utf8(bytes, cpu)
        {
            return Ok(text);
        }
        core::str::from_utf8(bytes)
    }

    /// Copies `src` to the start of `dst`; nothing when `dst` is shorter. Long copies
    /// use vector moves that do not depend on the two buffers' relative alignment.
    #[inline]
    pub(crate) fn copy(self, dst: &mut [u8], src: &[u8]) {
        #[cfg(all(target_arch = "x86_64", not(feature = "portable-only")))]
        if src.len() >= 256
            && let Some(cpu) = self.avx2
            && x86::copy(dst, src, cpu)
        {
            return;
        }
        if let Some(dst) = dst.get_mut(..src.len()) {
            dst.copy_from_slice(src);
        }
    }

    /// Copies `text` to the start of `dst` and returns the copy as text (`None` when
    /// `dst` is shorter), without validating it again.
    #[inline]
    pub(crate) fn copy_str<'o>(self, dst: &'o mut [u8], text: &str) -> Option<&'o str> {
        #[cfg(all(target_arch = "x86_64", not(feature = "portable-only")))]
        {
            x86::copy_str(dst, text, self.avx2)
        }
        #[cfg(not(all(target_arch = "x86_64", not(feature = "portable-only"))))]
        {
            portable::copy_str(dst, text)
        }
    }
}

/// A cursor over one text that keeps the current block's candidates, so positions
/// close together cost one block computation.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Scanner<'f> {
    finder: &'f Finder,
    blocks: Blocks,
    /// Start of the cached block and its candidate mask.
    base: usize,
    mask: u64,
    cached: bool,
}

impl<'f> Scanner<'f> {
    /// A scanner for `finder` on `backend`.
    #[inline]
    pub(crate) const fn new(finder: &'f Finder, backend: Backend) -> Self {
        Scanner::with_blocks(finder, backend.blocks)
    }

    /// A scanner on a given block backend.
    #[inline]
    pub(crate) const fn with_blocks(finder: &'f Finder, blocks: Blocks) -> Self {
        Scanner {
            finder,
            blocks,
            base: 0,
            mask: 0,
            cached: false,
        }
    }

    /// The first index `i >= from` whose byte is in the set and for which
    /// `confirm(i, byte)` holds, or `bytes.len()`. Every call on one scanner must pass
    /// the same `bytes`.
    #[inline]
    pub(crate) fn next(
        &mut self,
        bytes: &[u8],
        from: usize,
        mut confirm: impl FnMut(usize, u8) -> bool,
    ) -> usize {
        let mut at = from;
        loop {
            let offset = at.wrapping_sub(self.base);
            if !(self.cached && offset < 64) {
                match self.blocks.candidates(bytes, at, self.finder) {
                    Some(Candidates { base, mask }) => {
                        self.base = base;
                        self.mask = mask;
                        self.cached = true;
                        at = at.max(base);
                    }
                    None => {
                        self.cached = false;
                        return bytes.len();
                    }
                }
            }
            // Bits below `at` were handed out already (or are before `from`).
            let offset = at.wrapping_sub(self.base) & 63;
            let mut mask = self.mask & (u64::MAX << offset);
            while mask != 0 {
                let i = self.base.saturating_add(mask.trailing_zeros() as usize);
                mask &= mask.wrapping_sub(1);
                if let Some(&b) = bytes.get(i)
                    && self.finder.reports(bytes, i, b)
                    && confirm(i, b)
                {
                    return i;
                }
            }
            at = self.base.saturating_add(64);
            self.cached = false;
        }
    }
}

/// The index of the first byte at or after `from` that is in `finder`'s set, or
/// `bytes.len()`.
#[cfg(test)]
pub(crate) fn next_in_set(bytes: &[u8], from: usize, finder: &Finder) -> usize {
    Scanner::new(finder, Backend::best()).next(bytes, from, |_, _| true)
}

/// The code point starting at byte `i` of `text`, if `i` is a boundary inside it.
#[inline]
pub(crate) fn char_at(text: &str, i: usize) -> Option<char> {
    text.get(i..).and_then(|s| s.chars().next())
}

/// Lead bytes of controls, table members and variation selectors.
pub(crate) static ATTENTION: Finder = Finder::new(ByteSet::ATTENTION).refined();

/// Whether the byte at `i`, if it is a multi-byte attention lead byte, is followed
/// by bytes that can make an attention code point (the first three bytes of one of
/// [`crate::rules::ATTENTION_LEADS`]' patterns). Other bytes, and bytes whose
/// continuation lies past the end of `bytes`, answer `true` (conservative).
#[inline]
pub(crate) fn lead_may_attend(bytes: &[u8], i: usize) -> bool {
    use crate::rules::LEADS;
    let (Some(&b0), Some(&b1)) = (bytes.get(i), bytes.get(i.wrapping_add(1))) else {
        return true;
    };
    let row = usize::from(LEADS.row.get(usize::from(b0)).copied().unwrap_or(0));
    if row == 0 {
        return true;
    }
    let is_cont = |b: u8| (0x80..0xC0).contains(&b);
    if !is_cont(b1) {
        return false;
    }
    let row = row.wrapping_sub(1);
    let word = row.wrapping_mul(64).wrapping_add(usize::from(b1 & 63));
    let bits = LEADS.bits.get(word).copied().unwrap_or(u64::MAX);
    if !LEADS.third.get(row).copied().unwrap_or(true) {
        return bits != 0;
    }
    match bytes.get(i.wrapping_add(2)) {
        Some(&b2) => is_cont(b2) && (bits >> (b2 & 63)) & 1 != 0,
        None => bits != 0,
    }
}

/// The first code point of `text` needing attention — a control (Cc), a member of the
/// dangerous-invisible table, or a variation selector (U+FE00–U+FE0F) — as its byte
/// offset and the code point. Clean text is skipped many bytes at a time.
pub fn first_attention(text: &str) -> Option<(usize, char)> {
    first_attention_on(Backend::best(), text)
}

/// [`first_attention`] on a given backend.
#[doc(hidden)]
pub fn first_attention_on(backend: Backend, text: &str) -> Option<(usize, char)> {
    let mut found = None;
    Scanner::new(&ATTENTION, backend).next(text.as_bytes(), 0, |i, _| {
        let c = char_at(text, i);
        let hit = c.is_some_and(needs_attention);
        if hit {
            found = c.map(|c| (i, c));
        }
        hit
    });
    found
}

/// The SIMD packings of dense drop regions, each holding the proof that the CPU
/// runs it.
#[cfg(all(target_arch = "x86_64", not(feature = "portable-only")))]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SimdCompactor {
    /// `vpcompressb`: a 64-byte block in one instruction (AVX-512 VBMI2).
    Avx512(x86::Vbmi2),
    /// `pext` over 8-byte words (BMI2); the masks still come from AVX2.
    Bmi2(x86::Bmi2),
}

/// How a dense drop region packs the bytes it keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Compactor {
    /// SIMD masks and packing.
    #[cfg(all(target_arch = "x86_64", not(feature = "portable-only")))]
    Simd(SimdCompactor),
    /// No SIMD: a code point at a time over the block, classified by tables.
    Portable,
}

impl Compactor {
    /// The name of the compactor, for reports.
    pub(crate) const fn name(self) -> &'static str {
        match self {
            #[cfg(all(target_arch = "x86_64", not(feature = "portable-only")))]
            Compactor::Simd(SimdCompactor::Avx512(_)) => "AVX-512 (vpcompressb)",
            #[cfg(all(target_arch = "x86_64", not(feature = "portable-only")))]
            Compactor::Simd(SimdCompactor::Bmi2(_)) => "AVX2 + BMI2 (pext)",
            Compactor::Portable => "portable (tables)",
        }
    }
}

/// Which code points a [`Dropper`] removes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum DropRule {
    /// Table members and orphan selectors (strip; controls are kept).
    Strip,
    /// Those and controls but TAB and LF (prose).
    Prose,
}

/// Bytes of text after a dense drop region's 64-byte block that it reads.
const DROP_AHEAD: usize = 4;

/// Dense drop regions: where dropped code points are close together, one 64-byte
/// block at a time gets a mask of the bytes to drop (by SIMD compares of each byte
/// and the three after it) and the kept bytes are packed, instead of one scanner stop,
/// decode and run copy per dropped code point.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Dropper {
    rule: DropRule,
    compactor: Option<Compactor>,
}

impl Dropper {
    /// A dropper for `rule` on `backend`'s compactor.
    #[inline]
    pub(crate) const fn new(rule: DropRule, backend: Backend) -> Self {
        Dropper {
            rule,
            compactor: Some(backend.drops),
        }
    }

    /// A dropper on a given compactor (for tests).
    #[cfg(test)]
    pub(crate) const fn with_compactor(rule: DropRule, compactor: Option<Compactor>) -> Self {
        Dropper { rule, compactor }
    }

    /// Every compactor this CPU runs, and none (for tests).
    #[cfg(test)]
    pub(crate) fn available() -> std::vec::Vec<Option<Compactor>> {
        let mut all = std::vec![None];
        for backend in Backend::all() {
            if !all.contains(&Some(backend.drops)) {
                all.push(Some(backend.drops));
            }
        }
        all
    }

    /// Processes the block of text starting at `at` (a code-point boundary after the
    /// first byte of `text`): writes its kept bytes to the start of `out` and returns
    /// how many bytes of text it consumed (61 to 64, ending on a code-point boundary)
    /// and how many it wrote. `None`, writing nothing, when the block cannot be decided
    /// here: too close to the end of `text`, a U+FE0F after a non-ASCII code point
    /// (whether it is kept depends on that code point), `out` too short, or no
    /// compactor.
    #[inline]
    pub(crate) fn block(&self, text: &[u8], at: usize, out: &mut [u8]) -> Option<(usize, usize)> {
        self.marked_block(text, at, None, out)
            .map(|(consumed, kept, _)| (consumed, kept))
    }

    /// [`Dropper::block`], also returning which of the written bytes are in the set
    /// of `marks` (bit `i`: byte `i` of `out`); 0 without `marks`.
    #[inline]
    pub(crate) fn marked_block(
        &self,
        text: &[u8],
        at: usize,
        marks: Option<&Finder>,
        out: &mut [u8],
    ) -> Option<(usize, usize, u64)> {
        let compactor = self.compactor?;
        let w = text.get(at.checked_sub(1)?..at.checked_add(64 + DROP_AHEAD)?)?;
        drop_block(w, self.rule == DropRule::Prose, marks, out, compactor)
    }
}

impl Dropper {
    /// [`Dropper::marked_block`] without packing: the bytes consumed, the keep mask
    /// (bit `i`: byte `at + i` is kept) and the kept bytes in the set of `marks` (0
    /// without). For counting passes, which need the kept length and a few of the
    /// kept bytes, not the packed text.
    #[inline]
    pub(crate) fn plan(
        &self,
        text: &[u8],
        at: usize,
        marks: Option<&Finder>,
    ) -> Option<(usize, u64, u64)> {
        let compactor = self.compactor?;
        let w = text.get(at.checked_sub(1)?..at.checked_add(64 + DROP_AHEAD)?)?;
        plan_block(w, self.rule == DropRule::Prose, marks, compactor)
    }
}

/// One dense-drop block on `with` (see [`Dropper::marked_block`]).
#[inline]
fn drop_block(
    w: &[u8],
    prose: bool,
    marks: Option<&Finder>,
    out: &mut [u8],
    with: Compactor,
) -> Option<(usize, usize, u64)> {
    match with {
        Compactor::Portable => portable::drop_block(w, prose, marks, out),
        #[cfg(all(target_arch = "x86_64", not(feature = "portable-only")))]
        Compactor::Simd(simd) => x86::drop_block(w, prose, marks, out, simd),
    }
}

/// One dense-drop block's plan on `with` (see [`Dropper::plan`]).
#[inline]
fn plan_block(
    w: &[u8],
    prose: bool,
    marks: Option<&Finder>,
    with: Compactor,
) -> Option<(usize, u64, u64)> {
    match with {
        Compactor::Portable => portable::plan_block(w, prose, marks),
        #[cfg(all(target_arch = "x86_64", not(feature = "portable-only")))]
        Compactor::Simd(simd) => x86::plan_block(w, prose, marks, simd),
    }
}

/// The scan backend this CPU uses (for benchmark reports).
pub fn backend_name() -> &'static str {
    Backend::best().scan_name()
}

/// Whether `c` is a control, a table member or a variation selector.
#[inline]
pub(crate) fn needs_attention(c: char) -> bool {
    crate::class::is_control(c)
        || crate::class::is_dangerous_invisible(c)
        || crate::class::is_variation_selector(c)
}

const LO7: u64 = 0x7F7F_7F7F_7F7F_7F7F;
const HI: u64 = 0x8080_8080_8080_8080;

/// 0x80 in each byte of `x` that is a candidate of `f`, 0 elsewhere. Exact per byte:
/// no carry crosses a byte (each sum stays below 0x100).
#[inline(always)]
fn word_candidates(x: u64, f: &Finder) -> u64 {
    if f.every {
        return HI;
    }
    let mut acc = if f.non_ascii { x & HI } else { 0 };
    if f.controls {
        // (b & 0x7F) + 0x60 < 0x80 exactly when b & 0x7F < 0x20.
        acc |= !((x & LO7).wrapping_add(0x6060_6060_6060_6060) | x) & HI;
    }
    for &c in f.eq_bytes() {
        let t = x ^ u64::from_ne_bytes([c; 8]);
        // A byte of t is zero exactly when (t & 0x7F) + 0x7F and t both lack bit 7.
        acc |= !((t & LO7).wrapping_add(LO7) | t) & HI;
    }
    acc
}

/// One bit per byte of a 64-byte block, from the portable word test.
#[inline]
fn portable_block(block: &[u8; 64], f: &Finder) -> u64 {
    let mut mask = 0u64;
    for (k, word) in block.chunks_exact(8).enumerate() {
        let mut w = [0u8; 8];
        w.copy_from_slice(word);
        let flags = word_candidates(u64::from_le_bytes(w), f) >> 7;
        // Gathers bit 8i of `flags` into bit 56 + i; no two terms collide.
        let bits = flags.wrapping_mul(0x0102_0408_1020_4080) >> 56;
        mask |= bits << ((k & 7) << 3);
    }
    mask
}

/// The first block of `blocks` (a multiple of 64 bytes) with a candidate.
fn portable_blocks(blocks: &[u8], f: &Finder) -> Option<(usize, u64)> {
    for (k, chunk) in blocks.chunks_exact(64).enumerate() {
        // Word-level test first: most blocks of clean text have no candidate.
        let mut any = 0u64;
        for word in chunk.chunks_exact(8) {
            let mut w = [0u8; 8];
            w.copy_from_slice(word);
            any |= word_candidates(u64::from_le_bytes(w), f);
        }
        if any != 0 {
            let mut block = [0u8; 64];
            block.copy_from_slice(chunk);
            return Some((k.saturating_mul(64), portable_block(&block, f)));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::vec::Vec;

    #[test]
    fn attention_set_matches_class() {
        // The lead bytes of every attention code point, by the class functions.
        let mut leads = [false; 256];
        for c in '\0'..=char::MAX {
            if needs_attention(c) {
                let mut buf = [0u8; 4];
                leads[usize::from(c.encode_utf8(&mut buf).as_bytes()[0])] = true;
            }
        }
        for b in 0..=255u8 {
            assert_eq!(
                ByteSet::ATTENTION.contains(b),
                leads[usize::from(b)],
                "{b:#x}"
            );
        }
    }

    #[test]
    fn next_in_set_finds_first() {
        let set = Finder::new(ByteSet::EMPTY.with(b'x').with(0xE2));
        assert_eq!(next_in_set(b"abcxdx", 0, &set), 3);
        assert_eq!(next_in_set(b"abcxdx", 4, &set), 5);
        assert_eq!(next_in_set(b"abc", 0, &set), 3);
        assert_eq!(next_in_set(b"abc", 9, &set), 3);
        assert!(ByteSet::EMPTY.with_both_cases(b'u').contains(b'U'));
        assert!(
            Finder::new(set.set.union(ByteSet::EMPTY.with(1)))
                .set
                .contains(1)
        );
    }

    /// Every position the finder reports, by the plain definition.
    fn naive_all(bytes: &[u8], f: &Finder) -> Vec<usize> {
        (0..bytes.len())
            .filter(|&i| {
                f.set.contains(bytes[i])
                    && (bytes[i] < 0x80 || !f.refined || lead_may_attend(bytes, i))
            })
            .collect()
    }

    /// Each set as it is and refined.
    fn finders() -> Vec<Finder> {
        sets()
            .into_iter()
            .flat_map(|s| [Finder::new(s), Finder::new(s).refined()])
            .collect()
    }

    #[test]
    fn every_attention_code_point_passes_the_lead_rule() {
        for c in '\0'..=char::MAX {
            if needs_attention(c) {
                let mut buf = [0u8; 4];
                let enc = c.encode_utf8(&mut buf).as_bytes();
                assert!(lead_may_attend(enc, 0), "{:X}", u32::from(c));
            }
        }
        assert!(!lead_may_attend("—".as_bytes(), 0));
        assert!(!lead_may_attend("\u{A0}".as_bytes(), 0));
        assert!(lead_may_attend(&[0xE2, 0x80], 0));
        assert!(lead_may_attend(&[0xE2], 0));
    }

    /// Every position of the set, by repeated scans on one backend and one scanner.
    fn scanned_all(bytes: &[u8], f: &Finder, backend: Blocks) -> Vec<usize> {
        let mut out = Vec::new();
        let mut scanner = Scanner::with_blocks(f, backend);
        let mut at = 0;
        loop {
            at = scanner.next(bytes, at, |_, _| true);
            if at >= bytes.len() {
                return out;
            }
            out.push(at);
            at += 1;
        }
    }

    fn sets() -> Vec<ByteSet> {
        let strip = ByteSet::EMPTY
            .with(0xC2)
            .with(0xE1)
            .with(0xE2)
            .with(0xE3)
            .with(0xEF)
            .with(0xF3);
        let prose = ByteSet::ATTENTION
            .with(b'<')
            .with(b'#')
            .with(b':')
            .with_both_cases(b'u');
        let mut many = ByteSet::EMPTY;
        for b in b'a'..=b'z' {
            many = many.with(b);
        }
        std::vec![
            ByteSet::ATTENTION,
            strip,
            prose,
            many,
            ByteSet::EMPTY,
            ByteSet::EMPTY.with(0).with(0xFF).with(0x7F).with(0x80),
        ]
    }

    #[test]
    fn every_length_and_alignment() {
        // Each byte value, at each position of each length, at each alignment.
        let mut buf = [b'a'; 64 * 4 + 64];
        for f in finders() {
            for backend in Blocks::available() {
                for align in 0..64 {
                    for len in 0..=(64 * 3) {
                        let hay = &mut buf[align..align + len];
                        hay.fill(b'.');
                        assert_eq!(scanned_all(hay, &f, backend), naive_all(hay, &f));
                        if len == 0 {
                            continue;
                        }
                        const VALUES: [u8; 9] = [0, 0x1F, b'a', b'<', 0x7F, 0x80, 0xC2, 0xE2, 0xF3];
                        let pos = (align * 7 + len * 3) % len;
                        hay[pos] = VALUES[(align + len) % VALUES.len()];
                        hay[len - 1] = VALUES[(align + 2 * len) % VALUES.len()];
                        assert_eq!(
                            scanned_all(hay, &f, backend),
                            naive_all(hay, &f),
                            "{backend:?} align {align} len {len} pos {pos}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn every_byte_value_in_every_lane() {
        for f in finders() {
            for backend in Blocks::available() {
                for lane in 0..64 {
                    for v in 0..=255u8 {
                        let mut hay = [b'.'; 130];
                        hay[lane] = v;
                        hay[lane + 64] = v;
                        assert_eq!(scanned_all(&hay, &f, backend), naive_all(&hay, &f));
                    }
                }
            }
        }
    }

    /// Text dense with code points to drop: invisibles, controls, selectors after
    /// ASCII and after emoji, tags, multi-byte neighbours.
    fn dense_text() -> impl Strategy<Value = std::string::String> {
        proptest::collection::vec(
            proptest::sample::select(std::vec![
                "a",
                "b",
                "u",
                "<",
                "\t",
                "\n",
                "\r",
                "\u{0}",
                "\u{1B}",
                "\u{7F}",
                "\u{85}",
                "\u{9F}",
                "\u{A0}",
                "\u{AD}",
                "\u{115F}",
                "\u{1160}",
                "\u{180E}",
                "\u{200B}",
                "\u{200D}",
                "\u{200E}",
                "\u{202A}",
                "\u{202E}",
                "\u{2060}",
                "\u{2065}",
                "\u{2066}",
                "\u{2069}",
                "\u{3164}",
                "\u{FE00}",
                "\u{FE0E}",
                "\u{FE0F}",
                "\u{FEFF}",
                "\u{FFFE}",
                "\u{E0000}",
                "\u{E0041}",
                "\u{E007F}",
                "\u{E0080}",
                "\u{E0100}",
                "\u{E01EF}",
                "\u{E01F0}",
                "😀",
                "😀\u{FE0F}",
                "❤\u{FE0F}",
                "1\u{FE0F}",
                "—",
                "é",
                "中",
                "\u{10FFFF}",
            ]),
            0..200,
        )
        .prop_map(|v| v.concat())
    }

    /// The bits of `x` where `m` has ones, packed to the bottom.
    fn portable_pext(x: u64, m: u64) -> u64 {
        let mut r = 0;
        let mut k = 0;
        for i in 0..64 {
            if m >> i & 1 == 1 {
                r |= (x >> i & 1) << k;
                k += 1;
            }
        }
        r
    }

    /// Whether `c`, after `prev` in the original text, is dropped by `rule`.
    fn naive_drops(rule: DropRule, c: char, prev: Option<char>) -> bool {
        crate::class::is_stripped(c, prev)
            || (rule == DropRule::Prose && crate::class::is_control(c) && c != '\t' && c != '\n')
    }

    /// Every code point through every compactor's blocks under both rules, against
    /// the plain rule: once packed with its neighbours in code-point order, once after
    /// an ASCII letter. Blocks a compactor declines (U+FE0F after a non-ASCII code
    /// point, the end of the text) are stepped over one code point at a time.
    #[test]
    fn every_code_point_through_every_dropper() {
        let mut packed = std::string::String::from("a");
        let mut spaced = std::string::String::new();
        for c in '\0'..=char::MAX {
            packed.push(c);
            spaced.push('a');
            spaced.push(c);
        }
        for text in [packed, spaced] {
            let bytes = text.as_bytes();
            for compactor in Dropper::available().into_iter().flatten() {
                for rule in [DropRule::Strip, DropRule::Prose] {
                    let dropper = Dropper::with_compactor(rule, Some(compactor));
                    let mut at = 1;
                    let mut blocks = 0usize;
                    while at < bytes.len() {
                        let mut out = [0u8; 64];
                        let Some((consumed, kept)) = dropper.block(bytes, at, &mut out) else {
                            at += text[at..].chars().next().unwrap().len_utf8();
                            continue;
                        };
                        blocks += 1;
                        let mut expected = Vec::new();
                        let mut prev = text[..at].chars().next_back();
                        for c in text[at..at + consumed].chars() {
                            if !naive_drops(rule, c, prev) {
                                let mut buf = [0u8; 4];
                                expected.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                            }
                            prev = Some(c);
                        }
                        assert!(
                            out[..kept] == expected[..],
                            "{compactor:?} {rule:?} at U+{:04X}",
                            u32::from(text[at..].chars().next().unwrap())
                        );
                        at += consumed;
                    }
                    // Nearly all of the text went through blocks.
                    assert!(blocks > bytes.len() / 64 - 100, "{compactor:?} {blocks}");
                }
            }
        }
    }

    proptest! {
        #[test]
        fn dropper_blocks_match_naive(text in dense_text(), start in 1usize..64, prose: bool) {
            let rule = if prose { DropRule::Prose } else { DropRule::Strip };
            let bytes = text.as_bytes();
            let mut at = start.min(text.len());
            while !text.is_char_boundary(at) {
                at += 1;
            }
            for compactor in Dropper::available() {
                let dropper = Dropper::with_compactor(rule, compactor);
                let mut out = [0u8; 64];
                let Some((consumed, kept)) = dropper.block(bytes, at, &mut out) else {
                    continue;
                };
                prop_assert!(compactor.is_some());
                prop_assert!((61..=64).contains(&consumed));
                prop_assert!(text.is_char_boundary(at + consumed));
                let mut expected = std::vec::Vec::new();
                let mut prev = text[..at].chars().next_back();
                for c in text[at..at + consumed].chars() {
                    if !naive_drops(rule, c, prev) {
                        let mut buf = [0u8; 4];
                        expected.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                    }
                    prev = Some(c);
                }
                prop_assert_eq!(&out[..kept], &expected[..], "{:?}", compactor);
                // A short output buffer is declined, not overrun.
                if kept > 0 {
                    let mut short = [0u8; 64];
                    prop_assert_eq!(dropper.block(bytes, at, &mut short[..kept - 1]), None);
                }
            }
        }

        #[test]
        fn dropper_compactors_agree(text in dense_text(), start in 1usize..64, prose: bool, odd: bool) {
            // Marks as prose's automaton uses them, or a set with a continuation
            // byte (the portable dropper's slow path).
            let marks = if odd {
                Finder::new(ByteSet::EMPTY.with(0x80).with(0x9F).with(b'a'))
            } else {
                Finder::new(ByteSet::EMPTY.with(b'<').with_both_cases(b'u'))
            };
            let rule = if prose { DropRule::Prose } else { DropRule::Strip };
            let bytes = text.as_bytes();
            let mut at = start.min(text.len());
            while !text.is_char_boundary(at) {
                at += 1;
            }
            type Seen = (Option<(usize, usize, u64, Vec<u8>)>, Option<(usize, u64, u64)>);
            let mut seen: Option<Seen> = None;
            for compactor in Dropper::available().into_iter().flatten() {
                let dropper = Dropper::with_compactor(rule, Some(compactor));
                let mut out = [0u8; 64];
                let block = dropper
                    .marked_block(bytes, at, Some(&marks), &mut out)
                    .map(|(c, k, m)| (c, k, m, out[..k].to_vec()));
                let plan = dropper.plan(bytes, at, Some(&marks));
                prop_assert_eq!(block.is_some(), plan.is_some());
                if let (Some((c, k, m, _)), Some((pc, keep, marked))) = (&block, plan) {
                    prop_assert_eq!(*c, pc);
                    prop_assert_eq!(*k, keep.count_ones() as usize);
                    prop_assert_eq!(*m, portable_pext(marked, keep));
                }
                // A U+FE0F after non-ASCII just past the block's cut declines the
                // SIMD blocks only: compare the blocks every compactor takes.
                match &seen {
                    _ if block.is_none() => {}
                    None => seen = Some((block, plan)),
                    Some(first) => prop_assert_eq!(first, &(block, plan), "{:?}", compactor),
                }
            }
        }

        #[test]
        fn backends_agree_on_random_bytes(
            bytes in proptest::collection::vec(any::<u8>(), 0..600),
            set_index in 0usize..12,
            from in 0usize..700,
        ) {
            let f = finders()[set_index];
            let naive = naive_all(&bytes, &f);
            for backend in Blocks::available() {
                prop_assert_eq!(&scanned_all(&bytes, &f, backend), &naive);
                let first = naive.iter().copied().find(|&i| i >= from).unwrap_or(bytes.len());
                prop_assert_eq!(Scanner::with_blocks(&f, backend).next(&bytes, from, |_, _| true), first);
            }
        }

        #[test]
        fn refined_backends_agree_on_lead_byte_soup(
            bytes in proptest::collection::vec(proptest::sample::select(std::vec![
                0xC2u8, 0xE1, 0xE2, 0xE3, 0xEF, 0xF3, 0x80, 0x81, 0x85, 0x8B, 0x8D, 0x8E, 0x94,
                0x9F, 0xA0, 0xA5, 0xA6, 0xA9, 0xAA, 0xAE, 0xAF, 0xAD, 0xB8, 0xBB, 0xBF, b'a', b':',
            ]), 0..400),
            set_index in 0usize..6,
            from in 0usize..420,
        ) {
            let f = Finder::new(sets()[set_index]).refined();
            let naive = naive_all(&bytes, &f);
            for backend in Blocks::available() {
                prop_assert_eq!(&scanned_all(&bytes, &f, backend), &naive);
                let first = naive.iter().copied().find(|&i| i >= from).unwrap_or(bytes.len());
                prop_assert_eq!(Scanner::with_blocks(&f, backend).next(&bytes, from, |_, _| true), first);
            }
        }

        #[test]
        fn first_attention_is_the_first_such_char(s in "\\PC*|[a-z\u{0}-\u{1f}\u{7f}-\u{a0}\u{ad}\u{200b}-\u{2070}\u{fe00}-\u{feff}\u{e0000}-\u{e01ef}]{0,200}") {
            let naive = s.char_indices().find(|&(_, c)| needs_attention(c));
            prop_assert_eq!(first_attention(&s), naive);
        }
    }
}
