//! Integration tests, built as one binary.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects
)]

mod conformance_core;
// The C ABI is called as C calls it: through raw pointers.
#[allow(unsafe_code)]
mod conformance_ffi;
#[allow(unsafe_code)]
mod conformance_strict_ffi;
#[allow(unsafe_code)]
mod ffi_message_ids;
#[allow(unsafe_code)]
mod ffi_out_pointers;
mod unicode_versions;
