//! The samples of a run and the statistics over them, by the one rule of
//! [`crate::decide::paired`]: each engine's level in each measuring process
//! (a low quantile of its rounds there), each process's figure for a pair,
//! the processes combined robustly. The rounds come from several measuring
//! processes: the first pass, where every engine ran in every process, and
//! the racing processes that followed (`time::race`), each timing only the
//! engines of the comparisons still undecided. The report keeps every round
//! with its process ([`Timings::samples`]), so that each figure here can be
//! computed again from it.

use crate::child::measure::Outcome;
use crate::decide::paired::{self, Combined, Paired};
use crate::report::{self, Operation, Sample, Spent};
use bench_harness::sampling::Case;
use bench_harness::stats::Ratio;

pub struct Timings {
    /// The first process's outcome: its counter and machine (its samples
    /// are moved into [`Timings::samples`]).
    pub outcome: Option<Outcome>,
    /// The contender index of each measured engine, in sample order.
    pub measured: Vec<usize>,
    /// The cases that process bytes (not key setup): the overall means.
    pub crypt: Vec<usize>,
    /// `[engine][case]`: every round, with its process.
    rounds: Vec<Vec<Vec<Sample>>>,
    /// `[engine]`: the cases it does not run (a library peer's, which its
    /// declaration does not offer): left out of every comparison with it.
    pub not_offered: Vec<Vec<usize>>,
    /// Batches in every case, and quiet ones.
    pub total_rounds: usize,
    pub quiet_total: usize,
    /// How many measuring processes the rounds came from.
    pub processes: usize,
    /// How many times the rule has looked at the intervals: the look whose
    /// confidence ([`paired::confidence`]) the verdict's intervals use.
    pub looks: usize,
    /// Each measuring process, in order.
    pub spent: Vec<Spent>,
}

impl Timings {
    /// Nothing timed.
    pub fn empty(cases: usize) -> Timings {
        Timings {
            outcome: None,
            measured: Vec::new(),
            crypt: (0..cases).collect(),
            rounds: Vec::new(),
            not_offered: Vec::new(),
            total_rounds: 0,
            quiet_total: 0,
            processes: 0,
            looks: 1,
            spent: Vec::new(),
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

    /// From the outcomes of the first pass's measuring processes, one after
    /// the other, each with the contender index of each engine it has
    /// samples of, in sample order: an engine counts as measured when every
    /// process has samples of it.
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
        t.rounds = vec![vec![Vec::new(); cases.len()]; t.measured.len()];
        let all: Vec<usize> = (0..cases.len()).collect();
        let mut runs = runs;
        for (outcome, measured) in &runs {
            t.add(outcome, measured, &all);
        }
        let mut first = runs.swap_remove(0).0;
        first.samples = Vec::new();
        t.outcome = Some(first);
        t
    }

    /// Adds the rounds of one more measuring process, which timed the
    /// contenders `measured` (in sample order) on the cases `cases` (indices
    /// into the run's cases, in the order it timed them); engines not
    /// measured in the first pass are ignored.
    pub fn add(&mut self, outcome: &Outcome, measured: &[usize], cases: &[usize]) {
        let process = self.processes;
        self.processes += 1;
        for (from, i) in measured.iter().enumerate() {
            let Some(k) = self.index(*i) else { continue };
            for (j, &c) in cases.iter().enumerate() {
                let Some(rounds) = outcome.samples.get(from).and_then(|s| s.get(j)) else {
                    continue;
                };
                for s in rounds {
                    self.total_rounds += 1;
                    self.quiet_total += usize::from(s.quiet);
                    self.rounds[k][c].push(Sample {
                        ticks_per_op: report::round_ticks(s.ticks_per_op),
                        quiet: s.quiet,
                        process,
                    });
                }
            }
        }
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
        (self.rounds.get(k).and_then(|r| r.get(c)))
            .cloned()
            .unwrap_or_default()
    }

    /// Engine `k`'s ticks per operation in case `c`: the median over
    /// processes of its levels ([`paired::level`]).
    pub fn level(&self, k: usize, c: usize) -> f64 {
        paired::level(&self.samples(k, c))
    }

    fn paired(&self, a: usize, b: usize, c: usize) -> Paired {
        Paired::of(&self.samples(a, c), &self.samples(b, c))
    }

    /// Speed of engine `a` over engine `b` in case `c`, with its 95%
    /// interval.
    pub fn ratio(&self, a: usize, b: usize, c: usize) -> Option<Ratio> {
        paired::ratio(&self.paired(a, b, c), 0.95)
    }

    /// Speed of engine `a` over engine `b` over the crypt cases, at the
    /// confidence of the run's last look.
    pub fn overall(&self, a: usize, b: usize) -> Option<Ratio> {
        self.combined(a, b).map(|c| c.ratio)
    }

    /// Whether engine `k` runs case `c` (see [`Timings::not_offered`]).
    pub fn runs(&self, k: usize, c: usize) -> bool {
        self.not_offered.get(k).is_none_or(|n| !n.contains(&c))
    }

    /// [`Timings::overall`] with the processes it kept and set aside: over
    /// the crypt cases both engines run.
    pub fn combined(&self, a: usize, b: usize) -> Option<Combined> {
        let per_case: Vec<Paired> = (self.crypt.iter())
            .filter(|&&c| self.runs(a, c) && self.runs(b, c))
            .map(|&c| self.paired(a, b, c))
            .collect();
        paired::overall(&per_case, paired::confidence(self.looks))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::child::measure::{EngineOutcome, EngineState};
    use bench_harness::clock::Counter;
    use bench_harness::engine::Dir as CaseDir;
    use bench_harness::engine::Mode;
    use bench_harness::sampling::Sample as Raw;

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
            machine: crate::report::fixture::machine(),
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
        // second, which ran 7 in the other order; every round is kept.
        let runs = vec![
            (outcome(0, &[4, 3, 5]), vec![4, 7, 9]),
            (outcome(1, &[2, 2]), vec![7, 4]),
        ];
        let mut t = Timings::new(runs, &[case]);
        assert_eq!(t.measured, vec![4, 7]);
        assert_eq!(t.processes, 2);
        let s = t.samples(1, 0);
        let ticks: Vec<f64> = s.iter().map(|s| s.ticks_per_op).collect();
        assert_eq!(ticks, vec![200.0, 200.0, 200.0, 101.0, 101.0]);
        assert_eq!(
            s.iter().map(|s| s.process).collect::<Vec<_>>(),
            [0, 0, 0, 1, 1]
        );
        assert_eq!(t.total_rounds, 11);
        // A racing process that timed only contender 7 (and 9, which is not
        // measured): its rounds go to 7 alone, as process 2.
        t.add(&outcome(2, &[3, 1]), &[7, 9], &[0]);
        assert_eq!(t.processes, 3);
        assert_eq!(t.samples(1, 0).len(), 8);
        assert_eq!(t.samples(0, 0).len(), 6);
        assert_eq!(t.samples(1, 0)[7].process, 2);
    }
}
