//! Physical, traversal-safe resolution of a path that may not exist yet.
//!
//! The part of the path that exists is resolved by the kernel (symlinks followed, `..` taken
//! physically), so the result names the inode a write would reach. The part that does not exist
//! yet cannot be resolved, so it must be plain names: a `..` there could step back out of a
//! directory that a later `mkdir` or symlink decides.

use std::fmt;
use std::fs::{self, Metadata};
use std::io;
use std::path::{Component, Path, PathBuf};

/// Longest path accepted, in bytes: Linux's `PATH_MAX`; the kernel refuses longer ones anyway.
pub(crate) const MAX_PATH_BYTES: usize = 4096;

/// Deepest path accepted. Resolution re-walks each prefix, so cost grows with the square of the
/// depth; an absurd depth is refused before it can stall the hook.
pub(crate) const MAX_COMPONENTS: usize = 256;

/// A path resolved to where a write would physically land.
#[derive(Debug)]
pub(crate) struct Resolved {
    /// Absolute, symlink-free path.
    pub(crate) path: PathBuf,
    /// What is there now, if anything (never a symlink: those are refused).
    pub(crate) existing: Option<Metadata>,
}

/// Why a path cannot be resolved safely.
#[derive(Debug)]
pub(crate) enum Refusal {
    NotAbsolute,
    TooLong,
    TooDeep,
    NoFileName,
    ParentInMissingPart,
    SymlinkLeaf,
    DanglingSymlink(PathBuf),
    Io { path: PathBuf, error: io::Error },
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotAbsolute => f.write_str("the path is not absolute"),
            Self::TooLong => write!(f, "the path is longer than {MAX_PATH_BYTES} bytes"),
            Self::TooDeep => write!(f, "the path has more than {MAX_COMPONENTS} components"),
            Self::NoFileName => f.write_str("the path does not end in a file name"),
            Self::ParentInMissingPart => {
                f.write_str("`..` appears in the part of the path that does not exist yet")
            }
            Self::SymlinkLeaf => f.write_str("the target is a symbolic link"),
            Self::DanglingSymlink(path) => write!(f, "{path:?} is a dangling symbolic link"),
            Self::Io { path, error } => write!(f, "cannot resolve {path:?}: {error}"),
        }
    }
}

/// Resolves `path` (absolute) physically; see the module documentation for the rules.
pub(crate) fn resolve_physical(path: &Path) -> Result<Resolved, Refusal> {
    if !path.is_absolute() {
        return Err(Refusal::NotAbsolute);
    }
    if path.as_os_str().len() > MAX_PATH_BYTES {
        return Err(Refusal::TooLong);
    }
    // `Path::components` already drops `.` segments and doubled or trailing slashes.
    let mut parts: Vec<Component<'_>> = path.components().collect();
    if parts.len() > MAX_COMPONENTS {
        return Err(Refusal::TooDeep);
    }
    let Some(Component::Normal(leaf)) = parts.pop() else {
        return Err(Refusal::NoFileName);
    };
    let (existing_dir, missing) = resolve_existing_prefix(&parts)?;
    let mut resolved = existing_dir;
    resolved.extend(&missing);
    resolved.push(leaf);
    let existing = if missing.is_empty() {
        match fs::symlink_metadata(&resolved) {
            Ok(meta) if meta.file_type().is_symlink() => return Err(Refusal::SymlinkLeaf),
            Ok(meta) => Some(meta),
            Err(error) if error.kind() == io::ErrorKind::NotFound => None,
            Err(error) => {
                return Err(Refusal::Io {
                    path: resolved,
                    error,
                });
            }
        }
    } else {
        None
    };
    Ok(Resolved {
        path: resolved,
        existing,
    })
}

/// Splits the directory part into its longest existing prefix (resolved) and the names of the
/// components below it that do not exist yet.
fn resolve_existing_prefix<'a>(
    parts: &[Component<'a>],
) -> Result<(PathBuf, Vec<&'a std::ffi::OsStr>), Refusal> {
    let whole: PathBuf = parts.iter().collect();
    // The common case is a directory that already exists: one call settles it.
    match fs::canonicalize(&whole) {
        Ok(dir) => return Ok((dir, Vec::new())),
        Err(error) if error.kind() == io::ErrorKind::NotFound => {}
        Err(error) => return Err(Refusal::Io { path: whole, error }),
    }
    let mut prefix = PathBuf::new();
    let mut resolved = PathBuf::new();
    for (index, part) in parts.iter().enumerate() {
        prefix.push(part);
        match fs::canonicalize(&prefix) {
            Ok(dir) => resolved = dir,
            Err(error) if error.kind() == io::ErrorKind::NotFound => {
                return split_at_missing(resolved, parts.get(index..).unwrap_or_default());
            }
            Err(error) => {
                return Err(Refusal::Io {
                    path: prefix,
                    error,
                });
            }
        }
    }
    // The whole prefix resolved on the second try: it was created in between.
    Ok((resolved, Vec::new()))
}

/// `missing` starts at the first component that did not resolve below `resolved`.
fn split_at_missing<'a>(
    resolved: PathBuf,
    missing: &[Component<'a>],
) -> Result<(PathBuf, Vec<&'a std::ffi::OsStr>), Refusal> {
    let mut names = Vec::with_capacity(missing.len());
    for part in missing {
        match part {
            Component::Normal(name) => names.push(*name),
            _ => return Err(Refusal::ParentInMissingPart),
        }
    }
    // The first missing name may be there after all, as a symlink whose target is missing:
    // writing through it would create that target wherever it points.
    if let Some(first) = names.first() {
        let candidate = resolved.join(first);
        if fs::symlink_metadata(&candidate).is_ok() {
            return Err(Refusal::DanglingSymlink(candidate));
        }
    }
    Ok((resolved, names))
}

#[cfg(all(test, unix))]
#[allow(clippy::unwrap_used, clippy::panic, clippy::indexing_slicing)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn tree() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(dir.path()).unwrap();
        fs::create_dir_all(root.join("a/b")).unwrap();
        fs::write(root.join("a/file"), "x").unwrap();
        (dir, root)
    }

    #[test]
    fn existing_file_resolves_to_itself() {
        let (_dir, root) = tree();
        let got = resolve_physical(&root.join("a/file")).unwrap();
        assert_eq!(got.path, root.join("a/file"));
        assert!(got.existing.is_some());
    }

    #[test]
    fn missing_directories_are_kept_as_names() {
        let (_dir, root) = tree();
        let got = resolve_physical(&root.join("a/new/deeper/f")).unwrap();
        assert_eq!(got.path, root.join("a/new/deeper/f"));
        assert!(got.existing.is_none());
    }

    #[test]
    fn parent_in_existing_part_is_physical() {
        let (_dir, root) = tree();
        let got = resolve_physical(&root.join("a/b/../file")).unwrap();
        assert_eq!(got.path, root.join("a/file"));
    }

    #[test]
    fn parent_in_missing_part_is_refused() {
        let (_dir, root) = tree();
        let got = resolve_physical(&root.join("a/new/../file"));
        assert!(matches!(got, Err(Refusal::ParentInMissingPart)), "{got:?}");
    }

    #[test]
    fn parent_through_a_file_is_refused() {
        let (_dir, root) = tree();
        let got = resolve_physical(&root.join("a/file/../b/x"));
        assert!(matches!(got, Err(Refusal::Io { .. })), "{got:?}");
    }

    #[test]
    fn symlinks_are_refused_at_the_leaf_and_followed_above_it() {
        let (_dir, root) = tree();
        symlink(root.join("a/file"), root.join("a/leaf")).unwrap();
        symlink(root.join("nowhere"), root.join("a/dangling")).unwrap();
        symlink(root.join("a/b"), root.join("bee")).unwrap();
        assert!(matches!(
            resolve_physical(&root.join("a/leaf")),
            Err(Refusal::SymlinkLeaf)
        ));
        assert!(matches!(
            resolve_physical(&root.join("a/dangling")),
            Err(Refusal::SymlinkLeaf)
        ));
        assert!(matches!(
            resolve_physical(&root.join("a/dangling/x")),
            Err(Refusal::DanglingSymlink(_))
        ));
        assert_eq!(
            resolve_physical(&root.join("bee/x")).unwrap().path,
            root.join("a/b/x")
        );
    }

    #[test]
    fn degenerate_paths_are_refused() {
        assert!(matches!(
            resolve_physical(Path::new("rel/x")),
            Err(Refusal::NotAbsolute)
        ));
        assert!(matches!(
            resolve_physical(Path::new("/")),
            Err(Refusal::NoFileName)
        ));
        assert!(matches!(
            resolve_physical(Path::new("/tmp/..")),
            Err(Refusal::NoFileName)
        ));
        let long = format!("/{}", "a".repeat(MAX_PATH_BYTES));
        assert!(matches!(
            resolve_physical(Path::new(&long)),
            Err(Refusal::TooLong)
        ));
        let deep = "/a".repeat(MAX_COMPONENTS.saturating_add(1));
        assert!(matches!(
            resolve_physical(Path::new(&deep)),
            Err(Refusal::TooDeep)
        ));
    }
}
