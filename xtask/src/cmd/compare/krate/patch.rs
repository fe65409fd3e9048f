//! The answer as a patch: the diff of the patch's variant against the
//! package it edits as published (the crate's copy, or an `--also`
//! dependency's when the pick is one of its variants), checked to apply
//! there, with the report's record of it; `--explain-in-source`'s
//! comments written into it; and the file beside the report
//! ([`Patch::file_name`]: `NAME.patch`, or `NAME.CRATE-VERSION.patch` for
//! a dependency's), a patch of an earlier run that this one has not
//! removed.

use super::suggested;
use crate::env::outputs;
use crate::error::Result;
use crate::intake::annotations::{Cfg, Scan};
use crate::intake::axes::{self, Change, PUBLISHED};
use crate::intake::door::take::Taken;
use crate::intake::{patch, table};
use crate::render::markdown::annotations::SameCode;
use crate::render::{output, worth};
use crate::report::Report;
use crate::report::annotations::{Annotations, Dependency, Patch, Trimmed};
use std::path::{Path, PathBuf};

/// What a patch is the diff of: the package's attributes as the build
/// compiles them, the change made to them, its copy as published and the
/// variant's copy, and the dependency it is, when it is one.
pub struct Source<'a> {
    scan: &'a Scan,
    cfg: &'a Cfg,
    change: &'a Change,
    published: PathBuf,
    edited: PathBuf,
    dependency: Option<Dependency>,
}

impl<'a> Source<'a> {
    /// The package variant `v` edits (of the default feature set): the
    /// crate's copy, or its `--also` dependency's; `Err` when `v` names a
    /// dependency the run does not have.
    pub fn of(t: &'a Taken, v: &'a axes::Variant) -> std::result::Result<Source<'a>, String> {
        let Some((d, change)) = v.change.dependency() else {
            let s = &t.sets[0];
            return Ok(Source {
                scan: &s.scan,
                cfg: &s.cfg,
                change: &v.change,
                published: t.copy_of(PUBLISHED),
                edited: t.copy_of(&v.name),
                dependency: None,
            });
        };
        let dep = (t.also.get(d))
            .ok_or_else(|| format!("`{}` edits no dependency of this run", v.name))?;
        Ok(Source {
            scan: &dep.scan,
            cfg: &dep.cfg,
            change,
            published: t.dep_copy_of(PUBLISHED, d),
            edited: t.dep_copy_of(&v.name, d),
            dependency: Some(Dependency {
                krate: dep.package.name.clone(),
                version: dep.package.version.clone(),
            }),
        })
    }

    /// The crate whose rows the patch's comments are taken from: `None`
    /// for the crate's own (as [`Annotated::krate`](crate::report::annotations::Annotated)).
    fn krate(&self) -> Option<&str> {
        self.dependency.as_ref().map(|d| d.krate.as_str())
    }
}

/// A patch's record and text, each `None` when there is none; `Err` says
/// why none could be written.
pub type PatchResult = std::result::Result<(Option<Patch>, Option<String>), String>;

/// The diff of variant `name`'s copy of `source` against the package as
/// published, checked to apply there (with `scratch` for the check), with
/// the report's record of it (and of the set it was `trimmed` from),
/// named for the report `cipher`; `None` when it changes nothing.
pub fn patch_of(
    source: &Source,
    name: &str,
    trimmed: Option<Trimmed>,
    cipher: &str,
    explain: Option<&Explain>,
    scratch: &Path,
) -> PatchResult {
    let edits = axes::edits(source.scan, source.cfg, source.change);
    let listed = table::patch_edits(source.scan, &edits);
    // `file:line` and the comment above it, with `--explain-in-source`.
    let mut comments: Vec<(String, String)> = Vec::new();
    if let Some(x) = explain {
        // A trimmed set is the machine code of the set it was trimmed from.
        let effect = x.whole(trimmed.as_ref().map_or(name, |t| &t.of));
        for e in listed.iter().filter(|e| e.patched.is_some()) {
            comments.push((e.location.clone(), effect.clone()));
        }
        let edited: Vec<&str> = listed.iter().map(|e| e.location.as_str()).collect();
        comments.extend(
            (x.kept.iter())
                .filter(|k| k.krate.as_deref() == source.krate())
                .filter(|k| !edited.contains(&k.location.as_str()))
                .map(|k| (k.location.clone(), k.comment.clone())),
        );
    }
    let at = |location: &str| -> Option<(PathBuf, usize)> {
        let (file, line) = location.rsplit_once(':')?;
        Some((PathBuf::from(file), line.parse().ok()?))
    };
    let mut paths: Vec<PathBuf> = (edits.iter().map(|e| e.file().to_path_buf()))
        .chain(comments.iter().filter_map(|(l, _)| at(l)).map(|(f, _)| f))
        .collect();
    paths.sort();
    paths.dedup();
    let read = |dir: &Path, rel: &Path| {
        std::fs::read_to_string(dir.join(rel)).map_err(|e| format!("{}: {e}", rel.display()))
    };
    let files = (paths.iter())
        .map(|p| {
            Ok(patch::File {
                path: p.clone(),
                published: read(&source.published, p)?,
                edited: read(&source.edited, p)?,
                comments: (comments.iter())
                    .filter_map(|(l, text)| {
                        let (f, line) = at(l)?;
                        (f == *p).then(|| (line, text.clone()))
                    })
                    .collect(),
            })
        })
        .collect::<std::result::Result<Vec<_>, String>>()?;
    let diff = patch::unified(&files);
    if diff.is_empty() {
        return Ok((None, None));
    }
    patch::applies(&source.published, &diff, scratch).map_err(|why| {
        let what = match &source.dependency {
            Some(d) => format!("{} {} as published", d.krate, d.version),
            None => "the crate as published".to_string(),
        };
        format!("the diff of `{name}` does not apply to {what}: {why}")
    })?;
    let record = Patch {
        file: Patch::file_name(cipher, source.dependency.as_ref()),
        variant: name.to_string(),
        edits: listed,
        trimmed,
        dependency: source.dependency.clone(),
    };
    Ok((Some(record), Some(diff)))
}

/// Writes the report's patch beside it (its first lines say what it is
/// and how to apply it), and removes every patch of the report an earlier
/// run wrote that this run did not (the crate's own, or a dependency's,
/// of this run's `--also` crates or another's): only files of the
/// report's kind and subject, each checked by its marker.
pub fn write(report: &Report, out: &Path, diff: Option<String>) -> Result<()> {
    let kind = output::kind_of(report)?;
    let written = (report.annotations.as_ref())
        .and_then(|a| a.patch.as_ref())
        .zip(diff);
    let file = written.as_ref().map(|(p, _)| p.file.as_str());
    for stale in earlier(out, &report.cipher) {
        if Some(stale.as_str()) != file {
            output::remove_if_ours(&out.join(&stale), &kind)?;
        }
    }
    let Some((p, diff)) = written else {
        return Ok(());
    };
    let head = crate::render::markdown::patch_preamble(report);
    outputs::write(
        &out.join(&p.file),
        &kind,
        format!("{head}\n{diff}").as_bytes(),
    )
}

/// The names in `out` a patch of the report `cipher` may have
/// ([`Patch::file_name`]): `CIPHER.patch`, and each `CIPHER.*.patch` there.
fn earlier(out: &Path, cipher: &str) -> Vec<String> {
    let own = Patch::file_name(cipher, None);
    let prefix = format!("{cipher}.");
    let entries = std::fs::read_dir(out).into_iter().flatten().flatten();
    let mut names: Vec<String> = (entries.filter_map(|e| e.file_name().into_string().ok()))
        .filter(|n| {
            n.strip_prefix(&prefix)
                .and_then(|rest| rest.strip_suffix(".patch"))
                .is_some_and(|middle| !middle.is_empty())
        })
        .collect();
    if !names.contains(&own) {
        names.push(own);
    }
    names.sort();
    names
}

/// An attribute the crate (or a dependency) keeps because it pays, and
/// the comment `--explain-in-source` writes above it.
pub struct Kept {
    /// The dependency whose attribute it is; `None` for the crate's own.
    krate: Option<String>,
    /// `file:line` in its package.
    location: String,
    comment: String,
}

/// What `--explain-in-source` writes in the patch: above each attribute
/// the package keeps because it pays, its figures without it; above each
/// attribute the patch adds or changes, the patch's variant measured whole.
pub struct Explain {
    /// Each attribute judged *keep*, and its comment.
    kept: Vec<Kept>,
    /// Each variant's footprint and speed against `published`, from the
    /// run that measured it (the suggested set's run first).
    whole: Vec<(String, String)>,
    command: String,
}

impl Explain {
    /// The comment above an attribute the patch of `variant` adds or
    /// changes.
    fn whole(&self, variant: &str) -> String {
        let effect = (self.whole.iter())
            .find(|(v, _)| v == variant)
            .map_or("not timed".to_string(), |(_, e)| e.clone());
        format!("inlinelab: set by `{variant}`, {effect} ({})", self.command)
    }
}

/// The comments of `--explain-in-source`, from the first run `first`, the
/// suggested set (its own run, or the first run's entry whose machine code
/// it is), and the table `a`.
pub fn explain(first: &Report, settled: Option<&suggested::Settled>, a: &Annotations) -> Explain {
    let round = settled.and_then(|s| s.round.as_ref());
    use crate::decide::verdict::{pct, size_pct};
    let command = first.generated_by.clone();
    let kept = (worth::judge(first, a).into_iter())
        .filter(|j| j.outcome == crate::decide::worth::Outcome::Keep)
        .map(|j| {
            let figures = match (j.size_change, &j.speed) {
                (Some(size), Some(speed)) => {
                    format!("footprint {} and speed {}", size_pct(size), pct(speed))
                }
                _ => "not timed".into(),
            };
            Kept {
                krate: j.row.krate.clone(),
                location: j.row.location.clone(),
                comment: format!(
                    "inlinelab: kept, it pays: without it ({}) {figures} against the crate as published ({command})",
                    j.row.variant
                ),
            }
        })
        .collect();
    let mut whole = Vec::new();
    for r in round.into_iter().chain([first]) {
        let reference = r.variants.iter().find(|e| e.name == r.run.reference);
        let footprint = |e: &crate::report::Entry| e.artifact.as_ref().map(|a| a.footprint_bytes);
        for e in &r.variants {
            if whole.iter().any(|(v, _): &(String, String)| *v == e.name) {
                continue;
            }
            let size = reference
                .and_then(footprint)
                .zip(footprint(e))
                .map_or("unknown".to_string(), |(p, v)| {
                    size_pct(v as f64 / p.max(1) as f64 - 1.0)
                });
            // A set timed once as another's machine code has its speed.
            let timed = match (&e.overall, &e.same_code_as) {
                (None, Some(same)) if e.status == crate::report::Status::Screened => {
                    r.variants.iter().find(|x| x.name == *same)
                }
                _ => Some(e),
            };
            let speed =
                (timed.and_then(|t| t.overall.as_ref())).map_or("not timed".to_string(), pct);
            whole.push((
                e.name.clone(),
                format!(
                    "measured whole: footprint {size} and speed {speed} against `{}`",
                    r.run.reference
                ),
            ));
        }
    }
    // A set that held as the first run's pick's machine code: that
    // entry's speed, its own footprint.
    if let Some(c) = settled.and_then(|s| SameCode::of(first, &s.record)) {
        whole.push((
            c.held.to_string(),
            format!(
                "built whole, the same machine code as `{}` (measured in that run): footprint {} and speed {} against `{}`",
                c.same,
                c.size(),
                c.speed.as_deref().unwrap_or("the same"),
                first.run.reference,
            ),
        ));
    }
    Explain {
        kept,
        whole,
        command,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::intake::annotations::{self, Attr};

    /// A dependency's package as cargo unpacks it: two attributes, one
    /// compiled on this target.
    const LIB: &str = "#[inline]\npub fn a() {}\n\n#[cfg(any())]\n#[inline]\npub fn b() {}\n\n#[inline(always)]\npub fn c() {}\n";

    /// A package at `dir` holding [`LIB`].
    fn package(dir: &Path) {
        std::fs::create_dir_all(dir.join("src")).unwrap();
        std::fs::write(
            dir.join("Cargo.toml"),
            "[package]\nname = \"dep\"\nversion = \"0.9.4\"\nedition = \"2021\"\n",
        )
        .unwrap();
        std::fs::write(dir.join("src/lib.rs"), LIB).unwrap();
    }

    /// A variant that edits a dependency is written as that dependency's
    /// patch: its edits against its copy as published (which stays as it
    /// was), paths from its package root, checked to apply there, named
    /// and recorded with its crate and version; its kept attributes'
    /// comments are its own rows', never the crate's.
    #[test]
    fn a_dependencys_edits_are_its_own_patch() {
        let tmp = tempfile::tempdir().unwrap();
        let published = tmp.path().join("published/dep-0.9.4");
        let edited = tmp.path().join("dep_none/dep-0.9.4");
        package(&published);
        let cfg = Cfg::from_rustc(None, &[] as &[String]).unwrap();
        let scan = annotations::scan(&published, &cfg).unwrap();
        let change = Change::None;
        crate::intake::copy::copy_package(&published, &edited).unwrap();
        let edits = axes::edits(&scan, &cfg, &change);
        assert_eq!(edits.len(), 2, "the compiled attributes");
        annotations::apply_under(&edited, &edits).unwrap();
        let source = Source {
            scan: &scan,
            cfg: &cfg,
            change: &change,
            published: published.clone(),
            edited,
            dependency: Some(Dependency {
                krate: "dep".into(),
                version: "0.9.4".into(),
            }),
        };
        let explain = Explain {
            kept: vec![
                Kept {
                    krate: Some("dep".into()),
                    location: "src/lib.rs:8".into(),
                    comment: "kept in dep".into(),
                },
                Kept {
                    krate: None,
                    location: "src/lib.rs:1".into(),
                    comment: "the crate's own".into(),
                },
            ],
            whole: vec![("dep_none".into(), "measured whole".into())],
            command: "cargo xtask compare".into(),
        };
        let (record, diff) =
            patch_of(&source, "dep_none", None, "toy", Some(&explain), tmp.path()).unwrap();
        let (record, diff) = (record.unwrap(), diff.unwrap());
        assert_eq!(record.file, "toy.dep-0.9.4.patch");
        assert_eq!(record.dependency, source.dependency);
        assert_eq!(record.variant, "dep_none");
        assert_eq!(record.edits.len(), 2);
        assert!(
            diff.starts_with("diff --git a/src/lib.rs b/src/lib.rs\n"),
            "{diff}"
        );
        assert!(diff.contains("\n-#[inline]\n pub fn a() {}\n"), "{diff}");
        assert!(diff.contains("\n-#[inline(always)]\n"), "{diff}");
        assert!(!diff.contains("the crate's own"), "{diff}");
        assert_eq!(
            std::fs::read_to_string(published.join("src/lib.rs")).unwrap(),
            LIB
        );
        // It applies to a fresh copy of the package, as published.
        let fresh = tmp.path().join("fresh");
        package(&fresh);
        patch::applies(&fresh, &diff, tmp.path()).unwrap();
        // The comments: removed attributes get none (nothing is patched
        // in), a kept attribute of the crate's own rows none either.
        let only = Change::Set(
            scan.annotations
                .iter()
                .position(|a| a.attr == Attr::Inline)
                .unwrap(),
            Attr::Always,
        );
        let source = Source {
            change: &only,
            ..source
        };
        crate::intake::copy::copy_package(&published, &source.edited).unwrap();
        annotations::apply_under(&source.edited, &axes::edits(&scan, &cfg, &only)).unwrap();
        let (_, diff) =
            patch_of(&source, "dep_none", None, "toy", Some(&explain), tmp.path()).unwrap();
        let diff = diff.unwrap();
        assert!(
            diff.contains("+// inlinelab: set by `dep_none`, measured whole")
                && diff.contains("+// kept in dep\n #[inline(always)]"),
            "{diff}"
        );
        patch::applies(&fresh, &diff, tmp.path()).unwrap();
    }

    /// A run without a patch removes every patch of its report an earlier
    /// run wrote (the crate's, a dependency's), and one with a patch keeps
    /// only it; another report's patch and a file not ours stay.
    #[test]
    fn an_earlier_runs_patches_do_not_survive() {
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path();
        let mut r = crate::report::fixture::report();
        r.generated_by = "cargo xtask compare --crate toy@0.1.0".into();
        r.cipher = "toy".into();
        let kind = output::kind_of(&r).unwrap();
        let earlier = format!(
            "{}\ndiff --git a/x b/x\n",
            crate::render::markdown::patch_preamble(&r)
        );
        for name in ["toy.patch", "toy.aes-0.9.4.patch", "toy.ghash-0.6.0.patch"] {
            outputs::write(&out.join(name), &kind, earlier.as_bytes()).unwrap();
        }
        std::fs::write(out.join("toy.mine.patch"), "a user's").unwrap();
        std::fs::write(out.join("toy2.aes-0.9.4.patch"), "another's").unwrap();
        let names = |out: &Path| {
            let mut n: Vec<String> = (std::fs::read_dir(out).unwrap().flatten())
                .map(|e| e.file_name().into_string().unwrap())
                .collect();
            n.sort();
            n
        };
        r.annotations = Some(Annotations {
            krate: "toy".into(),
            version: "0.1.0".into(),
            ty: "Toy".into(),
            written: 0,
            rows: Vec::new(),
            added: Vec::new(),
            backends: Vec::new(),
            cpu_features: Vec::new(),
            ran: None,
            patch: Some(Patch {
                file: "toy.aes-0.9.4.patch".into(),
                variant: "aes_none".into(),
                edits: Vec::new(),
                trimmed: None,
                dependency: Some(Dependency {
                    krate: "aes".into(),
                    version: "0.9.4".into(),
                }),
            }),
            suggestion: None,
            also: Vec::new(),
        });
        write(
            &r,
            out,
            Some("diff --git a/src/lib.rs b/src/lib.rs\n".into()),
        )
        .unwrap();
        assert_eq!(
            names(out),
            [
                "toy.aes-0.9.4.patch",
                "toy.mine.patch",
                "toy2.aes-0.9.4.patch"
            ]
        );
        let text = std::fs::read_to_string(out.join("toy.aes-0.9.4.patch")).unwrap();
        assert!(
            text.ends_with("diff --git a/src/lib.rs b/src/lib.rs\n"),
            "{text}"
        );
        // The next run's pick is the crate as published: no patch at all.
        if let Some(a) = r.annotations.as_mut() {
            a.patch = None;
        }
        write(&r, out, None).unwrap();
        assert_eq!(names(out), ["toy.mine.patch", "toy2.aes-0.9.4.patch"]);
    }
}
