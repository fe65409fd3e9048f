//! Intake of a crate that inlinelab did not write (issue 31): what
//! `cargo xtask compare --crate NAME@VERSION` needs to know about a copy of
//! a published package before it builds variants of it.
//!
//! - `annotations/`: finds every inline attribute of a package's library
//!   (and every function one could be added to) by lexing its module tree,
//!   and edits them in place on a copy without moving any line.

pub mod annotations;
