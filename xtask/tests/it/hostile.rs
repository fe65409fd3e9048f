//! Hostile input to `cargo xtask` from the outside (issue 13): values that
//! crashed it are bounded at parse time, repeated options are errors,
//! output paths are checked before anything is built, and `render` reads
//! only reports, writing nothing outside the reports directory.

use crate::common::{check_usage, root, s, scratch, xtask, xtask_within};
use std::time::Duration;

/// The values that once overflowed a multiplication, crashed the
/// measuring process or hung it are refused when parsed.
#[test]
fn values_that_crashed_are_refused_when_parsed() {
    let sizes = "block sizes are whole numbers from 1 to 1048576";
    for (args, expected) in [
        (&["--sizes", "18446744073709551615"][..], sizes),
        (&["--sizes", "1099511627776"], sizes),
        (&["--sizes", "16,1099511627776"], sizes),
        (
            &["--sec", "1e308"],
            "seconds are a number above 0 and at most 3600",
        ),
        (
            &["--sec", "1e10"],
            "seconds are a number above 0 and at most 3600",
        ),
        (
            &["--budget", "1e308"],
            "seconds are a number above 0 and at most 3600",
        ),
        (
            &["--rounds", "5,6"],
            "rounds are one whole number from 3 to 1000",
        ),
    ] {
        let mut all = vec!["compare", "cast6", "--quick"];
        all.extend(args);
        let stderr = check_usage(&all, expected);
        // The hint for --rounds suggests no list.
        assert!(!stderr.lines().nth(1).unwrap().contains(','), "{stderr}");
    }
}

/// Every option of every command given twice is a usage error, never the
/// last one silently.
#[test]
fn repeated_options_are_usage_errors() {
    let cases: &[&[&str]] = &[
        &["compare", "cast6", "--quick", "--quick"],
        &["compare", "cast6", "--sizes", "16", "--sizes", "32"],
        &["compare", "cast6", "--sec", "1", "--sec", "2"],
        &["compare", "cast6", "--rounds", "5", "--rounds", "6"],
        &["compare", "cast6", "--budget", "1", "--budget", "2"],
        &["compare", "cast6", "--threshold", "2", "--threshold", "3"],
        &["compare", "cast6", "--out", "a", "--out", "b"],
        &["compare", "cast6", "--no-peer", "--no-peer"],
        &[
            "compare",
            "cast6",
            "--variants",
            "never",
            "--variants",
            "auto",
        ],
        &[
            "compare",
            "cast6",
            "--reference",
            "never",
            "--reference",
            "auto",
        ],
        &[
            "compare",
            "cast6",
            "--reference",
            "never",
            "--baseline-variant",
            "auto",
        ],
        &["gate", "--baseline", "a", "--baseline", "b"],
        &["gate", "--against", "a", "--against", "b"],
        &["gate", "--comment", "a", "--comment", "b"],
        &["gate", "--size-threshold", "1", "--size-threshold", "2"],
        &["gate", "--speed-threshold", "1", "--speed-threshold", "2"],
        &["gate", "--time-threshold", "1", "--time-threshold", "2"],
        &["gate", "--strict-time", "--strict-time"],
        &["gate", "--no-time", "--no-time"],
        &["bloat", "cast6", "--variant", "never", "--variant", "auto"],
        &["bloat", "cast6", "-n", "3", "-n", "4"],
    ];
    for args in cases {
        check_usage(args, "cannot be used multiple times");
    }
    for args in [
        &["compare", "cast6", "cast5"][..],
        &["gate", "cast6", "cast5"],
        &["baseline", "cast6", "cast5"],
        &["bloat", "cast6", "cast5"],
        &["render", "a", "b"],
    ] {
        check_usage(args, "unexpected argument '");
    }
}

/// `--out` is checked before anything is built: not a directory, or a
/// report file in it that is a directory or a symbolic link, is a usage
/// error in the first second, and nothing is replaced.
#[test]
fn out_is_checked_before_anything_is_built() {
    let dir_tmp = scratch("out");
    let dir = dir_tmp.path();
    let file = dir.join("file");
    std::fs::write(&file, b"kept").unwrap();
    let holds_dir = dir.join("a");
    std::fs::create_dir_all(holds_dir.join("cast6.json")).unwrap();
    let holds_link = dir.join("b");
    std::fs::create_dir_all(&holds_link).unwrap();
    std::os::unix::fs::symlink(&file, holds_link.join("cast6.md")).unwrap();
    let json = holds_dir.join("cast6.json");
    let md = holds_link.join("cast6.md");
    for (out, expected) in [
        (
            "/dev/null".to_string(),
            "--out /dev/null: is not a directory".to_string(),
        ),
        (
            s(&file).to_string(),
            format!("--out {}: is not a directory", s(&file)),
        ),
        (
            s(&holds_dir).to_string(),
            format!("--out {}: is a directory", s(&json)),
        ),
        (
            s(&holds_link).to_string(),
            format!("--out {}: is a symbolic link", s(&md)),
        ),
    ] {
        let stderr = check_usage(&["compare", "cast6", "--quick", "--out", &out], &expected);
        assert!(!stderr.contains("building"), "{stderr}");
    }
    check_usage(
        &["compare", "cast6", "--out", ""],
        "a value is required for '--out <DIR>'",
    );
    assert_eq!(std::fs::read(&file).unwrap(), b"kept");
    assert!(
        std::fs::symlink_metadata(&md)
            .unwrap()
            .file_type()
            .is_symlink()
    );
}

/// The gate checks `--comment` before it measures (a comment it cannot
/// write is a setup error, exit 2, never 1 after minutes of counting).
#[test]
fn gate_comment_is_checked_before_measuring() {
    let dir_tmp = scratch("comment");
    let dir = dir_tmp.path();
    for (path, expected) in [
        (
            s(dir).to_string(),
            format!("--comment {}: is a directory", s(dir)),
        ),
        (
            "/dev/null".into(),
            "--comment /dev/null: is not a regular file".into(),
        ),
        (
            s(&dir.join("missing/c.md")).to_string(),
            format!("--comment {}: directory", s(&dir.join("missing/c.md"))),
        ),
        (
            format!("{}/", s(dir)),
            "names a directory, not a file".into(),
        ),
    ] {
        let out = xtask_within(
            &["gate", "cast6", "--no-time", "--comment", &path],
            Duration::from_secs(30),
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{path}: {stderr}");
        assert!(
            stderr.lines().next().unwrap().contains(&expected),
            "{stderr}"
        );
        assert!(!stderr.contains("building"), "{stderr}");
    }
    check_usage(
        &["gate", "--comment", ""],
        "a value is required for '--comment <PATH>'",
    );
    let leftovers: Vec<_> = std::fs::read_dir(dir).unwrap().flatten().collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

fn committed(cipher: &str) -> serde_json::Value {
    let path = root().join(format!("reports/{cipher}.json"));
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// `render` over a directory holding a good report beside hostile ones:
/// a cipher name that is a path (relative or absolute), sizes of 0 (which
/// hung the chart), another schema version, a `tcrypt --json` output, a
/// file that is not JSON, and temporaries of a killed run. The good report
/// is rendered; every other file is named once on stderr; nothing is
/// written outside the directory; the exit code is 1 for the refused ones.
#[test]
fn render_reads_only_reports() {
    let top_tmp = scratch("render");
    let top = top_tmp.path();
    let dir = top.join("reports");
    std::fs::create_dir_all(&dir).unwrap();
    let put = |name: &str, v: &serde_json::Value| {
        std::fs::write(dir.join(name), serde_json::to_vec_pretty(v).unwrap()).unwrap()
    };
    put("cast6.json", &committed("cast6"));
    let mut escaped = committed("blowfish");
    escaped["cipher"] = "../escaped".into();
    put("blowfish.json", &escaped);
    let mut absolute = committed("crc32c");
    absolute["cipher"] = s(&top.join("absolute")).into();
    put("crc32c.json", &absolute);
    let mut zero = committed("aes");
    for list in ["variants", "peers"] {
        for e in zero[list].as_array_mut().unwrap() {
            if e["artifact"].is_object() {
                e["artifact"]["text_bytes"] = 0.into();
            }
        }
    }
    put("aes.json", &zero);
    // The first entry checked is the first variant, whatever its name.
    let zero_why = format!(
        "`{}`: .text bytes are 0",
        zero["variants"][0]["name"].as_str().unwrap()
    );
    let mut future = committed("cast5");
    let read = future["schema_version"].as_u64().unwrap();
    future["schema_version"] = (read + 1).into();
    let future_why = format!(
        "schema version {}, but this xtask reads versions 2 to {read}",
        read + 1
    );
    put("cast5.json", &future);
    put(
        "tcrypt.json",
        &serde_json::json!({"schema_version": 1, "cycles_are": "ns", "measurements": [], "fits": []}),
    );
    std::fs::write(dir.join("notes.json"), b"not JSON\n").unwrap();
    let strays = [".cast6.md.4194305.0.tmp", "cast6.json.tmp4194305"];
    for stray in strays {
        std::fs::write(dir.join(stray), b"half").unwrap();
    }

    // Written compactly: render leaves a report's JSON as it is.
    std::fs::write(
        dir.join("cast6.json"),
        serde_json::to_vec(&committed("cast6")).unwrap(),
    )
    .unwrap();
    let json_before = std::fs::read(dir.join("cast6.json")).unwrap();

    let out = xtask_within(&["render", s(&dir)], Duration::from_secs(60));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    for (file, why) in [
        ("aes.json", zero_why.as_str()),
        (
            "blowfish.json",
            "cipher name `../escaped` is not 1 to 32 of a-z, 0-9 and _",
        ),
        ("cast5.json", future_why.as_str()),
        ("crc32c.json", "is not 1 to 32 of a-z, 0-9 and _"),
        ("notes.json", "not valid JSON"),
        ("tcrypt.json", "not a compare report"),
    ] {
        let prefix = format!("xtask: skipped {}: ", s(&dir.join(file)));
        let lines: Vec<&str> = stderr.lines().filter(|l| l.starts_with(&prefix)).collect();
        assert_eq!(lines.len(), 1, "{file}: {stderr}");
        assert!(lines[0].contains(why), "{file}: {}", lines[0]);
    }
    assert!(
        stderr.lines().last().unwrap().contains("5 file(s)"),
        "{stderr}"
    );
    // Only the good report was rendered, inside the directory.
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| !n.ends_with(".json"))
        .collect();
    names.sort();
    assert_eq!(names, ["README.md", "cast6.md", "cast6.svg"]);
    let outside: Vec<String> = std::fs::read_dir(top)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(outside, ["reports"]);
    let md = std::fs::read_to_string(dir.join("cast6.md")).unwrap();
    assert_eq!(
        md,
        std::fs::read_to_string(root().join("reports/cast6.md")).unwrap()
    );
    assert_eq!(std::fs::read(dir.join("cast6.json")).unwrap(), json_before);

    // Foreign files alone fail nothing.
    for f in [
        "aes.json",
        "blowfish.json",
        "cast5.json",
        "crc32c.json",
        "notes.json",
    ] {
        std::fs::remove_file(dir.join(f)).unwrap();
    }
    let out = xtask(&["render", s(&dir)]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
}

/// The program valgrind runs refuses arguments it was not given by xtask
/// (exit 2, a usage line and a hint) and names a file it cannot read (exit
/// 1), writing nothing.
#[test]
fn under_valgrind_refuses_what_xtask_would_not_pass() {
    let run = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_under-valgrind"))
            .args(args)
            .output()
            .unwrap()
    };
    for args in [
        &[][..],
        &["count", "a", "b"],
        &["secrets", "a", "b"],
        &["x"],
    ] {
        let out = run(args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 2, "{args:?}: {err}");
        assert!(err.starts_with("under-valgrind: usage:"), "{err}");
        assert!(err.lines().nth(1).unwrap().starts_with("hint: "), "{err}");
    }
    let dir = scratch("under-valgrind");
    let missing = dir.path().join("no-spec.json");
    let outcome = dir.path().join("outcome.json");
    let marker = dir.path().join("marker");
    let out = run(&[
        "count",
        missing.to_str().unwrap(),
        outcome.to_str().unwrap(),
        marker.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains(&missing.display().to_string()), "{err}");
    assert!(!outcome.exists() && !marker.exists());
}
