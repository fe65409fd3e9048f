//! The baseline file, `reports/baseline/CIPHER.json`: the report `cargo
//! xtask baseline` writes (the compare schema plus `instructions` on each
//! speed entry) and `gate` reads. A missing, truncated, foreign, other-schema
//! or other-toolchain file is a setup error (exit 2) that gives no verdict.

use crate::error::{Error, Result};
use crate::report::{Report, SCHEMA_VERSION};
use crate::workspace;
use std::path::{Path, PathBuf};

/// Where the committed baseline file of `cipher` is.
pub fn path(cipher: &str) -> PathBuf {
    workspace::root()
        .join("reports")
        .join("baseline")
        .join(format!("{cipher}.json"))
}

/// `path` shown in the gate's summary when no other file was given.
pub fn shown(cipher: &str) -> String {
    format!("reports/baseline/{cipher}.json")
}

/// Reads the baseline file of `cipher` at `path` and checks that the gate
/// can compare with it, here.
pub fn load(path: &Path, cipher: &str) -> Result<Report> {
    let hint = format!("create it with: cargo xtask baseline {cipher}");
    let bad = |cause: String| Error::usage(cause, hint.clone());
    let bytes =
        std::fs::read(path).map_err(|e| bad(format!("no baseline at {}: {e}", path.display())))?;
    let value: serde_json::Value = serde_json::from_slice(&bytes).map_err(|e| {
        bad(format!(
            "{} is not valid JSON (truncated?): {e}",
            path.display()
        ))
    })?;
    let version = value["schema_version"].as_u64();
    if version != Some(u64::from(SCHEMA_VERSION)) {
        return Err(bad(format!(
            "{} has schema version {}, but this gate reads version {SCHEMA_VERSION}",
            path.display(),
            version.map_or("none".into(), |v| v.to_string()),
        )));
    }
    let report: Report = serde_json::from_value(value)
        .map_err(|e| bad(format!("{} is not a baseline: {e}", path.display())))?;
    if report.cipher != cipher {
        return Err(bad(format!(
            "{} is a baseline for {}, not {cipher}",
            path.display(),
            report.cipher
        )));
    }
    let counted = report.variants.iter().flat_map(|e| &e.speed);
    if !counted.into_iter().any(|s| s.instructions.is_some()) {
        return Err(bad(format!(
            "{} has no instruction counts: a compare report, not a baseline",
            path.display()
        )));
    }
    check_toolchain(&report, cipher)?;
    Ok(report)
}

/// Sizes and instruction counts differ with the toolchain alone: a baseline
/// file from another gives no verdict.
fn check_toolchain(base: &Report, cipher: &str) -> Result<()> {
    let here = workspace::toolchain();
    if base.toolchain == here {
        return Ok(());
    }
    let was = &base.toolchain;
    Err(Error::usage(
        format!(
            "the baseline was measured with {} for {} ({}), this tree builds with {} for {} ({}): sizes and instruction counts would differ for that alone, so there is no verdict",
            was.rustc, was.target, was.profile, here.rustc, here.target, here.profile
        ),
        format!("rebuild the baseline: cargo xtask baseline {cipher}"),
    ))
}
