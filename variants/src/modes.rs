//! Block-mode loops over a borrowed cipher: ECB, CBC and CTR.
//!
//! The harness (statically linked variants) and the built artifacts (`.so`
//! variants) both run these, so that a measured difference is the cipher's.
//! Unlike the RustCrypto mode types, which take the cipher by value, these
//! borrow it: an operation costs what the kernel's `crypto_skcipher_encrypt`
//! on an already keyed transform costs, without a copy of the key schedule.
//! Tests check them against the `ecb` and `cbc` crates.

use cipher::{Array, BlockCipherDecrypt, BlockCipherEncrypt, BlockSizeUser};

/// A buffer or IV of a length the mode cannot take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LengthError {
    /// The buffer is not a whole number of blocks.
    PartialBlock {
        /// The buffer's length in bytes.
        len: usize,
        /// The cipher's block size in bytes.
        block: usize,
    },
    /// The IV is not exactly one block long.
    Iv {
        /// The IV's length in bytes.
        len: usize,
        /// The cipher's block size in bytes.
        block: usize,
    },
}

impl core::fmt::Display for LengthError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            LengthError::PartialBlock { len, block } => {
                write!(
                    f,
                    "{len} bytes is not a whole number of {block}-byte blocks"
                )
            }
            LengthError::Iv { len, block } => {
                write!(f, "an IV of {len} bytes; this cipher needs {block}")
            }
        }
    }
}

type Blocks<'a, C> = &'a mut [Array<u8, <C as BlockSizeUser>::BlockSize>];

fn whole_blocks<C: BlockSizeUser>(buf: &mut [u8]) -> Result<Blocks<'_, C>, LengthError> {
    let block = C::block_size();
    let (blocks, rest) = Array::slice_as_chunks_mut(buf);
    if !rest.is_empty() {
        let len = blocks.len() * block + rest.len();
        return Err(LengthError::PartialBlock { len, block });
    }
    Ok(blocks)
}

fn check_iv<C: BlockSizeUser>(iv: &[u8]) -> Result<(), LengthError> {
    let block = C::block_size();
    if iv.len() != block {
        return Err(LengthError::Iv {
            len: iv.len(),
            block,
        });
    }
    Ok(())
}

/// ECB encryption of `buf` in place.
pub fn ecb_encrypt<C: BlockCipherEncrypt>(c: &C, buf: &mut [u8]) -> Result<(), LengthError> {
    c.encrypt_blocks(whole_blocks::<C>(buf)?);
    Ok(())
}

/// ECB decryption of `buf` in place.
pub fn ecb_decrypt<C: BlockCipherDecrypt>(c: &C, buf: &mut [u8]) -> Result<(), LengthError> {
    c.decrypt_blocks(whole_blocks::<C>(buf)?);
    Ok(())
}

/// CBC encryption of `buf` in place; `iv` ends as the last ciphertext block,
/// so that consecutive calls chain.
pub fn cbc_encrypt<C: BlockCipherEncrypt>(
    c: &C,
    iv: &mut [u8],
    buf: &mut [u8],
) -> Result<(), LengthError> {
    check_iv::<C>(iv)?;
    for block in whole_blocks::<C>(buf)? {
        block.iter_mut().zip(iv.iter()).for_each(|(b, v)| *b ^= v);
        c.encrypt_block(block);
        iv.copy_from_slice(block);
    }
    Ok(())
}

/// CBC decryption of `buf` in place; `iv` ends as the last ciphertext block.
pub fn cbc_decrypt<C: BlockCipherDecrypt>(
    c: &C,
    iv: &mut [u8],
    buf: &mut [u8],
) -> Result<(), LengthError> {
    check_iv::<C>(iv)?;
    for block in whole_blocks::<C>(buf)? {
        let ciphertext = block.clone();
        c.decrypt_block(block);
        block.iter_mut().zip(iv.iter()).for_each(|(b, v)| *b ^= v);
        iv.copy_from_slice(&ciphertext);
    }
    Ok(())
}

/// CTR keystream applied to `buf` in place (encryption and decryption are the
/// same); `counter` is a big-endian counter over the whole block, advanced
/// by one per block. A trailing partial block uses part of a keystream block.
pub fn ctr_apply<C: BlockCipherEncrypt>(
    c: &C,
    counter: &mut [u8],
    buf: &mut [u8],
) -> Result<(), LengthError> {
    check_iv::<C>(counter)?;
    let mut keystream = Array::<u8, C::BlockSize>::default();
    for chunk in buf.chunks_mut(C::block_size()) {
        keystream.copy_from_slice(counter);
        c.encrypt_block(&mut keystream);
        chunk
            .iter_mut()
            .zip(keystream.iter())
            .for_each(|(b, k)| *b ^= k);
        for byte in counter.iter_mut().rev() {
            *byte = byte.wrapping_add(1);
            if *byte != 0 {
                break;
            }
        }
    }
    Ok(())
}

/// XTS (IEEE P1619) encryption of one data unit in place, for 16-byte-block
/// ciphers: `k1` encrypts the data, `k2` the tweak. No ciphertext stealing:
/// `buf` must be whole blocks.
///
/// ```text
/// T = E_k2(tweak)
/// for each block j: C_j = E_k1(P_j ^ T) ^ T;  T = T * alpha  (GF(2^128))
/// ```
pub fn xts_encrypt<C: BlockCipherEncrypt>(
    k1: &C,
    k2: &C,
    tweak: &[u8],
    buf: &mut [u8],
) -> Result<(), LengthError> {
    xts(k2, tweak, buf, |block| k1.encrypt_block(block))
}

/// XTS decryption of one data unit in place; `k2` still encrypts the tweak.
pub fn xts_decrypt<C: BlockCipherEncrypt + BlockCipherDecrypt>(
    k1: &C,
    k2: &C,
    tweak: &[u8],
    buf: &mut [u8],
) -> Result<(), LengthError> {
    xts(k2, tweak, buf, |block| k1.decrypt_block(block))
}

fn xts<C: BlockCipherEncrypt>(
    k2: &C,
    tweak: &[u8],
    buf: &mut [u8],
    mut crypt: impl FnMut(&mut Array<u8, C::BlockSize>),
) -> Result<(), LengthError> {
    check_iv::<C>(tweak)?;
    if C::block_size() != 16 {
        return Err(LengthError::Iv {
            len: C::block_size(),
            block: 16,
        });
    }
    let mut t = Array::<u8, C::BlockSize>::default();
    t.copy_from_slice(tweak);
    k2.encrypt_block(&mut t);
    for block in whole_blocks::<C>(buf)? {
        block.iter_mut().zip(t.iter()).for_each(|(b, x)| *b ^= x);
        crypt(block);
        block.iter_mut().zip(t.iter()).for_each(|(b, x)| *b ^= x);
        // T * alpha: a left shift of the little-endian 128-bit value, with
        // the polynomial x^128 + x^7 + x^2 + x + 1 folded back in.
        let mut carry = 0u8;
        for byte in t.iter_mut() {
            let next = *byte >> 7;
            *byte = (*byte << 1) | carry;
            carry = next;
        }
        t[0] ^= 0x87 * carry;
    }
    Ok(())
}
