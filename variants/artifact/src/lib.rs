//! One variant of one cipher, or one RustCrypto peer, alone in a `no_std`
//! shared object with a C ABI. `cargo xtask compare` builds one per variant
//! (`--no-default-features --features cast6-never`), reads its size, and
//! hands the very same file to the harness to time.
//!
//! The ABI (version [`ABI_VERSION`]); the caller owns the context memory,
//! `inlinelab_ctx_size()` bytes aligned to `inlinelab_ctx_align()`:
//!
//! | symbol | signature |
//! |---|---|
//! | `inlinelab_abi_version` | `() -> u32` |
//! | `inlinelab_name` | `() -> *const c_char`, e.g. `cast6-never` |
//! | `inlinelab_block_size` | `() -> usize` |
//! | `inlinelab_ctx_size`, `inlinelab_ctx_align` | `() -> usize` |
//! | `inlinelab_set_key` | `(ctx, key, key_len) -> i32`: 0, or -1 for a key length the cipher does not take |
//! | `inlinelab_clear` | `(ctx)`: drops (and so zeroizes) a keyed context |
//! | `inlinelab_crypt` | `(ctx, op, iv, buf, len) -> i32`: `op` is one of the `OP_*` values; 0, -1 for a partial block, -2 for an unknown op |

// `no_std` in the measured builds (the `artifact` profile aborts on panic).
// Workspace-wide builds unwind, which a `no_std` cdylib cannot, so there the
// crate links std; those builds are only compiled and linted, never measured.
#![cfg_attr(panic = "abort", no_std)]

use core::ffi::c_char;
use core::mem::{align_of, size_of};
use variants::modes;

/// Bumped on any change to the exported functions' meaning or signatures.
pub const ABI_VERSION: u32 = 1;
/// `op` of `inlinelab_crypt`: ECB encryption.
pub const OP_ECB_ENCRYPT: u32 = 0;
/// ECB decryption.
pub const OP_ECB_DECRYPT: u32 = 1;
/// CBC encryption; `iv` is one block, updated for chaining.
pub const OP_CBC_ENCRYPT: u32 = 2;
/// CBC decryption; `iv` is one block, updated for chaining.
pub const OP_CBC_DECRYPT: u32 = 3;

/// `Cipher` is the selected type and `NAME` its NUL-terminated name.
macro_rules! select {
    ($($feature:literal => $ty:ty;)*) => {
        $(
            #[cfg(feature = $feature)]
            type Cipher = $ty;
            #[cfg(feature = $feature)]
            const NAME: &str = concat!($feature, "\0");
        )*
    };
}

select! {
    "cast6-always" => variants::cast6::always::Cast6;
    "cast6-never" => variants::cast6::never::Cast6;
    "cast6-hint" => variants::cast6::hint::Cast6;
    "cast6-auto" => variants::cast6::auto::Cast6;
    "null-auto" => variants::null::auto::CipherNull;
    "peer-cast6" => cast6::Cast6;
    "cast5-always_factored" => variants::cast5::always_factored::Cast5;
    "cast5-always_duplicated" => variants::cast5::always_duplicated::Cast5;
    "cast5-never_factored" => variants::cast5::never_factored::Cast5;
    "cast5-never_duplicated" => variants::cast5::never_duplicated::Cast5;
    "cast5-auto_factored" => variants::cast5::auto_factored::Cast5;
    "cast5-auto_duplicated" => variants::cast5::auto_duplicated::Cast5;
    "peer-cast5" => cast5::Cast5;
    "aes-always" => variants::aes::always::Aes;
    "aes-never" => variants::aes::never::Aes;
    "aes-hint" => variants::aes::hint::Aes;
    "aes-auto" => variants::aes::auto::Aes;
    "peer-aes" => peer_aes::AnyAes;
}

use cipher::{BlockSizeUser, KeyInit};

#[unsafe(no_mangle)]
pub extern "C" fn inlinelab_abi_version() -> u32 {
    ABI_VERSION
}

#[unsafe(no_mangle)]
pub extern "C" fn inlinelab_name() -> *const c_char {
    NAME.as_ptr().cast()
}

#[unsafe(no_mangle)]
pub extern "C" fn inlinelab_block_size() -> usize {
    Cipher::block_size()
}

#[unsafe(no_mangle)]
pub extern "C" fn inlinelab_ctx_size() -> usize {
    size_of::<Cipher>()
}

#[unsafe(no_mangle)]
pub extern "C" fn inlinelab_ctx_align() -> usize {
    align_of::<Cipher>()
}

/// Keys the context.
///
/// # Safety
/// `ctx` points to `inlinelab_ctx_size()` writable bytes aligned to
/// `inlinelab_ctx_align()` that hold no keyed cipher (fresh, or cleared);
/// `key` points to `key_len` readable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn inlinelab_set_key(ctx: *mut u8, key: *const u8, key_len: usize) -> i32 {
    // SAFETY: the caller guarantees `key` is valid for `key_len` bytes.
    let key = unsafe { core::slice::from_raw_parts(key, key_len) };
    match Cipher::new_from_slice(key) {
        Ok(cipher) => {
            // SAFETY: the caller guarantees `ctx` is valid, aligned, large
            // enough and holds no value that would need dropping.
            unsafe { ctx.cast::<Cipher>().write(cipher) };
            0
        }
        Err(_) => -1,
    }
}

/// Drops the keyed cipher in `ctx`, which zeroizes its key schedule.
///
/// # Safety
/// `ctx` holds a cipher keyed by `inlinelab_set_key` and not cleared since.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn inlinelab_clear(ctx: *mut u8) {
    // SAFETY: the caller guarantees `ctx` holds a live, keyed cipher.
    unsafe { ctx.cast::<Cipher>().drop_in_place() };
}

/// Runs `op` over `buf` in place.
///
/// # Safety
/// `ctx` holds a keyed cipher; `buf` points to `len` writable bytes; for the
/// CBC ops `iv` points to `inlinelab_block_size()` writable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn inlinelab_crypt(
    ctx: *const u8,
    op: u32,
    iv: *mut u8,
    buf: *mut u8,
    len: usize,
) -> i32 {
    // SAFETY: the caller guarantees `ctx` holds a live, keyed cipher.
    let cipher = unsafe { &*ctx.cast::<Cipher>() };
    // SAFETY: the caller guarantees `buf` is valid for `len` bytes.
    let buf = unsafe { core::slice::from_raw_parts_mut(buf, len) };
    let iv = || {
        // SAFETY: for CBC ops the caller guarantees one block at `iv`.
        unsafe { core::slice::from_raw_parts_mut(iv, Cipher::block_size()) }
    };
    #[cfg(feature = "fault-extra-block")]
    {
        let mut scratch = [0u8; 64];
        let _ = modes::ecb_encrypt(cipher, &mut scratch[..Cipher::block_size()]);
        core::hint::black_box(&scratch);
    }
    let result = match op {
        OP_ECB_ENCRYPT => modes::ecb_encrypt(cipher, buf),
        OP_ECB_DECRYPT => modes::ecb_decrypt(cipher, buf),
        OP_CBC_ENCRYPT => modes::cbc_encrypt(cipher, iv(), buf),
        OP_CBC_DECRYPT => modes::cbc_decrypt(cipher, iv(), buf),
        _ => return -2,
    };
    match result {
        Ok(()) => 0,
        Err(_) => -1,
    }
}

/// A panic cannot unwind out of a `no_std` shared object; the modes report
/// lengths as errors, so reaching this is a bug, and the process aborts.
#[cfg(panic = "abort")]
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
#[cfg(panic = "abort")]
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
