//! Every algorithm the harness knows, by kernel name, with its variants, its
//! key-size templates and its RustCrypto peer. A new cipher in `variants` is
//! one [`CipherEntry`] here; nothing else in the harness changes.

use crate::UsageError;
use crate::engine::{DigestEngine, Engine, HashEngine, Mode, StaticCipher, StaticHash};

pub use crate::engine::MakeEngine;
/// Makes a fresh hash engine.
pub type MakeHash = fn() -> Box<dyn HashEngine>;

/// A block cipher and all its implementations.
pub struct CipherEntry {
    /// The kernel's cipher name, e.g. `cast6`.
    pub name: &'static str,
    /// The module of `variants` that declares it, e.g. `cast6` (`null` for
    /// `cipher_null`).
    pub module: &'static str,
    pub block_size: usize,
    /// The modes measured, with the kernel template's key sizes (bytes).
    pub modes: &'static [(Mode, &'static [usize])],
    /// The variants, by name, in `VARIANTS` order: derived from the
    /// cipher's module with `variants::<cipher>_variants!(cipher_engines)`.
    pub variants: &'static [(&'static str, MakeEngine)],
    /// `ROUNDS` of the cipher's module: the functions whose inlining differs.
    pub rounds: &'static [&'static str],
    /// The RustCrypto crates people use today, measured beside the variants;
    /// the first one with a static engine is the oracle.
    pub peers: &'static [Peer],
    /// The reference variant: the one `compare` takes ratios against unless
    /// told otherwise (`REFERENCE` of the cipher's module).
    pub reference: &'static str,
}

/// A peer implementation: a crate, not one of ours.
pub struct Peer {
    /// Its name among the variants: `rustcrypto`, `rustcrypto-soft`.
    pub name: &'static str,
    /// Shown in reports, e.g. `cast6 0.2 (RustCrypto)`.
    pub label: &'static str,
    /// The crate's name, which prefixes its symbols: `cast6`.
    pub crate_name: &'static str,
    /// The driver name, e.g. `cast6-rustcrypto`.
    pub driver: &'static str,
    /// A statically linked engine, where this binary can hold one (a peer
    /// that needs other compiler flags exists only as an artifact).
    pub make: Option<MakeEngine>,
    /// The `inlinelab-artifact` feature that builds it.
    pub feature: &'static str,
    /// `RUSTFLAGS` its artifact build needs (built in a target directory of
    /// its own, so that the flags do not force other builds to start over).
    pub rustflags: Option<&'static str>,
}

/// A hash with a `u32` state, measured with the kernel's hash template.
pub struct HashEntry {
    pub name: &'static str,
    /// The module of `variants` that declares it.
    pub module: &'static str,
    pub variants: &'static [(&'static str, MakeHash)],
}

/// `(name, make)` for each variant of a cipher, from its module's
/// `variants::<cipher>_variants!` callback.
macro_rules! cipher_engines {
    (cipher: $c:ident, kind: cipher($ty:ident), variants: [$($v:ident)*]) => {
        &[$((stringify!($v), || -> Box<dyn Engine> {
            Box::new(StaticCipher::<variants::$c::$v::$ty>::new(
                concat!(stringify!($c), "-", stringify!($v)),
            ))
        })),*]
    };
}

/// `(name, make)` for each variant of a checksum, as a digest engine.
macro_rules! digest_engines {
    (cipher: $c:ident, kind: checksum, variants: [$($v:ident)*]) => {
        &[$((stringify!($v), || -> Box<dyn Engine> {
            use variants::$c::$v as m;
            Box::new(DigestEngine::new(concat!(stringify!($c), "-", stringify!($v)), m::crc32c, m::available))
        })),*]
    };
}

/// `(name, make)` for each variant of a checksum, as a hash (tcrypt's template).
macro_rules! hash_engines {
    (cipher: $c:ident, kind: checksum, variants: [$($v:ident)*]) => {
        &[$((stringify!($v), || -> Box<dyn HashEngine> {
            use variants::$c::$v as m;
            Box::new(StaticHash {
                name: concat!(stringify!($c), "-", stringify!($v)).into(),
                init: || 0,
                update: m::crc32c_append,
                finish: |s| s,
                state: 0,
                available: m::available,
            })
        })),*]
    };
}

/// The ciphers, in `--list` order: every one is compared and gated.
pub static CIPHERS: &[CipherEntry] = &[
    CipherEntry {
        name: "aes",
        module: "aes",
        block_size: 16,
        // tcrypt speed mode 200.
        modes: &[
            (Mode::Ecb, &[16, 24, 32]),
            (Mode::Cbc, &[16, 24, 32]),
            (Mode::Ctr, &[16, 24, 32]),
            (Mode::Xts, &[32, 64]),
        ],
        variants: variants::aes_variants!(cipher_engines),
        rounds: variants::aes::ROUNDS,
        peers: &[
            Peer {
                name: "rustcrypto",
                label: "aes 0.9 (RustCrypto, AES-NI where the CPU has it)",
                crate_name: "aes",
                driver: "aes-rustcrypto",
                make: Some(|| {
                    Box::new(crate::engine::ByKeyLength::new("aes-rustcrypto", AES_PEER))
                }),
                feature: "peer-aes",
                rustflags: None,
            },
            Peer {
                name: "rustcrypto-soft",
                label: "aes 0.9 (RustCrypto, software backend)",
                crate_name: "aes",
                driver: "aes-rustcrypto-soft",
                make: None,
                feature: "peer-aes",
                rustflags: Some("--cfg aes_backend=\"soft\""),
            },
        ],
        reference: variants::aes::REFERENCE,
    },
    CipherEntry {
        name: "crc32c",
        module: "crc32c",
        block_size: 1,
        // Measured by `compare` as one digest of the whole buffer; tcrypt
        // measures it with the hash template (see HASHES).
        modes: &[(Mode::Digest, &[0])],
        variants: variants::crc32c_variants!(digest_engines),
        rounds: variants::crc32c::ROUNDS,
        peers: &[Peer {
            name: "crate",
            label: "crc32c 0.6 (the crc32c crate: SSE4.2 where the CPU has it)",
            crate_name: "crc32c",
            driver: "crc32c-crate",
            make: Some(|| Box::new(DigestEngine::new("crc32c-crate", crc32c::crc32c, || true))),
            feature: "peer-crc32c",
            rustflags: None,
        }],
        reference: variants::crc32c::REFERENCE,
    },
    CipherEntry {
        name: "cast5",
        module: "cast5",
        block_size: 8,
        // tcrypt speed mode 209.
        modes: &[
            (Mode::Ecb, &[8, 16]),
            (Mode::Cbc, &[8, 16]),
            (Mode::Ctr, &[8, 16]),
        ],
        variants: variants::cast5_variants!(cipher_engines),
        rounds: variants::cast5::ROUNDS,
        peers: &[Peer {
            name: "rustcrypto",
            label: "cast5 0.12 (RustCrypto)",
            crate_name: "cast5",
            driver: "cast5-rustcrypto",
            make: Some(|| Box::new(StaticCipher::<cast5::Cast5>::new("cast5-rustcrypto"))),
            feature: "peer-cast5",
            rustflags: None,
        }],
        reference: variants::cast5::REFERENCE,
    },
    CipherEntry {
        name: "cast6",
        module: "cast6",
        block_size: 16,
        // tcrypt speed mode 210.
        modes: &[
            (Mode::Ecb, &[16, 32]),
            (Mode::Cbc, &[16, 32]),
            (Mode::Ctr, &[16, 32]),
            (Mode::Xts, &[32, 64]),
        ],
        variants: variants::cast6_variants!(cipher_engines),
        rounds: variants::cast6::ROUNDS,
        peers: &[Peer {
            name: "rustcrypto",
            label: "cast6 0.2 (RustCrypto)",
            crate_name: "cast6",
            driver: "cast6-rustcrypto",
            make: Some(|| Box::new(StaticCipher::<cast6::Cast6>::new("cast6-rustcrypto"))),
            feature: "peer-cast6",
            rustflags: None,
        }],
        reference: variants::cast6::REFERENCE,
    },
    CipherEntry {
        name: "blowfish",
        module: "blowfish",
        block_size: 8,
        // tcrypt speed mode 207.
        modes: &[
            (Mode::Ecb, &[8, 32]),
            (Mode::Cbc, &[8, 32]),
            (Mode::Ctr, &[8, 32]),
        ],
        variants: variants::blowfish_variants!(cipher_engines),
        rounds: variants::blowfish::ROUNDS,
        peers: &[Peer {
            name: "rustcrypto",
            label: "blowfish 0.10 (RustCrypto)",
            crate_name: "blowfish",
            driver: "blowfish-rustcrypto",
            make: Some(|| {
                Box::new(StaticCipher::<blowfish::Blowfish>::new(
                    "blowfish-rustcrypto",
                ))
            }),
            feature: "peer-blowfish",
            rustflags: None,
        }],
        reference: variants::blowfish::REFERENCE,
    },
];

/// What measures the harness itself rather than a cipher: `ecb(cipher_null)`
/// (tcrypt lists it; compare and the gate, which measure ciphers against
/// their peers, do not).
pub static CALIBRATION: &[CipherEntry] = &[CipherEntry {
    name: "cipher_null",
    module: "null",
    block_size: 1,
    modes: &[(Mode::Ecb, &[16])],
    variants: variants::null_variants!(cipher_engines),
    rounds: variants::null::ROUNDS,
    peers: &[],
    reference: variants::null::REFERENCE,
}];

/// RustCrypto's AES types, by key length.
static AES_PEER: &[(usize, MakeEngine)] = &[
    (16, || {
        Box::new(StaticCipher::<aes::Aes128>::new("aes-rustcrypto"))
    }),
    (24, || {
        Box::new(StaticCipher::<aes::Aes192>::new("aes-rustcrypto"))
    }),
    (32, || {
        Box::new(StaticCipher::<aes::Aes256>::new("aes-rustcrypto"))
    }),
];

/// The hashes, in `--list` order.
pub static HASHES: &[HashEntry] = &[
    HashEntry {
        name: "crc32c",
        module: "crc32c",
        variants: variants::crc32c_variants!(hash_engines),
    },
    HashEntry {
        name: "digest_null",
        module: "null",
        variants: &[("auto", || {
            use variants::null::auto as n;
            Box::new(StaticHash {
                name: "digest_null-auto".into(),
                init: n::digest_null_init,
                update: n::digest_null_update,
                finish: n::digest_null_final,
                state: 0,
                available: || true,
            })
        })],
    },
];

/// An algorithm named as the kernel names it.
#[derive(Clone, Copy)]
pub enum Alg {
    /// `mode(cipher)`, e.g. `ecb(cast6)`.
    Cipher {
        mode: Mode,
        entry: &'static CipherEntry,
        /// The template's key sizes for this mode.
        keys: &'static [usize],
    },
    /// A hash, e.g. `digest_null`.
    Hash(&'static HashEntry),
}

impl Alg {
    /// The kernel name: `ecb(cast6)`, `digest_null`.
    pub fn name(&self) -> String {
        match self {
            Alg::Cipher { mode, entry, .. } => format!("{}({})", mode.name(), entry.name),
            Alg::Hash(h) => h.name.to_string(),
        }
    }

    /// The variant names of this algorithm.
    pub fn variant_names(&self) -> Vec<&'static str> {
        match self {
            Alg::Cipher { entry, .. } => entry.variants.iter().map(|(n, _)| *n).collect(),
            Alg::Hash(h) => h.variants.iter().map(|(n, _)| *n).collect(),
        }
    }

    /// The module of `variants` that declares it.
    pub fn module(&self) -> &'static str {
        match self {
            Alg::Cipher { entry, .. } => entry.module,
            Alg::Hash(h) => h.module,
        }
    }

    /// The base name of drivers: `cast6` for `ecb(cast6)`.
    pub fn base(&self) -> &'static str {
        match self {
            Alg::Cipher { entry, .. } => entry.name,
            Alg::Hash(h) => h.name,
        }
    }
}

/// Every algorithm, in `--list` order. Checksums appear once, as hashes
/// (their digest mode is `compare`'s).
pub fn all() -> Vec<Alg> {
    let ciphers = CIPHERS.iter().chain(CALIBRATION).flat_map(|entry| {
        entry
            .modes
            .iter()
            .filter(|(mode, _)| *mode != Mode::Digest)
            .map(move |&(mode, keys)| Alg::Cipher { mode, entry, keys })
    });
    ciphers.chain(HASHES.iter().map(Alg::Hash)).collect()
}

/// Looks an algorithm up by its kernel name.
pub fn find(name: &str) -> Result<Alg, UsageError> {
    all().into_iter().find(|a| a.name() == name).ok_or_else(|| {
        let names: Vec<String> = all().iter().map(Alg::name).collect();
        UsageError(format!(
            "unknown algorithm `{name}`; expected one of: {}",
            names.join(", ")
        ))
    })
}

/// Looks a cipher up by its kernel name (`cast6`).
pub fn cipher(name: &str) -> Result<&'static CipherEntry, UsageError> {
    CIPHERS.iter().find(|c| c.name == name).ok_or_else(|| {
        let names: Vec<&str> = CIPHERS.iter().map(|c| c.name).collect();
        UsageError(format!(
            "unknown cipher `{name}`; expected one of: {}",
            names.join(", ")
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The registry lists exactly the variants each module declares, and
    /// every declared algorithm has an entry.
    #[test]
    fn variants_match_declarations() {
        let names = |v: &[(&'static str, MakeEngine)]| v.iter().map(|(n, _)| *n).collect();
        let hash_names = |v: &[(&'static str, MakeHash)]| v.iter().map(|(n, _)| *n).collect();
        let mut listed: Vec<(&str, &str, Vec<&str>)> = CIPHERS
            .iter()
            .chain(CALIBRATION)
            .map(|c| (c.name, c.module, names(c.variants)))
            .collect();
        listed.extend(
            HASHES
                .iter()
                .map(|h| (h.name, h.module, hash_names(h.variants))),
        );
        for (name, module, names) in listed {
            let declared = variants::DECLARED.iter().find(|(m, _)| *m == module);
            let Some((_, declared)) = declared else {
                panic!("{name}: no module `{module}` among variants::DECLARED");
            };
            assert_eq!(&names[..], *declared, "{name}");
        }
        for (module, _) in variants::DECLARED {
            let found = CIPHERS
                .iter()
                .chain(CALIBRATION)
                .any(|c| c.module == *module)
                || HASHES.iter().any(|h| h.module == *module);
            assert!(found, "variants::{module} has no registry entry");
        }
    }

    /// Each variant engine takes every template key size of every mode.
    #[test]
    fn template_keys_are_accepted() {
        for c in CIPHERS.iter().chain(CALIBRATION) {
            for &(mode, keys) in c.modes {
                for &k in keys {
                    for (v, make) in c.variants {
                        make().set_key(mode, &vec![0xff; k]).unwrap_or_else(|e| {
                            panic!("{}({}) {v}: {k}-byte key: {e}", mode.name(), c.name)
                        });
                    }
                }
            }
        }
    }

    #[test]
    fn find_names_the_allowed_values() {
        assert_eq!(find("cbc(cast6)").unwrap().name(), "cbc(cast6)");
        let err = find("cbc(cast7)").err().unwrap().0;
        assert!(
            err.starts_with(
                "unknown algorithm `cbc(cast7)`; expected one of: ecb(aes), cbc(aes), ctr(aes), xts(aes), ecb(cast5)"
            ),
            "{err}"
        );
    }
}
