//! `cargo xtask`: inlinelab's automation. This file only dispatches; each
//! command is a module.

mod artifacts;
mod bloat;
mod callgrind;
mod chart;
mod compare;
mod error;
mod gate;
mod measure_child;
mod report;
mod size;
mod verdict;
mod workspace;

#[cfg(test)]
mod tests;

use error::Error;
use std::process::ExitCode;

const COMMANDS: &str = "\
usage: cargo xtask COMMAND [ARGS]

commands:
  compare CIPHER|all [OPTIONS]  build, size and time every variant of
                            CIPHER (aes, crc32c, cast5, cast6, or all);
                            write reports/CIPHER.md, .json, .svg
  bloat CIPHER [--variant V] cargo-bloat's per-function table of each variant
  render [DIR]              render the reports again from their JSON (after a
                            change to the renderer; measures nothing)
  gate [CIPHER|all] [OPTIONS]  fail a change that makes a variant bigger or
                            slower than the baseline (see gate --help)
  baseline [CIPHER|all]     measure and write reports/baseline/CIPHER.json
  help                      this text; `cargo xtask compare --help` for options";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let rest = args.get(1..).unwrap_or_default();
    let result = match args.first().map(String::as_str) {
        None | Some("help" | "-h" | "--help") => {
            println!("{COMMANDS}");
            Ok(())
        }
        Some("compare") if rest.iter().any(|a| a == "-h" || a == "--help") => {
            println!("{}\n\noptions:\n{}", compare::USAGE, compare::OPTIONS);
            Ok(())
        }
        Some("compare") => compare::run(rest),
        Some("bloat") => bloat::run(rest),
        Some("render") => compare::render(rest),
        Some("__measure") => measure_child::run(rest),
        Some("__count") => measure_child::count(rest),
        Some("__instructions") => gate::instructions(rest),
        Some("gate") if rest.iter().any(|a| a == "-h" || a == "--help") => {
            println!("{}", gate::USAGE);
            Ok(())
        }
        Some("gate") => gate::run(rest),
        Some("baseline") => gate::baseline(rest),
        Some(other) => Err(Error::usage(
            format!("unknown command `{other}`"),
            format!("the commands are:\n{COMMANDS}"),
        )),
    };
    error::exit(result)
}
