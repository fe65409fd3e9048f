//! `under-valgrind secrets CASES OUTCOME SO...`: what xtask's
//! `count/memcheck.rs` runs under memcheck. It loads each artifact in turn,
//! keeping every one loaded to the end (so that no two share an address,
//! and each location is one artifact's), and runs each case once with its
//! secrets marked undefined by a client request: the key before key setup,
//! the key and the data before a crypt (what a mode computes from them is
//! then undefined too, so memcheck reports every branch and address that
//! depends on them); both are marked defined again after, so that nothing
//! of this process's own is reported. Outside valgrind the requests do
//! nothing.

use super::{at, failed_case, request};
use crate::engine::{Engine, EngineError};
use crate::sampling::{Case, CaseKind};
use crate::so::SoCipher;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// What became of the artifact in the child, written as JSON.
#[derive(Debug, Serialize, Deserialize)]
pub enum SecretsOutcome {
    /// Loaded and run.
    Ran(Scanned),
    /// This CPU (as valgrind shows it) cannot run it.
    Unavailable(String),
    NotLoaded(String),
}

/// A run of the child's cases.
#[derive(Debug, Serialize, Deserialize)]
pub struct Scanned {
    /// Where `inlinelab_crypt` was loaded: less its address in the file,
    /// the artifact's load base.
    pub crypt_address: u64,
    /// The first case that failed, if one did (the locations before it
    /// are still reported).
    pub failed: Option<String>,
}

/// Runs the cases at `cases` on every artifact of `sos`, writing what
/// became of each, in order, to `outcome`.
pub fn run(cases: &Path, outcome: &Path, sos: &[PathBuf]) -> Result<(), String> {
    let bytes = std::fs::read(cases).map_err(|e| at(cases, e))?;
    let cases: Vec<Case> = serde_json::from_slice(&bytes).map_err(|e| at(cases, e))?;
    let mut loaded = Vec::new();
    let mut out = Vec::new();
    for so in sos {
        out.push(match SoCipher::load(so) {
            Err(EngineError::Unavailable(why)) => SecretsOutcome::Unavailable(why),
            Err(e) => SecretsOutcome::NotLoaded(e.to_string()),
            Ok(mut engine) => {
                let ran = SecretsOutcome::Ran(Scanned {
                    crypt_address: engine.crypt_address() as u64,
                    failed: run_cases(&mut engine, &cases).err(),
                });
                loaded.push(engine);
                ran
            }
        });
    }
    let json = serde_json::to_vec(&out).map_err(|e| e.to_string())?;
    std::fs::write(outcome, json).map_err(|e| at(outcome, e))?;
    drop(loaded);
    Ok(())
}

/// Each case once, its secrets undefined while the artifact runs.
fn run_cases(engine: &mut SoCipher, cases: &[Case]) -> std::result::Result<(), String> {
    for case in cases {
        // A key and data of no particular value: memcheck tracks whether a
        // value is defined, not what it is.
        let mut key: Vec<u8> = (0..case.key_bytes).map(|i| i as u8 ^ 0x5a).collect();
        let mut iv = vec![0x24u8; engine.block_size().max(1)];
        let mut buf: Vec<u8> = (0..case.block_bytes).map(|i| (i * 7) as u8).collect();
        request::undefined(&key);
        let keyed = engine.set_key(case.mode, &key);
        let done = keyed.and_then(|()| match case.kind {
            CaseKind::Crypt => {
                request::undefined(&buf);
                engine.crypt(case.mode, case.dir, &mut iv, &mut buf)
            }
            CaseKind::SetKey => Ok(()),
        });
        request::defined(&key);
        request::defined(&buf);
        request::defined(&iv);
        key.fill(0);
        done.map_err(|e| failed_case(case, e))?;
    }
    Ok(())
}
