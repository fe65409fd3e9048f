//! `cargo xtask compare CIPHER|all`: builds every variant (and the peers) as
//! its own `.so`, sizes each, times those same files interleaved, and writes
//! `reports/CIPHER.{md,json,svg}`; `all` does every cipher and the index.
//! The pipeline: contenders, build and size, time, analyse, write.

use crate::build;
use crate::cli;
use crate::count::explain;
use crate::decide::verdict::{self, Conclusion};
use crate::env::escape::terminal;
use crate::env::outputs::Outputs;
use crate::env::tree::Tree;
use crate::env::workdir::WorkDir;
use crate::env::workspace;
use crate::error::{Error, Result};
use crate::render::output;
use crate::report::{Report, Status};
use crate::select::cases;
use crate::select::ciphers;
use crate::select::contenders::{self, Origin};
use crate::time::analyse::Settings;
use crate::time::plan::{self, Amount};
use crate::time::race;
use crate::time::screen;
use bench_harness::registry::CipherEntry;
use std::path::{Path, PathBuf};
use std::time::Duration;

#[derive(clap::Args)]
#[command(after_help = after_help())]
pub struct Args {
    /// The cipher, as the kernel names it (e.g. cast6; a wrong name lists
    /// them all), or `all` for every one and
    /// the index reports/README.md.
    #[arg(value_name = "CIPHER|all", required_unless_present = "krate")]
    pub cipher: Option<String>,

    /// A crate this workspace did not write, instead of CIPHER:
    /// `NAME@VERSION` from crates.io (cargo fetches it as it fetches any
    /// dependency) or the path of a local crate. Its inline attributes are
    /// edited in copies, each copy built through a downstream shim and
    /// timed against the crate as published; reports go to
    /// reports/crates/NAME-VERSION/ unless --out says otherwise.
    #[arg(long = "crate", value_name = "SPEC", conflicts_with = "cipher")]
    pub krate: Option<String>,

    /// With --crate: the type to measure, when the crate has more than one
    /// block cipher (`--type Aes128`); a missing or wrong one lists them.
    #[arg(long = "type", value_name = "TYPE")]
    pub ty: Option<String>,

    /// With --crate: cargo uses only what it has cached (no network).
    #[arg(long)]
    pub offline: bool,

    /// Only these variants, comma-separated; `*` in a name stands for any
    /// run of characters (`*_x4*`, `never*`) [default: every one]. With
    /// many variants, a brief screen leaves out those clearly dominated
    /// before the full run (the report lists them with the evidence).
    #[arg(long, value_name = "V,...", value_delimiter = ',', action = clap::ArgAction::Set)]
    pub variants: Option<Vec<String>>,

    /// The reference variant: speed ratios are taken against it [default:
    /// the cipher's, listed below].
    #[arg(long, value_name = "V", alias = "baseline-variant")]
    pub reference: Option<String>,

    #[command(flatten)]
    pub amount: Amount,

    /// The gain, in percent (0 to 100), by which a larger variant must beat
    /// a smaller one, beyond the noise, to be worth its size.
    #[arg(long, value_name = "PCT", value_parser = cli::percent,
          allow_negative_numbers = true, default_value = verdict::THRESHOLD)]
    pub threshold: f64,

    /// The extra gain, in percent (0 to 100), a larger variant must show
    /// per doubling of its footprint, on top of --threshold: what larger
    /// code costs the rest of the system, which a microbenchmark cannot
    /// see (docs/verdict.md, step 4).
    #[arg(long, value_name = "PCT", value_parser = cli::percent,
          allow_negative_numbers = true, default_value = verdict::SIZE_COST)]
    pub size_cost: f64,

    /// A name for this machine, added to the label read from its CPU
    /// (`[A-Za-z0-9._-]`, at most 40 characters): the CPU says which
    /// machine it is, the name only what you call it.
    #[arg(long, value_name = "NAME", value_parser = cli::machine_name)]
    pub machine_label: Option<String>,

    /// Where the report goes [default: reports/, or
    /// reports/crates/NAME-VERSION/ with --crate].
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,

    /// Leave out the peers (RustCrypto's crates, the crc32c crate).
    #[arg(long)]
    pub no_peer: bool,

    /// Build every artifact again, even one a previous run built from the
    /// same inputs (by default such an artifact is taken as it is).
    #[arg(long)]
    pub rebuild: bool,
}

fn after_help() -> String {
    format!("{}\n{}", plan::quick_help(), ciphers::reference_help())
}

pub fn run(args: Args) -> Result<()> {
    let meta = workspace::metadata()?;
    let Some(cipher) = &args.cipher else {
        return crate::cmd::compare_crate::run(&args, &meta.target_dir);
    };
    if args.ty.is_some() || args.offline {
        return Err(Error::usage(
            "--type and --offline are for a crate (--crate), not one of this workspace's ciphers",
            "e.g. cargo xtask compare --crate aes@0.9.4 --type Aes128",
        ));
    }
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| workspace::root().join("reports"));
    let ciphers = ciphers::named(cipher, true, "compare")?;
    let all = cipher == "all";
    if all && (args.variants.is_some() || args.reference.is_some()) {
        return Err(Error::usage(
            "--variants and --reference name one cipher's variants, not all ciphers'",
            "give one cipher, e.g. cargo xtask compare cast6 --variants never,auto",
        ));
    }
    let selections = (ciphers.iter())
        .map(|entry| select(&args, entry))
        .collect::<Result<Vec<_>>>()?;
    check_out(&out, &ciphers, all)?;
    if all {
        return run_all(&args, &selections, &meta.target_dir, &out);
    }
    let result = run_one(&args, &selections[0], &meta.target_dir, &out);
    output::refresh(&out, false)?;
    result
}

/// What one cipher's run measures, checked before anything is built.
struct Selection {
    entry: &'static CipherEntry,
    chosen: Vec<&'static str>,
    reference: String,
}

/// The variants `--variants` chooses of `entry`, and the reference among
/// them.
fn select(args: &Args, entry: &'static CipherEntry) -> Result<Selection> {
    let chosen = ciphers::choose(
        entry,
        args.variants.as_deref(),
        "e.g. --variants never,auto",
    )?;
    let reference = args
        .reference
        .clone()
        .unwrap_or_else(|| ciphers::default_reference(entry).to_string());
    if !chosen.contains(&reference.as_str()) {
        return Err(Error::usage(
            format!(
                "the reference variant `{reference}` is not among those measured ({})",
                chosen.join(", ")
            ),
            format!(
                "add it to --variants, or name another with --reference ({})",
                chosen.join(", ")
            ),
        ));
    }
    Ok(Selection {
        entry,
        chosen,
        reference,
    })
}

/// Every file the run writes is checked before anything is built: each
/// cipher's report, and what the refresh of `--out` after it writes (the
/// other reports' views, the index); see [`crate::env::outputs`].
pub fn check_out(out: &Path, ciphers: &[&'static CipherEntry], index: bool) -> Result<()> {
    let mut files = Outputs::in_dir("--out", out);
    for c in ciphers {
        output::plan(&mut files, out, c.name);
    }
    output::plan_refresh(&mut files, out, index)?;
    files.check()
}

/// Every cipher, then the index; one cipher's failure does not stop the
/// others.
fn run_all(args: &Args, selections: &[Selection], target: &Path, out: &Path) -> Result<()> {
    let mut failed = Vec::new();
    for selection in selections {
        eprintln!("== {}", selection.entry.name);
        if let Err(e) = run_one(args, selection, target, out) {
            let cause = match e {
                Error::Failed(m) => m,
                Error::Usage { cause, .. } => cause,
            };
            failed.push(format!("{}: {cause}", selection.entry.name));
        }
    }
    output::refresh(out, true)?;
    println!("index: {}", out.join("README.md").display());
    if failed.is_empty() {
        Ok(())
    } else {
        Err(Error::failed(failed.join("; ")))
    }
}

/// Compares one cipher and writes its report.
fn run_one(args: &Args, selection: &Selection, target: &Path, out: &Path) -> Result<()> {
    let Selection {
        entry,
        chosen,
        reference,
    } = selection;
    let settings = settings(
        args,
        reference,
        format!("cargo xtask compare {}", entry.name),
    );
    let contenders =
        contenders::contenders(entry, chosen, !args.no_peer, &Tree::here(), Origin::Current);
    let work = WorkDir::lock(target, entry.name)?;
    let report = compare(args, &settings, entry, contenders, &work.path)?;
    output::write(&report, out)?;
    print_verdict(&report, out);
    failures(&report)
}

/// The settings of a run: the reference, the rule's parameters, and the
/// command that made the report (`--quick` added when quick).
pub fn settings(args: &Args, reference: &str, command: String) -> Settings {
    Settings {
        reference: reference.to_string(),
        threshold: args.threshold,
        size_cost: args.size_cost,
        budget_seconds: Some(args.amount.budget),
        machine_name: args.machine_label.clone(),
        quick: args.amount.quick,
        generated_by: format!(
            "{command}{}",
            if args.amount.quick { " --quick" } else { "" }
        ),
        command,
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
    build::build_and_size_reusing(entry, &mut contenders, work, steps, reuse);
    let mut cases = args.amount.cases(entry);
    let screened = screen::screen(entry, &mut contenders, &settings.reference, &cases, work)?;
    let control = contenders::control(&contenders, &settings.reference, work);
    contenders.extend(control);
    cases.extend(cases::setkey(entry, args.amount.quick));
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
    Ok(report)
}

/// The verdict on stdout, every text from the report as a terminal shows
/// it ([`terminal`]).
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
