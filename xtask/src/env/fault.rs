//! Faults injected for tests through `INLINELAB_FAULT=KIND:NAME`; this is
//! the one place that reads it (but for the crash, which the measuring and
//! counting processes check where they load an artifact:
//! bench-harness's `fault.rs`), and the stages ask it themselves. NAME is a
//! contender's name (`never`, `rustcrypto`, or `never@base` for the base
//! tree's `never` under `gate --against`). compare and gate refuse (exit 2)
//! a fault of another kind, or one naming none of their contenders, before
//! they build: a fault that injects nothing would test nothing.
//!
//! - `build:NAME`: contender NAME's build fails (it asks for an artifact
//!   feature that does not exist);
//! - `regress:NAME`: NAME is built with one extra block of work per call (a
//!   real change to the generated code, which the gate must catch);
//! - `slow-setkey:NAME`: NAME's key schedule runs twice per key setup;
//! - `slow-key24:NAME`: one extra block per call, only under a 24-byte key;
//! - `slow-ctr:NAME`: one extra block per call, only in CTR;
//! - `slow-decrypt:NAME`: one extra block per call, only in decryption;
//! - `hang:NAME`: every operation of NAME's artifact spins forever, so the
//!   process that runs it (measuring or counting) must be killed at its
//!   deadline (`deadline.rs`) and NAME reported as hung;
//! - `missing:NAME`: library peer NAME's C library is taken as not
//!   installed here (its rows are left out, saying so: `library.rs`);
//! - `no-provider:NAME`: the OpenSSL provider library peer NAME's
//!   algorithm is in (the legacy one) is taken as not installed here
//!   (likewise left out, saying so);
//! - `crash:NAME`: the measuring (or counting) process aborts when it turns
//!   to NAME;
//! - `unavailable:NAME`: NAME's artifact says this CPU cannot run it (as the
//!   SSE4.2 CRC32C artifact does on a CPU without SSE4.2), which must be
//!   reported as unavailable, not failed, and never entered;
//! - `wrong:NAME`: NAME's artifact flips a bit of every result (a hash's
//!   digest, in one call and streamed, too), which the check against the
//!   oracle must refuse (NAME failed, never timed).

use bench_harness::fault;
use std::sync::OnceLock;

/// The faults that are a build of the artifact with extra features (see
/// the `fault-*` features of `variants/artifact`), by kind.
const BUILT: &[(&str, &[&str])] = &[
    // A feature that does not exist: the build fails.
    ("build", &["fault-injected"]),
    ("regress", &["fault-extra-block"]),
    ("hang", &["fault-hang"]),
    ("slow-setkey", &["fault-slow-setkey"]),
    ("slow-key24", &["fault-slow-key24"]),
    ("slow-ctr", &["fault-slow-ctr"]),
    ("slow-decrypt", &["fault-slow-decrypt"]),
    ("unavailable", &["fault-unavailable"]),
    ("wrong", &["fault-wrong-output"]),
];

enum Fault {
    /// Built with these artifact features.
    Built(&'static [&'static str], String),
    Crash(String),
    /// The C library of library peer NAME taken as not installed.
    Missing(String),
    /// The provider of library peer NAME taken as not installed.
    NoProvider(String),
}

/// The kind of fault that pretends a library peer's library is missing.
const MISSING: &str = "missing";
/// The kind of fault that pretends a library peer's provider is missing.
const NO_PROVIDER: &str = "no-provider";

/// `KIND:NAME` read: the fault, or why it is none this file knows.
fn parse(v: &str) -> Result<Fault, String> {
    let Some((kind, name)) = v.split_once(':') else {
        return Err(format!("INLINELAB_FAULT={v:?} is not KIND:NAME"));
    };
    if kind == fault::CRASH {
        return Ok(Fault::Crash(name.into()));
    }
    if kind == MISSING {
        return Ok(Fault::Missing(name.into()));
    }
    if kind == NO_PROVIDER {
        return Ok(Fault::NoProvider(name.into()));
    }
    match BUILT.iter().find(|(k, _)| *k == kind) {
        Some((_, features)) => Ok(Fault::Built(features, name.into())),
        None => Err(format!("INLINELAB_FAULT has an unknown kind {kind:?}")),
    }
}

impl Fault {
    fn name(&self) -> &str {
        match self {
            Fault::Built(_, n) | Fault::Crash(n) | Fault::Missing(n) | Fault::NoProvider(n) => n,
        }
    }
}

/// The fault asked for, read once.
fn injected() -> Option<&'static Fault> {
    static FAULT: OnceLock<Option<Fault>> = OnceLock::new();
    FAULT
        .get_or_init(|| parse(&std::env::var(fault::VAR).ok()?).ok())
        .as_ref()
}

/// Checks the fault asked for, if any, once per command before anything is
/// built: a kind this file knows, naming one of `names` (every contender
/// the command's ciphers can have, or a crate run's contenders). A fault
/// that would inject nothing is a usage error, not a run that silently
/// tests nothing.
pub fn check(names: &[String]) -> crate::error::Result<()> {
    let Ok(v) = std::env::var(fault::VAR) else {
        return Ok(());
    };
    let kinds: Vec<&str> = [fault::CRASH, MISSING, NO_PROVIDER]
        .into_iter()
        .chain(BUILT.iter().map(|(k, _)| *k))
        .collect();
    let hint = format!(
        "INLINELAB_FAULT=KIND:NAME, KIND one of {}, NAME a contender of this run",
        kinds.join(", ")
    );
    let usage = |cause: String| crate::error::Error::usage(cause, hint.clone());
    let fault = parse(&v).map_err(usage)?;
    let name = fault.name();
    if !names.iter().any(|n| n == name) {
        return Err(usage(format!(
            "INLINELAB_FAULT names {name:?}, which is none of this run's {} possible contenders: it would inject nothing",
            names.len()
        )));
    }
    Ok(())
}

/// Artifact features to add to contender `name`'s build.
pub fn extra_features(name: &str) -> &'static [&'static str] {
    match injected() {
        Some(Fault::Built(features, n)) if n == name => features,
        _ => &[],
    }
}

/// Whether library peer `name`'s library is to be taken as not installed.
pub fn missing(name: &str) -> bool {
    matches!(injected(), Some(Fault::Missing(n)) if n == name)
}

/// Whether library peer `name`'s provider is to be taken as not installed.
pub fn no_provider(name: &str) -> bool {
    matches!(injected(), Some(Fault::NoProvider(n)) if n == name)
}
