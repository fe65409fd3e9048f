//! What a run covers: the ciphers a name means, the variants chosen, the
//! contenders (variants, peers, the A/A control) with what an artifact
//! holds and what a built one is, and the cases.

pub mod artifact;
pub mod cases;
pub mod ciphers;
pub mod contenders;
