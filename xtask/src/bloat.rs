//! `cargo xtask bloat CIPHER [--variant V]`: cargo-bloat's per-function table
//! of each variant's artifact (the same build `compare` sizes). cargo-bloat
//! is taken from PATH, else from the target directory, else installed there
//! on first use with `cargo install --root`.

use crate::error::{Error, Result};
use crate::workspace;
use std::path::{Path, PathBuf};
use std::process::Command;

pub const USAGE: &str = "\
usage: cargo xtask bloat CIPHER [--variant V] [-n N]

  --variant V   one variant (default: every one)
  -n N          functions to show per variant (default 20, 0 for all)";

pub fn run(args: &[String]) -> Result<()> {
    let mut cipher = None;
    let mut variant = None;
    let mut lines = "20".to_string();
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--variant" => {
                variant = Some(
                    it.next()
                        .cloned()
                        .ok_or_else(|| Error::usage("--variant needs a value", USAGE))?,
                )
            }
            "-n" => {
                lines = it
                    .next()
                    .cloned()
                    .ok_or_else(|| Error::usage("-n needs a value", USAGE))?;
                if lines.parse::<usize>().is_err() {
                    return Err(Error::usage(
                        format!("-n takes a whole number, not `{lines}`"),
                        USAGE,
                    ));
                }
            }
            "-h" | "--help" => {
                println!("{USAGE}");
                return Ok(());
            }
            flag if flag.starts_with('-') => {
                return Err(Error::usage(format!("unknown option `{flag}`"), USAGE));
            }
            name if cipher.is_none() => cipher = Some(name.to_string()),
            extra => {
                return Err(Error::usage(
                    format!("unexpected argument `{extra}`"),
                    USAGE,
                ));
            }
        }
    }
    let meta = workspace::metadata()?;
    let ciphers = crate::compare::comparable(&meta.artifact_features);
    let names: Vec<&str> = ciphers.iter().map(|c| c.name).collect();
    let cipher = cipher.ok_or_else(|| Error::usage("no cipher given", USAGE))?;
    let entry = ciphers.iter().find(|c| c.name == cipher).ok_or_else(|| {
        Error::usage(
            format!(
                "unknown cipher `{cipher}`; expected one of: {}",
                names.join(", ")
            ),
            USAGE,
        )
    })?;
    let all: Vec<&str> = entry.variants.iter().map(|(v, _)| *v).collect();
    let chosen: Vec<&str> = match &variant {
        Some(v) if all.contains(&v.as_str()) => vec![v.as_str()],
        Some(v) => {
            return Err(Error::usage(
                format!(
                    "unknown variant `{v}` of {cipher}; expected one of: {}",
                    all.join(", ")
                ),
                USAGE,
            ));
        }
        None => all,
    };
    let bloat = find_or_install(&meta.target_dir)?;
    for v in chosen {
        println!("== {cipher}-{v}");
        let status = Command::new(&bloat)
            .current_dir(workspace::root())
            .args([
                "bloat",
                "--lib",
                "--package",
                "inlinelab-artifact",
                "--profile",
                "artifact",
                "--no-default-features",
                "--features",
            ])
            .arg(format!("{cipher}-{v}"))
            .args(["-n", &lines, "--target-dir"])
            // A directory of its own: cargo-bloat builds with other settings,
            // which would otherwise make compare rebuild.
            .arg(meta.target_dir.join("bloat"))
            .status()
            .map_err(|e| Error::failed(format!("running {}: {e}", bloat.display())))?;
        if !status.success() {
            return Err(Error::failed(format!(
                "cargo-bloat failed on {cipher}-{v} ({status})"
            )));
        }
    }
    Ok(())
}

/// cargo-bloat from PATH or the target directory, or installed there now.
fn find_or_install(target: &Path) -> Result<PathBuf> {
    let works = |p: &Path| {
        Command::new(p)
            .args(["bloat", "--version"])
            .output()
            .is_ok_and(|o| o.status.success())
    };
    let on_path = PathBuf::from("cargo-bloat");
    if works(&on_path) {
        return Ok(on_path);
    }
    let root = target.join("tools");
    let local = root.join("bin").join("cargo-bloat");
    if works(&local) {
        return Ok(local);
    }
    eprintln!(
        "cargo-bloat is not installed; installing it into {} (a minute or two, once) ...",
        root.display()
    );
    let status = workspace::cargo()
        .args(["install", "--locked", "--root"])
        .arg(&root)
        .arg("cargo-bloat")
        .status();
    match status {
        Ok(s) if s.success() && works(&local) => Ok(local),
        _ => Err(Error::failed(format!(
            "cargo-bloat is not installed and installing it failed; run `cargo install --root {} cargo-bloat` (or `cargo install cargo-bloat`) and try again",
            root.display()
        ))),
    }
}
