//! Synthetic reports of many variants, for the cost of merge and render:
//! a committed report with its measured variants cloned under new names,
//! each clone a little larger than the last and its samples perturbed, so
//! that every clone is a candidate of its own.

use crate::env::workspace;
use crate::report::json;
use crate::report::reader;
use crate::report::{Report, Status, round_ticks};

/// A deterministic perturbation in `[-0.002, 0.002)` for clone `k`, sample `i`.
fn jitter(k: usize, i: usize) -> f64 {
    let mut x = (k as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15)
        ^ (i as u64).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x ^= x >> 31;
    x = x.wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^= x >> 29;
    ((x % 4000) as f64 / 4000.0 - 0.5) * 0.004
}

/// The committed report of `cipher`, read as `render` reads it.
pub fn committed(cipher: &str) -> Report {
    let path = workspace::root().join(format!("reports/{cipher}.json"));
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    reader::parse_report(&bytes, cipher).unwrap_or_else(|e| panic!("{e:?}"))
}

/// `base` with variants added until it has `n`: clones of its measured
/// variants, in turn, named `NAME_cK`, each `K` bytes larger than its
/// original, alone in its identical-code group, with every sample's ticks
/// perturbed by [`jitter`] (seeded by `seed` and `K`). The stored figures
/// and verdict are left as they are: `render` shows them, `merge` computes
/// them again.
pub fn with_variants(base: &Report, n: usize, seed: usize) -> Report {
    let mut r = base.clone();
    let measured: Vec<_> = (base.variants.iter())
        .filter(|e| e.status == Status::Measured && e.name != base.run.reference)
        .cloned()
        .collect();
    for k in 1..=n.saturating_sub(base.variants.len()) {
        let mut e = measured[(k - 1) % measured.len()].clone();
        e.name = format!("{}_c{k}", e.name);
        e.label = format!("{}_c{k}", e.label);
        e.same_code_as = None;
        if let Some(a) = &mut e.artifact {
            a.text_bytes += k as u64;
            a.footprint_bytes += k as u64;
            // Another artifact: the same length, another hash (LEN:HASH).
            let (len, hash) = a.fingerprint.split_once(':').unwrap_or(("1", "0"));
            let hash = u64::from_str_radix(hash, 16).unwrap_or(0) ^ (k as u64);
            a.fingerprint = format!("{len}:{hash:016x}");
            a.hot_path_code = a.hot_path_code.as_ref().map(|h| format!("{h}-c{k}"));
        }
        e.measured_fingerprint = e.artifact.as_ref().map(|a| a.fingerprint.clone());
        for s in &mut e.speed {
            for (i, sample) in s.samples.iter_mut().enumerate() {
                sample.ticks_per_op =
                    round_ticks(sample.ticks_per_op * (1.0 + jitter(k + seed, i)));
            }
        }
        r.variants.push(e);
    }
    r
}

/// Writes `A/CIPHER.json` and `B/CIPHER.json` (two machines) under
/// `$SYNTHETIC_OUT/N/` for each `N` in `$SYNTHETIC_N` (comma-separated):
/// the inputs of the measurements of merge and render. A tool, not a check.
#[test]
#[ignore]
fn write_synthetic_reports() {
    let out = std::path::PathBuf::from(std::env::var("SYNTHETIC_OUT").expect("SYNTHETIC_OUT"));
    let base = committed("cast6");
    for n in std::env::var("SYNTHETIC_N")
        .expect("SYNTHETIC_N")
        .split(',')
    {
        let n: usize = n.parse().expect("a count");
        for (machine, seed) in [("A", 0), ("B", 1_000_000)] {
            let mut r = with_variants(&base, n, seed);
            if machine == "B" {
                r.machine_label = Some("other-machine".into());
            }
            let dir = out.join(n.to_string()).join(machine);
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(dir.join("cast6.json"), json::to_json(&r)).unwrap();
        }
    }
}

/// The comparisons the rule's walk asks for over `r`'s candidates, and
/// how many candidates there are.
fn walk_calls(r: &Report) -> (usize, usize) {
    use crate::report::recompute::Index;
    let index = Index::of(r);
    let calls = std::cell::Cell::new(0);
    let faster = |a: &str, b: &str| {
        calls.set(calls.get() + 1);
        index.faster(a, b)
    };
    let candidates = r.candidates(&r.variants);
    crate::decide::verdict::walk(&candidates, &faster, &r.noise(), &r.run.reference, "");
    (calls.get(), candidates.len())
}

/// The walk compares each candidate with the picks left possible, not
/// with every other candidate: a few comparisons per candidate, and twice
/// the candidates less than three times the comparisons (every pair would
/// be four times). Each clone of a step the committed run left undecided
/// stays possible too, so the possible picks grow slowly with the clones.
#[test]
fn the_walk_asks_far_fewer_than_every_pair() {
    let base = committed("cast6");
    let (small, n) = walk_calls(&with_variants(&base, 150, 0));
    let (large, m) = walk_calls(&with_variants(&base, 300, 0));
    assert!(m > 2 * n - 20, "{n} then {m} candidates");
    assert!(
        small < 3 * n && large < 3 * m,
        "{small} for {n}, {large} for {m}"
    );
    assert!(large < 3 * small, "{small} then {large}");
}
