//! The hidden commands xtask runs as children of itself: `__measure` (a
//! measuring process), `__count` (what callgrind runs) and `__instructions`.

pub mod count_child;
pub mod instructions;
pub mod measure_child;
