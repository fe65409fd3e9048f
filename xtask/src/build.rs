//! The build stage: builds and sizes each contender (the same file is
//! sized here and timed later), printing a progress line per step.
//!
//! With [`Reuse::Previous`] (the default of compare, gate and baseline;
//! `--rebuild` to build everything again), a contender whose
//! previous build in the work directory was made from the same sources,
//! selection, features, flags and toolchain is not built again: a manifest
//! beside each artifact records what it was built from.

use crate::artifacts::{self, Files};
use crate::contenders::{Built, Contender, State};
use crate::fault;
use crate::size;
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

/// Builds and sizes each contender into `dir`, taking a previous build
/// where `reuse` allows it; a failure marks that contender failed and the
/// others go on. `steps` is the run's step count, for the progress lines.
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
                .or_insert_with(|| workspace::inputs_of(&c.tree.root).hash),
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
            .map(|sized| (files, sized))
        });
        match built {
            Ok((files, sized)) => {
                let a = &sized.artifact;
                eprintln!(
                    "{}, footprint {} bytes (hot path {}), .so {} bytes",
                    if files.seconds == 0.0 {
                        "reused".to_string()
                    } else {
                        format!("{:.1}s", files.seconds)
                    },
                    a.footprint_bytes,
                    a.hot_path_bytes.map_or("unknown".into(), |b| b.to_string()),
                    a.so_bytes
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
                    artifact: sized.artifact,
                    hot_path: sized.hot_path,
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
