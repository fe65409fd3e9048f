//! The hidden commands xtask runs as children of itself: `__measure` (a
//! measuring process), `__instructions`, and `__sample` (`sample.rs`:
//! where an artifact's CPU time goes, sampled by `sampler.rs`);
//! `which_ran.rs` runs `__sample` and names the backend each mode family
//! ran, timed and counted. What valgrind runs is a program of its own
//! (`under-valgrind`, `count/program.rs`).

pub mod instructions;
pub mod measure;
pub mod sample;
pub mod sampler;
pub mod which_ran;
