//! What the integration tests share: running the xtask binary within a
//! time limit, the usage-error check, scratch directories, the workspace
//! root, where cargo unpacked a registry crate, a report's entry by name.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};
use tempfile::TempDir;

/// The xtask binary as a command, told where the program valgrind runs
/// is: this test's cargo built it and holds the build directory, so xtask
/// must not run cargo to build it (`count/program.rs`).
pub fn xtask_command() -> Command {
    fetch_once();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_xtask"));
    cmd.env(
        "INLINELAB_UNDER_VALGRIND",
        env!("CARGO_BIN_EXE_under-valgrind"),
    );
    cmd
}

/// Once per test process, `cargo fetch` of the workspace's lockfile: the
/// `--offline` runs resolve the fixtures' dependencies from cargo's cache,
/// and a fresh machine's cache lacks those no build of the workspace
/// downloads (`aead`, which only the shim turns on in the artifact). With
/// everything cached it reads no network; where it fails, the offline runs
/// say what is missing.
fn fetch_once() {
    static FETCHED: std::sync::Once = std::sync::Once::new();
    FETCHED.call_once(|| {
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let _ = Command::new(cargo)
            .args(["fetch", "--quiet", "--manifest-path"])
            .arg(root().join("Cargo.toml"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    });
}

/// A short, cheap `compare --crate` of the crate at `crate_dir` (offline,
/// `--quick`, three rounds of `size`-byte blocks): `variants` besides
/// `published`, with `extra` options and `fault` injected.
pub fn quick_crate_run(
    crate_dir: &Path,
    size: &str,
    extra: &[&str],
    variants: &str,
    out: &Path,
    fault: Option<&str>,
) -> Output {
    let mut cmd = xtask_command();
    cmd.args(["compare", "--crate"])
        .arg(crate_dir)
        .args(["--offline", "--quick"])
        .args(extra)
        .args(["--variants", variants])
        .args([
            "--sizes", size, "--rounds", "3", "--sec", "0.003", "--budget", "0.001",
        ])
        .arg("--out")
        .arg(out)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(f) = fault {
        cmd.env("INLINELAB_FAULT", f);
    }
    cmd.output().expect("xtask runs")
}

/// Runs xtask, killing it after `limit` (a hang is a failure, not a stuck
/// test).
pub fn xtask_within(args: &[&str], limit: Duration) -> Output {
    let mut child = xtask_command()
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("xtask runs");
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > limit {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            panic!(
                "{args:?}: still running after {limit:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

pub fn xtask(args: &[&str]) -> Output {
    xtask_within(args, Duration::from_secs(60))
}

/// Exit 2, one line of cause containing `expected`, one hint; nothing built
/// or measured.
pub fn check_usage(args: &[&str], expected: &str) -> String {
    let out = xtask(args);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 2, "{args:?}: one line and a hint: {stderr}");
    assert!(
        lines[0].contains(expected),
        "{args:?}: `{}` lacks `{expected}`",
        lines[0]
    );
    assert!(lines[1].starts_with("hint: "), "{args:?}: {stderr}");
    assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    stderr
}

/// [`check_usage`] for a command that prints progress first (the intake):
/// exit 2 within `limit`, one `xtask:` line containing `expected` and one
/// `hint:` among its lines, and `out_dir` not created.
pub fn check_refused(args: &[&str], expected: &str, limit: Duration, out_dir: &Path) {
    let o = xtask_within(args, limit);
    let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(2), "{args:?}: {stderr}");
    let lines: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("xtask: ") || l.starts_with("hint: "))
        .collect();
    assert_eq!(lines.len(), 2, "{args:?}: {stderr}");
    assert!(
        lines[0].contains(expected),
        "{args:?}: `{}` lacks `{expected}`",
        lines[0]
    );
    assert!(!out_dir.exists(), "{args:?}: --out was created");
}

pub fn scratch(name: &str) -> TempDir {
    tempfile::Builder::new()
        .prefix(&format!("xtask-test-{name}-"))
        .tempdir()
        .unwrap()
}

pub fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// A fixture crate of `xtask/tests/fixtures`.
pub fn fixture(name: &str) -> PathBuf {
    root().join("xtask/tests/fixtures").join(name)
}

/// Copies the tree at `from` to `to` (a `target/` or `.git` left out).
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let name = e.file_name();
        if name == "target" || name == ".git" {
            continue;
        }
        let (src, dst) = (e.path(), to.join(&name));
        if e.file_type().unwrap().is_dir() {
            copy_tree(&src, &dst);
        } else {
            std::fs::copy(&src, &dst).unwrap();
        }
    }
}

/// Every file under `dir` with its bytes.
pub fn files(dir: &Path) -> std::collections::BTreeMap<PathBuf, Vec<u8>> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .flatten()
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            let rel = e.path().strip_prefix(dir).unwrap().to_path_buf();
            (rel, std::fs::read(e.path()).unwrap())
        })
        .collect()
}

/// The workspace's target directory as cargo (and so xtask) has it:
/// `CARGO_TARGET_DIR` or the build configuration's, else `target/`.
pub fn target_dir() -> PathBuf {
    let out = Command::new(env!("CARGO"))
        .args(["metadata", "--format-version", "1", "--no-deps"])
        .current_dir(root())
        .output()
        .expect("cargo metadata runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    PathBuf::from(
        meta["target_directory"]
            .as_str()
            .expect("a target directory"),
    )
}

/// Where cargo unpacked the registry's `name-version`.
pub fn registry_src(package: &str) -> Option<PathBuf> {
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))?;
    std::fs::read_dir(home.join("registry/src"))
        .ok()?
        .flatten()
        .map(|index| index.path().join(package))
        .find(|p| p.is_dir())
}

/// The entry of the variant `name` in a report's JSON.
pub fn entry<'a>(json: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    json["variants"]
        .as_array()
        .expect("a report's variants")
        .iter()
        .find(|e| e["name"] == name)
        .unwrap_or_else(|| panic!("no entry {name}"))
}

/// The report `name.json` under `out`, parsed.
pub fn report_json(out: &Path, name: &str) -> serde_json::Value {
    let path = out.join(format!("{name}.json"));
    serde_json::from_slice(&std::fs::read(&path).unwrap_or_else(|e| panic!("{path:?}: {e}")))
        .unwrap_or_else(|e| panic!("{path:?}: {e}"))
}

/// `git` in `repo` as a test's user (no signing), which must succeed.
pub fn git_in(repo: &Path, args: &[&str]) {
    let out = Command::new("git")
        .current_dir(repo)
        .args(["-c", "user.name=inlinelab test"])
        .args(["-c", "user.email=test@inlinelab.invalid"])
        .args(["-c", "commit.gpgsign=false"])
        .args(args)
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The fixture `name` copied to `to` and committed there: a repository of
/// one commit, as a crate's maintainer has it.
pub fn fixture_repository(name: &str, to: &Path) -> PathBuf {
    copy_tree(&fixture(name), to);
    git_in(to, &["init", "-q"]);
    git_in(to, &["add", "-A"]);
    git_in(to, &["commit", "-q", "-m", name]);
    to.to_path_buf()
}

/// `gate --crate REPO --against HEAD --offline --no-time` of a fixture
/// repository's working tree, its comment written under `dir`: the run and
/// the comment (empty when none was written).
pub fn gate_working_tree(repo: &Path, dir: &Path) -> (Output, String) {
    let comment = dir.join("gate.md");
    let args = [
        "gate",
        "--crate",
        s(repo),
        "--against",
        "HEAD",
        "--offline",
        "--no-time",
        "--comment",
        s(&comment),
    ];
    let out = xtask_within(&args, Duration::from_secs(900));
    let md = std::fs::read_to_string(&comment).unwrap_or_default();
    (out, md)
}

/// How many of a crate report's annotation rows are at a location in
/// `file` (`src/lib.rs:`).
pub fn annotation_rows_in(json: &serde_json::Value, file: &str) -> usize {
    (json["annotations"]["rows"]
        .as_array()
        .expect("annotation rows")
        .iter())
    .filter(|r| r["location"].as_str().unwrap_or_default().starts_with(file))
    .count()
}

/// The fixture `name` made a git repository under `dir`, the first round
/// function's `#[inline(always)]` in `file` (in its `macro_rules!` body)
/// made `#[inline(never)]` in the working tree, and gated against its
/// commit: exit 1, the comment's title names the crate and `ty`, and it
/// names `function` (`toystream::block::r0`); the comment, for the kind's
/// own cases.
pub fn gate_a_round_function_made_never(
    name: &str,
    file: &str,
    function: &str,
    ty: &str,
    dir: &Path,
) -> String {
    let repo = fixture_repository(name, &dir.join(name));
    let path = repo.join(file);
    let text = std::fs::read_to_string(&path).unwrap();
    let changed = text.replacen(
        "#[inline(always)]\n            fn $name",
        "#[inline(never)]\n            fn $name",
        1,
    );
    assert_eq!(text.len(), changed.len() + 1, "the edit made");
    std::fs::write(&path, changed).unwrap();
    let (out, md) = gate_working_tree(&repo, dir);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(md.contains(function), "a round function named: {md}");
    assert!(
        md.contains(&format!(
            "## inlinelab gate: crate {name} (0.1.0), type {ty}"
        )),
        "{md}"
    );
    md
}

/// What every kind's decided run checks alike: `drop_1`, made wrong, a
/// failed row whose reason contains `why`; `published` timed under a
/// 32-byte key in each of `dirs` of the kernel name `alg`.
pub fn drop_1_refused_and_published_timed(
    json: &serde_json::Value,
    why: &str,
    alg: &str,
    dirs: &[&str],
) {
    let e = entry(json, "drop_1");
    assert_eq!(e["status"], "failed", "{e}");
    assert!(e["reason"].as_str().unwrap().contains(why), "{e}");
    let speed = entry(json, "published")["speed"].as_array().unwrap();
    for dir in dirs {
        assert!(
            (speed.iter()).any(|s| s["dir"] == *dir && s["alg"] == alg && s["key_bits"] == 256),
            "{dir} under a 32-byte key: {speed:?}"
        );
    }
}
