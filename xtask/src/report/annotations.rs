//! A crate's inline attributes (`compare --crate`): which variant removed
//! each one, and which gave `always` to each hot function left out of
//! line. What each did is decided from the report's own entries at render
//! time (`render/worth.rs`), never stored.

use crate::decide::interaction;
use crate::select::artifact::Inlining;
use serde::{Deserialize, Serialize};

/// The attributes of the crate a report measured.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Annotations {
    /// The package: `cast6`.
    #[serde(rename = "crate")]
    pub krate: String,
    pub version: String,
    /// The type measured: `Cast6`.
    #[serde(rename = "type")]
    pub ty: String,
    /// Every inline attribute written in the crate, compiled on this target
    /// or not.
    pub written: usize,
    /// Those this target compiles, in the order the module tree reaches
    /// them.
    pub rows: Vec<Annotated>,
    /// The functions the published build leaves out of line on the hot
    /// path, each given `#[inline(always)]` in a variant (`add_K`).
    #[serde(default)]
    pub added: Vec<Added>,
    /// The crate's modules its hot path reaches as published (`aes::soft`,
    /// `aes::x86_aes`): where it holds several, it picks one at run time.
    #[serde(default)]
    pub backends: Vec<String>,
    /// The instruction-set extensions this CPU has among those a crate
    /// picks a backend by (`aes`, `vaes`, `avx512f`, ...).
    #[serde(default)]
    pub cpu_features: Vec<String>,
    /// Which of those modules ran, per mode family: sampled on this CPU
    /// and counted by callgrind (absent in a report written before they
    /// were observed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ran: Option<crate::report::ran::Ran>,
    /// The verdict's pick written as a patch against the crate's source
    /// (`NAME.patch` beside the report); absent when the pick is the crate
    /// as published, or when the run wrote none (its notes say why).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub patch: Option<Patch>,
    /// The suggested set: the one-at-a-time variants' evidence applied
    /// together, timed whole in a run of its own (`Report::suggested`);
    /// absent when the evidence suggests fewer than two edits' variants
    /// (then it is one of the variants measured).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suggestion: Option<Suggestion>,
    /// The dependencies whose attributes the run edited too (`--also`),
    /// their rows after the crate's in [`Annotations::rows`]; empty in a
    /// report without them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub also: Vec<AlsoCrate>,
}

impl Annotations {
    /// The crate's own rows, without its `--also` dependencies'.
    pub fn own_rows(&self) -> impl Iterator<Item = &Annotated> {
        self.rows.iter().filter(|r| r.krate.is_none())
    }
}

/// A dependency whose inline attributes were axes too (`--also`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AlsoCrate {
    /// The package: `aes`.
    #[serde(rename = "crate")]
    pub krate: String,
    pub version: String,
    /// Every inline attribute written in it, compiled on this target or
    /// not.
    pub written: usize,
}

/// The suggested set and what its run said.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Suggestion {
    /// Its name among that run's variants: `suggested`.
    pub variant: String,
    /// The one-at-a-time variants whose changes it applies together
    /// (`drop_N` judged *drop* or *no effect*, `add_K` judged *add*).
    pub combines: Vec<String>,
    /// The variant it was timed against besides `published`: the first
    /// run's pick (absent when that is `published`).
    pub against: Option<String>,
    pub edits: Vec<PatchEdit>,
    /// The smaller sets timed beside it in the same run, should the whole
    /// set lose: each half of `combines`, and each set that leaves one out.
    #[serde(default)]
    pub tried: Vec<Tried>,
    /// The set that held: that run's pick among them, or one with the same
    /// machine code as that pick, no larger; absent when none did.
    pub held: Option<String>,
    /// The instructions every set was screened by before timing; absent
    /// without valgrind (then every set tried was timed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub screen: Option<Screen>,
    /// The parts were given with `--suggest`, not chosen by the evidence.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub given: bool,
    /// The first run's entry whose machine code the set that held is (its
    /// pick, or `published`): hot path and key schedule the same, addresses
    /// normalized, no larger. It held as that entry's result, with no run
    /// of its own (`Report::suggested` absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub same_code_as: Option<String>,
}

impl Suggestion {
    /// The parts the set `name` applies: the whole set's, or a smaller
    /// one's the search tried.
    pub fn combines_of(&self, name: &str) -> Option<&[String]> {
        if name == self.variant {
            return Some(&self.combines);
        }
        (self.tried.iter())
            .find(|t| t.variant == name)
            .map(|t| t.combines.as_slice())
    }
}

/// The instruction screen of the suggested sets (`decide/interaction.rs`):
/// each set's count against what its parts predict.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Screen {
    /// The cases counted, a headline case per family (`ecb(x) encrypt
    /// 128-bit 8192 B`).
    pub cases: Vec<String>,
    /// What every set is built on: the first run's pick when it is a
    /// policy, else `published`.
    pub base: String,
    /// Instructions per operation in each case of `published`, the base,
    /// each part alone and each set built.
    pub counts: Vec<Counted>,
    /// Variants that could not be counted, and why.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub uncounted: Vec<Uncounted>,
}

/// One variant's instructions per operation, per case of the screen.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Counted {
    pub variant: String,
    pub instructions: Vec<f64>,
    /// Its footprint in bytes (`.text` + `.rodata` + `.data`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub footprint: Option<u64>,
}

/// A variant the screen could not count.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Uncounted {
    pub variant: String,
    pub why: String,
}

impl Screen {
    /// `name`'s instructions per case, when counted.
    pub fn count(&self, name: &str) -> Option<&[f64]> {
        (self.counts.iter())
            .find(|c| c.variant == name)
            .map(|c| c.instructions.as_slice())
    }

    /// The parts of `combines` besides the base.
    fn parts<'a>(&'a self, combines: &'a [String]) -> impl Iterator<Item = &'a String> + 'a {
        combines.iter().filter(move |p| **p != self.base)
    }

    /// What the parts of `combines` (the base first when it is not
    /// `published`) predict for their set, per case.
    pub fn predicted(&self, published: &str, combines: &[String]) -> Option<Vec<f64>> {
        let parts: Option<Vec<&[f64]>> = self.parts(combines).map(|p| self.count(p)).collect();
        interaction::predicted(self.count(&self.base)?, self.count(published)?, &parts?)
    }

    /// `name`'s footprint, when sized.
    pub fn footprint(&self, name: &str) -> Option<u64> {
        (self.counts.iter())
            .find(|c| c.variant == name)
            .and_then(|c| c.footprint)
    }

    /// What the parts of `combines` predict for their set's footprint.
    pub fn predicted_footprint(&self, published: &str, combines: &[String]) -> Option<i64> {
        let parts: Option<Vec<u64>> = self.parts(combines).map(|p| self.footprint(p)).collect();
        Some(interaction::predicted_footprint(
            self.footprint(&self.base)?,
            self.footprint(published)?,
            &parts?,
        ))
    }

    /// How the set `name` of `combines` fared against its parts'
    /// prediction: what it missed by, nothing when it passed; `None` when
    /// it or a part was not counted. Its footprint counts where every
    /// footprint is known.
    pub fn missed(&self, published: &str, name: &str, combines: &[String]) -> Option<Missed> {
        let predicted = self.predicted(published, combines)?;
        let (count, base) = (self.count(name)?, self.count(&self.base)?);
        let instructions = (!interaction::passes(count, &predicted, base)?).then(|| {
            (0..count.len())
                .map(|i| (count[i] - predicted[i]) / base[i].max(1.0))
                .fold(f64::MIN, f64::max)
        });
        let bytes = match (
            self.footprint(name),
            self.predicted_footprint(published, combines),
            self.footprint(&self.base),
        ) {
            (Some(set), Some(predicted), Some(base))
                if !interaction::footprint_passes(set, predicted, base) =>
            {
                Some(set as i64 - predicted)
            }
            _ => None,
        };
        Some(Missed {
            instructions,
            bytes,
        })
    }

    /// Whether the set `name` of `combines` passed ([`Screen::missed`]).
    pub fn passed(&self, published: &str, name: &str, combines: &[String]) -> Option<bool> {
        self.missed(published, name, combines).map(|m| m.passed())
    }
}

/// What a set missed its parts' prediction by.
pub struct Missed {
    /// The largest excess over a case's prediction, as a share of the
    /// base's instructions, when past the tolerance.
    pub instructions: Option<f64>,
    /// Bytes over the prediction, when past it and the base by the floor.
    pub bytes: Option<i64>,
}

impl Missed {
    pub fn passed(&self) -> bool {
        self.instructions.is_none() && self.bytes.is_none()
    }
}

/// One set tried beside the suggested one.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Tried {
    /// Its name among the run's variants: `suggested_1`.
    pub variant: String,
    pub combines: Vec<String>,
}

/// The pick's edits as a patch file: each attribute as published and as
/// the patch leaves it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Patch {
    /// The file beside the report ([`Patch::file_name`]): `cast6.patch`,
    /// or `aes_gcm.aes-0.9.4.patch` for a dependency's.
    pub file: String,
    /// The variant it writes out, measured whole in the run.
    pub variant: String,
    /// Locations are in the patched package: the dependency's when there
    /// is one.
    pub edits: Vec<PatchEdit>,
    /// When `variant` is a set trimmed of the edits no build reaches
    /// (`cmd/compare/krate/trim.rs`): the set it was trimmed from, whose
    /// machine code it is, and the edits left out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trimmed: Option<Trimmed>,
    /// The `--also` dependency the patch edits (the pick is one of its
    /// variants), a diff against that package's source; absent for a
    /// patch of the crate itself (and in a report written before a
    /// dependency's patch was).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dependency: Option<Dependency>,
}

impl Patch {
    /// The patch file of the report `cipher`, beside it: `CIPHER.patch`
    /// for the crate's own, `CIPHER.CRATE-VERSION.patch` for a
    /// dependency's, each of the dependency's parts made safe as a file
    /// name's ([`file_part`]). A cipher's name holds no `.`, so no other
    /// report's patch has these names.
    pub fn file_name(cipher: &str, dependency: Option<&Dependency>) -> String {
        match dependency {
            None => format!("{cipher}.patch"),
            Some(d) => format!(
                "{cipher}.{}-{}.patch",
                file_part(&d.krate),
                file_part(&d.version)
            ),
        }
    }
}

/// The longest a dependency's name or version is in a patch's file name.
pub const MAX_FILE_PART: usize = 64;

/// `s` as part of a file name: each character but ASCII letters, digits,
/// `.`, `-` and `_` as `_` (a version's `+` among them), no `.` first, at
/// most [`MAX_FILE_PART`] characters; never empty.
pub fn file_part(s: &str) -> String {
    let part: String = (s.chars().take(MAX_FILE_PART))
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') {
                c
            } else {
                '_'
            }
        })
        .collect();
    match part.strip_prefix('.') {
        Some(rest) => format!("_{rest}"),
        None if part.is_empty() => "_".to_string(),
        None => part,
    }
}

/// The dependency a patch is of: its package and version, as the run's
/// `--also` record names it ([`AlsoCrate`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Dependency {
    /// The package: `aes`.
    #[serde(rename = "crate")]
    pub krate: String,
    pub version: String,
}

/// A patch's set trimmed of edits that change no machine code.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Trimmed {
    /// The set trimmed (measured whole, or held as another's machine
    /// code): the patch carries its figures.
    pub of: String,
    /// Its edits the patch leaves out, each to a function no build reaches.
    pub left_out: Vec<PatchEdit>,
}

/// One edit of a patch.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PatchEdit {
    /// The function's path.
    pub path: String,
    /// `file:line` in the package.
    pub location: String,
    /// Its attribute as published (`inline`, ...), or none.
    pub published: Option<String>,
    /// Its attribute with the patch, or none.
    pub patched: Option<String>,
}

/// A hot function out of line as published, and the variant that gives it
/// `#[inline(always)]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Added {
    /// From 1: the `K` of `add_K`.
    pub number: usize,
    pub function: String,
    pub path: String,
    /// `file:line` of the function.
    pub location: String,
    /// Its inline attribute as published (`inline`, ...), if any.
    pub attr: Option<String>,
    pub variant: String,
}

/// One attribute and the variant without it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Annotated {
    /// From 1: the `N` of `drop_N`.
    pub number: usize,
    /// The function it applies to (`$name` in a macro body).
    pub function: String,
    /// The function's path (module, `impl`, macro).
    pub path: String,
    /// `file:line` in the package.
    pub location: String,
    /// As published: `inline`, `inline(always)`, `inline(never)`.
    pub attr: String,
    /// The variant that removes it.
    pub variant: String,
    /// The `--also` dependency it is written in (`aes`), its location in
    /// that package; absent for the crate's own.
    #[serde(default, rename = "crate", skip_serializing_if = "Option::is_none")]
    pub krate: Option<String>,
}

/// The decisions in `inlining` whose callee is the function the table
/// names `path` (`<Cast6 as BlockCipherEncBackend>::encrypt_block`,
/// `Cast6::key_schedule`): the same last segment, and every word of the
/// callee's shortened name in `path` (a legacy symbol drops an inherent
/// method's type: `key_schedule`).
pub fn calls_to<'a>(path: &str, inlining: &'a [Inlining]) -> Vec<&'a Inlining> {
    fn words(s: &str) -> Vec<&str> {
        s.split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .filter(|w| !w.is_empty())
            .collect()
    }
    let own = words(path);
    (inlining.iter())
        .filter(|i| {
            let callee = words(&i.callee);
            callee.last() == own.last() && callee.iter().all(|w| own.contains(w))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dependency(krate: &str, version: &str) -> Dependency {
        Dependency {
            krate: krate.into(),
            version: version.into(),
        }
    }

    /// The crate's patch keeps its name; a dependency's says which crate
    /// and version, whatever the name and version hold, as one file name.
    #[test]
    fn a_dependencys_patch_is_named_for_it() {
        assert_eq!(Patch::file_name("cast6", None), "cast6.patch");
        assert_eq!(
            Patch::file_name("aes_gcm", Some(&dependency("aes", "0.9.4"))),
            "aes_gcm.aes-0.9.4.patch"
        );
        assert_eq!(
            Patch::file_name(
                "aes_gcm",
                Some(&dependency("universal-hash", "0.6.0-rc.2+build7"))
            ),
            "aes_gcm.universal-hash-0.6.0-rc.2_build7.patch"
        );
        for (krate, version) in [("../x", "/etc"), ("a/b\\c", ".."), ("", "\n")] {
            let name = Patch::file_name("toy", Some(&dependency(krate, version)));
            assert!(
                !name.contains(['/', '\\', '\n']) && !name.contains("/.."),
                "{name}"
            );
            assert!(
                name.starts_with("toy.") && name.ends_with(".patch"),
                "{name}"
            );
        }
        let long = "a".repeat(300);
        assert!(Patch::file_name("toy", Some(&dependency(&long, &long))).len() < 255);
    }

    /// A report written before a dependency's patch was reads as the
    /// crate's own; a dependency's is written with its crate and version,
    /// and read back the same.
    #[test]
    fn a_patchs_dependency_is_recorded_and_optional() {
        let old: Patch =
            serde_json::from_str(r#"{"file": "toy.patch", "variant": "none", "edits": []}"#)
                .unwrap();
        assert_eq!(old.dependency, None);
        assert!(!serde_json::to_string(&old).unwrap().contains("dependency"));
        let p = Patch {
            file: "toy.aes-0.9.4.patch".into(),
            dependency: Some(dependency("aes", "0.9.4")),
            ..old
        };
        let text = serde_json::to_string(&p).unwrap();
        assert!(
            text.contains(r#""dependency":{"crate":"aes","version":"0.9.4"}"#),
            "{text}"
        );
        assert_eq!(serde_json::from_str::<Patch>(&text).unwrap(), p);
    }
}
