//! Racing: a time budget spent where the verdict hinges. The first pass
//! times every contender in `--processes` processes; then, while a step of
//! the verdict's chain has an interval that straddles its bar and the
//! verdict hinges on it (settled either way, it would change the pick or
//! decide the run: [`hinges`]), or while the A/A control's deviation sets
//! the bar, one more measuring process times only the variants of such
//! steps (the reference and its A/A control always among them), the steps
//! nearest their bar first
//! ([`crate::decide::verdict::Link::distance`]), on the crypt cases; up to
//! [`crate::decide::looks::PER_LOOK`] such processes make a racing round, after which the rule
//! looks again. Each look costs confidence
//! ([`crate::decide::paired::confidence`]): after
//! [`crate::decide::looks::FIRST_LOOKS`], a round
//! holds as many processes as the run has had ([`per_look`]), so that the
//! budget a step still leaning has left is spent, up to [`MAX_LOOKS`].
//! It stops when no step the verdict hinges on straddles its
//! bar, or when the next process would not fit in what is left of the
//! budget (the first pass always runs). Under a flag grid, once the whole
//! grid's verdict is settled, the leaning steps of a flag set whose own
//! pick is not are raced likewise ([`crate::report::grid`]).

use crate::decide::looks::{MAX_LOOKS, per_look};
use crate::decide::verdict::{self, Link};
use crate::error::Result;
use crate::report::grid;
use crate::report::{Report, Spent};
use crate::select::contenders::Contender;
use crate::time::analyse::{self, Settings};
use crate::time::processes;
use crate::time::timings::Timings;
use bench_harness::registry::CipherEntry;
use bench_harness::sampling::{Case, Plan};
use bench_harness::stats::Ratio;
use std::cell::RefCell;
use std::collections::HashMap;
use std::path::Path;
use std::time::{Duration, Instant};

/// At most this many contenders in one racing process (the reference and
/// the control among them): a few steps at a time, each process short.
pub const MAX_ENGINES: usize = 8;

/// What one racing process is to time: contender names, and the steps
/// it serves, described.
#[derive(Debug, PartialEq)]
pub struct Next {
    pub contenders: Vec<String>,
    pub steps: Vec<String>,
}

/// What the next racing process should time, from the report of the run
/// so far (its A/A control named `control`): `None` when every step lies on
/// one side of its bar and the control does not set the bar.
pub fn next(report: &Report, control: Option<&str>) -> Option<Next> {
    let straddling: Vec<&Link> = (report.verdict.chain.iter())
        .filter(|l| l.straddles())
        .collect();
    let links: Vec<&Link> = if straddling.is_empty() {
        straddling
    } else {
        let memo = Memo::new(report);
        let faster = |a: &str, b: &str| memo.faster(a, b);
        straddling
            .into_iter()
            .filter(|l| hinges(report, &faster, l))
            .collect()
    };
    if !links.is_empty() {
        return choose(report, links, control);
    }
    // The whole grid's verdict settled: a flag set whose own pick is not
    // settled yet has its leaning steps raced.
    let sets = grid::verdicts(report);
    let open: Vec<&Link> = (sets.iter())
        .filter(|(_, v)| v.status == verdict::Conclusion::Inconclusive || !v.leaning.is_empty())
        .flat_map(|(_, v)| v.chain.iter().filter(|l| l.straddles()))
        .collect();
    choose(report, open, control)
}

/// The racing process for the steps `links` (nearest their bar first, at
/// most [`MAX_ENGINES`] contenders with the reference and `control`), and
/// the control when its deviation sets the bar; `None` when neither.
fn choose(report: &Report, mut links: Vec<&Link>, control: Option<&str>) -> Option<Next> {
    links.sort_by(|a, b| a.distance().total_cmp(&b.distance()));
    let control_sets_bar = (report.control.as_ref())
        .is_some_and(|c| verdict::deviation(&c.interval()) > report.run.threshold);
    if links.is_empty() && !control_sets_bar {
        return None;
    }
    let mut chosen: Vec<String> = [Some(report.run.reference.as_str()), control]
        .into_iter()
        .flatten()
        .map(str::to_string)
        .collect();
    let mut steps = Vec::new();
    if control_sets_bar {
        steps.push("the A/A control, whose deviation sets the bar".to_string());
    }
    for l in links {
        let new: Vec<String> = ([Some(l.candidate.as_str()), l.against.as_deref()].into_iter())
            .flatten()
            .filter(|n| !chosen.iter().any(|c| c == n))
            .map(str::to_string)
            .collect();
        if chosen.len() + new.len() > MAX_ENGINES {
            continue;
        }
        chosen.extend(new);
        steps.push(format!(
            "`{}` against `{}`",
            l.candidate,
            l.against.as_deref().unwrap_or("")
        ));
    }
    Some(Next {
        contenders: chosen,
        steps,
    })
}

/// Speeds between a report's entries, each computed once.
struct Memo<'a> {
    report: &'a Report,
    cache: RefCell<HashMap<(String, String), Option<Ratio>>>,
}

impl<'a> Memo<'a> {
    fn new(report: &'a Report) -> Memo<'a> {
        Memo {
            report,
            cache: RefCell::new(HashMap::new()),
        }
    }

    fn faster(&self, a: &str, b: &str) -> Option<Ratio> {
        let key = (a.to_string(), b.to_string());
        if let Some(r) = self.cache.borrow().get(&key) {
            return *r;
        }
        let r = self.report.faster(a, b);
        self.cache.borrow_mut().insert(key, r);
        r
    }
}

/// Whether the verdict hinges on step `l`: settled above its bar, or below
/// it, the rule would reach another status or pick than it does now, or
/// leave other picks possible (an inconclusive verdict's `rerun` names
/// them). Several steps that lean keep a run inconclusive together, so that
/// settling any one of them alone changes neither status nor pick; each of
/// them still narrows what is possible, and is raced.
fn hinges(report: &Report, measured: &dyn Fn(&str, &str) -> Option<Ratio>, l: &Link) -> bool {
    let Some(against) = l.against.as_deref() else {
        return false;
    };
    let outcome = |v: verdict::Verdict| (v.status, v.pick, v.rerun);
    let now = outcome(report.decide_by(measured));
    let settled = |r: f64| Ratio {
        ratio: r,
        low: r / 1.001,
        high: r * 1.001,
    };
    [settled(l.bar * 1.01), settled(l.bar.min(1.0) / 1.01)]
        .into_iter()
        .any(|forced| {
            let faster = |a: &str, b: &str| {
                if a == l.candidate && b == against {
                    Some(forced)
                } else {
                    measured(a, b)
                }
            };
            outcome(report.decide_by(&faster)) != now
        })
}

/// The seconds one process of `engines` contenders on `cases` cases takes
/// by `plan`: its rounds, the sizing (about two rounds) and the probes,
/// with a margin.
pub fn estimate(plan: Plan, engines: usize, cases: usize) -> f64 {
    (plan.rounds + 2) as f64 * plan.batch_seconds * (engines * cases) as f64 * 1.25 + 0.5
}

/// What racing measures with: the cipher, its contenders, the run's cases
/// and plan, the work directory; and the budget, counted from `start`
/// (before the first pass, which always runs).
pub struct Run<'a> {
    pub entry: &'a CipherEntry,
    pub contenders: &'a mut [Contender],
    pub cases: &'a [Case],
    pub plan: Plan,
    pub dir: &'a Path,
    pub start: Instant,
    pub budget: Duration,
}

/// What the next racing round times: each of its (at most [`per_look`])
/// processes times these contenders on these cases.
pub struct Round {
    /// Indices into the contenders; `None` for every one.
    pub only: Option<Vec<usize>>,
    /// Indices into the run's cases.
    pub cases: Vec<usize>,
    /// The steps it serves, described (`Spent::for_steps`).
    pub steps: Vec<String>,
    /// Whether to say on the terminal what each process is for.
    pub announce: bool,
}

/// The racing loop `compare` and `calibrate` share. After the first pass
/// (in `t`), each look (`look`) gives what the run decides so far and,
/// unless it is settled, the [`Round`] that would settle it; while fewer
/// than [`MAX_LOOKS`] looks were taken, up to [`per_look`] processes time
/// that round, each only when its estimated cost ([`estimate`]) fits in
/// what is left of the budget, the order of the contenders reversed every
/// other one; then the next look. It returns the last look's decision:
/// settled, at [`MAX_LOOKS`], or when no process of a round fit.
pub fn rounds<R>(
    run: &mut Run<'_>,
    t: &mut Timings,
    mut look: impl FnMut(&Timings, &[Contender]) -> Result<(R, Option<Round>)>,
) -> Result<R> {
    loop {
        let (now, next) = look(t, run.contenders)?;
        if t.looks >= MAX_LOOKS {
            return Ok(now);
        }
        let Some(round) = next else {
            return Ok(now);
        };
        let engines = round.only.as_ref().map_or(run.contenders.len(), Vec::len);
        let cases: Vec<Case> = round.cases.iter().map(|&c| run.cases[c]).collect();
        let cost = estimate(run.plan, engines, cases.len());
        let mut ran = 0;
        let round_size = per_look(t.looks, t.processes);
        for k in 0..round_size {
            let left = run.budget.as_secs_f64() - run.start.elapsed().as_secs_f64();
            if cost > left {
                if k == 0 && round.announce {
                    eprintln!(
                        "    {} step(s) the verdict hinges on still straddle their bar, but the budget has {:.0} s left and a racing process would take about {cost:.0} s: stopping",
                        round.steps.len(),
                        left.max(0.0)
                    );
                }
                break;
            }
            if round.announce {
                eprintln!(
                    "    racing for look {}, process {} of at most {round_size} ({left:.0} s of the budget left): {} variants for {}",
                    t.looks + 1,
                    k + 1,
                    engines,
                    round.steps.join(", ")
                );
            }
            let began = Instant::now();
            let Some((outcome, measured)) = processes::measure_one(
                run.entry,
                run.contenders,
                round.only.as_deref(),
                &cases,
                run.plan,
                k % 2 == 1,
                run.dir,
            )?
            else {
                break;
            };
            t.add(&outcome, &measured, &round.cases);
            t.spent.push(Spent {
                look: t.looks,
                engines: (measured.iter())
                    .map(|&i| run.contenders[i].name.clone())
                    .collect(),
                cases: cases.len(),
                rounds: run.plan.rounds,
                seconds: began.elapsed().as_secs_f64(),
                for_steps: round.steps.clone(),
            });
            ran += 1;
        }
        if ran == 0 {
            return Ok(now);
        }
        t.looks += 1;
    }
}

/// The first pass, then the racing processes while the budget allows, on
/// the steps [`next`] names; returns the timings and the report of the
/// last look.
// Long: what compare races with, as it states it.
#[allow(clippy::too_many_arguments)]
pub fn race(
    settings: &Settings,
    entry: &CipherEntry,
    contenders: &mut [Contender],
    cases: &[Case],
    plan: Plan,
    processes: usize,
    budget: Duration,
    dir: &Path,
) -> Result<(Timings, Report)> {
    let start = Instant::now();
    let mut t = processes::measure(entry, contenders, cases, plan, processes, dir)?;
    let control = contenders
        .iter()
        .find(|c| c.is_control())
        .map(|c| c.name.clone());
    let crypt: Vec<usize> = t.crypt.clone();
    let mut run = Run {
        entry,
        contenders,
        cases,
        plan,
        dir,
        start,
        budget,
    };
    let report = rounds(&mut run, &mut t, |t, contenders| {
        let report = analyse::analyse(settings, entry, contenders, cases, plan, t);
        let round = (t.timed())
            .then(|| next(&report, control.as_deref()))
            .flatten()
            .map(|next| Round {
                only: Some(
                    (0..contenders.len())
                        .filter(|&i| next.contenders.contains(&contenders[i].name))
                        .collect(),
                ),
                cases: crypt.clone(),
                steps: next.steps,
                announce: true,
            });
        Ok((report, round))
    })?;
    Ok((t, report))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fixture's chain, its second step made to straddle its bar (the
    /// pick hinges on it): the racing process times that step's two
    /// variants with the reference and the control; settled, nothing more.
    #[test]
    fn racing_serves_the_steps_that_straddle_their_bar() {
        let mut r = crate::report::fixture::report();
        assert_eq!(
            next(&r, Some("auto@control")),
            None,
            "{:#?}",
            r.verdict.chain
        );
        let link = &mut r.verdict.chain[1];
        link.gain = Some(Ratio {
            ratio: 1.025,
            low: 1.015,
            high: 1.035,
        });
        link.bar = 1.0228;
        let n = next(&r, Some("auto@control")).unwrap();
        assert_eq!(n.contenders, ["auto", "auto@control", "never"]);
        assert_eq!(n.steps, ["`auto` against `never`"]);
        // A control whose interval reaches beyond the threshold is timed
        // again too, even with every step settled.
        r.verdict.chain[1].gain = Some(Ratio {
            ratio: 1.05,
            low: 1.04,
            high: 1.06,
        });
        let c = r.control.as_mut().unwrap();
        (c.ci_low, c.ci_high) = (0.97, 1.03);
        let n = next(&r, Some("auto@control")).unwrap();
        assert_eq!(n.contenders, ["auto", "auto@control"]);
        assert!(n.steps[0].contains("A/A control"));
    }

    /// Three candidates, each step leaning past its bar: the smallest is
    /// kept by the burden of proof, and settling any one step alone either
    /// moves the pick or narrows the picks left possible: each hinges.
    #[test]
    fn steps_that_lean_together_each_hinge() {
        let mut r = crate::report::fixture::report();
        let big = crate::report::fixture::entry("big", 1_600, [70.0, 120.0], Some(0.1));
        r.variants.push(big);
        let leans = Ratio {
            ratio: 1.05,
            low: 1.005,
            high: 1.10,
        };
        let measured = |a: &str, b: &str| match (a, b) {
            ("auto" | "hint" | "big", "never") | ("big", "auto" | "hint") => Some(leans),
            _ => r.faster(a, b),
        };
        let v = r.decide_by(&measured);
        assert_eq!(v.status, crate::decide::verdict::Conclusion::Decided);
        assert_eq!(v.pick.as_deref(), Some("never"));
        assert!(!v.leaning.is_empty(), "{v:#?}");
        let leaning: Vec<&Link> = v.chain.iter().filter(|l| l.straddles()).collect();
        assert!(leaning.len() >= 2, "{:#?}", v.chain);
        for l in leaning {
            assert!(hinges(&r, &measured, l), "{l:?}");
        }
    }

    #[test]
    fn nearest_the_bar_first_and_at_most_max_engines() {
        let mut r = crate::report::fixture::report();
        // (None of these steps' variants is in the report: whether the
        // verdict hinges on them is not asked here.)
        let link = |candidate: &str, against: &str, low: f64, high: f64| Link {
            candidate: candidate.into(),
            size: 1,
            against: Some(against.into()),
            size_change: 0.1,
            gain: Some(Ratio {
                ratio: (low * high).sqrt(),
                low,
                high,
            }),
            bar: 1.02,
            outcome: crate::decide::verdict::Outcome::Leans,
        };
        r.verdict.chain = (0..6)
            .map(|i| {
                // Step i straddles with its centre further from the bar.
                let c = 1.02 + 0.001 * i as f64;
                link(&format!("v{i}"), &format!("w{i}"), c - 0.01, c + 0.01)
            })
            .collect();
        let links: Vec<&Link> = r.verdict.chain.iter().rev().collect();
        let n = choose(&r, links, Some("auto@control")).unwrap();
        assert_eq!(n.contenders.len(), MAX_ENGINES);
        assert_eq!(n.steps.len(), 3);
        assert!(n.steps[0].contains("`v0`") && n.steps[2].contains("`v2`"));
    }
}
