//! What each of a crate's inline attributes is worth (`compare --crate`),
//! decided from the report's own entries at render time, never stored:
//! *keep* (it pays for itself), *drop* (it costs size, or speed, for
//! nothing), *no effect* (the hot path's machine code is the same, or
//! speed within the noise and the footprint moved by less than
//! [`NO_EFFECT_BYTES`] or [`NO_EFFECT_FRACTION`]: a difference nobody could
//! use), or
//! *unsettled* (the interval reaches past the bar on one side and not the
//! other); for a function given `always`, *add* or *no gain*.

use crate::report::annotations::{Added, Annotated, Annotations};
use crate::report::{Entry, Report, Status};
use bench_harness::stats::Ratio;

/// What removing an attribute did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Without it the crate is slower beyond the bar, or larger and no
    /// faster: it pays for itself.
    Keep,
    /// Without it the crate is smaller and no slower, or faster beyond
    /// the bar: it costs size (or speed) for nothing.
    Drop,
    /// The hot path's machine code is the same with and without it, or
    /// speed did not move past the noise and the footprint not past the
    /// floor ([`NO_EFFECT_BYTES`], [`NO_EFFECT_FRACTION`]).
    NoEffect,
    /// The interval straddles the bar: more processes would decide.
    Unsettled,
    /// Its variant was not timed in full (screened, failed, unavailable),
    /// or not built (`--variants` left it out).
    NotTimed,
    /// Given `always`, the function makes the crate faster past the bar
    /// (the size cost of its growth included): add it.
    Add,
    /// Given `always`, no gain past the bar.
    NoGain,
}

impl Outcome {
    pub fn word(self) -> &'static str {
        match self {
            Outcome::Keep => "keep",
            Outcome::Drop => "drop",
            Outcome::NoEffect => "no effect",
            Outcome::Unsettled => "unsettled",
            Outcome::NotTimed => "not timed",
            Outcome::Add => "add",
            Outcome::NoGain => "no gain",
        }
    }
}

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

/// The least the footprint must move, in bytes, for an attribute whose
/// removal leaves speed within the noise to count: below it (or below
/// [`NO_EFFECT_FRACTION`] of the footprint) it is *no effect*, not a
/// saving nor a cost anyone could use.
pub const NO_EFFECT_BYTES: i64 = 64;

/// The least the footprint must move, as a fraction of it (0.5%), beside
/// [`NO_EFFECT_BYTES`].
pub const NO_EFFECT_FRACTION: f64 = 0.005;

/// The outcome of a speed ratio (without over with) and a size change (a
/// fraction, and `bytes`), against `bar` (the run's, `1 + max(threshold,
/// A/A deviation)`).
pub fn decide(speed: &Ratio, size_change: f64, bytes: i64, bar: f64) -> Outcome {
    if speed.high < 1.0 / bar {
        return Outcome::Keep;
    }
    if speed.low > bar {
        return Outcome::Drop;
    }
    let within = speed.low >= 1.0 / bar && speed.high <= bar;
    let moved = bytes.abs() >= NO_EFFECT_BYTES && size_change.abs() >= NO_EFFECT_FRACTION;
    match (within, size_change) {
        (false, _) => Outcome::Unsettled,
        (true, _) if !moved => Outcome::NoEffect,
        (true, s) if s < 0.0 => Outcome::Drop,
        (true, _) => Outcome::Keep,
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
    let count = |o: Outcome| judged.iter().filter(|j| j.outcome == o).count();
    let plural = |n: usize, one: &'static str, many: &'static str| if n == 1 { one } else { many };
    let n = a.rows.len();
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

#[cfg(test)]
mod tests {
    use super::*;

    fn r(ratio: f64, low: f64, high: f64) -> Ratio {
        Ratio { ratio, low, high }
    }

    /// Each outcome from its side of the bar (1.02 here); the size
    /// changes are of a 20,000-byte footprint.
    #[test]
    fn outcomes_by_the_bar() {
        let bar = 1.02;
        let d = |speed: Ratio, change: f64| decide(&speed, change, (change * 20_000.0) as i64, bar);
        assert_eq!(
            d(r(0.80, 0.78, 0.82), 0.0),
            Outcome::Keep,
            "slower without it"
        );
        assert_eq!(
            d(r(1.10, 1.08, 1.12), 0.3),
            Outcome::Drop,
            "faster without it"
        );
        assert_eq!(
            d(r(1.00, 0.995, 1.005), -0.2),
            Outcome::Drop,
            "smaller, no slower"
        );
        assert_eq!(
            d(r(1.00, 0.995, 1.005), 0.2),
            Outcome::Keep,
            "larger without it"
        );
        assert_eq!(d(r(1.00, 0.995, 1.005), 0.0), Outcome::NoEffect);
        assert_eq!(
            d(r(0.98, 0.95, 1.01), -0.2),
            Outcome::Unsettled,
            "straddles 1/bar"
        );
    }

    /// A footprint that moves by less than the floor (64 bytes, or 0.5% of
    /// it) at the same speed is no effect, either way; past both, it
    /// counts.
    #[test]
    fn under_the_floor_is_no_effect() {
        let bar = 1.02;
        let same = r(1.00, 0.995, 1.005);
        // cast6 0.2.0's `encrypt_block`: +16 bytes (+0.1%) without it.
        assert_eq!(decide(&same, 16.0 / 22_046.0, 16, bar), Outcome::NoEffect);
        assert_eq!(
            decide(&same, -0.004, -88, bar),
            Outcome::NoEffect,
            "under 0.5%"
        );
        assert_eq!(
            decide(&same, 0.03, 48, bar),
            Outcome::NoEffect,
            "under 64 bytes"
        );
        assert_eq!(decide(&same, 0.006, 132, bar), Outcome::Keep);
        assert_eq!(decide(&same, -0.006, -132, bar), Outcome::Drop);
    }
}
