//! The report files: a report's JSON, markdown and chart written side by
//! side (each atomically), every report of a directory read back, and the
//! index `README.md` over them.

use crate::error::{Error, Result};
use crate::report::Report;
use crate::{chart, markdown, workspace};
use std::path::Path;

/// Writes `DIR/CIPHER.json`, `.svg` (when something was measured) and `.md`.
pub fn write(report: &Report, dir: &Path) -> Result<()> {
    let base = dir.join(&report.cipher);
    let json = serde_json::to_string_pretty(report).map_err(|e| Error::failed(e.to_string()))?;
    workspace::write_atomically(&base.with_extension("json"), (json + "\n").as_bytes())?;
    if let Some(svg) = chart::render(report) {
        workspace::write_atomically(&base.with_extension("svg"), svg.as_bytes())?;
    }
    workspace::write_atomically(
        &base.with_extension("md"),
        markdown::render(report).as_bytes(),
    )
}

/// Every report whose JSON is in `dir`, by cipher name.
pub fn read_reports(dir: &Path) -> Result<Vec<Report>> {
    let entries = std::fs::read_dir(dir).map_err(|e| {
        Error::usage(
            format!("{}: {e}", dir.display()),
            "give the reports directory",
        )
    })?;
    let mut reports = Vec::new();
    for path in entries.flatten().map(|e| e.path()) {
        if path.extension().is_some_and(|e| e == "json") {
            let fail =
                |e: &dyn std::fmt::Display| Error::failed(format!("{}: {e}", path.display()));
            let bytes = std::fs::read(&path).map_err(|e| fail(&e))?;
            reports.push(serde_json::from_slice::<Report>(&bytes).map_err(|e| fail(&e))?);
        }
    }
    reports.sort_by(|a, b| a.cipher.cmp(&b.cipher));
    Ok(reports)
}

/// `DIR/README.md`: every report in `dir`, with its verdict in a line.
pub fn write_index(dir: &Path) -> Result<()> {
    let reports = read_reports(dir)?;
    write_index_of(dir, &reports)
}

/// `DIR/README.md` over `reports`.
pub fn write_index_of(dir: &Path, reports: &[Report]) -> Result<()> {
    workspace::write_atomically(
        &dir.join("README.md"),
        markdown::render_index(reports).as_bytes(),
    )
}
