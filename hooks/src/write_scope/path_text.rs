//! The path text as Claude Code will read it. Up to 2.1.87 (NotebookEdit up to 2.1.90) the hook
//! gets the raw `file_path`, and the client then trims it (`String.prototype.trim`), expands a
//! leading `~`, resolves `..` lexically (`path.resolve`) and NFC-normalises it before it opens
//! the file. A path those steps would change names another file than the one the guard
//! resolves, so such text is refused rather than re-implemented.

use std::path::{Component, Path, PathBuf};

use unicode_normalization::is_nfc;

/// What `String.prototype.trim` removes: ECMAScript WhiteSpace (TAB, VT, FF, SP, NBSP, ZWNBSP
/// and every `Zs` code point) and LineTerminator (LF, CR, LS, PS). `Zs` is fixed since Unicode
/// 6.3: U+0020, U+00A0, U+1680, U+2000..=U+200A, U+202F, U+205F, U+3000.
pub(crate) fn is_js_trimmed(c: char) -> bool {
    matches!(
        c,
        '\u{9}' | '\u{a}' | '\u{b}' | '\u{c}' | '\u{d}' | ' ' | '\u{a0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200a}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202f}'
                | '\u{205f}'
                | '\u{3000}'
                | '\u{feff}'
    )
}

/// Why the client would open another file than the text names, if it would.
pub(crate) fn client_rewrite(text: &str) -> Option<String> {
    let first = text.chars().next();
    let last = text.chars().next_back();
    if let Some(c) = first.filter(|c| is_js_trimmed(*c)) {
        return Some(format!(
            "the path starts with white space (U+{:04X}) that Claude Code trims",
            u32::from(c)
        ));
    }
    if let Some(c) = last.filter(|c| is_js_trimmed(*c)) {
        return Some(format!(
            "the path ends with white space (U+{:04X}) that Claude Code trims",
            u32::from(c)
        ));
    }
    if first == Some('~') {
        return Some(
            "the path starts with `~`, which Claude Code expands to a home directory".into(),
        );
    }
    if !is_nfc(text) {
        return Some(
            "the path is not in Unicode NFC form, and Claude Code normalises it before writing"
                .into(),
        );
    }
    None
}

/// `path` (absolute) with `.` dropped and each `..` taking off the name before it, without
/// looking at the file system: what Node's `path.resolve` does.
pub(crate) fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                // At the root, `..` stays at the root, as in `path.resolve('/..')`.
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic, clippy::indexing_slicing)]
mod tests {
    use super::*;

    #[test]
    fn the_trim_set_is_the_ecmascript_one() {
        // Every code point JavaScript's trim removes, from the spec's tables.
        let spec: Vec<u32> = [0x9, 0xa, 0xb, 0xc, 0xd, 0x20, 0xa0, 0x1680]
            .into_iter()
            .chain(0x2000..=0x200a)
            .chain([0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff])
            .collect();
        for cp in 0..=0x10_ffff_u32 {
            if let Some(c) = char::from_u32(cp) {
                assert_eq!(is_js_trimmed(c), spec.contains(&cp), "U+{cp:04X}");
            }
        }
        // Not white space for JavaScript, though invisible.
        for c in ['\u{200b}', '\u{180e}', '\u{85}'] {
            assert!(!is_js_trimmed(c), "{c:?}");
        }
    }

    #[test]
    fn rewritten_paths_are_named() {
        for text in [
            " AUDIT.md",
            "\u{a0}/r/AUDIT.md",
            "/r/AUDIT.md\u{3000}",
            "\u{feff}AUDIT.md",
            "AUDIT.md\u{2028}",
            "~/.config/autostart/x.desktop",
            "~",
            "~root/x",
            "cafe\u{301}.md",
        ] {
            assert!(client_rewrite(text).is_some(), "{text:?}");
        }
        for text in [
            "AUDIT.md",
            "/r/a b/c.md",
            "caf\u{e9}.md",
            "a~/b",
            "/r/~x",
            "x\u{200b}",
        ] {
            assert_eq!(client_rewrite(text), None, "{text:?}");
        }
    }

    #[test]
    fn lexical_is_path_resolve() {
        let cases = [
            ("/r/docs/../../outside/x", "/outside/x"),
            ("/r/./a//b/", "/r/a/b"),
            ("/..", "/"),
            ("/../../a", "/a"),
            ("/r/a/b/../c", "/r/a/c"),
        ];
        for (given, want) in cases {
            assert_eq!(lexical(Path::new(given)), Path::new(want), "{given}");
        }
    }
}
