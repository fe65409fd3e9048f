//! `cargo xtask render [DIR]`: renders every report's markdown and chart,
//! and the index, again from the JSON in DIR, after a change to the
//! renderer; nothing is measured.

use crate::error::Result;
use crate::{output, workspace};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// The reports directory.
    #[arg(value_name = "DIR", default_value_os_t = workspace::root().join("reports"))]
    dir: PathBuf,
}

pub fn run(args: Args) -> Result<()> {
    let reports = output::read_reports(&args.dir)?;
    for r in &reports {
        output::write(r, &args.dir)?;
        println!(
            "rendered {}",
            args.dir.join(format!("{}.md", r.cipher)).display()
        );
    }
    output::write_index_of(&args.dir, &reports)
}
