//! A variant loaded from a built `.so` (the `inlinelab-artifact` crate) as an
//! [`Engine`], and a hash's as a [`HashEngine`] too: the file whose size
//! `cargo xtask compare` reported is the file it times. The file is read
//! whole with `object` first, its ABI version among what is read, and is
//! never loaded when that fails.

use crate::engine::{Digest, Dir, Engine, EngineError, HashEngine, Mode};
use crate::registry::{CipherEntry, HashEntry};
use abi::{Keying, Op, symbol};
use libloading::Library;
use object::{Object, ObjectKind, ObjectSection, ObjectSegment, ObjectSymbol};
use std::alloc::Layout;
use std::ffi::CStr;
use std::path::{Path, PathBuf};

/// The symbols every artifact of this ABI exports (`abi`'s table).
pub const SYMBOLS: [&str; 10] = abi::symbol::ALL;

/// The largest file taken for an artifact (a peer that links std is a few
/// MiB; a variant some tens of KiB).
pub const MAX_ARTIFACT_BYTES: u64 = 256 << 20;

/// What an artifact says it holds (`inlinelab_name`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Holds {
    /// `cast6::never`: variant `never` of the module `cast6` of `variants`.
    Variant { module: String, variant: String },
    /// `peer-cast6`: the peer the artifact's feature `peer-cast6` builds.
    Peer { feature: String },
    /// Anything else.
    Unknown(String),
}

impl Holds {
    /// Reads `inlinelab_name`'s string.
    pub fn parse(name: &str) -> Holds {
        if let Some((module, variant)) = name.split_once("::")
            && !module.is_empty()
            && !variant.is_empty()
            && !variant.contains(':')
        {
            return Holds::Variant {
                module: module.into(),
                variant: variant.into(),
            };
        }
        if name.starts_with("peer-") {
            return Holds::Peer {
                feature: name.into(),
            };
        }
        Holds::Unknown(name.into())
    }

    /// Whether this is `entry`'s: one of its variants or peers.
    pub fn is_of(&self, entry: &CipherEntry) -> bool {
        match self {
            Holds::Variant { module, variant } => {
                module == entry.module && entry.variants.iter().any(|(v, _)| v == variant)
            }
            Holds::Peer { feature } => entry.peers.iter().any(|p| p.feature == feature),
            Holds::Unknown(_) => false,
        }
    }

    /// Whether this is one of the hash `h`'s variants, or the peer of the
    /// cipher entry (a checksum's) that `h` is declared with.
    pub fn is_of_hash(&self, h: &HashEntry) -> bool {
        match self {
            Holds::Variant { module, variant } => {
                module == h.module && h.variants.iter().any(|(v, _)| v == variant)
            }
            Holds::Peer { .. } => {
                (crate::registry::CIPHERS.iter()).any(|e| e.module == h.module && self.is_of(e))
            }
            Holds::Unknown(_) => false,
        }
    }

    /// The registry's ciphers (and calibration entries) this belongs to.
    pub fn entries(&self) -> Vec<&'static CipherEntry> {
        crate::registry::CIPHERS
            .iter()
            .chain(crate::registry::CALIBRATION)
            .filter(|e| self.is_of(e))
            .collect()
    }
}

/// Checks, without loading it, that `path` is a file the loader may hand to
/// `dlopen`: a regular file of sane size holding an ELF shared object whose
/// sections and segments lie within the file (a truncated copy would be
/// mapped past its end and die of SIGBUS on first touch), of this ABI
/// version (read from its `inlinelab_abi`; an artifact of versions 1 to 4,
/// which said theirs with a function, is told so), exporting every symbol
/// of [`SYMBOLS`].
pub fn inspect(path: &Path) -> Result<(), String> {
    let meta = std::fs::metadata(path).map_err(|e| e.to_string())?;
    if !meta.is_file() {
        return Err("not a regular file; --so takes a built artifact (.so)".into());
    }
    if meta.len() > MAX_ARTIFACT_BYTES {
        return Err(format!(
            "{} bytes, more than any artifact ({MAX_ARTIFACT_BYTES} at most)",
            meta.len()
        ));
    }
    let data = std::fs::read(path).map_err(|e| e.to_string())?;
    let len = data.len() as u64;
    let file = object::File::parse(&*data)
        .map_err(|e| format!("not an ELF shared object the loader can read, or truncated ({e})"))?;
    if !matches!(file.format(), object::BinaryFormat::Elf) {
        return Err(format!(
            "a {:?} file, not an ELF shared object",
            file.format()
        ));
    }
    if file.kind() != ObjectKind::Dynamic {
        return Err(format!(
            "an ELF file of kind {:?}, not a shared object",
            file.kind()
        ));
    }
    let within = |range: Option<(u64, u64)>| {
        range.is_none_or(|(offset, size)| offset.checked_add(size).is_some_and(|end| end <= len))
    };
    for segment in file.segments() {
        if !within(Some(segment.file_range())) {
            return Err(format!(
                "a segment lies past the end of the file ({len} bytes): truncated"
            ));
        }
    }
    for section in file.sections() {
        if !within(section.file_range()) {
            let name = section.name().unwrap_or("?");
            return Err(format!(
                "section {name} lies past the end of the file ({len} bytes): truncated"
            ));
        }
    }
    // The dynamic symbols it defines, as the loader will look them up.
    let defined: Vec<object::Symbol<'_, '_>> = file
        .dynamic_symbols()
        .filter(|s| s.is_definition() && s.is_global())
        .collect();
    let exported: Vec<&str> = defined.iter().filter_map(|s| s.name().ok()).collect();
    // The version first: an artifact of another ABI lacks symbols this one
    // has, and is told so as such.
    let rebuild = "rebuild it with cargo xtask compare (or cargo xtask verify)";
    match defined.iter().find(|s| s.name().ok() == Some(symbol::ABI)) {
        Some(abi) => match read_u32(&file, abi) {
            Some(abi::VERSION) => {}
            Some(v) => {
                return Err(format!(
                    "an artifact of ABI version {v}, but this harness speaks {}; {rebuild}",
                    abi::VERSION
                ));
            }
            None => return Err(format!("{} is not a u32 in the file", symbol::ABI)),
        },
        None if exported.contains(&symbol::OLD_ABI_VERSION) => {
            return Err(format!(
                "an artifact of ABI version 4 or older (it has the function {}, not the {} of version 5 on), but this harness speaks {}; {rebuild}",
                symbol::OLD_ABI_VERSION,
                symbol::ABI,
                abi::VERSION
            ));
        }
        None => {}
    }
    let missing: Vec<&str> = SYMBOLS
        .iter()
        .copied()
        .filter(|s| !exported.contains(s))
        .collect();
    if !missing.is_empty() {
        return Err(format!(
            "not an inlinelab artifact (no {})",
            missing.join(", ")
        ));
    }
    Ok(())
}

/// The `u32` the data symbol `sym` holds, read from the file.
fn read_u32(file: &object::File<'_>, sym: &object::Symbol<'_, '_>) -> Option<u32> {
    let section = file.section_by_index(sym.section_index()?).ok()?;
    let bytes: [u8; 4] = section
        .data_range(sym.address(), 4)
        .ok()??
        .try_into()
        .ok()?;
    Some(if file.is_little_endian() {
        u32::from_le_bytes(bytes)
    } else {
        u32::from_be_bytes(bytes)
    })
}

type SetKey = unsafe extern "C" fn(*mut u8, u32, *const u8, usize) -> i32;
type Clear = unsafe extern "C" fn(*mut u8);
type Crypt = unsafe extern "C" fn(*mut u8, u32, *mut u8, *mut u8, usize) -> i32;

/// What an AEAD's timed operations ([`Engine::crypt`] in [`Mode::Aead`])
/// hold between calls: tcrypt's associated data, the output buffer, the
/// tag of the last encryption, and the buffer that encryption made (its
/// address, length and nonce), which a timed decryption then decrypts
/// again and again, its input untouched.
#[derive(Default)]
struct AeadTimed {
    out: Vec<u8>,
    tag: Option<[u8; abi::MAX_TAG]>,
    made: Option<(usize, usize, [u8; abi::MAX_IV])>,
}

/// A loaded artifact with its own context memory.
pub struct SoCipher {
    path: PathBuf,
    name: String,
    block_size: usize,
    /// A hash's digest length; 0 for a block cipher.
    digest_size: usize,
    set_key: SetKey,
    clear: Clear,
    crypt: Crypt,
    ctx: *mut u8,
    layout: Layout,
    /// The mode the context was keyed for, if it is keyed.
    keyed: Option<Mode>,
    /// The IV handed to the artifact when the caller's is not one block
    /// (ECB and digests do not read it): [`abi::MAX_IV`] bytes at least,
    /// so that it covers what any artifact may take as its IV.
    unused_iv: Vec<u8>,
    /// A stream cipher's nonce as the artifact reads it: the caller's IV
    /// first, zeros after, [`abi::MAX_IV`] bytes whatever the cipher's
    /// nonce length (the ABI does not say it; the artifact reads its own).
    nonce: [u8; abi::MAX_IV],
    /// An AEAD's operations: what `inlinelab_crypt` reads at `iv`, the
    /// timed operations' output, and the timed decryption's ciphertext
    /// ([`Engine::crypt`] in [`Mode::Aead`]).
    aead: AeadTimed,
    // Last, so that it is unloaded after `Drop::drop` has cleared the context.
    _lib: Library,
}

impl SoCipher {
    /// Loads `path` and checks that it is an artifact of this ABI version;
    /// the file is [`inspect`]ed first, and never loaded when it fails.
    // Long: the symbol lookups, each `unsafe` with its SAFETY, and the checks
    // between them, in one scope with the library that owns every pointer taken.
    pub fn load(path: &Path) -> Result<SoCipher, EngineError> {
        let fail = |why: String| EngineError::Load(format!("{}: {why}", path.display()));
        inspect(path).map_err(fail)?;
        // With a slash, `dlopen` opens this very file, the one inspected;
        // a bare name would be searched for in the library path.
        let opened = std::path::absolute(path).map_err(|e| fail(e.to_string()))?;
        // SAFETY: loading runs the library's initialisers; an inlinelab
        // artifact is a no_std cdylib with no initialisers of its own, and
        // the file was just checked to be a whole shared object that
        // exports the ABI (a race that replaces it in between is not
        // guarded against).
        let lib = unsafe { Library::new(&opened) }.map_err(|e| {
            // libloading's Display omits the loader's own message; its source has it.
            let detail = std::error::Error::source(&e)
                .map(|s| format!(": {s}"))
                .unwrap_or_default();
            fail(format!("{e}{detail}"))
        })?;
        // SAFETY: `inlinelab_abi` is a `u32` static of the artifact (its
        // address is what the loader returns), read while `lib` is loaded.
        let version = unsafe { lib.get::<*const u32>(symbol::ABI.as_bytes()) }
            .map(|p| unsafe { **p })
            .map_err(|_| fail("not an inlinelab artifact (no inlinelab_abi)".into()))?;
        if version != abi::VERSION {
            return Err(fail(format!(
                "an artifact of ABI version {version}, but this harness speaks {}; rebuild it with cargo xtask compare",
                abi::VERSION
            )));
        }
        // SAFETY: the symbol is looked up with the signature the ABI gives
        // it (`extern "C" fn() -> i32`); it is asked before anything else, so
        // that code this CPU cannot run is never entered.
        let available = unsafe { lib.get::<extern "C" fn() -> i32>(symbol::AVAILABLE.as_bytes()) }
            .map_err(|e| fail(e.to_string()))?;
        match available() {
            abi::AVAILABLE => {}
            abi::UNAVAILABLE_CPU => {
                return Err(EngineError::Unavailable(format!(
                    "{}: the artifact says this CPU cannot run it",
                    path.display()
                )));
            }
            abi::UNAVAILABLE_LIBRARY => {
                return Err(EngineError::NotReady(format!(
                    "{}: the artifact says a library it calls could not be made ready (as an OpenSSL provider that would not load)",
                    path.display()
                )));
            }
            other => {
                return Err(fail(format!(
                    "{} answered {other}, an answer the ABI does not define",
                    symbol::AVAILABLE
                )));
            }
        }
        // SAFETY (for each `get` below): this ABI version exports these symbols
        // with exactly these signatures; the copies of the function pointers
        // live no longer than `lib`, which the struct owns.
        let usize_fn = |sym: &[u8]| -> Result<usize, EngineError> {
            let f = unsafe { lib.get::<extern "C" fn() -> usize>(sym) }
                .map_err(|e| fail(e.to_string()))?;
            Ok(f())
        };
        let block_size = usize_fn(symbol::BLOCK_SIZE.as_bytes())?;
        let digest_size = usize_fn(symbol::DIGEST_SIZE.as_bytes())?;
        if digest_size > abi::MAX_DIGEST {
            return Err(fail(format!(
                "a digest of {digest_size} bytes, more than the {} the ABI carries",
                abi::MAX_DIGEST
            )));
        }
        let size = usize_fn(symbol::CTX_SIZE.as_bytes())?;
        let align = usize_fn(symbol::CTX_ALIGN.as_bytes())?;
        let name_fn = unsafe {
            lib.get::<extern "C" fn() -> *const std::ffi::c_char>(symbol::NAME.as_bytes())
        }
        .map_err(|e| fail(e.to_string()))?;
        // SAFETY: `inlinelab_name` returns a pointer to a NUL-terminated
        // static string inside the library, valid while it is loaded.
        let name = unsafe { CStr::from_ptr(name_fn()) }
            .to_string_lossy()
            .into_owned();
        let set_key = *unsafe { lib.get::<SetKey>(symbol::SET_KEY.as_bytes()) }
            .map_err(|e| fail(e.to_string()))?;
        let clear = *unsafe { lib.get::<Clear>(symbol::CLEAR.as_bytes()) }
            .map_err(|e| fail(e.to_string()))?;
        let crypt = *unsafe { lib.get::<Crypt>(symbol::CRYPT.as_bytes()) }
            .map_err(|e| fail(e.to_string()))?;
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
            digest_size,
            set_key,
            clear,
            crypt,
            ctx,
            layout,
            keyed: None,
            unused_iv: vec![0; block_size.max(abi::MAX_IV)],
            nonce: [0; abi::MAX_IV],
            aead: AeadTimed::default(),
            _lib: lib,
        })
    }

    /// Where `inlinelab_crypt` is loaded in this process: less its address
    /// in the file, the artifact's load base (for mapping sampled
    /// instruction pointers to its functions).
    pub fn crypt_address(&self) -> usize {
        self.crypt as usize
    }

    /// The file this engine was loaded from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// What the artifact says it holds (`inlinelab_name`), as [`Engine`]
    /// and [`HashEngine`] name it.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// What the artifact says it holds.
    pub fn holds(&self) -> Holds {
        Holds::parse(&self.name)
    }

    /// A hash's digest length in bytes; 0 for a block cipher.
    pub fn digest_size(&self) -> usize {
        self.digest_size
    }

    /// An error unless the artifact holds a variant (or the peer) of the
    /// hash `h`.
    pub fn check_holds_hash(&self, h: &HashEntry) -> Result<(), EngineError> {
        if self.digest_size > 0 && self.holds().is_of_hash(h) {
            return Ok(());
        }
        Err(EngineError::Load(format!(
            "{} holds `{}`, not a variant of the hash {}: give an artifact of {} built by cargo xtask compare",
            self.path.display(),
            self.name,
            h.name,
            h.name
        )))
    }

    /// One step of a streamed hash through `inlinelab_crypt`: `len` bytes
    /// at `buf` (only read by [`Op::HashUpdate`]).
    fn hash_step(&mut self, op: Op, buf: *mut u8, len: usize) -> Result<(), EngineError> {
        if self.digest_size == 0 {
            return Err(EngineError::Unsupported(Mode::Digest));
        }
        if self.keyed != Some(Mode::Digest) {
            return Err(EngineError::NotKeyed);
        }
        // SAFETY: `ctx` holds a hash state (keyed for a digest, tracked by
        // `keyed`) and nothing else references it; `buf` is valid for `len`
        // bytes, writable unless the step is an update (the caller's
        // promise); `unused_iv` is one block.
        match unsafe { (self.crypt)(self.ctx, op as u32, self.unused_iv.as_mut_ptr(), buf, len) } {
            abi::OK => Ok(()),
            abi::ERR_LENGTH => Err(EngineError::Length(
                variants::modes::LengthError::PartialBlock {
                    len,
                    block: self.digest_size,
                },
            )),
            abi::ERR_OP => Err(EngineError::Unsupported(Mode::Digest)),
            code => Err(EngineError::Abi(code)),
        }
    }

    /// An error unless the artifact holds a variant or peer of `entry`:
    /// timing a CAST6 artifact as `ecb(aes)` would record CAST6's figures
    /// under AES.
    pub fn check_holds(&self, entry: &CipherEntry) -> Result<(), EngineError> {
        let holds = self.holds();
        if holds.is_of(entry) {
            return Ok(());
        }
        let what = match (&holds, holds.entries().first()) {
            (Holds::Variant { .. }, Some(e)) => format!(
                ", a variant of {0}, not of {1}: time it as ecb({0}) or cbc({0}), or give an artifact of {1}",
                e.name, entry.name
            ),
            (Holds::Peer { .. }, Some(e)) => format!(
                ", the peer of {0}, not of {1}: time it as ecb({0}) or cbc({0}), or give an artifact of {1}",
                e.name, entry.name
            ),
            _ => format!(
                ", which is no cipher's variant or peer: give an artifact of {} built by cargo xtask compare",
                entry.name
            ),
        };
        Err(EngineError::Load(format!(
            "{} holds `{}`{what}",
            self.path.display(),
            self.name
        )))
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
        self.aead.made = None;
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
        if mode == Mode::Aead {
            return self.aead_timed(dir, iv, buf);
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
            (Mode::Stream, Dir::Encrypt) => Op::StreamEncrypt,
            (Mode::Stream, Dir::Decrypt) => Op::StreamDecrypt,
            (Mode::Aead, _) => return Err(EngineError::Unsupported(mode)),
        } as u32;
        let chains = matches!(mode, Mode::Cbc | Mode::Ctr | Mode::Xts);
        if chains && iv.len() != self.block_size {
            return Err(EngineError::Length(variants::modes::LengthError::Iv {
                len: iv.len(),
                block: self.block_size,
            }));
        }
        // A stream cipher's nonce: the caller's (its primitive's nonce
        // length), zero-padded to what the ABI carries, since the artifact
        // reads as many bytes as its own nonce takes.
        if mode == Mode::Stream {
            let Some(head) = self.nonce.get_mut(..iv.len()) else {
                return Err(EngineError::Length(variants::modes::LengthError::Iv {
                    len: iv.len(),
                    block: abi::MAX_IV,
                }));
            };
            head.copy_from_slice(iv);
            self.nonce[iv.len()..].fill(0);
        }
        // ECB and a digest do not use the IV, but the ABI hands one block.
        let iv = if mode == Mode::Stream {
            &mut self.nonce[..]
        } else if iv.len() == self.block_size {
            iv
        } else {
            &mut self.unused_iv[..]
        };
        // SAFETY: `ctx` holds a keyed cipher (for XTS, keyed for XTS) that
        // nothing else references; `buf` is valid for its length; `iv` is
        // exactly one block (checked above), or for a stream cipher
        // `abi::MAX_IV` bytes, at least its nonce.
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

    fn aead(
        &mut self,
        dir: Dir,
        nonce: &[u8],
        aad: &[u8],
        buf: &mut [u8],
        tag: &mut [u8],
    ) -> Result<(), EngineError> {
        let mut io = aead_io(nonce, aad, std::ptr::null_mut())?;
        let Some(head) = io.tag.get_mut(..tag.len()) else {
            return Err(EngineError::Length(variants::modes::LengthError::Iv {
                len: tag.len(),
                block: abi::MAX_TAG,
            }));
        };
        if dir == Dir::Decrypt {
            head.copy_from_slice(tag);
        }
        self.aead_call(dir, &mut io, buf.as_mut_ptr(), buf.len())?;
        if dir == Dir::Encrypt {
            tag.copy_from_slice(&io.tag[..tag.len()]);
        }
        Ok(())
    }
}

/// An [`abi::AeadIo`] of `nonce` (zeros after it), `aad` and `out`; an
/// error for a nonce longer than the ABI carries.
fn aead_io(nonce: &[u8], aad: &[u8], out: *mut u8) -> Result<abi::AeadIo, EngineError> {
    let mut io = abi::AeadIo {
        nonce: [0; abi::MAX_IV],
        tag: [0; abi::MAX_TAG],
        aad: aad.as_ptr(),
        aad_len: aad.len(),
        out,
    };
    let Some(head) = io.nonce.get_mut(..nonce.len()) else {
        return Err(EngineError::Length(variants::modes::LengthError::Iv {
            len: nonce.len(),
            block: abi::MAX_IV,
        }));
    };
    head.copy_from_slice(nonce);
    Ok(io)
}

impl SoCipher {
    /// One AEAD operation through `inlinelab_crypt`: `len` bytes at `buf`
    /// (the output to `io.out`, or in place when it is null).
    fn aead_call(
        &mut self,
        dir: Dir,
        io: &mut abi::AeadIo,
        buf: *mut u8,
        len: usize,
    ) -> Result<(), EngineError> {
        if self.keyed != Some(Mode::Aead) {
            return Err(EngineError::NotKeyed);
        }
        let op = match dir {
            Dir::Encrypt => Op::AeadEncrypt,
            Dir::Decrypt => Op::AeadDecrypt,
        };
        let io: *mut abi::AeadIo = io;
        // SAFETY: `ctx` holds a keyed AEAD (tracked by `keyed`) that nothing
        // else references; `buf` is valid for `len` bytes, and `io` is an
        // `AeadIo` whose `aad` is valid for `aad_len` bytes and whose `out`
        // is null or valid for `len` bytes apart from `buf` (the callers'
        // promise: `aead` passes null, `aead_timed` its own buffer).
        match unsafe { (self.crypt)(self.ctx, op as u32, io.cast(), buf, len) } {
            abi::OK => Ok(()),
            abi::ERR_TAG => Err(EngineError::Tag),
            abi::ERR_LENGTH => Err(EngineError::Length(
                variants::modes::LengthError::PartialBlock { len, block: 1 },
            )),
            abi::ERR_OP => Err(EngineError::Unsupported(Mode::Aead)),
            code => Err(EngineError::Abi(code)),
        }
    }

    /// [`Engine::crypt`] in [`Mode::Aead`], as tcrypt's `test_aead_speed`:
    /// out of place into the engine's buffer, with [`AEAD_AAD_BYTES`] of
    /// 0xff; a decryption of `buf` under `nonce` first (outside what the
    /// caller times, when it warms up) makes `buf` the encryption of the
    /// output buffer, with its tag, so that each decryption after checks
    /// a tag that matches.
    ///
    /// [`AEAD_AAD_BYTES`]: crate::engine::AEAD_AAD_BYTES
    fn aead_timed(&mut self, dir: Dir, nonce: &[u8], buf: &mut [u8]) -> Result<(), EngineError> {
        const AAD: [u8; crate::engine::AEAD_AAD_BYTES] = [0xff; crate::engine::AEAD_AAD_BYTES];
        let len = buf.len();
        if self.aead.out.len() < len {
            self.aead.out.resize(len, 0);
        }
        let out = self.aead.out.as_mut_ptr();
        let mut io = aead_io(nonce, &AAD, out)?;
        let made = (buf.as_ptr() as usize, len, io.nonce);
        if dir == Dir::Decrypt && (self.aead.made != Some(made) || self.aead.tag.is_none()) {
            // tcrypt's "encryption path once with buffers reversed".
            let mut reversed = aead_io(nonce, &AAD, buf.as_mut_ptr())?;
            self.aead_call(Dir::Encrypt, &mut reversed, out, len)?;
            self.aead.tag = Some(reversed.tag);
            self.aead.made = Some(made);
        }
        if dir == Dir::Decrypt {
            io.tag = self.aead.tag.unwrap_or([0; abi::MAX_TAG]);
        } else {
            self.aead.made = None;
        }
        self.aead_call(dir, &mut io, buf.as_mut_ptr(), len)?;
        if dir == Dir::Encrypt {
            self.aead.tag = Some(io.tag);
        }
        Ok(())
    }
}

/// A hash's artifact streamed: `init` keys its context with the empty key
/// (a fresh state) the first time, then each step is one call of
/// `inlinelab_crypt`.
impl HashEngine for SoCipher {
    fn name(&self) -> &str {
        &self.name
    }

    fn output_size(&self) -> usize {
        self.digest_size
    }

    fn init(&mut self) -> Result<(), EngineError> {
        if self.digest_size > 0 && self.keyed != Some(Mode::Digest) {
            Engine::set_key(self, Mode::Digest, &[])?;
        }
        let buf = self.unused_iv.as_mut_ptr();
        self.hash_step(Op::HashInit, buf, 0)
    }

    #[inline]
    fn update(&mut self, data: &[u8]) -> Result<(), EngineError> {
        // The artifact only reads an update's bytes (`abi::Op::HashUpdate`).
        self.hash_step(Op::HashUpdate, data.as_ptr().cast_mut(), data.len())
    }

    fn finish(&mut self) -> Result<Digest, EngineError> {
        let mut out = [0u8; abi::MAX_DIGEST];
        self.hash_step(Op::HashFinal, out.as_mut_ptr(), out.len())?;
        Digest::new(&out[..self.digest_size]).ok_or(EngineError::Abi(abi::ERR_LENGTH))
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
    Ok(format!("{}:{:016x}", bytes.len(), fnv1a(&bytes)))
}

/// FNV-1a, 64 bits, of `bytes`: the hash of fingerprints and of normalized
/// code (not cryptographic: it tells files apart, no adversary involved).
pub fn fnv1a(bytes: &[u8]) -> u64 {
    use std::hash::Hasher;
    let mut h = fnv::FnvHasher::default();
    h.write(bytes);
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A crate's artifacts (`compare --crate`) are its own: its variants
    /// by name and its registry peer, never another crate's or ours.
    #[test]
    fn a_crates_artifacts_are_its_own() {
        use crate::crates::PEER_NAME;
        let c = crate::crates::example();
        let e = CipherEntry::of_crate(&c);
        assert!(Holds::parse("cast6@0.2.0::none").is_of(e));
        assert!(!Holds::parse("cast6@0.2.0::never").is_of(e));
        assert!(!Holds::parse("cast5@0.12.0::none").is_of(e));
        assert!(Holds::parse(PEER_NAME).is_of(e));
        assert!(!Holds::parse("cast6::never").is_of(e));
    }
    use crate::registry::CIPHERS;

    fn entry(name: &str) -> &'static CipherEntry {
        CIPHERS.iter().find(|c| c.name == name).unwrap()
    }

    #[test]
    fn what_an_artifact_holds() {
        let never = Holds::parse("cast6::never");
        assert_eq!(
            never,
            Holds::Variant {
                module: "cast6".into(),
                variant: "never".into()
            }
        );
        assert!(never.is_of(entry("cast6")));
        assert!(!never.is_of(entry("aes")));
        assert!(!Holds::parse("cast6::sometimes").is_of(entry("cast6")));
        let peer = Holds::parse("peer-cast6");
        assert!(peer.is_of(entry("cast6")) && !peer.is_of(entry("cast5")));
        // Both AES peers are built from the one feature.
        assert!(Holds::parse("peer-aes").is_of(entry("aes")));
        assert_eq!(Holds::parse("peer-aes").entries().len(), 1);
        for other in [
            "",
            "cast6",
            "::never",
            "cast6::",
            "cast6::never::x",
            "peer-",
            "x",
        ] {
            assert!(
                Holds::parse(other).entries().is_empty(),
                "{other:?} belongs to nothing"
            );
        }
    }

    /// A scratch copy of a shared object this process has loaded (the C
    /// library), to cut and patch.
    fn some_shared_object() -> Vec<u8> {
        let maps = std::fs::read_to_string("/proc/self/maps").unwrap();
        let path = maps
            .lines()
            .filter_map(|l| l.split_whitespace().nth(5))
            .find(|p| p.contains("libc.so") || p.contains("libc-"))
            .expect("libc is mapped");
        std::fs::read(path).unwrap()
    }

    fn scratch(dir: &tempfile::TempDir, name: &str, bytes: &[u8]) -> PathBuf {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        path
    }

    /// A shared object rustc compiles from `source` (a fraction of a
    /// second): an artifact of another ABI, made on purpose.
    fn cdylib(dir: &tempfile::TempDir, name: &str, source: &str) -> PathBuf {
        let src = dir.path().join(format!("{name}.rs"));
        std::fs::write(&src, source).unwrap();
        let out = dir.path().join(format!("lib{name}.so"));
        let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
        let status = std::process::Command::new(rustc)
            .args(["--edition", "2021", "--crate-type", "cdylib", "-o"])
            .arg(&out)
            .arg(&src)
            .status()
            .unwrap();
        assert!(status.success(), "rustc {name}.rs");
        out
    }

    /// Every function of ABI version 4 but the version's, as it exported
    /// them (the context pointer of `inlinelab_crypt` const).
    const V4_FUNCTIONS: &str = r#"
        #[no_mangle] pub extern "C" fn inlinelab_name() -> *const u8 { b"cast6::never\0".as_ptr() }
        #[no_mangle] pub extern "C" fn inlinelab_available() -> i32 { 1 }
        #[no_mangle] pub extern "C" fn inlinelab_block_size() -> usize { 16 }
        #[no_mangle] pub extern "C" fn inlinelab_ctx_size() -> usize { 8 }
        #[no_mangle] pub extern "C" fn inlinelab_ctx_align() -> usize { 8 }
        #[no_mangle] pub extern "C" fn inlinelab_set_key(_: *mut u8, _: u32, _: *const u8, _: usize) -> i32 { 0 }
        #[no_mangle] pub extern "C" fn inlinelab_clear(_: *mut u8) {}
        #[no_mangle] pub extern "C" fn inlinelab_crypt(_: *const u8, _: u32, _: *mut u8, _: *mut u8, _: usize) -> i32 { 0 }
    "#;

    /// An artifact of ABI version 4 (its version a function, no hashes) is
    /// refused by [`inspect`], before `dlopen`, saying so and what to do;
    /// so is one whose `inlinelab_abi` says another version (4, or 5, the
    /// one before AEADs); and one of
    /// this version whose digest is longer than the ABI carries is refused
    /// on loading.
    #[test]
    fn an_artifact_of_another_abi_version_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let v4 = cdylib(
            &dir,
            "v4",
            &format!(
                "#[no_mangle] pub extern \"C\" fn inlinelab_abi_version() -> u32 {{ 4 }}\n{V4_FUNCTIONS}"
            ),
        );
        let e = inspect(&v4).unwrap_err();
        assert!(
            e.starts_with("an artifact of ABI version 4 or older (it has the function inlinelab_abi_version, not the inlinelab_abi of version 5 on), but this harness speaks 6; rebuild it with cargo xtask compare"),
            "{e}"
        );
        let Err(EngineError::Load(why)) = SoCipher::load(&v4) else {
            panic!("loaded a version 4 artifact");
        };
        assert!(
            why.starts_with(&format!("{}: an artifact of ABI version 4", v4.display())),
            "{why}"
        );
        let v5 = |name: &str, version: u32, digest: usize| {
            let source = format!(
                "#![allow(non_upper_case_globals)]\n\
                 #[no_mangle] pub static inlinelab_abi: u32 = {version};\n\
                 #[no_mangle] pub extern \"C\" fn inlinelab_digest_size() -> usize {{ {digest} }}\n{}",
                V4_FUNCTIONS.replace(
                    "_: *const u8, _: u32, _: *mut u8",
                    "_: *mut u8, _: u32, _: *mut u8"
                )
            );
            cdylib(&dir, name, &source)
        };
        let marked = v5("marked", 4, 0);
        let e = inspect(&marked).unwrap_err();
        assert!(
            e.starts_with("an artifact of ABI version 4, but this harness speaks 6; rebuild it"),
            "{e}"
        );
        // Version 5, the last before AEADs (whose `iv` it would read as an
        // IV), exports the same symbols: refused by its version alone.
        let five = v5("five", 5, 0);
        let e = inspect(&five).unwrap_err();
        assert!(
            e.starts_with("an artifact of ABI version 5, but this harness speaks 6; rebuild it"),
            "{e}"
        );
        let Err(EngineError::Load(why)) = SoCipher::load(&five) else {
            panic!("loaded a version 5 artifact");
        };
        assert!(why.contains("an artifact of ABI version 5"), "{why}");
        let wide = v5("wide", abi::VERSION, abi::MAX_DIGEST + 1);
        inspect(&wide).unwrap();
        let Err(EngineError::Load(why)) = SoCipher::load(&wide) else {
            panic!("loaded an artifact whose digest the ABI cannot carry");
        };
        assert!(
            why.ends_with("a digest of 65 bytes, more than the 64 the ABI carries"),
            "{why}"
        );
        let fits = v5("fits", abi::VERSION, 20);
        let so = SoCipher::load(&fits).unwrap();
        assert_eq!((so.digest_size(), so.name()), (20, "cast6::never"));
    }

    /// `inlinelab_available`'s answers, each as what it is: this CPU
    /// lacks an instruction (unavailable on this CPU), a library the
    /// artifact calls could not be made ready (unavailable here, and not
    /// said of the CPU: a library peer's provider that would not load), an
    /// answer the ABI does not define (refused), and yes (loaded).
    #[test]
    fn each_availability_answer_is_said_as_what_it_is() {
        let dir = tempfile::tempdir().unwrap();
        let answering = |name: &str, answer: i32| {
            let source = format!(
                "#![allow(non_upper_case_globals)]\n\
                 #[no_mangle] pub static inlinelab_abi: u32 = {};\n\
                 #[no_mangle] pub extern \"C\" fn inlinelab_digest_size() -> usize {{ 0 }}\n{}",
                abi::VERSION,
                V4_FUNCTIONS
                    .replace(
                        "inlinelab_available() -> i32 { 1 }",
                        &format!("inlinelab_available() -> i32 {{ {answer} }}")
                    )
                    .replace(
                        "_: *const u8, _: u32, _: *mut u8",
                        "_: *mut u8, _: u32, _: *mut u8"
                    )
            );
            cdylib(&dir, name, &source)
        };
        let cpu = answering("cpu", abi::UNAVAILABLE_CPU);
        let Err(e @ EngineError::Unavailable(_)) = SoCipher::load(&cpu) else {
            panic!("an artifact this CPU cannot run was not unavailable");
        };
        assert!(
            e.to_string()
                .ends_with("the artifact says this CPU cannot run it"),
            "{e}"
        );
        let library = answering("library", abi::UNAVAILABLE_LIBRARY);
        let Err(e @ EngineError::NotReady(_)) = SoCipher::load(&library) else {
            panic!("an artifact whose library is not ready was not said so");
        };
        let said = e.to_string();
        assert!(said.starts_with("unavailable here: "), "{said}");
        assert!(said.ends_with("the artifact says a library it calls could not be made ready (as an OpenSSL provider that would not load)"), "{said}");
        assert!(!said.contains("CPU"), "{said}");
        let odd = answering("odd", 7);
        let Err(EngineError::Load(why)) = SoCipher::load(&odd) else {
            panic!("loaded an artifact with an availability answer the ABI does not define");
        };
        assert!(
            why.ends_with("inlinelab_available answered 7, an answer the ABI does not define"),
            "{why}"
        );
        let yes = answering("yes", abi::AVAILABLE);
        assert_eq!(SoCipher::load(&yes).unwrap().name(), "cast6::never");
    }

    /// A truncated shared object is refused before `dlopen` (which maps it
    /// and dies of SIGBUS touching a page past the end); so are files that
    /// are not shared objects, and one that exports no ABI.
    #[test]
    fn inspect_refuses_before_loading() {
        let lib = some_shared_object();
        let dir = tempfile::tempdir().unwrap();
        let whole = scratch(&dir, "whole.so", &lib);
        let e = inspect(&whole).unwrap_err();
        assert!(
            e.starts_with("not an inlinelab artifact (no inlinelab_abi,"),
            "{e}"
        );
        for cut in [
            0,
            1,
            64,
            4096,
            lib.len() / 3,
            lib.len() / 2,
            lib.len() - 64,
            lib.len() - 1,
        ] {
            let path = scratch(&dir, "cut.so", &lib[..cut]);
            let e = inspect(&path).unwrap_err();
            assert!(!e.contains('\n'), "{e}");
            let Err(EngineError::Load(why)) = SoCipher::load(&path) else {
                panic!("{cut}: loaded");
            };
            assert!(why.starts_with(&path.display().to_string()), "{why}");
        }
        // A segment that runs past the end, with the section headers whole.
        let mut patched = lib.clone();
        let u64_at = |b: &[u8], at: usize| u64::from_le_bytes(b[at..at + 8].try_into().unwrap());
        let u16_at = |b: &[u8], at: usize| u16::from_le_bytes(b[at..at + 2].try_into().unwrap());
        let (phoff, phentsize, phnum) = (
            u64_at(&lib, 0x20) as usize,
            u16_at(&lib, 0x36) as usize,
            u16_at(&lib, 0x38) as usize,
        );
        let load = (0..phnum)
            .map(|i| phoff + i * phentsize)
            .rfind(|&h| u32::from_le_bytes(lib[h..h + 4].try_into().unwrap()) == 1)
            .expect("a PT_LOAD segment");
        patched[load + 32..load + 40].copy_from_slice(&(lib.len() as u64).to_le_bytes());
        let path = scratch(&dir, "segment.so", &patched);
        let e = inspect(&path).unwrap_err();
        assert!(e.contains("segment lies past the end"), "{e}");
        // Not shared objects at all.
        let text = scratch(&dir, "text.so", b"not an ELF file\n");
        assert!(
            inspect(&text)
                .unwrap_err()
                .contains("not an ELF shared object")
        );
        for path in [
            Path::new("/dev/null"),
            Path::new("/"),
            &std::env::temp_dir(),
        ] {
            let e = inspect(path).unwrap_err();
            assert!(e.contains("not a regular file"), "{path:?}: {e}");
        }
        assert!(inspect(Path::new("/nonexistent/x.so")).is_err());
    }
}
