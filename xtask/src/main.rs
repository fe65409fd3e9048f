//! `cargo xtask`: inlinelab's automation. This file only dispatches; each
//! command is a module.

mod artifacts;
mod bloat;
mod chart;
mod compare;
mod error;
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
  compare CIPHER [OPTIONS]  build, size and time every variant of CIPHER;
                            write reports/CIPHER.md, .json, .svg
  bloat CIPHER [--variant V] cargo-bloat's per-function table of each variant
  gate                      not built yet (the gate issue)
  baseline                  not built yet (the gate issue)
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
        Some("__measure") => measure_child::run(rest),
        Some(cmd @ ("gate" | "baseline")) => Err(Error::usage(
            format!("`cargo xtask {cmd}` is not built yet"),
            "cargo xtask lists the commands that are",
        )),
        Some(other) => Err(Error::usage(
            format!("unknown command `{other}`"),
            format!("the commands are:\n{COMMANDS}"),
        )),
    };
    error::exit(result)
}
