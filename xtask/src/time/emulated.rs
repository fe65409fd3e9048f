//! The differential check on a CPU without the extensions: every live
//! contender's measuring process (`__measure`, with no case to time: the
//! check against the oracle alone, every mode, key length and direction)
//! run under qemu's user-mode emulator ([`QEMU`]) with [`MODEL`], x86-64's
//! baseline: no SSE4.1 or 4.2, AES-NI, PCLMULQDQ, AVX, AVX2, AVX-512,
//! VAES or SHA. A contender either says it cannot run there (this
//! workspace's forms of an extension must), or computes what the oracle
//! computes on its fallback; one that dies there (an illegal instruction,
//! RustCrypto/hashes#851's SIGILL) or computes something else is a failed
//! row, named by its flag set where it has one.

use crate::child::measure::EngineState;
use crate::env::deadline::Waited;
use crate::report::older_cpu::OlderCpu;
use crate::select::contenders::Contender;
use crate::time::processes::{self, Files};
use bench_harness::registry::CipherEntry;
use bench_harness::sampling::{Case, Plan};
use std::path::Path;

/// The emulator, as Debian's `qemu-user` installs it.
pub const QEMU: &str = "qemu-x86_64";

/// The CPU model it emulates for the check.
pub const MODEL: &str = "qemu64";

/// What [`MODEL`] lacks, in words.
pub const LACKS: &str = "SSE4.1/4.2, AES-NI, PCLMULQDQ, AVX, AVX2, AVX-512, VAES and SHA";

/// The emulated CPU, as a report names it.
pub fn cpu() -> String {
    format!("{MODEL} (qemu: no {LACKS})")
}

/// Whether `flags` (a build's compiler flags) ask for a CPU beyond the
/// baseline: a `target-cpu` other than `x86-64`, or a `+feature`.
pub fn beyond_baseline(flags: &[String]) -> bool {
    let all = flags.join(" ");
    let values = |key: &str| -> Vec<String> {
        (all.match_indices(key))
            .map(|(i, _)| {
                all[i + key.len()..]
                    .split_whitespace()
                    .next()
                    .unwrap_or("")
                    .to_string()
            })
            .collect()
    };
    values("target-cpu=").iter().any(|cpu| cpu != "x86-64")
        || values("target-feature=").iter().any(|f| f.contains('+'))
}

/// Each live contender of `entry` (not the A/A control: the reference's
/// own file) run on the older CPU, checked in every mode of `cases` (a
/// run's): its name and outcome. Without the emulator, each is not run,
/// said once.
pub fn check(
    entry: &CipherEntry,
    contenders: &[Contender],
    cases: &[Case],
    dir: &Path,
) -> Vec<(String, OlderCpu)> {
    let cases = processes::one_per_mode(cases);
    let live: Vec<usize> = (0..contenders.len())
        .filter(|&i| contenders[i].live().is_some() && !contenders[i].is_control())
        .collect();
    if live.is_empty() {
        return Vec::new();
    }
    let not_run = |why: String| {
        (live.iter())
            .map(|&i| {
                (
                    contenders[i].name.clone(),
                    OlderCpu::NotRun { why: why.clone() },
                )
            })
            .collect()
    };
    if let Err(why) = emulator() {
        return not_run(why);
    }
    eprintln!(
        "checking {} artifacts on a CPU without {LACKS} ({MODEL}, emulated by qemu)",
        live.len()
    );
    let start = std::time::Instant::now();
    let plan = Plan {
        rounds: 1,
        batch_seconds: 0.001,
    };
    let cpu = cpu();
    // One emulated process per core (at most four), each over its share:
    // emulation is slow, and the shares are independent.
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get().min(4));
    let share = live.len().div_ceil(workers).max(1);
    let shares: Vec<Share> = (live.chunks(share).enumerate())
        .map(|(k, chunk)| Share {
            files: Files::in_dir(dir, &format!("older-cpu-{k}")),
            spec: crate::child::measure::Spec {
                check_only: true,
                ..processes::spec(entry, contenders, chunk, &cases, plan)
            },
            built_beyond: chunk
                .iter()
                .map(|&i| built_beyond(&contenders[i]))
                .collect(),
            labels: chunk.iter().map(|&i| contenders[i].label.clone()).collect(),
        })
        .collect();
    let found: Vec<(String, OlderCpu)> = std::thread::scope(|s| {
        let handles: Vec<_> = (shares.into_iter())
            .map(|share| s.spawn(|| share.run(&cpu)))
            .collect();
        (handles.into_iter())
            .flat_map(|h| {
                h.join().unwrap_or_else(|_| {
                    vec![(
                        String::new(),
                        OlderCpu::NotRun {
                            why: "its check ended with its thread".into(),
                        },
                    )]
                })
            })
            .collect()
    });
    eprintln!("    in {:.1}s", start.elapsed().as_secs_f64());
    found
}

/// Some of the contenders, run in one emulated process: its files, the
/// measuring spec, and for each engine whether it was built beyond the
/// baseline and its label.
struct Share {
    files: Files,
    spec: crate::child::measure::Spec,
    built_beyond: Vec<bool>,
    labels: Vec<String>,
}

impl Share {
    /// Runs the share's check on the emulated CPU, again without an engine
    /// that kills it: each engine's name and outcome, in order.
    fn run(mut self, cpu: &str) -> Vec<(String, OlderCpu)> {
        let wrapper = [QEMU.to_string(), "-cpu".into(), MODEL.into()];
        let mut found: Vec<(String, OlderCpu)> = Vec::new();
        while !self.spec.engines.is_empty() {
            let limit = limit(self.spec.engines.len());
            // Emulation is slow: an engine still running at the deadline is
            // not judged there (the run's own measuring process, native,
            // says whether it hangs), and the others are checked again.
            let mut hung = false;
            let ended = match processes::run_child(&self.spec, &self.files, limit, &wrapper) {
                Ok(Waited::Exited(status)) if status.success() => {
                    match processes::read_outcome(self.files.outcome()) {
                        Ok(outcome) => {
                            for ((o, (name, _)), beyond) in (outcome.engines.iter())
                                .zip(&self.spec.engines)
                                .zip(&self.built_beyond)
                            {
                                found.push((name.clone(), of_state(&o.state, cpu, *beyond)));
                            }
                            return found;
                        }
                        Err(e) => format!("its outcome could not be read: {}", cause(e)),
                    }
                }
                Ok(Waited::Exited(status)) => match status.code() {
                    Some(code) => format!("the process exited with code {code}"),
                    None => format!("killed by {}", processes::signal_of(&status)),
                },
                Ok(Waited::Hung(limit)) => {
                    hung = true;
                    format!(
                        "still running at its deadline of {:.0} s on the emulated CPU (killed)",
                        limit.as_secs_f64()
                    )
                }
                Err(e) => cause(e),
            };
            // The marker names the engine that was running; none: the
            // oracle or the harness itself failed there.
            let Some(k) = self
                .files
                .running()
                .filter(|&k| k < self.spec.engines.len())
            else {
                let why = format!("the check could not run on {MODEL}: {ended}");
                found.extend(
                    (self.spec.engines.iter())
                        .map(|(name, _)| (name.clone(), OlderCpu::NotRun { why: why.clone() })),
                );
                return found;
            };
            let (name, _) = self.spec.engines.remove(k);
            let beyond = self.built_beyond.remove(k);
            let label = self.labels.remove(k);
            eprintln!("    {label} failed on {MODEL} ({ended}); checking the others again");
            found.push((
                name,
                if hung {
                    OlderCpu::NotRun { why: ended }
                } else {
                    OlderCpu::Failed {
                        cpu: cpu.to_string(),
                        why: ended,
                        built_beyond: beyond,
                    }
                },
            ));
        }
        found
    }
}

/// The deadline of an emulated process checking `engines` engines: a
/// start, then a few seconds an engine, several times what a check of
/// this workspace's variants takes there.
fn limit(engines: usize) -> std::time::Duration {
    std::time::Duration::from_secs(20 + 5 * u64::try_from(engines).unwrap_or(u64::MAX / 8))
}

/// An error's one line.
fn cause(e: crate::error::Error) -> String {
    match e {
        crate::error::Error::Usage { cause, .. } | crate::error::Error::Failed(cause) => cause,
    }
}

/// Whether the emulator runs here: `Err` says why not.
fn emulator() -> Result<(), String> {
    match std::process::Command::new(QEMU).arg("-version").output() {
        Ok(o) if o.status.success() => Ok(()),
        Ok(o) => Err(format!(
            "{QEMU} -version failed: {}",
            String::from_utf8_lossy(&o.stderr).trim()
        )),
        Err(_) => Err(format!(
            "{QEMU} is not installed (Debian's qemu-user; .ci/run installs it)"
        )),
    }
}

/// Whether contender `c` was built for a CPU beyond the baseline.
fn built_beyond(c: &Contender) -> bool {
    beyond_baseline(&c.tree.all_rustflags())
}

/// An engine's outcome of the check as what it did on the older CPU.
fn of_state(state: &EngineState, cpu: &str, built_beyond: bool) -> OlderCpu {
    match state {
        EngineState::Measured => OlderCpu::Right { cpu: cpu.into() },
        EngineState::Unavailable(why) => OlderCpu::Unavailable {
            cpu: cpu.into(),
            why: why.clone(),
        },
        EngineState::Failed(why) => OlderCpu::Failed {
            cpu: cpu.into(),
            why: why.clone(),
            built_beyond,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flags(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    /// A target CPU other than the baseline, or a feature added, is beyond
    /// it; the baseline named, a feature removed, LTO or nothing is not.
    #[test]
    fn what_asks_for_more_than_the_baseline() {
        assert!(beyond_baseline(&flags(&["-Ctarget-cpu=x86-64-v3"])));
        assert!(beyond_baseline(&flags(&["-C", "target-cpu=native"])));
        assert!(beyond_baseline(&flags(&["-Ctarget-feature=-sse4.2,+aes"])));
        assert!(!beyond_baseline(&flags(&["-Ctarget-cpu=x86-64"])));
        assert!(!beyond_baseline(&flags(&["-Ctarget-feature=-avx2"])));
        assert!(!beyond_baseline(&flags(&["-Cremark=inline", "-Clto=fat"])));
        assert!(!beyond_baseline(&[]));
    }
}
