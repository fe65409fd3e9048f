//! What the cipher tests share: a cipher behind an object-safe trait (so that
//! every variant and the oracle run through one `check`), and hex.

#![allow(dead_code)] // each test binary uses part of it

use cipher::common::InnerInit;
use cipher::{BlockCipherDecrypt, BlockCipherEncrypt, BlockModeDecrypt, BlockModeEncrypt};
use cipher::{InnerIvInit, KeyInit};

/// A keyed block cipher, whatever its type; modes go through RustCrypto's
/// `ecb` and `cbc` crates so that the variants are shown to drop into them.
pub trait Dyn {
    fn encrypt_block(&self, block: &mut [u8]);
    fn decrypt_block(&self, block: &mut [u8]);
    fn ecb_encrypt(&self, buf: &mut [u8]);
    fn ecb_decrypt(&self, buf: &mut [u8]);
    fn cbc_encrypt(&self, iv: &[u8], buf: &mut [u8]);
    fn cbc_decrypt(&self, iv: &[u8], buf: &mut [u8]);
}

impl<C> Dyn for C
where
    C: KeyInit + BlockCipherEncrypt + BlockCipherDecrypt + Clone,
{
    fn encrypt_block(&self, block: &mut [u8]) {
        BlockCipherEncrypt::encrypt_block(self, block.try_into().expect("one block"));
    }

    fn decrypt_block(&self, block: &mut [u8]) {
        BlockCipherDecrypt::decrypt_block(self, block.try_into().expect("one block"));
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

pub fn new<C: KeyInit + BlockCipherEncrypt + BlockCipherDecrypt + Clone + 'static>(
    key: &[u8],
) -> Result<Box<dyn Dyn>, cipher::InvalidLength> {
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

/// `(name, constructor)` of every variant of a cipher, as the callback of
/// `variants::<cipher>_variants!`: the list comes from the declaration.
#[allow(unused_macros)] // each test binary uses part of this module
macro_rules! constructors {
    (cipher: $c:ident, kind: cipher($ty:ident), variants: [$($v:ident)*]) => {
        vec![$((stringify!($v), common::new::<variants::$c::$v::$ty> as common::New)),*]
    };
}
#[allow(unused_imports)]
pub(crate) use constructors;
