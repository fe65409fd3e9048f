//! The two sides `gate --crate PATH --against REV` builds: the crate as the
//! revision REV of its repository has it (base, exported with `git
//! archive`), and as its working tree has it (head, its files copied), each
//! in turn into the same directory of ours (`src/`, the repository's
//! layout: a workspace's member among its siblings) and built there through
//! the same shim (`intake/shim.rs`, as `compare --crate` builds a crate), so
//! that the cipher is called across a crate boundary as its users call it.
//! Built from one path, one package, the two artifacts differ only where
//! the code does: the same symbols, laid out alike (rustc orders a crate's
//! inlined functions by their symbols, whose hash follows the package's
//! path). Paths are remapped onto the working tree's. What is the intake's
//! comes through the crate's front door (`intake/door/`): the base taken
//! in where it was exported (its package read, checked to be the working
//! tree's crate, its type asked of the compiler) and the shim tree each
//! side is built from;
//! what is the gate's stays here: the crate located, the revision
//! exported, the working tree copied, the sides built in turn.

use crate::build::{self, Reuse};
use crate::env::revision::Repo;
use crate::env::workdir::WorkDir;
use crate::error::{Error, Result};
use crate::intake::door::make;
use crate::intake::door::take::{self, InPlace};
use crate::intake::fetch::{self, Package};
use crate::intake::identify::Identified;
use crate::intake::shim::{self, Dependency, Shim};
use crate::intake::spec::With;
use crate::select::contenders::{Contender, Kind, Origin, State};
use bench_harness::crates::CrateCipher;
use bench_harness::registry::CipherEntry;
use std::path::{Path, PathBuf};

/// The base's name among the contenders (and its variant, to the
/// artifact): the reference every ratio is taken against, and the oracle.
pub const BASE: &str = "base";
/// The head's.
pub const HEAD: &str = "head";

/// Both sides, the base's tree in place: ready to build.
pub struct Sides {
    /// `--against`, as given.
    pub rev: String,
    /// The commit it names.
    pub commit: String,
    repo: Repo,
    /// The crate's directory relative to the repository's top.
    relative: PathBuf,
    /// The working tree's package (its name and version).
    pub head: Package,
    /// The base's package, read in `src/`.
    pub base: Package,
    pub identified: Identified,
    /// The cipher both artifacts hold, the base's artifact its oracle.
    pub cipher: CrateCipher,
    /// Locked: the tree built (`src/`), the shim, the artifacts.
    pub work: WorkDir,
    /// Where both are built (the crate's dependencies compiled once).
    target: PathBuf,
    /// `src/`'s paths remapped onto the working tree's (one flag, a path
    /// with a space in it too).
    rustflags: Vec<String>,
    /// The lock file the shim starts from.
    lock: String,
    /// The crates `--with` added, in the shim.
    with: Vec<With>,
}

/// Where the crate is: its manifest, its repository, the commit `--against`
/// names there and the crate's directory relative to the repository's top.
/// Found before anything is built: each is a usage error when wrong.
pub struct Located {
    manifest: PathBuf,
    repo: Repo,
    commit: String,
    relative: PathBuf,
}

/// Finds the crate of `manifest` (`--crate`'s, read as it was parsed),
/// its repository and the commit `rev` names.
pub fn locate(manifest: &Path, rev: &str) -> Result<Located> {
    let manifest = manifest.to_path_buf();
    let dir = manifest.parent().unwrap_or(Path::new("/")).to_path_buf();
    let repo = Repo::holding(&dir)?;
    let commit = repo.resolve(rev)?;
    let relative = repo.relative(&dir)?;
    Ok(Located {
        manifest,
        repo,
        commit,
        relative,
    })
}

/// Reads the head's package, exports `rev` into `src/`, and asks the
/// compiler which type to gate there (at the base: the baseline must
/// build), with `target` the workspace's target directory.
pub fn prepare(
    located: Located,
    rev: &str,
    ty: Option<&str>,
    with: &[With],
    offline: bool,
    target: &Path,
) -> Result<Sides> {
    let Located {
        manifest,
        repo,
        commit,
        relative,
    } = located;
    let head = fetch::in_place(&manifest, offline)?;
    let crates = take::crates(target);
    // One work and build directory per crate name, whatever its path: a
    // gate of a crate replaces what the last one of that name left.
    let key = format!("gate-{}", head.name);
    let work = WorkDir::lock(target, &format!("crates/{key}"))?;
    let src = work.path.join("src");
    eprintln!(
        "[intake] exporting {rev} ({}) of {} ...",
        &commit[..12],
        repo.top.display()
    );
    repo.export(&commit, &src)?;
    let base_manifest = src.join(&relative).join("Cargo.toml");
    let at_base = |cause: String, hint: String| {
        Error::usage(
            format!("at {rev} ({}): {cause}", &commit[..12]),
            format!("the base revision is the baseline and must build: {hint}"),
        )
    };
    if !base_manifest.is_file() {
        return Err(at_base(
            format!("no crate at {}", relative.display()),
            "gate against a revision that has the crate".into(),
        ));
    }
    let base_manifest = base_manifest.canonicalize().unwrap_or(base_manifest);
    // The working tree's crate, or refused as the base's (the door's
    // usage errors are said of the base revision).
    let same = |base: &Package| {
        if base.name == head.name {
            return Ok(());
        }
        Err(Error::usage(
            format!(
                "the crate there is `{}`, the working tree's `{}`",
                base.name, head.name
            ),
            "give the path the crate has at both revisions",
        ))
    };
    let InPlace {
        package: base,
        lock,
        identified,
    } = take::in_place(
        &base_manifest,
        &work.path,
        &crates,
        ty,
        with,
        offline,
        &same,
    )
    .map_err(|e| rebase(e, &at_base))?;
    let cipher = identified.cipher(
        &base,
        vec![BASE.into(), HEAD.into()],
        None,
        work.path.join(format!("{BASE}.so")),
    );
    let (from, to) = (src.display().to_string(), repo.top.display().to_string());
    let rustflags = vec![format!("--remap-path-prefix={from}={to}")];
    Ok(Sides {
        rev: rev.to_string(),
        commit,
        repo,
        relative,
        head,
        base,
        identified,
        cipher,
        target: crates.join("_build").join(key),
        rustflags,
        lock,
        work,
        with: with.to_vec(),
    })
}

impl Sides {
    /// The two contenders, base first, both over the one shim.
    pub fn contenders(&self, entry: &'static CipherEntry) -> Vec<Contender> {
        let label = |p: &Package, at: &str| format!("{} {} {at}", p.name, p.version);
        [
            (BASE, label(&self.base, &format!("at {}", self.rev))),
            (HEAD, label(&self.head, "in the working tree")),
        ]
        .into_iter()
        .map(|(side, label)| Contender {
            module: entry.module,
            kind: Kind::Variant(side),
            origin: Origin::Current,
            name: side.to_string(),
            label,
            tree: make::shim_tree(
                self.work.path.join("shim"),
                self.target.clone(),
                self.rustflags.clone(),
                &self.base.lib_name,
            ),
            state: State::Pending,
        })
        .collect()
    }

    /// Builds and sizes both contenders one after the other in `src/`: the
    /// base (exported by [`prepare`]), then the head, its working tree
    /// copied over it. Each build is fresh (cargo rebuilds the crate, whose
    /// files are newer than its last build); one that fails marks its
    /// contender failed.
    pub fn build(&self, entry: &CipherEntry, contenders: &mut [Contender]) -> Result<()> {
        let steps = contenders.len() + 2;
        for c in contenders.iter_mut() {
            let side = c.name.clone();
            if side == HEAD {
                let src = self.work.path.join("src");
                eprintln!(
                    "[intake] copying the working tree of {} ...",
                    self.repo.top.display()
                );
                self.repo.copy_working_tree(&src)?;
                if !src.join(&self.relative).join("Cargo.toml").is_file() {
                    c.fail(format!(
                        "no crate at {} in the working tree's files git lists",
                        self.relative.display()
                    ));
                    continue;
                }
            }
            let package = if side == HEAD { &self.head } else { &self.base };
            shim::write(
                &Shim {
                    package: &package.name,
                    dependency: Dependency::Copy(&self.base.dir),
                    ty: &self.identified.ty,
                    kind: self.identified.primitive.kind(),
                    holds: &format!("{}::{side}", self.cipher.module),
                    features: &[],
                    with: &self.with,
                    lock: &self.lock,
                    patches: &[],
                },
                &self.work.path.join("shim"),
            )?;
            build::build_and_size_reusing(
                entry,
                std::slice::from_mut(c),
                &self.work.path,
                steps,
                Reuse::Never,
            );
        }
        Ok(())
    }
}

/// A usage error about the base's crate said as one about the base
/// revision (`at`); any other error as it is.
fn rebase(e: Error, at: &dyn Fn(String, String) -> Error) -> Error {
    match e {
        Error::Usage { cause, hint } => at(cause, hint),
        other => other,
    }
}
