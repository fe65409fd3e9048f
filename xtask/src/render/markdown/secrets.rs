//! What memcheck saw each contender do with its secrets
//! (`report/secrets.rs`): a cell per count for the summary table, a line
//! on the first screen where the pick depends on its secrets where the
//! reference or the peer does not, and a section with a row per contender.

use crate::env::escape::{md_cell, md_code, md_code_cell};
use crate::report::secrets::{Secrets, Site};
use crate::report::{Entry, Report};
use std::fmt::Write;

/// Whether anyone looked at this report's secrets.
pub fn looked(r: &Report) -> bool {
    r.entries().any(|e| e.secrets.is_some())
}

/// The two cells of `e` (branches, indexes): a count, `unmeasured`, or
/// empty where nobody looked.
pub fn cells(e: &Entry) -> [String; 2] {
    match &e.secrets {
        None => [String::new(), String::new()],
        Some(Secrets::Unmeasured { .. }) => ["unmeasured".into(), "unmeasured".into()],
        Some(Secrets::Measured { branches, indexes }) => {
            [branches.len().to_string(), indexes.len().to_string()]
        }
    }
}

/// What a count of sites says in a sentence.
fn places(n: usize) -> String {
    match n {
        0 => "in none".into(),
        1 => "in 1 place".into(),
        n => format!("in {n} places"),
    }
}

/// The first screen's line, where the pick branches on or indexes by a
/// secret and the reference or the peer (whichever is measured and does
/// not) does not.
pub fn render_line(w: &mut String, r: &Report, pick: &Entry, others: &[&Entry]) {
    let Some(Secrets::Measured { branches, indexes }) = &pick.secrets else {
        return;
    };
    for (what, mine, of) in [
        (
            "branches on",
            branches,
            branches_of as fn(&Entry) -> Option<usize>,
        ),
        ("indexes memory by", indexes, indexes_of),
    ] {
        if mine.is_empty() {
            continue;
        }
        let cleaner: Vec<String> = (others.iter())
            .filter(|o| o.name != pick.name && of(o) == Some(0))
            .map(|o| name(r, o))
            .collect();
        if cleaner.is_empty() {
            continue;
        }
        let _ = writeln!(
            w,
            "**Less constant-time than {}:** {} {what} a secret {}; {} {}.\n",
            cleaner.join(" and "),
            md_code(&pick.name),
            places(mine.len()),
            cleaner.join(" and "),
            places(0)
        );
    }
}

fn branches_of(e: &Entry) -> Option<usize> {
    e.secrets.as_ref()?.counts().map(|(b, _)| b)
}

fn indexes_of(e: &Entry) -> Option<usize> {
    e.secrets.as_ref()?.counts().map(|(_, i)| i)
}

/// A contender's name as the report writes it: a peer by its label.
fn name(r: &Report, e: &Entry) -> String {
    if r.peers.contains(e) {
        md_cell(&e.label)
    } else {
        md_code(&e.name)
    }
}

/// The functions of `sites`, at most three, then how many more.
fn functions(sites: &[Site]) -> String {
    let all = Secrets::functions(sites);
    let mut shown: Vec<String> = all.iter().take(3).map(|f| md_code_cell(f)).collect();
    if all.len() > 3 {
        shown.push(format!("{} more", all.len() - 3));
    }
    shown.join(", ")
}

/// The section: a row per contender memcheck looked at.
pub fn render_table(w: &mut String, r: &Report) {
    if !looked(r) {
        return;
    }
    let _ = writeln!(
        w,
        "## Secrets: branches and indexes that depend on the key or the data\n\nEach contender ran key setup and one crypt per mode and direction under valgrind's memcheck with its key and data marked undefined: a *branch* is a conditional jump or move, an *index* a load or store address, that depends on them (SUPERCOP's `constbranchindex`), counted once per code location in the artifact. Memcheck follows data flow, not caches or timing: a count of none is necessary for constant time, not sufficient. *Unmeasured* is unknown, never clean.\n"
    );
    let _ = writeln!(
        w,
        "| contender | branches | indexes | where |\n|---|---:|---:|---|"
    );
    for e in r.entries().filter(|e| e.secrets.is_some()) {
        let [b, i] = cells(e);
        let place = match &e.secrets {
            Some(Secrets::Measured { branches, indexes }) => {
                let mut all: Vec<Site> = branches.iter().chain(indexes).cloned().collect();
                all.sort();
                functions(&all)
            }
            Some(Secrets::Unmeasured { why }) => md_cell(why),
            None => String::new(),
        };
        let _ = writeln!(
            w,
            "| {} | {b} | {i} | {place} |",
            if r.peers.contains(e) {
                md_cell(&e.label)
            } else {
                md_code_cell(&e.name)
            }
        );
    }
    let _ = writeln!(w);
}
