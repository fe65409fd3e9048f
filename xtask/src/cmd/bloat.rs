//! `cargo xtask bloat CIPHER [--variant V]`: cargo-bloat's per-function table
//! of each variant's artifact (the same build `compare` sizes). cargo-bloat
//! is taken from PATH, else from the target directory, else installed there
//! on first use with `cargo install --root`.

use crate::build::artifacts;
use crate::env::workspace;
use crate::error::{Error, Result};
use crate::select::ciphers;
use crate::select::contenders::Selection;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Functions shown per variant by default.
pub const LINES: &str = "20";

#[derive(clap::Args)]
pub struct Args {
    /// The cipher, as the kernel names it (e.g. cast6; a wrong name lists
    /// them all).
    cipher: String,

    /// Only this variant [default: every one].
    #[arg(long, value_name = "V")]
    variant: Option<String>,

    /// Functions to show per variant, 0 for all.
    #[arg(short = 'n', value_name = "N", default_value = LINES)]
    lines: usize,
}

pub fn run(args: Args) -> Result<()> {
    let meta = workspace::metadata()?;
    let entry = ciphers::named(&args.cipher, false, "bloat")?[0];
    let wanted = args.variant.map(|v| vec![v]);
    let chosen = ciphers::choose(entry, wanted.as_deref(), "see cargo xtask bloat --help")?;
    let bloat = find_or_install(&meta.target_dir)?;
    for variant in chosen {
        println!("== {}-{variant}", entry.name);
        let mut cmd = Command::new(&bloat);
        cmd.current_dir(workspace::root()).args([
            "bloat",
            "--lib",
            "--package",
            "inlinelab-artifact",
            "--profile",
            "artifact",
        ]);
        let selection = Selection::Variant {
            module: entry.module,
            variant,
        };
        artifacts::select(&mut cmd, &selection, &[]);
        let status = cmd
            .args(["-n", &args.lines.to_string(), "--target-dir"])
            // A directory of its own: cargo-bloat builds with other settings,
            // which would otherwise make compare rebuild.
            .arg(meta.target_dir.join("bloat"))
            .status()
            .map_err(|e| Error::failed(format!("running {}: {e}", bloat.display())))?;
        if !status.success() {
            return Err(Error::failed(format!(
                "cargo-bloat failed on {}-{variant} ({status})",
                entry.name
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
