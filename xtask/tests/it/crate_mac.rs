//! `cargo xtask compare --crate` on a MAC crate: the `toymac` fixture
//! (`digest` 0.11's `KeyInit + Update + FixedOutput + Clone`, `--offline`:
//! nothing beyond the workspace's own dependencies), its attributes in a
//! `macro_rules!` body, a `cfg_if!` branch and trait methods found and
//! edited, each copy built through the shim as a MAC artifact, keyed by the
//! MAC's key, checked in one call and streamed under every key length
//! against the crate as published, and timed; its generic MAC named with
//! its parameter (a hash of another crate `--with` adds); a change to it
//! gated (`gate --crate`, counts and sizes); every bad input refused with
//! exit 2 and one line. Timings are never asserted.

use crate::common::{
    annotation_rows_in, check_refused, drop_1_refused_and_published_timed, entry, fixture,
    fixture_repository, gate_working_tree, report_json as json, s, scratch,
};
use std::path::Path;
use std::process::Output;
use std::time::Duration;

/// A short, cheap run of the fixture with `extra` arguments: `variants`
/// besides `published`.
fn run(extra: &[&str], variants: &str, out: &Path, fault: Option<&str>) -> Output {
    crate::common::quick_crate_run(&fixture("toymac"), "64", extra, variants, out, fault)
}

/// The fixture end to end: its one MAC (`Keyed` is generic, so no
/// candidate) chosen without `--type`, learned as a MAC of 16-byte tags
/// taking keys of 1 to 64 bytes, its attributes tabled (those in the macro
/// body and the `cfg_if!` branch among them), its variants checked
/// against the crate as published and timed as tags under a 32-byte key,
/// the report's family said as a MAC's.
/// `drop_1`, made wrong (`wrong:drop_1`), is refused before it is timed:
/// a failed row, and exit 1 (the wrong variant's check rides on this run,
/// so that the fixture's variants are built once).
#[test]
#[ignore = "CI tier: builds a crate's variants; .ci/run runs it (see ARCHITECTURE.md, Tests)"]
fn a_mac_crate_is_decided() {
    let tmp = scratch("crate-mac");
    let out = run(&[], "none,drop_1", tmp.path(), Some("wrong:drop_1"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    // `drop_1` made wrong: a failed row, and exit 1; the rest decided.
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(
            "type ToyMac: a MAC, 16-byte tags, keys of 1 to 64 bytes; 8 inline attributes (7 compiled on this target)"
        ),
        "{stderr}"
    );
    let json = json(tmp.path(), "toymac");
    let a = &json["annotations"];
    assert_eq!(a["written"], 8, "every attribute written");
    let rows = a["rows"].as_array().unwrap();
    let at = |file: &str| annotation_rows_in(&json, file);
    // The macro body's one, `words`, the x86-64 branch of the cfg_if!;
    // the trait methods in lib.rs.
    assert_eq!(at("src/block.rs:"), 3, "{rows:?}");
    assert_eq!(at("src/lib.rs:"), 4, "{rows:?}");
    for v in ["published", "none"] {
        assert_eq!(entry(&json, v)["status"], "ok", "{v}: {}", entry(&json, v));
    }
    drop_1_refused_and_published_timed(&json, "wrong output", "toymac", &["digest"]);
    let md = std::fs::read_to_string(tmp.path().join("toymac.md")).unwrap();
    assert!(md.contains("MAC"), "{md}");
}

/// The generic MAC named with its parameter, a hash of another crate
/// (`toyhash`, a path `--with` adds to the probe and every shim): taken
/// as a MAC with that hash's 20-byte tags, its report named for both.
#[test]
#[ignore = "CI tier: builds a crate's variants; .ci/run runs it (see ARCHITECTURE.md, Tests)"]
fn a_generic_mac_is_named_with_its_parameter() {
    let tmp = scratch("crate-mac-generic");
    let toyhash = fixture("toyhash");
    let out = run(
        &["--type", "Keyed<toyhash::ToyHash>", "--with", s(&toyhash)],
        "none",
        tmp.path(),
        None,
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("type Keyed<toyhash::ToyHash>: a MAC, 20-byte tags, keys of 1 to 64 bytes"),
        "{stderr}"
    );
    let json = json(tmp.path(), "toymac_keyed_toyhash");
    assert_eq!(entry(&json, "published")["status"], "ok", "{json}");
    let by = json["generated_by"].as_str().unwrap();
    assert!(
        by.contains("--type 'Keyed<toyhash::ToyHash>' --with "),
        "{by}"
    );
}

/// The fixture made a git repository, its block function's `#[inline]`
/// made `#[inline(never)]` in the working tree (and `words`' `never`
/// `always`): the gate against its commit counts both sides' tags and key
/// setup, exits 1, and its comment names the block function that stopped
/// being inlined and the MAC's cases.
#[test]
#[ignore = "CI tier: builds a crate twice and counts it under valgrind"]
fn a_change_to_a_mac_crate_is_gated() {
    let tmp = scratch("gate-mac");
    let repo = fixture_repository("toymac", &tmp.path().join("toymac"));
    let block = repo.join("src/block.rs");
    let text = std::fs::read_to_string(&block).unwrap();
    let changed = text
        .replacen(
            "sixteen rounds.\n        #[inline]\n",
            "sixteen rounds.\n        #[inline(never)]\n",
            1,
        )
        .replacen(
            "words.\n#[inline(never)]\n",
            "words.\n#[inline(always)]\n",
            1,
        );
    assert_eq!(
        text.len() + 8,
        changed.len(),
        "both edits made: +7 and +1 bytes"
    );
    std::fs::write(&block, changed).unwrap();
    let (out, md) = gate_working_tree(&repo, tmp.path());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        md.contains("**Stopped being inlined** (inlined into the hot path at `HEAD`, a call at head): `toymac::block::compress`."),
        "{md}"
    );
    assert!(
        md.contains("## inlinelab gate: crate toymac (0.1.0), type ToyMac"),
        "{md}"
    );
    assert!(
        md.contains("toymac digest 256-bit 16/64/256/1024/1421/2048/4096/8192 B"),
        "{md}"
    );
    assert!(md.contains("toymac setkey 256-bit"), "{md}");
}

/// Each bad input of a MAC crate: exit 2, one line and a hint, and `--out`
/// not created.
#[test]
fn bad_mac_input_is_refused_with_one_line() {
    let tmp = scratch("crate-mac-bad");
    let out_dir = tmp.path().join("out");
    let out = s(&out_dir);
    let toy = fixture("toymac");
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
        &compare(&["--type", "Keyed"]),
        "toymac 0.1.0's `Keyed` is generic: name it with its parameters",
    );
    usage(
        &compare(&["--type", "Keyed<nope::Hash>"]),
        "toymac 0.1.0: `Keyed<nope::Hash>` is no block cipher, hash, MAC, universal hash, stream cipher or AEAD here",
    );
    usage(
        &compare(&["--type", "Keyed<"]),
        "--type Keyed<: not a type's name",
    );
    usage(
        &compare(&["--with", "sha2@0.11"]),
        "--with sha2@0.11: `0.11` is a version requirement",
    );
}
