//! Why a shape is fast: per variant and mode family, the instructions per
//! block that callgrind counted, the core cycles per block the timing
//! measured (ticks × the run's cycles-per-tick estimate), and the
//! instructions per cycle they imply. A shape at the machine's width runs
//! several instructions per cycle; one bound by the latency of its round
//! chain, or spilling, fewer.

use super::cells::{details, measured};
use crate::env::escape::{md_cell, md_code, md_text};
use crate::report::{Counting, Entry, Family, Report, Speed};
use std::fmt::Write;

/// The case a family's figures come from: the counted one (compare
/// counts a case per family: `explain::headline_cases`), else its largest
/// block.
fn case_of(e: &Entry, f: Family) -> Option<&Speed> {
    (e.speed.iter())
        .filter(|s| Family::of(s) == f && s.rounds > 0)
        .max_by_key(|s| {
            (
                s.instructions.is_some(),
                s.block_bytes,
                std::cmp::Reverse(s.key_bits),
            )
        })
}

/// Cipher blocks in one operation of `s` (one for key setup; a checksum's
/// "block" is 64 bytes, a cache line).
fn blocks(s: &Speed, block_size: usize) -> f64 {
    if s.block_bytes == 0 {
        1.0
    } else {
        s.block_bytes as f64 / block_size.max(1) as f64
    }
}

/// The cipher's block size, from the registry (64 bytes for a checksum).
fn block_size(r: &Report) -> usize {
    bench_harness::registry::cipher(&r.cipher)
        .map(|c| c.block_size)
        .ok()
        .filter(|&b| b > 1)
        .unwrap_or(64)
}

pub fn render(w: &mut String, r: &Report) {
    let _ = writeln!(w, "## Instructions per block and IPC\n");
    let rerun = md_code(&r.generated_by);
    let valgrind = match &r.run.counting {
        Counting::Callgrind { valgrind } => valgrind,
        Counting::NoValgrind => {
            let _ = writeln!(
                w,
                "Not counted: `valgrind` was not on PATH when this run was made (compare counts the headline cases with callgrind when it is, a few seconds more). To fill this column, install it (`apt-get install valgrind`) and run {rerun} again.\n"
            );
            return;
        }
        Counting::NotAsked => {
            let _ = writeln!(
                w,
                "Not counted: this report was written before compare counted instructions. To fill this column, install valgrind (`apt-get install valgrind`) and run {rerun} again.\n"
            );
            return;
        }
    };
    let cpt = r.cycles_per_tick();
    let bs = block_size(r);
    let families = Family::measured(r);
    let _ = writeln!(
        w,
        "Instructions per {bs}-byte block (per key for key setup) inside the artifact, counted by callgrind ({}: one run over every contender, a case per mode family, its largest block); core cycles per block from the timing (median ticks × {}); IPC = instructions / cycles. Near the core's width (4 to 6 a cycle) a shape is throughput-bound; well below, it waits on its round chain's latency or on memory (spills, table loads).\n",
        md_text(valgrind),
        cpt.map_or(
            "an unknown cycles-per-tick: no core clock estimate".into(),
            |k| format!("{k:.2} cycles per tick")
        )
    );
    details(
        w,
        "Instructions, cycles and IPC per block, every variant",
        |w| {
            let heads: Vec<String> = families
                .iter()
                .map(|f| format!("{} (instr. / cycles / IPC)", f.name()))
                .collect();
            let _ = writeln!(w, "| variant | {} |", heads.join(" | "));
            let _ = writeln!(w, "|---|{}", "---:|".repeat(families.len()));
            for e in measured(r) {
                let cells: Vec<String> = (families.iter())
                    .map(|&f| {
                        let Some(s) = case_of(e, f) else {
                            return "n/a".into();
                        };
                        let n = blocks(s, bs);
                        let instr = s.instructions.map(|i| i / n);
                        let cycles = cpt.map(|k| s.ticks_per_op * k / n);
                        match (instr, cycles) {
                            (Some(i), Some(c)) if c > 0.0 => {
                                format!("{i:.0} / {c:.0} / {:.2}", i / c)
                            }
                            (Some(i), _) => format!("{i:.0} / ? / ?"),
                            (None, Some(c)) => format!("not counted / {c:.0} / ?"),
                            (None, None) => "n/a".into(),
                        }
                    })
                    .collect();
                let _ = writeln!(w, "| {} | {} |", md_cell(&e.label), cells.join(" | "));
            }
            let _ = writeln!(w);
            // Grouped by reason: each reason once, with whom it holds for.
            let mut reasons: Vec<(&str, Vec<String>)> = Vec::new();
            for e in measured(r) {
                let Some(why) = e.uncounted.as_deref() else {
                    continue;
                };
                match reasons.iter_mut().find(|(w, _)| *w == why) {
                    Some((_, who)) => who.push(md_text(&e.label)),
                    None => reasons.push((why, vec![md_text(&e.label)])),
                }
            }
            for (why, who) in reasons {
                let _ = writeln!(
                    w,
                    "Not counted, timed only ({}): {}.\n",
                    md_text(why),
                    who.join(", ")
                );
            }
        },
    );
}
