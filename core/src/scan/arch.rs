//! The per-ISA implementations of the generic kernels' `Vector` (`scan/generic/`),
//! one file per instruction set; dispatch is in `backend.rs`. The x86-64 kernels
//! are still in `scan/x86*.rs` (DESIGN.md says why).

#[cfg(all(
    target_arch = "aarch64",
    target_feature = "neon",
    not(feature = "portable-only")
))]
pub(super) mod aarch64 {
    // NEON: vector loads.
    #[allow(unsafe_code)]
    pub(in crate::scan) mod neon;
}
