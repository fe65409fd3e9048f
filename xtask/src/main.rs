//! `cargo xtask`: inlinelab's automation. This file only dispatches: each
//! command is a module; the stages they share (contenders, build and size,
//! the measuring child, timings, analysis, report) are modules of their own.

mod build;
mod child;
mod cli;
mod cmd;
mod count;
mod decide;
mod env;
mod error;
mod intake;
mod render;
mod report;
mod select;
mod time;

#[cfg(test)]
mod tests;

use child::{instructions, measure, sample};
use clap::{CommandFactory, Parser, Subcommand};
use cmd::{baseline, bloat, calibrate, compare, merge, verify};
use std::process::ExitCode;

/// inlinelab's automation: build, size and time every inlining variant of a
/// cipher, and gate changes on size and instruction counts.
#[derive(Parser)]
#[command(
    name = "cargo xtask",
    bin_name = "cargo xtask",
    arg_required_else_help = true
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Build, size and time every variant of CIPHER (and its peers); write
    /// reports/CIPHER.md, .json and .svg.
    ///
    /// Each variant is built alone into a no_std .so, sized, and that same
    /// file is timed, interleaved with the others. `all` does every cipher
    /// and writes the index reports/README.md.
    Compare(compare::Args),
    /// Time the reference variant's artifact against a copy of itself with
    /// compare's estimator, interval and stopping rule, many times over:
    /// the false-difference rate and the noise floor; writes
    /// reports/calibration/CIPHER.{json,md}.
    Calibrate(calibrate::Args),
    /// Merge reports of one cipher from several machines into one
    /// cross-machine report (reports/machines/CIPHER.{md,json,svg}): each
    /// machine's verdict and the portable one, recomputed from the samples.
    Merge(merge::Args),
    /// Render the reports again from their JSON (after a change to the
    /// renderer; measures nothing).
    Render(cmd::render::Args),
    /// Fail a change that makes a variant bigger or slower than the baseline
    /// file (or the base tree, with --against).
    ///
    /// Sizes are exact bytes; speed is instructions per operation counted by
    /// callgrind (needs valgrind); wall clock against the peer is advisory
    /// unless --strict-time. Exit 0 for no regression, 1 for a regression, 2
    /// for a usage or setup error.
    Gate(cmd::gate::Args),
    /// Measure every variant as the gate does and write the baseline files
    /// reports/baseline/CIPHER.json.
    Baseline(baseline::Args),
    /// Check every artifact this tree builds: it computes what its
    /// statically linked variant computes (every mode, key size and
    /// direction), embeds no source path, and has the fingerprint the
    /// committed reports and baselines record (else: which are stale, and
    /// the command that refreshes each). Exit 0 when all holds, 1 if not.
    Verify(verify::Args),
    /// cargo-bloat's per-function table of each variant's artifact.
    Bloat(bloat::Args),
    /// The measuring process compare and gate start.
    #[command(name = "__measure", hide = true)]
    Measure(measure::Args),
    /// The gate's instruction counts of one artifact (for tests).
    #[command(name = "__instructions", hide = true)]
    Instructions(instructions::Args),
    /// Where an artifact's CPU time goes (instruction-pointer samples).
    #[command(name = "__sample", hide = true)]
    Sample(sample::Args),
}

fn main() -> ExitCode {
    // Arguments as the OS gives them: one that is not UTF-8 is a usage
    // error from clap, not a panic.
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    env::deadline::end_children_on_interrupt();
    let result = match Cli::try_parse_from(&args) {
        Ok(cli) => match cli.command {
            Command::Compare(args) => compare::run(args),
            Command::Calibrate(args) => calibrate::run(args),
            Command::Merge(args) => merge::run(args),
            Command::Render(args) => cmd::render::run(args),
            Command::Gate(args) => cmd::gate::run(args),
            Command::Baseline(args) => baseline::run(args),
            Command::Verify(args) => verify::run(args),
            Command::Bloat(args) => bloat::run(args),
            Command::Measure(args) => measure::run(args),
            Command::Instructions(args) => instructions::run(args),
            Command::Sample(args) => sample::run(args),
        },
        Err(e) => cli::from_clap(e, &Cli::command(), &args),
    };
    error::exit(result)
}
