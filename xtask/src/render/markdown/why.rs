//! LLVM's inlining decisions for one function, in a table cell: how many
//! of its call sites were inlined and why, and why the rest stayed calls
//! (`select::artifact::Decision`), read from the build that was measured;
//! a markdown fragment (LLVM's own wording of a reason as code).

use crate::env::escape::{md_code, md_text};
use crate::report::Report;
use crate::report::annotations::calls_to;
use crate::select::artifact::{Decision, Inlining};

/// The cell for the function `path` in the build of the entry `variant`
/// of `r`: empty when that entry or its decisions are not in the report
/// (a report written before they were read).
pub fn cell(r: &Report, variant: &str, path: &str) -> String {
    let Some(a) = (r.entries())
        .find(|e| e.name == variant)
        .and_then(|e| e.artifact.as_ref())
    else {
        return String::new();
    };
    if a.inlining.is_empty() {
        return String::new();
    }
    summary(&calls_to(path, &a.inlining))
}

/// Every callee LLVM stopped or started inlining into a caller, base to
/// head, one line each with its callers and head's reason (`\`round\`
/// became a call in 1 caller(s) (\`encrypt_block\`): a call ×1: ...`),
/// callees in order; empty when every call site both sides decided is
/// decided alike, `None` when a side has no decisions (its build was not
/// read with remarks).
pub fn changed(base: &[Inlining], head: &[Inlining]) -> Option<Vec<String>> {
    use std::collections::BTreeMap;
    if base.is_empty() || head.is_empty() {
        return None;
    }
    let at_base: BTreeMap<(&str, &str), bool> = (base.iter())
        .map(|i| ((i.callee.as_str(), i.caller.as_str()), i.inlined()))
        .collect();
    // callee -> (stopped, started): head's decisions at the callers whose
    // decision changed.
    let mut changed: BTreeMap<&str, (Vec<&Inlining>, Vec<&Inlining>)> = BTreeMap::new();
    for i in head {
        let Some(&was) = at_base.get(&(i.callee.as_str(), i.caller.as_str())) else {
            continue;
        };
        match (was, i.inlined()) {
            (true, false) => changed.entry(i.callee.as_str()).or_default().0.push(i),
            (false, true) => changed.entry(i.callee.as_str()).or_default().1.push(i),
            _ => {}
        }
    }
    let mut lines = Vec::new();
    for (callee, (stopped, started)) in changed {
        for (calls, what) in [
            (&stopped, "became a call in"),
            (&started, "is now inlined into"),
        ] {
            if calls.is_empty() {
                continue;
            }
            let callers: Vec<String> = calls.iter().map(|i| md_code(&i.caller)).collect();
            lines.push(format!(
                "{} {what} {} caller(s) ({}): {}.",
                md_code(callee),
                calls.len(),
                callers.join(", "),
                summary(calls)
            ));
        }
    }
    Some(lines)
}

/// One variant's decisions at both sides of a gate: its name, the
/// reference's (the baseline's or the base tree's) and head's.
pub struct Sides<'a> {
    pub variant: &'a str,
    pub base: &'a [Inlining],
    pub head: &'a [Inlining],
}

/// `gate CIPHER`'s section: per variant, every function LLVM stopped or
/// started inlining, `against` (the baseline or the base tree, in
/// markdown as the gate's summary says it) to head,
/// whatever the thresholds decided; the variants that changed nothing
/// counted, those a side has no decisions for named with the command that
/// records them.
pub fn per_variant(cipher: &str, against: &str, variants: &[Sides]) -> String {
    let mut md = format!("### What LLVM inlined differently: {}\n\n", md_text(cipher));
    md.push_str(&format!(
        "From LLVM's inline remarks (`-Cremark=inline`) of the builds measured, {against} to this tree, whatever the thresholds decided:\n\n"
    ));
    let mut alike = 0;
    let mut unread = Vec::new();
    for v in variants {
        match changed(v.base, v.head) {
            None => unread.push(md_code(v.variant)),
            Some(lines) if lines.is_empty() => alike += 1,
            Some(lines) => {
                md.push_str(&format!("- {}:\n", md_code(v.variant)));
                for line in lines {
                    md.push_str(&format!("  - {line}\n"));
                }
            }
        }
    }
    if alike > 0 {
        md.push_str(&format!(
            "- {alike} variant(s): every call site both sides decided is decided alike.\n"
        ));
    }
    if !unread.is_empty() {
        md.push_str(&format!(
            "- {} variant(s) not compared ({}): a side records no decisions (a baseline measured before they were read: `cargo xtask baseline {}` records them).\n",
            unread.len(),
            unread.join(", "),
            md_text(cipher)
        ));
    }
    md.push('\n');
    md
}

/// `inlined ×2 (cost 395 < 487); a call ×14: too costly (5315 > 487)`.
pub fn summary(calls: &[&Inlining]) -> String {
    if calls.is_empty() {
        return "no call LLVM decided on".into();
    }
    let mut parts = Vec::new();
    let inlined: Vec<&Decision> = (calls.iter())
        .map(|c| &c.decision)
        .filter(|d| d.inlines())
        .collect();
    if !inlined.is_empty() {
        let cheap: Vec<(i64, i64)> = (inlined.iter())
            .filter_map(|d| match d {
                Decision::Cheap { cost, threshold } => Some((*cost, *threshold)),
                _ => None,
            })
            .collect();
        let always = inlined.len() - cheap.len();
        let mut how = Vec::new();
        if always > 0 {
            how.push("`always`".to_string());
        }
        if let Some(&(cost, threshold)) = cheap.iter().max_by_key(|(c, t)| c - t) {
            how.push(format!("cost {cost} < {threshold}"));
        }
        parts.push(format!("inlined ×{} ({})", inlined.len(), how.join(", ")));
    }
    let missed = |pick: &dyn Fn(&Decision) -> bool| -> Vec<&Decision> {
        (calls.iter())
            .map(|c| &c.decision)
            .filter(|d| pick(d))
            .collect()
    };
    let costly = missed(&|d| matches!(d, Decision::TooCostly { .. }));
    if let Some((cost, threshold)) = (costly.iter())
        .filter_map(|d| match d {
            Decision::TooCostly { cost, threshold } => Some((*cost, *threshold)),
            _ => None,
        })
        .min_by_key(|(c, t)| c - t)
    {
        parts.push(format!(
            "a call ×{}: too costly (cost {cost} > {threshold})",
            costly.len()
        ));
    }
    for (pick, why) in [
        (
            &(|d: &Decision| *d == Decision::Never) as &dyn Fn(&Decision) -> bool,
            "`inline(never)`",
        ),
        (
            &|d: &Decision| *d == Decision::Unavailable,
            "its body not available to the caller's crate",
        ),
        (
            &|d: &Decision| *d == Decision::Conflicting,
            "target features differ",
        ),
    ] {
        let n = missed(pick).len();
        if n > 0 {
            parts.push(format!("a call ×{n}: {why}"));
        }
    }
    for d in missed(&|d| matches!(d, Decision::Other { .. })) {
        if let Decision::Other { text } = d {
            parts.push(format!("a call: {}", md_code(text)));
        }
    }
    parts.join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every kind of decision is said, inlined first, the closest to its
    /// threshold quoted.
    #[test]
    fn a_cell_says_each_decision() {
        let call = |callee: &str, caller: &str, decision| Inlining {
            callee: callee.into(),
            caller: caller.into(),
            decision,
        };
        let all = [
            call("f", "a", Decision::Always),
            call(
                "f",
                "b",
                Decision::Cheap {
                    cost: 395,
                    threshold: 487,
                },
            ),
            call(
                "f",
                "c",
                Decision::TooCostly {
                    cost: 5315,
                    threshold: 487,
                },
            ),
            call(
                "f",
                "d",
                Decision::TooCostly {
                    cost: 600,
                    threshold: 487,
                },
            ),
            call("f", "e", Decision::Unavailable),
            call("f", "g", Decision::Never),
        ];
        let refs: Vec<&Inlining> = all.iter().collect();
        assert_eq!(
            summary(&refs),
            "inlined ×2 (`always`, cost 395 < 487); a call ×2: too costly (cost 600 > 487); a call ×1: `inline(never)`; a call ×1: its body not available to the caller's crate"
        );
        assert_eq!(summary(&[]), "no call LLVM decided on");
    }

    /// Per variant: one whose decisions changed lists each function, one
    /// whose did not is counted, one a side has no decisions for is named
    /// with the command that records them.
    #[test]
    fn each_variant_says_what_llvm_decided_otherwise() {
        let call = |callee: &str, caller: &str, decision| Inlining {
            callee: callee.into(),
            caller: caller.into(),
            decision,
        };
        let base = vec![
            call("load", "encrypt_block", Decision::Never),
            call("q", "encrypt_block", Decision::Always),
        ];
        let head = vec![
            call(
                "load",
                "encrypt_block",
                Decision::Cheap {
                    cost: 5,
                    threshold: 375,
                },
            ),
            call("q", "encrypt_block", Decision::Always),
        ];
        let md = per_variant(
            "cast6",
            "the baseline",
            &[
                Sides {
                    variant: "auto",
                    base: &base,
                    head: &head,
                },
                Sides {
                    variant: "never",
                    base: &base,
                    head: &base,
                },
                Sides {
                    variant: "always",
                    base: &[],
                    head: &head,
                },
            ],
        );
        assert!(
            md.starts_with("### What LLVM inlined differently: cast6\n"),
            "{md}"
        );
        assert!(
            md.contains("- `auto`:\n  - `load` is now inlined into 1 caller(s) (`encrypt_block`): inlined ×1 (cost 5 < 375).\n"),
            "{md}"
        );
        assert!(md.contains("- 1 variant(s): every call site"), "{md}");
        assert!(md.contains("not compared (`always`)"), "{md}");
        assert!(md.contains("`cargo xtask baseline cast6`"), "{md}");
        assert!(!md.contains("`q`"), "{md}");
    }
}
