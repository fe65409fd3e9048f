//! The samples of a run and the statistics over them. A batch is quiet or
//! not on its own (the harness's criterion, `interleave::is_quiet`); an
//! engine's median in a case is over its own quiet batches, and a ratio of
//! two engines pairs the rounds in which both ran quiet, each falling back
//! to every round when fewer than [`MIN_QUIET_ROUNDS`] were (and the case is
//! then uncertain for that figure). Asking every one of twenty or more
//! engines to be quiet in the same round would leave almost no round on a
//! shared machine; a pair needs only its own two batches, which ran
//! milliseconds apart. The report keeps every round
//! ([`Timings::samples`]), so that each figure here can be computed again
//! from it ([`crate::report::rounds_used`], [`crate::report::pair_rounds`]).

use crate::measure_child::Outcome;
use crate::report::{self, Dir, MIN_QUIET_ROUNDS, Sample};
use bench_harness::compare::Case;
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

    /// From the measuring process's outcome; `measured` as in the field.
    pub fn new(outcome: Outcome, measured: Vec<usize>, cases: &[Case]) -> Timings {
        let mut t = Timings::empty(cases.len());
        t.crypt = (0..cases.len())
            .filter(|&c| Dir::of(&cases[c]).is_crypt())
            .collect();
        t.outcome = Some(outcome);
        t.measured = measured;
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
        let rounds = o.samples.iter().map(|e| e[c].len()).min().unwrap_or(0);
        o.samples[k][c][..rounds]
            .iter()
            .map(|s| Sample {
                ticks_per_op: s.ticks_per_op,
                quiet: s.quiet,
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
    /// case `c`, over the rounds used for the pair.
    fn paired(&self, a: usize, b: usize, c: usize) -> (Vec<f64>, Vec<f64>) {
        let (sa, sb) = (self.samples(a, c), self.samples(b, c));
        let speed = |s: &[Sample], r: usize| 1.0 / s[r].ticks_per_op;
        report::pair_rounds(&sa, &sb)
            .into_iter()
            .map(|r| (speed(&sb, r), speed(&sa, r)))
            .unzip()
    }

    /// Speed of engine `a` over engine `b` in case `c`.
    pub fn ratio(&self, a: usize, b: usize, c: usize) -> Option<Ratio> {
        let (base, other) = self.paired(a, b, c);
        stats::paired_ratio(&base, &other)
    }

    /// Speed of engine `a` over engine `b` over the crypt cases: the mean
    /// of the per-case mean log ratios, with a t interval (see [`overall`]).
    pub fn overall(&self, a: usize, b: usize) -> Option<Ratio> {
        let per_case: Vec<(Vec<f64>, Vec<f64>)> =
            self.crypt.iter().map(|&c| self.paired(a, b, c)).collect();
        overall(&per_case)
    }
}

/// The overall speed of `other` over `base` from each case's paired speeds
/// `(base, other)`: the mean over cases of each case's mean log ratio, with
/// a 95% t interval whose variance sums the cases' (each over its count)
/// and whose degrees of freedom are the fewest rounds of any case less one.
pub fn overall(per_case: &[(Vec<f64>, Vec<f64>)]) -> Option<Ratio> {
    let logs: Vec<stats::LogRatios> = per_case
        .iter()
        .map(|(b, o)| stats::log_ratios(b, o))
        .collect::<Option<_>>()?;
    let m = logs.len() as f64;
    let min_n = logs.iter().map(|l| l.n).min()?;
    let mean = logs.iter().map(|l| l.mean).sum::<f64>() / m;
    let var_sum: f64 = logs.iter().map(|l| l.var / l.n as f64).sum();
    Some(Ratio::from_log(
        mean,
        stats::t_975(min_n - 1) * var_sum.sqrt() / m,
    ))
}
