//! What each of a crate's inline attributes is worth (`compare --crate`),
//! judged from the report's own entries at render time by the rule in
//! `decide/worth.rs`, never stored:
//! *keep* (it pays for itself), *drop* (it costs size, or speed, for
//! nothing), *no effect* (the hot path's machine code is the same, or
//! speed within the noise and the footprint moved by less than
//! `decide::worth`'s floor: a difference nobody could
//! use), or
//! *unsettled* (the interval reaches past the bar on one side and not the
//! other); for a function given `always`, *add* or *no gain*.

use crate::decide::worth::{Outcome, decide};
use crate::report::annotations::{Added, AlsoCrate, Annotated, Annotations};
use crate::report::{Entry, Report, Status};
use bench_harness::stats::Ratio;

/// One row, judged.
pub struct Judged<'a, R> {
    pub row: &'a R,
    pub outcome: Outcome,
    /// The footprint without it over the footprint as published, minus 1.
    pub size_change: Option<f64>,
    /// The speed without it over the speed as published, with its interval.
    pub speed: Option<Ratio>,
    /// Why it was not timed, when it was not.
    pub status: Option<Status>,
}

/// Each attribute of `a` judged from `r`'s entries against the reference.
pub fn judge<'a>(r: &Report, a: &'a Annotations) -> Vec<Judged<'a, Annotated>> {
    let bar = r.noise().bar();
    (a.rows.iter())
        .map(|row| {
            judge_one(r, row, &row.variant, |s, size, bytes| {
                decide(s, size, bytes, bar)
            })
        })
        .collect()
}

/// Each added `always` of `a` judged: *add* when its gain clears the bar
/// for its growth ([`crate::decide::verdict::Noise::bar_for`]).
pub fn judge_added<'a>(r: &Report, a: &'a Annotations) -> Vec<Judged<'a, Added>> {
    let noise = r.noise();
    (a.added.iter())
        .map(|row| {
            judge_one(r, row, &row.variant, |s, size, _| {
                let bar = noise.bar_for(((1.0 + size) * 1e6) as u64, 1_000_000);
                match (s.low > bar, s.high < bar) {
                    (true, _) => Outcome::Add,
                    (_, true) => Outcome::NoGain,
                    _ => Outcome::Unsettled,
                }
            })
        })
        .collect()
}

/// A row judged by `rule` (speed ratio and size change against the
/// reference), unless its variant has the reference's hot-path code or
/// was not timed.
fn judge_one<'a, R>(
    r: &Report,
    row: &'a R,
    variant: &str,
    rule: impl Fn(&Ratio, f64, i64) -> Outcome,
) -> Judged<'a, R> {
    let find = |n: &str| r.entries().find(|e| e.name == n);
    let reference = find(&r.run.reference);
    // Under a flag grid, the attributes are judged under its first flag
    // set, the reference's.
    let e = match r.flag_sets.first() {
        Some(set) => find(&set.contender(variant)),
        None => find(variant),
    };
    let sizes = e
        .zip(reference)
        .and_then(|(e, p)| Some((footprint(e)?, footprint(p)?)));
    let size_change = sizes.map(|(a, b)| a as f64 / b.max(1) as f64 - 1.0);
    let bytes = sizes.map_or(0, |(a, b)| a as i64 - b as i64);
    let same = e.zip(reference).is_some_and(|(e, p)| same_code(e, p));
    let speed = e.and_then(|e| e.overall);
    let outcome = match (e, speed) {
        _ if same => Outcome::NoEffect,
        (Some(e), _) if e.status != Status::Measured => Outcome::NotTimed,
        (Some(_), Some(s)) => rule(&s, size_change.unwrap_or(0.0), bytes),
        _ => Outcome::NotTimed,
    };
    Judged {
        row,
        outcome,
        size_change,
        speed,
        status: e.map(|e| e.status).filter(|s| *s != Status::Measured),
    }
}

fn footprint(e: &Entry) -> Option<u64> {
    e.artifact.as_ref().map(|a| a.footprint_bytes)
}

/// Whether two entries' hot paths are the same machine code.
fn same_code(a: &Entry, b: &Entry) -> bool {
    let code = |e: &Entry| e.artifact.as_ref().and_then(|a| a.hot_path_code.clone());
    code(a).is_some() && code(a) == code(b)
}

/// The report's first sentence: of the crate's attributes, how many pay
/// for themselves, change nothing, cost size or speed for nothing, and
/// are unsettled or untimed.
pub fn headline(a: &Annotations, judged: &[Judged<Annotated>], added: &[Judged<Added>]) -> String {
    // The crate's own attributes; its `--also` dependencies' have their
    // own sentences ([`dependency_headline`]).
    let count = |o: Outcome| {
        (judged.iter())
            .filter(|j| j.row.krate.is_none() && j.outcome == o)
            .count()
    };
    let plural = |n: usize, one: &'static str, many: &'static str| if n == 1 { one } else { many };
    let n = a.own_rows().count();
    // Always said: what pays, what changes nothing, what costs; said when
    // there are any: what is unsettled or was not timed.
    let said = [
        (Outcome::Keep, "pays for itself", "pay for themselves", true),
        (Outcome::NoEffect, "changes nothing", "change nothing", true),
        (
            Outcome::Drop,
            "costs size or speed for nothing",
            "cost size or speed for nothing",
            true,
        ),
        (Outcome::Unsettled, "unsettled", "unsettled", false),
        (Outcome::NotTimed, "not timed", "not timed", false),
    ];
    let mut parts: Vec<String> = (said.into_iter())
        .filter(|&(o, _, _, always)| always || count(o) > 0)
        .map(|(o, one, many, _)| format!("{} {}", count(o), plural(count(o), one, many)))
        .collect();
    let last = parts.pop().unwrap_or_default();
    let elsewhere = a.written.saturating_sub(n);
    let best = (added.iter())
        .filter(|j| j.outcome == Outcome::Add)
        .filter_map(|j| Some((j, j.speed?)))
        .max_by(|a, b| a.1.ratio.total_cmp(&b.1.ratio));
    let add = match best {
        Some((j, s)) => format!(
            "; adding inline(always) to {} gains {:+.1}% [{:+.1}%, {:+.1}%]",
            j.row.path,
            (s.ratio - 1.0) * 100.0,
            (s.low - 1.0) * 100.0,
            (s.high - 1.0) * 100.0
        ),
        None if !added.is_empty() => format!(
            "; inline(always) on none of the {} functions left out of line on the hot path gains past the bar",
            added.len()
        ),
        None => String::new(),
    };
    format!(
        "Of {} {}'s {n} inline {} compiled on this target{}, {} and {last}{add}.",
        a.krate,
        a.version,
        plural(n, "attribute", "attributes"),
        if elsewhere > 0 {
            format!(" ({elsewhere} more for other targets)")
        } else {
            String::new()
        },
        parts.join(", "),
    )
}

/// An `--also` dependency's sentence: of its attributes, how many pay for
/// themselves, change nothing, cost size or speed for nothing, and are
/// unsettled or untimed (its rows of `judged`).
pub fn dependency_headline(dep: &AlsoCrate, judged: &[Judged<Annotated>]) -> String {
    let own: Vec<&Judged<Annotated>> = (judged.iter())
        .filter(|j| j.row.krate.as_deref() == Some(dep.krate.as_str()))
        .collect();
    let count = |o: Outcome| own.iter().filter(|j| j.outcome == o).count();
    let n = own.len();
    let elsewhere = dep.written.saturating_sub(n);
    let mut parts = vec![
        format!("{} pay for themselves", count(Outcome::Keep)),
        format!("{} change nothing", count(Outcome::NoEffect)),
        format!("{} cost size or speed for nothing", count(Outcome::Drop)),
    ];
    for (o, word) in [
        (Outcome::Unsettled, "unsettled"),
        (Outcome::NotTimed, "not timed"),
    ] {
        if count(o) > 0 {
            parts.push(format!("{} {word}", count(o)));
        }
    }
    let last = parts.pop().unwrap_or_default();
    format!(
        "Of the dependency {} {}'s {n} inline attributes compiled on this target{}, in the crate's build: {} and {last}.",
        dep.krate,
        dep.version,
        if elsewhere > 0 {
            format!(" ({elsewhere} more for other targets)")
        } else {
            String::new()
        },
        parts.join(", "),
    )
}
