//! Faults injected for tests through `INLINELAB_FAULT`; this is the one
//! place that reads it, and the stages ask it themselves:
//!
//! - `build:NAME`: contender NAME's build fails (it asks for an artifact
//!   feature that does not exist);
//! - `regress:NAME`: NAME is built with one extra block of work per call (a
//!   real change to the generated code, which the gate must catch);
//! - `crash:NAME`: the measuring process aborts when it turns to NAME;
//! - `unavailable:NAME`: NAME's artifact says this CPU cannot run it (as the
//!   SSE4.2 CRC32C artifact does on a CPU without SSE4.2), which must be
//!   reported as unavailable, not failed, and never entered.

use std::sync::OnceLock;

enum Fault {
    Build(String),
    Crash(String),
    Regress(String),
    Unavailable(String),
}

/// The fault asked for, read once.
fn injected() -> Option<&'static Fault> {
    static FAULT: OnceLock<Option<Fault>> = OnceLock::new();
    FAULT
        .get_or_init(|| {
            let v = std::env::var("INLINELAB_FAULT").ok()?;
            match v.split_once(':')? {
                ("build", name) => Some(Fault::Build(name.into())),
                ("crash", name) => Some(Fault::Crash(name.into())),
                ("regress", name) => Some(Fault::Regress(name.into())),
                ("unavailable", name) => Some(Fault::Unavailable(name.into())),
                _ => None,
            }
        })
        .as_ref()
}

/// Artifact features to add to contender `name`'s build.
pub fn extra_features(name: &str) -> &'static [&'static str] {
    match injected() {
        Some(Fault::Build(n)) if n == name => &["fault-injected"],
        Some(Fault::Regress(n)) if n == name => &["fault-extra-block"],
        Some(Fault::Unavailable(n)) if n == name => &["fault-unavailable"],
        _ => &[],
    }
}

/// Called by the measuring process each time it turns to engine `name`
/// (after writing the marker that names it).
pub fn crash_point(name: &str) {
    if let Some(Fault::Crash(n)) = injected()
        && n == name
    {
        std::process::abort();
    }
}
