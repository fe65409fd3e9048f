//! The `--comment` of `gate --crate`: what moved on the hot path first (for
//! block-ciphers#598's shape, its first line names the functions that
//! stopped being inlined, with the change of instructions per case), then
//! the gate's summary (`gate/summary.rs`, the rows and thresholds every gate
//! has), what moved in both directions, and what callgrind could count.

use crate::cmd::gate::krate::moved::{self, CaseCount, Moved};
use crate::cmd::gate::rows::Row;
use crate::decide::verdict::pct;
use crate::env::escape::{md_code, md_text};
use crate::render::markdown::why;
use crate::report::ran::Ran;
use crate::select::artifact::Artifact;
use bench_harness::stats::Ratio;

/// The extensions valgrind's CPU lacks among those crates choose backends
/// by: a crate that detects them at run time is counted on another
/// backend than the one it runs on a machine that has them.
const UNSEEN: [&str; 3] = ["avx512f", "vaes", "vpclmulqdq"];

/// What the comment is made of.
pub struct Parts<'a> {
    /// `--against`, as given.
    pub rev: &'a str,
    /// What moved, when both sides were built.
    pub moved: Option<&'a Moved>,
    /// Instructions per operation of each case at both sides (empty when a
    /// side was not counted).
    pub counts: &'a [CaseCount],
    /// The gate's summary (`summary::render`).
    pub summary: &'a str,
    pub rows: &'a [Row],
    /// The crate's modules the head's hot path reaches.
    pub backends: &'a [String],
    /// Which backend the head ran (sampled) and which callgrind counted,
    /// per mode family; `None` when head was not built.
    pub ran: Option<&'a Ran>,
    /// This machine's extensions among those crates choose backends by.
    pub cpu: &'a [String],
    /// Both sides' artifacts, when both were built.
    pub artifacts: Option<(&'a Artifact, &'a Artifact)>,
    /// Head's wall-clock speed over the base's, timed in the same run
    /// (`None` with `--no-time`).
    pub wall: Option<Ratio>,
}

/// The comment's markdown.
pub fn render(p: &Parts) -> String {
    let mut md = String::new();
    if let Some(line) = p.moved.and_then(|m| moved::first_line(m, p.rev, p.counts)) {
        md.push_str(&line);
        md.push_str("\n\n");
    }
    md.push_str(p.summary);
    if let Some((base, head)) = p.artifacts {
        md.push_str(&sizes(base, head));
        md.push_str("\n\n");
        md.push_str(&inlining(base, head));
    }
    if let Some(line) = improved(p.rows) {
        md.push_str(&line);
        md.push_str("\n\n");
    }
    if let Some(section) = p.moved.and_then(|m| moved::section(m, p.rev)) {
        md.push_str(&section);
    }
    md.push_str(&counted(p.ran, p.backends, p.cpu, p.wall.as_ref()));
    md
}

/// The footprint, hot path and key schedule, base to head (said, not
/// judged: a hot path shrinks when a function leaves it for a call).
fn sizes(base: &Artifact, head: &Artifact) -> String {
    let pair = |what: &str, a: Option<u64>, b: Option<u64>| match (a, b) {
        (Some(a), Some(b)) if a > 0 => Some(format!(
            "{what} {a} to {b} bytes ({:+.1}%)",
            (b as f64 / a as f64 - 1.0) * 100.0
        )),
        _ => None,
    };
    let parts: Vec<String> = [
        pair(
            "footprint",
            Some(base.footprint_bytes),
            Some(head.footprint_bytes),
        ),
        pair("hot path", base.hot_path_bytes, head.hot_path_bytes),
        pair(
            "key schedule",
            base.key_schedule_bytes,
            head.key_schedule_bytes,
        ),
    ]
    .into_iter()
    .flatten()
    .collect();
    format!("Sizes, base to head: {}.", parts.join(", "))
}

/// Every function of the crate that LLVM stopped or started inlining
/// into a caller, base to head, with its reason at head (from each side's
/// `-Cremark=inline`, the builds measured), whatever the thresholds
/// decided; said when nothing changed, left out when a side has no
/// remarks.
fn inlining(base: &Artifact, head: &Artifact) -> String {
    let Some(lines) = why::changed(&base.inlining, &head.inlining) else {
        return String::new();
    };
    let mut md = String::from("### What LLVM inlined differently\n\n");
    if lines.is_empty() {
        md.push_str("At every call site both sides' builds decided (LLVM's inline remarks, `-Cremark=inline`, from the builds measured), head inlines what base inlined and leaves a call where base left one.\n\n");
        return md;
    }
    md.push_str("From LLVM's inline remarks (`-Cremark=inline`) of the builds measured, base to head, whatever the thresholds above decided:\n\n");
    for line in lines {
        md.push_str(&format!("- {line}\n"));
    }
    md.push('\n');
    md
}

/// How many figures shrank (improvements), and the most; `None` when none
/// did.
fn improved(rows: &[Row]) -> Option<String> {
    let shrank: Vec<&Row> = rows.iter().filter(|r| r.growth < 0.0).collect();
    let most = shrank.iter().min_by(|a, b| a.growth.total_cmp(&b.growth))?;
    Some(format!(
        "Improved: {} figure(s) shrank, the most {:+.2}% ({}).",
        shrank.len(),
        most.growth * 100.0,
        most.metric
    ))
}

/// What callgrind counted: which backend the head ran here and which one
/// callgrind counted, per mode family (`ran`; else the crate's modules the
/// hot path reaches, a crate that picks its backend at run time reaching
/// each through its dispatch), whether this machine has what valgrind's CPU
/// lacks, and the wall clock, which times the backend this CPU gets.
fn counted(ran: Option<&Ran>, modules: &[String], cpu: &[String], wall: Option<&Ratio>) -> String {
    let mut md = String::from("### What callgrind counted\n\n");
    md.push_str(
        "Instructions are counted under valgrind, whose CPU has no AVX-512 and no VAES: a crate that picks its backend at run time is counted on the one it picks for that CPU.",
    );
    match ran {
        Some(ran) => {
            md.push_str(" Which backend the head ran, in the largest case of each mode family: the crate's module with the most instruction-pointer samples on this CPU, and the one with the most of callgrind's instructions:\n\n");
            for line in ran.sentences(&|s: &str| md_code(s), &|s: &str| md_text(s)) {
                md.push_str(&format!("- {line}\n"));
            }
            md.push('\n');
        }
        None if !modules.is_empty() => {
            let list: Vec<String> = modules.iter().map(|b| md_code(b)).collect();
            md.push_str(&format!(
                " The head's hot path reaches these modules of the crate: {}.",
                list.join(", ")
            ));
        }
        None => {}
    }
    let here: Vec<&String> = cpu
        .iter()
        .filter(|f| UNSEEN.contains(&f.as_str()))
        .collect();
    let mut after = vec![if here.is_empty() {
        "This machine has none of those extensions either.".to_string()
    } else {
        let list: Vec<String> = here.iter().map(|f| md_text(f)).collect();
        format!(
            "This machine has {}: where the crate picks a backend by them, the wall clock times another backend than the one counted.",
            list.join(", ")
        )
    }];
    if let Some(w) = wall {
        after.push(format!(
            "Wall clock on this machine (advisory), head's speed over the base's with its 95% interval: {}.",
            md_text(&pct(w))
        ));
    }
    // After the list of families, a paragraph of their own.
    if !md.ends_with('\n') {
        md.push(' ');
    }
    md.push_str(&after.join(" "));
    md.push('\n');
    md
}

#[cfg(test)]
mod tests {
    use crate::select::artifact::{Decision, Inlining};

    /// A function that became a call is named with its callers and LLVM's
    /// reason, one newly inlined too; unchanged decisions are not listed,
    /// and a side without remarks says nothing.
    #[test]
    fn a_function_that_became_a_call_is_named_with_why() {
        let call = |callee: &str, caller: &str, decision| Inlining {
            callee: callee.into(),
            caller: caller.into(),
            decision,
        };
        let mut base = crate::report::fixture::report().variants[0]
            .artifact
            .clone()
            .expect("the fixture's first variant has an artifact");
        let mut head = base.clone();
        assert_eq!(super::inlining(&base, &head), "");
        base.inlining = vec![
            call("encrypt_block", "ecb_encrypt", Decision::Always),
            call("f_func", "g", Decision::Always),
            call("round", "encrypt_block", Decision::Unavailable),
        ];
        head.inlining = vec![
            call(
                "encrypt_block",
                "ecb_encrypt",
                Decision::TooCostly {
                    cost: 5315,
                    threshold: 487,
                },
            ),
            call("f_func", "g", Decision::Always),
            call(
                "round",
                "encrypt_block",
                Decision::Cheap {
                    cost: 40,
                    threshold: 375,
                },
            ),
        ];
        let md = super::inlining(&base, &head);
        assert!(
            md.contains("- `encrypt_block` became a call in 1 caller(s) (`ecb_encrypt`): a call ×1: too costly (cost 5315 > 487).\n"),
            "{md}"
        );
        assert!(
            md.contains("- `round` is now inlined into 1 caller(s) (`encrypt_block`): inlined ×1 (cost 40 < 375).\n"),
            "{md}"
        );
        assert!(!md.contains("f_func"), "{md}");
        let same = super::inlining(&base, &base);
        assert!(same.contains("head inlines what base inlined"), "{same}");
    }

    /// Sizes are said base to head, each with its change; one the sizer
    /// could not read is left out.
    #[test]
    fn sizes_base_to_head() {
        let mut base = crate::report::fixture::report().variants[0]
            .artifact
            .clone()
            .expect("the fixture's first variant has an artifact");
        base.footprint_bytes = 1000;
        base.hot_path_bytes = Some(400);
        base.key_schedule_bytes = None;
        let mut head = base.clone();
        head.footprint_bytes = 1100;
        head.hot_path_bytes = Some(300);
        assert_eq!(
            super::sizes(&base, &head),
            "Sizes, base to head: footprint 1000 to 1100 bytes (+10.0%), hot path 400 to 300 bytes (-25.0%)."
        );
    }

    /// With the backends observed, each family's sentence is a line of its
    /// own, instead of the modules the hot path reaches.
    #[test]
    fn the_backend_ran_and_counted_per_family() {
        use crate::report::ran::{FamilyRan, ModuleCount, Observed, Ran};
        use crate::report::{Family, Operation};
        let family = |module: &str| FamilyRan {
            family: Family::Parallel,
            alg: "ecb(aes)".into(),
            dir: Operation::Encrypt,
            key_bits: 128,
            block_bytes: 8192,
            total: 100,
            modules: vec![ModuleCount {
                module: module.into(),
                count: 90,
            }],
            by_crate: None,
        };
        let ran = Ran {
            timed: Observed::Families(vec![family("aes::backends::x86_vaes512")]),
            counted: Observed::Families(vec![family("aes::backends::x86_aes")]),
        };
        let md = super::counted(Some(&ran), &["aes::soft".into()], &["avx512f".into()], None);
        assert!(
            md.contains("\n- parallel modes ran `aes::backends::x86_vaes512` (90% of 100 samples); callgrind counted `aes::backends::x86_aes` (90% of its instructions; valgrind's CPU has no AVX-512): instruction counts are for that backend\n"),
            "{md}"
        );
        assert!(!md.contains("aes::soft"), "{md}");
        assert!(md.contains("\n\nThis machine has avx512f: "), "{md}");
    }

    /// The backends are named, and a machine with AVX-512 is told that its
    /// timed backend may not be the counted one.
    #[test]
    fn what_callgrind_counted_says_which_backend() {
        let backends = ["aes::backends::autodetect".to_string()];
        let with = super::counted(None, &backends, &["aes".into(), "avx512f".into()], None);
        assert!(with.contains("`aes::backends::autodetect`"), "{with}");
        assert!(with.contains("This machine has avx512f:"), "{with}");
        let without = super::counted(None, &backends, &["aes".into()], None);
        assert!(without.contains("none of those extensions"), "{without}");
        let wall = bench_harness::stats::Ratio {
            ratio: 0.5,
            low: 0.45,
            high: 0.55,
        };
        let timed = super::counted(None, &backends, &[], Some(&wall));
        assert!(
            timed.contains("the base's with its 95% interval: -50.0% \\[-55.0%, -45.0%\\]."),
            "{timed}"
        );
    }
}
