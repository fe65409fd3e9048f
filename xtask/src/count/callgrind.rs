//! Instructions per operation, counted by valgrind's callgrind: repeatable
//! for the same binary and inputs whatever else the machine does, which is
//! what a gate on shared CI machines needs. Our own runner rather than a
//! benchmark framework such as gungraun: the code measured is a loaded `.so`
//! whose two entry points (`inlinelab_set_key`, `inlinelab_crypt`)
//! callgrind can toggle on by name, so a plain valgrind run with
//! `--toggle-collect` counts exactly the artifact's instructions and nothing
//! of the harness around it.
//!
//! One valgrind run counts a share of a cipher's artifacts, one share a
//! core (at most four: valgrind runs one thread): the counting process
//! (`under-valgrind count`, bench-harness's `under_valgrind/count.rs`) loads each in turn and brackets each
//! case with two marker functions, on which callgrind zeroes
//! (`--zero-before`) and dumps (`--dump-before`) its counts; the dumps are
//! appended to one file (`--combine-dumps`) and read back in order. Its cost
//! is one valgrind start per share, not per variant. Each run has a
//! deadline ([`deadline::count`]): an artifact that loops is killed there,
//! counted as hung, and the others of its share counted again.

use crate::count::executed::{self, Executed};
use crate::count::functions::{self, Functions};
use crate::count::memo::{Key, Memo};
use crate::env::deadline::{self, Group, Waited};
use crate::error::{Error, Result};
use bench_harness::sampling::Case;
use bench_harness::under_valgrind::count::{CountOutcome, CountSpec, Counted};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// valgrind's version, or a setup error that says how to install it.
pub fn check() -> Result<String> {
    match Command::new("valgrind").arg("--version").output() {
        Ok(o) if o.status.success() => Ok(String::from_utf8_lossy(&o.stdout).trim().to_string()),
        _ => Err(Error::usage(
            "valgrind is not installed; the gate counts instructions with callgrind",
            "install it: apt-get install valgrind (Debian, Ubuntu), dnf install valgrind (Fedora), brew install valgrind (macOS on Intel)",
        )),
    }
}

/// What counting gave for one artifact.
#[derive(Clone, Debug, PartialEq)]
pub enum Count {
    /// Instructions of one operation in each case, in case order.
    Counted(Vec<f64>),
    /// This CPU cannot run it.
    Unavailable(String),
    Failed(String),
    /// The counting process was still running at its deadline while it ran.
    Hung(String),
}

/// What counting gave for one artifact, with what its dumps say of each
/// case (empty where it was not counted): the instructions of each function
/// ([`functions`]) and the addresses that executed outside the artifact's
/// own file ([`executed`]: a library peer's library).
#[derive(Clone, Debug)]
pub struct Measured {
    pub count: Count,
    pub functions: Vec<Functions>,
    pub executed: Vec<Executed>,
}

impl Measured {
    /// Nothing measured, for `count`'s reason.
    fn only(count: Count) -> Measured {
        Measured {
            count,
            functions: Vec::new(),
            executed: Vec::new(),
        }
    }
}

/// A counting process's files, in the work directory.
struct Files {
    spec: PathBuf,
    outcome: PathBuf,
    marker: PathBuf,
    out: PathBuf,
    /// valgrind's and the process's stderr.
    err: PathBuf,
}

impl Files {
    /// Share `k`'s files in `dir`: the first share's named as one run's
    /// were (`callgrind.out`), the others' numbered (`callgrind-1.out`).
    fn in_dir(dir: &Path, k: usize) -> Files {
        let n = if k == 0 {
            String::new()
        } else {
            format!("-{k}")
        };
        Files {
            spec: dir.join(format!("count{n}.json")),
            outcome: dir.join(format!("count{n}-outcome.json")),
            marker: dir.join(format!("count{n}-marker")),
            out: dir.join(format!("callgrind{n}.out")),
            err: dir.join(format!("count{n}-stderr")),
        }
    }
}

/// Counts each of `artifacts` (`(name, path)`) in every case, in valgrind
/// runs of a share each (again without an artifact that crashes or hangs
/// one), in `dir` (scratch).
pub fn count(artifacts: &[(String, PathBuf)], cases: &[Case], dir: &Path) -> Vec<Count> {
    let counted = measure(artifacts, cases, dir);
    counted.into_iter().map(|m| m.count).collect()
}

/// As [`count`], with each counted artifact's instructions per function in
/// each case (by mangled name; empty where it was not counted): which code
/// got them ([`functions`]).
pub fn count_functions(
    artifacts: &[(String, PathBuf)],
    cases: &[Case],
    dir: &Path,
) -> Vec<(Count, Vec<Functions>)> {
    let counted = measure(artifacts, cases, dir);
    counted
        .into_iter()
        .map(|m| (m.count, m.functions))
        .collect()
}

/// As [`count`], with what each counted artifact's dumps say of each case
/// ([`Measured`]).
pub fn measure(artifacts: &[(String, PathBuf)], cases: &[Case], dir: &Path) -> Vec<Measured> {
    // The same file in the same cases was counted before in this process.
    let keys: Vec<Option<Key>> = (artifacts.iter())
        .map(|(_, so)| Key::of(so, &cases))
        .collect();
    let mut result: Vec<Option<Measured>> = (keys.iter())
        .map(|k| k.as_ref().and_then(|k| COUNTED.get(k)))
        .collect();
    let left: Vec<usize> = (0..artifacts.len())
        .filter(|&i| result[i].is_none())
        .collect();
    if !left.is_empty() {
        // One valgrind run a core, each over its share (in order, so that
        // an artifact's place in its process is the same on every run
        // here).
        let workers = std::thread::available_parallelism().map_or(1, |n| n.get().min(4));
        let share = left.len().div_ceil(workers).max(1);
        let found: Vec<(usize, Measured)> = std::thread::scope(|s| {
            let handles: Vec<_> = (left.chunks(share).enumerate())
                .map(|(k, chunk)| {
                    s.spawn(move || count_share(chunk, artifacts, cases, &Files::in_dir(dir, k)))
                })
                .collect();
            (handles.into_iter().zip(left.chunks(share)))
                .flat_map(|(h, chunk)| {
                    h.join().unwrap_or_else(|_| {
                        let why = "counting instructions: its thread ended".to_string();
                        (chunk.iter())
                            .map(|&i| (i, Measured::only(Count::Failed(why.clone()))))
                            .collect()
                    })
                })
                .collect()
        });
        for (i, c) in found {
            result[i] = Some(c);
        }
    }
    let result: Vec<Measured> = result
        .into_iter()
        .map(|c| c.expect("every artifact"))
        .collect();
    for (key, counted) in keys.into_iter().zip(&result) {
        if let (Some(key), Count::Counted(_)) = (key, &counted.count) {
            COUNTED.put(key, counted.clone());
        }
    }
    result
}

/// The artifacts `share` (indices into `artifacts`) counted in one valgrind
/// run, again without any that crashes or hangs it: each index and what
/// counting gave.
fn count_share(
    share: &[usize],
    artifacts: &[(String, PathBuf)],
    cases: &[Case],
    files: &Files,
) -> Vec<(usize, Measured)> {
    let mut result: Vec<Option<Measured>> = vec![None; share.len()];
    loop {
        let left: Vec<usize> = (0..share.len()).filter(|&k| result[k].is_none()).collect();
        if left.is_empty() {
            break;
        }
        let spec = CountSpec {
            artifacts: left.iter().map(|&k| artifacts[share[k]].clone()).collect(),
            cases: cases.to_vec(),
        };
        match run(&spec, files) {
            Ok(counts) => {
                for (&k, c) in left.iter().zip(counts) {
                    result[k] = Some(c);
                }
            }
            Err(Crash::At(at, fate, how)) => {
                let k = left[at];
                let (verb, count): (_, fn(String) -> Count) = match fate {
                    Fate::Crashed => ("crashed", Count::Failed),
                    Fate::Hung => ("hung", Count::Hung),
                };
                eprintln!(
                    "    {} {verb} the counting process ({how}); counting the others again",
                    artifacts[share[k]].0
                );
                let why = format!("{verb} while its instructions were counted ({how})");
                result[k] = Some(Measured::only(count(why)));
            }
            Err(Crash::Whole(why)) => {
                for &k in &left {
                    let why = format!("counting instructions: {why}");
                    result[k] = Some(Measured::only(Count::Failed(why)));
                }
            }
        }
    }
    (share.iter().copied())
        .zip(
            result
                .into_iter()
                .map(|c| c.expect("every artifact of the share")),
        )
        .collect()
}

/// Every artifact counted in this process, by its bytes and cases.
static COUNTED: Memo<Measured> = Memo::new();

/// Why a counting run gave nothing.
enum Crash {
    /// The process died, or was still running at its deadline, while
    /// artifact `k` of the spec was loaded or run.
    At(usize, Fate, String),
    /// It failed before any artifact, or its output cannot be read.
    Whole(String),
}

/// How a counting process that named an artifact ended.
enum Fate {
    Crashed,
    /// Killed at its deadline.
    Hung,
}

/// One valgrind run of `under-valgrind count` over `spec`: each artifact's
/// counts, its instructions per function and what executed outside it in
/// each case.
// Long: one counting child's life (spec written, valgrind started, waited
// on with its deadline, its outcome and dumps read), each step's failure a
// distinct `Crash` the caller blames; the steps share the child and its files.
fn run(spec: &CountSpec, files: &Files) -> std::result::Result<Vec<Measured>, Crash> {
    let whole = |e: &dyn std::fmt::Display| Crash::Whole(e.to_string());
    let json = serde_json::to_vec(spec).map_err(|e| whole(&e))?;
    std::fs::write(&files.spec, json).map_err(|e| whole(&e))?;
    for stale in [&files.outcome, &files.marker, &files.out] {
        let _ = std::fs::remove_file(stale);
    }
    let program = super::program::path().map_err(Crash::Whole)?;
    let err = std::fs::File::create(&files.err).map_err(|e| whole(&e))?;
    let mut cmd = Command::new("valgrind");
    cmd.arg("--tool=callgrind")
        .arg(format!("--callgrind-out-file={}", files.out.display()))
        .arg(format!("--toggle-collect={}", abi::symbol::SET_KEY))
        .arg(format!("--toggle-collect={}", abi::symbol::CRYPT))
        .args([
            // No gdbserver: its FIFOs in /tmp would outlive a process
            // killed at its deadline.
            "--vgdb=no",
            "--combine-dumps=yes",
            "--dump-line=no",
            // Each instruction's address: what a library peer ran in its
            // library (`count/reached.rs`).
            "--dump-instr=yes",
            // Names as the symbol table has them, demangled here as the
            // sizer demangles (`count/functions.rs`).
            "--demangle=no",
            "--collect-atstart=no",
            "--zero-before=inlinelab_count_start",
            "--dump-before=inlinelab_count_end",
        ])
        .arg(program)
        .arg("count")
        .args([&files.spec, &files.outcome, &files.marker])
        .stdout(Stdio::null())
        .stderr(err);
    // Its own process group, killed whole at the deadline.
    let mut child = deadline::spawn(&mut cmd, Group::Own)
        .map_err(|e| Crash::Whole(format!("running valgrind: {e}")))?;
    let limit = deadline::count(spec.artifacts.len());
    let waited = deadline::wait(&mut child, limit, Group::Own)
        .map_err(|e| Crash::Whole(format!("waiting for valgrind: {e}")))?;
    let at = || {
        std::fs::read_to_string(&files.marker)
            .ok()
            .and_then(|s| s.trim().parse::<usize>().ok())
            .filter(|&k| k < spec.artifacts.len())
    };
    let status = match waited {
        Waited::Exited(status) => status,
        Waited::Hung(limit) => {
            let how = format!(
                "still running at its deadline of {:.1} s, killed",
                limit.as_secs_f64()
            );
            return Err(match at() {
                Some(k) => Crash::At(k, Fate::Hung, how),
                None => Crash::Whole(format!("valgrind: {how}, before any artifact ran")),
            });
        }
    };
    if !status.success() {
        let err = std::fs::read(&files.err).unwrap_or_default();
        let err = String::from_utf8_lossy(&err);
        let last = super::last_words(&err);
        let how = format!("valgrind: {status}; {last}");
        return Err(match at() {
            Some(k) => Crash::At(k, Fate::Crashed, how),
            None => Crash::Whole(how),
        });
    }
    let outcome: CountOutcome = std::fs::read(&files.outcome)
        .map_err(|e| format!("{}: {e}", files.outcome.display()))
        .and_then(|b| {
            serde_json::from_slice(&b).map_err(|e| format!("{}: {e}", files.outcome.display()))
        })
        .map_err(Crash::Whole)?;
    if outcome.artifacts.len() != spec.artifacts.len() {
        return Err(Crash::Whole(format!(
            "{}: {} artifacts, not {}",
            files.outcome.display(),
            outcome.artifacts.len(),
            spec.artifacts.len()
        )));
    }
    let text = std::fs::read_to_string(&files.out)
        .map_err(|e| Crash::Whole(format!("{}: {e}", files.out.display())))?;
    let dumps = dumps(&text);
    let per_function = functions::dump_functions(&text);
    let per_case = executed::dump_executed(&text);
    let expected = outcome.artifacts.iter().filter(|c| c.dumped()).count() * spec.cases.len();
    if dumps.len() != expected || per_function.len() != expected || per_case.len() != expected {
        return Err(Crash::Whole(format!(
            "{}: {} dumps where {expected} were expected",
            files.out.display(),
            dumps.len()
        )));
    }
    let mut next = dumps.into_iter();
    let mut next_functions = per_function.into_iter();
    let mut next_executed = per_case.into_iter();
    Ok(outcome
        .artifacts
        .into_iter()
        .zip(&spec.artifacts)
        .map(|(c, (_, so))| {
            let (counts, functions, executed): (Vec<f64>, Vec<Functions>, Vec<Executed>) =
                if c.dumped() {
                    let n = spec.cases.len();
                    let counts = next.by_ref().take(n).map(|n| n as f64).collect();
                    let functions = next_functions.by_ref().take(n).collect();
                    let executed = (next_executed.by_ref().take(n))
                        .map(|e| outside(e, so))
                        .collect();
                    (counts, functions, executed)
                } else {
                    (Vec::new(), Vec::new(), Vec::new())
                };
            let count = match c {
                // Nothing collected: the toggle did not match (a renamed
                // entry point?); a count of 0 must never pass as a speedup.
                Counted::Dumped if counts.contains(&0.0) => Count::Failed(
                    "callgrind counted no instruction in a case (are inlinelab_set_key and inlinelab_crypt still the entry points?)".into(),
                ),
                Counted::Dumped => Count::Counted(counts),
                Counted::DumpedThenFailed(why) => Count::Failed(why),
                Counted::Unavailable(why) => Count::Unavailable(why),
                Counted::NotLoaded(why) => Count::Failed(why),
            };
            Measured {
                count,
                functions,
                executed,
            }
        })
        .collect())
}

/// What executed in one dump outside the artifact `so` (whose own code
/// its walk sizes, `build/code.rs`): kept only for other files.
fn outside(mut executed: Executed, so: &Path) -> Executed {
    let own = std::fs::canonicalize(so).unwrap_or_else(|_| so.to_path_buf());
    executed.retain(|object, _| {
        let object = Path::new(object);
        object != so && std::fs::canonicalize(object).map_or(true, |o| o != own)
    });
    executed
}

/// The instruction total of each dump that `--dump-before` triggered, in
/// order, from a `--combine-dumps` file (the dump at program termination is
/// left out).
pub fn dumps(text: &str) -> Vec<u64> {
    let mut totals = Vec::new();
    let mut triggered = false;
    for line in text.lines() {
        if let Some(trigger) = line.strip_prefix("desc: Trigger:") {
            triggered = trigger.contains("--dump-before");
        } else if let Some(v) = line
            .strip_prefix("totals:")
            .or_else(|| line.strip_prefix("summary:"))
            && triggered
        {
            totals.push(
                v.split_whitespace()
                    .next()
                    .and_then(|n| n.parse().ok())
                    .unwrap_or(0),
            );
            triggered = false;
        }
    }
    totals
}
