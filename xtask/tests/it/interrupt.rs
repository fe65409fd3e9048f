//! An interrupted command ends its children with itself (issue 30): SIGTERM
//! or SIGINT to `cargo xtask compare` or `gate` while a build runs in a
//! process group of its own leaves no process of its behind, exits 130, and
//! leaves no build manifest that a later run would take as done.

use crate::common::{root, scratch};
use std::io::Read;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

/// The processes whose environment holds `tag`.
fn tagged(tag: &str) -> Vec<u32> {
    let needle = tag.as_bytes();
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/environ"))
                .is_ok_and(|env| env.split(|&b| b == 0).any(|v| v == needle))
        })
        .collect()
}

/// Every file under `dir` whose name ends with `suffix`.
fn files_ending(dir: &Path, suffix: &str) -> Vec<String> {
    walk(dir)
        .into_iter()
        .filter(|p| p.ends_with(suffix))
        .collect()
}

fn walk(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p.display().to_string());
        }
    }
    out
}

/// Starts `args` with a cold target directory (so that a build is under
/// way for a while), waits until it says it is building, sends `signal`,
/// and checks what is left.
fn interrupted_while_building(args: &[&str], signal: rustix::process::Signal, name: &str) {
    let tmp = scratch(name);
    let target = tmp.path().join("target");
    let tag = format!("INLINELAB_INTERRUPT_TEST={name}-{}", std::process::id());
    let (key, value) = tag.split_once('=').unwrap();
    let mut child = crate::common::xtask_command()
        .args(args)
        .current_dir(root())
        .env("CARGO_TARGET_DIR", &target)
        .env(key, value)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Its stderr, read as it comes, until a build is under way.
    let mut stderr = child.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n) = stderr.read(&mut buf) {
            if n == 0
                || tx
                    .send(String::from_utf8_lossy(&buf[..n]).into_owned())
                    .is_err()
            {
                break;
            }
        }
    });
    let mut seen = String::new();
    let start = Instant::now();
    while !seen.contains("building") {
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "{args:?}: never started building: {seen}"
        );
        if let Ok(more) = rx.recv_timeout(Duration::from_millis(100)) {
            seen.push_str(&more);
        }
    }
    // The compilers are running under cargo, in the build's own group.
    // (xtask, cargo and a compiler at least; compilers come and go).
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut running = tagged(&tag).len();
    while running < 3 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
        running = tagged(&tag).len();
    }
    assert!(running >= 3, "{args:?}: no build running: {seen}");
    let pid = rustix::process::Pid::from_raw(child.id() as i32).unwrap();
    rustix::process::kill_process(pid, signal).unwrap();
    let status = child.wait().unwrap();
    while let Ok(more) = rx.recv_timeout(Duration::from_millis(500)) {
        seen.push_str(&more);
    }
    assert_eq!(status.code(), Some(130), "{args:?}: {seen}");
    assert!(seen.contains("interrupted"), "{seen}");
    // SIGKILL is delivered at once; the zombies' environments are gone.
    let deadline = Instant::now() + Duration::from_secs(10);
    while !tagged(&tag).is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(
        tagged(&tag),
        Vec::<u32>::new(),
        "{args:?}: processes lived on"
    );
    // Nothing was built to its end, so nothing is recorded as built.
    assert_eq!(
        files_ending(&target, ".build.json"),
        Vec::<String>::new(),
        "{args:?}"
    );
}

#[test]
fn sigterm_to_compare_ends_its_build() {
    let out = scratch("interrupt-out");
    interrupted_while_building(
        &[
            "compare",
            "cast6",
            "--quick",
            "--variants",
            "never,auto",
            "--no-peer",
            "--out",
            out.path().to_str().unwrap(),
        ],
        rustix::process::Signal::TERM,
        "compare",
    );
    // No report of a run that did not finish.
    assert_eq!(walk(out.path()), Vec::<String>::new());
}

#[test]
fn sigint_to_gate_ends_its_build() {
    interrupted_while_building(
        &["gate", "cast6", "--no-time", "--variants", "never"],
        rustix::process::Signal::INT,
        "gate",
    );
}
