//! How long a child process may run before it is taken as hung, and the
//! one way to wait for one. Every child that runs an artifact or builds one
//! (`__measure`, `under-valgrind` under valgrind, cargo) is waited on here, so an
//! artifact that loops forever stalls nothing: it is killed at its deadline
//! and blamed, and the others are measured, as after a crash.
//!
//! The deadlines, stated once:
//!
//! - measuring process: `SLACK x rounds x batch seconds x engines x cases +
//!   MARGIN`, over one process's share of the plan (the rounds counted once
//!   more, for the warm-up that sizes each cell's batch);
//! - counting process: `MARGIN + COUNT_PER_ARTIFACT x artifacts` (one
//!   operation per case under valgrind, each after a warm-up);
//! - sampling process (`__sample`): `MARGIN + SLACK x cases x` the wall
//!   time it gives a case;
//! - a build: [`BUILD`].
//!
//! `INLINELAB_DEADLINE_SECS=N` (for tests) caps every deadline at N
//! seconds; it can only shorten one, never lengthen it.
//!
//! An interrupted command ends its children with itself: every child being
//! waited for is known ([`wait`] holds it in a list), and on SIGINT or
//! SIGTERM ([`end_children_on_interrupt`]) each is killed, its process
//! group with it, before the command exits 130. What was cut short is not
//! taken as done by the next run: outputs are renamed into place whole
//! (`env/outputs.rs`), and an artifact's build manifest is written only
//! after it was built and sized (`build/mod.rs`).

use bench_harness::sampling::Plan;
use rustix::process::Pid;
use std::io;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, ExitStatus};
use std::sync::Mutex;
use std::time::Duration;
use wait_timeout::ChildExt;

/// The factor on a measuring process's timed work: a batch on a shared
/// core takes longer than its nominal seconds (probes, contention).
const SLACK: f64 = 4.0;

/// What every child gets besides its work: starting, loading and checking
/// each artifact against the oracle, writing its outcome.
const MARGIN: Duration = Duration::from_secs(15);

/// A counting process's time per artifact under valgrind.
const COUNT_PER_ARTIFACT: Duration = Duration::from_secs(3);

/// A build of one artifact (a cold one compiles its dependencies first).
const BUILD: Duration = Duration::from_secs(20 * 60);

/// The variable that caps every deadline (seconds; for tests).
pub const CAP_ENV: &str = "INLINELAB_DEADLINE_SECS";

/// The deadline of a measuring process that times `engines` engines on
/// `cases` cases under `plan` (one process's share).
pub fn measure(plan: Plan, engines: usize, cases: usize) -> Duration {
    let work =
        SLACK * (plan.rounds + 1) as f64 * plan.batch_seconds * engines as f64 * cases as f64;
    capped(Duration::from_secs_f64(work) + MARGIN)
}

/// The deadline of a counting process over `artifacts` artifacts.
pub fn count(artifacts: usize) -> Duration {
    capped(MARGIN + COUNT_PER_ARTIFACT * u32::try_from(artifacts).unwrap_or(u32::MAX))
}

/// The deadline of a sampling process over `cases` cases, each sampled
/// for `per_case` (wall clock) at most.
pub fn sample(cases: usize, per_case: Duration) -> Duration {
    capped(MARGIN + per_case.mul_f64(SLACK * cases as f64))
}

/// The deadline of a build.
pub fn build() -> Duration {
    capped(BUILD)
}

/// `limit`, or the cap of [`CAP_ENV`] where that is shorter (an unreadable
/// value is no cap).
fn capped(limit: Duration) -> Duration {
    let cap = std::env::var(CAP_ENV)
        .ok()
        .and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s > 0.0)
        .map(Duration::from_secs_f64);
    cap.map_or(limit, |c| c.min(limit))
}

/// How a child ended.
#[derive(Debug)]
pub enum Waited {
    Exited(ExitStatus),
    /// Still running at its deadline, so killed (with its process group,
    /// when it leads one).
    Hung(Duration),
}

/// Whether a child was started as the leader of its own process group
/// (`CommandExt::process_group(0)`), whose members are killed with it.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Group {
    Own,
    Shared,
}

/// The children started by [`spawn`] and not yet reaped by [`wait`], by
/// process id: what an interrupt ends. The interrupt handler takes the
/// lock and never gives it back (it exits), so no child is started, nor
/// left out of the list, once it runs.
static CHILDREN: Mutex<Vec<(u32, Group)>> = Mutex::new(Vec::new());

/// Starts `cmd` as a child that an interrupt of this process ends (for
/// [`Group::Own`], as the leader of a process group of its own, which is
/// killed whole). Every child started here is to be reaped by [`wait`].
pub fn spawn(cmd: &mut Command, group: Group) -> io::Result<Child> {
    if group == Group::Own {
        cmd.process_group(0);
    }
    let mut children = CHILDREN.lock().unwrap_or_else(|p| p.into_inner());
    let child = cmd.spawn()?;
    children.push((child.id(), group));
    Ok(child)
}

/// Waits for `child` (started by [`spawn`]) until `limit`; past it, kills
/// it (its whole process group for [`Group::Own`], so that no grandchild
/// lives on) and reaps it.
pub fn wait(child: &mut Child, limit: Duration, group: Group) -> io::Result<Waited> {
    let waited = match child.wait_timeout(limit) {
        Ok(Some(status)) => Ok(Waited::Exited(status)),
        Ok(None) => {
            kill(Pid::from_child(child), group);
            child.wait().map(|_| Waited::Hung(limit))
        }
        Err(e) => Err(e),
    };
    // Reaped (or lost to an error): no longer this process's to end.
    let id = child.id();
    CHILDREN
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .retain(|(pid, _)| *pid != id);
    waited
}

/// Kills the process `pid` (and its group for [`Group::Own`]); one that
/// exited meanwhile is no error.
fn kill(pid: Pid, group: Group) {
    use rustix::process::{Signal, kill_process, kill_process_group};
    if group == Group::Own {
        let _ = kill_process_group(pid, Signal::KILL);
    }
    let _ = kill_process(pid, Signal::KILL);
}

/// The exit code of a command ended by SIGINT or SIGTERM (128 + SIGINT,
/// as a shell reports it).
pub const INTERRUPTED: i32 = 130;

/// Makes SIGINT and SIGTERM end this process's children ([`wait`]) with
/// it: each is killed, its process group with it, and the process exits
/// [`INTERRUPTED`]. A child in a group of its own (a build, a count under
/// valgrind) does not get the terminal's Ctrl-C itself. Installed once; a
/// second call changes nothing.
pub fn end_children_on_interrupt() {
    let _ = ctrlc::set_handler(|| {
        // Held to the exit: no child starts after this.
        let children = CHILDREN.lock().unwrap_or_else(|p| p.into_inner());
        for &(pid, group) in children.iter() {
            if let Some(pid) = Pid::from_raw(pid as i32) {
                kill(pid, group);
            }
        }
        eprintln!("xtask: interrupted; its builds and measurements were ended with it");
        std::process::exit(INTERRUPTED);
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;
    use std::time::Instant;

    #[test]
    fn a_quick_plan_has_a_short_deadline() {
        let plan = Plan {
            rounds: 3,
            batch_seconds: 0.002,
        };
        // 4 x (3 + 1) x 0.002 x 4 x 17 s of work, the margin.
        let want = 4.0 * 4.0 * 0.002 * 4.0 * 17.0 + MARGIN.as_secs_f64();
        let d = measure(plan, 4, 17);
        assert!((d.as_secs_f64() - want).abs() < 1e-6, "{d:?}");
        assert_eq!(count(8), Duration::from_secs(15 + 3 * 8));
        assert_eq!(build(), BUILD);
    }

    #[test]
    fn a_child_past_its_deadline_is_killed_with_its_group() {
        use std::os::unix::process::CommandExt;
        let dir = tempfile::tempdir().unwrap();
        let late = dir.path().join("late");
        let start = Instant::now();
        // A shell whose grandchild would write a file after a second: the
        // group dies with the shell, so the file never appears.
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(format!("(sleep 1; touch '{}') & sleep 30", late.display()))
            .process_group(0)
            .spawn()
            .unwrap();
        let waited = wait(&mut child, Duration::from_millis(300), Group::Own).unwrap();
        assert!(matches!(waited, Waited::Hung(_)), "{waited:?}");
        assert!(start.elapsed() < Duration::from_secs(20));
        std::thread::sleep(Duration::from_millis(1500));
        assert!(!late.exists(), "a process of the group lived on");

        let mut done = Command::new("true").spawn().unwrap();
        let waited = wait(&mut done, Duration::from_secs(20), Group::Shared).unwrap();
        assert!(
            matches!(waited, Waited::Exited(s) if s.success()),
            "{waited:?}"
        );
    }
}
