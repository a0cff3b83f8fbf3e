//! Names an `--allow-dir` grant never reaches into: places where a written file makes an agent,
//! an editor, git or CI run code, or rewrites the agent's own instructions and hooks.
//!
//! Names are compared the way the most permissive file system would: case-insensitively,
//! ignoring trailing dots and spaces (Windows drops them), ignoring an NTFS stream suffix
//! (`.git::$INDEX_ALLOCATION` is `.git`), and treating a DOS short name (`GIT~1`) as every name
//! it could abbreviate. The same rule holds on every platform, because a case-insensitive
//! volume can be mounted anywhere.

use std::ffi::OsStr;

/// One protected entry: a name, or a short sequence of names (`.github/workflows`).
#[derive(Debug)]
pub(crate) struct Protected {
    /// As documented and as `--unprotect` takes it.
    pub(crate) path: &'static str,
    /// Why a write there is dangerous, for the deny reason and the docs.
    pub(crate) why: &'static str,
    /// Whether `--unprotect` may lift it.
    pub(crate) relaxable: bool,
}

/// The default list; `cli/WRITE_SCOPE.md` documents it.
pub(crate) const PROTECTED: &[Protected] = &[
    Protected {
        path: ".git",
        why: "git hooks and config run code",
        relaxable: false,
    },
    Protected {
        path: ".claude",
        why: "Claude Code settings and hooks, this guard's own included",
        relaxable: false,
    },
    Protected {
        path: ".mcp.json",
        why: "MCP servers Claude Code starts",
        relaxable: true,
    },
    Protected {
        path: "CLAUDE.md",
        why: "instructions Claude Code loads",
        relaxable: true,
    },
    Protected {
        path: "CLAUDE.local.md",
        why: "instructions Claude Code loads",
        relaxable: true,
    },
    Protected {
        path: "AGENTS.md",
        why: "instructions coding agents load",
        relaxable: true,
    },
    Protected {
        path: ".codex",
        why: "Codex configuration and hooks",
        relaxable: true,
    },
    Protected {
        path: ".envrc",
        why: "direnv runs it on entering the directory",
        relaxable: true,
    },
    Protected {
        path: ".vscode",
        why: "editor tasks and settings that run code",
        relaxable: true,
    },
    Protected {
        path: ".idea",
        why: "IDE run configurations and startup tasks",
        relaxable: true,
    },
    Protected {
        path: ".devcontainer",
        why: "container lifecycle commands",
        relaxable: true,
    },
    Protected {
        path: ".husky",
        why: "git hooks",
        relaxable: true,
    },
    Protected {
        path: ".githooks",
        why: "git hooks",
        relaxable: true,
    },
    Protected {
        path: ".pre-commit-config.yaml",
        why: "pre-commit hooks",
        relaxable: true,
    },
    Protected {
        path: ".github/workflows",
        why: "CI workflows",
        relaxable: true,
    },
    Protected {
        path: ".gitlab-ci.yml",
        why: "CI pipelines",
        relaxable: true,
    },
];

/// The entry `name` names (exactly as listed, compared case-insensitively), if any.
pub(crate) fn entry(name: &str) -> Option<&'static Protected> {
    PROTECTED
        .iter()
        .find(|entry| entry.path.eq_ignore_ascii_case(name))
}

/// A name as the comparison sees it.
fn fold(name: &OsStr) -> String {
    let text = name.to_string_lossy();
    let text = text.split(':').next().unwrap_or_default();
    let text = text.trim_end_matches(['.', ' ']);
    text.chars()
        // HFS+ ignores these in names: `.g\u{200C}it` opens `.git` on macOS (git's own
        // `is_hfs_dotgit` skips the same list, CVE-2014-9390).
        .filter(|c| !is_hfs_ignorable(*c))
        .flat_map(char::to_lowercase)
        // Case folding maps the long s to `s`; `to_lowercase` leaves it.
        .map(|c| if c == '\u{17f}' { 's' } else { c })
        .collect()
}

/// The code points HFS+ leaves out of a name when it compares names.
fn is_hfs_ignorable(c: char) -> bool {
    matches!(
        c,
        '\u{200C}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{206A}'..='\u{206F}' | '\u{FEFF}'
    )
}

/// Whether the folded `name` may stand for the folded protected `wanted`.
fn same_name(name: &str, wanted: &str) -> bool {
    name == wanted || short_name_of(name, wanted)
}

/// `BASE~N` or `BASE~N.EXT`, the DOS short form: it can abbreviate any name whose letters,
/// dots removed, start with `BASE`.
fn short_name_of(name: &str, wanted: &str) -> bool {
    let Some((base, rest)) = name.split_once('~') else {
        return false;
    };
    let digits = rest.split('.').next().unwrap_or_default();
    if base.is_empty()
        || base.chars().count() > 6
        || digits.is_empty()
        || !digits.bytes().all(|b| b.is_ascii_digit())
    {
        return false;
    }
    let letters: String = wanted.chars().filter(|c| *c != '.').collect();
    letters.starts_with(base)
}

/// The first protected entry some run of `names` (from `first_checked` on) matches: a match
/// must end at or after `first_checked`, so that an entry is found when its last name lies
/// below the grant even if the grant itself sits inside it.
pub(crate) fn find(
    names: &[&OsStr],
    first_checked: usize,
    unprotected: &[&Protected],
) -> Option<&'static Protected> {
    let folded: Vec<String> = names.iter().map(|name| fold(name)).collect();
    PROTECTED
        .iter()
        .filter(|entry| !unprotected.iter().any(|u| std::ptr::eq(*u, *entry)))
        .find(|entry| {
            let parts: Vec<String> = entry
                .path
                .split('/')
                .map(|part| fold(OsStr::new(part)))
                .collect();
            let width = parts.len();
            if width == 0 || folded.len() < width {
                return false;
            }
            (0..=folded.len().saturating_sub(width)).any(|start| {
                start.saturating_add(width) > first_checked
                    && folded
                        .get(start..start.saturating_add(width))
                        .is_some_and(|run| run.iter().zip(&parts).all(|(n, p)| same_name(n, p)))
            })
        })
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic, clippy::indexing_slicing)]
mod tests {
    use super::*;

    fn hit(path: &str, first_checked: usize) -> Option<&'static str> {
        let names: Vec<&OsStr> = path.split('/').map(OsStr::new).collect();
        find(&names, first_checked, &[]).map(|entry| entry.path)
    }

    #[test]
    fn every_spelling_of_a_protected_name_is_found() {
        for path in [
            ".git/hooks/pre-commit",
            ".Git/hooks/pre-commit",
            ".GIT./config",
            ".git ./config",
            ".git. . ./config",
            ".git::$INDEX_ALLOCATION/hooks/x",
            "GIT~1/hooks/x",
            "git~12/config",
            ".CLAUDE/settings.json",
            "sub/.ClAuDe/settings.json",
            "claude~1/settings.json",
            ".huſky/pre-commit",
            ".g\u{200C}it/hooks/pre-commit",
            "\u{FEFF}.git/config",
            ".cl\u{200D}aude\u{202E}/settings.json",
            ".git\u{206F}/config",
        ] {
            assert!(hit(path, 0).is_some(), "{path}");
        }
        assert_eq!(hit("docs/CLAUDE.md", 0), Some("CLAUDE.md"));
        assert_eq!(hit("claude.MD.", 0), Some("CLAUDE.md"));
        assert_eq!(
            hit(".GitHub/Workflows/ci.yml", 0),
            Some(".github/workflows")
        );
        assert_eq!(hit(".vscode/tasks.json", 0), Some(".vscode"));
        assert_eq!(hit(".mcp.json", 0), Some(".mcp.json"));
    }

    #[test]
    fn ordinary_names_pass() {
        for path in [
            "src/git/x.rs",
            ".gitignore",
            ".github/dependabot.yml",
            "workflows/ci.yml",
            "docs/claude.txt",
            "a~b/x",
            "notes~/x",
            "x~1/y",
        ] {
            assert_eq!(hit(path, 0), None, "{path}");
        }
    }

    #[test]
    fn only_matches_ending_below_the_grant_count() {
        // Grant `.github`: `workflows/ci.yml` below it still completes `.github/workflows`.
        assert_eq!(
            hit(".github/workflows/ci.yml", 1),
            Some(".github/workflows")
        );
        // Grant `.claude/agents`, named on purpose: what is below it is not protected.
        assert_eq!(hit(".claude/agents/x.md", 2), None);
    }

    #[test]
    fn unprotected_entries_are_skipped() {
        let names: Vec<&OsStr> = ".vscode/tasks.json".split('/').map(OsStr::new).collect();
        let vscode = entry(".VSCode").unwrap();
        assert!(find(&names, 0, &[vscode]).is_none());
        assert!(!entry(".git").unwrap().relaxable);
        assert!(entry("nope").is_none());
    }
}
