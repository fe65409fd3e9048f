//! `cargo xtask __measure` (internal): loads the built artifacts, checks each
//! against the oracle, and times them interleaved, in a process of its own
//! so that an artifact that crashes takes down only this process. Before
//! each batch it writes the running engine's index to the marker file, so
//! that the parent can name the artifact that crashed.

use crate::error::{Error, Result};
use bench_harness::clock::Counter;
use bench_harness::compare::{self, Case, Plan, Samples};
use bench_harness::engine::Engine;
use bench_harness::registry;
use bench_harness::so::{self, SoCipher};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// What to measure, written by the parent.
#[derive(Serialize, Deserialize)]
pub struct Spec {
    pub cipher: String,
    /// (name, path of the `.so`)
    pub engines: Vec<(String, PathBuf)>,
    pub cases: Vec<Case>,
    pub plan: Plan,
    /// Key sizes the correctness check uses.
    pub check_keys: Vec<usize>,
}

/// What happened, read by the parent.
#[derive(Serialize, Deserialize)]
pub struct Outcome {
    pub counter: Counter,
    pub engines: Vec<EngineOutcome>,
    /// `[engine][case][round]`, for the engines without a failure, in order.
    pub samples: Samples,
}

#[derive(Serialize, Deserialize)]
pub struct EngineOutcome {
    pub name: String,
    /// The fingerprint of the file as it was loaded.
    pub loaded: Option<String>,
    pub failure: Option<String>,
}

/// `__measure SPEC OUT MARKER`
pub fn run(args: &[String]) -> Result<()> {
    let [spec, out, marker] = args else {
        return Err(Error::usage(
            "__measure is internal: __measure SPEC OUT MARKER",
            "run cargo xtask compare instead",
        ));
    };
    let spec: Spec = serde_json::from_slice(
        &std::fs::read(spec).map_err(|e| Error::failed(format!("{spec}: {e}")))?,
    )
    .map_err(|e| Error::failed(format!("{spec}: {e}")))?;
    let outcome = measure(&spec, Path::new(marker))?;
    let json = serde_json::to_vec(&outcome).map_err(|e| Error::failed(e.to_string()))?;
    crate::workspace::write_atomically(Path::new(out), &json)
}

fn measure(spec: &Spec, marker: &Path) -> Result<Outcome> {
    // The test hook of `INLINELAB_FAULT=crash:V` (see compare.rs).
    let crash: Option<usize> = std::env::var("INLINELAB_CRASH_ENGINE")
        .ok()
        .and_then(|s| s.parse().ok());
    let mark = |i: usize| {
        let _ = std::fs::write(marker, i.to_string());
        if crash == Some(i) {
            std::process::abort();
        }
    };
    let entry = registry::cipher(&spec.cipher).map_err(|e| Error::failed(e.0))?;
    let counter = Counter::calibrate();
    eprintln!("    {}", counter.describe());
    let mut outcomes = Vec::new();
    let mut loaded: Vec<(usize, Box<dyn Engine>)> = Vec::new();
    for (i, (name, path)) in spec.engines.iter().enumerate() {
        mark(i);
        let mut outcome = EngineOutcome {
            name: name.clone(),
            loaded: so::fingerprint(path).ok(),
            failure: None,
        };
        match SoCipher::load(path) {
            Ok(mut engine) => {
                let mut oracle = match entry.peers.iter().find_map(|p| p.make) {
                    Some(make) => make(),
                    None => (entry.variants[0].1)(),
                };
                let modes: Vec<bench_harness::engine::Mode> = spec
                    .cases
                    .iter()
                    .map(|c| c.mode)
                    .fold(Vec::new(), |mut v, m| {
                        if !v.contains(&m) {
                            v.push(m);
                        }
                        v
                    });
                match compare::check_against(&mut engine, oracle.as_mut(), &spec.check_keys, &modes)
                {
                    Ok(()) => loaded.push((i, Box::new(engine))),
                    Err(why) => outcome.failure = Some(why),
                }
            }
            Err(e) => outcome.failure = Some(format!("load: {e}")),
        }
        outcomes.push(outcome);
    }
    loop {
        let (indices, mut engines): (Vec<usize>, Vec<Box<dyn Engine>>) =
            std::mem::take(&mut loaded).into_iter().unzip();
        let mut marker_fn = |k: usize| mark(indices[k]);
        let mut progress = |line: &str| eprintln!("    {line}");
        match compare::interleaved(
            &mut engines,
            &spec.cases,
            spec.plan,
            &counter,
            &mut marker_fn,
            &mut progress,
        ) {
            Ok(samples) => {
                return Ok(Outcome {
                    counter,
                    engines: outcomes,
                    samples,
                });
            }
            Err((k, err)) => {
                let bad = indices[k];
                outcomes[bad].failure = Some(format!("failed while measured: {err}"));
                loaded = indices
                    .into_iter()
                    .zip(engines)
                    .filter(|(i, _)| *i != bad)
                    .collect();
            }
        }
    }
}

/// What `__count` runs under callgrind: one artifact, each case `ops` times.
#[derive(Serialize, Deserialize)]
pub struct CountSpec {
    pub so: PathBuf,
    pub cases: Vec<(Case, u64)>,
}

/// Called between cases; callgrind dumps its counts before each call
/// (`--dump-before`), so each dump holds one case.
#[unsafe(no_mangle)]
#[inline(never)]
pub extern "C" fn inlinelab_count_boundary(case: usize) {
    std::hint::black_box(case);
}

/// `__count SPEC` (internal): run by `callgrind.rs` under valgrind.
pub fn count(args: &[String]) -> Result<()> {
    let [spec] = args else {
        return Err(Error::usage(
            "__count is internal: __count SPEC",
            "run cargo xtask gate instead",
        ));
    };
    let spec: CountSpec = serde_json::from_slice(
        &std::fs::read(spec).map_err(|e| Error::failed(format!("{spec}: {e}")))?,
    )
    .map_err(|e| Error::failed(format!("{spec}: {e}")))?;
    let mut engine = SoCipher::load(&spec.so).map_err(|e| Error::failed(e.to_string()))?;
    for (k, (case, ops)) in spec.cases.iter().enumerate() {
        engine
            .set_key(case.mode, &vec![0xff; case.key_bytes])
            .map_err(|e| Error::failed(e.to_string()))?;
        let mut buf = vec![0xff; case.block_bytes];
        let mut iv = vec![0xff; engine.block_size()];
        inlinelab_count_boundary(k);
        for _ in 0..*ops {
            engine
                .crypt(case.mode, case.dir, &mut iv, &mut buf)
                .map_err(|e| Error::failed(e.to_string()))?;
        }
    }
    inlinelab_count_boundary(spec.cases.len());
    Ok(())
}
