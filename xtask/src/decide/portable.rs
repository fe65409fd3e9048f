//! The portable rule's two choices (`cargo xtask merge`): the evidence for
//! a step that holds on every machine, and the noise that bounds them all.
//! The walk is the verdict's own ([`crate::decide::verdict::walk`]).

use crate::decide::verdict::{Noise, deviation};
use bench_harness::stats::Ratio;

/// The evidence that holds on every machine: the lowest ratio and the
/// lowest interval ends any machine measured (`each`, one per machine);
/// `None` for none.
pub fn evidence(each: &[Ratio]) -> Option<Ratio> {
    if each.is_empty() {
        return None;
    }
    let min = |f: fn(&Ratio) -> f64| each.iter().map(f).fold(f64::INFINITY, f64::min);
    Some(Ratio {
        ratio: min(|r| r.ratio),
        low: min(|r| r.low),
        high: min(|r| r.high),
    })
}

/// The highest bar any machine's noise sets: the largest threshold, size
/// cost and spread between runs, the widest A/A control (none unless every
/// machine timed one), timed when every machine was.
pub fn noise(each: &[Noise]) -> Noise {
    let widest = (each.iter())
        .filter_map(|n| n.control)
        .max_by(|a, b| deviation(a).total_cmp(&deviation(b)));
    Noise {
        threshold: each.iter().map(|n| n.threshold).fold(0.0, f64::max),
        size_cost: each.iter().map(|n| n.size_cost).fold(0.0, f64::max),
        control: if each.iter().all(|n| n.control.is_some()) {
            widest
        } else {
            None
        },
        between: each.iter().map(|n| n.between).fold(0.0, f64::max),
        timed: each.iter().all(|n| n.timed),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(ratio: f64, low: f64, high: f64) -> Ratio {
        Ratio { ratio, low, high }
    }

    fn n(threshold: f64, control: Option<f64>, between: f64) -> Noise {
        Noise {
            threshold,
            size_cost: threshold * 2.0,
            control: control.map(|d| r(1.0, 1.0 - d, 1.0 + d)),
            between,
            timed: true,
        }
    }

    #[test]
    fn the_lowest_evidence_and_the_widest_noise() {
        let e = evidence(&[r(1.05, 1.03, 1.07), r(1.04, 1.035, 1.045)]).unwrap();
        assert_eq!(e, r(1.04, 1.03, 1.045));
        assert_eq!(evidence(&[]), None);
        let w = noise(&[n(0.02, Some(0.01), 0.004), n(0.03, Some(0.005), 0.002)]);
        assert_eq!((w.threshold, w.size_cost, w.between), (0.03, 0.06, 0.004));
        assert_eq!(w.control.map(|c| deviation(&c)), Some(0.010000000000000009));
        // One machine without a control: the noise is unknown.
        assert_eq!(
            noise(&[n(0.02, Some(0.01), 0.0), n(0.02, None, 0.0)]).control,
            None
        );
        let mut untimed = n(0.02, None, 0.0);
        untimed.timed = false;
        assert!(!noise(&[n(0.02, None, 0.0), untimed]).timed);
    }
}
