//! How much is measured: the block sizes and the timing plan (rounds,
//! seconds, patience, processes), with the defaults of a full run and of `--quick`,
//! each stated once, here; clap applies them, and `compare --help` shows
//! them. The gate measures what `compare --quick` measures ([`Amount::quick`]).

use crate::cli::{self, Sizes};
use crate::report::MIN_QUIET_ROUNDS;
use crate::select::cases;
use bench_harness::compare::{Case, Plan};
use bench_harness::registry::CipherEntry;
use clap::Parser;

/// The defaults of a run, as clap parses them.
pub struct Defaults {
    pub sizes: &'static str,
    pub rounds: &'static str,
    pub sec: &'static str,
    pub patience: &'static str,
    pub processes: &'static str,
}

/// A full run.
pub const FULL: Defaults = Defaults {
    sizes: "16,256,1420,8192",
    rounds: "8",
    sec: "0.032",
    patience: "120",
    processes: "4",
};

/// `--quick`.
pub const QUICK: Defaults = Defaults {
    sizes: "16,8192",
    rounds: "5",
    sec: "0.01",
    patience: "3",
    processes: "3",
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

    /// Seconds of timing per variant and case, spread over the rounds
    /// (above 0, at most 3600).
    #[arg(long, value_name = "SECS", value_parser = cli::seconds, allow_negative_numbers = true,
          default_value = FULL.sec, default_value_if("quick", "true", QUICK.sec))]
    pub sec: f64,

    /// Quiet rounds wanted per case (3 to 1000).
    #[arg(long, value_name = "N", value_parser = cli::rounds, allow_negative_numbers = true,
          default_value = FULL.rounds, default_value_if("quick", "true", QUICK.rounds))]
    pub rounds: usize,

    /// Seconds the run may go on past its rounds to collect quiet ones on a
    /// shared core (above 0, at most 3600).
    #[arg(long, value_name = "SECS", value_parser = cli::seconds, allow_negative_numbers = true,
          default_value = FULL.patience, default_value_if("quick", "true", QUICK.patience))]
    pub patience: f64,

    /// Measuring processes, one after the other, that share the rounds and
    /// the patience (1 to 16); each loads the artifacts afresh, and every
    /// interval is at least as wide as the spread between them.
    #[arg(long, value_name = "N", value_parser = cli::processes,
          default_value = FULL.processes, default_value_if("quick", "true", QUICK.processes))]
    pub processes: usize,
}

impl Amount {
    /// What `--quick` alone measures, through the same parser.
    pub fn quick() -> Amount {
        #[derive(Parser)]
        struct Quick {
            #[command(flatten)]
            amount: Amount,
        }
        Quick::try_parse_from(["quick", "--quick"])
            .expect("the --quick defaults parse")
            .amount
    }

    /// How long to time.
    pub fn plan(&self) -> Plan {
        Plan {
            rounds: self.rounds,
            batch_seconds: self.sec / self.rounds as f64,
            patience_seconds: self.patience,
        }
    }

    /// The cases of `entry`.
    pub fn cases(&self, entry: &CipherEntry) -> Vec<Case> {
        cases::cases(entry, self.quick, &self.sizes.0)
    }
}

/// One process's part of `plan` when `processes` share it: the quiet
/// rounds wanted divided among them (but never fewer than
/// [`MIN_QUIET_ROUNDS`]), and so is the patience.
pub fn share(plan: Plan, processes: usize) -> Plan {
    let k = processes.max(1);
    Plan {
        rounds: per_process_rounds(plan.rounds, k),
        batch_seconds: plan.batch_seconds,
        patience_seconds: plan.patience_seconds / k as f64,
    }
}

/// The quiet rounds each of `processes` processes wants when they share
/// `rounds`.
pub fn per_process_rounds(rounds: usize, processes: usize) -> usize {
    rounds.div_ceil(processes.max(1)).max(MIN_QUIET_ROUNDS)
}

/// For `compare --help`: what `--quick` changes.
pub fn quick_help() -> String {
    format!(
        "With --quick the defaults are --sizes {}, --rounds {}, --sec {}, --patience {}, --processes {}.",
        QUICK.sizes, QUICK.rounds, QUICK.sec, QUICK.patience, QUICK.processes
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn processes_share_the_rounds_and_the_patience() {
        let plan = Plan {
            rounds: 8,
            batch_seconds: 0.004,
            patience_seconds: 120.0,
        };
        let each = share(plan, 4);
        assert_eq!((each.rounds, each.batch_seconds), (3, 0.004));
        assert_eq!(each.patience_seconds, 30.0);
        assert_eq!(share(plan, 2).rounds, 4);
        assert_eq!(share(plan, 1), plan);
        assert_eq!(share(plan, 0), plan);
    }

    #[test]
    fn quick_is_the_quick_defaults() {
        let q = Amount::quick();
        assert!(q.quick);
        assert_eq!(Ok(q.sizes), cli::sizes(QUICK.sizes));
        assert_eq!(Ok(q.rounds), cli::rounds(QUICK.rounds));
        assert_eq!(Ok(q.sec), cli::seconds(QUICK.sec));
        assert_eq!(Ok(q.patience), cli::seconds(QUICK.patience));
        assert_eq!(Ok(q.processes), cli::processes(QUICK.processes));
    }
}
