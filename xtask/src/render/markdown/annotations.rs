//! A crate's inline attributes (`compare --crate`): the headline sentence
//! and the table, each row judged from the report's entries at render time
//! (`report::annotations`).

use crate::decide::verdict::{pct, size_pct};
use crate::env::escape::{md_cell, md_code, md_code_cell, md_text};
use crate::render::worth::{self, Outcome};
use crate::report::Report;
use std::fmt::Write;

/// The headline, first: what the attributes are worth, in one sentence.
pub fn render_headline(w: &mut String, r: &Report) {
    let Some(a) = &r.annotations else { return };
    let judged = worth::judge(r, a);
    let added = worth::judge_added(r, a);
    let _ = writeln!(w, "**{}**\n", md_text(&worth::headline(a, &judged, &added)));
}

/// The table: each attribute, where it is, and what removing it did.
pub fn render_table(w: &mut String, r: &Report) {
    let Some(a) = &r.annotations else { return };
    let judged = worth::judge(r, a);
    let bar = r.noise().bar();
    let _ = writeln!(w, "## The crate's inline attributes\n");
    let _ = writeln!(
        w,
        "{} {}, type {}. Each attribute compiled on this target was removed in a variant of its own (`drop_N`), built through the same shim and timed against the crate as published. Speed is the variant's over `published`'s (below 0% the crate is slower without the attribute), with its 95% interval over the measuring processes; the bar is {:+.1}% either way. *keep*: slower without it past the bar, or larger and no faster; *drop*: smaller and no slower without it, or faster past the bar; *no effect*: the same hot-path machine code, or neither size nor speed moved; *unsettled*: the interval reaches past the bar.\n",
        md_text(&a.krate),
        md_text(&a.version),
        md_text(&a.ty),
        (bar - 1.0) * 100.0
    );
    same_as_registry(w, r);
    backends(w, a);
    let rows = judged.iter().map(|j| {
        let attr = md_code_cell(&format!("#[{}]", j.row.attr));
        (
            j.row.number,
            &j.row.path,
            &j.row.location,
            attr,
            &j.row.variant,
            cells(j),
        )
    });
    table(w, rows);
    let unsettled: Vec<&str> = (judged.iter())
        .filter(|j| j.outcome == Outcome::Unsettled)
        .map(|j| j.row.variant.as_str())
        .collect();
    if !unsettled.is_empty() {
        let _ = writeln!(
            w,
            "To settle the unsettled rows, time them alone with more processes: {}\n",
            md_code(&format!(
                "{} --variants {} --processes 8",
                r.generated_by.trim_end_matches(" --quick"),
                unsettled.join(",")
            ))
        );
    }
    let added = worth::judge_added(r, a);
    if added.is_empty() {
        return;
    }
    let _ = writeln!(
        w,
        "Functions the crate as published leaves out of line on the hot path (its call graph from `inlinelab_crypt`), each given `#[inline(always)]` in a variant of its own (`add_K`). *add*: faster past the bar for its growth (the size cost per doubling included).\n"
    );
    let rows = added.iter().map(|j| {
        let attr = (j.row.attr.as_deref())
            .map_or_else(|| "none".to_string(), |a| md_code_cell(&format!("#[{a}]")));
        (
            j.row.number,
            &j.row.path,
            &j.row.location,
            attr,
            &j.row.variant,
            cells(j),
        )
    });
    table(w, rows);
}

/// A row's last three cells: footprint change, speed change with its
/// interval, outcome (with why, when it was not timed).
fn cells<R>(j: &worth::Judged<'_, R>) -> [String; 3] {
    let outcome = match (j.outcome, j.status) {
        (Outcome::NotTimed, Some(s)) => format!("not timed ({s})"),
        (o, _) => o.word().to_string(),
    };
    [
        j.size_change.map_or_else(String::new, size_pct),
        j.speed.as_ref().map_or_else(String::new, pct),
        outcome,
    ]
}

/// The table of attributes (or of added ones): number, function, where,
/// the attribute as published, the variant, and [`cells`].
fn table<'a>(
    w: &mut String,
    rows: impl Iterator<
        Item = (
            usize,
            &'a String,
            &'a String,
            String,
            &'a String,
            [String; 3],
        ),
    >,
) {
    let _ = writeln!(
        w,
        "| # | function | where | as published | variant | footprint | speed | outcome |"
    );
    let _ = writeln!(w, "|---:|---|---|---|---|---:|---:|---|");
    for (number, path, location, attr, variant, [size, speed, outcome]) in rows {
        let _ = writeln!(
            w,
            "| {number} | {} | {} | {attr} | {} | {size} | {speed} | {outcome} |",
            md_code_cell(path),
            md_cell(location),
            md_code_cell(variant),
        );
    }
    let _ = writeln!(w);
}

/// The crate's modules its hot path reaches, the CPU's features that a
/// crate choosing at run time chooses by, and which module ran in each
/// mode family, timed and counted.
fn backends(w: &mut String, a: &crate::report::annotations::Annotations) {
    ran(w, a);
    if a.backends.is_empty() {
        return;
    }
    let list = |v: &[String]| v.iter().map(|s| md_code(s)).collect::<Vec<_>>().join(", ");
    let _ = writeln!(
        w,
        "Its hot path as published reaches {} of the crate's modules: {}{}. This CPU has {}. Instructions are counted under callgrind, whose CPU has no AVX-512: a crate that picks its backend at run time may count on another one there than it was timed on.\n",
        a.backends.len(),
        list(&a.backends),
        if a.backends.len() > 1 {
            " (where it holds several backends, the crate picks one at run time)"
        } else {
            ""
        },
        if a.cpu_features.is_empty() {
            "none of the extensions crates pick backends by".to_string()
        } else {
            list(&a.cpu_features)
        }
    );
}

/// Which of the crate's modules ran in each mode family: sampled on this
/// CPU and counted by callgrind (a report written before they were
/// observed says nothing).
fn ran(w: &mut String, a: &crate::report::annotations::Annotations) {
    let Some(ran) = &a.ran else { return };
    let _ = writeln!(
        w,
        "Which backend ran, as published, in the case of each mode family whose instructions are counted: the crate's module with the most of the instruction-pointer samples taken on this CPU while the case ran, and the one with the most of callgrind's instructions, each share of all the case's samples or instructions (the shim's, `cipher`'s and, for samples, the harness's included; the JSON's `annotations.ran` keeps every count):\n"
    );
    for line in ran.sentences(&|s: &str| md_code(s), &|s: &str| md_text(s)) {
        let _ = writeln!(w, "- {line}.");
    }
    let _ = writeln!(w);
}

/// Whether the copy as published builds what the registry's crate builds:
/// the reference and the peer's hot paths compared (addresses normalized),
/// with their footprints.
fn same_as_registry(w: &mut String, r: &Report) {
    let published = (r.variants.iter())
        .find(|e| e.name == r.run.reference)
        .and_then(|e| e.artifact.as_ref());
    let peer = r.peers.first().and_then(|e| e.artifact.as_ref());
    let Some((p, peer)) = published.zip(peer) else {
        return;
    };
    let same = p.hot_path_code.is_some() && p.hot_path_code == peer.hot_path_code;
    let _ = writeln!(
        w,
        "{} and the registry crate (the peer) {} ({} and {} bytes of footprint).\n",
        md_code(&r.run.reference),
        if same {
            "have the same hot-path machine code: the copy builds what the registry's crate builds"
        } else {
            "differ in their hot-path machine code"
        },
        p.footprint_bytes,
        peer.footprint_bytes
    );
}

#[cfg(test)]
mod tests {
    use crate::report::annotations::{Annotated, Annotations};

    /// The section names every attribute, escaped, and its first sentence
    /// counts them.
    #[test]
    fn every_attribute_is_a_row() {
        let mut r = crate::report::fixture::report();
        let variant = r.variants[1].name.clone();
        r.annotations = Some(Annotations {
            krate: "toy|cipher".into(),
            version: "0.1.0".into(),
            ty: "Toy".into(),
            written: 3,
            rows: vec![Annotated {
                number: 1,
                function: "round".into(),
                path: "<Toy as BlockCipherEncBackend>::round|x".into(),
                location: "src/lib.rs:12".into(),
                attr: "inline(always)".into(),
                variant,
            }],
            added: Vec::new(),
            backends: Vec::new(),
            cpu_features: Vec::new(),
            ran: None,
        });
        let mut md = String::new();
        super::render_headline(&mut md, &r);
        super::render_table(&mut md, &r);
        assert!(md.contains("Of toy\\|cipher 0.1.0's 1 inline attribute compiled on this target (2 more for other targets)"), "{md}");
        assert!(md.contains("round\\|x"), "{md}");
        let rows = md.lines().filter(|l| l.starts_with("| 1 |")).count();
        assert_eq!(rows, 1, "{md}");
        assert!(!md.contains("Which backend ran"), "{md}");
    }

    /// Each family's backend, timed and counted, a line each, every name
    /// escaped.
    #[test]
    fn the_backend_that_ran_is_named() {
        use crate::report::backends::{FamilyRan, ModuleCount, Observed, Ran};
        use crate::report::{Family, Operation};
        let mut r = crate::report::fixture::report();
        let family = |module: &str, count| FamilyRan {
            family: Family::Parallel,
            alg: "ecb(toy)".into(),
            dir: Operation::Encrypt,
            key_bits: 128,
            block_bytes: 8192,
            total: 100,
            modules: vec![ModuleCount {
                module: module.into(),
                count,
            }],
        };
        r.annotations = Some(Annotations {
            krate: "toy".into(),
            version: "0.1.0".into(),
            ty: "Toy".into(),
            written: 0,
            rows: Vec::new(),
            added: Vec::new(),
            backends: vec!["toy::wide".into(), "toy::narrow".into()],
            cpu_features: vec!["avx512f".into()],
            ran: Some(Ran {
                timed: Observed::Families(vec![family("toy::wide`|", 97)]),
                counted: Observed::Families(vec![family("toy::narrow", 95)]),
            }),
        });
        let mut md = String::new();
        super::render_table(&mut md, &r);
        assert!(
            md.contains("- parallel modes ran ``toy::wide`|`` (97% of 100 samples); callgrind counted `toy::narrow` (95% of its instructions; valgrind's CPU has no AVX-512): instruction counts are for that backend.\n"),
            "{md}"
        );
    }
}
