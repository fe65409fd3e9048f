//! `cargo xtask __instructions CIPHER SO...` (internal, for tests and for a
//! look at what the gate counts): the gate's instruction counts of each
//! artifact, one line per artifact and case.

use crate::count::callgrind;
use crate::error::{Error, Result};
use crate::select::cases;
use crate::select::ciphers;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// The cipher the artifacts hold.
    cipher: String,
    /// The artifacts.
    #[arg(required = true)]
    so: Vec<PathBuf>,
}

pub fn run(args: Args) -> Result<()> {
    let entry = ciphers::named(&args.cipher, false, "gate")?[0];
    callgrind::check()?;
    let dir = tempfile::Builder::new()
        .prefix("inlinelab-count-")
        .tempdir()
        .map_err(|e| Error::failed(format!("a scratch directory: {e}")))?;
    let artifacts: Vec<(String, PathBuf)> = args
        .so
        .iter()
        .map(|p| (p.display().to_string(), p.clone()))
        .collect();
    let cases = cases::gate_cases(entry);
    let counts = callgrind::count(&artifacts, &cases, dir.path());
    drop(dir);
    let mut failed = None;
    for ((name, _), count) in artifacts.iter().zip(counts) {
        match count {
            callgrind::Count::Counted(n) => {
                for (c, n) in cases.iter().zip(n) {
                    println!(
                        "{name} {} {} {}-bit {} B: {n}",
                        c.alg(entry.name),
                        c.dir_name(),
                        c.key_bytes * 8,
                        c.block_bytes
                    );
                }
            }
            callgrind::Count::Unavailable(why)
            | callgrind::Count::Failed(why)
            | callgrind::Count::Hung(why) => {
                failed.get_or_insert(format!("{name}: {why}"));
            }
        }
    }
    failed.map_or(Ok(()), |why| Err(Error::failed(why)))
}
