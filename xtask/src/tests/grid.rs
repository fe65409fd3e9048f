//! A flag grid's report, made from a committed one: its variants and peers
//! copied under each flag set (`NAME~SET`), each set's samples scaled and
//! its footprints moved, so that what each set's pick and each inversion
//! must be is known; and what the report's files and commands do with it.

use super::synthetic::committed;
use crate::env::flags::{FlagSet, Lto, OptLevel, TargetCpu};
use crate::report::grid::{Inversion, answers};
use crate::report::{Entry, Report, round_ticks};

/// One flag set of a synthetic grid: its flags, the factor every sample's
/// ticks are multiplied by (above 1: slower), the bytes added to every
/// footprint.
struct Set {
    flags: FlagSet,
    ticks: f64,
    bytes: u64,
}

/// `base` with every entry copied under each of `sets`, in their order;
/// the reference and the A/A control the first set's. Identical code
/// stays identical within a set (`same_code_as` renamed with it).
fn grid(base: &Report, sets: &[Set]) -> Report {
    let mut r = base.clone();
    let under = |e: &Entry, s: &Set| {
        let mut e = e.clone();
        e.name = s.flags.contender(&e.name);
        e.label = s.flags.contender(&e.label);
        e.flags = Some(s.flags.name());
        e.same_code_as = e.same_code_as.as_ref().map(|n| s.flags.contender(n));
        if let Some(a) = &mut e.artifact {
            a.footprint_bytes += s.bytes;
            a.text_bytes += s.bytes;
        }
        for sp in &mut e.speed {
            for sample in &mut sp.samples {
                sample.ticks_per_op = round_ticks(sample.ticks_per_op * s.ticks);
            }
        }
        e
    };
    r.variants = (sets.iter())
        .flat_map(|s| base.variants.iter().map(move |e| under(e, s)))
        .collect();
    r.peers = (sets.iter())
        .flat_map(|s| base.peers.iter().map(move |e| under(e, s)))
        .collect();
    r.flag_sets = sets.iter().map(|s| s.flags.clone()).collect();
    r.run.reference = sets[0].flags.contender(&base.run.reference);
    if let Some(c) = &mut r.control {
        c.of = r.run.reference.clone();
    }
    r.verdict = r.decide();
    r
}

fn opt(level: OptLevel) -> FlagSet {
    FlagSet {
        opt_level: Some(level),
        ..FlagSet::default()
    }
}

fn cpu(name: &str, native: bool) -> FlagSet {
    FlagSet {
        target_cpu: Some(TargetCpu {
            name: name.into(),
            native,
        }),
        ..FlagSet::default()
    }
}

/// Under each flag set on its own, the rule picks what it picks over the
/// committed report's variants: a set's samples all scaled by one factor
/// leave every ratio within it as it was.
#[test]
fn each_flag_set_has_its_own_pick() {
    let base = committed("cast6");
    let want = base
        .decide_pick()
        .pick
        .expect("the committed report decides");
    let sets = [
        Set {
            flags: opt(OptLevel::O3),
            ticks: 1.0,
            bytes: 0,
        },
        Set {
            flags: opt(OptLevel::S),
            ticks: 1.5,
            bytes: 300,
        },
    ];
    let r = grid(&base, &sets);
    let (p, _) = answers(&r);
    assert_eq!(p.len(), 2);
    for (p, s) in p.iter().zip(&sets) {
        assert_eq!(p.pick, Some(s.flags.contender(&want)), "{}", s.flags.name());
        let peer = p.peer.as_ref().expect("a peer under each set");
        assert!(peer.0.ends_with(&s.flags.name()), "{peer:?}");
    }
}

/// A flag set whose every variant is larger and slower than another's is
/// named dominated, with an interval below 1; the other is not named.
#[test]
fn a_set_larger_and_slower_is_an_inversion() {
    let base = committed("cast6");
    let r = grid(
        &base,
        &[
            Set {
                flags: opt(OptLevel::O3),
                ticks: 1.0,
                bytes: 0,
            },
            Set {
                flags: opt(OptLevel::S),
                ticks: 1.4,
                bytes: 500,
            },
        ],
    );
    let inv = answers(&r).1;
    assert_eq!(inv.len(), 1, "{inv:?}");
    assert_eq!(
        (inv[0].kind, inv[0].set.as_str()),
        (Inversion::Dominated, "Os")
    );
    assert!(inv[0].speed.high < 1.0, "{:?}", inv[0].speed);
}

/// Smaller but slower beyond the interval: an inversion only where the
/// flags ask for speed (`native` against another CPU); an opt-level for
/// size larger than one for speed is one even at the same speed.
#[test]
fn what_the_flags_ask_for_decides_an_inversion() {
    let base = committed("cast6");
    let r = grid(
        &base,
        &[
            Set {
                flags: cpu("x86-64-v3", false),
                ticks: 1.0,
                bytes: 200,
            },
            Set {
                flags: cpu("znver3", true),
                ticks: 1.3,
                bytes: 0,
            },
        ],
    );
    let inv = answers(&r).1;
    assert_eq!(inv.len(), 1, "{inv:?}");
    assert_eq!(
        (inv[0].kind, inv[0].set.as_str()),
        (Inversion::Slower, "znver3")
    );

    // The same smaller and slower set, without `native`: not named.
    let r = grid(
        &base,
        &[
            Set {
                flags: cpu("x86-64-v3", false),
                ticks: 1.0,
                bytes: 200,
            },
            Set {
                flags: cpu("x86-64-v2", false),
                ticks: 1.3,
                bytes: 0,
            },
        ],
    );
    assert!(answers(&r).1.is_empty());

    let r = grid(
        &base,
        &[
            Set {
                flags: opt(OptLevel::O3),
                ticks: 1.0,
                bytes: 0,
            },
            Set {
                flags: opt(OptLevel::Z),
                ticks: 0.9,
                bytes: 400,
            },
        ],
    );
    let inv = answers(&r).1;
    assert_eq!(inv.len(), 1, "{inv:?}");
    assert_eq!(
        (inv[0].kind, inv[0].set.as_str()),
        (Inversion::Larger, "Oz")
    );
}

/// Identical machine code under two flag sets is one candidate of the
/// whole grid's rule: the second set's copies, marked the same code as
/// the first's, never appear in its chain.
#[test]
fn identical_code_across_flag_sets_is_one_candidate() {
    let base = committed("cast6");
    let lto = |l| FlagSet {
        lto: Some(l),
        ..FlagSet::default()
    };
    let mut r = grid(
        &base,
        &[
            Set {
                flags: lto(Lto::False),
                ticks: 1.0,
                bytes: 0,
            },
            Set {
                flags: lto(Lto::Fat),
                ticks: 1.0,
                bytes: 0,
            },
        ],
    );
    let first = lto(Lto::False);
    for e in r
        .variants
        .iter_mut()
        .filter(|e| e.flags.as_deref() == Some("lto-fat"))
    {
        let plain = e
            .name
            .split_once(crate::env::flags::SEPARATOR)
            .map(|(n, _)| n)
            .unwrap();
        let root = base.variants.iter().find(|b| b.name == plain).unwrap();
        e.same_code_as = Some(first.contender(root.same_code_as.as_deref().unwrap_or(plain)));
    }
    let v = r.decide_pick();
    assert!(v.pick.is_some_and(|p| p.ends_with("~lto-false")));
    for l in &v.chain {
        assert!(!l.candidate.ends_with("~lto-fat"), "{l:?}");
    }
}

/// The report's first screen has the grid's table, a row per flag set,
/// and names its inversions; its chart a colour per flag set. A report
/// whose entry names a flag set the report does not list is refused.
#[test]
fn a_grid_report_renders_its_table_and_is_checked() {
    let base = committed("cast6");
    let mut r = grid(
        &base,
        &[
            Set {
                flags: opt(OptLevel::O3),
                ticks: 1.0,
                bytes: 0,
            },
            Set {
                flags: opt(OptLevel::S),
                ticks: 1.4,
                bytes: 500,
            },
        ],
    );
    let md = crate::render::markdown::render(&r);
    assert!(md.contains("**Which flags and which variant.**"), "{md}");
    assert!(md.contains("| `O3` | opt-level=3 |") && md.contains("| `Os` | opt-level=s |"));
    assert!(md.contains("**Inversions**"));
    let svg = crate::render::chart::render(&r).expect("a chart");
    assert!(
        svg.contains("■ O3") && svg.contains("■ Os"),
        "no flag set in the legend"
    );
    assert!(crate::report::check::check(&r).is_ok());
    r.variants[0].flags = Some("O9".into());
    assert!(crate::report::check::check(&r).is_err());
}
