//! `cargo xtask verify [CIPHER|all]`: the artifacts this tree builds are
//! sound and are the ones the committed files describe. For each cipher it
//! builds (or takes, as the gate does, from a previous build of the same
//! inputs) every variant's and peer's artifact and checks:
//!
//! - **the same function**: through the C ABI each variant computes what its
//!   statically linked variant computes, in every mode the registry lists
//!   for the cipher, at every key size of its template, both directions
//!   (`bench_harness::sampling::check_against`);
//! - **no source location**: no variant embeds the path of a `.rs` file (a
//!   panic location), so that its bytes depend on its code and not on the
//!   line numbers around it;
//! - **freshness**: every committed file that records artifact fingerprints
//!   (`reports/CIPHER.json`, `reports/baseline/CIPHER.json`) records the
//!   fingerprints these artifacts have. A change that alters no artifact
//!   needs no new measurement; one that alters some is told which files it
//!   made stale and the command that refreshes each.
//!
//! This is where CI checks what needs every artifact (`.ci/run` runs it
//! after the gate, which built them), so that `cargo test` need not build
//! them. Exit 0 when all holds, 1 when anything does not.

use crate::build::{self, Reuse};
use crate::env::tree::Tree;
use crate::env::workdir::WorkDir;
use crate::env::workspace;
use crate::error::{Error, Result};
use crate::gate::baseline_file;
use crate::report::Report;
use crate::select::ciphers;
use crate::select::contenders::{self, Contender, Kind, Origin};
use bench_harness::engine::EngineError;
use bench_harness::registry::CipherEntry;
use std::path::{Path, PathBuf};

#[derive(clap::Args)]
pub struct Args {
    /// The cipher, as the kernel names it (e.g. cast6), or `all`.
    #[arg(value_name = "CIPHER|all", default_value = "all")]
    cipher: String,

    /// Build every artifact again instead of taking one a previous run built
    /// from the same inputs.
    #[arg(long)]
    rebuild: bool,
}

pub fn run(args: Args) -> Result<()> {
    let ciphers = ciphers::named(&args.cipher, true, "verify")?;
    let meta = workspace::metadata()?;
    let reuse = if args.rebuild {
        Reuse::Never
    } else {
        Reuse::Previous
    };
    let mut problems = Vec::new();
    for entry in ciphers {
        problems.extend(verify_one(entry, &meta.target_dir, reuse)?);
    }
    if problems.is_empty() {
        println!(
            "verified: every artifact computes what its source does, embeds no source path, and is the one the committed reports and baselines record"
        );
        return Ok(());
    }
    for p in &problems {
        println!("{p}");
    }
    Err(Error::failed(format!(
        "{} problem(s); see the lines above",
        problems.len()
    )))
}

/// Builds `entry`'s artifacts and checks them; each problem is a line.
fn verify_one(entry: &'static CipherEntry, target: &Path, reuse: Reuse) -> Result<Vec<String>> {
    let work = WorkDir::lock(target, entry.name)?;
    let variants = ciphers::variant_names(entry);
    let mut contenders =
        contenders::contenders(entry, &variants, true, &Tree::here(), Origin::Current);
    let steps = contenders.len() + 1;
    build::build_and_size_reusing(entry, &mut contenders, &work.path, steps, reuse);
    eprintln!(
        "[{steps}/{steps}] {}: checking {} artifacts against their sources and the committed files",
        entry.name,
        contenders.len()
    );
    let mut problems = Vec::new();
    for c in &contenders {
        let Some(built) = c.live() else {
            problems.push(format!("{}: not built: {}", c.label, state_why(c)));
            continue;
        };
        if let Kind::Variant(variant) = c.kind {
            let bytes = std::fs::read(&built.so)
                .map_err(|e| Error::failed(format!("{}: {e}", built.so.display())))?;
            let paths = embedded_sources(&bytes);
            if !paths.is_empty() {
                problems.push(format!(
                    "{}: embeds source paths (panic locations): {}; its bytes move with line numbers",
                    c.label,
                    paths.join(", ")
                ));
            }
            if let Err(e) = same_function(entry, variant, &built.so) {
                problems.push(format!("{}: {e}", c.label));
            }
        }
    }
    for (file, refresh) in committed_files(entry) {
        problems.extend(stale(&file, entry.name, &refresh, &contenders));
    }
    for line in other_machines(entry.name, &contenders) {
        eprintln!("    {line}");
    }
    Ok(problems)
}

/// Each other machine's report of `cipher` (`reports/machines/LABEL/`),
/// which only that machine can refresh: a line saying which of its
/// variants this tree still builds (current) and which it measured on an
/// older tree; never a problem, never skipped in silence.
fn other_machines(cipher: &str, built: &[Contender]) -> Vec<String> {
    let dir = workspace::root().join("reports/machines");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = (entries
        .flatten()
        .map(|e| e.path().join(format!("{cipher}.json"))))
    .filter(|p| p.is_file())
    .collect();
    files.sort();
    files
        .iter()
        .map(|file| {
            let shown = file
                .strip_prefix(workspace::root())
                .unwrap_or(file)
                .display()
                .to_string();
            let report = std::fs::read(file)
                .map_err(|e| e.to_string())
                .and_then(|b| {
                    baseline_file::parse(&b, &shown, cipher).map_err(|e| match e {
                        Error::Usage { cause, .. } | Error::Failed(cause) => cause,
                    })
                });
            let report = match report {
                Ok(r) => r,
                Err(e) => return format!("{shown} (another machine's): not read: {e}"),
            };
            let differs = fingerprint_differences(&report, built);
            let total = report.entries().count();
            if differs.is_empty() {
                format!("{shown} (another machine's): current, all {total} artifacts")
            } else {
                format!(
                    "{shown} (another machine's, refreshed only there): {} of {total} current; measured on an older tree (commit {}): {}",
                    total.saturating_sub(differs.len()),
                    report.commit,
                    differs.join(", ")
                )
            }
        })
        .collect()
}

fn state_why(c: &Contender) -> String {
    match &c.state {
        contenders::State::Failed { why, .. } | contenders::State::Unavailable { why, .. } => {
            why.clone()
        }
        other => format!("{other:?}"),
    }
}

/// Through the C ABI, the artifact at `so` computes what the statically
/// linked `variant` of `entry` computes, in every mode and key size the
/// registry lists. An artifact this CPU cannot run is not a difference.
fn same_function(entry: &CipherEntry, variant: &str, so: &Path) -> std::result::Result<(), String> {
    use bench_harness::engine::Engine;
    let mut loaded = match bench_harness::so::SoCipher::load(so) {
        Ok(loaded) => loaded,
        Err(EngineError::Unavailable(_)) => return Ok(()),
        Err(e) => return Err(format!("not loaded: {e}")),
    };
    let want = format!("{}::{variant}", entry.module);
    if loaded.name() != want {
        return Err(format!("holds `{}`, not `{want}`", loaded.name()));
    }
    let (_, make) = entry
        .variants
        .iter()
        .find(|(v, _)| *v == variant)
        .ok_or_else(|| format!("`{variant}` is not in the registry"))?;
    for &(mode, keys) in entry.modes {
        bench_harness::sampling::check_against(&mut loaded, &mut *make(), keys, &[mode]).map_err(
            |e| {
                format!(
                    "differs from its statically linked variant in {}: {e}",
                    mode.name()
                )
            },
        )?;
    }
    Ok(())
}

/// The paths of `.rs` files embedded in `bytes` (printable runs of path
/// characters ending in `.rs` and holding a `/`): what a panic location
/// records.
pub fn embedded_sources(bytes: &[u8]) -> Vec<String> {
    let path_char = |b: u8| b.is_ascii_alphanumeric() || b"/._-".contains(&b);
    let mut found: Vec<String> = Vec::new();
    let mut i = 0;
    while let Some(at) = bytes[i..].windows(3).position(|w| w == b".rs") {
        let end = i + at + 3;
        i = end;
        if bytes.get(end).is_some_and(|&b| b.is_ascii_alphanumeric()) {
            continue;
        }
        let start = bytes[..end - 3]
            .iter()
            .rposition(|&b| !path_char(b))
            .map_or(0, |p| p + 1);
        let path = String::from_utf8_lossy(&bytes[start..end]).into_owned();
        if path.contains('/') && !found.contains(&path) {
            found.push(path);
        }
    }
    found
}

/// The committed files of `entry` that record fingerprints, each with the
/// command that measures it again.
fn committed_files(entry: &CipherEntry) -> Vec<(PathBuf, String)> {
    vec![
        (
            workspace::root()
                .join("reports")
                .join(format!("{}.json", entry.name)),
            format!("cargo xtask compare {}", entry.name),
        ),
        (
            baseline_file::path(entry.name),
            format!("cargo xtask baseline {}", entry.name),
        ),
    ]
}

/// What makes the committed `file` stale against `built`: one line naming
/// the artifacts whose fingerprints differ and the command `refresh`, or
/// none when it is current.
fn stale(file: &Path, cipher: &str, refresh: &str, built: &[Contender]) -> Option<String> {
    let shown = file
        .strip_prefix(workspace::root())
        .unwrap_or(file)
        .display()
        .to_string();
    // The gate's reader: the schema and the cipher checked, an old schema
    // upgraded.
    let report: Report = match std::fs::read(file)
        .map_err(|e| e.to_string())
        .and_then(|b| {
            baseline_file::parse(&b, &shown, cipher).map_err(|e| match e {
                Error::Usage { cause, .. } | Error::Failed(cause) => cause,
            })
        }) {
        Ok(r) => r,
        Err(e) => return Some(format!("{shown}: not read ({e}): run `{refresh}`")),
    };
    let differs = fingerprint_differences(&report, built);
    if differs.is_empty() {
        eprintln!("    {shown}: current (every artifact has the fingerprint it records)");
        return None;
    }
    let total = report.entries().count();
    Some(format!(
        "{shown} is stale: {} of {total} artifacts differ from what it records ({}): run `{refresh}`",
        differs.len(),
        differs.join(", ")
    ))
}

/// The names of the report's variants and peers whose artifact this tree
/// builds with other bytes (or no longer builds), and of what this tree
/// builds that the report lacks.
pub fn fingerprint_differences(report: &Report, built: &[Contender]) -> Vec<String> {
    let mut differs = Vec::new();
    for e in report.entries() {
        let Some(recorded) = e.artifact.as_ref().map(|a| &a.fingerprint) else {
            // Not built when it was measured: nothing recorded to match.
            continue;
        };
        let now = built
            .iter()
            .find(|c| c.name == e.name)
            .and_then(|c| c.built())
            .map(|b| &b.artifact.fingerprint);
        match now {
            Some(f) if f == recorded => {}
            Some(_) => differs.push(e.name.clone()),
            None => differs.push(format!("{} (no longer built)", e.name)),
        }
    }
    for c in built {
        if !report.entries().any(|e| e.name == c.name) {
            differs.push(format!("{} (not in it)", c.name));
        }
    }
    differs
}

#[cfg(test)]
mod tests {
    use super::embedded_sources;

    #[test]
    fn finds_panic_locations() {
        let so = b"\x00\x01variants/src/rfc2612.rs\x00abc.rsx/y\x00/root/.cargo/registry/src/x-0.2/src/lib.rs\x7f.rs\x00";
        assert_eq!(
            embedded_sources(so),
            [
                "variants/src/rfc2612.rs",
                "/root/.cargo/registry/src/x-0.2/src/lib.rs"
            ]
        );
        assert!(embedded_sources(b"no paths here, .rs alone, hrs.rs").is_empty());
    }
}
