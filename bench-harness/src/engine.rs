//! The small interface the harness measures through: set a key, process a
//! buffer. A statically linked variant ([`StaticCipher`]) and a variant
//! loaded from a built `.so` ([`crate::so::SoCipher`]) are both an
//! [`Engine`], so one measuring code serves both.

use cipher::{BlockCipherDecrypt, BlockCipherEncrypt, KeyInit};
use serde::{Deserialize, Serialize};
use std::fmt;
use variants::modes::{self, LengthError};

/// A block-cipher mode, by its kernel name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    Ecb,
    Cbc,
    Ctr,
    Xts,
    /// A hash of the whole buffer in one call (CRC32C, a crate's hash): the
    /// digest is XORed into the buffer's first bytes ([`fold_digest`]), so
    /// that it can be compared and is not optimised away.
    Digest,
    /// A stream cipher's keystream (a crate's `chacha20`), from position 0
    /// under the key and a nonce, XORed into the whole buffer: as the
    /// kernel's skcipher `chacha20` is timed, each request a fresh
    /// keystream. Its kernel name is the cipher's own.
    Stream,
    /// An AEAD's encryption or decryption (a crate's `aes_gcm::Aes128Gcm`),
    /// timed as the kernel's tcrypt times one (`test_aead_speed`): out of
    /// place, the input kept, with [`AEAD_AAD_BYTES`] of associated data
    /// and the tag, each decryption of a ciphertext whose tag it checks
    /// ([`Engine::crypt`] says how). Named `aead(NAME)`.
    Aead,
}

/// The associated data tcrypt's AEAD speed test gives every operation
/// (`aad_size` 8 for `gcm(aes)` and `rfc7539(chacha20,poly1305)`), of
/// 0xff bytes as its `assoc`.
pub const AEAD_AAD_BYTES: usize = 8;

/// The key every timed, counted or listed case is keyed with: `len` bytes of
/// 0xff, as the kernel's tcrypt keys its speed tests; for XTS, whose two
/// keys must differ (IEEE 1619's tweak key is another key: OpenSSL refuses
/// two equal halves to encrypt), the second half 0xfe.
pub fn timing_key(mode: Mode, len: usize) -> Vec<u8> {
    let mut key = vec![0xff; len];
    if mode == Mode::Xts {
        key[len / 2..].fill(0xfe);
    }
    key
}

impl Mode {
    pub const ALL: [Mode; 7] = [
        Mode::Ecb,
        Mode::Cbc,
        Mode::Ctr,
        Mode::Xts,
        Mode::Digest,
        Mode::Stream,
        Mode::Aead,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Mode::Ecb => "ecb",
            Mode::Cbc => "cbc",
            Mode::Ctr => "ctr",
            Mode::Xts => "xts",
            Mode::Digest => "digest",
            Mode::Stream => "stream",
            Mode::Aead => "aead",
        }
    }

    /// The kernel name of `cipher` in this mode: `ecb(cast6)`, or `crc32c`
    /// (a digest), or `chacha20` (a stream cipher), or `aead(toyaead)` (an
    /// AEAD: the mode's name around the crate's type, as no kernel name
    /// can be derived from it).
    pub fn alg(self, cipher: &str) -> String {
        match self {
            Mode::Digest | Mode::Stream => cipher.to_string(),
            m => format!("{}({cipher})", m.name()),
        }
    }
}

/// Encryption or decryption.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Dir {
    Encrypt,
    Decrypt,
}

impl Dir {
    pub const BOTH: [Dir; 2] = [Dir::Encrypt, Dir::Decrypt];

    /// As tcrypt's header says it: `encryption`, `decryption`.
    pub fn noun(self) -> &'static str {
        match self {
            Dir::Encrypt => "encryption",
            Dir::Decrypt => "decryption",
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Dir::Encrypt => "encrypt",
            Dir::Decrypt => "decrypt",
        }
    }
}

/// Why an engine could not do what it was asked.
#[derive(Debug, Clone, PartialEq)]
pub enum EngineError {
    /// The cipher does not take a key of this many bytes.
    KeyLength(usize),
    /// The buffer or IV does not fit the mode.
    Length(LengthError),
    /// This engine does not implement the mode (a checksum has only its digest).
    Unsupported(Mode),
    /// `crypt` before `set_key`.
    NotKeyed,
    /// A `.so` could not be loaded or is not an inlinelab artifact.
    Load(String),
    /// A `.so` returned an error code the ABI does not define.
    Abi(i32),
    /// The implementation needs a CPU feature this machine lacks.
    Unavailable(String),
    /// An AEAD's decryption refused: the tag does not match.
    Tag,
    /// A library the implementation calls could not be made ready here,
    /// whatever the CPU: an artifact's [`abi::UNAVAILABLE_LIBRARY`] (a
    /// library peer's OpenSSL provider that would not load).
    NotReady(String),
}

impl fmt::Display for EngineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EngineError::KeyLength(n) => {
                write!(f, "a key of {n} bytes is not one this cipher takes")
            }
            EngineError::Length(e) => write!(f, "{e}"),
            EngineError::Unsupported(m) => write!(f, "mode {} is not available here", m.name()),
            EngineError::NotKeyed => write!(f, "no key set"),
            EngineError::Load(why) => write!(f, "{why}"),
            EngineError::Abi(code) => write!(f, "the artifact returned error code {code}"),
            EngineError::Unavailable(why) => write!(f, "unavailable on this CPU: {why}"),
            EngineError::Tag => write!(f, "the tag does not match (decryption refused)"),
            EngineError::NotReady(why) => write!(f, "unavailable here: {why}"),
        }
    }
}

impl std::error::Error for EngineError {}

impl From<LengthError> for EngineError {
    fn from(e: LengthError) -> Self {
        EngineError::Length(e)
    }
}

/// A keyed block cipher the harness can time.
pub trait Engine {
    /// The driver name, e.g. `cast6-never` or `cast6-rustcrypto`.
    fn name(&self) -> &str;
    fn block_size(&self) -> usize;
    /// Keys the engine for `mode` (an XTS key is two keys, one after the other).
    fn set_key(&mut self, mode: Mode, key: &[u8]) -> Result<(), EngineError>;
    /// One operation: `buf` processed in place; `iv` is the IV, counter or
    /// tweak (one block), updated as the mode chains (a stream cipher's or
    /// an AEAD's nonce). An AEAD ([`Mode::Aead`]) is timed as tcrypt times
    /// one: out of place, `buf` the input, which stays as it is, the output
    /// and the tag the engine's own, [`AEAD_AAD_BYTES`] of 0xff the
    /// associated data; a decryption checks the tag of the encryption that
    /// made `buf` (the engine encrypts into `buf` once, as tcrypt does with
    /// its buffers reversed, the first time it is asked to decrypt that
    /// buffer under that key and nonce), so that every call is a
    /// decryption that succeeds. [`Engine::aead`] is the operation with
    /// its data and tag in the caller's hands.
    fn crypt(
        &mut self,
        mode: Mode,
        dir: Dir,
        iv: &mut [u8],
        buf: &mut [u8],
    ) -> Result<(), EngineError>;
    /// An AEAD's operation in place ([`Mode::Aead`]): `buf` encrypted or
    /// decrypted under the key and `nonce`, with the associated data
    /// `aad`; an encryption writes its tag to `tag` (as many bytes as
    /// `tag` has, the AEAD's tag length), a decryption checks `tag`
    /// ([`EngineError::Tag`] when it does not match). Only an AEAD's
    /// engine does it.
    fn aead(
        &mut self,
        dir: Dir,
        nonce: &[u8],
        aad: &[u8],
        buf: &mut [u8],
        tag: &mut [u8],
    ) -> Result<(), EngineError> {
        let _ = (dir, nonce, aad, buf, tag);
        Err(EngineError::Unsupported(Mode::Aead))
    }
}

/// A statically linked cipher type as an [`Engine`], over the shared mode
/// loops of `variants::modes`.
pub struct StaticCipher<C> {
    name: String,
    keyed: Option<(C, Option<C>)>,
    /// Whether this CPU can run `C`; where it cannot, keying it is
    /// [`EngineError::Unavailable`], never a call into its key setup.
    available: fn() -> bool,
}

impl<C> StaticCipher<C> {
    /// A type any CPU runs (a peer picks its own backend).
    pub fn new(name: impl Into<String>) -> Self {
        Self::checked(name, || true)
    }

    /// A type only CPUs for which `available` answers true run (a form on
    /// AES-NI).
    pub fn checked(name: impl Into<String>, available: fn() -> bool) -> Self {
        StaticCipher {
            name: name.into(),
            keyed: None,
            available,
        }
    }
}

impl<C: KeyInit + BlockCipherEncrypt + BlockCipherDecrypt> Engine for StaticCipher<C> {
    fn name(&self) -> &str {
        &self.name
    }

    fn block_size(&self) -> usize {
        C::block_size()
    }

    fn set_key(&mut self, mode: Mode, key: &[u8]) -> Result<(), EngineError> {
        let bad = |_| EngineError::KeyLength(key.len());
        self.keyed = None;
        if !(self.available)() {
            return Err(EngineError::Unavailable(format!(
                "{} needs an instruction this CPU lacks",
                self.name
            )));
        }
        self.keyed = Some(if mode == Mode::Xts {
            if !key.len().is_multiple_of(2) {
                return Err(EngineError::KeyLength(key.len()));
            }
            let (k1, k2) = key.split_at(key.len() / 2);
            (
                C::new_from_slice(k1).map_err(bad)?,
                Some(C::new_from_slice(k2).map_err(bad)?),
            )
        } else {
            (C::new_from_slice(key).map_err(bad)?, None)
        });
        Ok(())
    }

    #[inline]
    fn crypt(
        &mut self,
        mode: Mode,
        dir: Dir,
        iv: &mut [u8],
        buf: &mut [u8],
    ) -> Result<(), EngineError> {
        let (c, c2) = self.keyed.as_ref().ok_or(EngineError::NotKeyed)?;
        match (mode, dir, c2) {
            (Mode::Ecb, Dir::Encrypt, _) => modes::ecb_encrypt(c, buf)?,
            (Mode::Ecb, Dir::Decrypt, _) => modes::ecb_decrypt(c, buf)?,
            (Mode::Cbc, Dir::Encrypt, _) => modes::cbc_encrypt(c, iv, buf)?,
            (Mode::Cbc, Dir::Decrypt, _) => modes::cbc_decrypt(c, iv, buf)?,
            (Mode::Ctr, _, _) => modes::ctr_apply(c, iv, buf)?,
            (Mode::Xts, Dir::Encrypt, Some(c2)) => modes::xts_encrypt(c, c2, iv, buf)?,
            (Mode::Xts, Dir::Decrypt, Some(c2)) => modes::xts_decrypt(c, c2, iv, buf)?,
            (Mode::Xts, _, None) => return Err(EngineError::NotKeyed),
            (Mode::Digest | Mode::Stream | Mode::Aead, _, _) => {
                return Err(EngineError::Unsupported(mode));
            }
        }
        Ok(())
    }
}

/// Makes a fresh, unkeyed engine.
pub type MakeEngine = fn() -> Box<dyn Engine>;

/// An engine made per key length, for a peer whose types each take one key
/// size (RustCrypto's `Aes128`, `Aes192`, `Aes256`). For XTS the key is two
/// keys, so half its length picks.
pub struct ByKeyLength {
    name: String,
    choices: &'static [(usize, MakeEngine)],
    current: Option<Box<dyn Engine>>,
}

impl ByKeyLength {
    pub fn new(name: &str, choices: &'static [(usize, MakeEngine)]) -> Self {
        ByKeyLength {
            name: name.to_string(),
            choices,
            current: None,
        }
    }
}

impl Engine for ByKeyLength {
    fn name(&self) -> &str {
        &self.name
    }

    fn block_size(&self) -> usize {
        self.choices
            .first()
            .map_or(16, |(_, make)| make().block_size())
    }

    fn set_key(&mut self, mode: Mode, key: &[u8]) -> Result<(), EngineError> {
        let one = if mode == Mode::Xts {
            key.len() / 2
        } else {
            key.len()
        };
        let (_, make) = self
            .choices
            .iter()
            .find(|(n, _)| *n == one)
            .ok_or(EngineError::KeyLength(key.len()))?;
        let mut engine = make();
        engine.set_key(mode, key)?;
        self.current = Some(engine);
        Ok(())
    }

    #[inline]
    fn crypt(
        &mut self,
        mode: Mode,
        dir: Dir,
        iv: &mut [u8],
        buf: &mut [u8],
    ) -> Result<(), EngineError> {
        self.current
            .as_mut()
            .ok_or(EngineError::NotKeyed)?
            .crypt(mode, dir, iv, buf)
    }

    fn aead(
        &mut self,
        dir: Dir,
        nonce: &[u8],
        aad: &[u8],
        buf: &mut [u8],
        tag: &mut [u8],
    ) -> Result<(), EngineError> {
        self.current
            .as_mut()
            .ok_or(EngineError::NotKeyed)?
            .aead(dir, nonce, aad, buf, tag)
    }
}

/// A hash's digest: 1 to [`abi::MAX_DIGEST`] bytes (4 for a checksum, 20
/// for SHA-1, 64 for SHA-512), held inline, so that making one allocates
/// nothing inside a timed loop.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Digest {
    len: u8,
    bytes: [u8; abi::MAX_DIGEST],
}

impl Digest {
    /// The digest of these bytes; `None` when there are more than
    /// [`abi::MAX_DIGEST`].
    pub fn new(bytes: &[u8]) -> Option<Digest> {
        let mut d = Digest {
            len: u8::try_from(bytes.len()).ok()?,
            bytes: [0; abi::MAX_DIGEST],
        };
        d.bytes.get_mut(..bytes.len())?.copy_from_slice(bytes);
        Some(d)
    }

    /// A checksum's digest: its `u32`'s four little-endian bytes.
    pub fn of_u32(sum: u32) -> Digest {
        let mut bytes = [0; abi::MAX_DIGEST];
        bytes[..4].copy_from_slice(&sum.to_le_bytes());
        Digest { len: 4, bytes }
    }

    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..usize::from(self.len)]
    }
}

impl fmt::Debug for Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.as_bytes()
            .iter()
            .try_for_each(|b| write!(f, "{b:02x}"))
    }
}

/// A one-call hash function as an [`Engine`] in [`Mode::Digest`]: no key,
/// 1-byte blocks, the digest XORed into the buffer's first bytes.
pub struct DigestEngine {
    name: String,
    digest: fn(&[u8]) -> Digest,
    available: fn() -> bool,
}

impl DigestEngine {
    pub fn new(name: &str, digest: fn(&[u8]) -> Digest, available: fn() -> bool) -> Self {
        DigestEngine {
            name: name.to_string(),
            digest,
            available,
        }
    }
}

/// What [`Mode::Digest`] leaves in the buffer: the digest XORed into its
/// first bytes (as many as both have). The artifacts do the same.
pub fn fold_digest(buf: &mut [u8], digest: &Digest) {
    buf.iter_mut()
        .zip(digest.as_bytes())
        .for_each(|(b, d)| *b ^= d);
}

impl Engine for DigestEngine {
    fn name(&self) -> &str {
        &self.name
    }

    fn block_size(&self) -> usize {
        1
    }

    fn set_key(&mut self, mode: Mode, key: &[u8]) -> Result<(), EngineError> {
        if !(self.available)() {
            return Err(EngineError::Unavailable(format!(
                "{} needs SSE4.2",
                self.name
            )));
        }
        match (mode, key.len()) {
            (Mode::Digest, 0) => Ok(()),
            (Mode::Digest, n) => Err(EngineError::KeyLength(n)),
            (m, _) => Err(EngineError::Unsupported(m)),
        }
    }

    #[inline]
    fn crypt(
        &mut self,
        mode: Mode,
        _: Dir,
        _: &mut [u8],
        buf: &mut [u8],
    ) -> Result<(), EngineError> {
        if mode != Mode::Digest {
            return Err(EngineError::Unsupported(mode));
        }
        let d = (self.digest)(buf);
        fold_digest(buf, &d);
        Ok(())
    }
}

/// A hash streamed as the kernel's `shash` is: init, any number of
/// updates, final; its digest of 1 to [`abi::MAX_DIGEST`] bytes.
pub trait HashEngine {
    fn name(&self) -> &str;
    /// Whether this CPU can run it; an engine that cannot is reported as
    /// unavailable, never replaced by another.
    fn available(&self) -> bool {
        true
    }
    /// The digest's length in bytes.
    fn output_size(&self) -> usize;
    fn init(&mut self) -> Result<(), EngineError>;
    fn update(&mut self, data: &[u8]) -> Result<(), EngineError>;
    /// The digest of what was hashed since `init`; the state is fresh after.
    fn finish(&mut self) -> Result<Digest, EngineError>;
    /// init + update + final in one call, as the kernel's `digest`.
    fn digest(&mut self, data: &[u8]) -> Result<Digest, EngineError> {
        self.init()?;
        self.update(data)?;
        self.finish()
    }
}

/// A statically linked checksum given by its three functions over a `u32`
/// state (CRC32C, `digest_null`); its digest is the state's four
/// little-endian bytes.
pub struct StaticHash {
    pub name: String,
    pub init: fn() -> u32,
    pub update: fn(u32, &[u8]) -> u32,
    pub finish: fn(u32) -> u32,
    pub state: u32,
    /// Whether this CPU can run it (CRC32C's SSE4.2 variants).
    pub available: fn() -> bool,
}

impl HashEngine for StaticHash {
    fn name(&self) -> &str {
        &self.name
    }

    fn available(&self) -> bool {
        (self.available)()
    }

    fn output_size(&self) -> usize {
        4
    }

    fn init(&mut self) -> Result<(), EngineError> {
        self.state = (self.init)();
        Ok(())
    }

    #[inline]
    fn update(&mut self, data: &[u8]) -> Result<(), EngineError> {
        self.state = (self.update)(self.state, data);
        Ok(())
    }

    fn finish(&mut self) -> Result<Digest, EngineError> {
        let d = Digest::of_u32((self.finish)(self.state));
        self.state = (self.init)();
        Ok(d)
    }
}

#[cfg(test)]
mod timing_key_tests {
    use super::{Mode, timing_key};

    /// 0xff bytes, and XTS's two keys different.
    #[test]
    fn xts_halves_differ() {
        assert_eq!(timing_key(Mode::Cbc, 16), vec![0xff; 16]);
        let xts = timing_key(Mode::Xts, 64);
        assert_eq!(xts.len(), 64);
        assert_ne!(xts[..32], xts[32..]);
        assert!(xts[..32].iter().all(|&b| b == 0xff));
    }
}
