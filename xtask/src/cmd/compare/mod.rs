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

use crate::env::flags;
use crate::env::workspace;
use crate::error::Result;

pub fn run(mut args: Args) -> Result<()> {
    let meta = workspace::metadata()?;
    let sets = flags::grid(&args.flags())?;
    // A grid's flag sets multiply the variants: its defaults time fewer
    // cases (`time/plan.rs`).
    args.amount.grid = flags::is_grid(&sets);
    match &args.cipher {
        Some(cipher) => ciphers::run(&args, cipher, &sets, &meta.target_dir),
        None => krate::run(&args, &sets, &meta.target_dir),
    }
}
