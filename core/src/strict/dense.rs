//! Step 2 over dense members of D: a code point at a time, without the window.
//!
//! Most members of D no rule of §2 can keep ([`super::class::is_keepable`]): they
//! are dropped on sight, and so is a keepable one after a code point that ends
//! every context ("dead": a member of D, or [`super::class::is_inert`]). Such runs
//! are decided here with a byte or two of state instead of one trip per code point
//! through the keep rules (decode, window, trie walks, history). Kept runs are handed
//! on as slices of the text (the strict lint locates them by address), or, for a
//! sink that offers room ([`Sink::room`]: `strip_into`'s buffer, sanitize's
//! batch), written there a byte at a time, without a hand-off per one-byte run.
//! What this cannot decide (a keepable member after a live code point) goes back to
//! [`super::keep::Keeper`], which rebuilds its history and joining state from the
//! text it consumed. Every backend runs this same code, so they compute the same
//! bytes.

use super::class::{StrictSets, in_drop_set_fast, is_inert, is_keepable};
use super::sink::Sink;
use crate::scan::{Backend, StrictKernel, StrictMasks};
use crate::truncate::floor_char_boundary;

/// Kept bytes after the last dropped code point at which the run gives the text
/// back to the block scan (the members of D are no longer dense).
const SPARSE: usize = 48;

/// The most bytes of a piece gathered at once when the sink has no room for all of it
/// (sanitize's batch).
const GATHER_PART: usize = 512;

/// Whether half the 16 bytes at `from` (or more) are non-ASCII: the members of D
/// stay dense there (between letters, every second code point is one).
#[inline]
fn dense_ahead(bytes: &[u8], from: usize) -> bool {
    let mut w = [0u8; 16];
    for (d, &b) in w.iter_mut().zip(bytes.get(from..).unwrap_or_default()) {
        *d = b;
    }
    (u128::from_le_bytes(w) & u128::from_le_bytes([0x80; 16])).count_ones() >= 8
}

/// Where a dense run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct DenseRun {
    /// Offset in the text of the first code point not consumed.
    pub(super) end: usize,
    /// Whether the last code point consumed ends every context (see the module).
    pub(super) dead: bool,
}

/// A code point decoded from UTF-8.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Decoded {
    cp: u32,
    len: usize,
}

/// The code point at `i` of `bytes` (valid UTF-8, a non-ASCII lead byte at `i`),
/// without branches on its length: the length from the lead byte, the bits from the
/// four bytes there read as one word.
#[inline(always)]
fn decode(bytes: &[u8], i: usize) -> Decoded {
    let at = |k: usize| bytes.get(i.saturating_add(k)).copied().unwrap_or(0);
    let w = match bytes.get(i..).and_then(<[u8]>::first_chunk::<4>) {
        Some(word) => u32::from_be_bytes(*word),
        None => u32::from_be_bytes([at(0), at(1), at(2), at(3)]),
    };
    // A lead byte of 2 to 4 bytes: its leading ones are the length.
    let len = (!w).leading_zeros();
    // Payloads: five lead bits (a 4-byte lead's fifth is masked off below), then six
    // bits per continuation byte, as if the code point had four bytes.
    let payload = (w & 0x3F) | (w >> 2 & 0xFC0) | (w >> 4 & 0x3_F000) | (w >> 6 & 0x7C_0000);
    // Drop the bits of the bytes past the code point, and keep the 11, 16 or 21 bits
    // a code point of that length has (`len` is 2 to 4: the wrapping operations
    // never wrap).
    // By length (0 to 4; 0 and 1 are not lead bytes and never come here).
    const SHIFT: [u32; 8] = [0, 0, 12, 6, 0, 0, 0, 0];
    const MASK: [u32; 8] = [0, 0, 0x7FF, 0xFFFF, 0x1F_FFFF, 0, 0, 0];
    let l = (len & 7) as usize;
    let shift = SHIFT.get(l).copied().unwrap_or(0);
    let mask = MASK.get(l).copied().unwrap_or(0);
    Decoded {
        cp: payload.wrapping_shr(shift) & mask,
        len: len as usize,
    }
}

/// Decides the code points of `text` from `from` (a code-point boundary; the window
/// is empty) while no rule of §2 can keep them: keeps what is outside D, drops the
/// members of D that cannot be kept there. `pos` is the stream offset of `from`,
/// `dead` whether the code point before it ends every context. Stops at the end of
/// the text, before a keepable member of D after a live code point, or once the
/// members of D thin out.
#[inline]
pub(super) fn drop_dense<S: Sink>(
    text: &str,
    from: usize,
    pos: usize,
    mut dead: bool,
    sink: &mut S,
    backend: Backend,
) -> DenseRun {
    let bytes = text.as_bytes();
    if !S::DROPS {
        // Room for the rest of the piece, or failing that (sanitize's batch is 512
        // bytes) for a part of it: the run then ends there, and the keeper goes on
        // from it as after a run that thinned out. Without this a long piece of dense
        // members of D — hostile text with no ESC to cut it — went a run at a time.
        // Only where members of D are dense ahead: after a sparse one (mixed prose)
        // the kept runs are better handed on as slices of the text than copied.
        let rest = bytes.len().saturating_sub(from);
        let limit = if rest <= GATHER_PART || sink.room(rest).is_some() {
            bytes.len()
        } else if dense_ahead(bytes, from) {
            floor_char_boundary(text, from.saturating_add(GATHER_PART))
        } else {
            from
        };
        if limit > from
            && let Some(room) = sink.room(limit.saturating_sub(from))
        {
            let part = bytes.get(..limit).unwrap_or_default();
            let kernel = StrictKernel::of(backend);
            let run = if S::DROPS_CONTROLS {
                gather_dense::<true>(part, from, dead, room, kernel)
            } else {
                gather_dense::<false>(part, from, dead, room, kernel)
            };
            sink.gathered(run.kept);
            return run.run;
        }
    }
    let rest = bytes.get(from..).unwrap_or_default();
    let text = text.get(from..).unwrap_or_default();
    // `i` indexes `rest`; `run` is the start of the kept run not yet handed on,
    // `since` its length since the last drop (or the start).
    let mut i = 0usize;
    let mut run = 0usize;
    let mut since = 0usize;
    // `i` and `run` stay within `rest` on code-point boundaries, `run <= i`, and
    // `since <= i`, so the wrapping operations never wrap.
    while let Some(&b) = rest.get(i) {
        if b < 0x80 {
            i = i.wrapping_add(1);
            since = since.wrapping_add(1);
            dead = is_inert_ascii(b);
            if since > SPARSE {
                break;
            }
            continue;
        }
        let Decoded { cp, len } = decode(rest, i);
        if in_drop_set_fast(cp) {
            if !dead && is_keepable(cp) {
                break;
            }
            if i > run {
                sink.text(text.get(run..i).unwrap_or_default());
            }
            if S::DROPS {
                let at = pos.saturating_add(i);
                sink.dropped(at, char::from_u32(cp).unwrap_or('\u{FFFD}'));
            }
            dead = true;
            since = 0;
            i = i.wrapping_add(len);
            run = i;
        } else {
            dead = is_inert(cp);
            since = since.wrapping_add(len);
            i = i.wrapping_add(len);
            if since > SPARSE {
                break;
            }
        }
    }
    if i > run {
        sink.text(text.get(run..i).unwrap_or_default());
    }
    DenseRun {
        end: from.wrapping_add(i),
        dead,
    }
}

/// [`is_inert`] of an ASCII byte: the keycap bases (`#`, `*`, digits) are all below
/// 64, so one 64-bit word holds them.
#[inline(always)]
fn is_inert_ascii(b: u8) -> bool {
    INERT_ASCII.get(usize::from(b)).copied().unwrap_or(false)
}

/// Whether ASCII byte `b` is a control step 3 drops: C0 but TAB and LF, or DEL.
#[inline(always)]
fn is_c0_or_del(b: u8) -> bool {
    (b < 0x20 && b != b'\t' && b != b'\n') || b == 0x7F
}

/// [`is_inert`] of each ASCII byte: all but the keycap bases (`#`, `*`, digits).
static INERT_ASCII: [bool; 128] = {
    const BASES: u128 = 1 << 0x23 | 1 << 0x2A | 0x3FF << 0x30;
    let mut t = [false; 128];
    let mut b = 0usize;
    while b < 128 {
        // Index: `b < 128`.
        #[allow(clippy::indexing_slicing)]
        {
            t[b] = BASES >> b & 1 == 0;
        }
        b = b.wrapping_add(1);
    }
    t
};

/// A dense run whose kept bytes were written into the sink's space.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Gathered {
    run: DenseRun,
    /// Kept bytes written.
    kept: usize,
}

/// [`drop_dense`] writing the kept bytes into `room` (at least the rest of the text
/// long, so every kept byte has its place) instead of handing on runs: the same
/// decisions, and the same stops. With a `kernel`, whole 64-byte blocks go at once
/// ([`plan_block`]) while they hold nothing the scalar loop must decide; after a
/// block that stopped short, the scalar loop goes on to the next dropped code point.
///
/// With `CTRL` (sanitize, whose step 3 drops them next), the kept controls — C0 but
/// TAB and LF, DEL, C1 — are not written: step 2's decisions and stops are the same
/// (they count them as kept), only the written bytes lack them. Between dense
/// members of D a control comes every few bytes, and squeezing them out of the batch
/// afterwards cost a fifth of strict sanitize's time there.
#[inline]
fn gather_dense<const CTRL: bool>(
    bytes: &[u8],
    from: usize,
    mut dead: bool,
    room: &mut [u8],
    kernel: Option<StrictKernel>,
) -> Gathered {
    let rest = bytes.get(from..).unwrap_or_default();
    // `i` indexes `rest`, `k` the room; `since` counts the bytes kept since the last
    // drop (or the start).
    let mut i = 0usize;
    let mut k = 0usize;
    let mut since = 0usize;
    let mut armed = kernel.is_some();
    // `i` and `next` stay within `rest` (whole code points), and `k` and `since` are
    // at most `i` (kept bytes are bytes of the text), so the wrapping operations
    // never wrap.
    while let Some(&b) = rest.get(i) {
        if armed && let Some(kernel) = kernel {
            let tail = rest.get(i..).unwrap_or_default();
            // A block is worth its cost where members of D are close: some
            // non-ASCII byte among the next eight (otherwise wait for a drop).
            let head = tail.first_chunk::<8>().copied().unwrap_or_else(|| {
                let mut h = [0u8; 8];
                for (d, &s) in h.iter_mut().zip(tail) {
                    *d = s;
                }
                h
            });
            if u64::from_le_bytes(head) & 0x8080_8080_8080_8080 == 0 {
                armed = false;
                continue;
            }
            let out = room.get_mut(k..).unwrap_or_default();
            let m = kernel.masks::<StrictSets, CTRL>(tail);
            if let Some(step) = plan_block(m, tail, dead, since)
                && out.len() >= step.keep.count_ones() as usize
            {
                // Without `CTRL` the controls' mask is 0.
                k = k.wrapping_add(kernel.compact(tail, step.keep & !m.ctrl, out));
                i = i.wrapping_add(step.consumed);
                dead = step.dead;
                since = step.since;
                armed = step.whole;
                continue;
            }
            armed = false;
        }
        if b < 0x80 {
            if let Some(slot) = room.get_mut(k) {
                *slot = b;
            }
            // A control left out is overwritten by the next kept byte.
            k = k.wrapping_add(usize::from(!(CTRL && is_c0_or_del(b))));
            i = i.wrapping_add(1);
            since = since.wrapping_add(1);
            dead = is_inert_ascii(b);
            if since > SPARSE {
                break;
            }
            continue;
        }
        let Decoded { cp, len } = decode(rest, i);
        if in_drop_set_fast(cp) {
            if !dead && is_keepable(cp) {
                break;
            }
            dead = true;
            since = 0;
            armed = kernel.is_some();
        } else {
            if !(CTRL && (0x80..0xA0).contains(&cp)) {
                let src = rest.get(i..i.wrapping_add(len)).unwrap_or_default();
                for (slot, &c) in room.iter_mut().skip(k).zip(src) {
                    *slot = c;
                }
                k = k.wrapping_add(len);
            }
            since = since.wrapping_add(len);
            dead = is_inert(cp);
            if since > SPARSE {
                i = i.wrapping_add(len);
                break;
            }
        }
        i = i.wrapping_add(len);
    }
    Gathered {
        run: DenseRun {
            end: from.wrapping_add(i),
            dead,
        },
        kept: k,
    }
}

/// A dense block decided by [`plan_block`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct BlockStep {
    /// Bytes consumed (whole code points).
    consumed: usize,
    /// Bit `i`: byte `i` of the block is kept.
    keep: u64,
    /// The scalar loop's `dead` and `since` after the consumed bytes.
    dead: bool,
    since: usize,
    /// The block went to its end (the text's, or its last code point that fits);
    /// otherwise it stopped before a code point the scalar loop must decide.
    whole: bool,
}

/// The first `n` bits (`n` at most 64).
#[inline(always)]
fn below(n: usize) -> u64 {
    if n >= 64 {
        u64::MAX
    } else {
        (1u64 << n).wrapping_sub(1)
    }
}

/// Whether `keep` holds more than [`SPARSE`] consecutive set bits.
#[inline(always)]
fn has_sparse_run(keep: u64) -> bool {
    const RUN: u32 = SPARSE as u32 + 1;
    // `r` bit `i`: bits `i..i + len` of `keep` are all set; `len` doubles to the
    // largest power of two not above `RUN`, then one more shift covers the rest.
    let mut r = keep;
    let mut len = 1u32;
    while len.wrapping_mul(2) <= RUN {
        r &= r >> len;
        len = len.wrapping_mul(2);
    }
    r &= r >> RUN.wrapping_sub(len);
    r != 0
}

/// What the scalar loop of [`gather_dense`] decides over the block at the start of
/// `w` (the rest of the text, at most 64 bytes of it in the block), from `dead`
/// and `since` as it has them, when the block holds only what it decides without
/// stopping: ASCII, inert code points, members of D dropped on sight. The block
/// stops before the first code point outside those (the scalar loop decides it),
/// before a keepable member of D after a live code point (the scalar loop gives it
/// to the keep rules) and before a code point crossing the block's end. `None` when
/// nothing is consumed, or when the scalar loop would end the run inside the block
/// (more than [`SPARSE`] kept bytes after a drop).
#[inline(always)]
fn plan_block(m: StrictMasks, w: &[u8], dead: bool, since: usize) -> Option<BlockStep> {
    let limit = w.len();
    let starts = !m.cont;
    // A code point crossing the block's end (a continuation byte after it) is left
    // to the next block; the block starts on a code point, so `starts` has a bit.
    let fits = if limit > 64 && w.get(64).is_some_and(|&b| (0x80..0xC0).contains(&b)) {
        63usize.wrapping_sub(starts.leading_zeros() as usize)
    } else {
        limit.min(64)
    };
    let kept = m.ascii | m.inert;
    let odd = starts & !kept & !m.drop_lead;
    let mut end = (odd.trailing_zeros() as usize).min(fits);
    // Members of D after a live code point (a keycap base, or the run's start):
    // dropped on sight unless keepable. Rare; decided one at a time.
    let live = m.keycap << 1 | u64::from(!dead);
    let mut check = m.drop_lead & live & below(end);
    while check != 0 {
        let p = check.trailing_zeros() as usize;
        if is_keepable(decode(w, p).cp) {
            end = p;
            break;
        }
        check &= check.wrapping_sub(1);
    }
    if end == 0 {
        return None;
    }
    let range = below(end);
    let keep = kept & range;
    let drop = !kept & range;
    // `end` is 1 to 64, and the drop bits lie below it: no subtraction wraps.
    let since = if drop == 0 {
        since.saturating_add(end)
    } else {
        if since.saturating_add(drop.trailing_zeros() as usize) > SPARSE
            || (end > SPARSE && has_sparse_run(keep))
        {
            return None;
        }
        end.wrapping_sub(64usize.wrapping_sub(drop.leading_zeros() as usize))
    };
    if since > SPARSE {
        return None;
    }
    Some(BlockStep {
        consumed: end,
        keep,
        dead: m.keycap >> end.wrapping_sub(1) & 1 == 0,
        since,
        whole: end == fits,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::strict::keep::Keeper;
    use std::format;
    use std::string::String;
    use std::vec::Vec;

    /// Takes the kept runs one by one.
    struct Runs(String);
    impl Sink for Runs {
        fn text(&mut self, s: &str) {
            self.0.push_str(s);
        }
    }

    /// Offers `cap` bytes of room (the dense path gathers when that is enough).
    struct Room {
        out: String,
        buf: Vec<u8>,
        cap: usize,
        gathers: usize,
    }
    impl Sink for Room {
        fn text(&mut self, s: &str) {
            self.out.push_str(s);
        }
        fn room(&mut self, need: usize) -> Option<&mut [u8]> {
            if need > self.cap {
                return None;
            }
            self.buf.clear();
            self.buf.resize(self.cap, 0xFF);
            Some(&mut self.buf)
        }
        fn gathered(&mut self, n: usize) {
            self.gathers += 1;
            self.out
                .push_str(core::str::from_utf8(&self.buf[..n]).unwrap());
        }
    }

    /// Letters, keycap bases, inert and live code points, and members of D, both
    /// keepable ones (ZWJ, ZWNJ, U+FE0E/F, tags) and ones never kept.
    const POOL: &[char] = &[
        'a',
        'q',
        'Z',
        ' ',
        '1',
        '#',
        '*',
        '-',
        '\u{2014}',
        '\u{85}',
        '\u{0}',
        '\r',
        '\t',
        '\n',
        '\u{7F}',
        '\u{9F}',
        '\u{A0}',
        '\u{E9}',
        '\u{4E2D}',
        '\u{1F600}',
        '\u{2764}',
        '\u{0915}',
        '\u{094D}',
        '\u{0628}',
        '\u{200B}',
        '\u{200C}',
        '\u{200D}',
        '\u{202E}',
        '\u{2060}',
        '\u{FEFF}',
        '\u{AD}',
        '\u{115F}',
        '\u{3164}',
        '\u{FE0E}',
        '\u{FE0F}',
        '\u{E0041}',
        '\u{E0067}',
        '\u{E007F}',
        '\u{E0100}',
        '\u{1F3F4}',
    ];

    /// Deterministic text of `n` code points, mostly a letter and a member of D.
    fn dense_text(seed: u64, n: usize) -> String {
        let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let mut t = String::new();
        for k in 0..n {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let c = if k % 2 == 0 && !x.is_multiple_of(4) {
                char::from(b'a' + (x >> 8) as u8 % 26)
            } else {
                POOL[(x >> 16) as usize % POOL.len()]
            };
            t.push(c);
        }
        t
    }

    #[test]
    fn ascii_inertness_is_is_inert() {
        for b in 0..128u8 {
            assert_eq!(is_inert_ascii(b), is_inert(u32::from(b)), "{b:#x}");
        }
    }

    #[test]
    fn gathering_computes_what_the_runs_compute() {
        for backend in Backend::all() {
            for seed in 0..300u64 {
                let text = dense_text(seed, 1 + (seed as usize % 90));
                let starts: Vec<usize> = text.char_indices().map(|(i, _)| i).collect();
                for &from in &starts {
                    for dead in [false, true] {
                        let mut runs = Runs(String::new());
                        let want = drop_dense(&text, from, 7, dead, &mut runs, backend);
                        // Room for the rest of the text (gathers), and one byte short
                        // of it (hands on runs).
                        let need = text.len() - from;
                        for cap in [need, need + 5, need.saturating_sub(1)] {
                            let mut room = Room {
                                out: String::new(),
                                buf: Vec::new(),
                                cap,
                                gathers: 0,
                            };
                            let got = drop_dense(&text, from, 7, dead, &mut room, backend);
                            let at =
                                format!("{backend:?} {text:?} from {from} dead {dead} cap {cap}");
                            assert_eq!(got, want, "{at}");
                            assert_eq!(room.out, runs.0, "{at}");
                            assert_eq!(room.gathers, usize::from(cap >= need), "{at}");
                        }
                    }
                }
            }
        }
    }

    /// Text for the blocks: dense stretches, runs of letters around [`SPARSE`] long,
    /// keycap bases before keepable members, code points the blocks leave to the
    /// scalar loop; long enough to cross several block edges.
    fn block_text(seed: u64) -> String {
        let mut x = seed.wrapping_mul(0x2545_F491_4F6C_DD1D) | 1;
        let mut t = String::new();
        let len = 60 + (seed as usize * 37) % 400;
        while t.len() < len {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            match x % 16 {
                0 => {
                    let n = 40 + (x >> 8) as usize % 20;
                    t.extend((0..n).map(|k| char::from(b'a' + (k % 26) as u8)));
                }
                1 => t.push_str(
                    ["1\u{FE0F}", "#\u{200D}", "*\u{E0067}", "9\u{200B}"][(x >> 9) as usize % 4],
                ),
                2..=8 => t.push(char::from(b'a' + (x >> 8) as u8 % 26)),
                _ => t.push(POOL[(x >> 16) as usize % POOL.len()]),
            }
        }
        t
    }

    /// `bytes` (UTF-8) without the controls step 3 drops.
    fn without_controls(bytes: &[u8]) -> Vec<u8> {
        let text = core::str::from_utf8(bytes).unwrap();
        let kept: String = text
            .chars()
            .filter(|&c| !(c.is_control() && c != '\t' && c != '\n'))
            .collect();
        kept.into_bytes()
    }

    /// Both forms of [`gather_dense`] over `bytes` from `from`, with `kernel`: the
    /// run, and the bytes written.
    fn gather_both(
        bytes: &[u8],
        from: usize,
        dead: bool,
        kernel: Option<StrictKernel>,
    ) -> [(DenseRun, Vec<u8>); 2] {
        // Exactly the rest of the text as room (no slack for stores).
        let mut room = std::vec![0u8; bytes.len() - from];
        let kept = gather_dense::<false>(bytes, from, dead, &mut room, kernel);
        let plain = (kept.run, room[..kept.kept].to_vec());
        let mut room = std::vec![0u8; bytes.len() - from];
        let kept = gather_dense::<true>(bytes, from, dead, &mut room, kernel);
        [plain, (kept.run, room[..kept.kept].to_vec())]
    }

    #[test]
    fn blocks_decide_what_the_scalar_loop_decides() {
        let kernels = crate::scan::StrictKernel::available();
        for seed in 0..400u64 {
            // An allocation of exactly the text (no capacity after it), so a read
            // past the end is an AddressSanitizer report, not a read of slack.
            let text: std::boxed::Box<str> = block_text(seed).into_boxed_str();
            let bytes = text.as_bytes();
            for (from, _) in text.char_indices() {
                for dead in [false, true] {
                    let want = gather_both(bytes, from, dead, None);
                    let at = format!("{text:?} from {from} dead {dead}");
                    // Leaving the controls out changes where nothing else.
                    assert_eq!(want[1].0, want[0].0, "{at}");
                    assert_eq!(want[1].1, without_controls(&want[0].1), "{at}");
                    for &kernel in &kernels {
                        let got = gather_both(bytes, from, dead, Some(kernel));
                        assert_eq!(got, want, "{kernel:?} {at}");
                    }
                }
            }
        }
    }

    /// Every backend's keeper, gathering, computes what the portable one hands on,
    /// with the text cut into two pieces anywhere (members of D split across a
    /// block's edge and at a piece's end).
    #[test]
    fn every_backend_keeps_what_the_portable_one_keeps() {
        for seed in 0..160u64 {
            let text = block_text(seed.wrapping_add(77));
            let mut cuts: Vec<usize> = text.char_indices().map(|(i, _)| i).collect();
            cuts.push(text.len());
            let step = 1 + cuts.len() / 40;
            for &cut in cuts.iter().step_by(step) {
                let (a, b) = text.split_at(cut);
                let mut runs = Runs(String::new());
                let mut k = Keeper::on(Backend::PORTABLE);
                k.push(a, &mut runs);
                k.push(b, &mut runs);
                k.finish(&mut runs);
                for backend in Backend::all() {
                    let mut room = Room {
                        out: String::new(),
                        buf: Vec::new(),
                        cap: 1024,
                        gathers: 0,
                    };
                    let mut k = Keeper::on(backend);
                    k.push(a, &mut room);
                    k.push(b, &mut room);
                    k.finish(&mut room);
                    assert_eq!(room.out, runs.0, "{backend:?} {text:?} cut at {cut}");
                }
            }
        }
    }

    /// Every code point up to U+0FFF (and a few beyond) at every offset of a block,
    /// between letters and members of D: gathering for sanitize leaves out exactly
    /// the controls step 3 drops, on every kernel and the scalar loop.
    #[test]
    fn gathering_for_sanitize_leaves_out_exactly_the_controls() {
        let kernels = crate::scan::StrictKernel::available();
        let points = (0u32..0x1000)
            .chain([0x2028, 0xFEFF, 0x1F600, 0xE0041, 0x10FFFF])
            .filter_map(char::from_u32);
        for c in points {
            for pad in [0usize, 1, 5, 7, 30, 31, 32, 33, 62, 63, 64] {
                let text: String = core::iter::repeat_n('a', pad)
                    .chain([c, 'x', c, '\u{200B}', c, c, '\u{2060}', 'q', c])
                    .collect();
                let bytes = text.as_bytes();
                let want = gather_both(bytes, 0, true, None);
                let at = format!("{c:?} {pad}");
                assert_eq!(want[1].0, want[0].0, "{at}");
                assert_eq!(want[1].1, without_controls(&want[0].1), "{at}");
                for &kernel in &kernels {
                    assert_eq!(
                        gather_both(bytes, 0, true, Some(kernel)),
                        want,
                        "{kernel:?} {at}"
                    );
                }
            }
        }
    }

    /// A long piece of dense members of D (no ESC cuts it) with room for only a part
    /// of it (sanitize's batch): gathered part by part, it keeps what a keeper handing
    /// on runs keeps, in one piece and cut anywhere.
    #[test]
    fn a_long_piece_gathered_in_parts_keeps_what_runs_keep() {
        for seed in 0..24u64 {
            let text = dense_text(seed.wrapping_add(9000), 300 + (seed as usize * 97) % 900);
            let mut cuts: Vec<usize> = text.char_indices().map(|(i, _)| i).collect();
            cuts.push(text.len());
            let step = 1 + cuts.len() / 24;
            for &cut in cuts.iter().step_by(step) {
                let (a, b) = text.split_at(cut);
                let mut runs = Runs(String::new());
                let mut k = Keeper::new();
                k.push(a, &mut runs);
                k.push(b, &mut runs);
                k.finish(&mut runs);
                for backend in Backend::all() {
                    let mut room = Room {
                        out: String::new(),
                        buf: Vec::new(),
                        cap: GATHER_PART,
                        gathers: 0,
                    };
                    let mut k = Keeper::on(backend);
                    k.push(a, &mut room);
                    k.push(b, &mut room);
                    k.finish(&mut room);
                    let at = format!("{backend:?} {text:?} cut at {cut}");
                    assert_eq!(room.out, runs.0, "{at}");
                    // The pieces longer than the room were gathered too.
                    assert!(room.gathers > 0, "{at}");
                }
            }
        }
    }

    #[test]
    fn sparse_runs() {
        for keep in [
            0u64,
            1,
            u64::MAX,
            (1 << 48) - 1,
            (1 << 49) - 1,
            ((1 << 49) - 1) << 15,
        ] {
            let longest = (0..64)
                .map(|i| (keep >> i).trailing_ones())
                .max()
                .unwrap_or(0);
            assert_eq!(has_sparse_run(keep), longest as usize > SPARSE, "{keep:x}");
        }
        let mut x = 7u64;
        for _ in 0..100_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let keep = x | x >> 1 | x << 3 | x.rotate_left(11);
            let longest = (0..64).map(|i| (keep >> i).trailing_ones()).max().unwrap();
            assert_eq!(has_sparse_run(keep), longest as usize > SPARSE, "{keep:x}");
        }
    }

    #[test]
    fn strip_into_gathers_what_strip_each_hands_on() {
        use crate::strict::prose::{strip_each, strip_into};
        for seed in 0..300u64 {
            let mut text = dense_text(seed.wrapping_add(5000), 1 + (seed as usize % 200));
            if seed.is_multiple_of(3) {
                // Step 1 cuts the text into pieces.
                let mid = (0..=text.len() / 2)
                    .rev()
                    .find(|&i| text.is_char_boundary(i))
                    .unwrap();
                text.insert_str(mid, "\u{1b}[31m");
            }
            let mut want = String::new();
            strip_each(&text, |run| want.push_str(run));
            // Room for the whole text, and exactly what is kept (the dense path
            // cannot gather there and hands on runs).
            for len in [text.len(), want.len()] {
                let mut out = std::vec![0u8; len];
                assert_eq!(strip_into(&text, &mut out).unwrap(), want, "{text:?} {len}");
            }
        }
    }

    #[test]
    fn a_gathering_keeper_keeps_what_a_handing_one_keeps() {
        for seed in 0..200u64 {
            let text = dense_text(seed.wrapping_add(1000), 1 + (seed as usize % 60));
            // One piece, and two pieces at every code-point boundary.
            let mut cuts: Vec<usize> = text.char_indices().map(|(i, _)| i).collect();
            cuts.push(text.len());
            for &cut in &cuts {
                let (a, b) = text.split_at(cut);
                let mut runs = Runs(String::new());
                let mut k = Keeper::new();
                k.push(a, &mut runs);
                k.push(b, &mut runs);
                k.finish(&mut runs);
                let mut room = Room {
                    out: String::new(),
                    buf: Vec::new(),
                    cap: 256,
                    gathers: 0,
                };
                let mut k = Keeper::new();
                k.push(a, &mut room);
                k.push(b, &mut room);
                k.finish(&mut room);
                assert_eq!(room.out, runs.0, "{text:?} cut at {cut}");
            }
        }
    }

    #[test]
    fn decodes_every_code_point() {
        for c in '\u{80}'..=char::MAX {
            let mut buf = [0u8; 8];
            let n = c.encode_utf8(&mut buf).len();
            // At the end of the text and followed by more bytes.
            for tail in [0usize, 1, 3] {
                let d = decode(&buf[..n + tail], 0);
                assert_eq!(
                    d,
                    Decoded {
                        cp: u32::from(c),
                        len: n
                    },
                    "{c:?} {tail}"
                );
            }
        }
    }
}
