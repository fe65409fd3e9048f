//! One variant of one cipher or checksum, or one peer crate, alone in a
//! `no_std` shared object with the C ABI of [`abi`]. `cargo xtask compare`
//! builds one per variant (`INLINELAB_VARIANT=cast6::never`, which makes
//! `variants` compile that variant alone and define `variants::selected!`),
//! or per peer (`--features peer-cast6`), reads its size, and hands the very
//! same file to the harness to time.

// `no_std` in the measured builds (the `artifact` profile aborts on panic),
// except for a peer that needs std. Workspace-wide builds unwind, which a
// `no_std` cdylib cannot, so there the crate links std; those builds are
// only compiled and linted, never measured.
#![cfg_attr(all(panic = "abort", not(feature = "std")), no_std)]

use abi::{Keying, Op};
use core::ffi::c_char;
use core::mem::{MaybeUninit, align_of, size_of};

/// A step of a streamed hash (`inlinelab_crypt`'s [`Op::HashInit`],
/// [`Op::HashUpdate`], [`Op::HashFinal`]).
#[allow(dead_code)] // a cipher's artifact never reads it
enum Step<'a> {
    /// The state set fresh.
    Init,
    /// These bytes hashed into the state.
    Update(&'a [u8]),
    /// The digest written to the first bytes of this buffer, the state set
    /// fresh.
    Final(&'a mut [u8]),
}

/// What an artifact holds: a keyed context and the operations on it.
trait Artifact {
    type Ctx;
    const BLOCK: usize;
    /// The IV [`Op::StreamEncrypt`] and [`Op::StreamDecrypt`] read: a
    /// stream cipher's nonce (at most [`abi::MAX_IV`] bytes); every other
    /// operation's IV is one block.
    const IV: usize = Self::BLOCK;
    /// A hash's digest length in bytes; 0 for a block cipher.
    const DIGEST: usize = 0;
    /// Whether this CPU runs it (a form on instructions it may lack asks
    /// CPUID): [`abi::UNAVAILABLE_CPU`] when not.
    fn available() -> bool {
        true
    }
    /// Whether the libraries it calls could be made ready here (a library
    /// peer's OpenSSL provider loaded): [`abi::UNAVAILABLE_LIBRARY`] when
    /// not. Asked only where [`Artifact::available`] said yes.
    fn ready() -> bool {
        true
    }
    /// Keys the context at `ctx`, an [`abi`] return code.
    ///
    /// # Safety
    /// `ctx` is valid for writes of a `Ctx` and holds no keyed context.
    unsafe fn set_key(ctx: *mut Self::Ctx, keying: Keying, key: &[u8]) -> i32;
    /// Drops the keyed context at `ctx`.
    ///
    /// # Safety
    /// `ctx` holds a context keyed by [`Artifact::set_key`], not cleared since.
    unsafe fn clear(ctx: *mut Self::Ctx);
    fn crypt(ctx: &Self::Ctx, op: Op, iv: &mut [u8], buf: &mut [u8]) -> i32;
    /// One step of a streamed hash on the state in `ctx`, an [`abi`]
    /// return code; a block cipher has none.
    fn hash(_ctx: &mut Self::Ctx, _step: Step<'_>) -> i32 {
        abi::ERR_OP
    }
    /// The tag an AEAD's [`Op::AeadEncrypt`] writes and
    /// [`Op::AeadDecrypt`] reads, in bytes (at most [`abi::MAX_TAG`]); 0
    /// for anything else.
    const TAG: usize = 0;
    /// An AEAD's operation, an [`abi`] return code: `len` bytes at `buf`,
    /// the nonce, associated data, tag and output in `io`; nothing else
    /// has one.
    ///
    /// # Safety
    /// As `inlinelab_crypt`'s for an AEAD's operation: `buf` valid for
    /// `len` bytes, `io`'s `aad` for `aad_len`, its `out` null or valid
    /// for `len` bytes apart from `buf`.
    unsafe fn aead(
        _ctx: &Self::Ctx,
        _op: Op,
        _io: &mut abi::AeadIo,
        _buf: *mut u8,
        _len: usize,
    ) -> i32 {
        abi::ERR_OP
    }
}

/// A block cipher, through the shared mode loops; its CBC encryption's
/// loop chosen by `L` ([`GenericCbc`] unless the cipher has its own).
#[allow(dead_code)] // unused in a checksum's or a library peer's artifact
struct CipherArtifact<C, L = GenericCbc>(core::marker::PhantomData<(C, L)>);

/// Which loop runs a block cipher's CBC encryption.
///
/// Used only through [`CipherArtifact`], so unused where that is: in an
/// artifact of a checksum, a library peer or a crate's hash, MAC or stream
/// cipher. Which kind an artifact holds is chosen by a macro from the
/// environment (`variants::selected!`) or by a peer's feature, not by a
/// `cfg` this file could gate the block cipher's items on, so each of them
/// allows being unused, as [`CipherArtifact`] does.
#[allow(dead_code)]
trait CbcLoop<C> {
    fn encrypt(c: &C, iv: &mut [u8], buf: &mut [u8]) -> Result<(), modes::LengthError>;
}

/// The mode loop every peer and crate runs, as the `cbc` crate does
/// (`modes::cbc_encrypt`).
#[allow(dead_code)] // unused in a checksum's or a library peer's artifact
struct GenericCbc;

impl<C: cipher::BlockCipherEncrypt> CbcLoop<C> for GenericCbc {
    fn encrypt(c: &C, iv: &mut [u8], buf: &mut [u8]) -> Result<(), modes::LengthError> {
        modes::cbc_encrypt(c, iv, buf)
    }
}

/// A variant's own loop (`modes::cbc_encrypt_chained`): its rounds in the
/// loop's function, in its crate.
#[allow(dead_code)] // unused in a peer's artifact
struct OwnCbc;

impl<C: modes::CbcChain> CbcLoop<C> for OwnCbc {
    fn encrypt(c: &C, iv: &mut [u8], buf: &mut [u8]) -> Result<(), modes::LengthError> {
        modes::cbc_encrypt_chained(c, iv, buf)
    }
}

/// A block cipher's context: the data cipher, and for XTS the tweak cipher.
/// Each is written in place, so that keying one cipher costs what it did
/// before XTS had a context: one key schedule, one store of it.
#[allow(dead_code)] // unused in a checksum's or a library peer's artifact
struct Keyed<C> {
    k1: C,
    /// Written only by [`Keying::Xts`].
    k2: MaybeUninit<C>,
    xts: bool,
    /// The key's length, for the `fault-slow-key24` fault.
    #[cfg(feature = "fault-slow-key24")]
    key_len: usize,
}

impl<C, L> Artifact for CipherArtifact<C, L>
where
    C: cipher::KeyInit + cipher::BlockCipherEncrypt + cipher::BlockCipherDecrypt,
    L: CbcLoop<C>,
{
    type Ctx = Keyed<C>;
    const BLOCK: usize = <C::BlockSize as cipher::typenum::Unsigned>::USIZE;

    unsafe fn set_key(ctx: *mut Keyed<C>, keying: Keying, key: &[u8]) -> i32 {
        let (one, two) = match keying {
            Keying::One => (key, None),
            Keying::Xts if key.len().is_multiple_of(2) => {
                let (a, b) = key.split_at(key.len() / 2);
                (a, Some(b))
            }
            Keying::Xts => return abi::ERR_LENGTH,
        };
        // Fault injection (tests only): the (data) key schedule runs twice.
        #[cfg(feature = "fault-slow-setkey")]
        core::hint::black_box(C::new_from_slice(one).ok());
        let Ok(k1) = C::new_from_slice(one) else {
            return abi::ERR_LENGTH;
        };
        let k2 = match two.map(C::new_from_slice) {
            None => None,
            Some(Ok(k2)) => Some(k2),
            Some(Err(_)) => return abi::ERR_LENGTH,
        };
        // SAFETY: the caller guarantees `ctx` is valid for writes of a
        // `Keyed<C>`; each field is written through a raw place, never read.
        unsafe {
            (&raw mut (*ctx).k1).write(k1);
            (&raw mut (*ctx).xts).write(k2.is_some());
            if let Some(k2) = k2 {
                (&raw mut (*ctx).k2).write(MaybeUninit::new(k2));
            }
            #[cfg(feature = "fault-slow-key24")]
            (&raw mut (*ctx).key_len).write(key.len());
        }
        abi::OK
    }

    unsafe fn clear(ctx: *mut Keyed<C>) {
        // SAFETY: the caller guarantees a keyed context: `k1` is live, and
        // `k2` is when `xts` says so.
        unsafe {
            if (*ctx).xts {
                (*ctx).k2.assume_init_drop();
            }
            (&raw mut (*ctx).k1).drop_in_place();
        }
    }

    fn crypt(ctx: &Keyed<C>, op: Op, iv: &mut [u8], buf: &mut [u8]) -> i32 {
        let c = &ctx.k1;
        let result = match op {
            Op::EcbEncrypt => modes::ecb_encrypt(c, buf),
            Op::EcbDecrypt => modes::ecb_decrypt(c, buf),
            Op::CbcEncrypt => L::encrypt(c, iv, buf),
            Op::CbcDecrypt => modes::cbc_decrypt(c, iv, buf),
            Op::CtrEncrypt | Op::CtrDecrypt => modes::ctr_apply(c, iv, buf),
            Op::XtsEncrypt | Op::XtsDecrypt => {
                if !ctx.xts {
                    return abi::ERR_KEYING;
                }
                // SAFETY: `xts` says an XTS keying wrote `k2`.
                let k2 = unsafe { ctx.k2.assume_init_ref() };
                if op == Op::XtsEncrypt {
                    modes::xts_encrypt(c, k2, iv, buf)
                } else {
                    modes::xts_decrypt(c, k2, iv, buf)
                }
            }
            Op::Digest
            | Op::HashInit
            | Op::HashUpdate
            | Op::HashFinal
            | Op::StreamEncrypt
            | Op::StreamDecrypt
            | Op::AeadEncrypt
            | Op::AeadDecrypt => return abi::ERR_OP,
        };
        // Fault injection (tests only): one extra block of work per call,
        // in every operation or only in some.
        let extra = cfg!(feature = "fault-extra-block")
            || (cfg!(feature = "fault-slow-ctr") && op.is_ctr())
            || (cfg!(feature = "fault-slow-decrypt") && op.decrypts());
        #[cfg(feature = "fault-slow-key24")]
        let extra = extra || ctx.key_len == 24;
        if extra {
            extra_block(c, Self::BLOCK);
        }
        // Fault injection (tests only): a wrong result, which the check
        // against the oracle must refuse before anything is timed.
        #[cfg(feature = "fault-wrong-output")]
        if let Some(b) = buf.last_mut() {
            *b ^= 1;
        }
        if result.is_ok() {
            abi::OK
        } else {
            abi::ERR_LENGTH
        }
    }
}

/// One block of real work that cannot be optimised away (fault injection).
#[allow(dead_code)] // unused in a checksum's or a library peer's artifact
#[inline(never)]
fn extra_block<C: cipher::BlockCipherEncrypt>(c: &C, block: usize) {
    let mut scratch = [0u8; 64];
    let _ = modes::ecb_encrypt(c, &mut scratch[..block]);
    core::hint::black_box(&scratch);
}

/// A checksum (CRC32C): no key, its state the checksum so far (a `u32`),
/// its digest that `u32`'s four little-endian bytes: `$digest` of a whole
/// buffer, `$append` of more bytes to a checksum so far.
#[allow(unused_macros)] // unused in a cipher's artifact
macro_rules! digest_artifact {
    ($name:ident, $digest:expr, $append:expr, $available:expr) => {
        struct $name;

        impl Artifact for $name {
            type Ctx = u32;
            const BLOCK: usize = 1;
            const DIGEST: usize = 4;

            fn available() -> bool {
                $available()
            }

            unsafe fn set_key(ctx: *mut u32, keying: Keying, key: &[u8]) -> i32 {
                match (keying, key.is_empty()) {
                    (Keying::One, true) => {
                        // SAFETY: the caller guarantees `ctx` is valid for
                        // writes of the context.
                        unsafe { ctx.write(0) };
                        abi::OK
                    }
                    (Keying::One, false) => abi::ERR_LENGTH,
                    (Keying::Xts, _) => abi::ERR_OP,
                }
            }

            unsafe fn clear(_: *mut u32) {}

            fn crypt(_: &u32, op: Op, _: &mut [u8], buf: &mut [u8]) -> i32 {
                if op != Op::Digest {
                    return abi::ERR_OP;
                }
                // `Option::from`: a variant's `try_crc32c` is `None` where
                // this CPU lacks its method, a peer's digest is a `u32`.
                let Some(d) = Option::<u32>::from($digest(&*buf)) else {
                    return abi::ERR_OP;
                };
                buf.iter_mut()
                    .zip(d.to_le_bytes())
                    .for_each(|(b, x)| *b ^= x);
                #[cfg(feature = "fault-wrong-output")]
                if let Some(b) = buf.first_mut() {
                    *b ^= 1;
                }
                abi::OK
            }

            fn hash(ctx: &mut u32, step: Step<'_>) -> i32 {
                match step {
                    Step::Init => *ctx = 0,
                    Step::Update(data) => {
                        let Some(c) = Option::<u32>::from($append(*ctx, data)) else {
                            return abi::ERR_OP;
                        };
                        *ctx = c;
                    }
                    Step::Final(out) => {
                        let Some(out) = out.get_mut(..4) else {
                            return abi::ERR_LENGTH;
                        };
                        out.iter_mut()
                            .zip(ctx.to_le_bytes())
                            .for_each(|(o, x)| *o = x);
                        #[cfg(feature = "fault-wrong-output")]
                        {
                            out[0] ^= 1;
                        }
                        *ctx = 0;
                    }
                }
                abi::OK
            }
        }
    };
}

/// A hash of a crate under test (`compare --crate`): any type with
/// `digest` 0.11's `Default + Update + FixedOutput`, its context the
/// hasher's state.
#[allow(dead_code)] // unused unless a crate's hash is selected
struct HashArtifact<D>(core::marker::PhantomData<D>);

impl<D: Default + digest::Update + digest::FixedOutput> Artifact for HashArtifact<D> {
    type Ctx = D;
    const BLOCK: usize = 1;
    const DIGEST: usize = <D::OutputSize as digest::typenum::Unsigned>::USIZE;

    unsafe fn set_key(ctx: *mut D, keying: Keying, key: &[u8]) -> i32 {
        match (keying, key.is_empty()) {
            (Keying::One, true) => {
                // SAFETY: the caller guarantees `ctx` is valid for writes of
                // a `D` and holds no live one.
                unsafe { ctx.write(D::default()) };
                abi::OK
            }
            (Keying::One, false) => abi::ERR_LENGTH,
            (Keying::Xts, _) => abi::ERR_OP,
        }
    }

    unsafe fn clear(ctx: *mut D) {
        // SAFETY: the caller guarantees a live state, written by `set_key`.
        unsafe { ctx.drop_in_place() };
    }

    fn crypt(_: &D, op: Op, _: &mut [u8], buf: &mut [u8]) -> i32 {
        if op != Op::Digest {
            return abi::ERR_OP;
        }
        let mut h = D::default();
        digest::Update::update(&mut h, buf);
        let d = digest::FixedOutput::finalize_fixed(h);
        buf.iter_mut().zip(d.iter()).for_each(|(b, x)| *b ^= x);
        #[cfg(feature = "fault-wrong-output")]
        if let Some(b) = buf.first_mut() {
            *b ^= 1;
        }
        abi::OK
    }

    fn hash(ctx: &mut D, step: Step<'_>) -> i32 {
        match step {
            Step::Init => *ctx = D::default(),
            Step::Update(data) => digest::Update::update(ctx, data),
            Step::Final(out) => {
                let Some(out) = out.get_mut(..Self::DIGEST) else {
                    return abi::ERR_LENGTH;
                };
                let d = digest::FixedOutput::finalize_fixed(core::mem::take(ctx));
                out.iter_mut().zip(d.iter()).for_each(|(o, x)| *o = *x);
                #[cfg(feature = "fault-wrong-output")]
                if let Some(b) = out.first_mut() {
                    *b ^= 1;
                }
            }
        }
        abi::OK
    }
}

/// A MAC of a crate under test (`compare --crate`): any type with the
/// traits `digest` 0.11's `Mac` is implemented over (`Update +
/// FixedOutput`, its marker left out), keyed by `KeyInit` and `Clone`d, as
/// `hmac::Hmac<sha2::Sha256>`. It goes through a hash's operations: keyed
/// by `inlinelab_set_key` with the MAC's key, [`Op::Digest`] the tag of the
/// buffer under that key, and the streamed steps a tag computed in parts.
#[allow(dead_code)] // unused unless a crate's MAC is selected
struct MacArtifact<M>(core::marker::PhantomData<M>);

/// A MAC's context: the MAC as its key made it (what a fresh tag starts
/// from, cloned), and the state of the tag being streamed.
#[allow(dead_code)] // unused unless a crate's MAC is selected
struct MacKeyed<M> {
    keyed: M,
    state: M,
}

impl<M: digest::common::KeyInit + digest::Update + digest::FixedOutput + Clone> Artifact
    for MacArtifact<M>
{
    type Ctx = MacKeyed<M>;
    const BLOCK: usize = 1;
    const DIGEST: usize = <M::OutputSize as digest::typenum::Unsigned>::USIZE;

    unsafe fn set_key(ctx: *mut MacKeyed<M>, keying: Keying, key: &[u8]) -> i32 {
        if keying != Keying::One {
            return abi::ERR_OP;
        }
        let Ok(keyed) = M::new_from_slice(key) else {
            return abi::ERR_LENGTH;
        };
        let state = keyed.clone();
        // SAFETY: the caller guarantees `ctx` is valid for writes of a
        // `MacKeyed<M>` and holds no live one.
        unsafe { ctx.write(MacKeyed { keyed, state }) };
        abi::OK
    }

    unsafe fn clear(ctx: *mut MacKeyed<M>) {
        // SAFETY: the caller guarantees a live context, written by `set_key`.
        unsafe { ctx.drop_in_place() };
    }

    fn crypt(ctx: &MacKeyed<M>, op: Op, _: &mut [u8], buf: &mut [u8]) -> i32 {
        if op != Op::Digest {
            return abi::ERR_OP;
        }
        let mut m = ctx.keyed.clone();
        digest::Update::update(&mut m, buf);
        let d = digest::FixedOutput::finalize_fixed(m);
        buf.iter_mut().zip(d.iter()).for_each(|(b, x)| *b ^= x);
        #[cfg(feature = "fault-wrong-output")]
        if let Some(b) = buf.first_mut() {
            *b ^= 1;
        }
        abi::OK
    }

    fn hash(ctx: &mut MacKeyed<M>, step: Step<'_>) -> i32 {
        match step {
            Step::Init => ctx.state = ctx.keyed.clone(),
            Step::Update(data) => digest::Update::update(&mut ctx.state, data),
            Step::Final(out) => {
                let Some(out) = out.get_mut(..Self::DIGEST) else {
                    return abi::ERR_LENGTH;
                };
                let fresh = ctx.keyed.clone();
                let d =
                    digest::FixedOutput::finalize_fixed(core::mem::replace(&mut ctx.state, fresh));
                out.iter_mut().zip(d.iter()).for_each(|(o, x)| *o = *x);
                #[cfg(feature = "fault-wrong-output")]
                if let Some(b) = out.first_mut() {
                    *b ^= 1;
                }
            }
        }
        abi::OK
    }
}

/// A universal hash of a crate under test (`compare --crate`): any type
/// with `universal-hash` 0.6's `KeyInit + UniversalHash`, `Clone`d, as
/// `polyval::Polyval` and `poly1305::Poly1305`. It goes through a hash's
/// operations as a MAC does ([`MacArtifact`]), keyed by
/// `inlinelab_set_key`; since a universal hash takes whole blocks, the
/// digest of a message is the tag of the message zero-padded to whole
/// blocks (`update_padded`'s), and a streamed one buffers a partial block
/// until the next update or the final step pads it. Only in a shim built
/// with `under-test-uhash`, which adds the `universal-hash` dependency.
#[cfg(feature = "under-test-uhash")]
#[allow(dead_code)] // unused unless a crate's universal hash is selected
struct UhashArtifact<U>(core::marker::PhantomData<U>);

/// A universal hash's context: the hash as its key made it (what a fresh
/// tag starts from, cloned), the state of the tag being streamed, and the
/// partial block not yet handed to it.
#[cfg(feature = "under-test-uhash")]
#[allow(dead_code)] // unused unless a crate's universal hash is selected
struct UhashKeyed<U: universal_hash::UniversalHash> {
    keyed: U,
    state: U,
    pending: universal_hash::Block<U>,
    pending_len: usize,
}

#[cfg(feature = "under-test-uhash")]
impl<U: universal_hash::KeyInit + universal_hash::UniversalHash + Clone> Artifact
    for UhashArtifact<U>
{
    type Ctx = UhashKeyed<U>;
    const BLOCK: usize = 1;
    const DIGEST: usize = <U::BlockSize as universal_hash::typenum::Unsigned>::USIZE;

    unsafe fn set_key(ctx: *mut UhashKeyed<U>, keying: Keying, key: &[u8]) -> i32 {
        if keying != Keying::One {
            return abi::ERR_OP;
        }
        let Ok(keyed) = U::new_from_slice(key) else {
            return abi::ERR_LENGTH;
        };
        let state = keyed.clone();
        // SAFETY: the caller guarantees `ctx` is valid for writes of a
        // `UhashKeyed<U>` and holds no live one.
        unsafe {
            ctx.write(UhashKeyed {
                keyed,
                state,
                pending: Default::default(),
                pending_len: 0,
            })
        };
        abi::OK
    }

    unsafe fn clear(ctx: *mut UhashKeyed<U>) {
        // SAFETY: the caller guarantees a live context, written by `set_key`.
        unsafe { ctx.drop_in_place() };
    }

    fn crypt(ctx: &UhashKeyed<U>, op: Op, _: &mut [u8], buf: &mut [u8]) -> i32 {
        if op != Op::Digest {
            return abi::ERR_OP;
        }
        let mut u = ctx.keyed.clone();
        u.update_padded(buf);
        let d = u.finalize();
        buf.iter_mut().zip(d.iter()).for_each(|(b, x)| *b ^= x);
        #[cfg(feature = "fault-wrong-output")]
        if let Some(b) = buf.first_mut() {
            *b ^= 1;
        }
        abi::OK
    }

    fn hash(ctx: &mut UhashKeyed<U>, step: Step<'_>) -> i32 {
        let n = Self::DIGEST;
        match step {
            Step::Init => {
                ctx.state = ctx.keyed.clone();
                ctx.pending_len = 0;
            }
            Step::Update(mut data) => {
                if ctx.pending_len > 0 {
                    let take = (n - ctx.pending_len).min(data.len());
                    let at = ctx.pending_len;
                    ctx.pending[at..at + take].copy_from_slice(&data[..take]);
                    ctx.pending_len += take;
                    data = &data[take..];
                    if ctx.pending_len < n {
                        return abi::OK;
                    }
                    ctx.state.update(core::slice::from_ref(&ctx.pending));
                    ctx.pending_len = 0;
                }
                let whole = data.len() - data.len() % n;
                let (blocks, _) = universal_hash::array::Array::slice_as_chunks(&data[..whole]);
                ctx.state.update(blocks);
                let rest = &data[whole..];
                ctx.pending[..rest.len()].copy_from_slice(rest);
                ctx.pending_len = rest.len();
            }
            Step::Final(out) => {
                let Some(out) = out.get_mut(..n) else {
                    return abi::ERR_LENGTH;
                };
                let fresh = ctx.keyed.clone();
                let mut state = core::mem::replace(&mut ctx.state, fresh);
                if ctx.pending_len > 0 {
                    ctx.pending[ctx.pending_len..].fill(0);
                    state.update(core::slice::from_ref(&ctx.pending));
                    ctx.pending_len = 0;
                }
                let d = state.finalize();
                out.iter_mut().zip(d.iter()).for_each(|(o, x)| *o = *x);
                #[cfg(feature = "fault-wrong-output")]
                if let Some(b) = out.first_mut() {
                    *b ^= 1;
                }
            }
        }
        abi::OK
    }
}

/// A stream cipher of a crate under test (`compare --crate`): any type
/// with `cipher` 0.5's `KeyIvInit + StreamCipher`, as `chacha20::ChaCha20`.
/// `inlinelab_set_key` keeps the key's bytes (a length the type takes, with
/// a zero nonce); each [`Op::StreamEncrypt`] or [`Op::StreamDecrypt`] makes
/// the cipher from the key and the nonce at `iv` and applies its keystream
/// from position 0 to the whole buffer, as the kernel's `chacha20` inits
/// each request. `cipher` is a dependency already: no feature of its own.
#[allow(dead_code)] // unused unless a crate's stream cipher is selected
struct StreamArtifact<C>(core::marker::PhantomData<C>);

/// A stream cipher's context: its key's bytes (at most 64, the longest
/// the intake asks of it).
#[allow(dead_code)] // unused unless a crate's stream cipher is selected
struct StreamKeyed {
    key: [u8; 64],
    len: usize,
}

impl<C: cipher::KeyIvInit + cipher::StreamCipher> Artifact for StreamArtifact<C> {
    type Ctx = StreamKeyed;
    const BLOCK: usize = 1;
    const IV: usize = <C::IvSize as cipher::typenum::Unsigned>::USIZE;

    unsafe fn set_key(ctx: *mut StreamKeyed, keying: Keying, key: &[u8]) -> i32 {
        if keying != Keying::One {
            return abi::ERR_OP;
        }
        let zero = [0u8; abi::MAX_IV];
        let Some(nonce) = zero.get(..Self::IV) else {
            return abi::ERR_LENGTH;
        };
        let mut bytes = [0u8; 64];
        let Some(to) = bytes.get_mut(..key.len()) else {
            return abi::ERR_LENGTH;
        };
        if C::new_from_slices(key, nonce).is_err() {
            return abi::ERR_LENGTH;
        }
        to.copy_from_slice(key);
        // SAFETY: the caller guarantees `ctx` is valid for writes of a
        // `StreamKeyed` and holds no live one.
        unsafe {
            ctx.write(StreamKeyed {
                key: bytes,
                len: key.len(),
            })
        };
        abi::OK
    }

    unsafe fn clear(ctx: *mut StreamKeyed) {
        // SAFETY: the caller guarantees a live context, written by
        // `set_key`; the key's bytes are overwritten, as a cipher's
        // zeroizing drop would.
        unsafe {
            let keyed = &mut *ctx;
            core::ptr::write_volatile(&mut keyed.key, [0; 64]);
            keyed.len = 0;
        }
    }

    fn crypt(ctx: &StreamKeyed, op: Op, iv: &mut [u8], buf: &mut [u8]) -> i32 {
        if !op.is_stream() {
            return abi::ERR_OP;
        }
        let (Some(key), Some(nonce)) = (ctx.key.get(..ctx.len), iv.get(..Self::IV)) else {
            return abi::ERR_LENGTH;
        };
        let Ok(mut c) = C::new_from_slices(key, nonce) else {
            return abi::ERR_LENGTH;
        };
        if c.try_apply_keystream(buf).is_err() {
            return abi::ERR_LENGTH;
        }
        #[cfg(feature = "fault-wrong-output")]
        if let Some(b) = buf.last_mut() {
            *b ^= 1;
        }
        abi::OK
    }
}

/// An AEAD of a crate under test (`compare --crate`): any type with
/// `aead` 0.6's `KeyInit + AeadInOut`, as `aes_gcm::Aes128Gcm`. Its
/// context the keyed AEAD; [`Op::AeadEncrypt`] is
/// `encrypt_inout_detached` and [`Op::AeadDecrypt`]
/// `decrypt_inout_detached`, with the nonce, associated data and tag of
/// the [`abi::AeadIo`] at `iv`, in place or to its `out`; a tag that does
/// not match is [`abi::ERR_TAG`]. Only with `under-test-aead`, which adds
/// the `aead` dependency.
#[cfg(feature = "under-test-aead")]
#[allow(dead_code)] // unused unless a crate's AEAD is selected
struct AeadArtifact<A>(core::marker::PhantomData<A>);

#[cfg(feature = "under-test-aead")]
impl<A: aead::KeyInit + aead::AeadInOut> Artifact for AeadArtifact<A> {
    type Ctx = A;
    const BLOCK: usize = 1;
    const IV: usize = <A::NonceSize as aead::array::typenum::Unsigned>::USIZE;
    const TAG: usize = <A::TagSize as aead::array::typenum::Unsigned>::USIZE;

    unsafe fn set_key(ctx: *mut A, keying: Keying, key: &[u8]) -> i32 {
        if keying != Keying::One {
            return abi::ERR_OP;
        }
        match A::new_from_slice(key) {
            Ok(a) => {
                // SAFETY: the caller guarantees `ctx` is valid for writes
                // of an `A` and holds no live one.
                unsafe { ctx.write(a) };
                abi::OK
            }
            Err(_) => abi::ERR_LENGTH,
        }
    }

    unsafe fn clear(ctx: *mut A) {
        // SAFETY: the caller guarantees a live context, written by
        // `set_key`; dropping it zeroizes it where the crate does.
        unsafe { core::ptr::drop_in_place(ctx) };
    }

    fn crypt(_: &A, _: Op, _: &mut [u8], _: &mut [u8]) -> i32 {
        abi::ERR_OP
    }

    unsafe fn aead(a: &A, op: Op, io: &mut abi::AeadIo, buf: *mut u8, len: usize) -> i32 {
        let (Some(nonce), Some(_)) = (io.nonce.get(..Self::IV), io.tag.get(..Self::TAG)) else {
            return abi::ERR_LENGTH;
        };
        let Ok(nonce) = aead::Nonce::<A>::try_from(nonce) else {
            return abi::ERR_LENGTH;
        };
        let aad: &[u8] = if io.aad_len == 0 {
            &[]
        } else {
            // SAFETY: the caller guarantees `aad` is valid for `aad_len`
            // bytes.
            unsafe { core::slice::from_raw_parts(io.aad, io.aad_len) }
        };
        let inout = if io.out.is_null() {
            // SAFETY: the caller guarantees `buf` is valid for `len`
            // writable bytes.
            aead::inout::InOutBuf::from(unsafe { core::slice::from_raw_parts_mut(buf, len) })
        } else {
            // SAFETY: the caller guarantees `buf` is valid for `len`
            // bytes and `out` for `len` writable bytes apart from it.
            unsafe { aead::inout::InOutBuf::from_raw(buf, io.out, len) }
        };
        match op {
            Op::AeadEncrypt => {
                let Ok(tag) = a.encrypt_inout_detached(&nonce, aad, inout) else {
                    return abi::ERR_LENGTH;
                };
                io.tag[..Self::TAG].copy_from_slice(&tag);
                // Fault injection (tests only): a wrong tag, which the
                // check against the crate as published must refuse.
                #[cfg(feature = "fault-wrong-output")]
                if let Some(b) = io.tag.get_mut(Self::TAG.saturating_sub(1)) {
                    *b ^= 1;
                }
                abi::OK
            }
            Op::AeadDecrypt => {
                let Ok(tag) = aead::Tag::<A>::try_from(&io.tag[..Self::TAG]) else {
                    return abi::ERR_LENGTH;
                };
                match a.decrypt_inout_detached(&nonce, aad, inout, &tag) {
                    Ok(()) => abi::OK,
                    Err(aead::Error) => abi::ERR_TAG,
                }
            }
            _ => abi::ERR_OP,
        }
    }
}

/// `Selected` is the variant `variants::selected!` names, and `NAME` what
/// `inlinelab_name` says: `cast6::never`.
#[allow(unused_macros)] // unused in a peer's artifact
macro_rules! select_variant {
    (cipher: $c:ident, kind: cipher($ty:ident), variant: $v:ident) => {
        type Selected = CipherArtifact<variants::$c::$v::$ty, OwnCbc>;

        /// The variant's own answer: a form on instructions the CPU may
        /// lack (AES-NI) says so, and is then never keyed here. (Not a
        /// parameter of `CipherArtifact`: its symbols, and so every other
        /// artifact's bytes, stay as they were.)
        fn variant_cpu() -> bool {
            variants::$c::$v::$ty::available()
        }
        const NAME: &str = concat!(stringify!($c), "::", stringify!($v), "\0");
    };
    (cipher: $c:ident, kind: checksum, variant: $v:ident) => {
        digest_artifact!(
            Selected,
            variants::$c::$v::try_crc32c,
            variants::$c::$v::try_crc32c_append,
            variants::$c::$v::available
        );
        const NAME: &str = concat!(stringify!($c), "::", stringify!($v), "\0");

        /// A checksum's answer is its `Selected::available()`.
        fn variant_cpu() -> bool {
            true
        }
    };
}

#[cfg(not(feature = "peer"))]
variants::selected!(select_variant);

/// A peer keyed `by_length(16 => Aes128, ...)` as one type that takes any
/// of its key sizes, as the harness sets keys: `ByLength` holds the type
/// the key's length names (the types share a block size; `KeyInit::new`,
/// which the artifact does not call, keys the first).
#[allow(unused_macros)] // unused unless such a peer is selected
macro_rules! by_length {
    ($krate:ident: $first_len:literal => $first:ident $(, $len:literal => $ty:ident)*) => {
        mod by_length {
            use cipher::{
                BlockCipherDecClosure, BlockCipherDecrypt, BlockCipherEncClosure,
                BlockCipherEncrypt, BlockSizeUser, InvalidLength, Key, KeyInit, KeySizeUser,
            };

            type Block = <::$krate::$first as BlockSizeUser>::BlockSize;

            #[allow(non_camel_case_types)]
            pub enum ByLength {
                $first(::$krate::$first),
                $($ty(::$krate::$ty),)*
            }

            impl KeySizeUser for ByLength {
                type KeySize = <::$krate::$first as KeySizeUser>::KeySize;
            }

            impl KeyInit for ByLength {
                fn new(key: &Key<Self>) -> Self {
                    ByLength::$first(::$krate::$first::new(key))
                }

                fn new_from_slice(key: &[u8]) -> Result<Self, InvalidLength> {
                    Ok(match key.len() {
                        $first_len => ByLength::$first(::$krate::$first::new_from_slice(key)?),
                        $($len => ByLength::$ty(::$krate::$ty::new_from_slice(key)?),)*
                        _ => return Err(InvalidLength),
                    })
                }
            }

            impl BlockSizeUser for ByLength {
                type BlockSize = Block;
            }

            impl BlockCipherEncrypt for ByLength {
                fn encrypt_with_backend(&self, f: impl BlockCipherEncClosure<BlockSize = Block>) {
                    match self {
                        ByLength::$first(c) => c.encrypt_with_backend(f),
                        $(ByLength::$ty(c) => c.encrypt_with_backend(f),)*
                    }
                }
            }

            impl BlockCipherDecrypt for ByLength {
                fn decrypt_with_backend(&self, f: impl BlockCipherDecClosure<BlockSize = Block>) {
                    match self {
                        ByLength::$first(c) => c.decrypt_with_backend(f),
                        $(ByLength::$ty(c) => c.decrypt_with_backend(f),)*
                    }
                }
            }
        }
    };
}

/// `Selected` is the peer crate the one enabled `peer-<crate>` feature
/// names, and `NAME` that feature: each peer every declaration in
/// `variants` lists (`variants::all_algorithms!`, in codegen's fixed form),
/// behind its feature. A crate that several declarations name is the peer
/// of each; its items come from the first (`cfg_peer!` leaves out a crate
/// already seen).
macro_rules! select_peers {
    (@decls $seen:tt) => {};
    (
        @decls $seen:tt
        entry {
            cipher: $c:ident, kind: $kind:ident $(($ty:ident))?, variants: $v:tt,
            modes: $modes:tt,
            peers: [$($name:literal {
                label: $label:literal, krate: $krate:ident, keyed: $keyed:ident $how:tt,
                builds: $builds:tt
            }),*],
            libraries: $libraries:tt
        }
        $($rest:tt)*
    ) => {
        $(variants::cfg_peer! {
            $krate $seen
            select_peers!(@selected $krate $keyed $how);
            const NAME: &str = concat!("peer-", stringify!($krate), "\0");
        })*
        select_peers!(@seen $seen [$($krate)*] $($rest)*);
    };
    (@decls $seen:tt $role:ident { $($decl:tt)* } $($rest:tt)*) => {
        select_peers!(@decls $seen $($rest)*);
    };
    (@seen [$($seen:ident)*] [$($new:ident)*] $($rest:tt)*) => {
        select_peers!(@decls [$($seen)* $($new)*] $($rest)*);
    };
    (@selected $krate:ident cipher($ty:ident)) => {
        type Selected = CipherArtifact<::$krate::$ty>;
    };
    (@selected $krate:ident by_length($($len:literal => $ty:ident),+)) => {
        by_length!($krate: $($len => $ty),+);
        type Selected = CipherArtifact<by_length::ByLength>;
    };
    // A checksum's peer is keyed by its append function: `$f(0, data)`
    // is the checksum of `data`.
    (@selected $krate:ident digest($f:ident)) => {
        digest_artifact!(Selected, |d| ::$krate::$f(0, d), ::$krate::$f, always);
    };
    // The declarations, as `all_algorithms!` hands them over.
    ($($decls:tt)*) => { select_peers!(@decls [] $($decls)*); };
}

#[cfg(not(feature = "under-test"))]
variants::all_algorithms!(select_peers);

#[cfg(feature = "peer-libgcrypt")]
mod libgcrypt;
/// A C library's implementation (the declarations' `libraries`): the
/// library's own API behind the same C ABI, the algorithm named at build
/// time by `cargo xtask`.
#[cfg(any(feature = "peer-libgcrypt", feature = "peer-openssl"))]
mod library;
#[cfg(feature = "peer-libgcrypt")]
type Selected = libgcrypt::Gcrypt;
#[cfg(feature = "peer-libgcrypt")]
const NAME: &str = "peer-libgcrypt\0";
#[cfg(feature = "peer-openssl")]
mod openssl;
#[cfg(feature = "peer-openssl")]
type Selected = openssl::Openssl;
#[cfg(feature = "peer-openssl")]
const NAME: &str = "peer-openssl\0";

/// A decimal number read at build time (0 for anything else).
#[allow(dead_code)] // used only by a library peer
const fn parse_usize(s: &str) -> usize {
    let (bytes, mut i, mut n) = (s.as_bytes(), 0, 0usize);
    while i < bytes.len() {
        if !bytes[i].is_ascii_digit() {
            return 0;
        }
        n = n * 10 + (bytes[i] - b'0') as usize;
        i += 1;
    }
    n
}

/// A crate under test (`cargo xtask compare --crate`): xtask builds this
/// file as the library of a shim package it writes for each variant, which
/// depends on a copy of the crate as `under_test` and writes `select.rs`
/// beside its manifest: `type Selected = CipherArtifact<::under_test::T>;`
/// (`HashArtifact<..>` for a hash, `MacArtifact<..>` for a MAC,
/// `UhashArtifact<..>` for a universal hash, `StreamArtifact<..>` for a
/// stream cipher) and
/// `NAME_BYTES`. The crate is so reached across a crate boundary, as its
/// users reach it. Never enabled in this workspace (it has no `select.rs`).
#[cfg(feature = "under-test")]
include!(concat!(env!("CARGO_MANIFEST_DIR"), "/select.rs"));

/// Availability of a peer that runs everywhere (it picks its own method).
#[allow(dead_code)]
fn always() -> bool {
    true
}

/// A peer or a crate under test answers through `Selected::available()`.
#[cfg(any(feature = "peer", feature = "under-test"))]
fn variant_cpu() -> bool {
    true
}

type Ctx = <Selected as Artifact>::Ctx;

/// The ABI version, as data: the loader reads it from the file before it
/// loads it (`abi::symbol::ABI`).
#[unsafe(export_name = "inlinelab_abi")]
pub static ABI: u32 = abi::VERSION;

#[cfg(not(feature = "under-test"))]
#[unsafe(no_mangle)]
pub extern "C" fn inlinelab_name() -> *const c_char {
    NAME.as_ptr().cast()
}

/// A crate's artifact (`compare --crate`) holds its name in `.data`, in a
/// fixed [`NAME_BYTES`]`.len()` bytes: a name in `.rodata` moves the tables
/// placed after it, so the crate as published and the registry crate,
/// named apart, would differ in every address of them; named here, they
/// differ in these bytes only.
#[cfg(feature = "under-test")]
#[unsafe(link_section = ".data.inlinelab_name")]
static NAME_DATA: [u8; NAME_BYTES.len()] = NAME_BYTES;

#[cfg(feature = "under-test")]
#[unsafe(no_mangle)]
pub extern "C" fn inlinelab_name() -> *const c_char {
    NAME_DATA.as_ptr().cast()
}

#[unsafe(no_mangle)]
pub extern "C" fn inlinelab_available() -> i32 {
    if !(Selected::available() && variant_cpu() && !cfg!(feature = "fault-unavailable")) {
        abi::UNAVAILABLE_CPU
    } else if !Selected::ready() {
        abi::UNAVAILABLE_LIBRARY
    } else {
        abi::AVAILABLE
    }
}

#[unsafe(no_mangle)]
pub extern "C" fn inlinelab_block_size() -> usize {
    Selected::BLOCK
}

#[unsafe(no_mangle)]
pub extern "C" fn inlinelab_digest_size() -> usize {
    // A digest the ABI cannot carry does not compile (0 for a cipher, where
    // the comparison is trivially true).
    #[allow(clippy::absurd_extreme_comparisons)]
    const {
        assert!(Selected::DIGEST <= abi::MAX_DIGEST)
    };
    // Nor a nonce longer than the IV the harness hands (`abi::MAX_IV`),
    // nor an AEAD's tag longer than its `abi::AeadIo` holds.
    const { assert!(Selected::IV <= abi::MAX_IV) };
    #[allow(clippy::absurd_extreme_comparisons)]
    const {
        assert!(Selected::TAG <= abi::MAX_TAG)
    };
    Selected::DIGEST
}

#[unsafe(no_mangle)]
pub extern "C" fn inlinelab_ctx_size() -> usize {
    size_of::<Ctx>()
}

#[unsafe(no_mangle)]
pub extern "C" fn inlinelab_ctx_align() -> usize {
    align_of::<Ctx>()
}

/// Keys the context: one cipher, or XTS's two (see [`abi::Keying`]).
///
/// # Safety
/// `ctx` points to `inlinelab_ctx_size()` writable bytes aligned to
/// `inlinelab_ctx_align()` that hold no keyed context (fresh, or cleared);
/// `key` points to `key_len` readable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn inlinelab_set_key(
    ctx: *mut u8,
    keying: u32,
    key: *const u8,
    key_len: usize,
) -> i32 {
    // SAFETY: the caller guarantees `key` is valid for `key_len` bytes.
    let key = unsafe { core::slice::from_raw_parts(key, key_len) };
    let Some(keying) = Keying::from_code(keying) else {
        return abi::ERR_OP;
    };
    // SAFETY: the caller guarantees `ctx` is valid, aligned, large enough
    // and holds no value that would need dropping.
    unsafe { Selected::set_key(ctx.cast::<Ctx>(), keying, key) }
}

/// Drops the keyed context in `ctx`, which zeroizes a key schedule.
///
/// # Safety
/// `ctx` holds a context keyed by `inlinelab_set_key` and not cleared since.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn inlinelab_clear(ctx: *mut u8) {
    // SAFETY: the caller guarantees `ctx` holds a live, keyed context.
    unsafe { Selected::clear(ctx.cast::<Ctx>()) };
}

/// Runs `op` over `buf` in place (a hash's steps on the state in `ctx`).
///
/// # Safety
/// `ctx` holds a keyed context, not otherwise referenced during the call;
/// `buf` points to `len` bytes, writable unless `op` is
/// [`Op::HashUpdate`], which only reads them; `iv` points to
/// `inlinelab_block_size()` writable bytes, and for [`Op::StreamEncrypt`]
/// and [`Op::StreamDecrypt`] to the stream cipher's nonce (the artifact's
/// `IV` bytes, at most [`abi::MAX_IV`]), and for [`Op::AeadEncrypt`] and
/// [`Op::AeadDecrypt`] to an [`abi::AeadIo`] whose `aad` points to
/// `aad_len` readable bytes and whose `out` is null or points to `len`
/// writable bytes apart from `buf`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn inlinelab_crypt(
    ctx: *mut u8,
    op: u32,
    iv: *mut u8,
    buf: *mut u8,
    len: usize,
) -> i32 {
    let ctx = ctx.cast::<Ctx>();
    // Fault injection (tests only): an operation that never returns, as a
    // mode loop that never ends on a tail would.
    #[cfg(feature = "fault-hang")]
    loop {
        core::hint::spin_loop();
    }
    // SAFETY (each step): the caller guarantees `ctx` holds a live, keyed
    // context no one else references, and `len` bytes at `buf`, writable
    // but for an update.
    #[allow(unreachable_code)]
    let step = match Op::from_code(op) {
        Some(Op::HashInit) => Step::Init,
        Some(Op::HashUpdate) => Step::Update(unsafe { core::slice::from_raw_parts(buf, len) }),
        Some(Op::HashFinal) => Step::Final(unsafe { core::slice::from_raw_parts_mut(buf, len) }),
        Some(op) if op.is_aead() => {
            // SAFETY: as above; and an `AeadIo` at `iv`, its pointers as
            // the caller guarantees.
            return unsafe { Selected::aead(&*ctx, op, &mut *iv.cast::<abi::AeadIo>(), buf, len) };
        }
        Some(op) => {
            let iv_len = if op.is_stream() {
                Selected::IV
            } else {
                Selected::BLOCK
            };
            // SAFETY: as above; and one block at `iv`, or a stream
            // cipher's nonce.
            let (ctx, buf, iv) = unsafe {
                (
                    &*ctx,
                    core::slice::from_raw_parts_mut(buf, len),
                    core::slice::from_raw_parts_mut(iv, iv_len),
                )
            };
            return Selected::crypt(ctx, op, iv, buf);
        }
        None => return abi::ERR_OP,
    };
    // SAFETY: as above.
    Selected::hash(unsafe { &mut *ctx }, step)
}

/// A panic cannot unwind out of a `no_std` shared object; the modes report
/// lengths as errors, so reaching this is a bug, and the process aborts.
#[cfg(all(panic = "abort", not(feature = "std")))]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    unsafe extern "C" {
        safe fn abort() -> !;
    }
    abort()
}

/// A crate under test may link `alloc` without allocating on any path the
/// artifact calls (RustCrypto's hashes turn on `digest/alloc` by default,
/// for its boxed APIs): a `no_std` shared object that links `alloc` must
/// name a global allocator, and this one has no memory, so an allocation
/// would fail (and abort) rather than be timed. Nothing references it
/// where nothing allocates, and the linker drops it.
#[cfg(all(feature = "under-test", panic = "abort", not(feature = "std")))]
mod no_memory {
    use core::alloc::{GlobalAlloc, Layout};

    struct NoMemory;

    // SAFETY: `alloc` never hands out memory (null is an allocation
    // failure), so `dealloc` is never given any.
    unsafe impl GlobalAlloc for NoMemory {
        unsafe fn alloc(&self, _: Layout) -> *mut u8 {
            core::ptr::null_mut()
        }

        unsafe fn dealloc(&self, _: *mut u8, _: Layout) {}
    }

    #[global_allocator]
    static NO_MEMORY: NoMemory = NoMemory;
}

/// The prebuilt `core` is compiled for unwinding, so its unwind tables name
/// this personality routine; with `panic = "abort"` nothing ever unwinds, so
/// it is never called, but the shared object must define it to load.
#[cfg(all(panic = "abort", not(feature = "std")))]
#[unsafe(no_mangle)]
pub extern "C" fn rust_eh_personality() {}
