//! `cargo xtask gate`'s command line: this workspace's ciphers against
//! their committed baselines, or a crate's working tree against a revision
//! of its repository (`--crate PATH --against REV`, the path read as a
//! local crate's as it is parsed, `intake/spec.rs`).

use crate::cmd::gate::rows::Thresholds;
use crate::intake::spec::{Given, With};
use clap::builder::{PathBufValueParser, TypedValueParser};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// The cipher, as the kernel names it (e.g. cast6; a wrong name lists
    /// them all), or `all`.
    #[arg(value_name = "CIPHER|all", default_value = "all")]
    pub cipher: String,

    /// A crate this workspace did not write, instead of CIPHER: the path of
    /// a crate in a git checkout (a member of a workspace included), gated
    /// as its users get it. Its working tree is built through the same
    /// downstream shim as `compare --crate`, and so is the --against
    /// revision (exported with git archive: nothing is written into the
    /// repository), which is the baseline: sizes, hot path and
    /// instructions per operation in every mode, key length and key setup.
    #[arg(long = "crate", value_name = "PATH", requires = "against",
          conflicts_with_all = ["cipher", "baseline", "baseline_rev", "accept_baseline_change", "variants"],
          value_parser = PathBufValueParser::new().try_map(Given::local))]
    pub krate: Option<Given>,

    /// With --crate: the type to gate, when the crate has more than one
    /// block cipher, hash or MAC (`--type Aes128`); a missing or wrong one
    /// lists them. A generic type with its parameters: `--type
    /// 'Hmac<sha2::Sha256>'` (with `--with sha2@0.11.0`).
    #[arg(long = "type", value_name = "TYPE", requires = "krate",
          value_parser = crate::intake::shim::type_name)]
    pub ty: Option<String>,

    /// With --crate: a crate a generic type's parameters name, added to
    /// the shim both sides are built through (`--with sha2@0.11.0`, or a
    /// local crate's path); repeatable.
    #[arg(long = "with", value_name = "CRATE", requires = "krate", value_parser = With::parse)]
    pub with: Vec<With>,

    /// With --crate: cargo uses only what it has cached (no network).
    #[arg(long, requires = "krate")]
    pub offline: bool,

    /// This change's baseline file, for one cipher, instead of the working
    /// tree's reports/baseline/CIPHER.json: shown against the committed one
    /// when they differ, and judged by only with --accept-baseline-change.
    #[arg(long, value_name = "PATH")]
    pub baseline: Option<PathBuf>,

    /// The revision whose committed baseline files the change is judged by
    /// [default: the --against revision, else HEAD].
    #[arg(long, value_name = "REV")]
    pub baseline_rev: Option<String>,

    /// Judge by this change's baseline (the working tree's, or --baseline)
    /// where it differs from the committed one: for a maintainer accepting a
    /// new baseline deliberately. The pull-request workflow never gives it.
    #[arg(long)]
    pub accept_baseline_change: bool,

    #[command(flatten)]
    pub thresholds: Thresholds,

    /// Skip the wall-clock comparison (and the peers' builds, which only it
    /// needs).
    #[arg(long)]
    pub no_time: bool,

    /// Also compare with the base tree: build REV (e.g. origin/main) in a
    /// temporary git worktree and measure both trees in the same run, wall
    /// clock paired round by round. REV's committed baselines are the ones
    /// judged by (unless --baseline-rev says otherwise). With --crate, REV
    /// is a revision of the crate's repository, and the baseline itself.
    #[arg(long, value_name = "REV")]
    pub against: Option<String>,

    /// Also write the summary (markdown) to PATH.
    #[arg(long, value_name = "PATH")]
    pub comment: Option<PathBuf>,

    /// Only these variants of the one cipher, comma-separated (`*` in a name
    /// stands for any run of characters): the baseline's other variants are
    /// left out of the verdict, and the summary says so [default: every
    /// one].
    #[arg(long, value_name = "V,...", value_delimiter = ',', action = clap::ArgAction::Set)]
    pub variants: Option<Vec<String>>,

    /// Build every artifact again. By default an artifact a previous gate
    /// run of the cipher built from the same inputs is taken as it is: the
    /// manifest beside it records the hash of the sources, macro, ABI,
    /// artifact crate, manifest and lock file, and the selection, features,
    /// flags and toolchain it was built with. With --crate, both sides are
    /// always built (cargo reuses what did not change).
    #[arg(long)]
    pub rebuild: bool,
}
