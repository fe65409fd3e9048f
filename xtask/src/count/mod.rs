//! Counting instructions with callgrind: a valgrind run over each core's
//! share of a cipher's artifacts, and the counts per case they give; the
//! instructions per function of each case (`functions.rs`), and the
//! crate's module that got them (`by_module.rs`); the instructions that
//! executed, by address (`executed.rs`), and a library peer's functions
//! they were in (`reached.rs`).

pub mod by_module;
pub mod callgrind;
pub mod counts;
pub mod executed;
pub mod explain;
pub mod functions;
pub mod memcheck;
pub mod memo;
pub mod program;
pub mod reached;

/// A failed valgrind run's last words in its stderr `text`: the process's
/// own last line, else valgrind's (`==PID== ...`).
pub fn last_words(text: &str) -> &str {
    (text.lines())
        .rfind(|l| !l.trim().is_empty() && !l.starts_with("=="))
        .or_else(|| text.lines().rfind(|l| !l.trim().is_empty()))
        .unwrap_or("")
}
