//! What `gate` and `baseline` measure: the `compare --quick` cases, sizes,
//! instructions per operation (callgrind), and, unless `--no-time`, wall
//! clock with ratios against the peer timed in the same run.

use crate::analyse::{self, Settings};
use crate::build;
use crate::child;
use crate::ciphers;
use crate::cli;
use crate::contenders::Contender;
use crate::counts;
use crate::error::Result;
use crate::plan::Amount;
use crate::report::Report;
use crate::timings::Timings;
use crate::verdict;
use bench_harness::registry::CipherEntry;
use std::path::Path;

/// The cases the gate measures: the quick compare set.
pub fn cases(entry: &CipherEntry) -> Vec<bench_harness::compare::Case> {
    Amount::quick().cases(entry)
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
    generated_by: &str,
) -> Result<(Report, Timings)> {
    let amount = Amount::quick();
    let cases = amount.cases(entry);
    let plan = amount.plan();
    let steps = contenders.len() + 2;
    build::build_and_size(entry, contenders, dir, steps);
    let timings = if no_time {
        None
    } else {
        eprintln!(
            "[{}/{steps}] timing, interleaved (wall clock, advisory)",
            steps - 1
        );
        Some(child::measure(entry, contenders, &cases, plan, dir)?)
    };
    eprintln!("[{steps}/{steps}] counting instructions with callgrind");
    let counts = counts::count(contenders, &cases, dir);
    let timings = timings.unwrap_or_else(|| {
        let live = (0..contenders.len())
            .filter(|&i| contenders[i].live().is_some())
            .collect();
        Timings::unmeasured(live, cases.len())
    });
    let settings = Settings {
        reference: reference(entry).to_string(),
        threshold: cli::percent(verdict::THRESHOLD).expect("the default threshold parses"),
        quick: amount.quick,
        generated_by: generated_by.to_string(),
    };
    let mut report = analyse::analyse(&settings, entry, contenders, &cases, plan, &timings);
    counts::attach(&mut report, entry, contenders, &counts, &cases);
    Ok((report, timings))
}
