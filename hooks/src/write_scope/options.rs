//! The guard's configuration, checked once so that `decide` never sees a dangerous one.

use std::path::PathBuf;

use super::protected::{self, Protected};

/// Tools that write files: each call is checked against the allowed paths, never let through by
/// name.
pub(crate) const WRITE_TOOLS: [&str; 4] = ["Write", "Edit", "MultiEdit", "NotebookEdit"];

/// Validated configuration of the guard.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// `--root`, as given; relative to the call's `cwd` when not absolute.
    pub(crate) root: Option<PathBuf>,
    /// `--allow`: files relative to the root.
    pub(crate) allow_files: Vec<String>,
    /// `--allow-dir`: directories relative to the root; writes strictly inside them pass.
    pub(crate) allow_dirs: Vec<String>,
    /// `--allow-tool`: tool names let through unchecked.
    pub(crate) allow_tools: Vec<String>,
    /// `--unprotect`: protected entries an `--allow-dir` grant may reach after all.
    pub(crate) unprotected: Vec<&'static Protected>,
    /// `$HOME`, which the root search never climbs to; `None` when unset (the hook's
    /// entry sets it from the environment it is given).
    pub(crate) home: Option<PathBuf>,
    /// Where git's configuration files are moved to, as the hook's entry read them.
    pub(crate) git: protected::GitEnv,
}

impl Options {
    /// Checks the flags; `home` stays `None` (no environment is read here). Anything ambiguous is an error rather than a guess, because a guess in
    /// a guard's configuration widens what it lets through.
    pub(crate) fn new(
        root: Option<String>,
        allow_files: Vec<String>,
        allow_dirs: Vec<String>,
        allow_tools: Vec<String>,
        unprotect: Vec<String>,
    ) -> Result<Self, String> {
        if let Some(root) = &root {
            check_value("--root", root)?;
        }
        for file in &allow_files {
            check_value("--allow", file)?;
            if !names_a_file(file) {
                return Err(format!("--allow {file:?} does not end in a file name"));
            }
        }
        for dir in &allow_dirs {
            // An unset shell variable yields `--allow-dir ""`, which would otherwise mean the root.
            check_value("--allow-dir", dir)?;
        }
        for tool in &allow_tools {
            check_value("--allow-tool", tool)?;
            if WRITE_TOOLS.contains(&tool.as_str()) {
                return Err(format!(
                    "--allow-tool {tool:?}: write tools are always checked against the allowed paths; use --allow or --allow-dir"
                ));
            }
        }
        let mut unprotected = Vec::with_capacity(unprotect.len());
        for name in &unprotect {
            check_value("--unprotect", name)?;
            let entry = protected::entry(name).ok_or_else(|| {
                let names: Vec<&str> = protected::PROTECTED
                    .iter()
                    .filter(|entry| entry.relaxable)
                    .map(|entry| entry.path)
                    .collect();
                format!(
                    "--unprotect {name:?} is not a protected entry (one of: {})",
                    names.join(", ")
                )
            })?;
            if !entry.relaxable {
                return Err(format!(
                    "--unprotect {name:?}: {} stays protected ({}); name a file there with --allow",
                    entry.path, entry.why
                ));
            }
            unprotected.push(entry);
        }
        Ok(Self {
            root: root.map(PathBuf::from),
            allow_files,
            allow_dirs,
            allow_tools,
            unprotected,
            home: None,
            git: protected::GitEnv::default(),
        })
    }

    /// Whether `tool` is let through by `--allow-tool`.
    pub(crate) fn allows_tool(&self, tool: &str) -> bool {
        self.allow_tools.iter().any(|allowed| allowed == tool)
    }
}

fn check_value(flag: &str, value: &str) -> Result<(), String> {
    if value.is_empty() {
        return Err(format!("{flag} has an empty value"));
    }
    if value.chars().any(char::is_control) {
        return Err(format!("{flag} {value:?} contains a control character"));
    }
    Ok(())
}

/// Whether the text of `path` ends in a name, not in `/`, `.` or `..`: `Path::components` would
/// silently drop a trailing `/` or `.`, turning `AUDIT.md/.` into `AUDIT.md`.
pub(crate) fn names_a_file(path: &str) -> bool {
    let last = path.rsplit('/').next().unwrap_or_default();
    !matches!(last, "" | "." | "..")
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic, clippy::indexing_slicing)]
mod tests {
    use super::*;

    fn strings(values: &[&str]) -> Vec<String> {
        values.iter().map(|value| (*value).to_owned()).collect()
    }

    #[test]
    fn accepts_plain_values() {
        let opts = Options::new(
            Some("/r".into()),
            strings(&["AUDIT.md"]),
            strings(&["tmp/audit/", "."]),
            strings(&["Read"]),
            strings(&[".vscode", "CLAUDE.MD"]),
        )
        .unwrap();
        assert_eq!(opts.unprotected.len(), 2);
        assert!(opts.allows_tool("Read"));
        assert!(!opts.allows_tool("read"));
    }

    #[test]
    fn refuses_ambiguous_values() {
        let none = Vec::new;
        assert!(Options::new(Some(String::new()), none(), none(), none(), none()).is_err());
        assert!(Options::new(None, strings(&[""]), none(), none(), none()).is_err());
        assert!(Options::new(None, strings(&["dir/"]), none(), none(), none()).is_err());
        assert!(Options::new(None, strings(&["a/.."]), none(), none(), none()).is_err());
        assert!(Options::new(None, none(), strings(&[""]), none(), none()).is_err());
        assert!(Options::new(None, none(), strings(&["a\u{1b}b"]), none(), none()).is_err());
        assert!(Options::new(None, none(), none(), strings(&["Write"]), none()).is_err());
        assert!(Options::new(None, none(), none(), strings(&["NotebookEdit"]), none()).is_err());
        // Only listed entries, and never `.git` or `.claude`.
        for name in ["nope", ".git", ".Claude", ""] {
            assert!(
                Options::new(None, none(), none(), none(), strings(&[name])).is_err(),
                "{name}"
            );
        }
    }

    #[test]
    fn names_a_file_looks_at_the_last_segment() {
        assert!(names_a_file("AUDIT.md"));
        assert!(names_a_file("/a/b"));
        for path in ["", "/", "a/", "a/.", "a/..", ".", ".."] {
            assert!(!names_a_file(path), "{path:?}");
        }
    }
}
