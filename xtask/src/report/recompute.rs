//! A report of an older schema brought to this one's rule: every figure
//! computed again from its samples by the estimator of
//! [`crate::report::paired`], and the verdict by the rule of
//! [`crate::report::verdict`] with the default size cost. This is how the
//! gate reads a base revision's older baselines, and how a run from
//! another machine is judged by today's rule (`cargo xtask render DIR`).

use crate::report::paired::{self, Paired};
use crate::report::verdict::{self, Noise};
use crate::report::{Control, Report, Speed};
use bench_harness::stats::Ratio;

/// The speed of `a` over `b` (two engines' speed entries) over their crypt
/// cases, at `confidence`; `None` when they share no case.
pub fn overall_of(a: &[Speed], b: &[Speed], confidence: f64) -> Option<Ratio> {
    let per_case: Vec<Paired> = (a.iter().filter(|s| s.dir.is_crypt()))
        .map(|sa| {
            let sb = b.iter().find(|s| {
                s.alg == sa.alg
                    && s.dir == sa.dir
                    && s.key_bits == sa.key_bits
                    && s.block_bytes == sa.block_bytes
            })?;
            Some(Paired::of(&sa.samples, &sb.samples))
        })
        .collect::<Option<_>>()?;
    paired::overall(&per_case, confidence).map(|c| c.ratio)
}

impl Report {
    /// Every figure and the verdict computed again from the samples (see
    /// the module doc).
    pub fn recomputed(mut self) -> Report {
        let hz = self.hz();
        let reference = self.run.reference.clone();
        let base: Vec<Speed> = (self.entries())
            .find(|e| e.name == reference)
            .map(|e| e.speed.clone())
            .unwrap_or_default();
        // A case counted, not timed (a baseline's), keeps what it holds.
        let redo = |speeds: &mut [Speed], is_reference: bool| {
            for s in speeds.iter_mut().filter(|s| !s.samples.is_empty()) {
                s.set_figures(hz);
                s.ratio = base
                    .iter()
                    .find(|b| {
                        b.alg == s.alg
                            && b.dir == s.dir
                            && b.key_bits == s.key_bits
                            && b.block_bytes == s.block_bytes
                    })
                    .filter(|_| !is_reference)
                    .and_then(|b| paired::ratio(&Paired::of(&s.samples, &b.samples), 0.95));
            }
        };
        let confidence = paired::confidence(self.run.looks);
        for e in self.entries_mut() {
            let is_reference = e.name == reference;
            redo(&mut e.speed, is_reference);
            e.overall = (!is_reference)
                .then(|| overall_of(&e.speed, &base, confidence))
                .flatten();
        }
        if let Some(c) = &mut self.control {
            redo(&mut c.speed, false);
            match overall_of(&c.speed, &base, confidence) {
                Some(r) => {
                    (c.ratio, c.ci_low, c.ci_high) = (r.ratio, r.low, r.high);
                }
                None => self.control = None,
            }
        }
        if self.run.size_cost == 0.0 {
            self.run.size_cost =
                crate::cli::percent(verdict::SIZE_COST).expect("the default size cost parses");
        }
        // Notes on rounds too few to be quiet belong to the old rule.
        self.run.notes.retain(|n| !n.starts_with("fewer than"));
        self.verdict = self.decide();
        self
    }

    /// The rule over this report's measured entries.
    pub fn decide(&self) -> verdict::Verdict {
        self.decide_by(&|a: &str, b: &str| self.faster(a, b))
    }

    /// The rule over this report's measured entries, with speeds from
    /// `faster` (racing asks what a step's resolution would change).
    pub fn decide_by(&self, faster: &dyn Fn(&str, &str) -> Option<Ratio>) -> verdict::Verdict {
        let candidates = |entries: &[crate::report::Entry]| -> Vec<verdict::Candidate> {
            (entries.iter())
                .filter_map(|e| e.candidate(&self.run.reference))
                .collect()
        };
        let noise = Noise {
            threshold: self.run.threshold,
            size_cost: self.run.size_cost,
            control: self.control.as_ref().map(Control::interval),
            timed: self.machine.is_some(),
        };
        let rerun = format!("cargo xtask compare {}", self.cipher);
        verdict::decide(
            &candidates(&self.variants),
            &candidates(&self.peers),
            faster,
            &noise,
            &self.run.reference,
            &rerun,
        )
    }
}
