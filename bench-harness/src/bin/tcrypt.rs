//! `tcrypt`: the kernel's speed tests for inlinelab's variants. See
//! `tcrypt --help`.

use bench_harness::clock::Counter;
use bench_harness::machine::Machine;
use bench_harness::{UsageError, cli, interleave, outfile};
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
            say(&line);
        }
        if config.algs.is_empty() {
            return Ok(());
        }
    }
    let cli::Plans { mut plans, notes } = cli::plan(&config).map_err(Failure::Usage)?;
    // The output is checked before anything is measured: a path that
    // cannot be written fails now, not after the run.
    if let Some(path) = &config.json {
        outfile::check_owned(path, cli::json_owner())
            .map_err(|e| Failure::Usage(UsageError(format!("--json {e}"))))?;
    }
    for note in notes {
        eprintln!("tcrypt: {note}");
    }
    let counter = Counter::calibrate();
    say(&counter.describe());
    let mut print = |line: &str| say(line);
    let (measurements, fits) = cli::run(&config, &mut plans, &counter, &mut print)
        .map_err(|e| Failure::Run(e.to_string()))?;
    if let Some(path) = &config.json {
        let machine = Machine::read(&counter);
        let report = cli::Report {
            schema_version: 1,
            generated_by: cli::JSON_WRITER,
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
        outfile::write_owned(path, json.as_bytes(), cli::json_owner())
            .map_err(|e| Failure::Run(format!("--json {e}")))?;
        eprintln!(
            "tcrypt: wrote {} measurements to {}",
            measurements.len(),
            path.display()
        );
    }
    Ok(())
}

/// One line on stdout. A reader that has gone (`tcrypt --list | head -1`)
/// ends nothing: the run goes on, and its JSON is still written.
fn say(line: &str) {
    let mut lock = std::io::stdout().lock();
    let _ = writeln!(lock, "{line}");
    let _ = lock.flush();
}
