//! Instructions per operation, counted by valgrind's callgrind: repeatable
//! for the same binary and inputs whatever else the machine does, which is
//! what a gate on shared CI machines needs. Our own runner rather than a
//! benchmark framework such as gungraun: the code measured is a loaded `.so`
//! whose one entry point (`inlinelab_crypt`) callgrind can toggle on by name,
//! so a plain valgrind run with `--toggle-collect` counts exactly the
//! artifact's instructions and nothing of the harness around it.

use crate::count_child::CountSpec;
use crate::error::{Error, Result};
use bench_harness::compare::Case;
use std::path::Path;
use std::process::Command;

/// valgrind's version, or a setup error that says how to install it.
pub fn check() -> Result<String> {
    match Command::new("valgrind").arg("--version").output() {
        Ok(o) if o.status.success() => Ok(String::from_utf8_lossy(&o.stdout).trim().to_string()),
        _ => Err(Error::usage(
            "valgrind is not installed; the gate counts instructions with callgrind",
            "install it: apt-get install valgrind (Debian, Ubuntu), dnf install valgrind (Fedora), brew install valgrind (macOS on Intel)",
        )),
    }
}

/// How many operations to count per case: about 64 KiB of data, at least 4.
pub fn ops_for(block: usize) -> u64 {
    ((64 * 1024 / block.max(1)) as u64).max(4)
}

/// Instructions per operation of `so` in each case, in `dir` (scratch).
pub fn count(so: &Path, cases: &[Case], dir: &Path) -> std::result::Result<Vec<f64>, String> {
    let spec = CountSpec {
        so: so.to_path_buf(),
        cases: cases.iter().map(|c| (*c, ops_for(c.block_bytes))).collect(),
    };
    let spec_path = dir.join("count.json");
    std::fs::write(
        &spec_path,
        serde_json::to_vec(&spec).map_err(|e| e.to_string())?,
    )
    .map_err(|e| format!("{}: {e}", spec_path.display()))?;
    let out = dir.join("callgrind.out");
    for old in std::fs::read_dir(dir).map_err(|e| e.to_string())?.flatten() {
        if old
            .file_name()
            .to_string_lossy()
            .starts_with("callgrind.out")
        {
            let _ = std::fs::remove_file(old.path());
        }
    }
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let run = Command::new("valgrind")
        .arg("--tool=callgrind")
        .arg(format!("--callgrind-out-file={}", out.display()))
        .args([
            "--collect-atstart=no",
            "--toggle-collect=inlinelab_crypt",
            "--dump-before=inlinelab_count_boundary",
        ])
        .arg(exe)
        .arg("__count")
        .arg(&spec_path)
        .output()
        .map_err(|e| format!("running valgrind: {e}"))?;
    if !run.status.success() {
        let err = String::from_utf8_lossy(&run.stderr);
        let last = err.lines().rfind(|l| !l.trim().is_empty()).unwrap_or("");
        return Err(format!("valgrind failed ({}): {last}", run.status));
    }
    // Dump k+1 (before boundary k+1) holds case k; dump 1 holds nothing.
    cases
        .iter()
        .enumerate()
        .map(|(k, c)| {
            let part = dir.join(format!("callgrind.out.{}", k + 2));
            let text =
                std::fs::read_to_string(&part).map_err(|e| format!("{}: {e}", part.display()))?;
            let total: u64 = text
                .lines()
                .find_map(|l| {
                    l.strip_prefix("totals:")
                        .or_else(|| l.strip_prefix("summary:"))
                })
                .and_then(|v| v.split_whitespace().next()?.parse().ok())
                .ok_or_else(|| format!("{}: no totals line", part.display()))?;
            Ok(total as f64 / ops_for(c.block_bytes) as f64)
        })
        .collect()
}
