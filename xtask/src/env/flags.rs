//! The compiler's flags an artifact is built with, as axes (`compare
//! --opt-level 3,s --target-cpu x86-64,native --target-feature +aes --lto
//! false,fat`): each combination asked for is a [`FlagSet`], built in a
//! target directory of its own, part of its artifacts' build inputs and of
//! their names (`auto~Os.znver3`). Without any of these options the run
//! has one flag set, [`FlagSet::profile`]: the `artifact` profile as
//! `Cargo.toml` states it, nothing added, and its artifacts keep their
//! plain names and their bytes.
//!
//! Every value is checked before anything is built, against what rustc
//! and cargo take (`rustc --print target-cpus`, `--print target-features`;
//! cargo's `opt-level` and `lto` values), and against this CPU: a flag set
//! whose code this CPU cannot run (a target CPU or feature it lacks) could
//! be built but never timed, so it is a usage error. `native` is resolved
//! to the CPU rustc names for this host, and recorded as asked.

use crate::env::workspace;
use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::process::Command;

/// What separates a variant's name from its flag set's (`auto~Os`): not a
/// character of a variant, peer or flag set name, nor `@` (`@control`,
/// `@base`), and safe in a file name.
pub const SEPARATOR: char = '~';

/// Cargo's `opt-level`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum OptLevel {
    #[serde(rename = "0")]
    O0,
    #[serde(rename = "1")]
    O1,
    #[serde(rename = "2")]
    O2,
    #[serde(rename = "3")]
    O3,
    #[serde(rename = "s")]
    S,
    #[serde(rename = "z")]
    Z,
}

impl OptLevel {
    const ALL: [(OptLevel, &'static str); 6] = [
        (OptLevel::O0, "0"),
        (OptLevel::O1, "1"),
        (OptLevel::O2, "2"),
        (OptLevel::O3, "3"),
        (OptLevel::S, "s"),
        (OptLevel::Z, "z"),
    ];

    /// Cargo's spelling: `3`, `s`.
    pub fn value(self) -> &'static str {
        (Self::ALL.iter().find(|(l, _)| *l == self)).map_or("3", |(_, v)| v)
    }

    /// Whether this level asks LLVM for small code rather than fast.
    pub fn for_size(self) -> bool {
        matches!(self, OptLevel::S | OptLevel::Z)
    }

    fn parse(s: &str) -> Option<OptLevel> {
        (Self::ALL.iter().find(|(_, v)| *v == s)).map(|(l, _)| *l)
    }
}

/// Cargo's `lto`: `false` (the default: LTO across the crate's own codegen
/// units only), `off`, `thin`, `fat` (`true` is `fat`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Lto {
    False,
    Off,
    Thin,
    Fat,
}

impl Lto {
    const ALL: [(Lto, &'static str); 4] = [
        (Lto::False, "false"),
        (Lto::Off, "off"),
        (Lto::Thin, "thin"),
        (Lto::Fat, "fat"),
    ];

    /// Cargo's spelling.
    pub fn value(self) -> &'static str {
        (Self::ALL.iter().find(|(l, _)| *l == self)).map_or("false", |(_, v)| v)
    }

    fn parse(s: &str) -> Option<Lto> {
        match s {
            "true" => Some(Lto::Fat),
            _ => (Self::ALL.iter().find(|(_, v)| *v == s)).map(|(l, _)| *l),
        }
    }
}

/// A target CPU: rustc's name for it, and `native` when that was asked.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct TargetCpu {
    /// The name rustc takes and the flag set is built with (`znver3` for
    /// `native` on a Zen 3).
    pub name: String,
    /// `native` resolved to [`Self::name`] on the machine that built it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub native: bool,
}

/// One combination of the asked flags: each axis `None` when the run did
/// not ask for it (the profile's own value).
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct FlagSet {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opt_level: Option<OptLevel>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_cpu: Option<TargetCpu>,
    /// `-Ctarget-feature`, each `+name` or `-name`, in the order asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_features: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lto: Option<Lto>,
}

impl FlagSet {
    /// The profile as it is: no flag added.
    pub fn profile() -> FlagSet {
        FlagSet::default()
    }

    /// Whether this is [`Self::profile`].
    pub fn is_profile(&self) -> bool {
        *self == FlagSet::default()
    }

    /// Its name, `.` between the axes asked, in a fixed order: `Os`,
    /// `O3.x86-64-v3`, `Oz.znver3.+aes+avx2.lto-fat`; empty for the
    /// profile. Characters: those of rustc's CPU and feature names
    /// (letters, digits, `-`, `.`, `_`), `+`, `-`: safe in a file name.
    pub fn name(&self) -> String {
        let mut parts = Vec::new();
        if let Some(o) = self.opt_level {
            parts.push(format!("O{}", o.value()));
        }
        if let Some(c) = &self.target_cpu {
            parts.push(c.name.clone());
        }
        if let Some(f) = &self.target_features {
            parts.push(if f.is_empty() {
                "nofeatures".to_string()
            } else {
                f.concat()
            });
        }
        if let Some(l) = self.lto {
            parts.push(format!("lto-{}", l.value()));
        }
        parts.join(".")
    }

    /// A contender's name under this flag set: `auto`, or `auto~Os`.
    pub fn contender(&self, name: &str) -> String {
        match self.name().as_str() {
            "" => name.to_string(),
            set => format!("{name}{SEPARATOR}{set}"),
        }
    }

    /// What it adds to `RUSTFLAGS`.
    pub fn rustflags(&self) -> Vec<String> {
        let mut out = Vec::new();
        if let Some(c) = &self.target_cpu {
            out.push(format!("-Ctarget-cpu={}", c.name));
        }
        if let Some(f) = self.target_features.as_ref().filter(|f| !f.is_empty()) {
            out.push(format!("-Ctarget-feature={}", f.join(",")));
        }
        out
    }

    /// What it sets in cargo's environment: the `artifact` profile's
    /// `opt-level` and `lto`.
    pub fn profile_env(&self) -> Vec<(&'static str, &'static str)> {
        let mut out = Vec::new();
        if let Some(o) = self.opt_level {
            out.push(("CARGO_PROFILE_ARTIFACT_OPT_LEVEL", o.value()));
        }
        if let Some(l) = self.lto {
            out.push(("CARGO_PROFILE_ARTIFACT_LTO", l.value()));
        }
        out
    }

    /// The flags in words, as cargo and rustc take them: `opt-level=s,
    /// -Ctarget-cpu=znver3 (native)`; `as the profile states` for the
    /// profile.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(o) = self.opt_level {
            parts.push(format!("opt-level={}", o.value()));
        }
        if let Some(c) = &self.target_cpu {
            parts.push(format!(
                "-Ctarget-cpu={}{}",
                c.name,
                if c.native { " (native)" } else { "" }
            ));
        }
        match self.target_features.as_deref() {
            Some([]) => parts.push("no -Ctarget-feature".to_string()),
            Some(f) => parts.push(format!("-Ctarget-feature={}", f.join(","))),
            None => {}
        }
        if let Some(l) = self.lto {
            parts.push(format!("lto={}", l.value()));
        }
        if parts.is_empty() {
            "as the profile states".to_string()
        } else {
            parts.join(", ")
        }
    }
}

/// Whether `sets` make a flag grid: any set but the profile's.
pub fn is_grid(sets: &[FlagSet]) -> bool {
    sets.iter().any(|s| !s.is_profile())
}

/// The flag axes a command line asked for, each list as given (`None`: not
/// asked).
#[derive(Clone, Debug, Default)]
pub struct Asked<'a> {
    pub opt_level: Option<&'a [String]>,
    pub target_cpu: Option<&'a [String]>,
    pub target_feature: Option<&'a [String]>,
    pub lto: Option<&'a [String]>,
}

impl Asked<'_> {
    /// Whether any axis was asked for.
    pub fn any(&self) -> bool {
        self.opt_level.is_some()
            || self.target_cpu.is_some()
            || self.target_feature.is_some()
            || self.lto.is_some()
    }
}

/// The most flag sets one run may build: each compiles the dependencies
/// again in a target directory of its own.
pub const MAX_SETS: usize = 48;

/// The flag sets `asked` names, every combination of its lists in the
/// order given (opt-level outermost), duplicates (`native` and the CPU it
/// is) once; `[FlagSet::profile()]` when nothing was asked. Every value is
/// checked against rustc and this CPU first: a usage error names the
/// first bad one.
pub fn grid(asked: &Asked) -> Result<Vec<FlagSet>> {
    if !asked.any() {
        return Ok(vec![FlagSet::profile()]);
    }
    let opt = axis(asked.opt_level, "--opt-level", "3,s,z", |s| {
        OptLevel::parse(s)
            .ok_or_else(|| format!("`{s}` is not an opt-level cargo takes (0, 1, 2, 3, s or z)"))
    })?;
    let lto = axis(asked.lto, "--lto", "false,fat", |s| {
        Lto::parse(s).ok_or_else(|| {
            format!("`{s}` is not an lto value cargo takes (false, off, thin, fat or true)")
        })
    })?;
    let rustc = (asked.target_cpu.is_some() || asked.target_feature.is_some())
        .then(Rustc::ask)
        .transpose()?;
    let cpu = match (asked.target_cpu, &rustc) {
        (Some(list), Some(r)) => {
            axis(Some(list), "--target-cpu", "x86-64,x86-64-v3,native", |s| {
                r.cpu(s)
            })?
        }
        _ => vec![None],
    };
    let features = match (asked.target_feature, &rustc) {
        (Some(list), Some(r)) => axis(Some(list), "--target-feature", "+aes,+aes+avx2", |s| {
            r.features(s)
        })?,
        _ => vec![None],
    };
    let count = opt.len() * cpu.len() * features.len() * lto.len();
    if count > MAX_SETS {
        return Err(Error::usage(
            format!("{count} flag sets asked for, more than the {MAX_SETS} one run builds"),
            "ask for fewer values, or run the axes in separate runs",
        ));
    }
    let mut sets: Vec<FlagSet> = Vec::with_capacity(count);
    for o in &opt {
        for c in &cpu {
            for f in &features {
                for l in &lto {
                    let set = FlagSet {
                        opt_level: *o,
                        target_cpu: c.clone(),
                        target_features: f.clone(),
                        lto: *l,
                    };
                    if !sets.iter().any(|s| s.name() == set.name()) {
                        sets.push(set);
                    }
                }
            }
        }
    }
    if let Some(r) = &rustc {
        for set in &sets {
            r.runs_here(set)?;
        }
    }
    Ok(sets)
}

/// One axis's values parsed, `[None]` when it was not asked; an empty list
/// or a bad value is a usage error naming the option.
fn axis<T>(
    list: Option<&[String]>,
    option: &str,
    example: &str,
    parse: impl Fn(&str) -> std::result::Result<T, String>,
) -> Result<Vec<Option<T>>> {
    let Some(list) = list else {
        return Ok(vec![None]);
    };
    let hint = || format!("e.g. {option} {example}");
    if list.iter().all(|v| v.trim().is_empty()) {
        return Err(Error::usage(format!("{option} has no value"), hint()));
    }
    list.iter()
        .map(|v| {
            parse(v.trim())
                .map(Some)
                .map_err(|why| Error::usage(why, hint()))
        })
        .collect()
}

/// What rustc says about this target: its CPUs, its features, and what
/// this host's CPU has.
struct Rustc {
    cpus: BTreeSet<String>,
    /// The CPU `native` is on this machine.
    native: String,
    features: BTreeSet<String>,
    /// The features `-Ctarget-cpu=native` turns on.
    here: BTreeSet<String>,
}

impl Rustc {
    fn ask() -> Result<Rustc> {
        let cpus_text = print(&["--print", "target-cpus"])?;
        let mut cpus = BTreeSet::new();
        let mut native = None;
        for line in cpus_text.lines().skip(1) {
            let Some(name) = line.split_whitespace().next() else {
                continue;
            };
            if name == "native" {
                native = line
                    .split("(currently ")
                    .nth(1)
                    .and_then(|t| t.split(')').next())
                    .map(|t| t.trim_end_matches('.').to_string());
            } else {
                cpus.insert(name.to_string());
            }
        }
        let native = native
            .ok_or_else(|| Error::failed("rustc --print target-cpus names no CPU for `native`"))?;
        let features = (print(&["--print", "target-features"])?.lines())
            .filter(|l| l.starts_with("    "))
            .filter_map(|l| l.split_whitespace().next())
            .map(str::to_string)
            .collect();
        let (here, _) = enabled(&["-Ctarget-cpu=native".to_string()])?;
        Ok(Rustc {
            cpus,
            native,
            features,
            here,
        })
    }

    fn cpu(&self, s: &str) -> std::result::Result<TargetCpu, String> {
        if s == "native" {
            return Ok(TargetCpu {
                name: self.native.clone(),
                native: true,
            });
        }
        if self.cpus.contains(s) {
            return Ok(TargetCpu {
                name: s.to_string(),
                native: false,
            });
        }
        Err(format!(
            "`{s}` is not a target CPU rustc knows (`rustc --print target-cpus` lists them)"
        ))
    }

    /// One alternative of `--target-feature`: features each after `+` or
    /// `-` (`+aes+avx2`, `+avx2-fma`), each one rustc knows; `none` for no
    /// feature flag at all.
    fn features(&self, s: &str) -> std::result::Result<Vec<String>, String> {
        if s == "none" {
            return Ok(Vec::new());
        }
        let bad = || {
            format!(
                "`{s}` is not a list of target features rustc knows, each after + or - (`rustc --print target-features` lists them)"
            )
        };
        let mut out = Vec::new();
        let mut rest = s;
        while let Some(sign) = rest.chars().next().filter(|c| *c == '+' || *c == '-') {
            let body = &rest[1..];
            // The longest known name: names hold `-` and `.` themselves.
            let name = (self.features.iter())
                .filter(|f| {
                    body.starts_with(f.as_str())
                        && matches!(body[f.len()..].chars().next(), None | Some('+' | '-'))
                })
                .max_by_key(|f| f.len())
                .ok_or_else(bad)?;
            out.push(format!("{sign}{name}"));
            rest = &body[name.len()..];
        }
        if !rest.is_empty() || out.is_empty() {
            return Err(bad());
        }
        if let Some(both) =
            (out.iter()).find(|f| f.starts_with('+') && out.contains(&format!("-{}", &f[1..])))
        {
            return Err(format!(
                "`{s}` turns {} both on and off: say which",
                &both[1..]
            ));
        }
        Ok(out)
    }

    /// Whether this CPU runs code built with `set`: every feature its
    /// flags turn on is one `native` turns on.
    /// And rustc builds for this target with it: a feature the target's
    /// ABI needs (`-sse2` on x86-64, where floats pass in SSE registers)
    /// is refused here, not by every build.
    fn runs_here(&self, set: &FlagSet) -> Result<()> {
        let flags = set.rustflags();
        if flags.is_empty() {
            return Ok(());
        }
        let (enabled, warnings) = enabled(&flags)?;
        if let Some(abi) = warnings.iter().find(|w| w.contains("the ABI")) {
            return Err(Error::usage(
                format!("{}: rustc says {abi}", set.describe()),
                "leave the features this target's ABI needs on (`rustc --print cfg` lists them)",
            ));
        }
        // An unstable feature is not in `--print cfg`'s list on a stable
        // toolchain, so whether this CPU has it could not be told.
        if let Some(unstable) = warnings.iter().find(|w| w.contains("unstable feature")) {
            return Err(Error::usage(
                format!("{}: rustc says {unstable}", set.describe()),
                "ask for features a stable rustc enables (`rustc --print cfg -Ctarget-cpu=native` lists this CPU's)",
            ));
        }
        let lacking: Vec<String> = enabled.difference(&self.here).cloned().collect();
        if lacking.is_empty() {
            return Ok(());
        }
        Err(Error::usage(
            format!(
                "this CPU lacks {}, which {} turns on: its code could be built but not timed here",
                lacking.join(", "),
                set.describe()
            ),
            format!(
                "ask for a target CPU or features this CPU has (native is {})",
                self.native
            ),
        ))
    }
}

/// The target features rustc enables with `flags`, and its warnings
/// about them (each a line, `warning: ` left out).
fn enabled(flags: &[String]) -> Result<(BTreeSet<String>, Vec<String>)> {
    let mut args = vec!["--print", "cfg"];
    args.extend(flags.iter().map(String::as_str));
    let (out, err) = print_both(&args)?;
    let features = (out.lines())
        .filter_map(|l| l.strip_prefix("target_feature=\""))
        .map(|f| f.trim_end_matches('"').to_string())
        .collect();
    let warnings = (err.lines())
        .filter_map(|l| l.strip_prefix("warning: "))
        .map(String::from)
        .collect();
    Ok((features, warnings))
}

/// What the toolchain's rustc prints for `args`.
fn print(args: &[&str]) -> Result<String> {
    Ok(print_both(args)?.0)
}

/// What the toolchain's rustc prints for `args`, and its warnings.
fn print_both(args: &[&str]) -> Result<(String, String)> {
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let out = Command::new(rustc)
        .current_dir(workspace::root())
        .args(args)
        .output()
        .map_err(|e| Error::failed(format!("running rustc: {e}")))?;
    if !out.status.success() {
        return Err(Error::failed(format!(
            "rustc {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    Ok((
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    /// No axis asked: one flag set, the profile, whose contenders keep
    /// their names.
    #[test]
    fn nothing_asked_is_the_profile_alone() {
        let sets = grid(&Asked::default()).unwrap();
        assert_eq!(sets, vec![FlagSet::profile()]);
        assert_eq!(sets[0].name(), "");
        assert_eq!(sets[0].contender("auto_x4"), "auto_x4");
        assert!(sets[0].rustflags().is_empty() && sets[0].profile_env().is_empty());
    }

    /// Every combination, opt-level outermost, each named by the axes
    /// asked, the separator between variant and set; `true` is `fat`, so
    /// asking both is one set.
    #[test]
    fn the_grid_is_every_combination_named_by_what_was_asked() {
        let (o, l) = (strings(&["3", "s"]), strings(&["false", "fat", "true"]));
        let sets = grid(&Asked {
            opt_level: Some(&o),
            lto: Some(&l),
            ..Asked::default()
        })
        .unwrap();
        let names: Vec<String> = sets.iter().map(FlagSet::name).collect();
        assert_eq!(
            names,
            ["O3.lto-false", "O3.lto-fat", "Os.lto-false", "Os.lto-fat"]
        );
        assert_eq!(sets[3].contender("auto"), "auto~Os.lto-fat");
        assert_eq!(
            sets[3].profile_env(),
            [
                ("CARGO_PROFILE_ARTIFACT_OPT_LEVEL", "s"),
                ("CARGO_PROFILE_ARTIFACT_LTO", "fat")
            ]
        );
        for s in &sets {
            let n = s.contender("never_x2");
            assert!(
                !n.contains('@') && !n.contains('/') && !n.contains(' '),
                "{n}"
            );
        }
    }

    /// `native` becomes the CPU rustc names, recorded as native; asking
    /// for that CPU too is the same set, built once.
    #[test]
    fn native_is_resolved_and_recorded() {
        let r = Rustc::ask().unwrap();
        let cpus = strings(&["native", &r.native]);
        let sets = grid(&Asked {
            target_cpu: Some(&cpus),
            ..Asked::default()
        })
        .unwrap();
        assert_eq!(sets.len(), 1, "{sets:?}");
        let cpu = sets[0].target_cpu.as_ref().unwrap();
        assert_eq!((cpu.name.as_str(), cpu.native), (r.native.as_str(), true));
        assert_eq!(sets[0].rustflags(), [format!("-Ctarget-cpu={}", r.native)]);
        assert!(sets[0].describe().contains("(native)"));
    }

    /// Features are read against rustc's list, names with `-` and `.` in
    /// them included; `none` asks for no feature flag.
    #[test]
    fn target_features_are_split_on_known_names() {
        let r = Rustc::ask().unwrap();
        assert_eq!(r.features("+sse4.1-avx2").unwrap(), ["+sse4.1", "-avx2"]);
        assert_eq!(r.features("none").unwrap(), Vec::<String>::new());
        for bad in ["aes", "+aes+", "+nosuchfeature", "+", ""] {
            assert!(r.features(bad).is_err(), "{bad}");
        }
    }

    /// A usage error, one line, for each kind of bad value; a feature
    /// this CPU lacks among them (the first of a few no CPU of these
    /// machines has all of).
    #[test]
    fn bad_values_are_usage_errors() {
        let r = Rustc::ask().unwrap();
        let lacking = [
            "avx512f",
            "avx512vp2intersect",
            "avx512fp16",
            "sha512",
            "sm4",
            "widekl",
        ]
        .into_iter()
        .find(|f| !r.here.contains(*f))
        .map(|f| format!("+{f}"))
        .expect("a feature this CPU lacks");
        let cases: [(Asked, &str); 9] = [
            (
                Asked {
                    target_feature: Some(&strings(&["+amx-tile"])),
                    ..Asked::default()
                },
                "unstable feature",
            ),
            (
                Asked {
                    target_feature: Some(&strings(&["-sse2"])),
                    ..Asked::default()
                },
                "to ensure that the ABI",
            ),
            (
                Asked {
                    target_feature: Some(&strings(&["+sse2-sse2"])),
                    ..Asked::default()
                },
                "turns sse2 both on and off",
            ),
            (
                Asked {
                    opt_level: Some(&strings(&["4"])),
                    ..Asked::default()
                },
                "not an opt-level",
            ),
            (
                Asked {
                    lto: Some(&strings(&["maybe"])),
                    ..Asked::default()
                },
                "not an lto value",
            ),
            (
                Asked {
                    target_cpu: Some(&strings(&["pentium9"])),
                    ..Asked::default()
                },
                "not a target CPU",
            ),
            (
                Asked {
                    target_feature: Some(&strings(&["+nosuchfeature"])),
                    ..Asked::default()
                },
                "not a list of target features",
            ),
            (
                Asked {
                    opt_level: Some(&strings(&[""])),
                    ..Asked::default()
                },
                "has no value",
            ),
            (
                Asked {
                    target_feature: Some(&strings(&[&lacking])),
                    ..Asked::default()
                },
                "this CPU lacks",
            ),
        ];
        for (asked, why) in cases {
            match grid(&asked) {
                Err(Error::Usage { cause, .. }) => {
                    assert!(cause.contains(why), "{cause}");
                    assert!(!cause.contains('\n'), "{cause}");
                }
                other => panic!("{why}: {other:?}"),
            }
        }
    }
}
