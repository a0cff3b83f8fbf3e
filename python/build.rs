//! Exports only the module's init function from the extension (a linker version
//! script), not the `airlock_*` C ABI that the linked airlock-ffi crate defines.

fn main() {
    let dir = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| ".".to_owned());
    println!("cargo:rerun-if-changed=airlock-python.map");
    println!("cargo:rerun-if-changed=build.rs");
    if std::env::var("CARGO_CFG_TARGET_OS").is_ok_and(|os| os == "linux") {
        println!("cargo:rustc-cdylib-link-arg=-Wl,--version-script={dir}/airlock-python.map");
    }
}
