//! How finding or editing annotations fails. Every failure is returned,
//! never a panic: the input is a stranger's crate.

use std::fmt;
use std::path::PathBuf;

/// A failure of [`scan`](super::scan) or of an edit.
#[derive(Debug)]
pub enum Error {
    /// A file could not be read or written.
    Io {
        path: PathBuf,
        cause: std::io::Error,
    },
    /// `Cargo.toml` is not valid TOML or names its library badly.
    Manifest { path: PathBuf, cause: String },
    /// A file does not lex as Rust tokens (an unterminated string, say).
    Lex {
        file: PathBuf,
        line: usize,
        cause: String,
    },
    /// `mod NAME;` names a file that is not there (and the declaration is
    /// compiled on the target, so it cannot be skipped).
    ModuleNotFound {
        file: PathBuf,
        line: usize,
        tried: Vec<PathBuf>,
    },
    /// The text an edit expects at its place is not there: the file is not
    /// the one scanned, or an earlier edit moved it.
    Stale {
        file: PathBuf,
        line: usize,
        expected: String,
    },
    /// Two edits touch the same bytes, or an edit would give a function a
    /// second inline attribute.
    Conflict {
        file: PathBuf,
        line: usize,
        cause: String,
    },
    /// `rustc --print cfg` gave a line that is not `name` or `name="value"`.
    CfgLine(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Io { path, cause } => write!(f, "{}: {cause}", path.display()),
            Error::Manifest { path, cause } => write!(f, "{}: {cause}", path.display()),
            Error::Lex { file, line, cause } => {
                write!(f, "{}:{line}: does not lex: {cause}", file.display())
            }
            Error::ModuleNotFound { file, line, tried } => {
                let tried: Vec<String> = tried.iter().map(|p| p.display().to_string()).collect();
                write!(
                    f,
                    "{}:{line}: module file not found (tried {})",
                    file.display(),
                    tried.join(", ")
                )
            }
            Error::Stale {
                file,
                line,
                expected,
            } => write!(
                f,
                "{}:{line}: expected `{expected}` there; the file is not the one scanned",
                file.display()
            ),
            Error::Conflict { file, line, cause } => {
                write!(f, "{}:{line}: {cause}", file.display())
            }
            Error::CfgLine(line) => write!(f, "not a cfg line of `rustc --print cfg`: {line:?}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io { cause, .. } => Some(cause),
            _ => None,
        }
    }
}

impl From<Error> for crate::error::Error {
    fn from(e: Error) -> Self {
        crate::error::Error::failed(e.to_string())
    }
}

/// The result of this module's fallible functions.
pub type Result<T> = std::result::Result<T, Error>;

/// Reads a file, naming it on failure.
pub(super) fn read(path: &std::path::Path) -> Result<String> {
    std::fs::read_to_string(path).map_err(|cause| Error::Io {
        path: path.to_path_buf(),
        cause,
    })
}
