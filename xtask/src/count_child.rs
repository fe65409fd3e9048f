//! `cargo xtask __count SPEC` (internal): what `callgrind.rs` runs under
//! valgrind: one artifact, each case a fixed number of times, with a call to
//! a boundary function between cases so that callgrind dumps one count per
//! case. Also its spec, [`CountSpec`].

use crate::error::{Error, Result};
use bench_harness::compare::Case;
use bench_harness::engine::Engine;
use bench_harness::so::SoCipher;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// `__count SPEC`.
#[derive(clap::Args)]
pub struct Args {
    /// What to count (JSON, written by `callgrind.rs`).
    spec: PathBuf,
}

/// One artifact, each case `ops` times.
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

pub fn run(args: Args) -> Result<()> {
    let read = |e: &dyn std::fmt::Display| Error::failed(format!("{}: {e}", args.spec.display()));
    let bytes = std::fs::read(&args.spec).map_err(|e| read(&e))?;
    let spec: CountSpec = serde_json::from_slice(&bytes).map_err(|e| read(&e))?;
    let fail = |e: bench_harness::engine::EngineError| Error::failed(e.to_string());
    let mut engine = SoCipher::load(&spec.so).map_err(fail)?;
    for (k, (case, ops)) in spec.cases.iter().enumerate() {
        engine
            .set_key(case.mode, &vec![0xff; case.key_bytes])
            .map_err(fail)?;
        let mut buf = vec![0xff; case.block_bytes];
        let mut iv = vec![0xff; engine.block_size()];
        inlinelab_count_boundary(k);
        for _ in 0..*ops {
            engine
                .crypt(case.mode, case.dir, &mut iv, &mut buf)
                .map_err(fail)?;
        }
    }
    inlinelab_count_boundary(spec.cases.len());
    Ok(())
}
