//! A variant loaded from a built `.so` (the `inlinelab-artifact` crate) as an
//! [`Engine`]: the file whose size `cargo xtask compare` reported is the file
//! it times.

use crate::engine::{Dir, Engine, EngineError, Mode};
use abi::{Keying, Op};
use libloading::Library;
use std::alloc::Layout;
use std::ffi::CStr;
use std::path::{Path, PathBuf};

type SetKey = unsafe extern "C" fn(*mut u8, u32, *const u8, usize) -> i32;
type Clear = unsafe extern "C" fn(*mut u8);
type Crypt = unsafe extern "C" fn(*const u8, u32, *mut u8, *mut u8, usize) -> i32;

/// A loaded artifact with its own context memory.
pub struct SoCipher {
    path: PathBuf,
    name: String,
    block_size: usize,
    set_key: SetKey,
    clear: Clear,
    crypt: Crypt,
    ctx: *mut u8,
    layout: Layout,
    /// The mode the context was keyed for, if it is keyed.
    keyed: Option<Mode>,
    /// The IV handed to the artifact when the caller's is not one block
    /// (ECB and digests do not read it).
    unused_iv: Vec<u8>,
    // Last, so that it is unloaded after `Drop::drop` has cleared the context.
    _lib: Library,
}

impl SoCipher {
    /// Loads `path` and checks that it is an artifact of this ABI version.
    pub fn load(path: &Path) -> Result<SoCipher, EngineError> {
        let fail = |why: String| EngineError::Load(format!("{}: {why}", path.display()));
        // SAFETY: loading runs the library's initialisers; an inlinelab
        // artifact is a no_std cdylib with no initialisers of its own.
        let lib = unsafe { Library::new(path) }.map_err(|e| {
            // libloading's Display omits the loader's own message; its source has it.
            let detail = std::error::Error::source(&e)
                .map(|s| format!(": {s}"))
                .unwrap_or_default();
            fail(format!("{e}{detail}"))
        })?;
        // SAFETY: the symbol is looked up with the signature the artifact
        // crate exports it with (`extern "C" fn() -> u32`).
        let version = unsafe { lib.get::<extern "C" fn() -> u32>(b"inlinelab_abi_version") }
            .map_err(|_| fail("not an inlinelab artifact (no inlinelab_abi_version)".into()))?;
        if version() != abi::VERSION {
            return Err(fail(format!(
                "artifact ABI version {} but this harness speaks {}; rebuild it with cargo xtask compare",
                version(),
                abi::VERSION
            )));
        }
        // SAFETY: the symbol is looked up with the signature the ABI gives
        // it (`extern "C" fn() -> i32`); it is asked before anything else, so
        // that code this CPU cannot run is never entered.
        let available = unsafe { lib.get::<extern "C" fn() -> i32>(b"inlinelab_available") }
            .map_err(|e| fail(e.to_string()))?;
        if available() == 0 {
            return Err(EngineError::Unavailable(format!(
                "{}: the artifact says this CPU cannot run it",
                path.display()
            )));
        }
        // SAFETY (for each `get` below): this ABI version exports these symbols
        // with exactly these signatures; the copies of the function pointers
        // live no longer than `lib`, which the struct owns.
        let usize_fn = |sym: &[u8]| -> Result<usize, EngineError> {
            let f = unsafe { lib.get::<extern "C" fn() -> usize>(sym) }
                .map_err(|e| fail(e.to_string()))?;
            Ok(f())
        };
        let block_size = usize_fn(b"inlinelab_block_size")?;
        let size = usize_fn(b"inlinelab_ctx_size")?;
        let align = usize_fn(b"inlinelab_ctx_align")?;
        let name_fn =
            unsafe { lib.get::<extern "C" fn() -> *const std::ffi::c_char>(b"inlinelab_name") }
                .map_err(|e| fail(e.to_string()))?;
        // SAFETY: `inlinelab_name` returns a pointer to a NUL-terminated
        // static string inside the library, valid while it is loaded.
        let name = unsafe { CStr::from_ptr(name_fn()) }
            .to_string_lossy()
            .into_owned();
        let set_key =
            *unsafe { lib.get::<SetKey>(b"inlinelab_set_key") }.map_err(|e| fail(e.to_string()))?;
        let clear =
            *unsafe { lib.get::<Clear>(b"inlinelab_clear") }.map_err(|e| fail(e.to_string()))?;
        let crypt =
            *unsafe { lib.get::<Crypt>(b"inlinelab_crypt") }.map_err(|e| fail(e.to_string()))?;
        // Aligned to a cache line at least, so that where the allocator
        // put the context never changes what the artifact does with it
        // (memcpy takes other paths at other alignments): the gate counts
        // instructions, and they must not depend on what ran before.
        let layout = Layout::from_size_align(size.max(1), align.max(64))
            .map_err(|e| fail(format!("context layout: {e}")))?;
        // SAFETY: `layout` has a non-zero size.
        let ctx = unsafe { std::alloc::alloc_zeroed(layout) };
        if ctx.is_null() {
            std::alloc::handle_alloc_error(layout);
        }
        Ok(SoCipher {
            path: path.to_path_buf(),
            name,
            block_size,
            set_key,
            clear,
            crypt,
            ctx,
            layout,
            keyed: None,
            unused_iv: vec![0; block_size],
            _lib: lib,
        })
    }

    /// The file this engine was loaded from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn unkey(&mut self) {
        if self.keyed.is_some() {
            // SAFETY: `ctx` holds a cipher keyed by `set_key` (tracked by `keyed`).
            unsafe { (self.clear)(self.ctx) };
            self.keyed = None;
        }
    }
}

impl Engine for SoCipher {
    fn name(&self) -> &str {
        &self.name
    }

    fn block_size(&self) -> usize {
        self.block_size
    }

    fn set_key(&mut self, mode: Mode, key: &[u8]) -> Result<(), EngineError> {
        let keying = if mode == Mode::Xts {
            Keying::Xts
        } else {
            Keying::One
        };
        self.unkey();
        // SAFETY: `ctx` is our allocation of the artifact's size and
        // alignment and holds no keyed cipher (just cleared); `key` is a
        // valid slice.
        match unsafe { (self.set_key)(self.ctx, keying as u32, key.as_ptr(), key.len()) } {
            abi::OK => {
                self.keyed = Some(mode);
                Ok(())
            }
            abi::ERR_LENGTH => Err(EngineError::KeyLength(key.len())),
            abi::ERR_OP => Err(EngineError::Unsupported(mode)),
            code => Err(EngineError::Abi(code)),
        }
    }

    #[inline]
    fn crypt(
        &mut self,
        mode: Mode,
        dir: Dir,
        iv: &mut [u8],
        buf: &mut [u8],
    ) -> Result<(), EngineError> {
        let Some(keyed) = self.keyed else {
            return Err(EngineError::NotKeyed);
        };
        // XTS needs its two keys; the other modes take either context.
        if (mode == Mode::Xts) != (keyed == Mode::Xts) {
            return Err(EngineError::NotKeyed);
        }
        let op = match (mode, dir) {
            (Mode::Ecb, Dir::Encrypt) => Op::EcbEncrypt,
            (Mode::Ecb, Dir::Decrypt) => Op::EcbDecrypt,
            (Mode::Cbc, Dir::Encrypt) => Op::CbcEncrypt,
            (Mode::Cbc, Dir::Decrypt) => Op::CbcDecrypt,
            (Mode::Ctr, Dir::Encrypt) => Op::CtrEncrypt,
            (Mode::Ctr, Dir::Decrypt) => Op::CtrDecrypt,
            (Mode::Xts, Dir::Encrypt) => Op::XtsEncrypt,
            (Mode::Xts, Dir::Decrypt) => Op::XtsDecrypt,
            (Mode::Digest, _) => Op::Digest,
        } as u32;
        let chains = matches!(mode, Mode::Cbc | Mode::Ctr | Mode::Xts);
        if chains && iv.len() != self.block_size {
            return Err(EngineError::Length(variants::modes::LengthError::Iv {
                len: iv.len(),
                block: self.block_size,
            }));
        }
        // ECB and a digest do not use the IV, but the ABI hands one block.
        let iv = if iv.len() == self.block_size {
            iv
        } else {
            &mut self.unused_iv[..]
        };
        // SAFETY: `ctx` holds a keyed cipher (for XTS, keyed for XTS); `buf`
        // is valid for its length; `iv` is exactly one block (checked above).
        match unsafe { (self.crypt)(self.ctx, op, iv.as_mut_ptr(), buf.as_mut_ptr(), buf.len()) } {
            abi::OK => Ok(()),
            abi::ERR_LENGTH => Err(EngineError::Length(
                variants::modes::LengthError::PartialBlock {
                    len: buf.len(),
                    block: self.block_size,
                },
            )),
            abi::ERR_OP => Err(EngineError::Unsupported(mode)),
            abi::ERR_KEYING => Err(EngineError::NotKeyed),
            code => Err(EngineError::Abi(code)),
        }
    }
}

impl Drop for SoCipher {
    fn drop(&mut self) {
        self.unkey();
        // SAFETY: `ctx` was allocated with `layout` in `load` and is freed once.
        unsafe { std::alloc::dealloc(self.ctx, self.layout) };
    }
}

/// A fingerprint of a file's bytes (its length and FNV-1a 64 hash), so that
/// the file a measurement loaded can be matched with the file that was sized.
pub fn fingerprint(path: &Path) -> std::io::Result<String> {
    let bytes = std::fs::read(path)?;
    let hash = bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    });
    Ok(format!("{}:{hash:016x}", bytes.len()))
}
