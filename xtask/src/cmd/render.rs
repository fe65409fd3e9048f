//! `cargo xtask render [DIR]`: renders every report's markdown and chart,
//! and the index, again from the JSON in DIR, after a change to the
//! renderer; nothing is measured. A `.json` file that is not a report (a
//! `tcrypt --json` output) is skipped with a line saying so; one that
//! claims to be a report but cannot be read or trusted (another schema
//! version, a cipher name that is not a plain name, a size of 0) is
//! skipped too, and makes the exit code 1 once the others are rendered.

use crate::env::workspace;
use crate::error::{Error, Result};
use crate::report::output;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// The reports directory.
    #[arg(value_name = "DIR", default_value_os_t = workspace::root().join("reports"))]
    dir: PathBuf,
}

pub fn run(args: Args) -> Result<()> {
    let read = output::read_reports(&args.dir)?;
    read.say();
    for r in &read.reports {
        output::render(r, &args.dir)?;
        println!(
            "rendered {}",
            args.dir.join(format!("{}.md", r.cipher)).display()
        );
    }
    output::write_index_of(&args.dir, &read.reports)?;
    match read.refused() {
        0 => Ok(()),
        n => Err(Error::failed(format!(
            "{n} file(s) in {} look like reports but could not be read (named above); the others were rendered",
            args.dir.display()
        ))),
    }
}
