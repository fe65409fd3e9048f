//! `cargo xtask render [DIR]`: renders every report's markdown and chart,
//! and the index, again from the JSON in DIR, after a change to the
//! renderer; nothing is measured. The JSON is written again too, in this
//! schema (a report of an older one is upgraded:
//! [`crate::report::Report::upgraded`]), and so is each baseline file in
//! `DIR/baseline/` (JSON only: a baseline has no views). A `.json` file that is not a report (a
//! `tcrypt --json` output) is skipped with a line saying so; one that
//! claims to be a report but cannot be read or trusted (another schema
//! version, a cipher name that is not a plain name, a size of 0) is
//! skipped too, and makes the exit code 1 once the others are rendered.

use crate::error::{Error, Result};
use crate::{baseline_file, output, workspace};
use std::path::{Path, PathBuf};

#[derive(clap::Args)]
pub struct Args {
    /// The reports directory.
    #[arg(value_name = "DIR", default_value_os_t = workspace::root().join("reports"))]
    dir: PathBuf,
}

pub fn run(args: Args) -> Result<()> {
    let read = output::read_reports(&args.dir)?;
    read.say();
    for r in &read.reports {
        output::write(r, &args.dir)?;
        println!(
            "rendered {}",
            args.dir.join(format!("{}.md", r.cipher)).display()
        );
    }
    output::write_index_of(&args.dir, &read.reports)?;
    rewrite_baselines(&args.dir.join("baseline"))?;
    match read.refused() {
        0 => Ok(()),
        n => Err(Error::failed(format!(
            "{n} file(s) in {} look like reports but could not be read (named above); the others were rendered",
            args.dir.display()
        ))),
    }
}

/// Each `CIPHER.json` in `dir` read as a baseline and written again in this
/// schema; a directory that does not exist has none.
fn rewrite_baselines(dir: &Path) -> Result<()> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(());
    };
    let mut paths: Vec<PathBuf> = (entries.flatten().map(|e| e.path()))
        .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == "json"))
        .collect();
    paths.sort();
    for path in paths {
        let Some(cipher) = path.file_stem().and_then(|s| s.to_str()) else {
            continue;
        };
        if !output::valid_name(cipher) {
            continue;
        }
        let bytes = std::fs::read(&path)
            .map_err(|e| Error::failed(format!("reading {}: {e}", path.display())))?;
        let report = baseline_file::parse(&bytes, &path.display().to_string(), cipher)?;
        workspace::write_atomically(&path, output::to_json(&report).as_bytes())?;
        println!("rewrote {}", path.display());
    }
    Ok(())
}
