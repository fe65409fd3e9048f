//! The report's machine, build and run facts.

use crate::report::Report;
use crate::report::escape::{md_cell, md_code_cell};
use bench_harness::machine::{Fact, Machine};
use std::fmt::Write;

fn yes_no(f: &Fact<bool>) -> &'static str {
    match f {
        Fact::Known(true) => "yes",
        Fact::Known(false) => "no",
        Fact::Unknown => "unknown",
    }
}

/// The machine's rows: CPU, kernel, core, counter.
fn machine_rows(w: &mut String, m: &Machine) {
    let c = &m.cpu_info;
    let _ = writeln!(
        w,
        "| CPU | {} (family {}, model {}, stepping {}; microcode {}) |",
        md_cell(&c.model_name.to_string()),
        c.family,
        c.model,
        c.stepping,
        md_cell(&c.microcode.to_string())
    );
    let _ = writeln!(
        w,
        "| kernel | {}; virtualized: {} |",
        md_cell(&m.kernel.to_string()),
        yes_no(&c.virtualized)
    );
    let siblings = match &m.smt_siblings {
        Fact::Known(v) => v
            .iter()
            .map(usize::to_string)
            .collect::<Vec<_>>()
            .join(", "),
        Fact::Unknown => "unknown".into(),
    };
    let _ = writeln!(
        w,
        "| core | logical CPU {}, SMT siblings (itself included) {siblings}; boost: {}; governor: {} |",
        m.cpu,
        yes_no(&m.boost),
        md_cell(&m.governor.to_string())
    );
    let core = match m.core_hz {
        Fact::Known(hz) => format!(
            "; core clock about {:.2} GHz (estimated), so a tick is about {:.2} core cycles",
            hz / 1e9,
            hz / m.counter_hz
        ),
        Fact::Unknown => "; core clock unknown".into(),
    };
    let _ = writeln!(
        w,
        "| cycle counter | {} at {:.3} GHz, measured{core}. Figures in \"ticks\" are counter ticks; \"≈ cycles\" beside them is the core-cycle estimate |",
        md_cell(&m.counter),
        m.counter_hz / 1e9
    );
}

/// The machine, the build, the provenance and the run.
pub fn render(w: &mut String, r: &Report) {
    let _ = writeln!(w, "## Machine and build\n");
    let _ = writeln!(
        w,
        "<details><summary>CPU, kernel, cycle counter, toolchain, commit, inputs, run and quiet criterion</summary>\n"
    );
    let _ = writeln!(w, "| | |\n|---|---|");
    match &r.machine {
        Some(m) => machine_rows(w, m),
        None => {
            let _ = writeln!(w, "| machine | nothing was timed |");
        }
    }
    let _ = writeln!(w, "| rustc | {} |", md_cell(&r.toolchain.rustc));
    let _ = writeln!(w, "| target | {} |", md_cell(&r.toolchain.target));
    let _ = writeln!(w, "| profile | {} |", md_cell(&r.toolchain.profile));
    let _ = writeln!(w, "| date | {} |", md_cell(&r.date));
    let _ = writeln!(
        w,
        "| commit | {}{} |",
        md_cell(&r.commit),
        if r.inputs.dirty {
            " (the artifacts' inputs differ from it)"
        } else {
            ""
        }
    );
    let _ = writeln!(
        w,
        "| inputs | {}: a hash of what decides the artifacts (the manifest and lock file, the ABI, the macro, the ciphers and the artifact crate, the peers' flags, the build command) and of `rustc -vV` |",
        md_code_cell(&r.inputs.hash)
    );
    let run = &r.run;
    let until = |rounds: usize| {
        format!(
            "rounds went on (with bounded patience) until the reference and its A/A control had been quiet together in {rounds} rounds of every case"
        )
    };
    let rounds = if run.processes > 1 {
        format!(
            "{} measuring processes in turn, each loading every artifact afresh; in each, {}; every interval is at least as wide as the spread between the processes' own figures (each process one unit)",
            run.processes,
            until(crate::time::plan::per_process_rounds(
                run.rounds,
                run.processes
            ))
        )
    } else {
        until(run.rounds)
    };
    let _ = writeln!(
        w,
        "| run | {}; {rounds}; batches of {:.1} ms, interleaved round-robin; {:.0}% of batches were quiet |",
        if run.quick {
            "`--quick`: fewer cases and rounds, for a first look"
        } else {
            "full default set"
        },
        run.batch_seconds * 1e3,
        run.quiet_share * 100.0
    );
    let _ = writeln!(
        w,
        "| quiet | {} (`QUIET` = {}). A median is over its engine's quiet batches, a ratio over the rounds in which both of its engines' batches were quiet; with fewer than {} of them, over every round, and a case where the reference and its A/A control had fewer than {} quiet rounds together is uncertain. |\n",
        md_cell(&run.quiet.criterion),
        run.quiet.threshold,
        run.quiet.min_rounds,
        run.quiet.min_rounds
    );
    let _ = writeln!(w, "</details>\n");
}
