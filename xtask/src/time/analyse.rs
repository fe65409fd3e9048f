//! Report assembly: the report from the contenders, their timings and the
//! run's settings: an entry per contender (its status, sizes, speeds with
//! every round's sample, ratios to the reference, and the variant it has
//! the same hot-path code as), the A/A control, the notes, the raw lines
//! and the verdict.

use crate::cli;
use crate::decide::verdict::{self, Candidate, Noise, Verdict};
use crate::env::workspace;
use crate::report::calibration::{self, Calibration};
use crate::report::raw;
use crate::report::{
    self, Control, Counting, Entry, NotOffered, Operation, Quiet, Report, Run, Speed, Status,
    Unoffered,
};
use crate::select::cases::Keys;
use crate::select::contenders::{Contender, State};
use crate::time::timings::Timings;
use bench_harness::interleave;
use bench_harness::registry::CipherEntry;
use bench_harness::sampling::{Case, Plan};
use bench_harness::stats::Ratio;

/// What the run was asked for, as the report records it.
pub struct Settings {
    /// The name of the contender ratios are taken against: the reference
    /// variant (for the gate, the peer).
    pub reference: String,
    /// The verdict's threshold, as a fraction (0.02 is 2%).
    pub threshold: f64,
    /// The extra gain per doubling of footprint, as a fraction.
    pub size_cost: f64,
    /// The seconds of timing allowed (`--budget`), where there was one.
    pub budget_seconds: Option<f64>,
    /// The name `--machine-label` adds to the CPU's label.
    pub machine_name: Option<String>,
    /// The calibrations at hand (`reports/calibration`): the one of the
    /// machine that measured gives the spread between runs.
    pub calibrations: Vec<Calibration>,
    pub quick: bool,
    /// The key sizes timed.
    pub keys: Keys,
    /// The command, for the report's first line.
    pub generated_by: String,
    /// The command that measures the same again (`cargo xtask compare
    /// cast6`, `cargo xtask compare --crate cast6@0.2.0`), which an
    /// inconclusive verdict's rerun extends.
    pub command: String,
}

/// The report over `contenders`, timed (or not) as `t` says.
pub fn analyse(
    settings: &Settings,
    entry: &CipherEntry,
    contenders: &[Contender],
    cases: &[Case],
    plan: Plan,
    t: &Timings,
) -> Report {
    let index_of = |name: &str| {
        contenders
            .iter()
            .position(|c| c.name == name)
            .and_then(|i| t.index(i))
    };
    let reference = index_of(&settings.reference);
    let mut variants = Vec::new();
    let mut peers = Vec::new();
    let mut control = None;
    let mut raw = String::new();
    for (i, c) in contenders.iter().enumerate() {
        // Its sample index, while it is sound.
        let k = t.index(i).filter(|_| c.live().is_some());
        if let Some(k) = k.filter(|_| t.timed() && !c.is_control()) {
            // The cases it ran (a library peer's, those it offers).
            let runs: Vec<usize> = (0..cases.len()).filter(|&ci| t.runs(k, ci)).collect();
            let ran: Vec<Case> = runs.iter().map(|&ci| cases[ci]).collect();
            raw.push_str(&raw::lines(entry.name, &ran, &c.label, |i| {
                t.level(k, runs[i])
            }));
        }
        let e = entry_of(entry.name, c, k, reference, cases, t);
        if c.is_control() {
            control = control_of(c, e, k, reference, t);
        } else if c.is_peer() {
            peers.push(e);
        } else {
            variants.push(e);
        }
    }
    same_code(contenders, &mut variants);
    let faster = |a: &str, b: &str| t.overall(index_of(a)?, index_of(b)?);
    let between_runs = (t.outcome.as_ref()).and_then(|o| {
        calibration::between_for(&settings.calibrations, &o.machine.cpu_info.label())
    });
    let noise = Noise {
        threshold: settings.threshold,
        size_cost: settings.size_cost,
        control: control.as_ref().map(Control::interval),
        between: between_runs.as_ref().map_or(0.0, |b| b.spread),
        timed: t.timed(),
    };
    let rerun = rerun(&settings.command, settings.budget_seconds, t);
    let mut verdict = decide(settings, &variants, &peers, &noise, &faster, &rerun);
    if verdict.rerun.is_none() && verdict.status == verdict::Conclusion::Inconclusive {
        verdict
            .reasons
            .extend(first_failure(&settings.reference, &variants, &peers));
    }
    Report {
        schema_version: report::SCHEMA_VERSION,
        generated_by: settings.generated_by.clone(),
        cipher: entry.name.to_string(),
        machine: t.outcome.as_ref().map(|o| o.machine.clone()),
        machine_label: t.outcome.as_ref().map(|o| {
            let cpu = o.machine.cpu_info.label();
            match &settings.machine_name {
                Some(name) => format!("{cpu}-{name}"),
                None => cpu,
            }
        }),
        toolchain: crate::env::profile::toolchain(),
        date: workspace::today(),
        commit: workspace::commit(),
        inputs: workspace::inputs(),
        run: Run {
            between_runs,
            ..run(settings, plan, t)
        },
        control,
        variants,
        peers,
        verdict,
        annotations: None,
        flag_sets: flag_sets(contenders),
        suggested: None,
        raw,
    }
}

/// The flag sets `contenders` were built under, in their order; none when
/// the profile's alone.
fn flag_sets(contenders: &[Contender]) -> Vec<crate::env::flags::FlagSet> {
    let mut sets: Vec<crate::env::flags::FlagSet> = Vec::new();
    for c in contenders {
        if !sets.contains(&c.tree.flags) {
            sets.push(c.tree.flags.clone());
        }
    }
    if !crate::env::flags::is_grid(&sets) {
        sets.clear();
    }
    sets
}

fn run(settings: &Settings, plan: Plan, t: &Timings) -> Run {
    Run {
        quick: settings.quick,
        keys: settings.keys,
        rounds: plan.rounds,
        batch_seconds: plan.batch_seconds,
        reference: settings.reference.clone(),
        threshold: settings.threshold,
        quiet: Quiet {
            criterion: interleave::criterion(),
            threshold: interleave::QUIET,
        },
        quiet_share: if t.total_rounds == 0 {
            0.0
        } else {
            t.quiet_total as f64 / t.total_rounds as f64
        },
        processes: t.processes,
        looks: t.looks,
        budget_seconds: settings.budget_seconds,
        size_cost: settings.size_cost,
        spent: t.spent.clone(),
        between_runs: None,
        // compare counts after the analysis, when it can (`explain.rs`).
        counting: Counting::NotAsked,
        notes: Vec::new(),
    }
}

/// The entry of contender `c`, whose sample index is `k` if it was measured
/// and is sound; `reference` is the reference's sample index.
fn entry_of(
    cipher: &str,
    c: &Contender,
    k: Option<usize>,
    reference: Option<usize>,
    cases: &[Case],
    t: &Timings,
) -> Entry {
    let (status, reason) = match (&c.state, k) {
        (_, Some(_)) => (Status::Measured, None),
        (State::Unavailable { why, .. }, None) => (Status::Unavailable, Some(why.clone())),
        (State::Screened { why, .. }, None) => (Status::Screened, Some(why.clone())),
        (State::Failed { why, .. }, None) => (Status::Failed, Some(why.clone())),
        (State::Hung { why, .. }, None) => (Status::Hung, Some(why.clone())),
        (State::Pending | State::Built(_), None) => (Status::Failed, Some("not measured".into())),
    };
    let against = |k: usize| reference.filter(|&r| r != k);
    let built = c.built();
    let not_offered = not_offered(cipher, c, cases);
    Entry {
        name: c.name.clone(),
        label: c.label.clone(),
        status,
        reason,
        same_code_as: None,
        artifact: built.map(|b| b.artifact.clone()),
        measured_fingerprint: built.and_then(|b| b.loaded.clone()),
        speed: match k.filter(|_| t.timed()) {
            Some(k) => speeds(cipher, cases, t, k, against(k)),
            None => Vec::new(),
        },
        overall: k.and_then(|k| against(k).and_then(|r| t.overall(k, r))),
        uncounted: None,
        flags: (!c.tree.flags.is_profile()).then(|| c.tree.flags.name()),
        secrets: None,
        older_cpu: None,
        not_offered,
    }
}

/// The control's figures: its speed over the reference's.
fn control_of(
    c: &Contender,
    e: Entry,
    k: Option<usize>,
    reference: Option<usize>,
    t: &Timings,
) -> Option<Control> {
    let r = t.overall(k?, reference?)?;
    let crate::select::contenders::Kind::Control(_) = c.kind else {
        return None;
    };
    Some(Control {
        of: c.name.trim_end_matches("@control").to_string(),
        ratio: r.ratio,
        ci_low: r.low,
        ci_high: r.high,
        speed: e.speed,
    })
}

/// A library peer's cases of `cases` it does not offer, each mode and key
/// size once; `None` where it offers every one.
fn not_offered(cipher: &str, c: &Contender, cases: &[Case]) -> Option<NotOffered> {
    let library = c.library()?;
    let mut out: Vec<Unoffered> = Vec::new();
    for case in cases.iter().filter(|case| c.offers(case).is_err()) {
        let u = Unoffered {
            alg: case.alg(cipher),
            key_setup: !case.kind.is_crypt(),
            key_bits: case.key_bytes * 8,
        };
        if !out.contains(&u) {
            out.push(u);
        }
    }
    (!out.is_empty()).then(|| NotOffered {
        by: library.name.name().to_string(),
        offers: library.offered(),
        cases: out,
    })
}

/// Engine `k`'s speed in each case it runs (see [`Timings::runs`]), and
/// its ratio to engine `reference`.
fn speeds(
    cipher: &str,
    cases: &[Case],
    t: &Timings,
    k: usize,
    reference: Option<usize>,
) -> Vec<Speed> {
    cases
        .iter()
        .enumerate()
        .filter(|&(ci, _)| t.runs(k, ci))
        .map(|(ci, case)| {
            let mut s = Speed {
                alg: case.alg(cipher),
                dir: Operation::of(case),
                key_bits: case.key_bytes * 8,
                block_bytes: case.block_bytes,
                ticks_per_op: 0.0,
                ops_per_sec: 0.0,
                bytes_per_sec: None,
                ticks_per_byte: None,
                spread: 0.0,
                ratio: reference.and_then(|r| t.ratio(k, r, ci)),
                rounds: 0,
                instructions: None,
                samples: t.samples(k, ci),
            };
            s.set_figures(t.hz());
            s
        })
        .collect()
}

/// Sets each variant's `same_code_as`: the first variant before it whose
/// hot path normalizes to the same bytes.
fn same_code(contenders: &[Contender], variants: &mut [Entry]) {
    let code = |name: &str| {
        contenders
            .iter()
            .find(|c| c.name == name && !c.is_control())
            .and_then(|c| c.built())
            .and_then(|b| b.hot_path.as_deref())
    };
    for i in 0..variants.len() {
        let Some(mine) = code(&variants[i].name) else {
            continue;
        };
        let first = variants[..i]
            .iter()
            .find(|e| e.same_code_as.is_none() && code(&e.name) == Some(mine))
            .map(|e| e.name.clone());
        variants[i].same_code_as = first;
    }
}

/// Why a run measured nothing: the reference's failure, else the first
/// entry's that failed or hung, with its reason.
fn first_failure(reference: &str, variants: &[Entry], peers: &[Entry]) -> Option<String> {
    let failed = |e: &&Entry| matches!(e.status, Status::Failed | Status::Hung);
    let all = || variants.iter().chain(peers);
    let first = (all().filter(failed))
        .find(|e| e.name == reference)
        .or_else(|| all().find(failed))?;
    Some(format!(
        "the first to fail was {} ({}): {}",
        crate::env::escape::md_code(&first.name),
        first.status,
        first.reason.as_deref().unwrap_or("no reason recorded")
    ))
}

/// The kernel reviewers' rule over the measured entries.
fn decide(
    settings: &Settings,
    variants: &[Entry],
    peers: &[Entry],
    noise: &Noise,
    faster: &dyn Fn(&str, &str) -> Option<Ratio>,
    rerun: &str,
) -> Verdict {
    let candidate = |e: &Entry| e.candidate(&settings.reference);
    let vc: Vec<Candidate> = variants.iter().filter_map(candidate).collect();
    let pc: Vec<Candidate> = peers.iter().filter_map(candidate).collect();
    verdict::decide(&vc, &pc, faster, noise, &settings.reference, rerun)
}

/// The command that measures more where this run could not decide: twice
/// the first pass's processes (each interval about 1/sqrt(2) as wide before
/// racing starts, which a larger budget alone does not give once the looks
/// are spent) and twice the budget, within what the flags take.
fn rerun(command: &str, budget: Option<f64>, t: &Timings) -> String {
    let Some(b) = budget else {
        return command.to_string();
    };
    let first = t.spent.iter().filter(|s| s.look == 0).count();
    let processes = (2 * first).clamp(*cli::PROCESSES.start(), *cli::PROCESSES.end());
    format!(
        "{command} --processes {processes} --budget {:.0}",
        (2.0 * b).min(3600.0)
    )
}
