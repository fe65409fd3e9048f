//! What a run covers: the ciphers a name means, the variants chosen, the
//! contenders (variants, peers, the A/A control) and the cases.

pub mod cases;
pub mod ciphers;
pub mod contenders;
