//! The cases measured: ECB and CBC (or a checksum's digest, a MAC's tag,
//! a stream cipher's keystream, or an AEAD's encryption), both directions,
//! the kernel template's key sizes, the block sizes; and, for compare, key
//! setup at each key size (a MAC's, a stream cipher's and an AEAD's too).

use bench_harness::engine::{Dir, Mode};
use bench_harness::registry::CipherEntry;
use bench_harness::sampling::Case;
use serde::{Deserialize, Serialize};

/// Which of the kernel template's key sizes are timed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Keys {
    /// Every key size of each mode's template.
    #[default]
    All,
    /// Each mode's first key size only: most ciphers run the same code at
    /// every key size, but for the key schedule and the round count.
    First,
}

impl Keys {
    pub fn is_all(&self) -> bool {
        *self == Keys::All
    }

    /// The key sizes of a template's `keys` to time.
    fn of(self, keys: &[usize]) -> &[usize] {
        match self {
            Keys::All => keys,
            Keys::First => &keys[..keys.len().min(1)],
        }
    }
}

/// The cases of `entry` at `sizes` (each rounded up to whole cipher
/// blocks), at the key sizes `keys` says.
pub fn cases(entry: &CipherEntry, keys: Keys, sizes: &[usize]) -> Vec<Case> {
    let bs = entry.block_size;
    let sizes: Vec<usize> = sizes.iter().map(|s| s.div_ceil(bs) * bs).collect();
    let mut out = Vec::new();
    let which = keys;
    for &(mode, keys) in entry.modes.iter().filter(|(m, _)| {
        matches!(
            m,
            Mode::Ecb | Mode::Cbc | Mode::Digest | Mode::Stream | Mode::Aead
        )
    }) {
        let keys = which.of(keys);
        let dirs: &[Dir] = if mode == Mode::Digest {
            &[Dir::Encrypt]
        } else {
            &Dir::BOTH
        };
        for &dir in dirs {
            for &key_bytes in keys {
                for &block_bytes in &sizes {
                    out.push(Case::crypt(mode, dir, key_bytes, block_bytes));
                }
            }
        }
    }
    out
}

/// Whether a mode of `keys` is keyed: a block cipher's, or a MAC's digest
/// (a checksum's or a hash's digest takes the empty key).
fn keyed(mode: Mode, keys: &[usize]) -> bool {
    mode != Mode::Digest || keys.iter().any(|&k| k > 0)
}

/// Key setup of `entry`: one case per key size of its first block-cipher
/// mode's template (a MAC's digest's, a stream cipher's, an AEAD's) that
/// `which` says; none for a checksum or a hash, which have no key.
pub fn setkey(entry: &CipherEntry, which: Keys) -> Vec<Case> {
    let Some(&(mode, keys)) = entry.modes.iter().find(|(m, keys)| {
        matches!(m, Mode::Ecb | Mode::Cbc | Mode::Stream | Mode::Aead)
            || (*m == Mode::Digest && keyed(*m, keys))
    }) else {
        return Vec::new();
    };
    which
        .of(keys)
        .iter()
        .map(|&k| Case::set_key(mode, k))
        .collect()
}

/// The block sizes the gate counts a cipher at: one 16-byte block, tcrypt's
/// largest, and one that leaves a tail for any lane count: 1424 bytes is 89
/// 16-byte blocks (odd) or 178 8-byte blocks, and not a multiple of 64.
pub const GATE_SIZES: [usize; 3] = [16, 1424, 8192];

/// The payload lengths the kernel's tcrypt times an AEAD at
/// (`aead_sizes[]`, with `test_aead_speed`'s 16-byte tag and 8 bytes of
/// associated data, `bench_harness::engine::AEAD_AAD_BYTES`): the gate
/// counts an AEAD at each.
pub const AEAD_SIZES: [usize; 8] = [16, 64, 256, 512, 1024, 1420, 4096, 8192];

/// The lengths the gate counts a checksum at: the kernel hash template's
/// block lengths, and 1421 bytes, which leaves a tail for any method that
/// works a word (or eight) at a time.
pub fn gate_digest_sizes() -> Vec<usize> {
    let mut sizes: Vec<usize> = bench_harness::measure::HASH_TEMPLATE
        .iter()
        .map(|&(block, _)| block)
        .collect();
    sizes.push(1421);
    sizes.sort_unstable();
    sizes.dedup();
    sizes
}

/// What the gate counts instructions of (and the baseline files hold): every
/// mode the registry lists for `entry`, every key size of its template, both
/// directions, at [`GATE_SIZES`] (rounded up to whole blocks), or for a
/// checksum its digest at [`gate_digest_sizes`] (a stream cipher's
/// keystream at those lengths too, both directions; an AEAD's encryption
/// and decryption at tcrypt's [`AEAD_SIZES`]); then key setup at each key
/// size, once per keying (one key for ECB, CBC and CTR, which share it, and
/// two for XTS).
pub fn gate_cases(entry: &CipherEntry) -> Vec<Case> {
    let bs = entry.block_size;
    let block_sizes: Vec<usize> = GATE_SIZES.iter().map(|s| s.div_ceil(bs) * bs).collect();
    let digest_sizes = gate_digest_sizes();
    let mut out = Vec::new();
    for &(mode, keys) in entry.modes {
        let (dirs, sizes): (&[Dir], &[usize]) = match mode {
            Mode::Digest => (&[Dir::Encrypt], &digest_sizes),
            Mode::Stream => (&Dir::BOTH, &digest_sizes),
            Mode::Aead => (&Dir::BOTH, &AEAD_SIZES),
            _ => (&Dir::BOTH, &block_sizes),
        };
        for &dir in dirs {
            for &key_bytes in keys {
                for &block_bytes in sizes {
                    out.push(Case::crypt(mode, dir, key_bytes, block_bytes));
                }
            }
        }
    }
    // Key setup: a keying's key sizes from every mode that uses it, named by
    // the first such mode (`ecb(aes)`, `xts(aes)`; a MAC's digest). A
    // checksum or a hash has no key.
    let mut keyings: Vec<(Mode, Vec<usize>)> = Vec::new();
    for &(mode, keys) in entry.modes.iter().filter(|(m, keys)| keyed(*m, keys)) {
        let xts = mode == Mode::Xts;
        let at = keyings.iter().position(|(m, _)| (*m == Mode::Xts) == xts);
        let (_, sizes) = match at {
            Some(i) => &mut keyings[i],
            None => {
                keyings.push((mode, Vec::new()));
                keyings.last_mut().expect("just pushed")
            }
        };
        for &k in keys {
            if !sizes.contains(&k) {
                sizes.push(k);
            }
        }
    }
    for (mode, keys) in keyings {
        for k in keys {
            out.push(Case::set_key(mode, k));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use bench_harness::registry;

    fn key(c: &Case) -> String {
        format!(
            "{} {} {} {}",
            c.alg("x"),
            c.dir_name(),
            c.key_bytes * 8,
            c.block_bytes
        )
    }

    /// Every mode and key size of the template, both directions, the three
    /// sizes, and key setup per key size: AES has 3 + 3 + 3 + 2 key sizes
    /// over its four modes, so 11 * 2 * 3 crypt cases and 5 key setups.
    #[test]
    fn the_gate_counts_every_case_that_matters() {
        let aes = registry::cipher("aes").unwrap();
        let cases = gate_cases(aes);
        assert_eq!(cases.len(), 11 * 2 * 3 + 5);
        let keys: Vec<String> = cases.iter().map(key).collect();
        for want in [
            "ecb(x) encrypt 128 16",
            "cbc(x) decrypt 192 1424",
            "ctr(x) decrypt 256 8192",
            "xts(x) encrypt 512 1424",
            "ecb(x) setkey 192 0",
            "xts(x) setkey 256 0",
            "xts(x) setkey 512 0",
        ] {
            assert!(keys.iter().any(|k| k == want), "{want}: {keys:?}");
        }
        assert!(!keys.iter().any(|k| k.starts_with("cbc(x) setkey")));
        // Every case once.
        let mut unique = keys.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), keys.len());
        // 8-byte blocks: 1424 is whole blocks, as it is for 16-byte ones.
        let cast5 = gate_cases(registry::cipher("cast5").unwrap());
        assert!(cast5.iter().any(|c| c.block_bytes == 1424));
        assert_eq!(cast5.len(), 3 * 2 * 2 * 3 + 2);
        // A checksum: its digest at the hash template's lengths, no key setup.
        let crc = gate_cases(registry::cipher("crc32c").unwrap());
        let sizes: Vec<usize> = crc.iter().map(|c| c.block_bytes).collect();
        assert_eq!(sizes, [16, 64, 256, 1024, 1421, 2048, 4096, 8192]);
        assert!(crc.iter().all(|c| c.dir_name() == "digest"));
    }

    /// A MAC: its tag at the hash template's lengths under its key, and
    /// its key setup, in the gate and in compare.
    #[test]
    fn a_mac_is_counted_and_timed_with_its_key_setup() {
        use bench_harness::crates::{CrateCipher, Primitive};
        let primitive = Primitive::Mac {
            digest_size: 32,
            key_lengths: (1..=64).collect(),
        };
        let mac = CrateCipher {
            name: "mac".into(),
            module: "mac@1.0.0".into(),
            lib_name: "mac".into(),
            modes: primitive.modes().unwrap(),
            primitive,
            variants: vec!["published".into()],
            reference: "published".into(),
            peer: None,
            oracle: "published.so".into(),
            algorithm: None,
        };
        let entry = CipherEntry::of_crate(&mac);
        let keys: Vec<String> = gate_cases(entry).iter().map(key).collect();
        assert_eq!(keys.len(), gate_digest_sizes().len() + 1, "{keys:?}");
        assert!(keys.contains(&"x digest 256 1421".to_string()), "{keys:?}");
        assert_eq!(keys.last().map(String::as_str), Some("x setkey 256 0"));
        let timed: Vec<String> = setkey(entry, Keys::All).iter().map(key).collect();
        assert_eq!(timed, ["x setkey 256 0"]);
        // A checksum and a hash: no key setup.
        assert!(setkey(registry::cipher("crc32c").unwrap(), Keys::All).is_empty());
    }

    /// A stream cipher: its keystream in both directions at the hash
    /// template's lengths under its key, and its key setup, in the gate;
    /// in compare both directions at the sizes asked, whole (1-byte
    /// units), and its key setup.
    #[test]
    fn a_stream_cipher_is_counted_and_timed_both_ways_with_its_key_setup() {
        use bench_harness::crates::{CrateCipher, Primitive};
        let primitive = Primitive::StreamCipher {
            key_lengths: vec![32],
            iv_size: 12,
        };
        let chacha = CrateCipher {
            name: "chacha20".into(),
            module: "chacha20@0.10.2".into(),
            lib_name: "chacha20".into(),
            modes: primitive.modes().unwrap(),
            primitive,
            variants: vec!["published".into()],
            reference: "published".into(),
            peer: None,
            oracle: "published.so".into(),
            algorithm: None,
        };
        let entry = CipherEntry::of_crate(&chacha);
        let counted = gate_cases(entry);
        let keys: Vec<String> = counted.iter().map(key).collect();
        assert_eq!(keys.len(), 2 * gate_digest_sizes().len() + 1, "{keys:?}");
        for want in ["x encrypt 256 1421", "x decrypt 256 16", "x setkey 256 0"] {
            assert!(keys.iter().any(|k| k == want), "{want}: {keys:?}");
        }
        let timed: Vec<String> = cases(entry, Keys::All, &[13, 64]).iter().map(key).collect();
        assert_eq!(
            timed,
            [
                "x encrypt 256 13",
                "x encrypt 256 64",
                "x decrypt 256 13",
                "x decrypt 256 64"
            ]
        );
        let setkeys: Vec<String> = setkey(entry, Keys::All).iter().map(key).collect();
        assert_eq!(setkeys, ["x setkey 256 0"]);
    }

    /// An AEAD: encryption and decryption at tcrypt's AEAD sizes under its
    /// key, and its key setup, in the gate; in compare both directions at
    /// the sizes asked, whole (1-byte units), and its key setup.
    #[test]
    fn an_aead_is_counted_at_tcrypts_sizes_both_ways_with_its_key_setup() {
        use bench_harness::crates::{CrateCipher, Primitive};
        let primitive = Primitive::Aead {
            key_lengths: vec![16],
            nonce_size: 12,
            tag_size: 16,
        };
        let gcm = CrateCipher {
            name: "aes_gcm_aes128gcm".into(),
            module: "aes-gcm@0.11.1".into(),
            lib_name: "aes_gcm".into(),
            modes: primitive.modes().unwrap(),
            primitive,
            variants: vec!["published".into()],
            reference: "published".into(),
            peer: None,
            oracle: "published.so".into(),
            algorithm: None,
        };
        let entry = CipherEntry::of_crate(&gcm);
        let counted = gate_cases(entry);
        let keys: Vec<String> = counted.iter().map(key).collect();
        assert_eq!(keys.len(), 2 * AEAD_SIZES.len() + 1, "{keys:?}");
        for want in [
            "aead(x) encrypt 128 16",
            "aead(x) encrypt 128 1420",
            "aead(x) decrypt 128 8192",
            "aead(x) decrypt 128 512",
            "aead(x) setkey 128 0",
        ] {
            assert!(keys.iter().any(|k| k == want), "{want}: {keys:?}");
        }
        assert!(counted.iter().all(|c| matches!(c.mode, Mode::Aead)));
        let timed: Vec<String> = cases(entry, Keys::All, &[13, 64]).iter().map(key).collect();
        assert_eq!(
            timed,
            [
                "aead(x) encrypt 128 13",
                "aead(x) encrypt 128 64",
                "aead(x) decrypt 128 13",
                "aead(x) decrypt 128 64"
            ]
        );
        let setkeys: Vec<String> = setkey(entry, Keys::All).iter().map(key).collect();
        assert_eq!(setkeys, ["aead(x) setkey 128 0"]);
    }
}
