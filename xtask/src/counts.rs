//! The counting stage: instructions per operation of each sound contender
//! in each case, through callgrind (see `callgrind.rs`), written into the
//! report's speed entries.

use crate::callgrind;
use crate::contenders::Contender;
use crate::report::{Report, Speed};
use bench_harness::compare::Case;
use bench_harness::registry::CipherEntry;
use std::path::Path;

/// Per contender, its instructions per operation in each case; a contender
/// whose count fails is marked failed.
pub fn count(contenders: &mut [Contender], cases: &[Case], dir: &Path) -> Vec<Option<Vec<f64>>> {
    let mut counts = Vec::new();
    for c in contenders.iter_mut() {
        let Some(so) = c.live().map(|b| b.so.clone()) else {
            counts.push(None);
            continue;
        };
        match callgrind::count(&so, cases, dir) {
            Ok(n) => counts.push(Some(n)),
            Err(why) => {
                c.fail(format!("counting instructions: {why}"));
                counts.push(None);
            }
        }
    }
    counts
}

/// Writes `counts` (as [`count`] returned them) into `report`'s entries; an
/// entry that was not timed gets speed entries with only the counts.
pub fn attach(
    report: &mut Report,
    entry: &CipherEntry,
    contenders: &[Contender],
    counts: &[Option<Vec<f64>>],
    cases: &[Case],
) {
    for e in report.variants.iter_mut().chain(report.peers.iter_mut()) {
        let position = contenders.iter().position(|c| c.name == e.name);
        let Some(n) = position.and_then(|i| counts[i].as_ref()) else {
            continue;
        };
        if e.speed.is_empty() {
            e.speed = cases.iter().map(|c| uncounted(entry, c)).collect();
        }
        for (s, &count) in e.speed.iter_mut().zip(n) {
            s.instructions = Some(count);
        }
    }
}

/// A speed entry for case `c` with nothing measured.
fn uncounted(entry: &CipherEntry, c: &Case) -> Speed {
    Speed {
        alg: c.alg(entry.name),
        dir: crate::report::Dir::of(c),
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
