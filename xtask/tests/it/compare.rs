//! `cargo xtask compare` from the outside: bad input, an end-to-end run on
//! real artifacts (which also checks, in a release build, that the variants
//! differ in machine code), and injected faults.

use crate::common::{entry, root};

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::process::Output;
use tempfile::TempDir;

fn xtask(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = crate::common::xtask_command();
    cmd.args(args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("xtask runs")
}

fn scratch(name: &str) -> TempDir {
    tempfile::Builder::new()
        .prefix(&format!("xtask-{name}-"))
        .tempdir()
        .unwrap()
}

/// Bad input: exit 2, a first line naming what is allowed, a hint, no panic.
fn check_usage(args: &[&str], expected: &str) {
    check_usage_os(&args.iter().map(OsStr::new).collect::<Vec<_>>(), expected);
}

fn check_usage_os(args: &[&OsStr], expected: &str) {
    let out = crate::common::xtask_command()
        .args(args)
        .output()
        .expect("xtask runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
    let first = stderr.lines().next().unwrap_or_default();
    assert!(
        first.contains(expected),
        "{args:?}: `{first}` lacks `{expected}`"
    );
    assert!(
        stderr
            .lines()
            .nth(1)
            .is_some_and(|l| l.starts_with("hint: ")),
        "{args:?}: {stderr}"
    );
    assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    assert_eq!(
        stderr.lines().count(),
        2,
        "{args:?}: one line and a hint: {stderr}"
    );
}

#[test]
fn bad_input() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["compare", "cast7"],
            "unknown cipher `cast7`; expected one of: ",
        ),
        (
            &["compare", "cast6", "--variants", "never,sometimes"],
            "unknown variant `sometimes` of cast6; expected one of: always, ",
        ),
        (
            &["compare", "cast6", "--variants", "never"],
            "the reference variant `auto` is not among those measured (never)",
        ),
        (
            &["compare", "cast6", "--sizes", "0"],
            "invalid value '0' for '--sizes <LIST>': block sizes are whole numbers from 1 to 1048576",
        ),
        (
            &["compare", "cast6", "--sec", "-1"],
            "invalid value '-1' for '--sec <SECS>': seconds are a number above 0",
        ),
        (
            &["compare", "cast6", "--rounds", "2"],
            "invalid value '2' for '--rounds <N>': rounds are one whole number from 3 to 1000",
        ),
        (
            &["compare", "cast6", "--fast"],
            "unexpected argument '--fast' found",
        ),
        (
            &["compare"],
            "the following required arguments were not provided: <CIPHER|all>",
        ),
        (
            &["compare", "cast6", "cast5"],
            "unexpected argument 'cast5' found",
        ),
        (&["frobnicate"], "unrecognized subcommand 'frobnicate'"),
    ];
    for (args, expected) in cases {
        check_usage(args, expected);
    }
}

/// clap's own errors are usage errors too: one line, a hint naming the
/// command's help, exit 2.
#[test]
fn clap_usage_errors() {
    let cases: &[(&[&str], &str, &str)] = &[
        (
            &["gate", "--frobnicate"],
            "unexpected argument '--frobnicate'",
            "cargo xtask gate --help",
        ),
        (
            &["compare", "cast6", "--quik"],
            "unexpected argument '--quik'",
            "a similar argument exists: '--quick'",
        ),
        (
            &["compare", "cast6", "--rounds", "1001"],
            "'--rounds <N>': rounds are one whole number from 3 to 1000",
            "cargo xtask compare --help",
        ),
        (
            &["compare", "cast6", "--rounds", "3.5"],
            "'--rounds <N>'",
            "compare --help",
        ),
        (
            &["compare", "cast6", "--sizes", "16,1048577"],
            "'--sizes <LIST>'",
            "compare --help",
        ),
        (
            &["compare", "cast6", "--sec", "3601"],
            "'--sec <SECS>'",
            "compare --help",
        ),
        (
            &["compare", "cast6", "--budget", "inf"],
            "'--budget <SECS>'",
            "compare --help",
        ),
        (
            &["compare", "cast6", "--threshold", "101"],
            "'--threshold <PCT>': a percentage from 0 to 100",
            "compare --help",
        ),
        (
            &["gate", "--time-threshold", "-1"],
            "'--time-threshold <PCT>'",
            "gate --help",
        ),
        (
            &["bloat", "cast6", "-n", "x"],
            "invalid value 'x' for '-n <N>'",
            "bloat --help",
        ),
        (
            &["render", "a", "b"],
            "unexpected argument 'b'",
            "render --help",
        ),
    ];
    for (args, cause, hint) in cases {
        check_usage(args, cause);
        let stderr = String::from_utf8_lossy(&xtask(args, &[]).stderr).into_owned();
        assert!(
            stderr.lines().nth(1).unwrap().contains(hint),
            "{args:?}: {stderr}"
        );
    }
    // An argument that is not UTF-8: an error, not a panic.
    let bad = OsStr::from_bytes(b"cast\xff");
    check_usage_os(&[OsStr::new("compare"), bad], "invalid UTF-8");
    check_usage_os(
        &[OsStr::new("gate"), OsStr::new("--against"), bad],
        "invalid UTF-8",
    );
    check_usage_os(&[bad], "unrecognized subcommand");
}

/// `--help` (and a bare `cargo xtask`) prints help and succeeds; the hidden
/// commands stay out of it, as does the old name of --reference.
#[test]
fn help_exits_zero() {
    for args in [
        &[][..],
        &["--help"],
        &["help"],
        &["compare", "--help"],
        &["compare", "-h"],
        &["render", "--help"],
        &["gate", "--help"],
        &["baseline", "--help"],
        &["bloat", "--help"],
        &["help", "gate"],
    ] {
        let out = xtask(args, &[]);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {stdout}");
        assert!(stdout.contains("Usage: cargo xtask"), "{args:?}: {stdout}");
        assert!(
            !stdout.contains("__"),
            "{args:?}: hidden commands shown: {stdout}"
        );
        assert!(!stdout.contains("baseline-variant"), "{args:?}: {stdout}");
    }
}

fn read_json(dir: &Path) -> serde_json::Value {
    read_json_of(dir, "cast6")
}

fn read_json_of(dir: &Path, cipher: &str) -> serde_json::Value {
    let path = dir.join(format!("{cipher}.json"));
    serde_json::from_slice(&std::fs::read(&path).expect("the report's JSON")).expect("JSON")
}

/// One small real run: three variants and the peer, built in release, sized,
/// timed, reported.
#[test]
fn end_to_end() {
    let out_dir_tmp = scratch("e2e");
    let out_dir = out_dir_tmp.path();
    let out = xtask(
        &[
            "compare",
            "cast6",
            "--quick",
            "--variants",
            "always,never,auto",
            "--sizes",
            "16",
            "--rounds",
            "3",
            "--sec",
            "0.003",
            // The first pass only: no racing process.
            "--budget",
            "0.001",
            "--out",
            out_dir.to_str().unwrap(),
        ],
        &[],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    // Built (on every core) or reused, each said as it finishes.
    let always = (stderr.lines())
        .find(|l| l.contains("] cast6-always ... "))
        .unwrap_or_else(|| panic!("progress lines: {stderr}"));
    let footprint = always.split(", footprint ").nth(1).unwrap_or_default();
    assert!(
        footprint.starts_with(|c: char| c.is_ascii_digit()) && footprint.contains(" bytes"),
        "progress line: {always}"
    );
    let json = read_json(out_dir);
    assert_eq!(json["schema_version"], 7);
    assert_eq!(json["cipher"], "cast6");
    assert_eq!(json["run"]["quick"], true);

    // Release build, symbols read from the artifacts: `never` keeps every
    // round function out of line, `always` none.
    let rounds: Vec<&str> = json_strs(&entry(&json, "never")["artifact"]["rounds_out_of_line"]);
    assert_eq!(rounds, ["f1", "f2", "f3", "q", "qbar", "w"]);
    assert!(json_strs(&entry(&json, "always")["artifact"]["rounds_out_of_line"]).is_empty());

    // What was timed is the file that was sized.
    for name in ["always", "never", "auto"] {
        let e = entry(&json, name);
        assert_eq!(e["status"], "ok", "{name}: {e}");
        let path = root().join(e["artifact"]["path"].as_str().unwrap());
        let on_disk = bench_harness::so::fingerprint(&path).unwrap();
        assert_eq!(
            e["artifact"]["fingerprint"],
            on_disk.as_str(),
            "{name}: sized file"
        );
        assert_eq!(
            e["measured_fingerprint"],
            on_disk.as_str(),
            "{name}: measured file"
        );
        assert!(e["artifact"]["text_bytes"].as_u64().unwrap() > 1000);
        let speed = &e["speed"][0];
        assert!(speed["bytes_per_sec"].as_f64().unwrap() > 0.0);
        assert_eq!(speed["block_bytes"], 16);
    }
    assert_eq!(json["peers"][0]["name"], "rustcrypto");
    let md = std::fs::read_to_string(out_dir.join("cast6.md")).unwrap();
    verdict_control_and_setkey(&json, &md);
    recomputed_from_samples(&json, &md);
    parse_svg(&out_dir.join("cast6.svg"));
    let svg = std::fs::read_to_string(out_dir.join("cast6.svg")).unwrap();
    assert!(
        !svg.lines().next().unwrap().contains("--quick"),
        "XML comments hold no --"
    );
    // No temporary file is left behind.
    let leftovers: Vec<_> = std::fs::read_dir(out_dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().contains(".tmp"))
        .collect();
    assert!(leftovers.is_empty());
}

/// Decided or not, a verdict with its status (inconclusive is a result:
/// exit 0, with its reasons and the command to run again); the A/A control;
/// key setup per key size.
fn verdict_control_and_setkey(json: &serde_json::Value, md: &str) {
    match json["verdict"]["status"].as_str() {
        Some("decided") => {
            assert!(json["verdict"]["pick"].is_string());
            assert!(md.contains("**Verdict: use `"));
        }
        Some("inconclusive") => {
            assert!(json["verdict"]["pick"].is_null());
            assert!(!json["verdict"]["reasons"].as_array().unwrap().is_empty());
            assert!(md.contains("**Verdict: inconclusive.**"));
            // How to run again: the whole run, or only the picks it left
            // possible (`--variants`).
            let rerun = json["verdict"]["rerun"].as_str().unwrap();
            assert!(rerun.starts_with("cargo xtask compare cast6"), "{rerun}");
            assert!(md.contains(&format!("`{rerun}`")), "{rerun}");
        }
        other => panic!("verdict status {other:?}"),
    }
    assert!(md.starts_with("<!-- Generated by `cargo xtask compare cast6 --quick`"));
    // The A/A control, timed like any other contender.
    assert_eq!(json["control"]["of"], "auto");
    assert!(
        json["control"]["ci_low"].as_f64().unwrap() <= json["control"]["ci_high"].as_f64().unwrap()
    );
    assert!(md.contains("A/A control: `auto` against a copy of its own file"));
    // Key setup, per key size of the (quick) template.
    let setkey = entry(json, "never")["speed"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["dir"] == "setkey")
        .expect("a setkey case")
        .clone();
    assert_eq!(setkey["block_bytes"], 0);
    assert!(setkey["ops_per_sec"].as_f64().unwrap() > 0.0);
}

/// The figures of a speed entry, computed again from the samples alone, by
/// an independent reading of the rule: each process's level (the 10th
/// percentile of its rounds, linear interpolation), the median over
/// processes, the MB/s it gives, and the ratio's t interval over the
/// processes' log ratios (no process set aside with three); each matches
/// the JSON and the markdown's printed figure.
fn recomputed_from_samples(json: &serde_json::Value, md: &str) {
    use bench_harness::stats;
    let hz = json["machine"]["counter_hz"].as_f64().unwrap();
    let case = |name: &str| entry(json, name)["speed"][0].clone();
    let (never, auto) = (case("never"), case("auto"));
    // The columns: the ticks, and runs of rounds from one process.
    let samples = |s: &serde_json::Value| -> Vec<(f64, u64)> {
        let c = &s["samples"];
        let process = (c["process_runs"].as_array().unwrap().iter()).flat_map(|run| {
            let (p, n) = (run[0].as_u64().unwrap(), run[1].as_u64().unwrap());
            std::iter::repeat_n(p, n as usize)
        });
        (c["ticks_per_op"].as_array().unwrap().iter())
            .zip(process)
            .map(|(t, p)| (t.as_f64().unwrap(), p))
            .collect()
    };
    let processes = json["run"]["processes"].as_u64().unwrap();
    assert_eq!(
        processes, 3,
        "a quick first pass, no racing within the budget"
    );
    let levels = |s: &[(f64, u64)]| -> Vec<f64> {
        (0..processes)
            .map(|p| {
                let mut t: Vec<f64> = s.iter().filter(|x| x.1 == p).map(|x| x.0).collect();
                t.sort_by(f64::total_cmp);
                let pos = 0.1 * (t.len() - 1) as f64;
                let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
                t[lo] + (t[hi] - t[lo]) * (pos - lo as f64)
            })
            .collect()
    };
    let (mine, theirs) = (levels(&samples(&never)), levels(&samples(&auto)));
    let median = stats::median(&mine);
    let block = never["block_bytes"].as_f64().unwrap();
    let mb_s = block * hz / median / 1e6;
    assert!((never["ticks_per_op"].as_f64().unwrap() - median).abs() < 1e-9 * median);
    let row = md
        .lines()
        .find(|l| l.starts_with("| cast6-never | ") && l.contains("MB/s"))
        .unwrap();
    assert!(
        row.contains(&format!("{mb_s:.1} MB/s")),
        "{mb_s:.1} in {row}"
    );
    let logs: Vec<f64> = mine
        .iter()
        .zip(&theirs)
        .map(|(m, t)| (t / m).ln())
        .collect();
    let n = logs.len() as f64;
    let mean = logs.iter().sum::<f64>() / n;
    let var = logs.iter().map(|l| (l - mean).powi(2)).sum::<f64>() / (n - 1.0);
    // Student's t at 97.5% with 2 degrees of freedom (NIST's table).
    let half = 4.302653 * (var / n).sqrt();
    let r = stats::Ratio::from_log(mean, half);
    for (field, value) in [("ratio", r.ratio), ("low", r.low), ("high", r.high)] {
        let stored = never["ratio"][field].as_f64().unwrap();
        assert!(
            (stored - value).abs() < 1e-6 * value,
            "{field}: {stored} vs {value}"
        );
    }
    let pct = format!(
        "{:+.1}% [{:+.1}%, {:+.1}%]",
        (r.ratio - 1.0) * 100.0,
        (r.low - 1.0) * 100.0,
        (r.high - 1.0) * 100.0
    );
    // The ratios per case: a table per mode and direction, after the
    // speeds' table of the same heading; a column per block size.
    assert_eq!(block, 16.0, "one block size, one column");
    let lines: Vec<&str> = md.lines().collect();
    let heading = lines
        .iter()
        .rposition(|l| *l == "### ecb(cast6) encrypt, 128-bit key")
        .expect("the ratios of ecb(cast6) encryption");
    let line = lines[heading..]
        .iter()
        .find(|l| l.starts_with("| `never` |"))
        .unwrap();
    assert!(line.contains(&pct), "{pct} in {line}");
}

/// crc32c `bytewise_always` and `bytewise_auto` build to the same machine code: one group, said
/// in the JSON and the report; the verdict counts them once.
#[test]
fn identical_code_is_detected() {
    let out_dir_tmp = scratch("same");
    let out_dir = out_dir_tmp.path();
    let out = xtask(
        &[
            "compare",
            "crc32c",
            "--quick",
            "--variants",
            "bytewise_always,bytewise_auto",
            "--reference",
            "bytewise_always",
            "--no-peer",
            "--sizes",
            "16",
            "--rounds",
            "3",
            "--sec",
            "0.003",
            "--out",
            out_dir.to_str().unwrap(),
        ],
        &[],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let json = read_json_of(out_dir, "crc32c");
    assert!(entry(&json, "bytewise_always")["same_code_as"].is_null());
    assert_eq!(
        entry(&json, "bytewise_auto")["same_code_as"],
        "bytewise_always"
    );
    assert_eq!(
        entry(&json, "bytewise_auto")["artifact"]["hot_path_code"],
        entry(&json, "bytewise_always")["artifact"]["hot_path_code"]
    );
    let md = std::fs::read_to_string(out_dir.join("crc32c.md")).unwrap();
    assert!(
        md.contains("`bytewise_always` = `bytewise_auto`: the same machine code on the hot path")
    );
    assert!(md.contains("so one candidate, `bytewise_"), "{md}");
    assert!(
        md.contains(": the member with the smallest footprint ("),
        "{md}"
    );
    parse_svg(&out_dir.join("crc32c.svg"));
    let svg = std::fs::read_to_string(out_dir.join("crc32c.svg")).unwrap();
    let doc = roxmltree::Document::parse(&svg).unwrap();
    assert!(
        doc.descendants().any(|n| n
            .text()
            .is_some_and(|t| t.trim() == "1: bytewise_always = bytewise_auto")),
        "one point for the group"
    );
}

/// A variant that fails to build, and one that crashes the measuring
/// process: each is marked failed with its reason, the others are still
/// measured, and the exit code is 1.
#[test]
#[ignore = "CI tier: builds many artifacts; .ci/run runs it (see ARCHITECTURE.md, Tests)"]
fn faults_are_reported() {
    for (fault, reason) in [
        ("build:never", "build failed"),
        ("crash:never", "crashed while measured"),
    ] {
        let out_dir_tmp = scratch("fault");
        let out_dir = out_dir_tmp.path();
        let out = xtask(
            &[
                "compare",
                "cast6",
                "--quick",
                "--variants",
                "never,auto",
                "--no-peer",
                "--sizes",
                "16",
                "--rounds",
                "3",
                "--sec",
                "0.003",
                "--out",
                out_dir.to_str().unwrap(),
            ],
            &[("INLINELAB_FAULT", fault)],
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{fault}: {stderr}");
        let json = read_json(out_dir);
        let never = entry(&json, "never");
        assert_eq!(never["status"], "failed", "{fault}");
        assert!(
            never["reason"].as_str().unwrap().contains(reason),
            "{fault}: {never}"
        );
        assert_eq!(entry(&json, "auto")["status"], "ok", "{fault}");
        let md = std::fs::read_to_string(out_dir.join("cast6.md")).unwrap();
        assert!(md.contains("**`never` failed:**"), "{fault}");
        parse_svg(&out_dir.join("cast6.svg"));
    }
}

/// A fault that would inject nothing (a name no contender has, a kind
/// nobody knows, no `:`) is a usage error before anything is built: exit
/// 2, one line, nothing written.
#[test]
fn a_fault_that_injects_nothing_is_refused() {
    for fault in ["slow-key24:never", "slow-key24", "slower:tables_auto"] {
        let out_dir_tmp = scratch("fault-nothing");
        let out_dir = out_dir_tmp.path();
        let out = xtask(
            &[
                "compare",
                "aes",
                "--quick",
                "--variants",
                "tables_auto",
                "--no-peer",
                "--out",
                out_dir.to_str().unwrap(),
            ],
            &[("INLINELAB_FAULT", fault)],
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{fault}: {stderr}");
        assert!(stderr.contains("INLINELAB_FAULT"), "{fault}: {stderr}");
        assert!(!stderr.contains("building"), "{fault}: built: {stderr}");
        assert_eq!(std::fs::read_dir(out_dir).unwrap().count(), 0, "{fault}");
    }
}

/// An artifact that says this CPU cannot run it (the loader asks first) is
/// reported as unavailable, with its size, and is not a failure (exit 0):
/// a block cipher's AES-NI form, as on a CPU without AES-NI (the fault
/// makes the artifact answer no whatever the CPU; a checksum's answer
/// goes through the same symbol and loader).
#[test]
fn unavailable_is_reported_not_failed() {
    let out_dir_tmp = scratch("unavailable");
    let out_dir = out_dir_tmp.path();
    let out = xtask(
        &[
            "compare",
            "aes",
            "--quick",
            "--variants",
            "tables_auto,aesni_hint",
            "--no-peer",
            "--sizes",
            "16",
            "--rounds",
            "3",
            "--sec",
            "0.003",
            "--out",
            out_dir.to_str().unwrap(),
        ],
        &[("INLINELAB_FAULT", "unavailable:aesni_hint")],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let json = read_json_of(out_dir, "aes");
    let ni = entry(&json, "aesni_hint");
    assert_eq!(ni["status"], "unavailable", "{ni}");
    assert!(ni["artifact"]["text_bytes"].as_u64().unwrap() > 0, "{ni}");
    assert_eq!(entry(&json, "tables_auto")["status"], "ok");
    let md = std::fs::read_to_string(out_dir.join("aes.md")).unwrap();
    assert!(
        md.contains("aesni_hint") && md.contains("unavailable"),
        "{md}"
    );
    parse_svg(&out_dir.join("aes.svg"));
}

/// Every SVG a test run produces is well-formed XML.
fn parse_svg(path: &Path) {
    let svg = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    if let Err(e) = roxmltree::Document::parse(&svg) {
        panic!("{}: not well-formed XML: {e}", path.display());
    }
}

fn json_strs(v: &serde_json::Value) -> Vec<&str> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap())
        .collect()
}

/// A flag value rustc or cargo does not take, an empty list, a CPU or
/// feature this CPU cannot run, more flag sets than a run builds, a grid
/// over the profile's reports: exit 2, one line and a hint, before
/// anything is built.
#[test]
fn flag_values_that_do_not_build_are_refused() {
    let reports = root().join("reports");
    let cases: [(&[&str], &str); 10] = [
        (&["--opt-level", "4"], "not an opt-level cargo takes"),
        (&["--lto", "maybe"], "not an lto value cargo takes"),
        (
            &["--target-cpu", "pentium9"],
            "not a target CPU rustc knows",
        ),
        (
            &["--target-feature", "+nosuchfeature"],
            "not a list of target features",
        ),
        (&["--opt-level="], "--opt-level has no value"),
        // Stable features no CPU these machines run on has all of.
        (
            &["--target-feature", "+avx512vp2intersect+widekl+sm4"],
            "this CPU lacks",
        ),
        (&["--target-feature", "+amx-tile"], "unstable feature"),
        (&["--target-feature", "-sse2"], "the ABI"),
        (
            &[
                "--opt-level",
                "0,1,2,3,s,z",
                "--lto",
                "false,off,thin,fat",
                "--target-cpu",
                "x86-64,x86-64-v2,native",
            ],
            "more than the 48 one run builds",
        ),
        (
            &["--opt-level", "3,s", "--out", reports.to_str().unwrap()],
            "a flag grid's report does not go over",
        ),
    ];
    for (flags, cause) in cases {
        let mut args = vec!["compare", "cast6", "--variants", "auto"];
        args.extend_from_slice(flags);
        check_usage(&args, cause);
    }
}

/// A flag grid, end to end on two variants and two target CPUs: every
/// contender built under each flag set (its name `VARIANT~SET`, its own
/// target directory and fingerprint), one verdict over them all, the pick
/// under each set and the inversions on the first screen; `merge` refuses
/// the grid's report (several profiles), `render` renders it again as it
/// is.
#[test]
#[ignore = "CI tier: builds every contender under each flag set, dependencies too; .ci/run runs it (see ARCHITECTURE.md, Tests)"]
fn a_flag_grid_is_built_and_decided_per_set() {
    let out_dir_tmp = scratch("flags");
    let out_dir = out_dir_tmp.path();
    let out = xtask(
        &[
            "compare",
            "cast6",
            "--quick",
            "--variants",
            "never,auto",
            // The sets `an_older_cpu_runs_each_check` builds too: their
            // dependencies compiled once in a run of both.
            "--target-cpu",
            "x86-64,x86-64-v3",
            "--sizes",
            "16",
            "--budget",
            "0.001",
            "--out",
            out_dir.to_str().unwrap(),
        ],
        &[],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let json = read_json(out_dir);
    let sets: Vec<&str> = (json["flag_sets"].as_array().unwrap().iter())
        .map(|s| s["target_cpu"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(sets, ["x86-64", "x86-64-v3"]);
    for name in [
        "never~x86-64",
        "auto~x86-64",
        "never~x86-64-v3",
        "auto~x86-64-v3",
    ] {
        let e = entry(&json, name);
        assert_eq!(e["flags"], name.split('~').nth(1).unwrap(), "{name}");
    }
    let peer = (json["peers"].as_array().unwrap().iter())
        .find(|e| e["name"] == "rustcrypto~x86-64-v3")
        .expect("the peer under each flag set");
    assert_eq!(peer["flags"], "x86-64-v3");
    // Each flag set's artifacts are their own files, built apart.
    let fingerprint = |n: &str| entry(&json, n)["artifact"]["fingerprint"].clone();
    assert_ne!(fingerprint("auto~x86-64"), fingerprint("auto~x86-64-v3"));
    assert_eq!(json["run"]["reference_variant"], "auto~x86-64");
    let md = std::fs::read_to_string(out_dir.join("cast6.md")).unwrap();
    assert!(md.contains("**Which flags and which variant.**"), "{md}");
    assert!(md.contains("| `x86-64` | -Ctarget-cpu=x86-64 |"), "{md}");
    assert!(
        md.contains("| `x86-64-v3` | -Ctarget-cpu=x86-64-v3 |"),
        "{md}"
    );
    let report = out_dir.join("cast6.json");
    let merged = xtask(
        &["merge", report.to_str().unwrap(), report.to_str().unwrap()],
        &[],
    );
    let stderr = String::from_utf8_lossy(&merged.stderr);
    assert_eq!(merged.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("a flag grid's report"), "{stderr}");
    std::fs::remove_file(out_dir.join("cast6.md")).unwrap();
    let rendered = xtask(&["render", out_dir.to_str().unwrap()], &[]);
    assert!(
        rendered.status.success(),
        "{}",
        String::from_utf8_lossy(&rendered.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(out_dir.join("cast6.md")).unwrap(),
        md
    );
}

/// A quick compare of `cipher`'s `variants` with `more` arguments at 16
/// bytes, in `dir`: it succeeds, and its report's JSON.
fn quick(cipher: &str, variants: &str, more: &[&str], dir: &Path) -> serde_json::Value {
    let mut args = vec!["compare", cipher, "--quick", "--variants", variants];
    args.extend_from_slice(more);
    args.extend([
        "--sizes",
        "16",
        "--budget",
        "0.001",
        "--out",
        dir.to_str().unwrap(),
    ]);
    let out = xtask(&args, &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    read_json_of(dir, cipher)
}

/// On a CPU without the extensions (qemu's `qemu64`): cast6 built for
/// x86-64-v3 dies of an illegal instruction there, a failure said but not
/// held against it (its flag set asked for more than the baseline), while
/// the baseline builds compute the oracle's answer; AES-NI's form says it
/// cannot run there, and the aes crate falls back.
#[test]
#[ignore = "CI tier: needs qemu-user (.ci/run installs it) and builds a flag grid"]
fn an_older_cpu_runs_each_check() {
    let tmp = scratch("older-cpu");
    let json = quick(
        "cast6",
        "auto",
        &["--target-cpu", "x86-64,x86-64-v3"],
        tmp.path(),
    );
    let older = |name: &str| entry(&json, name)["older_cpu"].clone();
    assert_eq!(older("auto~x86-64")["outcome"], "right", "{json}");
    let v3 = older("auto~x86-64-v3");
    assert_eq!(v3["outcome"], "failed", "{v3}");
    assert_eq!(v3["built_beyond"], true, "{v3}");
    assert!(v3["why"].as_str().unwrap().contains("SIGILL"), "{v3}");
    // Said, not held against it: timed like the others.
    assert_eq!(entry(&json, "auto~x86-64-v3")["status"], "ok", "{json}");
    let md = std::fs::read_to_string(tmp.path().join("cast6.md")).unwrap();
    assert!(md.contains("## On a CPU without the extensions"), "{md}");
    assert!(
        md.contains("- `auto~x86-64-v3`: killed by signal 4 (SIGILL, an illegal instruction); built for a CPU beyond the baseline"),
        "{md}"
    );

    let tmp = scratch("older-cpu-aes");
    let json = quick("aes", "tables_auto,aesni_auto", &[], tmp.path());
    let older = |name: &str| entry(&json, name)["older_cpu"].clone();
    assert_eq!(older("aesni_auto")["outcome"], "unavailable", "{json}");
    assert_eq!(older("tables_auto")["outcome"], "right", "{json}");
    let peers = json["peers"].as_array().unwrap();
    assert!(!peers.is_empty());
    for p in peers {
        assert_eq!(p["older_cpu"]["outcome"], "right", "{p}");
    }
}

/// A C library's implementation is a peer as a crate's is (issue 52), and
/// runs what its declaration offers. CAST5 has both libraries', so one run
/// of it under every key size (`--keys all`) holds what the library peers
/// are checked on, the other runs building nothing new but the wrong
/// artifact: built against the system's library, checked against the
/// oracle (a wrong one is refused, never timed), timed, its sizes with
/// the whole library's. libgcrypt's CAST5 takes 16-byte keys only, so its
/// 8-byte cases are left out of its row and said, never a failure, and its
/// comparisons are on the cases both ran; a run whose every case it does
/// not offer leaves it out, saying so, unbuilt. OpenSSL's CAST5 comes from
/// its legacy provider, under 8- and 16-byte keys (its variable key
/// length). On a machine without a library or without the legacy
/// provider's module (pretended) the row is left out, saying why, and
/// nothing of it is built; a provider's module that is there but does not
/// load (a shared object that is no provider, by `OPENSSL_MODULES`) makes
/// the artifact say so, and its row is unavailable for that reason, not
/// for this CPU's.
#[test]
#[ignore = "CI tier: builds many artifacts; .ci/run runs it (see ARCHITECTURE.md, Tests)"]
fn a_library_peer_is_checked_runs_what_it_offers_and_is_left_out_where_missing() {
    let run = |keys: &str, env: &[(&str, &str)]| {
        let tmp = scratch("library-peer");
        let args = [
            "compare",
            "cast5",
            "--quick",
            "--keys",
            keys,
            "--variants",
            "auto_factored",
            "--sizes",
            "16,1024",
            "--rounds",
            "3",
            "--sec",
            "0.003",
            "--out",
            tmp.path().to_str().unwrap(),
        ];
        let out = xtask(&args, env);
        let json = read_json_of(tmp.path(), "cast5");
        let md = std::fs::read_to_string(tmp.path().join("cast5.md")).unwrap();
        (out, json, md, tmp)
    };

    // Every key size: both libraries checked against the oracle and timed.
    let (out, json, md, _tmp) = run("all", &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    for library in ["libgcrypt", "openssl"] {
        let p = peer(&json, library);
        assert_eq!(p["status"], "ok", "{library}: {p}\n{stderr}");
        assert!(!p["speed"].as_array().unwrap().is_empty(), "{library}: {p}");
    }
    let gcrypt = peer(&json, "libgcrypt");
    // Its sizes hold the library's code: far more than its wrapper's file.
    let a = &gcrypt["artifact"];
    assert!(
        a["footprint_bytes"].as_u64().unwrap() > 10 * a["so_bytes"].as_u64().unwrap(),
        "{a}"
    );
    assert!(a["hot_path_bytes"].is_null(), "{a}");
    assert!(md.contains("| peer | libgcrypt ("), "{md}");
    // libgcrypt's 8-byte cases left out of its row, and said.
    let speeds = gcrypt["speed"].as_array().unwrap();
    assert!(speeds.iter().all(|s| s["key_bits"] == 128), "{gcrypt}");
    assert!(gcrypt["overall"].is_object(), "{gcrypt}");
    let left = &gcrypt["not_offered"];
    assert_eq!(left["by"], "libgcrypt", "{gcrypt}");
    let cases = left["cases"].as_array().unwrap();
    assert!(
        !cases.is_empty() && cases.iter().all(|c| c["key_bits"] == 64),
        "{left}"
    );
    assert!(
        md.contains("**`libgcrypt` cases left out:** not offered by libgcrypt: ecb(cast5) under a 64-bit key"),
        "{md}"
    );
    assert!(
        md.contains("(libgcrypt offers 16-byte keys in ECB, CBC and CTR)"),
        "{md}"
    );
    // Every key size for the variant and OpenSSL's legacy CAST5.
    let auto = entry(&json, "auto_factored")["speed"]
        .as_array()
        .unwrap()
        .len();
    let openssl = peer(&json, "openssl");
    assert_eq!(
        openssl["speed"].as_array().unwrap().len(),
        auto,
        "{openssl}"
    );
    assert!(openssl["not_offered"].is_null(), "{openssl}");
    assert_eq!(speeds.len() * 2, auto, "{gcrypt}");

    // A wrong library peer is refused by the check against the oracle.
    let (out, json, _, _tmp) = run("all", &[("INLINELAB_FAULT", "wrong:libgcrypt")]);
    assert_eq!(out.status.code(), Some(1));
    let libgcrypt = peer(&json, "libgcrypt");
    assert_eq!(libgcrypt["status"], "failed", "{libgcrypt}");
    assert!(
        libgcrypt["reason"]
            .as_str()
            .unwrap()
            .contains("wrong output"),
        "{libgcrypt}"
    );

    // libgcrypt missing (pretended), and OpenSSL's legacy provider's module
    // there but no provider: a shared object without OSSL_provider_init
    // (libcrypto itself), which OpenSSL finds and fails to load.
    let modules = scratch("library-peer-modules");
    let libcrypto = ["/usr/lib/x86_64-linux-gnu", "/usr/lib64"]
        .iter()
        .map(|d| Path::new(d).join("libcrypto.so"))
        .find(|p| p.exists())
        .expect("libcrypto.so (Debian's libssl-dev; .ci/run installs it)");
    std::os::unix::fs::symlink(&libcrypto, modules.path().join("legacy.so")).unwrap();
    let (out, json, md, _tmp) = run(
        "all",
        &[
            ("INLINELAB_FAULT", "missing:libgcrypt"),
            ("OPENSSL_MODULES", modules.path().to_str().unwrap()),
        ],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let libgcrypt = peer(&json, "libgcrypt");
    assert_eq!(libgcrypt["status"], "unavailable", "{libgcrypt}");
    assert!(libgcrypt["artifact"].is_null(), "built: {libgcrypt}");
    let why = "libgcrypt is not installed here (libgcrypt.so not found; Debian's package libgcrypt20-dev)";
    assert!(
        libgcrypt["reason"].as_str().unwrap().contains(why),
        "{libgcrypt}"
    );
    assert!(stderr.contains(&format!("left out: {why}")), "{stderr}");
    assert!(md.contains(why), "{md}");
    let openssl = peer(&json, "openssl");
    assert_eq!(openssl["status"], "unavailable", "{openssl}\n{stderr}");
    let reason = openssl["reason"].as_str().unwrap();
    assert!(
        reason.contains("a library it calls could not be made ready (as an OpenSSL provider that would not load)"),
        "{openssl}"
    );
    assert!(!reason.contains("CPU"), "{openssl}");
    assert_eq!(entry(&json, "auto_factored")["status"], "ok");

    // The first key size only (8 bytes): libgcrypt offers none of it; and
    // OpenSSL's legacy provider not installed (pretended).
    let (out, json, md, _tmp) = run("first", &[("INLINELAB_FAULT", "no-provider:openssl")]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let gcrypt = peer(&json, "libgcrypt");
    assert_eq!(gcrypt["status"], "unavailable", "{gcrypt}");
    assert!(gcrypt["artifact"].is_null(), "built: {gcrypt}");
    let why = "not offered by libgcrypt: none of this run's cases (libgcrypt offers 16-byte keys in ECB, CBC and CTR)";
    assert_eq!(gcrypt["reason"], why, "{gcrypt}");
    assert!(md.contains(why), "{md}");
    let openssl = peer(&json, "openssl");
    assert_eq!(openssl["status"], "unavailable", "{openssl}");
    assert!(openssl["artifact"].is_null(), "built: {openssl}");
    let why = "OpenSSL's legacy provider is not installed here (legacy.so not found in";
    assert!(
        openssl["reason"].as_str().unwrap().contains(why),
        "{openssl}"
    );
    assert!(stderr.contains(&format!("left out: {why}")), "{stderr}");
    assert!(md.contains(why), "{md}");
    assert_eq!(entry(&json, "auto_factored")["status"], "ok");
}

/// The entry of the peer `name` in a report's JSON.
fn peer<'a>(json: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    (json["peers"].as_array().expect("a report's peers").iter())
        .find(|e| e["name"] == name)
        .unwrap_or_else(|| panic!("no peer {name}"))
}
