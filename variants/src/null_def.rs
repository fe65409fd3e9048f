//! `ecb(cipher_null)` and `digest_null`: algorithms whose work is stubbed
//! out, as in the kernel, so that timing them measures the harness alone.

/// The null cipher and null digest. Their one round is the identity; the
/// macro needs a round, and the point is that there is nothing else.
#[codegen::variants(
    auto,
    cipher = CipherNull,
    calibration(
        kernel: cipher_null,
        modes: [Ecb: [16]],
        hash: digest_null(digest_null_init, digest_null_update, digest_null_final),
    )
)]
pub mod null {
    use crate::traits::{bytes, put_bytes};
    use cipher::InvalidLength;
    use cipher::consts::{U1, U16};

    /// The longest key `CipherNull::new_from_slice` takes (it ignores it).
    pub const MAX_KEY_SIZE: usize = 64;

    /// The identity, standing where a cipher's round would.
    #[round]
    fn identity<T>(x: T) -> T {
        x
    }

    /// A block through the identity (a `#[lanes]` function, so that the
    /// null cipher has `LANES`, one, like every other).
    #[lanes]
    fn crypt(#[lane] block: &mut [u8; 1]) {
        *block = identity(*block);
    }

    /// `ecb(cipher_null)`: 1-byte blocks (as the kernel's `cipher_null`),
    /// any key of up to 64 bytes, output equal to input.
    #[derive(Clone)]
    pub struct CipherNull;

    cipher_traits! {
        CipherNull {
            name: "cipher_null-",
            key_size: U16,
            block_size: U1,
            new: |_key| CipherNull,
            new_from_slice: |key| {
                if key.len() > MAX_KEY_SIZE {
                    return Err(InvalidLength);
                }
                Ok(CipherNull)
            },
            load: bytes,
            store: put_bytes,
            encrypt: |_c, block| crypt(block),
            encrypt_lanes: |_c, blocks| crypt_lanes(blocks),
            decrypt: |_c, block| crypt(block),
            decrypt_lanes: |_c, blocks| crypt_lanes(blocks),
        }
    }

    /// `digest_null`: every function stubbed out, as in the kernel's 2008
    /// overhead run. The state is a `u32` like CRC32C's.
    pub fn digest_null_init() -> u32 {
        identity(0)
    }

    /// Takes the bytes and does nothing with them.
    pub fn digest_null_update(state: u32, _data: &[u8]) -> u32 {
        identity(state)
    }

    /// Returns the state as the digest.
    pub fn digest_null_final(state: u32) -> u32 {
        identity(state)
    }
}
