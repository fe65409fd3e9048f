//! The `cipher` 0.5 traits every block cipher here implements, written once:
//! [`cipher_traits!`], which a cipher's module invokes with the few facts
//! that differ (its key and block sizes, how a key is set up, how a block is
//! loaded and run through the rounds, what is zeroized on drop).

use cipher::InvalidLength;
use zeroize::Zeroizing;

/// `key` followed by zero bytes up to `N` bytes (how CAST-128 and CAST-256
/// pad a short key), zeroized when dropped; `InvalidLength` if `key` is
/// longer than `N`.
pub(crate) fn zero_padded<const N: usize>(key: &[u8]) -> Result<Zeroizing<[u8; N]>, InvalidLength> {
    if key.len() > N {
        return Err(InvalidLength);
    }
    let mut padded = Zeroizing::new([0u8; N]);
    // A zip, not `padded[..key.len()]`: no bounds check, so no panic path.
    for (p, k) in padded.iter_mut().zip(key) {
        *p = *k;
    }
    Ok(padded)
}

/// Zeroizes `a` as one slice: `zeroize` writes a slice of plain integers
/// with one fill and an optimization barrier, but an array element by
/// element, each a volatile write (a byte at a time for `[u8; N]`). Every
/// key schedule's temporaries and its drop go through here.
pub(crate) fn wipe<T: zeroize::DefaultIsZeroes, const N: usize>(a: &mut [T; N]) {
    zeroize::Zeroize::zeroize(a.as_mut_slice());
}

/// The XOR of two states of the rounds (what `load` makes of two
/// blocks), as the XOR of the blocks would load: CBC encryption's chain
/// ([`cipher_traits!`]'s `CbcChain`) kept in the rounds' own form.
pub trait ChainXor: Copy {
    /// `self ^= other`.
    fn xor_in(&mut self, other: &Self);
}

impl<const N: usize> ChainXor for [u32; N] {
    #[inline(always)]
    fn xor_in(&mut self, other: &Self) {
        for (a, b) in self.iter_mut().zip(other) {
            *a ^= *b;
        }
    }
}

/// Bytes (a cipher whose rounds load their own words) XORed eight at a
/// time, as one 64-bit word each, and a byte at a time past the last
/// eight.
impl<const N: usize> ChainXor for [u8; N] {
    #[inline(always)]
    fn xor_in(&mut self, other: &Self) {
        let mut a = self.chunks_exact_mut(8);
        let mut b = other.chunks_exact(8);
        for (a, b) in (&mut a).zip(&mut b) {
            let (Ok(x), Ok(y)) = (<[u8; 8]>::try_from(&*a), <[u8; 8]>::try_from(b)) else {
                continue;
            };
            a.copy_from_slice(&(u64::from_ne_bytes(x) ^ u64::from_ne_bytes(y)).to_ne_bytes());
        }
        for (a, b) in a.into_remainder().iter_mut().zip(b.remainder()) {
            *a ^= *b;
        }
    }
}

#[cfg(target_arch = "x86_64")]
impl ChainXor for core::arch::x86_64::__m128i {
    #[inline(always)]
    fn xor_in(&mut self, other: &Self) {
        // SAFETY: `pxor` needs SSE2, which every x86-64 CPU has.
        #[allow(unsafe_code)]
        unsafe {
            *self = core::arch::x86_64::_mm_xor_si128(*self, *other);
        }
    }
}

/// A block's bytes as they are, for a cipher whose rounds work on bytes
/// (the `load` of [`cipher_traits!`]).
pub(crate) fn bytes<const N: usize>(block: &[u8; N]) -> [u8; N] {
    *block
}

/// Writes back the bytes [`bytes`] loaded (the `store` of [`cipher_traits!`]).
pub(crate) fn put_bytes<const N: usize>(state: &[u8; N], block: &mut [u8; N]) {
    *block = *state;
}

/// Implements for `$ty` the `cipher` traits: `KeySizeUser`, `KeyInit`,
/// `BlockSizeUser`, `ParBlocksSizeUser` (the variant's `Lanes`), the
/// encryption and decryption traits and their backends, `AlgorithmName`
/// (`$name` then the variant's name), a `Debug` that prints no key,
/// `available()` and, given `zeroize`, `Drop` running it and
/// `ZeroizeOnDrop`.
///
/// - `new: |key| expr` builds `Self` from `key: &Key<Self>`;
///   `new_from_slice: |key| expr` a `Result<Self, InvalidLength>` from
///   `key: &[u8]`.
/// - `load(&[u8; BLOCK]) -> State` and `store(&State, &mut [u8; BLOCK])`
///   turn a block into what the rounds work on and back;
///   `encrypt: |cipher, state| expr` runs the rounds on `state: &mut State`,
///   `encrypt_lanes: |cipher, states| expr` on the states of the
///   `ParBlocksSize` (`Lanes`) blocks of a parallel call, `&mut [State; N]`
///   (the `_lanes` copy, whose `LANES` is `N` unless a lane's state holds
///   several blocks), and `decrypt`, `decrypt_lanes` likewise.
/// - `target_feature: "aes"`: the rounds need that target feature, so each
///   block backend function (one block, `Lanes` blocks) runs its load,
///   rounds and store inside a function with it enabled, called once: the
///   rounds inline there, in this crate, whatever their callers. A type
///   given it is made only where `available` holds.
/// - `available: f` (a `fn() -> bool`): whether this CPU can run the type,
///   as its inherent `available()` answers; without it, always. A type
///   whose rounds need an instruction the CPU may lack checks in its key
///   setup too, so that no use of it reaches code this CPU cannot run.
///
/// - `tail_pairs: |cipher, states| expr, |cipher, states| expr`: the
///   rounds on two states, `&mut [State; 2]`, encryption then decryption
///   (a `_lanes_n` copy, generic over its lane count): a variant of more
///   than two lanes runs a buffer's tail two blocks at a time through them,
///   their chains overlapping (a 16-byte CAST5 call is two blocks), and
///   only an odd last block alone.
///
/// The tail of a buffer (fewer blocks than `Lanes`) goes block by block
/// (or by pairs, above) through `encrypt_block` (`decrypt_block`), as `cipher`'s default does,
/// without its `assert!` on the tail's length, which embeds a source
/// location in every artifact whose lane count is not a power of two (the
/// callers in `cipher` and `modes` hand it fewer than `Lanes` blocks).
macro_rules! cipher_traits {
    (
        $ty:ident {
            name: $name:literal,
            key_size: $key:ty,
            block_size: $block:ty,
            new: |$nk:ident| $new:expr,
            new_from_slice: |$sk:ident| $from_slice:expr,
            load: $load:path,
            store: $store:path,
            encrypt: |$ec:ident, $es:ident| $enc:expr,
            encrypt_lanes: |$elc:ident, $els:ident| $enc_lanes:expr,
            decrypt: |$dc:ident, $ds:ident| $dec:expr,
            decrypt_lanes: |$dlc:ident, $dls:ident| $dec_lanes:expr,
            $(target_feature: $feature:literal,)?
            $(tail_pairs: |$pec:ident, $pes:ident| $pair_enc:expr, |$pdc:ident, $pds:ident| $pair_dec:expr,)?
            $(available: $available:path,)?
            $(zeroize: |$z:ident| $zeroize:block,)?
        }
    ) => {
        impl ::cipher::KeySizeUser for $ty {
            type KeySize = $key;
        }

        impl ::cipher::KeyInit for $ty {
            fn new($nk: &::cipher::Key<Self>) -> Self {
                $new
            }

            fn new_from_slice($sk: &[u8]) -> Result<Self, ::cipher::InvalidLength> {
                $from_slice
            }
        }

        impl ::cipher::BlockSizeUser for $ty {
            type BlockSize = $block;
        }

        impl ::cipher::ParBlocksSizeUser for $ty {
            type ParBlocksSize = Lanes;
        }

        cipher_traits!(@direction $ty, $block, $load, $store, [$($feature)?],
            BlockCipherEncrypt encrypt_with_backend BlockCipherEncClosure,
            BlockCipherEncBackend encrypt_block encrypt_par_blocks encrypt_tail_blocks,
            |$ec, $es| $enc, |$elc, $els| $enc_lanes, [$(|$pec, $pes| $pair_enc)?]);
        cipher_traits!(@direction $ty, $block, $load, $store, [$($feature)?],
            BlockCipherDecrypt decrypt_with_backend BlockCipherDecClosure,
            BlockCipherDecBackend decrypt_block decrypt_par_blocks decrypt_tail_blocks,
            |$dc, $ds| $dec, |$dlc, $dls| $dec_lanes, [$(|$pdc, $pds| $pair_dec)?]);

        // CBC encryption's chain in this crate: the loop and every block's
        // rounds in one function (with the target feature, when given), the
        // rounds inlined there as the variant's policy has them in the
        // one-block backend function. The chain stays in the rounds' own
        // form: a block is loaded and XORed with the previous ciphertext as
        // loaded (`load` is a permutation of bytes, so it commutes with
        // XOR), and stored off the chain, not stored, XORed as bytes and
        // loaded again between every two blocks.
        impl $crate::modes::CbcChain for $ty {
            fn cbc_encrypt_blocks(
                &self,
                iv: &mut ::cipher::Block<Self>,
                blocks: &mut [::cipher::Block<Self>],
            ) {
                cipher_traits!(@with [$($feature)?] (c: &$ty = self, iv: &mut ::cipher::Block<$ty> = iv, blocks: &mut [::cipher::Block<$ty>] = blocks) {
                    let $ec = c;
                    let mut chain = $load(iv.as_ref());
                    for block in blocks.iter_mut() {
                        let $es = &mut $load(block.as_ref());
                        $crate::traits::ChainXor::xor_in($es, &chain);
                        $enc;
                        $store($es, block.as_mut());
                        chain = *$es;
                    }
                    $store(&chain, iv.as_mut());
                })
            }
        }

        impl ::cipher::AlgorithmName for $ty {
            fn write_alg_name(f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                f.write_str($name)?;
                f.write_str(VARIANT)
            }
        }

        impl ::core::fmt::Debug for $ty {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                f.write_str(concat!(stringify!($ty), " { ... }"))
            }
        }

        $(
            impl Drop for $ty {
                fn drop(&mut self) {
                    let $z = self;
                    $zeroize
                }
            }

            impl ::zeroize::ZeroizeOnDrop for $ty {}
        )?

        // Last, and through a macro expanded after the two directions': an
        // impl's place among the module's impls, in the order they are
        // expanded, is in the symbols of those after it, and so in every
        // artifact's bytes.
        cipher_traits!(@inherent $ty [$($available)?]);
    };
    (@inherent $ty:ident [$($available:path)?]) => {
        impl $ty {
            /// Whether this CPU can run this type. Where it cannot, key setup
            /// stops (a trap) rather than run instructions the CPU lacks.
            #[inline]
            pub fn available() -> bool {
                cipher_traits!(@available $($available)?)
            }
        }
    };
    (@available) => {
        true
    };
    (@available $available:path) => {
        $available()
    };
    // `tail_pairs`: with more than two lanes, a tail's blocks go two at a
    // time through the `_lanes_n` copy of the rounds on two lanes, their
    // chains overlapping as a two-lane variant runs them; an odd last one
    // is left to the one-block function. Without it, nothing.
    (@pairs [] [$($feature:literal)?] $this:ident, $blocks:ident, $ty:ident, $load:path, $store:path) => {};
    (@pairs [|$pc:ident, $ps:ident| $run_pair:expr] [$($feature:literal)?] $this:ident, $blocks:ident, $ty:ident, $load:path, $store:path) => {
        over_two_lanes! {
            let (pairs, rest) = $blocks.into_chunks::<::cipher::consts::U2>();
            for pair in pairs {
                cipher_traits!(@with [$($feature)?] (c: &$ty = $this, pair: ::cipher::InOut<'_, '_, ::cipher::Array<::cipher::Block<$ty>, ::cipher::consts::U2>> = pair) {
                    let mut pair = pair;
                    let $pc = c;
                    let $ps = &mut ::core::array::from_fn::<_, 2, _>(|l| {
                        $load(pair.get_in()[l].as_ref())
                    });
                    $run_pair;
                    for (block, state) in pair.get_out().iter_mut().zip(&*$ps) {
                        $store(state, block.as_mut());
                    }
                })
            }
            $blocks = rest;
        }
    };
    // A backend function's body: as it is, or, with a target feature, in a
    // function of its own with that feature enabled, called once.
    (@with [] ($($arg:ident: $t:ty = $v:expr),*) $body:block) => {{
        $(let $arg: $t = $v;)*
        $body
    }};
    (@with [$feature:literal] ($($arg:ident: $t:ty = $v:expr),*) $body:block) => {{
        #[target_feature(enable = $feature)]
        fn with_feature($($arg: $t),*) $body
        // SAFETY: a type given `target_feature` is made only where its
        // `available` holds (its key setup checks), and that is all
        // `with_feature` needs.
        #[allow(unsafe_code)]
        unsafe {
            with_feature($($v),*)
        }
    }};
    // One direction, encryption or decryption: the `cipher` trait, its
    // backend trait and their methods, named, and the rounds to run.
    (
        @direction $ty:ident, $block:ty, $load:path, $store:path, [$($feature:literal)?],
        $Cipher:ident $with_backend:ident $Closure:ident,
        $Backend:ident $one:ident $par:ident $tail:ident,
        |$c:ident, $s:ident| $run:expr, |$lc:ident, $ls:ident| $run_lanes:expr,
        [$(|$pc:ident, $ps:ident| $run_pair:expr)?]
    ) => {
        impl ::cipher::$Cipher for $ty {
            #[inline]
            fn $with_backend(&self, f: impl ::cipher::$Closure<BlockSize = $block>) {
                f.call(self)
            }
        }

        impl ::cipher::$Backend for $ty {
            fn $one(&self, block: ::cipher::InOut<'_, '_, ::cipher::Block<Self>>) {
                cipher_traits!(@with [$($feature)?] (c: &$ty = self, block: ::cipher::InOut<'_, '_, ::cipher::Block<$ty>> = block) {
                    let mut block = block;
                    let $c = c;
                    let $s = &mut $load(block.get_in().as_ref());
                    $run;
                    $store($s, block.get_out().as_mut());
                })
            }

            /// `Lanes` blocks at once, round by round (with one block,
            /// `cipher` takes them one by one instead).
            fn $par(&self, blocks: ::cipher::InOut<'_, '_, ::cipher::ParBlocks<Self>>) {
                cipher_traits!(@with [$($feature)?] (c: &$ty = self, blocks: ::cipher::InOut<'_, '_, ::cipher::ParBlocks<$ty>> = blocks) {
                    let mut blocks = blocks;
                    let $lc = c;
                    let $ls = &mut ::core::array::from_fn::<_, {
                        <<$ty as ::cipher::ParBlocksSizeUser>::ParBlocksSize as ::cipher::typenum::Unsigned>::USIZE
                    }, _>(|l| {
                        $load(blocks.get_in()[l].as_ref())
                    });
                    $run_lanes;
                    for (block, state) in blocks.get_out().iter_mut().zip(&*$ls) {
                        $store(state, block.as_mut());
                    }
                })
            }

            #[inline(always)]
            fn $tail(&self, blocks: ::cipher::InOutBuf<'_, '_, ::cipher::Block<Self>>) {
                #[allow(unused_mut)]
                let mut blocks = blocks;
                cipher_traits!(@pairs [$(|$pc, $ps| $run_pair)?] [$($feature)?] self, blocks, $ty, $load, $store);
                for block in blocks {
                    self.$one(block);
                }
            }
        }
    };
}
