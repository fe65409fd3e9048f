//! The pipeline every compare runs, this workspace's ciphers and a crate's
//! alike: build and size, screen, time with an A/A control and racing,
//! count, analyse; and the answer on a terminal.

use super::args::Args;
use crate::build;
use crate::count::{explain, memcheck};
use crate::decide::verdict::{self, Conclusion};
use crate::env::escape::terminal;
use crate::env::subject::quoted;
use crate::env::workspace;
use crate::error::{Error, Result};
use crate::report::calibration;
use crate::report::older_cpu::OlderCpu;
use crate::report::{Report, Status};
use crate::select::contenders;
use crate::time::analyse::Settings;
use crate::time::emulated;
use crate::time::processes;
use crate::time::race;
use crate::time::screen;
use bench_harness::registry::CipherEntry;
use std::path::Path;
use std::time::Duration;

/// The settings of a run: the reference, the rule's parameters, the
/// command that made the report (`--quick` added when quick), and the one
/// that measures the same again (`--out` too, where it was given).
pub fn settings(args: &Args, reference: &str, command: String) -> Settings {
    let generated_by = format!(
        "{command}{}",
        if args.amount.quick { " --quick" } else { "" }
    );
    let out = (args.out.as_ref())
        .map(|o| format!(" --out {}", quoted(&o.display().to_string())))
        .unwrap_or_default();
    Settings {
        reference: reference.to_string(),
        threshold: args.threshold,
        size_cost: args.size_cost,
        budget_seconds: Some(args.amount.budget),
        machine_name: args.machine_label.clone(),
        calibrations: calibration::read_all(&calibration::dir(&workspace::root().join("reports"))),
        quick: args.amount.quick,
        keys: args.amount.keys(),
        command: format!("{generated_by}{out}"),
        generated_by,
    }
}

/// Exit 1 when an entry failed or hung; a variant this CPU cannot run is
/// reported, not a failure.
pub fn failures(report: &Report) -> Result<()> {
    let failed: Vec<String> = report
        .entries()
        .filter(|e| matches!(e.status, Status::Failed | Status::Hung))
        .map(|e| format!("{} {}", e.name, e.status))
        .collect();
    if failed.is_empty() {
        Ok(())
    } else {
        Err(Error::failed(format!(
            "{}: see the report",
            failed.join(", ")
        )))
    }
}

/// Every case a run times: the crypt cases of its amount, then key setup
/// (those [`compare`] times once the screen is done).
pub fn cases(args: &Args, entry: &CipherEntry) -> Vec<bench_harness::sampling::Case> {
    let mut cases = args.amount.cases(entry);
    cases.extend(args.amount.setkey(entry));
    cases
}

/// The pipeline: build and size, time, analyse.
pub fn compare(
    args: &Args,
    settings: &Settings,
    entry: &'static CipherEntry,
    mut contenders: Vec<contenders::Contender>,
    work: &Path,
) -> Result<Report> {
    let steps = contenders.len() + 2;
    let reuse = if args.rebuild {
        build::Reuse::Never
    } else {
        build::Reuse::Previous
    };
    contenders::leave_out_unoffered(&mut contenders, &self::cases(args, entry));
    build::build_and_size_reusing(entry, &mut contenders, work, steps, reuse);
    // A crate's variants (most edits change no machine code), and a flag
    // grid's (many flag sets build the same code): identical code is timed
    // once.
    let grid = contenders.iter().any(|c| !c.tree.flags.is_profile());
    if entry.from_crate.is_some() || grid {
        one_result_per_code(&mut contenders, &settings.reference);
    }
    let mut cases = args.amount.cases(entry);
    processes::check(entry, &mut contenders, &cases, work)?;
    let secrets = memcheck::screen(
        &mut contenders,
        &settings.reference,
        &self::cases(args, entry),
        work,
        args.allow_leaks,
    );
    let older_cpu = on_an_older_cpu(entry, &mut contenders, &self::cases(args, entry), work);
    let screened = screen::screen(entry, &mut contenders, &settings.reference, &cases, work)?;
    let control = contenders::control(&contenders, &settings.reference, work);
    contenders.extend(control);
    cases.extend(args.amount.setkey(entry));
    let plan = args.amount.plan();
    let processes = args.amount.processes;
    eprintln!(
        "[{}/{steps}] timing {} artifacts (an A/A control among them) on {} cases, interleaved: a first pass of {processes} processes of {} rounds each, then racing processes on the steps still undecided, within a budget of {:.0} s",
        steps - 1,
        contenders.iter().filter(|c| c.live().is_some()).count(),
        cases.len(),
        plan.rounds,
        args.amount.budget,
    );
    let (_, mut report) = race::race(
        settings,
        entry,
        &mut contenders,
        &cases,
        plan,
        processes,
        Duration::from_secs_f64(args.amount.budget),
        work,
    )?;
    eprintln!("[{steps}/{steps}] writing the report");
    report.run.notes.extend(screened);
    explain::count(&mut report, entry, &contenders, &cases, work);
    memcheck::attach(&mut report, secrets);
    for e in report.entries_mut() {
        e.older_cpu = (older_cpu.iter())
            .find(|(name, _)| *name == e.name)
            .map(|(_, o)| o.clone());
    }
    Ok(report)
}

/// Each live contender's check run on a CPU without the extensions
/// (`time/emulated.rs`) before timing: one that fails there although built
/// for the baseline is marked failed, with why.
fn on_an_older_cpu(
    entry: &CipherEntry,
    contenders: &mut [contenders::Contender],
    cases: &[bench_harness::sampling::Case],
    work: &Path,
) -> Vec<(String, OlderCpu)> {
    let found = emulated::check(entry, contenders, cases, work);
    for (name, o) in &found {
        if let (true, OlderCpu::Failed { cpu, why, .. }) = (o.disqualifies(), o)
            && let Some(c) = contenders.iter_mut().find(|c| c.name == *name)
        {
            c.fail(format!(
                "fails on a CPU without the extensions, {cpu}: {why}"
            ));
        }
    }
    found
}

/// The verdict on stdout, every text from the report as a terminal shows
/// it ([`terminal`]).
/// A crate's variants (`compare --crate`, where most edits change no
/// machine code) and a flag grid's: a variant whose hot path and key
/// schedule are the same code (addresses normalized) as one already kept,
/// no larger, is left out of the timing with that said: identical machine
/// code is one result, timed once. The reference is kept first (ratios
/// are taken against it), then the others from the smallest footprint up,
/// so that a member smaller than the reference it matches is timed too:
/// the verdict represents a group by its smallest member. The peers are
/// timed as they are.
fn one_result_per_code(contenders: &mut [contenders::Contender], reference: &str) {
    let mut kept: Vec<(String, u64, Vec<u8>, Vec<u8>)> = Vec::new();
    let mut order: Vec<usize> = (0..contenders.len()).collect();
    let footprint =
        |c: &contenders::Contender| c.live().map_or(u64::MAX, |b| b.artifact.footprint_bytes);
    order.sort_by_key(|&i| (contenders[i].name != reference, footprint(&contenders[i])));
    for i in order {
        let c = &contenders[i];
        if c.is_peer() || c.is_control() {
            continue;
        }
        let Some((hot, key)) =
            (c.live()).and_then(|b| Some((b.hot_path.clone()?, b.key_schedule.clone()?)))
        else {
            continue;
        };
        let size = footprint(c);
        match (kept.iter()).find(|(_, s, h, k)| *h == hot && *k == key && *s <= size) {
            Some((same, _, _, _)) => {
                contenders[i].screen_out(crate::report::same_code_reason(same));
            }
            None => kept.push((c.name.clone(), size, hot, key)),
        }
    }
}

/// The answer on a terminal, compact: the verdict and why, the A/A
/// control, the rule's steps as a table (a row per comparison), what to run
/// to settle it, and where the report is; the steps in words stay in the
/// report.
pub fn print_verdict(report: &Report, out: &Path) {
    print!("{}", answer(report, out));
}

/// What [`print_verdict`] prints.
fn answer(report: &Report, out: &Path) -> String {
    use std::fmt::Write;
    let mut w = String::new();
    let v = &report.verdict;
    let verdict = match (v.status, &v.pick) {
        (Conclusion::Inconclusive, _) => "inconclusive".to_string(),
        (Conclusion::Decided, Some(p)) => format!("use `{}`", terminal(p)),
        (Conclusion::Decided, None) => "none".to_string(),
    };
    let _ = writeln!(w, "verdict: {verdict}");
    for reason in &v.reasons {
        let _ = writeln!(w, "  because {}", terminal(reason));
    }
    for l in &v.leaning {
        let _ = writeln!(w, "  leaning: {}", terminal(l));
    }
    if let Some(c) = &report.control {
        let _ = writeln!(
            w,
            "  A/A control (`{}` against its copy): {}",
            terminal(&c.of),
            verdict::pct(&c.interval())
        );
    }
    steps(&mut w, &v.chain);
    if let Some(rerun) = &v.rerun {
        let _ = writeln!(
            w,
            "  to settle it, run again with more processes and budget: {}",
            terminal(rerun)
        );
    }
    let _ = writeln!(
        w,
        "report: {}",
        terminal(
            &out.join(format!("{}.md", report.cipher))
                .display()
                .to_string()
        )
    );
    w
}

/// The rule's chain as a table: candidate, what it was measured against,
/// its footprint change, its gain with the interval, its bar, the outcome.
fn steps(w: &mut String, chain: &[verdict::Link]) {
    use std::fmt::Write;
    if chain.is_empty() {
        return;
    }
    let rows: Vec<[String; 6]> = (chain.iter())
        .map(|l| {
            let against = l.against.as_deref().map(terminal).unwrap_or_default();
            let (size, gain, bar) = match &l.against {
                None => (String::new(), String::new(), String::new()),
                Some(_) => (
                    verdict::size_pct(l.size_change),
                    l.gain.as_ref().map(verdict::pct).unwrap_or_default(),
                    format!("{:+.1}%", (l.bar - 1.0) * 100.0),
                ),
            };
            let outcome = l.outcome.word().to_string();
            [terminal(&l.candidate), against, size, gain, bar, outcome]
        })
        .collect();
    let header = ["step", "against", "size", "gain", "bar", "outcome"].map(String::from);
    let widths: Vec<usize> = (0..6)
        .map(|i| {
            (rows.iter().chain([&header]))
                .map(|r| r[i].chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    for row in [&header].into_iter().chain(&rows) {
        let cells: Vec<String> = (row.iter().zip(&widths))
            .map(|(c, w)| format!("{c:<w$}"))
            .collect();
        let _ = writeln!(w, "  {}", cells.join("  ").trim_end());
    }
}

#[cfg(test)]
mod tests {
    /// The terminal's answer is compact: the verdict first, the steps as a
    /// table (a header and a row per link of the chain, no paragraph), the
    /// report's path last.
    #[test]
    fn the_answer_is_a_table_not_paragraphs() {
        let r = crate::report::fixture::report();
        let text = super::answer(&r, std::path::Path::new("reports"));
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[0].starts_with("verdict: "), "{text}");
        assert_eq!(
            lines.last().copied(),
            Some(format!("report: reports/{}.md", r.cipher).as_str()),
            "{text}"
        );
        let header = lines
            .iter()
            .position(|l| l.trim_start().starts_with("step "))
            .expect("a header");
        let rows = lines[header + 1..]
            .iter()
            .take_while(|l| !l.starts_with("report:") && !l.contains("to settle"));
        assert_eq!(rows.count(), r.verdict.chain.len(), "{text}");
        for step in &r.verdict.steps {
            assert!(
                !text.contains(step.as_str()),
                "a paragraph on the terminal: {step}"
            );
        }
    }
}
