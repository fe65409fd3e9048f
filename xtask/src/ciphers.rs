//! Which ciphers the commands work on: those of the registry that have a
//! peer and whose every variant the artifact crate can build. A name (or
//! `all`) resolved to them, the variants chosen, and the default reference
//! variant.

use crate::artifacts::{self, Selection};
use crate::error::{Error, Result};
use bench_harness::registry::{self, CipherEntry};

/// The variant ratios are taken against unless `--reference` names
/// another. (The only reader of the registry's field for it.)
pub fn default_reference(entry: &CipherEntry) -> &'static str {
    entry.baseline
}

/// Every variant of `entry`, in registry order.
pub fn variant_names(entry: &CipherEntry) -> Vec<&'static str> {
    entry.variants.iter().map(|(v, _)| *v).collect()
}

/// The registry's ciphers that have peers (what compare measures against).
fn with_peers() -> impl Iterator<Item = &'static CipherEntry> {
    registry::CIPHERS.iter().filter(|c| !c.peers.is_empty())
}

/// The ciphers whose every variant has an artifact feature among `features`.
pub fn comparable(features: &[String]) -> Vec<&'static CipherEntry> {
    with_peers()
        .filter(|c| {
            variant_names(c).into_iter().all(|variant| {
                artifacts::buildable(
                    features,
                    &Selection::Variant {
                        cipher: c.name,
                        variant,
                    },
                )
            })
        })
        .collect()
}

/// The ciphers `name` names among `features`'s comparable ones: one, or
/// every one for `all` when `all` is allowed. `command` is for the hint.
pub fn named(
    name: &str,
    features: &[String],
    all: bool,
    command: &str,
) -> Result<Vec<&'static CipherEntry>> {
    let ciphers = comparable(features);
    if all && name == "all" {
        return Ok(ciphers);
    }
    if let Some(c) = ciphers.iter().find(|c| c.name == name) {
        return Ok(vec![*c]);
    }
    let mut names: Vec<&str> = ciphers.iter().map(|c| c.name).collect();
    let example = names.first().copied().unwrap_or("cast6");
    if all {
        names.push("all");
    }
    Err(Error::usage(
        format!(
            "unknown cipher `{name}`; expected one of: {}",
            names.join(", ")
        ),
        format!("e.g. cargo xtask {command} {example}"),
    ))
}

/// The variants of `entry` that `wanted` names (every one for `None`), in
/// registry order; an unknown name is a usage error with `hint`.
pub fn choose(
    entry: &CipherEntry,
    wanted: Option<&[String]>,
    hint: &str,
) -> Result<Vec<&'static str>> {
    let all = variant_names(entry);
    let Some(wanted) = wanted else {
        return Ok(all);
    };
    if let Some(v) = wanted.iter().find(|v| !all.contains(&v.trim())) {
        return Err(Error::usage(
            format!(
                "unknown variant `{}` of {}; expected one of: {}",
                v.trim(),
                entry.name,
                all.join(", ")
            ),
            hint,
        ));
    }
    Ok(all
        .into_iter()
        .filter(|v| wanted.iter().any(|w| w.trim() == *v))
        .collect())
}

/// For `compare --help`: each cipher's default reference variant.
pub fn reference_help() -> String {
    let each: Vec<String> = with_peers()
        .map(|c| format!("{} {}", c.name, default_reference(c)))
        .collect();
    format!("Default reference variants: {}.", each.join(", "))
}
