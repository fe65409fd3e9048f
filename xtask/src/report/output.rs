//! The report files: a report's JSON, markdown and chart written side by
//! side (each atomically), every report of a directory read back (and
//! checked: a file that is not a report of this schema is skipped, named,
//! with the reason), the index `README.md` over them, and the JSON's layout
//! ([`to_json`]).
//!
//! A report is three files, renamed into place one after another, JSON
//! first. A run killed between the renames leaves a new JSON beside an old
//! markdown and chart (and perhaps a temporary): the next run that reads
//! the directory ([`refresh`], and `render`) renders the markdown and chart
//! again from the JSON where they differ, and removes the temporaries of
//! processes that are gone. The JSON is the report; the other two are
//! views of it.

use crate::env::outputs::{self, Kind, Outputs};
use crate::error::{Error, Result};
use crate::report::chart;
use crate::report::escape::terminal as shown_long;
use crate::report::markdown;
use crate::report::{self, Report, SCHEMA_VERSION};
use bench_harness::outfile;
use std::path::{Path, PathBuf};

/// The longest cipher name a report may carry.
pub const MAX_NAME: usize = 32;

/// Whether `name` may name report files: 1 to [`MAX_NAME`] of `a-z`, `0-9`
/// and `_`. A name from JSON is checked before it becomes a path, so that
/// `"cipher": "../escaped"` or `"/tmp/x"` writes nothing outside the
/// reports directory.
pub fn valid_name(name: &str) -> bool {
    (1..=MAX_NAME).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
}

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
        Kind::Report,
        to_json(report).as_bytes(),
    )?;
    write_views(report, &base)
}

/// The files of `cipher`'s report in `dir`, added to `out`: what
/// [`write`] writes.
pub fn plan(out: &mut Outputs, dir: &Path, cipher: &str) {
    for ext in ["json", "md", "svg"] {
        out.add(dir.join(format!("{cipher}.{ext}")), Kind::Report);
    }
}

/// What [`refresh`] of `dir` would write, added to `out`: the markdown and
/// chart of every report there, and the index when `index` or when it
/// exists.
pub fn plan_refresh(out: &mut Outputs, dir: &Path, index: bool) -> Result<()> {
    if !dir.is_dir() {
        if index {
            out.add(dir.join("README.md"), Kind::Report);
        }
        return Ok(());
    }
    for r in read_reports(dir)?.reports {
        for ext in ["md", "svg"] {
            out.add(dir.join(format!("{}.{ext}", r.cipher)), Kind::Report);
        }
    }
    if index || dir.join("README.md").exists() {
        out.add(dir.join("README.md"), Kind::Report);
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
    let svg_path = base.with_extension("svg");
    match chart::render(report) {
        Some(svg) => outputs::write(&svg_path, Kind::Report, svg.as_bytes())?,
        None => remove_if_ours(&svg_path)?,
    }
    outputs::write(
        &base.with_extension("md"),
        Kind::Report,
        markdown::render(report).as_bytes(),
    )
}

/// Removes the chart at `path` when it is a regular file this tool wrote
/// (a chart of an earlier run); anything else is left as it is.
fn remove_if_ours(path: &Path) -> Result<()> {
    let ours = std::fs::symlink_metadata(path).is_ok_and(|m| m.is_file())
        && std::fs::read(path)
            .is_ok_and(|b| outputs::marked_command(&b).as_deref() == Some(Kind::Report.command()));
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

/// A JSON file of the reports directory that was not read as a report.
#[derive(Debug)]
pub struct Skipped {
    pub path: PathBuf,
    pub why: String,
    /// It says it is a report (it has a `schema_version` and a `cipher`),
    /// but is one this xtask cannot read or trust; `false` for a file that
    /// is something else (a `tcrypt --json` output).
    pub refused: bool,
}

/// What [`read_reports`] found.
#[derive(Debug)]
pub struct Read {
    /// By cipher name.
    pub reports: Vec<Report>,
    pub skipped: Vec<Skipped>,
}

impl Read {
    /// One line per skipped file, on stderr.
    pub fn say(&self) {
        for s in &self.skipped {
            // A file name may hold a newline too.
            let path = shown_long(&s.path.display().to_string());
            eprintln!("xtask: skipped {path}: {}", s.why);
        }
    }

    /// Whether a file that claims to be a report was refused.
    pub fn refused(&self) -> usize {
        self.skipped.iter().filter(|s| s.refused).count()
    }
}

/// Every report whose JSON is in `dir` (`CIPHER.json`), by cipher name; any
/// other `.json` file is skipped, with the reason.
pub fn read_reports(dir: &Path) -> Result<Read> {
    let entries = std::fs::read_dir(dir).map_err(|e| {
        Error::usage(
            format!("{}: {e}", dir.display()),
            "give the reports directory",
        )
    })?;
    let mut paths: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    paths.sort();
    let mut read = Read {
        reports: Vec::new(),
        skipped: Vec::new(),
    };
    for path in paths {
        let skip = |why: String, refused: bool| Skipped {
            path: path.clone(),
            why,
            refused,
        };
        if !path.is_file() {
            read.skipped.push(skip("not a regular file".into(), false));
            continue;
        }
        let stem = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let parsed = std::fs::read(&path)
            .map_err(|e| NotRead::Refused(e.to_string()))
            .and_then(|bytes| parse_report(&bytes, &stem));
        match parsed {
            Ok(r) => read.reports.push(r),
            Err(NotRead::Foreign(why)) => read.skipped.push(skip(why, false)),
            Err(NotRead::Refused(why)) => read.skipped.push(skip(why, true)),
        }
    }
    read.reports.sort_by(|a, b| a.cipher.cmp(&b.cipher));
    Ok(read)
}

/// Why a JSON file was not read as a report.
#[derive(Debug, Clone, PartialEq)]
pub enum NotRead {
    /// Not a compare report at all.
    Foreign(String),
    /// A report this xtask cannot read or trust.
    Refused(String),
}

/// Reads a report from the bytes of the file `STEM.json`: JSON of
/// a schema from [`report::OLDEST_READ`] to [`SCHEMA_VERSION`] (read as
/// this one: [`Report::upgraded`]), holding the report of the cipher `stem`,
/// whose values pass [`check`].
/// Every reason is one line (a value quoted from the file has its control
/// characters escaped) and at most a few hundred characters.
pub fn parse_report(bytes: &[u8], stem: &str) -> std::result::Result<Report, NotRead> {
    let line = |why: String| {
        let escaped = shown_long(&why);
        match escaped.char_indices().nth(300) {
            Some((i, _)) => format!("{}...", &escaped[..i]),
            None => escaped,
        }
    };
    parse_inner(bytes, stem).map_err(|e| match e {
        NotRead::Foreign(why) => NotRead::Foreign(line(why)),
        NotRead::Refused(why) => NotRead::Refused(line(why)),
    })
}

fn parse_inner(bytes: &[u8], stem: &str) -> std::result::Result<Report, NotRead> {
    let header = Header::of(bytes)?;
    let Some(version) = header.schema_version else {
        return Err(NotRead::Foreign("not a report (no schema_version)".into()));
    };
    if !(header.cipher.is_some() && header.variants) {
        return Err(NotRead::Foreign(
            "not a compare report (no cipher and variants; a tcrypt --json output?)".into(),
        ));
    }
    if !version.as_u64().is_some_and(report::readable) {
        return Err(NotRead::Refused(format!(
            "schema version {}, but this xtask reads versions {} to {SCHEMA_VERSION}",
            shown(&version.to_string()),
            report::OLDEST_READ
        )));
    }
    // Straight into the report: no tree of the whole document in between.
    let report = serde_json::from_slice::<Report>(bytes)
        .map_err(|e| NotRead::Refused(format!("not a valid report: {e}")))?
        .upgraded();
    check(&report).map_err(NotRead::Refused)?;
    if report.cipher != stem {
        return Err(NotRead::Refused(format!(
            "holds the report of `{}`, but a report is named after its cipher ({}.json)",
            report.cipher, report.cipher
        )));
    }
    Ok(report)
}

/// What a JSON file says it is, read without keeping anything else of it:
/// its `schema_version` and `cipher`, and whether it has `variants`.
#[derive(Default)]
pub struct Header {
    pub schema_version: Option<serde_json::Value>,
    pub cipher: Option<serde_json::Value>,
    pub variants: bool,
}

impl Header {
    /// The header of `bytes`; refused when they are not JSON, foreign when
    /// not an object. Memory: the document's nesting, not its size.
    pub fn of(bytes: &[u8]) -> std::result::Result<Header, NotRead> {
        let mut de = serde_json::Deserializer::from_slice(bytes);
        let header = serde::Deserializer::deserialize_any(&mut de, HeaderVisitor)
            .and_then(|h| de.end().map(|()| h));
        match header {
            Ok(Some(h)) => Ok(h),
            Ok(None) => Err(NotRead::Foreign("not a report (not a JSON object)".into())),
            Err(e) => Err(NotRead::Refused(format!(
                "not valid JSON (truncated?): {e}"
            ))),
        }
    }
}

/// Reads any JSON value: an object as its [`Header`] (the last of a key
/// repeated counts, as in a parsed tree), anything else as `None`.
struct HeaderVisitor;

impl<'de> serde::de::Visitor<'de> for HeaderVisitor {
    type Value = Option<Header>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(
        self,
        mut map: A,
    ) -> std::result::Result<Self::Value, A::Error> {
        use serde::de::IgnoredAny;
        let mut h = Header::default();
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            match key.as_ref() {
                "schema_version" => h.schema_version = Some(map.next_value()?),
                "cipher" => h.cipher = Some(map.next_value()?),
                "variants" => {
                    map.next_value::<IgnoredAny>()?;
                    h.variants = true;
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(Some(h))
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(
        self,
        mut seq: A,
    ) -> std::result::Result<Self::Value, A::Error> {
        while seq.next_element::<serde::de::IgnoredAny>()?.is_some() {}
        Ok(None)
    }

    fn visit_bool<E>(self, _: bool) -> std::result::Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_i64<E>(self, _: i64) -> std::result::Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_u64<E>(self, _: u64) -> std::result::Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_f64<E>(self, _: f64) -> std::result::Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_str<E>(self, _: &str) -> std::result::Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_unit<E>(self) -> std::result::Result<Self::Value, E> {
        Ok(None)
    }
}

/// A value from a file as a message shows it: control characters escaped
/// (one line) and cut short.
fn shown(s: &str) -> String {
    let escaped = shown_long(s);
    match escaped.char_indices().nth(40) {
        Some((i, _)) => format!("{}...", &escaped[..i]),
        None => escaped,
    }
}

/// The largest size a report may give an artifact (1 GiB).
pub const MAX_BYTES: u64 = 1 << 30;
/// The largest speed a report may give, in bytes per second (1 PB/s).
pub const MAX_SPEED: f64 = 1e15;
/// The smallest speed a report may give, in operations or bytes per
/// second: one in the longest batch a run may time
/// ([`crate::cli::MAX_SECONDS`]).
pub const MIN_SPEED: f64 = 1.0 / crate::cli::MAX_SECONDS;
/// The largest block a report may give (`--sizes`' bound).
pub const MAX_BLOCK: usize = *crate::cli::BLOCK_BYTES.end();
/// The clock rates a report may give a machine's counter and core, in
/// hertz: from a kHz counter to a THz clock.
pub const HZ: std::ops::RangeInclusive<f64> = 1e3..=1e12;
/// The largest ratio a report may give (a speed over another's, a bar).
pub const MAX_RATIO: f64 = 1e6;
/// The largest instruction count a report may give one operation: the
/// largest integer an `f64` holds exactly (a count is a whole number).
pub const MAX_INSTRUCTIONS: f64 = 9_007_199_254_740_992.0;

/// Whether the values of `r` are ones a run can produce, so that what is
/// rendered or decided from them is sound: the cipher name ([`valid_name`]);
/// the run's settings within what the command line accepts ([`check_run`]);
/// the machine's clocks within [`HZ`]; every entry that was built and sized
/// with its artifact and fingerprint, sizes above 0 (the chart's size axis
/// is logarithmic); speeds, ratios and counts finite and within bounds;
/// every sample, the A/A control's too, finite and positive
/// ([`check_samples`]), since the figures and verdicts are computed again
/// from them; every name it refers to an entry by one of its entries
/// ([`check_names`]) and the verdict's figures within bounds
/// ([`check_verdict`]).
pub fn check(r: &Report) -> Checked {
    if !valid_name(&r.cipher) {
        return Err(format!(
            "cipher name `{}` is not 1 to {MAX_NAME} of a-z, 0-9 and _",
            shown(&r.cipher)
        ));
    }
    if r.variants.is_empty() {
        return Err("it lists no variant, where a run lists every variant it chose".into());
    }
    check_run(&r.run)?;
    if let Some(m) = &r.machine {
        clock("machine.counter_hz", m.counter_hz)?;
        if let Some(&hz) = m.core_hz.known() {
            clock("machine.core_hz", hz)?;
        }
    }
    let hz = r.machine.as_ref().map(|m| m.counter_hz);
    for e in r.entries() {
        let name = shown(&e.name);
        check_built(&name, e)?;
        if let Some(o) = &e.overall {
            ratio(&format!("`{name}`: overall"), o)?;
        }
        for s in &e.speed {
            check_speed(&name, s, hz)?;
        }
    }
    if let Some(c) = &r.control {
        ratio("control", &c.interval())?;
        for s in &c.speed {
            check_speed("control", s, hz)?;
        }
    }
    check_names(r)?;
    check_verdict(&r.verdict)
}

/// Every name the report refers to an entry by is an entry of it: the
/// reference variant, what the A/A control is a copy of, each
/// `same_code_as`, and the verdict's pick, Pareto set and each link's
/// candidate and what it was measured against.
fn check_names(r: &Report) -> Checked {
    let named = |what: String, name: &str| -> Checked {
        if r.entries().any(|e| e.name == name) {
            Ok(())
        } else {
            Err(format!(
                "{what} is `{}`, not an entry of the report",
                shown(name)
            ))
        }
    };
    named("run.reference_variant".into(), &r.run.reference)?;
    if let Some(c) = &r.control {
        named("control.of".into(), &c.of)?;
    }
    for (i, e) in r.entries().enumerate() {
        if let Some(same) = &e.same_code_as {
            named(
                format!("`{}`: same_code_as (entry {i})", shown(&e.name)),
                same,
            )?;
        }
    }
    let v = &r.verdict;
    if let Some(p) = &v.pick {
        named("verdict.pick".into(), p)?;
    }
    for (i, p) in v.pareto.iter().enumerate() {
        named(format!("verdict.pareto[{i}]"), p)?;
    }
    for (i, l) in v.chain.iter().enumerate() {
        named(format!("verdict.chain[{i}].candidate"), &l.candidate)?;
        if let Some(a) = &l.against {
            named(format!("verdict.chain[{i}].against"), a)?;
        }
    }
    Ok(())
}

/// The verdict's figures as the report stores them (rendered as they are,
/// a chain of schema 3 on): its bars and gains ratios within bounds, each
/// link's size and size change those of footprints.
fn check_verdict(v: &crate::report::verdict::Verdict) -> Checked {
    bar("verdict.bar", v.bar)?;
    for (i, l) in v.chain.iter().enumerate() {
        let at = format!("verdict.chain[{i}]");
        if l.size > MAX_BYTES {
            return Err(format!("{at}.size is {}, more than {MAX_BYTES}", l.size));
        }
        let change = l.size_change;
        if !(change.is_finite() && change > -1.0 && change <= MAX_BYTES as f64) {
            return Err(format!(
                "{at}.size_change is {}, not a change of a footprint",
                figure(change)
            ));
        }
        if let Some(g) = &l.gain {
            ratio(&format!("{at}.gain"), g)?;
        }
        bar(&format!("{at}.bar"), l.bar)?;
    }
    Ok(())
}

/// A bar: a ratio, or 0 where there is none.
fn bar(what: &str, v: f64) -> Checked {
    if v.is_finite() && (0.0..=MAX_RATIO).contains(&v) {
        Ok(())
    } else {
        Err(format!(
            "{what} is {}, not from 0 to {}",
            figure(v),
            figure(MAX_RATIO)
        ))
    }
}

/// What [`check`] and its parts return: the first value out of bounds, in
/// words.
type Checked = std::result::Result<(), String>;

/// The run's settings, each within what the command line accepts for it:
/// `threshold` and `size_cost` as [`crate::cli::percent`] gives them,
/// `rounds` in [`crate::cli::ROUNDS`], `budget_seconds` as
/// [`crate::cli::seconds`] takes it, `looks` at most the racing rule's
/// [`race::MAX_LOOKS`], `processes` at most [`race::MAX_PROCESSES`] (0 when
/// nothing was timed); each process it records likewise.
fn check_run(run: &report::Run) -> Checked {
    use crate::cli;
    use crate::time::race;
    percent("run.threshold", run.threshold)?;
    percent("run.size_cost", run.size_cost)?;
    fraction("run.quiet_share", run.quiet_share)?;
    fraction("run.quiet.threshold", run.quiet.threshold)?;
    positive("run.batch_seconds", run.batch_seconds, cli::MAX_SECONDS)?;
    within("run.rounds", run.rounds, &cli::ROUNDS)?;
    within("run.looks", run.looks, &(1..=race::MAX_LOOKS))?;
    within("run.processes", run.processes, &(0..=race::MAX_PROCESSES))?;
    if let Some(b) = run.budget_seconds
        && !cli::is_seconds(b)
    {
        return Err(format!(
            "run.budget_seconds is {}, not above 0 and at most {}",
            figure(b),
            cli::MAX_SECONDS
        ));
    }
    if run.spent.len() > race::MAX_PROCESSES {
        return Err(format!(
            "run.spent lists {} processes, more than {}",
            run.spent.len(),
            race::MAX_PROCESSES
        ));
    }
    for (i, p) in run.spent.iter().enumerate() {
        within(
            &format!("run.spent[{i}].look"),
            p.look,
            &(0..=race::MAX_LOOKS - 1),
        )?;
        within(&format!("run.spent[{i}].rounds"), p.rounds, &cli::ROUNDS)?;
        not_negative(&format!("run.spent[{i}].seconds"), p.seconds)?;
    }
    Ok(())
}

fn fraction(what: &str, v: f64) -> Checked {
    if v.is_finite() && (0.0..=1.0).contains(&v) {
        Ok(())
    } else {
        Err(format!(
            "{what} is {}, not a fraction from 0 to 1",
            figure(v)
        ))
    }
}

/// A fraction as [`crate::cli::percent`] gives it.
fn percent(what: &str, v: f64) -> Checked {
    let p = &crate::cli::PERCENT;
    if crate::cli::is_percent_fraction(v) {
        Ok(())
    } else {
        Err(format!(
            "{what} is {}, not a fraction from {} to {} (a percentage from {} to {})",
            figure(v),
            p.start() / 100.0,
            p.end() / 100.0,
            p.start(),
            p.end()
        ))
    }
}

fn within(what: &str, v: usize, range: &std::ops::RangeInclusive<usize>) -> Checked {
    if range.contains(&v) {
        Ok(())
    } else {
        Err(format!(
            "{what} is {v}, not from {} to {}",
            range.start(),
            range.end()
        ))
    }
}

fn clock(what: &str, v: f64) -> Checked {
    if HZ.contains(&v) {
        Ok(())
    } else {
        Err(format!(
            "{what} is {}, not from {} to {} Hz",
            figure(v),
            HZ.start(),
            HZ.end()
        ))
    }
}

fn positive(what: &str, v: f64, max: f64) -> Checked {
    if v.is_finite() && v > 0.0 && v <= max {
        Ok(())
    } else {
        Err(format!(
            "{what} is {}, not above 0 and at most {}",
            figure(v),
            figure(max)
        ))
    }
}

fn not_negative(what: &str, v: f64) -> Checked {
    if v.is_finite() && v >= 0.0 {
        Ok(())
    } else {
        Err(format!("{what} is {}, not a number from 0 up", figure(v)))
    }
}

fn ratio(what: &str, q: &bench_harness::stats::Ratio) -> Checked {
    for v in [q.ratio, q.low, q.high] {
        positive(what, v, MAX_RATIO)?;
    }
    Ok(())
}

/// A number as a message shows it: in exponent form when very large or
/// small, so that a reason stays short.
fn figure(v: f64) -> String {
    let a = v.abs();
    if v.is_finite() && a != 0.0 && !(1e-6..1e9).contains(&a) {
        format!("{v:e}")
    } else {
        format!("{v}")
    }
}

/// An entry that was built and sized (`ok` or `screened`) has its artifact,
/// with a fingerprint ([`check_fingerprint`]); the file it was measured
/// from, where recorded, is that one; every artifact's sizes within bounds
/// ([`check_artifact`]).
fn check_built(name: &str, e: &report::Entry) -> Checked {
    use report::Status;
    let sized = matches!(e.status, Status::Measured | Status::Screened);
    let Some(a) = &e.artifact else {
        return match sized {
            true => Err(format!(
                "`{name}`: {} but its artifact is missing",
                e.status
            )),
            false => Ok(()),
        };
    };
    check_fingerprint(&format!("`{name}`: artifact.fingerprint"), &a.fingerprint)?;
    if let Some(m) = &e.measured_fingerprint {
        check_fingerprint(&format!("`{name}`: measured_fingerprint"), m)?;
        if e.status == Status::Measured && *m != a.fingerprint {
            return Err(format!(
                "`{name}`: measured_fingerprint {} is not its artifact's {}",
                shown(m),
                shown(&a.fingerprint)
            ));
        }
    }
    check_artifact(name, a)
}

/// A fingerprint as `bench_harness::so::fingerprint` writes it: the file's
/// length, `:`, and 16 lowercase hex digits of its hash.
fn check_fingerprint(what: &str, f: &str) -> Checked {
    let well_formed = f.split_once(':').is_some_and(|(len, hash)| {
        !len.is_empty()
            && len.len() <= 20
            && len.bytes().all(|b| b.is_ascii_digit())
            && hash.len() == 16
            && hash.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
    });
    if well_formed {
        Ok(())
    } else {
        Err(format!(
            "{what} is `{}`, not a file length and a 16-digit hash (LEN:HASH)",
            shown(f)
        ))
    }
}

/// An artifact's sizes: the `.so`, `.text` and footprint above 0 (the
/// chart's size axis is logarithmic), every section, the hot path, the key
/// schedule and each function at most [`MAX_BYTES`].
fn check_artifact(name: &str, a: &crate::build::size::Artifact) -> Checked {
    for (what, v) in [
        (".so bytes", a.so_bytes),
        (".text bytes", a.text_bytes),
        ("footprint bytes", a.footprint_bytes),
    ] {
        if v == 0 || v > MAX_BYTES {
            return Err(format!(
                "`{name}`: {what} are {v}, not from 1 to {MAX_BYTES}"
            ));
        }
    }
    let optional = [
        ("hot path bytes", a.hot_path_bytes),
        ("key schedule bytes", a.key_schedule_bytes),
    ];
    let functions =
        (a.hot_path.iter().chain(&a.functions)).map(|f| ("bytes of a function", Some(f.bytes)));
    for (what, v) in [
        (".rodata bytes", Some(a.rodata_bytes)),
        (".data bytes", Some(a.data_bytes)),
        (".rlib bytes", Some(a.rlib_bytes)),
    ]
    .into_iter()
    .chain(optional)
    .chain(functions)
    {
        if let Some(v) = v
            && v > MAX_BYTES
        {
            return Err(format!("`{name}`: {what} are {v}, more than {MAX_BYTES}"));
        }
    }
    Ok(())
}

/// One speed entry: its block within bounds (0 for key setup), its
/// instruction count a whole number ([`check_count`]), and either timed
/// figures and samples within bounds ([`check_samples`]; `hz` the
/// machine's counter, `None` when nothing was timed) or, untimed, an
/// instruction count.
fn check_speed(name: &str, s: &crate::report::Speed, hz: Option<f64>) -> Checked {
    let case = format!("`{name}` at {} bytes", s.block_bytes);
    // Key setup has no block; every other case has one.
    let blocks = if s.dir == crate::report::Operation::Setkey {
        0..=0
    } else {
        1..=MAX_BLOCK
    };
    if !blocks.contains(&s.block_bytes) {
        return Err(format!(
            "`{name}`: a {} case of {} bytes, not from {} to {}",
            s.dir.name(),
            s.block_bytes,
            blocks.start(),
            blocks.end()
        ));
    }
    if let Some(i) = s.instructions {
        check_count(&format!("{case}: instructions"), i)?;
    }
    if s.rounds == 0 && s.samples.is_empty() {
        // Not timed: a baseline's entry that holds only its instruction
        // count.
        return match s.instructions {
            Some(i) if i > 0.0 => Ok(()),
            Some(i) => Err(format!(
                "{case}: instructions is {}, and it was not timed: nothing measured",
                figure(i)
            )),
            None => Err(format!("{case}: neither timed nor counted")),
        };
    }
    let Some(hz) = hz else {
        return Err(format!(
            "{case}: timed, but no machine (its counter_hz) it was timed on"
        ));
    };
    speed(&format!("{case}: ops_per_sec"), s.ops_per_sec)?;
    if let Some(b) = s.bytes_per_sec {
        speed(&format!("{case}: bytes_per_sec"), b)?;
    }
    ticks(&format!("{case}: ticks_per_op"), s.ticks_per_op, hz)?;
    if let Some(t) = s.ticks_per_byte {
        ticks(&format!("{case}: ticks_per_byte"), t, hz)?;
    }
    not_negative(&format!("{case}: spread"), s.spread)?;
    if let Some(q) = &s.ratio {
        ratio(&format!("{case}: ratio"), q)?;
    }
    check_samples(&case, s, hz)
}

/// A speed: from [`MIN_SPEED`] to [`MAX_SPEED`].
fn speed(what: &str, v: f64) -> Checked {
    if (MIN_SPEED..=MAX_SPEED).contains(&v) {
        Ok(())
    } else {
        Err(format!(
            "{what} is {}, not from {} to {}",
            figure(v),
            figure(MIN_SPEED),
            figure(MAX_SPEED)
        ))
    }
}

/// Counter ticks (at `hz`) of one operation or byte: finite and above 0, at
/// a speed of at most [`MAX_SPEED`] and within one batch of at most
/// [`crate::cli::MAX_SECONDS`].
fn ticks(what: &str, t: f64, hz: f64) -> Checked {
    let slowest = hz * crate::cli::MAX_SECONDS;
    if t.is_finite() && t > 0.0 && t <= slowest && hz / t <= MAX_SPEED {
        Ok(())
    } else {
        Err(format!(
            "{what} is {}, not from {} to {} at this counter",
            figure(t),
            figure(hz / MAX_SPEED),
            figure(slowest)
        ))
    }
}

/// An instruction count: a whole number from 0 to [`MAX_INSTRUCTIONS`].
fn check_count(what: &str, n: f64) -> Checked {
    if n.is_finite() && n >= 0.0 && n.fract() == 0.0 && n <= MAX_INSTRUCTIONS {
        Ok(())
    } else {
        Err(format!(
            "{what} is {}, not a whole number from 0 to {}",
            figure(n),
            figure(MAX_INSTRUCTIONS)
        ))
    }
}

/// The samples a timed entry's figures (and a merge's verdict) are computed
/// from: each one's ticks per operation as [`ticks`] bounds them (`hz` the
/// machine's counter), each from a process below
/// [`race::MAX_PROCESSES`](crate::time::race::MAX_PROCESSES). `case` names
/// the entry and its case.
fn check_samples(case: &str, s: &crate::report::Speed, hz: f64) -> Checked {
    use crate::time::race::MAX_PROCESSES;
    for (i, x) in s.samples.iter().enumerate() {
        ticks(
            &format!("{case}: samples[{i}].ticks_per_op"),
            x.ticks_per_op,
            hz,
        )?;
        if x.process >= MAX_PROCESSES {
            return Err(format!(
                "{case}: samples[{i}].process is {}, not below {MAX_PROCESSES}",
                x.process
            ));
        }
    }
    Ok(())
}

/// `DIR/README.md` over `reports`.
pub fn write_index_of(dir: &Path, reports: &[Report]) -> Result<()> {
    outputs::write(
        &dir.join("README.md"),
        Kind::Report,
        markdown::render_index(reports).as_bytes(),
    )
}

/// A report as JSON: indented, except that each element of an array named
/// in [`ONE_LINE_EACH`] (a speed entry with its samples' columns, a
/// function) takes one line. Ends with a line break.
pub fn to_json(report: &Report) -> String {
    let mut out = Vec::new();
    let mut ser = serde_json::Serializer::with_formatter(&mut out, Layout::default());
    serde::Serialize::serialize(report, &mut ser).expect("a report serializes");
    let mut s = String::from_utf8(out).expect("serde_json writes UTF-8");
    s.push('\n');
    s
}

/// The arrays whose elements take a line each: the bulk of a report, which
/// indented would be most of its bytes in whitespace.
const ONE_LINE_EACH: [&str; 3] = ["speed", "hot_path", "functions"];

/// How a container is written.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Pretty,
    /// An array named in [`ONE_LINE_EACH`]: indented, its elements on one
    /// line each.
    Elements,
    /// On one line, without spaces: `{"a":1,"b":[2,3]}`.
    Line,
}

/// serde_json's pretty formatter, with the elements of the arrays named in
/// [`ONE_LINE_EACH`] on one line each.
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
            Some(Mode::Line | Mode::Elements) => Mode::Line,
            _ if array && ONE_LINE_EACH.contains(&self.key.as_str()) => Mode::Elements,
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
            w.write_all(if first { b"" } else { b"," })
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
            w.write_all(if first { b"" } else { b"," })
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
            w.write_all(b":")
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
    /// Each speed entry, with its samples' columns, on a line of its own;
    /// everything else as serde_json's pretty printer writes it; the same
    /// value either way.
    #[test]
    fn speed_entries_take_a_line_each() {
        let r = crate::tests::fixture::report();
        let json = super::to_json(&r);
        assert!(json.contains("\"speed\": [\n"), "{json:.2000}");
        let line = json
            .lines()
            .find(|l| l.contains("\"samples\":{\"ticks_per_op\":["))
            .unwrap();
        assert!(
            line.trim_start().starts_with("{\"alg\":") && line.contains("\"process_runs\":[["),
            "{line}"
        );
        let a: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(a, serde_json::to_value(&r).unwrap());
    }
}
