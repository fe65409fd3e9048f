//! What `--crate SPEC` names: `NAME@VERSION` from the registry, or a path
//! to a local crate (a directory holding `Cargo.toml`, or the manifest).

use crate::error::{Error, Result};
use std::path::{Path, PathBuf};

/// A crate to take in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Spec {
    /// `cast6@0.2.0`: that exact version, fetched by cargo into its cache.
    Registry { name: String, version: String },
    /// A local crate: its manifest.
    Path(PathBuf),
}

/// The hint every malformed spec gets.
const HINT: &str = "give NAME@VERSION from crates.io (e.g. --crate cast6@0.2.0) or the path of a crate (e.g. --crate ../block-ciphers/serpent)";

impl Spec {
    /// Reads `--crate`'s value. A value holding a path separator, or naming
    /// an existing directory or manifest, is a path; else `NAME@VERSION`.
    pub fn parse(text: &str) -> Result<Spec> {
        let path = Path::new(text);
        if text.contains('/') || path.exists() {
            let manifest = if path.is_dir() {
                path.join("Cargo.toml")
            } else {
                path.to_path_buf()
            };
            if !manifest.is_file() || manifest.file_name() != Some("Cargo.toml".as_ref()) {
                return Err(Error::usage(
                    format!("--crate {text}: no Cargo.toml there, so not a crate"),
                    HINT,
                ));
            }
            let manifest = manifest
                .canonicalize()
                .map_err(|e| Error::usage(format!("--crate {text}: {e}"), HINT))?;
            return Ok(Spec::Path(manifest));
        }
        let Some((name, version)) = text.split_once('@') else {
            return Err(Error::usage(
                format!("--crate {text}: no version (NAME@VERSION) and no crate at that path"),
                HINT,
            ));
        };
        let name_ok = !name.is_empty()
            && name.len() <= 64
            && name.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
        let version_ok = !version.is_empty()
            && version.len() <= 64
            && version
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '+'))
            && version.chars().next().is_some_and(|c| c.is_ascii_digit());
        if !name_ok || !version_ok {
            return Err(Error::usage(
                format!("--crate {text}: not NAME@VERSION (a crate name and an exact version)"),
                HINT,
            ));
        }
        Ok(Spec::Registry {
            name: name.into(),
            version: version.into(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registry_specs_and_paths() {
        assert_eq!(
            Spec::parse("cast6@0.2.0").unwrap(),
            Spec::Registry {
                name: "cast6".into(),
                version: "0.2.0".into()
            }
        );
        assert!(Spec::parse("md-5@0.11.0").is_ok());
        let dir = env!("CARGO_MANIFEST_DIR");
        assert_eq!(
            Spec::parse(dir).unwrap(),
            Spec::Path(Path::new(dir).join("Cargo.toml").canonicalize().unwrap())
        );
        for bad in [
            "cast6",
            "cast6@",
            "@0.2.0",
            "cast6@x",
            "ca st6@1.0.0",
            "./nowhere",
            "../x/y",
        ] {
            let e = Spec::parse(bad).unwrap_err();
            assert!(matches!(e, Error::Usage { .. }), "{bad}: {e:?}");
        }
    }
}
