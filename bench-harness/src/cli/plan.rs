//! Planning a `tcrypt` run: the algorithms a [`Config`] names resolved
//! against the registry, with their engines, key sizes and block sizes,
//! every one checked before anything is timed.

use super::parse::Config;
use crate::UsageError;
use crate::engine::{Engine, Mode, timing_key};
use crate::measure::DEFAULT_SIZES;
use crate::registry::{self, Alg};
use crate::so::SoCipher;

/// What to time: an algorithm with its variants, key and block sizes.
pub struct Plan {
    pub alg: Alg,
    /// (variant name, engine)
    pub engines: Vec<(String, EngineKind)>,
    pub keys: Vec<usize>,
    pub sizes: Vec<usize>,
}

pub enum EngineKind {
    Cipher(Box<dyn Engine>),
    Hash(Box<dyn crate::engine::HashEngine>),
}

/// What [`plan`] comes to: the plans, and what it says about algorithms
/// `all` left out.
pub struct Plans {
    pub plans: Vec<Plan>,
    /// One line per reason, e.g. `all: skipping ecb(cast5), ... (no
    /// variant `auto`)`.
    pub notes: Vec<String>,
}

/// Resolves the names in `c` against the registry, checking every key size
/// and variant before anything is timed. `all` is every algorithm the other
/// options fit (`--variant auto`: those that have `auto`; `--so`: the modes
/// of the artifact's cipher it has; `--setkey`: the block ciphers), with a
/// note naming those left out; a named algorithm they do not fit is an
/// error.
pub fn plan(c: &Config) -> Result<Plans, UsageError> {
    let mut notes = Vec::new();
    let algs: Vec<Alg> = if c.algs.iter().any(|a| a == "all") {
        fitting(c, &mut notes)?
    } else {
        c.algs
            .iter()
            .map(|a| registry::find(a))
            .collect::<Result<_, _>>()?
    };
    let plans = algs
        .into_iter()
        .map(|alg| plan_one(c, alg))
        .collect::<Result<_, _>>()?;
    Ok(Plans { plans, notes })
}

/// The algorithms of `all` that the options fit.
fn fitting(c: &Config, notes: &mut Vec<String>) -> Result<Vec<Alg>, UsageError> {
    let mut algs = registry::all();
    let mut keep = |algs: &mut Vec<Alg>, why: &str, fits: &dyn Fn(&Alg) -> bool| {
        let (yes, no): (Vec<Alg>, Vec<Alg>) = algs.iter().partition(|a| fits(a));
        if !no.is_empty() && !yes.is_empty() {
            let names: Vec<String> = no.iter().map(Alg::name).collect();
            notes.push(format!("all: skipping {} ({why})", names.join(", ")));
        }
        *algs = yes;
    };
    if c.setkey {
        keep(&mut algs, "hashes have no key to set up", &|a| {
            matches!(a, Alg::Cipher { .. })
        });
    }
    if let Some(v) = c.variant.as_deref() {
        keep(&mut algs, &format!("no variant `{v}`"), &|a| {
            has_variant(a, v)
        });
        if algs.is_empty() {
            return Err(UsageError(format!(
                "no algorithm has a variant `{v}`; --list shows each algorithm's variants"
            )));
        }
    }
    if let Some(keys) = &c.keys {
        let shown: Vec<String> = keys.iter().map(|k| k.to_string()).collect();
        keep(
            &mut algs,
            &format!("no key of {} bytes", shown.join(", ")),
            &|a| takes_keys(a, keys),
        );
        if algs.is_empty() {
            return Err(UsageError(format!(
                "no algorithm takes keys of {} bytes; --list shows each algorithm's key sizes",
                shown.join(", ")
            )));
        }
    }
    if let Some(path) = &c.so {
        let so = SoCipher::load(path).map_err(|e| UsageError(e.to_string()))?;
        let holds = so.holds();
        algs.retain(|a| match a {
            Alg::Cipher {
                mode: Mode::Ecb | Mode::Cbc,
                entry,
                ..
            } => holds.is_of(entry),
            Alg::Cipher { .. } => false,
            Alg::Hash(h) => so.digest_size() > 0 && holds.is_of_hash(h),
        });
        if algs.is_empty() {
            return Err(UsageError(format!(
                "{} holds `{}`, which is no algorithm's variant or peer; rebuild it with cargo xtask compare",
                path.display(),
                so.name()
            )));
        }
        let names: Vec<String> = algs.iter().map(Alg::name).collect();
        notes.push(format!(
            "all: {} holds `{}`: timing {} only (an artifact has ecb and cbc, or its hash)",
            path.display(),
            so.name(),
            names.join(", ")
        ));
    }
    Ok(algs)
}

/// Whether the block cipher `alg` takes every key size of `keys` (a hash
/// takes none).
fn takes_keys(alg: &Alg, keys: &[usize]) -> bool {
    match alg {
        Alg::Cipher { mode, entry, .. } => entry.variants.first().is_some_and(|(_, make)| {
            let Some(make) = make else { return false };
            let mut e = make();
            keys.iter()
                .all(|&k| e.set_key(*mode, &timing_key(*mode, k)).is_ok())
        }),
        Alg::Hash(_) => false,
    }
}

/// Whether `alg` has a variant, or a peer tcrypt can time, named `v`.
fn has_variant(alg: &Alg, v: &str) -> bool {
    match alg {
        Alg::Cipher { entry, .. } => {
            entry.variants.iter().any(|(n, _)| *n == v)
                || entry.peers.iter().any(|p| p.make.is_some() && p.name == v)
        }
        Alg::Hash(h) => h.variants.iter().any(|(n, _)| *n == v),
    }
}

fn plan_one(c: &Config, alg: Alg) -> Result<Plan, UsageError> {
    let name = alg.name();
    match alg {
        Alg::Cipher { mode, entry, keys } => {
            let mut engines = cipher_engines(c, mode, entry, &name)?;
            let keys = c.keys.clone().unwrap_or_else(|| keys.to_vec());
            let (_, EngineKind::Cipher(first)) = &mut engines[0] else {
                unreachable!("cipher plans hold cipher engines")
            };
            check_keys(first.as_mut(), mode, &keys, &name)?;
            let bs = entry.block_size;
            let sizes = c
                .sizes
                .clone()
                .unwrap_or_else(|| DEFAULT_SIZES.to_vec())
                .into_iter()
                .map(|s| s.div_ceil(bs) * bs)
                .collect();
            Ok(Plan {
                alg,
                engines,
                keys,
                sizes,
            })
        }
        Alg::Hash(h) => Ok(Plan {
            engines: hash_engines(c, h, &name)?,
            alg,
            keys: Vec::new(),
            sizes: c.sizes.clone().unwrap_or_default(),
        }),
    }
}

/// The engines a cipher plan times: the `--so` artifact (which must hold a
/// variant or peer of `entry`), else the `--variant` chosen (a variant or a
/// peer), else every variant. At least one.
fn cipher_engines(
    c: &Config,
    mode: Mode,
    entry: &'static registry::CipherEntry,
    name: &str,
) -> Result<Vec<(String, EngineKind)>, UsageError> {
    let mut engines: Vec<(String, EngineKind)> = Vec::new();
    if let Some(path) = &c.so {
        if !matches!(mode, Mode::Ecb | Mode::Cbc) {
            return Err(UsageError(format!(
                "--so artifacts have ecb and cbc only, not {name}"
            )));
        }
        let so = SoCipher::load(path).map_err(|e| UsageError(e.to_string()))?;
        so.check_holds(entry)
            .map_err(|e| UsageError(e.to_string()))?;
        let variant = so.name().to_string();
        engines.push((variant, EngineKind::Cipher(Box::new(so))));
        return Ok(engines);
    }
    let mut names: Vec<&str> = entry.variants.iter().map(|(n, _)| *n).collect();
    for (v, make) in entry.variants {
        let Some(make) = make else { continue };
        if c.variant.as_deref().is_none_or(|w| w == *v) {
            engines.push((v.to_string(), EngineKind::Cipher(make())));
        }
    }
    for peer in entry.peers {
        let Some(make) = peer.make else { continue };
        names.push(peer.name);
        if c.variant.as_deref() == Some(peer.name) {
            engines.push((peer.name.into(), EngineKind::Cipher(make())));
        }
    }
    if engines.is_empty() {
        return Err(unknown_variant(c, name, &names));
    }
    Ok(engines)
}

/// Every key size in `keys` is one `engine` takes in `mode`; if not, the
/// error lists the sizes it takes (1 to 128 bytes).
fn check_keys(
    engine: &mut dyn Engine,
    mode: Mode,
    keys: &[usize],
    name: &str,
) -> Result<(), UsageError> {
    for &k in keys {
        if engine.set_key(mode, &timing_key(mode, k)).is_err() {
            let ok: Vec<String> = (1..=128)
                .filter(|&n| engine.set_key(mode, &timing_key(mode, n)).is_ok())
                .map(|n| n.to_string())
                .collect();
            return Err(UsageError(format!(
                "{name} does not take a {k}-byte key; it takes {} bytes",
                ok.join(", ")
            )));
        }
    }
    Ok(())
}

/// The engines a hash plan times: the `--so` artifact (which must hold a
/// variant of `h`; it is streamed through the ABI), else the `--variant`
/// chosen, else every variant; the options that only ciphers take are
/// usage errors.
fn hash_engines(
    c: &Config,
    h: &'static registry::HashEntry,
    name: &str,
) -> Result<Vec<(String, EngineKind)>, UsageError> {
    if c.keys.is_some() {
        return Err(UsageError(format!("{name} is a hash and takes no --keys")));
    }
    if c.setkey {
        return Err(UsageError(format!(
            "{name} is a hash and has no key to set up; --setkey times block ciphers"
        )));
    }
    if let Some(path) = &c.so {
        let so = SoCipher::load(path).map_err(|e| UsageError(e.to_string()))?;
        so.check_holds_hash(h)
            .map_err(|e| UsageError(e.to_string()))?;
        let variant = so.name().to_string();
        return Ok(vec![(variant, EngineKind::Hash(Box::new(so)))]);
    }
    let engines: Vec<(String, EngineKind)> = h
        .variants
        .iter()
        .filter(|(v, _)| c.variant.as_deref().is_none_or(|w| w == *v))
        .map(|(v, make)| (v.to_string(), EngineKind::Hash(make())))
        .collect();
    if engines.is_empty() {
        let names: Vec<&str> = h.variants.iter().map(|(n, _)| *n).collect();
        return Err(unknown_variant(c, name, &names));
    }
    Ok(engines)
}

/// "unknown variant `V` of ALG; expected one of: ...".
fn unknown_variant(c: &Config, name: &str, names: &[&str]) -> UsageError {
    UsageError(format!(
        "unknown variant `{}` of {name}; expected one of: {}",
        c.variant.as_deref().unwrap_or(""),
        names.join(", ")
    ))
}
