//! Another git repository (the crate's that `gate --crate PATH` gates):
//! the repository that holds a path, the commit a revision names there,
//! that commit's files exported with `git archive` into a directory of
//! ours, and the working tree's files copied into one. Every git command
//! here only reads: nothing is written into the repository's `.git` (no
//! worktree, no fetch, no lock).

use crate::env::git;
use crate::error::{Error, Result};
use std::path::{Path, PathBuf};
use std::process::Command;

/// A git repository, by its top-level directory.
#[derive(Clone, Debug)]
pub struct Repo {
    pub top: PathBuf,
}

impl Repo {
    /// The repository whose working tree holds `dir`, or a usage error
    /// that says so.
    pub fn holding(dir: &Path) -> Result<Repo> {
        let out = git::command(dir)
            .args(["rev-parse", "--show-toplevel"])
            .output()
            .map_err(|e| Error::failed(format!("running git: {e}")))?;
        let top = String::from_utf8_lossy(&out.stdout).trim().to_string();
        if !out.status.success() || top.is_empty() {
            return Err(Error::usage(
                format!("{} is not in a git checkout", dir.display()),
                "give the path of a crate in a git repository (a clone of the crate's repository)",
            ));
        }
        let top = PathBuf::from(top);
        let top = top.canonicalize().unwrap_or(top);
        Ok(Repo { top })
    }

    /// The commit `rev` names here (40 hex digits), or a usage error.
    pub fn resolve(&self, rev: &str) -> Result<String> {
        git::resolve(&self.top, rev).ok_or_else(|| {
            Error::usage(
                format!("`{rev}` is not a revision of {}", self.top.display()),
                "e.g. --against origin/main, --against HEAD~1 or a commit's hash (fetch the base first)",
            )
        })
    }

    /// `dir` relative to the top of the working tree (`aes`, `.` for the
    /// top itself): where the crate is in every revision's tree.
    pub fn relative(&self, dir: &Path) -> Result<PathBuf> {
        let dir = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
        dir.strip_prefix(&self.top)
            .map(Path::to_path_buf)
            .map_err(|_| {
                Error::failed(format!(
                    "{} is not under {}",
                    dir.display(),
                    self.top.display()
                ))
            })
    }

    /// Writes the files of `commit` into `dest` (emptied first), as `git
    /// archive` gives them: the tree as committed, without `.git`. Each
    /// file is dated now, not at the commit: cargo rebuilds what is newer
    /// than its last build, and an older revision exported where a newer
    /// one was built must be built again.
    pub fn export(&self, commit: &str, dest: &Path) -> Result<()> {
        let fail = |e: &dyn std::fmt::Display| Error::failed(format!("{}: {e}", dest.display()));
        if dest.exists() {
            std::fs::remove_dir_all(dest).map_err(|e| fail(&e))?;
        }
        std::fs::create_dir_all(dest).map_err(|e| fail(&e))?;
        let tar = dest.with_extension("tar");
        let archived = git::command(&self.top)
            .args(["archive", "--format=tar", "-o"])
            .arg(&tar)
            .arg(commit)
            .output()
            .map_err(|e| Error::failed(format!("running git archive: {e}")))?;
        if !archived.status.success() {
            return Err(Error::failed(format!(
                "git archive {commit} in {}: {}",
                self.top.display(),
                String::from_utf8_lossy(&archived.stderr).trim()
            )));
        }
        let unpacked = Command::new("tar")
            .arg("-xmf")
            .arg(&tar)
            .arg("-C")
            .arg(dest)
            .output()
            .map_err(|e| Error::failed(format!("running tar: {e}")))?;
        let _ = std::fs::remove_file(&tar);
        if !unpacked.status.success() {
            return Err(Error::failed(format!(
                "unpacking {}: {}",
                tar.display(),
                String::from_utf8_lossy(&unpacked.stderr).trim()
            )));
        }
        Ok(())
    }
}

impl Repo {
    /// Copies the working tree's files into `dest` (emptied first), as
    /// cargo would see them: those git tracks and those it would track (not
    /// ignored: no `target/`), as they are on disk, changes uncommitted
    /// included; a tracked file deleted is left out, a symbolic link is
    /// copied as a link.
    pub fn copy_working_tree(&self, dest: &Path) -> Result<()> {
        let fail = |p: &Path, e: &dyn std::fmt::Display| {
            Error::failed(format!("copying {}: {e}", p.display()))
        };
        if dest.exists() {
            std::fs::remove_dir_all(dest).map_err(|e| fail(dest, &e))?;
        }
        std::fs::create_dir_all(dest).map_err(|e| fail(dest, &e))?;
        let listed = git::command(&self.top)
            .args([
                "ls-files",
                "-z",
                "--cached",
                "--others",
                "--exclude-standard",
            ])
            .output()
            .map_err(|e| Error::failed(format!("running git ls-files: {e}")))?;
        if !listed.status.success() {
            return Err(Error::failed(format!(
                "git ls-files in {}: {}",
                self.top.display(),
                String::from_utf8_lossy(&listed.stderr).trim()
            )));
        }
        let mut seen = std::collections::HashSet::new();
        for raw in listed.stdout.split(|&b| b == 0).filter(|r| !r.is_empty()) {
            let rel = Path::new(std::str::from_utf8(raw).map_err(|e| fail(&self.top, &e))?);
            if !seen.insert(rel.to_path_buf()) {
                continue;
            }
            let (from, to) = (self.top.join(rel), dest.join(rel));
            let Ok(meta) = std::fs::symlink_metadata(&from) else {
                continue;
            };
            if let Some(dir) = to.parent() {
                std::fs::create_dir_all(dir).map_err(|e| fail(dir, &e))?;
            }
            if meta.file_type().is_symlink() {
                let target = std::fs::read_link(&from).map_err(|e| fail(&from, &e))?;
                std::os::unix::fs::symlink(&target, &to).map_err(|e| fail(&to, &e))?;
            } else if meta.is_file() {
                std::fs::copy(&from, &to).map_err(|e| fail(&from, &e))?;
            }
        }
        Ok(())
    }
}
