//! Names an `--allow-dir` grant never reaches into: places where a written file makes an agent,
//! an editor, git or CI run code, or rewrites the agent's own instructions and hooks.
//!
//! Names are compared the way the most permissive file system would: case-insensitively,
//! ignoring trailing dots and spaces (Windows drops them), ignoring an NTFS stream suffix
//! (`.git::$INDEX_ALLOCATION` is `.git`), and treating a DOS short name (`GIT~1`) as every name
//! it could abbreviate. The same rule holds on every platform, because a case-insensitive
//! volume can be mounted anywhere.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

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
    Protected {
        path: "AGENTS.override.md",
        why: "instructions Codex loads ahead of AGENTS.md",
        relaxable: true,
    },
    Protected {
        path: "GEMINI.md",
        why: "instructions Gemini CLI loads",
        relaxable: true,
    },
    Protected {
        path: ".gemini",
        why: "Gemini CLI settings, hooks and MCP servers",
        relaxable: true,
    },
    Protected {
        path: ".agents",
        why: "skills Codex loads",
        relaxable: true,
    },
    Protected {
        path: ".cursor",
        why: "Cursor rules, hooks and MCP servers",
        relaxable: true,
    },
    Protected {
        path: ".cursorrules",
        why: "instructions Cursor loads",
        relaxable: true,
    },
    Protected {
        path: ".windsurf",
        why: "Windsurf rules and workflows",
        relaxable: true,
    },
    Protected {
        path: ".windsurfrules",
        why: "instructions Windsurf loads",
        relaxable: true,
    },
    Protected {
        path: ".clinerules",
        why: "instructions Cline loads",
        relaxable: true,
    },
    Protected {
        path: ".github/copilot-instructions.md",
        why: "instructions GitHub Copilot loads",
        relaxable: true,
    },
    Protected {
        path: ".github/instructions",
        why: "instructions GitHub Copilot loads",
        relaxable: true,
    },
    Protected {
        path: ".aider.conf.yml",
        why: "aider settings, its lint and test commands included",
        relaxable: true,
    },
    Protected {
        path: ".gitattributes",
        why: "selects the filter, diff and merge drivers git runs",
        relaxable: true,
    },
    Protected {
        path: ".gitmodules",
        why: "submodule URLs git fetches",
        relaxable: true,
    },
    Protected {
        path: ".hg",
        why: "Mercurial hooks and config run code",
        relaxable: true,
    },
    Protected {
        path: ".jj",
        why: "Jujutsu config (aliases, fix tools) runs code",
        relaxable: true,
    },
    Protected {
        path: "lefthook.yml",
        why: "git hooks",
        relaxable: true,
    },
    Protected {
        path: ".lefthook.yml",
        why: "git hooks",
        relaxable: true,
    },
    Protected {
        path: "lefthook.yaml",
        why: "git hooks",
        relaxable: true,
    },
    Protected {
        path: ".lefthook.yaml",
        why: "git hooks",
        relaxable: true,
    },
    Protected {
        path: "lefthook.toml",
        why: "git hooks",
        relaxable: true,
    },
    Protected {
        path: ".lefthook.toml",
        why: "git hooks",
        relaxable: true,
    },
    Protected {
        path: "lefthook.json",
        why: "git hooks",
        relaxable: true,
    },
    Protected {
        path: ".lefthook.json",
        why: "git hooks",
        relaxable: true,
    },
    Protected {
        path: "lefthook-local.yml",
        why: "git hooks",
        relaxable: true,
    },
    Protected {
        path: ".lefthook-local.yml",
        why: "git hooks",
        relaxable: true,
    },
    Protected {
        path: ".lefthook",
        why: "git hooks",
        relaxable: true,
    },
    Protected {
        path: ".overcommit.yml",
        why: "git hooks",
        relaxable: true,
    },
    Protected {
        path: ".cargo",
        why: "Cargo config (`build.rustc-wrapper`, `target.*.runner`, aliases) runs code on every build",
        relaxable: true,
    },
    Protected {
        path: "rust-toolchain.toml",
        why: "the toolchain rustup runs; its `path` names any local rustc",
        relaxable: true,
    },
    Protected {
        path: "rust-toolchain",
        why: "the toolchain rustup runs; its `path` names any local rustc",
        relaxable: true,
    },
    Protected {
        path: "mise.toml",
        why: "mise tasks, hooks and env scripts",
        relaxable: true,
    },
    Protected {
        path: ".mise.toml",
        why: "mise tasks, hooks and env scripts",
        relaxable: true,
    },
    Protected {
        path: "mise.local.toml",
        why: "mise tasks, hooks and env scripts",
        relaxable: true,
    },
    Protected {
        path: ".mise.local.toml",
        why: "mise tasks, hooks and env scripts",
        relaxable: true,
    },
    Protected {
        path: ".mise",
        why: "mise tasks and config",
        relaxable: true,
    },
    Protected {
        path: ".config/mise",
        why: "mise tasks and config",
        relaxable: true,
    },
    Protected {
        path: ".config/mise.toml",
        why: "mise tasks, hooks and env scripts",
        relaxable: true,
    },
    Protected {
        path: ".tool-versions",
        why: "the tools asdf and mise install and run (mise backends fetch any binary)",
        relaxable: true,
    },
    Protected {
        path: ".npmrc",
        why: "npm settings (`script-shell`, `node-options`) run code on every script",
        relaxable: true,
    },
    Protected {
        path: ".yarnrc",
        why: "`yarn-path`: the JavaScript yarn runs for every command",
        relaxable: true,
    },
    Protected {
        path: ".yarnrc.yml",
        why: "`yarnPath` and plugins: the JavaScript yarn runs for every command",
        relaxable: true,
    },
    Protected {
        path: ".yarn",
        why: "the yarn release and plugins yarn runs",
        relaxable: true,
    },
    Protected {
        path: ".pnpmfile.cjs",
        why: "hooks pnpm runs on install",
        relaxable: true,
    },
    Protected {
        path: ".pnp.cjs",
        why: "loaded into every Node process yarn starts",
        relaxable: true,
    },
    Protected {
        path: ".pnp.loader.mjs",
        why: "loaded into every Node process yarn starts",
        relaxable: true,
    },
    Protected {
        path: "bunfig.toml",
        why: "Bun preload scripts",
        relaxable: true,
    },
    Protected {
        path: ".bunfig.toml",
        why: "Bun preload scripts",
        relaxable: true,
    },
    Protected {
        path: ".bazelrc",
        why: "Bazel flags (`--run_under`, workspace status commands)",
        relaxable: true,
    },
    Protected {
        path: ".bazeliskrc",
        why: "the Bazel binary bazelisk downloads and runs",
        relaxable: true,
    },
    Protected {
        path: ".bazelversion",
        why: "the Bazel binary bazelisk downloads and runs",
        relaxable: true,
    },
    Protected {
        path: ".mvn",
        why: "Maven wrapper, JVM options and build extensions",
        relaxable: true,
    },
    Protected {
        path: "gradle-wrapper.properties",
        why: "the Gradle distribution the wrapper downloads and runs",
        relaxable: true,
    },
    Protected {
        path: "maven-wrapper.properties",
        why: "the Maven distribution the wrapper downloads and runs",
        relaxable: true,
    },
    Protected {
        path: ".devcontainer.json",
        why: "container lifecycle commands",
        relaxable: true,
    },
    Protected {
        path: ".zed",
        why: "editor tasks and language-server commands",
        relaxable: true,
    },
    Protected {
        path: ".github/actions",
        why: "actions CI workflows run",
        relaxable: true,
    },
    Protected {
        path: ".forgejo/workflows",
        why: "CI workflows",
        relaxable: true,
    },
    Protected {
        path: ".gitea/workflows",
        why: "CI workflows",
        relaxable: true,
    },
    Protected {
        path: ".circleci",
        why: "CI pipelines",
        relaxable: true,
    },
    Protected {
        path: ".buildkite",
        why: "CI pipelines",
        relaxable: true,
    },
    Protected {
        path: ".travis.yml",
        why: "CI pipelines",
        relaxable: true,
    },
    Protected {
        path: "azure-pipelines.yml",
        why: "CI pipelines",
        relaxable: true,
    },
    Protected {
        path: "bitbucket-pipelines.yml",
        why: "CI pipelines",
        relaxable: true,
    },
    Protected {
        path: ".drone.yml",
        why: "CI pipelines",
        relaxable: true,
    },
    Protected {
        path: ".woodpecker",
        why: "CI pipelines",
        relaxable: true,
    },
    Protected {
        path: ".woodpecker.yml",
        why: "CI pipelines",
        relaxable: true,
    },
    Protected {
        path: "Jenkinsfile",
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

/// A place git's own configuration makes run code, resolved under the repository's top level.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct GitPlace {
    /// Absolute (physically resolved where it exists).
    pub(crate) path: PathBuf,
    /// The configuration key and the file that set it, for the deny reason.
    pub(crate) origin: String,
}

/// Most nested `include.path` / `includeIf.*.path` followed (git's own limit is 10).
const MAX_INCLUDE_DEPTH: usize = 10;
/// A git configuration file larger than this is not a configuration a person wrote.
const MAX_GIT_CONFIG_BYTES: u64 = 1024 * 1024;

/// The variables that move git's configuration files, each when set and not empty.
#[derive(Debug, Clone, Default)]
pub(crate) struct GitEnv {
    /// `$GIT_CONFIG_SYSTEM` (else `/etc/gitconfig`).
    pub(crate) system: Option<PathBuf>,
    /// `$GIT_CONFIG_GLOBAL` (else the XDG file and `~/.gitconfig`).
    pub(crate) global: Option<PathBuf>,
    /// `$XDG_CONFIG_HOME` (else `~/.config`).
    pub(crate) xdg_config_home: Option<PathBuf>,
}

impl GitEnv {
    /// The three variables from `env`.
    pub(crate) fn from(env: &dyn crate::Env) -> GitEnv {
        GitEnv {
            system: crate::env::path(env, "GIT_CONFIG_SYSTEM"),
            global: crate::env::path(env, "GIT_CONFIG_GLOBAL"),
            xdg_config_home: crate::env::path(env, "XDG_CONFIG_HOME"),
        }
    }
}

/// The places every git configuration that applies to the repository holding `root` names:
/// each `core.hooksPath` directory (git runs every hook from it), each `core.fsmonitor` that
/// is a path (git runs it on `git status`), and each included configuration file inside the
/// repository (it is `.git/config` by another name). Conditional includes are followed as if
/// their condition held: protecting more is the safe side. A configuration file that exists
/// but cannot be read or parsed is an error: the guard cannot tell what it protects.
pub(crate) fn git_places(
    root: &Path,
    home: Option<&Path>,
    env: &GitEnv,
) -> Result<Vec<GitPlace>, String> {
    let Some(top) = root
        .ancestors()
        .find(|dir| std::fs::symlink_metadata(dir.join(".git")).is_ok())
    else {
        return Ok(Vec::new());
    };
    let mut files: Vec<PathBuf> = Vec::new();
    files.push(
        env.system
            .clone()
            .unwrap_or_else(|| PathBuf::from("/etc/gitconfig")),
    );
    match &env.global {
        Some(global) => files.push(global.clone()),
        None => {
            let xdg = env
                .xdg_config_home
                .clone()
                .or_else(|| home.map(|h| h.join(".config")));
            files.extend(xdg.map(|x| x.join("git/config")));
            files.extend(home.map(|h| h.join(".gitconfig")));
        }
    }
    let git_dir = git_dir_of(top)?;
    let common = match read_small(&git_dir.join("commondir"))? {
        Some(text) => {
            let named = PathBuf::from(text.trim());
            if named.is_absolute() {
                named
            } else {
                git_dir.join(named)
            }
        }
        None => git_dir.clone(),
    };
    files.push(common.join("config"));
    files.push(git_dir.join("config.worktree"));
    let mut places = Vec::new();
    for file in files {
        read_git_config(&file, top, home, 0, &mut places)?;
    }
    Ok(places)
}

/// The git directory of the worktree `top`: `.git` itself, or where a `.git` file's
/// `gitdir:` line points (linked worktrees, submodules).
fn git_dir_of(top: &Path) -> Result<PathBuf, String> {
    let dot_git = top.join(".git");
    if dot_git.is_dir() {
        return Ok(dot_git);
    }
    let text = read_small(&dot_git)?.unwrap_or_default();
    let named = text
        .lines()
        .find_map(|line| line.strip_prefix("gitdir:"))
        .map(str::trim)
        .filter(|dir| !dir.is_empty())
        .ok_or_else(|| format!("{} names no gitdir", dot_git.display()))?;
    let named = PathBuf::from(named);
    Ok(if named.is_absolute() {
        named
    } else {
        top.join(named)
    })
}

/// A small file's text; `None` when it does not exist.
fn read_small(path: &Path) -> Result<Option<String>, String> {
    use std::io::Read as _;
    let file = match std::fs::File::open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
    };
    let mut bytes = Vec::new();
    file.take(MAX_GIT_CONFIG_BYTES.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    if u64::try_from(bytes.len()).unwrap_or(u64::MAX) > MAX_GIT_CONFIG_BYTES {
        return Err(format!(
            "{} is larger than {MAX_GIT_CONFIG_BYTES} bytes",
            path.display()
        ));
    }
    String::from_utf8(bytes)
        .map(Some)
        .map_err(|_| format!("{} is not UTF-8", path.display()))
}

fn read_git_config(
    file: &Path,
    top: &Path,
    home: Option<&Path>,
    depth: usize,
    places: &mut Vec<GitPlace>,
) -> Result<(), String> {
    if depth > MAX_INCLUDE_DEPTH {
        return Err(format!(
            "{}: includes nest deeper than {MAX_INCLUDE_DEPTH}",
            file.display()
        ));
    }
    let Some(text) = read_small(file)? else {
        return Ok(());
    };
    let base = file.parent().unwrap_or(top);
    for entry in parse_git_config(&text).map_err(|e| format!("{}: {e}", file.display()))? {
        let origin = format!("{} in {}", entry.key, file.display());
        let expand = |value: &str, from: &Path| -> PathBuf {
            match (value.strip_prefix("~/"), home) {
                (Some(rest), Some(home)) => home.join(rest),
                _ => from.join(value),
            }
        };
        match entry.key.as_str() {
            "core.hookspath" if !entry.value.is_empty() => places.push(GitPlace {
                path: settle(&expand(&entry.value, top)),
                origin,
            }),
            // A boolean or a hook version is no path; a path names a program git runs.
            "core.fsmonitor" if entry.value.contains('/') => places.push(GitPlace {
                path: settle(&expand(&entry.value, top)),
                origin,
            }),
            key if key == "include.path"
                || (key.starts_with("includeif.") && key.ends_with(".path")) =>
            {
                let included = expand(&entry.value, base);
                let path = settle(&included);
                if path.starts_with(top) {
                    places.push(GitPlace {
                        path,
                        origin: origin.clone(),
                    });
                }
                read_git_config(&included, top, home, depth.saturating_add(1), places)?;
            }
            _ => {}
        }
    }
    Ok(())
}

/// `path` with `.` and `..` taken lexically, then resolved physically as far as it exists.
fn settle(path: &Path) -> PathBuf {
    let mut lexical = PathBuf::new();
    for part in path.components() {
        match part {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                lexical.pop();
            }
            other => lexical.push(other),
        }
    }
    let mut existing = lexical.as_path();
    let mut missing = Vec::new();
    loop {
        if let Ok(resolved) = std::fs::canonicalize(existing) {
            let mut out = resolved;
            out.extend(missing.iter().rev());
            return out;
        }
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                missing.push(name.to_owned());
                existing = parent;
            }
            _ => return lexical,
        }
    }
}

/// One `section.subsection.key = value` of a git configuration file; section and key
/// lower-cased (git compares them so), the subsection kept as written.
#[derive(Debug, PartialEq, Eq)]
struct GitEntry {
    key: String,
    value: String,
}

/// Parses git's configuration syntax far enough to find keys and their values: sections with
/// optional quoted subsections, `key = value` and bare `key` (true), quoted values with
/// `\"`, `\\`, `\n`, `\t`, `\b` escapes, `#` and `;` comments, and a `\` continuing a
/// line. Anything else is an error, so a file the guard misreads fails closed.
fn parse_git_config(text: &str) -> Result<Vec<GitEntry>, String> {
    let mut entries = Vec::new();
    let mut section = String::new();
    let mut lines = text.lines().enumerate();
    while let Some((index, raw)) = lines.next() {
        let number = index.saturating_add(1);
        let line = raw.trim_start();
        if line.is_empty() || line.starts_with('#') || line.starts_with(';') {
            continue;
        }
        let rest = if let Some(header) = line.strip_prefix('[') {
            let (name, after) = header
                .split_once(']')
                .ok_or_else(|| format!("line {number}: a section header without `]`"))?;
            section = match name.split_once(char::is_whitespace) {
                None => name.to_ascii_lowercase(),
                Some((base, sub)) => {
                    let sub = sub.trim();
                    let sub = sub
                        .strip_prefix('"')
                        .and_then(|s| s.strip_suffix('"'))
                        .ok_or_else(|| format!("line {number}: an unquoted subsection"))?;
                    format!(
                        "{}.{}",
                        base.to_ascii_lowercase(),
                        sub.replace("\\\"", "\"").replace("\\\\", "\\")
                    )
                }
            };
            let after = after.trim_start();
            if after.is_empty() || after.starts_with('#') || after.starts_with(';') {
                continue;
            }
            after
        } else {
            line
        };
        if section.is_empty() {
            return Err(format!("line {number}: a key outside any section"));
        }
        let name_end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
            .unwrap_or(rest.len());
        let (name, after) = rest.split_at(name_end);
        if name.is_empty() {
            return Err(format!("line {number}: no key name"));
        }
        let after = after.trim_start();
        let key = format!("{section}.{}", name.to_ascii_lowercase());
        let Some(value_text) = after.strip_prefix('=') else {
            if after.is_empty() || after.starts_with('#') || after.starts_with(';') {
                entries.push(GitEntry {
                    key,
                    value: "true".into(),
                });
                continue;
            }
            return Err(format!("line {number}: expected `=` after {name:?}"));
        };
        let mut value = String::new();
        let mut pending = String::new();
        let mut quoted = false;
        let mut chars: Vec<char> = value_text.chars().collect();
        let mut i = 0usize;
        loop {
            let Some(&c) = chars.get(i) else {
                if quoted {
                    return Err(format!("line {number}: an unclosed quote"));
                }
                break;
            };
            i = i.saturating_add(1);
            match c {
                '"' => quoted = !quoted,
                '\\' => match chars.get(i).copied() {
                    None => {
                        // A continued line: the value goes on with the next one.
                        let (_, next) = lines
                            .next()
                            .ok_or_else(|| format!("line {number}: a continuation at the end"))?;
                        chars = next.chars().collect();
                        i = 0;
                    }
                    Some(e) => {
                        i = i.saturating_add(1);
                        value.push_str(&pending);
                        pending.clear();
                        value.push(match e {
                            'n' => '\n',
                            't' => '\t',
                            'b' => '\u{8}',
                            '"' | '\\' => e,
                            _ => return Err(format!("line {number}: unknown escape `\\{e}`")),
                        });
                    }
                },
                '#' | ';' if !quoted => break,
                c if c.is_whitespace() && !quoted => {
                    if !value.is_empty() {
                        pending.push(c);
                    }
                }
                c => {
                    value.push_str(&pending);
                    pending.clear();
                    value.push(c);
                }
            }
        }
        entries.push(GitEntry { key, value });
    }
    Ok(entries)
}

/// Whether `target` lies in `place` (or is it), names compared as protected names are.
pub(crate) fn within(target: &Path, place: &Path) -> bool {
    let names = |p: &Path| -> Vec<String> { p.components().map(|c| fold(c.as_os_str())).collect() };
    let (target, place) = (names(target), names(place));
    target.len() >= place.len() && target.iter().zip(&place).all(|(t, p)| same_name(t, p))
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
    fn every_family_member_is_found_in_any_case() {
        for (path, entry) in [
            (".cargo/config.toml", ".cargo"),
            (".CARGO/config", ".cargo"),
            ("Mise.toml", "mise.toml"),
            (".mise.toml", ".mise.toml"),
            (".mise/tasks/build", ".mise"),
            (".config/mise/config.toml", ".config/mise"),
            (".yarnrc.YML", ".yarnrc.yml"),
            (".yarn/releases/yarn.cjs", ".yarn"),
            ("docs/GEMINI.md", "GEMINI.md"),
            (".Cursor/rules/x.mdc", ".cursor"),
            (".cursorrules", ".cursorrules"),
            (".windsurfrules", ".windsurfrules"),
            (".clinerules/a.md", ".clinerules"),
            (
                ".github/copilot-instructions.md",
                ".github/copilot-instructions.md",
            ),
            (".github/actions/x/action.yml", ".github/actions"),
            ("AGENTS.override.md", "AGENTS.override.md"),
            (".gemini/settings.json", ".gemini"),
            (".npmrc", ".npmrc"),
            (".pnpmfile.cjs", ".pnpmfile.cjs"),
            (".tool-versions", ".tool-versions"),
            (".gitattributes", ".gitattributes"),
            ("lefthook.yml", "lefthook.yml"),
            (".hg/hgrc", ".hg"),
            (
                "gradle/wrapper/gradle-wrapper.properties",
                "gradle-wrapper.properties",
            ),
            ("jenkinsfile", "Jenkinsfile"),
            (".circleci/config.yml", ".circleci"),
        ] {
            assert_eq!(hit(path, 0), Some(entry), "{path}");
        }
        for path in [
            "src/cargo/x.rs",
            "mise.md",
            "docs/gemini.txt",
            "yarn.lock",
            ".github/README.md",
        ] {
            assert_eq!(hit(path, 0), None, "{path}");
        }
    }

    #[test]
    fn git_config_syntax_is_read_as_git_reads_it() {
        let text = "# c\n[core]\n\thooksPath = \"my hooks\" ; why\n  bare\n[Core]\nHOOKSPATH=a\\\\b\\\n/c\n[includeIf \"gitdir:~/w/\"]\n  path = ../x.inc\n";
        let got = parse_git_config(text).unwrap();
        assert_eq!(
            got,
            vec![
                GitEntry {
                    key: "core.hookspath".into(),
                    value: "my hooks".into()
                },
                GitEntry {
                    key: "core.bare".into(),
                    value: "true".into()
                },
                GitEntry {
                    key: "core.hookspath".into(),
                    value: "a\\b/c".into()
                },
                GitEntry {
                    key: "includeif.gitdir:~/w/.path".into(),
                    value: "../x.inc".into()
                },
            ]
        );
        for bad in [
            "key = 1\n",
            "[core\n",
            "[core]\nx = \"open\n",
            "[core]\nx = \\q\n",
            "[a b]\n",
        ] {
            assert!(parse_git_config(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn git_places_follow_hooks_path_fsmonitor_and_includes() {
        let dir = tempfile::tempdir().unwrap();
        let top = std::fs::canonicalize(dir.path()).unwrap();
        let home = top.join("home");
        std::fs::create_dir_all(top.join(".git")).unwrap();
        std::fs::create_dir_all(&home).unwrap();
        std::fs::write(
            top.join(".git/config"),
            "[core]\n\thooksPath = tools/hooks\n\tfsmonitor = ./scripts/fsmon.sh\n[include]\n\tpath = ../shared.gitconfig\n",
        )
        .unwrap();
        std::fs::write(
            top.join("shared.gitconfig"),
            "[core]\n\thookspath = ci/hooks\n",
        )
        .unwrap();
        let places: Vec<PathBuf> = git_places(&top, Some(&home), &GitEnv::default())
            .unwrap()
            .into_iter()
            .map(|p| p.path)
            .collect();
        for want in [
            "tools/hooks",
            "scripts/fsmon.sh",
            "shared.gitconfig",
            "ci/hooks",
        ] {
            assert!(places.contains(&top.join(want)), "{want}: {places:?}");
        }
        assert!(within(
            &top.join("Tools/HOOKS/pre-commit"),
            &top.join("tools/hooks")
        ));
        assert!(!within(&top.join("tools/hooksx"), &top.join("tools/hooks")));
        // A linked worktree: `.git` is a file naming the git dir; config lives in commondir.
        let linked = top.join("linked");
        let wt_git = top.join(".git/worktrees/linked");
        std::fs::create_dir_all(&wt_git).unwrap();
        std::fs::create_dir_all(&linked).unwrap();
        std::fs::write(
            linked.join(".git"),
            format!("gitdir: {}\n", wt_git.display()),
        )
        .unwrap();
        std::fs::write(wt_git.join("commondir"), "../..\n").unwrap();
        let places: Vec<PathBuf> = git_places(&linked, Some(&home), &GitEnv::default())
            .unwrap()
            .into_iter()
            .map(|p| p.path)
            .collect();
        assert!(places.contains(&linked.join("tools/hooks")), "{places:?}");
        // Unreadable or unparsable configuration fails closed.
        std::fs::write(top.join(".git/config"), "[core\n").unwrap();
        assert!(git_places(&top, Some(&home), &GitEnv::default()).is_err());
        std::fs::write(top.join(".git/config"), "[include]\npath = loop.inc\n").unwrap();
        std::fs::write(top.join(".git/loop.inc"), "[include]\npath = loop.inc\n").unwrap();
        assert!(
            git_places(&top, Some(&home), &GitEnv::default())
                .unwrap_err()
                .contains("deeper")
        );
        // No repository, nothing to read.
        let bare = tempfile::tempdir().unwrap();
        assert!(
            git_places(bare.path(), None, &GitEnv::default())
                .unwrap()
                .is_empty()
        );
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
