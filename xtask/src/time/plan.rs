//! How much is measured: the block sizes and the timing plan (rounds,
//! seconds, processes, budget), with the defaults of a full run and of
//! `--quick` (and `calibrate`'s), each stated once, here; clap applies them, and `compare
//! --help` shows them. The gate measures what `compare --quick` measures
//! ([`Amount::quick`]).

use crate::cli::{self, Sizes};
use crate::select::cases::{self, Keys};
use bench_harness::registry::CipherEntry;
use bench_harness::sampling::{Case, Plan};
use clap::Parser;

/// The defaults of a run, as clap parses them.
pub struct Defaults {
    pub sizes: &'static str,
    pub rounds: &'static str,
    pub sec: &'static str,
    pub processes: &'static str,
    pub budget: &'static str,
}

/// A full run.
pub const FULL: Defaults = Defaults {
    sizes: "16,256,1420,8192",
    rounds: "5",
    sec: "0.02",
    processes: "4",
    budget: "200",
};

/// `--quick`.
pub const QUICK: Defaults = Defaults {
    sizes: "16,8192",
    rounds: "4",
    sec: "0.008",
    processes: "3",
    budget: "20",
};

/// `calibrate`: `--quick`'s sizes, each comparison's budget (its rounds,
/// batch seconds and processes are a full run's).
pub struct Calibration {
    pub sizes: &'static str,
    pub budget: &'static str,
}

/// `calibrate`'s defaults.
pub const CALIBRATION: Calibration = Calibration {
    sizes: QUICK.sizes,
    budget: "15",
};

/// How much to measure.
#[derive(clap::Args, Clone, Debug)]
pub struct Amount {
    /// A first look, for CI: each mode's first key size only, and the
    /// --quick defaults listed below. The report says so.
    #[arg(long)]
    pub quick: bool,

    /// Block sizes in bytes, comma-separated, each from 1 to 1 MiB and
    /// rounded up to whole cipher blocks.
    #[arg(long, value_name = "LIST", value_parser = cli::sizes,
          default_value = FULL.sizes, default_value_if("quick", "true", QUICK.sizes))]
    pub sizes: Sizes,

    /// Seconds of timing per variant and case in each measuring process,
    /// spread over its rounds (above 0, at most 3600).
    #[arg(long, value_name = "SECS", value_parser = cli::seconds, allow_negative_numbers = true,
          default_value = FULL.sec, default_value_if("quick", "true", QUICK.sec))]
    pub sec: f64,

    /// Rounds each measuring process runs in every case (3 to 1000).
    #[arg(long, value_name = "N", value_parser = cli::rounds, allow_negative_numbers = true,
          default_value = FULL.rounds, default_value_if("quick", "true", QUICK.rounds))]
    pub rounds: usize,

    /// Seconds of timing the run may spend (above 0, at most 3600): the
    /// first pass (--processes processes, every variant) always runs; then,
    /// while a step of the verdict has an interval that straddles its bar,
    /// racing processes time only the variants of such steps, nearest the
    /// bar first, as long as the next one fits in what is left.
    #[arg(long, value_name = "SECS", value_parser = cli::seconds, allow_negative_numbers = true,
          default_value = FULL.budget, default_value_if("quick", "true", QUICK.budget))]
    pub budget: f64,

    /// Measuring processes of the first pass, one after the other (2 to
    /// 16); each loads the artifacts afresh, and they are the unit of every
    /// interval.
    #[arg(long, value_name = "N", value_parser = cli::processes,
          default_value = FULL.processes, default_value_if("quick", "true", QUICK.processes))]
    pub processes: usize,

    /// Which key sizes of the kernel template to time: `all`, or each
    /// mode's `first` [default: all; first with --quick or a flag grid,
    /// whose flag sets multiply the variants].
    #[arg(long, value_name = "KEYS", value_enum)]
    pub keys: Option<Keys>,

    /// Whether the run is a flag grid (`compare --opt-level`...): set by
    /// the command, not parsed.
    #[arg(skip)]
    pub grid: bool,
}

impl Amount {
    /// What `--quick` alone measures, through the same parser.
    pub fn quick() -> Amount {
        Amount::with(&["--quick"]).expect("the --quick defaults parse")
    }

    /// What these flags measure, through the same parser (a flag not given
    /// has its default).
    pub fn with(flags: &[&str]) -> Result<Amount, clap::Error> {
        #[derive(Parser)]
        struct Flags {
            #[command(flatten)]
            amount: Amount,
        }
        let args = std::iter::once("amount").chain(flags.iter().copied());
        Flags::try_parse_from(args).map(|f| f.amount)
    }

    /// How long each measuring process times: a fixed number of rounds
    /// (no round is waited for: the estimator filters none).
    pub fn plan(&self) -> Plan {
        Plan {
            rounds: self.rounds,
            batch_seconds: self.sec / self.rounds as f64,
        }
    }

    /// The key sizes timed: `--keys`, else each mode's first with
    /// `--quick` or under a flag grid, else all.
    pub fn keys(&self) -> Keys {
        self.keys.unwrap_or(if self.quick || self.grid {
            Keys::First
        } else {
            Keys::All
        })
    }

    /// The crypt cases of `entry`.
    pub fn cases(&self, entry: &CipherEntry) -> Vec<Case> {
        cases::cases(entry, self.keys(), &self.sizes.0)
    }

    /// The key setup cases of `entry`.
    pub fn setkey(&self, entry: &CipherEntry) -> Vec<Case> {
        cases::setkey(entry, self.keys())
    }
}

/// For `compare --help`: what `--quick` changes.
pub fn quick_help() -> String {
    format!(
        "With --quick the defaults are --sizes {}, --rounds {}, --sec {}, --processes {}, --budget {}.",
        QUICK.sizes, QUICK.rounds, QUICK.sec, QUICK.processes, QUICK.budget
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A flag grid, like `--quick`, times each mode's first key size
    /// unless `--keys` says otherwise; a run of the profile alone, all.
    #[test]
    fn a_grid_times_the_first_key_size_unless_asked() {
        let aes = bench_harness::registry::cipher("aes").unwrap();
        let full = Amount::with(&[]).unwrap();
        let grid = |a: Amount| Amount { grid: true, ..a };
        assert_eq!(full.keys(), Keys::All);
        assert_eq!(grid(full.clone()).keys(), Keys::First);
        assert_eq!(Amount::quick().keys(), Keys::First);
        let asked = grid(Amount::with(&["--keys", "all"]).unwrap());
        assert_eq!(asked.keys(), Keys::All);
        assert_eq!(
            Amount::with(&["--keys", "first"]).unwrap().keys(),
            Keys::First
        );
        // aes's template has three key sizes.
        let first = grid(full.clone());
        assert_eq!(full.cases(aes).len(), 3 * first.cases(aes).len());
        assert_eq!((full.setkey(aes).len(), first.setkey(aes).len()), (3, 1));
        assert!(Amount::with(&["--keys", "some"]).is_err());
    }

    #[test]
    fn quick_is_the_quick_defaults() {
        let q = Amount::quick();
        assert!(q.quick);
        assert_eq!(Ok(q.sizes), cli::sizes(QUICK.sizes));
        assert_eq!(Ok(q.rounds), cli::rounds(QUICK.rounds));
        assert_eq!(Ok(q.sec), cli::seconds(QUICK.sec));
        assert_eq!(Ok(q.budget), cli::seconds(QUICK.budget));
        assert_eq!(Ok(q.processes), cli::processes(QUICK.processes));
    }
}
