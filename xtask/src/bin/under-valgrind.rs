//! `under-valgrind count SPEC OUTCOME MARKER` and `under-valgrind secrets
//! CASES OUTCOME SO...`: what xtask runs under valgrind (callgrind's counts,
//! memcheck's secrets screen), a program of its own so that each valgrind
//! start reads little (`xtask/src/count/program.rs`). Internal: its
//! arguments are files xtask wrote. Only dispatches; the code is
//! bench-harness's `under_valgrind`.

use bench_harness::under_valgrind::{count, secrets};
use std::path::PathBuf;
use std::process::ExitCode;

const USAGE: &str =
    "usage: under-valgrind count SPEC OUTCOME MARKER | under-valgrind secrets CASES OUTCOME SO...";

fn main() -> ExitCode {
    let args: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    let verb = args.first().and_then(|a| a.to_str());
    let result = match (verb, &args[1.min(args.len())..]) {
        (Some("count"), [spec, outcome, marker]) => count::run(spec, outcome, marker),
        (Some("secrets"), [cases, outcome, sos @ ..]) if !sos.is_empty() => {
            secrets::run(cases, outcome, sos)
        }
        _ => {
            eprintln!("under-valgrind: {USAGE}");
            eprintln!("hint: xtask runs this program; run `cargo xtask --help` instead");
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(why) => {
            eprintln!("under-valgrind: {why}");
            ExitCode::FAILURE
        }
    }
}
