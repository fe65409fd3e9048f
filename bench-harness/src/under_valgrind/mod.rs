//! What valgrind runs: the program `under-valgrind` (xtask's second
//! binary, `xtask/src/bin/under-valgrind.rs`), kept small so that each
//! valgrind start reads little of its own (xtask's `count/program.rs`
//! builds and finds it). `count` is what callgrind runs to count an
//! artifact's instructions; `secrets` what memcheck runs to find its
//! secret-dependent branches and indexes. Each is told what to do by a JSON
//! file the parent wrote and answers in one.

pub mod count;
mod request;
pub mod secrets;

use crate::sampling::Case;

/// A case that failed, as its error names it: `ecb encrypt 128-bit 16 B:
/// why`.
fn failed_case(case: &Case, why: impl std::fmt::Display) -> String {
    format!(
        "{} {} {}-bit {} B: {why}",
        case.mode.name(),
        case.dir_name(),
        case.key_bytes * 8,
        case.block_bytes
    )
}

/// `path: why`, for a file this program could not read or write.
fn at(path: &std::path::Path, why: impl std::fmt::Display) -> String {
    format!("{}: {why}", path.display())
}
