//! A report with fixed numbers, as analyse would make it: three variants
//! (two with the same hot-path code), a peer, a failed and an unavailable
//! variant, an A/A control, samples behind every figure.

use crate::decide::verdict::{Conclusion, Link, Outcome, Verdict};
use crate::env::workspace::{Inputs, Toolchain};
use crate::report::{
    self, Control, Counting, Entry, Operation, Quiet, Report, Run, Sample, Speed, Status,
};
use crate::select::artifact::{Artifact, Function};
use bench_harness::machine::{CpuInfo, Fact, Machine};
use bench_harness::stats::Ratio;

const HZ: f64 = 2.1e9;

/// Six rounds around `ticks` in two processes, the fourth not quiet.
fn samples(ticks: f64) -> Vec<Sample> {
    [1.0, 1.01, 0.99, 1.2, 1.005, 0.998]
        .iter()
        .enumerate()
        .map(|(r, f)| Sample {
            ticks_per_op: ticks * f,
            quiet: r != 3,
            process: r / 3,
        })
        .collect()
}

fn ratio(gain: f64) -> Ratio {
    Ratio {
        ratio: 1.0 + gain,
        low: 1.0 + gain - 0.01,
        high: 1.0 + gain + 0.01,
    }
}

/// The speed of one case at `mb` MB/s (key setup: `mb` thousand keys/s).
pub fn speed(dir: Operation, block: usize, mb: f64, gain: Option<f64>) -> Speed {
    let crypt = dir.is_crypt();
    let ops = if crypt {
        mb * 1e6 / block as f64
    } else {
        mb * 1e3
    };
    let ticks = HZ / ops;
    Speed {
        alg: "ecb(tiny)".into(),
        dir,
        key_bits: 128,
        block_bytes: if crypt { block } else { 0 },
        ticks_per_op: ticks,
        ops_per_sec: ops,
        bytes_per_sec: crypt.then_some(mb * 1e6),
        ticks_per_byte: crypt.then_some(ticks / block as f64),
        spread: 0.01,
        ratio: gain.map(ratio),
        rounds: 4,
        instructions: None,
        samples: samples(ticks),
    }
}

/// The three cases, the largest block and key setup counted as compare
/// counts its headline cases: 30 instructions a byte, 900 a key.
fn speeds(mb_s: [f64; 2], gain: Option<f64>) -> Vec<Speed> {
    let counted = |mut s: Speed, n: f64| {
        s.instructions = Some(n);
        s
    };
    vec![
        speed(Operation::Encrypt, 16, mb_s[0], gain),
        counted(
            speed(Operation::Encrypt, 8192, mb_s[1], gain),
            8192.0 * 30.0,
        ),
        counted(speed(Operation::Setkey, 0, mb_s[0] * 10.0, gain), 900.0),
    ]
}

pub fn artifact(name: &str, text: u64) -> Artifact {
    Artifact {
        path: format!("target/inlinelab/tiny/{name}.so"),
        fingerprint: "1000:0123456789abcdef".into(),
        so_bytes: 20_000 + text,
        text_bytes: text,
        rodata_bytes: 4_096,
        data_bytes: 16,
        footprint_bytes: text + 4_096 + 16,
        hot_path_bytes: Some(text / 2),
        key_schedule_bytes: Some(text / 4),
        hot_path_code: Some("00112233445566778".into()),
        hot_path: vec![Function {
            name: "<Tiny as Trait>::f".into(),
            bytes: 123,
        }],
        rlib_bytes: 100_000,
        functions: vec![
            Function {
                name: "<Tiny as Trait>::f".into(),
                bytes: 123,
            },
            Function {
                name: "key_schedule".into(),
                bytes: 45,
            },
        ],
        rounds_out_of_line: if name == "never" {
            vec!["f".into()]
        } else {
            Vec::new()
        },
        inlining: Vec::new(),
        inlining_shared: None,
        library: None,
    }
}

pub fn entry(name: &str, text: u64, mb_s: [f64; 2], gain: Option<f64>) -> Entry {
    Entry {
        name: name.into(),
        label: format!("tiny-{name}"),
        status: Status::Measured,
        reason: None,
        same_code_as: None,
        artifact: Some(artifact(name, text)),
        measured_fingerprint: Some("1000:0123456789abcdef".into()),
        speed: speeds(mb_s, gain),
        overall: gain.map(ratio),
        uncounted: None,
        flags: None,
        secrets: None,
        older_cpu: None,
        not_offered: None,
    }
}

fn not_measured(name: &str, status: Status, why: &str) -> Entry {
    let mut e = entry(name, 0, [0.0, 0.0], None);
    e.status = status;
    e.reason = Some(why.into());
    e.artifact = None;
    e.measured_fingerprint = None;
    e.speed.clear();
    e
}

pub fn machine() -> Machine {
    Machine {
        cpu_info: CpuInfo {
            vendor: Fact::Known("GenuineIntel".into()),
            logical_cpus: Fact::Known(4),
            model_name: Fact::Known("Example CPU".into()),
            family: Fact::Known(6),
            model: Fact::Known(85),
            stepping: Fact::Known(7),
            microcode: Fact::Known("0x5003604".into()),
            virtualized: Fact::Known(true),
        },
        kernel: Fact::Known("6.1.0-example".into()),
        cpu: Fact::Known(1),
        smt_siblings: Fact::Known(vec![1, 3]),
        boost: Fact::Unknown,
        governor: Fact::Known("performance".into()),
        counter: "tsc".into(),
        counter_hz: HZ,
        core_hz: Fact::Known(3.0e9),
    }
}

fn run() -> Run {
    Run {
        quick: false,
        keys: crate::select::cases::Keys::All,
        rounds: 5,
        batch_seconds: 0.004,
        reference: "auto".into(),
        threshold: 0.02,
        quiet: Quiet {
            criterion: bench_harness::interleave::criterion(),
            threshold: bench_harness::interleave::QUIET,
        },
        quiet_share: 0.8,
        processes: 2,
        looks: 1,
        budget_seconds: Some(150.0),
        size_cost: 0.05,
        spent: Vec::new(),
        between_runs: None,
        counting: Counting::Callgrind {
            valgrind: "valgrind-3.19.0".into(),
        },
        notes: vec!["an example note".into()],
    }
}

/// The report: `never` the smallest, `hint` the same code as `auto`.
pub fn report() -> Report {
    let mut hint = entry("hint", 1_250, [60.5, 105.5], Some(0.005));
    hint.same_code_as = Some("auto".into());
    Report {
        schema_version: report::SCHEMA_VERSION,
        generated_by: "cargo xtask compare tiny --quick".into(),
        cipher: "tiny".into(),
        machine: Some(machine()),
        machine_label: None,
        toolchain: Toolchain {
            rustc: "rustc 1.95.0".into(),
            target: "x86_64-unknown-linux-gnu".into(),
            profile: "artifact".into(),
        },
        date: "2026-01-01".into(),
        commit: "0123456789ab".into(),
        inputs: Inputs {
            hash: "fnv1a64:0123456789abcdef".into(),
            dirty: false,
        },
        run: run(),
        control: Some(Control {
            of: "auto".into(),
            ratio: 1.002,
            ci_low: 0.993,
            ci_high: 1.011,
            speed: speeds([60.1, 105.2], Some(0.002)),
        }),
        variants: vec![
            entry("never", 1_000, [50.0, 100.0], Some(-0.05)),
            entry("auto", 1_200, [60.0, 105.0], None),
            hint,
            not_measured("always", Status::Failed, "build failed: error[E0000]: example"),
            not_measured("sse", Status::Unavailable, "load: unavailable on this CPU: needs SSE4.2"),
        ],
        peers: vec![entry("rustcrypto", 1_500, [55.0, 110.0], Some(0.04))],
        verdict: Verdict {
            status: Conclusion::Decided,
            pick: Some("auto".into()),
            reasons: Vec::new(),
            leaning: Vec::new(),
            rerun: None,
            bar: 1.02,
            pareto: vec!["never".into(), "auto".into(), "rustcrypto".into()],
            steps: vec![
                "`auto` = `hint`: the same machine code on the hot path, so one candidate, `auto`: the member with the least annotation (no attribute < `#[inline]` < `never` < `always`).".into(),
                "`never` is the smallest (5112 bytes of footprint: .text + .rodata + .data).".into(),
                "`auto` is +3.9% larger and +5.3% [+4.2%, +6.3%] against `never`: its whole interval clears +2.0%, the larger of the 2% threshold and the A/A control's deviation (±1.1%), so it is worth its size.".into(),
            ],
            chain: vec![
                Link {
                    candidate: "never".into(),
                    size: 5112,
                    against: None,
                    size_change: 0.0,
                    gain: None,
                    bar: 0.0,
                    outcome: Outcome::Start,
                },
                Link {
                    candidate: "auto".into(),
                    size: 5312,
                    against: Some("never".into()),
                    size_change: 0.039,
                    gain: Some(Ratio {
                        ratio: 1.053,
                        low: 1.042,
                        high: 1.063,
                    }),
                    bar: 1.0228,
                    outcome: Outcome::Wins,
                },
            ],
        },
        annotations: None,
        flag_sets: Vec::new(),
        suggested: None,
        raw: "testing speed of ecb(tiny) (tiny-never) encryption\ntest 0 (128 bit key, 16 byte blocks): 1 operation in 800 cycles (16 bytes)\n".into(),
    }
}

/// The same run, found too noisy to decide.
pub fn inconclusive() -> Report {
    let mut r = report();
    r.run.counting = Counting::NoValgrind;
    for s in r.entries_mut().flat_map(|e| &mut e.speed) {
        s.instructions = None;
    }
    r.control = Some(Control {
        of: "auto".into(),
        ratio: 1.03,
        ci_low: 1.01,
        ci_high: 1.05,
        speed: speeds([61.8, 108.1], Some(0.03)),
    });
    r.verdict.status = Conclusion::Inconclusive;
    r.verdict.pick = None;
    r.verdict.bar = 1.05;
    r.verdict.reasons = vec!["the A/A control (`auto` against a copy of itself) measured +3.0% [+1.0%, +5.0%], which does not lie within ±2%: identical code differed by more than the threshold".into()];
    r.verdict.rerun = Some("cargo xtask compare tiny".into());
    r
}

/// A row of a crate's attribute table: function `f` at `src/lib.rs:1`,
/// its `#[inline]` measured as `variant`, of the dependency `krate` (or
/// of the crate measured).
pub fn annotated(
    number: usize,
    variant: &str,
    krate: Option<&str>,
) -> report::annotations::Annotated {
    report::annotations::Annotated {
        number,
        function: "f".into(),
        path: "f".into(),
        location: "src/lib.rs:1".into(),
        attr: "inline".into(),
        variant: variant.into(),
        krate: krate.map(str::to_string),
    }
}
