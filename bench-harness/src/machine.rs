//! The facts about a machine that a reviewer asks for before trusting a
//! timing: which CPU (model, family/model/stepping, microcode), which kernel,
//! whether it runs under a hypervisor, which logical CPUs share the core the
//! process ran on, whether boost and which frequency governor were on, and
//! the cycle counter's rate with the estimated core clock.
//!
//! Everything is read from `/proc` and `/sys`; whatever cannot be read (not
//! Linux, a container that hides `/sys`, a virtual CPU without cpufreq) is
//! [`Fact::Unknown`], written `"unknown"` in JSON, never a guess and never a
//! panic. Under a hypervisor the topology is the one the hypervisor shows:
//! the host's SMT siblings may be busy while the guest's list says none.

use crate::clock::Counter;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::path::Path;

/// A fact that was read, or `Unknown` where it could not be.
#[derive(Clone, Debug, PartialEq)]
pub enum Fact<T> {
    Known(T),
    Unknown,
}

impl<T> Fact<T> {
    pub fn known(&self) -> Option<&T> {
        match self {
            Fact::Known(v) => Some(v),
            Fact::Unknown => None,
        }
    }
}

impl<T> From<Option<T>> for Fact<T> {
    fn from(v: Option<T>) -> Self {
        v.map_or(Fact::Unknown, Fact::Known)
    }
}

/// The value, or `"unknown"`.
impl<T: Serialize> Serialize for Fact<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Fact::Known(v) => v.serialize(s),
            Fact::Unknown => s.serialize_str("unknown"),
        }
    }
}

/// The string `"unknown"` and nothing else.
struct UnknownWord;

impl<'de> Deserialize<'de> for UnknownWord {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        if s == "unknown" {
            Ok(UnknownWord)
        } else {
            Err(serde::de::Error::custom("not `unknown`"))
        }
    }
}

#[derive(Deserialize)]
#[serde(untagged)]
enum FactRepr<T> {
    Unknown(UnknownWord),
    Known(T),
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Fact<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(match FactRepr::deserialize(d)? {
            FactRepr::Unknown(_) => Fact::Unknown,
            FactRepr::Known(v) => Fact::Known(v),
        })
    }
}

impl<T: fmt::Display> fmt::Display for Fact<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Fact::Known(v) => v.fmt(f),
            Fact::Unknown => f.write_str("unknown"),
        }
    }
}

impl<T> Default for Fact<T> {
    /// Unknown: what a report written before a fact was read holds.
    fn default() -> Self {
        Fact::Unknown
    }
}

/// What `/proc/cpuinfo` says about one logical CPU.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CpuInfo {
    /// `vendor_id`: `GenuineIntel`, `AuthenticAMD`.
    #[serde(default)]
    pub vendor: Fact<String>,
    /// The logical CPUs the machine shows (`processor` blocks).
    #[serde(default)]
    pub logical_cpus: Fact<usize>,
    /// `model name`: `Intel(R) Xeon(R) Processor`.
    pub model_name: Fact<String>,
    /// `cpu family`, `model`, `stepping` (decimal, as cpuinfo prints them).
    pub family: Fact<u32>,
    pub model: Fact<u32>,
    pub stepping: Fact<u32>,
    /// `microcode`: `0x2b000590`.
    pub microcode: Fact<String>,
    /// Whether `flags` has `hypervisor`; unknown without a `flags` line.
    pub virtualized: Fact<bool>,
}

/// The machine facts (see the module doc).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Machine {
    #[serde(flatten)]
    pub cpu_info: CpuInfo,
    /// The running kernel's release (`uname -r`).
    pub kernel: Fact<String>,
    /// The logical CPU the process ran on when the facts were read.
    pub cpu: Fact<usize>,
    /// The logical CPUs sharing that CPU's core, itself included
    /// (`thread_siblings_list`): one entry means no SMT sibling.
    pub smt_siblings: Fact<Vec<usize>>,
    /// Whether frequency boost (turbo) is enabled: `cpufreq/boost`, else the
    /// inverse of `intel_pstate/no_turbo`.
    pub boost: Fact<bool>,
    /// That CPU's cpufreq governor (`scaling_governor`).
    pub governor: Fact<String>,
    /// `tsc` or `ns`: what the cycle counter is.
    pub counter: String,
    /// The counter's measured rate, ticks per second.
    pub counter_hz: f64,
    /// The core clock estimated from the one-cycle loop, Hz.
    pub core_hz: Fact<f64>,
}

impl Machine {
    /// Reads the facts of this machine; `counter` gives the clock rates.
    pub fn read(counter: &Counter) -> Machine {
        Machine::read_from(Path::new("/"), counter)
    }

    /// Reads the facts from the `proc` and `sys` trees under `root` (`/` for
    /// this machine; a directory of fixtures in tests).
    pub fn read_from(root: &Path, counter: &Counter) -> Machine {
        let read = |p: &str| {
            std::fs::read_to_string(root.join(p))
                .ok()
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
        };
        let cpu = read("proc/self/stat").and_then(|s| parse_stat_cpu(&s));
        let cpu_info = match std::fs::read_to_string(root.join("proc/cpuinfo")) {
            Ok(text) => parse_cpuinfo(&text, cpu),
            Err(_) => parse_cpuinfo("", None),
        };
        let cpu_dir = format!("sys/devices/system/cpu/cpu{}", cpu.unwrap_or(0));
        let siblings = cpu.and_then(|_| {
            read(&format!("{cpu_dir}/topology/thread_siblings_list"))
                .and_then(|s| parse_cpu_list(&s))
        });
        let boost = read("sys/devices/system/cpu/cpufreq/boost")
            .and_then(|s| parse_flag(&s))
            .or_else(|| {
                read("sys/devices/system/cpu/intel_pstate/no_turbo")
                    .and_then(|s| parse_flag(&s))
                    .map(|no_turbo| !no_turbo)
            });
        let governor = cpu.and_then(|_| read(&format!("{cpu_dir}/cpufreq/scaling_governor")));
        Machine {
            cpu_info,
            kernel: read("proc/sys/kernel/osrelease").into(),
            cpu: cpu.into(),
            smt_siblings: siblings.into(),
            boost: boost.into(),
            governor: governor.into(),
            counter: counter.kind.clone(),
            counter_hz: counter.hz,
            core_hz: counter.core_hz.into(),
        }
    }

    /// One line: `machine: Intel(R) Xeon(R) Processor (family 6, model 207, ...`.
    pub fn describe(&self) -> String {
        let c = &self.cpu_info;
        let siblings = match &self.smt_siblings {
            Fact::Known(v) => {
                let list: Vec<String> = v.iter().map(usize::to_string).collect();
                list.join(",")
            }
            Fact::Unknown => "unknown".into(),
        };
        let core = match self.core_hz {
            Fact::Known(hz) => format!("about {:.2} GHz", hz / 1e9),
            Fact::Unknown => "unknown".into(),
        };
        let yes_no = |f: &Fact<bool>| match f {
            Fact::Known(true) => "yes",
            Fact::Known(false) => "no",
            Fact::Unknown => "unknown",
        };
        format!(
            "machine: {} (family {}, model {}, stepping {}, microcode {}); kernel {}; virtualized: {}; cpu {}, SMT siblings {siblings}; boost: {}; governor {}; counter {} at {:.3} GHz, core clock {core}",
            c.model_name,
            c.family,
            c.model,
            c.stepping,
            c.microcode,
            self.kernel,
            yes_no(&c.virtualized),
            self.cpu,
            yes_no(&self.boost),
            self.governor,
            self.counter,
            self.counter_hz / 1e9
        )
    }
}

impl CpuInfo {
    /// The machine's label: what identifies a CPU for a timing, read at run
    /// time, `VENDOR-fFAMILYmMODELsSTEPPING-MICROCODE-Ncpu[-vm]` (for example
    /// `AuthenticAMD-f25m1s1-0x1000065-2cpu-vm`), `unknown` for a fact that
    /// could not be read. Two runs with one label are one machine: a cloud
    /// runner label is a pool of CPUs, this is the CPU the run got. Only
    /// `[A-Za-z0-9._-]`, so it names a directory as it is.
    pub fn label(&self) -> String {
        let clean = |s: String| -> String {
            s.chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || c == '.' {
                        c
                    } else {
                        '_'
                    }
                })
                .collect()
        };
        let vm = match self.virtualized {
            Fact::Known(true) => "-vm",
            Fact::Known(false) => "",
            Fact::Unknown => "-vm_unknown",
        };
        format!(
            "{}-f{}m{}s{}-{}-{}cpu{vm}",
            clean(self.vendor.to_string()),
            self.family,
            self.model,
            self.stepping,
            clean(self.microcode.to_string()),
            self.logical_cpus,
        )
    }
}

/// The block of `/proc/cpuinfo` for logical CPU `cpu` (the first block when
/// `cpu` is `None` or not listed). Fields missing from it are unknown.
pub fn parse_cpuinfo(text: &str, cpu: Option<usize>) -> CpuInfo {
    let blocks: Vec<Vec<(&str, &str)>> = text
        .split("\n\n")
        .map(|block| {
            block
                .lines()
                .filter_map(|line| {
                    let (k, v) = line.split_once(':')?;
                    Some((k.trim(), v.trim()))
                })
                .collect::<Vec<_>>()
        })
        .filter(|b| !b.is_empty())
        .collect();
    let get = |b: &[(&str, &str)], key: &str| {
        b.iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| v.to_string())
    };
    let block = cpu
        .and_then(|n| {
            blocks
                .iter()
                .find(|b| get(b, "processor").and_then(|p| p.parse().ok()) == Some(n))
        })
        .or(blocks.first())
        .map(Vec::as_slice)
        .unwrap_or(&[]);
    let number = |key: &str| get(block, key).and_then(|v| v.parse::<u32>().ok());
    CpuInfo {
        vendor: get(block, "vendor_id").filter(|s| !s.is_empty()).into(),
        logical_cpus: Some(
            blocks
                .iter()
                .filter(|b| get(b, "processor").is_some())
                .count(),
        )
        .filter(|&n| n > 0)
        .into(),
        model_name: get(block, "model name").filter(|s| !s.is_empty()).into(),
        family: number("cpu family").into(),
        model: number("model").into(),
        stepping: number("stepping").into(),
        microcode: get(block, "microcode").filter(|s| !s.is_empty()).into(),
        virtualized: get(block, "flags")
            .map(|f| f.split_whitespace().any(|flag| flag == "hypervisor"))
            .into(),
    }
}

/// The CPU a task last ran on: field 39 (`processor`) of `/proc/<pid>/stat`.
/// The command name (field 2) may hold spaces and parentheses, so fields are
/// counted after its last `)`.
pub fn parse_stat_cpu(stat: &str) -> Option<usize> {
    let (_, rest) = stat.rsplit_once(')')?;
    // `rest` starts at field 3.
    rest.split_whitespace().nth(39 - 3)?.parse().ok()
}

/// A kernel CPU list (`0-3,8,10-11`); `None` if malformed or implausibly
/// long (more than 65,536 CPUs).
pub fn parse_cpu_list(s: &str) -> Option<Vec<usize>> {
    const MAX: usize = 1 << 16;
    let mut out = Vec::new();
    for part in s.trim().split(',') {
        let (lo, hi) = match part.split_once('-') {
            Some((a, b)) => (a.trim().parse().ok()?, b.trim().parse().ok()?),
            None => {
                let n: usize = part.trim().parse().ok()?;
                (n, n)
            }
        };
        if lo > hi || hi - lo >= MAX || out.len() + (hi - lo) >= MAX {
            return None;
        }
        out.extend(lo..=hi);
    }
    Some(out)
}

/// `1` or `0`.
fn parse_flag(s: &str) -> Option<bool> {
    match s.trim() {
        "1" => Some(true),
        "0" => Some(false),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CPUINFO: &str = "processor\t: 0
vendor_id\t: GenuineIntel
cpu family\t: 6
model\t\t: 85
model name\t: Intel(R) Xeon(R) Gold 6248 CPU @ 2.50GHz
stepping\t: 7
microcode\t: 0x5003604
cpu MHz\t\t: 2500.000
flags\t\t: fpu vme de pse tsc msr constant_tsc nonstop_tsc sse4_2 avx2
bugs\t\t: spectre_v1

processor\t: 1
vendor_id\t: GenuineIntel
cpu family\t: 6
model\t\t: 85
model name\t: Intel(R) Xeon(R) Gold 6248 CPU @ 2.50GHz
stepping\t: 7
microcode\t: 0x5003605
flags\t\t: fpu vme de pse tsc msr hypervisor sse4_2 avx2

";

    #[test]
    fn cpuinfo_fields_of_the_running_cpu() {
        let c = parse_cpuinfo(CPUINFO, Some(1));
        assert_eq!(
            c.model_name,
            Fact::Known("Intel(R) Xeon(R) Gold 6248 CPU @ 2.50GHz".to_string())
        );
        assert_eq!(c.family, Fact::Known(6));
        assert_eq!(c.model, Fact::Known(85));
        assert_eq!(c.stepping, Fact::Known(7));
        assert_eq!(c.microcode, Fact::Known("0x5003605".to_string()));
        assert_eq!(c.virtualized, Fact::Known(true));
        assert_eq!(c.vendor, Fact::Known("GenuineIntel".to_string()));
        assert_eq!(c.logical_cpus, Fact::Known(2));
        assert_eq!(c.label(), "GenuineIntel-f6m85s7-0x5003605-2cpu-vm");
        // CPU 0, or an unknown CPU: the first block.
        for cpu in [Some(0), None, Some(7)] {
            let c = parse_cpuinfo(CPUINFO, cpu);
            assert_eq!(c.microcode, Fact::Known("0x5003604".to_string()));
            assert_eq!(c.virtualized, Fact::Known(false));
        }
    }

    #[test]
    fn missing_cpuinfo_fields_are_unknown() {
        // An arm64 cpuinfo: none of the x86 fields.
        let arm =
            "processor\t: 0\nBogoMIPS\t: 50.00\nFeatures\t: fp asimd\nCPU implementer\t: 0x41\n";
        for text in [
            arm,
            "",
            "\n\n\n",
            "garbage without colons",
            "model : not a number",
        ] {
            let c = parse_cpuinfo(text, Some(0));
            assert_eq!(c.model_name, Fact::Unknown, "{text:?}");
            // Unknown facts are said in the label, which stays a plain name.
            let label = c.label();
            assert!(
                label.starts_with("unknown-funknownmunknownsunknown-unknown-"),
                "{label}"
            );
            assert!(
                label
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "._-".contains(c))
            );
            assert_eq!(c.family, Fact::Unknown, "{text:?}");
            assert_eq!(c.model, Fact::Unknown, "{text:?}");
            assert_eq!(c.stepping, Fact::Unknown, "{text:?}");
            assert_eq!(c.microcode, Fact::Unknown, "{text:?}");
            assert_eq!(c.virtualized, Fact::Unknown, "{text:?}");
        }
    }

    #[test]
    fn stat_cpu_and_cpu_lists() {
        // Field 39 is 5; the command name has spaces and a parenthesis.
        let mut fields: Vec<String> = (3..=52).map(|i| format!("{}", i * 10)).collect();
        fields[39 - 3] = "5".into();
        let stat = format!("1234 (tc (x) y) {}", fields.join(" "));
        assert_eq!(parse_stat_cpu(&stat), Some(5));
        assert_eq!(parse_stat_cpu("1234 (short) R 1 2"), None);
        assert_eq!(parse_stat_cpu("no parenthesis"), None);
        assert_eq!(parse_cpu_list("0"), Some(vec![0]));
        assert_eq!(parse_cpu_list("0,32"), Some(vec![0, 32]));
        assert_eq!(parse_cpu_list("0-1,4,6-7\n"), Some(vec![0, 1, 4, 6, 7]));
        for bad in ["", "a", "3-1", "0-99999999999", "1,,2", "-1"] {
            assert_eq!(parse_cpu_list(bad), None, "{bad:?}");
        }
    }

    fn counter() -> Counter {
        Counter {
            kind: "tsc".into(),
            hz: 2.1e9,
            read_overhead: 20,
            core_hz: None,
            reference_best: 1.4,
        }
    }

    /// A tree with nothing in it: every fact unknown, no panic.
    #[test]
    fn an_empty_tree_is_all_unknown() {
        let dir = tempfile::tempdir().unwrap();
        let m = Machine::read_from(dir.path(), &counter());
        assert_eq!(m.cpu_info, parse_cpuinfo("", None));
        assert_eq!(m.kernel, Fact::Unknown);
        assert_eq!(m.cpu, Fact::Unknown);
        assert_eq!(m.smt_siblings, Fact::Unknown);
        assert_eq!(m.boost, Fact::Unknown);
        assert_eq!(m.governor, Fact::Unknown);
        assert_eq!(m.core_hz, Fact::Unknown);
        assert_eq!(m.counter_hz, 2.1e9);
        assert!(
            m.describe()
                .contains("kernel unknown; virtualized: unknown")
        );
    }

    /// A fixture tree: each fact from its file.
    #[test]
    fn a_fixture_tree() {
        let dir_tmp = tempfile::tempdir().unwrap();
        let dir = dir_tmp.path();
        let write = |p: &str, s: &str| {
            let path = dir.join(p);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, s).unwrap();
        };
        let mut fields: Vec<String> = (3..=52).map(|i| i.to_string()).collect();
        fields[39 - 3] = "1".into();
        write(
            "proc/self/stat",
            &format!("99 (tcrypt) {}\n", fields.join(" ")),
        );
        write("proc/cpuinfo", CPUINFO);
        write("proc/sys/kernel/osrelease", "6.8.0-45-generic\n");
        write(
            "sys/devices/system/cpu/cpu1/topology/thread_siblings_list",
            "1,41\n",
        );
        write(
            "sys/devices/system/cpu/cpu1/cpufreq/scaling_governor",
            "performance\n",
        );
        write("sys/devices/system/cpu/intel_pstate/no_turbo", "1\n");
        let m = Machine::read_from(dir, &counter());
        assert_eq!(m.cpu, Fact::Known(1));
        assert_eq!(m.cpu_info.microcode, Fact::Known("0x5003605".into()));
        assert_eq!(m.kernel, Fact::Known("6.8.0-45-generic".into()));
        assert_eq!(m.smt_siblings, Fact::Known(vec![1, 41]));
        assert_eq!(m.governor, Fact::Known("performance".into()));
        assert_eq!(m.boost, Fact::Known(false));
        let line = m.describe();
        assert!(line.contains("family 6, model 85, stepping 7"), "{line}");
        assert!(
            line.contains("cpu 1, SMT siblings 1,41; boost: no"),
            "{line}"
        );
    }

    #[test]
    fn facts_round_trip_through_json() {
        let mut m = Machine::read(&counter());
        m.governor = Fact::Unknown;
        m.smt_siblings = Fact::Known(vec![0, 32]);
        let json = serde_json::to_value(&m).unwrap();
        assert_eq!(json["governor"], "unknown");
        assert_eq!(json["smt_siblings"], serde_json::json!([0, 32]));
        assert_eq!(json["counter"], "tsc");
        let back: Machine = serde_json::from_value(json).unwrap();
        assert_eq!(back, m);
        // `unknown` reads back as unknown even for a string fact.
        let f: Fact<String> = serde_json::from_str("\"unknown\"").unwrap();
        assert_eq!(f, Fact::Unknown);
        let f: Fact<u32> = serde_json::from_str("6").unwrap();
        assert_eq!(f, Fact::Known(6));
    }
}
