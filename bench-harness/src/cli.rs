//! The `tcrypt` command line: parsing (every bad input is a [`UsageError`]
//! naming what is allowed) and the run itself.

use crate::UsageError;
use crate::clock::Counter;
use crate::engine::{Dir, Engine, Mode};
use crate::measure::{DEFAULT_SIZES, HASH_TEMPLATE, Measurement, Session, Test, Timing};
use crate::registry::{self, Alg};
use crate::so::SoCipher;
use std::path::PathBuf;

pub const USAGE: &str = "\
usage: tcrypt [OPTIONS] ALG...

Speed tests in the manner of the kernel's tcrypt module.

ALG                 kernel name: ecb(cast6), cbc(cast6), ctr(cast6), xts(cast6),
                    ecb(cipher_null), digest_null, ...; `all` for every one
--list              print every algorithm with its variants and key sizes
--variant NAME      one variant (default: every variant, one after another);
                    `rustcrypto` is the RustCrypto peer where there is one
--so PATH           time a built artifact (.so from cargo xtask compare)
                    instead of a variant; ecb and cbc only
--sec N             seconds mode: whole operations for N seconds (N > 0,
                    fractions allowed); default is cycles mode
--precise           precise mode: sizes interleaved, medians, least-squares
                    line of cycles against bytes (slope = cycles/byte)
--rounds N          rounds of precise mode (default 25)
--keys LIST         key sizes in bytes, e.g. 16,32 (default: kernel template)
--sizes LIST        block sizes in bytes (default 16,64,256,1024,1420,4096,8192,
                    each rounded up to a whole number of cipher blocks); for a
                    hash, block lengths digested in one update each
--json PATH         also write every measurement as JSON to PATH
-h, --help          this text";

/// What the command line asks for.
#[derive(Debug)]
pub struct Config {
    pub algs: Vec<String>,
    pub list: bool,
    pub variant: Option<String>,
    pub so: Option<PathBuf>,
    pub timing: Timing,
    pub keys: Option<Vec<usize>>,
    pub sizes: Option<Vec<usize>>,
    pub json: Option<PathBuf>,
    pub help: bool,
}

/// Parses the arguments (without the program name).
pub fn parse(args: &[String]) -> Result<Config, UsageError> {
    let mut c = Config {
        algs: Vec::new(),
        list: false,
        variant: None,
        so: None,
        timing: Timing::Cycles,
        keys: None,
        sizes: None,
        json: None,
        help: false,
    };
    let mut sec = None;
    let mut precise = false;
    let mut rounds = 25;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let mut value = |flag: &str| {
            it.next()
                .cloned()
                .ok_or_else(|| UsageError(format!("{flag} needs a value")))
        };
        match arg.as_str() {
            "-h" | "--help" => c.help = true,
            "--list" => c.list = true,
            "--precise" => precise = true,
            "--variant" => c.variant = Some(value("--variant")?),
            "--so" => c.so = Some(PathBuf::from(value("--so")?)),
            "--json" => c.json = Some(PathBuf::from(value("--json")?)),
            "--sec" => sec = Some(parse_seconds(&value("--sec")?)?),
            "--rounds" => rounds = parse_list("--rounds", &value("--rounds")?)?[0],
            "--keys" => c.keys = Some(parse_list("--keys", &value("--keys")?)?),
            "--sizes" => c.sizes = Some(parse_list("--sizes", &value("--sizes")?)?),
            flag if flag.starts_with('-') => {
                return Err(UsageError(format!(
                    "unknown option `{flag}`; expected one of: --list, --variant, --so, --sec, --precise, --rounds, --keys, --sizes, --json, --help"
                )));
            }
            alg => c.algs.push(alg.to_string()),
        }
    }
    c.timing = match (sec, precise) {
        (Some(_), true) => {
            return Err(UsageError(
                "--sec and --precise are different modes; give one".into(),
            ));
        }
        (Some(s), false) => Timing::Seconds(s),
        (None, true) => Timing::Precise { rounds },
        (None, false) => Timing::Cycles,
    };
    if rounds < 3 {
        return Err(UsageError("--rounds must be at least 3".into()));
    }
    if c.algs.is_empty() && !c.list && !c.help {
        return Err(UsageError(
            "no algorithm given, e.g. tcrypt 'ecb(cast6)'; --list shows them all".into(),
        ));
    }
    Ok(c)
}

fn parse_seconds(s: &str) -> Result<f64, UsageError> {
    match s.parse::<f64>() {
        Ok(v) if v > 0.0 && v.is_finite() => Ok(v),
        _ => Err(UsageError(format!(
            "--sec takes a positive number of seconds, e.g. 1 or 0.5, not `{s}`"
        ))),
    }
}

/// A comma-separated list of positive whole numbers.
fn parse_list(flag: &str, s: &str) -> Result<Vec<usize>, UsageError> {
    let bad = || {
        UsageError(format!(
            "{flag} takes positive whole numbers separated by commas, e.g. 16,256, not `{s}`"
        ))
    };
    let v: Vec<usize> = s
        .split(',')
        .map(|p| p.trim().parse::<usize>().ok().filter(|&n| n > 0))
        .collect::<Option<_>>()
        .ok_or_else(bad)?;
    if v.is_empty() { Err(bad()) } else { Ok(v) }
}

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

/// Resolves the names in `c` against the registry, checking every key size
/// and variant before anything is timed.
pub fn plan(c: &Config) -> Result<Vec<Plan>, UsageError> {
    let algs: Vec<Alg> = if c.algs.iter().any(|a| a == "all") {
        registry::all()
    } else {
        c.algs
            .iter()
            .map(|a| registry::find(a))
            .collect::<Result<_, _>>()?
    };
    algs.into_iter().map(|alg| plan_one(c, alg)).collect()
}

fn plan_one(c: &Config, alg: Alg) -> Result<Plan, UsageError> {
    let name = alg.name();
    match alg {
        Alg::Cipher { mode, entry, keys } => {
            let mut engines: Vec<(String, EngineKind)> = Vec::new();
            if let Some(path) = &c.so {
                let so = SoCipher::load(path).map_err(|e| UsageError(e.to_string()))?;
                if !matches!(mode, Mode::Ecb | Mode::Cbc) {
                    return Err(UsageError(format!(
                        "--so artifacts have ecb and cbc only, not {name}"
                    )));
                }
                let variant = so.name().to_string();
                engines.push((variant, EngineKind::Cipher(Box::new(so))));
            } else {
                let mut names: Vec<&str> = entry.variants.iter().map(|(n, _)| *n).collect();
                for (v, make) in entry.variants {
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
                    return Err(UsageError(format!(
                        "unknown variant `{}` of {name}; expected one of: {}",
                        c.variant.as_deref().unwrap_or(""),
                        names.join(", ")
                    )));
                }
            }
            let keys = c.keys.clone().unwrap_or_else(|| keys.to_vec());
            for &k in &keys {
                let (_, EngineKind::Cipher(e)) = &mut engines[0] else {
                    unreachable!("cipher plans hold cipher engines")
                };
                if e.set_key(mode, &vec![0xff; k]).is_err() {
                    let ok: Vec<String> = (1..=128)
                        .filter(|&n| e.set_key(mode, &vec![0xff; n]).is_ok())
                        .map(|n| n.to_string())
                        .collect();
                    return Err(UsageError(format!(
                        "{name} does not take a {k}-byte key; it takes {} bytes",
                        ok.join(", ")
                    )));
                }
            }
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
        Alg::Hash(h) => {
            if c.so.is_some() {
                return Err(UsageError(format!(
                    "--so artifacts are block ciphers, not {name}"
                )));
            }
            if c.keys.is_some() {
                return Err(UsageError(format!("{name} is a hash and takes no --keys")));
            }
            let engines: Vec<(String, EngineKind)> = h
                .variants
                .iter()
                .filter(|(v, _)| c.variant.as_deref().is_none_or(|w| w == *v))
                .map(|(v, make)| (v.to_string(), EngineKind::Hash(make())))
                .collect();
            if engines.is_empty() {
                let names: Vec<&str> = h.variants.iter().map(|(n, _)| *n).collect();
                return Err(UsageError(format!(
                    "unknown variant `{}` of {name}; expected one of: {}",
                    c.variant.as_deref().unwrap_or(""),
                    names.join(", ")
                )));
            }
            Ok(Plan {
                alg,
                engines,
                keys: Vec::new(),
                sizes: c.sizes.clone().unwrap_or_default(),
            })
        }
    }
}

/// `--list`: every algorithm, its variants and its template key sizes.
pub fn list() -> Vec<String> {
    registry::all()
        .iter()
        .map(|alg| {
            let mut variants = alg.variant_names().join(", ");
            match alg {
                Alg::Cipher { keys, entry, .. } => {
                    let peers: Vec<&str> = entry
                        .peers
                        .iter()
                        .filter(|p| p.make.is_some())
                        .map(|p| p.name)
                        .collect();
                    if !peers.is_empty() {
                        variants.push_str(&format!("; peer: {}", peers.join(", ")));
                    }
                    let keys: Vec<String> = keys.iter().map(|k| k.to_string()).collect();
                    format!(
                        "{:<18} variants: {variants}; key bytes: {}",
                        alg.name(),
                        keys.join(", ")
                    )
                }
                Alg::Hash(_) => format!(
                    "{:<18} variants: {variants}; hash template: block/update bytes 16/16 .. 8192/8192",
                    alg.name()
                ),
            }
        })
        .collect()
}

/// The JSON that `--json` writes.
#[derive(serde::Serialize)]
pub struct Report<'a> {
    pub schema_version: u32,
    pub counter: &'a Counter,
    /// What the `cycles` fields count.
    pub cycles_are: &'static str,
    pub timing: &'static str,
    pub measurements: &'a [Measurement],
    pub fits: &'a [crate::measure::Fit],
}

/// Runs the plans, printing tcrypt's lines through `out`.
pub fn run(
    c: &Config,
    plans: &mut [Plan],
    counter: &Counter,
    out: &mut dyn FnMut(&str),
) -> Result<(Vec<Measurement>, Vec<crate::measure::Fit>), crate::engine::EngineError> {
    let mut session = Session::new(counter, c.timing, out);
    for plan in plans.iter_mut() {
        let alg = plan.alg.name();
        for (variant, engine) in &mut plan.engines {
            match (engine, plan.alg) {
                (EngineKind::Cipher(e), Alg::Cipher { mode, .. }) => {
                    for dir in Dir::BOTH {
                        let test = Test {
                            alg: &alg,
                            variant,
                            dir: dir.name(),
                        };
                        session.cipher(&test, e.as_mut(), mode, dir, &plan.keys, &plan.sizes)?;
                    }
                }
                (EngineKind::Hash(h), _) if !h.available() => {
                    session.say(&format!(
                        "{}: unavailable on this CPU, not measured",
                        h.name()
                    ));
                }
                (EngineKind::Hash(h), _) => {
                    let template: Vec<(usize, usize)> = if plan.sizes.is_empty() {
                        HASH_TEMPLATE.to_vec()
                    } else {
                        plan.sizes.iter().map(|&s| (s, s)).collect()
                    };
                    let test = Test {
                        alg: &alg,
                        variant,
                        dir: "digest",
                    };
                    session.hash(&test, h.as_mut(), &template)?;
                }
                (EngineKind::Cipher(_), Alg::Hash(_)) => unreachable!("plans pair kinds"),
            }
        }
    }
    Ok((session.measurements, session.fits))
}
