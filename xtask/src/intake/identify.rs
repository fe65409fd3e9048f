//! Which of a crate's types is measured, and what it takes: the probe's
//! candidates, the one `--type` chose (or the only one), its block size and
//! key lengths, the modes and key lengths the harness runs it in, and the
//! name its report and cases carry. Shared by `compare --crate` and `gate
//! --crate`.

use crate::error::{Error, Result};
use crate::intake::fetch::Package;
use crate::intake::probe::{Learned, Probe};
use bench_harness::crates::CrateCipher;
use bench_harness::engine::Mode;

/// The type measured and what the compiler said of it.
pub struct Identified {
    pub ty: String,
    pub learned: Learned,
    /// The modes run, with their key lengths
    /// ([`CrateCipher::modes_for`]).
    pub modes: Vec<(Mode, Vec<usize>)>,
    /// The report's name (`[a-z0-9_]`): the crate's library name, and the
    /// type's when the crate has several.
    pub name: String,
}

/// Asks the compiler (through `probe`) which types of the crate are block
/// ciphers, chooses one (`ty`, `--type`), and learns what it takes.
pub fn identify(probe: &Probe, ty: Option<&str>) -> Result<Identified> {
    let package = probe.package;
    let key = format!("{}-{}", package.name, package.version);
    eprintln!("[intake] asking the compiler which types of {key} are block ciphers ...");
    let candidates = probe.candidates()?;
    let ty = choose_type(package, ty, &candidates)?;
    let learned = probe.learn(&ty)?;
    let Some(modes) = CrateCipher::modes_for(learned.block_size, &learned.key_lengths) else {
        return Err(Error::usage(
            format!("{key}: {ty} takes no key length from 1 to 64 bytes"),
            "give a type keyed by a byte string (--type)",
        ));
    };
    let name = report_name(package, &ty, candidates.len());
    Ok(Identified {
        ty,
        learned,
        modes,
        name,
    })
}

/// The type to measure: `--type` when it is a candidate; the one candidate
/// when there is one; else a usage error listing them.
fn choose_type(package: &Package, ty: Option<&str>, candidates: &[String]) -> Result<String> {
    let list = candidates.join(", ");
    let key = format!("{} {}", package.name, package.version);
    match (ty, candidates) {
        (_, []) => Err(Error::usage(
            format!(
                "{key} has no type at its root with KeyInit + BlockCipherEncrypt + BlockCipherDecrypt (cipher 0.5)"
            ),
            "give a block cipher crate that implements the cipher 0.5 traits",
        )),
        (Some(t), _) if candidates.iter().any(|c| c == t) => Ok(t.to_string()),
        (Some(t), _) => Err(Error::usage(
            format!("{key} has no block cipher type `{t}`"),
            format!("--type one of: {list}"),
        )),
        (None, [one]) => Ok(one.clone()),
        (None, _) => Err(Error::usage(
            format!("{key} has {} block cipher types", candidates.len()),
            format!("choose one with --type: {list}"),
        )),
    }
}

/// The report's name (`[a-z0-9_]`): the crate's library name, and the
/// type's when the crate has several.
fn report_name(package: &Package, ty: &str, types: usize) -> String {
    let clean = |s: &str| -> String {
        s.chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() {
                    c.to_ascii_lowercase()
                } else {
                    '_'
                }
            })
            .collect()
    };
    let mut name = clean(&package.lib_name);
    if types > 1 {
        name = format!("{name}_{}", clean(ty.rsplit("::").next().unwrap_or(ty)));
    }
    name.truncate(crate::report::check::MAX_NAME);
    name
}
