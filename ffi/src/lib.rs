//! airlock-ffi: the C ABI over airlock-core, so Node, Go, C and any other runtime can
//! link airlock (`libairlock.so`/`libairlock.a`, header `include/airlock.h`).
//!
//! Conventions (modelled on rustls-ffi), the same for every export:
//!
//! * Every function is `airlock_*` and returns an `airlock_status` unless it can
//!   only answer a value (classifiers, static strings, sizes).
//! * Every body runs inside one panic boundary (`ffi_boundary!`): a panic becomes
//!   `AIRLOCK_STATUS_PANIC` (or a documented neutral value), it never unwinds into the
//!   host and never aborts it.
//! * Every pointer goes through one null-check macro (`check_null!`): an input
//!   `(NULL, 0)` is empty, `(NULL, n > 0)` is `AIRLOCK_STATUS_NULL_ARG`.
//! * The caller owns every buffer; nothing allocated here crosses the boundary.
//!   Outputs are written only on success; a too-small buffer gives
//!   `AIRLOCK_STATUS_BUFFER_TOO_SMALL` and the size needed.
//! * Text is UTF-8; invalid UTF-8 gives `AIRLOCK_STATUS_INVALID_UTF8` and the byte
//!   offset of the first invalid sequence in `*err_offset`.
//! * A rejection gives `AIRLOCK_STATUS_REJECTED` and, on request, the reference's
//!   exact message in a caller buffer (`msg`, `msg_cap`, `msg_len`).
// A C ABI cannot be written without `unsafe`: every export is an `unsafe extern "C"
// fn` that dereferences pointers the caller hands in. Where the unsafe operations are:
// * the caller's pointers: read and written in `buf.rs` (behind the two macros of
//   `macros.rs`), whose helpers the exports' `unsafe` blocks call, and in
//   `frontmatter.rs`'s `Items`, which writes `airlock_frontmatter_read`'s items into
//   the caller's arrays after checking them (null, size, alignment, overlap);
// * UTF-16 transcoding: `transcode/blocks.rs` (SSE2 loads, stores and packs on
//   x86-64) and `transcode/avx512.rs` (AVX-512 intrinsics, behind its own CPU
//   detection with `cpufeatures`, apart from core's `Backend`);
// each with a `// SAFETY:` comment, which clippy enforces below. core/DESIGN.md's
// unsafe map lists them with core's.
#![allow(unsafe_code)]
#![deny(
    clippy::undocumented_unsafe_blocks,
    clippy::multiple_unsafe_ops_per_block
)]
// C entry points take each buffer as (pointer, length) and each output by pointer, so
// they have more arguments than idiomatic Rust functions.
#![allow(clippy::too_many_arguments)]
// The C names of the types are the Rust names, as in rustls-ffi.
#![allow(non_camel_case_types)]
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

#[macro_use]
mod macros;

mod buf;
mod check;
mod class;
mod fence;
mod frontmatter;
mod profile;
mod status;
mod text;
mod transcode;
mod utf16;
mod version;

pub use check::{
    airlock_check_machine_token, airlock_check_message_ids, airlock_check_no_control,
    airlock_check_no_forgery, airlock_check_safe_description, airlock_check_safe_glob,
    airlock_shape, airlock_shape_pattern,
};
pub use class::{
    AIRLOCK_NO_CODE_POINT, airlock_is_control, airlock_is_dangerous_invisible,
    airlock_is_extended_pictographic, airlock_is_orphan_selector, airlock_is_stripped,
    airlock_is_variation_selector,
};
pub use fence::{AIRLOCK_FENCE_TOKEN_MAX_LEN, airlock_fence_token};
pub use frontmatter::{
    airlock_frontmatter_glob, airlock_frontmatter_meta, airlock_frontmatter_parse,
    airlock_frontmatter_read, airlock_frontmatter_refusal, airlock_frontmatter_refusal_gate,
    airlock_frontmatter_summary, airlock_gate, airlock_meta_entry, airlock_meta_key,
    airlock_meta_key_name, airlock_meta_kind, airlock_span,
};
pub use profile::{
    airlock_check_no_control_profile, airlock_check_safe_description_profile,
    airlock_check_safe_glob_profile, airlock_profile, airlock_sanitize_prose_profile,
    airlock_strip_profile, airlock_worst_case_len_profile,
};
pub use status::{airlock_status, airlock_status_name};
pub use text::{
    AIRLOCK_DESCRIPTION_MAX_BYTES, AIRLOCK_EVIDENCE_ITEM_MAX_BYTES, AIRLOCK_EVIDENCE_MAX_BYTES,
    AIRLOCK_INSIGHT_MAX_BYTES, AIRLOCK_TITLE_MAX_BYTES, airlock_sanitize_prose, airlock_strip,
    airlock_truncate, airlock_utf8_validate, airlock_worst_case_len,
};
pub use utf16::{
    airlock_encoding, airlock_fence_token_utf16, airlock_sanitize_prose_utf16,
    airlock_sanitize_prose_utf16_out_len, airlock_sanitize_prose_utf16_scratch_len,
    airlock_text16_result,
};
pub use version::{
    airlock_envelope_begin, airlock_envelope_end, airlock_unicode_version, airlock_version,
};
