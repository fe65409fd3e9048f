//! A flag grid's first-screen table (`compare --opt-level ...`): a row
//! per flag set, with its flags, the rule's pick under it alone, that
//! pick's footprint and its speed against the peer built with the same
//! flags; then the inversions between flag sets ([`crate::report::grid`]).
//! Nothing for a report of the profile alone.

use super::cells::bytes;
use crate::decide::verdict::pct;
use crate::env::escape::{md_cell, md_cell_fragment, md_code, md_code_cell, md_text};
use crate::report::Report;
use crate::report::grid::answers;
use std::fmt::Write;

pub fn render(w: &mut String, r: &Report) {
    if r.flag_sets.is_empty() {
        return;
    }
    let (picks, inverted) = answers(r);
    let _ = writeln!(
        w,
        "**Which flags and which variant.** The rule above picked among every variant under every flag set ({} sets); below, its pick under each flag set on its own, and that pick against the peer built with the same flags (crypt cases, with the interval).\n",
        picks.len()
    );
    let _ = writeln!(
        w,
        "| flag set | flags | pick under it | footprint | against the peer |"
    );
    let _ = writeln!(w, "|---|---|---|---:|---:|");
    for p in &picks {
        let against = match &p.peer {
            Some((label, Some(speed))) => format!("{} ({})", pct(speed), md_cell(label)),
            Some((label, None)) => format!("n/a ({})", md_cell(label)),
            None => "no peer".to_string(),
        };
        let _ = writeln!(
            w,
            "| {} | {} | {} | {} | {} |",
            md_code_cell(&p.set.name()),
            md_cell(&p.set.describe()),
            p.pick.as_deref().map_or_else(
                || format!("inconclusive: {}", md_cell_fragment(&p.reasons.join("; "))),
                md_code_cell
            ),
            p.footprint.map_or("n/a".to_string(), bytes),
            against
        );
    }
    let _ = writeln!(w);
    if inverted.is_empty() {
        let _ = writeln!(
            w,
            "No inversion: no flag set's pick is beaten on both size and speed by another's, none that asks for more speed (a higher opt-level, `native`, LTO) is slower beyond its interval than the same flags without it, and no opt-level for size is larger than one for speed.\n"
        );
        return;
    }
    let _ = writeln!(
        w,
        "**Inversions** (flag sets whose pick misses what their flags ask for):\n"
    );
    for i in inverted {
        let _ = writeln!(
            w,
            "- {}'s pick {} ({} bytes) against {}'s pick {} ({} bytes): {}, {}.",
            md_code(&i.set),
            md_code(&i.pick),
            bytes(i.size),
            md_code(&i.other),
            md_code(&i.other_pick),
            bytes(i.other_size),
            md_text(i.kind.words()),
            pct(&i.speed)
        );
    }
    let _ = writeln!(w);
}
