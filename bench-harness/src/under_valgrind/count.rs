//! `under-valgrind count SPEC OUTCOME MARKER`: what xtask's
//! `count/callgrind.rs` runs under callgrind: every artifact of the spec in
//! turn, loaded into this one process, each case once after a warm-up,
//! bracketed by two marker functions: callgrind zeroes its counts on
//! entering the first ([`inlinelab_count_start`]) and dumps them on
//! entering the second ([`inlinelab_count_end`]), so that each (artifact,
//! case) is one dump of exactly the instructions executed inside
//! `inlinelab_set_key` and `inlinelab_crypt` (the only functions
//! collected). The spec and the outcome are written as JSON between the two.

use super::{at, failed_case};
use crate::engine::{self, Engine, EngineError};
use crate::fault;
use crate::sampling::{Case, CaseKind};
use crate::so::SoCipher;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The artifacts, each counted in every case.
#[derive(Serialize, Deserialize)]
pub struct CountSpec {
    /// `(name, path)` of each artifact, in the order they are counted.
    pub artifacts: Vec<(String, PathBuf)>,
    pub cases: Vec<Case>,
}

/// What became of each artifact of the spec, in spec order.
#[derive(Serialize, Deserialize)]
pub struct CountOutcome {
    pub artifacts: Vec<Counted>,
}

/// What became of one artifact.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum Counted {
    /// Loaded and run: one dump per case, in case order.
    Dumped,
    /// Loaded, but a case failed: still one dump per case (the cases after
    /// the failure empty), and the error.
    DumpedThenFailed(String),
    /// Not loaded (no dumps): this CPU cannot run it.
    Unavailable(String),
    /// Not loaded (no dumps): why.
    NotLoaded(String),
}

impl Counted {
    /// Whether it produced one dump per case.
    pub fn dumped(&self) -> bool {
        matches!(self, Counted::Dumped | Counted::DumpedThenFailed(_))
    }
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

/// Counts every artifact of the spec at `spec`, writing what became of each
/// to `outcome` and, before each is loaded, its index to `marker` (so that
/// the parent can tell which one crashed the process).
pub fn run(spec: &Path, outcome: &Path, marker: &Path) -> Result<(), String> {
    let bytes = std::fs::read(spec).map_err(|e| at(spec, e))?;
    let spec: CountSpec = serde_json::from_slice(&bytes).map_err(|e| at(spec, e))?;
    let mut out = CountOutcome {
        artifacts: Vec::new(),
    };
    for (i, (name, so)) in spec.artifacts.iter().enumerate() {
        std::fs::write(marker, i.to_string()).map_err(|e| at(marker, e))?;
        fault::crash_point(name);
        let counted = match SoCipher::load(so) {
            Err(EngineError::Unavailable(why)) => Counted::Unavailable(why),
            Err(e) => Counted::NotLoaded(e.to_string()),
            Ok(mut engine) => match count_cases(&mut engine, &spec.cases) {
                Ok(()) => Counted::Dumped,
                Err(why) => Counted::DumpedThenFailed(why),
            },
        };
        out.artifacts.push(counted);
    }
    let json = serde_json::to_vec(&out).map_err(|e| e.to_string())?;
    std::fs::write(outcome, json).map_err(|e| at(outcome, e))
}

/// Every case of one loaded artifact, one dump each (empty ones from the
/// first error on, so that the dumps stay in step with the cases).
fn count_cases(engine: &mut SoCipher, cases: &[Case]) -> std::result::Result<(), String> {
    let mut error = None;
    for (k, case) in cases.iter().enumerate() {
        let mut key = Aligned::new(case.key_bytes);
        key.get()
            .copy_from_slice(&engine::timing_key(case.mode, case.key_bytes));
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
            error.get_or_insert_with(|| failed_case(case, e));
            false
        }
    }
}
