//! Which of a crate's modules ran, per mode family (`compare --crate`): on
//! this CPU, from instruction-pointer samples taken while the crate as
//! published ran (`timed`), and under callgrind, from the instructions it
//! counted (`counted`). A crate that picks its backend at run time (aes:
//! VAES-512, VAES-256, AES-NI or software) may run one here and another
//! under valgrind, whose CPU has no AVX-512: the counts are then for the
//! other. Every share is a count over a total kept here, so that each
//! figure can be computed again.

use crate::report::family::{Family, Operation};
use serde::{Deserialize, Serialize};

/// Both observations of the same artifact in the same cases.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Ran {
    /// Instruction-pointer samples on this CPU (counts are samples).
    pub timed: Observed,
    /// Callgrind's instructions (counts are instructions).
    pub counted: Observed,
}

/// One observation: per mode family, or why there is none.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Observed {
    /// One per family observed, in [`Family::ALL`] order.
    Families(Vec<FamilyRan>),
    /// Why nothing was observed (valgrind missing, not x86-64 Linux, the
    /// sampling process failed).
    Unavailable(String),
}

/// Where one case's samples (or instructions) went.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FamilyRan {
    pub family: Family,
    /// The case observed, as a speed entry names it: `ecb(aes)`.
    pub alg: String,
    pub dir: Operation,
    pub key_bits: usize,
    pub block_bytes: usize,
    /// Every sample (or instruction) of the case, wherever it fell: in the
    /// crate's code, the shim's, `cipher`'s, `core`'s or, for samples, the
    /// harness around the artifact.
    pub total: u64,
    /// The crate's modules that got any, the most first.
    pub modules: Vec<ModuleCount>,
    /// With `--also`, the instructions counted by crate: the crate's, each
    /// dependency's and everything else's (absent without `--also`, for
    /// samples, and in a report written before they were kept).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by_crate: Option<ByCrate>,
}

/// A case's instructions by crate (`compare --crate --also`): each
/// function's in the crate whose library its path starts with, the rest in
/// [`ByCrate::other`]; the counts sum to the case's total.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ByCrate {
    /// The crate measured, then each `--also` dependency in its order.
    pub crates: Vec<CrateCount>,
    /// Everything else: the shim's, `cipher`'s, `core`'s, any other
    /// crate's.
    pub other: u64,
}

/// A crate and the instructions its functions got.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CrateCount {
    /// The package as the report names it: `aes-gcm`.
    #[serde(rename = "crate")]
    pub krate: String,
    /// Its library, which its functions' paths start with: `aes_gcm`.
    pub lib: String,
    pub count: u64,
}

impl ByCrate {
    /// The crate whose functions got the most (the first of a tie), unless
    /// none got any.
    pub fn heaviest(&self) -> Option<&CrateCount> {
        (self.crates.iter())
            .filter(|c| c.count > 0)
            .rev()
            .max_by_key(|c| c.count)
    }
}

/// A module of the crate (`aes::backends::x86_vaes512`) and what it got.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ModuleCount {
    pub module: String,
    pub count: u64,
}

impl Observed {
    /// The observation of `family`, if it was observed.
    pub fn of(&self, family: Family) -> Option<&FamilyRan> {
        match self {
            Observed::Families(f) => f.iter().find(|r| r.family == family),
            Observed::Unavailable(_) => None,
        }
    }

    /// Why nothing was observed, if so.
    pub fn unavailable(&self) -> Option<&str> {
        match self {
            Observed::Families(_) => None,
            Observed::Unavailable(why) => Some(why),
        }
    }
}

impl FamilyRan {
    /// The case as the gate's rows name it: `rfc4106(gcm(aes)) encrypt
    /// 128-bit 8192 B`, or `ecb(aes) setkey 128-bit` for key setup.
    pub fn case_name(&self) -> String {
        super::family::case_name(&self.alg, self.dir, self.key_bits, self.block_bytes)
    }

    /// `count` per byte of the case, or per key where it has no bytes (key
    /// setup).
    pub fn per_unit(&self, count: u64) -> f64 {
        count as f64 / self.block_bytes.max(1) as f64
    }

    /// What [`FamilyRan::per_unit`] is per: `byte`, or `key`.
    pub fn unit(&self) -> &'static str {
        if self.block_bytes == 0 { "key" } else { "byte" }
    }

    /// The crate's module that got the most, with its share of the total.
    pub fn backend(&self) -> Option<(&str, f64)> {
        let top = self.modules.first()?;
        let share = if self.total == 0 {
            0.0
        } else {
            top.count as f64 / self.total as f64
        };
        Some((&top.module, share))
    }
}

impl Ran {
    /// The families either observation holds, in [`Family::ALL`] order.
    pub fn families(&self) -> Vec<Family> {
        (Family::ALL.into_iter())
            .filter(|&f| self.timed.of(f).is_some() || self.counted.of(f).is_some())
            .collect()
    }

    /// The families where the module counted is not the module timed (both
    /// observed): where the instruction counts are of another backend than
    /// the one this CPU runs.
    pub fn differing(&self) -> Vec<Family> {
        (self.families().into_iter())
            .filter(|&f| {
                let timed = self.timed.of(f).and_then(FamilyRan::backend);
                let counted = self.counted.of(f).and_then(FamilyRan::backend);
                matches!((timed, counted), (Some(t), Some(c)) if t.0 != c.0)
            })
            .collect()
    }

    /// One sentence per family, each module name through `code` (the
    /// escaping of where the sentence lands: `md_code`, `terminal`), each
    /// reason through `text`: "parallel modes ran `m` (97% of 812 samples);
    /// callgrind counted `n` (valgrind's CPU has no AVX-512): instruction
    /// counts are for that backend". A sentence ends without a full stop.
    pub fn sentences(
        &self,
        code: &dyn Fn(&str) -> String,
        text: &dyn Fn(&str) -> String,
    ) -> Vec<String> {
        let mut out = Vec::new();
        let families = self.families();
        if families.is_empty() {
            let why = |o: &Observed| {
                o.unavailable()
                    .map(text)
                    .unwrap_or_else(|| "no case".into())
            };
            out.push(format!(
                "which backend ran: not sampled ({}); not counted ({})",
                why(&self.timed),
                why(&self.counted)
            ));
            return out;
        }
        for f in families {
            let timed = match self.timed.of(f).map(|r| (r, r.backend())) {
                Some((r, Some((m, share)))) => format!(
                    "{} ran {} ({:.0}% of {} samples)",
                    f.name(),
                    code(m),
                    share * 100.0,
                    r.total
                ),
                Some((r, None)) => format!(
                    "{}: none of {} samples in the crate's code",
                    f.name(),
                    r.total
                ),
                None => format!(
                    "{}: not sampled ({})",
                    f.name(),
                    self.why_not(&self.timed, text)
                ),
            };
            let timed_module = self.timed.of(f).and_then(FamilyRan::backend).map(|b| b.0);
            let counted = match self.counted.of(f).and_then(|r| r.backend()) {
                Some((m, share)) if Some(m) == timed_module => {
                    format!(
                        "callgrind counted the same ({:.0}% of its instructions)",
                        share * 100.0
                    )
                }
                Some((m, share)) if timed_module.is_some() => format!(
                    "callgrind counted {} ({:.0}% of its instructions; valgrind's CPU has no AVX-512): instruction counts are for that backend",
                    code(m),
                    share * 100.0
                ),
                Some((m, share)) => format!(
                    "callgrind counted {} ({:.0}% of its instructions)",
                    code(m),
                    share * 100.0
                ),
                None if self.counted.of(f).is_some() => {
                    "callgrind counted no instruction in the crate's code".to_string()
                }
                None => format!("not counted ({})", self.why_not(&self.counted, text)),
            };
            out.push(format!("{timed}; {counted}"));
        }
        out
    }

    /// Why `o` has no family (its reason, or that the case was not among
    /// those it observed).
    fn why_not(&self, o: &Observed, text: &dyn Fn(&str) -> String) -> String {
        o.unavailable()
            .map_or_else(|| "not among its cases".to_string(), text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ran(family: Family, total: u64, modules: &[(&str, u64)]) -> FamilyRan {
        FamilyRan {
            family,
            alg: "ecb(aes)".into(),
            dir: Operation::Encrypt,
            key_bits: 128,
            block_bytes: 8192,
            total,
            modules: (modules.iter())
                .map(|&(m, count)| ModuleCount {
                    module: m.into(),
                    count,
                })
                .collect(),
            by_crate: None,
        }
    }

    /// The sentence names the module timed with its share of the samples,
    /// and the one counted where it differs, saying the counts are for it.
    #[test]
    fn a_sentence_per_family_naming_both() {
        let r = Ran {
            timed: Observed::Families(vec![
                ran(
                    Family::Parallel,
                    800,
                    &[("aes::backends::x86_vaes512", 776), ("aes", 8)],
                ),
                ran(Family::Setkey, 100, &[("aes::backends::x86_aes", 90)]),
            ]),
            counted: Observed::Families(vec![
                ran(Family::Parallel, 1000, &[("aes::backends::x86_aes", 950)]),
                ran(Family::Setkey, 500, &[("aes::backends::x86_aes", 450)]),
            ]),
        };
        let code = |s: &str| format!("`{s}`");
        let text = |s: &str| s.to_string();
        let s = r.sentences(&code, &text);
        assert_eq!(
            s,
            [
                "parallel modes ran `aes::backends::x86_vaes512` (97% of 800 samples); callgrind counted `aes::backends::x86_aes` (95% of its instructions; valgrind's CPU has no AVX-512): instruction counts are for that backend",
                "key setup ran `aes::backends::x86_aes` (90% of 100 samples); callgrind counted the same (90% of its instructions)",
            ]
        );
        assert_eq!(r.differing(), [Family::Parallel]);
    }

    /// Without valgrind, or off x86-64 Linux, the sentence says why.
    #[test]
    fn what_was_not_observed_is_said() {
        let r = Ran {
            timed: Observed::Families(vec![ran(Family::Serial, 10, &[])]),
            counted: Observed::Unavailable("valgrind is not installed".into()),
        };
        let id = |s: &str| s.to_string();
        assert_eq!(
            r.sentences(&id, &id),
            [
                "CBC encryption: none of 10 samples in the crate's code; not counted (valgrind is not installed)"
            ]
        );
        assert!(r.differing().is_empty());
        let none = Ran {
            timed: Observed::Unavailable("not x86-64 Linux".into()),
            counted: Observed::Unavailable("no valgrind".into()),
        };
        assert_eq!(
            none.sentences(&id, &id),
            ["which backend ran: not sampled (not x86-64 Linux); not counted (no valgrind)"]
        );
    }

    /// The JSON keeps every count, and reads back the same.
    #[test]
    fn round_trips() {
        let r = Ran {
            timed: Observed::Families(vec![ran(Family::Parallel, 8, &[("m", 7)])]),
            counted: Observed::Unavailable("why".into()),
        };
        let json = serde_json::to_value(&r).unwrap();
        assert_eq!(json["timed"]["families"][0]["family"], "parallel");
        assert_eq!(json["timed"]["families"][0]["modules"][0]["count"], 7);
        assert_eq!(json["counted"]["unavailable"], "why");
        assert_eq!(serde_json::from_value::<Ran>(json).unwrap(), r);
    }
}
