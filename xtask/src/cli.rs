//! Command-line plumbing shared by every command: the value parsers that
//! check bounds at parse time, and clap's errors turned into this crate's
//! usage errors (one line of cause, one `hint:` line, exit 2); a value
//! parser's own usage error (`intake/spec.rs`'s) is passed on as it is.

use crate::error::{Error, Result};
use clap::error::ErrorKind;
use std::ffi::OsString;
use std::io::Write;
use std::ops::RangeInclusive;

/// Block sizes a run may ask for, in bytes: tcrypt's bound (1 MiB at most).
pub const BLOCK_BYTES: RangeInclusive<usize> = 1..=bench_harness::cli::MAX_BLOCK;
/// Quiet rounds a run may ask for per case: tcrypt's bounds.
pub const ROUNDS: RangeInclusive<usize> =
    bench_harness::cli::MIN_ROUNDS..=bench_harness::cli::MAX_ROUNDS;
/// Measuring processes of a run's first pass: at least two, since the
/// processes are the unit of every interval.
pub const PROCESSES: RangeInclusive<usize> = 2..=16;
/// The longest a run may time a case, or wait for quiet rounds, in seconds:
/// tcrypt's bound.
pub const MAX_SECONDS: f64 = bench_harness::cli::MAX_SECONDS;
/// The percentages `--threshold` and `--size-cost` take.
pub const PERCENT: RangeInclusive<f64> = 0.0..=100.0;

/// Whether `v` is a number of seconds a run may be given: above 0, at most
/// [`MAX_SECONDS`].
pub fn is_seconds(v: f64) -> bool {
    v.is_finite() && v > 0.0 && v <= MAX_SECONDS
}

/// Whether `v` is a fraction that [`percent`] gives: a percentage in
/// [`PERCENT`], over 100.
pub fn is_percent_fraction(v: f64) -> bool {
    v.is_finite() && PERCENT.contains(&(v * 100.0))
}

/// Block sizes in bytes, from a comma-separated list.
#[derive(Clone, Debug, PartialEq)]
pub struct Sizes(pub Vec<usize>);

/// `--sizes`: whole numbers in [`BLOCK_BYTES`], separated by commas.
pub fn sizes(s: &str) -> std::result::Result<Sizes, String> {
    let one = |p: &str| {
        p.trim()
            .parse::<usize>()
            .ok()
            .filter(|n| BLOCK_BYTES.contains(n))
    };
    s.split(',')
        .map(one)
        .collect::<Option<Vec<usize>>>()
        .map(Sizes)
        .ok_or_else(|| {
            format!(
                "block sizes are whole numbers from {} to {} separated by commas, e.g. 16,256,8192",
                BLOCK_BYTES.start(),
                BLOCK_BYTES.end()
            )
        })
}

/// `--rounds`: one whole number in [`ROUNDS`].
pub fn rounds(s: &str) -> std::result::Result<usize, String> {
    whole_in(s, &ROUNDS, "rounds")
}

/// `--machine-label`: 1 to 40 of `[A-Za-z0-9._-]`, so that the label
/// names a directory as it is.
pub fn machine_name(s: &str) -> std::result::Result<String, String> {
    let ok = (1..=40).contains(&s.len())
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
    if ok {
        Ok(s.to_string())
    } else {
        Err("a machine name is 1 to 40 of A-Z, a-z, 0-9, '.', '_' and '-'".into())
    }
}

/// `--processes`: one whole number in [`PROCESSES`].
pub fn processes(s: &str) -> std::result::Result<usize, String> {
    whole_in(s, &PROCESSES, "processes")
}

/// One whole number in `range`; the error names it as `what`.
fn whole_in(
    s: &str,
    range: &RangeInclusive<usize>,
    what: &str,
) -> std::result::Result<usize, String> {
    s.trim()
        .parse::<usize>()
        .ok()
        .filter(|n| range.contains(n))
        .ok_or_else(|| {
            format!(
                "{what} are one whole number from {} to {}",
                range.start(),
                range.end()
            )
        })
}

/// `--sec`, `--patience`: a positive, finite number of seconds, at most
/// [`MAX_SECONDS`].
pub fn seconds(s: &str) -> std::result::Result<f64, String> {
    s.trim()
        .parse::<f64>()
        .ok()
        .filter(|v| is_seconds(*v))
        .ok_or_else(|| format!("seconds are a number above 0 and at most {MAX_SECONDS}"))
}

/// A percentage from 0 to 100, returned as a fraction (`2` is 0.02).
pub fn percent(s: &str) -> std::result::Result<f64, String> {
    s.trim()
        .parse::<f64>()
        .ok()
        .filter(|v| PERCENT.contains(v))
        .map(|v| v / 100.0)
        .ok_or_else(|| format!("a percentage from {} to {}", PERCENT.start(), PERCENT.end()))
}

/// What clap's error means here: help (and the command list, for a bare
/// `cargo xtask`) is printed and the command succeeds; anything else is a
/// usage error. `cli` and `args` (as parsed) name the command in the hint.
pub fn from_clap(e: clap::Error, cli: &clap::Command, args: &[OsString]) -> Result<()> {
    match e.kind() {
        ErrorKind::DisplayHelp
        | ErrorKind::DisplayVersion
        | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            // A reader that stops early (`--help | head`) is no error.
            let _ = write!(std::io::stdout(), "{}", e.render());
            Ok(())
        }
        _ => Err(ours(&e).unwrap_or_else(|| usage(&e, &command_path(cli, args)))),
    }
}

/// The usage error a value parser of ours refused a value with (`--crate`'s
/// spec), as it is: its cause and hint, not clap's words around them.
fn ours(e: &clap::Error) -> Option<Error> {
    match std::error::Error::source(e)?.downcast_ref::<Error>()? {
        Error::Usage { cause, hint } => Some(Error::usage(cause.clone(), hint.clone())),
        Error::Failed(cause) => Some(Error::failed(cause.clone())),
    }
}

/// `cargo xtask compare` when the first argument names a command.
fn command_path(cli: &clap::Command, args: &[OsString]) -> String {
    let name = cli.get_name();
    match args.get(1).and_then(|a| a.to_str()) {
        Some(sub) if cli.find_subcommand(sub).is_some() => format!("{name} {sub}"),
        _ => name.to_string(),
    }
}

/// clap's error as one line of cause (its first line, with the arguments a
/// `...:` line announces) and one of hint (its suggestions, and where the
/// help of `command` is).
fn usage(e: &clap::Error, command: &str) -> Error {
    let text = e.render().to_string();
    let mut lines = text.lines();
    let mut cause = lines
        .next()
        .unwrap_or("bad arguments")
        .trim_start_matches("error: ")
        .to_string();
    if cause.ends_with(':') {
        let listed: Vec<&str> = lines
            .by_ref()
            .take_while(|l| !l.trim().is_empty())
            .map(str::trim)
            .collect();
        cause = format!("{cause} {}", listed.join(", "));
    }
    let tips: Vec<&str> = text
        .lines()
        .filter_map(|l| l.trim().strip_prefix("tip: "))
        .filter(|t| t.contains("similar"))
        .collect();
    let mut hint = tips.join("; ");
    if !hint.is_empty() {
        hint.push_str("; ");
    }
    hint.push_str(&format!("see {command} --help"));
    Error::usage(cause, hint)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds() {
        assert_eq!(sizes("16, 8192"), Ok(Sizes(vec![16, 8192])));
        assert!(sizes("0").is_err());
        assert!(sizes("1048577").is_err());
        assert!(sizes("16,").is_err());
        assert_eq!(rounds("3"), Ok(3));
        assert!(rounds("2").is_err() && rounds("1001").is_err() && rounds("3,4").is_err());
        assert_eq!(seconds("3600"), Ok(3600.0));
        for bad in ["0", "-1", "inf", "NaN", "3600.5"] {
            assert!(seconds(bad).is_err(), "{bad}");
        }
        assert_eq!(percent("2"), Ok(0.02));
        assert_eq!(percent("0"), Ok(0.0));
        assert!(percent("-3").is_err() && percent("100.1").is_err() && percent("NaN").is_err());
    }
}
