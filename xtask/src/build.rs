//! The build stage: builds and sizes each contender (the same file is
//! sized here and timed later), printing a progress line per step.
//!
//! With [`Reuse::Previous`] (the gate's hidden `--reuse-build`, for tests
//! that run the gate many times on the same code), a contender whose
//! previous build in the work directory was made from the same sources,
//! selection, features, flags and toolchain is not built again: a manifest
//! beside each artifact records what it was built from.

use crate::artifacts::{self, Files};
use crate::contenders::{Built, Contender, State};
use crate::fault;
use crate::size;
use crate::tree::Tree;
use crate::workspace;
use bench_harness::registry::CipherEntry;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::Path;

/// Whether to build every contender, or take what a previous run of the
/// same cipher built from the same inputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reuse {
    Never,
    Previous,
}

/// What an artifact in the work directory was built from.
#[derive(Serialize, Deserialize, PartialEq)]
struct Manifest {
    inputs: String,
    rlib_bytes: u64,
}

/// Builds and sizes each contender into `dir`; a failure marks that
/// contender failed and the others go on. `steps` is the run's step count,
/// for the progress lines.
pub fn build_and_size(entry: &CipherEntry, contenders: &mut [Contender], dir: &Path, steps: usize) {
    build_and_size_reusing(entry, contenders, dir, steps, Reuse::Never);
}

/// [`build_and_size`], taking a previous build where `reuse` allows it.
pub fn build_and_size_reusing(
    entry: &CipherEntry,
    contenders: &mut [Contender],
    dir: &Path,
    steps: usize,
    reuse: Reuse,
) {
    let mut sources = HashMap::new();
    let rustc = workspace::toolchain().rustc;
    for (i, c) in contenders.iter_mut().enumerate() {
        eprint!("[{}/{steps}] building and sizing {} ... ", i + 1, c.label);
        let dest = dir.join(format!("{}.so", c.name));
        let manifest_path = dir.join(format!("{}.build.json", c.name));
        let extra = fault::extra_features(&c.name);
        let inputs = format!(
            "{}|{}|{:?}|{:?}|{:?}|{}",
            sources
                .entry(c.tree.root.clone())
                .or_insert_with(|| sources_fingerprint(&c.tree)),
            c.selection().variant_env(),
            selection_features(c),
            extra,
            c.tree.rustflags,
            rustc,
        );
        let previous = (reuse == Reuse::Previous)
            .then(|| std::fs::read(&manifest_path).ok())
            .flatten()
            .and_then(|b| serde_json::from_slice::<Manifest>(&b).ok())
            .filter(|m| m.inputs == inputs && dest.is_file());
        let _ = std::fs::remove_file(&manifest_path);
        let files = match previous {
            Some(m) => Ok(Files {
                so: dest.clone(),
                rlib_bytes: m.rlib_bytes,
                seconds: 0.0,
            }),
            None => artifacts::build(&c.tree, &c.selection(), extra, c.crate_name(), &dest),
        };
        let built = files.and_then(|files| {
            size::read(
                &files.so,
                files.rlib_bytes,
                c.crate_name(),
                c.variant(),
                entry.rounds,
            )
            .map(|artifact| (files, artifact))
        });
        match built {
            Ok((files, artifact)) => {
                eprintln!(
                    "{}, .text {} bytes, .so {} bytes",
                    if files.seconds == 0.0 {
                        "reused".to_string()
                    } else {
                        format!("{:.1}s", files.seconds)
                    },
                    artifact.text_bytes,
                    artifact.so_bytes
                );
                let manifest = Manifest {
                    inputs,
                    rlib_bytes: files.rlib_bytes,
                };
                if let Ok(json) = serde_json::to_vec(&manifest) {
                    let _ = std::fs::write(&manifest_path, json);
                }
                c.state = State::Built(Built {
                    so: files.so,
                    artifact,
                    loaded: None,
                });
            }
            Err(why) => {
                eprintln!("failed");
                eprintln!("    {why}");
                c.fail(why);
            }
        }
    }
}

/// The features a peer's selection adds (a variant's is the environment).
fn selection_features(c: &Contender) -> Option<&'static str> {
    match c.selection() {
        artifacts::Selection::Peer(p) => Some(p.feature),
        artifacts::Selection::Variant { .. } => None,
    }
}

/// A fingerprint of every file of `tree` an artifact build reads: the
/// manifests and lock file, the cargo configuration, the toolchain file, and
/// the sources of the crates an artifact is made of.
fn sources_fingerprint(tree: &Tree) -> String {
    let mut files = Vec::new();
    for top in [
        "Cargo.toml",
        "Cargo.lock",
        "rust-toolchain.toml",
        ".cargo",
        "abi",
        "codegen",
        "variants",
    ] {
        collect(&tree.root.join(top), &mut files);
    }
    files.sort();
    let mut hash = 0xcbf2_9ce4_8422_2325u64;
    let mut mix = |bytes: &[u8]| {
        for &b in bytes {
            hash = (hash ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
    };
    for f in &files {
        mix(f.to_string_lossy().as_bytes());
        mix(&std::fs::read(f).unwrap_or_default());
    }
    format!("{}:{hash:016x}", files.len())
}

/// Every file under `path` (or `path` itself), but no `target` directory.
fn collect(path: &Path, out: &mut Vec<std::path::PathBuf>) {
    if path.is_file() {
        out.push(path.to_path_buf());
    } else if let Ok(dir) = std::fs::read_dir(path) {
        for e in dir.flatten() {
            if e.file_name() != "target" {
                collect(&e.path(), out);
            }
        }
    }
}
