//! The `tcrypt` command line: parsing (every bad input is a [`UsageError`]
//! naming what is allowed) and the run itself.

use crate::UsageError;
use crate::clock::Counter;
use crate::engine::{Dir, Engine, Mode};
use crate::measure::{DEFAULT_SIZES, HASH_TEMPLATE, Measurement, Session, Test, Timing};
use crate::registry::{self, Alg};
use crate::so::SoCipher;
use clap::builder::{OsStringValueParser, TypedValueParser};
use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::parser::ValueSource;
use clap::{CommandFactory, FromArgMatches, Parser};
use std::error::Error as _;
use std::ffi::OsString;
use std::fmt;
use std::path::PathBuf;

/// Block sizes: at most this many bytes each (1 MiB; the kernel's largest
/// is 8192).
pub const MAX_BLOCK: usize = 1 << 20;
/// Key sizes: at most this many bytes each, before the cipher's own check.
pub const MAX_KEY: usize = 256;
/// Entries in a `--sizes` or `--keys` list, at most.
pub const MAX_LIST: usize = 64;
/// Precise mode's rounds, when `--rounds` is not given.
pub const DEFAULT_ROUNDS: usize = 25;
/// `--rounds`: at least this many (a median and a spread need three).
pub const MIN_ROUNDS: usize = 3;
/// `--rounds`: at most this many.
pub const MAX_ROUNDS: usize = 1000;
/// `--sec`: at most this many seconds per test (an hour).
pub const MAX_SECONDS: f64 = 3600.0;

/// Speed tests in the manner of the kernel's tcrypt module. Without --sec or
/// --precise, cycles mode: 4 warm-up operations, then 8 timed ones.
#[derive(Parser, Debug)]
#[command(name = "tcrypt", version)]
struct Args {
    /// Kernel names: ecb(cast6), cbc(cast6), ctr(cast6), xts(cast6),
    /// ecb(cipher_null), digest_null, ... (--list shows them); `all` for
    /// every one the other options fit (with --variant auto, those that
    /// have `auto`; the others are named on stderr).
    #[arg(value_name = "ALG")]
    algs: Vec<String>,

    /// Print every algorithm with its variants and key sizes.
    #[arg(long)]
    list: bool,

    /// One variant (without it, every variant, one after another);
    /// `rustcrypto` is the RustCrypto peer where there is one.
    #[arg(long, value_name = "NAME", conflicts_with = "so")]
    variant: Option<String>,

    /// Time a built artifact (.so from cargo xtask compare) instead of a
    /// variant; ecb and cbc only. The file is checked before it is loaded
    /// (a whole ELF shared object exporting the ABI), and must hold a
    /// variant or peer of the algorithm's cipher.
    #[arg(long, value_name = "PATH", value_parser = path_parser("--so"))]
    so: Option<PathBuf>,

    /// Seconds mode: whole operations for N seconds per test (N > 0, at
    /// most 3600, fractions allowed).
    #[arg(long, value_name = "N", value_parser = parse_seconds, allow_hyphen_values = true,
          conflicts_with = "precise")]
    sec: Option<f64>,

    /// Precise mode: sizes interleaved, medians, least-squares line of
    /// cycles against bytes (slope = cycles/byte).
    #[arg(long)]
    precise: bool,

    /// Rounds of precise mode (only with --precise), a whole number from 3
    /// to 1000.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_ROUNDS, value_parser = parse_rounds,
          allow_hyphen_values = true)]
    rounds: usize,

    /// Key sizes in bytes, e.g. 16,32, each at most 256, at most 64 of them
    /// (without it, the algorithm's sizes in the kernel's template, shown by
    /// --list).
    #[arg(long, value_name = "LIST", value_parser = parse_keys, allow_hyphen_values = true)]
    keys: Option<List>,

    /// Block sizes in bytes, each from 1 to 1048576 (1 MiB), at most 64 of
    /// them, each rounded up to a whole number of cipher blocks; for a hash,
    /// block lengths digested in one update each (without it, a hash uses
    /// the kernel's hash template).
    #[arg(long, value_name = "LIST", value_parser = parse_sizes, allow_hyphen_values = true,
          default_value_t = List(DEFAULT_SIZES.to_vec()))]
    sizes: List,

    /// Time key setup instead of encryption and decryption: one operation
    /// sets a key of 0xff bytes, replacing the previous one; one line per
    /// key size. Block ciphers only; not with --sizes.
    #[arg(long)]
    setkey: bool,

    /// Also write every measurement as JSON to PATH: a regular file (or a
    /// new one) in an existing directory, checked before the run and
    /// written by rename; a directory, device or symbolic link is refused.
    #[arg(long, value_name = "PATH", value_parser = path_parser("--json"))]
    json: Option<PathBuf>,
}

/// A comma-separated list of whole numbers, as `--keys` and `--sizes` take.
#[derive(Debug, Clone, PartialEq, Eq)]
struct List(Vec<usize>);

impl fmt::Display for List {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> = self.0.iter().map(|n| n.to_string()).collect();
        f.write_str(&parts.join(","))
    }
}

/// What the command line asks for.
#[derive(Debug)]
pub struct Config {
    pub algs: Vec<String>,
    pub list: bool,
    pub variant: Option<String>,
    pub so: Option<PathBuf>,
    pub timing: Timing,
    pub keys: Option<Vec<usize>>,
    /// `None`: the kernel's template (block sizes, or a hash's template).
    pub sizes: Option<Vec<usize>>,
    /// `--setkey`: time key setup instead of encryption and decryption.
    pub setkey: bool,
    pub json: Option<PathBuf>,
}

/// What a command line comes to.
#[derive(Debug)]
pub enum Parsed {
    /// Measure (or `--list`).
    Run(Config),
    /// `--help` or `--version`: clap's text, for [`clap::Error::print`]
    /// (stdout, exit 0).
    Show(clap::Error),
}

/// Parses the arguments (without the program name). Every bad input is a
/// one-line [`UsageError`], found before anything is allocated for a
/// measurement.
pub fn parse<I, T>(args: I) -> Result<Parsed, UsageError>
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let argv = std::iter::once(OsString::from("tcrypt")).chain(args.into_iter().map(Into::into));
    let matches = match Args::command().try_get_matches_from(argv) {
        Ok(m) => m,
        Err(e) => return from_clap(e),
    };
    let a = Args::from_arg_matches(&matches).map_err(|e| UsageError(one_line(&e)))?;
    let given = |id: &str| matches.value_source(id) == Some(ValueSource::CommandLine);
    if given("rounds") && !a.precise {
        return Err(UsageError(
            "--rounds sets the rounds of precise mode; add --precise (or drop --rounds)".into(),
        ));
    }
    if a.setkey && given("sizes") {
        return Err(UsageError(
            "--setkey times key setup, which has no block size; drop --sizes (or --setkey)".into(),
        ));
    }
    if a.algs.is_empty() && !a.list {
        return Err(UsageError(
            "no algorithm given, e.g. tcrypt 'ecb(cast6)'; --list shows them all".into(),
        ));
    }
    let timing = match (a.sec, a.precise) {
        (Some(s), _) => Timing::Seconds(s),
        (None, true) => Timing::Precise { rounds: a.rounds },
        (None, false) => Timing::Cycles,
    };
    Ok(Parsed::Run(Config {
        algs: a.algs,
        list: a.list,
        variant: a.variant,
        so: a.so,
        timing,
        keys: a.keys.map(|k| k.0),
        sizes: given("sizes").then_some(a.sizes.0),
        setkey: a.setkey,
        json: a.json,
    }))
}

/// clap's errors in the project's style: one line naming what is allowed.
fn from_clap(e: clap::Error) -> Result<Parsed, UsageError> {
    let text = |k: ContextKind| match e.get(k) {
        Some(ContextValue::String(s)) => Some(s.as_str()),
        _ => None,
    };
    // "--sec <N>" -> "--sec"
    let flag = |k: ContextKind| text(k).map(|s| s.split(' ').next().unwrap_or(s).to_string());
    let msg = match e.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => return Ok(Parsed::Show(e)),
        ErrorKind::ValueValidation => match e.source().and_then(|s| s.downcast_ref::<UsageError>())
        {
            Some(u) => u.0.clone(),
            None => one_line(&e),
        },
        ErrorKind::InvalidValue if text(ContextKind::InvalidValue) == Some("") => {
            match flag(ContextKind::InvalidArg) {
                Some(f) => format!("{f} needs a value"),
                None => one_line(&e),
            }
        }
        ErrorKind::UnknownArgument => format!(
            "unknown option `{}`; expected one of: {}",
            shown(text(ContextKind::InvalidArg).unwrap_or("")),
            known_options()
        ),
        ErrorKind::ArgumentConflict => {
            match (flag(ContextKind::InvalidArg), flag(ContextKind::PriorArg)) {
                (Some(a), Some(b)) if a == b => format!("{a} is given twice; give it once"),
                (Some(a), Some(b)) => {
                    let mut pair = [a.as_str(), b.as_str()];
                    pair.sort_unstable();
                    match pair {
                        ["--precise", "--sec"] => {
                            "--sec and --precise are different modes; give one".to_string()
                        }
                        ["--so", "--variant"] => {
                            "--so times a built artifact instead of a variant; give --so or --variant, not both".to_string()
                        }
                        _ => format!("{a} cannot be used with {b}"),
                    }
                }
                _ => one_line(&e),
            }
        }
        ErrorKind::InvalidUtf8 => {
            "an argument is not valid UTF-8; algorithm names, variants and numbers are ASCII"
                .to_string()
        }
        _ => one_line(&e),
    };
    Err(UsageError(msg))
}

/// Every option, as `--list, --variant, ..., --help, --version`.
fn known_options() -> String {
    let mut cmd = Args::command();
    // Adds --help and --version.
    cmd.build();
    let longs: Vec<String> = cmd
        .get_arguments()
        .filter_map(|a| a.get_long())
        .map(|l| format!("--{l}"))
        .collect();
    longs.join(", ")
}

/// The first line of clap's own message, without its `error: `.
fn one_line(e: &clap::Error) -> String {
    let rendered = e.render().to_string();
    let first = rendered.lines().next().unwrap_or_default();
    shown_long(first.strip_prefix("error: ").unwrap_or(first))
}

/// A value as an error message shows it: control characters escaped (the
/// message stays one line) and cut short.
fn shown(s: &str) -> String {
    const MAX: usize = 40;
    let escaped = shown_long(s);
    match escaped.char_indices().nth(MAX) {
        Some((i, _)) => format!("{}...", &escaped[..i]),
        None => escaped,
    }
}

/// Control characters escaped, nothing cut.
fn shown_long(s: &str) -> String {
    s.chars()
        .flat_map(|c| {
            let escaped: Vec<char> = if c.is_control() {
                c.escape_default().collect()
            } else {
                vec![c]
            };
            escaped
        })
        .collect()
}

/// `--so` and `--json`: any path but the empty one.
fn path_parser(flag: &'static str) -> impl clap::builder::TypedValueParser<Value = PathBuf> {
    OsStringValueParser::new().try_map(move |s| {
        if s.is_empty() {
            Err(UsageError(format!(
                "{flag} takes a path, not an empty string"
            )))
        } else {
            Ok(PathBuf::from(s))
        }
    })
}

fn parse_seconds(s: &str) -> Result<f64, UsageError> {
    match s.trim().parse::<f64>() {
        Ok(v) if v > 0.0 && v <= MAX_SECONDS => Ok(v),
        _ => Err(UsageError(format!(
            "--sec takes a positive number of seconds up to {MAX_SECONDS}, e.g. 1 or 0.5, not `{}`",
            shown(s)
        ))),
    }
}

fn parse_rounds(s: &str) -> Result<usize, UsageError> {
    match s.trim().parse::<usize>() {
        Ok(n) if (MIN_ROUNDS..=MAX_ROUNDS).contains(&n) => Ok(n),
        _ => Err(UsageError(format!(
            "--rounds must be at least {MIN_ROUNDS} and at most {MAX_ROUNDS}, one whole number, not `{}`",
            shown(s)
        ))),
    }
}

fn parse_keys(s: &str) -> Result<List, UsageError> {
    parse_list("--keys", "16,32", MAX_KEY, s)
}

fn parse_sizes(s: &str) -> Result<List, UsageError> {
    parse_list("--sizes", "16,256", MAX_BLOCK, s)
}

/// A comma-separated list of 1 to [`MAX_LIST`] whole numbers from 1 to `max`.
fn parse_list(flag: &str, example: &str, max: usize, s: &str) -> Result<List, UsageError> {
    let bad = || {
        UsageError(format!(
            "{flag} takes positive whole numbers up to {max} separated by commas, at most {MAX_LIST} of them, e.g. {example}, not `{}`",
            shown(s)
        ))
    };
    let v: Vec<usize> = s
        .split(',')
        .take(MAX_LIST + 1)
        .map(|p| {
            p.trim()
                .parse::<usize>()
                .ok()
                .filter(|n| (1..=max).contains(n))
        })
        .collect::<Option<_>>()
        .ok_or_else(bad)?;
    if v.len() > MAX_LIST {
        Err(bad())
    } else {
        Ok(List(v))
    }
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
        algs.retain(|a| {
            matches!(a, Alg::Cipher { mode: Mode::Ecb | Mode::Cbc, entry, .. } if holds.is_of(entry))
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
            "all: {} holds `{}`: timing {} only (an artifact has ecb and cbc)",
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
            let mut e = make();
            keys.iter()
                .all(|&k| e.set_key(*mode, &vec![0xff; k]).is_ok())
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
        if engine.set_key(mode, &vec![0xff; k]).is_err() {
            let ok: Vec<String> = (1..=128)
                .filter(|&n| engine.set_key(mode, &vec![0xff; n]).is_ok())
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

/// The engines a hash plan times: the `--variant` chosen, else every
/// variant; the options that only ciphers take are usage errors.
fn hash_engines(
    c: &Config,
    h: &'static registry::HashEntry,
    name: &str,
) -> Result<Vec<(String, EngineKind)>, UsageError> {
    if c.so.is_some() {
        return Err(UsageError(format!(
            "--so artifacts are block ciphers, not {name}"
        )));
    }
    if c.keys.is_some() {
        return Err(UsageError(format!("{name} is a hash and takes no --keys")));
    }
    if c.setkey {
        return Err(UsageError(format!(
            "{name} is a hash and has no key to set up; --setkey times block ciphers"
        )));
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
    /// The generated marker: [`JSON_WRITER`], so that a later `--json` run
    /// knows the file as one it may replace.
    pub generated_by: &'static str,
    pub counter: &'a Counter,
    /// The machine the figures come from.
    pub machine: &'a crate::machine::Machine,
    /// Precise mode's quiet criterion: [`crate::interleave::QUIET`], and in
    /// words.
    pub quiet: f64,
    pub quiet_criterion: String,
    /// What the `cycles` fields count.
    pub cycles_are: &'static str,
    pub timing: &'static str,
    pub measurements: &'a [Measurement],
    pub fits: &'a [crate::measure::Fit],
}

/// What a `--json` file names as its writer.
pub const JSON_WRITER: &str = "tcrypt --json";

/// Whether an existing file is a `--json` output of tcrypt (a JSON object
/// whose `generated_by` is [`JSON_WRITER`]): only such a file is replaced.
pub fn owns_json(bytes: &[u8]) -> bool {
    #[derive(serde::Deserialize)]
    struct Head {
        generated_by: String,
    }
    serde_json::from_slice::<Head>(bytes).is_ok_and(|h| h.generated_by == JSON_WRITER)
}

/// The owner of a `--json` file ([`owns_json`]).
pub fn json_owner() -> crate::outfile::Owner<'static> {
    crate::outfile::Owner {
        writer: JSON_WRITER,
        owns: &owns_json,
    }
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
                (EngineKind::Cipher(e), Alg::Cipher { mode, .. }) if c.setkey => {
                    let test = Test {
                        alg: &alg,
                        variant,
                        dir: "setkey",
                    };
                    session.set_key(&test, e.as_mut(), mode, &plan.keys)?;
                }
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
