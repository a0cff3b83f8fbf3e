//! Re-anchoring: known cases, and properties over generated files and edits.

#![allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::arithmetic_side_effects
)]

use super::*;
use proptest::prelude::*;

/// Applies a real edit as the client does: exactly one match required.
fn apply(real: &str, e: &RealEdit) -> String {
    assert_eq!(
        real.matches(&e.old).count(),
        1,
        "old {:?} not unique in {real:?}",
        e.old
    );
    real.replacen(&e.old, &e.new, 1)
}

fn edited(real: &str, old: &str, new: &str) -> Result<String, Deny> {
    Ok(match edit(real, old, new, false)? {
        Some(e) => apply(real, &e),
        None => {
            assert_eq!(
                real.matches(old).count(),
                1,
                "unchanged edit must apply as it is"
            );
            real.replacen(old, new, 1)
        }
    })
}

#[test]
fn the_view_is_what_tool_output_shows() {
    let real = "<p>Hi <!-- note --> there</p>\nEOT = \"<|endoftext|>\"\n";
    let v = View::of(real).unwrap();
    assert_eq!(
        v.text(),
        "<p>Hi [html-comment] note --> there</p>\nEOT = \"[redacted special token]\"\n"
    );
    assert_eq!(
        contain::contain(real, None, usize::MAX).unwrap().as_deref(),
        Some(v.text())
    );
}

#[test]
fn an_edit_through_a_placeholder_keeps_the_real_bytes() {
    let real = "<p>Hi <!-- note --> there</p>\n";
    assert_eq!(
        edited(
            real,
            "[html-comment] note --> there",
            "[html-comment] note --> you"
        )
        .unwrap(),
        "<p>Hi <!-- note --> you</p>\n"
    );
    // The middle replaced, its placeholder restored.
    assert_eq!(
        edited(
            real,
            "Hi [html-comment] note",
            "Hello [html-comment] remark"
        )
        .unwrap(),
        "<p>Hello <!-- remark --> there</p>\n"
    );
    // Deleted with the text around it.
    assert_eq!(
        edited(real, " [html-comment] note -->", "").unwrap(),
        "<p>Hi there</p>\n"
    );
    let src = "EOT = \"<|endoftext|>\"\nBOS = \"<s>\"\n";
    assert_eq!(
        edited(
            src,
            "EOT = \"[redacted special token]\"",
            "END = \"[redacted special token]\""
        )
        .unwrap(),
        "END = \"<|endoftext|>\"\nBOS = \"<s>\"\n"
    );
}

#[test]
fn hidden_bytes_stay_where_they_were() {
    let real = "a\u{200B}b c\n\x1b[31mred\x1b[0m\n";
    assert_eq!(View::of(real).unwrap().text(), "ab c\nred\n");
    assert_eq!(
        edited(real, "c", "d").unwrap(),
        "a\u{200B}b d\n\x1b[31mred\x1b[0m\n"
    );
    assert_eq!(
        edited(real, "red", "blue").unwrap(),
        "a\u{200B}b c\n\x1b[31mblue\x1b[0m\n"
    );
    // Replaced across a hidden byte: it goes with the text the model replaced.
    assert_eq!(
        edited(real, "ab", "xy").unwrap(),
        "xy c\n\x1b[31mred\x1b[0m\n"
    );
}

#[test]
fn ambiguity_is_denied_with_a_reason() {
    // Two placeholders standing for different tokens, retyped in a replaced run.
    let real = "x <|a|> y <|b|> z\n";
    let view = View::of(real).unwrap();
    let why = view
        .restore(&(0..view.text().len()), "[redacted special token]")
        .unwrap_err();
    assert!(why.contains("different hidden texts"), "{why}");
    // Kept in the text around the change, each keeps its own bytes.
    assert_eq!(
        edited(
            real,
            "x [redacted special token] y [redacted special token] z",
            "[redacted special token] [redacted special token]"
        )
        .unwrap(),
        "<|a|> <|b|>\n"
    );
    // Cut through a placeholder.
    let why = edited("q <!-- r\n", "comment] r", "comment] s").unwrap_err();
    assert!(why.contains("inside [html-comment]"), "{why}");
    // A placeholder that stands for nothing at that place.
    let why = edited("q <!-- r\nplain\n", "plain", "[html-comment] plain").unwrap_err();
    assert!(why.contains("stands for no hidden text"), "{why}");
    // More than one match in the view.
    let why = edited("a\u{200B}b ab\n", "ab", "c").unwrap_err();
    assert!(why.contains("2 places"), "{why}");
    // Never written into a new file either.
    assert!(write(None, "[redacted special token]\n").is_err());
    assert_eq!(write(None, "<!-- fine -->\n").unwrap(), None);
}

#[test]
fn an_edit_the_view_does_not_change_passes_as_it_is() {
    assert_eq!(edit("plain text\n", "plain", "clear", false).unwrap(), None);
    // A unique view match that is not unique in the real text grows to be unique.
    let real = "<|ab|> ab\n";
    let e = edit(real, "ab", "cd", false).unwrap().unwrap();
    assert_eq!(apply(real, &e), "<|ab|> cd\n");
}

#[test]
fn replace_all_maps_every_place() {
    let real = "k <!-- a\nk <!-- b\n";
    let e = edit(real, "k [html-comment]", "K [html-comment]", true)
        .unwrap()
        .unwrap();
    assert_eq!(real.replace(&e.old, &e.new), "K <!-- a\nK <!-- b\n");
    let real = "k <!-- a\nk \u{FF1C}!-- b\n";
    assert!(edit(real, "k [html-comment]", "K [html-comment]", true).is_err());
}

#[test]
fn a_write_keeps_real_bytes_where_the_model_changed_nothing() {
    let real = "<h1>T</h1>\n<!-- keep -->\r\nEOT = '<|endoftext|>'\nbody\n";
    let view = View::of(real).unwrap().text().to_owned();
    assert_eq!(
        view,
        "<h1>T</h1>\n[html-comment] keep -->\nEOT = '[redacted special token]'\nbody\n"
    );
    let content = view
        .replace("body", "new body")
        .replace("<h1>T", "<h1>Title");
    assert_eq!(
        write(Some(real), &content).unwrap().unwrap(),
        "<h1>Title</h1>\n<!-- keep -->\r\nEOT = '<|endoftext|>'\nnew body\n"
    );
    // The same view written back is the real file.
    assert_eq!(write(Some(real), &view).unwrap().unwrap(), real);
    // A placeholder moved to a line with none: denied.
    assert!(write(Some(real), &format!("{view}[redacted special token]\n")).is_err());
}

#[test]
fn multi_edit_chains_on_the_real_text() {
    let input: Map<String, Value> = serde_json::from_value(serde_json::json!({
        "file_path": "/x",
        "edits": [
            {"old_string": "a [html-comment] b", "new_string": "A [html-comment] b"},
            {"old_string": "A [html-comment] b", "new_string": "A [html-comment] B"}
        ]
    }))
    .unwrap();
    let real = "a <!-- b\n".to_owned();
    let Answer::Rewrite(v) = decide("MultiEdit", &input, &FileText::Text(real.clone())) else {
        panic!("not rewritten");
    };
    let mut text = real;
    for e in v["edits"].as_array().unwrap() {
        text = text.replacen(
            e["old_string"].as_str().unwrap(),
            e["new_string"].as_str().unwrap(),
            1,
        );
    }
    assert_eq!(text, "A <!-- B\n");
}

#[test]
fn crlf_files_are_edited_as_the_client_reads_them() {
    let input: Map<String, Value> = serde_json::from_value(serde_json::json!({
        "file_path": "/x", "old_string": "[html-comment] x", "new_string": "[html-comment] y"
    }))
    .unwrap();
    let Answer::Rewrite(v) = decide("Edit", &input, &FileText::Text("a\r\n<!-- x\r\n".into()))
    else {
        panic!("not rewritten");
    };
    assert_eq!(v["old_string"], "<!-- x");
    assert_eq!(v["new_string"], "<!-- y");
}

#[test]
fn notebook_cells_are_rewritten_like_files() {
    let nb = serde_json::json!({"cells": [{"id": "c1", "cell_type": "markdown", "source": ["<!-- hidden -->\n", "text"]}]}).to_string();
    let input: Map<String, Value> = serde_json::from_value(serde_json::json!({
        "notebook_path": "/x.ipynb", "cell_id": "c1", "new_source": "[html-comment] hidden -->\nmore text", "edit_mode": "replace"
    }))
    .unwrap();
    let Answer::Rewrite(v) = decide("NotebookEdit", &input, &FileText::Text(nb)) else {
        panic!("not rewritten");
    };
    assert_eq!(v["new_source"], "<!-- hidden -->\nmore text");
}

// ---- properties -----------------------------------------------------------------------

/// Hidden pieces: each is changed by containment, to a placeholder or to nothing.
const HIDDEN: [&str; 11] = [
    "<!--",
    "<|endoftext|>",
    "<|im_start|>",
    "\u{200B}",
    "[INST]",
    "\x1b[31m",
    "</APPLICABLE-RULES>",
    "untrusted-content:end",
    "<think>",
    "\u{202E}",
    "\u{FF1C}!--",
];

#[derive(Clone, Debug)]
enum Piece {
    Word,
    Space,
    Newline,
    Crlf,
    Hidden(usize),
    Punct(&'static str),
}

fn piece() -> impl Strategy<Value = Piece> {
    prop_oneof![
        6 => Just(Piece::Word),
        3 => Just(Piece::Space),
        2 => Just(Piece::Newline),
        1 => Just(Piece::Crlf),
        3 => (0..HIDDEN.len()).prop_map(Piece::Hidden),
        1 => prop_oneof![Just("-->"), Just("\""), Just("<p>"), Just("|>"), Just("=")].prop_map(Piece::Punct),
    ]
}

/// The real text of `pieces`, and the unique words in it.
fn build(pieces: &[Piece]) -> (String, Vec<String>) {
    let mut s = String::new();
    let mut words = Vec::new();
    for p in pieces {
        match p {
            Piece::Word => {
                let w = format!("w{}z", words.len());
                s.push_str(&w);
                words.push(w);
            }
            Piece::Space => s.push(' '),
            Piece::Newline => s.push('\n'),
            Piece::Crlf => s.push_str("\r\n"),
            Piece::Hidden(h) => s.push_str(HIDDEN[*h]),
            Piece::Punct(t) => s.push_str(t),
        }
    }
    (s, words)
}

/// `got` means what `want` means: the same view (what the model meant), and every hidden
/// piece kept — where an insertion sits among hidden bytes that show as nothing, or
/// which of two equal newlines keeps its CR, the view cannot say.
fn same_meaning(got: &str, want: &str) -> bool {
    let view = |t: &str| {
        contain::contain(t, None, usize::MAX)
            .unwrap()
            .unwrap_or_else(|| t.to_owned())
    };
    got == want
        || (view(got) == view(want)
            && HIDDEN
                .iter()
                .chain(&["\r"])
                .all(|h| got.matches(h).count() == want.matches(h).count()))
}

/// Whether a denial is one of the ambiguous cases, which the model can act on.
fn acceptable_denial(why: &str) -> bool {
    why.contains("inside ")
        || why.contains("different hidden texts")
        || why.contains("both hidden text and literal")
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    /// An Edit naming a word with some view context on either side, replacing, deleting
    /// or inserting next to it, lands exactly on that word in the real text.
    #[test]
    fn edits_land_exactly(pieces in proptest::collection::vec(piece(), 1..40),
                          pick in any::<prop::sample::Index>(),
                          left in 0usize..30, right in 0usize..30, kind in 0u8..4) {
        let (real, words) = build(&pieces);
        prop_assume!(!words.is_empty());
        let word = pick.get(&words).clone();
        let view = View::of(&real).unwrap();
        let v = view.text();
        let at = v.find(&word).unwrap();
        // Context on code point boundaries of the view.
        let start = v[..at].char_indices().rev().nth(left).map_or(0, |(i, _)| i).min(at);
        let end_word = at + word.len();
        let end = v[end_word..].char_indices().nth(right).map_or(v.len(), |(i, _)| end_word + i);
        let old = &v[start..end];
        let replacement = match kind { 0 => "NEW".to_owned(), 1 => String::new(), 2 => format!("{word} added"), _ => format!("X{word}X") };
        let new = format!("{}{}{}", &v[start..at], replacement, &v[end_word..end]);
        let expected = real.replacen(&word, &replacement, 1);
        match edit(&real, old, &new, false) {
            Ok(Some(e)) => {
                let got = apply(&real, &e);
                prop_assert!(same_meaning(&got, &expected), "{:?} vs {:?}", got, expected);
            }
            Ok(None) => {
                prop_assert_eq!(real.matches(old).count(), 1);
                prop_assert_eq!(real.replacen(old, &new, 1), expected);
            }
            Err(why) => prop_assert!(acceptable_denial(&why), "{}", why),
        }
    }

    /// An Edit that retypes the placeholders between two words it replaces restores
    /// them: the hidden text survives.
    #[test]
    fn placeholders_in_the_middle_are_restored(mut pieces in proptest::collection::vec(piece(), 1..30)) {
        // Spaces around the run between the two words: without them a hidden byte
        // at its edge could be inside the replaced text or beside it.
        pieces.splice(0..0, [Piece::Word, Piece::Space]);
        pieces.extend([Piece::Space, Piece::Word]);
        let (real, mut words) = build(&pieces);
        let last = words.pop().unwrap();
        words.truncate(1);
        words.push(last);
        let view = View::of(&real).unwrap();
        let v = view.text();
        let (a, b) = (v.find(&words[0]).unwrap(), v.find(&words[1]).unwrap());
        let end = b + words[1].len();
        let old = &v[a..end];
        let new = format!("A{}B", &v[a + words[0].len()..b]);
        let (ra, rb) = (real.find(&words[0]).unwrap(), real.find(&words[1]).unwrap());
        let expected = format!("{}A{}B{}", &real[..ra], &real[ra + words[0].len()..rb], &real[rb + words[1].len()..]);
        match edit(&real, old, &new, false) {
            Ok(Some(e)) => prop_assert_eq!(apply(&real, &e), expected),
            Ok(None) => prop_assert_eq!(real.replacen(old, &new, 1), expected),
            Err(why) => prop_assert!(acceptable_denial(&why), "{}", why),
        }
    }

    /// A Write of the view with some words changed and a line added keeps every hidden
    /// byte and changes exactly those words; written back unchanged it is the file.
    #[test]
    fn writes_keep_the_real_bytes(pieces in proptest::collection::vec(piece(), 1..50),
                                  changed in proptest::collection::vec(any::<bool>(), 0..25),
                                  extra in any::<bool>()) {
        let (real, words) = build(&pieces);
        let view = View::of(&real).unwrap();
        let mut content = view.text().to_owned();
        let mut expected = real.clone();
        for (w, c) in words.iter().zip(&changed) {
            if *c {
                content = content.replacen(w.as_str(), &format!("N{w}"), 1);
                expected = expected.replacen(w.as_str(), &format!("N{w}"), 1);
            }
        }
        if extra {
            content.insert_str(0, "inserted line\n");
            expected.insert_str(0, "inserted line\n");
        }
        match write(Some(&real), &content) {
            Ok(Some(w)) => prop_assert!(same_meaning(&w, &expected), "{:?} vs {:?}", w, expected),
            Ok(None) => prop_assert_eq!(content, expected),
            Err(why) => prop_assert!(acceptable_denial(&why), "{}", why),
        }
        if let Ok(back) = write(Some(&real), view.text()) {
            prop_assert_eq!(back.unwrap_or_else(|| view.text().to_owned()), real.clone());
        }
    }

    /// Whatever is written holds no placeholder the file did not hold at that place.
    #[test]
    fn no_placeholder_is_ever_written(pieces in proptest::collection::vec(piece(), 1..30),
                                      noise in "[a-z \\[\\]\\n]{0,20}", ph in 0usize..4) {
        let (real, _) = build(&pieces);
        let view = View::of(&real).unwrap();
        let content = format!("{}{}{noise}", view.text(), PLACEHOLDERS[ph]);
        if let Ok(w) = write(Some(&real), &content) {
            let w = w.unwrap_or(content);
            prop_assert!(w.matches(PLACEHOLDERS[ph]).count() <= real.matches(PLACEHOLDERS[ph]).count());
        }
    }
}
