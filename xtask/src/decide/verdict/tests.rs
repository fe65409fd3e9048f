use super::*;

/// A variant: name, footprint, speed and half-interval (fractions), and
/// the group it is the same code as.
type Spec<'a> = (&'a str, u64, f64, f64, Option<&'a str>);

fn noise(control: Option<f64>) -> Noise {
    Noise {
        threshold: 0.02,
        control: control.map(|half| Ratio {
            ratio: 1.0,
            low: 1.0 - half,
            high: 1.0 + half,
        }),
        size_cost: 0.0,
        between: 0.0,
        timed: true,
    }
}

fn run(specs: &[Spec], noise: &Noise) -> Verdict {
    let cands: Vec<Candidate> = specs
        .iter()
        .map(|&(n, s, _, _, same)| Candidate {
            name: n.into(),
            size: s,
            same_code_as: same.map(str::to_string),
        })
        .collect();
    let lookup = |n: &str| *specs.iter().find(|x| x.0 == n).unwrap();
    let faster = |a: &str, b: &str| {
        let (a, b) = (lookup(a), lookup(b));
        let ratio = a.2 / b.2;
        let half = a.3.max(b.3);
        Some(Ratio {
            ratio,
            low: ratio - half,
            high: ratio + half,
        })
    };
    decide(&cands, &[], &faster, noise, "auto", "cargo xtask compare x")
}

fn check(specs: &[Spec], pick: &str, pareto: &[&str]) {
    let v = run(specs, &noise(Some(0.005)));
    assert_eq!(v.status, Conclusion::Decided, "{v:#?}");
    assert_eq!(v.pick.as_deref(), Some(pick), "{:#?}", v.steps);
    assert_eq!(v.pareto, pareto, "{:#?}", v.steps);
}

#[test]
fn the_rule() {
    // cast6 2008: no evidence the inlined one is faster: the small one.
    check(
        &[
            ("never", 8704, 1.00, 0.01, None),
            ("always", 17216, 1.01, 0.02, None),
        ],
        "never",
        &["never", "always"],
    );
    // Clearly faster, beyond the threshold and the noise: the larger one.
    check(
        &[
            ("never", 1000, 1.00, 0.01, None),
            ("always", 2000, 1.10, 0.01, None),
        ],
        "always",
        &["never", "always"],
    );
    // Faster by less than 2%, though the interval reaches past 1.02: no
    // evidence it is worth its size.
    check(
        &[
            ("never", 1000, 1.00, 0.05, None),
            ("always", 2000, 1.01, 0.05, None),
        ],
        "never",
        &["never", "always"],
    );
    // Larger and slower: never picked, dominated.
    check(
        &[
            ("never", 1000, 1.00, 0.01, None),
            ("always", 2000, 0.90, 0.01, None),
        ],
        "never",
        &["never"],
    );
    // The pick moves in steps: each larger variant must beat the current pick.
    check(
        &[
            ("a_auto", 100, 1.00, 0.01, None),
            ("b_auto", 200, 1.10, 0.01, None),
            ("c_auto", 300, 1.11, 0.01, None),
        ],
        "b_auto",
        &["a_auto", "b_auto", "c_auto"],
    );
}

/// A gain past the bar whose interval reaches below it leans: by the
/// burden of proof the smaller stays, the run decides, and the verdict
/// says what leans and which to time again to settle it; a later candidate
/// that clears the bar against the pick takes it.
#[test]
fn a_gain_leaning_past_the_bar_keeps_the_smaller() {
    let specs = [
        ("never", 1000, 1.00, 0.01, None),
        ("always", 2000, 1.03, 0.05, None),
    ];
    let v = run(&specs, &noise(Some(0.005)));
    assert_eq!(v.status, Conclusion::Decided, "{:#?}", v.steps);
    assert_eq!(v.pick.as_deref(), Some("never"));
    assert!(v.reasons.is_empty(), "{:?}", v.reasons);
    assert!(
        v.leaning[0].starts_with("the steps leave `never`, `always` possible"),
        "{:?}",
        v.leaning
    );
    assert!(
        v.leaning[0].contains(
            "so by the burden of proof `never` stays, the one every step up to it cleared"
        ),
        "{:?}",
        v.leaning
    );
    assert!(v.steps[1].contains("both stay possible"), "{}", v.steps[1]);
    assert_eq!(v.chain[1].outcome, Outcome::Leans);
    assert_eq!(
        v.rerun.as_deref(),
        Some("cargo xtask compare x --variants auto,never,always")
    );
    // A third, larger, clears the bar against both: decided, nothing leans.
    let mut more = specs.to_vec();
    more.push(("auto", 3000, 1.20, 0.01, None));
    let v = run(&more, &noise(Some(0.005)));
    assert_eq!(v.status, Conclusion::Decided, "{:#?}", v.steps);
    assert_eq!(v.pick.as_deref(), Some("auto"));
    assert!(v.reasons.is_empty() && v.leaning.is_empty() && v.rerun.is_none());
    // One that clears the bar against the pick (`never`) takes it, though
    // it only leans against `always`: the pick moves on proof alone.
    let mut mixed = specs.to_vec();
    mixed.push(("hint", 3000, 1.06, 0.01, None));
    let v = run(&mixed, &noise(Some(0.005)));
    assert_eq!(v.status, Conclusion::Decided, "{:#?}", v.steps);
    assert_eq!(v.pick.as_deref(), Some("hint"));
    assert!(
        v.leaning[0].starts_with("the steps leave `always`, `hint` possible"),
        "{:?}",
        v.leaning
    );
    // A failed control still decides nothing, leaning or not.
    let mut failed = noise(None);
    failed.control = Some(Ratio {
        ratio: 1.04,
        low: 1.03,
        high: 1.05,
    });
    let v = run(&specs, &failed);
    assert_eq!(v.status, Conclusion::Inconclusive);
    assert_eq!(v.pick, None);
}

/// Identical code is one candidate, its member with the smallest
/// footprint (the code a user loads), and the verdict says so; among
/// members of one footprint, the least annotated; never by name.
#[test]
fn identical_code_is_one_candidate() {
    let specs = [
        ("always", 900, 1.00, 0.01, None),
        ("never", 1000, 0.95, 0.01, None),
        ("hint", 1100, 1.00, 0.01, Some("always")),
        ("auto", 1200, 1.00, 0.01, Some("always")),
    ];
    let v = run(&specs, &noise(Some(0.005)));
    assert!(
        v.steps[0].starts_with("`always` = `hint` = `auto`: the same machine code"),
        "{:#?}",
        v.steps
    );
    assert!(
        v.steps[0]
            .contains("one candidate, `always`: the member with the smallest footprint (900 bytes"),
        "{}",
        v.steps[0]
    );
    // The group, at 900 bytes, starts the chain; `never` is larger and
    // slower: it stays.
    assert_eq!(v.pick.as_deref(), Some("always"), "{:#?}", v.steps);
    assert!(!v.pareto.contains(&"auto".to_string()));
    assert!(!v.pareto.contains(&"hint".to_string()));
    // Of one footprint, the least annotated.
    let tied = [
        ("always", 1000, 1.00, 0.01, None),
        ("hint", 1000, 1.00, 0.01, Some("always")),
        ("auto", 1000, 1.00, 0.01, Some("always")),
    ];
    let v = run(&tied, &noise(Some(0.005)));
    assert_eq!(v.pick.as_deref(), Some("auto"), "{:#?}", v.steps);
}

/// The bar is 1 + max(threshold, control deviation).
#[test]
fn the_control_raises_the_bar() {
    let specs = [
        ("never", 1000, 1.00, 0.0, None),
        ("always", 2000, 1.03, 0.004, None),
    ];
    let quiet = run(&specs, &noise(Some(0.01)));
    assert_eq!(quiet.pick.as_deref(), Some("always"), "{:#?}", quiet.steps);
    assert!((quiet.bar - 1.02).abs() < 1e-12);
    // A control whose interval reaches 4% from 1 (but contains it): the
    // bar is the measured noise, and the run decides by it.
    let noisy = run(&specs, &noise(Some(0.04)));
    assert_eq!(noisy.status, Conclusion::Decided);
    assert_eq!(noisy.pick.as_deref(), Some("never"));
    assert!((noisy.bar - 1.04).abs() < 1e-12);
    assert!(
        noisy.steps[1].contains("does not clear +4.0%"),
        "{}",
        noisy.steps[1]
    );
}

/// Where identical code moves further between runs than within this
/// run, the spread between runs is the noise: a step of the same
/// footprint that clears the run's own deviation but not the spread keeps
/// the first; a larger one's bar is the threshold while that is larger.
#[test]
fn the_spread_between_runs_widens_the_bar_where_it_is_larger() {
    let specs = [
        ("auto", 1000, 1.000, 0.0, None),
        ("hint", 1000, 1.006, 0.002, None),
    ];
    let mut n = noise(Some(0.003));
    assert_eq!(run(&specs, &n).pick.as_deref(), Some("hint"));
    n.between = 0.005;
    assert!((n.noise() - 0.005).abs() < 1e-12);
    assert!((n.bar_for(1000, 1000) - 1.005).abs() < 1e-12);
    let v = run(&specs, &n);
    assert_eq!(v.pick.as_deref(), Some("auto"), "{:#?}", v.steps);
    assert!((v.bar - 1.02).abs() < 1e-12);
    // Within the run's own deviation, the deviation stays the noise.
    n.between = 0.001;
    assert!((n.noise() - 0.003).abs() < 1e-12);
    assert_eq!(run(&specs, &n).pick.as_deref(), Some("hint"));
    // Past the threshold, it is the bar.
    n.between = 0.03;
    assert!((run(&specs, &n).bar - 1.03).abs() < 1e-12);
}

#[test]
fn inconclusive_runs_say_why_and_how_to_rerun() {
    let specs = [
        ("never", 1000, 1.00, 0.01, None),
        ("always", 2000, 1.10, 0.01, None),
    ];
    // The control strays beyond the threshold: identical code measured
    // 4% apart, its interval excluding 1.
    let mut n = noise(None);
    n.control = Some(Ratio {
        ratio: 1.04,
        low: 1.03,
        high: 1.05,
    });
    let v = run(&specs, &n);
    assert_eq!(v.status, Conclusion::Inconclusive);
    assert_eq!(v.pick, None);
    assert_eq!(v.rerun.as_deref(), Some("cargo xtask compare x"));
    assert!(v.reasons[0].contains("A/A control"), "{:?}", v.reasons);
    // A wide control that contains 1 has not failed: it raises the bar
    // (to +4% here), and the run decides.
    let v = run(&specs, &noise(Some(0.04)));
    assert_eq!(v.status, Conclusion::Decided, "{:?}", v.reasons);
    assert!((v.bar - 1.04).abs() < 1e-12);
    // Nor has one beyond the threshold whose interval reaches 1.
    n.control = Some(Ratio {
        ratio: 1.03,
        low: 0.99,
        high: 1.07,
    });
    assert_eq!(run(&specs, &n).status, Conclusion::Decided);
    // No control: more processes would not make one, so no rerun.
    let v = run(&specs, &noise(None));
    assert!(v.reasons[0].contains("no A/A control"), "{:?}", v.reasons);
    assert_eq!(v.rerun, None);
    // Nothing timed: the same.
    let mut untimed = noise(Some(0.005));
    untimed.timed = false;
    let v = run(&specs, &untimed);
    assert!(
        v.reasons[0].contains("nothing was timed"),
        "{:?}",
        v.reasons
    );
    assert_eq!(v.rerun, None);
    // Decided: no reasons, no rerun.
    let v = run(&specs, &noise(Some(0.005)));
    assert!(v.reasons.is_empty() && v.rerun.is_none());
}

/// A smaller point that is not faster beyond the interval dominates
/// nothing; a larger one that is slower beyond it is dominated.
#[test]
fn pareto_with_noise() {
    let specs = [
        ("a_auto", 100, 1.00, 0.01, None),
        ("b_auto", 200, 1.005, 0.02, None),
        ("c_auto", 300, 0.90, 0.01, None),
        ("d_auto", 100, 1.00, 0.01, None),
    ];
    let v = run(&specs, &noise(Some(0.005)));
    assert_eq!(v.pareto, ["a_auto", "d_auto", "b_auto"]);
}

#[test]
fn annotations_in_names() {
    assert!(Annotation::of("auto") < Annotation::of("hint"));
    assert!(Annotation::of("hint") < Annotation::of("never"));
    assert!(Annotation::of("never") < Annotation::of("always"));
    assert_eq!(Annotation::of("slice8_auto"), Annotation::Auto);
    assert_eq!(Annotation::of("always_factored"), Annotation::Always);
    assert_eq!(Annotation::of("rustcrypto"), Annotation::Other);
}

/// The bar grows by the size cost per doubling of footprint: 2.43 times the
/// code for +2.6% (the Zen 3 run's `always_x8_unrolled` over `auto_x4`) is
/// refused at 5% per doubling, and taken without it; a step 15% larger
/// pays about 1% more.
#[test]
fn the_bar_grows_with_the_footprint() {
    let specs = [
        ("auto_x4", 10000, 1.000, 0.003, None),
        ("always_x8_unrolled", 24300, 1.026, 0.003, None),
    ];
    let mut n = noise(Some(0.005));
    assert_eq!(run(&specs, &n).pick.as_deref(), Some("always_x8_unrolled"));
    n.size_cost = 0.05;
    let v = run(&specs, &n);
    assert_eq!(v.pick.as_deref(), Some("auto_x4"), "{:#?}", v.steps);
    let link = &v.chain[1];
    assert!((link.bar - (1.02 + 0.05 * 2.43f64.log2())).abs() < 1e-12);
    assert!((n.bar_for(11500, 10000) - 1.02 - 0.05 * 1.15f64.log2()).abs() < 1e-12);
    assert!(n.bar_for(11500, 10000) - 1.02 > 0.0099);
    // No larger: faster by more than the A/A control's deviation.
    assert!((n.bar_for(10000, 10000) - 1.005).abs() < 1e-12);
    assert!((n.bar_for(9000, 10000) - 1.005).abs() < 1e-12);
    // The step straddling its bar is what racing serves.
    let specs = [
        ("a_auto", 10000, 1.000, 0.003, None),
        ("b_auto", 10500, 1.025, 0.01, None),
    ];
    let v = run(&specs, &n);
    assert!(v.chain[1].straddles(), "{:#?}", v.chain);
    assert!(!v.chain[0].straddles());
}

/// Slower than a peer only below 1 by more than the bar: a ratio within
/// it is the peer's speed as far as this run can tell.
#[test]
fn slower_than_a_peer_is_beyond_the_bar() {
    let n = noise(Some(0.01));
    assert!((n.bar() - 1.02).abs() < 1e-9);
    assert!(!n.slower(0.99));
    assert!(!n.slower(1.0 / 1.02 + 1e-9));
    assert!(n.slower(0.97));
    // A wider control widens the bar.
    let wide = noise(Some(0.05));
    assert!(!wide.slower(0.97));
    assert!(wide.slower(0.94));
}
