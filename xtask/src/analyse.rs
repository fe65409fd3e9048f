//! Report assembly: the report from the contenders, their timings and the
//! run's settings: an entry per contender (its status, sizes, speeds and
//! ratios to the reference), the notes, the raw lines and the verdict.

use crate::contenders::{Contender, State};
use crate::raw;
use crate::report::{self, Entry, Machine, Report, Run, Speed, Status};
use crate::timings::Timings;
use crate::verdict::{self, Candidate, Verdict};
use crate::workspace;
use bench_harness::compare::{Case, Plan};
use bench_harness::registry::CipherEntry;
use bench_harness::stats;

/// What the run was asked for, as the report records it.
pub struct Settings {
    /// The name of the contender ratios are taken against: the reference
    /// variant (for the gate, the peer).
    pub reference: String,
    /// The verdict's threshold, as a fraction (0.02 is 2%).
    pub threshold: f64,
    pub quick: bool,
    /// The command, for the report's first line.
    pub generated_by: String,
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
    let reference = contenders
        .iter()
        .position(|c| c.name == settings.reference)
        .and_then(|i| t.index(i));
    let mut variants = Vec::new();
    let mut peers = Vec::new();
    let mut raw = String::new();
    for (i, c) in contenders.iter().enumerate() {
        // Its sample index, while it is sound.
        let k = t.index(i).filter(|_| c.live().is_some());
        if let Some(k) = k.filter(|_| t.timed()) {
            raw.push_str(&raw::lines(entry.name, cases, &c.label, |ci| {
                stats::median(&t.ticks(k, ci))
            }));
        }
        let e = entry_of(entry.name, c, k, reference, cases, t);
        if c.is_peer() {
            peers.push(e);
        } else {
            variants.push(e);
        }
    }
    let verdict = decide(settings, contenders, &variants, &peers, t);
    let (commit, dirty) = workspace::git();
    Report {
        schema_version: report::SCHEMA_VERSION,
        generated_by: settings.generated_by.clone(),
        cipher: entry.name.to_string(),
        machine: machine(t),
        toolchain: workspace::toolchain(),
        date: workspace::today(),
        commit,
        dirty,
        run: Run {
            quick: settings.quick,
            rounds: plan.rounds,
            batch_seconds: plan.batch_seconds,
            reference: settings.reference.clone(),
            threshold: settings.threshold,
            quiet_share: if t.total_rounds == 0 {
                0.0
            } else {
                t.quiet_total as f64 / t.total_rounds as f64
            },
            notes: notes(entry, cases, t),
        },
        variants,
        peers,
        verdict,
        raw,
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
        (State::Failed { why, .. }, None) => (Status::Failed, Some(why.clone())),
        (State::Pending | State::Built(_), None) => (Status::Failed, Some("not measured".into())),
    };
    let against = |k: usize| reference.filter(|&r| r != k);
    let built = c.built();
    Entry {
        name: c.name.clone(),
        label: c.label.clone(),
        status,
        reason,
        artifact: built.map(|b| b.artifact.clone()),
        measured_fingerprint: built.and_then(|b| b.loaded.clone()),
        speed: match k.filter(|_| t.timed()) {
            Some(k) => speeds(cipher, cases, t, k, against(k)),
            None => Vec::new(),
        },
        overall: k.and_then(|k| against(k).and_then(|r| t.overall(k, r))),
    }
}

/// Engine `k`'s speed in each case, and its ratio to engine `reference`.
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
        .map(|(ci, case)| {
            let ticks = t.ticks(k, ci);
            let median = stats::median(&ticks);
            Speed {
                alg: case.alg(cipher),
                dir: case.dir_name().into(),
                key_bits: case.key_bytes * 8,
                block_bytes: case.block_bytes,
                bytes_per_sec: case.block_bytes as f64 * t.hz() / median,
                cycles_per_byte: median / case.block_bytes as f64,
                spread: stats::spread(&ticks),
                ratio: reference.and_then(|r| t.ratio(k, r, ci)),
                rounds: ticks.len(),
                instructions: None,
            }
        })
        .collect()
}

/// The kernel reviewers' rule over the measured entries.
fn decide(
    settings: &Settings,
    contenders: &[Contender],
    variants: &[Entry],
    peers: &[Entry],
    t: &Timings,
) -> Verdict {
    let candidate = |e: &Entry| -> Option<Candidate> {
        let a = e.artifact.as_ref()?;
        if e.status != Status::Measured {
            return None;
        }
        let speed = if e.name == settings.reference {
            1.0
        } else {
            e.overall.as_ref()?.ratio
        };
        Some(Candidate {
            name: e.name.clone(),
            size: a.text_bytes,
            speed,
        })
    };
    let vc: Vec<Candidate> = variants.iter().filter_map(candidate).collect();
    let pc: Vec<Candidate> = peers.iter().filter_map(candidate).collect();
    let index_of = |name: &str| {
        contenders
            .iter()
            .position(|c| c.name == name)
            .and_then(|i| t.index(i))
    };
    let faster = |a: &str, b: &str| t.overall(index_of(a)?, index_of(b)?);
    verdict::decide(&vc, &pc, &faster, settings.threshold)
}

fn machine(t: &Timings) -> Machine {
    let counter = t.outcome.as_ref().map(|o| &o.counter);
    Machine {
        cpu: workspace::cpu(),
        counter: counter.map_or("none".into(), |c| c.kind.clone()),
        counter_ghz: counter.map_or(0.0, |c| c.hz / 1e9),
        core_ghz: counter.and_then(|c| c.core_hz).map(|h| h / 1e9),
    }
}

/// Doubts about the measurement: cases whose core was mostly shared.
fn notes(entry: &CipherEntry, cases: &[Case], t: &Timings) -> Vec<String> {
    if t.uncertain.is_empty() {
        return Vec::new();
    }
    let short: Vec<String> = t
        .uncertain
        .iter()
        .map(|&c| {
            let k = &cases[c];
            format!(
                "{} {} {}-bit {} B",
                k.alg(entry.name),
                k.dir_name(),
                k.key_bytes * 8,
                k.block_bytes
            )
        })
        .collect();
    vec![format!(
        "the machine's core was shared (running below full capacity) in most rounds of {} of {} cases, so their medians come from every round and are uncertain; the ratios pair each round's batches, which ran milliseconds apart, and are less affected. Uncertain: {}.",
        short.len(),
        cases.len(),
        short.join("; ")
    )]
}
