//! `cargo xtask compare --crate SPEC`: a crate this workspace did not
//! write, taken in through the front door (`intake/door/`): fetched by
//! cargo (or packaged from a local path), its cipher or hash type found by
//! the compiler, its inline attributes found and edited in copies, each
//! copy built through the same downstream shim as the crate itself (the
//! registry peer) and timed against the crate as published by compare's
//! pipeline. What is compare's stays here: where the reports go (checked
//! as the intake learns the crate, `Reports`), the report with its table
//! and which backend ran, the suggested set (`krate/suggested.rs`), which
//! set the patch is (its diff and `--explain-in-source`'s comments:
//! `krate/patch.rs`); the report goes to `reports/crates/NAME-VERSION/`.

use super::args::Args;
use super::pipeline;
use crate::child::which_ran;
use crate::count::explain;
use crate::env::escape::terminal;
use crate::env::flags::{self, FlagSet};
use crate::env::outputs::{self, Outputs};
use crate::env::subject::{Described, Subject, quoted};
use crate::env::workspace;
use crate::error::{Error, Result};
use crate::intake::annotations::{Cfg, Scan};
use crate::intake::axes::{self, PUBLISHED};
use crate::intake::door::make::{self, Made};
use crate::intake::door::take::{self, Taken};
use crate::intake::modules::Library;
use crate::intake::spec::{Given, Spec};
use crate::intake::table;
use crate::render::output::FLAGS_DIR;
use crate::render::{output, worth};
use crate::report::annotations::{Dependency, Patch};
use crate::report::ran::Ran;
use crate::select::contenders::Contender;
use bench_harness::registry::CipherEntry;
use std::path::{Path, PathBuf};

mod patch;
mod suggested;
mod trim;

pub fn run(args: &Args, sets: &[FlagSet], target: &Path) -> Result<()> {
    let given = (args.krate.as_ref())
        .ok_or_else(|| Error::usage("no --crate given", "give --crate SPEC"))?;
    let spec = &given.spec;
    if let Some(r) = args.reference.as_deref().filter(|r| *r != PUBLISHED) {
        return Err(Error::usage(
            format!("--reference {r}: a crate's ratios are taken against the crate as published"),
            format!("leave out --reference (a crate run's reference is `{PUBLISHED}`)"),
        ));
    }
    let opts = options(args, given);
    let mut reports = Reports {
        args,
        spec,
        grid: flags::is_grid(sets),
        described: None,
        early: None,
        out: None,
        name: None,
    };
    let taken = take::take(&opts, target, &mut reports)?;
    reports.dependencies(&taken.also)?;
    let out = (reports.out.take())
        .ok_or_else(|| Error::failed("the crate was taken in before its reports were checked"))?;
    let made = make::make(&opts, &taken)?;
    let t = &taken;
    let names: Vec<String> = made.selected.iter().map(|v| v.name.clone()).collect();
    let cipher = make::crate_cipher(
        t,
        sets,
        names,
        make::Peers::Timed {
            registry: made.with_peer,
        },
    );
    let entry = CipherEntry::of_crate(&cipher);
    let contenders: Vec<Contender> = (sets.iter())
        .flat_map(|set| crate::select::contenders::under(set, make::contenders(entry, t, &made)))
        .collect();
    let command = format!(
        "cargo xtask compare --crate {}{}{}{}{}",
        t.text,
        args.ty
            .as_ref()
            .map_or(String::new(), |ty| format!(" --type {}", quoted(ty))),
        (args.with.iter())
            .map(|w| format!(" --with {}", quoted(&w.text)))
            .collect::<String>(),
        args.also.as_ref().map_or(String::new(), |a| format!(
            " --also {}",
            quoted(
                &a.iter()
                    .map(|d| d.name.as_str())
                    .collect::<Vec<_>>()
                    .join(",")
            )
        )),
        args.features.as_ref().map_or(String::new(), |f| format!(
            " --features {}",
            quoted(&f.join(","))
        )),
    ) + &args.suggest.as_ref().map_or(String::new(), |s| {
        format!(" --suggest {}", quoted(&s.join(",")))
    }) + if args.explain_in_source {
        " --explain-in-source"
    } else {
        ""
    } + &args.flag_options();
    let settings = pipeline::settings(args, &sets[0].contender(PUBLISHED), command);
    crate::env::fault::check(&crate::select::contenders::names(&contenders))?;
    let mut report = pipeline::compare(args, &settings, entry, contenders, &t.work.path)?;
    report.run.notes.extend(made.notes.iter().cloned());
    // The table is the default set's: its attributes, its variants.
    let default = &t.sets[0];
    let numbered = axes::numbered(&default.scan, &default.cfg);
    let of_default: Vec<axes::Variant> = (made.selected.iter().zip(&made.set_of))
        .filter(|(_, set)| **set == 0)
        .map(|(v, _)| v.clone())
        .collect();
    let mut annotations = table::table(
        &default.scan,
        &numbered,
        &of_default,
        &t.package,
        &t.identified.ty,
        made.backends.clone(),
    );
    // Each `--also` dependency's rows, after the crate's.
    for dep in &t.also {
        let (rows, record) =
            table::dependency(&dep.scan, &dep.cfg, &dep.package, &dep.also.prefix());
        annotations.rows.extend(rows);
        annotations.also.push(record);
    }
    let ran = backend_ran(args, entry, &cipher.oracle, t);
    let differing: Vec<&str> = ran.differing().into_iter().map(|f| f.name()).collect();
    if !differing.is_empty() {
        report.run.notes.push(format!(
            "callgrind counted another backend of the crate than this CPU ran in {}: their instruction counts are of that backend (see which backend ran, with the crate's inline attributes)",
            differing.join(", ")
        ));
    }
    annotations.ran = Some(ran);
    // The suggested set, timed whole in a run of its own against
    // `published` and the pick; the patch is its diff when it holds.
    let run = Context {
        t,
        made: &made,
        sets,
    };
    let suggestion = suggested::settle(args, &run, &report, &annotations, &settings)?;
    let explain = args
        .explain_in_source
        .then(|| patch::explain(&report, suggestion.as_ref(), &annotations));
    let patch = match suggestion.as_ref().and_then(|s| s.held.as_ref()) {
        Some(v) => Ok(Some(v.clone())),
        None => pick_of(&report, t, &made),
    };
    let patch = match patch {
        // A build script that writes the crate's source: no edit of it
        // survives a build (the intake's note says which files), said
        // whatever the pick (the crate as published too). A dependency's
        // patch is of another package's source.
        Ok(v)
            if !made.rewritten.is_empty()
                && v.as_ref().is_none_or(|v| v.change.dependency().is_none()) =>
        {
            Err(format!(
                "the crate's build writes its own source ({})",
                made.rewritten.join(", ")
            ))
        }
        other => other,
    };
    // The patch's set trimmed of the edits that change no machine code.
    let patch = match patch {
        Ok(Some(v)) => {
            let trimmed = trim::trim(&run, &v)?;
            report.run.notes.extend(trimmed.note);
            let (v, record) = match trimmed.trimmed {
                Some((t_v, record)) => (t_v, Some(record)),
                None => (v, None),
            };
            patch::Source::of(t, &v).and_then(|source| {
                let x = explain.as_ref();
                patch::patch_of(&source, &v.name, record, &report.cipher, x, &t.work.path)
            })
        }
        Ok(None) => Ok((None, None)),
        Err(why) => Err(why),
    };
    if let Some(s) = suggestion {
        report.run.notes.extend(s.notes);
        annotations.suggestion = Some(s.record);
        report.suggested = s.round.map(Box::new);
    }
    match &patch {
        Ok((p, _)) => annotations.patch = p.clone(),
        Err(why) => report.run.notes.push(format!("no patch written: {why}")),
    }
    report.annotations = Some(annotations);
    output::write(&report, &out)?;
    patch::write(&report, &out, patch.ok().and_then(|(_, text)| text))?;
    output::refresh(&out, false)?;
    if let Some(a) = &report.annotations {
        let judged = worth::judge(&report, a);
        let added = worth::judge_added(&report, a);
        println!("{}", terminal(&worth::headline(a, &judged, &added)));
        for dep in &a.also {
            println!("{}", terminal(&worth::dependency_headline(dep, &judged)));
        }
    }
    pipeline::print_verdict(&report, &out);
    pipeline::failures(&report)
}

/// What the intake reads of compare's arguments, `given` the crate named.
fn options<'a>(args: &'a Args, given: &'a Given) -> take::Options<'a> {
    take::Options {
        spec: &given.spec,
        given: &given.text,
        offline: args.offline,
        ty: args.ty.as_deref(),
        with: &args.with,
        features: args.features.as_deref().unwrap_or_default(),
        variants: args.variants.as_deref(),
        suggest: args.suggest.as_deref(),
        also: args.also.as_deref().unwrap_or_default(),
        no_peer: args.no_peer,
        later: suggested::names().chain([trim::NAME.to_string()]).collect(),
    }
}

/// Where the reports go, checked as the intake learns the crate: the
/// folder named by the spec before cargo is asked anything, by the
/// registry's spelling once fetched, and every file of the run once the
/// report's name is known.
struct Reports<'a> {
    args: &'a Args,
    spec: &'a Spec,
    grid: bool,
    described: Option<Described>,
    /// The folder named before the crate was fetched.
    early: Option<PathBuf>,
    /// Where the reports go.
    out: Option<PathBuf>,
    /// The report's name, once the type measured is known.
    name: Option<String>,
}

impl Reports<'_> {
    fn described(&self) -> Result<&Described> {
        (self.described.as_ref())
            .ok_or_else(|| Error::failed("the crate's reports checked before it was named"))
    }
}

impl take::Checks for Reports<'_> {
    fn named(&mut self, subject: &Subject, key: &str) -> Result<()> {
        let described = Described {
            subject: subject.clone(),
            grid: self.grid,
        };
        let early = out_dir(self.args, &described, key);
        self.described = Some(described);
        check_out_dir(self.spec, &early)?;
        self.early = Some(early);
        Ok(())
    }

    fn fetched(&mut self, key: &str) -> Result<()> {
        let out = out_dir(self.args, self.described()?, key);
        if Some(&out) != self.early.as_ref() {
            check_out_dir(self.spec, &out)?;
        }
        self.out = Some(out);
        Ok(())
    }

    fn identified(&mut self, name: &str) -> Result<()> {
        let described = self.described()?;
        let out = (self.out.as_ref())
            .ok_or_else(|| Error::failed("the crate's reports planned before it was fetched"))?;
        let mut files = Outputs::in_dir("--out", out);
        output::plan(&mut files, out, name, described);
        files.add(
            out.join(Patch::file_name(name, None)),
            outputs::Kind::Report(described.clone()),
        );
        output::plan_refresh(&mut files, out, false)?;
        files.check()?;
        self.name = Some(name.to_string());
        Ok(())
    }
}

impl Reports<'_> {
    /// The patch files of the `--also` dependencies `also`, checked once
    /// the intake has found them (before any variant is built): a patch of
    /// each may be written beside the report.
    fn dependencies(&self, also: &[take::Dep]) -> Result<()> {
        let (Some(out), Some(name)) = (&self.out, &self.name) else {
            return Err(Error::failed(
                "the dependencies' patches planned before the crate was identified",
            ));
        };
        let kind = outputs::Kind::Report(self.described()?.clone());
        let mut files = Outputs::in_dir("--out", out);
        for dep in also {
            let of = Dependency {
                krate: dep.package.name.clone(),
                version: dep.package.version.clone(),
            };
            files.add(out.join(Patch::file_name(name, Some(&of))), kind.clone());
        }
        files.check()
    }
}

/// The crate's run as the suggested set sees it.
struct Context<'a> {
    t: &'a Taken,
    made: &'a Made,
    sets: &'a [FlagSet],
}

impl suggested::Run for Context<'_> {
    fn variants(&self) -> &[axes::Variant] {
        &self.made.selected
    }

    fn scanned(&self) -> (&Scan, &Cfg) {
        let s = &self.t.sets[0];
        (&s.scan, &s.cfg)
    }

    fn write(&self, v: &axes::Variant) -> Result<Option<String>> {
        make::write_variant(self.t, v, 0)
    }

    fn contenders(&self, names: Vec<String>) -> (&'static CipherEntry, Vec<Contender>) {
        let cipher = make::crate_cipher(self.t, self.sets, names, make::Peers::None);
        let entry = CipherEntry::of_crate(&cipher);
        (entry, make::contenders(entry, self.t, self.made))
    }

    fn work(&self) -> &Path {
        &self.t.work.path
    }

    fn profile(&self) -> bool {
        self.sets.iter().all(FlagSet::is_profile)
    }
}

/// The verdict's pick as the variant a patch writes out against the
/// source of the package it edits (the crate's copy as published, or an
/// `--also` dependency's: `patch::Source`): `None` when the pick is the
/// crate as published or nothing; `Err` says why no patch could be
/// written (the pick under a feature or flag set, whose patch alone would
/// not build what was measured).
fn pick_of(
    report: &crate::report::Report,
    t: &Taken,
    made: &Made,
) -> std::result::Result<Option<axes::Variant>, String> {
    let Some(pick) = report.verdict.pick.as_deref() else {
        return Ok(None);
    };
    let found = (made.selected.iter().zip(&made.set_of)).find(|(v, _)| v.name == pick);
    let Some((v, &set)) = found else {
        return Err(format!(
            "the pick `{pick}` is built under a flag set: its edits alone do not make what was measured"
        ));
    };
    if set != 0 {
        return Err(format!(
            "the pick `{pick}` is built with features ({}): its edits alone do not make what was measured",
            t.sets[set].set.features.join(", ")
        ));
    }
    if v.change == axes::Change::Published {
        return Ok(None);
    }
    Ok(Some(v.clone()))
}

/// Which backend the crate as published ran in each mode family, in the
/// cases whose instructions the report counts (a case per family): sampled
/// on this CPU and counted by callgrind, with `--also` the counts by crate
/// too (the crate's, each dependency's); each said on the terminal.
fn backend_ran(args: &Args, entry: &CipherEntry, published: &Path, t: &Taken) -> Ran {
    let cases = explain::headline_cases(entry, &pipeline::cases(args, entry));
    eprintln!(
        "[backend] sampling where {} spends its time, and counting where callgrind's instructions go ...",
        terminal(PUBLISHED)
    );
    let per_case = which_ran::sampled_for(args.amount.sec);
    let library = |p: &crate::intake::fetch::Package| Library {
        krate: p.name.clone(),
        lib: p.lib_name.clone(),
    };
    let crates: Vec<Library> = if t.also.is_empty() {
        Vec::new()
    } else {
        let deps = t.also.iter().map(|d| library(&d.package));
        std::iter::once(library(&t.package)).chain(deps).collect()
    };
    let ran = which_ran::observe(
        entry.name,
        published,
        &cases,
        (&t.lib, &crates),
        &t.work.path,
        per_case,
    );
    for line in ran.sentences(&|s: &str| format!("`{}`", terminal(s)), &terminal) {
        eprintln!("  {line}");
    }
    ran
}

/// Where the reports go: `--out`, else the crate's folder of `reports/`
/// (`reports/crates/NAME-VERSION/`; a local crate's `NAME-VERSION-local/`,
/// never the registry version's), and its `flags/` for a flag grid, which
/// never writes over the profile's report.
fn out_dir(args: &Args, described: &Described, key: &str) -> PathBuf {
    if let Some(out) = &args.out {
        return out.clone();
    }
    let folder = match described.subject {
        Subject::Path(_) => format!("{key}{LOCAL_SUFFIX}"),
        _ => key.to_string(),
    };
    let dir = workspace::root()
        .join("reports")
        .join("crates")
        .join(folder);
    if described.grid {
        dir.join(FLAGS_DIR)
    } else {
        dir
    }
}

/// What a local crate's default folder adds to `NAME-VERSION`.
const LOCAL_SUFFIX: &str = "-local";

/// The reports' directory, checked before cargo is asked anything: a
/// directory (or one that can be made) of this tool's outputs, never
/// inside cargo's home (its registry's files are only read), inside the
/// crate's own tree, or a directory of this workspace's cipher reports
/// (its index): a crate's reports go to a folder of their own.
fn check_out_dir(spec: &Spec, out: &Path) -> Result<()> {
    Outputs::in_dir("--out", out).check()?;
    let real = real_path(out);
    let refuse = |what: String| {
        Err(Error::usage(
            format!("--out {}: {what}", out.display()),
            "give --out a directory of its own for this crate's reports (or leave it out)",
        ))
    };
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cargo")));
    if let Some(home) = home.map(|h| real_path(&h))
        && real.starts_with(&home)
    {
        return refuse(format!(
            "is inside cargo's home ({}), whose files this tool only reads",
            home.display()
        ));
    }
    if let Some(dir) = spec.local_dir().map(real_path)
        && real.starts_with(&dir)
    {
        return refuse(format!(
            "is inside the crate being measured ({}), whose files this tool only reads",
            dir.display()
        ));
    }
    let index = out.join("README.md");
    if std::fs::read(&index).is_ok_and(|b| output::index_kind().owns(&b)) {
        return refuse(format!(
            "holds the index of this workspace's cipher reports ({})",
            index.display()
        ));
    }
    Ok(())
}

/// `path` with every symbolic link above it resolved: the nearest
/// ancestor that exists, canonical, and the rest as given.
fn real_path(path: &Path) -> PathBuf {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut base = absolute.as_path();
    let mut rest = Vec::new();
    loop {
        if let Ok(real) = base.canonicalize() {
            return rest.iter().rev().fold(real, |p, c| p.join(c));
        }
        match (base.parent(), base.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_os_string());
                base = parent;
            }
            _ => return absolute,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::{Args as _, FromArgMatches};

    /// `compare`'s arguments parsed from `line` (its words after
    /// `compare`).
    fn args(line: &[&str]) -> Args {
        let command = Args::augment_args(clap::Command::new("compare"));
        let matches = command.try_get_matches_from(line).unwrap();
        Args::from_arg_matches(&matches).unwrap()
    }

    /// The default folder follows the kind and subject: the registry
    /// version's, a local crate's beside it (never the same), a grid's
    /// under either's `flags/`; `--out` wins.
    #[test]
    fn each_kind_and_subject_has_its_default_folder() {
        let crates = workspace::root().join("reports").join("crates");
        let registry = Described {
            subject: Subject::Registry {
                name: "cast6".into(),
                version: "0.2.0".into(),
            },
            grid: false,
        };
        let local = Described {
            subject: Subject::Path("/src/cast6".into()),
            grid: false,
        };
        let a = args(&["compare", "--crate", "cast6@0.2.0"]);
        assert_eq!(
            out_dir(&a, &registry, "cast6-0.2.0"),
            crates.join("cast6-0.2.0")
        );
        assert_eq!(
            out_dir(&a, &local, "cast6-0.2.0"),
            crates.join("cast6-0.2.0-local")
        );
        let grid = Described {
            grid: true,
            ..local.clone()
        };
        assert_eq!(
            out_dir(&a, &grid, "cast6-0.2.0"),
            crates.join("cast6-0.2.0-local").join(FLAGS_DIR)
        );
        let given = args(&["compare", "--crate", "cast6@0.2.0", "--out", "elsewhere"]);
        assert_eq!(
            out_dir(&given, &local, "cast6-0.2.0"),
            PathBuf::from("elsewhere")
        );
    }
}
