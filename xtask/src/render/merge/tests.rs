//! The portable rule on synthetic reports: the fixture's report as one
//! machine, changed copies as others.

use super::{markdown, svg};
use crate::report::Report;
use crate::report::fixture;
use crate::report::merged::*;
use bench_harness::machine::Fact;

/// The fixture on a machine of CPU family `family`.
fn on(family: u32) -> Report {
    let mut r = fixture::report();
    if let Some(m) = &mut r.machine {
        m.cpu_info.family = Fact::Known(family);
    }
    r
}

/// `r` with the variants `names` (and the A/A control, a copy of the
/// reference) `factor` times slower in every timed round.
fn slower(mut r: Report, names: &[&str], factor: f64) -> Report {
    let scale = |speeds: &mut Vec<crate::report::Speed>| {
        for s in speeds {
            for x in &mut s.samples {
                x.ticks_per_op *= factor;
            }
        }
    };
    for e in r
        .variants
        .iter_mut()
        .filter(|e| names.contains(&e.name.as_str()))
    {
        scale(&mut e.speed);
    }
    if names.contains(&"auto") {
        scale(&mut r.control.as_mut().unwrap().speed);
    }
    r
}

fn merged(reports: Vec<Report>) -> Merged {
    let named = (reports.into_iter().enumerate())
        .map(|(i, r)| (r, format!("m{i}/tiny.json")))
        .collect();
    merge(named, "cargo xtask merge m0/tiny.json m1/tiny.json", None).unwrap()
}

#[test]
fn machines_that_agree_are_portable() {
    let m = merged(vec![on(6), on(25)]);
    assert_eq!(m.machines.len(), 2);
    assert_eq!(
        m.portability,
        Portability::Portable,
        "{:#?}",
        m.portable.steps
    );
    assert_eq!(m.portable.pick.as_deref(), Some("auto"));
    assert!(m.machines.iter().all(|x| x.pick.as_deref() == Some("auto")));
    // never, auto, hint: measured everywhere with one artifact each.
    let names: Vec<&str> = m.variants.iter().map(|v| v.name.as_str()).collect();
    assert_eq!(names, ["never", "auto", "hint"]);
    assert!(
        m.variants[1].ratios.iter().all(Option::is_none),
        "the reference"
    );
    assert!(
        m.variants[0]
            .ratios
            .iter()
            .all(|r| r.is_some_and(|r| r.ratio < 1.0))
    );
    assert!(m.left_out.is_empty(), "{:?}", m.left_out);
}

#[test]
fn machines_that_disagree_are_machine_dependent() {
    // On family 25, `auto` is 11% slower: barely faster than `never`, below
    // its bar, so that machine keeps the smaller `never`.
    let m = merged(vec![on(6), slower(on(25), &["auto", "hint"], 1.11)]);
    assert_eq!(m.machines[0].pick.as_deref(), Some("auto"));
    assert_eq!(m.machines[1].pick.as_deref(), Some("never"));
    assert_eq!(m.portability, Portability::MachineDependent);
    // The evidence that holds on both: the smaller one.
    assert_eq!(m.portable.pick.as_deref(), Some("never"));
    let md = markdown::render(&m);
    assert!(md.contains("**Machine-dependent.**"), "{md}");
    assert!(
        md.contains("wants `auto`") && md.contains("wants `never`"),
        "{md}"
    );
}

#[test]
fn a_variant_one_machine_lacks_or_built_otherwise_is_left_out() {
    let mut b = on(25);
    b.variants.retain(|e| e.name != "hint");
    b.variants[0].artifact.as_mut().unwrap().fingerprint = "1000:ffffffffffffffff".into();
    let m = merged(vec![on(6), b]);
    let names: Vec<&str> = m.variants.iter().map(|v| v.name.as_str()).collect();
    assert_eq!(names, ["auto"]);
    assert_eq!(m.left_out.len(), 2, "{:?}", m.left_out);
    assert!(
        m.left_out[0].starts_with("`never`: its artifact on"),
        "{}",
        m.left_out[0]
    );
    assert!(m.left_out[0].contains("different code is not merged"));
    assert!(
        m.left_out[1].starts_with("`hint`: not in `m1/tiny.json`"),
        "{}",
        m.left_out[1]
    );
}

#[test]
fn the_same_machine_twice_is_one_machine() {
    let named = vec![(on(6), "a.json".to_string()), (on(6), "b.json".to_string())];
    assert!(matches!(merge(named, "x", None), Err(Refused::TooFew(_))));
    let named = vec![
        (on(6), "a.json".to_string()),
        (on(6), "b.json".to_string()),
        (on(25), "c.json".to_string()),
    ];
    let m = merge(named, "x", None).unwrap();
    assert_eq!(m.machines.len(), 2);
    assert!(
        m.left_out[0].starts_with("`b.json`: the same machine as `a.json`"),
        "{:?}",
        m.left_out
    );
    // Another cipher is refused.
    let mut other = on(25);
    other.cipher = "other".into();
    let named = vec![(on(6), "a.json".to_string()), (other, "c.json".to_string())];
    assert!(matches!(merge(named, "x", None), Err(Refused::Mixed(_))));
}

#[test]
fn hostile_labels_and_names_are_escaped() {
    let mut b = on(25);
    b.machine_label = Some("evil<script>|`x".into());
    if let Some(m) = &mut b.machine {
        m.cpu_info.model_name = Fact::Known("Evil <b>| CPU & `co`".into());
    }
    let m = merged(vec![on(6), b]);
    assert_eq!(m.machines[1].label, "evil_script___x");
    let md = markdown::render(&m);
    assert!(
        !md.contains("<b>") && md.contains("Evil &lt;b&gt;\\| CPU &amp; \\`co\\`"),
        "{md}"
    );
    let svg = svg::render(&m);
    let doc = crate::render::parse_svg(&svg);
    assert!(doc.descendants().any(|n| {
        n.text()
            .is_some_and(|t| t.contains("(Evil <b>| CPU & `co`)"))
    }));
    assert!(doc.descendants().any(|n| n.text() == Some("auto")));
}

#[test]
fn each_variant_says_whether_this_tree_builds_it() {
    let mut here = on(6);
    here.variants[0].artifact.as_mut().unwrap().fingerprint = "1000:0000000000000000".into();
    let named = vec![
        (on(6), "a.json".to_string()),
        (on(25), "b.json".to_string()),
    ];
    let m = merge(named, "x", Some(&here)).unwrap();
    let current: Vec<Option<bool>> = m.variants.iter().map(|v| v.current).collect();
    assert_eq!(current, [Some(false), Some(true), Some(true)]);
    let md = markdown::render(&m);
    assert!(md.contains("| `never` | 5112 | older tree |"), "{md}");
}

/// Case 5: a machine's own pick is one cell of its row, and makes no link.
#[test]
fn a_machines_pick_stays_in_its_cell() {
    let mut m = merged(vec![on(6), on(25)]);
    let name = "a`b|c[x](javascript:alert(1))";
    m.machines[0].pick = Some(name.into());
    m.portability = Portability::MachineDependent;
    let md = markdown::render(&m);
    let row = (md.lines())
        .find(|l| l.starts_with('|') && l.contains("javascript"))
        .expect("the machine's row");
    let pipes = (row.match_indices('|'))
        .filter(|(i, _)| !row[..*i].ends_with('\\'))
        .count();
    assert_eq!(pipes, 7, "six cells: {row}");
    assert!(row.contains("``a`b\\|c[x](javascript:alert(1))``"), "{row}");
    let wants = (md.lines())
        .find(|l| l.starts_with("- ") && l.contains("wants ``"))
        .expect("the machine's line");
    assert!(
        wants.ends_with("wants ``a`b|c[x](javascript:alert(1))``"),
        "{wants}"
    );
}
