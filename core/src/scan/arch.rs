//! The per-ISA implementations of the generic kernels' [`Vector`](super::generic::vector::Vector),
//! one file per instruction set; dispatch is in `backend.rs`.

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
