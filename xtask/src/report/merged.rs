//! Reports of one cipher from several machines, merged: each machine's
//! figures and verdict recomputed from its samples by today's rule
//! ([`Report::recomputed`]), the variants matched by artifact fingerprint,
//! and the **portable verdict**: the rule walked with, for each step, the
//! evidence that holds on every machine (the lowest gain any machine
//! measured, with the lowest interval ends) against the highest bar any
//! machine's noise sets. A larger variant is taken only if it clears the bar
//! on each machine. When the machines' own picks differ the merge says
//! `machine-dependent` and which machines want which variant; the portable
//! pick is then the one to use where the machine is not known.
//!
//! The rules of the merge (the evidence on every machine, the widest
//! noise) are `decide/portable.rs`'s; `render/merge/` renders it;
//! `cmd/merge.rs` reads and writes.

use crate::decide::portable;
use crate::decide::verdict::{self, Candidate, Conclusion, Noise, Verdict};
use crate::env::escape::md_code as code;
use crate::report::recompute::Index;
use crate::report::{Report, Status};
use bench_harness::stats::Ratio;
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};

/// The schema of a merged report.
pub const SCHEMA_VERSION: u32 = 1;

/// One machine's run, as the merge read it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MachineRun {
    /// The machine label (`CpuInfo::label`, with `--machine-label`'s name).
    pub label: String,
    /// The CPU's model name, as the machine said it.
    pub cpu: String,
    /// The file it came from, as given.
    pub source: String,
    pub date: String,
    pub commit: String,
    /// Its own verdict, recomputed by today's rule.
    pub status: Conclusion,
    pub pick: Option<String>,
}

/// One variant merged over the machines.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Variant {
    pub name: String,
    pub footprint: u64,
    pub fingerprint: String,
    /// Whether this tree builds that artifact (its fingerprint is the one
    /// this tree's report records); `null` with no report of this tree.
    pub current: Option<bool>,
    /// Its speed over the reference on each machine (in [`Merged::machines`]
    /// order), at that machine's last look; `null` for the reference.
    pub ratios: Vec<Option<Ratio>>,
}

/// Whether one pick serves every machine.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Portability {
    /// Every machine's own verdict picks the portable pick.
    Portable,
    /// The machines' own picks differ (or one decided nothing).
    MachineDependent,
}

/// The cross-machine report.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Merged {
    pub schema_version: u32,
    pub generated_by: String,
    pub cipher: String,
    pub reference: String,
    pub machines: Vec<MachineRun>,
    pub variants: Vec<Variant>,
    /// Why a variant or a file was left out, one line each.
    pub left_out: Vec<String>,
    pub portability: Portability,
    /// The rule over the evidence that holds on every machine.
    pub portable: Verdict,
}

/// Why reports cannot be merged at all.
#[derive(Debug, PartialEq)]
pub enum Refused {
    /// Fewer than two machines.
    TooFew(String),
    /// Reports of different ciphers or references.
    Mixed(String),
}

/// Merges `reports` (each with the file it came from), in the order given.
/// Two reports from one CPU (the same label) are two runs of one machine:
/// the first is kept and the later ones are left out, with a line saying so.
/// `this_tree` is the report of the tree the merge runs in (whose
/// fingerprints `verify` checks), to say which variants are current.
pub fn merge(
    reports: Vec<(Report, String)>,
    generated_by: &str,
    this_tree: Option<&Report>,
) -> Result<Merged, Refused> {
    let mut left_out = Vec::new();
    let mut kept: Vec<(Report, String, String)> = Vec::new();
    for (r, source) in reports {
        // A machine's own verdict is shown by its pick alone: no Pareto set.
        let r = r.recomputed_by(Report::decide_pick);
        let label = label_of(&r);
        if let Some((_, first, _)) = kept.iter().find(|(_, _, l)| *l == label) {
            left_out.push(format!(
                "{}: the same machine as {} ({}): two runs of one machine, not two machines; the first is kept",
                code(&source),
                code(first),
                code(&label)
            ));
            continue;
        }
        kept.push((r, source, label));
    }
    let Some((first, _, _)) = kept.first() else {
        return Err(Refused::TooFew("no report to merge".into()));
    };
    if kept.len() < 2 {
        return Err(Refused::TooFew(format!(
            "only one machine (`{}`) among the reports: a merge needs two",
            kept[0].2
        )));
    }
    let (cipher, reference) = (first.cipher.clone(), first.run.reference.clone());
    if let Some((r, source, _)) = kept
        .iter()
        .find(|(r, _, _)| r.cipher != cipher || r.run.reference != reference)
    {
        return Err(Refused::Mixed(format!(
            "{source} is a report of {} against `{}`, the first of {cipher} against `{reference}`",
            r.cipher, r.run.reference
        )));
    }
    let mut variants = matched(&kept, &reference, &mut left_out);
    // This tree's artifacts, by name and fingerprint.
    let built: Option<HashSet<(&str, &str)>> = this_tree.map(|t| {
        (t.variants.iter())
            .filter_map(|e| Some((e.name.as_str(), e.artifact.as_ref()?.fingerprint.as_str())))
            .collect()
    });
    for v in &mut variants {
        v.current =
            (built.as_ref()).map(|b| b.contains(&(v.name.as_str(), v.fingerprint.as_str())));
    }
    let machines: Vec<MachineRun> = (kept.iter())
        .map(|(r, source, label)| MachineRun {
            label: label.clone(),
            cpu: r
                .machine
                .as_ref()
                .map_or("unknown".into(), |m| m.cpu_info.model_name.to_string()),
            source: source.clone(),
            date: r.date.clone(),
            commit: r.commit.clone(),
            status: r.verdict.status,
            pick: r.verdict.pick.clone(),
        })
        .collect();
    let reports: Vec<&Report> = kept.iter().map(|(r, _, _)| r).collect();
    let portable = portable_verdict(&reports, &variants, &reference, &cipher);
    let all_pick = |p: &Option<String>| {
        machines
            .iter()
            .all(|m| m.status == Conclusion::Decided && m.pick == *p)
    };
    let portability = if portable.pick.is_some() && all_pick(&portable.pick) {
        Portability::Portable
    } else {
        Portability::MachineDependent
    };
    Ok(Merged {
        schema_version: SCHEMA_VERSION,
        generated_by: generated_by.to_string(),
        cipher,
        reference,
        machines,
        variants,
        left_out,
        portability,
        portable,
    })
}

/// A report's machine label: the one it stored, else its CPU's; only
/// `[A-Za-z0-9._-]` (anything else read from a file becomes `_`).
fn label_of(r: &Report) -> String {
    let label = r.machine_label.clone().unwrap_or_else(|| {
        r.machine
            .as_ref()
            .map_or("unknown".into(), |m| m.cpu_info.label())
    });
    label
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The variants measured on every machine with one artifact (the same
/// fingerprint), in the first report's order; a line in `left_out` for each
/// one that is not. Linear in the variants times the machines (a hash
/// lookup each).
fn matched(
    kept: &[(Report, String, String)],
    reference: &str,
    left_out: &mut Vec<String>,
) -> Vec<Variant> {
    let by_name: Vec<HashMap<&str, &crate::report::Entry>> = (kept.iter())
        .map(|(r, _, _)| {
            let mut m = HashMap::new();
            for e in &r.variants {
                // The first of a name is the one found.
                m.entry(e.name.as_str()).or_insert(e);
            }
            m
        })
        .collect();
    let mut out = Vec::new();
    for e in &kept[0].0.variants {
        let Some(a) = e.artifact.as_ref().filter(|_| e.status == Status::Measured) else {
            continue;
        };
        let mut ratios = Vec::new();
        let mut why = None;
        for ((_, source, label), names) in kept.iter().zip(&by_name) {
            let Some(&other) = names.get(e.name.as_str()) else {
                why = Some(format!("not in {} ({})", code(source), code(label)));
                break;
            };
            let fingerprint = other.artifact.as_ref().map(|x| x.fingerprint.as_str());
            if fingerprint != Some(a.fingerprint.as_str()) {
                why = Some(format!(
                    "its artifact on {} ({}) is not the one on {} ({}): different code is not merged",
                    code(label),
                    code(fingerprint.unwrap_or("none")),
                    code(&kept[0].2),
                    code(&a.fingerprint)
                ));
                break;
            }
            if other.status != Status::Measured {
                why = Some(format!("{} on {}", other.status, code(label)));
                break;
            }
            ratios.push(other.overall);
        }
        match why {
            Some(why) => left_out.push(format!("{}: {why}", code(&e.name))),
            None => out.push(Variant {
                name: e.name.clone(),
                footprint: a.footprint_bytes,
                fingerprint: a.fingerprint.clone(),
                current: None,
                ratios: if e.name == reference {
                    vec![None; kept.len()]
                } else {
                    ratios
                },
            }),
        }
    }
    out
}

/// The evidence that holds on every machine for `a` over `b`
/// ([`portable::evidence`]); `None` when one machine cannot compare them.
/// `machines` holds each report's [`Index`]: linear in the machines, cases
/// and processes.
pub fn on_every(machines: &[Index], a: &str, b: &str) -> Option<Ratio> {
    let each: Vec<Ratio> = machines
        .iter()
        .map(|m| m.faster(a, b))
        .collect::<Option<_>>()?;
    portable::evidence(&each)
}

/// The rule over `variants` with [`on_every`]'s evidence and the highest
/// bar any machine's noise sets (the widest A/A control, the largest
/// threshold and size cost): its walk ([`verdict::walk`]), linear in the
/// variants times the picks left possible. A cross-machine report shows
/// the pick and its steps, not a Pareto set, whose pairwise comparisons
/// would make it quadratic.
fn portable_verdict(
    reports: &[&Report],
    variants: &[Variant],
    reference: &str,
    cipher: &str,
) -> Verdict {
    let merged: HashSet<&str> = variants.iter().map(|v| v.name.as_str()).collect();
    let mut first: HashMap<&str, &crate::report::Entry> = HashMap::new();
    for e in &reports[0].variants {
        first.entry(e.name.as_str()).or_insert(e);
    }
    let candidates: Vec<Candidate> = (variants.iter())
        .map(|v| Candidate {
            name: v.name.clone(),
            size: v.footprint,
            same_code_as: (first.get(v.name.as_str()))
                .and_then(|e| e.same_code_as.clone())
                .filter(|s| merged.contains(s.as_str())),
        })
        .collect();
    let noises: Vec<Noise> = reports.iter().map(|r| r.noise()).collect();
    let noise = portable::noise(&noises);
    let machines: Vec<Index> = reports.iter().map(|r| Index::of(r)).collect();
    let faster = |a: &str, b: &str| on_every(&machines, a, b);
    let rerun = format!("cargo xtask compare {cipher}");
    verdict::walk(&candidates, &faster, &noise, reference, &rerun)
}
