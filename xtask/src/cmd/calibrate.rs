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
use crate::env::outputs::{self, Kind, Outputs};
use crate::env::tree::Tree;
use crate::env::workdir::WorkDir;
use crate::env::workspace;
use crate::error::{Error, Result};
use crate::render::calibration::markdown;
use crate::report::calibration::{self, Calibration, Comparison};
use crate::select::ciphers;
use crate::select::contenders::{self, Origin};
use crate::time::plan::{self, Amount};
use crate::time::{processes, race};
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
          value_parser = clap::value_parser!(u32).range(i64::from(calibration::MIN_COMPARISONS)..=1000))]
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

pub fn run(args: Args) -> Result<()> {
    let meta = workspace::metadata()?;
    let entry = ciphers::named(&args.cipher, false, "calibrate")?[0];
    let dir = calibration::dir(&args.out);
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
    outputs::write(&md, &Kind::Calibration, markdown(&cal).as_bytes())?;
    println!(
        "false-difference rate {:.1}% ({} comparisons), noise floor ±{:.2}%",
        cal.false_difference_rate * 100.0,
        cal.comparisons.len(),
        cal.noise_floor * 100.0
    );
    println!("calibration: {}", md.display());
    Ok(())
}
