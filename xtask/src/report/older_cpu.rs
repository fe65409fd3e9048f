//! What a contender did on a CPU without the instruction set extensions
//! its code may use (`time/emulated.rs`: qemu's user-mode emulator with a
//! model of x86-64's baseline): the differential check against the oracle,
//! every mode, key length and direction, run there. An inlining choice can
//! move code past a run-time CPU check (RustCrypto/hashes#851: sha2's
//! SHA-NI body inlined past its detection under fat LTO, a SIGILL on CPUs
//! without it); this is where that shows.

use serde::{Deserialize, Serialize};

/// A contender's run on the older CPU.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum OlderCpu {
    /// It computed what the oracle computes in every case checked (on its
    /// fallback, where it has extensions it did not find).
    Right { cpu: String },
    /// It said this CPU cannot run it, as this workspace's forms of an
    /// extension must (`aesni_*` without AES-NI).
    Unavailable { cpu: String, why: String },
    /// It died there (an illegal instruction, say) or computed something
    /// else: `why` says which.
    Failed {
        cpu: String,
        why: String,
        /// It was built for a CPU beyond the baseline (`--target-cpu`, a
        /// `+feature`, a caller's `RUSTFLAGS`): a failure there is what was
        /// asked for, said but not held against it.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        built_beyond: bool,
    },
    /// Not run: no emulator on this machine, or the check could not start
    /// there (the oracle itself failed).
    NotRun { why: String },
}

impl OlderCpu {
    /// The emulated CPU, where it ran.
    pub fn cpu(&self) -> Option<&str> {
        match self {
            OlderCpu::Right { cpu }
            | OlderCpu::Unavailable { cpu, .. }
            | OlderCpu::Failed { cpu, .. } => Some(cpu),
            OlderCpu::NotRun { .. } => None,
        }
    }
}

impl OlderCpu {
    /// Whether it counts against the contender: it failed on the older CPU
    /// although built for the baseline, which promises that CPU. The
    /// verdict leaves such a contender out (a run marks it failed).
    pub fn disqualifies(&self) -> bool {
        matches!(
            self,
            OlderCpu::Failed {
                built_beyond: false,
                ..
            }
        )
    }
}
