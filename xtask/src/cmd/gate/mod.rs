//! `cargo xtask gate [CIPHER|all]`: fails a change that makes a variant
//! bigger or slower than the committed baseline of the base revision (and,
//! with `--against REV`, than the base tree measured in the same run).
//! Sizes are exact bytes; speed is instructions per operation counted by
//! callgrind in every counted case, key setup included (repeatable on noisy
//! machines), with wall-clock ratios as an advisory.
//!
//! Which baseline: the one committed at the base revision (`--baseline-rev`,
//! else the `--against` revision, else HEAD), read with git, never the
//! working tree's; so neither creep across changes nor a change's own edit
//! of `reports/baseline/` moves what it is judged by. A change that edits
//! the baseline (the working tree's file, or `--baseline PATH`, differs from
//! the committed one) gets a "baseline changed in this change" table first,
//! and is judged by its own baseline only with `--accept-baseline-change`.

pub mod args;
pub mod krate;
pub mod measure;
pub mod rows;
pub mod summary;

pub use args::Args;

use crate::build::Reuse;
use crate::count::callgrind;
use crate::env::outputs::{Kind, Outputs};
use crate::env::tree::{self, BaseTree, Tree};
use crate::env::workdir::WorkDir;
use crate::env::workspace;
use crate::error::{Error, Result};
use crate::render::markdown::why;
use crate::report::baseline_file;
use crate::report::{Entry, Report, Speed};
use crate::select::ciphers;
use crate::select::contenders::{self, Contender, Origin};
use crate::time::timings::Timings;
use bench_harness::registry::CipherEntry;
use bench_harness::stats::Ratio;
use rows::{Row, Severity};
use std::path::Path;
use summary::{Against, BaselineChange, Basis};

/// A cipher's baselines: the one judged by, and what the change did to it.
struct Baselines {
    judged_by: Report,
    /// In words, for the summary.
    label: String,
    /// The variants of the committed baseline at the base revision (what
    /// the base tree is expected to build), when it could be read.
    committed_variants: Option<Vec<String>>,
    /// The change's edit of the baseline, if it made one.
    changed: Option<BaselineChange>,
}

/// The base revision: its commit, and how it was named.
struct BaseRev {
    name: String,
    commit: String,
}

pub fn run(args: Args) -> Result<()> {
    if let Some(path) = &args.comment {
        Outputs::file("--comment", path, Kind::GateComment).check()?;
    }
    if let Some(given) = &args.krate {
        return krate::run(&args, given);
    }
    let meta = workspace::metadata()?;
    let ciphers = ciphers::named(&args.cipher, true, "gate")?;
    let base_rev = check_args(&args, ciphers.len())?;
    callgrind::check()?;
    crate::env::fault::check(&contenders::possible_names(
        &ciphers,
        &[crate::env::flags::FlagSet::profile()],
    ))?;
    // Every baseline is read before anything is measured: a cipher that
    // cannot be gated (no baseline, or one that cannot be trusted) stops
    // the run (exit 2) in its first second rather than being skipped.
    let baselines = ciphers
        .iter()
        .map(|entry| read_baselines(&args, entry, base_rev.as_ref()))
        .collect::<Result<Vec<_>>>()?;
    let mut changed_md = String::new();
    let mut md = String::new();
    let mut regressions = 0;
    for (entry, baselines) in ciphers.into_iter().zip(baselines) {
        let chosen = ciphers::choose(
            entry,
            args.variants.as_deref(),
            "e.g. --variants never,auto",
        )?;
        let basis = Basis {
            baseline: baselines.label.clone(),
            against: args
                .against
                .clone()
                .map_or(Against::Nothing, Against::BaseTree),
            left_out: baselines
                .judged_by
                .variants
                .iter()
                .filter(|b| left_out(entry, &chosen, &b.name))
                .count(),
        };
        if let Some(change) = &baselines.changed {
            changed_md.push_str(&summary::render_change(change));
        }
        let (rows, inlined) = gate_one(&args, entry, &chosen, baselines, &meta.target_dir)?;
        regressions += rows
            .iter()
            .filter(|r| r.verdict == Severity::Regression)
            .count();
        md.push_str(&summary::render(
            entry.name,
            &basis,
            &args.thresholds,
            &rows,
        ));
        md.push_str(&inlined);
    }
    summary::end(
        &(changed_md + &md),
        args.comment.as_deref(),
        &format!("cargo xtask gate {}", args.cipher),
        regressions,
        "",
    )
}

/// The options that need each other, checked before anything is read or
/// built: one cipher for `--variants` and `--baseline`, revisions that
/// exist. Gives the base revision whose baselines are judged by (`None`:
/// the working tree's, when accepted without history).
fn check_args(args: &Args, ciphers: usize) -> Result<Option<BaseRev>> {
    if args.variants.is_some() && ciphers > 1 {
        return Err(Error::usage(
            "--variants names one cipher's variants, not all ciphers'",
            "give one cipher, e.g. cargo xtask gate cast6 --variants never,auto",
        ));
    }
    if args.baseline.is_some() && ciphers > 1 {
        return Err(Error::usage(
            "--baseline names one file: give one cipher",
            "e.g. cargo xtask gate cast6 --baseline PATH",
        ));
    }
    if let Some(rev) = &args.against {
        tree::resolve(rev)?;
    }
    let rev_name = args
        .baseline_rev
        .clone()
        .or_else(|| args.against.clone())
        .unwrap_or_else(|| "HEAD".into());
    match tree::resolve(&rev_name) {
        Ok(commit) => Ok(Some(BaseRev {
            name: rev_name,
            commit,
        })),
        // Judging by the working tree's file needs no history.
        Err(_) if args.accept_baseline_change && args.baseline_rev.is_none() => Ok(None),
        Err(e) => Err(e),
    }
}

/// The baselines of `entry`: the committed one at `base` and the change's
/// (the working tree's, or `--baseline`), read, compared, and the one judged
/// by checked; a setup error when the gate cannot judge by it.
// Long: the committed and the change's baseline read, parsed, checked and
// compared in the order their setup errors are reported (exit 2 before
// anything is built).
fn read_baselines(args: &Args, entry: &CipherEntry, base: Option<&BaseRev>) -> Result<Baselines> {
    let cipher = entry.name;
    let relative = baseline_file::relative(cipher);
    let committed = match base {
        Some(b) => tree::show(&b.commit, &relative)?,
        None => None,
    };
    let old = base.map_or_else(
        || "the committed baseline (no git history here)".to_string(),
        |b| {
            format!(
                "the committed baseline `{relative}` at `{}` ({})",
                b.name,
                &b.commit[..12]
            )
        },
    );
    let (path, new) = match &args.baseline {
        Some(p) => (p.clone(), format!("the baseline `{}`", p.display())),
        None => (
            baseline_file::path(cipher),
            format!("this change's baseline `{relative}` (working tree)"),
        ),
    };
    let proposed = match std::fs::read(&path) {
        Ok(bytes) => Some(bytes),
        Err(e) if args.baseline.is_some() || e.kind() != std::io::ErrorKind::NotFound => {
            return Err(Error::usage(
                format!("no baseline at {}: {e}", path.display()),
                format!("create it with: cargo xtask baseline {cipher}"),
            ));
        }
        Err(_) => None,
    };
    let changed = base.is_some()
        && committed != proposed
        && !baseline_file::same_values(committed.as_deref(), proposed.as_deref(), cipher);
    let read = |bytes: &Option<Vec<u8>>, what: &str, missing: Error| -> Result<Report> {
        let bytes = bytes.as_ref().ok_or(missing)?;
        let report = baseline_file::parse(bytes, what, cipher)?;
        baseline_file::check(&report, entry, what)?;
        Ok(report)
    };
    let no_file = |what: &str| {
        Error::usage(
            format!("no baseline for {cipher}: {what} does not exist"),
            format!(
                "create it with: cargo xtask baseline {cipher}, commit it, and have a maintainer judge by it with --accept-baseline-change"
            ),
        )
    };
    let accepted = args.accept_baseline_change || !changed;
    let (judged_by, label) = if accepted {
        let label = if changed || base.is_none() {
            new.clone()
        } else {
            old.clone()
        };
        (read(&proposed, &label, no_file(&label))?, label)
    } else {
        let judged = read(&committed, &old, no_file(&old))?;
        // What the change proposes must be usable too: a baseline nobody
        // can judge by would stop every later change.
        if proposed.is_some() {
            read(&proposed, &new, no_file(&new))?;
        }
        (judged, old.clone())
    };
    let lenient = |bytes: &Option<Vec<u8>>, what: &str| {
        bytes
            .as_ref()
            .and_then(|b| baseline_file::parse(b, what, cipher).ok())
    };
    let committed_report = lenient(&committed, &old);
    let changed = changed.then(|| BaselineChange {
        cipher: cipher.to_string(),
        old: old.clone(),
        new: new.clone(),
        rows: rows::baseline_changes(committed_report.as_ref(), lenient(&proposed, &new).as_ref()),
        accepted: args.accept_baseline_change,
    });
    Ok(Baselines {
        judged_by,
        label: format!(
            "{label}{}",
            if changed.as_ref().is_some_and(|c| c.accepted) {
                " (accepted: --accept-baseline-change)"
            } else {
                ""
            }
        ),
        committed_variants: committed_report
            .map(|r| r.variants.iter().map(|e| e.name.clone()).collect()),
        changed,
    })
}

/// Measures the `variants` of one cipher now (and the base tree, with
/// `--against`) and gives the rows, regressions first.
// Long (about 85 lines): the contenders of both trees, measured, then
// judged row by row against the baseline; the judging shares every local.
fn gate_one(
    args: &Args,
    entry: &'static CipherEntry,
    variants: &[&'static str],
    baselines: Baselines,
    target: &Path,
) -> Result<(Vec<Row>, String)> {
    let work = WorkDir::lock(target, entry.name)?;
    let timed = !args.no_time;
    let mut contenders =
        contenders::contenders(entry, variants, timed, &Tree::here(), Origin::Current);
    let base_tree = match &args.against {
        Some(rev) => Some(BaseTree::add(target, rev)?),
        None => None,
    };
    let base_variants = base_variants(variants, &baselines);
    if let Some(base) = &base_tree {
        let tree = base.tree(target);
        contenders.extend(contenders::contenders(
            entry,
            &base_variants,
            timed,
            &tree,
            Origin::Base,
        ));
    }
    let reuse = if args.rebuild {
        Reuse::Never
    } else {
        Reuse::Previous
    };
    let (now, timings) = measure::measure(
        entry,
        &mut contenders,
        &work.path,
        args.no_time,
        reuse,
        &format!("cargo xtask gate {}", entry.name),
    )?;
    drop(base_tree);
    let cases: Vec<Speed> = measure::counted_cases(entry)
        .iter()
        .map(|c| crate::report::Speed::uncounted(entry, c))
        .collect();
    let current = |name: &str| {
        contenders
            .iter()
            .find(|c| c.origin == Origin::Current && c.variant() == Some(name))
            .and_then(|c| now.variants.iter().find(|e| e.name == c.name))
    };
    let base_entry = |name: &str| {
        contenders
            .iter()
            .find(|c| c.origin == Origin::Base && c.variant() == Some(name))
            .and_then(|c| now.variants.iter().find(|e| e.name == c.name))
    };
    let judged_by = &baselines.judged_by.variants;
    let mut rows = Vec::new();
    let mut inlined = Vec::new();
    for b in judged_by
        .iter()
        .filter(|b| !left_out(entry, variants, &b.name))
    {
        let Some(n) = current(&b.name) else {
            rows.push(rows::missing(&b.name));
            continue;
        };
        let mut base = None;
        if args.against.is_some() && base_variants.contains(&b.name.as_str()) {
            match base_entry(&b.name) {
                Some(e) if e.status == crate::report::Status::Measured => base = Some(e),
                other => rows.push(rows::base_failed(
                    &b.name,
                    other
                        .and_then(|e| e.reason.as_deref())
                        .unwrap_or("not measured"),
                )),
            }
        }
        let wall = wall(args, b, n, &contenders, &timings);
        rows.extend(rows::rows(b, base, n, &cases, wall, &args.thresholds));
        inlined.push(why::Sides {
            variant: &b.name,
            base: decisions(base.unwrap_or(b)),
            head: decisions(n),
        });
    }
    for v in variants {
        if !judged_by.iter().any(|b| b.name == *v) {
            rows.push(rows::not_in_baseline(v));
        }
    }
    rows.sort_by_key(|r| r.verdict);
    let against = match &args.against {
        Some(rev) => format!("the base tree at {}", crate::env::escape::md_code(rev)),
        None => baselines.label.clone(),
    };
    let inlined = why::per_variant(entry.name, &against, &inlined);
    Ok((rows, inlined))
}

/// The LLVM decisions `e`'s artifact records (none without one).
fn decisions(e: &Entry) -> &[crate::select::artifact::Inlining] {
    e.artifact.as_ref().map_or(&[], |a| &a.inlining)
}

/// The variants the base tree builds: those its revision's baseline lists
/// (a variant this change adds has no base) that this tree still has.
fn base_variants(variants: &[&'static str], baselines: &Baselines) -> Vec<&'static str> {
    variants
        .iter()
        .copied()
        .filter(|v| {
            baselines
                .committed_variants
                .as_ref()
                .is_none_or(|names| names.iter().any(|n| n == v))
        })
        .collect()
}

/// Whether the baseline's variant `name` is one `--variants` left out: the
/// tree has it, and it was not chosen. Left out, it is neither measured nor
/// judged; a variant the tree no longer has is never left out (it is
/// `missing`, whatever was chosen).
fn left_out(entry: &CipherEntry, chosen: &[&str], name: &str) -> bool {
    !chosen.contains(&name) && ciphers::variant_names(entry).contains(&name)
}

/// Wall-clock speed of variant `now` over `before`: with `--against`, paired
/// round by round with the base tree's; else each against the peer of its
/// own run.
fn wall(
    args: &Args,
    before: &Entry,
    now: &Entry,
    contenders: &[Contender],
    timings: &Timings,
) -> Option<Ratio> {
    if args.no_time {
        return None;
    }
    if args.against.is_some() {
        let index = |origin: Origin| {
            contenders
                .iter()
                .position(|c| c.origin == origin && c.variant() == Some(now.name.as_str()))
                .and_then(|i| timings.index(i))
        };
        return timings.overall(index(Origin::Current)?, index(Origin::Base)?);
    }
    let (b, c) = (before.overall.as_ref()?, now.overall.as_ref()?);
    Some(Ratio {
        ratio: c.ratio / b.ratio,
        low: c.low / b.ratio,
        high: c.high / b.ratio,
    })
}
