//! What each of a crate's inline attributes is worth (`compare --crate`),
//! judged from the report's own entries at render time by the rule in
//! `decide/worth.rs`, never stored:
//! *keep* (it pays for itself), *drop* (it costs size, or speed, for
//! nothing), *no effect* (the hot path's machine code is the same, or
//! speed within the noise and the footprint moved by less than
//! `decide::worth`'s floor: a difference nobody could
//! use), or
//! *unsettled* (the interval reaches past the bar on one side and not the
//! other); for a function given `always`, *add* or *no gain*. With
//! `--also`, the crates weighed ([`weigh`]): which got the most
//! instructions, and whose decided attribute change moved speed the most.

use crate::decide::worth::{Outcome, decide};
use crate::intake::axes::POLICIES;
use crate::intake::spec::Also;
use crate::report::annotations::{Added, AlsoCrate, Annotated, Annotations};
use crate::report::{Entry, Family, Report, Status};
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

/// Which crate's attributes matter most (`--also`): the crate whose
/// functions got the most instructions in each family counted, and the
/// crate of the attribute change that measured the largest effect.
#[derive(Clone, Debug, PartialEq)]
pub struct Weighed {
    /// Each family counted by crate, with the crate (its package's name)
    /// whose functions got the most of its instructions.
    pub heaviest: Vec<(Family, String)>,
    /// Of the attribute changes the run decided (*keep* or *drop*: a row,
    /// or a crate's policy, judged by [`judge`]'s rule), the one whose
    /// speed moved the furthest from published's either way; `None` when
    /// it decided none.
    pub largest: Option<Largest>,
}

/// The decided attribute change that moved speed the most.
#[derive(Clone, Debug, PartialEq)]
pub struct Largest {
    /// Its crate: the crate measured, or an `--also` dependency.
    pub krate: String,
    pub variant: String,
    pub speed: Ratio,
    pub outcome: Outcome,
}

/// `a`'s crates weighed against each other, from the instructions counted
/// by crate (`annotations.ran`), `judged` ([`judge`]) and each crate's
/// policies judged as its rows are ([`judge_policies`]); `None` without
/// `--also`, where the crate is the only one.
pub fn weigh(r: &Report, a: &Annotations, judged: &[Judged<Annotated>]) -> Option<Weighed> {
    if a.also.is_empty() {
        return None;
    }
    let families = match a.ran.as_ref().map(|r| &r.counted) {
        Some(crate::report::ran::Observed::Families(f)) => f.as_slice(),
        _ => &[],
    };
    let heaviest = (families.iter())
        .filter_map(|f| {
            let top = f.by_crate.as_ref()?.heaviest()?;
            Some((f.family, top.krate.clone()))
        })
        .collect();
    let policies = judge_policies(r, a);
    let rows = (judged.iter()).map(|j| {
        let krate = j.row.krate.as_deref().unwrap_or(&a.krate);
        (krate, j.row.variant.as_str(), j.outcome, j.speed)
    });
    let policies = (policies.iter()).map(|(k, v, o, s)| (k.as_str(), v.as_str(), *o, *s));
    let moved = |s: &Ratio| s.ratio.max(f64::MIN_POSITIVE).ln().abs();
    let decided: Vec<(&str, &str, Outcome, Ratio)> = (rows.chain(policies))
        .filter(|c| matches!(c.2, Outcome::Keep | Outcome::Drop))
        .filter_map(|(k, v, o, s)| Some((k, v, o, s?)))
        .filter(|c| c.3.ratio.is_finite())
        .collect();
    let largest = (decided.iter().rev())
        .max_by(|x, y| moved(&x.3).total_cmp(&moved(&y.3)))
        .map(|&(krate, variant, outcome, speed)| Largest {
            krate: krate.to_string(),
            variant: variant.to_string(),
            speed,
            outcome,
        });
    Some(Weighed { heaviest, largest })
}

/// Each crate's whole-crate policies the run built (`none`, `inline`,
/// `always`, `never`; a dependency's named with its prefix: `aes_none`),
/// judged against published by [`judge`]'s rule: (crate, variant,
/// outcome, speed).
fn judge_policies(r: &Report, a: &Annotations) -> Vec<(String, String, Outcome, Option<Ratio>)> {
    let bar = r.noise().bar();
    let own = (POLICIES.iter()).map(|p| (a.krate.clone(), p.to_string()));
    let deps = (a.also.iter()).flat_map(|d| {
        let prefix = Also {
            name: d.krate.clone(),
        }
        .prefix();
        (POLICIES.iter()).map(move |p| (d.krate.clone(), format!("{prefix}_{p}")))
    });
    (own.chain(deps))
        .filter(|(_, v)| r.entries().any(|e| e.name == *v))
        .map(|(krate, variant)| {
            let j = judge_one(r, &variant, &variant, |s, size, bytes| {
                decide(s, size, bytes, bar)
            });
            let (outcome, speed) = (j.outcome, j.speed);
            (krate, variant, outcome, speed)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::Operation;
    use crate::report::ran::{ByCrate, CrateCount, FamilyRan, Observed, Ran};

    /// The decided row (*keep* or *drop*) whose speed moved the most either
    /// way names its crate (none: the crate measured); undecided rows,
    /// however far they moved, are not weighed; the heaviest crate is each
    /// family's own. Without `--also`, nothing is weighed.
    #[test]
    fn the_largest_decided_effect_and_the_heaviest_crate() {
        let row = |variant: &str, krate: Option<&str>| {
            crate::report::fixture::annotated(1, variant, krate)
        };
        let rows = [
            row("drop_1", None),
            row("aes_drop_1", Some("aes")),
            row("ghash_drop_1", Some("ghash")),
        ];
        let judged_as = |j: usize, outcome, ratio: f64| Judged {
            row: &rows[j],
            outcome,
            size_change: None,
            speed: Some(Ratio {
                ratio,
                low: ratio - 0.01,
                high: ratio + 0.01,
            }),
            status: None,
        };
        let judged = [
            judged_as(0, Outcome::Drop, 1.06),
            judged_as(1, Outcome::Keep, 0.90),
            judged_as(2, Outcome::Unsettled, 0.50),
        ];
        let family = |family, counts: [u64; 3]| FamilyRan {
            family,
            alg: "rfc4106(gcm(aes))".into(),
            dir: Operation::Encrypt,
            key_bits: 128,
            block_bytes: 8192,
            total: counts.iter().sum(),
            modules: Vec::new(),
            by_crate: Some(ByCrate {
                crates: (["aes-gcm", "aes", "ghash"].iter().zip(counts))
                    .map(|(k, count)| CrateCount {
                        krate: k.to_string(),
                        lib: k.replace('-', "_"),
                        count,
                    })
                    .collect(),
                other: 0,
            }),
        };
        let mut a = Annotations {
            krate: "aes-gcm".into(),
            version: "0.11.1".into(),
            ty: "Aes128Gcm".into(),
            written: 1,
            rows: rows.to_vec(),
            added: Vec::new(),
            backends: Vec::new(),
            cpu_features: Vec::new(),
            ran: Some(Ran {
                timed: Observed::Unavailable("-".into()),
                counted: Observed::Families(vec![
                    family(Family::Aead, [5, 900, 900]),
                    family(Family::Setkey, [1, 2, 3]),
                ]),
            }),
            patch: None,
            suggestion: None,
            also: vec![AlsoCrate {
                krate: "aes".into(),
                version: "0.9.0".into(),
                written: 1,
            }],
        };
        let mut r = crate::report::fixture::report();
        let w = weigh(&r, &a, &judged).unwrap();
        assert_eq!(
            w.heaviest,
            [
                (Family::Aead, "aes".to_string()),
                (Family::Setkey, "ghash".to_string())
            ],
            "a tie goes to the first"
        );
        let l = w.largest.unwrap();
        assert_eq!(
            (l.krate.as_str(), l.variant.as_str()),
            ("aes", "aes_drop_1")
        );
        assert_eq!(l.outcome, Outcome::Keep);
        let own = weigh(&r, &a, &judged[..1]).unwrap().largest.unwrap();
        assert_eq!(own.krate, "aes-gcm");
        assert_eq!(weigh(&r, &a, &judged[2..]).unwrap().largest, None);
        // A crate's policy is judged as a row is: the fixture's `never`
        // (-5%), once its code differs from the reference's, is the
        // crate's; named with a dependency's prefix, the dependency's.
        let never = r.variants.iter_mut().find(|e| e.name == "never").unwrap();
        never.artifact.as_mut().unwrap().hot_path_code = Some("other".into());
        let policy = |r: &Report| weigh(r, &a, &judged[2..]).unwrap().largest.unwrap();
        let l = policy(&r);
        assert_eq!((l.krate.as_str(), l.variant.as_str()), ("aes-gcm", "never"));
        assert_eq!(l.outcome, Outcome::Keep);
        r.variants[0].name = "aes_never".into();
        let l = policy(&r);
        assert_eq!((l.krate.as_str(), l.variant.as_str()), ("aes", "aes_never"));
        a.also.clear();
        assert_eq!(weigh(&r, &a, &judged), None);
    }
}
