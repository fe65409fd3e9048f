//! Where artifacts are built from: this workspace, or the base tree that
//! `gate --against REV` compares with (REV checked out in a temporary git
//! worktree, removed when dropped).

use crate::env::flags::FlagSet;
use crate::env::git;
use crate::env::workspace;
use crate::error::{Error, Result};
use std::path::{Path, PathBuf};
use std::process::Command;

/// A workspace to build from, and the target directory to use.
#[derive(Clone, Debug)]
pub struct Tree {
    pub root: PathBuf,
    /// `None`: the workspace's own.
    pub target_dir: Option<PathBuf>,
    /// Compiler flags for the build besides the flag set's, each one
    /// argument (a path in one may hold spaces: they reach rustc through
    /// `CARGO_ENCODED_RUSTFLAGS`).
    pub rustflags: Vec<String>,
    /// The compiler flags asked for (`compare --opt-level` and the like):
    /// the profile's own unless a run asked for a grid.
    pub flags: FlagSet,
    pub source: Source,
}

/// What an artifact built in a tree holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// A workspace (this one, or the base of `gate --against`): a variant
    /// of `variants` or a peer, selected by the environment or a feature.
    Workspace,
    /// A shim package (`intake/shim.rs`) over a crate this workspace did
    /// not write: its library `lib` is the cipher's crate.
    Shim { lib: String },
}

impl Tree {
    /// This workspace.
    pub fn here() -> Tree {
        Tree {
            root: workspace::root(),
            target_dir: None,
            rustflags: Vec::new(),
            flags: FlagSet::profile(),
            source: Source::Workspace,
        }
    }

    /// This tree built with the flag set `flags`, in a target directory of
    /// its own under the tree's (`flags~Os.znver3`); the tree itself for
    /// the profile's.
    pub fn with_flags(&self, flags: &FlagSet) -> Tree {
        if flags.is_profile() {
            return self.clone();
        }
        let base = self
            .target_dir
            .clone()
            .unwrap_or_else(workspace::target_dir_default);
        Tree {
            target_dir: Some(base.join(format!("flags~{}", flags.name()))),
            flags: flags.clone(),
            ..self.clone()
        }
    }

    /// The compiler flags of its build, each one argument: its own, then
    /// its flag set's; empty when neither adds any.
    pub fn all_rustflags(&self) -> Vec<String> {
        (self.rustflags.iter().cloned())
            .chain(self.flags.rustflags())
            .collect()
    }

    /// This tree built with `rustflags` (flags separated by spaces, as a
    /// peer's declaration gives them), in a target directory of its own:
    /// other flags would make every other artifact build start over.
    pub fn with_rustflags(&self, name: &str, rustflags: &str) -> Tree {
        let base = self
            .target_dir
            .clone()
            .unwrap_or_else(workspace::target_dir_default);
        Tree {
            root: self.root.clone(),
            target_dir: Some(base.join(format!("flags-{name}"))),
            rustflags: rustflags.split_whitespace().map(String::from).collect(),
            flags: self.flags.clone(),
            source: self.source.clone(),
        }
    }
}

/// The base tree: a revision checked out in a temporary git worktree.
pub struct BaseTree {
    path: PathBuf,
}

impl BaseTree {
    /// Checks out `rev` under `target`.
    pub fn add(target: &Path, rev: &str) -> Result<BaseTree> {
        let commit = resolve(rev)?;
        let path = target
            .join("inlinelab")
            .join("worktrees")
            .join(&commit[..12]);
        if path.exists() {
            remove_worktree(&path);
            let _ = std::fs::remove_dir_all(&path);
        }
        let ok = git()
            .args(["worktree", "add", "--detach", "--quiet"])
            .arg(&path)
            .arg(&commit)
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            return Err(Error::failed(format!(
                "git worktree add {} {commit} failed",
                path.display()
            )));
        }
        eprintln!(
            "base {rev} ({}) checked out in {}",
            &commit[..12],
            path.display()
        );
        Ok(BaseTree { path })
    }

    /// Where to build it: its worktree, into `target/against`.
    pub fn tree(&self, target: &Path) -> Tree {
        Tree {
            root: self.path.clone(),
            target_dir: Some(target.join("against")),
            rustflags: Vec::new(),
            flags: FlagSet::profile(),
            source: Source::Workspace,
        }
    }
}

impl Drop for BaseTree {
    fn drop(&mut self) {
        remove_worktree(&self.path);
    }
}

/// The commit `rev` names, or a usage error.
pub fn resolve(rev: &str) -> Result<String> {
    git::resolve(&workspace::root(), rev).ok_or_else(|| {
        Error::usage(
            format!("`{rev}` is not a revision of this repository"),
            "e.g. --against origin/main or --against HEAD~1",
        )
    })
}

/// The bytes of `path` (relative to the repository's root) as committed in
/// `commit`; `None` when the commit has no such file.
pub fn show(commit: &str, path: &str) -> Result<Option<Vec<u8>>> {
    let spec = format!("{commit}:{path}");
    let exists = git()
        .args(["cat-file", "-e", &spec])
        .output()
        .map_err(|e| Error::failed(format!("running git: {e}")))?;
    if !exists.status.success() {
        return Ok(None);
    }
    let out = git()
        .args(["cat-file", "blob", &spec])
        .output()
        .map_err(|e| Error::failed(format!("running git: {e}")))?;
    if !out.status.success() {
        return Err(Error::failed(format!(
            "git cat-file blob {spec}: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    Ok(Some(out.stdout))
}

fn remove_worktree(path: &Path) {
    let _ = git()
        .args(["worktree", "remove", "--force"])
        .arg(path)
        .status();
}

fn git() -> Command {
    git::command(&workspace::root())
}
