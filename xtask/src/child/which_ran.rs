//! Which backend a crate ran, per mode family: timed on this CPU (the
//! `__sample` child's instruction pointers mapped to the artifact's
//! functions, `intake/symbols.rs`, then to the crate's modules,
//! `intake/modules.rs`) and counted under callgrind
//! (`count/by_module.rs`). What compare's crate report and the gate name.

use crate::child::sample::{CaseSamples, SampleOutcome, SampleSpec};
use crate::child::sampler;
use crate::count::by_module;
use crate::env::deadline::{self, Group, Waited};
use crate::intake::modules::{self, Library};
use crate::intake::symbols::Symbols;
use crate::report::ran::{FamilyRan, Observed, Ran};
use crate::report::{Family, Operation};
use bench_harness::sampling::Case;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

/// CPU time between two samples asked of the kernel (which fires the
/// profiling timer on its tick: 1 to 4 ms apart on most kernels).
const INTERVAL: Duration = Duration::from_micros(250);
/// Samples enough for one case.
const ENOUGH: usize = 1000;
/// The wall-clock time one case may take at most, at least and per second
/// of a cell's timed work (`--sec`): a full run's 0.02 s gives a case 1 s,
/// about 250 samples on a kernel of 250 Hz with the core to itself;
/// `--quick` gives it less, never under a quarter of that.
const LIMIT: Duration = Duration::from_secs(1);
const LIMIT_MIN: Duration = Duration::from_millis(250);
const LIMIT_PER_SEC: f64 = 50.0;

/// How long each case is sampled when a cell of the run is timed for `sec`
/// seconds: [`LIMIT_PER_SEC`] times that, within [`LIMIT_MIN`] and
/// [`LIMIT`].
pub fn sampled_for(sec: f64) -> Duration {
    Duration::try_from_secs_f64(sec * LIMIT_PER_SEC)
        .unwrap_or(LIMIT)
        .clamp(LIMIT_MIN, LIMIT)
}

/// Both observations of the artifact `so` (of the cipher `cipher`, a crate
/// whose library is `lib`): one case per family of `cases` (the first),
/// sampled on this CPU for `per_case` each ([`sampled_for`]) and counted by
/// callgrind, the counts by `crates` too unless there are none
/// ([`by_module::counted`]); `dir` is scratch.
pub fn observe(
    cipher: &str,
    so: &Path,
    cases: &[Case],
    (lib, crates): (&str, &[Library]),
    dir: &Path,
    per_case: Duration,
) -> Ran {
    let cases = one_per_family(cipher, cases);
    Ran {
        timed: timed(cipher, so, &cases, lib, dir, per_case),
        counted: by_module::counted(cipher, so, &cases, lib, crates, dir),
    }
}

/// The first case of each family among `cases`, in [`Family::ALL`] order.
pub fn one_per_family(cipher: &str, cases: &[Case]) -> Vec<Case> {
    let family = |c: &Case| Family::of_case(&c.alg(cipher), Operation::of(c), c.key_bytes * 8);
    (Family::ALL.into_iter())
        .filter_map(|f| cases.iter().find(|c| family(c) == f).copied())
        .collect()
}

/// Where the CPU time of each of `cases` went among the crate's modules,
/// sampled in a `__sample` child (a pass of its own, a few seconds).
pub fn timed(
    cipher: &str,
    so: &Path,
    cases: &[Case],
    lib: &str,
    dir: &Path,
    per_case: Duration,
) -> Observed {
    if !sampler::AVAILABLE {
        return Observed::Unavailable(sampler::NOT_AVAILABLE.into());
    }
    match run_child(so, cases, dir, per_case).and_then(|o| attribute(cipher, so, cases, lib, &o)) {
        Ok(families) => Observed::Families(families),
        Err(why) => Observed::Unavailable(why),
    }
}

/// Runs `__sample` on `so` in `cases`, within its deadline.
fn run_child(
    so: &Path,
    cases: &[Case],
    dir: &Path,
    per_case: Duration,
) -> Result<SampleOutcome, String> {
    let spec_path = dir.join("sample.json");
    let out_path = dir.join("sample-outcome.json");
    let err_path = dir.join("sample-stderr");
    let spec = SampleSpec {
        so: so.to_path_buf(),
        cases: cases.to_vec(),
        interval: INTERVAL,
        enough: ENOUGH,
        limit: per_case,
    };
    let at = |p: &Path, e: &dyn std::fmt::Display| format!("{}: {e}", p.display());
    let json = serde_json::to_vec(&spec).map_err(|e| e.to_string())?;
    std::fs::write(&spec_path, json).map_err(|e| at(&spec_path, &e))?;
    let _ = std::fs::remove_file(&out_path);
    let exe = std::env::current_exe().map_err(|e| format!("finding xtask: {e}"))?;
    let err = std::fs::File::create(&err_path).map_err(|e| at(&err_path, &e))?;
    let mut cmd = Command::new(exe);
    cmd.arg("__sample")
        .args([&spec_path, &out_path])
        .stdout(Stdio::null())
        .stderr(err);
    // It starts no process of its own.
    let mut child = deadline::spawn(&mut cmd, Group::Shared)
        .map_err(|e| format!("starting the sampling process: {e}"))?;
    let limit = deadline::sample(cases.len(), per_case);
    let waited = deadline::wait(&mut child, limit, Group::Shared)
        .map_err(|e| format!("waiting for the sampling process: {e}"))?;
    match waited {
        Waited::Exited(status) if status.success() => {}
        Waited::Exited(status) => {
            let err = std::fs::read_to_string(&err_path).unwrap_or_default();
            let last = err.lines().rfind(|l| !l.trim().is_empty()).unwrap_or("");
            return Err(format!("the sampling process: {status}; {last}"));
        }
        Waited::Hung(limit) => {
            return Err(format!(
                "the sampling process was still running at its deadline of {:.1} s, killed",
                limit.as_secs_f64()
            ));
        }
    }
    let bytes = std::fs::read(&out_path).map_err(|e| at(&out_path, &e))?;
    serde_json::from_slice(&bytes).map_err(|e| at(&out_path, &e))
}

/// The child's samples of each case by the crate's modules, the
/// artifact's functions read from `so`.
fn attribute(
    cipher: &str,
    so: &Path,
    cases: &[Case],
    lib: &str,
    outcome: &SampleOutcome,
) -> Result<Vec<FamilyRan>, String> {
    let symbols = Symbols::read(so)?;
    let crypt = (symbols.address_of(abi::symbol::CRYPT))
        .ok_or_else(|| format!("{}: no {}", so.display(), abi::symbol::CRYPT))?;
    let base = (outcome.crypt_address.checked_sub(crypt))
        .ok_or_else(|| format!("{} loaded below its own address", abi::symbol::CRYPT))?;
    if outcome.cases.len() != cases.len() {
        return Err(format!(
            "the sampling process answered {} cases, not {}",
            outcome.cases.len(),
            cases.len()
        ));
    }
    let mut out = Vec::new();
    for (case, sampled) in cases.iter().zip(&outcome.cases) {
        match sampled {
            CaseSamples::Sampled { addresses, .. } => {
                out.push(samples_by_module(
                    cipher, lib, case, &symbols, base, addresses,
                ));
            }
            CaseSamples::Failed(why) => {
                return Err(format!("{} {}: {why}", case.alg(cipher), case.dir_name()));
            }
        }
    }
    Ok(out)
}

/// `addresses` (sampled in a process where the artifact's addresses are
/// `base` higher than in its file) by the crate `lib`'s modules: each
/// sample one in the total, and one for the module of the function it
/// fell in, if that is the crate's.
pub fn samples_by_module(
    cipher: &str,
    lib: &str,
    case: &Case,
    symbols: &Symbols,
    base: u64,
    addresses: &[u64],
) -> FamilyRan {
    let alg = case.alg(cipher);
    let dir = Operation::of(case);
    let weights = (addresses.iter()).map(|&a| {
        (
            a.checked_sub(base).and_then(|at| symbols.function_at(at)),
            1,
        )
    });
    modules::attribute(
        lib,
        Family::of_case(&alg, dir, case.key_bytes * 8),
        (&alg, dir, case.key_bytes * 8, case.block_bytes),
        weights,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use bench_harness::engine::{Dir, Mode};

    /// A case is sampled for longer the longer a run times its cells, a
    /// full run's (`--sec 0.02`) a second, never less than the floor, and a
    /// value that is no duration gives the full second.
    #[test]
    fn sampling_follows_the_runs_seconds() {
        let ms = |sec: f64| sampled_for(sec).as_millis();
        assert_eq!(ms(0.02), 1000);
        assert_eq!(ms(0.008), 400);
        assert_eq!(ms(0.003), 250);
        assert_eq!(ms(10.0), 1000);
        assert_eq!(ms(f64::NAN), 1000);
        assert_eq!(ms(-1.0), 1000);
    }

    /// Samples map to the function whose code holds them once the load base
    /// is subtracted, and functions to the crate's modules; samples outside
    /// the artifact (the harness, libc) count only in the total.
    #[test]
    fn samples_to_modules() {
        let symbols = Symbols::from_raw([
            (0x1000, 0x40, "inlinelab_crypt"),
            (
                0x2000,
                0x800,
                "_ZN3aes8backends11x86_vaes5123Aes7encrypt17h0123456789abcdefE",
            ),
            (
                0x3000,
                0x100,
                "_ZN3aes8backends7x86_aes7encrypt17h0123456789abcdefE",
            ),
            (0x4000, 0x100, "_ZN4core3ptr4copy17h0123456789abcdefE"),
        ]);
        let base = 0x7f00_0000_0000;
        let mut addresses = vec![base + 0x2010; 90];
        addresses.extend([base + 0x27ff; 4]);
        addresses.extend([base + 0x3004; 2]);
        addresses.extend([base + 0x1001, base + 0x4000]);
        // The harness, and a gap between functions.
        addresses.extend([0x5555_0000_1000, base + 0x2900]);
        let case = Case::crypt(Mode::Ctr, Dir::Encrypt, 16, 8192);
        let r = samples_by_module("aes", "aes", &case, &symbols, base, &addresses);
        assert_eq!(r.family, Family::Parallel);
        assert_eq!(
            (r.alg.as_str(), r.key_bits, r.block_bytes),
            ("ctr(aes)", 128, 8192)
        );
        assert_eq!(r.total, 100);
        let got: Vec<(&str, u64)> = (r.modules.iter())
            .map(|m| (m.module.as_str(), m.count))
            .collect();
        assert_eq!(
            got,
            [
                ("aes::backends::x86_vaes512", 94),
                ("aes::backends::x86_aes", 2)
            ]
        );
        assert_eq!(r.backend(), Some(("aes::backends::x86_vaes512", 0.94)));
    }

    /// One case per family, the first of each, in the families' order.
    #[test]
    fn one_case_per_family() {
        let cases = [
            Case::set_key(Mode::Ecb, 16),
            Case::crypt(Mode::Cbc, Dir::Encrypt, 16, 8192),
            Case::crypt(Mode::Ecb, Dir::Encrypt, 16, 8192),
            Case::crypt(Mode::Ecb, Dir::Decrypt, 16, 8192),
        ];
        assert_eq!(
            one_per_family("aes", &cases),
            [cases[2], cases[1], cases[0]]
        );
    }
}
