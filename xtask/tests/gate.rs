//! `cargo xtask gate` from the outside: a tampered baseline and a real code
//! regression fail it (exit 1, naming the metric), unchanged code counts the
//! same instructions run after run, and a bad baseline is a setup error
//! (exit 2) that leaves the file as it was.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn xtask(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_xtask"));
    cmd.args(args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("xtask runs")
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn committed_baseline() -> serde_json::Value {
    let path = root().join("reports/baseline/cast6.json");
    serde_json::from_slice(&std::fs::read(&path).expect("the committed baseline")).unwrap()
}

/// Writes `baseline` to a scratch file and returns its path.
fn scratch_baseline(name: &str, contents: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("gate-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("cast6.json");
    std::fs::write(&path, contents).unwrap();
    path
}

fn gate(baseline: &Path, env: &[(&str, &str)]) -> (Option<i32>, String, String) {
    let out = xtask(
        &[
            "gate",
            "cast6",
            "--no-time",
            "--baseline",
            baseline.to_str().unwrap(),
        ],
        env,
    );
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Sizes and instruction counts 10% smaller than measured: both named as
/// regressions, exit 1.
#[test]
fn tampered_baseline_fails() {
    let mut b = committed_baseline();
    for e in b["variants"].as_array_mut().unwrap() {
        let a = &mut e["artifact"];
        for f in ["text_bytes", "so_bytes"] {
            a[f] = serde_json::json!((a[f].as_u64().unwrap() as f64 * 0.9) as u64);
        }
        for s in e["speed"].as_array_mut().unwrap() {
            s["instructions"] = serde_json::json!(s["instructions"].as_f64().unwrap() * 0.9);
        }
    }
    let path = scratch_baseline("tampered", &serde_json::to_vec(&b).unwrap());
    let (code, stdout, stderr) = gate(&path, &[]);
    assert_eq!(code, Some(1), "{stdout}{stderr}");
    assert!(stdout.contains("| `never` .text bytes |"), "{stdout}");
    let first = stdout.lines().find(|l| l.starts_with("| `")).unwrap();
    assert!(
        first.ends_with("| **regression** |"),
        "regressions come first: {first}"
    );
    assert!(
        stdout
            .lines()
            .any(|l| l.contains("instructions/op") && l.ends_with("| **regression** |")),
        "{stdout}"
    );
    assert!(stdout.contains("+11.11%"), "{stdout}");
}

/// A real change to the generated code (one extra block of work per call in
/// `never`): the 16-byte cases' instruction counts exceed the threshold.
#[test]
fn real_regression_fails() {
    let path = scratch_baseline(
        "regress",
        &std::fs::read(root().join("reports/baseline/cast6.json")).unwrap(),
    );
    let (code, stdout, stderr) = gate(&path, &[("INLINELAB_FAULT", "regress:never")]);
    assert_eq!(code, Some(1), "{stdout}{stderr}");
    let regressions: Vec<&str> = stdout
        .lines()
        .filter(|l| l.ends_with("| **regression** |"))
        .collect();
    assert!(
        regressions.iter().all(|l| l.starts_with("| `never`")),
        "{stdout}"
    );
    assert!(
        regressions
            .iter()
            .any(|l| l.contains("16 B, instructions/op")),
        "{stdout}"
    );
    // The other variants are unchanged.
    assert!(stdout.contains("| `auto` ecb(cast6) encrypt 128-bit 16 B, instructions/op |"));
    assert!(
        !stdout
            .lines()
            .any(|l| l.starts_with("| `auto`") && l.contains("regression")),
        "{stdout}"
    );
}

/// Unchanged code: the same artifact counts the same instructions ten runs
/// in a row.
#[test]
fn instruction_counts_repeat_exactly() {
    // Build the artifacts (and check the gate passes on unchanged code).
    let path = scratch_baseline(
        "repeat",
        &std::fs::read(root().join("reports/baseline/cast6.json")).unwrap(),
    );
    let (code, stdout, stderr) = gate(&path, &[]);
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    let so = root().join("target/inlinelab/cast6/never.so");
    let copy = path.with_file_name("never.so");
    std::fs::copy(&so, &copy).unwrap();
    let runs: Vec<String> = (0..10)
        .map(|_| {
            let out = xtask(&["__instructions", "cast6", copy.to_str().unwrap()], &[]);
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            String::from_utf8_lossy(&out.stdout).into_owned()
        })
        .collect();
    assert_eq!(runs[0].lines().count(), 8, "{}", runs[0]);
    assert!(runs.iter().all(|r| r == &runs[0]), "{runs:#?}");
}

/// A bad baseline is a setup error: exit 2, a cause and a hint, and the file
/// is left as it was.
#[test]
fn bad_baselines_are_setup_errors() {
    let good = std::fs::read(root().join("reports/baseline/cast6.json")).unwrap();
    let mut other_schema = committed_baseline();
    other_schema["schema_version"] = serde_json::json!(99);
    let mut other_cipher = committed_baseline();
    other_cipher["cipher"] = serde_json::json!("cast5");
    let mut other_rustc = committed_baseline();
    other_rustc["toolchain"]["rustc"] = serde_json::json!("rustc 1.0.0");
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "truncated",
            good[..good.len() / 2].to_vec(),
            "is not valid JSON (truncated?)",
        ),
        (
            "schema",
            serde_json::to_vec(&other_schema).unwrap(),
            "has schema version 99, but this gate reads version 2",
        ),
        (
            "cipher",
            serde_json::to_vec(&other_cipher).unwrap(),
            "is a baseline for cast5, not cast6",
        ),
        (
            "toolchain",
            serde_json::to_vec(&other_rustc).unwrap(),
            "the baseline was measured with rustc 1.0.0",
        ),
    ];
    for (name, bytes, expected) in cases {
        let path = scratch_baseline(name, &bytes);
        let (code, _, stderr) = gate(&path, &[]);
        assert_eq!(code, Some(2), "{name}: {stderr}");
        assert!(
            stderr.lines().next().unwrap_or("").contains(expected),
            "{name}: {stderr}"
        );
        assert!(
            stderr.lines().nth(1).unwrap_or("").starts_with("hint: "),
            "{name}: {stderr}"
        );
        assert_eq!(
            std::fs::read(&path).unwrap(),
            bytes,
            "{name}: the baseline was changed"
        );
    }
    let toolchain = gate(
        &scratch_baseline("toolchain2", &serde_json::to_vec(&other_rustc).unwrap()),
        &[],
    )
    .2;
    assert!(
        toolchain.contains("hint: rebuild the baseline: cargo xtask baseline cast6"),
        "{toolchain}"
    );
    let (code, _, stderr) = gate(Path::new("/nonexistent/cast6.json"), &[]);
    assert_eq!(code, Some(2));
    assert!(
        stderr.contains("no baseline at /nonexistent/cast6.json"),
        "{stderr}"
    );
    assert!(
        stderr.contains("create it with: cargo xtask baseline cast6"),
        "{stderr}"
    );
}

/// Bad arguments to the gate: exit 2, naming the cause.
#[test]
fn bad_gate_arguments_are_usage_errors() {
    for (args, expected) in [
        (
            &["gate", "cast6", "--size-threshold", "-3"][..],
            "invalid value '-3' for '--size-threshold <PCT>': a percentage from 0 to 100",
        ),
        (
            &["gate", "cast7"][..],
            "unknown cipher `cast7`; expected one of: ",
        ),
        (
            &["gate", "cast6", "--against", "no-such-rev-xyz", "--no-time"][..],
            "`no-such-rev-xyz` is not a revision",
        ),
        (
            &["gate", "cast6", "--baseline", "x", "--against", "HEAD"][..],
            "--baseline and --against are two ways",
        ),
    ] {
        let out = xtask(args, &[]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
    }
}
