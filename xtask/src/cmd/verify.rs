//! `cargo xtask verify [CIPHER|all]`: the artifacts this tree builds are
//! sound and are the ones the committed files describe. For each cipher it
//! builds (or takes, as the gate does, from a previous build of the same
//! inputs) every variant's and peer's artifact and checks:
//!
//! - **the same function**: through the C ABI each variant computes what its
//!   statically linked variant computes, in every mode the registry lists
//!   for the cipher, at every key size of its template, both directions
//!   (`bench_harness::sampling::check_against`), and a checksum streamed
//!   too (`check_hash`);
//! - **no source location**: no variant embeds the path of a `.rs` file (a
//!   panic location), so that its bytes depend on its code and not on the
//!   line numbers around it;
//! - **freshness**: every committed file that records artifact fingerprints
//!   (`reports/CIPHER.json`, `reports/baseline/CIPHER.json`) records the
//!   fingerprints, sizes and hot-path code these artifacts have
//!   ([`differences`]); an entry that records no artifact or fingerprint is
//!   stale, never current. A change that alters no artifact needs no new
//!   measurement; one that alters some is told which files it made stale
//!   and the command that refreshes each.
//!
//! This is where CI checks what needs every artifact (`.ci/run` runs it
//! after the gate, which built them), so that `cargo test` need not build
//! them. Exit 0 when all holds, 1 when anything does not.

use crate::build::{self, Reuse};
use crate::env::tree::Tree;
use crate::env::workdir::WorkDir;
use crate::env::workspace;
use crate::error::{Error, Result};
use crate::report::Report;
use crate::report::baseline_file;
use crate::select::artifact::Artifact;
use crate::select::ciphers;
use crate::select::contenders::{self, Contender, Kind, Origin, State};
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
            // A library peer left out here (its library missing) is said
            // so, not a problem of the tree's.
            if c.library().is_some() && matches!(c.state, State::Unavailable { .. }) {
                eprintln!("    {}: not checked here: {}", c.label, state_why(c));
            } else {
                problems.push(format!("{}: not built: {}", c.label, state_why(c)));
            }
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
    let facts = built_facts(&contenders);
    for (file, refresh) in committed_files(entry) {
        problems.extend(stale(&file, entry.name, &refresh, &facts));
    }
    for line in other_machines(entry.name, &facts) {
        eprintln!("    {line}");
    }
    if let Some(line) = flag_grid(entry.name) {
        eprintln!("    {line}");
    }
    Ok(problems)
}

/// The flag grid's report of `cipher` (`reports/flags/CIPHER.json`), if
/// there is one: its artifacts are built under flags this command does not
/// build with, so they are not rebuilt here; a line says whether it was
/// measured from the inputs this tree has (the same sources, lock file,
/// toolchain and profile make the same artifacts under the same flags) or
/// from others, with the command that measures it again. Never a
/// problem, never skipped in silence.
fn flag_grid(cipher: &str) -> Option<String> {
    let file = workspace::root().join(format!("reports/flags/{cipher}.json"));
    let bytes = std::fs::read(&file).ok()?;
    let shown = format!("reports/flags/{cipher}.json");
    let report = match crate::report::reader::parse_report(&bytes, cipher) {
        Ok(r) => r,
        Err(
            crate::report::reader::NotRead::Foreign(why)
            | crate::report::reader::NotRead::Refused(why),
        ) => {
            return Some(format!("{shown} (a flag grid): not read: {why}"));
        }
    };
    let here = workspace::inputs().hash;
    Some(if report.inputs.hash == here {
        format!(
            "{shown} (a flag grid, {} flag sets, not rebuilt by verify): measured from the inputs this tree has (commit {})",
            report.flag_sets.len(),
            report.commit
        )
    } else {
        format!(
            "{shown} (a flag grid, {} flag sets, not rebuilt by verify): measured from other inputs (commit {}); `{}` measures it again",
            report.flag_sets.len(),
            report.commit,
            report.generated_by
        )
    })
}

/// Each other machine's report of `cipher` (`reports/machines/LABEL/`),
/// which only that machine can refresh: a line saying which of its
/// variants this tree still builds (current) and which it measured on an
/// older tree; never a problem, never skipped in silence.
fn other_machines(cipher: &str, built: &[Now<'_>]) -> Vec<String> {
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
            let differs = differences(&report, built);
            let total = report.entries().count();
            if differs.is_empty() {
                format!("{shown} (another machine's): current, all {total} artifacts")
            } else {
                // The variants by name only (what differs in each is the
                // same story of an older tree), the first few.
                const SHOWN: usize = 5;
                let names: Vec<&str> = (differs.iter())
                    .map(|d| d.split(" (").next().unwrap_or(d))
                    .collect();
                let more = names.len().saturating_sub(SHOWN);
                format!(
                    "{shown} (another machine's, refreshed only there): {} of {total} current; measured on an older tree (commit {}): {}{}",
                    total.saturating_sub(differs.len()),
                    report.commit,
                    names[..names.len().min(SHOWN)].join(", "),
                    if more > 0 { format!(" and {more} more") } else { String::new() }
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
    let mut loaded = match bench_harness::so::SoCipher::load(so) {
        Ok(loaded) => loaded,
        Err(EngineError::Unavailable(_)) => return Ok(()),
        Err(e) => return Err(format!("not loaded: {e}")),
    };
    let want = format!("{}::{variant}", entry.module);
    if loaded.name() != want {
        return Err(format!("holds `{}`, not `{want}`", loaded.name()));
    }
    let make = entry
        .variants
        .iter()
        .find(|(v, _)| *v == variant)
        .and_then(|(_, make)| *make)
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
    // A checksum streamed through the ABI (init, updates, final) computes
    // what its statically linked hash does.
    let hash = (bench_harness::registry::HASHES.iter())
        .filter(|h| h.module == entry.module)
        .flat_map(|h| h.variants)
        .find(|(v, _)| *v == variant);
    if let Some((_, make)) = hash {
        bench_harness::sampling::check_hash(&mut loaded, &mut *make())
            .map_err(|e| format!("differs from its statically linked hash, streamed: {e}"))?;
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

/// What makes the committed `file` stale against `built` (what this tree
/// built, by name): one line naming the artifacts that differ from what it
/// records ([`differences`]) and the command `refresh`, or none when it is
/// current. A file the reader refuses is a line too.
fn stale(file: &Path, cipher: &str, refresh: &str, built: &[Now<'_>]) -> Option<String> {
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
    let differs = differences(&report, built);
    if differs.is_empty() {
        eprintln!("    {shown}: current (every artifact has the fingerprint and sizes it records)");
        return None;
    }
    let total = report.entries().count();
    Some(format!(
        "{shown} is stale: {} of {total} artifacts differ from what it records (or record nothing to match) ({}): run `{refresh}`",
        differs.len(),
        differs.join(", ")
    ))
}

/// What this tree built of one contender, as [`differences`] compares it
/// with a report.
pub struct Now<'a> {
    pub name: &'a str,
    /// `None` when it was not built.
    pub artifact: Option<&'a Artifact>,
    /// A library peer's: its sizes hold this machine's library (another
    /// version elsewhere), and a machine without the library leaves it out.
    pub library: bool,
}

#[cfg(test)]
impl<'a> Now<'a> {
    /// One of ours, or a crate peer's.
    pub fn of(name: &'a str, artifact: Option<&'a Artifact>) -> Now<'a> {
        Now {
            name,
            artifact,
            library: false,
        }
    }
}

/// What this tree built of the contenders, by name, as [`differences`]
/// compares it with a report.
fn built_facts(built: &[Contender]) -> Vec<Now<'_>> {
    (built.iter())
        .map(|c| Now {
            name: c.name.as_str(),
            artifact: c.built().map(|b| &b.artifact),
            library: c.library().is_some(),
        })
        .collect()
}

/// What makes `report` stale against what this tree builds (`built`, by
/// name): one item per variant or peer whose recorded artifact facts
/// differ from the built one's ([`artifact_differences`], named in
/// brackets), that records no artifact or no fingerprint (nothing to match
/// is never current), or that this tree no longer builds; and one per
/// contender this tree builds that the report lacks. Empty when current. A
/// library peer is compared by what its own file decides (not the sizes of
/// this machine's library), and one left out here (no library) or left
/// out unbuilt by the report's run (unavailable, no artifact) is not
/// compared.
pub fn differences(report: &Report, built: &[Now<'_>]) -> Vec<String> {
    let mut differs = Vec::new();
    for e in report.entries() {
        let library = built.iter().any(|n| n.name == e.name && n.library);
        let Some(recorded) = e.artifact.as_ref() else {
            // A library peer the run left out unbuilt (none of its cases
            // offered, or no library there) recorded nothing of this tree.
            if !(library && e.status == crate::report::Status::Unavailable) {
                differs.push(format!("{} (no artifact recorded)", e.name));
            }
            continue;
        };
        if recorded.fingerprint.is_empty() {
            differs.push(format!("{} (no fingerprint recorded)", e.name));
            continue;
        }
        let found = built.iter().find(|n| n.name == e.name);
        if found.is_some_and(|n| n.library && n.artifact.is_none()) {
            continue;
        }
        match found.and_then(|n| n.artifact.map(|a| (a, n.library))) {
            Some((now, library)) => {
                let mut facts = artifact_differences(recorded, now);
                if library {
                    facts.retain(|f| !LIBRARY_FACTS.contains(f));
                }
                if !facts.is_empty() {
                    differs.push(format!("{} ({})", e.name, facts.join(", ")));
                }
            }
            None => differs.push(format!("{} (no longer built)", e.name)),
        }
    }
    for n in built
        .iter()
        .filter(|n| !(n.library && n.artifact.is_none()))
    {
        if !report.entries().any(|e| e.name == n.name) {
            differs.push(format!("{} (not in it)", n.name));
        }
    }
    differs
}

/// The facts of a library peer's artifact that hold its library's sections
/// (`build/size.rs`) and the library's functions its hot path and key
/// schedule ran under callgrind (`count/reached.rs`, which a build does
/// not measure): the machine's library decides them, not the file.
const LIBRARY_FACTS: [&str; 6] = [
    "text_bytes",
    "rodata_bytes",
    "data_bytes",
    "footprint_bytes",
    "hot_path_bytes",
    "key_schedule_bytes",
];

/// The facts of an artifact that its bytes decide, where `recorded` and
/// `built` differ, by their names in the JSON: the fingerprint, the sizes
/// of the file and its sections, the footprint, the hot path's and key
/// schedule's bytes, the hot path's code and functions, the cipher's
/// functions and the rounds found out of line. Not where the file was, nor
/// the `.rlib`'s size (which the build's paths move).
pub fn artifact_differences(recorded: &Artifact, built: &Artifact) -> Vec<&'static str> {
    let (r, b) = (recorded, built);
    [
        ("fingerprint", r.fingerprint == b.fingerprint),
        ("so_bytes", r.so_bytes == b.so_bytes),
        ("text_bytes", r.text_bytes == b.text_bytes),
        ("rodata_bytes", r.rodata_bytes == b.rodata_bytes),
        ("data_bytes", r.data_bytes == b.data_bytes),
        ("footprint_bytes", r.footprint_bytes == b.footprint_bytes),
        ("hot_path_bytes", r.hot_path_bytes == b.hot_path_bytes),
        (
            "key_schedule_bytes",
            r.key_schedule_bytes == b.key_schedule_bytes,
        ),
        ("hot_path_code", r.hot_path_code == b.hot_path_code),
        ("hot_path", r.hot_path == b.hot_path),
        ("functions", r.functions == b.functions),
        (
            "rounds_out_of_line",
            r.rounds_out_of_line == b.rounds_out_of_line,
        ),
    ]
    .into_iter()
    .filter(|(_, same)| !same)
    .map(|(fact, _)| fact)
    .collect()
}

#[cfg(test)]
mod tests {
    use super::{Now, differences, embedded_sources, stale};
    use crate::env::workspace;
    use crate::report::Report;
    use crate::report::baseline_file;
    use serde_json::{Value, json};

    /// The committed files of crc32c that verify checks.
    const FILES: [&str; 2] = ["reports/crc32c.json", "reports/baseline/crc32c.json"];

    fn committed(relative: &str) -> Value {
        let bytes = std::fs::read(workspace::root().join(relative)).unwrap();
        serde_json::from_slice(&bytes).unwrap()
    }

    fn read(v: &Value) -> Report {
        baseline_file::parse(&serde_json::to_vec(v).unwrap(), "test", "crc32c").unwrap()
    }

    /// What a tree builds when it builds what `r` records.
    fn facts(r: &Report) -> Vec<Now<'_>> {
        r.entries()
            .map(|e| Now::of(e.name.as_str(), e.artifact.as_ref()))
            .collect()
    }

    /// What verify says of the committed file `relative` changed to `v`,
    /// against a tree that builds what the file records unchanged.
    fn verdict_of(relative: &str, v: &Value) -> Option<String> {
        let built = read(&committed(relative));
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("crc32c.json");
        std::fs::write(&file, serde_json::to_vec(v).unwrap()).unwrap();
        stale(
            &file,
            "crc32c",
            "cargo xtask compare crc32c",
            &facts(&built),
        )
    }

    /// A file that records what the tree builds is current.
    #[test]
    fn what_is_built_as_recorded_is_current() {
        for relative in FILES {
            assert_eq!(
                verdict_of(relative, &committed(relative)),
                None,
                "{relative}"
            );
        }
    }

    /// Case 4: `"artifact": null` (or an empty fingerprint) on one entry or
    /// on every entry of the report or the baseline is stale, never
    /// current: refused by the reader, and, past the reader, a difference.
    #[test]
    fn a_missing_artifact_or_fingerprint_is_stale() {
        for relative in FILES {
            let good = committed(relative);
            let n = good["variants"].as_array().unwrap().len();
            for (what, value, entries) in [
                ("artifact", Value::Null, 1),
                ("artifact", Value::Null, n),
                ("fingerprint", json!(""), 1),
                ("fingerprint", json!(""), n),
            ] {
                let mut v = good.clone();
                for e in v["variants"]
                    .as_array_mut()
                    .unwrap()
                    .iter_mut()
                    .take(entries)
                {
                    match what {
                        "artifact" => e["artifact"] = value.clone(),
                        _ => e["artifact"]["fingerprint"] = value.clone(),
                    }
                }
                let line = verdict_of(relative, &v)
                    .unwrap_or_else(|| panic!("{relative}: {what} on {entries}: current"));
                assert!(
                    line.contains("not read") && line.contains("run `"),
                    "{line}"
                );
            }
            let built = read(&good);
            let mut r = built.clone();
            r.variants[0].artifact = None;
            r.variants[1].artifact.as_mut().unwrap().fingerprint.clear();
            let names = [&r.variants[0].name, &r.variants[1].name];
            assert_eq!(
                differences(&r, &facts(&built)),
                [
                    format!("{} (no artifact recorded)", names[0]),
                    format!("{} (no fingerprint recorded)", names[1])
                ]
            );
        }
    }

    /// Case 4: hand-edited sizes and hot-path code, with the fingerprint
    /// left as it was, are stale, each fact named.
    #[test]
    fn edited_sizes_and_code_are_stale() {
        for relative in FILES {
            type Edit = fn(&mut Value);
            let edits: [(&str, Edit); 4] = [
                ("text_bytes", |a| {
                    a["text_bytes"] = json!(a["text_bytes"].as_u64().unwrap() + 1)
                }),
                ("hot_path_code", |a| {
                    a["hot_path_code"] = json!("0000000000000000")
                }),
                ("hot_path_bytes", |a| a["hot_path_bytes"] = json!(1)),
                ("footprint_bytes", |a| a["footprint_bytes"] = json!(1)),
            ];
            for (fact, edit) in edits {
                let mut v = committed(relative);
                edit(&mut v["variants"][2]["artifact"]);
                let name = v["variants"][2]["name"].as_str().unwrap().to_string();
                let line = verdict_of(relative, &v)
                    .unwrap_or_else(|| panic!("{relative}: {fact} edited: current"));
                assert!(line.contains(&format!("{name} ({fact})")), "{line}");
                assert!(line.contains("1 of "), "{line}");
            }
        }
    }

    /// A library peer is compared by what its own file decides: another
    /// machine's library (other section sizes) is current, a machine
    /// without it (not built) is too, a wrapper of other bytes is not.
    #[test]
    fn a_library_peer_is_compared_by_its_own_file() {
        let r = read(&committed(FILES[0]));
        let name = r.variants[1].name.clone();
        let mut other_library = r.variants[1].artifact.clone().unwrap();
        other_library.text_bytes += 4096;
        other_library.footprint_bytes += 4096;
        let mut other_wrapper = other_library.clone();
        other_wrapper.fingerprint = "0".repeat(16);
        let with = |artifact, library| -> Vec<String> {
            let built: Vec<Now> = (r.entries())
                .map(|e| match e.name == name {
                    true => Now {
                        name: e.name.as_str(),
                        artifact,
                        library,
                    },
                    false => Now::of(e.name.as_str(), e.artifact.as_ref()),
                })
                .collect();
            differences(&r, &built)
        };
        assert!(with(Some(&other_library), true).is_empty());
        assert!(with(None, true).is_empty());
        assert_eq!(
            with(Some(&other_library), false),
            [format!("{name} (text_bytes, footprint_bytes)")]
        );
        assert_eq!(
            with(Some(&other_wrapper), true),
            [format!("{name} (fingerprint)")]
        );
        assert_eq!(with(None, false), [format!("{name} (no longer built)")]);
        // One the run left out unbuilt (it offered none of the run's
        // cases) records no artifact: current when this tree builds it as
        // a library peer, stale otherwise.
        let built = r.variants[1].artifact.clone().unwrap();
        let mut left_out = r.clone();
        left_out.variants[1].artifact = None;
        left_out.variants[1].status = crate::report::Status::Unavailable;
        let now = |library| -> Vec<String> {
            let built: Vec<Now> = (left_out.entries())
                .map(|e| match e.name == name {
                    true => Now {
                        name: e.name.as_str(),
                        artifact: Some(&built),
                        library,
                    },
                    false => Now::of(e.name.as_str(), e.artifact.as_ref()),
                })
                .collect();
            differences(&left_out, &built)
        };
        assert!(now(true).is_empty());
        assert_eq!(now(false), [format!("{name} (no artifact recorded)")]);
    }

    /// An artifact this tree builds that the file lacks, and one it no
    /// longer builds, are differences too.
    #[test]
    fn built_and_recorded_entries_match_by_name() {
        let r = read(&committed(FILES[0]));
        let mut built = facts(&r);
        let gone = built.remove(0).name;
        built.push(Now::of("new_variant", r.variants[1].artifact.as_ref()));
        assert_eq!(
            differences(&r, &built),
            [
                format!("{gone} (no longer built)"),
                "new_variant (not in it)".to_string()
            ]
        );
    }

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
