//! airlock-core as a WebAssembly module: the operations of the Node binding over
//! UTF-8 in linear memory, for runtimes where a native library cannot be loaded
//! (browsers, Deno, Cloudflare Workers and other edge runtimes).
//!
//! The module imports nothing and allocates nothing: the JavaScript loader
//! (`wasm/npm/lib/airlock.js`) asks for room with `abi::aw_reserve`, lays the
//! call's input, field name, output and message out in it, and reads the lengths
//! back from the result words. Every operation lives in [`ops`] as a safe function
//! over slices, so the host build (`cargo test -p airlock-wasm`) tests exactly what
//! the module runs; `abi` (wasm32 only) turns offsets into slices.
#![cfg_attr(target_arch = "wasm32", no_std)]
#![cfg_attr(
    test,
    allow(
        clippy::indexing_slicing,
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::arithmetic_side_effects
    )
)]

#[cfg(target_arch = "wasm32")]
pub mod abi;
pub mod ops;

/// core never panics on any input (its lints deny every panicking construct); should
/// one happen anyway, the call traps and the loader throws a `RuntimeError`: the
/// call fails, nothing is returned as if it had succeeded.
#[cfg(all(target_arch = "wasm32", not(test)))]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    core::arch::wasm32::unreachable()
}
