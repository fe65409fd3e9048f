//! `cargo xtask compare --crate` on an AEAD crate: the `toyaead` fixture
//! (`aead` 0.6's `KeyInit + AeadInOut`, `--offline`: nothing beyond the
//! workspace's own dependencies), its attributes in a `macro_rules!`
//! body, a `cfg_if!` branch and trait methods found and edited, each copy
//! built through the shim as an AEAD artifact (nonce, associated data and
//! tag through the ABI's `AeadIo`), checked at every length from 0 to 300
//! bytes with associated data, both directions, under every key length
//! against the crate as published, a tampered tag refused, and timed; a
//! change to it gated (`gate --crate`); every bad input refused with exit
//! 2 and one line. Timings are never asserted.

use crate::common::{
    annotation_rows_in, check_refused, drop_1_refused_and_published_timed, entry, fixture,
    gate_a_round_function_made_never, report_json as json, s, scratch,
};
use std::path::Path;
use std::process::Output;
use std::time::Duration;

/// A short, cheap run of the fixture: `variants` besides `published`.
fn run(variants: &str, out: &Path, fault: Option<&str>) -> Output {
    crate::common::quick_crate_run(&fixture("toyaead"), "64", &[], variants, out, fault)
}

/// The fixture end to end: its one AEAD chosen without `--type`, learned
/// as one of 12-byte nonces and 16-byte tags taking keys of 16 and 32
/// bytes, its attributes tabled (those in the macro body and the
/// `cfg_if!` branch among them), its variants checked against the crate
/// as published and timed in both directions and key setup under its
/// 32-byte key. `drop_1`, made wrong (`wrong:drop_1`: its tags spoiled),
/// is refused before it is timed: a failed row, and exit 1 (the wrong
/// variant's check rides on this run, so that the fixture's variants are
/// built once).
#[test]
#[ignore = "CI tier: builds a crate's variants; .ci/run runs it (see ARCHITECTURE.md, Tests)"]
fn an_aead_crate_is_decided() {
    let tmp = scratch("crate-aead");
    let out = run("none,drop_1", tmp.path(), Some("wrong:drop_1"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    // `drop_1` made wrong: a failed row, and exit 1; the rest decided.
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(
            "type ToyAead: an AEAD, 12-byte nonces, 16-byte tags, keys of 16, 32 bytes; 9 inline attributes (8 compiled on this target)"
        ),
        "{stderr}"
    );
    let json = json(tmp.path(), "toyaead");
    let a = &json["annotations"];
    assert_eq!(a["written"], 9, "every attribute written");
    let rows = a["rows"].as_array().unwrap();
    let at = |file: &str| annotation_rows_in(&json, file);
    // The macro body's one, `store`, the x86-64 branch of the cfg_if!;
    // `tag` and the trait methods in lib.rs.
    assert_eq!(at("src/block.rs:"), 3, "{rows:?}");
    assert_eq!(at("src/lib.rs:"), 5, "{rows:?}");
    for v in ["published", "none"] {
        assert_eq!(entry(&json, v)["status"], "ok", "{v}: {}", entry(&json, v));
    }
    drop_1_refused_and_published_timed(
        &json,
        "wrong output: the tag of 0 bytes with 0 bytes of associated data differs",
        "aead(toyaead)",
        &["encrypt", "decrypt", "setkey"],
    );
}

/// The fixture made a git repository, its round functions'
/// `#[inline(always)]` (in the `macro_rules!` body) made `#[inline(never)]`
/// in the working tree: the gate against its commit counts both sides'
/// encryption and decryption at tcrypt's AEAD sizes and key setup, exits
/// 1, and its comment names a round function that stopped being inlined.
#[test]
#[ignore = "CI tier: builds a crate twice and counts it under valgrind"]
fn a_change_to_an_aead_crate_is_gated() {
    let tmp = scratch("gate-aead");
    let md = gate_a_round_function_made_never(
        "toyaead",
        "src/block.rs",
        "toyaead::block::r0",
        "ToyAead",
        tmp.path(),
    );
    for dir in ["encrypt", "decrypt"] {
        assert!(
            md.contains(&format!(
                "aead(toyaead) {dir} 256-bit 16/64/256/512/1024/1420/4096/8192 B"
            )),
            "{dir}: {md}"
        );
    }
}

/// Each bad input of an AEAD crate: exit 2, one line and a hint, and
/// `--out` not created.
#[test]
fn bad_aead_input_is_refused_with_one_line() {
    let tmp = scratch("crate-aead-bad");
    let out_dir = tmp.path().join("out");
    let out = s(&out_dir);
    let toy = fixture("toyaead");
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
        &compare(&["--type", "Nope"]),
        "toyaead 0.1.0 has no block cipher, hash, MAC, universal hash, stream cipher or AEAD type `Nope`",
    );
    usage(
        &compare(&["--type", "Toy Aead"]),
        "--type Toy Aead: not a type's name",
    );
}

/// `--also inout` (a dependency of `aead`, so of the fixture, in the
/// workspace's lock): its attributes tabled after the crate's, named with
/// it, its variant built from a copy patched into the shim and checked
/// like the crate's own; cargo's unpacked `inout` byte for byte as it
/// was. A crate the build does not depend on is refused, exit 2, one line.
#[test]
#[ignore = "CI tier: builds a crate's variants; .ci/run runs it (see ARCHITECTURE.md, Tests)"]
fn a_dependency_is_an_axis_too() {
    let src = crate::common::registry_src("inout-0.2.6").expect("cargo has inout 0.2.6 unpacked");
    let before = crate::common::files(&src);
    let tmp = scratch("crate-aead-also");
    let crate_dir = fixture("toyaead");
    let dir = crate_dir.to_str().unwrap();
    let out_dir = tmp.path().join("refused");
    let out_arg = out_dir.to_str().unwrap();
    check_refused(
        &[
            "compare",
            "--crate",
            dir,
            "--offline",
            "--also",
            "sha2",
            "--out",
            out_arg,
        ],
        "--also sha2: not a dependency of toyaead",
        Duration::from_secs(600),
        &out_dir,
    );
    let out = crate::common::quick_crate_run(
        &crate_dir,
        "64",
        &["--also", "inout"],
        "inout_drop_1",
        tmp.path(),
        None,
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(
        crate::common::files(&src),
        before,
        "cargo's unpacked inout changed"
    );
    let json = json(tmp.path(), "toyaead");
    let a = &json["annotations"];
    assert_eq!(a["also"][0]["crate"], "inout", "{a}");
    let rows = a["rows"].as_array().unwrap();
    let first_dep = rows.iter().position(|r| r["crate"] == "inout").unwrap();
    assert!(
        rows[..first_dep].iter().all(|r| r.get("crate").is_none())
            && rows[first_dep..].iter().all(|r| r["crate"] == "inout"),
        "the crate's rows first: {rows:?}"
    );
    assert_eq!(rows[first_dep]["variant"], "inout_drop_1");
    // Callgrind's instructions by crate too (where valgrind counted): the
    // crate's, inout's and the rest, summing to each family's total.
    if let Some(families) = a["ran"]["counted"]["families"].as_array() {
        for f in families {
            let by = &f["by_crate"];
            let crates = by["crates"].as_array().expect("counted by crate");
            let names: Vec<&str> = crates.iter().filter_map(|c| c["crate"].as_str()).collect();
            assert_eq!(names, ["toyaead", "inout"], "{f}");
            let counts = crates.iter().filter_map(|c| c["count"].as_u64());
            let sum = counts.sum::<u64>() + by["other"].as_u64().unwrap();
            assert_eq!(Some(sum), f["total"].as_u64(), "{f}");
        }
    }
    // Measured, or timed once as the same machine code as another
    // (`screened`): built, checked and never failed.
    let status = &entry(&json, "inout_drop_1")["status"];
    assert!(status == "ok" || status == "screened", "{status}");
    assert!(
        json["generated_by"]
            .as_str()
            .unwrap()
            .contains("--also inout"),
        "{}",
        json["generated_by"]
    );
    dependency_patch_applies(&json, tmp.path(), &before);
}

/// Whatever the run's pick: a patch of a dependency only when the pick
/// edits it, named for inout 0.2.6, recorded with its crate and version,
/// applying (`git apply --check`) to a fresh copy of inout as cargo
/// unpacked it (`published`, its files); no other patch beside the
/// report. Reads what the run wrote: nothing is built.
fn dependency_patch_applies(
    json: &serde_json::Value,
    out: &Path,
    published: &std::collections::BTreeMap<std::path::PathBuf, Vec<u8>>,
) {
    let pick = json["verdict"]["pick"].as_str().unwrap_or_default();
    let patch = &json["annotations"]["patch"];
    let patches: Vec<String> = (std::fs::read_dir(out).unwrap().flatten())
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| n.ends_with(".patch"))
        .collect();
    if !pick.starts_with("inout_") {
        assert!(patch["dependency"].is_null(), "{patch}");
        assert!(patches.iter().all(|p| p == "toyaead.patch"), "{patches:?}");
        return;
    }
    assert_eq!(patch["dependency"]["crate"], "inout", "{patch}");
    assert_eq!(patch["dependency"]["version"], "0.2.6", "{patch}");
    assert_eq!(patch["file"], "toyaead.inout-0.2.6.patch", "{patch}");
    assert_eq!(patches, ["toyaead.inout-0.2.6.patch"]);
    let fresh = out.join("inout-fresh");
    for (rel, bytes) in published {
        let path = fresh.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    }
    let file = out.join("toyaead.inout-0.2.6.patch");
    crate::common::git_in(&fresh, &["init", "-q"]);
    crate::common::git_in(&fresh, &["apply", "--check", "--", file.to_str().unwrap()]);
}
