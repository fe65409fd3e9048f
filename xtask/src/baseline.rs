//! `cargo xtask baseline [CIPHER|all]`: measures every variant as the gate
//! does and writes the baseline files `reports/baseline/CIPHER.json` that
//! the gate compares with.

use crate::baseline_file;
use crate::callgrind;
use crate::ciphers;
use crate::contenders::{self, Origin};
use crate::error::{Error, Result};
use crate::gate_measure;
use crate::report::Status;
use crate::tree::Tree;
use crate::workdir::WorkDir;
use crate::workspace;

#[derive(clap::Args)]
pub struct Args {
    /// The cipher, as the kernel names it (e.g. cast6; a wrong name lists
    /// them all), or `all`.
    #[arg(value_name = "CIPHER|all", default_value = "all")]
    cipher: String,
}

pub fn run(args: Args) -> Result<()> {
    let meta = workspace::metadata()?;
    let ciphers = ciphers::named(&args.cipher, true, "baseline")?;
    callgrind::check()?;
    for entry in ciphers {
        let work = WorkDir::lock(&meta.target_dir, entry.name)?;
        let variants = ciphers::variant_names(entry);
        let mut contenders =
            contenders::contenders(entry, &variants, true, &Tree::here(), Origin::Current);
        let (report, _) = gate_measure::measure(
            entry,
            &mut contenders,
            &work.path,
            false,
            &format!("cargo xtask baseline {}", entry.name),
        )?;
        if let Some(bad) = report
            .variants
            .iter()
            .find(|e| e.status != Status::Measured)
        {
            return Err(Error::failed(format!(
                "{} failed ({}); no baseline written",
                bad.name,
                bad.reason.as_deref().unwrap_or("")
            )));
        }
        let path = baseline_file::path(entry.name);
        let json = crate::output::to_json(&report);
        workspace::write_atomically(&path, json.as_bytes())?;
        println!("baseline: {}", path.display());
    }
    Ok(())
}
