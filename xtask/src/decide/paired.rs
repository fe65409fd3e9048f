//! The estimator and its interval: how a speed ratio of two engines, and its
//! confidence interval, are computed from their samples. One rule, used by
//! the run that measured (`time::timings`), by the racing that decides what
//! to measure next (`time::race`), by calibration (`cmd::calibrate`) and by
//! the report that recomputes its figures from its JSON.
//!
//! # The rule
//!
//! 1. **Each engine's level in each process**: the [`QUANTILE`] quantile
//!    (linear interpolation) of its rounds' ticks per operation in that
//!    process. Noise on a shared VM is additive and one-sided: a batch that
//!    another tenant slowed runs 30-40% slow, none runs fast. A low quantile
//!    is what the code takes when it has the core (Chen and Revels, "Robust
//!    benchmarking in noisy environments", 2016, argue for the minimum; the
//!    10th percentile is as robust to one-sided spikes and steadier with
//!    rounds that all carry some jitter). No round is filtered out by the
//!    quiet probes: they are reported, not used.
//! 2. **Each process's figure**: the logarithm of the two levels' ratio in a
//!    case; over the crypt cases, the mean of those logarithms. The
//!    independent measuring processes are the unit of the interval: each
//!    loads the artifacts afresh, so where the code and the buffers sit
//!    differs between them, and rounds inside one process cannot average
//!    that out.
//! 3. **Combining the processes, robustly**: a process whose figure lies
//!    farther from the median of the others than [`OUTLIER_RANGES`] times
//!    their range, and by more than [`OUTLIER_FLOOR`], is set aside (at most
//!    a quarter of the processes, and only among [`OUTLIER_MIN_PROCESSES`]
//!    or more): one
//!    process in which the loader put one variant somewhere 8% slower must
//!    neither decide nor open every interval. The ratio is the mean of the
//!    figures kept, with Student's t interval over them (one degree of
//!    freedom fewer than the processes kept).
//! 4. **Confidence grows with the looks**: racing looks at the intervals
//!    again after each extra process; look `j` (from 1) uses a
//!    `1 - ALPHA / 2^j` interval ([`confidence`]), so that over every look
//!    together the chance that identical code is declared different stays
//!    below [`ALPHA`] (the union bound: `ALPHA/2 + ALPHA/4 + ... < ALPHA`).
//!    `cargo xtask calibrate` measures that rate.

use bench_harness::stats::{self, Ratio};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The quantile of an engine's rounds in one process taken as its level.
/// Chosen by measurement: on the samples of five runs (two machines, a Zen
/// 3 VM at 40% quiet batches and a Zen 5 VM), it had the least spread
/// between processes and between halves of a process among the mean, the
/// quiet-paired mean, the paired median, the median, the 25th percentile
/// and the minimum (`docs/estimator.md`, `docs/estimator.py`).
pub const QUANTILE: f64 = 0.1;

/// The error rate over every look of a comparison: the chance that
/// identical code is declared different.
pub const ALPHA: f64 = 0.05;

/// How far from the median of the other processes' figures, in multiples
/// of their range, a process's figure must lie to be set aside.
pub const OUTLIER_RANGES: f64 = 3.0;

/// The fewest processes among which one is set aside. Among four, the
/// farthest taken out leaves three whose spread understates the noise:
/// on synthetic identical engines (`racings_added_processes_keep_the_error_rate`)
/// that made 7.8% of comparisons different where the rule allows 5%;
/// from eight, at most two go and six stay.
pub const OUTLIER_MIN_PROCESSES: usize = 8;

/// A process is never set aside for a distance below this (in logarithms:
/// 0.005 is about 0.5%), however close the others agree.
pub const OUTLIER_FLOOR: f64 = 0.005;

/// The confidence of the interval at look `look` (from 1): `1 - ALPHA / 2^look`.
pub fn confidence(look: usize) -> f64 {
    1.0 - ALPHA / 2f64.powi(look.clamp(1, 60) as i32)
}

/// Each process's level of one engine in one case: `(process, the
/// QUANTILE quantile of its ticks per operation there)`, in process order.
pub fn levels(samples: &[Sample]) -> Vec<(usize, f64)> {
    let mut by: BTreeMap<usize, Vec<f64>> = BTreeMap::new();
    for s in samples.iter().filter(|s| s.ticks_per_op > 0.0) {
        by.entry(s.process).or_default().push(s.ticks_per_op);
    }
    by.into_iter()
        .map(|(p, t)| (p, stats::quantile(&t, QUANTILE)))
        .collect()
}

/// An engine's ticks per operation in one case, as the report prints it:
/// the median over processes of its levels.
pub fn level(samples: &[Sample]) -> f64 {
    let l: Vec<f64> = levels(samples).into_iter().map(|(_, t)| t).collect();
    stats::median(&l)
}

/// Two engines in one case: each process that timed both, with its figure,
/// the logarithm of the speed of `a` over `b` (their levels' ratio).
#[derive(Clone, Debug, PartialEq)]
pub struct Paired {
    pub processes: Vec<(usize, f64)>,
}

impl Paired {
    /// From `sa` and `sb`, two engines' samples of one case.
    pub fn of(sa: &[Sample], sb: &[Sample]) -> Paired {
        Paired::of_levels(&levels(sa), &levels(sb))
    }

    /// From `la` and `lb`, two engines' [`levels`] in one case (in process
    /// order): linear in the processes.
    pub fn of_levels(la: &[(usize, f64)], lb: &[(usize, f64)]) -> Paired {
        let mut processes = Vec::new();
        let mut j = 0;
        for &(p, ta) in la {
            while j < lb.len() && lb[j].0 < p {
                j += 1;
            }
            let Some(&(q, tb)) = lb.get(j) else { break };
            let l = (tb / ta).ln();
            if q == p && l.is_finite() {
                processes.push((p, l));
            }
        }
        Paired { processes }
    }
}

/// A ratio combined over processes.
#[derive(Clone, Debug, PartialEq)]
pub struct Combined {
    pub ratio: Ratio,
    /// The processes whose figures were used.
    pub kept: Vec<usize>,
    /// The processes set aside as outliers ([`OUTLIER_RANGES`]).
    pub set_aside: Vec<usize>,
}

/// The processes' figures (logarithms) combined (see the module doc, 3), at
/// `confidence`; `None` with fewer than two processes. Each process set
/// aside costs a sort of the figures ([`distances`]): n log n in the
/// processes when none or a few are set aside, at most a quarter of them
/// sorts in all.
pub fn combine(figures: &[(usize, f64)], confidence: f64) -> Option<Combined> {
    let mut kept: Vec<(usize, f64)> = figures.to_vec();
    let mut set_aside = Vec::new();
    while figures.len() >= OUTLIER_MIN_PROCESSES && set_aside.len() < figures.len() / 4 {
        let values: Vec<f64> = kept.iter().map(|&(_, x)| x).collect();
        let far = (distances(&values).into_iter().enumerate())
            .map(|(i, (distance, range))| (i, distance, range))
            .max_by(|a, b| a.1.total_cmp(&b.1))?;
        let (i, distance, range) = far;
        if distance > OUTLIER_RANGES * range && distance > OUTLIER_FLOOR {
            set_aside.push(kept.remove(i).0);
        } else {
            break;
        }
    }
    let n = kept.len();
    if n < 2 {
        return None;
    }
    let mean = kept.iter().map(|&(_, x)| x).sum::<f64>() / n as f64;
    let var = kept.iter().map(|&(_, x)| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
    let t = stats::t_quantile(1.0 - (1.0 - confidence) / 2.0, n - 1);
    set_aside.sort_unstable();
    Some(Combined {
        ratio: Ratio::from_log(mean, t * (var / n as f64).sqrt()),
        kept: kept.into_iter().map(|(p, _)| p).collect(),
        set_aside,
    })
}

/// For each of `x` (at least three values), its distance from the median
/// of the others and the range of the others, as the outlier rule of
/// [`combine`] measures them: one sort, then each in constant time (the
/// others are the sorted values less one), so n log n in the processes.
fn distances(x: &[f64]) -> Vec<(f64, f64)> {
    let n = x.len();
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| x[a].total_cmp(&x[b]));
    let sorted: Vec<f64> = order.iter().map(|&i| x[i]).collect();
    let mut rank = vec![0; n];
    for (k, &i) in order.iter().enumerate() {
        rank[i] = k;
    }
    // The median of n - 1 values, by linear interpolation (stats::median).
    let pos = 0.5 * (n - 2) as f64;
    let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
    (0..n)
        .map(|i| {
            let k = rank[i];
            let other = |j: usize| if j < k { sorted[j] } else { sorted[j + 1] };
            let median = other(lo) + (other(hi) - other(lo)) * (pos - lo as f64);
            let max = if k == n - 1 {
                sorted[n - 2]
            } else {
                sorted[n - 1]
            };
            let min = if k == 0 { sorted[1] } else { sorted[0] };
            ((x[i] - median).abs(), max - min)
        })
        .collect()
}

/// The speed ratio in one case, at `confidence`.
pub fn ratio(p: &Paired, confidence: f64) -> Option<Ratio> {
    combine(&p.processes, confidence).map(|c| c.ratio)
}

/// Each process's figure over the crypt cases `per_case`: the mean of its
/// figures, for the processes that timed both engines in every one of them.
pub fn process_figures(per_case: &[Paired]) -> Vec<(usize, f64)> {
    let mut by: BTreeMap<usize, Vec<f64>> = BTreeMap::new();
    for p in per_case {
        for &(process, l) in &p.processes {
            by.entry(process).or_default().push(l);
        }
    }
    by.into_iter()
        .filter(|(_, l)| !per_case.is_empty() && l.len() == per_case.len())
        .map(|(p, l)| (p, l.iter().sum::<f64>() / l.len() as f64))
        .collect()
}

/// The overall speed of `a` over `b` from each crypt case's [`Paired`], at
/// `confidence` (see the module doc).
pub fn overall(per_case: &[Paired], confidence: f64) -> Option<Combined> {
    combine(&process_figures(per_case), confidence)
}

/// One round of one case for one contender.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Sample {
    /// Counter ticks per operation in that round's batch.
    pub ticks_per_op: f64,
    /// Whether the round was quiet (every contender's batch of this case in
    /// it met the criterion); the same for every contender in a round.
    pub quiet: bool,
    /// The measuring process it ran in, from 0; the same for every
    /// contender in a round.
    #[serde(default)]
    pub process: usize,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tiny deterministic generator (xorshift), so that the synthetic
    /// samples are the same on every run.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> f64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 >> 11) as f64 / (1u64 << 53) as f64
        }
    }

    /// Rounds of an engine of true cost `ticks` in `processes` processes:
    /// each round a little jitter (+-0.3%), one in three hit by another
    /// tenant (+10 to +40%, one-sided), each process shifted by a
    /// placement of up to +-0.4%.
    fn noisy(ticks: f64, processes: usize, rounds: usize, rng: &mut Rng) -> Vec<Sample> {
        let mut out = Vec::new();
        for p in 0..processes {
            let placement = 1.0 + (rng.next() - 0.5) * 0.008;
            for _ in 0..rounds {
                let jitter = 1.0 + (rng.next() - 0.5) * 0.006;
                let spike = if rng.next() < 1.0 / 3.0 {
                    1.1 + 0.3 * rng.next()
                } else {
                    1.0
                };
                out.push(Sample {
                    ticks_per_op: ticks * placement * jitter * spike,
                    quiet: spike == 1.0,
                    process: p,
                });
            }
        }
        out
    }

    #[test]
    fn identical_engines_with_one_sided_spikes_contain_one() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let mut excluded = 0;
        for _ in 0..200 {
            let a = noisy(1000.0, 4, 6, &mut rng);
            let b = noisy(1000.0, 4, 6, &mut rng);
            let r = ratio(&Paired::of(&a, &b), confidence(1)).unwrap();
            assert!(r.low < r.ratio && r.ratio < r.high);
            excluded += usize::from(r.low > 1.0 || r.high < 1.0);
        }
        // At 97.5% (look 1), about 5 of 200 are expected; the spikes must
        // not make it many more.
        assert!(excluded <= 15, "{excluded} of 200 intervals excluded 1");
    }

    /// Found at the first look in most runs of four processes (one whose
    /// unlucky process opens the interval is what racing adds processes
    /// for), and in every run of eight, where the outlier rule acts.
    #[test]
    fn a_five_percent_difference_is_found() {
        let mut rng = Rng(42);
        let mut found = 0;
        for _ in 0..50 {
            let slow = noisy(1050.0, 4, 6, &mut rng);
            let fast = noisy(1000.0, 4, 6, &mut rng);
            let r = ratio(&Paired::of(&fast, &slow), confidence(1)).unwrap();
            found += usize::from(r.low > 1.0);
        }
        // 41 of 50 with this generator: a process of four whose rounds were
        // mostly slowed by another tenant opens the interval.
        assert!(found >= 35, "{found} of 50");
        for _ in 0..50 {
            let slow = noisy(1050.0, 8, 6, &mut rng);
            let fast = noisy(1000.0, 8, 6, &mut rng);
            let r = ratio(&Paired::of(&fast, &slow), confidence(2)).unwrap();
            assert!(r.low > 1.0, "{r:?}");
            assert!((r.ratio - 1.05).abs() < 0.02, "{r:?}");
        }
    }

    #[test]
    fn one_misplaced_process_neither_decides_nor_opens_the_interval() {
        // Seven processes agree on +3%; the eighth measured +11%.
        let mut figures: Vec<(usize, f64)> = [0.030, 0.031, 0.029, 0.030, 0.0305, 0.0295, 0.030]
            .into_iter()
            .enumerate()
            .collect();
        figures.push((7, 0.110));
        let c = combine(&figures, 0.975).unwrap();
        assert_eq!(c.set_aside, vec![7]);
        assert_eq!(c.kept, (0..7).collect::<Vec<_>>());
        assert!((c.ratio.ratio.ln() - 0.030).abs() < 1e-12);
        assert!(c.ratio.high.ln() < 0.04, "{c:?}");
        // Among fewer than eight, none is set aside: the interval opens,
        // and racing adds processes.
        let four = [(0, 0.030), (1, 0.031), (2, 0.029), (3, 0.110)];
        let c = combine(&four, 0.975).unwrap();
        assert!(c.set_aside.is_empty());
        assert!(c.ratio.low < 1.0, "{c:?}");
        // Processes that disagree among themselves set none aside.
        let spread: Vec<(usize, f64)> = [0.00, 0.02, 0.01, 0.05, 0.03, 0.04, 0.015, 0.025]
            .into_iter()
            .enumerate()
            .collect();
        assert!(combine(&spread, 0.975).unwrap().set_aside.is_empty());
        // Nor a distance below the floor, however close the others.
        let mut close: Vec<(usize, f64)> = (0..7).map(|p| (p, 0.0)).collect();
        close.push((7, 0.004));
        assert!(combine(&close, 0.975).unwrap().set_aside.is_empty());
        // At most a quarter.
        let three: Vec<(usize, f64)> = [0.0, 0.001, 0.0, 0.001, 0.0, 0.1, 0.2, 0.3]
            .into_iter()
            .enumerate()
            .collect();
        assert!(combine(&three, 0.975).unwrap().set_aside.len() <= 2);
        assert!(combine(&[(0, 0.0)], 0.95).is_none());
    }

    /// The outlier rule's distances and ranges, from one sort, are what
    /// the others' median and range give, value by value.
    #[test]
    fn distances_are_the_others_median_and_range() {
        let mut rng = Rng(7);
        for n in 3..40 {
            let mut x: Vec<f64> = (0..n).map(|_| (rng.next() * 8.0).round() / 100.0).collect();
            x[0] = -0.0;
            for (i, (distance, range)) in distances(&x).into_iter().enumerate() {
                let others: Vec<f64> = (x.iter().enumerate())
                    .filter(|&(j, _)| j != i)
                    .map(|(_, &v)| v)
                    .collect();
                let want_range = others.iter().copied().fold(f64::NEG_INFINITY, f64::max)
                    - others.iter().copied().fold(f64::INFINITY, f64::min);
                let want = (x[i] - stats::median(&others)).abs();
                assert_eq!(distance.to_bits(), want.to_bits(), "{x:?} at {i}");
                assert_eq!(range, want_range, "{x:?} at {i}");
            }
        }
    }

    #[test]
    fn looks_spend_alpha_by_halves() {
        assert_eq!(confidence(1), 0.975);
        assert_eq!(confidence(2), 0.9875);
        let spent: f64 = (1..=30).map(|j| 1.0 - confidence(j)).sum();
        assert!(spent < ALPHA);
        // A later look's interval is wider on the same figures.
        let f = [(0, 0.01), (1, 0.02), (2, 0.015), (3, 0.012)];
        let (a, b) = (combine(&f, confidence(1)), combine(&f, confidence(3)));
        assert!(b.unwrap().ratio.high > a.unwrap().ratio.high);
    }

    /// Calibrate's loop on synthetic identical engines: a first pass of
    /// four processes, then racing's rounds as `looks::per_look` sizes them
    /// (four, four, then as many as the run has had), each look at its
    /// confidence, stopping as soon as the interval excludes 1. Over all
    /// the looks, identical code is declared different about as often as
    /// the rule allows, not more: the added processes keep the error rate.
    #[test]
    fn racings_added_processes_keep_the_error_rate() {
        use crate::decide::looks::{MAX_LOOKS, per_look};
        let mut rng = Rng(0x2545_f491_4f6c_dd1d);
        let (comparisons, mut different, mut looked) = (400, 0, 0);
        for _ in 0..comparisons {
            let (mut a, mut b) = (Vec::new(), Vec::new());
            let mut processes = 0;
            let mut add = |n: usize, a: &mut Vec<Sample>, b: &mut Vec<Sample>, from: usize| {
                for (into, new) in [
                    (a, noisy(1000.0, n, 6, &mut rng)),
                    (b, noisy(1000.0, n, 6, &mut rng)),
                ] {
                    into.extend(new.into_iter().map(|s| Sample {
                        process: s.process + from,
                        ..s
                    }));
                }
            };
            add(4, &mut a, &mut b, 0);
            processes += 4;
            for look in 1..=MAX_LOOKS {
                looked = looked.max(look);
                let r = ratio(&Paired::of(&a, &b), confidence(look)).unwrap();
                if r.low > 1.0 || r.high < 1.0 {
                    different += 1;
                    break;
                }
                let n = per_look(look, processes);
                add(n, &mut a, &mut b, processes);
                processes += n;
            }
        }
        assert_eq!(looked, MAX_LOOKS);
        let rate = different as f64 / comparisons as f64;
        // ALPHA is 5%; the union bound keeps the true rate below it. 400
        // comparisons measure it to about ±2%: 8% would mean the looks
        // spend more than the rule says.
        assert!(
            rate <= 0.08,
            "{different} of {comparisons} different ({rate})"
        );
    }

    #[test]
    fn levels_are_per_process_low_quantiles() {
        let s = |t: f64, p: usize| Sample {
            ticks_per_op: t,
            quiet: false,
            process: p,
        };
        let samples: Vec<Sample> = [100.0, 140.0, 101.0, 102.0, 130.0, 103.0]
            .iter()
            .map(|&t| s(t, 0))
            .chain([200.0, 201.0].iter().map(|&t| s(t, 1)))
            .collect();
        let l = levels(&samples);
        assert_eq!(l.len(), 2);
        // Process 0: sorted 100, 101, 102, 103, 130, 140: 10% lies half
        // way from the first to the second.
        assert!((l[0].1 - 100.5).abs() < 1e-12);
        assert!((l[1].1 - 200.1).abs() < 1e-12);
        // A case only one engine timed in a process pairs nothing there.
        let other: Vec<Sample> = (0..3).map(|_| s(110.0, 0)).collect();
        assert_eq!(Paired::of(&samples, &other).processes.len(), 1);
        // Over cases, only processes in every case count.
        let c1 = Paired {
            processes: vec![(0, 0.1), (1, 0.2)],
        };
        let c2 = Paired {
            processes: vec![(0, 0.3)],
        };
        assert_eq!(process_figures(&[c1, c2]), vec![(0, 0.2)]);
    }
}
