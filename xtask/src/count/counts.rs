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

/// Per contender, its instructions per operation in each case (`None` for a
/// peer or a contender that was not sound); a variant whose count fails is
/// marked failed (hung, when it ran past the counting deadline; unavailable,
/// when its artifact says so).
pub fn count(contenders: &mut [Contender], cases: &[Case], dir: &Path) -> Vec<Option<Vec<f64>>> {
    let counted: Vec<usize> = (0..contenders.len())
        .filter(|&i| !contenders[i].is_peer() && contenders[i].live().is_some())
        .collect();
    let artifacts: Vec<_> = counted
        .iter()
        .filter_map(|&i| Some((contenders[i].name.clone(), contenders[i].live()?.so.clone())))
        .collect();
    let mut out = vec![None; contenders.len()];
    if artifacts.is_empty() {
        return out;
    }
    for (&i, count) in counted.iter().zip(callgrind::count(&artifacts, cases, dir)) {
        match count {
            Count::Counted(n) => out[i] = Some(n),
            Count::Unavailable(why) => contenders[i].unavailable(why),
            Count::Failed(why) => contenders[i].fail(format!("counting instructions: {why}")),
            Count::Hung(why) => contenders[i].hang(format!("counting instructions: {why}")),
        }
    }
    out
}

/// Writes `counts` (as [`count`] returned them) into `report`'s variant
/// entries: each entry's speed entries become one per case of `cases`, in
/// that order, the timed ones (if any) with their timings.
pub fn attach(
    report: &mut Report,
    entry: &CipherEntry,
    contenders: &[Contender],
    counts: &[Option<Vec<f64>>],
    cases: &[Case],
) {
    for e in report.variants.iter_mut() {
        let position = contenders.iter().position(|c| c.name == e.name);
        let Some(n) = position.and_then(|i| counts[i].as_ref()) else {
            continue;
        };
        let mut timed = std::mem::take(&mut e.speed);
        for (c, &count) in cases.iter().zip(n) {
            let blank = uncounted(entry, c);
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

/// A speed entry for case `c` with nothing measured.
pub fn uncounted(entry: &CipherEntry, c: &Case) -> Speed {
    Speed {
        alg: c.alg(entry.name),
        dir: crate::report::Operation::of(c),
        key_bits: c.key_bytes * 8,
        block_bytes: c.block_bytes,
        ticks_per_op: 0.0,
        ops_per_sec: 0.0,
        bytes_per_sec: None,
        ticks_per_byte: None,
        spread: 0.0,
        ratio: None,
        rounds: 0,
        instructions: None,
        samples: Vec::new(),
    }
}
