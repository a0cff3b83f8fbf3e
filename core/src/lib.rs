//! airlock-core: allocation-free containment of untrusted text on its way into a
//! model's prompt.
//!
//! * **Prose** is framed and capped, never filtered for meaning: [`sanitize_prose`]
//!   strips invisibles and controls, rejects forged wrapper literals, redacts the
//!   envelope's own markers and cuts to a byte budget.
//! * **Machine values** are rejected, never repaired: [`check_machine_token`],
//!   [`check_no_control`], [`check_safe_description`], [`check_safe_glob`].
//! * **Fences**: [`fence_token`] derives a token provably absent from its payload.
//!
//! Inputs are borrowed; outputs are sub-slices, iterators of borrowed runs, or bytes
//! written into a caller's buffer. Nothing allocates and nothing panics. A
//! [`Rejection`] carries the reference's exact message, written on demand.
#![no_std]
// Unsafe code lives in the per-ISA files of the scan, which allow it: `scan::x86`,
// `scan::x86_scan512`, `scan::x86_utf8`, `scan::strict_dense_x86`, `scan::escapes_x86`
// (x86-64 intrinsics), `scan::arch::aarch64::neon` (NEON), and one line of
// `scan::portable` (a copy of a `str` is a `str`): seven modules. core/DESIGN.md's
// unsafe map lists them, with ffi's.
#![deny(unsafe_code)]
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

#[cfg(any(test, feature = "plain"))]
extern crate std;

pub mod class;
pub mod envelope;
pub mod fence;
pub mod forgery;
pub mod frontmatter;
pub mod header;
pub mod json;
pub mod lint;
#[cfg(any(test, feature = "plain"))]
pub mod plain;
pub mod profile;
pub mod prose;
pub mod reject;
mod rules;
pub mod scan;
pub mod shape;
pub mod strict;
pub mod strip;
mod tables;
pub mod token;
pub mod truncate;
pub mod utf8;

#[cfg(test)]
mod properties;

pub use class::{is_control, is_dangerous_invisible, is_extended_pictographic, is_orphan_selector};
pub use envelope::{UNTRUSTED_BEGIN, UNTRUSTED_END};
pub use fence::{FenceToken, fence_token};
pub use forgery::{
    ENVELOPE_MARKERS, LiteralSet, MARKER_REDACTION, WRAPPER_FORGERY_LITERALS, check_no_forgery,
    find_forgery,
};
pub use profile::Profile;
pub use prose::{
    Prose, ProseError, ProseStream, sanitize_prose, sanitize_prose_with, worst_case_len,
};
pub use reject::{Reason, Rejection};
#[doc(hidden)]
pub use scan::Backend;
pub use scan::first_attention;
pub use strip::{BufferTooSmall, StripStream, strip_into, strip_invisibles};
pub use tables::UNICODE_VERSION;
pub use token::{
    Shape, check_machine_token, check_no_control, check_safe_description, check_safe_glob,
};
pub use truncate::{Truncation, truncate_to_bytes};
pub use utf8::Utf8Error;

/// This library's version.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The README's example, compiled and run as a doctest so it cannot rot.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
struct ReadmeExample;
