//! LLVM's inlining decisions for one function, in a table cell: how many
//! of its call sites were inlined and why, and why the rest stayed calls
//! (`select::artifact::Decision`), read from the build that was measured;
//! a markdown fragment (LLVM's own wording of a reason as code).

use crate::env::escape::md_code;
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
}
