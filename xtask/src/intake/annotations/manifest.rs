//! What the package's `Cargo.toml` says that the scanner needs: where the
//! library's root file is, and which features a default build enables.

use super::error::{Error, Result};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The package's manifest, read once.
pub struct Manifest {
    path: PathBuf,
    table: toml::Table,
}

impl Manifest {
    /// Reads `package_root/Cargo.toml`.
    pub fn read(package_root: &Path) -> Result<Manifest> {
        let path = package_root.join("Cargo.toml");
        let text = super::error::read(&path)?;
        let table = text.parse::<toml::Table>().map_err(|e| Error::Manifest {
            path: path.clone(),
            cause: e.message().to_string(),
        })?;
        Ok(Manifest { path, table })
    }

    /// The library's root file relative to the package: `[lib] path`, else
    /// `src/lib.rs`.
    pub fn lib_path(&self) -> Result<PathBuf> {
        let Some(lib) = self.table.get("lib") else {
            return Ok(PathBuf::from("src/lib.rs"));
        };
        match lib.get("path") {
            None => Ok(PathBuf::from("src/lib.rs")),
            Some(toml::Value::String(path)) => Ok(PathBuf::from(path)),
            Some(_) => Err(Error::Manifest {
                path: self.path.clone(),
                cause: "[lib] path is not a string".into(),
            }),
        }
    }

    /// Every feature a build may ask for: each of `[features]`, and each
    /// optional dependency no feature names as `dep:NAME` (cargo's implicit
    /// features).
    pub fn declared(&self) -> BTreeSet<String> {
        let table = self.table.get("features").and_then(|f| f.as_table());
        let mut out: BTreeSet<String> = table
            .into_iter()
            .flatten()
            .map(|(k, _)| k.clone())
            .collect();
        let named_dep = |d: &str| {
            (table.into_iter().flatten())
                .filter_map(|(_, v)| v.as_array())
                .flatten()
                .any(|v| v.as_str() == Some(&format!("dep:{d}")))
        };
        let targets = (self.table.get("target").and_then(|t| t.as_table()))
            .into_iter()
            .flatten()
            .map(|(_, t)| t);
        for deps in [self.table.get("dependencies")]
            .into_iter()
            .chain(targets.map(|t| t.get("dependencies")))
            .flatten()
            .filter_map(|d| d.as_table())
        {
            for (name, dep) in deps {
                let optional = dep.get("optional").and_then(|o| o.as_bool()) == Some(true);
                if optional && !named_dep(name) {
                    out.insert(name.clone());
                }
            }
        }
        out
    }

    /// The features a build with `requested` (and the default ones, unless
    /// `no_default`) enables, following `[features]` (`dep:x` and
    /// `other/feature` entries enable no feature of this crate; an optional
    /// dependency named alone is an implicit feature).
    pub fn features(&self, requested: &[&str], no_default: bool) -> BTreeSet<String> {
        let table = self.table.get("features").and_then(|f| f.as_table());
        let mut todo: Vec<String> = requested.iter().map(|s| s.to_string()).collect();
        if !no_default && table.is_some_and(|t| t.contains_key("default")) {
            todo.push("default".into());
        }
        let mut on = BTreeSet::new();
        while let Some(feature) = todo.pop() {
            if feature.starts_with("dep:") || feature.contains('/') || !on.insert(feature.clone()) {
                continue;
            }
            let implies = table
                .and_then(|t| t.get(&feature))
                .and_then(|v| v.as_array());
            for next in implies.into_iter().flatten().filter_map(|v| v.as_str()) {
                todo.push(next.to_string());
            }
        }
        on
    }
}
