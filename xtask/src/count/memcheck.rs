//! Secret-dependent branches and indexes, seen by valgrind's memcheck
//! (`report/secrets.rs` says what it can and cannot see). Each artifact
//! runs in a child (`under-valgrind secrets`, bench-harness's
//! `under_valgrind/secrets.rs`) that marks
//! its key and data undefined by client requests around key setup and one
//! crypt per mode and direction; memcheck reports each location where a
//! conditional jump or move (a branch) or a memory address (an index)
//! depends on them, once per location (`--num-callers=1`), in XML read
//! here. Locations in the artifact's own file are kept, mapped to its
//! functions by its symbol table; the others (the harness's, libc's) are
//! not the artifact's. A run memcheck cannot finish is
//! [`Secrets::Unmeasured`], with why.

use crate::count::callgrind;
use crate::count::memo::{Key, Memo};
use crate::decide::secrets;
use crate::env::deadline::{self, Group, Waited};
use crate::intake::symbols::Symbols;
use crate::report::Report;
use crate::report::secrets::{Secrets, Site};
use crate::select::contenders::Contender;
use bench_harness::sampling::{Case, CaseKind};
use bench_harness::under_valgrind::secrets::SecretsOutcome;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

/// The cases memcheck runs of `cases` (a run's): key setup of each mode's
/// first key size, and for each mode and direction one crypt of its first
/// key size at the largest size up to 4 KiB (the bulk paths).
pub fn cases_of(cases: &[Case]) -> Vec<Case> {
    let mut out: Vec<Case> = Vec::new();
    for c in cases {
        let same = |o: &Case| o.kind == c.kind && o.mode == c.mode && o.dir == c.dir;
        match out.iter_mut().find(|o| same(o)) {
            None => out.push(*c),
            Some(o) if c.kind == CaseKind::Crypt && c.key_bytes == o.key_bytes => {
                if (c.block_bytes > o.block_bytes && c.block_bytes <= 4096) || o.block_bytes > 4096
                {
                    *o = *c;
                }
            }
            Some(_) => {}
        }
    }
    out
}

/// Memcheck's account of every contender built (the A/A control aside:
/// the reference's own file) in `cases` (a run's), before any timing: a
/// variant that depends on its secrets in a kind the reference does not
/// ([`secrets::leak`]) is screened out, with why, unless `allow_leaks`.
/// Each contender's account, by name, for [`attach`].
pub fn screen(
    contenders: &mut [Contender],
    reference: &str,
    cases: &[Case],
    dir: &Path,
    allow_leaks: bool,
) -> Vec<(String, Secrets)> {
    // A library peer's code is the library's, which the scan does not read
    // (only the artifact's own frames are kept): said so, never a clean
    // account.
    let (libraries, screened): (Vec<&Contender>, Vec<&Contender>) = (contenders.iter())
        .filter(|c| !c.is_control() && c.live().is_some())
        .partition(|c| c.library().is_some());
    let artifacts: Vec<(String, PathBuf)> = (screened.iter())
        .filter_map(|c| Some((c.name.clone(), c.live()?.so.clone())))
        .collect();
    let unscreened: Vec<(String, Secrets)> = (libraries.iter())
        .filter_map(|c| {
            let why = format!(
                "not screened: its code is {}'s, whose frames memcheck's account here leaves out",
                c.library()?.name.name()
            );
            Some((c.name.clone(), Secrets::Unmeasured { why }))
        })
        .collect();
    let cases = cases_of(cases);
    eprintln!(
        "looking for secret-dependent branches and indexes in {} artifacts with memcheck ({} cases each)",
        artifacts.len(),
        cases.len()
    );
    let start = Instant::now();
    let found: Vec<(String, Secrets)> = (artifacts.iter().map(|(n, _)| n.clone()))
        .zip(scan(&artifacts, &cases, dir))
        .chain(unscreened)
        .collect();
    eprintln!("    in {:.1}s", start.elapsed().as_secs_f64());
    let of = |name: &str| {
        let (_, s) = found.iter().find(|(n, _)| n == name)?;
        let (branches, indexes) = s.counts()?;
        Some(secrets::Dependence { branches, indexes })
    };
    let Some(base) = of(reference) else {
        return found;
    };
    for c in contenders
        .iter_mut()
        .filter(|c| !c.is_peer() && !c.is_control())
    {
        let Some(leak) = of(&c.name).and_then(|d| secrets::leak(d, base)) else {
            continue;
        };
        let why = leak.words(&format!("`{reference}`"));
        if allow_leaks {
            eprintln!("    `{}` {why}; kept", c.name);
        } else {
            eprintln!("    `{}` left out: {why}", c.name);
            c.screen_out(format!("{why}; `--allow-leaks` keeps it in the verdict"));
        }
    }
    found
}

/// Each contender's account from [`screen`] on its entry of `report`.
pub fn attach(report: &mut Report, found: Vec<(String, Secrets)>) {
    for (name, secrets) in found {
        if let Some(e) = report.entries_mut().find(|e| e.name == name) {
            e.secrets = Some(secrets);
        }
    }
}

/// Memcheck's account of each of `artifacts` (`(name, path)`) in `cases`:
/// one valgrind run per core (at most four), each loading its share of the
/// artifacts into one process, all kept loaded so that no two share an
/// address; a run that fails (an artifact crashes it, or hangs) is done
/// again one artifact at a time, so that only the culprit is unmeasured.
/// Its files in `dir` (scratch).
pub fn scan(artifacts: &[(String, PathBuf)], cases: &[Case], dir: &Path) -> Vec<Secrets> {
    if callgrind::check().is_err() {
        let why = "valgrind is not installed (memcheck sees secret-dependent branches and indexes)"
            .to_string();
        return artifacts
            .iter()
            .map(|_| Secrets::Unmeasured { why: why.clone() })
            .collect();
    }
    // The same file in the same cases was scanned before in this process.
    let keys: Vec<Option<Key>> = (artifacts.iter())
        .map(|(_, so)| Key::of(so, &cases))
        .collect();
    let known: Vec<Option<Secrets>> = (keys.iter())
        .map(|k| k.as_ref().and_then(|k| SCANNED.get(k)))
        .collect();
    let fresh: Vec<(String, PathBuf)> = (artifacts.iter().zip(&known))
        .filter(|(_, k)| k.is_none())
        .map(|(a, _)| a.clone())
        .collect();
    let mut found = scan_fresh(&fresh, cases, dir).into_iter();
    let all: Vec<Secrets> = (known.into_iter())
        .map(|k| {
            k.or_else(|| found.next())
                .unwrap_or_else(|| Secrets::Unmeasured {
                    why: "its memcheck run gave no account of it".into(),
                })
        })
        .collect();
    for (key, secrets) in keys.into_iter().zip(&all) {
        if let (Some(key), Secrets::Measured { .. }) = (key, secrets) {
            SCANNED.put(key, secrets.clone());
        }
    }
    all
}

/// Every artifact memcheck measured in this process, by its bytes and
/// cases.
static SCANNED: Memo<Secrets> = Memo::new();

/// [`scan`] of the artifacts not scanned before.
fn scan_fresh(artifacts: &[(String, PathBuf)], cases: &[Case], dir: &Path) -> Vec<Secrets> {
    if artifacts.is_empty() {
        return Vec::new();
    }
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get().min(4));
    let sos: Vec<&Path> = artifacts.iter().map(|(_, so)| so.as_path()).collect();
    let share = sos.len().div_ceil(workers).max(1);
    std::thread::scope(|s| {
        let handles: Vec<_> = (sos.chunks(share).enumerate())
            .map(|(k, chunk)| {
                s.spawn(move || {
                    let stem = dir.join(format!("secrets-{k}"));
                    match run_child(chunk, cases, &stem) {
                        Ok(found) => found,
                        Err(_) => (chunk.iter().enumerate())
                            .map(|(i, so)| {
                                let stem = dir.join(format!("secrets-{k}-{i}"));
                                run_child(&[so], cases, &stem).map_or_else(
                                    |why| Secrets::Unmeasured { why },
                                    |mut f| f.remove(0),
                                )
                            })
                            .collect(),
                    }
                })
            })
            .collect();
        (handles.into_iter())
            .flat_map(|h| {
                h.join().unwrap_or_else(|_| {
                    vec![Secrets::Unmeasured {
                        why: "its memcheck run ended with its thread".into(),
                    }]
                })
            })
            .collect()
    })
}

/// The artifacts `sos` under one memcheck run, its files under `stem`
/// (`.cases.json`, `.outcome.json`, `.xml`, `.stderr`): each one's account,
/// in order; an error when the run itself failed.
fn run_child(sos: &[&Path], cases: &[Case], stem: &Path) -> Result<Vec<Secrets>, String> {
    let file = |ext: &str| stem.with_extension(ext);
    let (spec, outcome, xml, err) = (
        file("cases.json"),
        file("outcome.json"),
        file("xml"),
        file("stderr"),
    );
    let json = serde_json::to_vec(cases).map_err(|e| e.to_string())?;
    std::fs::write(&spec, json).map_err(|e| format!("{}: {e}", spec.display()))?;
    for stale in [&outcome, &xml] {
        let _ = std::fs::remove_file(stale);
    }
    let program = super::program::path()?;
    let stderr = std::fs::File::create(&err).map_err(|e| format!("{}: {e}", err.display()))?;
    let mut cmd = Command::new("valgrind");
    cmd.args([
        "--tool=memcheck",
        // No gdbserver: its FIFOs in /tmp would outlive a process killed
        // at its deadline.
        "--vgdb=no",
        "--xml=yes",
        "--num-callers=1",
        "--error-limit=no",
        "--leak-check=no",
        "--undef-value-errors=yes",
        // Only frames in the artifact count (`parse`), which has no debug
        // info: the inlining tables of xtask's own would be read at every
        // start for nothing.
        "--read-inline-info=no",
    ])
    .arg(format!("--xml-file={}", xml.display()))
    .arg(program)
    .arg("secrets")
    .args([&spec, &outcome])
    .args(sos)
    .stdout(Stdio::null())
    .stderr(stderr);
    let mut child =
        deadline::spawn(&mut cmd, Group::Own).map_err(|e| format!("running valgrind: {e}"))?;
    let status = match deadline::wait(&mut child, deadline::count(sos.len()), Group::Own)
        .map_err(|e| format!("waiting for valgrind: {e}"))?
    {
        Waited::Exited(status) => status,
        Waited::Hung(limit) => {
            return Err(format!(
                "memcheck was still running at its deadline of {:.0} s, killed",
                limit.as_secs_f64()
            ));
        }
    };
    if !status.success() {
        let text = std::fs::read_to_string(&err).unwrap_or_default();
        let last = super::last_words(&text);
        return Err(format!("memcheck could not run it ({status}; {last})"));
    }
    let outcomes: Vec<SecretsOutcome> = std::fs::read(&outcome)
        .map_err(|e| e.to_string())
        .and_then(|b| serde_json::from_slice(&b).map_err(|e| e.to_string()))
        .map_err(|e| format!("{}: {e}", outcome.display()))?;
    if outcomes.len() != sos.len() {
        return Err(format!(
            "{}: {} artifacts, not {}",
            outcome.display(),
            outcomes.len(),
            sos.len()
        ));
    }
    let text = std::fs::read_to_string(&xml).map_err(|e| format!("{}: {e}", xml.display()))?;
    Ok((sos.iter().zip(outcomes))
        .map(|(so, o)| secrets_of(so, o, &text).unwrap_or_else(|why| Secrets::Unmeasured { why }))
        .collect())
}

/// One artifact's account from its outcome in the child and the run's XML.
fn secrets_of(so: &Path, outcome: SecretsOutcome, xml: &str) -> Result<Secrets, String> {
    let ran = match outcome {
        SecretsOutcome::Ran(ran) => ran,
        SecretsOutcome::Unavailable(why) => {
            return Err(format!("unavailable on the CPU valgrind emulates: {why}"));
        }
        SecretsOutcome::NotLoaded(why) => return Err(why),
    };
    if let Some(why) = ran.failed {
        return Err(format!("a case failed under memcheck: {why}"));
    }
    let found = parse(xml, so)?;
    let symbols = Symbols::read(so)?;
    let crypt = (symbols.address_of(abi::symbol::CRYPT))
        .ok_or_else(|| format!("{}: no {}", so.display(), abi::symbol::CRYPT))?;
    let base = (ran.crypt_address.checked_sub(crypt))
        .ok_or_else(|| format!("{} loaded below its own address", abi::symbol::CRYPT))?;
    let sites = |ips: &[u64]| -> Vec<Site> {
        let mut s: Vec<Site> = (ips.iter())
            .map(|&ip| {
                let offset = ip.wrapping_sub(base);
                Site {
                    function: symbols.function_at(offset).unwrap_or("?").to_string(),
                    offset,
                }
            })
            .collect();
        s.sort();
        s.dedup();
        s
    };
    Ok(Secrets::Measured {
        branches: sites(&found.branches),
        indexes: sites(&found.indexes),
    })
}

/// The instruction addresses memcheck reported in one file.
#[derive(Debug, Default, PartialEq)]
pub struct Found {
    /// `UninitCondition`: a conditional jump or move on an undefined value.
    pub branches: Vec<u64>,
    /// `UninitValue`: an undefined value used as an address.
    pub indexes: Vec<u64>,
}

/// The errors in memcheck's XML whose top frame lies in the object `so`
/// (other objects are the harness's or libc's).
pub fn parse(xml: &str, so: &Path) -> Result<Found, String> {
    let doc = roxmltree::Document::parse(xml).map_err(|e| format!("memcheck's XML: {e}"))?;
    let canonical = std::fs::canonicalize(so).unwrap_or_else(|_| so.to_path_buf());
    let ours = |obj: &str| Path::new(obj) == so || Path::new(obj) == canonical;
    let mut found = Found::default();
    let child = |n: roxmltree::Node<'_, '_>, tag: &str| {
        n.children()
            .find(|c| c.has_tag_name(tag))
            .and_then(|c| c.text())
            .map(str::to_string)
    };
    for error in doc.descendants().filter(|n| n.has_tag_name("error")) {
        let Some(kind) = child(error, "kind") else {
            continue;
        };
        let Some(frame) = (error.children())
            .find(|c| c.has_tag_name("stack"))
            .and_then(|s| s.children().find(|c| c.has_tag_name("frame")))
        else {
            continue;
        };
        if !child(frame, "obj").is_some_and(|o| ours(&o)) {
            continue;
        }
        let Some(ip) = child(frame, "ip")
            .and_then(|ip| u64::from_str_radix(ip.trim_start_matches("0x"), 16).ok())
        else {
            continue;
        };
        match kind.as_str() {
            "UninitCondition" => found.branches.push(ip),
            "UninitValue" => found.indexes.push(ip),
            _ => {}
        }
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    const XML: &str = r#"<?xml version="1.0"?>
<valgrindoutput>
<error>
  <unique>0x0</unique><tid>1</tid>
  <kind>UninitCondition</kind>
  <what>Conditional jump or move depends on uninitialised value(s)</what>
  <stack><frame><ip>0x4A2B010</ip><obj>/t/a.so</obj><fn>toy::branch</fn></frame></stack>
</error>
<error>
  <unique>0x1</unique><tid>1</tid>
  <kind>UninitValue</kind>
  <what>Use of uninitialised value of size 8</what>
  <stack><frame><ip>0x4A2B100</ip><obj>/t/a.so</obj><fn>toy::lookup</fn></frame></stack>
</error>
<error>
  <unique>0x2</unique><tid>1</tid>
  <kind>UninitValue</kind>
  <what>Use of uninitialised value of size 8</what>
  <stack><frame><ip>0x10000</ip><obj>/t/xtask</obj></frame></stack>
</error>
<error>
  <unique>0x3</unique><tid>1</tid>
  <kind>SyscallParam</kind>
  <stack><frame><ip>0x4A2B200</ip><obj>/t/a.so</obj></frame></stack>
</error>
</valgrindoutput>"#;

    #[test]
    fn branches_and_indexes_of_the_artifact_alone() {
        let found = parse(XML, Path::new("/t/a.so")).unwrap();
        assert_eq!(
            found,
            Found {
                branches: vec![0x4A2B010],
                indexes: vec![0x4A2B100],
            }
        );
        assert_eq!(parse(XML, Path::new("/t/b.so")).unwrap(), Found::default());
        assert!(parse("<valgrindoutput>", Path::new("/t/a.so")).is_err());
    }

    #[test]
    fn one_crypt_per_mode_and_direction_at_the_largest_size_to_4_kib() {
        use bench_harness::engine::{Dir, Mode};
        let cases = [
            Case::crypt(Mode::Ecb, Dir::Encrypt, 16, 16),
            Case::crypt(Mode::Ecb, Dir::Encrypt, 16, 4096),
            Case::crypt(Mode::Ecb, Dir::Encrypt, 16, 8192),
            Case::crypt(Mode::Ecb, Dir::Encrypt, 32, 4096),
            Case::crypt(Mode::Ecb, Dir::Decrypt, 16, 64),
            Case::set_key(Mode::Ecb, 16),
            Case::set_key(Mode::Ecb, 32),
        ];
        assert_eq!(
            cases_of(&cases),
            vec![
                Case::crypt(Mode::Ecb, Dir::Encrypt, 16, 4096),
                Case::crypt(Mode::Ecb, Dir::Decrypt, 16, 64),
                Case::set_key(Mode::Ecb, 16),
            ]
        );
    }
}
