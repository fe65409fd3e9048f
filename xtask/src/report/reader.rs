//! The reader of report files: every report of a directory read back
//! ([`read_reports`]; a file that is not a report of a readable schema is
//! skipped, named, with the reason), and one report from its bytes
//! ([`parse_report`]): a cheap look at its header, the report deserialized
//! straight from the bytes, upgraded from an older schema, then
//! [`check`]ed. Every command that reads a report reads it here.

use crate::env::escape::{shown, terminal as shown_long};
use crate::error::{Error, Result};
use crate::report::check::check;
use crate::report::{self, Report, SCHEMA_VERSION};
use std::path::{Path, PathBuf};

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
