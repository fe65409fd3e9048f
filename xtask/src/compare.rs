//! `cargo xtask compare CIPHER`: builds every variant (and the RustCrypto
//! peer) as its own `.so`, sizes each, times those same files interleaved,
//! and writes `reports/CIPHER.{md,json,svg}`.

use crate::artifacts::{self, Tree};
use crate::error::{self, Error, Result};
use crate::measure_child::{Outcome, Spec};
use crate::report::{self, Entry, Machine, Report, Run, Speed};
use crate::size::{self, Artifact};
use crate::verdict::{self, Candidate};
use crate::workspace;
use bench_harness::compare::{Case, Plan, quiet_rounds};
use bench_harness::engine::{Dir, Mode};
use bench_harness::registry::{self, CipherEntry};
use bench_harness::stats::{self, Ratio};
use std::path::{Path, PathBuf};
use std::process::Command;

pub const USAGE: &str = "\
usage: cargo xtask compare CIPHER|all [OPTIONS]

Builds every variant of CIPHER (and its peers) as its own no_std .so, sizes
each, times those same files interleaved, and writes reports/CIPHER.md,
.json and .svg; `all` does every cipher and writes reports/README.md.";

/// The flags of `compare`.
pub struct Flags {
    pub cipher: String,
    /// `--variants a,b`: only these variants (default: every one).
    pub variants: Option<Vec<String>>,
    /// `--baseline-variant V`: ratios are against V (default: the cipher's,
    /// `auto` for cast6, `auto_factored` for cast5).
    pub baseline: String,
    /// `--quick`: the first key size, blocks of 16 and 8192 bytes, 5 rounds;
    /// for CI and a first look. The report says so.
    pub quick: bool,
    /// `--sec N`: seconds of timing per variant and case, spread over the
    /// rounds (default 0.01 with --quick, 0.044 without).
    pub sec: Option<f64>,
    /// `--sizes LIST`: block sizes in bytes (default 16,256,1420,8192, each
    /// rounded up to a whole number of cipher blocks).
    pub sizes: Option<Vec<usize>>,
    /// `--rounds N`: quiet rounds wanted per case (default 5 with --quick, 11).
    pub rounds: Option<usize>,
    /// `--threshold PCT`: the gain a larger variant must show (default 2).
    pub threshold: f64,
    /// `--patience SECS`: how long the run may go on past its rounds to
    /// collect rounds on a quiet core (default 3 with --quick, 10).
    pub patience: Option<f64>,
    /// `--out DIR`: where the report goes (default `reports/`).
    pub out: PathBuf,
    /// `--no-peer`: leave out the RustCrypto peer.
    pub no_peer: bool,
}

pub const OPTIONS: &str = "  --variants a,b         only these variants (default: every one)
  --baseline-variant V   ratios are against V (default: the cipher's: auto;
                         auto_factored for cast5, slice8_auto for crc32c)
  --quick                first key size, blocks of 16 and 8192 bytes, 5 rounds
  --sec N                seconds of timing per variant and case, over the rounds
  --sizes LIST           block sizes in bytes (default 16,256,1420,8192)
  --rounds N             quiet rounds wanted per case (default 5 quick, 11 full)
  --threshold PCT        gain a larger variant must show to win (default 2)
  --patience SECS        how long to go on collecting rounds on a quiet core
                         (default 3 with --quick, 10)
  --out DIR              where the report goes (default reports/)
  --no-peer              leave out the peers (RustCrypto's crates, crc32c)";

pub fn parse(args: &[String]) -> Result<Flags> {
    let hint = || format!("{USAGE}\n{OPTIONS}");
    let mut f = Flags {
        cipher: String::new(),
        variants: None,
        baseline: String::new(),
        quick: false,
        sec: None,
        sizes: None,
        rounds: None,
        threshold: 0.02,
        patience: None,
        out: workspace::root().join("reports"),
        no_peer: false,
    };
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let mut value = |flag: &str| {
            it.next()
                .cloned()
                .ok_or_else(|| Error::usage(format!("{flag} needs a value"), hint()))
        };
        match arg.as_str() {
            "--quick" => f.quick = true,
            "--no-peer" => f.no_peer = true,
            "--variants" => {
                let v = value("--variants")?;
                f.variants = Some(v.split(',').map(|s| s.trim().to_string()).collect());
            }
            "--baseline-variant" => f.baseline = value("--baseline-variant")?,
            "--sec" => f.sec = Some(error::positive_number("--sec", &value("--sec")?)?),
            "--sizes" => f.sizes = Some(error::positive_list("--sizes", &value("--sizes")?)?),
            "--rounds" => {
                let n = error::positive_list("--rounds", &value("--rounds")?)?[0];
                if n < 3 {
                    return Err(Error::usage(
                        "--rounds must be at least 3",
                        "e.g. --rounds 5",
                    ));
                }
                f.rounds = Some(n);
            }
            "--threshold" => {
                f.threshold = error::positive_number("--threshold", &value("--threshold")?)? / 100.0
            }
            "--out" => f.out = PathBuf::from(value("--out")?),
            "--patience" => {
                f.patience = Some(error::positive_number("--patience", &value("--patience")?)?)
            }
            flag if flag.starts_with('-') => {
                return Err(Error::usage(format!("unknown option `{flag}`"), hint()));
            }
            name if f.cipher.is_empty() => f.cipher = name.to_string(),
            extra => {
                return Err(Error::usage(
                    format!("unexpected argument `{extra}`"),
                    hint(),
                ));
            }
        }
    }
    if f.cipher.is_empty() {
        return Err(Error::usage(
            "no cipher given",
            format!("e.g. cargo xtask compare cast6\n{OPTIONS}"),
        ));
    }
    Ok(f)
}

/// The ciphers `compare` can build: those whose every variant has an
/// artifact feature.
pub fn comparable(features: &[String]) -> Vec<&'static CipherEntry> {
    registry::CIPHERS
        .iter()
        .filter(|c| {
            !c.peers.is_empty()
                && c.variants
                    .iter()
                    .all(|(v, _)| features.contains(&format!("{}-{v}", c.name)))
        })
        .collect()
}

pub fn run(args: &[String]) -> Result<()> {
    let mut flags = parse(args)?;
    let meta = workspace::metadata()?;
    let ciphers = comparable(&meta.artifact_features);
    let names: Vec<&str> = ciphers.iter().map(|c| c.name).collect();
    if flags.cipher == "all" {
        if flags.variants.is_some() || !flags.baseline.is_empty() {
            return Err(Error::usage(
                "--variants and --baseline-variant name one cipher's variants, not all ciphers'",
                "give one cipher, e.g. cargo xtask compare cast6 --variants never,auto",
            ));
        }
        let mut failed = Vec::new();
        for entry in &ciphers {
            eprintln!("== {}", entry.name);
            let mut one = parse(&[entry.name.to_string()])?;
            one.quick = flags.quick;
            one.sec = flags.sec;
            one.sizes.clone_from(&flags.sizes);
            one.rounds = flags.rounds;
            one.threshold = flags.threshold;
            one.patience = flags.patience;
            one.out.clone_from(&flags.out);
            one.no_peer = flags.no_peer;
            if let Err(e) = run_one(&mut one, entry, &meta.target_dir) {
                failed.push(format!(
                    "{}: {}",
                    entry.name,
                    match e {
                        Error::Failed(m) => m,
                        Error::Usage { cause, .. } => cause,
                    }
                ));
            }
        }
        write_index(&flags.out)?;
        println!("index: {}", flags.out.join("README.md").display());
        return if failed.is_empty() {
            Ok(())
        } else {
            Err(Error::failed(failed.join("; ")))
        };
    }
    let entry = *ciphers
        .iter()
        .find(|c| c.name == flags.cipher)
        .ok_or_else(|| {
            Error::usage(
                format!(
                    "unknown cipher `{}`; expected one of: {}, all",
                    flags.cipher,
                    names.join(", ")
                ),
                format!(
                    "e.g. cargo xtask compare {}",
                    names.first().unwrap_or(&"cast6")
                ),
            )
        })?;
    let result = run_one(&mut flags, entry, &meta.target_dir);
    if flags.out.join("README.md").exists() {
        write_index(&flags.out)?;
    }
    result
}

/// Compares one cipher and writes its report.
fn run_one(flags: &mut Flags, entry: &'static CipherEntry, target: &Path) -> Result<()> {
    if flags.baseline.is_empty() {
        flags.baseline = entry.baseline.to_string();
    }
    let all: Vec<&str> = entry.variants.iter().map(|(v, _)| *v).collect();
    let chosen: Vec<&str> = match &flags.variants {
        None => all.clone(),
        Some(list) => {
            for v in list {
                if !all.contains(&v.as_str()) {
                    return Err(Error::usage(
                        format!(
                            "unknown variant `{v}` of {}; expected one of: {}",
                            entry.name,
                            all.join(", ")
                        ),
                        "e.g. --variants never,auto",
                    ));
                }
            }
            all.iter()
                .copied()
                .filter(|v| list.iter().any(|l| l == v))
                .collect()
        }
    };
    if !chosen.contains(&flags.baseline.as_str()) {
        return Err(Error::usage(
            format!(
                "the baseline variant `{}` is not among those measured ({})",
                flags.baseline,
                chosen.join(", ")
            ),
            format!(
                "add it to --variants, or name another with --baseline-variant ({})",
                chosen.join(", ")
            ),
        ));
    }
    let report = compare(flags, entry, &chosen, target)?;
    // A variant this CPU cannot run is reported, not a failure.
    let failed: Vec<&str> = report
        .entries()
        .filter(|e| e.status == "failed")
        .map(|e| e.name.as_str())
        .collect();
    write(&report, &flags.out)?;
    println!(
        "verdict: {}",
        report
            .verdict
            .pick
            .as_deref()
            .map_or("none".into(), |p| format!("use `{p}`"))
    );
    for step in &report.verdict.steps {
        println!("  {step}");
    }
    println!(
        "report: {}",
        flags.out.join(format!("{}.md", entry.name)).display()
    );
    if failed.is_empty() {
        Ok(())
    } else {
        Err(Error::failed(format!(
            "{} failed: see the report",
            failed.join(", ")
        )))
    }
}

/// Every report whose JSON is in `dir`, by cipher name.
fn read_reports(dir: &Path) -> Result<Vec<Report>> {
    let entries = std::fs::read_dir(dir).map_err(|e| {
        Error::usage(
            format!("{}: {e}", dir.display()),
            "give the reports directory",
        )
    })?;
    let mut reports = Vec::new();
    for path in entries.flatten().map(|e| e.path()) {
        if path.extension().is_some_and(|e| e == "json") {
            let fail =
                |e: &dyn std::fmt::Display| Error::failed(format!("{}: {e}", path.display()));
            let bytes = std::fs::read(&path).map_err(|e| fail(&e))?;
            reports.push(serde_json::from_slice::<Report>(&bytes).map_err(|e| fail(&e))?);
        }
    }
    reports.sort_by(|a, b| a.cipher.cmp(&b.cipher));
    Ok(reports)
}

/// `reports/README.md`: every report in `dir`, with its verdict in a line.
pub fn write_index(dir: &Path) -> Result<()> {
    let reports = read_reports(dir)?;
    workspace::write_atomically(
        &dir.join("README.md"),
        report::render_index(&reports).as_bytes(),
    )
}

/// `cargo xtask render [DIR]`: renders every report's markdown and chart,
/// and the index, again from the JSON in DIR (default `reports/`), for a
/// change to the renderer; nothing is measured.
pub fn render(args: &[String]) -> Result<()> {
    let dir = match args {
        [] => workspace::root().join("reports"),
        [d] if !d.starts_with('-') => PathBuf::from(d),
        _ => {
            return Err(Error::usage(
                "usage: cargo xtask render [DIR]",
                "e.g. cargo xtask render reports",
            ));
        }
    };
    let reports = read_reports(&dir)?;
    for r in &reports {
        write(r, &dir)?;
        println!(
            "rendered {}",
            dir.join(format!("{}.md", r.cipher)).display()
        );
    }
    workspace::write_atomically(
        &dir.join("README.md"),
        report::render_index(&reports).as_bytes(),
    )
}

/// Writes the three files, each atomically.
pub fn write(report: &Report, dir: &Path) -> Result<()> {
    let base = dir.join(&report.cipher);
    let json = serde_json::to_string_pretty(report).map_err(|e| Error::failed(e.to_string()))?;
    workspace::write_atomically(&base.with_extension("json"), (json + "\n").as_bytes())?;
    if let Some(svg) = crate::chart::render(report) {
        workspace::write_atomically(&base.with_extension("svg"), svg.as_bytes())?;
    }
    workspace::write_atomically(
        &base.with_extension("md"),
        report::render(report).as_bytes(),
    )
}

/// The cases measured: ECB and CBC (or a checksum's digest), both
/// directions, the template's key sizes, the block sizes.
pub fn cases(entry: &CipherEntry, quick: bool, sizes: Option<&[usize]>) -> Vec<Case> {
    let default: &[usize] = if quick {
        &[16, 8192]
    } else {
        &[16, 256, 1420, 8192]
    };
    let bs = entry.block_size;
    let sizes: Vec<usize> = sizes
        .unwrap_or(default)
        .iter()
        .map(|s| s.div_ceil(bs) * bs)
        .collect();
    let mut out = Vec::new();
    for &(mode, keys) in entry
        .modes
        .iter()
        .filter(|(m, _)| matches!(m, Mode::Ecb | Mode::Cbc | Mode::Digest))
    {
        let keys = if quick { &keys[..1] } else { keys };
        let dirs: &[Dir] = if mode == Mode::Digest {
            &[Dir::Encrypt]
        } else {
            &Dir::BOTH
        };
        for &dir in dirs {
            for &key_bytes in keys {
                for &block_bytes in &sizes {
                    out.push(Case {
                        mode,
                        dir,
                        key_bytes,
                        block_bytes,
                    });
                }
            }
        }
    }
    out
}

/// One thing built, sized and timed: a variant or the peer, from this tree
/// or from another (`gate --against`).
pub struct Contender {
    /// Unique in a run: `never`, `rustcrypto`, `never@main`.
    pub name: String,
    pub label: String,
    /// The crate whose symbols are the cipher's.
    pub crate_name: &'static str,
    /// The artifact feature that selects it.
    pub feature: String,
    pub variant: Option<String>,
    pub peer: bool,
    pub tree: Tree,
    pub artifact: Option<Artifact>,
    pub so: Option<PathBuf>,
    pub failure: Option<String>,
    /// The fingerprint of the file the measuring process loaded.
    pub measured: Option<String>,
}

/// The variants `chosen` (and the peer, unless `no_peer`) of `entry`, from
/// `tree`, their names suffixed with `suffix`.
pub fn contenders(
    entry: &CipherEntry,
    chosen: &[&str],
    no_peer: bool,
    tree: &Tree,
    suffix: &str,
) -> Vec<Contender> {
    let mut out: Vec<Contender> = chosen
        .iter()
        .map(|v| Contender {
            name: format!("{v}{suffix}"),
            label: format!("{}-{v}{suffix}", entry.name),
            crate_name: "variants",
            feature: format!("{}-{v}", entry.name),
            variant: Some(v.to_string()),
            peer: false,
            tree: tree.clone(),
            artifact: None,
            so: None,
            failure: None,
            measured: None,
        })
        .collect();
    for peer in entry.peers.iter().filter(|_| !no_peer) {
        let mut tree = tree.clone();
        if let Some(flags) = peer.rustflags {
            // A target directory of its own: other flags would make every
            // other artifact build start over.
            let base = tree
                .target_dir
                .clone()
                .unwrap_or_else(workspace::target_dir_default);
            tree.target_dir = Some(base.join(format!("flags-{}", peer.name)));
            tree.rustflags = Some(flags.to_string());
        }
        out.push(Contender {
            name: format!("{}{suffix}", peer.name),
            label: format!("{}{suffix}", peer.label),
            crate_name: peer.crate_name,
            feature: peer.feature.to_string(),
            variant: None,
            peer: true,
            tree,
            artifact: None,
            so: None,
            failure: None,
            measured: None,
        });
    }
    out
}

/// The directory of a cipher's artifacts and measuring files, locked: one
/// compare (or gate) of a cipher at a time, since a second would overwrite
/// them. The lock lasts as long as the returned file.
pub fn work_dir(target: &Path, cipher: &str) -> Result<(PathBuf, std::fs::File)> {
    let dir = target.join("inlinelab").join(cipher);
    std::fs::create_dir_all(&dir).map_err(|e| Error::failed(format!("{}: {e}", dir.display())))?;
    let lock = std::fs::File::create(dir.join("lock"))
        .map_err(|e| Error::failed(format!("{}: {e}", dir.display())))?;
    if lock.try_lock().is_err() {
        eprintln!("waiting for another compare of {cipher} to finish ...");
        lock.lock()
            .map_err(|e| Error::failed(format!("locking {}: {e}", dir.display())))?;
    }
    Ok((dir, lock))
}

/// Builds and sizes each contender, printing a progress line per step.
pub fn build_and_size(entry: &CipherEntry, contenders: &mut [Contender], dir: &Path, steps: usize) {
    let fault = Fault::from_env();
    for (i, c) in contenders.iter_mut().enumerate() {
        eprint!("[{}/{steps}] building and sizing {} ... ", i + 1, c.label);
        let dest = dir.join(format!("{}.so", c.name));
        let feature = match &fault {
            Some(Fault::Build(v)) if *v == c.name => format!("{}-fault-injected", c.feature),
            Some(Fault::Regress(v)) if *v == c.name => format!("{},fault-extra-block", c.feature),
            _ => c.feature.clone(),
        };
        let built = artifacts::build(&c.tree, &feature, c.crate_name, &dest).and_then(|b| {
            size::read(
                &b.so,
                &b.rlib,
                c.crate_name,
                c.variant.as_deref(),
                entry.rounds,
            )
            .map(|a| (b, a))
        });
        match built {
            Ok((built, artifact)) => {
                eprintln!(
                    "{:.1}s, .text {} bytes, .so {} bytes",
                    built.seconds, artifact.text_bytes, artifact.so_bytes
                );
                c.so = Some(built.so);
                c.artifact = Some(artifact);
            }
            Err(why) => {
                eprintln!("failed");
                eprintln!("    {why}");
                c.failure = Some(why);
            }
        }
    }
}

/// How long to time, from the flags.
pub fn plan(flags: &Flags) -> Plan {
    let rounds = flags.rounds.unwrap_or(if flags.quick { 5 } else { 11 });
    let sec = flags.sec.unwrap_or(if flags.quick { 0.01 } else { 0.044 });
    Plan {
        rounds,
        batch_seconds: sec / rounds as f64,
        patience_seconds: flags
            .patience
            .unwrap_or(if flags.quick { 3.0 } else { 10.0 }),
        quiet: 0.9,
    }
}

fn compare(flags: &Flags, entry: &CipherEntry, chosen: &[&str], target: &Path) -> Result<Report> {
    let mut contenders = contenders(entry, chosen, flags.no_peer, &Tree::here(), "");
    let steps = contenders.len() + 2;
    let (dir, _lock) = work_dir(target, entry.name)?;
    build_and_size(entry, &mut contenders, &dir, steps);
    let cases = cases(entry, flags.quick, flags.sizes.as_deref());
    let plan = plan(flags);
    eprintln!(
        "[{}/{steps}] timing {} artifacts on {} cases, interleaved, {} quiet rounds wanted",
        steps - 1,
        contenders.iter().filter(|c| c.so.is_some()).count(),
        cases.len(),
        plan.rounds
    );
    let timings = measure(entry, &mut contenders, &cases, plan, &dir)?;
    eprintln!("[{steps}/{steps}] writing the report");
    Ok(analyse(flags, entry, &contenders, &cases, plan, &timings))
}

/// Runs the measuring child until it finishes, leaving out any artifact that
/// crashes it.
pub fn measure(
    entry: &CipherEntry,
    contenders: &mut [Contender],
    cases: &[Case],
    plan: Plan,
    dir: &Path,
) -> Result<Timings> {
    let fault = Fault::from_env();
    let spec_path = dir.join("spec.json");
    let out_path = dir.join("outcome.json");
    let marker = dir.join("marker");
    let check_keys = entry
        .modes
        .iter()
        .find(|(m, _)| *m == Mode::Ecb)
        .map(|(_, k)| k.to_vec())
        .unwrap_or_default();
    loop {
        let live: Vec<usize> = (0..contenders.len())
            .filter(|&i| contenders[i].so.is_some() && contenders[i].failure.is_none())
            .collect();
        if live.is_empty() {
            return Ok(Timings::empty(cases.len()));
        }
        let spec = Spec {
            cipher: entry.name.to_string(),
            engines: live
                .iter()
                .map(|&i| {
                    (
                        contenders[i].name.clone(),
                        contenders[i].so.clone().unwrap_or_default(),
                    )
                })
                .collect(),
            cases: cases.to_vec(),
            plan,
            check_keys: check_keys.clone(),
        };
        let json = serde_json::to_vec(&spec).map_err(|e| Error::failed(e.to_string()))?;
        workspace::write_atomically(&spec_path, &json)?;
        let _ = std::fs::remove_file(&out_path);
        let _ = std::fs::remove_file(&marker);
        let exe =
            std::env::current_exe().map_err(|e| Error::failed(format!("finding xtask: {e}")))?;
        let mut child = Command::new(exe);
        if let Some(Fault::Crash(v)) = &fault
            && let Some(k) = live.iter().position(|&i| contenders[i].name == *v)
        {
            child.env("INLINELAB_CRASH_ENGINE", k.to_string());
        }
        let status = child
            .arg("__measure")
            .args([&spec_path, &out_path, &marker])
            .status()
            .map_err(|e| Error::failed(format!("starting the measuring process: {e}")))?;
        if status.success() {
            let outcome: Outcome = serde_json::from_slice(
                &std::fs::read(&out_path)
                    .map_err(|e| Error::failed(format!("{}: {e}", out_path.display())))?,
            )
            .map_err(|e| Error::failed(format!("{}: {e}", out_path.display())))?;
            let mut measured = Vec::new();
            for (o, &i) in outcome.engines.iter().zip(&live) {
                let c = &mut contenders[i];
                if let Some(why) = &o.failure {
                    c.failure = Some(why.clone());
                    continue;
                }
                // What was measured must be the file that was sized.
                let sized = c.artifact.as_ref().map(|a| a.fingerprint.clone());
                c.measured = o.loaded.clone();
                if o.loaded.is_none() || o.loaded != sized {
                    c.failure = Some("the measured file differs from the sized one".into());
                }
                measured.push(i);
            }
            return Ok(Timings::new(outcome, measured, cases.len()));
        }
        // The child died: the marker names the artifact it was running.
        let culprit = std::fs::read_to_string(&marker)
            .ok()
            .and_then(|s| s.trim().parse::<usize>().ok())
            .and_then(|k| live.get(k).copied());
        let how = match status.code() {
            Some(code) => format!("exit code {code}"),
            None => format!("killed by {}", signal_of(&status)),
        };
        match culprit {
            Some(i) => {
                eprintln!(
                    "    {} crashed the measuring process ({how}); measuring the others again",
                    contenders[i].label
                );
                contenders[i].failure = Some(format!("crashed while measured ({how})"));
            }
            None => {
                return Err(Error::failed(format!(
                    "the measuring process failed ({how}) before any artifact ran"
                )));
            }
        }
    }
}

/// The samples of a run and the statistics over them: medians over the
/// rounds in which every engine ran quiet (all rounds when fewer than three
/// did), and ratios from the same rounds, paired.
pub struct Timings {
    pub outcome: Option<Outcome>,
    /// The contender index of each measured engine, in sample order.
    pub measured: Vec<usize>,
    /// The rounds used, per case.
    pub rounds_of: Vec<Vec<usize>>,
    /// Cases with fewer than three quiet rounds.
    pub uncertain: Vec<usize>,
    /// Rounds in every case, and quiet ones.
    pub total_rounds: usize,
    pub quiet_total: usize,
}

impl Timings {
    fn empty(cases: usize) -> Timings {
        Timings {
            outcome: None,
            measured: Vec::new(),
            rounds_of: vec![Vec::new(); cases],
            uncertain: Vec::new(),
            total_rounds: 0,
            quiet_total: 0,
        }
    }

    /// Timings for a run that timed nothing (`gate --no-time`): every
    /// contender that built counts as measured, with no samples.
    pub fn unmeasured(contenders: &[Contender], cases: usize) -> Timings {
        let mut t = Timings::empty(cases);
        t.measured = (0..contenders.len())
            .filter(|&i| contenders[i].failure.is_none() && contenders[i].so.is_some())
            .collect();
        t
    }

    fn new(outcome: Outcome, measured: Vec<usize>, cases: usize) -> Timings {
        let samples = &outcome.samples;
        let mut t = Timings::empty(cases);
        for c in 0..cases {
            let all = samples.iter().map(|e| e[c].len()).min().unwrap_or(0);
            let quiet = quiet_rounds(samples, c);
            t.total_rounds += all;
            t.quiet_total += quiet.len();
            t.rounds_of[c] = if quiet.len() >= 3 {
                quiet
            } else {
                t.uncertain.push(c);
                (0..all).collect()
            };
        }
        t.outcome = Some(outcome);
        t.measured = measured;
        t
    }

    /// The sample index of contender `i`, if it was measured.
    pub fn index(&self, i: usize) -> Option<usize> {
        self.measured.iter().position(|&m| m == i)
    }

    pub fn hz(&self) -> f64 {
        self.outcome.as_ref().map_or(1.0, |o| o.counter.hz)
    }

    /// Ticks per operation of engine `k` in case `c`, over the rounds used.
    pub fn ticks(&self, k: usize, c: usize) -> Vec<f64> {
        let Some(o) = &self.outcome else {
            return Vec::new();
        };
        self.rounds_of[c]
            .iter()
            .map(|&r| o.samples[k][c][r].per_op)
            .collect()
    }

    /// Speed of engine `a` over engine `b` in case `c`.
    pub fn ratio(&self, a: usize, b: usize, c: usize) -> Option<Ratio> {
        let speed = |k: usize| {
            self.ticks(k, c)
                .iter()
                .map(|t| 1.0 / t)
                .collect::<Vec<f64>>()
        };
        stats::paired_ratio(&speed(b), &speed(a))
    }

    /// Speed of engine `a` over engine `b` over every case: the mean of the
    /// per-case mean log ratios, with a t interval.
    pub fn overall(&self, a: usize, b: usize) -> Option<Ratio> {
        let speeds = |k: usize, c: usize| {
            self.ticks(k, c)
                .iter()
                .map(|t| 1.0 / t)
                .collect::<Vec<f64>>()
        };
        let per_case: Vec<stats::LogRatios> = (0..self.rounds_of.len())
            .map(|c| stats::log_ratios(&speeds(b, c), &speeds(a, c)))
            .collect::<Option<_>>()?;
        let m = per_case.len() as f64;
        let min_n = per_case.iter().map(|l| l.n).min()?;
        let mean = per_case.iter().map(|l| l.mean).sum::<f64>() / m;
        let var_sum: f64 = per_case.iter().map(|l| l.var / l.n as f64).sum();
        Some(Ratio::from_log(
            mean,
            stats::t_975(min_n - 1) * var_sum.sqrt() / m,
        ))
    }
}

/// The report from the contenders and their timings.
pub fn analyse(
    flags: &Flags,
    entry: &CipherEntry,
    contenders: &[Contender],
    cases: &[Case],
    plan: Plan,
    t: &Timings,
) -> Report {
    let mut notes = Vec::new();
    if !t.uncertain.is_empty() {
        let short: Vec<String> = t
            .uncertain
            .iter()
            .map(|&c| {
                let k = &cases[c];
                format!(
                    "{} {} {}-bit {} B",
                    k.alg(entry.name),
                    k.dir_name(),
                    k.key_bytes * 8,
                    k.block_bytes
                )
            })
            .collect();
        notes.push(format!(
            "the machine's core was shared (running below full capacity) in most rounds of {} of {} cases, so their medians come from every round and are uncertain; the ratios pair each round's batches, which ran milliseconds apart, and are less affected. Uncertain: {}.",
            short.len(),
            cases.len(),
            short.join("; ")
        ));
    }
    let base_k = contenders
        .iter()
        .position(|c| c.name == flags.baseline)
        .and_then(|i| t.index(i));
    let mut variants = Vec::new();
    let mut peers = Vec::new();
    let mut raw = String::new();
    for (i, c) in contenders.iter().enumerate() {
        let k = t.index(i).filter(|_| c.failure.is_none());
        let speed: Vec<Speed> = match k.filter(|_| t.outcome.is_some()) {
            Some(k) => cases
                .iter()
                .enumerate()
                .map(|(ci, case)| {
                    let ticks = t.ticks(k, ci);
                    let median = stats::median(&ticks);
                    Speed {
                        alg: case.alg(entry.name),
                        dir: case.dir_name().into(),
                        key_bits: case.key_bytes * 8,
                        block_bytes: case.block_bytes,
                        bytes_per_sec: case.block_bytes as f64 * t.hz() / median,
                        cycles_per_byte: median / case.block_bytes as f64,
                        spread: stats::spread(&ticks),
                        ratio: base_k.filter(|&b| b != k).and_then(|b| t.ratio(k, b, ci)),
                        rounds: ticks.len(),
                        instructions: None,
                    }
                })
                .collect(),
            None => Vec::new(),
        };
        if let Some(k) = k.filter(|_| t.outcome.is_some()) {
            raw.push_str(&raw_lines(entry, cases, &c.label, |ci| {
                stats::median(&t.ticks(k, ci))
            }));
        }
        let e = Entry {
            name: c.name.clone(),
            label: c.label.clone(),
            status: match (k, &c.failure) {
                (Some(_), _) => "ok".into(),
                (None, Some(why)) if why.contains("unavailable on this CPU") => {
                    "unavailable".into()
                }
                (None, _) => "failed".into(),
            },
            reason: if k.is_some() {
                None
            } else {
                Some(c.failure.clone().unwrap_or_else(|| "not measured".into()))
            },
            artifact: c.artifact.clone(),
            measured_fingerprint: c.measured.clone(),
            speed,
            overall: k.and_then(|k| base_k.filter(|&b| b != k).and_then(|b| t.overall(k, b))),
        };
        if c.peer {
            peers.push(e)
        } else {
            variants.push(e)
        }
    }
    let candidate = |e: &Entry| -> Option<Candidate> {
        let a = e.artifact.as_ref()?;
        if e.status != "ok" {
            return None;
        }
        let speed = if e.name == flags.baseline {
            1.0
        } else {
            e.overall.as_ref()?.ratio
        };
        Some(Candidate {
            name: e.name.clone(),
            size: a.text_bytes,
            speed,
        })
    };
    let vc: Vec<Candidate> = variants.iter().filter_map(candidate).collect();
    let pc: Vec<Candidate> = peers.iter().filter_map(candidate).collect();
    let index_of = |name: &str| {
        contenders
            .iter()
            .position(|c| c.name == name)
            .and_then(|i| t.index(i))
    };
    let faster = |a: &str, b: &str| t.overall(index_of(a)?, index_of(b)?);
    let verdict = verdict::decide(&vc, &pc, &faster, flags.threshold);
    let (commit, dirty) = workspace::git();
    let counter = t.outcome.as_ref().map(|o| o.counter.clone());
    let mut generated_by = format!("cargo xtask compare {}", entry.name);
    if flags.quick {
        generated_by.push_str(" --quick");
    }
    Report {
        schema_version: report::SCHEMA_VERSION,
        generated_by,
        cipher: entry.name.to_string(),
        machine: Machine {
            cpu: workspace::cpu(),
            counter: counter.as_ref().map_or("none".into(), |c| c.kind.clone()),
            counter_ghz: counter.as_ref().map_or(0.0, |c| c.hz / 1e9),
            core_ghz: counter.as_ref().and_then(|c| c.core_hz).map(|h| h / 1e9),
        },
        toolchain: workspace::toolchain(),
        date: workspace::today(),
        commit,
        dirty,
        run: Run {
            quick: flags.quick,
            rounds: plan.rounds,
            batch_seconds: plan.batch_seconds,
            baseline_variant: flags.baseline.clone(),
            threshold: flags.threshold,
            quiet_share: if t.total_rounds == 0 {
                0.0
            } else {
                t.quiet_total as f64 / t.total_rounds as f64
            },
            notes,
        },
        variants,
        peers,
        verdict,
        raw,
    }
}

/// A fault injected for tests through `INLINELAB_FAULT`: `build:V` makes
/// variant V's build fail (an unknown feature), `crash:V` makes the
/// measuring process abort while V runs, `regress:V` builds V with one extra
/// block of work per call (a real change to the generated code, which the
/// gate must catch). Nothing else reads it.
enum Fault {
    Build(String),
    Crash(String),
    Regress(String),
}

impl Fault {
    fn from_env() -> Option<Fault> {
        let v = std::env::var("INLINELAB_FAULT").ok()?;
        match v.split_once(':')? {
            ("build", name) => Some(Fault::Build(name.into())),
            ("crash", name) => Some(Fault::Crash(name.into())),
            ("regress", name) => Some(Fault::Regress(name.into())),
            _ => None,
        }
    }
}

fn signal_of(status: &std::process::ExitStatus) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        status
            .signal()
            .map_or("unknown".into(), |s| format!("signal {s}"))
    }
    #[cfg(not(unix))]
    {
        let _ = status;
        "unknown".into()
    }
}

/// tcrypt's cycles-mode lines for one engine from per-case median ticks
/// (the hash lines for a digest).
fn raw_lines(
    entry: &CipherEntry,
    cases: &[Case],
    driver: &str,
    median: impl Fn(usize) -> f64,
) -> String {
    use bench_harness::format;
    let mut out = String::new();
    let mut last: Option<(Mode, Dir)> = None;
    let mut test = 0;
    for (ci, c) in cases.iter().enumerate() {
        if last != Some((c.mode, c.dir)) {
            let header = match c.mode {
                Mode::Digest => format::hash_header(&c.alg(entry.name), driver),
                _ => format::cipher_header(&c.alg(entry.name), driver, c.dir),
            };
            out.push_str(&header);
            out.push('\n');
            last = Some((c.mode, c.dir));
            test = 0;
        }
        let ticks = median(ci);
        let line = match c.mode {
            Mode::Digest => format::hash_cycles(
                test,
                c.block_bytes,
                c.block_bytes,
                (ticks * 8.0).round() as u64,
            ),
            _ => format::cipher_cycles(test, c.key_bytes, c.block_bytes, ticks.round() as u64),
        };
        out.push_str(&line);
        out.push('\n');
        test += 1;
    }
    out
}
