//! What `callgrind.rs` asks of the counting child
//! ([`crate::child::count`], `__count`) and what it answers: the
//! spec and the outcome, written as JSON between the two.

use bench_harness::sampling::Case;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// The artifacts, each counted in every case.
#[derive(Serialize, Deserialize)]
pub struct CountSpec {
    /// `(name, path)` of each artifact, in the order they are counted.
    pub artifacts: Vec<(String, PathBuf)>,
    pub cases: Vec<Case>,
}

/// What became of each artifact of the spec, in spec order.
#[derive(Serialize, Deserialize)]
pub struct CountOutcome {
    pub artifacts: Vec<Counted>,
}

/// What became of one artifact.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum Counted {
    /// Loaded and run: one dump per case, in case order.
    Dumped,
    /// Loaded, but a case failed: still one dump per case (the cases after
    /// the failure empty), and the error.
    DumpedThenFailed(String),
    /// Not loaded (no dumps): this CPU cannot run it.
    Unavailable(String),
    /// Not loaded (no dumps): why.
    NotLoaded(String),
}

impl Counted {
    /// Whether it produced one dump per case.
    pub fn dumped(&self) -> bool {
        matches!(self, Counted::Dumped | Counted::DumpedThenFailed(_))
    }
}
