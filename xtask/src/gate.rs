//! `cargo xtask gate [CIPHER|all]`: fails a change that makes a variant
//! bigger or slower than the baseline. Sizes are exact bytes; speed is
//! instructions per operation counted by callgrind (repeatable on noisy
//! machines), with wall-clock ratios as an advisory. `cargo xtask baseline`
//! writes the baselines it reads.

use crate::artifacts::Tree;
use crate::callgrind;
use crate::compare::{self, Contender, Flags, Timings};
use crate::error::{Error, Result};
use crate::report::{Entry, Report};
use crate::verdict::pct;
use crate::workspace;
use bench_harness::compare::Case;
use bench_harness::registry::CipherEntry;
use bench_harness::stats::Ratio;
use std::fmt::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

pub const USAGE: &str = "\
usage: cargo xtask gate [CIPHER|all] [OPTIONS]

Builds the current tree's variants and compares them with the baseline
(reports/baseline/CIPHER.json, written by cargo xtask baseline): exit 0 for
no regression, 1 for a regression, 2 for a usage or setup error.

  --baseline PATH        the baseline file (one cipher only)
  --size-threshold PCT   growth of .text, .rodata or .so that regresses (default 1)
  --speed-threshold PCT  growth of instructions per operation that regresses (default 2)
  --time-threshold PCT   wall-clock slowdown flagged when its whole 95% interval
                         lies beyond it (default 5); advisory unless --strict-time
  --strict-time          a flagged wall-clock slowdown is a regression
  --no-time              skip the wall-clock comparison
  --against REV          build REV (e.g. origin/main) in a temporary git worktree
                         and measure both trees in the same run instead of
                         reading a baseline
  --comment PATH         also write the summary (markdown) to PATH";

/// The flags of `gate`.
pub struct GateFlags {
    /// `CIPHER` or `all` (the default).
    pub cipher: String,
    /// `--baseline PATH`.
    pub baseline: Option<PathBuf>,
    /// `--size-threshold PCT`, as a fraction.
    pub size_threshold: f64,
    /// `--speed-threshold PCT`, as a fraction.
    pub speed_threshold: f64,
    /// `--time-threshold PCT`, as a fraction.
    pub time_threshold: f64,
    /// `--strict-time`.
    pub strict_time: bool,
    /// `--no-time`.
    pub no_time: bool,
    /// `--against REV`.
    pub against: Option<String>,
    /// `--comment PATH`.
    pub comment: Option<PathBuf>,
}

fn threshold(flag: &str, s: &str) -> Result<f64> {
    match s.parse::<f64>() {
        Ok(v) if v >= 0.0 && v.is_finite() => Ok(v / 100.0),
        _ => Err(Error::usage(
            format!("{flag} takes a percentage of 0 or more, not `{s}`"),
            format!("e.g. {flag} 2"),
        )),
    }
}

pub fn parse(args: &[String]) -> Result<GateFlags> {
    let mut f = GateFlags {
        cipher: String::new(),
        baseline: None,
        size_threshold: 0.01,
        speed_threshold: 0.02,
        time_threshold: 0.05,
        strict_time: false,
        no_time: false,
        against: None,
        comment: None,
    };
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let mut value = |flag: &str| {
            it.next()
                .cloned()
                .ok_or_else(|| Error::usage(format!("{flag} needs a value"), USAGE))
        };
        match arg.as_str() {
            "--baseline" => f.baseline = Some(PathBuf::from(value("--baseline")?)),
            "--size-threshold" => f.size_threshold = threshold(arg, &value(arg)?)?,
            "--speed-threshold" => f.speed_threshold = threshold(arg, &value(arg)?)?,
            "--time-threshold" => f.time_threshold = threshold(arg, &value(arg)?)?,
            "--strict-time" => f.strict_time = true,
            "--no-time" => f.no_time = true,
            "--against" => f.against = Some(value("--against")?),
            "--comment" => f.comment = Some(PathBuf::from(value("--comment")?)),
            flag if flag.starts_with('-') => {
                return Err(Error::usage(format!("unknown option `{flag}`"), USAGE));
            }
            name if f.cipher.is_empty() => f.cipher = name.to_string(),
            extra => {
                return Err(Error::usage(
                    format!("unexpected argument `{extra}`"),
                    USAGE,
                ));
            }
        }
    }
    if f.cipher.is_empty() {
        f.cipher = "all".into();
    }
    if f.baseline.is_some() && f.against.is_some() {
        return Err(Error::usage(
            "--baseline and --against are two ways to get a baseline; give one",
            USAGE,
        ));
    }
    Ok(f)
}

/// The ciphers named by `name` (`all` for every comparable one).
pub fn ciphers(name: &str) -> Result<Vec<&'static CipherEntry>> {
    let meta = workspace::metadata()?;
    let all = compare::comparable(&meta.artifact_features);
    if name == "all" {
        return Ok(all);
    }
    let names: Vec<&str> = all.iter().map(|c| c.name).collect();
    all.iter()
        .find(|c| c.name == name)
        .map(|c| vec![*c])
        .ok_or_else(|| {
            Error::usage(
                format!(
                    "unknown cipher `{name}`; expected one of: {}, all",
                    names.join(", ")
                ),
                USAGE,
            )
        })
}

pub fn baseline_path(cipher: &str) -> PathBuf {
    workspace::root()
        .join("reports")
        .join("baseline")
        .join(format!("{cipher}.json"))
}

/// Reads and checks a baseline: exit 2 for a missing, truncated, foreign or
/// other-schema file.
pub fn load_baseline(path: &Path, cipher: &str) -> Result<Report> {
    let hint = format!("create it with: cargo xtask baseline {cipher}");
    let bytes = std::fs::read(path).map_err(|e| {
        Error::usage(
            format!("no baseline at {}: {e}", path.display()),
            hint.clone(),
        )
    })?;
    let value: serde_json::Value = serde_json::from_slice(&bytes).map_err(|e| {
        Error::usage(
            format!("{} is not valid JSON (truncated?): {e}", path.display()),
            hint.clone(),
        )
    })?;
    let version = value["schema_version"].as_u64();
    if version != Some(u64::from(crate::report::SCHEMA_VERSION)) {
        return Err(Error::usage(
            format!(
                "{} has schema version {}, but this gate reads version {}",
                path.display(),
                version.map_or("none".into(), |v| v.to_string()),
                crate::report::SCHEMA_VERSION
            ),
            hint,
        ));
    }
    let report: Report = serde_json::from_value(value).map_err(|e| {
        Error::usage(
            format!("{} is not a baseline: {e}", path.display()),
            hint.clone(),
        )
    })?;
    if report.cipher != cipher {
        return Err(Error::usage(
            format!(
                "{} is a baseline for {}, not {cipher}",
                path.display(),
                report.cipher
            ),
            hint,
        ));
    }
    if !report
        .variants
        .iter()
        .flat_map(|e| &e.speed)
        .any(|s| s.instructions.is_some())
    {
        return Err(Error::usage(
            format!(
                "{} has no instruction counts: a compare report, not a baseline",
                path.display()
            ),
            hint,
        ));
    }
    Ok(report)
}

/// The cases the gate measures: the quick compare set.
fn gate_cases(entry: &CipherEntry) -> Vec<Case> {
    compare::cases(entry, true, None)
}

fn gate_flags(entry: &CipherEntry) -> Flags {
    let mut flags =
        compare::parse(&[entry.name.to_string(), "--quick".into()]).expect("fixed flags parse");
    // Ratios against the (first) peer, a reference measured in the same run.
    flags.baseline = entry
        .peers
        .first()
        .map_or(entry.baseline, |p| p.name)
        .to_string();
    flags
}

/// Builds, sizes, counts and (unless `no_time`) times `contenders`; returns
/// the report over them (ratios against the peer) and the timings.
fn measure_all(
    entry: &CipherEntry,
    contenders: &mut [Contender],
    dir: &Path,
    no_time: bool,
    generated_by: &str,
) -> Result<(Report, Timings)> {
    let cases = gate_cases(entry);
    let steps = contenders.len() + 2;
    compare::build_and_size(entry, contenders, dir, steps);
    let flags = gate_flags(entry);
    let plan = compare::plan(&flags);
    let timings = if no_time {
        None
    } else {
        eprintln!(
            "[{}/{steps}] timing, interleaved (wall clock, advisory)",
            steps - 1
        );
        Some(compare::measure(entry, contenders, &cases, plan, dir)?)
    };
    eprintln!("[{steps}/{steps}] counting instructions with callgrind");
    let mut counts = Vec::new();
    for c in contenders.iter_mut() {
        let Some(so) = c.so.clone().filter(|_| c.failure.is_none()) else {
            counts.push(None);
            continue;
        };
        match callgrind::count(&so, &cases, dir) {
            Ok(n) => counts.push(Some(n)),
            Err(why) => {
                c.failure = Some(format!("counting instructions: {why}"));
                counts.push(None);
            }
        }
    }
    let timings = timings.unwrap_or_else(|| Timings::unmeasured(contenders, cases.len()));
    let mut report = compare::analyse(&flags, entry, contenders, &cases, plan, &timings);
    report.generated_by = generated_by.to_string();
    for e in report.variants.iter_mut().chain(report.peers.iter_mut()) {
        let position = contenders.iter().position(|c| c.name == e.name);
        let Some(n) = position.and_then(|i| counts[i].as_ref()) else {
            continue;
        };
        if e.speed.is_empty() {
            e.speed = cases.iter().map(|c| blank_speed(entry, c)).collect();
        }
        for (s, &count) in e.speed.iter_mut().zip(n) {
            s.instructions = Some(count);
        }
    }
    Ok((report, timings))
}

fn blank_speed(entry: &CipherEntry, c: &Case) -> crate::report::Speed {
    crate::report::Speed {
        alg: c.alg(entry.name),
        dir: c.dir_name().into(),
        key_bits: c.key_bytes * 8,
        block_bytes: c.block_bytes,
        bytes_per_sec: 0.0,
        cycles_per_byte: 0.0,
        spread: 0.0,
        ratio: None,
        rounds: 0,
        instructions: None,
    }
}

/// `cargo xtask baseline [CIPHER|all]`.
pub fn baseline(args: &[String]) -> Result<()> {
    let name = match args {
        [] => "all".to_string(),
        [name] if !name.starts_with('-') => name.clone(),
        _ => {
            return Err(Error::usage(
                "usage: cargo xtask baseline [CIPHER|all]",
                "e.g. cargo xtask baseline cast6",
            ));
        }
    };
    let ciphers = ciphers(&name)?;
    callgrind::check()?;
    let target = workspace::metadata()?.target_dir;
    for entry in ciphers {
        let (dir, _lock) = compare::work_dir(&target, entry.name)?;
        let all: Vec<&str> = entry.variants.iter().map(|(v, _)| *v).collect();
        let mut contenders = compare::contenders(entry, &all, false, &Tree::here(), "");
        let (report, _) = measure_all(
            entry,
            &mut contenders,
            &dir,
            false,
            &format!("cargo xtask baseline {}", entry.name),
        )?;
        if let Some(bad) = report.variants.iter().find(|e| e.status != "ok") {
            return Err(Error::failed(format!(
                "{} failed ({}); no baseline written",
                bad.name,
                bad.reason.as_deref().unwrap_or("")
            )));
        }
        let path = baseline_path(entry.name);
        let json =
            serde_json::to_string_pretty(&report).map_err(|e| Error::failed(e.to_string()))? + "\n";
        workspace::write_atomically(&path, json.as_bytes())?;
        println!("baseline: {}", path.display());
    }
    Ok(())
}

/// `__instructions CIPHER SO` (internal, for tests): the gate's instruction
/// counts of one artifact, one line per case.
pub fn instructions(args: &[String]) -> Result<()> {
    let [cipher, so] = args else {
        return Err(Error::usage(
            "__instructions is internal: __instructions CIPHER SO",
            USAGE,
        ));
    };
    let entry = ciphers(cipher)?[0];
    callgrind::check()?;
    let dir = std::env::temp_dir().join(format!("inlinelab-count-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| Error::failed(e.to_string()))?;
    let counts = callgrind::count(Path::new(so), &gate_cases(entry), &dir).map_err(Error::failed);
    let _ = std::fs::remove_dir_all(&dir);
    for n in counts? {
        println!("{n}");
    }
    Ok(())
}

/// One line of the summary.
#[derive(Debug)]
pub struct Row {
    pub metric: String,
    pub baseline: String,
    pub now: String,
    pub change: String,
    pub verdict: Verdict,
}

#[derive(Debug, PartialEq, Eq, PartialOrd, Ord, Clone, Copy)]
pub enum Verdict {
    Regression,
    Advisory,
    Ok,
}

/// `cargo xtask gate`.
pub fn run(args: &[String]) -> Result<()> {
    let flags = parse(args)?;
    let ciphers = ciphers(&flags.cipher)?;
    if flags.baseline.is_some() && ciphers.len() > 1 {
        return Err(Error::usage(
            "--baseline names one file: give one cipher",
            "e.g. cargo xtask gate cast6 --baseline PATH",
        ));
    }
    callgrind::check()?;
    let mut md = String::new();
    let mut regressions = 0;
    for entry in ciphers {
        let rows = gate_one(&flags, entry)?;
        regressions += rows
            .iter()
            .filter(|r| r.verdict == Verdict::Regression)
            .count();
        md.push_str(&render(entry.name, &flags, &rows));
    }
    print!("{md}");
    if let Some(path) = &flags.comment {
        workspace::write_atomically(path, md.as_bytes())?;
    }
    if regressions > 0 {
        Err(Error::failed(format!(
            "{regressions} regression(s); see the table above"
        )))
    } else {
        Ok(())
    }
}

fn gate_one(flags: &GateFlags, entry: &'static CipherEntry) -> Result<Vec<Row>> {
    let target = workspace::metadata()?.target_dir;
    let all: Vec<&str> = entry.variants.iter().map(|(v, _)| *v).collect();
    let current_toolchain = workspace::toolchain();
    let stored = match &flags.against {
        None => {
            let path = flags
                .baseline
                .clone()
                .unwrap_or_else(|| baseline_path(entry.name));
            let base = load_baseline(&path, entry.name)?;
            if base.toolchain != current_toolchain {
                return Err(Error::usage(
                    format!(
                        "the baseline was measured with {} for {} ({}), this tree builds with {} for {} ({}): sizes and instruction counts would differ for that alone, so there is no verdict",
                        base.toolchain.rustc,
                        base.toolchain.target,
                        base.toolchain.profile,
                        current_toolchain.rustc,
                        current_toolchain.target,
                        current_toolchain.profile
                    ),
                    format!("rebuild the baseline: cargo xtask baseline {}", entry.name),
                ));
            }
            Some(base)
        }
        Some(_) => None,
    };
    let (dir, _lock) = compare::work_dir(&target, entry.name)?;
    let mut contenders = compare::contenders(entry, &all, false, &Tree::here(), "");
    let worktree = match &flags.against {
        Some(rev) => {
            let wt = Worktree::add(&target, rev)?;
            let tree = Tree {
                root: wt.path.clone(),
                target_dir: Some(target.join("against")),
                rustflags: None,
            };
            contenders.extend(compare::contenders(entry, &all, true, &tree, "@base"));
            Some(wt)
        }
        None => None,
    };
    let (now, timings) = measure_all(
        entry,
        &mut contenders,
        &dir,
        flags.no_time,
        &format!("cargo xtask gate {}", entry.name),
    )?;
    drop(worktree);
    if let Some(rev) = &flags.against
        && !now
            .variants
            .iter()
            .any(|e| e.name.ends_with("@base") && e.artifact.is_some())
    {
        let why = now
            .variants
            .iter()
            .find_map(|e| e.reason.clone().filter(|_| e.name.ends_with("@base")))
            .unwrap_or_default();
        return Err(Error::usage(
            format!(
                "no variant of `{rev}` could be built, so there is nothing to compare with: {why}"
            ),
            "compare against a revision that has the inlinelab-artifact crate, or use the committed baseline",
        ));
    }
    let mut rows = Vec::new();
    let base_entries: Vec<Entry> = match &stored {
        Some(base) => base.variants.clone(),
        None => now
            .variants
            .iter()
            .filter(|e| e.name.ends_with("@base"))
            .cloned()
            .map(|mut e| {
                e.name = e.name.trim_end_matches("@base").to_string();
                e
            })
            .collect(),
    };
    for base in base_entries.iter().filter(|e| e.status == "ok") {
        let Some(cur) = now.variants.iter().find(|e| e.name == base.name) else {
            rows.push(Row {
                metric: format!("`{}`", base.name),
                baseline: "measured".into(),
                now: "missing".into(),
                change: String::new(),
                verdict: Verdict::Regression,
            });
            continue;
        };
        let wall = if flags.no_time {
            None
        } else if stored.is_some() {
            // Both against the peer of their own run.
            match (&base.overall, &cur.overall) {
                (Some(b), Some(c)) => Some(Ratio {
                    ratio: c.ratio / b.ratio,
                    low: c.low / b.ratio,
                    high: c.high / b.ratio,
                }),
                _ => None,
            }
        } else {
            let index = |name: &str| {
                contenders
                    .iter()
                    .position(|c| c.name == name)
                    .and_then(|i| timings.index(i))
            };
            index(&cur.name)
                .zip(index(&format!("{}@base", cur.name)))
                .and_then(|(a, b)| timings.overall(a, b))
        };
        rows.extend(compare_entries(base, cur, wall, flags));
    }
    rows.sort_by_key(|r| r.verdict);
    Ok(rows)
}

/// The rows for one variant: sizes, instructions per case, wall clock.
pub fn compare_entries(
    base: &Entry,
    cur: &Entry,
    wall: Option<Ratio>,
    flags: &GateFlags,
) -> Vec<Row> {
    let name = &base.name;
    let mut rows = Vec::new();
    let (Some(ba), Some(ca)) = (&base.artifact, &cur.artifact) else {
        rows.push(Row {
            metric: format!("`{name}` build"),
            baseline: "ok".into(),
            now: cur.reason.clone().unwrap_or_else(|| "failed".into()),
            change: String::new(),
            verdict: Verdict::Regression,
        });
        return rows;
    };
    if cur.status != "ok" {
        rows.push(Row {
            metric: format!("`{name}`"),
            baseline: "ok".into(),
            now: cur.reason.clone().unwrap_or_else(|| "failed".into()),
            change: String::new(),
            verdict: Verdict::Regression,
        });
    }
    let grow = |metric: String, b: f64, c: f64, limit: f64, unit: &str| {
        let change = if b == 0.0 { 0.0 } else { c / b - 1.0 };
        Row {
            metric,
            baseline: format!("{b:.0}{unit}"),
            now: format!("{c:.0}{unit}"),
            change: format!("{:+.2}%", change * 100.0),
            verdict: if change > limit {
                Verdict::Regression
            } else {
                Verdict::Ok
            },
        }
    };
    for (what, b, c) in [
        (".text bytes", ba.text_bytes, ca.text_bytes),
        (".rodata bytes", ba.rodata_bytes, ca.rodata_bytes),
        (".so bytes", ba.so_bytes, ca.so_bytes),
    ] {
        rows.push(grow(
            format!("`{name}` {what}"),
            b as f64,
            c as f64,
            flags.size_threshold,
            "",
        ));
    }
    for bs in &base.speed {
        let Some(b) = bs.instructions else { continue };
        let found = cur.speed.iter().find(|s| {
            s.alg == bs.alg
                && s.dir == bs.dir
                && s.key_bits == bs.key_bits
                && s.block_bytes == bs.block_bytes
        });
        let metric = format!(
            "`{name}` {} {} {}-bit {} B, instructions/op",
            bs.alg, bs.dir, bs.key_bits, bs.block_bytes
        );
        match found.and_then(|s| s.instructions) {
            Some(c) => rows.push(grow(metric, b, c, flags.speed_threshold, "")),
            None => rows.push(Row {
                metric,
                baseline: format!("{b:.0}"),
                now: "not counted".into(),
                change: String::new(),
                verdict: Verdict::Regression,
            }),
        }
    }
    if let Some(w) = wall {
        let slower = w.high < 1.0 - flags.time_threshold;
        rows.push(Row {
            metric: format!("`{name}` wall-clock speed, all cases"),
            baseline: "1".into(),
            now: format!("{:.3}", w.ratio),
            change: pct(&w),
            verdict: match (slower, flags.strict_time) {
                (true, true) => Verdict::Regression,
                (true, false) => Verdict::Advisory,
                _ => Verdict::Ok,
            },
        });
    }
    rows
}

/// The summary, fit for a pull-request comment.
pub fn render(cipher: &str, flags: &GateFlags, rows: &[Row]) -> String {
    let mut md = String::new();
    let regressions = rows
        .iter()
        .filter(|r| r.verdict == Verdict::Regression)
        .count();
    let advisories = rows
        .iter()
        .filter(|r| r.verdict == Verdict::Advisory)
        .count();
    let against = match &flags.against {
        Some(rev) => format!("`{rev}`, built and measured in the same run"),
        None => format!(
            "the committed baseline `{}`",
            flags
                .baseline
                .as_ref()
                .map_or(format!("reports/baseline/{cipher}.json"), |p| p
                    .display()
                    .to_string())
        ),
    };
    let _ = writeln!(md, "## inlinelab gate: {cipher}\n");
    let _ = writeln!(
        md,
        "{} against {against}.{}\n",
        if regressions == 0 {
            "**No regression**".to_string()
        } else {
            format!("**{regressions} regression(s)**")
        },
        if advisories > 0 {
            format!(" {advisories} wall-clock slowdown(s) flagged as advisory.")
        } else {
            String::new()
        }
    );
    let _ = writeln!(
        md,
        "| metric | baseline | now | change | verdict |\n|---|---:|---:|---:|---|"
    );
    for r in rows {
        let verdict = match r.verdict {
            Verdict::Regression => "**regression**",
            Verdict::Advisory => "slower (advisory)",
            Verdict::Ok => "ok",
        };
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {verdict} |",
            r.metric, r.baseline, r.now, r.change
        );
    }
    let _ = writeln!(
        md,
        "\nThresholds: size +{:.1}%, instructions per operation +{:.1}% (callgrind, repeatable), wall clock -{:.1}% with the whole 95% interval beyond it ({}). Wall-clock speed is relative to {}.\n",
        flags.size_threshold * 100.0,
        flags.speed_threshold * 100.0,
        flags.time_threshold * 100.0,
        if flags.strict_time {
            "counts, --strict-time"
        } else {
            "advisory"
        },
        if flags.against.is_some() {
            "the base tree's same variant, paired by round"
        } else {
            "the peer (RustCrypto's crate, or the crc32c crate) timed in the same run, then to the baseline's ratio"
        }
    );
    md
}

/// A temporary git worktree of a revision, removed when dropped.
struct Worktree {
    path: PathBuf,
}

impl Worktree {
    fn add(target: &Path, rev: &str) -> Result<Worktree> {
        let commit = Command::new("git")
            .args(["rev-parse", "--verify", "--quiet"])
            .arg(format!("{rev}^{{commit}}"))
            .current_dir(workspace::root())
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
            .ok_or_else(|| {
                Error::usage(
                    format!("`{rev}` is not a revision of this repository"),
                    "e.g. --against origin/main or --against HEAD~1",
                )
            })?;
        let path = target
            .join("inlinelab")
            .join("worktrees")
            .join(&commit[..12]);
        if path.exists() {
            let _ = Command::new("git")
                .args(["worktree", "remove", "--force"])
                .arg(&path)
                .current_dir(workspace::root())
                .status();
            let _ = std::fs::remove_dir_all(&path);
        }
        let ok = Command::new("git")
            .args(["worktree", "add", "--detach", "--quiet"])
            .arg(&path)
            .arg(&commit)
            .current_dir(workspace::root())
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            return Err(Error::failed(format!(
                "git worktree add {} {commit} failed",
                path.display()
            )));
        }
        eprintln!(
            "base {rev} ({}) checked out in {}",
            &commit[..12],
            path.display()
        );
        Ok(Worktree { path })
    }
}

impl Drop for Worktree {
    fn drop(&mut self) {
        let _ = Command::new("git")
            .args(["worktree", "remove", "--force"])
            .arg(&self.path)
            .current_dir(workspace::root())
            .status();
    }
}
