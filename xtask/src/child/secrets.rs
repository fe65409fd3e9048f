//! `cargo xtask __secrets CASES OUTCOME SO...` (internal): what
//! `count/memcheck.rs` runs under valgrind's memcheck. It loads each
//! artifact in turn, keeping every one loaded to the end (so that no two
//! share an address, and each location is one artifact's), and runs each
//! case once with its secrets marked undefined by a
//! client request: the key before key setup, the key and the data before a
//! crypt (what a mode computes from them is then undefined too, so memcheck
//! reports every branch and address that depends on them); both are marked
//! defined again after, so that nothing of this process's own is reported.
//! Outside valgrind the requests do nothing.

use crate::count::memcheck::{Scanned, SecretsOutcome};
use crate::error::{Error, Result};
use bench_harness::engine::{Engine, EngineError};
use bench_harness::sampling::{Case, CaseKind};
use bench_harness::so::SoCipher;
use std::path::PathBuf;

/// `__secrets CASES OUTCOME SO...`.
#[derive(clap::Args)]
pub struct Args {
    /// The cases to run (JSON).
    cases: PathBuf,
    /// Where to write what became of each artifact (JSON, in order).
    outcome: PathBuf,
    /// The artifacts.
    #[arg(required = true)]
    sos: Vec<PathBuf>,
}

/// Valgrind's client requests, by the sequence `valgrind.h` documents for
/// amd64: a no-op outside valgrind, a request to the tool inside it.
mod request {
    /// `VG_USERREQ_TOOL_BASE('M','C')`: memcheck's requests.
    const MEMCHECK: u64 = ((b'M' as u64) << 24) | ((b'C' as u64) << 16);
    /// `VG_USERREQ__MAKE_MEM_UNDEFINED`.
    const MAKE_MEM_UNDEFINED: u64 = MEMCHECK + 1;
    /// `VG_USERREQ__MAKE_MEM_DEFINED`.
    const MAKE_MEM_DEFINED: u64 = MEMCHECK + 2;

    #[cfg(target_arch = "x86_64")]
    fn request(code: u64, addr: *const u8, len: usize) {
        let args: [u64; 6] = [code, addr as u64, len as u64, 0, 0, 0];
        let mut result: u64 = 0;
        // SAFETY: the special instruction preamble of valgrind.h (four
        // rotations of rdi by 128 bits in all, which leave it as it was,
        // then `xchg rbx, rbx`, which changes nothing) reads the request
        // from the six words `rax` points to and writes its answer to
        // `rdx`; outside valgrind it is a no-op that leaves `rdx` as it
        // was. `args` lives across the asm; rdi is declared clobbered.
        unsafe {
            core::arch::asm!(
                "rol rdi, 3",
                "rol rdi, 13",
                "rol rdi, 61",
                "rol rdi, 51",
                "xchg rbx, rbx",
                in("rax") args.as_ptr(),
                inout("rdx") result,
                out("rdi") _,
            );
        }
        std::hint::black_box(result);
    }

    #[cfg(not(target_arch = "x86_64"))]
    fn request(_code: u64, _addr: *const u8, _len: usize) {}

    /// Memcheck takes `bytes` as undefined: a secret.
    pub fn undefined(bytes: &[u8]) {
        request(MAKE_MEM_UNDEFINED, bytes.as_ptr(), bytes.len());
    }

    /// Memcheck takes `bytes` as defined again.
    pub fn defined(bytes: &[u8]) {
        request(MAKE_MEM_DEFINED, bytes.as_ptr(), bytes.len());
    }
}

pub fn run(args: Args) -> Result<()> {
    let read =
        |p: &PathBuf, e: &dyn std::fmt::Display| Error::failed(format!("{}: {e}", p.display()));
    let bytes = std::fs::read(&args.cases).map_err(|e| read(&args.cases, &e))?;
    let cases: Vec<Case> = serde_json::from_slice(&bytes).map_err(|e| read(&args.cases, &e))?;
    let mut loaded = Vec::new();
    let mut outcome = Vec::new();
    for so in &args.sos {
        outcome.push(match SoCipher::load(so) {
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
    let json = serde_json::to_vec(&outcome).map_err(|e| Error::failed(e.to_string()))?;
    std::fs::write(&args.outcome, json).map_err(|e| read(&args.outcome, &e))?;
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
        done.map_err(|e| super::failed_case(case, e))?;
    }
    Ok(())
}
