//! The samples of a run and the statistics over them: medians over the
//! rounds in which every engine ran quiet (all rounds when fewer than
//! [`MIN_QUIET_ROUNDS`] did), and ratios from the same rounds, paired. The
//! report keeps every round ([`Timings::samples`]), so that each figure
//! here can be computed again from it.

use crate::measure_child::Outcome;
use crate::report::{Dir, MIN_QUIET_ROUNDS, Sample};
use bench_harness::compare::{Case, quiet_rounds};
use bench_harness::stats::{self, Ratio};

pub struct Timings {
    pub outcome: Option<Outcome>,
    /// The contender index of each measured engine, in sample order.
    pub measured: Vec<usize>,
    /// The rounds used, per case.
    pub rounds_of: Vec<Vec<usize>>,
    /// The cases that process bytes (not key setup): the overall means.
    pub crypt: Vec<usize>,
    /// Cases with fewer than [`MIN_QUIET_ROUNDS`] quiet rounds.
    pub uncertain: Vec<usize>,
    /// Rounds in every case, and quiet ones.
    pub total_rounds: usize,
    pub quiet_total: usize,
}

impl Timings {
    /// Nothing timed.
    pub fn empty(cases: usize) -> Timings {
        Timings {
            outcome: None,
            measured: Vec::new(),
            rounds_of: vec![Vec::new(); cases],
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
        let samples = &outcome.samples;
        let mut t = Timings::empty(cases.len());
        t.crypt = (0..cases.len())
            .filter(|&c| Dir::of(&cases[c]).is_crypt())
            .collect();
        for c in 0..cases.len() {
            let all = samples.iter().map(|e| e[c].len()).min().unwrap_or(0);
            let quiet = quiet_rounds(samples, c);
            t.total_rounds += all;
            t.quiet_total += quiet.len();
            t.rounds_of[c] = if quiet.len() >= MIN_QUIET_ROUNDS {
                quiet
            } else {
                t.uncertain.push(c);
                (0..all).collect()
            };
        }
        t.outcome = Some(outcome);
        t.measured = measured;
        t
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

    /// Ticks per operation of engine `k` in case `c`, over the rounds used.
    pub fn ticks(&self, k: usize, c: usize) -> Vec<f64> {
        let Some(o) = &self.outcome else {
            return Vec::new();
        };
        self.rounds_of[c]
            .iter()
            .map(|&r| o.samples[k][c][r].ticks_per_op)
            .collect()
    }

    /// Operations per tick of engine `k` in case `c`, over the rounds used.
    fn speeds(&self, k: usize, c: usize) -> Vec<f64> {
        self.ticks(k, c).iter().map(|t| 1.0 / t).collect()
    }

    /// Speed of engine `a` over engine `b` in case `c`.
    pub fn ratio(&self, a: usize, b: usize, c: usize) -> Option<Ratio> {
        stats::paired_ratio(&self.speeds(b, c), &self.speeds(a, c))
    }

    /// Speed of engine `a` over engine `b` over the crypt cases: the mean
    /// of the per-case mean log ratios, with a t interval (see [`overall`]).
    pub fn overall(&self, a: usize, b: usize) -> Option<Ratio> {
        let per_case: Vec<(Vec<f64>, Vec<f64>)> = self
            .crypt
            .iter()
            .map(|&c| (self.speeds(b, c), self.speeds(a, c)))
            .collect();
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
