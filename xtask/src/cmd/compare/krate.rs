//! `cargo xtask compare --crate SPEC`: a crate this workspace did not
//! write, taken in (`intake/`): fetched by cargo (or packaged from a local
//! path), its cipher type found by the compiler, its inline attributes
//! found and edited in copies, each copy built through the same downstream
//! shim as the crate itself (the registry peer) and timed against the
//! crate as published by compare's pipeline; the report goes to
//! `reports/crates/NAME-VERSION/`.

use super::args::Args;
use super::pipeline;
use crate::env::tree::{Source, Tree};
use crate::env::workdir::WorkDir;
use crate::env::workspace;
use crate::error::{Error, Result};
use crate::intake::annotations::{self, Cfg, Manifest};
use crate::intake::axes::{self, PUBLISHED};
use crate::intake::fetch::{self, Package};
use crate::intake::probe::Probe;
use crate::intake::shim::{self, Dependency, Shim};
use crate::intake::spec::Spec;
use crate::intake::{copy, table};
use crate::render::output;
use crate::select::contenders::{Contender, Kind, Origin, State};
use bench_harness::crates::{CrateCipher, PEER_NAME};
use bench_harness::registry::CipherEntry;
use std::path::{Path, PathBuf};

pub fn run(args: &Args, target: &Path) -> Result<()> {
    let text = args.krate.as_deref().unwrap_or_default();
    let spec = Spec::parse(text)?;
    let crates = target.join("inlinelab").join("crates");
    let scratch = crates.join(match &spec {
        Spec::Registry { name, version } => format!("_fetch-{name}-{version}"),
        Spec::Path(p) => format!(
            "_path-{:016x}",
            bench_harness::so::fnv1a(p.display().to_string().as_bytes())
        ),
    });
    eprintln!("[intake] finding {text} ...");
    let package = fetch::fetch(&spec, &scratch, args.offline)?;
    let key = format!("{}-{}", package.name, package.version);
    let out = (args.out.clone())
        .unwrap_or_else(|| workspace::root().join("reports").join("crates").join(&key));
    let work = WorkDir::lock(target, &format!("crates/{key}"))?;
    let pkg_dir_name = package
        .dir
        .file_name()
        .map_or_else(|| key.clone().into(), |n| n.to_os_string());
    let copy_of = |variant: &str| work.path.join("copies").join(variant).join(&pkg_dir_name);

    let lock = lock_file(&scratch)?;
    let published = copy_of(PUBLISHED);
    copy::copy_package(&package.dir, &published)?;
    let features: Vec<String> = Vec::new();
    let probe = Probe {
        package: &package,
        copy: &published,
        features: &features,
        lock: &lock,
        dir: &work.path.join("probe"),
        target: &crates.join("_probe-target"),
        offline: args.offline,
    };
    eprintln!("[intake] asking the compiler which types of {key} are block ciphers ...");
    let candidates = probe.candidates()?;
    let ty = choose_type(&package, args.ty.as_deref(), &candidates)?;
    let learned = probe.learn(&ty)?;
    let Some(modes) = CrateCipher::modes_for(learned.block_size, &learned.key_lengths) else {
        return Err(Error::usage(
            format!("{key}: {ty} takes no key length from 1 to 64 bytes"),
            "give a type keyed by a byte string (--type)",
        ));
    };
    let name = report_name(&package, &ty, candidates.len());
    let mut files = crate::env::outputs::Outputs::in_dir("--out", &out);
    output::plan(&mut files, &out, &name);
    output::plan_refresh(&mut files, &out, false)?;
    files.check()?;

    let manifest = Manifest::read(&published).map_err(|e| Error::failed(e.to_string()))?;
    let enabled: Vec<String> = manifest.features(&[], false).into_iter().collect();
    let cfg = Cfg::from_rustc(None, &enabled).map_err(|e| Error::failed(e.to_string()))?;
    let scan =
        annotations::scan(&published, &cfg).map_err(|e| Error::failed(format!("{key}: {e}")))?;
    let holds = format!("{}@{}", package.name, package.version);
    let shim_of = |variant: &str| work.path.join("copies").join(variant).join("shim");
    let write_shim = |variant: &str, copy_dir: &Path| {
        shim::write(
            &Shim {
                package: &package.name,
                dependency: Dependency::Copy(copy_dir),
                ty: &ty,
                holds: &format!("{holds}::{variant}"),
                features: &features,
                lock: &lock,
            },
            &shim_of(variant),
        )
    };
    write_shim(PUBLISHED, &published)?;
    let lib: &'static str = Box::leak(package.lib_name.clone().into_boxed_str());
    eprintln!("[intake] building {key} as published, to find the functions its hot path calls ...");
    let hot_names = hot_path(
        &shim_of(PUBLISHED),
        &crates.join("_hot-build"),
        lib,
        &work.path,
    )?;
    let (hot, unmatched) = axes::out_of_line(&scan, &cfg, lib, &hot_names);
    let variants = axes::variants(&scan, &cfg, &hot);
    let numbered = axes::numbered(&scan, &cfg);
    eprintln!(
        "[intake] {key}, type {ty}: {}-byte blocks, keys of {:?} bytes; {} inline attributes ({} compiled on this target) in {} files; {} functions out of line on the hot path; {} variants",
        learned.block_size,
        learned.key_lengths,
        scan.annotations.len(),
        scan.applying(&cfg).count(),
        scan.files.len(),
        hot.len(),
        variants.len()
    );
    let selected = select(args, &variants)?;
    let mut notes: Vec<String> = unmatched
        .iter()
        .map(|u| format!("not given `always`: {u}"))
        .collect();
    // One RUSTFLAGS for every build of the crate (dependencies compiled
    // once): each variant's copy remapped onto the registry's directory, so
    // that the copies' paths (panic locations) are the crate's own.
    let remaps: Vec<String> = (variants.iter())
        .map(|v| {
            format!(
                "--remap-path-prefix={}={}",
                copy_of(&v.name).display(),
                package.dir.display()
            )
        })
        .collect();
    for v in &selected {
        if v.name == PUBLISHED {
            continue;
        }
        let copy_dir = copy_of(&v.name);
        copy::copy_package(&package.dir, &copy_dir)?;
        let edits = axes::edits(&scan, &cfg, &v.change);
        annotations::apply_under(&copy_dir, &edits)
            .map_err(|e| Error::failed(format!("{}: {e}", v.name)))?;
        let left = axes::skipped(&scan, &cfg, &v.change);
        if !left.is_empty() {
            notes.push(format!(
                "`{}` leaves {} `#[target_feature]` function(s) as published (rustc refuses `inline(always)` on them): {}",
                v.name,
                left.len(),
                left.join(", ")
            ));
        }
        write_shim(&v.name, &copy_dir)?;
    }
    let peer_shim = work.path.join("copies").join("@registry").join("shim");
    let with_peer = package.from_registry && !args.no_peer;
    if with_peer {
        shim::write(
            &Shim {
                package: &package.name,
                dependency: Dependency::Registry {
                    version: &package.version,
                },
                ty: &ty,
                holds: PEER_NAME,
                features: &features,
                lock: &lock,
            },
            &peer_shim,
        )?;
    }
    let cipher = CrateCipher {
        name: name.clone(),
        module: holds.clone(),
        label: format!("{} {}, {ty}", package.name, package.version),
        lib_name: package.lib_name.clone(),
        block_size: learned.block_size,
        modes,
        key_lengths: learned.key_lengths.clone(),
        variants: selected.iter().map(|v| v.name.clone()).collect(),
        reference: PUBLISHED.into(),
        peer: with_peer.then(|| {
            format!(
                "{} {} (as published, from the registry)",
                package.name, package.version
            )
        }),
        oracle: work.path.join(format!("{PUBLISHED}.so")),
    };
    let entry = CipherEntry::of_crate(&cipher);
    let tree = |root: PathBuf| Tree {
        root,
        target_dir: Some(crates.join("_build").join(&key)),
        rustflags: Some(remaps.join(" ")),
        source: Source::Shim { lib },
    };
    let mut contenders: Vec<Contender> = (entry.variants.iter())
        .map(|(v, _)| Contender {
            module: entry.module,
            kind: Kind::Variant(v),
            origin: Origin::Current,
            name: v.to_string(),
            label: format!("{}-{v}", package.name),
            tree: tree(work.path.join("copies").join(v).join("shim")),
            state: State::Pending,
        })
        .collect();
    for p in entry.peers {
        contenders.push(Contender {
            module: entry.module,
            kind: Kind::Peer(p),
            origin: Origin::Current,
            name: p.name.to_string(),
            label: p.label.to_string(),
            tree: tree(peer_shim.clone()),
            state: State::Pending,
        });
    }
    let command = format!(
        "cargo xtask compare --crate {text}{}",
        args.ty
            .as_ref()
            .map_or(String::new(), |t| format!(" --type {t}"))
    );
    let settings = pipeline::settings(args, PUBLISHED, command);
    let mut report = pipeline::compare(args, &settings, entry, contenders, &work.path)?;
    report.run.notes.extend(notes);
    report.annotations = Some(table::table(&scan, &numbered, &selected, &package, &ty));
    output::write(&report, &out)?;
    output::refresh(&out, false)?;
    if let Some(a) = &report.annotations {
        let judged = crate::render::worth::judge(&report, a);
        let added = crate::render::worth::judge_added(&report, a);
        let headline = crate::render::worth::headline(a, &judged, &added);
        println!("{}", crate::env::escape::terminal(&headline));
    }
    pipeline::print_verdict(&report, &out);
    pipeline::failures(&report)
}

/// The demangled names of the functions the crate as published (its shim
/// at `shim`) leaves out of line on its hot path: built (without the
/// copies' remapping, in a target directory of its own: only its code's
/// shape is read) and walked from `inlinelab_crypt`.
fn hot_path(shim: &Path, target: &Path, lib: &'static str, work: &Path) -> Result<Vec<String>> {
    let tree = Tree {
        root: shim.to_path_buf(),
        target_dir: Some(target.to_path_buf()),
        rustflags: None,
        source: Source::Shim { lib },
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

/// The type to measure: `--type` when it is a candidate; the one candidate
/// when there is one; else a usage error listing them.
fn choose_type(package: &Package, ty: Option<&str>, candidates: &[String]) -> Result<String> {
    let list = candidates.join(", ");
    let key = format!("{} {}", package.name, package.version);
    match (ty, candidates) {
        (_, []) => Err(Error::usage(
            format!(
                "{key} has no type at its root with KeyInit + BlockCipherEncrypt + BlockCipherDecrypt (cipher 0.5)"
            ),
            "give a block cipher crate that implements the cipher 0.5 traits",
        )),
        (Some(t), _) if candidates.iter().any(|c| c == t) => Ok(t.to_string()),
        (Some(t), _) => Err(Error::usage(
            format!("{key} has no block cipher type `{t}`"),
            format!("--type one of: {list}"),
        )),
        (None, [one]) => Ok(one.clone()),
        (None, _) => Err(Error::usage(
            format!("{key} has {} block cipher types", candidates.len()),
            format!("choose one with --type: {list}"),
        )),
    }
}

/// The report's name (`[a-z0-9_]`): the crate's library name, and the
/// type's when the crate has several.
fn report_name(package: &Package, ty: &str, types: usize) -> String {
    let clean = |s: &str| -> String {
        s.chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() {
                    c.to_ascii_lowercase()
                } else {
                    '_'
                }
            })
            .collect()
    };
    let mut name = clean(&package.lib_name);
    if types > 1 {
        name = format!("{name}_{}", clean(ty.rsplit("::").next().unwrap_or(ty)));
    }
    name.truncate(crate::report::check::MAX_NAME);
    name
}

/// `--variants` applied to the crate's variants (the reference always
/// kept).
fn select(args: &Args, all: &[axes::Variant]) -> Result<Vec<axes::Variant>> {
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

/// The lock file shims start from: the workspace's, with what resolved the
/// crate (the scratch package's lock, when there is one).
fn lock_file(scratch: &Path) -> Result<String> {
    let read = |p: &Path| {
        std::fs::read_to_string(p).map_err(|e| Error::failed(format!("{}: {e}", p.display())))
    };
    let ours = read(&workspace::root().join("Cargo.lock"))?;
    match std::fs::read_to_string(scratch.join("fetch").join("Cargo.lock")) {
        Ok(theirs) => shim::merge_locks(&ours, &theirs),
        Err(_) => Ok(ours),
    }
}
