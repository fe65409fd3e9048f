//! The counting stage: instructions per operation of each live variant in
//! each of the gate's cases, through callgrind (see `callgrind.rs`: one
//! valgrind run for them all), written into the report's speed entries.
//! Peers are not counted: the gate judges our variants, and times peers
//! only as the wall clock's reference.

use crate::count::callgrind::{self, Count};
use crate::report::{Report, Speed};
use crate::select::contenders::Contender;
use bench_harness::registry::CipherEntry;
use bench_harness::sampling::Case;
use std::path::Path;

/// What counting gave one contender.
#[derive(Clone, Debug, PartialEq)]
pub enum Tally {
    /// Not counted: a peer, or a contender that was not sound (its entry
    /// says why).
    Skipped,
    /// Instructions per operation in each case, in case order.
    Counted(Vec<f64>),
    /// Sized and, in a timed run, timed, but its artifact says the CPU
    /// valgrind presents cannot run it (valgrind runs no VAES, no
    /// AVX-512): why. Never counted; the wall clock is its speed.
    Uncountable(String),
}

/// Per contender, what counting gave it; a variant whose count fails is
/// marked failed (hung, when it ran past the counting deadline). One whose
/// artifact answers "unavailable" under valgrind stays as it was, and is
/// `Uncountable`: the CPU valgrind presents is not this one. A timed run
/// has already marked unavailable what this CPU cannot run; an untimed one
/// (`gate --no-time`) cannot tell the two apart, and the reason says only
/// what valgrind saw.
pub fn count(contenders: &mut [Contender], cases: &[Case], dir: &Path) -> Vec<Tally> {
    let counted: Vec<usize> = (0..contenders.len())
        .filter(|&i| !contenders[i].is_peer() && contenders[i].live().is_some())
        .collect();
    let artifacts: Vec<_> = counted
        .iter()
        .filter_map(|&i| Some((contenders[i].name.clone(), contenders[i].live()?.so.clone())))
        .collect();
    let mut out = vec![Tally::Skipped; contenders.len()];
    if artifacts.is_empty() {
        return out;
    }
    for (&i, count) in counted.iter().zip(callgrind::count(&artifacts, cases, dir)) {
        match count {
            Count::Counted(n) => out[i] = Tally::Counted(n),
            Count::Unavailable(why) => out[i] = Tally::Uncountable(uncountable(&why)),
            Count::Failed(why) => contenders[i].fail(format!("counting instructions: {why}")),
            Count::Hung(why) => contenders[i].hang(format!("counting instructions: {why}")),
        }
    }
    out
}

/// Why a variant was not counted, from its artifact's answer under
/// valgrind (`PATH: the artifact says ...`), without the path: a report
/// names no machine's files.
pub fn uncountable(why: &str) -> String {
    let answer = why.rsplit_once(": ").map_or(why, |(_, a)| a);
    format!("under valgrind, {answer}")
}

/// Writes `counts` (as [`count`] returned them) into `report`'s variant
/// entries: each entry's speed entries become one per case of `cases`, in
/// that order, the timed ones (if any) with their timings.
pub fn attach(
    report: &mut Report,
    entry: &CipherEntry,
    contenders: &[Contender],
    counts: &[Tally],
    cases: &[Case],
) {
    for e in report.variants.iter_mut() {
        let position = contenders.iter().position(|c| c.name == e.name);
        let n = match position.map(|i| &counts[i]) {
            Some(Tally::Counted(n)) => n,
            Some(Tally::Uncountable(why)) => {
                e.uncounted = Some(why.clone());
                continue;
            }
            Some(Tally::Skipped) | None => continue,
        };
        let mut timed = std::mem::take(&mut e.speed);
        for (c, &count) in cases.iter().zip(n) {
            let blank = Speed::uncounted(entry, c);
            let at = timed.iter().position(|s| same_case(s, &blank));
            let mut s = at.map_or(blank, |k| timed.swap_remove(k));
            s.instructions = Some(count);
            e.speed.push(s);
        }
        // Timed cases the gate does not count (none today) stay, after.
        e.speed.extend(timed);
    }
}

/// Whether two speed entries are of the same case: the gate's row key.
pub fn same_case(a: &Speed, b: &Speed) -> bool {
    a.alg == b.alg && a.dir == b.dir && a.key_bits == b.key_bits && a.block_bytes == b.block_bytes
}
