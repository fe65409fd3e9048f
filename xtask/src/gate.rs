//! `cargo xtask gate [CIPHER|all]`: fails a change that makes a variant
//! bigger or slower than before: the baseline file, or the base tree
//! (`--against REV`) measured in the same run. Sizes are exact bytes; speed
//! is instructions per operation counted by callgrind (repeatable on noisy
//! machines), with wall-clock ratios as an advisory.

use crate::baseline_file;
use crate::callgrind;
use crate::ciphers;
use crate::contenders::{self, Contender, Origin};
use crate::error::{Error, Result};
use crate::gate_measure;
use crate::report::{Entry, Report, Status};
use crate::rows::{self, Row, Thresholds, Verdict};
use crate::summary;
use crate::timings::Timings;
use crate::tree::{BaseTree, Tree};
use crate::workdir::WorkDir;
use crate::workspace;
use bench_harness::registry::CipherEntry;
use bench_harness::stats::Ratio;
use std::path::{Path, PathBuf};

#[derive(clap::Args)]
pub struct Args {
    /// The cipher, as the kernel names it (e.g. cast6; a wrong name lists
    /// them all), or `all`.
    #[arg(value_name = "CIPHER|all", default_value = "all")]
    cipher: String,

    /// The baseline file to compare with, for one cipher [default:
    /// reports/baseline/CIPHER.json].
    #[arg(long, value_name = "PATH")]
    baseline: Option<PathBuf>,

    #[command(flatten)]
    thresholds: Thresholds,

    /// Skip the wall-clock comparison.
    #[arg(long)]
    no_time: bool,

    /// Compare with the base tree instead of a baseline file: build REV
    /// (e.g. origin/main) in a temporary git worktree and measure both trees
    /// in the same run, wall clock paired round by round.
    #[arg(long, value_name = "REV")]
    against: Option<String>,

    /// Also write the summary (markdown) to PATH.
    #[arg(long, value_name = "PATH")]
    comment: Option<PathBuf>,
}

/// What the gate compares with.
pub enum Against {
    /// A baseline file: the one given, or each cipher's committed one.
    BaselineFile(Option<PathBuf>),
    /// The base tree at this revision, measured in the same run.
    BaseTree(String),
}

pub fn run(args: Args) -> Result<()> {
    let against = match (&args.baseline, &args.against) {
        (Some(_), Some(_)) => {
            return Err(Error::usage(
                "--baseline and --against are two ways to get a baseline; give one",
                "see cargo xtask gate --help",
            ));
        }
        (file, None) => Against::BaselineFile(file.clone()),
        (None, Some(rev)) => Against::BaseTree(rev.clone()),
    };
    if let Some(path) = &args.comment {
        workspace::check_output("--comment", path)?;
    }
    let meta = workspace::metadata()?;
    let ciphers = ciphers::named(&args.cipher, true, "gate")?;
    if args.baseline.is_some() && ciphers.len() > 1 {
        return Err(Error::usage(
            "--baseline names one file: give one cipher",
            "e.g. cargo xtask gate cast6 --baseline PATH",
        ));
    }
    callgrind::check()?;
    // Every baseline is read before anything is measured: a cipher that
    // cannot be gated (no baseline, or one that cannot be trusted) stops
    // the run (exit 2) in its first second rather than being skipped.
    let stored = ciphers
        .iter()
        .map(|entry| stored_baseline(&against, entry))
        .collect::<Result<Vec<_>>>()?;
    let mut md = String::new();
    let mut regressions = 0;
    for (entry, stored) in ciphers.into_iter().zip(stored) {
        let rows = gate_one(&args, &against, entry, stored, &meta.target_dir)?;
        regressions += rows
            .iter()
            .filter(|r| r.verdict == Verdict::Regression)
            .count();
        md.push_str(&summary::render(
            entry.name,
            &against,
            &args.thresholds,
            &rows,
        ));
    }
    print!("{md}");
    if let Some(path) = &args.comment {
        workspace::write_output("--comment", path, md.as_bytes())?;
    }
    if regressions > 0 {
        Err(Error::failed(format!(
            "{regressions} regression(s); see the table above"
        )))
    } else {
        Ok(())
    }
}

/// The baseline file `against` names for `entry`, read and checked (none
/// when the base is a tree).
fn stored_baseline(against: &Against, entry: &CipherEntry) -> Result<Option<Report>> {
    match against {
        Against::BaselineFile(path) => {
            let path = path
                .clone()
                .unwrap_or_else(|| baseline_file::path(entry.name));
            baseline_file::load(&path, entry.name).map(Some)
        }
        Against::BaseTree(_) => Ok(None),
    }
}

/// Measures one cipher now (and the base tree, with `--against`) and gives
/// the rows, regressions first.
fn gate_one(
    args: &Args,
    against: &Against,
    entry: &'static CipherEntry,
    stored: Option<Report>,
    target: &Path,
) -> Result<Vec<Row>> {
    let work = WorkDir::lock(target, entry.name)?;
    let variants = ciphers::variant_names(entry);
    let mut contenders =
        contenders::contenders(entry, &variants, true, &Tree::here(), Origin::Current);
    let base_tree = match against {
        Against::BaseTree(rev) => Some(BaseTree::add(target, rev)?),
        Against::BaselineFile(_) => None,
    };
    if let Some(base) = &base_tree {
        let tree = base.tree(target);
        contenders.extend(contenders::contenders(
            entry,
            &variants,
            false,
            &tree,
            Origin::Base,
        ));
    }
    let generated_by = format!("cargo xtask gate {}", entry.name);
    let (now, timings) = gate_measure::measure(
        entry,
        &mut contenders,
        &work.path,
        args.no_time,
        &generated_by,
    )?;
    drop(base_tree);
    let before = match against {
        Against::BaselineFile(_) => stored.map(|file| file.variants).unwrap_or_default(),
        Against::BaseTree(rev) => base_tree_entries(rev, &contenders, &now)?,
    };
    let mut rows = Vec::new();
    for b in before.iter().filter(|e| e.status == Status::Measured) {
        match now.variants.iter().find(|e| e.name == b.name) {
            None => rows.push(rows::missing(&b.name)),
            Some(n) => {
                let wall = wall(args, against, b, n, &contenders, &timings);
                rows.extend(rows::rows(b, n, wall, &args.thresholds));
            }
        }
    }
    rows.sort_by_key(|r| r.verdict);
    Ok(rows)
}

/// The base tree's variant entries in `now`, named as the current ones; a
/// usage error when none of them could be built.
fn base_tree_entries(rev: &str, contenders: &[Contender], now: &Report) -> Result<Vec<Entry>> {
    let entries: Vec<(&Contender, &Entry)> = contenders
        .iter()
        .filter(|c| c.origin == Origin::Base && !c.is_peer())
        .filter_map(|c| Some((c, now.variants.iter().find(|e| e.name == c.name)?)))
        .collect();
    if !entries.iter().any(|(_, e)| e.artifact.is_some()) {
        let why = entries
            .iter()
            .find_map(|(_, e)| e.reason.clone())
            .unwrap_or_default();
        return Err(Error::usage(
            format!(
                "no variant of `{rev}` could be built, so there is nothing to compare with: {why}"
            ),
            "compare against a revision that has the inlinelab-artifact crate, or use the committed baseline",
        ));
    }
    Ok(entries
        .into_iter()
        .filter_map(|(c, e)| {
            let mut e = e.clone();
            e.name = c.variant()?.to_string();
            Some(e)
        })
        .collect())
}

/// Wall-clock speed of variant `now` over `before`: with a baseline file,
/// each against the peer of its own run; with the base tree, paired round
/// by round.
fn wall(
    args: &Args,
    against: &Against,
    before: &Entry,
    now: &Entry,
    contenders: &[Contender],
    timings: &Timings,
) -> Option<Ratio> {
    if args.no_time {
        return None;
    }
    match against {
        Against::BaselineFile(_) => {
            let (b, c) = (before.overall.as_ref()?, now.overall.as_ref()?);
            Some(Ratio {
                ratio: c.ratio / b.ratio,
                low: c.low / b.ratio,
                high: c.high / b.ratio,
            })
        }
        Against::BaseTree(_) => {
            let index = |origin: Origin| {
                contenders
                    .iter()
                    .position(|c| c.origin == origin && c.variant() == Some(now.name.as_str()))
                    .and_then(|i| timings.index(i))
            };
            timings.overall(index(Origin::Current)?, index(Origin::Base)?)
        }
    }
}
