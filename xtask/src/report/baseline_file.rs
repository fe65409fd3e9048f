//! The baseline file, `reports/baseline/CIPHER.json`: the report `cargo
//! xtask baseline` writes (the compare schema plus `instructions` on a speed
//! entry per counted case, key setup included) and `gate` reads, from the
//! base revision's commit and from the working tree. A missing, truncated,
//! foreign, other-schema or other-toolchain file is a setup error (exit 2)
//! that gives no verdict, and so is one that cannot be trusted: a variant
//! `failed` or unavailable in it, without sizes or speed entries, lacking a
//! counted case, or with a count or size of 0 (or below). A variant
//! valgrind cannot run (`uncounted`: VAES) is held to its sizes alone.

use crate::env::workspace;
use crate::error::{Error, Result};
use crate::report::check;
use crate::report::{self, Report, SCHEMA_VERSION, Status};
use crate::select::cases;
use bench_harness::registry::CipherEntry;
use std::path::PathBuf;

/// Where the baseline files are, relative to the repository root.
const DIR: &str = "reports/baseline";

/// Where the baseline file of `cipher` is, relative to the repository root.
pub fn relative(cipher: &str) -> String {
    format!("{DIR}/{cipher}.json")
}

/// The working tree's directory of baseline files.
pub fn dir() -> PathBuf {
    workspace::root().join(DIR)
}

/// Where the working tree's baseline file of `cipher` is.
pub fn path(cipher: &str) -> PathBuf {
    workspace::root().join(relative(cipher))
}

/// The hint of a baseline that is not there or not usable.
fn rebuild(cipher: &str) -> String {
    format!("create it with: cargo xtask baseline {cipher}")
}

/// Reads the baseline of `cipher` from `bytes` (`what` names where they
/// came from): JSON of a schema this xtask reads (an older one upgraded),
/// for this cipher, whose values a run can produce (the report reader's
/// [`check::check`], after the upgrade). What the gate needs of it
/// besides: see [`check`].
pub fn parse(bytes: &[u8], what: &str, cipher: &str) -> Result<Report> {
    let bad = |cause: String| Error::usage(cause, rebuild(cipher));
    let value: serde_json::Value = serde_json::from_slice(bytes)
        .map_err(|e| bad(format!("{what} is not valid JSON (truncated?): {e}")))?;
    let version = value["schema_version"].as_u64();
    if !version.is_some_and(report::readable) {
        return Err(bad(format!(
            "{what} has schema version {}, but this gate reads versions {} to {SCHEMA_VERSION}",
            version.map_or("none".into(), |v| v.to_string()),
            report::OLDEST_READ
        )));
    }
    let report = serde_json::from_value::<Report>(value)
        .map_err(|e| bad(format!("{what} is not a baseline: {e}")))?
        .upgraded();
    if report.cipher != cipher {
        return Err(bad(format!(
            "{what} is a baseline for {}, not {cipher}",
            report.cipher
        )));
    }
    check::check(&report).map_err(|why| bad(format!("{what} cannot be trusted: {why}")))?;
    Ok(report)
}

/// Whether two baseline files hold the same values once read (an older
/// schema upgraded): a baseline only written again in this schema is not a
/// change. `false` when either is missing or unreadable.
pub fn same_values(a: Option<&[u8]>, b: Option<&[u8]>, cipher: &str) -> bool {
    let read = |bytes: &[u8]| parse(bytes, "", cipher).ok();
    match (a.and_then(read), b.and_then(read)) {
        (Some(a), Some(b)) => a == b,
        _ => false,
    }
}

/// Checks that the gate can judge `entry`'s variants by `report` (read from
/// `what`), here: every variant measured, with sizes and a count above 0 in
/// every case the gate counts, and the toolchain this tree builds with.
pub fn check(report: &Report, entry: &CipherEntry, what: &str) -> Result<()> {
    let cipher = entry.name;
    let untrusted = |cause: String| {
        Error::usage(
            format!("{what} cannot be trusted: {cause}"),
            format!(
                "rebuild it: cargo xtask baseline {cipher} (and judge by it with --accept-baseline-change)"
            ),
        )
    };
    if report.variants.is_empty() {
        return Err(untrusted("it lists no variant".into()));
    }
    let counted = report.variants.iter().flat_map(|e| &e.speed);
    if !counted.into_iter().any(|s| s.instructions.is_some()) {
        return Err(Error::usage(
            format!("{what} has no instruction counts: a compare report, not a baseline"),
            rebuild(cipher),
        ));
    }
    let keys: Vec<_> = cases::gate_cases(entry)
        .iter()
        .map(|c| crate::report::Speed::uncounted(entry, c))
        .collect();
    for (i, e) in report.variants.iter().enumerate() {
        let name = &e.name;
        if report.variants[..i].iter().any(|o| o.name == e.name) {
            return Err(untrusted(format!("variant `{name}` is listed twice")));
        }
        if e.status != Status::Measured {
            return Err(untrusted(format!(
                "variant `{name}` is `{}` in it ({})",
                e.status,
                e.reason.as_deref().unwrap_or("no reason given")
            )));
        }
        let Some(a) = &e.artifact else {
            return Err(untrusted(format!("variant `{name}` has no sizes")));
        };
        if a.text_bytes == 0 || a.so_bytes == 0 {
            return Err(untrusted(format!(
                "variant `{name}` has a size of 0 bytes (.text {}, .so {})",
                a.text_bytes, a.so_bytes
            )));
        }
        // Sized, and not countable under valgrind (VAES): its sizes are
        // what the gate holds it to, and the wall clock when timed.
        if e.uncounted.is_some() {
            continue;
        }
        if e.speed.is_empty() {
            return Err(untrusted(format!("variant `{name}` has no speed entries")));
        }
        let lacking: Vec<String> = keys
            .iter()
            .filter(|k| {
                e.speed_at(&k.alg, &k.dir, k.key_bits, k.block_bytes)
                    .and_then(|s| s.instructions)
                    .is_none()
            })
            .map(|k| k.case_name())
            .collect();
        if let Some(first) = lacking.first() {
            return Err(untrusted(format!(
                "variant `{name}` lacks {} of the {} cases the gate counts (first: {first})",
                lacking.len(),
                keys.len()
            )));
        }
        for s in &e.speed {
            if let Some(n) = s.instructions
                && !(n.is_finite() && n > 0.0)
            {
                return Err(untrusted(format!(
                    "variant `{name}` counts {n} instructions per operation in {}",
                    s.case_name()
                )));
            }
        }
    }
    check_toolchain(report, cipher)
}

/// Sizes and instruction counts differ with the toolchain alone: a baseline
/// file from another gives no verdict.
fn check_toolchain(base: &Report, cipher: &str) -> Result<()> {
    let here = crate::env::profile::toolchain();
    if base.toolchain == here {
        return Ok(());
    }
    let was = &base.toolchain;
    Err(Error::usage(
        format!(
            "the baseline was measured with {} for {} ({}), this tree builds with {} for {} ({}): sizes and instruction counts would differ for that alone, so there is no verdict",
            was.rustc, was.target, was.profile, here.rustc, here.target, here.profile
        ),
        format!(
            "rebuild the baseline: cargo xtask baseline {cipher} (with the toolchain rust-toolchain.toml pins), and judge by it with --accept-baseline-change"
        ),
    ))
}

#[cfg(test)]
mod tests {
    /// The same report in schema 2 (a sample an object) and in this schema
    /// (the samples' columns) holds the same values, the older one's
    /// figures computed again from its samples; another value is a change.
    #[test]
    fn a_baseline_rewritten_in_this_schema_is_not_changed() {
        // As a run writes them: the ticks rounded.
        let mut r = crate::report::fixture::report();
        r.schema_version = 2;
        let r = r.upgraded();
        let new = crate::report::json::to_json(&r).into_bytes();
        let mut old = serde_json::to_value(&r).unwrap();
        old["schema_version"] = 2.into();
        let rows_of = |s: &mut serde_json::Value| {
            let process: Vec<u64> = (s["samples"]["process_runs"].as_array().unwrap().iter())
                .flat_map(|run| {
                    let (p, n) = (run[0].as_u64().unwrap(), run[1].as_u64().unwrap());
                    std::iter::repeat_n(p, n as usize)
                })
                .collect();
            let rows: Vec<serde_json::Value> = (s["samples"]["ticks_per_op"].as_array())
                .unwrap()
                .iter()
                .enumerate()
                .map(|(i, t)| {
                    let quiet = s["samples"]["quiet"]
                        .as_array()
                        .unwrap()
                        .contains(&i.into());
                    serde_json::json!({"ticks_per_op": t, "quiet": quiet, "process": process[i]})
                })
                .collect();
            s["samples"] = rows.into();
        };
        let mut speeds = 0;
        for e in ["/variants", "/peers"]
            .iter()
            .flat_map(|k| {
                old.pointer(k)
                    .unwrap()
                    .as_array()
                    .unwrap()
                    .iter()
                    .enumerate()
                    .map(move |(i, _)| format!("{k}/{i}"))
            })
            .collect::<Vec<_>>()
            .into_iter()
            .chain(["/control".to_string()])
        {
            for s in old.pointer_mut(&e).unwrap()["speed"]
                .as_array_mut()
                .unwrap()
            {
                rows_of(s);
                speeds += 1;
            }
        }
        assert!(speeds > 2, "{speeds}");
        let old_bytes = serde_json::to_vec(&old).unwrap();
        assert_ne!(old_bytes, new);
        assert!(super::same_values(Some(&old_bytes), Some(&new), "tiny"));
        old["date"] = "1999-01-01".into();
        let other = serde_json::to_vec(&old).unwrap();
        assert!(!super::same_values(Some(&other), Some(&new), "tiny"));
        assert!(!super::same_values(None, Some(&new), "tiny"));
    }
    /// A variant valgrind could not count (`uncounted`, VAES) is trusted on
    /// its sizes alone; the same variant without the reason, lacking its
    /// counts, is not.
    #[test]
    fn a_variant_valgrind_cannot_run_needs_only_its_sizes() {
        let entry = bench_harness::registry::cipher("crc32c").unwrap();
        let path = crate::env::workspace::root().join(super::relative("crc32c"));
        let bytes = std::fs::read(&path).unwrap();
        let mut report = super::parse(&bytes, "b.json", "crc32c").unwrap();
        report.variants[0].speed.clear();
        let lacking = super::check(&report, entry, "b.json");
        assert!(
            matches!(&lacking, Err(crate::error::Error::Usage { cause, .. }) if cause.contains("no speed entries")),
            "{lacking:?}"
        );
        report.variants[0].uncounted = Some("under valgrind, no VAES".into());
        super::check(&report, entry, "b.json").unwrap();
        report.variants[0].artifact = None;
        assert!(super::check(&report, entry, "b.json").is_err());
    }
}
