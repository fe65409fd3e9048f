//! The profile every artifact is built with, as it really is: the
//! `artifact` profile of the workspace's `Cargo.toml`, with what the
//! environment adds to every cargo build this tool runs (`RUSTFLAGS`,
//! `CARGO_ENCODED_RUSTFLAGS`, `CARGO_BUILD_RUSTFLAGS`, and
//! `CARGO_PROFILE_ARTIFACT_*` over the profile's own keys). The toolchain
//! a report records holds it in words ([`toolchain`]): the gate judges only
//! by a baseline of the same words, and a baseline that names this
//! machine's CPU (`-Ctarget-cpu=native`) is refused ([`names_this_cpu`]).
//! A flag grid's own flags (`compare --opt-level`, [`super::flags`]) are
//! recorded per flag set, on top of this.

use crate::env::workspace::{self, Toolchain};
use std::process::Command;

/// The profile's name in `Cargo.toml`, and so cargo's environment prefix
/// for its keys.
const PROFILE: &str = "artifact";

/// The environment variables that add flags to every rustc cargo runs.
const RUSTFLAGS_VARS: [&str; 3] = [
    "CARGO_ENCODED_RUSTFLAGS",
    "RUSTFLAGS",
    "CARGO_BUILD_RUSTFLAGS",
];

/// The toolchain that builds the artifacts, with the profile in words.
pub fn toolchain() -> Toolchain {
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let out = Command::new(rustc)
        .current_dir(workspace::root())
        .arg("-vV")
        .output()
        .ok();
    let text = out
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default();
    let field = |name: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(name))
            .unwrap_or("unknown")
            .trim()
            .to_string()
    };
    Toolchain {
        rustc: text.lines().next().unwrap_or("rustc (unknown)").to_string(),
        target: field("host:"),
        profile: describe(&manifest_profile(), &environment()),
    }
}

/// The `[profile.artifact]` table of the workspace's `Cargo.toml`, its
/// keys in file order, each value as TOML writes it (`"abort"` without
/// its quotes); empty when it cannot be read.
fn manifest_profile() -> Vec<(String, String)> {
    let text = std::fs::read_to_string(workspace::root().join("Cargo.toml")).unwrap_or_default();
    let Ok(doc) = text.parse::<toml::Table>() else {
        return Vec::new();
    };
    let table = (doc.get("profile").and_then(|p| p.get(PROFILE))).and_then(|t| t.as_table());
    (table.into_iter().flatten())
        .map(|(k, v)| {
            let v = match v {
                toml::Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            (k.clone(), v)
        })
        .collect()
}

/// What the environment of this process adds: `(variable, value)` for
/// each flag variable set and not empty, and each profile key it sets.
fn environment() -> Vec<(String, String)> {
    let prefix = format!("CARGO_PROFILE_{}_", PROFILE.to_uppercase());
    let mut out: Vec<(String, String)> = RUSTFLAGS_VARS
        .iter()
        .filter_map(|v| Some((v.to_string(), std::env::var(v).ok()?)))
        .filter(|(_, value)| !value.trim().is_empty())
        .map(|(k, v)| (k, v.replace('\x1f', " ")))
        .collect();
    let mut keys: Vec<(String, String)> = std::env::vars()
        .filter(|(k, _)| k.starts_with(&prefix))
        .collect();
    keys.sort();
    out.extend(keys);
    out
}

/// The profile in words: the manifest's keys that change something from
/// the profile it inherits, those the environment sets in their place,
/// and the flags it adds. Today's profile reads
/// `artifact (release + panic=abort, codegen-units=1, no LTO, no_std
/// cdylib)`: the words the committed baselines hold.
fn describe(manifest: &[(String, String)], env: &[(String, String)]) -> String {
    let prefix = format!("CARGO_PROFILE_{}_", PROFILE.to_uppercase());
    let mut keys: Vec<(String, String)> = manifest.to_vec();
    for (var, value) in env {
        let Some(key) = var.strip_prefix(&prefix) else {
            continue;
        };
        let key = key.to_lowercase().replace('_', "-");
        match keys.iter_mut().find(|(k, _)| *k == key) {
            Some(slot) => slot.1 = value.clone(),
            None => keys.push((key, value.clone())),
        }
    }
    // What the profile changes from the one it inherits: a key set to
    // that one's own value (cargo's documented defaults) changes nothing.
    let inherits = (keys.iter())
        .find(|(k, _)| k == "inherits")
        .map_or("dev".to_string(), |(_, v)| v.clone());
    let inherited = defaults(&inherits);
    keys.retain(|(k, v)| {
        matches!(k.as_str(), "inherits" | "panic" | "lto")
            || !inherited.iter().any(|(dk, dv)| dk == k && dv == v)
    });
    let get = |name: &str| {
        keys.iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    };
    let mut parts = vec![format!(
        "{} + panic={}",
        get("inherits").unwrap_or("dev"),
        get("panic").unwrap_or("unwind")
    )];
    for (k, v) in keys
        .iter()
        .filter(|(k, _)| !matches!(k.as_str(), "inherits" | "panic" | "lto"))
    {
        parts.push(format!("{k}={v}"));
    }
    parts.push(match get("lto") {
        None | Some("false") => "no LTO".to_string(),
        Some(v) => format!("lto={v}"),
    });
    parts.push("no_std cdylib".to_string());
    let mut out = format!("{PROFILE} ({})", parts.join(", "));
    for (var, value) in env
        .iter()
        .filter(|(v, _)| RUSTFLAGS_VARS.contains(&v.as_str()))
    {
        out.push_str(&format!(" with {var}={}", value.trim()));
    }
    out
}

/// The keys of cargo's built-in profile `name` whose defaults a profile
/// may restate (cargo's documentation, "Profiles"): `release`'s, or
/// `dev`'s for any other.
fn defaults(name: &str) -> &'static [(&'static str, &'static str)] {
    match name {
        "release" => &[
            ("opt-level", "3"),
            ("debug", "false"),
            ("debug-assertions", "false"),
            ("overflow-checks", "false"),
            ("incremental", "false"),
            ("codegen-units", "16"),
            ("rpath", "false"),
        ],
        _ => &[
            ("opt-level", "0"),
            ("debug", "true"),
            ("debug-assertions", "true"),
            ("overflow-checks", "true"),
            ("incremental", "true"),
            ("codegen-units", "256"),
            ("rpath", "false"),
        ],
    }
}

/// Whether a profile in words builds for the CPU it was built on
/// (`-Ctarget-cpu=native`, or `target-cpu=native` in any spelling): what a
/// committed baseline must not, since another machine's `native` is
/// another CPU.
pub fn names_this_cpu(profile: &str) -> bool {
    profile.contains("target-cpu=native")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(v: &[(&str, &str)]) -> Vec<(String, String)> {
        v.iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    }

    /// The workspace's profile, with nothing in the environment, is the
    /// words the committed baselines were measured with.
    #[test]
    fn todays_profile_reads_as_the_baselines_record_it() {
        assert_eq!(
            describe(&manifest_profile(), &[]),
            "artifact (release + panic=abort, codegen-units=1, no LTO, no_std cdylib)"
        );
    }

    /// What the environment sets is in the words: a profile key in place
    /// of the manifest's, flags after; `native` is named as such.
    #[test]
    fn the_environment_is_part_of_the_profile() {
        let manifest = pairs(&[
            ("inherits", "release"),
            ("panic", "abort"),
            ("codegen-units", "1"),
            ("debug", "false"),
        ]);
        let env = pairs(&[
            ("RUSTFLAGS", "-Ctarget-cpu=native"),
            ("CARGO_PROFILE_ARTIFACT_OPT_LEVEL", "s"),
            ("CARGO_PROFILE_ARTIFACT_LTO", "fat"),
        ]);
        let words = describe(&manifest, &env);
        assert_eq!(
            words,
            "artifact (release + panic=abort, codegen-units=1, opt-level=s, lto=fat, no_std cdylib) with RUSTFLAGS=-Ctarget-cpu=native"
        );
        assert!(names_this_cpu(&words));
        assert!(!names_this_cpu(&describe(&manifest, &[])));
    }
}
