//! Builds one artifact: `inlinelab-artifact` with one feature, through cargo
//! with `--message-format=json` (the paths come from cargo, not guesses),
//! in the shared target directory.

use crate::workspace;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// A built artifact.
pub struct Built {
    /// The `.so`, copied out of cargo's output to a per-variant path (the
    /// next build overwrites cargo's own copy).
    pub so: PathBuf,
    /// The `.rlib` of the crate that holds the cipher, from the same build:
    /// `variants` compiled with only this variant, or the peer crate.
    pub rlib: PathBuf,
    pub seconds: f64,
}

/// Where to build from: a workspace and the target directory to use.
#[derive(Clone, Debug)]
pub struct Tree {
    pub root: PathBuf,
    /// `None`: the workspace's own.
    pub target_dir: Option<PathBuf>,
    /// `RUSTFLAGS` for the build, if any.
    pub rustflags: Option<String>,
}

impl Tree {
    /// This workspace.
    pub fn here() -> Tree {
        Tree {
            root: workspace::root(),
            target_dir: None,
            rustflags: None,
        }
    }
}

/// Builds the artifact with `feature` in `tree` and copies its `.so` to
/// `dest`. `rlib_crate` is the crate whose `.rlib` to report. The error is
/// the compiler's first error line.
pub fn build(tree: &Tree, feature: &str, rlib_crate: &str, dest: &Path) -> Result<Built, String> {
    let start = Instant::now();
    let mut cmd = workspace::cargo();
    cmd.current_dir(&tree.root);
    cmd.args([
        "build",
        "--profile",
        "artifact",
        "--package",
        "inlinelab-artifact",
        "--no-default-features",
        "--features",
        feature,
        "--message-format=json-render-diagnostics",
        "--manifest-path",
    ])
    .arg(tree.root.join("Cargo.toml"));
    if let Some(dir) = &tree.target_dir {
        cmd.arg("--target-dir").arg(dir);
    }
    if let Some(flags) = &tree.rustflags {
        cmd.env("RUSTFLAGS", flags);
    }
    let out = cmd.output().map_err(|e| format!("running cargo: {e}"))?;
    let mut so = None;
    let mut rlib = None;
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let Ok(msg) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        if msg["reason"] != "compiler-artifact" {
            continue;
        }
        let target = msg["target"]["name"].as_str().unwrap_or("");
        let files = msg["filenames"].as_array().into_iter().flatten();
        for f in files.filter_map(|f| f.as_str()) {
            if target == "inlinelab_artifact" && f.ends_with(".so") {
                so = Some(PathBuf::from(f));
            } else if target == rlib_crate && f.ends_with(".rlib") {
                rlib = Some(PathBuf::from(f));
            }
        }
    }
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        let first = stderr
            .lines()
            .find(|l| l.starts_with("error"))
            .unwrap_or("cargo build failed");
        return Err(format!("build failed: {first}"));
    }
    let so = so.ok_or("cargo reported no .so for inlinelab-artifact")?;
    let rlib = rlib.ok_or_else(|| format!("cargo reported no .rlib for {rlib_crate}"))?;
    if let Some(dir) = dest.parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    std::fs::copy(&so, dest).map_err(|e| format!("copying {}: {e}", so.display()))?;
    Ok(Built {
        so: dest.to_path_buf(),
        rlib,
        seconds: start.elapsed().as_secs_f64(),
    })
}
