//! The C ABI of an inlinelab artifact (`variants/artifact`), defined once
//! for the artifact that exports it and the harness that loads it
//! (`bench-harness/src/so.rs`).
//!
//! | symbol | signature |
//! |---|---|
//! | `inlinelab_abi` | a `u32` (data, not a function): [`VERSION`], read from the file before it is loaded |
//! | `inlinelab_name` | `() -> *const c_char`: what it holds, `cast6::never` or `peer-cast6` |
//! | `inlinelab_available` | `() -> i32`: [`AVAILABLE`], or why it cannot run here: [`UNAVAILABLE_CPU`] (this CPU lacks an instruction it needs), [`UNAVAILABLE_LIBRARY`] (a library it calls could not be made ready, as an OpenSSL provider that would not load); asked before anything else |
//! | `inlinelab_block_size` | `() -> usize` (1 for a hash) |
//! | `inlinelab_digest_size` | `() -> usize`: a hash's digest length, 1 to [`MAX_DIGEST`]; 0 for a block cipher |
//! | `inlinelab_ctx_size`, `inlinelab_ctx_align` | `() -> usize` |
//! | `inlinelab_set_key` | `(ctx, keying, key, key_len) -> i32`: `keying` a [`Keying`]; [`OK`], [`ERR_LENGTH`] for a key length it does not take, [`ERR_OP`] for a keying it does not do; a hash takes the empty key, and its context then holds a fresh state; a MAC (a crate's, through the same operations as a hash) takes its key, and its context then holds the keyed MAC and a fresh tag's state |
//! | `inlinelab_clear` | `(ctx)`: drops (and so zeroizes) a keyed context |
//! | `inlinelab_crypt` | `(ctx, op, iv, buf, len) -> i32`: `op` an [`Op`]; `iv` one block, or a stream cipher's nonce for [`Op::StreamEncrypt`] and [`Op::StreamDecrypt`], or an [`AeadIo`] (nonce, associated data, tag, output; aligned as one) for [`Op::AeadEncrypt`] and [`Op::AeadDecrypt`]; [`OK`], [`ERR_LENGTH`] for a partial block (or a digest that does not fit), [`ERR_OP`] for an op it does not do, [`ERR_KEYING`] for an XTS op on a context keyed with one key, [`ERR_TAG`] for an AEAD's decryption whose tag does not match |
//!
//! The caller owns the context memory: `inlinelab_ctx_size()` bytes aligned
//! to `inlinelab_ctx_align()`. `cargo xtask gate` counts the instructions
//! executed inside `inlinelab_set_key` and `inlinelab_crypt` (callgrind
//! toggles collection on those two names), so each does one operation and
//! nothing else. A hash is streamed through `inlinelab_crypt` too
//! ([`Op::HashInit`], [`Op::HashUpdate`], [`Op::HashFinal`]), so that the
//! hot path the sizer walks from it holds every path of the hash.

#![no_std]

/// Bumped on any change to the exported functions' meaning or signatures.
/// 4: `inlinelab_set_key` takes a [`Keying`]; CTR and XTS ops.
/// 5: hashes: `inlinelab_digest_size`, digests of up to [`MAX_DIGEST`]
/// bytes, streamed ([`Op::HashInit`], [`Op::HashUpdate`],
/// [`Op::HashFinal`]); `inlinelab_crypt`'s context is mutable; the version
/// is the data symbol `inlinelab_abi`, which the loader reads from the file
/// before loading it (versions 1 to 4 exported a function,
/// `inlinelab_abi_version`).
///
/// Not bumped for an addition an older artifact answers with [`ERR_OP`]
/// (as it does any code it does not know): a stream cipher's
/// [`Op::StreamEncrypt`] and [`Op::StreamDecrypt`] came so, within 5.
/// 6: AEADs: [`Op::AeadEncrypt`] and [`Op::AeadDecrypt`], whose `iv`
/// points to an [`AeadIo`] (not an IV: an older artifact would read it as
/// one), and the return code [`ERR_TAG`]; and the availability answer
/// [`UNAVAILABLE_LIBRARY`] (an older loader took any answer but 0 as
/// available).
pub const VERSION: u32 = 6;

/// The longest digest the ABI carries, in bytes (SHA-512's, BLAKE2b's).
pub const MAX_DIGEST: usize = 64;

/// The longest IV the ABI carries, in bytes: a stream cipher's nonce
/// (ChaCha20's 12, XChaCha20's 24) is read from a buffer of at least this
/// many bytes, the nonce first and zeros after (`iv` of
/// [`Op::StreamEncrypt`]); a block cipher's IV is its block.
pub const MAX_IV: usize = 64;

/// The longest AEAD tag the ABI carries, in bytes ([`AeadIo::tag`]).
pub const MAX_TAG: usize = 64;

/// What an AEAD's operation ([`Op::AeadEncrypt`], [`Op::AeadDecrypt`])
/// takes besides the context and the buffer: `inlinelab_crypt`'s `iv`
/// points to one, which the artifact reads (and writes the tag of an
/// encryption into). The buffer is the input (plaintext, or ciphertext
/// without its tag), `len` bytes; the output, as long, goes to `out`, or
/// over the input when `out` is null (in place).
#[derive(Clone, Copy, Debug)]
#[repr(C)]
pub struct AeadIo {
    /// The nonce, first (the AEAD's nonce length, at most [`MAX_IV`]
    /// bytes), zeros after.
    pub nonce: [u8; MAX_IV],
    /// The tag, first (its tag length, at most [`MAX_TAG`] bytes): written
    /// by an encryption, read by a decryption.
    pub tag: [u8; MAX_TAG],
    /// The associated data: `aad_len` bytes, authenticated, not encrypted
    /// (any pointer when `aad_len` is 0).
    pub aad: *const u8,
    pub aad_len: usize,
    /// Where the output goes (`len` bytes, apart from the buffer), or null
    /// for in place.
    pub out: *mut u8,
}

/// The names of the exported functions, for the loader (and for anything
/// that finds them in a built file: the sizer's call graph, callgrind's
/// collection toggles). The artifact defines functions of exactly these
/// names; the loader refuses a file that lacks one.
pub mod symbol {
    /// A `u32`, not a function: [`super::VERSION`].
    pub const ABI: &str = "inlinelab_abi";
    /// The function versions 1 to 4 said their version with; an artifact
    /// that exports it is of one of those.
    pub const OLD_ABI_VERSION: &str = "inlinelab_abi_version";
    pub const NAME: &str = "inlinelab_name";
    pub const AVAILABLE: &str = "inlinelab_available";
    pub const BLOCK_SIZE: &str = "inlinelab_block_size";
    pub const DIGEST_SIZE: &str = "inlinelab_digest_size";
    pub const CTX_SIZE: &str = "inlinelab_ctx_size";
    pub const CTX_ALIGN: &str = "inlinelab_ctx_align";
    pub const SET_KEY: &str = "inlinelab_set_key";
    pub const CLEAR: &str = "inlinelab_clear";
    pub const CRYPT: &str = "inlinelab_crypt";
    /// Every one, in the table's order.
    pub const ALL: [&str; 10] = [
        ABI,
        NAME,
        AVAILABLE,
        BLOCK_SIZE,
        DIGEST_SIZE,
        CTX_SIZE,
        CTX_ALIGN,
        SET_KEY,
        CLEAR,
        CRYPT,
    ];
}

/// `inlinelab_available`: it can run here.
pub const AVAILABLE: i32 = 1;
/// `inlinelab_available`: this CPU lacks an instruction it needs (its
/// forms on AES-NI, SSE4.2, VAES on a CPU without them).
pub const UNAVAILABLE_CPU: i32 = 0;
/// `inlinelab_available`: a library it calls could not be made ready here
/// at run time, whatever the CPU: a library peer's OpenSSL provider that
/// is on disk but would not load.
pub const UNAVAILABLE_LIBRARY: i32 = -1;

/// Success.
pub const OK: i32 = 0;
/// A key, buffer or IV of a length the operation does not take.
pub const ERR_LENGTH: i32 = -1;
/// An operation (or keying) the artifact does not do.
pub const ERR_OP: i32 = -2;
/// An XTS operation on a context keyed with [`Keying::One`].
pub const ERR_KEYING: i32 = -3;
/// An AEAD's decryption whose tag does not match its nonce, associated
/// data and ciphertext: refused (the output is not the plaintext).
pub const ERR_TAG: i32 = -4;

/// `keying` of `inlinelab_set_key`: how the key bytes make the context.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum Keying {
    /// One cipher keyed with all the bytes (ECB, CBC, CTR; a checksum's
    /// empty key).
    One = 0,
    /// XTS: two ciphers of the same key size, the first half of the bytes
    /// keying the data cipher and the second half the tweak cipher.
    Xts = 1,
}

impl Keying {
    /// The keying with code `code`, if there is one.
    pub fn from_code(code: u32) -> Option<Keying> {
        [Keying::One, Keying::Xts]
            .into_iter()
            .find(|k| *k as u32 == code)
    }
}

/// `op` of `inlinelab_crypt`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum Op {
    /// ECB encryption.
    EcbEncrypt = 0,
    /// ECB decryption.
    EcbDecrypt = 1,
    /// CBC encryption; `iv` is one block, updated for chaining.
    CbcEncrypt = 2,
    /// CBC decryption; `iv` is one block, updated for chaining.
    CbcDecrypt = 3,
    /// A hash's digest of the buffer in one call (init, update, final, as
    /// the kernel's `digest`), XORed into the buffer's first bytes (as many
    /// as both have); a hash's context is not read, a MAC's gives its key
    /// (the tag of the buffer under the key `inlinelab_set_key` took).
    Digest = 4,
    /// CTR; `iv` is the big-endian counter block, advanced per block.
    CtrEncrypt = 5,
    /// CTR decryption: the same keystream as [`Op::CtrEncrypt`], a code of
    /// its own so that each direction is counted as itself.
    CtrDecrypt = 6,
    /// XTS encryption of one data unit; `iv` is the tweak (one block).
    /// Needs a context keyed with [`Keying::Xts`].
    XtsEncrypt = 7,
    /// XTS decryption of one data unit; `iv` is the tweak.
    XtsDecrypt = 8,
    /// A hash's context set to a fresh state (a MAC's, to a fresh tag
    /// under its key); `buf` is not read.
    HashInit = 9,
    /// The buffer's bytes hashed into the context's state; `buf` is only
    /// read.
    HashUpdate = 10,
    /// The digest of what the state holds written to the buffer's first
    /// `inlinelab_digest_size()` bytes ([`ERR_LENGTH`] when it is
    /// shorter), and the state set fresh.
    HashFinal = 11,
    /// A stream cipher's keystream, from position 0 under the context's
    /// key and the nonce at `iv` (the cipher's IV length, not a block),
    /// XORed into the buffer; `iv` is only read. Each call starts a fresh
    /// keystream, as the kernel's `chacha20` inits each request.
    StreamEncrypt = 12,
    /// Stream decryption: the same keystream as [`Op::StreamEncrypt`], a
    /// code of its own so that each direction is counted as itself.
    StreamDecrypt = 13,
    /// An AEAD's encryption: the buffer encrypted (to the [`AeadIo`]'s
    /// `out`, or in place), authenticated with the associated data under
    /// the context's key and the nonce, and the tag written to the
    /// [`AeadIo`] at `iv`.
    AeadEncrypt = 14,
    /// An AEAD's decryption: the tag at the [`AeadIo`] checked against the
    /// buffer (the ciphertext) and the associated data, and the buffer
    /// decrypted; [`ERR_TAG`] when it does not match.
    AeadDecrypt = 15,
}

impl Op {
    /// Every operation, in code order.
    pub const ALL: [Op; 16] = [
        Op::EcbEncrypt,
        Op::EcbDecrypt,
        Op::CbcEncrypt,
        Op::CbcDecrypt,
        Op::Digest,
        Op::CtrEncrypt,
        Op::CtrDecrypt,
        Op::XtsEncrypt,
        Op::XtsDecrypt,
        Op::HashInit,
        Op::HashUpdate,
        Op::HashFinal,
        Op::StreamEncrypt,
        Op::StreamDecrypt,
        Op::AeadEncrypt,
        Op::AeadDecrypt,
    ];

    /// The operation with code `code`, if there is one.
    pub fn from_code(code: u32) -> Option<Op> {
        Op::ALL.into_iter().find(|op| *op as u32 == code)
    }

    /// Whether it decrypts.
    pub fn decrypts(self) -> bool {
        matches!(
            self,
            Op::EcbDecrypt
                | Op::CbcDecrypt
                | Op::CtrDecrypt
                | Op::XtsDecrypt
                | Op::StreamDecrypt
                | Op::AeadDecrypt
        )
    }

    /// Whether it is a step of a streamed hash (init, update, final).
    pub fn is_hash_step(self) -> bool {
        matches!(self, Op::HashInit | Op::HashUpdate | Op::HashFinal)
    }

    /// Whether it is a CTR operation.
    pub fn is_ctr(self) -> bool {
        matches!(self, Op::CtrEncrypt | Op::CtrDecrypt)
    }

    /// Whether it is a stream cipher's operation (its `iv` the nonce).
    pub fn is_stream(self) -> bool {
        matches!(self, Op::StreamEncrypt | Op::StreamDecrypt)
    }

    /// Whether it is an AEAD's operation (its `iv` an [`AeadIo`]).
    pub fn is_aead(self) -> bool {
        matches!(self, Op::AeadEncrypt | Op::AeadDecrypt)
    }
}
