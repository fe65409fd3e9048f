//! Which of a crate's types is measured, and what it takes: the probe's
//! candidates (block ciphers, hashes and MACs), the one `--type` chose (or
//! the only one; a generic one with its parameters), its block size and
//! key lengths or its digest's length, the modes and key lengths the
//! harness runs it in, and the name its report and cases carry. Shared by
//! `compare --crate` and `gate --crate`.

use crate::error::{Error, Result};
use crate::intake::fetch::Package;
use crate::intake::probe::{Candidate, Found, Probe};
use bench_harness::crates::CrateCipher;
use bench_harness::crates::Primitive;
use bench_harness::engine::Mode;

/// The type measured and what the compiler said of it.
pub struct Identified {
    pub ty: String,
    /// What it is and takes (its kind: `primitive.kind()`).
    pub primitive: Primitive,
    /// The modes run, with their key lengths ([`Primitive::modes`]).
    pub modes: Vec<(Mode, Vec<usize>)>,
    /// The report's name (`[a-z0-9_]`): the crate's library name, and the
    /// type's when the crate has several.
    pub name: String,
}

impl Identified {
    /// The type as the harness sees it, the one place a crate's cipher is
    /// made (`CipherEntry::of_crate` makes its entry): what it is and its
    /// modes; `variants`, the reference first, built from copies of
    /// `package`; the registry crate's label when it is timed as the peer;
    /// and `oracle`, the artifact every variant is checked against.
    pub fn cipher(
        &self,
        package: &Package,
        variants: Vec<String>,
        peer: Option<String>,
        oracle: std::path::PathBuf,
    ) -> CrateCipher {
        CrateCipher {
            name: self.name.clone(),
            module: package.holds(),
            lib_name: package.lib_name.clone(),
            primitive: self.primitive.clone(),
            modes: self.modes.clone(),
            reference: variants.first().cloned().unwrap_or_default(),
            variants,
            peer,
            oracle,
            algorithm: None,
        }
    }
}

/// Asks the compiler (through `probe`) which types of the crate are block
/// ciphers, hashes, MACs or universal hashes, chooses one (`ty`, `--type`), and learns what
/// it takes: a digest longer than the artifacts' ABI carries, or a cipher
/// or MAC that takes no key of 1 to 64 bytes, is refused.
pub fn identify(probe: &Probe, ty: Option<&str>) -> Result<Identified> {
    let package = probe.package;
    let key = format!("{}-{}", package.name, package.version);
    eprintln!(
        "[intake] asking the compiler which types of {key} are block ciphers, hashes, MACs, universal hashes, stream ciphers or AEADs ..."
    );
    let ty = ty.map(crate::intake::shim::type_name).transpose()?;
    let found = probe.candidates(ty.as_deref())?;
    let chosen = choose_type(package, ty.as_deref(), &found)?;
    let primitive = probe.learn(&chosen)?;
    let ty = chosen.name;
    let modes = modes_of(&key, &ty, &primitive)?;
    let name = report_name(package, &ty, found.candidates.len());
    Ok(Identified {
        ty,
        primitive,
        modes,
        name,
    })
}

/// The modes `ty` (of the crate `key`) is run in, from what the compiler
/// said of it: a hash's digest of 1 to [`abi::MAX_DIGEST`] bytes (none
/// of 0 bytes: nothing to compare), a stream cipher's nonce of at most
/// [`abi::MAX_IV`] bytes, an AEAD's too and its tag of at most
/// [`abi::MAX_TAG`], a cipher's key of 1 to 64 bytes; anything else
/// a usage error, before any variant is built.
fn modes_of(key: &str, ty: &str, primitive: &Primitive) -> Result<Vec<(Mode, Vec<usize>)>> {
    if let Primitive::Aead {
        nonce_size,
        tag_size,
        ..
    } = primitive
        && (*nonce_size > abi::MAX_IV || *tag_size > abi::MAX_TAG)
    {
        let (what, n, most) = if *nonce_size > abi::MAX_IV {
            ("nonce", nonce_size, abi::MAX_IV)
        } else {
            ("tag", tag_size, abi::MAX_TAG)
        };
        return Err(Error::usage(
            format!(
                "{key}: {ty}'s {what} is {n} bytes; the artifacts' ABI carries an AEAD's {what} of up to {most} bytes"
            ),
            format!("give an AEAD with a {what} of up to {most} bytes (--type)"),
        ));
    }
    if let Primitive::StreamCipher { iv_size, .. } = primitive
        && *iv_size > abi::MAX_IV
    {
        return Err(Error::usage(
            format!(
                "{key}: {ty}'s nonce is {iv_size} bytes; the artifacts' ABI carries IVs of up to {} bytes",
                abi::MAX_IV
            ),
            format!(
                "give a stream cipher with a nonce of up to {} bytes (--type)",
                abi::MAX_IV
            ),
        ));
    }
    match primitive.digest_size() {
        Some(n) if n == 0 || n > abi::MAX_DIGEST => Err(Error::usage(
            format!(
                "{key}: {ty}'s digest is {n} bytes; the artifacts' ABI carries digests of 1 to {} bytes",
                abi::MAX_DIGEST
            ),
            format!(
                "give a type with a digest of 1 to {} bytes (--type), e.g. a fixed-size one",
                abi::MAX_DIGEST
            ),
        )),
        _ => primitive.modes().ok_or_else(|| {
            Error::usage(
                format!("{key}: {ty} takes no key length from 1 to 64 bytes"),
                "give a type keyed by a byte string (--type)",
            )
        }),
    }
}

/// The type to measure: `--type` when it is a candidate; the one candidate
/// when there is one; else a usage error listing them, or saying that the
/// type named is generic and needs its parameters.
fn choose_type(package: &Package, ty: Option<&str>, found: &Found) -> Result<Candidate> {
    let candidates = &found.candidates;
    let list = (candidates.iter())
        .map(|c| c.name.as_str())
        .collect::<Vec<_>>()
        .join(", ");
    let key = format!("{} {}", package.name, package.version);
    let generic = |t: &str| {
        Error::usage(
            format!("{key}'s `{t}` is generic: name it with its parameters"),
            format!(
                "e.g. --type '{t}<sha2::Sha256>' --with sha2@0.11.0 (--with adds the crate its parameter names)"
            ),
        )
    };
    if let Some(t) = ty
        && found.generic.iter().any(|g| g == t)
    {
        return Err(generic(t));
    }
    if let Some(c) = ty.and_then(|t| candidates.iter().find(|c| c.name == t)) {
        return Ok(c.clone());
    }
    match (ty, candidates.as_slice()) {
        (Some(t), _) if t.contains('<') => Err(Error::usage(
            format!(
                "{key}: `{t}` is no block cipher, hash, MAC, universal hash, stream cipher or AEAD here: {}",
                found
                    .why_not
                    .as_deref()
                    .unwrap_or("the compiler refused it")
            ),
            "name its parameters by crates --with adds (e.g. --with sha2@0.11.0 for sha2::Sha256)",
        )),
        (_, []) if !found.generic.is_empty() => Err(Error::usage(
            format!(
                "{key} has no block cipher, hash, MAC, universal hash, stream cipher or AEAD type at its root but generic ones: {}",
                found.generic.join(", ")
            ),
            format!(
                "name one with its parameters, e.g. --type '{}<sha2::Sha256>' --with sha2@0.11.0",
                found.generic[0]
            ),
        )),
        (_, []) => Err(Error::usage(
            format!(
                "{key} has no type at its root with KeyInit + BlockCipherEncrypt + BlockCipherDecrypt or KeyIvInit + StreamCipher (cipher 0.5), Default + Update + FixedOutput (digest 0.11), KeyInit + Update + FixedOutput (a MAC, digest 0.11), KeyInit + UniversalHash (universal-hash 0.6) or KeyInit + AeadInOut (aead 0.6)"
            ),
            "give a block or stream cipher crate that implements the cipher 0.5 traits, a hash or MAC crate that implements digest 0.11's, a universal hash crate that implements universal-hash 0.6's, or an AEAD crate that implements aead 0.6's",
        )),
        (Some(t), _) => Err(Error::usage(
            format!(
                "{key} has no block cipher, hash, MAC, universal hash, stream cipher or AEAD type `{t}`"
            ),
            format!("--type one of: {list}"),
        )),
        (None, [one]) => Ok(one.clone()),
        (None, _) => Err(Error::usage(
            format!(
                "{key} has {} block cipher, hash, MAC, universal hash, stream cipher or AEAD types",
                candidates.len()
            ),
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
    if types > 1 || ty.contains('<') {
        // The last segment of each path: `Hmac<sha2::Sha256>` is
        // `hmac_sha256`.
        let words: Vec<String> = (ty.split(['<', '>', ',']))
            .map(|p| p.trim())
            .filter(|p| !p.is_empty())
            .map(|p| clean(p.rsplit("::").next().unwrap_or(p)))
            .collect();
        name = format!("{name}_{}", words.join("_"));
    }
    name.truncate(crate::report::check::MAX_NAME);
    name
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A digest of 0 bytes or of more than the ABI carries, and a cipher
    /// with no byte-string key, are refused before anything is built.
    #[test]
    fn what_the_abi_cannot_carry_is_refused() {
        let hash = |n| Primitive::Hash { digest_size: n };
        for n in [0, abi::MAX_DIGEST + 1] {
            let Err(Error::Usage { cause, .. }) = modes_of("k-1.0.0", "H", &hash(n)) else {
                panic!("a {n}-byte digest was taken");
            };
            assert!(cause.contains(&format!("digest is {n} bytes")), "{cause}");
        }
        for n in [1, 20, abi::MAX_DIGEST] {
            assert!(modes_of("k-1.0.0", "H", &hash(n)).is_ok(), "{n}");
        }
        let keyless = Primitive::BlockCipher {
            block_size: 16,
            key_lengths: Vec::new(),
        };
        assert!(modes_of("k-1.0.0", "C", &keyless).is_err());
    }

    /// An AEAD whose nonce or tag is longer than the ABI carries is
    /// refused with one line and a hint, before anything is built; one
    /// within both is timed in its mode.
    #[test]
    fn an_aead_the_abi_cannot_carry_is_refused() {
        let aead = |nonce_size, tag_size| Primitive::Aead {
            key_lengths: vec![32],
            nonce_size,
            tag_size,
        };
        for (nonce, tag, what, n) in [
            (abi::MAX_IV + 1, 16, "nonce", abi::MAX_IV + 1),
            (12, abi::MAX_TAG + 1, "tag", abi::MAX_TAG + 1),
        ] {
            let Err(Error::Usage { cause, hint }) = modes_of("k-1.0.0", "Wide", &aead(nonce, tag))
            else {
                panic!("a {nonce}-byte nonce and a {tag}-byte tag were taken");
            };
            assert_eq!(
                cause,
                format!(
                    "k-1.0.0: Wide's {what} is {n} bytes; the artifacts' ABI carries an AEAD's {what} of up to 64 bytes"
                )
            );
            assert!(!cause.contains('\n') && hint.contains("--type"), "{hint}");
        }
        assert_eq!(
            modes_of("k-1.0.0", "A", &aead(abi::MAX_IV, abi::MAX_TAG)).unwrap(),
            [(Mode::Aead, vec![32])]
        );
    }
}
