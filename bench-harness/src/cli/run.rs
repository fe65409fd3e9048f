//! Running planned `tcrypt` tests: each plan's engines through a
//! measuring [`Session`], printing tcrypt's lines.

use super::parse::Config;
use super::plan::{EngineKind, Plan};
use crate::clock::Counter;
use crate::engine::Dir;
use crate::measure::{HASH_TEMPLATE, Measurement, Session, Test};
use crate::registry::Alg;

/// Runs the plans, printing tcrypt's lines through `out`.
pub fn run(
    c: &Config,
    plans: &mut [Plan],
    counter: &Counter,
    out: &mut dyn FnMut(&str),
) -> Result<(Vec<Measurement>, Vec<crate::measure::Fit>), crate::engine::EngineError> {
    let mut session = Session::new(counter, c.timing, out);
    for plan in plans.iter_mut() {
        let alg = plan.alg.name();
        for (variant, engine) in &mut plan.engines {
            match (engine, plan.alg) {
                (EngineKind::Cipher(e), Alg::Cipher { mode, .. }) if c.setkey => {
                    let test = Test {
                        alg: &alg,
                        variant,
                        dir: "setkey",
                    };
                    session.set_key(&test, e.as_mut(), mode, &plan.keys)?;
                }
                (EngineKind::Cipher(e), Alg::Cipher { mode, .. }) => {
                    for dir in Dir::BOTH {
                        let test = Test {
                            alg: &alg,
                            variant,
                            dir: dir.name(),
                        };
                        session.cipher(&test, e.as_mut(), mode, dir, &plan.keys, &plan.sizes)?;
                    }
                }
                (EngineKind::Hash(h), _) if !h.available() => {
                    session.say(&format!(
                        "{}: unavailable on this CPU, not measured",
                        h.name()
                    ));
                }
                (EngineKind::Hash(h), _) => {
                    let template: Vec<(usize, usize)> = if plan.sizes.is_empty() {
                        HASH_TEMPLATE.to_vec()
                    } else {
                        plan.sizes.iter().map(|&s| (s, s)).collect()
                    };
                    let test = Test {
                        alg: &alg,
                        variant,
                        dir: "digest",
                    };
                    session.hash(&test, h.as_mut(), &template)?;
                }
                (EngineKind::Cipher(_), Alg::Hash(_)) => unreachable!("plans pair kinds"),
            }
        }
    }
    Ok((session.measurements, session.fits))
}
