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
///
/// A set is its members, sorted and each once: `x+y` and `y+x` are one set
/// (named twice, refused), `a-b` and `a_b` two. Its label is its members
/// in the characters of a variant's name (`with_simd_size_opt`); where two
/// sets' members would give one label (`a-b`, `a_b`), each of those labels
/// ends in a hash of its members' exact names, so no two sets share one.
pub fn sets(list: &[String], declared: &BTreeSet<String>, key: &str) -> Result<Vec<FeatureSet>> {
    let mut given: Vec<(String, Vec<String>)> = Vec::new();
    for item in list {
        let members: BTreeSet<String> = (item.split('+'))
            .map(|f| f.trim().to_string())
            .filter(|f| !f.is_empty())
            .collect();
        if members.is_empty() {
            return Err(Error::usage(
                format!("--features {item:?}: no feature named"),
                "give feature names, sets separated by `,`, features of one set joined by `+`",
            ));
        }
        if let Some(f) = members.iter().find(|f| !declared.contains(*f)) {
            let has = if declared.is_empty() {
                "it has no features".to_string()
            } else {
                let names: Vec<&str> = declared.iter().map(String::as_str).collect();
                format!("its features: {}", names.join(", "))
            };
            return Err(Error::usage(format!("{key} has no feature `{f}`"), has));
        }
        let features: Vec<String> = members.into_iter().collect();
        if let Some((first, _)) = given.iter().find(|(_, f)| *f == features) {
            return Err(Error::usage(
                format!(
                    "--features names the set {} twice (`{first}` and `{item}`)",
                    features.join("+")
                ),
                "give each feature set once (a set is its features, in any order)",
            ));
        }
        given.push((item.clone(), features));
    }
    let clean = |features: &[String]| -> String {
        (features.join("_").chars())
            .map(|c| {
                if c.is_ascii_alphanumeric() {
                    c.to_ascii_lowercase()
                } else {
                    '_'
                }
            })
            .collect()
    };
    let mut out = vec![FeatureSet::default_set()];
    for (_, features) in &given {
        let plain = clean(features);
        let shared = (given.iter()).any(|(_, other)| other != features && clean(other) == plain);
        let label = if shared {
            let hash = bench_harness::so::fnv1a(features.join("+").as_bytes());
            format!("with_{plain}_{:06x}", hash & 0xff_ffff)
        } else {
            format!("with_{plain}")
        };
        out.push(FeatureSet {
            label,
            features: features.clone(),
        });
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

    /// Features whose names differ only where a variant's name cannot
    /// (`a-b`, `a_b`) are two sets with two labels; one set's features in
    /// another order are one set.
    #[test]
    fn sets_are_their_members() {
        let declared: BTreeSet<String> = ["a-b", "a_b", "c"].map(String::from).into();
        let s = sets(
            &["a-b".into(), "a_b".into(), "c+a-b".into()],
            &declared,
            "k",
        )
        .unwrap();
        assert_eq!(s.len(), 4);
        assert_eq!(s[1].features, ["a-b"]);
        assert_eq!(s[2].features, ["a_b"]);
        assert_ne!(s[1].label, s[2].label);
        assert!(s[1].label.starts_with("with_a_b_"), "{}", s[1].label);
        assert_eq!(s[3].features, ["a-b", "c"]);
        assert_eq!(s[3].label, "with_a_b_c");
        let again = sets(&["a_b".into(), "a-b".into()], &declared, "k").unwrap();
        assert_eq!(
            again[2].label, s[1].label,
            "a label follows the set, not the order"
        );
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
        let twice = sets(
            &["simd+reset".into(), "reset+simd".into()],
            &declared(),
            "k",
        );
        assert!(
            format!("{twice:?}").contains("names the set reset+simd twice"),
            "{twice:?}"
        );
        let none = sets(&["x".into()], &BTreeSet::new(), "k").unwrap_err();
        assert!(
            format!("{none:?}").contains("it has no features"),
            "{none:?}"
        );
    }
}
