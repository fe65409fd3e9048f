//! Output files, written the one way both `tcrypt --json` and every file of
//! `cargo xtask` are written: the bytes go to a temporary file in the same
//! directory, which is then renamed over the path, so that a reader never
//! sees half a file and an interrupted run leaves the previous one intact.
//!
//! Only regular files are written. A path that is a symbolic link, a
//! directory, a device (`/dev/null`), a pipe or a socket is refused, never
//! replaced by the rename (as root, renaming over `/dev/null` would replace
//! the system's device with a file), nor written through: give the file
//! itself. [`check`] says so before a run starts, so that a mistyped path
//! fails in its first second rather than after minutes of measuring.
//!
//! A temporary is `.NAME.PID.N.tmp` beside `NAME`; it is removed on every
//! failure this process sees. One left by a process that was killed is
//! removed by [`remove_stale`] once that process is gone.

use std::fmt;
use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Why an output path cannot be written: one line naming the path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputError {
    pub path: PathBuf,
    pub why: String,
}

impl fmt::Display for OutputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.as_os_str().is_empty() {
            f.write_str(&self.why)
        } else {
            write!(f, "{}: {}", self.path.display(), self.why)
        }
    }
}

impl std::error::Error for OutputError {}

fn refuse(path: &Path, why: impl Into<String>) -> OutputError {
    OutputError {
        path: path.to_path_buf(),
        why: why.into(),
    }
}

/// The directory `path` goes into and its file name, or why it names no
/// file (empty, `/`, ending in `..`).
fn split(path: &Path) -> Result<(PathBuf, &std::ffi::OsStr), OutputError> {
    if path.as_os_str().is_empty() {
        return Err(refuse(path, "an output path cannot be empty"));
    }
    let Some(name) = path.file_name() else {
        return Err(refuse(path, "names a directory, not a file"));
    };
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    Ok((dir, name))
}

/// Whether `path` may be (re)placed by a rename: absent, or a regular file.
fn check_kind(path: &Path) -> Result<(), OutputError> {
    // A trailing slash (`out.json/`) asks for a directory.
    if path.as_os_str().to_string_lossy().ends_with('/') {
        return Err(refuse(path, "names a directory, not a file"));
    }
    match fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => Err(refuse(
            path,
            "is a symbolic link; outputs are written as regular files only, so give the file it points to",
        )),
        Ok(m) if m.is_dir() => Err(refuse(
            path,
            "is a directory; give a file path in it, e.g. DIR/out.json",
        )),
        Ok(m) if !m.is_file() => Err(refuse(
            path,
            "is not a regular file (a device, pipe or socket); outputs are written as regular files only",
        )),
        Ok(_) => Ok(()),
        // Absent; a parent that is missing or not a directory is
        // `check_dir`'s to name.
        Err(e)
            if matches!(
                e.kind(),
                io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
            ) =>
        {
            Ok(())
        }
        Err(e) => Err(refuse(path, e.to_string())),
    }
}

/// Whether the directory `path` goes into exists (and is one).
fn check_dir(path: &Path) -> Result<(), OutputError> {
    let (dir, _) = split(path)?;
    match fs::metadata(&dir) {
        Ok(m) if m.is_dir() => Ok(()),
        Ok(_) => Err(refuse(
            path,
            format!("{} is not a directory", dir.display()),
        )),
        Err(e) => Err(refuse(path, format!("directory {}: {e}", dir.display()))),
    }
}

/// Checks, before anything is measured, that `path` can be written: it
/// names a file that is absent or regular, in an existing directory where
/// this process can create files (tried, with a temporary removed at once).
pub fn check(path: &Path) -> Result<(), OutputError> {
    check_kind(path)?;
    check_dir(path)?;
    let (tmp, file) = create_temporary(path)?;
    drop(file);
    let _ = fs::remove_file(&tmp);
    Ok(())
}

/// Whether an existing file is one its writer may replace: the writer's
/// test of the file's bytes (its generated marker), and the writer's name
/// for the refusal.
#[derive(Clone, Copy)]
pub struct Owner<'a> {
    /// What writes the file, as the refusal names it (`tcrypt --json`).
    pub writer: &'a str,
    /// Whether the bytes of an existing file (at most [`MAX_OWNED_BYTES`])
    /// carry the writer's marker.
    pub owns: &'a dyn Fn(&[u8]) -> bool,
}

/// The largest existing file an [`Owner`] is shown: larger than any output
/// of this tool, so that a larger file is never taken for one (and never
/// read whole).
pub const MAX_OWNED_BYTES: u64 = 16 << 20;

/// Checks that `path` may be written by `owner`: as [`check`], and a file
/// already there must carry the owner's marker (a file the tool did not
/// write, or another command's, is never replaced).
pub fn check_owned(path: &Path, owner: Owner<'_>) -> Result<(), OutputError> {
    check(path)?;
    check_owner(path, owner)
}

/// A file at `path` (regular, by [`check_kind`]) carries `owner`'s marker;
/// an absent one passes.
fn check_owner(path: &Path, owner: Owner<'_>) -> Result<(), OutputError> {
    use std::io::Read;
    let file = match fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(refuse(path, e.to_string())),
    };
    let mut bytes = Vec::new();
    file.take(MAX_OWNED_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| refuse(path, e.to_string()))?;
    if bytes.len() as u64 <= MAX_OWNED_BYTES && (owner.owns)(&bytes) {
        Ok(())
    } else {
        Err(refuse(
            path,
            format!(
                "exists and was not written by {} (it lacks that command's generated marker), so it is left alone; move it away or give another path",
                owner.writer
            ),
        ))
    }
}

/// Writes `bytes` to `path` by rename from a temporary in the same
/// directory; refuses what [`check`] refuses. Nothing is left behind on
/// failure.
pub fn write(path: &Path, bytes: &[u8]) -> Result<(), OutputError> {
    write_with(path, bytes, &|| {})
}

/// [`write`] of a file that only `owner` may replace ([`check_owned`],
/// checked again just before the rename).
pub fn write_owned(path: &Path, bytes: &[u8], owner: Owner<'_>) -> Result<(), OutputError> {
    check_owner(path, owner)?;
    write_inner(path, bytes, &|| {}, Some(owner))
}

/// [`write`], calling `before_rename` between writing the temporary and
/// renaming it (tests change the path there).
fn write_with(path: &Path, bytes: &[u8], before_rename: &dyn Fn()) -> Result<(), OutputError> {
    write_inner(path, bytes, before_rename, None)
}

/// [`write_with`], refusing at the last moment a file that `owner` (when
/// given) does not own.
fn write_inner(
    path: &Path,
    bytes: &[u8],
    before_rename: &dyn Fn(),
    owner: Option<Owner<'_>>,
) -> Result<(), OutputError> {
    check_kind(path)?;
    check_dir(path)?;
    let (tmp, mut file) = create_temporary(path)?;
    let result = file
        .write_all(bytes)
        .and_then(|()| file.flush())
        .map_err(|e| refuse(path, format!("writing {}: {e}", tmp.display())))
        .and_then(|()| {
            drop(file);
            before_rename();
            // Checked again just before the rename, which would replace
            // whatever the path has become.
            check_kind(path)?;
            owner.map_or(Ok(()), |o| check_owner(path, o))
        })
        .and_then(|()| fs::rename(&tmp, path).map_err(|e| refuse(path, e.to_string())));
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

/// A new temporary beside `path`, created (never opened if it exists).
fn create_temporary(path: &Path) -> Result<(PathBuf, fs::File), OutputError> {
    static SEQ: AtomicU64 = AtomicU64::new(0);
    let (dir, name) = split(path)?;
    loop {
        let mut tmp_name = std::ffi::OsString::from(".");
        tmp_name.push(name);
        tmp_name.push(format!(
            ".{}.{}.tmp",
            std::process::id(),
            SEQ.fetch_add(1, Ordering::Relaxed)
        ));
        let tmp = dir.join(tmp_name);
        match OpenOptions::new().write(true).create_new(true).open(&tmp) {
            Ok(f) => return Ok((tmp, f)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => {
                return Err(refuse(
                    path,
                    format!("cannot create a file in {}: {e}", dir.display()),
                ));
            }
        }
    }
}

/// The process that made the temporary `name`: `.NAME.PID.N.tmp`, or
/// `NAME.tmpPID` as earlier versions of xtask named them. `None` for any
/// other name.
pub fn temporary_owner(name: &str) -> Option<u32> {
    if let Some(rest) = name.strip_prefix('.').and_then(|n| n.strip_suffix(".tmp")) {
        let mut parts = rest.rsplitn(3, '.');
        let (seq, pid, stem) = (parts.next()?, parts.next()?, parts.next()?);
        let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        if digits(seq) && !stem.is_empty() {
            return pid.parse().ok().filter(|_| digits(pid));
        }
        return None;
    }
    let (stem, pid) = name.rsplit_once(".tmp")?;
    if stem.is_empty() || pid.is_empty() || !pid.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    pid.parse().ok()
}

/// Removes the temporaries in `dir` whose process is gone (killed between
/// writing and renaming); gives the files removed. A live process's
/// temporaries are left alone.
pub fn remove_stale(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut removed = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(temporary_owner) else {
            continue;
        };
        let gone = pid != std::process::id() && !Path::new(&format!("/proc/{pid}")).exists();
        let regular = entry.file_type().is_ok_and(|t| t.is_file());
        if gone && regular && fs::remove_file(entry.path()).is_ok() {
            removed.push(entry.path());
        }
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> tempfile::TempDir {
        tempfile::Builder::new()
            .prefix(&format!("outfile-{name}-"))
            .tempdir()
            .unwrap()
    }

    fn leftovers(dir: &Path) -> Vec<String> {
        fs::read_dir(dir)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".tmp") || n.contains(".tmp"))
            .collect()
    }

    #[test]
    fn writes_and_replaces_a_regular_file() {
        let dir_tmp = scratch("regular");
        let dir = dir_tmp.path();
        let path = dir.join("out.json");
        check(&path).unwrap();
        write(&path, b"one").unwrap();
        write(&path, b"two").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"two");
        assert!(leftovers(dir).is_empty(), "{:?}", leftovers(dir));
    }

    /// A symbolic link, a directory, a device, an empty path: refused by
    /// `check` and `write`, left as they were, no temporary behind.
    #[test]
    fn refuses_what_is_not_a_regular_file() {
        let dir_tmp = scratch("refuse");
        let dir = dir_tmp.path();
        let target = dir.join("target.json");
        fs::write(&target, b"kept").unwrap();
        let link = dir.join("link.json");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let sub = dir.join("sub");
        fs::create_dir(&sub).unwrap();
        let cases: Vec<(PathBuf, &str)> = vec![
            (link.clone(), "is a symbolic link"),
            (sub.clone(), "is a directory"),
            (PathBuf::from("/dev/null"), "is not a regular file"),
            (PathBuf::new(), "an output path cannot be empty"),
            (dir.join("sub/"), "names a directory, not a file"),
            (dir.join("x/.."), "names a directory, not a file"),
            (PathBuf::from("/"), "names a directory, not a file"),
            (dir.join("missing/out.json"), "directory"),
            (target.join("out.json"), "is not a directory"),
        ];
        for (path, why) in &cases {
            let e = check(path).unwrap_err();
            assert!(e.to_string().contains(why), "{path:?}: {e}");
            assert!(!e.to_string().contains('\n'), "{e}");
            let e = write(path, b"new").unwrap_err();
            assert!(e.to_string().contains(why), "{path:?}: {e}");
        }
        assert!(
            fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(fs::read(&target).unwrap(), b"kept");
        assert!(sub.is_dir());
        assert!(leftovers(dir).is_empty(), "{:?}", leftovers(dir));
        assert!(leftovers(&sub).is_empty());
    }

    /// A write that fails after the temporary exists (the path became a
    /// directory, then a symbolic link, while it was written) removes the
    /// temporary and leaves the path as it became.
    #[test]
    fn a_failed_rename_leaves_no_temporary() {
        let dir_tmp = scratch("rename");
        let dir = dir_tmp.path();
        let path = dir.join("out.json");
        let e = write_with(&path, b"new", &|| fs::create_dir(&path).unwrap()).unwrap_err();
        assert!(e.to_string().contains("is a directory"), "{e}");
        assert!(path.is_dir());
        assert!(leftovers(dir).is_empty(), "{:?}", leftovers(dir));
        fs::remove_dir(&path).unwrap();
        let e = write_with(&path, b"new", &|| {
            std::os::unix::fs::symlink("/dev/null", &path).unwrap()
        })
        .unwrap_err();
        assert!(e.to_string().contains("is a symbolic link"), "{e}");
        assert!(leftovers(dir).is_empty(), "{:?}", leftovers(dir));
    }

    #[test]
    fn stale_temporaries_of_dead_processes_are_removed() {
        let dir_tmp = scratch("stale");
        let dir = dir_tmp.path();
        // PID 4194305 is above Linux's largest (2^22), so never alive.
        let dead = [".cast6.json.4194305.0.tmp", "cast6.md.tmp4194305"];
        let alive = format!(".cast6.svg.{}.3.tmp", std::process::id());
        let other = ["cast6.json", "notes.tmp", ".x.tmp", "a.tmpx"];
        for n in dead
            .iter()
            .chain(&other)
            .map(|s| s.to_string())
            .chain([alive.clone()])
        {
            fs::write(dir.join(n), b"").unwrap();
        }
        let mut removed: Vec<String> = remove_stale(dir)
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        removed.sort();
        let mut want: Vec<String> = dead.iter().map(|s| s.to_string()).collect();
        want.sort();
        assert_eq!(removed, want);
        for n in other.iter().map(|s| s.to_string()).chain([alive]) {
            assert!(dir.join(&n).exists(), "{n}");
        }
    }

    #[test]
    fn temporary_names() {
        assert_eq!(temporary_owner(".cast6.json.123.0.tmp"), Some(123));
        assert_eq!(temporary_owner("cast6.json.tmp123"), Some(123));
        for other in [
            ".tmp",
            "x.tmp",
            ".x.tmp",
            ".x.1.tmp",
            ".x.a.1.tmp",
            "x.tmp",
            "tmp1",
            ".tmp1",
        ] {
            assert_eq!(temporary_owner(other), None, "{other}");
        }
    }
}
