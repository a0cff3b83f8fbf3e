//! ECMA-48 escape sequences removed whole (PROFILE-STRICT §3), so that a tool's coloured
//! output or a terminal-control payload leaves no `[2J` or OSC-8 URL residue behind.
//!
//! Linear: each byte is read at most twice (a string sequence with no terminator in its
//! 4,096-byte window is read once for the search, then again as text).

/// How far a string sequence (OSC, DCS, SOS, PM, APC) may run before its terminator;
/// past it only the introducer goes, so a stray introducer never swallows a document.
const STRING_WINDOW: usize = 4096;

const ESC: u8 = 0x1B;
const BEL: u8 = 0x07;

/// What starts at one position of the input.
enum Start {
    /// Not an escape: copy one byte.
    Text,
    /// CSI (`ESC [` or U+009B); the introducer's length in bytes.
    Csi(usize),
    /// OSC (`ESC ]` or U+009D): ends at BEL or ST.
    Osc(usize),
    /// DCS, SOS, PM, APC (`ESC P/X/^/_`, U+0090/98/9E/9F): ends at ST.
    Str(usize),
    /// `ESC` followed by anything else.
    OtherEsc,
    /// U+009C (ST) on its own: removed.
    LoneC1,
}

fn start_at(bytes: &[u8], i: usize) -> Start {
    let b0 = bytes.get(i).copied();
    let b1 = bytes.get(i.saturating_add(1)).copied();
    match (b0, b1) {
        (Some(ESC), Some(b'[')) => Start::Csi(2),
        (Some(ESC), Some(b']')) => Start::Osc(2),
        (Some(ESC), Some(b'P' | b'X' | b'^' | b'_')) => Start::Str(2),
        (Some(ESC), _) => Start::OtherEsc,
        // C1 controls are two bytes in UTF-8: C2 80..C2 9F.
        (Some(0xC2), Some(0x9B)) => Start::Csi(2),
        (Some(0xC2), Some(0x9D)) => Start::Osc(2),
        (Some(0xC2), Some(0x90 | 0x98 | 0x9E | 0x9F)) => Start::Str(2),
        (Some(0xC2), Some(0x9C)) => Start::LoneC1,
        _ => Start::Text,
    }
}

/// How far the input is known to hold no terminator, per kind of string sequence, so
/// that a run of unterminated introducers is searched once, not once per introducer.
#[derive(Default)]
struct Searched {
    /// No ST before this offset.
    st: usize,
    /// No ST and no BEL before this offset.
    st_or_bel: usize,
}

/// Where a string sequence starting with its body at `from` ends (just past its
/// terminator), if it ends within the window; `bel` says whether BEL terminates it.
fn string_end(bytes: &[u8], from: usize, bel: bool, searched: &mut Searched) -> Option<usize> {
    let limit = from.saturating_add(STRING_WINDOW).min(bytes.len());
    let known = if bel {
        &mut searched.st_or_bel
    } else {
        &mut searched.st
    };
    // Resume where the last search stopped (one byte back: an ST may straddle it).
    let mut k = from.max(known.saturating_sub(1));
    while k < limit {
        let b = bytes.get(k).copied();
        let next = bytes.get(k.saturating_add(1)).copied();
        let found = match (b, next) {
            (Some(BEL), _) if bel => Some(1),
            (Some(ESC), Some(b'\\')) | (Some(0xC2), Some(0x9C)) => Some(2),
            _ => None,
        };
        if let Some(len) = found {
            return Some(k.saturating_add(len));
        }
        k = k.saturating_add(1);
    }
    *known = (*known).max(limit);
    None
}

/// Where a CSI whose parameters start at `from` ends: `Ok(end)` just past its final byte,
/// or `Err(at)` where a byte outside its grammar (or the end of input) broke it.
fn csi_end(bytes: &[u8], from: usize) -> Result<usize, usize> {
    let mut i = from;
    while let Some(0x30..=0x3F) = bytes.get(i) {
        i = i.saturating_add(1);
    }
    while let Some(0x20..=0x2F) = bytes.get(i) {
        i = i.saturating_add(1);
    }
    match bytes.get(i) {
        Some(0x40..=0x7E) => Ok(i.saturating_add(1)),
        _ => Err(i),
    }
}

/// `text` with every escape sequence removed; `None` when there is none (the common case
/// costs one scan and no copy). `Err` only when the output could not be allocated.
pub(crate) fn remove_escapes(
    text: &str,
) -> Result<Option<String>, std::collections::TryReserveError> {
    let bytes = text.as_bytes();
    let Some(first) = bytes.iter().position(|&b| b == ESC || b == 0xC2) else {
        return Ok(None);
    };
    let mut out: Vec<u8> = Vec::new();
    out.try_reserve_exact(bytes.len())?;
    out.extend_from_slice(bytes.get(..first).unwrap_or_default());
    let mut changed = false;
    let mut searched = Searched::default();
    let mut i = first;
    while i < bytes.len() {
        let next = match start_at(bytes, i) {
            Start::Text => {
                if let Some(&b) = bytes.get(i) {
                    out.push(b);
                }
                i.saturating_add(1)
            }
            Start::Csi(intro) => {
                changed = true;
                match csi_end(bytes, i.saturating_add(intro)) {
                    Ok(end) => end,
                    // The bytes read so far go; the breaking byte is read as text.
                    Err(at) => at,
                }
            }
            Start::Osc(intro) | Start::Str(intro) => {
                changed = true;
                let bel = matches!(start_at(bytes, i), Start::Osc(_));
                let body = i.saturating_add(intro);
                string_end(bytes, body, bel, &mut searched).unwrap_or(body)
            }
            Start::OtherEsc => {
                changed = true;
                let mut j = i.saturating_add(1);
                while let Some(0x20..=0x2F) = bytes.get(j) {
                    j = j.saturating_add(1);
                }
                match bytes.get(j) {
                    Some(0x30..=0x7E) => j.saturating_add(1),
                    // A lone ESC goes by itself.
                    _ => i.saturating_add(1),
                }
            }
            Start::LoneC1 => {
                changed = true;
                i.saturating_add(2)
            }
        };
        i = next;
    }
    if !changed {
        return Ok(None);
    }
    // Only ASCII bytes and whole two-byte C1 code points were removed, and string
    // sequences end on an ASCII byte or a whole ST, so the rest is still UTF-8; should
    // that ever fail, the whole text is dropped rather than guessed at.
    Ok(Some(String::from_utf8(out).unwrap_or_default()))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;

    fn rm(s: &str) -> String {
        remove_escapes(s).unwrap().unwrap_or_else(|| s.to_owned())
    }

    #[test]
    fn sequences_go_whole() {
        assert_eq!(rm("a\x1b[31mred\x1b[0m b"), "ared b");
        assert_eq!(rm("x\x1b[2Jy"), "xy");
        assert_eq!(
            rm("\x1b]8;;https://evil.example\x07link\x1b]8;;\x1b\\"),
            "link"
        );
        assert_eq!(rm("a\x1bPq#0;2;0;0;0\x1b\\b"), "ab");
        assert_eq!(rm("a\u{9b}1;2Hb"), "ab");
        assert_eq!(rm("a\x1b(Bb"), "ab");
        assert_eq!(rm("a\x1b7b"), "ab");
    }

    #[test]
    fn lone_and_broken_introducers() {
        assert_eq!(rm("a\x1b"), "a");
        assert_eq!(rm("a\u{9c}b"), "ab");
        // A CSI broken by a byte outside its grammar: that byte is text.
        assert_eq!(rm("a\x1b[12\nb"), "a\nb");
        // An OSC with no terminator loses only its introducer.
        assert_eq!(rm("a\x1b]never ends"), "anever ends");
        let long = format!("\x1b]{}\x07tail", "x".repeat(STRING_WINDOW + 1));
        assert_eq!(
            rm(&long),
            format!("{}\x07tail", "x".repeat(STRING_WINDOW + 1))
        );
    }

    #[test]
    fn unterminated_introducers_are_searched_once() {
        // Quadratic if each introducer searched its whole window: this would take
        // about 10^10 steps.
        let many = "\x1b]".repeat(2_000_000);
        assert_eq!(rm(&many), "");
        let mixed = format!("{}\x1b\\", "\x1bPab".repeat(100_000));
        let out = rm(&mixed);
        assert!(!out.contains('\x1b'));
        // A terminator right at the edge of an earlier search is still found.
        let edge = format!("\x1b]{}\x1b]x\x1b\\tail", "y".repeat(STRING_WINDOW - 2));
        assert_eq!(rm(&edge), format!("{}tail", "y".repeat(STRING_WINDOW - 2)));
    }

    #[test]
    fn clean_text_is_not_copied() {
        assert!(
            remove_escapes("plain \u{e9}t\u{e9} \u{c2}")
                .unwrap()
                .is_none()
        );
        assert!(remove_escapes("caf\u{e9}").unwrap().is_none());
    }

    #[test]
    fn no_esc_or_c1_introducer_is_left() {
        let nasty = "\x1b\x1b[\x1b]\u{9b}\u{9d}\u{90}\u{9c}\x1b[1;\x1b\\\x1bP\x1b";
        let out = rm(nasty);
        assert!(!out.contains('\x1b'), "{out:?}");
        for c in ['\u{90}', '\u{9b}', '\u{9c}', '\u{9d}', '\u{9e}', '\u{9f}'] {
            assert!(!out.contains(c), "{out:?}");
        }
    }
}
