//! Counting instructions with callgrind: one valgrind run over every
//! artifact of a cipher, and the counts per case it gives.

pub mod callgrind;
pub mod counts;
pub mod explain;
pub mod spec;
