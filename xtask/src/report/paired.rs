//! A ratio recomputed from two engines' samples: the rounds paired, each
//! process's own figure, and the overall ratio over the crypt cases with its
//! interval. One rule, used by the run that measured (`time::timings`) and by
//! the report that recomputes its figures from its JSON.

use crate::report::{self, Sample};
use bench_harness::stats::{self, Ratio};

/// Two engines' paired speeds in one case, over the rounds a ratio uses.
pub struct Paired {
    pub base: Vec<f64>,
    pub other: Vec<f64>,
    /// `(process, its mean log ratio)`.
    pub processes: Vec<(usize, f64)>,
}

impl Paired {
    /// The paired speeds of `sa` over `sb` (two engines' samples of one
    /// case), over the rounds used for the pair, and each process's own
    /// figure ([`report::process_means`]).
    pub fn of(sa: &[Sample], sb: &[Sample]) -> Paired {
        let speed = |s: &[Sample], r: usize| 1.0 / s[r].ticks_per_op;
        let rounds = report::pair_rounds(sa, sb);
        Paired {
            base: rounds.iter().map(|&r| speed(sb, r)).collect(),
            other: rounds.iter().map(|&r| speed(sa, r)).collect(),
            processes: report::process_means(sa, sb, &rounds),
        }
    }
}

/// The overall speed of `other` over `base` from each case's paired speeds:
/// the mean over cases of each case's mean log ratio, with a 95% t interval
/// whose variance sums the cases' (each over its count) and whose degrees of
/// freedom are the fewest rounds of any case less one; widened, when there
/// were several processes, to the spread of the processes' own figures
/// (each the mean over cases of the process's figure in the case), each
/// process the unit.
pub fn overall(per_case: &[Paired]) -> Option<Ratio> {
    let logs: Vec<stats::LogRatios> = per_case
        .iter()
        .map(|p| stats::log_ratios(&p.base, &p.other))
        .collect::<Option<_>>()?;
    let m = logs.len() as f64;
    let min_n = logs.iter().map(|l| l.n).min()?;
    let mean = logs.iter().map(|l| l.mean).sum::<f64>() / m;
    let var_sum: f64 = logs.iter().map(|l| l.var / l.n as f64).sum();
    let within = Ratio::from_log(mean, stats::t_975(min_n - 1) * var_sum.sqrt() / m);
    let mut by_process: std::collections::BTreeMap<usize, Vec<f64>> = Default::default();
    for p in per_case {
        for &(process, mean) in &p.processes {
            by_process.entry(process).or_default().push(mean);
        }
    }
    let figures: Vec<f64> = (by_process.values())
        .map(|m| m.iter().sum::<f64>() / m.len() as f64)
        .collect();
    Some(within.across_processes(&figures))
}
