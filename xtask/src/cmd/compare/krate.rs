//! `cargo xtask compare --crate SPEC`: a crate this workspace did not
//! write, taken in (`intake/`): fetched by cargo (or packaged from a local
//! path), its cipher or hash type found by the compiler, its inline attributes
//! found and edited in copies, each copy built through the same downstream
//! shim as the crate itself (the registry peer) and timed against the
//! crate as published by compare's pipeline; the report goes to
//! `reports/crates/NAME-VERSION/`.

use super::args::Args;
use super::pipeline;
use crate::child::which_ran;
use crate::count::explain;
use crate::env::escape::terminal;
use crate::env::flags::{self, FlagSet};
use crate::env::outputs::{self, Outputs};
use crate::env::subject::{Described, Subject, quoted};
use crate::env::tree::{Source, Tree};
use crate::env::workdir::WorkDir;
use crate::env::workspace;
use crate::error::{Error, Result};
use crate::intake::annotations::{self, Cfg, Manifest, Scan};
use crate::intake::axes::{self, PUBLISHED};
use crate::intake::features::{self, FeatureSet};
use crate::intake::fetch::{self, Package};
use crate::intake::identify::{self, Identified};
use crate::intake::probe::Probe;
use crate::intake::shim::{self, Dependency, Shim};
use crate::intake::spec::Spec;
use crate::intake::{copy, patch, table};
use crate::render::output::FLAGS_DIR;
use crate::render::{output, worth};
use crate::report::ran::Ran;
use crate::select::contenders::{Contender, Kind, Origin, State};
use bench_harness::crates::{CrateCipher, PEER_NAME, Primitive};
use bench_harness::registry::CipherEntry;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

mod suggested;

pub fn run(args: &Args, sets: &[FlagSet], target: &Path) -> Result<()> {
    let taken = take_in(args, target, sets)?;
    let made = make_variants(args, &taken)?;
    let t = &taken;
    let names: Vec<String> = made.selected.iter().map(|v| v.name.clone()).collect();
    let cipher = crate_cipher(t, sets, names, made.with_peer);
    let entry = CipherEntry::of_crate(&cipher);
    let contenders: Vec<Contender> = (sets.iter())
        .flat_map(|set| crate::select::contenders::under(set, contenders(entry, t, &made)))
        .collect();
    let command = format!(
        "cargo xtask compare --crate {}{}{}",
        t.text,
        args.ty
            .as_ref()
            .map_or(String::new(), |ty| format!(" --type {}", quoted(ty))),
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
        .then(|| explain(&report, suggestion.as_ref(), &annotations));
    let patch = match suggestion.as_ref().and_then(|s| s.held.as_ref()) {
        Some(v) => patch_of(t, v, &report.cipher, explain.as_ref()),
        None => patch_of_pick(&report, t, &made, explain.as_ref()),
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
    output::write(&report, &t.out)?;
    write_patch(&report, &t.out, patch.ok().and_then(|(_, text)| text))?;
    output::refresh(&t.out, false)?;
    if let Some(a) = &report.annotations {
        let judged = worth::judge(&report, a);
        let added = worth::judge_added(&report, a);
        println!("{}", terminal(&worth::headline(a, &judged, &added)));
    }
    pipeline::print_verdict(&report, &t.out);
    pipeline::failures(&report)
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
        write_variant(self.t, v, 0)
    }

    fn contenders(&self, names: Vec<String>) -> (&'static CipherEntry, Vec<Contender>) {
        let cipher = crate_cipher(self.t, self.sets, names, false);
        let entry = CipherEntry::of_crate(&cipher);
        (entry, contenders(entry, self.t, self.made))
    }

    fn work(&self) -> &Path {
        &self.t.work.path
    }

    fn profile(&self) -> bool {
        self.sets.iter().all(FlagSet::is_profile)
    }
}

/// The crate's cipher as the harness sees it, with `variants` (the
/// reference first) and the registry peer when `with_peer`.
fn crate_cipher(
    t: &Taken,
    sets: &[FlagSet],
    variants: Vec<String>,
    with_peer: bool,
) -> CrateCipher {
    let peer = with_peer.then(|| {
        format!(
            "{} {} (as published, from the registry)",
            t.package.name, t.package.version
        )
    });
    // The crate as published under the first flag set: every flag set
    // computes the same function.
    let oracle = (t.work.path).join(format!("{}.so", sets[0].contender(PUBLISHED)));
    t.identified.cipher(&t.package, variants, peer, oracle)
}

/// The patch file of the report `name`, beside it.
fn patch_file(name: &str) -> String {
    format!("{name}.patch")
}

/// The verdict's pick written as a patch against the crate's source (its
/// copy as published): the table's record of it and the diff, `None`
/// when the pick is the crate as published or nothing; `Err` says why no
/// patch could be written (the pick under a feature or flag set, whose
/// patch alone would not build what was measured, or a diff that does not
/// apply).
fn patch_of_pick(
    report: &crate::report::Report,
    t: &Taken,
    made: &Made,
    explain: Option<&Explain>,
) -> PatchResult {
    let Some(pick) = report.verdict.pick.as_deref() else {
        return Ok((None, None));
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
        return Ok((None, None));
    }
    patch_of(t, v, &report.cipher, explain)
}

/// The diff of variant `v` (of the default feature set) against the crate
/// as published, checked to apply, with the report's record of it; `None`
/// when it changes nothing.
fn patch_of(t: &Taken, v: &axes::Variant, cipher: &str, explain: Option<&Explain>) -> PatchResult {
    let s = &t.sets[0];
    let edits = axes::edits(&s.scan, &s.cfg, &v.change);
    let listed = table::patch_edits(&s.scan, &edits);
    // `file:line` and the comment above it, with `--explain-in-source`.
    let mut comments: Vec<(String, String)> = Vec::new();
    if let Some(x) = explain {
        let effect = x.whole(&v.name);
        for e in listed.iter().filter(|e| e.patched.is_some()) {
            comments.push((e.location.clone(), effect.clone()));
        }
        let edited: Vec<&str> = listed.iter().map(|e| e.location.as_str()).collect();
        comments.extend(
            (x.kept.iter())
                .filter(|(at, _)| !edited.contains(&at.as_str()))
                .cloned(),
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
    let read = |dir: PathBuf, rel: &Path| {
        std::fs::read_to_string(dir.join(rel)).map_err(|e| format!("{}: {e}", rel.display()))
    };
    let files = (paths.iter())
        .map(|p| {
            Ok(patch::File {
                path: p.clone(),
                published: read(t.copy_of(PUBLISHED), p)?,
                edited: read(t.copy_of(&v.name), p)?,
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
    patch::applies(&t.copy_of(PUBLISHED), &diff, &t.work.path).map_err(|why| {
        format!(
            "the diff of `{}` does not apply to the crate as published: {why}",
            v.name
        )
    })?;
    let record = crate::report::annotations::Patch {
        file: patch_file(cipher),
        variant: v.name.clone(),
        edits: listed,
    };
    Ok((Some(record), Some(diff)))
}

/// What `--explain-in-source` writes in the patch: above each attribute
/// the crate keeps because it pays, its figures without it; above each
/// attribute the patch adds or changes, the patch's variant measured whole.
struct Explain {
    /// `file:line` of each attribute judged *keep*, and its comment.
    kept: Vec<(String, String)>,
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
        format!(
            "inlinelab: set by `{variant}`, measured whole: {effect} ({})",
            self.command
        )
    }
}

/// The comments of `--explain-in-source`, from the first run `first`, the
/// suggested set (its own run, or the first run's entry whose machine code
/// it is), and the table `a`.
fn explain(
    first: &crate::report::Report,
    settled: Option<&suggested::Settled>,
    a: &crate::report::annotations::Annotations,
) -> Explain {
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
            (
                j.row.location.clone(),
                format!(
                    "inlinelab: kept, it pays: without it ({}) {figures} against the crate as published ({command})",
                    j.row.variant
                ),
            )
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
                    "footprint {size} and speed {speed} against `{}`",
                    r.run.reference
                ),
            ));
        }
    }
    // A set that held as the first run's pick's machine code: that
    // entry's speed, its own footprint.
    if let Some(s) = settled.map(|s| &s.record)
        && let Some(same) = &s.same_code_as
    {
        let published = (first.variants.iter())
            .find(|e| e.name == first.run.reference)
            .and_then(|e| e.artifact.as_ref())
            .map(|a| a.footprint_bytes);
        let own = s.screen.as_ref().and_then(|x| x.footprint(&s.variant));
        let size = published.zip(own).map_or("unknown".to_string(), |(p, v)| {
            size_pct(v as f64 / p.max(1) as f64 - 1.0)
        });
        let speed = (first.variants.iter())
            .find(|e| e.name == *same)
            .map(|e| e.overall.as_ref().map_or("the same".to_string(), pct))
            .unwrap_or_else(|| "not timed".into());
        whole.push((
            s.variant.clone(),
            format!(
                "footprint {size} and speed {speed} against `{}` (the same machine code as `{same}`, measured in that run)",
                first.run.reference
            ),
        ));
    }
    Explain {
        kept,
        whole,
        command,
    }
}

/// A patch's record and text, each `None` when there is none; `Err` says
/// why none could be written.
type PatchResult =
    std::result::Result<(Option<crate::report::annotations::Patch>, Option<String>), String>;

/// Writes the report's patch beside it (its first lines say what it is
/// and how to apply it), or removes a patch an earlier run of the same
/// report wrote when this run has none.
fn write_patch(report: &crate::report::Report, out: &Path, diff: Option<String>) -> Result<()> {
    let path = out.join(patch_file(&report.cipher));
    let kind = output::kind_of(report)?;
    let Some(diff) = diff else {
        return output::remove_if_ours(&path, &kind);
    };
    let head = crate::render::markdown::patch_preamble(report);
    outputs::write(&path, &kind, format!("{head}\n{diff}").as_bytes())
}

/// Which backend the crate as published ran in each mode family, in the
/// cases whose instructions the report counts (a case per family): sampled
/// on this CPU and counted by callgrind; each said on the terminal.
fn backend_ran(args: &Args, entry: &CipherEntry, published: &Path, t: &Taken) -> Ran {
    let cases = explain::headline_cases(entry, &pipeline::cases(args, entry));
    eprintln!(
        "[backend] sampling where {} spends its time, and counting where callgrind's instructions go ...",
        terminal(PUBLISHED)
    );
    let per_case = which_ran::sampled_for(args.amount.sec);
    let ran = which_ran::observe(
        entry.name,
        published,
        &cases,
        &t.lib,
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

/// What the intake learned of the crate before any variant: where it is
/// and where its run keeps its files, the type measured and what it takes,
/// and its attributes.
struct Taken {
    /// `--crate`'s value, as given.
    text: String,
    package: Package,
    /// `cast6-0.2.0`.
    key: String,
    /// Where the report goes.
    out: PathBuf,
    /// `target/inlinelab/crates`: the scratch packages and build targets.
    crates: PathBuf,
    /// `target/inlinelab/crates/KEY`, locked: the copies, shims, artifacts.
    work: WorkDir,
    /// The package's directory name (`cast6-0.2.0`), each copy's.
    dir_name: OsString,
    /// The lock file every shim starts from.
    lock: String,
    /// The feature sets, the default one first (`--features`), each with
    /// its attributes as a build with it sees them.
    sets: Vec<Scanned>,
    /// The type measured, what it is, its modes and the report's name.
    identified: Identified,
    /// The crate's library name.
    lib: String,
}

impl Taken {
    /// The copy of the crate variant `v` is built from.
    fn copy_of(&self, v: &str) -> PathBuf {
        self.work.path.join("copies").join(v).join(&self.dir_name)
    }

    /// The shim variant `v` (or the registry peer, `@registry`) is built
    /// through.
    fn shim_of(&self, v: &str) -> PathBuf {
        self.work.path.join("copies").join(v).join("shim")
    }

    /// Writes the shim of variant `v` over its copy, the crate built with
    /// the features of set `set`.
    fn write_shim(&self, v: &str, set: usize) -> Result<()> {
        shim::write(
            &Shim {
                package: &self.package.name,
                dependency: Dependency::Copy(&self.copy_of(v)),
                ty: &self.identified.ty,
                kind: self.identified.primitive.kind(),
                holds: &format!("{}::{v}", self.package.holds()),
                features: &self.sets[set].set.features,
                lock: &self.lock,
            },
            &self.shim_of(v),
        )
    }
}

/// A feature set, and the crate's attributes as a build with it sees them.
struct Scanned {
    set: FeatureSet,
    cfg: Cfg,
    scan: Scan,
}

/// Finds the crate, locks its work directory, copies it as published,
/// asks the compiler which type to measure and what it takes, checks
/// every file the run will write, and scans the attributes. What can be
/// refused without cargo (the spec, `--reference`, where the reports go)
/// is refused before cargo is asked anything.
fn take_in(args: &Args, target: &Path, sets: &[FlagSet]) -> Result<Taken> {
    let spec = Spec::parse(args.krate.as_deref().unwrap_or_default())?;
    if let Some(r) = args.reference.as_deref().filter(|r| *r != PUBLISHED) {
        return Err(Error::usage(
            format!("--reference {r}: a crate's ratios are taken against the crate as published"),
            format!("leave out --reference (a crate run's reference is `{PUBLISHED}`)"),
        ));
    }
    let grid = flags::is_grid(sets);
    // The subject, the folder's name, and the spec as the report's
    // command records it (the subject its marker is read back as); a
    // local crate's name and version read where it is (nothing resolved,
    // nothing written).
    let (subject, early_key, text) = match &spec {
        Spec::Registry { name, version } => (
            Subject::Registry {
                name: name.clone(),
                version: version.clone(),
            },
            format!("{name}-{version}"),
            format!("{name}@{version}"),
        ),
        Spec::Path(manifest) => {
            let p = fetch::in_place(manifest, args.offline)?;
            let dir = p.dir.display().to_string();
            (
                Subject::Path(dir.clone()),
                format!("{}-{}", p.name, p.version),
                quoted(&dir).into_owned(),
            )
        }
    };
    let described = Described { subject, grid };
    let early_out = out_dir(args, &described, &early_key);
    check_out_dir(&spec, &early_out)?;
    let crates = target.join("inlinelab").join("crates");
    let scratch_name = match &spec {
        Spec::Registry { name, version } => format!("_fetch-{name}-{version}"),
        Spec::Path(p) => format!(
            "_path-{:016x}",
            bench_harness::so::fnv1a(p.display().to_string().as_bytes())
        ),
    };
    // Two runs of one spec share its scratch files (the package unpacked
    // there is what the published copy is made from): held until the copy
    // is made.
    let fetching = WorkDir::lock(target, &format!("crates/{scratch_name}"))?;
    let scratch = fetching.path.clone();
    eprintln!(
        "[intake] finding {} ...",
        args.krate.as_deref().unwrap_or_default()
    );
    let package = fetch::fetch(&spec, &scratch, args.offline)?;
    let key = format!("{}-{}", package.name, package.version);
    // The registry's spelling of the name (`md_5` is `md-5`) may name
    // another folder.
    let out = out_dir(args, &described, &key);
    if out != early_out {
        check_out_dir(&spec, &out)?;
    }
    let work = WorkDir::lock(target, &format!("crates/{key}"))?;
    let dir_name =
        (package.dir.file_name()).map_or_else(|| key.clone().into(), |n| n.to_os_string());
    let lock = shim::lock_file(&[scratch.join("fetch").join("Cargo.lock")])?;
    let published = work.path.join("copies").join(PUBLISHED).join(&dir_name);
    copy::copy_package(&package.dir, &published)?;
    drop(fetching);
    let manifest = Manifest::read(&published).map_err(|e| Error::failed(e.to_string()))?;
    let sets = features::sets(
        args.features.as_deref().unwrap_or_default(),
        &manifest.declared(),
        &format!("{} {}", package.name, package.version),
    )?;
    let probe = Probe {
        package: &package,
        copy: &published,
        features: &[],
        lock: &lock,
        dir: &work.path.join("probe"),
        target: &crates.join("_probe-target"),
        offline: args.offline,
    };
    let identified = identify::identify(&probe, args.ty.as_deref())?;
    let name = identified.name.clone();
    let mut files = Outputs::in_dir("--out", &out);
    output::plan(&mut files, &out, &name, &described);
    files.add(
        out.join(patch_file(&name)),
        outputs::Kind::Report(described.clone()),
    );
    output::plan_refresh(&mut files, &out, false)?;
    files.check()?;
    let sets = (sets.into_iter())
        .map(|set| {
            let asked: Vec<&str> = set.features.iter().map(String::as_str).collect();
            let enabled: Vec<String> = manifest.features(&asked, false).into_iter().collect();
            let cfg = Cfg::from_rustc(None, &enabled).map_err(|e| Error::failed(e.to_string()))?;
            let scan = annotations::scan(&published, &cfg)
                .map_err(|e| Error::failed(format!("{key}: {e}")))?;
            Ok(Scanned { set, cfg, scan })
        })
        .collect::<Result<Vec<Scanned>>>()?;
    let lib = package.lib_name.clone();
    Ok(Taken {
        text,
        package,
        key,
        out,
        crates,
        work,
        dir_name,
        lock,
        sets,
        identified,
        lib,
    })
}

/// The variants made: those `--variants` chose of every one the crate
/// has (copied, edited and given their shims), what was left as it is and
/// why, the remapping every build shares, and whether the registry crate
/// is timed beside them.
struct Made {
    selected: Vec<axes::Variant>,
    /// The feature set of each of `selected` (an index into `Taken::sets`).
    set_of: Vec<usize>,
    /// The crate's modules the published hot path reaches.
    backends: Vec<String>,
    notes: Vec<String>,
    remaps: Vec<String>,
    with_peer: bool,
}

/// For each feature set, builds the crate as published with it to find its
/// hot path's out-of-line functions and lists its variants; then writes the
/// chosen ones' copies and shims (and the registry peer's shim).
fn make_variants(args: &Args, t: &Taken) -> Result<Made> {
    let mut all: Vec<(axes::Variant, usize)> = Vec::new();
    let mut backends = Vec::new();
    let mut notes = Vec::new();
    if let Some(s) = t.sets.first().filter(|s| !s.scan.generated.is_empty()) {
        let note = format!(
            "code the build script generates is included at {} (`include!` of a path under `OUT_DIR`): its inline attributes are not in the package's source, so they are not in the table and no patch edits them",
            s.scan.generated.join(", ")
        );
        eprintln!("[intake] {}", terminal(&note));
        notes.push(note);
    }
    for (k, s) in t.sets.iter().enumerate() {
        let published = s.set.name(PUBLISHED);
        if k == 0 {
            t.write_shim(PUBLISHED, 0)?;
        } else {
            let v = axes::Variant {
                name: published.clone(),
                change: axes::Change::Published,
            };
            write_variant(t, &v, k)?;
        }
        let with = match s.set.features.as_slice() {
            [] => String::new(),
            f => format!(" with {}", f.join(", ")),
        };
        eprintln!(
            "[intake] building {} as published{with}, to find the functions its hot path calls ...",
            t.key
        );
        let hot_names = hot_path(
            &t.shim_of(&published),
            &t.crates.join("_hot-build"),
            &t.lib,
            &t.work.path,
        )?;
        let (hot, unmatched) = axes::out_of_line(&s.scan, &s.cfg, &t.lib, &hot_names);
        if k == 0 {
            backends = crate::intake::modules::modules(&t.lib, &hot_names);
        }
        let of_set = axes::variants(&s.scan, &s.cfg, &hot);
        let shape = match &t.identified.primitive {
            Primitive::Hash { digest_size } => format!("a hash, {digest_size}-byte digests"),
            Primitive::BlockCipher {
                block_size,
                key_lengths,
            } => format!("{block_size}-byte blocks, keys of {key_lengths:?} bytes"),
        };
        eprintln!(
            "[intake] {}{with}, type {}: {shape}; {} inline attributes ({} compiled on this target) in {} files; {} functions out of line on the hot path; {} variants",
            t.key,
            t.identified.ty,
            s.scan.annotations.len(),
            s.scan.applying(&s.cfg).count(),
            s.scan.files.len(),
            hot.len(),
            of_set.len()
        );
        notes.extend((unmatched.iter()).map(|u| format!("not given `always`{with}: {u}")));
        all.extend(of_set.into_iter().map(|v| {
            let name = s.set.name(&v.name);
            (axes::Variant { name, ..v }, k)
        }));
    }
    let names: Vec<axes::Variant> = all.iter().map(|(v, _)| v.clone()).collect();
    let selected = select(args, &names)?;
    let set_of: Vec<usize> = (selected.iter())
        .map(|v| {
            all.iter()
                .find(|(a, _)| a.name == v.name)
                .map_or(0, |(_, k)| *k)
        })
        .collect();
    for (v, &k) in selected.iter().zip(&set_of) {
        if v.change != axes::Change::Published {
            notes.extend(write_variant(t, v, k)?);
        }
    }
    // One RUSTFLAGS for every build of the crate (its dependencies
    // compiled once), whichever variants are chosen: each variant's copy
    // remapped onto the crate's own directory, so that the copies' paths
    // (panic locations) are the crate's.
    let remaps = (names.iter().map(|v| v.name.clone()))
        .chain(suggested::names())
        .map(|v| {
            format!(
                "--remap-path-prefix={}={}",
                t.copy_of(&v).display(),
                t.package.dir.display()
            )
        })
        .collect();
    let with_peer = t.package.from_registry && !args.no_peer;
    if with_peer {
        shim::write(
            &Shim {
                package: &t.package.name,
                dependency: Dependency::Registry {
                    version: &t.package.version,
                },
                ty: &t.identified.ty,
                kind: t.identified.primitive.kind(),
                holds: PEER_NAME,
                features: &[],
                lock: &t.lock,
            },
            &t.shim_of(REGISTRY_DIR),
        )?;
    }
    Ok(Made {
        selected,
        set_of,
        backends,
        notes,
        remaps,
        with_peer,
    })
}

/// Copies the crate for variant `v` of feature set `set`, edits the copy
/// and writes its shim; what the edits left as published, and why, as a
/// note.
fn write_variant(t: &Taken, v: &axes::Variant, set: usize) -> Result<Option<String>> {
    let s = &t.sets[set];
    let copy_dir = t.copy_of(&v.name);
    copy::copy_package(&t.package.dir, &copy_dir)?;
    let edits = axes::edits(&s.scan, &s.cfg, &v.change);
    annotations::apply_under(&copy_dir, &edits)
        .map_err(|e| Error::failed(format!("{}: {e}", v.name)))?;
    t.write_shim(&v.name, set)?;
    let left = axes::skipped(&s.scan, &s.cfg, &v.change);
    Ok((!left.is_empty()).then(|| {
        format!(
            "`{}` leaves {} `#[target_feature]` function(s) as published (rustc refuses `inline(always)` on them): {}",
            v.name,
            left.len(),
            left.join(", ")
        )
    }))
}

/// The registry peer's directory among the copies (not a variant's name:
/// those are `[a-z0-9_]`).
const REGISTRY_DIR: &str = "@registry";

/// The contenders: each chosen variant over its shim, and the registry
/// peer, all built in the crate's target directory with the shared
/// remapping.
fn contenders(entry: &'static CipherEntry, t: &Taken, made: &Made) -> Vec<Contender> {
    let tree = |root: PathBuf| Tree {
        root,
        target_dir: Some(t.crates.join("_build").join(&t.key)),
        rustflags: made.remaps.clone(),
        flags: FlagSet::profile(),
        source: Source::Shim { lib: t.lib.clone() },
    };
    let contender = |kind, name: &str, label: String, shim: PathBuf| Contender {
        module: entry.module,
        kind,
        origin: Origin::Current,
        name: name.to_string(),
        label,
        tree: tree(shim),
        state: State::Pending,
    };
    let mut out: Vec<Contender> = (entry.variants.iter())
        .map(|(v, _)| {
            let label = format!("{}-{v}", t.package.name);
            contender(Kind::Variant(v), v, label, t.shim_of(v))
        })
        .collect();
    for p in entry.peers {
        out.push(contender(
            Kind::Peer(p),
            p.name,
            p.label.to_string(),
            t.shim_of(REGISTRY_DIR),
        ));
    }
    out
}

/// The demangled names of the functions the crate as published (its shim
/// at `shim`) leaves out of line on its hot path: built (without the
/// copies' remapping, in a target directory of its own: only its code's
/// shape is read) and walked from `inlinelab_crypt`.
fn hot_path(shim: &Path, target: &Path, lib: &str, work: &Path) -> Result<Vec<String>> {
    let tree = Tree {
        root: shim.to_path_buf(),
        target_dir: Some(target.to_path_buf()),
        rustflags: Vec::new(),
        flags: FlagSet::profile(),
        source: Source::Shim {
            lib: lib.to_string(),
        },
    };
    let dest = work.join("hot-path-probe.so");
    let selection = crate::select::contenders::Selection::Variant {
        module: "under_test",
        variant: PUBLISHED,
    };
    let files =
        crate::build::artifacts::build(&tree, &selection, &[], lib, &dest).map_err(|why| {
            Error::usage(
                format!("the crate as published does not build through the shim: {why}"),
                "a crate whose own build fails cannot be measured; try another version",
            )
        })?;
    crate::build::code::hot_path_names(&files.so).map_err(Error::failed)
}

/// `--variants` and `--suggest` checked against the crate's variants:
/// those selected (the reference always kept).
fn select(args: &Args, all: &[axes::Variant]) -> Result<Vec<axes::Variant>> {
    let chosen = select_variants(args, all)?;
    // `--suggest`: variants of this run, each once, at least two.
    if let Some(parts) = &args.suggest {
        let names: Vec<&str> = chosen.iter().map(|v| v.name.as_str()).collect();
        let bad = (parts.iter().enumerate()).find(|(i, p)| {
            *p == PUBLISHED || !names.contains(&p.as_str()) || parts[..*i].contains(p)
        });
        if let Some((_, p)) = bad {
            return Err(Error::usage(
                format!(
                    "--suggest names `{}`, which is not a variant of this run (or names it twice)",
                    crate::env::escape::terminal(p)
                ),
                format!("name variants of: {}", names[1..].join(", ")),
            ));
        }
        if parts.len() < 2 {
            return Err(Error::usage(
                "--suggest needs two variants or more to apply together",
                "one variant alone is already measured whole in the run",
            ));
        }
    }
    Ok(chosen)
}

/// `--variants` applied to the crate's variants (the reference always
/// kept).
fn select_variants(args: &Args, all: &[axes::Variant]) -> Result<Vec<axes::Variant>> {
    let Some(patterns) = &args.variants else {
        return Ok(all.to_vec());
    };
    let chosen: Vec<axes::Variant> = (all.iter())
        .filter(|v| {
            v.name == PUBLISHED
                || patterns
                    .iter()
                    .any(|p| crate::select::ciphers::matches(p, &v.name))
        })
        .cloned()
        .collect();
    if chosen.len() == 1 && !patterns.iter().any(|p| p == PUBLISHED) {
        let names: Vec<&str> = all.iter().map(|v| v.name.as_str()).collect();
        return Err(Error::usage(
            format!(
                "--variants {} matches none of the crate's variants",
                patterns.join(",")
            ),
            format!("one of: {}", names.join(", ")),
        ));
    }
    Ok(chosen)
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

    /// `--suggest` names variants of the run (after `--variants`), at
    /// least two, each once; `published` is not one to apply.
    #[test]
    fn a_suggested_set_names_variants_of_the_run() {
        let all: Vec<axes::Variant> = ["published", "none", "drop_1", "drop_2", "add_1"]
            .iter()
            .enumerate()
            .map(|(i, n)| axes::Variant {
                name: n.to_string(),
                change: if i == 0 {
                    axes::Change::Published
                } else {
                    axes::Change::Drop(i)
                },
            })
            .collect();
        let with = |suggest: &str| {
            let a = args(&[
                "compare",
                "--crate",
                "x@1.0.0",
                "--variants",
                "drop_*,add_1",
                "--suggest",
                suggest,
            ]);
            select(&a, &all)
        };
        assert_eq!(with("drop_1,add_1").unwrap().len(), 4);
        for (suggest, says) in [
            ("drop_1,drop_99", "--suggest names `drop_99`"),
            ("drop_1,none", "--suggest names `none`"),
            ("drop_1,drop_1", "--suggest names `drop_1`"),
            ("published,drop_1", "--suggest names `published`"),
            ("drop_1", "--suggest needs two variants or more"),
        ] {
            match with(suggest) {
                Err(Error::Usage { cause, .. }) => {
                    assert!(cause.contains(says), "{suggest}: {cause}")
                }
                other => panic!("{suggest}: {:?}", other.map(|v| v.len())),
            }
        }
    }
}
