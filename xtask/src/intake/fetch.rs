//! Where a crate's source is: for `NAME@VERSION`, cargo fetches the package
//! into its own cache as it fetches any dependency (a scratch package that
//! depends on exactly that version, read with `cargo metadata`); for a
//! path, its workspace is copied into this tool's work directory and
//! `cargo package` writes the crate as it would be published (a member of
//! a workspace with its inherited fields filled in) from that copy, so
//! that cargo's writes (a stale `Cargo.lock` brought up to date) land in
//! the copy ([`in_place`] reads a local crate where it is, `cargo metadata
//! --no-deps`, which resolves and writes nothing). Nothing is downloaded
//! by hand, and the user's files are only read: every variant is built
//! from a copy (`copy.rs`).

use crate::env::workspace;
use crate::error::{Error, Result};
use crate::intake::spec::Spec;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A crate's package, as cargo has it.
#[derive(Clone, Debug)]
pub struct Package {
    pub name: String,
    pub version: String,
    /// The library's name, which prefixes its symbols (`md5` for `md-5`).
    pub lib_name: String,
    /// The package's directory: read only.
    pub dir: PathBuf,
    /// Whether it came from the registry (and so is timed as a peer too).
    pub from_registry: bool,
}

impl Package {
    /// What its artifacts say they hold before `::variant`: `cast6@0.2.0`.
    pub fn holds(&self) -> String {
        format!("{}@{}", self.name, self.version)
    }
}

/// Finds (fetching if need be) the package `spec` names, using `work` for
/// scratch files. `offline`: cargo uses only what it has cached.
pub fn fetch(spec: &Spec, work: &Path, offline: bool) -> Result<Package> {
    match spec {
        Spec::Registry { name, version } => registry(name, version, work, offline),
        Spec::Path(manifest) => local(manifest, work, offline),
    }
}

/// A scratch package depending on `name = "=version"`, resolved with the
/// workspace's lock file as its start (the same versions of what they
/// share), and read back with `cargo metadata`.
fn registry(name: &str, version: &str, work: &Path, offline: bool) -> Result<Package> {
    let dir = work.join("fetch");
    let fail = |e: &dyn std::fmt::Display| Error::failed(format!("{}: {e}", dir.display()));
    std::fs::create_dir_all(&dir).map_err(|e| fail(&e))?;
    let manifest = format!(
        "[package]\nname = \"inlinelab-fetch\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n\
         [lib]\npath = \"lib.rs\"\n\n[dependencies]\n{name} = \"={version}\"\n\n[workspace]\n"
    );
    std::fs::write(dir.join("Cargo.toml"), manifest).map_err(|e| fail(&e))?;
    std::fs::write(dir.join("lib.rs"), "").map_err(|e| fail(&e))?;
    let lock = workspace::root().join("Cargo.lock");
    std::fs::copy(&lock, dir.join("Cargo.lock")).map_err(|e| fail(&e))?;
    let meta = metadata(&dir.join("Cargo.toml"), false, offline).map_err(|why| {
        let hint = if offline {
            "without --offline cargo fetches it; with it, only what cargo has cached is used"
        } else {
            "check the name and version on crates.io (cargo search NAME)"
        };
        Error::usage(format!("--crate {name}@{version}: {why}"), hint)
    })?;
    let package = (meta["packages"].as_array().into_iter().flatten())
        .find(|p| p["name"] == name && p["version"] == version)
        .ok_or_else(|| Error::failed(format!("cargo metadata did not list {name} {version}")))?;
    read_package(package, true)
}

/// A dependency of the crate as its build resolves it (`--also`): the
/// registry's package, read only, and the features the build turns on.
#[derive(Clone, Debug)]
pub struct Resolved {
    pub package: Package,
    pub features: Vec<String>,
}

/// The packages `names` names among the dependencies (normal ones, at any
/// depth) of the package whose manifest is `of`, as the package at
/// `manifest` (a shim over it, its lock file beside it) resolves them:
/// each from crates.io, in one version, else a usage error.
pub fn dependencies(
    manifest: &Path,
    of: &Path,
    names: &[String],
    offline: bool,
) -> Result<Vec<Resolved>> {
    let meta = metadata(manifest, false, offline)
        .map_err(|why| Error::failed(format!("{}: {why}", manifest.display())))?;
    let packages: Vec<&serde_json::Value> =
        meta["packages"].as_array().into_iter().flatten().collect();
    let root = (packages.iter())
        .find(|p| p["manifest_path"].as_str().map(Path::new) == Some(of))
        .and_then(|p| p["id"].as_str())
        .ok_or_else(|| Error::failed(format!("cargo metadata did not list {}", of.display())))?;
    let nodes: Vec<&serde_json::Value> = (meta["resolve"]["nodes"].as_array().into_iter())
        .flatten()
        .collect();
    let node = |id: &str| nodes.iter().find(|n| n["id"] == id).copied();
    // The crate's normal dependencies, at any depth.
    let mut closure: Vec<String> = Vec::new();
    let mut queue = vec![root.to_string()];
    while let Some(id) = queue.pop() {
        for d in node(&id)
            .into_iter()
            .flat_map(|n| n["deps"].as_array().into_iter().flatten())
        {
            let normal =
                (d["dep_kinds"].as_array().into_iter().flatten()).any(|k| k["kind"].is_null());
            let Some(pkg) = d["pkg"].as_str().filter(|_| normal) else {
                continue;
            };
            if !closure.iter().any(|c| c == pkg) {
                closure.push(pkg.to_string());
                queue.push(pkg.to_string());
            }
        }
    }
    let listed: Vec<&&serde_json::Value> = (packages.iter())
        .filter(|p| closure.iter().any(|c| p["id"] == c.as_str()))
        .collect();
    let crate_name = (packages.iter())
        .find(|p| p["id"] == root)
        .map_or("the crate", |p| p["name"].as_str().unwrap_or("the crate"));
    let mut known: Vec<&str> = listed.iter().filter_map(|p| p["name"].as_str()).collect();
    known.sort_unstable();
    known.dedup();
    names
        .iter()
        .map(|name| {
            let found: Vec<&&&serde_json::Value> =
                listed.iter().filter(|p| p["name"] == name.as_str()).collect();
            let p = match found.as_slice() {
                [] => {
                    return Err(Error::usage(
                        format!("--also {name}: not a dependency of {crate_name} as its build resolves it"),
                        format!("name dependencies of its lock: {}", known.join(", ")),
                    ));
                }
                [p] => p,
                several => {
                    let versions: Vec<&str> =
                        several.iter().filter_map(|p| p["version"].as_str()).collect();
                    return Err(Error::usage(
                        format!("--also {name}: the build has {} versions of it ({})", several.len(), versions.join(", ")),
                        "name a dependency the build has in one version",
                    ));
                }
            };
            let from_crates_io = p["source"]
                .as_str()
                .is_some_and(|s| {
                    (s.starts_with("registry+") || s.starts_with("sparse+"))
                        && (s.contains("crates.io-index") || s.contains("index.crates.io"))
                });
            if !from_crates_io {
                return Err(Error::usage(
                    format!("--also {name}: not from crates.io (a path or git dependency), which the shim cannot patch"),
                    "name a dependency the crate takes from crates.io",
                ));
            }
            let features = (node(p["id"].as_str().unwrap_or_default()))
                .and_then(|n| n["features"].as_array())
                .into_iter()
                .flatten()
                .filter_map(|f| f.as_str().map(str::to_string))
                .collect();
            Ok(Resolved {
                package: read_package(p, true)?,
                features,
            })
        })
        .collect()
}

/// A local crate: its workspace copied into `work` (its `target/` and
/// `.git` left out), then `cargo package` makes there what publishing
/// would (inherited workspace fields filled in, sibling path dependencies
/// as their versions); the result is unpacked in `work`.
fn local(manifest: &Path, work: &Path, offline: bool) -> Result<Package> {
    let (found, root) = read_in_place(manifest, offline)?;
    let (name, version) = (found.name.clone(), found.version.clone());
    let copy_root = work.join("source");
    crate::intake::copy::copy_package(&root, &copy_root)?;
    let copied = copy_root.join(manifest.strip_prefix(&root).map_err(|_| {
        Error::failed(format!(
            "{} is not under its workspace's root {}",
            manifest.display(),
            root.display()
        ))
    })?);
    let target = work.join("package");
    let mut cmd = workspace::cargo();
    cmd.args([
        "package",
        "--no-verify",
        "--allow-dirty",
        "--quiet",
        "--manifest-path",
    ])
    .arg(&copied)
    .args(["--package", &name, "--target-dir"])
    .arg(&target);
    if offline {
        cmd.arg("--offline");
    }
    run(&mut cmd).map_err(|why| {
        Error::usage(
            format!(
                "--crate {}: cargo package failed: {why}",
                manifest.display()
            ),
            "the crate must be one cargo can package (every dependency with a version)",
        )
    })?;
    let archive = target
        .join("package")
        .join(format!("{name}-{version}.crate"));
    let unpacked = work.join("unpacked");
    let _ = std::fs::remove_dir_all(&unpacked);
    std::fs::create_dir_all(&unpacked)
        .map_err(|e| Error::failed(format!("{}: {e}", unpacked.display())))?;
    run(Command::new("tar")
        .arg("-xzf")
        .arg(&archive)
        .arg("-C")
        .arg(&unpacked))
    .map_err(|why| Error::failed(format!("unpacking {}: {why}", archive.display())))?;
    Ok(Package {
        dir: unpacked.join(format!("{name}-{version}")),
        ..found
    })
}

/// A local crate where it is (its directory, a workspace's member among
/// its siblings): what `cargo metadata` says of the package whose manifest
/// is `manifest`, read without resolving anything (nothing written).
pub fn in_place(manifest: &Path, offline: bool) -> Result<Package> {
    Ok(read_in_place(manifest, offline)?.0)
}

/// [`in_place`], and the root of the workspace the crate is in (its own
/// directory when it is none's member).
fn read_in_place(manifest: &Path, offline: bool) -> Result<(Package, PathBuf)> {
    let meta = metadata(manifest, true, offline).map_err(|why| {
        Error::usage(
            format!("--crate {}: {why}", manifest.display()),
            "give the path of a crate that cargo can read",
        )
    })?;
    let package = (meta["packages"].as_array().into_iter().flatten())
        .find(|p| p["manifest_path"].as_str().map(Path::new) == Some(manifest))
        .ok_or_else(|| {
            Error::usage(
                format!(
                    "--crate {}: a virtual workspace, not a crate",
                    manifest.display()
                ),
                "give the path of one of its members",
            )
        })?;
    let package = read_package(package, false)?;
    let root = (meta["workspace_root"].as_str()).map_or_else(|| package.dir.clone(), PathBuf::from);
    Ok((package, root))
}

/// The facts of one package of `cargo metadata`'s output.
fn read_package(p: &serde_json::Value, from_registry: bool) -> Result<Package> {
    let manifest = PathBuf::from(p["manifest_path"].as_str().unwrap_or_default());
    let name = p["name"].as_str().unwrap_or_default().to_string();
    let lib = (p["targets"].as_array().into_iter().flatten())
        .find(|t| (t["kind"].as_array().into_iter().flatten()).any(|k| k == "lib" || k == "rlib"));
    let Some(lib) = lib else {
        return Err(Error::usage(
            format!("--crate {name}: it has no library to call"),
            "give a library crate that implements the cipher traits",
        ));
    };
    Ok(Package {
        version: p["version"].as_str().unwrap_or_default().to_string(),
        lib_name: lib["name"].as_str().unwrap_or(&name).replace('-', "_"),
        name,
        dir: manifest.parent().unwrap_or(Path::new(".")).to_path_buf(),
        from_registry,
    })
}

/// `cargo metadata` of `manifest`, or the first error line cargo gave.
fn metadata(
    manifest: &Path,
    no_deps: bool,
    offline: bool,
) -> std::result::Result<serde_json::Value, String> {
    let mut cmd = workspace::cargo();
    cmd.args(["metadata", "--format-version", "1", "--manifest-path"])
        .arg(manifest);
    if no_deps {
        cmd.arg("--no-deps");
    }
    if offline {
        cmd.arg("--offline");
    }
    let out = run(&mut cmd)?;
    serde_json::from_slice(&out).map_err(|e| format!("cargo metadata's output: {e}"))
}

/// Runs `cmd`, its standard output, or the first line of its errors.
pub fn run(cmd: &mut Command) -> std::result::Result<Vec<u8>, String> {
    let out = cmd
        .output()
        .map_err(|e| format!("running {:?}: {e}", cmd.get_program()))?;
    if out.status.success() {
        return Ok(out.stdout);
    }
    Err(first_error(&String::from_utf8_lossy(&out.stderr)))
}

/// The line of cargo's (or rustc's) errors that says what went wrong: the
/// first `error` line, with the line after it when that one only
/// introduces it (cargo's "failed to select a version" is followed by the
/// reason).
pub fn first_error(stderr: &str) -> String {
    let lines: Vec<&str> = stderr
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let Some(i) = lines.iter().position(|l| l.starts_with("error")) else {
        return lines.last().map_or("failed".into(), |l| l.to_string());
    };
    let first = lines[i].trim_start_matches("error:").trim();
    match lines.get(i + 1) {
        Some(next) if first.ends_with(':') || first.is_empty() => format!("{first} {next}"),
        _ => first.to_string(),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_first_error_says_why() {
        let stderr = "    Updating crates.io index\nerror: failed to select a version for the requirement `cast6 = \"=9.9.9\"`\ncandidate versions found which didn't match: 0.2.0, 0.1.1\n";
        assert_eq!(
            super::first_error(stderr),
            "failed to select a version for the requirement `cast6 = \"=9.9.9\"`"
        );
        assert_eq!(
            super::first_error(
                "error: no matching package named `nope` found\nlocation searched: crates.io index\n"
            ),
            "no matching package named `nope` found"
        );
    }
}
