//! What `--crate SPEC` names: `NAME@VERSION` from the registry, or a path
//! to a local crate (a directory holding `Cargo.toml`, or the manifest).
//! Read on the command line (clap's `value_parser`, [`Given::parse`] for
//! `compare`, [`Given::local`] for `gate`, which takes only a path), so a
//! malformed one is refused before any work, its usage error as it is
//! (`cli.rs` takes it back from clap's).

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

/// `--crate`'s value as the command line read it: the spec, and its text
/// as given (what the terminal and a command's record say).
#[derive(Clone, Debug)]
pub struct Given {
    pub spec: Spec,
    pub text: String,
}

impl Given {
    /// `compare --crate SPEC`: [`Spec::parse`] of `text`, kept with it.
    pub fn parse(text: &str) -> Result<Given> {
        Ok(Given {
            spec: Spec::parse(text)?,
            text: text.to_string(),
        })
    }

    /// `gate --crate PATH`: a local crate only, at `path` (a directory
    /// holding `Cargo.toml`, or the manifest), whatever the path looks like.
    pub fn local(path: PathBuf) -> Result<Given> {
        let text = path.display().to_string();
        let hint = "give the path of a crate in a git checkout, e.g. --crate ../block-ciphers/aes";
        Ok(Given {
            spec: Spec::Path(manifest(&path, &text, hint)?),
            text,
        })
    }
}

/// The hint every malformed spec gets.
const HINT: &str = "give NAME@VERSION from crates.io (e.g. --crate cast6@0.2.0) or the path of a crate (e.g. --crate ../block-ciphers/serpent)";

/// The manifest `path` names (a directory holding `Cargo.toml`, or the
/// manifest), made absolute; else a usage error about `--crate text`,
/// with `hint`.
fn manifest(path: &Path, text: &str, hint: &str) -> Result<PathBuf> {
    let manifest = if path.is_dir() {
        path.join("Cargo.toml")
    } else {
        path.to_path_buf()
    };
    if !manifest.is_file() || manifest.file_name() != Some("Cargo.toml".as_ref()) {
        return Err(Error::usage(
            format!("--crate {text}: no Cargo.toml there, so not a crate"),
            hint,
        ));
    }
    manifest
        .canonicalize()
        .map_err(|e| Error::usage(format!("--crate {text}: {e}"), hint))
}

impl Spec {
    /// Reads `--crate`'s value. A value holding a path separator, or naming
    /// an existing directory or manifest, is a path; else `NAME@VERSION`.
    pub fn parse(text: &str) -> Result<Spec> {
        let path = Path::new(text);
        if text.contains('/') || path.exists() {
            return Ok(Spec::Path(manifest(path, text, HINT)?));
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
        if !name_ok || version.is_empty() || version.len() > 64 {
            return Err(Error::usage(
                format!("--crate {text}: not NAME@VERSION (a crate name and an exact version)"),
                HINT,
            ));
        }
        let exact = exact_version(version).map_err(|why| {
            Error::usage(
                format!("--crate {text}: {why}"),
                format!("give one exact version, MAJOR.MINOR.PATCH (e.g. --crate {name}@0.2.0); `cargo search {name}` lists the newest"),
            )
        })?;
        Ok(Spec::Registry {
            name: name.into(),
            version: exact,
        })
    }

    /// The manifest of a local crate; `None` for the registry's.
    pub fn manifest(&self) -> Option<&Path> {
        match self {
            Spec::Registry { .. } => None,
            Spec::Path(manifest) => Some(manifest),
        }
    }

    /// The directory of a local crate; `None` for the registry's.
    pub fn local_dir(&self) -> Option<&Path> {
        match self {
            Spec::Registry { .. } => None,
            Spec::Path(manifest) => manifest.parent(),
        }
    }
}

/// A crate `--with` adds to every package the crate is built through (the
/// probe, each shim), so that a generic type's parameter can name it:
/// `--type 'Hmac<sha2::Sha256>' --with sha2@0.11.0`. Read on the command
/// line as `--crate` is: `NAME@VERSION` (one exact version), or a local
/// crate's path, its name read from its manifest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct With {
    /// The package's name: the dependency's key, and so the name the
    /// parameter's path starts with (`-` as `_`).
    pub name: String,
    pub spec: Spec,
    /// `--with`'s value as given (what a command's record says).
    pub text: String,
}

impl With {
    /// Reads `--with`'s value.
    pub fn parse(text: &str) -> Result<With> {
        let hint = "give NAME@VERSION of the crate a generic type's parameter names (e.g. --with sha2@0.11.0), or its path";
        let spec = Spec::parse(text).map_err(|e| match e {
            Error::Usage { cause, .. } => {
                Error::usage(cause.replacen("--crate", "--with", 1), hint)
            }
            other => other,
        })?;
        let name = match &spec {
            Spec::Registry { name, .. } => name.clone(),
            Spec::Path(manifest) => std::fs::read_to_string(manifest)
                .ok()
                .and_then(|t| t.parse::<toml::Table>().ok())
                .and_then(|t| t.get("package")?.get("name")?.as_str().map(str::to_string))
                .ok_or_else(|| {
                    Error::usage(
                        format!("--with {text}: its Cargo.toml names no package"),
                        hint,
                    )
                })?,
        };
        let bare = |n: &str| {
            !n.is_empty()
                && n.len() <= 64
                && (n.chars()).all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        };
        if !bare(&name) {
            return Err(Error::usage(
                format!("--with {text}: `{name}` is not a crate's name"),
                hint,
            ));
        }
        Ok(With {
            name,
            spec,
            text: text.to_string(),
        })
    }

    /// The dependency's value in a manifest: `"=VERSION"`, or `{ path =
    /// DIR }`.
    pub fn dependency(&self) -> toml::Value {
        match &self.spec {
            Spec::Registry { version, .. } => format!("={version}").into(),
            Spec::Path(manifest) => {
                let dir = manifest.parent().unwrap_or(manifest);
                let mut t = toml::Table::new();
                t.insert("path".into(), dir.display().to_string().into());
                t.into()
            }
        }
    }
}

/// A dependency `--also` names: its attributes edited too, in copies
/// patched into each shim (`[patch.crates-io]`). Read on the command line
/// as a crate's name; whether the crate depends on it is for its resolved
/// lock to say (`door/take.rs`), before any build.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Also {
    /// The package's name as the registry spells it (`universal-hash`).
    pub name: String,
}

impl Also {
    /// Reads one of `--also`'s names.
    pub fn parse(text: &str) -> Result<Also> {
        let ok = !text.is_empty()
            && text.len() <= 64
            && text.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
            && (text.chars()).all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
        if !ok {
            return Err(Error::usage(
                format!("--also {text}: not a crate's name"),
                "name dependencies of the crate by their names, without versions (e.g. --also aes,ghash)",
            ));
        }
        Ok(Also {
            name: text.to_string(),
        })
    }

    /// What its variants' names start with: the name in lowercase, `-`
    /// as `_` (`universal_hash` of `universal-hash`), so that a variant's
    /// name stays `[a-z0-9_]`.
    pub fn prefix(&self) -> String {
        self.name.to_ascii_lowercase().replace('-', "_")
    }
}

/// `version` as one exact version of the registry, or why it is not one.
/// A requirement (`0.2`, `^0.2`, `*`) is refused rather than resolved as
/// cargo would (to the newest 0.2.x): a report is of one version, named
/// in its folder, and would name another tomorrow. Build metadata
/// (`+build7`) is refused too: the registry ignores it, so two spellings
/// would name one package.
fn exact_version(version: &str) -> std::result::Result<String, String> {
    let parsed = semver::Version::parse(version).map_err(|_| {
        if semver::VersionReq::parse(version).is_ok() {
            format!("`{version}` is a version requirement, which cargo resolves to the newest version matching it; a report is of one exact version")
        } else {
            format!("`{version}` is not a version (MAJOR.MINOR.PATCH)")
        }
    })?;
    if !parsed.build.is_empty() {
        return Err(format!(
            "`{version}` carries build metadata (`+{}`), which the registry ignores: it names {}",
            parsed.build,
            semver::Version {
                build: semver::BuildMetadata::EMPTY,
                ..parsed
            }
        ));
    }
    Ok(parsed.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `--also` takes crates' names, never a version or a path; their
    /// variants' prefix is `[a-z0-9_]`.
    #[test]
    fn also_names_crates() {
        assert_eq!(Also::parse("aes").unwrap().prefix(), "aes");
        assert_eq!(
            Also::parse("Universal-Hash").unwrap().prefix(),
            "universal_hash"
        );
        for bad in ["", "aes@0.9.4", "../aes", "1aes", "a b", &"x".repeat(65)] {
            match Also::parse(bad) {
                Err(Error::Usage { cause, .. }) => assert!(cause.starts_with("--also "), "{cause}"),
                other => panic!("{bad}: {other:?}"),
            }
        }
    }

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
        assert_eq!(
            Spec::parse("aes@0.9.0-rc.1").unwrap(),
            Spec::Registry {
                name: "aes".into(),
                version: "0.9.0-rc.1".into()
            }
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

    /// `--with` names a registry crate's exact version, or a local crate
    /// whose name its manifest gives; each becomes the dependency a shim
    /// states. A requirement, or no crate, is a usage error about `--with`.
    #[test]
    fn with_names_a_crate_to_depend_on() {
        let sha2 = With::parse("sha2@0.11.0").unwrap();
        assert_eq!(
            (sha2.name.as_str(), sha2.text.as_str()),
            ("sha2", "sha2@0.11.0")
        );
        assert_eq!(sha2.dependency(), toml::Value::from("=0.11.0"));
        let dir = env!("CARGO_MANIFEST_DIR");
        let local = With::parse(dir).unwrap();
        assert_eq!(local.name, "xtask");
        let path = local.dependency();
        assert_eq!(
            path.get("path").and_then(|p| p.as_str()).map(Path::new),
            Some(Path::new(dir).canonicalize().unwrap().as_path())
        );
        for (bad, says) in [
            (
                "sha2@0.11",
                "--with sha2@0.11: `0.11` is a version requirement",
            ),
            ("sha2", "--with sha2: no version"),
            ("./nowhere", "--with ./nowhere: no Cargo.toml there"),
        ] {
            let Err(Error::Usage { cause, hint }) = With::parse(bad) else {
                panic!("{bad} was taken");
            };
            assert!(cause.starts_with(says), "{bad}: {cause}");
            assert!(hint.contains("--with sha2@0.11.0"), "{hint}");
        }
    }

    /// `gate --crate` takes only a path, kept as given: a registry spec is
    /// no crate there.
    #[test]
    fn the_gate_takes_only_a_path() {
        let dir = env!("CARGO_MANIFEST_DIR");
        let given = Given::local(PathBuf::from(dir)).unwrap();
        assert_eq!(
            given.spec,
            Spec::Path(Path::new(dir).join("Cargo.toml").canonicalize().unwrap())
        );
        assert_eq!(given.text, dir);
        let Err(Error::Usage { cause, hint }) = Given::local("cast6@0.2.0".into()) else {
            panic!("a registry spec was taken as a path");
        };
        assert_eq!(
            cause,
            "--crate cast6@0.2.0: no Cargo.toml there, so not a crate"
        );
        assert!(hint.contains("a crate in a git checkout"), "{hint}");
    }

    /// A requirement or build metadata is refused before cargo is asked,
    /// saying which it is and the exact form.
    #[test]
    fn only_an_exact_version_is_taken() {
        for (bad, why) in [
            ("cast6@0.2", "is a version requirement"),
            ("cast6@^0.2.0", "is a version requirement"),
            (
                "cast6@0.2.0+build7",
                "carries build metadata (`+build7`), which the registry ignores: it names 0.2.0",
            ),
            ("cast6@0.2.0.1", "is not a version"),
        ] {
            let Err(Error::Usage { cause, hint }) = Spec::parse(bad) else {
                panic!("{bad} was taken");
            };
            assert!(cause.contains(why), "{bad}: {cause}");
            assert!(hint.contains("cast6@0.2.0"), "{bad}: {hint}");
        }
    }
}
