//! A crash injected by the tests: `INLINELAB_FAULT=crash:NAME` aborts the
//! process about to load artifact NAME (a measuring or counting process),
//! as an artifact that crashes would. xtask reads the variable's other
//! kinds and checks it (`xtask/src/env/fault.rs`).

/// The variable that names the fault.
pub const VAR: &str = "INLINELAB_FAULT";

/// The kind of fault that is a crash where an artifact is loaded.
pub const CRASH: &str = "crash";

/// Aborts if the fault is a crash of the artifact `name`.
pub fn crash_point(name: &str) {
    if let Ok(v) = std::env::var(VAR)
        && v.split_once(':') == Some((CRASH, name))
    {
        std::process::abort();
    }
}
