//! tcrypt's two timing modes, and a precise one, over any [`Engine`] or
//! [`HashEngine`]. Each test prints its tcrypt line as it finishes and is
//! kept as a [`Measurement`] for `--json`.

use crate::clock::{self, Counter};
use crate::engine::{Dir, Engine, EngineError, HashEngine, Mode, timing_key};
use crate::format;
use crate::interleave::{self, OBSERVED_AT_LEAST, QUIET, Schedule, Workload};
use crate::stats::{self, Line};
use serde::{Deserialize, Serialize};
use std::hint::black_box;

/// tcrypt's block sizes since 2020 (each rounded up to the cipher's block).
pub const DEFAULT_SIZES: [usize; 7] = [16, 64, 256, 1024, 1420, 4096, 8192];

/// The kernel's hash template: (block length, bytes per update).
pub const HASH_TEMPLATE: [(usize, usize); 22] = [
    (16, 16),
    (64, 16),
    (64, 64),
    (256, 16),
    (256, 64),
    (256, 256),
    (1024, 16),
    (1024, 256),
    (1024, 1024),
    (2048, 16),
    (2048, 256),
    (2048, 1024),
    (2048, 2048),
    (4096, 16),
    (4096, 256),
    (4096, 1024),
    (4096, 4096),
    (8192, 16),
    (8192, 256),
    (8192, 1024),
    (8192, 4096),
    (8192, 8192),
];

/// How a test is timed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Timing {
    /// tcrypt's default: 4 warm-up operations, then 8 each bracketed by the
    /// cycle counter; prints their rounded mean.
    Cycles,
    /// tcrypt's `sec=N`: whole operations until N seconds have passed.
    Seconds(f64),
    /// Sizes interleaved over `rounds` rounds, each a batch of operations
    /// long enough to swamp the counter, probed for contention throughout
    /// ([`crate::interleave`], the loop `compare` uses too); medians of the
    /// quiet batches ([`crate::interleave::QUIET`]), and a least-squares line
    /// of cycles against bytes whose slope is cycles/byte and whose intercept
    /// is the per-call overhead (libgcrypt bench-slope).
    Precise { rounds: usize },
}

impl Timing {
    pub fn name(&self) -> &'static str {
        match self {
            Timing::Cycles => "cycles",
            Timing::Seconds(_) => "seconds",
            Timing::Precise { .. } => "precise",
        }
    }
}

/// One test's result, as `--json` writes it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Measurement {
    /// Kernel name: `ecb(cast6)`.
    pub alg: String,
    /// Variant name: `never`; `rustcrypto` for the peer.
    pub variant: String,
    /// Driver name: `cast6-never`.
    pub driver: String,
    /// `encrypt`, `decrypt`, `digest` for a hash, or `setkey` for key setup.
    pub dir: String,
    pub key_bits: usize,
    /// Bytes per operation; 0 for key setup.
    pub block_bytes: usize,
    /// Bytes per update (hashes only).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub update_bytes: Option<usize>,
    /// `cycles`, `seconds` or `precise`.
    pub timing: String,
    /// Operations timed.
    pub operations: u64,
    /// Time they took.
    pub seconds: f64,
    /// Counter ticks per operation (see the counter's description).
    pub cycles: f64,
    /// Operations per second.
    #[serde(default)]
    pub ops_per_sec: f64,
    /// 0 where `block_bytes` is 0 (key setup).
    pub bytes_per_sec: f64,
    /// 0 where `block_bytes` is 0 (key setup).
    pub cycles_per_byte: f64,
    /// Half the interquartile range over the median, for precise mode.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub spread: Option<f64>,
}

/// The least-squares line of a precise run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Fit {
    pub alg: String,
    pub variant: String,
    pub dir: String,
    pub key_bits: usize,
    /// Slope, in counter ticks per byte.
    pub cycles_per_byte: f64,
    pub ns_per_byte: f64,
    /// Intercept: the cost of a call apart from its bytes, in ticks.
    pub overhead_cycles: f64,
    /// Spread of the slopes fitted to each round alone.
    pub spread: f64,
    pub r2: f64,
    pub rounds: usize,
}

/// What one test is: for headers, lines and records.
pub struct Test<'a> {
    pub alg: &'a str,
    pub variant: &'a str,
    pub dir: &'a str,
}

/// One size's timing: ticks per operation, operations timed, and in
/// precise mode the spread and each round's value.
struct Timed {
    ticks: f64,
    ops: u64,
    spread: Option<f64>,
    /// Precise mode: each round's value, `None` where that batch was not quiet.
    rounds: Vec<Option<f64>>,
}

/// A measuring session: the counter, the mode, the output so far.
pub struct Session<'a> {
    pub counter: &'a Counter,
    pub timing: Timing,
    /// Precise mode's batch length in seconds.
    pub batch_seconds: f64,
    pub measurements: Vec<Measurement>,
    pub fits: Vec<Fit>,
    out: &'a mut dyn FnMut(&str),
}

impl<'a> Session<'a> {
    pub fn new(counter: &'a Counter, timing: Timing, out: &'a mut dyn FnMut(&str)) -> Self {
        Session {
            counter,
            timing,
            batch_seconds: 0.002,
            measurements: Vec::new(),
            fits: Vec::new(),
            out,
        }
    }

    /// Prints a line of the session's output.
    pub fn say(&mut self, line: &str) {
        (self.out)(line);
    }

    /// Every key size and block size of one cipher algorithm in one
    /// direction, numbered as tcrypt numbers them (not reset per key).
    pub fn cipher(
        &mut self,
        t: &Test<'_>,
        engine: &mut dyn Engine,
        mode: Mode,
        dir: Dir,
        keys: &[usize],
        sizes: &[usize],
    ) -> Result<(), EngineError> {
        (self.out)(&format::cipher_header(t.alg, engine.name(), dir));
        let driver = engine.name().to_string();
        let bs = engine.block_size();
        let mut test = 0;
        for &key in keys {
            engine.set_key(mode, &timing_key(mode, key))?;
            let mut bufs: Vec<Vec<u8>> = sizes.iter().map(|&s| vec![0xff; s]).collect();
            let mut ivs: Vec<Vec<u8>> = sizes.iter().map(|_| vec![0xff; bs]).collect();
            let mut op = |i: usize| engine.crypt(mode, dir, &mut ivs[i], &mut bufs[i]);
            let timed = self.time_all(sizes.len(), &mut op)?;
            for (&size, r) in sizes.iter().zip(&timed) {
                (self.out)(&match self.timing {
                    Timing::Seconds(secs) => format::cipher_seconds(test, key, size, r.ops, secs),
                    _ => format::cipher_cycles(test, key, size, r.ticks.round() as u64),
                });
                self.record(t, &driver, key * 8, size, None, r);
                test += 1;
            }
            self.fit(t, key * 8, sizes, &timed);
        }
        Ok(())
    }

    /// Key setup at every key size: one operation is [`Engine::set_key`] of
    /// a key of 0xff bytes, replacing the key set by the operation before
    /// (for a loaded artifact, `inlinelab_clear` of the old context, which
    /// zeroizes it, then `inlinelab_set_key`), in `mode`. One line per key
    /// size, numbered from 0; precise mode interleaves the key sizes and
    /// prints medians, with no line fitted (there are no bytes).
    pub fn set_key(
        &mut self,
        t: &Test<'_>,
        engine: &mut dyn Engine,
        mode: Mode,
        keys: &[usize],
    ) -> Result<(), EngineError> {
        (self.out)(&format::setkey_header(t.alg, engine.name()));
        let driver = engine.name().to_string();
        let key_bufs: Vec<Vec<u8>> = keys.iter().map(|&k| timing_key(mode, k)).collect();
        let mut op = |i: usize| engine.set_key(mode, &key_bufs[i]);
        let timed = self.time_all(keys.len(), &mut op)?;
        for (test, (&key, r)) in keys.iter().zip(&timed).enumerate() {
            (self.out)(&match self.timing {
                Timing::Seconds(secs) => format::setkey_seconds(test, key, r.ops, secs),
                _ => format::setkey_cycles(test, key, r.ticks.round() as u64),
            });
            self.record(t, &driver, key * 8, 0, None, r);
        }
        Ok(())
    }

    /// A hash over `template` (block length, bytes per update): one digest
    /// call where the two are equal, else init, the updates, and final.
    pub fn hash(
        &mut self,
        t: &Test<'_>,
        engine: &mut dyn HashEngine,
        template: &[(usize, usize)],
    ) -> Result<(), EngineError> {
        (self.out)(&format::hash_header(t.alg, engine.name()));
        let driver = engine.name().to_string();
        let data: Vec<Vec<u8>> = template.iter().map(|&(b, _)| vec![0xff; b]).collect();
        let mut op = |i: usize| -> Result<(), EngineError> {
            let (block, update) = template[i];
            let digest = if update == block {
                engine.digest(&data[i])?
            } else {
                engine.init()?;
                for chunk in data[i].chunks(update) {
                    engine.update(chunk)?;
                }
                engine.finish()?
            };
            black_box(digest);
            Ok(())
        };
        let timed = self.time_all(template.len(), &mut op)?;
        for (i, (&(block, update), r)) in template.iter().zip(&timed).enumerate() {
            (self.out)(&match self.timing {
                Timing::Seconds(secs) => format::hash_seconds(i, block, update, r.ops, secs),
                _ => format::hash_cycles(i, block, update, (r.ticks * 8.0).round() as u64),
            });
            self.record(t, &driver, 0, block, Some(update), r);
        }
        // The line is fitted to the one-call digests, where bytes per update
        // do not change the shape of the work.
        let (sizes, timed): (Vec<usize>, Vec<Timed>) = template
            .iter()
            .zip(timed)
            .filter(|((b, u), _)| b == u)
            .map(|((b, _), r)| (*b, r))
            .unzip();
        self.fit(t, 0, &sizes, &timed);
        Ok(())
    }

    /// Times `op(i)` for every `i < n` in the session's mode.
    // Long: one match over tcrypt's three timing modes (cycles, seconds,
    // precise), sharing the warm-up and the single-figure constructor.
    fn time_all(
        &mut self,
        n: usize,
        op: &mut dyn FnMut(usize) -> Result<(), EngineError>,
    ) -> Result<Vec<Timed>, EngineError> {
        let overhead = self.counter.read_overhead;
        if self.timing == Timing::Cycles && n > 0 {
            // Outside tcrypt's protocol (4 warm-up operations per test): 2 ms
            // of the first test's operation, so that the first test of a run
            // does not pay for cold caches and predictors the others do not.
            let end = clock::read() + (0.002 * self.counter.hz) as u64;
            while clock::read() < end {
                op(0)?;
            }
        }
        let single = |ticks: f64, ops: u64| Timed {
            ticks,
            ops,
            spread: None,
            rounds: Vec::new(),
        };
        match self.timing {
            Timing::Cycles => (0..n)
                .map(|i| {
                    for _ in 0..4 {
                        op(i)?;
                    }
                    let mut sum = 0u64;
                    for _ in 0..8 {
                        let t0 = clock::read();
                        op(i)?;
                        let t1 = clock::read();
                        sum += (t1 - t0).saturating_sub(overhead);
                    }
                    Ok(single(sum as f64 / 8.0, 8))
                })
                .collect(),
            Timing::Seconds(secs) => (0..n)
                .map(|i| {
                    let start = clock::read();
                    let deadline = start + (secs * self.counter.hz) as u64;
                    let mut ops = 0u64;
                    loop {
                        op(i)?;
                        ops += 1;
                        if clock::read() >= deadline {
                            break;
                        }
                    }
                    Ok(single((clock::read() - start) as f64 / ops as f64, ops))
                })
                .collect(),
            Timing::Precise { rounds } => {
                let schedule = Schedule::new(self.counter, rounds, self.batch_seconds, 5.0);
                let run = interleave::interleave(1, n, &schedule, &mut EachOp(op), &mut |_, _| {})?;
                let samples = run.batches.into_iter().next().unwrap_or_default();
                let total: usize = samples.iter().map(Vec::len).sum();
                let quiet: usize = samples.iter().flatten().filter(|b| b.quiet).count();
                let observed = samples
                    .iter()
                    .flatten()
                    .map(|b| b.observed)
                    .fold(f64::INFINITY, f64::min);
                let short = samples.iter().any(|s| !interleave::quiet_values(s).1);
                let doubt = if short {
                    "; too few for some sizes, which use every batch: figures uncertain"
                } else if !interleave::looks_uncontended(&samples) {
                    "; the reference loop jittered even then, so the core may have been shared throughout: figures uncertain"
                } else {
                    ""
                };
                let probed = if observed.is_finite() && observed > 0.0 {
                    format!(
                        "probes observed at least {:.1}% of every batch (designed: {:.2}%)",
                        observed * 100.0,
                        OBSERVED_AT_LEAST * 100.0
                    )
                } else {
                    "no reference loop on this CPU, so no batch was probed".to_string()
                };
                (self.out)(&format!(
                    "contention: {quiet} of {total} batches ran quiet (every probe during the batch at >= {}% of the fastest reference rate, and no wait on a run queue; {probed}) and are used{doubt}",
                    QUIET * 100.0
                ));
                Ok(samples
                    .iter()
                    .map(|s| {
                        let (values, _) = interleave::quiet_values(s);
                        Timed {
                            ticks: stats::median(&values),
                            ops: s.iter().map(|b| b.ops).sum(),
                            spread: Some(stats::spread(&values)),
                            rounds: s.iter().map(|b| b.quiet.then_some(b.per_op)).collect(),
                        }
                    })
                    .collect())
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn record(
        &mut self,
        t: &Test<'_>,
        driver: &str,
        key_bits: usize,
        block: usize,
        update: Option<usize>,
        r: &Timed,
    ) {
        let per_op_seconds = self.counter.seconds(r.ticks);
        self.measurements.push(Measurement {
            alg: t.alg.to_string(),
            variant: t.variant.to_string(),
            driver: driver.to_string(),
            dir: t.dir.to_string(),
            key_bits,
            block_bytes: block,
            update_bytes: update,
            timing: self.timing.name().to_string(),
            operations: r.ops,
            seconds: per_op_seconds * r.ops as f64,
            cycles: r.ticks,
            ops_per_sec: 1.0 / per_op_seconds,
            bytes_per_sec: if block == 0 {
                0.0
            } else {
                block as f64 / per_op_seconds
            },
            cycles_per_byte: if block == 0 {
                0.0
            } else {
                r.ticks / block as f64
            },
            spread: r.spread,
        });
    }

    /// Precise mode: fits ticks against bytes over the medians and over each
    /// round alone (for the slope's spread), and prints the line.
    fn fit(&mut self, t: &Test<'_>, key_bits: usize, sizes: &[usize], timed: &[Timed]) {
        let Timing::Precise { rounds } = self.timing else {
            return;
        };
        let xs: Vec<f64> = sizes.iter().map(|&s| s as f64).collect();
        let medians: Vec<f64> = timed.iter().map(|r| r.ticks).collect();
        let Some(line) = stats::least_squares(&xs, &medians) else {
            (self.out)("fit: needs at least two different sizes");
            return;
        };
        // A line per round, over the rounds quiet at every size.
        let common = timed.iter().map(|r| r.rounds.len()).min().unwrap_or(0);
        let slopes: Vec<f64> = (0..common)
            .filter_map(|k| {
                let ys: Vec<f64> = timed.iter().map(|r| r.rounds[k]).collect::<Option<_>>()?;
                stats::least_squares(&xs, &ys).map(|l: Line| l.slope)
            })
            .collect();
        let spread = stats::spread(&slopes);
        let ns_per_byte = self.counter.seconds(line.slope) * 1e9;
        let rate = if line.slope > 0.0 {
            format!("{:.1} MB/s", 1e3 / ns_per_byte)
        } else {
            "no per-byte cost measurable".to_string()
        };
        (self.out)(&format!(
            "fit: {:.3} cycles/byte ({:.3} ns/byte, {rate}), per-call overhead {:.0} cycles, slope spread \u{b1}{:.2}% over {rounds} rounds, r\u{b2} {:.6}",
            line.slope,
            ns_per_byte,
            line.intercept,
            spread * 100.0,
            line.r2
        ));
        self.fits.push(Fit {
            alg: t.alg.to_string(),
            variant: t.variant.to_string(),
            dir: t.dir.to_string(),
            key_bits,
            cycles_per_byte: line.slope,
            ns_per_byte,
            overhead_cycles: line.intercept,
            spread,
            r2: line.r2,
            rounds,
        });
    }
}

/// Precise mode's workload: one engine, `op(i)` one operation of size (or
/// key size) `i`.
struct EachOp<'a>(&'a mut dyn FnMut(usize) -> Result<(), EngineError>);

impl Workload for EachOp<'_> {
    type Error = EngineError;

    fn run(&mut self, _: usize, case: usize, count: u64) -> Result<(), EngineError> {
        for _ in 0..count {
            (self.0)(case)?;
        }
        Ok(())
    }
}
