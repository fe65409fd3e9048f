//! Parsing the `tcrypt` command line: every bad input is a [`UsageError`]
//! naming what is allowed, found before anything is allocated for a
//! measurement.

use crate::UsageError;
use crate::measure::{DEFAULT_SIZES, Timing};
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
