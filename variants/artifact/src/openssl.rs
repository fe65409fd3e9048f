//! A peer from OpenSSL's libcrypto (feature `peer-openssl`): the cipher the
//! declaration names (`INLINELAB_LIBRARY_ALGORITHM`, by key length, e.g.
//! `AES-128`), run through OpenSSL 3's EVP API as its users call it: a
//! cipher fetched per mode (`AES-128-CBC`), a context per mode and
//! direction keyed once (`EVP_CipherInit_ex2`), then per call the IV set
//! and the whole buffer handed to `EVP_CipherUpdate` in place (padding
//! off), so that its AES-NI and VAES paths run. Linked against the
//! system's libcrypto.
//!
//! An algorithm in a provider other than the default one (OpenSSL 3 keeps
//! CAST5 and Blowfish in its legacy provider: `INLINELAB_LIBRARY_PROVIDER`)
//! is fetched from a library context of this artifact's own, with that
//! provider and the default one loaded into it, as OpenSSL's manual tells
//! an application to (`OSSL_PROVIDER_load`, ossl_provider(7)): the
//! process's default context is left as it was. A key of a length other
//! than the cipher's default (Blowfish's and CAST5's are variable) is set
//! by `EVP_CIPHER_CTX_set_key_length` before the key.
//!
//! ```text
//! set_key:  ctx(ECB or XTS, encrypt) = init(fetch(NAME-MODE), key)
//! crypt:    ctx(mode, direction) (keyed at its first use);
//!           init(iv); update(buf) in place;
//!           iv = what the mode leaves it (`library::Chain`)
//! ```

use super::library::{self, MAX_KEY};
use abi::{Keying, Op};
use core::cell::Cell;
use core::ffi::{c_char, c_int, c_void};
use core::sync::atomic::{AtomicUsize, Ordering};

#[link(name = "crypto")]
unsafe extern "C" {
    fn OSSL_LIB_CTX_new() -> *mut c_void;
    fn OSSL_PROVIDER_load(lib: *mut c_void, name: *const c_char) -> *mut c_void;
    fn EVP_CIPHER_CTX_set_key_length(ctx: *mut c_void, len: c_int) -> c_int;
    fn EVP_CIPHER_CTX_get_key_length(ctx: *const c_void) -> c_int;
    fn EVP_CIPHER_fetch(
        lib: *mut c_void,
        algorithm: *const c_char,
        properties: *const c_char,
    ) -> *mut c_void;
    fn EVP_CIPHER_free(cipher: *mut c_void);
    fn EVP_CIPHER_CTX_new() -> *mut c_void;
    fn EVP_CIPHER_CTX_free(ctx: *mut c_void);
    fn EVP_CipherInit_ex2(
        ctx: *mut c_void,
        cipher: *const c_void,
        key: *const u8,
        iv: *const u8,
        enc: c_int,
        params: *const c_void,
    ) -> c_int;
    fn EVP_CIPHER_CTX_set_padding(ctx: *mut c_void, pad: c_int) -> c_int;
    fn EVP_CipherUpdate(
        ctx: *mut c_void,
        out: *mut u8,
        out_len: *mut c_int,
        inp: *const u8,
        in_len: c_int,
    ) -> c_int;
}

/// The modes, as OpenSSL's names end: ECB, CBC, CTR, XTS.
const MODES: [&str; 4] = ["-ECB", "-CBC", "-CTR", "-XTS"];

pub struct Openssl;

/// The library context ciphers are fetched from: null (OpenSSL's default
/// context) without a provider named, else a context of this artifact's
/// own with that provider and the default one loaded, made once per
/// process; `None` when that provider cannot be loaded.
fn library_context() -> Option<*mut c_void> {
    /// 0: not made yet; 1: cannot be made; else the context.
    static CONTEXT: AtomicUsize = AtomicUsize::new(0);
    let Some(provider) = library::PROVIDER else {
        return Some(core::ptr::null_mut());
    };
    let made = match CONTEXT.load(Ordering::Acquire) {
        0 => {
            let made = make_context(provider).map_or(1, |c| c as usize);
            match CONTEXT.compare_exchange(0, made, Ordering::AcqRel, Ordering::Acquire) {
                Ok(_) => made,
                // Another thread made one first: that one is kept (this
                // one, an allocation of no consequence, too).
                Err(first) => first,
            }
        }
        made => made,
    };
    (made != 1).then_some(made as *mut c_void)
}

/// A library context with `provider` and the default provider loaded.
fn make_context(provider: &str) -> Option<*mut c_void> {
    let name = library::c_name(provider, "")?;
    // SAFETY: a fresh context; the names are NUL-terminated. The context
    // and its providers stay loaded for the life of the process.
    unsafe {
        let lib = OSSL_LIB_CTX_new();
        if lib.is_null()
            || OSSL_PROVIDER_load(lib, c"default".as_ptr()).is_null()
            || OSSL_PROVIDER_load(lib, name.as_ptr().cast()).is_null()
        {
            return None;
        }
        Some(lib)
    }
}

/// A keyed context: the key, and per mode its fetched cipher and a context
/// per direction keyed with it (null until its first use; CTR's one
/// context serves both directions).
pub struct Ctx {
    name: &'static str,
    key: [u8; MAX_KEY],
    key_len: usize,
    ciphers: [Cell<*mut c_void>; 4],
    ctxs: [[Cell<*mut c_void>; 2]; 4],
}

impl Ctx {
    /// The context of mode `k` (an index of [`MODES`]) in direction `enc`
    /// (1 encrypts, 0 decrypts), made and keyed at its first use.
    fn ctx(&self, k: usize, enc: c_int) -> Option<*mut c_void> {
        let slot = &self.ctxs[k][enc as usize];
        if !slot.get().is_null() {
            return Some(slot.get());
        }
        if self.ciphers[k].get().is_null() {
            let name = library::c_name(self.name, MODES[k])?;
            let lib = library_context()?;
            // SAFETY: `name` is NUL-terminated; `lib` is null (OpenSSL's
            // default context) or a context made by `library_context`;
            // null properties are OpenSSL's defaults.
            let cipher = unsafe { EVP_CIPHER_fetch(lib, name.as_ptr().cast(), core::ptr::null()) };
            if cipher.is_null() {
                return None;
            }
            self.ciphers[k].set(cipher);
        }
        let len = c_int::try_from(self.key_len).ok()?;
        // SAFETY: a fresh context, initialized with the cipher fetched
        // above, its key length set where it is not the cipher's default,
        // then keyed with the `key_len` bytes of `key`; freed in `clear`
        // (or here, on failure).
        unsafe {
            let ctx = EVP_CIPHER_CTX_new();
            if ctx.is_null() {
                return None;
            }
            let (no_bytes, none) = (core::ptr::null::<u8>(), core::ptr::null::<c_void>());
            let cipher = self.ciphers[k].get();
            let keyed = EVP_CipherInit_ex2(ctx, cipher, no_bytes, no_bytes, enc, none) == 1
                && (EVP_CIPHER_CTX_get_key_length(ctx) == len
                    || EVP_CIPHER_CTX_set_key_length(ctx, len) == 1)
                && EVP_CipherInit_ex2(ctx, none, self.key.as_ptr(), no_bytes, enc, none) == 1
                && EVP_CIPHER_CTX_set_padding(ctx, 0) == 1;
            if !keyed {
                EVP_CIPHER_CTX_free(ctx);
                return None;
            }
            slot.set(ctx);
            Some(ctx)
        }
    }
}

impl super::Artifact for Openssl {
    type Ctx = Ctx;
    const BLOCK: usize = library::BLOCK;

    /// Where the provider the algorithm is in cannot be loaded, it cannot
    /// run here, whatever the CPU (cargo xtask leaves the row out before
    /// building it where the provider's module is not on disk, saying why;
    /// this is the artifact's own word on it, for a module that is there
    /// but does not load).
    fn ready() -> bool {
        library_context().is_some()
    }

    unsafe fn set_key(ctx: *mut Ctx, keying: Keying, key: &[u8]) -> i32 {
        let (one_key, first) = match keying {
            Keying::One => (key.len(), 0),
            Keying::Xts if key.len().is_multiple_of(2) => (key.len() / 2, 3),
            Keying::Xts => return abi::ERR_LENGTH,
        };
        let (Some(name), true) = (library::name_for(one_key), key.len() <= MAX_KEY) else {
            return abi::ERR_LENGTH;
        };
        let mut keyed = Ctx {
            name,
            key: [0; MAX_KEY],
            key_len: key.len(),
            ciphers: Default::default(),
            ctxs: Default::default(),
        };
        keyed.key[..key.len()].copy_from_slice(key);
        // The key schedule, as a user pays it: one context keyed (the
        // other modes' and directions' at their first use, outside what is
        // timed).
        let made = keyed.ctx(first, 1).is_some();
        // SAFETY: the caller guarantees `ctx` is valid for writes of a `Ctx`.
        unsafe { ctx.write(keyed) };
        if made {
            abi::OK
        } else {
            // SAFETY: just written.
            unsafe { Self::clear(ctx) };
            abi::ERR_LENGTH
        }
    }

    unsafe fn clear(ctx: *mut Ctx) {
        // SAFETY: the caller guarantees a live context, written by `set_key`.
        let ctx = unsafe { &mut *ctx };
        for c in ctx.ctxs.iter().flatten() {
            if !c.get().is_null() {
                // SAFETY: a context made by `EVP_CIPHER_CTX_new`, freed once
                // (OpenSSL wipes its key schedule).
                unsafe { EVP_CIPHER_CTX_free(c.get()) };
                c.set(core::ptr::null_mut());
            }
        }
        for c in &ctx.ciphers {
            if !c.get().is_null() {
                // SAFETY: a cipher fetched once, freed once.
                unsafe { EVP_CIPHER_free(c.get()) };
                c.set(core::ptr::null_mut());
            }
        }
        for b in &mut ctx.key {
            // SAFETY: a byte of the context; volatile so that the wipe stays.
            unsafe { core::ptr::write_volatile(b, 0) };
        }
    }

    fn crypt(ctx: &Ctx, op: Op, iv: &mut [u8], buf: &mut [u8]) -> i32 {
        let k = match op {
            Op::EcbEncrypt | Op::EcbDecrypt => 0,
            Op::CbcEncrypt | Op::CbcDecrypt => 1,
            Op::CtrEncrypt | Op::CtrDecrypt => 2,
            Op::XtsEncrypt | Op::XtsDecrypt => 3,
            _ => return abi::ERR_OP,
        };
        let xts_keyed = !ctx.ctxs[3][1].get().is_null();
        if (k == 3) != xts_keyed {
            return abi::ERR_KEYING;
        }
        if k != 2 && !buf.len().is_multiple_of(library::BLOCK) {
            return abi::ERR_LENGTH;
        }
        let Ok(len) = c_int::try_from(buf.len()) else {
            return abi::ERR_LENGTH;
        };
        let enc = c_int::from(k == 2 || !op.decrypts());
        let Some(c) = ctx.ctx(k, enc) else {
            return abi::ERR_LENGTH;
        };
        let chain = library::Chain::before(op, buf);
        let mut out_len: c_int = 0;
        // SAFETY: `c` is a keyed context; `iv` is one block (ECB takes
        // none); `buf` is `len` bytes, read and written in place, which
        // EVP_CipherUpdate allows.
        let done = unsafe {
            let null = core::ptr::null();
            (k == 0 || EVP_CipherInit_ex2(c, null, null.cast(), iv.as_ptr(), -1, null) == 1)
                && EVP_CipherUpdate(c, buf.as_mut_ptr(), &mut out_len, buf.as_ptr(), len) == 1
        };
        if !done || out_len != len {
            return abi::ERR_LENGTH;
        }
        chain.after(op, iv, buf);
        #[cfg(feature = "fault-wrong-output")]
        if let Some(b) = buf.last_mut() {
            *b ^= 1;
        }
        abi::OK
    }
}
