//! Builds one artifact: `inlinelab-artifact` holding one variant or peer,
//! through cargo with `--message-format=json` (the paths come from cargo,
//! not guesses), in the tree's target directory. [`select`] is the one
//! place that says how a cargo command picks what an artifact holds. A
//! build has a deadline ([`deadline::build`]).

use crate::build::remarks;
use crate::env::deadline::{self, Group, Waited};
use crate::env::tree::{Source, Tree};
use crate::env::{library, workspace};
use crate::select::artifact::Inlining;
use crate::select::contenders::Selection;
use bench_harness::registry::{self, Peer};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Instant;

/// Makes `cmd` (a cargo command on `inlinelab-artifact`) select `selection`,
/// with `extra` features (fault injection) besides: a variant through the
/// environment, a peer through its feature.
pub fn select(cmd: &mut Command, selection: &Selection, extra: &[&str]) {
    cmd.env(variants::SELECT_ENV, selection.variant_env());
    let mut features: Vec<String> = extra.iter().map(|f| f.to_string()).collect();
    if let Selection::Peer(p) = selection {
        features.extend(peer_features(p));
        if let Some(library) = &p.library {
            cmd.env(registry::LIBRARY_ALGORITHM_ENV, library.algorithm_env())
                .env(registry::LIBRARY_BLOCK_ENV, library.block.to_string());
            match library.provider {
                Some(p) => cmd.env(registry::LIBRARY_PROVIDER_ENV, p.name()),
                None => cmd.env_remove(registry::LIBRARY_PROVIDER_ENV),
            };
        }
    }
    cmd.arg("--no-default-features");
    if !features.is_empty() {
        cmd.args(["--features", &features.join(",")]);
    }
}

/// The features of `inlinelab-artifact` that build peer `p`: its own
/// (`peer-<crate>`), then each feature of the peer's crate its build turns
/// on, as `<crate>/<feature>` (the crate is the artifact's dependency of
/// that name).
pub fn peer_features(p: &Peer) -> Vec<String> {
    std::iter::once(p.feature.to_string())
        .chain((p.crate_features.iter()).map(|f| format!("{}/{f}", p.crate_name)))
        .collect()
}

/// Makes `cmd` build a shim package's artifact: no variant of `variants`,
/// the crate under test (`under-test`), with `extra` features besides.
fn select_shim(cmd: &mut Command, extra: &[&str]) {
    cmd.env(variants::SELECT_ENV, "none");
    let features: Vec<&str> = ["under-test"]
        .into_iter()
        .chain(extra.iter().copied())
        .collect();
    cmd.args(["--no-default-features", "--features", &features.join(",")]);
}

/// The cargo profile every artifact is built with (`Cargo.toml`'s
/// `[profile.artifact]`), and so the directory its outputs go to under a
/// target directory.
pub const PROFILE: &str = "artifact";

/// A built artifact.
pub struct Files {
    /// The `.so`, copied out of cargo's output to a per-contender path (the
    /// next build overwrites cargo's own copy).
    pub so: PathBuf,
    /// The size of the `.rlib` of the crate that holds the cipher (a library
    /// peer's: the library's shared object), from the same build: `variants` compiled with only this variant, or the peer
    /// crate (read under the build lock: the next build rewrites the file).
    pub rlib_bytes: u64,
    pub seconds: f64,
    /// LLVM's decisions for calls to the functions of the crate the
    /// artifact holds ([`remarked_crate`]).
    pub inlining: Vec<Inlining>,
}

/// Builds `selection` (plus `extra` features) in `tree` and copies its `.so`
/// to `dest`. `rlib_crate` is the crate whose `.rlib` to report. The error is
/// the compiler's first error line.
pub fn build(
    tree: &Tree,
    selection: &Selection,
    extra: &[&str],
    rlib_crate: &str,
    dest: &Path,
) -> Result<Files, String> {
    let start = Instant::now();
    // Every variant is built to the same file names (what differs is the
    // environment, not the features), so a build and the reading of its
    // outputs must not interleave with another process's build.
    let target = tree
        .target_dir
        .clone()
        .unwrap_or_else(workspace::target_dir_default);
    let _lock = lock(&target)?;
    let mut cmd = workspace::cargo();
    cmd.current_dir(&tree.root).args([
        "build",
        "--profile",
        PROFILE,
        "--package",
        "inlinelab-artifact",
    ]);
    match tree.source {
        Source::Workspace => select(&mut cmd, selection, extra),
        Source::Shim { .. } => select_shim(&mut cmd, extra),
    }
    // rustc's diagnostics stay in the JSON, where the inline remarks are
    // read ([`remarks`]).
    cmd.arg("--message-format=json")
        .arg("--manifest-path")
        .arg(tree.root.join("Cargo.toml"));
    if let Some(dir) = &tree.target_dir {
        cmd.arg("--target-dir").arg(dir);
    }
    let flags = rustflags(tree);
    if !flags.is_empty() {
        // One argument each, whatever it holds (a path with a space):
        // cargo splits `CARGO_ENCODED_RUSTFLAGS` on 0x1f only, and reads it
        // before `RUSTFLAGS`.
        cmd.env_remove("RUSTFLAGS")
            .env("CARGO_ENCODED_RUSTFLAGS", flags.join("\x1f"));
    }
    cmd.envs(tree.flags.profile_env());
    let out = run_with_deadline(cmd)?;
    let (so, rlib) = outputs(&String::from_utf8_lossy(&out.stdout), rlib_crate);
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        let first = first_error(&String::from_utf8_lossy(&out.stdout))
            .or_else(|| {
                (stderr.lines())
                    .find(|l| l.starts_with("error"))
                    .map(str::to_string)
            })
            .unwrap_or_else(|| "cargo build failed".into());
        return Err(format!("build failed: {first}"));
    }
    let so = so.ok_or("cargo reported no .so for inlinelab-artifact")?;
    let inlining = remarks::parse(
        &String::from_utf8_lossy(&out.stdout),
        &remarked_crate(tree, selection),
    );
    // What holds the cipher's code: the crate's `.rlib`, or a library
    // peer's shared object (the whole library, as a process maps it).
    let holder = match selection {
        Selection::Peer(Peer {
            library: Some(library),
            name,
            ..
        }) => library::locate(library.name, name)?,
        _ => rlib.ok_or_else(|| format!("cargo reported no .rlib for {rlib_crate}"))?,
    };
    if let Some(dir) = dest.parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    std::fs::copy(&so, dest).map_err(|e| format!("copying {}: {e}", so.display()))?;
    let rlib_bytes = std::fs::metadata(&holder)
        .map_err(|e| format!("{}: {e}", holder.display()))?
        .len();
    Ok(Files {
        so: dest.to_path_buf(),
        rlib_bytes,
        seconds: start.elapsed().as_secs_f64(),
        inlining,
    })
}

/// The first error among the compiler's messages in cargo's JSON output
/// (`error: ...`, as rustc would print its first line).
fn first_error(stdout: &str) -> Option<String> {
    stdout
        .lines()
        .filter(|l| l.contains(r#""level":"error""#))
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .find_map(|v| {
            let m = v.get("message")?;
            let text = m.get("message")?.as_str()?;
            (m.get("level")?.as_str()? == "error").then(|| format!("error: {text}"))
        })
}

/// The compiler flags a build in `tree` gets: the tree's, and
/// [`remarks::FLAG`] (LLVM's inlining decisions printed, the code
/// unchanged), so that the remarks come from the build measured.
pub fn rustflags(tree: &Tree) -> Vec<String> {
    let mut flags = tree.all_rustflags();
    flags.push(remarks::FLAG.to_string());
    flags
}

/// The crate whose functions' inlining a build's remarks are read for:
/// a shim's crate under test, else the peer's crate or `variants` (whose
/// build holds the one variant selected).
fn remarked_crate(tree: &Tree, selection: &Selection) -> String {
    match (&tree.source, selection) {
        (Source::Shim { lib }, _) => lib.clone(),
        (Source::Workspace, Selection::Peer(p)) => p.crate_name.replace('-', "_"),
        (Source::Workspace, Selection::Variant { .. }) => "variants".into(),
    }
}

/// Runs the build `cmd` to its end or its deadline ([`deadline::build`]),
/// in a process group of its own, killed whole at the deadline (cargo's
/// compilers with it). Its output goes to anonymous files, not pipes, so
/// that nothing has to read them while it is waited for.
fn run_with_deadline(mut cmd: Command) -> Result<Output, String> {
    use std::io::{Read, Seek};
    let mut stdout = tempfile::tempfile().map_err(|e| format!("a scratch file: {e}"))?;
    let mut stderr = tempfile::tempfile().map_err(|e| format!("a scratch file: {e}"))?;
    let file = |f: &std::fs::File| f.try_clone().map_err(|e| format!("a scratch file: {e}"));
    cmd.stdout(file(&stdout)?).stderr(file(&stderr)?);
    let mut child =
        deadline::spawn(&mut cmd, Group::Own).map_err(|e| format!("running cargo: {e}"))?;
    let status = match deadline::wait(&mut child, deadline::build(), Group::Own) {
        Ok(Waited::Exited(status)) => status,
        Ok(Waited::Hung(limit)) => {
            return Err(format!(
                "build failed: cargo still running at its deadline of {:.0} s (killed)",
                limit.as_secs_f64()
            ));
        }
        Err(e) => return Err(format!("waiting for cargo: {e}")),
    };
    let read = |f: &mut std::fs::File| -> Result<Vec<u8>, String> {
        let mut bytes = Vec::new();
        f.rewind()
            .and_then(|()| f.read_to_end(&mut bytes))
            .map_err(|e| format!("reading cargo's output: {e}"))?;
        Ok(bytes)
    };
    Ok(Output {
        status,
        stdout: read(&mut stdout)?,
        stderr: read(&mut stderr)?,
    })
}

/// The lock that serializes artifact builds in `target` (held while it
/// lives), across processes.
pub(super) fn lock(target: &Path) -> Result<std::fs::File, String> {
    let dir = target.join("inlinelab");
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let path = dir.join("artifact-build.lock");
    let file = std::fs::File::create(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    file.lock()
        .map_err(|e| format!("locking {}: {e}", path.display()))?;
    Ok(file)
}

/// The artifact's `.so` and `rlib_crate`'s `.rlib`, from cargo's JSON lines.
fn outputs(stdout: &str, rlib_crate: &str) -> (Option<PathBuf>, Option<PathBuf>) {
    let mut so = None;
    let mut rlib = None;
    for line in stdout.lines() {
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
    (so, rlib)
}
