//! The suggested set: what the one-at-a-time variants showed, applied
//! together and measured whole. Each `drop_N` judged *drop* or *no effect*
//! removes its attribute, each `add_K` judged *add* gives its function
//! `#[inline(always)]`, every other attribute stays as published; a pick
//! that is a policy (`inline`, `never`) is written out per function under
//! them (`--suggest` names the parts instead). Attributes interact (an
//! `#[inline]` matters only while its caller is inlined downstream), so:
//! with valgrind, each set is counted by callgrind before any timing and
//! the search keeps the largest sets whose parts add up
//! (`decide/interaction.rs`); the sets that pass are built, checked against
//! the crate as published like every variant, and timed in a run of their
//! own, interleaved with `published` and the first run's pick. A set holds
//! when that run's rule picks it (or the same machine code, no larger);
//! then the patch is its diff, else the pick's.

use super::super::args::Args;
use super::super::pipeline;
use crate::build::{self, Reuse};
use crate::count::callgrind::{self, Count};
use crate::count::explain;
use crate::decide::interaction::{self, Said};
use crate::decide::worth::Outcome;
use crate::error::{Error, Result};
use crate::intake::annotations::{Cfg, Scan};
use crate::intake::axes::{self, Change, PUBLISHED};
use crate::intake::table;
use crate::render::worth;
use crate::report::Report;
use crate::report::annotations::{Annotations, Counted, Screen, Suggestion, Tried, Uncounted};
use crate::select::contenders::Contender;
use crate::time::analyse::Settings;
use bench_harness::registry::CipherEntry;
use std::path::Path;

/// The suggested set's name among its run's variants; the smaller sets
/// tried beside it are `NAME_1` to `NAME_`[`MAX_TRIED`].
pub const NAME: &str = "suggested";

/// At most this many sets built besides the whole: the search's bound.
pub const MAX_TRIED: usize = 12;

/// At most this many sets that passed the screen are timed.
pub const MAX_TIMED: usize = 4;

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
    /// The suggested set's own run; `None` when the set that held is the
    /// first run's pick's machine code (`Suggestion::same_code_as`).
    pub round: Option<Report>,
    pub held: Option<axes::Variant>,
    pub notes: Vec<String>,
}

/// The variants whose evidence says to apply them, in the table's order:
/// each attribute whose removal is *drop* or *no effect*, each function
/// whose `always` is *add*.
pub fn combined(r: &Report, a: &Annotations) -> Vec<String> {
    // The crate's own attributes: a set edits the crate (an `--also`
    // dependency's rows are its own crate's evidence).
    let dropped = (worth::judge(r, a).into_iter())
        .filter(|j| j.row.krate.is_none())
        .filter(|j| matches!(j.outcome, Outcome::Drop | Outcome::NoEffect))
        .map(|j| j.row.variant.clone());
    let added = (worth::judge_added(r, a).into_iter())
        .filter(|j| j.outcome == Outcome::Add)
        .map(|j| j.row.variant.clone());
    dropped.chain(added).collect()
}

/// Without valgrind to count them first, the smaller sets timed beside
/// the whole set `parts`: its two halves (delta debugging's first split),
/// then, for six parts or fewer, each set that leaves one part out (its
/// complements); never the whole set, never a set twice.
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
/// table is `a`): the parts the evidence gives (or `--suggest`), on the
/// first run's pick when that is a policy. With valgrind, each set is
/// counted before it is timed and the search (`decide/interaction.rs`)
/// finds the largest sets whose parts add up; without it, the whole set,
/// its halves and the sets that leave one part out are all timed. `None`
/// when there is one variant to apply (already measured whole) or none,
/// said on the terminal.
pub fn settle(
    args: &Args,
    run: &dyn Run,
    first: &Report,
    a: &Annotations,
    settings: &Settings,
) -> Result<Option<Settled>> {
    let given = args.suggest.is_some();
    let parts = args.suggest.clone().unwrap_or_else(|| combined(first, a));
    // A pick that edits an `--also` dependency is no base: a set edits
    // the crate itself.
    let pick = (first.verdict.pick.as_deref())
        .filter(|p| {
            *p != PUBLISHED
                && (run.variants().iter()).any(|v| v.name == *p && v.change.dependency().is_none())
        })
        .map(str::to_string);
    // A pick that is a policy (`inline`, `never`) under the parts: the
    // policy written out per function, the parts' edits on top.
    let base = pick.clone().filter(|p| !parts.contains(p));
    let combines: Vec<String> = base.iter().cloned().chain(parts.iter().cloned()).collect();
    let profile = run.profile();
    if combines.len() < 2 || !profile {
        eprintln!(
            "[suggested] {} variant(s) of the crate to apply together ({}): {}",
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
    let mut sets = Sets {
        run,
        base: base.clone(),
        notes: Vec::new(),
    };
    let (timed, tried, screen) = match crate::count::callgrind::check() {
        Ok(_) => match screened(args, first, &mut sets, &parts)? {
            Some(found) => found,
            None => unscreened(&mut sets, &parts),
        },
        Err(_) => unscreened(&mut sets, &parts),
    };
    let mut notes = std::mem::take(&mut sets.notes);
    if timed.is_empty() {
        for n in &notes {
            eprintln!("[suggested] {}", crate::env::escape::terminal(n));
        }
        return Ok(None);
    }
    let mut names = vec![PUBLISHED.to_string()];
    names.extend(pick.clone());
    let against = names.join(" and ");
    names.extend(timed.iter().map(|v| v.name.clone()));
    let (scan, cfg) = run.scanned();
    let whole = sets.variant(NAME.into(), &parts);
    let edits = axes::edits(scan, cfg, &whole.change);
    let record = |held: Option<String>, same_code_as: Option<String>| Suggestion {
        variant: NAME.into(),
        combines: combines.clone(),
        against: pick.clone(),
        edits: table::patch_edits(scan, &edits),
        tried: tried.clone(),
        held,
        screen: screen.clone(),
        given,
        same_code_as,
    };
    // Identical machine code is one result: a set that is the first run's
    // pick's code (or published's, when that was the pick), no larger, holds
    // as the result that run measured, with no run of its own.
    let measured = pick.clone().unwrap_or_else(|| PUBLISHED.into());
    if let Some(v) = same_code(run, &measured, &timed) {
        notes.push(format!(
            "`{}` is the same machine code as `{measured}` (hot path and key schedule, addresses normalized), no larger, which the first run measured: it holds as that result, with no run of its own; the patch is its diff",
            v.name
        ));
        if let Some(last) = notes.last() {
            eprintln!("[suggested] {}", crate::env::escape::terminal(last));
        }
        return Ok(Some(Settled {
            record: record(Some(v.name.clone()), Some(measured)),
            round: None,
            held: Some(v),
            notes,
        }));
    }
    eprintln!(
        "[suggested] timing {} against {against}",
        (timed.iter())
            .map(|v| v.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    );
    let (entry, contenders) = run.contenders(names);
    let mut second = args.clone();
    // A few contenders, not every variant: half the first run's budget.
    second.amount.budget = args.amount.budget / 2.0;
    let round = pipeline::compare(&second, settings, entry, contenders, run.work())?;
    let held = timed.into_iter().find(|v| holds(&round, &v.name));
    notes.push(match &held {
        Some(v) => format!(
            "the suggested set's run picked {}: the patch is its diff",
            v.name
        ),
        None => format!(
            "in the suggested set's run, none of the sets timed held against {against}: the patch is the first run's pick"
        ),
    });
    if let Some(last) = notes.last() {
        eprintln!("[suggested] {}", crate::env::escape::terminal(last));
    }
    Ok(Some(Settled {
        record: record(held.as_ref().map(|v| v.name.clone()), None),
        round: Some(round),
        held,
        notes,
    }))
}

/// When every set of `timed` is machine code the first run measured, the
/// first of them (the largest first) whose hot path and key schedule are
/// those of its pick `measured` (addresses normalized), no larger: the
/// others being `published`'s code (which the pick beat there), a run of
/// their own would time nothing new. `None` when a set is other code, or
/// none is the pick's. Built (reusing what was) and compared as a run
/// compares its contenders (`pipeline.rs`).
fn same_code(run: &dyn Run, measured: &str, timed: &[axes::Variant]) -> Option<axes::Variant> {
    let mut names = vec![PUBLISHED.to_string()];
    if measured != PUBLISHED {
        names.push(measured.to_string());
    }
    names.extend(timed.iter().map(|v| v.name.clone()));
    let (entry, mut contenders) = run.contenders(names);
    let steps = contenders.len();
    build::build_and_size_reusing(entry, &mut contenders, run.work(), steps, Reuse::Previous);
    let code = |name: &str| {
        let b = contenders.iter().find(|c| c.name == name)?.live()?;
        Some((
            b.hot_path.clone()?,
            b.key_schedule.clone()?,
            b.artifact.footprint_bytes,
        ))
    };
    let (hot, key, size) = code(measured)?;
    let (p_hot, p_key, _) = code(PUBLISHED)?;
    let sets: Vec<_> = timed.iter().map(|v| (v, code(&v.name))).collect();
    let known = |c: &Option<(Vec<u8>, Vec<u8>, u64)>| {
        c.as_ref()
            .is_some_and(|(h, k, _)| (*h == hot && *k == key) || (*h == p_hot && *k == p_key))
    };
    if !sets.iter().all(|(_, c)| known(c)) {
        return None;
    }
    (sets.into_iter())
        .find(|(_, c)| {
            c.as_ref()
                .is_some_and(|(h, k, s)| *h == hot && *k == key && *s <= size)
        })
        .map(|(v, _)| v.clone())
}

/// The sets of a search: each built on `base`, written when made.
struct Sets<'a> {
    run: &'a dyn Run,
    base: Option<String>,
    notes: Vec<String>,
}

impl Sets<'_> {
    /// The variant `name` applying `parts` on the base.
    fn variant(&self, name: String, parts: &[String]) -> axes::Variant {
        let changes = (self.base.iter().chain(parts))
            .filter_map(|n| self.run.variants().iter().find(|v| &v.name == n))
            .map(|v| v.change.clone())
            .collect();
        axes::Variant {
            name,
            change: Change::Combined(changes),
        }
    }

    /// The parts with the base first, as a record names them.
    fn combines(&self, parts: &[String]) -> Vec<String> {
        self.base.iter().chain(parts).cloned().collect()
    }

    /// Makes the set `name` of `parts` (copy, edits, shim): its variant,
    /// or `None` with a note when its copy was refused.
    fn make(&mut self, name: String, parts: &[String]) -> Result<Option<axes::Variant>> {
        let v = self.variant(name, parts);
        match self.run.write(&v) {
            Ok(note) => {
                self.notes.extend(note);
                Ok(Some(v))
            }
            Err(Error::Failed(why) | Error::Usage { cause: why, .. }) => {
                self.notes
                    .push(format!("the set `{}` was not built: {why}", v.name));
                Ok(None)
            }
        }
    }
}

/// What a search gives: the sets to time (the whole first when it is
/// one), the sets tried beside it, and the screen.
type Searched = (Vec<axes::Variant>, Vec<Tried>, Option<Screen>);

/// Without counts: the whole set, its halves and, for six parts or
/// fewer, each set that leaves one out, all timed.
fn unscreened(sets: &mut Sets, parts: &[String]) -> Searched {
    let mut timed = Vec::new();
    let mut tried = Vec::new();
    let all = std::iter::once(parts.to_vec()).chain(smaller(parts));
    for (k, set) in all.enumerate() {
        let name = if k == 0 {
            NAME.to_string()
        } else {
            format!("{NAME}_{k}")
        };
        // A refused copy is said in the notes; a whole set refused
        // leaves nothing to settle.
        match sets.make(name, &set) {
            Ok(Some(v)) => {
                if k > 0 {
                    tried.push(Tried {
                        variant: v.name.clone(),
                        combines: sets.combines(&set),
                    });
                }
                timed.push(v);
            }
            _ if k == 0 => return (Vec::new(), Vec::new(), None),
            _ => {}
        }
    }
    (timed, tried, None)
}

/// With counts: the crate as published, the base and each part alone
/// (built in the first run) counted in the headline cases, then the whole
/// set, and the search for the largest sets whose parts add up (each set
/// built and counted as the search asks, at most [`MAX_TRIED`] besides the
/// whole). The sets that pass are timed, at most [`MAX_TIMED`], the
/// largest first; when none passes, the whole set is timed, its screen
/// said. `None` when `published` or the base cannot be counted.
fn screened(
    args: &Args,
    report: &Report,
    sets: &mut Sets,
    parts: &[String],
) -> Result<Option<Searched>> {
    let run = sets.run;
    let started = std::time::Instant::now();
    let (entry, _) = run.contenders(vec![PUBLISHED.into()]);
    let heads = explain::headline_cases(entry, &args.amount.cases(entry));
    let base = sets.base.clone().unwrap_or_else(|| PUBLISHED.into());
    let mut first: Vec<String> = vec![PUBLISHED.into()];
    first.extend(sets.base.clone());
    first.extend(parts.iter().cloned());
    let mut screen = Screen {
        cases: heads.iter().map(|c| case_label(entry, c)).collect(),
        base: base.clone(),
        // What the first run counted (a variant timed once as another's
        // machine code has that one's instructions) is not counted again.
        counts: (first.iter())
            .filter_map(|n| counted_in(report, entry, n, &heads))
            .collect(),
        uncounted: Vec::new(),
    };
    eprintln!(
        "[suggested] instructions of published, {} part(s){} in {} case(s): {} counted in the first run; then each set the search asks for",
        parts.len(),
        if sets.base.is_some() {
            format!(" and the base `{base}`")
        } else {
            String::new()
        },
        heads.len(),
        screen.counts.len()
    );
    count_into(run, &first, &heads, &mut screen);
    if screen.count(PUBLISHED).is_none() || screen.count(&base).is_none() {
        sets.notes.push(format!(
            "the suggested sets were not screened by instructions: `{}` could not be counted",
            if screen.count(PUBLISHED).is_none() {
                PUBLISHED
            } else {
                &base
            }
        ));
        return Ok(None);
    }
    let mut tried: Vec<Tried> = Vec::new();
    let mut by_set: Vec<(Vec<String>, axes::Variant)> = Vec::new();
    let mut k = 0;
    // A batch of sets (both halves of a split, every union): each made,
    // then all built together (a worker per core) and counted in one
    // valgrind run.
    let mut oracle = |batch: &[Vec<String>]| -> Vec<Said> {
        let mut asked: Vec<Option<(String, Vec<String>)>> = Vec::new();
        for set in batch {
            let whole = set.as_slice() == parts;
            if !whole && k == MAX_TRIED {
                asked.push(None);
                continue;
            }
            let name = if whole {
                NAME.to_string()
            } else {
                k += 1;
                format!("{NAME}_{k}")
            };
            let combines = sets.combines(set);
            if !whole {
                tried.push(Tried {
                    variant: name.clone(),
                    combines: combines.clone(),
                });
            }
            match sets.make(name.clone(), set) {
                Ok(Some(v)) => {
                    by_set.push((set.clone(), v));
                    asked.push(Some((name, combines)));
                }
                // Refused (said in the notes): it cannot pass.
                _ => {
                    screen.uncounted.push(Uncounted {
                        variant: name,
                        why: "not built: its copy was refused (see the notes)".into(),
                    });
                    asked.push(Some((String::new(), combines)));
                }
            }
        }
        let mut names = vec![PUBLISHED.to_string()];
        names.extend(
            asked
                .iter()
                .flatten()
                .map(|(n, _)| n.clone())
                .filter(|n| !n.is_empty()),
        );
        count_into(run, &names, &heads, &mut screen);
        (asked.iter())
            .map(|a| match a {
                None => Said::Spent,
                Some((name, _)) if name.is_empty() => Said::Fails,
                Some((name, combines)) => match screen.passed(PUBLISHED, name, combines) {
                    Some(false) => Said::Fails,
                    // Counted and within its parts, or not counted (this
                    // CPU's code under valgrind): timing decides.
                    Some(true) | None => Said::Passes,
                },
            })
            .collect()
    };
    let found = interaction::search(parts, &mut oracle);
    let mut timed: Vec<axes::Variant> = (found.iter())
        .filter_map(|f| by_set.iter().find(|(s, _)| s == f).map(|(_, v)| v.clone()))
        .take(MAX_TIMED)
        .collect();
    if found.is_empty()
        && let Some((_, v)) = by_set.iter().find(|(s, _)| s == parts)
    {
        sets.notes.push(format!(
            "no set passed the instruction screen (each cost more than its parts did alone); `{NAME}` is timed all the same"
        ));
        timed.push(v.clone());
    }
    eprintln!(
        "[suggested] {} set(s) built and counted besides the whole in {:.0} s; {} passed the screen",
        tried.len(),
        started.elapsed().as_secs_f64(),
        found.len()
    );
    Ok(Some((timed, tried, Some(screen))))
}

/// `name`'s instructions in `heads` and footprint, as the run `report`
/// counted and sized them (its own, or those of the variant it was timed
/// once as: the same machine code); `None` when a case was not counted.
fn counted_in(
    report: &Report,
    entry: &CipherEntry,
    name: &str,
    heads: &[bench_harness::sampling::Case],
) -> Option<Counted> {
    let find = |n: &str| report.variants.iter().find(|e| e.name == n);
    let e = find(name)?;
    let timed = e.timed_as().map_or(Some(e), find)?;
    let instructions = (heads.iter())
        .map(|c| {
            let case = crate::report::Speed::uncounted(entry, c);
            (timed.speed.iter())
                .find(|s| crate::count::counts::same_case(s, &case))?
                .instructions
        })
        .collect::<Option<Vec<f64>>>()?;
    Some(Counted {
        variant: name.to_string(),
        instructions,
        footprint: Some(e.artifact.as_ref()?.footprint_bytes),
    })
}

/// `ecb(toy) encrypt 128-bit 8192 B`, `setkey(toy) 128-bit`, `sha1
/// digest 8192 B`.
fn case_label(entry: &CipherEntry, c: &bench_harness::sampling::Case) -> String {
    let s = crate::report::Speed::uncounted(entry, c);
    if c.block_bytes == 0 {
        format!("{} {}-bit", s.alg, s.key_bits)
    } else if s.key_bits == 0 {
        format!("{} {} {} B", s.alg, s.dir, s.block_bytes)
    } else {
        format!("{} {} {}-bit {} B", s.alg, s.dir, s.key_bits, s.block_bytes)
    }
}

/// Builds (reusing) and counts `names` not yet in `screen` in `heads`,
/// recording each count, or why there is none.
fn count_into(
    run: &dyn Run,
    names: &[String],
    heads: &[bench_harness::sampling::Case],
    screen: &mut Screen,
) {
    let fresh: Vec<String> = (names.iter())
        .filter(|n| screen.count(n).is_none() && !screen.uncounted.iter().any(|u| &u.variant == *n))
        .cloned()
        .collect();
    if fresh.is_empty() {
        return;
    }
    let mut all = vec![PUBLISHED.to_string()];
    all.extend(fresh.iter().filter(|n| *n != PUBLISHED).cloned());
    let (entry, mut contenders) = run.contenders(all);
    contenders.retain(|c| fresh.contains(&c.name));
    let steps = contenders.len();
    build::build_and_size_reusing(entry, &mut contenders, run.work(), steps, Reuse::Previous);
    let artifacts: Vec<(String, std::path::PathBuf)> = (contenders.iter())
        .filter_map(|c| Some((c.name.clone(), c.live()?.so.clone())))
        .collect();
    let footprint = |name: &str| {
        (contenders.iter())
            .find(|c| c.name == name)
            .and_then(|c| Some(c.live()?.artifact.footprint_bytes))
    };
    let counts = callgrind::count(&artifacts, heads, run.work());
    for name in &fresh {
        let why = match artifacts.iter().position(|(n, _)| n == name) {
            None => "not built".to_string(),
            Some(i) => match &counts[i] {
                Count::Counted(n) => {
                    screen.counts.push(Counted {
                        variant: name.clone(),
                        instructions: n.clone(),
                        footprint: footprint(name),
                    });
                    continue;
                }
                Count::Unavailable(why) | Count::Failed(why) | Count::Hung(why) => why.clone(),
            },
        };
        screen.uncounted.push(Uncounted {
            variant: name.clone(),
            why,
        });
    }
}

/// Whether `name` held in `round`: the rule picked it, or it was timed
/// once as the pick (the same hot path and key schedule, no larger: one
/// result).
pub fn holds(round: &Report, name: &str) -> bool {
    let Some(pick) = round.verdict.pick.as_deref() else {
        return false;
    };
    pick == name || (round.variants.iter()).any(|e| e.name == name && e.timed_as() == Some(pick))
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
            krate: None,
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
            also: Vec::new(),
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
        e.status = crate::report::Status::Screened;
        e.reason = Some(crate::report::same_code_reason(&pick));
        // Its hot path alone is the same as another's: no matter.
        e.same_code_as = Some(loser.clone());
        r.variants.push(e.clone());
        e.name = "suggested_2".into();
        e.reason = Some(crate::report::same_code_reason(&loser));
        e.same_code_as = Some(pick.clone());
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
