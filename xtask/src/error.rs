//! How a command fails: a usage error (exit 2, with a hint) or a failure
//! (exit 1). Either is one line of cause.

use std::process::ExitCode;

#[derive(Debug)]
pub enum Error {
    /// Bad input: the cause and what to do instead.
    Usage { cause: String, hint: String },
    /// The command ran and something failed.
    Failed(String),
}

impl Error {
    pub fn usage(cause: impl Into<String>, hint: impl Into<String>) -> Error {
        Error::Usage {
            cause: cause.into(),
            hint: hint.into(),
        }
    }

    pub fn failed(cause: impl Into<String>) -> Error {
        Error::Failed(cause.into())
    }
}

pub type Result<T> = std::result::Result<T, Error>;

/// Prints the error, if any, and gives the exit code.
pub fn exit(result: Result<()>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Error::Usage { cause, hint }) => {
            eprintln!("xtask: {cause}");
            eprintln!("hint: {hint}");
            ExitCode::from(2)
        }
        Err(Error::Failed(cause)) => {
            eprintln!("xtask: {cause}");
            ExitCode::FAILURE
        }
    }
}

/// Parses a flag's comma-separated list of positive whole numbers.
pub fn positive_list(flag: &str, s: &str) -> Result<Vec<usize>> {
    s.split(',')
        .map(|p| p.trim().parse::<usize>().ok().filter(|&n| n > 0))
        .collect::<Option<Vec<_>>>()
        .filter(|v| !v.is_empty())
        .ok_or_else(|| {
            Error::usage(
                format!("{flag} takes positive whole numbers separated by commas, not `{s}`"),
                format!("e.g. {flag} 16,256,8192"),
            )
        })
}

/// Parses a flag's positive number.
pub fn positive_number(flag: &str, s: &str) -> Result<f64> {
    match s.parse::<f64>() {
        Ok(v) if v > 0.0 && v.is_finite() => Ok(v),
        _ => Err(Error::usage(
            format!("{flag} takes a positive number, not `{s}`"),
            format!("e.g. {flag} 2"),
        )),
    }
}
