//! What `cargo xtask compare` measures with: every engine (a variant's or a
//! peer's built `.so`) checked against an oracle, then timed interleaved,
//! round-robin per case, so that machine drift hits all of them alike.

use crate::clock::{self, Counter};
use crate::engine::{Dir, Engine, EngineError, Mode};
use crate::measure::{Batch, batch_count, bracketed};
use serde::{Deserialize, Serialize};

/// One measured configuration.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Case {
    pub mode: Mode,
    pub dir: Dir,
    pub key_bytes: usize,
    pub block_bytes: usize,
}

impl Case {
    /// `ecb(cast6)` for this case's mode (`crc32c` for a digest).
    pub fn alg(&self, cipher: &str) -> String {
        self.mode.alg(cipher)
    }

    /// `encrypt`, `decrypt`, or `digest`.
    pub fn dir_name(&self) -> &'static str {
        match self.mode {
            Mode::Digest => "digest",
            _ => self.dir.name(),
        }
    }
}

/// Checks `engine` against `oracle` in each of `modes` (ECB and CBC for a
/// cipher, digest for a checksum), both directions, on seeded data under
/// each key size; the first difference is the error.
pub fn check_against(
    engine: &mut dyn Engine,
    oracle: &mut dyn Engine,
    key_sizes: &[usize],
    modes: &[Mode],
) -> Result<(), String> {
    let bs = oracle.block_size();
    if engine.block_size() != bs {
        return Err(format!(
            "block size {} where {} has {bs}",
            engine.block_size(),
            oracle.name()
        ));
    }
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed as u8
    };
    for &k in key_sizes {
        let key: Vec<u8> = (0..k).map(|_| next()).collect();
        for &mode in modes {
            engine
                .set_key(mode, &key)
                .map_err(|e| format!("set_key: {e}"))?;
            oracle
                .set_key(mode, &key)
                .map_err(|e| format!("oracle set_key: {e}"))?;
            for dir in Dir::BOTH {
                for blocks in [1, 3, 64, 1027] {
                    let data: Vec<u8> = (0..bs * blocks).map(|_| next()).collect();
                    let iv: Vec<u8> = (0..bs).map(|_| next()).collect();
                    let (mut got, mut want) = (data.clone(), data);
                    let (mut iv1, mut iv2) = (iv.clone(), iv);
                    engine
                        .crypt(mode, dir, &mut iv1, &mut got)
                        .map_err(|e| format!("{} {}: {e}", mode.name(), dir.name()))?;
                    oracle
                        .crypt(mode, dir, &mut iv2, &mut want)
                        .map_err(|e| format!("oracle: {e}"))?;
                    if got != want || iv1 != iv2 {
                        return Err(format!(
                            "wrong output: {} {} of {} bytes under a {k}-byte key differs from {}",
                            mode.name(),
                            dir.name(),
                            bs * blocks,
                            oracle.name()
                        ));
                    }
                }
            }
        }
    }
    Ok(())
}

/// How long to measure.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
pub struct Plan {
    /// Rounds wanted in which every engine's batch of a case ran quiet.
    pub rounds: usize,
    /// Seconds one batch lasts at least.
    pub batch_seconds: f64,
    /// Seconds the run may go on past `rounds` rounds to collect quiet ones.
    pub patience_seconds: f64,
    /// A batch is quiet when the reference bursts around it reach this
    /// fraction of the best rate (see [`crate::measure::QUIET`]). Paired
    /// ratios already cancel what hits a whole round, so this only needs to
    /// reject the half-speed phases of a shared core.
    pub quiet: f64,
}

/// Every engine's batches: `[engine][case][round]`.
pub type Samples = Vec<Vec<Vec<Batch>>>;

/// Times every engine on every case, interleaved: for each round, for each
/// case, each engine in turn (the order rotated each round), one batch.
/// Before every batch `marker(engine index)` is called, so that a caller can
/// tell which engine was running if the process dies. On an engine error,
/// returns that engine's index with it.
pub fn interleaved(
    engines: &mut [Box<dyn Engine>],
    cases: &[Case],
    plan: Plan,
    counter: &Counter,
    marker: &mut dyn FnMut(usize),
    progress: &mut dyn FnMut(&str),
) -> Result<Samples, (usize, EngineError)> {
    let n = engines.len();
    if n == 0 || cases.is_empty() {
        return Ok(vec![vec![Vec::new(); cases.len()]; n]);
    }
    let batch = (plan.batch_seconds * counter.hz) as u64;
    let mut bufs: Vec<Vec<Vec<u8>>> = engines
        .iter()
        .map(|_| cases.iter().map(|c| vec![0xff; c.block_bytes]).collect())
        .collect();
    let mut ivs: Vec<Vec<u8>> = engines.iter().map(|e| vec![0xff; e.block_size()]).collect();
    let mut run = |e: usize, c: usize, count: u64, engines: &mut [Box<dyn Engine>]| {
        let case = cases[c];
        marker(e);
        engines[e]
            .set_key(case.mode, &vec![0xff; case.key_bytes])
            .map_err(|err| (e, err))?;
        let t0 = clock::read();
        for _ in 0..count {
            engines[e]
                .crypt(case.mode, case.dir, &mut ivs[e], &mut bufs[e][c])
                .map_err(|err| (e, err))?;
        }
        Ok::<u64, (usize, EngineError)>((clock::read() - t0).saturating_sub(counter.read_overhead))
    };
    let mut counts = vec![vec![1u64; cases.len()]; n];
    for (e, row) in counts.iter_mut().enumerate() {
        for (c, count) in row.iter_mut().enumerate() {
            *count = batch_count(batch, |k| run(e, c, k, engines))?;
        }
    }
    let mut best = counter.reference_best;
    let mut out: Samples = vec![vec![Vec::new(); cases.len()]; n];
    let mut deadline = None;
    let mut next_progress = 0;
    for round in 0.. {
        for c in 0..cases.len() {
            for k in 0..n {
                let e = (k + round) % n;
                let batch = bracketed(counts[e][c], &mut best, |k| run(e, c, k, engines))?;
                out[e][c].push(batch);
            }
        }
        for b in out.iter_mut().flatten().flatten() {
            b.quiet = b.reference >= plan.quiet * best;
        }
        let quiet_rounds = (0..cases.len())
            .map(|c| quiet_rounds(&out, c).len())
            .min()
            .unwrap_or(0);
        if clock::read() >= next_progress {
            next_progress = clock::read() + counter.hz as u64;
            progress(&format!(
                "round {}: {quiet_rounds} of {} quiet rounds in every case",
                round + 1,
                plan.rounds
            ));
        }
        if round + 1 >= plan.rounds {
            let end = *deadline
                .get_or_insert(clock::read() + (plan.patience_seconds * counter.hz) as u64);
            if quiet_rounds >= plan.rounds || clock::read() >= end {
                break;
            }
        }
    }
    Ok(out)
}

/// The rounds of case `c` in which every engine's batch ran quiet.
pub fn quiet_rounds(samples: &Samples, c: usize) -> Vec<usize> {
    let rounds = samples.iter().map(|e| e[c].len()).min().unwrap_or(0);
    (0..rounds)
        .filter(|&r| samples.iter().all(|e| e[c][r].quiet))
        .collect()
}
