//! The committed reports against the code: each renders to the markdown
//! and SVG committed beside it and parses back to the same JSON. Whether
//! they were measured from the artifacts this tree builds is decided by the
//! artifacts' bytes, not here: `cargo xtask verify` (run by CI, where every
//! artifact is built anyway) compares each artifact's fingerprint with the
//! one each report and baseline records, so a change that alters no
//! artifact (a refactor, a comment) leaves every report current.

use crate::env::workspace;
use crate::render::markdown;
use crate::render::parse_svg;
use crate::report::Report;
use std::path::{Path, PathBuf};

/// The committed report JSON files of `dir`.
fn json_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    files
}

/// A committed report, read as every command reads one (the file's shared
/// lists filled in).
fn read(path: &Path) -> Report {
    let stem = path.file_stem().unwrap().to_str().unwrap();
    crate::report::reader::parse_report(&std::fs::read(path).unwrap(), stem).unwrap_or_else(|e| {
        panic!(
            "{}: {e:?} (a report of another schema: regenerate it with `cargo xtask compare all`)",
            path.display()
        )
    })
}

/// The folders of other machines' reports (`reports/machines/LABEL`).
fn machine_dirs() -> Vec<PathBuf> {
    let dir = workspace::root().join("reports/machines");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    dirs
}

/// The committed reports are what the code renders from their JSON: this
/// machine's in `reports/`, and the run `docs/runs/zen3/` keeps.
#[test]
fn committed_reports_render_as_committed() {
    for dir in [
        workspace::root().join("reports"),
        workspace::root().join("docs/runs/zen3"),
    ] {
        renders_as_committed(&dir, true);
    }
}

/// So are the crates' reports (`compare --crate`), each folder of them
/// (a feature set's among them; not the flag grids', which git ignores):
/// they have no index.
#[test]
fn committed_crate_reports_render_as_committed() {
    let mut dirs = vec![workspace::root().join("reports/crates")];
    let mut checked = 0;
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() && !path.ends_with(crate::render::output::FLAGS_DIR) {
                dirs.push(path);
            }
        }
        if !json_files(&dir).is_empty() {
            renders_as_committed(&dir, false);
            checked += 1;
        }
    }
    assert!(checked >= 8, "{checked} folders");
}

fn renders_as_committed(dir: &Path, index: bool) {
    let mut reports = Vec::new();
    for path in json_files(dir) {
        let r = read(&path);
        let stale = |what: &str| {
            format!(
                "{} is stale: run `cargo xtask render {}` (or `{}` to measure again)",
                path.with_extension(what).display(),
                dir.display(),
                r.generated_by
            )
        };
        let md = std::fs::read_to_string(path.with_extension("md")).unwrap();
        assert!(md == markdown::render(&r), "{}", stale("md"));
        let svg = std::fs::read_to_string(path.with_extension("svg")).unwrap();
        parse_svg(&svg);
        assert!(
            Some(svg) == crate::render::chart::render(&r),
            "{}",
            stale("svg")
        );
        reports.push(r);
    }
    assert!(
        !reports.is_empty(),
        "no committed report in {}",
        dir.display()
    );
    if !index {
        return;
    }
    reports.sort_by(|a, b| a.cipher.cmp(&b.cipher));
    let index = dir.join("README.md");
    assert!(
        std::fs::read_to_string(&index).expect("an index") == markdown::render_index(&reports),
        "{} is stale: run `cargo xtask render {}`",
        index.display(),
        dir.display()
    );
}

/// Every committed report and baseline file parses and serializes back to
/// the same JSON (field for field; serde_json reads the last digit of some
/// floats differently, so the comparison is of values, not bytes): the typed
/// model keeps the schema as it was.
#[test]
fn committed_json_round_trips() {
    let root = workspace::root().join("reports");
    let mut checked = 0;
    let dirs = [root.clone(), root.join("baseline")]
        .into_iter()
        .chain(machine_dirs());
    for path in dirs.flat_map(|d| json_files(&d)) {
        let text = std::fs::read_to_string(&path).unwrap();
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        let r = read(&path);
        // Written with a same-code group's lists once, or (before that)
        // in every entry.
        let as_written = |r: &Report| serde_json::to_value(r).unwrap() == value;
        assert!(
            as_written(&r.with_lists_shared()) || as_written(&r),
            "{} changes on a round trip",
            path.display()
        );
        checked += 1;
    }
    assert!(checked >= 8, "{checked} files");
}

/// Every file under `reports/` and `docs/runs/` (but the flag grids' of
/// `reports/flags/` and `reports/crates/*/flags/`, which git ignores) is
/// at most 4 MiB (a run that races to its fifth look keeps every sample of
/// some 26 processes, and memcheck's sites beside them: 3 MB for cast5), and every
/// compare report among them (this machine's, other machines', the runs
/// `docs/` keeps; baselines too) is of this schema: `cargo xtask render`
/// upgrades one of an older schema, figures unchanged.
#[test]
fn committed_files_are_small_and_of_this_schema() {
    fn walk(dir: &Path, found: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let p = e.unwrap().path();
            // Flag grids' reports stay out of the repository (.gitignore).
            if p.is_dir() && p.ends_with(crate::render::output::FLAGS_DIR) {
                continue;
            }
            if p.is_dir() {
                walk(&p, found);
            } else {
                found.push(p);
            }
        }
    }
    let mut files = Vec::new();
    for dir in ["reports", "docs/runs"] {
        walk(&workspace::root().join(dir), &mut files);
    }
    let mut reports = 0;
    for path in files {
        let name = path.display();
        let bytes = std::fs::read(&path).unwrap();
        assert!(bytes.len() <= 4 << 20, "{name}: {} bytes", bytes.len());
        if path.extension().is_none_or(|e| e != "json") {
            continue;
        }
        let command = crate::env::outputs::marked_command(&bytes);
        if matches!(command.as_deref(), Some("compare" | "baseline")) {
            let header = crate::report::reader::Header::of(&bytes).unwrap();
            assert_eq!(
                header.schema_version.and_then(|v| v.as_u64()),
                Some(u64::from(crate::report::SCHEMA_VERSION)),
                "{name}: run `cargo xtask render`"
            );
            reports += 1;
        }
    }
    assert!(reports >= 13, "{reports} compare reports and baselines");
}

/// What a reviewer reads first: every committed report opens with the
/// verdict and the summary table (the pick against the peer, CBC
/// encryption included where it was measured) in its first 40 lines, the
/// steps table follows, at most 150 lines come before the first
/// `<details>` (the size of every file: [`committed_files_are_small_and_of_this_schema`]).
#[test]
fn committed_reports_answer_on_the_first_screen() {
    let dir = workspace::root().join("reports");
    for path in json_files(&dir) {
        let md = std::fs::read_to_string(path.with_extension("md")).unwrap();
        let lines: Vec<&str> = md.lines().collect();
        let first: Vec<&str> = lines.iter().take(40).copied().collect();
        let at = |prefix: &str| first.iter().position(|l| l.starts_with(prefix));
        let name = path.display();
        assert!(at("**Verdict").is_some(), "{name}: no verdict in 40 lines");
        let header =
            at("| | variant | footprint |").unwrap_or_else(|| panic!("{name}: no summary"));
        let r = read(&path);
        if r.verdict.pick.is_some() {
            assert!(first.iter().any(|l| l.starts_with("| pick")), "{name}");
        }
        if !r.peers.is_empty() {
            assert!(first.iter().any(|l| l.starts_with("| peer")), "{name}");
        }
        let cbc_encrypt = (r.entries().flat_map(|e| &e.speed))
            .any(|s| s.alg.starts_with("cbc(") && s.dir == crate::report::Operation::Encrypt);
        assert_eq!(
            first[header].contains("CBC encryption"),
            cbc_encrypt,
            "{name}"
        );
        let details = (lines.iter().position(|l| l.starts_with("<details>")))
            .unwrap_or_else(|| panic!("{name}: nothing folded"));
        assert!(
            details <= 150,
            "{name}: {details} lines before the first <details>"
        );
        let steps = lines
            .iter()
            .position(|l| l.starts_with("| candidate | vs |"));
        assert!(steps.is_some_and(|s| s > header && s < details), "{name}");
    }
}

/// Every figure a committed report prints is what its samples give by the
/// rule: each level, each entry's overall ratio, the A/A control, and the
/// verdict (status, pick, chain) at the run's last look. The run that
/// measured and the report share the functions, so equal means equal.
#[test]
fn committed_figures_are_their_samples() {
    use crate::decide::paired;
    let dirs = [
        workspace::root().join("reports"),
        workspace::root().join("docs/runs/zen3"),
    ];
    let mut checked = 0;
    for path in dirs.iter().flat_map(|d| json_files(d)) {
        let r = read(&path);
        let name = path.display();
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-12 * a.abs().max(b.abs());
        for e in r.entries() {
            for s in &e.speed {
                if !s.samples.is_empty() {
                    assert!(
                        close(s.ticks_per_op, paired::level(&s.samples)),
                        "{name}: {}",
                        e.name
                    );
                }
            }
            if let Some(o) = e.overall {
                let again = r.faster(&e.name, &r.run.reference).unwrap();
                assert!(
                    close(o.low, again.low) && close(o.high, again.high),
                    "{name}: {}",
                    e.name
                );
            }
        }
        let v = r.decide();
        assert_eq!(v.status, r.verdict.status, "{name}");
        assert_eq!(v.pick, r.verdict.pick, "{name}");
        assert_eq!(v.chain, r.verdict.chain, "{name}");
        checked += 1;
    }
    assert!(checked >= 6, "{checked} reports");
}

/// The committed calibrations are what the code renders from their JSON.
#[test]
fn committed_calibrations_render_as_committed() {
    let dir = crate::report::calibration::dir(&workspace::root().join("reports"));
    let files = json_files(&dir);
    assert!(!files.is_empty(), "{}", dir.display());
    for path in files {
        let cal: crate::report::calibration::Calibration =
            serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        let md = std::fs::read_to_string(path.with_extension("md")).unwrap();
        assert!(
            md == crate::render::calibration::markdown(&cal),
            "{}: not what its JSON renders to; run `cargo xtask calibrate {}` again",
            path.with_extension("md").display(),
            cal.cipher
        );
    }
}

/// The committed cross-machine reports (`reports/machines/CIPHER.*`) are
/// what merging their inputs gives today: each is merged again from the
/// files its command names, by today's rule, and must render to the
/// committed markdown and SVG (a change to the rule or the estimator that
/// left a merge behind fails here, as a report's does above).
#[test]
fn committed_merges_are_their_inputs_merged_today() {
    let root = workspace::root();
    let files = json_files(&root.join("reports/machines"));
    assert!(!files.is_empty(), "no committed merge");
    for path in files {
        let committed: crate::report::merged::Merged =
            serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        let inputs = (committed.generated_by.strip_prefix("cargo xtask merge "))
            .unwrap_or_else(|| panic!("{}: not a merge", path.display()));
        let reports: Vec<(Report, String)> = inputs
            .split_whitespace()
            .map(|p| (read(&root.join(p)), p.to_string()))
            .collect();
        let here = read(&root.join(format!("reports/{}.json", committed.cipher)));
        let merged =
            crate::report::merged::merge(reports, &committed.generated_by, Some(&here)).unwrap();
        let stale = |ext: &str| {
            format!(
                "{} is stale: run `{}`",
                path.with_extension(ext).display(),
                committed.generated_by
            )
        };
        let md = std::fs::read_to_string(path.with_extension("md")).unwrap();
        assert!(
            md == crate::render::merge::markdown::render(&merged),
            "{}",
            stale("md")
        );
        let svg = std::fs::read_to_string(path.with_extension("svg")).unwrap();
        assert!(
            svg == crate::render::merge::svg::render(&merged),
            "{}",
            stale("svg")
        );
    }
}
