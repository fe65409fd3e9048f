//! The one table of a crate's block cipher that a C library has too
//! (`compare --crate twofish@0.8.0` against libgcrypt's Twofish): the
//! crate and type ([`Algorithm::of_crate`]), and the algorithm as each
//! library names and offers it ([`Algorithm::libraries`]), in the form a
//! cipher of `variants` declares its `libraries: [...]` (the library's name
//! by the key lengths it takes, the modes, the provider). A crate run
//! times them as library peers beside the crate (`registry::CipherEntry::
//! of_crate`); a crate none of these name runs as before.
//!
//! libgcrypt's names are `gcry_cipher_map_name`'s (`gcrypt.h`: Twofish
//! `TWOFISH128` for 128-bit keys and `TWOFISH` for 256-bit, none for
//! 192-bit); OpenSSL's those its artifact fetches as `NAME-MODE` (default
//! provider: AES, Camellia; legacy: DES, CAST5, Blowfish, in ECB and CBC
//! only). Twofish and Serpent are not in OpenSSL.

use crate::engine::Mode;
use crate::library::{KeyLengths, Library, LibraryName, Provider};
use serde::{Deserialize, Serialize};

/// A block cipher some C library has, as a crate's type may be it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Algorithm {
    Aes,
    Blowfish,
    Camellia,
    Cast5,
    Des,
    Serpent,
    Twofish,
}

/// One library's implementation of an [`Algorithm`]: the peer's name among
/// a run's contenders, its label in reports, and what it offers.
#[derive(Clone, Copy, Debug)]
pub struct LibraryPeer {
    /// `libgcrypt`, `openssl` (as a cipher's declaration names its peer).
    pub name: &'static str,
    pub label: &'static str,
    pub library: Library,
}

/// The crates and types (the last segment of the type's path) each
/// algorithm is, by package name.
const CRATES: &[(&str, &[&str], Algorithm)] = &[
    ("aes", &["Aes128", "Aes192", "Aes256"], Algorithm::Aes),
    ("blowfish", &["Blowfish"], Algorithm::Blowfish),
    (
        "camellia",
        &["Camellia128", "Camellia192", "Camellia256"],
        Algorithm::Camellia,
    ),
    ("cast5", &["Cast5"], Algorithm::Cast5),
    ("des", &["Des"], Algorithm::Des),
    ("serpent", &["Serpent"], Algorithm::Serpent),
    ("twofish", &["Twofish"], Algorithm::Twofish),
];

const LIBGCRYPT: &str = "libgcrypt (the system's; sizes with the whole library)";
const OPENSSL: &str = "OpenSSL libcrypto (the system's; sizes with the whole library)";
const OPENSSL_LEGACY: &str = "OpenSSL libcrypto (the system's, its legacy provider; sizes with the whole library and the provider)";

const ALL_MODES: &[Mode] = &[Mode::Ecb, Mode::Cbc, Mode::Ctr, Mode::Xts];
const NO_XTS: &[Mode] = &[Mode::Ecb, Mode::Cbc, Mode::Ctr];
const ECB_CBC: &[Mode] = &[Mode::Ecb, Mode::Cbc];

/// Keys of `len` bytes only.
const fn of(len: usize) -> KeyLengths {
    KeyLengths {
        shortest: len,
        longest: len,
    }
}

/// libgcrypt's implementation, in `modes`, under the names of `algorithm`.
const fn gcrypt(
    algorithm: &'static [(KeyLengths, &'static str)],
    modes: &'static [Mode],
    block: usize,
) -> LibraryPeer {
    LibraryPeer {
        name: "libgcrypt",
        label: LIBGCRYPT,
        library: Library {
            name: LibraryName::Libgcrypt,
            algorithm,
            modes,
            provider: None,
            block,
        },
    }
}

/// OpenSSL's implementation, in `modes`, under the names of `algorithm`,
/// from `provider` (the default one if none).
const fn openssl(
    algorithm: &'static [(KeyLengths, &'static str)],
    modes: &'static [Mode],
    provider: Option<Provider>,
    block: usize,
) -> LibraryPeer {
    LibraryPeer {
        name: "openssl",
        label: match provider {
            Some(_) => OPENSSL_LEGACY,
            None => OPENSSL,
        },
        library: Library {
            name: LibraryName::Openssl,
            algorithm,
            modes,
            provider,
            block,
        },
    }
}

impl Algorithm {
    /// The algorithm of the crate `package`'s type `ty` (a path as `--type`
    /// names it; its last segment is compared), if a library has it.
    pub fn of_crate(package: &str, ty: &str) -> Option<Algorithm> {
        let last = ty.rsplit("::").next()?;
        (CRATES.iter())
            .find(|(p, types, _)| *p == package && types.contains(&last))
            .map(|(_, _, a)| *a)
    }

    /// Each library's implementation of it, libgcrypt's first.
    pub fn libraries(self) -> &'static [LibraryPeer] {
        const AES_GCRYPT: &[(KeyLengths, &str)] =
            &[(of(16), "AES"), (of(24), "AES192"), (of(32), "AES256")];
        const AES_OPENSSL: &[(KeyLengths, &str)] = &[
            (of(16), "AES-128"),
            (of(24), "AES-192"),
            (of(32), "AES-256"),
        ];
        const CAMELLIA_GCRYPT: &[(KeyLengths, &str)] = &[
            (of(16), "CAMELLIA128"),
            (of(24), "CAMELLIA192"),
            (of(32), "CAMELLIA256"),
        ];
        const CAMELLIA_OPENSSL: &[(KeyLengths, &str)] = &[
            (of(16), "CAMELLIA-128"),
            (of(24), "CAMELLIA-192"),
            (of(32), "CAMELLIA-256"),
        ];
        const SERPENT: &[(KeyLengths, &str)] = &[
            (of(16), "SERPENT128"),
            (of(24), "SERPENT192"),
            (of(32), "SERPENT256"),
        ];
        const TWOFISH: &[(KeyLengths, &str)] = &[(of(16), "TWOFISH128"), (of(32), "TWOFISH")];
        const BLOWFISH_GCRYPT: &[(KeyLengths, &str)] = &[(
            KeyLengths {
                shortest: 1,
                longest: 72,
            },
            "BLOWFISH",
        )];
        const BLOWFISH_OPENSSL: &[(KeyLengths, &str)] = &[(
            KeyLengths {
                shortest: 1,
                longest: 72,
            },
            "BF",
        )];
        const CAST5_GCRYPT: &[(KeyLengths, &str)] = &[(of(16), "CAST5")];
        const CAST5_OPENSSL: &[(KeyLengths, &str)] = &[(
            KeyLengths {
                shortest: 5,
                longest: 16,
            },
            "CAST5",
        )];
        const DES_GCRYPT: &[(KeyLengths, &str)] = &[(of(8), "DES")];
        const DES_OPENSSL: &[(KeyLengths, &str)] = &[(of(8), "DES")];
        const LEGACY: Option<Provider> = Some(Provider::Legacy);
        const AES: &[LibraryPeer] = &[
            gcrypt(AES_GCRYPT, ALL_MODES, 16),
            openssl(AES_OPENSSL, ALL_MODES, None, 16),
        ];
        const BLOWFISH: &[LibraryPeer] = &[
            gcrypt(BLOWFISH_GCRYPT, NO_XTS, 8),
            openssl(BLOWFISH_OPENSSL, ECB_CBC, LEGACY, 8),
        ];
        const CAMELLIA: &[LibraryPeer] = &[
            gcrypt(CAMELLIA_GCRYPT, ALL_MODES, 16),
            openssl(CAMELLIA_OPENSSL, NO_XTS, None, 16),
        ];
        const CAST5: &[LibraryPeer] = &[
            gcrypt(CAST5_GCRYPT, NO_XTS, 8),
            openssl(CAST5_OPENSSL, ECB_CBC, LEGACY, 8),
        ];
        const DES: &[LibraryPeer] = &[
            gcrypt(DES_GCRYPT, NO_XTS, 8),
            openssl(DES_OPENSSL, ECB_CBC, LEGACY, 8),
        ];
        const SERPENT_PEERS: &[LibraryPeer] = &[gcrypt(SERPENT, ALL_MODES, 16)];
        const TWOFISH_PEERS: &[LibraryPeer] = &[gcrypt(TWOFISH, ALL_MODES, 16)];
        match self {
            Algorithm::Aes => AES,
            Algorithm::Blowfish => BLOWFISH,
            Algorithm::Camellia => CAMELLIA,
            Algorithm::Cast5 => CAST5,
            Algorithm::Des => DES,
            Algorithm::Serpent => SERPENT_PEERS,
            Algorithm::Twofish => TWOFISH_PEERS,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::library::NotOffered;

    /// twofish's `Twofish` is libgcrypt's Twofish: `TWOFISH128` under
    /// 16-byte keys, `TWOFISH` under 32-byte ones, 24-byte keys not
    /// offered (libgcrypt has no 192-bit Twofish), every mode; OpenSSL has
    /// none.
    #[test]
    fn twofish_is_libgcrypts_by_key_length() {
        let a = Algorithm::of_crate("twofish", "Twofish");
        assert_eq!(a, Some(Algorithm::Twofish));
        let libraries = Algorithm::Twofish.libraries();
        assert_eq!(libraries.len(), 1, "OpenSSL has no Twofish");
        let gcrypt = libraries[0].library;
        assert_eq!(
            (libraries[0].name, gcrypt.name),
            ("libgcrypt", LibraryName::Libgcrypt)
        );
        for mode in [Mode::Ecb, Mode::Cbc, Mode::Ctr] {
            assert_eq!(gcrypt.offers(mode, 16), Ok(()));
            assert_eq!(gcrypt.offers(mode, 32), Ok(()));
            assert_eq!(gcrypt.offers(mode, 24), Err(NotOffered::KeyLength(24)));
            assert_eq!(gcrypt.offers(mode, 8), Err(NotOffered::KeyLength(8)));
        }
        assert_eq!(gcrypt.offers(Mode::Xts, 64), Ok(()));
        assert_eq!(gcrypt.offers(Mode::Xts, 48), Err(NotOffered::KeyLength(24)));
        assert_eq!(gcrypt.algorithm_env(), "16-16=TWOFISH128,32-32=TWOFISH");
        assert_eq!(
            gcrypt.offered(),
            "16-byte and 32-byte keys in ECB, CBC, CTR and XTS"
        );
    }

    /// A crate is matched by its package and its type's last segment; any
    /// other crate or type has no library (its run is as before).
    #[test]
    fn only_the_tables_crates_and_types_match() {
        assert_eq!(Algorithm::of_crate("aes", "Aes256"), Some(Algorithm::Aes));
        assert_eq!(
            Algorithm::of_crate("camellia", "Camellia192"),
            Some(Algorithm::Camellia)
        );
        assert_eq!(
            Algorithm::of_crate("twofish", "soft::Twofish"),
            Some(Algorithm::Twofish)
        );
        assert_eq!(Algorithm::of_crate("cast6", "Cast6"), None);
        assert_eq!(Algorithm::of_crate("des", "TdesEde3"), None);
        assert_eq!(Algorithm::of_crate("blowfish", "BlowfishLE"), None);
        assert_eq!(Algorithm::of_crate("serpent", "Twofish"), None);
        assert_eq!(Algorithm::of_crate("twofish", ""), None);
    }

    /// Every library's block is its algorithm's, its names cover the key
    /// lengths it offers, and OpenSSL's legacy algorithms say their
    /// provider; the serial form round-trips (a crate's cipher carries it
    /// to the measuring processes).
    #[test]
    fn every_row_is_whole() {
        for &(_, _, a) in CRATES {
            for l in a.libraries() {
                let block = l.library.block;
                let sixteen = matches!(
                    a,
                    Algorithm::Aes | Algorithm::Camellia | Algorithm::Serpent | Algorithm::Twofish
                );
                assert_eq!(block, if sixteen { 16 } else { 8 }, "{a:?}");
                assert!(!l.library.algorithm.is_empty() && !l.library.modes.is_empty());
                let legacy = l.library.provider == Some(Provider::Legacy);
                assert_eq!(legacy, l.label == OPENSSL_LEGACY, "{a:?} {}", l.name);
                assert_eq!(l.name, l.library.name.name());
            }
            let json = serde_json::to_string(&a).unwrap();
            assert_eq!(serde_json::from_str::<Algorithm>(&json).unwrap(), a);
        }
    }
}
