//! `cargo xtask __instructions CIPHER SO` (internal, for tests): the gate's
//! instruction counts of one artifact, one line per case.

use crate::error::{Error, Result};
use crate::{callgrind, ciphers, gate_measure};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// The cipher the artifact holds.
    cipher: String,
    /// The artifact.
    so: PathBuf,
}

pub fn run(args: Args) -> Result<()> {
    let entry = ciphers::named(&args.cipher, false, "gate")?[0];
    callgrind::check()?;
    let dir = std::env::temp_dir().join(format!("inlinelab-count-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| Error::failed(e.to_string()))?;
    let counts =
        callgrind::count(&args.so, &gate_measure::cases(entry), &dir).map_err(Error::failed);
    let _ = std::fs::remove_dir_all(&dir);
    for n in counts? {
        println!("{n}");
    }
    Ok(())
}
