//! The paths a Codex `apply_patch` call writes.
//!
//! Codex writes files with one tool, `apply_patch`, whose input is a patch in its own format:
//!
//! ```text
//! *** Begin Patch
//! *** Add File: path        then lines starting with "+"
//! *** Delete File: path
//! *** Update File: path     then optionally "*** Move to: path", then "@@", " ", "+", "-"
//!                           lines and an optional "*** End of File"
//! *** End Patch
//! ```
//!
//! The guard needs every path, not the edits. Codex's own parser trims each header line before
//! matching it, so a line that reads as a header once trimmed is taken as one here, wherever it
//! stands; one that would not be a header to Codex (an update's context line) is refused rather
//! than guessed at. Text that does not have this shape is refused: the guard cannot know what
//! Codex would make of it.

use super::call::{Call, TargetKeys, Text, ToolInput};

/// Codex's file-writing tool, as its PreToolUse hooks name it.
pub(crate) const TOOL: &str = "apply_patch";

/// Checks an `apply_patch` call: the patch text (`tool_input.command`) is parsed, and every path
/// it names goes through `check_one` as a single-file write in the call's cwd. One path out of
/// scope denies the whole patch; so does text that does not parse.
pub(crate) fn check(
    call: &Call,
    check_one: impl Fn(&Call) -> Result<(), String>,
) -> Result<(), String> {
    let patch = match &call.tool_input {
        Some(ToolInput::Object(keys)) => match &keys.command {
            Some(Text::Str(patch)) => patch,
            Some(Text::Other) => return Err(format!("{TOOL}: tool_input.command is not a string")),
            None => {
                return Err(format!(
                    "{TOOL}: tool_input has no command (the patch text)"
                ));
            }
        },
        Some(ToolInput::Other) => return Err(format!("{TOOL}: tool_input is not an object")),
        None => return Err(format!("{TOOL}: tool_input is missing")),
    };
    let found = paths(patch)
        .map_err(|why| format!("{TOOL}: the patch does not parse, so it is denied: {why}"))?;
    for one in found {
        let single = Call {
            tool_name: None,
            tool_input: Some(ToolInput::Object(TargetKeys {
                file_path: Some(Text::Str(one.path.to_owned())),
                ..TargetKeys::default()
            })),
            cwd: call.cwd.clone(),
        };
        check_one(&single).map_err(|why| {
            format!(
                "the patch {} {:?}, so the whole patch is denied: {why}",
                one.op.verb(),
                one.path
            )
        })?;
    }
    Ok(())
}

/// What a patch does to one path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Op {
    Add,
    Delete,
    Update,
    /// The new name of an updated file (`*** Move to:`).
    MoveTo,
}

impl Op {
    pub(crate) fn verb(self) -> &'static str {
        match self {
            Self::Add => "adds",
            Self::Delete => "deletes",
            Self::Update => "updates",
            Self::MoveTo => "moves a file to",
        }
    }
}

/// One path a patch names, as written in the patch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PatchPath<'a> {
    pub(crate) op: Op,
    pub(crate) path: &'a str,
}

const BEGIN: &str = "*** Begin Patch";
const END: &str = "*** End Patch";
const ADD: &str = "*** Add File: ";
const DELETE: &str = "*** Delete File: ";
const UPDATE: &str = "*** Update File: ";
const MOVE_TO: &str = "*** Move to: ";
const END_OF_FILE: &str = "*** End of File";

/// The file header a trimmed line is, if any.
fn header(trimmed: &str) -> Option<PatchPath<'_>> {
    [(ADD, Op::Add), (DELETE, Op::Delete), (UPDATE, Op::Update)]
        .into_iter()
        .find_map(|(marker, op)| {
            trimmed
                .strip_prefix(marker)
                .map(|path| PatchPath { op, path })
        })
}

/// Every path `patch` adds, deletes, updates or moves to, in order. An error says what does not
/// parse and on which line (1-based).
pub(crate) fn paths(patch: &str) -> Result<Vec<PatchPath<'_>>, String> {
    let lines: Vec<&str> = patch.trim().lines().collect();
    let (first, rest) = lines.split_first().ok_or("the patch is empty")?;
    if first.trim() != BEGIN {
        return Err(format!("the first line is not {BEGIN:?}"));
    }
    let (last, body) = rest
        .split_last()
        .ok_or_else(|| format!("the patch has no {END:?} line"))?;
    if last.trim() != END {
        return Err(format!("the last line is not {END:?}"));
    }
    let mut found = Vec::new();
    // Line numbers count from the Begin line, which is line 1.
    let mut at = body
        .iter()
        .enumerate()
        .map(|(i, line)| (i.saturating_add(2), *line));
    let mut pending = at.next();
    if pending.is_none() {
        return Err("the patch changes no file".into());
    }
    while let Some((number, line)) = pending {
        let trimmed = line.trim();
        let Some(hunk) = header(trimmed) else {
            return Err(format!(
                "line {number} {trimmed:?} is not an Add File, Delete File or Update File header"
            ));
        };
        found.push(hunk.clone());
        pending = at.next();
        match hunk.op {
            Op::Delete | Op::MoveTo => {}
            Op::Add => {
                while pending.is_some_and(|(_, line)| line.starts_with('+')) {
                    pending = at.next();
                }
            }
            Op::Update => {
                if let Some((_, line)) = pending
                    && let Some(path) = line.trim().strip_prefix(MOVE_TO)
                {
                    found.push(PatchPath {
                        op: Op::MoveTo,
                        path,
                    });
                    pending = at.next();
                }
                while let Some((number, line)) = pending {
                    let trimmed = line.trim();
                    if header(trimmed).is_some() {
                        break;
                    }
                    if trimmed.starts_with("***") && trimmed != END_OF_FILE {
                        return Err(format!(
                            "line {number} {trimmed:?} reads as a patch marker inside an update"
                        ));
                    }
                    let is_change = line.is_empty()
                        || line.starts_with("@@")
                        || line.starts_with([' ', '+', '-'])
                        || trimmed == END_OF_FILE;
                    if !is_change {
                        return Err(format!(
                            "line {number} {line:?} of an update starts with none of \"@@\", \" \", \"+\", \"-\""
                        ));
                    }
                    pending = at.next();
                }
            }
        }
    }
    Ok(found)
}

#[cfg(test)]
#[allow(
    clippy::unwrap_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects
)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn ops(patch: &str) -> Vec<(Op, String)> {
        paths(patch)
            .unwrap()
            .into_iter()
            .map(|p| (p.op, p.path.to_owned()))
            .collect()
    }

    #[test]
    fn reads_every_kind_of_hunk() {
        let patch = "*** Begin Patch\n*** Add File: new.txt\n+a\n+b\n*** Delete File: old.txt\n*** Update File: src/x.rs\n*** Move to: src/y.rs\n@@ fn main\n-a\n+b\n c\n*** End of File\n*** Update File: z.md\n@@\n-x\n+y\n*** End Patch\n";
        assert_eq!(
            ops(patch),
            vec![
                (Op::Add, "new.txt".into()),
                (Op::Delete, "old.txt".into()),
                (Op::Update, "src/x.rs".into()),
                (Op::MoveTo, "src/y.rs".into()),
                (Op::Update, "z.md".into()),
            ]
        );
    }

    #[test]
    fn headers_are_trimmed_as_codex_trims_them() {
        let patch = "  *** Begin Patch\r\n  *** Add File: a.txt  \r\n+x\r\n *** Add File: b.txt\n*** End Patch  ";
        assert_eq!(
            ops(patch),
            vec![(Op::Add, "a.txt".into()), (Op::Add, "b.txt".into())]
        );
    }

    #[test]
    fn a_header_hidden_in_content_is_still_a_path() {
        // An add's body ends at its first line without "+": what follows is a header to Codex.
        let patch =
            "*** Begin Patch\n*** Add File: ok.txt\n+x\n   *** Delete File: ../etc\n*** End Patch";
        assert_eq!(
            ops(patch),
            vec![(Op::Add, "ok.txt".into()), (Op::Delete, "../etc".into())]
        );
        // Inside an update a context line reading as a marker is refused, not guessed at.
        // (Right after the header it is the move, trimmed as Codex trims it.)
        let patch = "*** Begin Patch\n*** Update File: a\n@@\n *** Move to: b\n*** End Patch";
        assert!(paths(patch).unwrap_err().contains("line 4"));
        let patch = "*** Begin Patch\n*** Update File: a\n *** Move to: b\n*** End Patch";
        assert_eq!(
            ops(patch),
            vec![(Op::Update, "a".into()), (Op::MoveTo, "b".into())]
        );
    }

    #[test]
    fn text_that_does_not_parse_is_refused() {
        let cases = [
            ("", "empty"),
            ("*** Begin Patch", "End Patch"),
            ("*** Begin Patch\n*** End Patch", "no file"),
            ("*** Begin Patch\n*** Add File: a\n+x\n", "last line"),
            ("hello\n*** Add File: a\n*** End Patch", "first line"),
            ("*** Begin Patch\n+x\n*** End Patch", "line 2"),
            (
                "*** Begin Patch\n*** Add File: a\nx\n*** End Patch",
                "line 3",
            ),
            (
                "*** Begin Patch\n*** Update File: a\nzz\n*** End Patch",
                "line 3",
            ),
            (
                "*** Begin Patch\n*** Rename File: a\n*** End Patch",
                "line 2",
            ),
            (
                "<<'EOF'\n*** Begin Patch\n*** Add File: a\n*** End Patch\nEOF",
                "first line",
            ),
        ];
        for (patch, needle) in cases {
            let error = paths(patch).unwrap_err();
            assert!(error.contains(needle), "{patch:?}: {error}");
        }
    }

    #[test]
    fn a_header_without_a_path_is_refused() {
        // Trimmed as Codex trims it, "*** Add File: " is "*** Add File:", which no hunk starts with.
        let error = paths("*** Begin Patch\n*** Add File: \n*** End Patch").unwrap_err();
        assert!(error.contains("line 2"), "{error}");
    }

    /// A path without newlines and with no surrounding whitespace, as the generator writes it.
    fn path_strategy() -> impl Strategy<Value = String> {
        "[a-zA-Z0-9_./-]{1,20}"
    }

    fn hunk_strategy() -> impl Strategy<Value = (Op, String, Option<String>, Vec<String>)> {
        (
            prop_oneof![Just(Op::Add), Just(Op::Delete), Just(Op::Update)],
            path_strategy(),
            proptest::option::of(path_strategy()),
            proptest::collection::vec("[ -~]{0,12}", 0..4),
        )
    }

    proptest! {
        /// Every path a generated patch names comes back, in order, whatever the content lines
        /// hold (they are prefixed as the format requires, so none is a header).
        #[test]
        fn generated_patches_give_back_their_paths(hunks in proptest::collection::vec(hunk_strategy(), 1..6)) {
            let mut text = String::from("*** Begin Patch\n");
            let mut want = Vec::new();
            for (op, path, move_to, lines) in &hunks {
                match op {
                    Op::Add => {
                        text.push_str(&format!("*** Add File: {path}\n"));
                        for line in lines { text.push_str(&format!("+{line}\n")); }
                        want.push((Op::Add, path.clone()));
                    }
                    Op::Delete => {
                        text.push_str(&format!("*** Delete File: {path}\n"));
                        want.push((Op::Delete, path.clone()));
                    }
                    _ => {
                        text.push_str(&format!("*** Update File: {path}\n"));
                        want.push((Op::Update, path.clone()));
                        if let Some(to) = move_to {
                            text.push_str(&format!("*** Move to: {to}\n"));
                            want.push((Op::MoveTo, to.clone()));
                        }
                        text.push_str("@@\n");
                        for (i, line) in lines.iter().enumerate() {
                            let sign = [' ', '+', '-'][i % 3];
                            text.push_str(&format!("{sign}{line}\n"));
                        }
                    }
                }
            }
            text.push_str("*** End Patch\n");
            prop_assert_eq!(ops(&text), want);
        }

        /// Any text either parses or is refused, never panics; and whatever parses names only
        /// paths that stand on a line of their own after a header marker.
        #[test]
        fn arbitrary_text_never_panics(body in "(\\*\\*\\* (Add|Delete|Update) File: [a-z]{0,3}\n|[ +@-]?[a-z*]{0,6}\n){0,8}") {
            let text = format!("*** Begin Patch\n{body}*** End Patch");
            if let Ok(found) = paths(&text) {
                for p in found {
                    let after_marker = |line: &str| {
                        line.trim().ends_with(&format!("File: {}", p.path))
                            || line.trim().ends_with(&format!("to: {}", p.path))
                    };
                    let stands_alone = text.lines().any(after_marker);
                    prop_assert!(stands_alone, "{:?} in {:?}", p.path, text);
                }
            }
        }
    }
}
