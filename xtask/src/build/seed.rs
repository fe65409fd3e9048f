//! A worker's target directory started from a copy of the first worker's.
//!
//! Every worker past the first builds in a target directory of its own
//! ([`super::workers`]). On a fresh machine each of them would compile the
//! shared dependencies again (cipher, digest, the proc-macro and its syn):
//! on two cores, a core spent on work the other is doing. Instead, a worker
//! whose directory has no build of the artifact profile waits until the
//! first worker has finished a build in the same base directory, then
//! copies that profile directory (mtimes kept: cargo compares them) and
//! builds on it; cargo finds the copied dependencies fresh, as it would in
//! the directory they were built in (it records paths within a target
//! directory relative to it). The copy is made under the base directory's
//! build lock, into a scratch name renamed into place, so a cut-short copy
//! is never taken for a build.
//!
//! Invariant: seeding changes what is compiled, never what an artifact is.
//! A copied output is one cargo would have produced in the worker's own
//! directory from the same inputs; anything stale in it cargo rebuilds.

use super::artifacts::{self, PROFILE};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::{Condvar, Mutex};

/// What the first worker has built, for the others to wait on.
#[derive(Default)]
pub struct Seeds {
    state: Mutex<State>,
    changed: Condvar,
}

#[derive(Default)]
struct State {
    /// Base target directories the first worker has finished a build in.
    built: HashSet<PathBuf>,
    /// The first worker has taken its last job.
    done: bool,
}

impl Seeds {
    /// The first worker finished a build (built or failed) in `base`.
    pub fn built(&self, base: &Path) {
        if let Ok(mut s) = self.state.lock() {
            s.built.insert(base.to_path_buf());
        }
        self.changed.notify_all();
    }

    /// The first worker will build nothing more.
    pub fn done(&self) {
        if let Ok(mut s) = self.state.lock() {
            s.done = true;
        }
        self.changed.notify_all();
    }

    /// Before a build in `own` (a worker's directory under `base`): when
    /// `own` has no build of the profile, waits for the first worker's
    /// first build in `base` and copies it. Best effort: a copy that fails
    /// leaves `own` to compile everything, as it would without seeding.
    pub fn prepare(&self, base: &Path, own: &Path) {
        if own.join(PROFILE).exists() {
            return;
        }
        let Ok(mut s) = self.state.lock() else { return };
        while !s.done && !s.built.contains(base) {
            s = match self.changed.wait(s) {
                Ok(s) => s,
                Err(_) => return,
            };
        }
        drop(s);
        if let Err(why) = copy_profile(base, own) {
            eprintln!(
                "    note: {} compiles its dependencies itself: {why}",
                own.display()
            );
        }
    }
}

/// Copies `base`'s profile directory to `own`'s, under `base`'s build lock.
fn copy_profile(base: &Path, own: &Path) -> Result<(), String> {
    let from = base.join(PROFILE);
    if !from.is_dir() {
        return Ok(());
    }
    let _lock = artifacts::lock(base)?;
    let to = own.join(PROFILE);
    let scratch = own.join(format!("{PROFILE}.seeding"));
    let _ = std::fs::remove_dir_all(&scratch);
    copy_tree(&from, &scratch).map_err(|e| format!("copying {}: {e}", from.display()))?;
    std::fs::rename(&scratch, &to).map_err(|e| format!("{}: {e}", to.display()))
}

/// Copies directory `from` to `to` (which must not exist), each file with
/// its modification time; symbolic links are left out (cargo writes none).
fn copy_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for e in std::fs::read_dir(from)? {
        let e = e?;
        let (src, dst) = (e.path(), to.join(e.file_name()));
        let kind = e.file_type()?;
        if kind.is_dir() {
            copy_tree(&src, &dst)?;
        } else if kind.is_file() {
            std::fs::copy(&src, &dst)?;
            let modified = e.metadata()?.modified()?;
            std::fs::File::options()
                .write(true)
                .open(&dst)?
                .set_modified(modified)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_copy_keeps_files_and_their_times() {
        let tmp = tempfile::tempdir().unwrap();
        let (base, own) = (tmp.path().join("base"), tmp.path().join("own"));
        let file = base.join(PROFILE).join("deps").join("libx.rlib");
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, b"rlib").unwrap();
        let old = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1 << 30);
        (std::fs::File::options().write(true).open(&file))
            .unwrap()
            .set_modified(old)
            .unwrap();
        let seeds = Seeds::default();
        seeds.built(&base);
        seeds.prepare(&base, &own);
        let copied = own.join(PROFILE).join("deps").join("libx.rlib");
        assert_eq!(std::fs::read(&copied).unwrap(), b"rlib");
        assert_eq!(std::fs::metadata(&copied).unwrap().modified().unwrap(), old);
        assert!(!own.join(format!("{PROFILE}.seeding")).exists());
    }

    #[test]
    fn a_worker_does_not_wait_once_the_first_is_done() {
        let tmp = tempfile::tempdir().unwrap();
        let seeds = Seeds::default();
        seeds.done();
        // Nothing built in the base: nothing to copy, no wait.
        seeds.prepare(&tmp.path().join("base"), &tmp.path().join("own"));
        assert!(!tmp.path().join("own").join(PROFILE).exists());
    }

    #[test]
    fn a_directory_with_a_build_is_left_as_it_is() {
        let tmp = tempfile::tempdir().unwrap();
        let (base, own) = (tmp.path().join("base"), tmp.path().join("own"));
        std::fs::create_dir_all(base.join(PROFILE)).unwrap();
        std::fs::write(base.join(PROFILE).join("new"), b"").unwrap();
        std::fs::create_dir_all(own.join(PROFILE)).unwrap();
        // Neither built nor done: a directory with a build must not wait.
        Seeds::default().prepare(&base, &own);
        assert!(!own.join(PROFILE).join("new").exists());
    }
}
