//! A peer from libgcrypt (feature `peer-libgcrypt`): the cipher the
//! declaration names (`INLINELAB_LIBRARY_ALGORITHM`, by key length), run
//! through libgcrypt's own API as its users call it: a handle per mode
//! (`gcry_cipher_open`), keyed (`gcry_cipher_setkey`), its IV or counter set
//! and the whole buffer handed to `gcry_cipher_encrypt` or
//! `gcry_cipher_decrypt` in place, so that libgcrypt's bulk paths (its
//! assembler, several blocks in flight) run. Linked against the system's
//! libgcrypt.
//!
//! ```text
//! set_key:  handle(ECB or XTS) = open(algo(key length), mode); setkey(key)
//! crypt:    handle(mode) (opened and keyed at its first use);
//!           setiv(iv) or setctr(iv); encrypt or decrypt(buf) in place;
//!           iv = what the mode leaves it (CBC: the last ciphertext block;
//!           CTR: the counter advanced by one per block)
//! ```

use super::library::{self, BLOCK, MAX_KEY};
use abi::{Keying, Op};
use core::cell::Cell;
use core::ffi::{c_char, c_int, c_uint, c_void};
use core::sync::atomic::{AtomicBool, Ordering};

#[link(name = "gcrypt")]
unsafe extern "C" {
    fn gcry_check_version(req: *const c_char) -> *const c_char;
    fn gcry_control(cmd: c_int, ...) -> c_uint;
    fn gcry_cipher_map_name(name: *const c_char) -> c_int;
    fn gcry_cipher_open(h: *mut *mut c_void, algo: c_int, mode: c_int, flags: c_uint) -> c_uint;
    fn gcry_cipher_close(h: *mut c_void);
    fn gcry_cipher_setkey(h: *mut c_void, key: *const u8, len: usize) -> c_uint;
    fn gcry_cipher_setiv(h: *mut c_void, iv: *const u8, len: usize) -> c_uint;
    fn gcry_cipher_setctr(h: *mut c_void, ctr: *const u8, len: usize) -> c_uint;
    fn gcry_cipher_encrypt(
        h: *mut c_void,
        out: *mut u8,
        out_len: usize,
        inp: *const u8,
        in_len: usize,
    ) -> c_uint;
    fn gcry_cipher_decrypt(
        h: *mut c_void,
        out: *mut u8,
        out_len: usize,
        inp: *const u8,
        in_len: usize,
    ) -> c_uint;
}

/// `gcry_ctl_cmds` and `gcry_cipher_modes` (gcrypt.h).
const GCRYCTL_DISABLE_SECMEM: c_int = 37;
const GCRYCTL_INITIALIZATION_FINISHED: c_int = 38;
const MODE_ECB: c_int = 1;
const MODE_CBC: c_int = 3;
const MODE_CTR: c_int = 6;
const MODE_XTS: c_int = 13;

/// The handles, by mode: ECB, CBC, CTR, XTS.
const MODES: [c_int; 4] = [MODE_ECB, MODE_CBC, MODE_CTR, MODE_XTS];

pub struct Gcrypt;

/// A keyed context: the key, and a handle per mode keyed with it (null
/// until its first use).
pub struct Ctx {
    algo: c_int,
    key: [u8; MAX_KEY],
    key_len: usize,
    handles: [Cell<*mut c_void>; 4],
}

/// libgcrypt's initialization, once per process (its manual's sequence for
/// a library that uses it: the version check first, no secure memory).
fn init() {
    static DONE: AtomicBool = AtomicBool::new(false);
    if !DONE.swap(true, Ordering::AcqRel) {
        // SAFETY: the documented first calls; a null version asks for none.
        unsafe {
            gcry_check_version(core::ptr::null());
            gcry_control(GCRYCTL_DISABLE_SECMEM, 0 as c_int);
            gcry_control(GCRYCTL_INITIALIZATION_FINISHED, 0 as c_int);
        }
    }
}

/// libgcrypt's algorithm for a key of `len` bytes, if the declaration names
/// one.
fn algorithm(len: usize) -> Option<c_int> {
    let c_name = library::c_name(library::name_for(len)?, "")?;
    // SAFETY: `c_name` holds the name and at least one NUL after it.
    let algo = unsafe { gcry_cipher_map_name(c_name.as_ptr().cast()) };
    (algo != 0).then_some(algo)
}

impl Ctx {
    /// The handle of mode `k` (an index of [`MODES`]), opened and keyed at
    /// its first use.
    fn handle(&self, k: usize) -> Option<*mut c_void> {
        let h = self.handles[k].get();
        if !h.is_null() {
            return Some(h);
        }
        let mut h = core::ptr::null_mut();
        // SAFETY: `h` is written by a successful open; the key is
        // `key_len` bytes of `key`.
        unsafe {
            if gcry_cipher_open(&mut h, self.algo, MODES[k], 0) != 0 {
                return None;
            }
            if gcry_cipher_setkey(h, self.key.as_ptr(), self.key_len) != 0 {
                gcry_cipher_close(h);
                return None;
            }
        }
        self.handles[k].set(h);
        Some(h)
    }
}

impl super::Artifact for Gcrypt {
    type Ctx = Ctx;
    const BLOCK: usize = BLOCK;

    unsafe fn set_key(ctx: *mut Ctx, keying: Keying, key: &[u8]) -> i32 {
        init();
        let (one_key, first) = match keying {
            Keying::One => (key.len(), 0),
            Keying::Xts if key.len().is_multiple_of(2) => (key.len() / 2, 3),
            Keying::Xts => return abi::ERR_LENGTH,
        };
        let (Some(algo), true) = (algorithm(one_key), key.len() <= MAX_KEY) else {
            return abi::ERR_LENGTH;
        };
        let mut keyed = Ctx {
            algo,
            key: [0; MAX_KEY],
            key_len: key.len(),
            handles: Default::default(),
        };
        keyed.key[..key.len()].copy_from_slice(key);
        // The key schedule, as a user pays it: one handle keyed (the other
        // modes' at their first use, outside what is timed).
        if keyed.handle(first).is_none() {
            return abi::ERR_LENGTH;
        }
        // SAFETY: the caller guarantees `ctx` is valid for writes of a `Ctx`.
        unsafe { ctx.write(keyed) };
        abi::OK
    }

    unsafe fn clear(ctx: *mut Ctx) {
        // SAFETY: the caller guarantees a live context, written by `set_key`.
        let ctx = unsafe { &mut *ctx };
        for h in &ctx.handles {
            if !h.get().is_null() {
                // SAFETY: an open handle, closed once (libgcrypt wipes it).
                unsafe { gcry_cipher_close(h.get()) };
                h.set(core::ptr::null_mut());
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
        let xts_keyed = !ctx.handles[3].get().is_null();
        if (k == 3) != xts_keyed {
            return abi::ERR_KEYING;
        }
        if k != 2 && !buf.len().is_multiple_of(BLOCK) {
            return abi::ERR_LENGTH;
        }
        let Some(h) = ctx.handle(k) else {
            return abi::ERR_LENGTH;
        };
        let chain = library::Chain::before(op, buf);
        // SAFETY: `h` is an open, keyed handle; `iv` is one block; `buf` is
        // written in place (a null input: libgcrypt's in-place form).
        let err = unsafe {
            let set = match k {
                0 => 0,
                2 => gcry_cipher_setctr(h, iv.as_ptr(), iv.len()),
                _ => gcry_cipher_setiv(h, iv.as_ptr(), iv.len()),
            };
            if set != 0 {
                set
            } else if op.decrypts() {
                gcry_cipher_decrypt(h, buf.as_mut_ptr(), buf.len(), core::ptr::null(), 0)
            } else {
                gcry_cipher_encrypt(h, buf.as_mut_ptr(), buf.len(), core::ptr::null(), 0)
            }
        };
        if err != 0 {
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
