//! The gate's summary: the rows of one cipher as markdown, fit for a
//! pull-request comment.

use crate::escape::{md_cell, md_cell_fragment, md_code, md_text};
use crate::gate::Against;
use crate::rows::{Row, Thresholds, Verdict};
use std::fmt::Write;

/// The summary of `cipher`'s rows, compared with `against`.
pub fn render(cipher: &str, against: &Against, th: &Thresholds, rows: &[Row]) -> String {
    let mut md = String::new();
    let count = |v: Verdict| rows.iter().filter(|r| r.verdict == v).count();
    let (regressions, advisories) = (count(Verdict::Regression), count(Verdict::Advisory));
    let with = match against {
        Against::BaseTree(rev) => format!("{}, built and measured in the same run", md_code(rev)),
        Against::BaselineFile(path) => format!(
            "the committed baseline {}",
            md_code(
                &path
                    .as_ref()
                    .map_or(crate::baseline_file::shown(cipher), |p| {
                        p.display().to_string()
                    })
            )
        ),
    };
    let _ = writeln!(md, "## inlinelab gate: {}\n", md_text(cipher));
    let _ = writeln!(
        md,
        "{} against {with}.{}\n",
        if regressions == 0 {
            "**No regression**".to_string()
        } else {
            format!("**{regressions} regression(s)**")
        },
        if advisories > 0 {
            format!(" {advisories} wall-clock slowdown(s) flagged as advisory.")
        } else {
            String::new()
        }
    );
    let _ = writeln!(
        md,
        "| metric | baseline | now | change | verdict |\n|---|---:|---:|---:|---|"
    );
    for r in rows {
        let verdict = match r.verdict {
            Verdict::Regression => "**regression**",
            Verdict::Advisory => "slower (advisory)",
            Verdict::Ok => "ok",
        };
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {verdict} |",
            md_cell_fragment(&r.metric),
            md_cell(&r.before),
            md_cell(&r.now),
            md_cell(&r.change)
        );
    }
    let _ = writeln!(
        md,
        "\nThresholds: size +{:.1}%, instructions per operation +{:.1}% (callgrind, repeatable), wall clock -{:.1}% with the whole 95% interval beyond it ({}). Wall-clock speed is relative to {}.\n",
        th.size * 100.0,
        th.speed * 100.0,
        th.time * 100.0,
        if th.strict_time {
            "counts, --strict-time"
        } else {
            "advisory"
        },
        match against {
            Against::BaseTree(_) => "the base tree's same variant, paired by round",
            Against::BaselineFile(_) =>
                "the peer (RustCrypto's crate, or the crc32c crate) timed in the same run, then to the baseline's ratio",
        }
    );
    md
}
