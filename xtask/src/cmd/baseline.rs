//! `cargo xtask baseline [CIPHER|all]`: measures every variant as the gate
//! does and writes the baseline files `reports/baseline/CIPHER.json` that
//! the gate compares with (once committed: the gate reads the committed
//! version).

use crate::build::Reuse;
use crate::cmd::gate::measure;
use crate::count::callgrind;
use crate::env::outputs::{self, Kind, Outputs};
use crate::env::tree::Tree;
use crate::env::workdir::WorkDir;
use crate::env::workspace;
use crate::error::{Error, Result};
use crate::report::baseline_file;
use crate::select::ciphers;
use crate::select::contenders::{self, Origin};

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
    crate::env::fault::check(&contenders::possible_names(
        &ciphers,
        &[crate::env::flags::FlagSet::profile()],
    ))?;
    let profile = crate::env::profile::toolchain().profile;
    if crate::env::profile::names_this_cpu(&profile) {
        return Err(Error::usage(
            format!(
                "the artifacts would be built for this machine's CPU ({profile}): a committed baseline must build the same on another machine"
            ),
            "unset the -Ctarget-cpu=native in RUSTFLAGS (or CARGO_ENCODED_RUSTFLAGS) and run again",
        ));
    }
    let mut files = Outputs::in_dir("baseline", &baseline_file::dir());
    for entry in &ciphers {
        files.add(baseline_file::path(entry.name), Kind::Baseline);
    }
    files.check()?;
    for entry in ciphers {
        let work = WorkDir::lock(&meta.target_dir, entry.name)?;
        let variants = ciphers::variant_names(entry);
        let mut contenders =
            contenders::contenders(entry, &variants, true, &Tree::here(), Origin::Current);
        let (report, _) = measure::measure(
            entry,
            &mut contenders,
            &work.path,
            false,
            Reuse::Previous,
            &format!("cargo xtask baseline {}", entry.name),
        )?;
        // What the gate would refuse to judge by is not written: a failed
        // variant, a missing case, a count of 0.
        let path = baseline_file::path(entry.name);
        baseline_file::check(&report, entry, &path.display().to_string()).map_err(|e| match e {
            Error::Usage { cause, .. } => Error::failed(format!("{cause}; no baseline written")),
            other => other,
        })?;
        let json = crate::report::json::to_json(&report);
        outputs::write(&path, &Kind::Baseline, json.as_bytes())?;
        println!("baseline: {}", path.display());
    }
    Ok(())
}
