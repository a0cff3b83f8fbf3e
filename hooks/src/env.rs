//! The environment variables the hooks read, behind a trait: the library reads none
//! itself. The `airlock` binary passes its process's; tests and fuzz targets pass a map
//! or nothing.

use std::ffi::OsString;
use std::path::PathBuf;

/// Where a hook looks up an environment variable.
pub trait Env {
    /// The value of `name`, as `std::env::var_os` gives it.
    fn var_os(&self, name: &str) -> Option<OsString>;
}

impl<F: Fn(&str) -> Option<OsString>> Env for F {
    fn var_os(&self, name: &str) -> Option<OsString> {
        self(name)
    }
}

/// No variable is set.
pub struct Empty;

impl Env for Empty {
    fn var_os(&self, _: &str) -> Option<OsString> {
        None
    }
}

/// `name` as a path, when it is set and not empty.
pub(crate) fn path(env: &dyn Env, name: &str) -> Option<PathBuf> {
    env.var_os(name)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}
