//! The screening stage: with many variants (lanes x unrolling x policies),
//! the full statistics are spent only on those that may be on the
//! size/speed front. Every live contender is first timed briefly on one
//! case, the headline (the first mode's encryption, or digest, at its first
//! key size and the largest block); a variant is screened out when another
//! variant is no larger (footprint) and faster than it on that case by more
//! than [`MARGIN`] beyond the whole 95% interval of the paired ratio. The
//! reference variant is never screened out; peers are timed, never judged.
//! A screened-out variant keeps its sizes and says by whom and by how much
//! it was dominated; it is left out of the full run, the verdict and the
//! chart, and listed in the report.

use crate::decide::verdict::pct;
use crate::error::Result;
use crate::select::contenders::{Contender, Kind};
use crate::time::processes;
use bench_harness::engine::Dir;
use bench_harness::registry::CipherEntry;
use bench_harness::sampling::{Case, CaseKind, Plan};
use std::path::Path;

/// Fewer variants than this are all timed in full.
pub const SCREEN_FROM: usize = 9;

/// How far beyond 1 the whole interval of "the other is faster" must lie
/// to screen a variant out: a brief run is noisier than its interval says
/// on a shared machine, so only clear losers go.
pub const MARGIN: f64 = 0.05;

/// The brief run's processes: three, the fewest whose t interval (two
/// degrees of freedom) is not hopelessly wide.
const PROCESSES: usize = 3;

/// The brief run: rounds, seconds per batch.
const PLAN: Plan = Plan {
    rounds: 5,
    batch_seconds: 0.002,
};

/// The case the screen times: the first mode's encryption (or digest) at
/// its first key size and the largest block among `cases`.
pub fn headline(cases: &[Case]) -> Option<Case> {
    let first = cases
        .iter()
        .find(|c| c.kind == CaseKind::Crypt && matches!(c.dir, Dir::Encrypt))?;
    cases
        .iter()
        .filter(|c| {
            c.kind == CaseKind::Crypt
                && c.mode == first.mode
                && c.dir == first.dir
                && c.key_bytes == first.key_bytes
        })
        .max_by_key(|c| c.block_bytes)
        .copied()
}

/// Screens `contenders` when there are at least [`SCREEN_FROM`] variants;
/// returns what the report should say about it (nothing when no screening
/// was done).
pub fn screen(
    entry: &CipherEntry,
    contenders: &mut [Contender],
    reference: &str,
    cases: &[Case],
    dir: &Path,
) -> Result<Option<String>> {
    let variants = contenders
        .iter()
        .filter(|c| matches!(c.kind, Kind::Variant(_)) && c.live().is_some())
        .count();
    let Some(case) = headline(cases).filter(|_| variants >= SCREEN_FROM) else {
        return Ok(None);
    };
    let what = format!(
        "{} {} {}-bit {} B",
        case.alg(entry.name),
        case.dir_name(),
        case.key_bytes * 8,
        case.block_bytes
    );
    eprintln!(
        "    screening {variants} variants on {what} ({PROCESSES} processes of {} rounds)",
        PLAN.rounds
    );
    let t = processes::measure(entry, contenders, &[case], PLAN, PROCESSES, dir)?;
    let footprint = |c: &Contender| c.live().map(|b| b.artifact.footprint_bytes);
    let mut out = Vec::new();
    for v in 0..contenders.len() {
        let cv = &contenders[v];
        if !matches!(cv.kind, Kind::Variant(_)) || cv.name == reference {
            continue;
        }
        let (Some(fv), Some(kv)) = (footprint(cv), t.index(v)) else {
            continue;
        };
        let dominated_by = (0..contenders.len())
            .filter(|&w| w != v && matches!(contenders[w].kind, Kind::Variant(_)))
            // Under a flag grid, within its own flag set: each set keeps
            // its own front, for its own pick (`report/flags.rs`).
            .filter(|&w| contenders[w].tree.flags == cv.tree.flags)
            .filter_map(|w| {
                let fw = footprint(&contenders[w])?;
                let ratio = t.ratio(t.index(w)?, kv, 0)?;
                (fw <= fv && ratio.low > 1.0 + MARGIN).then_some((w, fw, ratio))
            })
            .max_by(|a, b| a.2.low.total_cmp(&b.2.low));
        if let Some((w, fw, ratio)) = dominated_by {
            out.push((
                v,
                format!(
                    "screened out: `{}` is no larger ({fw} against {fv} bytes of footprint) and {} faster on {what} in a brief screening run ({PROCESSES} processes of {} rounds), beyond the {:.0}% margin",
                    contenders[w].name,
                    pct(&ratio),
                    PLAN.rounds,
                    MARGIN * 100.0
                ),
            ));
        }
    }
    let screened = out.len();
    for (v, why) in out {
        contenders[v].screen_out(why);
    }
    Ok(Some(format!(
        "{variants} variants were screened on {what} ({PROCESSES} processes of {} rounds of {} ms each): {screened} were no faster than a variant no larger than them by more than {:.0}% beyond the 95% interval, and were left out of the full run (each is listed with its evidence); the others were timed in full.",
        PLAN.rounds,
        PLAN.batch_seconds * 1e3,
        MARGIN * 100.0
    )))
}
