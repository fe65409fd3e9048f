//! The compare report's data: the JSON (`schema_version` 1) that compare
//! writes and render, the gate and the baseline files read; `markdown.rs`
//! and `chart.rs` render it.

use crate::size::Artifact;
use crate::verdict::Verdict;
use crate::workspace::Toolchain;
use bench_harness::stats::Ratio;
use serde::{Deserialize, Serialize};
use std::fmt;

pub const SCHEMA_VERSION: u32 = 1;

/// Everything a compare run found.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Report {
    pub schema_version: u32,
    /// The command that produced it.
    pub generated_by: String,
    pub cipher: String,
    pub machine: Machine,
    pub toolchain: Toolchain,
    pub date: String,
    pub commit: String,
    /// Whether tracked files differed from the commit.
    pub dirty: bool,
    pub run: Run,
    pub variants: Vec<Entry>,
    pub peers: Vec<Entry>,
    pub verdict: Verdict,
    /// The medians as tcrypt would print them (cycles mode lines).
    pub raw: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Machine {
    pub cpu: String,
    /// `tsc` or `ns`.
    pub counter: String,
    /// The counter's measured rate.
    pub counter_ghz: f64,
    /// The core clock, estimated.
    pub core_ghz: Option<f64>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Run {
    /// `--quick`: fewer cases and rounds.
    pub quick: bool,
    /// Quiet rounds wanted per case.
    pub rounds: usize,
    pub batch_seconds: f64,
    /// The reference variant: ratios are taken against it. (Named
    /// `baseline_variant` in schema 1.)
    #[serde(rename = "baseline_variant")]
    pub reference: String,
    /// The verdict's threshold, as a fraction (0.02 is 2%).
    pub threshold: f64,
    /// The share of rounds in which every engine ran on a quiet core.
    pub quiet_share: f64,
    /// Doubts about the measurement, said in the report.
    pub notes: Vec<String>,
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
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub artifact: Option<Artifact>,
    /// Fingerprint of the file the measuring process loaded; equal to the
    /// artifact's, or the entry failed.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub measured_fingerprint: Option<String>,
    pub speed: Vec<Speed>,
    /// Speed over all cases against the reference variant (geometric mean).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub overall: Option<Ratio>,
}

/// What became of a variant or peer; `ok`, `failed` or `unavailable` in
/// the JSON.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Status {
    /// Built, sized and measured.
    #[serde(rename = "ok")]
    Measured,
    /// Failed to build, load, check or run; the entry's `reason` says why.
    #[serde(rename = "failed")]
    Failed,
    /// This CPU cannot run it (e.g. SSE4.2 CRC32C on a CPU without SSE4.2);
    /// reported, never replaced by another method, and not a failure.
    #[serde(rename = "unavailable")]
    Unavailable,
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Status::Measured => "ok",
            Status::Failed => "failed",
            Status::Unavailable => "unavailable",
        })
    }
}

/// One case's speed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Speed {
    /// `ecb(cast6)`.
    pub alg: String,
    /// `encrypt` or `decrypt`.
    pub dir: String,
    pub key_bits: usize,
    pub block_bytes: usize,
    /// Median over the quiet rounds.
    pub bytes_per_sec: f64,
    /// Counter ticks per byte (see `machine.counter`).
    pub cycles_per_byte: f64,
    /// Half the interquartile range over the median.
    pub spread: f64,
    /// Against the reference variant, from paired rounds.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub ratio: Option<Ratio>,
    /// Rounds the figures come from.
    pub rounds: usize,
    /// Instructions per operation inside the artifact, counted by callgrind
    /// (baselines and gate runs only).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub instructions: Option<f64>,
}

impl Entry {
    /// The speed of one case.
    pub fn speed_at(&self, alg: &str, dir: &str, key_bits: usize, block: usize) -> Option<&Speed> {
        self.speed.iter().find(|s| {
            s.alg == alg && s.dir == dir && s.key_bits == key_bits && s.block_bytes == block
        })
    }
}

impl Report {
    /// Variants and peers, in report order.
    pub fn entries(&self) -> impl Iterator<Item = &Entry> {
        self.variants.iter().chain(&self.peers)
    }

    /// The case the chart plots: the first mode and key at the largest block
    /// (8192 bytes in the default set), encryption.
    pub fn headline(&self) -> Option<Headline> {
        let s = self
            .entries()
            .flat_map(|e| &e.speed)
            .find(|s| s.dir == "encrypt" || s.dir == "digest")?;
        let block = self
            .entries()
            .flat_map(|e| &e.speed)
            .map(|s| s.block_bytes)
            .max()?;
        Some(Headline {
            alg: s.alg.clone(),
            dir: s.dir.clone(),
            key_bits: s.key_bits,
            block,
        })
    }

    pub fn headline_speed(&self, e: &Entry) -> Option<f64> {
        let h = self.headline()?;
        e.speed_at(&h.alg, &h.dir, h.key_bits, h.block)
            .map(|s| s.bytes_per_sec)
    }
}

/// The case the chart plots.
pub struct Headline {
    pub alg: String,
    /// `encrypt`, or `digest` for a checksum.
    pub dir: String,
    pub key_bits: usize,
    pub block: usize,
}

impl Headline {
    /// `ecb(cast6) encryption, 128-bit key, 8192-byte blocks`.
    pub fn describe(&self) -> String {
        let what = if self.dir == "digest" {
            "digest"
        } else {
            "encryption"
        };
        let key = if self.key_bits == 0 {
            String::new()
        } else {
            format!(", {}-bit key", self.key_bits)
        };
        format!("{} {what}{key}, {}-byte blocks", self.alg, self.block)
    }
}
