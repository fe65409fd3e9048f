//! inlinelab's speed tests, after the kernel's `tcrypt` module: algorithms by
//! kernel name (`ecb(cast6)`), the kernel's block- and key-size templates,
//! its seconds and cycles modes with the same output lines, and a precise
//! mode that fits a line through interleaved medians so that the per-call
//! overhead cancels (libgcrypt bench-slope).
//!
//! Everything is measured through [`engine::Engine`] (set a key, process a
//! buffer), which a statically linked variant and a variant loaded from a
//! built `.so` ([`so::SoCipher`]) both implement. `cargo xtask compare`
//! measures through [`sampling`]: engines checked against an oracle, then
//! timed interleaved.

// The modules by job, lowest first: a module imports only the crate root
// and modules listed before it (`tests/layers.rs` checks).
//
// Foundations: the counter, statistics, buffer placement, output files,
// the tests' injected crash.
pub mod clock;
pub mod fault;
pub mod outfile;
pub mod placement;
pub mod stats;
// The machine the figures come from.
pub mod machine;
// Engines and their loader: the trait, the registry of variants and peers,
// a built `.so` loaded as an engine.
pub mod engine;
// A C library's peer and what it offers.
pub mod library;
// The crates' block ciphers a library has too, in one table.
pub mod crate_libraries;
// A crate's cipher, learned at run time (`compare --crate`).
pub mod crates;
pub mod registry;
pub mod so;
// The timing loop precise mode and the measuring core share.
pub mod interleave;
// The measuring core xtask uses: cases, the oracle check, interleaved
// samples.
pub mod sampling;
// What valgrind runs (`under-valgrind`): counting and the secrets screen.
pub mod under_valgrind;
// tcrypt's measurements and their output lines.
pub mod format;
pub mod measure;
// tcrypt's command line.
pub mod cli;

use std::fmt;

/// Bad input from the command line or a caller: a one-line cause that names
/// the allowed values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UsageError(pub String);

impl fmt::Display for UsageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}
