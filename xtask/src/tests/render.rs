//! Rendering from fixed numbers: golden files (one per concern), the chart
//! as well-formed XML, names escaped wherever they land, the JSON names
//! other tools read.

use crate::render::chart;
use crate::render::markdown;
use crate::render::parse_svg;
use crate::report::fixture;
use crate::report::{Operation, Report, Sample};

#[test]
fn golden_markdown() {
    expect_test::expect_file!["../../tests/golden/report.md"]
        .assert_eq(&markdown::render(&fixture::report()));
}

#[test]
fn golden_markdown_inconclusive() {
    expect_test::expect_file!["../../tests/golden/inconclusive.md"]
        .assert_eq(&markdown::render(&fixture::inconclusive()));
}

#[test]
fn golden_index() {
    let reports = [fixture::report(), {
        let mut r = fixture::inconclusive();
        r.cipher = "tiny2".into();
        r
    }];
    expect_test::expect_file!["../../tests/golden/index.md"]
        .assert_eq(&markdown::render_index(&reports));
}

/// A crate run whose pick edits an `--also` dependency: the patch's first
/// lines and the first screen say it is a patch of the dependency (its
/// crate and version, where to apply it), and a crate that compiles none
/// of its attributes on this target says so in a sentence, not a table
/// without rows.
#[test]
fn golden_dependency_patch() {
    use crate::report::annotations::{
        AlsoCrate, Annotated, Annotations, Dependency, Patch, PatchEdit,
    };
    // The fixture's `never` as a dependency's variant, wherever named.
    let json = serde_json::to_string(&fixture::report()).unwrap();
    let mut r: Report = serde_json::from_str(&json.replace(r#""never""#, r#""aes_none""#)).unwrap();
    r.cipher = "toy".into();
    r.generated_by = "cargo xtask compare --crate toy@0.1.0 --also aes".into();
    r.verdict.pick = Some("aes_none".into());
    let dependency = Dependency {
        krate: "aes".into(),
        version: "0.9.4".into(),
    };
    r.annotations = Some(Annotations {
        krate: "toy".into(),
        version: "0.1.0".into(),
        ty: "Toy".into(),
        written: 0,
        rows: vec![Annotated {
            number: 1,
            function: "aes128_encrypt".into(),
            path: "aes::soft::fixslice::aes128_encrypt".into(),
            location: "src/soft/fixslice64.rs:120".into(),
            attr: "inline".into(),
            variant: "aes_drop_1".into(),
            krate: Some("aes".into()),
        }],
        added: Vec::new(),
        backends: Vec::new(),
        cpu_features: Vec::new(),
        ran: None,
        patch: Some(Patch {
            file: Patch::file_name("toy", Some(&dependency)),
            variant: "aes_none".into(),
            edits: vec![PatchEdit {
                path: "aes::soft::fixslice::aes128_encrypt".into(),
                location: "src/soft/fixslice64.rs:120".into(),
                published: Some("inline".into()),
                patched: None,
            }],
            trimmed: None,
            dependency: Some(dependency),
        }),
        suggestion: None,
        also: vec![AlsoCrate {
            krate: "aes".into(),
            version: "0.9.4".into(),
            written: 40,
        }],
    });
    crate::report::check::check(&r).unwrap();
    let mut md = markdown::patch_preamble(&r);
    md.push('\n');
    markdown::annotations::render_patch(&mut md, &r);
    markdown::annotations::render_table(&mut md, &r);
    expect_test::expect_file!["../../tests/golden/dependency-patch.md"].assert_eq(&md);
}

/// Where the pick is slower than the peer, the first screen says so in
/// words, with the best any variant does there.
#[test]
fn slower_than_the_peer_is_said() {
    let mut r = fixture::report();
    for s in &mut r.peers[0].speed {
        s.ticks_per_op /= 2.0;
    }
    let md = crate::render::markdown::render(&r);
    let said: Vec<&str> = md
        .lines()
        .filter(|l| l.starts_with("**Slower than the peer:**"))
        .collect();
    assert_eq!(said.len(), 2, "{md:.3000}");
    assert!(
        said[0].starts_with("**Slower than the peer:** `auto` runs parallel modes at 0.51× of tiny-rustcrypto's speed; the best variant there, `hint`, reaches 0.5"),
        "{}",
        said[0]
    );
    assert!(!crate::render::markdown::render(&fixture::report()).contains("Slower than the peer"));
}

/// A variant valgrind could not count (VAES) is named under the
/// instructions table with why, escaped; a report without one says
/// nothing of it.
#[test]
fn a_variant_not_counted_is_said_with_why() {
    let mut r = fixture::report();
    let label = r.variants[0].label.clone();
    r.variants[0].uncounted = Some("under valgrind, *no* VAES".into());
    let md = crate::render::markdown::render(&r);
    let said: Vec<&str> = md
        .lines()
        .filter(|l| l.starts_with("Not counted, timed only"))
        .collect();
    assert_eq!(said.len(), 1, "{md:.3000}");
    assert!(
        said[0] == format!("Not counted, timed only (under valgrind, \\*no\\* VAES): {label}."),
        "{}",
        said[0]
    );
    assert!(
        !crate::render::markdown::render(&fixture::report()).contains("Not counted, timed only")
    );
}

/// Two panels, one numbered point per identical-code group and peer, each
/// with an error bar, and a legend that names every member; the pick (here
/// also the reference) labelled, the peer a triangle, the Pareto front a
/// step line through its points in each panel.
#[test]
fn chart_points_and_legend() {
    let svg = chart::render(&fixture::report()).expect("a chart");
    let doc = parse_svg(&svg);
    let texts: Vec<&str> = doc
        .descendants()
        .filter(|n| n.has_tag_name("text"))
        .filter_map(|n| n.text())
        .map(str::trim)
        .collect();
    for block in [16, 8192] {
        let caption = format!(
            "ecb(tiny) encryption, 128-bit key, {block}-byte blocks; ranges of 2 processes at most ±"
        );
        assert!(
            texts.iter().any(|t| t.starts_with(&caption)),
            "{caption}: {texts:?}"
        );
    }
    assert_eq!(
        texts.iter().filter(|t| **t == "pick, reference").count(),
        2,
        "{texts:?}"
    );
    let drawn = |tag: &str, attr: &str, value: &str| {
        (doc.descendants())
            .filter(|n| n.has_tag_name(tag) && n.attribute(attr) == Some(value))
            .count()
    };
    assert_eq!(
        drawn("polygon", "fill", "#FF0000"),
        2,
        "the peer, once a panel"
    );
    // never, auto and the peer are Pareto-optimal: three points, so each
    // panel's step line has five vertices.
    let fronts: Vec<_> = (doc.descendants())
        .filter(|n| n.has_tag_name("polyline") && n.attribute("stroke") == Some("#787878"))
        .map(|n| {
            n.attribute("points")
                .unwrap_or("")
                .split_whitespace()
                .count()
        })
        .collect();
    assert_eq!(fronts, [5, 5], "{svg:.3000}");
    for wanted in ["1: never", "2: auto = hint", "3: tiny-rustcrypto (peer)"] {
        assert!(texts.contains(&wanted), "{wanted}: {texts:?}");
    }
    // `hint` is drawn with `auto`: three points per panel, numbered 1 to 3.
    for n in ["1", "2", "3"] {
        assert_eq!(
            texts.iter().filter(|t| **t == n).count(),
            2,
            "{n}: {texts:?}"
        );
    }
    assert!(!texts.contains(&"4"), "{texts:?}");
}

/// Whatever the command line, the SVG is XML: its first-line comment holds
/// no `--`.
#[test]
fn chart_is_well_formed_whatever_the_flags() {
    let mut r = fixture::report();
    r.generated_by = "cargo xtask compare tiny --quick --sizes 16,8192 -- --x-".into();
    let svg = chart::render(&r).unwrap();
    let first = svg.lines().next().unwrap();
    assert!(!first[4..first.len() - 3].contains("--"), "{first}");
    parse_svg(&svg);
}

/// Unescaped `|` in a table row: the row's cells plus one.
fn pipes(row: &str) -> usize {
    let b = row.as_bytes();
    (0..b.len())
        .filter(|&i| b[i] == b'|' && (i == 0 || b[i - 1] != b'\\'))
        .count()
}

/// Every table has as many cells in each row as in its header.
pub(crate) fn check_tables(md: &str) {
    let mut header: Option<usize> = None;
    for line in md.lines() {
        if !line.starts_with('|') {
            header = None;
            continue;
        }
        let n = pipes(line);
        match header {
            None => header = Some(n),
            Some(h) => assert_eq!(n, h, "cells in `{line}`"),
        }
    }
}

/// `line` without its code spans (a run of backticks to the next run of
/// the same length).
pub(crate) fn outside_code(line: &str) -> String {
    let b = line.as_bytes();
    let run = |i: usize| b[i..].iter().take_while(|&&c| c == b'`').count();
    let (mut out, mut i) = (String::new(), 0);
    while i < b.len() {
        if b[i] != b'`' {
            out.push(b[i] as char);
            i += 1;
            continue;
        }
        let n = run(i);
        let mut j = i + n;
        while j < b.len() && !(b[j] == b'`' && run(j) == n) {
            j += if b[j] == b'`' { run(j) } else { 1 };
        }
        i = if j < b.len() { j + n } else { i + n };
    }
    out
}

/// A name with every character that means something somewhere.
#[test]
fn names_are_escaped_everywhere() {
    let nasty = "a|b<script>x</script>&amp;`c`\n--> d";
    let mut r = fixture::report();
    r.variants[0].name = nasty.into();
    r.variants[0].label = format!("tiny-{nasty}");
    r.peers[0].label = nasty.into();
    r.run.reference = nasty.into();
    r.verdict.pareto[0] = nasty.into();
    r.verdict.pick = Some(nasty.into());
    r.generated_by = format!("cargo xtask compare {nasty}");
    for md in [
        markdown::render(&r),
        markdown::render_index(std::slice::from_ref(&r)),
    ] {
        check_tables(&md);
        // Outside code spans, where markdown would take it for HTML.
        let raw: Vec<&str> = md
            .lines()
            .filter(|l| outside_code(l).contains("<script"))
            .collect();
        assert!(raw.is_empty(), "{raw:#?}");
        assert_eq!(md.lines().next().unwrap().matches("-->").count(), 1);
    }
    let svg = chart::render(&r).unwrap();
    assert!(!svg.contains("<script>"));
    let doc = parse_svg(&svg);
    let legend = doc
        .descendants()
        .filter_map(|n| n.text())
        .any(|t| t.contains("a|b<script>x</script>&amp;`c`"));
    assert!(legend, "the name, escaped, reads back as it was");
}

#[test]
fn json_round_trips() {
    let r = fixture::report();
    let json = crate::report::json::to_json(&r);
    let back: Report = serde_json::from_str::<Report>(&json).unwrap().upgraded();
    assert_eq!(back, r);
}

/// The names the issue's JSON interface lists, exactly.
#[test]
fn json_interface_names() {
    let v = serde_json::to_value(fixture::report()).unwrap();
    assert_eq!(v["schema_version"], 7);
    assert_eq!(v["verdict"]["status"], "decided");
    assert_eq!(v["verdict"]["pick"], "auto");
    assert!(v["verdict"]["reasons"].is_array());
    let control = &v["control"];
    assert_eq!(control["of"], "auto");
    for f in ["ratio", "ci_low", "ci_high"] {
        assert!(control[f].is_f64(), "control.{f}");
    }
    assert_eq!(v["run"]["reference_variant"], "auto");
    assert!(v["run"].get("baseline_variant").is_none());
    assert!(v["variants"][0]["same_code_as"].is_null());
    assert_eq!(v["variants"][2]["same_code_as"], "auto");
    let a = &v["variants"][0]["artifact"];
    for f in [
        "text_bytes",
        "rodata_bytes",
        "data_bytes",
        "footprint_bytes",
        "hot_path_bytes",
        "key_schedule_bytes",
        "so_bytes",
    ] {
        assert!(a[f].is_u64(), "artifact.{f}");
    }
    let speed = v["variants"][0]["speed"].as_array().unwrap();
    let samples = &speed[0]["samples"];
    assert!(samples["ticks_per_op"][0].is_f64() && samples["quiet"][0].is_u64());
    assert!(samples["process_runs"][0][1].is_u64());
    let setkey = speed.iter().find(|s| s["dir"] == "setkey").unwrap();
    assert_eq!(setkey["block_bytes"], 0);
    assert!(setkey["ops_per_sec"].is_f64() && setkey["ticks_per_op"].is_f64());
    let inconclusive = serde_json::to_value(fixture::inconclusive()).unwrap();
    assert_eq!(inconclusive["verdict"]["status"], "inconclusive");
    assert!(inconclusive["verdict"]["pick"].is_null());
}

/// The gate's summary, judged by the baseline alone and against a base
/// tree, with a changed baseline above it: regressions and advisories listed
/// row by row, the rest counted per variant.
#[test]
fn golden_gate_summary() {
    use crate::cmd::gate::rows::{Change, Row, Severity, Thresholds};
    use crate::cmd::gate::summary;
    use crate::cmd::gate::summary::{Against, BaselineChange, Basis};
    let row = |variant: &str, what: &str, change: &str, growth: f64, verdict| Row {
        variant: variant.into(),
        metric: format!("`{variant}` {what}"),
        baseline: "1000".into(),
        base: Some("1001".into()),
        now: "1100".into(),
        change: change.into(),
        change_base: Some("+9.89%".into()),
        growth,
        verdict,
        uncounted: false,
    };
    let rows = [
        row(
            "never",
            ".text bytes",
            "+10.00%",
            0.10,
            Severity::Regression,
        ),
        row(
            "never",
            "ecb(x) encrypt 128-bit 16 B, instructions/op",
            "+0.50%",
            0.005,
            Severity::Ok,
        ),
        row(
            "auto_x2",
            "ecb(x) encrypt 128-bit 8192 B, speed",
            "-6.00%",
            0.06,
            Severity::Advisory,
        ),
        Row {
            baseline: "0 branches, 0 indexes".into(),
            base: Some("0 branches, 0 indexes".into()),
            now: "unmeasured".into(),
            change_base: Some("not measured now".into()),
            ..row(
                "vaes_x2",
                "secret branches and indexes (memcheck)",
                "not measured now",
                0.0,
                Severity::Unmeasured,
            )
        },
        row("auto_x2", ".so bytes", "+0.00%", 0.0, Severity::Ok),
        row("a|b<c>", ".text bytes", "-1.00%", 0.0, Severity::Ok),
    ];
    let th = Thresholds {
        size: 0.01,
        speed: 0.02,
        time: 0.05,
        strict_time: false,
    };
    let alone = Basis {
        baseline: "the committed baseline `reports/baseline/x.json` at `HEAD`".into(),
        against: Against::Nothing,
        left_out: 0,
    };
    let against = Basis {
        baseline: alone.baseline.clone(),
        against: Against::BaseTree("origin/main".into()),
        left_out: 2,
    };
    let change = BaselineChange {
        cipher: "x".into(),
        old: "the committed `reports/baseline/x.json`".into(),
        new: "the working tree's".into(),
        rows: vec![Change {
            metric: "`never` .text bytes".into(),
            old: "1000".into(),
            new: "1100".into(),
            change: "+10.00%".into(),
        }],
        accepted: false,
    };
    let md = [
        summary::render_change(&change),
        summary::render("x", &alone, &th, &rows),
        summary::render("x", &against, &th, &rows),
        summary::render("x", &alone, &th, &rows[3..]),
    ]
    .join("---\n\n");
    expect_test::expect_file!["../../tests/golden/gate.md"].assert_eq(&md);
}

/// Six processes whose rounds fall in two heaps (a quiet 100 ticks, a
/// slowed 180): the level, each process's 10th percentile, is near 100,
/// while the median of every round is 180. The interval drawn around
/// the level is the level's, over the processes, and holds it.
#[test]
fn the_interval_holds_the_level_it_is_drawn_around() {
    let hz = 1e9;
    let mut s = fixture::speed(Operation::Encrypt, 16, 100.0, None);
    s.samples = (0..6)
        .flat_map(|p| {
            (0..10).map(move |r| Sample {
                ticks_per_op: if r < 3 { 100.0 + p as f64 } else { 180.0 },
                quiet: false,
                process: p,
            })
        })
        .collect();
    s.set_figures(hz);
    let (lo, hi) = s.ops_interval(hz).unwrap();
    assert!(
        lo <= s.ops_per_sec && s.ops_per_sec <= hi,
        "{lo} {} {hi}",
        s.ops_per_sec
    );
    assert!(hz / hi >= 100.0 && hz / lo <= 106.0, "{lo} {hi}");
}

/// A report whose machine has a calibration says the spread between runs
/// beside the A/A control, and its verdict, computed again from its
/// samples, asks at least that of every step.
#[test]
fn the_spread_between_runs_is_said_and_raises_the_bar() {
    let mut r = fixture::report();
    let plain = r.clone().recomputed();
    r.run.between_runs = Some(crate::report::calibration::BetweenRuns {
        spread: 0.03,
        comparisons: 120,
        measured_by: "cargo xtask calibrate cast6 --comparisons 120".into(),
        date: "2026-12-04".into(),
    });
    let r = r.recomputed();
    assert!(
        (plain.verdict.bar - 1.02).abs() < 1e-12,
        "{}",
        plain.verdict.bar
    );
    assert!((r.verdict.bar - 1.03).abs() < 1e-12, "{}", r.verdict.bar);
    let md = markdown::render(&r);
    assert!(
        md.contains("between runs on this machine identical code moves ±3.00% (120 comparisons, `cargo xtask calibrate cast6 --comparisons 120`, 2026-12-04)"),
        "{md:.4000}"
    );
    assert!(md.contains("or the spread between runs on this machine, ±3.00%, where larger"));
    assert!(!markdown::render(&plain).contains("between runs"));
}
