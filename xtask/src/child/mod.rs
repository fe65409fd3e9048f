//! The hidden commands xtask runs as children of itself: `__measure` (a
//! measuring process), `__count` (what callgrind runs), `__instructions`,
//! and `__sample` (`sample_child.rs`: where an artifact's CPU time goes,
//! sampled by `sampler.rs`); `which_ran.rs` runs it and names the
//! backend each mode family ran, timed and counted.

pub mod count_child;
pub mod instructions;
pub mod measure_child;
pub mod sample_child;
pub mod sampler;
pub mod secrets_child;
pub mod which_ran;
