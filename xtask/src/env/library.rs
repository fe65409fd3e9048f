//! The C libraries a peer may come from (`registry::LibraryName`), as this
//! machine has them: the shared object a build links (the development
//! package's `lib<name>.so`), found where the system's linker looks, or why
//! not (the peer's rows are then left out, saying so). A test pretends one
//! is missing with `INLINELAB_FAULT=missing:NAME` (`fault.rs`).

use crate::env::fault;
use bench_harness::registry::LibraryName;
use std::path::PathBuf;

/// Where the system's linker finds libraries on the machines this runs on
/// (Debian's multiarch directory first).
const DIRS: [&str; 5] = [
    "/usr/lib/x86_64-linux-gnu",
    "/lib/x86_64-linux-gnu",
    "/usr/lib64",
    "/usr/lib",
    "/lib",
];

/// The library's shared object (its real file, symbolic links followed),
/// or why a build could not link it.
pub fn locate(name: LibraryName, peer: &str) -> Result<PathBuf, String> {
    let missing = || {
        format!(
            "{} is not installed here ({} not found; Debian's package {})",
            name.name(),
            name.linked(),
            name.package()
        )
    };
    if fault::missing(peer) {
        return Err(missing());
    }
    (DIRS.iter())
        .map(|d| PathBuf::from(d).join(name.linked()))
        .find_map(|p| std::fs::canonicalize(p).ok())
        .ok_or_else(missing)
}
