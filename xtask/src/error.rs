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

/// Its cause: what clap says of a value its parser refused with one
/// (`cli.rs` takes the error itself back).
impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Usage { cause, .. } | Error::Failed(cause) => f.write_str(cause),
        }
    }
}

impl std::error::Error for Error {}

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
