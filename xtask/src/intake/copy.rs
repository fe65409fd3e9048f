//! A copy of a package to edit: every file of the package directory (a
//! local checkout's `target/` and `.git` left out), writable, at a path
//! whose last component is the package's own directory name, so that one
//! `--remap-path-prefix` maps the copy's paths onto the original's.

use crate::error::{Error, Result};
use std::path::Path;

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
