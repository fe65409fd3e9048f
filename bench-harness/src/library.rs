//! What a C library's peer is and offers (`registry::Peer::library`, and a
//! crate's block cipher that a library has too, `crate_libraries.rs`): the
//! library, its names for the algorithm by the key lengths it takes, the
//! modes it offers and the provider (OpenSSL's) it is in; and why a case
//! is not offered.

use crate::engine::Mode;

/// A C library a peer comes from, linked as the system has it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LibraryName {
    /// libgcrypt (`gcry_cipher_*`).
    Libgcrypt,
    /// OpenSSL's libcrypto (`EVP_*`).
    Openssl,
}

impl LibraryName {
    /// As the declarations name it, and the peer's artifact feature after
    /// `peer-`.
    pub fn name(self) -> &'static str {
        match self {
            LibraryName::Libgcrypt => "libgcrypt",
            LibraryName::Openssl => "openssl",
        }
    }

    /// The artifact's feature that builds its peer: `peer-libgcrypt`.
    pub fn feature(self) -> &'static str {
        match self {
            LibraryName::Libgcrypt => "peer-libgcrypt",
            LibraryName::Openssl => "peer-openssl",
        }
    }

    /// The shared object a program links (the development package's
    /// symlink, `-l` of the link).
    pub fn linked(self) -> &'static str {
        match self {
            LibraryName::Libgcrypt => "libgcrypt.so",
            LibraryName::Openssl => "libcrypto.so",
        }
    }

    /// The Debian package that installs it for linking.
    pub fn package(self) -> &'static str {
        match self {
            LibraryName::Libgcrypt => "libgcrypt20-dev",
            LibraryName::Openssl => "libssl-dev",
        }
    }
}

/// A library peer's algorithm and what it offers, as its declaration says
/// (`libraries: [...]`, once): the library's name for the algorithm by the
/// key lengths it takes, the modes it offers, and the provider it is in.
/// A case outside what it offers ([`Library::offers`]) is left out of its
/// row, said so: never a failure.
#[derive(Clone, Copy, Debug)]
pub struct Library {
    pub name: LibraryName,
    /// The library's name for the algorithm under each range of key
    /// lengths it takes (`0..=1024`: every length).
    pub algorithm: &'static [(KeyLengths, &'static str)],
    /// The modes it offers.
    pub modes: &'static [Mode],
    /// The provider (OpenSSL's) the algorithm is in, where not the default.
    pub provider: Option<Provider>,
    /// The cipher's block size (the artifact's, fixed at build time).
    pub block: usize,
}

/// Key lengths in bytes, `shortest..=longest`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeyLengths {
    pub shortest: usize,
    pub longest: usize,
}

impl KeyLengths {
    pub fn contains(&self, len: usize) -> bool {
        (self.shortest..=self.longest).contains(&len)
    }
}

impl std::fmt::Display for KeyLengths {
    /// `16-byte`, `5- to 16-byte`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.shortest == self.longest {
            write!(f, "{}-byte", self.shortest)
        } else {
            write!(f, "{}- to {}-byte", self.shortest, self.longest)
        }
    }
}

/// An OpenSSL provider an algorithm is in, where not the default one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Provider {
    /// OpenSSL 3's legacy provider (CAST5, Blowfish, ...): a module of its
    /// own, loaded at run time (`ossl-modules/legacy.so`).
    Legacy,
}

impl Provider {
    /// As the declarations and `OSSL_PROVIDER_load` name it.
    pub fn name(self) -> &'static str {
        match self {
            Provider::Legacy => "legacy",
        }
    }

    /// Its module's file, in OpenSSL's modules directory.
    pub fn module(self) -> &'static str {
        match self {
            Provider::Legacy => "legacy.so",
        }
    }
}

/// Why a library peer does not run a case: what it offers leaves it out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NotOffered {
    /// The mode, which it does not offer.
    Mode(Mode),
    /// A key of this many bytes (each of XTS's two keys), which its
    /// algorithm does not take.
    KeyLength(usize),
}

impl Library {
    /// What the artifact is told at build time (`INLINELAB_LIBRARY_ALGORITHM`,
    /// the environment `variants/artifact` reads): `0-1024=CAST5`,
    /// `16-16=AES,24-24=AES192,32-32=AES256`.
    pub fn algorithm_env(&self) -> String {
        (self.algorithm.iter())
            .map(|(len, name)| format!("{}-{}={name}", len.shortest, len.longest))
            .collect::<Vec<_>>()
            .join(",")
    }

    /// Whether it runs `mode` under a key of `key_bytes` (XTS's two keys,
    /// each half of them), or why not.
    pub fn offers(&self, mode: Mode, key_bytes: usize) -> Result<(), NotOffered> {
        if !self.modes.contains(&mode) {
            return Err(NotOffered::Mode(mode));
        }
        let one = if mode == Mode::Xts {
            key_bytes / 2
        } else {
            key_bytes
        };
        let whole = mode != Mode::Xts || key_bytes.is_multiple_of(2);
        if whole && self.algorithm.iter().any(|(l, _)| l.contains(one)) {
            Ok(())
        } else {
            Err(NotOffered::KeyLength(one))
        }
    }

    /// What it offers, in words: `16-byte keys in ECB, CBC and CTR`.
    pub fn offered(&self) -> String {
        let every = self.algorithm.iter().all(|(l, _)| l.shortest == 0);
        let keys: Vec<String> = (self.algorithm.iter())
            .map(|(l, _)| l.to_string())
            .collect();
        let modes: Vec<String> = (self.modes.iter())
            .map(|m| m.name().to_uppercase())
            .collect();
        let keys = if every {
            "every key length".to_string()
        } else {
            format!("{} keys", and_list(&keys))
        };
        format!("{keys} in {}", and_list(&modes))
    }
}

/// `a`, `a and b`, `a, b and c`.
fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [most @ .., last] => format!("{} and {last}", most.join(", ")),
    }
}
