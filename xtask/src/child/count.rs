//! `cargo xtask __count SPEC OUTCOME MARKER` (internal): what `callgrind.rs`
//! runs under valgrind: every artifact of the spec in turn, loaded into this
//! one process, each case once after a warm-up, bracketed by two marker
//! functions: callgrind zeroes its counts on entering the first
//! ([`inlinelab_count_start`]) and dumps them on entering the second
//! ([`inlinelab_count_end`]), so that each (artifact, case) is one dump of
//! exactly the instructions executed inside `inlinelab_set_key` and
//! `inlinelab_crypt` (the only functions collected). Its spec and
//! outcome are [`crate::count::spec`]'s.

use crate::count::spec::{CountOutcome, CountSpec, Counted};
use crate::env::fault;
use crate::error::{Error, Result};
use bench_harness::engine::{Engine, EngineError};
use bench_harness::sampling::{Case, CaseKind};
use bench_harness::so::SoCipher;
use std::path::PathBuf;

/// `__count SPEC OUTCOME MARKER`.
#[derive(clap::Args)]
pub struct Args {
    /// What to count (JSON, written by `callgrind.rs`).
    spec: PathBuf,
    /// Where to write what became of each artifact (JSON).
    outcome: PathBuf,
    /// Rewritten with the index of the artifact about to be loaded, so that
    /// the parent can tell which one crashed the process.
    marker: PathBuf,
}

/// Entered just before the counted operation: callgrind zeroes its counts
/// (`--zero-before`), dropping the key setup and warm-up of the case.
#[unsafe(no_mangle)]
#[inline(never)]
pub extern "C" fn inlinelab_count_start(case: usize) {
    std::hint::black_box(case);
}

/// Entered just after the counted operation: callgrind dumps its counts
/// (`--dump-before`), one dump per (artifact, case).
#[unsafe(no_mangle)]
#[inline(never)]
pub extern "C" fn inlinelab_count_end(case: usize) {
    std::hint::black_box(case);
}

/// `len` bytes of 0xff at an address aligned to 64, so that what the code
/// under count does with its buffers never depends on where the allocator
/// put them (memcpy and friends take other paths at other alignments).
struct Aligned {
    storage: Vec<u8>,
    start: usize,
    len: usize,
}

impl Aligned {
    fn new(len: usize) -> Aligned {
        let storage = vec![0xff; len + 64];
        let start = storage.as_ptr().align_offset(64);
        Aligned {
            storage,
            start,
            len,
        }
    }

    fn get(&mut self) -> &mut [u8] {
        &mut self.storage[self.start..self.start + self.len]
    }
}

pub fn run(args: Args) -> Result<()> {
    let read = |e: &dyn std::fmt::Display| Error::failed(format!("{}: {e}", args.spec.display()));
    let bytes = std::fs::read(&args.spec).map_err(|e| read(&e))?;
    let spec: CountSpec = serde_json::from_slice(&bytes).map_err(|e| read(&e))?;
    let mut outcome = CountOutcome {
        artifacts: Vec::new(),
    };
    for (i, (name, so)) in spec.artifacts.iter().enumerate() {
        std::fs::write(&args.marker, i.to_string())
            .map_err(|e| Error::failed(format!("{}: {e}", args.marker.display())))?;
        fault::crash_point(name);
        let counted = match SoCipher::load(so) {
            Err(EngineError::Unavailable(why)) => Counted::Unavailable(why),
            Err(e) => Counted::NotLoaded(e.to_string()),
            Ok(mut engine) => match count_cases(&mut engine, &spec.cases) {
                Ok(()) => Counted::Dumped,
                Err(why) => Counted::DumpedThenFailed(why),
            },
        };
        outcome.artifacts.push(counted);
    }
    let json = serde_json::to_vec(&outcome).map_err(|e| Error::failed(e.to_string()))?;
    std::fs::write(&args.outcome, json)
        .map_err(|e| Error::failed(format!("{}: {e}", args.outcome.display())))
}

/// Every case of one loaded artifact, one dump each (empty ones from the
/// first error on, so that the dumps stay in step with the cases).
fn count_cases(engine: &mut SoCipher, cases: &[Case]) -> std::result::Result<(), String> {
    let mut error = None;
    for (k, case) in cases.iter().enumerate() {
        let mut key = Aligned::new(case.key_bytes);
        let mut iv = Aligned::new(engine.block_size());
        let mut buf = Aligned::new(case.block_bytes);
        // Keyed and warmed up: the first call also resolves the artifact's
        // lazily bound symbols, which is not the operation's cost.
        let ready = error.is_none()
            && note(
                &mut error,
                case,
                warm_up(engine, case, &mut key, &mut iv, &mut buf),
            );
        inlinelab_count_start(k);
        let done = if ready {
            match case.kind {
                CaseKind::Crypt => engine.crypt(case.mode, case.dir, iv.get(), buf.get()),
                CaseKind::SetKey => engine.set_key(case.mode, key.get()),
            }
        } else {
            Ok(())
        };
        inlinelab_count_end(k);
        note(&mut error, case, done);
    }
    error.map_or(Ok(()), Err)
}

/// Keys the engine and runs the case's operation once.
fn warm_up(
    engine: &mut SoCipher,
    case: &Case,
    key: &mut Aligned,
    iv: &mut Aligned,
    buf: &mut Aligned,
) -> std::result::Result<(), EngineError> {
    engine.set_key(case.mode, key.get())?;
    match case.kind {
        CaseKind::Crypt => engine.crypt(case.mode, case.dir, iv.get(), buf.get()),
        CaseKind::SetKey => engine.set_key(case.mode, key.get()),
    }
}

/// Keeps the first error, naming its case; whether `result` was a success.
fn note(
    error: &mut Option<String>,
    case: &Case,
    result: std::result::Result<(), EngineError>,
) -> bool {
    match result {
        Ok(()) => true,
        Err(e) => {
            error.get_or_insert_with(|| super::failed_case(case, e));
            false
        }
    }
}
