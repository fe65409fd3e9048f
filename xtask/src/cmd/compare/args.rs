//! `cargo xtask compare`'s command line (`--crate`'s spec read as it is
//! parsed, `intake/spec.rs`).

use crate::cli;
use crate::decide::verdict;
use crate::env::flags;
use crate::intake::spec::{Also, Given, With};
use crate::select::ciphers;
use crate::time::plan::{self, Amount};
use std::path::PathBuf;

#[derive(clap::Args, Clone)]
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
    #[arg(long = "crate", value_name = "SPEC", conflicts_with = "cipher",
          value_parser = Given::parse)]
    pub krate: Option<Given>,

    /// With --crate: the type to measure, when the crate has more than one
    /// block cipher, hash or MAC (`--type Aes128`, `--type Blake2s256`); a
    /// missing or wrong one lists them. A generic type with its parameters:
    /// `--type 'Hmac<sha2::Sha256>'` (with `--with sha2@0.11.0`).
    #[arg(long = "type", value_name = "TYPE", value_parser = crate::intake::shim::type_name)]
    pub ty: Option<String>,

    /// With --crate: a crate a generic type's parameters name, added to
    /// every package the crate is built through (`--with sha2@0.11.0`, or a
    /// local crate's path); repeatable.
    #[arg(long = "with", value_name = "CRATE", requires = "krate", value_parser = With::parse)]
    pub with: Vec<With>,

    /// With --crate: dependencies of the crate whose inline attributes are
    /// axes too (`--also aes,ghash`): each taken from the crate's resolved
    /// lock, copied as cargo unpacked it, its attributes edited in copies
    /// patched into the shim (`[patch.crates-io]`); its variants are named
    /// with it (`aes_drop_3`, `ghash_never`), its rows tabled after the
    /// crate's.
    #[arg(long, value_name = "CRATE,...", requires = "krate", value_delimiter = ',',
          action = clap::ArgAction::Set, value_parser = Also::parse)]
    pub also: Option<Vec<Also>>,

    /// With --crate: feature sets of the crate, each an axis of its
    /// variants besides its default features: sets separated by `,`,
    /// features of one set joined by `+` (`--features size_opt,simd+size_opt`).
    /// A set's variants are named `with_<set>_<variant>`, the crate as
    /// published with it `with_<set>`.
    #[arg(long, value_name = "SET,...", value_delimiter = ',', action = clap::ArgAction::Set)]
    pub features: Option<Vec<String>>,

    /// With --crate: in the patch, a one-line comment above each attribute
    /// it keeps or adds: its measured effect and the command that measured
    /// it.
    #[arg(long, requires = "krate")]
    pub explain_in_source: bool,

    /// With --crate: the variants to apply together and measure whole
    /// (`drop_3,add_1`), instead of those the evidence chooses.
    #[arg(long, requires = "krate", value_name = "V,...", value_delimiter = ',',
          action = clap::ArgAction::Set)]
    pub suggest: Option<Vec<String>>,

    /// With --crate: cargo uses only what it has cached (no network).
    #[arg(long)]
    pub offline: bool,

    /// Compiler flags as axes: cargo's opt-levels to build every contender
    /// with, comma-separated (0, 1, 2, 3, s, z). With any flag option, each
    /// combination of the lists asked is a flag set: every variant and
    /// peer is built under each, in a target directory of its own, named
    /// `VARIANT~SET` (`auto~Os.znver3`), and the rule picks among them all;
    /// the report goes to reports/flags/ [default: the profile's, 3].
    #[arg(long, value_name = "LEVEL,...", value_delimiter = ',', action = clap::ArgAction::Set)]
    pub opt_level: Option<Vec<String>>,

    /// Target CPUs, comma-separated, as rustc names them (`rustc --print
    /// target-cpus`); `native` is this machine's, resolved and recorded.
    /// Each must be one this CPU can run [default: rustc's, x86-64].
    #[arg(long, value_name = "CPU,...", value_delimiter = ',', action = clap::ArgAction::Set)]
    pub target_cpu: Option<Vec<String>>,

    /// Target feature sets, comma-separated, each features after `+` or
    /// `-` (`+aes,+aes+avx2`), or `none` for no feature flag [default:
    /// none].
    #[arg(long, value_name = "FEATURES,...", value_delimiter = ',',
          action = clap::ArgAction::Set, allow_hyphen_values = true)]
    pub target_feature: Option<Vec<String>>,

    /// LTO settings, comma-separated, as cargo takes them: false, off,
    /// thin, fat (true is fat) [default: the profile's, false].
    #[arg(long, value_name = "LTO,...", value_delimiter = ',', action = clap::ArgAction::Set)]
    pub lto: Option<Vec<String>>,

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

    /// Keep in the verdict a variant that branches on a secret, or indexes
    /// memory by one, where the reference does not (memcheck); by default
    /// it is left out, said why.
    #[arg(long)]
    pub allow_leaks: bool,
}

impl Args {
    /// The flag options as given, for the command a report records
    /// (` --opt-level 3,s`); empty when none was.
    pub fn flag_options(&self) -> String {
        [
            ("--opt-level", &self.opt_level),
            ("--target-cpu", &self.target_cpu),
            ("--target-feature", &self.target_feature),
            ("--lto", &self.lto),
        ]
        .into_iter()
        .filter_map(|(o, v)| Some(format!(" {o} {}", v.as_ref()?.join(","))))
        .collect()
    }

    /// The flag axes asked for.
    pub fn flags(&self) -> flags::Asked<'_> {
        flags::Asked {
            opt_level: self.opt_level.as_deref(),
            target_cpu: self.target_cpu.as_deref(),
            target_feature: self.target_feature.as_deref(),
            lto: self.lto.as_deref(),
        }
    }
}

fn after_help() -> String {
    format!("{}\n{}", plan::quick_help(), ciphers::reference_help())
}
