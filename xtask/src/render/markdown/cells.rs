//! The pieces every part of the markdown uses: byte counts, a folded
//! `<details>`, a speed's figure, the measured entries.

use crate::report::{Entry, Report, Speed, Status};
use std::fmt::Write;

/// `n` with thousands separated by commas.
pub(crate) fn bytes(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, ch) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

/// [`bytes`], or `unknown`.
pub(crate) fn opt_bytes(n: Option<u64>) -> String {
    n.map_or("unknown".into(), bytes)
}

/// `body` under a `<details>` whose summary is `summary` (HTML made by
/// this tool, names escaped with `escape::xml_text`: markdown is not
/// rendered inside a `<summary>`), blank lines around it so that GitHub
/// renders the markdown inside.
pub(crate) fn details(w: &mut String, summary: &str, body: impl FnOnce(&mut String)) {
    let _ = writeln!(w, "<details><summary>{summary}</summary>\n");
    body(w);
    let _ = writeln!(w, "</details>\n");
}

/// A speed's figure in a table: MB/s and counter ticks per byte (with the
/// core cycles per byte they estimate), or for key setup counter ticks per
/// key (with the core cycles) and keys per second.
pub(crate) fn figure(s: &Speed, cycles_per_tick: Option<f64>) -> String {
    let cycles = |ticks: f64, digits: usize| {
        cycles_per_tick.map_or(String::new(), |k| {
            format!(" (≈{:.digits$} cycles)", ticks * k)
        })
    };
    match (s.bytes_per_sec, s.ticks_per_byte) {
        (Some(bps), Some(tpb)) if s.dir.is_crypt() => {
            format!("{:.1} MB/s, {tpb:.2} ticks/B{}", bps / 1e6, cycles(tpb, 2))
        }
        _ => format!(
            "{:.0} ticks{}, {:.0} keys/s",
            s.ticks_per_op,
            cycles(s.ticks_per_op, 0),
            s.ops_per_sec
        ),
    }
}

/// Entries measured, in report order.
pub(crate) fn measured(r: &Report) -> impl Iterator<Item = &Entry> {
    r.entries().filter(|e| e.status == Status::Measured)
}
