//! The compare report: its data (the JSON, `schema_version` 1) and its
//! markdown, rendered from that data alone so that a committed report can be
//! checked against its committed JSON.

use crate::size::Artifact;
use crate::verdict::{Verdict, pct};
use crate::workspace::Toolchain;
use bench_harness::stats::Ratio;
use serde::{Deserialize, Serialize};
use std::fmt::Write;

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
    pub baseline_variant: String,
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
    /// `ok`, `failed`, or `unavailable` (this CPU cannot run it, e.g. SSE4.2
    /// CRC32C on a CPU without SSE4.2; never replaced by another method).
    pub status: String,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub artifact: Option<Artifact>,
    /// Fingerprint of the file the measuring process loaded; equal to the
    /// artifact's, or the entry failed.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub measured_fingerprint: Option<String>,
    pub speed: Vec<Speed>,
    /// Speed over all cases against the baseline (geometric mean).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub overall: Option<Ratio>,
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
    /// Against the baseline variant, from paired rounds.
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

fn bytes(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, ch) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

/// The markdown report.
pub fn render(r: &Report) -> String {
    let mut md = String::new();
    let w = &mut md;
    let cipher = &r.cipher;
    let _ = writeln!(
        w,
        "<!-- Generated by `{}`; do not edit: run it again. -->",
        r.generated_by
    );
    let _ = writeln!(
        w,
        "# {cipher}: code size against speed, per inlining variant\n"
    );
    render_verdict(w, r);
    render_machine(w, r);
    render_sizes(w, r);
    render_speed(w, r);
    render_ratios(w, r);
    let _ = writeln!(w, "## Chart\n");
    if let Some(h) = r.headline() {
        let _ = writeln!(
            w,
            "Code size (.text) against throughput of {}; the line joins the points no other beats on both (at this one case; the verdict's Pareto set is over every case).\n",
            h.describe()
        );
    }
    let _ = writeln!(w, "![{cipher}: size against speed]({cipher}.svg)\n");
    let _ = writeln!(w, "## Raw output\n");
    let _ = writeln!(
        w,
        "<details><summary>The medians as tcrypt prints them (cycles mode lines; cycles are {} ticks)</summary>\n",
        r.machine.counter
    );
    let _ = writeln!(w, "```text\n{}```\n\n</details>", r.raw);
    md
}

fn render_verdict(w: &mut String, r: &Report) {
    match &r.verdict.pick {
        Some(pick) => {
            let _ = writeln!(w, "**Verdict: use `{pick}`.**");
        }
        None => {
            let _ = writeln!(w, "**Verdict: none; no variant was measured.**");
        }
    }
    let _ = writeln!(
        w,
        "The kernel reviewers' rule: prefer the smaller variant unless a larger one is faster by more than the noise (its 95% interval excludes no gain, and the gain exceeds {:.0}%); speed is the geometric mean over every case measured.\n",
        r.run.threshold * 100.0
    );
    for step in &r.verdict.steps {
        let _ = writeln!(w, "- {step}");
    }
    let pareto: Vec<String> = r.verdict.pareto.iter().map(|p| format!("`{p}`")).collect();
    let _ = writeln!(
        w,
        "\nPareto-optimal (no other is both smaller and faster): {}.\n",
        pareto.join(", ")
    );
    for e in r.entries().filter(|e| e.status != "ok") {
        let _ = writeln!(
            w,
            "**`{}` {}:** {}\n",
            e.name,
            if e.status == "unavailable" {
                "unavailable"
            } else {
                "failed"
            },
            e.reason.as_deref().unwrap_or("no reason recorded")
        );
    }
    for note in &r.run.notes {
        let _ = writeln!(w, "> **Note:** {note}\n");
    }
}

fn render_machine(w: &mut String, r: &Report) {
    let m = &r.machine;
    let core = m
        .core_ghz
        .map(|g| format!("; core clock about {g:.2} GHz"))
        .unwrap_or_default();
    let _ = writeln!(w, "## Machine and build\n");
    let _ = writeln!(w, "| | |\n|---|---|");
    let _ = writeln!(w, "| CPU | {} |", m.cpu);
    let _ = writeln!(
        w,
        "| cycle counter | {} at {:.3} GHz, measured{core}; \"cycles\" below are counter ticks |",
        m.counter, m.counter_ghz
    );
    let _ = writeln!(w, "| rustc | {} |", r.toolchain.rustc);
    let _ = writeln!(w, "| target | {} |", r.toolchain.target);
    let _ = writeln!(w, "| profile | {} |", r.toolchain.profile);
    let _ = writeln!(w, "| date | {} |", r.date);
    let _ = writeln!(
        w,
        "| commit | {}{} |",
        r.commit,
        if r.dirty {
            " (tree differs from the commit)"
        } else {
            ""
        }
    );
    let _ = writeln!(
        w,
        "| run | {}; {} quiet rounds wanted per case, batches of {:.1} ms, interleaved round-robin; {:.0}% of rounds ran on a quiet core |\n",
        if r.run.quick {
            "`--quick`: fewer cases and rounds, for a first look"
        } else {
            "full default set"
        },
        r.run.rounds,
        r.run.batch_seconds * 1e3,
        r.run.quiet_share * 100.0
    );
}

fn render_sizes(w: &mut String, r: &Report) {
    let _ = writeln!(w, "## Size\n");
    let _ = writeln!(
        w,
        "Each variant is built alone into a `no_std` shared object (`inlinelab-artifact`); the `.rlib` is the cipher crate from the same build, holding only that variant.\n"
    );
    let _ = writeln!(
        w,
        "| variant | .so | .text | .rodata | .data | .rlib | rounds out of line |"
    );
    let _ = writeln!(w, "|---|---:|---:|---:|---:|---:|---|");
    for e in r.entries() {
        match &e.artifact {
            Some(a) => {
                let rounds = if a.rounds_out_of_line.is_empty() {
                    "none".to_string()
                } else {
                    a.rounds_out_of_line.join(", ")
                };
                let _ = writeln!(
                    w,
                    "| {} | {} | {} | {} | {} | {} | {rounds} |",
                    e.label,
                    bytes(a.so_bytes),
                    bytes(a.text_bytes),
                    bytes(a.rodata_bytes),
                    bytes(a.data_bytes),
                    bytes(a.rlib_bytes)
                );
            }
            None => {
                let _ = writeln!(w, "| {} | {} | | | | | |", e.label, e.status);
            }
        }
    }
    let _ = writeln!(
        w,
        "\n<details><summary>Functions of each variant (bytes)</summary>\n"
    );
    for e in r.entries() {
        let Some(a) = &e.artifact else { continue };
        let _ = writeln!(w, "**{}**\n\n| function | bytes |\n|---|---:|", e.label);
        for f in &a.functions {
            let _ = writeln!(
                w,
                "| `{}` | {} |",
                f.name.replace('|', "\\|"),
                bytes(f.bytes)
            );
        }
        let _ = writeln!(w);
    }
    let _ = writeln!(w, "</details>\n");
}

/// The (alg, dir, key) groups and block sizes, in first-seen order.
fn shape(r: &Report) -> (Vec<(String, String, usize)>, Vec<usize>) {
    let mut groups: Vec<(String, String, usize)> = Vec::new();
    let mut blocks: Vec<usize> = Vec::new();
    for s in r.entries().flat_map(|e| &e.speed) {
        let g = (s.alg.clone(), s.dir.clone(), s.key_bits);
        if !groups.contains(&g) {
            groups.push(g);
        }
        if !blocks.contains(&s.block_bytes) {
            blocks.push(s.block_bytes);
        }
    }
    blocks.sort_unstable();
    (groups, blocks)
}

fn render_speed(w: &mut String, r: &Report) {
    let (groups, blocks) = shape(r);
    let _ = writeln!(w, "## Speed\n");
    let _ = writeln!(
        w,
        "MB/s (10^6 bytes per second), then counter cycles per byte; medians over the quiet rounds.\n"
    );
    for (alg, dir, key) in &groups {
        let key_label = if *key == 0 {
            String::new()
        } else {
            format!(", {key}-bit key")
        };
        let _ = writeln!(w, "### {alg} {dir}{key_label}\n");
        let head: Vec<String> = blocks.iter().map(|b| format!("{b} B")).collect();
        let _ = writeln!(w, "| variant | {} |", head.join(" | "));
        let _ = writeln!(w, "|---|{}", "---:|".repeat(blocks.len()));
        for e in r.entries().filter(|e| e.status == "ok") {
            let cells: Vec<String> = blocks
                .iter()
                .map(|b| {
                    e.speed_at(alg, dir, *key, *b)
                        .map(|s| {
                            format!(
                                "{:.1} MB/s, {:.2} c/B",
                                s.bytes_per_sec / 1e6,
                                s.cycles_per_byte
                            )
                        })
                        .unwrap_or_default()
                })
                .collect();
            let _ = writeln!(w, "| {} | {} |", e.label, cells.join(" | "));
        }
        let _ = writeln!(w);
    }
}

fn render_ratios(w: &mut String, r: &Report) {
    let base = &r.run.baseline_variant;
    let others: Vec<&Entry> = r
        .entries()
        .filter(|e| e.status == "ok" && &e.name != base)
        .collect();
    let _ = writeln!(w, "## Against `{base}`\n");
    let _ = writeln!(
        w,
        "Speed relative to `{base}`, measured in the same rounds (paired), with 95% confidence intervals; + is faster.\n"
    );
    let names: Vec<String> = others.iter().map(|e| format!("`{}`", e.name)).collect();
    let _ = writeln!(w, "| case | {} |", names.join(" | "));
    let _ = writeln!(w, "|---|{}", "---:|".repeat(others.len()));
    let overall: Vec<String> = others
        .iter()
        .map(|e| e.overall.as_ref().map(pct).unwrap_or_else(|| "n/a".into()))
        .collect();
    let _ = writeln!(w, "| **all cases** | {} |", overall.join(" | "));
    let (groups, blocks) = shape(r);
    for (alg, dir, key) in &groups {
        for b in &blocks {
            let cells: Vec<String> = others
                .iter()
                .map(|e| {
                    e.speed_at(alg, dir, *key, *b)
                        .and_then(|s| s.ratio.as_ref())
                        .map(pct)
                        .unwrap_or_else(|| "n/a".into())
                })
                .collect();
            let key_label = if *key == 0 {
                String::new()
            } else {
                format!(" {key}-bit")
            };
            let _ = writeln!(
                w,
                "| {alg} {dir}{key_label} {b} B | {} |",
                cells.join(" | ")
            );
        }
    }
    let _ = writeln!(w);
}

/// The index of the reports: a line per cipher with its verdict.
pub fn render_index(reports: &[Report]) -> String {
    let mut md = String::new();
    let w = &mut md;
    let _ = writeln!(
        w,
        "<!-- Generated by `cargo xtask compare all` (and kept current by each `cargo xtask compare CIPHER`); do not edit. -->"
    );
    let _ = writeln!(w, "# inlinelab reports\n");
    let _ = writeln!(
        w,
        "One report per cipher: code size against speed for every inlining variant, and the verdict of the kernel reviewers' rule (prefer the smaller variant unless a larger one is faster by more than the noise).\n"
    );
    let _ = writeln!(
        w,
        "| cipher | verdict | Pareto-optimal | measured |\n|---|---|---|---|"
    );
    for r in reports {
        let pick = r
            .verdict
            .pick
            .as_deref()
            .map_or("none".to_string(), |p| format!("use `{p}`"));
        let pareto: Vec<String> = r.verdict.pareto.iter().map(|p| format!("`{p}`")).collect();
        let _ = writeln!(
            w,
            "| [{c}]({c}.md) | {pick} | {} | {}, `{}` |",
            pareto.join(", "),
            r.date,
            r.generated_by,
            c = r.cipher
        );
    }
    md
}
