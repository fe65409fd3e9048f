//! The build stage: builds and sizes each contender (the same file is
//! sized here and timed later), printing a progress line per step.

use crate::artifacts;
use crate::contenders::{Built, Contender, State};
use crate::fault;
use crate::size;
use bench_harness::registry::CipherEntry;
use std::path::Path;

/// Builds and sizes each contender into `dir`; a failure marks that
/// contender failed and the others go on. `steps` is the run's step count,
/// for the progress lines.
pub fn build_and_size(entry: &CipherEntry, contenders: &mut [Contender], dir: &Path, steps: usize) {
    for (i, c) in contenders.iter_mut().enumerate() {
        eprint!("[{}/{steps}] building and sizing {} ... ", i + 1, c.label);
        let dest = dir.join(format!("{}.so", c.name));
        let extra = fault::extra_features(&c.name);
        let built = artifacts::build(&c.tree, &c.selection(), extra, c.crate_name(), &dest)
            .and_then(|files| {
                size::read(
                    &files.so,
                    files.rlib_bytes,
                    c.crate_name(),
                    c.variant(),
                    entry.rounds,
                )
                .map(|sized| (files, sized))
            });
        match built {
            Ok((files, sized)) => {
                let a = &sized.artifact;
                eprintln!(
                    "{:.1}s, footprint {} bytes (hot path {}), .so {} bytes",
                    files.seconds,
                    a.footprint_bytes,
                    a.hot_path_bytes.map_or("unknown".into(), |b| b.to_string()),
                    a.so_bytes
                );
                c.state = State::Built(Built {
                    so: files.so,
                    artifact: sized.artifact,
                    hot_path: sized.hot_path,
                    loaded: None,
                });
            }
            Err(why) => {
                eprintln!("failed");
                eprintln!("    {why}");
                c.fail(why);
            }
        }
    }
}
