//! `--print-config`: the `settings.json` snippet that registers exactly this guard.

use serde::Serialize;

use super::options::Options;

/// The command Claude Code runs; the flags are the validated ones, in a fixed order.
pub(crate) fn command_line(opts: &Options) -> String {
    let mut words = vec!["airlock".to_owned(), "hook".into(), "write-scope".into()];
    let mut flag = |name: &str, value: &str| {
        words.push(name.to_owned());
        words.push(shell_quote(value));
    };
    if let Some(root) = &opts.root {
        flag("--root", &root.to_string_lossy());
    }
    for file in &opts.allow_files {
        flag("--allow", file);
    }
    for dir in &opts.allow_dirs {
        flag("--allow-dir", dir);
    }
    for tool in &opts.allow_tools {
        flag("--allow-tool", tool);
    }
    words.join(" ")
}

/// The snippet, pretty-printed. The matcher is `*` because the guard also denies every tool not
/// named with `--allow-tool`; a narrower matcher would let those through unseen.
pub(crate) fn settings_snippet(opts: &Options) -> String {
    let snippet = Settings {
        hooks: Hooks {
            pre_tool_use: vec![MatcherGroup {
                matcher: "*",
                hooks: vec![CommandHook {
                    kind: "command",
                    command: command_line(opts),
                }],
            }],
        },
    };
    serde_json::to_string_pretty(&snippet).unwrap_or_default()
}

// Structs rather than `json!` so that the keys keep the order people write them in.
#[derive(Serialize)]
struct Settings {
    hooks: Hooks,
}

#[derive(Serialize)]
struct Hooks {
    #[serde(rename = "PreToolUse")]
    pre_tool_use: Vec<MatcherGroup>,
}

#[derive(Serialize)]
struct MatcherGroup {
    matcher: &'static str,
    hooks: Vec<CommandHook>,
}

#[derive(Serialize)]
struct CommandHook {
    #[serde(rename = "type")]
    kind: &'static str,
    command: String,
}

/// POSIX shell quoting: bare when only safe characters appear, else single quotes with each `'`
/// written as `'\''`. Single quotes stop every expansion, globbing included.
pub(crate) fn shell_quote(value: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "_-./=:@%+,".contains(c);
    if !value.is_empty() && value.chars().all(safe) {
        return value.to_owned();
    }
    format!("'{}'", value.replace('\'', r"'\''"))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic, clippy::indexing_slicing)]
mod tests {
    use super::*;

    #[test]
    fn quotes_only_when_needed() {
        assert_eq!(shell_quote("tmp/audit"), "tmp/audit");
        assert_eq!(shell_quote(""), "''");
        assert_eq!(shell_quote("a b"), "'a b'");
        assert_eq!(shell_quote("*.md"), "'*.md'");
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
        assert_eq!(shell_quote("$HOME"), "'$HOME'");
        assert_eq!(shell_quote("~/x"), "'~/x'");
    }

    #[test]
    fn command_line_reproduces_the_flags() {
        let opts = Options::new(
            Some("/my repo".into()),
            vec!["AUDIT.md".into()],
            vec!["tmp/audit".into(), "out dir".into()],
            vec!["Read".into()],
        )
        .unwrap();
        assert_eq!(
            command_line(&opts),
            "airlock hook write-scope --root '/my repo' --allow AUDIT.md --allow-dir tmp/audit --allow-dir 'out dir' --allow-tool Read"
        );
    }
}
