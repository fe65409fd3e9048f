//! The gate's rows: one variant now against the baseline it is judged by
//! (and, with `--against`, against the base tree measured in the same run):
//! its sizes, its instructions per operation in each counted case (key
//! setup included) and its wall-clock speed, each with a verdict under the
//! thresholds; and the rows of a baseline file changed by the change under
//! test. Rows are keyed by the speed entries' (alg, dir, key_bits,
//! block_bytes), so that a key setup entry (`setkey`, 0 bytes) is one more
//! row like the others. The thresholds are defined here.

use crate::cli;
use crate::decide::secrets;
use crate::decide::verdict::pct;
use crate::report::secrets::Secrets;
use crate::report::{Entry, Report, Speed, Status};
use crate::select::artifact::Artifact;
use bench_harness::stats::Ratio;

/// Growth of a size, in percent, that regresses.
pub const SIZE_THRESHOLD: &str = "1";
/// Growth of instructions per operation, in percent, that regresses.
pub const SPEED_THRESHOLD: &str = "2";
/// Wall-clock slowdown, in percent, that is flagged.
pub const TIME_THRESHOLD: &str = "5";

/// How much worse is a regression (each a fraction; flags in percent).
#[derive(clap::Args, Clone, Debug)]
pub struct Thresholds {
    /// Growth of .text, .rodata or .so bytes, in percent (0 to 100), that
    /// is a regression.
    #[arg(long = "size-threshold", value_name = "PCT", value_parser = cli::percent,
          allow_negative_numbers = true, default_value = SIZE_THRESHOLD)]
    pub size: f64,

    /// Growth of instructions per operation (key setup included), in
    /// percent (0 to 100), that is a regression.
    #[arg(long = "speed-threshold", value_name = "PCT", value_parser = cli::percent,
          allow_negative_numbers = true, default_value = SPEED_THRESHOLD)]
    pub speed: f64,

    /// Wall-clock slowdown, in percent (0 to 100), flagged when its whole
    /// 95% interval lies beyond it; advisory unless --strict-time.
    #[arg(long = "time-threshold", value_name = "PCT", value_parser = cli::percent,
          allow_negative_numbers = true, default_value = TIME_THRESHOLD)]
    pub time: f64,

    /// A flagged wall-clock slowdown is a regression.
    #[arg(long)]
    pub strict_time: bool,
}

/// One line of the summary.
#[derive(Debug, Clone)]
pub struct Row {
    /// The variant it is about.
    pub variant: String,
    /// What is compared, the variant's name first: "`never` .text bytes".
    pub metric: String,
    /// The figure in the baseline the gate judges by.
    pub baseline: String,
    /// The figure of the base tree (`--against`), if it gave one.
    pub base: Option<String>,
    pub now: String,
    /// Now against the baseline.
    pub change: String,
    /// Now against the base tree.
    pub change_base: Option<String>,
    /// The larger growth of the two, as a fraction (0 where there is none).
    pub growth: f64,
    pub verdict: Severity,
    /// The row of a variant valgrind cannot run (VAES): its instructions
    /// are not counted, its speed is the wall clock's.
    pub uncounted: bool,
}

#[derive(Debug, PartialEq, Eq, PartialOrd, Ord, Clone, Copy)]
pub enum Severity {
    Regression,
    /// A wall-clock slowdown flagged, not failing (without --strict-time).
    Advisory,
    /// A figure the baseline has and this run could not measure (memcheck
    /// could not run the artifact): said, failing nothing.
    Unmeasured,
    Ok,
}

/// A row that is a regression with no figures to compare.
fn broken(variant: &str, metric: String, baseline: &str, now: String) -> Row {
    Row {
        variant: variant.to_string(),
        metric,
        baseline: baseline.to_string(),
        base: None,
        now,
        change: String::new(),
        change_base: None,
        growth: 0.0,
        verdict: Severity::Regression,
        uncounted: false,
    }
}

/// A variant in the baseline and missing now (removed or renamed).
pub fn missing(name: &str) -> Row {
    broken(
        name,
        crate::env::escape::md_code(name),
        "measured",
        "missing".into(),
    )
}

/// A variant measured now that the baseline does not have: nothing holds it
/// to anything until a baseline with it is accepted.
pub fn not_in_baseline(name: &str) -> Row {
    broken(
        name,
        crate::env::escape::md_code(name),
        "missing",
        "not in the baseline".into(),
    )
}

/// The base tree's build (or count) of a variant the base revision's
/// baseline lists failed: it cannot be compared with, which is said, never
/// dropped.
pub fn base_failed(name: &str, why: &str) -> Row {
    let mut row = broken(
        name,
        format!("{} in the base tree", crate::env::escape::md_code(name)),
        "measured",
        "n/a".into(),
    );
    row.base = Some(format!("failed: {why}"));
    row
}

/// The rows of one variant: `baseline` is its entry in the baseline judged
/// by, `base` the base tree's (with `--against`, when it was measured),
/// `now` this tree's; `cases` are the counted cases (their keys).
pub fn rows(
    baseline: &Entry,
    base: Option<&Entry>,
    now: &Entry,
    cases: &[Speed],
    wall: Option<Ratio>,
    th: &Thresholds,
) -> Vec<Row> {
    let name = &baseline.name;
    let (Some(was), Some(is)) = (&baseline.artifact, &now.artifact) else {
        let why = now.reason.clone().unwrap_or_else(|| "failed".into());
        return vec![broken(
            name,
            format!("{} build", crate::env::escape::md_code(name)),
            "ok",
            why,
        )];
    };
    let mut rows = Vec::new();
    // A variant valgrind cannot run may also be one this CPU cannot (no
    // VAES): its sizes are judged, and nothing else can be.
    let unavailable_here = now.status == Status::Unavailable && baseline.uncounted.is_some();
    if now.status != Status::Measured && !unavailable_here {
        let why = now.reason.clone().unwrap_or_else(|| "failed".into());
        rows.push(broken(name, crate::env::escape::md_code(name), "ok", why));
    }
    rows.extend(size_rows(
        name,
        was,
        base.map(|b| b.artifact.as_ref()),
        is,
        th,
    ));
    rows.extend(secrets_row(baseline, base, now));
    let counted = |e: &Entry, key: &Speed| {
        e.speed_at(&key.alg, &key.dir, key.key_bits, key.block_bytes)
            .and_then(|s| s.instructions)
    };
    // Not countable under valgrind (VAES) in the baseline: its sizes, and
    // its wall clock (a regression past the threshold, with or without
    // --strict-time: it is all that holds its speed), said in one row.
    if let Some(why) = &baseline.uncounted {
        let metric = format!("{} instructions/op", crate::env::escape::md_code(name));
        let counted_now = cases.iter().any(|key| counted(now, key).is_some());
        let mut row = broken(name, metric, "not counted", String::new());
        row.now = match (&now.uncounted, unavailable_here) {
            (_, true) => format!(
                "not run here ({})",
                now.reason.as_deref().unwrap_or("unavailable")
            ),
            (Some(why_now), false) => format!("not counted ({why_now})"),
            (None, false) if counted_now => "counted: nothing in the baseline to compare".into(),
            (None, false) => "not counted".into(),
        };
        row.base = base.map(|b| match &b.uncounted {
            Some(_) => "not counted".into(),
            None => "counted".into(),
        });
        row.change = format!("the baseline could not count it ({why})");
        row.verdict = Severity::Ok;
        row.uncounted = true;
        rows.push(row);
        if let Some(w) = wall {
            let strict = Thresholds {
                strict_time: true,
                ..th.clone()
            };
            rows.push(wall_row(name, &w, &strict));
        }
        return rows;
    }
    // Counted in no case (it failed, and said why above): one row, not one
    // per case.
    if cases.iter().all(|key| counted(now, key).is_none()) {
        let mut row = broken(
            name,
            format!("{} instructions/op", crate::env::escape::md_code(name)),
            "counted",
            match &now.uncounted {
                Some(why) => format!("not counted in any of the {} cases ({why})", cases.len()),
                None => format!("not counted in any of the {} cases", cases.len()),
            },
        );
        row.base = base.map(|_| "counted".into());
        rows.push(row);
        if let Some(w) = wall {
            rows.push(wall_row(name, &w, th));
        }
        return rows;
    }
    for key in cases {
        // A fragment of markdown: the name as code, the case (its mode
        // read from the baseline's JSON) as text.
        let metric = format!(
            "{} {}, instructions/op",
            crate::env::escape::md_code(name),
            crate::env::escape::md_text(&key.case_name())
        );
        let Some(b) = counted(baseline, key) else {
            // The baseline's trust check makes every case present.
            rows.push(broken(name, metric, "none", "baseline lacks it".into()));
            continue;
        };
        let t = base.map(|e| counted(e, key));
        rows.push(compare(name, metric, b, t, counted(now, key), th.speed));
    }
    if let Some(w) = wall {
        rows.push(wall_row(name, &w, th));
    }
    rows
}

/// The row of what memcheck saw of a variant's secrets, where the
/// baseline has it: a regression when this tree branches on or indexes by
/// a secret where the baseline did neither of that kind
/// ([`secrets::leak`]); unmeasured now (valgrind missing, a crash) is said,
/// and fails nothing. None where the baseline has no secrets (written
/// before there were).
fn secrets_row(baseline: &Entry, base: Option<&Entry>, now: &Entry) -> Option<Row> {
    let counts = |e: &Entry| e.secrets.as_ref().and_then(Secrets::counts);
    let words = |c: Option<(usize, usize)>| match c {
        Some((b, i)) => format!(
            "{b} branch{}, {i} index{}",
            if b == 1 { "" } else { "es" },
            if i == 1 { "" } else { "es" }
        ),
        None => "unmeasured".to_string(),
    };
    let was = counts(baseline);
    baseline.secrets.as_ref()?;
    let is = counts(now);
    let dependence = |(branches, indexes)| secrets::Dependence { branches, indexes };
    let leak = was
        .zip(is)
        .and_then(|(w, i)| secrets::leak(dependence(i), dependence(w)));
    let mut row = broken(
        &baseline.name,
        format!(
            "{} secret branches and indexes (memcheck)",
            crate::env::escape::md_code(&baseline.name)
        ),
        &words(was),
        words(is),
    );
    row.base = base.map(|b| words(counts(b)));
    (row.change, row.verdict) = match leak {
        Some(l) => (l.words("the baseline"), Severity::Regression),
        None if is.is_none() && was.is_none() => ("unmeasured in both".into(), Severity::Ok),
        None if is.is_none() => ("not measured now".into(), Severity::Unmeasured),
        None => ("no kind the baseline lacks".into(), Severity::Ok),
    };
    Some(row)
}

/// The size rows of variant `name`: `.text`, `.rodata` and `.so` bytes of
/// the baseline's artifact `was` against this tree's `is` (and the base
/// tree's, `Some` with `--against`: `Some(None)` when it has no artifact).
fn size_rows(
    name: &str,
    was: &Artifact,
    base: Option<Option<&Artifact>>,
    is: &Artifact,
    th: &Thresholds,
) -> Vec<Row> {
    let sizes = |a: &Artifact| [a.text_bytes, a.rodata_bytes, a.so_bytes];
    let (was, is) = (sizes(was), sizes(is));
    let base = base.map(|a| a.map(sizes));
    [".text bytes", ".rodata bytes", ".so bytes"]
        .into_iter()
        .enumerate()
        .map(|(i, what)| {
            compare(
                name,
                format!("{} {what}", crate::env::escape::md_code(name)),
                was[i] as f64,
                base.map(|b| b.map(|b| b[i] as f64)),
                Some(is[i] as f64),
                th.size,
            )
        })
        .collect()
}

/// Growth from `before` to `now` as a fraction: from 0 to anything more is
/// infinite growth, never "+0%"; a figure that is not a number is too.
pub fn growth(before: f64, now: f64) -> f64 {
    if !before.is_finite() || !now.is_finite() {
        f64::INFINITY
    } else if before > 0.0 {
        now / before - 1.0
    } else if now > before {
        f64::INFINITY
    } else {
        0.0
    }
}

fn show_growth(g: f64) -> String {
    if g.is_infinite() {
        "new".into()
    } else {
        format!("{:+.2}%", g * 100.0)
    }
}

/// A figure that must not grow by more than `limit` (a fraction) against
/// the baseline nor against the base tree (`base`: `None` without a base
/// tree, `Some(None)` when the base tree did not give it).
fn compare(
    variant: &str,
    metric: String,
    baseline: f64,
    base: Option<Option<f64>>,
    now: Option<f64>,
    limit: f64,
) -> Row {
    let Some(now) = now else {
        let mut row = broken(variant, metric, "", "not counted".into());
        row.baseline = format!("{baseline:.0}");
        row.base = base.map(|t| t.map_or("n/a".into(), |t| format!("{t:.0}")));
        return row;
    };
    let g = growth(baseline, now);
    let gb = base.map(|t| t.map(|t| growth(t, now)));
    let worst = gb.flatten().map_or(g, |gb| g.max(gb));
    Row {
        variant: variant.to_string(),
        metric,
        baseline: format!("{baseline:.0}"),
        base: base.map(|t| t.map_or("n/a".into(), |t| format!("{t:.0}"))),
        now: format!("{now:.0}"),
        change: show_growth(g),
        change_base: gb.map(|g| g.map_or(String::new(), show_growth)),
        growth: worst,
        verdict: if worst > limit {
            Severity::Regression
        } else {
            Severity::Ok
        },
        uncounted: false,
    }
}

/// Wall-clock speed now over before: flagged when the whole interval lies
/// beyond the threshold.
fn wall_row(name: &str, w: &Ratio, th: &Thresholds) -> Row {
    let slower = w.high < 1.0 - th.time;
    Row {
        variant: name.to_string(),
        metric: format!(
            "{} wall-clock speed, timed cases",
            crate::env::escape::md_code(name)
        ),
        baseline: "1".into(),
        base: None,
        now: format!("{:.3}", w.ratio),
        change: pct(w),
        change_base: None,
        growth: 0.0,
        verdict: match (slower, th.strict_time) {
            (true, true) => Severity::Regression,
            (true, false) => Severity::Advisory,
            _ => Severity::Ok,
        },
        uncounted: false,
    }
}

/// One figure a change to a baseline file changed.
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    pub metric: String,
    pub old: String,
    pub new: String,
    pub change: String,
}

/// What differs between two versions of a baseline file, in what the gate
/// judges by: each variant's presence and status, its sizes, and its
/// instructions per operation in each case (`None`: no such file).
pub fn baseline_changes(old: Option<&Report>, new: Option<&Report>) -> Vec<Change> {
    let none: &[Entry] = &[];
    let (olds, news) = (
        old.map_or(none, |r| &r.variants),
        new.map_or(none, |r| &r.variants),
    );
    let mut names: Vec<&str> = olds.iter().map(|e| e.name.as_str()).collect();
    for e in news {
        if !names.contains(&e.name.as_str()) {
            names.push(&e.name);
        }
    }
    let mut out = Vec::new();
    for name in names {
        let o = olds.iter().find(|e| e.name == name);
        let n = news.iter().find(|e| e.name == name);
        let (o, n) = match (o, n) {
            (Some(o), Some(n)) => (o, n),
            (o, n) => {
                let shown = |e: Option<&Entry>| e.map_or("absent".into(), |e| e.status.to_string());
                out.push(Change {
                    metric: crate::env::escape::md_code(name),
                    old: shown(o),
                    new: shown(n),
                    change: if n.is_some() { "added" } else { "removed" }.into(),
                });
                continue;
            }
        };
        if o.status != n.status {
            out.push(Change {
                metric: format!("{} status", crate::env::escape::md_code(name)),
                old: o.status.to_string(),
                new: n.status.to_string(),
                change: String::new(),
            });
        }
        let sizes = |e: &Entry| {
            e.artifact
                .as_ref()
                .map(|a| [a.text_bytes, a.rodata_bytes, a.so_bytes])
        };
        if let (Some(so), Some(sn)) = (sizes(o), sizes(n)) {
            for (what, a, b) in [
                (".text bytes", so[0], sn[0]),
                (".rodata bytes", so[1], sn[1]),
                (".so bytes", so[2], sn[2]),
            ] {
                if a != b {
                    out.push(number(
                        format!("{} {what}", crate::env::escape::md_code(name)),
                        Some(a as f64),
                        Some(b as f64),
                    ));
                }
            }
        }
        let mut keys: Vec<&Speed> = o.speed.iter().collect();
        for s in &n.speed {
            if !keys.iter().any(|k| crate::count::counts::same_case(k, s)) {
                keys.push(s);
            }
        }
        for k in keys {
            let count = |e: &Entry| {
                e.speed_at(&k.alg, &k.dir, k.key_bits, k.block_bytes)?
                    .instructions
            };
            let (a, b) = (count(o), count(n));
            if a != b {
                out.push(number(
                    format!(
                        "{} {}, instructions/op",
                        crate::env::escape::md_code(name),
                        crate::env::escape::md_text(&k.case_name())
                    ),
                    a,
                    b,
                ));
            }
        }
    }
    out
}

fn number(metric: String, old: Option<f64>, new: Option<f64>) -> Change {
    let shown = |v: Option<f64>| v.map_or("absent".into(), |v| format!("{v:.0}"));
    Change {
        metric,
        old: shown(old),
        new: shown(new),
        change: match (old, new) {
            (Some(a), Some(b)) => show_growth(growth(a, b)),
            _ => String::new(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A change that adds a kind of secret-dependence the baseline did not
    /// have fails; more locations of a kind it had do not; a baseline
    /// written before secrets were measured has no row.
    #[test]
    fn a_change_that_adds_a_secret_branch_fails() {
        use crate::report::secrets::Site;
        let site = |f: &str| Site {
            function: f.into(),
            offset: 0x10,
        };
        let with = |branches: usize, indexes: usize| {
            let mut e = crate::report::fixture::entry("v", 1_000, [1.0, 1.0], None);
            e.secrets = Some(Secrets::Measured {
                branches: vec![site("v::f"); branches],
                indexes: vec![site("v::g"); indexes],
            });
            e
        };
        let row = secrets_row(&with(0, 12), None, &with(1, 12)).unwrap();
        assert_eq!(row.verdict, Severity::Regression);
        assert_eq!(row.baseline, "0 branches, 12 indexes");
        assert_eq!(row.now, "1 branch, 12 indexes");
        assert!(
            row.change.contains("branches on a secret in 1 place"),
            "{}",
            row.change
        );
        let more = secrets_row(&with(0, 12), Some(&with(0, 12)), &with(0, 80)).unwrap();
        assert_eq!(more.verdict, Severity::Ok);
        assert_eq!(more.base.as_deref(), Some("0 branches, 12 indexes"));
        let mut unmeasured = with(0, 0);
        unmeasured.secrets = Some(Secrets::Unmeasured { why: "VAES".into() });
        assert_eq!(
            secrets_row(&with(0, 0), None, &unmeasured).unwrap().verdict,
            Severity::Unmeasured
        );
        // Unmeasured in the baseline too (valgrind cannot run VAES): nothing
        // new to say, and never a slowdown.
        let both = secrets_row(&unmeasured, None, &unmeasured).unwrap();
        assert_eq!(
            (both.verdict, both.change.as_str()),
            (Severity::Ok, "unmeasured in both")
        );
        let old = crate::report::fixture::entry("v", 1_000, [1.0, 1.0], None);
        assert!(secrets_row(&old, None, &with(5, 5)).is_none());
    }

    /// A figure that was 0 (or not a number) and is now more never passes
    /// as "+0%"; one that shrank is not a regression.
    #[test]
    fn growth_from_nothing_is_never_zero() {
        assert_eq!(growth(0.0, 0.0), 0.0);
        assert!(growth(0.0, 5.0).is_infinite());
        assert!(growth(-3.0, 5.0).is_infinite());
        assert!(growth(f64::NAN, 5.0).is_infinite());
        assert!(growth(100.0, 90.0) < 0.0);
        let row = compare("v", "m".into(), 0.0, None, Some(1.0), 0.01);
        assert_eq!(row.verdict, Severity::Regression);
        assert_eq!(row.change, "new");
    }

    /// Against the base tree as well as the baseline: the worse decides.
    #[test]
    fn the_worse_of_baseline_and_base_tree_decides() {
        let ok_both = compare("v", "m".into(), 100.0, Some(Some(100.0)), Some(101.0), 0.02);
        assert_eq!(ok_both.verdict, Severity::Ok);
        // The base tree got faster since the baseline; now undoes it.
        let base = compare("v", "m".into(), 100.0, Some(Some(90.0)), Some(100.0), 0.02);
        assert_eq!(base.verdict, Severity::Regression);
        assert_eq!(base.change_base.as_deref(), Some("+11.11%"));
        // Creep: within the threshold of the base tree, beyond the baseline.
        let creep = compare("v", "m".into(), 100.0, Some(Some(102.0)), Some(103.5), 0.02);
        assert_eq!(creep.verdict, Severity::Regression);
        // Not counted now is a regression, whatever the figures before.
        let lost = compare("v", "m".into(), 100.0, None, None, 0.02);
        assert_eq!(lost.verdict, Severity::Regression);
    }
    /// A variant valgrind cannot run (VAES): in the baseline and now, one
    /// row says so and passes, its sizes still judged; counted before and
    /// not now, it regresses and says why; counted now and not in the
    /// baseline, there is nothing to compare; on a CPU that cannot run it,
    /// its sizes alone; its wall clock regresses without --strict-time.
    #[test]
    fn a_variant_valgrind_cannot_run_is_judged_by_its_sizes() {
        use crate::report::fixture::entry;
        let th = Thresholds {
            size: 0.01,
            speed: 0.02,
            time: 0.05,
            strict_time: false,
        };
        let mut counted = entry("v", 1000, [10.0, 20.0], None);
        for s in &mut counted.speed {
            s.instructions = Some(100.0);
        }
        let cases = counted.speed.clone();
        let mut uncounted = entry("v", 1000, [10.0, 20.0], None);
        uncounted.uncounted = Some("under valgrind, no VAES".into());
        for s in &mut uncounted.speed {
            s.instructions = None;
        }
        let instructions = |rows: &[Row]| -> Vec<Row> {
            rows.iter()
                .filter(|r| r.metric.contains("instructions"))
                .cloned()
                .collect()
        };

        let both = rows(&uncounted, None, &uncounted, &cases, None, &th);
        let one = instructions(&both);
        assert_eq!(one.len(), 1, "{both:?}");
        assert_eq!(one[0].verdict, Severity::Ok);
        assert!(one[0].uncounted);
        assert!(one[0].now.contains("no VAES"), "{:?}", one[0]);
        assert!(both.iter().all(|r| r.verdict == Severity::Ok), "{both:?}");
        // Its sizes are still held to the baseline's.
        let mut grown = uncounted.clone();
        grown.artifact.as_mut().unwrap().text_bytes = 2000;
        let big = rows(&uncounted, None, &grown, &cases, None, &th);
        assert!(
            big.iter()
                .any(|r| r.verdict == Severity::Regression && r.metric.contains(".text")),
            "{big:?}"
        );

        let lost = rows(&counted, None, &uncounted, &cases, None, &th);
        let lost = instructions(&lost);
        assert_eq!(lost.len(), 1, "{lost:?}");
        assert_eq!(lost[0].verdict, Severity::Regression);
        assert!(lost[0].now.contains("no VAES"), "{:?}", lost[0]);

        let gained = instructions(&rows(&uncounted, None, &counted, &cases, None, &th));
        assert_eq!(gained.len(), 1, "{gained:?}");
        assert_eq!(gained[0].verdict, Severity::Ok);
        assert!(gained[0].uncounted);

        // On a CPU without its instructions: sizes judged, nothing broken.
        let mut absent = uncounted.clone();
        absent.status = Status::Unavailable;
        absent.reason = Some("needs VAES".into());
        let here = rows(&uncounted, None, &absent, &cases, None, &th);
        assert!(here.iter().all(|r| r.verdict == Severity::Ok), "{here:?}");
        assert!(
            instructions(&here)[0].now.contains("needs VAES"),
            "{here:?}"
        );
        // Its wall clock holds its speed even without --strict-time.
        let slow = Ratio {
            ratio: 0.8,
            low: 0.75,
            high: 0.85,
        };
        let walled = rows(&uncounted, None, &uncounted, &cases, Some(slow), &th);
        assert!(
            walled
                .iter()
                .any(|r| r.verdict == Severity::Regression && r.metric.contains("wall-clock")),
            "{walled:?}"
        );
    }
}
