//! The report files: a report's JSON, markdown and chart written side by
//! side (each atomically), every report of a directory read back, and the
//! index `README.md` over them; and the JSON's layout ([`to_json`]).

use crate::error::{Error, Result};
use crate::report::Report;
use crate::{chart, markdown, workspace};
use std::path::Path;

/// Writes `DIR/CIPHER.json`, `.svg` (when something was measured) and `.md`.
pub fn write(report: &Report, dir: &Path) -> Result<()> {
    let base = dir.join(&report.cipher);
    workspace::write_atomically(&base.with_extension("json"), to_json(report).as_bytes())?;
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

/// A report as JSON: indented, except that each element of an array named
/// `samples` (a round's sample) takes one line. Ends with a line break.
pub fn to_json(report: &Report) -> String {
    let mut out = Vec::new();
    let mut ser = serde_json::Serializer::with_formatter(&mut out, Layout::default());
    serde::Serialize::serialize(report, &mut ser).expect("a report serializes");
    let mut s = String::from_utf8(out).expect("serde_json writes UTF-8");
    s.push('\n');
    s
}

/// How a container is written.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Pretty,
    /// An array named `samples`: indented, its elements on one line each.
    Samples,
    /// On one line: `{"a": 1, "b": 2}`.
    Line,
}

/// serde_json's pretty formatter, with the elements of `samples` arrays on
/// one line each.
#[derive(Default)]
struct Layout {
    pretty: serde_json::ser::PrettyFormatter<'static>,
    stack: Vec<Mode>,
    in_key: bool,
    key: String,
}

impl Layout {
    fn line(&self) -> bool {
        self.stack.last() == Some(&Mode::Line)
    }

    /// The mode of a container opened now.
    fn open(&mut self, array: bool) -> Mode {
        let mode = match self.stack.last() {
            Some(Mode::Line | Mode::Samples) => Mode::Line,
            _ if array && self.key == "samples" => Mode::Samples,
            _ => Mode::Pretty,
        };
        self.key.clear();
        self.stack.push(mode);
        mode
    }
}

type Io = std::io::Result<()>;

impl serde_json::ser::Formatter for Layout {
    fn begin_array<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> Io {
        match self.open(true) {
            Mode::Line => w.write_all(b"["),
            _ => self.pretty.begin_array(w),
        }
    }

    fn end_array<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> Io {
        match self.stack.pop() {
            Some(Mode::Line) => w.write_all(b"]"),
            _ => self.pretty.end_array(w),
        }
    }

    fn begin_array_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W, first: bool) -> Io {
        if self.line() {
            w.write_all(if first { b"" } else { b", " })
        } else {
            self.pretty.begin_array_value(w, first)
        }
    }

    fn end_array_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> Io {
        if self.line() {
            Ok(())
        } else {
            self.pretty.end_array_value(w)
        }
    }

    fn begin_object<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> Io {
        match self.open(false) {
            Mode::Line => w.write_all(b"{"),
            _ => self.pretty.begin_object(w),
        }
    }

    fn end_object<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> Io {
        match self.stack.pop() {
            Some(Mode::Line) => w.write_all(b"}"),
            _ => self.pretty.end_object(w),
        }
    }

    fn begin_object_key<W: ?Sized + std::io::Write>(&mut self, w: &mut W, first: bool) -> Io {
        self.in_key = true;
        self.key.clear();
        if self.line() {
            w.write_all(if first { b"" } else { b", " })
        } else {
            self.pretty.begin_object_key(w, first)
        }
    }

    fn end_object_key<W: ?Sized + std::io::Write>(&mut self, _: &mut W) -> Io {
        self.in_key = false;
        Ok(())
    }

    fn write_string_fragment<W: ?Sized + std::io::Write>(&mut self, w: &mut W, s: &str) -> Io {
        if self.in_key {
            self.key.push_str(s);
        }
        w.write_all(s.as_bytes())
    }

    fn begin_object_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> Io {
        if self.line() {
            w.write_all(b": ")
        } else {
            self.pretty.begin_object_value(w)
        }
    }

    fn end_object_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> Io {
        if self.line() {
            Ok(())
        } else {
            self.pretty.end_object_value(w)
        }
    }
}

#[cfg(test)]
mod tests {
    /// Each sample on a line of its own; everything else as serde_json's
    /// pretty printer writes it; the same value either way.
    #[test]
    fn samples_take_a_line_each() {
        let r = crate::tests::fixture::report();
        let json = super::to_json(&r);
        assert!(
            json.contains("\"samples\": [\n") && json.contains("{\"ticks_per_op\": "),
            "{json:.2000}"
        );
        let line = json
            .lines()
            .find(|l| l.contains("{\"ticks_per_op"))
            .unwrap();
        assert!(line.trim_start().starts_with('{') && line.contains("\"quiet\": "));
        let a: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(a, serde_json::to_value(&r).unwrap());
    }
}
