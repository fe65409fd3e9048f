//! The C libraries a peer may come from (`registry::LibraryName`), as this
//! machine has them: the shared object a build links (the development
//! package's `lib<name>.so`), found where the system's linker looks, or why
//! not (the peer's rows are then left out, saying so); and for an
//! algorithm in an OpenSSL provider of its own (the legacy one), that
//! provider's module, likewise. A test pretends one is missing with
//! `INLINELAB_FAULT=missing:NAME` or `no-provider:NAME` (`fault.rs`).

use crate::env::fault;
use bench_harness::registry::{Library, LibraryName, Provider};
use std::path::PathBuf;

/// Where OpenSSL 3 looks for its provider modules on the machines this
/// runs on (Debian's `MODULESDIR`, `openssl version -m`), unless
/// `OPENSSL_MODULES` names another directory.
const MODULES: [&str; 2] = [
    "/usr/lib/x86_64-linux-gnu/ossl-modules",
    "/usr/lib64/ossl-modules",
];

/// The files a library peer's code is in, as this machine has them: the
/// library's shared object, then its provider's module where it names one
/// ([`locate`], [`locate_provider`]); or why not.
pub fn files(library: &Library, peer: &str) -> Result<Vec<PathBuf>, String> {
    let mut files = vec![locate(library.name, peer)?];
    if let Some(p) = library.provider {
        files.push(locate_provider(p, peer)?);
    }
    Ok(files)
}

/// The provider's module (its real file), or why OpenSSL could not load it
/// here.
pub fn locate_provider(provider: Provider, peer: &str) -> Result<PathBuf, String> {
    let missing = |looked: &str| {
        format!(
            "OpenSSL's {} provider is not installed here ({} not found in {looked}; Debian's package libssl3)",
            provider.name(),
            provider.module()
        )
    };
    let dirs: Vec<String> = match std::env::var("OPENSSL_MODULES") {
        Ok(dir) if !dir.is_empty() => vec![dir],
        _ => MODULES.iter().map(|d| d.to_string()).collect(),
    };
    let looked = dirs.join(" or ");
    if fault::no_provider(peer) {
        return Err(missing(&looked));
    }
    (dirs.iter())
        .map(|d| PathBuf::from(d).join(provider.module()))
        .find_map(|p| std::fs::canonicalize(p).ok())
        .ok_or_else(|| missing(&looked))
}

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
