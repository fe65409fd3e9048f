//! `cargo xtask render [DIR]`: renders every report's markdown and chart,
//! and the index, again from the JSON in DIR, after a change to the
//! renderer; nothing is measured. A report's JSON is left as it is, unless
//! it is of an older schema: then it is written again in this one
//! ([`crate::report::Report::upgraded`]), and so is each baseline file of
//! an older schema in `DIR/baseline/` (JSON only: a baseline has no views)
//! and each other machine's report of an older schema in
//! `DIR/machines/LABEL/` (JSON only: its view is the cross-machine report
//! `cargo xtask merge` writes, which reads either schema to the same
//! figures). A `.json` file that is not a report (a
//! `tcrypt --json` output) is skipped with a line saying so; one that
//! claims to be a report but cannot be read or trusted (another schema
//! version, a cipher name that is not a plain name, a size of 0) is
//! skipped too, and makes the exit code 1 once the others are rendered.
//! Each calibration in `DIR/calibration/` is rendered again from its JSON
//! too.

use crate::env::escape::terminal;
use crate::env::outputs::{self, Kind, Outputs};
use crate::env::workspace;
use crate::error::{Error, Result};
use crate::render::calibration::markdown;
use crate::render::output;
use crate::report::baseline_file;
use crate::report::calibration::{self, Calibration};
use crate::report::check;
use crate::report::json;
use crate::report::reader;
use crate::report::{Report, SCHEMA_VERSION};
use std::path::{Path, PathBuf};

#[derive(clap::Args)]
pub struct Args {
    /// The reports directory.
    #[arg(value_name = "DIR", default_value_os_t = workspace::root().join("reports"))]
    dir: PathBuf,
}

pub fn run(args: Args) -> Result<()> {
    let read = reader::read_reports(&args.dir)?;
    read.say();
    // Read (and checked) before anything is written.
    let baselines = older_baselines(&args.dir.join("baseline"))?;
    let machines = older_machine_reports(&args.dir.join("machines"))?;
    let calibrations = calibrations(&args.dir);
    if read.reports.is_empty()
        && baselines.is_empty()
        && machines.is_empty()
        && calibrations.is_empty()
    {
        return Err(Error::usage(
            format!(
                "{} holds no compare report (CIPHER.json) nor a baseline or another machine's report to upgrade",
                args.dir.display()
            ),
            "give the reports directory, e.g. cargo xtask render reports",
        ));
    }
    check_outputs(
        &args.dir,
        &read.reports,
        &baselines,
        &machines,
        &calibrations,
    )?;
    for r in &read.reports {
        if older_schema(&args.dir.join(format!("{}.json", r.cipher))) {
            output::write(r, &args.dir)?;
        } else {
            output::render(r, &args.dir)?;
        }
        let md = args.dir.join(format!("{}.md", r.cipher));
        println!("rendered {}", terminal(&md.display().to_string()));
    }
    if indexed(&args.dir, &read.reports) {
        output::write_index_of(&args.dir, &read.reports)?;
    }
    rewrite_baselines(&baselines)?;
    for (path, report) in &machines {
        outputs::write(
            path,
            &output::kind_of(report)?,
            json::to_json(report).as_bytes(),
        )?;
        println!("rewrote {}", terminal(&path.display().to_string()));
    }
    for (path, cal) in &calibrations {
        outputs::write(path, &Kind::Calibration, markdown(cal).as_bytes())?;
        println!("rendered {}", terminal(&path.display().to_string()));
    }
    match read.refused() {
        0 => Ok(()),
        n => Err(Error::failed(format!(
            "{n} file(s) in {} look like reports but could not be read (named above); the others were rendered",
            args.dir.display()
        ))),
    }
}

/// Whether `dir`'s index is rendered: where it has one (as `compare`
/// keeps it) or holds a report of this workspace's ciphers; not in a
/// crate's folder (`compare --crate`), which has none.
fn indexed(dir: &Path, reports: &[Report]) -> bool {
    !reports.is_empty()
        && (dir.join("README.md").exists() || reports.iter().any(|r| r.annotations.is_none()))
}

/// Every file render will write, checked before the first is: each
/// report's files, the index, the baselines and other machines' reports it
/// upgrades.
fn check_outputs(
    dir: &Path,
    reports: &[Report],
    baselines: &[(PathBuf, Report)],
    machines: &[(PathBuf, Report)],
    calibrations: &[(PathBuf, Calibration)],
) -> Result<()> {
    let mut files = Outputs::in_dir("render", dir);
    for (path, _) in calibrations {
        files.add(path.clone(), Kind::Calibration);
    }
    for r in reports {
        output::plan(&mut files, dir, &r.cipher, &output::described(r)?);
    }
    if indexed(dir, reports) {
        files.add(dir.join("README.md"), output::index_kind());
    }
    for (path, _) in baselines {
        files.add(path.clone(), Kind::Baseline);
    }
    for (path, report) in machines {
        files.add(path.clone(), output::kind_of(report)?);
    }
    files.check()
}

/// The calibrations of the reports directory `dir`, each with the
/// markdown file it renders to.
fn calibrations(dir: &Path) -> Vec<(PathBuf, Calibration)> {
    let dir = calibration::dir(dir);
    (calibration::read_all(&dir).into_iter())
        .map(|c| (dir.join(format!("{}.md", c.cipher)), c))
        .collect()
}

/// Other machines' reports (`LABEL/CIPHER.json` in `dir`) of an older
/// schema, each read as merge reads it ([`reader::parse_report`]: checked,
/// upgraded; one it refuses is a usage error, before anything is written);
/// a directory that does not exist has none.
fn older_machine_reports(dir: &Path) -> Result<Vec<(PathBuf, Report)>> {
    let Ok(labels) = std::fs::read_dir(dir) else {
        return Ok(Vec::new());
    };
    let mut found: Vec<(PathBuf, String)> = Vec::new();
    for label in labels.flatten().map(|e| e.path()).filter(|p| p.is_dir()) {
        let Ok(entries) = std::fs::read_dir(&label) else {
            continue;
        };
        found.extend(
            (entries.flatten().map(|e| e.path()))
                .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == "json"))
                .filter(|p| older_schema(p))
                .filter_map(|p| {
                    let cipher = p.file_stem()?.to_str()?.to_string();
                    check::valid_name(&cipher).then_some((p, cipher))
                }),
        );
    }
    found.sort();
    let read = |(path, cipher): (PathBuf, String)| {
        let bytes = std::fs::read(&path)
            .map_err(|e| Error::failed(format!("reading {}: {e}", path.display())))?;
        let report = reader::parse_report(&bytes, &cipher).map_err(|e| {
            let (reader::NotRead::Foreign(why) | reader::NotRead::Refused(why)) = e;
            Error::usage(
                format!("{}: {why}", path.display()),
                "another machine's report is the JSON of a compare report (its CIPHER.json)",
            )
        })?;
        Ok((path, report))
    };
    found.into_iter().map(read).collect()
}

/// The baselines (`CIPHER.json`) in `dir` of an older schema, each read
/// by the gate's reader (one it refuses is a usage error, before anything
/// is written); a directory that does not exist has none.
fn older_baselines(dir: &Path) -> Result<Vec<(PathBuf, Report)>> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(Vec::new());
    };
    let mut found: Vec<(PathBuf, String)> = (entries.flatten().map(|e| e.path()))
        .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == "json"))
        .filter(|p| older_schema(p))
        .filter_map(|p| {
            let cipher = p.file_stem()?.to_str()?.to_string();
            check::valid_name(&cipher).then_some((p, cipher))
        })
        .collect();
    found.sort();
    let read = |(path, cipher): (PathBuf, String)| {
        let bytes = std::fs::read(&path)
            .map_err(|e| Error::failed(format!("reading {}: {e}", path.display())))?;
        let report = baseline_file::parse(&bytes, &path.display().to_string(), &cipher)?;
        Ok((path, report))
    };
    found.into_iter().map(read).collect()
}

/// Each baseline written again in this schema.
fn rewrite_baselines(baselines: &[(PathBuf, Report)]) -> Result<()> {
    for (path, report) in baselines {
        outputs::write(path, &Kind::Baseline, json::to_json(report).as_bytes())?;
        println!("rewrote {}", terminal(&path.display().to_string()));
    }
    Ok(())
}

/// Whether the JSON at `path` says it is of a schema older than this one
/// (one that cannot be read says nothing: the reader has named it).
fn older_schema(path: &Path) -> bool {
    let version = std::fs::read(path)
        .ok()
        .and_then(|b| reader::Header::of(&b).ok())
        .and_then(|h| h.schema_version?.as_u64());
    version.is_some_and(|v| v < u64::from(SCHEMA_VERSION))
}
