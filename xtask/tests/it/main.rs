//! xtask from the outside, in one test binary (matklad, "Delete Cargo
//! Integration Tests"): one link instead of one per file, and libtest runs
//! any two of these tests at once, so a test that waits (a deadline, a
//! timing process pinned to one core) leaves its core to another file's
//! test instead of idling until its own file is done. A module per concern;
//! `cargo test -p xtask --test it -- gate::` runs one of them.

mod common;

mod compare;
mod crate_aead;
mod crate_hash;
mod crate_intake;
mod crate_mac;
mod crate_outputs;
mod crate_stream;
mod crate_uhash;
mod gate;
mod gate_crate;
mod hang;
mod hostile;
mod interrupt;
mod layers;
mod new_cipher;
mod outputs;
mod remarks;
mod terminal;
