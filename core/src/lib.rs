//! airlock-core: allocation-free containment of untrusted text.
//!
//! Work in progress: the operations of SPEC.md land module by module.
#![no_std]
#![forbid(unsafe_code)]
#![cfg_attr(test, allow(clippy::indexing_slicing, clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::arithmetic_side_effects))]

#[cfg(test)]
extern crate std;

pub mod header;
