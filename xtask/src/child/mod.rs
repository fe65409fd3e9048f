//! The hidden commands xtask runs as children of itself: `__measure` (a
//! measuring process), `__count` (what callgrind runs), `__instructions`,
//! and `__sample` (`sample.rs`: where an artifact's CPU time goes,
//! sampled by `sampler.rs`), and `__secrets` (`secrets.rs`: what
//! memcheck runs); `which_ran.rs` runs `__sample` and names the backend
//! each mode family ran, timed and counted.

pub mod count;
pub mod instructions;
pub mod measure;
pub mod sample;
pub mod sampler;
pub mod secrets;
pub mod which_ran;

/// A case that failed in a child, as its error names it: `ecb encrypt
/// 128-bit 16 B: why`.
pub(crate) fn failed_case(
    case: &bench_harness::sampling::Case,
    why: impl std::fmt::Display,
) -> String {
    format!(
        "{} {} {}-bit {} B: {why}",
        case.mode.name(),
        case.dir_name(),
        case.key_bytes * 8,
        case.block_bytes
    )
}
