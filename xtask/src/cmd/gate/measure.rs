//! What `gate` and `baseline` measure: sizes, instructions per operation
//! (callgrind) in every case of [`cases::gate_cases`] (every mode, key size
//! and direction at three sizes, and key setup), and, unless `--no-time`,
//! wall clock over the `compare --quick` cases with ratios against the peer
//! timed in the same run. A crate's artifacts are checked against its
//! oracle by the measuring process, timed or not.

use crate::build::{self, Reuse};
use crate::cli;
use crate::count::{counts, memcheck};
use crate::decide::verdict;
use crate::error::Result;
use crate::report::Report;
use crate::select::cases;
use crate::select::ciphers;
use crate::select::contenders::{self, Contender};
use crate::time::analyse::{self, Settings};
use crate::time::plan::Amount;
use crate::time::processes;
use crate::time::timings::Timings;
use bench_harness::registry::CipherEntry;
use bench_harness::sampling::Case;
use std::path::Path;

/// The cases the gate counts instructions in (and a baseline file holds).
pub fn counted_cases(entry: &CipherEntry) -> Vec<Case> {
    cases::gate_cases(entry)
}

/// [`counts::count`] of each contender in a valgrind run of its own, each
/// artifact the first one its process loads: a crate's two sides (`gate
/// --crate`) are compared with each other, and the same code must count
/// the same. In one process, the artifact loaded second can count a few
/// instructions more or fewer in a case than the first (with the loader's
/// state and the environment: 2 of 2460 in key setup, seen with cargo
/// test's `LD_LIBRARY_PATH`).
fn count_each_alone(
    contenders: &mut [Contender],
    cases: &[bench_harness::sampling::Case],
    dir: &Path,
) -> Vec<counts::Tally> {
    (0..contenders.len())
        .map(|i| {
            counts::count(&mut contenders[i..=i], cases, dir)
                .pop()
                .unwrap_or(counts::Tally::Skipped)
        })
        .collect()
}

/// What ratios are taken against: the (first) peer, measured in the same
/// run, else the reference variant.
fn reference(entry: &CipherEntry) -> &'static str {
    entry
        .peers
        .first()
        .map_or(ciphers::default_reference(entry), |p| p.name)
}

/// Builds, sizes, counts and (unless `no_time`) times `contenders` in `dir`;
/// returns the report over them, made by `generated_by`, and the timings.
pub fn measure(
    entry: &CipherEntry,
    contenders: &mut [Contender],
    dir: &Path,
    no_time: bool,
    reuse: Reuse,
    generated_by: &str,
) -> Result<(Report, Timings)> {
    let steps = contenders.len() + 2;
    // The peers are timed (not counted): one that offers none of the
    // timed cases is left out before it is built.
    contenders::leave_out_unoffered(contenders, &Amount::quick().cases(entry));
    build::build_and_size_reusing(entry, contenders, dir, steps, reuse);
    measure_built(entry, contenders, dir, no_time, generated_by)
}

/// [`measure`] of `contenders` already built and sized (each as its
/// caller built it): checked or timed, counted, analysed.
pub fn measure_built(
    entry: &CipherEntry,
    contenders: &mut [Contender],
    dir: &Path,
    no_time: bool,
    generated_by: &str,
) -> Result<(Report, Timings)> {
    let amount = Amount::quick();
    let timed_cases = amount.cases(entry);
    let counted = counted_cases(entry);
    let plan = amount.plan();
    let steps = contenders.len() + 2;
    let timings = if no_time {
        if entry.from_crate.is_some() {
            // A crate's artifacts against its oracle, not timed: the
            // native check compare runs before its slow stages.
            processes::check(entry, contenders, &timed_cases, dir)?;
        }
        None
    } else {
        eprintln!(
            "[{}/{steps}] timing, interleaved (wall clock, advisory)",
            steps - 1
        );
        Some(processes::measure(
            entry,
            contenders,
            &timed_cases,
            plan,
            amount.processes,
            dir,
        )?)
    };
    let variants = contenders.iter().filter(|c| !c.is_peer()).count();
    eprintln!(
        "[{steps}/{steps}] counting instructions with callgrind: {variants} variants x {} cases, {}",
        counted.len(),
        if entry.from_crate.is_some() {
            "a valgrind run each"
        } else {
            "a valgrind run a core's share"
        }
    );
    let start = std::time::Instant::now();
    let counts = if entry.from_crate.is_some() {
        count_each_alone(contenders, &counted, dir)
    } else {
        counts::count(contenders, &counted, dir)
    };
    eprintln!("    counted in {:.1}s", start.elapsed().as_secs_f64());
    let timings = timings.unwrap_or_else(|| {
        let live = (0..contenders.len())
            .filter(|&i| contenders[i].live().is_some())
            .collect();
        Timings::unmeasured(live, timed_cases.len())
    });
    let settings = Settings {
        reference: reference(entry).to_string(),
        threshold: cli::percent(verdict::THRESHOLD).expect("the default threshold parses"),
        size_cost: cli::percent(verdict::SIZE_COST).expect("the default size cost parses"),
        budget_seconds: None,
        machine_name: None,
        // The gate decides by instructions; its timing is advisory.
        calibrations: Vec::new(),
        quick: amount.quick,
        keys: amount.keys(),
        generated_by: generated_by.to_string(),
        command: format!("cargo xtask compare {}", entry.name),
    };
    let mut report = analyse::analyse(&settings, entry, contenders, &timed_cases, plan, &timings);
    counts::attach(&mut report, entry, contenders, &counts, &counted);
    // Every variant kept: the gate judges a change's secrets against the
    // baseline's (`rows::secrets_row`), it screens nothing.
    let mut all_cases = timed_cases.clone();
    all_cases.extend(amount.setkey(entry));
    let secrets = memcheck::screen(contenders, &settings.reference, &all_cases, dir, true);
    memcheck::attach(&mut report, secrets);
    Ok((report, timings))
}
