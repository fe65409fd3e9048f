//! Why LLVM inlined a call or left it a call, read from the build that made
//! an artifact: rustc's `-Cremark=inline` ([`FLAG`]) prints one remark per
//! decision of LLVM's inliner, which cargo passes on (and replays from its
//! cache when the build is fresh) as a `compiler-message`. The flag only
//! adds diagnostics: the machine code is the same with and without it
//! (`xtask/tests/it/remarks.rs` builds a variant both ways and compares
//! the bytes), so the remarks of a crate's variants come from the very
//! build that is measured.
//!
//! The remarks, as LLVM words them (`<file>:<line>:<col> inline (...): `
//! first):
//!
//! ```text
//! 'CALLEE' inlined into 'CALLER' with (cost=always): always inline attribute
//! 'CALLEE' inlined into 'CALLER' with (cost=-35, threshold=375)
//! 'CALLEE' not inlined into 'CALLER' because too costly to inline (cost=825, threshold=487)
//! 'CALLEE' not inlined into 'CALLER' because it should never be inlined (cost=never): noinline function attribute
//! 'CALLEE' not inlined into 'CALLER' because it should never be inlined (cost=never): conflicting attributes
//! CALLEE will not be inlined into CALLER because its definition is unavailable
//! ```

use crate::build::code::shorten;
use crate::select::artifact::{Decision, Inlining};
use std::collections::BTreeMap;

/// The flag that has rustc print LLVM's inlining decisions.
pub const FLAG: &str = "-Cremark=inline";

/// The decisions for calls to the functions of the crate `lib`, from
/// cargo's `--message-format=json` output `stdout`: one per caller and
/// callee (inlined where any of LLVM's passes inlined it, else the last
/// reason it gave), ordered by callee and caller.
pub fn parse(stdout: &str, lib: &str) -> Vec<Inlining> {
    let mut calls: BTreeMap<(String, String), Decision> = BTreeMap::new();
    let own = format!("{lib}::");
    for line in stdout.lines() {
        // Most of a build's remarks are of other crates' functions: only
        // those naming `lib` are parsed.
        if !line.contains("inline (") || !line.contains(lib) {
            continue;
        }
        let Ok(message) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        let Some(text) = message
            .pointer("/message/message")
            .and_then(serde_json::Value::as_str)
        else {
            continue;
        };
        let Some((callee, caller, decision)) = remark(text) else {
            continue;
        };
        let callee = demangle(callee);
        if !callee.trim_start_matches('<').starts_with(&own) {
            continue;
        }
        let key = (shorten(&callee), shorten(&demangle(caller)));
        match calls.get(&key) {
            Some(d) if d.inlines() => {}
            _ => {
                calls.insert(key, decision);
            }
        }
    }
    (calls.into_iter())
        .map(|((callee, caller), decision)| Inlining {
            callee,
            caller,
            decision,
        })
        .collect()
}

/// The callee, caller and decision of one remark's text, `None` when it
/// is not an inlining remark.
fn remark(text: &str) -> Option<(&str, &str, Decision)> {
    fn unquote(s: &str) -> &str {
        s.trim_matches('\'')
    }
    if let Some((_, rest)) = text.split_once(" inline (success): ") {
        let (callee, rest) = rest.split_once(" inlined into ")?;
        let (caller, how) = rest.split_once(" with ")?;
        let decision = if how.contains("cost=always") {
            Decision::Always
        } else {
            let (cost, threshold) = cost_and_threshold(how)?;
            Decision::Cheap { cost, threshold }
        };
        return Some((unquote(callee), unquote(caller), decision));
    }
    let (_, rest) = text.split_once(" inline (missed): ")?;
    let (callee, rest) = rest
        .split_once(" not inlined into ")
        .or_else(|| rest.split_once(" will not be inlined into "))?;
    let (caller, why) = rest.split_once(" because ")?;
    let decision = if why.starts_with("its definition is unavailable") {
        Decision::Unavailable
    } else if why.starts_with("too costly to inline") {
        let (cost, threshold) = cost_and_threshold(why)?;
        Decision::TooCostly { cost, threshold }
    } else if why.ends_with("noinline function attribute") {
        Decision::Never
    } else if why.ends_with("conflicting attributes") {
        Decision::Conflicting
    } else {
        Decision::Other {
            text: why.to_string(),
        }
    };
    Some((unquote(callee), unquote(caller), decision))
}

/// `(cost=X, threshold=Y)` read from `text`.
fn cost_and_threshold(text: &str) -> Option<(i64, i64)> {
    let number = |key: &str| -> Option<i64> {
        let start = text.find(key)? + key.len();
        let digits: String = text[start..]
            .chars()
            .take_while(|c| c.is_ascii_digit() || *c == '-')
            .collect();
        digits.parse().ok()
    };
    Some((number("cost=")?, number("threshold=")?))
}

/// A symbol demangled without its hash (`inlinelab_crypt` as it is).
fn demangle(symbol: &str) -> String {
    match rustc_demangle::try_demangle(symbol) {
        Ok(d) => format!("{d:#}"),
        Err(_) => symbol.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A build's remarks, as cargo printed them for the crate `cast6`
    /// 0.2.0 through its shim (a sample of one real build, other crates'
    /// remarks among them), parsed into the golden file beside it.
    #[test]
    fn remarks_of_a_real_build_parse_to_the_golden_file() {
        let dir = crate::env::workspace::root().join("xtask/tests/golden/remarks");
        let stdout = std::fs::read_to_string(dir.join("cast6-0.2.0.jsonl")).unwrap();
        let parsed = parse(&stdout, "cast6");
        let text: String = (parsed.iter())
            .map(|i| format!("{} <- {}: {:?}\n", i.callee, i.caller, i.decision))
            .collect();
        expect_test::expect_file![
            crate::env::workspace::root().join("xtask/tests/golden/remarks/cast6-0.2.0.txt")
        ]
        .assert_eq(&text);
    }

    /// Each wording LLVM uses is read as its decision; a remark of another
    /// crate's callee is left out.
    #[test]
    fn each_wording_is_its_decision() {
        let line = |text: &str| {
            serde_json::json!({"reason": "compiler-message", "message": {"message": text}})
                .to_string()
        };
        let lines = [
            line(
                "<unknown file>:0:0 inline (success): '_ZN5cast61a17h0123456789abcdefE' inlined into 'inlinelab_crypt' with (cost=always): always inline attribute",
            ),
            line(
                "src/lib.rs:1:1 inline (success): '_ZN5cast61b17h0123456789abcdefE' inlined into 'inlinelab_crypt' with (cost=-35, threshold=375)",
            ),
            line(
                "x inline (missed): '_ZN5cast61c17h0123456789abcdefE' not inlined into 'inlinelab_crypt' because too costly to inline (cost=825, threshold=487)",
            ),
            line(
                "x inline (missed): '_ZN5cast61d17h0123456789abcdefE' not inlined into 'inlinelab_crypt' because it should never be inlined (cost=never): noinline function attribute",
            ),
            line(
                "x inline (missed): '_ZN5cast61e17h0123456789abcdefE' not inlined into 'inlinelab_crypt' because it should never be inlined (cost=never): conflicting attributes",
            ),
            line(
                "x inline (missed): _ZN5cast61f17h0123456789abcdefE will not be inlined into inlinelab_crypt because its definition is unavailable",
            ),
            line(
                "x inline (missed): '_ZN5cast61g17h0123456789abcdefE' not inlined into 'inlinelab_crypt' because recursive",
            ),
            line(
                "x inline (missed): '_ZN5other1h17h0123456789abcdefE' not inlined into '_ZN5cast61a17h0123456789abcdefE' because recursive",
            ),
            line(
                "x inline (missed): '_ZN5cast61b17h0123456789abcdefE' not inlined into 'inlinelab_crypt' because too costly to inline (cost=900, threshold=487)",
            ),
        ];
        let parsed = parse(&lines.join("\n"), "cast6");
        let decisions: Vec<(&str, Decision)> = (parsed.iter())
            .map(|i| (i.callee.as_str(), i.decision.clone()))
            .collect();
        assert_eq!(
            decisions,
            vec![
                ("a", Decision::Always),
                // Inlined by one pass: a later pass's miss does not undo it.
                (
                    "b",
                    Decision::Cheap {
                        cost: -35,
                        threshold: 375
                    }
                ),
                (
                    "c",
                    Decision::TooCostly {
                        cost: 825,
                        threshold: 487
                    }
                ),
                ("d", Decision::Never),
                ("e", Decision::Conflicting),
                ("f", Decision::Unavailable),
                (
                    "g",
                    Decision::Other {
                        text: "recursive".into()
                    }
                ),
            ]
        );
        assert!(parsed.iter().all(|i| i.caller == "inlinelab_crypt"));
    }
}
