//! The samples of a run and the statistics over them. A batch is quiet or
//! not on its own (the harness's criterion, `interleave::is_quiet`); an
//! engine's median in a case is over its own quiet batches, and a ratio of
//! two engines pairs the rounds in which both ran quiet, each falling back
//! to every round when fewer than [`MIN_QUIET_ROUNDS`] were (and the case is
//! then uncertain for that figure). Asking every one of twenty or more
//! engines to be quiet in the same round would leave almost no round on a
//! shared machine; a pair needs only its own two batches, which ran
//! milliseconds apart. The rounds come from several measuring processes in
//! turn, and a ratio's interval is at least as wide as the spread between
//! them: one process fixes for its life where the code and the buffers sit,
//! which no number of its rounds averages out. The report keeps every round
//! ([`Timings::samples`]), so that each figure here can be computed again
//! from it ([`crate::report::rounds_used`], [`crate::report::pair_rounds`],
//! [`crate::report::process_means`]).

use crate::child::measure_child::Outcome;
use crate::report::paired::{Paired, overall};
use crate::report::{self, MIN_QUIET_ROUNDS, Operation, Sample};
use bench_harness::compare::{Case, Samples};
use bench_harness::stats::{self, Ratio};

pub struct Timings {
    pub outcome: Option<Outcome>,
    /// The contender index of each measured engine, in sample order.
    pub measured: Vec<usize>,
    /// The cases that process bytes (not key setup): the overall means.
    pub crypt: Vec<usize>,
    /// Cases whose certainty figure (see [`Timings::mark_uncertain`]) had
    /// fewer than [`MIN_QUIET_ROUNDS`] quiet rounds.
    pub uncertain: Vec<usize>,
    /// Batches in every case, and quiet ones.
    pub total_rounds: usize,
    pub quiet_total: usize,
    /// How many measuring processes the rounds came from.
    pub processes: usize,
    /// `[case][round]`: the process each round ran in.
    pub process: Vec<Vec<usize>>,
}

impl Timings {
    /// Nothing timed.
    pub fn empty(cases: usize) -> Timings {
        Timings {
            outcome: None,
            measured: Vec::new(),
            crypt: (0..cases).collect(),
            uncertain: Vec::new(),
            total_rounds: 0,
            quiet_total: 0,
            processes: 0,
            process: vec![Vec::new(); cases],
        }
    }

    /// For a run that timed nothing (`gate --no-time`): the contenders
    /// `live` count as measured, with no samples.
    pub fn unmeasured(live: Vec<usize>, cases: usize) -> Timings {
        Timings {
            measured: live,
            ..Timings::empty(cases)
        }
    }

    /// From the outcomes of the measuring processes, one after the other,
    /// each with the contender index of each engine it has samples of, in
    /// sample order: an engine counts as measured when every process has
    /// samples of it, and its rounds are those of every process in turn
    /// (each process's rounds of a case cut to the fewest any of its
    /// engines ran, so that round `r` is the same round for all).
    pub fn new(runs: Vec<(Outcome, Vec<usize>)>, cases: &[Case]) -> Timings {
        let mut t = Timings::empty(cases.len());
        t.crypt = (0..cases.len())
            .filter(|&c| Operation::of(&cases[c]).is_crypt())
            .collect();
        let Some(first) = runs.first() else {
            return t;
        };
        t.measured = (first.1.iter().copied())
            .filter(|i| runs.iter().all(|(_, m)| m.contains(i)))
            .collect();
        t.processes = runs.len();
        let mut samples: Samples = vec![vec![Vec::new(); cases.len()]; t.measured.len()];
        t.process = vec![Vec::new(); cases.len()];
        for (p, (outcome, measured)) in runs.iter().enumerate() {
            let at: Vec<usize> = (t.measured.iter())
                .filter_map(|i| measured.iter().position(|m| m == i))
                .collect();
            for (c, of_case) in t.process.iter_mut().enumerate() {
                let rounds = (at.iter().map(|&k| outcome.samples[k][c].len()))
                    .min()
                    .unwrap_or(0);
                for (k, &from) in at.iter().enumerate() {
                    samples[k][c].extend_from_slice(&outcome.samples[from][c][..rounds]);
                }
                of_case.extend(std::iter::repeat_n(p, rounds));
            }
        }
        let mut runs = runs;
        let mut merged = runs.swap_remove(0).0;
        merged.samples = samples;
        t.outcome = Some(merged);
        for k in 0..t.measured.len() {
            for c in 0..cases.len() {
                let s = t.samples(k, c);
                t.total_rounds += s.len();
                t.quiet_total += s.iter().filter(|s| s.quiet).count();
            }
        }
        t
    }

    /// Marks uncertain the cases in which engines `a` and `b` (sample
    /// indices; the reference and its A/A control) had fewer than
    /// [`MIN_QUIET_ROUNDS`] rounds quiet for both: the pair that measures
    /// the run's own noise.
    pub fn mark_uncertain(&mut self, a: usize, b: usize) {
        let all = self.outcome.as_ref().map_or(0, |o| o.samples[a].len());
        self.uncertain = (0..all)
            .filter(|&c| {
                let (sa, sb) = (self.samples(a, c), self.samples(b, c));
                report::quiet_pairs(&sa, &sb).len() < MIN_QUIET_ROUNDS
            })
            .collect();
    }

    /// The sample index of contender `i`, if it was measured.
    pub fn index(&self, i: usize) -> Option<usize> {
        self.measured.iter().position(|&m| m == i)
    }

    /// Whether anything was timed.
    pub fn timed(&self) -> bool {
        self.outcome.is_some()
    }

    pub fn hz(&self) -> f64 {
        self.outcome.as_ref().map_or(1.0, |o| o.counter.hz)
    }

    /// Every round of engine `k` in case `c`, as the report keeps it.
    pub fn samples(&self, k: usize, c: usize) -> Vec<Sample> {
        let Some(o) = &self.outcome else {
            return Vec::new();
        };
        (o.samples[k][c].iter().zip(&self.process[c]))
            .map(|(s, &process)| Sample {
                ticks_per_op: report::round_ticks(s.ticks_per_op),
                quiet: s.quiet,
                process,
            })
            .collect()
    }

    /// Ticks per operation of engine `k` in case `c`, over its rounds used.
    pub fn ticks(&self, k: usize, c: usize) -> Vec<f64> {
        let s = self.samples(k, c);
        report::rounds_used(&s)
            .into_iter()
            .map(|r| s[r].ticks_per_op)
            .collect()
    }

    /// The paired speeds (operations per tick) of engines `b` and `a` in
    /// case `c`, over the rounds used for the pair, and each process's own
    /// figure ([`report::process_means`]).
    fn paired(&self, a: usize, b: usize, c: usize) -> Paired {
        Paired::of(&self.samples(a, c), &self.samples(b, c))
    }

    /// Speed of engine `a` over engine `b` in case `c`: the paired rounds'
    /// interval, widened to the spread between processes.
    pub fn ratio(&self, a: usize, b: usize, c: usize) -> Option<Ratio> {
        let p = self.paired(a, b, c);
        let r = stats::paired_ratio(&p.base, &p.other)?;
        let means: Vec<f64> = p.processes.iter().map(|&(_, m)| m).collect();
        Some(r.across_processes(&means))
    }

    /// Speed of engine `a` over engine `b` over the crypt cases: the mean
    /// of the per-case mean log ratios, with a t interval (see [`overall`]).
    pub fn overall(&self, a: usize, b: usize) -> Option<Ratio> {
        let per_case: Vec<Paired> = self.crypt.iter().map(|&c| self.paired(a, b, c)).collect();
        overall(&per_case)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::child::measure_child::{EngineOutcome, EngineState};
    use bench_harness::clock::Counter;
    use bench_harness::compare::Sample as Raw;
    use bench_harness::engine::Dir as CaseDir;
    use bench_harness::engine::Mode;

    /// One process's outcome: engines with `rounds[engine]` rounds of one
    /// case, each round's ticks `100 * (engine + 1) + process`.
    fn outcome(process: usize, rounds: &[usize]) -> Outcome {
        let raw = |engine: usize| Raw {
            ticks_per_op: (100 * (engine + 1) + process) as f64,
            quiet: true,
            probe_rate: 1.0,
            observed: 0.1,
            waited_ns: None,
        };
        Outcome {
            counter: Counter {
                kind: "tsc".into(),
                hz: 1e9,
                read_overhead: 0,
                core_hz: None,
                reference_best: 1.0,
            },
            machine: crate::tests::fixture::machine(),
            engines: (rounds.iter())
                .map(|_| EngineOutcome {
                    name: String::new(),
                    loaded: None,
                    state: EngineState::Measured,
                })
                .collect(),
            samples: (rounds.iter().enumerate())
                .map(|(k, &n)| vec![(0..n).map(|_| raw(k)).collect()])
                .collect(),
        }
    }

    #[test]
    fn processes_follow_one_another_engine_by_engine() {
        let case = Case::crypt(Mode::Ecb, CaseDir::Encrypt, 16, 16);
        // Contenders 4, 7 and 9 in the first process; 9 left out of the
        // second, which ran 7 in the other order; the first process's
        // rounds cut to the fewest any of its engines ran (3).
        let runs = vec![
            (outcome(0, &[4, 3, 5]), vec![4, 7, 9]),
            (outcome(1, &[2, 2]), vec![7, 4]),
        ];
        let t = Timings::new(runs, &[case]);
        assert_eq!(t.measured, vec![4, 7]);
        assert_eq!(t.processes, 2);
        assert_eq!(t.process[0], vec![0, 0, 0, 1, 1]);
        let s = t.samples(1, 0);
        let ticks: Vec<f64> = s.iter().map(|s| s.ticks_per_op).collect();
        assert_eq!(ticks, vec![200.0, 200.0, 200.0, 101.0, 101.0]);
        assert_eq!(t.total_rounds, 10);
    }
}
