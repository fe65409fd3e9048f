//! Facts about the workspace: where things are, which
//! artifact features exist, the toolchain, the commit, the inputs that
//! decide the artifacts.

use crate::error::{Error, Result};
use bench_harness::outfile;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The workspace root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask sits in the workspace")
        .to_path_buf()
}

/// The cargo that runs us, so that builds use the same toolchain.
pub fn cargo() -> Command {
    let mut cmd = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    cmd.current_dir(root());
    cmd
}

/// What `cargo metadata` says that compare needs.
pub struct Metadata {
    pub target_dir: PathBuf,
}

pub fn metadata() -> Result<Metadata> {
    let out = cargo()
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        .output()
        .map_err(|e| Error::failed(format!("running cargo metadata: {e}")))?;
    if !out.status.success() {
        return Err(Error::failed(format!(
            "cargo metadata failed: {}",
            String::from_utf8_lossy(&out.stderr)
                .lines()
                .next()
                .unwrap_or("")
        )));
    }
    let v: serde_json::Value = serde_json::from_slice(&out.stdout)
        .map_err(|e| Error::failed(format!("cargo metadata output: {e}")))?;
    let target_dir = PathBuf::from(v["target_directory"].as_str().unwrap_or("target"));
    Ok(Metadata { target_dir })
}

/// The workspace's target directory when `cargo metadata` is not at hand:
/// `CARGO_TARGET_DIR` or `target/`.
pub fn target_dir_default() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target"))
}

/// The toolchain that builds the artifacts ([`super::profile::toolchain`]).
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize, PartialEq)]
pub struct Toolchain {
    /// `rustc --version`.
    pub rustc: String,
    /// The host target triple, which the artifacts are built for.
    pub target: String,
    /// The cargo profile and what it sets, with what the environment adds
    /// ([`super::profile`]).
    pub profile: String,
}

/// The commit checked out.
pub fn commit() -> String {
    git_output(&["rev-parse", "--short=12", "HEAD"]).unwrap_or_else(|| "unknown".into())
}

fn git_output(args: &[&str]) -> Option<String> {
    git_output_in(&root(), args)
}

/// What git prints for `args` in the work tree at `dir`, if it succeeds.
fn git_output_in(dir: &Path, args: &[&str]) -> Option<String> {
    crate::env::git::output(dir, args)
}

/// The files whose contents decide what an artifact holds: the
/// workspace manifest (the `artifact` profile) and lock file, the toolchain
/// file, the ABI, the macro, the ciphers and the artifact crate, the
/// registry (a peer's `RUSTFLAGS`), the build command and what a flag set
/// passes to it. Tests, benches
/// and markdown under them are left out: they change no artifact.
pub const INPUT_PATHS: &[&str] = &[
    "Cargo.toml",
    "Cargo.lock",
    "rust-toolchain.toml",
    "rust-toolchain",
    "abi",
    "codegen",
    "variants",
    "bench-harness/src/registry.rs",
    "xtask/src/build/artifacts.rs",
    // A flag set's RUSTFLAGS and profile keys (`compare --opt-level`...).
    "xtask/src/env/flags.rs",
];

/// What decided the artifacts of a report.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize, PartialEq)]
pub struct Inputs {
    /// `fnv1a64:` and the hash of each input file's path and contents (the
    /// files on disk, tracked or not, in path order; see [`input_files`])
    /// and of `rustc -vV`.
    pub hash: String,
    /// Whether any input file differs from the commit or is not tracked
    /// (other files, such as the reports themselves, do not count); `false`
    /// in a tree without git, which has no commit to differ from.
    pub dirty: bool,
}

/// Whether `path` (relative to the tree's root, `/`-separated) is an
/// input: not a test, a bench or a markdown file.
fn is_input(path: &str) -> bool {
    !path.ends_with(".md")
        && !path
            .split('/')
            .any(|part| part == "tests" || part == "benches" || part == "tests.rs")
}

/// The inputs of this tree (see [`INPUT_PATHS`]).
pub fn inputs() -> Inputs {
    inputs_of(&root())
}

/// The inputs of the tree at `root` (this one, or the base tree of
/// `gate --against`). The files hashed are those on disk, not those git
/// lists: a tree without `.git` (a tarball, a vendored copy) and a new
/// source file not yet added change the hash as an edit does, so that an
/// artifact built from other sources is never taken as fresh.
pub fn inputs_of(root: &Path) -> Inputs {
    let mut h = Fnv::default();
    for path in input_files(root) {
        h.add(path.as_bytes());
        h.add(&std::fs::read(root.join(&path)).unwrap_or_else(|_| b"(unreadable)".to_vec()));
    }
    h.add(&rustc_vv());
    let mut status = vec!["status", "--porcelain", "--untracked-files=all", "--"];
    status.extend(INPUT_PATHS);
    Inputs {
        hash: format!("fnv1a64:{:016x}", h.finish()),
        dirty: git_output_in(root, &status)
            .is_some_and(|s| s.lines().any(|l| is_input(&l[3.min(l.len())..]))),
    }
}

/// The input files under `root` (see [`INPUT_PATHS`] and [`is_input`]),
/// relative, `/`-separated and sorted bytewise (the order `git ls-files`
/// gives, so that a clean checkout hashes as it did when git listed the
/// files); build directories (`target`) and `.git` are not walked.
fn input_files(root: &Path) -> Vec<String> {
    let mut files = Vec::new();
    for top in INPUT_PATHS {
        let walk = walkdir::WalkDir::new(root.join(top))
            .follow_links(false)
            .into_iter()
            .filter_entry(|e| {
                e.depth() == 0
                    || !(e.file_type().is_dir()
                        && matches!(e.file_name().to_str(), Some("target" | ".git")))
            });
        // A path that does not exist (`rust-toolchain`) is an error here
        // and no file; an unreadable directory is left out like it.
        for entry in walk.flatten().filter(|e| !e.file_type().is_dir()) {
            let Ok(rel) = entry.path().strip_prefix(root) else {
                continue;
            };
            let rel = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy())
                .collect::<Vec<_>>()
                .join("/");
            if is_input(&rel) {
                files.push(rel);
            }
        }
    }
    files.sort_unstable();
    files.dedup();
    files
}

/// FNV-1a, 64 bits (`fnv`, as every hash of the workspace), with each
/// part's length mixed in before it.
#[derive(Default)]
struct Fnv(fnv::FnvHasher);

impl Fnv {
    fn add(&mut self, bytes: &[u8]) {
        use std::hash::Hasher;
        self.0.write(&(bytes.len() as u64).to_le_bytes());
        self.0.write(bytes);
    }

    fn finish(&self) -> u64 {
        std::hash::Hasher::finish(&self.0)
    }
}

/// `rustc -vV`: the toolchain, to its commit and LLVM version.
fn rustc_vv() -> Vec<u8> {
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    Command::new(rustc)
        .arg("-vV")
        .output()
        .map(|o| o.stdout)
        .unwrap_or_default()
}

/// Today's date (UTC), from the system clock.
pub fn today() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    // Days to civil date (Howard Hinnant's algorithm).
    let z = (secs / 86_400) as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

/// Writes `bytes` to `path` through [`bench_harness::outfile`]: a
/// temporary file beside it, renamed over it, so that an interrupted run
/// leaves the previous file intact; only a regular file (or nothing) is
/// replaced, and no temporary is left behind on failure. The directory is
/// created if need be.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| Error::failed(format!("writing {}: {e}", path.display())))?;
    }
    outfile::write(path, bytes).map_err(|e| Error::failed(format!("writing {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inputs_are_what_builds_artifacts() {
        for path in [
            "variants/src/rfc2612.rs",
            "codegen/src/expand.rs",
            "Cargo.lock",
        ] {
            assert!(is_input(path), "{path}");
        }
        for path in [
            "variants/tests/cast6.rs",
            "codegen/tests/ui/bad.rs",
            "codegen/src/tests.rs",
            "variants/README.md",
        ] {
            assert!(!is_input(path), "{path}");
        }
        let here = inputs();
        assert!(here.hash.starts_with("fnv1a64:"), "{}", here.hash);
        assert_eq!(inputs().hash, here.hash, "the same tree, the same hash");
    }

    fn write(root: &Path, path: &str, text: &str) {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    /// A tree without git: the files on disk decide, so an edit, a new
    /// file or a removed one changes the hash; tests, markdown and build
    /// directories do not.
    #[test]
    fn inputs_without_git_are_the_files_on_disk() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        write(root, "Cargo.toml", "[workspace]\n");
        write(root, "variants/src/rfc2612.rs", "fn a() {}\n");
        assert_eq!(input_files(root), ["Cargo.toml", "variants/src/rfc2612.rs"]);
        let first = inputs_of(root);
        assert!(!first.dirty, "no git, no commit to differ from");
        assert_eq!(inputs_of(root), first);
        write(root, "variants/src/rfc2612.rs", "fn b() {}\n");
        let edited = inputs_of(root);
        assert_ne!(edited.hash, first.hash, "an edited cipher source");
        write(root, "variants/src/new.rs", "fn c() {}\n");
        let added = inputs_of(root);
        assert_ne!(added.hash, edited.hash, "a new source file");
        for ignored in [
            "variants/tests/new.rs",
            "variants/NOTES.md",
            "variants/target/release/x.rlib",
            "xtask/src/compare.rs",
        ] {
            write(root, ignored, "x");
            assert_eq!(inputs_of(root).hash, added.hash, "{ignored}");
        }
        std::fs::remove_file(root.join("variants/src/new.rs")).unwrap();
        assert_eq!(inputs_of(root).hash, edited.hash, "the file removed again");
    }

    /// In a git tree, a file not yet added under an input path is an input
    /// (and makes the tree dirty), as it is where git is absent.
    #[test]
    fn an_untracked_source_is_an_input() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        let git = |args: &[&str]| {
            let ok = Command::new("git")
                .args([
                    "-c",
                    "user.name=t",
                    "-c",
                    "user.email=t@t",
                    "-c",
                    "commit.gpgsign=false",
                ])
                .args(args)
                .current_dir(root)
                .output()
                .is_ok_and(|o| o.status.success());
            assert!(ok, "git {args:?}");
        };
        git(&["init", "-q"]);
        write(root, "variants/src/lib.rs", "mod a;\n");
        git(&["add", "."]);
        git(&["commit", "-q", "-m", "one"]);
        let clean = inputs_of(root);
        assert!(!clean.dirty);
        write(root, "variants/src/untracked.rs", "fn u() {}\n");
        let now = inputs_of(root);
        assert_ne!(now.hash, clean.hash);
        assert!(now.dirty, "an untracked input file is a change");
    }
}
