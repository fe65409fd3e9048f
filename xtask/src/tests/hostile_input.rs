//! Hostile input (issue 13): the report reader and writer, the command-line
//! parser and the artifact loader, each driven with what an adversarial
//! user would give them, by hand and with generated input.

use crate::Cli;
use crate::env::outputs::{self, Kind, Outputs};
use crate::env::workspace;
use crate::render::chart;
use crate::render::markdown;
use crate::render::output;
use crate::report::Report;
use crate::report::check;
use crate::report::reader::{self, NotRead};
use clap::{CommandFactory, Parser};
use proptest::prelude::*;
use serde_json::{Value, json};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use tempfile::TempDir;

/// The committed CAST6 report, as its JSON.
pub(super) fn committed() -> Value {
    let path = workspace::root().join("reports/cast6.json");
    serde_json::from_slice(&std::fs::read(path).expect("reports/cast6.json")).unwrap()
}

fn parse(v: &Value, stem: &str) -> Result<Report, NotRead> {
    reader::parse_report(&serde_json::to_vec(v).unwrap(), stem)
}

fn refused(v: &Value, stem: &str) -> String {
    match parse(v, stem) {
        Err(NotRead::Refused(why)) => why,
        other => panic!("not refused: {other:?}"),
    }
}

fn scratch(name: &str) -> TempDir {
    tempfile::Builder::new()
        .prefix(&format!("xtask-hostile-{name}-"))
        .tempdir()
        .unwrap()
}

/// Every committed report (and baseline file, the same schema) passes the
/// reader's checks: they hold what real runs produce.
#[test]
fn the_committed_reports_are_read() {
    let root = workspace::root().join("reports");
    let read = reader::read_reports(&root).unwrap();
    assert!(read.skipped.is_empty(), "{:?}", read.skipped);
    assert!(read.reports.len() >= 5);
    let baselines = reader::read_reports(&root.join("baseline")).unwrap();
    assert!(baselines.skipped.is_empty(), "{:?}", baselines.skipped);
    assert_eq!(baselines.reports.len(), read.reports.len());
}

/// A `"cipher"` that is not a plain name (a path, `..`, a separator, upper
/// case, too long) is refused before it becomes a file name.
#[test]
fn cipher_names_from_json_are_checked() {
    for bad in [
        "../escaped",
        "/tmp/escaped",
        "..",
        "a/b",
        "",
        "CAST6",
        "cast-6",
        "cast6.md",
        "cast6\n",
        "x\0",
        &"a".repeat(33),
    ] {
        let mut v = committed();
        v["cipher"] = json!(bad);
        let why = refused(&v, bad);
        assert!(
            why.contains("is not 1 to 32 of a-z, 0-9 and _"),
            "{bad:?}: {why}"
        );
        assert!(!why.contains('\n'), "{why}");
    }
    assert!(check::valid_name(&"a".repeat(32)) && check::valid_name("cast6_x1"));
    // The writer checks too.
    let mut r = parse(&committed(), "cast6").unwrap();
    r.cipher = "../escaped".into();
    let dir_tmp = scratch("writer-name");
    let dir = dir_tmp.path();
    let inner = dir.join("reports");
    assert!(output::write(&r, &inner).is_err());
    assert!(!dir.join("escaped.json").exists() && !dir.join("escaped.md").exists());
    // Nor is a report whose values would not render.
    let mut r = parse(&committed(), "cast6").unwrap();
    r.variants[0].artifact.as_mut().unwrap().text_bytes = 0;
    let e = output::write(&r, &inner).err().unwrap();
    assert!(matches!(e, crate::error::Error::Failed(m) if m.contains(".text bytes are 0")));
    assert!(!inner.join("cast6.json").exists());
}

/// Sizes of 0 (which sent the chart's logarithmic axis into an endless
/// loop), negative or absurd numbers are refused with the entry named.
#[test]
fn values_a_run_cannot_produce_are_refused() {
    let cases: &[(&str, Value, &str)] = &[
        (
            "/variants/0/artifact/text_bytes",
            json!(0),
            ".text bytes are 0",
        ),
        ("/variants/1/artifact/so_bytes", json!(0), ".so bytes are 0"),
        (
            "/peers/0/artifact/text_bytes",
            json!(0),
            ".text bytes are 0",
        ),
        (
            "/variants/0/artifact/text_bytes",
            json!(1u64 << 40),
            ".text bytes are",
        ),
        (
            "/variants/0/speed/0/block_bytes",
            json!(0),
            "case of 0 bytes",
        ),
        (
            "/variants/0/artifact/footprint_bytes",
            json!(0),
            "footprint bytes are 0",
        ),
        (
            "/variants/0/speed/0/bytes_per_sec",
            json!(0.0),
            "bytes_per_sec is 0",
        ),
        (
            "/variants/0/speed/0/bytes_per_sec",
            json!(-5.0),
            "bytes_per_sec is -5",
        ),
        (
            "/variants/0/speed/0/bytes_per_sec",
            json!(1e300),
            "bytes_per_sec is",
        ),
        ("/variants/0/speed/0/spread", json!(-1.0), "spread is -1"),
        ("/variants/0/speed/0/ratio/low", json!(0.0), "ratio is 0"),
        ("/run/threshold", json!(7.0), "run.threshold is 7"),
        ("/run/quiet_share", json!(-0.5), "run.quiet_share"),
        ("/machine/counter_hz", json!(-1.0), "machine.counter_hz"),
    ];
    for (pointer, value, why) in cases {
        let mut v = committed();
        *v.pointer_mut(pointer)
            .unwrap_or_else(|| panic!("{pointer}")) = value.clone();
        let got = refused(&v, "cast6");
        assert!(got.contains(why), "{pointer} = {value}: {got}");
    }
    // Negative sizes are not sizes at all.
    let mut v = committed();
    v["variants"][0]["artifact"]["text_bytes"] = json!(-1);
    assert!(refused(&v, "cast6").starts_with("not a valid report: "));
}

/// Other JSON in the reports directory is skipped, not fatal: a file that
/// is no report (a `tcrypt --json` output) as foreign, one that claims to
/// be a report of another schema (or is not JSON, or is named after
/// another cipher) as refused.
#[test]
fn what_is_not_a_report() {
    let foreign = [
        json!({"schema_version": 1, "counter": {}, "measurements": [], "fits": []}),
        json!([1, 2, 3]),
        json!("cast6"),
        json!({"cipher": "cast6"}),
    ];
    for v in &foreign {
        assert!(matches!(parse(v, "cast6"), Err(NotRead::Foreign(_))), "{v}");
    }
    for version in [
        json!(0),
        json!(1),
        json!(8),
        json!(-1),
        json!("1"),
        json!(null),
        json!(1.5),
    ] {
        let mut v = committed();
        v["schema_version"] = version.clone();
        let why = refused(&v, "cast6");
        assert!(
            why.starts_with(&format!(
                "schema version {version}, but this xtask reads versions 2 to 7"
            )),
            "{why}"
        );
    }
    // A value quoted in the reason keeps it one line.
    let mut v = committed();
    v["variants"][0]["status"] = json!("<b>\n# heading\n```");
    let why = refused(&v, "cast6");
    assert!(
        why.contains("unknown variant `<b>\\n# heading\\n```"),
        "{why}"
    );
    let why = refused(&committed(), "aes");
    assert!(why.contains("holds the report of `cast6`"), "{why}");
    let not_json = reader::parse_report(b"{\"schema_version\": 1, \"cip", "cast6");
    assert!(matches!(not_json, Err(NotRead::Refused(w)) if w.starts_with("not valid JSON")));
}

/// A directory of mixed files: the reports are read, every other `.json`
/// is named with its reason; strays of dead processes are removed and a
/// report whose markdown and chart predate its JSON (a run killed between
/// the renames) is rendered again.
#[test]
fn a_directory_is_read_and_mended() {
    let dir_tmp = scratch("mend");
    let dir = dir_tmp.path();
    let good = committed();
    std::fs::write(dir.join("cast6.json"), serde_json::to_vec(&good).unwrap()).unwrap();
    std::fs::write(
        dir.join("out.json"),
        br#"{"schema_version": 1, "measurements": []}"#,
    )
    .unwrap();
    let mut zero = good.clone();
    zero["cipher"] = json!("aes");
    zero["variants"][0]["artifact"]["text_bytes"] = json!(0);
    std::fs::write(dir.join("aes.json"), serde_json::to_vec(&zero).unwrap()).unwrap();
    std::fs::create_dir(dir.join("odd.json")).unwrap();
    let read = reader::read_reports(dir).unwrap();
    assert_eq!(read.reports.len(), 1);
    let skipped: Vec<(String, bool)> = read
        .skipped
        .iter()
        .map(|s| {
            (
                s.path.file_name().unwrap().to_string_lossy().into_owned(),
                s.refused,
            )
        })
        .collect();
    assert_eq!(
        skipped,
        [
            ("aes.json".to_string(), true),
            ("odd.json".to_string(), false),
            ("out.json".to_string(), false)
        ]
    );
    assert_eq!(read.refused(), 1);

    // Written, then the JSON replaced as a killed run leaves it.
    let r = &read.reports[0];
    output::write(r, dir).unwrap();
    let mut newer = r.clone();
    newer.date = "2099-01-01".into();
    newer.variants[0].artifact.as_mut().unwrap().text_bytes += 1000;
    let json = serde_json::to_string_pretty(&newer).unwrap() + "\n";
    std::fs::write(dir.join("cast6.json"), json).unwrap();
    let strays = [".cast6.md.4194305.0.tmp", "cast6.svg.tmp4194305"];
    for s in strays {
        std::fs::write(dir.join(s), b"half").unwrap();
    }
    output::refresh(dir, false).unwrap();
    let md = std::fs::read_to_string(dir.join("cast6.md")).unwrap();
    assert_eq!(md, markdown::render(&newer));
    let svg = std::fs::read_to_string(dir.join("cast6.svg")).unwrap();
    assert_eq!(Some(svg), chart::render(&newer));
    for s in strays {
        assert!(!dir.join(s).exists(), "{s} left");
    }
    assert!(
        !dir.join("README.md").exists(),
        "no index unless there was one"
    );
    // Nothing measured: no chart, and the one of an earlier run goes.
    let mut empty = newer.clone();
    for e in empty.variants.iter_mut().chain(&mut empty.peers) {
        e.speed.clear();
    }
    assert!(chart::render(&empty).is_none());
    output::write(&empty, dir).unwrap();
    assert!(!dir.join("cast6.svg").exists());
}

/// The CAST6 artifact of `never`, built once for these tests.
fn artifact() -> PathBuf {
    use crate::build::artifacts;
    use crate::select::contenders::Selection;
    static BUILT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    BUILT
        .get_or_init(|| {
            let dest = workspace::target_dir_default()
                .join("inlinelab")
                .join("hostile")
                .join("cast6-never.so");
            let selection = Selection::Variant {
                module: "cast6",
                variant: "never",
            };
            artifacts::build(
                &crate::env::tree::Tree::here(),
                &selection,
                &[],
                "variants",
                &dest,
            )
            .unwrap_or_else(|e| panic!("cast6::never: {e}"))
            .so
        })
        .clone()
}

fn tcrypt_plan(args: &[&str]) -> Result<usize, String> {
    let config = match bench_harness::cli::parse(args) {
        Ok(bench_harness::cli::Parsed::Run(c)) => c,
        other => panic!("{args:?}: {other:?}"),
    };
    bench_harness::cli::plan(&config)
        .map(|p| p.plans.len())
        .map_err(|e| e.0)
}

/// The artifact says what it holds, and a mismatch is refused: `tcrypt
/// 'ecb(aes)' --so <a cast6 .so>` once timed CAST6 and recorded it as AES.
#[test]
fn an_artifact_of_another_cipher_is_refused() {
    use bench_harness::so::{Holds, SoCipher};
    let so = artifact();
    let path = so.to_str().unwrap();
    let loaded = SoCipher::load(&so).expect("loads");
    assert_eq!(loaded.name(), "cast6::never");
    assert!(matches!(loaded.holds(), Holds::Variant { .. }));
    let cast6 = bench_harness::registry::cipher("cast6").unwrap();
    let aes = bench_harness::registry::cipher("aes").unwrap();
    assert!(loaded.check_holds(cast6).is_ok());
    let e = loaded.check_holds(aes).unwrap_err().to_string();
    assert!(
        e.ends_with("holds `cast6::never`, a variant of cast6, not of aes: time it as ecb(cast6) or cbc(cast6), or give an artifact of aes"),
        "{e}"
    );
    let e = tcrypt_plan(&["ecb(aes)", "--so", path]).unwrap_err();
    assert!(e.contains("a variant of cast6, not of aes"), "{e}");
    assert!(!e.contains('\n'));
    assert_eq!(tcrypt_plan(&["cbc(cast6)", "--so", path]), Ok(1));
    // `all` times the modes of its cipher the artifact has.
    assert_eq!(tcrypt_plan(&["all", "--so", path]), Ok(2));
}

/// A checksum's artifact (crc32c's `slice8_auto`) streams through the ABI:
/// it computes, init, updates and final, what its statically linked hash
/// does, and tcrypt times it with the hash template (one update per 16
/// bytes), refusing it as a cipher's.
#[test]
fn a_checksums_artifact_is_timed_streamed() {
    use crate::build::artifacts;
    use crate::select::contenders::Selection;
    use bench_harness::engine::HashEngine;
    use bench_harness::measure::{Session, Test, Timing};
    let dest = workspace::target_dir_default()
        .join("inlinelab")
        .join("hostile")
        .join("crc32c-slice8_auto.so");
    let selection = Selection::Variant {
        module: "crc32c",
        variant: "slice8_auto",
    };
    let so = artifacts::build(
        &crate::env::tree::Tree::here(),
        &selection,
        &[],
        "variants",
        &dest,
    )
    .unwrap_or_else(|e| panic!("crc32c::slice8_auto: {e}"))
    .so;
    let path = so.to_str().unwrap();
    let mut loaded = bench_harness::so::SoCipher::load(&so).expect("loads");
    assert_eq!(HashEngine::output_size(&loaded), 4);
    let make = (bench_harness::registry::HASHES.iter())
        .find(|h| h.name == "crc32c")
        .and_then(|h| h.variants.iter().find(|(v, _)| *v == "slice8_auto"))
        .map(|(_, make)| *make)
        .expect("crc32c's slice8_auto hash");
    bench_harness::sampling::check_hash(&mut loaded, make().as_mut()).unwrap();
    assert_eq!(tcrypt_plan(&["crc32c", "--so", path]), Ok(1));
    assert_eq!(tcrypt_plan(&["all", "--so", path]), Ok(1));
    assert!(tcrypt_plan(&["ecb(cast6)", "--so", path]).is_err());
    let counter = bench_harness::clock::Counter {
        kind: "tsc".into(),
        hz: 1e9,
        read_overhead: 0,
        core_hz: None,
        reference_best: 1.0,
    };
    let mut quiet = |_: &str| {};
    let mut session = Session::new(&counter, Timing::Cycles, &mut quiet);
    let test = Test {
        alg: "crc32c",
        variant: "slice8_auto",
        dir: "digest",
    };
    session
        .hash(&test, &mut loaded, &[(64, 16), (64, 64)])
        .expect("timed");
    let updates: Vec<Option<usize>> = (session.measurements.iter())
        .map(|m| m.update_bytes)
        .collect();
    assert_eq!(updates, [Some(16), Some(64)]);
}

/// A truncated copy of a built artifact is refused before `dlopen` (which
/// died of SIGBUS on it): in this process, so a regression kills the test.
#[test]
fn a_truncated_artifact_is_refused() {
    let so = artifact();
    let bytes = std::fs::read(&so).unwrap();
    let dir_tmp = scratch("truncated");
    let dir = dir_tmp.path();
    for cut in [
        0,
        52,
        64,
        4096,
        8192,
        bytes.len() / 2,
        bytes.len() - 100,
        bytes.len() - 1,
    ] {
        let path = dir.join(format!("cut{cut}.so"));
        std::fs::write(&path, &bytes[..cut]).unwrap();
        let e = match bench_harness::so::SoCipher::load(&path) {
            Ok(_) => panic!("{cut}: loaded"),
            Err(e) => e.to_string(),
        };
        assert!(e.starts_with(&path.display().to_string()), "{e}");
        let e = tcrypt_plan(&["ecb(cast6)", "--so", path.to_str().unwrap()]).unwrap_err();
        assert!(!e.contains('\n'), "{e}");
    }
}

// ---- generated input ----

/// One argument of an xtask command line.
fn xtask_arg() -> impl Strategy<Value = OsString> {
    let words = prop::sample::select(vec![
        "compare",
        "render",
        "gate",
        "baseline",
        "bloat",
        "help",
        "__measure",
        "__instructions",
        "cast6",
        "aes",
        "all",
        "never",
        "auto",
        "never,auto",
        "../x",
        "",
        "--quick",
        "--sizes",
        "--sec",
        "--rounds",
        "--patience",
        "--threshold",
        "--out",
        "--no-peer",
        "--variants",
        "--reference",
        "--baseline-variant",
        "--baseline",
        "--size-threshold",
        "--speed-threshold",
        "--time-threshold",
        "--strict-time",
        "--no-time",
        "--against",
        "--comment",
        "--variant",
        "-n",
        "--help",
        "-h",
        "-V",
        "--version",
        "--",
        "-",
        "--sizes=",
        "--sec=0",
        "--rounds=5,6",
        "/dev/null",
        "/",
        ".",
    ])
    .prop_map(OsString::from);
    let numbers = prop::sample::select(vec![
        "0",
        "1",
        "2",
        "3",
        "16",
        "1000",
        "1001",
        "3600",
        "3601",
        "1048576",
        "1048577",
        "1099511627776",
        "18446744073709551615",
        "18446744073709551616",
        "-1",
        "0.5",
        "1e308",
        "1e-300",
        "inf",
        "-inf",
        "nan",
        "5,6",
        "16,",
        ",16",
        "16,,64",
        "16,8192",
        "100",
        "100.1",
    ])
    .prop_map(OsString::from);
    let floats = any::<f64>().prop_map(|f| OsString::from(f.to_string()));
    let text = any::<String>().prop_map(OsString::from);
    let bytes = prop::collection::vec(any::<u8>(), 0..10).prop_map(|b| {
        use std::os::unix::ffi::OsStringExt;
        OsString::from_vec(b)
    });
    prop_oneof![6 => words, 3 => numbers, 1 => floats, 1 => text, 1 => bytes]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    /// Whatever the arguments: no panic; a parsed compare command within
    /// every bound; otherwise help, or a usage error of one line and a hint.
    #[test]
    fn the_command_line_never_panics(
        first in prop::sample::select(vec!["compare", "render", "gate", "baseline", "bloat", "x"]),
        rest in prop::collection::vec(xtask_arg(), 0..8),
    ) {
        let args: Vec<OsString> = std::iter::once(OsString::from("cargo xtask"))
            .chain(std::iter::once(OsString::from(first)))
            .chain(rest)
            .collect();
        match Cli::try_parse_from(&args) {
            Ok(cli) => {
                if let crate::Command::Compare(c) = cli.command {
                    let a = &c.amount;
                    prop_assert!(!a.sizes.0.is_empty());
                    prop_assert!(a.sizes.0.iter().all(|s| crate::cli::BLOCK_BYTES.contains(s)));
                    prop_assert!(crate::cli::ROUNDS.contains(&a.rounds));
                    for s in [a.sec, a.budget] {
                        prop_assert!(s.is_finite() && s > 0.0 && s <= crate::cli::MAX_SECONDS);
                    }
                    prop_assert!((0.0..=1.0).contains(&c.threshold));
                    prop_assert!(c.out.as_ref().is_none_or(|o| !o.as_os_str().is_empty()));
                }
            }
            Err(e) => match crate::cli::from_clap(e, &Cli::command(), &args) {
                Ok(()) => {}
                Err(crate::error::Error::Usage { cause, hint }) => {
                    prop_assert!(!cause.is_empty() && !cause.contains('\n'), "{args:?}: {cause}");
                    prop_assert!(hint.contains("--help") && !hint.contains('\n'), "{hint}");
                }
                Err(crate::error::Error::Failed(m)) => prop_assert!(false, "{args:?}: {m}"),
            },
        }
    }
}

/// A JSON value to put somewhere in a report.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        prop::sample::select(vec![
            json!(0),
            json!(1),
            json!(-1),
            json!(u64::MAX),
            json!(i64::MIN),
            json!(1e308),
            json!(-1e308),
            json!(1e-300),
            json!(0.5),
            json!(1e15),
            json!(1e16),
            json!(1u64 << 30),
            json!((1u64 << 30) + 1),
            json!(1_048_577),
            json!(null),
            json!(true),
            json!(""),
            json!("../escaped"),
            json!("/tmp/abs"),
            json!("cast6"),
            json!("<script>x</script>|\n# h\n```"),
            json!("-->"),
            json!("ok"),
            json!("failed"),
            json!("unavailable"),
            json!("encrypt"),
            json!("digest"),
            json!([]),
            json!({}),
        ]),
        any::<f64>().prop_map(|f| json!(f)),
        any::<i64>().prop_map(|i| json!(i)),
        any::<u32>().prop_map(|i| json!(i)),
        any::<String>().prop_map(|s| json!(s)),
    ];
    leaf.prop_recursive(2, 8, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map("[a-z_]{1,12}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// Every place in `v`, as a JSON pointer.
pub(super) fn pointers(v: &Value, here: String, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            for (k, c) in m {
                pointers(c, format!("{here}/{k}"), out);
            }
        }
        Value::Array(a) => {
            for (i, c) in a.iter().enumerate() {
                pointers(c, format!("{here}/{i}"), out);
            }
        }
        _ => {}
    }
    out.push(here);
}

#[derive(Debug, Clone)]
enum Mutation {
    Replace(Value),
    Remove,
    /// A number scaled, to stay near what a run gives.
    Scale(f64),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        4 => json_value().prop_map(Mutation::Replace),
        1 => Just(Mutation::Remove),
        3 => prop::sample::select(vec![0.0, -1.0, 1e-9, 0.5, 2.0, 1e6, 1e12, 1e300])
            .prop_map(Mutation::Scale),
    ]
}

fn apply(v: &mut Value, pointer: &str, m: &Mutation) {
    match m {
        Mutation::Replace(x) => {
            if let Some(slot) = v.pointer_mut(pointer) {
                *slot = x.clone();
            }
        }
        Mutation::Scale(k) => {
            if let Some(slot) = v.pointer_mut(pointer)
                && let Some(n) = slot.as_f64()
            {
                *slot = json!(n * k);
            }
        }
        Mutation::Remove => remove_at(v, pointer),
    }
}

/// The committed report cut short (fewer cases, functions and raw lines),
/// still a valid report: generated cases stay fast in a debug build.
pub(super) fn small() -> &'static Value {
    static SMALL: std::sync::OnceLock<Value> = std::sync::OnceLock::new();
    SMALL.get_or_init(|| {
        let mut v = committed();
        for list in ["variants", "peers"] {
            for e in v[list].as_array_mut().unwrap() {
                // The first case (the chart's) at its smallest and
                // largest block, and one more.
                let speed = e["speed"].as_array_mut().unwrap();
                // A screened-out variant has sizes and no speed.
                let Some(first) = speed.first().cloned() else {
                    continue;
                };
                let same = |s: &Value| ["alg", "dir", "key_bits"].iter().all(|k| s[k] == first[k]);
                let mut kept: Vec<Value> = speed.iter().filter(|s| same(s)).cloned().collect();
                kept.retain(|s| s["block_bytes"] == json!(16) || s["block_bytes"] == json!(8192));
                kept.extend(speed.iter().find(|s| !same(s)).cloned());
                *speed = kept;
                if let Some(f) = e["artifact"]["functions"].as_array_mut() {
                    f.truncate(2);
                }
            }
        }
        // The first three variants, and the reference.
        let reference = v["run"]["reference_variant"].clone();
        let mut i = 0;
        v["variants"].as_array_mut().unwrap().retain(|e| {
            i += 1;
            i <= 3 || e["name"] == reference
        });
        // The A/A control in the reference's cases.
        let key = |s: &Value| ["alg", "dir", "key_bits", "block_bytes"].map(|k| s[k].clone());
        let cases: Vec<_> = (v["variants"].as_array().unwrap().iter())
            .find(|e| e["name"] == reference)
            .map(|e| e["speed"].as_array().unwrap().iter().map(key).collect())
            .unwrap();
        (v["control"]["speed"].as_array_mut().unwrap()).retain(|s| cases.contains(&key(s)));
        let raw: String = v["raw"]
            .as_str()
            .unwrap()
            .lines()
            .take(4)
            .collect::<Vec<_>>()
            .join("\n");
        v["raw"] = json!(raw);
        // The verdict over the variants kept, as a run of them gives it.
        let cut: Report = serde_json::from_value(v).unwrap();
        let mut v = serde_json::to_value(cut.recomputed()).unwrap();
        v["schema_version"] = json!(crate::report::SCHEMA_VERSION);
        let r = parse(&v, "cast6").expect("the small report is valid");
        assert!(chart::render(&r).is_some(), "it has a chart");
        v
    })
}

/// What the reader accepts renders without a panic (or a hang), and obeys
/// what the reader promises.
fn read_and_render(bytes: &[u8], stem: &str) -> Result<(), TestCaseError> {
    match reader::parse_report(bytes, stem) {
        Ok(r) => {
            prop_assert!(check::valid_name(&r.cipher) && r.cipher == stem);
            prop_assert!(check::check(&r).is_ok());
            let _ = markdown::render(&r);
            let _ = chart::render(&r);
            let _ = markdown::render_index(std::slice::from_ref(&r));
        }
        Err(NotRead::Foreign(why) | NotRead::Refused(why)) => {
            prop_assert!(!why.is_empty() && !why.contains('\n'), "{why}");
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(600))]

    /// Valid reports with fields replaced, scaled or removed.
    #[test]
    fn mutated_reports_never_panic(
        picks in prop::collection::vec((any::<prop::sample::Index>(), mutation()), 1..4),
        stem in prop::sample::select(vec!["cast6", "aes", "../escaped"]),
    ) {
        let mut v = small().clone();
        for (index, m) in &picks {
            let mut all = Vec::new();
            pointers(&v, String::new(), &mut all);
            let pointer = index.get(&all).clone();
            apply(&mut v, &pointer, m);
        }
        read_and_render(&serde_json::to_vec(&v).unwrap(), stem)?;
    }

    /// Arbitrary JSON documents, and arbitrary bytes.
    #[test]
    fn arbitrary_documents_never_panic(
        v in json_value(),
        with_version in any::<bool>(),
        bytes in prop::collection::vec(any::<u8>(), 0..64),
    ) {
        let mut doc = v;
        if with_version && let Value::Object(m) = &mut doc {
            m.insert("schema_version".into(), json!(1));
            m.insert("cipher".into(), json!("cast6"));
            m.insert("variants".into(), json!([]));
        }
        read_and_render(&serde_json::to_vec(&doc).unwrap(), "cast6")?;
        read_and_render(&bytes, "cast6")?;
    }
}

#[test]
fn a_report_directory_that_is_a_file_is_a_usage_error() {
    let dir_tmp = scratch("not-a-dir");
    let dir = dir_tmp.path();
    let file = dir.join("file");
    std::fs::write(&file, b"").unwrap();
    assert!(matches!(
        reader::read_reports(&file),
        Err(crate::error::Error::Usage { .. })
    ));
    assert!(Outputs::in_dir("--out", &file).check().is_err());
    assert!(
        Outputs::in_dir("--out", Path::new("/dev/null"))
            .check()
            .is_err()
    );
    // A directory that does not exist yet passes, and is not created by
    // the check.
    Outputs::in_dir("--out", &dir.join("new/sub"))
        .check()
        .unwrap();
    assert!(!dir.join("new").exists());
}

/// The edges of what the reader accepts still render (the chart's axes at
/// the smallest and largest sizes and speeds).
#[test]
fn accepted_extremes_render() {
    let edges: &[(u64, u64, f64)] = &[
        (1, 1, check::MIN_SPEED),
        (1, check::MAX_BYTES, check::MAX_SPEED),
        (check::MAX_BYTES, check::MAX_BYTES, check::MIN_SPEED),
        (1, 2, 1.0),
        (7, 7, check::MAX_SPEED),
    ];
    for &(small, large, speed) in edges {
        let mut r = parse(self::small(), "cast6").unwrap();
        for (i, e) in r.variants.iter_mut().chain(&mut r.peers).enumerate() {
            if let Some(a) = &mut e.artifact {
                a.text_bytes = if i % 2 == 0 { small } else { large };
                a.footprint_bytes = a.text_bytes;
            }
            for s in &mut e.speed {
                s.ops_per_sec = speed;
                s.bytes_per_sec = s.bytes_per_sec.map(|_| speed);
            }
        }
        check::check(&r).unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let _ = chart::render(&r);
            let _ = markdown::render(&r);
            let _ = tx.send(());
        });
        rx.recv_timeout(std::time::Duration::from_secs(20))
            .unwrap_or_else(|_| panic!("{small}, {large}, {speed}: the chart does not finish"));
    }
}

/// An output the user named that cannot be written is a setup error (exit
/// 2) at the check before the run, and a failure at the write after it.
#[test]
fn outputs_that_cannot_be_written_are_setup_errors() {
    let dir_tmp = scratch("setup");
    let dir = dir_tmp.path();
    let comment = |p: &Path| Outputs::file("--comment", p, Kind::GateComment).check();
    let marked = b"<!-- Generated by `cargo xtask gate cast6`; do not edit. -->\n";
    for path in [
        dir.to_path_buf(),
        PathBuf::from("/dev/null"),
        dir.join("missing/c.md"),
    ] {
        match comment(&path) {
            Err(crate::error::Error::Usage { cause, hint }) => {
                assert!(cause.starts_with("--comment "), "{cause}");
                assert!(hint.contains("may write"), "{hint}");
            }
            other => panic!("{path:?}: {other:?}"),
        }
        if path.exists() {
            assert!(outputs::write(&path, &Kind::GateComment, marked).is_err());
        }
    }
    outputs::write(&dir.join("c.md"), &Kind::GateComment, marked).unwrap();
    comment(&dir.join("c.md")).unwrap();
}

/// Removes what the JSON pointer `pointer` names in `v` (a key of an
/// object, an element of an array); nothing when it names nothing.
pub(super) fn remove_at(v: &mut Value, pointer: &str) {
    let Some((parent, key)) = pointer.rsplit_once('/') else {
        return;
    };
    match v.pointer_mut(parent) {
        Some(Value::Object(m)) => {
            m.remove(key);
        }
        Some(Value::Array(a)) => {
            if let Ok(i) = key.parse::<usize>()
                && i < a.len()
            {
                a.remove(i);
            }
        }
        _ => {}
    }
}

/// A crate report's patch of a dependency: refused unless the dependency
/// is one of the run's `--also` crates and the file is named for it,
/// whatever its name holds; the name a link points to then holds no path.
#[test]
fn a_dependencys_patch_is_named_for_a_dependency_of_the_run() {
    let path = workspace::root().join("reports/crates/cast6-0.2.0/cast6.json");
    let mut v: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    let dependency = json!({"crate": "../x", "version": "1.0.0+a/b"});
    v["annotations"]["patch"]["dependency"] = dependency.clone();
    assert!(
        refused(&v, "cast6").contains("none of the crates annotations.also names"),
        "{v}"
    );
    v["annotations"]["also"] = json!([{"crate": "../x", "version": "1.0.0+a/b", "written": 1}]);
    assert!(
        refused(&v, "cast6")
            .contains("annotations.patch.file is `cast6.patch`, not `cast6._._x-1.0.0_a_b.patch`"),
        "{v}"
    );
    v["annotations"]["patch"]["file"] = json!("cast6._._x-1.0.0_a_b.patch");
    let r = parse(&v, "cast6").unwrap();
    let p = r.annotations.and_then(|a| a.patch).unwrap();
    assert_eq!(p.file, "cast6._._x-1.0.0_a_b.patch");
}
