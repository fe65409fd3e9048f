//! `cargo xtask compare CIPHER|all`: this workspace's ciphers, each its
//! declared variants and peers; `all` writes the index too.

use super::args::Args;
use super::pipeline::{compare, failures, print_verdict, settings};
use crate::env::flags::{self, FlagSet};
use crate::env::outputs::Outputs;
use crate::env::subject::{Described, Subject};
use crate::env::tree::Tree;
use crate::env::workdir::WorkDir;
use crate::env::workspace;
use crate::error::{Error, Result};
use crate::render::output::{self, FLAGS_DIR};
use crate::select::ciphers;
use crate::select::contenders::{self, Origin};
use bench_harness::registry::CipherEntry;
use std::path::{Path, PathBuf};

/// Compares `cipher` (or `all`), building in `target`.
pub fn run(args: &Args, cipher: &str, sets: &[FlagSet], target: &Path) -> Result<()> {
    if args.ty.is_some() || args.offline || args.features.is_some() {
        return Err(Error::usage(
            "--type, --features and --offline are for a crate (--crate), not one of this workspace's ciphers",
            "e.g. cargo xtask compare --crate aes@0.9.4 --type Aes128",
        ));
    }
    let ciphers = ciphers::named(cipher, true, "compare")?;
    let out = out_dir(args, sets)?;
    let all = cipher == "all";
    if all && (args.variants.is_some() || args.reference.is_some()) {
        return Err(Error::usage(
            "--variants and --reference name one cipher's variants, not all ciphers'",
            "give one cipher, e.g. cargo xtask compare cast6 --variants never,auto",
        ));
    }
    let selections = (ciphers.iter())
        .map(|entry| select(args, entry, sets))
        .collect::<Result<Vec<_>>>()?;
    check_out(&out, &ciphers, all, flags::is_grid(sets))?;
    crate::env::fault::check(&contenders::possible_names(&ciphers, sets))?;
    if all {
        return run_all(args, &selections, target, &out);
    }
    let result = run_one(args, &selections[0], target, &out);
    output::refresh(&out, false)?;
    result
}

/// Where the reports go: `--out`, else `reports/`, or `reports/flags/`
/// for a flag grid, which never writes over a report of the profile alone.
fn out_dir(args: &Args, sets: &[FlagSet]) -> Result<PathBuf> {
    let reports = workspace::root().join("reports");
    let grid = flags::is_grid(sets);
    let Some(out) = args.out.clone() else {
        return Ok(if grid {
            reports.join(FLAGS_DIR)
        } else {
            reports
        });
    };
    let same = |a: &Path, b: &Path| match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    if grid && same(&out, &reports) {
        return Err(Error::usage(
            "a flag grid's report does not go over the profile's reports in reports/",
            format!("leave out --out (it goes to reports/{FLAGS_DIR}/) or name another directory"),
        ));
    }
    Ok(out)
}

/// What one cipher's run measures, checked before anything is built.
struct Selection {
    entry: &'static CipherEntry,
    chosen: Vec<&'static str>,
    /// The reference's contender name: the reference variant under the
    /// first flag set.
    reference: String,
    sets: Vec<FlagSet>,
}

/// The variants `--variants` chooses of `entry`, and the reference among
/// them.
fn select(args: &Args, entry: &'static CipherEntry, sets: &[FlagSet]) -> Result<Selection> {
    let chosen = ciphers::choose(
        entry,
        args.variants.as_deref(),
        "e.g. --variants never,auto",
    )?;
    let reference = args
        .reference
        .clone()
        .unwrap_or_else(|| ciphers::default_reference(entry).to_string());
    if !chosen.contains(&reference.as_str()) {
        return Err(Error::usage(
            format!(
                "the reference variant `{reference}` is not among those measured ({})",
                chosen.join(", ")
            ),
            format!(
                "add it to --variants, or name another with --reference ({})",
                chosen.join(", ")
            ),
        ));
    }
    Ok(Selection {
        entry,
        chosen,
        reference: sets[0].contender(&reference),
        sets: sets.to_vec(),
    })
}

/// Every file the run writes is checked before anything is built: each
/// cipher's report (of its kind, a `grid` or the profile's), and what the
/// refresh of `--out` after it writes (the other reports' views, the
/// index); see [`crate::env::outputs`].
fn check_out(out: &Path, ciphers: &[&'static CipherEntry], index: bool, grid: bool) -> Result<()> {
    let mut files = Outputs::in_dir("--out", out);
    for c in ciphers {
        let of = Described {
            subject: Subject::Cipher(c.name.to_string()),
            grid,
        };
        output::plan(&mut files, out, c.name, &of);
    }
    output::plan_refresh(&mut files, out, index)?;
    files.check()
}

/// Every cipher, then the index; one cipher's failure does not stop the
/// others.
fn run_all(args: &Args, selections: &[Selection], target: &Path, out: &Path) -> Result<()> {
    let mut failed = Vec::new();
    for selection in selections {
        eprintln!("== {}", selection.entry.name);
        if let Err(e) = run_one(args, selection, target, out) {
            let cause = match e {
                Error::Failed(m) => m,
                Error::Usage { cause, .. } => cause,
            };
            failed.push(format!("{}: {cause}", selection.entry.name));
        }
    }
    output::refresh(out, true)?;
    println!("index: {}", out.join("README.md").display());
    if failed.is_empty() {
        Ok(())
    } else {
        Err(Error::failed(failed.join("; ")))
    }
}

/// Compares one cipher and writes its report.
fn run_one(args: &Args, selection: &Selection, target: &Path, out: &Path) -> Result<()> {
    let Selection {
        entry,
        chosen,
        reference,
        sets,
    } = selection;
    let settings = settings(
        args,
        reference,
        format!("cargo xtask compare {}{}", entry.name, args.flag_options()),
    );
    let contenders = (sets.iter())
        .flat_map(|set| {
            let plain = contenders::contenders(
                entry,
                chosen,
                !args.no_peer,
                &Tree::here(),
                Origin::Current,
            );
            contenders::under(set, plain)
        })
        .collect();
    let work = WorkDir::lock(target, entry.name)?;
    let report = compare(args, &settings, entry, contenders, &work.path)?;
    output::write(&report, out)?;
    print_verdict(&report, out);
    failures(&report)
}
