//! The timing stage: runs the measuring process (`__measure`) on the live
//! contenders (or some of them), leaving out any artifact that crashes it
//! or hangs it past its deadline ([`deadline::measure`]; the marker file
//! names the one running), and checks that what was measured is the file
//! that was sized. Each process loads every artifact afresh, so where the
//! loader puts the code and the allocator the buffers differs between
//! them: the processes are the unit of the statistics ([`Timings`]).

use crate::child::measure::{EngineState, Offers, Outcome, Spec};
use crate::env::deadline::{self, Group, Waited};
use crate::env::workspace;
use crate::error::{Error, Result};
use crate::report::Spent;
use crate::select::contenders::{Contender, State};
use crate::time::timings::Timings;
use bench_harness::engine::{Dir, Mode};
use bench_harness::registry::CipherEntry;
use bench_harness::sampling::{Case, Plan};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus};
use std::time::{Duration, Instant};

/// The measuring process's files, in the work directory.
pub(crate) struct Files {
    spec: PathBuf,
    outcome: PathBuf,
    marker: PathBuf,
}

impl Files {
    /// The files named `STEM-spec.json`, `STEM-outcome.json` and
    /// `STEM-marker` in `dir` (`spec.json`, ... with no stem).
    pub(crate) fn in_dir(dir: &Path, stem: &str) -> Files {
        let name = |n: &str| {
            if stem.is_empty() {
                dir.join(n)
            } else {
                dir.join(format!("{stem}-{n}"))
            }
        };
        Files {
            spec: name("spec.json"),
            outcome: name("outcome.json"),
            marker: name("marker"),
        }
    }

    /// The index of the engine the process was running when it ended, as
    /// its marker file names it.
    pub(crate) fn running(&self) -> Option<usize> {
        std::fs::read_to_string(&self.marker)
            .ok()
            .and_then(|s| s.trim().parse::<usize>().ok())
    }

    pub(crate) fn outcome(&self) -> &Path {
        &self.outcome
    }
}

/// Times the live contenders of `entry` on `cases`, interleaved, in
/// `processes` measuring processes one after the other, each running every
/// round of `plan`: the first pass.
pub fn measure(
    entry: &CipherEntry,
    contenders: &mut [Contender],
    cases: &[Case],
    plan: Plan,
    processes: usize,
    dir: &Path,
) -> Result<Timings> {
    let processes = processes.max(1);
    let mut runs = Vec::new();
    let mut spent = Vec::new();
    for p in 0..processes {
        eprintln!("    measuring process {} of {processes}", p + 1);
        let start = Instant::now();
        // No live contender left: nothing more to time.
        let Some(run) = measure_one(entry, contenders, None, cases, plan, p % 2 == 1, dir)? else {
            break;
        };
        spent.push(Spent {
            look: 0,
            engines: run.1.iter().map(|&i| contenders[i].name.clone()).collect(),
            cases: cases.len(),
            rounds: plan.rounds,
            seconds: start.elapsed().as_secs_f64(),
            for_steps: Vec::new(),
        });
        runs.push(run);
    }
    if runs.is_empty() {
        return Ok(Timings::empty(cases.len()));
    }
    let mut t = Timings::new(runs, cases);
    t.spent = spent;
    t.not_offered = (t.measured.iter())
        .map(|&i| contenders[i].not_offered(cases))
        .collect();
    Ok(t)
}

/// One measuring process over the live contenders (only those in `only`,
/// when given) on `cases`, loading them last to first when `reversed`
/// (processes alternate: [`Spec::reversed`]), again without any that
/// crashes or hangs it, until one finishes: its outcome and the contender
/// index of each engine with samples; `None` when no contender is live.
pub fn measure_one(
    entry: &CipherEntry,
    contenders: &mut [Contender],
    only: Option<&[usize]>,
    cases: &[Case],
    plan: Plan,
    reversed: bool,
    dir: &Path,
) -> Result<Option<(Outcome, Vec<usize>)>> {
    let run = Run {
        reversed,
        check_only: false,
    };
    run_until_an_outcome(
        entry,
        contenders,
        only,
        cases,
        plan,
        run,
        &Files::in_dir(dir, ""),
    )
}

/// The cases a check runs of a run's `cases`: the first of each kind and
/// mode. The child checks every key length and direction of each mode its
/// cases name (a crate's variant every mode, whatever they name) and keys
/// each artifact as the first case does; it times none of them.
pub(crate) fn one_per_mode(cases: &[Case]) -> Vec<Case> {
    let mut out: Vec<Case> = Vec::new();
    for c in cases {
        if !out.iter().any(|o| o.kind == c.kind && o.mode == c.mode) {
            out.push(*c);
        }
    }
    out
}

/// The differential check alone, natively, before the slower stages run
/// an artifact (memcheck, the emulated CPU), in every mode of `cases` (a
/// run's): a contender that computes something else, crashes or hangs the
/// measuring process is marked so here, within a measuring process's
/// deadline, and those stages leave it out (a hung artifact would
/// otherwise run to each one's deadline in turn). The first measuring
/// process checks again.
pub fn check(
    entry: &CipherEntry,
    contenders: &mut [Contender],
    cases: &[Case],
    dir: &Path,
) -> Result<()> {
    let live = contenders.iter().filter(|c| c.live().is_some()).count();
    if live == 0 {
        return Ok(());
    }
    eprintln!(
        "checking {live} artifacts against the oracle (every mode, key length and direction)"
    );
    let plan = Plan {
        rounds: 1,
        batch_seconds: 0.001,
    };
    let run = Run {
        reversed: false,
        check_only: true,
    };
    let files = Files::in_dir(dir, "check");
    // The check runs as the artifacts load (child/measure.rs), in the
    // modes the cases name: no case is timed.
    let cases = one_per_mode(cases);
    run_until_an_outcome(entry, contenders, None, &cases, plan, run, &files).map(|_| ())
}

/// How a measuring process runs its engines.
#[derive(Clone, Copy)]
struct Run {
    /// Loaded last to first ([`Spec::reversed`]).
    reversed: bool,
    /// The check against the oracle alone ([`Spec::check_only`]).
    check_only: bool,
}

/// Measuring processes over the live contenders (those in `only`, when
/// given), each again without any that crashed or hung the one before,
/// until one finishes: its outcome and the contender index of each engine
/// with samples; `None` when no contender is live.
fn run_until_an_outcome(
    entry: &CipherEntry,
    contenders: &mut [Contender],
    only: Option<&[usize]>,
    cases: &[Case],
    plan: Plan,
    run: Run,
    files: &Files,
) -> Result<Option<(Outcome, Vec<usize>)>> {
    loop {
        let live: Vec<usize> = (0..contenders.len())
            .filter(|&i| contenders[i].live().is_some())
            .filter(|i| only.is_none_or(|o| o.contains(i)))
            .collect();
        if live.is_empty() {
            return Ok(None);
        }
        let spec = Spec {
            reversed: run.reversed,
            check_only: run.check_only,
            ..spec(entry, contenders, &live, cases, plan)
        };
        let limit = deadline::measure(plan, spec.engines.len(), cases.len());
        match run_child(&spec, files, limit, &[])? {
            Waited::Exited(status) if status.success() => {
                let outcome = read_outcome(&files.outcome)?;
                let measured = apply(&outcome, &live, contenders);
                return Ok(Some((outcome, measured)));
            }
            Waited::Exited(status) => {
                blame(&Ended::Died(status), &files.marker, &live, contenders)?
            }
            Waited::Hung(limit) => blame(&Ended::Hung(limit), &files.marker, &live, contenders)?,
        }
    }
}

/// What the measuring process is to do with the contenders `live`.
pub(crate) fn spec(
    entry: &CipherEntry,
    contenders: &[Contender],
    live: &[usize],
    cases: &[Case],
    plan: Plan,
) -> Spec {
    let live: Vec<&Contender> = (live.iter().map(|&i| &contenders[i]))
        .filter(|c| c.live().is_some())
        .collect();
    let engines = (live.iter())
        .filter_map(|c| Some((c.name.clone(), c.live()?.so.clone())))
        .collect();
    let check_keys: Vec<usize> = entry
        .modes
        .iter()
        .find(|(m, _)| *m == Mode::Ecb)
        .map(|(_, k)| k.to_vec())
        .unwrap_or_default();
    // A crate's variants are checked under every key length its type takes.
    let checked = (entry.from_crate).map_or_else(Vec::new, |c| c.checked());
    let offers = (live.iter())
        .map(|c| offers(c, cases, &check_keys, &checked))
        .collect();
    Spec {
        cipher: entry.name.to_string(),
        from_crate: entry.from_crate.cloned(),
        engines,
        cases: cases.to_vec(),
        plan,
        check_keys,
        offers,
        reversed: false,
        check_only: false,
    }
}

/// What `c` does not run of `cases` (a library peer runs what its
/// declaration offers): those cases, and the modes and key sizes (of the
/// cases, of `check_keys` and of a crate's `checked`) it is not checked
/// under.
fn offers(
    c: &Contender,
    cases: &[Case],
    check_keys: &[usize],
    checked: &[(Mode, Vec<usize>)],
) -> Offers {
    let of_cases = (cases.iter())
        .flat_map(|case| (check_keys.iter().chain([&case.key_bytes])).map(|&k| (case.mode, k)));
    let of_crate = (checked.iter()).flat_map(|(m, keys)| keys.iter().map(|&k| (*m, k)));
    let mut not_checked = Vec::new();
    for (mode, k) in of_cases.chain(of_crate) {
        let key = Case::crypt(mode, Dir::Encrypt, k, 0);
        if c.offers(&key).is_err() && !not_checked.contains(&(mode, k)) {
            not_checked.push((mode, k));
        }
    }
    Offers {
        not_cases: c.not_offered(cases),
        not_checked,
    }
}

/// Runs `__measure` on `spec` and waits for it, at most `limit`; under
/// `wrapper` (an emulator and its arguments, the process its program)
/// when given.
pub(crate) fn run_child(
    spec: &Spec,
    files: &Files,
    limit: Duration,
    wrapper: &[String],
) -> Result<Waited> {
    let json = serde_json::to_vec(spec).map_err(|e| Error::failed(e.to_string()))?;
    workspace::write_atomically(&files.spec, &json)?;
    let _ = std::fs::remove_file(&files.outcome);
    let _ = std::fs::remove_file(&files.marker);
    let exe = std::env::current_exe().map_err(|e| Error::failed(format!("finding xtask: {e}")))?;
    // It starts no process of its own: killing it leaves nothing behind.
    let mut cmd = match wrapper.split_first() {
        Some((program, args)) => {
            let mut cmd = Command::new(program);
            // A fault injected for tests (`env/fault.rs`) is a fault of the
            // run's own measuring process, not of a check on an emulated
            // CPU.
            cmd.args(args).arg(exe).env_remove("INLINELAB_FAULT");
            cmd
        }
        None => Command::new(exe),
    };
    cmd.arg("__measure")
        .args([&files.spec, &files.outcome, &files.marker]);
    let mut child = deadline::spawn(&mut cmd, Group::Shared)
        .map_err(|e| Error::failed(format!("starting the measuring process: {e}")))?;
    deadline::wait(&mut child, limit, Group::Shared)
        .map_err(|e| Error::failed(format!("waiting for the measuring process: {e}")))
}

pub(crate) fn read_outcome(path: &Path) -> Result<Outcome> {
    let fail = |e: &dyn std::fmt::Display| Error::failed(format!("{}: {e}", path.display()));
    let bytes = std::fs::read(path).map_err(|e| fail(&e))?;
    serde_json::from_slice(&bytes).map_err(|e| fail(&e))
}

/// Records each engine's outcome on its contender; returns the contender
/// index of each engine with samples, in sample order.
fn apply(outcome: &Outcome, live: &[usize], contenders: &mut [Contender]) -> Vec<usize> {
    let mut measured = Vec::new();
    for (o, &i) in outcome.engines.iter().zip(live) {
        let c = &mut contenders[i];
        match &o.state {
            EngineState::Failed(why) => c.fail(why.clone()),
            EngineState::Unavailable(why) => c.unavailable(why.clone()),
            EngineState::Measured => {
                measured.push(i);
                let State::Built(built) = &mut c.state else {
                    continue;
                };
                built.loaded.clone_from(&o.loaded);
                // What was measured must be the file that was sized.
                if o.loaded.as_ref() != Some(&built.artifact.fingerprint) {
                    c.fail("the measured file differs from the sized one");
                }
            }
        }
    }
    measured
}

/// How a measuring process ended without an outcome.
enum Ended {
    Died(ExitStatus),
    /// Killed at its deadline.
    Hung(Duration),
}

/// The measuring process died or hung: marks the contender the marker
/// names as failed (or hung), so that the next run leaves it out; an error
/// if none was running.
fn blame(ended: &Ended, marker: &Path, live: &[usize], contenders: &mut [Contender]) -> Result<()> {
    let culprit = std::fs::read_to_string(marker)
        .ok()
        .and_then(|s| s.trim().parse::<usize>().ok())
        .and_then(|k| live.get(k).copied());
    let how = match ended {
        Ended::Died(status) => match status.code() {
            Some(code) => format!("exit code {code}"),
            None => format!("killed by {}", signal_of(status)),
        },
        Ended::Hung(limit) => format!(
            "still running at its deadline of {:.1} s",
            limit.as_secs_f64()
        ),
    };
    let Some(i) = culprit else {
        return Err(Error::failed(format!(
            "the measuring process failed ({how}) before any artifact ran"
        )));
    };
    match ended {
        Ended::Died(_) => {
            eprintln!(
                "    {} crashed the measuring process ({how}); the others go on without it",
                contenders[i].label
            );
            contenders[i].fail(format!("crashed while measured ({how})"));
        }
        Ended::Hung(_) => {
            eprintln!(
                "    {} hung the measuring process ({how}, killed); the others go on without it",
                contenders[i].label
            );
            contenders[i].hang(format!("hung while measured ({how}, killed)"));
        }
    }
    Ok(())
}

pub(crate) fn signal_of(status: &ExitStatus) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        let name = |s: i32| match s {
            libc::SIGILL => Some("SIGILL, an illegal instruction"),
            libc::SIGSEGV => Some("SIGSEGV"),
            libc::SIGBUS => Some("SIGBUS"),
            libc::SIGFPE => Some("SIGFPE"),
            libc::SIGABRT => Some("SIGABRT"),
            libc::SIGKILL => Some("SIGKILL"),
            libc::SIGTERM => Some("SIGTERM"),
            _ => None,
        };
        status.signal().map_or("unknown".into(), |s| match name(s) {
            Some(n) => format!("signal {s} ({n})"),
            None => format!("signal {s}"),
        })
    }
    #[cfg(not(unix))]
    {
        let _ = status;
        "unknown".into()
    }
}
