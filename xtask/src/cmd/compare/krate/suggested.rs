//! The suggested set: what the one-at-a-time variants showed, applied
//! together and measured whole. Each `drop_N` judged *drop* or *no effect*
//! removes its attribute, each `add_K` judged *add* gives its function
//! `#[inline(always)]`, and every other attribute stays as published.
//! Attributes interact (an `#[inline]` matters only while its caller is
//! inlined downstream), so the set is built, checked against the crate as
//! published like every variant, and timed in a run of its own, interleaved
//! with `published` and the first run's pick. It holds when that run's rule
//! picks it (or the same machine code, no larger); then the patch is its
//! diff, else the pick's.

use super::super::args::Args;
use super::super::pipeline;
use crate::error::{Error, Result};
use crate::intake::annotations::{Cfg, Scan};
use crate::intake::axes::{self, Change, PUBLISHED};
use crate::intake::table;
use crate::render::worth::{self, Outcome};
use crate::report::annotations::{Annotations, Suggestion, Tried};
use crate::report::{Report, Status};
use crate::select::contenders::Contender;
use crate::time::analyse::Settings;
use bench_harness::registry::CipherEntry;
use std::path::Path;

/// The suggested set's name among its run's variants; the smaller sets
/// tried beside it are `NAME_1` to `NAME_`[`MAX_TRIED`].
pub const NAME: &str = "suggested";

/// At most this many other sets: the pick with the whole set, two halves
/// and six left-out parts.
pub const MAX_TRIED: usize = 9;

/// Every name a set of the suggested run may have (each copy's path is
/// remapped in every build, so that the first run's and this run's
/// builds share their dependencies).
pub fn names() -> impl Iterator<Item = String> {
    std::iter::once(NAME.to_string()).chain((1..=MAX_TRIED).map(|k| format!("{NAME}_{k}")))
}

/// What settling the suggested set needs of the crate's run (`krate.rs`
/// gives it): the variants it made, the attributes they edit, a copy
/// made for a set, and the contenders of a run of some of them.
pub trait Run {
    /// The variants the first run made.
    fn variants(&self) -> &[axes::Variant];
    /// The default feature set's attributes, and what this target compiles.
    fn scanned(&self) -> (&Scan, &Cfg);
    /// Copies the crate for `v`, edits the copy and writes its shim; what
    /// the edits left as published, and why.
    fn write(&self, v: &axes::Variant) -> Result<Option<String>>;
    /// The entry of a run of `names` (the reference first), no peer, and
    /// its contenders.
    fn contenders(&self, names: Vec<String>) -> (&'static CipherEntry, Vec<Contender>);
    /// Where the run keeps its files.
    fn work(&self) -> &Path;
    /// Whether every contender builds under the profile (no flag grid).
    fn profile(&self) -> bool;
}

/// What settling the suggested set gave: its record, its run, the
/// variant that held, and notes for the report.
pub struct Settled {
    pub record: Suggestion,
    pub round: Report,
    pub held: Option<axes::Variant>,
    pub notes: Vec<String>,
}

/// The variants whose evidence says to apply them, in the table's order:
/// each attribute whose removal is *drop* or *no effect*, each function
/// whose `always` is *add*.
pub fn combined(r: &Report, a: &Annotations) -> Vec<String> {
    let dropped = (worth::judge(r, a).into_iter())
        .filter(|j| matches!(j.outcome, Outcome::Drop | Outcome::NoEffect))
        .map(|j| j.row.variant.clone());
    let added = (worth::judge_added(r, a).into_iter())
        .filter(|j| j.outcome == Outcome::Add)
        .map(|j| j.row.variant.clone());
    dropped.chain(added).collect()
}

/// The smaller sets tried beside the whole set `parts` (after the pick
/// with the whole set on top, when the pick is not one of them): its two halves
/// (delta debugging's first split), then, for six parts or fewer, each set
/// that leaves one part out (its complements); never the whole set, never
/// a set twice.
pub fn smaller(parts: &[String]) -> Vec<Vec<String>> {
    let mut out: Vec<Vec<String>> = Vec::new();
    if parts.len() < 2 {
        return out;
    }
    let (a, b) = parts.split_at(parts.len() / 2);
    let mut push = |set: Vec<String>| {
        if !set.is_empty() && set.len() < parts.len() && !out.contains(&set) {
            out.push(set);
        }
    };
    push(a.to_vec());
    push(b.to_vec());
    if parts.len() <= 6 {
        for i in 0..parts.len() {
            let mut set = parts.to_vec();
            set.remove(i);
            push(set);
        }
    }
    out.truncate(MAX_TRIED - 1);
    out
}

/// Builds and times the suggested set of the first run `first` (whose
/// table is `a`), with the smaller sets beside it, when it combines two
/// variants or more: `None` when it is one variant already measured whole
/// (or none: the crate as published), said on the terminal.
pub fn settle(
    args: &Args,
    run: &dyn Run,
    first: &Report,
    a: &Annotations,
    settings: &Settings,
) -> Result<Option<Settled>> {
    let combines = combined(first, a);
    let profile = run.profile();
    if combines.len() < 2 || !profile {
        eprintln!(
            "[suggested] the evidence applies {} variant(s) of the crate together ({}): {}",
            combines.len(),
            if combines.is_empty() {
                "none".to_string()
            } else {
                combines.join(", ")
            },
            if profile {
                "nothing to measure beyond the first run"
            } else {
                "a flag grid measures no suggested set"
            }
        );
        return Ok(None);
    }
    let variant_of = |name: String, parts: &[String]| axes::Variant {
        name,
        change: Change::Combined(
            (parts.iter())
                .filter_map(|n| run.variants().iter().find(|v| &v.name == n))
                .map(|v| v.change.clone())
                .collect(),
        ),
    };
    let pick = (first.verdict.pick.as_deref())
        .filter(|p| *p != PUBLISHED && run.variants().iter().any(|v| v.name == *p))
        .map(str::to_string);
    // A pick that is a policy (`inline`, `never`) with the evidence on
    // top: the policy written out per function, where the evidence
    // removes or adds an attribute.
    let on_pick = (pick.iter()).filter(|p| !combines.contains(p)).map(|p| {
        std::iter::once(p.clone())
            .chain(combines.iter().cloned())
            .collect()
    });
    let mut tried: Vec<Tried> = (on_pick
        .chain(smaller(&combines))
        .take(MAX_TRIED)
        .enumerate())
    .map(|(k, parts)| Tried {
        variant: format!("{NAME}_{}", k + 1),
        combines: parts,
    })
    .collect();
    let candidates: Vec<axes::Variant> = std::iter::once(variant_of(NAME.into(), &combines))
        .chain(
            tried
                .iter()
                .map(|x| variant_of(x.variant.clone(), &x.combines)),
        )
        .collect();
    // A set whose edits cannot be made (its copy refused) is left out,
    // said; without the whole set there is nothing to settle.
    let mut notes = Vec::new();
    let mut made_sets = Vec::new();
    for v in candidates {
        match run.write(&v) {
            Ok(note) => {
                notes.extend(note);
                made_sets.push(v);
            }
            Err(Error::Failed(why) | Error::Usage { cause: why, .. }) => {
                notes.push(format!("the set `{}` was not built: {why}", v.name));
            }
        }
    }
    let candidates = made_sets;
    if candidates.first().is_none_or(|v| v.name != NAME) {
        for n in &notes {
            eprintln!("[suggested] {}", crate::env::escape::terminal(n));
        }
        return Ok(None);
    }
    tried.retain(|x| candidates.iter().any(|v| v.name == x.variant));
    let mut names = vec![PUBLISHED.to_string()];
    names.extend(pick.clone());
    let against = names.join(" and ");
    names.extend(candidates.iter().map(|v| v.name.clone()));
    let (scan, cfg) = run.scanned();
    let edits = axes::edits(scan, cfg, &candidates[0].change);
    eprintln!(
        "[suggested] applying {} together ({} edits), and timing it whole against {against}, with {} smaller sets beside it",
        combines.join(", "),
        edits.len(),
        tried.len()
    );
    let (entry, contenders) = run.contenders(names);
    let mut second = args.clone();
    // A few contenders, not every variant: half the first run's budget.
    second.amount.budget = args.amount.budget / 2.0;
    let round = pipeline::compare(&second, settings, entry, contenders, run.work())?;
    let held = candidates.into_iter().find(|v| holds(&round, &v.name));
    notes.push(match &held {
        Some(v) => format!(
            "the suggested set's run picked {}: the patch is its diff",
            v.name
        ),
        None => format!(
            "in the suggested set's run, none of the sets tried held against {against}: the patch is the first run's pick"
        ),
    });
    if let Some(last) = notes.last() {
        eprintln!("[suggested] {}", crate::env::escape::terminal(last));
    }
    Ok(Some(Settled {
        record: Suggestion {
            variant: NAME.into(),
            combines,
            against: pick,
            edits: table::patch_edits(scan, &edits),
            tried,
            held: held.as_ref().map(|v| v.name.clone()),
        },
        round,
        held,
        notes,
    }))
}

/// Whether `name` held in `round`: the rule picked it, or it was timed as
/// the pick's machine code (the same hot path and key schedule, no larger:
/// one result).
pub fn holds(round: &Report, name: &str) -> bool {
    let Some(pick) = round.verdict.pick.as_deref() else {
        return false;
    };
    pick == name
        || round.variants.iter().any(|e| {
            e.name == name
                && e.status == Status::Screened
                && e.same_code_as.as_deref() == Some(pick)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    /// A report whose reference `auto` has 10,000 bytes of `.text`, with
    /// `name` measured at `gain` over it with `text` bytes, its own machine
    /// code unless `same`.
    fn with(r: &mut Report, name: &str, text: u64, gain: f64, same: bool) {
        let mut e = crate::report::fixture::entry(name, text, [50.0, 100.0], Some(gain));
        if !same && let Some(a) = e.artifact.as_mut() {
            a.hot_path_code = Some(format!("code of {name}"));
        }
        r.variants.push(e);
    }

    /// The evidence chooses the parts: an attribute whose removal changes
    /// no machine code, or makes the crate smaller at the same speed, is
    /// removed; one that pays is kept; an `always` that pays is added, one
    /// that gains nothing is not.
    #[test]
    fn the_evidence_chooses_the_parts() {
        use crate::report::annotations::{Added, Annotated};
        let mut r = crate::report::fixture::report();
        let reference = r.run.reference.clone();
        for e in r.variants.iter_mut().filter(|e| e.name == reference) {
            e.artifact = Some(crate::report::fixture::artifact(&reference, 10_000));
        }
        with(&mut r, "drop_1", 10_000, 0.0, true);
        with(&mut r, "drop_2", 10_000, -0.20, false);
        with(&mut r, "drop_3", 8_000, 0.0, false);
        with(&mut r, "add_1", 10_100, 0.20, false);
        with(&mut r, "add_2", 14_000, 0.0, false);
        let row = |n: usize| Annotated {
            number: n,
            function: format!("f{n}"),
            path: format!("f{n}"),
            location: format!("src/lib.rs:{n}"),
            attr: "inline".into(),
            variant: format!("drop_{n}"),
        };
        let added = |n: usize| Added {
            number: n,
            function: format!("g{n}"),
            path: format!("g{n}"),
            location: format!("src/lib.rs:{}", 10 + n),
            attr: None,
            variant: format!("add_{n}"),
        };
        let a = Annotations {
            krate: "toy".into(),
            version: "0.1.0".into(),
            ty: "Toy".into(),
            written: 3,
            rows: vec![row(1), row(2), row(3)],
            added: vec![added(1), added(2)],
            backends: Vec::new(),
            cpu_features: Vec::new(),
            ran: None,
            patch: None,
            suggestion: None,
        };
        assert_eq!(combined(&r, &a), strings(&["drop_1", "drop_3", "add_1"]));
    }

    /// A set holds when the run picks it, or when it was timed as the
    /// pick's machine code; not when it is the same code as a loser.
    #[test]
    fn a_set_holds_as_the_pick_or_its_code() {
        let mut r = crate::report::fixture::report();
        let pick = r.verdict.pick.clone().expect("the fixture picks");
        let loser = (r.variants.iter())
            .find(|e| e.name != pick)
            .map(|e| e.name.clone())
            .unwrap();
        let mut e = crate::report::fixture::entry("suggested_1", 1_000, [1.0, 1.0], None);
        e.status = Status::Screened;
        e.same_code_as = Some(pick.clone());
        r.variants.push(e.clone());
        e.name = "suggested_2".into();
        e.same_code_as = Some(loser);
        r.variants.push(e);
        assert!(holds(&r, &pick));
        assert!(holds(&r, "suggested_1"));
        assert!(!holds(&r, "suggested_2"));
        assert!(!holds(&r, "suggested_3"));
    }

    /// Halves first, then each part left out; never the whole, never a
    /// set twice; a long set only halved.
    #[test]
    fn smaller_sets_are_halves_then_complements() {
        assert!(smaller(&strings(&["drop_1"])).is_empty());
        assert_eq!(
            smaller(&strings(&["a", "b"])),
            vec![strings(&["a"]), strings(&["b"])]
        );
        assert_eq!(
            smaller(&strings(&["a", "b", "c"])),
            vec![
                strings(&["a"]),
                strings(&["b", "c"]),
                strings(&["a", "c"]),
                strings(&["a", "b"])
            ]
        );
        let long = strings(&["a", "b", "c", "d", "e", "f", "g"]);
        assert_eq!(
            smaller(&long),
            vec![strings(&["a", "b", "c"]), strings(&["d", "e", "f", "g"])]
        );
        assert!(names().count() == 1 + MAX_TRIED);
    }
}
