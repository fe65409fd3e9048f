//! The kernel reviewers' rule, applied: prefer the smaller variant unless a
//! larger one is faster by more than the noise. Herbert Xu, on cast6 in
//! 2008: "There isn't any evidence showing that the inlined version is
//! significantly faster either. In the absence of that, the version with the
//! smaller size is preferable."
//!
//! Size is the footprint (`.text` + `.rodata` + `.data`); speed is the
//! mean over the crypt cases of the speed ratios, with its interval, by
//! the estimator of [`crate::decide::paired`]. Variants with the same
//! hot-path machine code are one candidate, the member with the smallest
//! footprint (among equals, the least annotation, [`Annotation`]). A larger candidate wins only if its whole
//! interval clears its bar ([`Noise::bar_for`]): `1 + max(threshold, A/A
//! deviation, spread between runs)`, the deviation being how far the A/A
//! control's interval reaches from 1 in this run and the spread how far
//! identical code's ratio moves from one run to the next on this machine
//! (as `cargo xtask calibrate` measured it, where it did), plus
//! [`SIZE_COST`] per doubling of footprint. One whose
//! gain is past its bar but whose interval reaches below it *leans*: racing
//! (`time::race`) spends the budget on such steps, and when the budget is
//! spent with a step still leaning, the burden of proof decides, in the
//! seeds' words: absent evidence that the larger is significantly faster,
//! the smaller stays. The verdict says what leans and the command that
//! would settle it ([`Verdict::leaning`], [`Verdict::rerun`]); the noise
//! never picks the larger. A run whose A/A control fails (its interval excludes 1
//! and its ratio lies beyond the threshold: identical code measured
//! different) decides nothing either: it is [`Conclusion::Inconclusive`],
//! with its reasons and the command to run again. Too few quiet rounds is
//! no reason: the estimator needs none.

use crate::env::escape::md_code as code;
use crate::env::flags::SEPARATOR;
use bench_harness::stats::Ratio;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// The gain a larger variant must show to win, in percent, as the command
/// line takes it (`compare --threshold`).
pub const THRESHOLD: &str = "2";

/// The extra gain, in percent, a larger variant must show per doubling of
/// its footprint, on top of the bar, as the command line takes it
/// (`compare --size-cost`). A microbenchmark keeps the whole cipher in the
/// L1 instruction cache and cannot see what larger code costs the rest of
/// the system; 5% per doubling refuses 2.4 times the code for 2.6% (the
/// Zen 3 run's `always_x8_unrolled` over `auto_x4` would need +8.4%) and
/// asks a step 15% larger for 1% more than the flat bar.
pub const SIZE_COST: &str = "5";

/// The larger distance of `r`'s interval ends from 1.
pub fn deviation(r: &Ratio) -> f64 {
    (r.low - 1.0).abs().max((r.high - 1.0).abs())
}

/// How much a variant's name says about inlining, least first: the order in
/// which the member of an identical-code group is chosen. No attribute
/// (`auto`) says least; `#[inline]` (`hint`) a suggestion; `never` and
/// `always` force the compiler's hand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Annotation {
    Auto,
    Hint,
    Never,
    Always,
    /// A name without a policy.
    Other,
}

impl Annotation {
    /// The policy in a variant's name, `[method_]policy[_form]`.
    pub fn of(variant: &str) -> Annotation {
        variant
            .split('_')
            .find_map(|part| match part {
                "auto" => Some(Annotation::Auto),
                "hint" => Some(Annotation::Hint),
                "never" => Some(Annotation::Never),
                "always" => Some(Annotation::Always),
                _ => None,
            })
            .unwrap_or(Annotation::Other)
    }
}

/// One measured contender.
#[derive(Clone, Debug)]
pub struct Candidate {
    pub name: String,
    /// Footprint bytes.
    pub size: u64,
    /// The first member of its identical-code group, when not itself.
    pub same_code_as: Option<String>,
}

/// Whether the run decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Conclusion {
    Decided,
    /// The noise or the quiet rounds do not allow a decision.
    Inconclusive,
}

/// What the rule decided, and why.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    pub status: Conclusion,
    /// The variant to use; `null` when inconclusive or nothing was measured.
    pub pick: Option<String>,
    /// Why it is inconclusive; empty when decided.
    pub reasons: Vec<String>,
    /// Where a larger candidate's gain leaned past its bar without its
    /// whole interval clearing it: the smaller was kept, by the burden of
    /// proof; empty when every step was settled.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub leaning: Vec<String>,
    /// The command to run again: when inconclusive, or to settle what
    /// leans.
    pub rerun: Option<String>,
    /// The flat bar, `1 + max(threshold, noise)` ([`Noise::bar`]), before the
    /// size cost each step adds ([`Link::bar`]).
    pub bar: f64,
    /// Candidates no other dominates (no larger and faster beyond the
    /// interval, over the crypt cases), smallest first.
    pub pareto: Vec<String>,
    /// One line per step of the rule (when inconclusive, what it would
    /// have decided), in markdown: names as inline code.
    pub steps: Vec<String>,
    /// The rule's chain, a row per comparison from the smallest candidate
    /// on: what the report's steps table shows. A report of schema 2 has
    /// none stored; reading it computes them from its samples
    /// ([`crate::report::Report::upgraded`]).
    #[serde(default)]
    pub chain: Vec<Link>,
}

/// One row of the rule's chain: a candidate against the one it may
/// replace.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Link {
    pub candidate: String,
    /// Footprint bytes.
    pub size: u64,
    /// What it was measured against; `null` for the smallest, where the
    /// chain starts.
    pub against: Option<String>,
    /// Its footprint over `against`'s, less 1 (0.175 is 17.5% larger).
    pub size_change: f64,
    /// Its speed over `against`'s, with the interval at the run's last
    /// look; `null` at the start, or when too few processes timed both.
    pub gain: Option<Ratio>,
    /// What its whole interval had to clear ([`Noise::bar_for`]); 0 at the
    /// start (and in a report written before bars grew with size).
    #[serde(default)]
    pub bar: f64,
    pub outcome: Outcome,
}

impl Link {
    /// Whether more rounds could change this step: its interval straddles
    /// its bar (the racing's targets).
    pub fn straddles(&self) -> bool {
        self.gain
            .is_some_and(|g| self.against.is_some() && g.low <= self.bar && g.high > self.bar)
    }

    /// How far its gain lies from its bar, in half-widths of its interval
    /// (logarithms): the racing serves the nearest first.
    pub fn distance(&self) -> f64 {
        let Some(g) = self.gain else {
            return f64::INFINITY;
        };
        let half = ((g.high.ln() - g.low.ln()) / 2.0).max(f64::MIN_POSITIVE);
        (g.ratio.ln() - self.bar.ln()).abs() / half
    }
}

/// What the measurement allows.
pub struct Noise {
    /// The gain a larger variant must show (0.02 is 2%).
    pub threshold: f64,
    /// The extra gain per doubling of footprint (0.05 is 5%).
    pub size_cost: f64,
    /// The A/A control's ratio, if one was timed.
    pub control: Option<Ratio>,
    /// How far identical code's ratio moves between runs on this machine,
    /// as a calibration measured it (0.0048 is ±0.48%); 0 when none did.
    pub between: f64,
    /// Whether anything was timed.
    pub timed: bool,
}

impl Noise {
    /// `1 + max(threshold, the noise)`.
    pub fn bar(&self) -> f64 {
        1.0 + self.threshold.max(self.noise())
    }

    /// What identical code may measure: the larger of the A/A control's
    /// deviation in this run and the spread between runs on this machine.
    pub fn noise(&self) -> f64 {
        (self.control.as_ref().map_or(0.0, deviation)).max(self.between)
    }

    /// What a candidate of footprint `size` must clear against one of
    /// `against`: [`Noise::bar`] plus `size_cost` per doubling of the
    /// footprint; a candidate no larger must be faster by more than the
    /// noise, `1 +` [`Noise::noise`].
    pub fn bar_for(&self, size: u64, against: u64) -> f64 {
        if size <= against {
            return 1.0 + self.noise();
        }
        self.bar() + self.size_cost * (size as f64 / against.max(1) as f64).log2()
    }

    /// Whether a speed ratio over a peer (a family's geometric mean of
    /// median ratios, no interval) says slower: below 1 by more than the
    /// bar, `1 / `[`Noise::bar`]. Nearer 1 it is the peer's speed within
    /// what identical code may measure here, never called slower.
    pub fn slower(&self, ratio: f64) -> bool {
        ratio < 1.0 / self.bar()
    }

    /// Whether the A/A control failed: its interval excludes 1 and its
    /// ratio lies beyond the threshold.
    pub fn control_failed(&self, c: &Ratio) -> bool {
        (c.low > 1.0 || c.high < 1.0) && (c.ratio - 1.0).abs() > self.threshold
    }

    /// Why the run cannot decide, if it cannot.
    pub fn reasons(&self, reference: &str) -> Vec<String> {
        let mut out = Vec::new();
        let th = self.threshold * 100.0;
        match &self.control {
            _ if !self.timed => out.push("nothing was timed".to_string()),
            None => out.push(format!(
                "no A/A control was timed (the reference variant {} was not measured), so the noise is unknown",
                code(reference)
            )),
            Some(c) if self.control_failed(c) => out.push(format!(
                "the A/A control ({} against a copy of itself) measured {}: its interval excludes 1 and it lies beyond ±{th:.0}%, so identical code measured different",
                code(reference),
                pct(c)
            )),
            Some(_) => {}
        }
        out
    }
}

/// The groups' chosen members, and a step per group of more than one. A
/// group is the candidates with the same first member (`same_code_as`, or
/// the name of one that has none), whether or not that one was measured;
/// groups in the order of their first candidate. Linear in the candidates
/// (one hash lookup each).
fn representatives(variants: &[Candidate]) -> (Vec<&Candidate>, Vec<String>) {
    let key = |c: &'_ Candidate| c.same_code_as.clone().unwrap_or_else(|| c.name.clone());
    let mut index: HashMap<String, usize> = HashMap::new();
    let mut groups: Vec<Vec<&Candidate>> = Vec::new();
    for c in variants {
        let i = *index.entry(key(c)).or_insert_with(|| {
            groups.push(Vec::new());
            groups.len() - 1
        });
        groups[i].push(c);
    }
    let mut reps = Vec::new();
    let mut steps = Vec::new();
    for members in groups {
        // The smallest footprint (the code a user loads); among equals,
        // the least annotation, then the first listed.
        let rep = *members
            .iter()
            .min_by_key(|c| (c.size, Annotation::of(&c.name)))
            .expect("a group has a member");
        if members.len() > 1 {
            let names: Vec<String> = members.iter().map(|c| code(&c.name)).collect();
            steps.push(format!(
                "{}: the same machine code on the hot path, so one candidate, {}: the member with the smallest footprint ({} bytes; among equals, the least annotation: no attribute < `#[inline]` < `never` < `always`).",
                names.join(" = "),
                code(&rep.name),
                rep.size
            ));
        }
        reps.push(rep);
    }
    (reps, steps)
}

/// [`walk`], with the Pareto set taken among the candidates and `others`
/// (the peers) together ([`pareto`]).
pub fn decide(
    variants: &[Candidate],
    others: &[Candidate],
    faster: &dyn Fn(&str, &str) -> Option<Ratio>,
    noise: &Noise,
    reference: &str,
    rerun: &str,
) -> Verdict {
    let mut v = walk(variants, faster, noise, reference, rerun);
    let (reps, _) = representatives(variants);
    let all: Vec<&Candidate> = reps.into_iter().chain(others).collect();
    v.pareto = pareto(&all, faster);
    v
}

/// Walks the candidates from smallest to largest footprint (one per
/// identical-code group), moving the pick to a larger one only when its
/// whole interval against the current pick clears `noise.bar()`; the same
/// footprint must be faster by more than the A/A control's deviation. `faster(a, b)`
/// is the speed of `a` over `b` with its interval. The verdict has no
/// Pareto set (see [`decide`]). A sort of the candidates, then one call
/// of `faster` per candidate and possible pick: linear in the candidates
/// times the picks left possible (one, unless steps lean).
// Long: the rule itself, kept in one function to be read top to bottom.
pub fn walk(
    variants: &[Candidate],
    faster: &dyn Fn(&str, &str) -> Option<Ratio>,
    noise: &Noise,
    reference: &str,
    rerun: &str,
) -> Verdict {
    let (mut by_size, mut steps) = representatives(variants);
    by_size.sort_by(|a, b| {
        a.size
            .cmp(&b.size)
            .then(Annotation::of(&a.name).cmp(&Annotation::of(&b.name)))
    });
    // The candidates the steps so far leave possible: one, unless a step's
    // evidence leaned to a larger one without settling it.
    let mut open: Vec<&Candidate> = Vec::new();
    // The pick by the burden of proof: from the smallest, a larger one
    // replaces it only when its whole interval clears its bar against it;
    // a step that leans leaves it where it is.
    let mut held: Option<&Candidate> = None;
    let mut chain = Vec::new();
    for c in &by_size {
        if open.is_empty() {
            held = Some(c);
            chain.push(Link {
                candidate: c.name.clone(),
                size: c.size,
                against: None,
                size_change: 0.0,
                gain: None,
                bar: 0.0,
                outcome: Outcome::Start,
            });
            steps.push(format!(
                "{} is the smallest ({} bytes of footprint: .text + .rodata + .data).",
                code(&c.name),
                c.size
            ));
            open.push(c);
            continue;
        }
        let mut kept = Vec::new();
        let mut possible = false;
        for p in &open {
            let gain = faster(&c.name, &p.name);
            let bar = noise.bar_for(c.size, p.size);
            let (step, outcome) = step(c, p, gain, bar, noise);
            steps.push(step);
            chain.push(Link {
                candidate: c.name.clone(),
                size: c.size,
                against: Some(p.name.clone()),
                size_change: c.size as f64 / p.size.max(1) as f64 - 1.0,
                gain,
                bar,
                outcome: if gain.is_none() {
                    Outcome::Uncompared
                } else {
                    outcome
                },
            });
            if outcome != Outcome::Wins {
                kept.push(*p);
            } else if held.is_some_and(|h| h.name == p.name) {
                held = Some(c);
            }
            possible |= outcome != Outcome::Stays;
        }
        if possible {
            kept.push(c);
        }
        open = kept;
    }
    let reasons = noise.reasons(reference);
    let mut rerun = rerun.to_string();
    let mut leaning = Vec::new();
    if open.len() > 1 {
        let names: Vec<String> = open.iter().map(|c| code(&c.name)).collect();
        leaning.push(format!(
            "the steps leave {} possible when the run stopped (its looks or its budget spent): a larger one's gain leaned past its bar without its whole interval clearing it (see the steps), so by the burden of proof {} stays, the one every step up to it cleared, which no larger one cleared: \"In the absence of that, the version with the smaller size is preferable.\"",
            names.join(", "),
            held.map_or(String::new(), |h| code(&h.name)),
        ));
        // `--variants` names variants, not a flag grid's (variant, flag
        // set) pairs: each once, whatever its flag sets.
        let plain = |n: &'_ str| n.split(SEPARATOR).next().unwrap_or(n).to_string();
        let mut only: Vec<String> = Vec::new();
        for c in &open {
            if !only.contains(&plain(&c.name)) {
                only.push(plain(&c.name));
            }
        }
        if !only.contains(&plain(reference)) {
            only.insert(0, plain(reference));
        }
        rerun = format!("{rerun} --variants {}", only.join(","));
    }
    let decided = reasons.is_empty();
    // More processes settle only what was measured: a run that timed
    // nothing, or not its A/A control, says why and gives no command that
    // could not help.
    let measured = noise.timed && noise.control.is_some();
    Verdict {
        status: if decided {
            Conclusion::Decided
        } else {
            Conclusion::Inconclusive
        },
        pick: held.filter(|_| decided).map(|c| c.name.clone()),
        rerun: ((!decided || !leaning.is_empty()) && measured).then_some(rerun),
        reasons,
        leaning,
        bar: noise.bar(),
        pareto: Vec::new(),
        steps,
        chain,
    }
}

/// What one step of the rule found for a larger (or equal) candidate
/// against one it may replace.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// The smallest candidate: where the chain starts.
    Start,
    /// Its whole interval clears the bar: it replaces the other.
    Wins,
    /// No evidence it is worth its size: the other stays.
    Stays,
    /// Its gain is past the bar but its interval reaches below it: the run
    /// cannot tell, and both stay possible; should the run end so, the
    /// smaller is the pick (the burden of proof, [`Verdict::leaning`]).
    Leans,
    /// Too few paired rounds to compare: the other stays.
    Uncompared,
}

impl Outcome {
    /// The steps table's words.
    pub fn words(self) -> &'static str {
        match self {
            Outcome::Start => "start: the smallest",
            Outcome::Wins => "**taken**: worth its size",
            Outcome::Stays => "the other stays",
            Outcome::Leans => "undecided: both stay possible",
            Outcome::Uncompared => "not compared (too few paired rounds)",
        }
    }

    /// The same in a word, for a terminal's table.
    pub fn word(self) -> &'static str {
        match self {
            Outcome::Start => "start",
            Outcome::Wins => "taken",
            Outcome::Stays => "stays",
            Outcome::Leans => "undecided",
            Outcome::Uncompared => "not compared",
        }
    }
}

fn step(
    c: &Candidate,
    p: &Candidate,
    r: Option<Ratio>,
    bar: f64,
    noise: &Noise,
) -> (String, Outcome) {
    let Some(r) = r else {
        return (
            format!(
                "{} could not be compared with {} (too few paired rounds).",
                code(&c.name),
                code(&p.name)
            ),
            Outcome::Stays,
        );
    };
    let why = format!(
        "{:+.1}% (the larger of the {:.0}% threshold and the A/A control's deviation, {}, plus {:.0}% per doubling of footprint)",
        (bar - 1.0) * 100.0,
        noise.threshold * 100.0,
        noise
            .control
            .as_ref()
            .map_or("none timed".to_string(), |c| format!(
                "±{:.1}%",
                deviation(c) * 100.0
            )),
        noise.size_cost * 100.0
    );
    if c.size == p.size {
        let wins = r.low > bar;
        let verb = if wins {
            "so it is taken"
        } else {
            "so the first stays"
        };
        let outcome = if wins { Outcome::Wins } else { Outcome::Stays };
        return (
            format!(
                "{} has the footprint of {} and is {} against it: {} {:+.1}% (the A/A control's deviation) beyond its interval, {verb}.",
                code(&c.name),
                code(&p.name),
                pct(&r),
                if wins {
                    "faster by more than"
                } else {
                    "not faster by more than"
                },
                (bar - 1.0) * 100.0
            ),
            outcome,
        );
    }
    let larger = format!(
        "{} larger",
        size_pct(c.size as f64 / p.size.max(1) as f64 - 1.0)
    );
    let (found, outcome) = if r.low > bar {
        (
            format!("its whole interval clears {why}, so it is worth its size"),
            Outcome::Wins,
        )
    } else if r.ratio > bar {
        (
            format!(
                "its gain is past {why}, but its interval reaches below it: the run cannot tell whether it is worth its size, so both stay possible"
            ),
            Outcome::Leans,
        )
    } else {
        (
            format!("its interval does not clear {why}, so the smaller one stays"),
            Outcome::Stays,
        )
    };
    let s = format!(
        "{} is {larger} and {} against {}: {found}.",
        code(&c.name),
        pct(&r),
        code(&p.name)
    );
    (s, outcome)
}

/// The candidates of `all` no other dominates (no larger, and faster with
/// its whole interval above 1), smallest first. Dominance is not
/// transitive (each pair has its own interval), so every ordered pair of
/// candidates is compared: quadratic in the candidates, one call of
/// `faster` per pair (which [`crate::report::recompute::Index`] answers
/// in time linear in the cases and processes, not the samples).
fn pareto(all: &[&Candidate], faster: &dyn Fn(&str, &str) -> Option<Ratio>) -> Vec<String> {
    let mut front: Vec<&Candidate> = all
        .iter()
        .filter(|c| {
            !all.iter().any(|d| {
                d.name != c.name
                    && d.size <= c.size
                    && faster(&d.name, &c.name).is_some_and(|r| r.low > 1.0)
            })
        })
        .copied()
        .collect();
    front.sort_by(|a, b| a.size.cmp(&b.size).then(a.name.cmp(&b.name)));
    front.iter().map(|c| c.name.clone()).collect()
}

/// `+17.5%`: a footprint's change as a percentage.
pub fn size_pct(change: f64) -> String {
    format!("{:+.1}%", change * 100.0)
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
mod tests;
