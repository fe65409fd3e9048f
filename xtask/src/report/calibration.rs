//! A calibration's data (`cargo xtask calibrate`): each comparison of
//! identical code, the false-difference rate and its bound, the noise floor
//! and the spread between runs; and what a compare on the same machine
//! takes from it ([`BetweenRuns`], [`between_for`]): how far identical
//! code's ratio moves from one run to the next, which widens the run's bar
//! where it is larger than the run's own A/A deviation
//! ([`crate::decide::verdict::Noise::bar`]).

use bench_harness::stats::{self, Ratio};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The folder of the reports directory calibrations are written to.
pub const DIR: &str = "calibration";

/// The fewest comparisons a calibration makes, and the fewest whose
/// spread between runs a compare takes.
pub const MIN_COMPARISONS: u32 = 10;

/// Where the calibrations of the reports directory `reports` are.
pub fn dir(reports: &Path) -> PathBuf {
    reports.join(DIR)
}

/// One comparison of identical code.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    /// The copy's speed over the original, at the last look's confidence.
    pub ratio: Ratio,
    pub looks: usize,
    pub processes: usize,
    pub seconds: f64,
    /// Whether the interval excluded 1: a false difference.
    pub different: bool,
}

/// What calibrate writes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Calibration {
    pub cipher: String,
    pub variant: String,
    /// The machine label (`CpuInfo::label`).
    pub machine: String,
    pub generated_by: String,
    pub date: String,
    pub comparisons: Vec<Comparison>,
    /// Comparisons that declared identical code different, over all.
    pub false_difference_rate: f64,
    /// The median half-width of the final intervals, as a fraction.
    pub noise_floor: f64,
}

/// The one-sided confidence of the false-difference rate's upper bound.
pub const RATE_BOUND_CONFIDENCE: f64 = 0.95;

impl Calibration {
    /// The summary figures from the comparisons.
    pub fn summarise(mut self) -> Calibration {
        let n = self.comparisons.len().max(1) as f64;
        self.false_difference_rate =
            self.comparisons.iter().filter(|c| c.different).count() as f64 / n;
        let halves: Vec<f64> = (self.comparisons.iter())
            .map(|c| ((c.ratio.high.ln() - c.ratio.low.ln()) / 2.0).exp_m1())
            .collect();
        self.noise_floor = stats::median(&halves);
        self
    }

    /// How far the copy's central ratio moves from one comparison's run
    /// to the next: 1.96 standard deviations of the comparisons'
    /// logarithms, as a fraction. Set beside the noise floor (one run's
    /// own half-width): where it is larger, one run's interval understates
    /// the variation between runs. Computed from the comparisons, never
    /// stored.
    pub fn between_runs(&self) -> f64 {
        let logs: Vec<f64> = self
            .comparisons
            .iter()
            .map(|c| c.ratio.ratio.ln())
            .collect();
        let n = logs.len();
        if n < 2 {
            return 0.0;
        }
        let mean = logs.iter().sum::<f64>() / n as f64;
        let var = logs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
        (1.96 * var.sqrt()).exp_m1()
    }

    /// The false-difference rate's one-sided 95% upper bound
    /// (Clopper-Pearson): the rate these comparisons cannot rule out.
    pub fn rate_upper_bound(&self) -> f64 {
        let hits = self.comparisons.iter().filter(|c| c.different).count();
        stats::rate_upper_bound(hits, self.comparisons.len(), RATE_BOUND_CONFIDENCE)
    }
}

/// How far identical code's ratio moved between runs on one machine, as a
/// calibration measured it ([`Calibration::between_runs`]): a compare on
/// that machine records it ([`crate::report::Run::between_runs`]) and its
/// bar is at least `1 + spread`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BetweenRuns {
    /// ± as a fraction (0.0048 is ±0.48%).
    pub spread: f64,
    /// The comparisons it was measured over.
    pub comparisons: usize,
    /// The calibration's command and date, for the report to say.
    pub measured_by: String,
    pub date: String,
}

/// Every calibration in `dir` that reads; one that does not is said on
/// standard error and skipped (a compare still runs, without it).
pub fn read_all(dir: &Path) -> Vec<Calibration> {
    let Ok(files) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut paths: Vec<PathBuf> = (files.flatten())
        .map(|f| f.path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    paths.sort();
    let mut out = Vec::new();
    for p in paths {
        let read = std::fs::read_to_string(&p).map_err(|e| e.to_string());
        match read.and_then(|t| serde_json::from_str::<Calibration>(&t).map_err(|e| e.to_string()))
        {
            Ok(c) => out.push(c),
            Err(e) => eprintln!(
                "warning: {}: not a calibration ({e}); its spread between runs is not used",
                p.display()
            ),
        }
    }
    out
}

/// The spread between runs a compare on `machine` (a CPU label,
/// `CpuInfo::label`) takes: among the calibrations of that machine with at
/// least [`MIN_COMPARISONS`] comparisons, the largest; none when no
/// calibration measured this machine.
pub fn between_for(calibrations: &[Calibration], machine: &str) -> Option<BetweenRuns> {
    (calibrations.iter())
        .filter(|c| c.machine == machine && c.comparisons.len() >= MIN_COMPARISONS as usize)
        .map(|c| BetweenRuns {
            spread: c.between_runs(),
            comparisons: c.comparisons.len(),
            measured_by: c.generated_by.clone(),
            date: c.date.clone(),
        })
        .max_by(|a, b| a.spread.total_cmp(&b.spread))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn comparison(low: f64, high: f64) -> Comparison {
        Comparison {
            ratio: Ratio {
                ratio: (low * high).sqrt(),
                low,
                high,
            },
            looks: 1,
            processes: 4,
            seconds: 1.0,
            different: low > 1.0 || high < 1.0,
        }
    }

    /// Four comparisons, one of them different, on machine `m`.
    pub(crate) fn four(machine: &str) -> Calibration {
        Calibration {
            cipher: "cast6".into(),
            variant: "auto|x".into(),
            machine: machine.into(),
            generated_by: "cargo xtask calibrate cast6".into(),
            date: "2026-12-01".into(),
            comparisons: vec![
                comparison(0.99, 1.01),
                comparison(1.001, 1.003),
                comparison(0.995, 1.005),
                comparison(0.98, 1.02),
            ],
            false_difference_rate: 0.0,
            noise_floor: 0.0,
        }
        .summarise()
    }

    #[test]
    fn the_rate_the_floor_and_the_spread_come_from_the_comparisons() {
        let cal = four("m");
        assert_eq!(cal.false_difference_rate, 0.25);
        // Half-widths 1%, 0.1%, 0.5%, 2%: the median lies between 0.5% and 1%.
        assert!(
            cal.noise_floor > 0.005 && cal.noise_floor < 0.0101,
            "{}",
            cal.noise_floor
        );
        // The central ratios 1.000, 1.002, 1.000, 1.000: between runs,
        // 1.96 standard deviations of their logarithms.
        let logs =
            [0.99f64 * 1.01, 1.001 * 1.003, 0.995 * 1.005, 0.98 * 1.02].map(|x| x.sqrt().ln());
        let mean = logs.iter().sum::<f64>() / 4.0;
        let sd = (logs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / 3.0).sqrt();
        assert!((cal.between_runs() - (1.96 * sd).exp_m1()).abs() < 1e-12);
        assert!(cal.rate_upper_bound() > 0.25, "{}", cal.rate_upper_bound());
    }

    #[test]
    fn a_compare_takes_the_largest_spread_of_its_own_machine() {
        let mut wide = four("m");
        wide.comparisons.extend((0..8).map(|i| {
            let c = 1.0 + 0.004 * (i as f64 - 3.5);
            comparison(c - 0.001, c + 0.001)
        }));
        let mut narrow = four("m");
        narrow
            .comparisons
            .extend((0..8).map(|_| comparison(0.999, 1.001)));
        let other = {
            let mut o = wide.clone();
            o.machine = "another".into();
            o.comparisons.push(comparison(0.8, 0.9));
            o
        };
        let all = [narrow.clone(), wide.clone(), other, four("m")];
        let b = between_for(&all, "m").expect("two calibrations of 12");
        assert_eq!(b.spread, wide.between_runs());
        assert!(b.spread > narrow.between_runs());
        assert_eq!(b.comparisons, 12);
        // Fewer than ten comparisons are not taken; nor another machine's.
        assert_eq!(between_for(&[four("m")], "m"), None);
        assert_eq!(between_for(&all, "elsewhere"), None);
    }

    #[test]
    fn a_file_that_is_not_a_calibration_is_skipped() {
        let dir = std::env::temp_dir().join(format!("inlinelab-cal-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let cal = four("m");
        std::fs::write(dir.join("cast6.json"), serde_json::to_string(&cal).unwrap()).unwrap();
        std::fs::write(dir.join("bad.json"), "{").unwrap();
        std::fs::write(dir.join("cast6.md"), "# not json").unwrap();
        assert_eq!(read_all(&dir), vec![cal]);
        assert_eq!(read_all(&dir.join("none")), Vec::<Calibration>::new());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
