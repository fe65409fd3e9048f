//! The gate's rows: one variant now against before (the baseline file, or
//! the base tree): its sizes, its instructions per operation in each case
//! and its wall-clock speed, each with a verdict under the thresholds.

use crate::cli;
use crate::report::{Entry, Status};
use crate::verdict::pct;
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

    /// Growth of instructions per operation, in percent (0 to 100), that is
    /// a regression.
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
#[derive(Debug)]
pub struct Row {
    pub metric: String,
    /// The figure before: from the baseline file or the base tree.
    pub before: String,
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

/// A variant measured before and missing now.
pub fn missing(name: &str) -> Row {
    Row {
        metric: format!("`{name}`"),
        before: "measured".into(),
        now: "missing".into(),
        change: String::new(),
        verdict: Verdict::Regression,
    }
}

/// The rows for one variant: sizes, instructions per case, wall clock.
pub fn rows(before: &Entry, now: &Entry, wall: Option<Ratio>, th: &Thresholds) -> Vec<Row> {
    let name = &before.name;
    let failed = |metric: String| Row {
        metric,
        before: "ok".into(),
        now: now.reason.clone().unwrap_or_else(|| "failed".into()),
        change: String::new(),
        verdict: Verdict::Regression,
    };
    let (Some(was), Some(is)) = (&before.artifact, &now.artifact) else {
        return vec![failed(format!("`{name}` build"))];
    };
    let mut rows = Vec::new();
    if now.status != Status::Measured {
        rows.push(failed(format!("`{name}`")));
    }
    for (what, b, c) in [
        (".text bytes", was.text_bytes, is.text_bytes),
        (".rodata bytes", was.rodata_bytes, is.rodata_bytes),
        (".so bytes", was.so_bytes, is.so_bytes),
    ] {
        rows.push(grow(
            format!("`{name}` {what}"),
            b as f64,
            c as f64,
            th.size,
        ));
    }
    rows.extend(instruction_rows(before, now, th));
    if let Some(w) = wall {
        rows.push(wall_row(name, &w, th));
    }
    rows
}

/// A figure that must not grow by more than `limit` (a fraction).
fn grow(metric: String, before: f64, now: f64, limit: f64) -> Row {
    let change = if before == 0.0 {
        0.0
    } else {
        now / before - 1.0
    };
    Row {
        metric,
        before: format!("{before:.0}"),
        now: format!("{now:.0}"),
        change: format!("{:+.2}%", change * 100.0),
        verdict: if change > limit {
            Verdict::Regression
        } else {
            Verdict::Ok
        },
    }
}

/// Instructions per operation in each case counted before.
fn instruction_rows(before: &Entry, now: &Entry, th: &Thresholds) -> Vec<Row> {
    let mut rows = Vec::new();
    for bs in &before.speed {
        let Some(b) = bs.instructions else { continue };
        let metric = format!(
            "`{}` {} {} {}-bit {} B, instructions/op",
            before.name, bs.alg, bs.dir, bs.key_bits, bs.block_bytes
        );
        let found = now.speed_at(&bs.alg, &bs.dir, bs.key_bits, bs.block_bytes);
        rows.push(match found.and_then(|s| s.instructions) {
            Some(c) => grow(metric, b, c, th.speed),
            None => Row {
                metric,
                before: format!("{b:.0}"),
                now: "not counted".into(),
                change: String::new(),
                verdict: Verdict::Regression,
            },
        });
    }
    rows
}

/// Wall-clock speed now over before: flagged when the whole interval lies
/// beyond the threshold.
fn wall_row(name: &str, w: &Ratio, th: &Thresholds) -> Row {
    let slower = w.high < 1.0 - th.time;
    Row {
        metric: format!("`{name}` wall-clock speed, all cases"),
        before: "1".into(),
        now: format!("{:.3}", w.ratio),
        change: pct(w),
        verdict: match (slower, th.strict_time) {
            (true, true) => Verdict::Regression,
            (true, false) => Verdict::Advisory,
            _ => Verdict::Ok,
        },
    }
}
