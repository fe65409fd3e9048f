//! Timing: the plan (how much), the measuring processes run one after
//! the other, the brief screen, the timings they return, and the report made of them;
//! and the measuring process's check run on an emulated older CPU (`emulated.rs`).

pub mod analyse;
pub mod emulated;
pub mod plan;
pub mod processes;
pub mod race;
pub mod screen;
pub mod timings;
