//! The report's machine, build and run facts.

use crate::decide::paired;
use crate::env::escape::{md_cell, md_code_cell};
use crate::report::Report;
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
    let first = run.spent.iter().filter(|p| p.look == 0).count().max(1);
    let racing = run.spent.len().saturating_sub(first);
    let _ = writeln!(
        w,
        "| run | {}; a first pass of {first} measuring processes in turn (each loading every artifact afresh), {} rounds of every case each, then {racing} racing processes on the steps still undecided{}; batches of {:.1} ms, interleaved round-robin; {} looks, so the verdict's intervals are {:.2}% intervals |",
        run.amount_words(),
        run.rounds,
        run.budget_seconds
            .map_or(String::new(), |b| format!(" within a budget of {b:.0} s")),
        run.batch_seconds * 1e3,
        run.looks,
        paired::confidence(run.looks) * 100.0
    );
    let _ = writeln!(
        w,
        "| estimator | each engine's level in a process is the {:.0}th percentile of its rounds there; a ratio's figure in a process is the levels' ratio, over the crypt cases their geometric mean; the processes are the unit of the interval (Student's t), one whose figure lies more than {} times the others' range (and {:.1}%) from their median set aside; look j uses a 1 - {}/2^j interval |",
        paired::QUANTILE * 100.0,
        paired::OUTLIER_RANGES,
        paired::OUTLIER_FLOOR * 100.0,
        paired::ALPHA
    );
    if let Some(floor) = noise_floor(r) {
        let _ = writeln!(
            w,
            "| noise floor | {:.2}%: the median half-width of the A/A control's per-case 95% intervals in this run |",
            floor * 100.0
        );
    }
    let _ = writeln!(
        w,
        "| quiet | {:.0}% of batches were quiet: {} (`QUIET` = {}). Said, not used: the estimator filters no round out. |\n",
        run.quiet_share * 100.0,
        md_cell(&run.quiet.criterion),
        run.quiet.threshold,
    );
    if !run.spent.is_empty() {
        let _ = writeln!(w, "How the rounds were spent:\n");
        let _ = writeln!(
            w,
            "| process | look | variants | cases | rounds | seconds | to settle |"
        );
        let _ = writeln!(w, "|---:|---:|---:|---:|---:|---:|---|");
        for (i, p) in run.spent.iter().enumerate() {
            let _ = writeln!(
                w,
                "| {} | {} | {} | {} | {} | {:.1} | {} |",
                i + 1,
                p.look,
                p.engines.len(),
                p.cases,
                p.rounds,
                p.seconds,
                if p.for_steps.is_empty() {
                    "first pass: every variant".to_string()
                } else {
                    md_cell(&p.for_steps.join("; "))
                }
            );
        }
        let _ = writeln!(w);
    }
    let _ = writeln!(w, "</details>\n");
}

/// The run's noise floor: the median half-width (as a fraction) of the A/A
/// control's per-case intervals.
pub fn noise_floor(r: &Report) -> Option<f64> {
    let halves: Vec<f64> = (r.control.as_ref()?.speed.iter())
        .filter_map(|s| s.ratio)
        .map(|q| (q.high.ln() - q.low.ln()) / 2.0)
        .collect();
    (!halves.is_empty()).then(|| bench_harness::stats::median(&halves).exp_m1())
}
