//! Medians, quantiles, spreads, the least-squares line of bench-slope,
//! Student's t quantiles, and a ratio with its confidence interval.

use serde::{Deserialize, Serialize};
use statrs::distribution::{Beta, ContinuousCDF, StudentsT};

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

/// The one-sided `confidence` upper bound (Clopper-Pearson, exact) of a
/// rate seen `hits` times in `trials`: the rate the data cannot rule out.
/// 1 when `hits` is `trials` or there are no trials.
pub fn rate_upper_bound(hits: usize, trials: usize, confidence: f64) -> f64 {
    if trials == 0 || hits >= trials {
        return 1.0;
    }
    match Beta::new((hits + 1) as f64, (trials - hits) as f64) {
        Ok(b) => b.inverse_cdf(confidence),
        Err(_) => 1.0,
    }
}

/// A ratio with its 95% confidence interval.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Ratio {
    pub ratio: f64,
    pub low: f64,
    pub high: f64,
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
    fn ratio_from_logarithms() {
        let r = Ratio::from_log(0.1, 0.05);
        assert!((r.ratio - 0.1f64.exp()).abs() < 1e-12);
        assert!((r.low - 0.05f64.exp()).abs() < 1e-12);
        assert!((r.high - 0.15f64.exp()).abs() < 1e-12);
        assert!((t_quantile(0.9875, 3) - 4.1765).abs() < 1e-3);
        assert_eq!(t_quantile(0.99, 0), f64::INFINITY);
    }

    /// Clopper-Pearson's exact bound, against known values: 0 of 120
    /// rules out rates above 2.5% (the "rule of three", 3/120); 3 of 40,
    /// not 17%.
    #[test]
    fn rate_upper_bounds() {
        assert!((rate_upper_bound(0, 120, 0.95) - 0.0247).abs() < 5e-4);
        let b = rate_upper_bound(3, 40, 0.95);
        assert!((0.17..0.19).contains(&b), "{b}");
        assert_eq!(rate_upper_bound(0, 0, 0.95), 1.0);
        assert_eq!(rate_upper_bound(5, 5, 0.95), 1.0);
    }
}
