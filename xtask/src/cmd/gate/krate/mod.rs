//! `cargo xtask gate --crate PATH --against REV`: a crate this workspace
//! did not write, gated from its users' side. Its working tree (head) and
//! the revision REV of its repository (base, the baseline, built fresh in
//! the same run: a pull request cannot edit it) are each built, in turn in
//! one place, through the downstream shim `compare --crate` uses
//! (`sides.rs`), checked (head must compute what base computes: every
//! mode, key length, direction, 1 to 40 blocks), sized and counted by
//! callgrind in every case (`measure.rs`), and judged row by row with
//! today's thresholds (`rows.rs`). The comment says what moved on the hot
//! path (`moved.rs`, `comment.rs`).
//!
//! Exit 1 when a row regressed, head computes differently or does not
//! build; exit 2 when the base cannot be the baseline (it does not build,
//! or cannot be counted) and on any usage error.

pub mod comment;
pub mod moved;
pub mod sides;

use crate::build::code;
use crate::child::which_ran;
use crate::cmd::gate::args::Args;
use crate::cmd::gate::measure;
use crate::cmd::gate::rows::{self, Severity};
use crate::cmd::gate::summary::{self, Against, Basis};
use crate::count::by_module;
use crate::count::callgrind;
use crate::count::explain;
use crate::env::escape::md_code;
use crate::env::subject::quoted;
use crate::env::workspace;
use crate::error::{Error, Result};
use crate::intake::spec::Given;
use crate::report::ran::{Observed, Ran};
use crate::report::{Entry, Report, Speed, Status};
use crate::select::contenders::Contender;
use crate::time::plan::Amount;
use bench_harness::registry::CipherEntry;
use moved::{CaseCount, Moved};
use sides::{BASE, HEAD, Sides};

pub fn run(args: &Args, given: &Given) -> Result<()> {
    let rev = args
        .against
        .as_deref()
        .ok_or_else(|| Error::usage("--crate needs --against REV", "e.g. --against origin/main"))?;
    let manifest = given.spec.manifest().ok_or_else(|| {
        Error::usage(
            format!("--crate {}: not the path of a crate", given.text),
            "give the path of a crate in a git checkout, e.g. --crate ../block-ciphers/aes",
        )
    })?;
    let located = sides::locate(manifest, rev)?;
    let meta = workspace::metadata()?;
    callgrind::check()?;
    let sides = sides::prepare(
        located,
        rev,
        args.ty.as_deref(),
        &args.with,
        args.offline,
        &meta.target_dir,
    )?;
    let entry = CipherEntry::of_crate(&sides.cipher);
    let mut contenders = sides.contenders(entry);
    crate::env::fault::check(&crate::select::contenders::names(&contenders))?;
    let command = command(args, &given.text);
    sides.build(entry, &mut contenders)?;
    let (report, _) = measure::measure_built(
        entry,
        &mut contenders,
        &sides.work.path,
        args.no_time,
        &command,
    )?;
    let base = side(&report, BASE)?;
    let head = side(&report, HEAD)?;
    usable_base(&sides, base)?;
    let name = &sides.base.name;
    let cases: Vec<Speed> = measure::counted_cases(entry)
        .iter()
        .map(|c| crate::report::Speed::uncounted(entry, c))
        .collect();
    let wall = head.overall.filter(|_| !args.no_time);
    let mut rows = rows::rows(
        &named(base, name),
        None,
        &named(head, name),
        &cases,
        wall,
        &args.thresholds,
    );
    rows.sort_by_key(|r| r.verdict);
    let regressions = rows
        .iter()
        .filter(|r| r.verdict == Severity::Regression)
        .count();
    let basis = Basis {
        baseline: format!(
            "{} at {} ({}), built and counted in the same run",
            md_code(name),
            md_code(rev),
            &sides.commit[..12]
        ),
        against: Against::Revision,
        left_out: 0,
    };
    let title = format!(
        "crate {} ({}), type {}",
        name, sides.base.version, sides.identified.ty
    );
    let summary = summary::render(&title, &basis, &args.thresholds, &rows);
    let (moved, backends) = hot_paths(&contenders, &sides.base.lib_name);
    let ran = backend_ran(args, entry, &contenders, &sides);
    let counts = case_counts(&cases, base, head);
    let md = comment::render(&comment::Parts {
        rev,
        moved: moved.as_ref(),
        counts: &counts,
        summary: &summary,
        rows: &rows,
        backends: &backends,
        ran: ran.as_ref(),
        cpu: &crate::intake::modules::cpu_features(),
        artifacts: base.artifact.as_ref().zip(head.artifact.as_ref()),
        wall,
    });
    summary::end(
        &md,
        args.comment.as_deref(),
        &command,
        regressions,
        &format!(" of {name} against {rev}"),
    )
}

/// The command as its comment's marker says it.
fn command(args: &Args, path: &str) -> String {
    format!(
        "cargo xtask gate --crate {} --against {}{}{}",
        path,
        args.against.as_deref().unwrap_or(""),
        args.ty
            .as_ref()
            .map_or(String::new(), |t| format!(" --type {}", quoted(t))),
        (args.with.iter())
            .map(|w| format!(" --with {}", quoted(&w.text)))
            .collect::<String>()
    )
}

/// The report's entry of one side.
fn side<'a>(report: &'a Report, name: &str) -> Result<&'a Entry> {
    report
        .variants
        .iter()
        .find(|e| e.name == name)
        .ok_or_else(|| Error::failed(format!("the run has no entry for the {name}")))
}

/// The base is the baseline: one that did not build, or was not counted,
/// leaves nothing to judge by (exit 2).
fn usable_base(sides: &Sides, base: &Entry) -> Result<()> {
    if base.status == Status::Measured {
        return Ok(());
    }
    let why = base.reason.as_deref().unwrap_or("not measured");
    let what = if base.artifact.is_none() {
        "does not build through the shim"
    } else {
        "could not be counted"
    };
    Err(Error::usage(
        format!(
            "{} at {} ({}) {what}: {why}",
            sides.base.name,
            sides.rev,
            &sides.commit[..12]
        ),
        "the base revision is the baseline: gate against a revision that builds (e.g. the pull request's target branch)",
    ))
}

/// A side's entry under the crate's name, as the rows name it.
fn named(e: &Entry, name: &str) -> Entry {
    Entry {
        name: name.to_string(),
        ..e.clone()
    }
}

/// What moved on the hot path, when both sides were built, and the
/// crate's modules the head's hot path reaches (its backends).
fn hot_paths(contenders: &[Contender], lib: &str) -> (Option<Moved>, Vec<String>) {
    let functions = |name: &str| {
        let c = contenders.iter().find(|c| c.name == name)?;
        let so = &c.built()?.so;
        code::hot_path_functions(so)
            .map_err(|e| eprintln!("    the hot path of {}: {e}", so.display()))
            .ok()
    };
    let (base, head) = (functions(BASE), functions(HEAD));
    let backends = head.as_ref().map_or(Vec::new(), |h| {
        let names: Vec<String> = h.iter().map(|(n, _)| n.clone()).collect();
        crate::intake::modules::modules(lib, &names)
    });
    let moved = match (base, head) {
        (Some(b), Some(h)) => Some(moved::moved(&b, &h)),
        _ => None,
    };
    (moved, backends)
}

/// Which backend the head ran in one case of each mode family (its
/// largest, `explain::headline_cases`): sampled on this CPU (unless
/// `--no-time`) and counted by callgrind; `None` when head was not built.
fn backend_ran(
    args: &Args,
    entry: &CipherEntry,
    contenders: &[Contender],
    sides: &Sides,
) -> Option<Ran> {
    let so = &contenders.iter().find(|c| c.name == HEAD)?.built()?.so;
    let cases = explain::headline_cases(entry, &measure::counted_cases(entry));
    let (lib, dir) = (sides.base.lib_name.as_str(), &sides.work.path);
    eprintln!("[backend] which backend the head runs here, and which callgrind counted ...");
    Some(if args.no_time {
        Ran {
            timed: Observed::Unavailable("--no-time".into()),
            counted: by_module::counted(entry.name, so, &cases, lib, &[], dir),
        }
    } else {
        let per_case = which_ran::sampled_for(Amount::quick().sec);
        which_ran::observe(entry.name, so, &cases, (lib, &[]), dir, per_case)
    })
}

/// Each case's instructions per operation at both sides, where both were
/// counted.
fn case_counts(cases: &[Speed], base: &Entry, head: &Entry) -> Vec<CaseCount> {
    let count = |e: &Entry, k: &Speed| {
        e.speed_at(&k.alg, &k.dir, k.key_bits, k.block_bytes)?
            .instructions
    };
    cases
        .iter()
        .filter_map(|k| {
            Some(CaseCount {
                case: format!("{} {} {}-bit", k.alg, k.dir, k.key_bits),
                bytes: k.block_bytes,
                base: count(base, k)?,
                head: count(head, k)?,
            })
        })
        .collect()
}
