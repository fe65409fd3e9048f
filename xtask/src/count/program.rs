//! The program valgrind runs: `under-valgrind` (this package's second
//! binary, `src/bin/under-valgrind.rs`, its code bench-harness's
//! `under_valgrind`). Not xtask itself: each valgrind start reads the
//! symbol table of the program it runs, and xtask's is many times larger
//! (issue 47's closing note has the cost per start). `cargo xtask` builds
//! only xtask, so the program is built here on first use, by cargo (a
//! no-op when it is current), and found from cargo's own answer; the
//! tests, whose cargo has already built it and holds the build directory,
//! name it in [`VAR`] instead.

use crate::env::workspace;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::OnceLock;

/// The binary's name, as `Cargo.toml` declares it.
const BIN: &str = "under-valgrind";

/// The variable that names the program, already built: then it is not
/// built here.
pub const VAR: &str = "INLINELAB_UNDER_VALGRIND";

/// The program's path, built the first time this process asks.
pub fn path() -> Result<PathBuf, String> {
    static PATH: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    PATH.get_or_init(|| match std::env::var_os(VAR) {
        Some(path) => Ok(PathBuf::from(path)),
        None => build(),
    })
    .clone()
}

/// `cargo build` of the binary in the profile xtask was built with; its
/// path from cargo's JSON messages.
fn build() -> Result<PathBuf, String> {
    let mut cmd = workspace::cargo();
    cmd.args(["build", "--quiet", "--package", "xtask", "--bin", BIN])
        .arg("--message-format=json-render-diagnostics");
    if !cfg!(debug_assertions) {
        cmd.arg("--release");
    }
    // Compiler errors, if any, go to the user's terminal as cargo renders
    // them.
    let out = cmd
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| format!("running cargo to build {BIN}: {e}"))?;
    if !out.status.success() {
        return Err(format!("cargo could not build {BIN} ({})", out.status));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    text.lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .find(|m| m["reason"] == "compiler-artifact" && m["target"]["name"] == BIN)
        .and_then(|m| m["executable"].as_str().map(PathBuf::from))
        .ok_or_else(|| format!("cargo built {BIN} but did not say where"))
}
