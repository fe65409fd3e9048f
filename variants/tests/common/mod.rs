//! What the cipher tests share: a cipher behind an object-safe trait (so that
//! every variant and the oracle run through one `check`), and hex.

#![allow(dead_code)] // each test binary uses part of it

use cipher::array::ArraySize;
use cipher::common::InnerInit;
use cipher::typenum::{IsLess, NonZero, True, U8, U16, U256};
use cipher::{BlockCipherDecrypt, BlockCipherEncrypt, BlockModeDecrypt, BlockModeEncrypt};
use cipher::{InnerIvInit, KeyInit, StreamCipher, StreamCipherCoreWrapper};
use variants::modes;

/// A keyed block cipher through its own block API only: one block, and
/// whole buffers through its backend (`ParBlocksSize` blocks at a time).
/// What a type adds over another that it wraps (AES's fixed-size types
/// over `Aes`) is here; the modes above it are the same generic code.
pub trait Blocks {
    fn block_size(&self) -> usize;
    fn encrypt_block(&self, block: &mut [u8]);
    fn decrypt_block(&self, block: &mut [u8]);
    /// `BlockCipherEncrypt::encrypt_blocks`: whole buffers, `ParBlocksSize`
    /// blocks at a time, the tail one by one.
    fn encrypt_blocks(&self, buf: &mut [u8]);
    fn decrypt_blocks(&self, buf: &mut [u8]);
}

/// A keyed block cipher, whatever its type; modes go through RustCrypto's
/// `ecb`, `cbc` and `ctr` crates so that the variants are shown to drop
/// into them, and through `variants::modes`, the loops the harness runs.
pub trait Dyn: Blocks {
    fn ecb_encrypt(&self, buf: &mut [u8]);
    fn ecb_decrypt(&self, buf: &mut [u8]);
    fn cbc_encrypt(&self, iv: &[u8], buf: &mut [u8]);
    fn cbc_decrypt(&self, iv: &[u8], buf: &mut [u8]);
    /// The `ctr` crate, with a big-endian counter over the whole block.
    fn ctr_apply(&self, iv: &[u8], buf: &mut [u8]);
    /// `variants::modes`, each by its name: `ecb encrypt`, ..., `ctr`,
    /// `xts encrypt` (with this cipher for both keys; 16-byte blocks only).
    fn ours(&self, op: &str, iv: &[u8], buf: &mut [u8]);
}

/// A block size the `ctr` crate counts over whole (`Ctr64BE` for 8-byte
/// blocks, `Ctr128BE` for 16), as `variants::modes::ctr_apply` does.
pub trait Counter: ArraySize + IsLess<U256, Output = True> + NonZero {
    type Flavor: ctr::CtrFlavor<Self>;
}

impl Counter for U8 {
    type Flavor = ctr::flavors::Ctr64BE;
}

impl Counter for U16 {
    type Flavor = ctr::flavors::Ctr128BE;
}

impl<C> Blocks for C
where
    C: BlockCipherEncrypt + BlockCipherDecrypt,
{
    fn block_size(&self) -> usize {
        C::block_size()
    }

    fn encrypt_block(&self, block: &mut [u8]) {
        BlockCipherEncrypt::encrypt_block(self, block.try_into().expect("one block"));
    }

    fn decrypt_block(&self, block: &mut [u8]) {
        BlockCipherDecrypt::decrypt_block(self, block.try_into().expect("one block"));
    }

    fn encrypt_blocks(&self, buf: &mut [u8]) {
        let (blocks, rest) = cipher::Array::slice_as_chunks_mut(buf);
        assert!(rest.is_empty());
        BlockCipherEncrypt::encrypt_blocks(self, blocks);
    }

    fn decrypt_blocks(&self, buf: &mut [u8]) {
        let (blocks, rest) = cipher::Array::slice_as_chunks_mut(buf);
        assert!(rest.is_empty());
        BlockCipherDecrypt::decrypt_blocks(self, blocks);
    }
}

impl<C> Dyn for C
where
    C: KeyInit + BlockCipherEncrypt + BlockCipherDecrypt + Clone,
    C::BlockSize: Counter,
{
    fn ctr_apply(&self, iv: &[u8], buf: &mut [u8]) {
        let core = ctr::CtrCore::<C, <C::BlockSize as Counter>::Flavor>::inner_iv_slice_init(
            self.clone(),
            iv,
        )
        .expect("iv");
        StreamCipherCoreWrapper::from_core(core).apply_keystream(buf);
    }

    fn ours(&self, op: &str, iv: &[u8], buf: &mut [u8]) {
        let mut iv = iv.to_vec();
        let result = match op {
            "ecb encrypt" => modes::ecb_encrypt(self, buf),
            "ecb decrypt" => modes::ecb_decrypt(self, buf),
            "cbc encrypt" => modes::cbc_encrypt(self, &mut iv, buf),
            "cbc decrypt" => modes::cbc_decrypt(self, &mut iv, buf),
            "ctr" => modes::ctr_apply(self, &mut iv, buf),
            "xts encrypt" => modes::xts_encrypt(self, self, &iv, buf),
            "xts decrypt" => modes::xts_decrypt(self, self, &iv, buf),
            other => panic!("no mode {other}"),
        };
        result.unwrap_or_else(|e| panic!("{op}: {e}"));
    }

    fn ecb_encrypt(&self, buf: &mut [u8]) {
        let mut mode = ecb::Encryptor::<C>::inner_init(self.clone());
        let (blocks, rest) = cipher::Array::slice_as_chunks_mut(buf);
        assert!(rest.is_empty());
        mode.encrypt_blocks(blocks);
    }

    fn ecb_decrypt(&self, buf: &mut [u8]) {
        let mut mode = ecb::Decryptor::<C>::inner_init(self.clone());
        let (blocks, rest) = cipher::Array::slice_as_chunks_mut(buf);
        assert!(rest.is_empty());
        mode.decrypt_blocks(blocks);
    }

    fn cbc_encrypt(&self, iv: &[u8], buf: &mut [u8]) {
        let mut mode = cbc::Encryptor::<C>::inner_iv_slice_init(self.clone(), iv).expect("iv");
        let (blocks, rest) = cipher::Array::slice_as_chunks_mut(buf);
        assert!(rest.is_empty());
        mode.encrypt_blocks(blocks);
    }

    fn cbc_decrypt(&self, iv: &[u8], buf: &mut [u8]) {
        let mut mode = cbc::Decryptor::<C>::inner_iv_slice_init(self.clone(), iv).expect("iv");
        let (blocks, rest) = cipher::Array::slice_as_chunks_mut(buf);
        assert!(rest.is_empty());
        mode.decrypt_blocks(blocks);
    }
}

/// Makes a keyed cipher from a key of any length, or says why not.
pub type New = fn(&[u8]) -> Result<Box<dyn Dyn>, cipher::InvalidLength>;

pub fn new<C>(key: &[u8]) -> Result<Box<dyn Dyn>, cipher::InvalidLength>
where
    C: KeyInit + BlockCipherEncrypt + BlockCipherDecrypt + Clone + 'static,
    C::BlockSize: Counter,
{
    Ok(Box::new(C::new_from_slice(key)?))
}

/// Makes a keyed cipher, seen through its block API only, from a key of
/// any length, or says why not.
pub type NewBlocks = fn(&[u8]) -> Result<Box<dyn Blocks>, cipher::InvalidLength>;

pub fn new_blocks<C>(key: &[u8]) -> Result<Box<dyn Blocks>, cipher::InvalidLength>
where
    C: KeyInit + BlockCipherEncrypt + BlockCipherDecrypt + 'static,
{
    Ok(Box::new(C::new_from_slice(key)?))
}

pub fn hex(s: &str) -> Vec<u8> {
    assert!(s.len().is_multiple_of(2), "odd hex length: {s}");
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex digit"))
        .collect()
}

pub fn to_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// ECB and CBC, both directions, of `data` under `cipher` and `oracle`:
/// the first difference fails the test, naming `what`.
pub fn check_modes(what: &str, cipher: &dyn Dyn, oracle: &dyn Dyn, iv: &[u8], data: &[u8]) {
    type Op<'a> = &'a dyn Fn(&dyn Dyn, &mut [u8]);
    let ops: [(&str, Op); 4] = [
        ("ecb encrypt", &|c, b| c.ecb_encrypt(b)),
        ("ecb decrypt", &|c, b| c.ecb_decrypt(b)),
        ("cbc encrypt", &|c, b| c.cbc_encrypt(iv, b)),
        ("cbc decrypt", &|c, b| c.cbc_decrypt(iv, b)),
    ];
    for (op, run) in ops {
        let (mut got, mut want) = (data.to_vec(), data.to_vec());
        run(cipher, &mut got);
        run(oracle, &mut want);
        assert_eq!(got, want, "{what}: {op}");
    }
}

/// Every buffer length from 1 to 40 blocks (every tail any lane count
/// leaves, and several full rounds of 8 lanes), random data and IV from
/// `seed`, through `cipher` and `oracle`: `encrypt_blocks` and
/// `decrypt_blocks`, the `ecb`, `cbc` and `ctr` crates and every loop of
/// `variants::modes` (named without "crate"). The first difference fails
/// the test, naming `what`.
pub fn check_lengths(what: &str, cipher: &dyn Dyn, oracle: &dyn Dyn, seed: u64) {
    let bs = cipher.block_size();
    let mut ops = vec![
        "encrypt_blocks",
        "decrypt_blocks",
        "ecb crate encrypt",
        "ecb crate decrypt",
        "cbc crate encrypt",
        "cbc crate decrypt",
        "ctr crate",
        "ecb encrypt",
        "ecb decrypt",
        "cbc encrypt",
        "cbc decrypt",
        "ctr",
    ];
    if bs == 16 {
        ops.extend(["xts encrypt", "xts decrypt"]);
    }
    let run = |c: &dyn Dyn, op: &str, iv: &[u8], buf: &mut [u8]| match op {
        "encrypt_blocks" => c.encrypt_blocks(buf),
        "decrypt_blocks" => c.decrypt_blocks(buf),
        "ecb crate encrypt" => c.ecb_encrypt(buf),
        "ecb crate decrypt" => c.ecb_decrypt(buf),
        "cbc crate encrypt" => c.cbc_encrypt(iv, buf),
        "cbc crate decrypt" => c.cbc_decrypt(iv, buf),
        "ctr crate" => c.ctr_apply(iv, buf),
        ours => c.ours(ours, iv, buf),
    };
    let mut rng = fastrand::Rng::with_seed(seed);
    for blocks in 1..=40 {
        let mut data = vec![0u8; bs * blocks];
        let mut iv = vec![0u8; bs];
        rng.fill(&mut data);
        rng.fill(&mut iv);
        // A counter about to carry out of its low 16 bits, now and then.
        if blocks % 3 == 0 {
            iv[bs - 2..].fill(0xff);
        }
        for op in &ops {
            let (mut got, mut want) = (data.clone(), data.clone());
            run(cipher, op, &iv, &mut got);
            run(oracle, op, &iv, &mut want);
            assert_eq!(got, want, "{what}: {op}, {blocks} blocks");
        }
        // And back: each direction undoes the other, whole buffers at once.
        let mut round_trip = data.clone();
        cipher.encrypt_blocks(&mut round_trip);
        cipher.decrypt_blocks(&mut round_trip);
        assert_eq!(
            round_trip, data,
            "{what}: encrypt_blocks then decrypt_blocks, {blocks} blocks"
        );
    }
}

/// Every buffer length from 1 to 40 blocks, random data from `seed`,
/// through `cipher`'s and `oracle`'s own block API (`encrypt_blocks`,
/// `decrypt_blocks`), and back. The first difference fails the test,
/// naming `what`.
pub fn check_block_lengths(what: &str, cipher: &dyn Blocks, oracle: &dyn Blocks, seed: u64) {
    let bs = cipher.block_size();
    let mut rng = fastrand::Rng::with_seed(seed);
    for blocks in 1..=40 {
        let mut data = vec![0u8; bs * blocks];
        rng.fill(&mut data);
        let (mut got, mut want) = (data.clone(), data.clone());
        cipher.encrypt_blocks(&mut got);
        oracle.encrypt_blocks(&mut want);
        assert_eq!(got, want, "{what}: encrypt_blocks, {blocks} blocks");
        cipher.decrypt_blocks(&mut got);
        assert_eq!(got, data, "{what}: decrypt_blocks, {blocks} blocks");
    }
}

/// `(name, constructor)` of every variant of a cipher, as the callback of
/// `variants::<cipher>_variants!`: the list comes from the declaration.
#[allow(unused_macros)] // each test binary uses part of this module
macro_rules! constructors {
    (cipher: $c:ident, kind: cipher($ty:ident), variants: [$($v:ident)*]) => {
        common::runnable(vec![$((
            stringify!($v),
            common::new::<variants::$c::$v::$ty> as common::New,
            variants::$c::$v::$ty::available(),
        )),*])
    };
}

/// The variants this CPU can run, each with what it is tested through;
/// the others (an AES-NI form on a CPU without it) are named on stderr.
pub fn runnable<T>(all: Vec<(&'static str, T, bool)>) -> Vec<(&'static str, T)> {
    all.into_iter()
        .filter_map(|(v, t, available)| {
            if !available {
                eprintln!("{v}: unavailable on this CPU, not tested");
            }
            available.then_some((v, t))
        })
        .collect()
}
#[allow(unused_imports)]
pub(crate) use constructors;
