//! `cargo xtask compare --crate`: a crate this workspace did not write,
//! taken in from a path (the `toycipher` fixture, `--offline`: nothing
//! beyond the workspace's own dependencies), its attributes edited in
//! copies, each built through the shim, checked against the crate as
//! published and timed; and every bad input refused with exit 2 and one
//! line, nothing written. Timings are never asserted.

use crate::common::{check_refused, check_usage, entry, fixture, registry_src, s, scratch};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

/// A short, cheap run of the fixture: two variants besides `published`.
fn run(variants: &str, out: &Path, fault: Option<&str>) -> Output {
    run_with(variants, out, fault, &[])
}

/// [`run`] with more options.
fn run_with(variants: &str, out: &Path, fault: Option<&str>, more: &[&str]) -> Output {
    crate::common::quick_crate_run(&fixture("toycipher"), "16", more, variants, out, fault)
}

/// Every file under `dir` (a `target/` aside) with a hash of its bytes.
fn files(dir: &Path) -> BTreeMap<PathBuf, u64> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .flatten()
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            let bytes = std::fs::read(e.path()).unwrap();
            let hash = bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
                (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
            });
            (e.path().strip_prefix(dir).unwrap().to_path_buf(), hash)
        })
        .collect()
}

fn json(out: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(out.join("toycipher.json")).unwrap()).unwrap()
}

/// The fixture end to end: the report holds the crate's table (every
/// attribute this target compiles, each with its `drop_N`), opens with the
/// sentence that counts them, names the variants it built; the crate's own
/// directory is byte for byte what it was.
#[test]
#[ignore = "CI tier: builds a crate's dependencies and every variant of it; .ci/run runs it (see ARCHITECTURE.md, Tests)"]
fn a_crate_from_a_path_end_to_end() {
    let before = files(&fixture("toycipher"));
    let tmp = scratch("crate");
    let out = run("drop_1,none", tmp.path(), None);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(
        files(&fixture("toycipher")),
        before,
        "the crate's files changed"
    );
    let written: Vec<String> = std::fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    let mut sorted = written.clone();
    sorted.sort();
    let json = json(tmp.path());
    // The pick as a patch beside the report, unless the crate as
    // published is the pick.
    let pick = json["verdict"]["pick"].as_str().unwrap_or("published");
    let mut expected = vec!["toycipher.json", "toycipher.md", "toycipher.svg"];
    if pick != "published" {
        expected.insert(2, "toycipher.patch");
        the_patch_applies(tmp.path(), pick, &json);
    }
    assert_eq!(sorted, expected, "{written:?}");
    assert_eq!(json["run"]["reference_variant"], "published");
    let a = &json["annotations"];
    assert_eq!(a["crate"], "toycipher");
    assert_eq!(
        a["written"], 12,
        "every attribute written, one of them for aarch64 only"
    );
    let rows = a["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 11, "those compiled on x86-64");
    for (n, row) in rows.iter().enumerate() {
        assert_eq!(row["variant"], format!("drop_{}", n + 1));
        assert!(
            row["location"].as_str().unwrap().starts_with("src/"),
            "{row}"
        );
    }
    for v in ["published", "none"] {
        assert_eq!(entry(&json, v)["status"], "ok", "{v}");
    }
    // Memcheck, with the key and data undefined: the fixture branches on
    // a key bit (`round::tweak`, in the key schedule) and indexes its S-box
    // by key-mixed data, each location in one of its own functions.
    let secrets = &entry(&json, "published")["secrets"];
    assert_eq!(secrets["status"], "measured", "{secrets}");
    for kind in ["branches", "indexes"] {
        let sites = secrets[kind].as_array().unwrap();
        assert!(!sites.is_empty(), "{kind}: {secrets}");
        assert!(
            sites.iter().all(
                |s| s["function"].as_str().unwrap().starts_with("toycipher::")
                    || s["function"].as_str().unwrap().contains(" as ")
            ),
            "{kind}: {secrets}"
        );
    }
    assert!(
        std::fs::read_to_string(tmp.path().join("toycipher.md"))
            .unwrap()
            .contains("## Secrets: branches and indexes that depend on the key or the data"),
    );
    // LLVM's decisions, from the remarks of the build measured: as
    // published, `new` (`#[inline(never)]`, not generic) is compiled in the
    // crate's own object, out of reach of the shim's `new_from_slice`; the
    // `#[inline(always)]` block functions are inlined by their attribute.
    let inlining = entry(&json, "published")["artifact"]["inlining"].clone();
    let calls = inlining.as_array().expect("the build's inline remarks");
    let decided = |callee: &str, why: &str| {
        calls
            .iter()
            .any(|c| c["callee"] == callee && c["decision"]["why"] == why)
    };
    assert!(
        decided("<Toy as KeyInit>::new", "unavailable"),
        "{inlining}"
    );
    assert!(
        decided("<Toy as BlockCipherEncBackend>::encrypt_block", "always"),
        "{inlining}"
    );
    // Timed, or left out with the reason (the same machine code as another,
    // or beaten in the screen).
    let drop_1 = entry(&json, "drop_1");
    match drop_1["status"].as_str() {
        Some("ok") => {}
        Some("screened") => assert!(drop_1["reason"].as_str().is_some_and(|r| !r.is_empty())),
        other => panic!("drop_1: {other:?}"),
    }
    assert!(
        json["peers"].as_array().unwrap().is_empty(),
        "a path crate has no registry peer"
    );
    let md = std::fs::read_to_string(tmp.path().join("toycipher.md")).unwrap();
    assert!(
        md.contains("**Of toycipher 0.1.0's 11 inline attributes compiled on this target (1 more for other targets), "),
        "{md}"
    );
    assert!(md.contains("## The crate's inline attributes"), "{md}");
    // The fixture's build script generates code it includes: said, not
    // edited.
    let notes = json["run"]["notes"].to_string();
    assert!(
        notes.contains("code the build script generates is included at src/lib.rs:118"),
        "{notes}"
    );
    assert!(
        md.contains("| LLVM, as published | LLVM, in the variant |"),
        "{md}"
    );
    let table_rows = (md.lines())
        .filter(|l| {
            l.starts_with("| ")
                && l[2..].starts_with(|c: char| c.is_ascii_digit())
                && l.contains("`drop_")
        })
        .count();
    assert_eq!(table_rows, 11, "{md}");
    assert!(
        md.contains("<!-- Generated by `cargo xtask compare --crate "),
        "{md}"
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.starts_with("Of toycipher 0.1.0's"), "{stdout}");
    backend_ran_is_named(&a["ran"], &md);
}

/// The report names the backend that ran in each mode family the run
/// counted: the crate's module with the most samples on this CPU (x86-64
/// Linux) and with the most of callgrind's instructions (valgrind
/// installed), with their counts; and says why where it could not.
fn backend_ran_is_named(ran: &serde_json::Value, md: &str) {
    assert!(md.contains("Which backend ran, as published"), "{md}");
    let named = |observed: &serde_json::Value, what: &str| {
        let families = observed["families"]
            .as_array()
            .unwrap_or_else(|| panic!("{what}: {observed}"));
        let names: Vec<&str> = (families.iter())
            .filter_map(|f| f["modules"][0]["module"].as_str())
            .collect();
        assert!(
            names.iter().any(|m| m.starts_with("toycipher")),
            "{what}: no family names a module of the crate: {observed}"
        );
        for f in families {
            let total = f["total"].as_u64().unwrap();
            let counts: u64 = (f["modules"].as_array().unwrap().iter())
                .map(|m| m["count"].as_u64().unwrap())
                .sum();
            assert!(total > 0 && counts <= total, "{what}: {f}");
        }
        assert!(md.contains(&format!("`{}`", names[0])), "{what}: {md}");
    };
    if cfg!(all(target_os = "linux", target_arch = "x86_64")) {
        named(&ran["timed"], "timed");
    } else {
        assert!(ran["timed"]["unavailable"].is_string(), "{ran}");
    }
    let valgrind = Command::new("valgrind")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if valgrind {
        named(&ran["counted"], "counted");
    } else {
        assert_eq!(ran["counted"]["unavailable"], "valgrind is not installed");
    }
}

/// A variant that computes something else is refused before it is timed,
/// and a variant whose build fails is a failed row; the others are timed,
/// and the run exits 1.
#[test]
#[ignore = "CI tier: builds many artifacts; .ci/run runs it (see ARCHITECTURE.md, Tests)"]
fn a_wrong_or_failed_variant_is_a_failed_row() {
    for (fault, reason) in [
        ("wrong:drop_1", "wrong output"),
        ("build:drop_1", "build failed"),
    ] {
        let tmp = scratch("crate-fault");
        let out = run("drop_1,none", tmp.path(), Some(fault));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{fault}: {stderr}");
        let json = json(tmp.path());
        let e = entry(&json, "drop_1");
        assert_eq!(e["status"], "failed", "{fault}: {e}");
        assert!(
            e["reason"].as_str().unwrap().contains(reason),
            "{fault}: {e}"
        );
        assert_eq!(entry(&json, "none")["status"], "ok", "{fault}");
        let md = std::fs::read_to_string(tmp.path().join("toycipher.md")).unwrap();
        let row = md
            .lines()
            .find(|l| l.contains("`drop_1`") && l.starts_with("| 1 |"));
        assert!(
            row.is_some_and(|r| r.contains("not timed (failed)")),
            "{fault}: {md}"
        );
    }
}

/// `patch` applied to a copy of the fixture in `repo`, a new git
/// repository: `git apply --check` accepts it, and `git apply` applies it.
fn apply_to_the_fixture(repo: &Path, patch: &Path) {
    crate::common::copy_tree(&fixture("toycipher"), repo);
    let git = |args: &[&str]| {
        let o = Command::new("git")
            .args(args)
            .current_dir(repo)
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    };
    git(&["init", "-q"]);
    git(&["apply", "--check", patch.to_str().unwrap()]);
    git(&["apply", patch.to_str().unwrap()]);
}

/// The report's patch (the edits of the set that held, else the pick's)
/// against the fixture's source:
/// `git apply --check` takes it in a temporary repository holding a copy
/// of the crate, the report's first screen says its effect and lists each
/// edit, and the crate it makes builds.
fn the_patch_applies(out: &Path, pick: &str, json: &serde_json::Value) {
    let patch = std::fs::read_to_string(out.join("toycipher.patch")).unwrap();
    assert!(
        patch.starts_with("<!-- Generated by `cargo xtask compare --crate "),
        "{patch}"
    );
    // The set that held in the suggested set's run (or as the first
    // run's entry of the same machine code), else the pick.
    let suggestion = &json["annotations"]["suggestion"];
    let (variant, run) = match suggestion["held"].as_str() {
        Some(h) if suggestion["same_code_as"].is_string() => {
            (h, "built whole; its hot path and key schedule are ")
        }
        Some(h) => (h, "measured whole in the suggested set's run"),
        None => (pick, "measured whole in this run"),
    };
    let record = &json["annotations"]["patch"];
    let edits = record["edits"].as_array().unwrap();
    assert!(!edits.is_empty(), "{record}");
    // The set trimmed of edits to functions no build reaches, when there
    // are any: named `trimmed`, it says the set it was trimmed from, whose
    // figures it carries, and the edits it left out, none of them kept.
    let trimmed = &record["trimmed"];
    let said = if trimmed.is_object() {
        assert_eq!(record["variant"], "trimmed", "{record}");
        assert_eq!(trimmed["of"], variant, "{record}");
        let left = trimmed["left_out"].as_array().unwrap();
        assert!(!left.is_empty(), "{record}");
        assert!(
            left.iter()
                .all(|l| !edits.iter().any(|e| e["location"] == l["location"])),
            "{record}"
        );
        format!(
            "`trimmed`, which is `{variant}` less {} edit(s) to functions no build reaches",
            left.len()
        )
    } else {
        assert_eq!(record["variant"], variant, "{record}");
        format!("`{variant}` ({run}")
    };
    let repo = out.join("checkout");
    apply_to_the_fixture(&repo, &out.join("toycipher.patch"));
    let md = std::fs::read_to_string(out.join("toycipher.md")).unwrap();
    assert!(
        md.contains(&format!(
            "**The answer as a patch, [`toycipher.patch`](toycipher.patch):** {said}"
        )),
        "{md}"
    );
    if trimmed.is_object() {
        assert!(md.contains(&format!("`{variant}` ({run}")), "{md}");
        assert!(md.contains("**Left out of the patch:** "), "{md}");
    }
    let rows = md
        .lines()
        .filter(|l| l.starts_with("| `") && l.contains("| src/"))
        .count();
    assert!(rows >= edits.len(), "{md}");
    std::fs::remove_dir_all(&repo).unwrap();
}

/// The suggested set on the fixture: four attributes whose removal leaves
/// the hot path's machine code as it is (*no effect*, whatever the timing)
/// are removed together in `suggested`; counted by callgrind, its
/// instructions are what its parts predict, so it passes the screen alone
/// and is built and checked. Its hot path and key schedule are then the
/// machine code of the first run's pick (the set is built on it), no
/// larger: one result, so it holds as the pick measured, with no run of
/// its own; the patch is its diff (`git apply --check` accepts it on the
/// fixture's source).
#[test]
#[ignore = "CI tier: builds many artifacts; .ci/run runs it (see ARCHITECTURE.md, Tests)"]
fn the_suggested_set_is_measured_whole() {
    let tmp = scratch("crate-suggested");
    let out = run("drop_1,drop_3,drop_4,drop_8", tmp.path(), None);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let json = json(tmp.path());
    let s = &json["annotations"]["suggestion"];
    assert_eq!(s["variant"], "suggested", "{s}");
    let combines: Vec<&str> = (s["combines"].as_array().unwrap().iter())
        .map(|c| c.as_str().unwrap())
        .collect();
    // The pick first when it is none of the parts (the set is built on
    // it), then the four.
    assert!(
        combines.ends_with(&["drop_1", "drop_3", "drop_4", "drop_8"]),
        "{s}"
    );
    let edits = s["edits"].as_array().unwrap();
    assert!(edits.len() >= 4, "{s}");
    // The whole set passes the screen: nothing smaller is built.
    let screen = &s["screen"];
    assert!(screen["counts"].is_array(), "{s}");
    assert!(s["tried"].as_array().unwrap().is_empty(), "{s}");
    // The pick's machine code: held as it, no run of its own.
    let pick = json["verdict"]["pick"].as_str().unwrap_or("published");
    assert_eq!(s["same_code_as"], pick, "{s}");
    assert_eq!(s["held"], "suggested", "{s}");
    assert!(json["suggested"].is_null(), "{}", json["suggested"]);
    let footprint = |name: &str| {
        (screen["counts"].as_array().unwrap().iter())
            .find(|c| c["variant"] == name)
            .and_then(|c| c["footprint"].as_u64())
    };
    let picked = (json["variants"].as_array().unwrap().iter())
        .find(|e| e["name"] == pick)
        .and_then(|e| e["artifact"]["footprint_bytes"].as_u64());
    assert!(footprint("suggested") <= picked, "{s}");
    let md = std::fs::read_to_string(tmp.path().join("toycipher.md")).unwrap();
    assert!(
        md.contains("**The suggested set, built whole:** `suggested` is ")
            && md.contains("`drop_1`, `drop_3`, `drop_4`, `drop_8` applied together"),
        "{md}"
    );
    assert!(
        md.contains(&format!(
            "the same machine code as `{pick}`'s (addresses normalized)"
        )),
        "{md}"
    );
    assert!(md.contains("| no: held as the same machine code |"), "{md}");
    assert_eq!(json["annotations"]["patch"]["variant"], "suggested", "{s}");
    apply_to_the_fixture(
        &tmp.path().join("checkout"),
        &tmp.path().join("toycipher.patch"),
    );
}

/// Two edits that interact, on the fixture: `add_1` gives `round::encrypt`
/// `#[inline(always)]` (it is then inlined into the shim) and `drop_8`
/// removes `round::round`'s `#[inline]` (alone it changes nothing: its only
/// callers are in the crate). Together `round` is called from the shim,
/// where its body is not available: a call per round. callgrind's counts
/// say so before any timing: the whole set costs more than its parts
/// predict and is never timed; the search keeps each of the two with the
/// third part, `drop_1`, and only those are timed; whatever held applies.
#[test]
#[ignore = "CI tier: builds many artifacts; .ci/run runs it (see ARCHITECTURE.md, Tests)"]
fn the_search_falls_back_when_two_edits_interact() {
    let tmp = scratch("crate-interact");
    let more = ["--suggest", "add_1,drop_8,drop_1"];
    let out = run_with("drop_1,drop_8,add_1", tmp.path(), None, &more);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let json = json(tmp.path());
    let s = &json["annotations"]["suggestion"];
    assert_eq!(s["given"], true, "{s}");
    let screen = &s["screen"];
    let count = |name: &str| -> Vec<f64> {
        (screen["counts"].as_array().unwrap().iter())
            .find(|c| c["variant"] == name)
            .map(|c| c["instructions"].as_array().unwrap().iter())
            .unwrap_or_else(|| panic!("{name} counted: {screen}"))
            .map(|x| x.as_f64().unwrap())
            .collect()
    };
    let published = count("published");
    let predicted = |parts: &[&str]| -> Vec<f64> {
        (0..published.len())
            .map(|i| {
                published[i]
                    + parts
                        .iter()
                        .map(|p| count(p)[i] - published[i])
                        .sum::<f64>()
            })
            .collect()
    };
    // The whole set: a call per round, past its parts' prediction.
    let whole = count("suggested");
    let p = predicted(&["add_1", "drop_8", "drop_1"]);
    assert!(
        (0..whole.len()).any(|i| whole[i] > p[i] + 0.01 * published[i]),
        "{whole:?} against {p:?}"
    );
    let tried = s["tried"].as_array().unwrap();
    let parts_of = |t: &serde_json::Value| -> Vec<String> {
        (t["combines"].as_array().unwrap().iter())
            .map(|c| c.as_str().unwrap().to_string())
            .collect()
    };
    let timed: Vec<String> = (json["suggested"]["variants"].as_array().unwrap().iter())
        .map(|e| e["name"].as_str().unwrap().to_string())
        .collect();
    assert!(!timed.contains(&"suggested".to_string()), "{timed:?}");
    let mut kept: Vec<Vec<String>> = (tried.iter())
        .filter(|t| timed.contains(&t["variant"].as_str().unwrap().to_string()))
        .map(parts_of)
        .collect();
    kept.sort();
    assert_eq!(
        kept,
        vec![
            vec!["add_1".to_string(), "drop_1".to_string()],
            vec!["drop_8".to_string(), "drop_1".to_string()],
        ],
        "{s}"
    );
    let md = std::fs::read_to_string(tmp.path().join("toycipher.md")).unwrap();
    assert!(
        md.contains("| `suggested` | `add_1`, `drop_8`, `drop_1` | "),
        "{md}"
    );
    assert!(md.contains("interacts: +"), "{md}");
    if let Some(held) = s["held"].as_str() {
        assert_ne!(held, "suggested", "{s}");
        apply_to_the_fixture(
            &tmp.path().join("checkout"),
            &tmp.path().join("toycipher.patch"),
        );
    }
}

/// `--suggest` names variants of the run, at least two: anything else is
/// refused with one line, exit 2, before any variant is built (the names
/// of the `add_K` variants need the crate as published built first).
/// Each refusal is a unit test (`krate.rs`); here, the command's exit.
#[test]
#[ignore = "CI tier: builds the crate as published; .ci/run runs it (see ARCHITECTURE.md, Tests)"]
fn a_suggested_set_names_variants_of_the_run() {
    let tmp = scratch("crate-suggest-bad");
    let out = run_with(
        "drop_1,drop_8",
        tmp.path(),
        None,
        &["--suggest", "drop_1,drop_99"],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("--suggest names `drop_99`"), "{stderr}");
    assert!(!stderr.contains("[1/"), "{stderr}");
    assert!(!tmp.path().join("toycipher.json").exists());
}

/// When the reference cannot be built nothing can be measured against
/// it: the verdict says which failed first and why, and gives no command
/// to run again (more processes could not help).
#[test]
#[ignore = "CI tier: builds many artifacts; .ci/run runs it (see ARCHITECTURE.md, Tests)"]
fn a_run_that_measured_nothing_says_why() {
    let tmp = scratch("crate-nothing");
    let out = run("none", tmp.path(), Some("build:published"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let v = &json(tmp.path())["verdict"];
    assert_eq!(v["status"], "inconclusive", "{v}");
    assert!(v["rerun"].is_null(), "{v}");
    let reasons = v["reasons"].to_string();
    assert!(
        reasons.contains("the first to fail was `published` (failed): build failed"),
        "{reasons}"
    );
    assert!(!stdout.contains("run again"), "{stdout}");
    let md = std::fs::read_to_string(tmp.path().join("toycipher.md")).unwrap();
    assert!(!md.contains("run again with more processes"), "{md}");
}

/// A registry crate (cast6 0.2.0, a dependency of this workspace, so
/// cargo has it): its unpacked files and its `.crate` archive are byte for
/// byte what they were after a run that edited copies of it, and the copy
/// as published is the registry crate's machine code.
#[test]
#[ignore = "CI tier: builds many artifacts; .ci/run runs it (see ARCHITECTURE.md, Tests)"]
fn the_registry_crate_is_only_read() {
    let src = registry_src("cast6-0.2.0").expect("cargo has cast6 0.2.0 unpacked");
    let archive = src
        .parent()
        .and_then(|index| {
            Some(
                index
                    .parent()?
                    .parent()?
                    .join("cache")
                    .join(index.file_name()?),
            )
        })
        .map(|cache| cache.join("cast6-0.2.0.crate"))
        .filter(|p| p.is_file());
    let read = |p: &Option<PathBuf>| p.as_ref().map(|p| std::fs::read(p).unwrap());
    let (files_before, archive_before) = (files(&src), read(&archive));
    let tmp = scratch("crate-registry");
    let out = crate::common::xtask_command()
        .args(["compare", "--crate", "cast6@0.2.0", "--offline", "--quick"])
        .args(["--variants", "drop_1", "--sizes", "16", "--rounds", "3"])
        .args(["--sec", "0.003", "--budget", "0.001", "--out"])
        .arg(tmp.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(files(&src), files_before, "cargo's unpacked files changed");
    assert_eq!(read(&archive), archive_before, "the .crate archive changed");
    // Both built: the copy as published and the registry crate are the
    // same machine code, wherever this clone is (the hash once took
    // non-allocated sections' sizes, which follow the path, for boundaries
    // of constants).
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(tmp.path().join("cast6.json")).unwrap()).unwrap();
    let artifact = |list: &str, name: &str, field: &str| {
        json[list]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["name"] == name)
            .unwrap()["artifact"][field]
            .clone()
    };
    for field in ["footprint_bytes", "hot_path_code"] {
        let published = artifact("variants", "published", field);
        assert!(!published.is_null(), "{field} of published");
        assert_eq!(published, artifact("peers", "registry", field), "{field}");
    }
}

/// A member of a workspace (`version.workspace = true`, dependencies
/// from `[workspace.dependencies]`), as RustCrypto's crates are: taken in
/// as publishing would make it, the workspace left as it was.
#[test]
#[ignore = "CI tier: builds many artifacts; .ci/run runs it (see ARCHITECTURE.md, Tests)"]
fn a_workspace_member_is_taken_in() {
    let tmp = scratch("crate-ws");
    let ws = tmp.path().join("ws");
    let member = ws.join("toy");
    std::fs::create_dir_all(member.join("src")).unwrap();
    for f in ["build.rs", "Cargo.lock"] {
        std::fs::copy(fixture("toycipher").join(f), member.join(f)).unwrap();
    }
    for e in walkdir::WalkDir::new(fixture("toycipher").join("src"))
        .into_iter()
        .flatten()
    {
        let rel = e.path().strip_prefix(fixture("toycipher")).unwrap();
        if e.file_type().is_dir() {
            std::fs::create_dir_all(member.join(rel)).unwrap();
        } else {
            std::fs::copy(e.path(), member.join(rel)).unwrap();
        }
    }
    std::fs::rename(member.join("Cargo.lock"), ws.join("Cargo.lock")).unwrap();
    std::fs::write(
        ws.join("Cargo.toml"),
        "[workspace]\nmembers = [\"toy\"]\nresolver = \"3\"\n\n[workspace.package]\nversion = \"0.1.0\"\nedition = \"2024\"\nlicense = \"MIT OR Apache-2.0\"\n\n[workspace.dependencies]\ncipher = \"0.5\"\ncfg-if = \"1\"\n",
    )
    .unwrap();
    std::fs::write(
        member.join("Cargo.toml"),
        "[package]\nname = \"toycipher\"\nversion.workspace = true\nedition.workspace = true\nlicense.workspace = true\ndescription = \"A toy cipher in a workspace: a test fixture\"\n\n[features]\ncompact = []\n\n[dependencies]\ncipher.workspace = true\ncfg-if.workspace = true\n",
    )
    .unwrap();
    let before = files(&ws);
    let out_dir = tmp.path().join("out");
    let out = crate::common::xtask_command()
        .args(["compare", "--crate"])
        .arg(&member)
        .args([
            "--offline",
            "--quick",
            "--variants",
            "none",
            "--sizes",
            "16",
        ])
        .args([
            "--rounds", "3", "--sec", "0.003", "--budget", "0.001", "--out",
        ])
        .arg(&out_dir)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(files(&ws), before, "the workspace's files changed");
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out_dir.join("toycipher.json")).unwrap()).unwrap();
    assert_eq!(json["annotations"]["version"], "0.1.0");
    assert_eq!(json["annotations"]["rows"].as_array().unwrap().len(), 11);
}

/// Each bad input: exit 2, one line and a hint, and `--out` not created.
#[test]
#[ignore = "CI tier: builds many artifacts; .ci/run runs it (see ARCHITECTURE.md, Tests)"]
fn bad_input_is_refused_with_one_line() {
    let tmp = scratch("crate-bad");
    let out_dir = tmp.path().join("out");
    let out = s(&out_dir);
    let toy = fixture("toycipher");
    let limit = Duration::from_secs(300);
    let usage = |args: &[&str], expected: &str| check_refused(args, expected, limit, &out_dir);
    usage(
        &["compare", "--crate", "/no/such/crate", "--out", out],
        "no Cargo.toml there",
    );
    usage(&["compare", "--crate", "cast6", "--out", out], "no version");
    usage(
        &[
            "compare",
            "--crate",
            "surely-no-such-crate-inlinelab@1.0.0",
            "--offline",
            "--out",
            out,
        ],
        "--crate surely-no-such-crate-inlinelab@1.0.0:",
    );
    usage(
        &[
            "compare",
            "--crate",
            "cast6@99.0.0",
            "--offline",
            "--out",
            out,
        ],
        "--crate cast6@99.0.0:",
    );
    let nota = fixture("notacipher");
    usage(
        &["compare", "--crate", s(&nota), "--offline", "--out", out],
        "has no type at its root with KeyInit + BlockCipherEncrypt + BlockCipherDecrypt",
    );
    let broken = fixture("broken");
    usage(
        &["compare", "--crate", s(&broken), "--offline", "--out", out],
        "does not build here",
    );
    usage(
        &[
            "compare",
            "--crate",
            s(&toy),
            "--offline",
            "--type",
            "Nope",
            "--out",
            out,
        ],
        "has no block cipher, hash, MAC, universal hash, stream cipher or AEAD type `Nope`",
    );
    usage(
        &[
            "compare",
            "--crate",
            s(&toy),
            "--offline",
            "--variants",
            "nothing_like_it",
            "--out",
            out,
        ],
        "matches none of the crate's variants",
    );
    check_usage(
        &["compare", "cast6", "--crate", "cast6@0.2.0"],
        "cannot be used with",
    );
    check_usage(
        &["compare", "cast6", "--type", "Cast6"],
        "are for a crate (--crate)",
    );
}
