//! The committed reports against the code: each was measured from the
//! inputs this tree has (its inputs hash, checked first), renders to the
//! markdown and SVG committed beside it, parses back to the same JSON, and
//! holds the fingerprint of the artifact this tree builds. These need the
//! committed reports to be regenerated after any change to the inputs or
//! the schema (`cargo xtask compare all`, from a clean tree).

use super::render::parse_svg;
use crate::markdown;
use crate::report::Report;
use crate::workspace;
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

fn read(path: &Path) -> Report {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (a report of another schema: regenerate it with `cargo xtask compare all`)",
            path.display()
        )
    })
}

/// The committed reports describe this tree: measured from the same inputs
/// (checked first: a stale report says so before its rendering is
/// compared), and what the code renders from their JSON.
#[test]
fn committed_reports_are_fresh() {
    let dir = workspace::root().join("reports");
    let inputs = workspace::inputs();
    let mut reports = Vec::new();
    for path in json_files(&dir) {
        let r = read(&path);
        assert!(
            r.inputs.hash == inputs.hash,
            "{} was measured from other inputs ({}; this tree has {}): run `{}` again (or `cargo xtask compare all`)",
            path.display(),
            r.inputs.hash,
            inputs.hash,
            r.generated_by
        );
        let stale = |what: &str| {
            format!(
                "{} is stale: run `cargo xtask render` (or `{}` to measure again)",
                path.with_extension(what).display(),
                r.generated_by
            )
        };
        let md = std::fs::read_to_string(path.with_extension("md")).unwrap();
        assert!(md == markdown::render(&r), "{}", stale("md"));
        let svg = std::fs::read_to_string(path.with_extension("svg")).unwrap();
        parse_svg(&svg);
        assert!(Some(svg) == crate::chart::render(&r), "{}", stale("svg"));
        reports.push(r);
    }
    assert!(!reports.is_empty(), "no committed report in reports/");
    reports.sort_by(|a, b| a.cipher.cmp(&b.cipher));
    let index = std::fs::read_to_string(dir.join("README.md")).expect("reports/README.md");
    assert!(
        index == markdown::render_index(&reports),
        "reports/README.md is stale: run `cargo xtask compare all`"
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
    for path in json_files(&root)
        .into_iter()
        .chain(json_files(&root.join("baseline")))
    {
        let text = std::fs::read_to_string(&path).unwrap();
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        let r = read(&path);
        assert!(
            serde_json::to_value(&r).unwrap() == value,
            "{} changes on a round trip",
            path.display()
        );
        checked += 1;
    }
    assert!(checked >= 8, "{checked} files");
}

/// What the committed report says was measured is what this tree builds:
/// the reference variant of one cipher, built here, has the fingerprint the
/// committed report recorded. One build stands for all: the inputs hash of
/// every report is checked against this tree (`committed_reports_are_fresh`),
/// so what this adds is that the same inputs build the same bytes (the
/// build is reproducible here), which one artifact shows.
#[test]
fn committed_fingerprints_are_what_this_tree_builds() {
    use crate::artifacts::{self, Selection};
    let cipher = "cast6";
    let r = read(
        &workspace::root()
            .join("reports")
            .join(format!("{cipher}.json")),
    );
    let entry = crate::ciphers::named(cipher, false, "compare").unwrap()[0];
    let reference = &r.run.reference;
    let committed = r
        .variants
        .iter()
        .find(|e| &e.name == reference)
        .and_then(|e| e.artifact.as_ref())
        .unwrap_or_else(|| panic!("{cipher}: no artifact for `{reference}`"));
    let dest = workspace::target_dir_default()
        .join("inlinelab")
        .join("fresh")
        .join(format!("{cipher}-{reference}.so"));
    let selection = Selection::Variant {
        module: entry.module,
        variant: reference,
    };
    let built = artifacts::build(
        &crate::tree::Tree::here(),
        &selection,
        &[],
        "variants",
        &dest,
    )
    .unwrap_or_else(|e| panic!("{cipher}::{reference}: {e}"));
    let here = bench_harness::so::fingerprint(&built.so).unwrap();
    assert_eq!(
        here, committed.fingerprint,
        "reports/{cipher}.json records `{reference}` as {}, this tree builds {here}: run `cargo xtask compare all` again",
        committed.fingerprint
    );
}
