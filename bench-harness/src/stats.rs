//! Medians, spreads, the least-squares line of bench-slope, and a confidence
//! interval for a paired ratio, widened to the spread between independent
//! measuring processes where there were several.

use serde::{Deserialize, Serialize};
use statrs::distribution::{ContinuousCDF, StudentsT};

/// The median; `NaN` for no values.
pub fn median(values: &[f64]) -> f64 {
    quantile(values, 0.5)
}

/// The `q` quantile with linear interpolation; `NaN` for no values.
pub fn quantile(values: &[f64], q: f64) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let pos = q * (v.len() - 1) as f64;
    let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
    v[lo] + (v[hi] - v[lo]) * (pos - lo as f64)
}

/// Spread as a fraction of the median: half the interquartile range divided
/// by the median (0.01 reads "±1%").
pub fn spread(values: &[f64]) -> f64 {
    let m = median(values);
    if m == 0.0 || values.len() < 2 {
        return 0.0;
    }
    (quantile(values, 0.75) - quantile(values, 0.25)) / 2.0 / m.abs()
}

/// A straight line `y = intercept + slope * x`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Line {
    pub slope: f64,
    pub intercept: f64,
    /// Coefficient of determination.
    pub r2: f64,
}

/// Ordinary least squares; `None` with fewer than two distinct `x`.
pub fn least_squares(xs: &[f64], ys: &[f64]) -> Option<Line> {
    let n = xs.len().min(ys.len()) as f64;
    if n < 2.0 {
        return None;
    }
    let mx = xs.iter().sum::<f64>() / n;
    let my = ys.iter().sum::<f64>() / n;
    let sxx: f64 = xs.iter().map(|x| (x - mx).powi(2)).sum();
    let sxy: f64 = xs.iter().zip(ys).map(|(x, y)| (x - mx) * (y - my)).sum();
    let syy: f64 = ys.iter().map(|y| (y - my).powi(2)).sum();
    if sxx == 0.0 {
        return None;
    }
    let slope = sxy / sxx;
    let r2 = if syy == 0.0 {
        1.0
    } else {
        sxy * sxy / (sxx * syy)
    };
    Some(Line {
        slope,
        intercept: my - slope * mx,
        r2,
    })
}

/// The 97.5% quantile of Student's t with `df` degrees of freedom (for a
/// two-sided 95% interval); see [`t_quantile`].
pub fn t_975(df: usize) -> f64 {
    t_quantile(0.975, df)
}

/// The `p` quantile (0.5 < `p` < 1) of Student's t with `df` degrees of
/// freedom, exact for every `df` (statrs' inverse of the t distribution's
/// CDF); infinite for `df` 0, where no interval exists.
pub fn t_quantile(p: f64, df: usize) -> f64 {
    if df == 0 {
        return f64::INFINITY;
    }
    match StudentsT::new(0.0, 1.0, df as f64) {
        Ok(t) => t.inverse_cdf(p),
        // Unreachable for df >= 1 (the only parameters it refuses are a
        // scale or degrees of freedom of 0 or below, or NaN); infinite is
        // the safe side.
        Err(_) => f64::INFINITY,
    }
}

/// A ratio with its 95% confidence interval.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Ratio {
    pub ratio: f64,
    pub low: f64,
    pub high: f64,
}

/// The ratio of `other` to `base` from paired samples (the same rounds):
/// the geometric mean of the per-round ratios, with a t interval on their
/// logarithms. Pairing cancels drift that hits both in a round alike.
pub fn paired_ratio(base: &[f64], other: &[f64]) -> Option<Ratio> {
    let l = log_ratios(base, other)?;
    Some(Ratio::from_log(
        l.mean,
        t_975(l.n - 1) * (l.var / l.n as f64).sqrt(),
    ))
}

/// The logarithms of paired ratios `other[i] / base[i]`: their mean, sample
/// variance and count (at least two).
#[derive(Clone, Copy, Debug)]
pub struct LogRatios {
    pub mean: f64,
    pub var: f64,
    pub n: usize,
}

pub fn log_ratios(base: &[f64], other: &[f64]) -> Option<LogRatios> {
    let logs: Vec<f64> = base
        .iter()
        .zip(other)
        .filter(|(b, o)| **b > 0.0 && **o > 0.0)
        .map(|(b, o)| (o / b).ln())
        .collect();
    let n = logs.len();
    if n < 2 {
        return None;
    }
    let mean = logs.iter().sum::<f64>() / n as f64;
    let var = logs.iter().map(|l| (l - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
    Some(LogRatios { mean, var, n })
}

impl Ratio {
    /// The ratio `exp(mean)` with the interval `exp(mean ± half)`.
    pub fn from_log(mean: f64, half: f64) -> Ratio {
        Ratio {
            ratio: mean.exp(),
            low: (mean - half).exp(),
            high: (mean + half).exp(),
        }
    }

    /// The same ratio with its interval's half-width (in logarithms) at
    /// least `half`.
    pub fn widened(self, half: f64) -> Ratio {
        let mean = self.ratio.ln();
        let own = (self.high.ln() - mean).max(mean - self.low.ln());
        Ratio::from_log(mean, own.max(half))
    }

    /// This interval widened to the spread between measuring processes,
    /// `means` holding one figure per process ([`between_processes`]); as
    /// it is with fewer than two.
    pub fn across_processes(self, means: &[f64]) -> Ratio {
        match between_processes(means) {
            Some(half) => self.widened(half),
            None => self,
        }
    }
}

/// The 95% half-width, in logarithms, of the mean of `means`: one mean log
/// ratio per independent measuring process, each process the unit (Student's
/// t with one degree of freedom fewer than there are processes). It holds
/// what repeated rounds inside one process cannot average out: an effect
/// fixed for the life of a process, such as where the loader put the code
/// and the allocator the buffers. `None` with fewer than two processes.
pub fn between_processes(means: &[f64]) -> Option<f64> {
    let k = means.len();
    if k < 2 {
        return None;
    }
    let mean = means.iter().sum::<f64>() / k as f64;
    let var = means.iter().map(|m| (m - mean).powi(2)).sum::<f64>() / (k - 1) as f64;
    Some(t_975(k - 1) * (var / k as f64).sqrt())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn t_975_is_the_published_quantile() {
        // t_{0.975} as tables print it (NIST/SEMATECH e-Handbook 1.3.6.7.2,
        // to four places, and 12.7062 at df 1).
        for (df, want) in [
            (1, 12.7062),
            (2, 4.3027),
            (10, 2.2281),
            (30, 2.0423),
            (31, 2.0395),
            (60, 2.0003),
            (120, 1.9799),
        ] {
            let got = t_975(df);
            assert!((got - want).abs() < 5e-5, "df {df}: {got}, not {want}");
        }
        assert!((t_975(1_000_000) - 1.96).abs() < 1e-3);
        assert_eq!(t_975(0), f64::INFINITY);
    }

    #[test]
    fn medians_and_spread() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        assert!(median(&[]).is_nan());
        // Quartiles 2 and 4 around a median of 3: ±(4-2)/2/3.
        assert!((spread(&[1.0, 2.0, 3.0, 4.0, 5.0]) - 1.0 / 3.0).abs() < 1e-12);
        assert_eq!(spread(&[5.0]), 0.0);
    }

    #[test]
    fn line_fit() {
        let xs = [16.0, 256.0, 8192.0];
        let ys: Vec<f64> = xs.iter().map(|x| 40.0 + 58.0 * x).collect();
        let l = least_squares(&xs, &ys).unwrap();
        assert!((l.slope - 58.0).abs() < 1e-9 && (l.intercept - 40.0).abs() < 1e-6);
        assert!((l.r2 - 1.0).abs() < 1e-12);
        assert!(least_squares(&[1.0, 1.0], &[2.0, 3.0]).is_none());
    }

    #[test]
    fn ratio_interval() {
        let base = [100.0, 102.0, 98.0, 101.0, 99.0];
        let faster: Vec<f64> = base.iter().map(|b| b * 1.10).collect();
        let r = paired_ratio(&base, &faster).unwrap();
        assert!((r.ratio - 1.10).abs() < 1e-9 && (r.high - r.low) < 1e-9);
        let noisy = [110.0, 99.0, 108.0, 100.0, 105.0];
        let r = paired_ratio(&base, &noisy).unwrap();
        assert!(r.low < r.ratio && r.ratio < r.high);
        assert!(paired_ratio(&[1.0], &[2.0]).is_none());
    }

    #[test]
    fn processes_widen_an_interval_they_exceed() {
        assert_eq!(between_processes(&[0.01]), None);
        // Means 0.00 and 0.02: variance 0.0002, so t(1) * sqrt(0.0002 / 2).
        let half = between_processes(&[0.0, 0.02]).unwrap();
        assert!((half - t_975(1) * 0.01).abs() < 1e-9);
        let r = Ratio::from_log(0.01, 0.005);
        let wide = r.widened(half);
        assert!((wide.ratio - r.ratio).abs() < 1e-12);
        assert!((wide.high.ln() - 0.01 - half).abs() < 1e-12);
        assert!((0.01 - wide.low.ln() - half).abs() < 1e-12);
        // A narrower spread between processes leaves the interval alone.
        let same = r.widened(0.001);
        assert!((same.low - r.low).abs() < 1e-12 && (same.high - r.high).abs() < 1e-12);
        // From the processes' figures: widened by their spread; one
        // process has none.
        let across = r.across_processes(&[0.0, 0.02]);
        assert!((across.high - wide.high).abs() < 1e-12 && (across.low - wide.low).abs() < 1e-12);
        let one = r.across_processes(&[0.02]);
        assert!((one.low - r.low).abs() < 1e-12 && (one.high - r.high).abs() < 1e-12);
    }
}
