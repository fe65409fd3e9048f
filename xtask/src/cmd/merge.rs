//! `cargo xtask merge REPORT.json... [--out DIR]`: reports of one cipher
//! from several machines become one cross-machine report,
//! `DIR/CIPHER.{md,json,svg}` (by default `reports/machines/`), by the rule
//! of [`crate::report::merged`]. Each file is read as `render` reads one
//! (checked, an older schema upgraded); nothing is measured. A flag grid's
//! report (`reports/flags/`) is refused: it is several profiles' runs.

use crate::env::escape::terminal;
use crate::env::outputs::{self, Kind, Outputs};
use crate::env::workspace;
use crate::error::{Error, Result};
use crate::render::merge;
use crate::report::check;
use crate::report::merged::{self, Portability, Refused};
use crate::report::reader::{self, NotRead};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// The reports, one per machine (two runs of one CPU: the first is
    /// kept), of one cipher.
    #[arg(value_name = "REPORT.json", required = true, num_args = 1..)]
    pub reports: Vec<PathBuf>,

    /// Where the cross-machine report goes.
    #[arg(long, value_name = "DIR",
          default_value_os_t = workspace::root().join("reports/machines"))]
    pub out: PathBuf,
}

pub fn run(args: Args) -> Result<()> {
    let mut reports = Vec::new();
    for path in &args.reports {
        let bytes = std::fs::read(path).map_err(|e| {
            Error::usage(
                format!("reading {}: {e}", path.display()),
                "give the JSON of a compare report",
            )
        })?;
        // The cipher it says it is, checked as a report named after it.
        let cipher = (reader::Header::of(&bytes).ok())
            .and_then(|h| h.cipher?.as_str().map(str::to_string))
            .filter(|c| check::valid_name(c))
            .unwrap_or_default();
        let report = reader::parse_report(&bytes, &cipher).map_err(|e| {
            let why = match e {
                NotRead::Foreign(w) | NotRead::Refused(w) => w,
            };
            Error::usage(
                format!("{}: {why}", path.display()),
                "give the JSON of a compare report (reports/CIPHER.json)",
            )
        })?;
        // A flag grid's report (reports/flags/) measures several
        // profiles; the cross-machine rule compares one profile's runs.
        if !report.flag_sets.is_empty() {
            return Err(Error::usage(
                format!(
                    "{}: a flag grid's report ({} flag sets): merge joins runs of one profile from several machines",
                    path.display(),
                    report.flag_sets.len()
                ),
                "give reports of the profile alone (reports/CIPHER.json, reports/machines/LABEL/CIPHER.json)",
            ));
        }
        reports.push((report, path.display().to_string()));
    }
    let generated_by = format!(
        "cargo xtask merge {}",
        (args.reports.iter())
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(" ")
    );
    // This tree's report of the cipher, whose fingerprints `verify` checks.
    let cipher = reports
        .first()
        .map(|(r, _)| r.cipher.clone())
        .unwrap_or_default();
    let here_path = workspace::root().join(format!("reports/{cipher}.json"));
    let here = std::fs::read(&here_path)
        .ok()
        .and_then(|b| reader::parse_report(&b, &cipher).ok());
    let base = args.out.join(&cipher);
    let mut files = Outputs::in_dir("--out", &args.out);
    for ext in ["json", "md", "svg"] {
        files.add(base.with_extension(ext), Kind::Merged);
    }
    for input in args
        .reports
        .iter()
        .chain(here.is_some().then_some(&here_path))
    {
        files.input(input);
    }
    files.check()?;
    let merged = merged::merge(reports, &generated_by, here.as_ref()).map_err(|e| match e {
        Refused::TooFew(w) | Refused::Mixed(w) => {
            Error::usage(w, "give one report per machine, all of one cipher")
        }
    })?;
    let json = serde_json::to_string_pretty(&merged).map_err(|e| Error::failed(e.to_string()))?;
    for (ext, bytes) in [
        ("json", json + "\n"),
        ("md", merge::markdown::render(&merged)),
        ("svg", merge::svg::render(&merged)),
    ] {
        outputs::write(&base.with_extension(ext), &Kind::Merged, bytes.as_bytes())?;
    }
    for line in &merged.left_out {
        eprintln!("left out: {}", terminal(line));
    }
    println!(
        "{}: {}",
        match merged.portability {
            Portability::Portable => "portable",
            Portability::MachineDependent => "machine-dependent",
        },
        merged
            .portable
            .pick
            .as_deref()
            .map_or("no portable pick".into(), |p| format!(
                "use `{}` everywhere",
                terminal(p)
            ))
    );
    println!("report: {}", base.with_extension("md").display());
    Ok(())
}
