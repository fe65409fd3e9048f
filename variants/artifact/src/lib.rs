//! One variant of one cipher or checksum, or one peer crate, alone in a
//! `no_std` shared object with a C ABI. `cargo xtask compare` builds one per
//! variant (`--no-default-features --features cast6-never`), reads its size,
//! and hands the very same file to the harness to time.
//!
//! The ABI (version [`ABI_VERSION`]); the caller owns the context memory,
//! `inlinelab_ctx_size()` bytes aligned to `inlinelab_ctx_align()`:
//!
//! | symbol | signature |
//! |---|---|
//! | `inlinelab_abi_version` | `() -> u32` |
//! | `inlinelab_name` | `() -> *const c_char`, e.g. `cast6-never` |
//! | `inlinelab_available` | `() -> i32`: 0 when this CPU cannot run it |
//! | `inlinelab_block_size` | `() -> usize` |
//! | `inlinelab_ctx_size`, `inlinelab_ctx_align` | `() -> usize` |
//! | `inlinelab_set_key` | `(ctx, key, key_len) -> i32`: 0, or -1 for a key length it does not take |
//! | `inlinelab_clear` | `(ctx)`: drops (and so zeroizes) a keyed context |
//! | `inlinelab_crypt` | `(ctx, op, iv, buf, len) -> i32`: `op` is one of the `OP_*` values; 0, -1 for a partial block, -2 for an op it does not do |

// `no_std` in the measured builds (the `artifact` profile aborts on panic),
// except for a peer that needs std. Workspace-wide builds unwind, which a
// `no_std` cdylib cannot, so there the crate links std; those builds are
// only compiled and linted, never measured.
#![cfg_attr(all(panic = "abort", not(feature = "std")), no_std)]

use core::ffi::c_char;
use core::mem::{align_of, size_of};
use variants::modes;

/// Bumped on any change to the exported functions' meaning or signatures.
pub const ABI_VERSION: u32 = 2;
/// `op` of `inlinelab_crypt`: ECB encryption.
pub const OP_ECB_ENCRYPT: u32 = 0;
/// ECB decryption.
pub const OP_ECB_DECRYPT: u32 = 1;
/// CBC encryption; `iv` is one block, updated for chaining.
pub const OP_CBC_ENCRYPT: u32 = 2;
/// CBC decryption; `iv` is one block, updated for chaining.
pub const OP_CBC_DECRYPT: u32 = 3;
/// A checksum of the buffer, XORed into its first four bytes.
pub const OP_DIGEST: u32 = 4;

/// What an artifact holds: a keyed context and the operations on it.
trait Artifact {
    type Ctx;
    const BLOCK: usize;
    fn available() -> bool {
        true
    }
    fn set_key(key: &[u8]) -> Option<Self::Ctx>;
    fn crypt(ctx: &Self::Ctx, op: u32, iv: &mut [u8], buf: &mut [u8]) -> i32;
}

/// A block cipher, through the shared mode loops.
#[allow(dead_code)] // unused in a checksum's artifact
struct CipherArtifact<C>(core::marker::PhantomData<C>);

impl<C: cipher::KeyInit + cipher::BlockCipherEncrypt + cipher::BlockCipherDecrypt> Artifact
    for CipherArtifact<C>
{
    type Ctx = C;
    const BLOCK: usize = <C::BlockSize as cipher::typenum::Unsigned>::USIZE;

    fn set_key(key: &[u8]) -> Option<C> {
        C::new_from_slice(key).ok()
    }

    fn crypt(c: &C, op: u32, iv: &mut [u8], buf: &mut [u8]) -> i32 {
        let result = match op {
            OP_ECB_ENCRYPT => modes::ecb_encrypt(c, buf),
            OP_ECB_DECRYPT => modes::ecb_decrypt(c, buf),
            OP_CBC_ENCRYPT => modes::cbc_encrypt(c, iv, buf),
            OP_CBC_DECRYPT => modes::cbc_decrypt(c, iv, buf),
            _ => return -2,
        };
        #[cfg(feature = "fault-extra-block")]
        {
            let mut scratch = [0u8; 64];
            let _ = modes::ecb_encrypt(c, &mut scratch[..Self::BLOCK]);
            core::hint::black_box(&scratch);
        }
        if result.is_ok() { 0 } else { -1 }
    }
}

/// A checksum: no key, the digest XORed into the buffer's first bytes.
#[allow(unused_macros)] // unused in a cipher's artifact
macro_rules! digest_artifact {
    ($name:ident, $digest:expr, $available:expr) => {
        struct $name;

        impl Artifact for $name {
            type Ctx = ();
            const BLOCK: usize = 1;

            fn available() -> bool {
                $available()
            }

            fn set_key(key: &[u8]) -> Option<()> {
                key.is_empty().then_some(())
            }

            fn crypt(_: &(), op: u32, _: &mut [u8], buf: &mut [u8]) -> i32 {
                if op != OP_DIGEST {
                    return -2;
                }
                let d: u32 = $digest(&*buf);
                buf.iter_mut()
                    .zip(d.to_le_bytes())
                    .for_each(|(b, x)| *b ^= x);
                0
            }
        }
    };
}

/// `Selected` is what the one enabled feature names, and `NAME` its name.
macro_rules! select {
    ($($feature:literal => $kind:ident $($path:path),+;)*) => {
        $(
            #[cfg(feature = $feature)]
            select!(@one $kind $($path),+);
            #[cfg(feature = $feature)]
            const NAME: &str = concat!($feature, "\0");
        )*
    };
    (@one cipher $ty:path) => {
        type Selected = CipherArtifact<$ty>;
    };
    (@one digest $digest:path, $available:path) => {
        digest_artifact!(Selected, $digest, $available);
    };
}

select! {
    "cast6-always" => cipher variants::cast6::always::Cast6;
    "cast6-never" => cipher variants::cast6::never::Cast6;
    "cast6-hint" => cipher variants::cast6::hint::Cast6;
    "cast6-auto" => cipher variants::cast6::auto::Cast6;
    "null-auto" => cipher variants::null::auto::CipherNull;
    "peer-cast6" => cipher cast6::Cast6;
    "cast5-always_factored" => cipher variants::cast5::always_factored::Cast5;
    "cast5-always_duplicated" => cipher variants::cast5::always_duplicated::Cast5;
    "cast5-never_factored" => cipher variants::cast5::never_factored::Cast5;
    "cast5-never_duplicated" => cipher variants::cast5::never_duplicated::Cast5;
    "cast5-auto_factored" => cipher variants::cast5::auto_factored::Cast5;
    "cast5-auto_duplicated" => cipher variants::cast5::auto_duplicated::Cast5;
    "peer-cast5" => cipher cast5::Cast5;
    "aes-always" => cipher variants::aes::always::Aes;
    "aes-never" => cipher variants::aes::never::Aes;
    "aes-hint" => cipher variants::aes::hint::Aes;
    "aes-auto" => cipher variants::aes::auto::Aes;
    "peer-aes" => cipher peer_aes::AnyAes;
    "crc32c-bytewise_always" => digest variants::crc32c::bytewise_always::crc32c, variants::crc32c::bytewise_always::available;
    "crc32c-bytewise_never" => digest variants::crc32c::bytewise_never::crc32c, variants::crc32c::bytewise_never::available;
    "crc32c-bytewise_auto" => digest variants::crc32c::bytewise_auto::crc32c, variants::crc32c::bytewise_auto::available;
    "crc32c-slice8_always" => digest variants::crc32c::slice8_always::crc32c, variants::crc32c::slice8_always::available;
    "crc32c-slice8_never" => digest variants::crc32c::slice8_never::crc32c, variants::crc32c::slice8_never::available;
    "crc32c-slice8_auto" => digest variants::crc32c::slice8_auto::crc32c, variants::crc32c::slice8_auto::available;
    "crc32c-sse42_never" => digest variants::crc32c::sse42_never::crc32c, variants::crc32c::sse42_never::available;
    "crc32c-sse42_auto" => digest variants::crc32c::sse42_auto::crc32c, variants::crc32c::sse42_auto::available;
    "peer-crc32c" => digest crc32c::crc32c, always;
}

/// Availability of a peer that runs everywhere (it picks its own method).
#[allow(dead_code)]
fn always() -> bool {
    true
}

type Ctx = <Selected as Artifact>::Ctx;

#[unsafe(no_mangle)]
pub extern "C" fn inlinelab_abi_version() -> u32 {
    ABI_VERSION
}

#[unsafe(no_mangle)]
pub extern "C" fn inlinelab_name() -> *const c_char {
    NAME.as_ptr().cast()
}

#[unsafe(no_mangle)]
pub extern "C" fn inlinelab_available() -> i32 {
    i32::from(Selected::available())
}

#[unsafe(no_mangle)]
pub extern "C" fn inlinelab_block_size() -> usize {
    Selected::BLOCK
}

#[unsafe(no_mangle)]
pub extern "C" fn inlinelab_ctx_size() -> usize {
    size_of::<Ctx>()
}

#[unsafe(no_mangle)]
pub extern "C" fn inlinelab_ctx_align() -> usize {
    align_of::<Ctx>()
}

/// Keys the context.
///
/// # Safety
/// `ctx` points to `inlinelab_ctx_size()` writable bytes aligned to
/// `inlinelab_ctx_align()` that hold no keyed context (fresh, or cleared);
/// `key` points to `key_len` readable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn inlinelab_set_key(ctx: *mut u8, key: *const u8, key_len: usize) -> i32 {
    // SAFETY: the caller guarantees `key` is valid for `key_len` bytes.
    let key = unsafe { core::slice::from_raw_parts(key, key_len) };
    match Selected::set_key(key) {
        Some(c) => {
            // SAFETY: the caller guarantees `ctx` is valid, aligned, large
            // enough and holds no value that would need dropping.
            unsafe { ctx.cast::<Ctx>().write(c) };
            0
        }
        None => -1,
    }
}

/// Drops the keyed context in `ctx`, which zeroizes a key schedule.
///
/// # Safety
/// `ctx` holds a context keyed by `inlinelab_set_key` and not cleared since.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn inlinelab_clear(ctx: *mut u8) {
    // SAFETY: the caller guarantees `ctx` holds a live, keyed context.
    unsafe { ctx.cast::<Ctx>().drop_in_place() };
}

/// Runs `op` over `buf` in place.
///
/// # Safety
/// `ctx` holds a keyed context; `buf` points to `len` writable bytes; `iv`
/// points to `inlinelab_block_size()` writable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn inlinelab_crypt(
    ctx: *const u8,
    op: u32,
    iv: *mut u8,
    buf: *mut u8,
    len: usize,
) -> i32 {
    // SAFETY: the caller guarantees `ctx` holds a live, keyed context.
    let ctx = unsafe { &*ctx.cast::<Ctx>() };
    // SAFETY: the caller guarantees `buf` is valid for `len` bytes.
    let buf = unsafe { core::slice::from_raw_parts_mut(buf, len) };
    // SAFETY: the caller guarantees one block at `iv`.
    let iv = unsafe { core::slice::from_raw_parts_mut(iv, Selected::BLOCK) };
    Selected::crypt(ctx, op, iv, buf)
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

/// The prebuilt `core` is compiled for unwinding, so its unwind tables name
/// this personality routine; with `panic = "abort"` nothing ever unwinds, so
/// it is never called, but the shared object must define it to load.
#[cfg(all(panic = "abort", not(feature = "std")))]
#[unsafe(no_mangle)]
pub extern "C" fn rust_eh_personality() {}

/// RustCrypto's AES as one type that takes any of its key sizes, as the
/// harness sets keys: `Aes128`, `Aes192` or `Aes256` by the key's length.
#[cfg(feature = "peer-aes")]
mod peer_aes {
    use aes::{Aes128, Aes192, Aes256};
    use cipher::consts::{U16, U32};
    use cipher::{
        BlockCipherDecClosure, BlockCipherDecrypt, BlockCipherEncClosure, BlockCipherEncrypt,
        BlockSizeUser, InvalidLength, Key, KeyInit, KeySizeUser,
    };

    pub enum AnyAes {
        A128(Aes128),
        A192(Aes192),
        A256(Aes256),
    }

    impl KeySizeUser for AnyAes {
        type KeySize = U32;
    }

    impl KeyInit for AnyAes {
        fn new(key: &Key<Self>) -> Self {
            AnyAes::A256(Aes256::new(key))
        }

        fn new_from_slice(key: &[u8]) -> Result<Self, InvalidLength> {
            Ok(match key.len() {
                16 => AnyAes::A128(Aes128::new_from_slice(key)?),
                24 => AnyAes::A192(Aes192::new_from_slice(key)?),
                _ => AnyAes::A256(Aes256::new_from_slice(key)?),
            })
        }
    }

    impl BlockSizeUser for AnyAes {
        type BlockSize = U16;
    }

    impl BlockCipherEncrypt for AnyAes {
        fn encrypt_with_backend(&self, f: impl BlockCipherEncClosure<BlockSize = U16>) {
            match self {
                AnyAes::A128(c) => c.encrypt_with_backend(f),
                AnyAes::A192(c) => c.encrypt_with_backend(f),
                AnyAes::A256(c) => c.encrypt_with_backend(f),
            }
        }
    }

    impl BlockCipherDecrypt for AnyAes {
        fn decrypt_with_backend(&self, f: impl BlockCipherDecClosure<BlockSize = U16>) {
            match self {
                AnyAes::A128(c) => c.decrypt_with_backend(f),
                AnyAes::A192(c) => c.decrypt_with_backend(f),
                AnyAes::A256(c) => c.decrypt_with_backend(f),
            }
        }
    }
}
