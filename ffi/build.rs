//! Restricts the shared library's exports to `airlock_*` with a linker version script.

fn main() {
    let dir = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| ".".to_owned());
    let script = format!("{dir}/airlock.map");
    println!("cargo:rerun-if-changed=airlock.map");
    println!("cargo:rerun-if-changed=build.rs");
    // Cargo hands a dependency's cdylib link args to its dependents' cdylibs too: a
    // crate that links this one into a cdylib of its own (the Python extension)
    // turns the feature off and exports its own symbols.
    if std::env::var_os("CARGO_FEATURE_VERSION_SCRIPT").is_none() {
        return;
    }
    // GNU ld, gold and lld take `--version-script` on ELF targets; macOS and Windows
    // linkers do not (and rustc already exports only the `#[no_mangle]` items there).
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    if matches!(
        os.as_str(),
        "linux" | "android" | "freebsd" | "netbsd" | "openbsd" | "dragonfly" | "illumos"
    ) {
        println!("cargo:rustc-cdylib-link-arg=-Wl,--version-script={script}");
    }
}
