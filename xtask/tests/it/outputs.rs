//! Nothing overwritten that the tool did not write (issue 29): a command
//! replaces only files carrying its own generated marker, checks every
//! output path before any work, and creates nothing on a usage error.

use crate::common::{check_usage, root, s, scratch, xtask};
use std::path::{Path, PathBuf};

/// The committed machine runs of cast6 that its committed cross-machine
/// report merges (`reports/machines/cast6.json` names them): inputs of
/// `merge` that it takes together.
fn machine_runs() -> Vec<PathBuf> {
    let merged: serde_json::Value =
        serde_json::from_slice(&std::fs::read(root().join("reports/machines/cast6.json")).unwrap())
            .unwrap();
    let command = merged["generated_by"].as_str().unwrap();
    let runs: Vec<PathBuf> = (command.strip_prefix("cargo xtask merge "))
        .unwrap_or_else(|| panic!("not a merge: {command}"))
        .split_whitespace()
        .map(|p| root().join(p))
        .collect();
    assert!(
        runs.len() >= 2 && runs.iter().all(|p| p.is_file()),
        "{runs:?}"
    );
    runs
}

/// Every file under `dir` with its bytes, to show that nothing changed.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let meta = std::fs::symlink_metadata(e.path()).unwrap();
            if meta.is_dir() {
                stack.push(e.path());
            } else if meta.is_file() {
                files.push((e.path(), std::fs::read(e.path()).unwrap()));
            } else {
                files.push((e.path(), Vec::new()));
            }
        }
    }
    files.sort();
    files
}

fn copy_committed(name: &str, to: &Path) {
    std::fs::copy(root().join("reports").join(name), to).unwrap();
}

fn merge_args<'a>(runs: &'a [PathBuf], out: &'a str) -> Vec<&'a str> {
    let mut args = vec!["merge"];
    args.extend(runs.iter().map(|p| s(p)));
    args.extend(["--out", out]);
    args
}

/// `merge --out` into a directory of compare reports, or into an input's
/// own directory, is refused before anything is written.
#[test]
fn merge_never_replaces_a_compare_report_nor_its_inputs() {
    let runs = machine_runs();
    let tmp = scratch("merge-over");
    let out = tmp.path().join("reports");
    std::fs::create_dir(&out).unwrap();
    copy_committed("cast6.json", &out.join("cast6.json"));
    let before = snapshot(&out);
    check_usage(
        &merge_args(&runs, s(&out)),
        &format!(
            "{}: exists and was not written by `cargo xtask merge`",
            s(&out.join("cast6.json"))
        ),
    );
    assert_eq!(snapshot(&out), before);

    // The inputs' own directory: copies of the runs, merged into where
    // the first one is.
    let inputs = tmp.path().join("inputs");
    std::fs::create_dir_all(inputs.join("b")).unwrap();
    let (a, b) = (inputs.join("cast6.json"), inputs.join("b/cast6.json"));
    std::fs::copy(&runs[0], &a).unwrap();
    std::fs::copy(&runs[1], &b).unwrap();
    let before = snapshot(&inputs);
    check_usage(
        &merge_args(&[a.clone(), b.clone()], s(&inputs)),
        "an input of this command",
    );
    assert_eq!(snapshot(&inputs), before);

    // Its own earlier output it replaces.
    let own = tmp.path().join("merged");
    for _ in 0..2 {
        let o = xtask(&merge_args(&runs, s(&own)));
        assert_eq!(
            o.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
    for ext in ["json", "md", "svg"] {
        assert!(own.join(format!("cast6.{ext}")).is_file(), "{ext}");
    }
}

/// `render` and `compare` never replace a README.md they did not write; a
/// usage error of compare's leaves its `--out` as it was.
#[test]
fn a_readme_the_tool_did_not_write_is_left_alone() {
    let tmp = scratch("readme");
    let dir = tmp.path();
    let readme = dir.join("README.md");
    std::fs::write(&readme, "# A project\n\nIts own words.\n").unwrap();
    // A directory without reports: nothing to render.
    check_usage(&["render", s(dir)], "holds no compare report");
    copy_committed("cast6.json", &dir.join("cast6.json"));
    let before = snapshot(dir);
    check_usage(
        &["render", s(dir)],
        &format!(
            "{}: exists and was not written by `cargo xtask compare`",
            s(&readme)
        ),
    );
    let stderr = check_usage(
        &["compare", "cast6", "--quick", "--out", s(dir)],
        &format!("{}: exists", s(&readme)),
    );
    assert!(!stderr.contains("building"), "{stderr}");
    assert_eq!(snapshot(dir), before);

    // The tool's own index beside reports: a usage error (the reference
    // not among the variants) rewrites none of them.
    std::fs::remove_file(&readme).unwrap();
    copy_committed("README.md", &readme);
    copy_committed("crc32c.json", &dir.join("crc32c.json"));
    copy_committed("crc32c.md", &dir.join("crc32c.md"));
    std::fs::write(dir.join("cast6.md"), "stale view\n").unwrap();
    let before = snapshot(dir);
    check_usage(
        &[
            "compare",
            "crc32c",
            "--quick",
            "--variants",
            "sse42_*",
            "--out",
            s(dir),
        ],
        "is not among those measured",
    );
    assert_eq!(snapshot(dir), before);
}

/// Every output path is checked before any work: a symbolic link where an
/// output or its directory goes, a dangling one as `--out`, refused in the
/// first second with a line naming it; nothing created on a usage error.
#[test]
fn outputs_are_checked_before_any_work() {
    let runs = machine_runs();
    let tmp = scratch("paths");
    let top = tmp.path();
    let elsewhere = top.join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    std::fs::write(elsewhere.join("target.md"), "kept\n").unwrap();

    // calibrate: the markdown a symbolic link; its calibration/ one.
    let d = top.join("d");
    std::fs::create_dir_all(d.join("calibration")).unwrap();
    let md = d.join("calibration/crc32c.md");
    std::os::unix::fs::symlink(elsewhere.join("target.md"), &md).unwrap();
    let stderr = check_usage(
        &["calibrate", "crc32c", "--out", s(&d)],
        &format!("{}: is a symbolic link", s(&md)),
    );
    assert!(!stderr.contains("building"), "{stderr}");
    let e = top.join("e");
    std::fs::create_dir(&e).unwrap();
    std::os::unix::fs::symlink(&elsewhere, e.join("calibration")).unwrap();
    check_usage(
        &["calibrate", "crc32c", "--out", s(&e)],
        &format!("{}: is a symbolic link", s(&e.join("calibration"))),
    );

    // merge: a symbolic link as its markdown; --out a link to a directory;
    // --out a dangling link.
    let m = top.join("m");
    std::fs::create_dir(&m).unwrap();
    std::os::unix::fs::symlink(elsewhere.join("target.md"), m.join("cast6.md")).unwrap();
    check_usage(
        &merge_args(&runs, s(&m)),
        &format!("{}: is a symbolic link", s(&m.join("cast6.md"))),
    );
    assert!(!m.join("cast6.json").exists());
    let link = top.join("link");
    std::os::unix::fs::symlink(&elsewhere, &link).unwrap();
    check_usage(
        &merge_args(&runs, s(&link)),
        &format!("--out {}: is a symbolic link", s(&link)),
    );
    let dangling = top.join("dangling");
    std::os::unix::fs::symlink(top.join("nowhere"), &dangling).unwrap();
    check_usage(
        &merge_args(&runs, s(&dangling)),
        &format!("--out {}: is a symbolic link", s(&dangling)),
    );
    check_usage(
        &["compare", "cast6", "--quick", "--out", s(&dangling)],
        &format!("--out {}: is a symbolic link", s(&dangling)),
    );
    assert_eq!(
        std::fs::read_to_string(elsewhere.join("target.md")).unwrap(),
        "kept\n"
    );
    assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 1);

    // Nothing created on a usage error.
    let new = top.join("new/sub");
    check_usage(
        &[
            "compare",
            "cast6",
            "--variants",
            "nothing_like_it",
            "--out",
            s(&new),
        ],
        "nothing_like_it",
    );
    let not_a_report = top.join("notes.json");
    std::fs::write(&not_a_report, "{}").unwrap();
    check_usage(
        &["merge", s(&not_a_report), s(&runs[0]), "--out", s(&new)],
        "notes.json",
    );
    assert!(!top.join("new").exists());
}

/// `render` of a crate's folder (`compare --crate`) renders its report
/// and writes no index beside it: a crate's folder has none; a folder of
/// this workspace's reports gets one (`hostile.rs`).
#[test]
fn render_writes_no_index_in_a_crates_folder() {
    let tmp = scratch("crate-render");
    let dir = tmp.path();
    let from = root().join("reports/crates/cast6-0.2.0/cast6.json");
    std::fs::copy(&from, dir.join("cast6.json")).unwrap();
    let o = xtask(&["render", s(dir)]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(dir.join("cast6.md").is_file() && dir.join("cast6.svg").is_file());
    assert!(!dir.join("README.md").exists());
    assert_eq!(
        std::fs::read(dir.join("cast6.md")).unwrap(),
        std::fs::read(from.with_extension("md")).unwrap()
    );
}
