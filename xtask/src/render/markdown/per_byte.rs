//! Instructions per byte by crate (`compare --crate --also`): in the case
//! of each mode family whose instructions are counted, the crate's, each
//! dependency's and everything else's share of callgrind's instructions
//! per byte, and which crate's attributes matter most as
//! `render/worth.rs` weighs them. A report without `--also` says nothing.

use crate::decide::verdict::pct;
use crate::env::escape::{md_code, md_text};
use crate::render::worth::{Judged, Weighed, weigh};
use crate::report::Report;
use crate::report::annotations::{Annotated, Annotations};
use crate::report::ran::{FamilyRan, Observed};
use std::fmt::Write;

/// The section: a line per family counted by crate, then the sentence
/// that names the crate with the most instructions beside the crate of
/// the decided attribute removal that moved speed the most.
pub fn render(w: &mut String, r: &Report, a: &Annotations, judged: &[Judged<Annotated>]) {
    let (Some(weighed), Some(ran)) = (weigh(r, a, judged), a.ran.as_ref()) else {
        return;
    };
    let _ = writeln!(w, "### Instructions per byte by crate (`--also`)\n");
    let families: Vec<&FamilyRan> = match &ran.counted {
        Observed::Families(f) => f.iter().filter(|f| f.by_crate.is_some()).collect(),
        Observed::Unavailable(why) => {
            let _ = writeln!(w, "Not counted: {}.\n", md_text(why));
            return;
        }
    };
    if families.is_empty() {
        let _ = writeln!(w, "No case was counted by crate.\n");
        return;
    }
    let _ = writeln!(
        w,
        "Where the crate as published spends its instructions, in the case of each mode family whose instructions are counted: each function's instructions under callgrind go to the crate its path names (the crate's, or an `--also` dependency's library), the rest to *other* (the shim's, `cipher`'s, `core`'s, any other crate's); each figure is a count over the case's bytes, or per key for key setup (the JSON's `annotations.ran.counted` keeps each count, `by_crate`):\n"
    );
    for f in families {
        let _ = writeln!(w, "- {}.", line(f));
    }
    let _ = writeln!(w);
    let _ = writeln!(
        w,
        "**Which crate's attributes matter most:** {}.\n",
        sentence(&weighed)
    );
}

/// `AEAD (rfc4106(gcm(aes)) encrypt 128-bit 8192 B): aes 1.23, ghash
/// 0.80, aes-gcm 0.05, other 0.02 instructions per byte (callgrind, as
/// published)`: the crates the most first, then other; escaped.
fn line(f: &FamilyRan) -> String {
    let Some(by) = &f.by_crate else {
        return String::new();
    };
    let mut crates: Vec<(&str, u64)> = (by.crates.iter())
        .map(|c| (c.krate.as_str(), c.count))
        .collect();
    crates.sort_by_key(|c| std::cmp::Reverse(c.1));
    crates.push(("other", by.other));
    let figures: Vec<String> = (crates.iter())
        .map(|&(krate, count)| format!("{} {}", md_text(krate), figure(f, count)))
        .collect();
    format!(
        "{} ({}): {} instructions per {} (callgrind, as published)",
        md_text(f.family.name()),
        md_text(&f.case_name()),
        figures.join(", "),
        f.unit()
    )
}

/// `count` per byte to two places (`<0.01` for less but some), or per key
/// whole.
fn figure(f: &FamilyRan, count: u64) -> String {
    let x = f.per_unit(count);
    match f.unit() {
        "key" => format!("{count}"),
        _ if count > 0 && x < 0.005 => "<0.01".to_string(),
        _ => format!("{x:.2}"),
    }
}

/// The crate with the most instructions (in every family, or in each),
/// beside the crate of the decided removal that moved speed the most.
fn sentence(weighed: &Weighed) -> String {
    let mut names: Vec<&str> = weighed.heaviest.iter().map(|(_, k)| k.as_str()).collect();
    names.dedup();
    let most = match names.as_slice() {
        [] => "no crate's functions got any of the instructions counted".to_string(),
        [one] => format!(
            "{}'s functions get the most instructions in every family counted",
            md_text(one)
        ),
        _ => format!(
            "the most instructions go to {}",
            (weighed.heaviest.iter())
                .map(|(f, k)| format!("{}'s functions in {}", md_text(k), md_text(f.name())))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    let largest = match &weighed.largest {
        Some(l) => format!(
            "of the attribute changes the run decided (*keep* or *drop* against published: an attribute removed, or a crate's policy), the one that moved speed the most is {}'s {} ({}, *{}*){}",
            md_text(&l.krate),
            md_code(&l.variant),
            pct(&l.speed),
            l.outcome.word(),
            match names.as_slice() {
                [one] if *one == l.krate => ": the same crate",
                [_] => ": another crate",
                _ => "",
            }
        ),
        None => "the run decided none of the attribute changes (*keep* or *drop* against published: an attribute removed, or a crate's policy): no crate's attributes measured an effect past the bar".to_string(),
    };
    format!("{most}; {largest}")
}

#[cfg(test)]
mod tests {
    use crate::report::annotations::{AlsoCrate, Annotations};
    use crate::report::ran::{ByCrate, CrateCount, FamilyRan, Observed, Ran};
    use crate::report::{Family, Operation};

    /// One family counted by crate: `crates` are (package, library, count).
    fn family(
        family: Family,
        block_bytes: usize,
        crates: &[(&str, &str, u64)],
        other: u64,
    ) -> FamilyRan {
        let counts: Vec<CrateCount> = (crates.iter())
            .map(|&(krate, lib, count)| CrateCount {
                krate: krate.into(),
                lib: lib.into(),
                count,
            })
            .collect();
        let total = counts.iter().map(|c| c.count).sum::<u64>() + other;
        FamilyRan {
            family,
            alg: "rfc4106(gcm(aes))".into(),
            dir: if block_bytes == 0 {
                Operation::Setkey
            } else {
                Operation::Encrypt
            },
            key_bits: 128,
            block_bytes,
            total,
            modules: Vec::new(),
            by_crate: Some(ByCrate {
                crates: counts,
                other,
            }),
        }
    }

    /// aes-gcm with `--also aes,gh|ash` (a name to escape): its rows the
    /// crate's, then each dependency's, the fixture's variants standing for
    /// them (`never` as `aes_drop_1`, the one decided: *keep*, slower by
    /// 5%).
    fn report(counted: Observed) -> crate::report::Report {
        let mut r = crate::report::fixture::report();
        // Every fixture variant has the same hot path; `never`'s differs,
        // and it stands for aes's first row.
        let never = r.variants.iter_mut().find(|e| e.name == "never").unwrap();
        never.artifact.as_mut().unwrap().hot_path_code = Some("other code".into());
        never.name = "aes_drop_1".into();
        let row = crate::report::fixture::annotated;
        let dep = |krate: &str| AlsoCrate {
            krate: krate.into(),
            version: "0.1.0".into(),
            written: 1,
        };
        r.annotations = Some(Annotations {
            krate: "aes-gcm".into(),
            version: "0.11.1".into(),
            ty: "Aes128Gcm".into(),
            written: 1,
            rows: vec![
                row(1, "hint", None),
                row(1, "aes_drop_1", Some("aes")),
                row(1, "always", Some("gh|ash")),
            ],
            added: Vec::new(),
            backends: Vec::new(),
            cpu_features: Vec::new(),
            ran: Some(Ran {
                timed: Observed::Unavailable("not sampled".into()),
                counted,
            }),
            patch: None,
            suggestion: None,
            also: vec![dep("aes"), dep("gh|ash")],
        });
        r
    }

    fn section(r: &crate::report::Report) -> String {
        let mut md = String::new();
        let a = r.annotations.as_ref().unwrap();
        super::render(&mut md, r, a, &crate::render::worth::judge(r, a));
        md
    }

    /// Each family's line, per byte and per key, the crates the most
    /// first and other last, names escaped; the sentence names the crate
    /// with the most instructions beside the decided row that moved speed
    /// the most, each figure recomputable from the counts.
    #[test]
    fn instructions_per_byte_by_crate() {
        let aead = family(
            Family::Aead,
            8192,
            &[
                ("aes-gcm", "aes_gcm", 410),
                ("aes", "aes", 10_076),
                ("gh|ash", "gh_ash", 6_554),
            ],
            164,
        );
        let setkey = family(
            Family::Setkey,
            0,
            &[
                ("aes-gcm", "aes_gcm", 90),
                ("aes", "aes", 1_200),
                ("gh|ash", "gh_ash", 300),
            ],
            12,
        );
        let r = report(Observed::Families(vec![aead, setkey]));
        expect_test::expect![[r#"
            ### Instructions per byte by crate (`--also`)

            Where the crate as published spends its instructions, in the case of each mode family whose instructions are counted: each function's instructions under callgrind go to the crate its path names (the crate's, or an `--also` dependency's library), the rest to *other* (the shim's, `cipher`'s, `core`'s, any other crate's); each figure is a count over the case's bytes, or per key for key setup (the JSON's `annotations.ran.counted` keeps each count, `by_crate`):

            - AEAD (rfc4106(gcm(aes)) encrypt 128-bit 8192 B): aes 1.23, gh\|ash 0.80, aes-gcm 0.05, other 0.02 instructions per byte (callgrind, as published).
            - key setup (rfc4106(gcm(aes)) setkey 128-bit): aes 1200, gh\|ash 300, aes-gcm 90, other 12 instructions per key (callgrind, as published).

            **Which crate's attributes matter most:** aes's functions get the most instructions in every family counted; of the attribute changes the run decided (*keep* or *drop* against published: an attribute removed, or a crate's policy), the one that moved speed the most is aes's `aes_drop_1` (-5.0% [-6.0%, -4.0%], *keep*): the same crate.

        "#]]
        .assert_eq(&section(&r));
    }

    /// Without `--also` there is no section; with it, what was not counted
    /// says why, escaped.
    #[test]
    fn nothing_without_also_and_why_when_not_counted() {
        let mut r = report(Observed::Unavailable("no *valgrind*".into()));
        assert_eq!(
            section(&r),
            "### Instructions per byte by crate (`--also`)\n\nNot counted: no \\*valgrind\\*.\n\n"
        );
        r.annotations.as_mut().unwrap().also.clear();
        assert_eq!(section(&r), "");
    }
}
