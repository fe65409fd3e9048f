//! `cargo xtask __sample SPEC OUTCOME` (internal): where one artifact's CPU
//! time goes on this CPU. It loads the artifact and, for each case in turn,
//! runs the case's operation again and again while `sampler.rs` samples the
//! instruction pointer; it writes the addresses as taken, and where
//! `inlinelab_crypt` was loaded, so that the parent
//! (`child/which_ran.rs`) can map them to the artifact's functions. A
//! pass of its own, in a process of its own: never during timed rounds,
//! and the `SIGPROF` handler it installs dies with it. Its spec and outcome
//! are defined here.

use crate::child::sampler;
use crate::error::{Error, Result};
use bench_harness::engine::{Engine, EngineError};
use bench_harness::sampling::{Case, CaseKind};
use bench_harness::so::SoCipher;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::time::Duration;

/// `__sample SPEC OUTCOME`.
#[derive(clap::Args)]
pub struct Args {
    /// What to sample (JSON, written by the parent).
    spec: PathBuf,
    /// Where to write the samples (JSON).
    outcome: PathBuf,
}

/// What to sample: one artifact, in each case.
#[derive(Serialize, Deserialize)]
pub struct SampleSpec {
    pub so: PathBuf,
    pub cases: Vec<Case>,
    /// CPU time between two samples.
    pub interval: Duration,
    /// Samples enough for a case.
    pub enough: usize,
    /// The wall-clock time a case may take at most.
    pub limit: Duration,
}

/// What the child found.
#[derive(Serialize, Deserialize)]
pub struct SampleOutcome {
    /// Where `inlinelab_crypt` was loaded in the child: with its address in
    /// the file, the artifact's load base.
    pub crypt_address: u64,
    /// Per case of the spec, in order.
    pub cases: Vec<CaseSamples>,
}

/// One case's samples, or why there are none.
#[derive(Debug, Serialize, Deserialize)]
pub enum CaseSamples {
    Sampled {
        /// Instruction pointers, as taken.
        addresses: Vec<u64>,
        /// Taken but not kept.
        lost: u64,
    },
    Failed(String),
}

pub fn run(args: Args) -> Result<()> {
    let read = |e: &dyn std::fmt::Display| Error::failed(format!("{}: {e}", args.spec.display()));
    let bytes = std::fs::read(&args.spec).map_err(|e| read(&e))?;
    let spec: SampleSpec = serde_json::from_slice(&bytes).map_err(|e| read(&e))?;
    let mut engine = SoCipher::load(&spec.so).map_err(|e| Error::failed(e.to_string()))?;
    let outcome = SampleOutcome {
        crypt_address: engine.crypt_address() as u64,
        cases: (spec.cases.iter())
            .map(|c| sample_case(&mut engine, c, &spec))
            .collect(),
    };
    let json = serde_json::to_vec(&outcome).map_err(|e| Error::failed(e.to_string()))?;
    crate::env::workspace::write_atomically(&args.outcome, &json)
}

/// One case: keyed, run once, then sampled while it runs again and again.
fn sample_case(engine: &mut SoCipher, case: &Case, spec: &SampleSpec) -> CaseSamples {
    let key = vec![0xa5; case.key_bytes];
    let mut iv = vec![0x5a; engine.block_size()];
    let mut buf = vec![0x3c; case.block_bytes];
    let mut once = |engine: &mut SoCipher| -> std::result::Result<(), EngineError> {
        match case.kind {
            CaseKind::Crypt => engine.crypt(case.mode, case.dir, &mut iv, &mut buf),
            CaseKind::SetKey => engine.set_key(case.mode, &key),
        }
    };
    if let Err(e) = engine.set_key(case.mode, &key).and_then(|()| once(engine)) {
        return CaseSamples::Failed(e.to_string());
    }
    let mut work = || once(engine);
    match sampler::sample(spec.interval, spec.enough, spec.limit, &mut work) {
        Ok(s) => CaseSamples::Sampled {
            addresses: s.addresses,
            lost: s.lost,
        },
        Err(why) => CaseSamples::Failed(why),
    }
}
