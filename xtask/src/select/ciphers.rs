//! Which ciphers the commands work on: every cipher of the registry (each
//! has peers to be measured against; the calibration entries are not
//! ciphers). A name (or `all`) resolved to them, the variants chosen, and
//! the default reference variant.

use crate::error::{Error, Result};
use bench_harness::registry::{self, CipherEntry};

/// The variant ratios are taken against unless `--reference` names
/// another: the cipher module's `REFERENCE`.
pub fn default_reference(entry: &CipherEntry) -> &'static str {
    entry.reference
}

/// Every variant of `entry`, in registry order.
pub fn variant_names(entry: &CipherEntry) -> Vec<&'static str> {
    entry.variants.iter().map(|(v, _)| *v).collect()
}

/// Every cipher compare and the gate measure, in registry order.
pub fn all() -> impl Iterator<Item = &'static CipherEntry> {
    registry::CIPHERS.iter()
}

/// The ciphers `name` names: one, or every one for `all` when `all` is
/// allowed. `command` is for the hint.
pub fn named(name: &str, all_allowed: bool, command: &str) -> Result<Vec<&'static CipherEntry>> {
    if all_allowed && name == "all" {
        return Ok(all().collect());
    }
    if let Some(c) = all().find(|c| c.name == name) {
        return Ok(vec![c]);
    }
    let mut names: Vec<&str> = all().map(|c| c.name).collect();
    let example = names.first().copied().unwrap_or("cast6");
    if all_allowed {
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
/// registry order. Each name may be a pattern, `*` standing for any run of
/// characters (`*_x4*`, `never*`); a name or pattern that matches no
/// variant is a usage error with `hint`.
pub fn choose(
    entry: &CipherEntry,
    wanted: Option<&[String]>,
    hint: &str,
) -> Result<Vec<&'static str>> {
    let all = variant_names(entry);
    let Some(wanted) = wanted else {
        return Ok(all);
    };
    if let Some(v) = wanted
        .iter()
        .find(|w| !all.iter().any(|v| matches(w.trim(), v)))
    {
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
        .filter(|v| wanted.iter().any(|w| matches(w.trim(), v)))
        .collect())
}

/// Whether `name` matches `pattern`, in which `*` stands for any run of
/// characters (none included) and everything else for itself.
pub fn matches(pattern: &str, name: &str) -> bool {
    match pattern.split_once('*') {
        None => pattern == name,
        Some((head, rest)) => {
            let Some(tail) = name.strip_prefix(head) else {
                return false;
            };
            (0..=tail.len())
                .filter(|&i| tail.is_char_boundary(i))
                .any(|i| matches(rest, &tail[i..]))
        }
    }
}

/// For `compare --help`: each cipher's default reference variant.
pub fn reference_help() -> String {
    let each: Vec<String> = all()
        .map(|c| format!("{} {}", c.name, default_reference(c)))
        .collect();
    format!("Default reference variants: {}.", each.join(", "))
}

#[cfg(test)]
mod tests {
    use super::matches;

    #[test]
    fn patterns() {
        assert!(matches("never", "never"));
        assert!(!matches("never", "never_x4"));
        assert!(matches("never*", "never_x4"));
        assert!(matches("*_x4*", "auto_x4_unrolled"));
        assert!(matches("*_x4*", "auto_x4"));
        assert!(!matches("*_x4*", "auto_x8"));
        assert!(matches("*", "anything"));
        assert!(matches("a*b*c", "abc"));
        assert!(!matches("a*b*c", "acb"));
    }
}
