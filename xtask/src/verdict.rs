//! The kernel reviewers' rule, applied: prefer the smaller variant unless a
//! larger one is faster by more than the noise. Herbert Xu, on cast6 in
//! 2008: "There isn't any evidence showing that the inlined version is
//! significantly faster either. In the absence of that, the version with the
//! smaller size is preferable."

use bench_harness::stats::Ratio;
use serde::{Deserialize, Serialize};

/// The gain a larger variant must show to win, in percent, as the command
/// line takes it (`compare --threshold`).
pub const THRESHOLD: &str = "2";

/// One contender: its code size and its overall speed against the reference.
#[derive(Clone, Debug)]
pub struct Candidate {
    pub name: String,
    /// `.text` bytes.
    pub size: u64,
    /// Overall speed as a ratio to the reference (1.0 is the reference's).
    pub speed: f64,
}

/// What the rule decided, and why.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    /// The variant to use, if any was measured.
    pub pick: Option<String>,
    /// Points no other point beats on both size and speed, smallest first.
    pub pareto: Vec<String>,
    /// One line per step of the rule.
    pub steps: Vec<String>,
}

/// Walks the variants from smallest to largest, moving the pick to a larger
/// one only when it is faster than the current pick with a 95% interval that
/// excludes no gain and a gain above `threshold` (0.02 is 2%). `faster(a, b)`
/// is the speed of `a` over `b` with its interval. Pareto-optimal points are
/// named among `variants` and `others` (the peers) together.
pub fn decide(
    variants: &[Candidate],
    others: &[Candidate],
    faster: &dyn Fn(&str, &str) -> Option<Ratio>,
    threshold: f64,
) -> Verdict {
    let mut by_size: Vec<&Candidate> = variants.iter().collect();
    by_size.sort_by(|a, b| a.size.cmp(&b.size).then(a.name.cmp(&b.name)));
    let mut steps = Vec::new();
    let mut pick: Option<&Candidate> = None;
    for c in by_size {
        let Some(p) = pick else {
            steps.push(format!(
                "`{}` is the smallest ({} bytes of .text).",
                c.name, c.size
            ));
            pick = Some(c);
            continue;
        };
        let larger = if p.size == 0 {
            String::new()
        } else {
            format!(
                "{:+.1}% larger",
                (c.size as f64 / p.size as f64 - 1.0) * 100.0
            )
        };
        match faster(&c.name, &p.name) {
            Some(r) if r.low > 1.0 && r.ratio - 1.0 > threshold => {
                steps.push(format!(
                    "`{}` is {larger} and {} faster than `{}`: beyond the noise and the {:.0}% threshold, so it is worth its size.",
                    c.name,
                    pct(&r),
                    p.name,
                    threshold * 100.0
                ));
                pick = Some(c);
            }
            Some(r) => steps.push(format!(
                "`{}` is {larger} and {} against `{}`: not faster by more than the noise and the {:.0}% threshold, so the smaller one stays.",
                c.name,
                pct(&r),
                p.name,
                threshold * 100.0
            )),
            None => steps.push(format!(
                "`{}` could not be compared with `{}` (too few paired rounds).",
                c.name, p.name
            )),
        }
    }
    let all: Vec<&Candidate> = variants.iter().chain(others).collect();
    let mut pareto: Vec<&Candidate> = all
        .iter()
        .filter(|c| {
            !all.iter().any(|d| {
                d.size <= c.size && d.speed >= c.speed && (d.size < c.size || d.speed > c.speed)
            })
        })
        .copied()
        .collect();
    pareto.sort_by(|a, b| a.size.cmp(&b.size).then(a.name.cmp(&b.name)));
    Verdict {
        pick: pick.map(|c| c.name.clone()),
        pareto: pareto.iter().map(|c| c.name.clone()).collect(),
        steps,
    }
}

/// `+3.1% [+1.2%, +5.0%]`: a speed ratio as a gain with its 95% interval.
pub fn pct(r: &Ratio) -> String {
    format!(
        "{:+.1}% [{:+.1}%, {:+.1}%]",
        (r.ratio - 1.0) * 100.0,
        (r.low - 1.0) * 100.0,
        (r.high - 1.0) * 100.0
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cand(name: &str, size: u64, speed: f64) -> Candidate {
        Candidate {
            name: name.into(),
            size,
            speed,
        }
    }

    /// `speeds` gives each variant's speed and half-interval (as fractions);
    /// checks the pick and the Pareto set.
    fn check(speeds: &[(&str, u64, f64, f64)], pick: &str, pareto: &[&str]) {
        let cands: Vec<Candidate> = speeds.iter().map(|&(n, s, v, _)| cand(n, s, v)).collect();
        let lookup = |n: &str| speeds.iter().find(|x| x.0 == n).unwrap();
        let faster = |a: &str, b: &str| {
            let (a, b) = (lookup(a), lookup(b));
            let ratio = a.2 / b.2;
            let half = a.3.max(b.3);
            Some(Ratio {
                ratio,
                low: ratio - half,
                high: ratio + half,
            })
        };
        let v = decide(&cands, &[], &faster, 0.02);
        assert_eq!(v.pick.as_deref(), Some(pick), "{:#?}", v.steps);
        assert_eq!(v.pareto, pareto);
    }

    #[test]
    fn the_rule() {
        // cast6 2008: no evidence the inlined one is faster: the small one.
        check(
            &[("never", 8704, 1.00, 0.01), ("always", 17216, 1.01, 0.02)],
            "never",
            &["never", "always"],
        );
        // Clearly faster, beyond the threshold and the noise: the larger one.
        check(
            &[("never", 1000, 1.00, 0.01), ("always", 2000, 1.10, 0.01)],
            "always",
            &["never", "always"],
        );
        // Faster by more than 2% but the interval reaches below no gain.
        check(
            &[("never", 1000, 1.00, 0.05), ("always", 2000, 1.03, 0.05)],
            "never",
            &["never", "always"],
        );
        // Larger and slower: never picked, not Pareto-optimal.
        check(
            &[("never", 1000, 1.00, 0.01), ("always", 2000, 0.90, 0.01)],
            "never",
            &["never"],
        );
        // The pick moves in steps: each larger variant must beat the current pick.
        check(
            &[
                ("a", 100, 1.00, 0.01),
                ("b", 200, 1.10, 0.01),
                ("c", 300, 1.11, 0.01),
            ],
            "b",
            &["a", "b", "c"],
        );
    }
}
