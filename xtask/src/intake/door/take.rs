//! A crate taken in, before any variant: found (fetched by cargo, or read
//! where it is), its work directory locked, copied as published, the type
//! measured asked of the compiler, its feature sets read and its inline
//! attributes scanned under each ([`take`], for `compare --crate`). The
//! caller's checks (where its reports go) run at the points [`Checks`]
//! names, before the intake goes further. A crate in a tree of its own
//! (`gate --crate`'s base, a revision's exported tree) is taken in where
//! it is ([`in_place`]), through the same probe of the compiler
//! (`identify`) and the same scratch directory ([`crates`]).

use crate::env::subject::{Subject, quoted};
use crate::env::workdir::WorkDir;
use crate::error::{Error, Result};
use crate::intake::annotations::{self, Cfg, Manifest, Scan};
use crate::intake::axes::PUBLISHED;
use crate::intake::copy;
use crate::intake::features::{self, FeatureSet};
use crate::intake::fetch::{self, Package};
use crate::intake::identify::{self, Identified};
use crate::intake::probe::Probe;
use crate::intake::shim::{self, Dependency, Patched, Shim};
use crate::intake::spec::{Also, Spec, With};
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// What the intake reads of a command's options.
pub struct Options<'a> {
    /// What `--crate` names.
    pub spec: &'a Spec,
    /// `--crate`'s value as given, as the terminal is told it.
    pub given: &'a str,
    /// `--offline`: cargo uses only what it has cached.
    pub offline: bool,
    /// `--type`: the type to measure, when the crate has more than one (a
    /// generic one with its parameters).
    pub ty: Option<&'a str>,
    /// `--with`: crates every package the crate is built through depends
    /// on, which a generic type's parameters name.
    pub with: &'a [With],
    /// `--features`: the feature sets besides the default one.
    pub features: &'a [String],
    /// `--variants`: the patterns of the variants chosen (the reference
    /// always kept).
    pub variants: Option<&'a [String]>,
    /// `--suggest`: variants of the run to apply together.
    pub suggest: Option<&'a [String]>,
    /// `--also`: dependencies whose attributes are edited too.
    pub also: &'a [Also],
    /// Whether the registry crate is left out (`--no-peer`).
    pub no_peer: bool,
    /// The names of the copies a later step may make (each copy's path is
    /// remapped in every build, so that their builds share the crate's
    /// dependencies).
    pub later: Vec<String>,
}

/// What the caller checks while the crate is taken in, each before the
/// intake goes further: any may refuse.
pub trait Checks {
    /// The crate's subject and folder name (`cast6-0.2.0`) known, before
    /// cargo is asked anything (a local crate's read where it is).
    fn named(&mut self, subject: &Subject, key: &str) -> Result<()>;
    /// The crate fetched: its folder name as the registry spells it.
    fn fetched(&mut self, key: &str) -> Result<()>;
    /// The type measured known, by the report's name, before the
    /// attributes are scanned.
    fn identified(&mut self, name: &str) -> Result<()>;
}

/// What the intake learned of the crate before any variant: where it is
/// and where its run keeps its files, the type measured and what it takes,
/// and its attributes.
pub struct Taken {
    /// The spec as the report's command records it: `NAME@VERSION`, or
    /// the local crate's directory, quoted.
    pub text: String,
    pub package: Package,
    /// `cast6-0.2.0`.
    pub key: String,
    /// `target/inlinelab/crates`: the scratch packages and build targets.
    pub crates: PathBuf,
    /// `target/inlinelab/crates/KEY`, locked: the copies, shims, artifacts.
    pub work: WorkDir,
    /// The package's directory name (`cast6-0.2.0`), each copy's.
    dir_name: OsString,
    /// The lock file every shim starts from.
    pub lock: String,
    /// The feature sets, the default one first (`--features`), each with
    /// its attributes as a build with it sees them.
    pub sets: Vec<Scanned>,
    /// The type measured, what it is, its modes and the report's name.
    pub identified: Identified,
    /// The crate's library name.
    pub lib: String,
    /// The crates `--with` added, in every shim.
    pub with: Vec<With>,
    /// The dependencies `--also` named, each copied as published and
    /// scanned, in every shim's `[patch.crates-io]`.
    pub also: Vec<Dep>,
}

/// A dependency whose attributes are axes too (`--also`): the registry's
/// package (read only), its copy's directory name, and its attributes as
/// the crate's build compiles it (the features that build turns on).
pub struct Dep {
    pub also: Also,
    pub package: Package,
    dir_name: OsString,
    pub cfg: Cfg,
    pub scan: Scan,
}

impl Taken {
    /// The copy of the crate variant `v` is built from.
    pub fn copy_of(&self, v: &str) -> PathBuf {
        self.work.path.join("copies").join(v).join(&self.dir_name)
    }

    /// The shim variant `v` (or the registry peer, `@registry`) is built
    /// through.
    pub fn shim_of(&self, v: &str) -> PathBuf {
        self.work.path.join("copies").join(v).join("shim")
    }

    /// The copy of dependency `dep` (an index into [`Taken::also`]) that
    /// variant `v` edits; every other variant's is `published`'s.
    pub fn dep_copy_of(&self, v: &str, dep: usize) -> PathBuf {
        (self.work.path.join("copies").join(v)).join(&self.also[dep].dir_name)
    }

    /// Every `--also` dependency patched in for variant `v`: its own copy
    /// of the one it edits (`edits`, an index into [`Taken::also`]), the
    /// copy as published of the others.
    pub fn patches(&self, v: &str, edits: Option<usize>) -> Vec<Patched> {
        (self.also.iter().enumerate())
            .map(|(d, dep)| Patched {
                name: dep.package.name.clone(),
                dir: self.dep_copy_of(if edits == Some(d) { v } else { PUBLISHED }, d),
            })
            .collect()
    }

    /// Writes the shim of variant `v` over its copy, the crate built with
    /// the features of set `set`, and the `--also` dependency `edits` from
    /// the variant's own copy.
    pub fn write_shim(&self, v: &str, set: usize, edits: Option<usize>) -> Result<()> {
        shim::write(
            &Shim {
                package: &self.package.name,
                dependency: Dependency::Copy(&self.copy_of(v)),
                ty: &self.identified.ty,
                kind: self.identified.primitive.kind(),
                holds: &format!("{}::{v}", self.package.holds()),
                features: &self.sets[set].set.features,
                with: &self.with,
                lock: &self.lock,
                patches: &self.patches(v, edits),
            },
            &self.shim_of(v),
        )
    }
}

/// A feature set, and the crate's attributes as a build with it sees them.
pub struct Scanned {
    pub set: FeatureSet,
    pub cfg: Cfg,
    pub scan: Scan,
}

/// `target/inlinelab/crates` of the target directory `target`: the
/// scratch packages and build targets of every crate taken in.
pub fn crates(target: &Path) -> PathBuf {
    target.join("inlinelab").join("crates")
}

/// Asks the compiler which type of `package` to measure (`ty`, when it
/// has more than one) and what it takes, through a probe depending on its
/// copy `copy` (with its default features) in `work`'s `probe/`, built in
/// `crates`' probe target.
#[allow(clippy::too_many_arguments)]
fn identify(
    package: &Package,
    copy: &Path,
    lock: &str,
    work: &Path,
    crates: &Path,
    ty: Option<&str>,
    with: &[With],
    offline: bool,
) -> Result<Identified> {
    let probe = Probe {
        package,
        copy,
        features: &[],
        with,
        lock,
        dir: &work.join("probe"),
        target: &crates.join("_probe-target"),
        offline,
    };
    identify::identify(&probe, ty)
}

/// A crate taken in where it is, in a tree of its own (`gate --crate`'s
/// base: a revision's exported tree): its package, the lock file its shim
/// starts from (the workspace's), and the type measured.
pub struct InPlace {
    pub package: Package,
    pub lock: String,
    pub identified: Identified,
}

/// Reads the crate of `manifest` where it is, refuses it when `same` does
/// (before the compiler is asked anything), and asks the compiler which
/// type to measure (`ty`, when it has more than one) through a probe in
/// `work`, built in `crates`' probe target.
pub fn in_place(
    manifest: &Path,
    work: &Path,
    crates: &Path,
    ty: Option<&str>,
    with: &[With],
    offline: bool,
    same: &dyn Fn(&Package) -> Result<()>,
) -> Result<InPlace> {
    let package = fetch::in_place(manifest, offline)?;
    same(&package)?;
    let lock = shim::lock_file(&[])?;
    let identified = identify(
        &package,
        &package.dir,
        &lock,
        work,
        crates,
        ty,
        with,
        offline,
    )?;
    Ok(InPlace {
        package,
        lock,
        identified,
    })
}

/// Finds the crate, locks its work directory, copies it as published,
/// asks the compiler which type to measure and what it takes, and scans
/// the attributes, with `target` the workspace's target directory;
/// `checks` run where [`Checks`] says.
pub fn take(opts: &Options, target: &Path, checks: &mut dyn Checks) -> Result<Taken> {
    let spec = opts.spec;
    // The subject, the folder's name, and the spec as the report's
    // command records it (the subject its marker is read back as); a
    // local crate's name and version read where it is (nothing resolved,
    // nothing written).
    let (subject, early_key, text) = match spec {
        Spec::Registry { name, version } => (
            Subject::Registry {
                name: name.clone(),
                version: version.clone(),
            },
            format!("{name}-{version}"),
            format!("{name}@{version}"),
        ),
        Spec::Path(manifest) => {
            let p = fetch::in_place(manifest, opts.offline)?;
            let dir = p.dir.display().to_string();
            (
                Subject::Path(dir.clone()),
                format!("{}-{}", p.name, p.version),
                quoted(&dir).into_owned(),
            )
        }
    };
    checks.named(&subject, &early_key)?;
    let crates = crates(target);
    let scratch_name = match spec {
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
    eprintln!("[intake] finding {} ...", opts.given);
    let package = fetch::fetch(spec, &scratch, opts.offline)?;
    let key = format!("{}-{}", package.name, package.version);
    // The registry's spelling of the name (`md_5` is `md-5`) may name
    // another folder.
    checks.fetched(&key)?;
    let work = WorkDir::lock(target, &format!("crates/{key}"))?;
    let dir_name =
        (package.dir.file_name()).map_or_else(|| key.clone().into(), |n| n.to_os_string());
    let lock = shim::lock_file(&[scratch.join("fetch").join("Cargo.lock")])?;
    let published = work.path.join("copies").join(PUBLISHED).join(&dir_name);
    copy::copy_package(&package.dir, &published)?;
    drop(fetching);
    let manifest = Manifest::read(&published).map_err(|e| Error::failed(e.to_string()))?;
    let sets = features::sets(
        opts.features,
        &manifest.declared(),
        &format!("{} {}", package.name, package.version),
    )?;
    let identified = identify(
        &package,
        &published,
        &lock,
        &work.path,
        &crates,
        opts.ty,
        opts.with,
        opts.offline,
    )?;
    checks.identified(&identified.name)?;
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
    let also = dependencies(
        opts,
        &package,
        &published,
        &work.path,
        &lock,
        &identified,
        &dir_name,
    )?;
    Ok(Taken {
        text,
        package,
        key,
        crates,
        work,
        dir_name,
        lock,
        sets,
        identified,
        lib,
        with: opts.with.to_vec(),
        also,
    })
}

/// The dependencies `--also` names, found in the crate's build as a shim
/// over its copy as published (`published`) resolves it (the lock every
/// shim starts from, `lock`): each a package cargo unpacked from
/// crates.io, copied as published (into `work`'s `copies/published/`) and
/// scanned under the features that build turns on; refused, exit 2, when
/// the build has none of that name, several versions, or one not from
/// crates.io.
fn dependencies(
    opts: &Options,
    package: &Package,
    published: &Path,
    work: &Path,
    lock: &str,
    identified: &Identified,
    dir_name: &OsString,
) -> Result<Vec<Dep>> {
    if opts.also.is_empty() {
        return Ok(Vec::new());
    }
    let mut names: Vec<String> = Vec::new();
    for a in opts.also {
        if a.name == package.name {
            return Err(Error::usage(
                format!(
                    "--also {}: the crate itself, whose attributes are axes already",
                    a.name
                ),
                "name dependencies of the crate (e.g. --also aes,ghash)",
            ));
        }
        if names.contains(&a.name) {
            return Err(Error::usage(
                format!("--also names {} twice", a.name),
                "name each dependency once",
            ));
        }
        names.push(a.name.clone());
    }
    // A shim over the copy as published, no patch: its resolution is
    // what every build's is.
    let dir = work.join("also-resolve");
    shim::write(
        &Shim {
            package: &package.name,
            dependency: Dependency::Copy(published),
            ty: &identified.ty,
            kind: identified.primitive.kind(),
            holds: &format!("{}::{PUBLISHED}", package.holds()),
            features: &[],
            with: opts.with,
            lock,
            patches: &[],
        },
        &dir,
    )?;
    let resolved = fetch::dependencies(
        &dir.join("Cargo.toml"),
        &published.join("Cargo.toml"),
        &names,
        opts.offline,
    )?;
    let copies = published.parent().unwrap_or(work);
    (opts.also.iter().zip(resolved))
        .map(|(also, r)| {
            let key = format!("{}-{}", r.package.name, r.package.version);
            let dep_dir = (r.package.dir.file_name())
                .map_or_else(|| key.clone().into(), |n| n.to_os_string());
            if &dep_dir == dir_name {
                return Err(Error::failed(format!(
                    "--also {}: its directory is the crate's ({key})",
                    also.name
                )));
            }
            let copy = copies.join(&dep_dir);
            copy::copy_package(&r.package.dir, &copy)?;
            let cfg = Cfg::from_rustc(None, &r.features).map_err(|e| Error::failed(e.to_string()))?;
            let scan = annotations::scan(&copy, &cfg)
                .map_err(|e| Error::failed(format!("{key}: {e}")))?;
            eprintln!(
                "[intake] --also {key}: {} inline attributes ({} compiled on this target), features {}",
                scan.annotations.len(),
                scan.applying(&cfg).count(),
                if r.features.is_empty() { "none".to_string() } else { r.features.join(", ") }
            );
            Ok(Dep {
                also: also.clone(),
                package: r.package,
                dir_name: dep_dir,
                cfg,
                scan,
            })
        })
        .collect()
}
