//! Timing: the plan (how much), the measuring processes run one after
//! the other, the brief screen, the timings they return, and the report made of them.

pub mod analyse;
pub mod plan;
pub mod processes;
pub mod race;
pub mod screen;
pub mod timings;
