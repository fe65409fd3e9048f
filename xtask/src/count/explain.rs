//! compare's instruction counts: what tells a reviewer why a shape is fast.
//! When `valgrind` is on PATH, one callgrind run (`callgrind.rs`, the
//! gate's counting) counts every timed variant and peer in the headline
//! cases, a case per mode family (its largest block, smallest key: the
//! case the report's instructions-per-block table shows), once per run and
//! in seconds; the counts go into those speed entries' `instructions`, and
//! `run.counting` says where they came from. Without valgrind nothing is
//! counted, `run.counting` says so, and the report says how to fill it: the
//! quick start needs nothing but the toolchain. The same run measures what
//! a library peer's hot path and key schedule reached in its library
//! (`reached.rs`), recorded in its artifact's `library`; without valgrind,
//! or where its count fails, they stay unknown, saying why.

use crate::count::callgrind::{self, Count};
use crate::count::reached;
use crate::env::library;
use crate::report::{Counting, Family, Operation, Report};
use crate::select::contenders::Contender;
use bench_harness::registry::CipherEntry;
use bench_harness::sampling::Case;
use std::path::Path;

/// Per mode family in `cases`, the first case of its largest block and,
/// among those, its smallest key.
pub fn headline_cases(entry: &CipherEntry, cases: &[Case]) -> Vec<Case> {
    let family = |c: &Case| Family::of_case(&c.alg(entry.name), Operation::of(c), c.key_bytes * 8);
    Family::ALL
        .into_iter()
        .filter_map(|f| {
            (cases.iter().filter(|c| family(c) == f))
                .min_by_key(|c| (std::cmp::Reverse(c.block_bytes), c.key_bytes))
                .copied()
        })
        .collect()
}

/// Counts the live contenders of `report` (its variants and peers; not the
/// A/A control, the reference's own code) in the headline cases of
/// `cases` when valgrind is there, in `dir` (scratch), and records how in
/// `report.run.counting`. A contender whose count fails keeps its timings,
/// uncounted: counting explains a report, it does not judge it.
pub fn count(
    report: &mut Report,
    entry: &CipherEntry,
    contenders: &[Contender],
    cases: &[Case],
    dir: &Path,
) {
    let Ok(valgrind) = callgrind::check() else {
        report.run.counting = Counting::NoValgrind;
        for e in report.entries_mut() {
            if let Some(code) = e.artifact.as_mut().and_then(|a| a.library.as_mut()) {
                code.unmeasured = Some(
                    "valgrind is not installed (a library's code is measured under callgrind)"
                        .into(),
                );
            }
        }
        return;
    };
    let heads = headline_cases(entry, cases);
    // Grouped by the headline cases each runs (a library peer, those it
    // offers): counted a group at a time.
    let mut groups: Vec<(Vec<Case>, Vec<Named>)> = Vec::new();
    for c in contenders.iter().filter(|c| !c.is_control()) {
        let Some(built) = c.live() else { continue };
        let runs: Vec<Case> = heads
            .iter()
            .copied()
            .filter(|h| c.offers(h).is_ok())
            .collect();
        let files = (c.library())
            .and_then(|l| library::files(&l, &c.name).ok())
            .unwrap_or_default();
        let artifact = Named {
            name: c.name.clone(),
            so: built.so.clone(),
            library: files,
        };
        match groups.iter_mut().find(|(h, _)| *h == runs) {
            Some((_, artifacts)) => artifacts.push(artifact),
            None => groups.push((runs, vec![artifact])),
        }
    }
    groups.retain(|(heads, artifacts)| !heads.is_empty() && !artifacts.is_empty());
    if groups.is_empty() {
        return;
    }
    for (heads, artifacts) in &groups {
        count_group(report, entry, artifacts, heads, dir, &valgrind);
    }
    report.run.counting = Counting::Callgrind { valgrind };
}

/// An artifact by its contender's name, with its library's files (a
/// library peer's; empty for every other).
struct Named {
    name: String,
    so: std::path::PathBuf,
    library: Vec<std::path::PathBuf>,
}

/// Counts `artifacts` in `heads`, all of which each runs.
fn count_group(
    report: &mut Report,
    entry: &CipherEntry,
    artifacts: &[Named],
    heads: &[Case],
    dir: &Path,
    valgrind: &str,
) {
    eprintln!(
        "counting instructions of {} artifacts in {} cases with callgrind ({valgrind})",
        artifacts.len(),
        heads.len()
    );
    let heads = heads.to_vec();
    let files: Vec<(String, std::path::PathBuf)> = (artifacts.iter())
        .map(|a| (a.name.clone(), a.so.clone()))
        .collect();
    let measured = callgrind::measure(&files, &heads, dir);
    for (a, m) in artifacts.iter().zip(measured) {
        let name = &a.name;
        if !a.library.is_empty() {
            let code = (report.entries_mut())
                .find(|e| &e.name == name)
                .and_then(|e| e.artifact.as_mut());
            if let Some(artifact) = code {
                record_library(artifact, a, &heads, &m);
            }
        }
        match m.count {
            Count::Counted(n) => attach(report, entry, name, &heads, &n),
            // Timed here, refused under valgrind: its CPU lacks what the
            // artifact needs (VAES). The report says so beside the table.
            Count::Unavailable(why) => {
                eprintln!("xtask: `{name}` not counted: {why}");
                if let Some(e) = report.entries_mut().find(|e| &e.name == name) {
                    e.uncounted = Some(crate::count::counts::uncountable(&why));
                }
            }
            Count::Failed(why) | Count::Hung(why) => {
                eprintln!("xtask: `{name}` not counted: {why}");
            }
        }
    }
}

/// Records in a library peer's `artifact` what its count measured of its
/// library's code, and its hot path and key schedule from it (or why not).
fn record_library(
    artifact: &mut crate::select::artifact::Artifact,
    named: &Named,
    heads: &[Case],
    m: &callgrind::Measured,
) {
    let Some(code) = artifact.library.as_mut() else {
        return;
    };
    let measured = match &m.count {
        Count::Counted(_) => reached::reached(&named.library, heads, &m.executed),
        Count::Unavailable(why) | Count::Failed(why) | Count::Hung(why) => {
            Err(format!("not counted: {why}"))
        }
    };
    if let Err(why) = &measured {
        eprintln!(
            "xtask: `{}`: its library's code not measured: {why}",
            named.name
        );
    }
    reached::record(code, measured);
    artifact.hot_path_bytes = code.hot_path_bytes();
    artifact.key_schedule_bytes = code.key_schedule_bytes();
}

/// Writes the instructions of `name` in each of `cases` into its speed
/// entries of those cases, where it has them.
fn attach(report: &mut Report, entry: &CipherEntry, name: &str, cases: &[Case], counts: &[f64]) {
    let Some(e) = report.entries_mut().find(|e| e.name == name) else {
        return;
    };
    for (c, &n) in cases.iter().zip(counts) {
        let case = crate::report::Speed::uncounted(entry, c);
        if let Some(s) = e
            .speed
            .iter_mut()
            .find(|s| crate::count::counts::same_case(s, &case))
        {
            s.instructions = Some(n);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bench_harness::engine::{Dir as CaseDir, Mode};

    /// A case per family: ECB (or CBC decryption), CBC encryption and key
    /// setup, each at its largest block and smallest key.
    #[test]
    fn a_headline_case_per_family() {
        let entry = bench_harness::registry::cipher("cast6").unwrap();
        let case = Case::crypt;
        let cases = vec![
            case(Mode::Ecb, CaseDir::Encrypt, 32, 8192),
            case(Mode::Ecb, CaseDir::Encrypt, 16, 16),
            case(Mode::Ecb, CaseDir::Encrypt, 16, 8192),
            case(Mode::Cbc, CaseDir::Decrypt, 16, 8192),
            case(Mode::Cbc, CaseDir::Encrypt, 16, 1024),
            case(Mode::Cbc, CaseDir::Encrypt, 32, 1024),
            Case::set_key(Mode::Ecb, 32),
        ];
        let heads = headline_cases(entry, &cases);
        assert_eq!(heads, [cases[2], cases[4], cases[6]]);
    }
}
