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
    use cipher::consts::{U1, U16};
    use cipher::{
        AlgorithmName, Block, BlockCipherDecBackend, BlockCipherDecClosure, BlockCipherDecrypt,
        BlockCipherEncBackend, BlockCipherEncClosure, BlockCipherEncrypt, BlockSizeUser, InOut,
        InvalidLength, Key, KeyInit, KeySizeUser, ParBlocksSizeUser,
    };
    use core::fmt;

    /// The longest key `CipherNull::new_from_slice` takes (it ignores it).
    pub const MAX_KEY_SIZE: usize = 64;

    /// The identity, standing where a cipher's round would.
    #[round]
    fn identity<T>(x: T) -> T {
        x
    }

    /// `ecb(cipher_null)`: 1-byte blocks (as the kernel's `cipher_null`),
    /// any key of up to 64 bytes, output equal to input.
    #[derive(Clone, Debug)]
    pub struct CipherNull;

    impl KeySizeUser for CipherNull {
        type KeySize = U16;
    }

    impl KeyInit for CipherNull {
        fn new(_key: &Key<Self>) -> Self {
            CipherNull
        }

        fn new_from_slice(key: &[u8]) -> Result<Self, InvalidLength> {
            if key.len() > MAX_KEY_SIZE {
                return Err(InvalidLength);
            }
            Ok(CipherNull)
        }
    }

    impl BlockSizeUser for CipherNull {
        type BlockSize = U1;
    }

    impl ParBlocksSizeUser for CipherNull {
        type ParBlocksSize = U1;
    }

    impl BlockCipherEncrypt for CipherNull {
        #[inline]
        fn encrypt_with_backend(&self, f: impl BlockCipherEncClosure<BlockSize = U1>) {
            f.call(self)
        }
    }

    impl BlockCipherEncBackend for CipherNull {
        #[inline]
        fn encrypt_block(&self, mut block: InOut<'_, '_, Block<Self>>) {
            *block.get_out() = identity(block.clone_in());
        }
    }

    impl BlockCipherDecrypt for CipherNull {
        #[inline]
        fn decrypt_with_backend(&self, f: impl BlockCipherDecClosure<BlockSize = U1>) {
            f.call(self)
        }
    }

    impl BlockCipherDecBackend for CipherNull {
        #[inline]
        fn decrypt_block(&self, mut block: InOut<'_, '_, Block<Self>>) {
            *block.get_out() = identity(block.clone_in());
        }
    }

    impl AlgorithmName for CipherNull {
        fn write_alg_name(f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("cipher_null-")?;
            f.write_str(VARIANT)
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
