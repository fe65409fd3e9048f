//! Timing: the plan (how much), the measuring processes run one after
//! the other, the brief screen, and the timings they return.

pub mod plan;
pub mod processes;
pub mod race;
pub mod screen;
pub mod timings;
