//! `cargo xtask calibrate [CIPHER]`: how often the rule declares identical
//! code different, measured. The reference variant's artifact is timed
//! against a copy of itself (another file, loaded as another library) with
//! exactly what compare uses: the same cases and plan, the estimator and
//! interval of [`crate::decide::paired`], and racing's stopping rule (after
//! the first pass, while the interval straddles 1 and the budget allows, a
//! round of more processes, then a look, at most
//! [`crate::decide::looks::MAX_LOOKS`]: racing's loop, [`race::rounds`]; as
//! if the verdict hinged on it every time, the most looking compare does).
//! Each comparison runs in measuring processes of its own; the block sizes
//! are `--quick`'s by default ([`crate::time::plan::QUICK`]), the rest
//! compare's full plan, so that 40 comparisons take minutes. It writes `reports/calibration/CIPHER.{json,md}`:
//! every comparison, the false-difference rate (comparisons whose final
//! interval excluded 1) and the noise floor (the median half-width).

use crate::build;
use crate::decide::paired;
use crate::env::escape::{md_cell, md_comment};
use crate::env::outputs::{self, Kind, Outputs};
use crate::env::tree::Tree;
use crate::env::workdir::WorkDir;
use crate::env::workspace;
use crate::error::{Error, Result};
use crate::select::ciphers;
use crate::select::contenders::{self, Origin};
use crate::time::plan::{self, Amount};
use crate::time::{processes, race};
use bench_harness::stats::{self, Ratio};
use serde::{Deserialize, Serialize};
use std::fmt::Write;
use std::path::PathBuf;
use std::time::{Duration, Instant};

#[derive(clap::Args)]
pub struct Args {
    /// The cipher whose reference variant is timed against its copy.
    #[arg(value_name = "CIPHER", default_value = "cast6")]
    pub cipher: String,

    /// Independent comparisons, each in its own measuring processes (10 to
    /// 1000).
    #[arg(long, value_name = "N", default_value = "40",
          value_parser = clap::value_parser!(u32).range(10..=1000))]
    pub comparisons: u32,

    /// Seconds of timing each comparison may spend (above 0, at most 3600):
    /// its first pass always runs, then racing processes while its interval
    /// straddles 1, as compare races a step.
    #[arg(long, value_name = "SECS", value_parser = crate::cli::seconds,
          allow_negative_numbers = true, default_value = plan::CALIBRATION.budget)]
    pub budget: f64,

    /// Block sizes in bytes, comma-separated, as compare takes them; the
    /// rounds, batch seconds and processes are compare's full defaults.
    #[arg(long, value_name = "LIST", value_parser = crate::cli::sizes,
          default_value = plan::CALIBRATION.sizes)]
    pub sizes: crate::cli::Sizes,

    /// Where the calibration goes (`calibration/CIPHER.{json,md}` under it).
    #[arg(long, value_name = "DIR", default_value_os_t = workspace::root().join("reports"))]
    pub out: PathBuf,
}

/// One comparison of identical code.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    /// The copy's speed over the original, at the last look's confidence.
    pub ratio: Ratio,
    pub looks: usize,
    pub processes: usize,
    pub seconds: f64,
    /// Whether the interval excluded 1: a false difference.
    pub different: bool,
}

/// What calibrate writes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Calibration {
    pub cipher: String,
    pub variant: String,
    /// The machine label (`CpuInfo::label`).
    pub machine: String,
    pub generated_by: String,
    pub date: String,
    pub comparisons: Vec<Comparison>,
    /// Comparisons that declared identical code different, over all.
    pub false_difference_rate: f64,
    /// The median half-width of the final intervals, as a fraction.
    pub noise_floor: f64,
}

/// The one-sided confidence of the false-difference rate's upper bound.
const RATE_BOUND_CONFIDENCE: f64 = 0.95;

impl Calibration {
    /// The summary figures from the comparisons.
    pub fn summarise(mut self) -> Calibration {
        let n = self.comparisons.len().max(1) as f64;
        self.false_difference_rate =
            self.comparisons.iter().filter(|c| c.different).count() as f64 / n;
        let halves: Vec<f64> = (self.comparisons.iter())
            .map(|c| ((c.ratio.high.ln() - c.ratio.low.ln()) / 2.0).exp_m1())
            .collect();
        self.noise_floor = stats::median(&halves);
        self
    }

    /// How far the copy's central ratio moves from one comparison's run
    /// to the next: 1.96 standard deviations of the comparisons'
    /// logarithms, as a fraction. Set beside the noise floor (one run's
    /// own half-width): where it is larger, one run's interval understates
    /// the variation between runs. Computed from the comparisons, never
    /// stored.
    pub fn between_runs(&self) -> f64 {
        let logs: Vec<f64> = self
            .comparisons
            .iter()
            .map(|c| c.ratio.ratio.ln())
            .collect();
        let n = logs.len();
        if n < 2 {
            return 0.0;
        }
        let mean = logs.iter().sum::<f64>() / n as f64;
        let var = logs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
        (1.96 * var.sqrt()).exp_m1()
    }

    /// The false-difference rate's one-sided 95% upper bound
    /// (Clopper-Pearson): the rate these comparisons cannot rule out.
    pub fn rate_upper_bound(&self) -> f64 {
        let hits = self.comparisons.iter().filter(|c| c.different).count();
        stats::rate_upper_bound(hits, self.comparisons.len(), RATE_BOUND_CONFIDENCE)
    }

    /// The markdown report.
    pub fn markdown(&self) -> String {
        let mut w = String::new();
        let different = self.comparisons.iter().filter(|c| c.different).count();
        let _ = writeln!(
            w,
            "<!-- {} -->",
            md_comment(&format!(
                "Generated by `{}`; do not edit.",
                self.generated_by
            ))
        );
        let _ = writeln!(
            w,
            "# Calibration: {} `{}` against a copy of itself\n",
            md_cell(&self.cipher),
            md_cell(&self.variant)
        );
        let _ = writeln!(
            w,
            "**False-difference rate {:.1}%** ({different} of {} comparisons declared identical code different; the rule allows {:.0}%). **Noise floor ±{:.2}%** (the median half-width of the final intervals).\n",
            self.false_difference_rate * 100.0,
            self.comparisons.len(),
            paired::ALPHA * 100.0,
            self.noise_floor * 100.0
        );
        let between = self.between_runs();
        let _ = writeln!(
            w,
            "The rate's one-sided {:.0}% upper bound (Clopper-Pearson) is {:.1}%. **Between runs ±{:.2}%**: how far the copy's central ratio moves from one comparison's run to the next (1.96 standard deviations over the {} comparisons), {} one run's own half-width (the noise floor){}.\n",
            RATE_BOUND_CONFIDENCE * 100.0,
            self.rate_upper_bound() * 100.0,
            between * 100.0,
            self.comparisons.len(),
            if between > self.noise_floor {
                "larger than"
            } else {
                "within"
            },
            if between > self.noise_floor {
                ": a single run's interval understates how far a second run of the same code lands"
            } else {
                ""
            }
        );
        let _ = writeln!(
            w,
            "Machine `{}`; `{}`; {}. Each comparison ran in measuring processes of its own, with compare's plan, estimator, interval and stopping rule.\n",
            md_cell(&self.machine),
            md_cell(&self.generated_by),
            md_cell(&self.date)
        );
        let _ = writeln!(
            w,
            "| # | copy over original | looks | processes | seconds | different |"
        );
        let _ = writeln!(w, "|---:|---|---:|---:|---:|---|");
        for (i, c) in self.comparisons.iter().enumerate() {
            let _ = writeln!(
                w,
                "| {} | {} | {} | {} | {:.1} | {} |",
                i + 1,
                crate::decide::verdict::pct(&c.ratio),
                c.looks,
                c.processes,
                c.seconds,
                if c.different { "**yes**" } else { "no" }
            );
        }
        w
    }
}

pub fn run(args: Args) -> Result<()> {
    let meta = workspace::metadata()?;
    let entry = ciphers::named(&args.cipher, false, "calibrate")?[0];
    let dir = args.out.join("calibration");
    let (json_path, md) = (
        dir.join(format!("{}.json", entry.name)),
        dir.join(format!("{}.md", entry.name)),
    );
    let mut files = Outputs::in_dir("--out", &args.out);
    files.add(json_path.clone(), Kind::Calibration);
    files.add(md.clone(), Kind::Calibration);
    files.check()?;
    let variant = ciphers::default_reference(entry);
    let mut contenders =
        contenders::contenders(entry, &[variant], false, &Tree::here(), Origin::Current);
    let work = WorkDir::lock(&meta.target_dir, entry.name)?;
    build::build_and_size_reusing(
        entry,
        &mut contenders,
        &work.path,
        3,
        build::Reuse::Previous,
    );
    let control = contenders::control(&contenders, variant, &work.path).ok_or_else(|| {
        Error::failed(format!(
            "`{variant}` could not be built and copied: see above"
        ))
    })?;
    contenders.push(control);
    let amount = Amount {
        sizes: args.sizes.clone(),
        ..Amount::with(&[]).expect("compare's defaults parse")
    };
    let cases = amount.cases(entry);
    let plan = amount.plan();
    let every: Vec<usize> = (0..cases.len()).collect();
    let mut out = Vec::new();
    let mut machine = String::from("unknown");
    for i in 0..args.comparisons {
        let start = Instant::now();
        let mut t = processes::measure(
            entry,
            &mut contenders,
            &cases,
            plan,
            amount.processes,
            &work.path,
        )?;
        if let Some(o) = &t.outcome {
            machine = o.machine.cpu_info.label();
        }
        let (Some(a), Some(b)) = (t.index(1), t.index(0)) else {
            return Err(Error::failed("the artifact or its copy was not measured"));
        };
        // Racing's loop, settled when the interval no longer straddles 1;
        // each round times both on every case.
        let mut run = race::Run {
            entry,
            contenders: &mut contenders,
            cases: &cases,
            plan,
            dir: &work.path,
            start,
            budget: Duration::from_secs_f64(args.budget),
        };
        let ratio = race::rounds(&mut run, &mut t, |t, _| {
            let r = t
                .overall(a, b)
                .ok_or_else(|| Error::failed("too few processes"))?;
            let straddles = r.low <= 1.0 && r.high > 1.0;
            let round = straddles.then(|| race::Round {
                only: None,
                cases: every.clone(),
                steps: Vec::new(),
                announce: false,
            });
            Ok((r, round))
        })?;
        let c = Comparison {
            ratio,
            looks: t.looks,
            processes: t.processes,
            seconds: start.elapsed().as_secs_f64(),
            different: ratio.low > 1.0 || ratio.high < 1.0,
        };
        eprintln!(
            "  comparison {} of {}: {} after {} looks{}",
            i + 1,
            args.comparisons,
            crate::decide::verdict::pct(&c.ratio),
            c.looks,
            if c.different { ": DIFFERENT" } else { "" }
        );
        out.push(c);
    }
    let cal = Calibration {
        cipher: entry.name.to_string(),
        variant: variant.to_string(),
        machine,
        // The command that measures the same again: the comparisons and
        // the budget decide the figures.
        generated_by: format!(
            "cargo xtask calibrate {} --comparisons {} --budget {}",
            entry.name, args.comparisons, args.budget
        ),
        date: workspace::today(),
        comparisons: out,
        false_difference_rate: 0.0,
        noise_floor: 0.0,
    }
    .summarise();
    let json = serde_json::to_string_pretty(&cal).map_err(|e| Error::failed(e.to_string()))?;
    outputs::write(&json_path, &Kind::Calibration, json.as_bytes())?;
    outputs::write(&md, &Kind::Calibration, cal.markdown().as_bytes())?;
    println!(
        "false-difference rate {:.1}% ({} comparisons), noise floor ±{:.2}%",
        cal.false_difference_rate * 100.0,
        cal.comparisons.len(),
        cal.noise_floor * 100.0
    );
    println!("calibration: {}", md.display());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn comparison(low: f64, high: f64) -> Comparison {
        Comparison {
            ratio: Ratio {
                ratio: (low * high).sqrt(),
                low,
                high,
            },
            looks: 1,
            processes: 4,
            seconds: 1.0,
            different: low > 1.0 || high < 1.0,
        }
    }

    #[test]
    fn the_rate_and_the_floor_come_from_the_comparisons() {
        let cal = Calibration {
            cipher: "cast6".into(),
            variant: "auto|x".into(),
            machine: "m".into(),
            generated_by: "cargo xtask calibrate cast6".into(),
            date: "2026-12-01".into(),
            comparisons: vec![
                comparison(0.99, 1.01),
                comparison(1.001, 1.003),
                comparison(0.995, 1.005),
                comparison(0.98, 1.02),
            ],
            false_difference_rate: 0.0,
            noise_floor: 0.0,
        }
        .summarise();
        assert_eq!(cal.false_difference_rate, 0.25);
        // Half-widths 1%, 0.1%, 0.5%, 2%: the median lies between 0.5% and 1%.
        assert!(
            cal.noise_floor > 0.005 && cal.noise_floor < 0.0101,
            "{}",
            cal.noise_floor
        );
        let md = cal.markdown();
        assert!(md.contains("**False-difference rate 25.0%** (1 of 4 comparisons"));
        // A name is escaped in a table cell.
        assert!(md.contains("auto\\|x"), "{md}");
        assert_eq!(md.matches("| **yes** |").count(), 1);
        // The central ratios 1.000, 1.002, 1.000, 1.000: between runs,
        // 1.96 standard deviations of their logarithms.
        let logs =
            [0.99f64 * 1.01, 1.001 * 1.003, 0.995 * 1.005, 0.98 * 1.02].map(|x| x.sqrt().ln());
        let mean = logs.iter().sum::<f64>() / 4.0;
        let sd = (logs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / 3.0).sqrt();
        assert!((cal.between_runs() - (1.96 * sd).exp_m1()).abs() < 1e-12);
        assert!(md.contains("**Between runs ±"), "{md}");
        assert!(cal.rate_upper_bound() > 0.25, "{}", cal.rate_upper_bound());
    }
}
