//! What memcheck saw a contender do with its secrets
//! (`count/memcheck.rs`): the code locations where a branch or a memory
//! address depends on the key or the data, under SUPERCOP's
//! `constbranchindex` model (key, plaintext and what derives from them are
//! secret; the IV and the lengths are not). Memcheck follows data flow bit
//! by bit: it sees a branch or an address computed from a secret, not
//! the cache or the microarchitecture, and it reports a use once (the value
//! is taken as defined after its first report). A clean result is
//! necessary for constant time, not sufficient.

use serde::{Deserialize, Serialize};

/// One code location: the function that holds it (demangled, as the
/// sizer names it) and its offset in the artifact's file.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Site {
    pub function: String,
    pub offset: u64,
}

/// A contender's secret-dependent locations, or why they are unknown.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "lowercase")]
pub enum Secrets {
    /// Memcheck ran key setup and one case per mode family and direction.
    Measured {
        /// Where a conditional jump or move depends on a secret.
        branches: Vec<Site>,
        /// Where a load or store address depends on a secret.
        indexes: Vec<Site>,
    },
    /// Memcheck could not run it (not installed, an instruction valgrind
    /// does not emulate, a crash): unknown, never clean.
    Unmeasured { why: String },
}

impl Secrets {
    /// `(branches, indexes)`, when measured.
    pub fn counts(&self) -> Option<(usize, usize)> {
        match self {
            Secrets::Measured { branches, indexes } => Some((branches.len(), indexes.len())),
            Secrets::Unmeasured { .. } => None,
        }
    }

    /// The functions that hold `sites`, each once, in order of their first
    /// site.
    pub fn functions(sites: &[Site]) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        for s in sites {
            if !out.contains(&s.function.as_str()) {
                out.push(&s.function);
            }
        }
        out
    }
}
