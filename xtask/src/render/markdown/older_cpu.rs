//! What each contender did on a CPU without the extensions its code may
//! use (`report/older_cpu.rs`): a section that counts the outcomes and
//! names every contender that did not compute the oracle's answer there.

use crate::env::escape::{md_code, md_text};
use crate::report::Report;
use crate::report::older_cpu::OlderCpu;
use std::fmt::Write;

/// The section, where anyone looked.
pub fn render(w: &mut String, r: &Report) {
    let looked: Vec<(&str, &OlderCpu)> = (r.entries())
        .filter_map(|e| Some((e.name.as_str(), e.older_cpu.as_ref()?)))
        .collect();
    if looked.is_empty() {
        return;
    }
    let _ = writeln!(w, "## On a CPU without the extensions\n");
    let cpu = looked.iter().find_map(|(_, o)| o.cpu());
    let Some(cpu) = cpu else {
        // Not run anywhere: say why once.
        if let Some((_, OlderCpu::NotRun { why })) = looked.first() {
            let _ = writeln!(
                w,
                "The check against the oracle was not run on an older CPU: {}.\n",
                md_text(why)
            );
        }
        return;
    };
    let names = |pick: &dyn Fn(&OlderCpu) -> bool| -> Vec<&str> {
        looked
            .iter()
            .filter(|(_, o)| pick(o))
            .map(|(n, _)| *n)
            .collect()
    };
    let right = names(&|o| matches!(o, OlderCpu::Right { .. }));
    let unavailable = names(&|o| matches!(o, OlderCpu::Unavailable { .. }));
    let not_run = names(&|o| matches!(o, OlderCpu::NotRun { .. }));
    let list = |v: &[&str]| v.iter().map(|n| md_code(n)).collect::<Vec<_>>().join(", ");
    let _ = writeln!(
        w,
        "Each contender's check against the oracle, as the run checks it before timing, run again on {} (`time/emulated.rs`): {} computed what the oracle computes; {} said this CPU cannot run it{}; {} failed{}.\n",
        md_text(cpu),
        right.len(),
        unavailable.len(),
        if unavailable.is_empty() {
            String::new()
        } else {
            format!(" ({})", list(&unavailable))
        },
        looked
            .iter()
            .filter(|(_, o)| matches!(o, OlderCpu::Failed { .. }))
            .count(),
        if not_run.is_empty() {
            String::new()
        } else {
            format!("; {} not run ({})", not_run.len(), list(&not_run))
        },
    );
    for (name, o) in &looked {
        if let OlderCpu::Failed {
            why, built_beyond, ..
        } = o
        {
            let _ = writeln!(
                w,
                "- {}: {}{}",
                md_code(name),
                md_text(why),
                if *built_beyond {
                    "; built for a CPU beyond the baseline, so said, not held against it."
                } else {
                    "; built for the baseline, which promises this CPU: left out of the verdict."
                }
            );
        }
    }
    if looked
        .iter()
        .any(|(_, o)| matches!(o, OlderCpu::Failed { .. }))
    {
        let _ = writeln!(w);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The outcomes counted, each failure named with why and whether it
    /// counts; nothing where nobody looked.
    #[test]
    fn each_failure_is_named_the_rest_counted() {
        let mut r = crate::report::fixture::report();
        let mut md = String::new();
        render(&mut md, &r);
        assert_eq!(md, "");
        let cpu = "qemu64 (qemu: no AES-NI)".to_string();
        let outcomes = [
            OlderCpu::Right { cpu: cpu.clone() },
            OlderCpu::Unavailable {
                cpu: cpu.clone(),
                why: "no AES-NI".into(),
            },
            OlderCpu::Failed {
                cpu: cpu.clone(),
                why: "killed by SIGILL".into(),
                built_beyond: false,
            },
        ];
        let names: Vec<String> = r.variants.iter().map(|e| e.name.clone()).collect();
        for (e, o) in r.variants.iter_mut().zip(outcomes) {
            e.older_cpu = Some(o);
        }
        render(&mut md, &r);
        assert!(md.contains("## On a CPU without the extensions"), "{md}");
        assert!(
            md.contains(&format!(
                ": 1 computed what the oracle computes; 1 said this CPU cannot run it (`{}`); 1 failed.",
                names[1]
            )),
            "{md}"
        );
        assert!(
            md.contains(&format!(
                "- `{}`: killed by SIGILL; built for the baseline, which promises this CPU: left out of the verdict.",
                names[2]
            )),
            "{md}"
        );
    }
}
