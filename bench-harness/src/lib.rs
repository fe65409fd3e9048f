//! inlinelab's speed tests, after the kernel's `tcrypt` module: algorithms by
//! kernel name (`ecb(cast6)`), the kernel's block- and key-size templates,
//! its seconds and cycles modes with the same output lines, and a precise
//! mode that fits a line through interleaved medians so that the per-call
//! overhead cancels (libgcrypt bench-slope).
//!
//! Everything is measured through [`engine::Engine`] (set a key, process a
//! buffer), which a statically linked variant and a variant loaded from a
//! built `.so` ([`so::SoCipher`]) both implement.

pub mod cli;
pub mod clock;
pub mod compare;
pub mod engine;
pub mod format;
pub mod interleave;
pub mod machine;
pub mod measure;
pub mod outfile;
pub mod placement;
pub mod registry;
pub mod so;
pub mod stats;

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
