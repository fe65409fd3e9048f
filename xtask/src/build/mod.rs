//! The build stage: builds and sizes each contender (the same file is
//! sized here and timed later), printing a progress line per step.
//!
//! With [`Reuse::Previous`] (the default of compare, gate and baseline;
//! `--rebuild` to build everything again), a contender whose
//! previous build in the work directory was made from the same sources,
//! selection, features, flags and toolchain is not built again: a manifest
//! beside each artifact records what it was built from.

pub mod artifacts;
pub mod code;
pub mod ranges;
pub mod remarks;
mod seed;
pub mod size;

use crate::env::tree::{Source, Tree};
use crate::env::workspace;
use crate::env::{fault, library};
use crate::select::artifact::Artifact;
use crate::select::contenders::{Built, Contender, Kind, Selection, State};
use artifacts::Files;
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
    /// The build's inlining decisions, kept for a run that reuses it.
    #[serde(default)]
    inlining: Vec<crate::select::artifact::Inlining>,
}

/// How many artifact builds run at once: one per core, at most
/// [`MAX_WORKERS`]. Each build is one rustc process on one core
/// (`codegen-units = 1`), so on two cores two builds take the time of one.
pub fn workers() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get().clamp(1, MAX_WORKERS))
}

/// Builds at once, at most: each worker past the first has a target
/// directory of its own (the same file names in one directory would
/// collide), started from a copy of the first worker's ([`seed`]).
pub const MAX_WORKERS: usize = 4;

/// The target directory worker 0 builds `tree` in: the tree's own.
fn base_dir(tree: &Tree) -> std::path::PathBuf {
    (tree.target_dir.clone()).unwrap_or_else(workspace::target_dir_default)
}

/// The tree worker `w` builds in: worker 0 in the tree's own target
/// directory, each other in `inlinelab/worker-W` under it.
fn worker_tree(tree: &Tree, w: usize) -> Tree {
    if w == 0 {
        return tree.clone();
    }
    Tree {
        target_dir: Some(base_dir(tree).join("inlinelab").join(format!("worker-{w}"))),
        ..tree.clone()
    }
}

/// One contender to build: where its artifact goes and what it is.
struct Job {
    index: usize,
    tree: Tree,
    selection: Selection<'static>,
    extra: &'static [&'static str],
    crate_name: String,
    dest: std::path::PathBuf,
}

/// Builds and sizes each contender into `dir`, taking a previous build
/// where `reuse` allows it and building the rest [`workers`] at a time; a
/// failure marks that contender failed and the others go on. `steps` is the
/// run's step count, for the progress lines.
pub fn build_and_size_reusing(
    entry: &CipherEntry,
    contenders: &mut [Contender],
    dir: &Path,
    steps: usize,
    reuse: Reuse,
) {
    leave_out_missing_libraries(contenders);
    let plan = plan(contenders, dir, reuse);
    let workers = workers().min(plan.jobs.len().max(1));
    if !plan.jobs.is_empty() {
        eprintln!(
            "building {} artifact(s), {workers} at a time ({} reused from a previous build of the same inputs)",
            plan.jobs.len(),
            contenders.len() - plan.jobs.len()
        );
    }
    let Plan {
        jobs,
        mut reused,
        inputs,
    } = plan;
    let (tx, rx) = std::sync::mpsc::channel();
    let queue = std::sync::Mutex::new(jobs.into_iter());
    let seeds = seed::Seeds::default();
    std::thread::scope(|scope| {
        for w in 0..workers {
            let (tx, queue, seeds) = (tx.clone(), &queue, &seeds);
            scope.spawn(move || {
                loop {
                    let next = queue.lock().map(|mut q| q.next()).ok().flatten();
                    let Some(job) = next else { break };
                    let tree = worker_tree(&job.tree, w);
                    let base = base_dir(&job.tree);
                    if w > 0 {
                        seeds.prepare(&base, &base_dir(&tree));
                    }
                    let built = artifacts::build(
                        &tree,
                        &job.selection,
                        job.extra,
                        &job.crate_name,
                        &job.dest,
                    );
                    if w == 0 {
                        seeds.built(&base);
                    }
                    if tx.send((job.index, built)).is_err() {
                        break;
                    }
                }
                if w == 0 {
                    seeds.done();
                }
            });
        }
        drop(tx);
        // Sized and reported in the order they finish; reused ones first.
        let mut done = 0;
        for (i, files) in reused.iter_mut().enumerate() {
            if let Some(files) = files.take() {
                done += 1;
                finish(entry, &mut contenders[i], files, &inputs[i], done, steps);
            }
        }
        for (i, files) in rx {
            done += 1;
            finish(entry, &mut contenders[i], files, &inputs[i], done, steps);
        }
    });
}

/// A library peer whose C library (or OpenSSL provider) this machine does
/// not have is left out (unavailable here, saying why), never built.
fn leave_out_missing_libraries(contenders: &mut [Contender]) {
    for c in contenders.iter_mut() {
        let Some(library) = c.library() else {
            continue;
        };
        if let Err(why) = library::files(&library, &c.name) {
            eprintln!("{}: left out: {why}", c.label);
            c.state = State::Unavailable { why, built: None };
        }
    }
}

/// What [`plan`] decided: the builds to run, the artifacts reused (by
/// contender index), and each contender's inputs and manifest path.
struct Plan {
    jobs: Vec<Job>,
    reused: Vec<Option<Result<Files, String>>>,
    inputs: Vec<(String, std::path::PathBuf)>,
}

/// Which contenders a previous build in `dir` serves (same inputs, the file
/// still there, `reuse` allowing it) and which must be built.
fn plan(contenders: &[Contender], dir: &Path, reuse: Reuse) -> Plan {
    let mut sources = HashMap::new();
    // The toolchain and the profile as the environment leaves it.
    let toolchain = crate::env::profile::toolchain();
    let rustc = format!("{} {}", toolchain.rustc, toolchain.profile);
    let mut plan = Plan {
        jobs: Vec::new(),
        reused: Vec::new(),
        inputs: Vec::new(),
    };
    for (i, c) in contenders.iter().enumerate() {
        if !matches!(c.state, State::Pending) {
            // Left out before any build (a library not installed).
            plan.reused.push(None);
            plan.inputs.push(Default::default());
            continue;
        }
        let dest = dir.join(format!("{}.so", c.name));
        let manifest_path = dir.join(format!("{}.build.json", c.name));
        let extra = fault::extra_features(&c.name);
        let inputs = format!(
            "{}|{}|{:?}|{:?}|{:?}|{:?}|{}",
            sources
                .entry(c.tree.root.clone())
                .or_insert_with(|| tree_inputs(&c.tree)),
            c.selection().variant_env(),
            selection_features(c),
            extra,
            Some(artifacts::rustflags(&c.tree).join(" ")).filter(|f| !f.is_empty()),
            c.tree.flags.profile_env(),
            rustc,
        );
        let previous = (reuse == Reuse::Previous)
            .then(|| std::fs::read(&manifest_path).ok())
            .flatten()
            .and_then(|b| serde_json::from_slice::<Manifest>(&b).ok())
            .filter(|m| m.inputs == inputs && dest.is_file());
        let _ = std::fs::remove_file(&manifest_path);
        match previous {
            Some(m) => plan.reused.push(Some(Ok(Files {
                so: dest,
                rlib_bytes: m.rlib_bytes,
                seconds: 0.0,
                inlining: m.inlining,
            }))),
            None => {
                plan.reused.push(None);
                let selection = match c.kind {
                    Kind::Variant(variant) | Kind::Control(variant) => Selection::Variant {
                        module: c.module,
                        variant,
                    },
                    Kind::Peer(p) => Selection::Peer(p),
                };
                plan.jobs.push(Job {
                    index: i,
                    tree: c.tree.clone(),
                    selection,
                    extra,
                    crate_name: c.crate_name().to_string(),
                    dest,
                });
            }
        }
        plan.inputs.push((inputs, manifest_path));
    }
    plan
}

/// A hash of what decides the artifacts built in `tree`: a workspace's
/// inputs ([`workspace::inputs_of`]); for a shim package, this workspace's
/// and every file of the directory that holds the shim and the copy of the
/// crate it builds (`intake/`).
fn tree_inputs(tree: &Tree) -> String {
    let Source::Shim { .. } = tree.source else {
        return workspace::inputs_of(&tree.root).hash;
    };
    let mut files: Vec<_> = (tree.root.parent().map(walkdir::WalkDir::new))
        .into_iter()
        .flatten()
        .flatten()
        .filter(|f| f.file_type().is_file())
        .map(|f| f.into_path())
        .collect();
    files.sort();
    let mut text = workspace::inputs_of(&workspace::root()).hash;
    for f in files {
        let bytes = std::fs::read(&f).unwrap_or_default();
        text.push_str(&format!(
            "|{}:{:016x}",
            f.display(),
            bench_harness::so::fnv1a(&bytes)
        ));
    }
    format!("{:016x}", bench_harness::so::fnv1a(text.as_bytes()))
}

/// Sizes a contender's built (or reused) artifact, prints its progress line
/// (`done` of `steps`) and records it, with the manifest that lets a later
/// run reuse it.
fn finish(
    entry: &CipherEntry,
    c: &mut Contender,
    files: Result<Files, String>,
    (inputs, manifest_path): &(String, std::path::PathBuf),
    done: usize,
    steps: usize,
) {
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
    // A library peer's code is mostly the library's: its sizes added.
    let built = built.and_then(|(files, mut sized)| {
        if let Some(library) = c.library() {
            size::add_library(&mut sized.artifact, &library::files(&library, &c.name)?)?;
        }
        Ok((files, sized))
    });
    eprint!("[{done}/{steps}] {} ... ", c.label);
    match built {
        Ok((files, sized)) => {
            let a = &sized.artifact;
            eprintln!(
                "{}, footprint {} bytes (hot path {}), .so {} bytes",
                if files.seconds == 0.0 {
                    "reused".to_string()
                } else {
                    format!("built in {:.1}s", files.seconds)
                },
                a.footprint_bytes,
                a.hot_path_bytes.map_or("unknown".into(), |b| b.to_string()),
                a.so_bytes
            );
            let manifest = Manifest {
                inputs: inputs.clone(),
                rlib_bytes: files.rlib_bytes,
                inlining: files.inlining.clone(),
            };
            if let Ok(json) = serde_json::to_vec(&manifest) {
                let _ = std::fs::write(manifest_path, json);
            }
            c.state = State::Built(Built {
                so: files.so,
                artifact: Artifact {
                    inlining: files.inlining,
                    ..sized.artifact
                },
                hot_path: sized.hot_path,
                key_schedule: sized.key_schedule,
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

/// The features a peer's selection adds (a variant's is the environment),
/// and a library peer's algorithm, block and provider as its build is told
/// them (one feature builds every library's algorithm: a crate's Twofish
/// is not a reused CAST5).
fn selection_features(c: &Contender) -> Option<Vec<String>> {
    match c.selection() {
        Selection::Peer(p) => {
            let mut features = artifacts::peer_features(p);
            if let Some(l) = &p.library {
                features.push(format!(
                    "{}/{}/{}",
                    l.algorithm_env(),
                    l.block,
                    l.provider.map_or("", |p| p.name())
                ));
            }
            Some(features)
        }
        Selection::Variant { .. } => None,
    }
}
