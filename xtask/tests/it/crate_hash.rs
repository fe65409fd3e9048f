//! `cargo xtask compare --crate` on a hash crate: the `toyhash` fixture
//! (`digest` 0.11, `--offline`: nothing beyond the workspace's own
//! dependencies), its attributes in a `macro_rules!` body (one in a
//! `cfg_attr`) and in a `cfg_if!` branch found and edited, each copy built
//! through the shim as a hash artifact, checked streamed against the crate
//! as published and timed; a feature set as an axis; every bad input
//! refused with exit 2 and one line. Timings are never asserted.

use crate::common::{check_refused, entry, root, s, scratch};
use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::Duration;

fn toyhash() -> PathBuf {
    root().join("xtask/tests/fixtures/toyhash")
}

/// A short, cheap run of the fixture: `variants` besides `published`.
fn run(extra: &[&str], variants: &str, out: &Path, fault: Option<&str>) -> Output {
    let mut args = vec!["--type", "ToyHash"];
    args.extend_from_slice(extra);
    run_fixture(&toyhash(), &args, variants, out, fault)
}

/// A short, cheap run of the hash fixture at `crate_dir` with `extra`
/// arguments: `variants` besides `published`.
fn run_fixture(
    crate_dir: &Path,
    extra: &[&str],
    variants: &str,
    out: &Path,
    fault: Option<&str>,
) -> Output {
    crate::common::quick_crate_run(crate_dir, "64", extra, variants, out, fault)
}

/// The report (named for the crate and the type: the fixture has two).
fn json(out: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(out.join("toyhash_toyhash.json")).unwrap()).unwrap()
}

/// The fixture end to end, with the feature `small` as a second set: the
/// table holds every attribute compiled on x86-64 (those written in the
/// macro body and the `cfg_if!` branch among them), the variants are
/// timed as digests, and the set's variants are built with the feature
/// (`with_small`, `mix` out of line, is other machine code than
/// `published`, so timed).
#[test]
#[ignore = "CI tier: builds many artifacts; .ci/run runs it (see ARCHITECTURE.md, Tests)"]
fn a_hash_crate_end_to_end_with_a_feature_set() {
    let tmp = scratch("crate-hash");
    let out = run(
        &["--features", "small"],
        "none,drop_4,with_small",
        tmp.path(),
        None,
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("a hash, 20-byte digests; 9 inline attributes (7 compiled on this target)"),
        "{stderr}"
    );
    assert!(
        stderr.contains("with small, type ToyHash: a hash, 20-byte digests; 9 inline attributes (7 compiled on this target)"),
        "{stderr}"
    );
    let json = json(tmp.path());
    let a = &json["annotations"];
    assert_eq!(a["written"], 9, "every attribute written");
    let rows = a["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 7, "those compiled on x86-64: {rows:?}");
    let at = |file: &str| {
        (rows.iter())
            .filter(|r| r["location"].as_str().unwrap().starts_with(file))
            .count()
    };
    // The macro body's two (one in a cfg_attr; the other cfg_attr, for
    // `small`, is not compiled by default), `words`, and the x86-64 branch
    // of the cfg_if!; the trait methods in lib.rs.
    assert_eq!(at("src/compress.rs:"), 4, "{rows:?}");
    assert_eq!(at("src/lib.rs:"), 3, "{rows:?}");
    for v in ["published", "none", "with_small"] {
        assert_eq!(entry(&json, v)["status"], "ok", "{v}: {}", entry(&json, v));
    }
    match entry(&json, "drop_4")["status"].as_str() {
        Some("ok" | "screened") => {}
        other => panic!("drop_4: {other:?}"),
    }
    let speed = entry(&json, "published")["speed"].as_array().unwrap();
    assert!(
        speed
            .iter()
            .any(|s| s["dir"] == "digest" && s["alg"] == "toyhash_toyhash"),
        "{speed:?}"
    );
    let md = std::fs::read_to_string(tmp.path().join("toyhash_toyhash.md")).unwrap();
    assert!(
        md.contains("**Of toyhash 0.1.0's 7 inline attributes compiled on this target (2 more for other targets), "),
        "{md}"
    );
}

/// A hash variant whose digest is wrong (in one call and streamed) is
/// refused before it is timed: a failed row, and exit 1.
#[test]
#[ignore = "CI tier: builds many artifacts; .ci/run runs it (see ARCHITECTURE.md, Tests)"]
fn a_wrong_hash_variant_is_a_failed_row() {
    let tmp = scratch("crate-hash-wrong");
    let out = run(&[], "none", tmp.path(), Some("wrong:none"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let json = json(tmp.path());
    let e = entry(&json, "none");
    assert_eq!(e["status"], "failed", "{e}");
    assert!(
        e["reason"].as_str().unwrap().contains("wrong output"),
        "{e}"
    );
    assert_eq!(entry(&json, "published")["status"], "ok");
}

/// Each bad input of a hash crate: exit 2, one line and a hint, and `--out`
/// not created.
#[test]
fn bad_hash_input_is_refused_with_one_line() {
    let tmp = scratch("crate-hash-bad");
    let out_dir = tmp.path().join("out");
    let out = s(&out_dir);
    let toy = toyhash();
    let usage = |args: &[&str], expected: &str| {
        check_refused(args, expected, Duration::from_secs(300), &out_dir)
    };
    let toy = s(&toy);
    let compare = |more: &[&'static str]| -> Vec<&str> {
        let mut args = vec!["compare", "--crate", toy, "--offline", "--out", out];
        args.extend_from_slice(more);
        args
    };
    usage(
        &compare(&["--type", "Wide"]),
        "Wide's digest is 128 bytes; the artifacts' ABI carries digests of 1 to 64 bytes",
    );
    usage(
        &compare(&["--type", "Empty"]),
        "Empty's digest is 0 bytes; the artifacts' ABI carries digests of 1 to 64 bytes",
    );
    usage(
        &compare(&["--type", "ToyHash", "--features", "nope"]),
        "toyhash 0.1.0 has no feature `nope`",
    );
    usage(
        &compare(&["--type", "Toy"]),
        "has no block cipher, hash, MAC, universal hash, stream cipher or AEAD type `Toy`",
    );
    usage(
        &compare(&[]),
        "toyhash 0.1.0 has 3 block cipher, hash, MAC, universal hash, stream cipher or AEAD types",
    );
}

/// The `simdhash` fixture on a CPU without AVX2 (qemu's `qemu64`): as
/// published its block function asks the CPU and falls back, so it
/// computes the oracle's answer there; with the feature `unchecked` it
/// takes its AVX2 form without asking, dies of an illegal instruction, and
/// is a failed row left out of the verdict (built for the baseline, which
/// promises that CPU), the run exiting 1.
#[test]
#[ignore = "CI tier: needs qemu-user (.ci/run installs it) and builds a crate's variants"]
fn an_unchecked_target_feature_dies_on_an_older_cpu() {
    let tmp = scratch("crate-older-cpu");
    let out = run_fixture(
        &root().join("xtask/tests/fixtures/simdhash"),
        &["--features", "unchecked"],
        "none,with_unchecked",
        tmp.path(),
        None,
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(tmp.path().join("simdhash.json")).unwrap()).unwrap();
    let older = |name: &str| entry(&json, name)["older_cpu"].clone();
    assert_eq!(older("published")["outcome"], "right", "{json}");
    assert_eq!(older("none")["outcome"], "right", "{json}");
    let unchecked = older("with_unchecked");
    assert_eq!(unchecked["outcome"], "failed", "{unchecked}");
    assert!(
        unchecked["why"].as_str().unwrap().contains("SIGILL"),
        "{unchecked}"
    );
    assert!(unchecked.get("built_beyond").is_none(), "{unchecked}");
    let e = entry(&json, "with_unchecked");
    assert_eq!(e["status"], "failed", "{e}");
    assert!(
        e["reason"]
            .as_str()
            .unwrap()
            .starts_with("fails on a CPU without the extensions, qemu64"),
        "{e}"
    );
    let md = std::fs::read_to_string(tmp.path().join("simdhash.md")).unwrap();
    assert!(
        md.contains("- `with_unchecked`: killed by signal 4 (SIGILL, an illegal instruction); built for the baseline, which promises this CPU: left out of the verdict."),
        "{md}"
    );
}

/// The `stamphash` fixture, whose build script writes `src/stamp.rs` in
/// the package's own source: the run measures it, says which file its
/// build wrote, and writes no patch (an edit there would not survive a
/// build).
#[test]
#[ignore = "CI tier: builds a crate's variants"]
fn a_build_that_writes_its_source_gets_no_patch() {
    let tmp = scratch("crate-stamp");
    let out = run_fixture(
        &root().join("xtask/tests/fixtures/stamphash"),
        &[],
        "none",
        tmp.path(),
        None,
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("[intake] the build of the crate as published wrote into the package's own source (src/stamp.rs)"),
        "{stderr}"
    );
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(tmp.path().join("stamphash.json")).unwrap()).unwrap();
    let notes = json["run"]["notes"].to_string();
    assert!(
        notes.contains("no patch written: the crate's build writes its own source (src/stamp.rs)"),
        "{notes}"
    );
    assert!(
        json["annotations"]["patch"].is_null(),
        "{}",
        json["annotations"]
    );
    assert!(!tmp.path().join("stamphash.patch").exists());
    // The fixture's own files are as committed: only copies were built.
    let stamp = std::fs::read_to_string(root().join("xtask/tests/fixtures/stamphash/src/stamp.rs"))
        .unwrap();
    assert!(stamp.starts_with("//! Written by build.rs."), "{stamp}");
}
