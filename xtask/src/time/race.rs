//! Racing: a time budget spent where the verdict hinges. The first pass
//! times every contender in `--processes` processes; then, while a step of
//! the verdict's chain has an interval that straddles its bar (or the A/A
//! control's deviation sets the bar), one more measuring process times
//! only the variants of such steps (the reference and its A/A control
//! always among them), the steps nearest their bar first
//! ([`crate::report::verdict::Link::distance`]), on the crypt cases. Each
//! extra process is one more look at the intervals, which the estimator's
//! confidence accounts for ([`crate::report::paired::confidence`]). It
//! stops when every step lies on one side of its bar, or when the next
//! process would not fit in what is left of the budget.

use crate::error::Result;
use crate::report::analyse::{self, Settings};
use crate::report::{Report, Spent};
use crate::select::contenders::Contender;
use crate::time::processes;
use crate::time::timings::Timings;
use bench_harness::compare::{Case, Plan};
use bench_harness::registry::CipherEntry;
use std::path::Path;
use std::time::{Duration, Instant};

/// At most this many contenders in one racing process (the reference and
/// the control among them): a few steps at a time, each process short.
pub const MAX_ENGINES: usize = 8;

/// The largest number of racing processes (each one look more).
pub const MAX_LOOKS: usize = 24;

/// What one racing process is to time: contender indices, and the steps
/// it serves, described.
pub struct Next {
    pub contenders: Vec<usize>,
    pub steps: Vec<String>,
}

/// What the next racing process should time, from the report of the run
/// so far: `None` when every step lies on one side of its bar.
pub fn next(report: &Report, contenders: &[Contender], control: Option<&str>) -> Option<Next> {
    let index = |name: &str| contenders.iter().position(|c| c.name == name);
    let mut links: Vec<&crate::report::verdict::Link> =
        (report.verdict.chain.iter()).filter(|l| l.straddles()).collect();
    links.sort_by(|a, b| a.distance().total_cmp(&b.distance()));
    let control_sets_bar = report.control.as_ref().is_some_and(|c| {
        crate::report::deviation(&c.interval()) > report.run.threshold
    });
    if links.is_empty() && !control_sets_bar {
        return None;
    }
    let mut chosen: Vec<usize> = [Some(report.run.reference.as_str()), control]
        .into_iter()
        .flatten()
        .filter_map(index)
        .collect();
    let mut steps = Vec::new();
    if control_sets_bar {
        steps.push("the A/A control, whose deviation sets the bar".to_string());
    }
    for l in links {
        let pair = [Some(l.candidate.as_str()), l.against.as_deref()];
        let new: Vec<usize> = (pair.into_iter().flatten())
            .filter_map(index)
            .filter(|i| !chosen.contains(i))
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
    chosen.sort_unstable();
    Some(Next {
        contenders: chosen,
        steps,
    })
}

/// The seconds one process of `engines` contenders on `cases` cases takes
/// by `plan`: its rounds, the sizing (about two rounds) and the probes,
/// with a margin.
pub fn estimate(plan: Plan, engines: usize, cases: usize) -> f64 {
    (plan.rounds + 2) as f64 * plan.batch_seconds * (engines * cases) as f64 * 1.25 + 0.5
}

/// The first pass, then the racing processes while the budget allows;
/// returns the timings and the report of the last look.
// Long: the loop reads top to bottom as the module doc says it.
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
    let crypt_cases: Vec<Case> = crypt.iter().map(|&c| cases[c]).collect();
    loop {
        let report = analyse::analyse(settings, entry, contenders, cases, plan, &t);
        if !t.timed() || t.looks > MAX_LOOKS {
            return Ok((t, report));
        }
        let Some(next) = next(&report, contenders, control.as_deref()) else {
            return Ok((t, report));
        };
        let cost = estimate(plan, next.contenders.len(), crypt_cases.len());
        let left = budget.as_secs_f64() - start.elapsed().as_secs_f64();
        if cost > left {
            eprintln!(
                "    {} step(s) still straddle their bar, but the budget has {:.0} s left and the next racing process would take about {cost:.0} s: stopping",
                next.steps.len(),
                left.max(0.0)
            );
            return Ok((t, report));
        }
        eprintln!(
            "    racing (look {}, {left:.0} s of the budget left): {} variants for {}",
            t.looks + 1,
            next.contenders.len(),
            next.steps.join(", ")
        );
        let began = Instant::now();
        let only = next.contenders.clone();
        let Some((outcome, measured)) =
            processes::measure_one(entry, contenders, Some(&only), &crypt_cases, plan, dir)?
        else {
            return Ok((t, report));
        };
        t.add(&outcome, &measured, &crypt);
        t.looks += 1;
        t.spent.push(Spent {
            look: t.looks - 1,
            engines: measured.iter().map(|&i| contenders[i].name.clone()).collect(),
            cases: crypt_cases.len(),
            rounds: plan.rounds,
            seconds: began.elapsed().as_secs_f64(),
            for_steps: next.steps,
        });
    }
}
