//! Edits of a copy's inline attributes, in place: no newline is added or
//! removed, and a removal leaves spaces where the attribute was, so every
//! line keeps its number and every unedited column stays where it was
//! (panic locations and debug info of the copy are the original's).

use super::attrs::Attr;
use super::error::{Error, Result};
use super::model::{Annotation, Function};
use std::collections::BTreeMap;
use std::ops::Range;
use std::path::{Path, PathBuf};

/// One change to a file of the package.
#[derive(Clone, Copy, Debug)]
pub enum Edit<'a> {
    /// Blank the attribute (or, in a `cfg_attr` holding others, the
    /// `inline..` and its comma).
    Remove(&'a Annotation),
    /// Rewrite the attribute's `inline..` as the given one (a `cfg_attr`
    /// stays around it).
    Set(&'a Annotation, Attr),
    /// Insert `#[inline..] ` before the function's visibility and
    /// qualifiers. The count is of the function's inline attributes that
    /// this build compiles out (each in a `cfg_attr` whose predicate is
    /// false: `intake/axes.rs` evaluates them), which stay as written.
    /// Refused for a function that keeps another: [`Edit::Set`] that one
    /// instead.
    Add(&'a Function, Attr, usize),
}

impl Edit<'_> {
    /// The file the edit changes, relative to the package root.
    pub fn file(&self) -> &Path {
        match self {
            Edit::Remove(a) | Edit::Set(a, _) => &a.file,
            Edit::Add(f, ..) => &f.file,
        }
    }

    fn line(&self) -> usize {
        match self {
            Edit::Remove(a) | Edit::Set(a, _) => a.line,
            Edit::Add(f, ..) => f.line,
        }
    }
}

/// A replacement of some bytes, checked against what it expects there.
struct Splice {
    range: Range<usize>,
    text: String,
    line: usize,
}

/// Applies `edits` to `text`, the contents of the file they all name: the
/// result has as many lines as `text`, and every line no edit touches is
/// identical. Errors when the text is not the one scanned, when two edits
/// touch the same bytes, or when an `Add` would give a function a second
/// inline attribute.
pub fn apply(text: &str, edits: &[Edit<'_>]) -> Result<String> {
    let file = edits
        .first()
        .map(|e| e.file().to_path_buf())
        .unwrap_or_default();
    let removed: Vec<&Annotation> = edits
        .iter()
        .filter_map(|e| match e {
            Edit::Remove(a) => Some(*a),
            _ => None,
        })
        .collect();
    let mut splices = Vec::new();
    for edit in edits {
        if edit.file() != file {
            return Err(Error::Conflict {
                file: edit.file().to_path_buf(),
                line: edit.line(),
                cause: format!("edit of another file than {}", file.display()),
            });
        }
        splices.push(splice(text, edit, &removed)?);
    }
    splices.sort_by_key(|s| (s.range.start, s.range.end));
    for pair in splices.windows(2) {
        let overlap = pair[1].range.start < pair[0].range.end
            || (pair[1].range.start == pair[0].range.start
                && (pair[0].range.is_empty() || pair[1].range.is_empty()));
        if overlap {
            return Err(Error::Conflict {
                file,
                line: pair[1].line,
                cause: "two edits of the same attribute or place".into(),
            });
        }
    }
    let mut out = text.to_string();
    for s in splices.iter().rev() {
        out.replace_range(s.range.clone(), &s.text);
    }
    Ok(out)
}

/// Applies `edits` to the files they name under `root` (a copy of the
/// package, never the registry's), each file read and written once; gives
/// the files changed, relative to `root`.
pub fn apply_under(root: &Path, edits: &[Edit<'_>]) -> Result<Vec<PathBuf>> {
    let mut by_file: BTreeMap<PathBuf, Vec<Edit<'_>>> = BTreeMap::new();
    for edit in edits {
        by_file
            .entry(edit.file().to_path_buf())
            .or_default()
            .push(*edit);
    }
    for (file, edits) in &by_file {
        let path = root.join(file);
        let text = super::error::read(&path)?;
        let edited = apply(&text, edits)?;
        std::fs::write(&path, edited).map_err(|cause| Error::Io { path, cause })?;
    }
    Ok(by_file.into_keys().collect())
}

/// What one edit replaces, after checking the text is the scanned one.
fn splice(text: &str, edit: &Edit<'_>, removed: &[&Annotation]) -> Result<Splice> {
    let line = edit.line();
    let stale = |expected: &str| Error::Stale {
        file: edit.file().to_path_buf(),
        line,
        expected: expected.to_string(),
    };
    match edit {
        Edit::Remove(a) | Edit::Set(a, _) => {
            if text.get(a.attr_range.clone()) != Some(a.text.as_str()) {
                return Err(stale(&a.text));
            }
        }
        Edit::Add(f, ..) => {
            let here = text.get(f.insert_at..).unwrap_or("");
            if !here.starts_with(&f.first_token) {
                return Err(stale(&f.first_token));
            }
        }
    }
    Ok(match edit {
        Edit::Remove(a) => Splice {
            range: a.removal.clone(),
            text: blank(text.get(a.removal.clone()).ok_or_else(|| stale(&a.text))?),
            line,
        },
        Edit::Set(a, attr) => {
            let old = text
                .get(a.meta_range.clone())
                .ok_or_else(|| stale(&a.text))?;
            // A meta written over several lines keeps its newlines.
            let newlines: String = old.chars().filter(|&c| c == '\n').collect();
            Splice {
                range: a.meta_range.clone(),
                text: format!("{}{newlines}", attr.meta()),
                line,
            }
        }
        Edit::Add(f, attr, compiled_out) => {
            let mut gone: Vec<&Range<usize>> = removed
                .iter()
                .filter(|r| r.function_index == Some(f.index) && r.file == f.file)
                .map(|r| &r.attr_range)
                .collect();
            gone.sort_by_key(|r| (r.start, r.end));
            gone.dedup();
            let kept = f.annotations.len() > gone.len() + compiled_out;
            if kept {
                return Err(Error::Conflict {
                    file: f.file.clone(),
                    line,
                    cause: format!(
                        "`{}` already has an inline attribute: set that one instead",
                        f.path
                    ),
                });
            }
            Splice {
                range: f.insert_at..f.insert_at,
                text: format!("#[{}] ", attr.meta()),
                line,
            }
        }
    })
}

/// One space for every char but a newline, which stays.
fn blank(text: &str) -> String {
    text.chars()
        .map(|c| if c == '\n' || c == '\r' { c } else { ' ' })
        .collect()
}
