//! `cargo xtask compare`: builds every variant (and the peers) as its own
//! `.so`, sizes each, times those same files interleaved, and writes the
//! report. `CIPHER|all` compares this workspace's ciphers (`ciphers.rs`);
//! `--crate SPEC` a crate it did not write (`krate.rs`); both run the
//! same pipeline (`pipeline.rs`): contenders, build and size, time,
//! analyse, write.

mod args;
mod ciphers;
mod krate;
mod pipeline;

pub use args::Args;

use crate::env::workspace;
use crate::error::Result;

pub fn run(args: Args) -> Result<()> {
    let meta = workspace::metadata()?;
    match &args.cipher {
        Some(cipher) => ciphers::run(&args, cipher, &meta.target_dir),
        None => krate::run(&args, &meta.target_dir),
    }
}
