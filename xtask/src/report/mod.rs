//! The compare report's data: the JSON (`schema_version` 7) that compare
//! writes and render, the gate and the baseline files read;
//! `crate::render` renders it. Every median and interval in it can be
//! computed again from the per-round samples it holds ([`Speed::samples`]),
//! by the functions here.

pub mod annotations;
pub mod baseline_file;
pub mod calibration;
pub mod check;
mod columns;
mod family;

#[cfg(test)]
pub(crate) mod fixture;
pub mod grid;
pub mod json;
pub mod merged;
pub mod older_cpu;
pub mod ran;
pub mod raw;
pub mod reader;
pub mod recompute;
pub mod secrets;
mod shared_lists;

use crate::decide::paired;
pub use crate::decide::paired::Sample;
use crate::decide::verdict::{self, Verdict};
use crate::env::flags::FlagSet;
use crate::env::workspace::{Inputs, Toolchain};
use crate::select::artifact::Artifact;
use crate::select::cases::Keys;
use bench_harness::machine::Machine;
use bench_harness::stats::Ratio;
pub use family::{Family, Operation, case_name};
use serde::{Deserialize, Serialize};
use std::fmt;

/// The schema this xtask writes: 3 stored each speed entry's samples
/// column-wise ([`columns`]), their ticks to [`TICKS_DIGITS`] digits; 4
/// computes every figure by the low-quantile estimator of [`paired`] and
/// records how the rounds were spent ([`Run::spent`]), the looks and the
/// size cost; 5 asks a variant of the same footprint to be faster by more
/// than the A/A control's deviation, and measured with placement
/// randomized (`bench_harness::placement`); 6 represents a group of the
/// same machine code by its smallest member, and keeps the smaller where a
/// step still leans when racing stops (the burden of proof,
/// `Verdict::leaning`); 7 sets no process aside among fewer than eight
/// (`paired::OUTLIER_MIN_PROCESSES`): an older report is read as it is and
/// its figures and verdict computed again from its samples by this rule.
pub const SCHEMA_VERSION: u32 = 7;

/// The oldest schema this xtask reads: 2, one object per sample, is read
/// too (the gate reads the base revision's baselines, which may be older
/// than this tree) and written as 3.
pub const OLDEST_READ: u32 = 2;

/// Whether a report of schema `version` can be read.
pub fn readable(version: u64) -> bool {
    (u64::from(OLDEST_READ)..=u64::from(SCHEMA_VERSION)).contains(&version)
}

/// The significant digits a sample's ticks per operation keeps: a relative
/// step of at most 5e-7, far below any spread a report shows, and what
/// keeps a report of thirty thousand rounds under a megabyte.
pub const TICKS_DIGITS: i32 = 7;

/// `ticks` to [`TICKS_DIGITS`] significant digits.
pub fn round_ticks(ticks: f64) -> f64 {
    if !ticks.is_finite() || ticks == 0.0 {
        return ticks;
    }
    let exp = TICKS_DIGITS - 1 - ticks.abs().log10().floor() as i32;
    // Scaling by an exact power of ten, so that the result is the double
    // nearest the decimal and prints as it.
    if exp >= 0 {
        let scale = 10f64.powi(exp);
        (ticks * scale).round() / scale
    } else {
        let scale = 10f64.powi(-exp);
        (ticks / scale).round() * scale
    }
}

/// Everything a compare run found.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Report {
    pub schema_version: u32,
    /// The command that produced it.
    pub generated_by: String,
    pub cipher: String,
    /// The machine the timings ran on, as the measuring process read it;
    /// `null` when nothing was timed.
    pub machine: Option<Machine>,
    /// The machine label: its CPU's (`CpuInfo::label`), with the name
    /// `compare --machine-label` adds after a `-`; `null` when nothing was
    /// timed, and in a report written before it was stored (readers take
    /// the CPU's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub machine_label: Option<String>,
    pub toolchain: Toolchain,
    pub date: String,
    pub commit: String,
    /// What decides the artifacts: a hash of those inputs, and whether they
    /// differed from the commit.
    pub inputs: Inputs,
    pub run: Run,
    /// The reference variant's artifact, copied and timed as a contender of
    /// its own: what identical code measures against itself.
    pub control: Option<Control>,
    pub variants: Vec<Entry>,
    pub peers: Vec<Entry>,
    pub verdict: Verdict,
    /// A crate's inline attributes and the variants that removed them
    /// (`compare --crate`); absent for this workspace's ciphers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<annotations::Annotations>,
    /// The compiler flag sets the run built every contender under, in the
    /// order asked (`compare --opt-level s,z` and the like): each entry
    /// names its own (`Entry::flags`). Empty when the run built under the
    /// profile alone.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flag_sets: Vec<FlagSet>,
    /// `compare --crate`'s second run: the suggested set
    /// (`annotations.suggestion`) timed whole against `published` and the
    /// first run's pick, interleaved in processes of its own; absent
    /// otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suggested: Option<Box<Report>>,
    /// The medians as tcrypt would print them (cycles mode lines).
    pub raw: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Run {
    /// `--quick`: fewer cases and rounds.
    pub quick: bool,
    /// The key sizes timed: each mode's first (`--keys first`, a flag
    /// grid's default) or all; left out when all, and in a `--quick` report
    /// written before it was said (which timed the first).
    #[serde(default, skip_serializing_if = "Keys::is_all")]
    pub keys: Keys,
    /// Rounds each first-pass process ran in every case.
    pub rounds: usize,
    pub batch_seconds: f64,
    /// The reference variant: ratios are taken against it.
    #[serde(rename = "reference_variant")]
    pub reference: String,
    /// The verdict's threshold, as a fraction (0.02 is 2%).
    pub threshold: f64,
    /// What a quiet round is.
    pub quiet: Quiet,
    /// The share of batches the probes found quiet: said, not used (the
    /// estimator, [`paired`], filters nothing out).
    pub quiet_share: f64,
    /// Independent measuring processes the rounds came from, one after the
    /// other (each loads the artifacts afresh): the unit of every interval
    /// ([`paired`]). 1 in a report written before there were several.
    #[serde(default = "one")]
    pub processes: usize,
    /// How many times the rule looked at the intervals; the verdict's
    /// intervals are at the confidence of the last look
    /// ([`paired::confidence`]).
    #[serde(default = "one")]
    pub looks: usize,
    /// The seconds of timing the run was allowed (`--budget`); `null` in a
    /// report written before there was one.
    #[serde(default)]
    pub budget_seconds: Option<f64>,
    /// The gain a larger variant must show per doubling of its footprint,
    /// on top of the bar (`--size-cost`, as a fraction); 0 in a report
    /// written before there was one.
    #[serde(default)]
    pub size_cost: f64,
    /// Each measuring process: what it timed and why.
    #[serde(default)]
    pub spent: Vec<Spent>,
    /// How far identical code's ratio moves between runs on this machine,
    /// from its calibration: the bar is at least `1 + spread`
    /// ([`verdict::Noise::noise`]); left out when no calibration measured
    /// this machine (and in a report written before there was one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub between_runs: Option<calibration::BetweenRuns>,
    /// Whether and how the headline cases' instructions were counted
    /// (`explain.rs`); left out when not asked.
    #[serde(default, skip_serializing_if = "Counting::not_asked")]
    pub counting: Counting,
    /// Doubts about the measurement, said in the report.
    pub notes: Vec<String>,
}

impl Run {
    /// What was measured, in words: `--quick`'s fewer cases and rounds,
    /// each mode's first key size, or the full default set.
    pub fn amount_words(&self) -> &'static str {
        match (self.quick, self.keys) {
            (true, _) => "`--quick`: fewer cases and rounds, for a first look",
            (false, Keys::First) => {
                "each mode's first key size only (`--keys first`, a flag grid's default)"
            }
            (false, Keys::All) => "full default set",
        }
    }
}

/// One measuring process of a run, as the report tells how the rounds were
/// spent.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Spent {
    /// The look after which it ran: 0 for the first pass.
    pub look: usize,
    /// The engines it timed (contender names).
    pub engines: Vec<String>,
    /// The cases it timed.
    pub cases: usize,
    /// The rounds it ran in every case.
    pub rounds: usize,
    /// Seconds it took.
    pub seconds: f64,
    /// Why: the comparisons it was to settle (empty for the first pass).
    pub for_steps: Vec<String>,
}

/// Whether and how compare counted instructions: what the report's
/// instructions-per-block column says of its source.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Counting {
    /// A report written before compare counted, or a gate's or
    /// baseline's run (which count every case, and say so themselves).
    #[default]
    NotAsked,
    /// valgrind was not on PATH.
    NoValgrind,
    /// Counted by callgrind, under this valgrind (`valgrind --version`).
    Callgrind { valgrind: String },
}

impl Counting {
    pub fn not_asked(&self) -> bool {
        *self == Counting::NotAsked
    }
}

/// The quiet criterion of the run (`bench_harness::interleave::QUIET`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Quiet {
    /// The criterion in words.
    pub criterion: String,
    /// The least probe rate of a quiet batch, as a fraction of the run's
    /// full-capacity level (`interleave::QUIET`).
    pub threshold: f64,
}

/// The A/A control: the reference variant's `.so` under another file name,
/// timed as an independent contender; its speed over the original, over
/// the crypt cases (the same mean as `overall`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Control {
    /// The reference variant it is a copy of.
    pub of: String,
    pub ratio: f64,
    pub ci_low: f64,
    pub ci_high: f64,
    /// Its own speed entries, with their samples.
    pub speed: Vec<Speed>,
}

impl Control {
    pub fn interval(&self) -> Ratio {
        Ratio {
            ratio: self.ratio,
            low: self.ci_low,
            high: self.ci_high,
        }
    }

    /// How far identical code measured from itself: the larger distance of
    /// the interval's ends from 1 (0.013 is 1.3%).
    pub fn deviation(&self) -> f64 {
        verdict::deviation(&self.interval())
    }
}

/// A variant or a peer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    /// `never`, or for a peer `rustcrypto`.
    pub name: String,
    /// `cast6-never`, or `cast6 0.2 (RustCrypto)`.
    pub label: String,
    pub status: Status,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub reason: Option<String>,
    /// The first variant (in report order) whose hot path is the same
    /// machine code as this one's; `null` for the first of a group, for a
    /// variant alone, and for a peer.
    pub same_code_as: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub artifact: Option<Artifact>,
    /// Fingerprint of the file the measuring process loaded; equal to the
    /// artifact's, or the entry failed.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub measured_fingerprint: Option<String>,
    pub speed: Vec<Speed>,
    /// Speed over the crypt cases against the reference variant, by the
    /// estimator of [`paired`], at the run's last look.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub overall: Option<Ratio>,
    /// Why callgrind counted none of its cases although the run sized (and
    /// timed) it: its artifact says the CPU valgrind presents cannot run
    /// it (valgrind runs no VAES, no AVX-512). Its speed entries then carry
    /// no `instructions`, and the gate judges its sizes and wall clock.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub uncounted: Option<String>,
    /// The name of the flag set it was built under (`Os.znver3`, one of
    /// `Report::flag_sets`); `null` under the profile alone.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub flags: Option<String>,
    /// Where a branch or an address depends on its secrets, as memcheck
    /// saw it (`count/memcheck.rs`); `null` where nobody looked (a report
    /// written before there was a look, a contender not built).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub secrets: Option<secrets::Secrets>,
    /// What it did on a CPU without the extensions its code may use
    /// (`time/emulated.rs`); `null` where nobody looked.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub older_cpu: Option<older_cpu::OlderCpu>,
    /// The cases of the run a library peer does not offer (its
    /// declaration says what it offers), left out of its speeds: said,
    /// never a failure, and every comparison with it is on the cases both
    /// ran; `null` where it offers every case (and for all but library
    /// peers).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub not_offered: Option<NotOffered>,
}

/// A library peer's cases left out of its row: what it offers, and the
/// run's cases outside it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NotOffered {
    /// The library, as the declarations name it (`libgcrypt`).
    pub by: String,
    /// What it offers, in words (`16-byte keys in ECB, CBC and CTR`).
    pub offers: String,
    /// The cases left out, each mode and key size once (every direction
    /// and size of it left out alike).
    pub cases: Vec<Unoffered>,
}

/// One mode under one key size that a library peer does not offer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Unoffered {
    /// `ecb(cast5)`.
    pub alg: String,
    /// Key setup, rather than the mode's crypt cases (both directions).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub key_setup: bool,
    pub key_bits: usize,
}

impl std::fmt::Display for Unoffered {
    /// `ecb(cast5) under a 64-bit key`, `key setup of a 64-bit key`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.key_setup {
            write!(f, "key setup of a {}-bit key", self.key_bits)
        } else {
            write!(f, "{} under a {}-bit key", self.alg, self.key_bits)
        }
    }
}

impl NotOffered {
    /// The sentence a report says it in: `not offered by libgcrypt:
    /// ecb(cast5) under a 64-bit key and ... (libgcrypt offers 16-byte keys
    /// in ECB, CBC and CTR)`.
    pub fn sentence(&self) -> String {
        let cases: Vec<String> = self.cases.iter().map(ToString::to_string).collect();
        let cases = match cases.as_slice() {
            [] => String::new(),
            [one] => one.clone(),
            [most @ .., last] => format!("{} and {last}", most.join(", ")),
        };
        format!(
            "not offered by {}: {cases} ({} offers {})",
            self.by, self.by, self.offers
        )
    }
}

/// What became of a variant or peer; `ok`, `failed`, `hung`,
/// `unavailable` or `screened` in the JSON.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Status {
    /// Built, sized and measured.
    #[serde(rename = "ok")]
    Measured,
    /// Failed to build, load, check or run; the entry's `reason` says why.
    #[serde(rename = "failed")]
    Failed,
    /// Its process (measuring or counting) was still running at its
    /// deadline and was killed: an artifact that loops; the `reason` says
    /// which deadline.
    #[serde(rename = "hung")]
    Hung,
    /// It cannot run here: this CPU lacks what it needs (e.g. SSE4.2 CRC32C
    /// on a CPU without SSE4.2), or a library peer's library or provider is
    /// missing or would not load (the `reason` says which); reported, never
    /// replaced by another method, and not a failure.
    #[serde(rename = "unavailable")]
    Unavailable,
    /// Built and sized, and left out of the full run by the screen: another
    /// variant no larger was clearly faster (the `reason` says which, by how
    /// much, on which case).
    #[serde(rename = "screened")]
    Screened,
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Status::Measured => "ok",
            Status::Failed => "failed",
            Status::Hung => "hung",
            Status::Unavailable => "unavailable",
            Status::Screened => "screened",
        })
    }
}

fn one() -> usize {
    1
}

/// One case's speed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Speed {
    /// `ecb(cast6)`.
    pub alg: String,
    pub dir: Operation,
    pub key_bits: usize,
    /// 0 for key setup.
    pub block_bytes: usize,
    /// Counter ticks per operation: the level ([`paired::level`]).
    pub ticks_per_op: f64,
    /// Operations per second at that median.
    pub ops_per_sec: f64,
    /// Bytes per second at that median; `null` for key setup.
    pub bytes_per_sec: Option<f64>,
    /// Counter ticks per byte at that median; `null` for key setup.
    pub ticks_per_byte: Option<f64>,
    /// Half the interquartile range over the median.
    pub spread: f64,
    /// Against the reference variant, by the estimator of [`paired`], with
    /// its 95% interval over the processes.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub ratio: Option<Ratio>,
    /// Rounds the figures come from.
    pub rounds: usize,
    /// Instructions per operation inside the artifact, counted by callgrind
    /// (baselines and gate runs only).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub instructions: Option<f64>,
    /// Every round, in order, each with its measuring process: the first
    /// pass's processes hold every contender, a racing process some.
    /// Written column-wise ([`columns`]).
    #[serde(default, with = "columns")]
    pub samples: Vec<Sample>,
}

impl Speed {
    /// A speed entry for case `c` of `entry` with nothing measured.
    pub fn uncounted(
        entry: &bench_harness::registry::CipherEntry,
        c: &bench_harness::sampling::Case,
    ) -> Speed {
        Speed {
            alg: c.alg(entry.name),
            dir: Operation::of(c),
            key_bits: c.key_bytes * 8,
            block_bytes: c.block_bytes,
            ticks_per_op: 0.0,
            ops_per_sec: 0.0,
            bytes_per_sec: None,
            ticks_per_byte: None,
            spread: 0.0,
            ratio: None,
            rounds: 0,
            instructions: None,
            samples: Vec::new(),
        }
    }

    /// The key of this entry as the gate's rows and the baseline file name
    /// it: `ecb(aes) encrypt 128-bit 16 B`, or `ecb(aes) setkey 128-bit`
    /// for key setup.
    pub fn case_name(&self) -> String {
        case_name(&self.alg, self.dir, self.key_bits, self.block_bytes)
    }

    /// Sets the figures that come from this engine's samples alone, the
    /// counter running at `hz`: its level ([`paired::level`]), the rates at
    /// it, the spread and the rounds.
    pub fn set_figures(&mut self, hz: f64) {
        let level = paired::level(&self.samples);
        let per_byte = |x: f64| (self.dir.is_crypt() && self.block_bytes > 0).then_some(x);
        self.ticks_per_op = level;
        self.ops_per_sec = hz / level;
        self.bytes_per_sec = per_byte(self.block_bytes as f64 * hz / level);
        self.ticks_per_byte = per_byte(level / self.block_bytes as f64);
        self.spread = bench_harness::stats::spread(&self.ticks());
        self.rounds = self.samples.len();
    }

    /// Ticks per operation of every round.
    pub fn ticks(&self) -> Vec<f64> {
        self.samples.iter().map(|s| s.ticks_per_op).collect()
    }

    /// A 95% interval of the level's operations per second: of the median
    /// over the measuring processes of their levels ([`paired::levels`]),
    /// the figure the report prints and the chart plots, by order
    /// statistics (the slowest and fastest process with fewer than six).
    /// Not of the median of every round: with a slow tenant on the core,
    /// rounds fall in two heaps, and that median's interval can miss the
    /// level it would be drawn around.
    pub fn ops_interval(&self, hz: f64) -> Option<(f64, f64)> {
        let levels: Vec<f64> = (paired::levels(&self.samples).into_iter())
            .map(|(_, t)| t)
            .collect();
        let (lo, hi) = stats_median_interval(&levels)?;
        // More ticks is slower: the interval turns over.
        Some((hz / hi, hz / lo))
    }
}

/// A distribution-free 95% interval of the median of `values`: the order
/// statistics `k` and `n + 1 - k` for the largest `k` with at least 95%
/// binomial coverage (the extremes when none reaches it).
pub fn stats_median_interval(values: &[f64]) -> Option<(f64, f64)> {
    let n = values.len();
    if n == 0 {
        return None;
    }
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    // P(X < k) for X ~ Binomial(n, 1/2).
    let below = |k: usize| -> f64 {
        let mut c = 1.0f64;
        let mut sum = 0.0;
        for i in 0..k {
            sum += c;
            c = c * (n - i) as f64 / (i + 1) as f64;
        }
        sum / 2f64.powi(n as i32)
    };
    let mut k = 1;
    while k < n.div_ceil(2) && 1.0 - 2.0 * below(k + 1) >= 0.95 {
        k += 1;
    }
    Some((v[k - 1], v[n - k]))
}

/// Why a variant is left out of the timing as the same machine code as
/// `same` (hot path and key schedule): [`Entry::timed_as`] reads it back.
pub fn same_code_reason(same: &str) -> String {
    format!(
        "the same machine code as `{same}` (hot path and key schedule, addresses normalized): one result, timed once as `{same}`"
    )
}

impl Entry {
    /// The variant this screened one was timed once as, its machine code
    /// being the same ([`same_code_reason`]).
    pub fn timed_as(&self) -> Option<&str> {
        if self.status != Status::Screened {
            return None;
        }
        let r = self.reason.as_deref()?;
        let name = r
            .strip_prefix("the same machine code as `")?
            .split('`')
            .next()?;
        (same_code_reason(name) == r).then_some(name)
    }

    /// The entry as the rule sees it, if it is one: measured, sized, and
    /// with a speed against the `reference` (or the reference itself).
    pub fn candidate(&self, reference: &str) -> Option<verdict::Candidate> {
        let a = self.artifact.as_ref()?;
        (self.status == Status::Measured && (self.name == reference || self.overall.is_some()))
            .then(|| verdict::Candidate {
                name: self.name.clone(),
                size: a.footprint_bytes,
                same_code_as: self.same_code_as.clone(),
            })
    }

    /// The speed of one case.
    pub fn speed_at(
        &self,
        alg: &str,
        dir: &Operation,
        key_bits: usize,
        block: usize,
    ) -> Option<&Speed> {
        self.speed.iter().find(|s| {
            s.alg == alg && s.dir == *dir && s.key_bits == key_bits && s.block_bytes == block
        })
    }
}

impl Report {
    /// Variants and peers, in report order.
    pub fn entries(&self) -> impl Iterator<Item = &Entry> {
        self.variants.iter().chain(&self.peers)
    }

    /// Variants and peers, in report order, to change.
    pub fn entries_mut(&mut self) -> impl Iterator<Item = &mut Entry> {
        self.variants.iter_mut().chain(&mut self.peers)
    }

    /// The counter's rate (ticks per second), 1 when nothing was timed.
    pub fn hz(&self) -> f64 {
        self.machine.as_ref().map_or(1.0, |m| m.counter_hz)
    }

    /// Core cycles per counter tick, where the core clock was estimated.
    pub fn cycles_per_tick(&self) -> Option<f64> {
        let m = self.machine.as_ref()?;
        Some(m.core_hz.known()? / m.counter_hz)
    }

    /// The cases the chart plots: per mode family that processes bytes
    /// (parallel modes, CBC encryption, digest, MAC, stream cipher, AEAD),
    /// its first mode,
    /// direction and key in report order at the largest block measured;
    /// with a single family, its smallest block too, first.
    pub fn headlines(&self) -> Vec<Headline> {
        let speeds: Vec<&Speed> = (self.entries().flat_map(|e| &e.speed))
            .filter(|s| s.dir.is_crypt())
            .collect();
        let mut out = Vec::new();
        for f in [
            Family::Parallel,
            Family::Serial,
            Family::Digest,
            Family::Mac,
            Family::Stream,
            Family::Aead,
        ] {
            let Some(first) = speeds.iter().find(|s| Family::of(s) == f) else {
                continue;
            };
            let blocks: Vec<usize> = (speeds.iter())
                .filter(|x| {
                    x.alg == first.alg && x.dir == first.dir && x.key_bits == first.key_bits
                })
                .map(|x| x.block_bytes)
                .collect();
            let at = |block: usize| Headline {
                alg: first.alg.clone(),
                dir: first.dir,
                key_bits: first.key_bits,
                block,
            };
            let (Some(&small), Some(&large)) = (blocks.iter().min(), blocks.iter().max()) else {
                continue;
            };
            out.push(at(large));
            if out.len() == 1 && small != large {
                out.insert(0, at(small));
            }
        }
        // A second family replaces the first one's smallest block.
        if out.len() > 2 {
            out.remove(0);
        }
        out
    }
}

/// What needs a report's own types of [`Family`] (`family.rs`).
impl Family {
    /// The family of a speed entry.
    pub fn of(s: &Speed) -> Family {
        Family::of_case(&s.alg, s.dir, s.key_bits)
    }

    /// The families `r` measured, in [`Family::ALL`] order.
    pub fn measured(r: &Report) -> Vec<Family> {
        let mut seen: Vec<Family> = Vec::new();
        for s in r.entries().flat_map(|e| &e.speed) {
            if s.rounds > 0 && !seen.contains(&Family::of(s)) {
                seen.push(Family::of(s));
            }
        }
        Family::ALL
            .into_iter()
            .filter(|f| seen.contains(f))
            .collect()
    }
}

/// A case the chart plots.
pub struct Headline {
    pub alg: String,
    pub dir: Operation,
    pub key_bits: usize,
    pub block: usize,
}

impl Headline {
    /// `ecb(cast6) encryption, 128-bit key, 8192-byte blocks`.
    pub fn describe(&self) -> String {
        let what = match self.dir {
            // A digest under a key is a MAC's tag.
            Operation::Digest if self.key_bits > 0 => "MAC",
            Operation::Digest => "digest",
            Operation::Decrypt => "decryption",
            Operation::Encrypt | Operation::Setkey => "encryption",
        };
        let key = if self.key_bits == 0 {
            String::new()
        } else {
            format!(", {}-bit key", self.key_bits)
        };
        format!("{} {what}{key}, {}-byte blocks", self.alg, self.block)
    }

    pub fn speed<'a>(&self, e: &'a Entry) -> Option<&'a Speed> {
        e.speed_at(&self.alg, &self.dir, self.key_bits, self.block)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_keep_seven_significant_digits() {
        assert_eq!(round_ticks(262.33319091796875), 262.3332);
        assert_eq!(round_ticks(0.0012345678), 0.001234568);
        assert_eq!(round_ticks(123456789.0), 123456800.0);
        assert_eq!(round_ticks(0.0), 0.0);
        assert_eq!(format!("{}", round_ticks(437.225341796875)), "437.2253");
    }

    #[test]
    fn median_intervals_by_order_statistics() {
        let v: Vec<f64> = (1..=5).map(f64::from).collect();
        // Five rounds cannot reach 95%: the extremes.
        assert_eq!(stats_median_interval(&v), Some((1.0, 5.0)));
        let v: Vec<f64> = (1..=11).map(f64::from).collect();
        // n = 11: the 2nd and 10th (98.8%); the 3rd and 9th cover 93.5%.
        assert_eq!(stats_median_interval(&v), Some((2.0, 10.0)));
        assert_eq!(stats_median_interval(&[]), None);
    }
}
