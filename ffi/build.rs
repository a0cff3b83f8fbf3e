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
    // rustc hands the linker a version script of its own for every cdylib (its
    // `#[no_mangle]` items global, the rest local). lld merges a second one; GNU ld
    // refuses ("anonymous version tag cannot be combined with other version tags"),
    // so the script is passed only where rustc links with lld by default:
    // x86_64-unknown-linux-gnu (rust-lld, Rust 1.90 and later). Elsewhere rustc's own
    // script keeps the exports to the `#[no_mangle]` items — all `airlock_*` —
    // which `scripts/test-aarch64.sh` checks on the cross-built library. macOS and
    // Windows linkers take no version script at all.
    let target = std::env::var("TARGET").unwrap_or_default();
    println!("cargo:rerun-if-env-changed=TARGET");
    if target == "x86_64-unknown-linux-gnu" {
        println!("cargo:rustc-cdylib-link-arg=-Wl,--version-script={script}");
    }
}
