//! The downstream shim a crate is built through: a package of its own (the
//! artifact crate's source, `variants/artifact/src/lib.rs`, as its library)
//! that depends on the crate as `under_test` and names the type in
//! `select.rs`, so that the cipher is called across a crate boundary, as
//! its users call it (cross-crate inlining is what block-ciphers#598 lost).
//! A variant's shim depends on its edited copy; the registry peer's on the
//! crate as cargo unpacked it.

use crate::env::workspace;
use crate::error::{Error, Result};
use crate::intake::spec::With;
use bench_harness::crates::Kind;
use std::path::{Path, PathBuf};

/// What the shim depends on.
pub enum Dependency<'a> {
    /// A copy of the package, at this directory.
    Copy(&'a Path),
    /// The registry's package itself: `NAME = "=VERSION"`.
    Registry { version: &'a str },
}

/// A dependency of the crate built from a copy instead of the registry's
/// package (`--also`): `[patch.crates-io] NAME = { path = DIR }`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Patched {
    /// The package's name as the registry spells it (`universal-hash`).
    pub name: String,
    /// The copy's directory.
    pub dir: PathBuf,
}

/// One shim package to write.
pub struct Shim<'a> {
    /// The package's name (`cast6`).
    pub package: &'a str,
    pub dependency: Dependency<'a>,
    /// The type, a path inside the crate (`Cast6`, `soft::Aes128`).
    pub ty: &'a str,
    pub kind: Kind,
    /// What the artifact says it holds (`inlinelab_name`).
    pub holds: &'a str,
    /// Features of the crate to enable.
    pub features: &'a [String],
    /// The crates `--with` adds, which a generic type's parameter names.
    pub with: &'a [With],
    /// The lock file to start from (the workspace's, merged with the one
    /// that resolved the crate).
    pub lock: &'a str,
    /// The crate's dependencies built from copies (`--also`), each
    /// patched in for every package of the build that depends on it.
    pub patches: &'a [Patched],
}

/// Writes the shim into `dir` (created, its files replaced).
pub fn write(shim: &Shim, dir: &Path) -> Result<()> {
    let fail = |e: &dyn std::fmt::Display| Error::failed(format!("{}: {e}", dir.display()));
    std::fs::create_dir_all(dir).map_err(|e| fail(&e))?;
    std::fs::write(dir.join("Cargo.toml"), manifest(shim)?).map_err(|e| fail(&e))?;
    std::fs::write(
        dir.join("select.rs"),
        select(shim.ty, shim.kind, shim.holds)?,
    )
    .map_err(|e| fail(&e))?;
    std::fs::write(dir.join("Cargo.lock"), shim.lock).map_err(|e| fail(&e))?;
    Ok(())
}

/// The bytes an artifact's name takes (`NAME_BYTES` of `select.rs`), its
/// NUL included: fixed, so that artifacts named apart lay out alike.
pub const NAME_BYTES: usize = 64;

/// `select.rs`: the type (wrapped as its kind is) and the name. Both are
/// checked before they are written into Rust source: a type path of
/// identifiers, with generic parameters that are such paths
/// ([`type_name`]); a name of printable ASCII without quotes or
/// backslashes, shorter than [`NAME_BYTES`], padded with NULs to it.
pub fn select(ty: &str, kind: Kind, holds: &str) -> Result<String> {
    let ty = type_name(ty)?;
    let printable = holds
        .bytes()
        .all(|b| b.is_ascii_graphic() && b != b'"' && b != b'\\');
    if !printable || holds.len() >= NAME_BYTES {
        return Err(Error::failed(format!(
            "{holds:?}: not a name an artifact may hold (printable ASCII, under {NAME_BYTES} bytes)"
        )));
    }
    let padding = "\\0".repeat(NAME_BYTES - holds.len());
    let wrapper = match kind {
        Kind::BlockCipher => "CipherArtifact",
        Kind::Hash => "HashArtifact",
        Kind::Mac => "MacArtifact",
        Kind::UniversalHash => "UhashArtifact",
        Kind::StreamCipher => "StreamArtifact",
        Kind::Aead => "AeadArtifact",
    };
    Ok(format!(
        "// Written by cargo xtask compare --crate (xtask/src/intake/shim.rs).\n\
         type Selected = {wrapper}<::under_test::{ty}>;\n\
         const NAME_BYTES: [u8; {NAME_BYTES}] = *b\"{holds}{padding}\";\n"
    ))
}

/// `--type`'s value as Rust source may hold it: a path of identifiers
/// (`Aes128`, `soft::Aes128`), with generic parameters that are such types
/// themselves (`Hmac<sha2::Sha256>`, naming a crate `--with` adds), written
/// again without spaces but after commas; else a usage error.
pub fn type_name(ty: &str) -> Result<String> {
    parse_type(ty).ok_or_else(|| {
        Error::usage(
            format!("--type {ty}: not a type's name"),
            "give the type as the crate names it, e.g. --type Aes128, or a generic one with its parameters, e.g. --type 'Hmac<sha2::Sha256>'",
        )
    })
}

/// The type `text` names, as [`type_name`] writes it, if it is one.
fn parse_type(text: &str) -> Option<String> {
    let mut tokens: Vec<String> = Vec::new();
    let mut chars = text.chars().peekable();
    while let Some(&c) = chars.peek() {
        if c == ' ' {
            chars.next();
        } else if c.is_ascii_alphanumeric() || c == '_' {
            let mut word = String::new();
            while let Some(&c) = chars
                .peek()
                .filter(|c| c.is_ascii_alphanumeric() || **c == '_')
            {
                word.push(c);
                chars.next();
            }
            tokens.push(word);
        } else if c == ':' {
            chars.next();
            if chars.next() != Some(':') {
                return None;
            }
            tokens.push("::".into());
        } else if matches!(c, '<' | '>' | ',') {
            chars.next();
            tokens.push(c.to_string());
        } else {
            return None;
        }
    }
    let mut at = 0;
    let out = parse_path(&tokens, &mut at, 0)?;
    (at == tokens.len() && text.len() <= 256).then_some(out)
}

/// One type of `tokens` from `*at`: a path, and its parameters.
fn parse_path(tokens: &[String], at: &mut usize, depth: usize) -> Option<String> {
    let ident = |s: &str| {
        s.chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    if depth > 8 {
        return None;
    }
    let mut out = String::new();
    loop {
        let word = tokens.get(*at).filter(|w| ident(w))?;
        out.push_str(word);
        *at += 1;
        if tokens.get(*at).map(String::as_str) != Some("::") {
            break;
        }
        out.push_str("::");
        *at += 1;
    }
    if tokens.get(*at).map(String::as_str) == Some("<") {
        *at += 1;
        out.push('<');
        loop {
            out.push_str(&parse_path(tokens, at, depth + 1)?);
            match tokens.get(*at).map(String::as_str) {
                Some(",") => out.push_str(", "),
                Some(">") => break,
                _ => return None,
            }
            *at += 1;
        }
        *at += 1;
        out.push('>');
    }
    Some(out)
}

/// The artifact crate's dependency a shim leaves out: our ciphers and the
/// peers' declarations, none of which a crate's artifact holds
/// (`variants/artifact/src/lib.rs` reads them only outside `under-test`).
/// With it, every crate's build would compile `codegen` and `syn`.
const OUR_VARIANTS: &str = "variants";

/// The shim's manifest: the artifact crate's name, library source,
/// features (as markers: the peer crates are not its dependencies) and
/// dependencies (the workspace's, with their paths made absolute, less
/// [`OUR_VARIANTS`]), the workspace's `artifact` profile, and the crate as
/// `under_test`.
fn manifest(shim: &Shim) -> Result<String> {
    let root = workspace::root();
    let read = |p: PathBuf| -> Result<toml::Table> {
        let text = std::fs::read_to_string(&p)
            .map_err(|e| Error::failed(format!("{}: {e}", p.display())))?;
        text.parse::<toml::Table>()
            .map_err(|e| Error::failed(format!("{}: {e}", p.display())))
    };
    let ws = read(root.join("Cargo.toml"))?;
    let artifact = read(root.join("variants/artifact/Cargo.toml"))?;
    let mut deps = dependencies(&root, &ws, &artifact)?;
    deps.remove(OUR_VARIANTS);
    for w in shim.with {
        deps.insert(w.name.clone(), w.dependency());
    }
    let traits = traits_crate(shim.kind);
    if let Some((name, _)) = traits {
        let dep = workspace_dependency(name)?;
        let dep: toml::Value = (format!("v = {dep}").parse::<toml::Table>().ok())
            .and_then(|t| t.get("v").cloned())
            .unwrap_or_else(|| toml::Table::new().into());
        deps.insert(name.into(), dep);
    }
    deps.insert("under_test".into(), under_test(shim).into());
    let mut doc = toml::Table::new();
    doc.insert("package".into(), package(&ws, &artifact)?.into());
    doc.insert("lib".into(), library(&root).into());
    doc.insert(
        "features".into(),
        features(&artifact, traits.map(|(_, f)| f)).into(),
    );
    doc.insert("dependencies".into(), deps.into());
    if let Some(profile) = ws.get("profile").and_then(|p| p.as_table()) {
        let kept: toml::Table = (profile.iter())
            .filter(|(name, _)| *name == "artifact" || *name == "release")
            .map(|(name, table)| (name.clone(), table.clone()))
            .collect();
        doc.insert("profile".into(), kept.into());
    }
    if !shim.patches.is_empty() {
        let patched: toml::Table = (shim.patches.iter())
            .map(|p| {
                let mut dep = toml::Table::new();
                dep.insert("path".into(), p.dir.display().to_string().into());
                (p.name.clone(), dep.into())
            })
            .collect();
        let mut registry = toml::Table::new();
        registry.insert("crates-io".into(), patched.into());
        doc.insert("patch".into(), registry.into());
    }
    doc.insert("workspace".into(), toml::Table::new().into());
    let body =
        toml::to_string(&doc).map_err(|e| Error::failed(format!("the shim's manifest: {e}")))?;
    Ok(format!(
        "# Written by cargo xtask compare --crate (xtask/src/intake/shim.rs).\n{body}"
    ))
}

/// The artifact crate's package: its name, the workspace's edition.
fn package(ws: &toml::Table, artifact: &toml::Table) -> Result<toml::Table> {
    let name = (artifact.get("package").and_then(|p| p.get("name")).cloned())
        .ok_or_else(|| Error::failed("variants/artifact/Cargo.toml has no package name"))?;
    let edition = (ws.get("workspace"))
        .and_then(|w| w.get("package"))
        .and_then(|p| p.get("edition"))
        .cloned()
        .unwrap_or_else(|| "2024".into());
    let mut package = toml::Table::new();
    package.insert("name".into(), name);
    package.insert("version".into(), "0.1.0".into());
    package.insert("edition".into(), edition);
    package.insert("publish".into(), false.into());
    Ok(package)
}

/// The artifact crate's source as the shim's library, a `cdylib`.
fn library(root: &Path) -> toml::Table {
    let path = root.join("variants/artifact/src/lib.rs");
    let mut lib = toml::Table::new();
    lib.insert("path".into(), path.display().to_string().into());
    lib.insert(
        "crate-type".into(),
        vec![toml::Value::from("cdylib")].into(),
    );
    lib.insert("test".into(), false.into());
    lib.insert("doctest".into(), false.into());
    lib
}

/// The workspace's `[workspace.dependencies]` entry of `name`, as an
/// inline table (`{ version = "0.5", default-features = false }`), paths
/// made absolute: what a scratch package that needs the same crate states.
pub fn workspace_dependency(name: &str) -> Result<String> {
    let root = workspace::root();
    let path = root.join("Cargo.toml");
    let ws = (std::fs::read_to_string(&path).ok())
        .and_then(|t| t.parse::<toml::Table>().ok())
        .ok_or_else(|| Error::failed(format!("{}: not a manifest", path.display())))?;
    let mut wanted = toml::Table::new();
    wanted.insert(name.into(), toml::Table::new().into());
    let mut artifact = toml::Table::new();
    artifact.insert("dependencies".into(), wanted.into());
    let deps = dependencies(&root, &ws, &artifact)?;
    let dep = deps
        .get(name)
        .cloned()
        .unwrap_or_else(|| toml::Table::new().into());
    Ok(dep.to_string())
}

/// The artifact crate's dependencies that are not optional (the peer
/// crates are), as the workspace states them, paths made absolute.
fn dependencies(root: &Path, ws: &toml::Table, artifact: &toml::Table) -> Result<toml::Table> {
    let ws_deps = (ws.get("workspace"))
        .and_then(|w| w.get("dependencies"))
        .and_then(|d| d.as_table());
    let mut deps = toml::Table::new();
    let listed = (artifact.get("dependencies").and_then(|d| d.as_table())).into_iter();
    for (name, dep) in listed.flatten() {
        if dep.get("optional").and_then(|o| o.as_bool()) == Some(true) {
            continue;
        }
        let mut spec = match ws_deps.and_then(|d| d.get(name)) {
            Some(toml::Value::String(v)) => {
                let mut t = toml::Table::new();
                t.insert("version".into(), v.clone().into());
                t
            }
            Some(toml::Value::Table(t)) => t.clone(),
            _ => {
                return Err(Error::failed(format!(
                    "artifact dependency `{name}` is not the workspace's"
                )));
            }
        };
        if let Some(path) = spec.get("path").and_then(|p| p.as_str()) {
            let abs = root.join(path).display().to_string();
            spec.insert("path".into(), abs.into());
        }
        deps.insert(name.clone(), spec.into());
    }
    Ok(deps)
}

/// The crate as `under_test`: the copy by path, or the registry's version.
fn under_test(shim: &Shim) -> toml::Table {
    let mut under = toml::Table::new();
    under.insert("package".into(), shim.package.into());
    match shim.dependency {
        Dependency::Copy(dir) => under.insert("path".into(), dir.display().to_string().into()),
        Dependency::Registry { version } => {
            under.insert("version".into(), format!("={version}").into())
        }
    };
    if !shim.features.is_empty() {
        let f: Vec<toml::Value> = shim.features.iter().map(|f| f.as_str().into()).collect();
        under.insert("features".into(), f.into());
    }
    under
}

/// The crate of traits a kind's artifact wraps that the artifact crate
/// depends on only in a shim, and the feature that turns it on:
/// `universal-hash` (`under-test-uhash`) for a universal hash, `aead`
/// (`under-test-aead`) for an AEAD; none for the others, whose traits
/// (`cipher`, `digest`) the artifact crate always has.
fn traits_crate(kind: Kind) -> Option<(&'static str, &'static str)> {
    match kind {
        Kind::UniversalHash => Some(("universal-hash", "under-test-uhash")),
        Kind::Aead => Some(("aead", "under-test-aead")),
        Kind::BlockCipher | Kind::Hash | Kind::Mac | Kind::StreamCipher => None,
    }
}

/// Every feature of the artifact crate, as a marker (its peer crates are
/// not the shim's dependencies); `under-test` turns on `peer`, and the
/// kind's own (`under-test-uhash`, `under-test-aead`: [`traits_crate`]).
fn features(artifact: &toml::Table, own: Option<&str>) -> toml::Table {
    let declared = (artifact.get("features").and_then(|f| f.as_table())).into_iter();
    declared
        .flatten()
        .map(|(name, _)| {
            let implies: Vec<toml::Value> = match (name.as_str(), own) {
                ("under-test", Some(own)) => vec!["peer".into(), own.into()],
                ("under-test", None) => vec!["peer".into()],
                _ => Vec::new(),
            };
            (name.clone(), implies.into())
        })
        .collect()
}

/// The lock file shims start from: the workspace's, with each lock file of
/// `others` that exists merged in (the scratch package's that resolved a
/// registry crate), so that versions are taken without asking the registry
/// again.
pub fn lock_file(others: &[PathBuf]) -> Result<String> {
    let read = |p: &Path| {
        std::fs::read_to_string(p).map_err(|e| Error::failed(format!("{}: {e}", p.display())))
    };
    let mut lock = read(&workspace::root().join("Cargo.lock"))?;
    for other in others.iter().filter(|p| p.is_file()) {
        lock = merge_locks(&lock, &read(other)?)?;
    }
    Ok(lock)
}

/// The lock file a shim starts from: every package of `a` and of `b`
/// (each once), so that the versions the workspace uses and those that
/// resolved the crate are taken without asking the registry again; cargo
/// drops what the shim does not use.
pub fn merge_locks(a: &str, b: &str) -> Result<String> {
    let parse = |t: &str| {
        t.parse::<toml::Table>()
            .map_err(|e| Error::failed(format!("a lock file: {e}")))
    };
    let (a, b) = (parse(a)?, parse(b)?);
    let key = |p: &toml::Value| {
        ["name", "version", "source"]
            .map(|k| p.get(k).and_then(|v| v.as_str()).unwrap_or("").to_string())
    };
    let mut seen = std::collections::HashSet::new();
    let mut packages = Vec::new();
    for p in [&a, &b].into_iter().flat_map(|t| {
        t.get("package")
            .and_then(|p| p.as_array())
            .into_iter()
            .flatten()
    }) {
        if seen.insert(key(p)) {
            packages.push(p.clone());
        }
    }
    let mut out = toml::Table::new();
    if let Some(v) = a.get("version") {
        out.insert("version".into(), v.clone());
    }
    out.insert("package".into(), packages.into());
    toml::to_string(&out).map_err(|e| Error::failed(format!("a lock file: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The type and name reach Rust source only when they cannot break
    /// out of it.
    #[test]
    fn select_names_only_types() {
        let s = select("soft::Aes128", Kind::BlockCipher, "aes@0.9.4::published").unwrap();
        assert!(
            s.contains("CipherArtifact<::under_test::soft::Aes128>"),
            "{s}"
        );
        assert!(s.contains("*b\"aes@0.9.4::published\\0\\0"), "{s}");
        let h = select("Sha1", Kind::Hash, "sha1@0.11.0::none").unwrap();
        assert!(h.contains("HashArtifact<::under_test::Sha1>"), "{h}");
        let m = select("Hmac< sha2::Sha256 >", Kind::Mac, "hmac@0.13.0::none").unwrap();
        assert!(
            m.contains("MacArtifact<::under_test::Hmac<sha2::Sha256>>"),
            "{m}"
        );
        for bad in [
            "",
            "Aes128>; fn x() {}",
            "a::",
            "1x",
            "Aes 128",
            "Hmac<",
            "Hmac<>",
            "Hmac<a,>",
            "Hmac<a>>",
            "Hmac<a> b",
            "::Aes128",
            "a:b",
            "Hmac<'a>",
        ] {
            assert!(select(bad, Kind::BlockCipher, "x").is_err(), "{bad}");
        }
        assert_eq!(
            type_name("Pair<a::B<C>,D>").unwrap(),
            "Pair<a::B<C>, D>",
            "nested, written again"
        );
        assert!(select("Cast6", Kind::BlockCipher, "a\"b").is_err());
        assert!(select("Cast6", Kind::Hash, &"x".repeat(NAME_BYTES)).is_err());
    }

    /// The manifest names the artifact crate's library and every feature
    /// it has, and the crate as `under_test`.
    #[test]
    fn the_manifest_builds_the_artifact_crate_over_the_copy() {
        let m = manifest(&Shim {
            package: "cast6",
            dependency: Dependency::Copy(Path::new("/tmp/copy/cast6-0.2.0")),
            ty: "Cast6",
            kind: Kind::BlockCipher,
            holds: "cast6@0.2.0::none",
            features: &[],
            with: &[],
            lock: "",
            patches: &[],
        })
        .unwrap();
        let t: toml::Table = m.parse().unwrap();
        assert!(t.get("patch").is_none(), "no --also, no [patch]");
        assert_eq!(t["package"]["name"].as_str(), Some("inlinelab-artifact"));
        assert!(
            t["lib"]["path"]
                .as_str()
                .unwrap()
                .ends_with("variants/artifact/src/lib.rs")
        );
        assert_eq!(
            t["dependencies"]["under_test"]["path"].as_str(),
            Some("/tmp/copy/cast6-0.2.0")
        );
        assert_eq!(t["features"]["under-test"].as_array().unwrap().len(), 1);
        assert!(t["features"].get("peer-cast6").is_some());
        assert!(t["profile"]["artifact"].get("panic").is_some());
        assert!(
            t["dependencies"]["abi"]["path"]
                .as_str()
                .unwrap()
                .starts_with('/')
        );
    }

    /// Each `--also` dependency's copy is patched in for crates.io's
    /// package of that name, by its absolute path.
    #[test]
    fn a_dependency_copy_is_patched_in() {
        let patches = [
            Patched {
                name: "aes".into(),
                dir: PathBuf::from("/w/copies/aes_drop_3/aes-0.9.4"),
            },
            Patched {
                name: "universal-hash".into(),
                dir: PathBuf::from("/w/copies/published/universal-hash-0.6.1"),
            },
        ];
        let m = manifest(&Shim {
            package: "aes-gcm",
            dependency: Dependency::Copy(Path::new("/w/copies/aes_drop_3/aes-gcm-0.11.1")),
            ty: "Aes128Gcm",
            kind: Kind::Aead,
            holds: "aes-gcm@0.11.1::aes_drop_3",
            features: &[],
            with: &[],
            lock: "",
            patches: &patches,
        })
        .unwrap();
        let t: toml::Table = m.parse().unwrap();
        let patch = t["patch"]["crates-io"].as_table().unwrap();
        assert_eq!(patch.len(), 2, "{patch:?}");
        assert_eq!(
            patch["aes"]["path"].as_str(),
            Some("/w/copies/aes_drop_3/aes-0.9.4")
        );
        assert_eq!(
            patch["universal-hash"]["path"].as_str(),
            Some("/w/copies/published/universal-hash-0.6.1")
        );
        assert_eq!(
            t["dependencies"]["under_test"]["path"].as_str(),
            Some("/w/copies/aes_drop_3/aes-gcm-0.11.1"),
            "the crate itself from its own copy"
        );
    }
}
