//! The report files: a report's JSON, markdown and chart written side by
//! side (each atomically, each a file of [`Kind::Report`] of what the
//! report describes, `env/subject.rs`), the refresh of
//! a directory's views, and the index `README.md` over its reports. The
//! files are read back by [`crate::report::reader`], checked by
//! [`crate::report::check`], laid out by [`crate::report::json`].
//!
//! A report is three files, renamed into place one after another, JSON
//! first. A run killed between the renames leaves a new JSON beside an old
//! markdown and chart (and perhaps a temporary): the next run that reads
//! the directory ([`refresh`], and `render`) renders the markdown and chart
//! again from the JSON where they differ, and removes the temporaries of
//! processes that are gone. The JSON is the report; the other two are
//! views of it.

use crate::env::escape::shown;
use crate::env::outputs::{self, Kind, Outputs};
use crate::env::subject::{Described, Subject};
use crate::error::{Error, Result};
use crate::render::chart;
use crate::render::markdown;
use crate::report::Report;
use crate::report::check::check;
use crate::report::json::to_json;
use crate::report::reader::read_reports;
use bench_harness::outfile;
use std::path::Path;

/// Where a flag grid's reports go, under `reports/` (or a crate's folder
/// of it): never over the profile's own.
pub const FLAGS_DIR: &str = "flags";

/// Writes `DIR/CIPHER.json` ([`to_json`]), `.svg` (when something was measured; a chart
/// of an earlier run is removed otherwise) and `.md`, after removing the
/// temporaries an interrupted run left in `DIR`.
///
/// A report that [`check`] refuses is not written at all: its name would
/// not be a safe file name, or its values would not render (a size of 0
/// sends the chart's logarithmic axis into an endless loop), nor read back.
pub fn write(report: &Report, dir: &Path) -> Result<()> {
    prepare(report, dir)?;
    let base = dir.join(&report.cipher);
    outputs::write(
        &base.with_extension("json"),
        &kind_of(report)?,
        to_json(report).as_bytes(),
    )?;
    write_views(report, &base)
}

/// The kind of file `report`'s files are: a report of what its command
/// describes.
pub fn kind_of(report: &Report) -> Result<Kind> {
    described(report).map(Kind::Report)
}

/// What `report` describes, by the command that made it.
pub fn described(report: &Report) -> Result<Described> {
    Described::of_command(&report.generated_by).ok_or_else(|| {
        Error::failed(format!(
            "the report of {} names no compare command ({}), so what it describes is unknown",
            shown(&report.cipher),
            shown(&report.generated_by)
        ))
    })
}

/// The index's kind of file.
pub fn index_kind() -> Kind {
    Kind::Report(Described {
        subject: Subject::Index,
        grid: false,
    })
}

/// The files of the report `of` names `cipher` in `dir`, added to `out`:
/// what [`write`] writes.
pub fn plan(out: &mut Outputs, dir: &Path, cipher: &str, of: &Described) {
    for ext in ["json", "md", "svg", "patch"] {
        out.add(
            dir.join(format!("{cipher}.{ext}")),
            Kind::Report(of.clone()),
        );
    }
}

/// What [`refresh`] of `dir` would write, added to `out`: the markdown and
/// chart of every report there (each of its own kind), and the index when
/// `index` or when it exists.
pub fn plan_refresh(out: &mut Outputs, dir: &Path, index: bool) -> Result<()> {
    if !dir.is_dir() {
        if index {
            out.add(dir.join("README.md"), index_kind());
        }
        return Ok(());
    }
    for r in read_reports(dir)?.reports {
        let kind = kind_of(&r)?;
        for ext in ["md", "svg"] {
            out.add(dir.join(format!("{}.{ext}", r.cipher)), kind.clone());
        }
    }
    if index || dir.join("README.md").exists() {
        out.add(dir.join("README.md"), index_kind());
    }
    Ok(())
}

/// Writes the markdown and chart of `report` in `dir` from it, leaving its
/// JSON as it is (`render`: the JSON is the record, the others its views).
pub fn render(report: &Report, dir: &Path) -> Result<()> {
    prepare(report, dir)?;
    write_views(report, &dir.join(&report.cipher))
}

/// [`check`]s `report` and readies `dir` for its files.
fn prepare(report: &Report, dir: &Path) -> Result<()> {
    check(report).map_err(|why| {
        Error::failed(format!(
            "the report of {} was not written: {why}",
            shown(&report.cipher)
        ))
    })?;
    std::fs::create_dir_all(dir)
        .map_err(|e| Error::failed(format!("creating {}: {e}", dir.display())))?;
    remove_strays(dir);
    Ok(())
}

/// The markdown and chart of `report`, at `base` (`DIR/CIPHER`) `.md` and
/// `.svg`.
fn write_views(report: &Report, base: &Path) -> Result<()> {
    let kind = kind_of(report)?;
    let svg_path = base.with_extension("svg");
    match chart::render(report) {
        Some(svg) => outputs::write(&svg_path, &kind, svg.as_bytes())?,
        None => remove_if_ours(&svg_path, &kind)?,
    }
    outputs::write(
        &base.with_extension("md"),
        &kind,
        markdown::render(report).as_bytes(),
    )?;
    refresh_patch(report, base, &kind)
}

/// The first lines of the report's patch (`compare --crate`) written again
/// from the report, its diff kept as the run wrote it; nothing when there
/// is no patch of ours.
fn refresh_patch(report: &Report, base: &Path, kind: &Kind) -> Result<()> {
    let Some(p) = report.annotations.as_ref().and_then(|a| a.patch.as_ref()) else {
        return Ok(());
    };
    let path = base.with_file_name(&p.file);
    let Ok(text) = std::fs::read_to_string(&path) else {
        return Ok(());
    };
    let (true, Some(at)) = (kind.owns(text.as_bytes()), text.find("diff --git ")) else {
        return Ok(());
    };
    let head = markdown::patch_preamble(report);
    outputs::write(&path, kind, format!("{head}\n{}", &text[at..]).as_bytes())
}

/// Removes the file at `path` when it is a regular file this tool wrote
/// of the same kind and subject (an earlier run's chart or patch that
/// this run has none of); anything else is left as it is.
pub fn remove_if_ours(path: &Path, kind: &Kind) -> Result<()> {
    let ours = std::fs::symlink_metadata(path).is_ok_and(|m| m.is_file())
        && std::fs::read(path).is_ok_and(|b| kind.owns(&b));
    if !ours {
        return Ok(());
    }
    std::fs::remove_file(path)
        .map_err(|e| Error::failed(format!("removing {}: {e}", path.display())))
}

/// Removes the temporaries of processes that are gone, saying so.
fn remove_strays(dir: &Path) {
    for path in outfile::remove_stale(dir) {
        eprintln!(
            "xtask: removed {}, left by an interrupted run",
            path.display()
        );
    }
}

/// The markdown and chart of `report` in `dir` are rendered again when
/// they differ from what its JSON renders to (a run killed between the
/// renames); gives whether anything was written.
pub fn mend(report: &Report, dir: &Path) -> Result<bool> {
    let base = dir.join(&report.cipher);
    let on_disk = |ext: &str| std::fs::read_to_string(base.with_extension(ext)).ok();
    let md_fresh = on_disk("md").as_deref() == Some(markdown::render(report).as_str());
    let svg_fresh = on_disk("svg") == chart::render(report);
    if md_fresh && svg_fresh {
        return Ok(false);
    }
    write_views(report, &base)?;
    Ok(true)
}

/// After a compare run: strays removed, the other reports' markdown and
/// chart mended, and the index written again when `index` (or when it
/// exists). A directory that does not exist has nothing to refresh.
pub fn refresh(dir: &Path, index: bool) -> Result<()> {
    if !dir.is_dir() {
        return Ok(());
    }
    remove_strays(dir);
    let read = read_reports(dir)?;
    read.say();
    for r in &read.reports {
        if mend(r, dir)? {
            eprintln!(
                "xtask: {} and .svg did not match {}.json: rendered again",
                dir.join(format!("{}.md", r.cipher)).display(),
                r.cipher
            );
        }
    }
    if index || dir.join("README.md").exists() {
        write_index_of(dir, &read.reports)?;
    }
    Ok(())
}

/// `DIR/README.md` over `reports`.
pub fn write_index_of(dir: &Path, reports: &[Report]) -> Result<()> {
    outputs::write(
        &dir.join("README.md"),
        &index_kind(),
        markdown::render_index(reports).as_bytes(),
    )
}
