//! The report's speed tables and its ratios against the reference.

use super::cells::{details, figure, measured};
use crate::decide::verdict::pct;
use crate::env::escape::{md_cell, md_code, md_code_cell, xml_text};
use crate::report::{Operation, Report, Speed};
use std::fmt::Write;

/// The (alg, dir, key) groups and block sizes, in first-seen order.
fn shape(r: &Report) -> (Vec<(String, Operation, usize)>, Vec<usize>) {
    let mut groups: Vec<(String, Operation, usize)> = Vec::new();
    let mut blocks: Vec<usize> = Vec::new();
    for s in r.entries().flat_map(|e| &e.speed) {
        let g = (s.alg.clone(), s.dir, s.key_bits);
        if s.dir.is_crypt() && !groups.contains(&g) {
            groups.push(g);
        }
        if s.dir.is_crypt() && !blocks.contains(&s.block_bytes) {
            blocks.push(s.block_bytes);
        }
    }
    blocks.sort_unstable();
    (groups, blocks)
}

/// The key sizes of key setup, in first-seen order, with their alg.
fn setkey_keys(r: &Report) -> Vec<(String, usize)> {
    let mut keys = Vec::new();
    for s in r.entries().flat_map(|e| &e.speed) {
        let k = (s.alg.clone(), s.key_bits);
        if s.dir == Operation::Setkey && !keys.contains(&k) {
            keys.push(k);
        }
    }
    keys
}

fn key_label(key: usize) -> String {
    if key == 0 {
        String::new()
    } else {
        format!(", {key}-bit key")
    }
}

pub fn render_speed(w: &mut String, r: &Report) {
    let (groups, blocks) = shape(r);
    let cpt = r.cycles_per_tick();
    let _ = writeln!(w, "## Speed\n");
    let _ = writeln!(
        w,
        "MB/s (10^6 bytes per second), then counter ticks per byte, with the core cycles per byte they estimate; at each variant's level: the median over the measuring processes of the 10th percentile of its rounds in each.\n"
    );
    let _ = writeln!(
        w,
        "<details><summary>Every case of every measured variant and peer: a table per mode, direction and key</summary>\n"
    );
    for (alg, dir, key) in &groups {
        let _ = writeln!(w, "### {} {dir}{}\n", md_cell(alg), key_label(*key));
        let head: Vec<String> = blocks.iter().map(|b| format!("{b} B")).collect();
        let _ = writeln!(w, "| variant | {} |", head.join(" | "));
        let _ = writeln!(w, "|---|{}", "---:|".repeat(blocks.len()));
        for e in measured(r) {
            let cells: Vec<String> = blocks
                .iter()
                .map(|b| {
                    e.speed_at(alg, dir, *key, *b)
                        .map(|s| figure(s, cpt))
                        .unwrap_or_default()
                })
                .collect();
            let _ = writeln!(w, "| {} | {} |", md_cell(&e.label), cells.join(" | "));
        }
        let _ = writeln!(w);
    }
    let keys = setkey_keys(r);
    if keys.is_empty() {
        let _ = writeln!(w, "</details>\n");
        return;
    }
    let _ = writeln!(w, "### Key setup\n");
    let _ = writeln!(
        w,
        "One operation is a key of 0xff bytes replacing the previous one (`inlinelab_clear`, then `inlinelab_set_key`): counter ticks per key, with the core cycles they estimate, and keys per second.\n"
    );
    let head: Vec<String> = keys
        .iter()
        .map(|(alg, k)| format!("{} {k}-bit", md_cell(alg)))
        .collect();
    let _ = writeln!(w, "| variant | {} |", head.join(" | "));
    let _ = writeln!(w, "|---|{}", "---:|".repeat(keys.len()));
    for e in measured(r) {
        let cells: Vec<String> = keys
            .iter()
            .map(|(alg, k)| {
                e.speed_at(alg, &Operation::Setkey, *k, 0)
                    .map(|s| figure(s, cpt))
                    .unwrap_or_default()
            })
            .collect();
        let _ = writeln!(w, "| {} | {} |", md_cell(&e.label), cells.join(" | "));
    }
    let _ = writeln!(w, "\n</details>\n");
}

/// A row of the ratio tables: a name and its speed entries and overall.
struct Row<'a> {
    name: String,
    speed: &'a [Speed],
    overall: Option<String>,
}

pub fn render_ratios(w: &mut String, r: &Report) {
    let reference = &r.run.reference;
    let mut rows: Vec<Row> = measured(r)
        .filter(|e| &e.name != reference)
        .map(|e| Row {
            name: md_code_cell(&e.name),
            speed: &e.speed,
            overall: e.overall.as_ref().map(pct),
        })
        .collect();
    if let Some(c) = &r.control {
        rows.push(Row {
            name: format!("{} (A/A control)", md_code_cell(&c.of)),
            speed: &c.speed,
            overall: Some(pct(&c.interval())),
        });
    }
    let _ = writeln!(w, "## Against {}\n", md_code(reference));
    let _ = writeln!(
        w,
        "Speed relative to {}, measured in the same measuring processes (each process's ratio of the two levels), with 95% confidence intervals over the processes; + is faster. A row per variant; a table for the geometric mean over the crypt cases (the speed the verdict uses), then one per mode, direction and key, a column per block size.\n",
        md_code(reference)
    );
    let summary = format!(
        "Every variant against <code>{}</code>, case by case",
        xml_text(reference)
    );
    details(w, &summary, |w| {
        let _ = writeln!(w, "| variant | all crypt cases |\n|---|---:|");
        for row in &rows {
            let overall = row.overall.clone().unwrap_or_else(|| "n/a".into());
            let _ = writeln!(w, "| {} | {overall} |", row.name);
        }
        let _ = writeln!(w);
        let (groups, blocks) = shape(r);
        for (alg, dir, key) in &groups {
            let _ = writeln!(w, "### {} {dir}{}\n", md_cell(alg), key_label(*key));
            table(
                w,
                &rows,
                &blocks,
                |b| format!("{b} B"),
                |s, b| s.alg == *alg && s.dir == *dir && s.key_bits == *key && s.block_bytes == b,
            );
        }
        let keys = setkey_keys(r);
        if !keys.is_empty() {
            let _ = writeln!(w, "### Key setup\n");
            let bits: Vec<usize> = keys.iter().map(|&(_, k)| k).collect();
            let unit = |k: usize| format!("{k}-bit");
            table(w, &rows, &bits, unit, |s, k| {
                s.dir == Operation::Setkey && s.key_bits == k
            });
        }
    });
}

/// A table of `rows`, a column per `columns` value (block bytes, or key
/// bits for key setup; headed as `unit` says), each cell the ratio of the
/// speed entry `matches`.
fn table(
    w: &mut String,
    rows: &[Row],
    columns: &[usize],
    unit: impl Fn(usize) -> String,
    matches: impl Fn(&Speed, usize) -> bool,
) {
    let head: Vec<String> = columns.iter().map(|&c| unit(c)).collect();
    let _ = writeln!(w, "| variant | {} |", head.join(" | "));
    let _ = writeln!(w, "|---|{}", "---:|".repeat(columns.len()));
    for row in rows {
        let cells: Vec<String> = columns
            .iter()
            .map(|&c| {
                (row.speed.iter().find(|s| matches(s, c)))
                    .and_then(|s| s.ratio.as_ref())
                    .map_or_else(|| "n/a".into(), pct)
            })
            .collect();
        let _ = writeln!(w, "| {} | {} |", row.name, cells.join(" | "));
    }
    let _ = writeln!(w);
}
