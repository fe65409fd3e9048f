//! `cargo xtask __measure` (internal): loads the built artifacts, checks each
//! against the oracle, and times them interleaved, in a process of its own
//! so that an artifact that crashes takes down only this process. Before
//! each batch it writes the running engine's index to the marker file, so
//! that the parent (`child.rs`) can name the artifact that crashed. Also the
//! protocol between the two: [`Spec`] in, [`Outcome`] out.

use crate::error::{Error, Result};
use bench_harness::clock::Counter;
use bench_harness::crates::CrateCipher;
use bench_harness::crates::Kind;
use bench_harness::engine::{Engine, EngineError, Mode, timing_key};
use bench_harness::machine::Machine;
use bench_harness::registry::{self, CipherEntry};
use bench_harness::sampling::{self, Case, Plan, Samples};
use bench_harness::so::{self, SoCipher};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// `__measure SPEC OUT MARKER`.
#[derive(clap::Args)]
pub struct Args {
    /// What to measure (JSON, written by the parent).
    spec: PathBuf,
    /// Where to write the outcome (JSON).
    out: PathBuf,
    /// The file that names the engine running.
    marker: PathBuf,
}

/// What to measure, written by the parent.
#[derive(Serialize, Deserialize)]
pub struct Spec {
    pub cipher: String,
    /// A crate's cipher (`compare --crate`), which the registry does not
    /// hold: its entry is made here from what the parent learned.
    #[serde(default)]
    pub from_crate: Option<CrateCipher>,
    /// (name, path of the `.so`)
    pub engines: Vec<(String, PathBuf)>,
    pub cases: Vec<Case>,
    pub plan: Plan,
    /// Key sizes the correctness check uses.
    pub check_keys: Vec<usize>,
    /// What each engine (in `engines` order) does not run: a library peer
    /// runs only what its declaration offers. Missing or empty: every case.
    #[serde(default)]
    pub offers: Vec<Offers>,
    /// Load the artifacts last to first: the processes of a run alternate,
    /// so that of every two artifacts each is loaded first in half of them
    /// (`bench_harness::placement`).
    #[serde(default)]
    pub reversed: bool,
    /// Check each artifact against the oracle and time nothing (the check
    /// on an emulated CPU, `time/emulated.rs`): its cases name the modes
    /// checked, and the first keys each artifact as a run would.
    #[serde(default)]
    pub check_only: bool,
}

/// What one engine does not run: the cases (indices into the spec's
/// `cases`), never timed, and the modes and key sizes it is not checked
/// under.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Offers {
    pub not_cases: Vec<usize>,
    pub not_checked: Vec<(Mode, usize)>,
}

/// What happened, read by the parent.
#[derive(Serialize, Deserialize)]
pub struct Outcome {
    pub counter: Counter,
    /// The machine, read here (the CPU this process ran on, its SMT
    /// siblings, ...).
    pub machine: Machine,
    pub engines: Vec<EngineOutcome>,
    /// `[engine][case][round]`, for the measured engines, in order.
    pub samples: Samples,
}

#[derive(Serialize, Deserialize)]
pub struct EngineOutcome {
    pub name: String,
    /// The fingerprint of the file as it was loaded.
    pub loaded: Option<String>,
    pub state: EngineState,
}

/// How one engine fared.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum EngineState {
    /// Timed: it has samples.
    Measured,
    /// Failed to load, the oracle check, or while timed.
    Failed(String),
    /// It cannot run here: this CPU lacks an instruction it needs, or a
    /// library it calls could not be made ready (the reason says which).
    Unavailable(String),
}

impl EngineState {
    /// The state an engine error leaves, described with `context`.
    fn from_error(context: &str, e: &EngineError) -> EngineState {
        match e {
            EngineError::Unavailable(_) | EngineError::NotReady(_) => {
                EngineState::Unavailable(format!("{context}: {e}"))
            }
            _ => EngineState::Failed(format!("{context}: {e}")),
        }
    }
}

pub fn run(args: Args) -> Result<()> {
    let read = |e: &dyn std::fmt::Display| Error::failed(format!("{}: {e}", args.spec.display()));
    let bytes = std::fs::read(&args.spec).map_err(|e| read(&e))?;
    let spec: Spec = serde_json::from_slice(&bytes).map_err(|e| read(&e))?;
    let outcome = measure(&spec, &args.marker)?;
    let json = serde_json::to_vec(&outcome).map_err(|e| Error::failed(e.to_string()))?;
    crate::env::workspace::write_atomically(&args.out, &json)
}

fn measure(spec: &Spec, marker: &Path) -> Result<Outcome> {
    let mark = |i: usize| {
        let _ = std::fs::write(marker, i.to_string());
        bench_harness::fault::crash_point(&spec.engines[i].0);
    };
    let entry = match &spec.from_crate {
        Some(c) => CipherEntry::of_crate(c),
        None => registry::cipher(&spec.cipher).map_err(|e| Error::failed(e.0))?,
    };
    let counter = Counter::calibrate();
    eprintln!("    {}", counter.describe());
    let machine = Machine::read(&counter);
    eprintln!("    {}", machine.describe());
    // Loaded first to last or, in every other process, last to first, so
    // that which artifact the loader maps where is balanced over the
    // processes (`placement`); kept in spec order after.
    let mut outcomes: Vec<Option<EngineOutcome>> = spec.engines.iter().map(|_| None).collect();
    let mut loaded: Vec<(usize, Box<dyn Engine>)> = Vec::new();
    let order: Vec<usize> = if spec.reversed {
        (0..spec.engines.len()).rev().collect()
    } else {
        (0..spec.engines.len()).collect()
    };
    for i in order {
        let (name, path) = &spec.engines[i];
        mark(i);
        let fingerprint = so::fingerprint(path).ok();
        let offers = spec.offers.get(i).cloned().unwrap_or_default();
        let state = match load(entry, spec, &offers, path) {
            Ok(engine) => {
                loaded.push((i, Box::new(engine)));
                EngineState::Measured
            }
            Err(state) => state,
        };
        outcomes[i] = Some(EngineOutcome {
            name: name.clone(),
            loaded: fingerprint,
            state,
        });
    }
    loaded.sort_by_key(|(i, _)| *i);
    let mut outcomes: Vec<EngineOutcome> = outcomes.into_iter().flatten().collect();
    if spec.check_only {
        return Ok(Outcome {
            counter,
            machine,
            engines: outcomes,
            samples: Vec::new(),
        });
    }
    loop {
        let (indices, mut engines): (Vec<usize>, Vec<Box<dyn Engine>>) =
            std::mem::take(&mut loaded).into_iter().unzip();
        let not_offered: Vec<Vec<usize>> = (indices.iter())
            .map(|&i| (spec.offers.get(i)).map_or_else(Vec::new, |o| o.not_cases.clone()))
            .collect();
        let mut marker_fn = |k: usize| mark(indices[k]);
        let mut progress = |line: &str| eprintln!("    {line}");
        let timed = sampling::interleaved(
            &mut engines,
            &spec.cases,
            &not_offered,
            spec.plan,
            &counter,
            &mut marker_fn,
            &mut progress,
        );
        match timed {
            Ok(samples) => {
                return Ok(Outcome {
                    counter,
                    machine,
                    engines: outcomes,
                    samples,
                });
            }
            Err((k, err)) => {
                let bad = indices[k];
                outcomes[bad].state = EngineState::from_error("failed while measured", &err);
                loaded = indices
                    .into_iter()
                    .zip(engines)
                    .filter(|(i, _)| *i != bad)
                    .collect();
            }
        }
    }
}

/// Loads the artifact at `path`, sees that this CPU can run it, and checks
/// it against the oracle (in what it `offers`).
fn load(
    entry: &CipherEntry,
    spec: &Spec,
    offers: &Offers,
    path: &Path,
) -> std::result::Result<SoCipher, EngineState> {
    let mut engine = SoCipher::load(path).map_err(|e| EngineState::from_error("load", &e))?;
    // The artifact says what it holds: one of another cipher is no
    // measurement of this one.
    engine
        .check_holds(entry)
        .map_err(|e| EngineState::from_error("load", &e))?;
    // Keyed once as the first case it runs keys it: an engine this CPU
    // cannot run says so here, as a typed error.
    let first = (0..spec.cases.len()).find(|c| !offers.not_cases.contains(c));
    if let Some(c) = first.map(|c| &spec.cases[c])
        && let Err(e @ EngineError::Unavailable(_)) =
            engine.set_key(c.mode, &timing_key(c.mode, c.key_bytes))
    {
        return Err(EngineState::from_error("set_key", &e));
    }
    // A crate's oracle is the crate as published, an artifact.
    let crate_oracle = |c: &CrateCipher| {
        SoCipher::load(&c.oracle)
            .map_err(|e| EngineState::Failed(format!("the oracle {}: {e}", c.oracle.display())))
    };
    let mut oracle: Box<dyn Engine> = match (entry.oracle(), entry.from_crate) {
        (Some(make), _) => make(),
        (None, Some(c)) => Box::new(crate_oracle(c)?),
        (None, None) => return Err(EngineState::Failed(format!("{}: no oracle", entry.name))),
    };
    let mut modes: Vec<Mode> = Vec::new();
    for c in &spec.cases {
        if !modes.contains(&c.mode) {
            modes.push(c.mode);
        }
    }
    match entry.from_crate {
        // An AEAD's: its tag in the caller's hands, checked below
        // (`sampling::check_aead`, the timed path among it).
        Some(c) if c.primitive.kind() == Kind::Aead => Ok(()),
        // A crate's variant: every mode, every key length its type takes,
        // every block count from 1 to 40, both directions (a library
        // peer's, those it offers).
        Some(c) => sampling::check_each(
            &mut engine,
            oracle.as_mut(),
            &offered(c.checked(), offers),
            &bench_harness::crates::check_blocks(),
        ),
        None => sampling::check_each(
            &mut engine,
            oracle.as_mut(),
            &checked(spec, offers, &modes)?,
            &sampling::CHECK_BLOCKS,
        ),
    }
    .map_err(EngineState::Failed)?;
    // A crate's hash: streamed too, every length from 0 to 300 bytes and a
    // message in random chunks, against the crate as published; a MAC's so
    // under every key length it takes, and a universal hash's besides every
    // length streamed (its artifact buffers a partial block); a stream
    // cipher's every length in one call, both directions, under every key
    // length (each call a fresh keystream: nothing to stream); an AEAD's
    // likewise, with associated data, its tag checked and a tampered one
    // refused.
    if let Some(c) = entry.from_crate {
        let streamed = match c.primitive.kind() {
            Kind::BlockCipher => Ok(()),
            Kind::Hash => sampling::check_hash(&mut engine, &mut crate_oracle(c)?),
            Kind::Mac => sampling::check_mac(
                &mut engine,
                &mut crate_oracle(c)?,
                c.primitive.key_lengths(),
            ),
            Kind::UniversalHash => sampling::check_uhash(
                &mut engine,
                &mut crate_oracle(c)?,
                c.primitive.key_lengths(),
            ),
            Kind::Aead => sampling::check_aead(
                &mut engine,
                &mut crate_oracle(c)?,
                c.primitive.key_lengths(),
                c.primitive.iv_size().unwrap_or_default(),
                c.primitive.tag_size().unwrap_or_default(),
            ),
            Kind::StreamCipher => sampling::check_stream(
                &mut engine,
                &mut crate_oracle(c)?,
                c.primitive.key_lengths(),
                c.primitive.iv_size().unwrap_or_default(),
            ),
        };
        streamed.map_err(EngineState::Failed)?;
    }
    Ok(engine)
}

/// Of a crate's `checked` modes and key lengths, those `offers` does not
/// leave out (a library peer's: those it offers), each mode with any left.
fn offered(checked: Vec<(Mode, Vec<usize>)>, offers: &Offers) -> Vec<(Mode, Vec<usize>)> {
    (checked.into_iter())
        .map(|(m, mut keys)| {
            keys.retain(|&k| !offers.not_checked.contains(&(m, k)));
            (m, keys)
        })
        .filter(|(_, keys)| !keys.is_empty())
        .collect()
}

/// Each of `modes` with the key sizes an engine is checked under: the
/// spec's `check_keys` and the key sizes its cases time in that mode,
/// those it offers. A mode whose cases it runs is checked under at least
/// one key size, or the check fails (nothing it runs goes unchecked).
fn checked(
    spec: &Spec,
    offers: &Offers,
    modes: &[Mode],
) -> std::result::Result<Vec<(Mode, Vec<usize>)>, EngineState> {
    let mut out = Vec::new();
    for &mode in modes {
        let mut keys = spec.check_keys.clone();
        for c in spec.cases.iter().filter(|c| c.mode == mode) {
            if !keys.contains(&c.key_bytes) {
                keys.push(c.key_bytes);
            }
        }
        keys.retain(|&k| !offers.not_checked.contains(&(mode, k)));
        let runs = (spec.cases.iter().enumerate())
            .any(|(i, c)| c.mode == mode && !offers.not_cases.contains(&i));
        if runs && keys.is_empty() {
            return Err(EngineState::Failed(format!(
                "no key size to check {} under against the oracle",
                mode.name()
            )));
        }
        if !keys.is_empty() {
            out.push((mode, keys));
        }
    }
    Ok(out)
}
