//! A block cipher, hash, MAC, universal hash, stream cipher or AEAD of a
//! crate this workspace did not write
//! (`cargo xtask compare --crate`): what the intake learned of it (its block
//! size, the key lengths its type takes, its digest's length, the variants
//! built from a copy of it), made
//! into a `CipherEntry` at run time (`registry::CipherEntry::of_crate`), and handed to the measuring
//! processes as JSON, since they cannot find it in the registry.
//!
//! Its variants exist only as artifacts (no static engine): the oracle
//! every one is checked against is the reference variant's artifact,
//! `published`, the crate as its users get it.

use crate::crate_libraries::Algorithm;
use crate::engine::Mode;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// The key lengths a crate's cipher may be timed with: of these, the
/// smallest and the largest its type takes, as the kernel's templates time
/// a cipher's smallest and largest key (cast6 16 and 32, blowfish 8 and
/// 32, cast5 8 and 16).
pub const STANDARD_KEYS: [usize; 4] = [8, 16, 24, 32];

/// What a crate's registry peer says it holds (`inlinelab_name`): the
/// crate unmodified, as cargo unpacked it, behind the same shim as the
/// variants.
pub const PEER_NAME: &str = "peer-registry";

/// The kinds of primitive a crate's type may be, as far as this harness
/// wraps them: which traits it implements, and so what the artifact wraps
/// it in. A new kind starts as an arm here and in [`Primitive`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// `cipher` 0.5's `KeyInit + BlockCipherEncrypt + BlockCipherDecrypt`.
    BlockCipher,
    /// `digest` 0.11's `Default + Update + FixedOutput`.
    Hash,
    /// `digest` 0.11's `KeyInit + Update + FixedOutput + Clone`: what its
    /// `Mac` is implemented over (less the marker trait), keyed, as
    /// `hmac::Hmac<sha2::Sha256>` is; streamed as a hash is, its context
    /// keyed by the MAC's key.
    Mac,
    /// `universal-hash` 0.6's `KeyInit + UniversalHash + Clone`, keyed, as
    /// `polyval::Polyval` and `poly1305::Poly1305` are; streamed as a hash
    /// is, whole blocks at a time: the digest of a message is its tag
    /// zero-padded to whole blocks (`update_padded`'s).
    UniversalHash,
    /// `cipher` 0.5's `KeyIvInit + StreamCipher`, as `chacha20::ChaCha20`
    /// is: keyed by `set_key`, each operation a fresh keystream from key
    /// and nonce applied to the whole buffer ([`Mode::Stream`]).
    StreamCipher,
    /// `aead` 0.6's `KeyInit + AeadInOut`, as `aes_gcm::Aes128Gcm` is:
    /// keyed by `set_key`, each operation an encryption (or decryption,
    /// its tag checked) with a nonce and associated data ([`Mode::Aead`]).
    Aead,
}

impl Kind {
    /// What the kind is called in a sentence: `block cipher`, `hash`,
    /// `MAC`, `universal hash`, `stream cipher`, `AEAD`.
    pub fn noun(self) -> &'static str {
        match self {
            Kind::BlockCipher => "block cipher",
            Kind::Hash => "hash",
            Kind::Mac => "MAC",
            Kind::UniversalHash => "universal hash",
            Kind::StreamCipher => "stream cipher",
            Kind::Aead => "AEAD",
        }
    }
}

/// What a crate's type is and what it takes, as the compiler said.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Primitive {
    BlockCipher {
        block_size: usize,
        /// Every key length from 1 to 64 bytes that `new_from_slice` takes.
        key_lengths: Vec<usize>,
    },
    Hash {
        /// Its digest's length in bytes (1 to `abi::MAX_DIGEST`).
        digest_size: usize,
    },
    Mac {
        /// Its tag's length in bytes (1 to `abi::MAX_DIGEST`).
        digest_size: usize,
        /// Every key length from 1 to 64 bytes that `new_from_slice` takes.
        key_lengths: Vec<usize>,
    },
    UniversalHash {
        /// Its block's length in bytes, which is its tag's (1 to
        /// `abi::MAX_DIGEST`).
        digest_size: usize,
        /// Every key length from 1 to 64 bytes that `new_from_slice` takes.
        key_lengths: Vec<usize>,
    },
    StreamCipher {
        /// Every key length from 1 to 64 bytes that `new_from_slices`
        /// takes (with a nonce of `iv_size` bytes).
        key_lengths: Vec<usize>,
        /// Its nonce's length in bytes (`IvSizeUser::IvSize`; 1 to
        /// `abi::MAX_IV`).
        iv_size: usize,
    },
    Aead {
        /// Every key length from 1 to 64 bytes that `new_from_slice` takes.
        key_lengths: Vec<usize>,
        /// Its nonce's length in bytes (`AeadCore::NonceSize`; 1 to
        /// `abi::MAX_IV`).
        nonce_size: usize,
        /// Its tag's length in bytes (`AeadCore::TagSize`; 1 to
        /// `abi::MAX_TAG`).
        tag_size: usize,
    },
}

impl Primitive {
    pub fn kind(&self) -> Kind {
        match self {
            Primitive::BlockCipher { .. } => Kind::BlockCipher,
            Primitive::Hash { .. } => Kind::Hash,
            Primitive::Mac { .. } => Kind::Mac,
            Primitive::UniversalHash { .. } => Kind::UniversalHash,
            Primitive::StreamCipher { .. } => Kind::StreamCipher,
            Primitive::Aead { .. } => Kind::Aead,
        }
    }

    /// The unit its input comes in: the block, or 1 byte for a hash, a
    /// MAC, a universal hash (whose artifact buffers a partial block), a
    /// stream cipher or an AEAD.
    pub fn block_size(&self) -> usize {
        match self {
            Primitive::BlockCipher { block_size, .. } => *block_size,
            Primitive::Hash { .. }
            | Primitive::Mac { .. }
            | Primitive::UniversalHash { .. }
            | Primitive::StreamCipher { .. }
            | Primitive::Aead { .. } => 1,
        }
    }

    /// The length of the IV its operations take: a block cipher's block,
    /// a stream cipher's or an AEAD's nonce; none for a hash, a MAC or a
    /// universal hash.
    pub fn iv_size(&self) -> Option<usize> {
        match self {
            Primitive::BlockCipher { block_size, .. } => Some(*block_size),
            Primitive::StreamCipher { iv_size, .. } => Some(*iv_size),
            Primitive::Aead { nonce_size, .. } => Some(*nonce_size),
            Primitive::Hash { .. } | Primitive::Mac { .. } | Primitive::UniversalHash { .. } => {
                None
            }
        }
    }

    /// Every key length it takes: a hash, the empty key only.
    pub fn key_lengths(&self) -> &[usize] {
        match self {
            Primitive::BlockCipher { key_lengths, .. }
            | Primitive::Mac { key_lengths, .. }
            | Primitive::UniversalHash { key_lengths, .. }
            | Primitive::StreamCipher { key_lengths, .. }
            | Primitive::Aead { key_lengths, .. } => key_lengths,
            Primitive::Hash { .. } => &[0],
        }
    }

    /// An AEAD's tag length.
    pub fn tag_size(&self) -> Option<usize> {
        match self {
            Primitive::Aead { tag_size, .. } => Some(*tag_size),
            _ => None,
        }
    }

    /// A hash's digest length, or a MAC's or a universal hash's tag's (an
    /// AEAD's tag is no digest: [`Primitive::tag_size`]).
    pub fn digest_size(&self) -> Option<usize> {
        match self {
            Primitive::BlockCipher { .. }
            | Primitive::StreamCipher { .. }
            | Primitive::Aead { .. } => None,
            Primitive::Hash { digest_size }
            | Primitive::Mac { digest_size, .. }
            | Primitive::UniversalHash { digest_size, .. } => Some(*digest_size),
        }
    }

    /// The modes it is timed in, with their key lengths: a block cipher's
    /// ([`CrateCipher::modes_for`], `None` when it takes no length this
    /// harness times), a hash's digest ([`CrateCipher::hash_modes`]), a
    /// MAC's or a universal hash's ([`CrateCipher::mac_modes`], `None`
    /// likewise), a stream cipher's keystream ([`CrateCipher::stream_modes`],
    /// `None` likewise), an AEAD's ([`CrateCipher::aead_modes`], likewise).
    pub fn modes(&self) -> Option<Vec<(Mode, Vec<usize>)>> {
        match self {
            Primitive::BlockCipher {
                block_size,
                key_lengths,
            } => CrateCipher::modes_for(*block_size, key_lengths),
            Primitive::Hash { .. } => Some(CrateCipher::hash_modes()),
            Primitive::Mac { key_lengths, .. } | Primitive::UniversalHash { key_lengths, .. } => {
                CrateCipher::mac_modes(key_lengths)
            }
            Primitive::StreamCipher { key_lengths, .. } => CrateCipher::stream_modes(key_lengths),
            Primitive::Aead { key_lengths, .. } => CrateCipher::aead_modes(key_lengths),
        }
    }
}

/// A crate's block cipher (or hash, MAC, universal hash, stream cipher or
/// AEAD), as the intake found it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CrateCipher {
    /// The report's name: `cast6` (`aes_aes128` when `--type` chose one of
    /// several types).
    pub name: String,
    /// `cast6@0.2.0`: what its variants' artifacts say they hold before
    /// `::variant`.
    pub module: String,
    /// The crate's library name, which prefixes its symbols: `cast6`
    /// (`md5` for the package `md-5`).
    pub lib_name: String,
    /// What it is and takes: each variant is checked under every key
    /// length ([`CrateCipher::checked`]); a hash's variants are also
    /// checked streamed (`sampling::check_hash`), a MAC's and a universal
    /// hash's under every key length (`sampling::check_mac`), a stream
    /// cipher's at every length under every key length, both directions
    /// (`sampling::check_stream`), an AEAD's likewise with associated data
    /// and its tag checked, a tampered one refused (`sampling::check_aead`).
    pub primitive: Primitive,
    /// The modes timed, with their key lengths ([`Primitive::modes`]).
    pub modes: Vec<(Mode, Vec<usize>)>,
    /// The variants built from copies of the crate, in build order.
    pub variants: Vec<String>,
    /// The variant ratios are taken against: the crate as published.
    pub reference: String,
    /// The registry crate itself, timed beside the variants, when it is one.
    pub peer: Option<String>,
    /// The artifact every variant is checked against before it is timed.
    pub oracle: PathBuf,
    /// The algorithm a C library has too, whose library peers are timed
    /// beside it (`registry::CipherEntry::of_crate`): a block cipher of
    /// the table's (`crate_libraries.rs`); `None` for any other, or in a
    /// run that times none (the suggested set's).
    #[serde(default)]
    pub algorithm: Option<Algorithm>,
}

/// The block counts a crate's variant is checked on before it is timed:
/// every count from 1 to 40 (each tail a mode loop of up to 40 blocks at a
/// time can leave), then counts past any batch.
pub fn check_blocks() -> Vec<usize> {
    (1..=40).chain([64, 1027]).collect()
}

impl CrateCipher {
    /// What a variant is checked in against the crate as published: every
    /// mode timed, under every key length the type takes (XTS, two keys of
    /// each length).
    pub fn checked(&self) -> Vec<(Mode, Vec<usize>)> {
        (self.modes.iter())
            .map(|(m, _)| {
                let keys = match m {
                    Mode::Xts => self.primitive.key_lengths().iter().map(|k| 2 * k).collect(),
                    _ => self.primitive.key_lengths().to_vec(),
                };
                (*m, keys)
            })
            .collect()
    }

    /// What a hash is timed in: its digest of the whole buffer, keyed with
    /// the empty key.
    pub fn hash_modes() -> Vec<(Mode, Vec<usize>)> {
        vec![(Mode::Digest, vec![0])]
    }

    /// What a MAC is timed in: its tag of the whole buffer (the hash
    /// template's lengths), under one key, the largest of
    /// [`STANDARD_KEYS`] it takes (HMAC 32 bytes, CMAC-AES-128 16), else
    /// its largest of 1 to 64 bytes; `None` when it takes none of those.
    pub fn mac_modes(accepted: &[usize]) -> Option<Vec<(Mode, Vec<usize>)>> {
        let standard = (STANDARD_KEYS.iter().rev()).find(|k| accepted.contains(k));
        let key = match standard {
            Some(&k) => k,
            None => accepted.iter().copied().filter(|&k| k <= 64).max()?,
        };
        Some(vec![(Mode::Digest, vec![key])])
    }

    /// What a stream cipher is timed in: its keystream applied to the
    /// whole buffer ([`Mode::Stream`], both directions, the lengths a
    /// digest is timed at), under one key chosen as a MAC's is
    /// ([`CrateCipher::mac_modes`]: ChaCha20's 32 bytes); `None` when it
    /// takes none of 1 to 64 bytes.
    pub fn stream_modes(accepted: &[usize]) -> Option<Vec<(Mode, Vec<usize>)>> {
        let keys = Self::mac_modes(accepted)?.into_iter().next()?.1;
        Some(vec![(Mode::Stream, keys)])
    }

    /// What an AEAD is timed in: encryption and decryption of the whole
    /// buffer with tcrypt's associated data ([`Mode::Aead`]), under one
    /// key chosen as a MAC's is ([`CrateCipher::mac_modes`]: AES-128-GCM's
    /// 16 bytes, ChaCha20-Poly1305's 32); `None` when it takes none of 1
    /// to 64 bytes.
    pub fn aead_modes(accepted: &[usize]) -> Option<Vec<(Mode, Vec<usize>)>> {
        let keys = Self::mac_modes(accepted)?.into_iter().next()?.1;
        Some(vec![(Mode::Aead, keys)])
    }

    /// The modes a block cipher of `block_size` bytes is timed in, with
    /// the key lengths of `accepted` (every length its type takes): ECB,
    /// CBC and CTR, and XTS for a 16-byte block (two keys); `None` when it
    /// takes no length this harness times.
    pub fn modes_for(block_size: usize, accepted: &[usize]) -> Option<Vec<(Mode, Vec<usize>)>> {
        let standard: Vec<usize> = (STANDARD_KEYS.iter().copied())
            .filter(|k| accepted.contains(k))
            .collect();
        let keys = match (standard.first(), standard.last()) {
            (Some(&a), Some(&b)) if a == b => vec![a],
            (Some(&a), Some(&b)) => vec![a, b],
            _ => {
                let max = accepted.iter().copied().filter(|&k| k <= 64).max()?;
                vec![max]
            }
        };
        let mut modes = vec![
            (Mode::Ecb, keys.clone()),
            (Mode::Cbc, keys.clone()),
            (Mode::Ctr, keys.clone()),
        ];
        if block_size == 16 {
            modes.push((Mode::Xts, keys.iter().map(|k| 2 * k).collect()));
        }
        Some(modes)
    }
}

/// A crate's cipher as the intake would learn it (cast6 0.2.0), for tests.
#[cfg(test)]
pub fn example() -> CrateCipher {
    CrateCipher {
        name: "cast6".into(),
        module: "cast6@0.2.0".into(),
        lib_name: "cast6".into(),
        primitive: Primitive::BlockCipher {
            block_size: 16,
            key_lengths: vec![16, 32],
        },
        modes: CrateCipher::modes_for(16, &[16, 32]).expect("16 and 32 are standard"),
        variants: vec!["published".into(), "none".into()],
        reference: "published".into(),
        peer: Some("cast6 0.2.0 (registry)".into()),
        oracle: "published.so".into(),
        algorithm: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The kernel's templates, derived: cast6 takes 16 to 32 bytes, blowfish
    /// 4 to 56, cast5 5 to 16, AES-128 16 only.
    #[test]
    fn key_lengths_are_the_smallest_and_largest_standard_ones() {
        let keys = |bs, accepted: &[usize]| CrateCipher::modes_for(bs, accepted).unwrap();
        let range = |a, b| (a..=b).collect::<Vec<usize>>();
        assert_eq!(keys(16, &range(16, 32))[0].1, [16, 32]);
        assert_eq!(keys(16, &range(16, 32))[3], (Mode::Xts, vec![32, 64]));
        assert_eq!(keys(8, &range(4, 56))[0].1, [8, 32]);
        assert_eq!(keys(8, &range(4, 56)).len(), 3, "no XTS for 8-byte blocks");
        assert_eq!(keys(8, &range(5, 16))[0].1, [8, 16]);
        assert_eq!(keys(16, &[16])[0].1, [16]);
        assert_eq!(keys(8, &[7])[0].1, [7], "no standard length: the largest");
        assert_eq!(CrateCipher::modes_for(16, &[]), None);
    }

    /// A MAC is timed under one key: HMAC's 32 bytes of the 1 to 64 it
    /// takes, CMAC-AES-128's 16, a MAC of 5-byte keys its 5; none without
    /// a key of 1 to 64 bytes. It is checked under every length it takes.
    #[test]
    fn a_mac_is_timed_under_its_largest_standard_key() {
        let range: Vec<usize> = (1..=64).collect();
        assert_eq!(
            CrateCipher::mac_modes(&range),
            Some(vec![(Mode::Digest, vec![32])])
        );
        let one = |accepted: &[usize]| CrateCipher::mac_modes(accepted).map(|m| m[0].1.clone());
        assert_eq!(one(&[16]), Some(vec![16]));
        assert_eq!(one(&[5]), Some(vec![5]));
        assert_eq!(one(&[]), None);
        let mac = Primitive::Mac {
            digest_size: 32,
            key_lengths: range.clone(),
        };
        assert_eq!(mac.kind(), Kind::Mac);
        assert_eq!((mac.block_size(), mac.digest_size()), (1, Some(32)));
        let cipher = CrateCipher {
            primitive: mac.clone(),
            modes: mac.modes().unwrap(),
            ..example()
        };
        assert_eq!(cipher.checked(), [(Mode::Digest, range)]);
    }

    /// A universal hash is timed and checked as a MAC is: POLYVAL under its
    /// one 16-byte key, Poly1305 its 32; its tag is its block.
    #[test]
    fn a_universal_hash_is_timed_under_its_key() {
        let polyval = Primitive::UniversalHash {
            digest_size: 16,
            key_lengths: vec![16],
        };
        assert_eq!(polyval.kind(), Kind::UniversalHash);
        assert_eq!(polyval.kind().noun(), "universal hash");
        assert_eq!((polyval.block_size(), polyval.digest_size()), (1, Some(16)));
        assert_eq!(polyval.modes(), Some(vec![(Mode::Digest, vec![16])]));
        let poly1305 = Primitive::UniversalHash {
            digest_size: 16,
            key_lengths: vec![32],
        };
        assert_eq!(poly1305.modes(), Some(vec![(Mode::Digest, vec![32])]));
        let none = Primitive::UniversalHash {
            digest_size: 16,
            key_lengths: vec![],
        };
        assert_eq!(none.modes(), None);
    }

    /// A stream cipher is timed under one key as a MAC is (ChaCha20's 32
    /// bytes; Salsa20's 32 of its 16 and 32), in its own mode, and checked
    /// under every key length it takes; its IV is its nonce.
    #[test]
    fn a_stream_cipher_is_timed_under_its_key() {
        let chacha = Primitive::StreamCipher {
            key_lengths: vec![32],
            iv_size: 12,
        };
        assert_eq!(chacha.kind(), Kind::StreamCipher);
        assert_eq!(chacha.kind().noun(), "stream cipher");
        assert_eq!((chacha.block_size(), chacha.digest_size()), (1, None));
        assert_eq!(chacha.iv_size(), Some(12));
        assert_eq!(chacha.modes(), Some(vec![(Mode::Stream, vec![32])]));
        let salsa = Primitive::StreamCipher {
            key_lengths: vec![16, 32],
            iv_size: 8,
        };
        let cipher = CrateCipher {
            primitive: salsa.clone(),
            modes: salsa.modes().unwrap(),
            ..example()
        };
        assert_eq!(cipher.modes, [(Mode::Stream, vec![32])]);
        assert_eq!(cipher.checked(), [(Mode::Stream, vec![16, 32])]);
        let none = Primitive::StreamCipher {
            key_lengths: vec![],
            iv_size: 8,
        };
        assert_eq!(none.modes(), None);
    }

    /// An AEAD is timed under one key as a MAC is (AES-128-GCM's 16 bytes),
    /// in its own mode, and checked under every key length it takes; its
    /// IV is its nonce, its tag no digest.
    #[test]
    fn an_aead_is_timed_under_its_key() {
        let gcm = Primitive::Aead {
            key_lengths: vec![16],
            nonce_size: 12,
            tag_size: 16,
        };
        assert_eq!(gcm.kind(), Kind::Aead);
        assert_eq!(gcm.kind().noun(), "AEAD");
        assert_eq!((gcm.block_size(), gcm.digest_size()), (1, None));
        assert_eq!((gcm.iv_size(), gcm.tag_size()), (Some(12), Some(16)));
        assert_eq!(gcm.modes(), Some(vec![(Mode::Aead, vec![16])]));
        let toy = Primitive::Aead {
            key_lengths: vec![16, 32],
            nonce_size: 8,
            tag_size: 16,
        };
        let cipher = CrateCipher {
            primitive: toy.clone(),
            modes: toy.modes().unwrap(),
            ..example()
        };
        assert_eq!(cipher.modes, [(Mode::Aead, vec![32])]);
        assert_eq!(cipher.checked(), [(Mode::Aead, vec![16, 32])]);
        let none = Primitive::Aead {
            key_lengths: vec![],
            nonce_size: 12,
            tag_size: 16,
        };
        assert_eq!(none.modes(), None);
    }
}
