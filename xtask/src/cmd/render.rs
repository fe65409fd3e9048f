//! `cargo xtask render [DIR]`: renders every report's markdown and chart,
//! and the index, again from the JSON in DIR, after a change to the
//! renderer; nothing is measured. A report's JSON is left as it is, unless
//! it is of an older schema: then it is written again in this one
//! ([`crate::report::Report::upgraded`]), and so is each baseline file of
//! an older schema in `DIR/baseline/` (JSON only: a baseline has no views). A `.json` file that is not a report (a
//! `tcrypt --json` output) is skipped with a line saying so; one that
//! claims to be a report but cannot be read or trusted (another schema
//! version, a cipher name that is not a plain name, a size of 0) is
//! skipped too, and makes the exit code 1 once the others are rendered.

use crate::env::workspace;
use crate::error::{Error, Result};
use crate::gate::baseline_file;
use crate::report::SCHEMA_VERSION;
use crate::report::escape::terminal;
use crate::report::output;
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
        if older_schema(&args.dir.join(format!("{}.json", r.cipher))) {
            output::write(r, &args.dir)?;
        } else {
            output::render(r, &args.dir)?;
        }
        let md = args.dir.join(format!("{}.md", r.cipher));
        println!("rendered {}", terminal(&md.display().to_string()));
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
        if !older_schema(&path) {
            continue;
        }
        let bytes = std::fs::read(&path)
            .map_err(|e| Error::failed(format!("reading {}: {e}", path.display())))?;
        let report = baseline_file::parse(&bytes, &path.display().to_string(), cipher)?;
        workspace::write_atomically(&path, output::to_json(&report).as_bytes())?;
        println!("rewrote {}", terminal(&path.display().to_string()));
    }
    Ok(())
}

/// Whether the JSON at `path` says it is of a schema older than this one
/// (one that cannot be read says nothing: the reader has named it).
fn older_schema(path: &Path) -> bool {
    let version = std::fs::read(path)
        .ok()
        .and_then(|b| output::Header::of(&b).ok())
        .and_then(|h| h.schema_version?.as_u64());
    version.is_some_and(|v| v < u64::from(SCHEMA_VERSION))
}
