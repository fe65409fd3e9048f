//! The one interleaving loop that precise mode (`tcrypt --precise`) and
//! `cargo xtask compare` time with, and the contention probe that decides
//! which of its batches count ([`QUIET`]).
//!
//! # The loop
//!
//! [`interleave`] times a grid of engines × cases (precise mode: one engine,
//! its block sizes or key sizes; compare: every built artifact, every case).
//! Each cell is first warmed up and sized: the number of operations is
//! doubled until a run of them lasts 1/[`SIZING_SHARE`] of
//! [`Schedule::batch`] ticks, and its batch is that run scaled to a whole
//! batch (whole operations, at least one run's worth). Then round after
//! round, for every case, every engine runs one batch, one after the other;
//! the order of the cases and of the engines is rotated each round, so that
//! drift and order effects hit all of them alike. Rounds go on until there
//! are [`Schedule::rounds`] quiet batches of every engine in every case
//! ([`enough`]), or until [`Schedule::patience`] ticks have passed since
//! that many rounds were run (with no patience, exactly that many rounds).
//!
//! # The probe: sampling throughout a batch
//!
//! A batch is not timed in one piece. Its operations are split into chunks of
//! whole operations lasting about [`WORK_PER_PROBE`] reference bursts (about
//! 100 µs at 3 GHz; one operation when one takes longer), each chunk between
//! two counter readings; the batch's ticks are the sum of its chunks' ticks,
//! each with the readings' own cost removed. Before the first chunk and after
//! every chunk, outside those ticks, the reference loop runs
//! ([`clock::probe`], bursts of [`clock::PROBE_ITERATIONS`] one-cycle
//! iterations) until the bursts after a chunk have lasted at least
//! 1/[`WORK_PER_PROBE`] of that chunk's ticks. The bursts' rate over the
//! whole batch (their iterations over their ticks) is the batch's
//! [`Batch::reference`]: the share of the core the batch had, which a busy
//! SMT sibling lowers for as long as it runs, while an interrupt inside one
//! short burst barely moves it (the slowest single burst would: on this
//! kind of machine nearly every batch of some ms has one burst hit by a
//! timer tick, and would never be quiet). The share of the batch's span
//! (chunks plus probes) that the bursts took is its [`Batch::observed`].
//!
//! What this buys, by construction rather than by luck:
//!
//! - The probes observe at least [`OBSERVED_AT_LEAST`] (1/16 = 6.25%) of every
//!   batch, whatever the length of one operation. The earlier design (one
//!   burst of about 6 µs before and one after a batch of 4 to 8 ms) observed
//!   under 0.3%.
//! - A loss of capacity while the thread runs (a busy SMT sibling, a clock
//!   that drops) that lasts longer than one chunk and one probe (about
//!   110 µs at 3 GHz) cannot fall between two probes; a briefer one (an
//!   interrupt) is caught with a probability of about the observed share,
//!   and costs the timed work in about the same proportion.
//!
//! What the probes cannot see is time during which the thread did not run at
//! all: when the scheduler gives the core to another task, the counter keeps
//! ticking inside whichever chunk was running, and the probes on either side
//! run at full speed. So each batch also reads the thread's run-queue wait
//! (`run_delay`, the second field of `/proc/thread-self/schedstat`) before its
//! first probe and after its last ([`Batch::waited_ns`]); a batch during which
//! the thread waited at all is not quiet. Where that file cannot be read the
//! clause is unknown and only the probes decide. Time a hypervisor takes a
//! virtual CPU away is in neither count, and is seen only when it falls in a
//! probe.
//!
//! What it costs: the probes add about 1/[`WORK_PER_PROBE`] (6-7%) to a
//! run's wall time, but nothing to the timed ticks; the two reads of
//! `schedstat` happen outside the timed ticks too. Every chunk adds a pair of
//! counter readings, whose median cost is subtracted and whose jitter (a few
//! ticks in a chunk of some 200,000) stays below 0.01%. The reference loop
//! touches no memory, so the chunk after a probe finds the caches as the
//! chunk before left them; it keeps the core busy, so the clock does not drop
//! in between. Shorter chunks would catch briefer slowdowns, at the cost of
//! more readings; a larger observed share would cost wall time in
//! proportion.

use crate::clock::{self, Counter};
use crate::stats;
use serde::{Deserialize, Serialize};

/// The quiet criterion's threshold, the one precise mode and `compare` both
/// use. A batch is quiet when its reference probes, taken together (their
/// iterations over their ticks), ran at at least this fraction of the run's
/// full-capacity level ([`level`]: the [`LEVEL_QUANTILE`] quantile of its
/// batches' probe rates, not the fastest single burst), and its thread never
/// waited on a run queue during it (where the kernel says: see
/// [`is_quiet`]). A median is over an engine's quiet batches; a ratio pairs
/// the rounds in which both of its engines' batches were quiet. The
/// reference loop retires one iteration per core cycle on a core at full
/// capacity, so probes below 95% mean the core lost more than 5% of its
/// cycles during the batch: to a busy SMT sibling (which costs 30 to 50%),
/// an interrupt, or a clock that dropped by more than 5%.
pub const QUIET: f64 = 0.95;

/// A chunk of timed work lasts about this many reference bursts, and the
/// probes after it at least 1/`WORK_PER_PROBE` of its ticks.
pub const WORK_PER_PROBE: u64 = 15;

/// The least share of a batch's span that its probes observe:
/// 1/(1 + [`WORK_PER_PROBE`]).
pub const OBSERVED_AT_LEAST: f64 = 1.0 / (1 + WORK_PER_PROBE) as f64;

/// The criterion: a batch whose probes ran at `probe_rate` of the
/// run's full-capacity level, and whose thread waited `waited_ns` on a run queue
/// (`None`: unknown), is quiet when `probe_rate >= QUIET` and it did not
/// wait. [`crate::sampling::Sample`] holds both, so a report's readers can
/// apply it again.
pub fn is_quiet(probe_rate: f64, waited_ns: Option<u64>) -> bool {
    probe_rate >= QUIET && waited_ns.is_none_or(|w| w == 0)
}

/// The criterion in words, with its values, for reports to print.
pub fn criterion() -> String {
    format!(
        "a batch is quiet when the reference probes during it ran, taken together (their iterations over their ticks), at >= {}% of the run's full-capacity level (the {}th percentile of its batches' probe rates), and the thread never waited on a run queue (run_delay of /proc/thread-self/schedstat, where readable); the probes run between chunks of about {WORK_PER_PROBE} probe lengths of timed work and observe at least {:.2}% of each batch",
        QUIET * 100.0,
        LEVEL_QUANTILE * 100.0,
        OBSERVED_AT_LEAST * 100.0
    )
}

/// The thread's run-queue wait so far, in nanoseconds: the second field of
/// `/proc/thread-self/schedstat`; `None` where it cannot be read.
pub fn run_delay_ns() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    text.split_whitespace().nth(1)?.parse().ok()
}

/// One timed batch of one engine on one case.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Batch {
    /// Counter ticks per operation (the readings' own cost removed, the
    /// probes not included).
    pub per_op: f64,
    pub ops: u64,
    /// The reference bursts' rate over the batch (their iterations over
    /// their ticks), in iterations per tick
    /// (1.0 where there is no reference loop).
    pub reference: f64,
    /// Reference bursts run during the batch (0 where there is no reference
    /// loop).
    pub probes: u32,
    /// The share of the batch's span (its timed chunks plus its probes) that
    /// the probes took: at least [`OBSERVED_AT_LEAST`] where there is a
    /// reference loop, 0 where there is none.
    pub observed: f64,
    /// Nanoseconds the thread waited on a run queue during the batch (see
    /// the module doc); `None` where the kernel does not say.
    pub waited_ns: Option<u64>,
    /// Whether it met the criterion ([`is_quiet`]) against the run's best
    /// rate.
    pub quiet: bool,
}

/// How long interleaved batches run, in counter ticks.
#[derive(Clone, Copy, Debug)]
pub struct Schedule {
    /// Quiet rounds wanted in every case.
    pub rounds: usize,
    /// Ticks of timed work one batch lasts, about: it is sized from a run
    /// of 1/[`SIZING_SHARE`] of it.
    pub batch: u64,
    /// Ticks of timed work one chunk lasts at most, unless one operation
    /// takes longer: [`WORK_PER_PROBE`] reference bursts.
    pub chunk: u64,
    /// The counter reading's own cost, subtracted from each chunk.
    pub overhead: u64,
    /// Ticks the run may go on past `rounds` rounds to collect quiet ones.
    pub patience: u64,
    /// The best reference rate known before the run (from calibration).
    pub reference_best: f64,
}

impl Schedule {
    pub fn new(
        counter: &Counter,
        rounds: usize,
        batch_seconds: f64,
        patience_seconds: f64,
    ) -> Schedule {
        let burst = clock::PROBE_ITERATIONS as f64 / counter.reference_best.max(f64::MIN_POSITIVE);
        Schedule {
            rounds,
            batch: (batch_seconds * counter.hz) as u64,
            chunk: ((WORK_PER_PROBE as f64 * burst) as u64).max(1),
            overhead: counter.read_overhead,
            patience: (patience_seconds * counter.hz) as u64,
            reference_best: counter.reference_best,
        }
    }
}

/// A cell is sized from a run of operations lasting this fraction of a
/// batch, scaled up: a longer sizing run (it used to double until a whole
/// batch, 1.5 to 3 batches of work in all) costs a run of short batches
/// nearly as much wall time as the timed batches themselves, and tells
/// the count no better than to a few percent, which the batch does not
/// need.
pub const SIZING_SHARE: u64 = 8;

/// The most operations one batch runs.
const MAX_COUNT: u64 = 1 << 30;

/// How many quiet batches the run has, where it has fewest: the least over
/// engines and cases of quiet batches (a cell the workload does not run,
/// [`Workload::runs`], has none and is not counted).
pub fn enough(batches: &[Vec<Vec<Batch>>]) -> usize {
    batches
        .iter()
        .flatten()
        .filter(|rounds| !rounds.is_empty())
        .map(|rounds| rounds.iter().filter(|b| b.quiet).count())
        .min()
        .unwrap_or(0)
}

/// What [`interleave`] times: engines `0..engines` on cases `0..cases`.
pub trait Workload {
    type Error;
    /// Called before each batch (and before sizing it), outside the timed
    /// ticks: key the engine, say which one is about to run.
    fn prepare(&mut self, engine: usize, case: usize) -> Result<(), Self::Error> {
        let _ = (engine, case);
        Ok(())
    }
    /// `count` operations of `engine` on `case`.
    fn run(&mut self, engine: usize, case: usize, count: u64) -> Result<(), Self::Error>;
    /// Whether `engine` runs `case` at all: a cell it does not run is
    /// never sized, prepared or timed, and has no batches.
    fn runs(&self, engine: usize, case: usize) -> bool {
        let _ = (engine, case);
        true
    }
}

/// The batches of a run, `[engine][case][round]`, the best single reference
/// burst seen in it, and its full-capacity level, which they were
/// classified against.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Batches {
    pub batches: Vec<Vec<Vec<Batch>>>,
    pub best: f64,
    /// What the probes ran at when the run had the core: the
    /// [`LEVEL_QUANTILE`] quantile of its batches' probe rates ([`level`]).
    pub level: f64,
}

/// The quantile of a run's batch probe rates taken as its full-capacity
/// level. Not the fastest single burst: the host's clock moves (the core
/// clock estimate of one run to the next ranges from 2.0 to 3.0 GHz here),
/// and a burst caught at a moment of boost would make every batch of a run
/// at the ordinary clock look contended; the fastest tenth of the run's own
/// batches is what the core gives when no one else is on it, in this run.
pub const LEVEL_QUANTILE: f64 = 0.9;

/// The full-capacity level of `batches` (see [`LEVEL_QUANTILE`]); 1 when
/// there are none.
pub fn level(batches: &[Vec<Vec<Batch>>]) -> f64 {
    let mut rates: Vec<f64> = batches
        .iter()
        .flatten()
        .flatten()
        .map(|b| b.reference)
        .filter(|r| r.is_finite() && *r > 0.0)
        .collect();
    if rates.is_empty() {
        return 1.0;
    }
    rates.sort_by(f64::total_cmp);
    let i = ((rates.len() - 1) as f64 * LEVEL_QUANTILE).round() as usize;
    rates[i.min(rates.len() - 1)]
}

/// Times every engine on every case, interleaved (see the module doc):
/// returns every batch, classified against the best reference rate of the
/// whole run. `progress(rounds run, quiet rounds where fewest, as
/// [`enough`] counts them)` is called after every round.
pub fn interleave<W: Workload + ?Sized>(
    engines: usize,
    cases: usize,
    s: &Schedule,
    w: &mut W,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Batches, W::Error> {
    let mut run = Batches {
        batches: vec![vec![Vec::new(); cases]; engines],
        best: s.reference_best,
        level: 1.0,
    };
    if engines == 0 || cases == 0 {
        return Ok(run);
    }
    // Warm up and size every cell: (operations per batch, per chunk).
    let mut sizes = vec![vec![(1u64, 1u64); cases]; engines];
    for (e, row) in sizes.iter_mut().enumerate() {
        for (c, size) in row.iter_mut().enumerate() {
            if !w.runs(e, c) {
                continue;
            }
            w.prepare(e, c)?;
            let mut count = 1u64;
            let ticks = loop {
                let t0 = clock::read();
                w.run(e, c, count)?;
                let ticks = (clock::read() - t0).saturating_sub(s.overhead);
                if ticks >= s.batch / SIZING_SHARE || count >= MAX_COUNT {
                    break ticks;
                }
                count *= 2;
            };
            let per_tick = count as f64 / ticks.max(1) as f64;
            let batch = ((per_tick * s.batch as f64).ceil() as u64).clamp(count, MAX_COUNT);
            let per_chunk = (per_tick * s.chunk as f64) as u64;
            *size = (batch, per_chunk.clamp(1, batch));
        }
    }
    let mut deadline = None;
    for round in 0.. {
        for i in 0..cases {
            let c = (i + round) % cases;
            for k in 0..engines {
                let e = (k + round) % engines;
                if !w.runs(e, c) {
                    continue;
                }
                w.prepare(e, c)?;
                let (count, per_chunk) = sizes[e][c];
                let batch = timed_batch(count, per_chunk, s.overhead, &mut run.best, |n| {
                    w.run(e, c, n)
                })?;
                run.batches[e][c].push(batch);
            }
        }
        run.level = level(&run.batches);
        classify(&mut run.batches, run.level);
        let quiet = enough(&run.batches);
        progress(round + 1, quiet);
        if round + 1 >= s.rounds {
            let end = *deadline.get_or_insert(clock::read() + s.patience);
            if quiet >= s.rounds || clock::read() >= end {
                break;
            }
        }
    }
    Ok(run)
}

/// Marks each batch quiet or not against the run's `level` (see
/// [`is_quiet`]).
pub fn classify(batches: &mut [Vec<Vec<Batch>>], level: f64) {
    for b in batches.iter_mut().flatten().flatten() {
        b.quiet = is_quiet(b.reference / level, b.waited_ns);
    }
}

/// The rounds of case `c` in which every engine's batch was quiet.
pub fn quiet_rounds(batches: &[Vec<Vec<Batch>>], c: usize) -> Vec<usize> {
    let every: Vec<usize> = (0..batches.len()).collect();
    quiet_rounds_of(batches, &every, c)
}

/// The rounds of case `c` in which the batches of every engine in
/// `engines` that runs it were quiet (one that does not has no batches).
fn quiet_rounds_of(batches: &[Vec<Vec<Batch>>], engines: &[usize], c: usize) -> Vec<usize> {
    let engines: Vec<usize> = (engines.iter().copied())
        .filter(|&e| !batches[e][c].is_empty())
        .collect();
    let rounds = engines
        .iter()
        .map(|&e| batches[e][c].len())
        .min()
        .unwrap_or(0);
    (0..rounds)
        .filter(|&r| engines.iter().all(|&e| batches[e][c][r].quiet))
        .collect()
}

/// The probes of one batch so far.
struct Probes {
    iterations: u64,
    ticks: u64,
    count: u32,
}

impl Probes {
    /// Bursts until they have lasted at least `need` ticks (at least one
    /// burst); `best` keeps the best rate seen.
    fn cover(&mut self, need: u64, best: &mut f64) {
        let mut spent = 0u64;
        loop {
            let Some(p) = clock::probe() else { return };
            self.iterations += clock::PROBE_ITERATIONS;
            *best = best.max(p.rate);
            self.ticks += p.ticks;
            self.count += 1;
            spent += p.ticks;
            if spent >= need {
                return;
            }
        }
    }
}

/// One batch of `count` operations in chunks of `per_chunk` (`run(n)` runs
/// `n` of them), probed before the first chunk and after every chunk.
fn timed_batch<E>(
    count: u64,
    per_chunk: u64,
    overhead: u64,
    best: &mut f64,
    mut run: impl FnMut(u64) -> Result<(), E>,
) -> Result<Batch, E> {
    let mut probes = Probes {
        iterations: 0,
        ticks: 0,
        count: 0,
    };
    let waited_before = run_delay_ns();
    probes.cover(0, best);
    let (mut ticks, mut done) = (0u64, 0u64);
    while done < count {
        let n = per_chunk.max(1).min(count - done);
        let t0 = clock::read();
        run(n)?;
        let chunk = (clock::read() - t0).saturating_sub(overhead);
        ticks += chunk;
        done += n;
        probes.cover(chunk.div_ceil(WORK_PER_PROBE), best);
    }
    let waited_ns = match (waited_before, run_delay_ns()) {
        (Some(a), Some(b)) => Some(b.saturating_sub(a)),
        _ => None,
    };
    let span = ticks + probes.ticks;
    Ok(Batch {
        per_op: ticks as f64 / count.max(1) as f64,
        ops: count,
        reference: if probes.ticks == 0 {
            1.0
        } else {
            probes.iterations as f64 / probes.ticks as f64
        },
        probes: probes.count,
        observed: if span == 0 {
            0.0
        } else {
            probes.ticks as f64 / span as f64
        },
        waited_ns,
        quiet: false,
    })
}

/// Whether a run's quiet batches look uncontended: at full capacity the
/// reference loop's rate barely varies, while a shared core makes it jitter,
/// so a spread of more than 3% means the whole run may have been contended.
pub fn looks_uncontended(batches: &[Vec<Batch>]) -> bool {
    let rates: Vec<f64> = batches
        .iter()
        .flatten()
        .filter(|b| b.quiet)
        .map(|b| b.reference)
        .collect();
    stats::spread(&rates) <= 0.03
}

/// A figure comes from the quiet batches (or rounds) when there are at
/// least this many, else from all of them and is marked uncertain: a median
/// and a spread need three. The one constant for the harness and compare's
/// report.
pub const MIN_QUIET: usize = 3;

/// The quiet batches' values, or all of them when fewer than [`MIN_QUIET`]
/// are quiet (then the result is marked uncertain by the caller).
pub fn quiet_values(batches: &[Batch]) -> (Vec<f64>, bool) {
    let quiet: Vec<f64> = batches
        .iter()
        .filter(|b| b.quiet)
        .map(|b| b.per_op)
        .collect();
    if quiet.len() >= MIN_QUIET {
        (quiet, true)
    } else {
        (batches.iter().map(|b| b.per_op).collect(), false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn batch(reference: f64) -> Batch {
        Batch {
            per_op: 100.0,
            ops: 10,
            reference,
            probes: 20,
            observed: 0.07,
            waited_ns: Some(0),
            quiet: false,
        }
    }

    #[test]
    fn the_criterion_is_the_constant() {
        assert!(is_quiet(QUIET, Some(0)));
        assert!(is_quiet(1.0, None));
        assert!(!is_quiet(QUIET - 1e-9, Some(0)));
        assert!(!is_quiet(1.0, Some(1)));
        assert!(criterion().contains(">= 95% of the run's full-capacity level"));
        assert!(criterion().contains("at least 6.25% of each batch"));
        assert_eq!(OBSERVED_AT_LEAST, 0.0625);
    }

    /// Two engines, one case, three rounds: a single probe below the
    /// threshold in engine 1's batch of round 1 makes round 1 not quiet,
    /// for both engines, and leaves the other rounds quiet.
    #[test]
    fn a_slow_probe_makes_its_round_not_quiet() {
        let best = 0.7;
        let mut batches = vec![
            vec![vec![batch(0.7), batch(0.69), batch(0.68)]],
            vec![vec![batch(0.7), batch(0.95 * 0.7 - 1e-6), batch(0.7)]],
        ];
        classify(&mut batches, best);
        assert!(batches[0][0].iter().all(|b| b.quiet));
        assert!(!batches[1][0][1].quiet);
        assert_eq!(quiet_rounds(&batches, 0), vec![0, 2]);
        // A half-speed phase (a busy SMT sibling) in engine 0 too.
        batches[0][0][2].reference = 0.35;
        classify(&mut batches, best);
        assert_eq!(quiet_rounds(&batches, 0), vec![0]);
        // Classification is against the run's best, not the batch's own.
        classify(&mut batches, 0.36);
        assert_eq!(quiet_rounds(&batches, 0), vec![0, 1, 2]);
        // A batch whose thread waited on a run queue is not quiet, however
        // fast its probes ran; one the kernel says nothing about is judged
        // by its probes.
        batches[0][0][0].waited_ns = Some(25_000);
        batches[1][0][2].waited_ns = None;
        classify(&mut batches, 0.36);
        assert_eq!(quiet_rounds(&batches, 0), vec![1, 2]);
    }

    /// A workload that only counts its operations: the loop runs every
    /// engine on every case, whole batches, in at least `rounds` rounds, and
    /// (with a reference loop) probes each batch more than once and observes
    /// at least the designed share. No timing is asserted.
    #[test]
    fn the_loop_covers_the_grid_and_probes_each_batch() {
        struct Count {
            ops: Vec<Vec<u64>>,
            prepared: usize,
        }
        impl Workload for Count {
            type Error = ();
            fn prepare(&mut self, _: usize, _: usize) -> Result<(), ()> {
                self.prepared += 1;
                Ok(())
            }
            fn run(&mut self, e: usize, c: usize, n: u64) -> Result<(), ()> {
                for _ in 0..n {
                    std::hint::black_box(e + c);
                }
                self.ops[e][c] += n;
                Ok(())
            }
        }
        let counter = Counter {
            kind: "tsc".into(),
            hz: 1e9,
            read_overhead: 0,
            core_hz: None,
            reference_best: clock::reference_rate().unwrap_or(1.0),
        };
        let s = Schedule::new(&counter, 3, 0.000_2, 0.0);
        let mut w = Count {
            ops: vec![vec![0; 2]; 2],
            prepared: 0,
        };
        let mut seen = Vec::new();
        let run = interleave(2, 2, &s, &mut w, &mut |r, q| seen.push((r, q))).unwrap();
        assert!(seen.len() >= 3);
        assert_eq!(
            seen.iter().map(|s| s.0).collect::<Vec<_>>(),
            (1..=seen.len()).collect::<Vec<_>>()
        );
        for e in 0..2 {
            for c in 0..2 {
                let batches = &run.batches[e][c];
                assert_eq!(batches.len(), seen.len());
                for b in batches {
                    assert!(b.ops >= 1);
                    if cfg!(target_arch = "x86_64") {
                        assert!(b.probes >= 2, "{b:?}");
                        assert!(b.observed >= OBSERVED_AT_LEAST * (1.0 - 1e-9), "{b:?}");
                        assert!(b.reference <= run.best);
                    }
                }
            }
        }
        // Sizing plus every batch was prepared.
        assert_eq!(w.prepared, 4 + 4 * seen.len());
        assert!(run.best >= counter.reference_best);
    }

    /// Each engine's own quiet batches count, in the case and engine with
    /// fewest.
    #[test]
    fn enough_counts_the_fewest_quiet_batches() {
        let b = |q: &[bool]| -> Vec<Batch> {
            q.iter()
                .map(|&quiet| Batch {
                    quiet,
                    ..batch(1.0)
                })
                .collect()
        };
        // [engine][case][round]
        let batches = vec![
            vec![b(&[true, true, false, true]), b(&[true, true, true, true])],
            vec![b(&[true, false, true, true]), b(&[true, true, true, false])],
            vec![b(&[false, false, false, false]), b(&[false; 4])],
        ];
        // Engine 2 is never quiet.
        assert_eq!(enough(&batches), 0);
        // Engines 0 and 1 have three quiet batches where they have fewest.
        assert_eq!(enough(&batches[..2]), 3);
    }

    #[test]
    fn batches_round_trip_through_json() {
        let run = Batches {
            batches: vec![vec![vec![batch(0.5)]]],
            best: 0.7,
            level: 0.5,
        };
        let json = serde_json::to_string(&run).unwrap();
        assert_eq!(serde_json::from_str::<Batches>(&json).unwrap(), run);
    }
}
