//! A copy of a package to edit: every file of the package directory (a
//! local checkout's `target/` and `.git` left out), writable, at a path
//! whose last component is the package's own directory name, so that one
//! `--remap-path-prefix` maps the copy's paths onto the original's.

use crate::error::{Error, Result};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// What a package's files were at a moment: each file's path (relative to
/// the package) with its length and modification time (`target/` left
/// out).
pub type Stamps = BTreeMap<PathBuf, (u64, Option<SystemTime>)>;

/// The files of the package at `dir`, stamped ([`Stamps`]).
pub fn stamps(dir: &Path) -> Stamps {
    let walk = walkdir::WalkDir::new(dir).into_iter().filter_entry(|e| {
        e.depth() != 1 || !matches!(e.file_name().to_str(), Some("target" | ".git"))
    });
    (walk.flatten())
        .filter(|e| e.file_type().is_file())
        .filter_map(|e| {
            let meta = e.metadata().ok()?;
            let rel = e.path().strip_prefix(dir).ok()?.to_path_buf();
            Some((rel, (meta.len(), meta.modified().ok())))
        })
        .collect()
}

/// The files that a build wrote into the package between `before` and
/// `after` (written again, even with the same bytes, or new), in order:
/// a build script that writes the package's own source.
pub fn written(before: &Stamps, after: &Stamps) -> Vec<String> {
    (after.iter())
        .filter(|(path, stamp)| before.get(*path) != Some(stamp))
        .map(|(path, _)| path.display().to_string())
        .collect()
}

/// Copies the package at `from` to `to` (replacing what was there).
pub fn copy_package(from: &Path, to: &Path) -> Result<()> {
    let fail = |p: &Path, e: &dyn std::fmt::Display| {
        Error::failed(format!("copying {}: {e}", p.display()))
    };
    if to.exists() {
        std::fs::remove_dir_all(to).map_err(|e| fail(to, &e))?;
    }
    let walk = walkdir::WalkDir::new(from).into_iter().filter_entry(|e| {
        e.depth() != 1 || !matches!(e.file_name().to_str(), Some("target" | ".git"))
    });
    for entry in walk {
        let entry = entry.map_err(|e| fail(from, &e))?;
        let rel = entry
            .path()
            .strip_prefix(from)
            .map_err(|e| fail(entry.path(), &e))?;
        let dest = to.join(rel);
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&dest).map_err(|e| fail(&dest, &e))?;
        } else if entry.file_type().is_file() {
            std::fs::copy(entry.path(), &dest).map_err(|e| fail(entry.path(), &e))?;
            let mut perms = std::fs::metadata(&dest)
                .map_err(|e| fail(&dest, &e))?
                .permissions();
            #[allow(clippy::permissions_set_readonly_false)]
            perms.set_readonly(false);
            std::fs::set_permissions(&dest, perms).map_err(|e| fail(&dest, &e))?;
        }
    }
    Ok(())
}
