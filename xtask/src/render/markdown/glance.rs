//! The report's first screen: the verdict in a sentence, a summary table
//! (the pick, the reference, the smallest and the fastest variant, and the
//! peers: footprint, speed against the reference, and speed against the
//! peer per mode family), where the pick is slower than the peer said in
//! words, the noise floor and how the run spent its time; then the rule's
//! chain as a table.

use super::cells::{bytes, measured};
use super::secrets;
use crate::decide::verdict::{Conclusion, Outcome, pct, size_pct};
use crate::env::escape::{md_cell, md_cell_fragment, md_code, md_code_cell};
use crate::report::{Entry, Family, Report, Status};
use std::fmt::Write;

/// The speed of `e` over `base` in family `f`: the geometric mean, over the
/// timed cases both have, of the ratio of their median speeds (no interval:
/// the peer is a different code base, compared by medians).
pub fn family_ratio(e: &Entry, base: &Entry, f: Family) -> Option<f64> {
    let logs: Vec<f64> = (e.speed.iter())
        .filter(|s| Family::of(s) == f && s.rounds > 0)
        .filter_map(|s| {
            let b = base.speed_at(&s.alg, &s.dir, s.key_bits, s.block_bytes)?;
            (b.rounds > 0 && s.ticks_per_op > 0.0).then(|| (b.ticks_per_op / s.ticks_per_op).ln())
        })
        .filter(|l| l.is_finite())
        .collect();
    (!logs.is_empty()).then(|| (logs.iter().sum::<f64>() / logs.len() as f64).exp())
}

/// A bar as the noise floor says it: `±2.0%`.
fn pct_bar(bar: f64) -> String {
    format!("±{:.1}%", (bar - 1.0) * 100.0)
}

fn times(x: Option<f64>) -> String {
    x.map_or("n/a".into(), |x| format!("{x:.2}×"))
}

/// Speed over the reference over the crypt cases: 1 for the reference.
fn overall(r: &Report, e: &Entry) -> Option<f64> {
    if e.name == r.run.reference {
        Some(1.0)
    } else {
        e.overall.as_ref().map(|o| o.ratio)
    }
}

fn footprint(e: &Entry) -> u64 {
    e.artifact.as_ref().map_or(0, |a| a.footprint_bytes)
}

/// The summary's rows: each entry once, with every role it plays.
fn rows(r: &Report) -> Vec<(Vec<&'static str>, &Entry)> {
    let variants: Vec<&Entry> = measured(r).filter(|e| !r.peers.contains(e)).collect();
    let by_name = |n: &str| variants.iter().copied().find(|e| e.name == n);
    let mut roles: Vec<(&'static str, &Entry)> = Vec::new();
    if let Some(p) = r.verdict.pick.as_deref().and_then(by_name) {
        roles.push(("pick", p));
    }
    if let Some(e) = by_name(&r.run.reference) {
        roles.push(("reference", e));
    }
    if let Some(e) = variants.iter().copied().min_by_key(|e| footprint(e)) {
        roles.push(("smallest", e));
    }
    let fastest = (variants.iter().copied())
        .filter_map(|e| Some((overall(r, e)?, e)))
        .max_by(|a, b| a.0.total_cmp(&b.0));
    if let Some((_, e)) = fastest {
        roles.push(("fastest", e));
    }
    for p in r.peers.iter().filter(|e| e.status == Status::Measured) {
        roles.push(("peer", p));
    }
    let mut out: Vec<(Vec<&'static str>, &Entry)> = Vec::new();
    for (role, e) in roles {
        match out.iter_mut().find(|(_, o)| o.name == e.name) {
            Some((rs, _)) => rs.push(role),
            None => out.push((vec![role], e)),
        }
    }
    out
}

/// The first screen: the verdict's sentence, the summary, the noise and
/// the time.
pub fn render(w: &mut String, r: &Report) {
    let v = &r.verdict;
    let pick = (v.pick.as_deref()).and_then(|p| r.variants.iter().find(|e| e.name == p));
    // The peer built with the pick's flags (under a flag grid), else the
    // first measured.
    let peer = (r.peers.iter())
        .filter(|e| e.status == Status::Measured)
        .find(|e| pick.is_none_or(|p| p.flags == e.flags))
        .or_else(|| r.peers.iter().find(|e| e.status == Status::Measured));
    let families = Family::measured(r);
    match (v.status, pick) {
        (Conclusion::Inconclusive, _) => {
            let _ = writeln!(
                w,
                "**Verdict: inconclusive.** The run cannot decide, for the {} reason(s) below; the table shows what it measured.\n",
                v.reasons.len()
            );
        }
        (Conclusion::Decided, Some(p)) => {
            let against = match peer {
                Some(q) => {
                    let parts: Vec<String> = (families.iter())
                        .map(|&f| format!("{} on {}", times(family_ratio(p, q, f)), f.name()))
                        .collect();
                    format!(
                        "; against {} it runs at {}",
                        md_cell(&q.label),
                        parts.join(", ")
                    )
                }
                None => String::new(),
            };
            let _ = writeln!(
                w,
                "**Verdict: use {}**, the variant the rule settles on: each step up to it was faster beyond the noise, and no larger one is ({} bytes of footprint){against}.\n",
                md_code(&p.name),
                bytes(footprint(p))
            );
            against_the_fastest(w, r, p, &families);
        }
        (Conclusion::Decided, None) => {
            let _ = writeln!(w, "**Verdict: none; no variant was measured.**\n");
            return;
        }
    }
    summary_table(w, r, peer, &families);
    if let (Some(p), Some(q)) = (pick, peer) {
        slower_in_words(w, r, p, q, &families);
    }
    if let Some(p) = pick {
        let reference = r.variants.iter().find(|e| e.name == r.run.reference);
        let others: Vec<&Entry> = reference.into_iter().chain(peer).collect();
        secrets::render_line(w, r, p, &others);
    }
    noise_and_time(w, r);
}

/// With more than one peer timed beside the pick (crates and C libraries
/// alike), the pick against the fastest of them in each mode family: the
/// one the pick's speed over is the least.
fn against_the_fastest(w: &mut String, r: &Report, p: &Entry, families: &[Family]) {
    let peers: Vec<&Entry> = (r.peers.iter())
        .filter(|e| e.status == Status::Measured && e.flags == p.flags)
        .collect();
    if peers.len() < 2 {
        return;
    }
    let parts: Vec<String> = (families.iter())
        .filter_map(|&f| {
            let (x, q) = (peers.iter())
                .filter_map(|q| Some((family_ratio(p, q, f)?, q)))
                .min_by(|a, b| a.0.total_cmp(&b.0))?;
            Some(format!(
                "{} {} on {}",
                times(Some(x)),
                md_cell(&q.label),
                f.name()
            ))
        })
        .collect();
    if !parts.is_empty() {
        let _ = writeln!(
            w,
            "Against the fastest peer in each mode family, whatever its language: {}.\n",
            parts.join("; ")
        );
    }
}

fn summary_table(w: &mut String, r: &Report, peer: Option<&Entry>, families: &[Family]) {
    let against = peer.map_or("the peer".to_string(), |q| md_cell(&q.label));
    let heads: Vec<String> = families.iter().map(|f| f.name().to_string()).collect();
    let looked = secrets::looked(r);
    let _ = writeln!(
        w,
        "| | variant | footprint | vs {} (crypt cases) | {} |{}",
        md_code_cell(&r.run.reference),
        heads.join(" | "),
        if looked {
            " secret branches | secret indexes |"
        } else {
            ""
        }
    );
    let _ = writeln!(
        w,
        "|---|---|---:|---:|{}{}",
        "---:|".repeat(families.len()),
        if looked { "---:|---:|" } else { "" }
    );
    let noise = r.noise();
    for (roles, e) in rows(r) {
        let cells: Vec<String> = (families.iter())
            .map(|&f| {
                let x = peer.and_then(|q| family_ratio(e, q, f));
                match x {
                    Some(x) if noise.slower(x) && Some(e) != peer => {
                        format!("**{}**", times(Some(x)))
                    }
                    x => times(x),
                }
            })
            .collect();
        let secret_cells = if looked {
            format!(" {} |", secrets::cells(e).join(" | "))
        } else {
            String::new()
        };
        let _ = writeln!(
            w,
            "| {} | {} | {} | {} | {} |{secret_cells}",
            roles.join(", "),
            if r.peers.contains(e) {
                md_cell(&e.label)
            } else {
                md_code_cell(&e.name)
            },
            bytes(footprint(e)),
            overall(r, e).map_or("n/a".into(), |x| format!("{:+.1}%", (x - 1.0) * 100.0)),
            cells.join(" | ")
        );
    }
    if peer.is_none() {
        let _ = writeln!(
            w,
            "\nNo peer was timed in this run (none was asked for, or none exists for it), so the mode-family columns are empty: the rule's steps below compare the variants among themselves.\n"
        );
        return;
    }
    let modes = if families.contains(&Family::Parallel) || families.contains(&Family::Serial) {
        " Parallel modes are those that hand the cipher several blocks at once (ECB, CTR, XTS, CBC decryption); CBC encryption is serial, each block waiting for the previous one."
    } else {
        ""
    };
    let _ = writeln!(
        w,
        "\nThe mode-family columns are speed over {against} (× its speed; bold where slower beyond this run's bar, below {}): the geometric mean over the family's cases of the ratio of the two levels (each the median over processes of the 10th percentile of its rounds), every key and block size timed.{modes}\n",
        times(Some(1.0 / noise.bar()))
    );
}

/// Where the pick is slower than the peer, in words, with the best any
/// variant does there.
fn slower_in_words(w: &mut String, r: &Report, p: &Entry, q: &Entry, families: &[Family]) {
    let mut said = false;
    let noise = r.noise();
    for &f in families {
        let Some(x) = family_ratio(p, q, f).filter(|&x| noise.slower(x)) else {
            continue;
        };
        let best = (measured(r).filter(|e| !r.peers.contains(e)))
            .filter_map(|e| Some((family_ratio(e, q, f)?, e)))
            .max_by(|a, b| a.0.total_cmp(&b.0));
        let best = match best {
            Some((b, e)) if e.name != p.name => format!(
                "; the best variant there, {}, reaches {}",
                md_code(&e.name),
                times(Some(b))
            ),
            _ => "; no variant does better there".into(),
        };
        let _ = writeln!(
            w,
            "**Slower than the peer:** {} runs {} at {} of {}'s speed{best}.\n",
            md_code(&p.name),
            f.name(),
            times(Some(x)),
            md_cell(&q.label)
        );
        said = true;
    }
    if !said {
        let _ = writeln!(
            w,
            "{} is at least as fast as {} in every mode family measured, within this run's bar ({}).\n",
            md_code(&p.name),
            md_cell(&q.label),
            pct_bar(noise.bar())
        );
    }
}

fn noise_and_time(w: &mut String, r: &Report) {
    let v = &r.verdict;
    let control = r.control.as_ref().map_or(
        "no A/A control was timed".to_string(),
        |c| {
            format!(
                "the A/A control ({} against a copy of its own file) measured {}, a deviation of ±{:.1}%",
                md_code(&c.of),
                pct(&c.interval()),
                c.deviation() * 100.0
            )
        },
    );
    let _ = match &r.run.between_runs {
        None => writeln!(
            w,
            "**Noise floor:** {control}; a larger variant must clear {:+.1}% (the larger of that and the {:.0}% threshold) plus {:.0}% per doubling of its footprint, one of the same footprint the deviation.\n",
            (v.bar - 1.0) * 100.0,
            r.run.threshold * 100.0,
            r.run.size_cost * 100.0
        ),
        Some(b) => writeln!(
            w,
            "**Noise floor:** {control}; between runs on this machine identical code moves ±{:.2}% ({} comparisons, `{}`, {}); a larger variant must clear {:+.1}% (the largest of those two and the {:.0}% threshold) plus {:.0}% per doubling of its footprint, one of the same footprint the larger of the first two.\n",
            b.spread * 100.0,
            b.comparisons,
            md_cell(&b.measured_by),
            md_cell(&b.date),
            (v.bar - 1.0) * 100.0,
            r.run.threshold * 100.0,
            r.run.size_cost * 100.0
        ),
    };
    let speeds = r.entries().flat_map(|e| &e.speed);
    let control_speeds = r.control.iter().flat_map(|c| &c.speed);
    let batches: usize = speeds.chain(control_speeds).map(|s| s.samples.len()).sum();
    let screened = r.entries().filter(|e| e.status == Status::Screened).count();
    let _ = writeln!(
        w,
        "**Time:** {} timed batches of about {:.1} ms (about {:.1} s of timed work) in {} measuring process(es), {:.0}% of them quiet; {} variants and peers built and sized, {} of them left out by a brief screening run and the others timed in full; cases: {}.\n",
        bytes(batches as u64),
        r.run.batch_seconds * 1e3,
        batches as f64 * r.run.batch_seconds,
        r.run.processes,
        r.run.quiet_share * 100.0,
        r.entries().count(),
        screened,
        r.run.amount_words()
    );
}

/// The rule's chain: a row per comparison.
pub fn render_chain(w: &mut String, r: &Report) {
    let v = &r.verdict;
    if v.chain.is_empty() {
        return;
    }
    let _ = writeln!(w, "## The rule, step by step\n");
    if v.status == Conclusion::Inconclusive {
        let _ = writeln!(w, "What the rule would decide from these figures:\n");
    }
    chain_table(w, r);
}

/// The rule's chain as a table, a row per comparison (the first run's, or
/// the suggested set's run of its own).
pub fn chain_table(w: &mut String, r: &Report) {
    let v = &r.verdict;
    let _ = writeln!(
        w,
        "| candidate | vs | footprint | size change | gain [{:.2}%] | bar | outcome |\n|---|---|---:|---:|---:|---:|---|",
        crate::decide::paired::confidence(r.run.looks) * 100.0
    );
    for l in &v.chain {
        let start = l.outcome == Outcome::Start;
        let _ = writeln!(
            w,
            "| {} | {} | {} | {} | {} | {} | {} |",
            md_code_cell(&l.candidate),
            l.against.as_deref().map_or(String::new(), md_code_cell),
            bytes(l.size),
            if start {
                String::new()
            } else {
                size_pct(l.size_change)
            },
            l.gain.as_ref().map_or(String::new(), pct),
            if start {
                String::new()
            } else {
                // A report written before bars grew with size has only the
                // flat bar.
                let bar = if l.bar > 0.0 { l.bar } else { v.bar };
                format!("{:+.1}%", (bar - 1.0) * 100.0)
            },
            md_cell_fragment(l.outcome.words())
        );
    }
    let _ = writeln!(w);
}
