//! Whether attributes interact, and the search for the sets that do not.
//!
//! The one-at-a-time variants say what each edit does alone; applied
//! together they may not add up (an `#[inline]` matters only while its
//! caller is inlined downstream). callgrind's instruction counts are exact
//! for a binary and its inputs, so they can say so before any timing:
//!
//! ```text
//! predicted(S) = base + sum over p in S of (p - published)     per case
//! S passes     <=> count(S) <= predicted(S) + TOLERANCE * base  in every case
//!              and footprint(S) <= max(its parts' prediction, base's)
//!                  + the no-effect floor (decide/worth.rs) of base's
//! ```
//!
//! A set that fails costs more instructions than its parts did alone, or
//! more bytes than they did and than the base: its edits interact, and it
//! cannot hold against the base (a set no larger than the base passes
//! however its bytes add up). (Footprints are exact too: a policy pick
//! such as `inline` with *no effect* drops on top can grow where each drop
//! alone did not.) The search is delta debugging's divide and conquer
//! (Zeller and Hildebrandt, 2002) turned to the largest sets that pass:
//!
//! ```text
//! best(S):  if S passes: {S}
//!           if |S| = 1:  {}
//!           A, B = best(first half of S), best(second half of S)
//!           U = {a + b : a in A, b in B, a + b passes}
//!           U if U is not empty, else A and B
//! ```
//!
//! then each set found grown by every part it lacks that still passes with
//! it; all of it bounded by how many sets may be built and counted. Timing confirms: only
//! sets that pass are timed, and timing's rule decides among them.

use crate::decide::worth::{NO_EFFECT_BYTES, NO_EFFECT_FRACTION};

/// The share of the base's instructions a set may cost beyond what its
/// parts predict, in a case, and still pass.
pub const TOLERANCE: f64 = 0.01;

/// Per case: the base's instructions plus each part's change from
/// `published` alone; `None` when the lengths differ.
pub fn predicted(base: &[f64], published: &[f64], parts: &[&[f64]]) -> Option<Vec<f64>> {
    if published.len() != base.len() || parts.iter().any(|p| p.len() != base.len()) {
        return None;
    }
    Some(
        (0..base.len())
            .map(|i| base[i] + parts.iter().map(|p| p[i] - published[i]).sum::<f64>())
            .collect(),
    )
}

/// Whether `set` costs no more than `predicted` in every case, within
/// [`TOLERANCE`] of `base`; `None` when the lengths differ.
pub fn passes(set: &[f64], predicted: &[f64], base: &[f64]) -> Option<bool> {
    if set.len() != predicted.len() || set.len() != base.len() {
        return None;
    }
    Some(
        (0..set.len())
            .all(|i| set[i] <= predicted[i] + TOLERANCE * base[i] + f64::EPSILON * base[i]),
    )
}

/// The footprint its parts predict for a set: `base` plus each part's
/// change from `published`.
pub fn predicted_footprint(base: u64, published: u64, parts: &[u64]) -> i64 {
    base as i64
        + parts
            .iter()
            .map(|&p| p as i64 - published as i64)
            .sum::<i64>()
}

/// Whether the footprint `set` is within `predicted`, or within `base`,
/// by the no-effect floor of `base` ([`NO_EFFECT_BYTES`], or
/// [`NO_EFFECT_FRACTION`] of it when that is more).
pub fn footprint_passes(set: u64, predicted: i64, base: u64) -> bool {
    let floor = NO_EFFECT_BYTES.max((NO_EFFECT_FRACTION * base as f64) as i64);
    set as i64 <= predicted.max(base as i64) + floor
}

/// What an oracle said of a set in the search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Said {
    Passes,
    Fails,
    /// Not tried: the search's bound was reached.
    Spent,
}

/// What the search asks its oracle: several sets at once (those it can
/// ask together, each half of a split, every union), answered in order.
pub type Oracle<'a> = dyn FnMut(&[Vec<String>]) -> Vec<Said> + 'a;

/// The oracle's answers so far: each set asked once.
struct Asker<'a, 'b> {
    oracle: &'a mut Oracle<'b>,
    asked: Vec<(Vec<String>, Said)>,
}

impl Asker<'_, '_> {
    /// The answers for `sets`, the new ones asked in one batch.
    fn all(&mut self, sets: &[Vec<String>]) -> Vec<Said> {
        let mut new: Vec<Vec<String>> = Vec::new();
        for set in sets {
            if !self.asked.iter().any(|(s, _)| s == set) && !new.contains(set) {
                new.push(set.clone());
            }
        }
        if !new.is_empty() {
            let said = (self.oracle)(&new);
            self.asked.extend(new.into_iter().zip(said));
        }
        (sets.iter())
            .map(|set| {
                (self.asked.iter())
                    .find(|(s, _)| s == set)
                    .map_or(Said::Spent, |(_, said)| *said)
            })
            .collect()
    }

    fn one(&mut self, set: &[String]) -> Said {
        self.all(&[set.to_vec()])[0]
    }
}

/// The largest sets of `parts` (each in `parts`' order) that `oracle`
/// passes, by [`best`]'s divide and conquer, each then grown (module doc),
/// the largest first, none a subset of another. `oracle` is asked each set
/// once at most, the whole first, and what can be asked together in one
/// batch (both halves of a split, every union of their answers).
pub fn search(parts: &[String], oracle: &mut Oracle) -> Vec<Vec<String>> {
    let mut ask = Asker {
        oracle,
        asked: Vec::new(),
    };
    let mut found = best(parts, parts, &mut ask);
    // Each set grown by every part it lacks that still passes with it.
    for set in &mut found {
        for p in parts {
            if set.contains(p) {
                continue;
            }
            let grown: Vec<String> = (parts.iter())
                .filter(|q| *q == p || set.contains(q))
                .cloned()
                .collect();
            if ask.one(&grown) == Said::Passes {
                *set = grown;
            }
        }
    }
    found.sort_by_key(|s| std::cmp::Reverse(s.len()));
    let mut out: Vec<Vec<String>> = Vec::new();
    for s in found {
        if !out.iter().any(|o| s.iter().all(|p| o.contains(p))) {
            out.push(s);
        }
    }
    out
}

/// [`search`]'s recursion over `set`, a run of `parts`.
fn best(parts: &[String], set: &[String], ask: &mut Asker) -> Vec<Vec<String>> {
    match ask.one(set) {
        Said::Passes => return vec![set.to_vec()],
        Said::Spent => return Vec::new(),
        Said::Fails => {}
    }
    if set.len() < 2 {
        return Vec::new();
    }
    let (a, b) = set.split_at(set.len() / 2);
    // Both halves asked together; then each recursed into.
    ask.all(&[a.to_vec(), b.to_vec()]);
    let (xs, ys) = (best(parts, a, ask), best(parts, b, ask));
    let unions: Vec<Vec<String>> = (xs.iter())
        .flat_map(|x| {
            ys.iter().map(move |y| {
                (parts.iter())
                    .filter(|p| x.contains(p) || y.contains(p))
                    .cloned()
                    .collect()
            })
        })
        .collect();
    let said = ask.all(&unions);
    let passed: Vec<Vec<String>> = (unions.into_iter().zip(said))
        .filter(|(_, s)| *s == Said::Passes)
        .map(|(u, _)| u)
        .collect();
    if passed.is_empty() {
        xs.into_iter().chain(ys).collect()
    } else {
        passed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    /// Each part's change adds up, and a set passes at its prediction plus
    /// the tolerance, not beyond.
    #[test]
    fn a_set_passes_when_its_parts_add_up() {
        let published = [1000.0, 50.0];
        let base = [900.0, 50.0];
        let p = predicted(&base, &published, &[&[990.0, 50.0], &[1000.0, 40.0]]).unwrap();
        assert_eq!(p, vec![890.0, 40.0]);
        assert_eq!(passes(&[899.0, 40.5], &p, &base), Some(true));
        assert_eq!(passes(&[900.0, 40.0], &p, &base), Some(false));
        assert_eq!(passes(&[890.0], &p, &base), None);
        assert!(predicted(&base, &published, &[&[1.0]]).is_none());
    }

    /// A footprint passes within the floor of its parts' prediction or of
    /// the base, whichever is larger: 64 bytes, or 0.5% of the base when
    /// that is more.
    #[test]
    fn a_footprint_passes_within_the_floor() {
        // inline (17,926) with two drops of -8 and +16 bytes from 22,046.
        let predicted = predicted_footprint(17_926, 22_046, &[22_038, 22_062]);
        assert_eq!(predicted, 17_934);
        assert!(footprint_passes(17_934 + 89, predicted, 17_926));
        assert!(!footprint_passes(17_934 + 90, predicted, 17_926));
        assert!(footprint_passes(1_064, 1_000, 1_000));
        assert!(!footprint_passes(1_065, 1_000, 1_000));
        // Predicted smaller than it is, and still no larger than the base
        // (sha1 0.11.0: `inline` with nine drops, 7,304 bytes against
        // 7,168 predicted and 7,360 for `inline`): it passes.
        assert!(footprint_passes(7_304, 7_168, 7_360));
        assert!(!footprint_passes(7_360 + 65, 7_168, 7_360));
    }

    /// Two parts that interact (each passes alone, together they fail):
    /// the search keeps each alone, never the whole; the others join the
    /// one they do not interact with.
    #[test]
    fn the_search_falls_back_when_two_edits_interact() {
        let parts = strings(&["drop_1", "drop_2", "add_1", "drop_3"]);
        let mut asked: Vec<Vec<String>> = Vec::new();
        let mut batches = 0;
        let found = search(&parts, &mut |sets: &[Vec<String>]| {
            batches += 1;
            asked.extend(sets.iter().cloned());
            (sets.iter())
                .map(|s| {
                    let has = |n: &str| s.iter().any(|p| p == n);
                    if has("drop_2") && has("add_1") {
                        Said::Fails
                    } else {
                        Said::Passes
                    }
                })
                .collect()
        });
        assert_eq!(
            found,
            vec![
                strings(&["drop_1", "drop_2", "drop_3"]),
                strings(&["drop_1", "add_1", "drop_3"])
            ]
        );
        assert_eq!(asked[0], parts, "the whole first");
        let distinct: std::collections::BTreeSet<_> = asked.iter().collect();
        assert_eq!(distinct.len(), asked.len(), "each set asked once");
        assert!(batches < asked.len(), "the halves asked together");
    }

    /// A whole set that passes is the answer at once; one part that fails
    /// alone is left out; a spent bound stops the search.
    #[test]
    fn the_whole_first_a_bad_part_out_and_a_bound() {
        let parts = strings(&["a", "b", "c"]);
        let mut n = 0;
        assert_eq!(
            search(&parts, &mut |sets: &[Vec<String>]| {
                n += sets.len();
                vec![Said::Passes; sets.len()]
            }),
            vec![parts.clone()]
        );
        assert_eq!(n, 1);
        let bad_b = search(&parts, &mut |sets: &[Vec<String>]| {
            (sets.iter())
                .map(|s| {
                    if s.iter().any(|p| p == "b") {
                        Said::Fails
                    } else {
                        Said::Passes
                    }
                })
                .collect()
        });
        assert_eq!(bad_b, vec![strings(&["a", "c"])]);
        let mut left = 2;
        let spent = search(&parts, &mut |sets: &[Vec<String>]| {
            (sets.iter())
                .map(|_| {
                    if left == 0 {
                        return Said::Spent;
                    }
                    left -= 1;
                    Said::Fails
                })
                .collect()
        });
        assert!(spent.is_empty());
    }
}
