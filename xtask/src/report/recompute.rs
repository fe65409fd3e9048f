//! A report of an older schema brought to this one's rule: every figure
//! computed again from its samples by the estimator of
//! [`crate::decide::paired`], and the verdict by the rule of
//! [`crate::decide::verdict`] with the default size cost. This is how the
//! gate reads a base revision's older baselines, and how a run from
//! another machine is judged by today's rule (`cargo xtask render DIR`).

use crate::decide::paired::{self, Paired};
use crate::decide::verdict::{self, Noise};
use crate::report::{Control, Operation, Report, SCHEMA_VERSION, Speed, round_ticks};
use bench_harness::stats::Ratio;
use std::collections::HashMap;

/// The speed of `a` over `b` (two engines' speed entries) over the crypt
/// cases both have (a library peer has none of the cases it does not
/// offer), at `confidence`; `None` when they share no case.
pub fn overall_of(a: &[Speed], b: &[Speed], confidence: f64) -> Option<Ratio> {
    let per_case: Vec<Paired> = (a.iter().filter(|s| s.dir.is_crypt()))
        .filter_map(|sa| {
            let sb = b.iter().find(|s| {
                s.alg == sa.alg
                    && s.dir == sa.dir
                    && s.key_bits == sa.key_bits
                    && s.block_bytes == sa.block_bytes
            })?;
            Some(Paired::of(&sa.samples, &sb.samples))
        })
        .collect();
    paired::overall(&per_case, confidence).map(|c| c.ratio)
}

/// A case as a speed entry names it.
type CaseKey<'a> = (&'a str, Operation, usize, usize);

/// One engine's crypt cases, as [`Index`] pairs them: each case's number
/// and its [`paired::levels`], in the entry's order; and where each case
/// number is among them.
struct Engine {
    cases: Vec<(usize, Vec<(usize, f64)>)>,
    position: HashMap<usize, usize>,
}

/// The speeds of a report's entries, made ready to pair: each entry found
/// by its name in one hash lookup, and its levels in every crypt case
/// computed once. Built in time linear in the samples (each process's
/// quantile sorts its rounds: n log n in one process's rounds);
/// [`Index::faster`] then takes time linear in the cases and processes,
/// where [`Report::faster`] takes time linear in the entries and samples.
pub struct Index {
    by_name: HashMap<String, Engine>,
    confidence: f64,
}

impl Index {
    pub fn of(r: &Report) -> Index {
        let mut numbers: HashMap<CaseKey, usize> = HashMap::new();
        let mut by_name = HashMap::new();
        for e in r.entries() {
            let mut engine = Engine {
                cases: Vec::new(),
                position: HashMap::new(),
            };
            for s in e.speed.iter().filter(|s| s.dir.is_crypt()) {
                let next = numbers.len();
                let n = *numbers
                    .entry((s.alg.as_str(), s.dir, s.key_bits, s.block_bytes))
                    .or_insert(next);
                // The first speed entry of a case is the one paired.
                engine.position.entry(n).or_insert(engine.cases.len());
                engine.cases.push((n, paired::levels(&s.samples)));
            }
            // The first entry of a name is the one found.
            by_name.entry(e.name.clone()).or_insert(engine);
        }
        Index {
            by_name,
            confidence: paired::confidence(r.run.looks),
        }
    }

    /// What [`Report::faster`] gives, from the index: over the crypt
    /// cases both have.
    pub fn faster(&self, a: &str, b: &str) -> Option<Ratio> {
        let (ea, eb) = (self.by_name.get(a)?, self.by_name.get(b)?);
        let per_case: Vec<Paired> = (ea.cases.iter())
            .filter_map(|(n, la)| {
                let (_, lb) = eb.cases.get(*eb.position.get(n)?)?;
                Some(Paired::of_levels(la, lb))
            })
            .collect();
        paired::overall(&per_case, self.confidence).map(|c| c.ratio)
    }
}

impl Report {
    /// The report in this schema, its lists filled in where the file shares
    /// them ([`Report::with_lists_filled`]): one read in an older schema has its
    /// samples' ticks rounded as a run rounds them ([`round_ticks`]), its
    /// `schema_version` set to [`SCHEMA_VERSION`], and every figure and its verdict computed again from them by today's
    /// rule ([`Report::recomputed`]).
    pub fn upgraded(mut self) -> Report {
        self = self.with_lists_filled();
        let old_rule = self.schema_version < SCHEMA_VERSION;
        if self.schema_version < SCHEMA_VERSION {
            let control = self.control.iter_mut().flat_map(|c| &mut c.speed);
            let entries = self.variants.iter_mut().chain(&mut self.peers);
            for s in control.chain(entries.flat_map(|e| &mut e.speed)) {
                for sample in &mut s.samples {
                    sample.ticks_per_op = round_ticks(sample.ticks_per_op);
                }
            }
            self.schema_version = SCHEMA_VERSION;
        }
        // From the rounded ticks, as a run computes it.
        if old_rule {
            return self.recomputed();
        }
        if self.verdict.chain.is_empty() {
            self.verdict.chain = self.chain();
        }
        self
    }

    /// The speed of entry `a` over entry `b` over the crypt cases, from
    /// their samples, as the run computed it ([`paired::overall`]);
    /// `None` when either is missing or they share no case.
    pub fn faster(&self, a: &str, b: &str) -> Option<Ratio> {
        let find = |name: &str| self.entries().find(|e| e.name == name);
        let (ea, eb) = (find(a)?, find(b)?);
        overall_of(&ea.speed, &eb.speed, paired::confidence(self.run.looks))
    }

    /// The verdict's chain as the rule walks it over this report's
    /// candidates and [`Report::faster`].
    pub fn chain(&self) -> Vec<crate::decide::verdict::Link> {
        self.decide().chain
    }

    /// Every figure and the verdict computed again from the samples (see
    /// the module doc).
    pub fn recomputed(self) -> Report {
        self.recomputed_by(Report::decide)
    }

    /// Every figure computed again from the samples, and the verdict by
    /// `rule` ([`Report::decide`], or [`Report::decide_pick`] where the
    /// Pareto set is not shown).
    pub fn recomputed_by(mut self, rule: fn(&Report) -> verdict::Verdict) -> Report {
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
            // A figure the samples cannot give again (a baseline's entries
            // hold a case's summary, not every round) is kept as it is.
            let again = (!is_reference)
                .then(|| overall_of(&e.speed, &base, confidence))
                .flatten();
            e.overall = if is_reference {
                None
            } else {
                again.or(e.overall)
            };
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
        self.verdict = rule(&self);
        self
    }

    /// The rule over this report's measured entries, each pair's speed
    /// from an [`Index`] of the samples.
    pub fn decide(&self) -> verdict::Verdict {
        let index = Index::of(self);
        self.decide_by(&|a: &str, b: &str| index.faster(a, b))
    }

    /// The verdict's steps, reasons and leaning steps, written again from its chain (each
    /// step's gain and bar as the run found them) and the run's settings,
    /// by the rule's own words: what the markdown shows, rather than the
    /// text the JSON holds. Linear in the candidates (see
    /// [`verdict::walk`]).
    pub fn prose(&self) -> (Vec<String>, Vec<String>, Vec<String>) {
        let gains: HashMap<(&str, &str), Option<Ratio>> = (self.verdict.chain.iter())
            .filter_map(|l| Some(((l.candidate.as_str(), l.against.as_deref()?), l.gain)))
            .collect();
        let faster = |a: &str, b: &str| gains.get(&(a, b)).copied().flatten();
        let v = verdict::walk(
            &self.candidates(&self.variants),
            &faster,
            &self.noise(),
            &self.run.reference,
            "",
        );
        (v.steps, v.reasons, v.leaning)
    }

    pub(crate) fn candidates(&self, entries: &[crate::report::Entry]) -> Vec<verdict::Candidate> {
        (entries.iter())
            .filter_map(|e| e.candidate(&self.run.reference))
            .collect()
    }

    /// What the run's measurement allows, as its settings and control say.
    pub(crate) fn noise(&self) -> Noise {
        Noise {
            threshold: self.run.threshold,
            size_cost: self.run.size_cost,
            control: self.control.as_ref().map(Control::interval),
            between: self.run.between_runs.as_ref().map_or(0.0, |b| b.spread),
            timed: self.machine.is_some(),
        }
    }

    /// The command that measures this report's cipher again: `cargo xtask
    /// compare CIPHER`, or, for a crate (`compare --crate`) or a flag
    /// grid, the command that made it, without `--quick`.
    fn command(&self) -> String {
        match (&self.annotations, self.flag_sets.is_empty()) {
            (None, true) => format!("cargo xtask compare {}", self.cipher),
            _ => (self.generated_by.trim_end_matches(" --quick")).to_string(),
        }
    }

    /// The rule over this report's measured entries without its Pareto set
    /// ([`verdict::walk`]): the pick, steps and chain, linear in the
    /// candidates.
    pub fn decide_pick(&self) -> verdict::Verdict {
        let index = Index::of(self);
        let rerun = self.command();
        verdict::walk(
            &self.candidates(&self.variants),
            &|a: &str, b: &str| index.faster(a, b),
            &self.noise(),
            &self.run.reference,
            &rerun,
        )
    }

    /// The rule over this report's measured entries, with speeds from
    /// `faster` (racing asks what a step's resolution would change).
    pub fn decide_by(&self, faster: &dyn Fn(&str, &str) -> Option<Ratio>) -> verdict::Verdict {
        let rerun = self.command();
        verdict::decide(
            &self.candidates(&self.variants),
            &self.candidates(&self.peers),
            faster,
            &self.noise(),
            &self.run.reference,
            &rerun,
        )
    }
}
