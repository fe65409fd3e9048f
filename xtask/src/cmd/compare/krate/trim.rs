//! The patch trimmed to what changes machine code: a policy written out
//! per function (`always` on every function of the crate) edits functions
//! no call reaches (a `Debug::fmt`, a backend this target never builds
//! into the hot path), and a maintainer cannot tell those edits from the
//! ones that matter. The edits whose function no build reaches are left
//! out: reached is what the hot path's symbols name, and each callee of a
//! call LLVM's inlining remarks name from a reached caller or from one
//! outside the crate (`intake/axes.rs`'s `reachable` and `reached`, over
//! the builds of the crate as published and of the set); the set without
//! them is built
//! whole: it is the patch only when its hot path and key schedule are the
//! set's machine code, no larger. Identical machine code is one result, so
//! the trimmed set carries the set's figures; otherwise the patch stays
//! the whole set, said in the notes. A dependency's set (`--also`) is
//! never trimmed (the remarks name the crate's own functions only), said
//! in the notes too.

use super::suggested::Run;
use crate::build::{self, Reuse};
use crate::error::Result;
use crate::intake::axes::{self, Change, PUBLISHED};
use crate::intake::table;
use crate::report::annotations::Trimmed;

/// The trimmed set's name among the run's variants.
pub const NAME: &str = "trimmed";

/// What trimming `v` gave: the trimmed variant (its copy written) and the
/// patch's record of it, or `None` with a note when there was nothing to
/// leave out or the set without those edits is other machine code.
pub struct Outcome {
    pub trimmed: Option<(axes::Variant, Trimmed)>,
    pub note: Option<String>,
}

/// Trims `v` (a variant of the run, built): see the module's comment.
pub fn trim(run: &dyn Run, v: &axes::Variant) -> Result<Outcome> {
    let nothing = Outcome {
        trimmed: None,
        note: None,
    };
    if v.change == Change::Published {
        return Ok(nothing);
    }
    if v.change.dependency().is_some() {
        // The remarks read are of calls to the crate's own functions
        // (`build/remarks.rs`): which of a dependency's functions no build
        // reaches is not known, so none of its edits is left out.
        return Ok(Outcome {
            trimmed: None,
            note: Some(format!(
                "the patch is all of `{}`'s edits, untrimmed: it edits a dependency, and the inlining remarks read are of calls to the crate's own functions, so which of the dependency's functions no build reaches is not known",
                v.name
            )),
        });
    }
    let (scan, cfg) = run.scanned();
    let edits = axes::edits(scan, cfg, &v.change);
    let builds = built(run, &[PUBLISHED, v.name.as_str()]);
    let [Some(published), Some(set)] = [&builds[0], &builds[1]] else {
        return Ok(nothing);
    };
    let calls: Vec<(String, String)> = (published.calls.iter())
        .chain(&set.calls)
        .cloned()
        .collect();
    let hot: Vec<String> = (published.hot.iter()).chain(&set.hot).cloned().collect();
    let names = axes::reachable(scan, &calls, &hot);
    let kept = axes::reached(scan, &edits, &names);
    if kept.len() == edits.len() || kept.is_empty() {
        return Ok(nothing);
    }
    let left: Vec<_> = (edits.iter().enumerate())
        .filter(|(i, _)| !kept.contains(i))
        .map(|(_, e)| *e)
        .collect();
    let trimmed = axes::Variant {
        name: NAME.into(),
        change: Change::Only {
            of: Box::new(v.change.clone()),
            kept,
        },
    };
    eprintln!(
        "[trim] {} of `{}`'s {} edits touch functions no build reaches: building the set without them ...",
        left.len(),
        v.name,
        edits.len()
    );
    run.write(&trimmed)?;
    let builds = built(run, &[v.name.as_str(), NAME]);
    let same = match (&builds[0], &builds[1]) {
        (Some(a), Some(b)) => {
            a.hot_path.is_some()
                && a.key_schedule.is_some()
                && a.hot_path == b.hot_path
                && a.key_schedule == b.key_schedule
                && b.footprint <= a.footprint
        }
        _ => false,
    };
    let functions = left.len();
    if !same {
        let note = format!(
            "the patch keeps all of `{}`'s {} edits: without the {functions} to functions no build reaches, the set built whole is other machine code (or did not build)",
            v.name,
            edits.len()
        );
        eprintln!("[trim] {}", crate::env::escape::terminal(&note));
        return Ok(Outcome {
            trimmed: None,
            note: Some(note),
        });
    }
    let note = format!(
        "the patch leaves out {functions} of `{}`'s {} edits, to functions no build reaches (no call LLVM's inlining remarks name from a function reached, nor the hot path): `{NAME}`, the set without them, built whole, is `{}`'s machine code (hot path and key schedule), no larger",
        v.name,
        edits.len(),
        v.name
    );
    eprintln!("[trim] {}", crate::env::escape::terminal(&note));
    let record = Trimmed {
        of: v.name.clone(),
        left_out: table::patch_edits(scan, &left),
    };
    Ok(Outcome {
        trimmed: Some((trimmed, record)),
        note: Some(note),
    })
}

/// What trimming reads of a build: its normalized hot path and key
/// schedule, its footprint, the calls its inlining remarks name (caller,
/// callee) and the functions on its hot path, named as the remarks name
/// them (`build/code.rs`'s `shorten`).
struct Code {
    hot_path: Option<Vec<u8>>,
    key_schedule: Option<Vec<u8>>,
    footprint: u64,
    calls: Vec<(String, String)>,
    hot: Vec<String>,
}

/// The builds of `names` (reusing what the run built), in that order;
/// `None` for one that did not build.
fn built(run: &dyn Run, names: &[&str]) -> Vec<Option<Code>> {
    let (entry, mut contenders) = run.contenders(names.iter().map(|n| n.to_string()).collect());
    let steps = contenders.len();
    build::build_and_size_reusing(entry, &mut contenders, run.work(), steps, Reuse::Previous);
    (names.iter())
        .map(|n| {
            let b = contenders.iter().find(|c| c.name == *n)?.live()?;
            Some(Code {
                hot_path: b.hot_path.clone(),
                key_schedule: b.key_schedule.clone(),
                footprint: b.artifact.footprint_bytes,
                calls: (b.artifact.inlining.iter())
                    .map(|i| (i.caller.clone(), i.callee.clone()))
                    .collect(),
                hot: (crate::build::code::hot_path_names(&b.so).unwrap_or_default())
                    .iter()
                    .map(|n| crate::build::code::shorten(n))
                    .collect(),
            })
        })
        .collect()
}
