//! How a speed entry's samples are written: column-wise (schema 3), so that
//! a report of tens of thousands of rounds stays well under a megabyte; and
//! read back in either layout, the columns or schema 2's one object per
//! round (`{"ticks_per_op": .., "quiet": .., "process": ..}`).
//!
//! ```json
//! "samples": {
//!   "ticks_per_op": [209.7932, 215.9308, 204.4394],
//!   "quiet": [0, 2],
//!   "process_runs": [[0, 2], [1, 1]]
//! }
//! ```
//!
//! `quiet` lists the rounds (from 0) that were quiet; `process_runs` the
//! measuring processes in round order, each with how many rounds in a row
//! came from it.

use super::Sample;
use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The samples of one speed entry, a column per field.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Columns {
    ticks_per_op: Vec<f64>,
    /// The quiet rounds, in increasing order.
    quiet: Vec<usize>,
    /// `(process, rounds)`: consecutive rounds from one process.
    process_runs: Vec<(usize, usize)>,
}

impl Columns {
    fn of(samples: &[Sample]) -> Columns {
        let mut process_runs: Vec<(usize, usize)> = Vec::new();
        for s in samples {
            match process_runs.last_mut() {
                Some((p, n)) if *p == s.process => *n += 1,
                _ => process_runs.push((s.process, 1)),
            }
        }
        Columns {
            ticks_per_op: samples.iter().map(|s| s.ticks_per_op).collect(),
            quiet: (0..samples.len()).filter(|&r| samples[r].quiet).collect(),
            process_runs,
        }
    }

    /// The rows again; says what is wrong when the columns disagree.
    fn rows(self) -> Result<Vec<Sample>, String> {
        let n = self.ticks_per_op.len();
        if self.quiet.windows(2).any(|w| w[0] >= w[1]) {
            return Err("samples.quiet is not in increasing order".into());
        }
        if let Some(&r) = self.quiet.iter().find(|&&r| r >= n) {
            return Err(format!(
                "samples.quiet names round {r}, but there are {n} rounds"
            ));
        }
        let runs = (self.process_runs.iter()).try_fold(0usize, |sum, &(_, k)| sum.checked_add(k));
        if runs != Some(n) {
            let runs = runs.map_or("more than usize::MAX".into(), |r| r.to_string());
            return Err(format!(
                "samples.process_runs cover {runs} rounds, but there are {n}"
            ));
        }
        let process = (self.process_runs.iter()).flat_map(|&(p, k)| std::iter::repeat_n(p, k));
        let mut quiet = self.quiet.iter().copied().peekable();
        Ok((self.ticks_per_op.iter().zip(process).enumerate())
            .map(|(r, (&ticks_per_op, process))| Sample {
                ticks_per_op,
                quiet: quiet.next_if_eq(&r).is_some(),
                process,
            })
            .collect())
    }
}

pub fn serialize<S: Serializer>(samples: &[Sample], s: S) -> Result<S::Ok, S::Error> {
    Columns::of(samples).serialize(s)
}

/// Either layout: an array is schema 2's rows, an object schema 3's
/// columns.
pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Sample>, D::Error> {
    let value = serde_json::Value::deserialize(d)?;
    let bad = |e: serde_json::Error| D::Error::custom(format!("samples: {e}"));
    if value.is_array() {
        serde_json::from_value(value).map_err(bad)
    } else {
        let columns: Columns = serde_json::from_value(value).map_err(bad)?;
        columns.rows().map_err(D::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn samples() -> Vec<Sample> {
        [
            (1.5, true, 0),
            (2.0, false, 0),
            (1.25, true, 1),
            (3.0, true, 3),
        ]
        .into_iter()
        .map(|(ticks_per_op, quiet, process)| Sample {
            ticks_per_op,
            quiet,
            process,
        })
        .collect()
    }

    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct Holder {
        #[serde(with = "super")]
        samples: Vec<Sample>,
    }

    #[test]
    fn columns_read_back_as_the_rows_they_came_from() {
        let h = Holder { samples: samples() };
        let json = serde_json::to_string(&h).unwrap();
        assert_eq!(
            json,
            r#"{"samples":{"ticks_per_op":[1.5,2.0,1.25,3.0],"quiet":[0,2,3],"process_runs":[[0,2],[1,1],[3,1]]}}"#
        );
        assert_eq!(serde_json::from_str::<Holder>(&json).unwrap(), h);
    }

    #[test]
    fn schema_2_rows_are_read_too() {
        let json = r#"{"samples": [{"ticks_per_op": 1.5, "quiet": true, "process": 0},
            {"ticks_per_op": 2.0, "quiet": false, "process": 0},
            {"ticks_per_op": 1.25, "quiet": true, "process": 1},
            {"ticks_per_op": 3.0, "quiet": true, "process": 3}]}"#;
        let h: Holder = serde_json::from_str(json).unwrap();
        assert_eq!(h.samples, samples());
    }

    #[test]
    fn columns_that_disagree_are_refused() {
        for (json, why) in [
            (
                r#"{"ticks_per_op":[1.0],"quiet":[1],"process_runs":[[0,1]]}"#,
                "names round 1",
            ),
            (
                r#"{"ticks_per_op":[1.0,2.0],"quiet":[1,0],"process_runs":[[0,2]]}"#,
                "increasing",
            ),
            (
                r#"{"ticks_per_op":[1.0],"quiet":[],"process_runs":[[0,2]]}"#,
                "cover 2 rounds",
            ),
            (
                r#"{"ticks_per_op":[1.0],"quiet":[],"process_runs":[[0,18446744073709551615],[1,1]]}"#,
                "cover more than usize::MAX rounds",
            ),
        ] {
            let err = serde_json::from_str::<Holder>(&format!(r#"{{"samples":{json}}}"#))
                .unwrap_err()
                .to_string();
            assert!(err.contains(why), "{err}");
        }
    }
}
