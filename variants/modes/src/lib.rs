//! Block-mode loops over a borrowed cipher: ECB, CBC, CTR and XTS.
//!
//! The harness (statically linked variants) and the built artifacts (`.so`
//! variants) both run these, so that a measured difference is the cipher's.
//! Unlike the RustCrypto mode types, which take the cipher by value, these
//! borrow it: an operation costs what the kernel's `crypto_skcipher_encrypt`
//! on an already keyed transform costs, without a copy of the key schedule.
//!
//! Every mode whose blocks are independent hands the cipher as many blocks
//! at once as it takes (its backend's `ParBlocksSize`, the lanes of a
//! variant), the rest one by one: ECB, CBC decryption, CTR and XTS
//! through the backend, as RustCrypto's mode crates do. A buffer shorter
//! than the lanes goes straight to that rest, not first split into chunks
//! (there are none), so that one block costs a lanes variant what it costs
//! its one-lane shape. CBC encryption chains every block on the one
//! before, so it goes block by block: with the backend in hand, as the
//! `cbc` crate runs it ([`cbc_encrypt`]), or in the cipher's own loop
//! ([`cbc_encrypt_chained`], which the artifacts run for this workspace's
//! variants; peers and crates run the `cbc` crate's form). Tests check them against the `ecb`,
//! `cbc`, `ctr` and `xts-mode` crates.

#![no_std]

use cipher::array::ArraySize;
use cipher::typenum::Unsigned;
use cipher::{
    Array, Block, BlockCipherDecBackend, BlockCipherDecClosure, BlockCipherDecrypt,
    BlockCipherEncBackend, BlockCipherEncClosure, BlockCipherEncrypt, BlockSizeUser, InOut,
    InOutBuf, ParBlocks,
};

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
    c.encrypt_with_backend(Ecb {
        blocks: whole_blocks::<C>(buf)?,
    });
    Ok(())
}

/// ECB decryption of `buf` in place.
pub fn ecb_decrypt<C: BlockCipherDecrypt>(c: &C, buf: &mut [u8]) -> Result<(), LengthError> {
    c.decrypt_with_backend(Ecb {
        blocks: whole_blocks::<C>(buf)?,
    });
    Ok(())
}

/// ECB with the cipher's backend in hand: `cipher`'s own `encrypt_blocks`
/// (its `BlocksCtx`), but a buffer shorter than the backend's
/// `ParBlocksSize` goes straight to its tail, not first split into chunks
/// (none).
struct Ecb<'a, BS: ArraySize> {
    blocks: &'a mut [Array<u8, BS>],
}

impl<BS: ArraySize> BlockSizeUser for Ecb<'_, BS> {
    type BlockSize = BS;
}

impl<BS: ArraySize> BlockCipherEncClosure for Ecb<'_, BS> {
    #[inline(always)]
    fn call<B: BlockCipherEncBackend<BlockSize = BS>>(self, backend: &B) {
        self.run::<B::ParBlocksSize>(
            |chunk| backend.encrypt_par_blocks(chunk),
            |tail| backend.encrypt_tail_blocks(tail),
            |block| backend.encrypt_block(block),
        );
    }
}

impl<BS: ArraySize> BlockCipherDecClosure for Ecb<'_, BS> {
    #[inline(always)]
    fn call<B: BlockCipherDecBackend<BlockSize = BS>>(self, backend: &B) {
        self.run::<B::ParBlocksSize>(
            |chunk| backend.decrypt_par_blocks(chunk),
            |tail| backend.decrypt_tail_blocks(tail),
            |block| backend.decrypt_block(block),
        );
    }
}

impl<BS: ArraySize> Ecb<'_, BS> {
    /// `P` blocks at a time through `par` and the rest through `tail` when
    /// `P > 1`, else each through `one`. Fewer than `P` blocks are all
    /// rest: `tail` has the one call site, where it inlines.
    #[inline(always)]
    fn run<P: ArraySize>(
        self,
        mut par: impl FnMut(InOut<'_, '_, Array<Array<u8, BS>, P>>),
        tail: impl FnOnce(InOutBuf<'_, '_, Array<u8, BS>>),
        mut one: impl FnMut(InOut<'_, '_, Array<u8, BS>>),
    ) {
        let mut rest: InOutBuf<'_, '_, Array<u8, BS>> = self.blocks.into();
        if P::USIZE == 1 {
            for block in rest {
                one(block);
            }
            return;
        }
        if rest.len() >= P::USIZE {
            let (chunks, tail) = rest.into_chunks();
            for chunk in chunks {
                par(chunk);
            }
            rest = tail;
        }
        tail(rest);
    }
}

/// CBC encryption of `buf` in place; `iv` ends as the last ciphertext block,
/// so that consecutive calls chain.
pub fn cbc_encrypt<C: BlockCipherEncrypt>(
    c: &C,
    iv: &mut [u8],
    buf: &mut [u8],
) -> Result<(), LengthError> {
    check_iv::<C>(iv)?;
    let blocks = whole_blocks::<C>(buf)?;
    c.encrypt_with_backend(CbcEncrypt { iv, blocks });
    Ok(())
}

/// CBC encryption with the cipher's backend in hand, as the `cbc` crate
/// runs it: the chain held in a local across the buffer, one backend call
/// per block (a cipher's own loop is [`CbcChain`]).
struct CbcEncrypt<'a, BS: ArraySize> {
    iv: &'a mut [u8],
    blocks: &'a mut [Array<u8, BS>],
}

impl<BS: ArraySize> BlockSizeUser for CbcEncrypt<'_, BS> {
    type BlockSize = BS;
}

impl<BS: ArraySize> BlockCipherEncClosure for CbcEncrypt<'_, BS> {
    fn call<B: BlockCipherEncBackend<BlockSize = BS>>(self, backend: &B) {
        let CbcEncrypt { iv, blocks } = self;
        let mut chain = Array::<u8, BS>::default();
        chain.copy_from_slice(iv);
        for block in blocks.iter_mut() {
            // Not `xor`: a function of this crate, which the loop's (in the
            // caller's crate) would call per block.
            chain
                .iter_mut()
                .zip(block.iter())
                .for_each(|(c, b)| *c ^= b);
            backend.encrypt_block_inplace(&mut chain);
            block.copy_from_slice(&chain);
        }
        iv.copy_from_slice(&chain);
    }
}

/// A cipher that runs CBC encryption's chain in a function of its own
/// crate, the rounds of every block in the same function as the loop
/// (`cipher_traits!` writes it for every variant), as the kernel's
/// assembler modules have CBC loops of their own. Through [`cbc_encrypt`]
/// the loop is generic code, compiled in the caller's crate, and each
/// block a call into the cipher's; rounds that need a target feature
/// cannot be inlined there at all.
pub trait CbcChain: BlockCipherEncrypt {
    /// CBC encryption of `blocks` in place, chained from `iv`, which ends
    /// as the last ciphertext block.
    fn cbc_encrypt_blocks(&self, iv: &mut Block<Self>, blocks: &mut [Block<Self>]);
}

/// CBC encryption of `buf` in place through the cipher's own loop
/// ([`CbcChain`]): the same result as [`cbc_encrypt`].
pub fn cbc_encrypt_chained<C: CbcChain>(
    c: &C,
    iv: &mut [u8],
    buf: &mut [u8],
) -> Result<(), LengthError> {
    check_iv::<C>(iv)?;
    let blocks = whole_blocks::<C>(buf)?;
    // The caller's IV itself, not a copy: a copy in and out is two more
    // stores and loads on the chain from one call to the next, which a
    // one-block call pays in full.
    let len = iv.len();
    let iv: &mut Block<C> = iv.try_into().map_err(|_| LengthError::Iv {
        len,
        block: C::block_size(),
    })?;
    c.cbc_encrypt_blocks(iv, blocks);
    Ok(())
}

/// CBC decryption of `buf` in place; `iv` ends as the last ciphertext block.
/// Each plaintext block depends on two ciphertext blocks only, so the
/// cipher decrypts as many at once as it takes.
pub fn cbc_decrypt<C: BlockCipherDecrypt>(
    c: &C,
    iv: &mut [u8],
    buf: &mut [u8],
) -> Result<(), LengthError> {
    check_iv::<C>(iv)?;
    let blocks = whole_blocks::<C>(buf)?;
    c.decrypt_with_backend(CbcDecrypt { iv, blocks });
    Ok(())
}

/// CBC decryption with the cipher's backend in hand.
struct CbcDecrypt<'a, BS: ArraySize> {
    iv: &'a mut [u8],
    blocks: &'a mut [Array<u8, BS>],
}

impl<BS: ArraySize> BlockSizeUser for CbcDecrypt<'_, BS> {
    type BlockSize = BS;
}

impl<BS: ArraySize> BlockCipherDecClosure for CbcDecrypt<'_, BS> {
    fn call<B: BlockCipherDecBackend<BlockSize = BS>>(self, backend: &B) {
        let CbcDecrypt { iv, blocks } = self;
        let mut rest = blocks;
        if B::ParBlocksSize::USIZE > 1 && rest.len() >= B::ParBlocksSize::USIZE {
            let (chunks, tail) = Array::slice_as_chunks_mut(rest);
            // Each chunk's blocks are XORed with the ciphertext before each
            // (the IV for the first), gathered in `previous` first, so that
            // one XOR covers the chunk.
            let mut previous = ParBlocks::<B>::default();
            for chunk in chunks {
                let chunk: &mut ParBlocks<B> = chunk;
                previous[0].copy_from_slice(iv);
                for (p, c) in previous[1..].iter_mut().zip(chunk.iter()) {
                    p.copy_from_slice(c);
                }
                iv.copy_from_slice(&chunk[chunk.len() - 1]);
                backend.decrypt_par_blocks_inplace(chunk);
                xor(chunk.as_flattened_mut(), previous.as_flattened());
            }
            rest = tail;
        }
        // A tail of two blocks or more goes through the backend's tail, as
        // ECB's does, XORed after as a chunk is: a variant that runs a tail
        // two blocks at a time (`tail_pairs`) overlaps them here too. One
        // block goes alone, with no chunk-sized copy.
        if B::ParBlocksSize::USIZE > 2 && rest.len() >= 2 {
            let mut previous = ParBlocks::<B>::default();
            let (first, others) = previous.split_at_mut(1);
            first[0].copy_from_slice(iv);
            for (p, c) in others.iter_mut().zip(rest.iter()) {
                p.copy_from_slice(c);
            }
            if let Some(last) = rest.last() {
                iv.copy_from_slice(last);
            }
            backend.decrypt_tail_blocks_inplace(rest);
            for (block, p) in rest.iter_mut().zip(previous.iter()) {
                xor(block, p);
            }
            return;
        }
        for block in rest {
            let ciphertext = block.clone();
            backend.decrypt_block_inplace(block);
            xor(block, iv);
            iv.copy_from_slice(&ciphertext);
        }
    }
}

fn xor(block: &mut [u8], with: &[u8]) {
    block.iter_mut().zip(with).for_each(|(b, x)| *b ^= x);
}

/// Adds one to a big-endian counter over the whole block, wrapping to zero
/// past all ones. A block of up to 16 bytes is added to as one `u128` (a
/// byte loop, which LLVM unrolls for every block of a chunk, costs ten
/// times the code); a longer one byte by byte.
fn increment(counter: &mut [u8]) {
    let n = counter.len();
    if n <= 16 {
        let mut wide = [0u8; 16];
        wide[16 - n..].copy_from_slice(counter);
        let next = u128::from_be_bytes(wide).wrapping_add(1).to_be_bytes();
        counter.copy_from_slice(&next[16 - n..]);
        return;
    }
    for byte in counter.iter_mut().rev() {
        *byte = byte.wrapping_add(1);
        if *byte != 0 {
            break;
        }
    }
}

/// CTR keystream applied to `buf` in place (encryption and decryption are the
/// same); `counter` is a big-endian counter over the whole block, advanced
/// by one per block. A trailing partial block uses part of a keystream block.
/// The counter blocks are independent, so the cipher encrypts as many at
/// once as it takes.
pub fn ctr_apply<C: BlockCipherEncrypt>(
    c: &C,
    counter: &mut [u8],
    buf: &mut [u8],
) -> Result<(), LengthError> {
    check_iv::<C>(counter)?;
    c.encrypt_with_backend(Ctr {
        counter,
        buf,
        block: core::marker::PhantomData::<C::BlockSize>,
    });
    Ok(())
}

/// CTR with the cipher's backend in hand.
struct Ctr<'a, BS: ArraySize> {
    counter: &'a mut [u8],
    buf: &'a mut [u8],
    block: core::marker::PhantomData<BS>,
}

impl<BS: ArraySize> BlockSizeUser for Ctr<'_, BS> {
    type BlockSize = BS;
}

impl<BS: ArraySize> BlockCipherEncClosure for Ctr<'_, BS> {
    fn call<B: BlockCipherEncBackend<BlockSize = BS>>(self, backend: &B) {
        let Ctr { counter, buf, .. } = self;
        let mut rest = buf;
        let lanes = B::ParBlocksSize::USIZE;
        if lanes > 1 && rest.len() >= lanes * BS::USIZE {
            let mut keystream = ParBlocks::<B>::default();
            let mut chunks = rest.chunks_exact_mut(lanes * BS::USIZE);
            for chunk in &mut chunks {
                for block in keystream.iter_mut() {
                    block.copy_from_slice(counter);
                    increment(counter);
                }
                backend.encrypt_par_blocks_inplace(&mut keystream);
                xor(chunk, keystream.as_flattened());
            }
            rest = chunks.into_remainder();
        }
        let mut keystream = Block::<B>::default();
        for chunk in rest.chunks_mut(BS::USIZE) {
            keystream.copy_from_slice(counter);
            backend.encrypt_block_inplace(&mut keystream);
            xor(chunk, &keystream);
            increment(counter);
        }
    }
}

/// XTS (IEEE P1619) encryption of one data unit in place, for 16-byte-block
/// ciphers: `k1` encrypts the data, `k2` the tweak. No ciphertext stealing:
/// `buf` must be whole blocks. The blocks are independent once their tweaks
/// are known, so `k1` encrypts as many at once as it takes.
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
    let (t, blocks) = xts_start(k2, tweak, buf)?;
    k1.encrypt_with_backend(Xts { t, blocks });
    Ok(())
}

/// XTS decryption of one data unit in place; `k2` still encrypts the tweak.
pub fn xts_decrypt<C: BlockCipherEncrypt + BlockCipherDecrypt>(
    k1: &C,
    k2: &C,
    tweak: &[u8],
    buf: &mut [u8],
) -> Result<(), LengthError> {
    let (t, blocks) = xts_start(k2, tweak, buf)?;
    k1.decrypt_with_backend(Xts { t, blocks });
    Ok(())
}

/// The first tweak, `E_k2(tweak)`, and the blocks of `buf`.
fn xts_start<'a, C: BlockCipherEncrypt>(
    k2: &C,
    tweak: &[u8],
    buf: &'a mut [u8],
) -> Result<(Block<C>, Blocks<'a, C>), LengthError> {
    check_iv::<C>(tweak)?;
    if C::block_size() != 16 {
        return Err(LengthError::Iv {
            len: C::block_size(),
            block: 16,
        });
    }
    let mut t = Block::<C>::default();
    t.copy_from_slice(tweak);
    k2.encrypt_block(&mut t);
    Ok((t, whole_blocks::<C>(buf)?))
}

/// XTS over the blocks with `k1`'s backend in hand, `t` the next tweak.
struct Xts<'a, BS: ArraySize> {
    t: Array<u8, BS>,
    blocks: &'a mut [Array<u8, BS>],
}

impl<BS: ArraySize> BlockSizeUser for Xts<'_, BS> {
    type BlockSize = BS;
}

impl<BS: ArraySize> BlockCipherEncClosure for Xts<'_, BS> {
    fn call<B: BlockCipherEncBackend<BlockSize = BS>>(self, backend: &B) {
        self.run::<B::ParBlocksSize>(
            |chunk| backend.encrypt_par_blocks_inplace(chunk),
            |block| backend.encrypt_block_inplace(block),
        );
    }
}

impl<BS: ArraySize> BlockCipherDecClosure for Xts<'_, BS> {
    fn call<B: BlockCipherDecBackend<BlockSize = BS>>(self, backend: &B) {
        self.run::<B::ParBlocksSize>(
            |chunk| backend.decrypt_par_blocks_inplace(chunk),
            |block| backend.decrypt_block_inplace(block),
        );
    }
}

impl<BS: ArraySize> Xts<'_, BS> {
    /// `P` blocks at a time through `par` when `P > 1`, the rest through
    /// `one`: each block XORed with its tweak before and after.
    fn run<P: ArraySize>(
        self,
        mut par: impl FnMut(&mut Array<Array<u8, BS>, P>),
        mut one: impl FnMut(&mut Array<u8, BS>),
    ) {
        let Xts { mut t, blocks } = self;
        let mut rest = blocks;
        if P::USIZE > 1 && rest.len() >= P::USIZE {
            let (chunks, tail) = Array::slice_as_chunks_mut(rest);
            let mut tweaks = Array::<Array<u8, BS>, P>::default();
            for chunk in chunks {
                let chunk: &mut Array<Array<u8, BS>, P> = chunk;
                for tweak in tweaks.iter_mut() {
                    tweak.copy_from_slice(&t);
                    times_alpha(&mut t);
                }
                xor(chunk.as_flattened_mut(), tweaks.as_flattened());
                par(chunk);
                xor(chunk.as_flattened_mut(), tweaks.as_flattened());
            }
            rest = tail;
        }
        for block in rest {
            xor(block, &t);
            one(block);
            xor(block, &t);
            times_alpha(&mut t);
        }
    }
}

/// `T * alpha`: a left shift of the little-endian 128-bit value, with the
/// polynomial x^128 + x^7 + x^2 + x + 1 folded back in.
/// XTS takes 16-byte blocks only (`xts_start`): shifted as one `u128`, as
/// a byte loop would cost ten times the code in every block of a chunk.
fn times_alpha(t: &mut [u8]) {
    if let Ok(t) = <&mut [u8; 16]>::try_from(&mut *t) {
        let v = u128::from_le_bytes(*t);
        *t = ((v << 1) ^ ((v >> 127) * 0x87)).to_le_bytes();
        return;
    }
    let mut carry = 0u8;
    for byte in t.iter_mut() {
        let next = *byte >> 7;
        *byte = (*byte << 1) | carry;
        carry = next;
    }
    t[0] ^= 0x87 * carry;
}
