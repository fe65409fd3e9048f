//! The samples of a run and the statistics over them: medians over the
//! rounds in which every engine ran quiet (all rounds when fewer than three
//! did), and ratios from the same rounds, paired.

use crate::measure_child::Outcome;
use bench_harness::compare::quiet_rounds;
use bench_harness::stats::{self, Ratio};

/// Fewer quiet rounds than this in a case, and its figures use every round.
const MIN_QUIET: usize = 3;

pub struct Timings {
    pub outcome: Option<Outcome>,
    /// The contender index of each measured engine, in sample order.
    pub measured: Vec<usize>,
    /// The rounds used, per case.
    pub rounds_of: Vec<Vec<usize>>,
    /// Cases with fewer than three quiet rounds.
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
    pub fn new(outcome: Outcome, measured: Vec<usize>, cases: usize) -> Timings {
        let samples = &outcome.samples;
        let mut t = Timings::empty(cases);
        for c in 0..cases {
            let all = samples.iter().map(|e| e[c].len()).min().unwrap_or(0);
            let quiet = quiet_rounds(samples, c);
            t.total_rounds += all;
            t.quiet_total += quiet.len();
            t.rounds_of[c] = if quiet.len() >= MIN_QUIET {
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

    /// Speed of engine `a` over engine `b` over every case: the mean of the
    /// per-case mean log ratios, with a t interval.
    pub fn overall(&self, a: usize, b: usize) -> Option<Ratio> {
        let per_case: Vec<stats::LogRatios> = (0..self.rounds_of.len())
            .map(|c| stats::log_ratios(&self.speeds(b, c), &self.speeds(a, c)))
            .collect::<Option<_>>()?;
        let m = per_case.len() as f64;
        let min_n = per_case.iter().map(|l| l.n).min()?;
        let mean = per_case.iter().map(|l| l.mean).sum::<f64>() / m;
        let var_sum: f64 = per_case.iter().map(|l| l.var / l.n as f64).sum();
        Some(Ratio::from_log(
            mean,
            stats::t_975(min_n - 1) * var_sum.sqrt() / m,
        ))
    }
}
