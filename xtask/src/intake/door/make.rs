//! A taken crate's variants made ([`make`]): for each feature set, the
//! crate as published built to find the functions its hot path leaves out
//! of line, the variants those make, the ones `--variants` and
//! `--suggest` choose copied, edited and given their shims (and the
//! registry peer its own); then the cipher the harness sees
//! ([`crate_cipher`]) and the contenders, ready to build ([`contenders`]),
//! each over its shim ([`shim_tree`], the tree `gate --crate`'s sides are
//! built from too).

use super::take::{Options, Taken};
use crate::env::escape::terminal;
use crate::env::flags::FlagSet;
use crate::env::tree::{Source, Tree};
use crate::error::{Error, Result};
use crate::intake::annotations;
use crate::intake::axes::{self, PUBLISHED};
use crate::intake::copy;
use crate::intake::shim::{self, Dependency, Shim};
use crate::select::contenders::{Contender, Kind, Origin, State};
use bench_harness::crate_libraries::Algorithm;
use bench_harness::crates::{self, CrateCipher, PEER_NAME, Primitive};
use bench_harness::registry::CipherEntry;
use std::path::{Path, PathBuf};

/// The variants made: those `--variants` chose of every one the crate
/// has (copied, edited and given their shims), what was left as it is and
/// why, the remapping every build shares, and whether the registry crate
/// is timed beside them.
pub struct Made {
    pub selected: Vec<axes::Variant>,
    /// The feature set of each of `selected` (an index into `Taken::sets`).
    pub set_of: Vec<usize>,
    /// The crate's modules the published hot path reaches.
    pub backends: Vec<String>,
    pub notes: Vec<String>,
    remaps: Vec<String>,
    pub with_peer: bool,
    /// The package's files the build of the crate as published wrote (a
    /// build script that writes its own source): no patch can be applied
    /// in place there.
    pub rewritten: Vec<String>,
}

/// For each feature set, builds the crate as published with it to find its
/// hot path's out-of-line functions and lists its variants; then writes the
/// chosen ones' copies and shims (and the registry peer's shim).
pub fn make(opts: &Options, t: &Taken) -> Result<Made> {
    let mut all: Vec<(axes::Variant, usize)> = Vec::new();
    let mut backends = Vec::new();
    let mut notes = Vec::new();
    let mut rewritten: Vec<String> = Vec::new();
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
            t.write_shim(PUBLISHED, 0, None)?;
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
        let before = copy::stamps(&t.copy_of(&published));
        let hot_names = hot_path(
            &t.shim_of(&published),
            &t.crates.join("_hot-build"),
            &t.lib,
            &t.work.path,
        )?;
        for file in copy::written(&before, &copy::stamps(&t.copy_of(&published))) {
            if !rewritten.contains(&file) {
                rewritten.push(file);
            }
        }
        let (hot, unmatched) = axes::out_of_line(&s.scan, &s.cfg, &t.lib, &hot_names);
        if k == 0 {
            backends = crate::intake::modules::modules(&t.lib, &hot_names);
        }
        let of_set = axes::variants(&s.scan, &s.cfg, &hot);
        let shape = match &t.identified.primitive {
            Primitive::Hash { digest_size } => format!("a hash, {digest_size}-byte digests"),
            Primitive::Mac {
                digest_size,
                key_lengths,
            } => format!(
                "a MAC, {digest_size}-byte tags, keys of {} bytes",
                lengths(key_lengths)
            ),
            Primitive::UniversalHash {
                digest_size,
                key_lengths,
            } => format!(
                "a universal hash, {digest_size}-byte blocks and tags, keys of {} bytes",
                lengths(key_lengths)
            ),
            Primitive::Aead {
                key_lengths,
                nonce_size,
                tag_size,
            } => format!(
                "an AEAD, {nonce_size}-byte nonces, {tag_size}-byte tags, keys of {} bytes",
                lengths(key_lengths)
            ),
            Primitive::StreamCipher {
                key_lengths,
                iv_size,
            } => format!(
                "a stream cipher, {iv_size}-byte nonces, keys of {} bytes",
                lengths(key_lengths)
            ),
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
    // Each `--also` dependency's variants, of the default feature set.
    for (d, dep) in t.also.iter().enumerate() {
        let of_dep = axes::dependency_variants(&dep.also.prefix(), d, &dep.scan, &dep.cfg);
        eprintln!(
            "[intake] --also {} {}: {} variants (its policies and one attribute removed at a time; no `add_K` or `never_N` for a dependency)",
            dep.package.name,
            dep.package.version,
            of_dep.len()
        );
        all.extend(of_dep.into_iter().map(|v| (v, 0)));
    }
    if !t.also.is_empty() {
        notes.push(format!(
            "--also {}: each dependency's variants are its policies and one attribute removed at a time (`add_K` and `never_N` are the crate's only), of the default feature set",
            (t.also.iter())
                .map(|d| format!("{} {}", d.package.name, d.package.version))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    let names: Vec<axes::Variant> = all.iter().map(|(v, _)| v.clone()).collect();
    if let Some(twice) = (names.iter().enumerate())
        .find(|(i, v)| names[..*i].iter().any(|w| w.name == v.name))
        .map(|(_, v)| &v.name)
    {
        return Err(Error::usage(
            format!(
                "two variants would be named `{twice}` (a dependency's name starts another variant's)"
            ),
            "leave that dependency out of --also",
        ));
    }
    let selected = select(opts, &names)?;
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
    let mut remaps: Vec<String> = (names.iter().map(|v| v.name.clone()))
        .chain(opts.later.iter().cloned())
        .map(|v| {
            format!(
                "--remap-path-prefix={}={}",
                t.copy_of(&v).display(),
                t.package.dir.display()
            )
        })
        .collect();
    // Each `--also` dependency's copies (as published, and each of its
    // variants') onto the registry's directory, likewise.
    for (d, dep) in t.also.iter().enumerate() {
        let edited = (names.iter())
            .filter(|v| v.change.dependency().is_some_and(|(e, _)| e == d))
            .map(|v| v.name.as_str());
        remaps.extend([PUBLISHED].into_iter().chain(edited).map(|v| {
            format!(
                "--remap-path-prefix={}={}",
                t.dep_copy_of(v, d).display(),
                dep.package.dir.display()
            )
        }));
    }
    let with_peer = t.package.from_registry && !opts.no_peer;
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
                with: &t.with,
                lock: &t.lock,
                patches: &[],
            },
            &t.shim_of(REGISTRY_DIR),
        )?;
    }
    if !rewritten.is_empty() {
        let note = format!(
            "the build of the crate as published wrote into the package's own source ({}): its build script writes the source, so an edit there would not survive a build, and no patch is written",
            rewritten.join(", ")
        );
        eprintln!("[intake] {}", terminal(&note));
        notes.push(note);
    }
    Ok(Made {
        selected,
        set_of,
        backends,
        notes,
        remaps,
        with_peer,
        rewritten,
    })
}

/// Copies the crate for variant `v` of feature set `set`, edits the copy
/// and writes its shim; what the edits left as published, and why, as a
/// note.
pub fn write_variant(t: &Taken, v: &axes::Variant, set: usize) -> Result<Option<String>> {
    let s = &t.sets[set];
    let copy_dir = t.copy_of(&v.name);
    copy::copy_package(&t.package.dir, &copy_dir)?;
    if let Some((d, change)) = v.change.dependency() {
        // The crate as published; the dependency's copy edited.
        let dep = (t.also.get(d))
            .ok_or_else(|| Error::failed(format!("{}: no such --also dependency", v.name)))?;
        let dep_dir = t.dep_copy_of(&v.name, d);
        copy::copy_package(&dep.package.dir, &dep_dir)?;
        let edits = axes::edits(&dep.scan, &dep.cfg, change);
        annotations::apply_under(&dep_dir, &edits)
            .map_err(|e| Error::failed(format!("{}: {e}", v.name)))?;
        t.write_shim(&v.name, set, Some(d))?;
        let left = axes::skipped(&dep.scan, &dep.cfg, change);
        return Ok(skipped_note(&v.name, &left));
    }
    let edits = axes::edits(&s.scan, &s.cfg, &v.change);
    annotations::apply_under(&copy_dir, &edits)
        .map_err(|e| Error::failed(format!("{}: {e}", v.name)))?;
    t.write_shim(&v.name, set, None)?;
    let left = axes::skipped(&s.scan, &s.cfg, &v.change);
    Ok(skipped_note(&v.name, &left))
}

/// What variant `name` left as published (`left`), and why, as a note.
fn skipped_note(name: &str, left: &[String]) -> Option<String> {
    (!left.is_empty()).then(|| {
        format!(
            "`{name}` leaves {} `#[target_feature]` function(s) as published (rustc refuses `inline(always)` on them): {}",
            left.len(),
            left.join(", ")
        )
    })
}

/// Key lengths as the terminal is told them: runs of consecutive lengths
/// as ranges (`1 to 64`, `16, 24, 32`).
fn lengths(keys: &[usize]) -> String {
    let mut runs: Vec<(usize, usize)> = Vec::new();
    for &k in keys {
        match runs.last_mut() {
            Some((_, end)) if *end + 1 == k => *end = k,
            _ => runs.push((k, k)),
        }
    }
    let words: Vec<String> = (runs.iter())
        .map(|&(a, b)| match b - a {
            0 => a.to_string(),
            1 => format!("{a}, {b}"),
            _ => format!("{a} to {b}"),
        })
        .collect();
    words.join(", ")
}

/// The registry peer's directory among the copies (not a variant's name:
/// those are `[a-z0-9_]`).
const REGISTRY_DIR: &str = "@registry";

/// What a crate's run times beside its variants.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Peers {
    /// The registry crate (when `registry`), and each C library that has
    /// the same block cipher (`bench_harness::crate_libraries`).
    Timed { registry: bool },
    /// None: the suggested set's run, against `published` and the pick.
    None,
}

/// The crate's cipher as the harness sees it, with `variants` (the
/// reference first) and the `peers` timed beside them.
pub fn crate_cipher(
    t: &Taken,
    sets: &[FlagSet],
    variants: Vec<String>,
    peers: Peers,
) -> CrateCipher {
    let registry = matches!(peers, Peers::Timed { registry: true });
    let peer = registry.then(|| {
        format!(
            "{} {} (as published, from the registry)",
            t.package.name, t.package.version
        )
    });
    // The crate as published under the first flag set: every flag set
    // computes the same function.
    let oracle = (t.work.path).join(format!("{}.so", sets[0].contender(PUBLISHED)));
    let mut cipher = t.identified.cipher(&t.package, variants, peer, oracle);
    // A C library's implementation of the same block cipher, where one has
    // it: timed beside the crate as a peer.
    let block = t.identified.primitive.kind() == crates::Kind::BlockCipher;
    cipher.algorithm = (block && peers != Peers::None)
        .then(|| Algorithm::of_crate(&t.package.name, &t.identified.ty))
        .flatten();
    cipher
}

/// The tree of a crate built through the shim at `root`, in `target_dir`
/// with `rustflags`, under the profile's flags; `lib` is the crate's
/// library name.
pub fn shim_tree(root: PathBuf, target_dir: PathBuf, rustflags: Vec<String>, lib: &str) -> Tree {
    Tree {
        root,
        target_dir: Some(target_dir),
        rustflags,
        flags: FlagSet::profile(),
        source: Source::Shim {
            lib: lib.to_string(),
        },
    }
}

/// The contenders: each chosen variant over its shim, and the registry
/// peer, all built in the crate's target directory with the shared
/// remapping; and each C library's peer, built in this workspace.
pub fn contenders(entry: &'static CipherEntry, t: &Taken, made: &Made) -> Vec<Contender> {
    let tree = |root: PathBuf| {
        shim_tree(
            root,
            t.crates.join("_build").join(&t.key),
            made.remaps.clone(),
            &t.lib,
        )
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
        let mut c = contender(
            Kind::Peer(p),
            p.name,
            p.label.to_string(),
            t.shim_of(REGISTRY_DIR),
        );
        // A C library's peer is this workspace's artifact, as for its own
        // ciphers (`peer-libgcrypt`, the algorithm named at build time).
        if p.library.is_some() {
            c.tree = Tree::here();
        }
        out.push(c);
    }
    out
}

/// The demangled names of the functions the crate as published (its shim
/// at `shim`) leaves out of line on its hot path: built (without the
/// copies' remapping, in a target directory of its own: only its code's
/// shape is read) and walked from `inlinelab_crypt`.
fn hot_path(shim: &Path, target: &Path, lib: &str, work: &Path) -> Result<Vec<String>> {
    let tree = shim_tree(shim.to_path_buf(), target.to_path_buf(), Vec::new(), lib);
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
fn select(opts: &Options, all: &[axes::Variant]) -> Result<Vec<axes::Variant>> {
    let chosen = select_variants(opts, all)?;
    // `--suggest`: variants of this run, each once, at least two.
    if let Some(parts) = opts.suggest {
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
        if let Some(dep) = (parts.iter())
            .find(|p| (chosen.iter()).any(|v| v.name == **p && v.change.dependency().is_some()))
        {
            return Err(Error::usage(
                format!(
                    "--suggest names `{}`, a variant of an --also dependency: a suggested set edits the crate itself",
                    crate::env::escape::terminal(dep)
                ),
                "name the crate's own variants (drop_N, add_K, a policy)",
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
fn select_variants(opts: &Options, all: &[axes::Variant]) -> Result<Vec<axes::Variant>> {
    let Some(patterns) = opts.variants else {
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
    use crate::intake::spec::Spec;

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
        let spec = Spec::Registry {
            name: "x".into(),
            version: "1.0.0".into(),
        };
        let variants = ["drop_*".to_string(), "add_1".to_string()];
        let with = |suggest: &str| {
            let suggest: Vec<String> = suggest.split(',').map(String::from).collect();
            let opts = Options {
                spec: &spec,
                given: "x@1.0.0",
                offline: false,
                ty: None,
                with: &[],
                features: &[],
                variants: Some(&variants),
                suggest: Some(&suggest),
                also: &[],
                no_peer: false,
                later: Vec::new(),
            };
            select(&opts, &all)
        };
        assert_eq!(with("drop_1,add_1").unwrap().len(), 4);
        assert_eq!(lengths(&(1..=64).collect::<Vec<_>>()), "1 to 64");
        assert_eq!(lengths(&[16, 24, 25, 32]), "16, 24, 25, 32");
        assert_eq!(lengths(&[4, 5, 6, 8]), "4 to 6, 8");
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
