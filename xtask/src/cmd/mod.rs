//! One module per command: what `main.rs` dispatches to. Each parses
//! its flags (documented where declared) and runs the stages.

pub mod baseline;
pub mod bloat;
pub mod calibrate;
pub mod compare;
pub mod gate;
pub mod merge;
pub mod render;
pub mod verify;
