//! `--features`: the crate's feature sets, an axis of its variants
//! (RustCrypto/hashes#440 answered blake2's size with a feature,
//! `size_opt`). The crate as published with its default features is the
//! first set and the reference; each set `--features` lists (features
//! joined by `+`: `--features size_opt,simd+size_opt` is two sets) adds
//! the crate's variants again, built with those features on, each named
//! `with_<set>_<variant>` (the set's crate as published, `with_<set>`).

use crate::error::{Error, Result};
use crate::intake::axes::PUBLISHED;
use std::collections::BTreeSet;

/// One feature set: the features turned on besides the default ones, and
/// the prefix of its variants' names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FeatureSet {
    /// `with_size_opt`; empty for the default set.
    pub label: String,
    /// The features given (the crate's default ones are on as well).
    pub features: Vec<String>,
}

impl FeatureSet {
    /// The default set: the crate as its users get it.
    pub fn default_set() -> FeatureSet {
        FeatureSet {
            label: String::new(),
            features: Vec::new(),
        }
    }

    /// The name, in this set, of the variant `variant` names in the
    /// default set: `with_size_opt_none`, `with_size_opt` for `published`.
    pub fn name(&self, variant: &str) -> String {
        match (self.label.as_str(), variant) {
            ("", v) => v.to_string(),
            (label, PUBLISHED) => label.to_string(),
            (label, v) => format!("{label}_{v}"),
        }
    }
}

/// The sets `list` (`--features`' values) names, after the default set,
/// each of features `declared` holds (the crate's `[features]` and
/// optional dependencies); `key` names the crate in an error. A feature the
/// crate does not have is a usage error that lists those it has.
pub fn sets(list: &[String], declared: &BTreeSet<String>, key: &str) -> Result<Vec<FeatureSet>> {
    let mut out = vec![FeatureSet::default_set()];
    for item in list {
        let features: Vec<String> = (item.split('+'))
            .map(|f| f.trim().to_string())
            .filter(|f| !f.is_empty())
            .collect();
        if features.is_empty() {
            return Err(Error::usage(
                format!("--features {item:?}: no feature named"),
                "give feature names, sets separated by `,`, features of one set joined by `+`",
            ));
        }
        if let Some(f) = features.iter().find(|f| !declared.contains(*f)) {
            let has = if declared.is_empty() {
                "it has no features".to_string()
            } else {
                let names: Vec<&str> = declared.iter().map(String::as_str).collect();
                format!("its features: {}", names.join(", "))
            };
            return Err(Error::usage(format!("{key} has no feature `{f}`"), has));
        }
        let clean: String = (features.join("_").chars())
            .map(|c| {
                if c.is_ascii_alphanumeric() {
                    c.to_ascii_lowercase()
                } else {
                    '_'
                }
            })
            .collect();
        let set = FeatureSet {
            label: format!("with_{clean}"),
            features,
        };
        if out.iter().any(|s| s.label == set.label) {
            return Err(Error::usage(
                format!("--features names the set `{item}` twice"),
                "give each feature set once",
            ));
        }
        out.push(set);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn declared() -> BTreeSet<String> {
        ["size_opt", "simd", "reset"].map(String::from).into()
    }

    #[test]
    fn sets_after_the_default_one_each_named() {
        let s = sets(
            &["size_opt".into(), "simd+size_opt".into()],
            &declared(),
            "k",
        )
        .unwrap();
        assert_eq!(s.len(), 3);
        assert_eq!(s[0], FeatureSet::default_set());
        assert_eq!(s[1].label, "with_size_opt");
        assert_eq!(s[2].features, ["simd", "size_opt"]);
        assert_eq!(s[0].name("none"), "none");
        assert_eq!(s[1].name(PUBLISHED), "with_size_opt");
        assert_eq!(s[1].name("drop_3"), "with_size_opt_drop_3");
        assert_eq!(s[2].name("none"), "with_simd_size_opt_none");
    }

    #[test]
    fn an_unknown_feature_names_those_there_are() {
        let e = sets(&["nope".into()], &declared(), "blake2 0.11.0").unwrap_err();
        let text = format!("{e:?}");
        assert!(
            text.contains("blake2 0.11.0 has no feature `nope`"),
            "{text}"
        );
        assert!(sets(&["+".into()], &declared(), "k").is_err());
        assert!(sets(&["simd".into(), "simd".into()], &declared(), "k").is_err());
        let none = sets(&["x".into()], &BTreeSet::new(), "k").unwrap_err();
        assert!(
            format!("{none:?}").contains("it has no features"),
            "{none:?}"
        );
    }
}
