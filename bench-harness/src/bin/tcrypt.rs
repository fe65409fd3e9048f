//! `tcrypt`: the kernel's speed tests for inlinelab's variants. See
//! `tcrypt --help`.

use bench_harness::clock::Counter;
use bench_harness::machine::Machine;
use bench_harness::{UsageError, cli, interleave};
use std::ffi::OsString;
use std::io::Write;
use std::process::ExitCode;

fn main() -> ExitCode {
    // args_os: a non-UTF-8 argument is a usage error, not a panic.
    let args: Vec<OsString> = std::env::args_os().skip(1).collect();
    match real_main(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Usage(e)) => {
            eprintln!("tcrypt: {e}");
            eprintln!("hint: tcrypt --help for the options, tcrypt --list for the algorithms");
            ExitCode::from(2)
        }
        Err(Failure::Run(e)) => {
            eprintln!("tcrypt: {e}");
            ExitCode::FAILURE
        }
    }
}

enum Failure {
    Usage(UsageError),
    Run(String),
}

fn real_main(args: Vec<OsString>) -> Result<(), Failure> {
    let config = match cli::parse(args).map_err(Failure::Usage)? {
        cli::Parsed::Run(config) => config,
        cli::Parsed::Show(text) => {
            text.print()
                .map_err(|e| Failure::Run(format!("writing the help: {e}")))?;
            return Ok(());
        }
    };
    if config.list {
        for line in cli::list() {
            println!("{line}");
        }
        if config.algs.is_empty() {
            return Ok(());
        }
    }
    let mut plans = cli::plan(&config).map_err(Failure::Usage)?;
    let counter = Counter::calibrate();
    println!("{}", counter.describe());
    let stdout = std::io::stdout();
    let mut print = |line: &str| {
        let mut lock = stdout.lock();
        let _ = writeln!(lock, "{line}");
        let _ = lock.flush();
    };
    let (measurements, fits) = cli::run(&config, &mut plans, &counter, &mut print)
        .map_err(|e| Failure::Run(e.to_string()))?;
    if let Some(path) = &config.json {
        let machine = Machine::read(&counter);
        let report = cli::Report {
            schema_version: 1,
            counter: &counter,
            machine: &machine,
            quiet: interleave::QUIET,
            quiet_criterion: interleave::criterion(),
            cycles_are: if counter.kind == "tsc" {
                "tsc counter ticks (constant rate, not core cycles)"
            } else {
                "nanoseconds"
            },
            timing: config.timing.name(),
            measurements: &measurements,
            fits: &fits,
        };
        let json =
            serde_json::to_string_pretty(&report).map_err(|e| Failure::Run(e.to_string()))?;
        write_atomically(path, json.as_bytes())
            .map_err(|e| Failure::Run(format!("writing {}: {e}", path.display())))?;
        eprintln!(
            "tcrypt: wrote {} measurements to {}",
            measurements.len(),
            path.display()
        );
    }
    Ok(())
}

/// Writes a temporary file beside `path`, then renames it over `path`.
fn write_atomically(path: &std::path::Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    std::fs::write(&tmp, bytes)?;
    std::fs::rename(&tmp, path)
}
