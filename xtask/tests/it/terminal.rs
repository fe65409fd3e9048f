//! Names from a report's JSON printed to a terminal (issue 29, case 7):
//! `merge`'s "left out:" lines on stderr and its "portable: use ..." line
//! on stdout show control characters escaped, each line one line; and help
//! printed to a reader that has gone is no panic.

fn committed(cipher: &str) -> serde_json::Value {
    let path = crate::common::root().join(format!("reports/{cipher}.json"));
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// Renames the variant `from` to `to` wherever the report names it (every
/// string that is the name, the verdict's and the run's among them), so
/// that the reader finds it consistent.
fn rename(r: &mut serde_json::Value, from: &str, to: &str) {
    match r {
        serde_json::Value::String(s) if s == from => *s = to.to_string(),
        serde_json::Value::Array(a) => a.iter_mut().for_each(|v| rename(v, from, to)),
        // LLVM's reason for a decision (`"why": "always"`) is a word of
        // the format, not a name, though a variant may be named alike.
        serde_json::Value::Object(o) => (o.iter_mut())
            .filter(|(k, _)| *k != "why")
            .for_each(|(_, v)| rename(v, from, to)),
        _ => {}
    }
}

#[test]
fn merge_prints_names_as_a_terminal_shows_them() {
    let tmp = tempfile::Builder::new()
        .prefix("xtask-terminal-")
        .tempdir()
        .unwrap();
    let (a, b, out) = (
        tmp.path().join("a"),
        tmp.path().join("b"),
        tmp.path().join("out"),
    );
    for d in [&a, &b, &out] {
        std::fs::create_dir_all(d).unwrap();
    }
    let pick = "auto_x8_unrolled\u{1b}[2J\u{0}\nx";
    let mut ra = committed("cast6");
    let wanted = ra["verdict"]["pick"].as_str().unwrap().to_string();
    rename(&mut ra, &wanted, pick);
    let mut rb = ra.clone();
    rb["machine_label"] = "another-machine".into();
    // A variant whose artifact differs on the second machine is left out,
    // its name quoted.
    let other = (rb["variants"].as_array().unwrap().iter())
        .find(|e| e["status"] == "ok" && e["name"] != pick && e["name"] != "auto")
        .unwrap()["name"]
        .as_str()
        .unwrap()
        .to_string();
    let hostile = "\u{1b}]0;owned\u{7}\nline";
    rename(&mut ra, &other, hostile);
    rename(&mut rb, &other, hostile);
    let e = (rb["variants"].as_array_mut().unwrap().iter_mut())
        .find(|e| e["name"] == hostile)
        .unwrap();
    e["artifact"]["fingerprint"] = "1:0123456789abcdef".into();
    e["measured_fingerprint"] = e["artifact"]["fingerprint"].clone();
    for (dir, r) in [(&a, &ra), (&b, &rb)] {
        std::fs::write(dir.join("cast6.json"), serde_json::to_vec(r).unwrap()).unwrap();
    }
    let output = crate::common::xtask_command()
        .arg("merge")
        .args([a.join("cast6.json"), b.join("cast6.json")])
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    for text in [&stdout, &stderr] {
        assert!(
            !text.chars().any(|c| c.is_control() && c != '\n'),
            "{text:?}"
        );
    }
    let left: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("left out: "))
        .collect();
    assert_eq!(stderr.lines().count(), left.len(), "{stderr}");
    assert_eq!(left.len(), 1, "{stderr}");
    // The line is markdown the merge wrote: its inline code is one line.
    assert!(
        left[0].contains("`\\u{1b}]0;owned\\u{7} line`"),
        "{}",
        left[0]
    );
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{stdout}");
    assert!(
        lines[0].ends_with("use `auto_x8_unrolled\\u{1b}[2J\\u{0}\\nx` everywhere"),
        "{}",
        lines[0]
    );
}

/// Help read by a reader that has already gone (`cargo xtask gate --help |
/// head -1`): exit 0, no panic, whatever the pipe's buffer holds (the
/// reading end is closed before xtask starts).
#[test]
fn help_into_a_closed_pipe_is_no_panic() {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let out = crate::common::xtask_command()
        .args(["gate", "--help"])
        .stdout(writer)
        .stderr(std::process::Stdio::piped())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(out.status.code(), Some(0), "{stderr}");
}
