//! What a case is, as a report weighs it: the operation of one (encrypt,
//! decrypt, digest, key setup) and the family of modes it belongs to. No
//! other type of the report's is needed here, so that a file the report's
//! model names (`ran.rs`) may name these without naming the model.

use serde::{Deserialize, Serialize};
use std::fmt;

/// What one operation of a case is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Operation {
    Encrypt,
    Decrypt,
    Digest,
    /// Key setup: one key of `key_bits` replacing the previous one.
    Setkey,
}

impl Operation {
    pub fn name(self) -> &'static str {
        match self {
            Operation::Encrypt => "encrypt",
            Operation::Decrypt => "decrypt",
            Operation::Digest => "digest",
            Operation::Setkey => "setkey",
        }
    }

    /// Whether it processes bytes (everything but key setup).
    pub fn is_crypt(self) -> bool {
        self != Operation::Setkey
    }

    /// The direction of a harness case.
    pub fn of(case: &bench_harness::sampling::Case) -> Operation {
        use bench_harness::engine::{Dir as CaseDir, Mode};
        use bench_harness::sampling::CaseKind;
        match (case.kind, case.mode, case.dir) {
            (CaseKind::SetKey, _, _) => Operation::Setkey,
            (CaseKind::Crypt, Mode::Digest, _) => Operation::Digest,
            (CaseKind::Crypt, _, CaseDir::Encrypt) => Operation::Encrypt,
            (CaseKind::Crypt, _, CaseDir::Decrypt) => Operation::Decrypt,
        }
    }
}

impl fmt::Display for Operation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The modes a reviewer weighs apart: a parallel mode hands the cipher
/// several blocks at once (where lanes help), CBC encryption one block at
/// a time, each waiting for the previous (where they cannot); key setup is
/// not averaged in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Family {
    /// ECB, CTR, XTS, and CBC decryption.
    Parallel,
    /// CBC encryption: serial.
    Serial,
    /// A checksum's digest.
    Digest,
    /// A MAC's tag: a digest under a key.
    Mac,
    /// A stream cipher's keystream applied (`chacha20`: a kernel name
    /// without a mode).
    Stream,
    /// An AEAD's encryption or decryption (`aead(toyaead)`).
    Aead,
    Setkey,
}

impl Family {
    pub const ALL: [Family; 7] = [
        Family::Parallel,
        Family::Serial,
        Family::Digest,
        Family::Mac,
        Family::Stream,
        Family::Aead,
        Family::Setkey,
    ];

    /// The family of a case of `alg` (the kernel's `mode(cipher)`) in `dir`
    /// under a key of `key_bits`: a digest under a key is a MAC's; an
    /// encryption or decryption of an algorithm named without a mode
    /// (`chacha20`, `Mode::Stream`'s name) is a stream cipher's, of one
    /// named `aead(...)` (`Mode::Aead`'s) an AEAD's.
    pub fn of_case(alg: &str, dir: Operation, key_bits: usize) -> Family {
        match dir {
            Operation::Setkey => Family::Setkey,
            Operation::Digest if key_bits > 0 => Family::Mac,
            Operation::Digest => Family::Digest,
            Operation::Encrypt | Operation::Decrypt if !alg.contains('(') => Family::Stream,
            Operation::Encrypt | Operation::Decrypt if alg.starts_with("aead(") => Family::Aead,
            Operation::Encrypt if alg.starts_with("cbc(") => Family::Serial,
            Operation::Encrypt | Operation::Decrypt => Family::Parallel,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Family::Parallel => "parallel modes",
            Family::Serial => "CBC encryption",
            Family::Digest => "digest",
            Family::Mac => "MAC",
            Family::Stream => "stream cipher",
            Family::Aead => "AEAD",
            Family::Setkey => "key setup",
        }
    }
}

/// A case as the gate's rows and the baseline file name it: `ecb(aes)
/// encrypt 128-bit 16 B`, or `ecb(aes) setkey 128-bit` for key setup
/// (`block_bytes` 0).
pub fn case_name(alg: &str, dir: Operation, key_bits: usize, block_bytes: usize) -> String {
    if block_bytes == 0 {
        format!("{alg} {dir} {key_bits}-bit")
    } else {
        format!("{alg} {dir} {key_bits}-bit {block_bytes} B")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stream cipher's encryption and decryption (an algorithm named
    /// without a mode, `chacha20`) are its own family; a block cipher's
    /// modes and a MAC keep theirs.
    #[test]
    fn a_stream_cipher_is_a_family_of_its_own() {
        for dir in [Operation::Encrypt, Operation::Decrypt] {
            assert_eq!(Family::of_case("chacha20", dir, 256), Family::Stream);
        }
        assert_eq!(Family::Stream.name(), "stream cipher");
        assert_eq!(
            Family::of_case("chacha20", Operation::Setkey, 256),
            Family::Setkey
        );
        assert_eq!(
            Family::of_case("ctr(aes)", Operation::Encrypt, 128),
            Family::Parallel
        );
        assert_eq!(
            Family::of_case("cbc(aes)", Operation::Encrypt, 128),
            Family::Serial
        );
        assert_eq!(Family::of_case("hmac", Operation::Digest, 256), Family::Mac);
    }

    /// An AEAD's encryption and decryption (`aead(NAME)`, `Mode::Aead`'s
    /// name) are its own family, not a parallel mode's.
    #[test]
    fn an_aead_is_a_family_of_its_own() {
        use bench_harness::engine::Mode;
        let alg = Mode::Aead.alg("aes_gcm_aes128gcm");
        assert_eq!(alg, "aead(aes_gcm_aes128gcm)");
        for dir in [Operation::Encrypt, Operation::Decrypt] {
            assert_eq!(Family::of_case(&alg, dir, 128), Family::Aead);
        }
        assert_eq!(Family::Aead.name(), "AEAD");
        assert_eq!(
            Family::of_case(&alg, Operation::Setkey, 128),
            Family::Setkey
        );
        assert!(Family::ALL.contains(&Family::Aead));
    }
}
