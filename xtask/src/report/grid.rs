//! A flag grid's answers (`compare --opt-level 3,s --target-cpu ...`),
//! from the report alone, so that every figure is recomputed from its
//! JSON: the rule's pick under each flag set on its own (a kernel built
//! with `-Os` needs that row), its speed against the peer built with the
//! same flags, and the inversions: a flag set whose pick misses what its
//! flags ask for against another's, beyond the interval.
//!
//! The whole grid's verdict is the report's own (`Report::verdict`): the
//! rule over every (variant, flag set) pair, identical code one candidate
//! across flag sets.

use crate::decide::verdict::{self, Candidate};
use crate::env::flags::{FlagSet, Lto};
use crate::report::recompute::Index;
use crate::report::{Entry, Report};
use bench_harness::stats::Ratio;

/// One flag set's answer.
#[derive(Clone, Debug, PartialEq)]
pub struct SetPick {
    pub set: FlagSet,
    /// The rule's pick among this set's variants (one timed once as the
    /// same code under another flag set stands for itself by that one's
    /// name); `None` when it cannot decide.
    pub pick: Option<String>,
    /// The pick's footprint, bytes.
    pub footprint: Option<u64>,
    /// The first peer built with the same flags, and the pick's speed over
    /// it (crypt cases).
    pub peer: Option<(String, Option<Ratio>)>,
    /// Why the rule cannot decide under this set, when it cannot.
    pub reasons: Vec<String>,
}

/// What an inversion is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Inversion {
    /// No smaller and slower beyond the interval: the other set is better
    /// on both counts.
    Dominated,
    /// Flags that ask for speed (a higher opt-level, `native`, LTO) slower
    /// beyond the interval than the set without them.
    Slower,
    /// An opt-level for size (`s`, `z`) whose pick is larger than one for
    /// speed.
    Larger,
}

/// Flag set `set`'s pick inverted against `other`'s.
#[derive(Clone, Debug, PartialEq)]
pub struct Inverted {
    pub kind: Inversion,
    pub set: String,
    pub pick: String,
    pub size: u64,
    pub other: String,
    pub other_pick: String,
    pub other_size: u64,
    /// The speed of `pick` over `other_pick`, with its interval.
    pub speed: Ratio,
}

/// The entries built under flag set `name`.
fn of_set<'a>(entries: &'a [Entry], name: &'a str) -> impl Iterator<Item = &'a Entry> + 'a {
    (entries.iter()).filter(move |e| e.flags.as_deref() == Some(name))
}

/// The rule over each flag set of `r` on its own, in the grid's order,
/// with the candidates it walked; empty for a report of the profile
/// alone.
fn walks<'a>(r: &'a Report, index: &Index) -> Vec<(&'a FlagSet, Vec<Candidate>, verdict::Verdict)> {
    let faster = |a: &str, b: &str| index.faster(a, b);
    let noise = r.noise();
    (r.flag_sets.iter())
        .map(|set| {
            let name = set.name();
            let candidates: Vec<Candidate> = of_set(&r.variants, &name)
                .filter_map(|e| candidate(r, e))
                .collect();
            // The set's own reference: the smallest of its candidates
            // starts its chain; the name only says whose A/A noise it is.
            let reference = candidates.first().map_or("", |c| c.name.as_str());
            let v = verdict::walk(&candidates, &faster, &noise, reference, "");
            (set, candidates, v)
        })
        .collect()
}

/// The rule's verdict under each flag set of `r` on its own: what racing
/// serves once the whole grid's verdict is settled.
pub fn verdicts(r: &Report) -> Vec<(FlagSet, verdict::Verdict)> {
    (walks(r, &Index::of(r)).into_iter())
        .map(|(set, _, v)| (set.clone(), v))
        .collect()
}

/// The picks and the inversions among them, the samples indexed once:
/// what the report's table shows.
pub fn answers(r: &Report) -> (Vec<SetPick>, Vec<Inverted>) {
    let index = Index::of(r);
    let picks = picks_by(r, &index);
    let inverted = inversions_by(&index, &picks);
    (picks, inverted)
}

/// The rule's pick under each flag set of `r` on its own, in the grid's
/// order; empty for a report of the profile alone.
fn picks_by(r: &Report, index: &Index) -> Vec<SetPick> {
    (walks(r, index).into_iter())
        .map(|(set, candidates, v)| {
            let footprint = (v.pick.as_ref())
                .and_then(|p| candidates.iter().find(|c| &c.name == p))
                .map(|c| c.size);
            let peer = of_set(&r.peers, &set.name()).next().map(|p| {
                let speed = (v.pick.as_deref()).and_then(|pick| index.faster(pick, &p.name));
                (p.label.clone(), speed)
            });
            SetPick {
                set: set.clone(),
                pick: v.pick,
                footprint,
                peer,
                reasons: v.reasons,
            }
        })
        .collect()
}

/// `e` as its flag set's rule sees it: itself when measured; when it was
/// timed once as identical code under another flag set, that entry (the
/// one result of their machine code), at `e`'s footprint.
fn candidate(r: &Report, e: &Entry) -> Option<Candidate> {
    if let Some(c) = e.candidate(&r.run.reference) {
        return Some(c);
    }
    let twin = (r.variants.iter())
        .find(|t| Some(&t.name) == e.same_code_as.as_ref() && t.flags != e.flags)?;
    let mut c = twin.candidate(&r.run.reference)?;
    c.size = e.artifact.as_ref()?.footprint_bytes;
    Some(c)
}

/// Every inversion among `picks`: for each ordered pair of flag sets with
/// a pick each, the first kind that holds ([`Inversion`]), judged by the
/// speed of one pick over the other and their footprints.
fn inversions_by(index: &Index, picks: &[SetPick]) -> Vec<Inverted> {
    let mut out = Vec::new();
    for a in picks {
        for b in picks.iter().filter(|b| b.set != a.set) {
            let (Some(pa), Some(pb), Some(sa), Some(sb)) =
                (&a.pick, &b.pick, a.footprint, b.footprint)
            else {
                continue;
            };
            let Some(speed) = index.faster(pa, pb) else {
                continue;
            };
            let slower = speed.high < 1.0;
            let kind = if slower && sa >= sb {
                Some(Inversion::Dominated)
            } else if slower && asks_more_speed(&a.set, &b.set) {
                Some(Inversion::Slower)
            } else if sa > sb && asks_smaller(&a.set, &b.set) {
                Some(Inversion::Larger)
            } else {
                None
            };
            if let Some(kind) = kind {
                out.push(Inverted {
                    kind,
                    set: a.set.name(),
                    pick: pa.clone(),
                    size: sa,
                    other: b.set.name(),
                    other_pick: pb.clone(),
                    other_size: sb,
                    speed,
                });
            }
        }
    }
    out
}

/// The one axis `a` and `b` differ in, if exactly one.
fn one_axis(a: &FlagSet, b: &FlagSet) -> Option<Axis> {
    let differ = [
        (a.opt_level != b.opt_level).then_some(Axis::OptLevel),
        (a.target_cpu != b.target_cpu).then_some(Axis::TargetCpu),
        (a.target_features != b.target_features).then_some(Axis::TargetFeatures),
        (a.lto != b.lto).then_some(Axis::Lto),
    ];
    let mut it = differ.into_iter().flatten();
    match (it.next(), it.next()) {
        (Some(axis), None) => Some(axis),
        _ => None,
    }
}

enum Axis {
    OptLevel,
    TargetCpu,
    TargetFeatures,
    Lto,
}

/// Whether `a` asks for more speed than `b`, differing from it in one
/// axis: a higher opt-level for speed (0 to 3), `native` against another
/// CPU, LTO across crates (`thin`, `fat`) against none.
fn asks_more_speed(a: &FlagSet, b: &FlagSet) -> bool {
    match one_axis(a, b) {
        Some(Axis::OptLevel) => match (a.opt_level, b.opt_level) {
            (Some(x), Some(y)) => !x.for_size() && !y.for_size() && x > y,
            _ => false,
        },
        Some(Axis::TargetCpu) => {
            a.target_cpu.as_ref().is_some_and(|c| c.native)
                && b.target_cpu.as_ref().is_some_and(|c| !c.native)
        }
        Some(Axis::Lto) => {
            let across = |l: Option<Lto>| matches!(l, Some(Lto::Thin | Lto::Fat));
            across(a.lto) && !across(b.lto)
        }
        Some(Axis::TargetFeatures) | None => false,
    }
}

/// Whether `a` asks for smaller code than `b`, differing from it in the
/// opt-level alone: `s` or `z` against one for speed.
fn asks_smaller(a: &FlagSet, b: &FlagSet) -> bool {
    matches!(one_axis(a, b), Some(Axis::OptLevel))
        && a.opt_level.is_some_and(|o| o.for_size())
        && b.opt_level.is_some_and(|o| !o.for_size())
}

impl Inversion {
    /// What it says of a flag set's pick against another's.
    pub fn words(self) -> &'static str {
        match self {
            Inversion::Dominated => "no smaller, and slower beyond its interval",
            Inversion::Slower => {
                "its flags ask for more speed, and it is slower beyond its interval"
            }
            Inversion::Larger => "its opt-level asks for smaller code, and it is larger",
        }
    }
}
