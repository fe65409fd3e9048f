//! The C ABI of an inlinelab artifact (`variants/artifact`), defined once
//! for the artifact that exports it and the harness that loads it
//! (`bench-harness/src/so.rs`).
//!
//! | symbol | signature |
//! |---|---|
//! | `inlinelab_abi_version` | `() -> u32`: [`VERSION`] |
//! | `inlinelab_name` | `() -> *const c_char`: what it holds, `cast6::never` or `peer-cast6` |
//! | `inlinelab_available` | `() -> i32`: 0 when this CPU cannot run it; asked before anything else |
//! | `inlinelab_block_size` | `() -> usize` |
//! | `inlinelab_ctx_size`, `inlinelab_ctx_align` | `() -> usize` |
//! | `inlinelab_set_key` | `(ctx, key, key_len) -> i32`: [`OK`], or [`ERR_LENGTH`] for a key length it does not take |
//! | `inlinelab_clear` | `(ctx)`: drops (and so zeroizes) a keyed context |
//! | `inlinelab_crypt` | `(ctx, op, iv, buf, len) -> i32`: `op` an [`Op`]; [`OK`], [`ERR_LENGTH`] for a partial block, [`ERR_OP`] for an op it does not do |
//!
//! The caller owns the context memory: `inlinelab_ctx_size()` bytes aligned
//! to `inlinelab_ctx_align()`.

#![no_std]

/// Bumped on any change to the exported functions' meaning or signatures.
pub const VERSION: u32 = 3;

/// Success.
pub const OK: i32 = 0;
/// A key, buffer or IV of a length the operation does not take.
pub const ERR_LENGTH: i32 = -1;
/// An operation the artifact does not do.
pub const ERR_OP: i32 = -2;

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
    /// A checksum of the buffer, XORed into its first four bytes.
    Digest = 4,
}

impl Op {
    /// Every operation, in code order.
    pub const ALL: [Op; 5] = [
        Op::EcbEncrypt,
        Op::EcbDecrypt,
        Op::CbcEncrypt,
        Op::CbcDecrypt,
        Op::Digest,
    ];

    /// The operation with code `code`, if there is one.
    pub fn from_code(code: u32) -> Option<Op> {
        Op::ALL.into_iter().find(|op| *op as u32 == code)
    }
}
