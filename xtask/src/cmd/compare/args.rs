//! `cargo xtask compare`'s command line.

use crate::cli;
use crate::decide::verdict;
use crate::select::ciphers;
use crate::time::plan::{self, Amount};
use std::path::PathBuf;

#[derive(clap::Args)]
#[command(after_help = after_help())]
pub struct Args {
    /// The cipher, as the kernel names it (e.g. cast6; a wrong name lists
    /// them all), or `all` for every one and
    /// the index reports/README.md.
    #[arg(value_name = "CIPHER|all", required_unless_present = "krate")]
    pub cipher: Option<String>,

    /// A crate this workspace did not write, instead of CIPHER:
    /// `NAME@VERSION` from crates.io (cargo fetches it as it fetches any
    /// dependency) or the path of a local crate. Its inline attributes are
    /// edited in copies, each copy built through a downstream shim and
    /// timed against the crate as published; reports go to
    /// reports/crates/NAME-VERSION/ unless --out says otherwise.
    #[arg(long = "crate", value_name = "SPEC", conflicts_with = "cipher")]
    pub krate: Option<String>,

    /// With --crate: the type to measure, when the crate has more than one
    /// block cipher or hash (`--type Aes128`, `--type Blake2s256`); a missing
    /// or wrong one lists them.
    #[arg(long = "type", value_name = "TYPE")]
    pub ty: Option<String>,

    /// With --crate: feature sets of the crate, each an axis of its
    /// variants besides its default features: sets separated by `,`,
    /// features of one set joined by `+` (`--features size_opt,simd+size_opt`).
    /// A set's variants are named `with_<set>_<variant>`, the crate as
    /// published with it `with_<set>`.
    #[arg(long, value_name = "SET,...", value_delimiter = ',', action = clap::ArgAction::Set)]
    pub features: Option<Vec<String>>,

    /// With --crate: cargo uses only what it has cached (no network).
    #[arg(long)]
    pub offline: bool,

    /// Only these variants, comma-separated; `*` in a name stands for any
    /// run of characters (`*_x4*`, `never*`) [default: every one]. With
    /// many variants, a brief screen leaves out those clearly dominated
    /// before the full run (the report lists them with the evidence).
    #[arg(long, value_name = "V,...", value_delimiter = ',', action = clap::ArgAction::Set)]
    pub variants: Option<Vec<String>>,

    /// The reference variant: speed ratios are taken against it [default:
    /// the cipher's, listed below].
    #[arg(long, value_name = "V", alias = "baseline-variant")]
    pub reference: Option<String>,

    #[command(flatten)]
    pub amount: Amount,

    /// The gain, in percent (0 to 100), by which a larger variant must beat
    /// a smaller one, beyond the noise, to be worth its size.
    #[arg(long, value_name = "PCT", value_parser = cli::percent,
          allow_negative_numbers = true, default_value = verdict::THRESHOLD)]
    pub threshold: f64,

    /// The extra gain, in percent (0 to 100), a larger variant must show
    /// per doubling of its footprint, on top of --threshold: what larger
    /// code costs the rest of the system, which a microbenchmark cannot
    /// see (docs/verdict.md, step 4).
    #[arg(long, value_name = "PCT", value_parser = cli::percent,
          allow_negative_numbers = true, default_value = verdict::SIZE_COST)]
    pub size_cost: f64,

    /// A name for this machine, added to the label read from its CPU
    /// (`[A-Za-z0-9._-]`, at most 40 characters): the CPU says which
    /// machine it is, the name only what you call it.
    #[arg(long, value_name = "NAME", value_parser = cli::machine_name)]
    pub machine_label: Option<String>,

    /// Where the report goes [default: reports/, or
    /// reports/crates/NAME-VERSION/ with --crate].
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,

    /// Leave out the peers (RustCrypto's crates, the crc32c crate).
    #[arg(long)]
    pub no_peer: bool,

    /// Build every artifact again, even one a previous run built from the
    /// same inputs (by default such an artifact is taken as it is).
    #[arg(long)]
    pub rebuild: bool,
}

fn after_help() -> String {
    format!("{}\n{}", plan::quick_help(), ciphers::reference_help())
}
