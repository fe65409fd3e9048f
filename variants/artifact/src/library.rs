//! What a C library's peer shares, whichever library (`libgcrypt.rs`,
//! `openssl.rs`): the algorithm and block size `cargo xtask` names at build
//! time, and what a mode leaves in the IV, which the libraries keep inside
//! their own state.

use abi::Op;

/// The library's name for the algorithm by the key lengths it takes
/// (`5-16=CAST5`, `16-16=AES,24-24=AES192,32-32=AES256`), as `cargo xtask`
/// builds this peer from the declaration.
pub const ALGORITHM: &str = env!(
    "INLINELAB_LIBRARY_ALGORITHM",
    "a library peer's artifact is built by cargo xtask, which names its algorithm"
);

/// The cipher's block size in bytes, as `cargo xtask` builds this peer.
pub const BLOCK: usize = super::parse_usize(env!(
    "INLINELAB_LIBRARY_BLOCK",
    "a library peer's artifact is built by cargo xtask, which gives its block size"
));

const _: () = assert!(BLOCK >= 1 && BLOCK <= 16, "a block of 1 to 16 bytes");

/// The longest key kept (XTS's two keys of 32 bytes).
pub const MAX_KEY: usize = 64;

/// The library's name for the algorithm under a key of `len` bytes; none
/// for a length the declaration does not say it takes.
pub fn name_for(len: usize) -> Option<&'static str> {
    ALGORITHM.split(',').find_map(|pair| {
        let (lengths, name) = pair.split_once('=')?;
        let (lo, hi) = lengths.split_once('-')?;
        (super::parse_usize(lo) <= len && len <= super::parse_usize(hi)).then_some(name)
    })
}

/// The provider (OpenSSL's) the algorithm is in, where the declaration
/// names one (`legacy`), as `cargo xtask` builds this peer.
#[allow(dead_code)] // libgcrypt has none
pub const PROVIDER: Option<&str> = option_env!("INLINELAB_LIBRARY_PROVIDER");

/// `name` then `suffix` as a C string (NUL-terminated), if it fits.
pub fn c_name(name: &str, suffix: &str) -> Option<[u8; 32]> {
    let mut c = [0u8; 32];
    let len = name.len() + suffix.len();
    if len >= c.len() {
        return None;
    }
    c[..name.len()].copy_from_slice(name.as_bytes());
    c[name.len()..len].copy_from_slice(suffix.as_bytes());
    Some(c)
}

/// What a mode leaves in the IV, as `variants::modes` leaves it: CBC the
/// last ciphertext block (for decryption, kept before the buffer is
/// overwritten), CTR the counter advanced by one per block.
pub struct Chain {
    last: [u8; 16],
}

impl Chain {
    /// Before the library runs `op` over `buf`.
    pub fn before(op: Op, buf: &[u8]) -> Chain {
        let mut last = [0u8; 16];
        if op == Op::CbcDecrypt && buf.len() >= BLOCK {
            last[..BLOCK].copy_from_slice(&buf[buf.len() - BLOCK..]);
        }
        Chain { last }
    }

    /// After it: the IV as the mode leaves it.
    pub fn after(&self, op: Op, iv: &mut [u8], buf: &[u8]) {
        match op {
            Op::CbcEncrypt if buf.len() >= BLOCK => iv.copy_from_slice(&buf[buf.len() - BLOCK..]),
            Op::CbcDecrypt if buf.len() >= BLOCK => iv.copy_from_slice(&self.last[..BLOCK]),
            Op::CtrEncrypt | Op::CtrDecrypt => add(iv, buf.len().div_ceil(BLOCK)),
            _ => {}
        }
    }
}

/// `counter += n`, big-endian over the whole block (as the CTR of
/// `variants::modes` advances it).
fn add(counter: &mut [u8], n: usize) {
    let mut carry = n as u128;
    for byte in counter.iter_mut().rev() {
        if carry == 0 {
            break;
        }
        let sum = u128::from(*byte) + (carry & 0xff);
        *byte = sum as u8;
        carry = (carry >> 8) + (sum >> 8);
    }
}
