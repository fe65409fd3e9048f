//! Every algorithm the harness knows, by kernel name, with its variants, its
//! key-size templates and its RustCrypto peer, all derived from the
//! declarations in `variants` (`entry(...)` or `calibration(...)` beside each
//! `#[codegen::variants]`, through `variants::all_algorithms!`): a new cipher
//! in `variants` changes nothing here.
//!
//! A declaration's grammar is codegen's (`codegen/src/declaration.rs`),
//! which parses and validates it at the declaration and hands it on in one
//! fixed form: the macros below match that form and parse nothing again.
//!
//! The kernel name of an `entry` is its module's name; the block size is
//! its type's; a peer's driver is `<cipher>-<name>`.

use crate::UsageError;
use crate::crate_libraries::Algorithm;
use crate::crates::{self, CrateCipher};
use crate::engine::{Digest, DigestEngine, Engine, HashEngine, Mode, StaticCipher, StaticHash};

pub use crate::engine::MakeEngine;
pub use crate::library::{KeyLengths, Library, LibraryName, NotOffered, Provider};
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
    /// cipher's module with `variants::<cipher>_variants!(cipher_engines)`,
    /// each with its statically linked engine; a crate's variants exist only
    /// as artifacts (`None`).
    pub variants: &'static [(&'static str, Option<MakeEngine>)],
    /// `ROUNDS` of the cipher's module: the functions whose inlining differs.
    pub rounds: &'static [&'static str],
    /// The RustCrypto crates people use today, measured beside the variants;
    /// the first one with a static engine is the oracle (see
    /// [`CipherEntry::oracle`]).
    pub peers: &'static [Peer],
    /// The reference variant: the one `compare` takes ratios against unless
    /// told otherwise (`REFERENCE` of the cipher's module).
    pub reference: &'static str,
    /// For a cipher of a crate outside this workspace (`compare --crate`),
    /// what the intake learned of it, made at run time
    /// ([`CipherEntry::of_crate`]); `None` for a declaration of
    /// `variants`.
    pub from_crate: Option<&'static CrateCipher>,
}

impl CipherEntry {
    /// What every other implementation is checked against: the first peer
    /// with a static engine, or, for a cipher with no such peer, its
    /// reference variant (tested against the specification's vectors). A
    /// crate's oracle is an artifact ([`CrateCipher::oracle`]).
    pub fn oracle(&self) -> Option<MakeEngine> {
        self.peers.iter().find_map(|p| p.make).or_else(|| {
            self.variants
                .iter()
                .find(|(v, _)| *v == self.reference)
                .and_then(|(_, make)| *make)
        })
    }
}

impl CipherEntry {
    /// The entry of a crate's cipher, made once for the life of the process
    /// that measures it: entries are `'static`, as the registry's are, and a
    /// command measures one crate, so one is made (and kept) per process.
    pub fn of_crate(c: &CrateCipher) -> &'static CipherEntry {
        let me: &'static CrateCipher = Box::leak(Box::new(c.clone()));
        let modes: Vec<(Mode, &'static [usize])> =
            (me.modes.iter()).map(|(m, k)| (*m, &k[..])).collect();
        let variants: Vec<(&'static str, Option<MakeEngine>)> =
            me.variants.iter().map(|v| (v.as_str(), None)).collect();
        let mut peers: Vec<Peer> = (me.peer.iter())
            .map(|label| Peer {
                name: "registry",
                label: label.as_str(),
                crate_name: me.lib_name.as_str(),
                driver: Box::leak(format!("{}-registry", me.name).into_boxed_str()),
                make: None,
                feature: crates::PEER_NAME,
                rustflags: None,
                crate_features: &[],
                library: None,
            })
            .collect();
        peers.extend(library_peers(me));
        Box::leak(Box::new(CipherEntry {
            name: me.name.as_str(),
            module: me.module.as_str(),
            block_size: me.primitive.block_size(),
            modes: Box::leak(modes.into_boxed_slice()),
            variants: Box::leak(variants.into_boxed_slice()),
            rounds: &[],
            peers: Box::leak(peers.into_boxed_slice()),
            reference: me.reference.as_str(),
            from_crate: Some(me),
        }))
    }
}

/// The C libraries' peers of a crate's block cipher whose algorithm a
/// library has too ([`CrateCipher::algorithm`], `crate_libraries.rs`), as
/// a declaration's `libraries: [...]` makes them: built from this
/// workspace's artifact (`peer-libgcrypt`, `peer-openssl`), no static
/// engine (the oracle stays the crate as published).
fn library_peers(me: &'static CrateCipher) -> Vec<Peer> {
    let block = me.primitive.block_size();
    let of_block = me.primitive.kind() == crates::Kind::BlockCipher;
    let libraries = (me.algorithm.filter(|_| of_block)).map_or(&[][..], Algorithm::libraries);
    (libraries.iter())
        .filter(|l| l.library.block == block)
        .map(|l| Peer {
            name: l.name,
            label: l.label,
            crate_name: "inlinelab_artifact",
            driver: Box::leak(format!("{}-{}", me.name, l.name).into_boxed_str()),
            make: None,
            feature: l.library.name.feature(),
            rustflags: None,
            crate_features: &[],
            library: Some(l.library),
        })
        .collect()
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
    /// Features of the peer's crate its artifact build turns on (`zeroize`).
    pub crate_features: &'static [&'static str],
    /// For a C library's implementation, which library and its name for the
    /// algorithm: the artifact wraps the library's own API (`crate_name` is
    /// then the artifact's, whose wrapper is all the artifact holds).
    pub library: Option<Library>,
}

/// The environment variables that tell a library peer's artifact build its
/// algorithm ([`Library::algorithm_env`]), block size and provider
/// ([`Provider::name`], unset for none).
pub const LIBRARY_ALGORITHM_ENV: &str = "INLINELAB_LIBRARY_ALGORITHM";
pub const LIBRARY_BLOCK_ENV: &str = "INLINELAB_LIBRARY_BLOCK";
pub const LIBRARY_PROVIDER_ENV: &str = "INLINELAB_LIBRARY_PROVIDER";

/// A hash of this workspace (a checksum, `digest_null`), measured with the
/// kernel's hash template.
pub struct HashEntry {
    pub name: &'static str,
    /// The module of `variants` that declares it.
    pub module: &'static str,
    pub variants: &'static [(&'static str, MakeHash)],
}

/// `(name, make)` for each variant of a cipher (as a cipher engine) or of a
/// checksum (as a digest engine).
macro_rules! engines {
    ($c:ident, cipher($ty:ident), [$($v:ident)*]) => {
        &[$((stringify!($v), Some(|| -> Box<dyn Engine> {
            Box::new(StaticCipher::<variants::$c::$v::$ty>::checked(
                concat!(stringify!($c), "-", stringify!($v)),
                variants::$c::$v::$ty::available,
            ))
        }))),*]
    };
    ($c:ident, checksum, [$($v:ident)*]) => {
        &[$((stringify!($v), Some(|| -> Box<dyn Engine> {
            use variants::$c::$v as m;
            Box::new(DigestEngine::new(
                concat!(stringify!($c), "-", stringify!($v)),
                |data| Digest::of_u32(m::crc32c(data)),
                m::available,
            ))
        }))),*]
    };
}

/// The block size of a cipher's (or, 1, of a checksum's) variants, from the
/// type of its first variant.
macro_rules! block_size {
    ($c:ident, cipher($ty:ident), $v:ident) => {
        <<variants::$c::$v::$ty as cipher::BlockSizeUser>::BlockSize as cipher::typenum::Unsigned>::USIZE
    };
    ($c:ident, checksum, $v:ident) => {
        1
    };
}

/// The [`CipherEntry`] of one declaration: `entry(modes: [...], peers:
/// [...])`, or `calibration(kernel: NAME, modes: [...], hash: ...)`.
macro_rules! cipher_entry {
    (
        $c:ident, $kind:ident $(($ty:ident))?, [$v0:ident $($v:ident)*], $name:expr,
        [$($mode:ident: [$($k:literal),*]),* $(,)?], [$($peers:tt)*], [$($libraries:tt)*]
    ) => {
        CipherEntry {
            name: $name,
            module: stringify!($c),
            block_size: block_size!($c, $kind $(($ty))?, $v0),
            modes: &[$((Mode::$mode, &[$($k),*])),*],
            variants: engines!($c, $kind $(($ty))?, [$v0 $($v)*]),
            rounds: variants::$c::ROUNDS,
            peers: &peers!(
                $c, block_size!($c, $kind $(($ty))?, $v0), [$($peers)*] [$($libraries)*]
            ),
            reference: variants::$c::REFERENCE,
            from_crate: None,
        }
    };
}

/// The engine a peer's static build makes, by how it is keyed: one type
/// (`cipher(Cast6)`), a type per key length (`by_length(16 => Aes128,
/// ...)`), or a checksum's append function (`digest(crc32c_append)`: the
/// checksum of `data` is `crc32c_append(0, data)`).
macro_rules! peer_engine {
    ($driver:expr, $krate:ident, cipher($ty:ident)) => {
        || Box::new(StaticCipher::<::$krate::$ty>::new($driver))
    };
    ($driver:expr, $krate:ident, by_length($($len:literal => $ty:ident),+ $(,)?)) => {
        || {
            static BY_LENGTH: &[(usize, MakeEngine)] = &[$(($len, || {
                Box::new(StaticCipher::<::$krate::$ty>::new($driver))
            })),+];
            Box::new(crate::engine::ByKeyLength::new($driver, BY_LENGTH))
        }
    };
    ($driver:expr, $krate:ident, digest($f:ident)) => {
        || Box::new(DigestEngine::new($driver, |data| Digest::of_u32(::$krate::$f(0, data)), || true))
    };
}

/// `Some` of the one literal given, `None` of none.
macro_rules! first {
    () => {
        None
    };
    ($x:literal) => {
        Some($x)
    };
}

/// A declaration's `provider: [p]` as an `Option<Provider>`.
macro_rules! provider {
    () => {
        None
    };
    (legacy) => {
        Some(Provider::Legacy)
    };
}

/// A declaration's `library: NAME` as a [`LibraryName`].
macro_rules! library_name {
    (libgcrypt) => {
        LibraryName::Libgcrypt
    };
    (openssl) => {
        LibraryName::Openssl
    };
}

/// The [`Peer`]s of a cipher's `peers: [...]`: each peer crate, statically
/// linked, then each of its `builds` (the same crate, built only as an
/// artifact with other `RUSTFLAGS` or features of its own). Its feature is
/// `peer-<crate>`.
macro_rules! peers {
    (
        $c:ident, $block:expr,
        [$($name:literal {
            label: $label:literal,
            krate: $krate:ident,
            keyed: $keyed:ident $how:tt,
            builds: [$($build:literal {
                label: $blabel:literal,
                rustflags: [$($flags:literal)?],
                features: [$($feature:literal),*]
            }),*]
        }),*]
        [$($lname:literal {
            label: $llabel:literal,
            library: $library:ident,
            algorithm: [$($lo:literal ..= $hi:literal => $algo:literal),*],
            modes: [$($lmode:ident),*],
            provider: [$($provider:ident)?]
        }),*]
    ) => {
        [$(
            Peer {
                name: $name,
                label: $label,
                crate_name: stringify!($krate),
                driver: concat!(stringify!($c), "-", $name),
                make: Some(peer_engine!(concat!(stringify!($c), "-", $name), $krate, $keyed $how)),
                feature: concat!("peer-", stringify!($krate)),
                rustflags: None,
                crate_features: &[],
                library: None,
            },
            $(Peer {
                name: $build,
                label: $blabel,
                crate_name: stringify!($krate),
                driver: concat!(stringify!($c), "-", $build),
                make: None,
                feature: concat!("peer-", stringify!($krate)),
                rustflags: first!($($flags)?),
                crate_features: &[$($feature),*],
                library: None,
            },)*
        )*
        $(Peer {
            name: $lname,
            label: $llabel,
            crate_name: "inlinelab_artifact",
            driver: concat!(stringify!($c), "-", $lname),
            make: None,
            feature: concat!("peer-", stringify!($library)),
            rustflags: None,
            crate_features: &[],
            library: Some(Library {
                name: library_name!($library),
                algorithm: &[$((KeyLengths { shortest: $lo, longest: $hi }, $algo)),*],
                modes: &[$(Mode::$lmode),*],
                provider: provider!($($provider)?),
                block: $block,
            }),
        },)*]
    };
}

/// The entries of one role among the declarations, in their order:
/// `@entry` the ciphers, `@calibration` the harness's own, `@hash` the
/// hashes (each checksum, and a calibration's `hash`).
macro_rules! select {
    (@$role:ident [$($done:tt)*]) => { [$($done)*] };
    (
        @entry [$($done:tt)*]
        entry {
            cipher: $c:ident, kind: $kind:ident $(($ty:ident))?, variants: $v:tt,
            modes: $modes:tt, peers: $peers:tt, libraries: $libraries:tt $(,)?
        } $($rest:tt)*
    ) => {
        select!(@entry [$($done)* cipher_entry!(
            $c, $kind $(($ty))?, $v, stringify!($c), $modes, $peers, $libraries
        ),] $($rest)*)
    };
    (
        @calibration [$($done:tt)*]
        calibration {
            cipher: $c:ident, kind: $kind:ident $(($ty:ident))?, variants: $v:tt,
            kernel: $name:ident, modes: $modes:tt, hash: $hash:tt
        } $($rest:tt)*
    ) => {
        select!(@calibration [$($done)* cipher_entry!(
            $c, $kind $(($ty))?, $v, stringify!($name), $modes, [], []
        ),] $($rest)*)
    };
    (
        @hash [$($done:tt)*]
        $role:ident { cipher: $c:ident, kind: checksum, variants: [$($v:ident)*], $($facts:tt)* }
        $($rest:tt)*
    ) => {
        select!(@hash [$($done)* HashEntry {
            name: stringify!($c),
            module: stringify!($c),
            variants: &[$((stringify!($v), || -> Box<dyn HashEngine> {
                use variants::$c::$v as m;
                Box::new(StaticHash {
                    name: concat!(stringify!($c), "-", stringify!($v)).into(),
                    init: || 0,
                    update: m::crc32c_append,
                    finish: |s| s,
                    state: 0,
                    available: m::available,
                })
            })),*],
        },] $($rest)*)
    };
    (
        @hash [$($done:tt)*]
        calibration {
            cipher: $c:ident, kind: $kind:ident $(($ty:ident))?, variants: [$($v:ident)*],
            kernel: $name:ident, modes: $modes:tt,
            hash: [$hash:ident($init:ident, $update:ident, $finish:ident)]
        } $($rest:tt)*
    ) => {
        select!(@hash [$($done)* HashEntry {
            name: stringify!($hash),
            module: stringify!($c),
            variants: &[$((stringify!($v), || -> Box<dyn HashEngine> {
                use variants::$c::$v as m;
                Box::new(StaticHash {
                    name: concat!(stringify!($hash), "-", stringify!($v)).into(),
                    init: m::$init,
                    update: m::$update,
                    finish: m::$finish,
                    state: 0,
                    available: || true,
                })
            })),*],
        },] $($rest)*)
    };
    (@$want:ident [$($done:tt)*] $role:ident { $($decl:tt)* } $($rest:tt)*) => {
        select!(@$want [$($done)*] $($rest)*)
    };
}

/// The registry's three lists, from every declaration `variants` holds.
macro_rules! registry {
    ($($decls:tt)*) => {
        /// The ciphers (each `entry(...)` declaration), in `--list` order,
        /// which is `variants/src/lib.rs`'s: every one is compared and gated.
        pub static CIPHERS: &[CipherEntry] = &select!(@entry [] $($decls)*);

        /// What measures the harness itself rather than a cipher (each
        /// `calibration(...)` declaration): `ecb(cipher_null)` (tcrypt lists
        /// it; compare and the gate, which measure ciphers against their
        /// peers, do not).
        pub static CALIBRATION: &[CipherEntry] = &select!(@calibration [] $($decls)*);

        /// The hashes, in `--list` order: each checksum, and each
        /// calibration's `hash` (`digest_null`).
        pub static HASHES: &[HashEntry] = &select!(@hash [] $($decls)*);
    };
}

variants::all_algorithms!(registry);

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

    /// What a library peer offers is its declaration's: libgcrypt's CAST5
    /// 16-byte keys in every mode of the entry, OpenSSL's 5 to 16 bytes in
    /// ECB and CBC (its legacy provider); a case outside it says why.
    #[test]
    fn library_peers_offer_what_they_declare() {
        let cast5 = cipher("cast5").unwrap();
        let library = |name: &str| {
            (cast5.peers.iter())
                .find(|p| p.name == name)
                .and_then(|p| p.library)
                .unwrap_or_else(|| panic!("no library peer {name}"))
        };
        let gcrypt = library("libgcrypt");
        assert_eq!(gcrypt.offers(Mode::Ecb, 16), Ok(()));
        assert_eq!(gcrypt.offers(Mode::Ctr, 16), Ok(()));
        assert_eq!(gcrypt.offers(Mode::Ecb, 8), Err(NotOffered::KeyLength(8)));
        assert_eq!(gcrypt.provider, None);
        assert_eq!(gcrypt.offered(), "16-byte keys in ECB, CBC and CTR");
        let openssl = library("openssl");
        assert_eq!(openssl.offers(Mode::Cbc, 8), Ok(()));
        assert_eq!(openssl.offers(Mode::Ecb, 4), Err(NotOffered::KeyLength(4)));
        assert_eq!(
            openssl.offers(Mode::Ctr, 16),
            Err(NotOffered::Mode(Mode::Ctr))
        );
        assert_eq!(openssl.provider, Some(Provider::Legacy));
        assert_eq!(openssl.offered(), "5- to 16-byte keys in ECB and CBC");
        assert_eq!(openssl.algorithm_env(), "5-16=CAST5");
        // XTS's two keys: each half of the bytes.
        let aes = cipher("aes").unwrap();
        let gcrypt = (aes.peers.iter()).find_map(|p| p.library).unwrap();
        assert_eq!(gcrypt.offers(Mode::Xts, 64), Ok(()));
        assert_eq!(gcrypt.offers(Mode::Xts, 40), Err(NotOffered::KeyLength(20)));
    }

    /// A crate's entry, made at run time, says what the registry's say:
    /// its variants by name (no static engine), its peer, and itself.
    #[test]
    fn a_crates_entry_holds_what_was_learned() {
        let c = crates::example();
        let e = CipherEntry::of_crate(&c);
        assert_eq!(
            (e.name, e.module, e.reference),
            ("cast6", "cast6@0.2.0", "published")
        );
        assert_eq!(e.variants.len(), 2);
        assert!(e.variants.iter().all(|(_, make)| make.is_none()));
        assert!(e.oracle().is_none(), "a crate's oracle is an artifact");
        assert_eq!(e.peers[0].crate_name, "cast6");
        assert_eq!(e.from_crate, Some(&c));
    }

    /// A crate's block cipher a library has too (`crate_libraries.rs`)
    /// has that library's peer after the registry crate, built by the
    /// artifact's feature a declaration's would be (the oracle stays the
    /// crate as published); with no algorithm, or a block the library's is
    /// not, none.
    #[test]
    fn a_crates_entry_has_the_libraries_of_its_algorithm() {
        let twofish = CrateCipher {
            name: "twofish".into(),
            module: "twofish@0.8.0".into(),
            lib_name: "twofish".into(),
            algorithm: Some(Algorithm::Twofish),
            ..crates::example()
        };
        let e = CipherEntry::of_crate(&twofish);
        let names: Vec<&str> = e.peers.iter().map(|p| p.name).collect();
        assert_eq!(names, ["registry", "libgcrypt"]);
        let gcrypt = &e.peers[1];
        assert_eq!(
            (gcrypt.feature, gcrypt.driver, gcrypt.crate_name),
            ("peer-libgcrypt", "twofish-libgcrypt", "inlinelab_artifact")
        );
        assert!(gcrypt.make.is_none() && e.oracle().is_none());
        let library = gcrypt.library.unwrap();
        assert_eq!(
            library.offers(Mode::Ctr, 24),
            Err(NotOffered::KeyLength(24))
        );
        assert_eq!(library.offers(Mode::Ctr, 32), Ok(()));
        // The declarations' peers are built by the same feature.
        for p in CIPHERS.iter().flat_map(|c| c.peers) {
            if let Some(l) = p.library {
                assert_eq!(p.feature, l.name.feature(), "{}", p.driver);
            }
        }
        let none = CipherEntry::of_crate(&crates::example());
        assert_eq!(none.peers.len(), 1);
        let wrong_block = CrateCipher {
            algorithm: Some(Algorithm::Des),
            ..crates::example()
        };
        assert_eq!(CipherEntry::of_crate(&wrong_block).peers.len(), 1);
    }

    /// The registry lists exactly the variants each module declares, and
    /// every declared algorithm has an entry.
    #[test]
    fn variants_match_declarations() {
        let names = |v: &[(&'static str, Option<MakeEngine>)]| v.iter().map(|(n, _)| *n).collect();
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

    /// What a peer crate cannot derive from its declaration, its dependency
    /// lines, is there for every declared peer: the workspace dependency, a
    /// dev profile that optimizes it (the oracle runs in tests), the
    /// artifact's optional dependency and its `peer-<crate>` feature, and
    /// the harness's dependency (its static engine); for a library peer,
    /// the artifact's `peer-<library>` feature. And the README's list
    /// of what `compare all` reports on is the list of ciphers.
    #[test]
    fn dependency_lines_match_declarations() {
        let read = |path: &str| -> toml::Table {
            let path = format!("{}/../{path}", env!("CARGO_MANIFEST_DIR"));
            let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
            text.parse().unwrap_or_else(|e| panic!("{path}: {e}"))
        };
        let root = read("Cargo.toml");
        let artifact = read("variants/artifact/Cargo.toml");
        let harness = read("bench-harness/Cargo.toml");
        let has = |t: &toml::Table, keys: &[&str]| {
            let mut v = t.get(keys[0]);
            for k in &keys[1..] {
                v = v.and_then(|v| v.get(k));
            }
            v.is_some()
        };
        // A library peer's line is its artifact feature.
        for p in CIPHERS.iter().flat_map(|c| c.peers) {
            let Some(library) = p.library else { continue };
            let feature = format!("peer-{}", library.name.name());
            assert_eq!(p.feature, feature, "{}", p.driver);
            assert!(
                has(&artifact, &["features", &feature]),
                "variants/artifact/Cargo.toml: no feature {feature} for {}",
                p.driver
            );
        }
        for p in CIPHERS
            .iter()
            .flat_map(|c| c.peers)
            .filter(|p| p.library.is_none())
        {
            let k = p.crate_name;
            let feature = format!("peer-{k}");
            assert_eq!(p.feature, feature, "{}", p.driver);
            let lines: [(&str, &toml::Table, Vec<&str>); 5] = [
                ("Cargo.toml", &root, vec!["workspace", "dependencies", k]),
                ("Cargo.toml", &root, vec!["profile", "dev", "package", k]),
                (
                    "variants/artifact/Cargo.toml",
                    &artifact,
                    vec!["dependencies", k],
                ),
                (
                    "variants/artifact/Cargo.toml",
                    &artifact,
                    vec!["features", &feature],
                ),
                (
                    "bench-harness/Cargo.toml",
                    &harness,
                    vec!["dependencies", k],
                ),
            ];
            for (file, table, keys) in lines {
                assert!(
                    has(table, &keys),
                    "{file}: no `{}` for peer crate {k}",
                    keys.join(".")
                );
            }
        }
        let readme = include_str!("../../README.md");
        let listed = readme
            .split_once("writes a report per cipher\n(")
            .or_else(|| readme.split_once("writes a report per cipher ("))
            .and_then(|(_, rest)| rest.split_once(')'))
            .map(|(list, _)| {
                list.split(',')
                    .map(|n| n.trim().to_lowercase())
                    .collect::<Vec<_>>()
            })
            .expect("README.md: `writes a report per cipher (...)`");
        let names: Vec<String> = CIPHERS.iter().map(|c| c.name.to_string()).collect();
        assert_eq!(listed, names, "README.md's list of ciphers");
    }

    /// Every cipher has an oracle: its peer where it has one with a static
    /// engine, else its reference variant.
    #[test]
    fn every_cipher_has_an_oracle() {
        for c in CIPHERS.iter().chain(CALIBRATION) {
            let oracle = c
                .oracle()
                .unwrap_or_else(|| panic!("{}: no oracle", c.name));
            let want = match c.peers.iter().find_map(|p| p.make.map(|_| p.driver)) {
                Some(driver) => driver.to_string(),
                None => format!("{}-{}", c.module, c.reference),
            };
            assert_eq!(oracle().name(), want, "{}", c.name);
        }
    }

    /// Each variant engine takes every template key size of every mode.
    #[test]
    fn template_keys_are_accepted() {
        for c in CIPHERS.iter().chain(CALIBRATION) {
            for &(mode, keys) in c.modes {
                for &k in keys {
                    for (v, make) in c.variants {
                        let make = make.unwrap_or_else(|| panic!("{v}: no static engine"));
                        make()
                            .set_key(mode, &crate::engine::timing_key(mode, k))
                            .unwrap_or_else(|e| {
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
