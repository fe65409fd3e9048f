//! The directory of a cipher's artifacts and measuring files, locked: one
//! compare (or gate, or baseline) of a cipher at a time, since a second
//! would overwrite them.

use crate::error::{Error, Result};
use std::fs::File;
use std::path::{Path, PathBuf};

/// A locked work directory; the lock lasts as long as this value.
pub struct WorkDir {
    pub path: PathBuf,
    _lock: File,
}

impl WorkDir {
    /// `target/inlinelab/CIPHER`, waiting for another run to release it.
    pub fn lock(target: &Path, cipher: &str) -> Result<WorkDir> {
        let path = target.join("inlinelab").join(cipher);
        let fail = |e: std::io::Error| Error::failed(format!("{}: {e}", path.display()));
        std::fs::create_dir_all(&path).map_err(fail)?;
        let lock = File::create(path.join("lock")).map_err(fail)?;
        if lock.try_lock().is_err() {
            eprintln!("waiting for another compare of {cipher} to finish ...");
            lock.lock()
                .map_err(|e| Error::failed(format!("locking {}: {e}", path.display())))?;
        }
        Ok(WorkDir { path, _lock: lock })
    }
}
