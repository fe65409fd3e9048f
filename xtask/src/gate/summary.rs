//! The gate's summary: the rows of one cipher as markdown, fit for a
//! pull-request comment, and the table of a baseline changed by the change.
//! Rows that regressed or were flagged are listed one by one; the rows
//! within the thresholds are counted per variant, with the largest growth
//! among them, so that the comment stays readable (and within a comment's
//! size) however many variants and cases there are.

use crate::gate::rows::{Row, Severity, Thresholds};
use crate::gate::{BaselineChange, Basis};
use crate::report::escape::{md_cell, md_cell_fragment, md_code, md_code_cell, md_text};
use std::fmt::Write;

/// At most this many rows of a changed baseline are listed.
const CHANGES_SHOWN: usize = 100;

/// The summary of `cipher`'s rows, judged by `basis`.
pub fn render(cipher: &str, basis: &Basis, th: &Thresholds, rows: &[Row]) -> String {
    let mut md = String::new();
    let _ = writeln!(md, "## inlinelab gate: {}\n", md_text(cipher));
    headline(&mut md, basis, rows);
    let against = basis.base_tree.is_some();
    flagged(&mut md, rows, against);
    within(&mut md, rows);
    thresholds(&mut md, th, against);
    md
}

/// "**N regression(s)** against ...", with the advisories counted.
fn headline(md: &mut String, basis: &Basis, rows: &[Row]) {
    let count = |v: Severity| rows.iter().filter(|r| r.verdict == v).count();
    let (regressions, advisories) = (count(Severity::Regression), count(Severity::Advisory));
    let _ = writeln!(
        md,
        "{} against {}{}.{}\n",
        if regressions == 0 {
            "**No regression**".to_string()
        } else {
            format!("**{regressions} regression(s)**")
        },
        basis.baseline,
        match &basis.base_tree {
            Some(rev) => format!(
                " and against {}, built and measured in the same run",
                md_code(rev)
            ),
            None => String::new(),
        },
        if advisories > 0 {
            format!(" {advisories} wall-clock slowdown(s) flagged as advisory.")
        } else {
            String::new()
        }
    );
    if basis.left_out > 0 {
        let _ = writeln!(
            md,
            "Only the variants `--variants` named were measured: {} of the baseline's were left out, and are not judged.\n",
            basis.left_out
        );
    }
}

/// The rows that regressed or were flagged, one by one; with a base tree
/// (`against`), its figure and the change against it beside the baseline's.
fn flagged(md: &mut String, rows: &[Row], against: bool) {
    let flagged: Vec<&Row> = rows.iter().filter(|r| r.verdict != Severity::Ok).collect();
    if flagged.is_empty() {
        return;
    }
    let _ = writeln!(
        md,
        "{}",
        if against {
            "| metric | baseline | base tree | now | change | vs base tree | verdict |\n|---|---:|---:|---:|---:|---:|---|"
        } else {
            "| metric | baseline | now | change | verdict |\n|---|---:|---:|---:|---|"
        }
    );
    for r in &flagged {
        let verdict = match r.verdict {
            Severity::Regression => "**regression**",
            Severity::Advisory => "slower (advisory)",
            Severity::Ok => "ok",
        };
        let mut cells = vec![md_cell_fragment(&r.metric), md_cell(&r.baseline)];
        if against {
            cells.push(md_cell(r.base.as_deref().unwrap_or("")));
        }
        cells.extend([md_cell(&r.now), md_cell(&r.change)]);
        if against {
            cells.push(md_cell(r.change_base.as_deref().unwrap_or("")));
        }
        let _ = writeln!(md, "| {} | {verdict} |", cells.join(" | "));
    }
    md.push('\n');
}

/// The rows within the thresholds, counted per variant (in the order the
/// variants first appear), with the largest growth among them.
fn within(md: &mut String, rows: &[Row]) {
    let mut variants: Vec<&str> = Vec::new();
    for r in rows {
        if !variants.contains(&r.variant.as_str()) {
            variants.push(&r.variant);
        }
    }
    let ok: Vec<(&str, Vec<&Row>)> = variants
        .into_iter()
        .map(|v| {
            let rows = rows
                .iter()
                .filter(|r| r.variant == v && r.verdict == Severity::Ok)
                .collect();
            (v, rows)
        })
        .filter(|(_, rows): &(&str, Vec<&Row>)| !rows.is_empty())
        .collect();
    if ok.is_empty() {
        return;
    }
    let _ = writeln!(
        md,
        "Within the thresholds:\n\n| variant | rows ok | largest growth among them |\n|---|---:|---|"
    );
    for (v, rows) in ok {
        let largest = rows
            .iter()
            .filter(|r| r.growth > 0.0)
            .max_by(|a, b| a.growth.total_cmp(&b.growth))
            .map_or("none".to_string(), |r| {
                format!(
                    "{:+.2}% ({})",
                    r.growth * 100.0,
                    md_cell_fragment(&r.metric)
                )
            });
        let _ = writeln!(md, "| {} | {} | {largest} |", md_code_cell(v), rows.len());
    }
    md.push('\n');
}

/// The thresholds and what wall-clock speed is relative to.
fn thresholds(md: &mut String, th: &Thresholds, against: bool) {
    let _ = writeln!(
        md,
        "Thresholds: size +{:.1}%, instructions per operation +{:.1}% (callgrind, repeatable; every mode, key size and direction at 16, 1424 and 8192 bytes, and key setup per key size), wall clock -{:.1}% with the whole 95% interval beyond it ({}). Wall-clock speed is relative to {}.\n",
        th.size * 100.0,
        th.speed * 100.0,
        th.time * 100.0,
        if th.strict_time {
            "counts, --strict-time"
        } else {
            "advisory"
        },
        if against {
            "the base tree's same variant, paired by round"
        } else {
            "the peer (RustCrypto's crate, or the crc32c crate) timed in the same run, then to the baseline's ratio"
        }
    );
}

/// The "baseline changed in this change" table of one cipher.
pub fn render_change(c: &BaselineChange) -> String {
    let mut md = String::new();
    let _ = writeln!(
        md,
        "## Baseline changed in this change: {}\n",
        md_text(&c.cipher)
    );
    let _ = writeln!(
        md,
        "{} differs from {}. {}\n",
        c.new,
        c.old,
        if c.accepted {
            "The change's version is judged by (--accept-baseline-change)."
        } else {
            "The verdict below is against the committed version: a change to the baseline is accepted only by a maintainer's run with --accept-baseline-change."
        }
    );
    if c.rows.is_empty() {
        let _ = writeln!(
            md,
            "No size or instruction count differs (only what the gate does not judge by, such as timings or dates).\n"
        );
        return md;
    }
    let _ = writeln!(md, "| row | old | new | change |\n|---|---:|---:|---:|");
    for r in c.rows.iter().take(CHANGES_SHOWN) {
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} |",
            md_cell_fragment(&r.metric),
            md_cell(&r.old),
            md_cell(&r.new),
            md_cell(&r.change)
        );
    }
    if c.rows.len() > CHANGES_SHOWN {
        let _ = writeln!(
            md,
            "\nand {} more changed row(s).",
            c.rows.len() - CHANGES_SHOWN
        );
    }
    md.push('\n');
    md
}
