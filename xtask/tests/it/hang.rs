//! An artifact that never returns (`INLINELAB_FAULT=hang:NAME`, the
//! artifact's `fault-hang` feature: every operation spins forever): the
//! process that runs it, measuring (`compare`) or counting under valgrind
//! (`gate`), is killed at its deadline, the variant is reported `hung`, the
//! others are measured, and the command exits 1. The deadlines are those
//! of the plan (`xtask/src/deadline.rs`), short for `--quick` and for a
//! cipher of few variants, so each test takes seconds, not minutes; each
//! prints its wall time.

use crate::common::entry;

use std::path::Path;
use std::process::Output;
use std::time::Instant;

fn xtask(args: &[&str], fault: &str) -> Output {
    crate::common::xtask_command()
        .args(args)
        .env("INLINELAB_FAULT", fault)
        .output()
        .expect("xtask runs")
}

fn read_json(path: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// `compare --quick` on two variants, one of which hangs the measuring
/// process: it is `hung` in the JSON and the markdown, the other measured.
#[test]
#[ignore = "CI tier: builds many artifacts; .ci/run runs it (see ARCHITECTURE.md, Tests)"]
fn compare_kills_a_hung_variant_and_measures_the_others() {
    let out_dir = tempfile::tempdir().unwrap();
    let start = Instant::now();
    let out = xtask(
        &[
            "compare",
            "cast6",
            "--quick",
            "--variants",
            "never,auto",
            "--no-peer",
            "--out",
            out_dir.path().to_str().unwrap(),
        ],
        "hang:never",
    );
    eprintln!("compare with a hung variant: {:.1?}", start.elapsed());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("never hung"), "{stderr}");
    // Found by the native check against the oracle, before memcheck runs
    // (which then runs the other alone), not at memcheck's deadline.
    let found = stderr.find("cast6-never hung the measuring process");
    let memcheck = stderr.find("looking for secret-dependent branches and indexes in 1 artifacts");
    assert!(
        matches!((found, memcheck), (Some(f), Some(m)) if f < m),
        "{stderr}"
    );
    let json = read_json(&out_dir.path().join("cast6.json"));
    let never = entry(&json, "never");
    assert_eq!(never["status"], "hung", "{never}");
    let reason = never["reason"].as_str().unwrap();
    assert!(
        reason.starts_with("hung while measured (still running at its deadline of "),
        "{reason}"
    );
    assert_eq!(entry(&json, "auto")["status"], "ok");
    let md = std::fs::read_to_string(out_dir.path().join("cast6.md")).unwrap();
    assert!(md.contains("**`never` hung:**"), "{md}");
}

/// `gate crc32c --no-time` on three variants, one of which hangs the
/// counting process: its row is a regression naming the hang (exit 1), and
/// the other two are counted and within the thresholds. (The counting
/// deadline grows with the variants counted: three keep it short.)
#[test]
#[ignore = "CI tier: builds many artifacts; .ci/run runs it (see ARCHITECTURE.md, Tests)"]
fn gate_kills_a_hung_variant_and_counts_the_others() {
    let start = Instant::now();
    let out = xtask(
        &[
            "gate",
            "crc32c",
            "--no-time",
            "--variants",
            "slice8_never,slice8_auto,bytewise_auto",
        ],
        "hang:slice8_never",
    );
    eprintln!("gate with a hung variant: {:.1?}", start.elapsed());
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");
    let hung: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("| `slice8_never` ") && l.ends_with("| **regression** |"))
        .collect();
    assert!(
        hung.iter().any(|l| l.contains(
            "counting instructions: hung while its instructions were counted (still running at its deadline of "
        )),
        "{stdout}"
    );
    for other in ["bytewise_auto", "slice8_auto"] {
        assert!(
            stdout.contains(&format!("| `{other}` | ")),
            "{other} not within the thresholds:\n{stdout}"
        );
    }
}
